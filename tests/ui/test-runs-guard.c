/* test-runs-guard.c: a question's dialog takes no answer it was not shown for
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs of the embedded engine in the real application (replay provider,
 * temporary database and folder).  Every question's dialog comes up with
 * its responses insensitive, and they take a click only once its guard has
 * ended: the second click of a double-click on Approve Once answered the
 * next question, opened under it, unseen.  A dialog under the one answered
 * (calls of one turn ask at once) is guarded again when it comes on top.
 * The plan review has no approving default: one Enter approved a plan.
 */
#define G_LOG_DOMAIN "test-runs-guard"

#include "config.h"

#include "pd-test-runs.h"

/* Each dialog, when mapped: its responses must take nothing yet. */
typedef struct
{
  guint mapped;
  guint guarded;
} MapRecord;

static gboolean
is_response_button (GtkWidget     *widget,
                    gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_ancestor (widget, GTK_TYPE_ENTRY) == NULL &&
         gtk_button_get_label (GTK_BUTTON (widget)) != NULL &&
         gtk_button_get_use_underline (GTK_BUTTON (widget));
}

static void
collect_buttons (GtkWidget *widget,
                 GPtrArray *buttons)
{
  if (is_response_button (widget, NULL))
    g_ptr_array_add (buttons, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_buttons (child, buttons);
}

/* Whether no response button of @dialog takes an activation now. */
static gboolean
all_responses_held (GtkWidget *dialog)
{
  g_autoptr(GPtrArray) buttons = g_ptr_array_new ();

  collect_buttons (dialog, buttons);
  g_assert_cmpuint (buttons->len, >=, 1);
  for (guint i = 0; i < buttons->len; i++)
    {
      GtkWidget *button = g_ptr_array_index (buttons, i);

      /* Insensitive: no click, key or mnemonic reaches it. */
      if (gtk_widget_is_sensitive (button))
        return FALSE;
    }
  return TRUE;
}

static void
on_dialog_map (GtkWidget *dialog,
               MapRecord *record)
{
  record->mapped++;
  if (all_responses_held (dialog))
    record->guarded++;
}

static void
on_toplevels_changed (GListModel *toplevels,
                      guint       position,
                      guint       removed,
                      guint       added,
                      MapRecord  *record)
{
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(GObject) window = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (window))
        g_signal_connect (window, "map", G_CALLBACK (on_dialog_map), record);
    }
}

/* Each mapped, unanswered message dialog other than @answered. */
static void
assert_others_held (AdwMessageDialog *answered)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (window) && (gpointer) window != (gpointer) answered &&
          gtk_widget_get_mapped (GTK_WIDGET (window)))
        g_assert_true (all_responses_held (GTK_WIDGET (window)));
    }
}

static gboolean
approve_sensitive (gpointer data)
{
  GtkWidget *button = pd_test_find_first (data, is_button_labelled, "_Approve Once");

  return button != NULL && gtk_widget_is_sensitive (button);
}

/* Two writes of one turn ask at once: each dialog is held when it maps,
 * and the one left after the first is answered is held again. */
static const char *replay_two_at_once =
  "{\"label\": \"test: two writes at once\", \"turns\": ["
  " {\"content\": \"Writing both.\", \"tool_calls\": ["
  "  {\"name\": \"write_file\", \"arguments\": {\"path\": \"one.txt\", \"content\": \"1\\n\"}},"
  "  {\"name\": \"write_file\", \"arguments\": {\"path\": \"two.txt\", \"content\": \"2\\n\"}}]},"
  " {\"content\": \"All done.\"}]}";

static void
check_guard (PdApplication *app,
             PdWindow      *window,
             gpointer       user_data)
{
  RunFixture *fixture = user_data;
  MapRecord record = { 0 };
  AdwMessageDialog *dialog;
  gulong changed;

  changed = g_signal_connect (gtk_window_get_toplevels (), "items-changed",
                              G_CALLBACK (on_toplevels_changed), &record);
  start_replay (window, fixture, PD_APPROVAL_POLICY_ASK, "Write two files");

  dialog = pd_test_wait_for_dialog ("the first approval prompt");
  g_assert_cmpuint (record.mapped, >=, 1);
  g_assert_cmpuint (record.guarded, ==, record.mapped);
  /* The guard ends: Approve Once takes a click (respond() clicks it). */
  pd_test_wait_until (approve_sensitive, dialog, "the first dialog's guard to end");
  respond (dialog, "once");
  /* Whatever is under the answered dialog now takes no click at once. */
  assert_others_held (dialog);

  dialog = pd_test_wait_for_dialog ("the second approval prompt");
  g_assert_cmpuint (record.mapped, ==, 2);
  g_assert_cmpuint (record.guarded, ==, 2);
  pd_test_wait_until (approve_sensitive, dialog, "the second dialog's guard to end");
  respond (dialog, "once");

  pd_test_wait_until (run_finished, fixture, "the run to finish");
  g_assert_cmpint (fixture->status, ==, PD_RUN_COMPLETED);
  g_assert_true (project_file_exists (fixture, "one.txt"));
  g_assert_true (project_file_exists (fixture, "two.txt"));
  g_signal_handler_disconnect (gtk_window_get_toplevels (), changed);
}

static void
test_guard (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_two_at_once);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_guard, fixture, NULL), ==, 0);
}

/* The plan review: held when shown; no default response while the
 * feedback is empty, so Enter there approves nothing; with feedback, Enter
 * sends it (Keep Planning). */
static const char *replay_plan_twice =
  "{\"label\": \"test: plan mode\", \"turns\": ["
  " {\"content\": \"Here is my plan.\", \"tool_calls\": [{\"name\": \"exit_plan_mode\", \"arguments\": {\"plan\": \"# Delete the build folder\\n\"}}]},"
  " {\"content\": \"Revised.\", \"tool_calls\": [{\"name\": \"exit_plan_mode\", \"arguments\": {\"plan\": \"# Keep the build folder\\n\"}}]},"
  " {\"content\": \"Waiting.\"}]}";

static void
check_plan_default (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  RunFixture *fixture = user_data;
  MapRecord record = { 0 };
  AdwMessageDialog *dialog;
  GtkWidget *feedback;
  GtkWidget *approve;
  gulong changed;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GPtrArray) results = NULL;
  PdRunController *runs;

  changed = g_signal_connect (gtk_window_get_toplevels (), "items-changed",
                              G_CALLBACK (on_toplevels_changed), &record);
  runs = start_replay (window, fixture, PD_APPROVAL_POLICY_ASK, "/plan Tidy");

  dialog = pd_test_wait_for_dialog ("the plan review");
  g_assert_cmpuint (record.guarded, ==, record.mapped);
  g_assert_null (adw_message_dialog_get_default_response (dialog));
  approve = pd_test_find_first (GTK_WIDGET (dialog), is_button_labelled, "_Approve");
  g_assert_nonnull (approve);
  pd_test_wait_until (widget_sensitive, approve, "the review's guard to end");

  /* Enter in the empty feedback: nothing answered. */
  feedback = pd_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_ENTRY);
  g_object_ref (dialog);
  gtk_widget_activate (feedback);
  pd_test_flush (GTK_WIDGET (dialog));
  g_assert_true (pd_test_open_message_dialog () == dialog);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (dialog)));
  g_object_unref (dialog);

  /* Feedback typed: Keep Planning is what Enter sends. */
  gtk_editable_set_text (GTK_EDITABLE (feedback), "Keep it");
  g_assert_cmpstr (adw_message_dialog_get_default_response (dialog), ==, "keep");
  respond (dialog, "keep");

  dialog = pd_test_wait_for_dialog ("the second plan review");
  g_assert_null (adw_message_dialog_get_default_response (dialog));
  g_object_ref (dialog);
  gtk_window_close (GTK_WINDOW (dialog));
  pd_test_assert_finalized (dialog);

  pd_test_wait_until (run_finished, fixture, "the run to finish");
  messages = load_messages (fixture, pd_run_controller_get_session_id (runs));
  results = tool_results (messages);
  g_assert_cmpuint (results->len, ==, 2);
  g_assert_nonnull (strstr (g_ptr_array_index (results, 0), "Keep it"));
  g_assert_null (strstr (g_ptr_array_index (results, 1), "approved"));
  g_signal_handler_disconnect (gtk_window_get_toplevels (), changed);
}

static void
test_plan_default (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_plan_twice);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_plan_default, fixture, NULL), ==, 0);
}

/* A call of the window's own run whose command holds a CR before a line
 * break (`echo hi \<CR><LF>rm -f victim`: bash runs rm on its own), then
 * one with a NBSP before `; rm -f victim` and characters that draw
 * nothing: the dialog shows the CR as \r on two command lines, the NBSP
 * as \u00a0, and says the command holds control characters, and a
 * notification's Approve does not answer it; a question without them says
 * nothing of it. */
static const char *replay_controls =
  "{\"label\": \"test: a command with a CR, then a write\", \"turns\": ["
  " {\"content\": \"Running.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"echo hi \\\\\\r\\nrm -f victim\"}}]},"
  " {\"content\": \"Again.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"cd build\\u00a0; rm -f victim\\u2800\\u200d\\ufe0f\"}}]},"
  " {\"content\": \"Reading.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"cat p\\u0430sswd.txt\"}}]},"
  " {\"content\": \"Writing.\", \"tool_calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"one.txt\", \"content\": \"1\\n\"}}]},"
  " {\"content\": \"All done.\"}]}";

static gboolean
is_controls_warning (GtkWidget     *widget,
                     gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "pd-approval-controls") &&
         gtk_widget_get_visible (widget) &&
         strstr (gtk_label_get_text (GTK_LABEL (widget)), data != NULL ? data : "holds control characters, shown as escapes") != NULL;
}

static void
on_approval_asked (PdRunController *runs,
                   const char      *session_id,
                   const char      *tool,
                   guint            serial,
                   guint           *slot)
{
  *slot = serial;
}

static void
check_controls (PdApplication *app,
                PdWindow      *window,
                gpointer       user_data)
{
  RunFixture *fixture = user_data;
  AdwMessageDialog *dialog;
  PdRunController *runs = pd_window_get_run_controller (window);
  guint serial = 0;

  g_signal_connect (runs, "approval-asked", G_CALLBACK (on_approval_asked), &serial);
  start_replay (window, fixture, PD_APPROVAL_POLICY_ASK, "Run it");

  dialog = pd_test_wait_for_dialog ("the command with a CR");
  g_assert_true (pd_test_approval_text_contains (GTK_WIDGET (dialog), "$ echo hi \\\\r"));
  g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (dialog), "rm -f victim"));
  g_assert_nonnull (pd_test_find_first (GTK_WIDGET (dialog), is_controls_warning, NULL));
  g_assert_cmpuint (serial, !=, 0);
  g_assert_false (pd_run_controller_answer_approval (runs, pd_run_controller_get_session_id (runs), serial, TRUE));
  g_assert_true (pd_run_controller_has_approval (runs, pd_run_controller_get_session_id (runs), serial));
  pd_test_wait_until (approve_sensitive, dialog, "the dialog's guard to end");
  respond (dialog, "deny");

  /* A NBSP before `; rm -f victim` (read as a space), a braille blank, a
   * joiner and a selector that draw nothing: escaped, and said. */
  dialog = pd_test_wait_for_dialog ("the command with a NBSP");
  g_assert_true (pd_test_approval_text_contains (GTK_WIDGET (dialog),
                                                "$ cd build\\u00a0; rm -f victim\\u2800\\u200d\\ufe0f"));
  g_assert_nonnull (pd_test_find_first (GTK_WIDGET (dialog), is_controls_warning, NULL));
  g_assert_false (pd_run_controller_answer_approval (runs, pd_run_controller_get_session_id (runs), serial, TRUE));
  g_assert_true (pd_run_controller_has_approval (runs, pd_run_controller_get_session_id (runs), serial));
  pd_test_screenshot_sizes (GTK_WINDOW (dialog), "runs-guard-hidden");
  pd_test_wait_until (approve_sensitive, dialog, "the dialog's guard to end");
  respond (dialog, "deny");

  /* A Cyrillic а: said as what it is, not as control characters (sec27
   * item 3: every kind was "control characters") */
  dialog = pd_test_wait_for_dialog ("the command with a look-alike letter");
  g_assert_true (pd_test_approval_text_contains (GTK_WIDGET (dialog), "$ cat p\\u0430sswd.txt"));
  g_assert_nonnull (pd_test_find_first (GTK_WIDGET (dialog), is_controls_warning,
                                        "This command holds letters from another alphabet that look like Latin ones"));
  g_assert_null (pd_test_find_first (GTK_WIDGET (dialog), is_controls_warning, NULL));
  pd_test_wait_until (approve_sensitive, dialog, "the dialog's guard to end");
  respond (dialog, "deny");

  dialog = pd_test_wait_for_dialog ("the write's approval prompt");
  g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (dialog), "one.txt"));
  g_assert_null (pd_test_find_first (GTK_WIDGET (dialog), is_controls_warning, NULL));
  pd_test_wait_until (approve_sensitive, dialog, "the dialog's guard to end");
  respond (dialog, "deny");

  pd_test_wait_until (run_finished, fixture, "the run to finish");
  g_assert_false (project_file_exists (fixture, "one.txt"));
}

static void
test_controls (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_controls);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_controls, fixture, NULL), ==, 0);
}

/* "Always for This Session" in the window's own run: a call whose command
 * holds control characters is asked every time, its dialog offers no
 * Always, and an Always given to a plain call of the tool before does not
 * answer it.  It did: after Always on `echo a`, `echo hi \<CR><LF>touch
 * pwned_cr` ran unasked (tried as an attacker would). */
static const char *replay_always_controls =
  "{\"label\": \"test: controls around an Always\", \"turns\": ["
  " {\"content\": \"First.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"echo hi \\\\\\r\\ntouch first_cr\"}}]},"
  " {\"content\": \"Plain.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"echo plain > plain.txt\"}}]},"
  " {\"content\": \"Again.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"echo hi\\u00a0; touch pwned_nbsp\"}}]},"
  " {\"content\": \"And again.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"echo hi \\\\\\r\\ntouch pwned_cr\"}}]},"
  " {\"content\": \"All done.\"}]}";

static void
assert_no_always (AdwMessageDialog *dialog)
{
  g_assert_true (adw_message_dialog_has_response (dialog, "deny"));
  g_assert_true (adw_message_dialog_has_response (dialog, "once"));
  g_assert_false (adw_message_dialog_has_response (dialog, "always"));
  g_assert_null (pd_test_find_first (GTK_WIDGET (dialog), is_button_labelled, "Always for This _Session"));
  g_assert_cmpint (adw_message_dialog_get_response_appearance (dialog, "once"), !=, ADW_RESPONSE_SUGGESTED);
  g_assert_nonnull (pd_test_find_first (GTK_WIDGET (dialog), is_controls_warning, NULL));
}

static void
check_always_controls (PdApplication *app,
                       PdWindow      *window,
                       gpointer       user_data)
{
  RunFixture *fixture = user_data;
  AdwMessageDialog *dialog;

  start_replay (window, fixture, PD_APPROVAL_POLICY_ASK, "Run them");

  /* A first call with controls: no Always to pick. */
  dialog = pd_test_wait_for_dialog ("the first command, with a CR");
  assert_no_always (dialog);
  pd_test_screenshot_sizes (GTK_WINDOW (dialog), "runs-guard-no-always");
  respond (dialog, "deny");

  /* A plain one offers it, and takes it. */
  dialog = pd_test_wait_for_dialog ("the plain command");
  g_assert_true (adw_message_dialog_has_response (dialog, "always"));
  g_assert_null (pd_test_find_first (GTK_WIDGET (dialog), is_controls_warning, NULL));
  respond (dialog, "always");

  /* Later calls with controls are still asked, and still offer no Always. */
  dialog = pd_test_wait_for_dialog ("the command with a NBSP, after Always");
  g_assert_false (project_file_exists (fixture, "pwned_nbsp"));
  assert_no_always (dialog);
  respond (dialog, "deny");

  dialog = pd_test_wait_for_dialog ("the command with a CR, after Always");
  assert_no_always (dialog);
  respond (dialog, "deny");

  pd_test_wait_until (run_finished, fixture, "the run to finish");
  g_assert_true (project_file_exists (fixture, "plain.txt"));
  g_assert_false (project_file_exists (fixture, "first_cr"));
  g_assert_false (project_file_exists (fixture, "pwned_nbsp"));
  g_assert_false (project_file_exists (fixture, "pwned_cr"));
}

static void
test_always_controls (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_always_controls);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_always_controls, fixture, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  char *config_home = pd_test_runs_init (&argc, &argv);
  int status;

  g_test_add_func ("/pd/ui/runs/guard/stacked-approvals", test_guard);
  g_test_add_func ("/pd/ui/runs/guard/plan-review-no-default", test_plan_default);
  g_test_add_func ("/pd/ui/runs/guard/controls-command", test_controls);
  g_test_add_func ("/pd/ui/runs/guard/controls-never-always", test_always_controls);

  status = g_test_run ();
  pd_test_runs_finish (config_home);

  return status;
}
