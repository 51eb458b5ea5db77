/* test-remote-source.c: PdRemoteSource against our PdServer (in its own
 * thread) and against a fixture server on this thread that answers with
 * odek's recorded shapes: requests and answers, errors, rate limits,
 * odek's shapes, runs it does not have.  Watching is in
 * test-remote-source-watch.c; both use pd-test-remote-source.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-remote-source"

#include "config.h"

#include <time.h>

#include "pd-import-index.h"
#include "pd-remote-source-private.h"
#include "pd-test-remote-source.h"

static void
test_ours (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(PdSource) source = our_source (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL, r3 = NULL, r4 = NULL, r5 = NULL, r6 = NULL, r7 = NULL, r8 = NULL, r9 = NULL, r10 = NULL;
  g_autoptr(PdSessionPage) page = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(GPtrArray) history = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(JsonObject) usage = NULL;
  PdEventBus *bus = pd_server_get_bus (f->server);

  g_assert_cmpstr (pd_source_get_kind (source), ==, "remote");

  pd_source_list_sessions_async (source, "parser", FALSE, 0, 10, NULL, store_result, &r1);
  page = pd_source_list_sessions_finish (source, wait_result (&r1), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (page->sessions->len, ==, 1);
  g_assert_cmpuint (page->total, ==, 1);
  g_assert_cmpstr (((PdSessionInfo *) g_ptr_array_index (page->sessions, 0))->id, ==, f->id);

  pd_source_get_session_async (source, f->id, NULL, store_result, &r2);
  info = pd_source_get_session_finish (source, wait_result (&r2), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (info->task, ==, "Fix the parser");
  g_assert_cmpint (info->plan_version, ==, 2);
  g_assert_cmpuint (info->plan_total, ==, 2);
  g_assert_cmpint (info->created_at, >, 0);

  pd_source_get_plan_async (source, f->id, NULL, store_result, &r3);
  g_assert_true (pd_source_get_plan_finish (source, wait_result (&r3), &plan, &error));
  g_assert_no_error (error);
  g_assert_nonnull (plan);
  g_assert_cmpint (plan->version, ==, 2);
  g_assert_cmpuint (plan->steps->len, ==, 2);
  g_assert_cmpint (((PdPlanStep *) g_ptr_array_index (plan->steps, 0))->status, ==, PD_PLAN_STEP_DONE);
  /* A check's arguments and evidence reach the window as they do from the
   * database: it said "arguments {}" and no evidence (tried as a new user
   * would). */
  {
    PdPlanCheck *check = g_ptr_array_index (((PdPlanStep *) g_ptr_array_index (plan->steps, 1))->checks, 0);

    g_assert_cmpstr (check->arguments, ==, "{\"command\":\"make test\"}");
    g_assert_cmpstr (check->call_id, ==, "call_7");
  }

  pd_source_get_plan_history_async (source, f->id, NULL, store_result, &r4);
  history = pd_source_get_plan_history_finish (source, wait_result (&r4), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (history->len, ==, 1);

  pd_source_get_messages_async (source, f->id, NULL, store_result, &r5);
  messages = pd_source_get_messages_finish (source, wait_result (&r5), &error);
  g_assert_no_error (error);

  {
    PdEvent *event = pd_event_new (PD_EVENT_PLAN_UPDATED);
    pd_event_set_session_id (event, f->id);
    pd_event_bus_emit (bus, event);
    pd_event_unref (event);
    event = pd_event_new (PD_EVENT_RUN_COMPLETED);
    pd_event_set_session_id (event, f->id);
    pd_event_bus_emit (bus, event);
    pd_event_unref (event);
    pd_event_bus_flush (bus);
  }
  pd_source_get_events_async (source, f->id, 0, 10, NULL, store_result, &r6);
  events = pd_source_get_events_finish (source, wait_result (&r6), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 2);
  g_assert_cmpint (((PdStoredEvent *) g_ptr_array_index (events, 1))->seq, >,
                   ((PdStoredEvent *) g_ptr_array_index (events, 0))->seq);
  {
    gint64 first = ((PdStoredEvent *) g_ptr_array_index (events, 0))->seq;
    g_autoptr(GPtrArray) later = NULL;

    pd_source_get_events_async (source, f->id, first, 10, NULL, store_result, &r7);
    later = pd_source_get_events_finish (source, wait_result (&r7), &error);
    g_assert_no_error (error);
    g_assert_cmpuint (later->len, ==, 1);
  }

  pd_source_get_usage_async (source, NULL, store_result, &r8);
  usage = pd_source_get_usage_finish (source, wait_result (&r8), &error);
  g_assert_no_error (error);
  g_assert_cmpint (json_object_get_int_member (usage, "plans_updated"), ==, 1);

  /* A change on a source that never read the session: it fetches the
   * session token first. */
  {
    g_autoptr(PdSource) fresh = our_source (f);
    g_autoptr(GAsyncResult) ru = NULL, rg = NULL, rd = NULL, rx = NULL;
    g_autoptr(PdSessionInfo) renamed = NULL;
    g_autoptr(PdSessionInfo) gone = NULL;

    pd_source_update_session_async (fresh, f->id, "Parser work", 1, NULL, store_result, &ru);
    g_assert_true (pd_source_update_session_finish (fresh, wait_result (&ru), &error));
    g_assert_no_error (error);
    pd_source_get_session_async (fresh, f->id, NULL, store_result, &rg);
    renamed = pd_source_get_session_finish (fresh, wait_result (&rg), &error);
    g_assert_cmpstr (renamed->name, ==, "Parser work");
    g_assert_true (renamed->pinned);

    pd_source_delete_session_async (fresh, f->id, NULL, store_result, &rd);
    g_assert_true (pd_source_delete_session_finish (fresh, wait_result (&rd), &error));
    g_assert_no_error (error);
    pd_source_get_session_async (fresh, f->id, NULL, store_result, &rx);
    gone = pd_source_get_session_finish (fresh, wait_result (&rx), &error);
    g_assert_null (gone);
    g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND);
    g_clear_error (&error);
  }

  /* Ids are checked before they reach a path. */
  pd_source_get_plan_async (source, "../../etc/passwd", NULL, store_result, &r9);
  g_assert_false (pd_source_get_plan_finish (source, wait_result (&r9), NULL, &error));
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* A wrong token. */
  {
    g_autofree char *base = pd_server_dup_base_url (f->server);
    g_autoptr(PdRemoteSource) wrong = pd_remote_source_new (base, "nope", &error);
    g_autoptr(JsonObject) nothing = NULL;

    g_assert_no_error (error);
    pd_source_get_usage_async (PD_SOURCE (wrong), NULL, store_result, &r10);
    nothing = pd_source_get_usage_finish (PD_SOURCE (wrong), wait_result (&r10), &error);
    g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_DENIED);
    g_clear_error (&error);
  }
}

/* serve calls an imported agent's cancelled item "cancelled"; read back,
 * it is blocked as the plan holds it here, not pending (a status the
 * source did not know became pending). */
static void
test_imported_cancelled (Fixture       *f,
                         gconstpointer  data)
{
  const char *root = g_getenv ("PD_FIXTURES_DIR");
  g_autoptr(PdSource) source = our_source (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL;
  g_autoptr(PdSessionPage) page = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  g_autofree char *transcript = NULL;
  const char *id = NULL;

  g_assert_nonnull (root);
  transcript = g_build_filename (root, "gemini", "tmp", "lantern", "chats", "session-2026-04-05T10-12-3fa9c0d1.jsonl", NULL);
  {
    g_autoptr(PdDb) db = pd_db_open (f->db_path, PD_DB_NONE, &error);
    g_autoptr(PdSessionStore) store = NULL;
    g_autoptr(PdImportIndex) index = pd_import_index_new ();
    const char *paths[] = { transcript, NULL };

    g_assert_no_error (error);
    store = pd_session_store_new (db);
    g_assert_true (pd_import_index_run_paths (index, store, paths, NULL, NULL, &error));
    g_assert_no_error (error);
  }

  pd_source_list_sessions_async (source, NULL, FALSE, 0, 10, NULL, store_result, &r1);
  page = pd_source_list_sessions_finish (source, wait_result (&r1), &error);
  g_assert_no_error (error);
  for (guint i = 0; i < page->sessions->len; i++)
    if (g_strcmp0 (((PdSessionInfo *) g_ptr_array_index (page->sessions, i))->source, "gemini") == 0)
      id = ((PdSessionInfo *) g_ptr_array_index (page->sessions, i))->id;
  g_assert_nonnull (id);

  pd_source_get_plan_async (source, id, NULL, store_result, &r2);
  g_assert_true (pd_source_get_plan_finish (source, wait_result (&r2), &plan, &error));
  g_assert_no_error (error);
  g_assert_nonnull (plan);
  g_assert_cmpuint (plan->steps->len, ==, 5);
  g_assert_cmpstr (((PdPlanStep *) g_ptr_array_index (plan->steps, 3))->title, ==, "Document the signal");
  g_assert_cmpint (((PdPlanStep *) g_ptr_array_index (plan->steps, 3))->status, ==, PD_PLAN_STEP_BLOCKED);
  g_assert_cmpint (((PdPlanStep *) g_ptr_array_index (plan->steps, 4))->status, ==, PD_PLAN_STEP_IN_PROGRESS);
}

static void
test_errors (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL, r3 = NULL;
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autofree char *url = NULL;
  g_autoptr(PdRemoteSource) refused = NULL;
  g_autoptr(PdSource) odek = odek_source (f);
  g_autoptr(JsonObject) usage = NULL;
  PdPlanState *plan = NULL;

  g_assert_null (pd_remote_source_new ("ftp://example.org", "t", &error));
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID);
  g_clear_error (&error);
  /* No token: the source is made all the same, and a refused connection
   * says so (whether the server is there is what a person needs first). */
  {
    g_autoptr(PdRemoteSource) tokenless = pd_remote_source_new ("http://127.0.0.1:1/", NULL, &error);
    g_autoptr(GAsyncResult) r0 = NULL;
    g_autoptr(JsonObject) none = NULL;

    g_assert_no_error (error);
    g_assert_null (pd_remote_source_get_token (tokenless));
    g_assert_cmpint (pd_remote_source_get_state (tokenless), ==, PD_REMOTE_CONNECTING);
    pd_source_get_usage_async (PD_SOURCE (tokenless), NULL, store_result, &r0);
    none = pd_source_get_usage_finish (PD_SOURCE (tokenless), wait_result (&r0), &error);
    g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE);
    g_assert_nonnull (strstr (error->message, "refused"));
    g_clear_error (&error);
    g_assert_cmpint (pd_remote_source_get_state (tokenless), ==, PD_REMOTE_OFFLINE);
    g_assert_nonnull (strstr (pd_remote_source_get_state_message (tokenless), "refused"));
  }

  /* A port nobody listens on (bound, never listening). */
  g_assert_true (g_socket_bind (socket, any, FALSE, &error));
  bound = g_socket_get_local_address (socket, &error);
  url = g_strdup_printf ("http://127.0.0.1:%u/?token=x", g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));
  refused = pd_remote_source_new (url, NULL, &error);
  g_assert_no_error (error);
  pd_source_get_usage_async (PD_SOURCE (refused), NULL, store_result, &r1);
  usage = pd_source_get_usage_finish (PD_SOURCE (refused), wait_result (&r1), &error);
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE);
  g_clear_error (&error);

  /* Bad JSON. */
  pd_source_get_plan_async (odek, BAD_ID, NULL, store_result, &r2);
  g_assert_false (pd_source_get_plan_finish (odek, wait_result (&r2), &plan, &error));
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID);
  g_clear_error (&error);

  /* 429, then the next request waits for Retry-After and succeeds. */
  pd_source_get_plan_async (odek, SLOW_ID, NULL, store_result, &r3);
  g_assert_false (pd_source_get_plan_finish (odek, wait_result (&r3), &plan, &error));
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_RATE_LIMITED);
  g_clear_error (&error);
  {
    g_autoptr(GAsyncResult) r4 = NULL;
    gint64 start = g_get_monotonic_time ();

    pd_source_get_plan_async (odek, SLOW_ID, NULL, store_result, &r4);
    g_assert_true (pd_source_get_plan_finish (odek, wait_result (&r4), &plan, &error));
    g_assert_no_error (error);
    g_assert_null (plan);
    g_assert_cmpint (g_get_monotonic_time () - start, >=, 500 * 1000);
  }
}

static void
test_rate_limited_by_ours (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(PdSource) source = our_source (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL, r3 = NULL;
  g_autoptr(PdSessionInfo) a = NULL, b = NULL, c = NULL;

  pd_source_get_session_async (source, f->id, NULL, store_result, &r1);
  a = pd_source_get_session_finish (source, wait_result (&r1), &error);
  g_assert_no_error (error);
  pd_source_get_session_async (source, f->id, NULL, store_result, &r2);
  b = pd_source_get_session_finish (source, wait_result (&r2), &error);
  g_assert_no_error (error);
  pd_source_get_session_async (source, f->id, NULL, store_result, &r3);
  c = pd_source_get_session_finish (source, wait_result (&r3), &error);
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_RATE_LIMITED);
}

static void
test_odek_shapes (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(PdSource) source = odek_source (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL, r3 = NULL, r4 = NULL, r5 = NULL, r6 = NULL;
  g_autoptr(PdSessionPage) page = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(PdPlanState) again = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(JsonArray) messages = NULL;
  PdSessionInfo *row;
  PdPlanStep *step;

  pd_source_list_sessions_async (source, NULL, FALSE, 0, 50, NULL, store_result, &r1);
  page = pd_source_list_sessions_finish (source, wait_result (&r1), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (page->sessions->len, ==, 1);
  row = g_ptr_array_index (page->sessions, 0);
  g_assert_cmpstr (row->id, ==, ODEK_ID);
  g_assert_cmpstr (row->task, ==, "Port the parser");
  g_assert_true (row->pinned);
  g_assert_cmpint (row->turns, ==, 3);
  g_assert_cmpint (row->updated_at, ==, row->created_at + (gint64) 3600 * G_USEC_PER_SEC + G_USEC_PER_SEC / 2);

  pd_source_get_session_async (source, ODEK_ID, NULL, store_result, &r2);
  info = pd_source_get_session_finish (source, wait_result (&r2), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (info->n_messages, ==, 1);

  /* No …/plan/detail there: the client falls back to …/plan. */
  pd_source_get_plan_async (source, ODEK_ID, NULL, store_result, &r3);
  g_assert_true (pd_source_get_plan_finish (source, wait_result (&r3), &plan, &error));
  g_assert_no_error (error);
  g_assert_cmpint (plan->version, ==, 3);
  g_assert_cmpuint (plan->steps->len, ==, 2);
  step = g_ptr_array_index (plan->steps, 1);
  g_assert_cmpstr (step->title, ==, "Write <i>it</i>");
  g_assert_cmpstr (step->note, ==, "half");
  g_assert_cmpint (step->status, ==, PD_PLAN_STEP_IN_PROGRESS);
  pd_source_get_plan_async (source, ODEK_ID, NULL, store_result, &r4);
  g_assert_true (pd_source_get_plan_finish (source, wait_result (&r4), &again, &error));
  g_assert_cmpint (again->version, ==, 3);

  pd_source_get_events_async (source, ODEK_ID, 0, 100, NULL, store_result, &r5);
  events = pd_source_get_events_finish (source, wait_result (&r5), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 2);
  g_assert_nonnull (strstr (((PdStoredEvent *) g_ptr_array_index (events, 1))->event_json, "tool_call_completed"));

  pd_source_get_messages_async (source, ODEK_ID, NULL, store_result, &r6);
  messages = pd_source_get_messages_finish (source, wait_result (&r6), &error);
  /* odek's export route is not in the fixture: a clear not-found. */
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND);
}

/* Elements of another type in a server's arrays are passed over (a plan
 * step that is not an object is a clear error): json-glib is never asked
 * for an object or an integer it does not hold (a critical, fatal here). */
static void
test_mistyped_elements (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(PdSource) source = odek_source (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL, r3 = NULL, r4 = NULL, r5 = NULL;
  g_autoptr(PdSessionPage) page = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(PdPlanState) none = NULL;
  g_autoptr(GPtrArray) history = NULL;
  g_autoptr(GPtrArray) events = NULL;
  PdPlanStep *step;

  f->odek_mistyped = TRUE;

  pd_source_list_sessions_async (source, NULL, FALSE, 0, 50, NULL, store_result, &r1);
  page = pd_source_list_sessions_finish (source, wait_result (&r1), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (page->sessions->len, ==, 1);
  g_assert_cmpstr (((PdSessionInfo *) g_ptr_array_index (page->sessions, 0))->task, ==, "Kept");

  pd_source_get_plan_async (source, ODEK_ID, NULL, store_result, &r2);
  g_assert_true (pd_source_get_plan_finish (source, wait_result (&r2), &plan, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (plan->steps->len, ==, 1);
  step = g_ptr_array_index (plan->steps, 0);
  g_assert_cmpuint (step->checks->len, ==, 1);
  g_assert_cmpstr (((PdPlanCheck *) g_ptr_array_index (step->checks, 0))->description, ==, "kept");

  pd_source_get_plan_async (source, BAD_ID, NULL, store_result, &r3);
  g_assert_false (pd_source_get_plan_finish (source, wait_result (&r3), &none, &error));
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID);
  g_assert_null (none);
  g_clear_error (&error);

  pd_source_get_plan_history_async (source, ODEK_ID, NULL, store_result, &r4);
  history = pd_source_get_plan_history_finish (source, wait_result (&r4), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (history->len, ==, 1);

  /* A sequence number that is not one: the event's position stands in. */
  pd_source_get_events_async (source, ODEK_ID, 0, 100, NULL, store_result, &r5);
  events = pd_source_get_events_finish (source, wait_result (&r5), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 2);
  g_assert_cmpint (((PdStoredEvent *) g_ptr_array_index (events, 0))->seq, ==, 1);
  g_assert_cmpint (((PdStoredEvent *) g_ptr_array_index (events, 1))->seq, ==, 9);
}

/* An endpoint's plan of 20 000 steps, each with six checks and long
 * texts: what is kept is bounded (500 steps, four checks, texts the plan
 * engine's lengths) and the rest is counted, not built (tried as an
 * attacker would: the window froze for minutes on it). */
static void
test_plan_bounded (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(PdSource) source = odek_source (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) r1 = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(GString) body = g_string_new ("{\"found\":true,\"version\":3,\"revision\":{\"reason\":\"");
  g_autofree char *long_text = g_strnfill (5000, 'x');
  PdPlanStep *step;

  g_string_append_printf (body, "%s\",\"summary\":[", long_text);
  for (guint i = 0; i < 20; i++)
    g_string_append_printf (body, "%s\"%s\"", i ? "," : "", long_text);
  g_string_append (body, "]},\"steps\":[");
  /* 5 000 steps: about 2.3 MB, within a plan reply's bound (6 MiB). */
  for (guint i = 0; i < 5000; i++)
    {
      g_string_append_printf (body, "%s{\"id\":\"s%u\",\"title\":\"%s\",\"note\":\"%s\",\"status\":\"done\",\"checks\":[",
                              i ? "," : "", i, i == 0 ? long_text : "Step", i == 0 ? long_text : "n");
      for (guint j = 0; j < 6; j++)
        g_string_append_printf (body, "%s{\"id\":\"c%u\",\"description\":\"%s\",\"status\":\"passed\"}",
                                j ? "," : "", j, i == 0 ? long_text : "d");
      g_string_append (body, "]}");
    }
  g_string_append (body, "]}");
  f->odek_plan = g_string_free_to_bytes (g_steal_pointer (&body));

  pd_source_get_plan_async (source, ODEK_ID, NULL, store_result, &r1);
  g_assert_true (pd_source_get_plan_finish (source, wait_result (&r1), &plan, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (plan->steps->len, ==, 500);   /* PD_REMOTE_PLAN_MAX_STEPS */
  g_assert_cmpuint (plan->n_hidden, ==, 5000 - 500);
  step = g_ptr_array_index (plan->steps, 0);
  g_assert_cmpuint (step->checks->len, ==, PD_PLAN_MAX_CHECKS);
  g_assert_cmpint (g_utf8_strlen (step->title, -1), ==, PD_PLAN_MAX_TITLE_CHARS);
  g_assert_true (g_str_has_suffix (step->title, "…"));
  g_assert_cmpint (g_utf8_strlen (step->note, -1), ==, PD_PLAN_MAX_NOTE_CHARS);
  g_assert_cmpint (g_utf8_strlen (((PdPlanCheck *) g_ptr_array_index (step->checks, 0))->description, -1), ==,
                   PD_PLAN_MAX_PERSISTED_DESC_CHARS);
  g_assert_cmpint (g_utf8_strlen (plan->revision->reason, -1), ==, PD_PLAN_MAX_REVISION_REASON);
  g_assert_cmpuint (plan->revision->summary->len, ==, PD_PLAN_MAX_REVISION_SUMMARY);
  step = g_ptr_array_index (plan->steps, 500 - 1);
  g_assert_cmpstr (step->id, ==, "s499");
  g_assert_cmpstr (step->title, ==, "Step");
}

/* A NUL in an endpoint's text (hostile.py HNUL=1): json-glib ends a string
 * at it, and "before\u0000after" showed "before" alone; it shows as "␀"
 * with the rest kept.  An escaped backslash before "u0000" is no NUL. */
static void
test_plan_nul (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(PdSource) source = odek_source (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) r1 = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  PdPlanStep *step;

  {
    static const char body[] = "{\"found\":true,\"version\":1,\"steps\":[{\"id\":\"s1\",\"title\":\"before\\u0000after\","
                               "\"note\":\"a\\\\u0000b \\\\\\u0000c\"}]}";

    f->odek_plan = g_bytes_new_static (body, sizeof body - 1);
  }
  pd_source_get_plan_async (source, ODEK_ID, NULL, store_result, &r1);
  g_assert_true (pd_source_get_plan_finish (source, wait_result (&r1), &plan, &error));
  g_assert_no_error (error);
  step = g_ptr_array_index (plan->steps, 0);
  g_assert_cmpstr (step->title, ==, "before␀after");
  g_assert_cmpstr (step->note, ==, "a\\u0000b \\␀c");
}

/* An endpoint without runs says so, in words a person can act on: odek's
 * HEAD (no /api/prompt, no /api/runs: its mux answers 404 in plain text)
 * and a serve with no engine (501). */
static void
test_runs_unsupported (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(PdSource) odek = odek_source (f);
  g_autoptr(PdSource) ours = our_source (f);
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL, r3 = NULL, r4 = NULL, r5 = NULL;
  g_autoptr(GError) e1 = NULL, e2 = NULL, e3 = NULL, e4 = NULL, e5 = NULL;
  g_autoptr(PdRemoteRun) started = NULL, followed = NULL, ours_started = NULL;
  PdRemoteRun question = { .run_id = (char *) "run-1", .session_id = (char *) ODEK_ID,
                           .status = (char *) "waiting_approval", .approval_id = (char *) "apr-1" };

  pd_remote_source_start_run_async (PD_REMOTE_SOURCE (odek), ODEK_ID, "Go on", NULL, store_result, &r1);
  started = pd_remote_source_start_run_finish (PD_REMOTE_SOURCE (odek), wait_result (&r1), &e1);
  g_assert_null (started);
  g_assert_error (e1, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (e1->message, "does not run sessions for this app"));
  g_assert_nonnull (strstr (e1->message, "/api/prompt"));

  pd_remote_source_get_run_async (PD_REMOTE_SOURCE (odek), "run-1", NULL, store_result, &r2);
  followed = pd_remote_source_get_run_finish (PD_REMOTE_SOURCE (odek), wait_result (&r2), &e2);
  g_assert_null (followed);
  g_assert_error (e2, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (e2->message, "cannot follow it"));

  pd_remote_source_answer_approval_async (PD_REMOTE_SOURCE (odek), &question, TRUE, NULL, store_result, &r3);
  g_assert_false (pd_remote_source_answer_approval_finish (PD_REMOTE_SOURCE (odek), wait_result (&r3), &e3));
  g_assert_error (e3, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (e3->message, "takes no approvals from this app"));

  pd_remote_source_cancel_async (PD_REMOTE_SOURCE (odek), ODEK_ID, NULL, store_result, &r4);
  g_assert_false (pd_remote_source_cancel_finish (PD_REMOTE_SOURCE (odek), wait_result (&r4), &e4));
  g_assert_error (e4, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED);

  /* Ours without an engine: 501 with its reason. */
  pd_remote_source_start_run_async (PD_REMOTE_SOURCE (ours), NULL, "Start", NULL, store_result, &r5);
  ours_started = pd_remote_source_start_run_finish (PD_REMOTE_SOURCE (ours), wait_result (&r5), &e5);
  g_assert_null (ours_started);
  g_assert_error (e5, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (e5->message, "this server does not run prompts"));

  /* Finding a session's live run: odek's HEAD cannot say; ours has none. */
  {
    g_autoptr(GAsyncResult) r6 = NULL, r7 = NULL;
    g_autoptr(GError) e6 = NULL, e7 = NULL;
    g_autoptr(PdRemoteRun) odek_live = NULL, ours_live = NULL;

    pd_remote_source_find_run_async (PD_REMOTE_SOURCE (odek), ODEK_ID, NULL, store_result, &r6);
    odek_live = pd_remote_source_find_run_finish (PD_REMOTE_SOURCE (odek), wait_result (&r6), &e6);
    g_assert_null (odek_live);
    g_assert_error (e6, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED);

    pd_remote_source_find_run_async (PD_REMOTE_SOURCE (ours), f->id, NULL, store_result, &r7);
    ours_live = pd_remote_source_find_run_finish (PD_REMOTE_SOURCE (ours), wait_result (&r7), &e7);
    g_assert_no_error (e7);
    g_assert_null (ours_live);
  }
}

/* A server that answers with an endless body: the source reads a bounded
 * part, says the reply is too large, and stays usable.  It read the whole
 * body into memory (4 GB within 36 s, tried as an attacker would). */
static void
test_endless_reply (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(PdSource) source = odek_source (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL;
  g_autoptr(PdSessionPage) page = NULL;
  g_autoptr(PdSessionInfo) info = NULL;

  f->odek_huge = TRUE;
  pd_source_list_sessions_async (source, NULL, FALSE, 0, 50, NULL, store_result, &r1);
  while (r1 == NULL)
    {
      g_main_context_iteration (NULL, TRUE);
      /* what was sent and not yet read waits in socket buffers: a few MiB.
       * A list is bounded by the rows it asked for, far under the 64 MiB of
       * any reply: an endpoint that ignored the limit had 26 MB parsed at
       * each refresh (tried as an attacker would). */
      g_assert_cmpuint (f->endless_first, <, PD_LIST_REPLY_MIN_BYTES + 16 * 1024 * 1024);
    }
  page = pd_source_list_sessions_finish (source, r1, &error);
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "too large"));
  g_test_message ("read %" G_GSIZE_FORMAT " bytes: %s", f->endless_first, error->message);
  g_clear_error (&error);

  /* The next request is answered as usual. */
  pd_source_get_session_async (source, ODEK_ID, NULL, store_result, &r2);
  info = pd_source_get_session_finish (source, wait_result (&r2), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (info->id, ==, ODEK_ID);
}

/* A body that never ends nor grows is cut at the deadline; libsoup's own
 * timeout counts only idle time between reads. */
static void
test_reply_deadline (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(SoupSession) session = soup_session_new ();
  /* odek_url is "http://127.0.0.1:PORT/?token=…" */
  g_autofree char *root = g_strndup (f->odek_url, strstr (f->odek_url, "/?") - f->odek_url);
  g_autofree char *url = g_strconcat (root, "/trickle", NULL);
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GAsyncResult) r1 = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  /* Its pace would let it go on for 60 s: the whole is bounded too. */
  PdReplyPace pace = { 60000, 0, 1 };

  f->odek_trickle = TRUE;
  msg = soup_message_new ("GET", url);
  pd_bounded_reply_send_async (session, msg, 1024, &pace, NULL, store_result, &r1);
  bytes = pd_bounded_reply_send_finish (msg, wait_result (&r1), &error);
  g_assert_null (bytes);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
}

/* A reply sent a byte at a time (tried as an attacker would) held the
 * endpoint's one connection until its deadline of 120 s, and every other
 * request of the window to that endpoint waited behind it.  The others go
 * on other connections meanwhile; a trickled reply ends at its pace (a
 * list's set here: a minute, then half a second, then 1 000 bytes a
 * second) with an error that says the endpoint is too slow, and its
 * connection is dropped, not read on, for the next request waiting. */
static void
test_trickled_reply (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(PdSource) source = odek_source (f);
  PdRemoteSource *remote = PD_REMOTE_SOURCE (source);
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL, r3 = NULL;
  GAsyncResult *cut[3] = { NULL };
  g_autoptr(PdSessionInfo) info = NULL, again = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(PdSessionPage) first = NULL;
  gboolean trickling = FALSE;

  remote->list_pace_ms = 60000;
  remote->list_pace_rate = 1000;
  f->odek_trickle_list = 1;
  pd_source_list_sessions_async (source, NULL, FALSE, 0, 50, cancellable, store_result, &r1);
  while (f->trickles_started == 0)
    g_main_context_iteration (NULL, TRUE);

  /* Asked while the list trickles: answered while it still does. */
  pd_source_get_session_async (source, ODEK_ID, NULL, store_result, &r2);
  info = pd_source_get_session_finish (source, wait_result (&r2), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (info->id, ==, ODEK_ID);
  trickling = r1 == NULL && f->trickles_ended == 0;
  g_assert_true (trickling);

  /* Three more lists trickle on the other connections, and a request
   * waits for one: each list is cut, said as too slow, and the request
   * gets the connection it frees. */
  remote->list_pace_ms = 500;
  for (guint i = 0; i < G_N_ELEMENTS (cut); i++)
    pd_source_list_sessions_async (source, NULL, FALSE, 0, 50, NULL, store_result, &cut[i]);
  pd_source_get_session_async (source, ODEK_ID, NULL, store_result, &r3);
  for (guint i = 0; i < G_N_ELEMENTS (cut); i++)
    {
      g_autoptr(PdSessionPage) page = pd_source_list_sessions_finish (source, wait_result (&cut[i]), &error);

      g_assert_null (page);
      g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE);
      g_assert_nonnull (strstr (error->message, "too slow to answer"));
      g_test_message ("%s", error->message);
      g_clear_error (&error);
      g_clear_object (&cut[i]);
    }
  g_assert_cmpint (pd_remote_source_get_state (remote), ==, PD_REMOTE_OFFLINE);
  g_assert_nonnull (strstr (pd_remote_source_get_state_message (remote), "too slow to answer"));
  again = pd_source_get_session_finish (source, wait_result (&r3), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (again->id, ==, ODEK_ID);

  /* The server saw the cut ones' connections go; the first still trickles. */
  while (f->trickles_ended < f->trickles_started - 1)
    g_main_context_iteration (NULL, TRUE);
  g_assert_null (r1);
  g_cancellable_cancel (cancellable);
  first = pd_source_list_sessions_finish (source, wait_result (&r1), &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

/* A reply that takes longer than its first part's time but comes at the
 * least rate or faster (about 20 000 bytes a second for 1.5 s, the least
 * 1 000 after 1 s) is read whole: a large export on a slow link is not
 * cut. */
static void
test_steady_reply (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(PdSource) source = odek_source (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) r1 = NULL;
  g_autoptr(PdSessionPage) page = NULL;

  PD_REMOTE_SOURCE (source)->list_pace_ms = 1000;
  PD_REMOTE_SOURCE (source)->list_pace_rate = 1000;
  f->odek_trickle_list = 2;
  pd_source_list_sessions_async (source, NULL, FALSE, 0, 50, NULL, store_result, &r1);
  page = pd_source_list_sessions_finish (source, wait_result (&r1), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (page->sessions->len, ==, 1);
}

/* A plan of @size bytes or about: two steps, and a member no reader
 * knows holding an array of small objects (what makes a parse long), each
 * with a line of text: as many values for its size as a real reply
 * holds, not the "{"a":1}" a byte apiece that is refused unparsed. */
static GBytes *
padded_plan (gsize size)
{
  GString *text = g_string_sized_new (size + 256);

  g_string_append (text, "{\"session_id\":\"" ODEK_ID "\",\"version\":3,\"found\":true,\"steps\":["
                         "{\"id\":\"s1\",\"title\":\"Read\",\"status\":\"done\"},"
                         "{\"id\":\"s2\",\"title\":\"Write\",\"status\":\"in_progress\"}],\"padding\":[{\"a\":\"a line\"}");
  while (text->len < size)
    g_string_append (text, ",{\"note\":\"a line of a long session\"}");
  g_string_append (text, "]}");
  return g_string_free_to_bytes (text);
}

/* The CPU time of the calling thread, in µs: what it spent, whatever the
 * machine's load (the wall time between ticks grows with it). */
static gint64
thread_cpu_us (void)
{
  struct timespec ts;

  g_assert_cmpint (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts), ==, 0);
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

typedef struct
{
  gint64 last;      /* the main thread's CPU µs at the last tick, or at the start */
  gint64 max_gap;   /* the most it spent between two ticks */
  guint  ticks;
} Ticks;

static gboolean
tick (gpointer data)
{
  Ticks *ticks = data;
  gint64 now = thread_cpu_us ();

  ticks->max_gap = MAX (ticks->max_gap, now - ticks->last);
  ticks->last = now;
  ticks->ticks++;
  return G_SOURCE_CONTINUE;
}

/* A hostile endpoint answering a plan with 16 MB (under the 64 MiB of any
 * reply) held the window 6.4 s and 1.6 GB while it was parsed on the main
 * context (tried as an attacker would).  A plan's reply is bounded to fit
 * a plan: 16 MB is refused unread, with an error that says so, and the
 * source answers the next request as usual. */
static void
test_plan_too_large (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(PdSource) source = odek_source (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(PdSessionInfo) info = NULL;

  f->odek_plan = padded_plan (16 * 1000 * 1000);
  pd_source_get_plan_async (source, ODEK_ID, NULL, store_result, &r1);
  g_assert_false (pd_source_get_plan_finish (source, wait_result (&r1), &plan, &error));
  g_assert_null (plan);
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "too large"));
  g_test_message ("%s", error->message);
  g_clear_error (&error);

  pd_source_get_session_async (source, ODEK_ID, NULL, store_result, &r2);
  info = pd_source_get_session_finish (source, wait_result (&r2), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (info->id, ==, ODEK_ID);
}

/* A reply within its size bound whose tree would be out of proportion to
 * it: 6 MB of "[{},{},...]" as a plan took the window from 178 MB to
 * 1.6 GB, every "{}" an object with its hash table (tried as an attacker
 * would).  It is refused before json-glib builds anything, with an error
 * that says why, on the worker (over PD_REMOTE_REPLY_INLINE_BYTES) as
 * in place (under it: 60 KB of "[1,1,...]"), and the source answers the
 * next request as usual; so is a 24 MiB export of "{}".  A legit plan as
 * dense as a real one (400 steps of six checks each, short texts) still
 * reads. */
static void
test_plan_bloated (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(PdSource) source = odek_source (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(GString) body = NULL;
  const char *items[] = { "{}", "1" };
  gsize sizes[] = { 6 * 1000 * 1000, 60 * 1000 };

  for (guint k = 0; k < G_N_ELEMENTS (items); k++)
    {
      g_autoptr(GAsyncResult) r1 = NULL;

      body = g_string_new ("[");
      while (body->len < sizes[k])
        g_string_append_printf (body, "%s%s", body->len > 1 ? "," : "", items[k]);
      g_string_append (body, "]");
      g_clear_pointer (&f->odek_plan, g_bytes_unref);
      f->odek_plan = g_string_free_to_bytes (g_steal_pointer (&body));
      g_assert_cmpuint (g_bytes_get_size (f->odek_plan), <, PD_PLAN_REPLY_MAX_BYTES);
      /* Asked again at once, not after the failed read's wait (as a
       * Retry does: pd-remote-source-backoff.c). */
      pd_remote_source_forget_failures (PD_REMOTE_SOURCE (source), ODEK_ID);

      pd_source_get_plan_async (source, ODEK_ID, NULL, store_result, &r1);
      g_assert_false (pd_source_get_plan_finish (source, wait_result (&r1), &plan, &error));
      g_assert_null (plan);
      g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID);
      g_assert_nonnull (strstr (error->message, "too many values"));
      g_test_message ("%s", error->message);
      g_clear_error (&error);
    }

  {
    g_autoptr(GAsyncResult) r2 = NULL;

    pd_source_get_session_async (source, ODEK_ID, NULL, store_result, &r2);
    info = pd_source_get_session_finish (source, wait_result (&r2), &error);
    g_assert_no_error (error);
    g_assert_cmpstr (info->id, ==, ODEK_ID);
  }

  /* The export too, with its 64 MiB bound: 24 MiB of "{}" took the window
   * to 2.55 GB, kept after. */
  {
    g_autoptr(GAsyncResult) r4 = NULL;
    g_autoptr(JsonArray) messages = NULL;

    body = g_string_new ("{\"id\":\"" ODEK_ID "\",\"messages\":[{}");
    while (body->len < 24 * 1024 * 1024)
      g_string_append (body, ",{}");
    g_string_append (body, "]}");
    f->odek_export = g_string_free_to_bytes (g_steal_pointer (&body));
    pd_source_get_messages_async (source, ODEK_ID, NULL, store_result, &r4);
    messages = pd_source_get_messages_finish (source, wait_result (&r4), &error);
    g_assert_null (messages);
    g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID);
    g_assert_nonnull (strstr (error->message, "too many values"));
    g_clear_error (&error);
  }

  body = g_string_new ("{\"found\":true,\"version\":3,\"steps\":[");
  for (guint i = 0; i < 400; i++)
    {
      g_string_append_printf (body, "%s{\"id\":\"s%u\",\"title\":\"S\",\"status\":\"done\",\"checks\":[",
                              i ? "," : "", i);
      for (guint j = 0; j < 6; j++)
        g_string_append_printf (body, "%s{\"id\":\"c%u\",\"description\":\"d\",\"status\":\"passed\"}",
                                j ? "," : "", j);
      g_string_append (body, "]}");
    }
  g_string_append (body, "]}");
  g_clear_pointer (&f->odek_plan, g_bytes_unref);
  f->odek_plan = g_string_free_to_bytes (g_steal_pointer (&body));
  g_assert_cmpuint (g_bytes_get_size (f->odek_plan), >, PD_REMOTE_REPLY_INLINE_BYTES);

  {
    g_autoptr(GAsyncResult) r3 = NULL;

    pd_remote_source_forget_failures (PD_REMOTE_SOURCE (source), ODEK_ID);
    pd_source_get_plan_async (source, ODEK_ID, NULL, store_result, &r3);
    g_assert_true (pd_source_get_plan_finish (source, wait_result (&r3), &plan, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (plan->steps->len, ==, 400);
    g_assert_cmpuint (((PdPlanStep *) g_ptr_array_index (plan->steps, 399))->checks->len, ==, PD_PLAN_MAX_CHECKS);
  }
}

/* A large plan reply the bound lets through is parsed off the main
 * context: a timeout of 1 ms keeps ticking meanwhile, and the most CPU
 * time the main thread spent between two ticks is far under what the same
 * parse (and the free of its tree) takes on it.  CPU time, not wall time:
 * the test runs beside others on a loaded machine. */
static void
test_large_plan_off_main (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(PdSource) source = odek_source (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) r1 = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  Ticks ticks = { 0 };
  gint64 inline_us;
  guint id;

  f->odek_plan = padded_plan (3 * 1024 * 1024);
  g_assert_cmpuint (g_bytes_get_size (f->odek_plan), <, PD_PLAN_REPLY_MAX_BYTES);

  /* What the parse costs on the main context. */
  {
    g_autoptr(JsonParser) parser = json_parser_new_immutable ();
    gint64 start = thread_cpu_us ();

    g_assert_true (json_parser_load_from_data (parser, g_bytes_get_data (f->odek_plan, NULL),
                                               (gssize) g_bytes_get_size (f->odek_plan), NULL));
    g_clear_object (&parser);
    inline_us = thread_cpu_us () - start;
  }

  ticks.last = thread_cpu_us ();
  id = g_timeout_add (1, tick, &ticks);
  pd_source_get_plan_async (source, ODEK_ID, NULL, store_result, &r1);
  g_assert_true (pd_source_get_plan_finish (source, wait_result (&r1), &plan, &error));
  tick (&ticks);
  g_source_remove (id);
  g_assert_no_error (error);
  g_assert_nonnull (plan);
  g_assert_cmpuint (plan->steps->len, ==, 2);
  g_test_message ("parse on the main thread: %" G_GINT64_FORMAT " ms of CPU; while the source's ran: %u ticks, "
                  "at most %" G_GINT64_FORMAT " ms of the main thread's CPU between two",
                  inline_us / 1000, ticks.ticks, ticks.max_gap / 1000);
  g_assert_cmpuint (ticks.ticks, >, 10);
  g_assert_cmpint (ticks.max_gap, <, inline_us / 4);
}

/* An export over the size parsed in place: parsed on a worker, it
 * answers the plan history and the messages asked at once (one request),
 * the messages a part of its tree, kept after the answer. */
static void
test_large_export (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(PdSource) source = odek_source (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL;
  g_autoptr(GPtrArray) history = NULL;
  g_autoptr(JsonArray) messages = NULL;
  GString *text = g_string_new ("{\"id\":\"" ODEK_ID "\",\"messages\":[");
  guint n = 4000;

  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "%s{\"role\":\"user\",\"content\":\"Message %u of a long session\"}", i ? "," : "", i);
  g_string_append (text, "],\"plan_versions\":[{\"version\":1,\"created_at\":\"2026-01-01T10:00:00Z\",\"state\":"
                         "{\"version\":1,\"steps\":[{\"id\":\"s1\",\"title\":\"Read\",\"status\":\"in_progress\"}]}}]}");
  f->odek_export = g_string_free_to_bytes (text);
  g_assert_cmpuint (g_bytes_get_size (f->odek_export), >, PD_REMOTE_REPLY_INLINE_BYTES);

  pd_source_get_plan_history_async (source, ODEK_ID, NULL, store_result, &r1);
  pd_source_get_messages_async (source, ODEK_ID, NULL, store_result, &r2);
  history = pd_source_get_plan_history_finish (source, wait_result (&r1), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (history->len, ==, 1);
  messages = pd_source_get_messages_finish (source, wait_result (&r2), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (messages), ==, n);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (messages, n - 1), "content"), ==,
                   "Message 3999 of a long session");
}

int
main (int   argc,
      char *argv[])
{
  pd_test_remote_source_init (&argc, &argv);

  g_test_add ("/pd/remote-source/ours", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_ours, fixture_tear_down);
  g_test_add ("/pd/remote-source/imported-cancelled", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_imported_cancelled, fixture_tear_down);
  g_test_add ("/pd/remote-source/errors", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_errors, fixture_tear_down);
  g_test_add ("/pd/remote-source/rate-limited", Fixture, GUINT_TO_POINTER (2), fixture_set_up, test_rate_limited_by_ours, fixture_tear_down);
  g_test_add ("/pd/remote-source/endless-reply", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_endless_reply, fixture_tear_down);
  g_test_add ("/pd/remote-source/reply-deadline", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_reply_deadline, fixture_tear_down);
  g_test_add ("/pd/remote-source/trickled-reply", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_trickled_reply, fixture_tear_down);
  g_test_add ("/pd/remote-source/steady-reply", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_steady_reply, fixture_tear_down);
  g_test_add ("/pd/remote-source/odek-shapes", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_odek_shapes, fixture_tear_down);
  g_test_add ("/pd/remote-source/mistyped-elements", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_mistyped_elements, fixture_tear_down);
  g_test_add ("/pd/remote-source/plan-too-large", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_plan_too_large, fixture_tear_down);
  g_test_add ("/pd/remote-source/plan-bloated", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_plan_bloated, fixture_tear_down);
  g_test_add ("/pd/remote-source/large-plan-off-main", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_large_plan_off_main, fixture_tear_down);
  g_test_add ("/pd/remote-source/large-export", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_large_export, fixture_tear_down);
  g_test_add ("/pd/remote-source/plan-bounded", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_plan_bounded, fixture_tear_down);
  g_test_add ("/pd/remote-source/plan-nul", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_plan_nul, fixture_tear_down);
  g_test_add ("/pd/remote-source/runs-unsupported", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_runs_unsupported, fixture_tear_down);

  return g_test_run ();
}
