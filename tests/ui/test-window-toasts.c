/* test-window-toasts.c: the window's toasts over its content pane
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The real application on a real database.  Tried as a new user would: a
 * toast of the Overview (an answer sent, an export) sat in the middle of
 * the window, over the sidebar's sessions beside the Overview.  A toast
 * sits over the content pane, centred on it, the sidebar uncovered; at a
 * phone's width (the sidebar and the content one at a time) it has the
 * window.
 */
#define G_LOG_DOMAIN "test-window-toasts"

#include "config.h"

#include "pd-overview-view.h"
#include "pd-session-list.h"
#include "pd-session-store.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

#define APP_ID "io.github.plandeck.Plandeck"

static gboolean
is_toast_widget (GtkWidget     *widget,
                 gconstpointer  data)
{
  return g_strcmp0 (gtk_widget_get_css_name (widget), "toast") == 0;
}

/* The toast, shown and laid out. */
static gboolean
toast_placed (gpointer data)
{
  GtkWidget *toast = pd_test_find_first (data, is_toast_widget, NULL);
  graphene_rect_t bounds;

  return toast != NULL && gtk_widget_get_mapped (toast) && gtk_widget_compute_bounds (toast, data, &bounds) && bounds.size.width > 0;
}

static gboolean
overview_shown (gpointer data)
{
  GtkWidget *overview = pd_test_find_widget (data, PD_TYPE_OVERVIEW_VIEW);

  return overview != NULL && gtk_widget_get_mapped (overview);
}

/* The page of the window's leaflet @widget lies in. */
static GtkWidget *
pane_of (GtkWidget *widget)
{
  for (; widget != NULL; widget = gtk_widget_get_parent (widget))
    if (gtk_widget_get_parent (widget) != NULL && ADW_IS_LEAFLET (gtk_widget_get_parent (widget)))
      return widget;
  return NULL;
}

static void
check_toast_over_content (PdApplication *app,
                          PdWindow      *window,
                          gpointer       user_data)
{
  gboolean narrow = GPOINTER_TO_INT (user_data);
  GtkWidget *root = GTK_WIDGET (window);
  GtkWidget *overview;
  GtkWidget *pane;
  GtkWidget *sidebar;
  GtkWidget *toast;
  graphene_rect_t toast_bounds, pane_bounds, sidebar_bounds;
  double toast_middle, pane_middle;

  g_assert_true (gtk_widget_activate_action (root, "win.show-overview", NULL));
  pd_test_wait_until (overview_shown, root, "the Overview");
  overview = pd_test_find_widget (root, PD_TYPE_OVERVIEW_VIEW);
  pane = pane_of (overview);
  g_assert_nonnull (pane);

  pd_window_show_message (window, "Answer sent to the endpoint");
  pd_test_wait_until (toast_placed, root, "the toast");
  pd_test_spin (700);   /* its appearing over, as test-toasts.c waits */
  toast = pd_test_find_first (root, is_toast_widget, NULL);
  g_assert_true (gtk_widget_compute_bounds (toast, root, &toast_bounds));
  g_assert_true (gtk_widget_compute_bounds (pane, root, &pane_bounds));
  g_test_message ("toast %.0f–%.0f, content pane %.0f–%.0f, window %d", toast_bounds.origin.x,
                  toast_bounds.origin.x + toast_bounds.size.width, pane_bounds.origin.x,
                  pane_bounds.origin.x + pane_bounds.size.width, gtk_widget_get_width (root));

  /* Inside the content pane, centred on it. */
  g_assert_cmpfloat (toast_bounds.origin.x, >=, pane_bounds.origin.x - 0.5);
  g_assert_cmpfloat (toast_bounds.origin.x + toast_bounds.size.width, <=,
                     pane_bounds.origin.x + pane_bounds.size.width + 0.5);
  toast_middle = toast_bounds.origin.x + toast_bounds.size.width / 2;
  pane_middle = pane_bounds.origin.x + pane_bounds.size.width / 2;
  g_assert_cmpfloat (ABS (toast_middle - pane_middle), <=, 1.0);

  sidebar = pd_test_find_widget (root, PD_TYPE_SESSION_LIST);
  g_assert_nonnull (sidebar);
  if (narrow)
    /* Folded: the sidebar is away, the content has the window. */
    g_assert_false (gtk_widget_get_mapped (sidebar));
  else
    {
      g_assert_true (gtk_widget_get_mapped (sidebar));
      g_assert_true (gtk_widget_compute_bounds (sidebar, root, &sidebar_bounds));
      g_assert_false (graphene_rect_intersection (&toast_bounds, &sidebar_bounds, NULL));
    }
  pd_test_screenshot (root, narrow ? "window-toast-overview-360" : "window-toast-overview");
}

static void
test_toast_over_content (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  const char *args[] = { "--db", db, NULL };
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  gboolean saw_window = FALSE;

  info = pd_session_store_create (store, "Port the settings to GKeyFile", "m", "replay", "plandeck", dir, &error);
  g_assert_no_error (error);

  pd_test_reset_settings ();
  g_settings_set_int (settings, "window-width", 1100);
  g_settings_set_int (settings, "window-height", 700);
  g_assert_cmpint (pd_test_run_app (args, check_toast_over_content, GINT_TO_POINTER (FALSE), &saw_window), ==, 0);
  g_assert_true (saw_window);

  pd_test_reset_settings ();
  g_settings_set_int (settings, "window-width", 360);
  g_settings_set_int (settings, "window-height", 700);
  g_assert_cmpint (pd_test_run_app (args, check_toast_over_content, GINT_TO_POINTER (TRUE), NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/pd/ui/window-toasts/over-content", test_toast_over_content);

  return g_test_run ();
}
