/* bench-now.c: the Now page of a large plan, on the main thread
 *
 * Usage: bench-now [ROUNDS]   (default: 3 rounds)
 *
 * A PdNowView in a real window (1280 × 800) reads plans through a
 * PdLocalSource from a real database.  For a plan of 50 steps, of 500
 * steps, of 500 steps with long texts (titles of 2 KB, notes of 8 KB, four
 * checks: 5 MB in all, under the plan reply's 6 MiB bound) and for a shown
 * page of 50 steps that grows to 200 in a new version, it prints:
 *
 *   first frame  the main thread's CPU from asking for the plan (or the
 *                new version) to the end of the first frame that shows it
 *   settled      the main thread's CPU from asking to 2 s after that frame:
 *                whatever work the page leaves for later is counted too
 *   longest      the most CPU the main thread spent without coming back to
 *                its loop (between two turns of a high-priority 1 ms
 *                timer): what a person feels as the window not answering
 *   (wall)       the same timer's largest gap in time, which on a loaded
 *                machine also counts the time the thread waited for a core
 *
 * each the median of ROUNDS.  The main thread's CPU is its own
 * (CLOCK_THREAD_CPUTIME_ID): the plan is read and parsed elsewhere.  Compare the
 * figures with a frame (16.7 ms at 60 Hz); tests/README.md has them
 * before and after the rows were made lazily.  It prints figures and
 * asserts nothing about time.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pd-local-source.h"
#include "pd-now-view-private.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

#define SETTLE_MS 2000u
#define N_CASES   4u

typedef struct
{
  PdNowView *view;
  gboolean   shown;            /* plan-shown seen since the start */
  double     start_cpu;
  double     first_frame_cpu;  /* < 0 until drawn */
  gint64     last_beat_usec;
  gint64     longest_usec;
  double     last_beat_cpu;
  double     longest_cpu;
  guint      beat_id;
} Measure;

static double
thread_cpu_seconds (void)
{
  struct timespec now;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec + now.tv_nsec / 1e9;
}

static gboolean
on_beat (gpointer data)
{
  Measure *m = data;
  gint64 now = g_get_monotonic_time ();
  double cpu = thread_cpu_seconds ();

  m->longest_usec = MAX (m->longest_usec, now - m->last_beat_usec);
  m->last_beat_usec = now;
  m->longest_cpu = MAX (m->longest_cpu, cpu - m->last_beat_cpu);
  m->last_beat_cpu = cpu;
  return G_SOURCE_CONTINUE;
}

static void
on_plan_shown (PdNowView *view,
               Measure   *m)
{
  m->shown = TRUE;
}

static void
on_after_paint (GdkFrameClock *clock,
                Measure       *m)
{
  if (m->shown && m->first_frame_cpu < 0)
    m->first_frame_cpu = thread_cpu_seconds ();
}

static gboolean
first_frame_drawn (gpointer data)
{
  return ((Measure *) data)->first_frame_cpu >= 0;
}

static void
measure_start (Measure *m)
{
  m->shown = FALSE;
  m->first_frame_cpu = -1;
  m->longest_usec = 0;
  m->longest_cpu = 0;
  m->last_beat_usec = g_get_monotonic_time ();
  m->beat_id = g_timeout_add_full (G_PRIORITY_HIGH, 1, on_beat, m, NULL);
  m->start_cpu = m->last_beat_cpu = thread_cpu_seconds ();
}

/* Waits for the first frame, then SETTLE_MS; @figures gets first frame,
 * settled, longest and its wall time, in ms. */
static void
measure_finish (Measure *m,
                double   figures[4])
{
  g_assert_true (pd_test_wait_for (first_frame_drawn, m));
  pd_test_spin (SETTLE_MS);
  figures[0] = (m->first_frame_cpu - m->start_cpu) * 1000;
  figures[1] = (thread_cpu_seconds () - m->start_cpu) * 1000;
  figures[2] = m->longest_cpu * 1000;
  figures[3] = m->longest_usec / 1000.0;
  g_source_remove (m->beat_id);
}

static char *
long_text (const char *what,
           guint       n,
           gsize       bytes)
{
  GString *text = g_string_sized_new (bytes + 64);

  while (text->len < bytes)
    g_string_append_printf (text, "%s %u: the export writes each session as JSON lines, one event a line; ",
                            what, n);
  g_string_truncate (text, bytes);
  return g_string_free (text, FALSE);
}

static PdPlanState *
make_plan (gint64   version,
           guint    n_steps,
           gboolean long_texts)
{
  PdPlanState *plan = pd_plan_state_new ();

  plan->version = version;
  for (guint i = 0; i < n_steps; i++)
    {
      g_autofree char *id = g_strdup_printf ("s%u", i + 1);
      g_autofree char *title = long_texts ? long_text ("Title", i, 2048)
                                          : g_strdup_printf ("Port the settings of part %u to GKeyFile", i + 1);
      g_autofree char *note = long_texts ? long_text ("Note", i, 8192)
                                         : g_strdup_printf ("Part %u reads its old file once", i + 1);
      PdPlanStep *step = pd_test_step (id, title, i % 4, note);

      for (guint c = 0; c < 4; c++)
        {
          g_autofree char *check_id = g_strdup_printf ("c%u", c + 1);
          g_autofree char *description = long_texts ? long_text ("Check", c, 150)
                                                    : g_strdup_printf ("check %u passes", c + 1);

          pd_test_step_add_check (step, check_id, description, "shell",
                                  "{\"command\":\"meson test -C _build\"}", c % 4);
        }
      g_ptr_array_add (plan->steps, step);
    }
  return plan;
}

static gboolean
page_empty (gpointer data)
{
  return g_list_model_get_n_items (_pd_now_view_get_rows (data)) == 0;
}

static int
compare_doubles (const void *a,
                 const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
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
  guint rounds = argc > 1 ? (guint) atoi (argv[1]) : 3;
  const char *names[] = { "50 steps", "500 steps", "500 steps, long texts", "50 → 200 steps, shown" };
  double (*figures)[N_CASES][4];
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdSource) source = NULL;
  g_autofree char *ids[N_CASES] = { NULL };
  g_autoptr(PdPlanState) grown = NULL;
  GtkWindow *window;
  Measure m = { 0 };

  gtk_init ();
  adw_init ();
  rounds = MAX (rounds, 1);
  figures = g_malloc0_n (rounds, sizeof *figures);

  dir = pd_test_make_tmp_dir ();
  path = g_build_filename (dir, "sessions.db", NULL);
  store = pd_test_open_store (path);
  for (guint c = 0; c < N_CASES; c++)
    {
      g_autoptr(PdPlanState) plan = make_plan (1, c == 0 || c == 3 ? 50 : 500, c == 2);

      ids[c] = pd_test_add_session (store, names[c], "plandeck");
      pd_test_save_plan (store, ids[c], plan, PD_SESSION_STATUS_IDLE);
    }
  grown = make_plan (2, 200, FALSE);

  source = PD_SOURCE (pd_local_source_new (path, FALSE));
  m.view = PD_NOW_VIEW (pd_now_view_new ());
  g_signal_connect (m.view, "plan-shown", G_CALLBACK (on_plan_shown), &m);
  window = pd_test_present (GTK_WIDGET (m.view), 1280, 800);
  g_signal_connect (gtk_widget_get_frame_clock (GTK_WIDGET (window)), "after-paint",
                    G_CALLBACK (on_after_paint), &m);
  pd_session_view_set_source (PD_SESSION_VIEW (m.view), source);

  for (guint r = 0; r < rounds; r++)
    for (guint c = 0; c < N_CASES; c++)
      {
        pd_session_view_set_session_id (PD_SESSION_VIEW (m.view), NULL);
        pd_test_wait_for (page_empty, m.view);
        pd_test_spin (300);
        if (c == 3)
          {
            g_autoptr(PdPlanState) first = make_plan (1 + 2 * r, 50, FALSE);

            /* Each round a new version of 50 steps, then one of 200. */
            pd_test_save_plan (store, ids[c], first, PD_SESSION_STATUS_IDLE);
            measure_start (&m);
            pd_session_view_set_session_id (PD_SESSION_VIEW (m.view), ids[c]);
            measure_finish (&m, figures[r][c]);
            grown->version = 2 + 2 * r;
            pd_test_save_plan (store, ids[c], grown, PD_SESSION_STATUS_IDLE);
            measure_start (&m);
            pd_now_view_refresh (m.view);
          }
        else
          {
            measure_start (&m);
            pd_session_view_set_session_id (PD_SESSION_VIEW (m.view), ids[c]);
          }
        measure_finish (&m, figures[r][c]);
        g_printerr ("round %u, %s: %.0f ms to the first frame, %.0f ms settled, longest %.0f ms (%.0f ms wall)\n",
                    r + 1, names[c], figures[r][c][0], figures[r][c][1], figures[r][c][2], figures[r][c][3]);
      }

  printf ("Now page, main-thread CPU (median of %u rounds; a frame is 16.7 ms):\n", rounds);
  printf ("  %-24s %12s %12s %12s %12s\n", "", "first frame", "settled", "longest", "(wall)");
  for (guint c = 0; c < N_CASES; c++)
    {
      g_autofree double *column = g_new (double, 4 * rounds);

      for (guint k = 0; k < 4; k++)
        for (guint r = 0; r < rounds; r++)
          column[k * rounds + r] = figures[r][c][k];
      printf ("  %-24s %9.0f ms %9.0f ms %9.0f ms %9.0f ms\n", names[c], median (column, rounds),
              median (column + rounds, rounds), median (column + 2 * rounds, rounds),
              median (column + 3 * rounds, rounds));
    }

  pd_session_view_set_session_id (PD_SESSION_VIEW (m.view), NULL);
  gtk_window_destroy (window);
  g_free (figures);
  return 0;
}
