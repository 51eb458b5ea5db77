/* test-redact-ids.c: a tool call's id that holds a token (tried as an
 * attacker would: a transcript's `tu_0_ghp_…` was kept 24 times in the
 * export, in tool_calls[].id, tool_call_id and the events' call_id, since
 * the _ before ghp_ is a word's and the text's scan read no token there).
 * The id is masked whole, to the same value wherever it is stored, so the
 * tool result still answers its call, and two ids stay two.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE

#include "config.h"

#include <string.h>

#include "pd-json.h"
#include "pd-redact.h"
#include "pd-test-import-pages.h"

#define GH "ghp_aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2zA4"

static char *
member_at (const char  *json,
           const char  *path)
{
  g_autoptr(JsonNode) root = pd_json_from_string_bounded (json, NULL);
  g_autoptr(JsonPath) query = json_path_new ();
  g_autoptr(JsonNode) found = NULL;
  JsonArray *array;

  g_assert_nonnull (root);
  g_assert_true (json_path_compile (query, path, NULL));
  found = json_path_match (query, root);
  array = json_node_get_array (found);
  g_assert_cmpuint (json_array_get_length (array), ==, 1);
  return g_strdup (json_array_get_string_element (array, 0));
}

/* The three places an id is stored: the assistant's tool_calls, the tool
 * message that answers, an event of the call. */
static void
test_token_in_call_id (void)
{
  const char *assistant =
    "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
    "{\"id\":\"tu_0_" GH "\",\"type\":\"function\",\"function\":{\"name\":\"shell\",\"arguments\":\"{}\"}},"
    "{\"id\":\"tu_1_" GH "\",\"type\":\"function\",\"function\":{\"name\":\"shell\",\"arguments\":\"{}\"}}]}";
  const char *tool = "{\"role\":\"tool\",\"tool_call_id\":\"tu_0_" GH "\",\"content\":\"ok\"}";
  const char *event = "{\"call_id\":\"tu_0_" GH "\",\"name\":\"shell\"}";
  const char *block = "{\"type\":\"tool_result\",\"tool_use_id\":\"tu_1_" GH "\",\"content\":\"ok\"}";
  g_autofree char *a = pd_redact_json (assistant, NULL);
  g_autofree char *t = pd_redact_json (tool, NULL);
  g_autofree char *e = pd_redact_json (event, NULL);
  g_autofree char *b = pd_redact_json (block, NULL);
  g_autofree char *id0 = member_at (a, "$.tool_calls[0].id");
  g_autofree char *id1 = member_at (a, "$.tool_calls[1].id");
  g_autofree char *answered = member_at (t, "$.tool_call_id");
  g_autofree char *evented = member_at (e, "$.call_id");
  g_autofree char *blocked = member_at (b, "$.tool_use_id");
  guint n = 0;
  g_autofree char *again = pd_redact_json (a, &n);

  g_test_message ("%s\n%s\n%s\n%s", a, t, e, b);
  g_assert_null (strstr (a, "ghp_"));
  g_assert_null (strstr (t, "ghp_"));
  g_assert_null (strstr (e, "ghp_"));
  g_assert_null (strstr (b, "ghp_"));
  g_assert_true (g_str_has_prefix (id0, "redacted_"));
  g_assert_cmpuint (strlen (id0), ==, strlen ("redacted_") + 16);
  g_assert_cmpstr (answered, ==, id0);
  g_assert_cmpstr (evented, ==, id0);
  g_assert_cmpstr (blocked, ==, id1);
  g_assert_cmpstr (id0, !=, id1);
  /* Stored twice (an import, then the store): nothing more changes. */
  g_assert_cmpstr (again, ==, a);
  g_assert_cmpuint (n, ==, 0);
}

/* A token alone as the id, glued after a - or a ., or in an id of another
 * member's name: masked the same way; two such ids stay two. */
static void
test_token_id_spellings (void)
{
  const char *ids[] = {
    GH, "call-" GH, "x." GH, "call_sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx",
    "toolu_AKIAIOSFODNN7EXAMPLE",
  };

  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_autofree char *json = g_strdup_printf ("{\"id\":\"%s\",\"toolCallId\":\"%s\"}", ids[i], ids[i]);
      g_autofree char *out = pd_redact_json (json, NULL);
      g_autofree char *id = member_at (out, "$.id");
      g_autofree char *other = member_at (out, "$.toolCallId");

      g_test_message ("%s → %s", ids[i], out);
      g_assert_true (g_str_has_prefix (id, "redacted_"));
      g_assert_cmpstr (other, ==, id);
    }
}

/* Ids of agents and providers as they are: kept. */
static void
test_plain_ids_kept (void)
{
  const char *ids[] = {
    "call_abc123", "toolu_01A09q90qw90lq917835lq9", "tu_0_x", "call_8fKx2Lq0Zr7Nn3Tt1Yy5Ww9",
    "11111111-2222-3333-4444-555555555555", "s1", "chatcmpl-9aBcD", "fc_67e0_read_file",
  };

  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      g_autofree char *json = g_strdup_printf ("{\"id\":\"%s\",\"call_id\":\"%s\"}", ids[i], ids[i]);
      g_autofree char *out = pd_redact_json (json, NULL);

      g_assert_cmpstr (out, ==, json);
    }
}

/* An imported Claude Code transcript (att20's own shape): its pages kept
 * the ids as read, in the messages and the Events; the result must still
 * answer its call. */
static void
test_imported_call_ids (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  const char *lines[] = {
    "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"sessionId\":\"i1\",\"cwd\":\"/w\","
    "\"message\":{\"role\":\"user\",\"content\":\"Go\"}}",
    "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:01Z\",\"message\":{\"id\":\"m1\",\"role\":\"assistant\","
    "\"content\":[{\"type\":\"tool_use\",\"id\":\"tu_0_" GH "\",\"name\":\"Bash\",\"input\":{\"command\":\"ls\"}}]}}",
    "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:02Z\",\"message\":{\"role\":\"user\","
    "\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"tu_0_" GH "\",\"content\":\"a b\"}]}}",
    NULL,
  };
  g_autofree char *path = pd_import_test_write (dir, "i1.jsonl", lines);
  g_autoptr(PdTranscriptPages) pages = read_pages ("claude", path, NULL, NULL);
  g_autoptr(JsonArray) messages = pd_transcript_pages_dup_messages (pages);
  g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), messages);
  g_autofree char *text = pd_json_to_string (node, FALSE);
  g_autoptr(GPtrArray) events = pd_transcript_pages_dup_events (pages, "i", 0, 0);
  g_autofree char *id = member_at (text, "$[1].tool_calls[0].id");
  g_autofree char *answered = member_at (text, "$[2].tool_call_id");
  g_autofree char *name = member_at (text, "$[2].name");
  guint with_id = 0;

  g_test_message ("%s", text);
  g_assert_null (strstr (text, "ghp_"));
  g_assert_true (g_str_has_prefix (id, "redacted_"));
  g_assert_cmpstr (answered, ==, id);
  /* The result was matched to its call: the tool message is named. */
  g_assert_cmpstr (name, ==, "Bash");
  for (guint i = 0; i < events->len; i++)
    {
      const char *json = ((PdStoredEvent *) g_ptr_array_index (events, i))->event_json;

      g_assert_null (strstr (json, "ghp_"));
      if (strstr (json, id) != NULL)
        with_id++;
    }
  g_assert_cmpuint (with_id, ==, 2);
  pd_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/redact/ids/token-in-call-id", test_token_in_call_id);
  g_test_add_func ("/pd/redact/ids/token-id-spellings", test_token_id_spellings);
  g_test_add_func ("/pd/redact/ids/plain-ids-kept", test_plain_ids_kept);
  g_test_add_func ("/pd/redact/ids/imported-call-ids", test_imported_call_ids);

  return g_test_run ();
}
