/* test-a11y-after.c: the focus after a search typed in and after a run's dialogs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tried with a screen reader and the keyboard: Escape in the session
 * search after typing (the list filtered) put the focus on the first
 * session that matched, not back where the search was opened from; a run
 * started from New Session that asked its approvals left the focus on
 * what opened the run once each dialog closed.
 */
#define G_LOG_DOMAIN "test-a11y-after"

#include "config.h"

#include "pd-session-list.h"
#include "pd-test-a11y.h"
#include "pd-test-fixtures.h"
#include "pd-test-runs.h"
#include "pd-test-session-list.h"
#include "pd-test-ui.h"
#include "pd-window-private.h"

static gboolean
is_search_button (GtkWidget     *widget,
                  gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), "win.search") == 0;
}

static gboolean
focus_in (gpointer data)
{
  return pd_test_a11y_focus_inside (data);
}

static gboolean
bar_closed (gpointer data)
{
  return !gtk_widget_get_mapped (data);
}

static char *
describe_focus (GtkWindow *window)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GString *path = g_string_new (NULL);

  for (GtkWidget *w = focus; w != NULL; w = gtk_widget_get_parent (w))
    {
      g_autofree char *name = pd_test_a11y_name (w);

      g_string_append_printf (path, "%s%s “%s”", path->len > 0 ? " < " : "", G_OBJECT_TYPE_NAME (w), name);
    }
  if (focus == NULL)
    g_string_append (path, "nothing");
  return g_string_free (path, FALSE);
}

/* Opens the search from @from, types a word and waits for the list to
 * show what matches it (the search's own listing, as a person sees it),
 * then Escape: the focus is back on @from, and the list whole again. */
static void
type_and_escape (PdWindow   *window,
                 GtkWidget  *from,
                 gboolean    click,
                 const char *word)
{
  PdSessionList *list = window->session_list;
  GtkWidget *entry = pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_SEARCH_ENTRY);
  guint n_all = g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (list)));
  guint generation;
  g_autofree char *where = NULL;

  gtk_widget_grab_focus (from);
  g_assert_true (pd_test_a11y_focus_inside (from));
  if (click)
    g_signal_emit_by_name (from, "clicked");
  else
    g_assert_true (gtk_widget_activate_action (from, "win.search", NULL));
  pd_test_wait_until (focus_in, entry, "the focus in the search field");

  generation = pd_session_list_get_generation (list);
  gtk_editable_set_text (GTK_EDITABLE (entry), word);
  pd_test_session_list_wait_generation (list, generation + 1, "the list filtered by the search");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (list))), <, n_all);
  g_assert_true (pd_test_a11y_focus_inside (entry));

  generation = pd_session_list_get_generation (list);
  if (!pd_test_a11y_press (entry, GDK_KEY_Escape, 0))
    g_error ("Escape is no key of the search field");
  pd_test_wait_until (bar_closed, entry, "the search bar to close");
  pd_test_session_list_wait_generation (list, generation + 1, "the whole list again");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (list))), ==, n_all);

  where = describe_focus (GTK_WINDOW (window));
  g_test_message ("after Escape, the focus is on %s", where);
  if (!pd_test_a11y_focus_inside (from))
    g_error ("the focus did not go back to the %s the search was opened from: it is on %s",
             G_OBJECT_TYPE_NAME (from), where);
}

static void
check_search_typed (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  GtkWidget *button;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  button = pd_test_find_first (GTK_WIDGET (window), is_search_button, NULL);
  g_assert_nonnull (button);
  type_and_escape (window, button, TRUE, "export");
  type_and_escape (window, GTK_WIDGET (window->message_entry), FALSE, "export");
  /* A word nothing matches: the list empty behind the search. */
  type_and_escape (window, button, TRUE, "zzqx-matches-nothing");
}

static void
test_search_typed (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_search_typed, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  char *config_home = pd_test_runs_init (&argc, &argv);
  int status;

  adw_init ();
  g_test_add_func ("/pd/ui/a11y/after/search-typed", test_search_typed);
  status = g_test_run ();
  pd_test_runs_finish (config_home);
  return status;
}
