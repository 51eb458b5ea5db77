/* test-notification-servers.c: notifications through each server GLib sends to
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs under dbus-run-session, a case per process (GLib picks its
 * notification backend once per process): on the private bus this test
 * owns, on a connection of its own, the server the case is about and
 * records what it receives —
 *
 *   portal:    org.freedesktop.portal.Desktop's org.freedesktop.portal.Notification,
 *              what GLib sends to in a Flatpak sandbox, where the bus proxy
 *              hides every other server's name.  The process runs with
 *              GTK_USE_PORTAL=1, GLib's own sign (besides /.flatpak-info,
 *              which a test cannot create) that it is to use the portal;
 *   fdo:       org.freedesktop.Notifications alone, the app's name and icon;
 *   questions: org.gtk.Notifications, what a new run's first question, a
 *              plan waiting for its review and a blocked step say.
 *
 * The real application runs replayed runs and reads a real database; the
 * test activates buttons as a server does, by calling
 * org.freedesktop.Application.ActivateAction on the application.
 */
#define G_LOG_DOMAIN "test-notification-servers"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-notifier-private.h"
#include "pd-session-list.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-notify-server.h"
#include "pd-test-ui.h"

/* The button labelled @label, pressed. */
static void
press_button (PdTestNotification *record,
              const char         *label)
{
  g_autofree char *action = NULL;
  g_autoptr(GVariant) target = pd_test_notification_button (record, label, &action);

  pd_test_notification_activate (action, target);
}

/* --- runs ---------------------------------------------------------------- */

typedef struct
{
  char *dir;
  char *db;
  char *project;
  char *replay;        /* a command to approve */
  char *replay_plan;   /* a plan for review (plan mode) */
} Fixture;

static void
fixture_free (Fixture *fixture)
{
  g_free (fixture->dir);
  g_free (fixture->db);
  g_free (fixture->project);
  g_free (fixture->replay);
  g_free (fixture->replay_plan);
  g_free (fixture);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Fixture, fixture_free)

static const char replay_text[] =
  "{\"label\": \"test: a write\", \"turns\": ["
  " {\"content\": \"Writing.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"echo 1 > one.txt\"}}]},"
  " {\"content\": \"All done.\"}]}";

static const char replay_plan_text[] =
  "{\"label\": \"test: a plan\", \"turns\": ["
  " {\"content\": \"Here is my plan.\", \"tool_calls\": [{\"name\": \"exit_plan_mode\", \"arguments\": {\"plan\": \"# Tidy the README\\n\\n- read it\\n\"}}]},"
  " {\"content\": \"Starting.\"}]}";

static Fixture *
fixture_new (void)
{
  Fixture *fixture = g_new0 (Fixture, 1);

  fixture->dir = pd_test_make_tmp_dir ();
  fixture->db = g_build_filename (fixture->dir, "sessions.db", NULL);
  fixture->project = g_build_filename (fixture->dir, "project", NULL);
  fixture->replay = g_build_filename (fixture->dir, "replay.json", NULL);
  fixture->replay_plan = g_build_filename (fixture->dir, "plan.json", NULL);
  g_assert_cmpint (g_mkdir (fixture->project, 0700), ==, 0);
  g_assert_true (g_file_set_contents (fixture->replay, replay_text, -1, NULL));
  g_assert_true (g_file_set_contents (fixture->replay_plan, replay_plan_text, -1, NULL));
  g_object_unref (pd_test_open_store (fixture->db));
  return fixture;
}

static void
start_replay (PdWindow   *window,
              const char *replay,
              Fixture    *fixture,
              const char *message)
{
  g_autoptr(PdRunSettings) settings = pd_run_settings_new ();
  g_autoptr(GError) error = NULL;

  g_free (settings->provider);
  settings->provider = g_strdup ("replay");
  settings->replay_path = g_strdup (replay);
  settings->working_directory = g_strdup (fixture->project);
  settings->policy = PD_APPROVAL_POLICY_ASK;
  settings->planning = TRUE;
  g_assert_true (pd_run_controller_start (pd_window_get_run_controller (window), settings, message, &error));
  g_assert_no_error (error);
}

static gboolean
window_inactive (gpointer window)
{
  return !gtk_window_is_active (window);
}

/* The user looks at another window: nothing is sent for what they see. */
static GtkWindow *
look_elsewhere (PdWindow *window)
{
  GtkWindow *other = GTK_WINDOW (gtk_window_new ());

  gtk_window_set_title (other, "Another application");
  gtk_window_present (other);
  pd_test_wait_until (window_inactive, window, "the window to lose the focus");
  return other;
}

static gboolean
file_exists (gpointer path)
{
  return g_file_test (path, G_FILE_TEST_EXISTS);
}

static GtkWidget *
open_dialog (void)
{
  return GTK_WIDGET (pd_test_find_toplevel (ADW_TYPE_MESSAGE_DIALOG));
}

static gboolean
dialog_open (gpointer data)
{
  return open_dialog () != NULL;
}

static gboolean
not_running (gpointer runs)
{
  return !pd_run_controller_get_running (runs);
}

/* --- the portal (Flatpak) ------------------------------------------------ */

static void
check_portal (PdApplication *app,
              PdWindow      *window,
              gpointer       user_data)
{
  Fixture *fixture = user_data;
  PdRunController *runs = pd_window_get_run_controller (window);
  g_autofree char *written = g_build_filename (fixture->project, "one.txt", NULL);
  GtkWindow *other = look_elsewhere (window);
  PdTestNotification *record;
  g_autofree char *printed = NULL;

  /* No org.gtk.Notifications, no org.freedesktop.Notifications: the
   * portal alone, as a sandboxed app sees the bus.  Nothing was sent. */
  start_replay (window, fixture->replay, fixture, "Write a file");
  record = pd_test_notification_wait ("approval:");
  {
    g_autofree char *title = pd_test_notification_field (record, "title");
    g_autofree char *body = pd_test_notification_field (record, "body");

    g_assert_cmpstr (title, ==, "Approval Needed");
    g_assert_nonnull (strstr (body, "echo 1 > one.txt"));
  }
  pd_test_notification_assert_default_opens (record, pd_run_controller_get_session_id (runs));
  /* The portal takes buttons: Approve Once and Deny are there. */
  printed = g_variant_print (record->notification, FALSE);
  g_assert_nonnull (strstr (printed, "Approve Once"));
  g_assert_nonnull (strstr (printed, "Deny"));
  {
    g_autoptr(GVariant) icon = g_variant_lookup_value (record->notification, "icon", NULL);

    g_assert_nonnull (icon);
  }

  /* Pressed, as the portal activates it: the write happens. */
  press_button (record, "Approve Once");
  pd_test_wait_until (file_exists, written, "the approved write");
  pd_test_wait_until (pd_test_notification_removed, record->id, "the answered question's notification to go");

  /* The run's end, through the portal too. */
  pd_test_wait_until (not_running, runs, "the run to end");
  pd_test_notification_wait ("run-finished:");
  gtk_window_destroy (other);
}

static void
test_portal (void)
{
  g_autoptr(Fixture) fixture = fixture_new ();
  const char *args[] = { "--db", fixture->db, NULL };

  /* GLib's own sign, which this process runs with (meson's env). */
  g_assert_cmpstr (g_getenv ("GTK_USE_PORTAL"), ==, "1");
  g_assert_true (_pd_notifier_in_sandbox ());
  g_assert_cmpint (pd_test_run_app (args, check_portal, fixture, NULL), ==, 0);
}

/* Our test of the sandbox is GLib's: the file /.flatpak-info (here a file
 * the test names instead), or GTK_USE_PORTAL=1. */
static void
test_sandbox_mark (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *mark = g_build_filename (dir, ".flatpak-info", NULL);

  g_assert_null (g_getenv ("GTK_USE_PORTAL"));
  _pd_notifier_set_flatpak_info (mark);
  g_assert_false (_pd_notifier_in_sandbox ());
  g_assert_true (g_file_set_contents (mark, "[Application]\nname=" APP_ID "\n", -1, NULL));
  g_assert_true (_pd_notifier_in_sandbox ());
  _pd_notifier_set_flatpak_info (NULL);
  g_assert_cmpint (g_remove (mark), ==, 0);
}

/* --- org.freedesktop.Notifications: the app's name and icon -------------- */

static void
check_fdo (PdApplication *app,
           PdWindow      *window,
           gpointer       user_data)
{
  Fixture *fixture = user_data;
  GtkWindow *other = look_elsewhere (window);
  PdTestNotification *record;
  const char *app_name = NULL;
  const char *app_icon = NULL;
  g_autoptr(GVariant) hints = NULL;
  const char *image = NULL;

  start_replay (window, fixture->replay, fixture, "Write a file");
  record = pd_test_notification_wait ("Approval Needed");
  g_variant_get_child (record->notification, 0, "&s", &app_name);
  g_variant_get_child (record->notification, 2, "&s", &app_icon);
  hints = g_variant_get_child_value (record->notification, 6);
  g_variant_lookup (hints, "image-path", "&s", &image);
  /* "Plandeck", with its icon; it was "test-ui-notification-servers" (the
   * program's name: "plandeck" for the app, before main() named it) and no
   * icon. */
  g_assert_cmpstr (app_name, ==, "Plandeck");
  g_assert_true (g_strcmp0 (app_icon, APP_ID) == 0 || g_strcmp0 (image, APP_ID) == 0);
  pd_run_controller_stop (pd_window_get_run_controller (window));
  pd_test_wait_until (not_running, pd_window_get_run_controller (window), "the run to stop");
  gtk_window_destroy (other);
}

static void
test_fdo (void)
{
  g_autoptr(Fixture) fixture = fixture_new ();
  const char *args[] = { "--db", fixture->db, NULL };

  /* What main() does before the application runs (the other ui tests
   * leave the test's own name). */
  pd_application_set_process_name ();

  g_assert_cmpint (pd_test_run_app (args, check_fdo, fixture, NULL), ==, 0);
}

/* --- what the questions say (org.gtk.Notifications) ----------------------- */

static gboolean
listed (gpointer data)
{
  void **pair = data;
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (pair[0], PD_TYPE_SESSION_LIST));

  return pd_session_list_model_find (pd_session_list_get_model (list), pair[1], NULL) != NULL;
}

static void
check_questions (PdApplication *app,
                 PdWindow      *window,
                 gpointer       user_data)
{
  Fixture *fixture = user_data;
  PdRunController *runs = pd_window_get_run_controller (window);
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  GtkWindow *other = look_elsewhere (window);
  g_autofree char *run_id = NULL;
  g_autofree char *review_id = NULL;
  PdTestNotification *record;

  /* A new run's first question, asked before the list has its session
   * (a search it is not among is cleared as the run starts, and the list
   * reads it after): named by its task ("Untitled session" before). */
  pd_session_list_set_query (list, "nothing is called this", FALSE);
  start_replay (window, fixture->replay, fixture, "Write a file for the notes");
  record = pd_test_notification_wait ("approval:");
  {
    g_autofree char *body = pd_test_notification_field (record, "body");

    g_assert_null (strstr (body, "Untitled session"));
    g_assert_nonnull (strstr (body, "\xe2\x81\xa8Write a file for the notes\xe2\x81\xa9"));
  }
  press_button (record, "Approve Once");
  pd_test_wait_until (not_running, runs, "the first run to end");
  pd_session_list_set_query (list, NULL, FALSE);

  /* A plan waits for its review: a question like an approval, said once,
   * with a click that opens the session and no button to approve a plan
   * the notification does not show.  Its session is named by its task,
   * without the "/plan" that chose the mode. */
  start_replay (window, fixture->replay_plan, fixture, "/plan Tidy the README");
  record = pd_test_notification_wait ("plan-review:");
  run_id = g_strdup (pd_run_controller_get_session_id (runs));
  review_id = g_strconcat ("plan-review:", run_id, NULL);
  g_assert_cmpstr (record->id, ==, review_id);
  {
    g_autofree char *title = pd_test_notification_field (record, "title");
    g_autofree char *body = pd_test_notification_field (record, "body");

    g_assert_cmpstr (title, ==, "Plan Ready for Review");
    g_assert_nonnull (strstr (body, "\xe2\x81\xa8Tidy the README\xe2\x81\xa9"));
    g_assert_nonnull (strstr (body, "review its plan"));
    g_assert_null (g_variant_lookup_value (record->notification, "buttons", NULL));
  }
  pd_test_notification_assert_default_opens (record, run_id);
  pd_test_wait_until (dialog_open, NULL, "the plan review");
  pd_test_spin (300);
  g_assert_cmpuint (pd_test_notification_count ("plan-review:"), ==, 1);
  /* Answered in its dialog: the notification goes. */
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (open_dialog ()), "approve");
  gtk_window_destroy (GTK_WINDOW (open_dialog ()));
  pd_test_wait_until (pd_test_notification_removed, record->id, "the review's notification to go");
  pd_test_wait_until (not_running, runs, "the run to end");

  /* A step becomes blocked (another writer): named, its title cut with
   * "…" ("Plan Blocked" and "A step of … is blocked" before). */
  {
    g_autoptr(PdSessionStore) store = pd_test_open_store (fixture->db);
    g_autofree char *id = pd_test_add_session (store, "Tidy the parser", "plandeck");
    g_autofree char *many = g_strnfill (400, 'x');
    g_autofree char *long_step = g_strconcat ("Run the tests of the parser on every fixture and compare ",
                                              "the trees with the ones the old parser made ", many, NULL);
    g_autoptr(PdPlanState) open = pd_plan_state_new ();
    g_autoptr(PdPlanState) blocked = pd_plan_state_new ();
    void *pair[] = { window, id };
    g_autofree char *body = NULL;
    g_autofree char *title = NULL;

    open->version = 1;
    g_ptr_array_add (open->steps, pd_test_step ("s1", "Read the parser", PD_PLAN_STEP_DONE, NULL));
    g_ptr_array_add (open->steps, pd_test_step ("s2", "Fix the grammar", PD_PLAN_STEP_IN_PROGRESS, NULL));
    g_ptr_array_add (open->steps, pd_test_step ("s3", long_step, PD_PLAN_STEP_PENDING, NULL));
    pd_test_save_plan (store, id, open, PD_SESSION_STATUS_RUNNING);
    pd_test_wait_until (listed, pair, "the session to be listed");
    blocked->version = 2;
    g_ptr_array_add (blocked->steps, pd_test_step ("s1", "Read the parser", PD_PLAN_STEP_DONE, NULL));
    g_ptr_array_add (blocked->steps, pd_test_step ("s2", "Fix the grammar", PD_PLAN_STEP_IN_PROGRESS, NULL));
    g_ptr_array_add (blocked->steps, pd_test_step ("s3", long_step, PD_PLAN_STEP_BLOCKED, "no fixtures"));
    pd_test_save_plan (store, id, blocked, PD_SESSION_STATUS_RUNNING);
    record = pd_test_notification_wait ("plan-blocked:");
    title = pd_test_notification_field (record, "title");
    body = pd_test_notification_field (record, "body");
    g_test_message ("%s", body);
    g_assert_cmpstr (title, ==, "Plan Blocked");
    g_assert_nonnull (strstr (body, "Tidy the parser"));
    g_assert_nonnull (strstr (body, "step 3: \xe2\x81\xa8Run the tests of the parser on every fixture"));
    g_assert_nonnull (strstr (body, "…\xe2\x81\xa9"));
    g_assert_null (strstr (body, many));
    g_assert_cmpuint (g_utf8_strlen (body, -1), <, 250);
  }
  gtk_window_destroy (other);
}

static void
test_questions (void)
{
  g_autoptr(Fixture) fixture = fixture_new ();
  const char *args[] = { "--db", fixture->db, NULL };

  g_assert_cmpint (pd_test_run_app (args, check_questions, fixture, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  const char *server_kind = g_getenv ("PD_TEST_NOTIFICATION_SERVER");

  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  if (g_getenv ("DBUS_SESSION_BUS_ADDRESS") == NULL)
    {
      g_print ("1..0 # SKIP no session bus: run under dbus-run-session (meson test does)\n");
      return 0;
    }
  pd_test_set_registered (TRUE);

  if (g_strcmp0 (server_kind, "portal") == 0)
    {
      pd_test_notify_server_start ("org.freedesktop.portal.Desktop", "/org/freedesktop/portal/desktop",
                    "org.freedesktop.portal.Notification");
      g_test_add_func ("/pd/ui/notification-servers/portal", test_portal);
    }
  else if (g_strcmp0 (server_kind, "fdo") == 0)
    {
      pd_test_notify_server_start ("org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                    "org.freedesktop.Notifications");
      g_test_add_func ("/pd/ui/notification-servers/sandbox-mark", test_sandbox_mark);
      g_test_add_func ("/pd/ui/notification-servers/fdo-name-icon", test_fdo);
    }
  else
    {
      pd_test_notify_server_start ("org.gtk.Notifications", "/org/gtk/Notifications", "org.gtk.Notifications");
      g_test_add_func ("/pd/ui/notification-servers/questions", test_questions);
    }
  return g_test_run ();
}
