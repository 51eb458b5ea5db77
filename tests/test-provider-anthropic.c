/* test-provider-anthropic.c: the Anthropic Messages provider against a real
 * HTTP server: request conversion from the OpenAI shapes, the typed event
 * stream back to them, and the failures.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-provider-anthropic"

#include "config.h"

#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "pd-anthropic-provider.h"
#include "pd-http-provider-private.h"
#include "pd-test-server.h"

#define API_KEY "sk-ant-test-0123456789"

typedef ProviderFixture Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->server = test_server_new ();
  provider_fixture_start (f, PD_HTTP_PROVIDER (pd_anthropic_provider_new (f->server->base_url, API_KEY)),
                          "claude-test", "[{\"role\":\"user\",\"content\":\"Say hello\"}]");
}

#define EV(name, json) "event: " name "\n" "data: " json "\n\n"

#define SSE_TEXT \
  EV ("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-test\",\"stop_reason\":null,\"usage\":{\"input_tokens\":25,\"cache_read_input_tokens\":5,\"output_tokens\":1}}}") \
  EV ("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}") \
  EV ("ping", "{\"type\":\"ping\"}") \
  EV ("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}") \
  EV ("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\" there\"}}") \
  EV ("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}") \
  EV ("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":15}}") \
  EV ("message_stop", "{\"type\":\"message_stop\"}")

static void
test_text (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;
  g_autoptr(JsonNode) root = NULL;
  TestRequest *request;
  JsonObject *body;
  JsonArray *messages;

  test_server_push (f->server, test_reply_stream ("text/event-stream", SSE_TEXT, 11, TRUE));

  response = chat (f, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (response->content, ==, "Hello there");
  g_assert_cmpstr (f->deltas.text->str, ==, "Hello there");
  g_assert_cmpstr (response->finish_reason, ==, "stop");
  g_assert_cmpint (response->input_tokens, ==, 30);
  g_assert_cmpint (response->output_tokens, ==, 15);
  g_assert_cmpuint (json_array_get_length (response->tool_calls), ==, 0);

  request = test_server_request (f->server, 0);
  g_assert_cmpstr (request->path, ==, "/v1/messages");
  g_assert_cmpstr (g_hash_table_lookup (request->headers, "x-api-key"), ==, API_KEY);
  g_assert_cmpstr (g_hash_table_lookup (request->headers, "anthropic-version"), ==, "2023-06-01");
  g_assert_null (g_hash_table_lookup (request->headers, "authorization"));

  body = test_request_json (request, &root);
  g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, "claude-test");
  g_assert_true (json_object_get_boolean_member (body, "stream"));
  g_assert_cmpint (json_object_get_int_member (body, "max_tokens"), ==, 4096);
  g_assert_false (json_object_has_member (body, "system"));
  g_assert_false (json_object_has_member (body, "tools"));
  messages = json_object_get_array_member (body, "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 1);
}

static void
test_request_conversion (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) expected = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *body;
  JsonObject *tool;

  g_clear_pointer (&f->messages, json_array_unref);
  f->messages = json_array_from_text (
    "[{\"role\":\"system\",\"content\":\"You are an agent.\"},"
    " {\"role\":\"system\",\"content\":\"[Current plan: none]\"},"
    " {\"role\":\"user\",\"content\":\"Fix the bug\"},"
    " {\"role\":\"assistant\",\"content\":\"Looking.\",\"tool_calls\":["
    "   {\"id\":\"tu_1\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"a.c\\\"}\"}},"
    "   {\"id\":\"tu_2\",\"type\":\"function\",\"function\":{\"name\":\"ls\",\"arguments\":\"\"}}]},"
    " {\"role\":\"tool\",\"tool_call_id\":\"tu_1\",\"content\":\"int main;\"},"
    " {\"role\":\"tool\",\"tool_call_id\":\"tu_2\",\"content\":\"a.c\"},"
    " {\"role\":\"user\",\"content\":\"Go on\"},"
    " {\"role\":\"assistant\",\"content\":null,\"tool_calls\":["
    "   {\"id\":\"tu_3\",\"type\":\"function\",\"function\":{\"name\":\"ls\",\"arguments\":\"{}\"}}]}]");
  f->request.messages = f->messages;
  f->tools = json_array_from_text ("[{\"type\":\"function\",\"function\":{\"name\":\"read_file\","
                                   "\"description\":\"Read a file\",\"parameters\":{\"type\":\"object\","
                                   "\"properties\":{\"path\":{\"type\":\"string\"}}}}},"
                                   "{\"type\":\"function\",\"function\":{\"name\":\"ls\"}}]");
  f->request.tools = f->tools;
  f->request.max_tokens = 100;
  f->request.temperature = 0;

  test_server_push (f->server, test_reply_stream ("text/event-stream", SSE_TEXT, 0, TRUE));
  response = chat (f, NULL, &error);
  g_assert_no_error (error);

  body = test_request_json (test_server_request (f->server, 0), &root);
  g_assert_cmpstr (json_object_get_string_member (body, "system"), ==,
                   "You are an agent.\n\n[Current plan: none]");
  g_assert_cmpint (json_object_get_int_member (body, "max_tokens"), ==, 100);
  g_assert_cmpfloat (json_object_get_double_member (body, "temperature"), ==, 0.0);

  json_parser_load_from_data (parser,
    "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Fix the bug\"}]},"
    " {\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Looking.\"},"
    "   {\"type\":\"tool_use\",\"id\":\"tu_1\",\"name\":\"read_file\",\"input\":{\"path\":\"a.c\"}},"
    "   {\"type\":\"tool_use\",\"id\":\"tu_2\",\"name\":\"ls\",\"input\":{}}]},"
    " {\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"tu_1\",\"content\":\"int main;\"},"
    "   {\"type\":\"tool_result\",\"tool_use_id\":\"tu_2\",\"content\":\"a.c\"},"
    "   {\"type\":\"text\",\"text\":\"Go on\"}]},"
    " {\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"tu_3\",\"name\":\"ls\",\"input\":{}}]}]",
    -1, &error);
  g_assert_no_error (error);
  expected = json_parser_steal_root (parser);
  if (!json_node_equal (json_object_get_member (body, "messages"), expected))
    {
      g_autofree char *got = json_to_string (json_object_get_member (body, "messages"), TRUE);
      g_error ("converted messages differ:\n%s", got);
    }

  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (body, "tools")), ==, 2);
  tool = json_array_get_object_element (json_object_get_array_member (body, "tools"), 0);
  g_assert_cmpstr (json_object_get_string_member (tool, "name"), ==, "read_file");
  g_assert_cmpstr (json_object_get_string_member (tool, "description"), ==, "Read a file");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (tool, "input_schema"), "type"),
                   ==, "object");
  g_assert_true (json_object_has_member (json_object_get_object_member (tool, "input_schema"), "properties"));
  tool = json_array_get_object_element (json_object_get_array_member (body, "tools"), 1);
  g_assert_true (json_object_has_member (tool, "input_schema"));
}

#define SSE_TOOLS \
  EV ("message_start", "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":40,\"output_tokens\":1}}}") \
  EV ("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}") \
  EV ("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"Need both files.\"}}") \
  EV ("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"abc\"}}") \
  EV ("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}") \
  EV ("content_block_start", "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}") \
  EV ("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"Reading.\"}}") \
  EV ("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":1}") \
  EV ("content_block_start", "{\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_A\",\"name\":\"read_file\",\"input\":{}}}") \
  EV ("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}") \
  EV ("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"pa\"}}") \
  EV ("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"th\\\":\\\"a.c\\\"}\"}}") \
  EV ("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":2}") \
  EV ("content_block_start", "{\"type\":\"content_block_start\",\"index\":3,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_B\",\"name\":\"ls\",\"input\":{}}}") \
  EV ("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":3}") \
  EV ("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":60}}") \
  EV ("message_stop", "{\"type\":\"message_stop\"}")

static void
test_tool_use (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;

  test_server_push (f->server, test_reply_stream ("text/event-stream", SSE_TOOLS, 13, TRUE));

  response = chat (f, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (response->content, ==, "Reading.");
  g_assert_cmpstr (f->deltas.reasoning->str, ==, "Need both files.");
  g_assert_cmpstr (response->finish_reason, ==, "tool_calls");
  g_assert_cmpint (response->input_tokens, ==, 40);
  g_assert_cmpint (response->output_tokens, ==, 60);

  g_assert_cmpuint (json_array_get_length (response->tool_calls), ==, 2);
  g_assert_cmpstr (call_string (response, 0, "id"), ==, "toolu_A");
  g_assert_cmpstr (call_string (response, 0, "type"), ==, "function");
  g_assert_cmpstr (call_string (response, 0, "name"), ==, "read_file");
  g_assert_cmpstr (call_string (response, 0, "arguments"), ==, "{\"path\":\"a.c\"}");
  g_assert_cmpstr (call_string (response, 1, "id"), ==, "toolu_B");
  g_assert_cmpstr (call_string (response, 1, "arguments"), ==, "{}");

  g_assert_cmpuint (f->deltas.tool_names->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (f->deltas.tool_names, 1), ==, "ls");
}

static void
expect_error (Fixture          *f,
              PdProviderError   code,
              const char       *fragment)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;

  response = chat (f, NULL, &error);
  g_assert_null (response);
  g_assert_error (error, PD_PROVIDER_ERROR, (gint) code);
  g_assert_true (g_str_has_prefix (error->message, "anthropic: "));
  if (fragment != NULL && strstr (error->message, fragment) == NULL)
    g_error ("“%s” not in the error message “%s”", fragment, error->message);
  g_assert_null (strstr (error->message, API_KEY));
}

#define SSE_OVERLOADED_MIDSTREAM \
  EV ("message_start", "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}") \
  EV ("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}") \
  EV ("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}") \
  EV ("error", "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}")

typedef struct
{
  guint  n;
  guint  attempt;
  guint  max_attempts;
  guint  delay_ms;
  guint  status;
  char  *reason;
} RetryNotes;

static void
note_retry (guint       attempt,
            guint       max_attempts,
            guint       delay_ms,
            guint       status,
            const char *reason,
            gpointer    user_data)
{
  RetryNotes *notes = user_data;

  notes->n++;
  notes->attempt = attempt;
  notes->max_attempts = max_attempts;
  notes->delay_ms = delay_ms;
  notes->status = status;
  g_free (notes->reason);
  notes->reason = g_strdup (reason);
}

/* An overload in the middle of the answer is retried like the same
 * overload as a status: the answer starts over, and the caller is told. */
static void
test_error_event (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;
  RetryNotes notes = { 0 };

  f->request.on_retry = note_retry;
  f->request.retry_data = &notes;
  test_server_push (f->server, test_reply_stream ("text/event-stream", SSE_OVERLOADED_MIDSTREAM, 0, TRUE));
  test_server_push (f->server, test_reply_stream ("text/event-stream", SSE_TEXT, 0, TRUE));
  response = chat (f, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (response->content, ==, "Hello there");
  g_assert_cmpuint (test_server_count (f->server), ==, 2);
  g_assert_cmpuint (f->retries.n, ==, 1);
  g_assert_cmpuint (notes.n, ==, 1);
  g_assert_cmpuint (notes.attempt, ==, 2);
  g_assert_cmpuint (notes.max_attempts, ==, 4);
  g_assert_cmpuint (notes.status, ==, 0);
  g_assert_cmpstr (notes.reason, ==, "the server reported an error in the middle of the response: "
                                     "overloaded_error: Overloaded");
  g_clear_pointer (&notes.reason, g_free);

  /* With no retry left: an overload, said so. */
  pd_http_provider_set_max_retries (PD_HTTP_PROVIDER (f->provider), 0);
  test_server_push (f->server, test_reply_stream ("text/event-stream", SSE_OVERLOADED_MIDSTREAM, 0, TRUE));
  expect_error (f, PD_PROVIDER_ERROR_OVERLOADED, "stayed overloaded through 1 attempts");
  g_assert_cmpuint (notes.n, ==, 1);
}

/* 529 and 503 are overloads, retried after the wait the server asks for
 * (retry-after-ms before Retry-After); a 429 of a reached spending limit is
 * not retried at all: no wait lifts it. */
static void
test_overload_waits (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;
  TestReply *reply;
  RetryNotes notes = { 0 };

  f->request.on_retry = note_retry;
  f->request.retry_data = &notes;

  reply = test_reply_plain (529, "application/json",
                            "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}");
  reply->retry_after = g_strdup ("0");
  test_server_push (f->server, reply);
  reply = test_reply_plain (503, "application/json",
                            "{\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"unavailable\"}}");
  reply->retry_after = g_strdup ("9");
  reply->retry_after_ms = g_strdup ("120");
  test_server_push (f->server, reply);
  test_server_push (f->server, test_reply_stream ("text/event-stream", SSE_TEXT, 0, TRUE));

  response = chat (f, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (response->content, ==, "Hello there");
  g_assert_cmpuint (notes.n, ==, 2);
  /* The second wait is the one the 503 asked for, to the millisecond. */
  g_assert_cmpuint (notes.delay_ms, ==, 120);
  g_assert_cmpuint (notes.status, ==, 503);
  g_assert_cmpuint (f->retries.last_delay_ms, ==, 120);
  g_assert_nonnull (strstr (notes.reason, "HTTP 503"));
  g_clear_pointer (&notes.reason, g_free);

  /* Overloaded to the end: named as an overload. */
  pd_http_provider_set_max_retries (PD_HTTP_PROVIDER (f->provider), 1);
  for (guint i = 0; i < 2; i++)
    test_server_push (f->server, test_reply_plain (529, "application/json",
      "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"));
  expect_error (f, PD_PROVIDER_ERROR_OVERLOADED, "overloaded_error: Overloaded");
  g_clear_pointer (&notes.reason, g_free);

  notes.n = 0;
  test_server_push (f->server, test_reply_plain (429, "application/json",
    "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"spend limit\","
    "\"details\":{\"error_code\":\"enforced_spend_limit_reached\"}}}"));
  expect_error (f, PD_PROVIDER_ERROR_RATE_LIMITED, "spending limit");
  g_assert_cmpuint (notes.n, ==, 0);
}

static void
test_malformed (Fixture       *f,
                gconstpointer  data)
{
  TestReply *reply;

  /* Cut before message_stop: the connection drops inside the chunked body. */
  reply = test_reply_stream ("text/event-stream",
    EV ("message_start", "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}")
    EV ("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}")
    "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"ind", 0, TRUE);
  reply->truncate = TRUE;
  test_server_push (f->server, reply);
  expect_error (f, PD_PROVIDER_ERROR_MALFORMED_STREAM, NULL);

  /* A clean end of the body that is not the end of the message. */
  test_server_push (f->server, test_reply_stream ("text/event-stream",
    EV ("message_start", "{\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}"),
    0, FALSE));
  expect_error (f, PD_PROVIDER_ERROR_MALFORMED_STREAM, "no stop_reason");

  /* A delta for a block that never started. */
  test_server_push (f->server, test_reply_stream ("text/event-stream",
    EV ("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":4,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\"}}"),
    0, TRUE));
  expect_error (f, PD_PROVIDER_ERROR_MALFORMED_STREAM, "never started");
}

static void
test_bad_tool_arguments (Fixture       *f,
                         gconstpointer  data)
{
  test_server_push (f->server, test_reply_stream ("text/event-stream",
    EV ("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"edit\",\"input\":{}}}")
    EV ("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"file\\\": \"}}")
    EV ("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":0}")
    EV ("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":9}}")
    EV ("message_stop", "{\"type\":\"message_stop\"}"),
    0, TRUE));
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(PdProviderResponse) response = chat (f, NULL, &error);

    /* An answer still: its cost is known, and none of its calls can run. */
    g_assert_no_error (error);
    g_assert_nonnull (strstr (response->rejected, "“edit”"));
    g_assert_cmpuint (json_array_get_length (response->tool_calls), ==, 0);
    g_assert_cmpint (response->output_tokens, ==, 9);
  }
}

/* The real recording of a tool input cut by max_tokens: not arguments that
 * are wrong, an answer cut off, and named so. */
static void
test_cut_tool_call (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "fixtures", "anthropic",
                                                 "incomplete_partial_json_response.sse", NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  test_server_push (f->server, test_reply_stream ("text/event-stream", text, 23, TRUE));

  response = chat (f, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (response->finish_reason, ==, "length");
  g_assert_cmpstr (response->stop_reason, ==, "max_tokens");
  g_assert_cmpstr (response->cut_tool, ==, "make_file");
  g_assert_null (response->rejected);
  g_assert_cmpuint (json_array_get_length (response->tool_calls), ==, 0);
  g_assert_cmpstr (response->content, ==,
                   "I'll create a comprehensive tax guide for someone with multiple W2s and save it in a file "
                   "called taxes.txt. Let me do that for you now.");
  g_assert_cmpint (response->input_tokens, ==, 450);
  g_assert_cmpint (response->output_tokens, ==, 124);
}

static void
test_retry_and_auth (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;

  test_server_push (f->server, test_reply_plain (529, "application/json",
    "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"));
  test_server_push (f->server, test_reply_stream ("text/event-stream", SSE_TEXT, 0, TRUE));
  response = chat (f, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (response->content, ==, "Hello there");
  g_assert_cmpuint (test_server_count (f->server), ==, 2);
  g_assert_cmpuint (f->retries.n, ==, 1);

  test_server_push (f->server, test_reply_plain (401, "application/json",
    "{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"}}"));
  /* No reply is scripted after it: a retry would get a 500 and end as SERVER. */
  expect_error (f, PD_PROVIDER_ERROR_AUTH, "authentication_error: invalid x-api-key");
  g_assert_cmpuint (test_server_count (f->server), ==, 3);

  test_server_push (f->server, test_reply_plain (400, "application/json",
    "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"messages: roles must alternate\"}}"));
  expect_error (f, PD_PROVIDER_ERROR_HTTP, "roles must alternate");
  g_assert_cmpuint (f->retries.n, ==, 1);
}

static void
test_cancel (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;
  TestReply *reply = test_reply_stream ("text/event-stream",
    EV ("content_block_start", "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}")
    EV ("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}"),
    0, TRUE);

  /* The server holds the connection until the client leaves: the call
   * returns only because the cancel ends it. */
  reply->hang = TRUE;
  reply->truncate = TRUE;
  test_server_push (f->server, reply);
  f->deltas.cancel_on_text = cancellable;

  response = chat (f, cancellable, &error);
  g_assert_null (response);
  g_assert_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_CANCELLED);
  g_assert_cmpstr (error->message, ==, "anthropic: the request was cancelled");
  g_assert_cmpstr (f->deltas.text->str, ==, "Hi");
}

static void
test_json_body (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;

  test_server_push (f->server, test_reply_plain (200, "application/json",
    "{\"id\":\"msg\",\"type\":\"message\",\"role\":\"assistant\",\"content\":["
    "{\"type\":\"text\",\"text\":\"Sure.\"},"
    "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"ls\",\"input\":{\"dir\":\"src\"}}],"
    "\"stop_reason\":\"tool_use\",\"usage\":{\"input_tokens\":3,\"output_tokens\":4}}"));

  response = chat (f, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (response->content, ==, "Sure.");
  g_assert_cmpstr (response->finish_reason, ==, "tool_calls");
  g_assert_cmpstr (call_string (response, 0, "arguments"), ==, "{\"dir\":\"src\"}");
  g_assert_cmpint (response->output_tokens, ==, 4);
}

static void
test_config_subprocess (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProvider) provider = NULL;
  g_autoptr(PdProviderResponse) response = NULL;
  g_autoptr(JsonArray) messages = json_array_from_text ("[{\"role\":\"user\",\"content\":\"x\"}]");
  PdProviderRequest request = { "m", messages, NULL, 0, -1 };

  g_unsetenv ("ANTHROPIC_BASE_URL");
  g_unsetenv ("ANTHROPIC_API_KEY");
  provider = pd_provider_new_for_name ("anthropic", NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pd_provider_get_name (provider), ==, "anthropic");
  g_assert_cmpstr (pd_http_provider_get_base_url (PD_HTTP_PROVIDER (provider)), ==,
                   "https://api.anthropic.com");

  response = pd_provider_chat (provider, &request, NULL, NULL, NULL, &error);
  g_assert_null (response);
  g_assert_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG);
  g_assert_nonnull (strstr (error->message, "ANTHROPIC_API_KEY"));
  g_clear_error (&error);
  g_clear_object (&provider);

  g_setenv ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9", TRUE);
  provider = PD_PROVIDER (pd_anthropic_provider_new (NULL, NULL));
  g_assert_cmpstr (pd_http_provider_get_base_url (PD_HTTP_PROVIDER (provider)), ==,
                   "http://127.0.0.1:9");
}

static void
test_config (void)
{
  /* In a fresh process: it changes the environment. */
  g_test_trap_subprocess ("/pd/provider/anthropic/config/subprocess", 10 * G_USEC_PER_SEC, 0);
  g_test_trap_assert_passed ();
}

/* Token counts beyond reason (fuzzing: doubles beyond gint64, and three
 * counts whose sum overflows) are bounded, never undefined behaviour. */
static void
test_huge_usage (void)
{
  static const char body[] =
    "event: message_start\n"
    "data: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":9000000000000000000,"
    "\"cache_creation_input_tokens\":9000000000000000000,\"cache_read_input_tokens\":9000000000000000000,"
    "\"output_tokens\":1e300}}}\n\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"Hi\"}}\n\n"
    "event: message_delta\n"
    "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n"
    "event: message_stop\n"
    "data: {\"type\":\"message_stop\"}\n\n";
  g_autoptr(PdAnthropicProvider) provider = pd_anthropic_provider_new ("http://127.0.0.1:9", NULL);
  g_autoptr(GInputStream) input = g_memory_input_stream_new_from_data (body, sizeof body - 1, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;

  response = _pd_http_provider_read_response (PD_HTTP_PROVIDER (provider), input, FALSE, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (response);
  g_assert_cmpstr (response->content, ==, "Hi");
  g_assert_cmpint (response->input_tokens, ==, 3 * (gint64) G_MAXINT32);
}

int
main (int   argc,
      char *argv[])
{
  test_unset_proxies ();
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/pd/provider/anthropic/" path, Fixture, NULL, fixture_setup, func, provider_fixture_teardown)

  ADD ("text", test_text);
  ADD ("request-conversion", test_request_conversion);
  ADD ("tool-use", test_tool_use);
  ADD ("json-body", test_json_body);
  ADD ("error-event", test_error_event);
  ADD ("overload-waits", test_overload_waits);
  ADD ("malformed", test_malformed);
  ADD ("bad-tool-arguments", test_bad_tool_arguments);
  ADD ("cut-tool-call", test_cut_tool_call);
  ADD ("retry-and-auth", test_retry_and_auth);
  ADD ("cancel", test_cancel);
#undef ADD

  g_test_add_func ("/pd/provider/anthropic/config", test_config);
  g_test_add_func ("/pd/provider/anthropic/huge-usage", test_huge_usage);
  g_test_add_func ("/pd/provider/anthropic/config/subprocess", test_config_subprocess);

  return g_test_run ();
}
