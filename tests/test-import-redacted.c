/* test-import-redacted.c: what Plandeck shows, serves and exports of an
 * imported transcript is redacted, as a session's own messages are when
 * stored.  Tried as an attacker would: a tool's output holding
 * "aws_secret_access_key = …" and "MY_PASSWORD=…" was exported and served
 * as written while the session's title was masked, and so was a plan
 * item's "set DB_PASSWORD=…".  A real import of a
 * small transcript into a real SQLite file, then its export and its pages.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-import-redacted"

#include "config.h"

#include <string.h>

#include "pd-import-index.h"
#include "pd-import-private.h"
#include "pd-import-test.h"
#include "pd-session-reads.h"
#include "pd-test-long-session.h"
#include "pd-transcript-pages-private.h"

#define REC(type, rest) "{\"uuid\":\"u\",\"sessionId\":\"s1\",\"timestamp\":\"2026-04-02T08:00:00.000Z\",\"type\":\"" type "\",\"cwd\":\"/w\"" rest "}"
#define USER(text) REC ("user", ",\"message\":{\"role\":\"user\",\"parts\":[{\"text\":\"" text "\"}]}")
#define MODEL(text) REC ("assistant", ",\"message\":{\"role\":\"model\",\"parts\":[{\"text\":\"" text "\"}]}")
#define SHELL(id, command) REC ("assistant", ",\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"id\":\"" id "\",\"name\":\"run_shell_command\",\"args\":{\"command\":\"" command "\"}}}]}")
#define TODOS(id, todos) REC ("assistant", ",\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"id\":\"" id "\",\"name\":\"todo_write\",\"args\":{\"todos\":" todos "}}}]}")
#define OUTPUT(id, output) REC ("tool_result", ",\"message\":{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"id\":\"" id "\",\"name\":\"run_shell_command\",\"response\":{\"output\":\"" output "\"}}}]},\"toolCallResult\":{\"callId\":\"" id "\",\"status\":\"success\"}")

static const char * const secrets[] = {
  "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "hunter2hunter2", "S3cretPw", "ModelPw9", "TodoPw77",
};

static void
assert_masked (const char *text)
{
  for (gsize i = 0; i < G_N_ELEMENTS (secrets); i++)
    g_assert_null (strstr (text, secrets[i]));
  g_assert_nonnull (strstr (text, "aws_secret_access_key = [REDACTED]"));
  g_assert_nonnull (strstr (text, "MY_PASSWORD=[REDACTED]"));
  g_assert_nonnull (strstr (text, "mysql -p[REDACTED] shop"));
  /* What the shell runs stays in sight. */
  g_assert_nonnull (strstr (text, "PGPASSWORD= rm prod.db"));
}

static void
test_tool_results_masked (void)
{
  PdLongSession f = { 0 };
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);
  g_autofree char *exported = NULL;
  g_autofree char *shown = NULL;
  g_autoptr(PdChecklist) checklist = NULL;

  g_string_append (text, USER ("deploy; PGPASSWORD= rm prod.db") "\n");
  g_string_append (text, MODEL ("I will log in with --password=ModelPw9") "\n");
  g_string_append (text, SHELL ("c1", "mysql -pS3cretPw shop") "\n");
  g_string_append (text, OUTPUT ("c1", "uploaded. aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
                                 " and export MY_PASSWORD=hunter2hunter2") "\n");
  g_string_append (text, TODOS ("c2", "[{\"id\":\"1\",\"content\":\"set DB_PASSWORD=TodoPw77 in .env\",\"status\":\"in_progress\"}]") "\n");
  g_string_append (text, REC ("tool_result", ",\"message\":{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"id\":\"c2\",\"name\":\"todo_write\",\"response\":{\"output\":\"ok\"}}}]},\"toolCallResult\":{\"callId\":\"c2\",\"status\":\"success\"}") "\n");
  pd_long_session_open (&f, "s1.jsonl", text, FALSE);

  /* `sessions export` and serve's …/export. */
  g_assert_true (pd_session_reads_export_json (f.store, f.id, out, FALSE, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_output_stream_close (out, NULL, &error));
  exported = g_strndup (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)),
                        g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out)));
  assert_masked (exported);

  /* The Transcript page and serve's messages: the pages read whole. */
  pages = pd_import_index_load_pages (f.store, f.id, NULL, &error);
  g_assert_no_error (error);
  messages = pd_transcript_pages_dup_messages (pages);
  json_node_set_array (node, messages);
  shown = json_to_string (node, FALSE);
  assert_masked (shown);

  /* The plan: the Now page's and sessions show's checklist, and the
   * export's plan versions (checked above with the rest). */
  checklist = pd_import_index_load_checklist (f.store, f.id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pd_checklist_get_n_agent_items (checklist), ==, 1);
  g_assert_cmpstr (pd_checklist_get_agent_item (checklist, 0)->text, ==, "set DB_PASSWORD=[REDACTED] in .env");
  g_assert_nonnull (strstr (exported, "set DB_PASSWORD=[REDACTED] in .env"));

  pd_long_session_close (&f);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-redacted/tool-results-masked", test_tool_results_masked);

  return g_test_run ();
}
