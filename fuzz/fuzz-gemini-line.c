/* fuzz-gemini-line.c: the Gemini CLI session reader, both formats.
 *
 * The input is read as JSON lines with the three replay rules (a small
 * line cap reaches the too-long path), once for its pages, once followed in
 * two appends, and as the older one-document format, also rewritten whole
 * under a reader that already read it.
 */
#include "config.h"

#include "pd-fuzz-import.h"
#include "pd-gemini-reader.h"
#include "pd-import-private.h"

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
  g_autoptr(PdGeminiReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  size_t half = size / 2;

  if (size > 256 * 1024)
    return -1;

  for (guint document = 0; document <= 1; document++)
    {
      pd_fuzz_file_set (&file, data, size);
      reader = pd_gemini_reader_new (file.path, document);
      pd_transcript_reader_set_max_line (PD_TRANSCRIPT_READER (reader), 32 * 1024);
      if (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error))
        pd_fuzz_check_session (pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader)));
      g_clear_error (&error);
      g_clear_object (&reader);

      reader = pd_gemini_reader_new (file.path, document);
      pd_transcript_reader_set_max_line (PD_TRANSCRIPT_READER (reader), 32 * 1024);
      pd_fuzz_check_pages (PD_TRANSCRIPT_READER (reader));
      g_clear_object (&reader);

      /* Followed (JSON lines), or rewritten whole (a document). */
      pd_fuzz_file_set (&file, data, half);
      reader = pd_gemini_reader_new (file.path, document);
      pd_transcript_reader_set_follow (PD_TRANSCRIPT_READER (reader), TRUE);
      pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error);
      g_clear_error (&error);
      pd_fuzz_file_set (&file, data, size);
      if (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error))
        pd_fuzz_check_session (pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader)));
      g_clear_error (&error);
      g_clear_object (&reader);
    }
  return 0;
}
