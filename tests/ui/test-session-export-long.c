/* test-session-export-long.c: the window's Export of a long imported
 * transcript, written as it is read
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A Qwen Code session of 300 plan calls over a lowered tail threshold, in
 * a real database, exported as the window exports (pd_session_export_async()
 * through the window's sources together, a PdMultiSource): the Markdown is
 * the document the whole read gives, the JSON that of
 * `plandeck-agent sessions export`, and neither read held more than a
 * stream's few messages at once.  The window read the session whole
 * through its source (every message and version), then built the text
 * whole.
 */
#define G_LOG_DOMAIN "test-session-export-long"

#include "config.h"

#include <string.h>

#include "../pd-import-test.h"
#include "pd-import-private.h"
#include "pd-multi-source.h"
#include "pd-session-export.h"
#include "pd-session-reads.h"
#include "pd-source-list.h"
#include "pd-test-db.h"
#include "pd-test-ui.h"
#include "pd-transcript-pages-private.h"

#define N_CALLS 300

/* A Qwen Code session of @n_calls todo_write calls (a call and its result
 * each), imported into @db. */
static char *
import_many_calls (PdTestDb   *db,
                   const char *dir,
                   guint       n_calls)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *chats = g_build_filename (dir, "chats", NULL);
  g_autofree char *path = g_build_filename (chats, "s1.jsonl", NULL);
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  PdImportIndexStats stats;
  const char *head = "{\"uuid\":\"u\",\"sessionId\":\"s1\",\"timestamp\":\"2026-04-02T08:00:00.000Z\",\"cwd\":\"/w\",";

  g_string_append_printf (text, "%s\"type\":\"user\",\"message\":{\"role\":\"user\",\"parts\":[{\"text\":\"Go\"}]}}\n", head);
  for (guint i = 0; i < n_calls; i++)
    g_string_append_printf (text,
                            "%s\"type\":\"assistant\",\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":"
                            "{\"id\":\"c%u\",\"name\":\"todo_write\",\"args\":{\"todos\":[{\"id\":\"1\",\"content\":"
                            "\"Step %u\",\"status\":\"%s\"}]}}}]}}\n"
                            "%s\"type\":\"tool_result\",\"message\":{\"role\":\"user\",\"parts\":[{\"functionResponse\":"
                            "{\"id\":\"c%u\",\"name\":\"todo_write\",\"response\":{\"output\":\"ok\"}}}]},"
                            "\"toolCallResult\":{\"callId\":\"c%u\",\"status\":\"success\"}}\n",
                            head, i, i, i + 1 == n_calls ? "completed" : "in_progress", head, i, i);
  g_assert_cmpint (g_mkdir_with_parents (chats, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, &error));
  g_assert_no_error (error);
  info = pd_import_test_import_fresh (db->store, dir, &stats);
  return g_strdup (info->id);
}

static gboolean
collect_event (const PdStoredEvent *event,
               gpointer             user_data)
{
  g_ptr_array_add (user_data, pd_stored_event_copy (event));
  return TRUE;
}

static void
test_export_long_streams (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *out_dir = pd_test_make_tmp_dir ();
  g_autofree char *md_path = g_build_filename (out_dir, "long.md", NULL);
  g_autofree char *json_path = g_build_filename (out_dir, "long.json", NULL);
  g_autoptr(PdSourceList) list = pd_source_list_new ();
  g_autoptr(PdMultiSource) multi = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GPtrArray) versions = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GOutputStream) cli = g_memory_output_stream_new_resizable ();
  g_autofree char *id = NULL;
  g_autofree char *markdown = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *json = NULL;
  g_autofree char *cli_text = NULL;

  _pd_import_set_tail_limits (16 * 1024, 16 * 1024);
  id = import_many_calls (db, dir, N_CALLS);
  pd_source_list_append (list, PD_SOURCE (db->source), "local", "This Computer");
  multi = pd_multi_source_new (list);

  /* Markdown: the document of the whole read, a stream's messages held. */
  _pd_transcript_pages_reset_peak_held ();
  markdown = pd_test_export_to (PD_SOURCE (multi), id, PD_SESSION_EXPORT_MARKDOWN, md_path);
  g_assert_cmpuint (_pd_transcript_pages_reset_peak_held (), <=, 2 * PD_TRANSCRIPT_PAGES_STREAM_LAG + 1);

  info = pd_session_reads_get (db->store, id, &error);
  g_assert_no_error (error);
  messages = pd_session_reads_load_messages (db->store, id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (messages), ==, 2 * N_CALLS + 1);
  versions = pd_session_reads_list_plan_versions (db->store, id, &error);
  g_assert_no_error (error);
  /* The timeline after the transcript, as `events --session` reads it. */
  events = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_stored_event_free);
  g_assert_true (pd_session_reads_foreach_event (db->store, id, NULL, 0, collect_event, events, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, >, N_CALLS);
  expected = pd_session_export_markdown (info, messages, versions, events);
  g_assert_cmpstr (markdown, ==, expected);
  g_assert_nonnull (strstr (markdown, "Step 299"));
  g_assert_nonnull (strstr (markdown, "\n## Events\n\n- `"));

  /* JSON: `sessions export`'s, byte for byte. */
  _pd_transcript_pages_reset_peak_held ();
  json = pd_test_export_to (PD_SOURCE (multi), id, PD_SESSION_EXPORT_JSON, json_path);
  g_assert_cmpuint (_pd_transcript_pages_reset_peak_held (), <=, 2 * PD_TRANSCRIPT_PAGES_STREAM_LAG + 1);
  g_assert_true (pd_session_reads_export_json (db->store, id, cli, FALSE, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_output_stream_write_all (cli, "", 1, NULL, NULL, &error));
  g_assert_true (g_output_stream_close (cli, NULL, &error));
  cli_text = g_strdup (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (cli)));
  g_assert_cmpstr (json, ==, cli_text);

  _pd_import_set_tail_limits (0, 0);
  pd_test_remove_tree (dir);
  pd_test_remove_tree (out_dir);
}

int
main (int    argc,
      char **argv)
{
  pd_test_views_init (&argc, &argv);

  g_test_add_func ("/pd/ui/session-export/long-streams", test_export_long_streams);

  return g_test_run ();
}
