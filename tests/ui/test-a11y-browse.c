/* test-a11y-browse.c: what a screen reader meets browsing object by object
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Not the Tab stops (test-a11y.c) but every object of the accessible tree
 * a reader can land on with its review keys: read over AT-SPI on GTK 4.8
 * (tried as a new user would), empty labels (the Events page's count, the
 * checklist's summary) said "GtkLabel", the Events type filter's current
 * item "GtkListItemWidget", lists "GtkListBox", "GtkListView" and
 * "GtkColumnListView", and the window's title and the sidebar's titles and
 * chips were read with their bidi isolates. Every page of
 * every session of the showcase, Preferences and New Session are walked
 * (pd_test_a11y_browsed()).
 *
 * Also the focus ring: the first Tab shows it (the window, New Session and
 * Preferences gave the focus from code and GTK drew no ring on it).
 */
#define G_LOG_DOMAIN "test-a11y-browse"

#include "config.h"

#include <string.h>

#include "pd-new-session-dialog.h"
#include "pd-session-item.h"
#include "pd-session-list.h"
#include "pd-test-a11y-keys.h"
#include "pd-test-a11y.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

/* Adds what @root has that a reader hears badly to @all, once each. */
static void
browse (GtkWidget  *root,
        const char *where,
        GHashTable *all)
{
  g_autoptr(GPtrArray) found = pd_test_a11y_browsed (root);

  g_test_message ("%s: %u objects named by nothing, by their class or with isolates", where, found->len);
  for (guint i = 0; i < found->len; i++)
    /* The Overview's cards are named in their own change (test-a11y-overview). */
    if (strstr (g_ptr_array_index (found, i), "in PdOverviewCardRow") == NULL &&
        g_hash_table_add (all, g_strdup (g_ptr_array_index (found, i))))
      g_test_message ("  %s: %s", where, (char *) g_ptr_array_index (found, i));
}

static void
expand_all (GtkWidget *root)
{
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (ADW_IS_EXPANDER_ROW (child))
        adw_expander_row_set_expanded (ADW_EXPANDER_ROW (child), TRUE);
      expand_all (child);
    }
}

static gboolean
is_add_profile (GtkWidget     *widget,
                gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_widget_get_tooltip_text (widget), "Add Profile") == 0;
}

static void
check_browsed (PdApplication *app,
               PdWindow      *window,
               gpointer       user_data)
{
  const char *pages[] = { "now", "transcript", "events", "history" };
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  AdwViewStack *views = pd_test_a11y_view_stack (window);
  g_autoptr(GHashTable) all = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GListModel *model;
  GtkWindow *dialog;
  GtkWidget *add;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  pd_test_flush (GTK_WIDGET (window));

  model = G_LIST_MODEL (pd_session_list_get_model (list));
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(PdSessionItem) item = g_list_model_get_item (model, i);
      g_autofree char *id = g_strdup (pd_session_item_get_id (item));

      g_assert_true (pd_session_list_select (list, id));
      pd_test_flush (GTK_WIDGET (window));
      pd_test_spin (200);
      for (guint p = 0; p < G_N_ELEMENTS (pages); p++)
        {
          g_autofree char *where = g_strdup_printf ("session %u, page %s", i, pages[p]);

          adw_view_stack_set_visible_child_name (views, pages[p]);
          pd_test_flush (GTK_WIDGET (window));
          browse (GTK_WIDGET (window), where, all);
        }
    }
  adw_view_stack_set_visible_child_name (views, "now");

  dialog = pd_test_a11y_open_dialog (window, "win.preferences", ADW_TYPE_PREFERENCES_WINDOW, NULL);
  add = pd_test_find_first (GTK_WIDGET (dialog), is_add_profile, NULL);
  g_assert_nonnull (add);
  g_signal_emit_by_name (add, "clicked");
  expand_all (GTK_WIDGET (dialog));
  pd_test_flush (GTK_WIDGET (dialog));
  browse (GTK_WIDGET (dialog), "Preferences", all);
  gtk_window_destroy (dialog);

  dialog = pd_test_a11y_open_dialog (window, "win.new-session", PD_TYPE_NEW_SESSION_DIALOG, NULL);
  browse (GTK_WIDGET (dialog), "New Session", all);
  gtk_window_destroy (dialog);

  g_test_message ("%u objects in all", g_hash_table_size (all));
  g_assert_cmpuint (g_hash_table_size (all), ==, 0);
}

typedef struct
{
  GtkWindow *window;
  GtkWidget *before;
} FocusMove;

static gboolean
focus_moved (gpointer data)
{
  FocusMove *move = data;

  return gtk_root_get_focus (GTK_ROOT (move->window)) != move->before;
}

/* After the first Tab, @window draws its focus ring on the focused widget. */
static void
assert_ring_after_first_tab (GtkWindow  *window,
                             const char *where)
{
  FocusMove move = { window, gtk_root_get_focus (GTK_ROOT (window)) };
  GtkWidget *focus;

  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (pd_test_a11y_x11_key (window, "Tab"));
  pd_test_wait_until (focus_moved, &move, where);
  pd_test_flush (GTK_WIDGET (window));
  focus = gtk_root_get_focus (GTK_ROOT (window));
  g_test_message ("%s: the first Tab put the focus on %s, focus visible %d, its :focus-visible %d", where,
                  G_OBJECT_TYPE_NAME (focus), gtk_window_get_focus_visible (window),
                  (gtk_widget_get_state_flags (focus) & GTK_STATE_FLAG_FOCUS_VISIBLE) != 0);
  g_assert_true (gtk_window_get_focus_visible (window));
  g_assert_true (gtk_widget_get_state_flags (focus) & GTK_STATE_FLAG_FOCUS_VISIBLE);
}

static void
check_first_tab (PdApplication *app,
                 PdWindow      *window,
                 gpointer       user_data)
{
  GtkWindow *dialog;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  assert_ring_after_first_tab (GTK_WINDOW (window), "the window");

  dialog = pd_test_a11y_open_dialog (window, "win.new-session", PD_TYPE_NEW_SESSION_DIALOG, NULL);
  assert_ring_after_first_tab (dialog, "New Session");
  gtk_window_destroy (dialog);

  dialog = pd_test_a11y_open_dialog (window, "win.preferences", ADW_TYPE_PREFERENCES_WINDOW, NULL);
  assert_ring_after_first_tab (dialog, "Preferences");
  gtk_window_destroy (dialog);
}

static void
test_first_tab (void)
{
  if (!pd_test_a11y_x11_keys_work ())
    {
      g_test_skip ("needs xdotool and an X server (xvfb-run) for a real key press");
      return;
    }
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_first_tab, NULL), ==, 0);
}

static void
test_browsed (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_browsed, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/a11y/browse/named", test_browsed);
  g_test_add_func ("/pd/ui/a11y/browse/first-tab-ring", test_first_tab);

  return g_test_run ();
}
