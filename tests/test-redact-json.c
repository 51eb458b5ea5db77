/* test-redact-json.c: secrets are cut out of JSON documents, and what
 * remains is still valid JSON and a still parseable plan.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "pd-plan.h"
#include "pd-redact.h"
#include "pd-secret-text.h"
#include "test-redact-util.h"

/* Redacting the text of a JSON document must leave a JSON document, with the
 * secrets gone and everything else in place. */
static void
test_json_stays_valid (void)
{
  const char *doc =
    "{\"command\":\"curl -H 'Authorization: Bearer abcdef0123456789' https://x/?token=t0k&y=2\","
    "\"env\":{\"password\":\"hunter2\",\"key\":\"sk-proj-AbCdEfGhIjKlMnOpQrStUvWx_yz\"},"
    "\"pem\":\"-----BEGIN EC PRIVATE KEY-----\\nMHcCAQEE\\n-----END EC PRIVATE KEY-----\\n\","
    "\"list\":[\"passwd:[x]\",\"secret=a\\\\b\"]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *out = NULL;
  g_autofree char *nested = NULL;
  g_autofree char *nested_out = NULL;
  g_autoptr(JsonNode) nested_node = NULL;
  JsonObject *object;
  guint n = 0;

  out = redact (doc, &n);
  node = json_from_string (out, &error);
  g_assert_no_error (error);
  object = json_node_get_object (node);
  g_assert_cmpstr (json_object_get_string_member (object, "command"), ==,
                   "curl -H 'Authorization: Bearer [REDACTED]' https://x/?token=[REDACTED]&y=2");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (object, "env"), "password"), ==, "[REDACTED]");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (object, "env"), "key"), ==, "[REDACTED]");
  g_assert_cmpstr (json_object_get_string_member (object, "pem"), ==, "[REDACTED]\n");
  /* A value that begins with a bracket is left; one holding an escape
   * (a backslash and its sign, a\\b here) goes whole, the escape with it,
   * and the JSON stays valid. */
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (object, "list"), 1), ==, "secret=[REDACTED]");
  g_assert_cmpuint (n, ==, 6);

  /* The same document as a string inside another document (a tool result
   * quoting JSON): quotes are escaped there, and must stay escaped. */
  {
    g_autoptr(JsonNode) str = json_node_init_string (json_node_alloc (), doc);
    nested = json_to_string (str, FALSE);
  }
  nested_out = redact (nested, &n);
  nested_node = json_from_string (nested_out, &error);
  g_assert_no_error (error);
  g_assert_null (strstr (json_node_get_string (nested_node), "hunter2"));
  g_assert_null (strstr (json_node_get_string (nested_node), "abcdef0123456789"));
  g_assert_null (strstr (json_node_get_string (nested_node), "MHcCAQEE"));
}

static void
test_node_copy (void)
{
  g_autoptr(JsonNode) node = json_from_string ("{\"role\":\"tool\",\"content\":[{\"type\":\"text\",\"text\":\"password=pw\"}],"
                                               "\"n\":3,\"ok\":true,\"z\":null}", NULL);
  g_autoptr(JsonNode) copy = NULL;
  g_autofree char *before = json_to_string (node, FALSE);
  g_autofree char *after = NULL;
  g_autofree char *copied = NULL;
  guint n = 0;

  copy = pd_redact_node (node, &n);
  g_assert_cmpuint (n, ==, 1);
  after = json_to_string (node, FALSE);
  g_assert_cmpstr (before, ==, after);  /* the input is untouched */
  copied = json_to_string (copy, FALSE);
  g_assert_cmpstr (copied, ==, "{\"role\":\"tool\",\"content\":[{\"type\":\"text\",\"text\":\"password=[REDACTED]\"}],"
                               "\"n\":3,\"ok\":true,\"z\":null}");
}

/* An object member's name is the assignment's name: {"DB_PASSWORD": "x"}
 * loses x, though "x" alone says nothing. */
static void
test_node_member_names (void)
{
  g_autoptr(JsonNode) node = json_from_string ("{\"env\":{\"DB_PASSWORD\":\"x\",\"KEYBOARD_LAYOUT\":\"us\","
                                               "\"apiKey\":\"[REDACTED]\",\"token\":\"\",\"secret\":false,"
                                               "\"max_tokens\":\"4096\"}}", NULL);
  g_autoptr(JsonNode) copy = NULL;
  g_autofree char *text = NULL;
  guint n = 0;

  copy = pd_redact_node (node, &n);
  text = json_to_string (copy, FALSE);
  g_assert_cmpstr (text, ==, "{\"env\":{\"DB_PASSWORD\":\"[REDACTED]\",\"KEYBOARD_LAYOUT\":\"us\","
                             "\"apiKey\":\"[REDACTED]\",\"token\":\"\",\"secret\":false,"
                             "\"max_tokens\":\"4096\"}}");
  g_assert_cmpuint (n, ==, 1);
}

/* The plan message is a message: redacted at save time, it must still parse
 * with the strict plan parser, so resume keeps working. */
static void
test_plan_render_parses (void)
{
  g_autoptr(PdPlanStore) store = pd_plan_store_new (12, 4000);
  g_autoptr(PdPlanState) state = NULL;
  g_autoptr(PdPlanState) parsed = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *render = NULL;
  g_autofree char *out = NULL;
  g_autofree char *result = NULL;
  guint n = 0;

  result = pd_plan_store_execute (store,
    "{\"verb\":\"create\",\"steps\":[{\"id\":\"s1\",\"title\":\"Rotate key\","
    "\"checks\":[{\"id\":\"c1\",\"description\":\"token=abc works\",\"tool\":\"shell\","
    "\"arguments\":{\"command\":\"curl -H 'Authorization: Bearer abcdef0123456789' https://api\"}}]},"
    "{\"id\":\"s2\",\"title\":\"Use sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123\"}]}", &error);
  g_assert_no_error (error);
  g_clear_pointer (&result, g_free);
  result = pd_plan_store_execute (store,
    "{\"verb\":\"update\",\"updates\":[{\"id\":\"s1\",\"status\":\"in_progress\",\"note\":\"password=hunter2\"}]}", &error);
  g_assert_no_error (error);

  state = pd_plan_store_snapshot (store);
  render = pd_plan_render_full (state);
  g_assert_nonnull (strstr (render, "password=hunter2"));
  out = redact (render, &n);
  g_assert_cmpuint (n, ==, 4);
  g_assert_null (strstr (out, "hunter2"));
  g_assert_null (strstr (out, "abcdef0123456789"));
  g_assert_null (strstr (out, "sk-ant-"));

  parsed = pd_plan_parse (out, 12, &error);
  g_assert_no_error (error);
  g_assert_nonnull (parsed);
  g_assert_cmpuint (parsed->steps->len, ==, 2);
  g_assert_cmpstr (((PdPlanStep *) g_ptr_array_index (parsed->steps, 0))->note, ==, "password=[REDACTED]");
}

/* Found (tried as an attacker would): a model that had seen the key wrote
 * it into a call's arguments in \u escapes; the arguments are a string
 * holding JSON, whose text does not show the key, and it was stored so. */
static void
test_escaped_in_arguments (void)
{
  const char *key = "plain.Key~With-NoKnownShape42";
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonNode) redacted = NULL;
  g_autofree char *stored = NULL;
  g_autoptr(JsonNode) arguments = NULL;
  g_autoptr(GString) escaped = g_string_new (NULL);
  g_autofree char *message = NULL;
  guint n = 0;

  pd_secret_text_register (key);
  for (const char *p = key; *p; p++)
    g_string_append_printf (escaped, "\\\\u%04x", (guint) *p);
  message = g_strdup_printf ("{\"role\": \"assistant\", \"tool_calls\": [{\"id\": \"c1\", \"function\": "
                             "{\"name\": \"write_file\", \"arguments\": \"{\\\"path\\\": \\\"a\\\", "
                             "\\\"content\\\": \\\"%s and sk-proj-\\\\u0041bcdefghijklmnopqrstuvwx\\\"}\"}}]}",
                             escaped->str);
  node = json_from_string (message, NULL);
  g_assert_nonnull (node);
  redacted = pd_redact_node (node, &n);
  g_assert_cmpuint (n, ==, 2);
  stored = json_to_string (redacted, FALSE);
  g_assert_null (strstr (stored, "\\u0070"));
  arguments = json_from_string (json_object_get_string_member (
    json_object_get_object_member (json_array_get_object_element (
      json_object_get_array_member (json_node_get_object (redacted), "tool_calls"), 0), "function"), "arguments"), NULL);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (arguments), "content"), ==,
                   "[REDACTED] and [REDACTED]");
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (arguments), "path"), ==, "a");

  /* Arguments cut short (no JSON document) and a key as a member's name
   * (both stored unmasked, tried as an attacker would). */
  {
    g_autoptr(JsonNode) cut = json_from_string ("{\"arguments\": \"{\\\"content\\\": \\\"\\\\u0073k-proj-"
                                                "Ab3xYz9QwErTy7UiOp1234567890\"}", NULL);
    g_autoptr(JsonNode) named = json_from_string ("{\"arguments\": \"{\\\"path\\\": \\\"m\\\", "
                                                  "\\\"\\\\u0073k-proj-Ab3xYz9QwErTy7UiOp1234567890\\\": 1}\"}",
                                                  NULL);
    g_autoptr(JsonNode) cut_clean = pd_redact_node (cut, &n);
    g_autoptr(JsonNode) named_clean = NULL;
    const char *text = json_object_get_string_member (json_node_get_object (cut_clean), "arguments");

    g_assert_cmpuint (n, ==, 1);
    g_assert_null (strstr (text, "Ab3xYz9QwErTy7UiOp"));
    g_assert_nonnull (strstr (text, "[REDACTED]"));
    named_clean = pd_redact_node (named, &n);
    text = json_object_get_string_member (json_node_get_object (named_clean), "arguments");
    g_assert_cmpuint (n, ==, 1);
    g_assert_null (strstr (text, "Ab3xYz9QwErTy7UiOp"));
  }

  /* Arguments with nothing to redact stay byte for byte. */
  {
    g_autoptr(JsonNode) plain = json_from_string ("{\"arguments\": \"{ \\\"path\\\" : \\\"\\\\u0061\\\" }\"}", NULL);
    g_autoptr(JsonNode) same = pd_redact_node (plain, &n);

    g_assert_cmpuint (n, ==, 0);
    g_assert_cmpstr (json_object_get_string_member (json_node_get_object (same), "arguments"), ==,
                     "{ \"path\" : \"\\u0061\" }");
  }
}

/* JSON text redacted a string at a time (tried as an attacker would): a
 * plan's state redacted as one text let the quote opened in one step's
 * title ("PGPASSWORD='see vault") take every step up to the next quote,
 * and the plan was stored with one step.  Numbers, keys and the other
 * strings stay as they were; text that is no JSON is redacted as text. */
static void
test_json_values (void)
{
  const char *plan =
    "{\"version\":3,\"steps\":[{\"id\":\"s1\",\"title\":\"Export PGPASSWORD='see vault\",\"status\":\"pending\"},"
    "{\"id\":\"s2\",\"title\":\"Delete the staging database\",\"status\":\"pending\"},"
    "{\"id\":\"s3\",\"title\":\"Check it's green\",\"status\":\"done\",\"n\":-12,\"ok\":true,\"z\":null}]}";
  g_autofree char *out = NULL;
  guint n = 99;

  out = pd_redact_json (plan, &n);
  g_assert_cmpstr (out, ==,
    "{\"version\":3,\"steps\":[{\"id\":\"s1\",\"title\":\"Export PGPASSWORD='[REDACTED] vault\",\"status\":\"pending\"},"
    "{\"id\":\"s2\",\"title\":\"Delete the staging database\",\"status\":\"pending\"},"
    "{\"id\":\"s3\",\"title\":\"Check it's green\",\"status\":\"done\",\"n\":-12,\"ok\":true,\"z\":null}]}");
  g_assert_cmpuint (n, ==, 1);

  /* An event quoting a call's arguments, themselves JSON in a string; a
   * secret in a member's name and one under a secret's name: each
   * counted once. */
  {
    g_autofree char *event = pd_redact_json (
      "{\"type\":\"tool_call\",\"arguments\":\"{\\\"command\\\":\\\"PGPASSWORD=hunter2 psql app\\\"}\","
      "\"env\":{\"DB_PASSWORD\":\"x\"},\"sk-proj-AbCdEfGhIjKlMnOpQrStUvWx_yz\":1}", &n);

    g_assert_cmpstr (event, ==,
      "{\"type\":\"tool_call\",\"arguments\":\"{\\\"command\\\":\\\"PGPASSWORD=[REDACTED] psql app\\\"}\","
      "\"env\":{\"DB_PASSWORD\":\"[REDACTED]\"},\"[REDACTED]\":1}");
    g_assert_cmpuint (n, ==, 3);
  }

  /* Nothing to redact: the same document, none counted. */
  {
    g_autofree char *same = pd_redact_json ("{\"n\":0,\"list\":[1,2.5,\"a\"]}", &n);

    g_assert_cmpstr (same, ==, "{\"n\":0,\"list\":[1,2.5,\"a\"]}");
    g_assert_cmpuint (n, ==, 0);
  }

  /* Not JSON (cut short, plain text, empty): redacted as text. */
  {
    const char *texts[][2] = {
      { "{\"args\":\"Bearer abcdefghijklmnop", "{\"args\":\"Bearer [REDACTED]" },
      { "password=hunter2 and more", "password=[REDACTED] and more" },
      { "", "" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
      {
        g_autofree char *fallback = pd_redact_json (texts[i][0], &n);

        g_assert_cmpstr (fallback, ==, texts[i][1]);
        g_assert_cmpuint (n, ==, texts[i][0][0] != '\0' ? 1 : 0);
      }
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/redact/json-stays-valid", test_json_stays_valid);
  g_test_add_func ("/pd/redact/node-copy", test_node_copy);
  g_test_add_func ("/pd/redact/node-member-names", test_node_member_names);
  g_test_add_func ("/pd/redact/plan-render-parses", test_plan_render_parses);
  g_test_add_func ("/pd/redact/escaped-in-arguments", test_escaped_in_arguments);
  g_test_add_func ("/pd/redact/json-values", test_json_values);

  return g_test_run ();
}
