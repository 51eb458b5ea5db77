/* test-import-pages-reads.c: imported sessions' pages through the API
 * every front end uses (pd-session-reads.h, PdLocalSource): the user's
 * overrides marked, the transcript followed, nothing of the plan's text in
 * the database.  On the project's own fixtures, as test-import-pages.c
 * (pd-test-import-pages.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#define G_LOG_DOMAIN "test-import-pages"

#include "config.h"

#include "pd-test-import-pages.h"

/* ---------------------------------------------------------------------- */
/* Through the API                                                        */

static void
copy_tree (const char *from,
           const char *to)
{
  g_autoptr(GDir) dir = g_dir_open (from, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  g_mkdir_with_parents (to, 0700);
  while ((name = g_dir_read_name (dir)))
    {
      g_autofree char *source = g_build_filename (from, name, NULL);
      g_autofree char *target = g_build_filename (to, name, NULL);

      if (g_file_test (source, G_FILE_TEST_IS_DIR))
        copy_tree (source, target);
      else
        {
          g_autofree char *contents = NULL;
          gsize length;

          g_assert_true (g_file_get_contents (source, &contents, &length, NULL));
          g_assert_true (g_file_set_contents (target, contents, (gssize) length, NULL));
        }
    }
}

typedef struct
{
  char           *dir;
  char           *db_path;
  PdSessionStore *store;
  char           *id;
} Imported;

static void
imported_open (Imported   *f,
               const char *fixture)   /* a folder of tests/fixtures/claude-code */
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) list = NULL;
  g_autofree char *from = fixture_path (fixture);
  g_autofree char *projects = NULL;
  g_autofree char *base = g_path_get_basename (fixture);
  const char *paths[2] = { NULL, NULL };

  f->dir = pd_import_test_tmpdir ();
  projects = g_build_filename (f->dir, "projects", base, NULL);
  copy_tree (from, projects);
  f->db_path = g_build_filename (f->dir, "sessions.db", NULL);
  db = pd_db_open (f->db_path, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  f->store = pd_session_store_new (db);
  paths[0] = projects;
  g_assert_true (pd_import_index_run_paths (index, f->store, paths, NULL, NULL, &error));
  g_assert_no_error (error);
  list = pd_session_store_list (f->store, NULL, FALSE, 0, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, >=, 1);
  f->id = g_strdup (((PdSessionInfo *) g_ptr_array_index (list, 0))->id);
}

static void
imported_close (Imported *f)
{
  g_clear_object (&f->store);
  pd_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->db_path);
  g_free (f->id);
}

/* Every byte of the database and its journal, for what must not be there. */
static gboolean
database_contains (Imported   *f,
                   const char *needle)
{
  const char *suffixes[] = { "", "-wal", "-journal" };

  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      g_autofree char *path = g_strconcat (f->db_path, suffixes[i], NULL);
      g_autofree char *contents = NULL;
      gsize length;

      if (g_file_get_contents (path, &contents, &length, NULL)
          && memmem (contents, length, needle, strlen (needle)) != NULL)
        return TRUE;
    }
  return FALSE;
}

static void
test_reads (void)
{
  Imported f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(PdPlanState) ticked = NULL;
  g_autoptr(GPtrArray) versions = NULL;
  g_autoptr(GPtrArray) marked = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(PdChecklist) checklist = NULL;
  g_auto(GStrv) argv = NULL;
  g_autofree char *workdir = NULL;
  g_autofree char *shape = NULL;
  guint marks = 0;

  imported_open (&f, "claude-code/-home-dev-src-harbor");

  info = pd_session_reads_get (f.store, f.id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (info->n_messages, ==, 30);
  g_assert_cmpint (info->plan_version, ==, 12);

  g_assert_true (pd_session_reads_get_plan (f.store, f.id, &plan, &error));
  g_assert_no_error (error);
  g_assert_cmpint (plan->version, ==, 12);
  shape = describe_state (plan);
  g_assert_cmpstr (shape, ==, "1:done|2:in_progress|3:done");

  versions = pd_session_reads_list_plan_versions (f.store, f.id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (versions->len, ==, 12);
  messages = pd_session_reads_load_messages (f.store, f.id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (messages), ==, 30);
  events = pd_session_reads_list_events (f.store, f.id, NULL, 0, 0, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, >, 30);
  tools = pd_session_reads_list_events (f.store, f.id, PD_EVENT_TOOL_CALL_FAILED, 0, 10, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (tools->len, ==, 1);
  g_assert_true (pd_session_reads_get_resume (f.store, f.id, &argv, &workdir, &error));
  g_assert_cmpstr (argv[0], ==, "claude");
  g_assert_cmpstr (workdir, ==, "/home/dev/src/harbor");

  /* The user ticks task 2 (in progress): the plan shows it done, the
   * history marks it where the agent had it open. */
  checklist = pd_import_index_load_checklist (f.store, f.id, &error);
  g_assert_no_error (error);
  pd_checklist_set_checked (checklist, 1, TRUE);
  g_assert_true (pd_import_index_save_annotations (f.store, f.id, checklist, &error));
  g_assert_no_error (error);
  g_assert_true (pd_session_reads_get_plan (f.store, f.id, &ticked, &error));
  g_clear_pointer (&shape, g_free);
  shape = describe_state (ticked);
  g_assert_cmpstr (shape, ==, "1:done|2:done|3:done");
  marked = pd_session_reads_list_plan_versions (f.store, f.id, &error);
  for (guint i = 0; i < marked->len; i++)
    marks += strstr (((PdPlanVersionInfo *) g_ptr_array_index (marked, i))->state_json, "\"user_checked\":true") != NULL;
  /* Versions 2 to 12 hold task 2 open. */
  g_assert_cmpuint (marks, ==, 11);
  /* ... while the history keeps the agent's own statuses. */
  {
    g_autoptr(PdPlanState) newest = version_state (marked, 12);
    g_autofree char *agent = describe_state (newest);
    g_assert_cmpstr (agent, ==, "1:done|2:in_progress|3:done");
  }

  /* Read, marked, served: none of the agent's text was written (seed 001). */
  g_assert_false (database_contains (&f, "Write a token bucket"));
  g_assert_false (database_contains (&f, "Return 429 with Retry-After"));
  g_assert_false (database_contains (&f, "Tests for the limiter"));
  g_assert_false (database_contains (&f, "Five tests, all pass"));

  imported_close (&f);
}

/* The pages follow the transcript: an update appended later is a version
 * at the next read; a transcript gone leaves the record readable. */
static void
test_reads_follow (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (dir, "sessions.db", NULL);
  g_autofree char *project = g_build_filename (dir, "projects", "-work", NULL);
  g_autoptr(PdDb) db = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GPtrArray) before = NULL, after = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  const char *lines[] = {
    "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"sessionId\":\"f1\",\"cwd\":\"/work\","
    "\"message\":{\"role\":\"user\",\"content\":\"Go\"}}",
    "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:01Z\",\"message\":{\"id\":\"m1\",\"role\":\"assistant\","
    "\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"TodoWrite\",\"input\":{\"todos\":["
    "{\"content\":\"A\",\"status\":\"in_progress\"},{\"content\":\"B\",\"status\":\"pending\"}]}}]}}",
    "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:02Z\",\"message\":{\"role\":\"user\",\"content\":["
    "{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"ok\"}]}}",
    NULL,
  };
  const char *more =
    "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:01:00Z\",\"message\":{\"id\":\"m2\",\"role\":\"assistant\","
    "\"content\":[{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"TodoWrite\",\"input\":{\"todos\":["
    "{\"content\":\"A\",\"status\":\"completed\"},{\"content\":\"B\",\"status\":\"in_progress\"}]}}]}}\n"
    "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:01:01Z\",\"message\":{\"role\":\"user\",\"content\":["
    "{\"type\":\"tool_result\",\"tool_use_id\":\"t2\",\"content\":\"ok\"}]}}\n";
  const char *paths[] = { project, NULL };
  const char *id;
  FILE *file;

  path = pd_import_test_write (project, "f1.jsonl", lines);
  db = pd_db_open (db_path, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  store = pd_session_store_new (db);
  g_assert_true (pd_import_index_run_paths (index, store, paths, NULL, NULL, &error));
  list = pd_session_store_list (store, NULL, FALSE, 0, 10, NULL, &error);
  g_assert_cmpuint (list->len, ==, 1);
  id = ((PdSessionInfo *) g_ptr_array_index (list, 0))->id;

  before = pd_session_reads_list_plan_versions (store, id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (before->len, ==, 1);

  file = fopen (path, "a");
  g_assert_nonnull (file);
  fputs (more, file);
  fclose (file);
  after = pd_session_reads_list_plan_versions (store, id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (after->len, ==, 2);

  /* Gone: the plan cannot be read, and says why; the record still can. */
  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_false (pd_session_reads_get_plan (store, id, &plan, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  info = pd_session_reads_get (store, id, &error);
  g_assert_no_error (error);
  g_assert_nonnull (info);

  /* Our own sessions are the store's: no resume, an empty plan list. */
  {
    g_autoptr(PdSessionInfo) own = pd_session_store_create (store, "Own", "m", "replay", "plandeck", "/w", &error);
    g_auto(GStrv) argv = NULL;
    g_autoptr(GPtrArray) documents = NULL;

    g_assert_no_error (error);
    g_assert_false (pd_session_reads_get_resume (store, own->id, &argv, NULL, &error));
    g_assert_no_error (error);
    documents = pd_session_reads_list_plan_documents (store, own->id, &error);
    g_assert_cmpuint (documents->len, ==, 0);
  }
  pd_test_remove_tree (dir);
}

static void
on_result (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

/* Bounded: a hung worker fails the test instead of hanging it. */
static GAsyncResult *
wait_result (GAsyncResult **slot)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  while (*slot == NULL)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
    }
  return *slot;
}

/* The window's source answers every page of an imported session, off the
 * main thread. */
static void
test_local_source (void)
{
  Imported f = { 0 };
  g_autoptr(PdLocalSource) source = NULL;
  g_autoptr(GError) error = NULL;

  imported_open (&f, "claude-code/-home-dev-src-inkwell");
  /* Two sessions there: take the plan-mode one. */
  {
    g_autoptr(GPtrArray) list = pd_session_store_list (f.store, "settings", FALSE, 0, 10, NULL, &error);
    g_assert_cmpuint (list->len, ==, 1);
    g_free (f.id);
    f.id = g_strdup (((PdSessionInfo *) g_ptr_array_index (list, 0))->id);
  }
  source = pd_local_source_new (f.db_path, FALSE);

  {
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(PdSessionInfo) info = NULL;

    pd_source_get_session_async (PD_SOURCE (source), f.id, NULL, on_result, &result);
    info = pd_source_get_session_finish (PD_SOURCE (source), wait_result (&result), &error);
    g_assert_no_error (error);
    g_assert_cmpuint (info->n_messages, ==, 48);
  }
  {
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(PdPlanState) plan = NULL;

    pd_source_get_plan_async (PD_SOURCE (source), f.id, NULL, on_result, &result);
    g_assert_true (pd_source_get_plan_finish (PD_SOURCE (source), wait_result (&result), &plan, &error));
    g_assert_no_error (error);
    g_assert_cmpint (plan->version, ==, 6);
    g_assert_cmpuint (plan->steps->len, ==, 5);
  }
  {
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(GPtrArray) history = NULL;

    pd_source_get_plan_history_async (PD_SOURCE (source), f.id, NULL, on_result, &result);
    history = pd_source_get_plan_history_finish (PD_SOURCE (source), wait_result (&result), &error);
    g_assert_no_error (error);
    g_assert_cmpuint (history->len, ==, 6);
  }
  {
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(JsonArray) messages = NULL;

    pd_source_get_messages_async (PD_SOURCE (source), f.id, NULL, on_result, &result);
    messages = pd_source_get_messages_finish (PD_SOURCE (source), wait_result (&result), &error);
    g_assert_no_error (error);
    g_assert_cmpuint (json_array_get_length (messages), ==, 48);
  }
  {
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(GPtrArray) events = NULL;

    pd_source_get_events_async (PD_SOURCE (source), f.id, 3, 5, NULL, on_result, &result);
    events = pd_source_get_events_finish (PD_SOURCE (source), wait_result (&result), &error);
    g_assert_no_error (error);
    g_assert_cmpuint (events->len, ==, 5);
    g_assert_cmpint (((PdStoredEvent *) g_ptr_array_index (events, 0))->seq, ==, 4);
  }
  {
    g_autoptr(GAsyncResult) result = NULL;
    g_autoptr(PdResumeCommand) command = NULL;
    g_autofree char *line = NULL;

    pd_source_get_resume_command_async (PD_SOURCE (source), f.id, NULL, on_result, &result);
    command = pd_source_get_resume_command_finish (PD_SOURCE (source), wait_result (&result), &error);
    g_assert_no_error (error);
    g_assert_nonnull (command);
    line = pd_resume_command_to_string (command);
    g_assert_cmpstr (line, ==, "claude --resume b7e14c52-0d9a-4f3e-9c61-2a8f5d07e3b9");
    g_assert_cmpstr (command->workdir, ==, "/home/dev/src/inkwell");
  }

  g_clear_object (&source);
  imported_close (&f);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-pages/reads", test_reads);
  g_test_add_func ("/pd/import-pages/reads-follow", test_reads_follow);
  g_test_add_func ("/pd/import-pages/local-source", test_local_source);

  return g_test_run ();
}
