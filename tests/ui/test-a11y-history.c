/* test-a11y-history.c: History's detail pane, a few named Tab stops
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tried with a screen reader and the keyboard: Tab went through every
 * plan step, every change row and the selectable label in it, and the
 * revision's reason, one by one.  Each list of the detail pane is one Tab
 * stop (the arrows move between its rows), its labels none, and each stop
 * is named.
 */
#define G_LOG_DOMAIN "test-a11y-history"

#include "config.h"

#include "pd-history-view.h"
#include "pd-test-a11y.h"
#include "pd-test-fixtures.h"
#include "pd-test-runs.h"
#include "pd-test-ui.h"

static gboolean
is_named_list (GtkWidget     *widget,
               gconstpointer  data)
{
  g_autofree char *name = NULL;

  if (!GTK_IS_LIST_BOX (widget) || !gtk_widget_get_mapped (widget))
    return FALSE;
  name = pd_test_a11y_name (widget);
  return g_strcmp0 (name, data) == 0;
}

static gboolean
list_filled (gpointer data)
{
  GtkWidget *history = data;
  GtkWidget *steps = pd_test_find_first (history, is_named_list, "Plan steps");
  GtkWidget *changes = pd_test_find_first (history, is_named_list, "Changes");

  return steps != NULL && changes != NULL && gtk_widget_get_first_child (steps) != NULL &&
         gtk_widget_get_first_child (changes) != NULL;
}

static guint
count_rows (GtkWidget *list)
{
  guint n = 0;

  for (GtkWidget *row = gtk_widget_get_first_child (list); row != NULL; row = gtk_widget_get_next_sibling (row))
    n += GTK_IS_LIST_BOX_ROW (row) && gtk_widget_get_mapped (row);
  return n;
}

/* The list box row a stop is in, or the stop. */
static GtkWidget *
speaker_of (GtkWidget *stop)
{
  GtkWidget *row = gtk_widget_get_ancestor (stop, GTK_TYPE_LIST_BOX_ROW);

  return row != NULL ? row : stop;
}

static void
count_focusable_labels (GtkWidget *widget,
                        guint     *n)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) && gtk_widget_get_focusable (widget))
    {
      g_test_message ("a label says it takes the focus: “%s”", gtk_label_get_text (GTK_LABEL (widget)));
      (*n)++;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    count_focusable_labels (child, n);
}

static void
check_history_stops (PdApplication *app,
                     PdWindow      *window,
                     gpointer       user_data)
{
  GtkWidget *history;
  GtkWidget *steps;
  GtkWidget *changes;
  g_autoptr(GPtrArray) stops = NULL;
  guint n_detail = 0, n_in_steps = 0, n_in_changes = 0, n_labels = 0;
  GtkWidget *detail;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  gtk_window_set_focus_visible (GTK_WINDOW (window), TRUE);
  adw_view_stack_set_visible_child_name (pd_test_a11y_view_stack (window), "history");
  history = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_HISTORY_VIEW);
  pd_test_wait_until (list_filled, history, "History's steps and changes");
  pd_test_flush (GTK_WIDGET (window));
  steps = pd_test_find_first (history, is_named_list, "Plan steps");
  changes = pd_test_find_first (history, is_named_list, "Changes");
  detail = gtk_widget_get_ancestor (steps, GTK_TYPE_SCROLLED_WINDOW);
  g_test_message ("History: %u plan steps, %u changes", count_rows (steps), count_rows (changes));
  g_assert_cmpuint (count_rows (steps), >=, 3);
  g_assert_cmpuint (count_rows (changes), >=, 2);

  stops = pd_test_a11y_tab_stops (GTK_WINDOW (window));
  for (guint i = 0; i < stops->len; i++)
    {
      GtkWidget *stop = g_ptr_array_index (stops, i);
      GtkWidget *speaker = speaker_of (stop);
      g_autofree char *name = pd_test_a11y_name (speaker);

      if (!gtk_widget_is_ancestor (stop, detail))
        continue;
      n_detail++;
      n_in_steps += gtk_widget_is_ancestor (stop, steps);
      n_in_changes += gtk_widget_is_ancestor (stop, changes);
      n_labels += GTK_IS_LABEL (stop) || gtk_widget_get_ancestor (stop, GTK_TYPE_LABEL) != NULL;
      g_test_message ("detail Tab stop %u: %s in %s “%s”", n_detail, G_OBJECT_TYPE_NAME (stop),
                      G_OBJECT_TYPE_NAME (speaker), name);
      if (*name == '\0' || g_str_has_prefix (name, "Gtk") || g_str_has_prefix (name, "Adw"))
        g_error ("a Tab stop of History's detail is unnamed: %s", G_OBJECT_TYPE_NAME (speaker));
    }
  g_test_message ("History's detail: %u Tab stops (%u in the steps, %u in the changes, %u labels)",
                  n_detail, n_in_steps, n_in_changes, n_labels);
  g_assert_cmpuint (n_in_steps, ==, 1);
  g_assert_cmpuint (n_in_changes, ==, 1);
  g_assert_cmpuint (n_labels, ==, 0);
  /* Nor does one say it takes the focus (AT-SPI's "focusable"). */
  n_labels = 0;
  count_focusable_labels (detail, &n_labels);
  g_assert_cmpuint (n_labels, ==, 0);
  /* The steps, the changes, and at most the approved plans and plan
   * documents, whatever their lengths. */
  g_assert_cmpuint (n_detail, <=, 4);

  /* The arrows inside: Down from the first step goes to the second, Up
   * back. */
  {
    GtkWidget *first = gtk_widget_get_first_child (steps);
    GtkWidget *second = gtk_widget_get_next_sibling (first);
    g_autofree char *name = NULL;

    g_assert_true (gtk_widget_grab_focus (first));
    g_assert_true (pd_test_a11y_press (steps, GDK_KEY_Down, 0));
    g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == second);
    g_assert_true (pd_test_a11y_press (steps, GDK_KEY_Up, 0));
    g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == first);
    g_assert_true (pd_test_a11y_press (steps, GDK_KEY_Down, 0));
    name = pd_test_a11y_name (second);
    g_test_message ("Down: the focus on “%s”", name);
    /* From outside, the list is entered at its first row, or backwards at
     * its last. */
    gtk_root_set_focus (GTK_ROOT (window), NULL);
    g_assert_true (gtk_widget_child_focus (steps, GTK_DIR_TAB_FORWARD));
    g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == first);
    gtk_root_set_focus (GTK_ROOT (window), NULL);
    g_assert_true (gtk_widget_child_focus (steps, GTK_DIR_TAB_BACKWARD));
    g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == gtk_widget_get_last_child (steps));
    /* Tab leaves the list from there. */
    g_assert_true (pd_test_a11y_press (steps, GDK_KEY_Tab, 0));
    g_assert_false (pd_test_a11y_focus_inside (steps));
  }
}

static void
test_history_stops (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_history_stops, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  char *config_home = pd_test_runs_init (&argc, &argv);
  int status;

  adw_init ();
  g_test_add_func ("/pd/ui/a11y/history/tab-stops", test_history_stops);
  status = g_test_run ();
  pd_test_runs_finish (config_home);
  return status;
}
