/* fuzz-codex-line.c: the Codex rollout reader, line by line.
 *
 * The input is a transcript (JSON lines); the reader reads it through its
 * JSONL reader and line parser, with a small line cap so that the too-long
 * path is reached too.  Then it is read once more in follow mode, split in
 * two appends, as a running session is followed, and once as a long
 * rollout, from its end, with the tail limits lowered to the input's size,
 * and once whole for its pages (pd_fuzz_check_pages()); and it reads to
 * the same session with its lines picked as with whole trees
 * (pd_fuzz_check_picked()).
 */
#include "config.h"

#include "pd-codex-reader.h"
#include "pd-fuzz-import.h"
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
  g_autoptr(PdCodexReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  size_t half = size / 2;

  if (size > 256 * 1024)
    return -1;

  /* The code-mode form: the input as an exec script. */
  {
    g_autofree char *script = g_strndup ((const char *) data, size);
    g_autoptr(JsonNode) plan = pd_codex_extract_exec_plan (script);

    if (plan != NULL && !JSON_NODE_HOLDS_OBJECT (plan))
      abort ();
  }

  pd_fuzz_file_set (&file, data, size);
  reader = pd_codex_reader_new (file.path);
  pd_transcript_reader_set_max_line (PD_TRANSCRIPT_READER (reader), 32 * 1024);
  if (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error))
    pd_fuzz_check_session (pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader)));
  g_clear_error (&error);
  g_clear_object (&reader);

  /* Its lines picked, and whole: the same session. */
  {
    g_autoptr(PdCodexReader) picked = pd_codex_reader_new (file.path);
    g_autoptr(PdCodexReader) whole = pd_codex_reader_new (file.path);

    pd_fuzz_check_picked (PD_TRANSCRIPT_READER (picked), PD_TRANSCRIPT_READER (whole));
  }

  /* Read whole for the pages. */
  reader = pd_codex_reader_new (file.path);
  pd_transcript_reader_set_max_line (PD_TRANSCRIPT_READER (reader), 32 * 1024);
  pd_fuzz_check_pages (PD_TRANSCRIPT_READER (reader));
  g_clear_object (&reader);

  /* A long rollout: scanned back at most a third of it, so that the bound
   * falls inside it. */
  if (size > 1)
    {
      _pd_import_set_tail_limits (1, (goffset) (size / 3 + 1));
      reader = pd_codex_reader_new (file.path);
      pd_transcript_reader_set_max_line (PD_TRANSCRIPT_READER (reader), 32 * 1024);
      if (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error))
        pd_fuzz_check_session (pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader)));
      _pd_import_set_tail_limits (0, 0);
      g_clear_error (&error);
      g_clear_object (&reader);
    }

  /* Followed: the first half, then the whole. */
  pd_fuzz_file_set (&file, data, half);
  reader = pd_codex_reader_new (file.path);
  pd_transcript_reader_set_follow (PD_TRANSCRIPT_READER (reader), TRUE);
  if (!pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error))
    return 0;
  pd_fuzz_file_set (&file, data, size);
  if (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error))
    pd_fuzz_check_session (pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader)));
  return 0;
}
