/* test-server-stream.c: PdServer on loopback port 0, in process, through
 * HTTP: events, the live stream (its slots, keep-alives, slow and many
 * watchers, disconnects) and runs (prompts, approvals' tokens, redaction,
 * stopping).  The server is pd-test-serve.h's, as test-server.c's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-server-stream"

#include "config.h"

#include "pd-test-serve.h"

static PdEvent *
event_for (const char *type,
           const char *session_id,
           const char *run_id)
{
  PdEvent *event = pd_event_new (type);

  pd_event_set_session_id (event, session_id);
  pd_event_set_run_id (event, run_id);
  return event;
}

/* pd_event_bus_emit() does not take the event. */
static void
emit (PdEventBus *bus,
      PdEvent    *event)
{
  pd_event_bus_emit (bus, event);
  pd_event_unref (event);
}

static void
test_events (Fixture       *f,
             gconstpointer  data)
{
  PdEventBus *bus = pd_server_get_bus (f->server);
  g_autofree char *by_session = g_strdup_printf ("/api/events?session_id=%s", f->plan_id);
  g_autofree char *stored = g_strdup_printf ("/api/events?session_id=%s&after_seq=0", f->plan_id);
  g_autoptr(Reply) all = NULL;
  g_autoptr(Reply) two = NULL;
  g_autoptr(Reply) session = NULL;
  g_autoptr(Reply) run = NULL;
  g_autoptr(Reply) bad = NULL;
  g_autoptr(Reply) bad_id = NULL;
  g_autoptr(Reply) from_store = NULL;
  g_autoptr(Reply) usage = NULL;
  JsonArray *events;

  emit (bus, event_for (PD_EVENT_RUN_STARTED, f->plan_id, "r1"));
  emit (bus, event_for (PD_EVENT_PLAN_CREATED, f->plan_id, "r1"));
  emit (bus, event_for (PD_EVENT_RUN_STARTED, f->done_id, "r2"));
  emit (bus, event_for (PD_EVENT_RUN_COMPLETED, f->plan_id, "r1"));
  pd_event_bus_flush (bus);

  all = request (f, "GET", "/api/events", NULL, TOKEN, NULL);
  g_assert_cmpuint (all->status, ==, 200);
  g_assert_cmpint (json_object_get_int_member (reply_object (all), "count"), ==, 4);

  /* The most recent two, oldest first. */
  two = request (f, "GET", "/api/events?limit=2", NULL, TOKEN, NULL);
  events = json_object_get_array_member (reply_object (two), "events");
  g_assert_cmpuint (json_array_get_length (events), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (events, 0), "session_id"), ==, f->done_id);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (events, 1), "type"), ==, "run_completed");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (events, 1), "schema"), ==, PD_EVENT_SCHEMA);

  session = request (f, "GET", by_session, NULL, TOKEN, NULL);
  g_assert_cmpint (json_object_get_int_member (reply_object (session), "count"), ==, 3);
  run = request (f, "GET", "/api/events?run_id=r2", NULL, TOKEN, NULL);
  g_assert_cmpint (json_object_get_int_member (reply_object (run), "count"), ==, 1);
  bad = request (f, "GET", "/api/events?limit=-3", NULL, TOKEN, NULL);
  g_assert_cmpuint (bad->status, ==, 400);
  bad_id = request (f, "GET", "/api/events?session_id=../x", NULL, TOKEN, NULL);
  g_assert_cmpuint (bad_id->status, ==, 400);

  /* Ours: the stored events, with their sequence numbers. */
  from_store = request (f, "GET", stored, NULL, TOKEN, NULL);
  g_assert_cmpuint (from_store->status, ==, 200);
  g_assert_cmpint (json_object_get_int_member (reply_object (from_store), "count"), ==, 3);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (reply_object (from_store), "seq")), ==, 3);

  usage = request (f, "GET", "/api/usage", NULL, TOKEN, NULL);
  g_assert_cmpint (json_object_get_int_member (reply_object (usage), "plans_created"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (reply_object (usage), "prompts_started"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (reply_object (usage), "prompts_completed"), ==, 1);
}

static gpointer
cancel_later (gpointer data)
{
  g_usleep (30 * G_USEC_PER_SEC);
  g_cancellable_cancel (data);
  g_object_unref (data);
  return NULL;
}

static GDataInputStream *open_stream (Fixture *f, const char *path, GCancellable *cancellable);

/* /api/health announces the stream's keepalive interval, and an idle
 * stream does hear its comment line again and again: a client that hears
 * nothing for a few intervals may take the server for gone. */
static void
test_stream_keepalive (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(Reply) health = request (f, "GET", "/api/health", NULL, TOKEN, NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GDataInputStream) stream = NULL;
  guint keepalives = 0;

  g_assert_cmpuint (health->status, ==, 200);
  g_assert_cmpint (json_object_get_int_member (reply_object (health), "keepalive_ms"), ==,
                   PD_SERVER_STREAM_KEEPALIVE_MS);
  g_assert_cmpint (PD_SERVER_STREAM_KEEPALIVE_MS, <=, 1000);

  g_thread_unref (g_thread_new ("cancel-later", cancel_later, g_object_ref (cancellable)));
  stream = open_stream (f, "/api/events/stream", cancellable);
  while (keepalives < 3)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *line = g_data_input_stream_read_line_utf8 (stream, NULL, cancellable, &error);

      g_assert_no_error (error);
      g_assert_nonnull (line);
      keepalives += g_strcmp0 (line, ": keepalive") == 0;
    }
  g_cancellable_cancel (cancellable);
}

static GDataInputStream *
open_stream (Fixture      *f,
             const char   *path,
             GCancellable *cancellable)
{
  g_autofree char *url = g_strconcat (f->base, path, NULL);
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);
  g_autoptr(GError) error = NULL;
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GDataInputStream) data = NULL;
  g_autofree char *first = NULL;

  soup_message_headers_replace (soup_message_get_request_headers (msg), "X-Odek-Ws-Token", TOKEN);
  stream = soup_session_send (f->session, msg, cancellable, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
  g_assert_cmpstr (soup_message_headers_get_content_type (soup_message_get_response_headers (msg), NULL), ==,
                   "text/event-stream");
  data = g_data_input_stream_new (stream);
  first = g_data_input_stream_read_line_utf8 (data, NULL, cancellable, &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (first, ":"));
  return g_steal_pointer (&data);
}

static void
test_prompt_and_stream (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GDataInputStream) stream = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(Reply) accepted = NULL;
  g_autoptr(GPtrArray) types = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *run_path = NULL;
  g_autofree char *plan_path = NULL;
  g_autoptr(Reply) plan = NULL;
  g_autoptr(Reply) run_reply = NULL;
  const char *run_id, *session_id;
  gint64 deadline;
  gboolean completed = FALSE;

  g_thread_unref (g_thread_new ("cancel-later", cancel_later, g_object_ref (cancellable)));
  stream = open_stream (f, "/api/events/stream", cancellable);

  accepted = request (f, "POST", "/api/prompt", "{\"message\":\"Do two things\"}", TOKEN, NULL);
  g_assert_cmpuint (accepted->status, ==, 202);
  g_assert_cmpstr (json_object_get_string_member (reply_object (accepted), "status"), ==, "running");
  run_id = json_object_get_string_member (reply_object (accepted), "run_id");
  session_id = json_object_get_string_member (reply_object (accepted), "session_id");
  g_assert_cmpuint (strlen (run_id), ==, 32);
  g_assert_true (pd_session_id_is_valid (session_id));

  while (!completed)
    {
      g_autofree char *line = g_data_input_stream_read_line_utf8 (stream, NULL, cancellable, &error);
      g_autoptr(PdEvent) event = NULL;

      g_assert_no_error (error);
      g_assert_nonnull (line);
      if (!g_str_has_prefix (line, "data: "))
        continue;
      event = pd_event_new_from_json (line + strlen ("data: "), &error);
      g_assert_no_error (error);
      g_assert_cmpstr (pd_event_get_run_id (event), ==, run_id);
      g_assert_cmpstr (pd_event_get_session_id (event), ==, session_id);
      g_ptr_array_add (types, g_strdup (pd_event_get_event_type (event)));
      if (g_strcmp0 (pd_event_get_event_type (event), PD_EVENT_RUN_FAILED) == 0)
        {
          g_autofree char *path = g_strdup_printf ("/api/runs/%s", run_id);
          g_autoptr(Reply) why = NULL;

          g_usleep (200000);
          why = request (f, "GET", path, NULL, TOKEN, NULL);
          g_error ("the run failed: %s", why->body);
        }
      completed = g_strcmp0 (pd_event_get_event_type (event), PD_EVENT_RUN_COMPLETED) == 0;
    }
  g_assert_cmpstr (g_ptr_array_index (types, 0), ==, PD_EVENT_RUN_STARTED);
  g_assert_true (g_ptr_array_find_with_equal_func (types, PD_EVENT_PLAN_CREATED, g_str_equal, NULL));

  /* The record of the run settles once the engine returned. */
  run_path = g_strdup_printf ("/api/runs/%s", run_id);
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  for (;;)
    {
      g_clear_pointer (&run_reply, reply_free);
      run_reply = request (f, "GET", run_path, NULL, TOKEN, NULL);
      g_assert_cmpuint (run_reply->status, ==, 200);
      if (g_strcmp0 (json_object_get_string_member (reply_object (run_reply), "status"), "running") != 0 ||
          g_get_monotonic_time () > deadline)
        break;
      g_usleep (10 * 1000);
    }
  g_assert_cmpstr (json_object_get_string_member (reply_object (run_reply), "status"), ==, "completed");
  g_assert_cmpstr (json_object_get_string_member (reply_object (run_reply), "result"), ==, "All done.");
  g_assert_cmpint (json_object_get_int_member (reply_object (run_reply), "input_tokens"), ==, 22);

  plan_path = g_strdup_printf ("/api/sessions/%s/plan", session_id);
  plan = request (f, "GET", plan_path, NULL, TOKEN, NULL);
  /* The run finished its plan: found, and collapsed as the transcript shows it. */
  g_assert_true (json_object_get_boolean_member (reply_object (plan), "found"));
  g_assert_cmpint (json_object_get_int_member (reply_object (plan), "version"), ==, 2);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (reply_object (plan), "steps")), ==, 0);

  g_cancellable_cancel (cancellable);
}

/* The session's token, as a client learns it: from a read with the
 * instance token header. */

/* A run that goes on until it is cancelled, however slow the machine: four
 * commands of ten minutes each (the shell tool's longest), each asked
 * about first, which nobody answers here (60 s each before it is denied):
 * four minutes at least, more than any test may take, valgrind's included. */
#define HELD_TURN \
  "{\"content\":\"thinking\",\"tool_calls\":[{\"name\":\"shell\"," \
  "\"arguments\":{\"command\":\"sleep 600\",\"timeout_ms\":600000}}]},"
static const char *held_run = "{\"turns\":[" HELD_TURN HELD_TURN HELD_TURN HELD_TURN "{\"content\":\"done\"}]}";
#undef HELD_TURN

static gboolean
run_is_live (const char *status)
{
  return g_strcmp0 (status, "running") == 0 || g_strcmp0 (status, "waiting_approval") == 0;
}

static const char *
run_status (Fixture    *f,
            const char *run_id,
            Reply     **keep)
{
  g_autofree char *path = g_strdup_printf ("/api/runs/%s", run_id);

  g_clear_pointer (keep, reply_free);
  *keep = request (f, "GET", path, NULL, TOKEN, NULL);
  g_assert_cmpuint ((*keep)->status, ==, 200);
  return json_object_get_string_member (reply_object (*keep), "status");
}

/* A run that continues a session, and a cancel, change that session: the
 * session's own token is needed, as for rename and delete (the instance
 * token alone let anyone continue or stop anyone's session). */
static void
test_session_changes_need_token (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *body = g_strdup_printf ("{\"message\":\"Take it over\",\"session_id\":\"%s\"}", f->plan_id);
  g_autofree char *cancel_path = g_strdup_printf ("/api/cancel?session_id=%s", f->plan_id);
  g_autofree char *token = session_token_of (f, f->plan_id);
  g_autofree char *other_token = session_token_of (f, f->plain_id);
  g_autofree char *cookie = g_strdup_printf ("session_token=%s", token);
  const char *unknown_id = "20260101-0123456789abcdef0123456789abcdef";
  g_autofree char *unknown_body = g_strdup_printf ("{\"message\":\"hi\",\"session_id\":\"%s\"}", unknown_id);
  g_autofree char *unknown_cancel = g_strdup_printf ("/api/cancel?session_id=%s", unknown_id);
  g_autoptr(GError) error = NULL;
  g_autoptr(Reply) runs = NULL;
  g_autoptr(Reply) status = NULL;
  g_autofree char *run_id = NULL;
  gint64 deadline;

  g_assert_true (g_file_set_contents (f->replay_path, held_run, -1, &error));

  /* Continuing: the instance token alone, an empty, a wrong, another
   * session's token: 401, and no run. */
  {
    g_autoptr(Reply) bare = request (f, "POST", "/api/prompt", body, TOKEN, NULL);
    g_autoptr(Reply) empty = request (f, "POST", "/api/prompt", body, TOKEN, "X-Session-Token", "", NULL);
    g_autoptr(Reply) wrong = request (f, "POST", "/api/prompt", body, TOKEN, "X-Session-Token", "0000", NULL);
    g_autoptr(Reply) other = request (f, "POST", "/api/prompt", body, TOKEN, "X-Session-Token", other_token, NULL);
    g_autoptr(Reply) unknown = request (f, "POST", "/api/prompt", unknown_body, TOKEN, "X-Session-Token", token, NULL);

    g_assert_cmpuint (bare->status, ==, 401);
    g_assert_cmpstr (error_of (bare), ==, "invalid session token");
    g_assert_cmpuint (empty->status, ==, 401);
    g_assert_cmpuint (wrong->status, ==, 401);
    g_assert_cmpuint (other->status, ==, 401);
    g_assert_cmpuint (unknown->status, ==, 404);
    g_assert_cmpstr (error_of (unknown), ==, "session not found");
    runs = request (f, "GET", "/api/runs", NULL, TOKEN, NULL);
    g_assert_cmpint (json_object_get_int_member (reply_object (runs), "count"), ==, 0);
  }

  /* With the token (the header, or the cookie): the run starts. */
  {
    g_autoptr(Reply) accepted = request (f, "POST", "/api/prompt", body, TOKEN, "Cookie", cookie, NULL);

    g_assert_cmpuint (accepted->status, ==, 202);
    g_assert_cmpstr (json_object_get_string_member (reply_object (accepted), "session_id"), ==, f->plan_id);
    run_id = g_strdup (json_object_get_string_member (reply_object (accepted), "run_id"));
  }

  /* Cancelling it: 401 without the token, and the run goes on; 404 for a
   * session that is not there; with the token it is cancelled. */
  {
    g_autoptr(Reply) bare = request (f, "POST", cancel_path, NULL, TOKEN, NULL);
    g_autoptr(Reply) empty = request (f, "POST", cancel_path, NULL, TOKEN, "X-Session-Token", "", NULL);
    g_autoptr(Reply) other = request (f, "POST", cancel_path, NULL, TOKEN, "X-Session-Token", other_token, NULL);
    g_autoptr(Reply) unknown = request (f, "POST", unknown_cancel, NULL, TOKEN, "X-Session-Token", token, NULL);
    g_autoptr(Reply) allowed = NULL;

    g_assert_cmpuint (bare->status, ==, 401);
    g_assert_cmpstr (error_of (bare), ==, "invalid session token");
    g_assert_cmpuint (empty->status, ==, 401);
    g_assert_cmpuint (other->status, ==, 401);
    g_assert_cmpuint (unknown->status, ==, 404);
    g_assert_cmpstr (error_of (unknown), ==, "session not found");
    /* Still going: at its command, or asking to run it (serve asks). */
    g_assert_true (run_is_live (run_status (f, run_id, &status)));

    allowed = request (f, "POST", cancel_path, NULL, TOKEN, "X-Session-Token", token, NULL);
    g_assert_cmpuint (allowed->status, ==, 200);
    g_assert_false (json_object_get_boolean_member (reply_object (allowed), "idle"));
  }

  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (run_is_live (run_status (f, run_id, &status)) && g_get_monotonic_time () < deadline)
    g_usleep (10 * 1000);
  g_assert_cmpstr (run_status (f, run_id, &status), ==, "cancelled");
}

static void
test_prompt_errors (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(Reply) bad_json = request (f, "POST", "/api/prompt", "not json", TOKEN, NULL);
  /* Whitespace parses to no document at all (found by fuzzing). */
  g_autoptr(Reply) blank = request (f, "POST", "/api/prompt", " \n ", TOKEN, NULL);
  g_autoptr(Reply) no_message = request (f, "POST", "/api/prompt", "{\"session_id\":null}", TOKEN, NULL);
  g_autoptr(Reply) bad_id = request (f, "POST", "/api/prompt", "{\"message\":\"hi\",\"session_id\":\"../../x\"}", TOKEN, NULL);
  g_autoptr(Reply) unknown = request (f, "POST", "/api/prompt",
                                      "{\"message\":\"hi\",\"session_id\":\"20260101-0123456789abcdef0123456789abcdef\"}", TOKEN, NULL);
  g_autoptr(Reply) get = request (f, "GET", "/api/prompt", NULL, TOKEN, NULL);
  g_autoptr(Reply) no_run = request (f, "GET", "/api/runs/ffff", NULL, TOKEN, NULL);
  g_autoptr(Reply) runs = request (f, "GET", "/api/runs", NULL, TOKEN, NULL);
  g_autoptr(Reply) cancel_missing = request (f, "POST", "/api/cancel", NULL, TOKEN, NULL);
  g_autoptr(Reply) cancel_no_session = request (f, "POST", "/api/cancel?session_id=..%2Fx", NULL, TOKEN, "X-Session-Token", "", NULL);
  g_autofree char *cancel_path = g_strdup_printf ("/api/cancel?session_id=%s", f->plan_id);
  g_autofree char *plan_token = session_token_of (f, f->plan_id);
  g_autoptr(Reply) cancel_idle = request (f, "POST", cancel_path, NULL, TOKEN, "X-Session-Token", plan_token, NULL);
  g_autoptr(Reply) cancel_get = request (f, "GET", cancel_path, NULL, TOKEN, NULL);

  g_assert_cmpuint (bad_json->status, ==, 400);
  g_assert_cmpuint (blank->status, ==, 400);
  g_assert_cmpuint (no_message->status, ==, 400);
  g_assert_cmpstr (error_of (no_message), ==, "message required");
  g_assert_cmpuint (bad_id->status, ==, 400);
  g_assert_cmpuint (unknown->status, ==, 404);
  g_assert_cmpuint (get->status, ==, 405);
  g_assert_cmpuint (no_run->status, ==, 404);
  g_assert_cmpuint (runs->status, ==, 200);
  g_assert_cmpuint (cancel_missing->status, ==, 400);
  /* An id no session can have is no session: 404, as odek answers. */
  g_assert_cmpuint (cancel_no_session->status, ==, 404);
  g_assert_cmpuint (cancel_idle->status, ==, 200);
  g_assert_true (json_object_get_boolean_member (reply_object (cancel_idle), "idle"));
  g_assert_cmpstr (json_object_get_string_member (reply_object (cancel_idle), "session_id"), ==, f->plan_id);
  g_assert_cmpuint (cancel_get->status, ==, 405);
}

/* What a run answers is served to anyone with the instance token: a secret
 * the model repeated (a key it read in a file) is redacted as in the store. */
static void
test_runs_redacted (Fixture       *f,
                    gconstpointer  data)
{
  const char *replay =
    "{\"turns\":[{\"content\":\"Found it: OPENAI_API_KEY=sk-proj-AbCdEfGhIjKlMnOpQrStUvWx_yz-0123456789 and password=hunter2\"}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(Reply) accepted = NULL;
  g_autoptr(Reply) one = NULL;
  g_autoptr(Reply) all = NULL;
  g_autofree char *run_path = NULL;
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  g_assert_true (g_file_set_contents (f->replay_path, replay, -1, &error));
  accepted = request (f, "POST", "/api/prompt", "{\"message\":\"Look for the key\"}", TOKEN, NULL);
  g_assert_cmpuint (accepted->status, ==, 202);
  run_path = g_strdup_printf ("/api/runs/%s", json_object_get_string_member (reply_object (accepted), "run_id"));

  do
    {
      g_clear_pointer (&one, reply_free);
      g_usleep (10 * 1000);
      one = request (f, "GET", run_path, NULL, TOKEN, NULL);
      g_assert_cmpuint (one->status, ==, 200);
    }
  while (g_strcmp0 (json_object_get_string_member (reply_object (one), "status"), "running") == 0 &&
         g_get_monotonic_time () < deadline);
  g_assert_cmpstr (json_object_get_string_member (reply_object (one), "status"), ==, "completed");
  all = request (f, "GET", "/api/runs", NULL, TOKEN, NULL);

  g_assert_null (strstr (one->body, "sk-proj-AbCdEf"));
  g_assert_null (strstr (one->body, "hunter2"));
  g_assert_null (strstr (all->body, "sk-proj-AbCdEf"));
  g_assert_null (strstr (all->body, "hunter2"));
  g_assert_cmpstr (json_object_get_string_member (reply_object (one), "result"), ==,
                   "Found it: OPENAI_API_KEY=" PD_REDACTED " and password=" PD_REDACTED);
}

/* libsoup 3.2 kept every kept-alive connection its client closed open in
 * CLOSE-WAIT (one descriptor each, for good: the server stopped answering
 * after about 1 000).  With the token, without it, and closed with a reset:
 * the server's sockets are all closed again. */
static void
test_keepalive_closed (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *with_token = g_strdup_printf ("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                 "X-Odek-Ws-Token: %s\r\n\r\n", TOKEN);
  const char *without_token = "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  guint before = count_sockets ();
  gint64 deadline;
  guint after;

  for (guint i = 0; i < 60; i++)
    {
      int fd = raw_connect (f);
      const char *text = i % 2 ? with_token : without_token;
      g_autofree char *answer = NULL;

      g_assert_true (raw_send (fd, text, strlen (text)));
      answer = raw_read_answer (fd);
      g_assert_cmpuint (raw_status (answer), ==, i % 2 ? 200 : 403);
      /* A second request on the same connection, for some. */
      if (i % 3 == 0)
        {
          g_autofree char *again = NULL;

          g_assert_true (raw_send (fd, text, strlen (text)));
          again = raw_read_answer (fd);
          g_assert_cmpuint (raw_status (again), ==, i % 2 ? 200 : 403);
        }
      if (i % 5 == 0)
        {
          struct linger reset = { 1, 0 };

          setsockopt (fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
        }
      close (fd);
    }

  /* The server closes each as it sees the end: wait for it, not for a time. */
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while ((after = count_sockets ()) > before && g_get_monotonic_time () < deadline)
    g_usleep (10 * 1000);
  g_assert_cmpuint (after, <=, before);

  /* And it goes on answering on kept-alive connections. */
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(Reply) health = request (f, "GET", "/api/health", NULL, TOKEN, NULL);
      g_assert_cmpuint (health->status, ==, 200);
    }
}

/* A client that goes away mid-stream costs nothing: later events are not
 * written anywhere and the server goes on answering. */
static void
test_stream_disconnect (Fixture       *f,
                        gconstpointer  data)
{
  PdEventBus *bus = pd_server_get_bus (f->server);

  for (guint round = 0; round < 3; round++)
    {
      g_autoptr(GCancellable) cancellable = g_cancellable_new ();
      g_autofree char *path = g_strdup_printf ("/api/events/stream?session_id=%s", f->plan_id);
      g_autoptr(GDataInputStream) stream = open_stream (f, path, cancellable);
      g_autoptr(GError) error = NULL;
      g_autofree char *line = NULL;

      emit (bus, event_for (PD_EVENT_PLAN_UPDATED, f->done_id, "other"));
      emit (bus, event_for (PD_EVENT_PLAN_UPDATED, f->plan_id, "r"));
      do
        {
          g_free (line);
          line = g_data_input_stream_read_line_utf8 (stream, NULL, cancellable, &error);
          g_assert_no_error (error);
        }
      while (line != NULL && !g_str_has_prefix (line, "data: "));
      /* The filter let only this session's event through. */
      g_assert_nonnull (strstr (line, f->plan_id));

      g_input_stream_close (G_INPUT_STREAM (stream), NULL, NULL);
    }

  for (guint i = 0; i < 50; i++)
    emit (bus, event_for (PD_EVENT_PLAN_UPDATED, f->plan_id, "r"));
  pd_event_bus_flush (bus);

  {
    g_autoptr(Reply) health = request (f, "GET", "/api/health", NULL, TOKEN, NULL);
    g_assert_cmpuint (health->status, ==, 200);
  }
}

static void restart_with_keepalive (Fixture *f, guint interval_ms);

/* One client cannot take every event-stream slot, and a client that goes
 * gives its slot back at once, not at the next keepalive write: the
 * keepalive is set an hour off (a write to a stream whose client went frees
 * its slot too, and at the default second that hid a stream that only a
 * write ever freed), and no event is emitted here, so nothing writes to the
 * streams while the test waits. */
static void
test_stream_slots (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *open_text = g_strdup_printf ("GET /api/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                "X-Odek-Ws-Token: %s\r\n\r\n", TOKEN);
  int fds[PD_SERVER_MAX_STREAMS_PER_CLIENT];
  guint before;
  g_autofree char *refused = NULL;
  g_autofree char *again = NULL;
  gint64 deadline;
  guint after;
  int extra;

  restart_with_keepalive (f, 3600 * 1000);
  {
    g_autoptr(Reply) health = request (f, "GET", "/api/health", NULL, TOKEN, NULL);

    g_assert_cmpuint (health->status, ==, 200);
    g_assert_cmpint (json_object_get_int_member (reply_object (health), "keepalive_ms"), ==, 3600 * 1000);
  }
  before = count_sockets ();

  for (guint i = 0; i < G_N_ELEMENTS (fds); i++)
    {
      g_autofree char *head = NULL;

      fds[i] = raw_connect (f);
      g_assert_true (raw_send (fds[i], open_text, strlen (open_text)));
      head = raw_read_answer (fds[i]);
      g_assert_cmpuint (raw_status (head), ==, 200);
    }

  extra = raw_connect (f);
  g_assert_true (raw_send (extra, open_text, strlen (open_text)));
  refused = raw_read_answer (extra);
  g_assert_cmpuint (raw_status (refused), ==, 503);
  g_assert_nonnull (strstr (refused, "too many event streams from this client"));
  close (extra);

  for (guint i = 0; i < G_N_ELEMENTS (fds); i++)
    close (fds[i]);

  /* Every server side is closed. */
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while ((after = count_sockets ()) > before && g_get_monotonic_time () < deadline)
    g_usleep (10 * 1000);
  g_assert_cmpuint (after, <=, before);

  extra = raw_connect (f);
  g_assert_true (raw_send (extra, open_text, strlen (open_text)));
  again = raw_read_answer (extra);
  g_assert_cmpuint (raw_status (again), ==, 200);
  close (extra);
}

/* Reads what @fd has now (without waiting) and counts the event frames in
 * it; @tail carries the end of the last read, where a frame's name may
 * begin. */
static guint
count_frames_now (int      fd,
                  GString *tail)
{
  static const char name[] = "event: plan_updated";
  char buffer[65536];
  guint frames = 0;
  ssize_t n;

  while ((n = recv (fd, buffer, sizeof buffer, MSG_DONTWAIT)) > 0)
    {
      const char *p;

      g_string_append_len (tail, buffer, n);
      for (p = tail->str; (p = strstr (p, name)) != NULL; p += sizeof name - 1)
        frames++;
      /* Keep less than a name: it cannot be counted twice. */
      if (tail->len >= sizeof name - 1)
        g_string_erase (tail, 0, tail->len - (sizeof name - 2));
    }
  return frames;
}

/* A watcher that never reads its stream costs the others nothing and the
 * server a bounded amount: once it is PD_SERVER_STREAM_MAX_BACKLOG behind
 * its socket buffers its stream is closed, while a watcher that reads gets
 * every event.  (The server kept every chunk of a stream in memory for as
 * long as it was open, and a watcher that never read was kept forever.) */
static void
test_stream_slow_watcher (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *open_text = g_strdup_printf ("GET /api/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                "X-Odek-Ws-Token: %s\r\n\r\n", TOKEN);
  PdEventBus *bus = pd_server_get_bus (f->server);
  g_autoptr(GString) tail = g_string_new (NULL);
  g_autofree char *pad = g_strnfill (2000, 'x');
  g_autofree char *head = NULL;
  struct sockaddr_in addr = { 0 };
  int small = 4096;
  int reader, slow;
  guint with_slow;
  guint emitted = 0;
  guint received = 0;
  gboolean dropped = FALSE;
  gint64 deadline;

  reader = raw_connect (f);
  g_assert_true (raw_send (reader, open_text, strlen (open_text)));
  head = raw_read_answer (reader);
  g_assert_cmpuint (raw_status (head), ==, 200);

  /* The slow one takes as little as the kernel allows, and never reads. */
  slow = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  g_assert_cmpint (slow, >=, 0);
  setsockopt (slow, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  addr.sin_family = AF_INET;
  addr.sin_port = htons (pd_server_get_port (f->server));
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  g_assert_cmpint (connect (slow, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  g_assert_true (raw_send (slow, open_text, strlen (open_text)));
  g_usleep (100 * 1000);
  with_slow = count_sockets ();

  /* 2 KB events until the server closes its side of the slow stream; 16 MiB
   * of them would be far past any bound. */
  while (emitted < 8192 && !dropped)
    {
      g_autoptr(JsonObject) event_data = json_object_new ();

      json_object_set_string_member (event_data, "pad", pad);
      emit (bus, pd_event_new_full (PD_EVENT_PLAN_UPDATED, "r", f->plan_id, 1, NULL,
                                    g_steal_pointer (&event_data)));
      emitted++;
      /* The reader reads as a client does, all along. */
      received += count_frames_now (reader, tail);
      if (emitted % 16 == 0)
        {
          pd_event_bus_flush (bus);
          g_usleep (5 * 1000);   /* the server writes; the loop goes idle and judges */
          received += count_frames_now (reader, tail);
          dropped = count_sockets () < with_slow;
        }
    }
  g_test_message ("the slow watcher was dropped after %u events of 2 KB", emitted);
  g_assert_true (dropped);
  /* Dropped within its bound: the kernel's buffers and 256 KiB more. */
  g_assert_cmpuint (emitted, <, 1024);

  /* An event larger than the bound still reaches a watcher that reads. */
  {
    g_autofree char *big = g_strnfill (PD_SERVER_STREAM_MAX_BACKLOG + 1024, 'y');
    g_autoptr(JsonObject) event_data = json_object_new ();

    json_object_set_string_member (event_data, "pad", big);
    emit (bus, pd_event_new_full (PD_EVENT_PLAN_UPDATED, "r", f->plan_id, 1, NULL,
                                  g_steal_pointer (&event_data)));
    emitted++;
  }

  /* The reader has every event, and the server goes on. */
  pd_event_bus_flush (bus);
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (received < emitted && g_get_monotonic_time () < deadline)
    {
      struct pollfd pfd = { reader, POLLIN, 0 };

      poll (&pfd, 1, 100);
      received += count_frames_now (reader, tail);
    }
  g_assert_cmpuint (received, ==, emitted);

  close (slow);
  close (reader);
}

/* Restarts the fixture's server with its event streams' keepalive every
 * @interval_ms. */
static void
restart_with_keepalive (Fixture *f,
                        guint    interval_ms)
{
  g_autoptr(GError) error = NULL;

  pd_server_stop (f->server);
  g_clear_object (&f->server);
  g_clear_pointer (&f->base, g_free);
  f->server = pd_server_new (f->db_path);
  pd_server_set_listen (f->server, "127.0.0.1", 0);
  pd_server_set_token (f->server, TOKEN);
  pd_server_set_rate_limit (f->server, 0);
  pd_server_set_stream_keepalive (f->server, interval_ms);
  g_assert_true (pd_server_start (f->server, &error));
  g_assert_no_error (error);
  f->base = pd_server_dup_base_url (f->server);
}

/* Restarts the fixture's server with room for @n event streams, all from
 * this one client address. */
static void
restart_with_streams (Fixture *f,
                      guint    n)
{
  g_autoptr(GError) error = NULL;

  pd_server_stop (f->server);
  g_clear_object (&f->server);
  g_clear_pointer (&f->base, g_free);
  f->server = pd_server_new (f->db_path);
  pd_server_set_listen (f->server, "127.0.0.1", 0);
  pd_server_set_token (f->server, TOKEN);
  pd_server_set_rate_limit (f->server, 0);
  pd_server_set_stream_limits (f->server, n, n);
  g_assert_true (pd_server_start (f->server, &error));
  g_assert_no_error (error);
  f->base = pd_server_dup_base_url (f->server);
}

/* An event-stream client reading the raw bytes: the answer's head, then the
 * chunked body decoded chunk by chunk, then the events' "n" marks, each of
 * which must be the one after the last. */
typedef struct
{
  int      fd;
  GString *raw;        /* not yet decoded */
  GString *body;       /* decoded, not yet scanned (a line's start) */
  gboolean head_done;
  gboolean opened;     /* the stream's first comment came */
  gboolean ended;      /* the last chunk, or the connection's end */
  gboolean wrong;      /* a bad chunk, or an event missing, doubled or out of order */
  guint    next;       /* the event expected next */
} Watcher;

static void
watcher_open (Watcher *w,
              Fixture *f)
{
  g_autofree char *open_text = g_strdup_printf ("GET /api/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                "X-Odek-Ws-Token: %s\r\n\r\n", TOKEN);

  w->fd = raw_connect (f);
  w->raw = g_string_new (NULL);
  w->body = g_string_new (NULL);
  g_assert_true (raw_send (w->fd, open_text, strlen (open_text)));
}

static void
watcher_close (Watcher *w)
{
  if (w->fd >= 0)
    close (w->fd);
  g_string_free (w->raw, TRUE);
  g_string_free (w->body, TRUE);
}

static void
watcher_take (Watcher    *w,
              const char *data,
              gsize       len)
{
  static const char mark[] = "\"n\":";
  char *nl;

  g_string_append_len (w->raw, data, len);
  if (!w->head_done)
    {
      const char *end = strstr (w->raw->str, "\r\n\r\n");
      g_autofree char *head = NULL;

      if (end == NULL)
        return;
      head = g_ascii_strdown (w->raw->str, end - w->raw->str);
      if (!g_str_has_prefix (head, "http/1.1 200") || strstr (head, "\r\ntransfer-encoding: chunked") == NULL)
        w->wrong = TRUE;
      g_string_erase (w->raw, 0, end + 4 - w->raw->str);
      w->head_done = TRUE;
    }

  while (!w->ended)
    {
      const char *crlf = strstr (w->raw->str, "\r\n");
      char *size_end = NULL;
      gsize size, line;

      if (crlf == NULL)
        break;
      line = crlf - w->raw->str;
      size = g_ascii_strtoull (w->raw->str, &size_end, 16);
      if (size_end != crlf || line == 0)
        {
          w->wrong = w->ended = TRUE;
          break;
        }
      if (w->raw->len < line + 2 + size + 2)
        break;   /* the rest of the chunk is still on its way */
      if (memcmp (w->raw->str + line + 2 + size, "\r\n", 2) != 0)
        w->wrong = TRUE;
      g_string_append_len (w->body, w->raw->str + line + 2, size);
      g_string_erase (w->raw, 0, line + 2 + size + 2);
      w->ended = size == 0;
    }

  while ((nl = memchr (w->body->str, '\n', w->body->len)) != NULL)
    {
      *nl = '\0';
      if (strcmp (w->body->str, ": plandeck event stream") == 0)
        w->opened = TRUE;
      else if (g_str_has_prefix (w->body->str, "data: "))
        {
          const char *p = strstr (w->body->str, mark);

          if (p == NULL || (guint) g_ascii_strtoull (p + strlen (mark), NULL, 10) != w->next)
            w->wrong = TRUE;
          w->next++;
        }
      g_string_erase (w->body, 0, nl + 1 - w->body->str);
    }
}

/* Reads what @w has now, without waiting. */
static void
watcher_read (Watcher *w)
{
  char buffer[65536];
  ssize_t n;

  if (w->fd < 0 || w->ended)
    return;
  while ((n = recv (w->fd, buffer, sizeof buffer, MSG_DONTWAIT)) > 0)
    watcher_take (w, buffer, n);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
    w->ended = TRUE;
}

/* Reads @watchers until each has @count events (or a minute went by). */
static void
watchers_read_until (Watcher *watchers,
                     guint    n,
                     guint    count)
{
  g_autofree struct pollfd *pfds = g_new0 (struct pollfd, n);
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (g_get_monotonic_time () < deadline)
    {
      guint behind = 0;

      for (guint i = 0; i < n; i++)
        {
          watcher_read (&watchers[i]);
          behind += watchers[i].next < count && !watchers[i].ended;
          pfds[i].fd = watchers[i].fd;
          pfds[i].events = POLLIN;
        }
      if (behind == 0)
        break;
      poll (pfds, n, 100);
    }
}

/* Each stream's first comment came: its events come from now on. */
static void
watchers_wait_open (Watcher *watchers,
                    guint    n)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  guint open = 0;

  while (open < n && g_get_monotonic_time () < deadline)
    {
      open = 0;
      for (guint i = 0; i < n; i++)
        {
          watcher_read (&watchers[i]);
          open += watchers[i].opened;
        }
      if (open < n)
        g_usleep (10 * 1000);
    }
  g_assert_cmpuint (open, ==, n);
}

static void
emit_numbered (PdEventBus *bus,
               const char *session_id,
               guint       n,
               const char *pad)
{
  g_autoptr(JsonObject) event_data = json_object_new ();

  json_object_set_int_member (event_data, "n", n);
  json_object_set_string_member (event_data, "pad", pad);
  emit (bus, pd_event_new_full (PD_EVENT_PLAN_UPDATED, "r", session_id, 1, NULL,
                                g_steal_pointer (&event_data)));
}

#define MANY_WATCHERS 220

/* Many watchers and one that never reads: every one that reads gets every
 * event, whole and in order (the stream writes each socket itself, frames
 * cut wherever the socket's room ends); the one that never reads is
 * dropped once it is its bound behind, and the others go on meanwhile. */
static void
test_stream_many_watchers (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree Watcher *watchers = g_new0 (Watcher, MANY_WATCHERS);
  g_autofree char *pad = g_strnfill (3000, 'x');
  /* Now and then one longer than a socket takes at once (but within the
   * bound): the readers' streams are cut mid-frame and go on from there. */
  g_autofree char *long_pad = g_strnfill (150 * 1024, 'w');
  Watcher slow = { 0 };
  int small = 4096;
  PdEventBus *bus;
  guint with_slow;
  guint emitted = 0;
  gboolean dropped = FALSE;

  restart_with_streams (f, MANY_WATCHERS + 1);
  bus = pd_server_get_bus (f->server);

  for (guint i = 0; i < MANY_WATCHERS; i++)
    watcher_open (&watchers[i], f);
  watchers_wait_open (watchers, MANY_WATCHERS);

  /* The slow one takes as little as the kernel allows, and never reads. */
  slow.fd = raw_connect (f);
  setsockopt (slow.fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  {
    g_autofree char *open_text = g_strdup_printf ("GET /api/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                  "X-Odek-Ws-Token: %s\r\n\r\n", TOKEN);

    g_assert_true (raw_send (slow.fd, open_text, strlen (open_text)));
  }
  g_usleep (100 * 1000);
  with_slow = count_sockets ();

  /* 3 KB events until the server closes its side of the slow stream (the
   * readers read as clients do, all along); far more would be far past
   * any bound. */
  while (emitted < 4096 && !dropped)
    {
      emit_numbered (bus, f->plan_id, emitted, emitted % 50 == 10 ? long_pad : pad);
      emitted++;
      if (emitted % 8 == 0)
        {
          pd_event_bus_flush (bus);
          watchers_read_until (watchers, MANY_WATCHERS, emitted);
          dropped = count_sockets () < with_slow;
        }
    }
  g_test_message ("the slow watcher was dropped after %u events of 3 KB (and some of 150 KiB)", emitted);
  g_assert_true (dropped);
  /* Within its bound: the kernel's buffers and 256 KiB more. */
  g_assert_cmpuint (emitted, <, 1024);

  /* And the others go on. */
  for (guint i = 0; i < 20; i++)
    emit_numbered (bus, f->plan_id, emitted++, pad);
  pd_event_bus_flush (bus);
  watchers_read_until (watchers, MANY_WATCHERS, emitted);
  for (guint i = 0; i < MANY_WATCHERS; i++)
    {
      g_assert_false (watchers[i].wrong);
      g_assert_false (watchers[i].ended);
      g_assert_cmpuint (watchers[i].next, ==, emitted);
      watcher_close (&watchers[i]);
    }
  close (slow.fd);
}

/* Clients that go away in the middle of a frame (some with a reset, some
 * with an orderly close, each having read part of it) cost the server
 * nothing: it goes on writing to the others, closes their sockets, and
 * answers. */
static void
test_stream_gone_mid_frame (Fixture       *f,
                            gconstpointer  data)
{
  Watcher reader = { 0 };
  Watcher quitters[6] = { { 0 } };
  /* Longer than what the sockets take at once, shorter than the bound. */
  g_autofree char *big = g_strnfill (200 * 1024, 'y');
  g_autofree char *pad = g_strnfill (100, 'z');
  PdEventBus *bus;
  guint before = count_sockets ();
  guint emitted = 0;
  gint64 deadline;
  guint after;

  restart_with_streams (f, 16);
  bus = pd_server_get_bus (f->server);
  before = count_sockets ();

  watcher_open (&reader, f);
  for (guint i = 0; i < G_N_ELEMENTS (quitters); i++)
    watcher_open (&quitters[i], f);
  watchers_wait_open (&reader, 1);
  watchers_wait_open (quitters, G_N_ELEMENTS (quitters));

  emit_numbered (bus, f->plan_id, emitted++, big);
  pd_event_bus_flush (bus);
  for (guint i = 0; i < G_N_ELEMENTS (quitters); i++)
    {
      char buffer[16384];
      gsize got = 0;

      /* The reader reads as a client does, all along. */
      watchers_read_until (&reader, 1, emitted);
      g_assert_false (reader.ended);

      /* Some of the big frame, not all of it. */
      while (got < (i + 1) * 8192)
        {
          struct pollfd pfd = { quitters[i].fd, POLLIN, 0 };
          ssize_t n;

          g_assert_cmpint (poll (&pfd, 1, 10000), ==, 1);
          n = recv (quitters[i].fd, buffer, MIN (sizeof buffer, (i + 1) * 8192 - got), 0);
          g_assert_cmpint (n, >, 0);
          got += n;
        }
      if (i % 2 == 0)
        {
          struct linger reset = { 1, 0 };

          setsockopt (quitters[i].fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
        }
      close (quitters[i].fd);
      quitters[i].fd = -1;
      /* More for the server to write to it meanwhile. */
      emit_numbered (bus, f->plan_id, emitted++, pad);
    }

  for (guint i = 0; i < 50; i++)
    {
      emit_numbered (bus, f->plan_id, emitted++, i % 10 == 0 ? big : pad);
      pd_event_bus_flush (bus);
      watchers_read_until (&reader, 1, emitted);
    }
  g_assert_false (reader.wrong);
  g_assert_false (reader.ended);
  g_assert_cmpuint (reader.next, ==, emitted);

  /* The server closed each quitter's socket: only the reader's two remain. */
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while ((after = count_sockets ()) > before + 2 && g_get_monotonic_time () < deadline)
    g_usleep (10 * 1000);
  g_assert_cmpuint (after, <=, before + 2);

  {
    g_autoptr(Reply) health = request (f, "GET", "/api/health", NULL, TOKEN, NULL);
    g_assert_cmpuint (health->status, ==, 200);
  }
  watcher_close (&reader);
  for (guint i = 0; i < G_N_ELEMENTS (quitters); i++)
    watcher_close (&quitters[i]);
}

/* Stopping with a run in flight cancels it and waits for it to save. */
static void
test_stop_during_run (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(Reply) accepted = NULL;
  g_autoptr(PdSessionInfo) info = NULL;

  g_assert_true (g_file_set_contents (f->replay_path, held_run, -1, &error));
  accepted = request (f, "POST", "/api/prompt", "{\"message\":\"Take your time\"}", TOKEN, NULL);
  g_assert_cmpuint (accepted->status, ==, 202);

  /* The run would hold for minutes, past the test's timeout:
   * stopping returns only because it cancels the run. */
  pd_server_stop (f->server);

  info = pd_session_store_get (f->store, json_object_get_string_member (reply_object (accepted), "session_id"), &error);
  g_assert_no_error (error);
  g_assert_nonnull (info);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  test_unset_proxies_local ();

#define ADD PD_TEST_SERVE_ADD
  ADD ("/pd/server/events", test_events, 0);
  ADD ("/pd/server/prompt-and-stream", test_prompt_and_stream, 0);
  ADD ("/pd/server/prompt-errors", test_prompt_errors, 0);
  ADD ("/pd/server/session-changes-need-token", test_session_changes_need_token, 0);
  ADD ("/pd/server/runs-redacted", test_runs_redacted, 0);
  ADD ("/pd/server/stream-disconnect", test_stream_disconnect, 0);
  ADD ("/pd/server/keepalive-closed", test_keepalive_closed, 0);
  ADD ("/pd/server/stream-slots", test_stream_slots, 0);
  ADD ("/pd/server/stream-keepalive", test_stream_keepalive, 0);
  ADD ("/pd/server/stream-slow-watcher", test_stream_slow_watcher, 0);
  ADD ("/pd/server/stream-many-watchers", test_stream_many_watchers, 0);
  ADD ("/pd/server/stream-gone-mid-frame", test_stream_gone_mid_frame, 0);
  ADD ("/pd/server/stop-during-run", test_stop_during_run, 0);

  return g_test_run ();
}
