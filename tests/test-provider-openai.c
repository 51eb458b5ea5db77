/* test-provider-openai.c: the OpenAI-compatible provider against a real
 * HTTP server that replays recorded-style streams.
 *
 * Streams are cut into small pieces written one by one, so lines, events and
 * JSON values arrive split across reads the way real servers deliver them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-provider-openai"

#include "config.h"

#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "pd-openai-provider.h"
#include "pd-http-provider-private.h"
#include "pd-test-server.h"

#define API_KEY "sk-test-0123456789abcdef"

typedef ProviderFixture Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *base = NULL;

  f->server = test_server_new ();
  base = g_strconcat (f->server->base_url, "/v1", NULL);
  provider_fixture_start (f, PD_HTTP_PROVIDER (pd_openai_provider_new (base, API_KEY)), "test-model",
                          "[{\"role\":\"system\",\"content\":\"Be brief.\"},"
                          "{\"role\":\"user\",\"content\":\"Say hello\"}]");
}

#define SSE_TEXT \
  ": keep-alive comment\r\n" \
  "\r\n" \
  "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\r\n\r\n" \
  "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\r\n" \
  "data: \"delta\":{\"content\":\"Hello\"}}]}\r\n\r\n" \
  "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\", wörld\"}}]}\n\n" \
  "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"!\"},\"finish_reason\":null}]}\r\r" \
  "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n" \
  "data: {\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":4,\"total_tokens\":16}}\n\n" \
  "data: [DONE]\n\n"

static void
test_text (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) sent_messages = NULL;
  g_autoptr(JsonNode) expected_messages = NULL;
  TestRequest *request;
  JsonObject *body;

  /* 7-byte pieces: every line, the \r\n pairs and the UTF-8 "ö" get cut. */
  test_server_push (f->server, test_reply_stream ("text/event-stream", SSE_TEXT, 7, TRUE));

  response = chat (f, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (response);

  g_assert_cmpstr (response->content, ==, "Hello, wörld!");
  g_assert_cmpstr (f->deltas.text->str, ==, "Hello, wörld!");
  g_assert_cmpuint (f->deltas.n_text, ==, 3);
  g_assert_cmpstr (response->finish_reason, ==, "stop");
  g_assert_cmpuint (json_array_get_length (response->tool_calls), ==, 0);
  g_assert_cmpint (response->input_tokens, ==, 12);
  g_assert_cmpint (response->output_tokens, ==, 4);

  /* What the server received. */
  g_assert_cmpuint (test_server_count (f->server), ==, 1);
  request = test_server_request (f->server, 0);
  g_assert_cmpstr (request->path, ==, "/v1/chat/completions");
  g_assert_cmpstr (g_hash_table_lookup (request->headers, "authorization"), ==, "Bearer " API_KEY);
  g_assert_true (g_str_has_prefix (g_hash_table_lookup (request->headers, "user-agent"), "plandeck/"));
  g_assert_true (g_str_has_prefix (g_hash_table_lookup (request->headers, "content-type"), "application/json"));

  body = test_request_json (request, &root);
  g_assert_cmpstr (json_object_get_string_member (body, "model"), ==, "test-model");
  g_assert_true (json_object_get_boolean_member (body, "stream"));
  g_assert_true (json_object_get_boolean_member (json_object_get_object_member (body, "stream_options"),
                                                 "include_usage"));
  g_assert_false (json_object_has_member (body, "tools"));
  g_assert_false (json_object_has_member (body, "tool_choice"));
  g_assert_false (json_object_has_member (body, "temperature"));
  g_assert_false (json_object_has_member (body, "max_tokens"));
  sent_messages = json_node_copy (json_object_get_member (body, "messages"));
  expected_messages = json_node_init_array (json_node_alloc (), f->messages);
  g_assert_true (json_node_equal (sent_messages, expected_messages));
}

#define SSE_TOOLS \
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Let me look.\"}}]}\n\n" \
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_a\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"\"}}]}}]}\n\n" \
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"pa\"}}]}}]}\n\n" \
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":\"call_b\",\"type\":\"function\",\"function\":{\"name\":\"grep\",\"arguments\":\"{\\\"pattern\\\":\"}}]}}]}\n\n" \
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"th\\\": \\\"a.c\"}}]}}]}\n\n" \
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1,\"function\":{\"arguments\":\" \\\"TODO\\\"}\"}}]}}]}\n\n" \
  "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"}\"}}]}}]}\n\n" \
  "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n" \
  "data: [DONE]\n\n"

static void
test_tool_calls (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;
  g_autoptr(JsonNode) root = NULL;
  JsonObject *body;
  JsonArray *tools;

  f->tools = json_array_from_text ("[{\"type\":\"function\",\"function\":{\"name\":\"read_file\","
                                   "\"description\":\"Read a file\",\"parameters\":{\"type\":\"object\","
                                   "\"properties\":{\"path\":{\"type\":\"string\"}}}}}]");
  f->request.tools = f->tools;
  f->request.max_tokens = 256;
  f->request.temperature = 0.5;

  test_server_push (f->server, test_reply_stream ("text/event-stream", SSE_TOOLS, 5, TRUE));

  response = chat (f, NULL, &error);
  g_assert_no_error (error);

  g_assert_cmpstr (response->content, ==, "Let me look.");
  g_assert_cmpstr (response->finish_reason, ==, "tool_calls");
  g_assert_cmpuint (json_array_get_length (response->tool_calls), ==, 2);
  g_assert_cmpstr (call_string (response, 0, "id"), ==, "call_a");
  g_assert_cmpstr (call_string (response, 0, "type"), ==, "function");
  g_assert_cmpstr (call_string (response, 0, "name"), ==, "read_file");
  g_assert_cmpstr (call_string (response, 0, "arguments"), ==, "{\"path\": \"a.c\"}");
  g_assert_cmpstr (call_string (response, 1, "id"), ==, "call_b");
  g_assert_cmpstr (call_string (response, 1, "name"), ==, "grep");
  g_assert_cmpstr (call_string (response, 1, "arguments"), ==, "{\"pattern\": \"TODO\"}");

  /* Each tool name is announced once, as soon as it is known. */
  g_assert_cmpuint (f->deltas.tool_names->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (f->deltas.tool_names, 0), ==, "read_file");
  g_assert_cmpstr (g_ptr_array_index (f->deltas.tool_names, 1), ==, "grep");
  /* Usage was not sent: unknown, not zero. */
  g_assert_cmpint (response->input_tokens, ==, -1);

  body = test_request_json (test_server_request (f->server, 0), &root);
  tools = json_object_get_array_member (body, "tools");
  g_assert_cmpuint (json_array_get_length (tools), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (
                     json_array_get_object_element (tools, 0), "function"), "name"), ==, "read_file");
  g_assert_cmpstr (json_object_get_string_member (body, "tool_choice"), ==, "auto");
  g_assert_cmpint (json_object_get_int_member (body, "max_tokens"), ==, 256);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (body, "temperature"), 0.5, 1e-9);

  /* OpenAI's reasoning models take the limit under its other name. */
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(PdProviderResponse) again = NULL;
      g_autoptr(JsonNode) again_root = NULL;
      JsonObject *again_body;

      f->request.model = i == 0 ? "o3-mini" : "openai/gpt-5";
      test_server_push (f->server, test_reply_stream ("text/event-stream", SSE_TOOLS, 0, TRUE));
      again = chat (f, NULL, &error);
      g_assert_no_error (error);
      again_body = test_request_json (test_server_request (f->server, 1 + i), &again_root);
      g_assert_false (json_object_has_member (again_body, "max_tokens"));
      g_assert_cmpint (json_object_get_int_member (again_body, "max_completion_tokens"), ==, 256);
    }
}

static void
test_reasoning (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;

  test_server_push (f->server, test_reply_stream ("text/event-stream",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning_content\":\"Think\"}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"ing...\"}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Answer\"},\"finish_reason\":\"stop\"}]}\n\n"
    "data: [DONE]\n\n", 0, TRUE));

  response = chat (f, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (f->deltas.reasoning->str, ==, "Thinking...");
  g_assert_cmpstr (response->content, ==, "Answer");
  g_assert_cmpstr (f->deltas.text->str, ==, "Answer");
}

static void
test_json_body (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;

  test_server_push (f->server, test_reply_plain (200, "application/json",
    "{\"id\":\"x\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":"
    "{\"role\":\"assistant\",\"content\":\"Plain answer\",\"tool_calls\":[{\"id\":\"t1\",\"type\":\"function\","
    "\"function\":{\"name\":\"ls\",\"arguments\":\"{\\\"dir\\\":\\\".\\\"}\"}}]},"
    "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":7}}"));

  response = chat (f, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (response->content, ==, "Plain answer");
  g_assert_cmpstr (f->deltas.text->str, ==, "Plain answer");
  g_assert_cmpuint (json_array_get_length (response->tool_calls), ==, 1);
  g_assert_cmpstr (call_string (response, 0, "id"), ==, "t1");
  g_assert_cmpstr (call_string (response, 0, "arguments"), ==, "{\"dir\":\".\"}");
  /* The message ends in a tool call whatever the server's word for it. */
  g_assert_cmpstr (response->finish_reason, ==, "tool_calls");
  g_assert_cmpint (response->input_tokens, ==, 5);
  g_assert_cmpint (response->output_tokens, ==, 7);
}

static void
test_missing_ids (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;

  /* No index, no id, and empty arguments: what some local servers send. */
  test_server_push (f->server, test_reply_stream ("text/event-stream",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"function\":{\"name\":\"now\",\"arguments\":\"\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n"
    "data: [DONE]\n\n", 0, TRUE));

  response = chat (f, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (response->tool_calls), ==, 1);
  g_assert_cmpstr (call_string (response, 0, "id"), ==, "call_1");
  g_assert_cmpstr (call_string (response, 0, "name"), ==, "now");
  g_assert_cmpstr (call_string (response, 0, "arguments"), ==, "{}");
  g_assert_cmpstr (response->finish_reason, ==, "tool_calls");
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
  g_assert_true (g_str_has_prefix (error->message, "openai: "));
  if (fragment != NULL && strstr (error->message, fragment) == NULL)
    g_error ("“%s” not in the error message “%s”", fragment, error->message);
  /* The key never appears in what we report. */
  g_assert_null (strstr (error->message, API_KEY));
}

/* An answer whose tool calls cannot be used is still an answer: what it
 * cost is known, and rejected says why none of its calls can run. */
static void
expect_rejected (Fixture    *f,
                 const char *fragment)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;

  response = chat (f, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (response->rejected);
  g_assert_nonnull (strstr (response->rejected, fragment));
  g_assert_null (response->cut_tool);
  g_assert_cmpuint (json_array_get_length (response->tool_calls), ==, 0);
  g_assert_cmpstr (response->finish_reason, ==, "tool_calls");
}

static void
test_malformed_garbage (Fixture       *f,
                        gconstpointer  data)
{
  test_server_push (f->server, test_reply_stream ("text/event-stream",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n"
    "this is not an event stream\n\n"
    "data: [DONE]\n\n", 4, TRUE));
  expect_error (f, PD_PROVIDER_ERROR_MALFORMED_STREAM, "this is not an event stream");
  /* What arrived before the bad line was streamed, so nothing is lost. */
  g_assert_cmpstr (f->deltas.text->str, ==, "Hi");
}

static void
test_malformed_truncated_json (Fixture       *f,
                               gconstpointer  data)
{
  test_server_push (f->server, test_reply_stream ("text/event-stream",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"\n\n"
    "data: [DONE]\n\n", 0, TRUE));
  expect_error (f, PD_PROVIDER_ERROR_MALFORMED_STREAM, "not a JSON object");
}

static void
test_malformed_closed_mid_stream (Fixture       *f,
                                  gconstpointer  data)
{
  TestReply *reply = test_reply_stream ("text/event-stream",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"del", 0, TRUE);

  /* The chunked body never ends: the connection drops. */
  reply->truncate = TRUE;
  test_server_push (f->server, reply);
  expect_error (f, PD_PROVIDER_ERROR_MALFORMED_STREAM, NULL);
  g_assert_cmpuint (test_server_count (f->server), ==, 1);
}

static void
test_malformed_eof_without_end (Fixture       *f,
                                gconstpointer  data)
{
  /* A body that ends with the connection, cleanly, but before the answer
   * did: neither finish_reason nor [DONE]. */
  test_server_push (f->server, test_reply_stream ("text/event-stream",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n", 0, FALSE));
  expect_error (f, PD_PROVIDER_ERROR_MALFORMED_STREAM, "ended before the response was complete");
}

static void
test_malformed_line_cap (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GString) huge = g_string_new ("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"");
  TestReply *reply;

  g_string_set_size (huge, PD_PROVIDER_MAX_LINE_BYTES + 1024);
  memset (huge->str + 48, 'x', huge->len - 48);
  reply = test_reply_stream ("text/event-stream", huge->str, 256 * 1024, TRUE);
  reply->pause_ms = 0;
  test_server_push (f->server, reply);
  expect_error (f, PD_PROVIDER_ERROR_MALFORMED_STREAM, "longer than");
}

static void
test_stream_error_event (Fixture       *f,
                         gconstpointer  data)
{
  /* Retried whole, and still failing: named as the server's failure. */
  for (guint i = 0; i < 4; i++)
    test_server_push (f->server, test_reply_stream ("text/event-stream",
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n"
      "data: {\"error\":{\"message\":\"model crashed\",\"type\":\"server_error\"}}\n\n", 0, TRUE));
  expect_error (f, PD_PROVIDER_ERROR_SERVER, "model crashed");
  g_assert_cmpuint (test_server_count (f->server), ==, 4);
  g_assert_cmpuint (f->retries.n, ==, 3);
}

static void
test_bad_tool_arguments (Fixture       *f,
                         gconstpointer  data)
{
  test_server_push (f->server, test_reply_stream ("text/event-stream",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"write_file\",\"arguments\":\"{path: oops\"}}]}}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n"
    "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":7}}\n\n"
    "data: [DONE]\n\n", 9, TRUE));
  expect_rejected (f, "“write_file”");

  /* A JSON value that is not an object is refused the same way. */
  test_server_push (f->server, test_reply_stream ("text/event-stream",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"ls\",\"arguments\":\"[1,2]\"}}]}}]}\n\n"
    "data: [DONE]\n\n", 0, TRUE));
  /* Said by its length, never quoted: a key in escapes or cut short in
   * the quote passed every redaction (tried as an attacker would). */
  expect_rejected (f, "(not an object; 5 bytes)");
}

static void
test_retry_server_error (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;

  test_server_push (f->server, test_reply_plain (500, "application/json",
                                                 "{\"error\":{\"message\":\"busy\"}}"));
  test_server_push (f->server, test_reply_stream ("text/event-stream", SSE_TEXT, 0, TRUE));

  response = chat (f, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (response->content, ==, "Hello, wörld!");
  g_assert_cmpuint (test_server_count (f->server), ==, 2);
  g_assert_cmpuint (f->retries.n, ==, 1);
  g_assert_cmpuint (f->retries.last_delay_ms, ==, 10);
}

static void
test_retry_exhausted (Fixture       *f,
                      gconstpointer  data)
{
  pd_http_provider_set_max_retries (PD_HTTP_PROVIDER (f->provider), 2);
  for (guint i = 0; i < 3; i++)
    test_server_push (f->server, test_reply_plain (503, "application/json",
                                                   "{\"error\":{\"message\":\"overloaded\"}}"));

  /* 503 is the server saying it is overloaded. */
  expect_error (f, PD_PROVIDER_ERROR_OVERLOADED, "stayed overloaded through 3 attempts");
  g_assert_cmpuint (test_server_count (f->server), ==, 3);
  g_assert_cmpuint (f->retries.n, ==, 2);
  /* Exponential: 10 ms, then 20 ms. */
  g_assert_cmpuint (f->retries.last_delay_ms, ==, 20);
}

static void
test_rate_limit_retry_after (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;
  TestReply *reply = test_reply_plain (429, "application/json",
                                       "{\"error\":{\"message\":\"slow down\",\"type\":\"rate_limit\"}}");
  gint64 start;

  reply->retry_after = g_strdup ("1");
  test_server_push (f->server, reply);
  test_server_push (f->server, test_reply_stream ("text/event-stream", SSE_TEXT, 0, TRUE));

  start = g_get_monotonic_time ();
  response = chat (f, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (response);
  g_assert_cmpuint (test_server_count (f->server), ==, 2);
  g_assert_cmpuint (f->retries.n, ==, 1);
  /* Retry-After wins over the 10 ms backoff... */
  g_assert_cmpuint (f->retries.last_delay_ms, ==, 1000);
  /* ...and the wait really happened (a lower bound only; sleeping is never early). */
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 900 * 1000);
}

static void
test_rate_limit_exhausted (Fixture       *f,
                           gconstpointer  data)
{
  pd_http_provider_set_max_retries (PD_HTTP_PROVIDER (f->provider), 1);
  test_server_push (f->server, test_reply_plain (429, "application/json", "{\"error\":{\"message\":\"quota\"}}"));
  test_server_push (f->server, test_reply_plain (429, "application/json", "{\"error\":{\"message\":\"quota\"}}"));
  expect_error (f, PD_PROVIDER_ERROR_RATE_LIMITED, "quota");
  g_assert_cmpuint (test_server_count (f->server), ==, 2);
}

static void
test_auth_no_retry (Fixture       *f,
                    gconstpointer  data)
{
  /* A server that echoes the key it was given must not make us print it. */
  test_server_push (f->server, test_reply_plain (401, "application/json",
    "{\"error\":{\"message\":\"Incorrect API key provided: " API_KEY "\",\"type\":\"invalid_request_error\"}}"));
  test_server_push (f->server, test_reply_stream ("text/event-stream", SSE_TEXT, 0, TRUE));

  expect_error (f, PD_PROVIDER_ERROR_AUTH, "Incorrect API key provided: [redacted]");
  g_assert_cmpuint (test_server_count (f->server), ==, 1);
  g_assert_cmpuint (f->retries.n, ==, 0);
}

static void
test_http_error (Fixture       *f,
                 gconstpointer  data)
{
  test_server_push (f->server, test_reply_plain (404, "application/json",
    "{\"error\":{\"message\":\"model 'test-model' not found\"}}"));
  expect_error (f, PD_PROVIDER_ERROR_HTTP, "model 'test-model' not found");
  g_assert_cmpuint (test_server_count (f->server), ==, 1);
}

static void
test_network_error (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(PdOpenAIProvider) provider = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GSocketAddress) bound = NULL;
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autofree char *url = NULL;
  Retries retries = { 0 };

  /* A port that is bound but not listening refuses connections. */
  socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_no_error (error);
  g_socket_bind (socket, any, FALSE, &error);
  g_assert_no_error (error);
  bound = g_socket_get_local_address (socket, &error);
  g_assert_no_error (error);
  url = g_strdup_printf ("http://127.0.0.1:%u/v1",
                         g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));

  provider = pd_openai_provider_new (url, NULL);
  g_object_set (provider, "max-retries", 2, "retry-base-delay-ms", 1, NULL);
  g_signal_connect (provider, "retrying", G_CALLBACK (on_retrying), &retries);

  response = pd_provider_chat (PD_PROVIDER (provider), &f->request, NULL, NULL, NULL, &error);
  g_assert_null (response);
  g_assert_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_NETWORK);
  g_assert_nonnull (strstr (error->message, "after 3 attempts"));
  g_assert_cmpuint (retries.n, ==, 2);
}

static void
test_cancel_mid_stream (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;
  TestReply *reply = test_reply_stream ("text/event-stream",
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n", 0, TRUE);

  /* The server sends one event, then nothing, and keeps the connection. */
  reply->hang = TRUE;
  reply->truncate = TRUE;
  test_server_push (f->server, reply);
  f->deltas.cancel_on_text = cancellable;

  /* The server holds the connection until the client leaves: the call
   * returns only because the cancel ends it. */
  response = chat (f, cancellable, &error);
  g_assert_null (response);
  g_assert_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_CANCELLED);
  g_assert_cmpstr (error->message, ==, "openai: the request was cancelled");
  g_assert_cmpstr (f->deltas.text->str, ==, "Hi");
}

/* Cancels from another thread once the provider says it is retrying: the
 * signal comes just before the back-off's wait, so the cancel lands in (or
 * right before) that wait, however slow the machine is. */
typedef struct
{
  GCancellable *cancellable;
  GThread      *canceller;
  gint64        retrying_at;
} BackoffCancel;

static gpointer
cancel_now_thread (gpointer data)
{
  g_cancellable_cancel (data);
  return NULL;
}

static void
cancel_on_retrying (PdProvider *provider,
                    guint       attempt,
                    guint       delay_ms,
                    const char *reason,
                    gpointer    user_data)
{
  BackoffCancel *bc = user_data;

  g_assert_null (bc->canceller);
  bc->retrying_at = g_get_monotonic_time ();
  bc->canceller = g_thread_new ("cancel", cancel_now_thread, bc->cancellable);
}

static void
test_cancel_during_backoff (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;
  BackoffCancel bc = { cancellable, NULL, 0 };
  TestReply *reply = test_reply_plain (429, "application/json", "{}");
  gulong handler;

  reply->retry_after = g_strdup ("30");
  test_server_push (f->server, reply);

  handler = g_signal_connect (f->provider, "retrying", G_CALLBACK (cancel_on_retrying), &bc);
  response = chat (f, cancellable, &error);
  g_signal_handler_disconnect (f->provider, handler);
  g_assert_nonnull (bc.canceller);
  g_thread_join (g_steal_pointer (&bc.canceller));

  g_assert_null (response);
  g_assert_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_CANCELLED);
  g_assert_cmpstr (error->message, ==, "openai: the request was cancelled");
  /* The 429 reached the provider, which announced the server's 30 s wait... */
  g_assert_cmpuint (test_server_count (f->server), ==, 1);
  g_assert_cmpuint (f->retries.n, ==, 1);
  g_assert_cmpuint (f->retries.last_delay_ms, ==, 30000);
  /* ...and the cancel cut that wait short instead of sitting it out. */
  g_assert_cmpint (g_get_monotonic_time () - bc.retrying_at, <, (gint64) f->retries.last_delay_ms * 1000);
}

typedef struct
{
  Fixture            *f;
  PdProviderResponse *response;
  GError             *error;
} WorkerCall;

static gpointer
worker_chat (gpointer data)
{
  WorkerCall *call = data;

  call->response = pd_provider_chat (PD_PROVIDER (call->f->provider), &call->f->request,
                                     NULL, NULL, NULL, &call->error);
  return NULL;
}

/* The engine creates the provider on the main thread and chats from a
 * worker: the session must work across that boundary, twice in a row. */
static void
test_worker_thread (Fixture       *f,
                    gconstpointer  data)
{
  for (guint i = 0; i < 2; i++)
    {
      WorkerCall call = { f, NULL, NULL };
      GThread *thread;

      test_server_push (f->server, test_reply_stream ("text/event-stream", SSE_TEXT, 0, TRUE));
      thread = g_thread_new ("worker", worker_chat, &call);
      g_thread_join (thread);

      g_assert_no_error (call.error);
      g_assert_cmpstr (call.response->content, ==, "Hello, wörld!");
      pd_provider_response_free (call.response);
    }
  g_assert_cmpuint (test_server_count (f->server), ==, 2);
}

static void
test_retry_after_parse (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_utc (2024, 5, 1, 12, 0, 0);

  g_assert_cmpint (_pd_http_provider_parse_retry_after ("1", now), ==, 1000);
  g_assert_cmpint (_pd_http_provider_parse_retry_after (" 0 ", now), ==, 0);
  g_assert_cmpint (_pd_http_provider_parse_retry_after ("3600", now), ==, PD_PROVIDER_RETRY_AFTER_CAP_MS);
  g_assert_cmpint (_pd_http_provider_parse_retry_after ("99999999999999999999999", now), ==, -1);
  g_assert_cmpint (_pd_http_provider_parse_retry_after ("Wed, 01 May 2024 12:00:05 GMT", now), ==, 5000);
  g_assert_cmpint (_pd_http_provider_parse_retry_after ("Wed, 01 May 2024 11:00:00 GMT", now), ==, 0);
  g_assert_cmpint (_pd_http_provider_parse_retry_after ("Thu, 02 May 2024 12:00:00 GMT", now), ==,
                   PD_PROVIDER_RETRY_AFTER_CAP_MS);
  g_assert_cmpint (_pd_http_provider_parse_retry_after ("soon", now), ==, -1);
  g_assert_cmpint (_pd_http_provider_parse_retry_after (NULL, now), ==, -1);
}

static void
test_config_subprocess (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProvider) provider = NULL;
  g_autoptr(PdOpenAIProvider) official = NULL;
  g_autoptr(PdProviderResponse) response = NULL;
  g_autoptr(JsonArray) messages = json_array_from_text ("[{\"role\":\"user\",\"content\":\"x\"}]");
  PdProviderRequest request = { "m", messages, NULL, 0, -1 };

  g_setenv ("OPENAI_BASE_URL", "http://127.0.0.1:9/v9", TRUE);
  provider = pd_provider_new_for_name ("openai", NULL, "k", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pd_provider_get_name (provider), ==, "openai");
  g_assert_cmpstr (pd_http_provider_get_base_url (PD_HTTP_PROVIDER (provider)), ==,
                   "http://127.0.0.1:9/v9");
  g_unsetenv ("OPENAI_BASE_URL");
  g_clear_object (&provider);

  provider = pd_provider_new_for_name ("openai", "ftp://example.com", NULL, NULL, &error);
  g_assert_null (provider);
  g_assert_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG);
  g_clear_error (&error);

  provider = pd_provider_new_for_name ("gemini", NULL, NULL, NULL, &error);
  g_assert_null (provider);
  g_assert_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG);
  g_assert_nonnull (strstr (error->message, "gemini"));
  g_clear_error (&error);

  /* The default endpoint with no key fails before any request is made. */
  g_unsetenv ("OPENAI_API_KEY");
  official = pd_openai_provider_new (NULL, NULL);
  g_assert_cmpstr (pd_http_provider_get_base_url (PD_HTTP_PROVIDER (official)), ==, "https://api.openai.com/v1");
  response = pd_provider_chat (PD_PROVIDER (official), &request, NULL, NULL, NULL, &error);
  g_assert_null (response);
  g_assert_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG);
  g_assert_nonnull (strstr (error->message, "OPENAI_API_KEY"));
  g_clear_error (&error);

  /* No model is a configuration error too. */
  request.model = NULL;
  g_clear_object (&official);
  official = pd_openai_provider_new ("http://127.0.0.1:9", NULL);
  response = pd_provider_chat (PD_PROVIDER (official), &request, NULL, NULL, NULL, &error);
  g_assert_null (response);
  g_assert_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG);
}

static void
test_config (void)
{
  /* In a fresh process: it changes the environment, which is only safe
   * before other threads exist. */
  g_test_trap_subprocess ("/pd/provider/openai/config/subprocess", 10 * G_USEC_PER_SEC, 0);
  g_test_trap_assert_passed ();
}

/* Found by fuzz-sse-openai: numbers beyond gint64 (an index or a token
 * count of 5.5e76) were cast to an integer, which is undefined behaviour.
 * They now read as missing. */
static void
test_huge_numbers (void)
{
  static const char body[] =
    "data: {\"choices\":[{\"index\":5.5e76,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":null}]}\n\n"
    "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":1e300,\"id\":\"c1\","
    "\"function\":{\"name\":\"plan\",\"arguments\":\"{}\"}}]},\"finish_reason\":\"tool_calls\"}],"
    "\"usage\":{\"prompt_tokens\":1e300,\"completion_tokens\":-1e300}}\n\n"
    "data: [DONE]\n\n";
  g_autoptr(PdOpenAIProvider) provider = pd_openai_provider_new ("http://127.0.0.1:9/v1", NULL);
  g_autoptr(GInputStream) input = g_memory_input_stream_new_from_data (body, sizeof body - 1, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;

  response = _pd_http_provider_read_response (PD_HTTP_PROVIDER (provider), input, FALSE, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (response);
  g_assert_cmpstr (response->content, ==, "Hi");
  g_assert_cmpint (response->input_tokens, ==, -1);
  g_assert_cmpint (response->output_tokens, ==, -1);
  g_assert_cmpuint (json_array_get_length (response->tool_calls), ==, 1);
}

/* What a server says instead of an answer, each way it is said: llama.cpp's
 * "error:" line, an {"error": …} event, and a JSON body with an error. */
static void
expect_read_error (const char *body,
                   gboolean    is_json,
                   const char *message)
{
  g_autoptr(PdOpenAIProvider) provider = pd_openai_provider_new ("http://127.0.0.1:9/v1", NULL);
  g_autoptr(GInputStream) input = g_memory_input_stream_new_from_data (body, strlen (body), NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProviderResponse) response = NULL;

  response = _pd_http_provider_read_response (PD_HTTP_PROVIDER (provider), input, is_json, NULL, NULL, NULL, &error);
  g_assert_null (response);
  g_assert_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_SERVER);
  g_assert_cmpstr (error->message, ==, message);
}

static void
test_server_error_forms (void)
{
  expect_read_error ("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n"
                     "error: {\"code\":503,\"message\":\"Loading model\",\"type\":\"unavailable_error\"}\n\n",
                     FALSE,
                     "openai: the server reported an error in the middle of the response: Loading model");
  expect_read_error ("error: slot unavailable\n\n", FALSE,
                     "openai: the server reported an error in the middle of the response: slot unavailable");
  expect_read_error ("data: {\"error\":{\"message\":\"model crashed\"}}\n\n", FALSE,
                     "openai: the server reported an error in the middle of the response: model crashed");
  expect_read_error ("{\"error\":{\"message\":\"context too long\",\"type\":\"invalid_request_error\"}}", TRUE,
                     "openai: the server answered with an error: invalid_request_error: context too long");
}

int
main (int   argc,
      char *argv[])
{
  test_unset_proxies ();
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/pd/provider/openai/" path, Fixture, NULL, fixture_setup, func, provider_fixture_teardown)

  ADD ("text", test_text);
  ADD ("tool-calls", test_tool_calls);
  ADD ("reasoning", test_reasoning);
  ADD ("json-body", test_json_body);
  ADD ("missing-ids", test_missing_ids);
  ADD ("malformed/garbage-line", test_malformed_garbage);
  ADD ("malformed/truncated-json", test_malformed_truncated_json);
  ADD ("malformed/closed-mid-stream", test_malformed_closed_mid_stream);
  ADD ("malformed/eof-without-end", test_malformed_eof_without_end);
  ADD ("malformed/line-cap", test_malformed_line_cap);
  ADD ("stream-error-event", test_stream_error_event);
  ADD ("bad-tool-arguments", test_bad_tool_arguments);
  ADD ("retry/server-error", test_retry_server_error);
  ADD ("retry/exhausted", test_retry_exhausted);
  ADD ("retry/rate-limit-retry-after", test_rate_limit_retry_after);
  ADD ("retry/rate-limit-exhausted", test_rate_limit_exhausted);
  ADD ("auth-no-retry", test_auth_no_retry);
  ADD ("http-error", test_http_error);
  ADD ("network-error", test_network_error);
  ADD ("cancel/mid-stream", test_cancel_mid_stream);
  ADD ("cancel/during-backoff", test_cancel_during_backoff);
  ADD ("worker-thread", test_worker_thread);
#undef ADD

  g_test_add_func ("/pd/provider/retry-after-parse", test_retry_after_parse);
  g_test_add_func ("/pd/provider/openai/huge-numbers", test_huge_numbers);
  g_test_add_func ("/pd/provider/openai/server-error-forms", test_server_error_forms);
  g_test_add_func ("/pd/provider/openai/config", test_config);
  g_test_add_func ("/pd/provider/openai/config/subprocess", test_config_subprocess);

  return g_test_run ();
}
