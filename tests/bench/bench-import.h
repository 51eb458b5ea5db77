/* bench-import.h: between the parts of bench-import: the main run
 * (bench-import.c), the synthetic corpus's writers (bench-import-writers.c)
 * and the corpus of real lines (bench-import-real.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The synthetic corpus: one file of about @target bytes, its JSON lines
 * counted (a Cline task: its messages). */
guint64 write_claude     (const char *path, guint seed, gsize target);
guint64 write_codex      (const char *path, guint seed, gsize target);
guint64 write_qwen       (const char *path, guint seed, gsize target);
guint64 write_gemini     (const char *path, guint seed, gsize target);
guint64 write_cline      (const char *path, guint seed, gsize target);
void    bench_write_file (const char *path, const GString *out);

/* Commands timed: wall seconds, and the CPU seconds of the last one in
 * last_cpu. */
extern double last_cpu;
double  run_command_in   (const char *cwd, const char * const *argv, gboolean *ok);
double  run_command      (const char * const *argv, gboolean *ok);
void    rmtree           (const char *path);

/* The corpus of real lines from @fixtures, imported by @agent beside @wc
 * and @jq (each nullable: left out). */
void    real_corpus_run  (const char *fixtures, const char *agent, const char *wc, const char *jq);

G_END_DECLS
