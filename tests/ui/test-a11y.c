/* test-a11y.c: the window as a screen reader and a keyboard meet it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs with GTK_A11Y=test, so every widget carries the accessible
 * properties and relations GTK 4.8's AT-SPI backend reads; the names are
 * computed the way that backend computes them (pd-test-a11y.c). Each page
 * of the main window, with every kind of session of the showcase, and each
 * dialog is walked: any control a person can reach (focusable, or with a
 * control's role) must have a name that is not empty and not its class.
 */
#define G_LOG_DOMAIN "test-a11y"

#include "config.h"

#include <string.h>

#include "pd-new-session-dialog.h"
#include "pd-session-item.h"
#include "pd-session-list.h"
#include "pd-session-list-model.h"
#include "pd-test-a11y.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

#define WAIT_MS 20000

static gboolean
window_settled (gpointer data)
{
  GtkWidget *views = pd_test_find_widget (GTK_WIDGET (data), ADW_TYPE_VIEW_STACK);
  GtkStack *pages = GTK_STACK (gtk_widget_get_ancestor (views, GTK_TYPE_STACK));

  return g_strcmp0 (gtk_stack_get_visible_child_name (pages), "session") == 0;
}

static AdwViewStack *
view_stack (PdWindow *window)
{
  return ADW_VIEW_STACK (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK));
}

static GtkWindow *
mapped_toplevel (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (window, type) && gtk_widget_get_mapped (GTK_WIDGET (window)))
        return window;
    }
  return NULL;
}

static gboolean
toplevel_shown (gpointer data)
{
  return mapped_toplevel (GPOINTER_TO_SIZE (data)) != NULL;
}

static GtkWindow *
open_dialog (PdWindow   *window,
             const char *action,
             GType       type)
{
  GtkWindow *dialog;

  gtk_widget_activate_action (GTK_WIDGET (window), action, NULL);
  pd_test_wait_until (toplevel_shown, GSIZE_TO_POINTER (type), WAIT_MS, action);
  dialog = mapped_toplevel (type);
  pd_test_flush (GTK_WIDGET (dialog));
  return dialog;
}

static gboolean
walk_pages (PdWindow   *window,
            const char *session)
{
  const char *pages[] = { "now", "transcript", "events", "history" };
  AdwViewStack *views = view_stack (window);
  gboolean all_named = TRUE;

  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      g_autofree char *where = g_strdup_printf ("%s, page %s", session, pages[i]);
      guint n_controls = 0;
      g_autoptr(GPtrArray) unnamed = NULL;

      adw_view_stack_set_visible_child_name (views, pages[i]);
      pd_test_flush (GTK_WIDGET (window));
      unnamed = pd_test_a11y_unnamed (GTK_WIDGET (window), &n_controls);
      g_test_message ("%s: %u controls, %u unnamed", where, n_controls, unnamed->len);
      for (guint j = 0; j < unnamed->len; j++)
        g_test_message ("  unnamed: %s", (char *) g_ptr_array_index (unnamed, j));
      all_named = all_named && unnamed->len == 0;
    }
  adw_view_stack_set_visible_child_name (views, "now");
  return all_named;
}

static void
check_window_names (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  GListModel *model;
  gboolean all_named = TRUE;

  pd_test_wait_until (window_settled, window, WAIT_MS, "the window to show a session");
  pd_test_flush (GTK_WIDGET (window));

  /* The search field, open. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.search", NULL);
  pd_test_flush (GTK_WIDGET (window));

  /* Every page of every kind of session the showcase holds: running with
   * a blocked step, failed, done, imported from two agents, without a plan. */
  model = G_LIST_MODEL (pd_session_list_get_model (list));
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(PdSessionItem) item = g_list_model_get_item (model, i);
      g_autofree char *id = g_strdup (pd_session_item_get_id (item));
      g_autofree char *title = g_strdup (pd_session_item_get_title (item));

      g_assert_true (pd_session_list_select (list, id));
      pd_test_flush (GTK_WIDGET (window));
      pd_test_spin (200);
      pd_test_flush (GTK_WIDGET (window));
      all_named = walk_pages (window, title) && all_named;
    }
  g_assert_true (all_named);
}

static void
test_names_window (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "showcase.db", NULL);
  const char *args[] = { "--db", db, NULL };
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);

  pd_test_fill_showcase (store);
  pd_test_reset_settings ();
  g_settings_set_int (settings, "window-width", 1200);
  g_settings_set_int (settings, "window-height", 800);
  g_assert_cmpint (pd_test_run_app (args, check_window_names, NULL, NULL), ==, 0);
}

static void
check_dialog_names (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  GtkWindow *dialog;

  pd_test_wait_until (window_settled, window, WAIT_MS, "the window to show a session");

  dialog = open_dialog (window, "win.preferences", ADW_TYPE_PREFERENCES_WINDOW);
  pd_test_a11y_assert_named (GTK_WIDGET (dialog), "Preferences");
  gtk_window_destroy (dialog);

  dialog = open_dialog (window, "win.new-session", PD_TYPE_NEW_SESSION_DIALOG);
  pd_test_a11y_assert_named (GTK_WIDGET (dialog), "New Session");
  gtk_window_destroy (dialog);
}

static void
test_names_dialogs (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "showcase.db", NULL);
  const char *args[] = { "--db", db, NULL };
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);

  pd_test_fill_showcase (store);
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_dialog_names, NULL, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/a11y/names/window", test_names_window);
  g_test_add_func ("/pd/ui/a11y/names/dialogs", test_names_dialogs);

  return g_test_run ();
}
