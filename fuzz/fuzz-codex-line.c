/* fuzz-codex-line.c: the Codex rollout reader, line by line.
 *
 * The input is a rollout (JSON lines), read as pd_fuzz_read_transcript()
 * reads it: whole with a small line cap, with its lines picked and whole,
 * for its pages, as a long rollout from its end, and followed in two
 * appends.  It is also taken as a code-mode exec script.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "pd-codex-reader.h"
#include "pd-fuzz-reader.h"

static PdTranscriptReader *
reader_new (const char *path,
            gpointer    user_data)
{
  return PD_TRANSCRIPT_READER (pd_codex_reader_new (path));
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  if (size > 256 * 1024)
    return -1;

  /* The code-mode form: the input as an exec script. */
  {
    g_autofree char *script = g_strndup ((const char *) data, size);
    g_autoptr(JsonNode) plan = pd_codex_extract_exec_plan (script);

    if (plan != NULL && !JSON_NODE_HOLDS_OBJECT (plan))
      abort ();
  }

  pd_fuzz_read_transcript (&file, data, size, reader_new, NULL, PD_FUZZ_READ_PICKED | PD_FUZZ_READ_TAIL);
  return 0;
}
