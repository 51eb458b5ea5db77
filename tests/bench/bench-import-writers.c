/* bench-import-writers.c: the synthetic corpus of bench-import, one writer
 * per agent (Claude Code, Codex, Qwen Code, Gemini CLI, Cline) on the
 * shared helpers: deterministic words, times and the file written whole.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib.h>

#include "bench-import.h"

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

/* The time of the @n-th second of February 2026 (and a millisecond part),
 * as "timestamp":"…" — how Claude Code and Codex both write it. */
static void
claude_time (GString *out,
             guint    n)
{
  g_string_append_printf (out, "\"timestamp\":\"2026-02-%02uT%02u:%02u:%02u.%03uZ\"",
                          1 + (n / 86400) % 28, (n / 3600) % 24, (n / 60) % 60, n % 60, n % 1000);
}

static const char *todo_states[] = { "pending", "in_progress", "completed" };

/* What opens every Claude Code assistant line, up to its content blocks,
 * and what follows a tool result line's parentUuid, up to the id of the
 * call it answers. */
#define CLAUDE_ASSISTANT \
  "{\"parentUuid\":\"p\",\"isSidechain\":false,\"cwd\":\"/home/dev/project\",\"sessionId\":\"bench\"," \
  "\"type\":\"assistant\",\"message\":{\"model\":\"claude\",\"id\":\"msg\",\"type\":\"message\"," \
  "\"role\":\"assistant\",\"content\":["
#define CLAUDE_TOOL_RESULT \
  "\"isSidechain\":false,\"cwd\":\"/home/dev/project\",\"sessionId\":\"bench\"," \
  "\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\""

/* One Claude Code session file. */
guint64
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

          g_string_append (out, CLAUDE_ASSISTANT "{\"type\":\"tool_use\",\"id\":\"");
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
          g_string_append (out, "}\n{\"parentUuid\":\"a1\"," CLAUDE_TOOL_RESULT);
          g_string_append (out, id);
          g_string_append (out, "\",\"type\":\"tool_result\",\"content\":\"Todos have been modified successfully.\"}]},\"uuid\":\"r1\",");
          claude_time (out, n + 1);
          g_string_append (out, "}\n");
          lines += 2;
        }
      else if (kind < 8)
        {
          /* Assistant text. */
          g_string_append (out, CLAUDE_ASSISTANT "{\"type\":\"text\",\"text\":\"");
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

          g_string_append (out, CLAUDE_ASSISTANT "{\"type\":\"tool_use\",\"id\":\"");
          g_string_append (out, id);
          g_string_append_printf (out, "\",\"name\":\"%s\",\"input\":{\"command\":\"", tool);
          add_text (out, &rng, 40 + r % 200);
          g_string_append (out, "\"}}]},\"uuid\":\"a3\",");
          claude_time (out, n);
          g_string_append (out, "}\n{\"parentUuid\":\"a3\"," CLAUDE_TOOL_RESULT);
          g_string_append (out, id);
          g_string_append (out, "\",\"type\":\"tool_result\",\"content\":\"");
          add_text (out, &rng, 500 + rng_next (&rng) % 12000);
          g_string_append (out, "\",\"is_error\":false}]},\"toolUseResult\":{\"stdout\":\"ok\",\"stderr\":\"\"},\"uuid\":\"r3\",");
          claude_time (out, n + 1);
          g_string_append (out, "}\n");
          lines += 2;
        }
    }

  bench_write_file (path, out);
  return lines;
}

/* A Codex line opens with its time. */
static void
codex_time (GString *out,
            guint    n)
{
  g_string_append_c (out, '{');
  claude_time (out, n);
  g_string_append_c (out, ',');
}

/* One Codex rollout. */
guint64
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

  bench_write_file (path, out);
  return lines;
}

/* One Qwen Code session: Gemini-style parts, a todo_write now and then
 * (always the full list) confirmed by its tool_result. */
guint64
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

  bench_write_file (path, out);
  return lines;
}

/* One Gemini CLI session in JSON lines (v0.39 on): the header, messages,
 * a write_todos call now and then. */
guint64
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

  bench_write_file (path, out);
  return lines;
}

/* One Cline task's ui_messages.json: one JSON array, a message a line (as
 * the extension writes it pretty-printed, roughly), a task_progress list
 * now and then. */
guint64
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

  bench_write_file (path, out);
  return lines;
}

/* @out written to @path, whole: a benchmark that cannot write its corpus
 * has nothing to measure. */
void
bench_write_file (const char    *path,
                  const GString *out)
{
  g_assert_true (g_file_set_contents (path, out->str, (gssize) out->len, NULL));
}
