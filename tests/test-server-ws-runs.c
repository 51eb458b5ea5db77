/* test-server-ws-runs.c: runs through /ws, odek's WebSocket, on PdServer:
 * prompts, tool events, approvals (answered, trusted, never answered), a
 * client that vanishes, cancelling; and the approval questions of REST
 * runs.  Runs use the replay provider against the real tools in a
 * temporary folder (pd-test-serve-ws.h, as test-server-ws.c's).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-server-ws"

#include "config.h"

#include "pd-json-util.h"
#include "pd-test-serve-ws.h"

/* ---------------------------------------------------------------------- */
/* Prompts                                                                */

/* A new session, then its continuation on the same socket: `session` first
 * (the session saved), the answer as one `token`, then `done`; the second
 * prompt's `session` names the same session. */
static void
test_prompt (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autofree char *session_id = NULL;
  g_autofree char *auth_token = NULL;
  JsonObject *session, *token, *done;
  guint end, second;

  client_send (client, prompt_new ("Say hello, please", NULL, NULL));
  end = client_wait_end (client, 0);
  assert_one_terminator (client, 0);
  g_assert_cmpuint (client->frames->len, ==, 3);

  session = g_ptr_array_index (client->frames, 0);
  g_assert_cmpstr (frame_type (session), ==, "session");
  session_id = g_strdup (json_object_get_string_member (session, "session_id"));
  auth_token = g_strdup (json_object_get_string_member (session, "auth_token"));
  g_assert_true (pd_session_id_is_valid (session_id));
  g_assert_cmpuint (strlen (auth_token), ==, 64);
  g_assert_cmpstr (json_object_get_string_member (session, "model"), ==, "replay");
  g_assert_false (json_object_get_boolean_member (session, "sandbox"));

  token = g_ptr_array_index (client->frames, 1);
  g_assert_cmpstr (frame_type (token), ==, "token");
  g_assert_cmpstr (json_object_get_string_member (token, "content"), ==, "Hello from the replay.");
  done = g_ptr_array_index (client->frames, end);
  g_assert_cmpstr (frame_type (done), ==, "done");
  g_assert_cmpint (json_object_get_int_member (done, "contextTokens"), ==, 7);
  g_assert_cmpint (json_object_get_int_member (done, "outputTokens"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (done, "sessionOutputTokens"), ==, 3);
  g_assert_true (json_object_get_double_member (done, "latency") >= 0);

  /* Saved before `session` was said, and readable with that token. */
  {
    g_autofree char *path = g_strdup_printf ("/api/sessions/%s", session_id);
    g_autoptr(Reply) record = request (f, "GET", path, NULL, auth_token);
    JsonArray *messages;

    g_assert_cmpuint (record->status, ==, 200);
    messages = json_object_get_array_member (reply_object (record), "messages");
    g_assert_cmpuint (json_array_get_length (messages), >=, 2);
  }

  second = client->frames->len;
  client_send (client, prompt_new ("And again", session_id, auth_token));
  end = client_wait_end (client, second);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "done");
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (client->frames, second), "session_id"), ==,
                   session_id);
  g_assert_cmpint (json_object_get_int_member (g_ptr_array_index (client->frames, end), "sessionOutputTokens"), ==, 6);
  {
    g_autofree char *path = g_strdup_printf ("/api/sessions/%s", session_id);
    g_autoptr(Reply) record = request (f, "GET", path, NULL, auth_token);

    g_assert_cmpint (json_object_get_int_member (reply_object (record), "turns"), ==, 2);
  }

  /* No session id: a new session, always. */
  second = client->frames->len;
  client_send (client, prompt_new ("Another", NULL, NULL));
  client_wait_end (client, second);
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (client->frames, second), "session_id"), !=,
                   session_id);
}

/* Continuing a session from another socket needs its token; validation
 * errors are one `error` and nothing else. */
static void
test_prompt_errors (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(Client) first = client_open (f);
  g_autoptr(Client) other = client_open (f);
  g_autofree char *session_id = NULL;
  g_autofree char *auth_token = NULL;
  struct { JsonObject *frame; const char *message; } cases[9];
  guint end;

  client_send (first, prompt_new ("Start", NULL, NULL));
  client_wait_end (first, 0);
  session_id = g_strdup (json_object_get_string_member (g_ptr_array_index (first->frames, 0), "session_id"));
  auth_token = g_strdup (json_object_get_string_member (g_ptr_array_index (first->frames, 0), "auth_token"));

  cases[0].frame = prompt_new ("Take it", session_id, NULL);
  cases[0].message = "invalid session token";
  cases[1].frame = prompt_new ("Take it", session_id, "0000");
  cases[1].message = "invalid session token";
  cases[2].frame = prompt_new ("Hi", "20260101-0123456789abcdef0123456789abcdef", auth_token);
  cases[2].message = "session not found";
  cases[3].frame = prompt_new ("Hi", "../../etc", auth_token);
  cases[3].message = "session not found";
  cases[4].frame = prompt_new ("Hi", NULL, NULL);
  json_object_set_string_member (cases[4].frame, "model", "a b");
  cases[4].message = "invalid model ID";
  cases[5].frame = prompt_new ("   ", NULL, NULL);
  cases[5].message = "empty prompt: write a message or attach a file";
  cases[6].frame = prompt_new ("Hi", NULL, NULL);
  json_object_set_int_member (cases[6].frame, "session_id", 5);
  cases[6].message = "invalid session id";
  {
    g_autofree char *long_text = g_malloc (1024 * 1024 + 2);

    memset (long_text, 'x', 1024 * 1024 + 1);
    long_text[1024 * 1024 + 1] = '\0';
    cases[7].frame = prompt_new (long_text, NULL, NULL);
    cases[7].message = "prompt exceeds maximum size";
  }
  cases[8].frame = prompt_new ("Hi", NULL, NULL);
  json_object_set_int_member (cases[8].frame, "content", 3);
  cases[8].message = "content must be a string";

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint from = other->frames->len;

      client_send (other, cases[i].frame);
      end = client_wait_end (other, from);
      g_assert_cmpuint (end, ==, from);
      g_assert_cmpstr (frame_type (g_ptr_array_index (other->frames, end)), ==, "error");
      g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (other->frames, end), "message"), ==,
                       cases[i].message);
    }

  /* With the token it continues. */
  {
    guint from = other->frames->len;

    client_send (other, prompt_new ("Take it", session_id, auth_token));
    end = client_wait_end (other, from);
    g_assert_cmpstr (frame_type (g_ptr_array_index (other->frames, end)), ==, "done");
    g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (other->frames, from), "session_id"), ==,
                     session_id);
  }
}

/* Prompts sent while one runs wait their turn; each gets its own end. */
static void
test_prompt_queue (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  guint ends = 0, busy = 0;

  set_replay (f, "{\"turns\":[{\"content\":\"Slowly\",\"delay_ms\":300}]}");
  for (guint i = 0; i < 10; i++)
    client_send (client, prompt_new ("One of many", NULL, NULL));

  while (ends < 10)
    {
      g_main_context_iteration (NULL, FALSE);
      ends = 0;
      busy = 0;
      for (guint i = 0; i < client->frames->len; i++)
        {
          JsonObject *frame = g_ptr_array_index (client->frames, i);

          ends += is_terminator (frame);
          busy += g_strcmp0 (json_object_get_string_member_with_default (frame, "message", ""),
                             "busy: a prompt is already running") == 0;
        }
      g_assert_false (client->closed);
      g_usleep (1000);
    }
  /* One runs, seven wait, two are turned away. */
  g_assert_cmpuint (busy, ==, 2);
}

/* Tool calls, each before any runs, then the results in call order. */
static void
test_tool_events (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autofree char *notes = g_build_filename (f->dir, "notes.txt", NULL);
  g_autoptr(GError) error = NULL;
  JsonObject *call, *result;
  guint end, first_call, first_result;

  g_assert_true (g_file_set_contents (notes, "a note", -1, &error));
  set_replay (f, "{\"turns\":["
                 "{\"reasoning\":\"Let me look.\",\"tool_calls\":["
                 "{\"name\":\"read_file\",\"arguments\":{\"path\":\"notes.txt\"}},"
                 "{\"name\":\"list_dir\",\"arguments\":{\"path\":\".\"}}]},"
                 "{\"content\":\"It says: a note\"}]}");
  client_send (client, prompt_new ("What do the notes say?", NULL, NULL));
  end = client_wait_end (client, 0);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "done");

  first_call = client_wait (client, 0, "tool_call");
  first_result = client_wait (client, 0, "tool_result");
  /* The reasoning before the calls, as one piece. */
  g_assert_cmpuint (client_wait (client, 0, "thinking"), ==, first_call - 1);
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (client->frames, first_call - 1), "content"), ==,
                   "Let me look.");
  g_assert_cmpuint (first_result, ==, first_call + 2);
  call = g_ptr_array_index (client->frames, first_call);
  g_assert_cmpstr (json_object_get_string_member (call, "name"), ==, "read_file");
  g_assert_nonnull (strstr (json_object_get_string_member (call, "data"), "notes.txt"));
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (client->frames, first_call + 1), "name"), ==,
                   "list_dir");
  result = g_ptr_array_index (client->frames, first_result);
  g_assert_cmpstr (json_object_get_string_member (result, "name"), ==, "read_file");
  g_assert_nonnull (strstr (json_object_get_string_member (result, "data"), "a note"));
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (client->frames, first_result + 1), "name"), ==,
                   "list_dir");
  /* The answer after every tool event. */
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end - 1)), ==, "token");
  g_assert_cmpuint (end - 1, >, first_result + 1);
}

/* ---------------------------------------------------------------------- */
/* Approvals                                                              */

#define WRITE_TURNS(path) \
  "{\"turns\":[{\"tool_calls\":[{\"name\":\"write_file\",\"arguments\":{\"path\":\"" path "\",\"content\":\"x\"}}]}," \
  "{\"content\":\"Wrote it.\"}]}"

static JsonObject *
approval_response (JsonObject *request,
                   const char *action)
{
  JsonObject *frame = json_object_new ();

  json_object_set_string_member (frame, "type", "approval_response");
  json_object_set_string_member (frame, "id", json_object_get_string_member (request, "id"));
  json_object_set_string_member (frame, "action", action);
  return frame;
}

/* The last approval event of @type on the server's bus: it says what was
 * asked, the tool and its risk (never the command), and how it ended. */
static void
assert_approval_event (Fixture    *f,
                       const char *type,
                       const char *outcome)
{
  PdEventBus *bus = pd_server_get_bus (f->server);
  g_autoptr(GPtrArray) recent = NULL;
  PdEvent *found = NULL;
  g_autofree char *text = NULL;
  JsonObject *data;

  pd_event_bus_flush (bus);
  recent = pd_event_bus_get_recent (bus, 0, NULL, NULL);
  for (guint i = 0; i < recent->len; i++)
    if (g_strcmp0 (pd_event_get_event_type (g_ptr_array_index (recent, i)), type) == 0)
      found = g_ptr_array_index (recent, i);
  g_assert_nonnull (found);
  data = pd_event_get_data (found);
  g_assert_cmpstr (pd_event_get_tool (found), ==, "write_file");
  g_assert_cmpstr (pd_json_get_string (data, "risk"), ==, "local_write");
  g_assert_cmpstr (pd_json_get_string (data, "outcome"), ==, outcome);
  g_assert_true (g_str_has_prefix (pd_json_get_string (data, "approval_id"), "apr-"));
  text = pd_event_to_json (found);
  g_assert_null (strstr (text, "approved.txt"));
}

/* A write needs a person: the tool waits for approval_response (the socket
 * is read while it waits), and runs only when approved. */
static void
test_approval (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autofree char *approved = g_build_filename (f->dir, "approved.txt", NULL);
  g_autofree char *denied = g_build_filename (f->dir, "denied.txt", NULL);
  JsonObject *request_frame;
  guint asked, end, from;

  set_replay (f, WRITE_TURNS ("approved.txt"));
  client_send (client, prompt_new ("Write it", NULL, NULL));
  asked = client_wait (client, 0, "approval_request");
  request_frame = g_ptr_array_index (client->frames, asked);
  g_assert_true (g_str_has_prefix (json_object_get_string_member (request_frame, "id"), "apr-"));
  g_assert_cmpuint (strlen (json_object_get_string_member (request_frame, "id")), ==, 4 + 16);
  g_assert_cmpstr (json_object_get_string_member (request_frame, "risk"), ==, "local_write");
  /* odek's page shows "command" alone: it is the change, whole (the
   * file, then its content), not "approved.txt (1 bytes)". */
  {
    g_autofree char *change = g_strdup_printf ("In %s:\napproved.txt\n(a new file)\n+ x\n", f->dir);

    g_assert_cmpstr (json_object_get_string_member (request_frame, "command"), ==, change);
  }
  g_assert_cmpstr (json_object_get_string_member (request_frame, "description"), ==, "tool=write_file");
  g_assert_false (json_object_get_boolean_member (request_frame, "is_operation"));
  g_assert_true (json_object_get_boolean_member (request_frame, "allow_trust"));
  g_assert_false (json_object_get_boolean_member (request_frame, "friction"));
  /* The call was told before the question. */
  g_assert_cmpuint (client_wait (client, 0, "tool_call"), <, asked);
  /* Nothing written while it waits. */
  g_assert_false (g_file_test (approved, G_FILE_TEST_EXISTS));

  client_send (client, approval_response (request_frame, "approve"));
  end = client_wait_end (client, asked);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "done");
  g_assert_cmpuint (client_wait (client, asked, "approval_ack"), <, end);
  g_assert_true (g_file_test (approved, G_FILE_TEST_EXISTS));
  assert_one_terminator (client, 0);
  assert_approval_event (f, PD_EVENT_APPROVAL_REQUESTED, NULL);
  assert_approval_event (f, PD_EVENT_APPROVAL_RESOLVED, "approved");

  /* Denied: the tool does not run, the model hears so, the turn goes on. */
  set_replay (f, WRITE_TURNS ("denied.txt"));
  from = client->frames->len;
  client_send (client, prompt_new ("Write the other", NULL, NULL));
  asked = client_wait (client, from, "approval_request");
  client_send (client, approval_response (g_ptr_array_index (client->frames, asked), "deny"));
  end = client_wait_end (client, asked);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "done");
  {
    JsonObject *result = g_ptr_array_index (client->frames, client_wait (client, asked, "tool_result"));

    g_assert_nonnull (strstr (json_object_get_string_member (result, "data"), "denied"));
  }
  g_assert_false (g_file_test (denied, G_FILE_TEST_EXISTS));
}

/* Trust: the class is not asked again on this socket, and only there. */
static void
test_approval_trust (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autoptr(Client) other = NULL;
  guint asked, from, end;

  set_replay (f, WRITE_TURNS ("one.txt"));
  client_send (client, prompt_new ("Write one", NULL, NULL));
  asked = client_wait (client, 0, "approval_request");
  client_send (client, approval_response (g_ptr_array_index (client->frames, asked), "trust"));
  client_wait_end (client, asked);

  set_replay (f, WRITE_TURNS ("two.txt"));
  from = client->frames->len;
  client_send (client, prompt_new ("Write two", NULL, NULL));
  end = client_wait_end (client, from);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "done");
  for (guint i = from; i < end; i++)
    g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, i)), !=, "approval_request");
  g_assert_true (file_exists (f, "two.txt"));

  /* Another socket is asked. */
  other = client_open (f);
  set_replay (f, WRITE_TURNS ("three.txt"));
  client_send (other, prompt_new ("Write three", NULL, NULL));
  asked = client_wait (other, 0, "approval_request");
  client_send (other, approval_response (g_ptr_array_index (other->frames, asked), "deny"));
  client_wait_end (other, asked);
}

/* Nobody answers: after the timeout the call is denied and the prompt ends
 * with its one terminator; nothing approves by default. */
/* What the session's transcript records of its denied call: the reason
 * the model was told (a denial nobody made said "the user declined"). */
static void
assert_denied_for (Fixture    *f,
                   const char *session_id,
                   const char *reason)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) messages = pd_session_store_load_messages (f->store, session_id, &error);
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *text = NULL;

  g_assert_no_error (error);
  node = json_node_init_array (json_node_alloc (), messages);
  text = json_to_string (node, FALSE);
  g_test_message ("stored: %s", text);
  g_assert_nonnull (strstr (text, reason));
  g_assert_null (strstr (text, "the user declined"));
}

/* How the session's last run ended: cancelled, and what interrupted it
 * (@reason), or a person's stop (%NULL).  A run cut short by the endpoint
 * stopping or its client going away read "Stopped" on the window's card
 * and Now page, as if a person had stopped it (tried as a new user would). */
static void
assert_stopped_by (Fixture    *f,
                   const char *session_id,
                   const char *reason)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionInfo) info = NULL;

  info = pd_session_store_get (f->store, session_id, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (info->stopped, ==, "cancelled");
  g_assert_cmpstr (info->stopped_error, ==, reason);
}

static void
test_approval_never_answered (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autofree char *path = g_build_filename (f->dir, "never.txt", NULL);
  guint asked, end;

  set_replay (f, WRITE_TURNS ("never.txt"));
  client_send (client, prompt_new ("Write it", NULL, NULL));
  asked = client_wait (client, 0, "approval_request");
  end = client_wait_end (client, asked);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "done");
  g_assert_nonnull (strstr (json_object_get_string_member (g_ptr_array_index (client->frames,
                                                                              client_wait (client, asked, "tool_result")),
                                                           "data"), "denied"));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  assert_one_terminator (client, 0);
  assert_denied_for (f, json_object_get_string_member (g_ptr_array_index (client->frames, 0), "session_id"),
                     "no one answered in time");

  /* A late answer changes nothing. */
  client_send (client, approval_response (g_ptr_array_index (client->frames, asked), "approve"));
  assert_one_terminator (client, 0);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

static const char *
run_status (Fixture    *f,
            const char *run_id,
            Reply     **keep)
{
  g_autofree char *path = g_strdup_printf ("/api/runs/%s", run_id);

  g_clear_pointer (keep, reply_free);
  *keep = request (f, "GET", path, NULL, NULL);
  g_assert_cmpuint ((*keep)->status, ==, 200);
  return json_object_get_string_member (reply_object (*keep), "status");
}

/* The one run of a session, from GET /api/runs. */
static char *
run_of_session (Fixture    *f,
                const char *session_id)
{
  g_autoptr(Reply) runs = request (f, "GET", "/api/runs", NULL, NULL);
  JsonArray *array = json_object_get_array_member (reply_object (runs), "runs");

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *run = json_array_get_object_element (array, i);

      if (g_strcmp0 (json_object_get_string_member (run, "session_id"), session_id) == 0)
        return g_strdup (json_object_get_string_member (run, "id"));
    }
  return NULL;
}

typedef struct
{
  Fixture    *f;
  const char *run_id;
  const char *status;
} StatusWait;

static gboolean
run_reached (gpointer data)
{
  StatusWait *wait = data;
  g_autoptr(Reply) keep = NULL;

  g_main_context_iteration (NULL, FALSE);
  return g_strcmp0 (run_status (wait->f, wait->run_id, &keep), wait->status) == 0;
}

/* The client vanishes while its run waits on a question: the question is
 * denied at once (not after the timeout), the run cancelled and saved, the
 * socket's slot free; the server goes on. */
static void
test_client_vanishes (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autofree char *session_id = NULL;
  g_autofree char *run_id = NULL;
  StatusWait wait = { f, NULL, "cancelled" };
  GIOStream *stream;

  set_replay (f, WRITE_TURNS ("vanished.txt"));
  client_send (client, prompt_new ("Write it", NULL, NULL));
  client_wait (client, 0, "approval_request");
  session_id = g_strdup (json_object_get_string_member (g_ptr_array_index (client->frames, 0), "session_id"));
  run_id = run_of_session (f, session_id);
  g_assert_nonnull (run_id);
  {
    g_autoptr(Reply) keep = NULL;
    g_assert_cmpstr (run_status (f, run_id, &keep), ==, "waiting_approval");
  }

  /* Gone without a closing handshake, as a killed browser. */
  stream = soup_websocket_connection_get_io_stream (client->conn);
  g_signal_handlers_disconnect_by_data (client->conn, client);
  g_io_stream_close (stream, NULL, NULL);

  wait.run_id = run_id;
  spin_until (run_reached, &wait);
  spin_until (no_sockets, f);
  g_assert_false (file_exists (f, "vanished.txt"));
  assert_denied_for (f, session_id, "interrupted: the client following the run went away");
  assert_stopped_by (f, session_id, "the client following the run went away");

  /* The session is there, and another socket carries on. */
  {
    g_autofree char *path = g_strdup_printf ("/api/sessions/%s", session_id);
    g_autoptr(Reply) record = request (f, "GET", path, NULL, NULL);
    g_autoptr(Client) next = client_open (f);
    guint end;

    g_assert_cmpuint (record->status, ==, 200);
    set_replay (f, "{\"turns\":[{\"content\":\"Still here.\"}]}");
    client_send (next, prompt_new ("Hello?", NULL, NULL));
    end = client_wait_end (next, 0);
    g_assert_cmpstr (frame_type (g_ptr_array_index (next->frames, end)), ==, "done");
  }
}

/* POST /api/cancel with the session's token reaches the run on the socket
 * that owns it, and a question it waits on is denied at once; the socket
 * gets one `error`. */
static void
test_cancel (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autofree char *session_id = NULL;
  g_autofree char *auth_token = NULL;
  g_autofree char *path = NULL;
  guint asked, end;

  set_replay (f, WRITE_TURNS ("cancelled.txt"));
  client_send (client, prompt_new ("Write it", NULL, NULL));
  asked = client_wait (client, 0, "approval_request");
  session_id = g_strdup (json_object_get_string_member (g_ptr_array_index (client->frames, 0), "session_id"));
  auth_token = g_strdup (json_object_get_string_member (g_ptr_array_index (client->frames, 0), "auth_token"));
  path = g_strdup_printf ("/api/cancel?session_id=%s", session_id);

  {
    /* odek's UI sends the header even empty. */
    g_autoptr(Reply) without = request (f, "POST", path, NULL, "");
    g_autoptr(Reply) unknown = request (f, "POST", "/api/cancel?session_id=20260101-0123456789abcdef0123456789abcdef",
                                        NULL, auth_token);

    g_assert_cmpuint (without->status, ==, 401);
    g_assert_cmpuint (unknown->status, ==, 404);
  }
  {
    g_autoptr(Reply) cancelled = request (f, "POST", path, NULL, auth_token);

    g_assert_cmpuint (cancelled->status, ==, 200);
    g_assert_false (json_object_get_boolean_member (reply_object (cancelled), "idle"));
  }
  end = client_wait_end (client, asked);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "error");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (g_ptr_array_index (client->frames, end), "message"),
                                   "cancelled"));
  assert_one_terminator (client, 0);
  g_assert_false (file_exists (f, "cancelled.txt"));
  assert_denied_for (f, session_id, "the run was stopped before anyone answered");
  assert_stopped_by (f, session_id, NULL);

  /* And the frame of odek's later protocol: the socket's own run. */
  {
    guint from = client->frames->len;
    JsonObject *cancel = json_object_new ();

    set_replay (f, "{\"turns\":[{\"content\":\"Slowly\",\"delay_ms\":10000}]}");
    client_send (client, prompt_new ("Take your time", NULL, NULL));
    client_wait (client, from, "session");
    json_object_set_string_member (cancel, "type", "cancel");
    client_send (client, cancel);
    end = client_wait_end (client, from);
    g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "error");
  }
}

/* ---------------------------------------------------------------------- */
/* Questions of REST runs (the desktop app's)                             */

/* A run of POST /api/prompt waits on its question in GET /api/runs/ID; it
 * is answered with the session's token, and the run goes on. */
static void
test_rest_approval (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(Reply) accepted = NULL;
  g_autoptr(Reply) keep = NULL;
  g_autofree char *token = NULL;
  g_autofree char *answer_path = NULL;
  g_autofree char *body = NULL;
  g_autofree char *approval_id = NULL;
  StatusWait wait = { f, NULL, "waiting_approval" };
  const char *run_id, *session_id;

  set_replay (f, WRITE_TURNS ("rest.txt"));
  accepted = request (f, "POST", "/api/prompt", "{\"message\":\"Write it\"}", NULL);
  g_assert_cmpuint (accepted->status, ==, 202);
  run_id = json_object_get_string_member (reply_object (accepted), "run_id");
  session_id = json_object_get_string_member (reply_object (accepted), "session_id");
  wait.run_id = run_id;
  spin_until (run_reached, &wait);

  run_status (f, run_id, &keep);
  {
    JsonObject *approval = json_object_get_object_member (reply_object (keep), "approval");

    g_assert_nonnull (approval);
    g_assert_cmpstr (json_object_get_string_member (approval, "tool"), ==, "write_file");
    g_assert_nonnull (strstr (json_object_get_string_member (approval, "command"), "rest.txt"));
    approval_id = g_strdup (json_object_get_string_member (approval, "id"));
  }

  answer_path = g_strdup_printf ("/api/runs/%s/approval", run_id);
  body = g_strdup_printf ("{\"id\":\"%s\",\"action\":\"approve\"}", approval_id);
  {
    g_autofree char *session_path = g_strdup_printf ("/api/sessions/%s", session_id);
    g_autoptr(Reply) record = request (f, "GET", session_path, NULL, NULL);
    g_autoptr(Reply) without = request (f, "POST", answer_path, body, NULL);
    g_autoptr(Reply) wrong_id = request (f, "POST", answer_path, "{\"id\":\"apr-0\",\"action\":\"approve\"}", NULL);
    g_autoptr(Reply) bad = NULL;
    g_autoptr(Reply) no_run = request (f, "POST", "/api/runs/ffff/approval", body, NULL);

    token = g_strdup (record->session_token);
    bad = request (f, "POST", answer_path, "{\"id\":\"x\",\"action\":\"maybe\"}", token);
    g_assert_cmpuint (without->status, ==, 401);
    g_assert_cmpuint (wrong_id->status, ==, 401);
    g_assert_cmpuint (bad->status, ==, 400);
    g_assert_cmpuint (no_run->status, ==, 404);
    g_assert_false (file_exists (f, "rest.txt"));
  }
  {
    g_autoptr(Reply) wrong_id = request (f, "POST", answer_path, "{\"id\":\"apr-0\",\"action\":\"approve\"}", token);
    g_autoptr(Reply) answered = request (f, "POST", answer_path, body, token);
    g_autoptr(Reply) again = request (f, "POST", answer_path, body, token);

    g_assert_cmpuint (wrong_id->status, ==, 404);
    g_assert_cmpuint (answered->status, ==, 200);
    g_assert_cmpuint (again->status, ==, 404);
  }

  wait.status = "completed";
  spin_until (run_reached, &wait);
  g_assert_true (file_exists (f, "rest.txt"));
  run_status (f, run_id, &keep);
  g_assert_false (json_object_has_member (reply_object (keep), "approval"));
}

/* Found (tried as an attacker would): a question's command and preview,
 * and the model's reasoning, went out as the model wrote them, secrets
 * and all, to anyone with the instance token (GET /api/runs, the
 * WebSocket), while the session stored them redacted.  They are told as
 * stored; the approved call still writes what the model wrote. */
#define SECRET_TURNS(path) \
  "{\"turns\":[{\"reasoning\":\"Use DB_PASSWORD=ThinkPw3 there.\",\"tool_calls\":[" \
  "{\"name\":\"write_file\",\"arguments\":{\"path\":\"" path "\"," \
  "\"content\":\"DB_PASSWORD=FilePw1\\nmysql -uroot -pGluedPw2 shop\\n\"}}]}," \
  "{\"content\":\"Wrote it.\"}]}"

static void
assert_no_secret (const char *text)
{
  g_assert_nonnull (text);
  g_assert_null (strstr (text, "FilePw1"));
  g_assert_null (strstr (text, "GluedPw2"));
  g_assert_null (strstr (text, "ThinkPw3"));
}

static void
test_approval_redacted (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(Reply) accepted = NULL;
  g_autoptr(Reply) keep = NULL;
  g_autoptr(Reply) list = NULL;
  g_autoptr(Client) client = NULL;
  g_autofree char *token = NULL;
  g_autofree char *answer_path = NULL;
  g_autofree char *body = NULL;
  g_autofree char *written = NULL;
  StatusWait wait = { f, NULL, "waiting_approval" };
  JsonObject *approval, *frame;
  const char *run_id;
  guint asked, at;

  /* GET /api/runs/ID and GET /api/runs, with the instance token alone. */
  set_replay (f, SECRET_TURNS ("rest.env"));
  accepted = request (f, "POST", "/api/prompt", "{\"message\":\"Write it\"}", NULL);
  g_assert_cmpuint (accepted->status, ==, 202);
  run_id = json_object_get_string_member (reply_object (accepted), "run_id");
  wait.run_id = run_id;
  spin_until (run_reached, &wait);
  run_status (f, run_id, &keep);
  g_assert_null (strstr (keep->body, "FilePw1"));
  g_assert_null (strstr (keep->body, "GluedPw2"));
  approval = json_object_get_object_member (reply_object (keep), "approval");
  g_assert_nonnull (approval);
  assert_no_secret (json_object_get_string_member (approval, "command"));
  assert_no_secret (json_object_get_string_member (approval, "preview"));
  /* Still the question: the file, and the command around the password. */
  g_assert_nonnull (strstr (json_object_get_string_member (approval, "command"), "rest.env"));
  g_assert_nonnull (strstr (json_object_get_string_member (approval, "preview"), "DB_PASSWORD=[REDACTED]"));
  g_assert_nonnull (strstr (json_object_get_string_member (approval, "preview"), "mysql -uroot -p[REDACTED] shop"));
  list = request (f, "GET", "/api/runs", NULL, NULL);
  g_assert_cmpuint (list->status, ==, 200);
  g_assert_nonnull (strstr (list->body, "apr-"));
  g_assert_null (strstr (list->body, "FilePw1"));
  g_assert_null (strstr (list->body, "GluedPw2"));

  /* Approved with the session's token: the call writes what the model
   * wrote, not what the question showed. */
  {
    g_autofree char *session_path = g_strdup_printf ("/api/sessions/%s",
      json_object_get_string_member (reply_object (accepted), "session_id"));
    g_autoptr(Reply) record = request (f, "GET", session_path, NULL, NULL);

    token = g_strdup (record->session_token);
  }
  answer_path = g_strdup_printf ("/api/runs/%s/approval", run_id);
  body = g_strdup_printf ("{\"id\":\"%s\",\"action\":\"approve\"}", json_object_get_string_member (approval, "id"));
  {
    g_autoptr(Reply) answered = request (f, "POST", answer_path, body, token);

    g_assert_cmpuint (answered->status, ==, 200);
  }
  wait.status = "completed";
  spin_until (run_reached, &wait);
  {
    g_autofree char *path = g_build_filename (f->dir, "rest.env", NULL);

    g_assert_true (g_file_get_contents (path, &written, NULL, NULL));
    g_assert_cmpstr (written, ==, "DB_PASSWORD=FilePw1\nmysql -uroot -pGluedPw2 shop\n");
  }

  /* The WebSocket: approval_request, tool_call and thinking frames. */
  client = client_open (f);
  set_replay (f, SECRET_TURNS ("ws.env"));
  client_send (client, prompt_new ("Write it", NULL, NULL));
  asked = client_wait (client, 0, "approval_request");
  frame = g_ptr_array_index (client->frames, asked);
  assert_no_secret (json_object_get_string_member (frame, "command"));
  assert_no_secret (json_object_get_string_member (frame, "preview"));
  g_assert_nonnull (strstr (json_object_get_string_member (frame, "command"), "-p[REDACTED] shop"));
  /* Each index is waited for before the array is read: waiting adds
   * frames, which may move the array's storage. */
  at = client_wait (client, 0, "tool_call");
  assert_no_secret (json_object_get_string_member (g_ptr_array_index (client->frames, at), "data"));
  at = client_wait (client, 0, "thinking");
  frame = g_ptr_array_index (client->frames, at);
  assert_no_secret (json_object_get_string_member (frame, "content"));
  g_assert_nonnull (strstr (json_object_get_string_member (frame, "content"), "DB_PASSWORD=[REDACTED]"));
  client_send (client, approval_response (g_ptr_array_index (client->frames, asked), "approve"));
  at = client_wait_end (client, asked);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, at)), ==, "done");
  g_assert_true (file_exists (f, "ws.env"));
}

/* Found (tried as an attacker would): bash runs a masked value in more
 * ways than a reader can follow (${!N}, eval, declare -n, printf -v…), so
 * a question whose command the redactor changed read as harmless
 * ("API_TOKEN=[REDACTED]; N=API_TOKEN; ${!N}") and ran reboot.  Such a
 * question says so (masked, its description) and is asked with friction,
 * on the WebSocket and in GET /api/runs/ID; one with nothing masked is
 * asked as before. */
#define SHELL_TURN(command) \
  "{\"tool_calls\":[{\"name\":\"shell\",\"arguments\":{\"command\":\"" command "\"}}]},"
#define MASKED_TURNS \
  "{\"turns\":[" SHELL_TURN ("API_TOKEN=reboot; N=API_TOKEN; ${!N}") \
  SHELL_TURN ("mysql -pHunter2x shop") SHELL_TURN ("echo plain") "{\"content\":\"Done.\"}]}"

static void
assert_masked_question (JsonObject *question,
                        const char *secret)
{
  const char *description = json_object_get_string_member (question, "description");

  g_assert_null (strstr (json_object_get_string_member (question, "command"), secret));
  g_assert_nonnull (strstr (json_object_get_string_member (question, "command"), "[REDACTED]"));
  g_assert_true (json_object_get_boolean_member_with_default (question, "masked", FALSE));
  g_assert_true (json_object_get_boolean_member_with_default (question, "friction", FALSE));
  g_assert_nonnull (strstr (description, "hidden as secrets ([REDACTED])"));
  g_assert_nonnull (strstr (description, "approve only if you trust where it came from"));
}

static void
test_approval_masked (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autoptr(Reply) accepted = NULL;
  g_autoptr(Reply) keep = NULL;
  StatusWait wait = { f, NULL, "waiting_approval" };
  JsonObject *frame;
  guint asked, end;

  set_replay (f, MASKED_TURNS);
  client_send (client, prompt_new ("Run them", NULL, NULL));

  /* ${!N} runs what API_TOKEN holds. */
  asked = client_wait (client, 0, "approval_request");
  frame = g_ptr_array_index (client->frames, asked);
  g_assert_cmpstr (json_object_get_string_member (frame, "risk"), ==, "code_execution");
  assert_masked_question (frame, "reboot");
  /* The first question of the socket: friction from the mask alone. */
  g_assert_false (json_object_has_member (frame, "friction_approvals"));
  client_send (client, approval_response (frame, "deny"));

  /* A password, as plain a mask as there is. */
  asked = client_wait (client, asked + 1, "approval_request");
  frame = g_ptr_array_index (client->frames, asked);
  assert_masked_question (frame, "Hunter2x");
  g_assert_nonnull (strstr (json_object_get_string_member (frame, "command"), "mysql -p[REDACTED] shop"));
  client_send (client, approval_response (frame, "deny"));

  /* Nothing masked: asked as before. */
  asked = client_wait (client, asked + 1, "approval_request");
  frame = g_ptr_array_index (client->frames, asked);
  g_assert_true (g_str_has_suffix (json_object_get_string_member (frame, "command"), "\n$ echo plain\n"));
  g_assert_cmpstr (json_object_get_string_member (frame, "description"), ==, "");
  g_assert_false (json_object_has_member (frame, "masked"));
  g_assert_false (json_object_get_boolean_member (frame, "friction"));
  client_send (client, approval_response (frame, "deny"));
  end = client_wait_end (client, asked);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "done");

  /* The REST question of a run, as the desktop app reads it. */
  set_replay (f, MASKED_TURNS);
  accepted = request (f, "POST", "/api/prompt", "{\"message\":\"Run them\"}", NULL);
  g_assert_cmpuint (accepted->status, ==, 202);
  wait.run_id = json_object_get_string_member (reply_object (accepted), "run_id");
  spin_until (run_reached, &wait);
  run_status (f, wait.run_id, &keep);
  g_assert_null (strstr (keep->body, "reboot"));
  assert_masked_question (json_object_get_object_member (reply_object (keep), "approval"), "reboot");
}

/* Found (tried as an attacker would): "Always for This Session" (trust)
 * given on a plain command approved every later command of its class
 * unasked, masked ones too, so the person approved what they never saw
 * (API_TOKEN=[REDACTED]; N=API_TOKEN; ${!N}).  A masked command is asked
 * whatever the socket trusts, and its question offers no trust (a trust
 * sent for it is one approval): a plain command after it is asked. */
#define TRUST_TURNS \
  "{\"turns\":[" SHELL_TURN ("echo plain") SHELL_TURN ("DB_PASSWORD=Hunter2x true") \
  SHELL_TURN ("echo after") "{\"content\":\"Done.\"}]}"

static void
test_approval_masked_trust (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autoptr(Client) other = client_open (f);
  JsonObject *frame;
  guint asked, at, end;

  set_replay (f, TRUST_TURNS);
  client_send (client, prompt_new ("Run them", NULL, NULL));
  asked = client_wait (client, 0, "approval_request");
  frame = g_ptr_array_index (client->frames, asked);
  g_assert_false (json_object_has_member (frame, "masked"));
  g_assert_true (json_object_get_boolean_member (frame, "allow_trust"));
  client_send (client, approval_response (frame, "trust"));

  /* The masked command of the trusted class: asked, no trust offered. */
  at = client_wait_end_or (client, asked + 1, "approval_request");
  frame = g_ptr_array_index (client->frames, at);
  g_assert_cmpstr (frame_type (frame), ==, "approval_request");
  assert_masked_question (frame, "Hunter2x");
  g_assert_cmpstr (json_object_get_string_member (frame, "risk"), ==, "code_execution");
  g_assert_false (json_object_get_boolean_member (frame, "allow_trust"));
  client_send (client, approval_response (frame, "deny"));
  /* The plain one after it: the trust given on a plain command holds. */
  end = client_wait_end (client, at + 1);
  for (guint i = at + 1; i < end; i++)
    g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, i)), !=, "approval_request");

  /* A trust sent for a masked question is one approval: the class is not
   * trusted by it, and the plain command after it is asked. */
  set_replay (f, "{\"turns\":[" SHELL_TURN ("DB_PASSWORD=Hunter2x true") SHELL_TURN ("echo after")
              "{\"content\":\"Done.\"}]}");
  client_send (other, prompt_new ("Run them", NULL, NULL));
  asked = client_wait (other, 0, "approval_request");
  frame = g_ptr_array_index (other->frames, asked);
  assert_masked_question (frame, "Hunter2x");
  client_send (other, approval_response (frame, "trust"));
  at = client_wait_end_or (other, asked + 1, "approval_request");
  frame = g_ptr_array_index (other->frames, at);
  g_assert_cmpstr (frame_type (frame), ==, "approval_request");
  g_assert_true (g_str_has_suffix (json_object_get_string_member (frame, "command"), "\n$ echo after\n"));
  client_send (other, approval_response (frame, "deny"));
  end = client_wait_end (other, at + 1);
  g_assert_cmpstr (frame_type (g_ptr_array_index (other->frames, end)), ==, "done");
}

/* Found (tried as an attacker would): `echo hi \<CR><LF>rm -f victim` was
 * asked as one echo continued onto a second line, with no friction: the
 * preview dropped the CR before the line break, and bash reads `\<CR>` as
 * an escaped CR, so rm ran on its own.  The question shows the CR as \r,
 * on two command lines, says so (controls, its description) and is asked
 * with friction, on the WebSocket and in GET /api/runs/ID; what runs is
 * the command as written. */
#define CR_TURNS \
  "{\"turns\":[" SHELL_TURN ("echo hi \\\\\\r\\nrm -f victim") SHELL_TURN ("echo plain") \
  "{\"content\":\"Done.\"}]}"

static void
assert_controls_question (Fixture    *f,
                          JsonObject *question)
{
  g_autofree char *lines = g_strdup_printf ("In %s:\n$ echo hi \\\\r\n  rm -f victim\n", f->dir);

  g_assert_cmpstr (json_object_get_string_member (question, "preview"), ==, lines);
  g_assert_true (json_object_get_boolean_member_with_default (question, "controls", FALSE));
  g_assert_true (json_object_get_boolean_member_with_default (question, "friction", FALSE));
  g_assert_false (json_object_has_member (question, "masked"));
  g_assert_false (json_object_get_boolean_member_with_default (question, "allow_trust", TRUE));
  g_assert_nonnull (strstr (json_object_get_string_member (question, "description"),
                            "holds control characters, shown as escapes"));
  /* which, for a client to say it in its words (sec27 item 3) */
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (question, "controls_kinds")), ==, 1);
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (question, "controls_kinds"), 0),
                   ==, "controls");
}

static void
test_approval_controls (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autoptr(Reply) accepted = NULL;
  g_autoptr(Reply) keep = NULL;
  g_autofree char *victim = g_build_filename (f->dir, "victim", NULL);
  g_autofree char *lines = g_strdup_printf ("In %s:\n$ echo hi \\\\r\n  rm -f victim\n", f->dir);
  StatusWait wait = { f, NULL, "waiting_approval" };
  JsonObject *frame;
  guint asked, end;

  g_assert_true (g_file_set_contents (victim, "", 0, NULL));
  set_replay (f, CR_TURNS);
  client_send (client, prompt_new ("Run them", NULL, NULL));

  asked = client_wait (client, 0, "approval_request");
  frame = g_ptr_array_index (client->frames, asked);
  /* odek's page shows "command": the preview, as our dialog does. */
  g_assert_cmpstr (json_object_get_string_member (frame, "command"), ==, lines);
  assert_controls_question (f, frame);
  g_assert_false (json_object_has_member (frame, "friction_approvals"));
  /* Approved, it runs as the model wrote it: the escape is only shown. */
  client_send (client, approval_response (frame, "approve"));

  asked = client_wait (client, asked + 1, "approval_request");
  frame = g_ptr_array_index (client->frames, asked);
  g_assert_false (g_file_test (victim, G_FILE_TEST_EXISTS));
  g_assert_true (g_str_has_suffix (json_object_get_string_member (frame, "command"), "\n$ echo plain\n"));
  g_assert_false (json_object_has_member (frame, "controls"));
  g_assert_false (json_object_get_boolean_member (frame, "friction"));
  client_send (client, approval_response (frame, "deny"));
  end = client_wait_end (client, asked);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "done");

  /* The REST question of a run, as the desktop app reads it. */
  set_replay (f, CR_TURNS);
  accepted = request (f, "POST", "/api/prompt", "{\"message\":\"Run them\"}", NULL);
  g_assert_cmpuint (accepted->status, ==, 202);
  wait.run_id = json_object_get_string_member (reply_object (accepted), "run_id");
  spin_until (run_reached, &wait);
  run_status (f, wait.run_id, &keep);
  assert_controls_question (f, json_object_get_object_member (reply_object (keep), "approval"));
}

/* Found (tried as an attacker would): `cd build<NBSP>; rm -f victim` was
 * asked as `cd build ; rm -f victim`, in "command" and in the preview,
 * with no friction; U+034F and a variation selector on a letter showed as
 * nothing.  Each is an escape, and the question has controls and friction,
 * on the WebSocket and in GET /api/runs/ID. */
#define HIDDEN_TURNS \
  "{\"turns\":[" SHELL_TURN ("cd build\\u00a0; rm -f victim") SHELL_TURN ("rm -f vic\\u034ftim\\ufe0f") \
  "{\"content\":\"Done.\"}]}"

static void
assert_hidden_question (JsonObject *question,
                        const char *lines)
{
  g_assert_cmpstr (json_object_get_string_member (question, "preview"), ==, lines);
  g_assert_true (json_object_get_boolean_member_with_default (question, "controls", FALSE));
  g_assert_true (json_object_get_boolean_member_with_default (question, "friction", FALSE));
  g_assert_false (json_object_get_boolean_member_with_default (question, "allow_trust", TRUE));
}

static void
test_approval_hidden (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autoptr(Reply) accepted = NULL;
  g_autoptr(Reply) keep = NULL;
  g_autofree char *nbsp = g_strdup_printf ("In %s:\n$ cd build\\u00a0; rm -f victim\n", f->dir);
  g_autofree char *marks = g_strdup_printf ("In %s:\n$ rm -f vic\\u034ftim\\ufe0f\n", f->dir);
  StatusWait wait = { f, NULL, "waiting_approval" };
  JsonObject *frame;
  JsonObject *approval;
  guint asked, end;

  set_replay (f, HIDDEN_TURNS);
  client_send (client, prompt_new ("Run them", NULL, NULL));
  asked = client_wait (client, 0, "approval_request");
  frame = g_ptr_array_index (client->frames, asked);
  g_assert_cmpstr (json_object_get_string_member (frame, "command"), ==, nbsp);
  assert_hidden_question (frame, nbsp);
  client_send (client, approval_response (frame, "deny"));
  asked = client_wait (client, asked + 1, "approval_request");
  frame = g_ptr_array_index (client->frames, asked);
  g_assert_cmpstr (json_object_get_string_member (frame, "command"), ==, marks);
  assert_hidden_question (frame, marks);
  client_send (client, approval_response (frame, "deny"));
  end = client_wait_end (client, asked);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "done");

  set_replay (f, HIDDEN_TURNS);
  accepted = request (f, "POST", "/api/prompt", "{\"message\":\"Run them\"}", NULL);
  g_assert_cmpuint (accepted->status, ==, 202);
  wait.run_id = json_object_get_string_member (reply_object (accepted), "run_id");
  spin_until (run_reached, &wait);
  run_status (f, wait.run_id, &keep);
  approval = json_object_get_object_member (reply_object (keep), "approval");
  g_assert_cmpstr (json_object_get_string_member (approval, "command"), ==, "cd build\\u00a0; rm -f victim");
  assert_hidden_question (approval, nbsp);
}

/* A trust given on a plain command of its class does not answer a command
 * with control characters: asked, no trust offered (as a masked one). */
#define TRUST_CR_TURNS \
  "{\"turns\":[" SHELL_TURN ("echo plain") SHELL_TURN ("echo hi \\\\\\r\\nrm -f victim") \
  "{\"content\":\"Done.\"}]}"

static void
test_approval_controls_trust (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autofree char *victim = g_build_filename (f->dir, "victim", NULL);
  JsonObject *frame;
  guint asked, at;

  g_assert_true (g_file_set_contents (victim, "", 0, NULL));
  set_replay (f, TRUST_CR_TURNS);
  client_send (client, prompt_new ("Run them", NULL, NULL));
  asked = client_wait (client, 0, "approval_request");
  frame = g_ptr_array_index (client->frames, asked);
  g_assert_true (json_object_get_boolean_member (frame, "allow_trust"));
  client_send (client, approval_response (frame, "trust"));

  at = client_wait_end_or (client, asked + 1, "approval_request");
  frame = g_ptr_array_index (client->frames, at);
  g_assert_cmpstr (frame_type (frame), ==, "approval_request");
  assert_controls_question (f, frame);
  client_send (client, approval_response (frame, "deny"));
  client_wait_end (client, at + 1);
  g_assert_true (g_file_test (victim, G_FILE_TEST_EXISTS));
}

/* Stopping the server while a socket's run waits on a question: the run is
 * cancelled and saved, the socket closed (1001), nothing waits out the
 * timeout. */
static void
test_stop_with_socket (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  gint64 start;

  set_replay (f, WRITE_TURNS ("stopped.txt"));
  client_send (client, prompt_new ("Write it", NULL, NULL));
  client_wait (client, 0, "approval_request");

  start = g_get_monotonic_time ();
  pd_server_stop (f->server);
  /* Not a timing assertion: the default 60 s of the question would be a
   * hang, not a slow machine. */
  g_assert_cmpint (g_get_monotonic_time () - start, <, 50 * G_USEC_PER_SEC);
  spin_until (client_is_closed, client);
  g_assert_cmpuint (client->close_code, ==, SOUP_WEBSOCKET_CLOSE_GOING_AWAY);
  g_assert_false (file_exists (f, "stopped.txt"));
  assert_denied_for (f, json_object_get_string_member (g_ptr_array_index (client->frames, 0), "session_id"),
                     "interrupted: the endpoint (serve) stopped");
  assert_stopped_by (f, json_object_get_string_member (g_ptr_array_index (client->frames, 0), "session_id"),
                     "the endpoint (serve) stopped");
}

int
main (int   argc,
      char *argv[])
{
  pd_test_serve_ws_init (&argc, &argv);

  ADD ("/pd/server-ws/prompt", test_prompt, 0);
  ADD ("/pd/server-ws/prompt-errors", test_prompt_errors, 0);
  ADD ("/pd/server-ws/prompt-queue", test_prompt_queue, 0);
  ADD ("/pd/server-ws/tool-events", test_tool_events, 0);
  ADD ("/pd/server-ws/approval", test_approval, 0);
  ADD ("/pd/server-ws/approval-trust", test_approval_trust, 0);
  ADD ("/pd/server-ws/approval-never-answered", test_approval_never_answered, 1);
  ADD ("/pd/server-ws/client-vanishes", test_client_vanishes, 0);
  ADD ("/pd/server-ws/cancel", test_cancel, 0);
  ADD ("/pd/server-ws/rest-approval", test_rest_approval, 0);
  ADD ("/pd/server-ws/approval-redacted", test_approval_redacted, 0);
  ADD ("/pd/server-ws/approval-masked", test_approval_masked, 0);
  ADD ("/pd/server-ws/approval-masked-trust", test_approval_masked_trust, 0);
  ADD ("/pd/server-ws/approval-controls", test_approval_controls, 0);
  ADD ("/pd/server-ws/approval-controls-trust", test_approval_controls_trust, 0);
  ADD ("/pd/server-ws/approval-hidden", test_approval_hidden, 0);
  ADD ("/pd/server-ws/stop-with-socket", test_stop_with_socket, 0);

  return g_test_run ();
}
