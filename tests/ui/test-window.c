/* test-window.c: the main window as a person meets it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each case runs the real application with a command line, waits for the
 * window to be drawn, and looks at what is on screen.
 */
#define G_LOG_DOMAIN "test-window"

#include "config.h"

#include <string.h>

#include "pd-test-ui.h"

/* The AdwWindowTitle in the header bar of the main area. */
static AdwWindowTitle *
content_window_title (PdWindow *window)
{
  AdwStatusPage *status = ADW_STATUS_PAGE (pd_test_find_widget (GTK_WIDGET (window),
                                                                ADW_TYPE_STATUS_PAGE));
  GtkWidget *pane;
  GtkWidget *title;

  g_assert_nonnull (status);
  pane = gtk_widget_get_parent (GTK_WIDGET (status));
  title = pd_test_find_widget (pane, ADW_TYPE_WINDOW_TITLE);
  g_assert_nonnull (title);

  return ADW_WINDOW_TITLE (title);
}

static void
assert_title_names (PdWindow   *window,
                    const char *source)
{
  AdwWindowTitle *title = content_window_title (window);

  g_assert_cmpstr (adw_window_title_get_subtitle (title), ==, source);
  /* What is drawn is the text itself, not text read as markup. */
  g_assert_nonnull (pd_test_find_label (GTK_WIDGET (title), source));
  g_assert_true (gtk_widget_get_mapped (pd_test_find_label (GTK_WIDGET (title), source)));
}

/* --- empty state ------------------------------------------------------ */

static void
check_empty_state (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  GtkWidget *status = pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_STATUS_PAGE);
  GtkWidget *title;

  g_assert_nonnull (status);
  g_assert_true (gtk_widget_get_mapped (status));
  g_assert_cmpstr (adw_status_page_get_title (ADW_STATUS_PAGE (status)), ==, "No sessions yet");

  title = pd_test_find_label (status, "No sessions yet");
  g_assert_nonnull (title);
  g_assert_true (gtk_widget_get_mapped (title));
  g_assert_nonnull (strstr (adw_status_page_get_description (ADW_STATUS_PAGE (status)),
                            "appear here"));
}

static void
test_window_empty_state (void)
{
  g_autofree char *db = g_build_filename (g_get_tmp_dir (), "sessions.db", NULL);
  const char *args[] = { "--db", db, NULL };
  gboolean saw_window = FALSE;

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_empty_state, NULL, &saw_window), ==, 0);
  g_assert_true (saw_window);
}

/* --- the title names the source --------------------------------------- */

static void
check_title_names_db (PdApplication *app,
                      PdWindow      *window,
                      gpointer       user_data)
{
  const char *db = user_data;
  g_autofree char *basename = g_path_get_basename (db);

  assert_title_names (window, db);
  g_assert_cmpstr (pd_window_get_database_path (window), ==, db);
  g_assert_nonnull (strstr (gtk_window_get_title (GTK_WINDOW (window)), basename));
}

static void
test_window_title_names_database (void)
{
  /* Characters that would break if the path were read as markup. */
  g_autofree char *db = g_build_filename (g_get_tmp_dir (), "R&D <plans>.db", NULL);
  const char *args[] = { "--db", db, NULL };
  gboolean saw_window = FALSE;

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_title_names_db, db, &saw_window), ==, 0);
  g_assert_true (saw_window);
}

static void
test_window_relative_database (void)
{
  g_autofree char *cwd = g_get_current_dir ();
  g_autofree char *expected = g_build_filename (cwd, "relative.db", NULL);
  const char *args[] = { "--db", "relative.db", NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_title_names_db, expected, NULL), ==, 0);
}

static void
test_window_default_database (void)
{
  g_autofree char *expected = g_build_filename (g_get_user_data_dir (),
                                                "plandeck", "sessions.db", NULL);
  g_autofree char *from_app = pd_application_default_database_path ();

  g_assert_cmpstr (from_app, ==, expected);

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (NULL, check_title_names_db, expected, NULL), ==, 0);
}

static void
check_remote (PdApplication *app,
              PdWindow      *window,
              gpointer       user_data)
{
  const char *url = user_data;

  assert_title_names (window, url);
  g_assert_cmpstr (pd_window_get_remote_url (window), ==, url);
  g_assert_null (pd_window_get_database_path (window));
}

static void
test_window_remote (void)
{
  const char *url = "http://127.0.0.1:8080";
  const char *args[] = { "--remote", url, NULL };
  g_autoptr(GSettings) settings = NULL;
  g_auto(GStrv) recent = NULL;

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_remote, (gpointer) url, NULL), ==, 0);

  /* The endpoint is remembered for the next connection. */
  settings = g_settings_new (APP_ID);
  g_assert_cmpstr (g_settings_get_string (settings, "endpoint-url"), ==, url);
  recent = g_settings_get_strv (settings, "recent-sources");
  g_assert_cmpstr (recent[0], ==, url);
}

/* --- command lines that cannot be acted on ---------------------------- */

static void
test_app_rejects_bad_command_lines (void)
{
  const char *both[] = { "--db", "/tmp/x.db", "--remote", "http://localhost:1", NULL };
  const char *not_http[] = { "--remote", "ftp://example.org/", NULL };
  const char *no_host[] = { "--remote", "plans", NULL };
  gboolean saw_window = TRUE;

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (both, NULL, NULL, &saw_window), ==, 64);
  g_assert_false (saw_window);
  g_assert_cmpint (pd_test_run_app (not_http, NULL, NULL, &saw_window), ==, 64);
  g_assert_false (saw_window);
  g_assert_cmpint (pd_test_run_app (no_host, NULL, NULL, &saw_window), ==, 64);
  g_assert_false (saw_window);
}

/* --- --demo ------------------------------------------------------------ */

static void
check_demo_toast (PdApplication *app,
                  PdWindow      *window,
                  gpointer       user_data)
{
  GtkWidget *label = pd_test_find_label (GTK_WIDGET (window),
                                         "Demo sessions are not available yet");

  g_assert_nonnull (label);
  g_assert_true (gtk_widget_get_mapped (label));
}

static void
test_window_demo_says_not_available (void)
{
  const char *args[] = { "--demo", NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_demo_toast, NULL, NULL), ==, 0);
}

/* --- menus, shortcuts, about ------------------------------------------ */

static gboolean
strv_has (char       **strv,
          const char  *value)
{
  return strv != NULL && g_strv_contains ((const char * const *) strv, value);
}

static void
check_actions (PdApplication *app,
               PdWindow      *window,
               gpointer       user_data)
{
  g_auto(GStrv) help_accels = NULL;
  g_auto(GStrv) open_accels = NULL;
  g_auto(GStrv) quit_accels = NULL;
  GtkShortcutsWindow *help;
  GtkWindow *about;

  g_assert_true (g_action_group_has_action (G_ACTION_GROUP (app), "about"));
  g_assert_true (g_action_group_has_action (G_ACTION_GROUP (app), "quit"));
  g_assert_true (g_action_group_has_action (G_ACTION_GROUP (window), "show-help-overlay"));

  help_accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
                                                       "win.show-help-overlay");
  g_assert_true (strv_has (help_accels, "<Control>question"));
  open_accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
                                                       "win.open-database");
  g_assert_true (strv_has (open_accels, "<Control>o"));
  quit_accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "app.quit");
  g_assert_true (strv_has (quit_accels, "<Control>q"));

  /* Keyboard Shortcuts opens the shortcuts window. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "show-help-overlay", NULL);
  help = gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (window));
  g_assert_nonnull (help);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (help)));
  g_assert_nonnull (pd_test_find_label (GTK_WIDGET (help), "Open a database"));
  gtk_widget_set_visible (GTK_WIDGET (help), FALSE);

  /* About opens an about window over the main window. */
  g_assert_null (pd_test_find_toplevel (ADW_TYPE_ABOUT_WINDOW));
  g_action_group_activate_action (G_ACTION_GROUP (app), "about", NULL);
  about = pd_test_find_toplevel (ADW_TYPE_ABOUT_WINDOW);
  g_assert_nonnull (about);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (about)));
  g_assert_true (gtk_window_get_transient_for (about) == GTK_WINDOW (window));
  g_assert_cmpstr (adw_about_window_get_application_name (ADW_ABOUT_WINDOW (about)), ==,
                   "Plandeck");
  g_assert_cmpstr (adw_about_window_get_version (ADW_ABOUT_WINDOW (about)), ==,
                   PACKAGE_VERSION);
  gtk_window_destroy (about);
}

static void
test_window_actions (void)
{
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (NULL, check_actions, NULL, NULL), ==, 0);
}

/* --- window size ------------------------------------------------------- */

static void
check_size_then_resize (PdApplication *app,
                        PdWindow      *window,
                        gpointer       user_data)
{
  int width = 0;
  int height = 0;

  gtk_window_get_default_size (GTK_WINDOW (window), &width, &height);
  g_assert_cmpint (width, ==, 800);
  g_assert_cmpint (height, ==, 600);

  gtk_window_set_default_size (GTK_WINDOW (window), 840, 620);
}

static void
test_window_size_remembered (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);

  pd_test_reset_settings ();
  g_settings_set_int (settings, "window-width", 800);
  g_settings_set_int (settings, "window-height", 600);

  g_assert_cmpint (pd_test_run_app (NULL, check_size_then_resize, NULL, NULL), ==, 0);

  /* Closing the window stored its last size. */
  g_assert_cmpint (g_settings_get_int (settings, "window-width"), ==, 840);
  g_assert_cmpint (g_settings_get_int (settings, "window-height"), ==, 620);
  g_assert_false (g_settings_get_boolean (settings, "window-maximized"));
}

static void
check_shrink_below_schema (PdApplication *app,
                           PdWindow      *window,
                           gpointer       user_data)
{
  gtk_window_set_default_size (GTK_WINDOW (window), 100, 100);
}

static void
test_window_size_out_of_range_not_stored (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);

  pd_test_reset_settings ();
  g_settings_set_int (settings, "window-width", 800);
  g_settings_set_int (settings, "window-height", 600);

  /* Storing 100×100 would be refused by the schema with a critical. */
  g_assert_cmpint (pd_test_run_app (NULL, check_shrink_below_schema, NULL, NULL), ==, 0);

  g_assert_cmpint (g_settings_get_int (settings, "window-width"), ==, 800);
  g_assert_cmpint (g_settings_get_int (settings, "window-height"), ==, 600);
}

/* --- a narrow window --------------------------------------------------- */

static void
check_narrow (PdApplication *app,
              PdWindow      *window,
              gpointer       user_data)
{
  AdwLeaflet *leaflet = ADW_LEAFLET (pd_test_find_widget (GTK_WIDGET (window),
                                                          ADW_TYPE_LEAFLET));
  GtkWidget *status = pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_STATUS_PAGE);
  GtkWidget *sidebar_label = pd_test_find_label (GTK_WIDGET (window), "No sessions");

  g_assert_nonnull (leaflet);
  g_assert_nonnull (sidebar_label);

  /* Folded, the empty state is what a person sees first. */
  g_assert_true (adw_leaflet_get_folded (leaflet));
  g_assert_cmpstr (adw_leaflet_get_visible_child_name (leaflet), ==, "content");
  g_assert_true (gtk_widget_get_mapped (status));

  /* The back button leads to the session list. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sessions", NULL);
  g_assert_cmpstr (adw_leaflet_get_visible_child_name (leaflet), ==, "sidebar");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (gtk_widget_get_mapped (sidebar_label));
}

static void
check_wide (PdApplication *app,
            PdWindow      *window,
            gpointer       user_data)
{
  AdwLeaflet *leaflet = ADW_LEAFLET (pd_test_find_widget (GTK_WIDGET (window),
                                                          ADW_TYPE_LEAFLET));

  g_assert_false (adw_leaflet_get_folded (leaflet));
  g_assert_true (gtk_widget_get_mapped (pd_test_find_label (GTK_WIDGET (window),
                                                            "No sessions")));
  g_assert_true (gtk_widget_get_mapped (pd_test_find_widget (GTK_WIDGET (window),
                                                             ADW_TYPE_STATUS_PAGE)));
}

static void
test_window_narrow_and_wide (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);

  pd_test_reset_settings ();
  g_settings_set_int (settings, "window-width", 360);
  g_settings_set_int (settings, "window-height", 640);
  g_assert_cmpint (pd_test_run_app (NULL, check_narrow, NULL, NULL), ==, 0);

  pd_test_reset_settings ();
  g_settings_set_int (settings, "window-width", 1000);
  g_settings_set_int (settings, "window-height", 700);
  g_assert_cmpint (pd_test_run_app (NULL, check_wide, NULL, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/pd/ui/window/empty-state", test_window_empty_state);
  g_test_add_func ("/pd/ui/window/title-names-database", test_window_title_names_database);
  g_test_add_func ("/pd/ui/window/relative-database", test_window_relative_database);
  g_test_add_func ("/pd/ui/window/default-database", test_window_default_database);
  g_test_add_func ("/pd/ui/window/remote", test_window_remote);
  g_test_add_func ("/pd/ui/window/demo-not-available", test_window_demo_says_not_available);
  g_test_add_func ("/pd/ui/window/actions", test_window_actions);
  g_test_add_func ("/pd/ui/window/size-remembered", test_window_size_remembered);
  g_test_add_func ("/pd/ui/window/size-out-of-range-not-stored",
                   test_window_size_out_of_range_not_stored);
  g_test_add_func ("/pd/ui/window/narrow-and-wide", test_window_narrow_and_wide);
  g_test_add_func ("/pd/ui/app/rejects-bad-command-lines", test_app_rejects_bad_command_lines);

  return g_test_run ();
}
