/* bench-live.c: how soon a plan update of another process is drawn.
 *
 * A writer process (this program with --writer) commits plan updates to a
 * session database, one every 120–220 ms, and prints the monotonic time
 * each commit returned.  The window shows that session's Now page, read
 *   local:  through a PdLocalSource (its push: a file monitor on the
 *           database and its WAL), and
 *   remote: through a PdRemoteSource on a real `plandeck-agent serve`
 *           (its push: the event stream, told of other writers' commits),
 * with every fallback poll set to its longest (10 s running, 60 s idle), so
 * only the push can be measured.  For each version the latency runs from
 * the writer's commit to the end of the first frame painted after the Now
 * page showed the new row (CLOCK_MONOTONIC is shared by the processes).
 * Then the CPU of the idle process, both windows open, over 10 s.
 *
 * Goals: median under 100 ms and p95 under 250 ms, local and remote (odek's
 * WebUI polls every 1–3 s); idle under 1 % of a core.  It prints figures and
 * asserts nothing about time.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <adwaita.h>
#include <glib/gstdio.h>

#include "pd-db.h"
#include "pd-local-source.h"
#include "pd-now-view.h"
#include "pd-plan.h"
#include "pd-remote-source.h"
#include "pd-session-store.h"

#define N_UPDATES    60u
#define N_STEPS      5
#define IDLE_SECONDS 10u

/* --- the writer -------------------------------------------------------------- */

static PdPlanState *
plan_for (gint64 version)
{
  PdPlanState *plan = pd_plan_state_new ();

  plan->version = version;
  for (guint i = 0; i < N_STEPS; i++)
    {
      g_autofree char *id = g_strdup_printf ("s%u", i + 1);
      g_autofree char *title = g_strdup_printf ("Step %u of the benchmark", i + 1);
      PdPlanStep *step = pd_plan_step_new (id, title);

      /* Each version moves one step on, round and round. */
      step->status = ((version + i) % 3 == 0) ? PD_PLAN_STEP_DONE
                     : ((version + i) % 3 == 1) ? PD_PLAN_STEP_IN_PROGRESS : PD_PLAN_STEP_PENDING;
      g_ptr_array_add (plan->steps, step);
    }
  return plan;
}

static void
save_version (PdSessionStore *store,
              const char     *id,
              gint64          version)
{
  g_autoptr(PdPlanState) plan = plan_for (version);
  g_autoptr(JsonArray) messages = json_array_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *user = json_object_new ();
  PdTurn turn = { 0 };

  json_object_set_string_member (user, "role", "user");
  json_object_set_string_member (user, "content", "Benchmark the push");
  json_array_add_object_element (messages, user);
  turn.session_id = id;
  turn.messages = messages;
  turn.first_changed = 0;
  turn.plan = plan;
  turn.status = PD_SESSION_STATUS_RUNNING;
  if (!pd_session_store_save_turn (store, &turn, &error))
    g_error ("cannot save: %s", error->message);
}

static PdSessionStore *
open_store (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (path, PD_DB_CREATE, &error);

  if (db == NULL)
    g_error ("cannot open %s: %s", path, error->message);
  return pd_session_store_new (db);
}

static int
run_writer (const char *path,
            const char *id,
            gint64      first,
            guint       count)
{
  g_autoptr(PdSessionStore) store = open_store (path);

  g_usleep (500 * 1000);
  for (guint i = 0; i < count; i++)
    {
      gint64 version = first + i;

      save_version (store, id, version);
      printf ("%" G_GINT64_FORMAT " %" G_GINT64_FORMAT "\n", version, g_get_monotonic_time ());
      fflush (stdout);
      g_usleep ((120 + g_random_int_range (0, 100)) * 1000);
    }
  return 0;
}

/* --- the window ----------------------------------------------------------------- */

typedef struct
{
  const char   *name;
  GtkWindow    *window;
  PdNowView    *view;
  GHashTable   *committed;   /* version → commit time */
  GHashTable   *drawn;       /* version → end of the first paint showing it */
  gint64        pending;     /* version shown, its frame not painted yet */
  gulong        paint_id;
  gboolean      writer_done;
} Run;

static void
on_after_paint (GdkFrameClock *clock,
                Run           *run)
{
  if (run->pending > 0 && !g_hash_table_contains (run->drawn, &run->pending))
    {
      gint64 *key = g_new (gint64, 1);
      gint64 *value = g_new (gint64, 1);

      *key = run->pending;
      *value = g_get_monotonic_time ();
      g_hash_table_insert (run->drawn, key, value);
    }
  run->pending = 0;
}

static void
on_plan_shown (PdNowView *view,
               Run       *run)
{
  const PdPlanState *plan = pd_now_view_get_plan (view);

  if (plan == NULL)
    return;
  run->pending = plan->version;
  gtk_widget_queue_draw (GTK_WIDGET (view));
}

static void
on_writer_line (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Run *run = user_data;
  g_autofree char *line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (object), result, NULL, NULL);
  gint64 version, at;

  if (line == NULL)
    {
      run->writer_done = TRUE;
      return;
    }
  if (sscanf (line, "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT, &version, &at) == 2)
    {
      gint64 *key = g_new (gint64, 1);
      gint64 *value = g_new (gint64, 1);

      *key = version;
      *value = at;
      g_hash_table_insert (run->committed, key, value);
    }
  g_data_input_stream_read_line_async (G_DATA_INPUT_STREAM (object), G_PRIORITY_DEFAULT, NULL, on_writer_line, run);
}

static gboolean
shows_version (PdNowView *view,
               gint64     version)
{
  const PdPlanState *plan = pd_now_view_get_plan (view);

  return plan != NULL && plan->version == version;
}

static void
iterate_until (gboolean (*done) (gpointer),
               gpointer   data,
               guint      seconds)
{
  gint64 deadline = g_get_monotonic_time () + seconds * G_USEC_PER_SEC;

  while (!done (data) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
}

typedef struct
{
  PdNowView *view;
  gint64     version;
} ShowWait;

static gboolean
show_wait_done (gpointer data)
{
  ShowWait *wait = data;

  return shows_version (wait->view, wait->version);
}

/* Over once the writer's newest version is drawn: one merged into a later
 * one is never drawn itself, and waiting for it ran the 120 s out. */
static gboolean
run_done (gpointer data)
{
  Run *run = data;
  GHashTableIter iter;
  gpointer key;
  gint64 newest = 0;

  if (!run->writer_done || run->pending != 0)
    return FALSE;
  g_hash_table_iter_init (&iter, run->committed);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    newest = MAX (newest, *(gint64 *) key);
  return newest > 0 && g_hash_table_contains (run->drawn, &newest);
}

static int
compare_gint64 (gconstpointer a,
                gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

static void
report (Run *run)
{
  g_autoptr(GArray) latencies = g_array_new (FALSE, FALSE, sizeof (gint64));
  GHashTableIter iter;
  gpointer key, value;
  guint missed = 0;

  g_hash_table_iter_init (&iter, run->committed);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      gint64 *drawn = g_hash_table_lookup (run->drawn, key);

      if (drawn == NULL)
        {
          /* Overtaken: a newer version was drawn first (merged reloads). */
          missed++;
          continue;
        }
      g_array_append_val (latencies, (gint64) { *drawn - *(gint64 *) value });
    }
  g_array_sort (latencies, compare_gint64);

  if (latencies->len == 0)
    {
      printf ("%-6s  no version was drawn\n", run->name);
      return;
    }
  printf ("%-6s  %u updates drawn (%u merged into a later one): median %.1f ms, p95 %.1f ms, max %.1f ms\n",
          run->name, latencies->len, missed,
          g_array_index (latencies, gint64, latencies->len / 2) / 1000.0,
          g_array_index (latencies, gint64, MIN (latencies->len - 1, (latencies->len * 95) / 100)) / 1000.0,
          g_array_index (latencies, gint64, latencies->len - 1) / 1000.0);
}

static void
measure (Run        *run,
         PdSource   *source,
         const char *self_path,
         const char *db_path,
         const char *id,
         gint64      first)
{
  g_autofree char *first_text = g_strdup_printf ("%" G_GINT64_FORMAT, first);
  g_autofree char *count_text = g_strdup_printf ("%u", N_UPDATES);
  g_autoptr(GSubprocess) writer = NULL;
  g_autoptr(GDataInputStream) lines = NULL;
  g_autoptr(GError) error = NULL;
  ShowWait wait = { NULL, first - 1 };
  GdkFrameClock *clock;

  run->committed = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  run->drawn = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  run->window = GTK_WINDOW (gtk_window_new ());
  gtk_window_set_default_size (run->window, 800, 500);
  run->view = PD_NOW_VIEW (pd_now_view_new ());
  gtk_window_set_child (run->window, GTK_WIDGET (run->view));
  gtk_window_present (run->window);
  pd_session_view_set_source (PD_SESSION_VIEW (run->view), source);
  pd_session_view_set_session_id (PD_SESSION_VIEW (run->view), id);
  wait.view = run->view;
  iterate_until (show_wait_done, &wait, 30);
  if (!shows_version (run->view, first - 1))
    g_error ("%s: the Now page did not show the first plan", run->name);

  g_signal_connect (run->view, "plan-shown", G_CALLBACK (on_plan_shown), run);
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (run->view));
  run->paint_id = g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), run);

  writer = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, self_path, "--writer", db_path, id,
                             first_text, count_text, NULL);
  if (writer == NULL)
    g_error ("cannot start the writer: %s", error->message);
  lines = g_data_input_stream_new (g_subprocess_get_stdout_pipe (writer));
  g_data_input_stream_read_line_async (lines, G_PRIORITY_DEFAULT, NULL, on_writer_line, run);
  iterate_until (run_done, run, 120);
  g_subprocess_wait (writer, NULL, NULL);
  report (run);
}

static double
cpu_seconds (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 +
         usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static gboolean
never (gpointer data)
{
  return FALSE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *db_path = NULL;
  g_autofree char *url = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(PdLocalSource) local = NULL;
  g_autoptr(PdRemoteSource) remote = NULL;
  g_autoptr(GSubprocess) serve = NULL;
  g_autoptr(GDataInputStream) serve_out = NULL;
  g_autoptr(GSettings) settings = NULL;
  Run local_run = { "local" };
  Run remote_run = { "remote" };
  const char *agent = g_getenv ("PLANDECK_AGENT");
  double before;

  if (argc == 6 && g_str_equal (argv[1], "--writer"))
    return run_writer (argv[2], argv[3], g_ascii_strtoll (argv[4], NULL, 10), atoi (argv[5]));

  gtk_init ();
  adw_init ();

  /* Every fallback poll at its longest: what is measured is the push. */
  settings = g_settings_new (APP_ID);
  g_settings_set_uint (settings, "poll-running-ms", 10000);
  g_settings_set_uint (settings, "poll-idle-ms", 60000);

  dir = g_dir_make_tmp ("pd-bench-live-XXXXXX", &error);
  g_assert_no_error (error);
  db_path = g_build_filename (dir, "sessions.db", NULL);
  store = open_store (db_path);
  info = pd_session_store_create (store, "Benchmark the push", "bench", "replay", "plandeck", dir, &error);
  g_assert_no_error (error);
  save_version (store, info->id, 1);

  printf ("From a plan update another process commits to its row drawn on the Now page\n");
  printf ("(%u updates each, 120-220 ms apart; fallback polls at 10 s / 60 s)\n", N_UPDATES);

  local = pd_local_source_new (db_path, FALSE);
  pd_local_source_watch (local, 60000);
  measure (&local_run, PD_SOURCE (local), argv[0], db_path, info->id, 2);

  if (agent == NULL)
    printf ("remote  skipped: PLANDECK_AGENT names no plandeck-agent\n");
  else
    {
      serve = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error,
                                agent, "serve", "--db", db_path, "--listen", "127.0.0.1:0", "--rate-limit", "0", NULL);
      g_assert_no_error (error);
      serve_out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (serve));
      url = g_data_input_stream_read_line_utf8 (serve_out, NULL, NULL, &error);
      g_assert_no_error (error);
      remote = pd_remote_source_new (url, NULL, &error);
      g_assert_no_error (error);
      pd_remote_source_watch (remote, PD_REMOTE_SOURCE_WATCH_MS);
      measure (&remote_run, PD_SOURCE (remote), argv[0], db_path, info->id, 2 + N_UPDATES);
    }

  /* Idle: both windows open, nothing written. */
  before = cpu_seconds ();
  iterate_until (never, NULL, IDLE_SECONDS);
  printf ("idle    %.2f %% of one core over %u s, both windows open\n",
          (cpu_seconds () - before) * 100.0 / IDLE_SECONDS, IDLE_SECONDS);

  if (serve != NULL)
    {
      g_subprocess_force_exit (serve);
      g_subprocess_wait (serve, NULL, NULL);
    }
  for (guint i = 0; i < 3; i++)
    {
      const char *suffix[] = { "", "-wal", "-shm" };
      g_autofree char *file = g_strconcat (db_path, suffix[i], NULL);

      g_unlink (file);
    }
  g_rmdir (dir);
  return 0;
}
