/* test-engine-recordings.c: the real loop against recorded model streams.
 *
 * The streams are recordings in tests/fixtures/ (README there: which are
 * real recordings of the Anthropic API, which are made by hand in the same
 * shapes), played by a scripted SoupServer on loopback (pd-test-server.h)
 * in small pieces.  Each case checks what a person relies on: how the run
 * ends, what they are shown, what is stored, and the exact body of the
 * next request the model gets.
 */
#define G_LOG_DOMAIN "test-engine-recordings"

#include "config.h"

#include "pd-anthropic-provider.h"
#include "pd-openai-provider.h"
#include "pd-test-engine.h"
#include "pd-test-server.h"

#define SYSTEM_PROMPT "You are a test agent."

typedef enum
{
  WIRE_OPENAI,
  WIRE_ANTHROPIC,
} Wire;

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

static void
setup (Fixture       *f,
       gconstpointer  data)
{
  f->wire = GPOINTER_TO_INT (data);
  engine_fixture_setup (&f->e, FALSE);
  f->server = test_server_new ();

  if (f->wire == WIRE_OPENAI)
    {
      g_autofree char *base = g_strconcat (f->server->base_url, "/v1", NULL);
      PdOpenAIProvider *provider = pd_openai_provider_new (base, "sk-test");

      pd_openai_provider_set_retry_base_delay_ms (provider, 10);
      pd_openai_provider_set_max_retries (provider, 2);
      f->provider = PD_PROVIDER (provider);
    }
  else
    {
      PdAnthropicProvider *provider = pd_anthropic_provider_new (f->server->base_url, "sk-ant-test");

      pd_anthropic_provider_set_retry_base_delay_ms (provider, 10);
      pd_anthropic_provider_set_max_retries (provider, 2);
      f->provider = PD_PROVIDER (provider);
    }
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
    assert_json (json_object_get_member (body, "messages"), openai);
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

/* The real recordings are copies of ../shared/fixtures/anthropic: they
 * must stay the same bytes.  Without ../shared there is nothing to compare. */
static void
test_shared_copies (void)
{
  const char *shared = g_getenv ("PD_FIXTURES_DIR");
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

#undef ADD

  g_test_add_func ("/pd/engine-recordings/shared-copies", test_shared_copies);

  return g_test_run ();
}
