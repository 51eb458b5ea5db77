/* pd-server-stream.c: GET /api/events/stream, the event bus as
 * Server-Sent Events (ours; odek has its WebSocket instead).
 *
 * One listener on the bus per stream, filtered by session and run; a comment
 * line every KEEPALIVE_SECONDS keeps proxies from closing an idle stream.
 * At most PD_SERVER_MAX_STREAMS at once, PD_SERVER_MAX_STREAMS_PER_CLIENT of
 * them from one client address; a stream's slot is free again as soon as
 * its client goes (pd-server-conns.c watches the connection), not at the
 * next keepalive write.
 */
#define G_LOG_DOMAIN "pd-server"

#include "config.h"

#include <string.h>

#include "pd-server-private.h"

#define KEEPALIVE_SECONDS    15

typedef struct
{
  PdServer          *server;
  SoupServerMessage *msg;
  char              *client;        /* the remote address */
  char              *session_id;
  char              *run_id;
  guint              listener_id;
  GSource           *keepalive;
  gulong             finished_id;
  gulong             disconnected_id;
  gboolean           closed;
} Stream;

static void
stream_close (Stream *stream)
{
  PdServer *self = stream->server;

  if (stream->closed)
    return;
  stream->closed = TRUE;
  self->streams = g_list_remove (self->streams, stream);
  if (stream->keepalive != NULL)
    {
      g_source_destroy (stream->keepalive);
      g_clear_pointer (&stream->keepalive, g_source_unref);
    }
  /* Last: its destroy notify may free the stream right here. */
  pd_event_bus_remove_listener (self->bus, stream->listener_id);
}

static void
stream_free (gpointer data)
{
  Stream *stream = data;

  g_signal_handler_disconnect (stream->msg, stream->finished_id);
  g_signal_handler_disconnect (stream->msg, stream->disconnected_id);
  g_object_unref (stream->msg);
  g_free (stream->client);
  g_free (stream->session_id);
  g_free (stream->run_id);
  g_free (stream);
}

static void
stream_write (Stream     *stream,
              const char *text)
{
  if (stream->closed)
    return;
  soup_message_body_append (soup_server_message_get_response_body (stream->msg), SOUP_MEMORY_COPY,
                            text, strlen (text));
  soup_server_message_unpause (stream->msg);
}

static void
on_stream_event (PdEvent  *event,
                 gpointer  user_data)
{
  Stream *stream = user_data;
  g_autofree char *json = NULL;
  g_autofree char *frame = NULL;

  if (stream->closed)
    return;
  if (stream->session_id && g_strcmp0 (pd_event_get_session_id (event), stream->session_id) != 0)
    return;
  if (stream->run_id && g_strcmp0 (pd_event_get_run_id (event), stream->run_id) != 0)
    return;

  json = pd_event_to_json (event);
  /* One line of JSON: no newline can split the data field. */
  frame = g_strdup_printf ("event: %s\ndata: %s\n\n", pd_event_get_event_type (event), json);
  stream_write (stream, frame);
}

static gboolean
on_stream_keepalive (gpointer user_data)
{
  stream_write (user_data, ": keepalive\n\n");
  return G_SOURCE_CONTINUE;
}

static void
on_stream_finished (SoupServerMessage *msg,
                    gpointer           user_data)
{
  Stream *stream = user_data;

  /* The listener's destroy notify frees the stream once no call runs. */
  stream_close (stream);
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
  if (g_list_length (self->streams) >= PD_SERVER_MAX_STREAMS)
    {
      _pd_server_respond_error (msg, 503, "too many event streams");
      return;
    }
  if (count_client_streams (self, client) >= PD_SERVER_MAX_STREAMS_PER_CLIENT)
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

  /* libsoup ends it ("finished": a write failed, or the server stops), or
   * the connection watch sees its client gone and takes the connection
   * ("disconnected"). */
  stream->finished_id = g_signal_connect (msg, "finished", G_CALLBACK (on_stream_finished), stream);
  stream->disconnected_id = g_signal_connect (msg, "disconnected", G_CALLBACK (on_stream_finished), stream);
  stream->listener_id = pd_event_bus_add_listener (self->bus, on_stream_event, stream, stream_free);
  stream->keepalive = g_timeout_source_new_seconds (KEEPALIVE_SECONDS);
  g_source_set_callback (stream->keepalive, on_stream_keepalive, stream, NULL);
  g_source_attach (stream->keepalive, self->context);

  stream_write (stream, ": plandeck event stream\n\n");
  _pd_server_conns_watch_stream (self, msg);
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

  for (GList *l = self->streams; l != NULL; l = l->next)
    stream_write (l->data, ": store_changed\n\n");
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
}
