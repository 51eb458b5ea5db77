/* pd-fuzz-reader.h: a transcript reader target, which reads its input
 * from a file (the readers open files by name): the file, made once at
 * the start, and the logging of pd-fuzz.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

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
