/* bench-serve.c: requests per second and latency percentiles of
 * GET /api/sessions/{id}/plan on an in-process PdServer.
 *
 * The load generator is in this file: one thread, epoll, N keep-alive
 * connections on loopback, each sending its next request when the answer
 * to the last one is complete (no pipelining, like wrk).  Each round runs
 * for a bounded time.  The rate limit is off for the run.
 *
 *   bench-serve [SECONDS]   (default 3 per round)
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

#include "pd-plan.h"
#include "pd-server.h"

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

static void
run_round (guint       port,
           const char *path,
           guint       n_conns,
           double      seconds)
{
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
    {
      printf ("%3u connections: no answers\n", n_conns);
      return;
    }
  printf ("%3u connections: %8.0f req/s  p50 %6.3f ms  p90 %6.3f ms  p99 %6.3f ms  max %7.3f ms  (%" G_GUINT64_FORMAT " requests, %" G_GUINT64_FORMAT " non-200)\n",
          n_conns, done / seconds,
          sorted[n / 2] / 1000.0, sorted[(guint) (n * 0.90)] / 1000.0, sorted[(guint) (n * 0.99)] / 1000.0,
          sorted[n - 1] / 1000.0, done, errors);
  fflush (stdout);
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
  double seconds = argc > 1 ? g_ascii_strtod (argv[1], NULL) : 3.0;
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
  printf ("GET %s, %.1f s per round, loopback, in-process server thread\n", path, seconds);
  /* Warm the cache and the connections' code paths. */
  run_round (pd_server_get_port (server), path, 4, 0.3);
  for (guint i = 0; i < G_N_ELEMENTS (rounds); i++)
    run_round (pd_server_get_port (server), path, rounds[i], seconds);

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
