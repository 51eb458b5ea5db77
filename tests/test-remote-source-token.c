/* test-remote-source-token.c: a refusal of the token a request went with
 * is no verdict on the token set since
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A SoupServer on loopback that checks the token of each session list as
 * serve does (403 without the right one) and holds the first list asked
 * until the test lets it answer.  In the window, the sidebar's listing
 * was on its way without a token when the person gave it: its 403 came
 * after the new token was in use, set the endpoint "Token refused" though
 * the new token was taken, and a refused endpoint is never marked
 * offline, so its Overview card never said "Unreachable" once its serve
 * was killed (ui/overview, added-endpoint, 4 runs of 5).
 */
#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "pd-remote-source.h"
#include "pd-test-loopback.h"

#define ID    "20260101-0123456789abcdef0123456789abcdef"
#define TOKEN "right-token"

typedef struct
{
  SoupServer        *server;
  char              *url;
  guint              lists;     /* session lists asked */
  guint              refused;   /* … answered 403 */
  SoupServerMessage *held;      /* (nullable) the first, not answered yet */
} Endpoint;

static void
answer_list (Endpoint          *endpoint,
             SoupServerMessage *msg)
{
  const char *token = soup_message_headers_get_one (soup_server_message_get_request_headers (msg), "X-Odek-Ws-Token");
  const char *body;
  guint status = 200;

  if (g_strcmp0 (token, TOKEN) == 0)
    body = "[{\"id\":\"" ID "\",\"title\":\"Listed\",\"created_at\":\"2026-01-01T10:00:00Z\","
           "\"updated_at\":\"2026-01-01T11:00:00Z\"}]";
  else
    {
      status = 403;
      body = "{\"error\":\"invalid token\"}";
      endpoint->refused++;
    }
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_STATIC, body, strlen (body));
}

static void
handler (SoupServer        *server,
         SoupServerMessage *msg,
         const char        *path,
         GHashTable        *query,
         gpointer           user_data)
{
  Endpoint *endpoint = user_data;

  if (strcmp (path, "/api/sessions") != 0)
    {
      soup_server_message_set_status (msg, 404, NULL);
      return;
    }
  if (endpoint->lists++ == 0)
    {
      /* Checked as it is answered, as serve checks it as it is read. */
      endpoint->held = g_object_ref (msg);
      soup_server_message_pause (msg);
      return;
    }
  answer_list (endpoint, msg);
}

static void
store_result (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static void
iterate_while_null (gpointer *slot)
{
  while (*slot == NULL)
    g_main_context_iteration (NULL, TRUE);
}

static void
test_refused_old_token (void)
{
  Endpoint endpoint = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PdRemoteSource) source = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(PdSessionPage) page = NULL;
  guint port;

  endpoint.server = pd_test_loopback_start (0, handler, &endpoint, &port);
  endpoint.url = g_strdup_printf ("http://127.0.0.1:%u", port);

  /* Listed with no token; the token given while the list is on its way. */
  source = pd_remote_source_new (endpoint.url, NULL, &error);
  g_assert_no_error (error);
  pd_source_list_sessions_async (PD_SOURCE (source), NULL, FALSE, 0, 25, NULL, store_result, &result);
  iterate_while_null ((gpointer *) &endpoint.held);
  pd_remote_source_set_token (source, TOKEN);

  /* The first list refused: it went without the token. */
  answer_list (&endpoint, endpoint.held);
  soup_server_message_unpause (endpoint.held);
  g_clear_object (&endpoint.held);
  iterate_while_null ((gpointer *) &result);
  g_assert_cmpuint (endpoint.refused, ==, 1);

  /* Asked again with the token set since, and listed; the endpoint is not
   * taken for one that refuses it. */
  page = pd_source_list_sessions_finish (PD_SOURCE (source), result, &error);
  g_assert_no_error (error);
  g_assert_nonnull (page);
  g_assert_cmpuint (page->sessions->len, ==, 1);
  g_assert_cmpuint (endpoint.lists, ==, 2);
  g_assert_cmpint (pd_remote_source_get_state (source), !=, PD_REMOTE_DENIED);

  /* A token refused that is the one in use is still a refusal. */
  g_clear_pointer (&page, pd_session_page_free);
  g_clear_object (&result);
  pd_remote_source_set_token (source, "wrong-token");
  pd_source_list_sessions_async (PD_SOURCE (source), NULL, FALSE, 0, 25, NULL, store_result, &result);
  iterate_while_null ((gpointer *) &result);
  page = pd_source_list_sessions_finish (PD_SOURCE (source), result, &error);
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_DENIED);
  g_assert_null (page);
  g_assert_cmpuint (endpoint.lists, ==, 3);
  g_assert_cmpint (pd_remote_source_get_state (source), ==, PD_REMOTE_DENIED);

  g_clear_object (&source);
  pd_test_loopback_stop (&endpoint.server);
  g_free (endpoint.url);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/remote-source/refused-old-token", test_refused_old_token);

  return g_test_run ();
}
