/* fuzz-gemini-line.c: the Gemini CLI session reader, both formats.
 *
 * The input is read as pd_fuzz_read_transcript() reads it, as JSON lines
 * (a small line cap reaches the too-long path; followed in two appends)
 * and as the older one-document format (rewritten whole under a reader
 * that already read part of it); each read in place and as trees to the
 * same session (the one walk that checks a record and finds its members
 * against the trees).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "pd-fuzz-reader.h"
#include "pd-gemini-reader.h"

/* @user_data: whether the file is read as one document. */
static PdTranscriptReader *
reader_new (const char *path,
            gpointer    user_data)
{
  return PD_TRANSCRIPT_READER (pd_gemini_reader_new (path, GPOINTER_TO_UINT (user_data)));
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  if (size > 256 * 1024)
    return -1;

  for (guint document = 0; document <= 1; document++)
    pd_fuzz_read_transcript (&file, data, size, reader_new, GUINT_TO_POINTER (document), PD_FUZZ_READ_PICKED);
  return 0;
}
