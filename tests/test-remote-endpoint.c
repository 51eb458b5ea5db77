/* test-remote-endpoint.c: where a PdRemoteSource asks, and how often: the
 * API paths joined to a base address with a path or a query, and the
 * health check of an endpoint that is down, which waits as the stream's
 * reconnection does.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-remote-endpoint"

#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "pd-remote-source.h"

typedef struct
{
  SoupServer *server;
  guint       port;
  GPtrArray  *asked;     /* "PATH?QUERY" of each request */
  guint       health;    /* /api/health asked */
  guint       mode;      /* 0: answers; 1: 503 to everything */
} Fake;

static void
fake_handler (SoupServer        *server,
              SoupServerMessage *msg,
              const char        *path,
              GHashTable        *query,
              gpointer           user_data)
{
  Fake *fake = user_data;
  GUri *uri = soup_server_message_get_uri (msg);
  const char *body = "{}";

  g_ptr_array_add (fake->asked, g_strdup_printf ("%s?%s", g_uri_get_path (uri),
                                                 g_uri_get_query (uri) ? g_uri_get_query (uri) : ""));
  if (g_str_has_suffix (path, "/api/health"))
    fake->health++;
  if (fake->mode == 1)
    {
      soup_server_message_set_status (msg, 503, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC,
                                        "{\"error\":\"down\"}", strlen ("{\"error\":\"down\"}"));
      return;
    }
  if (g_str_has_suffix (path, "/api/sessions"))
    body = "[]";
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, body, strlen (body));
}

static void
fake_start (Fake *fake)
{
  g_autoptr(GError) error = NULL;
  GSList *uris;

  fake->asked = g_ptr_array_new_with_free_func (g_free);
  fake->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (fake->server, NULL, fake_handler, fake, NULL);
  g_assert_true (soup_server_listen_local (fake->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  uris = soup_server_get_uris (fake->server);
  fake->port = g_uri_get_port (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);
}

static void
fake_stop (Fake *fake)
{
  soup_server_disconnect (fake->server);
  g_clear_object (&fake->server);
  g_clear_pointer (&fake->asked, g_ptr_array_unref);
}

static gboolean
quit_later (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

static void
run_for (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, quit_later, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

/* An endpoint that answered and then answers 503 to everything (a proxy
 * whose backend went) is down: Unreachable, and its health check waits as
 * the stream's reconnection does (0.5 s, 1 s, 2 s, 4 s: five asks in 8 s),
 * not the watchdog's second.  A busy machine asks fewer, never more. */
static void
test_health_backoff (void)
{
  Fake fake = { 0 };
  g_autofree char *url = NULL;
  g_autoptr(PdRemoteSource) source = NULL;
  g_autoptr(GError) error = NULL;

  fake_start (&fake);
  url = g_strdup_printf ("http://127.0.0.1:%u", fake.port);
  source = pd_remote_source_new (url, "t0ken", &error);
  g_assert_no_error (error);
  pd_remote_source_watch (source, 200);
  while (pd_remote_source_get_state (source) != PD_REMOTE_ONLINE)
    g_main_context_iteration (NULL, TRUE);
  run_for (1000);
  fake.mode = 1;
  fake.health = 0;
  run_for (8000);
  g_test_message ("/api/health asked %u times in 8 s while the endpoint answered 503", fake.health);
  g_assert_cmpint (pd_remote_source_get_state (source), ==, PD_REMOTE_OFFLINE);
  g_assert_cmpuint (fake.health, <=, 8);
  pd_remote_source_watch (source, 0);
  fake_stop (&fake);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pd/remote-endpoint/health-backoff", test_health_backoff);
  return g_test_run ();
}
