/* bench-import.h: between the parts of bench-import: the main run
 * (bench-import.c), the synthetic corpus's writers (bench-import-writers.c)
 * and the corpus of real lines (bench-import-real.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "../pd-test-files.h"

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

/* One agent's part of the real corpus, or all of it: its files, and what
 * the import, wc -l and jq took on them.  The folders each reader is given
 * (NULL: an empty one, never the user's). */
typedef struct
{
  const char *name;
  const char *cwd;        /* (nullable) where wc and jq run */
  GPtrArray  *files;      /* paths, relative to cwd when it is set */
  const char *jq_filter;
  const char *claude_dir, *codex_dir, *opencode_dir, *qwen_dir, *gemini_dir, *cline_dir;
  guint64     bytes;
  double      wc, jq, json, db, again;                 /* wall seconds */
  double      wc_cpu, jq_cpu, json_cpu, db_cpu, again_cpu;  /* CPU seconds */
} Corpus;

/* The corpus of real lines from @fixtures (the shared recordings) and
 * @own_fixtures (the project's: Qwen Code, Gemini CLI, the Cline family;
 * nullable), imported by @agent beside @wc and @jq (each nullable: left
 * out). */
void    real_corpus_run  (const char *fixtures, const char *own_fixtures, const char *agent, const char *wc,
                          const char *jq);

/* bench-import-real-more.c: the project's fixtures written at a real
 * density into @dir (the reader's folder), @n sessions and @n_many of
 * @cycles rounds of the plan calls; the files added to @corpus, the plan
 * calls counted into @calls.  FALSE when a fixture is missing. */
gboolean real_more_qwen   (const char *fixtures, const char *dir, guint n, guint n_many, guint cycles,
                           Corpus *corpus, guint64 *calls);
gboolean real_more_gemini (const char *fixtures, const char *dir, guint n, guint n_many, guint cycles,
                           Corpus *corpus, guint64 *calls);
gboolean real_more_cline  (const char *fixtures, const char *dir, guint n, guint n_many, guint cycles,
                           Corpus *corpus, guint64 *calls);

G_END_DECLS
