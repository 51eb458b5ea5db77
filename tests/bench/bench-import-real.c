/* bench-import-real.c: bench-import's corpus of real lines, from the shared
 * fixtures (see bench-import.c): 1,200 Claude Code transcripts of the three
 * real sessions under new ids, 300 Codex rollouts of the real one with
 * synthetic update_plan calls, OpenCode's storage of the fixture tree's
 * parts; and from the project's own fixtures (bench-import-real-more.c)
 * Qwen Code, Gemini CLI and the Cline family at a real density, and files
 * of thousands of plan calls.  Each agent imported alone, then all at once,
 * beside wc -l and jq on the same files.  Every reader is given a folder of
 * the corpus or an empty one, never the user's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "bench-import.h"

static char *
read_fixture (const char *dir,
              const char *path)
{
  g_autofree char *full = g_build_filename (dir, path, NULL);
  char *text = NULL;

  if (!g_file_get_contents (full, &text, NULL, NULL))
    return NULL;
  return text;
}

/* @text with every @from replaced by @to. */
static GString *
replace_all (const char *text,
             const char *from,
             const char *to)
{
  GString *out = g_string_new (text);

  g_string_replace (out, from, to, 0);
  return out;
}

static guint64
count_lines (const GString *text)
{
  guint64 n = 0;

  for (gsize i = 0; i < text->len; i++)
    n += text->str[i] == '\n';
  return n;
}

/* An empty folder: the reader given it finds nothing (never the user's). */
static const char *empty_dir;

/* PROGRAM ARGS… FILES… in @cwd. */
static double
run_on_files (const char * const *head,
              const char         *cwd,
              GPtrArray          *files,
              gboolean           *ok)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();

  for (guint i = 0; head[i] != NULL; i++)
    g_ptr_array_add (args, (gpointer) head[i]);
  g_ptr_array_extend (args, files, NULL, NULL);
  g_ptr_array_add (args, NULL);
  return run_command_in (cwd, (const char * const *) args->pdata, ok);
}

/* AGENT import MODE… and every reader's folder: @corpus's, or the empty one. */
static GPtrArray *
import_args (const Corpus *corpus,
             const char   *agent,
             const char   *mode,
             const char   *db_path)
{
  GPtrArray *args = g_ptr_array_new ();
  const char *dirs[][2] = {
    { "--claude-dir", corpus->claude_dir }, { "--codex-dir", corpus->codex_dir },
    { "--opencode-dir", corpus->opencode_dir }, { "--qwen-dir", corpus->qwen_dir },
    { "--gemini-dir", corpus->gemini_dir }, { "--cline-dir", corpus->cline_dir },
    { "--kilo-dir", NULL },
  };

  g_ptr_array_add (args, (gpointer) agent);
  g_ptr_array_add (args, (gpointer) "import");
  g_ptr_array_add (args, (gpointer) mode);
  if (db_path != NULL)
    g_ptr_array_add (args, (gpointer) db_path);
  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_ptr_array_add (args, (gpointer) dirs[i][0]);
      g_ptr_array_add (args, (gpointer) (dirs[i][1] != NULL ? dirs[i][1] : empty_dir));
    }
  g_ptr_array_add (args, NULL);
  return args;
}

static void
measure (Corpus     *corpus,
         const char *agent,
         const char *wc,
         const char *jq,
         const char *db_path)
{
  g_autoptr(GPtrArray) json_argv = import_args (corpus, agent, "--json", NULL);
  g_autoptr(GPtrArray) db_argv = import_args (corpus, agent, "--db", db_path);
  const char * const *json_args = (const char * const *) json_argv->pdata;
  const char * const *db_args = (const char * const *) db_argv->pdata;
  gboolean ok_json, ok_db, ok_again, ok;

  if (wc != NULL)
    {
      const char *head[] = { wc, "-l", NULL };

      run_on_files (head, corpus->cwd, corpus->files, &ok);  /* warm the page cache */
      corpus->wc = run_on_files (head, corpus->cwd, corpus->files, &ok);
      corpus->wc_cpu = last_cpu;
      if (!ok)
        corpus->wc = 0;
    }
  corpus->json = run_command (json_args, &ok_json);
  corpus->json_cpu = last_cpu;
  corpus->db = run_command (db_args, &ok_db);
  corpus->db_cpu = last_cpu;
  corpus->again = run_command (db_args, &ok_again);
  corpus->again_cpu = last_cpu;
  if (!ok_json || !ok_db || !ok_again)
    g_error ("plandeck-agent import failed on the real corpus (%s)", corpus->name);
  if (jq != NULL)
    {
      const char *head[] = { jq, "-c", corpus->jq_filter, NULL };

      corpus->jq = run_on_files (head, corpus->cwd, corpus->files, &ok);
      corpus->jq_cpu = last_cpu;
      if (!ok)
        corpus->jq = 0;
    }
}

static void
report (const Corpus *c)
{
  double mb = c->bytes / 1048576.0;

  printf ("real %-8s: import --json %6.2f s (%6.1f MB/s) · --db %6.2f s, unchanged %6.3f s · wc -l %6.2f s · jq %6.2f s\n",
          c->name, c->json, mb / c->json, c->db, c->again, c->wc, c->jq);
  if (c->wc > 0)
    printf ("real %-8s: import / wc -l  --json %5.2f×  --db %5.2f×  unchanged %5.2f×  (goal: ≤ 3×)  %s\n", c->name,
            c->json / c->wc, c->db / c->wc, c->again / c->wc, MAX (c->json, c->db) <= 3 * c->wc ? "met" : "MISSED");
  if (c->jq > 0)
    printf ("real %-8s: jq / import     --json %5.1f×  --db %5.1f×  (goal: ≥ 10×) %s\n", c->name,
            c->jq / c->json, c->jq / c->db, c->jq >= 10 * MAX (c->json, c->db) ? "met" : "MISSED");
  printf ("real %-8s: CPU seconds: import --json %.2f, --db %.2f, unchanged %.3f · wc -l %.2f · jq %.2f"
          " — import / wc -l %.1f×, jq / import %.1f×\n", c->name, c->json_cpu, c->db_cpu, c->again_cpu,
          c->wc_cpu, c->jq_cpu, c->wc_cpu > 0 ? MAX (c->json_cpu, c->db_cpu) / c->wc_cpu : 0,
          c->jq_cpu / MAX (c->json_cpu, c->db_cpu));
}

/* @text with every @from replaced by @to, written to @dir/@name; its size. */
static guint64
write_replaced (const char *dir,
                const char *name,
                const char *text,
                const char * const *pairs)
{
  g_autoptr(GString) out = g_string_new (text);
  g_autofree char *path = g_build_filename (dir, name, NULL);

  for (guint i = 0; pairs[i] != NULL; i += 2)
    g_string_replace (out, pairs[i], pairs[i + 1], 0);
  g_mkdir_with_parents (dir, 0700);
  bench_write_file (path, out);
  return out->len;
}

/* OpenCode's storage tree: @n sessions of 15 turns (a user message with its
 * text part, an assistant message with the fixture tree's eight parts, and
 * the synthetic todowrite part in 7 of the turns).  Adds the files to
 * @files, relative to @storage. */
static gboolean
write_opencode (const char *fixtures,
                const char *storage,
                guint       n,
                GPtrArray  *files,
                guint64    *bytes,
                guint64    *todo_parts)
{
  static const char * const part_names[] = { "001", "002", "003", "004", "005", "006", "007", "008" };
  g_autofree char *tree = g_build_filename (fixtures, "opencode", "agent-sessions-storage_v2", NULL);
  g_autofree char *synthetic = g_build_filename (fixtures, "opencode", "SYNTHETIC_legacy_storage", "storage", NULL);
  g_autofree char *session_text = read_fixture (synthetic, "session/proj_synthetic/ses_0000000000000000000000000001.json");
  g_autofree char *user_text = read_fixture (tree, "message/s_stage0_large/msg_0001.json");
  g_autofree char *assistant_text = read_fixture (tree, "message/s_stage0_large/msg_0002.json");
  g_autofree char *prompt_text = read_fixture (synthetic, "part/msg_0000000000000000000000000001/prt_0000000000000000000000000001.json");
  g_autofree char *todo_text = read_fixture (synthetic, "part/msg_0000000000000000000000000002/prt_0000000000000000000000000002.json");
  char *parts[G_N_ELEMENTS (part_names)] = { NULL };
  gboolean ok = session_text && user_text && assistant_text && prompt_text && todo_text;

  for (guint p = 0; p < G_N_ELEMENTS (part_names); p++)
    {
      g_autofree char *name = g_strdup_printf ("part/m_assistant_large_1/%s.json", part_names[p]);

      ok = ok && (parts[p] = read_fixture (tree, name)) != NULL;
    }
  for (guint s = 0; ok && s < n; s++)
    {
      g_autofree char *ses = g_strdup_printf ("ses_bench%020u", s);
      g_autofree char *project = g_strdup_printf ("proj_bench%02u", s % 10);
      g_autofree char *session_dir = g_build_filename (storage, "session", project, NULL);
      g_autofree char *session_name = g_strconcat (ses, ".json", NULL);
      g_autofree char *message_dir = g_build_filename (storage, "message", ses, NULL);
      const char *session_pairs[] = { "ses_0000000000000000000000000001", ses, "proj_synthetic", project, NULL };

      *bytes += write_replaced (session_dir, session_name, session_text, session_pairs);
      g_ptr_array_add (files, g_build_filename ("session", project, session_name, NULL));
      for (guint t = 0; t < 15; t++)
        {
          g_autofree char *user = g_strdup_printf ("msg_bench%08u%04uu", s, t);
          g_autofree char *assistant = g_strdup_printf ("msg_bench%08u%04ua", s, t);
          g_autofree char *user_name = g_strconcat (user, ".json", NULL);
          g_autofree char *assistant_name = g_strconcat (assistant, ".json", NULL);
          g_autofree char *user_parts = g_build_filename (storage, "part", user, NULL);
          g_autofree char *assistant_parts = g_build_filename (storage, "part", assistant, NULL);
          g_autofree char *todo_id = g_strdup_printf ("prt_bench%08u%04u", s, t);
          const char *user_pairs[] = { "s_stage0_large", ses, "m_user_large_1", user,
                                       "ses_0000000000000000000000000001", ses,
                                       "msg_0000000000000000000000000001", user, NULL };
          const char *assistant_pairs[] = { "s_stage0_large", ses, "m_assistant_large_1", assistant,
                                            "m_user_large_1", user, "ses_0000000000000000000000000001", ses,
                                            "msg_0000000000000000000000000002", assistant,
                                            "prt_0000000000000000000000000002", todo_id, NULL };

          *bytes += write_replaced (message_dir, user_name, user_text, user_pairs);
          g_ptr_array_add (files, g_build_filename ("message", ses, user_name, NULL));
          *bytes += write_replaced (user_parts, "prt_0001.json", prompt_text, user_pairs);
          g_ptr_array_add (files, g_build_filename ("part", user, "prt_0001.json", NULL));
          *bytes += write_replaced (message_dir, assistant_name, assistant_text, assistant_pairs);
          g_ptr_array_add (files, g_build_filename ("message", ses, assistant_name, NULL));
          for (guint p = 0; p < G_N_ELEMENTS (part_names); p++)
            {
              g_autofree char *name = g_strdup_printf ("prt_%s.json", part_names[p]);

              *bytes += write_replaced (assistant_parts, name, parts[p], assistant_pairs);
              g_ptr_array_add (files, g_build_filename ("part", assistant, name, NULL));
            }
          if (t % 2 == 0 && t < 14)
            {
              *bytes += write_replaced (assistant_parts, "prt_todo.json", todo_text, assistant_pairs);
              g_ptr_array_add (files, g_build_filename ("part", assistant, "prt_todo.json", NULL));
              (*todo_parts)++;
            }
        }
    }
  for (guint p = 0; p < G_N_ELEMENTS (part_names); p++)
    g_free (parts[p]);
  return ok;
}

void
real_corpus_run (const char *fixtures,
                 const char *own_fixtures,
                 const char *agent,
                 const char *wc,
                 const char *jq)
{
  static const char * const claude_fixtures[][2] = {
    { "claude-code/-Users-dain-workspace-claude-code-log-sample/326189cf-5676-4237-8cde-1ce80aae4a9f.jsonl",
      "326189cf-5676-4237-8cde-1ce80aae4a9f" },
    { "claude-code/-Users-dain-workspace-danieldemmel-me-next/b25638d7-b104-4f06-a797-70ac33d069ed.jsonl",
      "b25638d7-b104-4f06-a797-70ac33d069ed" },
    { "claude-code/-Users-dain-workspace-danieldemmel-me-next/f852ad25-1024-47da-964e-5eaae5bd6e6a.jsonl",
      "f852ad25-1024-47da-964e-5eaae5bd6e6a" },
  };
  const guint n_claude = 1200, n_codex = 300, n_opencode = 100;
  g_autofree char *root = g_dir_make_tmp ("pd-bench-import-real-XXXXXX", NULL);
  g_autofree char *claude_root = g_build_filename (root, "claude", NULL);
  g_autofree char *codex_home = g_build_filename (root, "codex", NULL);
  g_autofree char *codex_dir = g_build_filename (codex_home, "sessions", "2026", "02", "01", NULL);
  g_autofree char *opencode_dir = g_build_filename (root, "opencode", NULL);
  g_autofree char *opencode_storage = g_build_filename (opencode_dir, "storage", NULL);
  g_autofree char *empty = g_build_filename (root, "empty", NULL);
  g_autoptr(GPtrArray) claude_files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) codex_files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) opencode_files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) codex_text = NULL;
  char *claude_text[G_N_ELEMENTS (claude_fixtures)];
  g_autofree char *codex_real = read_fixture (fixtures, "codex/agent-sessions_codex_small_0.146.jsonl");
  g_autofree char *codex_plans = read_fixture (fixtures, "codex/SYNTHETIC_update_plan_variants.jsonl");
  guint64 lines = 0, todo_calls = 0, plan_calls = 0, todo_parts = 0;
  Corpus claude = { "claude", NULL, claude_files,
                    "select(.type==\"assistant\") | .message.content[]? | select(.name==\"TodoWrite\") | .input" };
  Corpus codex = { "codex", NULL, codex_files,
                   "select(.type==\"response_item\") | .payload | select(.name==\"update_plan\") | .arguments" };
  Corpus opencode = { "opencode", NULL, opencode_files, "select(.tool==\"todowrite\") | .state.input.todos" };
  Corpus all = { "all" };
  const char *baseline = g_getenv ("PLANDECK_AGENT_BASELINE");
  /* The project's fixtures: each agent's folder of real density, and its
   * many-calls files in a folder of their own. */
  g_autofree char *qwen_root = g_build_filename (root, "qwen", NULL);
  g_autofree char *qwen_dir = g_build_filename (qwen_root, "real", NULL);
  g_autofree char *qwen_many_dir = g_build_filename (qwen_root, "many", NULL);
  g_autofree char *gemini_root = g_build_filename (root, "gemini", NULL);
  g_autofree char *gemini_dir = g_build_filename (gemini_root, "real", NULL);
  g_autofree char *gemini_many_dir = g_build_filename (gemini_root, "many", NULL);
  g_autofree char *cline_root = g_build_filename (root, "vscode", NULL);
  g_autofree char *cline_dir = g_build_filename (cline_root, "real", NULL);
  g_autofree char *cline_many_dir = g_build_filename (cline_root, "many", NULL);
  g_autoptr(GPtrArray) qwen_files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) qwen_many_files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) gemini_files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) gemini_many_files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) cline_files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) cline_many_files = g_ptr_array_new_with_free_func (g_free);
  const char *qwen_jq = "select(.type==\"assistant\") | .message.parts[]? | .functionCall? | select(.name?==\"todo_write\") | .args";
  const char *gemini_jq = "(.messages[]? // .) | .toolCalls[]? | select((.name // \"\") | startswith(\"write_todos\")) | .args";
  const char *cline_jq = ".[] | select(.say==\"task_progress\" or ((.text // \"\") | contains(\"updateTodoList\"))) | .text";
  Corpus qwen = { "qwen", NULL, qwen_files, qwen_jq };
  Corpus qwen_many = { "qwen-many", NULL, qwen_many_files, qwen_jq };
  Corpus gemini = { "gemini", NULL, gemini_files, gemini_jq };
  Corpus gemini_many = { "gemini-many", NULL, gemini_many_files, gemini_jq };
  Corpus cline = { "cline", NULL, cline_files, cline_jq };
  Corpus cline_many = { "cline-many", NULL, cline_many_files, cline_jq };
  gboolean more = FALSE;

  for (guint f = 0; f < G_N_ELEMENTS (claude_fixtures); f++)
    if (!(claude_text[f] = read_fixture (fixtures, claude_fixtures[f][0])))
      {
        printf ("# real corpus: %s not found: skipped\n", claude_fixtures[f][0]);
        return;
      }
  if (codex_real == NULL || codex_plans == NULL || agent == NULL)
    {
      printf ("# real corpus: the Codex fixtures or PLANDECK_AGENT missing: skipped\n");
      return;
    }

  /* The Codex rollout: the real one, then the synthetic plan calls (not
   * their session_meta line) as if the same session went on. */
  codex_text = g_string_new (codex_real);
  if (codex_text->len > 0 && codex_text->str[codex_text->len - 1] != '\n')
    g_string_append_c (codex_text, '\n');
  {
    g_auto(GStrv) plan_lines = g_strsplit (codex_plans, "\n", -1);

    for (guint i = 0; plan_lines[i] != NULL; i++)
      if (*plan_lines[i] != '\0' && strstr (plan_lines[i], "\"type\":\"session_meta\"") == NULL)
        g_string_append_printf (codex_text, "%s\n", plan_lines[i]);
  }

  g_mkdir_with_parents (codex_dir, 0700);
  g_mkdir_with_parents (empty, 0700);
  for (guint i = 0; i < n_claude; i++)
    {
      guint f = i % G_N_ELEMENTS (claude_fixtures);
      g_autofree char *id = g_strdup_printf ("%08x-0000-4000-8000-%012u", i + 1, i);
      g_autofree char *project = g_strdup_printf ("-home-dev-project-%02u", i % 40);
      g_autofree char *dir = g_build_filename (claude_root, project, NULL);
      g_autofree char *name = g_strconcat (id, ".jsonl", NULL);
      g_autoptr(GString) text = replace_all (claude_text[f], claude_fixtures[f][1], id);
      char *path = g_build_filename (dir, name, NULL);
      const char *p = text->str;

      g_mkdir_with_parents (dir, 0700);
      bench_write_file (path, text);
      g_ptr_array_add (claude_files, path);
      claude.bytes += text->len;
      lines += count_lines (text);
      while ((p = strstr (p, "\"name\":\"TodoWrite\"")) != NULL)
        todo_calls++, p++;
    }
  for (guint i = 0; i < n_codex; i++)
    {
      g_autofree char *id = g_strdup_printf ("019fc8be-3658-7ca3-9e29-%012u", i + 1);
      g_autofree char *name = g_strdup_printf ("rollout-2026-02-01T00-00-00-%s.jsonl", id);
      g_autoptr(GString) text = replace_all (codex_text->str, "019fc8be-3658-7ca3-9e29-000000000000", id);
      char *path = g_build_filename (codex_dir, name, NULL);
      const char *p = text->str;

      g_string_replace (text, "00000000-0000-7000-8000-000000000001", id, 0);
      bench_write_file (path, text);
      g_ptr_array_add (codex_files, path);
      codex.bytes += text->len;
      lines += count_lines (text);
      while ((p = strstr (p, "\"name\":\"update_plan\"")) != NULL)
        plan_calls++, p++;
    }
  for (guint f = 0; f < G_N_ELEMENTS (claude_fixtures); f++)
    g_free (claude_text[f]);
  if (!write_opencode (fixtures, opencode_storage, n_opencode, opencode_files, &opencode.bytes, &todo_parts))
    printf ("# real corpus: the OpenCode fixtures missing: OpenCode left out\n");
  opencode.cwd = opencode_storage;

  printf ("# real corpus: %u Claude Code transcripts of the 3 real fixture sessions (%" G_GUINT64_FORMAT
          " TodoWrite calls, %.1f MB), %u Codex rollouts of the real one with synthetic update_plan calls (%"
          G_GUINT64_FORMAT ", %.1f MB), %" G_GUINT64_FORMAT " JSON lines; %u OpenCode sessions, %u files (%"
          G_GUINT64_FORMAT " todowrite parts, %.1f MB)\n",
          n_claude, todo_calls, claude.bytes / 1048576.0, n_codex, plan_calls, codex.bytes / 1048576.0, lines,
          todo_parts ? n_opencode : 0, opencode_files->len, todo_parts, opencode.bytes / 1048576.0);

  empty_dir = empty;
  claude.claude_dir = claude_root;
  codex.codex_dir = codex_home;
  opencode.opencode_dir = opencode_dir;

  /* The project's own fixtures: Qwen Code, Gemini CLI, the Cline family,
   * at a real density and in files of thousands of plan calls. */
  if (own_fixtures != NULL)
    {
      guint64 calls = 0;

      qwen.qwen_dir = qwen_dir, qwen_many.qwen_dir = qwen_many_dir;
      gemini.gemini_dir = gemini_dir, gemini_many.gemini_dir = gemini_many_dir;
      cline.cline_dir = cline_dir, cline_many.cline_dir = cline_many_dir;
      more = real_more_qwen (own_fixtures, qwen_dir, 300, 0, 0, &qwen, &calls)
             && real_more_qwen (own_fixtures, qwen_many_dir, 0, 2, 600, &qwen_many, &calls)
             && real_more_gemini (own_fixtures, gemini_dir, 150, 0, 0, &gemini, &calls)
             && real_more_gemini (own_fixtures, gemini_many_dir, 0, 1, 500, &gemini_many, &calls)
             && real_more_cline (own_fixtures, cline_dir, 100, 0, 0, &cline, &calls)
             && real_more_cline (own_fixtures, cline_many_dir, 0, 1, 1000, &cline_many, &calls);
      if (!more)
        printf ("# real corpus: the project's Qwen Code, Gemini CLI or Cline fixtures missing: left out\n");
      else
        printf ("# real corpus, the project's fixtures: %u Qwen Code sessions (%.1f MB) and %u of many calls (%.1f MB);"
                " %u Gemini CLI sessions, half JSON lines, half the older JSON file (%.1f MB), and %u of many calls (%.1f MB);"
                " %u Cline, Roo Code and Kilo Code tasks (%.1f MB) and %u of many calls (%.1f MB): %" G_GUINT64_FORMAT
                " plan calls in all\n", qwen.files->len, qwen.bytes / 1048576.0, qwen_many.files->len,
                qwen_many.bytes / 1048576.0, gemini.files->len, gemini.bytes / 1048576.0, gemini_many.files->len,
                gemini_many.bytes / 1048576.0, cline.files->len, cline.bytes / 1048576.0, cline_many.files->len,
                cline_many.bytes / 1048576.0, calls);
    }

  {
    Corpus *corpora[] = { &claude, &codex, &opencode, &qwen, &qwen_many, &gemini, &gemini_many, &cline, &cline_many };
    gboolean measured[G_N_ELEMENTS (corpora)];
    Corpus before[G_N_ELEMENTS (corpora)];
    g_autofree char *db_all = g_build_filename (root, "all.db", NULL);

    for (guint i = 0; i < G_N_ELEMENTS (corpora); i++)
      {
        g_autofree char *db = g_strdup_printf ("%s/%s.db", root, corpora[i]->name);

        measured[i] = i < 2 || (i == 2 && todo_parts > 0) || (i > 2 && more);
        if (measured[i])
          measure (corpora[i], agent, wc, jq, db);
      }
    /* Another build beside it (PLANDECK_AGENT_BASELINE, the one before a
     * change): the same files, the same wc -l and jq, the same run. */
    if (baseline != NULL)
      for (guint i = 0; i < G_N_ELEMENTS (corpora); i++)
        {
          g_autofree char *db = g_strdup_printf ("%s/before-%u.db", root, i);

          before[i] = *corpora[i];
          before[i].name = g_strconcat (corpora[i]->name, ", before", NULL);
          if (measured[i])
            measure (&before[i], baseline, NULL, NULL, db);
        }

    /* All at once: the import of every agent's folder of real density
     * (not the many-calls files) beside the wc and jq runs on the same
     * files. */
    all.files = NULL;
    for (guint i = 0; i < G_N_ELEMENTS (corpora); i++)
      if (measured[i] && !g_str_has_suffix (corpora[i]->name, "-many"))
        {
          all.bytes += corpora[i]->bytes;
          all.wc += corpora[i]->wc;
          all.jq += corpora[i]->jq;
          all.wc_cpu += corpora[i]->wc_cpu;
          all.jq_cpu += corpora[i]->jq_cpu;
        }
    all.claude_dir = claude_root, all.codex_dir = codex_home, all.opencode_dir = opencode_dir;
    if (more)
      all.qwen_dir = qwen_dir, all.gemini_dir = gemini_dir, all.cline_dir = cline_dir;
    measure (&all, agent, NULL, NULL, db_all);

    for (guint i = 0; i < G_N_ELEMENTS (corpora); i++)
      if (measured[i])
        {
          report (corpora[i]);
          if (baseline != NULL)
            {
              report (&before[i]);
              g_free ((char *) before[i].name);
            }
        }
    report (&all);
  }

  /* PD_BENCH_IMPORT_KEEP: the corpus stays, to compare outputs on it. */
  if (g_getenv ("PD_BENCH_IMPORT_KEEP") != NULL)
    printf ("# real corpus kept in %s\n", root);
  else
    pd_test_remove_tree (root);
}
