/* pd-server-conns.c: every connection of `plandeck-agent serve` is closed
 * once its client is gone.
 *
 * libsoup 3.2 (Debian 12 ships 3.2.3; fixed upstream in 3.3 by "server: do
 * not leak idle connections closed by the client") leaks every kept-alive
 * connection whose client closes it between two requests.  After a request,
 * soup_server_message_io_http1_finished() makes a new SoupServerMessage for
 * the next one and waits for its bytes, but gives it no completion callback:
 * the server's request_finished() is attached only once the first byte has
 * been read (the started_cb).  When the client closes instead, that idle
 * message ends with an error, nobody calls soup_server_connection_disconnect(),
 * and the socket stays open in CLOSE-WAIT, with its SoupServerConnection in
 * the server's client list, until soup_server_disconnect().  About 1 000 such
 * connections exhaust the usual 1 024 descriptors and the server stops
 * accepting for good.
 *
 * So Plandeck watches each connection itself: it learns of it from the
 * server's request-started signal (emitted at accept time and for every
 * request after), and once a request has finished it watches the socket at
 * G_PRIORITY_HIGH, above libsoup's own reader.  Bytes coming in are the next
 * request: the watch steps aside and libsoup reads them.  The end of the
 * stream (or a reset) is the client gone: the connection is taken from
 * libsoup with soup_server_message_steal_connection(), which also drops it
 * from the server's list, and closed.  libsoup's reader, at a lower priority,
 * never sees that end; in a libsoup that closes such connections itself, the
 * watch simply finds them gone.
 *
 * An event stream's connection is taken from libsoup once its headers are
 * out (pd-server-stream.c), and watched there.  It still counts here: a
 * descriptor.
 *
 * Clients that stay are bounded too.  libsoup's listener gave up for good
 * on the first failed accept() (it removes its source; serve's own waits a
 * moment and goes on, pd-server-accept.c): a client holding
 * connections until the descriptors ran out (EMFILE) left a server that
 * never answered anyone again, even after that client had gone.  So the
 * connections (and refused ones still draining) are kept below three
 * quarters of the descriptor limit, and every new connection must leave
 * KEEP_FREE_FDS descriptors free, counted then in /proc/self/fd (or known
 * from a count a moment ago to be far from it): past
 * either, it closes the oldest connection that is idle or still sending its
 * request (or itself, when every one is at work).  Counting once, when serve
 * began to listen, missed what it opened after: the database watcher's
 * connection (on a worker thread, later under load), WebSockets taken from
 * libsoup, the files a request reads; under a small limit and a loaded
 * machine the descriptors ran out.  And a request must be read whole within
 * REQUEST_SECONDS of its start: a client that sends nothing, or a byte now
 * and then (slowloris), is closed.
 *
 * That alone let one client shut every other out.  Three thousand
 * connections each sending a byte a second, and opened again as soon as
 * they were closed, kept the cap full: each new one closed the oldest, whose
 * client came straight back, so the listen queue stayed full of that
 * client's connections and a request from anyone else waited behind a
 * thousand of them (curl's 10 s ran out; from 127.0.0.2 as well).  libsoup
 * accepts one connection per main-loop iteration, and each iteration walked
 * a timeout source per connection held (the deadline), so the more held, the
 * slower the queue drained.  Now one client address holds at most
 * PEER_SHARE of the cap: past it, its own oldest idle or half-sent
 * connection gives way, never another client's, and at the cap it is the
 * address holding the most that gives way.  And the deadlines are one
 * sweep a second, not a source each.
 *
 * Even so, a flood opened as fast as it was closed kept the listen queue
 * full: libsoup's listener took one connection an iteration, each new one
 * of that client was set up and evicted another, which came straight back
 * (another client's request: p50 4.8 s, some unanswered after 60 s).  So
 * serve accepts itself, up to 64 a dispatch (pd-server-accept.c), and the
 * share is applied there, before libsoup sees the connection
 * (_pd_server_conns_admit()): an address at its share gets a new
 * connection only in place of an idle one or one that has been sending its
 * request for ADMIT_AFTER_USEC; otherwise the new one is closed at once.
 *
 * All on the server's thread.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-server"

#include "config.h"

#include <errno.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "pd-server-private.h"

/* How long a client may take to send one request, headers and body. */
#define REQUEST_SECONDS 15
/* Descriptors kept free of connections, at the least: the database, the
 * runs' files and commands, the listener itself. */
#define RESERVED_FDS    64
#define MAX_CONNS       16384
/* Descriptors a new connection leaves free, at the least: for what serve
 * opens besides connections while it works (a request's reads on the
 * worker threads, a stream's socket held twice while it is taken over) and
 * for accept() itself. */
#define KEEP_FREE_FDS   16
/* A count of the descriptors stands for this long, while the connections
 * accepted since then, each taken as one more descriptor, and this many
 * more leave KEEP_FREE_FDS free: listing /proc/self/fd costs the kernel a
 * lookup per open descriptor, and with a thousand event streams every new
 * connection listed thousands (bench-stream: about 30 % of the server
 * thread's CPU with 1 000 watchers, quadratic in them, while libsoup's
 * listen backlog of 10 overflowed).  Near the limit every connection
 * counts them again. */
#define FD_COUNT_USEC   (500 * 1000)
#define FD_COUNT_SLACK  64
/* The share of the cap one client address may hold: a half, so that a
 * single host (loopback is one address) cannot take every connection. */
#define PEER_SHARE_DIV  2
/* How long a connection of an address at its share has been sending its
 * request before a new one of that address may take its place. */
#define ADMIT_AFTER_USEC (2 * G_USEC_PER_SEC)

typedef enum
{
  CONN_READING,     /* a request is being read: libsoup's, under a deadline */
  CONN_BUSY,        /* a request is handled or answered: libsoup's */
  CONN_IDLE,        /* between requests: the next bytes are libsoup's */
} ConnState;

/* One client address and its connections, oldest state change first. */
typedef struct
{
  char   *address;
  GQueue  conns;        /* Conn, by ->link */
} ConnPeer;

typedef struct
{
  PdServer          *server;          /* (unowned) */
  ConnPeer          *peer;            /* (unowned) */
  GList              link;            /* in peer->conns */
  GSocket           *socket;
  SoupServerMessage *msg;             /* the latest message on the connection */
  gulong             disconnected_id;
  gulong             got_body_id;
  GSource           *watch;
  GSource           *deadline;        /* doomed: closes it from the main loop */
  ConnState          state;
  gint64             since;           /* monotonic µs: when the state began */
  gboolean           doomed;          /* no room for it: closed, or refused at its headers */
} Conn;

static void
conn_unwatch (Conn *conn)
{
  if (conn->watch != NULL)
    {
      g_source_destroy (conn->watch);
      g_clear_pointer (&conn->watch, g_source_unref);
    }
}

static void
conn_clear_deadline (Conn *conn)
{
  if (conn->deadline != NULL)
    {
      g_source_destroy (conn->deadline);
      g_clear_pointer (&conn->deadline, g_source_unref);
    }
}

static void
conn_peer_free (gpointer data)
{
  ConnPeer *peer = data;

  g_free (peer->address);
  g_free (peer);
}

/* @conn's state changed now: it goes to the end of its address's queue,
 * so the oldest one to give way is at its head. */
static void
conn_set_state (Conn      *conn,
                ConnState  state)
{
  conn->state = state;
  conn->since = g_get_monotonic_time ();
  g_queue_unlink (&conn->peer->conns, &conn->link);
  g_queue_push_tail_link (&conn->peer->conns, &conn->link);
}

static void
conn_free (gpointer data)
{
  Conn *conn = data;

  conn_unwatch (conn);
  conn_clear_deadline (conn);
  g_queue_unlink (&conn->peer->conns, &conn->link);
  if (conn->peer->conns.length == 0)
    g_hash_table_remove (conn->server->conn_peers, conn->peer->address);
  g_clear_signal_handler (&conn->disconnected_id, conn->msg);
  g_clear_signal_handler (&conn->got_body_id, conn->msg);
  g_clear_object (&conn->msg);
  g_clear_object (&conn->socket);
  g_free (conn);
}

/* libsoup disconnected it (or we stole it): forget it before the next poll
 * could watch a descriptor number that is free again. */
static void
on_msg_disconnected (SoupServerMessage *msg,
                     gpointer           user_data)
{
  Conn *conn = user_data;

  g_hash_table_remove (conn->server->conns, conn->socket);
}

/* Takes the connection from libsoup and closes it.  @conn is freed. */
static void
conn_close (Conn *conn)
{
  g_autoptr(SoupServerMessage) msg = g_object_ref (conn->msg);
  g_autoptr(GIOStream) stream = NULL;

  /* Emits "disconnected" on @msg: on_msg_disconnected frees @conn, the
   * server drops the connection from its list, and an event stream on it
   * ends (pd-server-stream.c). */
  stream = soup_server_message_steal_connection (msg);
  if (stream != NULL)
    g_io_stream_close (stream, NULL, NULL);
}

static gboolean
on_conn_readable (GSocket      *socket,
                  GIOCondition  condition,
                  gpointer      user_data)
{
  Conn *conn = user_data;
  char byte;
  ssize_t n;

  do
    n = recv (g_socket_get_fd (socket), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  while (n < 0 && errno == EINTR);

  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
    return G_SOURCE_CONTINUE;

  /* The source ends with this dispatch either way. */
  g_clear_pointer (&conn->watch, g_source_unref);

  if (n > 0 && conn->state == CONN_IDLE)
    return G_SOURCE_REMOVE;   /* the next request: libsoup reads it */

  /* The end of the stream or a reset: the client is gone. */
  conn_close (conn);
  return G_SOURCE_REMOVE;
}

static void
conn_watch (Conn      *conn,
            ConnState  state)
{
  conn_unwatch (conn);
  conn_clear_deadline (conn);
  conn_set_state (conn, state);
  conn->watch = g_socket_create_source (conn->socket, G_IO_IN | G_IO_HUP | G_IO_ERR, NULL);
  /* Above libsoup's reader (G_PRIORITY_DEFAULT): the end of the stream is
   * seen here first, while the connection can still be taken. */
  g_source_set_priority (conn->watch, G_PRIORITY_HIGH);
  g_source_set_callback (conn->watch, (GSourceFunc) (GCallback) on_conn_readable, conn, NULL);
  g_source_attach (conn->watch, conn->server->context);
}

static Conn *
conn_lookup (PdServer          *self,
             SoupServerMessage *msg)
{
  GSocket *socket = _pd_server_message_socket (msg);

  return socket != NULL ? g_hash_table_lookup (self->conns, socket) : NULL;
}

/* The request was read whole: it is the handler's now, with no deadline. */
static void
on_got_body (SoupServerMessage *msg,
             gpointer           user_data)
{
  Conn *conn = user_data;

  if (conn->msg == msg && conn->state == CONN_READING)
    conn_set_state (conn, CONN_BUSY);
}

/* A connection with no room, closed from the main loop. */
static gboolean
on_conn_doomed (gpointer user_data)
{
  Conn *conn = user_data;

  /* The source ends with this dispatch. */
  g_clear_pointer (&conn->deadline, g_source_unref);
  conn_close (conn);
  return G_SOURCE_REMOVE;
}

/* Each second: closes the connections whose request has taken longer than
 * REQUEST_SECONDS.  One source for all of them; a source each made every
 * main-loop iteration walk them all (see the top of this file). */
static gboolean
on_conns_sweep (gpointer user_data)
{
  PdServer *self = user_data;
  gint64 due = g_get_monotonic_time () - (gint64) REQUEST_SECONDS * G_USEC_PER_SEC;
  g_autoptr(GPtrArray) late = g_ptr_array_new ();
  GHashTableIter iter;
  gpointer value;

  if (g_hash_table_size (self->conns) == 0)
    {
      g_clear_pointer (&self->conns_sweep, g_source_unref);
      return G_SOURCE_REMOVE;
    }
  g_hash_table_iter_init (&iter, self->conns);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Conn *conn = value;

      if (conn->state == CONN_READING && conn->since <= due)
        g_ptr_array_add (late, conn);
    }
  if (late->len > 0)
    g_debug ("%u clients sent no whole request in %d s; closing their connections",
             late->len, REQUEST_SECONDS);
  /* Closing one frees only that one. */
  for (guint i = 0; i < late->len; i++)
    conn_close (g_ptr_array_index (late, i));
  return G_SOURCE_CONTINUE;
}

/* The most connections (and refused ones draining) held at once, from the
 * descriptor limit: three quarters of it, and RESERVED_FDS free at least. */
static guint
conns_cap_from_limit (void)
{
  struct rlimit limit;
  rlim_t soft = 1024;
  rlim_t cap;

  if (getrlimit (RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    soft = limit.rlim_cur;
  else if (getrlimit (RLIMIT_NOFILE, &limit) == 0)
    soft = MAX_CONNS * 2;
  cap = soft / 4 * 3;
  if (soft < RESERVED_FDS * 2)
    cap = soft / 2;
  else if (soft - cap < RESERVED_FDS)
    cap = soft - RESERVED_FDS;
  return (guint) MAX (1, MIN (cap, MAX_CONNS));
}

/* Whether the descriptors open now leave fewer than KEEP_FREE_FDS free.
 * Read each time a connection comes, since what serve holds besides its
 * connections changes as it works (see the top of this file), unless a
 * count a moment ago was far enough from the limit (FD_COUNT_USEC).
 * Reading /proc/self/fd takes a descriptor itself: none left is short of
 * them; no /proc leaves the count of connections alone to bound them. */
static gboolean
conns_short_of_descriptors (PdServer *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = NULL;
  gint64 now;
  guint n = 0;

  if (self->fd_limit == 0)
    return FALSE;
  now = g_get_monotonic_time ();
  if (self->fds_counted_at != 0 && now - self->fds_counted_at < FD_COUNT_USEC &&
      self->fds_counted + (self->conns_accepted - self->conns_accepted_counted) + FD_COUNT_SLACK + KEEP_FREE_FDS
        <= (guint64) self->fd_limit)
    return FALSE;

  self->fds_counted_at = 0;
  dir = g_dir_open ("/proc/self/fd", 0, &error);
  if (dir == NULL)
    return g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_MFILE) ||
           g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NFILE);
  while (g_dir_read_name (dir) != NULL)
    n++;
  /* n counts the directory's own descriptor, about to close. */
  self->fds_counted = n > 0 ? n - 1 : 0;
  self->fds_counted_at = now;
  self->conns_accepted_counted = self->conns_accepted;
  return self->fds_counted + KEEP_FREE_FDS > self->fd_limit;
}

void
_pd_server_conns_init (PdServer *self)
{
  struct rlimit limit;

  self->conns = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, conn_free);
  self->conn_peers = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, conn_peer_free);
  self->conns_cap = conns_cap_from_limit ();
  if (getrlimit (RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
    self->fd_limit = (guint) MIN (limit.rlim_cur, G_MAXUINT);
}

static void refusal_end (Refusal *refusal);

/* Closes @peer's oldest connection that is idle or still sending its
 * request (never @keep).  FALSE when every other one is at work. */
static gboolean
conns_close_oldest_of (ConnPeer *peer,
                       Conn     *keep)
{
  for (GList *l = peer->conns.head; l != NULL; l = l->next)
    {
      Conn *conn = l->data;

      if (conn != keep && (conn->state == CONN_READING || conn->state == CONN_IDLE))
        {
          conn_close (conn);
          return TRUE;
        }
    }
  return FALSE;
}

/* Makes room for one more connection: ends the oldest refused connection
 * still draining, else closes the oldest connection that is idle or still
 * sending its request (never @keep) of the client address holding the
 * most: one client filling the cap makes room from its own.  FALSE when
 * every other one is at work. */
static gboolean
conns_make_room (PdServer *self,
                 Conn     *keep)
{
  GHashTableIter iter;
  gpointer value;
  ConnPeer *most = NULL;

  if (self->refusals != NULL)
    {
      refusal_end (g_list_last (self->refusals)->data);
      return TRUE;
    }

  g_debug ("%u connections at once: closing an idle one", g_hash_table_size (self->conns));
  g_hash_table_iter_init (&iter, self->conn_peers);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      ConnPeer *peer = value;

      if (most == NULL || peer->conns.length > most->conns.length)
        most = peer;
    }
  if (most != NULL && conns_close_oldest_of (most, keep))
    return TRUE;

  /* That one's are all at work: any other's. */
  g_hash_table_iter_init (&iter, self->conn_peers);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (value != most && conns_close_oldest_of (value, keep))
      return TRUE;
  return FALSE;
}

/* A connection from @address is being accepted (pd-server-accept.c),
 * before libsoup sees it: FALSE when that address holds its share and none
 * of its connections can give way, and the new one is to be closed at
 * once.  Otherwise its oldest idle or half-sent one gave way if it had to,
 * and the cap is applied as libsoup starts the connection
 * (_pd_server_conns_request_started()). */
gboolean
_pd_server_conns_admit (PdServer   *self,
                        const char *address)
{
  ConnPeer *peer = g_hash_table_lookup (self->conn_peers, address);

  gint64 due = g_get_monotonic_time () - ADMIT_AFTER_USEC;

  if (peer == NULL || peer->conns.length < MAX (1, self->conns_cap / PEER_SHARE_DIV))
    return TRUE;
  /* Oldest first: an idle one, or one sending its request for a while.
   * One younger than that keeps its place and the new one is closed: a
   * flood that evicted its own young connections made serve set up and
   * take down one of them for each it accepted, slower than the flood
   * came back, and the listen queue stayed full of it. */
  for (GList *l = peer->conns.head; l != NULL; l = l->next)
    {
      Conn *conn = l->data;

      if (conn->state == CONN_IDLE || (conn->state == CONN_READING && conn->since <= due))
        {
          conn_close (conn);
          return TRUE;
        }
    }
  return FALSE;
}

/* After soup_server_disconnect(), which disconnected every connection (so
 * the table is normally empty already). */
void
_pd_server_conns_clear (PdServer *self)
{
  g_hash_table_remove_all (self->conns);
  if (self->conns_sweep != NULL)
    {
      g_source_destroy (self->conns_sweep);
      g_clear_pointer (&self->conns_sweep, g_source_unref);
    }
}

guint
_pd_server_conns_count (PdServer *self)
{
  return g_hash_table_size (self->conns);
}

/* SoupServer::request-started: a new connection (its first message, before
 * anything is read), or the next request on a known one. */
void
_pd_server_conns_request_started (PdServer          *self,
                                  SoupServerMessage *msg)
{
  GSocket *socket = _pd_server_message_socket (msg);
  gboolean immediate = FALSE;
  Conn *conn;

  if (socket == NULL)
    return;   /* soup_server_accept_iostream(): not ours to watch */

  conn = g_hash_table_lookup (self->conns, socket);
  if (conn == NULL)
    {
      struct sockaddr_storage peer;
      socklen_t len = sizeof peer;
      GSocketAddress *remote;
      g_autofree char *address = NULL;
      ConnPeer *conn_peer;

      /* soup_server_message_steal_connection() asks for the addresses, and
       * libsoup warns (on stderr, for every connection) when the peer has
       * reset by then: ask now, while it is connected, and they are kept.
       * A connection reset before it was even accepted is left to libsoup,
       * whose first read fails and closes it. */
      if (getpeername (g_socket_get_fd (socket), (struct sockaddr *) &peer, &len) != 0)
        return;
      remote = soup_server_message_get_remote_address (msg);
      soup_server_message_get_local_address (msg);
      if (G_IS_INET_SOCKET_ADDRESS (remote))
        address = g_inet_address_to_string (g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (remote)));
      else
        address = g_strdup ("");

      conn_peer = g_hash_table_lookup (self->conn_peers, address);
      if (conn_peer == NULL)
        {
          conn_peer = g_new0 (ConnPeer, 1);
          conn_peer->address = g_steal_pointer (&address);
          g_hash_table_insert (self->conn_peers, conn_peer->address, conn_peer);
        }

      conn = g_new0 (Conn, 1);
      conn->server = self;
      conn->peer = conn_peer;
      conn->link.data = conn;
      conn->socket = g_object_ref (socket);
      g_queue_push_tail_link (&conn_peer->conns, &conn->link);
      g_hash_table_insert (self->conns, socket, conn);
      self->conns_accepted++;

      /* One client past its share makes room from its own, and so cannot
       * shut the others out (see the top of this file). */
      if (conn_peer->conns.length > MAX (1, self->conns_cap / PEER_SHARE_DIV) &&
          !conns_close_oldest_of (conn_peer, conn))
        immediate = TRUE;

      /* Event streams are connections too, though no longer libsoup's;
       * every other descriptor is counted as it is now. */
      while (!immediate &&
             (g_hash_table_size (self->conns) + g_list_length (self->refusals) + self->n_streams > self->conns_cap ||
              conns_short_of_descriptors (self)))
        if (!conns_make_room (self, conn))
          {
            /* Every other connection is at work: this one gets no time
             * to send a request.  It is closed from the main loop, once
             * libsoup has finished setting it up; a request already there
             * is read at once, and refused at its headers (503): served,
             * it slipped past the cap, and a burst of them under load took
             * the last descriptors. */
            immediate = TRUE;
            break;
          }
    }

  conn_unwatch (conn);
  conn_clear_deadline (conn);
  conn_set_state (conn, CONN_READING);
  if (conn->msg != msg)
    {
      g_clear_signal_handler (&conn->disconnected_id, conn->msg);
      g_clear_signal_handler (&conn->got_body_id, conn->msg);
      g_set_object (&conn->msg, msg);
      conn->disconnected_id = g_signal_connect (msg, "disconnected", G_CALLBACK (on_msg_disconnected), conn);
      conn->got_body_id = g_signal_connect (msg, "got-body", G_CALLBACK (on_got_body), conn);
    }
  conn->doomed = immediate;
  if (immediate)
    {
      conn->deadline = g_timeout_source_new (0);
      g_source_set_callback (conn->deadline, on_conn_doomed, conn, NULL);
      g_source_attach (conn->deadline, self->context);
    }
  if (self->conns_sweep == NULL)
    {
      self->conns_sweep = g_timeout_source_new_seconds (1);
      g_source_set_callback (self->conns_sweep, on_conns_sweep, self, NULL);
      g_source_attach (self->conns_sweep, self->context);
    }
}

/* Whether @msg's connection found no room when it came: the guard refuses
 * its request (503) instead of serving it. */
gboolean
_pd_server_conns_is_doomed (PdServer          *self,
                            SoupServerMessage *msg)
{
  Conn *conn = conn_lookup (self, msg);

  return conn != NULL && conn->msg == msg && conn->doomed;
}

/* SoupServer::request-finished and ::request-aborted.  libsoup decides
 * after this whether the connection is kept; when it is not, the message's
 * "disconnected" follows at once and the watch goes with the record. */
void
_pd_server_conns_request_finished (PdServer          *self,
                                   SoupServerMessage *msg)
{
  Conn *conn = conn_lookup (self, msg);

  if (conn == NULL || conn->msg != msg)
    return;

  /* The message stays only as a handle on its connection: its bodies,
   * written and read by now, need not wait in memory for the next request. */
  soup_message_body_truncate (soup_server_message_get_request_body (msg));
  soup_message_body_truncate (soup_server_message_get_response_body (msg));
  conn_watch (conn, CONN_IDLE);
}

/* Takes @msg's connection from libsoup and closes it: an event stream
 * whose client is too far behind.  "disconnected" follows on @msg. */
void
_pd_server_conns_close (PdServer          *self,
                        SoupServerMessage *msg)
{
  Conn *conn = conn_lookup (self, msg);
  g_autoptr(GIOStream) stream = NULL;

  if (conn != NULL && conn->msg == msg)
    {
      conn_close (conn);
      return;
    }

  stream = soup_server_message_steal_connection (msg);
  if (stream != NULL)
    g_io_stream_close (stream, NULL, NULL);
}

/* ---------------------------------------------------------------------- */
/* Refusals that read no request body                                     */

#define DRAIN_MAX_BYTES (1024 * 1024)
#define DRAIN_SECONDS   2

/* A refused connection after its answer: what the client still sends is
 * read and dropped for a little while, so that closing does not reset the
 * connection before the client has read the answer; then it is closed. */
struct _Refusal
{
  PdServer  *server;    /* (unowned) */
  GIOStream *stream;
  GSocket   *socket;
  GSource   *watch;
  GSource   *timeout;
  gsize      drained;
};

static void
refusal_free (Refusal *refusal)
{
  if (refusal->watch != NULL)
    {
      g_source_destroy (refusal->watch);
      g_source_unref (refusal->watch);
    }
  if (refusal->timeout != NULL)
    {
      g_source_destroy (refusal->timeout);
      g_source_unref (refusal->timeout);
    }
  g_io_stream_close (refusal->stream, NULL, NULL);
  g_object_unref (refusal->stream);
  g_object_unref (refusal->socket);
  g_free (refusal);
}

static void
refusal_end (Refusal *refusal)
{
  refusal->server->refusals = g_list_remove (refusal->server->refusals, refusal);
  refusal_free (refusal);
}

static gboolean
on_refusal_readable (GSocket      *socket,
                     GIOCondition  condition,
                     gpointer      user_data)
{
  Refusal *refusal = user_data;
  char buffer[16 * 1024];

  for (;;)
    {
      ssize_t n = recv (g_socket_get_fd (socket), buffer, sizeof buffer, MSG_DONTWAIT);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return G_SOURCE_CONTINUE;
      if (n > 0 && (refusal->drained += (gsize) n) <= DRAIN_MAX_BYTES)
        continue;
      break;   /* the end, an error, or enough: close */
    }

  /* The source ends with this dispatch. */
  g_clear_pointer (&refusal->watch, g_source_unref);
  refusal_end (refusal);
  return G_SOURCE_REMOVE;
}

static gboolean
on_refusal_timeout (gpointer user_data)
{
  Refusal *refusal = user_data;

  g_clear_pointer (&refusal->timeout, g_source_unref);
  refusal_end (refusal);
  return G_SOURCE_REMOVE;
}

static void
append_header (const char *name,
               const char *value,
               gpointer    user_data)
{
  if (g_ascii_strcasecmp (name, "Content-Length") != 0 &&
      g_ascii_strcasecmp (name, "Transfer-Encoding") != 0 &&
      g_ascii_strcasecmp (name, "Connection") != 0)
    g_string_append_printf (user_data, "%s: %s\r\n", name, value);
}

/**
 * _pd_server_conns_refuse:
 *
 * Sends the answer set on @msg (its status, headers and body) and closes the
 * connection without reading the request body: the checks of the headers
 * refused it, or its body went beyond the cap.  Called from a handler of
 * @msg's "got-headers" or "got-chunk": the connection is taken from libsoup
 * there and then (soup_server_message_steal_connection(); libsoup's reader
 * sees its message gone and stops), so not one more byte is read into
 * memory.
 */
void
_pd_server_conns_refuse (PdServer          *self,
                         SoupServerMessage *msg)
{
  g_autoptr(GString) answer = g_string_new (NULL);
  g_autoptr(GBytes) body = soup_message_body_flatten (soup_server_message_get_response_body (msg));
  g_autoptr(GIOStream) stream = NULL;
  GSocket *socket = _pd_server_message_socket (msg);
  guint status = soup_server_message_get_status (msg);
  Refusal *refusal;
  gsize sent = 0;
  int fd;

  g_return_if_fail (socket != NULL);

  g_string_append_printf (answer, "HTTP/1.1 %u %s\r\n", status, soup_status_get_phrase (status));
  soup_message_headers_foreach (soup_server_message_get_response_headers (msg), append_header, answer);
  g_string_append_printf (answer, "Content-Length: %" G_GSIZE_FORMAT "\r\nConnection: close\r\n\r\n",
                          g_bytes_get_size (body));
  g_string_append_len (answer, g_bytes_get_data (body, NULL), (gssize) g_bytes_get_size (body));

  refusal = g_new0 (Refusal, 1);
  refusal->server = self;
  refusal->socket = g_object_ref (socket);
  stream = soup_server_message_steal_connection (msg);
  if (stream == NULL)
    {
      g_object_unref (refusal->socket);
      g_free (refusal);
      return;
    }
  refusal->stream = g_steal_pointer (&stream);
  self->refusals = g_list_prepend (self->refusals, refusal);

  /* A few hundred bytes into an empty send buffer: it does not block; if
   * the client does not take them, it does not get them. */
  fd = g_socket_get_fd (refusal->socket);
  while (sent < answer->len)
    {
      ssize_t n = send (fd, answer->str + sent, answer->len - sent, MSG_NOSIGNAL | MSG_DONTWAIT);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      sent += (gsize) n;
    }
  if (sent < answer->len || shutdown (fd, SHUT_WR) != 0)
    {
      refusal_end (refusal);
      return;
    }

  refusal->watch = g_socket_create_source (refusal->socket, G_IO_IN | G_IO_HUP | G_IO_ERR, NULL);
  g_source_set_callback (refusal->watch, (GSourceFunc) (GCallback) on_refusal_readable, refusal, NULL);
  g_source_attach (refusal->watch, self->context);
  refusal->timeout = g_timeout_source_new_seconds (DRAIN_SECONDS);
  g_source_set_callback (refusal->timeout, on_refusal_timeout, refusal, NULL);
  g_source_attach (refusal->timeout, self->context);
}

/* Stopping: refused connections are closed now. */
void
_pd_server_conns_end_refusals (PdServer *self)
{
  while (self->refusals != NULL)
    refusal_end (self->refusals->data);
}
