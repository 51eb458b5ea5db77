/* bench-ui.c: the app's first frame and idle cost on large databases.
 *
 * Usage: bench-ui [ROUNDS [SESSIONS...]]   (default: 5 rounds, 10000 100000)
 *
 * Prints, for an empty database (the baseline, in the same run) and for
 * databases of SESSIONS sessions, the time from starting the application to
 * the first frame that shows the first page of the session list (the empty
 * state for the baseline): the median of ROUNDS runs, each round starting the
 * app once on every database in turn.  Then, per size, when the whole list
 * had arrived and the time between frames while it arrived (the rest of the
 * list must never block drawing), beside the same for the empty database's
 * idle window, which is what the loaded machine allows; and the CPU the
 * process uses while the Now workspace of an idle session is visible, beside
 * an empty window idling in the same run.
 *
 * The first frame is the end of the frame clock's paint that drew the page,
 * not a wait for every pending main-loop task: work the first frame does not
 * need may run after it, and is timed separately.
 *
 * PD_BENCH_UI_DIR=DIR keeps the databases in DIR between runs (writing
 * 100,000 sessions takes a while).  Under `valgrind --tool=callgrind
 * --instr-atstart=no` only the startups are counted, from the application's
 * start to its first frame (HAVE_CALLGRIND).
 *
 * Goals: the first frame within 1.15 × the empty database's; idle under 1 %
 * of one core.  It prints figures and asserts nothing about time.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <glib/gstdio.h>

#ifdef HAVE_CALLGRIND
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(what)
#endif

#include "pd-db.h"
#include "pd-plan.h"
#include "pd-session-list.h"
#include "pd-session-store.h"
#include "pd-test-ui.h"

#define IDLE_SECONDS 10u
#define MAX_SIZES    4u
#define BASELINE_GAP_SECONDS 3u

/* One start of the app on one database. */
typedef struct
{
  guint      n_sessions;     /* 0: the empty database */
  char      *newest_task;    /* the first row's title, NULL when empty */
  gboolean   measure_idle;

  gint64     started_usec;
  gint64     first_frame_usec;   /* 0 until drawn */
  gint64     all_listed_usec;
  gint64     last_tick_usec;
  GArray    *gaps_ms;            /* (element-type double) between frames while the rest arrived */
  GtkWidget *list;
  double     idle_cpu_percent;
  gulong     toplevels_handler;
} Start;

static Start *current;

static int compare_doubles (const void *a,
                            const void *b);

static double
cpu_seconds (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 +
         usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static gboolean
on_idle_over (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* CPU share of one core while the main loop runs (blocking, as the app's
 * does) for @seconds. */
static double
idle_share (guint seconds)
{
  double before = cpu_seconds ();
  gboolean over = FALSE;

  g_timeout_add_seconds (seconds, on_idle_over, &over);
  while (!over)
    g_main_context_iteration (NULL, TRUE);

  return (cpu_seconds () - before) / seconds * 100.0;
}

/* The row titles are GtkInscriptions. */
static gboolean
shows_text (GtkWidget     *widget,
            gconstpointer  data)
{
  return ((GTK_IS_INSCRIPTION (widget) && g_strcmp0 (gtk_inscription_get_text (GTK_INSCRIPTION (widget)), data) == 0) ||
          (GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), data) == 0)) &&
         gtk_widget_get_mapped (widget) && gtk_widget_get_width (widget) > 0;
}

/* What the first frame must show: the newest session's row, or the empty
 * state. */
static gboolean
page_shown (GtkWidget *window)
{
  const char *text = current->newest_task != NULL ? current->newest_task : "No Sessions Yet";

  return pd_test_find_first (window, shows_text, text) != NULL;
}

static guint
n_listed (GtkWidget *window)
{
  if (current->list == NULL)
    current->list = pd_test_find_widget (window, PD_TYPE_SESSION_LIST);

  return g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (PD_SESSION_LIST (current->list))));
}

/* After each paint: the first that drew the page is the first frame. */
static void
on_after_paint (GdkFrameClock *clock,
                GtkWidget     *window)
{
  if (current == NULL || current->first_frame_usec != 0 || !page_shown (window))
    return;

  current->first_frame_usec = g_get_monotonic_time ();
  CALLGRIND_DUMP_STATS_AT (current->n_sessions > 0 ? current->newest_task : "empty database");
  CALLGRIND_STOP_INSTRUMENTATION;
}

static void
on_window_realize (GtkWidget *window)
{
  g_signal_connect_object (gtk_widget_get_frame_clock (window), "after-paint",
                           G_CALLBACK (on_after_paint), window, 0);
}

/* Catch the app's window as it is created, before its first frame. */
static void
on_toplevels_changed (GListModel *toplevels,
                      guint       position,
                      guint       removed,
                      guint       added)
{
  for (guint i = position; i < position + added; i++)
    {
      g_autoptr(GObject) window = g_list_model_get_item (toplevels, i);

      if (PD_IS_WINDOW (window))
        g_signal_connect (window, "realize", G_CALLBACK (on_window_realize), NULL);
    }
}

static gboolean
first_frame_drawn (gpointer data)
{
  return current->first_frame_usec != 0;
}

static gboolean
on_tick (GtkWidget     *widget,
         GdkFrameClock *clock,
         gpointer       data)
{
  gint64 now = g_get_monotonic_time ();

  if (current->last_tick_usec != 0)
    {
      double gap = (now - current->last_tick_usec) / 1000.0;

      g_array_append_val (current->gaps_ms, gap);
    }
  current->last_tick_usec = now;

  return G_SOURCE_CONTINUE;
}

static gboolean
all_listed (gpointer data)
{
  return n_listed (GTK_WIDGET (data)) >= current->n_sessions;
}

typedef struct
{
  GtkWidget *window;
  guint      before;
} Progress;

/* More sessions listed than before, or all of them. */
static gboolean
listed_more (gpointer data)
{
  Progress *progress = data;

  return all_listed (progress->window) || n_listed (progress->window) > progress->before;
}

static gboolean
baseline_over (gpointer data)
{
  return g_get_monotonic_time () >= *(gint64 *) data;
}

static void
on_window (PdApplication *app,
           PdWindow      *window,
           gpointer       user_data)
{
  pd_test_wait_until (first_frame_drawn, window, "the first frame with the first page");

  /* Frames keep coming while the rest of the list arrives: a tick callback
   * asks for one every refresh, and the gaps between two are how long the
   * window could not draw.  The empty database's window, ticking for
   * BASELINE_GAP_SECONDS, is the baseline of what the machine allows. */
  {
    guint tick = gtk_widget_add_tick_callback (GTK_WIDGET (window), on_tick, NULL, NULL);

    if (current->n_sessions > 0)
      {
        /* A big list takes longer than one wait's bound: a hang is no
         * progress within it. */
        while (!all_listed (GTK_WIDGET (window)))
          {
            Progress progress = { GTK_WIDGET (window), n_listed (GTK_WIDGET (window)) };

            pd_test_wait_until (listed_more, &progress, "more of the list");
          }
        current->all_listed_usec = g_get_monotonic_time ();
      }
    else
      {
        gint64 until = g_get_monotonic_time () + BASELINE_GAP_SECONDS * G_USEC_PER_SEC;

        pd_test_wait_until (baseline_over, &until, "the baseline's frames");
      }
    gtk_widget_remove_tick_callback (GTK_WIDGET (window), tick);
  }

  /* The newest session is selected; its Now workspace polls while idle. */
  if (current->measure_idle)
    current->idle_cpu_percent = idle_share (IDLE_SECONDS);
}

static void
start_app (Start      *start,
           const char *path)
{
  const char *args[] = { "--db", path, NULL };

  current = start;
  start->gaps_ms = g_array_new (FALSE, FALSE, sizeof (double));
  start->started_usec = g_get_monotonic_time ();
  CALLGRIND_ZERO_STATS;
  CALLGRIND_START_INSTRUMENTATION;
  pd_test_run_app (args, on_window, NULL, NULL);
  current = NULL;
}

/* The @percent percentile of @gaps (sorted in place), 0 when empty. */
static double
percentile (GArray *gaps,
            double  percent)
{
  if (gaps->len == 0)
    return 0;

  g_array_sort (gaps, (GCompareFunc) compare_doubles);
  return g_array_index (gaps, double, MIN (gaps->len - 1, (guint) (gaps->len * percent / 100.0)));
}

static char *
task_of (guint i)
{
  return g_strdup_printf ("Session %05u: fix the parser in module %u", i, i % 97);
}

/* Writes @n sessions into @path, or keeps what a previous run wrote there. */
static void
make_database (const char *path,
               guint       n)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (path, PD_DB_CREATE, &error);
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdPlanStore) plan = pd_plan_store_new (12, 2000);
  g_autoptr(PdPlanState) state = NULL;
  g_autoptr(GPtrArray) first = NULL;
  g_autofree char *created = NULL;
  gint64 start = g_get_monotonic_time ();
  guint total = 0;

  g_assert_no_error (error);
  store = pd_session_store_new (db);
  first = pd_session_store_list (store, NULL, FALSE, 0, 1, &total, &error);
  g_assert_no_error (error);
  if (total == n)
    return;
  g_assert_cmpuint (total, ==, 0);

  /* A benchmark's database: losing it to a power cut costs nothing. */
  g_assert_true (pd_db_exec (db, "PRAGMA synchronous=OFF", &error));
  created = pd_plan_store_execute (plan, "{\"verb\":\"create\",\"steps\":[\"Read\",\"Change\",\"Verify\"]}", &error);
  g_assert_no_error (error);
  state = pd_plan_store_snapshot (plan);

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *task = task_of (i);
      g_autoptr(PdSessionInfo) info = pd_session_store_create (store, task, "m", "replay", "plandeck", "/tmp", &error);
      g_autoptr(JsonArray) messages = json_array_new ();
      JsonObject *user = json_object_new ();
      PdTurn turn = { 0 };

      g_assert_no_error (error);
      json_object_set_string_member (user, "role", "user");
      json_object_set_string_member (user, "content", task);
      json_array_add_object_element (messages, user);
      turn.session_id = info->id;
      turn.messages = messages;
      turn.plan = state;
      turn.count_turn = TRUE;
      turn.status = PD_SESSION_STATUS_IDLE;
      g_assert_true (pd_session_store_save_turn (store, &turn, &error));
    }

  printf ("  database: %u sessions written in %.1f s\n", n, (g_get_monotonic_time () - start) / 1e6);
}

static void
remove_database (const char *path)
{
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autofree char *shm = g_strconcat (path, "-shm", NULL);

  g_unlink (path);
  g_unlink (wal);
  g_unlink (shm);
}

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static double
median (double *values,
        guint   n)
{
  qsort (values, n, sizeof (double), compare_doubles);
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

int
main (int   argc,
      char *argv[])
{
  const char *keep_dir = g_getenv ("PD_BENCH_UI_DIR");
  g_autofree char *dir = NULL;
  g_autofree char *empty = NULL;
  char *paths[MAX_SIZES] = { NULL };
  guint sizes[MAX_SIZES] = { 10000, 100000 };
  guint n_sizes = 2;
  guint rounds = 5;
  g_autofree double *first_ms = NULL;    /* [round][0 = empty, 1 + size] */
  g_autofree double *all_ms = NULL;
  g_autofree double *gap_p99 = NULL;   /* [round][size] */
  g_autofree double *gap_max = NULL;
  g_autofree double *base_p99 = NULL;  /* [round] */
  g_autofree double *base_max = NULL;
  double baseline_idle;
  double idle_percent = 0;
  gulong handler;

  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  if (argc > 1)
    rounds = MAX (1, (guint) g_ascii_strtoull (argv[1], NULL, 10));
  if (argc > 2)
    {
      n_sizes = MIN ((guint) argc - 2, MAX_SIZES);
      for (guint s = 0; s < n_sizes; s++)
        sizes[s] = MAX (1, (guint) g_ascii_strtoull (argv[2 + s], NULL, 10));
    }

  printf ("First frame and idle cost of the app, %u rounds\n", rounds);
  if (keep_dir != NULL)
    {
      g_mkdir_with_parents (keep_dir, 0700);
      dir = g_strdup (keep_dir);
    }
  else
    dir = pd_test_make_tmp_dir ();

  empty = g_build_filename (dir, "empty.db", NULL);
  remove_database (empty);
  make_database (empty, 0);
  for (guint s = 0; s < n_sizes; s++)
    {
      g_autofree char *name = g_strdup_printf ("sessions-%u.db", sizes[s]);

      paths[s] = g_build_filename (dir, name, NULL);
      make_database (paths[s], sizes[s]);
    }

  /* Baseline in the same run: an empty window, idle. */
  {
    GtkWidget *window = gtk_window_new ();

    gtk_window_present (GTK_WINDOW (window));
    baseline_idle = idle_share (IDLE_SECONDS / 2);
    gtk_window_destroy (GTK_WINDOW (window));
  }

  handler = g_signal_connect (gtk_window_get_toplevels (), "items-changed",
                              G_CALLBACK (on_toplevels_changed), NULL);

  first_ms = g_new0 (double, rounds * (n_sizes + 1));
  all_ms = g_new0 (double, rounds * n_sizes);
  gap_p99 = g_new0 (double, rounds * n_sizes);
  gap_max = g_new0 (double, rounds * n_sizes);
  base_p99 = g_new0 (double, rounds);
  base_max = g_new0 (double, rounds);

  /* Each round starts the app on every database in turn, so a burst of
   * load on the machine lands on all of them alike. */
  for (guint r = 0; r < rounds; r++)
    {
      Start baseline = { 0 };

      start_app (&baseline, empty);
      first_ms[r * (n_sizes + 1)] = (baseline.first_frame_usec - baseline.started_usec) / 1000.0;
      base_p99[r] = percentile (baseline.gaps_ms, 99);
      base_max[r] = percentile (baseline.gaps_ms, 100);
      g_array_unref (baseline.gaps_ms);

      for (guint s = 0; s < n_sizes; s++)
        {
          Start start = { 0 };

          start.n_sessions = sizes[s];
          start.newest_task = task_of (sizes[s] - 1);
          start.measure_idle = r == 0 && s == 0;
          start_app (&start, paths[s]);
          first_ms[r * (n_sizes + 1) + 1 + s] = (start.first_frame_usec - start.started_usec) / 1000.0;
          all_ms[r * n_sizes + s] = (start.all_listed_usec - start.started_usec) / 1000.0;
          gap_p99[r * n_sizes + s] = percentile (start.gaps_ms, 99);
          gap_max[r * n_sizes + s] = percentile (start.gaps_ms, 100);
          g_array_unref (start.gaps_ms);
          if (start.measure_idle)
            idle_percent = start.idle_cpu_percent;
          g_free (start.newest_task);
        }
    }

  g_signal_handler_disconnect (gtk_window_get_toplevels (), handler);

  {
    g_autofree double *column = g_new (double, rounds);
    double empty_median;

    for (guint r = 0; r < rounds; r++)
      column[r] = first_ms[r * (n_sizes + 1)];
    empty_median = median (column, rounds);
    printf ("  baseline: startup to the first frame, empty database: %.0f ms (median of %u)\n",
            empty_median, rounds);
    for (guint r = 0; r < rounds; r++)
      column[r] = base_p99[r];
    printf ("  baseline: time between frames of the empty database's window over %u s:"
            " p99 %.0f ms,", BASELINE_GAP_SECONDS, median (column, rounds));
    for (guint r = 0; r < rounds; r++)
      column[r] = base_max[r];
    printf (" longest %.0f ms (medians)\n", median (column, rounds));

    for (guint s = 0; s < n_sizes; s++)
      {
        double first, all, p99, longest;

        for (guint r = 0; r < rounds; r++)
          column[r] = first_ms[r * (n_sizes + 1) + 1 + s];
        first = median (column, rounds);
        for (guint r = 0; r < rounds; r++)
          column[r] = all_ms[r * n_sizes + s];
        all = median (column, rounds);
        for (guint r = 0; r < rounds; r++)
          column[r] = gap_p99[r * n_sizes + s];
        p99 = median (column, rounds);
        for (guint r = 0; r < rounds; r++)
          column[r] = gap_max[r * n_sizes + s];
        longest = median (column, rounds);

        printf ("  %u sessions: first frame with the first page %.0f ms = %.2f × the empty database's"
                "   (goal ≤ 1.15 ×)\n", sizes[s], first, first / empty_median);
        printf ("  %u sessions: the whole list after %.0f ms; time between frames meanwhile"
                " p99 %.0f ms, longest %.0f ms (medians)\n", sizes[s], all, p99, longest);
      }
  }

  printf ("  idle, Now workspace of an idle session visible (%u sessions): %.2f %% of one core   (goal < 1 %%)\n",
          sizes[0], idle_percent);
  printf ("  baseline, an empty window idle:                 %.2f %% of one core\n", baseline_idle);

  remove_database (empty);
  if (keep_dir == NULL)
    {
      for (guint s = 0; s < n_sizes; s++)
        remove_database (paths[s]);
      g_rmdir (dir);
    }
  for (guint s = 0; s < n_sizes; s++)
    g_free (paths[s]);

  return 0;
}
