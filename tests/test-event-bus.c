/* test-event-bus.c: emitting from threads, delivery on the listener's
 * context, the bounded queue, the ring, the JSONL file and the counters.
 *
 * Every wait is bounded: listeners are awaited by iterating the main context
 * under a deadline source, and blocked threads by g_cond_wait_until().
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "pd-event-bus.h"

#define WAIT_SECONDS 20

/* Helpers --------------------------------------------------------------------- */

static gboolean
deadline_reached (gpointer user_data)
{
  gboolean *expired = user_data;

  *expired = TRUE;
  return G_SOURCE_REMOVE;
}

/* Iterates the default context until *counter reaches target or the deadline
 * passes; returns whether the target was reached. */
static gboolean
iterate_until (const guint *counter,
               guint        target)
{
  gboolean expired = FALSE;
  guint source_id = g_timeout_add_seconds (WAIT_SECONDS, deadline_reached, &expired);

  while (*counter < target && !expired)
    g_main_context_iteration (NULL, TRUE);

  if (!expired)
    g_source_remove (source_id);

  return *counter >= target;
}

/* Runs whatever is already pending on the default context, so a duplicate or
 * late delivery would be seen. */
static void
iterate_pending (void)
{
  for (guint i = 0; i < 10000 && g_main_context_pending (NULL); i++)
    g_main_context_iteration (NULL, FALSE);
}

static PdEvent *
numbered_event (const char *type,
                guint       n)
{
  PdEvent *event = pd_event_new (type);

  json_object_set_int_member (pd_event_get_data (event), "n", n);
  return event;
}

static gint64
event_number (PdEvent *event)
{
  return json_object_get_int_member (pd_event_get_data (event), "n");
}

/* Threads --------------------------------------------------------------------- */

#define N_THREADS 8
#define N_PER_THREAD 1000

typedef struct
{
  GThread *main_thread;
  guint    received;
  gint64   next[N_THREADS];
  guint    wrong_thread;
  guint    out_of_order;
} Delivery;

static void
record_delivery (PdEvent  *event,
                 gpointer  user_data)
{
  Delivery *d = user_data;
  JsonObject *data = pd_event_get_data (event);
  gint64 thread = json_object_get_int_member (data, "thread");
  gint64 seq = json_object_get_int_member (data, "seq");

  if (g_thread_self () != d->main_thread || !g_main_context_is_owner (g_main_context_default ()))
    d->wrong_thread++;

  g_assert_cmpint (thread, >=, 0);
  g_assert_cmpint (thread, <, N_THREADS);
  /* Exactly once and in per-thread order: each thread's numbers arrive as
   * 0, 1, 2, … with nothing repeated or skipped. */
  if (seq != d->next[thread])
    d->out_of_order++;
  d->next[thread] = seq + 1;
  d->received++;
}

typedef struct
{
  PdEventBus *bus;
  guint       index;
} Emitter;

static gpointer
emit_thread (gpointer user_data)
{
  Emitter *e = user_data;

  for (guint i = 0; i < N_PER_THREAD; i++)
    {
      g_autoptr(PdEvent) event = pd_event_new (PD_EVENT_TOOL_CALL_STARTED);
      JsonObject *data = pd_event_get_data (event);

      json_object_set_int_member (data, "thread", e->index);
      json_object_set_int_member (data, "seq", i);
      pd_event_bus_emit (e->bus, event);
    }

  return NULL;
}

static void
test_threads (void)
{
  /* Large enough that nothing is dropped: this test is about delivery. */
  g_autoptr(PdEventBus) bus = pd_event_bus_new_with_capacity (N_THREADS * N_PER_THREAD);
  Delivery d = { .main_thread = g_thread_self () };
  Emitter emitters[N_THREADS];
  GThread *threads[N_THREADS];
  PdUsage usage;

  pd_event_bus_add_listener (bus, record_delivery, &d, NULL);

  for (guint i = 0; i < N_THREADS; i++)
    {
      emitters[i].bus = bus;
      emitters[i].index = i;
      threads[i] = g_thread_new ("emitter", emit_thread, &emitters[i]);
    }

  /* Deliveries run while the emitters are still going. */
  g_assert_true (iterate_until (&d.received, N_THREADS * N_PER_THREAD));

  for (guint i = 0; i < N_THREADS; i++)
    g_thread_join (threads[i]);
  pd_event_bus_flush (bus);
  iterate_pending ();

  g_assert_cmpuint (d.received, ==, N_THREADS * N_PER_THREAD);
  g_assert_cmpuint (d.wrong_thread, ==, 0);
  g_assert_cmpuint (d.out_of_order, ==, 0);
  for (guint i = 0; i < N_THREADS; i++)
    g_assert_cmpint (d.next[i], ==, N_PER_THREAD);

  usage = pd_event_bus_get_usage (bus);
  g_assert_cmpuint (usage.events_emitted, ==, N_THREADS * N_PER_THREAD);
  g_assert_cmpuint (usage.events_dropped, ==, 0);
  g_assert_cmpuint (usage.listener_dropped, ==, 0);
}

/* A listener registered on another thread's context runs on that thread. */
typedef struct
{
  PdEventBus   *bus;
  GMutex        lock;
  GCond         cond;
  gboolean      registered;
  guint         received;
  guint         wrong_thread;
  GThread      *thread;
  GMainContext *context;
} Worker;

static void
worker_listener (PdEvent  *event,
                 gpointer  user_data)
{
  Worker *w = user_data;

  g_mutex_lock (&w->lock);
  if (g_thread_self () != w->thread || !g_main_context_is_owner (w->context))
    w->wrong_thread++;
  w->received++;
  g_cond_signal (&w->cond);
  g_mutex_unlock (&w->lock);
}

static gpointer
worker_main (gpointer user_data)
{
  Worker *w = user_data;
  g_autoptr(GMainContext) context = g_main_context_new ();
  gint64 deadline = g_get_monotonic_time () + WAIT_SECONDS * G_USEC_PER_SEC;
  guint id;
  gboolean done = FALSE;

  g_main_context_push_thread_default (context);

  g_mutex_lock (&w->lock);
  w->context = context;
  w->thread = g_thread_self ();
  id = pd_event_bus_add_listener (w->bus, worker_listener, w, NULL);
  w->registered = TRUE;
  g_cond_signal (&w->cond);
  g_mutex_unlock (&w->lock);

  while (!done && g_get_monotonic_time () < deadline)
    {
      g_main_context_iteration (context, FALSE);
      g_mutex_lock (&w->lock);
      done = w->received >= 3;
      if (!done)
        g_cond_wait_until (&w->cond, &w->lock, g_get_monotonic_time () + G_USEC_PER_SEC / 100);
      g_mutex_unlock (&w->lock);
    }

  pd_event_bus_remove_listener (w->bus, id);
  g_main_context_pop_thread_default (context);

  return NULL;
}

static void
test_thread_context (void)
{
  g_autoptr(PdEventBus) bus = pd_event_bus_new ();
  Worker w = { .bus = bus };
  gint64 deadline = g_get_monotonic_time () + WAIT_SECONDS * G_USEC_PER_SEC;
  GThread *thread;
  gboolean registered;

  g_mutex_init (&w.lock);
  g_cond_init (&w.cond);
  thread = g_thread_new ("listener", worker_main, &w);

  g_mutex_lock (&w.lock);
  while (!w.registered && g_cond_wait_until (&w.cond, &w.lock, deadline))
    ;
  registered = w.registered;
  g_mutex_unlock (&w.lock);
  g_assert_true (registered);

  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(PdEvent) event = numbered_event (PD_EVENT_SESSION_SAVED, i);

      pd_event_bus_emit (bus, event);
    }

  g_thread_join (thread);
  g_assert_cmpuint (w.received, ==, 3);
  g_assert_cmpuint (w.wrong_thread, ==, 0);

  g_mutex_clear (&w.lock);
  g_cond_clear (&w.cond);
}

/* Full queue ------------------------------------------------------------------ */

typedef struct
{
  GMutex     lock;
  GCond      cond;
  gboolean   entered;
  gboolean   released;
  GPtrArray *seen;     /* event numbers, in sink order */
} Gate;

static void
gate_sink (PdEvent  *event,
           gpointer  user_data)
{
  Gate *gate = user_data;
  gint64 deadline = g_get_monotonic_time () + WAIT_SECONDS * G_USEC_PER_SEC;

  g_mutex_lock (&gate->lock);
  g_ptr_array_add (gate->seen, GINT_TO_POINTER ((int) event_number (event)));
  gate->entered = TRUE;
  g_cond_broadcast (&gate->cond);
  /* Holds the dispatcher until the test releases it (bounded, so a failing
   * test cannot hang the suite). */
  while (!gate->released && g_cond_wait_until (&gate->cond, &gate->lock, deadline))
    ;
  g_mutex_unlock (&gate->lock);
}

typedef struct
{
  PdEventBus *bus;
  guint       first;
  guint       count;
  GMutex     *lock;
  GCond      *cond;
  gboolean    done;
} Burst;

static gpointer
burst_thread (gpointer user_data)
{
  Burst *b = user_data;

  for (guint i = 0; i < b->count; i++)
    {
      g_autoptr(PdEvent) event = numbered_event (PD_EVENT_TOOL_CALL_COMPLETED, b->first + i);

      pd_event_bus_emit (b->bus, event);
    }

  g_mutex_lock (b->lock);
  b->done = TRUE;
  g_cond_broadcast (b->cond);
  g_mutex_unlock (b->lock);

  return NULL;
}

static void
test_full_queue (void)
{
  g_autoptr(PdEventBus) bus = pd_event_bus_new_with_capacity (4);
  Gate gate = { .seen = g_ptr_array_new () };
  Burst burst = { .bus = bus, .first = 1, .count = 14, .lock = &gate.lock, .cond = &gate.cond };
  g_autoptr(PdEvent) first = numbered_event (PD_EVENT_TOOL_CALL_COMPLETED, 0);
  gint64 deadline = g_get_monotonic_time () + WAIT_SECONDS * G_USEC_PER_SEC;
  GThread *thread;
  gboolean entered, burst_done;
  PdUsage usage;

  g_mutex_init (&gate.lock);
  g_cond_init (&gate.cond);
  pd_event_bus_add_sink (bus, gate_sink, &gate, NULL);
  g_assert_cmpuint (pd_event_bus_get_capacity (bus), ==, 4);

  /* Event 0 occupies the dispatcher, which then sits in the sink. */
  pd_event_bus_emit (bus, first);
  g_mutex_lock (&gate.lock);
  while (!gate.entered && g_cond_wait_until (&gate.cond, &gate.lock, deadline))
    ;
  entered = gate.entered;
  g_mutex_unlock (&gate.lock);
  g_assert_true (entered);

  /* 14 more from another thread: 4 fit, 10 are dropped, and emit must return
   * for all of them while the dispatcher is stuck. */
  thread = g_thread_new ("burst", burst_thread, &burst);
  g_mutex_lock (&gate.lock);
  while (!burst.done && g_cond_wait_until (&gate.cond, &gate.lock, deadline))
    ;
  burst_done = burst.done;
  g_mutex_unlock (&gate.lock);

  usage = pd_event_bus_get_usage (bus);

  /* Release before asserting, so a failure does not leave the thread stuck. */
  g_mutex_lock (&gate.lock);
  gate.released = TRUE;
  g_cond_broadcast (&gate.cond);
  g_mutex_unlock (&gate.lock);

  g_assert_true (burst_done);
  g_thread_join (thread);
  g_assert_cmpuint (usage.events_emitted, ==, 5);
  g_assert_cmpuint (usage.events_dropped, ==, 10);

  pd_event_bus_flush (bus);
  g_assert_cmpuint (gate.seen->len, ==, 5);
  for (guint i = 0; i < 5; i++)
    g_assert_cmpint (GPOINTER_TO_INT (g_ptr_array_index (gate.seen, i)), ==, i);

  usage = pd_event_bus_get_usage (bus);
  g_assert_cmpuint (usage.events_dropped, ==, 10);

  g_clear_object (&bus);
  g_ptr_array_unref (gate.seen);
  g_mutex_clear (&gate.lock);
  g_cond_clear (&gate.cond);
}

/* Ring ------------------------------------------------------------------------ */

static void
test_ring (void)
{
  g_autoptr(PdEventBus) bus = pd_event_bus_new ();
  g_autoptr(GPtrArray) all = NULL;
  g_autoptr(GPtrArray) r1 = NULL;
  g_autoptr(GPtrArray) s2 = NULL;
  g_autoptr(GPtrArray) both = NULL;
  g_autoptr(GPtrArray) none = NULL;
  g_autoptr(GPtrArray) three = NULL;

  for (guint i = 0; i < 600; i++)
    {
      g_autoptr(PdEvent) event = numbered_event (PD_EVENT_ITERATION_COMPLETED, i);
      g_autofree char *run = g_strdup_printf ("r%u", i % 2);
      g_autofree char *session = g_strdup_printf ("s%u", i % 3);

      pd_event_set_run_id (event, run);
      pd_event_set_session_id (event, session);
      pd_event_bus_emit (bus, event);
    }
  pd_event_bus_flush (bus);

  /* The last 500, oldest first. */
  all = pd_event_bus_get_recent (bus, 0, NULL, NULL);
  g_assert_cmpuint (all->len, ==, 500);
  for (guint i = 0; i < all->len; i++)
    {
      g_assert_cmpint (event_number (g_ptr_array_index (all, i)), ==, 100 + i);
      g_assert_true (pd_event_is_sealed (g_ptr_array_index (all, i)));
    }

  /* The most recent 10 of run r1, oldest first: 581, 583, …, 599. */
  r1 = pd_event_bus_get_recent (bus, 10, "r1", NULL);
  g_assert_cmpuint (r1->len, ==, 10);
  for (guint i = 0; i < r1->len; i++)
    g_assert_cmpint (event_number (g_ptr_array_index (r1, i)), ==, 581 + 2 * i);

  s2 = pd_event_bus_get_recent (bus, 3, "", "s2");
  g_assert_cmpuint (s2->len, ==, 3);
  g_assert_cmpint (event_number (g_ptr_array_index (s2, 0)), ==, 593);
  g_assert_cmpint (event_number (g_ptr_array_index (s2, 2)), ==, 599);

  /* i % 2 == 0 and i % 3 == 1: i ≡ 4 (mod 6); in 100..599 that is 100, 106,
   * …, 598: 84 events. */
  both = pd_event_bus_get_recent (bus, 500, "r0", "s1");
  g_assert_cmpuint (both->len, ==, 84);
  g_assert_cmpint (event_number (g_ptr_array_index (both, 0)), ==, 100);
  g_assert_cmpint (event_number (g_ptr_array_index (both, 83)), ==, 598);

  none = pd_event_bus_get_recent (bus, 10, "r9", NULL);
  g_assert_cmpuint (none->len, ==, 0);

  three = pd_event_bus_get_recent (bus, 3, NULL, NULL);
  g_assert_cmpuint (three->len, ==, 3);
  g_assert_cmpint (event_number (g_ptr_array_index (three, 0)), ==, 597);
}

/* JSONL ----------------------------------------------------------------------- */

static char *
make_tmp_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("pd-events-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static void
remove_tmp (const char *dir,
            const char *const *names)
{
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autofree char *path = g_build_filename (dir, names[i], NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
}

static void
test_jsonl (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "events.jsonl", NULL);
  g_autoptr(PdEventBus) bus = pd_event_bus_new ();
  g_autoptr(GPtrArray) sent = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  const char *names[] = { "events.jsonl", NULL };
  struct stat st;

  g_assert_true (pd_event_bus_open_jsonl (bus, path, &error));
  g_assert_no_error (error);
  pd_event_bus_set_jsonl_fsync (bus, TRUE);

  for (guint i = 0; i < 20; i++)
    {
      g_autoptr(PdEvent) event = numbered_event (PD_EVENT_TOOL_CALL_STARTED, i);

      pd_event_set_tool (event, "shell\nwith a newline");
      pd_event_set_iteration (event, i + 1);
      pd_event_bus_emit (bus, event);
      g_ptr_array_add (sent, pd_event_to_json (event));
    }
  pd_event_bus_flush (bus);

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0600);

  g_assert_true (g_file_get_contents (path, &contents, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_str_has_suffix (contents, "}\n"));
  lines = g_strsplit (contents, "\n", -1);
  /* 20 lines and the empty tail after the last newline. */
  g_assert_cmpuint (g_strv_length (lines), ==, 21);
  g_assert_cmpstr (lines[20], ==, "");

  for (guint i = 0; i < 20; i++)
    {
      g_autoptr(GError) parse_error = NULL;
      g_autoptr(PdEvent) back = pd_event_new_from_json (lines[i], &parse_error);

      g_assert_no_error (parse_error);
      g_assert_cmpstr (lines[i], ==, g_ptr_array_index (sent, i));
      g_assert_cmpint (event_number (back), ==, i);
      g_assert_cmpstr (pd_event_get_tool (back), ==, "shell\nwith a newline");
    }

  g_assert_cmpuint (pd_event_bus_get_usage (bus).jsonl_write_errors, ==, 0);

  g_clear_object (&bus);
  remove_tmp (dir, names);
}

static void
test_jsonl_symlink (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *target = g_build_filename (dir, "target", NULL);
  g_autofree char *link = g_build_filename (dir, "events.jsonl", NULL);
  g_autofree char *dangling = g_build_filename (dir, "dangling.jsonl", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing", NULL);
  g_autoptr(PdEventBus) bus = pd_event_bus_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) error2 = NULL;
  const char *names[] = { "target", "events.jsonl", "dangling.jsonl", "missing", NULL };
  struct stat st;

  g_assert_true (g_file_set_contents (target, "", 0, NULL));
  g_assert_cmpint (symlink (target, link), ==, 0);
  g_assert_cmpint (symlink (missing, dangling), ==, 0);

  g_assert_false (pd_event_bus_open_jsonl (bus, link, &error));
  g_assert_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_SYMLINK);
  g_assert_nonnull (strstr (error->message, "symbolic link"));

  /* A dangling link must not create its target either. */
  g_assert_false (pd_event_bus_open_jsonl (bus, dangling, &error2));
  g_assert_error (error2, PD_EVENT_ERROR, PD_EVENT_ERROR_SYMLINK);
  g_assert_cmpint (g_lstat (missing, &st), ==, -1);

  /* Nothing was opened, so emitting writes nowhere. */
  {
    g_autoptr(PdEvent) event = pd_event_new (PD_EVENT_RUN_STARTED);

    pd_event_bus_emit (bus, event);
    pd_event_bus_flush (bus);
  }
  g_assert_cmpint (g_stat (target, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, 0);

  g_clear_object (&bus);
  remove_tmp (dir, names);
}

static void
test_jsonl_tighten (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "events.jsonl", NULL);
  g_autoptr(PdEventBus) bus = pd_event_bus_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(PdEvent) event = pd_event_new (PD_EVENT_RUN_STARTED);
  g_autofree char *contents = NULL;
  const char *old_line = "{\"schema\":\"odek.event/v1\",\"type\":\"run_started\",\"timestamp\":\"2026-08-07T12:00:00Z\"}\n";
  const char *names[] = { "events.jsonl", NULL };
  struct stat st;
  int fd;

  fd = g_open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, old_line, strlen (old_line)), ==, (gssize) strlen (old_line));
  g_assert_cmpint (fchmod (fd, 0644), ==, 0);
  close (fd);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0644);

  g_assert_true (pd_event_bus_open_jsonl (bus, path, &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 07777, ==, 0600);

  /* Appends; the earlier line stays first. */
  pd_event_bus_emit (bus, event);
  pd_event_bus_flush (bus);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_true (g_str_has_prefix (contents, old_line));
  g_assert_true (g_str_has_prefix (contents + strlen (old_line), "{\"schema\":\"plandeck.event/v1\",\"type\":\"run_started\""));

  g_clear_object (&bus);
  remove_tmp (dir, names);
}

static void
test_jsonl_not_regular (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *fifo = g_build_filename (dir, "fifo", NULL);
  g_autoptr(PdEventBus) bus = pd_event_bus_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) error2 = NULL;
  const char *names[] = { "fifo", NULL };

  /* A FIFO without a reader would block a plain open() for ever; if this
   * test hangs, the O_NONBLOCK guard is gone. */
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  g_assert_false (pd_event_bus_open_jsonl (bus, fifo, &error));
  g_assert_error (error, PD_EVENT_ERROR, PD_EVENT_ERROR_NOT_REGULAR);

  g_assert_false (pd_event_bus_open_jsonl (bus, dir, &error2));
  g_assert_error (error2, PD_EVENT_ERROR, PD_EVENT_ERROR_NOT_REGULAR);

  g_clear_object (&bus);
  remove_tmp (dir, names);
}

/* On dispose the dispatcher drains the queue: a clean shutdown loses nothing
 * that was accepted. */
static void
test_dispose_drains (void)
{
  g_autofree char *dir = make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "events.jsonl", NULL);
  PdEventBus *bus = pd_event_bus_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  const char *names[] = { "events.jsonl", NULL };

  g_assert_true (pd_event_bus_open_jsonl (bus, path, &error));
  for (guint i = 0; i < 300; i++)
    {
      g_autoptr(PdEvent) event = numbered_event (PD_EVENT_TOOL_CALL_STARTED, i);

      pd_event_bus_emit (bus, event);
    }
  g_object_unref (bus);

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  lines = g_strsplit (contents, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 301);

  remove_tmp (dir, names);
}

/* Usage ----------------------------------------------------------------------- */

static void
emit_with_tokens (PdEventBus *bus,
                  const char *type,
                  gint64      in,
                  gint64      out)
{
  g_autoptr(PdEvent) event = pd_event_new (type);

  json_object_set_int_member (pd_event_get_data (event), "input_tokens", in);
  json_object_set_int_member (pd_event_get_data (event), "output_tokens", out);
  pd_event_bus_emit (bus, event);
}

static void
emit_type (PdEventBus *bus,
           const char *type)
{
  g_autoptr(PdEvent) event = pd_event_new (type);

  pd_event_bus_emit (bus, event);
}

static void
test_usage (void)
{
  g_autoptr(PdEventBus) bus = pd_event_bus_new ();
  g_autofree char *json = NULL;
  PdUsage usage;

  emit_type (bus, PD_EVENT_RUN_STARTED);
  emit_with_tokens (bus, PD_EVENT_ITERATION_COMPLETED, 60, 10);   /* already in run_completed */
  emit_with_tokens (bus, PD_EVENT_ITERATION_COMPLETED, 40, 10);
  emit_with_tokens (bus, PD_EVENT_RUN_COMPLETED, 100, 20);
  emit_type (bus, PD_EVENT_RUN_STARTED);
  emit_type (bus, PD_EVENT_RUN_FAILED);
  emit_type (bus, PD_EVENT_RUN_STARTED);
  emit_with_tokens (bus, PD_EVENT_SIDE_CALL_USAGE, 5, 1);
  emit_with_tokens (bus, PD_EVENT_RUN_COMPLETED, -7, 3);         /* nonsense counts nothing */
  emit_type (bus, PD_EVENT_PLAN_CREATED);
  emit_type (bus, PD_EVENT_PLAN_UPDATED);
  emit_type (bus, PD_EVENT_PLAN_UPDATED);
  emit_type (bus, PD_EVENT_PLAN_BLOCKED);
  pd_event_bus_flush (bus);

  usage = pd_event_bus_get_usage (bus);
  g_assert_cmpuint (usage.prompts_started, ==, 3);
  g_assert_cmpuint (usage.prompts_completed, ==, 2);
  g_assert_cmpuint (usage.prompts_failed, ==, 1);
  g_assert_cmpuint (usage.input_tokens, ==, 105);
  g_assert_cmpuint (usage.output_tokens, ==, 24);
  g_assert_cmpuint (usage.plans_created, ==, 1);
  g_assert_cmpuint (usage.plans_updated, ==, 2);
  g_assert_cmpuint (usage.plans_blocked, ==, 1);
  g_assert_cmpuint (usage.events_emitted, ==, 13);
  g_assert_cmpuint (usage.events_dropped, ==, 0);

  json = pd_usage_to_json (&usage);
  g_assert_cmpstr (json, ==,
                   "{\"prompts_started\":3,\"prompts_completed\":2,\"prompts_failed\":1,"
                   "\"tokens_in\":105,\"tokens_out\":24,"
                   "\"plans_created\":1,\"plans_updated\":2,\"plans_blocked\":1,"
                   "\"events_emitted\":13,\"events_dropped\":0,"
                   "\"events_listener_dropped\":0,\"events_write_errors\":0}");
}

/* Listener removal ------------------------------------------------------------ */

typedef struct
{
  PdEventBus *bus;
  guint       id;
  guint       calls;
  guint       destroyed;
  gboolean    in_call;
  gboolean    destroyed_during_call;
  gboolean    remove_on_first;
} Counter;

static void
count_event (PdEvent  *event,
             gpointer  user_data)
{
  Counter *c = user_data;

  c->in_call = TRUE;
  c->calls++;
  if (c->remove_on_first && c->calls == 1)
    pd_event_bus_remove_listener (c->bus, c->id);
  /* Still inside the call: the destroy notify must not have run yet. */
  if (c->destroyed > 0)
    c->destroyed_during_call = TRUE;
  c->in_call = FALSE;
}

static void
count_destroy (gpointer user_data)
{
  Counter *c = user_data;

  if (c->in_call)
    c->destroyed_during_call = TRUE;
  c->destroyed++;
}

static void
emit_n (PdEventBus *bus,
        guint       n)
{
  for (guint i = 0; i < n; i++)
    emit_type (bus, PD_EVENT_TOOL_CALL_STARTED);
}

static void
test_remove_listener (void)
{
  /* The counters outlive the bus: its dispose calls the destroy notify of
   * a listener still added (declared after it, they were gone by then). */
  Counter a = { 0 }, b = { 0 };
  g_autoptr(PdEventBus) bus = pd_event_bus_new ();

  a.bus = b.bus = bus;

  a.id = pd_event_bus_add_listener (bus, count_event, &a, count_destroy);
  b.id = pd_event_bus_add_listener (bus, count_event, &b, count_destroy);
  g_assert_cmpuint (a.id, !=, 0);
  g_assert_cmpuint (a.id, !=, b.id);

  emit_n (bus, 3);
  pd_event_bus_flush (bus);
  g_assert_true (iterate_until (&a.calls, 3));
  g_assert_true (iterate_until (&b.calls, 3));

  /* Removal with deliveries already queued on the context: none of them may
   * reach the removed listener. */
  emit_n (bus, 5);
  pd_event_bus_flush (bus);
  pd_event_bus_remove_listener (bus, a.id);
  g_assert_cmpuint (a.destroyed, ==, 1);

  emit_n (bus, 2);
  pd_event_bus_flush (bus);
  g_assert_true (iterate_until (&b.calls, 10));
  iterate_pending ();

  g_assert_cmpuint (a.calls, ==, 3);
  g_assert_cmpuint (a.destroyed, ==, 1);
  g_assert_cmpuint (b.calls, ==, 10);
  g_assert_cmpuint (b.destroyed, ==, 0);

  /* The bus releases what is still registered when it goes. */
  g_clear_object (&bus);
  g_assert_cmpuint (b.destroyed, ==, 1);
}

static void
test_remove_from_listener (void)
{
  Counter self_removing = { .remove_on_first = TRUE };
  Counter witness = { 0 };
  g_autoptr(PdEventBus) bus = pd_event_bus_new ();

  self_removing.bus = witness.bus = bus;

  self_removing.id = pd_event_bus_add_listener (bus, count_event, &self_removing, count_destroy);
  witness.id = pd_event_bus_add_listener (bus, count_event, &witness, count_destroy);

  emit_n (bus, 4);
  pd_event_bus_flush (bus);
  g_assert_true (iterate_until (&witness.calls, 4));
  iterate_pending ();

  /* One call, then nothing: the rest of its batch is skipped; and its data
   * is released after that call returned, not while it ran. */
  g_assert_cmpuint (self_removing.calls, ==, 1);
  g_assert_cmpuint (self_removing.destroyed, ==, 1);
  g_assert_false (self_removing.destroyed_during_call);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/events/bus/threads", test_threads);
  g_test_add_func ("/pd/events/bus/thread-context", test_thread_context);
  g_test_add_func ("/pd/events/bus/full-queue", test_full_queue);
  g_test_add_func ("/pd/events/bus/ring", test_ring);
  g_test_add_func ("/pd/events/bus/usage", test_usage);
  g_test_add_func ("/pd/events/bus/remove-listener", test_remove_listener);
  g_test_add_func ("/pd/events/bus/remove-from-listener", test_remove_from_listener);
  g_test_add_func ("/pd/events/bus/dispose-drains", test_dispose_drains);
  g_test_add_func ("/pd/events/jsonl/write", test_jsonl);
  g_test_add_func ("/pd/events/jsonl/symlink", test_jsonl_symlink);
  g_test_add_func ("/pd/events/jsonl/tighten", test_jsonl_tighten);
  g_test_add_func ("/pd/events/jsonl/not-regular", test_jsonl_not_regular);

  return g_test_run ();
}
