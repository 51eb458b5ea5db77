/* pd-server-accept.c: `plandeck-agent serve` listens and accepts itself.
 *
 * libsoup 3.2's listener (soup-listener.c, listen_watch()) accepts one
 * connection each time its source is dispatched: one per main-loop
 * iteration.  Tried as an attacker would: thousands of connections opened
 * as fast as the server closes them, each sending a byte a second, kept
 * the listen queue full of that client's connections, and each iteration
 * (a poll of every descriptor held, and a dispatch of those that had a
 * byte) let one of them in.  Another client's connection waited behind a
 * queue of them: seconds, though the cap and the share of one address
 * (pd-server-conns.c) left it room.
 *
 * So the listening socket is serve's own.  When it is readable, up to
 * ACCEPT_PER_TURN connections are accepted in a row, until the queue is
 * empty (EAGAIN).  A client address already holding its share, with none of
 * its connections to give way, has the new one closed at once, before
 * libsoup sees it: the cost of an accept() and a close().  The others are
 * handed to libsoup with soup_server_accept_iostream() (in libsoup since
 * 2.50), which sets the connection up and emits request-started at once,
 * where pd-server-conns.c counts it against the cap as before.
 *
 * A connection libsoup makes from a stream has no socket for
 * soup_server_message_get_socket(): serve needs it (to watch it, to write
 * an event stream to it, to refuse a request unread), so the remote
 * address handed with it carries it (_pd_server_message_socket()).
 *
 * All on the server's thread.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-server"
/* accept4() */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pd-server-private.h"

/* Connections the kernel queues for accept().  GSocket's default is 10:
 * when more clients connect at once (a thousand watchers of the event
 * stream after a restart), a SYN past it waits a second or more for its
 * retransmission.  The kernel bounds it by somaxconn. */
#define LISTEN_BACKLOG  1024
/* Connections accepted in one dispatch at most: the queue drains in a few
 * iterations, and the other sources of an iteration still run. */
#define ACCEPT_PER_TURN 64
/* How long accepting waits when the process or the system is out of
 * descriptors: a source that stays readable would spin otherwise. */
#define ACCEPT_PAUSE_MS 100

#define SOCKET_KEY "pd-server-socket"

static void accept_watch (PdServer *self);

static gboolean
on_accept_resume (gpointer user_data)
{
  PdServer *self = user_data;

  g_clear_pointer (&self->accept_pause, g_source_unref);
  accept_watch (self);
  return G_SOURCE_REMOVE;
}

/* Hands an accepted descriptor to libsoup, or closes it when its address
 * has no room.  @fd is taken. */
static void
accept_one (PdServer        *self,
            int              fd,
            struct sockaddr *peer,
            socklen_t        peer_len)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSocketAddress) remote = NULL;
  g_autoptr(GSocketAddress) local = NULL;
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GSocketConnection) connection = NULL;
  g_autofree char *address = NULL;
  int one = 1;

  remote = g_socket_address_new_from_native (peer, peer_len);
  if (G_IS_INET_SOCKET_ADDRESS (remote))
    address = g_inet_address_to_string (g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (remote)));
  if (remote == NULL || !_pd_server_conns_admit (self, address != NULL ? address : ""))
    {
      close (fd);
      return;
    }

  socket = g_socket_new_from_fd (fd, &error);
  if (socket == NULL)
    {
      g_debug ("an accepted connection is no socket: %s", error->message);
      close (fd);
      return;
    }
  local = g_socket_get_local_address (socket, NULL);
  if (local == NULL)
    return;   /* reset already: closed with @socket */
  /* What libsoup's listener sets: answers are written in one go. */
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);

  g_object_set_data_full (G_OBJECT (remote), SOCKET_KEY, g_object_ref (socket), g_object_unref);
  connection = g_socket_connection_factory_create_connection (socket);
  soup_server_accept_iostream (self->soup, G_IO_STREAM (connection), local, remote, NULL);
}

static gboolean
on_listener_readable (GSocket      *listener,
                      GIOCondition  condition,
                      gpointer      user_data)
{
  PdServer *self = user_data;

  for (guint i = 0; i < ACCEPT_PER_TURN; i++)
    {
      struct sockaddr_storage peer;
      socklen_t len = sizeof peer;
      int fd = accept4 (g_socket_get_fd (listener), (struct sockaddr *) &peer, &len,
                        SOCK_NONBLOCK | SOCK_CLOEXEC);

      if (fd >= 0)
        {
          accept_one (self, fd, (struct sockaddr *) &peer, len);
          continue;
        }
      if (errno == EINTR || errno == ECONNABORTED)
        continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
        {
          /* Not the end of listening (libsoup's listener gave up here for
           * good): once connections close, descriptors are free again. */
          g_debug ("cannot accept a connection now: %s", g_strerror (errno));
          g_clear_pointer (&self->accept_source, g_source_unref);
          self->accept_pause = g_timeout_source_new (ACCEPT_PAUSE_MS);
          g_source_set_callback (self->accept_pause, on_accept_resume, self, NULL);
          g_source_attach (self->accept_pause, self->context);
          return G_SOURCE_REMOVE;
        }
      if (errno != EAGAIN && errno != EWOULDBLOCK)
        g_debug ("accept() failed: %s", g_strerror (errno));
      break;
    }
  return G_SOURCE_CONTINUE;
}

static void
accept_watch (PdServer *self)
{
  self->accept_source = g_socket_create_source (self->listener, G_IO_IN, NULL);
  g_source_set_callback (self->accept_source, (GSourceFunc) (GCallback) on_listener_readable, self, NULL);
  g_source_attach (self->accept_source, self->context);
}

/**
 * _pd_server_accept_listen:
 *
 * Listens on @address (IPv6 alone on an IPv6 address, as libsoup did) and
 * accepts from the server's context.  The port taken is in self->port.
 */
gboolean
_pd_server_accept_listen (PdServer        *self,
                          GSocketAddress  *address,
                          GError         **error)
{
  GSocketFamily family = g_socket_address_get_family (address);
  g_autoptr(GSocket) listener = NULL;
  g_autoptr(GSocketAddress) local = NULL;
  GMainContext *idle_context;
  gboolean listening;

  listener = g_socket_new (family, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, error);
  if (listener == NULL)
    return FALSE;
  if (family == G_SOCKET_FAMILY_IPV6)
    g_socket_set_option (listener, IPPROTO_IPV6, IPV6_V6ONLY, TRUE, NULL);
  g_socket_set_blocking (listener, FALSE);
  g_socket_set_listen_backlog (listener, LISTEN_BACKLOG);
  if (!g_socket_bind (listener, address, TRUE, error) || !g_socket_listen (listener, error))
    return FALSE;

  local = g_socket_get_local_address (listener, NULL);
  if (local != NULL && G_IS_INET_SOCKET_ADDRESS (local))
    self->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local));
  /* libsoup keeps a connection alive after a request only while the
   * server has a listener of its own (request_finished() in soup-server.c):
   * without one every client had to connect again for each request.  So
   * libsoup gets this socket too, but its listener's source is attached to
   * a context of its own (it takes the thread-default one when made),
   * dropped at once: the source goes with it (and its wakeup descriptor,
   * which counts under a small limit), so libsoup never accepts anything. */
  idle_context = g_main_context_new ();
  g_main_context_push_thread_default (idle_context);
  listening = soup_server_listen_socket (self->soup, listener, 0, error);
  g_main_context_pop_thread_default (idle_context);
  g_clear_pointer (&idle_context, g_main_context_unref);
  if (!listening)
    return FALSE;
  self->listener = g_steal_pointer (&listener);
  accept_watch (self);
  return TRUE;
}

/* Stops accepting and closes the listening socket. */
void
_pd_server_accept_close (PdServer *self)
{
  if (self->accept_source != NULL)
    {
      g_source_destroy (self->accept_source);
      g_clear_pointer (&self->accept_source, g_source_unref);
    }
  if (self->accept_pause != NULL)
    {
      g_source_destroy (self->accept_pause);
      g_clear_pointer (&self->accept_pause, g_source_unref);
    }
  if (self->listener != NULL)
    g_socket_close (self->listener, NULL);
  g_clear_object (&self->listener);
}

/**
 * _pd_server_message_socket:
 *
 * The socket of @msg's connection: libsoup's for a connection it accepted,
 * the one handed with the remote address for a connection serve accepted.
 * %NULL for a stream that is no socket of serve's.
 */
GSocket *
_pd_server_message_socket (SoupServerMessage *msg)
{
  GSocket *socket = soup_server_message_get_socket (msg);
  GSocketAddress *remote;

  if (socket != NULL)
    return socket;
  remote = soup_server_message_get_remote_address (msg);
  return remote != NULL ? g_object_get_data (G_OBJECT (remote), SOCKET_KEY) : NULL;
}
