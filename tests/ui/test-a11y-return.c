/* test-a11y-return.c: the focus goes back where the person was
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * After the session search is closed with Escape, the focus is back on
 * the Search button (or where it was when the search opened), not in the
 * list of sessions; after a run started from New Session asks its
 * approval, the focus is in the run's page, not on the button New Session
 * was opened from; New Session closed with Escape gives it back to the +
 * button or the session's row it was opened from.
 */
#define G_LOG_DOMAIN "test-a11y-return"

#include "config.h"

#include "pd-new-session-dialog.h"
#include "pd-session-list.h"
#include "pd-session-row.h"
#include "pd-test-a11y-keys.h"
#include "pd-test-a11y.h"
#include "pd-test-fixtures.h"
#include "pd-test-runs.h"
#include "pd-test-ui.h"
#include "pd-window-private.h"

static void
describe_focus (PdWindow *window)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  g_autoptr(GString) path = g_string_new (NULL);

  for (GtkWidget *w = focus; w != NULL; w = gtk_widget_get_parent (w))
    {
      g_autofree char *name = pd_test_a11y_name (w);

      g_string_append_printf (path, "%s%s “%s”", path->len > 0 ? " < " : "", G_OBJECT_TYPE_NAME (w), name);
    }
  g_test_message ("the focus is on %s", focus != NULL ? path->str : "nothing");
}

/* Opens the search from @from (clicked, or Ctrl+F there), closes it with
 * Escape, and says whether the focus is back on @from. */
static void
search_and_escape (PdWindow  *window,
                   GtkWidget *from,
                   gboolean   click)
{
  GtkWidget *entry = pd_test_find_widget (GTK_WIDGET (window->session_list), GTK_TYPE_SEARCH_ENTRY);

  gtk_widget_grab_focus (from);
  g_assert_true (pd_test_a11y_focus_inside (from));
  if (click)
    g_signal_emit_by_name (from, "clicked");
  else
    g_assert_true (gtk_widget_activate_action (from, "win.search", NULL));
  pd_test_wait_until (pd_test_a11y_focus_is_in, entry, "the focus in the search field");
  gtk_editable_set_text (GTK_EDITABLE (entry), "export");
  pd_test_flush (GTK_WIDGET (window));
  if (!pd_test_a11y_press (entry, GDK_KEY_Escape, 0))
    g_error ("Escape is no key of the search field");
  pd_test_wait_until (pd_test_a11y_unmapped, entry, "the search bar to close");
  pd_test_flush (GTK_WIDGET (window));
  describe_focus (window);
  if (!pd_test_a11y_focus_inside (from))
    g_error ("the focus did not go back to the %s the search was opened from", G_OBJECT_TYPE_NAME (from));
}

static void
check_search_escape (PdApplication *app,
                     PdWindow      *window,
                     gpointer       user_data)
{
  GtkWidget *button;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  button = pd_test_find_first (GTK_WIDGET (window), pd_test_a11y_is_search_button, NULL);
  g_assert_nonnull (button);
  /* Clicked, or Enter on it: back on the button. */
  search_and_escape (window, button, TRUE);
  /* Ctrl+F in the message entry: back there. */
  search_and_escape (window, GTK_WIDGET (window->message_entry), FALSE);
}

static void
test_search_escape (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_search_escape, NULL), ==, 0);
}

static const char *replay_approval =
  "{\"label\": \"test: a11y return\", \"turns\": ["
  " {\"content\": \"Saying it.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": "
  "   \"echo hello > said.txt\"}}]},"
  " {\"content\": \"I could not say it.\"}]}";

static gboolean
is_new_session_button (GtkWidget     *widget,
                       gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), "win.new-session") == 0;
}

static gboolean
focus_in_page (gpointer data)
{
  PdWindow *window = data;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));

  return focus != NULL && gtk_widget_get_ancestor (focus, ADW_TYPE_HEADER_BAR) == NULL &&
         gtk_widget_is_ancestor (focus, gtk_widget_get_parent (GTK_WIDGET (window->content_stack)));
}

static gboolean
new_session_enabled (gpointer data)
{
  return action_enabled (data, "win.new-session");
}

/* New Session from its button, Start (as its button does: the dialog
 * says start and goes), the run asks to run a command, Deny: the focus is
 * in the run's page, where the person went, not back on the button (it
 * went back to the Main Menu button, tried with a screen reader). */
static void
check_new_session_approval (PdApplication *app,
                            PdWindow      *window,
                            gpointer       user_data)
{
  RunFixture *fixture = user_data;
  g_autoptr(PdRunSettings) settings = pd_run_settings_new ();
  GtkWidget *plus;
  GtkWindow *dialog;
  AdwMessageDialog *approval;

  pd_test_wait_until (new_session_enabled, window, "New Session to be offered");
  plus = pd_test_find_first (GTK_WIDGET (window), is_new_session_button, NULL);
  g_assert_nonnull (plus);
  g_assert_true (gtk_widget_grab_focus (plus));
  g_signal_emit_by_name (plus, "clicked");
  pd_test_wait_until (pd_test_toplevel_shown, GSIZE_TO_POINTER (PD_TYPE_NEW_SESSION_DIALOG), "New Session");
  dialog = pd_test_mapped_toplevel (PD_TYPE_NEW_SESSION_DIALOG);
  pd_test_flush (GTK_WIDGET (dialog));

  g_free (settings->provider);
  settings->provider = g_strdup ("replay");
  settings->replay_path = g_strdup (fixture->replay);
  settings->working_directory = g_strdup (fixture->project);
  settings->policy = PD_APPROVAL_POLICY_ASK;
  g_signal_connect (pd_window_get_run_controller (window), "finished", G_CALLBACK (on_finished), fixture);
  g_signal_emit_by_name (dialog, "start", settings, "Say hello");
  gtk_window_destroy (dialog);

  approval = pd_test_a11y_wait_for_message_dialog ("Approval");
  respond (approval, "deny");
  pd_test_wait_until (run_finished, fixture, "the run to end");
  /* A wait, not a look: the page reads the run's session first. */
  pd_test_wait_until (focus_in_page, window, "the focus to be in the run's page");
  describe_focus (window);
}

static void
test_new_session_approval (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_approval);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_new_session_approval, fixture, NULL), ==, 0);
}

/* New Session opened from @from (clicked, or the window's Ctrl+N with the
 * focus in @from), closed with Escape in the dialog: where the focus is. */
static void
new_session_escape (PdWindow  *window,
                    GtkWidget *from,
                    gboolean   click)
{
  GtkWindow *dialog;

  if (click)
    {
      g_assert_true (gtk_widget_grab_focus (from));
      g_signal_emit_by_name (from, "clicked");
    }
  else
    {
      g_assert_true (gtk_widget_child_focus (from, GTK_DIR_TAB_FORWARD));
      g_assert_true (pd_test_a11y_focus_inside (from));
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.new-session", NULL));
    }
  pd_test_wait_until (pd_test_toplevel_shown, GSIZE_TO_POINTER (PD_TYPE_NEW_SESSION_DIALOG), "New Session");
  dialog = pd_test_mapped_toplevel (PD_TYPE_NEW_SESSION_DIALOG);
  pd_test_flush (GTK_WIDGET (dialog));
  /* The focus is in the dialog, on its task: Escape there. */
  g_assert_true (pd_test_a11y_press (GTK_WIDGET (dialog), GDK_KEY_Escape, 0));
  pd_test_wait_until (pd_test_toplevel_gone, GSIZE_TO_POINTER (PD_TYPE_NEW_SESSION_DIALOG), "New Session to close");
  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (200);
  pd_test_flush (GTK_WIDGET (window));
  describe_focus (window);
}

/* New Session closed with Escape gives the focus back where it was: on
 * the + button it was opened from, or on the session's row when Ctrl+N
 * opened it from the list (tried as a keyboard user would). */
static void
check_new_session_escape (PdApplication *app,
                          PdWindow      *window,
                          gpointer       user_data)
{
  GtkWidget *list = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST);
  GtkWidget *plus;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  pd_test_wait_until (new_session_enabled, window, "New Session to be offered");
  plus = pd_test_find_first (GTK_WIDGET (window), is_new_session_button, NULL);
  g_assert_nonnull (plus);

  new_session_escape (window, plus, TRUE);
  g_assert_true (pd_test_a11y_focus_inside (plus));

  new_session_escape (window, list, FALSE);
  g_assert_true (pd_test_a11y_focus_inside (list));
  /* On a row of it (its item holds the session's row), not the list. */
  g_assert_true (PD_IS_SESSION_ROW (gtk_widget_get_first_child (gtk_root_get_focus (GTK_ROOT (window)))));
}

static void
test_new_session_escape (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_new_session_escape, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  char *config_home = pd_test_runs_init (&argc, &argv);
  int status;

  adw_init ();
  g_test_add_func ("/pd/ui/a11y/return/search-escape", test_search_escape);
  g_test_add_func ("/pd/ui/a11y/return/new-session-approval", test_new_session_approval);
  g_test_add_func ("/pd/ui/a11y/return/new-session-escape", test_new_session_escape);
  status = g_test_run ();
  pd_test_runs_finish (config_home);
  return status;
}
