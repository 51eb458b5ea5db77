/* test-continue-profile.c: a stored session goes on with what it ran with
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tried as a new user would: a session continued from the window's message
 * entry went to the default provider profile, whatever provider and model
 * it ran with, and nothing said so.  It now goes on with the profile of its
 * provider and model; with none such, with the default, and the run bar
 * says which it ran with and which it goes on with, as a notice that stays
 * up until the run's first answer or until dismissed (as the activity line
 * it was replaced within milliseconds by the first retry's line, tried as
 * a new user would).  Real parts: the
 * application on a real database, two loopback servers speaking the OpenAI
 * wire, the window's run controller.
 */
#define G_LOG_DOMAIN "test-continue-profile"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-run-controller.h"
#include "pd-session-list.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"
#include "pd-window-private.h"
#include "../pd-test-server.h"

/* First-strong isolate, and its end. */
#define FSI "\xe2\x81\xa8"
#define PDI "\xe2\x81\xa9"

static const char *provider_reply =
  "{\"id\": \"r\", \"object\": \"chat.completion\", \"model\": \"m\", \"choices\": [{\"index\": 0,"
  " \"finish_reason\": \"stop\", \"message\": {\"role\": \"assistant\", \"content\": \"Done.\"}}],"
  " \"usage\": {\"prompt_tokens\": 3, \"completion_tokens\": 2}}";

typedef struct
{
  TestServer *default_server;  /* the default profile's endpoint */
  TestServer *ran_server;      /* the endpoint of the profile the session ran with */
  char       *dir;
  char       *db;
  char       *ran_id;          /* ran with openai, "ran-model": a profile has it */
  char       *other_id;        /* ran with anthropic: no profile has it */
  char       *hostile_id;      /* as other_id, its model's name holds controls */
  GPtrArray  *activities;      /* what the run bar's activity line said */
  GPtrArray  *notices_shown;   /* the notice the run bar showed at each of them ("" none) */
  PdWindow   *window;
  gboolean    finished;
  int         status;
} Fixture;

static const char *overloaded_reply = "{\"error\": {\"message\": \"overloaded\", \"type\": \"server_error\"}}";

static void
on_finished (PdRunController *runs,
             int              status,
             const char      *message,
             Fixture         *f)
{
  f->finished = TRUE;
  f->status = status;
}

static void
on_activity (PdRunController *runs,
             GParamSpec      *pspec,
             Fixture         *f)
{
  const char *activity = pd_run_controller_get_activity (runs);

  if (activity != NULL)
    {
      GtkWidget *notice = f->window->run_notice_box;

      g_ptr_array_add (f->activities, g_strdup (activity));
      g_ptr_array_add (f->notices_shown,
                       g_strdup (gtk_widget_get_visible (notice) && gtk_revealer_get_reveal_child (f->window->run_bar)
                                 ? gtk_label_get_text (f->window->run_notice_label) : ""));
    }
}

static gboolean
notice_up (gpointer data)
{
  Fixture *f = data;

  return gtk_widget_get_visible (f->window->run_notice_box) && gtk_revealer_get_reveal_child (f->window->run_bar);
}

static gboolean
run_finished (gpointer data)
{
  return ((Fixture *) data)->finished;
}

static gboolean
list_loaded (gpointer data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (data), PD_TYPE_SESSION_LIST));

  return pd_session_list_get_loaded (list);
}

static gboolean
activity_says (Fixture    *f,
               const char *text)
{
  for (guint i = 0; i < f->activities->len; i++)
    if (strstr (f->activities->pdata[i], text) != NULL)
      return TRUE;
  return FALSE;
}

static void
continue_once (PdWindow   *window,
               Fixture    *f,
               const char *id)
{
  PdRunController *runs = pd_window_get_run_controller (window);
  g_autoptr(GError) error = NULL;
  gulong finished, activity;

  f->finished = FALSE;
  finished = g_signal_connect (runs, "finished", G_CALLBACK (on_finished), f);
  activity = g_signal_connect (runs, "notify::activity", G_CALLBACK (on_activity), f);
  g_assert_true (pd_run_controller_continue (runs, id, "Go on", &error));
  g_assert_no_error (error);
  pd_test_wait_until (run_finished, f, "the run to finish");
  g_signal_handler_disconnect (runs, finished);
  g_signal_handler_disconnect (runs, activity);
  g_assert_cmpint (f->status, ==, PD_RUN_COMPLETED);
}

static void
check_continue (PdApplication *app,
                PdWindow      *window,
                gpointer       user_data)
{
  Fixture *f = user_data;

  f->window = window;
  pd_test_wait_until (list_loaded, window, "the list");

  /* Ran with a profile's provider and model: that profile's address. */
  test_server_push (f->ran_server, test_reply_plain (200, "application/json", provider_reply));
  continue_once (window, f, f->ran_id);
  g_assert_cmpuint (test_server_count (f->ran_server), ==, 1);
  g_assert_cmpuint (test_server_count (f->default_server), ==, 0);
  g_assert_false (activity_says (f, "This session ran with"));

  /* Ran with a provider no profile has: the default's, and said, on the
   * run bar until the run's first answer: the retry's line comes under it. */
  test_server_push (f->default_server, test_reply_plain (503, "application/json", overloaded_reply));
  test_server_push (f->default_server, test_reply_plain (200, "application/json", provider_reply));
  g_ptr_array_set_size (f->activities, 0);
  g_ptr_array_set_size (f->notices_shown, 0);
  continue_once (window, f, f->other_id);
  g_assert_cmpuint (test_server_count (f->default_server), ==, 2);
  g_assert_cmpuint (test_server_count (f->ran_server), ==, 1);
  g_assert_cmpuint (f->activities->len, >, 0);
  g_assert_cmpstr (f->notices_shown->pdata[0], ==,
                   "This session ran with " FSI "anthropic" PDI " (" FSI "claude-test" PDI "); it goes on with "
                   FSI "openai" PDI " (" FSI "default-model" PDI ")");
  g_assert_false (activity_says (f, "This session ran with"));
  g_assert_null (pd_run_controller_get_notice (pd_window_get_run_controller (window)));
  g_assert_nonnull (strstr (pd_run_controller_get_transcript (pd_window_get_run_controller (window)),
                            "This session ran with " FSI "anthropic" PDI " (" FSI "claude-test" PDI ")"));

  /* Dismissed, it goes at once. */
  {
    PdRunController *runs = pd_window_get_run_controller (window);
    g_autoptr(GError) error = NULL;
    GtkWidget *dismiss;
    TestReply *wait = test_reply_plain (503, "application/json", overloaded_reply);

    /* A wait long enough for the screenshot of the notice. */
    wait->retry_after = g_strdup ("2");
    test_server_push (f->default_server, wait);
    test_server_push (f->default_server, test_reply_plain (200, "application/json", provider_reply));
    f->finished = FALSE;
    g_signal_connect (runs, "finished", G_CALLBACK (on_finished), f);
    g_assert_true (pd_run_controller_continue (runs, f->other_id, "Go on", &error));
    g_assert_no_error (error);
    pd_test_wait_until (notice_up, f, "the notice on the run bar");
    pd_test_screenshot_sizes (GTK_WINDOW (window), "run-bar-notice");
    dismiss = gtk_widget_get_last_child (f->window->run_notice_box);
    g_assert_cmpstr (gtk_widget_get_tooltip_text (dismiss), ==, "Dismiss");
    g_signal_emit_by_name (dismiss, "clicked");
    g_assert_false (gtk_widget_get_visible (f->window->run_notice_box));
    g_assert_null (pd_run_controller_get_notice (runs));
    pd_test_wait_until (run_finished, f, "the run to finish");
    g_signal_handlers_disconnect_by_func (runs, on_finished, f);
    g_assert_cmpint (f->status, ==, PD_RUN_COMPLETED);
  }

  /* A hostile row's model (tried as an attacker would): its override, its
   * escape and its line break named or made a space, each name in an
   * isolate that nothing in it can end. */
  test_server_push (f->default_server, test_reply_plain (503, "application/json", overloaded_reply));
  test_server_push (f->default_server, test_reply_plain (200, "application/json", provider_reply));
  g_ptr_array_set_size (f->activities, 0);
  g_ptr_array_set_size (f->notices_shown, 0);
  continue_once (window, f, f->hostile_id);
  g_assert_cmpuint (test_server_count (f->default_server), ==, 6);
  g_assert_cmpuint (f->notices_shown->len, >, 0);
  g_assert_nonnull (strstr (f->notices_shown->pdata[0],
                            "This session ran with " FSI "anthropic" PDI " (" FSI "claude<U+202E>tset<U+2069> "
                            "[31m x" PDI "); it goes on with"));
  for (guint i = 0; i < f->notices_shown->len; i++)
    {
      g_assert_null (strchr (f->notices_shown->pdata[i], '\x1b'));
      g_assert_null (strchr (f->notices_shown->pdata[i], '\n'));
      g_assert_null (strstr (f->notices_shown->pdata[i], "\xe2\x80\xae"));
    }

  /* And back: the first session's profile again, not the engine of the
   * run before. */
  test_server_push (f->ran_server, test_reply_plain (200, "application/json", provider_reply));
  continue_once (window, f, f->ran_id);
  g_assert_cmpuint (test_server_count (f->ran_server), ==, 2);
  g_assert_cmpuint (test_server_count (f->default_server), ==, 6);
}

static void
test_continue_profile (void)
{
  Fixture f = { 0 };
  const char *args[] = { "--db", NULL, NULL };
  g_autoptr(GSettings) settings = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *project = NULL;

  test_unset_proxies ();
  f.default_server = test_server_new ();
  f.ran_server = test_server_new ();
  f.activities = g_ptr_array_new_with_free_func (g_free);
  f.notices_shown = g_ptr_array_new_with_free_func (g_free);
  f.dir = pd_test_make_tmp_dir ();
  f.db = g_build_filename (f.dir, "sessions.db", NULL);
  project = g_build_filename (f.dir, "project", NULL);
  g_assert_cmpint (g_mkdir (project, 0700), ==, 0);
  {
    g_autoptr(PdSessionStore) store = pd_test_open_store (f.db);
    g_autoptr(PdSessionInfo) ran = pd_session_store_create (store, "Tidy the parser", "ran-model", "openai",
                                                            "plandeck", project, &error);
    g_autoptr(PdSessionInfo) other = NULL;

    g_assert_no_error (error);
    other = pd_session_store_create (store, "Write the docs", "claude-test", "anthropic", "plandeck", project, &error);
    g_assert_no_error (error);
    f.ran_id = g_strdup (ran->id);
    f.other_id = g_strdup (other->id);
    {
      g_autoptr(PdSessionInfo) hostile = pd_session_store_create (store, "Fix it",
                                                                  "claude\xe2\x80\xaetset\xe2\x81\xa9\x1b[31m\nx",
                                                                  "anthropic", "plandeck", project, &error);

      g_assert_no_error (error);
      f.hostile_id = g_strdup (hostile->id);
    }
  }

  pd_test_reset_settings ();
  settings = g_settings_new (APP_ID);
  g_settings_set_value (settings, "provider-profiles",
                        g_variant_new_parsed ("[('Default', 'openai', %s, 'default-model', ''),"
                                              " ('Ran', 'openai', %s, 'ran-model', '')]",
                                              f.default_server->base_url, f.ran_server->base_url));
  g_settings_set_string (settings, "default-profile", "Default");
  g_settings_set_string (settings, "last-working-directory", project);
  g_settings_set_string (settings, "last-approval-policy", "auto");

  args[1] = f.db;
  g_assert_cmpint (pd_test_run_app (args, check_continue, &f, NULL), ==, 0);

  test_server_free (f.default_server);
  test_server_free (f.ran_server);
  g_ptr_array_unref (f.activities);
  g_ptr_array_unref (f.notices_shown);
  g_free (f.ran_id);
  g_free (f.other_id);
  g_free (f.hostile_id);
  g_free (f.db);
  g_free (f.dir);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  g_test_add_func ("/pd/ui/continue-profile/session-provider", test_continue_profile);
  return g_test_run ();
}
