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
#include "pd-remote-url.h"
#include "pd-test-loopback.h"

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
  fake->asked = g_ptr_array_new_with_free_func (g_free);
  fake->server = pd_test_loopback_start (0, fake_handler, fake, &fake->port);
}

static void
fake_stop (Fake *fake)
{
  pd_test_loopback_stop (&fake->server);
  g_clear_pointer (&fake->asked, g_ptr_array_unref);
}

static void
store_result (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static GAsyncResult *
wait_result (GAsyncResult **slot)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  while (*slot == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (*slot);
  return *slot;
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
  /* The source and its connections let go before the server stops. */
  g_clear_object (&source);
  run_for (100);
  fake_stop (&fake);
}

/* An endpoint behind a proxy, under a path and with a query the proxy
 * needs: every request goes under the path with the query, the list's
 * and the watch's alike, and the token never in the URL. */
static void
test_base_path (void)
{
  Fake fake = { 0 };
  g_autofree char *url = NULL;
  g_autoptr(PdRemoteSource) source = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(PdSessionPage) page = NULL;
  g_autofree char *expected = NULL;
  gboolean health_there = FALSE;

  fake_start (&fake);
  url = g_strdup_printf ("http://127.0.0.1:%u/plandeck/?x=y&token=t0ken", fake.port);
  source = pd_remote_source_new (url, NULL, &error);
  g_assert_no_error (error);
  expected = g_strdup_printf ("http://127.0.0.1:%u/plandeck?x=y", fake.port);
  g_assert_cmpstr (pd_remote_source_get_base_url (source), ==, expected);
  g_assert_cmpstr (pd_remote_source_get_token (source), ==, "t0ken");

  pd_source_list_sessions_async (PD_SOURCE (source), NULL, FALSE, 0, 10, NULL, store_result, &result);
  page = pd_source_list_sessions_finish (PD_SOURCE (source), wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (fake.asked->len, >=, 1);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (fake.asked, 0), "/plandeck/api/sessions?x=y&"));

  pd_remote_source_watch (source, 200);
  while (pd_remote_source_get_state (source) != PD_REMOTE_ONLINE)
    g_main_context_iteration (NULL, TRUE);
  pd_remote_source_watch (source, 0);
  for (guint i = 0; i < fake.asked->len; i++)
    {
      const char *asked = g_ptr_array_index (fake.asked, i);

      g_test_message ("asked %s", asked);
      g_assert_true (g_str_has_prefix (asked, "/plandeck/api/"));
      g_assert_nonnull (strstr (asked, "x=y"));
      g_assert_null (strstr (asked, "t0ken"));
      health_there |= strcmp (asked, "/plandeck/api/health?x=y") == 0;
    }
  g_assert_true (health_there);
  g_clear_object (&source);
  run_for (100);
  fake_stop (&fake);
}

/* The spellings of one endpoint have one key; others do not. */
static void
test_key (void)
{
  const char *same[] = {
    "http://127.0.0.1:8080", "http://localhost:8080", "http://127.0.0.2:8080/", "http://[::1]:8080",
    "http://0.0.0.0:8080", "HTTP://LOCALHOST:8080/", "http://localhost:8080/?token=abc", "http://LocalHost.:8080//",
  };
  const char *other[] = {
    "http://127.0.0.1:8081", "https://127.0.0.1:8080", "http://build-box:8080", "http://127.0.0.1:8080/plandeck",
  };
  g_autofree char *key = pd_remote_url_dup_key (same[0]);

  g_assert_nonnull (key);
  for (guint i = 1; i < G_N_ELEMENTS (same); i++)
    {
      g_autofree char *other_key = pd_remote_url_dup_key (same[i]);

      g_assert_cmpstr (other_key, ==, key);
    }
  for (guint i = 0; i < G_N_ELEMENTS (other); i++)
    {
      g_autofree char *other_key = pd_remote_url_dup_key (other[i]);

      g_assert_nonnull (other_key);
      g_assert_cmpstr (other_key, !=, key);
    }
  {
    g_autofree char *a = pd_remote_url_dup_key ("http://Build-Box");
    g_autofree char *b = pd_remote_url_dup_key ("http://build-box:80/");
    g_autofree char *c = pd_remote_url_dup_key ("https://build-box:443");
    g_autofree char *d = pd_remote_url_dup_key ("https://build-box");

    g_assert_cmpstr (a, ==, b);
    g_assert_cmpstr (c, ==, d);
    g_assert_cmpstr (a, !=, c);
  }
  g_assert_null (pd_remote_url_dup_key ("ftp://127.0.0.1"));
  g_assert_null (pd_remote_url_dup_key ("not a url"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pd/remote-endpoint/base-path", test_base_path);
  g_test_add_func ("/pd/remote-endpoint/key", test_key);
  g_test_add_func ("/pd/remote-endpoint/health-backoff", test_health_backoff);
  return g_test_run ();
}
