/* fuzz-qwen-line.c: the Qwen Code session reader, line by line.
 *
 * The input is a session file (JSON lines), read as the reader reads it:
 * once whole with a small line cap (the too-long path), once for its pages
 * (pd_fuzz_check_pages()), once as a long session from its end with the
 * tail limits lowered to the input's size, and once followed in two
 * appends, as a running session is.
 */
#include "config.h"

#include "pd-fuzz-import.h"
#include "pd-import-private.h"
#include "pd-qwen-reader.h"

static PdFuzzFile file;

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  pd_fuzz_init_logging ();
  pd_fuzz_file_init (&file);
  return 0;
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(PdQwenReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  size_t half = size / 2;

  if (size > 256 * 1024)
    return -1;

  pd_fuzz_file_set (&file, data, size);
  reader = pd_qwen_reader_new (file.path);
  pd_transcript_reader_set_max_line (PD_TRANSCRIPT_READER (reader), 32 * 1024);
  if (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error))
    pd_fuzz_check_session (pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader)));
  g_clear_error (&error);
  g_clear_object (&reader);

  reader = pd_qwen_reader_new (file.path);
  pd_transcript_reader_set_max_line (PD_TRANSCRIPT_READER (reader), 32 * 1024);
  pd_fuzz_check_pages (PD_TRANSCRIPT_READER (reader));
  g_clear_object (&reader);

  if (size > 1)
    {
      _pd_import_set_tail_limits (1, (goffset) (size / 3 + 1));
      reader = pd_qwen_reader_new (file.path);
      if (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error))
        pd_fuzz_check_session (pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader)));
      _pd_import_set_tail_limits (0, 0);
      g_clear_error (&error);
      g_clear_object (&reader);
    }

  pd_fuzz_file_set (&file, data, half);
  reader = pd_qwen_reader_new (file.path);
  pd_transcript_reader_set_follow (PD_TRANSCRIPT_READER (reader), TRUE);
  if (!pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error))
    return 0;
  pd_fuzz_file_set (&file, data, size);
  if (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error))
    pd_fuzz_check_session (pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader)));
  return 0;
}
