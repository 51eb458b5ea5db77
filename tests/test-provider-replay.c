/* test-provider-replay.c: recorded turns played back in order, with the
 * same streaming and the same failures as a real provider.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-provider-replay"

#include "config.h"

#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "pd-replay-provider.h"

#define RECORDING \
  "{\"label\": \"demo: fix the off-by-one\"," \
  " \"turns\": [" \
  "  {\"content\": \"I will read the file first, then fix it.\"," \
  "   \"reasoning\": \"The loop bound looks wrong.\"," \
  "   \"tool_calls\": [{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/main.c\"}}," \
  "                    {\"name\": \"ls\"}]," \
  "   \"input_tokens\": 120, \"output_tokens\": 30}," \
  "  {\"content\": \"Fixed: the loop now stops at n - 1. Ünïcödé ✓\", \"delay_ms\": 5}" \
  " ]}"

typedef struct
{
  char *dir;
  char *path;
} Fixture;

typedef struct
{
  GString   *text;
  GString   *reasoning;
  GPtrArray *tools;
  guint      n_text;
} Deltas;

static void
on_delta (PdProviderDeltaKind  kind,
          const char          *text,
          gpointer             user_data)
{
  Deltas *deltas = user_data;

  g_assert_true (g_utf8_validate (text, -1, NULL));
  if (kind == PD_PROVIDER_DELTA_TEXT)
    {
      g_string_append (deltas->text, text);
      deltas->n_text++;
    }
  else if (kind == PD_PROVIDER_DELTA_REASONING)
    g_string_append (deltas->reasoning, text);
  else
    g_ptr_array_add (deltas->tools, g_strdup (text));
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->dir = g_dir_make_tmp ("pd-replay-XXXXXX", &error);
  g_assert_no_error (error);
  f->path = g_build_filename (f->dir, "recording.json", NULL);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_unlink (f->path);
  g_rmdir (f->dir);
  g_free (f->path);
  g_free (f->dir);
}

static void
write_recording (Fixture    *f,
                 const char *text)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (f->path, text, -1, &error);
  g_assert_no_error (error);
}

static PdProviderRequest *
request (void)
{
  static PdProviderRequest request = { NULL, NULL, NULL, 0, -1 };

  if (request.messages == NULL)
    request.messages = json_array_new ();   /* kept for the whole run */
  return &request;
}

static const char *
call_member (PdProviderResponse *response,
             guint               index,
             const char         *what)
{
  JsonObject *call = json_array_get_object_element (response->tool_calls, index);

  if (g_str_equal (what, "id") || g_str_equal (what, "type"))
    return json_object_get_string_member (call, what);
  return json_object_get_string_member (json_object_get_object_member (call, "function"), what);
}

static void
test_turns_in_order (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProvider) provider = NULL;
  g_autoptr(PdProviderResponse) first = NULL;
  g_autoptr(PdProviderResponse) second = NULL;
  g_autoptr(PdProviderResponse) third = NULL;
  g_autoptr(GPtrArray) tools = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GString) reasoning = g_string_new (NULL);
  Deltas deltas = { text, reasoning, tools, 0 };

  write_recording (f, RECORDING);
  provider = pd_provider_new_for_name ("replay", NULL, NULL, f->path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pd_provider_get_name (provider), ==, "replay");
  g_assert_cmpstr (pd_replay_provider_get_label (PD_REPLAY_PROVIDER (provider)), ==,
                   "demo: fix the off-by-one");
  g_assert_cmpuint (pd_replay_provider_get_n_turns (PD_REPLAY_PROVIDER (provider)), ==, 2);

  first = pd_provider_chat (provider, request (), on_delta, &deltas, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (first->content, ==, "I will read the file first, then fix it.");
  /* Streamed in several small pieces, not in one. */
  g_assert_cmpstr (text->str, ==, first->content);
  g_assert_cmpuint (deltas.n_text, >, 2);
  g_assert_cmpstr (reasoning->str, ==, "The loop bound looks wrong.");
  g_assert_cmpstr (first->finish_reason, ==, "tool_calls");
  g_assert_cmpint (first->input_tokens, ==, 120);
  g_assert_cmpint (first->output_tokens, ==, 30);
  g_assert_cmpuint (json_array_get_length (first->tool_calls), ==, 2);
  g_assert_cmpstr (call_member (first, 0, "id"), ==, "replay_1_1");
  g_assert_cmpstr (call_member (first, 0, "type"), ==, "function");
  g_assert_cmpstr (call_member (first, 0, "name"), ==, "read_file");
  g_assert_cmpstr (call_member (first, 0, "arguments"), ==, "{\"path\":\"src/main.c\"}");
  g_assert_cmpstr (call_member (first, 1, "id"), ==, "replay_1_2");
  g_assert_cmpstr (call_member (first, 1, "arguments"), ==, "{}");
  g_assert_cmpuint (tools->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (tools, 0), ==, "read_file");

  g_string_truncate (text, 0);
  second = pd_provider_chat (provider, request (), on_delta, &deltas, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (second->content, ==, "Fixed: the loop now stops at n - 1. Ünïcödé ✓");
  g_assert_cmpstr (text->str, ==, second->content);
  g_assert_cmpstr (second->finish_reason, ==, "stop");
  g_assert_cmpuint (json_array_get_length (second->tool_calls), ==, 0);
  g_assert_cmpint (second->input_tokens, ==, -1);

  third = pd_provider_chat (provider, request (), NULL, NULL, NULL, &error);
  g_assert_null (third);
  g_assert_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_REPLAY_EXHAUSTED);
  g_assert_nonnull (strstr (error->message, "demo: fix the off-by-one"));
  g_assert_cmpuint (pd_replay_provider_get_position (PD_REPLAY_PROVIDER (provider)), ==, 2);
}

static void
expect_bad_file (Fixture    *f,
                 const char *contents,
                 const char *fragment)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdReplayProvider) provider = NULL;

  if (contents != NULL)
    write_recording (f, contents);

  provider = pd_replay_provider_new_from_file (f->path, &error);
  g_assert_null (provider);
  g_assert_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG);
  g_assert_true (g_str_has_prefix (error->message, "replay: "));
  if (strstr (error->message, fragment) == NULL)
    g_error ("“%s” not in the error message “%s”", fragment, error->message);
  /* Every load error names the file. */
  g_assert_nonnull (strstr (error->message, "recording.json"));
}

static void
test_bad_files (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdProvider) provider = NULL;

  expect_bad_file (f, NULL, "cannot read");
  expect_bad_file (f, "{\"turns\": [", "not valid JSON");
  expect_bad_file (f, "[]", "JSON object");
  expect_bad_file (f, "{\"label\": \"x\"}", "no “turns” array");
  expect_bad_file (f, "{\"turns\": [{\"content\": 3}]}", "turn 1");
  expect_bad_file (f, "{\"turns\": [{}, {\"tool_calls\": [{\"arguments\": {}}]}]}", "turn 2");
  expect_bad_file (f, "{\"turns\": [{\"tool_calls\": [{\"name\": \"ls\", \"arguments\": 5}]}]}", "arguments");
  expect_bad_file (f, "{\"turns\": [{\"delay_ms\": -1}]}", "delay_ms");

  provider = pd_provider_new_for_name ("replay", NULL, NULL, NULL, &error);
  g_assert_null (provider);
  g_assert_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG);
}

static void
test_bad_arguments (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdReplayProvider) provider = NULL;
  g_autoptr(PdProviderResponse) response = NULL;
  g_autoptr(JsonParser) parser = json_parser_new ();

  /* From a JsonNode, with the broken arguments a model once sent. */
  json_parser_load_from_data (parser,
    "{\"turns\": [{\"tool_calls\": [{\"name\": \"write_file\", \"arguments\": \"{\\\"path\\\": \"}]},"
    "            {\"content\": \"recovered\"}]}", -1, &error);
  g_assert_no_error (error);
  provider = pd_replay_provider_new_from_json (json_parser_get_root (parser), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pd_replay_provider_get_label (provider), !=, "");

  response = pd_provider_chat (PD_PROVIDER (provider), request (), NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (response->rejected, "write_file"));
  g_assert_cmpuint (json_array_get_length (response->tool_calls), ==, 0);
  g_clear_pointer (&response, pd_provider_response_free);

  /* The broken turn was used; the next call gets the next one. */
  response = pd_provider_chat (PD_PROVIDER (provider), request (), NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (response->content, ==, "recovered");
}

static gpointer
cancel_later (gpointer data)
{
  g_usleep (30 * 1000);
  g_cancellable_cancel (data);
  return NULL;
}

static void
test_cancel_delay (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdReplayProvider) provider = NULL;
  g_autoptr(PdProviderResponse) response = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(JsonParser) parser = json_parser_new ();
  GThread *thread;
  gint64 start;

  json_parser_load_from_data (parser, "{\"turns\": [{\"content\": \"slow\", \"delay_ms\": 10000}]}", -1, &error);
  g_assert_no_error (error);
  provider = pd_replay_provider_new_from_json (json_parser_get_root (parser), &error);
  g_assert_no_error (error);

  start = g_get_monotonic_time ();
  thread = g_thread_new ("cancel", cancel_later, cancellable);
  response = pd_provider_chat (PD_PROVIDER (provider), request (), NULL, NULL, cancellable, &error);
  g_thread_join (thread);
  g_assert_null (response);
  g_assert_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_CANCELLED);
  g_assert_cmpstr (error->message, ==, "replay: the request was cancelled");
  /* Before the turn's delay would have ended: the wait itself was cut
   * short (a wait that only looked at the cancellable afterwards lasts the
   * whole 10 s, however fast the machine). */
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_TIME_SPAN_SECOND);
  /* A cancelled turn is not used up. */
  g_assert_cmpuint (pd_replay_provider_get_position (provider), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);

  g_test_add ("/pd/provider/replay/turns-in-order", Fixture, NULL, fixture_setup, test_turns_in_order, fixture_teardown);
  g_test_add ("/pd/provider/replay/bad-files", Fixture, NULL, fixture_setup, test_bad_files, fixture_teardown);
  g_test_add ("/pd/provider/replay/bad-arguments", Fixture, NULL, fixture_setup, test_bad_arguments, fixture_teardown);
  g_test_add ("/pd/provider/replay/cancel-delay", Fixture, NULL, fixture_setup, test_cancel_delay, fixture_teardown);

  status = g_test_run ();
  json_array_unref (request ()->messages);
  return status;
}
