/* bench-events-follow.c: the window's memory while its Events page follows a long run.
 *
 * A writer process (this program with --writer) commits N events (100 000
 * unless told) to one session of a real database, a thousand at a time
 * with a pause of 20 ms between, as a run of hours writes them: tool calls
 * started and completed with their call ids, arguments' paths and
 * durations, and a plan update every tenth.  This process shows the
 * session's Events page (a real PdEventsView in a window, through a
 * PdLocalSource: its push is the file monitor on the database and its WAL,
 * every fallback poll at its longest; with --remote, through a
 * PdRemoteSource on a real `plandeck-agent serve` of that database, its
 * push the event stream) and follows the newest.  Each time
 * the page has read another tenth of the events it prints the heap in use
 * (mallinfo2: arena and mmapped blocks), VmRSS and the rows listed; at the
 * end VmHWM and the wall time.  It prints figures and asserts nothing.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <adwaita.h>
#include <glib/gstdio.h>

#include "pd-db.h"
#include "pd-event.h"
#include "pd-events-view.h"
#include "pd-local-source.h"
#include "pd-remote-source.h"
#include "pd-session-store.h"

#define BATCH      1000u
#define PAUSE_MS   20u

static PdSessionStore *
open_store (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (path, PD_DB_CREATE, &error);

  if (db == NULL)
    g_error ("cannot open %s: %s", path, error->message);
  return pd_session_store_new (db);
}

/* --- the writer ------------------------------------------------------------------ */

static void
add_event (PdSessionStore *store,
           const char     *id,
           guint           i)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdEvent) event = NULL;
  g_autofree char *text = NULL;
  JsonObject *data = json_object_new ();
  const char *type;

  if (i % 10 == 9)
    {
      type = PD_EVENT_PLAN_UPDATED;
      json_object_set_int_member (data, "version", i / 10 + 1);
      json_object_set_int_member (data, "steps", 12);
      json_object_set_int_member (data, "done", (i / 10) % 12);
      json_object_set_int_member (data, "blocked", 0);
    }
  else
    {
      g_autofree char *call = g_strdup_printf ("call_%u", i / 2);
      g_autofree char *path = g_strdup_printf ("src/module_%u/file_%u.c", i % 97, i % 1013);

      type = i % 2 == 0 ? PD_EVENT_TOOL_CALL_STARTED : PD_EVENT_TOOL_CALL_COMPLETED;
      json_object_set_string_member (data, "call_id", call);
      json_object_set_string_member (data, "path", path);
      if (i % 2 == 1)
        {
          json_object_set_int_member (data, "duration_ms", 20 + i % 900);
          json_object_set_int_member (data, "result_bytes", 512 + i % 8192);
        }
    }
  event = pd_event_new_full (type, "run-1", id, i / 20 + 1, i % 10 == 9 ? NULL : "read_file", data);
  text = pd_event_to_json (event);
  if (pd_session_store_add_event (store, id, "run-1", type, pd_event_get_timestamp (event), text, &error) <= 0)
    g_error ("cannot add an event: %s", error->message);
}

static int
run_writer (const char *path,
            const char *id,
            guint       count)
{
  g_autoptr(PdSessionStore) store = open_store (path);

  for (guint i = 0; i < count; i++)
    {
      add_event (store, id, i);
      if (i % BATCH == BATCH - 1)
        g_usleep (PAUSE_MS * 1000);
    }
  return 0;
}

/* --- the window ------------------------------------------------------------------ */

static double
status_mb (const char *field)
{
  g_autofree char *text = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &text, NULL, NULL) || (line = strstr (text, field)) == NULL)
    return -1;
  return g_ascii_strtod (line + strlen (field), NULL) / 1024.0;
}

static double
heap_mb (void)
{
  struct mallinfo2 info = mallinfo2 ();

  return (info.uordblks + info.hblkhd) / (1024.0 * 1024.0);
}

static gboolean
wake (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

static void
on_writer_done (GObject      *object,
                GAsyncResult *result,
                gpointer      data)
{
  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  *(gboolean *) data = TRUE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *db_path = NULL;
  g_autofree char *count_text = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(PdLocalSource) local = NULL;
  g_autoptr(PdRemoteSource) remote = NULL;
  g_autoptr(GSubprocess) serve = NULL;
  g_autoptr(GDataInputStream) serve_out = NULL;
  g_autofree char *url = NULL;
  gboolean use_remote = FALSE;
  PdSource *source;
  g_autoptr(GSubprocess) writer = NULL;
  g_autoptr(GSettings) settings = NULL;
  GtkWidget *window;
  GtkWidget *view;
  gboolean writer_done = FALSE;
  guint count = 100000;
  guint next_mark;
  gint64 start;
  gint64 progress_seq = -1;
  gint64 progress_time = 0;

  if (argc == 5 && g_str_equal (argv[1], "--writer"))
    return run_writer (argv[2], argv[3], (guint) atoi (argv[4]));
  for (int i = 1; i < argc; i++)
    if (g_str_equal (argv[i], "--remote"))
      use_remote = TRUE;
    else
      count = (guint) CLAMP (atoi (argv[i]), 1000, 10000000);

  gtk_init ();
  adw_init ();

  /* Every fallback poll at its longest: the page follows the push. */
  settings = g_settings_new (APP_ID);
  g_settings_set_uint (settings, "poll-running-ms", 10000);
  g_settings_set_uint (settings, "poll-idle-ms", 60000);

  dir = g_dir_make_tmp ("pd-bench-events-XXXXXX", &error);
  g_assert_no_error (error);
  db_path = g_build_filename (dir, "sessions.db", NULL);
  store = open_store (db_path);
  info = pd_session_store_create (store, "A run of hours", "bench", "replay", "plandeck", dir, &error);
  g_assert_no_error (error);

  if (use_remote)
    {
      const char *agent = g_getenv ("PLANDECK_AGENT");

      if (agent == NULL)
        {
          printf ("remote skipped: PLANDECK_AGENT names no plandeck-agent\n");
          return 0;
        }
      serve = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error,
                                agent, "serve", "--db", db_path, "--listen", "127.0.0.1:0", "--rate-limit", "0", NULL);
      g_assert_no_error (error);
      serve_out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (serve));
      url = g_data_input_stream_read_line_utf8 (serve_out, NULL, NULL, &error);
      g_assert_no_error (error);
      remote = pd_remote_source_new (url, NULL, &error);
      g_assert_no_error (error);
      pd_remote_source_watch (remote, PD_REMOTE_SOURCE_WATCH_MS);
      source = PD_SOURCE (remote);
    }
  else
    {
      local = pd_local_source_new (db_path, FALSE);
      pd_local_source_watch (local, 60000);
      source = PD_SOURCE (local);
    }
  view = pd_events_view_new ();
  window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_present (GTK_WINDOW (window));
  pd_session_view_set_source (PD_SESSION_VIEW (view), source);
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), info->id);
  pd_events_view_set_live (PD_EVENTS_VIEW (view), TRUE);
  for (guint i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE);

  printf ("The Events page (%s) following %u events another process commits (%u at a time, %u ms apart)\n",
          use_remote ? "remote: serve" : "local", count, BATCH, PAUSE_MS);
  printf ("%10s %12s %10s %8s\n", "events", "heap (MB)", "RSS (MB)", "rows");
  printf ("%10u %12.1f %10.1f %8u\n", 0u, heap_mb (), status_mb ("VmRSS:"),
          g_list_model_get_n_items (pd_events_view_get_model (PD_EVENTS_VIEW (view))));
  fflush (stdout);

  count_text = g_strdup_printf ("%u", count);
  start = g_get_monotonic_time ();
  writer = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, argv[0], "--writer", db_path, info->id,
                             count_text, NULL);
  g_assert_no_error (error);
  g_subprocess_wait_async (writer, NULL, on_writer_done, &writer_done);

  next_mark = count / 10;
  /* The loop wakes at least each second, to notice a stall. */
  g_timeout_add_seconds (1, wake, NULL);
  for (;;)
    {
      gint64 read = pd_events_view_get_last_seq (PD_EVENTS_VIEW (view));

      g_main_context_iteration (NULL, TRUE);
      if (read >= next_mark)
        {
          printf ("%10" G_GINT64_FORMAT " %12.1f %10.1f %8u\n", read, heap_mb (), status_mb ("VmRSS:"),
                  g_list_model_get_n_items (pd_events_view_get_model (PD_EVENTS_VIEW (view))));
          fflush (stdout);
          while (next_mark <= read)
            next_mark += count / 10;
        }
      if (read >= count && writer_done && !pd_session_view_get_busy (PD_SESSION_VIEW (view)))
        break;
      if (read != progress_seq)
        {
          progress_seq = read;
          progress_time = g_get_monotonic_time ();
        }
      else if (writer_done && g_get_monotonic_time () - progress_time > 30 * G_USEC_PER_SEC)
        {
          printf ("stalled: %" G_GINT64_FORMAT " of %u read for 30 s (following %d, reading %d)\n", read, count,
                  pd_events_view_get_following (PD_EVENTS_VIEW (view)),
                  pd_session_view_get_busy (PD_SESSION_VIEW (view)));
          break;
        }
    }
  {
    struct rusage usage;

    getrusage (RUSAGE_SELF, &usage);
    printf ("followed to the newest in %.1f s; VmHWM %.1f MB; the window's process used %.1f CPU s\n",
            (g_get_monotonic_time () - start) / 1e6, status_mb ("VmHWM:"),
            usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6);
  }

  gtk_window_destroy (GTK_WINDOW (window));
  g_clear_object (&local);
  g_clear_object (&remote);
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
