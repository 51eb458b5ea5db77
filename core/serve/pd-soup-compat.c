/* pd-soup-compat.c: what Plandeck does about libsoup 3.2's server leaks
 * (see pd-soup-compat.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-server"

#include "config.h"

#include "pd-soup-compat.h"

#define PLUGGED "pd-soup-accept-leak-checked"

/* SoupServer::request-started.  In libsoup 3.2 and 3.3 it is emitted for a
 * new connection's first message from soup_server_connection_accepted(),
 * right after the listener made the connection: then the socket is held by
 * the listener's lost reference and by the connection, and nothing else.  A
 * libsoup without the leak holds it once. */
static void
on_request_started (SoupServer        *server,
                    SoupServerMessage *msg,
                    gpointer           user_data)
{
  GSocket *socket = soup_server_message_get_socket (msg);

  if (socket == NULL || g_object_get_data (G_OBJECT (socket), PLUGGED) != NULL)
    return;
  g_object_set_data (G_OBJECT (socket), PLUGGED, GINT_TO_POINTER (TRUE));

  /* The listener's lost reference and the connection's: drop the lost one.
   * (GObject's ref_count is readable; it is only never to be written.) */
  if (g_atomic_int_get ((gint *) &G_OBJECT (socket)->ref_count) == 2)
    g_object_unref (socket);
}

/**
 * pd_soup_server_plug_accept_leak:
 *
 * Call it right after soup_server_new(), before connecting anything else to
 * SoupServer::request-started: it counts the socket's references, and a
 * handler that runs before it and takes one would hide the lost reference.
 */
void
pd_soup_server_plug_accept_leak (SoupServer *server)
{
  g_return_if_fail (SOUP_IS_SERVER (server));

  if (soup_get_major_version () != 3 || soup_get_minor_version () >= 4)
    return;
  g_signal_connect (server, "request-started", G_CALLBACK (on_request_started), NULL);
}
