/* bench-serve.c: requests per second and latency percentiles of
 * GET /api/sessions/{id}/plan on an in-process PdServer, beside a bare
 * SoupServer in the same run.
 *
 * The load generator is in this file: one thread, epoll, N keep-alive
 * connections on loopback, each sending its next request when the answer
 * to the last one is complete (no pipelining, like wrk).  Each round runs
 * for a bounded time.  The rate limit is off for the run.
 *
 * The baseline is libsoup with nothing of ours: a SoupServer on a thread of
 * its own answering every request with the same body and headers, no
 * routing, no token, no cache.  It is the ceiling our server can reach on
 * the machine of the run, so the ratio says what our code costs, and the
 * absolute figures what the machine gives.  Rounds of the two alternate,
 * three of each per connection count, and the medians are printed: a
 * machine shared with other jobs swings by a third from second to second.
 *
 *   bench-serve [SECONDS]   (default 2 per round)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bench-serve"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <glib/gstdio.h>

#include <libsoup/soup.h>

#include "pd-plan.h"
#include "pd-server.h"

#define REPEATS 3u
#define TOKEN "bench0123456789abcdef0123456789abcdef0123456789abcdef0123456789"

typedef struct
{
  int    fd;
  gint64 sent_at;
  char   buffer[16384];
  gsize  len;
} Conn;

static int
compare_u32 (const void *a,
             const void *b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;

  return x < y ? -1 : x > y;
}

static gboolean
send_request (Conn       *conn,
              const char *request,
              gsize       len)
{
  conn->sent_at = g_get_monotonic_time ();
  return write (conn->fd, request, len) == (ssize_t) len;
}

/* The length of a complete response at the start of the buffer, or 0. */
static gsize
response_length (Conn   *conn,
                 guint  *status)
{
  const char *end = g_strstr_len (conn->buffer, conn->len, "\r\n\r\n");
  const char *cl;
  gsize head, body = 0;

  if (end == NULL)
    return 0;
  head = end + 4 - conn->buffer;
  cl = g_strstr_len (conn->buffer, head, "Content-Length: ");
  if (cl != NULL)
    body = strtoul (cl + 16, NULL, 10);
  if (conn->len < head + body)
    return 0;
  *status = (guint) strtoul (conn->buffer + 9, NULL, 10);
  return head + body;
}

typedef struct
{
  double  rate;
  double  p50_ms;
  double  p99_ms;
  double  max_ms;
  guint64 errors;
} Round;

static Round
run_round (guint       port,
           const char *path,
           guint       n_conns,
           double      seconds)
{
  Round round = { 0 };
  g_autofree char *request = g_strdup_printf ("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nX-Odek-Ws-Token: %s\r\n\r\n",
                                              path, port, TOKEN);
  gsize request_len = strlen (request);
  g_autoptr(GArray) latencies = g_array_sized_new (FALSE, FALSE, sizeof (guint32), 1 << 20);
  g_autofree Conn *conns = g_new0 (Conn, n_conns);
  struct epoll_event events[256];
  gint64 start, end, now;
  guint64 done = 0, errors = 0;
  int ep = epoll_create1 (0);
  guint32 *sorted;
  guint n;

  for (guint i = 0; i < n_conns; i++)
    {
      struct sockaddr_in addr = { 0 };
      struct epoll_event ev = { 0 };
      int one = 1;

      addr.sin_family = AF_INET;
      addr.sin_port = htons (port);
      addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
      conns[i].fd = socket (AF_INET, SOCK_STREAM, 0);
      setsockopt (conns[i].fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      if (connect (conns[i].fd, (struct sockaddr *) &addr, sizeof addr) != 0)
        g_error ("connect: %s", g_strerror (errno));
      fcntl (conns[i].fd, F_SETFL, O_NONBLOCK);
      ev.events = EPOLLIN;
      ev.data.ptr = &conns[i];
      epoll_ctl (ep, EPOLL_CTL_ADD, conns[i].fd, &ev);
    }

  start = g_get_monotonic_time ();
  end = start + (gint64) (seconds * G_USEC_PER_SEC);
  for (guint i = 0; i < n_conns; i++)
    send_request (&conns[i], request, request_len);

  while ((now = g_get_monotonic_time ()) < end)
    {
      int k = epoll_wait (ep, events, G_N_ELEMENTS (events), 100);

      for (int j = 0; j < k; j++)
        {
          Conn *conn = events[j].data.ptr;
          ssize_t r = read (conn->fd, conn->buffer + conn->len, sizeof conn->buffer - conn->len);
          gsize whole;
          guint status = 0;

          if (r <= 0)
            continue;
          conn->len += (gsize) r;
          while ((whole = response_length (conn, &status)) > 0)
            {
              guint32 us;

              now = g_get_monotonic_time ();
              us = (guint32) (now - conn->sent_at);
              g_array_append_val (latencies, us);
              if (status != 200)
                errors++;
              done++;
              memmove (conn->buffer, conn->buffer + whole, conn->len - whole);
              conn->len -= whole;
              send_request (conn, request, request_len);
            }
        }
    }
  seconds = (double) (g_get_monotonic_time () - start) / G_USEC_PER_SEC;

  for (guint i = 0; i < n_conns; i++)
    close (conns[i].fd);
  close (ep);

  n = latencies->len;
  g_array_sort (latencies, compare_u32);
  sorted = (guint32 *) (void *) latencies->data;
  if (n == 0)
    return round;
  round.rate = done / seconds;
  round.p50_ms = sorted[n / 2] / 1000.0;
  round.p99_ms = sorted[(guint) (n * 0.99)] / 1000.0;
  round.max_ms = sorted[n - 1] / 1000.0;
  round.errors = errors;
  return round;
}

static int
compare_rounds (const void *a,
                const void *b)
{
  double x = ((const Round *) a)->rate, y = ((const Round *) b)->rate;

  return x < y ? -1 : x > y;
}

/* The round of median rate (its p99 with it), and every round's errors. */
static Round
median_round (Round *rounds,
              guint  n)
{
  Round median;
  guint64 errors = 0;

  for (guint i = 0; i < n; i++)
    errors += rounds[i].errors;
  qsort (rounds, n, sizeof *rounds, compare_rounds);
  median = rounds[n / 2];
  median.errors = errors;
  return median;
}

/* --- the baseline: libsoup with nothing of ours ------------------------- */

typedef struct
{
  GMainContext *context;
  GMainLoop    *loop;
  GThread      *thread;
  SoupServer   *soup;
  GBytes       *body;
  guint         port;
  GMutex        lock;
  GCond         cond;
  gboolean      ready;
} Baseline;

static void
baseline_handle (SoupServer        *soup,
                 SoupServerMessage *msg,
                 const char        *path,
                 GHashTable        *query,
                 gpointer           user_data)
{
  Baseline *self = user_data;
  gsize len;
  const char *data = g_bytes_get_data (self->body, &len);

  soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Cache-Control", "no-store");
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, data, len);
}

static gpointer
baseline_thread (gpointer data)
{
  Baseline *self = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GInetAddress) address = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) socket_address = g_inet_socket_address_new (address, 0);
  GSList *listeners;

  g_main_context_push_thread_default (self->context);
  self->soup = soup_server_new ("server-header", "plandeck/" PACKAGE_VERSION " ", NULL);
  soup_server_add_handler (self->soup, NULL, baseline_handle, self, NULL);
  if (!soup_server_listen (self->soup, socket_address, 0, &error))
    g_error ("baseline: %s", error->message);
  listeners = soup_server_get_listeners (self->soup);
  {
    g_autoptr(GSocketAddress) local = g_socket_get_local_address (listeners->data, NULL);
    self->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local));
  }
  g_slist_free (listeners);

  g_mutex_lock (&self->lock);
  self->ready = TRUE;
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->lock);

  g_main_loop_run (self->loop);
  soup_server_disconnect (self->soup);
  g_clear_object (&self->soup);
  while (g_main_context_iteration (self->context, FALSE))
    ;
  g_main_context_pop_thread_default (self->context);
  return NULL;
}

static void
baseline_start (Baseline *self,
                GBytes   *body)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->body = g_bytes_ref (body);
  self->context = g_main_context_new ();
  self->loop = g_main_loop_new (self->context, FALSE);
  self->thread = g_thread_new ("bench-baseline", baseline_thread, self);
  g_mutex_lock (&self->lock);
  while (!self->ready)
    g_cond_wait (&self->cond, &self->lock);
  g_mutex_unlock (&self->lock);
}

static gboolean
baseline_quit (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

static void
baseline_stop (Baseline *self)
{
  g_main_context_invoke (self->context, baseline_quit, self->loop);
  g_thread_join (self->thread);
  g_main_loop_unref (self->loop);
  g_main_context_unref (self->context);
  g_bytes_unref (self->body);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
}

/* One blocking GET, for the body the baseline answers with. */
static GBytes *
fetch_body (guint       port,
            const char *path)
{
  g_autofree char *request = g_strdup_printf ("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nX-Odek-Ws-Token: %s\r\n"
                                              "Connection: close\r\n\r\n", path, port, TOKEN);
  struct sockaddr_in addr = { 0 };
  g_autoptr(GString) reply = g_string_new (NULL);
  int fd = socket (AF_INET, SOCK_STREAM, 0);
  char buffer[4096];
  ssize_t r;
  const char *body;

  addr.sin_family = AF_INET;
  addr.sin_port = htons (port);
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  if (connect (fd, (struct sockaddr *) &addr, sizeof addr) != 0 ||
      write (fd, request, strlen (request)) != (ssize_t) strlen (request))
    g_error ("fetching the plan: %s", g_strerror (errno));
  while ((r = read (fd, buffer, sizeof buffer)) > 0)
    g_string_append_len (reply, buffer, r);
  close (fd);
  body = strstr (reply->str, "\r\n\r\n");
  if (!g_str_has_prefix (reply->str, "HTTP/1.1 200") || body == NULL)
    g_error ("fetching the plan: %.200s", reply->str);
  body += 4;
  return g_bytes_new (body, strlen (body));
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-bench-serve-XXXXXX", &error);
  g_autofree char *db_path = NULL;
  g_autofree char *path = NULL;
  g_autoptr(PdServer) server = NULL;
  double seconds = argc > 1 ? g_ascii_strtod (argv[1], NULL) : 2.0;
  Baseline baseline = { 0 };
  GBytes *body;
  const guint rounds[] = { 1, 16, 64 };
  char *id;

  g_assert_no_error (error);
  db_path = g_build_filename (dir, "sessions.db", NULL);
  seconds = CLAMP (seconds, 0.5, 30.0);

  /* One session with a five-step plan. */
  {
    g_autoptr(PdDb) db = pd_db_open (db_path, PD_DB_CREATE, &error);
    g_autoptr(PdSessionStore) store = NULL;
    g_autoptr(PdSessionInfo) info = NULL;
    g_autoptr(PdPlanStore) plan = pd_plan_store_new (12, 4000);
    g_autoptr(PdPlanState) state = NULL;
    g_autofree char *r1 = NULL, *r2 = NULL;
    PdTurn turn = { 0 };

    g_assert_no_error (error);
    store = pd_session_store_new (db);
    info = pd_session_store_create (store, "Benchmark the plan endpoint", "bench", "replay", "plandeck", dir, &error);
    g_assert_no_error (error);
    r1 = pd_plan_store_execute (plan, "{\"verb\":\"create\",\"steps\":[{\"title\":\"Read the code\"},{\"title\":\"Write the server\"},"
                                      "{\"title\":\"Write the tests\"},{\"title\":\"Measure\"},{\"title\":\"Report\"}]}", &error);
    g_assert_no_error (error);
    r2 = pd_plan_store_execute (plan, "{\"verb\":\"update\",\"updates\":[{\"id\":\"s1\",\"status\":\"done\",\"note\":\"read it all\"},"
                                      "{\"id\":\"s2\",\"status\":\"in_progress\"}]}", &error);
    g_assert_no_error (error);
    state = pd_plan_store_snapshot (plan);
    turn.session_id = info->id;
    turn.plan = state;
    turn.status = PD_SESSION_STATUS_IDLE;
    g_assert_true (pd_session_store_save_turn (store, &turn, &error));
    id = g_strdup (info->id);
  }

  server = pd_server_new (db_path);
  pd_server_set_listen (server, "127.0.0.1", 0);
  pd_server_set_token (server, TOKEN);
  pd_server_set_rate_limit (server, 0);
  if (!pd_server_start (server, &error))
    g_error ("%s", error->message);

  path = g_strdup_printf ("/api/sessions/%s/plan", id);
  body = fetch_body (pd_server_get_port (server), path);
  baseline_start (&baseline, body);
  printf ("GET %s (%" G_GSIZE_FORMAT " bytes), %.1f s per round, loopback;\n"
          "median of %u rounds each, ours alternating with a bare SoupServer answering the same body\n",
          path, g_bytes_get_size (body), seconds, REPEATS);
  /* Warm the cache and the connections' code paths. */
  run_round (pd_server_get_port (server), path, 4, 0.3);
  run_round (baseline.port, path, 4, 0.3);
  for (guint i = 0; i < G_N_ELEMENTS (rounds); i++)
    {
      Round ours[REPEATS], bare[REPEATS], o, b;

      for (guint k = 0; k < REPEATS; k++)
        {
          ours[k] = run_round (pd_server_get_port (server), path, rounds[i], seconds);
          bare[k] = run_round (baseline.port, path, rounds[i], seconds);
        }
      o = median_round (ours, REPEATS);
      b = median_round (bare, REPEATS);
      printf ("%3u connections: plandeck %6.0f req/s  p50 %6.3f ms  p99 %6.3f ms  max %7.3f ms  (%" G_GUINT64_FORMAT " non-200)\n"
              "                 libsoup  %6.0f req/s  p50 %6.3f ms  p99 %6.3f ms  max %7.3f ms\n"
              "                 ratio    %.2f× of bare libsoup\n",
              rounds[i], o.rate, o.p50_ms, o.p99_ms, o.max_ms, o.errors,
              b.rate, b.p50_ms, b.p99_ms, b.max_ms, b.rate > 0 ? o.rate / b.rate : 0);
      fflush (stdout);
    }
  baseline_stop (&baseline);
  g_bytes_unref (body);

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
  g_free (id);
  return 0;
}
