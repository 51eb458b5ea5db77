/* bench-overview.c: the Overview following many endpoints at once
 *
 *   bench-overview [SECONDS [ENDPOINTS]] [--view [--no-tick]] [--settle S]
 *                                                (default 30 s, 50 endpoints)
 *
 * A child process runs ENDPOINTS real PdServer instances on loopback, each
 * over its own session database with 10 sessions, and writers that give
 * every session a new plan version every second (as 10 agents per endpoint
 * would, each in another process: a note on the current step every second,
 * the next step every 10 s); plus one endpoint that accepts and never
 * answers.  This process is the app's side: a PdRemoteSource per endpoint
 * (its event stream followed) in one PdOverview, on a main loop of its own
 * that times every dispatch of the main context.
 *
 * Printed for 1 endpoint (the baseline) and then for all of them with the
 * hung one: the cards and their updates, the main context's dispatches
 * (p50, p99, max: every piece of work done on the main thread for the
 * updates, reads and merges alike), CPU of this process in % of one core
 * (getrusage over the measured seconds), TCP connections to each endpoint,
 * the main loop's turns and the sources on its context (each turn looks
 * at every one of them, whatever woke it).
 * Halfway through, one endpoint dies (its server stops): its cards must
 * keep their values with an error, and the other endpoints' cards must
 * keep following (printed: how many of them moved on after the death).
 *
 * With --view (under a display: xvfb-run), the cards are shown too, as
 * the window shows them: a PdOverviewView of the overview in a 1280×800
 * window, its rows bound, laid out and drawn as the cards change, all of
 * it in the dispatches and the CPU measured.  Printed besides: the main
 * thread's CPU in all the dispatches by part (the pushes merged, the
 * list's changes, the frame clock's phases, the window's size worked out
 * outside a frame, the rest), the card rows the list made and how many of
 * them are shown, the window's size and how far the list is below its top
 * at the end; and for each dispatch over 16 ms of CPU, what it held.
 * And the frames: the window's frame clock is kept ticking (a tick
 * callback, as any animation on screen keeps it), and for every frame of
 * the measured seconds it prints p50, p99, max and the count over 16 ms
 * of the frame's own CPU on the main thread (its dispatch: events, update,
 * layout, paint), of the main thread's CPU from one frame's start to the
 * next (all the work that frame waited for), and of the wall time between
 * frames (with the frames missed: a gap over 1.5 refresh intervals).  The
 * baseline (1 endpoint, its 10 cards) prints the same in the same run,
 * and each gap over 16 ms of CPU is printed with what its dispatches held.
 * The ticking costs CPU of its own (the baseline's): --no-tick leaves the
 * clock to GTK, as the window has it with nothing moving, for the CPU
 * figure alone (its frames are then only those the changes draw).
 *
 * --settle S waits S seconds after the cards came before it measures: the
 * list laying out its first rows and the cards that came last (frames of
 * 100–300 ms under load) is the start-up, not the updates' work; the
 * longest dispatch of those seconds is printed beside the figures.
 *
 * Goal: under 5 % of a core and no frame over 16 ms of the main thread's
 * work.  It prints figures and asserts nothing about time.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "bench-overview"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>

#include <glib/gstdio.h>
#ifdef PD_BENCH_VIEW
#include <adwaita.h>
#endif

#include "pd-db.h"
#include "pd-overview.h"
#ifdef PD_BENCH_VIEW
#include "pd-overview-card-row.h"
#include "pd-overview-view.h"
#endif
#include "pd-plan.h"
#include "pd-remote-source.h"
#include "pd-server.h"
#include "pd-session-store.h"

#define TOKEN "b0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecf"
#define PER_ENDPOINT 10
#define STEPS 8
#define ADVANCE_EVERY 10

static gboolean with_view;
static gboolean no_tick;
static guint settle_seconds;

/* --- the child: endpoints and writers ----------------------------------- */

typedef struct
{
  PdSessionStore *store;
  PdServer       *server;
  char           *ids[PER_ENDPOINT];
  PdPlanStore    *plans[PER_ENDPOINT];
} Endpoint;

static void
write_plan (Endpoint *endpoint,
            guint     index,
            guint     tick)
{
  g_autoptr(GString) update = g_string_new ("{\"verb\":\"update\",\"updates\":[");
  g_autoptr(PdPlanState) state = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *result = NULL;
  guint current = (tick / ADVANCE_EVERY + index) % STEPS;
  PdTurn turn = { 0 };

  /* A note on the current step every second (a new version with the same
   * counts), the next step every ADVANCE_EVERY seconds. */
  for (guint i = 0; i < STEPS; i++)
    {
      g_string_append_printf (update, "%s{\"id\":\"s%u\",\"status\":\"%s\"", i ? "," : "", i + 1,
                              i < current ? "done" : i == current ? "in_progress" : "pending");
      if (i == current)
        g_string_append_printf (update, ",\"note\":\"tick %u\"", tick);
      g_string_append_c (update, '}');
    }
  g_string_append (update, "]}");
  result = pd_plan_store_execute (endpoint->plans[index], update->str, &error);
  if (error != NULL)
    g_error ("plan: %s", error->message);
  state = pd_plan_store_snapshot (endpoint->plans[index]);
  turn.session_id = endpoint->ids[index];
  turn.plan = state;
  turn.status = PD_SESSION_STATUS_IDLE;
  if (!pd_session_store_save_turn (endpoint->store, &turn, &error))
    g_error ("save: %s", error->message);
}

static gpointer
hold_connections (gpointer data)
{
  int listener = GPOINTER_TO_INT (data);

  /* Accepted and never answered, never closed. */
  for (;;)
    if (accept (listener, NULL, NULL) < 0 && errno != EINTR)
      return NULL;
}

static void
child_main (int      report_fd,
            int      control_fd,
            guint    n_endpoints)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-bench-overview-XXXXXX", &error);
  Endpoint *endpoints = g_new0 (Endpoint, n_endpoints);
  g_autoptr(GString) ports = g_string_new (NULL);
  struct sockaddr_in addr = { 0 };
  socklen_t len = sizeof addr;
  int listener;

  prctl (PR_SET_PDEATHSIG, SIGTERM);
  g_assert_no_error (error);
  for (guint e = 0; e < n_endpoints; e++)
    {
      g_autofree char *name = g_strdup_printf ("endpoint%u.db", e);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autoptr(PdDb) db = pd_db_open (path, PD_DB_CREATE, &error);

      g_assert_no_error (error);
      endpoints[e].store = pd_session_store_new (db);
      for (guint i = 0; i < PER_ENDPOINT; i++)
        {
          g_autofree char *task = g_strdup_printf ("Agent %u of endpoint %u", i, e);
          g_autoptr(PdSessionInfo) info = pd_session_store_create (endpoints[e].store, task, "m", "replay",
                                                                   "plandeck", dir, &error);
          g_autoptr(GString) create = g_string_new ("{\"verb\":\"create\",\"steps\":[");
          g_autofree char *result = NULL;

          g_assert_no_error (error);
          endpoints[e].ids[i] = g_strdup (info->id);
          endpoints[e].plans[i] = pd_plan_store_new (12, 4000);
          for (guint s = 0; s < STEPS; s++)
            g_string_append_printf (create, "%s{\"title\":\"Step %u of the work of agent %u\"}", s ? "," : "", s + 1, i);
          g_string_append (create, "]}");
          result = pd_plan_store_execute (endpoints[e].plans[i], create->str, &error);
          g_assert_no_error (error);
          write_plan (&endpoints[e], i, 0);
        }
      endpoints[e].server = pd_server_new (path);
      pd_server_set_listen (endpoints[e].server, "127.0.0.1", 0);
      pd_server_set_token (endpoints[e].server, TOKEN);
      pd_server_set_rate_limit (endpoints[e].server, 0);
      if (!pd_server_start (endpoints[e].server, &error))
        g_error ("serve: %s", error->message);
      g_string_append_printf (ports, "%u ", pd_server_get_port (endpoints[e].server));
    }

  listener = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  g_assert_cmpint (bind (listener, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  g_assert_cmpint (listen (listener, 64), ==, 0);
  g_assert_cmpint (getsockname (listener, (struct sockaddr *) &addr, &len), ==, 0);
  g_thread_unref (g_thread_new ("hung", hold_connections, GINT_TO_POINTER (listener)));
  g_string_append_printf (ports, "%u\n", ntohs (addr.sin_port));
  g_assert_cmpint (write (report_fd, ports->str, ports->len), ==, (gssize) ports->len);

  /* Every session a new plan version every second, spread over it. */
  for (guint tick = 1;; tick++)
    {
      gint64 start = g_get_monotonic_time ();
      char byte;

      if (read (control_fd, &byte, 1) == 1 && endpoints[1 % n_endpoints].server != NULL)
        {
          pd_server_stop (endpoints[1 % n_endpoints].server);
          g_clear_object (&endpoints[1 % n_endpoints].server);
        }
      for (guint e = 0; e < n_endpoints; e++)
        {
          gint64 due = start + (gint64) e * G_USEC_PER_SEC / n_endpoints;
          gint64 wait = due - g_get_monotonic_time ();

          if (wait > 0)
            g_usleep ((gulong) wait);
          for (guint i = 0; i < PER_ENDPOINT; i++)
            write_plan (&endpoints[e], i, tick);
        }
    }
}

/* --- this process: the app's side ---------------------------------------- */

/* What a dispatch did, in the main thread's CPU time: the overview's
 * changes of its list (and all that the view did for them), the frame
 * clock's phases (update: tick callbacks; layout; paint), and the rest
 * (the streams read, the pushes merged, timers). */
enum { PART_PUSHES, PART_MODEL, PART_UPDATE, PART_LAYOUT, PART_PAINT, PART_SIZE, N_PARTS };

typedef struct
{
  GArray  *dispatch_us;   /* (element-type gint64) wall time of each dispatch */
  GArray  *dispatch_cpu;  /* (element-type gint64) the main thread's CPU time in it */
  guint    updates;
  gboolean measuring;
  guint    turns;         /* turns of the main loop measured, with a dispatch or not */
  gint64   dispatch_start;  /* the main thread's CPU time as the dispatch began */
  gboolean in_frame;        /* a frame of the frame clock began in this dispatch */
  gint64   part_start[N_PARTS];
  gint64   part_cpu[N_PARTS];   /* in the dispatch being timed */
  guint    part_count[N_PARTS];
  gint64   total_cpu[N_PARTS];  /* over the measured seconds */
  guint    total_count[N_PARTS];
  gint64   total_dispatch_cpu;
  GString *long_ones;     /* the dispatches over 16 ms of CPU, what they held */
  /* The frames of the window's frame clock (--view), kept ticking as an
   * animation on screen keeps it: each frame's CPU on the main thread
   * (its dispatch's start to its after-paint), the main thread's CPU from one
   * frame's start to the next (all the work a frame waited for), and the
   * wall time between frames' starts. */
  GArray  *frame_cpu;
  GArray  *frame_gap_cpu;
  GArray  *frame_gap_wall;
  gint64   dispatch_wall;     /* the monotonic time as the dispatch began */
  gint64   last_frame_cpu;    /* 0: no frame yet in the measured time */
  gint64   last_frame_wall;
  gint64   refresh_us;        /* the frame clock's refresh interval */
  gint64   gap_part_cpu[N_PARTS];  /* the dispatches since the last frame's start, by part */
  gint64   gap_dispatch_cpu;
  guint    gap_dispatches;
  GString *long_gaps;         /* the gaps between frames over 16 ms of CPU, what they held */
  gboolean settling;          /* the seconds after the cards came, not measured (--settle) */
  gint64   settle_max_cpu;    /* the longest dispatch of them, CPU µs */
} Stats;

static const char *part_names[N_PARTS] = { "pushes merged", "list changes", "frame update", "frame layout", "frame paint",
                                           "window size worked out outside a frame" };

static void
on_items_changed (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  Stats      *stats)
{
  if (stats->measuring)
    stats->updates++;
}

static gint64
thread_cpu_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

/* Connected first and after all: the span between is the part's. */
static void
part_begin (Stats *stats,
            guint  part)
{
  stats->part_start[part] = thread_cpu_us ();
}

static void
part_end (Stats *stats,
          guint  part)
{
  stats->part_cpu[part] += thread_cpu_us () - stats->part_start[part];
  stats->part_count[part]++;
}

#ifdef PD_BENCH_VIEW
/* GTK's own handlers of the frame clock's phases were connected as the
 * window was realized, before these: each of these runs as its phase's
 * work is done, and the span since the last is the phase's. */
static gint64 phase_mark;

static void
frame_begun (GdkFrameClock *clock,
             Stats         *stats)
{
  phase_mark = thread_cpu_us ();
  stats->in_frame = TRUE;
}

static void
phase_done (Stats *stats,
            guint  part)
{
  gint64 now = thread_cpu_us ();

  stats->part_cpu[part] += now - phase_mark;
  stats->part_count[part]++;
  phase_mark = now;
}

/* The X11 surface works out the window's size (GdkToplevel::compute-size:
 * the whole window measured) in its frame's layout, and besides in an idle
 * of its own whenever a widget queues a resize, at a priority above all
 * else (so in a dispatch alone), outside the frame clock's phases.  Those
 * are counted here, from the dispatch's start. */
static void
size_done (GdkToplevel     *toplevel,
           GdkToplevelSize *size,
           Stats           *stats)
{
  if (stats->in_frame)
    return;
  stats->part_cpu[PART_SIZE] += thread_cpu_us () - stats->dispatch_start;
  stats->part_count[PART_SIZE]++;
}

/* The card rows the view's list has made, and of those the ones shown. */
static void
count_rows (GtkWidget  *widget,
            guint      *made,
            guint      *mapped,
            GtkWidget **scroller)
{
  if (PD_IS_OVERVIEW_CARD_ROW (widget))
    {
      (*made)++;
      *mapped += gtk_widget_get_mapped (widget);
      return;
    }
  if (GTK_IS_SCROLLED_WINDOW (widget) && *scroller == NULL)
    *scroller = widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    count_rows (child, made, mapped, scroller);
}

/* A frame painted.  Its start is the start of the dispatch it ran in (the
 * frame clock's own source: its flush of events, its update, layout and
 * paint); the span since the last frame's start is the gap. */
static void
frame_painted (GdkFrameClock *clock,
               Stats         *stats)
{
  gint64 refresh = 0;

  gdk_frame_clock_get_refresh_info (clock, g_get_monotonic_time (), &refresh, NULL);
  if (refresh > 0)
    stats->refresh_us = refresh;
  if (!stats->measuring)
    return;
  {
    gint64 cpu = thread_cpu_us () - stats->dispatch_start;

    g_array_append_val (stats->frame_cpu, cpu);
  }
  if (stats->last_frame_wall != 0)
    {
      gint64 gap_cpu = stats->dispatch_start - stats->last_frame_cpu;
      gint64 gap_wall = stats->dispatch_wall - stats->last_frame_wall;

      g_array_append_val (stats->frame_gap_cpu, gap_cpu);
      g_array_append_val (stats->frame_gap_wall, gap_wall);
      if (gap_cpu > 16000)
        {
          gint64 rest = stats->gap_dispatch_cpu;

          g_string_append_printf (stats->long_gaps, "    %.1f ms of CPU, %.1f ms wall, %u dispatches (%.1f ms of CPU):",
                                  gap_cpu / 1000.0, gap_wall / 1000.0, stats->gap_dispatches,
                                  stats->gap_dispatch_cpu / 1000.0);
          for (guint p = 0; p < N_PARTS; p++)
            {
              if (stats->gap_part_cpu[p] > 0)
                g_string_append_printf (stats->long_gaps, " %s %.1f ms,", part_names[p], stats->gap_part_cpu[p] / 1000.0);
              rest -= stats->gap_part_cpu[p];
            }
          g_string_append_printf (stats->long_gaps, " the rest %.1f ms\n", rest / 1000.0);
        }
    }
  memset (stats->gap_part_cpu, 0, sizeof stats->gap_part_cpu);
  stats->gap_dispatch_cpu = 0;
  stats->gap_dispatches = 0;
  stats->last_frame_cpu = stats->dispatch_start;
  stats->last_frame_wall = stats->dispatch_wall;
}

/* Keeps the frame clock ticking every frame, as a spinner or any
 * animation on screen does: the frames a person would see stutter. */
static gboolean
keep_ticking (GtkWidget     *widget,
              GdkFrameClock *clock,
              gpointer       user_data)
{
  return G_SOURCE_CONTINUE;
}

static void update_done (GdkFrameClock *clock, Stats *stats) { phase_done (stats, PART_UPDATE); }
static void layout_done (GdkFrameClock *clock, Stats *stats) { phase_done (stats, PART_LAYOUT); }
static void paint_done (GdkFrameClock *clock, Stats *stats) { phase_done (stats, PART_PAINT); }
#endif

static void
pushes_begin (PdRemoteSource *source, GPtrArray *sessions, Stats *stats)
{
  part_begin (stats, PART_PUSHES);
}

static void
pushes_end (PdRemoteSource *source, GPtrArray *sessions, Stats *stats)
{
  part_end (stats, PART_PUSHES);
}

static void
model_begin (GListModel *model, guint position, guint removed, guint added, Stats *stats)
{
  part_begin (stats, PART_MODEL);
}

static void
model_end (GListModel *model, guint position, guint removed, guint added, Stats *stats)
{
  part_end (stats, PART_MODEL);
}

/* One turn of the main context, its dispatch timed: the wall time (what a
 * frame waits) and this thread's CPU time (the work itself; on a loaded
 * machine the wall time also holds the time other processes ran). */
static void
iterate (GMainContext *context,
         Stats        *stats,
         gint64        until)
{
  static GPollFD fds[512];
  gint max_priority, timeout, n;
  gint64 start, cpu_start;

  if (!g_main_context_acquire (context))
    g_error ("main context");
  g_main_context_prepare (context, &max_priority);
  n = g_main_context_query (context, max_priority, &timeout, fds, G_N_ELEMENTS (fds));
  if (n > (gint) G_N_ELEMENTS (fds))
    g_error ("too many descriptors");
  if (until > 0)
    {
      gint left = (gint) MAX ((until - g_get_monotonic_time ()) / 1000, 0);

      timeout = timeout < 0 ? left : MIN (timeout, left);
    }
  g_poll (fds, n, timeout);
  g_main_context_check (context, max_priority, fds, n);
  if (stats->measuring)
    stats->turns++;
  start = g_get_monotonic_time ();
  memset (stats->part_cpu, 0, sizeof stats->part_cpu);
  memset (stats->part_count, 0, sizeof stats->part_count);
  cpu_start = thread_cpu_us ();
  stats->dispatch_start = cpu_start;
  stats->dispatch_wall = start;
  stats->in_frame = FALSE;
  g_main_context_dispatch (context);
  if (stats->settling)
    stats->settle_max_cpu = MAX (stats->settle_max_cpu, thread_cpu_us () - cpu_start);
  if (stats->measuring)
    {
      gint64 took = g_get_monotonic_time () - start;
      gint64 cpu = thread_cpu_us () - cpu_start;

      g_array_append_val (stats->dispatch_us, took);
      g_array_append_val (stats->dispatch_cpu, cpu);
      stats->total_dispatch_cpu += cpu;
      stats->gap_dispatch_cpu += cpu;
      stats->gap_dispatches++;
      for (guint p = 0; p < N_PARTS; p++)
        {
          stats->total_cpu[p] += stats->part_cpu[p];
          stats->total_count[p] += stats->part_count[p];
          stats->gap_part_cpu[p] += stats->part_cpu[p];
        }
      if (cpu > 16000)
        {
          gint64 rest = cpu;

          g_string_append_printf (stats->long_ones, "    %.1f ms of CPU (at %.3f s monotonic):", cpu / 1000.0,
                                  start / 1e6);
          for (guint p = 0; p < N_PARTS; p++)
            {
              if (stats->part_count[p] > 0)
                g_string_append_printf (stats->long_ones, " %s %.1f ms (%u),", part_names[p],
                                        stats->part_cpu[p] / 1000.0, stats->part_count[p]);
              rest -= stats->part_cpu[p];
            }
          g_string_append_printf (stats->long_ones, " the rest %.1f ms\n", rest / 1000.0);
        }
    }
  g_main_context_release (context);
}

static int
compare_gint64 (gconstpointer a,
                gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* p50, p99 and max of @values (µs, sorted here), and how many are over
 * @over_us. */
static void
print_spread (const char *what,
              GArray     *values,
              gint64      over_us)
{
  gint64 p50 = 0, p99 = 0, max = 0;
  guint over = 0;

  g_array_sort (values, compare_gint64);
  if (values->len > 0)
    {
      p50 = g_array_index (values, gint64, values->len / 2);
      p99 = g_array_index (values, gint64, MIN (values->len - 1, values->len * 99 / 100));
      max = g_array_index (values, gint64, values->len - 1);
    }
  for (guint i = 0; i < values->len; i++)
    over += g_array_index (values, gint64, i) > over_us;
  printf ("    %s: p50 %.2f ms, p99 %.2f ms, max %.2f ms, %u of %u over %.1f ms\n", what, p50 / 1000.0,
          p99 / 1000.0, max / 1000.0, over, values->len, over_us / 1000.0);
}

static double
cpu_seconds (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

/* Each thread of this process: its name → its CPU so far in clock ticks
 * (utime + stime of /proc/self/task/TID/stat), the threads of one name
 * summed. */
static GHashTable *
thread_ticks (void)
{
  GHashTable *ticks = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GDir) tasks = g_dir_open ("/proc/self/task", 0, NULL);
  const char *tid;

  while (tasks != NULL && (tid = g_dir_read_name (tasks)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc/self/task", tid, "stat", NULL);
      g_autofree char *stat = NULL;
      const char *open_paren, *close_paren;
      g_auto(GStrv) fields = NULL;
      g_autofree char *name = NULL;

      if (!g_file_get_contents (path, &stat, NULL, NULL) || (open_paren = strchr (stat, '(')) == NULL ||
          (close_paren = strrchr (stat, ')')) == NULL)
        continue;
      name = atoi (tid) == getpid () ? g_strdup ("main") : g_strndup (open_paren + 1, close_paren - open_paren - 1);
      fields = g_strsplit (close_paren + 2, " ", -1);
      if (g_strv_length (fields) < 13)
        continue;
      g_hash_table_insert (ticks, g_strdup (name),
                           GSIZE_TO_POINTER (GPOINTER_TO_SIZE (g_hash_table_lookup (ticks, name)) +
                                             strtoull (fields[11], NULL, 10) + strtoull (fields[12], NULL, 10)));
    }
  return ticks;
}

/* This process's established TCP connections to @port. */
static guint
connections_to (guint port)
{
  g_autoptr(GHashTable) inodes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GDir) fds = g_dir_open ("/proc/self/fd", 0, NULL);
  g_autofree char *table = NULL;
  g_auto(GStrv) lines = NULL;
  const char *name;
  guint count = 0;

  while (fds != NULL && (name = g_dir_read_name (fds)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc/self/fd", name, NULL);
      g_autofree char *target = g_file_read_link (path, NULL);

      if (target != NULL && g_str_has_prefix (target, "socket:["))
        g_hash_table_add (inodes, g_strndup (target + 8, strlen (target) - 9));
    }
  if (!g_file_get_contents ("/proc/net/tcp", &table, NULL, NULL))
    return 0;
  lines = g_strsplit (table, "\n", -1);
  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto(GStrv) fields = g_strsplit_set (g_strstrip (lines[i]), " ", -1);
      GPtrArray *words = g_ptr_array_new ();
      const char *remote, *state, *inode;

      for (guint j = 0; fields[j] != NULL; j++)
        if (*fields[j] != '\0')
          g_ptr_array_add (words, fields[j]);
      if (words->len >= 10)
        {
          remote = g_ptr_array_index (words, 2);
          state = g_ptr_array_index (words, 3);
          inode = g_ptr_array_index (words, 9);
          if (g_str_equal (state, "01") && strchr (remote, ':') != NULL &&
              strtoul (strchr (remote, ':') + 1, NULL, 16) == port && g_hash_table_contains (inodes, inode))
            count++;
        }
      g_ptr_array_unref (words);
    }
  return count;
}

static gint64
version_sum (PdOverview *overview,
             PdSource   *source,
             gboolean   *errored)
{
  gint64 sum = 0;

  *errored = FALSE;
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (overview)); i++)
    {
      g_autoptr(PdOverviewCard) card = g_list_model_get_item (G_LIST_MODEL (overview), i);

      if (pd_overview_card_get_source (card) == source)
        {
          sum += pd_overview_card_get_plan_version (card);
          *errored |= pd_overview_card_get_source_error (card) != NULL;
        }
    }
  return sum;
}

/* The sources on the main context by name: every turn of the loop looks
 * at each of them twice (prepare, check), whatever wakes it. */
static void
print_sources (GMainContext *context,
               guint         turns,
               double        seconds)
{
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  GSource *probe = g_idle_source_new ();
  guint last = g_source_attach (probe, context), total = 0;
  GHashTableIter iter;
  gpointer name, count;

  g_source_destroy (probe);
  g_source_unref (probe);
  for (guint id = 1; id < last; id++)
    {
      GSource *source = g_main_context_find_source_by_id (context, id);
      const char *source_name;

      if (source == NULL)
        continue;
      source_name = g_source_get_name (source) ? g_source_get_name (source) : "(unnamed)";
      g_hash_table_insert (names, (gpointer) source_name,
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (names, source_name)) + 1));
      total++;
    }
  printf ("  the main loop: %u turns (%.0f a second), %u sources on its context at the end:", turns,
          turns / seconds, total);
  g_hash_table_iter_init (&iter, names);
  while (g_hash_table_iter_next (&iter, &name, &count))
    if (GPOINTER_TO_UINT (count) > 1)
      printf (" %s %u,", (const char *) name, GPOINTER_TO_UINT (count));
  printf ("\n");
}

static void
run_phase (const char *label,
           guint      *ports,
           guint       n_endpoints,
           guint       hung_port,
           guint       seconds,
           int         control_fd)
{
  g_autoptr(GListStore) sources = g_list_store_new (PD_TYPE_SOURCE);
  g_autoptr(PdOverview) overview = NULL;
  GMainContext *context = g_main_context_default ();
  Stats stats = { g_array_new (FALSE, FALSE, sizeof (gint64)), g_array_new (FALSE, FALSE, sizeof (gint64)), 0, FALSE };
  g_autofree gint64 *before = g_new0 (gint64, n_endpoints);
  guint expected = n_endpoints * PER_ENDPOINT;
  guint moved = 0, errored_dead = 0, min_conns = G_MAXUINT, max_conns = 0, refetches;
  guint n_conns[4] = { 0 };
  gint64 deadline, start, half, killed_at = 0;
  double cpu_start, cpu;
  gboolean killed = FALSE;
  gboolean dead_seen = FALSE;   /* the dead endpoint's cards showed its error */
  gint64 next_look = 0;
  gpointer window = NULL;
  g_autoptr(GHashTable) ticks_start = NULL;
  g_autoptr(GHashTable) ticks_end = NULL;

  for (guint e = 0; e < n_endpoints + (hung_port ? 1 : 0); e++)
    {
      g_autofree char *url = g_strdup_printf ("http://127.0.0.1:%u/?token=%s", e < n_endpoints ? ports[e] : hung_port, TOKEN);
      g_autoptr(GError) error = NULL;
      g_autoptr(PdRemoteSource) source = pd_remote_source_new (url, NULL, &error);

      g_assert_no_error (error);
      pd_remote_source_set_timeout (source, 5);
      pd_remote_source_watch (source, PD_REMOTE_SOURCE_WATCH_MS);
      g_signal_connect (source, "sessions-pushed", G_CALLBACK (pushes_begin), &stats);
      g_signal_connect_after (source, "sessions-pushed", G_CALLBACK (pushes_end), &stats);
      g_list_store_append (sources, source);
    }
  stats.long_ones = g_string_new (NULL);
  stats.long_gaps = g_string_new (NULL);
  stats.frame_cpu = g_array_new (FALSE, FALSE, sizeof (gint64));
  stats.frame_gap_cpu = g_array_new (FALSE, FALSE, sizeof (gint64));
  stats.frame_gap_wall = g_array_new (FALSE, FALSE, sizeof (gint64));
  overview = pd_overview_new (G_LIST_MODEL (sources));
  g_signal_connect (overview, "items-changed", G_CALLBACK (on_items_changed), &stats);
  g_signal_connect (overview, "items-changed", G_CALLBACK (model_begin), &stats);
  g_signal_connect_after (overview, "items-changed", G_CALLBACK (model_end), &stats);
#ifdef PD_BENCH_VIEW
  if (with_view)
    {
      GtkWidget *view = pd_overview_view_new ();

      window = gtk_window_new ();
      gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
      pd_overview_view_set_overview (PD_OVERVIEW_VIEW (view), overview);
      gtk_window_set_child (GTK_WINDOW (window), view);
      gtk_window_present (GTK_WINDOW (window));
      {
        GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));

        g_signal_connect_after (clock, "after-paint", G_CALLBACK (frame_painted), &stats);
        g_signal_connect_after (clock, "before-paint", G_CALLBACK (frame_begun), &stats);
        g_signal_connect_after (clock, "update", G_CALLBACK (update_done), &stats);
        g_signal_connect_after (clock, "layout", G_CALLBACK (layout_done), &stats);
        g_signal_connect_after (clock, "paint", G_CALLBACK (paint_done), &stats);
        g_signal_connect_after (gtk_native_get_surface (GTK_NATIVE (window)), "compute-size", G_CALLBACK (size_done),
                                &stats);
        if (!no_tick)
          gtk_widget_add_tick_callback (window, keep_ticking, NULL, NULL);
      }
    }
#endif

  /* Every card there first (not measured). */
  deadline = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;
  while ((!pd_overview_get_loaded (overview) || g_list_model_get_n_items (G_LIST_MODEL (overview)) < expected) &&
         g_get_monotonic_time () < deadline)
    iterate (context, &stats, deadline);
  printf ("%s: %u endpoints%s, %u cards of %u\n", label, n_endpoints, hung_port ? " + 1 hung" : "",
          g_list_model_get_n_items (G_LIST_MODEL (overview)), expected);
  if (settle_seconds > 0)
    {
      stats.settling = TRUE;
      deadline = g_get_monotonic_time () + (gint64) settle_seconds * G_USEC_PER_SEC;
      while (g_get_monotonic_time () < deadline)
        iterate (context, &stats, deadline);
      stats.settling = FALSE;
      printf ("  the %u s after the cards came (start-up, not measured): longest dispatch %.1f ms of CPU\n",
              settle_seconds, stats.settle_max_cpu / 1000.0);
    }

  refetches = pd_overview_get_n_refetches (overview);
  ticks_start = thread_ticks ();
  stats.measuring = TRUE;
  cpu_start = cpu_seconds ();
  start = g_get_monotonic_time ();
  half = start + (gint64) seconds * G_USEC_PER_SEC / 2;
  deadline = start + (gint64) seconds * G_USEC_PER_SEC;
  while (g_get_monotonic_time () < deadline)
    {
      if (!killed && control_fd >= 0 && g_get_monotonic_time () >= half)
        {
          gboolean errored;

          for (guint e = 0; e < n_endpoints; e++)
            {
              g_autoptr(PdSource) source = g_list_model_get_item (G_LIST_MODEL (sources), e);

              before[e] = version_sum (overview, source, &errored);
            }
          g_assert_cmpint (write (control_fd, "k", 1), ==, 1);
          killed = TRUE;
          killed_at = g_get_monotonic_time ();
        }
      /* Its values from when its error first shows: a refetch in flight
       * at the kill may still land after the snapshot above. */
      if (killed && !dead_seen && g_get_monotonic_time () >= next_look)
        {
          g_autoptr(PdSource) source = g_list_model_get_item (G_LIST_MODEL (sources), 1);
          gboolean errored;
          gint64 sum = version_sum (overview, source, &errored);

          if (errored)
            {
              dead_seen = TRUE;
              before[1] = sum;
            }
          next_look = g_get_monotonic_time () + G_USEC_PER_SEC;
        }
      iterate (context, &stats, deadline);
    }
  cpu = cpu_seconds () - cpu_start;
  stats.measuring = FALSE;
  ticks_end = thread_ticks ();

  /* Of the endpoints still there (the dead one has none). */
  for (guint e = 0; e < n_endpoints; e++)
    {
      guint n;

      if (killed && e == 1)
        continue;
      n = connections_to (ports[e]);
      min_conns = MIN (min_conns, n);
      max_conns = MAX (max_conns, n);
      n_conns[MIN (n, 3)]++;
    }
  if (killed)
    for (guint e = 0; e < n_endpoints; e++)
      {
        g_autoptr(PdSource) source = g_list_model_get_item (G_LIST_MODEL (sources), e);
        gboolean errored;
        gint64 now_sum = version_sum (overview, source, &errored);

        if (e == 1)
          errored_dead = dead_seen && errored && now_sum == before[e];
        else if (now_sum > before[e])
          moved++;
      }

  /* The times of the long dispatches below, placed. */
  printf ("  measured from %.3f s monotonic", start / 1e6);
  if (killed)
    printf ("; endpoint 2 stopped at %.3f s", killed_at / 1e6);
  printf ("\n");
  printf ("  %u s: %u model changes (items-changed), %u refetches\n", seconds, stats.updates,
          pd_overview_get_n_refetches (overview) - refetches);
  for (guint k = 0; k < 2; k++)
    {
      GArray *d = k == 0 ? stats.dispatch_us : stats.dispatch_cpu;
      gint64 p50, p99, max;
      guint over = 0;

      g_array_sort (d, compare_gint64);
      p50 = d->len ? g_array_index (d, gint64, d->len / 2) : 0;
      p99 = d->len ? g_array_index (d, gint64, MIN (d->len - 1, d->len * 99 / 100)) : 0;
      max = d->len ? g_array_index (d, gint64, d->len - 1) : 0;
      for (guint i = 0; i < d->len; i++)
        over += g_array_index (d, gint64, i) > 16000;
      printf ("  main context, %u dispatches, %s: p50 %.3f ms, p99 %.3f ms, max %.3f ms, %u over 16 ms\n",
              d->len, k == 0 ? "wall time (longest stall = max)" : "main thread's CPU time",
              p50 / 1000.0, p99 / 1000.0, max / 1000.0, over);
    }
  printf ("  CPU of this process: %.1f %% of a core; TCP connections per endpoint answering: %u to %u "
          "(endpoints with 0: %u, 1: %u, 2: %u, more: %u)\n",
          100.0 * cpu / seconds, min_conns, max_conns, n_conns[0], n_conns[1], n_conns[2], n_conns[3]);
  {
    GHashTableIter iter;
    gpointer name, value;

    printf ("  CPU by thread, %% of a core:");
    g_hash_table_iter_init (&iter, ticks_end);
    while (g_hash_table_iter_next (&iter, &name, &value))
      {
        gsize used = GPOINTER_TO_SIZE (value) - GPOINTER_TO_SIZE (g_hash_table_lookup (ticks_start, name));

        if (used > 0)
          printf (" %s %.1f,", (const char *) name, 100.0 * used / sysconf (_SC_CLK_TCK) / seconds);
      }
    printf ("\n");
  }
  print_sources (g_main_context_default (), stats.turns, seconds);
  {
    gint64 rest = stats.total_dispatch_cpu;

    printf ("  the main thread's CPU in dispatches, %.0f ms in all:", stats.total_dispatch_cpu / 1000.0);
    for (guint p = 0; p < N_PARTS; p++)
      {
        if (stats.total_count[p] > 0)
          printf (" %s %.0f ms (%u),", part_names[p], stats.total_cpu[p] / 1000.0, stats.total_count[p]);
        rest -= stats.total_cpu[p];
      }
    printf (" the rest %.0f ms\n", rest / 1000.0);
  }
#ifdef PD_BENCH_VIEW
  if (window != NULL)
    {
      guint made = 0, mapped = 0;

      GtkWidget *scroller = NULL;

      count_rows (window, &made, &mapped, &scroller);
      printf ("  the view's card rows: %u made, %u of them shown (mapped); the window %d×%d", made, mapped,
              gtk_widget_get_width (window), gtk_widget_get_height (window));
      if (scroller != NULL)
        printf ("; the list %.0f px below its top", gtk_adjustment_get_value (
                  gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller))));
      printf ("\n");
      printf ("  frames (%s; refresh interval %.1f ms):\n",
              no_tick ? "only those GTK draws for the changes (--no-tick)" : "the frame clock kept ticking",
              stats.refresh_us / 1000.0);
      print_spread ("each frame's CPU on the main thread", stats.frame_cpu, 16000);
      /* With nothing ticking, the time between frames is the time between
       * changes: no sign of a frame late. */
      if (!no_tick)
        {
          print_spread ("the main thread's CPU from a frame's start to the next (all a frame waited for)",
                        stats.frame_gap_cpu, 16000);
          print_spread ("wall time between frames (a frame missed: over 1.5 refresh intervals)",
                        stats.frame_gap_wall, stats.refresh_us * 3 / 2);
        }
    }
#endif
  if (stats.long_ones->len > 0)
    printf ("  the dispatches over 16 ms of CPU, what they held:\n%s", stats.long_ones->str);
  if (stats.long_gaps->len > 0 && !no_tick)
    printf ("  the gaps between frames over 16 ms of the main thread's CPU, what they held:\n%s", stats.long_gaps->str);
  if (killed)
    printf ("  endpoint 2 died halfway: its cards kept with its error: %s; the other %u endpoints' cards "
            "moved on after it: %u\n", errored_dead ? "yes" : "no", n_endpoints - 1, moved);
  fflush (stdout);

  for (guint e = 0; e < g_list_model_get_n_items (G_LIST_MODEL (sources)); e++)
    {
      g_autoptr(PdRemoteSource) source = g_list_model_get_item (G_LIST_MODEL (sources), e);

      pd_remote_source_watch (source, 0);
      g_signal_handlers_disconnect_by_data (source, &stats);
    }
#ifdef PD_BENCH_VIEW
  if (window != NULL)
    {
      g_signal_handlers_disconnect_by_data (gtk_widget_get_frame_clock (GTK_WIDGET (window)), &stats);
      gtk_window_destroy (GTK_WINDOW (window));
    }
#endif
  g_clear_object (&overview);
  g_list_store_remove_all (sources);
  deadline = g_get_monotonic_time () + G_USEC_PER_SEC;
  while (g_get_monotonic_time () < deadline)
    iterate (context, &stats, deadline);
  g_array_unref (stats.dispatch_us);
  g_array_unref (stats.dispatch_cpu);
  g_string_free (stats.long_ones, TRUE);
  g_string_free (stats.long_gaps, TRUE);
  g_array_unref (stats.frame_cpu);
  g_array_unref (stats.frame_gap_cpu);
  g_array_unref (stats.frame_gap_wall);
}

int
main (int   argc,
      char *argv[])
{
  const char *names[] = { "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY" };
  guint seconds = 30;
  guint n_endpoints = 50;
  guint n_numbers = 0;
  int report[2], control[2];
  g_autoptr(GIOChannel) channel = NULL;
  g_autofree char *line = NULL;
  g_auto(GStrv) words = NULL;
  guint *ports;
  guint hung;
  pid_t child;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_unsetenv (names[i]);
  for (int i = 1; i < argc; i++)
    if (g_str_equal (argv[i], "--view"))
      with_view = TRUE;
    else if (g_str_equal (argv[i], "--no-tick"))
      no_tick = TRUE;
    else if (g_str_equal (argv[i], "--settle") && i + 1 < argc)
      settle_seconds = (guint) atoi (argv[++i]);
    else if (n_numbers++ == 0)
      seconds = (guint) atoi (argv[i]);
    else
      n_endpoints = (guint) atoi (argv[i]);
  n_endpoints = MAX (n_endpoints, 2);
  seconds = MAX (seconds, 4);
  /* The endpoints and writers in a process of their own, before any
   * thread here: this process's CPU is the app's side alone. */
  if (pipe (report) != 0 || pipe (control) != 0 || fcntl (control[0], F_SETFL, O_NONBLOCK) != 0)
    g_error ("pipe: %s", g_strerror (errno));
  child = fork ();
  if (child == 0)
    {
      close (report[0]);
      close (control[1]);
      child_main (report[1], control[0], n_endpoints);
      _exit (0);
    }
  close (report[1]);
  close (control[0]);
#ifdef PD_BENCH_VIEW
  if (with_view)
    adw_init ();
#else
  if (with_view)
    g_error ("--view needs the GUI built");
#endif
  channel = g_io_channel_unix_new (report[0]);
  if (g_io_channel_read_line (channel, &line, NULL, NULL, NULL) != G_IO_STATUS_NORMAL)
    g_error ("the endpoints did not start");
  words = g_strsplit (g_strstrip (line), " ", -1);
  g_assert_cmpuint (g_strv_length (words), ==, n_endpoints + 1);
  ports = g_new0 (guint, n_endpoints);
  for (guint e = 0; e < n_endpoints; e++)
    ports[e] = (guint) atoi (words[e]);
  hung = (guint) atoi (words[n_endpoints]);

  printf ("bench-overview: %u sessions per endpoint, each a new plan version every second; "
          "min interval between refetches of a source %u ms%s\n", (guint) PER_ENDPOINT, (guint) PD_OVERVIEW_MIN_INTERVAL_MS,
          with_view ? "; the cards shown in a 1280×800 window" : "");
  run_phase ("baseline", ports, 1, 0, seconds / 2, -1);
  run_phase ("all", ports, n_endpoints, hung, seconds, control[1]);

  kill (child, SIGTERM);
  waitpid (child, NULL, 0);
  g_free (ports);
  return 0;
}
