/* pd-remote-stream.c: the event streams of every PdRemoteSource, read on
 * one thread of their own.
 *
 * Fifty endpoints, each pushing its sessions every second, made the
 * window's main loop poll fifty sockets on each of its turns, read their
 * lines and parse their JSON there: 4–6 % of a core by themselves
 * (bench-overview --view).  Here one thread, with its own main context
 * and the SoupSession made in it (libsoup binds a session to the context
 * it was made in), opens the streams, reads and parses their lines, and
 * keeps what they said: the events in their order, the latest push of
 * each session, whether the sessions changed.  It hands that to each
 * source's own context in one batch for all the streams that said
 * something, at most every PD_REMOTE_STREAM_BATCH_MS; at once when the
 * last hand-over is that long ago, when a stream was answered or ended,
 * or when a run asks a question (an approval is answerable in place
 * without a wait).  The time a stream was last heard
 * of is read by the source's watchdog as it looks, not handed over.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-source"

#include "config.h"
#include <string.h>
#include <libsoup/soup.h>
#include "pd-event.h"
#include "pd-json-util.h"
#include "pd-remote-records-private.h"
#include "pd-remote-source-private.h"
#include "pd-remote-stream-private.h"

/* The longest line of a stream kept while its newline is awaited.
 * GDataInputStream's read_line doubles its buffer until a newline comes: a
 * server sending one endless line (or a chunk of gigabytes) grew the
 * window's memory by about 100 MB a second, with the window still showing
 * the server as online.  Our serve's lines are an event as one line of
 * JSON, far below this. */
#define STREAM_LINE_MAX (4 * 1024 * 1024)
/* The lines read from a buffer in one turn of the thread's loop, at most:
 * a stream with much in its buffer lets the others be read between. */
#define STREAM_LINES_AT_ONCE 64
/* Connections of the streams' session: one per stream, and there is one
 * stream per endpoint followed. */
#define STREAM_MAX_CONNS 4096

struct _PdRemoteStream
{
  /* Set when opened. */
  char                *url;
  char                *token;
  gboolean             pushes;
  GMainContext        *owner;     /* the source's context, where batches go */
  GWeakRef             source;
  GCancellable        *cancellable;  /* cancelled on the streams' thread alone */
  gint                 stopped;      /* atomic: the source let go of it */

  /* Under streams.lock. */
  gint64               heard;
  PdRemoteStreamBatch *batch;     /* (nullable) what is not handed over yet */
  gboolean             queued;    /* in streams.ready */

  /* The streams' thread alone. */
  GDataInputStream    *input;
  char                *event_name;
};

static struct
{
  GMutex        lock;
  GMainContext *context;     /* the streams' thread's */
  SoupSession  *session;     /* made and used in the thread */
  GPtrArray    *ready;       /* (element-type PdRemoteStream) with a batch, under lock */
  GSource      *flush;       /* the thread's: the next hand-over */
  gboolean      flush_now;
  gint64        flushed;     /* the thread's: the last hand-over, monotonic µs */
} streams;

static void stream_read_next (PdRemoteStream *stream);

static void
batch_free (PdRemoteStreamBatch *batch)
{
  g_clear_error (&batch->open_error);
  g_ptr_array_unref (batch->events);
  g_ptr_array_unref (batch->pushed);
  g_clear_pointer (&batch->pushed_at, g_hash_table_unref);
  g_free (batch);
}

static void
stream_clear (gpointer data)
{
  PdRemoteStream *stream = data;

  g_free (stream->url);
  g_free (stream->token);
  g_main_context_unref (stream->owner);
  g_weak_ref_clear (&stream->source);
  g_object_unref (stream->cancellable);
  g_clear_pointer (&stream->batch, batch_free);
  g_clear_object (&stream->input);
  g_free (stream->event_name);
}

static PdRemoteStream *
stream_ref (PdRemoteStream *stream)
{
  return g_atomic_rc_box_acquire (stream);
}

static void
stream_unref (gpointer stream)
{
  g_atomic_rc_box_release_full (stream, stream_clear);
}

static guint streams_wakes;

guint
_pd_remote_stream_get_wakes (void)
{
  return (guint) g_atomic_int_get (&streams_wakes);
}

/* The streams' lines come as each endpoint writes: fifty endpoints, each
 * pushing its sessions every second, woke the thread hundreds of times a
 * second (3 wakes a line for lines 4 ms apart), and each turn of its loop
 * prepared, polled and checked every stream's sources
 * (g_main_context_prepare(), check(), g_source_ref(), poll(): about a
 * quarter of the thread's samples under perf, the thread itself 3–3.5 % of
 * a core in bench-overview --view).  After a turn, what is ready at once
 * is read too, then the thread rests PD_REMOTE_STREAM_REST_MS: the lines
 * that came meanwhile, of every stream, are read in one turn.  A stream
 * with more to read (a flood, a long reply) keeps the thread going
 * without a rest. */
static gpointer
streams_thread (gpointer data)
{
  g_main_context_push_thread_default (streams.context);
  for (;;)
    {
      g_main_context_iteration (streams.context, TRUE);
      g_atomic_int_inc (&streams_wakes);
      while (g_main_context_iteration (streams.context, FALSE))
        ;
      g_usleep (PD_REMOTE_STREAM_REST_MS * 1000);
    }
  return NULL;
}

static void
streams_init (void)
{
  static gsize started = 0;

  if (g_once_init_enter (&started))
    {
      g_mutex_init (&streams.lock);
      streams.context = g_main_context_new ();
      streams.ready = g_ptr_array_new ();
      /* It lives as long as the process: no join. */
      /* A thread's name is 15 bytes at most: "pd-remote-streams" was
       * refused, and the thread went by the program's name. */
      g_thread_unref (g_thread_new ("pd-streams", streams_thread, NULL));
      g_once_init_leave (&started, 1);
    }
}

/* ---------------------------------------------------------------------- */
/* Handing over                                                            */

/* In the source's context: each stream's batch, taken now (with what came
 * since the thread handed it), to its source. */
static gboolean
streams_deliver (gpointer data)
{
  GPtrArray *handed = data;

  for (guint i = 0; i < handed->len; i++)
    {
      PdRemoteStream *stream = g_ptr_array_index (handed, i);
      g_autoptr(GObject) source = g_weak_ref_get (&stream->source);
      PdRemoteStreamBatch *batch;

      g_mutex_lock (&streams.lock);
      batch = g_steal_pointer (&stream->batch);
      stream->queued = FALSE;
      g_mutex_unlock (&streams.lock);
      if (batch != NULL && source != NULL && !g_atomic_int_get (&stream->stopped)
          && !g_cancellable_is_cancelled (stream->cancellable))
        _pd_remote_source_stream_batch (PD_REMOTE_SOURCE (source), stream, batch);
      g_clear_pointer (&batch, batch_free);
    }
  return G_SOURCE_REMOVE;
}

/* In the thread: the streams that said something go to their sources, one
 * hand-over for each context they were opened in. */
static gboolean
streams_flush (gpointer data)
{
  g_autoptr(GPtrArray) ready = NULL;

  g_mutex_lock (&streams.lock);
  ready = g_steal_pointer (&streams.ready);
  streams.ready = g_ptr_array_new ();
  g_mutex_unlock (&streams.lock);
  g_clear_pointer (&streams.flush, g_source_unref);
  streams.flush_now = FALSE;
  streams.flushed = g_get_monotonic_time ();

  while (ready->len > 0)
    {
      GMainContext *owner = ((PdRemoteStream *) g_ptr_array_index (ready, 0))->owner;
      GPtrArray *handed = g_ptr_array_new_with_free_func (stream_unref);

      for (guint i = 0; i < ready->len;)
        {
          PdRemoteStream *stream = g_ptr_array_index (ready, i);

          if (stream->owner == owner)
            g_ptr_array_add (handed, g_ptr_array_steal_index (ready, i));
          else
            i++;
        }
      g_main_context_invoke_full (owner, G_PRIORITY_DEFAULT, streams_deliver, handed,
                                  (GDestroyNotify) g_ptr_array_unref);
    }
  return G_SOURCE_REMOVE;
}

/* Under the lock, in the thread: @stream's batch, made when there is none. */
static PdRemoteStreamBatch *
stream_batch (PdRemoteStream *stream)
{
  if (stream->batch == NULL)
    {
      stream->batch = g_new0 (PdRemoteStreamBatch, 1);
      stream->batch->events = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_event_unref);
      stream->batch->pushed = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_remote_pushed_session_free);
      /* Keys are the ids of the sessions in pushed, which outlive them. */
      stream->batch->pushed_at = g_hash_table_new (g_str_hash, g_str_equal);
    }
  return stream->batch;
}

/* Under the lock, in the thread: @stream's batch goes at the next
 * hand-over, which is now when @now, or when the last was
 * PD_REMOTE_STREAM_BATCH_MS ago or more (a change after a quiet while, as
 * the Now page's of one session, is not held back). */
static void
stream_queue (PdRemoteStream *stream,
              gboolean        now)
{
  gint64 wait_ms = (streams.flushed + PD_REMOTE_STREAM_BATCH_MS * 1000 - g_get_monotonic_time ()) / 1000;

  now = now || wait_ms <= 0;
  if (!stream->queued)
    {
      stream->queued = TRUE;
      g_ptr_array_add (streams.ready, stream_ref (stream));
    }
  if (now && !streams.flush_now)
    {
      if (streams.flush != NULL)
        g_source_destroy (streams.flush);
      g_clear_pointer (&streams.flush, g_source_unref);
      /* At the priority of the reads, not an idle: while any stream had
       * bytes to read (one flooding endpoint is enough) an idle never ran,
       * and no stream was handed over again. */
      streams.flush = g_timeout_source_new (0);
      streams.flush_now = TRUE;
    }
  else if (streams.flush == NULL)
    streams.flush = g_timeout_source_new ((guint) MIN (wait_ms, PD_REMOTE_STREAM_BATCH_MS));
  else
    return;
  g_source_set_name (streams.flush, "[pd] remote streams handed over");
  g_source_set_callback (streams.flush, streams_flush, NULL, NULL);
  g_source_attach (streams.flush, streams.context);
}

/* ---------------------------------------------------------------------- */
/* Reading, in the thread                                                  */

static gboolean
event_changes_sessions (const char *type)
{
  return pd_event_type_is_plan (type) ||
         g_strcmp0 (type, PD_EVENT_SESSION_SAVED) == 0 ||
         g_strcmp0 (type, PD_EVENT_RUN_STARTED) == 0 ||
         g_strcmp0 (type, PD_EVENT_RUN_COMPLETED) == 0 ||
         g_strcmp0 (type, PD_EVENT_RUN_FAILED) == 0;
}

/* What another connection changed, as our serve pushes it (its
 * pd-server-push.c): the sessions of the shape, the latest of each kept in
 * @batch.  What is not of the shape is a change alone, which reads the
 * list again; so is a line holding more values than its size can (a
 * hostile endpoint's megabytes of "{}," took some 100 bytes of memory a
 * byte to parse), not parsed.
 *
 * Checked whole and built only as far as a card reads it
 * (pd_json_parse_picked(), _pd_remote_pushed_pick): json-glib's parser
 * building every member of every record was a third of this thread's
 * time, 500 sessions a second from fifty endpoints (bench-overview). */
GPtrArray *
_pd_remote_stream_parse_pushed (const char *data,
                                gsize       len)
{
  g_autoptr(JsonNode) root = NULL;
  GPtrArray *pushed = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_remote_pushed_session_free);
  JsonArray *sessions;
  /* An escaped NUL marked, as in any reply: json-glib ends a string there. */
  g_autofree char *marked = _pd_remote_mark_nul (data, len);

  if (marked != NULL)
    data = marked;
  /* Nested past PD_JSON_FOREIGN_MAX_DEPTH, it is refused as a whole. */
  if (!_pd_remote_json_bloated (data, len) &&
      (root = pd_json_parse_picked (data, (gssize) len, _pd_remote_pushed_pick, NULL)) != NULL &&
      JSON_NODE_HOLDS_OBJECT (root) &&
      (sessions = pd_json_get_array (json_node_get_object (root), "sessions")) != NULL)
    for (guint i = 0; i < json_array_get_length (sessions); i++)
      {
        JsonNode *node = json_array_get_element (sessions, i);
        JsonObject *object = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
        PdSessionInfo *info = object != NULL ? _pd_remote_session_from_json (object) : NULL;
        PdRemotePushedSession *session;
        gint64 unpassed;

        if (info == NULL)
          continue;
        session = g_new0 (PdRemotePushedSession, 1);
        session->info = info;
        unpassed = pd_json_get_int (object, "unpassed_checks", -1);
        if (unpassed >= 0)
          {
            session->has_step = TRUE;
            session->unpassed_checks = (guint) MIN (unpassed, PD_REMOTE_MAX_STEPS);
            session->current_step = g_strdup (pd_json_get_string (object, "current_step"));
            session->step_started = pd_json_get_boolean (object, "current_step_started", TRUE);
            session->failed_check = g_strdup (pd_json_get_string (object, "failed_check"));
          }
        g_ptr_array_add (pushed, session);
      }
  return pushed;
}

/* Under the lock: @pushed's sessions (taken) into @batch, each in place
 * of the one it had of the same session (found by its id: a scan of the
 * batch for each took minutes for a flood of pushes); a session past
 * PD_REMOTE_STREAM_BATCH_PUSHED_MAX is dropped and the list read again. */
static void
batch_merge_pushed (PdRemoteStreamBatch *batch,
                    GPtrArray           *pushed)
{
  for (guint i = 0; i < pushed->len; i++)
    {
      PdRemotePushedSession *session = g_ptr_array_index (pushed, i);
      guint at = GPOINTER_TO_UINT (g_hash_table_lookup (batch->pushed_at, session->info->id));

      if (at > 0)
        {
          /* The key is the id of the session replaced: it goes with it. */
          g_hash_table_remove (batch->pushed_at, session->info->id);
          pd_remote_pushed_session_free (g_ptr_array_index (batch->pushed, at - 1));
          g_ptr_array_index (batch->pushed, at - 1) = session;
          g_hash_table_insert (batch->pushed_at, session->info->id, GUINT_TO_POINTER (at));
        }
      else if (batch->pushed->len < PD_REMOTE_STREAM_BATCH_PUSHED_MAX)
        {
          g_ptr_array_add (batch->pushed, session);
          g_hash_table_insert (batch->pushed_at, session->info->id, GUINT_TO_POINTER (batch->pushed->len));
        }
      else
        {
          pd_remote_pushed_session_free (session);
          batch->dropped++;
          batch->changed = TRUE;
        }
    }
  g_ptr_array_set_free_func (pushed, NULL);
}

/* One line of the stream, read and parsed. */
static void
stream_handle_line (PdRemoteStream *stream,
                    const char     *line,
                    gsize           len)
{
  g_autoptr(PdEvent) event = NULL;
  g_autoptr(GPtrArray) pushed = NULL;
  gboolean changed = FALSE;
  gboolean now = FALSE;

  /* Our serve names a commit of another connection (a CLI run) so. */
  if (g_strcmp0 (line, ": store_changed") == 0)
    changed = TRUE;
  else if (g_str_has_prefix (line, "event: "))
    {
      g_free (stream->event_name);
      stream->event_name = g_strdup (line + strlen ("event: "));
    }
  else if (*line == '\0')
    g_clear_pointer (&stream->event_name, g_free);
  else if (stream->pushes && g_strcmp0 (stream->event_name, "sessions") == 0 && g_str_has_prefix (line, "data: "))
    pushed = _pd_remote_stream_parse_pushed (line + strlen ("data: "), len - strlen ("data: "));
  else if (g_str_has_prefix (line, "data: ") && !_pd_remote_json_bloated (line + strlen ("data: "), len - strlen ("data: ")))
    {
      event = pd_event_new_from_json (line + strlen ("data: "), NULL);
      if (event != NULL)
        {
          const char *type = pd_event_get_event_type (event);

          changed = event_changes_sessions (type);
          /* A run's question, or its answer: at once. */
          now = g_strcmp0 (type, PD_EVENT_APPROVAL_REQUESTED) == 0 ||
                g_strcmp0 (type, PD_EVENT_APPROVAL_RESOLVED) == 0;
        }
    }

  g_mutex_lock (&streams.lock);
  stream->heard = g_get_monotonic_time ();
  if (changed || pushed != NULL || event != NULL)
    {
      PdRemoteStreamBatch *batch = stream_batch (stream);

      batch->changed |= changed;
      if (pushed != NULL)
        {
          batch->pushes_changed = TRUE;
          batch_merge_pushed (batch, pushed);
        }
      if (event != NULL && batch->events->len < PD_REMOTE_STREAM_BATCH_EVENTS_MAX)
        g_ptr_array_add (batch->events, g_steal_pointer (&event));
      else if (event != NULL)
        {
          /* What the dropped events said is read again from the list. */
          batch->dropped++;
          batch->changed = TRUE;
        }
      stream_queue (stream, now);
    }
  g_mutex_unlock (&streams.lock);
}

/* The stream is done with: ended (told to its source) or dropped.  Takes
 * the reference the reads held. */
static void
stream_done (PdRemoteStream *stream,
             gboolean        ended)
{
  g_clear_object (&stream->input);
  if (ended && !g_cancellable_is_cancelled (stream->cancellable))
    {
      g_mutex_lock (&streams.lock);
      stream_batch (stream)->ended = TRUE;
      stream_queue (stream, TRUE);
      g_mutex_unlock (&streams.lock);
    }
  stream_unref (stream);
}

static void
on_stream_line (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  PdRemoteStream *stream = user_data;
  g_autoptr(GError) error = NULL;
  gsize len;
  g_autofree char *line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (object), result, &len, &error);

  if (line == NULL || g_cancellable_is_cancelled (stream->cancellable))
    {
      stream_done (stream, !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
      return;
    }
  stream_handle_line (stream, line, len);
  stream_read_next (stream);
}

static void
on_stream_fill (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  PdRemoteStream *stream = user_data;
  g_autoptr(GError) error = NULL;
  gssize n = g_buffered_input_stream_fill_finish (G_BUFFERED_INPUT_STREAM (object), result, &error);

  if (n <= 0 || g_cancellable_is_cancelled (stream->cancellable))
    {
      stream_done (stream, !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
      return;
    }
  stream_read_next (stream);
}

/* Reads the stream's next line once its newline is in the buffer, which
 * grows up to STREAM_LINE_MAX and no further: a longer line ends the
 * stream (and its source reconnects).  Carries the reference the reads
 * hold. */
static void
stream_read_next (PdRemoteStream *stream)
{
  GBufferedInputStream *buffered = G_BUFFERED_INPUT_STREAM (stream->input);
  gsize available = 0;
  const void *data = g_buffered_input_stream_peek_buffer (buffered, &available);
  gsize size = g_buffered_input_stream_get_buffer_size (buffered);

  /* The lines already whole in the buffer are read here, no I/O and no
   * turn of the loop each (an event of our serve is three lines and a
   * chunk); a few at a time. */
  for (guint n = 0; available > 0 && memchr (data, '\n', available) != NULL && n < STREAM_LINES_AT_ONCE; n++)
    {
      g_autoptr(GError) error = NULL;
      gsize len;
      g_autofree char *line = g_data_input_stream_read_line_utf8 (stream->input, &len, stream->cancellable, &error);

      if (line == NULL || g_cancellable_is_cancelled (stream->cancellable))
        {
          stream_done (stream, !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
          return;
        }
      stream_handle_line (stream, line, len);
      data = g_buffered_input_stream_peek_buffer (buffered, &available);
    }
  if (available > 0 && memchr (data, '\n', available) != NULL)
    {
      /* Whole: read from the buffer, no I/O, at the next turn. */
      g_data_input_stream_read_line_async (stream->input, G_PRIORITY_DEFAULT, stream->cancellable, on_stream_line, stream);
      return;
    }
  if (available >= size)
    {
      if (size >= STREAM_LINE_MAX)
        {
          g_debug ("%s: a line of its event stream passed %d bytes; reconnecting", stream->url, STREAM_LINE_MAX);
          stream_done (stream, TRUE);
          return;
        }
      g_buffered_input_stream_set_buffer_size (buffered, MIN (size * 2, STREAM_LINE_MAX));
    }
  g_buffered_input_stream_fill_async (buffered, -1, G_PRIORITY_DEFAULT, stream->cancellable, on_stream_fill, stream);
}

static void
on_stream_open (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  PdRemoteStream *stream = user_data;
  g_autoptr(GError) error = NULL;
  SoupMessage *msg = soup_session_get_async_result_message (SOUP_SESSION (object), result);
  g_autoptr(GInputStream) input = soup_session_send_finish (SOUP_SESSION (object), result, &error);
  guint status = msg != NULL ? soup_message_get_status (msg) : 0;
  PdRemoteStreamBatch *batch;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || g_cancellable_is_cancelled (stream->cancellable))
    {
      stream_unref (stream);
      return;
    }

  g_mutex_lock (&streams.lock);
  batch = stream_batch (stream);
  batch->opened = TRUE;
  batch->status = status;
  if (input == NULL)
    batch->open_error = g_error_copy (error);
  stream_queue (stream, TRUE);
  g_mutex_unlock (&streams.lock);

  if (input == NULL || status != 200)
    {
      stream_unref (stream);
      return;
    }
  stream->input = g_data_input_stream_new (input);
  stream_read_next (stream);
}

static gboolean
stream_start (gpointer data)
{
  PdRemoteStream *stream = data;
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", stream->url);

  if (streams.session == NULL)
    streams.session = soup_session_new_with_options ("timeout", 30, "max-conns", STREAM_MAX_CONNS,
                                                     "max-conns-per-host", STREAM_MAX_CONNS, NULL);
  soup_message_add_flags (msg, SOUP_MESSAGE_NO_REDIRECT);  /* the token goes nowhere else */
  if (stream->token != NULL)
    soup_message_headers_replace (soup_message_get_request_headers (msg), "X-Odek-Ws-Token", stream->token);
  soup_message_headers_replace (soup_message_get_request_headers (msg), "Accept", "text/event-stream");
  soup_session_send_async (streams.session, msg, G_PRIORITY_DEFAULT, stream->cancellable, on_stream_open,
                           stream_ref (stream));
  return G_SOURCE_REMOVE;
}

/* ---------------------------------------------------------------------- */
/* The source's side                                                       */

PdRemoteStream *
_pd_remote_stream_open (PdRemoteSource *source,
                        const char     *url,
                        const char     *token,
                        gboolean        pushes)
{
  PdRemoteStream *stream = g_atomic_rc_box_new0 (PdRemoteStream);

  streams_init ();
  stream->url = g_strdup (url);
  stream->token = g_strdup (token);
  stream->pushes = pushes;
  stream->owner = g_main_context_ref_thread_default ();
  g_weak_ref_init (&stream->source, source);
  stream->cancellable = g_cancellable_new ();
  g_main_context_invoke_full (streams.context, G_PRIORITY_DEFAULT, stream_start, stream_ref (stream), stream_unref);
  return stream;
}

/* On the streams' thread: the stream's operations cancelled where they run. */
static gboolean
stream_cancel (gpointer data)
{
  PdRemoteStream *stream = data;

  g_cancellable_cancel (stream->cancellable);
  return G_SOURCE_REMOVE;
}

void
_pd_remote_stream_stop (PdRemoteStream *stream)
{
  GSource *cancel;

  /* Cancelling runs the cancellable's handlers on the calling thread:
   * libsoup's, of the open, and the reads', ran on the source's thread
   * while the streams' thread went on with the same message and stream (a
   * SIGSEGV in libsoup closing a stream's input, seen in the Overview's
   * core test as its endpoints' sources were let go of).  So the thread
   * that runs them cancels them; nothing more is handed over meanwhile.
   * Not g_main_context_invoke(): the calling thread would take the
   * streams' context while the thread rests and cancel here after all. */
  g_atomic_int_set (&stream->stopped, 1);
  cancel = g_idle_source_new ();
  g_source_set_priority (cancel, G_PRIORITY_DEFAULT);
  g_source_set_name (cancel, "[pd] remote stream: cancel");
  g_source_set_callback (cancel, stream_cancel, stream, stream_unref);
  g_source_attach (cancel, streams.context);
  g_source_unref (cancel);
}

GCancellable *
_pd_remote_stream_get_cancellable (PdRemoteStream *stream)
{
  return stream->cancellable;
}

gint64
_pd_remote_stream_heard (PdRemoteStream *stream)
{
  gint64 heard;

  g_mutex_lock (&streams.lock);
  heard = stream->heard;
  g_mutex_unlock (&streams.lock);
  return heard;
}
