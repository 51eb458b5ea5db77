/* fuzz-qwen-line.c: the Qwen Code session reader, line by line.
 *
 * The input is a session file (JSON lines), read as
 * pd_fuzz_read_transcript() reads it: whole with a small line cap, with its
 * lines read in place and as trees to the same session (the one walk that
 * checks a line and finds its members against the trees), for its pages,
 * as a long session from its end, and followed in two appends.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "pd-fuzz-reader.h"
#include "pd-qwen-reader.h"

static PdTranscriptReader *
reader_new (const char *path,
            gpointer    user_data)
{
  return PD_TRANSCRIPT_READER (pd_qwen_reader_new (path));
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  if (size > 256 * 1024)
    return -1;

  pd_fuzz_read_transcript (&file, data, size, reader_new, NULL, PD_FUZZ_READ_PICKED | PD_FUZZ_READ_TAIL);
  return 0;
}
