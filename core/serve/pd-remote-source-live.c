/* pd-remote-source-live.c: the live side of PdRemoteSource: the event
 * stream (with its poll as the fallback), the connection's state (online,
 * offline, denied), the watchdog that notices a server that stopped
 * answering, reconnecting with a growing wait, and the instance token,
 * whose change reconnects.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-source"

#include "config.h"
#include <string.h>
#include <glib/gi18n-lib.h>
#include <libsoup/soup.h>
#include "pd-decimal.h"
#include "pd-event-bus.h"
#include "pd-json-util.h"
#include "pd-plan.h"
#include "pd-remote-run.h"
#include "pd-remote-source.h"
#include "pd-remote-records-private.h"
#include "pd-remote-source-private.h"

/* ---------------------------------------------------------------------- */
/* Live updates                                                            */

static void watch_schedule (PdRemoteSource *self, guint delay_ms);
static void watch_poll (PdRemoteSource *self);

/* The watch's next request, if one is scheduled, is not sent. */
static void
watch_unschedule (PdRemoteSource *self)
{
  if (self->watch_source != 0)
    {
      GSource *source = g_main_context_find_source_by_id (self->context, self->watch_source);

      if (source != NULL)
        g_source_destroy (source);
      self->watch_source = 0;
    }
}

/* The watch awaits an answer (or the stream's next line) from now on. */
static void
watch_waiting (PdRemoteSource *self)
{
  self->waiting_since = g_get_monotonic_time ();
}

/* The server said something: it is there.  A stream that announced its
 * keepalive is awaited again at once; one that did not may be silent. */
static void
watch_heard (PdRemoteSource *self,
             gboolean        await_more)
{
  self->last_heard = g_get_monotonic_time ();
  self->waiting_since = await_more ? self->last_heard : 0;
}

static gboolean
event_changes_sessions (const char *type)
{
  return pd_event_type_is_plan (type) ||
         g_strcmp0 (type, PD_EVENT_SESSION_SAVED) == 0 ||
         g_strcmp0 (type, PD_EVENT_RUN_STARTED) == 0 ||
         g_strcmp0 (type, PD_EVENT_RUN_COMPLETED) == 0 ||
         g_strcmp0 (type, PD_EVENT_RUN_FAILED) == 0;
}

static void
pd_remote_source_set_state (PdRemoteSource *self,
                            PdRemoteState   state,
                            const char     *message)
{
  PdRemoteState old = self->state;

  if (g_strcmp0 (self->state_message, message) != 0)
    {
      g_free (self->state_message);
      self->state_message = g_strdup (message);
    }
  if (old == state)
    return;

  self->state = state;
  _pd_remote_source_notify_state (self);

  /* Back after being away: what is shown may be old, read it all again. */
  if (state == PD_REMOTE_ONLINE && (old == PD_REMOTE_OFFLINE || old == PD_REMOTE_DENIED))
    pd_source_emit_changed (PD_SOURCE (self));
}

/* Drops the stream and tries again after the back-off, which grows. */
static void
watch_reconnect_later (PdRemoteSource *self)
{
  guint delay = self->reconnect_ms;

  g_clear_object (&self->stream);
  self->streaming = FALSE;
  self->waiting_since = 0;
  self->reconnect_ms = self->reconnect_ms == 0 ? RECONNECT_FIRST_MS : MIN (self->reconnect_ms * 2, RECONNECT_MAX_MS);
  watch_schedule (self, delay);
}

/* A request failed for a reason that concerns the whole endpoint. */
void
_pd_remote_source_note_failure (PdRemoteSource *self,
                                const GError   *error)
{
  if (g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_DENIED))
    {
      /* A new token is needed: trying again with this one cannot help. */
      pd_remote_source_set_state (self, PD_REMOTE_DENIED, error->message);
      return;
    }

  if (self->state == PD_REMOTE_DENIED)
    return;
  pd_remote_source_set_state (self, PD_REMOTE_OFFLINE, error->message);
}

/* The longest line of the event stream kept while its newline is awaited.
 * GDataInputStream's read_line doubles its buffer until a newline comes: a
 * server sending one endless line (or a chunk of gigabytes) grew the
 * window's memory by about 100 MB a second, with the window still showing
 * the server as online.  Our serve's lines are an event as one line of
 * JSON, far below this. */
#define STREAM_LINE_MAX (4 * 1024 * 1024)
/* The lines read from the buffer in one turn of the loop, at most. */
#define STREAM_LINES_AT_ONCE 32

static void stream_read_next (PdRemoteSource *self);

/* The stream ended or broke: the server went away, or restarted.  Ask at
 * once whether it is there (the first wait is none after a stream that
 * worked), then wait longer and longer.  Takes the reference the read
 * held. */
static void
stream_ended (PdRemoteSource *self)
{
  if (self->stream_spoke)
    self->reconnect_ms = 0;
  self->stream_spoke = FALSE;
  watch_reconnect_later (self);
  g_object_unref (self);
}

/* What another connection changed, as our serve pushes it (its
 * pd-server-push.c): told to ::sessions-pushed, then as a change.  What is
 * not of the shape is a change alone, which reads the list again. */
static void
stream_pushed (PdRemoteSource *self,
               const char     *data,
               gsize           len)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GPtrArray) pushed = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_remote_pushed_session_free);
  JsonNode *root;
  JsonArray *sessions;

  if (!pd_json_nesting_exceeds (data, (gssize) len, PD_JSON_FOREIGN_MAX_DEPTH) &&
      json_parser_load_from_data (parser, data, (gssize) len, NULL) &&
      (root = json_parser_get_root (parser)) != NULL && JSON_NODE_HOLDS_OBJECT (root) &&
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
            session->failed_check = g_strdup (pd_json_get_string (object, "failed_check"));
          }
        g_ptr_array_add (pushed, session);
      }
  if (pushed->len > 0)
    _pd_remote_source_emit_sessions_pushed (self, pushed);
  pd_source_emit_changed (PD_SOURCE (self));
}

/* One line of the stream, read. */
static void
stream_handle_line (PdRemoteSource *self,
                    const char     *line,
                    gsize           len)
{
  self->stream_spoke = TRUE;
  watch_heard (self, self->keepalive_ms > 0);
  /* Our serve names a commit of another connection (a CLI run) so. */
  if (g_strcmp0 (line, ": store_changed") == 0)
    pd_source_emit_changed (PD_SOURCE (self));
  else if (g_str_has_prefix (line, "event: "))
    {
      g_free (self->stream_event);
      self->stream_event = g_strdup (line + strlen ("event: "));
    }
  else if (*line == '\0')
    g_clear_pointer (&self->stream_event, g_free);
  else if (self->stream_pushes && g_strcmp0 (self->stream_event, "sessions") == 0 &&
           g_str_has_prefix (line, "data: "))
    stream_pushed (self, line + strlen ("data: "), len - strlen ("data: "));
  else if (g_str_has_prefix (line, "data: "))
    {
      g_autoptr(PdEvent) event = pd_event_new_from_json (line + strlen ("data: "), NULL);

      if (event != NULL)
        {
          _pd_remote_source_emit_event (self, event);
          if (event_changes_sessions (pd_event_get_event_type (event)))
            pd_source_emit_changed (PD_SOURCE (self));
        }
    }
}

static void
on_stream_line (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  PdRemoteSource *self = user_data;
  g_autoptr(GError) error = NULL;
  gsize len;
  g_autofree char *line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (object), result, &len, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || (gpointer) object != (gpointer) self->stream)
    {
      g_object_unref (self);
      return;
    }

  if (line == NULL)
    {
      stream_ended (self);
      return;
    }

  stream_handle_line (self, line, len);
  if ((gpointer) object != (gpointer) self->stream || g_cancellable_is_cancelled (self->watch_cancellable))
    {
      g_object_unref (self);
      return;
    }
  stream_read_next (self);
}

static void
on_stream_fill (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  PdRemoteSource *self = user_data;
  g_autoptr(GError) error = NULL;
  gssize n = g_buffered_input_stream_fill_finish (G_BUFFERED_INPUT_STREAM (object), result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || (gpointer) object != (gpointer) self->stream)
    {
      g_object_unref (self);
      return;
    }
  if (n <= 0)
    {
      stream_ended (self);
      return;
    }
  stream_read_next (self);
}

/* Reads the stream's next line once its newline is in the buffer, which
 * grows up to STREAM_LINE_MAX and no further: a longer line ends the
 * stream (and the watch reconnects).  Carries the reference the reads
 * hold. */
static void
stream_read_next (PdRemoteSource *self)
{
  GBufferedInputStream *buffered = G_BUFFERED_INPUT_STREAM (self->stream);
  gsize available = 0;
  const void *data = g_buffered_input_stream_peek_buffer (buffered, &available);
  gsize size = g_buffered_input_stream_get_buffer_size (buffered);

  /* The lines already whole in the buffer are read here, no I/O and no
   * turn of the loop each (an event of our serve is three lines and a
   * chunk; fifty endpoints pushing every second made it most of the
   * window's turns, bench-overview); a few at a time, so that a stream
   * with much in its buffer lets the rest of the window run between. */
  for (guint n = 0; available > 0 && memchr (data, '\n', available) != NULL && n < STREAM_LINES_AT_ONCE; n++)
    {
      g_autoptr(GDataInputStream) stream = g_object_ref (self->stream);
      g_autoptr(GError) error = NULL;
      gsize len;
      g_autofree char *line = g_data_input_stream_read_line_utf8 (stream, &len, self->watch_cancellable, &error);

      if (line == NULL)
        {
          if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            g_object_unref (self);
          else
            stream_ended (self);
          return;
        }
      stream_handle_line (self, line, len);
      if (stream != self->stream || g_cancellable_is_cancelled (self->watch_cancellable))
        {
          g_object_unref (self);
          return;
        }
      data = g_buffered_input_stream_peek_buffer (buffered, &available);
    }
  if (available > 0 && memchr (data, '\n', available) != NULL)
    {
      /* Whole: read from the buffer, no I/O, at the next turn. */
      g_data_input_stream_read_line_async (self->stream, G_PRIORITY_DEFAULT, self->watch_cancellable, on_stream_line, self);
      return;
    }
  if (available >= size)
    {
      if (size >= STREAM_LINE_MAX)
        {
          g_debug ("%s: a line of its event stream passed %d bytes; reconnecting", self->base, STREAM_LINE_MAX);
          stream_ended (self);
          return;
        }
      g_buffered_input_stream_set_buffer_size (buffered, MIN (size * 2, STREAM_LINE_MAX));
    }
  g_buffered_input_stream_fill_async (buffered, -1, G_PRIORITY_DEFAULT, self->watch_cancellable, on_stream_fill, self);
}

static void
on_stream_open (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  PdRemoteSource *self = user_data;
  g_autoptr(GError) error = NULL;
  SoupMessage *msg = soup_session_get_async_result_message (SOUP_SESSION (object), result);
  g_autoptr(GInputStream) stream = soup_session_send_finish (SOUP_SESSION (object), result, &error);
  guint status = msg != NULL ? soup_message_get_status (msg) : 0;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_object_unref (self);
      return;
    }
  self->waiting_since = 0;
  if (status == 401 || status == 403)
    {
      g_autoptr(GError) denied = g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_DENIED,
                                              _("%s refused the token (HTTP %u)"), self->base, status);

      _pd_remote_source_note_failure (self, denied);
      g_object_unref (self);
      return;
    }
  if (stream == NULL)
    {
      g_autoptr(GError) unavailable = g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE,
                                                   _("Could not reach %s: %s"), self->base, error->message);

      _pd_remote_source_note_failure (self, unavailable);
      watch_reconnect_later (self);
      g_object_unref (self);
      return;
    }
  if (status != 200)
    {
      /* No stream here (odek): poll. */
      watch_heard (self, FALSE);
      self->streaming = FALSE;
      watch_poll (self);
      g_object_unref (self);
      return;
    }

  self->streaming = TRUE;
  self->stream_spoke = FALSE;
  watch_heard (self, self->keepalive_ms > 0);
  pd_remote_source_set_state (self, PD_REMOTE_ONLINE, NULL);
  g_clear_object (&self->stream);
  self->stream = g_data_input_stream_new (stream);
  stream_read_next (self);
}

static void
on_poll_events (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  PdRemoteSource *self = PD_REMOTE_SOURCE (object);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = g_task_propagate_pointer (G_TASK (result), &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  self->waiting_since = 0;
  if (error == NULL || !g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE))
    watch_heard (self, FALSE);

  if (error != NULL && (g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE) ||
                        g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_DENIED)))
    {
      /* The failure was noted when it came; reconnect through health. */
      if (self->state != PD_REMOTE_DENIED)
        watch_reconnect_later (self);
      return;
    }

  if (events != NULL)
    {
      pd_remote_source_set_state (self, PD_REMOTE_ONLINE, NULL);
      self->reconnect_ms = 0;
    }

  if (events != NULL && events->len > 0)
    {
      PdStoredEvent *newest = g_ptr_array_index (events, events->len - 1);

      if (g_strcmp0 (newest->event_json, self->last_event_key) != 0)
        {
          gboolean first = self->last_event_key == NULL;

          g_free (self->last_event_key);
          self->last_event_key = g_strdup (newest->event_json);
          if (!first)
            pd_source_emit_changed (PD_SOURCE (self));
        }
    }

  watch_schedule (self, self->watch_interval);
}

static void
watch_poll (PdRemoteSource *self)
{
  watch_waiting (self);
  _pd_remote_source_start_get (self, OP_EVENTS, "/api/events?limit=20", watch_poll, self->watch_cancellable,
                               on_poll_events, NULL);
}

static void
on_health (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  PdRemoteSource *self = PD_REMOTE_SOURCE (object);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) health = g_task_propagate_pointer (G_TASK (result), &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  self->waiting_since = 0;
  if (g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_DENIED))
    return;   /* noted; waits for a new token */
  if (g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE))
    {
      watch_reconnect_later (self);
      return;
    }

  if (health != NULL)
    {
      /* Ours announces how often its stream speaks; odek's does not. */
      gint64 keepalive = pd_json_get_int (health, "keepalive_ms", 0);

      watch_heard (self, FALSE);
      self->keepalive_ms = keepalive > 0 ? (guint) CLAMP (keepalive, KEEPALIVE_MIN_MS, KEEPALIVE_MAX_MS) : 0;
      /* …and its limit of session lookups, which the budget follows. */
      self->lookup_limit = MAX (pd_json_get_int (health, "lookup_limit", -1), -1);
    }

  if (health != NULL && pd_json_get_boolean (health, "events_stream", FALSE))
    {
      /* Ours pushes what other connections change, when asked. */
      gboolean pushes = pd_json_get_boolean (health, "sessions_push", FALSE) && self->token != NULL;
      g_autofree char *url = g_strconcat (self->base, "/api/events/stream", pushes ? "?sessions=1" : "", NULL);
      g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);

      if (pd_json_get_boolean (health, "plan_detail", FALSE))
        self->has_detail = 1;
      soup_message_add_flags (msg, SOUP_MESSAGE_NO_REDIRECT);  /* the token goes nowhere else */
      if (self->token != NULL)
        soup_message_headers_replace (soup_message_get_request_headers (msg), "X-Odek-Ws-Token", self->token);
      soup_message_headers_replace (soup_message_get_request_headers (msg), "Accept", "text/event-stream");
      self->stream_pushes = pushes;
      g_clear_pointer (&self->stream_event, g_free);
      watch_waiting (self);
      soup_session_send_async (self->session, msg, G_PRIORITY_DEFAULT, self->watch_cancellable, on_stream_open,
                               g_object_ref (self));
      return;
    }

  /* A server without a stream (odek), or a health answer of another shape:
   * it is there, so poll its events. */
  if (health != NULL)
    pd_remote_source_set_state (self, PD_REMOTE_ONLINE, NULL);
  watch_poll (self);
}

static gboolean
on_watch_tick (gpointer user_data)
{
  PdRemoteSource *self = user_data;

  self->watch_source = 0;
  /* Health first: it says whether the server is there and streams events. */
  watch_waiting (self);
  _pd_remote_source_start_get (self, OP_USAGE, "/api/health", on_watch_tick, self->watch_cancellable, on_health, NULL);
  return G_SOURCE_REMOVE;
}

/* One request at a time: the next is scheduled when the last completed. */
static void
watch_schedule (PdRemoteSource *self,
                guint           delay_ms)
{
  GSource *source;

  if (self->watch_interval == 0 || self->watch_source != 0)
    return;
  source = g_timeout_source_new (delay_ms);
  g_source_set_priority (source, G_PRIORITY_LOW);
  g_source_set_name (source, "[pd] remote watch");
  g_source_set_callback (source, on_watch_tick, self, NULL);
  self->watch_source = g_source_attach (source, self->context);
  g_source_unref (source);
}

/* ---------------------------------------------------------------------- */
/* The watchdog                                                            */

/* How long the watch waits for a word before it takes the server for gone. */
static gint64
watchdog_deadline_us (PdRemoteSource *self)
{
  guint interval = self->keepalive_ms > 0 ? self->keepalive_ms : PROBE_MS;

  return (gint64) (WATCHDOG_FACTOR * interval * 1000);
}

/* Every request of the watch is dropped (their connections may be dead: a
 * cut network sends no reset) and it starts again after its wait; a poll
 * scheduled a minute away is not what asks whether the server is back. */
static void
watch_restart (PdRemoteSource *self)
{
  g_cancellable_cancel (self->watch_cancellable);
  g_clear_object (&self->watch_cancellable);
  self->watch_cancellable = g_cancellable_new ();
  self->probe_since = 0;
  self->stream_spoke = FALSE;
  watch_unschedule (self);
  watch_reconnect_later (self);
}

static void
on_probe (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  PdRemoteSource *self = PD_REMOTE_SOURCE (object);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) health = g_task_propagate_pointer (G_TASK (result), &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self->probe_since = 0;
  if (health != NULL)
    self->last_heard = g_get_monotonic_time ();
  /* A failure was noted (offline or denied) as it came; reconnect. */
  else if (g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE))
    watch_restart (self);
}

/* Nothing came in time: the banner says so and the watch reconnects with
 * its growing wait. */
static void
watchdog_lost (PdRemoteSource *self)
{
  g_autofree char *message = g_strdup_printf (_("%s stopped answering (is it hung, or the network down?)"), self->base);

  g_debug ("%s: nothing for %" G_GINT64_FORMAT " ms", self->base,
           (g_get_monotonic_time () - MAX (self->waiting_since, self->probe_since)) / 1000);
  /* After a connection that worked, the first try again is at once. */
  if (self->state == PD_REMOTE_ONLINE)
    self->reconnect_ms = 0;
  pd_remote_source_set_state (self, PD_REMOTE_OFFLINE, message);
  watch_restart (self);
}

static gboolean
on_watchdog_tick (gpointer user_data)
{
  PdRemoteSource *self = user_data;
  gint64 now = g_get_monotonic_time ();
  gint64 deadline = watchdog_deadline_us (self);
  gboolean late = self->last_tick != 0 && now - self->last_tick > 4 * WATCHDOG_TICK_MS * 1000;

  self->last_tick = now;
  /* This loop itself was held up (the machine or the process was busy):
   * what the server sent meanwhile waits unread.  Read it first.  A server
   * that refused the token waits for a new one, hung or not. */
  if (late || self->state == PD_REMOTE_DENIED)
    return G_SOURCE_CONTINUE;

  if ((self->waiting_since != 0 && now - self->waiting_since > deadline) ||
      (self->probe_since != 0 && now - self->probe_since > deadline))
    {
      watchdog_lost (self);
      return G_SOURCE_CONTINUE;
    }

  /* A server whose silence says nothing (no keepalive announced, or
   * between polls) is asked, while it is thought to be there. */
  if (self->state == PD_REMOTE_ONLINE && self->waiting_since == 0 && self->probe_since == 0 &&
      now - self->last_heard >= (gint64) PROBE_MS * 1000)
    {
      self->probe_since = now;
      _pd_remote_source_start_get (self, OP_USAGE, "/api/health", on_watchdog_tick, self->watch_cancellable,
                                   on_probe, NULL);
    }
  return G_SOURCE_CONTINUE;
}

static void
watchdog_stop (PdRemoteSource *self)
{
  if (self->watchdog_source != 0)
    {
      GSource *source = g_main_context_find_source_by_id (self->context, self->watchdog_source);

      if (source != NULL)
        g_source_destroy (source);
      self->watchdog_source = 0;
    }
  self->waiting_since = 0;
  self->probe_since = 0;
  self->last_tick = 0;
}

static void
watchdog_start (PdRemoteSource *self)
{
  GSource *source = g_timeout_source_new (WATCHDOG_TICK_MS);

  /* Below the stream's reads: a line that came is read before the
   * watchdog looks at how long it has been. */
  g_source_set_priority (source, G_PRIORITY_LOW);
  g_source_set_name (source, "[pd] remote watchdog");
  g_source_set_callback (source, on_watchdog_tick, self, NULL);
  self->watchdog_source = g_source_attach (source, self->context);
  g_source_unref (source);
  self->last_heard = g_get_monotonic_time ();
}

/**
 * pd_remote_source_watch:
 * @interval_ms: how often to poll (and to retry the stream); 0 stops
 *
 * Follows the server's event stream when it has one, else polls
 * /api/events; emits ::event and PdSource::changed.
 */
void
pd_remote_source_watch (PdRemoteSource *self,
                        guint           interval_ms)
{
  g_return_if_fail (PD_IS_REMOTE_SOURCE (self));

  watch_unschedule (self);
  if (self->watch_cancellable != NULL)
    g_cancellable_cancel (self->watch_cancellable);
  g_clear_object (&self->watch_cancellable);
  g_clear_object (&self->stream);
  self->streaming = FALSE;
  self->reconnect_ms = 0;
  watchdog_stop (self);

  self->watch_interval = interval_ms;
  if (interval_ms > 0)
    {
      self->watch_cancellable = g_cancellable_new ();
      watchdog_start (self);
      watch_schedule (self, 0);
    }
}

gboolean
pd_remote_source_is_streaming (PdRemoteSource *self)
{
  g_return_val_if_fail (PD_IS_REMOTE_SOURCE (self), FALSE);
  return self->streaming;
}

/**
 * pd_remote_source_get_state:
 *
 * Returns: whether the endpoint answers: %PD_REMOTE_CONNECTING until the
 *   first answer, %PD_REMOTE_OFFLINE while it cannot be reached (the
 *   watcher reconnects with a growing back-off), %PD_REMOTE_DENIED when it
 *   refused the token (a new one is needed)
 */
PdRemoteState
pd_remote_source_get_state (PdRemoteSource *self)
{
  g_return_val_if_fail (PD_IS_REMOTE_SOURCE (self), PD_REMOTE_CONNECTING);
  return self->state;
}

/**
 * pd_remote_source_get_state_message:
 *
 * Returns: (nullable): why the endpoint is offline or refused access
 */
const char *
pd_remote_source_get_state_message (PdRemoteSource *self)
{
  g_return_val_if_fail (PD_IS_REMOTE_SOURCE (self), NULL);
  return self->state == PD_REMOTE_ONLINE ? NULL : self->state_message;
}

/**
 * pd_remote_source_reconnect:
 *
 * Tries the endpoint again now (a person pressed Retry), and with the
 * shortest wait after that.
 */
void
pd_remote_source_reconnect (PdRemoteSource *self)
{
  g_return_if_fail (PD_IS_REMOTE_SOURCE (self));

  pd_remote_source_watch (self, self->watch_interval ? self->watch_interval : PD_REMOTE_SOURCE_WATCH_MS);
  pd_source_emit_changed (PD_SOURCE (self));
}

/**
 * pd_remote_source_get_token:
 *
 * Returns: (nullable): the instance token sent with each request
 */
const char *
pd_remote_source_get_token (PdRemoteSource *self)
{
  g_return_val_if_fail (PD_IS_REMOTE_SOURCE (self), NULL);
  return self->token;
}

/**
 * pd_remote_source_set_token:
 * @token: (nullable): the instance token the server prints (a restarted
 *   server has a new one)
 *
 * Uses @token from now on, forgets the session tokens of the old one and
 * reconnects; everything shown is read again.
 */
void
pd_remote_source_set_token (PdRemoteSource *self,
                            const char     *token)
{
  g_return_if_fail (PD_IS_REMOTE_SOURCE (self));

  g_free (self->token);
  self->token = token != NULL && *token != '\0' ? g_strdup (token) : NULL;
  g_hash_table_remove_all (self->session_tokens);
  self->backoff_until = 0;
  self->backoff_seconds = 0;
  pd_remote_source_set_state (self, PD_REMOTE_CONNECTING, NULL);
  pd_remote_source_reconnect (self);
}
