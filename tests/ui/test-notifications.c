/* test-notifications.c: desktop notifications, seen by a notification server
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs under dbus-run-session: a private session bus on which this test
 * owns org.gtk.Notifications on a connection of its own and records every
 * AddNotification and RemoveNotification, as GNOME Shell would receive
 * them.  The real application, registered on that bus under its id, runs
 * replayed runs and reads a real database another writer changes; the
 * test sees each kind of notification exactly once with its buttons, and
 * activates the buttons and the click the way the server does: by calling
 * org.freedesktop.Application.ActivateAction on the application.
 */
#define G_LOG_DOMAIN "test-notifications"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-notifier-private.h"
#include "pd-preferences-window.h"
#include "pd-session-list.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-notify-server.h"
#include "pd-test-ui.h"

static void
assert_id (PdTestNotification *record,
           const char         *kind,
           const char         *session_id)
{
  g_autofree char *expected = g_strconcat (kind, session_id, NULL);

  g_assert_cmpstr (record->id, ==, expected);
}

/* The button labelled @label: its action and target, then pressed. */
static void
activate_button (PdTestNotification *record,
                 const char         *label,
                 const char         *expected_action,
                 const char         *session_id)
{
  g_autofree char *action = NULL;
  g_autoptr(GVariant) target = pd_test_notification_button (record, label, &action);

  g_assert_cmpstr (action, ==, expected_action);
  g_assert_cmpstr (g_variant_get_string (target, NULL), ==, session_id);
  pd_test_notification_activate (action, target);
}

/* --- questions to the bus ------------------------------------------------ */

/* Calls the application makes to the bus itself to look for a server,
 * counted as they leave (the filter runs in GDBus's worker thread). */
static int bus_questions;

static GDBusMessage *
count_bus_questions (GDBusConnection *connection,
                     GDBusMessage    *message,
                     gboolean         incoming,
                     gpointer         user_data)
{
  const char *member = g_dbus_message_get_member (message);

  if (!incoming && g_dbus_message_get_message_type (message) == G_DBUS_MESSAGE_TYPE_METHOD_CALL &&
      g_strcmp0 (g_dbus_message_get_destination (message), "org.freedesktop.DBus") == 0 &&
      (g_strcmp0 (member, "NameHasOwner") == 0 || g_strcmp0 (member, "ListActivatableNames") == 0))
    g_atomic_int_inc (&bus_questions);
  return message;
}

/* --- focus ------------------------------------------------------------------- */

static gboolean
window_inactive (gpointer window)
{
  return !gtk_window_is_active (window);
}

static gboolean
window_active (gpointer window)
{
  return gtk_window_is_active (window);
}

/* The user looks at another window: presented, it takes the X focus (with
 * no window manager, GDK sets the input focus itself). */
static GtkWindow *
look_elsewhere (PdWindow *window)
{
  GtkWindow *other = GTK_WINDOW (gtk_window_new ());

  gtk_window_set_title (other, "Another application");
  gtk_window_present (other);
  pd_test_wait_until (window_inactive, window, "the window to lose the focus");
  return other;
}

/* The user looks at @other again, the window that had the focus last. */
static void
look_again (GtkWindow *other)
{
  gtk_window_present (other);
  pd_test_wait_until (window_active, other, "the other window to have the focus");
}

static void
look_back (PdWindow *window)
{
  gtk_window_present (GTK_WINDOW (window));
  pd_test_wait_until (window_active, window, "the window to have the focus");
}

/* --- runs of ours -------------------------------------------------------- */

typedef struct
{
  char     *dir;
  char     *db;
  char     *project;
  char     *replay_write;
  char     *replay_fail;
  char     *replay_two;
  char     *left_open;  /* a question's notification when its window closed */
  guint     finished;
  int       status;
} Fixture;

static void
fixture_free (Fixture *fixture)
{
  g_free (fixture->dir);
  g_free (fixture->db);
  g_free (fixture->project);
  g_free (fixture->replay_write);
  g_free (fixture->replay_fail);
  g_free (fixture->replay_two);
  g_free (fixture->left_open);
  g_free (fixture);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Fixture, fixture_free)

static Fixture *
fixture_new (void)
{
  Fixture *fixture = g_new0 (Fixture, 1);

  fixture->dir = pd_test_make_tmp_dir ();
  fixture->db = g_build_filename (fixture->dir, "sessions.db", NULL);
  fixture->project = g_build_filename (fixture->dir, "project", NULL);
  fixture->replay_write = g_build_filename (fixture->dir, "write.json", NULL);
  fixture->replay_fail = g_build_filename (fixture->dir, "fail.json", NULL);
  fixture->replay_two = g_build_filename (fixture->dir, "two.json", NULL);
  /* A command (answered in the dialog), a short write (its change is not
   * in a notification: no Approve Once there) and a command too long for
   * one line of the body. */
  g_assert_true (g_file_set_contents (fixture->replay_two,
    "{\"label\": \"test: two writes\", \"turns\": ["
    " {\"content\": \"First.\", \"delay_ms\": 2000, \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"echo 1 > first.txt\"}}]},"
    " {\"content\": \"Second.\", \"tool_calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"second.txt\", \"content\": \"2\\n\"}}]},"
    " {\"content\": \"Third.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"echo 3 > third-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx.txt\"}}]},"
    " {\"content\": \"All done.\"}]}", -1, NULL));
  g_assert_cmpint (g_mkdir (fixture->project, 0700), ==, 0);
  g_assert_true (g_file_set_contents (fixture->replay_write,
    "{\"label\": \"test: one write\", \"turns\": ["
    " {\"content\": \"Writing.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"echo 1 > one.txt\"}}]},"
    " {\"content\": \"All done.\"}]}", -1, NULL));
  /* One turn with a tool call and nothing to answer its result with: the
   * replay runs out and the run fails. */
  g_assert_true (g_file_set_contents (fixture->replay_fail,
    "{\"label\": \"test: runs out\", \"turns\": ["
    " {\"content\": \"Listing.\", \"tool_calls\": [{\"name\": \"list_files\", \"arguments\": {\"path\": \".\"}}]}]}",
    -1, NULL));
  g_object_unref (pd_test_open_store (fixture->db));

  return fixture;
}

static void
on_finished (PdRunController *runs,
             int              status,
             const char      *message,
             Fixture         *fixture)
{
  fixture->finished++;
  fixture->status = status;
}

static void
start_replay (PdWindow   *window,
              Fixture    *fixture,
              const char *replay,
              const char *message)
{
  PdRunController *runs = pd_window_get_run_controller (window);
  g_autoptr(PdRunSettings) settings = pd_run_settings_new ();
  g_autoptr(GError) error = NULL;

  g_free (settings->provider);
  settings->provider = g_strdup ("replay");
  settings->replay_path = g_strdup (replay);
  settings->working_directory = g_strdup (fixture->project);
  settings->policy = PD_APPROVAL_POLICY_ASK;
  settings->planning = TRUE;
  g_assert_true (pd_run_controller_start (runs, settings, message, &error));
  g_assert_no_error (error);
}

typedef struct
{
  Fixture *fixture;
  guint    count;
} FinishWait;

static gboolean
finished_count (gpointer data)
{
  FinishWait *wait = data;

  return wait->fixture->finished >= wait->count;
}

static gboolean
file_exists (gpointer path)
{
  return g_file_test (path, G_FILE_TEST_EXISTS);
}

typedef struct
{
  PdWindow   *window;
  const char *id;
} Shown;

static gboolean
approvals_added (gpointer data)
{
  return pd_test_notification_count ("approval:") >= GPOINTER_TO_UINT (data);
}

static GtkWidget *
open_approval_dialog (void)
{
  return GTK_WIDGET (pd_test_find_toplevel (ADW_TYPE_MESSAGE_DIALOG));
}

/* As a click on its button: the response, then the dialog goes. */
static void
answer_dialog (const char *response)
{
  GtkWidget *dialog = open_approval_dialog ();

  g_assert_nonnull (dialog);
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialog), response);
  gtk_window_destroy (GTK_WINDOW (dialog));
}

static gboolean
approval_dialog_open (gpointer data)
{
  return open_approval_dialog () != NULL;
}

/* A question the notification does not show whole: it says to open it,
 * and offers Deny alone. */
static void
assert_deny_alone (PdTestNotification *record)
{
  g_autofree char *body = pd_test_notification_field (record, "body");
  g_autoptr(GVariant) buttons = g_variant_lookup_value (record->notification, "buttons",
                                                        G_VARIANT_TYPE ("aa{sv}"));
  g_autofree char *printed = g_variant_print (buttons, FALSE);

  g_assert_nonnull (strstr (body, "Open it to see the whole request"));
  g_assert_null (strstr (printed, "Approve Once"));
  g_assert_nonnull (strstr (printed, "Deny"));
}

static gboolean
window_shows (gpointer data)
{
  Shown *shown = data;
  PdSessionItem *item = pd_session_list_get_selected_item (PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (shown->window), PD_TYPE_SESSION_LIST)));

  return item != NULL && g_strcmp0 (pd_session_item_get_id (item), shown->id) == 0;
}

/* @data (a PdWindow) shows the session its run controller runs. */
static gboolean
window_shows_run (gpointer data)
{
  Shown shown = { data, pd_run_controller_get_session_id (pd_window_get_run_controller (data)) };

  return shown.id != NULL && window_shows (&shown);
}

static void
check_runs (PdApplication *app,
            PdWindow      *window,
            gpointer       user_data)
{
  Fixture *fixture = user_data;
  PdRunController *runs = pd_window_get_run_controller (window);
  g_autofree char *written = g_build_filename (fixture->project, "one.txt", NULL);
  g_autofree char *run_id = NULL;
  FinishWait wait = { fixture, 1 };
  PdTestNotification *record;
  g_autofree char *title = NULL;

  GDBusConnection *bus = g_application_get_dbus_connection (G_APPLICATION (app));
  guint filter = g_dbus_connection_add_filter (bus, count_bus_questions, NULL, NULL);
  GtkWindow *other = look_elsewhere (window);

  g_signal_connect (runs, "finished", G_CALLBACK (on_finished), fixture);

  start_replay (window, fixture, fixture->replay_write, "Write a file");
  pd_test_notification_wait ("approval:");
  run_id = g_strdup (pd_run_controller_get_session_id (runs));
  record = pd_test_notification_find ("approval:");
  /* Named by a random id of the question ("SESSION/N" named others too). */
  g_assert_true (g_str_has_prefix (record->id, "approval:"));
  g_assert_cmpuint (strlen (record->id), ==, strlen ("approval:") + 32);
  g_assert_null (strstr (record->id, run_id));
  title = pd_test_notification_field (record, "title");
  g_assert_cmpstr (title, ==, "Approval Needed");
  /* The body says what it asks, as the dialog does. */
  {
    g_autofree char *body = pd_test_notification_field (record, "body");

    g_assert_nonnull (strstr (body, "echo 1 > one.txt"));
  }
  pd_test_notification_assert_default_opens (record, run_id);
  g_assert_false (g_file_test (written, G_FILE_TEST_EXISTS));

  /* Approve from the notification: the write happens, the dialog goes,
   * and the notification is withdrawn. */
  activate_button (record, "Approve Once", "app.approve-run", record->id + strlen ("approval:"));
  pd_test_wait_until (file_exists, written, "the approved write");
  pd_test_wait_until (finished_count, &wait, "the run to finish");
  g_assert_cmpint (fixture->status, ==, PD_RUN_COMPLETED);
  pd_test_notification_wait ("run-finished:");
  g_assert_cmpuint (pd_test_notification_count ("approval:"), ==, 1);
  g_assert_true (pd_test_notification_removed (record->id));
  record = pd_test_notification_find ("run-finished:");
  pd_test_notification_assert_default_opens (record, run_id);

  /* A run that fails. */
  wait.count = 2;
  start_replay (window, fixture, fixture->replay_fail, "List the files");
  pd_test_wait_until (finished_count, &wait, "the second run to end");
  g_assert_cmpint (fixture->status, ==, PD_RUN_FAILED);
  pd_test_notification_wait ("run-failed:");

  /* A click on the first run's notification opens that session. */
  record = pd_test_notification_find ("run-finished:");
  {
    g_autoptr(GVariant) target = g_variant_lookup_value (record->notification, "default-action-target", NULL);
    Shown shown = { window, run_id };
    Shown second = { window, pd_run_controller_get_session_id (runs) };

    pd_test_wait_until (window_shows, &second, "the second run's session to be shown");
    g_assert_false (window_shows (&shown));
    pd_test_notification_activate ("app.open-session", target);
    pd_test_wait_until (window_shows, &shown, "the clicked session to be shown");
  }

  /* Each once: nothing more came while the list polled. */
  pd_test_spin (500);
  g_assert_cmpuint (pd_test_notification_count ("approval:"), ==, 1);
  g_assert_cmpuint (pd_test_notification_count ("run-finished:"), ==, 1);
  g_assert_cmpuint (pd_test_notification_count ("run-failed:"), ==, 1);

  /* A stale notification: question 1 notified, answered in the dialog, then
   * question 2 asked.  Question 1's Approve answered question 2 (found as
   * an attacker would); it is ignored now.  The click above brought the
   * window forward, so the user looks away again first: with the focus on
   * the window and the run's session shown there, nothing is sent (the
   * user sees it), and which came first, the session shown or the question,
   * was the machine's load to decide.  The first turn waits 2 s, so the
   * session is shown by then (under load it waited for a notification that
   * never came). */
  {
    g_autofree char *first = g_build_filename (fixture->project, "first.txt", NULL);
    g_autofree char *second = g_build_filename (fixture->project, "second.txt", NULL);
    g_autoptr(GVariant) stale = NULL;
    g_autoptr(GVariant) deny = NULL;
    g_autofree char *first_id = NULL;
    guint before = pd_test_notification_count ("approval:");

    wait.count = 3;
    look_again (other);
    start_replay (window, fixture, fixture->replay_two, "Write two files");
    pd_test_wait_until (approvals_added, GUINT_TO_POINTER (before + 1), "question 1's notification");
    stale = pd_test_notification_button (pd_test_notification_find_last ("approval:"), "Approve Once", NULL);
    first_id = g_strdup (pd_test_notification_find_last ("approval:")->id);
    pd_test_wait_until (approval_dialog_open, NULL, "question 1's dialog");
    /* The dialog took the focus; it goes back to the other window. */
    look_again (other);
    answer_dialog ("once");
    pd_test_wait_until (file_exists, first, "the first write");
    pd_test_wait_until (approvals_added, GUINT_TO_POINTER (before + 2), "question 2's notification");
    pd_test_wait_until (approval_dialog_open, NULL, "question 2's dialog");
    /* A write, however short, is not approved from the notification: its
     * body names the file, the content is shown only in the dialog.  It
     * says to open it, with Deny alone (Approve Once wrote a content the
     * user never saw, tried as an attacker would). */
    assert_deny_alone (pd_test_notification_find_last ("approval:"));
    /* One notification per question; question 1's (answered) was withdrawn. */
    g_assert_cmpstr (pd_test_notification_find_last ("approval:")->id, !=, first_id);
    g_assert_true (pd_test_notification_removed (first_id));

    pd_test_notification_activate ("app.approve-run", stale);
    /* Approve with its own Deny's target: refused (no Approve offered). */
    deny = pd_test_notification_button (pd_test_notification_find_last ("approval:"), "Deny", NULL);
    pd_test_notification_activate ("app.approve-run", deny);
    /* What an earlier process named: the session and a number from 1. */
    for (guint n = 1; n <= 9; n++)
      pd_test_notification_activate ("app.approve-run",
                           g_variant_new_take_string (g_strdup_printf ("%s/%u", pd_run_controller_get_session_id (runs), n)));
    pd_test_spin (1000);
    g_assert_false (g_file_test (second, G_FILE_TEST_EXISTS));
    g_assert_nonnull (open_approval_dialog ());

    look_again (other);
    answer_dialog ("deny");
    /* A command longer than one line of the body: Deny alone too. */
    pd_test_wait_until (approvals_added, GUINT_TO_POINTER (before + 3), "question 3's notification");
    pd_test_wait_until (approval_dialog_open, NULL, "question 3's dialog");
    assert_deny_alone (pd_test_notification_find_last ("approval:"));
    answer_dialog ("deny");
    pd_test_wait_until (finished_count, &wait, "the third run to end");
    g_assert_false (g_file_test (second, G_FILE_TEST_EXISTS));
  }

  /* Focused and showing the session, with a modal dialog of its own: no notification. */
  {
    guint before;
    GtkWindow *modal = GTK_WINDOW (gtk_window_new ());

    look_back (window);
    gtk_window_set_transient_for (modal, GTK_WINDOW (window));
    gtk_window_set_modal (modal, TRUE);
    before = pd_test_notification_count ("approval:");
    wait.count = 4;
    start_replay (window, fixture, fixture->replay_two, "Seen");
    pd_test_wait_until (window_shows_run, window, "the run's session to be shown");
    gtk_window_present (modal);
    pd_test_wait_until (window_active, modal, "the window's dialog to have the focus");
    pd_test_wait_until (approval_dialog_open, NULL, "the question's dialog");
    pd_test_spin (500);
    g_assert_cmpuint (pd_test_notification_count ("approval:"), ==, before);
    pd_run_controller_stop (runs);
    pd_test_wait_until (finished_count, &wait, "the fourth run to end");
    gtk_window_destroy (modal);
  }

  /* A question left open when the window closes (test_runs looks). */
  look_again (other);
  start_replay (window, fixture, fixture->replay_write, "Left open");
  pd_test_wait_until (approvals_added, GUINT_TO_POINTER (pd_test_notification_count ("approval:") + 1), "the last notification");
  fixture->left_open = g_strdup (pd_test_notification_find_last ("approval:")->id);

  /* Five notifications, and the bus was asked about servers once (the
   * window's list of startable names; GLib's own NameHasOwner when it picks
   * its backend), not on each with the main thread waiting for the answer. */
  g_assert_cmpuint (pd_test_notification_count ("approval:") + pd_test_notification_count ("run-"), >=, 5);
  g_dbus_connection_remove_filter (bus, filter);
  g_assert_cmpint (g_atomic_int_get (&bus_questions), <=, 2);
  gtk_window_destroy (other);
}

static void
test_runs (void)
{
  g_autoptr(Fixture) fixture = fixture_new ();
  const char *args[] = { "--db", fixture->db, NULL };

  g_assert_cmpint (pd_test_run_app (args, check_runs, fixture, NULL), ==, 0);
  /* Its window gone, an open question's notification went with it. */
  g_assert_nonnull (fixture->left_open);
  pd_test_wait_until (pd_test_notification_removed, fixture->left_open, "the notification of a closed window's question to go");
}

/* --- sessions another writer changes --------------------------------------- */

static PdPlanState *
checklist (gint64 version,
           guint  done,
           guint  total,
           guint  blocked)
{
  PdPlanState *plan = pd_plan_state_new ();

  plan->version = version;
  for (guint i = 0; i < total; i++)
    {
      g_autofree char *id = g_strdup_printf ("s%u", i + 1);
      g_autofree char *title = g_strdup_printf ("Item %u", i + 1);
      PdPlanStepStatus status = i < done ? PD_PLAN_STEP_DONE
                                : i < done + blocked ? PD_PLAN_STEP_BLOCKED : PD_PLAN_STEP_PENDING;

      g_ptr_array_add (plan->steps, pd_test_step (id, title, status, NULL));
    }
  return plan;
}

typedef struct
{
  char           *dir;
  char           *db;
  PdSessionStore *store;
} Writer;

typedef struct
{
  PdSessionList *list;
  const char    *id;
  guint          blocked;
} BlockedWait;

static gboolean
listed_blocked (gpointer data)
{
  BlockedWait *wait = data;
  PdSessionItem *item = pd_session_list_model_find (pd_session_list_get_model (wait->list), wait->id, NULL);

  return item != NULL && pd_session_item_get_info (item)->plan_blocked == wait->blocked;
}

static void
check_sessions (PdApplication *app,
                PdWindow      *window,
                gpointer       user_data)
{
  Writer *writer = user_data;
  g_autofree char *plan_id = pd_test_add_session (writer->store,
                                                     /* ends in a right-to-left override */
                                                     "Tidy the parser\xe2\x80\xae", "plandeck");
  /* As an attacker would title it: 300,000 characters went whole to the
   * notification server. */
  g_autofree char *many = g_strnfill (300000, 'A');
  g_autofree char *long_title = g_strconcat ("Port the tests of the parser to the new runner and keep every "
                                             "case of the old one ", many, NULL);
  g_autofree char *agent_id = pd_test_add_session (writer->store, long_title, "claude-code");
  g_autoptr(PdPlanState) open = checklist (1, 1, 3, 0);
  g_autoptr(PdPlanState) blocked = checklist (2, 1, 3, 1);
  g_autoptr(PdPlanState) complete = checklist (2, 3, 3, 0);
  PdTestNotification *record;
  g_autofree char *title = NULL;
  g_autofree char *body = NULL;
  PdNotifier *notifier = pd_window_get_notifier (window);
  GtkWindow *other = look_elsewhere (window);

  /* A plan step becomes blocked (another process writing the database). */
  pd_test_save_plan (writer->store, plan_id, open, PD_SESSION_STATUS_RUNNING);
  pd_test_save_plan (writer->store, agent_id, open, PD_SESSION_STATUS_IDLE);
  pd_test_save_plan (writer->store, plan_id, blocked, PD_SESSION_STATUS_RUNNING);
  pd_test_notification_wait ("plan-blocked:");
  record = pd_test_notification_find ("plan-blocked:");
  assert_id (record, "plan-blocked:", plan_id);
  pd_test_notification_assert_default_opens (record, plan_id);
  title = pd_test_notification_field (record, "title");
  body = pd_test_notification_field (record, "body");
  g_assert_cmpstr (title, ==, "Plan Blocked");
  g_assert_nonnull (strstr (body, "Tidy the parser"));
  /* As an attacker would title it: the override cannot turn our sentence
   * around, the title sits in an isolate (U+2068 … U+2069). */
  g_assert_null (strstr (body, "\xe2\x80\xae"));
  g_assert_nonnull (strstr (body, "\xe2\x81\xa8Tidy the parser"));
  g_assert_nonnull (strstr (strstr (body, "Tidy the parser"), "\xe2\x81\xa9"));

  /* The agent's checklist goes quiet with unfinished items: once per
   * quiet spell, however often it is looked at. */
  {
    gint64 later = g_get_real_time () + (gint64) 16 * 60 * G_USEC_PER_SEC;

    _pd_notifier_check_stalled (notifier, g_get_real_time ());
    g_assert_cmpuint (pd_test_notification_count ("checklist-stalled:"), ==, 0);
    _pd_notifier_check_stalled (notifier, later);
    pd_test_notification_wait ("checklist-stalled:");
    _pd_notifier_check_stalled (notifier, later + (gint64) 60 * G_USEC_PER_SEC);
    record = pd_test_notification_find ("checklist-stalled:");
    assert_id (record, "checklist-stalled:", agent_id);
    pd_test_notification_assert_default_opens (record, agent_id);
  }

  /* Its checklist completed. */
  pd_test_save_plan (writer->store, agent_id, complete, PD_SESSION_STATUS_IDLE);
  pd_test_notification_wait ("checklist-completed:");
  record = pd_test_notification_find ("checklist-completed:");
  assert_id (record, "checklist-completed:", agent_id);
  pd_test_notification_assert_default_opens (record, agent_id);
  /* Its title cut at a word, with an ellipsis. */
  {
    g_autofree char *completed = pd_test_notification_field (record, "body");

    g_test_message ("%s", completed);
    g_assert_cmpuint (g_utf8_strlen (completed, -1), <, 200);
    g_assert_nonnull (strstr (completed, "\xe2\x81\xa8Port the tests of the parser to the new runner and keep every "
                                         "case of the old one…\xe2\x81\xa9"));
  }

  /* More polls, another change to the blocked session that adds no block,
   * and no kind comes twice. */
  {
    g_autoptr(PdPlanState) still_blocked = checklist (3, 1, 3, 1);

    pd_test_save_plan (writer->store, plan_id, still_blocked, PD_SESSION_STATUS_RUNNING);
  }
  pd_test_spin (1500);
  _pd_notifier_check_stalled (notifier, g_get_real_time () + (gint64) 60 * 60 * G_USEC_PER_SEC);
  g_assert_cmpuint (pd_test_notification_count ("plan-blocked:"), ==, 1);
  g_assert_cmpuint (pd_test_notification_count ("checklist-stalled:"), ==, 1);
  g_assert_cmpuint (pd_test_notification_count ("checklist-completed:"), ==, 1);

  /* The user looks at the session in the focused window: a new block
   * there is not sent, since it is on screen. */
  {
    PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
    g_autoptr(PdPlanState) more_blocked = checklist (4, 0, 3, 2);
    Shown shown = { window, plan_id };
    BlockedWait blocked_wait = { list, plan_id, 2 };

    look_back (window);
    g_assert_true (pd_session_list_select (list, plan_id));
    pd_test_wait_until (window_shows, &shown, "the blocked session to be shown");
    pd_test_save_plan (writer->store, plan_id, more_blocked, PD_SESSION_STATUS_RUNNING);
    pd_test_wait_until (listed_blocked, &blocked_wait, "the second block to be listed");
    pd_test_spin (200);
    g_assert_cmpuint (pd_test_notification_count ("plan-blocked:"), ==, 1);
  }

  /* Switched off in Preferences: nothing, seen or not. */
  {
    PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
    g_autoptr(GSettings) settings = g_settings_new (APP_ID);
    g_autoptr(PdPlanState) all_blocked = checklist (5, 0, 3, 3);
    BlockedWait blocked_wait = { list, plan_id, 3 };
    guint before = pd_test_notify_server_added ()->len;

    gtk_window_present (other);
    pd_test_wait_until (window_inactive, window, "the window to lose the focus");
    g_settings_set_boolean (settings, "notify-plan-blocked", FALSE);
    pd_test_save_plan (writer->store, plan_id, all_blocked, PD_SESSION_STATUS_RUNNING);
    pd_test_wait_until (listed_blocked, &blocked_wait, "the third block to be listed");
    pd_test_spin (200);
    g_assert_cmpuint (pd_test_notify_server_added ()->len, ==, before);
    g_settings_reset (settings, "notify-plan-blocked");
  }
  gtk_window_destroy (other);
}

static void
test_sessions (void)
{
  Writer writer = { 0 };
  const char *args[] = { NULL, NULL, NULL };

  writer.dir = pd_test_make_tmp_dir ();
  writer.db = g_build_filename (writer.dir, "sessions.db", NULL);
  writer.store = pd_test_open_store (writer.db);
  args[0] = "--db";
  args[1] = writer.db;

  g_assert_cmpint (pd_test_run_app (args, check_sessions, &writer, NULL), ==, 0);

  g_object_unref (writer.store);
  g_free (writer.db);
  g_free (writer.dir);
}

/* --- Preferences ------------------------------------------------------------ */

static gboolean
is_row_titled (GtkWidget     *widget,
               gconstpointer  title)
{
  return ADW_IS_ACTION_ROW (widget) &&
         g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), title) == 0;
}

/* Each kind has its switch, bound to its key. */
static void
test_preferences (void)
{
  static const char * const rows[][2] = {
    { "Run Finished", "notify-run-finished" },
    { "Run Failed", "notify-run-failed" },
    { "Approval Needed", "notify-approval" },
    { "Plan Blocked", "notify-plan-blocked" },
    { "Agent’s Checklist Completed", "notify-checklist-completed" },
    { "Agent’s Checklist Stalled", "notify-checklist-stalled" },
  };
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  PdPreferencesWindow *prefs;

  pd_test_reset_settings ();
  prefs = pd_preferences_window_new (NULL);
  gtk_window_present (GTK_WINDOW (prefs));
  pd_test_flush (GTK_WIDGET (prefs));
  adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (prefs), "notifications");
  pd_test_screenshot_sizes (GTK_WINDOW (prefs), "preferences-notifications");

  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      GtkWidget *row = pd_test_find_first (GTK_WIDGET (prefs), is_row_titled, rows[i][0]);
      GtkWidget *toggle;

      g_assert_nonnull (row);
      toggle = pd_test_find_widget (row, GTK_TYPE_SWITCH);
      g_assert_nonnull (toggle);
      g_assert_true (gtk_switch_get_active (GTK_SWITCH (toggle)));
      gtk_switch_set_active (GTK_SWITCH (toggle), FALSE);
      g_assert_false (g_settings_get_boolean (settings, rows[i][1]));
    }
  {
    GtkWidget *row = pd_test_find_first (GTK_WIDGET (prefs), is_row_titled, "Stalled After");
    GtkWidget *spin = pd_test_find_widget (row, GTK_TYPE_SPIN_BUTTON);

    /* Off with its switch. */
    g_assert_false (gtk_widget_get_sensitive (row));
    gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), 42);
    g_assert_cmpuint (g_settings_get_uint (settings, "notify-stalled-minutes"), ==, 42);
  }
  pd_test_destroy_window (prefs, NULL);
  pd_test_reset_settings ();
}

/* --- a freedesktop.org server that reads markup ---------------------------- */

typedef struct
{
  gboolean   markup;    /* announces body-markup */
  guint      asked;     /* GetCapabilities calls */
  GPtrArray *bodies;    /* (element-type utf8) Notify's bodies */
} FdoServer;

static FdoServer fdo;

static void
on_fdo_call (GDBusConnection       *connection,
             const char            *sender,
             const char            *path,
             const char            *interface,
             const char            *method,
             GVariant              *parameters,
             GDBusMethodInvocation *invocation,
             gpointer               user_data)
{
  if (g_strcmp0 (method, "GetCapabilities") == 0)
    {
      const char *markup[] = { "body", "body-markup", "actions", NULL };
      const char *plain[] = { "body", "actions", NULL };

      fdo.asked++;
      g_dbus_method_invocation_return_value (invocation,
                                             g_variant_new ("(^as)", fdo.markup ? markup : plain));
    }
  else if (g_strcmp0 (method, "Notify") == 0)
    {
      const char *body = NULL;

      g_variant_get_child (parameters, 4, "&s", &body);
      g_test_message ("fdo notification body: %s", body);
      g_ptr_array_add (fdo.bodies, g_strdup (body));
      g_dbus_method_invocation_return_value (invocation, g_variant_new ("(u)", fdo.bodies->len));
    }
  else if (g_strcmp0 (method, "GetServerInformation") == 0)
    g_dbus_method_invocation_return_value (invocation, g_variant_new ("(ssss)", "test", "plandeck", "1", "1.2"));
  else
    g_dbus_method_invocation_return_value (invocation, NULL);
}

static void
set_name_owned (const char *name,
                gboolean    owned)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;
  guint32 result = 0;

  reply = g_dbus_connection_call_sync (pd_test_notify_server_connection (), "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", owned ? "RequestName" : "ReleaseName",
                                       owned ? g_variant_new ("(su)", name, 4) : g_variant_new ("(s)", name),
                                       G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, &error);
  g_assert_no_error (error);
  g_variant_get (reply, "(u)", &result);
  g_assert_cmpuint (result, ==, 1 /* PRIMARY_OWNER, RELEASED */);
}

static gboolean
fdo_asked (gpointer count)
{
  return fdo.asked >= GPOINTER_TO_UINT (count);
}

static gboolean
fdo_bodies (gpointer count)
{
  return fdo.bodies->len >= GPOINTER_TO_UINT (count);
}

/* The text a markup-reading server shows for @body. */
static char *
shown_text (const char *body)
{
  g_autoptr(GError) error = NULL;
  char *text = NULL;

  g_assert_true (pango_parse_markup (body, -1, 0, NULL, &text, NULL, &error));
  g_assert_no_error (error);
  return text;
}

#define HOSTILE_TITLE "<b>x</b> & <a href=\"https://example.com/\">click</a>"

static void
check_markup (PdApplication *app,
              PdWindow      *window,
              gpointer       user_data)
{
  Writer *writer = user_data;
  g_autofree char *id = pd_test_add_session (writer->store, HOSTILE_TITLE, "plandeck");
  g_autoptr(PdPlanState) open = checklist (1, 1, 3, 0);
  g_autoptr(PdPlanState) blocked = checklist (2, 1, 3, 1);
  g_autoptr(PdPlanState) more = checklist (3, 0, 3, 2);
  GtkWindow *other = look_elsewhere (window);
  const char *body;

  /* A server that reads bodies as markup: the title arrives escaped, and
   * what it shows is the title's own characters, no bold, no link. */
  pd_test_save_plan (writer->store, id, open, PD_SESSION_STATUS_RUNNING);
  pd_test_save_plan (writer->store, id, blocked, PD_SESSION_STATUS_RUNNING);
  pd_test_wait_until (fdo_bodies, GUINT_TO_POINTER (1), "a notification to the markup server");
  body = g_ptr_array_index (fdo.bodies, 0);
  g_assert_null (strstr (body, "<b>"));
  g_assert_null (strstr (body, "<a "));
  {
    g_autofree char *text = shown_text (body);

    g_assert_nonnull (strstr (text, HOSTILE_TITLE));
  }

  /* Another server comes, one that reads plain text: it is asked again,
   * and gets the title as it is. */
  set_name_owned ("org.freedesktop.Notifications", FALSE);
  fdo.markup = FALSE;
  set_name_owned ("org.freedesktop.Notifications", TRUE);
  pd_test_wait_until (fdo_asked, GUINT_TO_POINTER (2), "the new server to be asked what it reads");
  pd_test_save_plan (writer->store, id, more, PD_SESSION_STATUS_RUNNING);
  pd_test_wait_until (fdo_bodies, GUINT_TO_POINTER (2), "a notification to the plain server");
  body = g_ptr_array_index (fdo.bodies, 1);
  g_assert_nonnull (strstr (body, HOSTILE_TITLE));
  gtk_window_destroy (other);
}

static void
test_markup (void)
{
  static const GDBusInterfaceVTable vtable = { on_fdo_call, NULL, NULL, { 0 } };
  GDBusInterfaceInfo *info = pd_test_notify_server_interface ("org.freedesktop.Notifications");
  g_autoptr(GError) error = NULL;
  Writer writer = { 0 };
  const char *args[] = { NULL, NULL, NULL };
  guint object;

  /* Only org.freedesktop.Notifications: GLib's fallback backend sends
   * the body as it is given. */
  object = g_dbus_connection_register_object (pd_test_notify_server_connection (), "/org/freedesktop/Notifications",
                                              info, &vtable, NULL, NULL, &error);
  g_assert_no_error (error);
  fdo.markup = TRUE;
  fdo.bodies = g_ptr_array_new_with_free_func (g_free);
  set_name_owned ("org.gtk.Notifications", FALSE);
  set_name_owned ("org.freedesktop.Notifications", TRUE);

  writer.dir = pd_test_make_tmp_dir ();
  writer.db = g_build_filename (writer.dir, "sessions.db", NULL);
  writer.store = pd_test_open_store (writer.db);
  args[0] = "--db";
  args[1] = writer.db;
  g_assert_cmpint (pd_test_run_app (args, check_markup, &writer, NULL), ==, 0);

  set_name_owned ("org.freedesktop.Notifications", FALSE);
  set_name_owned ("org.gtk.Notifications", TRUE);
  g_dbus_connection_unregister_object (pd_test_notify_server_connection (), object);
  g_dbus_interface_info_unref (info);
  g_clear_pointer (&fdo.bodies, g_ptr_array_unref);
  g_object_unref (writer.store);
  g_free (writer.db);
  g_free (writer.dir);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  if (g_getenv ("DBUS_SESSION_BUS_ADDRESS") == NULL)
    {
      g_print ("1..0 # SKIP no session bus: run under dbus-run-session (meson test does)\n");
      return 0;
    }
  pd_test_notify_server_start ("org.gtk.Notifications", "/org/gtk/Notifications", "org.gtk.Notifications");
  /* Registered on the bus under its id, as the desktop runs it, so that
   * the notification server can reach its actions. */
  pd_test_set_registered (TRUE);

  g_test_add_func ("/pd/ui/notifications/runs", test_runs);
  g_test_add_func ("/pd/ui/notifications/sessions", test_sessions);
  g_test_add_func ("/pd/ui/notifications/preferences", test_preferences);
  g_test_add_func ("/pd/ui/notifications/markup-body", test_markup);

  return g_test_run ();
}
