/* pd-event-bus.c: the bounded queue, the dispatcher thread and its outputs.
 *
 * Three locks, each held briefly and never nested with another bus lock:
 *   queue_lock  the queue and the emitted/dropped/dispatched counts; emitters
 *               take it, so nothing slow ever happens under it;
 *   state_lock  ring, usage counters, sink and listener arrays;
 *   jsonl_lock  the JSONL file descriptor, held across one write (and fsync).
 * The sink and listener arrays are copy-on-write: the dispatcher takes a
 * reference to the current array and calls out with no bus lock held.
 *
 * Each listener has its own pending queue and at most one idle source on its
 * context, which delivers the whole backlog in order.  One source per event
 * would also work, but GLib does not promise dispatch order between sources
 * of equal priority, and delivery order is part of the contract.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-events"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gi18n-lib.h>

#include "pd-event-bus.h"
#include "pd-event-private.h"

typedef struct
{
  PdEventSinkFunc func;
  gpointer        data;
  GDestroyNotify  destroy;
} Sink;

typedef struct
{
  guint               id;
  PdEventListenerFunc func;
  gpointer            data;
  GDestroyNotify      destroy;
  GMainContext       *context;
  guint               max_pending;

  GMutex              lock;          /* guards everything below */
  GQueue              pending;       /* PdEvent*, oldest first */
  GSource            *source;        /* the scheduled delivery, or NULL */
  gboolean            removed;
  guint               in_call;       /* depth of calls in progress */
  gboolean            destroy_pending; /* removed during a call: destroy after it */
} Listener;

struct _PdEventBus
{
  GObject   parent_instance;

  guint     capacity;
  GThread  *thread;

  GMutex    queue_lock;
  GCond     queue_cond;     /* the dispatcher waits for work here */
  GCond     flushed_cond;   /* flush() waits for progress here */
  GQueue    queue;
  guint64   enqueued;
  guint64   dispatched;
  guint64   dropped;
  gboolean  stopping;

  GMutex    state_lock;
  PdEvent  *ring[PD_EVENT_BUS_RING_SIZE];
  guint     ring_start;
  guint     ring_len;
  PdUsage   usage;
  GPtrArray *sinks;         /* Sink*, owned by the bus, freed at finalize */
  GPtrArray *listeners;     /* Listener*, each array holds a reference */
  guint     next_listener_id;

  GMutex    jsonl_lock;
  int       jsonl_fd;
  char     *jsonl_path;
  gboolean  jsonl_fsync;
  gboolean  jsonl_error_reported;
  guint64   jsonl_errors;
};

G_DEFINE_FINAL_TYPE (PdEventBus, pd_event_bus, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_CAPACITY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Listeners ----------------------------------------------------------------- */

static Listener *
listener_ref (Listener *l)
{
  return g_atomic_rc_box_acquire (l);
}

static void
listener_clear (Listener *l)
{
  PdEvent *event;

  while ((event = g_queue_pop_head (&l->pending)) != NULL)
    pd_event_unref (event);
  g_clear_pointer (&l->source, g_source_unref);
  g_main_context_unref (l->context);
  g_mutex_clear (&l->lock);
}

static void
listener_unref (Listener *l)
{
  g_atomic_rc_box_release_full (l, (GDestroyNotify) listener_clear);
}

typedef struct
{
  GDestroyNotify destroy;
  gpointer       data;
} DestroyCall;

static gboolean
destroy_call_run (gpointer user_data)
{
  DestroyCall *call = user_data;

  call->destroy (call->data);
  return G_SOURCE_REMOVE;
}

/* Runs on the listener's context.  The dispatcher never gets here; the call
 * comes from the delivery source or from the thread that removed it. */
static gboolean
listener_deliver (gpointer user_data)
{
  Listener *l = user_data;
  GQueue batch = G_QUEUE_INIT;
  PdEvent *event;

  g_mutex_lock (&l->lock);
  batch = l->pending;
  g_queue_init (&l->pending);
  /* Later events schedule a new source; this one is finishing. */
  if (l->source == g_main_current_source ())
    g_clear_pointer (&l->source, g_source_unref);
  g_mutex_unlock (&l->lock);

  while ((event = g_queue_pop_head (&batch)) != NULL)
    {
      gboolean call;
      gboolean destroy_now = FALSE;

      /* Checking `removed` and entering the call under one lock is what lets
       * pd_event_bus_remove_listener() promise that no call starts after it
       * returns. */
      g_mutex_lock (&l->lock);
      call = !l->removed;
      if (call)
        l->in_call++;
      g_mutex_unlock (&l->lock);

      if (call)
        {
          l->func (event, l->data);

          g_mutex_lock (&l->lock);
          l->in_call--;
          if (l->in_call == 0 && l->destroy_pending)
            {
              destroy_now = TRUE;
              l->destroy_pending = FALSE;
            }
          g_mutex_unlock (&l->lock);
        }

      if (destroy_now && l->destroy != NULL)
        l->destroy (l->data);

      pd_event_unref (event);
    }

  return G_SOURCE_REMOVE;
}

/* Returns FALSE if the listener's backlog is full and the event was not
 * queued for it. */
static gboolean
listener_push (Listener *l,
               PdEvent  *event)
{
  gboolean queued = TRUE;

  g_mutex_lock (&l->lock);
  if (l->pending.length >= l->max_pending)
    queued = FALSE;
  else if (!l->removed)
    {
      g_queue_push_tail (&l->pending, pd_event_ref (event));
      if (l->source == NULL)
        {
          /* An idle source attached directly, not g_main_context_invoke():
           * invoke would run the listener right here, on the dispatcher
           * thread, whenever the target context happens to be free. */
          l->source = g_idle_source_new ();
          g_source_set_priority (l->source, G_PRIORITY_DEFAULT);
          g_source_set_static_name (l->source, "[pd-events] listener delivery");
          g_source_set_callback (l->source, listener_deliver,
                                 listener_ref (l), (GDestroyNotify) listener_unref);
          g_source_attach (l->source, l->context);
        }
    }
  g_mutex_unlock (&l->lock);

  return queued;
}

/* Stops all further calls and releases the user data: immediately when that
 * is safe here, after the call in progress otherwise, and always on the
 * listener's context (GTK user data must not be released elsewhere). */
static void
listener_detach (Listener *l)
{
  GSource *source;
  GQueue pending;
  gboolean destroy_now = FALSE;
  PdEvent *event;

  g_mutex_lock (&l->lock);
  l->removed = TRUE;
  source = g_steal_pointer (&l->source);
  pending = l->pending;
  g_queue_init (&l->pending);
  if (l->in_call > 0)
    l->destroy_pending = TRUE;
  else
    destroy_now = TRUE;
  g_mutex_unlock (&l->lock);

  if (source != NULL)
    {
      g_source_destroy (source);
      g_source_unref (source);
    }

  while ((event = g_queue_pop_head (&pending)) != NULL)
    pd_event_unref (event);

  if (destroy_now && l->destroy != NULL)
    {
      DestroyCall *call = g_new0 (DestroyCall, 1);

      call->destroy = l->destroy;
      call->data = l->data;
      /* Runs right away when this thread owns (or can take) the context,
       * otherwise as an idle on it — after any call running there. */
      g_main_context_invoke_full (l->context, G_PRIORITY_DEFAULT,
                                  destroy_call_run, call, g_free);
    }
}

/* Dispatching ----------------------------------------------------------------- */

static void
ring_push (PdEventBus *self,
           PdEvent    *event)
{
  if (self->ring_len < PD_EVENT_BUS_RING_SIZE)
    {
      self->ring[(self->ring_start + self->ring_len) % PD_EVENT_BUS_RING_SIZE] = pd_event_ref (event);
      self->ring_len++;
    }
  else
    {
      pd_event_unref (self->ring[self->ring_start]);
      self->ring[self->ring_start] = pd_event_ref (event);
      self->ring_start = (self->ring_start + 1) % PD_EVENT_BUS_RING_SIZE;
    }
}

static void
jsonl_write (PdEventBus *self,
             PdEvent    *event)
{
  const char *json = _pd_event_peek_json (event);
  g_autofree char *line = NULL;
  gsize len;
  gsize off = 0;
  int saved_errno = 0;

  g_mutex_lock (&self->jsonl_lock);

  if (self->jsonl_fd < 0)
    {
      g_mutex_unlock (&self->jsonl_lock);
      return;
    }

  line = g_strconcat (json, "\n", NULL);
  len = strlen (line);

  /* One write() per line, so with O_APPEND a reader (or another appender)
   * never sees half a line.  Loop only for a short write, which regular files
   * produce only when the disk fills up. */
  while (off < len)
    {
      ssize_t n = write (self->jsonl_fd, line + off, len - off);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          saved_errno = errno;
          break;
        }
      off += (gsize) n;
    }

  if (saved_errno == 0 && self->jsonl_fsync && fsync (self->jsonl_fd) != 0)
    saved_errno = errno;

  if (saved_errno != 0)
    {
      self->jsonl_errors++;
      /* Once per file: a full disk would otherwise log on every event. */
      if (!self->jsonl_error_reported)
        {
          self->jsonl_error_reported = TRUE;
          g_message ("Cannot write events to “%s”: %s; further failures are only counted",
                     self->jsonl_path, g_strerror (saved_errno));
        }
    }

  g_mutex_unlock (&self->jsonl_lock);
}

static void
dispatch_one (PdEventBus *self,
              PdEvent    *event)
{
  g_autoptr(GPtrArray) sinks = NULL;
  g_autoptr(GPtrArray) listeners = NULL;
  guint64 listener_dropped = 0;

  g_mutex_lock (&self->state_lock);
  ring_push (self, event);
  pd_usage_add_event (&self->usage, event);
  sinks = g_ptr_array_ref (self->sinks);
  listeners = g_ptr_array_ref (self->listeners);
  g_mutex_unlock (&self->state_lock);

  jsonl_write (self, event);

  for (guint i = 0; i < sinks->len; i++)
    {
      Sink *sink = g_ptr_array_index (sinks, i);

      sink->func (event, sink->data);
    }

  for (guint i = 0; i < listeners->len; i++)
    if (!listener_push (g_ptr_array_index (listeners, i), event))
      listener_dropped++;

  if (listener_dropped > 0)
    {
      g_mutex_lock (&self->state_lock);
      self->usage.listener_dropped += listener_dropped;
      g_mutex_unlock (&self->state_lock);
    }
}

static gpointer
dispatcher_main (gpointer user_data)
{
  PdEventBus *self = user_data;
  g_autoptr(GMainContext) context = g_main_context_new ();

  /* A private thread-default context, so that nothing run from here (a sink
   * included) mistakes the process-wide default context for its own. */
  g_main_context_push_thread_default (context);

  for (;;)
    {
      PdEvent *event;

      g_mutex_lock (&self->queue_lock);
      while (self->queue.length == 0 && !self->stopping)
        g_cond_wait (&self->queue_cond, &self->queue_lock);
      /* On stop the queue is still drained, so the JSONL file and the sinks
       * get every accepted event. */
      event = g_queue_pop_head (&self->queue);
      g_mutex_unlock (&self->queue_lock);

      if (event == NULL)
        break;

      dispatch_one (self, event);
      pd_event_unref (event);

      g_mutex_lock (&self->queue_lock);
      self->dispatched++;
      g_cond_broadcast (&self->flushed_cond);
      g_mutex_unlock (&self->queue_lock);
    }

  g_main_context_pop_thread_default (context);

  return NULL;
}

/* GObject --------------------------------------------------------------------- */

static void
sink_free (Sink *sink)
{
  if (sink->destroy != NULL)
    sink->destroy (sink->data);
  g_free (sink);
}

static void
pd_event_bus_constructed (GObject *object)
{
  PdEventBus *self = PD_EVENT_BUS (object);

  G_OBJECT_CLASS (pd_event_bus_parent_class)->constructed (object);

  self->thread = g_thread_new ("pd-events", dispatcher_main, self);
}

static void
pd_event_bus_dispose (GObject *object)
{
  PdEventBus *self = PD_EVENT_BUS (object);
  g_autoptr(GPtrArray) listeners = NULL;

  if (self->thread != NULL)
    {
      /* The thread works on a borrowed pointer, so it must be gone before
       * anything it touches is. */
      g_mutex_lock (&self->queue_lock);
      self->stopping = TRUE;
      g_cond_signal (&self->queue_cond);
      g_mutex_unlock (&self->queue_lock);

      g_thread_join (g_steal_pointer (&self->thread));
    }

  g_mutex_lock (&self->state_lock);
  listeners = g_steal_pointer (&self->listeners);
  self->listeners = g_ptr_array_new_with_free_func ((GDestroyNotify) listener_unref);
  g_mutex_unlock (&self->state_lock);

  for (guint i = 0; i < listeners->len; i++)
    listener_detach (g_ptr_array_index (listeners, i));

  G_OBJECT_CLASS (pd_event_bus_parent_class)->dispose (object);
}

static void
pd_event_bus_finalize (GObject *object)
{
  PdEventBus *self = PD_EVENT_BUS (object);

  for (guint i = 0; i < self->ring_len; i++)
    pd_event_unref (self->ring[(self->ring_start + i) % PD_EVENT_BUS_RING_SIZE]);

  /* The dispatcher drained the queue before it exited, and emits after that
   * were refused; clearing is for a bus whose thread never started. */
  g_queue_clear_full (&self->queue, (GDestroyNotify) pd_event_unref);

  for (guint i = 0; i < self->sinks->len; i++)
    sink_free (g_ptr_array_index (self->sinks, i));
  g_ptr_array_unref (self->sinks);
  g_ptr_array_unref (self->listeners);

  if (self->jsonl_fd >= 0)
    close (self->jsonl_fd);
  g_free (self->jsonl_path);

  g_mutex_clear (&self->queue_lock);
  g_cond_clear (&self->queue_cond);
  g_cond_clear (&self->flushed_cond);
  g_mutex_clear (&self->state_lock);
  g_mutex_clear (&self->jsonl_lock);

  G_OBJECT_CLASS (pd_event_bus_parent_class)->finalize (object);
}

static void
pd_event_bus_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  PdEventBus *self = PD_EVENT_BUS (object);

  switch (prop_id)
    {
    case PROP_CAPACITY:
      g_value_set_uint (value, self->capacity);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_event_bus_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  PdEventBus *self = PD_EVENT_BUS (object);

  switch (prop_id)
    {
    case PROP_CAPACITY:
      self->capacity = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_event_bus_class_init (PdEventBusClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = pd_event_bus_constructed;
  object_class->dispose = pd_event_bus_dispose;
  object_class->finalize = pd_event_bus_finalize;
  object_class->get_property = pd_event_bus_get_property;
  object_class->set_property = pd_event_bus_set_property;

  /**
   * PdEventBus:capacity:
   *
   * How many events may wait for the dispatcher (and, per listener, for its
   * main context) before new ones are dropped.
   */
  properties[PROP_CAPACITY] =
    g_param_spec_uint ("capacity", NULL, NULL,
                       1, G_MAXINT, PD_EVENT_BUS_DEFAULT_CAPACITY,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
pd_event_bus_init (PdEventBus *self)
{
  self->capacity = PD_EVENT_BUS_DEFAULT_CAPACITY;
  g_mutex_init (&self->queue_lock);
  g_cond_init (&self->queue_cond);
  g_cond_init (&self->flushed_cond);
  g_queue_init (&self->queue);
  g_mutex_init (&self->state_lock);
  self->sinks = g_ptr_array_new ();
  self->listeners = g_ptr_array_new_with_free_func ((GDestroyNotify) listener_unref);
  self->next_listener_id = 1;
  g_mutex_init (&self->jsonl_lock);
  self->jsonl_fd = -1;
}

/* API --------------------------------------------------------------------------- */

PdEventBus *
pd_event_bus_new (void)
{
  return g_object_new (PD_TYPE_EVENT_BUS, NULL);
}

PdEventBus *
pd_event_bus_new_with_capacity (guint capacity)
{
  g_return_val_if_fail (capacity > 0, NULL);

  return g_object_new (PD_TYPE_EVENT_BUS, "capacity", capacity, NULL);
}

guint
pd_event_bus_get_capacity (PdEventBus *self)
{
  g_return_val_if_fail (PD_IS_EVENT_BUS (self), 0);

  return self->capacity;
}

/**
 * pd_event_bus_emit:
 * @event: (transfer none): the event; it is sealed here
 *
 * Callable from any thread.  Never waits for space: when the queue is full
 * the event is dropped and counted in `events_dropped`.
 */
void
pd_event_bus_emit (PdEventBus *self,
                   PdEvent    *event)
{
  g_return_if_fail (PD_IS_EVENT_BUS (self));
  g_return_if_fail (event != NULL);

  /* Sealed (and serialised) on the emitting thread, before anyone else can
   * see it. */
  pd_event_seal (event);

  g_mutex_lock (&self->queue_lock);
  if (self->stopping || self->queue.length >= self->capacity)
    self->dropped++;
  else
    {
      g_queue_push_tail (&self->queue, pd_event_ref (event));
      self->enqueued++;
      g_cond_signal (&self->queue_cond);
    }
  g_mutex_unlock (&self->queue_lock);
}

/**
 * pd_event_bus_flush_timeout:
 * @timeout_usec: how long to wait at most, or -1 for no limit
 *
 * Waits until every event emitted before the call has been through the
 * ring, the usage counters, the JSONL file and the sinks, and has been
 * queued for the listeners (which then run when their contexts iterate).
 * Must not be called from a sink.
 *
 * Returns: %TRUE if everything was dispatched, %FALSE on timeout
 */
gboolean
pd_event_bus_flush_timeout (PdEventBus *self,
                            gint64      timeout_usec)
{
  gint64 deadline;
  guint64 target;
  gboolean done = TRUE;

  g_return_val_if_fail (PD_IS_EVENT_BUS (self), FALSE);

  if (g_thread_self () == self->thread)
    {
      g_critical ("pd_event_bus_flush() called from the dispatcher thread: it would wait for itself");
      return FALSE;
    }

  deadline = timeout_usec < 0 ? -1 : g_get_monotonic_time () + timeout_usec;

  g_mutex_lock (&self->queue_lock);
  target = self->enqueued;
  while (self->dispatched < target)
    {
      if (deadline < 0)
        g_cond_wait (&self->flushed_cond, &self->queue_lock);
      else if (!g_cond_wait_until (&self->flushed_cond, &self->queue_lock, deadline))
        {
          done = self->dispatched >= target;
          break;
        }
    }
  g_mutex_unlock (&self->queue_lock);

  return done;
}

/**
 * pd_event_bus_flush:
 *
 * pd_event_bus_flush_timeout() without a limit: for clean shutdown and
 * tests, where a sink that never returns is a bug anyway.
 */
void
pd_event_bus_flush (PdEventBus *self)
{
  pd_event_bus_flush_timeout (self, -1);
}

/**
 * pd_event_bus_add_sink:
 *
 * Adds a function called on the dispatcher thread for every later event, in
 * emit order (the session store persists events this way).  Sinks live as
 * long as the bus; @destroy runs at finalization.
 */
void
pd_event_bus_add_sink (PdEventBus      *self,
                       PdEventSinkFunc  func,
                       gpointer         user_data,
                       GDestroyNotify   destroy)
{
  Sink *sink;
  GPtrArray *sinks;

  g_return_if_fail (PD_IS_EVENT_BUS (self));
  g_return_if_fail (func != NULL);

  sink = g_new0 (Sink, 1);
  sink->func = func;
  sink->data = user_data;
  sink->destroy = destroy;

  g_mutex_lock (&self->state_lock);
  sinks = g_ptr_array_copy (self->sinks, NULL, NULL);
  g_ptr_array_add (sinks, sink);
  g_ptr_array_unref (self->sinks);
  self->sinks = sinks;
  g_mutex_unlock (&self->state_lock);
}

/**
 * pd_event_bus_add_listener:
 *
 * @func is called, in emit order, on the thread-default main context of the
 * calling thread (the default context on the main thread).  @destroy runs
 * on that context too, after removal (or when the bus is disposed).
 *
 * Returns: an id for pd_event_bus_remove_listener(), never 0
 */
guint
pd_event_bus_add_listener (PdEventBus          *self,
                           PdEventListenerFunc  func,
                           gpointer             user_data,
                           GDestroyNotify       destroy)
{
  Listener *l;
  GPtrArray *listeners;
  guint id;

  g_return_val_if_fail (PD_IS_EVENT_BUS (self), 0);
  g_return_val_if_fail (func != NULL, 0);

  l = g_atomic_rc_box_new0 (Listener);
  l->func = func;
  l->data = user_data;
  l->destroy = destroy;
  l->context = g_main_context_ref_thread_default ();
  l->max_pending = self->capacity;
  g_mutex_init (&l->lock);
  g_queue_init (&l->pending);

  g_mutex_lock (&self->state_lock);
  id = l->id = self->next_listener_id++;
  listeners = g_ptr_array_copy (self->listeners, (GCopyFunc) listener_ref, NULL);
  g_ptr_array_set_free_func (listeners, (GDestroyNotify) listener_unref);
  g_ptr_array_add (listeners, l);
  g_ptr_array_unref (self->listeners);
  self->listeners = listeners;
  g_mutex_unlock (&self->state_lock);

  return id;
}

/**
 * pd_event_bus_remove_listener:
 *
 * After this returns no call of the listener starts, and events still
 * waiting for it are discarded.  Called from the listener's own context
 * (the usual case, including from inside the listener) that means no
 * further calls at all; called from another thread, a call already running
 * there finishes first.  The destroy notify runs on the listener's context
 * once no call is in progress.
 */
void
pd_event_bus_remove_listener (PdEventBus *self,
                              guint       id)
{
  Listener *found = NULL;

  g_return_if_fail (PD_IS_EVENT_BUS (self));
  g_return_if_fail (id > 0);

  g_mutex_lock (&self->state_lock);
  for (guint i = 0; i < self->listeners->len; i++)
    {
      Listener *l = g_ptr_array_index (self->listeners, i);

      if (l->id == id)
        {
          GPtrArray *listeners = g_ptr_array_copy (self->listeners, (GCopyFunc) listener_ref, NULL);

          g_ptr_array_set_free_func (listeners, (GDestroyNotify) listener_unref);
          found = listener_ref (l);
          g_ptr_array_remove_index (listeners, i);
          g_ptr_array_unref (self->listeners);
          self->listeners = listeners;
          break;
        }
    }
  g_mutex_unlock (&self->state_lock);

  if (found == NULL)
    {
      g_critical ("%s: no listener with id %u", G_STRFUNC, id);
      return;
    }

  listener_detach (found);
  listener_unref (found);
}

/**
 * pd_event_bus_get_recent:
 * @limit: at most this many events; 0 means the whole ring
 * @run_id: (nullable): only events of this run
 * @session_id: (nullable): only events of this session
 *
 * The most recent matching events, oldest first, as odek's /api/events
 * returns them.  Clamping the limit to 1..500 is the HTTP layer's business.
 *
 * Returns: (transfer full) (element-type PdEvent): sealed events
 */
GPtrArray *
pd_event_bus_get_recent (PdEventBus *self,
                         guint       limit,
                         const char *run_id,
                         const char *session_id)
{
  GPtrArray *result;

  g_return_val_if_fail (PD_IS_EVENT_BUS (self), NULL);

  if (limit == 0 || limit > PD_EVENT_BUS_RING_SIZE)
    limit = PD_EVENT_BUS_RING_SIZE;
  if (run_id != NULL && *run_id == '\0')
    run_id = NULL;
  if (session_id != NULL && *session_id == '\0')
    session_id = NULL;

  result = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_event_unref);

  g_mutex_lock (&self->state_lock);
  /* Newest to oldest until the limit, then reversed. */
  for (guint i = self->ring_len; i > 0 && result->len < limit; i--)
    {
      PdEvent *event = self->ring[(self->ring_start + i - 1) % PD_EVENT_BUS_RING_SIZE];

      if (run_id != NULL && g_strcmp0 (pd_event_get_run_id (event), run_id) != 0)
        continue;
      if (session_id != NULL && g_strcmp0 (pd_event_get_session_id (event), session_id) != 0)
        continue;
      g_ptr_array_add (result, pd_event_ref (event));
    }
  g_mutex_unlock (&self->state_lock);

  for (guint i = 0; i < result->len / 2; i++)
    {
      gpointer tmp = result->pdata[i];

      result->pdata[i] = result->pdata[result->len - 1 - i];
      result->pdata[result->len - 1 - i] = tmp;
    }

  return result;
}

/**
 * pd_event_bus_get_usage:
 *
 * Returns: a snapshot of the counters.  Event-derived counts cover the
 *   events dispatched so far; call pd_event_bus_flush() first to include
 *   everything emitted.
 */
PdUsage
pd_event_bus_get_usage (PdEventBus *self)
{
  PdUsage usage = { 0, };

  g_return_val_if_fail (PD_IS_EVENT_BUS (self), usage);

  g_mutex_lock (&self->state_lock);
  usage = self->usage;
  g_mutex_unlock (&self->state_lock);

  g_mutex_lock (&self->queue_lock);
  usage.events_emitted = self->enqueued;
  usage.events_dropped = self->dropped;
  g_mutex_unlock (&self->queue_lock);

  g_mutex_lock (&self->jsonl_lock);
  usage.jsonl_write_errors = self->jsonl_errors;
  g_mutex_unlock (&self->jsonl_lock);

  return usage;
}

/**
 * pd_event_bus_open_jsonl:
 * @path: the file to append event lines to (`--events-jsonl PATH`)
 *
 * Opens @path for appending, creating it with mode 0600.  A symbolic link
 * is refused rather than followed (someone else could point it anywhere),
 * and so is anything but a regular file; an existing file readable by
 * others is narrowed to 0600 because events name tools and sessions.
 * Replaces a previously opened file.
 */
gboolean
pd_event_bus_open_jsonl (PdEventBus  *self,
                         const char  *path,
                         GError     **error)
{
  struct stat st;
  int fd;
  int flags;
  int old_fd;

  g_return_val_if_fail (PD_IS_EVENT_BUS (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  /* O_NONBLOCK so that a FIFO planted at the path cannot hang us in open();
   * it is cleared again once the file is known to be regular. */
  fd = open (path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0600);
  if (fd < 0)
    {
      int saved_errno = errno;

      if (saved_errno == ELOOP)
        g_set_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_SYMLINK,
                     _("Refusing to write events to “%s”: it is a symbolic link; "
                       "give the path of a regular file"), path);
      /* EISDIR: a directory; ENXIO: a FIFO nobody reads (thanks to O_NONBLOCK)
       * or a device without its driver. */
      else if (saved_errno == EISDIR || saved_errno == ENXIO)
        g_set_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_NOT_REGULAR,
                     _("Refusing to write events to “%s”: it is not a regular file"), path);
      else
        g_set_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_IO,
                     _("Cannot open the events file “%s”: %s"), path, g_strerror (saved_errno));
      return FALSE;
    }

  if (fstat (fd, &st) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_IO,
                   _("Cannot inspect the events file “%s”: %s"), path, g_strerror (saved_errno));
      close (fd);
      return FALSE;
    }

  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_NOT_REGULAR,
                   _("Refusing to write events to “%s”: it is not a regular file"), path);
      close (fd);
      return FALSE;
    }

  if ((st.st_mode & 07777) != 0600 && fchmod (fd, 0600) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_IO,
                   _("Cannot restrict the events file “%s” to mode 0600: %s"),
                   path, g_strerror (saved_errno));
      close (fd);
      return FALSE;
    }

  flags = fcntl (fd, F_GETFL);
  if (flags < 0 || fcntl (fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_IO,
                   _("Cannot open the events file “%s”: %s"), path, g_strerror (saved_errno));
      close (fd);
      return FALSE;
    }

  g_mutex_lock (&self->jsonl_lock);
  old_fd = self->jsonl_fd;
  self->jsonl_fd = fd;
  g_free (self->jsonl_path);
  self->jsonl_path = g_strdup (path);
  self->jsonl_error_reported = FALSE;
  g_mutex_unlock (&self->jsonl_lock);

  if (old_fd >= 0)
    close (old_fd);

  return TRUE;
}

/**
 * pd_event_bus_close_jsonl:
 *
 * Stops writing the JSONL file.  Events already dispatched are in it; call
 * pd_event_bus_flush() first to include everything emitted.
 */
void
pd_event_bus_close_jsonl (PdEventBus *self)
{
  int fd;

  g_return_if_fail (PD_IS_EVENT_BUS (self));

  g_mutex_lock (&self->jsonl_lock);
  fd = self->jsonl_fd;
  self->jsonl_fd = -1;
  g_clear_pointer (&self->jsonl_path, g_free);
  g_mutex_unlock (&self->jsonl_lock);

  if (fd >= 0)
    close (fd);
}

/**
 * pd_event_bus_set_jsonl_fsync:
 *
 * fsync() after every line, as odek does: a crash then loses no event, at
 * the cost of a disk flush per event on the dispatcher thread (a slow disk
 * shows up as dropped events, never as a slower engine).  Off by default.
 */
void
pd_event_bus_set_jsonl_fsync (PdEventBus *self,
                              gboolean    fsync_each)
{
  g_return_if_fail (PD_IS_EVENT_BUS (self));

  g_mutex_lock (&self->jsonl_lock);
  self->jsonl_fsync = !!fsync_each;
  g_mutex_unlock (&self->jsonl_lock);
}
