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
 * list of absolute ones would be over the limit).
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

/* One Qwen Code session: Gemini-style parts, a todo_write now and then
 * (always the full list) confirmed by its tool_result. */
static guint64
write_qwen (const char *path,
            guint       seed,
            gsize       target)
{
  g_autoptr(GString) out = g_string_sized_new (target + 64 * 1024);
  Rng rng = { seed * 69069u + 3 };
  guint64 lines = 0;
  guint call = 0;

  while (out->len < target)
    {
      guint32 r = rng_next (&rng);
      guint kind = out->len == 0 ? 0 : r % 16;
      const char *head = "{\"uuid\":\"u\",\"parentUuid\":\"p\",\"sessionId\":\"bench-qwen\","
                         "\"timestamp\":\"2026-04-02T08:00:00.000Z\",\"cwd\":\"/home/dev/project\",\"version\":\"0.0.14\",";

      call++;
      if (kind == 0)
        {
          g_string_append (out, head);
          g_string_append (out, "\"type\":\"user\",\"message\":{\"role\":\"user\",\"parts\":[{\"text\":\"");
          add_text (out, &rng, 200 + r % 800);
          g_string_append (out, "\"}]}}\n");
          lines++;
        }
      else if (kind == 1)
        {
          guint n_items = 3 + r % 6;

          g_string_append (out, head);
          g_string_append_printf (out, "\"type\":\"assistant\",\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":"
                                       "{\"id\":\"call_%u\",\"name\":\"todo_write\",\"args\":{\"todos\":[", call);
          for (guint i = 0; i < n_items; i++)
            {
              g_string_append_printf (out, "%s{\"id\":\"%u\",\"content\":\"", i ? "," : "", i + 1);
              add_text (out, &rng, 30 + rng_next (&rng) % 40);
              g_string_append_printf (out, "\",\"status\":\"%s\"}", todo_states[rng_next (&rng) % 3]);
            }
          g_string_append (out, "]}}}]}}\n");
          g_string_append (out, head);
          g_string_append_printf (out, "\"type\":\"tool_result\",\"message\":{\"role\":\"user\",\"parts\":[{\"functionResponse\":"
                                       "{\"id\":\"call_%u\",\"name\":\"todo_write\",\"response\":{\"output\":\"ok\"}}}]},"
                                       "\"toolCallResult\":{\"callId\":\"call_%u\",\"status\":\"success\"}}\n", call, call);
          lines += 2;
        }
      else if (kind < 8)
        {
          g_string_append (out, head);
          g_string_append (out, "\"type\":\"assistant\",\"message\":{\"role\":\"model\",\"parts\":[{\"text\":\"");
          add_text (out, &rng, 100 + r % 1500);
          g_string_append (out, "\"}]}}\n");
          lines++;
        }
      else
        {
          g_string_append (out, head);
          g_string_append_printf (out, "\"type\":\"assistant\",\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":"
                                       "{\"id\":\"call_%u\",\"name\":\"run_shell_command\",\"args\":{\"command\":\"rg build\"}}}]}}\n", call);
          g_string_append (out, head);
          g_string_append_printf (out, "\"type\":\"tool_result\",\"message\":{\"role\":\"user\",\"parts\":[{\"functionResponse\":"
                                       "{\"id\":\"call_%u\",\"name\":\"run_shell_command\",\"response\":{\"output\":\"", call);
          add_text (out, &rng, 400 + rng_next (&rng) % 10000);
          g_string_append (out, "\"}}}]}}\n");
          lines += 2;
        }
    }

  g_assert_true (g_file_set_contents (path, out->str, (gssize) out->len, NULL));
  return lines;
}

/* One Gemini CLI session in JSON lines (v0.39 on): the header, messages,
 * a write_todos call now and then. */
static guint64
write_gemini (const char *path,
              guint       seed,
              gsize       target)
{
  g_autoptr(GString) out = g_string_sized_new (target + 64 * 1024);
  Rng rng = { seed * 1103515245u + 11 };
  guint64 lines = 1;
  guint n = 0;

  g_string_append_printf (out, "{\"sessionId\":\"bench-gemini-%u\",\"projectHash\":\"%064u\","
                               "\"startTime\":\"2026-04-02T08:00:00.000Z\",\"lastUpdated\":\"2026-04-02T09:00:00.000Z\","
                               "\"kind\":\"main\"}\n", seed, seed);
  while (out->len < target)
    {
      guint32 r = rng_next (&rng);
      guint kind = r % 16;

      n++;
      g_string_append_printf (out, "{\"id\":\"m%u\",\"timestamp\":\"2026-04-02T08:00:00.000Z\",", n);
      if (kind == 0)
        {
          guint n_items = 3 + r % 5;

          g_string_append (out, "\"type\":\"gemini\",\"content\":\"\",\"toolCalls\":[{\"id\":\"c\",\"name\":\"write_todos\","
                                "\"status\":\"success\",\"args\":{\"todos\":[");
          for (guint i = 0; i < n_items; i++)
            {
              g_string_append_printf (out, "%s{\"description\":\"", i ? "," : "");
              add_text (out, &rng, 30);
              g_string_append_printf (out, "\",\"status\":\"%s\"}", todo_states[rng_next (&rng) % 3]);
            }
          g_string_append (out, "]}}]}\n");
        }
      else if (kind < 8)
        {
          g_string_append (out, "\"type\":\"gemini\",\"content\":\"");
          add_text (out, &rng, 100 + r % 1500);
          g_string_append (out, "\",\"tokens\":{\"input\":1200,\"output\":80,\"total\":1280}}\n");
        }
      else
        {
          g_string_append (out, "\"type\":\"gemini\",\"content\":\"\",\"toolCalls\":[{\"id\":\"c\",\"name\":\"run_shell_command\","
                                "\"status\":\"success\",\"args\":{\"command\":\"rg build\"},\"resultDisplay\":\"");
          add_text (out, &rng, 400 + rng_next (&rng) % 10000);
          g_string_append (out, "\"}]}\n");
        }
      lines++;
    }

  g_assert_true (g_file_set_contents (path, out->str, (gssize) out->len, NULL));
  return lines;
}

/* One Cline task's ui_messages.json: one JSON array, a message a line (as
 * the extension writes it pretty-printed, roughly), a task_progress list
 * now and then. */
static guint64
write_cline (const char *path,
             guint       seed,
             gsize       target)
{
  g_autoptr(GString) out = g_string_sized_new (target + 64 * 1024);
  Rng rng = { seed * 22695477u + 5 };
  guint64 lines = 1;
  guint64 ts = 1775300000000u;

  g_string_append (out, "[");
  while (out->len < target)
    {
      guint32 r = rng_next (&rng);
      guint kind = lines == 1 ? 0 : r % 16;

      ts += 7;
      g_string_append_printf (out, "%s{\"ts\":%" G_GUINT64_FORMAT ",\"type\":\"say\",", lines == 1 ? "" : ",\n", ts);
      if (kind == 0)
        {
          g_string_append (out, "\"say\":\"task\",\"text\":\"");
          add_text (out, &rng, 200 + r % 800);
          g_string_append (out, "\"}");
        }
      else if (kind == 1)
        {
          guint n_items = 3 + r % 5;

          g_string_append (out, "\"say\":\"task_progress\",\"text\":\"");
          for (guint i = 0; i < n_items; i++)
            {
              g_string_append_printf (out, "%s- [%c] ", i ? "\\n" : "", " x-"[rng_next (&rng) % 3]);
              add_text (out, &rng, 30);
            }
          g_string_append (out, "\"}");
        }
      else if (kind < 8)
        {
          g_string_append (out, "\"say\":\"text\",\"text\":\"");
          add_text (out, &rng, 100 + r % 1500);
          g_string_append (out, "\",\"partial\":false,\"conversationHistoryIndex\":3}");
        }
      else
        {
          g_string_append (out, "\"say\":\"command_output\",\"text\":\"");
          add_text (out, &rng, 400 + rng_next (&rng) % 10000);
          g_string_append (out, "\"}");
        }
      lines++;
    }
  g_string_append (out, "]\n");

  g_assert_true (g_file_set_contents (path, out->str, (gssize) out->len, NULL));
  return lines;
}

/* The CPU seconds (user and system) of the command run last: on a machine
 * shared with other jobs the wall time is mostly waiting for a core, so the
 * real corpus is reported in both. */
static double last_cpu;

static double
children_cpu (void)
{
  struct rusage usage;

  getrusage (RUSAGE_CHILDREN, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static double
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

static double
run_command (const char * const *argv,
             gboolean           *ok)
{
  return run_command_in (NULL, argv, ok);
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

/* One agent's part of the real corpus, or all of it. */
typedef struct
{
  const char *name;
  const char *cwd;        /* (nullable) where wc and jq run */
  GPtrArray  *files;      /* paths, relative to cwd when it is set */
  const char *jq_filter;
  const char *claude_dir, *codex_dir, *opencode_dir;
  guint64     bytes;
  double      wc, jq, json, db, again;                 /* wall seconds */
  double      wc_cpu, jq_cpu, json_cpu, db_cpu, again_cpu;  /* CPU seconds */
} Corpus;

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

static void
measure (Corpus     *corpus,
         const char *agent,
         const char *wc,
         const char *jq,
         const char *db_path)
{
  const char *json_args[] = { agent, "import", "--json", "--claude-dir", corpus->claude_dir,
                              "--codex-dir", corpus->codex_dir, "--opencode-dir", corpus->opencode_dir, NULL };
  const char *db_args[] = { agent, "import", "--db", db_path, "--claude-dir", corpus->claude_dir,
                            "--codex-dir", corpus->codex_dir, "--opencode-dir", corpus->opencode_dir, NULL };
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
  g_assert_true (g_file_set_contents (path, out->str, (gssize) out->len, NULL));
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
      g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
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
      g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
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

  claude.claude_dir = claude_root, claude.codex_dir = empty, claude.opencode_dir = empty;
  codex.claude_dir = empty, codex.codex_dir = codex_home, codex.opencode_dir = empty;
  opencode.claude_dir = empty, opencode.codex_dir = empty, opencode.opencode_dir = opencode_dir;
  all.claude_dir = claude_root, all.codex_dir = codex_home, all.opencode_dir = opencode_dir;

  {
    g_autofree char *db_claude = g_build_filename (root, "claude.db", NULL);
    g_autofree char *db_codex = g_build_filename (root, "codex.db", NULL);
    g_autofree char *db_opencode = g_build_filename (root, "opencode.db", NULL);
    g_autofree char *db_all = g_build_filename (root, "all.db", NULL);

    measure (&claude, agent, wc, jq, db_claude);
    measure (&codex, agent, wc, jq, db_codex);
    if (todo_parts > 0)
      measure (&opencode, agent, wc, jq, db_opencode);
    /* All at once: the import of the three folders beside the three wc and
     * jq runs on the same files. */
    all.bytes = claude.bytes + codex.bytes + opencode.bytes;
    all.wc = claude.wc + codex.wc + opencode.wc;
    all.jq = claude.jq + codex.jq + opencode.jq;
    all.wc_cpu = claude.wc_cpu + codex.wc_cpu + opencode.wc_cpu;
    all.jq_cpu = claude.jq_cpu + codex.jq_cpu + opencode.jq_cpu;
    all.files = NULL;
    {
      const char *json_args[] = { agent, "import", "--json", "--claude-dir", claude_root, "--codex-dir", codex_home,
                                  "--opencode-dir", opencode_dir, NULL };
      const char *db_args[] = { agent, "import", "--db", db_all, "--claude-dir", claude_root, "--codex-dir", codex_home,
                                "--opencode-dir", opencode_dir, NULL };
      gboolean ok_json, ok_db, ok_again;

      all.json = run_command (json_args, &ok_json);
      all.json_cpu = last_cpu;
      all.db = run_command (db_args, &ok_db);
      all.db_cpu = last_cpu;
      all.again = run_command (db_args, &ok_again);
      all.again_cpu = last_cpu;
      if (!ok_json || !ok_db || !ok_again)
        g_error ("plandeck-agent import failed on the real corpus");
    }
  }

  report (&claude);
  report (&codex);
  if (todo_parts > 0)
    report (&opencode);
  report (&all);

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

      rmtree (root);
      if (g_getenv ("PD_SHARED_FIXTURES_DIR") == NULL)
        {
          printf ("# real corpus: no shared fixtures (PD_SHARED_FIXTURES_DIR): skipped\n");
          return 0;
        }
      real_corpus_run (g_getenv ("PD_SHARED_FIXTURES_DIR"), g_getenv ("PLANDECK_AGENT"), wc_only, jq_only);
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
  rmtree (root);

  if (g_getenv ("PD_SHARED_FIXTURES_DIR") != NULL &&
      g_file_test (g_getenv ("PD_SHARED_FIXTURES_DIR"), G_FILE_TEST_IS_DIR))
    real_corpus_run (g_getenv ("PD_SHARED_FIXTURES_DIR"), g_getenv ("PLANDECK_AGENT"), wc, jq);
  else
    printf ("# real corpus: no shared fixtures (PD_SHARED_FIXTURES_DIR): skipped\n");
  return 0;
}
