/* test-search-sources.c: a search with one of several sources chosen
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The real application's default window, this computer's database beside
 * a second source (another database, as an endpoint joins the window's
 * sources).  Tried as a new user would: with This Computer chosen, a
 * search said "No Matching Sessions" while the other source held the
 * session.  The list now names where the matches are; "No Matching
 * Sessions" is said when no source has any.
 */
#define G_LOG_DOMAIN "test-search-sources"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-preferences-window.h"
#include "pd-secrets.h"
#include "pd-session-list.h"
#include "pd-sources-page.h"
#include "pd-source-sidebar.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"
#include "pd-ui-util-private.h"
#include "pd-window-private.h"

static PdSessionList *
session_list (PdWindow *window)
{
  return PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
}

typedef struct
{
  PdWindow   *window;
  guint       n;
  const char *label;
} ListWait;

/* The list shows @n sessions and, when set, a mapped label @label. */
static gboolean
listed (gpointer data)
{
  ListWait *wait = data;
  PdSessionList *list = session_list (wait->window);

  return pd_session_list_get_loaded (list) && !pd_session_list_get_busy (list) &&
         g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (list))) == wait->n &&
         (wait->label == NULL || pd_test_find_mapped_label (GTK_WIDGET (list), wait->label) != NULL);
}

static void
wait_listed (PdWindow   *window,
             guint       n,
             const char *label,
             const char *what)
{
  ListWait wait = { window, n, label };

  pd_test_wait_until (listed, &wait, what);
}

static PdWindow *page_window;

/* The page beside the list (no session open, a search; shown when the
 * Overview has no card) says @data. */
static gboolean
page_says (gpointer data)
{
  GtkWidget *page = gtk_stack_get_child_by_name (page_window->content_stack, "no-results");

  return _pd_window_describe_search (page_window) &&
         g_strcmp0 (adw_status_page_get_description (ADW_STATUS_PAGE (page)), data) == 0;
}

static void
check_search (PdApplication *app,
              PdWindow      *window,
              gpointer       user_data)
{
  const char *other_db = user_data;
  GListModel *sources = _pd_window_get_sources (window);
  PdSourceSidebar *sidebar = PD_SOURCE_SIDEBAR (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SOURCE_SIDEBAR));
  g_autoptr(PdLocalSource) other = pd_local_source_new (other_db, FALSE);
  g_autoptr(PdSource) local = g_list_model_get_item (sources, 0);
  PdSessionList *list = session_list (window);

  page_window = window;
  /* A second source joins, as an endpoint does. */
  pd_source_list_append (PD_SOURCE_LIST (sources), PD_SOURCE (other), "e1", "Build box");
  wait_listed (window, 3, "Tidy the build box", "both sources' sessions");

  /* This Computer chosen, a search that only the other source matches:
   * not "No Matching Sessions", but where the match is. */
  pd_source_sidebar_select (sidebar, local);
  wait_listed (window, 2, "Add a --json flag to sessions list", "this computer's sessions alone");
  pd_session_list_set_query (list, "tidy", FALSE);
  wait_listed (window, 0, "Found in \342\201\250Build box\342\201\251: choose All Sources to see them",
               "the list saying where the search found sessions");
  g_assert_null (pd_test_find_mapped_label (GTK_WIDGET (list), "No Matching Sessions"));
  /* The page beside the list says the same (it said "No Matching
   * Sessions", tried as a new user would). */
  pd_test_wait_until (page_says, (gpointer) "Found in \342\201\250Build box\342\201\251: choose All Sources to see them.",
                      "the page saying where the search found sessions");
  pd_test_screenshot (GTK_WIDGET (window), "search-found-elsewhere");

  /* A word no source has: said so. */
  pd_session_list_set_query (list, "nowhere-at-all", FALSE);
  wait_listed (window, 0, "No Matching Sessions", "no source matching");

  /* A word this computer has: its match, nothing else said. */
  pd_session_list_set_query (list, "json", FALSE);
  wait_listed (window, 1, "Add a --json flag to sessions list", "this computer's match");

  /* The other source chosen, a word only this computer has. */
  pd_source_sidebar_select (sidebar, PD_SOURCE (other));
  wait_listed (window, 0, "Found in \342\201\250This Computer\342\201\251: choose All Sources to see them",
               "the other source naming this computer");

  /* All sources: the match, and the page beside it says so. */
  pd_source_sidebar_select (sidebar, NULL);
  wait_listed (window, 1, "Add a --json flag to sessions list", "the match of all sources");
  pd_test_wait_until (page_says, (gpointer) "1 session matches: choose it in the list.", "the page counting the match");
  pd_session_list_set_query (list, NULL, FALSE);
  wait_listed (window, 3, NULL, "every session again");
  g_assert_true (pd_source_list_remove (PD_SOURCE_LIST (sources), "e1"));
}

static void
test_search_sources (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *other_db = g_build_filename (dir, "other.db", NULL);
  g_autofree char *data_dir = g_build_filename (g_get_user_data_dir (), "plandeck", NULL);
  g_autofree char *local_db = g_build_filename (data_dir, "sessions.db", NULL);

  g_assert_cmpint (g_mkdir_with_parents (data_dir, 0700), ==, 0);
  /* A database of this run's own (the test's data folder is kept). */
  for (guint i = 0; i < 3; i++)
    {
      const char *suffix[] = { "", "-wal", "-shm" };
      g_autofree char *path = g_strconcat (local_db, suffix[i], NULL);

      g_remove (path);
    }
  {
    g_autoptr(PdSessionStore) store = pd_test_open_store (local_db);
    g_autoptr(PdSessionStore) remote = pd_test_open_store (other_db);

    g_free (pd_test_add_session (store, "Add a --json flag to sessions list", "plandeck"));
    g_free (pd_test_add_session (store, "Explain the event bus", "plandeck"));
    g_free (pd_test_add_session (remote, "Tidy the build box", "plandeck"));
  }
  pd_test_reset_settings ();
  /* The two databases' sessions alone: no other agent's read at start. */
  {
    g_autoptr(GSettings) settings = g_settings_new ("io.github.plandeck.Plandeck");

    g_settings_set_boolean (settings, "read-agent-sessions-at-start", FALSE);
  }
  g_assert_cmpint (pd_test_run_app (NULL, check_search, other_db, NULL), ==, 0);
  pd_test_reset_settings ();
}

/* --- the sidebar's width ------------------------------------------------- */

/* The width of the leaflet's sidebar page, as drawn. */
static int
sidebar_width (PdWindow *window)
{
  GtkWidget *box = gtk_widget_get_parent (GTK_WIDGET (session_list (window)));
  GtkWidget *leaflet = gtk_widget_get_ancestor (box, ADW_TYPE_LEAFLET);

  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (100);
  pd_test_flush (GTK_WIDGET (window));
  while (gtk_widget_get_parent (box) != leaflet)
    box = gtk_widget_get_parent (box);
  return gtk_widget_get_width (box);
}

/* The sidebar is as wide whatever source is chosen and whatever it says:
 * with This Computer chosen and a search that found sessions elsewhere, it
 * grew to hold "Found in Build box: choose All Sources to see them" on one
 * line, and went back (tried as a new user would). */
static void
check_sidebar_width (PdApplication *app,
                     PdWindow      *window,
                     gpointer       user_data)
{
  const char *other_db = user_data;
  GListModel *sources = _pd_window_get_sources (window);
  PdSourceSidebar *sidebar = PD_SOURCE_SIDEBAR (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SOURCE_SIDEBAR));
  g_autoptr(PdLocalSource) other = pd_local_source_new (other_db, FALSE);
  g_autoptr(PdSource) local = g_list_model_get_item (sources, 0);
  PdSessionList *list = session_list (window);
  int all, mine, found, theirs;

  pd_source_list_append (PD_SOURCE_LIST (sources), PD_SOURCE (other), "e1", "Build box");
  wait_listed (window, 2, "Fix it", "both sources' sessions");
  all = sidebar_width (window);
  pd_source_sidebar_select (sidebar, local);
  wait_listed (window, 1, "Fix it", "this computer's session");
  mine = sidebar_width (window);
  pd_session_list_set_query (list, "Refactor", FALSE);
  wait_listed (window, 0, "Found in \342\201\250Build box\342\201\251: choose All Sources to see them",
               "the list saying where the search found sessions");
  found = sidebar_width (window);
  pd_test_screenshot_sizes (GTK_WINDOW (window), "sidebar-width-found-elsewhere");
  pd_session_list_set_query (list, NULL, FALSE);
  pd_source_sidebar_select (sidebar, PD_SOURCE (other));
  wait_listed (window, 1, NULL, "the other source's session");
  theirs = sidebar_width (window);
  pd_test_screenshot (GTK_WIDGET (window), "sidebar-width-build-box");
  g_test_message ("sidebar: all sources %d px, this computer %d px, a search found elsewhere %d px, Build box %d px",
                  all, mine, found, theirs);
  g_assert_cmpint (mine, ==, all);
  g_assert_cmpint (found, ==, all);
  g_assert_cmpint (theirs, ==, all);
  pd_source_sidebar_select (sidebar, NULL);
  g_assert_true (pd_source_list_remove (PD_SOURCE_LIST (sources), "e1"));
}

static void
test_sidebar_width (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *other_db = g_build_filename (dir, "other.db", NULL);
  g_autofree char *data_dir = g_build_filename (g_get_user_data_dir (), "plandeck", NULL);
  g_autofree char *local_db = g_build_filename (data_dir, "sessions.db", NULL);
  g_autoptr(GSettings) settings = g_settings_new ("io.github.plandeck.Plandeck");

  g_assert_cmpint (g_mkdir_with_parents (data_dir, 0700), ==, 0);
  for (guint i = 0; i < 3; i++)
    {
      const char *suffix[] = { "", "-wal", "-shm" };
      g_autofree char *path = g_strconcat (local_db, suffix[i], NULL);

      g_remove (path);
    }
  {
    g_autoptr(PdSessionStore) store = pd_test_open_store (local_db);
    g_autoptr(PdSessionStore) remote = pd_test_open_store (other_db);

    g_free (pd_test_add_session (store, "Fix it", "plandeck"));
    g_free (pd_test_add_session (remote, "Refactor packages/renderer/src/components/timeline/"
                                         "TimelineTrackHeaderContextMenuController.tsx", "plandeck"));
  }
  pd_test_reset_settings ();
  g_settings_set_boolean (settings, "read-agent-sessions-at-start", FALSE);
  g_settings_set_int (settings, "window-width", 1400);
  g_settings_set_int (settings, "window-height", 700);
  g_assert_cmpint (pd_test_run_app (NULL, check_sidebar_width, other_db, NULL), ==, 0);
  pd_test_reset_settings ();
}

/* --- an endpoint that refused its token, then took one ------------------- */

typedef struct
{
  GSubprocess *serve;
  char        *base;
  char        *token;
} Serve;

static void
serve_start (Serve      *serve,
             const char *db)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GUri) uri = NULL;
  g_autofree char *url = NULL;

  serve->serve = pd_test_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error,
                                g_getenv ("PLANDECK_AGENT"), "serve", "--db", db, "--listen", "127.0.0.1:0",
                                "--rate-limit", "0", NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (serve->serve));
  url = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (url);
  uri = g_uri_parse (url, G_URI_FLAGS_NONE, &error);
  g_assert_no_error (error);
  serve->base = g_strdup_printf ("http://%s:%d", g_uri_get_host (uri), g_uri_get_port (uri));
  g_free (pd_window_split_endpoint_url (url, &serve->token));
  g_assert_nonnull (serve->token);
}

static void
serve_stop (Serve *serve)
{
  g_subprocess_force_exit (serve->serve);
  g_subprocess_wait (serve->serve, NULL, NULL);
  g_clear_object (&serve->serve);
  pd_secrets_keep_for_session (serve->base, NULL);
  g_clear_pointer (&serve->base, g_free);
  g_clear_pointer (&serve->token, g_free);
}

typedef struct
{
  PdWindow   *window;
  const char *label;
  const char *note;   /* a part of the note over the list, or NULL: none */
} NoteWait;

static gboolean
note_is (gpointer data)
{
  NoteWait *wait = data;
  PdSessionList *list = session_list (wait->window);
  GtkWidget *note = pd_test_find_label_containing (GTK_WIDGET (list), "Not searched: ");
  gboolean shown = note != NULL && gtk_widget_get_mapped (note);

  if (!pd_session_list_get_loaded (list) || pd_session_list_get_busy (list) ||
      pd_test_find_mapped_label (GTK_WIDGET (list), wait->label) == NULL)
    return FALSE;
  if (wait->note == NULL)
    return !shown;
  return shown && strstr (gtk_label_get_text (GTK_LABEL (note)), wait->note) != NULL;
}

/* A search with an endpoint that refuses its token names it, "Not
 * searched: Build box (Token refused)"; the right token given, the search
 * runs again there: its match comes, and the note goes.  It kept saying
 * "Token refused" of an endpoint that answered (tried as a new user
 * would). */
static void
check_token_fixed (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  Serve *serve = user_data;
  PdSessionList *list = session_list (window);
  NoteWait wait = { window, "Add a --json flag to sessions list", "Token refused" };

  pd_session_list_set_query (list, "a", FALSE);
  pd_test_wait_until (note_is, &wait, "the endpoint named, not searched: its token refused");
  pd_test_screenshot (GTK_WIDGET (window), "search-token-refused");
  /* As the endpoint page's Connect gives it: the token, then the list
   * read again at once (the listing the token began is cancelled). */
  g_assert_true (pd_window_set_endpoint_token (window, serve->base, serve->token));
  pd_session_list_refresh (list);
  wait.label = "Tidy the build box";
  wait.note = NULL;
  pd_test_wait_until (note_is, &wait, "the endpoint's match, no note, once it took its token");
  /* And it stays so: no late word of a listing left off says otherwise. */
  pd_test_spin (1500);
  g_assert_true (note_is (&wait));
  pd_session_list_set_query (list, NULL, FALSE);
}

static gboolean
is_endpoint_row (GtkWidget     *widget,
                 gconstpointer  url)
{
  return ADW_IS_EXPANDER_ROW (widget) && g_strcmp0 (g_object_get_data (G_OBJECT (widget), "pd-source-url"), url) == 0;
}

static gboolean
token_entry_shown (gpointer data)
{
  GtkWidget *entry = g_object_get_data (G_OBJECT (data), "pd-endpoint-token");

  return entry != NULL && gtk_widget_get_mapped (entry);
}

/* The same with that endpoint chosen in the sidebar: its page gives the
 * token (Connect, or Preferences' New Token), the endpoint lists its
 * match, and the note of the search over all sources goes.  It stayed,
 * "Not searched: Build box (Token refused)" over Build box's own match,
 * until another source was chosen (tried as a new user would). */
static void
check_token_fixed_chosen (PdApplication *app,
                          PdWindow      *window,
                          gpointer       user_data)
{
  Serve *serve = user_data;
  PdSessionList *list = session_list (window);
  PdSourceSidebar *sidebar = PD_SOURCE_SIDEBAR (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SOURCE_SIDEBAR));
  GListModel *sources = _pd_window_get_sources (window);
  g_autoptr(PdSource) endpoint = NULL;
  NoteWait wait = { window, "Add a --json flag to sessions list", "Token refused" };

  pd_session_list_set_query (list, "a", FALSE);
  pd_test_wait_until (note_is, &wait, "the endpoint named, not searched: its token refused");
  for (guint i = 0; i < g_list_model_get_n_items (sources) && endpoint == NULL; i++)
    {
      g_autoptr(PdSource) source = g_list_model_get_item (sources, i);

      if (PD_IS_REMOTE_SOURCE (source))
        endpoint = g_steal_pointer (&source);
    }
  g_assert_nonnull (endpoint);
  pd_source_sidebar_select (sidebar, endpoint);
  pd_test_wait_until (token_entry_shown, window, "the endpoint's page with its token entry");
  pd_test_flush (GTK_WIDGET (window));
  /* Its entry takes the page's width for a token as `serve` prints it: it
   * was ~170 px, a few characters in view (tried as a new user would). */
  {
    GtkWidget *entry = g_object_get_data (G_OBJECT (window), "pd-endpoint-token");

    g_assert_cmpint (gtk_widget_get_width (entry), >=, _pd_text_width (entry, 40));
  }
  pd_test_screenshot (GTK_WIDGET (window), "endpoint-token-entry");
  /* Edit in Preferences opens the endpoint's row, the focus in its New
   * Token: the row was closed, New Token out of sight (tried as a new
   * user would). */
  {
    GtkWidget *label = pd_test_find_mapped_label (GTK_WIDGET (window), "Edit in Preferences");
    GtkWindow *prefs;
    GtkWidget *row, *focus;

    g_assert_nonnull (label);
    g_signal_emit_by_name (gtk_widget_get_ancestor (label, GTK_TYPE_BUTTON), "clicked");
    prefs = pd_test_find_toplevel (PD_TYPE_PREFERENCES_WINDOW);
    g_assert_nonnull (prefs);
    pd_test_flush (GTK_WIDGET (prefs));
    row = pd_test_find_first (GTK_WIDGET (prefs), is_endpoint_row, serve->base);
    g_assert_nonnull (row);
    g_assert_true (adw_expander_row_get_expanded (ADW_EXPANDER_ROW (row)));
    focus = gtk_window_get_focus (prefs);
    g_assert_nonnull (focus);
    g_assert_true (focus == g_object_get_data (G_OBJECT (row), "pd-token-row") ||
                   gtk_widget_is_ancestor (focus, g_object_get_data (G_OBJECT (row), "pd-token-row")));
    pd_test_screenshot (GTK_WIDGET (prefs), "endpoint-edit-in-preferences");
    gtk_window_destroy (prefs);
  }
  g_assert_true (pd_window_set_endpoint_token (window, serve->base, serve->token));
  pd_session_list_refresh (list);
  wait.label = "Tidy the build box";
  wait.note = NULL;
  pd_test_wait_until (note_is, &wait, "the chosen endpoint's match, no note, once it took its token");
  pd_test_spin (1500);
  g_assert_true (note_is (&wait));
  pd_test_screenshot (GTK_WIDGET (window), "search-token-fixed-chosen");
  pd_source_sidebar_select (sidebar, NULL);
  pd_session_list_set_query (list, NULL, FALSE);
}

static gboolean
endpoint_refused (gpointer url)
{
  return pd_windows_endpoint_refused (url);
}

static gboolean
unkept_said (gpointer data)
{
  g_autofree char *warning = pd_sources_dup_unkept_warning ();

  return warning != NULL && strstr (warning, data) != NULL;
}

/* A token the endpoint took but no keyring could keep (the tests have no
 * bus), refused since: Preferences said "It is used now" of it (tried as
 * a new user would, with serve started again with another token).  It
 * says the endpoint refused it. */
static void
check_unkept_refused (PdApplication *app,
                      PdWindow      *window,
                      gpointer       user_data)
{
  Serve *serve = user_data;
  PdSessionList *list = session_list (window);
  NoteWait wait = { window, "Tidy the build box", NULL };
  g_autofree char *warning = NULL;

  pd_sources_give_token (serve->base, serve->token);
  pd_session_list_refresh (list);
  pd_test_wait_until (note_is, &wait, "the endpoint's sessions with the token given");
  pd_test_wait_until (unkept_said, (gpointer) "It is used now", "the token said not kept, used now");
  g_assert_true (pd_window_set_endpoint_token (window, serve->base, "refused-since"));
  pd_session_list_refresh (list);
  pd_test_wait_until (endpoint_refused, serve->base, "the endpoint refusing its token");
  warning = pd_sources_dup_unkept_warning ();
  g_assert_nonnull (warning);
  g_assert_null (strstr (warning, "It is used now"));
  g_assert_nonnull (strstr (warning, "refused the token"));
}

static void
run_token_fixed (PdTestWindowFunc check)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *other_db = g_build_filename (dir, "endpoint.db", NULL);
  g_autofree char *data_dir = g_build_filename (g_get_user_data_dir (), "plandeck", NULL);
  g_autofree char *local_db = g_build_filename (data_dir, "sessions.db", NULL);
  g_autoptr(GSettings) settings = g_settings_new ("io.github.plandeck.Plandeck");
  GVariantBuilder builder;
  Serve serve = { 0 };

  g_assert_cmpint (g_mkdir_with_parents (data_dir, 0700), ==, 0);
  for (guint i = 0; i < 3; i++)
    {
      const char *suffix[] = { "", "-wal", "-shm" };
      g_autofree char *path = g_strconcat (local_db, suffix[i], NULL);

      g_remove (path);
    }
  {
    g_autoptr(PdSessionStore) store = pd_test_open_store (local_db);
    g_autoptr(PdSessionStore) remote = pd_test_open_store (other_db);

    g_free (pd_test_add_session (store, "Add a --json flag to sessions list", "plandeck"));
    g_free (pd_test_add_session (remote, "Tidy the build box", "plandeck"));
  }
  serve_start (&serve, other_db);
  pd_test_reset_settings ();
  g_settings_set_boolean (settings, "read-agent-sessions-at-start", FALSE);
  pd_secrets_keep_for_session (serve.base, "not-the-token");
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sss)"));
  g_variant_builder_add (&builder, "(sss)", "e1", "Build box", serve.base);
  g_settings_set_value (settings, "sources", g_variant_builder_end (&builder));
  g_assert_cmpint (pd_test_run_app (NULL, check, &serve, NULL), ==, 0);
  serve_stop (&serve);
  pd_test_reset_settings ();
}

static void
test_search_token_fixed (void)
{
  run_token_fixed (check_token_fixed);
}

static void
test_unkept_refused (void)
{
  run_token_fixed (check_unkept_refused);
}

static void
test_search_token_fixed_chosen (void)
{
  run_token_fixed (check_token_fixed_chosen);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/pd/ui/search-sources/found-elsewhere", test_search_sources);
  g_test_add_func ("/pd/ui/search-sources/token-fixed", test_search_token_fixed);
  g_test_add_func ("/pd/ui/search-sources/token-fixed-chosen", test_search_token_fixed_chosen);
  g_test_add_func ("/pd/ui/search-sources/unkept-refused", test_unkept_refused);
  g_test_add_func ("/pd/ui/search-sources/sidebar-width", test_sidebar_width);

  return g_test_run ();
}
