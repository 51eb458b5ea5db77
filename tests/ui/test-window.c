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

#include "pd-now-view.h"
#include "pd-session-list.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

/* The title of the main area's header bar: the view switcher's title. */
static AdwViewSwitcherTitle *
content_window_title (PdWindow *window)
{
  GtkWidget *title = pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_SWITCHER_TITLE);

  g_assert_nonnull (title);

  return ADW_VIEW_SWITCHER_TITLE (title);
}

static gboolean
window_settled (gpointer data)
{
  PdWindow *window = data;
  GtkWidget *views = pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK);
  /* The view stack is on the "session" page of the main area's stack. */
  GtkStack *pages = GTK_STACK (gtk_widget_get_ancestor (views, GTK_TYPE_STACK));

  return g_strcmp0 (gtk_stack_get_visible_child_name (pages), "loading") != 0;
}

/* Waits until the window shows more than its loading page, then draws it. */
static void
wait_settled (PdWindow *window)
{
  pd_test_wait_until (window_settled, window, "the window to load its source");
  pd_test_flush (GTK_WIDGET (window));
}

static GtkWidget *
status_page_titled (PdWindow   *window,
                    const char *title)
{
  GtkWidget *label = pd_test_find_label (GTK_WIDGET (window), title);

  g_assert_nonnull (label);

  return gtk_widget_get_ancestor (label, ADW_TYPE_STATUS_PAGE);
}

static void
assert_title_names (PdWindow   *window,
                    const char *source)
{
  AdwViewSwitcherTitle *title = content_window_title (window);

  g_assert_cmpstr (adw_view_switcher_title_get_subtitle (title), ==, source);
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
  GtkWidget *status;
  GtkWidget *title;
  GtkWidget *demo;

  wait_settled (window);
  status = status_page_titled (window, "No Sessions Yet");
  g_assert_nonnull (status);
  g_assert_true (gtk_widget_get_mapped (status));
  g_assert_cmpstr (adw_status_page_get_title (ADW_STATUS_PAGE (status)), ==, "No Sessions Yet");

  title = pd_test_find_label (status, "No Sessions Yet");
  g_assert_nonnull (title);
  g_assert_true (gtk_widget_get_mapped (title));
  g_assert_nonnull (strstr (adw_status_page_get_description (ADW_STATUS_PAGE (status)),
                            "appear here"));

  /* A newcomer can see the app at work: the demo, or a session of their own. */
  demo = gtk_widget_get_parent (pd_test_find_label (status, "Open Demo"));
  g_assert_true (GTK_IS_BUTTON (demo));
  g_assert_true (gtk_widget_is_sensitive (demo));
  g_assert_true (gtk_widget_is_sensitive (gtk_widget_get_parent (pd_test_find_label (status, "Start a Session…"))));
  g_assert_true (gtk_widget_is_sensitive (gtk_widget_get_parent (pd_test_find_label (status, "Open Database…"))));
}

static void
test_window_empty_state (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  const char *args[] = { "--db", db, NULL };
  gboolean saw_window = FALSE;

  g_object_unref (pd_test_open_store (db));   /* an empty database */
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
  GtkWindow *endpoint;

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
  {
    g_auto(GStrv) search_accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.search");
    g_auto(GStrv) now_accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.show-now");

    g_assert_true (strv_has (search_accels, "<Control>f"));
    /* Alt+1 shows the Now page; Ctrl+. did too, and in the shortcuts
     * window it looked the same as Ctrl+, (Preferences). */
    g_assert_true (now_accels == NULL || now_accels[0] == NULL);
  }
  {
    g_auto(GStrv) new_accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.new-session");
    g_auto(GStrv) prefs_accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.preferences");

    g_assert_true (strv_has (new_accels, "<Control>n"));
    g_assert_true (strv_has (prefs_accels, "<Control>comma"));
  }

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
  pd_test_destroy_window (about, NULL);

  /* Connect to Endpoint asks for an address; closed (Escape), it is gone. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.connect-endpoint", NULL));
  endpoint = pd_test_find_toplevel (ADW_TYPE_MESSAGE_DIALOG);
  g_assert_nonnull (endpoint);
  g_assert_cmpstr (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (endpoint)), ==, "Connect to Endpoint");
  g_object_ref (endpoint);
  gtk_window_close (endpoint);
  pd_test_assert_finalized (endpoint);
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
  GtkWidget *status;
  GtkWidget *sidebar_label = pd_test_find_label (GTK_WIDGET (window), "No Sessions");

  wait_settled (window);
  status = status_page_titled (window, "No Sessions Yet");

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

  wait_settled (window);
  g_assert_false (adw_leaflet_get_folded (leaflet));
  g_assert_true (gtk_widget_get_mapped (pd_test_find_label (GTK_WIDGET (window),
                                                            "No Sessions")));
  g_assert_true (gtk_widget_get_mapped (status_page_titled (window, "No Sessions Yet")));
}

static void
test_window_narrow_and_wide (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  /* An empty database of its own: the default one is the person's, and may
   * hold anything (or a newer schema). */
  const char *args[] = { "--db", db, NULL };

  g_object_unref (pd_test_open_store (db));

  pd_test_reset_settings ();
  g_settings_set_int (settings, "window-width", 360);
  g_settings_set_int (settings, "window-height", 640);
  g_assert_cmpint (pd_test_run_app (args, check_narrow, NULL, NULL), ==, 0);

  pd_test_reset_settings ();
  g_settings_set_int (settings, "window-width", 1000);
  g_settings_set_int (settings, "window-height", 700);
  g_assert_cmpint (pd_test_run_app (args, check_wide, NULL, NULL), ==, 0);
}

/* --- sources that cannot be read --------------------------------------- */

static void
check_error_page (PdApplication *app,
                  PdWindow      *window,
                  gpointer       user_data)
{
  const char *title = user_data;
  GtkWidget *status;

  wait_settled (window);
  status = status_page_titled (window, title);
  g_assert_nonnull (status);
  g_assert_true (gtk_widget_get_mapped (status));
  g_assert_nonnull (adw_status_page_get_description (ADW_STATUS_PAGE (status)));
  /* Every error page can be tried again. */
  g_assert_true (gtk_widget_get_mapped (pd_test_find_action_button (status, "win.retry")));
  /* Nothing could be run into a database that does not open. */
  g_assert_false (gtk_widget_get_sensitive (pd_test_find_action_button (GTK_WIDGET (window), "win.new-session")));
}

static void
test_window_missing_database (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "nowhere.db", NULL);
  const char *args[] = { "--db", db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_error_page, (gpointer) "No Database Here", NULL), ==, 0);
  /* A named database is never created behind the user's back. */
  g_assert_false (g_file_test (db, G_FILE_TEST_EXISTS));
}

static void
test_window_corrupt_database (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "garbage.db", NULL);
  const char *args[] = { "--db", db, NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *junk = g_strnfill (8192, 'x');

  g_file_set_contents (db, junk, -1, &error);
  g_assert_no_error (error);

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_error_page, (gpointer) "Cannot Open This Database", NULL), ==, 0);
}

static GtkWidget *
new_session_button (PdWindow *window)
{
  GtkWidget *button = pd_test_find_action_button (GTK_WIDGET (window), "win.new-session");

  g_assert_nonnull (button);
  return button;
}

static gboolean
still_unreachable_said (gpointer window)
{
  return pd_test_count_shown_labels (window, "Still cannot reach the endpoint", FALSE) == 1;
}

static void
check_remote_page (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  const char *title = user_data;
  GtkWidget *status;

  wait_settled (window);
  status = status_page_titled (window, title);
  g_assert_true (gtk_widget_get_mapped (status));
  /* The way out is another endpoint, not another database; or trying again. */
  g_assert_nonnull (pd_test_find_label (status, "Connect to Endpoint…"));
  g_assert_nonnull (pd_test_find_action_button (status, "win.retry"));
  g_assert_true (gtk_widget_get_mapped (pd_test_find_action_button (status, "win.retry")));
  /* A refused connection says so, token or not. */
  g_assert_nonnull (strstr (adw_status_page_get_description (ADW_STATUS_PAGE (status)), "connection was refused"));
  /* Said once: the connection banner does not say it again over the page
   * (tried as a new user would: two messages and two Retry buttons). */
  g_assert_cmpuint (pd_test_count_shown_labels (GTK_WIDGET (window), "connection was refused", FALSE), ==, 1);
  g_assert_cmpuint (pd_test_count_shown_labels (GTK_WIDGET (window), "Retry", FALSE), ==, 1);
  /* The sidebar's New Session button follows its action. */
  g_assert_false (gtk_widget_get_sensitive (new_session_button (window)));

  /* Retry says it is trying, then what came of it (a refused connection
   * fails at once with the same words: the page did not change, and Retry
   * looked dead, tried as a new user would). */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.retry", NULL);
  g_assert_cmpuint (pd_test_count_shown_labels (GTK_WIDGET (window), "Connecting…", FALSE), ==, 1);
  g_assert_false (gtk_widget_get_sensitive (pd_test_find_action_button (status, "win.retry")));
  pd_test_wait_until (still_unreachable_said, window, "the retry's answer");
  g_assert_cmpuint (pd_test_count_shown_labels (GTK_WIDGET (window), "Connecting…", FALSE), ==, 0);
  g_assert_true (gtk_widget_get_sensitive (pd_test_find_action_button (status, "win.retry")));
  g_assert_true (gtk_widget_get_mapped (status));
  pd_test_screenshot_sizes (GTK_WINDOW (window), "remote-retry-answered");
}

static void
test_window_remote_refused (void)
{
  /* Nothing listens on the discard port: the connection is refused. */
  const char *args[] = { "--remote", "http://127.0.0.1:9/?token=secret", NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_remote_page, (gpointer) "Cannot Reach the Endpoint", NULL), ==, 0);
}

static void
test_window_remote_no_token (void)
{
  /* No token and nobody there: that nobody is there is what matters. */
  const char *args[] = { "--remote", "http://127.0.0.1:9", NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_remote_page, (gpointer) "Cannot Reach the Endpoint", NULL), ==, 0);
}

/* --- sessions ------------------------------------------------------------ */

static gboolean
now_header_shown (gpointer data)
{
  GtkWidget *label = pd_test_find_label (data, "Plan — v4 · 1/4 done · 1 blocked");

  return label != NULL && gtk_widget_get_mapped (label);
}

/* On GTK 4.8 a spinning spinner that is not shown keeps its animation
 * going: the window's "Reading the Sessions" spinner and the hidden
 * Transcript and Events views' loading spinners kept an idle window
 * drawing about 60 frames a second (2.2–2.7 % of a core). */
static void
assert_no_hidden_spinner (GtkWidget *root)
{
  g_autoptr(GPtrArray) spinners = g_ptr_array_new ();

  pd_test_collect (root, GTK_TYPE_SPINNER, spinners);
  for (guint i = 0; i < spinners->len; i++)
    if (gtk_spinner_get_spinning (spinners->pdata[i]))
      g_assert_true (gtk_widget_get_mapped (spinners->pdata[i]));
}

static void
check_sessions (PdApplication *app,
                PdWindow      *window,
                gpointer       user_data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  AdwViewStack *views = ADW_VIEW_STACK (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK));
  AdwViewSwitcherTitle *title = content_window_title (window);
  GtkSearchBar *search_bar = GTK_SEARCH_BAR (pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_SEARCH_BAR));
  PdSessionItem *selected;

  wait_settled (window);

  /* Six sessions; the pinned running one is first and shown. */
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (list))), ==, 6);
  selected = pd_session_list_get_selected_item (list);
  g_assert_nonnull (selected);
  g_assert_true (pd_session_item_get_pinned (selected));
  g_assert_true (pd_session_item_get_running (selected));
  {
    /* Anyone's text in the header: isolated, as the rows show it. */
    g_autofree char *isolated = g_strconcat ("\xe2\x81\xa8", pd_session_item_get_title (selected),
                                             "\xe2\x81\xa9", NULL);

    g_assert_cmpstr (adw_view_switcher_title_get_title (title), ==, isolated);
  }
  g_assert_true (adw_view_switcher_title_get_view_switcher_enabled (title));

  /* The Now page, with the live plan, polled every second for a running session. */
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (views), ==, "now");
  pd_test_wait_until (now_header_shown, window, "the plan header");
  assert_no_hidden_spinner (GTK_WIDGET (window));

  /* The other pages are there for the next views to fill. */
  adw_view_stack_set_visible_child_name (views, "history");
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (views), ==, "history");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-now", NULL);
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (views), ==, "now");
  pd_test_flush (GTK_WIDGET (window));
  assert_no_hidden_spinner (GTK_WIDGET (window));

  /* Ctrl+F opens the search. */
  g_assert_false (gtk_search_bar_get_search_mode (search_bar));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.search", NULL);
  g_assert_true (gtk_search_bar_get_search_mode (search_bar));
}

static void
test_window_sessions (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_sessions, NULL), ==, 0);
}

/* --- one window's dialog blocks that window only ----------------------- */

typedef struct
{
  guint main_presses;
  guint dialog_presses;
} Presses;

static void
on_main_pressed (GtkGestureClick *gesture,
                 int              n_press,
                 double           x,
                 double           y,
                 Presses         *presses)
{
  presses->main_presses++;
}

static void
on_dialog_pressed (GtkGestureClick *gesture,
                   int              n_press,
                   double           x,
                   double           y,
                   Presses         *presses)
{
  presses->dialog_presses++;
}

static gboolean
dialog_pressed (gpointer data)
{
  Presses *presses = data;

  return presses->dialog_presses > 0;
}

static void
watch_presses (GtkWidget *window,
               GCallback  callback,
               Presses   *presses)
{
  GtkGesture *gesture = gtk_gesture_click_new ();

  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (gesture), GTK_PHASE_CAPTURE);
  g_signal_connect (gesture, "pressed", callback, presses);
  gtk_widget_add_controller (window, GTK_EVENT_CONTROLLER (gesture));
}

/* A second window (plandeck --db OTHER) with a modal dialog open (Connect to
 * Endpoint, as the approval of a run there): the first window still takes
 * clicks, real ones through the X server.  Every window was in GTK's one
 * default window group, where a modal window's grab blocks every window
 * (tried as a new user would: one window's approval froze the other). */
static void
check_dialog_blocks_own_window (PdApplication *app,
                                PdWindow      *window,
                                gpointer       user_data)
{
  const char *other_db = user_data;
  g_autoptr(PdWindow) other = NULL;
  GtkWindow *dialog;
  Presses presses = { 0, 0 };

  other = g_object_ref_sink (pd_window_new (GTK_APPLICATION (app), other_db, NULL, TRUE));
  gtk_window_set_default_size (GTK_WINDOW (other), 360, 300);
  gtk_window_present (GTK_WINDOW (other));
  pd_test_flush (GTK_WIDGET (other));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (other), "win.connect-endpoint", NULL));
  dialog = pd_test_find_toplevel (ADW_TYPE_MESSAGE_DIALOG);
  g_assert_nonnull (dialog);
  g_assert_true (gtk_window_get_modal (dialog));
  g_assert_true (gtk_window_get_transient_for (dialog) == GTK_WINDOW (other));
  pd_test_flush (GTK_WIDGET (dialog));

  /* Each window its own group, the dialog in its window's. */
  g_assert_true (gtk_window_has_group (GTK_WINDOW (window)));
  g_assert_true (gtk_window_has_group (GTK_WINDOW (other)));
  g_assert_true (gtk_window_get_group (GTK_WINDOW (window)) != gtk_window_get_group (GTK_WINDOW (other)));
  g_assert_true (gtk_window_get_group (dialog) == gtk_window_get_group (GTK_WINDOW (other)));

  watch_presses (GTK_WIDGET (window), G_CALLBACK (on_main_pressed), &presses);
  watch_presses (GTK_WIDGET (dialog), G_CALLBACK (on_dialog_pressed), &presses);
  /* The first window's bottom right corner, where neither the second window
   * nor its dialog lies; then the dialog, whose press comes after. */
  if (!pd_test_x11_click (GTK_WIDGET (window), gtk_widget_get_width (GTK_WIDGET (window)) - 30,
                          gtk_widget_get_height (GTK_WIDGET (window)) - 30, 1))
    {
      g_test_skip ("no xdotool on X11: the real click is not tried");
    }
  else
    {
      g_assert_true (pd_test_x11_click (GTK_WIDGET (dialog), 10, 10, 1));
      pd_test_wait_until (dialog_pressed, &presses, "the dialog to take its click");
      g_assert_cmpuint (presses.main_presses, ==, 1);
    }

  gtk_window_close (dialog);
  gtk_window_destroy (GTK_WINDOW (other));
}

static void
test_window_dialog_blocks_own_window (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "main.db", NULL);
  g_autofree char *other_db = g_build_filename (dir, "other.db", NULL);
  const char *args[] = { "--db", db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_dialog_blocks_own_window, other_db, NULL), ==, 0);
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
  g_test_add_func ("/pd/ui/window/actions", test_window_actions);
  g_test_add_func ("/pd/ui/window/size-remembered", test_window_size_remembered);
  g_test_add_func ("/pd/ui/window/size-out-of-range-not-stored",
                   test_window_size_out_of_range_not_stored);
  g_test_add_func ("/pd/ui/window/narrow-and-wide", test_window_narrow_and_wide);
  g_test_add_func ("/pd/ui/app/rejects-bad-command-lines", test_app_rejects_bad_command_lines);
  g_test_add_func ("/pd/ui/window/missing-database", test_window_missing_database);
  g_test_add_func ("/pd/ui/window/corrupt-database", test_window_corrupt_database);
  g_test_add_func ("/pd/ui/window/remote-refused", test_window_remote_refused);
  g_test_add_func ("/pd/ui/window/remote-no-token", test_window_remote_no_token);
  g_test_add_func ("/pd/ui/window/sessions", test_window_sessions);
  g_test_add_func ("/pd/ui/window/dialog-blocks-own-window", test_window_dialog_blocks_own_window);

  return g_test_run ();
}
