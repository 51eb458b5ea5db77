/* pd-server-stream.c: GET /api/events/stream, the event bus as
 * Server-Sent Events (ours; odek has its WebSocket instead).
 *
 * One listener on the bus for all the streams, while there are any: each
 * event is made into its frame once and the same bytes are appended to every
 * stream whose filter (session, run) lets it through.  (A listener per
 * stream put one source per stream and event on the server's context, and
 * printed the frame once per stream.)  A comment line every
 * PD_SERVER_STREAM_KEEPALIVE_MS, to all the streams at once, keeps proxies
 * from closing an idle stream and lets a client tell a server that stopped
 * answering (hung, or the network cut) within a few seconds: /api/health
 * announces the interval as keepalive_ms.
 * At most max_streams at once (PD_SERVER_MAX_STREAMS unless --max-streams),
 * max_streams_per_client of them from one client address; a stream's slot is free again as soon as
 * its client goes (the stream watches its connection), not at the
 * next keepalive write.
 *
 * libsoup writes the answer's status line and headers (chunked, as every
 * other answer's), and then the connection is taken from it
 * (soup_server_message_steal_connection() from "wrote-headers"): the
 * stream writes its chunks to the socket itself.  With libsoup writing the
 * body, every event was, for every stream, a source on the loop (its
 * unpause), a run of its writer through a chunked body stream and a handful
 * of signals, and every turn of the loop polled each stream's connection:
 * at 1,000 watchers a profile found serve's thread mostly in poll() and in
 * libsoup (tests/README.md, bench-stream).  Here an event is one frame,
 * chunk framing included, made once; after each batch of events the bus
 * delivers, each stream's socket gets what it has not had yet in one
 * non-blocking sendmsg(), from one loop over the streams.  The
 * connections are plain TCP (serve sets no TLS certificate: a stream is
 * refused if one is set), so the bytes on the socket are the bytes on the
 * wire.  One epoll descriptor, one source on the loop, watches all the
 * streams' sockets: for the client going (the end of its stream, or any
 * byte it sends, which is no request we could answer), and, only for a
 * stream that is behind, for room to write again.
 *
 * A client that does not read costs a bounded amount: a stream keeps
 * references to the frames its socket did not take (shared with the other
 * streams), and a stream whose unwritten bytes pass
 * PD_SERVER_STREAM_MAX_BACKLOG once the loop is idle (the kernel's socket
 * buffer full, and this much more waiting here) is closed.  Its client
 * reconnects and reads what it missed from GET /api/events?after_seq=.
 * The others never wait for it: a write never blocks, and a stream that is
 * behind only queues until its socket has room.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-server"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <glib-unix.h>

#include "pd-server-private.h"

#define STREAM_SOCKET_BUFFER (64 * 1024)   /* SO_SNDBUF; the kernel doubles it */
#define MAX_IOV              64            /* frames handed to one sendmsg() */
#define MAX_POLL_EVENTS      128

typedef struct
{
  PdServer          *server;
  /* Until the answer's headers are out, libsoup's: */
  SoupServerMessage *msg;
  gulong             finished_id;
  gulong             disconnected_id;
  gulong             wrote_headers_id;
  /* and then ours: the socket's descriptor, no more. */
  int                fd;            /* -1 until the connection is ours */
  char              *client;        /* the remote address */
  char              *session_id;
  char              *run_id;
  gboolean           push;          /* asked for pushes of sessions (pd-server-push.c) */
  gint64             last_frame;    /* monotonic µs: the last frame queued */
  GQueue             unwritten;     /* GBytes: frames not yet (all) written, oldest first */
  gsize              head_written;  /* bytes of the oldest already written */
  gsize              backlog;       /* bytes not yet written, in all of them */
  gboolean           watching_out;  /* epoll waits for room to write */
  gboolean           closed;
} Stream;

static void
stream_free (gpointer data)
{
  Stream *stream = data;

  g_queue_clear_full (&stream->unwritten, (GDestroyNotify) g_bytes_unref);
  g_clear_object (&stream->msg);
  g_free (stream->client);
  g_free (stream->session_id);
  g_free (stream->run_id);
  g_free (stream);
}

/* @text in a chunk of the answer's chunked body: the bytes that go on the
 * socket as they are. */
static GBytes *
frame_new (const char *text,
           gsize       len)
{
  GString *chunk = g_string_sized_new (len + 16);

  g_string_append_printf (chunk, "%" G_GSIZE_MODIFIER "x\r\n", len);
  g_string_append_len (chunk, text, len);
  g_string_append (chunk, "\r\n");
  return g_string_free_to_bytes (chunk);
}

/* Streams closed while the streams were being walked are freed once the
 * walk is over (the closing write may be several calls down). */
static void
streams_reap (PdServer *self)
{
  if (self->streams_walking > 0)
    return;
  g_list_free_full (g_steal_pointer (&self->closed_streams), stream_free);
}

static void
stream_forget_msg (Stream *stream)
{
  if (stream->msg == NULL)
    return;
  g_clear_signal_handler (&stream->finished_id, stream->msg);
  g_clear_signal_handler (&stream->disconnected_id, stream->msg);
  g_clear_signal_handler (&stream->wrote_headers_id, stream->msg);
  g_clear_object (&stream->msg);
}

static void
stream_close (Stream *stream)
{
  PdServer *self = stream->server;

  if (stream->closed)
    return;
  stream->closed = TRUE;
  self->streams = g_list_remove (self->streams, stream);
  self->n_streams--;
  self->closed_streams = g_list_prepend (self->closed_streams, stream);

  if (stream->msg != NULL)
    {
      /* Its headers are not out yet: libsoup still has the connection. */
      g_autoptr(SoupServerMessage) msg = g_object_ref (stream->msg);

      stream_forget_msg (stream);
      _pd_server_conns_close (self, msg);
    }
  if (stream->fd >= 0)
    {
      epoll_ctl (self->streams_epoll, EPOLL_CTL_DEL, stream->fd, NULL);
      close (stream->fd);
      stream->fd = -1;
    }
  /* The frames go with the stream now: its memory is no longer counted. */
  g_queue_clear_full (&stream->unwritten, (GDestroyNotify) g_bytes_unref);
  stream->backlog = 0;

  /* The last stream takes the listener, the keepalive, the check and the
   * watch with it. */
  if (self->streams == NULL && self->streams_check != 0)
    {
      GSource *check = g_main_context_find_source_by_id (self->context, self->streams_check);

      if (check != NULL)
        g_source_destroy (check);
      self->streams_check = 0;
    }
  if (self->streams == NULL && self->streams_listener != 0)
    {
      pd_event_bus_remove_listener (self->bus, self->streams_listener);
      self->streams_listener = 0;
    }
  if (self->streams == NULL && self->streams_keepalive != NULL)
    {
      g_source_destroy (self->streams_keepalive);
      g_clear_pointer (&self->streams_keepalive, g_source_unref);
    }
  if (self->streams == NULL && self->streams_flush != NULL)
    {
      g_source_destroy (self->streams_flush);
      g_clear_pointer (&self->streams_flush, g_source_unref);
    }
  if (self->streams == NULL && self->streams_poll != NULL)
    {
      g_source_destroy (self->streams_poll);
      g_clear_pointer (&self->streams_poll, g_source_unref);
      close (self->streams_epoll);
      self->streams_epoll = -1;
    }
}

/* Whether epoll tells us of room to write on @stream's socket: only while
 * frames wait for it. */
static void
stream_watch_out (Stream   *stream,
                  gboolean  out)
{
  struct epoll_event ev = { 0 };

  if (stream->watching_out == out)
    return;
  stream->watching_out = out;
  ev.events = EPOLLIN | EPOLLRDHUP | (out ? EPOLLOUT : 0);
  ev.data.ptr = stream;
  epoll_ctl (stream->server->streams_epoll, EPOLL_CTL_MOD, stream->fd, &ev);
}

/* Hands the socket what it takes of the frames waiting, oldest first,
 * without waiting.  A client gone (a reset, a broken pipe) closes the
 * stream. */
static void
stream_flush (Stream *stream)
{
  while (!g_queue_is_empty (&stream->unwritten))
    {
      struct iovec iov[MAX_IOV];
      struct msghdr message = { 0 };
      gsize n_iov = 0;
      gsize offset = stream->head_written;
      ssize_t sent;

      for (GList *l = stream->unwritten.head; l != NULL && n_iov < MAX_IOV; l = l->next)
        {
          gsize size;
          const char *data = g_bytes_get_data (l->data, &size);

          iov[n_iov].iov_base = (char *) data + offset;
          iov[n_iov].iov_len = size - offset;
          n_iov++;
          offset = 0;
        }
      message.msg_iov = iov;
      message.msg_iovlen = n_iov;

      do
        sent = sendmsg (stream->fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
      while (sent < 0 && errno == EINTR);

      if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        break;
      if (sent < 0)
        {
          g_debug ("event stream of %s closed: %s", stream->client, g_strerror (errno));
          stream_close (stream);
          return;
        }

      stream->backlog -= sent;
      while (sent > 0)
        {
          gsize size = g_bytes_get_size (g_queue_peek_head (&stream->unwritten));
          gsize rest = size - stream->head_written;

          if ((gsize) sent < rest)
            {
              stream->head_written += sent;
              break;
            }
          sent -= rest;
          stream->head_written = 0;
          g_bytes_unref (g_queue_pop_head (&stream->unwritten));
        }
      if (!g_queue_is_empty (&stream->unwritten) && stream->head_written > 0)
        break;   /* the socket took less than it was given: it is full */
    }
  stream_watch_out (stream, !g_queue_is_empty (&stream->unwritten));
}

/* Once the loop has nothing else to do (each socket has taken what it
 * takes), a stream still more than the bound behind is a client that does
 * not read: it is dropped rather than buffered for.  Judged then, not as
 * frames are appended: a burst of events (the bus delivers a backlog at
 * once) or one long frame is no sign of a slow client. */
static gboolean
on_streams_check (gpointer user_data)
{
  PdServer *self = user_data;

  self->streams_check = 0;
  self->streams_walking++;
  for (GList *l = self->streams, *next; l != NULL; l = next)
    {
      Stream *stream = l->data;

      next = l->next;
      if (stream->backlog > PD_SERVER_STREAM_MAX_BACKLOG && !stream->closed)
        {
          g_debug ("event stream of %s closed: %" G_GSIZE_FORMAT " bytes unread", stream->client, stream->backlog);
          stream_close (stream);
        }
    }
  self->streams_walking--;
  streams_reap (self);
  return G_SOURCE_REMOVE;
}

/* After a batch of events (the bus delivers what came meanwhile at once):
 * each stream's socket gets all of them in one sendmsg().  A stream that
 * is behind waits for room (epoll says when); one whose headers are not
 * out yet, for them. */
static gboolean
on_streams_flush (gpointer user_data)
{
  PdServer *self = user_data;

  g_clear_pointer (&self->streams_flush, g_source_unref);
  self->streams_walking++;
  for (GList *l = self->streams, *next; l != NULL; l = next)
    {
      Stream *stream = l->data;

      next = l->next;
      if (stream->fd >= 0 && !stream->watching_out && !g_queue_is_empty (&stream->unwritten))
        stream_flush (stream);
    }
  self->streams_walking--;
  streams_reap (self);
  return G_SOURCE_REMOVE;
}

static void
stream_write_bytes (Stream *stream,
                    GBytes *frame)
{
  PdServer *self = stream->server;

  if (stream->closed)
    return;

  stream->last_frame = g_get_monotonic_time ();
  g_queue_push_tail (&stream->unwritten, g_bytes_ref (frame));
  stream->backlog += g_bytes_get_size (frame);
  if (stream->fd >= 0 && !stream->watching_out && self->streams_flush == NULL)
    {
      /* At the priority of the bus's delivery, after it. */
      self->streams_flush = g_idle_source_new ();
      g_source_set_priority (self->streams_flush, G_PRIORITY_DEFAULT);
      g_source_set_static_name (self->streams_flush, "[pd-server] event streams' writes");
      g_source_set_callback (self->streams_flush, on_streams_flush, self, NULL);
      g_source_attach (self->streams_flush, self->context);
    }

  if (!stream->closed && stream->backlog > PD_SERVER_STREAM_MAX_BACKLOG && self->streams_check == 0)
    {
      GSource *source = g_idle_source_new ();

      g_source_set_priority (source, G_PRIORITY_LOW);
      g_source_set_callback (source, on_streams_check, self, NULL);
      self->streams_check = g_source_attach (source, self->context);
      g_source_unref (source);
    }
}

static void
stream_write (Stream     *stream,
              const char *text)
{
  g_autoptr(GBytes) frame = frame_new (text, strlen (text));

  stream_write_bytes (stream, frame);
}

/* Writes @frame to every stream @event (if any) passes the filter of. */
static void
streams_broadcast (PdServer *self,
                   PdEvent  *event,
                   GBytes   *frame)
{
  const char *session_id = event != NULL ? pd_event_get_session_id (event) : NULL;
  const char *run_id = event != NULL ? pd_event_get_run_id (event) : NULL;

  self->streams_walking++;
  for (GList *l = self->streams, *next; l != NULL; l = next)
    {
      Stream *stream = l->data;

      /* A write may close its stream, which leaves the list. */
      next = l->next;
      if (event != NULL && stream->session_id && g_strcmp0 (session_id, stream->session_id) != 0)
        continue;
      if (event != NULL && stream->run_id && g_strcmp0 (run_id, stream->run_id) != 0)
        continue;
      stream_write_bytes (stream, frame);
    }
  self->streams_walking--;
  streams_reap (self);
}

static void
on_streams_event (PdEvent  *event,
                  gpointer  user_data)
{
  PdServer *self = user_data;
  g_autofree char *json = pd_event_to_json (event);
  /* One line of JSON: no newline can split the data field. */
  g_autofree char *text = g_strdup_printf ("event: %s\ndata: %s\n\n", pd_event_get_event_type (event), json);
  g_autoptr(GBytes) frame = frame_new (text, strlen (text));

  streams_broadcast (self, event, frame);
}

/* One timer for all the streams (a source per stream is a source more for
 * every iteration of the server's loop to look at). */
static gboolean
on_streams_keepalive (gpointer user_data)
{
  PdServer *self = user_data;
  g_autoptr(GBytes) frame = frame_new (": keepalive\n\n", 13);
  gint64 now = g_get_monotonic_time ();

  /* Not to a stream that had a frame within half the interval: that said
   * the server is there (fifty endpoints pushing every second made a
   * keepalive line more to read per push, bench-overview). */
  self->streams_walking++;
  for (GList *l = self->streams, *next; l != NULL; l = next)
    {
      Stream *stream = l->data;

      next = l->next;
      if (now - stream->last_frame >= (gint64) self->stream_keepalive_ms * 1000 / 2)
        stream_write_bytes (stream, frame);
    }
  self->streams_walking--;
  streams_reap (self);
  return G_SOURCE_CONTINUE;
}

/* The epoll descriptor is readable: some streams' sockets have news. */
static gboolean
on_streams_poll (int          fd,
                 GIOCondition condition,
                 gpointer     user_data)
{
  PdServer *self = user_data;
  struct epoll_event events[MAX_POLL_EVENTS];
  int n;

  do
    n = epoll_wait (fd, events, G_N_ELEMENTS (events), 0);
  while (n < 0 && errno == EINTR);

  self->streams_walking++;
  for (int i = 0; i < n; i++)
    {
      Stream *stream = events[i].data.ptr;

      /* Closed by an earlier one of these (it is freed after the walk). */
      if (stream->closed)
        continue;
      /* The end of the stream, a reset, or bytes: an event stream's client
       * sends nothing we could answer, and its slot is free again now. */
      if (events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
        {
          g_debug ("event stream of %s closed by its client", stream->client);
          stream_close (stream);
          continue;
        }
      if (events[i].events & EPOLLOUT)
        stream_flush (stream);
    }
  self->streams_walking--;
  streams_reap (self);
  /* Gone with the last stream, or there is more to come. */
  return G_SOURCE_CONTINUE;
}

/* libsoup wrote the answer's status line and headers: the connection is
 * the stream's from here.  It keeps a descriptor of the socket and lets
 * go of the rest (libsoup's streams, the message, the socket object: most
 * of what a stream cost in memory). */
static void
on_stream_wrote_headers (SoupServerMessage *msg,
                         gpointer           user_data)
{
  Stream *stream = user_data;
  PdServer *self = stream->server;
  g_autoptr(SoupServerMessage) held = g_object_ref (msg);
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GIOStream) connection = NULL;
  struct epoll_event ev = { 0 };
  int size = STREAM_SOCKET_BUFFER;
  int fd = -1;

  if (_pd_server_message_socket (msg) != NULL)
    socket = g_object_ref (_pd_server_message_socket (msg));
  if (socket != NULL && !g_socket_is_closed (socket))
    fd = fcntl (g_socket_get_fd (socket), F_DUPFD_CLOEXEC, 0);

  /* Stealing emits "disconnected", which is no end of this stream.
   * Closing what libsoup gives back closes its descriptor, not the
   * connection, which our copy keeps open. */
  stream_forget_msg (stream);
  connection = soup_server_message_steal_connection (msg);
  if (connection != NULL)
    g_io_stream_close (connection, NULL, NULL);
  if (socket != NULL)
    g_socket_close (socket, NULL);
  if (connection == NULL || fd < 0)
    {
      g_debug ("event stream of %s closed: its connection could not be taken", stream->client);
      if (fd >= 0)
        close (fd);
      stream_close (stream);
      streams_reap (self);
      return;
    }

  /* And the kernel keeps a fixed, small buffer for a client that does not
   * read (autotuning lets one grow to 4 MiB): a slow client is noticed
   * after that much, not after megabytes. */
  setsockopt (fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);

  ev.events = EPOLLIN | EPOLLRDHUP;
  ev.data.ptr = stream;
  if (epoll_ctl (self->streams_epoll, EPOLL_CTL_ADD, fd, &ev) != 0)
    {
      g_debug ("event stream of %s closed: cannot watch it: %s", stream->client, g_strerror (errno));
      close (fd);
      stream_close (stream);
      streams_reap (self);
      return;
    }
  stream->fd = fd;

  /* What came while the headers were written, the first comment first. */
  self->streams_walking++;
  stream_flush (stream);
  self->streams_walking--;
  streams_reap (self);
}

/* libsoup ended it before its headers were out ("finished": a write
 * failed, or the server stops; "disconnected": the connection watch saw its
 * client gone). */
static void
on_stream_finished (SoupServerMessage *msg,
                    gpointer           user_data)
{
  Stream *stream = user_data;
  PdServer *self = stream->server;

  stream_forget_msg (stream);
  stream_close (stream);
  streams_reap (self);
}

static guint
count_client_streams (PdServer   *self,
                      const char *client)
{
  guint n = 0;

  for (GList *l = self->streams; l != NULL; l = l->next)
    n += g_strcmp0 (((Stream *) l->data)->client, client) == 0;
  return n;
}

void
_pd_server_handle_stream (PdServer          *self,
                          SoupServerMessage *msg,
                          GHashTable        *query,
                          gboolean           instance_header)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  const char *session_id = _pd_server_query_get (query, "session_id");
  const char *run_id = _pd_server_query_get (query, "run_id");
  const char *client = soup_server_message_get_remote_host (msg);
  Stream *stream;

  if (soup_server_message_get_method (msg) != SOUP_METHOD_GET)
    {
      _pd_server_respond_error (msg, 405, "method not allowed");
      return;
    }
  if (session_id != NULL && *session_id && !pd_session_id_is_valid (session_id))
    {
      _pd_server_respond_error (msg, 400, "invalid session id");
      return;
    }
  /* The stream writes to the socket itself: with TLS those would not be
   * the bytes on the wire.  serve never sets a certificate. */
  if (soup_server_get_tls_certificate (self->soup) != NULL || _pd_server_message_socket (msg) == NULL)
    {
      _pd_server_respond_error (msg, 501, "event streams need a plain HTTP connection");
      return;
    }
  if (self->n_streams >= self->max_streams)
    {
      _pd_server_respond_error (msg, 503, "too many event streams");
      return;
    }
  if (count_client_streams (self, client) >= self->max_streams_per_client)
    {
      _pd_server_respond_error (msg, 503, "too many event streams from this client");
      return;
    }

  if (self->streams_poll == NULL)
    {
      self->streams_epoll = epoll_create1 (EPOLL_CLOEXEC);
      if (self->streams_epoll < 0)
        {
          g_debug ("epoll_create1: %s", g_strerror (errno));
          _pd_server_respond_error (msg, 503, "cannot watch event streams now");
          return;
        }
      self->streams_poll = g_unix_fd_source_new (self->streams_epoll, G_IO_IN);
      g_source_set_callback (self->streams_poll, (GSourceFunc) (GCallback) on_streams_poll, self, NULL);
      g_source_attach (self->streams_poll, self->context);
    }

  stream = g_new0 (Stream, 1);
  stream->server = self;
  stream->msg = g_object_ref (msg);
  stream->fd = -1;
  stream->client = g_strdup (client);
  stream->session_id = session_id && *session_id ? g_strdup (session_id) : NULL;
  stream->run_id = run_id && *run_id ? g_strdup (run_id) : NULL;
  /* Every session's news: for a client that may read them all (the
   * instance token as a header), on a stream of no one session or run. */
  stream->push = instance_header && stream->session_id == NULL && stream->run_id == NULL &&
                 g_strcmp0 (_pd_server_query_get (query, "sessions"), "1") == 0;
  self->streams = g_list_prepend (self->streams, stream);
  self->n_streams++;

  soup_server_message_set_status (msg, 200, NULL);
  soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_headers_replace (headers, "X-Accel-Buffering", "no");

  /* Until "wrote-headers", libsoup ends it ("finished": a write failed, or
   * the server stops), or the connection watch sees its client gone and
   * takes the connection ("disconnected"). */
  stream->finished_id = g_signal_connect (msg, "finished", G_CALLBACK (on_stream_finished), stream);
  stream->disconnected_id = g_signal_connect (msg, "disconnected", G_CALLBACK (on_stream_finished), stream);
  stream->wrote_headers_id = g_signal_connect (msg, "wrote-headers", G_CALLBACK (on_stream_wrote_headers), stream);
  /* On this (the server's) context. */
  if (self->streams_listener == 0)
    self->streams_listener = pd_event_bus_add_listener (self->bus, on_streams_event, self, NULL);
  if (self->streams_keepalive == NULL)
    {
      self->streams_keepalive = g_timeout_source_new (self->stream_keepalive_ms);
      g_source_set_callback (self->streams_keepalive, on_streams_keepalive, self, NULL);
      g_source_attach (self->streams_keepalive, self->context);
    }

  /* Waits for the headers. */
  stream_write (stream, ": plandeck event stream\n\n");
}

/* On the server's context: another connection committed to the database
 * (a CLI run, a window's run), which the bus never hears of.  Every stream
 * is told, so its client reads again what it shows at once instead of at
 * its next poll.  The frame is a comment, which event-stream readers that
 * do not know it skip; it holds no plan or session data. */
gboolean
_pd_server_announce_store_changed (gpointer data)
{
  PdServer *self = data;
  g_autoptr(GBytes) frame = frame_new (": store_changed\n\n", 17);

  streams_broadcast (self, NULL, frame);
  return G_SOURCE_REMOVE;
}

/* Whether a stream asked for pushes of what changed (pd-server-push.c). */
gboolean
_pd_server_streams_want_push (PdServer *self)
{
  for (GList *l = self->streams; l != NULL; l = l->next)
    if (((Stream *) l->data)->push)
      return TRUE;
  return FALSE;
}

/* What another connection's commit changed: @text (a whole event, or ""
 * for nothing new) to the streams that asked for pushes, ": store_changed"
 * to the others; %NULL: ": store_changed" to all, who read again. */
void
_pd_server_streams_push (PdServer   *self,
                         const char *text)
{
  g_autoptr(GBytes) changed = frame_new (": store_changed\n\n", 17);
  g_autoptr(GBytes) pushed = text != NULL && *text ? frame_new (text, strlen (text)) : NULL;

  self->streams_walking++;
  for (GList *l = self->streams, *next; l != NULL; l = next)
    {
      Stream *stream = l->data;

      next = l->next;
      if (!stream->push || text == NULL)
        stream_write_bytes (stream, changed);
      else if (pushed != NULL)
        stream_write_bytes (stream, pushed);
    }
  self->streams_walking--;
  streams_reap (self);
}

/* Stopping: every stream gets the end of its body, as far as its socket
 * takes it now, and is closed. */
void
_pd_server_end_streams (PdServer *self)
{
  g_autoptr(GBytes) last = g_bytes_new_static ("0\r\n\r\n", 5);

  self->streams_walking++;
  while (self->streams != NULL)
    {
      Stream *stream = self->streams->data;

      if (stream->fd >= 0)
        {
          /* What its socket takes now: the rest would never come. */
          stream_write_bytes (stream, last);
          if (!stream->closed)
            stream_flush (stream);
        }
      else if (stream->msg != NULL)
        {
          /* Its headers are not out yet: libsoup writes them and the end. */
          g_autoptr(SoupServerMessage) msg = g_object_ref (stream->msg);

          stream_forget_msg (stream);
          soup_message_body_complete (soup_server_message_get_response_body (msg));
          soup_server_message_unpause (msg);
        }
      stream_close (stream);
    }
  self->streams_walking--;
  streams_reap (self);
}
