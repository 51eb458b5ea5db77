/* fuzz-claude-line.c: the Claude Code transcript reader, line by line.
 *
 * The input is a transcript (JSON lines); the reader reads it through its
 * JSONL reader and line parser, with a small line cap so that the too-long
 * path is reached too.  Then it is read once more in follow mode, split in
 * two appends, as a running session is followed, and once more whole for
 * its pages (pd_fuzz_check_pages()); and it reads to the same session
 * with its lines picked as with whole trees (pd_fuzz_check_picked()).
 */
#include "config.h"

#include "pd-claude-code-reader.h"
#include "pd-fuzz-import.h"

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
  g_autoptr(PdClaudeCodeReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  size_t half = size / 2;

  if (size > 256 * 1024)
    return -1;

  pd_fuzz_file_set (&file, data, size);
  reader = pd_claude_code_reader_new (file.path);
  pd_transcript_reader_set_max_line (PD_TRANSCRIPT_READER (reader), 32 * 1024);
  if (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error))
    pd_fuzz_check_session (pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader)));
  g_clear_error (&error);
  g_clear_object (&reader);

  /* Its lines picked, and whole: the same session. */
  {
    g_autoptr(PdClaudeCodeReader) picked = pd_claude_code_reader_new (file.path);
    g_autoptr(PdClaudeCodeReader) whole = pd_claude_code_reader_new (file.path);

    pd_fuzz_check_picked (PD_TRANSCRIPT_READER (picked), PD_TRANSCRIPT_READER (whole));
  }

  /* Read whole for the pages. */
  reader = pd_claude_code_reader_new (file.path);
  pd_transcript_reader_set_max_line (PD_TRANSCRIPT_READER (reader), 32 * 1024);
  pd_fuzz_check_pages (PD_TRANSCRIPT_READER (reader));
  g_clear_object (&reader);

  /* Followed: the first half, then the whole. */
  pd_fuzz_file_set (&file, data, half);
  reader = pd_claude_code_reader_new (file.path);
  pd_transcript_reader_set_follow (PD_TRANSCRIPT_READER (reader), TRUE);
  if (!pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error))
    return 0;
  pd_fuzz_file_set (&file, data, size);
  if (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error))
    pd_fuzz_check_session (pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader)));
  return 0;
}
