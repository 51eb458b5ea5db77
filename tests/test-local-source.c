/* test-local-source.c: PdLocalSource on a real database file, through the
 * asynchronous PdSource calls a widget makes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "pd-engine.h"
#include "pd-import-index.h"
#include "pd-local-source.h"
#include "pd-plan.h"
#include "pd-test-valgrind.h"

typedef struct
{
  char           *dir;
  char           *path;
  PdSessionStore *store;     /* a second connection, like a CLI run */
  char           *id;
} Fixture;

static void
got_result (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  GAsyncResult **out = user_data;
  *out = g_object_ref (result);
}

static GAsyncResult *
await (GAsyncResult **slot)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (*slot == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (*slot);
  return *slot;
}

static void
save_plan_turn (Fixture    *f,
                const char *plan_call)
{
  g_autoptr(PdPlanStore) plan = pd_plan_store_new (12, 2000);
  g_autoptr(PdPlanState) state = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *result = pd_plan_store_execute (plan, plan_call, &error);
  g_autoptr(JsonArray) messages = json_array_new ();
  JsonObject *system = json_object_new ();
  JsonObject *user = json_object_new ();
  PdTurn turn = { 0 };

  g_assert_no_error (error);
  state = pd_plan_store_snapshot (plan);

  json_object_set_string_member (system, "role", "system");
  json_object_set_string_member (system, "content", "You are an agent.");
  json_object_set_string_member (user, "role", "user");
  json_object_set_string_member (user, "content", "Fix <b>the</b> parser");
  json_array_add_object_element (messages, system);
  json_array_add_object_element (messages, user);

  turn.session_id = f->id;
  turn.messages = messages;
  turn.first_changed = 0;
  turn.plan = state;
  turn.count_turn = TRUE;
  turn.status = PD_SESSION_STATUS_RUNNING;
  g_assert_true (pd_session_store_save_turn (f->store, &turn, &error));
  g_assert_no_error (error);
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  g_autoptr(PdSessionInfo) info = NULL;

  f->dir = g_dir_make_tmp ("pd-local-source-XXXXXX", &error);
  g_assert_no_error (error);
  f->path = g_build_filename (f->dir, "sessions.db", NULL);
  db = pd_db_open (f->path, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  f->store = pd_session_store_new (db);
  info = pd_session_store_create (f->store, "Fix <b>the</b> parser", "m", "replay", "plandeck", "/tmp", &error);
  g_assert_no_error (error);
  f->id = g_strdup (info->id);
  save_plan_turn (f, "{\"verb\":\"create\",\"steps\":[\"One\",\"Two\"]}");
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *wal = g_strconcat (f->path, "-wal", NULL);
  g_autofree char *shm = g_strconcat (f->path, "-shm", NULL);

  g_clear_object (&f->store);
  g_unlink (f->path);
  g_unlink (wal);
  g_unlink (shm);
  g_rmdir (f->dir);
  g_free (f->path);
  g_free (f->dir);
  g_free (f->id);
}

static void
test_list_get_plan (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(PdLocalSource) source = pd_local_source_new (f->path, FALSE);
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL, r3 = NULL, r4 = NULL;
  g_autoptr(PdSessionPage) page = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpstr (pd_source_get_kind (PD_SOURCE (source)), ==, "local");

  pd_source_list_sessions_async (PD_SOURCE (source), "parser", FALSE, 0, 50, NULL, got_result, &r1);
  page = pd_source_list_sessions_finish (PD_SOURCE (source), await (&r1), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (page->sessions->len, ==, 1);
  g_assert_cmpuint (page->total, ==, 1);
  g_assert_cmpstr (((PdSessionInfo *) g_ptr_array_index (page->sessions, 0))->id, ==, f->id);

  pd_source_get_session_async (PD_SOURCE (source), f->id, NULL, got_result, &r2);
  info = pd_source_get_session_finish (PD_SOURCE (source), await (&r2), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (info->plan_total, ==, 2);

  pd_source_get_plan_async (PD_SOURCE (source), f->id, NULL, got_result, &r3);
  g_assert_true (pd_source_get_plan_finish (PD_SOURCE (source), await (&r3), &plan, &error));
  g_assert_no_error (error);
  g_assert_nonnull (plan);
  g_assert_cmpint (plan->version, ==, 1);
  g_assert_cmpuint (plan->steps->len, ==, 2);

  pd_source_get_messages_async (PD_SOURCE (source), f->id, NULL, got_result, &r4);
  messages = pd_source_get_messages_finish (PD_SOURCE (source), await (&r4), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (messages), ==, 2);
}

static void
test_unknown_session (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(PdLocalSource) source = pd_local_source_new (f->path, FALSE);
  g_autoptr(GAsyncResult) r = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionInfo) info = NULL;

  pd_source_get_session_async (PD_SOURCE (source), "20260101-00000000000000000000000000000000", NULL, got_result, &r);
  info = pd_source_get_session_finish (PD_SOURCE (source), await (&r), &error);
  g_assert_null (info);
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND);
}

static void
test_missing_file_unavailable (void)
{
  g_autoptr(PdLocalSource) source = pd_local_source_new ("/nonexistent/dir/sessions.db", FALSE);
  g_autoptr(GAsyncResult) r = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionPage) page = NULL;

  pd_source_list_sessions_async (PD_SOURCE (source), NULL, FALSE, 0, 50, NULL, got_result, &r);
  page = pd_source_list_sessions_finish (PD_SOURCE (source), await (&r), &error);
  g_assert_null (page);
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE);
}

static void
on_changed (PdSource *source,
            gpointer  user_data)
{
  (*(guint *) user_data)++;
}

static void
on_source_changed_count (PdSource *source,
                         guint    *count)
{
  (*count)++;
}

static gboolean counted (gpointer data);
static void     spin_until (gboolean (*done) (gpointer),
                            gpointer  data,
                            guint     ms);

static void
test_update_and_watch (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(PdLocalSource) source = pd_local_source_new (f->path, FALSE);
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  guint changed = 0;
  gint64 deadline;

  g_signal_connect (source, "changed", G_CALLBACK (on_changed), &changed);

  pd_source_update_session_async (PD_SOURCE (source), f->id, "Renamed", 1, NULL, got_result, &r1);
  g_assert_true (pd_source_update_session_finish (PD_SOURCE (source), await (&r1), &error));
  g_assert_no_error (error);
  g_assert_cmpuint (changed, ==, 1);

  info = pd_session_store_get (f->store, f->id, &error);
  g_assert_cmpstr (info->name, ==, "Renamed");
  g_assert_true (info->pinned);

  /* Another connection commits: the watcher notices (after its first
   * look, which counts as a change: see watch-first-look). */
  pd_local_source_watch (source, 20);
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (changed < 2 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (changed, ==, 2);
  save_plan_turn (f, "{\"verb\":\"create\",\"steps\":[\"Three\"]}");
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (changed < 3 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (changed, ==, 3);
  pd_local_source_watch (source, 0);

  /* The run has ended (a running session is not deleted). */
  g_assert_true (pd_session_store_set_status (f->store, f->id, PD_SESSION_STATUS_IDLE, &error));
  pd_source_delete_session_async (PD_SOURCE (source), f->id, NULL, got_result, &r2);
  g_assert_true (pd_source_delete_session_finish (PD_SOURCE (source), await (&r2), &error));
  g_assert_null (pd_session_store_get (f->store, f->id, NULL));
}

/* A Claude Code TodoWrite call and its successful result. */
static char *
todo_lines (guint       second,
            const char *id,
            const char *second_status)
{
  return g_strdup_printf ("{\"type\":\"assistant\",\"timestamp\":\"2026-03-04T10:00:%02uZ\",\"sessionId\":\"s1\","
                          "\"cwd\":\"/work/app\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\","
                          "\"id\":\"%s\",\"name\":\"TodoWrite\",\"input\":{\"todos\":["
                          "{\"content\":\"Read the logs\",\"status\":\"completed\"},"
                          "{\"content\":\"Fix the parser\",\"status\":\"%s\"}]}}]}}\n"
                          "{\"type\":\"user\",\"timestamp\":\"2026-03-04T10:00:%02uZ\",\"message\":{\"role\":\"user\","
                          "\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"%s\",\"content\":\"ok\"}]}}\n",
                          second, id, second_status, second + 1, id);
}

static gboolean
checklist_second_done (PdLocalSource *source,
                       const char    *session_id)
{
  g_autoptr(GAsyncResult) r = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdChecklist) checklist = NULL;

  pd_source_get_checklist_async (PD_SOURCE (source), session_id, NULL, got_result, &r);
  checklist = pd_source_get_checklist_finish (PD_SOURCE (source), await (&r), NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pd_checklist_get_n_agent_items (checklist), ==, 2);
  return pd_checklist_get_agent_item (checklist, 1)->status == PD_CHECKLIST_STATUS_COMPLETED;
}

/* An agent appends to its transcript while the app shows it: the source
 * follows the file, reads what was appended and says the data changed. */
static void
test_follow_transcripts (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(PdLocalSource) source = pd_local_source_new (f->path, FALSE);
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *project = g_build_filename (f->dir, "projects", "-work-app", NULL);
  g_autofree char *transcript = g_build_filename (project, "0f1e2d3c-0000-4000-8000-000000000001.jsonl", NULL);
  g_autofree char *first = todo_lines (1, "tu1", "in_progress");
  g_autofree char *second = todo_lines (10, "tu2", "completed");
  g_autofree char *projects = g_path_get_dirname (project);
  const char *paths[] = { projects, NULL };
  g_autofree char *session_id = NULL;
  gint64 deadline;
  guint changed = 0;
  FILE *file;

  g_assert_cmpint (g_mkdir_with_parents (project, 0700), ==, 0);
  g_assert_true (g_file_set_contents (transcript, first, -1, NULL));
  g_assert_true (pd_import_index_run_paths (index, f->store, paths, NULL, NULL, &error));
  g_assert_no_error (error);
  {
    g_autoptr(GPtrArray) sessions = pd_session_store_list (f->store, NULL, FALSE, 0, 50, NULL, &error);

    g_assert_no_error (error);
    for (guint i = 0; i < sessions->len; i++)
      if (pd_session_info_is_imported (g_ptr_array_index (sessions, i)))
        session_id = g_strdup (((PdSessionInfo *) g_ptr_array_index (sessions, i))->id);
  }
  g_assert_nonnull (session_id);
  g_assert_false (checklist_second_done (source, session_id));

  g_signal_connect (source, "changed", G_CALLBACK (on_changed), &changed);
  pd_local_source_follow_transcripts (source, TRUE);
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (pd_local_source_get_n_followed (source) < 2 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (pd_local_source_get_n_followed (source), ==, 2);  /* the file and its folder */

  file = fopen (transcript, "a");
  g_assert_nonnull (file);
  fputs (second, file);
  fclose (file);

  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (changed == 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (changed, >=, 1);
  g_assert_true (checklist_second_done (source, session_id));

  /* Stopped, an append goes unnoticed. */
  pd_local_source_follow_transcripts (source, FALSE);
  g_assert_cmpuint (pd_local_source_get_n_followed (source), ==, 0);
  changed = 0;
  file = fopen (transcript, "a");
  fputs (first, file);
  fclose (file);
  deadline = g_get_monotonic_time () + G_USEC_PER_SEC / 2;
  while (g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  g_assert_cmpuint (changed, ==, 0);

  g_unlink (transcript);
  g_rmdir (project);
  g_rmdir (projects);
}

/* --- commits are pushed, not polled ---------------------------------------- */

static void
on_watcher_changed (PdDatabaseWatcher *watcher,
                    guint             *count)
{
  (*count)++;
}

static void
spin_until (gboolean (*done) (gpointer),
            gpointer  data,
            guint     ms)
{
  gint64 deadline = g_get_monotonic_time () + ms * G_TIME_SPAN_MILLISECOND;

  while (!done (data) && g_get_monotonic_time () < deadline)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static gboolean
has_read (gpointer data)
{
  return pd_database_watcher_get_n_reads (data) > 0;
}

static gboolean
counted (gpointer data)
{
  return *(guint *) data > 0;
}

static void
test_watch_pushed (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(PdDatabaseWatcher) watcher = pd_database_watcher_new (f->path);
  guint changed = 0;
  guint64 reads;

  g_signal_connect (watcher, "changed", G_CALLBACK (on_watcher_changed), &changed);
  /* No fallback poll at all: only the file monitor can tell. */
  g_assert_cmpuint (pd_database_watcher_get_poll_interval (watcher), ==, 0);
  g_assert_true (pd_database_watcher_get_pushed (watcher));
  spin_until (has_read, watcher, 10000);
  g_assert_cmpuint (pd_database_watcher_get_n_reads (watcher), ==, 1);

  /* Idle: nothing is read while nothing is written. */
  reads = pd_database_watcher_get_n_reads (watcher);
  spin_until (counted, &changed, 300);
  g_assert_cmpuint (changed, ==, 0);
  g_assert_cmpuint (pd_database_watcher_get_n_reads (watcher), ==, reads);

  /* Another connection commits: pushed. */
  save_plan_turn (f, "{\"verb\":\"create\",\"steps\":[\"One\"]}");
  spin_until (counted, &changed, 10000);
  g_assert_cmpuint (changed, ==, 1);
  g_assert_cmpuint (pd_database_watcher_get_n_reads (watcher), >, reads);

  /* A read that finds nothing committed (a checkpoint writes the file) is
   * no change. */
  changed = 0;
  pd_database_watcher_check (watcher);
  spin_until (counted, &changed, 300);
  g_assert_cmpuint (changed, ==, 0);
}

/* A session written after the views read and before the watcher's first
 * look (the Overview's core test waited 30 s once for one): that look
 * counts as a change, so it is told without another write. */
static void
test_watch_first_look (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(PdLocalSource) source = pd_local_source_new (f->path, FALSE);
  g_autoptr(GAsyncResult) r = NULL;
  g_autoptr(PdSessionPage) page = NULL;
  g_autoptr(GError) error = NULL;
  guint changed = 0;

  g_signal_connect (source, "changed", G_CALLBACK (on_source_changed_count), &changed);
  pd_source_list_sessions_async (PD_SOURCE (source), NULL, FALSE, 0, 50, NULL, got_result, &r);
  page = pd_source_list_sessions_finish (PD_SOURCE (source), await (&r), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (page->total, ==, 1);

  /* Written between the views' read and the watcher's start: the watcher's
   * first data_version already holds it. */
  save_plan_turn (f, "{\"verb\":\"create\",\"steps\":[\"Three\"]}");
  pd_local_source_watch (source, 50);
  spin_until (counted, &changed, 5000);
  g_assert_cmpuint (changed, ==, 1);

  /* Only the first look: polling on, nothing written, nothing told. */
  changed = 0;
  spin_until (counted, &changed, 300);
  g_assert_cmpuint (changed, ==, 0);
  pd_local_source_watch (source, 0);
}

/* A watcher let go of while its read is in a worker: the read's task held
 * the watcher, and could drop its last reference on the worker, disposing
 * the file monitors and the poll there (a SIGSEGV seen once in the
 * Overview's core test).  A read in flight holds no reference to it: it is
 * finalized at once, on this thread, by its owner's unref. */
static GThread *finalized_on;

static void
note_finalized (gpointer  data,
                GObject  *where_the_object_was)
{
  finalized_on = g_thread_self ();
}

static void
test_watch_dropped_while_reading (Fixture       *f,
                                  gconstpointer  data)
{
  for (guint i = 0; i < 50; i++)
    {
      PdDatabaseWatcher *watcher = pd_database_watcher_new (f->path);

      finalized_on = NULL;
      g_object_weak_ref (G_OBJECT (watcher), note_finalized, NULL);
      /* Its first read is in flight (or done, its result not yet taken):
       * let go at once. */
      g_object_unref (watcher);
      g_assert_true (finalized_on == g_thread_self ());
    }
  /* The reads still running end on their own, telling no one. */
  for (guint i = 0; i < 100; i++)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

/* The same for the source: a window closed, or a test's tear-down, drops
 * it while a read is in a worker; the read's task held it, and when the
 * worker's reference was the last the source was disposed there (its
 * watcher's monitors, its transcripts' watcher, its buses), racing the main
 * loop that dispatches them.  It must end on the thread that made it. */
static GThread *source_finalized_on;

static void
note_source_finalized (gpointer  data,
                       GObject  *where_the_object_was)
{
  source_finalized_on = g_thread_self ();
}

static void
on_listed_drop (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(PdSessionPage) page = pd_source_list_sessions_finish (PD_SOURCE (object), result, NULL);

  (*(guint *) user_data)++;
}

static void
test_source_dropped_while_reading (Fixture       *f,
                                   gconstpointer  data)
{
  guint on_worker = 0;
  /* One in about a thousand ended on the worker before (2 of 4 runs). */
  guint n = RUNNING_ON_VALGRIND ? 20 : 1000;

  for (guint i = 0; i < n; i++)
    {
      PdLocalSource *source = pd_local_source_new (f->path, FALSE);
      gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
      guint done = 0;

      source_finalized_on = NULL;
      g_object_weak_ref (G_OBJECT (source), note_source_finalized, NULL);
      pd_source_list_sessions_async (PD_SOURCE (source), NULL, FALSE, 0, 50, NULL, on_listed_drop, &done);
      g_object_unref (source);
      /* The main loop as busy as a window's: it takes the result as soon
       * as it is there, before the worker has let go of its task. */
      while (source_finalized_on == NULL && g_get_monotonic_time () < deadline)
        g_main_context_iteration (NULL, FALSE);
      g_assert_nonnull (source_finalized_on);
      g_assert_cmpuint (done, ==, 1);
      if (source_finalized_on != g_thread_self ())
        on_worker++;
    }
  g_test_message ("%u of %u ended on a worker", on_worker, n);
  g_assert_cmpuint (on_worker, ==, 0);
}

/* --- this process's writers tell through their event bus -------------------- */

static void
on_source_changed (PdSource *source,
                   guint    *count)
{
  (*count)++;
}

static void
emit_saved (PdEventBus *bus,
            const char *session_id)
{
  g_autoptr(PdEvent) event = pd_event_new_full (PD_EVENT_SESSION_SAVED, "run-1", session_id, 1, NULL, NULL);

  pd_event_bus_emit (bus, event);
  pd_event_bus_flush (bus);
}

static void
test_follow_bus (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(PdLocalSource) source = pd_local_source_new (f->path, FALSE);
  g_autoptr(PdEventBus) bus = pd_event_bus_new ();
  g_autoptr(PdEvent) no_session = pd_event_new (PD_EVENT_RUN_STARTED);
  g_autoptr(GPtrArray) stored = NULL;
  guint changed = 0;

  /* A writer of this process stores its events, as an engine does; the
   * source has no watcher at all (as if the file system told nothing), so
   * only the bus can tell it. */
  pd_engine_store_events (bus, f->store);
  g_assert_null (pd_local_source_get_watcher (source));
  g_signal_connect (source, "changed", G_CALLBACK (on_source_changed), &changed);
  pd_local_source_follow_bus (source, bus);
  pd_local_source_follow_bus (source, bus);
  g_assert_cmpuint (pd_local_source_get_n_buses (source), ==, 1);

  /* An event of no session changes no session. */
  pd_event_bus_emit (bus, no_session);
  pd_event_bus_flush (bus);
  spin_until (counted, &changed, 300);
  g_assert_cmpuint (changed, ==, 0);

  /* A session's event: ::changed, and the event is stored by then. */
  emit_saved (bus, f->id);
  spin_until (counted, &changed, 10000);
  g_assert_cmpuint (changed, ==, 1);
  stored = pd_session_store_list_events (f->store, f->id, PD_EVENT_SESSION_SAVED, 0, 10, NULL);
  g_assert_cmpuint (stored->len, ==, 1);

  /* A burst is told, merged (how many times depends on the dispatcher). */
  changed = 0;
  for (guint i = 0; i < 50; i++)
    emit_saved (bus, f->id);
  spin_until (counted, &changed, 10000);
  g_assert_cmpuint (changed, >=, 1);
  g_assert_cmpuint (changed, <=, 50);

  /* Unfollowed (the engine replaced): nothing more. */
  pd_local_source_unfollow_bus (source, bus);
  g_assert_cmpuint (pd_local_source_get_n_buses (source), ==, 0);
  spin_until (counted, &changed, 100);
  changed = 0;
  emit_saved (bus, f->id);
  spin_until (counted, &changed, 300);
  g_assert_cmpuint (changed, ==, 0);

  /* The source goes while its writer's events are on their way. */
  pd_local_source_follow_bus (source, bus);
  for (guint i = 0; i < 20; i++)
    emit_saved (bus, f->id);
  g_clear_object (&source);
  spin_until (counted, &changed, 300);
  g_assert_cmpuint (changed, ==, 0);
}

/* --- a second connection keeps the first one's locks ------------------------ */

/* Whether another process sees a lock of this one on SQLite's shared range
 * of @path (what tells a writer that readers are there). */
static gboolean
shared_lock_seen_from_outside (const char *path)
{
  pid_t child = fork ();
  int status = 0;

  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    {
      int fd = open (path, O_RDWR);
      struct flock lock = { 0 };

      lock.l_type = F_WRLCK;
      lock.l_whence = SEEK_SET;
      lock.l_start = 0x40000002;   /* SHARED_FIRST */
      lock.l_len = 510;            /* SHARED_SIZE */
      if (fd < 0 || fcntl (fd, F_GETLK, &lock) != 0)
        _exit (2);
      _exit (lock.l_type == F_UNLCK ? 0 : 1);
    }
  g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), !=, 2);
  return WEXITSTATUS (status) == 1;
}

static void
test_second_open_keeps_locks (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) second = NULL;

  /* The fixture's connection (WAL) holds a shared lock on the file. */
  g_assert_true (shared_lock_seen_from_outside (f->path));

  /* Opening another connection in this process (a window's run, a
   * watcher) must not drop it: closing any descriptor of the file drops
   * every POSIX lock of the process, and a writer elsewhere would then
   * checkpoint under this process's readers. */
  second = pd_db_open (f->path, PD_DB_NONE, &error);
  g_assert_no_error (error);
  g_assert_true (shared_lock_seen_from_outside (f->path));
  g_clear_object (&second);
  g_assert_true (shared_lock_seen_from_outside (f->path));
}

/* --- reading other agents' transcripts -------------------------------------- */

/* The agents' folders of this test program (main() points the agents'
 * variables there): only what a test writes is found. */
static char *agents_home;

/* The window imports through the source, never the import index itself:
 * the source reads the agents' transcripts in a worker, counts what it
 * found and says ::changed; a second read finds them unchanged. */
static void
test_import_transcripts (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(PdLocalSource) source = pd_local_source_new (f->path, FALSE);
  g_autofree char *projects = g_build_filename (agents_home, "claude", "projects", NULL);
  g_autofree char *project = g_build_filename (projects, "-work-app", NULL);
  g_autofree char *transcript = g_build_filename (project, "0f1e2d3c-0000-4000-8000-000000000002.jsonl", NULL);
  g_autofree char *lines = todo_lines (1, "tu1", "in_progress");
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  PdImportCounts counts;
  guint imported = 0;
  guint changed = 0;

  g_assert_cmpint (g_mkdir_with_parents (project, 0700), ==, 0);
  g_assert_true (g_file_set_contents (transcript, lines, -1, NULL));
  g_signal_connect (source, "changed", G_CALLBACK (on_changed), &changed);

  pd_source_import_transcripts_async (PD_SOURCE (source), NULL, got_result, &r1);
  g_assert_true (pd_source_import_transcripts_finish (PD_SOURCE (source), await (&r1), &counts, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (counts.transcripts, ==, 1);
  g_assert_cmpuint (counts.sessions_added, ==, 1);
  g_assert_cmpuint (counts.unchanged, ==, 0);
  g_assert_cmpuint (changed, ==, 1);

  /* In the database, for every other reader (a CLI, serve) too. */
  sessions = pd_session_store_list (f->store, NULL, FALSE, 0, 50, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < sessions->len; i++)
    imported += pd_session_info_is_imported (g_ptr_array_index (sessions, i));
  g_assert_cmpuint (imported, ==, 1);

  pd_source_import_transcripts_async (PD_SOURCE (source), NULL, got_result, &r2);
  g_assert_true (pd_source_import_transcripts_finish (PD_SOURCE (source), await (&r2), &counts, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (counts.transcripts, ==, 1);
  g_assert_cmpuint (counts.sessions_added, ==, 0);
  g_assert_cmpuint (counts.unchanged, ==, 1);

  g_unlink (transcript);
  g_rmdir (project);
  g_rmdir (projects);
}

/* A read again counts sessions, not files: OpenCode's store of two
 * sessions is one unchanged "transcript", and the window's toast said
 * "6 sessions … read" while 7 were listed (tried as a new user would). */
static void
test_import_unchanged_sessions (Fixture       *f,
                                gconstpointer  data)
{
  g_autoptr(PdLocalSource) source = pd_local_source_new (f->path, FALSE);
  g_autofree char *from = g_build_filename (g_getenv ("PD_FIXTURES_DIR"), "opencode", "storage", NULL);
  g_autofree char *opencode = g_build_filename (agents_home, "data", "opencode", NULL);
  const char *copy[] = { "cp", "-r", from, opencode, NULL };
  const char *remove[] = { "rm", "-rf", opencode, NULL };
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL;
  g_autoptr(GError) error = NULL;
  PdImportCounts counts;
  int status = 0;

  g_assert_cmpint (g_mkdir_with_parents (opencode, 0700), ==, 0);
  g_assert_true (g_spawn_sync (NULL, (char **) copy, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);

  pd_source_import_transcripts_async (PD_SOURCE (source), NULL, got_result, &r1);
  g_assert_true (pd_source_import_transcripts_finish (PD_SOURCE (source), await (&r1), &counts, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (counts.sessions_added, ==, 2);

  pd_source_import_transcripts_async (PD_SOURCE (source), NULL, got_result, &r2);
  g_assert_true (pd_source_import_transcripts_finish (PD_SOURCE (source), await (&r2), &counts, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (counts.unchanged, ==, 1);
  g_assert_cmpuint (counts.sessions_unchanged, ==, 2);
  g_assert_true (g_spawn_sync (NULL, (char **) remove, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error));
}

/* A database that cannot be opened: a clear error, nothing read. */
static void
test_import_transcripts_unavailable (void)
{
  g_autoptr(PdLocalSource) source = pd_local_source_new ("/nonexistent/dir/sessions.db", FALSE);
  g_autoptr(GAsyncResult) r = NULL;
  g_autoptr(GError) error = NULL;
  PdImportCounts counts = { 7, 7, 7, 7 };

  pd_source_import_transcripts_async (PD_SOURCE (source), NULL, got_result, &r);
  g_assert_false (pd_source_import_transcripts_finish (PD_SOURCE (source), await (&r), &counts, &error));
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE);
  g_assert_cmpuint (counts.transcripts, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *claude = NULL;
  g_autofree char *codex = NULL;
  g_autofree char *data = NULL;
  int status;

  agents_home = g_dir_make_tmp ("pd-local-source-agents-XXXXXX", NULL);
  g_assert_nonnull (agents_home);
  claude = g_build_filename (agents_home, "claude", NULL);
  codex = g_build_filename (agents_home, "codex", NULL);
  data = g_build_filename (agents_home, "data", NULL);
  g_setenv ("CLAUDE_CONFIG_DIR", claude, TRUE);
  g_setenv ("CODEX_HOME", codex, TRUE);
  g_setenv ("XDG_DATA_HOME", data, TRUE);

  g_test_init (&argc, &argv, NULL);

  g_test_add ("/pd/source/local/list-get-plan", Fixture, NULL, fixture_set_up, test_list_get_plan, fixture_tear_down);
  g_test_add ("/pd/source/local/unknown-session", Fixture, NULL, fixture_set_up, test_unknown_session, fixture_tear_down);
  g_test_add_func ("/pd/source/local/missing-file", test_missing_file_unavailable);
  g_test_add ("/pd/source/local/follow-transcripts", Fixture, NULL, fixture_set_up, test_follow_transcripts, fixture_tear_down);
  g_test_add ("/pd/source/local/update-and-watch", Fixture, NULL, fixture_set_up, test_update_and_watch, fixture_tear_down);
  g_test_add ("/pd/source/local/second-open-keeps-locks", Fixture, NULL, fixture_set_up,
              test_second_open_keeps_locks, fixture_tear_down);
  g_test_add ("/pd/source/local/watch-pushed", Fixture, NULL, fixture_set_up, test_watch_pushed, fixture_tear_down);
  g_test_add ("/pd/source/local/watch-first-look", Fixture, NULL, fixture_set_up, test_watch_first_look,
              fixture_tear_down);
  g_test_add ("/pd/source/local/watch-dropped-while-reading", Fixture, NULL, fixture_set_up,
              test_watch_dropped_while_reading, fixture_tear_down);
  g_test_add ("/pd/source/local/source-dropped-while-reading", Fixture, NULL, fixture_set_up,
              test_source_dropped_while_reading, fixture_tear_down);
  g_test_add ("/pd/source/local/follow-bus", Fixture, NULL, fixture_set_up, test_follow_bus, fixture_tear_down);
  g_test_add ("/pd/source/local/import-transcripts", Fixture, NULL, fixture_set_up, test_import_transcripts,
              fixture_tear_down);
  g_test_add_func ("/pd/source/local/import-transcripts-unavailable", test_import_transcripts_unavailable);
  g_test_add ("/pd/source/local/import-unchanged-sessions", Fixture, NULL, fixture_set_up,
              test_import_unchanged_sessions, fixture_tear_down);

  status = g_test_run ();
  g_rmdir (claude);
  g_rmdir (agents_home);
  g_free (agents_home);
  return status;
}
