/* bench-ui.c: the app's startup and idle cost on a large database.
 *
 * Prints, on a database of 10,000 sessions: the time from starting the
 * application to the first frame of a window whose session list shows its
 * first page; and the CPU the process uses while the Now workspace of an
 * idle session is visible, beside an empty window idling in the same run.
 * Goals: first frame under 500 ms; idle under 1 % of one core.  It prints
 * figures and asserts nothing about time.
 */
#include "config.h"

#include <stdio.h>
#include <sys/resource.h>

#include <glib/gstdio.h>

#include "pd-db.h"
#include "pd-plan.h"
#include "pd-session-store.h"
#include "pd-test-ui.h"

#ifndef N_SESSIONS
#define N_SESSIONS 10000u
#endif
#define IDLE_SECONDS 10u

static gint64 started_usec;
static gint64 first_frame_usec;
static double idle_cpu_percent;
static char *newest_task;

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
  return (GTK_IS_INSCRIPTION (widget) && g_strcmp0 (gtk_inscription_get_text (GTK_INSCRIPTION (widget)), data) == 0) ||
         (GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), data) == 0);
}

static GtkWidget *
find_text (GtkWidget  *root,
           const char *text)
{
  return pd_test_find_first (root, shows_text, text);
}

/* The list has loaded its first page and selected the newest session:
 * its title is in the window. */
static gboolean
first_page_shown (gpointer data)
{
  return find_text (GTK_WIDGET (data), newest_task) != NULL;
}

static gint64 empty_frame_usec;

static gboolean
empty_state_shown (gpointer data)
{
  GtkWidget *label = find_text (GTK_WIDGET (data), "No sessions yet");

  return label != NULL && gtk_widget_get_mapped (label);
}

static void
on_empty_window (PdApplication *app,
                 PdWindow      *window,
                 gpointer       user_data)
{
  pd_test_wait_until (empty_state_shown, window, 30000, "the empty state");
  pd_test_flush (GTK_WIDGET (window));
  empty_frame_usec = g_get_monotonic_time ();
}

static void
on_window (PdApplication *app,
           PdWindow      *window,
           gpointer       user_data)
{
  pd_test_wait_until (first_page_shown, window, 30000, "the first page of sessions");
  /* …and the frame that shows it. */
  pd_test_flush (GTK_WIDGET (window));
  first_frame_usec = g_get_monotonic_time ();

  /* The newest session is selected; its Now workspace polls while idle. */
  idle_cpu_percent = idle_share (IDLE_SECONDS);
}

static char *
make_database (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "sessions.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (path, PD_DB_CREATE, &error);
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdPlanStore) plan = pd_plan_store_new (12, 2000);
  g_autoptr(PdPlanState) state = NULL;
  g_autofree char *created = NULL;
  gint64 start = g_get_monotonic_time ();

  g_assert_no_error (error);
  store = pd_session_store_new (db);
  created = pd_plan_store_execute (plan, "{\"verb\":\"create\",\"steps\":[\"Read\",\"Change\",\"Verify\"]}", &error);
  g_assert_no_error (error);
  state = pd_plan_store_snapshot (plan);

  for (guint i = 0; i < N_SESSIONS; i++)
    {
      g_autofree char *task = g_strdup_printf ("Session %05u: fix the parser in module %u", i, i % 97);
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
      if (i == N_SESSIONS - 1)
        newest_task = g_strdup (task);
    }

  printf ("  database: %u sessions written in %.1f s\n", N_SESSIONS,
          (g_get_monotonic_time () - start) / 1e6);
  return g_steal_pointer (&path);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  double baseline;

  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  printf ("Startup and idle cost of the app\n");
  dir = pd_test_make_tmp_dir ();
  path = make_database (dir);

  /* Baseline in the same run: an empty window, idle. */
  {
    GtkWidget *window = gtk_window_new ();

    gtk_window_present (GTK_WINDOW (window));
    baseline = idle_share (IDLE_SECONDS / 2);
    gtk_window_destroy (GTK_WINDOW (window));
  }

  /* Baseline in the same run: the app on an empty database. */
  {
    g_autofree char *empty = g_build_filename (dir, "empty.db", NULL);
    g_autoptr(PdDb) db = pd_db_open (empty, PD_DB_CREATE, NULL);
    const char *args[] = { "--db", empty, NULL };
    gint64 start = g_get_monotonic_time ();

    pd_test_run_app (args, on_empty_window, NULL, NULL);
    printf ("  baseline: startup to the first frame, empty database: %.0f ms\n",
            (empty_frame_usec - start) / 1000.0);
    g_clear_object (&db);
    {
      g_autofree char *wal = g_strconcat (empty, "-wal", NULL);
      g_autofree char *shm = g_strconcat (empty, "-shm", NULL);
      g_unlink (empty);
      g_unlink (wal);
      g_unlink (shm);
    }
  }

  {
    const char *args[] = { "--db", path, NULL };

    started_usec = g_get_monotonic_time ();
    pd_test_run_app (args, on_window, NULL, NULL);
  }

  printf ("  startup to the first frame with the first page: %.0f ms   (goal < 500 ms)\n",
          (first_frame_usec - started_usec) / 1000.0);
  printf ("  idle, Now workspace of an idle session visible: %.2f %% of one core   (goal < 1 %%)\n",
          idle_cpu_percent);
  printf ("  baseline, an empty window idle:                 %.2f %% of one core\n", baseline);

  {
    g_autofree char *wal = g_strconcat (path, "-wal", NULL);
    g_autofree char *shm = g_strconcat (path, "-shm", NULL);
    g_unlink (path);
    g_unlink (wal);
    g_unlink (shm);
    g_rmdir (dir);
  }
  g_free (newest_task);

  return 0;
}
