/* fuzz-claude-line.c: the Claude Code transcript reader, line by line.
 *
 * The input is a transcript (JSON lines), read as pd_fuzz_read_transcript()
 * reads it: whole with a small line cap, with its lines picked and whole,
 * for its pages, and followed in two appends.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "pd-claude-code-reader.h"
#include "pd-fuzz-reader.h"

static PdTranscriptReader *
reader_new (const char *path,
            gpointer    user_data)
{
  return PD_TRANSCRIPT_READER (pd_claude_code_reader_new (path));
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  if (size > 256 * 1024)
    return -1;

  pd_fuzz_read_transcript (&file, data, size, reader_new, NULL, PD_FUZZ_READ_PICKED);
  return 0;
}
