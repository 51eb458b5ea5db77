/* test-runs-remote-guard.c: questions of an endpoint's run the window
 * guards: a command with masked parts ([REDACTED]) or with control
 * characters is asked with a warning, Deny the default, no notification
 * answering it and no trust given before approving it.  The real
 * application on a real `serve` replaying a fixture (pd-test-runs-remote.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-runs-remote-guard"

#include "config.h"

#include "pd-test-runs-remote.h"

/* --- a command with masked parts ------------------------------------------------ */

static const char *const replay_masked =
  "{\"label\": \"test: a masked command, then a write\", \"turns\": ["
  " {\"content\": \"Running.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"mysql -pHunter2x shop\"}}]},"
  " {\"content\": \"Writing.\", \"tool_calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"one.txt\", \"content\": \"1\\n\"}}]},"
  " {\"content\": \"All done.\"}]}";

/* Found (tried as an attacker would): the window's dialog showed an
 * endpoint's command with its secrets masked and nothing more, and bash
 * runs a masked value in ways no reader follows.  The dialog says parts
 * are hidden (plain text, Deny still the default), a notification's
 * Approve does not answer it; a question with nothing masked says nothing
 * of it. */
static void
check_remote_masked (PdApplication *app,
                     PdWindow      *window,
                     gpointer       user_data)
{
  RemoteCase *remote = user_data;
  RunFixture *fixture = remote->fixture;
  PdRunController *runs = pd_window_get_run_controller (window);
  AdwMessageDialog *dialog;
  GtkWidget *warning;
  guint serial = 0;

  g_signal_connect (runs, "finished", G_CALLBACK (on_finished), fixture);
  g_signal_connect (runs, "approval-asked", G_CALLBACK (on_approval_asked), &serial);
  send_from_window (window, remote->id, "Run it");

  dialog = pd_test_wait_for_dialog ("the endpoint's masked command");
  g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (dialog), "mysql -p[REDACTED] shop"));
  warning = pd_test_find_first (GTK_WIDGET (dialog), is_masked_warning, NULL);
  g_assert_nonnull (warning);
  g_assert_false (gtk_label_get_use_markup (GTK_LABEL (warning)));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (warning)), "hidden as secrets ([REDACTED])"));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (warning)), "approve only if you trust where it came from"));
  g_assert_cmpstr (adw_message_dialog_get_default_response (dialog), ==, "deny");
  /* A notification's Approve: not for a command it cannot warn of. */
  g_assert_cmpuint (serial, !=, 0);
  g_assert_false (pd_run_controller_answer_approval (runs, pd_run_controller_get_session_id (runs), serial, TRUE));
  g_assert_true (pd_run_controller_has_approval (runs, pd_run_controller_get_session_id (runs), serial));
  respond (dialog, "deny");

  dialog = pd_test_wait_for_dialog ("the write's approval question");
  g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (dialog), "one.txt"));
  g_assert_null (pd_test_find_first (GTK_WIDGET (dialog), is_masked_warning, NULL));
  respond (dialog, "deny");

  pd_test_wait_until (run_finished, fixture, "the remote run to finish");
  g_assert_false (project_file_exists (fixture, "one.txt"));
}

static void
test_remote_masked (void)
{
  run_remote_case_of (check_remote_masked, NULL, replay_masked);
}

/* Found (tried as an attacker would): "Always for This Session" given on
 * an endpoint's plain command approved its masked commands unasked, as
 * serve's trust did: the person approved what they never saw whole.  A
 * masked question is asked whatever the window trusts, and offers no
 * Always for This Session. */
static const char *const replay_trusted_then_masked =
  "{\"label\": \"test: a plain command trusted, then a masked one\", \"turns\": ["
  " {\"content\": \"Running.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"echo plain\"}}]},"
  " {\"content\": \"Again.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"DB_PASSWORD=Hunter2x true\"}}]},"
  " {\"content\": \"All done.\"}]}";

static void
check_remote_masked_trusted (PdApplication *app,
                             PdWindow      *window,
                             gpointer       user_data)
{
  RemoteCase *remote = user_data;
  RunFixture *fixture = remote->fixture;
  PdRunController *runs = pd_window_get_run_controller (window);
  AdwMessageDialog *dialog;

  g_signal_connect (runs, "finished", G_CALLBACK (on_finished), fixture);
  send_from_window (window, remote->id, "Run them");

  dialog = pd_test_wait_for_dialog ("the endpoint's plain command");
  g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (dialog), "echo plain"));
  g_assert_null (pd_test_find_first (GTK_WIDGET (dialog), is_masked_warning, NULL));
  g_assert_true (adw_message_dialog_has_response (dialog, "always"));
  respond (dialog, "always");

  /* The masked one of the trusted tool: asked, with no Always. */
  dialog = pd_test_wait_for_dialog ("the endpoint's masked command");
  g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (dialog), "DB_PASSWORD=[REDACTED] true"));
  g_assert_nonnull (pd_test_find_first (GTK_WIDGET (dialog), is_masked_warning, NULL));
  g_assert_false (adw_message_dialog_has_response (dialog, "always"));
  g_assert_true (adw_message_dialog_has_response (dialog, "once"));
  g_assert_null (pd_test_find_label_containing (GTK_WIDGET (dialog), "lets the agent run any later command"));
  respond (dialog, "deny");

  pd_test_wait_until (run_finished, fixture, "the remote run to finish");
}

static void
test_remote_masked_trusted (void)
{
  run_remote_case_of (check_remote_masked_trusted, NULL, replay_trusted_then_masked);
}

/* --- a command with control characters ------------------------------------------ */

static const char *const replay_controls =
  "{\"label\": \"test: a command with a CR, then a write\", \"turns\": ["
  " {\"content\": \"Running.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"echo hi \\\\\\r\\nrm -f victim\"}}]},"
  " {\"content\": \"Again.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"cd build\\u00a0; rm -f victim\\u2800\\u200d\\ufe0f\"}}]},"
  " {\"content\": \"Writing.\", \"tool_calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"one.txt\", \"content\": \"1\\n\"}}]},"
  " {\"content\": \"All done.\"}]}";

static gboolean
is_controls_warning (GtkWidget     *widget,
                     gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "pd-approval-controls") &&
         gtk_widget_get_visible (widget);
}

/* Found (tried as an attacker would): the window's dialog showed an
 * endpoint's `echo hi \<CR><LF>rm -f victim` as `$ echo hi \` and
 * `  rm -f victim`, one echo continued, with nothing more; Approve Once
 * deleted victim, as bash reads `\<CR>` as an escaped CR and runs rm on
 * its own.  The dialog shows the CR as \r and says the command holds
 * control characters (plain text, Deny the default); a notification's
 * Approve does not answer it; a question without them says nothing.  So
 * with `cd build<NBSP>; rm -f victim` (read as a space): \u00a0. */
static void
check_remote_controls (PdApplication *app,
                       PdWindow      *window,
                       gpointer       user_data)
{
  RemoteCase *remote = user_data;
  RunFixture *fixture = remote->fixture;
  PdRunController *runs = pd_window_get_run_controller (window);
  AdwMessageDialog *dialog;
  GtkWidget *warning;
  guint serial = 0;

  g_signal_connect (runs, "finished", G_CALLBACK (on_finished), fixture);
  g_signal_connect (runs, "approval-asked", G_CALLBACK (on_approval_asked), &serial);
  send_from_window (window, remote->id, "Run it");

  dialog = pd_test_wait_for_dialog ("the endpoint's command with a CR");
  g_assert_true (pd_test_approval_text_contains (GTK_WIDGET (dialog), "$ echo hi \\\\r"));
  g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (dialog), "rm -f victim"));
  warning = pd_test_find_first (GTK_WIDGET (dialog), is_controls_warning, NULL);
  g_assert_nonnull (warning);
  g_assert_false (gtk_label_get_use_markup (GTK_LABEL (warning)));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (warning)), "holds control characters, shown as escapes"));
  g_assert_null (pd_test_find_first (GTK_WIDGET (dialog), is_masked_warning, NULL));
  g_assert_cmpstr (adw_message_dialog_get_default_response (dialog), ==, "deny");
  /* A notification's Approve: not for a command it cannot warn of. */
  g_assert_cmpuint (serial, !=, 0);
  g_assert_false (pd_run_controller_answer_approval (runs, pd_run_controller_get_session_id (runs), serial, TRUE));
  g_assert_true (pd_run_controller_has_approval (runs, pd_run_controller_get_session_id (runs), serial));
  respond (dialog, "deny");

  /* A NBSP before `; rm -f victim` (read as a space), a braille blank, a
   * joiner and a selector that draw nothing: escaped, and said. */
  dialog = pd_test_wait_for_dialog ("the endpoint's command with a NBSP");
  g_assert_true (pd_test_approval_text_contains (GTK_WIDGET (dialog),
                                                "$ cd build\\u00a0; rm -f victim\\u2800\\u200d\\ufe0f"));
  g_assert_nonnull (pd_test_find_first (GTK_WIDGET (dialog), is_controls_warning, NULL));
  g_assert_cmpstr (adw_message_dialog_get_default_response (dialog), ==, "deny");
  g_assert_false (pd_run_controller_answer_approval (runs, pd_run_controller_get_session_id (runs), serial, TRUE));
  g_assert_true (pd_run_controller_has_approval (runs, pd_run_controller_get_session_id (runs), serial));
  respond (dialog, "deny");

  dialog = pd_test_wait_for_dialog ("the write's approval question");
  g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (dialog), "one.txt"));
  g_assert_null (pd_test_find_first (GTK_WIDGET (dialog), is_controls_warning, NULL));
  respond (dialog, "deny");

  pd_test_wait_until (run_finished, fixture, "the remote run to finish");
  g_assert_false (project_file_exists (fixture, "one.txt"));
}

static void
test_remote_controls (void)
{
  run_remote_case_of (check_remote_controls, NULL, replay_controls);
}

int
main (int   argc,
      char *argv[])
{
  char *config_home = pd_test_runs_init (&argc, &argv);
  int status;

  g_test_add_func ("/pd/ui/remote/masked-command", test_remote_masked);
  g_test_add_func ("/pd/ui/remote/masked-command-trusted", test_remote_masked_trusted);
  g_test_add_func ("/pd/ui/remote/controls-command", test_remote_controls);

  status = g_test_run ();
  pd_test_runs_finish (config_home);

  return status;
}
