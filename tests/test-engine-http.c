/* test-engine-http.c: the real loop against streamed HTTP model servers.
 *
 * Every case runs twice: against an OpenAI-compatible server and against an
 * Anthropic-compatible one, both scripted SoupServers on loopback
 * (pd-test-server.h).  Replies are server-sent-event streams cut into small
 * pieces, with several tool calls per turn, so tool batches run in
 * parallel.  Tools, sessions and events are real, as in test-engine.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-engine-http"

#include "config.h"

#include "pd-anthropic-provider.h"
#include "pd-openai-provider.h"
#include "pd-test-engine.h"
#include "pd-test-server.h"

typedef struct
{
  EngineFixture  e;
  Wire           wire;
  TestServer    *server;
  PdProvider    *provider;
} Fixture;

typedef struct
{
  const char *id;
  const char *name;
  const char *arguments;  /* JSON text, ' for " */
} Call;

static void
setup (Fixture       *f,
       gconstpointer  data)
{
  f->wire = GPOINTER_TO_INT (data);
  engine_fixture_setup (&f->e, TRUE);
  f->server = test_server_new ();

  f->provider = test_server_provider (f->server, f->wire);
  engine_fixture_make_engine (&f->e, f->provider, NULL);
}

static void
teardown (Fixture       *f,
          gconstpointer  data)
{
  engine_fixture_teardown (&f->e);
  g_clear_object (&f->provider);
  test_server_free (f->server);
}

/* JSON text as the content of a JSON string. */
static char *
json_escape (const char *text)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_VALUE);
  g_autofree char *quoted = NULL;

  json_node_set_string (node, text);
  quoted = pd_json_to_string (node, FALSE);
  return g_strndup (quoted + 1, strlen (quoted) - 2);
}

/* One streamed assistant turn: optional text, then tool calls whose
 * arguments arrive in two pieces each. */
static char *
sse_turn (Wire        wire,
          const char *text,
          const Call *calls,
          guint       n_calls)
{
  GString *out = g_string_new (NULL);

  if (wire == WIRE_OPENAI)
    {
      g_string_append (out, "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n");
      if (text != NULL)
        {
          g_autofree char *escaped = json_escape (text);
          g_string_append_printf (out, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"%s\"}}]}\n\n", escaped);
        }
      for (guint i = 0; i < n_calls; i++)
        {
          g_autofree char *args = q (calls[i].arguments);
          gsize half = strlen (args) / 2;
          g_autofree char *head = g_strndup (args, half);
          g_autofree char *a = json_escape (head);
          g_autofree char *b = json_escape (args + half);

          g_string_append_printf (out, "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":%u,"
                                       "\"id\":\"%s\",\"type\":\"function\",\"function\":{\"name\":\"%s\","
                                       "\"arguments\":\"%s\"}}]}}]}\n\n", i, calls[i].id, calls[i].name, a);
          g_string_append_printf (out, "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":%u,"
                                       "\"function\":{\"arguments\":\"%s\"}}]}}]}\n\n", i, b);
        }
      g_string_append_printf (out, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"%s\"}]}\n\n",
                              n_calls ? "tool_calls" : "stop");
      g_string_append (out, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":100,\"completion_tokens\":10}}\n\n");
      g_string_append (out, "data: [DONE]\n\n");
    }
  else
    {
      guint index = 0;

#define EVENT(name, ...) \
      g_string_append_printf (out, "event: " name "\ndata: " __VA_ARGS__), g_string_append (out, "\n\n")

      EVENT ("message_start", "{\"type\":\"message_start\",\"message\":{\"id\":\"msg\",\"type\":\"message\","
                              "\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":100,\"output_tokens\":1}}}");
      if (text != NULL)
        {
          g_autofree char *escaped = json_escape (text);

          EVENT ("content_block_start", "{\"type\":\"content_block_start\",\"index\":%u,"
                                        "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}", index);
          EVENT ("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":%u,"
                                        "\"delta\":{\"type\":\"text_delta\",\"text\":\"%s\"}}", index, escaped);
          EVENT ("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":%u}", index);
          index++;
        }
      for (guint i = 0; i < n_calls; i++, index++)
        {
          g_autofree char *args = q (calls[i].arguments);
          gsize half = strlen (args) / 2;
          g_autofree char *head = g_strndup (args, half);
          g_autofree char *a = json_escape (head);
          g_autofree char *b = json_escape (args + half);

          EVENT ("content_block_start", "{\"type\":\"content_block_start\",\"index\":%u,\"content_block\":"
                                        "{\"type\":\"tool_use\",\"id\":\"%s\",\"name\":\"%s\",\"input\":{}}}",
                 index, calls[i].id, calls[i].name);
          EVENT ("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":%u,"
                                        "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"%s\"}}", index, a);
          EVENT ("content_block_delta", "{\"type\":\"content_block_delta\",\"index\":%u,"
                                        "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"%s\"}}", index, b);
          EVENT ("content_block_stop", "{\"type\":\"content_block_stop\",\"index\":%u}", index);
        }
      EVENT ("message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"%s\"},"
                              "\"usage\":{\"output_tokens\":10}}", n_calls ? "tool_use" : "end_turn");
      EVENT ("message_stop", "{\"type\":\"message_stop\"}");
#undef EVENT
    }

  return g_string_free (out, FALSE);
}

static void
push_turn (Fixture    *f,
           const char *text,
           const Call *calls,
           guint       n_calls)
{
  g_autofree char *sse = sse_turn (f->wire, text, calls, n_calls);

  /* 29-byte pieces: events, lines and JSON strings arrive cut. */
  test_server_push (f->server, test_reply_stream ("text/event-stream", sse, 29, TRUE));
}

static const char *
model_path (Fixture *f)
{
  return f->wire == WIRE_OPENAI ? "/v1/chat/completions" : "/v1/messages";
}

static char *
request_body (Fixture *f,
              guint    index)
{
  TestRequest *request = test_server_request (f->server, index);
  gsize len;
  const char *data = g_bytes_get_data (request->body, &len);

  g_assert_cmpstr (request->path, ==, model_path (f));
  return g_strndup (data, len);
}

#define CHECKED_PLAN \
  "{'verb':'create','steps':[{'id':'build','title':'Write hello.txt','checks':[{'id':'cat'," \
  "'description':'hello.txt is readable','tool':'shell','arguments':{'command':'cat hello.txt'}}]}," \
  "{'id':'docs','title':'Report'}]}"

/* The whole lifecycle over the wire: create a plan with a check (and write
 * in the same parallel batch), run the check with a plan update beside it,
 * complete, answer. */
static void
test_lifecycle (Fixture       *f,
                gconstpointer  data)
{
  const Call t1[] = {
    { "call_1a", "plan", CHECKED_PLAN },
    { "call_1b", "write_file", "{'path':'hello.txt','content':'hello'}" },
  };
  const Call t2[] = {
    { "call_2a", "shell", "{'command':'cat hello.txt'}" },
    { "call_2b", "plan", "{'verb':'update','updates':[{'id':'docs','status':'in_progress'}]}" },
    { "call_2c", "list_dir", "{}" },
  };
  const Call t3[] = {
    { "call_3a", "plan", "{'verb':'complete','step_id':'build'}" },
    { "call_3b", "plan", "{'verb':'complete','step_id':'docs'}" },
  };
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(PdPlanState) state = NULL;
  g_autoptr(JsonArray) stored = NULL;
  g_autofree char *second = NULL;
  g_autofree char *last = NULL;

  push_turn (f, "Planning first.", t1, G_N_ELEMENTS (t1));
  push_turn (f, NULL, t2, G_N_ELEMENTS (t2));
  push_turn (f, NULL, t3, G_N_ELEMENTS (t3));
  push_turn (f, "Done: hello.txt is there.", NULL, 0);

  result = engine_fixture_run (&f->e, NULL, "Write hello.txt and check it");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
  g_assert_cmpstr (result->final_text, ==, "Done: hello.txt is there.");
  g_assert_cmpuint (result->iterations, ==, 4);
  g_assert_cmpint (result->input_tokens, ==, 400);
  g_assert_cmpuint (test_server_count (f->server), ==, 4);
  g_assert_true (g_str_has_prefix (f->e.text->str, "Planning first."));

  state = pd_plan_store_snapshot (f->e.plan_store);
  g_assert_cmpint (plan_step (state, "build")->status, ==, PD_PLAN_STEP_DONE);
  g_assert_cmpstr (step_check (state, "build", 0)->call_id, ==, "call_2a");
  g_assert_cmpint (step_check (state, "build", 0)->status, ==, PD_PLAN_CHECK_PASSED);

  /* The server saw the tool results of batch 1, by call id, and the plan
   * tool among the tools. */
  second = request_body (f, 1);
  g_assert_nonnull (strstr (second, "\"call_1a\""));
  g_assert_nonnull (strstr (second, "\"call_1b\""));
  g_assert_nonnull (strstr (second, "\"name\":\"plan\""));
  g_assert_nonnull (strstr (second, "[Current plan: v1 "));
  last = request_body (f, 3);
  g_assert_nonnull (strstr (last, "build [done]"));
  g_assert_nonnull (strstr (last, "\"call_3b\""));

  stored = stored_messages (&f->e, result->session_id);
  g_assert_cmpint (plan_message_index (stored), ==, 2);
  g_assert_cmpuint (count_events (&f->e, PD_EVENT_TOOL_CALL_COMPLETED), ==, 7);
  g_assert_cmpuint (count_events (&f->e, PD_EVENT_PLAN_CREATED), ==, 1);
  g_assert_cmpuint (count_events (&f->e, PD_EVENT_RUN_COMPLETED), ==, 1);
}

/* The gate over the wire: completion before evidence is refused, one nudge,
 * the answer marked unverified. */
static void
test_gate (Fixture       *f,
           gconstpointer  data)
{
  const Call t1[] = { { "c1", "plan", CHECKED_PLAN } };
  const Call t2[] = { { "c2", "plan", "{'verb':'complete','step_id':'build'}" } };
  g_autoptr(PdRunResult) result = NULL;
  g_autofree char *third = NULL;
  g_autofree char *fourth = NULL;

  push_turn (f, NULL, t1, 1);
  push_turn (f, NULL, t2, 1);
  push_turn (f, "Done.", NULL, 0);
  push_turn (f, "Done anyway.", NULL, 0);

  result = engine_fixture_run (&f->e, NULL, "Write hello.txt");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
  g_assert_true (g_str_has_prefix (result->final_text, "Done anyway.\n\n[plandeck verification incomplete"));
  third = request_body (f, 2);
  g_assert_nonnull (strstr (third, "has checks that have not passed"));
  fourth = request_body (f, 3);
  g_assert_nonnull (strstr (fourth, "still has open steps"));
  g_assert_cmpuint (test_server_count (f->server), ==, 4);
}

/* A 500, then success: the provider retries, the run does not notice. */
static void
test_server_error_then_success (Fixture       *f,
                                gconstpointer  data)
{
  const Call t1[] = { { "c1", "list_dir", "{}" }, { "c2", "plan", "{'verb':'create','steps':['Only']}" } };
  const Call t2[] = { { "c3", "plan", "{'verb':'complete','step_id':'s1'}" } };
  g_autoptr(PdRunResult) result = NULL;

  test_server_push (f->server, test_reply_plain (500, "application/json", "{\"error\":{\"message\":\"overloaded\"}}"));
  push_turn (f, NULL, t1, 2);
  test_server_push (f->server, test_reply_plain (503, "text/plain", "busy"));
  push_turn (f, NULL, t2, 1);
  push_turn (f, "Fine.", NULL, 0);

  result = engine_fixture_run (&f->e, NULL, "Survive a hiccup");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
  g_assert_cmpstr (result->final_text, ==, "Fine.");
  g_assert_cmpuint (result->iterations, ==, 3);
  g_assert_cmpuint (test_server_count (f->server), ==, 5);
  g_assert_cmpuint (count_events (&f->e, PD_EVENT_RUN_COMPLETED), ==, 1);
}

/* A failure that ends the run: recorded outcome, saved transcript. */
static void
assert_failed_run (Fixture     *f,
                   PdRunResult *result,
                   const char  *needle,
                   guint        min_messages)
{
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(JsonArray) stored = NULL;

  g_assert_cmpint (result->status, ==, PD_RUN_FAILED);
  g_assert_nonnull (result->error_message);
  g_test_message ("error: %s", result->error_message);
  g_assert_nonnull (strstr (result->error_message, needle));
  g_assert_true (g_str_has_prefix (result->final_text, "[plandeck: the model provider failed: "));
  g_assert_cmpuint (count_events (&f->e, PD_EVENT_RUN_FAILED), ==, 1);
  g_assert_cmpuint (count_events (&f->e, PD_EVENT_RUN_COMPLETED), ==, 0);

  info = pd_session_store_get (f->e.store, result->session_id, NULL);
  g_assert_nonnull (info);
  g_assert_cmpint (info->status, ==, PD_SESSION_STATUS_FAILED);
  stored = stored_messages (&f->e, result->session_id);
  g_assert_cmpuint (json_array_get_length (stored), >=, min_messages);
  g_assert_cmpstr (msg_content (stored, json_array_get_length (stored) - 1), ==, result->final_text);
}

static void
test_unauthorized (Fixture       *f,
                   gconstpointer  data)
{
  const Call t1[] = { { "c1", "plan", "{'verb':'create','steps':['Only']}" } };
  g_autoptr(PdRunResult) result = NULL;

  push_turn (f, NULL, t1, 1);
  test_server_push (f->server, test_reply_plain (401, "application/json",
                                                 "{\"error\":{\"message\":\"invalid api key\"}}"));

  result = engine_fixture_run (&f->e, NULL, "Try");
  /* Never retried: two requests in all. */
  g_assert_cmpuint (test_server_count (f->server), ==, 2);
  assert_failed_run (f, result, "401", 5);
  /* The plan made before the failure is saved with the transcript. */
  {
    g_autoptr(JsonArray) stored = stored_messages (&f->e, result->session_id);
    g_assert_cmpint (plan_message_index (stored), ==, 2);
  }
}

static void
test_malformed_stream (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;

  if (f->wire == WIRE_OPENAI)
    test_server_push (f->server, test_reply_stream ("text/event-stream",
      "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n"
      "data: {this is not json}\n\n"
      "data: [DONE]\n\n", 5, TRUE));
  else
    test_server_push (f->server, test_reply_stream ("text/event-stream",
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n"
      "event: content_block_delta\ndata: {this is not json}\n\n", 5, TRUE));

  result = engine_fixture_run (&f->e, NULL, "Try");
  assert_failed_run (f, result, f->wire == WIRE_OPENAI ? "openai" : "anthropic", 3);
}

/* Broken tool arguments: the model is told and asked again; the second
 * answer is used. */
static void
test_bad_tool_arguments (Fixture       *f,
                         gconstpointer  data)
{
  const Call bad[] = { { "c1", "write_file", "{'path': oops" } };
  const Call good[] = { { "c2", "write_file", "{'path':'a.txt','content':'A'}" } };
  g_autoptr(PdRunResult) result = NULL;
  g_autofree char *second = NULL;
  g_autofree char *path = g_build_filename (f->e.workdir, "a.txt", NULL);

  push_turn (f, NULL, bad, 1);
  push_turn (f, NULL, good, 1);
  push_turn (f, "Wrote it.", NULL, 0);

  result = engine_fixture_run (&f->e, NULL, "Write a.txt");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
  g_assert_cmpstr (result->final_text, ==, "Wrote it.");
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  second = request_body (f, 1);
  g_assert_nonnull (strstr (second, "could not be used"));
  g_assert_cmpuint (count_events (&f->e, PD_EVENT_RUN_COMPLETED), ==, 1);
}

/* The request overflowing the model's context: one survival trim (plan
 * kept), then the request again. */
static void
test_context_overflow (Fixture       *f,
                       gconstpointer  data)
{
  const Call t1[] = { { "c1", "plan", "{'verb':'create','steps':['Keep me']}" } };
  const Call t2[] = { { "c2", "list_dir", "{}" } };
  g_autoptr(PdRunResult) result = NULL;
  g_autofree char *retry = NULL;

  push_turn (f, NULL, t1, 1);
  push_turn (f, NULL, t2, 1);
  test_server_push (f->server, test_reply_plain (400, "application/json",
    "{\"error\":{\"message\":\"This model's maximum context length is 8192 tokens\"}}"));
  push_turn (f, "Done.", NULL, 0);
  push_turn (f, "Done.", NULL, 0);

  result = engine_fixture_run (&f->e, NULL, "Overflow");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
  g_assert_cmpuint (count_events (&f->e, PD_EVENT_CONTEXT_TRIMMED), ==, 1);
  g_assert_true (json_object_get_boolean_member (pd_event_get_data (nth_event (&f->e, PD_EVENT_CONTEXT_TRIMMED, 0)),
                                                 "survival"));
  retry = request_body (f, 3);
  g_assert_nonnull (strstr (retry, "[Current plan: v1 "));
  g_assert_nonnull (strstr (retry, "Overflow"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  test_unset_proxies ();

#define ADD(path, func) \
  g_test_add ("/pd/engine-http/openai/" path, Fixture, GINT_TO_POINTER (WIRE_OPENAI), setup, func, teardown); \
  g_test_add ("/pd/engine-http/anthropic/" path, Fixture, GINT_TO_POINTER (WIRE_ANTHROPIC), setup, func, teardown)

  ADD ("lifecycle", test_lifecycle);
  ADD ("gate", test_gate);
  ADD ("server-error-then-success", test_server_error_then_success);
  ADD ("unauthorized", test_unauthorized);
  ADD ("malformed-stream", test_malformed_stream);
  ADD ("bad-tool-arguments", test_bad_tool_arguments);
  ADD ("context-overflow", test_context_overflow);

  return g_test_run ();
}
