/* pd-test-tiny-transcripts.h: a long transcript of tiny messages, Claude
 * Code's and Gemini CLI's, for the tests of a transcript cut at its pages'
 * budget (import-cut-newest, server-page-cut): "go", then message i as
 * "x<i>" for i in 1..@n, then "the end" — @n + 2 messages, each known by
 * its place.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>

/* DIR/projects/-tmp/SESSION.jsonl, as Claude Code keeps it. */
static inline void
pd_test_write_tiny_claude (const char *dir,
                           const char *session,
                           guint       n)
{
  g_autofree char *project = g_build_filename (dir, "projects", "-tmp", NULL);
  g_autofree char *name = g_strconcat (session, ".jsonl", NULL);
  g_autofree char *path = g_build_filename (project, name, NULL);
  g_autoptr(GString) text = g_string_new (NULL);

  g_string_append_printf (text, "{\"type\":\"user\",\"cwd\":\"/tmp\",\"sessionId\":\"%s\",\"message\":"
                                "{\"role\":\"user\",\"content\":\"go\"},\"uuid\":\"u0\","
                                "\"timestamp\":\"2026-12-05T10:00:00Z\"}\n", session);
  for (guint i = 1; i <= n; i++)
    g_string_append_printf (text, "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"x%u\"}}\n", i);
  g_string_append (text, "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"the end\"}}\n");
  g_assert_cmpint (g_mkdir_with_parents (project, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
}

/* DIR/tiny/chats/session-….jsonl, Gemini CLI's JSON lines, its first line
 * the session's header with @session_id. */
static inline void
pd_test_write_tiny_gemini (const char *dir,
                           const char *session_id,
                           guint       n)
{
  g_autofree char *chats = g_build_filename (dir, "tiny", "chats", NULL);
  g_autofree char *path = g_build_filename (chats, "session-2026-04-05T10-12-3fa9c0d1.jsonl", NULL);
  g_autoptr(GString) text = g_string_new (NULL);

  g_string_append_printf (text, "{\"sessionId\":\"%s\",\"projectHash\":\"9f2c\","
                                "\"startTime\":\"2026-04-05T10:12:00.000Z\","
                                "\"lastUpdated\":\"2026-04-05T10:12:00.000Z\"}\n", session_id);
  g_string_append (text, "{\"id\":\"g0\",\"timestamp\":\"2026-04-05T10:12:09.000Z\",\"type\":\"user\","
                         "\"content\":[{\"text\":\"go\"}]}\n");
  for (guint i = 1; i <= n; i++)
    g_string_append_printf (text, "{\"id\":\"g%u\",\"type\":\"user\",\"content\":[{\"text\":\"x%u\"}]}\n", i, i);
  g_string_append_printf (text, "{\"id\":\"g%u\",\"type\":\"user\",\"content\":[{\"text\":\"the end\"}]}\n", n + 1);
  g_assert_cmpint (g_mkdir_with_parents (chats, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
}
