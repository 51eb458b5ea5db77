/* pd-test-loopback.h: a SoupServer on loopback, as the remote source tests
 * make one
 *
 * A real SoupServer on 127.0.0.1 (a given port, or any free one) with one
 * handler for every path, and the event stream such a handler answers and
 * holds open.  test-remote-source-backoff.c, test-remote-source-restart.c,
 * test-remote-source-token.c and test-remote-endpoint.c each wrote this
 * set-up out; pd-test-remote-source.h's odek server is made with it too.
 * Header-only because the test list builds one source file per test.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <libsoup/soup.h>

#include "pd-soup-compat.h"

/* Neither soup_server_listen_local() nor soup_server_get_uris(): libsoup
 * 3.2 leaks an address in each (and each accepted socket, unless plugged).
 * Returns the server listening on 127.0.0.1:@port (0: any free port), its
 * port in @bound. */
static inline SoupServer *
pd_test_loopback_start (guint               port,
                        SoupServerCallback  handler,
                        gpointer            user_data,
                        guint              *bound)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new_from_string ("127.0.0.1", port);
  g_autoptr(GSocketAddress) local = NULL;
  SoupServer *server = soup_server_new (NULL, NULL);
  GSList *listeners;

  pd_soup_server_plug_accept_leak (server);
  soup_server_add_handler (server, NULL, handler, user_data, NULL);
  soup_server_listen (server, address, 0, &error);
  g_assert_no_error (error);
  listeners = soup_server_get_listeners (server);
  local = g_socket_get_local_address (listeners->data, &error);
  g_assert_no_error (error);
  g_slist_free (listeners);
  if (bound != NULL)
    *bound = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local));
  return server;
}

/* Disconnected and gone (its port refuses connections from now on), and
 * what its closing left to run, run. */
static inline void
pd_test_loopback_stop (SoupServer **server)
{
  soup_server_disconnect (*server);
  g_clear_object (server);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* @msg answered as an event stream (a comment line sent) and held open in
 * @held, in place of the one held before. */
static inline void
pd_test_loopback_stream_open (SoupServerMessage  *msg,
                              SoupServerMessage **held)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);

  soup_server_message_set_status (msg, 200, NULL);
  soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_body_append (soup_server_message_get_response_body (msg), SOUP_MEMORY_STATIC, ": hello\n\n", 9);
  g_clear_object (held);
  *held = g_object_ref (msg);
}

/* The stream held in @held, if any, ended. */
static inline void
pd_test_loopback_stream_close (SoupServerMessage **held)
{
  if (*held == NULL)
    return;
  soup_message_body_complete (soup_server_message_get_response_body (*held));
  soup_server_message_unpause (*held);
  g_clear_object (held);
}
