/* test-remote-token-window.c: a window on a serve endpoint that wants a token
 *
 * The real application opened with `--remote` on a real `serve`: a wrong
 * token said once, no token asked for in the banner (a wrong one kept in
 * the entry to be corrected, the right one taken), Preferences naming the
 * window's endpoint, and the endpoint's URL split from its token.  Split
 * from test-runs-remote.c, whose helpers (pd-test-runs.h) it shares.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-remote-token-window"

#include "config.h"

#include "pd-test-runs.h"

static gboolean
error_page_shown (gpointer data)
{
  GtkWidget *label = pd_test_find_label (data, "The Endpoint Refused Access");

  /* With the banner that takes the new token, over the page. */
  return label != NULL && gtk_widget_get_mapped (label) && pd_test_count_shown_labels (data, "The token is wrong or has changed", TRUE) == 1;
}

/* The banner's text is an alert, said by a screen reader as it shows
 * (tried with one: the refusal was never said), and the focus is in the
 * Token field (the window opened with it on the header's first button). */
static void
assert_banner_said (PdWindow   *window,
                    const char *text)
{
  GtkWidget *label = pd_test_find_label_containing (GTK_WIDGET (window), text);
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkWidget *entry = focus != NULL ? gtk_widget_get_ancestor (focus, GTK_TYPE_PASSWORD_ENTRY) : NULL;

  g_assert_nonnull (label);
  g_assert_cmpint (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (label)), ==, GTK_ACCESSIBLE_ROLE_ALERT);
  g_test_message ("the window opened with the focus on %s", focus != NULL ? G_OBJECT_TYPE_NAME (focus) : "nothing");
  g_assert_nonnull (entry);
  g_assert_true (gtk_widget_get_mapped (entry));
}

static gboolean
remote_not_searched (gpointer data)
{
  GtkWidget *note = pd_test_find_label_containing (GTK_WIDGET (session_list (data)), "Not searched: ");

  return note != NULL && gtk_widget_get_mapped (note) &&
         strstr (gtk_label_get_text (GTK_LABEL (note)), "(Token refused)") != NULL;
}

static gboolean
no_note (gpointer data)
{
  GtkWidget *note = pd_test_find_label_containing (GTK_WIDGET (session_list (data)), "Not searched: ");

  return note == NULL || !gtk_widget_get_mapped (note);
}

static void
check_remote_denied (PdApplication *app,
                     PdWindow      *window,
                     gpointer       user_data)
{
  pd_test_wait_until (error_page_shown, window, "the access denied page");
  pd_test_flush (GTK_WIDGET (window));
  /* Why is said once, by the banner (tried as a new user would: the page
   * said it again under it). */
  g_assert_cmpuint (pd_test_count_shown_labels (GTK_WIDGET (window), "refused the", TRUE), ==, 1);
  g_assert_cmpuint (pd_test_count_shown_labels (GTK_WIDGET (window), "Retry", TRUE), ==, 0);
  assert_banner_said (window, "refused the");

  /* A search there: not a blank list, but what it could not search and
   * why, as a window of several sources says it (tried as a new user
   * would). */
  pd_session_list_set_query (session_list (window), "config", FALSE);
  pd_test_wait_until (remote_not_searched, window, "the search said not searched, its token refused");
  pd_test_screenshot_sizes (GTK_WINDOW (window), "remote-search-token-refused");
  pd_session_list_set_query (session_list (window), NULL, FALSE);
  pd_test_wait_until (no_note, window, "no note without a search");
}

/* A wrong token: the server answers 401, and the window says so. */
static void
test_remote_window_wrong_token (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "served.db", NULL);
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(PdServer) server = pd_server_new (db);
  g_autoptr(GError) error = NULL;
  g_autofree char *base = NULL;
  g_autofree char *url = NULL;
  const char *args[] = { "--remote", NULL, NULL };

  pd_server_set_listen (server, "127.0.0.1", 0);
  pd_server_set_token (server, "right-token");
  g_assert_true (pd_server_start (server, &error));
  base = pd_server_dup_base_url (server);
  url = g_strconcat (base, strchr (base, '?') ? "&" : "?", "token=wrong-token", NULL);
  args[1] = url;

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_remote_denied, NULL, NULL), ==, 0);
  pd_server_stop (server);
}

static gboolean
is_endpoint_error_page (GtkWidget     *widget,
                        gconstpointer  data)
{
  return ADW_IS_STATUS_PAGE (widget) && gtk_widget_get_mapped (widget) &&
         g_str_has_prefix (adw_status_page_get_title (ADW_STATUS_PAGE (widget)), "The Endpoint");
}

/* The error page, whatever its title, and the banner asking for a token. */
static gboolean
token_needed_shown (gpointer data)
{
  return pd_test_find_first (data, is_endpoint_error_page, NULL) != NULL &&
         pd_test_count_shown_labels (data, "needs a token", TRUE) == 1;
}

static gboolean
is_password_entry (GtkWidget     *widget,
                   gconstpointer  data)
{
  return GTK_IS_PASSWORD_ENTRY (widget);
}

static gboolean
entry_empty (gpointer entry)
{
  return gtk_editable_get_text (GTK_EDITABLE (entry))[0] == '\0';
}

/* The banner after a token typed in it was refused. */
static gboolean
token_refused_shown (gpointer data)
{
  return pd_test_count_shown_labels (data, "The token is wrong or has changed", TRUE) == 1;
}

static gboolean
remote_loaded (gpointer data)
{
  return pd_session_list_get_loaded (session_list (data));
}

/* No token given: the title said "The Endpoint Refused Access" under a
 * banner that asked for a token, and sent the person to the endpoint's
 * page and Preferences → Sources, which this window does not have (tried
 * as a new user would).  The title, the banner and its entry agree, and
 * the token entered there is taken. */
static void
check_remote_token_needed (PdApplication *app,
                           PdWindow      *window,
                           gpointer       user_data)
{
  GtkWidget *entry;

  pd_test_wait_until (token_needed_shown, window, "the page saying the endpoint needs a token");
  pd_test_flush (GTK_WIDGET (window));
  pd_test_screenshot (GTK_WIDGET (window), "remote-token-needed");
  g_assert_cmpuint (pd_test_count_shown_labels (GTK_WIDGET (window), "The Endpoint Needs a Token", TRUE), ==, 1);
  g_assert_cmpuint (pd_test_count_shown_labels (GTK_WIDGET (window), "Refused", TRUE), ==, 0);
  g_assert_cmpuint (pd_test_count_shown_labels (GTK_WIDGET (window), "refused", TRUE), ==, 0);
  g_assert_cmpuint (pd_test_count_shown_labels (GTK_WIDGET (window), "Preferences", TRUE), ==, 0);
  g_assert_cmpuint (pd_test_count_shown_labels (GTK_WIDGET (window), "endpoint’s page", TRUE), ==, 0);
  g_assert_cmpuint (pd_test_count_shown_labels (GTK_WIDGET (window), "?token=) here", TRUE), ==, 1);
  assert_banner_said (window, "needs a token");

  entry = pd_test_find_first (GTK_WIDGET (window), is_password_entry, NULL);
  g_assert_nonnull (entry);
  g_assert_true (gtk_widget_get_mapped (entry));

  /* A token typed wrong stays in the entry, selected, to be corrected:
   * it was cleared, and typed again whole (tried as a new user would). */
  gtk_widget_grab_focus (entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), "right-tokem");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.use-token", NULL));
  pd_test_wait_until (token_refused_shown, window, "the banner to say the typed token was refused");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (gtk_widget_get_mapped (entry));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, "right-tokem");
  {
    int start = -1, end = -1;

    g_assert_true (gtk_editable_get_selection_bounds (GTK_EDITABLE (entry), &start, &end));
    g_assert_cmpint (start, ==, 0);
    g_assert_cmpint (end, ==, (int) strlen ("right-tokem"));
  }
  g_assert_true (gtk_widget_has_focus (entry) || gtk_widget_is_ancestor (gtk_root_get_focus (GTK_ROOT (window)), entry));
  pd_test_screenshot (GTK_WIDGET (window), "remote-token-refused-kept");

  gtk_editable_set_text (GTK_EDITABLE (entry), user_data);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.use-token", NULL));
  pd_test_wait_until (remote_loaded, window, "the endpoint listed with the token given in the banner");
  /* Taken: it does not stay in the entry. */
  pd_test_wait_until (entry_empty, entry, "the token taken out of the banner's entry");

  /* Preferences → Sources said "No endpoints yet" while this window was
   * connected to one (tried as a new user would): it names it. */
  {
    GtkWindow *prefs = GTK_WINDOW (pd_preferences_window_new (GTK_WINDOW (window)));
    const char *base = pd_remote_source_get_base_url (PD_REMOTE_SOURCE (pd_window_get_source (window)));
    g_autofree char *open = g_strdup_printf ("Open in this window: %s", base);

    gtk_window_present (prefs);
    adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (prefs), "sources");
    pd_test_flush (GTK_WIDGET (prefs));
    g_assert_cmpuint (pd_test_count_shown_labels (GTK_WIDGET (prefs), "No endpoints yet", TRUE), ==, 0);
    g_assert_cmpuint (pd_test_count_shown_labels (GTK_WIDGET (prefs), open, TRUE), ==, 1);
    g_assert_null (pd_test_find_label_containing (GTK_WIDGET (prefs), "right-token"));
    pd_test_screenshot (GTK_WIDGET (prefs), "preferences-sources-remote-open");
    gtk_window_destroy (prefs);
  }
}

static void
test_remote_window_token_needed (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "served.db", NULL);
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(PdServer) server = pd_server_new (db);
  g_autoptr(GError) error = NULL;
  g_autofree char *base = NULL;
  const char *args[] = { "--remote", NULL, NULL };

  pd_server_set_listen (server, "127.0.0.1", 0);
  pd_server_set_token (server, "right-token");
  g_assert_true (pd_server_start (server, &error));
  base = pd_server_dup_base_url (server);
  g_assert_null (strstr (base, "token"));
  args[1] = base;

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_remote_token_needed, (gpointer) "right-token", NULL), ==, 0);
  pd_server_stop (server);
}

static void
test_split_endpoint_url (void)
{
  g_autofree char *token = NULL;
  g_autofree char *base = pd_window_split_endpoint_url ("http://127.0.0.1:8080/?token=a%20b&x=1", &token);
  g_autofree char *plain_token = NULL;
  g_autofree char *plain = pd_window_split_endpoint_url ("http://127.0.0.1:8080", &plain_token);

  g_assert_cmpstr (token, ==, "a b");
  g_assert_cmpstr (base, ==, "http://127.0.0.1:8080/?x=1");

  /* A password or a fragment holds no less a secret: neither stays (both
   * stayed in the setting and showed in Preferences, tried as an attacker
   * would). */
  {
    g_autofree char *user_token = NULL;
    g_autofree char *user = pd_window_split_endpoint_url ("http://u:S5%21@127.0.0.1:8080/", &user_token);
    g_autofree char *frag_token = NULL;
    g_autofree char *frag = pd_window_split_endpoint_url ("http://127.0.0.1:8080/#token=S6", &frag_token);
    g_autofree char *both_token = NULL;
    g_autofree char *both = pd_window_split_endpoint_url ("http://u:S7@127.0.0.1:8080/?token=S8#token=S9",
                                                          &both_token);

    g_assert_cmpstr (user_token, ==, "S5!");
    g_assert_cmpstr (user, ==, "http://127.0.0.1:8080/");
    g_assert_cmpstr (frag_token, ==, "S6");
    g_assert_cmpstr (frag, ==, "http://127.0.0.1:8080/");
    g_assert_cmpstr (both_token, ==, "S8");
    g_assert_cmpstr (both, ==, "http://127.0.0.1:8080/");
  }
  g_assert_null (plain_token);
  g_assert_cmpstr (plain, ==, "http://127.0.0.1:8080");

  /* ?TOKEN= is a token as well (ps hides it as one): it never stays in the
   * address that is stored in settings and shown in the title. */
  {
    g_autofree char *upper_token = NULL;
    g_autofree char *upper = pd_window_split_endpoint_url ("http://127.0.0.1:8080/?TOKEN=S3&x=1&Token=S4",
                                                           &upper_token);

    g_assert_cmpstr (upper_token, ==, "S4");
    g_assert_cmpstr (upper, ==, "http://127.0.0.1:8080/?x=1");
    g_assert_null (g_strstr_len (upper, -1, "S3"));
  }
}

int
main (int   argc,
      char *argv[])
{
  char *config_home = pd_test_runs_init (&argc, &argv);
  int status;

  g_test_add_func ("/pd/ui/remote/wrong-token", test_remote_window_wrong_token);
  g_test_add_func ("/pd/ui/remote/token-needed", test_remote_window_token_needed);
  g_test_add_func ("/pd/ui/remote/split-endpoint-url", test_split_endpoint_url);

  status = g_test_run ();
  pd_test_runs_finish (config_home);

  return status;
}
