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
#include "pd-remote-url.h"
#include "pd-remote-stream-private.h"

/* ---------------------------------------------------------------------- */
/* Live updates                                                            */

static void watch_schedule (PdRemoteSource *self, guint delay_ms);
static void watch_poll (PdRemoteSource *self);
static void stream_drop (PdRemoteSource *self);
static void stream_heard (PdRemoteSource *self,
                          gint64          heard);

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
  guint max = self->connect_refused ? RECONNECT_REFUSED_MAX_MS : RECONNECT_MAX_MS;
  guint delay = MIN (self->reconnect_ms, max);

  stream_drop (self);
  self->streaming = FALSE;
  self->waiting_since = 0;
  self->reconnect_ms = self->reconnect_ms == 0 ? RECONNECT_FIRST_MS : MIN (self->reconnect_ms * 2, max);
  watch_schedule (self, delay);
}

/* A 401 or 403, its body's "error" @why.  serve refuses a Host header it
 * does not know ("Host not allowed": reached at 127.0.0.2, a LAN name, a
 * proxy's) as it refuses a token, with a 403: that one said "Token
 * refused", and no token helps.  Said as what it is, and what to do. */
GError *
_pd_remote_source_denied_error (PdRemoteSource *self,
                                guint           status,
                                const char     *why)
{
  g_autoptr(GUri) uri = g_uri_parse (self->base, G_URI_FLAGS_NONE, NULL);

  self->host_refused = why != NULL && g_ascii_strncasecmp (why, "Host not allowed", 16) == 0;
  if (self->host_refused)
    return g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_DENIED,
                        _("%s refused the address it was reached at (HTTP %u: Host not allowed). serve answers "
                          "loopback addresses (127.0.0.1, localhost, [::1]) alone unless started with "
                          "--allow-host %s: connect at one of those, or start serve with that option"),
                        self->base, status, uri != NULL && g_uri_get_host (uri) ? g_uri_get_host (uri) : "HOST");
  /* No token kept at all (added without one, or its token removed): it
   * said "refused the token", of a token never sent (tried as a new user
   * would).  Said as what is missing, and where to give it. */
  if (self->token == NULL)
    return g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_DENIED,
                        _("%s needs a token, and none is kept for it (HTTP %u). Enter the token serve printed "
                          "when it started: on the endpoint’s page, or as its New Token in Preferences → Sources"),
                        self->base, status);
  return g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_DENIED, _("%s refused the token (HTTP %u)"), self->base, status);
}

/**
 * pd_remote_source_get_host_refused:
 *
 * Returns: %TRUE when the endpoint, %PD_REMOTE_DENIED, refused the address
 *   it was reached at (its Host), not the token: a new token cannot help
 */
gboolean
pd_remote_source_get_host_refused (PdRemoteSource *self)
{
  g_return_val_if_fail (PD_IS_REMOTE_SOURCE (self), FALSE);
  return self->state == PD_REMOTE_DENIED && self->host_refused;
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

static void
stream_drop (PdRemoteSource *self)
{
  if (self->stream != NULL)
    _pd_remote_stream_stop (g_steal_pointer (&self->stream));
}

/* The stream ended or broke: the server went away, or restarted.  Ask at
 * once whether it is there (the first wait is none after a stream that
 * worked: one that delivered an event, a push or a change and lived
 * RECONNECT_RESET_MS), then wait longer and longer.  A server that answered
 * with a comment line and closed, each time, was reconnected to about 240
 * times a second when any line put the wait back to none. */
static void
stream_ended (PdRemoteSource *self)
{
  if (self->stream_spoke && g_get_monotonic_time () - self->stream_since >= (gint64) RECONNECT_RESET_MS * 1000)
    self->reconnect_ms = 0;
  self->stream_spoke = FALSE;
  watch_reconnect_later (self);
}

/* A line of the stream was read (on the streams' thread) at @heard. */
static void
stream_heard (PdRemoteSource *self,
              gint64          heard)
{
  if (heard == 0)
    return;
  if (heard <= self->last_heard)
    return;
  self->last_heard = heard;
  self->waiting_since = self->keepalive_ms > 0 ? heard : 0;
}

/* The server answered the stream's request. */
static void
stream_opened (PdRemoteSource            *self,
               const PdRemoteStreamBatch *batch)
{
  gboolean away;

  self->waiting_since = 0;
  if (batch->status == 401 || batch->status == 403)
    {
      g_autoptr(GError) denied = _pd_remote_source_denied_error (self, batch->status, NULL);

      stream_drop (self);
      _pd_remote_source_note_failure (self, denied);
      return;
    }
  if (batch->open_error != NULL)
    {
      g_autoptr(GError) unavailable = g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE,
                                                   _("Could not reach %s: %s"), self->base, batch->open_error->message);

      _pd_remote_source_note_failure (self, unavailable);
      self->connect_refused = g_error_matches (batch->open_error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED);
      watch_reconnect_later (self);
      return;
    }
  if (batch->status != 200)
    {
      /* No stream here (odek): poll. */
      stream_drop (self);
      watch_heard (self, FALSE);
      self->streaming = FALSE;
      watch_poll (self);
      return;
    }

  self->streaming = TRUE;
  self->stream_spoke = FALSE;
  self->stream_since = g_get_monotonic_time ();
  watch_heard (self, self->keepalive_ms > 0);
  away = self->state == PD_REMOTE_OFFLINE || self->state == PD_REMOTE_DENIED;
  pd_remote_source_set_state (self, PD_REMOTE_ONLINE, NULL);
  if (away)
    return;   /* set_state() had everything read again */
  /* What was read before the stream opened may be old: a run another
   * client started meanwhile, its question asked, was pushed to no stream
   * of ours, and nothing more may come (it waits for its answer).  Read
   * again once the stream is there, which tells all that follows. */
  pd_source_emit_changed (PD_SOURCE (self));
}

/* What the stream said since the last batch (pd-remote-stream.c), handed
 * over from the streams' thread: the events in their order, then the
 * sessions pushed (the latest of each) and the changes. */
void
_pd_remote_source_stream_batch (PdRemoteSource      *self,
                                PdRemoteStream      *stream,
                                PdRemoteStreamBatch *batch)
{
  g_autoptr(PdRemoteSource) hold = g_object_ref (self);

#define STREAM_GONE() (stream != self->stream || self->watch_cancellable == NULL || \
                       g_cancellable_is_cancelled (self->watch_cancellable))
  if (STREAM_GONE ())
    return;
  if (batch->opened)
    {
      stream_opened (self, batch);
      if (STREAM_GONE ())
        return;
    }
  stream_heard (self, _pd_remote_stream_heard (stream));
  if (batch->events->len > 0 || batch->pushed->len > 0 || batch->pushes_changed || batch->changed)
    self->stream_spoke = TRUE;
  if (batch->dropped > 0)
    g_debug ("%s: %u events or pushed sessions past the bounds of a batch; listing again",
             self->base, batch->dropped);
  /* A session the endpoint tells of may read again: its reads that failed
   * are sent when next asked (pd-remote-source-backoff.c). */
  for (guint i = 0; i < batch->events->len; i++)
    _pd_remote_source_forget_session_failures (self, pd_event_get_session_id (g_ptr_array_index (batch->events, i)));
  for (guint i = 0; i < batch->pushed->len; i++)
    _pd_remote_source_forget_session_failures (self,
                                               ((PdRemotePushedSession *) g_ptr_array_index (batch->pushed, i))->info->id);
  for (guint i = 0; i < batch->events->len; i++)
    {
      _pd_remote_source_emit_event (self, g_ptr_array_index (batch->events, i));
      if (STREAM_GONE ())
        return;
    }
  if (batch->pushed->len > 0)
    {
      _pd_remote_source_emit_sessions_pushed (self, batch->pushed);
      if (STREAM_GONE ())
        return;
    }
  if (batch->pushes_changed)
    {
      pd_source_emit_changed (PD_SOURCE (self));
      if (STREAM_GONE ())
        return;
    }
  if (batch->changed && !(batch->pushes_changed && batch->pushed->len == 0))
    {
      pd_source_emit_changed (PD_SOURCE (self));
      if (STREAM_GONE ())
        return;
    }
  if (batch->ended)
    stream_ended (self);
#undef STREAM_GONE
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
      /* Noted (a 5xx here), then reconnect through health. */
      if (self->state != PD_REMOTE_DENIED)
        {
          _pd_remote_source_note_failure (self, error);
          watch_reconnect_later (self);
        }
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

      /* The first answer too: what was listed before it may be older (a
       * run begun since, waiting for its answer, adds no later event). */
      if (g_strcmp0 (newest->event_json, self->last_event_key) != 0)
        {
          g_free (self->last_event_key);
          self->last_event_key = g_strdup (newest->event_json);
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
      /* A 5xx too: the endpoint is down, and said so, so the watchdog's
       * probes (sent while it is online) wait with the rest.  Left online,
       * one that answered 503 was asked every second past the back-off. */
      _pd_remote_source_note_failure (self, error);
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
      g_autofree char *url = pd_remote_url_join (self->base, self->base_query,
                                                pushes ? "/api/events/stream?sessions=1" : "/api/events/stream");

      if (pd_json_get_boolean (health, "plan_detail", FALSE))
        self->has_detail = 1;
      self->stream_pushes = pushes;
      watch_waiting (self);
      stream_drop (self);
      self->stream = _pd_remote_stream_open (self, url, self->token, pushes);
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
    {
      _pd_remote_source_note_failure (self, error);
      watch_restart (self);
    }
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

/* A request other than the watch's own got its reply too slowly (a
 * hostile endpoint's trickle, or a link too slow for it): said as such,
 * and the watch reconnects after its wait; back online, everything shown
 * is read again (PdSource::changed), so the page that failed asks again.
 * With a stream the wait grows each time; a poll that is answered puts it
 * back, but each try costs the slow reply's own pace first.  Once: the
 * lookups merged into the request end with the same error, and the watch
 * is already on its way. */
void
_pd_remote_source_note_too_slow (PdRemoteSource *self,
                                 const GError   *error)
{
  gboolean was_offline = self->state == PD_REMOTE_OFFLINE;

  _pd_remote_source_note_failure (self, error);
  if (self->watch_interval == 0 || self->watch_cancellable == NULL || self->state != PD_REMOTE_OFFLINE ||
      was_offline)
    return;
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
  /* The streams' thread reads the lines: when it last heard one. */
  if (self->streaming && self->stream != NULL)
    stream_heard (self, _pd_remote_stream_heard (self->stream));
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

/* One watchdog timer for all the remote sources of a main context: each
 * timer was a source the context looked at on every turn of its loop
 * (prepare, check), whatever woke it; fifty endpoints' watchdogs were 51
 * of the 161 sources bench-overview's window loop went over about 75
 * times a second, and the loop's own turns a third of its main thread's
 * time (perf). */
typedef struct
{
  GSource   *source;
  GPtrArray *watched;   /* (element-type PdRemoteSource) not owned */
} Watchdogs;

static GMutex watchdogs_lock;
static GHashTable *watchdogs;  /* GMainContext * → Watchdogs * */

static void
watchdogs_free (Watchdogs *dogs)
{
  g_ptr_array_unref (dogs->watched);
  g_free (dogs);
}

static gboolean
on_watchdogs_tick (gpointer data)
{
  Watchdogs *dogs = data;
  g_autoptr(GPtrArray) watched = g_ptr_array_new_with_free_func (g_object_unref);

  g_mutex_lock (&watchdogs_lock);
  for (guint i = 0; i < dogs->watched->len; i++)
    g_ptr_array_add (watched, g_object_ref (g_ptr_array_index (dogs->watched, i)));
  g_mutex_unlock (&watchdogs_lock);
  for (guint i = 0; i < watched->len; i++)
    {
      PdRemoteSource *self = g_ptr_array_index (watched, i);
      gboolean still;

      /* A tick before it may have stopped or restarted its watch. */
      g_mutex_lock (&watchdogs_lock);
      still = self->watchdog_source != 0 && g_ptr_array_find (dogs->watched, self, NULL);
      g_mutex_unlock (&watchdogs_lock);
      if (still)
        on_watchdog_tick (self);
    }
  return G_SOURCE_CONTINUE;
}

static void
watchdog_stop (PdRemoteSource *self)
{
  if (self->watchdog_source != 0)
    {
      Watchdogs *dogs;

      g_mutex_lock (&watchdogs_lock);
      dogs = g_hash_table_lookup (watchdogs, self->context);
      g_ptr_array_remove (dogs->watched, self);
      if (dogs->watched->len == 0)
        {
          GSource *source = dogs->source;

          g_hash_table_remove (watchdogs, self->context);
          /* @dogs goes with the callback, after a tick under way. */
          g_source_destroy (source);
          g_source_unref (source);
        }
      g_mutex_unlock (&watchdogs_lock);
      self->watchdog_source = 0;
    }
  self->waiting_since = 0;
  self->probe_since = 0;
  self->last_tick = 0;
}

static void
watchdog_start (PdRemoteSource *self)
{
  Watchdogs *dogs;

  g_mutex_lock (&watchdogs_lock);
  if (watchdogs == NULL)
    watchdogs = g_hash_table_new (NULL, NULL);
  if (!(dogs = g_hash_table_lookup (watchdogs, self->context)))
    {
      dogs = g_new0 (Watchdogs, 1);
      dogs->watched = g_ptr_array_new ();
      dogs->source = g_timeout_source_new (WATCHDOG_TICK_MS);
      /* Below the stream's reads: a line that came is read before the
       * watchdog looks at how long it has been. */
      g_source_set_priority (dogs->source, G_PRIORITY_LOW);
      g_source_set_name (dogs->source, "[pd] remote watchdog");
      g_source_set_callback (dogs->source, on_watchdogs_tick, dogs, (GDestroyNotify) watchdogs_free);
      g_source_attach (dogs->source, self->context);
      g_hash_table_insert (watchdogs, self->context, dogs);
    }
  g_ptr_array_add (dogs->watched, self);
  self->watchdog_source = g_source_get_id (dogs->source);
  g_mutex_unlock (&watchdogs_lock);
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
  stream_drop (self);
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
 * pd_remote_source_get_streaming_since:
 *
 * Returns: when the open event stream was answered (monotonic µs), 0 when
 *   none is open: a follower that reads again only on what the stream
 *   tells knows from a new value that events may have been missed
 */
gint64
pd_remote_source_get_streaming_since (PdRemoteSource *self)
{
  g_return_val_if_fail (PD_IS_REMOTE_SOURCE (self), 0);
  return self->streaming ? self->stream_since : 0;
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

  /* Everything is asked again now, what failed too. */
  pd_remote_source_forget_failures (self, NULL);
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
  self->token_serial++;
  g_hash_table_remove_all (self->session_tokens);
  self->backoff_until = 0;
  self->backoff_seconds = 0;
  pd_remote_source_set_state (self, PD_REMOTE_CONNECTING, NULL);
  pd_remote_source_reconnect (self);
}
