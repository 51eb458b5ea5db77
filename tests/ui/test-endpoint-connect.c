/* test-endpoint-connect.c: where the keyboard focus goes after Connect on
 * an endpoint's page
 *
 * Found tried as a new user would: an endpoint restarted with a new token
 * read "Token refused"; chosen in the sidebar, its page took the new token
 * in its entry and Enter connected it, but the page went with the focus
 * in it: no focused object, and the next Tab went to New Session at the
 * top.  The focus now goes to the endpoint's first session.
 *
 * A real `plandeck-agent serve` on loopback, the window of the default
 * database with it configured under a token it refuses.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-endpoint-connect"

#include "config.h"

#include <glib/gstdio.h>

#include "pd-application.h"
#include "pd-remote-source.h"
#include "pd-secrets.h"
#include "pd-session-list.h"
#include "pd-session-row.h"
#include "pd-source-sidebar.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-spawn.h"
#include "pd-test-ui.h"
#include "pd-window-private.h"

typedef struct
{
  char        *dir;
  GSubprocess *serve;
  char        *base;
  char        *token;
} Endpoint;

static void
endpoint_start (Endpoint *endpoint)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GUri) uri = NULL;
  g_autofree char *db = NULL;
  g_autofree char *url = NULL;

  endpoint->dir = pd_test_make_tmp_dir ();
  db = g_build_filename (endpoint->dir, "sessions.db", NULL);
  {
    g_autoptr(PdSessionStore) store = pd_test_open_store (db);

    g_free (pd_test_add_session (store, "Endpoint notes", "plandeck"));
  }
  endpoint->serve = pd_test_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error,
                                   g_getenv ("PLANDECK_AGENT"), "serve", "--db", db,
                                   "--listen", "127.0.0.1:0", "--rate-limit", "0", NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (endpoint->serve));
  url = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (url);
  uri = g_uri_parse (url, G_URI_FLAGS_NONE, &error);
  g_assert_no_error (error);
  endpoint->base = g_strdup_printf ("http://%s:%d", g_uri_get_host (uri), g_uri_get_port (uri));
  g_free (pd_window_split_endpoint_url (url, &endpoint->token));
  g_assert_nonnull (endpoint->token);
}

static void
endpoint_stop (Endpoint *endpoint)
{
  g_subprocess_force_exit (endpoint->serve);
  g_subprocess_wait (endpoint->serve, NULL, NULL);
  g_clear_object (&endpoint->serve);
  pd_secrets_keep_for_session (endpoint->base, NULL);
  g_free (endpoint->dir);
  g_free (endpoint->base);
  g_free (endpoint->token);
}

static PdSource *
endpoint_source (PdWindow *window)
{
  g_autoptr(PdSource) source = g_list_model_get_item (_pd_window_get_sources (window), 1);

  return source;
}

static gboolean
endpoint_denied (gpointer data)
{
  PdSource *source = endpoint_source (data);

  return source != NULL && PD_IS_REMOTE_SOURCE (source) &&
         pd_remote_source_get_state (PD_REMOTE_SOURCE (source)) == PD_REMOTE_DENIED;
}

static gboolean
token_entry_mapped (gpointer data)
{
  GtkWidget *box = g_object_get_data (G_OBJECT (data), "pd-endpoint-token-box");

  return box != NULL && gtk_widget_get_mapped (box);
}

static gboolean
endpoint_listed (gpointer data)
{
  PdWindow *window = data;

  return pd_session_list_get_loaded (window->session_list) &&
         pd_test_find_label (GTK_WIDGET (window->session_list), "Endpoint notes") != NULL;
}

/* The focus is on a shown row of the session list. */
static gboolean
focus_on_row (PdWindow *window)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkWidget *row;

  if (focus == NULL || !gtk_widget_get_mapped (focus) ||
      !gtk_widget_is_ancestor (focus, GTK_WIDGET (window->session_list)))
    return FALSE;
  row = PD_IS_SESSION_ROW (focus) ? focus : pd_test_find_widget (focus, PD_TYPE_SESSION_ROW);
  return row != NULL && pd_test_find_label (row, "Endpoint notes") != NULL;
}

static void
check_focus_after_connect (PdApplication *app,
                           PdWindow      *window,
                           gpointer       user_data)
{
  Endpoint *endpoint = user_data;
  GtkWidget *entry;
  GtkWidget *focus;
  gint64 deadline;

  pd_test_wait_until (endpoint_denied, window, "the endpoint refusing the token kept");
  pd_source_sidebar_select (window->source_sidebar, endpoint_source (window));
  pd_test_wait_until (token_entry_mapped, window, "the endpoint's page with its token entry");
  entry = g_object_get_data (G_OBJECT (window), "pd-endpoint-token");
  /* As a keyboard user: in the entry, the token typed, Enter. */
  g_assert_true (gtk_widget_grab_focus (entry));
  gtk_editable_set_text (GTK_EDITABLE (entry), endpoint->token);
  g_signal_emit_by_name (entry, "activate");
  pd_test_wait_until (endpoint_listed, window, "the endpoint's sessions listed with the token given");

  /* A second for the row to be laid out and take the focus. */
  deadline = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
  while (!focus_on_row (window) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  focus = gtk_root_get_focus (GTK_ROOT (window));
  g_test_message ("the focus after Connect: %s%s", focus != NULL ? G_OBJECT_TYPE_NAME (focus) : "(none)",
                  focus != NULL && !gtk_widget_get_mapped (focus) ? ", not shown" : "");
  pd_test_screenshot (GTK_WIDGET (window), "endpoint-connect-focus");
  /* Before: the token entry, gone with its page. */
  g_assert_true (focus_on_row (window));
  pd_source_sidebar_select (window->source_sidebar, NULL);
}

static void
test_focus_after_connect (void)
{
  Endpoint endpoint = { 0 };
  g_autoptr(GSettings) settings = NULL;
  GVariantBuilder builder;

  endpoint_start (&endpoint);
  pd_test_reset_settings ();
  /* A token it does not take: as after serve restarted with a new one. */
  pd_secrets_keep_for_session (endpoint.base, "an-old-token-it-refuses");
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sss)"));
  g_variant_builder_add (&builder, "(sss)", "demo-id", "Demo box", endpoint.base);
  settings = g_settings_new (APP_ID);
  g_settings_set_value (settings, "sources", g_variant_builder_end (&builder));
  g_assert_cmpint (pd_test_run_app (NULL, check_focus_after_connect, &endpoint, NULL), ==, 0);
  endpoint_stop (&endpoint);
  pd_test_reset_settings ();
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/endpoint-connect/focus-after-connect", test_focus_after_connect);

  return g_test_run ();
}
