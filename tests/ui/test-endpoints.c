/* test-endpoints.c: endpoints as a person adds and reaches them
 *
 * The window of the default database with one endpoint configured, a real
 * `plandeck-agent serve` on loopback: another spelling of its address
 * (localhost for 127.0.0.1, [::1], 0.0.0.0, a slash, upper case, the
 * default port) is refused in Preferences with a message naming the
 * endpoint it is, the typed text kept; and `plandeck --remote` at such a
 * spelling chooses it in the sidebar.  serve reached at an address it does
 * not know reads "Address refused" and says --allow-host; one with no
 * token kept reads "Token needed" and says where to give it.  An address
 * Preferences refuses, its error below the page's fold, is scrolled into
 * sight and has the focus.  Fifty sources scroll in the sidebar, the
 * window shrinking below them.  Connect to Endpoint keeps an address that
 * is none as typed, and says why.  A search with an
 * endpoint hung shows this computer's matches and names it, not searched.
 * With this computer and two endpoints, one stopped, a search on All
 * Sources names each match's own source, and the endpoint's opens.  A
 * new session of the endpoint or of this computer shows at the top of a
 * list at its top, also one that came while a folded window hid the list;
 * a list scrolled down does not move.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-endpoints"

#include "config.h"

#include <signal.h>
#include <string.h>

#include <glib/gstdio.h>

#include "pd-application.h"
#include "pd-entry-row.h"
#include "pd-now-view.h"
#include "pd-preferences-window.h"
#include "pd-remote-source.h"
#include "pd-secrets.h"
#include "pd-session-list.h"
#include "pd-session-row.h"
#include "pd-source-sidebar.h"
#include "pd-sources-page.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"
#include "pd-window-private.h"

typedef struct
{
  char        *dir;
  char        *db;
  GSubprocess *serve;
  char        *base;
  char        *token;
  guint        port;
} Endpoint;

static void
endpoint_start_with (Endpoint   *endpoint,
                     const char *listen,
                     const char *title,
                     gboolean    with_plan)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GUri) uri = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autofree char *url = NULL;

  endpoint->dir = pd_test_make_tmp_dir ();
  endpoint->db = g_build_filename (endpoint->dir, "sessions.db", NULL);
  store = pd_test_open_store (endpoint->db);
  {
    g_autoptr(PdPlanState) plan = pd_test_sample_plan (1);
    g_autofree char *id = pd_test_add_session (store, title, "plandeck");

    if (with_plan)
      pd_test_save_plan (store, id, plan, PD_SESSION_STATUS_IDLE);
  }
  g_clear_object (&store);
  endpoint->serve = pd_test_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error,
                                   g_getenv ("PLANDECK_AGENT"), "serve", "--db", endpoint->db,
                                   "--listen", listen, "--rate-limit", "0", NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (endpoint->serve));
  url = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (url);
  uri = g_uri_parse (url, G_URI_FLAGS_NONE, &error);
  g_assert_no_error (error);
  endpoint->port = g_uri_get_port (uri);
  endpoint->base = g_strdup_printf ("http://%s:%u", g_uri_get_host (uri), endpoint->port);
  g_free (pd_window_split_endpoint_url (url, &endpoint->token));
  g_assert_nonnull (endpoint->token);
}

static void
endpoint_start (Endpoint   *endpoint,
                const char *listen)
{
  endpoint_start_with (endpoint, listen, "Alpha build one", FALSE);
}

static void
endpoint_stop (Endpoint *endpoint)
{
  if (endpoint->serve != NULL)
    {
      g_subprocess_force_exit (endpoint->serve);
      g_subprocess_wait (endpoint->serve, NULL, NULL);
      g_clear_object (&endpoint->serve);
    }
  pd_secrets_keep_for_session (endpoint->base, NULL);
  g_free (endpoint->dir);
  g_free (endpoint->db);
  g_free (endpoint->base);
  g_free (endpoint->token);
}

/* The setting lists @endpoint alone, as "Alpha box". */
static void
configure (Endpoint *endpoint)
{
  g_autoptr(GSettings) settings = NULL;
  GVariantBuilder builder;

  pd_test_reset_settings ();
  pd_secrets_keep_for_session (endpoint->base, endpoint->token);
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sss)"));
  g_variant_builder_add (&builder, "(sss)", "alpha-id", "Alpha box", endpoint->base);
  settings = g_settings_new (APP_ID);
  g_settings_set_value (settings, "sources", g_variant_builder_end (&builder));
}

static PdSource *
source_at (PdWindow *window,
           guint     position)
{
  g_autoptr(PdSource) source = g_list_model_get_item (_pd_window_get_sources (window), position);

  return source;
}

static PdSourceSidebar *
sidebar (PdWindow *window)
{
  return window->source_sidebar;
}

static gboolean
first_online (gpointer data)
{
  PdSource *source = source_at (data, 1);

  return source != NULL && pd_remote_source_get_state (PD_REMOTE_SOURCE (source)) == PD_REMOTE_ONLINE;
}

static gboolean
has_title (GtkWidget     *widget,
           gconstpointer  data)
{
  return ADW_IS_PREFERENCES_ROW (widget) &&
         g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), data) == 0;
}

static gboolean
is_button_labelled (GtkWidget     *widget,
                    gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), data) == 0;
}

/* --- one endpoint, another spelling -------------------------------------- */

static void
check_spellings (PdApplication *app,
                 PdWindow      *window,
                 gpointer       user_data)
{
  Endpoint *alpha = user_data;
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  PdPreferencesWindow *prefs;
  PdSourcesPage *page;
  GtkWidget *url_row;
  GtkWidget *add;
  GtkWidget *said;
  g_autofree char *typed = NULL;
  const char *forms[] = { "http://localhost:", "http://localhost:/", "http://[::1]:", "http://0.0.0.0:/",
                          "HTTP://LOCALHOST:/", "http://127.0.0.2:", "http://127.0.0.1:/?token=x" };

  pd_test_wait_until (first_online, window, "the endpoint connected");
  prefs = pd_preferences_window_new (GTK_WINDOW (window));
  gtk_window_present (GTK_WINDOW (prefs));
  page = PD_SOURCES_PAGE (pd_test_find_widget (GTK_WIDGET (prefs), PD_TYPE_SOURCES_PAGE));
  g_assert_nonnull (page);

  for (guint i = 0; i < G_N_ELEMENTS (forms); i++)
    {
      g_autoptr(GError) error = NULL;
      const char *colon = strrchr (forms[i], ':');
      g_autofree char *url = g_strdup_printf ("%.*s%u%s", (int) (colon + 1 - forms[i]), forms[i], alpha->port, colon + 1);
      g_autofree char *id = pd_sources_page_add (page, url, NULL, NULL, &error);
      g_autoptr(GVariant) configured = g_settings_get_value (settings, "sources");

      g_test_message ("%s: %s", url, error != NULL ? error->message : "added");
      g_assert_null (id);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS);
      g_assert_nonnull (strstr (error->message, "Alpha box"));
      g_assert_nonnull (strstr (error->message, alpha->base));
      g_assert_cmpuint (g_variant_n_children (configured), ==, 1);
    }

  /* Typed and added with the button: said under the fields, naming the
   * endpoint, the typed address kept to be corrected. */
  url_row = pd_test_find_first (GTK_WIDGET (page), has_title, "Address");
  add = pd_test_find_first (GTK_WIDGET (page), is_button_labelled, "_Add Endpoint");
  typed = g_strdup_printf ("http://LocalHost:%u/", alpha->port);
  gtk_editable_set_text (GTK_EDITABLE (url_row), typed);
  g_signal_emit_by_name (add, "clicked");
  said = pd_test_find_label_containing (GTK_WIDGET (page), "in the list already");
  g_assert_nonnull (said);
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (said)), "Alpha box"));
  g_assert_true (gtk_widget_get_visible (said));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (url_row)), ==, typed);
  pd_test_flush (GTK_WIDGET (prefs));
  pd_test_screenshot (GTK_WIDGET (prefs), "preferences-sources-same-endpoint");
  gtk_window_destroy (GTK_WINDOW (prefs));

  /* `plandeck --remote http://localhost:PORT` with the window open: that
   * endpoint chosen in its sidebar, no second connection. */
  {
    g_autofree char *url = g_strdup_printf ("http://localhost:%u/", alpha->port);

    g_assert_null (pd_source_sidebar_get_selected (sidebar (window)));
    g_assert_true (pd_window_choose_endpoint (window, url, NULL));
    g_assert_true (pd_source_sidebar_get_selected (sidebar (window)) == source_at (window, 1));
    g_assert_false (pd_window_choose_endpoint (window, "http://localhost:9/", NULL));
  }
}

static void
test_spellings (void)
{
  Endpoint alpha = { 0 };

  endpoint_start (&alpha, "127.0.0.1:0");
  configure (&alpha);
  g_assert_cmpint (pd_test_run_app (NULL, check_spellings, &alpha, NULL), ==, 0);
  endpoint_stop (&alpha);
}

/* A setting written before Preferences refused the second spelling: the
 * endpoint is shown once (it was twice, every session and card too). */
static gboolean
two_sources (gpointer data)
{
  return g_list_model_get_n_items (_pd_window_get_sources (data)) == 2 && first_online (data);
}

static void
check_configured_twice (PdApplication *app,
                        PdWindow      *window,
                        gpointer       user_data)
{
  pd_test_wait_until (two_sources, window, "this computer and the endpoint once");
  /* Whatever comes late: still once. */
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpuint (g_list_model_get_n_items (_pd_window_get_sources (window)), ==, 2);
  g_assert_cmpstr (pd_source_list_get_name (PD_SOURCE_LIST (_pd_window_get_sources (window)), source_at (window, 1)),
                   ==, "Alpha box");
}

static void
test_configured_twice (void)
{
  Endpoint alpha = { 0 };
  g_autoptr(GSettings) settings = NULL;
  g_autofree char *localhost = NULL;
  GVariantBuilder builder;

  endpoint_start (&alpha, "127.0.0.1:0");
  configure (&alpha);
  localhost = g_strdup_printf ("http://localhost:%u/", alpha.port);
  pd_secrets_keep_for_session (localhost, alpha.token);
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sss)"));
  g_variant_builder_add (&builder, "(sss)", "alpha-id", "Alpha box", alpha.base);
  g_variant_builder_add (&builder, "(sss)", "again-id", "Alpha again", localhost);
  settings = g_settings_new (APP_ID);
  g_settings_set_value (settings, "sources", g_variant_builder_end (&builder));
  g_assert_cmpint (pd_test_run_app (NULL, check_configured_twice, &alpha, NULL), ==, 0);
  pd_secrets_keep_for_session (localhost, NULL);
  endpoint_stop (&alpha);
}

/* --- an address serve does not answer ----------------------------------- */

static gboolean
first_denied (gpointer data)
{
  PdSource *source = source_at (data, 1);

  return source != NULL && pd_remote_source_get_state (PD_REMOTE_SOURCE (source)) == PD_REMOTE_DENIED;
}

static gboolean
endpoint_page_shown (gpointer data)
{
  return pd_test_count_shown_labels (GTK_WIDGET (data), "--allow-host", FALSE) >= 1;
}

/* serve reached at an address it does not know: a 403 that read "Token
 * refused"; now "Address refused", saying --allow-host. */
static void
check_host_refused (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  PdSource *source;
  g_autofree char *state = NULL;
  g_autofree char *expected = NULL;
  const char *message;

  pd_test_wait_until (first_denied, window, "the endpoint refusing its Host");
  source = source_at (window, 1);
  state = pd_source_sidebar_dup_state (sidebar (window), source, NULL);
  message = pd_remote_source_get_state_message (PD_REMOTE_SOURCE (source));
  g_test_message ("%s: %s", state, message);
  g_assert_cmpstr (state, ==, "Address refused");
  expected = g_strdup_printf ("--allow-host %s", "127.0.0.2");
  g_assert_nonnull (strstr (message, expected));
  g_assert_nonnull (strstr (message, "Host not allowed"));
  g_assert_true (pd_remote_source_get_host_refused (PD_REMOTE_SOURCE (source)));

  /* Chosen: its page says why, and offers no token entry. */
  pd_source_sidebar_select (sidebar (window), source);
  pd_test_wait_until (endpoint_page_shown, window, "the endpoint's page saying --allow-host");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpuint (pd_test_count_shown_labels (GTK_WIDGET (window), "Token refused", FALSE), ==, 0);
  g_assert_false (gtk_widget_get_mapped (g_object_get_data (G_OBJECT (window), "pd-endpoint-token-box")));
  pd_test_screenshot (GTK_WIDGET (window), "endpoint-host-refused");
  pd_source_sidebar_select (sidebar (window), NULL);
}

static void
test_host_refused (void)
{
  Endpoint alpha = { 0 };

  endpoint_start (&alpha, "0.0.0.0:0"); /* on every address, reached at another */
  g_free (alpha.base);
  alpha.base = g_strdup_printf ("http://127.0.0.2:%u", alpha.port);
  configure (&alpha);
  g_assert_cmpint (pd_test_run_app (NULL, check_host_refused, &alpha, NULL), ==, 0);
  endpoint_stop (&alpha);
}

/* --- an endpoint without a token ---------------------------------------- */

static gboolean
token_page_shown (gpointer data)
{
  return pd_test_count_shown_labels (GTK_WIDGET (data), "needs a token", FALSE) >= 1;
}

/* An endpoint added without its token (none kept): serve asks for one,
 * and it read "Token refused" of a token never sent.  Now "Token needed",
 * saying where to give it (tried as a new user would). */
static void
check_token_needed (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  Endpoint *alpha = user_data;
  PdSource *source;
  g_autofree char *state = NULL;
  const char *message;

  pd_test_wait_until (first_denied, window, "the endpoint asking for a token");
  source = source_at (window, 1);
  g_assert_null (pd_remote_source_get_token (PD_REMOTE_SOURCE (source)));
  state = pd_source_sidebar_dup_state (sidebar (window), source, NULL);
  message = pd_remote_source_get_state_message (PD_REMOTE_SOURCE (source));
  g_test_message ("%s: %s", state, message);
  g_assert_cmpstr (state, ==, "Token needed");
  g_assert_nonnull (strstr (message, "needs a token"));
  g_assert_nonnull (strstr (message, "New Token in Preferences"));
  g_assert_null (strstr (message, "refused"));

  /* Chosen: its page says so and offers the token entry. */
  pd_source_sidebar_select (sidebar (window), source);
  pd_test_wait_until (token_page_shown, window, "the endpoint's page saying a token is needed");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpuint (pd_test_count_shown_labels (GTK_WIDGET (window), "Token refused", FALSE), ==, 0);
  g_assert_true (gtk_widget_get_mapped (g_object_get_data (G_OBJECT (window), "pd-endpoint-token-box")));
  pd_test_screenshot (GTK_WIDGET (window), "endpoint-token-needed");

  /* Given there, it connects. */
  gtk_editable_set_text (g_object_get_data (G_OBJECT (window), "pd-endpoint-token"), alpha->token);
  g_signal_emit_by_name (g_object_get_data (G_OBJECT (window), "pd-endpoint-token"), "activate");
  pd_test_wait_until (first_online, window, "the endpoint connected with the token given");
  pd_source_sidebar_select (sidebar (window), NULL);
}

static void
test_token_needed (void)
{
  Endpoint alpha = { 0 };

  endpoint_start (&alpha, "127.0.0.1:0");
  configure (&alpha);
  pd_secrets_keep_for_session (alpha.base, NULL);
  g_assert_cmpint (pd_test_run_app (NULL, check_token_needed, &alpha, NULL), ==, 0);
  endpoint_stop (&alpha);
}

/* --- an address refused below the fold ----------------------------------- */

static gboolean
error_in_sight (gpointer data)
{
  GtkWidget *label = data;
  GtkWidget *scroller = gtk_widget_get_ancestor (label, GTK_TYPE_SCROLLED_WINDOW);
  graphene_rect_t bounds;

  GtkWidget *focus = gtk_root_get_focus (gtk_widget_get_root (label));

  /* The window's focus, in the address to correct (the error took it, and
   * showed a text cursor): whether Xvfb made the window active is no
   * matter. */
  return focus != NULL && GTK_IS_EDITABLE (focus) &&
         g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (focus)), "ftp://build-box/") == 0 &&
         gtk_widget_get_height (label) > 0 &&
         gtk_widget_compute_bounds (label, scroller, &bounds) && bounds.origin.y >= 0 &&
         bounds.origin.y + bounds.size.height <= gtk_widget_get_height (scroller);
}

/* Preferences short, the Address row at the foot of the page: Enter on an
 * address that is none showed its error under the fields, out of sight,
 * and nothing seemed to happen (tried as a new user would).  Now the error
 * is scrolled into sight and has the focus. */
static void
check_error_in_sight (PdApplication *app,
                      PdWindow      *window,
                      gpointer       user_data)
{
  PdPreferencesWindow *prefs = pd_preferences_window_new (GTK_WINDOW (window));
  GtkWidget *page, *url_row, *said, *scroller;
  graphene_rect_t bounds;
  graphene_point_t at[3];

  /* Short, and wide enough that the page switcher stays in the header
   * (a bar sliding in at the foot shrank the page while it scrolled). */
  gtk_window_set_default_size (GTK_WINDOW (prefs), 800, 300);
  gtk_window_present (GTK_WINDOW (prefs));
  page = pd_test_find_widget (GTK_WIDGET (prefs), PD_TYPE_SOURCES_PAGE);
  adw_preferences_window_set_visible_page (ADW_PREFERENCES_WINDOW (prefs), ADW_PREFERENCES_PAGE (page));
  url_row = pd_test_find_first (page, has_title, "Address");
  pd_test_flush (GTK_WIDGET (prefs));
  gtk_widget_grab_focus (url_row);
  pd_test_flush (GTK_WIDGET (prefs));
  gtk_editable_set_text (GTK_EDITABLE (url_row), "ftp://build-box/");
  g_signal_emit_by_name (url_row, "entry-activated");
  said = pd_test_find_label_containing (page, "is not an endpoint address");
  g_assert_nonnull (said);
  pd_test_wait_until (error_in_sight, said, "the error in sight, with the focus");
  scroller = gtk_widget_get_ancestor (said, GTK_TYPE_SCROLLED_WINDOW);
  g_assert_true (gtk_widget_compute_bounds (said, scroller, &bounds));
  g_test_message ("error at %.0f..%.0f of %d", bounds.origin.y, bounds.origin.y + bounds.size.height,
                  gtk_widget_get_height (scroller));
  /* The typed address kept, to be corrected; nothing of the error selected. */
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (url_row)), ==, "ftp://build-box/");
  g_assert_false (gtk_label_get_selectable (GTK_LABEL (said)));
  /* The three fields start at one x (Address's was 4 px right). */
  for (guint i = 0; i < 3; i++)
    g_assert_true (gtk_widget_compute_point (pd_entry_row_get_entry (PD_ENTRY_ROW (pd_test_find_first (page, has_title,
                                             (const char *[]) { "Address", "Name", "Token" }[i]))), page,
                                             &GRAPHENE_POINT_INIT (0, 0), &at[i]));
  g_test_message ("fields at x %.0f, %.0f, %.0f", at[0].x, at[1].x, at[2].x);
  g_assert_true (at[0].x == at[1].x && at[1].x == at[2].x);
  pd_test_screenshot (GTK_WIDGET (prefs), "preferences-sources-error-in-sight");

  /* A port out of range, typed without its scheme: said as such. */
  gtk_editable_set_text (GTK_EDITABLE (url_row), "127.0.0.1:99999");
  g_signal_emit_by_name (url_row, "entry-activated");
  said = pd_test_find_label_containing (page, "from 1 to 65535");
  g_assert_nonnull (said);
  g_assert_true (gtk_widget_get_visible (said));
  g_assert_null (strstr (gtk_label_get_text (GTK_LABEL (said)), "must start with"));
  gtk_window_destroy (GTK_WINDOW (prefs));
}

static void
test_error_in_sight (void)
{
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (NULL, check_error_in_sight, NULL, NULL), ==, 0);
}

/* --- fifty sources ------------------------------------------------------- */

static gboolean
fifty_listed (gpointer data)
{
  return g_list_model_get_n_items (_pd_window_get_sources (data)) == 51;
}

/* Fifty endpoints: the sidebar's sources scroll, so the window shrinks and
 * the last one is reached (the list grew the window past the screen, its
 * last sources out of reach). */
static void
check_fifty (PdApplication *app,
             PdWindow      *window,
             gpointer       user_data)
{
  GtkWidget *side = GTK_WIDGET (sidebar (window));
  GtkWidget *last_row = NULL;
  GtkWidget *scroller;
  GtkAdjustment *adjustment;
  int side_min = 0;
  int window_min = 0;
  int row_height = 0;
  graphene_rect_t bounds;

  pd_test_wait_until (fifty_listed, window, "fifty endpoints beside this computer");
  pd_test_flush (GTK_WIDGET (window));
  for (GtkWidget *row = gtk_widget_get_first_child (pd_test_find_widget (side, GTK_TYPE_LIST_BOX)); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    if (GTK_IS_LIST_BOX_ROW (row))
      last_row = row;
  gtk_widget_measure (side, GTK_ORIENTATION_VERTICAL, -1, &side_min, NULL, NULL, NULL);
  gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_VERTICAL, -1, &window_min, NULL, NULL, NULL);
  if (last_row != NULL)
    gtk_widget_measure (last_row, GTK_ORIENTATION_VERTICAL, -1, &row_height, NULL, NULL, NULL);
  g_test_message ("fifty sources: the sidebar at least %d px high, the window %d px, a row %d px",
                  side_min, window_min, row_height);
  g_assert_nonnull (last_row);
  g_assert_cmpint (side_min, <, 5 * row_height);
  g_assert_cmpint (window_min, <, 600);

  /* The last one scrolled to: in sight, inside the sidebar. */
  scroller = gtk_widget_get_ancestor (last_row, GTK_TYPE_SCROLLED_WINDOW);
  g_assert_true (gtk_widget_is_ancestor (scroller, side));
  adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  g_assert_cmpfloat (gtk_adjustment_get_upper (adjustment), >, gtk_adjustment_get_page_size (adjustment));
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (gtk_widget_compute_bounds (last_row, scroller, &bounds));
  g_assert_cmpfloat (bounds.origin.y, >=, 0);
  g_assert_cmpfloat (bounds.origin.y + bounds.size.height, <=, gtk_widget_get_height (scroller) + 1);
  pd_test_screenshot (GTK_WIDGET (window), "sources-fifty");
}

static void
test_fifty (void)
{
  g_autoptr(GSettings) settings = NULL;
  GVariantBuilder builder;

  pd_test_reset_settings ();
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sss)"));
  for (guint i = 0; i < 50; i++)
    {
      g_autofree char *id = g_strdup_printf ("e%u", i);
      g_autofree char *name = g_strdup_printf ("Box %u", i + 1);
      g_autofree char *url = g_strdup_printf ("http://127.0.0.1:9/box%u", i + 1);

      g_variant_builder_add (&builder, "(sss)", id, name, url);
    }
  settings = g_settings_new (APP_ID);
  g_settings_set_value (settings, "sources", g_variant_builder_end (&builder));
  g_assert_cmpint (pd_test_run_app (NULL, check_fifty, NULL, NULL), ==, 0);
  g_settings_reset (settings, "sources");
}

/* --- Connect to Endpoint ------------------------------------------------- */

/* An address that is none, typed in Connect to Endpoint: said under the
 * field as it is typed, Connect waiting, the typed text kept.  Connect
 * closed the dialog with a toast, and the dialog opened again showed the
 * address remembered before: what was typed was lost. */
static void
check_connect_dialog (PdApplication *app,
                      PdWindow      *window,
                      gpointer       user_data)
{
  AdwMessageDialog *dialog;
  GtkWidget *entry;
  GtkWidget *said;

  gtk_widget_activate_action (GTK_WIDGET (window), "win.connect-endpoint", NULL);
  dialog = pd_test_wait_for_dialog ("Connect to Endpoint");
  entry = pd_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_ENTRY);
  g_assert_nonnull (entry);

  gtk_editable_set_text (GTK_EDITABLE (entry), "build-box:8080/?token=typed-secret");
  pd_test_flush (GTK_WIDGET (dialog));
  g_assert_false (adw_message_dialog_get_response_enabled (dialog, "connect"));
  said = pd_test_find_label_containing (GTK_WIDGET (dialog), "is not an endpoint address");
  g_assert_nonnull (said);
  g_assert_true (gtk_widget_get_mapped (said));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (said)), "build-box:8080"));
  g_assert_null (strstr (gtk_label_get_text (GTK_LABEL (said)), "typed-secret"));
  pd_test_screenshot (GTK_WIDGET (dialog), "connect-endpoint-not-an-address");
  /* Enter: the dialog stays, with what was typed. */
  gtk_widget_activate (entry);
  pd_test_flush (GTK_WIDGET (dialog));
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (dialog)));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, "build-box:8080/?token=typed-secret");

  /* A port out of range is said as such: it read "must start with
   * http://" of an address that did (tried as a new user would). */
  gtk_editable_set_text (GTK_EDITABLE (entry), "http://127.0.0.1:99999");
  pd_test_flush (GTK_WIDGET (dialog));
  g_assert_false (adw_message_dialog_get_response_enabled (dialog, "connect"));
  g_assert_true (gtk_widget_get_mapped (said));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (said)), "from 1 to 65535"));
  g_assert_null (strstr (gtk_label_get_text (GTK_LABEL (said)), "must start with"));
  pd_test_screenshot (GTK_WIDGET (dialog), "connect-endpoint-bad-port");

  /* Corrected: Connect can be pressed, nothing said. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "http://build-box:8080/");
  pd_test_flush (GTK_WIDGET (dialog));
  g_assert_true (adw_message_dialog_get_response_enabled (dialog, "connect"));
  g_assert_false (gtk_widget_get_mapped (said));
  gtk_window_close (GTK_WINDOW (dialog));
}

static void
test_connect_dialog (void)
{
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (NULL, check_connect_dialog, NULL, NULL), ==, 0);
}

/* --- a search with an endpoint hung --------------------------------------- */

typedef struct
{
  PdWindow   *window;
  const char *label;
  gboolean    note;     /* the "Not searched" note shown, or not */
} SearchWait;

static gboolean
search_shows (gpointer data)
{
  SearchWait *wait = data;
  PdSessionList *list = wait->window->session_list;
  gboolean noted = pd_test_count_shown_labels (GTK_WIDGET (list), "Not searched: ", FALSE) > 0;

  return pd_session_list_get_loaded (list) && !pd_session_list_get_busy (list) &&
         pd_test_find_label (GTK_WIDGET (list), wait->label) != NULL && noted == wait->note;
}

/* An endpoint connected, then hung (SIGSTOP): a search shows this
 * computer's match without waiting for it, and says which source it could
 * not ask; the endpoint back (SIGCONT), its match comes and the note goes.
 * It showed the rows from before the search for 3 s a round, and said
 * nothing of the endpoint it left out. */
static void
check_search_hung (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  Endpoint *alpha = user_data;
  SearchWait wait = { window, "Alpha local notes", TRUE };
  GtkWidget *note;
  gint64 start;

  pd_test_wait_until (first_online, window, "the endpoint connected");
  g_subprocess_send_signal (alpha->serve, SIGSTOP);
  start = g_get_monotonic_time ();
  pd_session_list_set_query (window->session_list, "Alpha", FALSE);
  pd_test_wait_until (search_shows, &wait, "this computer's match, the hung endpoint named as not searched");
  g_test_message ("this computer's match shown %.2f s after the search began, the endpoint hung",
                  (g_get_monotonic_time () - start) / 1e6);
  note = pd_test_find_label_containing (GTK_WIDGET (window->session_list), "Not searched: ");
  g_test_message ("%s", gtk_label_get_text (GTK_LABEL (note)));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (note)), "Alpha box"));
  pd_test_screenshot (GTK_WIDGET (window), "search-not-searched");

  /* Back: its match comes, nothing left out. */
  g_subprocess_send_signal (alpha->serve, SIGCONT);
  wait.label = "Alpha build one";
  wait.note = FALSE;
  pd_test_wait_until (search_shows, &wait, "the endpoint's match once it answers again");
  pd_session_list_set_query (window->session_list, NULL, FALSE);
}

static void
test_search_hung (void)
{
  Endpoint alpha = { 0 };
  g_autofree char *local_db = pd_application_default_database_path ();
  g_autofree char *folder = g_path_get_dirname (local_db);
  g_autoptr(PdSessionStore) local = NULL;

  g_assert_cmpint (g_mkdir_with_parents (folder, 0700), ==, 0);
  /* A run cut short leaves its database: it starts empty. */
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *file = g_strconcat (local_db, (const char *[]) { "", "-wal", "-shm" }[i], NULL);

      g_unlink (file);
    }
  local = pd_test_open_store (local_db);
  g_free (pd_test_add_session (local, "Alpha local notes", "plandeck"));
  g_clear_object (&local);
  endpoint_start (&alpha, "127.0.0.1:0");
  configure (&alpha);
  g_assert_cmpint (pd_test_run_app (NULL, check_search_hung, &alpha, NULL), ==, 0);
  endpoint_stop (&alpha);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *file = g_strconcat (local_db, (const char *[]) { "", "-wal", "-shm" }[i], NULL);

      g_unlink (file);
    }
}

/* --- a search over three sources, one of them stopped ------------------- */

typedef struct
{
  Endpoint endpoints[2];
} Pair;

static gboolean
both_online (gpointer data)
{
  for (guint i = 1; i <= 2; i++)
    {
      PdSource *source = source_at (data, i);

      if (source == NULL || pd_remote_source_get_state (PD_REMOTE_SOURCE (source)) != PD_REMOTE_ONLINE)
        return FALSE;
    }
  return TRUE;
}

static PdSessionItem *
find_item (PdWindow   *window,
           const char *title)
{
  GListModel *model = G_LIST_MODEL (pd_session_list_get_model (window->session_list));

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(PdSessionItem) item = g_list_model_get_item (model, i);

      if (g_strcmp0 (pd_session_item_get_title (item), title) == 0)
        return item;
    }
  return NULL;
}

typedef struct
{
  PdWindow *window;
  guint     n;
} CountWait;

/* The list is loaded with @n sessions, each of which names its source. */
static gboolean
listed_named (gpointer data)
{
  CountWait *wait = data;
  PdSessionList *list = wait->window->session_list;
  GListModel *model = G_LIST_MODEL (pd_session_list_get_model (list));

  if (!pd_session_list_get_loaded (list) || pd_session_list_get_busy (list) ||
      g_list_model_get_n_items (model) != wait->n)
    return FALSE;
  for (guint i = 0; i < wait->n; i++)
    {
      g_autoptr(PdSessionItem) item = g_list_model_get_item (model, i);

      if (pd_session_item_get_origin (item) == NULL)
        return FALSE;
    }
  return TRUE;
}

/* Every row that names a source names its own: each session's title
 * says where it is. */
static void
assert_named_right (PdWindow *window)
{
  GListModel *model = G_LIST_MODEL (pd_session_list_get_model (window->session_list));

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(PdSessionItem) item = g_list_model_get_item (model, i);
      const char *origin = pd_session_item_get_origin (item);
      const char *title = pd_session_item_get_title (item);

      if (origin == NULL)
        continue;
      if (!((g_str_has_suffix (title, "local notes") && g_str_equal (origin, "This Computer")) ||
            (g_str_has_prefix (title, "Zeta beta") && g_str_equal (origin, "Beta box")) ||
            (g_str_has_prefix (title, "Zeta alpha") && g_str_has_prefix (origin, "Alpha box"))))
        g_error ("“%s” (%s) named as from “%s”", title, pd_session_item_get_id (item), origin);
    }
}

static gboolean
listed_named_checked (gpointer data)
{
  assert_named_right (((CountWait *) data)->window);
  return listed_named (data);
}

/* The chosen endpoint's one session listed alone. */
static gboolean
listed_named_alone (gpointer data)
{
  PdWindow *window = data;
  PdSessionList *list = window->session_list;

  return pd_session_list_get_loaded (list) && !pd_session_list_get_busy (list) &&
         g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (list))) == 1 &&
         find_item (window, "Zeta beta one") != NULL;
}

typedef struct
{
  PdWindow   *window;
  PdSource   *source;
  const char *id;
} OpenWait;

static gboolean
session_shown (gpointer data)
{
  OpenWait *wait = data;
  g_autoptr(PdSource) shown = NULL;
  g_autofree char *shown_id = NULL;
  PdNowView *now = PD_NOW_VIEW (pd_test_find_widget (GTK_WIDGET (wait->window), PD_TYPE_NOW_VIEW));

  g_object_get (wait->window, "shown-source", &shown, "session-id", &shown_id, NULL);
  return now != NULL && shown == wait->source && g_strcmp0 (shown_id, wait->id) == 0 &&
         pd_now_view_get_plan (now) != NULL && !pd_session_view_get_busy (PD_SESSION_VIEW (now));
}

/* This computer and two endpoints, one of them stopped (SIGSTOP: it
 * accepts and answers nothing): a search on All Sources names each match's
 * own source, and the answering endpoint's match opens from it (tried as
 * a new user would: it was named "This Computer" and said "session … not
 * found"). */
static void
check_search_stopped (PdApplication *app,
                      PdWindow      *window,
                      gpointer       user_data)
{
  Pair *pair = user_data;
  const char *expected[][2] = {
    { "Zeta local notes", "This Computer" },
    { "Zeta beta one", "Beta box" },
  };
  CountWait all = { window, 3 };
  CountWait found = { window, 2 };

  pd_test_wait_until (both_online, window, "both endpoints connected");
  pd_test_wait_until (listed_named, &all, "the sessions of the three sources, each naming its source");
  g_subprocess_send_signal (pair->endpoints[0].serve, SIGSTOP);
  /* The answering endpoint chosen alone, then All Sources and a search,
   * typed as a person types: every row shown meanwhile names its own
   * source. */
  pd_source_sidebar_select (sidebar (window), source_at (window, 2));
  pd_test_wait_until (listed_named_alone, window, "the answering endpoint's session alone");
  pd_source_sidebar_select (sidebar (window), NULL);
  for (guint i = 1; i <= 4; i++)
    {
      g_autofree char *typed = g_strndup ("Zeta", i);

      pd_session_list_set_query (window->session_list, typed, FALSE);
      pd_test_spin (20);
      assert_named_right (window);
    }
  pd_test_wait_until (listed_named_checked, &found, "the search's matches of this computer and the answering endpoint");
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      PdSessionItem *item = find_item (window, expected[i][0]);

      g_assert_nonnull (item);
      g_test_message ("“%s” (%s) from “%s”", expected[i][0], pd_session_item_get_id (item),
                      pd_session_item_get_origin (item));
      g_assert_cmpstr (pd_session_item_get_origin (item), ==, expected[i][1]);
    }
  pd_test_screenshot (GTK_WIDGET (window), "search-stopped");

  /* The answering endpoint's match opens from it. */
  {
    PdSessionItem *item = find_item (window, "Zeta beta one");
    OpenWait wait = { window, source_at (window, 2), NULL };
    g_autofree char *tail = g_strdup (strchr (pd_session_item_get_id (item), '/'));

    g_assert_nonnull (tail);
    wait.id = tail + 1;
    g_assert_true (pd_session_list_select (window->session_list, pd_session_item_get_id (item)));
    pd_test_wait_until (session_shown, &wait, "the endpoint's session open from it");
  }
  g_subprocess_send_signal (pair->endpoints[0].serve, SIGCONT);
  pd_session_list_set_query (window->session_list, NULL, FALSE);
}

static void
test_search_stopped (void)
{
  Pair pair = { 0 };
  g_autofree char *local_db = pd_application_default_database_path ();
  g_autofree char *folder = g_path_get_dirname (local_db);
  g_autoptr(PdSessionStore) local = NULL;
  g_autoptr(GSettings) settings = NULL;
  GVariantBuilder builder;

  g_assert_cmpint (g_mkdir_with_parents (folder, 0700), ==, 0);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *file = g_strconcat (local_db, (const char *[]) { "", "-wal", "-shm" }[i], NULL);

      g_unlink (file);
    }
  local = pd_test_open_store (local_db);
  g_free (pd_test_add_session (local, "Zeta local notes", "plandeck"));
  g_clear_object (&local);
  endpoint_start_with (&pair.endpoints[0], "127.0.0.1:0", "Zeta alpha one", TRUE);
  endpoint_start_with (&pair.endpoints[1], "127.0.0.1:0", "Zeta beta one", TRUE);

  pd_test_reset_settings ();
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sss)"));
  for (guint i = 0; i < 2; i++)
    {
      pd_secrets_keep_for_session (pair.endpoints[i].base, pair.endpoints[i].token);
      g_variant_builder_add (&builder, "(sss)", i == 0 ? "alpha-id" : "beta-id", i == 0 ? "Alpha box" : "Beta box",
                             pair.endpoints[i].base);
    }
  settings = g_settings_new (APP_ID);
  g_settings_set_value (settings, "sources", g_variant_builder_end (&builder));

  g_assert_cmpint (pd_test_run_app (NULL, check_search_stopped, &pair, NULL), ==, 0);
  for (guint i = 0; i < 2; i++)
    endpoint_stop (&pair.endpoints[i]);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *file = g_strconcat (local_db, (const char *[]) { "", "-wal", "-shm" }[i], NULL);

      g_unlink (file);
    }
}

/* --- a new session at the top of a list scrolled to its top ------------- */

typedef struct
{
  PdWindow   *window;
  const char *title;
} FirstWait;

/* The list is loaded, nothing in flight, the session titled @title first. */
static gboolean
listed_first (gpointer data)
{
  FirstWait *wait = data;
  PdSessionList *list = wait->window->session_list;
  GListModel *model = G_LIST_MODEL (pd_session_list_get_model (list));
  g_autoptr(PdSessionItem) first = NULL;

  if (!pd_session_list_get_loaded (list) || pd_session_list_get_busy (list) || g_list_model_get_n_items (model) == 0)
    return FALSE;
  first = g_list_model_get_item (model, 0);
  return g_strcmp0 (pd_session_item_get_title (first), wait->title) == 0;
}

/* The row of the session titled @title, drawn in the list, or NULL. */
static GtkWidget *
row_of (PdWindow   *window,
        const char *title)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (window->session_list), GTK_TYPE_LIST_VIEW);

  for (GtkWidget *child = gtk_widget_get_first_child (view); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *first = gtk_widget_get_first_child (child);

      if (first != NULL && PD_IS_SESSION_ROW (first) && gtk_widget_get_mapped (child) &&
          g_strcmp0 (pd_session_item_get_title (pd_session_row_get_item (PD_SESSION_ROW (first))), title) == 0)
        return child;
    }
  return NULL;
}

/* The title of a session whose row is drawn whole in the list's view,
 * and that row's bounds there. */
static const char *
row_in_sight (PdWindow        *window,
              graphene_rect_t *bounds)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (window->session_list), GTK_TYPE_LIST_VIEW);

  for (GtkWidget *child = gtk_widget_get_first_child (view); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *first = gtk_widget_get_first_child (child);

      if (first != NULL && PD_IS_SESSION_ROW (first) && gtk_widget_get_mapped (child) &&
          gtk_widget_compute_bounds (child, view, bounds) && bounds->origin.y > 0 &&
          bounds->origin.y + bounds->size.height < gtk_widget_get_height (view))
        return pd_session_item_get_title (pd_session_row_get_item (PD_SESSION_ROW (first)));
    }
  return NULL;
}

static void
wait_listed_first (PdWindow   *window,
                   const char *title,
                   const char *what)
{
  FirstWait wait = { window, title };

  pd_test_wait_until (listed_first, &wait, what);
}

/* @title listed first, and the frames that lay it out drawn. */
static void
wait_first (PdWindow   *window,
            const char *title,
            const char *what)
{
  wait_listed_first (window, title, what);
  for (guint i = 0; i < 4; i++)
    pd_test_flush (GTK_WIDGET (window));
}

static gboolean
is_folded (gpointer data)
{
  return adw_leaflet_get_folded (((PdWindow *) data)->leaflet);
}

static gboolean
widget_mapped (gpointer data)
{
  return gtk_widget_get_mapped (data);
}

static gboolean
widget_unmapped (gpointer data)
{
  return !gtk_widget_get_mapped (data);
}

static gboolean
content_shown (gpointer data)
{
  return g_strcmp0 (adw_leaflet_get_visible_child_name (((PdWindow *) data)->leaflet), "content") == 0;
}

/* The list at its top, the row of @title first in sight. */
static void
assert_top_shows (PdWindow   *window,
                  const char *title)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (window->session_list), GTK_TYPE_LIST_VIEW);
  GtkAdjustment *adjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (view));
  GtkWidget *row = row_of (window, title);
  graphene_rect_t bounds;

  g_test_message ("“%s” first: the list at %.0f of %.0f px", title, gtk_adjustment_get_value (adjustment),
                  gtk_adjustment_get_upper (adjustment));
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, gtk_adjustment_get_lower (adjustment));
  g_assert_nonnull (row);
  g_assert_true (gtk_widget_compute_bounds (row, view, &bounds));
  g_assert_cmpfloat (bounds.origin.y, >=, 0);
  g_assert_cmpfloat (bounds.origin.y, <, gtk_widget_get_height (view));
}

static void
check_new_on_top (PdApplication *app,
                  PdWindow      *window,
                  gpointer       user_data)
{
  Endpoint *alpha = user_data;
  g_autofree char *local_db = pd_application_default_database_path ();
  g_autoptr(PdSessionStore) local = pd_test_open_store (local_db);
  g_autoptr(PdSessionStore) remote = pd_test_open_store (alpha->db);
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (window->session_list), GTK_TYPE_LIST_VIEW);
  GtkAdjustment *adjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (view));
  GtkWidget *row;
  graphene_rect_t before, after;
  double value;
  const char *title;

  pd_test_wait_until (first_online, window, "the endpoint connected");
  wait_first (window, "Alpha build one", "every session listed, the endpoint's newest first");
  g_assert_true (gtk_adjustment_get_upper (adjustment) > 2 * gtk_adjustment_get_page_size (adjustment));
  assert_top_shows (window, "Alpha build one");

  /* An endpoint's new session, then one of this computer's. */
  g_free (pd_test_add_session (remote, "Alpha started just now", "plandeck"));
  wait_first (window, "Alpha started just now", "the endpoint's new session listed first");
  assert_top_shows (window, "Alpha started just now");
  g_free (pd_test_add_session (local, "Local started just now", "plandeck"));
  wait_first (window, "Local started just now", "this computer's new session listed first");
  assert_top_shows (window, "Local started just now");
  pd_test_screenshot (GTK_WIDGET (window), "session-list-new-on-top");

  /* Scrolled down: a new session comes above, out of sight, and the rows
   * in sight stay where they are. */
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_page_size (adjustment));
  for (guint i = 0; i < 4; i++)
    pd_test_flush (GTK_WIDGET (window));
  value = gtk_adjustment_get_value (adjustment);
  title = row_in_sight (window, &before);
  g_assert_nonnull (title);
  g_free (pd_test_add_session (remote, "Alpha started later", "plandeck"));
  wait_first (window, "Alpha started later", "the endpoint's later session listed first");
  row = row_of (window, title);
  g_assert_nonnull (row);
  g_assert_true (gtk_widget_compute_bounds (row, view, &after));
  g_test_message ("scrolled to %.0f px: the list at %.0f px, “%s” in sight from %.0f to %.0f px", value,
                  gtk_adjustment_get_value (adjustment), title, before.origin.y, after.origin.y);
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), >, gtk_adjustment_get_lower (adjustment));
  g_assert_cmpfloat (after.origin.y, ==, before.origin.y);

  /* Folded (a narrow window) with a session open, the list hidden behind
   * it at its top: new sessions come, of the endpoint and of this
   * computer, and back to the list the newest shows first.  The list laid
   * itself out around the row that was first as it was shown again, the
   * new ones above out of sight (tried as a new user would). */
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_lower (adjustment));
  gtk_window_set_default_size (GTK_WINDOW (window), 360, 720);
  pd_test_wait_until (is_folded, window, "the narrow window folded");
  g_signal_emit_by_name (window->session_list, "session-activated", find_item (window, "Alpha started later"));
  pd_test_wait_until (content_shown, window, "the session shown");
  pd_test_wait_until (widget_unmapped, view, "the list hidden behind it");
  g_free (pd_test_add_session (remote, "Alpha started while hidden", "plandeck"));
  wait_listed_first (window, "Alpha started while hidden", "the endpoint's session listed first, the list hidden");
  g_free (pd_test_add_session (local, "Local started while hidden", "plandeck"));
  wait_listed_first (window, "Local started while hidden", "this computer's session listed first, the list hidden");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sessions", NULL));
  pd_test_wait_until (widget_mapped, view, "the list shown again");
  for (guint i = 0; i < 4; i++)
    pd_test_flush (GTK_WIDGET (window));
  assert_top_shows (window, "Local started while hidden");
  g_assert_nonnull (row_of (window, "Alpha started while hidden"));
  pd_test_screenshot (GTK_WIDGET (window), "session-list-new-on-top-folded");
}

static void
test_new_on_top (void)
{
  Endpoint alpha = { 0 };
  g_autofree char *local_db = pd_application_default_database_path ();
  g_autofree char *folder = g_path_get_dirname (local_db);
  g_autoptr(PdSessionStore) local = NULL;

  g_assert_cmpint (g_mkdir_with_parents (folder, 0700), ==, 0);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *file = g_strconcat (local_db, (const char *[]) { "", "-wal", "-shm" }[i], NULL);

      g_unlink (file);
    }
  local = pd_test_open_store (local_db);
  for (guint i = 0; i < 40; i++)
    {
      g_autofree char *title = g_strdup_printf ("Older work %u", i);

      g_free (pd_test_add_session (local, title, "plandeck"));
    }
  g_clear_object (&local);
  endpoint_start (&alpha, "127.0.0.1:0");
  configure (&alpha);
  g_assert_cmpint (pd_test_run_app (NULL, check_new_on_top, &alpha, NULL), ==, 0);
  endpoint_stop (&alpha);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *file = g_strconcat (local_db, (const char *[]) { "", "-wal", "-shm" }[i], NULL);

      g_unlink (file);
    }
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pd/ui/endpoints/spellings", test_spellings);
  g_test_add_func ("/pd/ui/endpoints/configured-twice", test_configured_twice);
  g_test_add_func ("/pd/ui/endpoints/host-refused", test_host_refused);
  g_test_add_func ("/pd/ui/endpoints/token-needed", test_token_needed);
  g_test_add_func ("/pd/ui/endpoints/error-in-sight", test_error_in_sight);
  g_test_add_func ("/pd/ui/endpoints/fifty", test_fifty);
  g_test_add_func ("/pd/ui/endpoints/connect-dialog", test_connect_dialog);
  g_test_add_func ("/pd/ui/endpoints/search-hung", test_search_hung);
  g_test_add_func ("/pd/ui/endpoints/search-stopped", test_search_stopped);
  g_test_add_func ("/pd/ui/endpoints/new-on-top", test_new_on_top);
  return g_test_run ();
}
