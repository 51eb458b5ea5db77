/* test-remote-source-restart.c: an endpoint started again is reconnected
 * to soon, however long it was away
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A SoupServer on loopback with an event stream, stopped for 6 s (its
 * port refusing connections) and started again on the same port.  The
 * source's wait between tries doubled to 30 s whatever the cause: a serve
 * restarted after a while was tried again up to 30 s later, its banner
 * saying "connection refused" all the while (tried as a new user would).
 * Counted, not timed: the wait the source keeps for its next try, after
 * the tries refused meanwhile (0.5, 1, 2 s, then 4 and 8 s before the
 * fix), is 2 s at most; then it is online again (60 s only against a
 * hang), its stream opened once more.
 */
#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "pd-remote-source.h"
#include "pd-remote-source-private.h"
#include "pd-test-loopback.h"

#define AWAY_SECONDS 6

typedef struct
{
  SoupServer        *server;
  guint              port;
  guint              streams;   /* event streams opened */
  SoupServerMessage *stream;    /* (nullable) the open one, held */
} Endpoint;

static void
handler (SoupServer        *server,
         SoupServerMessage *msg,
         const char        *path,
         GHashTable        *query,
         gpointer           user_data)
{
  Endpoint *endpoint = user_data;
  const char *body = "[]";

  if (strcmp (path, "/api/events/stream") == 0)
    {
      endpoint->streams++;
      pd_test_loopback_stream_open (msg, &endpoint->stream);
      return;
    }
  if (strcmp (path, "/api/health") == 0)
    body = "{\"status\":\"ok\",\"events_stream\":true}";
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, body, strlen (body));
}

static void
endpoint_start (Endpoint *endpoint)
{
  endpoint->server = pd_test_loopback_start (endpoint->port, handler, endpoint, &endpoint->port);
}

static void
endpoint_stop (Endpoint *endpoint)
{
  pd_test_loopback_stream_close (&endpoint->stream);
  pd_test_loopback_stop (&endpoint->server);
}

static void
wait_state (PdRemoteSource *source,
            PdRemoteState   state)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (pd_remote_source_get_state (source) != state && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (pd_remote_source_get_state (source), ==, state);
}

static gboolean
on_away_over (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
test_restarted_soon (void)
{
  Endpoint endpoint = { 0 };
  g_autoptr(PdRemoteSource) source = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *url = NULL;
  gboolean away_over = FALSE;
  gint64 restarted;
  double took;

  endpoint_start (&endpoint);
  url = g_strdup_printf ("http://127.0.0.1:%u/?token=tok", endpoint.port);
  source = pd_remote_source_new (url, NULL, &error);
  g_assert_no_error (error);
  pd_remote_source_watch (source, 3000);
  wait_state (source, PD_REMOTE_ONLINE);

  /* Stopped: refused at each try, for a while. */
  endpoint_stop (&endpoint);
  wait_state (source, PD_REMOTE_OFFLINE);
  g_timeout_add_seconds (AWAY_SECONDS, on_away_over, &away_over);
  while (!away_over)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (pd_remote_source_get_state (source), ==, PD_REMOTE_OFFLINE);
  /* Refused all along: the next try comes 2 s after the last at most (it
   * was 8 s after 6 s away, and 16 s after 15.5 s). */
  g_test_message ("after %d s away the next try waits %u ms", AWAY_SECONDS, source->reconnect_ms);
  g_assert_cmpuint (source->reconnect_ms, <=, RECONNECT_REFUSED_MAX_MS);

  /* Started again on its port: connected again, its stream opened again. */
  endpoint_start (&endpoint);
  restarted = g_get_monotonic_time ();
  wait_state (source, PD_REMOTE_ONLINE);
  took = (g_get_monotonic_time () - restarted) / (double) G_USEC_PER_SEC;
  g_test_message ("online %.1f s after the restart, %u streams opened", took, endpoint.streams);
  g_assert_cmpuint (endpoint.streams, ==, 2);

  pd_remote_source_watch (source, 0);
  g_clear_object (&source);
  endpoint_stop (&endpoint);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/remote-source/restarted-soon", test_restarted_soon);

  return g_test_run ();
}
