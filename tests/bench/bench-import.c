/* bench-import.c: import throughput on a large synthetic corpus, beside
 * `wc -l` and `jq` doing the same extraction on the same files, in the same
 * run.
 *
 *   bench-import [MEGABYTES]     (default 300: two thirds Claude Code, one third Codex, and
 *                                 a tenth each of Qwen Code, Gemini CLI and Cline beside)
 *   bench-import --real-only     (the corpus of real lines alone)
 *
 * The corpus is written to a temporary folder: Claude Code sessions (user
 * prompts, assistant text, Bash/Read/Edit calls with file-sized results, and
 * a TodoWrite now and then) and Codex rollouts (messages, reasoning,
 * shell calls with outputs, update_plan now and then), with line lengths
 * like real transcripts.  The goal of issue 7: within 3× of `wc -l` and at
 * least 10× faster than `jq`.
 *
 * Then, when the shared fixtures are there (PD_SHARED_FIXTURES_DIR, set by
 * meson), a second corpus of real lines at real density: 1,200 Claude Code
 * transcripts, each one of the three real fixture sessions under a new
 * session id (a TodoWrite every 26 KB or so, 6–7 a file), and 300 Codex
 * rollouts, the real rollout with the synthetic update_plan calls after it
 * (4 a file).  Many small files with plan calls throughout, where the
 * synthetic corpus has few large files with a plan call now and then.  It is
 * imported by the real `plandeck-agent import` (PLANDECK_AGENT), with --json
 * and with --db (first and unchanged), beside `wc -l` and `jq` on the same
 * files in the same run.  And OpenCode's storage: 100 sessions of 15 turns,
 * each message and part a small JSON file as OpenCode writes them, the
 * parts those of the fixture storage tree (a bash call, text, a file,
 * reasoning, steps, a compaction, a patch) with the synthetic todowrite part
 * in 7 turns of each — 17,000 files.  Each agent alone, then all at once.
 * wc -l and jq run in the storage folder with relative paths (the argument
 * list of absolute ones would be over the limit).  With
 * PLANDECK_AGENT_BASELINE naming another build (the one before a change),
 * each agent's import is measured with it too, beside the same wc -l and
 * jq figures of the same run.  And from the project's fixtures
 * (PD_FIXTURES_DIR): 300 Qwen Code sessions, 300 Gemini CLI sessions (half
 * JSON lines, half the older JSON file) and 300 Cline, Roo Code and Kilo
 * Code task folders at a plan call every 26 KB, and beside them files of
 * thousands of plan calls each (measured apart).  PD_BENCH_IMPORT_KEEP keeps
 * the corpus, to compare outputs on it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <sys/resource.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "pd-import-index.h"

#include "bench-import.h"

#define SESSION_BYTES (2 * 1024 * 1024)

/* The CPU seconds (user and system) of the command run last: on a machine
 * shared with other jobs the wall time is mostly waiting for a core, so the
 * real corpus is reported in both. */
double last_cpu;

static double
children_cpu (void)
{
  struct rusage usage;

  getrusage (RUSAGE_CHILDREN, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

double
run_command_in (const char         *cwd,
                const char * const *argv,
                gboolean           *ok)
{
  g_autoptr(GError) error = NULL;
  gint64 start = g_get_monotonic_time ();
  double cpu_before = children_cpu ();
  int status = 0;

  *ok = g_spawn_sync (cwd, (char **) argv, NULL,
                      G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                      NULL, NULL, NULL, NULL, &status, &error)
        && g_spawn_check_wait_status (status, NULL);
  last_cpu = children_cpu () - cpu_before;
  return (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
}

double
run_command (const char * const *argv,
             gboolean           *ok)
{
  return run_command_in (NULL, argv, ok);
}

int
main (int    argc,
      char **argv)
{
  guint megabytes = argc > 1 ? (guint) g_ascii_strtoull (argv[1], NULL, 10) : 300;
  g_autofree char *root = g_dir_make_tmp ("pd-bench-import-XXXXXX", NULL);
  g_autofree char *claude_dir = g_build_filename (root, "claude", "-home-dev-project", NULL);
  g_autofree char *codex_dir = g_build_filename (root, "codex", "2026", "02", "01", NULL);
  g_autofree char *db_path = g_build_filename (root, "sessions.db", NULL);
  g_autoptr(GPtrArray) claude_files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) codex_files = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *more_root = g_build_filename (root, "more", NULL);
  g_autofree char *qwen_dir = g_build_filename (more_root, "qwen", "projects", "-home-dev-project", "chats", NULL);
  g_autofree char *gemini_dir = g_build_filename (more_root, "gemini", "tmp", "project", "chats", NULL);
  g_autoptr(GPtrArray) more_files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) qwen_files = g_ptr_array_new ();
  g_autoptr(GPtrArray) gemini_files = g_ptr_array_new ();
  g_autoptr(GPtrArray) cline_files = g_ptr_array_new ();
  guint64 more_bytes = 0, more_lines = 0;
  guint n_more;
  double t_more = 0, t_more_wc = 0, t_more_jq = 0;
  g_autoptr(PdDb) db = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdImportIndex) index = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *jq = g_find_program_in_path ("jq");
  g_autofree char *wc = g_find_program_in_path ("wc");
  PdImportIndexStats stats = { 0 };
  guint64 bytes = 0, lines = 0;
  guint n_claude, n_codex;
  double t_import, t_again, t_wc = 0, t_jq = 0;
  gint64 start;
  const char *paths[2] = { root, NULL };

  /* --real-only: the corpus of real lines alone. */
  if (argc > 1 && strcmp (argv[1], "--real-only") == 0)
    {
      g_autofree char *jq_only = g_find_program_in_path ("jq");
      g_autofree char *wc_only = g_find_program_in_path ("wc");

      pd_test_remove_tree (root);
      if (g_getenv ("PD_SHARED_FIXTURES_DIR") == NULL)
        {
          printf ("# real corpus: no shared fixtures (PD_SHARED_FIXTURES_DIR): skipped\n");
          return 0;
        }
      real_corpus_run (g_getenv ("PD_SHARED_FIXTURES_DIR"), g_getenv ("PD_FIXTURES_DIR"), g_getenv ("PLANDECK_AGENT"),
                       wc_only, jq_only);
      return 0;
    }
  if (megabytes == 0)
    megabytes = 300;
  n_claude = MAX (1, megabytes * 2 / 3 * 1024 * 1024 / SESSION_BYTES);
  n_codex = MAX (1, megabytes / 3 * 1024 * 1024 / SESSION_BYTES);
  /* Qwen Code, Gemini CLI and Cline: a tenth of the size each, beside. */
  n_more = MAX (1, megabytes / 10 * 1024 * 1024 / SESSION_BYTES);
  g_mkdir_with_parents (claude_dir, 0700);
  g_mkdir_with_parents (codex_dir, 0700);
  g_mkdir_with_parents (qwen_dir, 0700);
  g_mkdir_with_parents (gemini_dir, 0700);

  start = g_get_monotonic_time ();
  for (guint i = 0; i < n_claude; i++)
    {
      g_autofree char *name = g_strdup_printf ("%08x-0000-4000-8000-%012u.jsonl", i + 1, i);
      char *path = g_build_filename (claude_dir, name, NULL);
      lines += write_claude (path, i + 1, SESSION_BYTES);
      g_ptr_array_add (claude_files, path);
    }
  for (guint i = 0; i < n_codex; i++)
    {
      g_autofree char *name = g_strdup_printf ("rollout-2026-02-01T00-00-00-%08u.jsonl", i);
      char *path = g_build_filename (codex_dir, name, NULL);
      lines += write_codex (path, i + 1, SESSION_BYTES);
      g_ptr_array_add (codex_files, path);
    }
  for (guint i = 0; i < n_more; i++)
    {
      g_autofree char *qwen_name = g_strdup_printf ("%08x-0000-4000-8000-%012u.jsonl", i + 1, i);
      g_autofree char *gemini_name = g_strdup_printf ("session-2026-04-02T08-00-%08x.jsonl", i + 1);
      g_autofree char *task = g_strdup_printf ("%u", 1775300000 + i);
      g_autofree char *task_dir = g_build_filename (more_root, "vscode", "saoudrizwan.claude-dev", "tasks", task, NULL);
      char *path;

      path = g_build_filename (qwen_dir, qwen_name, NULL);
      more_lines += write_qwen (path, i + 1, SESSION_BYTES);
      g_ptr_array_add (more_files, path);
      g_ptr_array_add (qwen_files, path);
      path = g_build_filename (gemini_dir, gemini_name, NULL);
      more_lines += write_gemini (path, i + 1, SESSION_BYTES);
      g_ptr_array_add (more_files, path);
      g_ptr_array_add (gemini_files, path);
      g_mkdir_with_parents (task_dir, 0700);
      path = g_build_filename (task_dir, "ui_messages.json", NULL);
      more_lines += write_cline (path, i + 1, SESSION_BYTES);
      g_ptr_array_add (more_files, path);
      g_ptr_array_add (cline_files, path);
    }
  for (guint i = 0; i < more_files->len; i++)
    {
      GStatBuf st;
      g_stat (more_files->pdata[i], &st);
      more_bytes += (guint64) st.st_size;
    }
  bytes += more_bytes;
  lines += more_lines;
  for (guint i = 0; i < claude_files->len; i++)
    {
      GStatBuf st;
      g_stat (claude_files->pdata[i], &st);
      bytes += (guint64) st.st_size;
    }
  for (guint i = 0; i < codex_files->len; i++)
    {
      GStatBuf st;
      g_stat (codex_files->pdata[i], &st);
      bytes += (guint64) st.st_size;
    }
  printf ("# corpus: %u Claude Code sessions, %u Codex rollouts, %u each of Qwen Code, Gemini CLI and Cline "
          "(%.1f MB of them), %.1f MB, %" G_GUINT64_FORMAT " lines (written in %.1f s)\n",
          n_claude, n_codex, n_more, more_bytes / 1048576.0, bytes / 1048576.0, lines,
          (g_get_monotonic_time () - start) / 1e6);

  /* wc -l: the floor. */
  if (wc != NULL)
    {
      g_autoptr(GPtrArray) args = g_ptr_array_new ();
      gboolean ok;

      g_ptr_array_add (args, wc);
      g_ptr_array_add (args, (gpointer) "-l");
      g_ptr_array_extend (args, claude_files, NULL, NULL);
      g_ptr_array_extend (args, codex_files, NULL, NULL);
      g_ptr_array_extend (args, more_files, NULL, NULL);
      g_ptr_array_add (args, NULL);
      run_command ((const char * const *) args->pdata, &ok);  /* warm the page cache */
      t_wc = run_command ((const char * const *) args->pdata, &ok);
      if (!ok)
        t_wc = 0;
    }
  if (wc != NULL)
    {
      g_autoptr(GPtrArray) args = g_ptr_array_new ();
      gboolean ok;

      g_ptr_array_add (args, wc);
      g_ptr_array_add (args, (gpointer) "-l");
      g_ptr_array_extend (args, more_files, NULL, NULL);
      g_ptr_array_add (args, NULL);
      t_more_wc = run_command ((const char * const *) args->pdata, &ok);
      if (!ok)
        t_more_wc = 0;
    }

  /* The import: a fresh database, every file read. */
  db = pd_db_open (db_path, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  store = pd_session_store_new (db);
  index = pd_import_index_new ();
  start = g_get_monotonic_time ();
  if (!pd_import_index_run_paths (index, store, paths, &stats, NULL, &error))
    g_error ("import: %s", error->message);
  t_import = (g_get_monotonic_time () - start) / 1e6;
  g_assert_cmpuint (stats.sessions_added, ==, n_claude + n_codex + 3 * n_more);

  /* Again, from a new index (a new process): nothing changed, nothing read. */
  g_clear_object (&index);
  index = pd_import_index_new ();
  start = g_get_monotonic_time ();
  if (!pd_import_index_run_paths (index, store, paths, &stats, NULL, &error))
    g_error ("import: %s", error->message);
  t_again = (g_get_monotonic_time () - start) / 1e6;
  g_assert_cmpuint (stats.unchanged, ==, n_claude + n_codex + 3 * n_more);
  g_assert_cmpuint (stats.bytes_read, ==, 0);

  /* Qwen Code, Gemini CLI and Cline each alone, into a new database,
   * beside wc -l on the same files. */
  {
    static const char * const names[] = { "Qwen Code", "Gemini CLI", "Cline" };
    const char *folders[] = { "qwen", "gemini", "vscode" };
    GPtrArray *sets[] = { qwen_files, gemini_files, cline_files };

    for (guint k = 0; k < G_N_ELEMENTS (names); k++)
      {
        g_autofree char *more_db_path = g_strdup_printf ("%s/more-%u.db", root, k);
        g_autofree char *folder = g_build_filename (more_root, folders[k], NULL);
        g_autoptr(PdDb) more_db = pd_db_open (more_db_path, PD_DB_CREATE, &error);
        g_autoptr(PdSessionStore) more_store = NULL;
        g_autoptr(PdImportIndex) more_index = pd_import_index_new ();
        const char *more_paths[2] = { folder, NULL };
        guint64 set_bytes = 0;
        double t_set, t_set_wc = 0;

        g_assert_no_error (error);
        for (guint i = 0; i < sets[k]->len; i++)
          {
            GStatBuf st;
            g_stat (sets[k]->pdata[i], &st);
            set_bytes += (guint64) st.st_size;
          }
        more_store = pd_session_store_new (more_db);
        start = g_get_monotonic_time ();
        if (!pd_import_index_run_paths (more_index, more_store, more_paths, &stats, NULL, &error))
          g_error ("import: %s", error->message);
        t_set = (g_get_monotonic_time () - start) / 1e6;
        t_more += t_set;
        g_assert_cmpuint (stats.sessions_added, ==, n_more);
        if (wc != NULL)
          {
            g_autoptr(GPtrArray) args = g_ptr_array_new ();
            gboolean ok;

            g_ptr_array_add (args, wc);
            g_ptr_array_add (args, (gpointer) "-l");
            g_ptr_array_extend (args, sets[k], NULL, NULL);
            g_ptr_array_add (args, NULL);
            t_set_wc = run_command ((const char * const *) args->pdata, &ok);
            if (!ok)
              t_set_wc = 0;
          }
        printf ("%-20s %7.2f s  %8.1f MB/s  (%u files, %.1f MB) · wc -l %.3f s%s\n", names[k], t_set,
                set_bytes / 1048576.0 / t_set, n_more, set_bytes / 1048576.0, t_set_wc,
                t_set_wc > 0 ? "" : " (not available)");
      }
  }

  /* jq: the same extraction, the plan tool calls' inputs. */
  if (jq != NULL)
    {
      g_autoptr(GPtrArray) a = g_ptr_array_new ();
      g_autoptr(GPtrArray) b = g_ptr_array_new ();
      gboolean ok_a, ok_b;

      g_ptr_array_add (a, jq);
      g_ptr_array_add (a, (gpointer) "-c");
      g_ptr_array_add (a, (gpointer) "select(.type==\"assistant\") | .message.content[]? | select(.name==\"TodoWrite\") | .input");
      g_ptr_array_extend (a, claude_files, NULL, NULL);
      g_ptr_array_add (a, NULL);
      g_ptr_array_add (b, jq);
      g_ptr_array_add (b, (gpointer) "-c");
      g_ptr_array_add (b, (gpointer) "select(.type==\"response_item\") | .payload | select(.name==\"update_plan\") | .arguments");
      g_ptr_array_extend (b, codex_files, NULL, NULL);
      g_ptr_array_add (b, NULL);
      t_jq = run_command ((const char * const *) a->pdata, &ok_a) + run_command ((const char * const *) b->pdata, &ok_b);
      if (!ok_a || !ok_b)
        t_jq = 0;
    }
  /* And for the three others, their plan calls' lists. */
  if (jq != NULL && t_jq > 0)
    {
      static const char * const filters[] = {
        "select(.type==\"assistant\") | .message.parts[]? | .functionCall? | select(.name==\"todo_write\") | .args",
        ".toolCalls[]? | select(.name==\"write_todos\") | .args",
        ".[] | select(.say==\"task_progress\") | .text",
      };
      GPtrArray *sets[] = { qwen_files, gemini_files, cline_files };

      for (guint k = 0; k < G_N_ELEMENTS (filters); k++)
        {
          g_autoptr(GPtrArray) c = g_ptr_array_new ();
          gboolean ok_c;

          g_ptr_array_add (c, jq);
          g_ptr_array_add (c, (gpointer) "-c");
          g_ptr_array_add (c, (gpointer) filters[k]);
          g_ptr_array_extend (c, sets[k], NULL, NULL);
          g_ptr_array_add (c, NULL);
          t_more_jq += run_command ((const char * const *) c->pdata, &ok_c);
          if (!ok_c)
            t_more_jq = -1e9;
        }
      if (t_more_jq > 0)
        t_jq += t_more_jq;
      else
        t_jq = 0;
    }

  printf ("import (first run)   %7.2f s  %8.1f MB/s  %11.0f lines/s\n",
          t_import, bytes / 1048576.0 / t_import, lines / t_import);
  printf ("import (unchanged)   %7.3f s  (%u files, none opened)\n", t_again, n_claude + n_codex + 3 * n_more);
  if (t_wc > 0)
    printf ("wc -l                %7.2f s  %8.1f MB/s  %11.0f lines/s\n", t_wc, bytes / 1048576.0 / t_wc, lines / t_wc);
  else
    printf ("wc -l                (not available: skipped)\n");
  if (t_jq > 0)
    printf ("jq                   %7.2f s  %8.1f MB/s  %11.0f lines/s\n", t_jq, bytes / 1048576.0 / t_jq, lines / t_jq);
  else
    printf ("jq                   (not installed: comparison skipped; apt-get install jq)\n");
  if (t_wc > 0)
    printf ("import / wc -l       %7.2f×  (goal: ≤ 3×)  %s\n", t_import / t_wc, t_import <= 3 * t_wc ? "met" : "MISSED");
  if (t_jq > 0)
    printf ("jq / import          %7.2f×  (goal: ≥ 10×) %s\n", t_jq / t_import, t_jq >= 10 * t_import ? "met" : "MISSED");

  if (t_more_wc > 0)
    printf ("Qwen+Gemini+Cline    %7.2f s  %8.1f MB/s  %11.0f lines/s · wc -l %.2f s · import / wc -l %.2f×  (goal: ≤ 3×)  %s\n",
            t_more, more_bytes / 1048576.0 / t_more, more_lines / t_more, t_more_wc, t_more / t_more_wc,
            t_more <= 3 * t_more_wc ? "met" : "MISSED");

  g_clear_object (&store);
  g_clear_object (&db);
  pd_test_remove_tree (root);

  if (g_getenv ("PD_SHARED_FIXTURES_DIR") != NULL &&
      g_file_test (g_getenv ("PD_SHARED_FIXTURES_DIR"), G_FILE_TEST_IS_DIR))
    real_corpus_run (g_getenv ("PD_SHARED_FIXTURES_DIR"), g_getenv ("PD_FIXTURES_DIR"), g_getenv ("PLANDECK_AGENT"),
                     wc, jq);
  else
    printf ("# real corpus: no shared fixtures (PD_SHARED_FIXTURES_DIR): skipped\n");
  return 0;
}
