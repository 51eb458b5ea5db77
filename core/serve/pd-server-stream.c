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
 * its client goes (pd-server-conns.c watches the connection), not at the
 * next keepalive write.
 *
 * A client that does not read costs a bounded amount: the body keeps no
 * chunk once it is written (not accumulated), and a stream whose unwritten
 * bytes pass PD_SERVER_STREAM_MAX_BACKLOG once the loop is idle (the
 * kernel's socket buffer full, and this much more waiting here) is closed.  Its client reconnects
 * and reads what it missed from GET /api/events?after_seq=.  The others
 * never wait for it: each write only appends to its own body.
 */
#define G_LOG_DOMAIN "pd-server"

#include "config.h"

#include <string.h>
#include <sys/socket.h>

#include "pd-server-private.h"

#define STREAM_SOCKET_BUFFER (64 * 1024)   /* SO_SNDBUF; the kernel doubles it */

typedef struct
{
  PdServer          *server;
  SoupServerMessage *msg;
  char              *client;        /* the remote address */
  char              *session_id;
  char              *run_id;
  gulong             finished_id;
  gulong             disconnected_id;
  gulong             wrote_chunk_id;
  GQueue             unwritten;     /* sizes of the chunks appended and not written, oldest first */
  gsize              backlog;       /* their sum */
  gboolean           closed;
} Stream;

static void
stream_free (gpointer data)
{
  Stream *stream = data;

  g_signal_handler_disconnect (stream->msg, stream->finished_id);
  g_signal_handler_disconnect (stream->msg, stream->disconnected_id);
  g_signal_handler_disconnect (stream->msg, stream->wrote_chunk_id);
  g_queue_clear (&stream->unwritten);
  g_object_unref (stream->msg);
  g_free (stream->client);
  g_free (stream->session_id);
  g_free (stream->run_id);
  g_free (stream);
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
stream_close (Stream *stream)
{
  PdServer *self = stream->server;

  if (stream->closed)
    return;
  stream->closed = TRUE;
  self->streams = g_list_remove (self->streams, stream);
  self->closed_streams = g_list_prepend (self->closed_streams, stream);
  /* The last stream takes the listener, the keepalive and the check with it. */
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
}

/* libsoup wrote the oldest chunk in full (and, not accumulating, let go of it). */
static void
on_stream_wrote_chunk (SoupServerMessage *msg,
                       gpointer           user_data)
{
  Stream *stream = user_data;

  if (!g_queue_is_empty (&stream->unwritten))
    stream->backlog -= GPOINTER_TO_SIZE (g_queue_pop_head (&stream->unwritten));
}

/* Once the loop has nothing else to do (libsoup has written what each
 * socket takes), a stream still more than the bound behind is a client
 * that does not read: it is dropped rather than buffered for.  Judged then,
 * not as frames are appended: a burst of events (the bus delivers a
 * backlog at once) or one long frame is no sign of a slow client. */
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
          _pd_server_conns_close (self, stream->msg);
        }
    }
  self->streams_walking--;
  streams_reap (self);
  return G_SOURCE_REMOVE;
}

static void
stream_write_bytes (Stream *stream,
                    GBytes *bytes)
{
  PdServer *self = stream->server;
  gsize len = g_bytes_get_size (bytes);

  if (stream->closed)
    return;

  soup_message_body_append_bytes (soup_server_message_get_response_body (stream->msg), bytes);
  g_queue_push_tail (&stream->unwritten, GSIZE_TO_POINTER (len));
  stream->backlog += len;
  soup_server_message_unpause (stream->msg);

  if (stream->backlog > PD_SERVER_STREAM_MAX_BACKLOG && self->streams_check == 0)
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
  g_autoptr(GBytes) bytes = g_bytes_new_static (text, strlen (text));

  stream_write_bytes (stream, bytes);
}

/* Writes @bytes to every stream @event (if any) passes the filter of. */
static void
streams_broadcast (PdServer *self,
                   PdEvent  *event,
                   GBytes   *bytes)
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
      stream_write_bytes (stream, bytes);
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
  char *frame = g_strdup_printf ("event: %s\ndata: %s\n\n", pd_event_get_event_type (event), json);
  g_autoptr(GBytes) bytes = g_bytes_new_take (frame, strlen (frame));

  streams_broadcast (self, event, bytes);
}

/* One timer for all the streams (a source per stream is a source more for
 * every iteration of the server's loop to look at). */
static gboolean
on_streams_keepalive (gpointer user_data)
{
  PdServer *self = user_data;
  g_autoptr(GBytes) bytes = g_bytes_new_static (": keepalive\n\n", 13);

  streams_broadcast (self, NULL, bytes);
  return G_SOURCE_CONTINUE;
}

static void
on_stream_finished (SoupServerMessage *msg,
                    gpointer           user_data)
{
  Stream *stream = user_data;
  PdServer *self = stream->server;

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
                          GHashTable        *query)
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
  if (g_list_length (self->streams) >= self->max_streams)
    {
      _pd_server_respond_error (msg, 503, "too many event streams");
      return;
    }
  if (count_client_streams (self, client) >= self->max_streams_per_client)
    {
      _pd_server_respond_error (msg, 503, "too many event streams from this client");
      return;
    }

  stream = g_new0 (Stream, 1);
  stream->server = self;
  stream->msg = g_object_ref (msg);
  stream->client = g_strdup (client);
  stream->session_id = session_id && *session_id ? g_strdup (session_id) : NULL;
  stream->run_id = run_id && *run_id ? g_strdup (run_id) : NULL;
  self->streams = g_list_prepend (self->streams, stream);

  soup_server_message_set_status (msg, 200, NULL);
  soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_headers_replace (headers, "X-Accel-Buffering", "no");
  /* A written chunk is let go of: an endless body must not keep them all. */
  soup_message_body_set_accumulate (soup_server_message_get_response_body (msg), FALSE);
  /* And the kernel keeps a fixed, small buffer for a client that does not
   * read (autotuning lets one grow to 4 MiB): a slow client is noticed
   * after that much, not after megabytes. */
  if (soup_server_message_get_socket (msg) != NULL)
    {
      int size = STREAM_SOCKET_BUFFER;

      setsockopt (g_socket_get_fd (soup_server_message_get_socket (msg)), SOL_SOCKET, SO_SNDBUF,
                  &size, sizeof size);
    }

  /* libsoup ends it ("finished": a write failed, or the server stops), or
   * the connection watch sees its client gone and takes the connection
   * ("disconnected"). */
  stream->finished_id = g_signal_connect (msg, "finished", G_CALLBACK (on_stream_finished), stream);
  stream->disconnected_id = g_signal_connect (msg, "disconnected", G_CALLBACK (on_stream_finished), stream);
  stream->wrote_chunk_id = g_signal_connect (msg, "wrote-chunk", G_CALLBACK (on_stream_wrote_chunk), stream);
  /* On this (the server's) context. */
  if (self->streams_listener == 0)
    self->streams_listener = pd_event_bus_add_listener (self->bus, on_streams_event, self, NULL);
  if (self->streams_keepalive == NULL)
    {
      self->streams_keepalive = g_timeout_source_new (PD_SERVER_STREAM_KEEPALIVE_MS);
      g_source_set_callback (self->streams_keepalive, on_streams_keepalive, self, NULL);
      g_source_attach (self->streams_keepalive, self->context);
    }

  self->streams_walking++;
  stream_write (stream, ": plandeck event stream\n\n");
  self->streams_walking--;
  _pd_server_conns_watch_stream (self, msg);
  streams_reap (self);
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
  g_autoptr(GBytes) bytes = g_bytes_new_static (": store_changed\n\n", 17);

  streams_broadcast (self, NULL, bytes);
  return G_SOURCE_REMOVE;
}

/* Stopping: every stream gets the end of its body and is closed. */
void
_pd_server_end_streams (PdServer *self)
{
  while (self->streams != NULL)
    {
      Stream *stream = self->streams->data;

      soup_message_body_complete (soup_server_message_get_response_body (stream->msg));
      soup_server_message_unpause (stream->msg);
      stream_close (stream);
    }
  streams_reap (self);
}
