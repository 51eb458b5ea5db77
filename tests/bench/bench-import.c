/* bench-import.c: import throughput on a large synthetic corpus, beside
 * `wc -l` and `jq` doing the same extraction on the same files, in the same
 * run.
 *
 *   bench-import [MEGABYTES]     (default 300: two thirds Claude Code, one third Codex)
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
 * files in the same run.  OpenCode's storage (a file per message and part)
 * is left out: its fixtures are too few to make a corpus of.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "pd-import-index.h"

#define SESSION_BYTES (2 * 1024 * 1024)

static const char * const words[] = {
  "the", "build", "function", "returns", "a", "value", "when", "config", "is", "missing", "error",
  "handler", "parse", "line", "test", "passes", "index", "session", "store", "widget", "model",
  "render", "cache", "update", "file", "path", "read", "write", "buffer", "offset", "thread",
  "queue", "signal", "async", "result", "check", "format", "string", "number", "array", "object",
};

typedef struct
{
  guint32 state;
} Rng;

static guint32
rng_next (Rng *rng)
{
  /* xorshift32: deterministic, no libc state. */
  rng->state ^= rng->state << 13;
  rng->state ^= rng->state >> 17;
  rng->state ^= rng->state << 5;
  return rng->state;
}

/* Text for a JSON string: words, with escaped newlines and quotes now and then. */
static void
add_text (GString *out,
          Rng     *rng,
          gsize    bytes)
{
  gsize start = out->len;

  while (out->len - start < bytes)
    {
      guint32 r = rng_next (rng);

      g_string_append (out, words[r % G_N_ELEMENTS (words)]);
      switch ((r >> 8) % 16)
        {
        case 0:  g_string_append (out, "\\n"); break;
        case 1:  g_string_append (out, "(\\\"x\\\") "); break;
        case 2:  g_string_append (out, ". "); break;
        default: g_string_append_c (out, ' '); break;
        }
    }
}

static void
claude_time (GString *out,
             guint    n)
{
  g_string_append_printf (out, "\"timestamp\":\"2026-02-%02uT%02u:%02u:%02u.%03uZ\"",
                          1 + (n / 86400) % 28, (n / 3600) % 24, (n / 60) % 60, n % 60, n % 1000);
}

static const char *todo_states[] = { "pending", "in_progress", "completed" };

/* One Claude Code session file. */
static guint64
write_claude (const char *path,
              guint       seed,
              gsize       target)
{
  g_autoptr(GString) out = g_string_sized_new (target + 64 * 1024);
  Rng rng = { seed * 2654435761u + 1 };
  guint64 lines = 0;
  guint n = seed * 1000;
  guint call = 0;

  while (out->len < target)
    {
      guint32 r = rng_next (&rng);
      guint kind = out->len == 0 ? 0 : r % 20;  /* a session opens with a prompt */
      char id[32];

      g_snprintf (id, sizeof id, "toolu_%08x%04u", seed, call++);
      n += 7;

      if (kind == 0)
        {
          /* A user prompt. */
          g_string_append (out, "{\"parentUuid\":null,\"isSidechain\":false,\"userType\":\"external\",\"cwd\":\"/home/dev/project\","
                                "\"sessionId\":\"bench\",\"version\":\"2.0.14\",\"gitBranch\":\"main\",\"type\":\"user\","
                                "\"message\":{\"role\":\"user\",\"content\":\"");
          add_text (out, &rng, 200 + r % 800);
          g_string_append (out, "\"},\"uuid\":\"u1\",");
          claude_time (out, n);
          g_string_append (out, "}\n");
          lines++;
        }
      else if (kind == 1)
        {
          /* TodoWrite and its result. */
          guint n_items = 3 + r % 6;

          g_string_append (out, "{\"parentUuid\":\"p\",\"isSidechain\":false,\"cwd\":\"/home/dev/project\",\"sessionId\":\"bench\","
                                "\"type\":\"assistant\",\"message\":{\"model\":\"claude\",\"id\":\"msg\",\"type\":\"message\","
                                "\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"");
          g_string_append (out, id);
          g_string_append (out, "\",\"name\":\"TodoWrite\",\"input\":{\"todos\":[");
          for (guint i = 0; i < n_items; i++)
            {
              g_string_append_printf (out, "%s{\"content\":\"", i ? "," : "");
              add_text (out, &rng, 30 + rng_next (&rng) % 40);
              g_string_append_printf (out, "\",\"status\":\"%s\",\"activeForm\":\"Working\"}",
                                      todo_states[rng_next (&rng) % 3]);
            }
          g_string_append (out, "]}}],\"stop_reason\":null},\"uuid\":\"a1\",");
          claude_time (out, n);
          g_string_append (out, "}\n{\"parentUuid\":\"a1\",\"isSidechain\":false,\"cwd\":\"/home/dev/project\",\"sessionId\":\"bench\","
                                "\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"");
          g_string_append (out, id);
          g_string_append (out, "\",\"type\":\"tool_result\",\"content\":\"Todos have been modified successfully.\"}]},\"uuid\":\"r1\",");
          claude_time (out, n + 1);
          g_string_append (out, "}\n");
          lines += 2;
        }
      else if (kind < 8)
        {
          /* Assistant text. */
          g_string_append (out, "{\"parentUuid\":\"p\",\"isSidechain\":false,\"cwd\":\"/home/dev/project\",\"sessionId\":\"bench\","
                                "\"type\":\"assistant\",\"message\":{\"model\":\"claude\",\"id\":\"msg\",\"type\":\"message\","
                                "\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"");
          add_text (out, &rng, 100 + r % 1500);
          g_string_append (out, "\"}],\"usage\":{\"input_tokens\":4,\"output_tokens\":120}},\"uuid\":\"a2\",");
          claude_time (out, n);
          g_string_append (out, "}\n");
          lines++;
        }
      else
        {
          /* A Bash/Read/Edit call and its (often file-sized) result. */
          static const char * const tools[] = { "Bash", "Read", "Edit", "Grep" };
          const char *tool = tools[r % G_N_ELEMENTS (tools)];

          g_string_append (out, "{\"parentUuid\":\"p\",\"isSidechain\":false,\"cwd\":\"/home/dev/project\",\"sessionId\":\"bench\","
                                "\"type\":\"assistant\",\"message\":{\"model\":\"claude\",\"id\":\"msg\",\"type\":\"message\","
                                "\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"");
          g_string_append (out, id);
          g_string_append_printf (out, "\",\"name\":\"%s\",\"input\":{\"command\":\"", tool);
          add_text (out, &rng, 40 + r % 200);
          g_string_append (out, "\"}}]},\"uuid\":\"a3\",");
          claude_time (out, n);
          g_string_append (out, "}\n{\"parentUuid\":\"a3\",\"isSidechain\":false,\"cwd\":\"/home/dev/project\",\"sessionId\":\"bench\","
                                "\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"");
          g_string_append (out, id);
          g_string_append (out, "\",\"type\":\"tool_result\",\"content\":\"");
          add_text (out, &rng, 500 + rng_next (&rng) % 12000);
          g_string_append (out, "\",\"is_error\":false}]},\"toolUseResult\":{\"stdout\":\"ok\",\"stderr\":\"\"},\"uuid\":\"r3\",");
          claude_time (out, n + 1);
          g_string_append (out, "}\n");
          lines += 2;
        }
    }

  g_assert_true (g_file_set_contents (path, out->str, (gssize) out->len, NULL));
  return lines;
}

static void
codex_time (GString *out,
            guint    n)
{
  g_string_append_printf (out, "{\"timestamp\":\"2026-02-%02uT%02u:%02u:%02u.%03uZ\",",
                          1 + (n / 86400) % 28, (n / 3600) % 24, (n / 60) % 60, n % 60, n % 1000);
}

/* One Codex rollout. */
static guint64
write_codex (const char *path,
             guint       seed,
             gsize       target)
{
  g_autoptr(GString) out = g_string_sized_new (target + 64 * 1024);
  Rng rng = { seed * 40503u + 7 };
  guint64 lines = 1;
  guint n = seed * 1000;
  guint call = 0;

  codex_time (out, n);
  g_string_append_printf (out, "\"type\":\"session_meta\",\"payload\":{\"id\":\"bench-%u\",\"cwd\":\"/home/dev/project\","
                               "\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.46.0\"}}\n", seed);
  while (out->len < target)
    {
      guint32 r = rng_next (&rng);
      guint kind = r % 16;
      char id[32];

      g_snprintf (id, sizeof id, "call_%08x%04u", seed, call++);
      n += 5;
      codex_time (out, n);
      if (kind == 0)
        {
          guint n_items = 3 + r % 5;

          g_string_append_printf (out, "\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"update_plan\","
                                       "\"arguments\":\"{\\\"plan\\\":[");
          for (guint i = 0; i < n_items; i++)
            {
              g_string_append_printf (out, "%s{\\\"step\\\":\\\"", i ? "," : "");
              add_text (out, &rng, 30);
              g_string_append_printf (out, "\\\",\\\"status\\\":\\\"%s\\\"}", todo_states[rng_next (&rng) % 3]);
            }
          g_string_append_printf (out, "]}\",\"call_id\":\"%s\"}}\n", id);
          codex_time (out, n + 1);
          g_string_append_printf (out, "\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"%s\","
                                       "\"output\":\"Plan updated\"}}\n", id);
          lines += 2;
        }
      else if (kind < 6)
        {
          g_string_append (out, "\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"assistant\","
                                "\"content\":[{\"type\":\"output_text\",\"text\":\"");
          add_text (out, &rng, 100 + r % 1500);
          g_string_append (out, "\"}]}}\n");
          lines++;
        }
      else if (kind < 8)
        {
          g_string_append (out, "\"type\":\"event_msg\",\"payload\":{\"type\":\"agent_reasoning\",\"text\":\"");
          add_text (out, &rng, 100 + r % 600);
          g_string_append (out, "\"}}\n");
          lines++;
        }
      else
        {
          g_string_append_printf (out, "\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"shell\","
                                       "\"arguments\":\"{\\\"command\\\":[\\\"bash\\\",\\\"-lc\\\",\\\"rg build\\\"]}\",\"call_id\":\"%s\"}}\n", id);
          codex_time (out, n + 1);
          g_string_append_printf (out, "\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"%s\","
                                       "\"output\":\"", id);
          add_text (out, &rng, 400 + rng_next (&rng) % 10000);
          g_string_append (out, "\"}}\n");
          lines += 2;
        }
    }

  g_assert_true (g_file_set_contents (path, out->str, (gssize) out->len, NULL));
  return lines;
}

static double
run_command (const char * const *argv,
             gboolean           *ok)
{
  g_autoptr(GError) error = NULL;
  gint64 start = g_get_monotonic_time ();
  int status = 0;

  *ok = g_spawn_sync (NULL, (char **) argv, NULL,
                      G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                      NULL, NULL, NULL, NULL, &status, &error)
        && g_spawn_check_wait_status (status, NULL);
  return (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;
}

static void
rmtree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir && (name = g_dir_read_name (dir)))
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      if (g_file_test (child, G_FILE_TEST_IS_DIR))
        rmtree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}


/* ---------------------------------------------------------------------- */
/* The corpus of real lines                                               */

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

static double
run_agent (const char * const *argv,
           gboolean           *ok)
{
  return run_command (argv, ok);
}

static void
real_corpus_run (const char *fixtures,
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
  const guint n_claude = 1200, n_codex = 300;
  g_autofree char *root = g_dir_make_tmp ("pd-bench-import-real-XXXXXX", NULL);
  g_autofree char *claude_root = g_build_filename (root, "claude", NULL);
  g_autofree char *codex_home = g_build_filename (root, "codex", NULL);
  g_autofree char *codex_dir = g_build_filename (codex_home, "sessions", "2026", "02", "01", NULL);
  g_autofree char *opencode_dir = g_build_filename (root, "opencode", NULL);
  g_autofree char *db_path = g_build_filename (root, "sessions.db", NULL);
  g_autoptr(GPtrArray) claude_files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) codex_files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) codex_text = NULL;
  char *claude_text[G_N_ELEMENTS (claude_fixtures)];
  g_autofree char *codex_real = read_fixture (fixtures, "codex/agent-sessions_codex_small_0.146.jsonl");
  g_autofree char *codex_plans = read_fixture (fixtures, "codex/SYNTHETIC_update_plan_variants.jsonl");
  guint64 bytes = 0, lines = 0, todo_calls = 0, plan_calls = 0;
  double t_json, t_db, t_again, t_wc = 0, t_jq = 0;
  gboolean ok_json, ok_db, ok_again;

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
  g_mkdir_with_parents (opencode_dir, 0700);
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
      g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
      g_ptr_array_add (claude_files, path);
      bytes += text->len;
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
      g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
      g_ptr_array_add (codex_files, path);
      bytes += text->len;
      lines += count_lines (text);
      while ((p = strstr (p, "\"name\":\"update_plan\"")) != NULL)
        plan_calls++, p++;
    }
  for (guint f = 0; f < G_N_ELEMENTS (claude_fixtures); f++)
    g_free (claude_text[f]);

  printf ("# real corpus: %u Claude Code transcripts of the 3 real fixture sessions (%" G_GUINT64_FORMAT
          " TodoWrite calls), %u Codex rollouts of the real one with synthetic update_plan calls (%" G_GUINT64_FORMAT
          "), %.1f MB, %" G_GUINT64_FORMAT " lines\n",
          n_claude, todo_calls, n_codex, plan_calls, bytes / 1048576.0, lines);

  if (wc != NULL)
    {
      g_autoptr(GPtrArray) args = g_ptr_array_new ();
      gboolean ok;

      g_ptr_array_add (args, (gpointer) wc);
      g_ptr_array_add (args, (gpointer) "-l");
      g_ptr_array_extend (args, claude_files, NULL, NULL);
      g_ptr_array_extend (args, codex_files, NULL, NULL);
      g_ptr_array_add (args, NULL);
      run_command ((const char * const *) args->pdata, &ok);  /* warm the page cache */
      t_wc = run_command ((const char * const *) args->pdata, &ok);
      if (!ok)
        t_wc = 0;
    }

  {
    const char *json_args[] = { agent, "import", "--json", "--claude-dir", claude_root, "--codex-dir", codex_home,
                                "--opencode-dir", opencode_dir, NULL };
    const char *db_args[] = { agent, "import", "--db", db_path, "--claude-dir", claude_root, "--codex-dir", codex_home,
                              "--opencode-dir", opencode_dir, NULL };

    t_json = run_agent (json_args, &ok_json);
    t_db = run_agent (db_args, &ok_db);
    t_again = run_agent (db_args, &ok_again);
    if (!ok_json || !ok_db || !ok_again)
      g_error ("plandeck-agent import failed on the real corpus");
  }

  if (jq != NULL)
    {
      g_autoptr(GPtrArray) a = g_ptr_array_new ();
      g_autoptr(GPtrArray) b = g_ptr_array_new ();
      gboolean ok_a, ok_b;

      g_ptr_array_add (a, (gpointer) jq);
      g_ptr_array_add (a, (gpointer) "-c");
      g_ptr_array_add (a, (gpointer) "select(.type==\"assistant\") | .message.content[]? | select(.name==\"TodoWrite\") | .input");
      g_ptr_array_extend (a, claude_files, NULL, NULL);
      g_ptr_array_add (a, NULL);
      g_ptr_array_add (b, (gpointer) jq);
      g_ptr_array_add (b, (gpointer) "-c");
      g_ptr_array_add (b, (gpointer) "select(.type==\"response_item\") | .payload | select(.name==\"update_plan\") | .arguments");
      g_ptr_array_extend (b, codex_files, NULL, NULL);
      g_ptr_array_add (b, NULL);
      t_jq = run_command ((const char * const *) a->pdata, &ok_a) + run_command ((const char * const *) b->pdata, &ok_b);
      if (!ok_a || !ok_b)
        t_jq = 0;
    }

  printf ("real: import --json          %7.2f s  %8.1f MB/s\n", t_json, bytes / 1048576.0 / t_json);
  printf ("real: import --db (first)    %7.2f s  %8.1f MB/s\n", t_db, bytes / 1048576.0 / t_db);
  printf ("real: import --db (unchanged)%7.3f s  (%u files)\n", t_again, n_claude + n_codex);
  if (t_wc > 0)
    printf ("real: wc -l                  %7.2f s  %8.1f MB/s\n", t_wc, bytes / 1048576.0 / t_wc);
  if (t_jq > 0)
    printf ("real: jq                     %7.2f s  %8.1f MB/s\n", t_jq, bytes / 1048576.0 / t_jq);
  if (t_wc > 0)
    printf ("real: import --json / wc -l  %7.2f×  --db %.2f×  (goal: ≤ 3×)  %s\n", t_json / t_wc, t_db / t_wc,
            MAX (t_json, t_db) <= 3 * t_wc ? "met" : "MISSED");
  if (t_jq > 0)
    printf ("real: jq / import --json     %7.2f×  --db %.2f×  (goal: ≥ 10×) %s\n", t_jq / t_json, t_jq / t_db,
            t_jq >= 10 * MAX (t_json, t_db) ? "met" : "MISSED");

  rmtree (root);
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

  if (megabytes == 0)
    megabytes = 300;
  n_claude = MAX (1, megabytes * 2 / 3 * 1024 * 1024 / SESSION_BYTES);
  n_codex = MAX (1, megabytes / 3 * 1024 * 1024 / SESSION_BYTES);
  g_mkdir_with_parents (claude_dir, 0700);
  g_mkdir_with_parents (codex_dir, 0700);

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
  printf ("# corpus: %u Claude Code sessions, %u Codex rollouts, %.1f MB, %" G_GUINT64_FORMAT " lines (written in %.1f s)\n",
          n_claude, n_codex, bytes / 1048576.0, lines, (g_get_monotonic_time () - start) / 1e6);

  /* wc -l: the floor. */
  if (wc != NULL)
    {
      g_autoptr(GPtrArray) args = g_ptr_array_new ();
      gboolean ok;

      g_ptr_array_add (args, wc);
      g_ptr_array_add (args, (gpointer) "-l");
      g_ptr_array_extend (args, claude_files, NULL, NULL);
      g_ptr_array_extend (args, codex_files, NULL, NULL);
      g_ptr_array_add (args, NULL);
      run_command ((const char * const *) args->pdata, &ok);  /* warm the page cache */
      t_wc = run_command ((const char * const *) args->pdata, &ok);
      if (!ok)
        t_wc = 0;
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
  g_assert_cmpuint (stats.sessions_added, ==, n_claude + n_codex);

  /* Again, from a new index (a new process): nothing changed, nothing read. */
  g_clear_object (&index);
  index = pd_import_index_new ();
  start = g_get_monotonic_time ();
  if (!pd_import_index_run_paths (index, store, paths, &stats, NULL, &error))
    g_error ("import: %s", error->message);
  t_again = (g_get_monotonic_time () - start) / 1e6;
  g_assert_cmpuint (stats.unchanged, ==, n_claude + n_codex);
  g_assert_cmpuint (stats.bytes_read, ==, 0);

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

  printf ("import (first run)   %7.2f s  %8.1f MB/s  %11.0f lines/s\n",
          t_import, bytes / 1048576.0 / t_import, lines / t_import);
  printf ("import (unchanged)   %7.3f s  (%u files, none opened)\n", t_again, n_claude + n_codex);
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

  g_clear_object (&store);
  g_clear_object (&db);
  rmtree (root);

  if (g_getenv ("PD_SHARED_FIXTURES_DIR") != NULL &&
      g_file_test (g_getenv ("PD_SHARED_FIXTURES_DIR"), G_FILE_TEST_IS_DIR))
    real_corpus_run (g_getenv ("PD_SHARED_FIXTURES_DIR"), g_getenv ("PLANDECK_AGENT"), wc, jq);
  else
    printf ("# real corpus: no shared fixtures (PD_SHARED_FIXTURES_DIR): skipped\n");
  return 0;
}
