/* test-engine-recordings.c: the real loop against recorded model streams.
 *
 * The streams are recordings in tests/fixtures/ (README there: which are
 * real recordings of the Anthropic API, which are made by hand in the same
 * shapes), played by a scripted SoupServer on loopback (pd-test-server.h)
 * in small pieces.  Each case checks what a person relies on: how the run
 * ends, what they are shown, what is stored, and the exact body of the
 * next request the model gets.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-engine-recordings"

#include "config.h"

#include "pd-anthropic-provider.h"
#include "pd-model-limits.h"
#include "pd-openai-provider.h"
#include "pd-test-engine.h"
#include "pd-test-server.h"

#define SYSTEM_PROMPT "You are a test agent."

typedef struct
{
  EngineFixture  e;
  Wire           wire;
  TestServer    *server;
  PdProvider    *provider;
} Fixture;

static void
make_engine (Fixture         *f,
             PdEngineOptions *options)
{
  PdEngineOptions defaults = { 0 };
  PdEngineOptions o = options ? *options : defaults;

  o.system_prompt = SYSTEM_PROMPT;
  engine_fixture_make_engine (&f->e, f->provider, &o);
}

/* An engine for @model (its family sets the output limits), with the
 * profile's own limit @max_output_tokens (0: none). */
static void
make_engine_for (Fixture    *f,
                 const char *model,
                 guint       max_output_tokens)
{
  PdEngineOptions o = { 0 };

  o.model = model;
  o.max_output_tokens = max_output_tokens;
  make_engine (f, &o);
}

static void
setup (Fixture       *f,
       gconstpointer  data)
{
  f->wire = GPOINTER_TO_INT (data);
  engine_fixture_setup (&f->e, FALSE);
  f->server = test_server_new ();

  f->provider = test_server_provider (f->server, f->wire);
  make_engine (f, NULL);
}

static void
teardown (Fixture       *f,
          gconstpointer  data)
{
  engine_fixture_teardown (&f->e);
  g_clear_object (&f->provider);
  test_server_free (f->server);
}

/* The bytes of tests/fixtures/@relative. */
static char *
recording (const char *relative)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "fixtures", relative, NULL);
  g_autoptr(GError) error = NULL;
  char *text = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

/* Plays a recording as the next answer, in 37-byte pieces: lines, events
 * and UTF-8 sequences arrive cut. */
static void
push_recording (Fixture    *f,
                const char *relative)
{
  g_autofree char *text = recording (relative);

  test_server_push (f->server, test_reply_stream ("text/event-stream", text, 37, TRUE));
}

/* The parsed body of request @index. */
static JsonObject *
request_body (Fixture   *f,
              guint      index,
              JsonNode **root)
{
  TestRequest *request = test_server_request (f->server, index);

  g_assert_cmpstr (request->path, ==, f->wire == WIRE_OPENAI ? "/v1/chat/completions" : "/v1/messages");
  return test_request_json (request, root);
}

/* Asserts that @node equals the JSON text @expected (' for "). */
static void
assert_json (JsonNode   *node,
             const char *expected)
{
  g_autofree char *text = q (expected);
  g_autoptr(JsonNode) want = pd_json_parse (text, -1, NULL);

  g_assert_nonnull (want);
  if (node == NULL || !json_node_equal (node, want))
    {
      g_autofree char *got = node ? pd_json_to_string (node, FALSE) : g_strdup ("(none)");

      g_test_message ("expected %s\n     got %s", text, got);
      g_test_fail ();
    }
}

/* The conversation request @index sent: the messages, with the system
 * prompt first as the OpenAI wire carries it (the Anthropic one apart). */
static void
assert_request_messages (Fixture    *f,
                         guint       index,
                         const char *openai,
                         const char *anthropic)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *body = request_body (f, index, &root);

  if (f->wire == WIRE_OPENAI)
    {
      if (openai != NULL)
        assert_json (json_object_get_member (body, "messages"), openai);
    }
  else
    {
      g_assert_cmpstr (json_object_get_string_member (body, "system"), ==, SYSTEM_PROMPT);
      assert_json (json_object_get_member (body, "messages"), anthropic);
    }
}

static gboolean
has_notice (Fixture    *f,
            const char *needle)
{
  for (guint i = 0; i < f->e.notices->len; i++)
    if (strstr (g_ptr_array_index (f->e.notices, i), needle) != NULL)
      return TRUE;
  return FALSE;
}

/* --- refusals ------------------------------------------------------------ */

/* The model declines.  The run ends as refused with the explanation, the
 * person is told, the turn is stored with it, and a continuation starts a
 * fresh user turn: the refused request is not sent again. */
static void
test_refusal (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(PdRunResult) refused = NULL;
  g_autoptr(PdRunResult) next = NULL;
  g_autoptr(PdRunResult) again = NULL;
  g_autoptr(JsonArray) stored = NULL;
  g_autoptr(GError) error = NULL;
  const char *explanation = f->wire == WIRE_OPENAI ? "I'm sorry, I can't assist with that."
                                                   : "This request was refused due to policy.";
  JsonObject *last;

  push_recording (f, f->wire == WIRE_OPENAI ? "openai/made-refusal.sse" : "anthropic/refusal_response.sse");
  refused = engine_fixture_run (&f->e, NULL, "Write something harmful");

  g_assert_cmpint (refused->status, ==, PD_RUN_REFUSED);
  g_assert_nonnull (strstr (refused->error_message, explanation));
  g_assert_true (g_str_has_prefix (refused->error_message, "the model refused to answer"));
  g_assert_true (has_notice (f, explanation));
  g_assert_cmpint (refused->input_tokens, ==, 20);

  /* Stored: the refused turn, with its explanation and category. */
  stored = stored_messages (&f->e, refused->session_id);
  last = json_array_get_object_element (stored, json_array_get_length (stored) - 1);
  g_assert_cmpstr (pd_message_get_role (last), ==, "assistant");
  g_assert_cmpstr (json_object_get_string_member (last, "refusal"), ==, explanation);
  if (f->wire == WIRE_ANTHROPIC)
    g_assert_cmpstr (json_object_get_string_member (last, "refusal_category"), ==, "cyber");
  g_assert_cmpstr (event_string (&f->e, "run_failed", 0, "error_class"), ==, "refused");

  /* Continuing needs a new message: the refused turn is not asked again. */
  g_assert_null (pd_engine_run (f->e.engine, refused->session_id, NULL, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_nonnull (strstr (error->message, "continue it with a new message"));
  g_assert_cmpuint (test_server_count (f->server), ==, 1);

  push_recording (f, f->wire == WIRE_OPENAI ? "openai/made-basic.sse" : "anthropic/basic_response.sse");
  next = engine_fixture_run (&f->e, refused->session_id, "What is the weather like?");
  g_assert_cmpint (next->status, ==, PD_RUN_COMPLETED);
  g_assert_cmpstr (next->final_text, ==, "Hello there!");

  assert_request_messages (f, 1,
                           "[{'role':'system','content':'" SYSTEM_PROMPT "'},"
                           " {'role':'user','content':'What is the weather like?'}]",
                           "[{'role':'user','content':[{'type':'text','text':'What is the weather like?'}]}]");

  /* And the answered turn stays in what the model sees after it. */
  push_recording (f, f->wire == WIRE_OPENAI ? "openai/made-basic.sse" : "anthropic/basic_response.sse");
  again = engine_fixture_run (&f->e, refused->session_id, "Thanks");
  g_assert_cmpint (again->status, ==, PD_RUN_COMPLETED);
  assert_request_messages (f, 2,
                           "[{'role':'system','content':'" SYSTEM_PROMPT "'},"
                           " {'role':'user','content':'What is the weather like?'},"
                           " {'role':'assistant','content':'Hello there!'},"
                           " {'role':'user','content':'Thanks'}]",
                           "[{'role':'user','content':[{'type':'text','text':'What is the weather like?'}]},"
                           " {'role':'assistant','content':[{'type':'text','text':'Hello there!'}]},"
                           " {'role':'user','content':[{'type':'text','text':'Thanks'}]}]");
}

/* A provider failure is noted in the session for the person reading it,
 * not for the model: the continuation's request carries neither the note
 * nor anything folded into the system prompt. */
static void
test_failure_note_not_sent (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(PdRunResult) failed = NULL;
  g_autoptr(PdRunResult) next = NULL;
  g_autoptr(JsonArray) stored = NULL;
  g_autofree char *body = recording ("anthropic/400_invalid_request.json");

  test_server_push (f->server, test_reply_plain (400, "application/json", body));
  failed = engine_fixture_run (&f->e, NULL, "First task");
  g_assert_cmpint (failed->status, ==, PD_RUN_FAILED);
  stored = stored_messages (&f->e, failed->session_id);
  g_assert_cmpuint (count_messages (stored, "system", "the model provider failed"), ==, 1);

  push_recording (f, f->wire == WIRE_OPENAI ? "openai/made-basic.sse" : "anthropic/basic_response.sse");
  next = engine_fixture_run (&f->e, failed->session_id, "Try again");
  g_assert_cmpint (next->status, ==, PD_RUN_COMPLETED);
  assert_request_messages (f, 1,
                           "[{'role':'system','content':'" SYSTEM_PROMPT "'},"
                           " {'role':'user','content':'First task'},"
                           " {'role':'user','content':'Try again'}]",
                           "[{'role':'user','content':[{'type':'text','text':'First task'},"
                           "                          {'type':'text','text':'Try again'}]}]");
}

/* --- output limits ---------------------------------------------------- */

/* The output limit request @index asked for; 0 when it asked none. */
static gint64
request_max_tokens (Fixture *f,
                    guint    index)
{
  g_autoptr(JsonNode) root = NULL;
  JsonObject *body = request_body (f, index, &root);

  if (f->wire == WIRE_OPENAI && json_object_has_member (body, "max_completion_tokens"))
    return json_object_get_int_member (body, "max_completion_tokens");
  return json_object_get_int_member_with_default (body, "max_tokens", 0);
}

static gboolean
stored_has_tool_call (JsonArray  *stored,
                      const char *name)
{
  for (guint i = 0; i < json_array_get_length (stored); i++)
    {
      JsonObject *message = json_array_get_object_element (stored, i);
      JsonNode *node = json_object_get_member (message, "tool_calls");
      JsonArray *calls = node && JSON_NODE_HOLDS_ARRAY (node) ? json_node_get_array (node) : NULL;

      for (guint j = 0; calls != NULL && j < json_array_get_length (calls); j++)
        {
          JsonObject *function = json_object_get_object_member (json_array_get_object_element (calls, j), "function");

          if (g_strcmp0 (json_object_get_string_member (function, "name"), name) == 0)
            return TRUE;
        }
    }
  return FALSE;
}

/* The real recording of a tool call cut by max_tokens (a tool that writes
 * no file here): not taken for bad arguments, not stored, asked again once
 * with a hint to split the work, and every token of it counted. */
static void
test_cut_tool_call_hint (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(JsonArray) stored = NULL;
  const char *hint = "[plandeck: your last answer was cut off at the output limit (stop reason max_tokens, 16384 "
                     "tokens) while you wrote the arguments of make_file, so it did not run. Do the work in smaller "
                     "parts: write a shorter file and extend it with edit_file, or split the edit.]";
  g_autofree char *openai_expected = NULL;
  g_autofree char *anthropic_expected = NULL;

  make_engine_for (f, "claude-3-7-sonnet-20250219", 0);
  push_recording (f, "anthropic/incomplete_partial_json_response.sse");
  push_recording (f, "anthropic/basic_response.sse");
  result = engine_fixture_run (&f->e, NULL, "Write a tax guide to taxes.txt");

  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
  g_assert_cmpstr (result->final_text, ==, "Hello there!");
  g_assert_cmpuint (result->iterations, ==, 2);
  /* Both answers count, the cut one too. */
  g_assert_cmpint (result->input_tokens, ==, 450 + 11);
  g_assert_cmpint (result->output_tokens, ==, 124 + 6);
  g_assert_cmpint (request_max_tokens (f, 0), ==, 16384);
  g_assert_cmpint (request_max_tokens (f, 1), ==, 16384);
  g_assert_true (has_notice (f, "asking again for smaller parts"));
  g_assert_false (has_notice (f, "not a JSON object"));
  g_assert_cmpstr (event_string (&f->e, "turn_discarded", 0, "reason"), ==, "max_tokens");
  g_assert_cmpstr (event_string (&f->e, "turn_discarded", 0, "tool"), ==, "make_file");
  g_assert_cmpint (event_int (&f->e, "turn_discarded", 0, "output_tokens"), ==, 124);

  /* The cut call is not stored; the hint is, and it is the user's word on
   * the Anthropic wire, not folded into the system prompt. */
  stored = stored_messages (&f->e, result->session_id);
  g_assert_false (stored_has_tool_call (stored, "make_file"));
  g_assert_cmpuint (count_messages (stored, "assistant", "comprehensive tax guide"), ==, 0);
  g_assert_cmpuint (count_messages (stored, "system", hint), ==, 1);

  anthropic_expected = g_strdup_printf ("[{'role':'user','content':[{'type':'text','text':'Write a tax guide to taxes.txt'},"
                                        " {'type':'text','text':'%s'}]}]", hint);
  assert_request_messages (f, 1, NULL, anthropic_expected);
}

/* A cut call that writes a file is asked again once with the family's
 * ceiling, then the limit is back where it was. */
static void
test_cut_tool_call_raise (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(JsonArray) stored = NULL;
  g_autofree char *written = NULL;
  g_autofree char *path = g_build_filename (f->e.workdir, "notes.md", NULL);
  gboolean openai = f->wire == WIRE_OPENAI;
  g_autoptr(JsonNode) first = NULL;
  g_autoptr(JsonNode) second = NULL;

  /* OpenAI: the profile sets a limit (the server's own is not raised). */
  make_engine_for (f, openai ? "gpt-4o" : "claude-sonnet-4-5", openai ? 1000 : 0);
  push_recording (f, openai ? "openai/made-cut-write-file.sse" : "anthropic/made-cut-write-file.sse");
  push_recording (f, openai ? "openai/made-write-file.sse" : "anthropic/made-write-file.sse");
  push_recording (f, openai ? "openai/made-basic.sse" : "anthropic/basic_response.sse");
  result = engine_fixture_run (&f->e, NULL, "Write the notes");

  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
  g_assert_cmpuint (result->iterations, ==, 3);
  g_assert_cmpint (request_max_tokens (f, 0), ==, openai ? 1000 : 16384);
  g_assert_cmpint (request_max_tokens (f, 1), ==, openai ? 16384 : 64000);
  g_assert_cmpint (request_max_tokens (f, 2), ==, openai ? 1000 : 16384);
  g_assert_cmpint (event_int (&f->e, "turn_discarded", 0, "next_max_tokens"), ==, openai ? 16384 : 64000);
  g_assert_true (has_notice (f, openai ? "asking again with a limit of 16384 tokens"
                                       : "asking again with a limit of 64000 tokens"));
  g_assert_cmpint (result->output_tokens, ==, openai ? 1000 + 30 + 6 : 16384 + 30 + 6);

  /* Asked again as it was: the same messages, no hint. */
  {
    JsonObject *a = request_body (f, 0, &first);
    JsonObject *b = request_body (f, 1, &second);

    g_assert_true (json_node_equal (json_object_get_member (a, "messages"), json_object_get_member (b, "messages")));
  }

  g_file_get_contents (path, &written, NULL, NULL);
  g_assert_cmpstr (written, ==, "# Notes\n");
  stored = stored_messages (&f->e, result->session_id);
  g_assert_true (stored_has_tool_call (stored, "write_file"));
  g_assert_cmpuint (count_messages (stored, "system", "cut off"), ==, 0);
}

/* Cut again after the retry: the run fails and says which limit cut what,
 * with every token of both answers counted. */
static void
test_cut_tool_call_twice (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  gboolean openai = f->wire == WIRE_OPENAI;

  make_engine_for (f, openai ? "gpt-4o" : "claude-3-7-sonnet-20250219", 0);
  push_recording (f, openai ? "openai/made-cut-write-file.sse" : "anthropic/incomplete_partial_json_response.sse");
  push_recording (f, openai ? "openai/made-cut-write-file.sse" : "anthropic/incomplete_partial_json_response.sse");
  result = engine_fixture_run (&f->e, NULL, "Write a tax guide to taxes.txt");

  g_assert_cmpint (result->status, ==, PD_RUN_FAILED);
  g_assert_nonnull (strstr (result->error_message, "cut off at its output limit again"));
  g_assert_nonnull (strstr (result->error_message, openai ? "stop reason length, the server default"
                                                          : "stop reason max_tokens, 16384 tokens"));
  g_assert_nonnull (strstr (result->error_message, openai ? "write_file" : "make_file"));
  g_assert_nonnull (strstr (result->error_message, "provider.max_output_tokens"));
  g_assert_cmpuint (test_server_count (f->server), ==, 2);
  g_assert_cmpint (result->input_tokens, ==, openai ? 1024 : 900);
  g_assert_cmpint (result->output_tokens, ==, openai ? 2000 : 248);
  /* No max_tokens sent to an OpenAI model without a profile limit; the hint
   * of the second request is Plandeck's word at its place. */
  if (openai)
    {
      g_assert_cmpint (request_max_tokens (f, 0), ==, 0);
      assert_request_messages (f, 1,
                               "[{'role':'system','content':'" SYSTEM_PROMPT "'},"
                               " {'role':'user','content':'Write a tax guide to taxes.txt'},"
                               " {'role':'system','content':'[plandeck: your last answer was cut off at the output limit "
                               "(stop reason length, the server default) while you wrote the arguments of "
                               "write_file, so it did not run. Do the work in smaller parts: write a shorter file and "
                               "extend it with edit_file, or split the edit.]'}]",
                               NULL);
    }
}

/* A text answer cut by the output limit is kept but flagged: the run ends
 * as incomplete, and the stored answer says so. */
static void
test_cut_answer (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(JsonArray) stored = NULL;
  JsonObject *last;
  gboolean openai = f->wire == WIRE_OPENAI;

  make_engine_for (f, openai ? "gpt-4o" : "claude-sonnet-4-5", 0);
  push_recording (f, openai ? "openai/made-cut-text.sse" : "anthropic/made-cut-text.sse");
  result = engine_fixture_run (&f->e, NULL, "Write the report");

  g_assert_cmpint (result->status, ==, PD_RUN_INCOMPLETE);
  g_assert_cmpstr (result->final_text, ==, "The report has three parts. The first");
  g_assert_nonnull (strstr (result->error_message, openai ? "stop reason length" : "stop reason max_tokens"));
  g_assert_true (json_object_get_boolean_member (pd_event_get_data (nth_event (&f->e, "run_completed", 0)),
                                                 "incomplete"));

  stored = stored_messages (&f->e, result->session_id);
  last = json_array_get_object_element (stored, json_array_get_length (stored) - 1);
  g_assert_cmpstr (pd_message_get_content (last), ==, "The report has three parts. The first");
  g_assert_cmpstr (json_object_get_string_member (last, "incomplete"), ==, openai ? "length" : "max_tokens");
}

/* --- overloads ------------------------------------------------------------ */

/* A plain error reply from tests/fixtures/@relative, with the wait the
 * server asks for in milliseconds. */
static void
push_error (Fixture    *f,
            guint       status,
            const char *relative,
            const char *retry_after_ms)
{
  g_autofree char *text = recording (relative);
  TestReply *reply = test_reply_plain (status, "application/json", text);

  reply->retry_after_ms = g_strdup (retry_after_ms);
  test_server_push (f->server, reply);
}

/* The server breaks the answer off mid-stream (Anthropic: overloaded_error;
 * OpenAI: server_error): no tool has run, so the request is sent again like
 * a 529 would be, said as it happens, recorded, and the answer is whole. */
static void
test_overload_midstream (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(JsonArray) stored = NULL;
  gboolean openai = f->wire == WIRE_OPENAI;
  const char *reason;

  push_recording (f, openai ? "openai/made-server-error-midstream.sse" : "anthropic/made-overloaded-midstream.sse");
  push_recording (f, openai ? "openai/made-basic.sse" : "anthropic/basic_response.sse");
  result = engine_fixture_run (&f->e, NULL, "Say hello");

  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
  g_assert_cmpstr (result->final_text, ==, "Hello there!");
  g_assert_cmpuint (result->iterations, ==, 1);
  g_assert_cmpuint (test_server_count (f->server), ==, 2);
  g_assert_cmpuint (count_events (&f->e, "provider_retry"), ==, 1);
  g_assert_cmpint (event_int (&f->e, "provider_retry", 0, "attempt"), ==, 2);
  g_assert_cmpint (event_int (&f->e, "provider_retry", 0, "max_attempts"), ==, 3);
  reason = event_string (&f->e, "provider_retry", 0, "reason");
  g_assert_nonnull (strstr (reason, openai ? "server_error: The server had an error" : "overloaded_error: Overloaded"));
  g_assert_false (json_object_has_member (pd_event_get_data (nth_event (&f->e, "provider_retry", 0)), "status"));
  g_assert_true (has_notice (f, "sending the request again in"));

  /* What streamed before the break is not part of the stored answer. */
  stored = stored_messages (&f->e, result->session_id);
  g_assert_cmpuint (count_messages (stored, "assistant", "Let me"), ==, 0);
  g_assert_cmpstr (msg_content (stored, json_array_get_length (stored) - 1), ==, "Hello there!");
}

/* Overloaded (529) or rate limited (429) as a status: the wait the server
 * asks for is kept, and the retry is told with its status. */
static void
test_overload_status (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  gboolean openai = f->wire == WIRE_OPENAI;

  push_error (f, openai ? 429 : 529, openai ? "openai/made-429-rate-limit.json" : "anthropic/made-529-overloaded.json",
              "120");
  push_recording (f, openai ? "openai/made-basic.sse" : "anthropic/basic_response.sse");
  result = engine_fixture_run (&f->e, NULL, "Say hello");

  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
  g_assert_cmpint (event_int (&f->e, "provider_retry", 0, "status"), ==, openai ? 429 : 529);
  g_assert_cmpint (event_int (&f->e, "provider_retry", 0, "delay_ms"), ==, 120);
  g_assert_true (has_notice (f, "sending the request again in 120 ms (attempt 2 of 3)"));

  /* Overloaded to the end: the run fails and names it. */
  g_ptr_array_set_size (f->e.notices, 0);
  for (guint i = 0; i < 3; i++)
    push_error (f, openai ? 429 : 529, openai ? "openai/made-429-rate-limit.json" : "anthropic/made-529-overloaded.json",
                "10");
  g_clear_pointer (&result, pd_run_result_free);
  result = engine_fixture_run (&f->e, NULL, "Say hello again");
  g_assert_cmpint (result->status, ==, PD_RUN_FAILED);
  g_assert_nonnull (strstr (result->error_message, openai ? "still rate limited after 3 attempts"
                                                          : "stayed overloaded through 3 attempts"));
}

/* --- thinking ------------------------------------------------------------ */

#define THINKING_BLOCKS \
  "[{'type':'thinking','thinking':'The user wants the files listed. I should call list_dir first.'," \
  "  'signature':'EqQBCkgIARABGAIiQMadeSignatureForTestsOnlyNotAValidOneButShapedLikeIt+/=='}," \
  " {'type':'redacted_thinking','data':'EmwKAhgBEgyMadeRedactedThinkingDataForTests=='}]"

/* Extended thinking (Anthropic): asked with its budget, the thinking blocks
 * stored with their signatures and sent back unchanged while the model
 * thinks, never when it does not; a family that takes only adaptive
 * thinking gets that. */
static void
test_thinking (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(PdRunResult) later = NULL;
  g_autoptr(PdRunResult) adaptive = NULL;
  g_autoptr(JsonArray) stored = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) root_later = NULL;
  g_autoptr(JsonNode) root_adaptive = NULL;
  PdEngineOptions o = { 0 };
  JsonObject *body;
  JsonObject *assistant = NULL;
  g_autofree char *blocks = q (THINKING_BLOCKS);
  g_autoptr(JsonNode) expected_blocks = pd_json_parse (blocks, -1, NULL);
  g_autofree char *expected = NULL;

  o.model = "claude-sonnet-4-5";
  o.thinking_budget = 4000;
  make_engine (f, &o);
  push_recording (f, "anthropic/made-thinking-tool-use.sse");
  push_recording (f, "anthropic/basic_response.sse");
  result = engine_fixture_run (&f->e, NULL, "List the files");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
  g_assert_cmpstr (result->final_text, ==, "Hello there!");

  /* Asked with the budget; the limit grew by it. */
  body = request_body (f, 0, &root);
  assert_json (json_object_get_member (body, "thinking"), "{'type':'enabled','budget_tokens':4000}");
  g_assert_cmpint (json_object_get_int_member (body, "max_tokens"), ==, 16384 + 4000);
  g_assert_false (json_object_has_member (body, "temperature"));

  /* Stored with the answer, signature and redacted data as they came. */
  stored = stored_messages (&f->e, result->session_id);
  for (guint i = 0; i < json_array_get_length (stored); i++)
    if (json_object_has_member (json_array_get_object_element (stored, i), "thinking"))
      assistant = json_array_get_object_element (stored, i);
  g_assert_nonnull (assistant);
  g_assert_true (json_node_equal (json_object_get_member (assistant, "thinking"), expected_blocks));

  /* Sent back unchanged, first in the answer. */
  expected = g_strdup_printf ("[{'role':'user','content':[{'type':'text','text':'List the files'}]},"
                              " {'role':'assistant','content':[%s, %s,"
                              "   {'type':'text','text':'I will look at the files.'},"
                              "   {'type':'tool_use','id':'toolu_made_thinking','name':'list_dir','input':{}}]}]",
                              "{'type':'thinking','thinking':'The user wants the files listed. I should call list_dir first.',"
                              "'signature':'EqQBCkgIARABGAIiQMadeSignatureForTestsOnlyNotAValidOneButShapedLikeIt+/=='}",
                              "{'type':'redacted_thinking','data':'EmwKAhgBEgyMadeRedactedThinkingDataForTests=='}");
  {
    g_autoptr(JsonNode) second = NULL;
    JsonObject *next = request_body (f, 1, &second);
    JsonArray *messages = json_object_get_array_member (next, "messages");
    g_autoptr(JsonArray) head = json_array_new ();

    /* The first two messages: the task and the thinking answer (the tool
     * result follows, with text of this machine's folder). */
    json_array_add_element (head, json_node_copy (json_array_get_element (messages, 0)));
    json_array_add_element (head, json_node_copy (json_array_get_element (messages, 1)));
    {
      g_autoptr(JsonNode) node = json_node_init_array (json_node_alloc (), head);
      g_autofree char *text = g_strdup (expected);

      /* q() turns ' into ": the apostrophe of I'll is written as \' */
      assert_json (node, text);
    }
  }

  /* Thinking off: the blocks stay stored but are not sent. */
  make_engine_for (f, "claude-sonnet-4-5", 0);
  push_recording (f, "anthropic/basic_response.sse");
  later = engine_fixture_run (&f->e, result->session_id, "Thanks");
  body = request_body (f, 2, &root_later);
  g_assert_false (json_object_has_member (body, "thinking"));
  {
    g_autofree char *sent = pd_json_to_string (json_object_get_member (body, "messages"), FALSE);

    g_assert_null (strstr (sent, "\"type\":\"thinking\""));
    g_assert_null (strstr (sent, "signature"));
    g_assert_null (strstr (sent, "redacted_thinking"));
  }

  /* Opus 4.7 takes only adaptive thinking. */
  o.model = "claude-opus-4-7";
  make_engine (f, &o);
  push_recording (f, "anthropic/basic_response.sse");
  adaptive = engine_fixture_run (&f->e, NULL, "Say hello");
  body = request_body (f, 3, &root_adaptive);
  assert_json (json_object_get_member (body, "thinking"), "{'type':'adaptive'}");
}

/* OpenAI-compatible reasoning (reasoning_content): stored and shown, sent
 * back with the tool calls of its answer as such servers ask, and nowhere
 * else. */
static void
test_reasoning_content (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(PdRunResult) later = NULL;
  g_autoptr(JsonArray) stored = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) root_later = NULL;
  JsonArray *messages;
  JsonObject *call_turn;
  JsonObject *answer;

  make_engine_for (f, "deepseek-chat", 0);
  push_recording (f, "openai/made-reasoning-tool-call.sse");
  push_recording (f, "openai/made-reasoning-answer.sse");
  result = engine_fixture_run (&f->e, NULL, "List the files");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
  g_assert_cmpstr (result->final_text, ==, "There is one file.");

  stored = stored_messages (&f->e, result->session_id);
  call_turn = json_array_get_object_element (stored, 2);
  answer = json_array_get_object_element (stored, json_array_get_length (stored) - 1);
  g_assert_cmpstr (json_object_get_string_member (call_turn, "reasoning_content"), ==,
                   "The user wants the files listed. I should call list_dir first.");
  g_assert_cmpstr (json_object_get_string_member (answer, "reasoning_content"), ==, "One file. ");

  /* The tool turn carried its reasoning back. */
  messages = json_object_get_array_member (request_body (f, 1, &root), "messages");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, 2), "reasoning_content"),
                   ==, "The user wants the files listed. I should call list_dir first.");

  /* An answer without tool calls does not. */
  push_recording (f, "openai/made-basic.sse");
  later = engine_fixture_run (&f->e, result->session_id, "Thanks");
  messages = json_object_get_array_member (request_body (f, 2, &root_later), "messages");
  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);

      if (json_object_has_member (message, "reasoning_content"))
        g_assert_true (json_object_has_member (message, "tool_calls"));
    }
  g_assert_false (json_object_has_member (json_array_get_object_element (messages, json_array_get_length (messages) - 2),
                                          "reasoning_content"));
}

/* The real recording of a tool call (get_weather, a tool Plandeck does not
 * have): it fails, and the model is told so by is_error as well as in
 * words; the call goes back as it came. */
static void
test_failed_tool_result (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(JsonNode) want = NULL;
  JsonObject *body;

  push_recording (f, "anthropic/tool_use_response.sse");
  push_recording (f, "anthropic/basic_response.sse");
  result = engine_fixture_run (&f->e, NULL, "What is the weather in Paris?");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);

  body = request_body (f, 1, &root);
  want = pd_json_parse ("[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"What is the weather in Paris?\"}]},"
                        " {\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"I'll check the current weather in Paris for you.\"},"
                        "   {\"type\":\"tool_use\",\"id\":\"toolu_01NRLabsLyVHZPKxbKvkfSMn\",\"name\":\"get_weather\",\"input\":{\"location\":\"Paris\"}}]},"
                        " {\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_01NRLabsLyVHZPKxbKvkfSMn\","
                        "   \"content\":\"unknown tool 'get_weather'\",\"is_error\":true}]}]", -1, NULL);
  g_assert_nonnull (want);
  if (!json_node_equal (json_object_get_member (body, "messages"), want))
    {
      g_autofree char *got = pd_json_to_string (json_object_get_member (body, "messages"), FALSE);

      g_test_message ("got %s", got);
      g_test_fail ();
    }
}

/* Two text blocks of one answer are two paragraphs, streamed and stored. */
static void
test_two_text_blocks (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;

  push_recording (f, "anthropic/made-two-text-blocks.sse");
  result = engine_fixture_run (&f->e, NULL, "How is it going?");
  g_assert_cmpstr (result->final_text, ==, "The tests pass.\n\nNext, the docs.");
  g_assert_cmpstr (f->e.text->str, ==, "The tests pass.\n\nNext, the docs.");
}

/* Each family's output limits, by the names people and routers use. */
static void
test_model_limits (void)
{
  const struct {
    const char *provider;
    const char *model;
    guint       answer;
    guint       ceiling;
    gboolean    adaptive_only;
  } cases[] = {
    { "anthropic", "claude-3-haiku-20240307", 4096, 4096, FALSE },
    { "anthropic", "claude-3-opus-latest", 4096, 4096, FALSE },
    { "anthropic", "claude-3-5-sonnet-20241022", 8192, 8192, FALSE },
    { "anthropic", "claude-3-7-sonnet-20250219", 16384, 64000, FALSE },
    { "anthropic", "claude-sonnet-4-20250514", 16384, 64000, FALSE },
    { "anthropic", "claude-opus-4-20250514", 16384, 32000, FALSE },
    { "anthropic", "anthropic.claude-opus-4-1-20250805-v1:0", 16384, 32000, FALSE },
    { "anthropic", "claude-opus-4-5", 16384, 64000, FALSE },
    { "anthropic", "claude-haiku-4-5-20251001", 16384, 64000, FALSE },
    { "anthropic", "claude-sonnet-4-6", 16384, 128000, FALSE },
    { "anthropic", "claude-opus-4-7", 16384, 128000, TRUE },
    { "anthropic", "claude-sonnet-5", 16384, 128000, TRUE },
    { "anthropic", "some-proxy-model", 8192, 0, FALSE },
    { "openai", "gpt-4o-mini", 0, 16384, FALSE },
    { "openai", "openai/gpt-4.1", 0, 32768, FALSE },
    { "openai", "o3-mini", 0, 100000, FALSE },
    { "openai", "qwen2.5-coder", 0, 0, FALSE },
    { "replay", "replay", 0, 0, FALSE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      PdModelLimits limits;

      pd_model_limits_lookup (cases[i].provider, cases[i].model, &limits);
      g_test_message ("%s", cases[i].model);
      g_assert_cmpuint (pd_model_limits_answer (&limits, 0), ==, cases[i].answer);
      g_assert_cmpuint (limits.ceiling_tokens, ==, cases[i].ceiling);
      g_assert_cmpint (limits.adaptive_only, ==, cases[i].adaptive_only);
    }

  /* A profile's limit is held to the family's ceiling; raising goes to the
   * ceiling, doubles when that is unknown, and never from the server's own. */
  {
    PdModelLimits limits;

    pd_model_limits_lookup ("anthropic", "claude-opus-4-1", &limits);
    g_assert_cmpuint (pd_model_limits_answer (&limits, 100000), ==, 32000);
    g_assert_cmpuint (pd_model_limits_answer (&limits, 2000), ==, 2000);
    g_assert_cmpuint (pd_model_limits_raise (&limits, 16384), ==, 32000);
    g_assert_cmpuint (pd_model_limits_raise (&limits, 32000), ==, 0);
    pd_model_limits_lookup ("openai", "qwen2.5-coder", &limits);
    g_assert_cmpuint (pd_model_limits_raise (&limits, 1000), ==, 2000);
    g_assert_cmpuint (pd_model_limits_raise (&limits, 0), ==, 0);
  }
}

/* The real recordings are copies of ../shared/fixtures/anthropic: they
 * must stay the same bytes.  Without ../shared there is nothing to compare. */
static void
test_shared_copies (void)
{
  const char *shared = g_getenv ("PD_SHARED_FIXTURES_DIR");
  const char *names[] = {
    "basic_response.sse", "tool_use_response.sse", "incomplete_partial_json_response.sse",
    "refusal_response.sse", "400_invalid_request.json",
  };
  g_autofree char *dir = shared ? g_build_filename (shared, "anthropic", NULL) : NULL;

  if (dir == NULL || !g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("../shared/fixtures/anthropic is not there; the copies in tests/fixtures are used alone");
      return;
    }

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *relative = g_build_filename ("anthropic", names[i], NULL);
      g_autofree char *ours = recording (relative);
      g_autofree char *path = g_build_filename (dir, names[i], NULL);
      g_autofree char *theirs = NULL;
      g_autoptr(GError) error = NULL;

      g_file_get_contents (path, &theirs, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (ours, ==, theirs);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  test_unset_proxies ();

#define ADD(path, func) \
  g_test_add ("/pd/engine-recordings/openai/" path, Fixture, GINT_TO_POINTER (WIRE_OPENAI), setup, func, teardown); \
  g_test_add ("/pd/engine-recordings/anthropic/" path, Fixture, GINT_TO_POINTER (WIRE_ANTHROPIC), setup, func, teardown)

  ADD ("refusal", test_refusal);
  ADD ("failure-note-not-sent", test_failure_note_not_sent);
  ADD ("cut-tool-call-raise", test_cut_tool_call_raise);
  ADD ("cut-tool-call-twice", test_cut_tool_call_twice);
  ADD ("cut-answer", test_cut_answer);
  ADD ("overload-midstream", test_overload_midstream);
  ADD ("overload-status", test_overload_status);

#undef ADD

  /* A real recording of the Anthropic API; cut-tool-call-twice plays the
   * OpenAI case of the hint. */
  g_test_add ("/pd/engine-recordings/anthropic/cut-tool-call-hint", Fixture, GINT_TO_POINTER (WIRE_ANTHROPIC),
              setup, test_cut_tool_call_hint, teardown);
  /* Each wire's own way of thinking. */
  g_test_add ("/pd/engine-recordings/anthropic/thinking", Fixture, GINT_TO_POINTER (WIRE_ANTHROPIC),
              setup, test_thinking, teardown);
  g_test_add ("/pd/engine-recordings/openai/reasoning-content", Fixture, GINT_TO_POINTER (WIRE_OPENAI),
              setup, test_reasoning_content, teardown);
  g_test_add ("/pd/engine-recordings/anthropic/two-text-blocks", Fixture, GINT_TO_POINTER (WIRE_ANTHROPIC),
              setup, test_two_text_blocks, teardown);
  g_test_add ("/pd/engine-recordings/anthropic/failed-tool-result", Fixture, GINT_TO_POINTER (WIRE_ANTHROPIC),
              setup, test_failed_tool_result, teardown);

  g_test_add_func ("/pd/engine-recordings/shared-copies", test_shared_copies);
  g_test_add_func ("/pd/engine-recordings/model-limits", test_model_limits);

  return g_test_run ();
}
