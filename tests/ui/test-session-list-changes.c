/* test-session-list-changes.c: the sidebar's list of an endpoint that
 * changes all the time
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A PdSessionList in a real window on a PdRemoteSource over a SoupServer
 * on loopback whose listings take longer than the changes it tells of.
 */
#define G_LOG_DOMAIN "test-session-list-changes"

#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "pd-remote-source.h"
#include "pd-session-item.h"
#include "pd-session-list.h"
#include "pd-test-ui.h"

/* --- changes while a listing is on its way ------------------------------- */

/* An endpoint on loopback that answers each session list 300 ms after it
 * was asked, with the title it held as it was asked: a busy server whose
 * database another process writes every 200 ms. */
typedef struct
{
  SoupServer *server;
  char       *url;
  guint       version;    /* the session's title, at each change */
  guint       asked;
  guint       answered;
  GPtrArray  *replies;    /* (element-type BusyReply) */
} BusyEndpoint;

typedef struct
{
  BusyEndpoint      *endpoint;
  SoupServerMessage *msg;
  guint              version;
  guint              timer;
  gboolean           finished;  /* answered, or the client went away */
} BusyReply;

static void
busy_reply_free (BusyReply *reply)
{
  g_clear_handle_id (&reply->timer, g_source_remove);
  g_signal_handlers_disconnect_by_data (reply->msg, reply);
  g_object_unref (reply->msg);
  g_free (reply);
}

static void
on_busy_finished (BusyReply *reply)
{
  reply->finished = TRUE;
}

static gboolean
busy_answer (gpointer data)
{
  BusyReply *reply = data;
  g_autofree char *body = NULL;

  reply->timer = 0;
  if (reply->finished)
    return G_SOURCE_REMOVE;
  body = g_strdup_printf ("[{\"id\":\"20260101-0123456789abcdef0123456789abcdef\",\"title\":\"Version %u\","
                          "\"created_at\":\"2026-01-01T10:00:00Z\",\"updated_at\":\"2026-01-01T11:00:00Z\"}]",
                          reply->version);
  soup_server_message_set_status (reply->msg, 200, NULL);
  soup_server_message_set_response (reply->msg, "application/json", SOUP_MEMORY_COPY, body, strlen (body));
  soup_server_message_unpause (reply->msg);
  reply->endpoint->answered++;
  return G_SOURCE_REMOVE;
}

static void
busy_handler (SoupServer        *server,
              SoupServerMessage *msg,
              const char        *path,
              GHashTable        *query,
              gpointer           user_data)
{
  BusyEndpoint *endpoint = user_data;
  BusyReply *reply;

  if (strcmp (path, "/api/sessions") != 0)
    {
      soup_server_message_set_status (msg, 404, NULL);
      return;
    }
  endpoint->asked++;
  reply = g_new0 (BusyReply, 1);
  reply->endpoint = endpoint;
  reply->msg = g_object_ref (msg);
  reply->version = endpoint->version;
  g_ptr_array_add (endpoint->replies, reply);
  g_signal_connect_swapped (msg, "finished", G_CALLBACK (on_busy_finished), reply);
  soup_server_message_pause (msg);
  reply->timer = g_timeout_add (300, busy_answer, reply);
}

static gboolean
busy_change (gpointer data)
{
  PdSource *source = data;
  BusyEndpoint *endpoint = g_object_get_data (G_OBJECT (source), "busy-endpoint");

  endpoint->version++;
  pd_source_emit_changed (source);
  return G_SOURCE_CONTINUE;
}

static gboolean
busy_listed_or_asked_much (gpointer data)
{
  PdSessionList *list = data;
  BusyEndpoint *endpoint = g_object_get_data (G_OBJECT (pd_session_list_get_source (list)), "busy-endpoint");

  return pd_session_list_get_generation (list) >= 3 || endpoint->asked >= 40;
}

static gboolean
busy_shows_last (gpointer data)
{
  PdSessionList *list = data;
  BusyEndpoint *endpoint = g_object_get_data (G_OBJECT (pd_session_list_get_source (list)), "busy-endpoint");
  g_autoptr(PdSessionItem) item = g_list_model_get_item (G_LIST_MODEL (pd_session_list_get_model (list)), 0);
  g_autofree char *last = g_strdup_printf ("Version %u", endpoint->version);

  return !pd_session_list_get_busy (list) && item != NULL &&
         g_strcmp0 (pd_session_item_get_title (item), last) == 0;
}

/* Tried as an attacker would: with a change every half second, each one
 * cancelled the listing on its way and asked again, and none was ever
 * answered.  Changes every 200 ms, a listing that takes 300 ms: listings
 * arrive, one asked at a time, and the last change shows once they stop. */
static void
test_session_list_changes_in_flight (void)
{
  BusyEndpoint endpoint = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketAddress) local = NULL;
  g_autoptr(GSocketAddress) loopback = g_inet_socket_address_new_from_string ("127.0.0.1", 0);
  g_autoptr(PdRemoteSource) source = NULL;
  GSList *listeners;
  GtkWindow *window;
  PdSessionList *list;
  guint ticker;

  endpoint.replies = g_ptr_array_new_with_free_func ((GDestroyNotify) busy_reply_free);
  endpoint.server = soup_server_new (NULL, NULL);
  soup_server_add_handler (endpoint.server, NULL, busy_handler, &endpoint, NULL);
  soup_server_listen (endpoint.server, loopback, 0, &error);
  g_assert_no_error (error);
  listeners = soup_server_get_listeners (endpoint.server);
  local = g_socket_get_local_address (listeners->data, &error);
  g_assert_no_error (error);
  g_slist_free (listeners);
  endpoint.url = g_strdup_printf ("http://127.0.0.1:%u", g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local)));
  source = pd_remote_source_new (endpoint.url, NULL, &error);
  g_assert_no_error (error);
  g_object_set_data (G_OBJECT (source), "busy-endpoint", &endpoint);

  window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (window, 320, 600);
  list = g_object_new (PD_TYPE_SESSION_LIST, NULL);
  gtk_window_set_child (window, GTK_WIDGET (list));
  gtk_window_present (window);
  pd_session_list_set_source (list, PD_SOURCE (source));
  ticker = g_timeout_add (200, busy_change, source);

  pd_test_wait_until (busy_listed_or_asked_much, list, "three listings under changes");
  g_test_message ("%u listings asked, %u answered, %u merged", endpoint.asked, endpoint.answered,
                  pd_session_list_get_generation (list));
  g_assert_true (pd_session_list_get_loaded (list));
  g_assert_cmpuint (pd_session_list_get_generation (list), >=, 3);
  /* One on its way at a time: each asked was answered, but the last. */
  g_assert_cmpuint (endpoint.asked, <=, endpoint.answered + 1);

  /* The changes stop: the last one shows, asked once more after them. */
  g_source_remove (ticker);
  pd_test_wait_until (busy_shows_last, list, "the last change listed");

  pd_session_list_set_source (list, NULL);
  pd_test_destroy_window (window, list);
  pd_test_assert_finalized (g_steal_pointer (&source));
  soup_server_disconnect (endpoint.server);
  g_clear_object (&endpoint.server);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_ptr_array_unref (endpoint.replies);
  g_free (endpoint.url);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/session-list/changes-in-flight", test_session_list_changes_in_flight);

  return g_test_run ();
}
