/* bench-stream.c: many watchers on GET /api/events/stream while a run
 * produces events, beside a bare SoupServer broadcasting the same frames.
 *
 *   bench-stream [EVENTS [COUNTS...]]   (default 60 events; 1 100 1000 watchers)
 *
 * An in-process PdServer on loopback, with its stream limits raised for the
 * run (pd_server_set_stream_limits(), `--max-streams` on the command line).
 * Events are emitted on the server's bus, as a run's engine emits them, 20
 * a second, each a plan update of about 700 bytes of JSON.  Every watcher is
 * a raw connection read by one epoll thread, which checks that it receives
 * every event once and in order, and records each event's delivery latency
 * (from the emit to the read of its frame).
 *
 * Printed per watcher count, the medians of 3 rounds of each server taken
 * in turn (the load of a shared machine swings from second to second):
 * latency p50, p99 and max, beside the same for
 * a bare SoupServer (libsoup with nothing of ours: one handler that keeps
 * each stream and appends every frame to all of them) fed the same frames
 * at the same pace in the same run; every delivery counted for both; and
 * the server's memory per watcher: what the heap held with the watchers
 * connected after the events, less what it holds once they are gone (every
 * thread allocates from the main arena for the run, so mallinfo2 counts the
 * server thread), and the same for the process's resident set (RSS) after
 * malloc_trim(); the kernel's socket buffers are in neither.  Ratios
 * (ours / bare) for p50, p99 and RSS.  And how long the watchers took to
 * connect, one after the other, until every stream had opened (the
 * server's work per new watcher, and libsoup's listen backlog of 10: a
 * connect whose SYN finds it full waits a second for its retransmission).
 *
 * Then 100 watchers again with one more that never reads, on both servers:
 * ours must drop it once it is PD_SERVER_STREAM_MAX_BACKLOG behind its
 * socket buffers (the bare server keeps it, libsoup queueing its frames),
 * and the others' p99 is printed beside their p99 without it.
 *
 * Goals: p99 under 50 ms at 1,000 watchers, under 64 KiB per watcher.  It
 * prints figures and asserts nothing about time; a watcher that misses an
 * event is an error.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bench-stream"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <glib/gstdio.h>

#include <libsoup/soup.h>

#include "pd-event.h"
#include "pd-server.h"

#define TOKEN         "bench0123456789abcdef0123456789abcdef0123456789abcdef0123456789"
#define PERIOD_US     (50 * 1000)        /* 20 events a second */
#define MARK          "\"bench_n\":"
#define MAX_COUNTS    4u
#define REPEATS       3u
#define SLOW_MAX_EVENTS 4000u            /* give up on the slow watcher's drop after these */

/* One watcher's connection, read by the reader thread. */
typedef struct
{
  int      fd;
  gboolean open;           /* its stream's first comment arrived */
  gint     next;           /* atomic: the event it expects next */
  gboolean wrong;          /* an event missing, doubled or out of order */
  char     carry[32];      /* the end of the last read, for a mark split between two */
  gsize    carry_len;
} Watcher;

typedef struct
{
  Watcher      *watchers;
  guint         n;
  int           epoll_fd;
  gint64       *emitted_at;     /* [event] monotonic µs, 0 until emitted */
  guint         capacity;       /* of emitted_at */
  guint32      *latencies;      /* µs */
  guint         n_latencies;
  guint         max_latencies;
  gint          n_open;         /* atomic */
  gint          stop;           /* atomic */
} Round;

static int
compare_u32 (const void *a,
             const void *b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;

  return x < y ? -1 : x > y;
}

static gsize
heap_in_use (void)
{
  struct mallinfo2 info;

  malloc_trim (0);
  info = mallinfo2 ();
  return info.uordblks + info.hblkhd;
}

/* The process's resident memory, after giving the heap's free pages back. */
static gsize
resident_now (void)
{
  g_autofree char *text = NULL;
  gsize pages = 0;

  malloc_trim (0);
  if (g_file_get_contents ("/proc/self/statm", &text, NULL, NULL))
    {
      char **fields = g_strsplit (text, " ", 3);

      if (fields[0] != NULL && fields[1] != NULL)
        pages = g_ascii_strtoull (fields[1], NULL, 10);
      g_strfreev (fields);
    }
  return pages * (gsize) sysconf (_SC_PAGESIZE);
}

static guint
count_sockets (void)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  const char *name;
  guint n = 0;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      char path[64], target[64];
      ssize_t len;

      g_snprintf (path, sizeof path, "/proc/self/fd/%s", name);
      len = readlink (path, target, sizeof target - 1);
      n += len > 7 && strncmp (target, "socket:", 7) == 0;
    }
  return n;
}

static int
connect_watcher (guint       port,
                 const char *path,
                 gboolean    never_reads)
{
  struct sockaddr_in addr = { 0 };
  g_autofree char *request = g_strdup_printf ("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                              "X-Odek-Ws-Token: %s\r\n\r\n", path, port, TOKEN);
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;

  if (fd < 0)
    g_error ("socket: %s", g_strerror (errno));
  if (never_reads)
    {
      int small = 4096;

      setsockopt (fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    }
  setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  addr.sin_family = AF_INET;
  addr.sin_port = htons (port);
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  if (connect (fd, (struct sockaddr *) &addr, sizeof addr) != 0)
    g_error ("connect: %s", g_strerror (errno));
  if (write (fd, request, strlen (request)) != (ssize_t) strlen (request))
    g_error ("write: %s", g_strerror (errno));
  fcntl (fd, F_SETFL, O_NONBLOCK);
  return fd;
}

/* The marks in @data, after the carry of the last read: each one is the
 * number of an event this watcher received. */
static void
scan (Round      *round,
      Watcher    *w,
      const char *data,
      gsize       len,
      gint64      now)
{
  char joined[sizeof w->carry + 65536];
  gsize total = w->carry_len + len;
  const char *end, *p, *consumed, *from;

  memcpy (joined, w->carry, w->carry_len);
  memcpy (joined + w->carry_len, data, len);
  end = joined + total;

  if (!w->open && g_strstr_len (joined, total, ": plandeck event stream") != NULL)
    {
      w->open = TRUE;
      g_atomic_int_inc (&round->n_open);
    }
  if (w->carry_len == 0 && total > 12 && strncmp (joined, "HTTP/1.1 ", 9) == 0 &&
      strncmp (joined + 9, "200", 3) != 0)
    g_error ("a watcher's stream was refused: %.*s", (int) MIN (total, 200), joined);

  consumed = joined;
  from = NULL;
  while ((p = g_strstr_len (consumed, end - consumed, MARK)) != NULL)
    {
      const char *q = p + strlen (MARK);
      guint n = 0;

      while (q < end && g_ascii_isdigit (*q))
        n = n * 10 + (*q++ - '0');
      if (q == end)
        {
          from = p;   /* the number goes on in the next read */
          break;
        }
      if (n != (guint) g_atomic_int_get (&w->next))
        w->wrong = TRUE;
      g_atomic_int_set (&w->next, n + 1);
      if (n < round->capacity && round->emitted_at[n] != 0 && round->n_latencies < round->max_latencies)
        round->latencies[round->n_latencies++] = (guint32) (now - round->emitted_at[n]);
      consumed = q;
    }

  /* Keep the end, where a mark may begin, but no mark already counted. */
  if (from == NULL)
    from = MAX (consumed, end - (sizeof w->carry - 1));
  w->carry_len = end - from;
  memmove (w->carry, from, w->carry_len);
}

static gpointer
reader_main (gpointer data)
{
  Round *round = data;
  static char buffer[65536];
  struct epoll_event events[256];

  while (!g_atomic_int_get (&round->stop))
    {
      int n = epoll_wait (round->epoll_fd, events, G_N_ELEMENTS (events), 20);
      gint64 now = g_get_monotonic_time ();

      for (int i = 0; i < n; i++)
        {
          Watcher *w = events[i].data.ptr;
          ssize_t len;

          while ((len = read (w->fd, buffer, sizeof buffer)) > 0)
            scan (round, w, buffer, len, now = g_get_monotonic_time ());
          if (len == 0)
            {
              epoll_ctl (round->epoll_fd, EPOLL_CTL_DEL, w->fd, NULL);
              w->wrong = TRUE;   /* a watcher that reads was closed */
            }
        }
    }
  return NULL;
}

/* ---------------------------------------------------------------------- */
/* The baseline: libsoup alone                                            */

typedef struct
{
  GThread      *thread;
  GMainContext *context;
  GMainLoop    *loop;
  SoupServer   *soup;
  GPtrArray    *streams;   /* SoupServerMessage */
  guint         port;
  GMutex        lock;
  GCond         cond;
  gboolean      ready;
} Bare;

static void
bare_gone (SoupServerMessage *msg,
           Bare              *bare)
{
  g_ptr_array_remove (bare->streams, msg);
}

static void
bare_handler (SoupServer        *server,
              SoupServerMessage *msg,
              const char        *path,
              GHashTable        *query,
              gpointer           user_data)
{
  Bare *bare = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  SoupMessageBody *body = soup_server_message_get_response_body (msg);

  soup_server_message_set_status (msg, 200, NULL);
  soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_body_set_accumulate (body, FALSE);
  soup_message_body_append (body, SOUP_MEMORY_STATIC, ": plandeck event stream\n\n", 25);
  g_ptr_array_add (bare->streams, msg);
  g_signal_connect (msg, "finished", G_CALLBACK (bare_gone), bare);
  g_signal_connect (msg, "disconnected", G_CALLBACK (bare_gone), bare);
}

static gpointer
bare_main (gpointer data)
{
  Bare *bare = data;
  g_autoptr(GError) error = NULL;
  GSList *uris;

  g_main_context_push_thread_default (bare->context);
  bare->soup = soup_server_new (NULL, NULL);
  soup_server_add_handler (bare->soup, "/stream", bare_handler, bare, NULL);
  if (!soup_server_listen_local (bare->soup, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error))
    g_error ("%s", error->message);
  uris = soup_server_get_uris (bare->soup);
  bare->port = g_uri_get_port (uris->data);
  g_slist_free_full (uris, (GDestroyNotify) g_uri_unref);

  g_mutex_lock (&bare->lock);
  bare->ready = TRUE;
  g_cond_signal (&bare->cond);
  g_mutex_unlock (&bare->lock);

  g_main_loop_run (bare->loop);
  soup_server_disconnect (bare->soup);
  g_clear_object (&bare->soup);
  g_main_context_pop_thread_default (bare->context);
  return NULL;
}

static void
bare_start (Bare *bare)
{
  bare->context = g_main_context_new ();
  bare->loop = g_main_loop_new (bare->context, FALSE);
  bare->streams = g_ptr_array_new ();
  g_mutex_init (&bare->lock);
  g_cond_init (&bare->cond);
  bare->thread = g_thread_new ("bare-soup", bare_main, bare);
  g_mutex_lock (&bare->lock);
  while (!bare->ready)
    g_cond_wait (&bare->cond, &bare->lock);
  g_mutex_unlock (&bare->lock);
}

typedef struct
{
  Bare  *bare;
  GBytes *frame;
} BareFrame;

static gboolean
bare_broadcast (gpointer data)
{
  BareFrame *bf = data;

  for (guint i = 0; i < bf->bare->streams->len; i++)
    {
      SoupServerMessage *msg = g_ptr_array_index (bf->bare->streams, i);

      soup_message_body_append_bytes (soup_server_message_get_response_body (msg), bf->frame);
      soup_server_message_unpause (msg);
    }
  g_bytes_unref (bf->frame);
  g_free (bf);
  return G_SOURCE_REMOVE;
}

static gboolean
bare_quit (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

static void
bare_stop (Bare *bare)
{
  g_main_context_invoke (bare->context, bare_quit, bare->loop);
  g_thread_join (bare->thread);
  g_main_loop_unref (bare->loop);
  g_main_context_unref (bare->context);
  g_ptr_array_unref (bare->streams);
}

/* ---------------------------------------------------------------------- */

static PdEvent *
make_event (guint n)
{
  g_autoptr(JsonObject) data = json_object_new ();
  JsonArray *steps = json_array_new ();

  json_object_set_int_member (data, "bench_n", n);
  json_object_set_int_member (data, "version", n + 1);
  for (guint i = 0; i < 5; i++)
    {
      JsonObject *step = json_object_new ();
      g_autofree char *id = g_strdup_printf ("s%u", i + 1);
      g_autofree char *title = g_strdup_printf ("Step %u of the benchmark's plan, with a title of a usual length", i + 1);

      json_object_set_string_member (step, "id", id);
      json_object_set_string_member (step, "title", title);
      json_object_set_string_member (step, "status", i < n % 6 ? "done" : "pending");
      json_array_add_object_element (steps, step);
    }
  json_object_set_array_member (data, "steps", steps);
  return pd_event_new_full (PD_EVENT_PLAN_UPDATED, "run-bench", "bench-session", n + 1, NULL,
                            g_steal_pointer (&data));
}

typedef struct
{
  double  p50_ms, p99_ms, max_ms;
  double  opened_ms;      /* from the first connect until every stream opened */
  double  heap_per_watcher;
  double  rss_per_watcher;
  guint   wrong;
  guint   delivered;
  guint   events;
  gboolean slow_dropped;
  guint   slow_events;    /* emitted before the slow watcher was dropped */
} Result;

/* One round: @n watchers (and @slow one that never reads) on @port, fed
 * @n_events events, by the bus of @server or by @bare. */
static Result
run_round (PdServer *server,
           Bare     *bare,
           guint     port,
           guint     n,
           gboolean  slow,
           guint     n_events)
{
  Result result = { 0 };
  Round round = { 0 };
  const char *path = server != NULL ? "/api/events/stream" : "/stream";
  GThread *reader;
  gsize heap_with, heap_without;
  gsize rss_with, rss_without;
  guint sockets_with_slow = 0;
  int slow_fd = -1;
  guint emitted = 0;
  gint64 connecting;

  round.n = n;
  round.watchers = g_new0 (Watcher, n);
  /* The bare server never drops the one that never reads (libsoup queues
   * its frames): it gets the events and no more. */
  round.capacity = n_events + (slow && server != NULL ? SLOW_MAX_EVENTS : 0);
  round.emitted_at = g_new0 (gint64, round.capacity);
  round.max_latencies = n * round.capacity;
  round.latencies = g_new (guint32, round.max_latencies);
  round.epoll_fd = epoll_create1 (EPOLL_CLOEXEC);

  reader = g_thread_new ("watchers", reader_main, &round);
  connecting = g_get_monotonic_time ();
  for (guint i = 0; i < n; i++)
    {
      struct epoll_event ev = { 0 };

      round.watchers[i].fd = connect_watcher (port, path, FALSE);
      ev.events = EPOLLIN;
      ev.data.ptr = &round.watchers[i];
      epoll_ctl (round.epoll_fd, EPOLL_CTL_ADD, round.watchers[i].fd, &ev);
    }
  {
    gint64 deadline = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;

    while ((guint) g_atomic_int_get (&round.n_open) < n)
      {
        if (g_get_monotonic_time () > deadline)
          g_error ("%u of %u watchers' streams opened in 2 min", (guint) g_atomic_int_get (&round.n_open), n);
        g_usleep (1000);
      }
    result.opened_ms = (g_get_monotonic_time () - connecting) / 1000.0;
  }
  if (slow)
    {
      slow_fd = connect_watcher (port, path, TRUE);
      g_usleep (200 * 1000);   /* its stream opens; nothing reads its first comment */
      sockets_with_slow = count_sockets ();
    }

  for (emitted = 0; emitted < round.capacity; emitted++)
    {
      if (emitted >= n_events)
        {
          /* Only with the slow watcher: on until it is dropped. */
          if (emitted % 10 == 0 && count_sockets () < sockets_with_slow)
            {
              result.slow_dropped = TRUE;
              result.slow_events = emitted;
              break;
            }
        }
      round.emitted_at[emitted] = g_get_monotonic_time ();
      if (server != NULL)
        {
          g_autoptr(PdEvent) event = make_event (emitted);

          pd_event_bus_emit (pd_server_get_bus (server), event);
        }
      else
        {
          g_autoptr(PdEvent) event = make_event (emitted);
          g_autofree char *json = pd_event_to_json (event);
          BareFrame *bf = g_new0 (BareFrame, 1);
          char *frame = g_strdup_printf ("event: %s\ndata: %s\n\n", PD_EVENT_PLAN_UPDATED, json);

          bf->bare = bare;
          bf->frame = g_bytes_new_take (frame, strlen (frame));
          g_main_context_invoke (bare->context, bare_broadcast, bf);
        }
      g_usleep (PERIOD_US);
    }

  /* Every watcher has every event, or a minute went by. */
  {
    gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
    guint behind = n;

    while (behind > 0 && g_get_monotonic_time () < deadline)
      {
        behind = 0;
        for (guint i = 0; i < n; i++)
          behind += (guint) g_atomic_int_get (&round.watchers[i].next) != emitted;
        if (behind > 0)
          g_usleep (10 * 1000);
      }
  }
  heap_with = heap_in_use ();
  rss_with = resident_now ();

  g_atomic_int_set (&round.stop, TRUE);
  g_thread_join (reader);

  for (guint i = 0; i < n; i++)
    {
      result.wrong += round.watchers[i].wrong || (guint) round.watchers[i].next != emitted;
      close (round.watchers[i].fd);
    }
  if (slow_fd >= 0)
    close (slow_fd);
  close (round.epoll_fd);

  /* What the watchers held is what goes with them.  libsoup 3.2 notices a
   * stream's client gone only when it writes to it (pd-server-conns.c
   * watches ours): the bare server is given one more frame to write. */
  if (bare != NULL)
    {
      BareFrame *bf = g_new0 (BareFrame, 1);

      bf->bare = bare;
      bf->frame = g_bytes_new_static (": bye\n\n", 7);
      g_main_context_invoke (bare->context, bare_broadcast, bf);
    }
  g_usleep (500 * 1000);
  heap_without = heap_in_use ();
  rss_without = resident_now ();

  qsort (round.latencies, round.n_latencies, sizeof (guint32), compare_u32);
  if (round.n_latencies > 0)
    {
      result.p50_ms = round.latencies[round.n_latencies / 2] / 1000.0;
      result.p99_ms = round.latencies[MIN (round.n_latencies - 1, (guint) (round.n_latencies * 0.99))] / 1000.0;
      result.max_ms = round.latencies[round.n_latencies - 1] / 1000.0;
    }
  result.delivered = round.n_latencies;
  result.events = emitted;
  result.heap_per_watcher = heap_with > heap_without ? (double) (heap_with - heap_without) / n : 0;
  result.rss_per_watcher = rss_with > rss_without ? (double) (rss_with - rss_without) / n : 0;

  g_free (round.watchers);
  g_free (round.emitted_at);
  g_free (round.latencies);

  return result;
}

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

#define MEDIAN_OF(field) G_STMT_START { \
    double v[REPEATS]; \
    for (guint k = 0; k < REPEATS; k++) v[k] = results[k].field; \
    qsort (v, REPEATS, sizeof (double), compare_doubles); \
    median.field = v[REPEATS / 2]; \
  } G_STMT_END

/* Each figure's median over the rounds; deliveries and misses summed. */
static Result
median_result (const Result *results)
{
  Result median = results[0];

  MEDIAN_OF (p50_ms);
  MEDIAN_OF (p99_ms);
  MEDIAN_OF (max_ms);
  MEDIAN_OF (opened_ms);
  MEDIAN_OF (heap_per_watcher);
  MEDIAN_OF (rss_per_watcher);
  median.wrong = median.delivered = median.events = 0;
  for (guint k = 0; k < REPEATS; k++)
    {
      median.wrong += results[k].wrong;
      median.delivered += results[k].delivered;
      median.events += results[k].events;
    }
  return median;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdServer) server = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *db_path = NULL;
  guint counts[MAX_COUNTS] = { 1, 100, 1000 };
  guint n_counts = 3;
  guint n_events = 60;
  guint largest = 0;
  struct rlimit files;
  Bare bare = { 0 };
  Result ours_by_count[MAX_COUNTS], base_by_count[MAX_COUNTS];

  /* Every thread in the main arena, so mallinfo2() sees the server's heap. */
  mallopt (M_ARENA_MAX, 1);

  if (argc > 1)
    n_events = MAX (10, (guint) g_ascii_strtoull (argv[1], NULL, 10));
  if (argc > 2)
    {
      n_counts = MIN ((guint) argc - 2, MAX_COUNTS);
      for (guint i = 0; i < n_counts; i++)
        counts[i] = MAX (1, (guint) g_ascii_strtoull (argv[2 + i], NULL, 10));
    }
  for (guint i = 0; i < n_counts; i++)
    largest = MAX (largest, counts[i]);

  /* Two descriptors a watcher (both ends are in this process), for two servers. */
  getrlimit (RLIMIT_NOFILE, &files);
  if (files.rlim_cur < 4 * largest + 100)
    {
      files.rlim_cur = MIN (files.rlim_max, 4 * largest + 100);
      setrlimit (RLIMIT_NOFILE, &files);
    }
  if (files.rlim_cur < 2 * largest + 100)
    {
      printf ("SKIP: %u watchers need %u descriptors, the limit is %lu\n",
              largest, 2 * largest + 100, (unsigned long) files.rlim_cur);
      return 77;
    }

  dir = g_dir_make_tmp ("bench-stream-XXXXXX", &error);
  g_assert_no_error (error);
  db_path = g_build_filename (dir, "sessions.db", NULL);

  server = pd_server_new (db_path);
  pd_server_set_listen (server, "127.0.0.1", 0);
  pd_server_set_token (server, TOKEN);
  pd_server_set_rate_limit (server, 0);
  pd_server_set_stream_limits (server, largest + 1, largest + 1);
  if (!pd_server_start (server, &error))
    g_error ("%s", error->message);
  bare_start (&bare);

  printf ("Event streams: %u plan updates of about 700 bytes, 20 a second, to every watcher on loopback;\n"
          "ours beside a bare SoupServer broadcasting the same frames in the same run\n", n_events);
  fflush (stdout);

  for (guint i = 0; i < n_counts; i++)
    {
      Result ours_r[REPEATS], base_r[REPEATS], ours, base;

      /* Alternating, and the medians: the machine's load swings. */
      for (guint k = 0; k < REPEATS; k++)
        {
          ours_r[k] = run_round (server, NULL, pd_server_get_port (server), counts[i], FALSE, n_events);
          base_r[k] = run_round (NULL, &bare, bare.port, counts[i], FALSE, n_events);
        }
      ours = median_result (ours_r);
      base = median_result (base_r);
      ours_by_count[i] = ours;
      base_by_count[i] = base;

      printf ("%5u watchers: plandeck p50 %6.2f ms  p99 %7.2f ms  max %7.2f ms  heap %5.1f KiB  RSS %5.1f KiB a watcher  %u of %u deliveries, %u watchers missed events\n"
              "                libsoup  p50 %6.2f ms  p99 %7.2f ms  max %7.2f ms  heap %5.1f KiB  RSS %5.1f KiB a watcher  %u of %u deliveries, %u watchers missed events\n"
              "                plandeck/libsoup: p50 %.2f×  p99 %.2f×  RSS %.2f×   (goal: p99 < 50 ms at 1000, < 64 KiB a watcher)\n"
              "                all streams open after: plandeck %.0f ms, libsoup %.0f ms\n",
              counts[i], ours.p50_ms, ours.p99_ms, ours.max_ms, ours.heap_per_watcher / 1024, ours.rss_per_watcher / 1024,
              ours.delivered, counts[i] * ours.events, ours.wrong,
              base.p50_ms, base.p99_ms, base.max_ms, base.heap_per_watcher / 1024, base.rss_per_watcher / 1024,
              base.delivered, counts[i] * base.events, base.wrong,
              base.p50_ms > 0 ? ours.p50_ms / base.p50_ms : 0,
              base.p99_ms > 0 ? ours.p99_ms / base.p99_ms : 0,
              base.rss_per_watcher > 0 ? ours.rss_per_watcher / base.rss_per_watcher : 0,
              ours.opened_ms, base.opened_ms);
      fflush (stdout);
      if (ours.wrong > 0)
        g_error ("%u watchers missed an event", ours.wrong);
    }

  {
    /* 100 that read beside it: on a loaded machine 1,000 readers in one
     * thread fall far enough behind to be dropped themselves.  Beside the
     * same number without it (the rounds above, when they had that many),
     * for both servers. */
    guint readers = MIN (largest, 100);
    Result ours_alone = { 0 }, base_alone = { 0 };
    Result slow, base_slow;
    gboolean found = FALSE;

    for (guint i = 0; i < n_counts; i++)
      if (counts[i] == readers)
        {
          ours_alone = ours_by_count[i];
          base_alone = base_by_count[i];
          found = TRUE;
        }
    if (!found)
      {
        Result ours_r[REPEATS], base_r[REPEATS];

        for (guint k = 0; k < REPEATS; k++)
          {
            ours_r[k] = run_round (server, NULL, pd_server_get_port (server), readers, FALSE, n_events);
            base_r[k] = run_round (NULL, &bare, bare.port, readers, FALSE, n_events);
          }
        ours_alone = median_result (ours_r);
        base_alone = median_result (base_r);
      }
    slow = run_round (server, NULL, pd_server_get_port (server), readers, TRUE, n_events);
    base_slow = run_round (NULL, &bare, bare.port, readers, TRUE, n_events);

    printf ("%5u watchers and one that never reads:\n"
            "                plandeck p50 %6.2f ms  p99 %7.2f ms  max %7.2f ms (without it: p99 %7.2f ms, %.2f×), %u watchers missed events;\n"
            "                         the one that never reads %s",
            readers, slow.p50_ms, slow.p99_ms, slow.max_ms, ours_alone.p99_ms,
            ours_alone.p99_ms > 0 ? slow.p99_ms / ours_alone.p99_ms : 0, slow.wrong,
            slow.slow_dropped ? "was dropped" : "was NOT dropped");
    if (slow.slow_dropped)
      printf (" after %u events (about %u KiB)", slow.slow_events, slow.slow_events * 800 / 1024);
    printf ("\n"
            "                libsoup  p50 %6.2f ms  p99 %7.2f ms  max %7.2f ms (without it: p99 %7.2f ms, %.2f×), %u watchers missed events;\n"
            "                         the one that never reads is kept (libsoup queues its frames)\n"
            "                with it, plandeck/libsoup: p99 %.2f×\n",
            base_slow.p50_ms, base_slow.p99_ms, base_slow.max_ms, base_alone.p99_ms,
            base_alone.p99_ms > 0 ? base_slow.p99_ms / base_alone.p99_ms : 0, base_slow.wrong,
            base_slow.p99_ms > 0 ? slow.p99_ms / base_slow.p99_ms : 0);
    fflush (stdout);
    if (slow.wrong > 0 || !slow.slow_dropped)
      g_error ("the slow watcher cost the others, or stayed");
  }

  bare_stop (&bare);
  pd_server_stop (server);
  g_clear_object (&server);
  {
    g_autofree char *wal = g_strconcat (db_path, "-wal", NULL);
    g_autofree char *shm = g_strconcat (db_path, "-shm", NULL);

    g_unlink (wal);
    g_unlink (shm);
    g_unlink (db_path);
    g_rmdir (dir);
  }
  return 0;
}
