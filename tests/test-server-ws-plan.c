/* test-server-ws-plan.c: plan mode through /ws, odek's WebSocket, on
 * PdServer: the plan exit_plan_mode hands in is asked of the socket as its
 * approvals are (an approval_request odek's page answers unchanged), and
 * approve leaves plan mode, deny keeps planning with the feedback the
 * answer brought, no answer fails the call and plan mode stays.  Runs use
 * the replay provider against the real tools in a temporary folder
 * (pd-test-serve-ws.h).
 *
 * Found as a new user would: on an endpoint plan mode could never be left
 * (exit_plan_mode answered "no review channel is available").
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-server-ws"

#include "config.h"

#include "pd-test-serve-ws.h"

#define PLAN "# Fix the greeting\\n\\n1. Read greeting.txt\\n2. Change Helo to Hello\\n3. Read it back"

/* Read, hand the plan in, then edit: the edit runs only once the plan is
 * approved (plan mode refuses it before). */
#define PLAN_TURNS \
  "{\"turns\":[" \
  "{\"tool_calls\":[{\"name\":\"read_file\",\"arguments\":{\"path\":\"greeting.txt\"}}]}," \
  "{\"tool_calls\":[{\"name\":\"exit_plan_mode\",\"arguments\":{\"plan\":\"" PLAN "\"}}]}," \
  "{\"tool_calls\":[{\"name\":\"edit_file\",\"arguments\":{\"path\":\"greeting.txt\"," \
  "\"old_string\":\"Helo\",\"new_string\":\"Hello\"}}]}," \
  "{\"content\":\"Done.\"}]}"

static void
set_up_plan (Fixture *f)
{
  g_autofree char *path = g_build_filename (f->dir, "greeting.txt", NULL);
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (path, "Helo, world\n", -1, &error));
  g_assert_no_error (error);
  set_replay (f, PLAN_TURNS);
}

static char *
greeting (Fixture *f)
{
  g_autofree char *path = g_build_filename (f->dir, "greeting.txt", NULL);
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

static JsonObject *
answer (JsonObject *request,
        const char *action,
        const char *feedback)
{
  JsonObject *frame = json_object_new ();

  json_object_set_string_member (frame, "type", "approval_response");
  json_object_set_string_member (frame, "id", json_object_get_string_member (request, "id"));
  json_object_set_string_member (frame, "action", action);
  if (feedback != NULL)
    json_object_set_string_member (frame, "feedback", feedback);
  return frame;
}

/* The data of the first tool_result of @name after @from. */
static const char *
result_of (Client     *client,
           guint       from,
           const char *name)
{
  for (guint i = from; i < client->frames->len; i++)
    {
      JsonObject *frame = g_ptr_array_index (client->frames, i);

      if (g_strcmp0 (frame_type (frame), "tool_result") == 0 &&
          g_strcmp0 (json_object_get_string_member (frame, "name"), name) == 0)
        return json_object_get_string_member (frame, "data");
    }
  g_error ("no tool_result of %s", name);
  return NULL;
}

/* The plans saved in the folder's .plandeck/plans. */
static guint
plans_saved (Fixture *f)
{
  g_autofree char *path = g_build_filename (f->dir, ".plandeck", "plans", NULL);
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  guint n = 0;

  while (dir != NULL && g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

/* The plan's question, as odek's page reads any non-shell tool's. */
static JsonObject *
wait_plan_question (Client *client)
{
  guint asked = client_wait (client, 0, "approval_request");
  JsonObject *request_frame = g_ptr_array_index (client->frames, asked);

  g_assert_cmpstr (json_object_get_string_member (request_frame, "risk"), ==, "plan_review");
  g_assert_cmpstr (json_object_get_string_member (request_frame, "description"), ==, "tool=exit_plan_mode");
  g_assert_cmpstr (json_object_get_string_member (request_frame, "tool"), ==, "exit_plan_mode");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (request_frame, "command"),
                                   "# Fix the greeting\n\n1. Read greeting.txt\n"));
  g_assert_false (json_object_get_boolean_member (request_frame, "allow_trust"));
  g_assert_false (json_object_get_boolean_member (request_frame, "is_operation"));
  return request_frame;
}

/* Approved: plan mode is left, the plan saved, the edit asked and run. */
static void
test_plan_approved (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autofree char *text = NULL;
  JsonObject *question;
  guint asked, edit, end;

  set_up_plan (f);
  client_send (client, prompt_new ("/plan Fix the greeting", NULL, NULL));
  question = wait_plan_question (client);
  asked = client_wait (client, 0, "approval_request");
  g_assert_cmpuint (plans_saved (f), ==, 0);
  client_send (client, answer (question, "approve", NULL));

  /* The edit is a change: asked as ever, once the plan is approved. */
  edit = client_wait (client, asked + 1, "approval_request");
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (client->frames, edit), "risk"), ==,
                   "local_write");
  client_send (client, answer (g_ptr_array_index (client->frames, edit), "approve", NULL));
  end = client_wait_end (client, edit);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "done");

  g_assert_true (g_str_has_prefix (result_of (client, asked, "exit_plan_mode"), "{\"approved\":true}"));
  g_assert_null (strstr (result_of (client, asked, "edit_file"), "plan mode is active"));
  text = greeting (f);
  g_assert_cmpstr (text, ==, "Hello, world\n");
  g_assert_cmpuint (plans_saved (f), ==, 1);
  assert_one_terminator (client, 0);

  /* Logged once each, on and then off: the server's own event sink
   * stored the engine's plan_mode events a second time (tried as an
   * attacker would). */
  {
    const char *session_id = json_object_get_string_member (g_ptr_array_index (client->frames, 0), "session_id");
    g_autoptr(GPtrArray) logged = pd_session_store_list_events (f->store, session_id, "plan_mode", 0, 100, NULL);

    g_assert_nonnull (logged);
    g_assert_cmpuint (logged->len, ==, 2);
    g_assert_nonnull (strstr (((PdStoredEvent *) g_ptr_array_index (logged, 0))->event_json, "\"active\":true"));
    g_assert_nonnull (strstr (((PdStoredEvent *) g_ptr_array_index (logged, 1))->event_json, "\"active\":false"));
  }
}

/* Denied with feedback (the window sends it): the call fails with the
 * person's words, plan mode stays, the edit is refused unasked. */
static void
test_plan_denied (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autofree char *text = NULL;
  JsonObject *question;
  const char *result;
  guint asked, end;

  set_up_plan (f);
  client_send (client, prompt_new ("/plan Fix the greeting", NULL, NULL));
  question = wait_plan_question (client);
  asked = client_wait (client, 0, "approval_request");
  client_send (client, answer (question, "deny", "Also say goodbye"));
  end = client_wait_end (client, asked);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "done");
  g_assert_cmpuint (client_wait (client, asked, "approval_ack"), <, end);

  result = result_of (client, asked, "exit_plan_mode");
  g_assert_nonnull (strstr (result, "keep planning"));
  g_assert_nonnull (strstr (result, "their feedback: Also say goodbye"));
  g_assert_nonnull (strstr (result_of (client, asked, "edit_file"), "plan mode is active"));
  for (guint i = asked + 1; i < end; i++)
    g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, i)), !=, "approval_request");
  text = greeting (f);
  g_assert_cmpstr (text, ==, "Helo, world\n");
  g_assert_cmpuint (plans_saved (f), ==, 0);

  /* odek's page sends no feedback: keep planning all the same. */
  {
    guint from = client->frames->len;
    g_autofree char *again = NULL;

    client_send (client, prompt_new ("Again", json_object_get_string_member (g_ptr_array_index (client->frames, 0),
                                                                             "session_id"),
                                     json_object_get_string_member (g_ptr_array_index (client->frames, 0),
                                                                    "auth_token")));
    asked = client_wait (client, from, "approval_request");
    client_send (client, answer (g_ptr_array_index (client->frames, asked), "deny", NULL));
    client_wait_end (client, asked);
    result = result_of (client, asked, "exit_plan_mode");
    g_assert_nonnull (strstr (result, "keep planning"));
    g_assert_null (strstr (result, "feedback"));
    again = greeting (f);
    g_assert_cmpstr (again, ==, "Helo, world\n");
  }
}

/* Nobody answers: the call fails when the time is up, plan mode stays. */
static void
test_plan_never_answered (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autofree char *text = NULL;
  const char *result;
  guint asked, end;

  set_up_plan (f);
  client_send (client, prompt_new ("/plan Fix the greeting", NULL, NULL));
  wait_plan_question (client);
  asked = client_wait (client, 0, "approval_request");
  end = client_wait_end (client, asked);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "done");

  result = result_of (client, asked, "exit_plan_mode");
  g_assert_nonnull (strstr (result, "not reviewed (no one answered in time)"));
  g_assert_nonnull (strstr (result_of (client, asked, "edit_file"), "plan mode is active"));
  text = greeting (f);
  g_assert_cmpstr (text, ==, "Helo, world\n");
  g_assert_cmpuint (plans_saved (f), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  pd_test_serve_ws_init (&argc, &argv);

  ADD ("/pd/server-ws/plan-approved", test_plan_approved, 0);
  ADD ("/pd/server-ws/plan-denied", test_plan_denied, 0);
  ADD ("/pd/server-ws/plan-never-answered", test_plan_never_answered, 1);

  return g_test_run ();
}
