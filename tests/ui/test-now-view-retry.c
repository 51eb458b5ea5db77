/* test-now-view-retry.c: the Now page of an endpoint whose plan fails
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A PdNowView in a real window on a PdRemoteSource over a SoupServer on
 * loopback that answers the plan with a 500 until it is mended, counting
 * what it is asked.
 */
#define G_LOG_DOMAIN "test-now-view-retry"

#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "pd-now-view.h"
#include "pd-remote-source.h"
#include "pd-remote-source-private.h"
#include "pd-session-view.h"
#include "pd-test-ui.h"

#define REMOTE_ID "20261204-00000000000000000000000000abc000"

typedef struct
{
  gboolean broken;
  guint    plans;   /* asked */
} Endpoint;

static void
handler (SoupServer        *server,
         SoupServerMessage *msg,
         const char        *path,
         GHashTable        *query,
         gpointer           user_data)
{
  Endpoint *endpoint = user_data;
  const char *body;
  guint status = 200;

  if (g_str_has_suffix (path, "/plan") || g_str_has_suffix (path, "/plan/detail"))
    {
      endpoint->plans++;
      status = endpoint->broken ? 500 : 200;
      body = endpoint->broken ? "{\"error\":\"database is locked\"}"
                              : "{\"found\":true,\"version\":2,\"steps\":[{\"id\":\"s1\",\"title\":\"Read\",\"status\":\"done\"}]}";
    }
  else if (g_str_has_prefix (path, "/api/events"))
    body = "{\"events\":[]}";
  else
    {
      status = 404;
      body = "{\"error\":\"not found\"}";
    }
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, body, strlen (body));
}

static gboolean
idle_with_error (gpointer data)
{
  return !pd_session_view_get_busy (data) && pd_session_view_get_error (data) != NULL;
}

static gboolean
idle (gpointer data)
{
  return !pd_session_view_get_busy (data);
}

static gboolean
is_retry (GtkWidget     *widget,
          gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), "_Retry") == 0;
}

/* Tried as an attacker would: the page asked a plan that failed again at
 * each poll.  It is asked again once its wait is over, each poll saying
 * the same meanwhile; Retry asks at once. */
static void
test_now_retry_asks_at_once (void)
{
  Endpoint endpoint = { TRUE, 0 };
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(GSList) uris = NULL;
  g_autofree char *url = NULL;
  g_autofree char *said = NULL;
  g_autoptr(PdRemoteSource) remote = NULL;
  g_autoptr(GError) error = NULL;
  GtkWindow *window;
  PdNowView *view;
  GtkWidget *retry;

  soup_server_add_handler (server, NULL, handler, &endpoint, NULL);
  g_assert_true (soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  uris = soup_server_get_uris (server);
  url = g_uri_to_string (uris->data);
  g_slist_free_full (g_steal_pointer (&uris), (GDestroyNotify) g_uri_unref);
  remote = pd_remote_source_new (url, NULL, &error);
  g_assert_no_error (error);
  /* No wait ends by itself during the test. */
  remote->failed_first_ms = 60000;

  window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (window, 900, 400);
  view = PD_NOW_VIEW (pd_now_view_new ());
  gtk_window_set_child (window, GTK_WIDGET (view));
  gtk_window_present (window);
  pd_test_flush (GTK_WIDGET (window));
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (remote));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), REMOTE_ID);

  pd_test_wait_until (idle_with_error, view, "the failed plan");
  said = g_strdup (pd_session_view_get_error (PD_SESSION_VIEW (view)));
  g_assert_nonnull (strstr (said, "answered HTTP 500: database is locked"));
  g_assert_cmpuint (endpoint.plans, ==, 1);

  /* A poll (or a change): the same said, nothing asked. */
  pd_now_view_refresh (view);
  pd_test_wait_until (idle_with_error, view, "the poll's answer");
  g_assert_cmpstr (pd_session_view_get_error (PD_SESSION_VIEW (view)), ==, said);
  g_assert_cmpuint (endpoint.plans, ==, 1);

  /* Mended, and the person presses Retry: asked at once, the plan shown. */
  endpoint.broken = FALSE;
  pd_test_flush (GTK_WIDGET (window));
  retry = pd_test_find_first (GTK_WIDGET (view), is_retry, NULL);
  g_assert_nonnull (retry);
  g_signal_emit_by_name (retry, "clicked");
  g_assert_true (pd_session_view_get_busy (PD_SESSION_VIEW (view)));
  pd_test_wait_until (idle, view, "the plan after Retry");
  g_assert_null (pd_session_view_get_error (PD_SESSION_VIEW (view)));
  g_assert_cmpuint (endpoint.plans, ==, 2);

  pd_session_view_set_session_id (PD_SESSION_VIEW (view), NULL);
  pd_session_view_set_source (PD_SESSION_VIEW (view), NULL);
  pd_test_destroy_window (window, view);
  pd_test_assert_finalized (g_steal_pointer (&remote));
  soup_server_disconnect (server);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/now-view/retry-asks-at-once", test_now_retry_asks_at_once);

  return g_test_run ();
}
