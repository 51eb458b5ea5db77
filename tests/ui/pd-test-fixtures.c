/* pd-test-fixtures.c: real session databases for the ui tests and screenshots
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Everything goes through the core store API into a real SQLite file, the
 * same way plandeck-agent writes it.
 */
#define G_LOG_DOMAIN "pd-test-fixtures"

#include "config.h"

#include "pd-test-fixtures.h"

PdSessionStore *
pd_test_open_store (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (path, PD_DB_CREATE, &error);

  g_assert_no_error (error);
  g_assert_nonnull (db);

  return pd_session_store_new (db);
}

PdPlanStep *
pd_test_step (const char       *id,
              const char       *title,
              PdPlanStepStatus  status,
              const char       *note)
{
  PdPlanStep *step = pd_plan_step_new (id, title);

  step->status = status;
  if (note != NULL)
    pd_plan_step_set_note (step, note);

  return step;
}

void
pd_test_step_add_check (PdPlanStep        *step,
                        const char        *id,
                        const char        *description,
                        const char        *tool,
                        const char        *arguments,
                        PdPlanCheckStatus  status)
{
  PdPlanCheck *check = pd_plan_check_new (id, description, tool, arguments);

  check->status = status;
  g_ptr_array_add (step->checks, check);
}

char *
pd_test_add_session (PdSessionStore *store,
                     const char     *task,
                     const char     *source)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionInfo) info = pd_session_store_create (store, task, "replay", "replay",
                                                           source, "/tmp/project", &error);

  g_assert_no_error (error);
  g_assert_nonnull (info);

  return g_strdup (info->id);
}

void
pd_test_save_plan (PdSessionStore    *store,
                   const char        *id,
                   const PdPlanState *plan,
                   PdSessionStatus    status)
{
  g_autoptr(GError) error = NULL;
  PdTurn turn = { 0 };

  turn.session_id = id;
  turn.plan = plan;
  turn.count_turn = TRUE;
  turn.status = status;
  g_assert_true (pd_session_store_save_turn (store, &turn, &error));
  g_assert_no_error (error);
}

/* Four steps: done with a passed check, in progress with a pending and a
 * failed check, blocked with a blocked check, and pending. */
PdPlanState *
pd_test_sample_plan (gint64 version)
{
  PdPlanState *plan = pd_plan_state_new ();
  PdPlanStep *step;

  plan->version = version;

  step = pd_test_step ("s1", "Read the session store and its migrations", PD_PLAN_STEP_DONE,
                       "Schema v3; WAL on; busy_timeout 5 s");
  pd_test_step_add_check (step, "read", "store read", "read_file",
                          "{\"path\":\"core/store/pd-db.c\"}", PD_PLAN_CHECK_PASSED);
  g_ptr_array_add (plan->steps, step);

  step = pd_test_step ("s2", "Add the export subcommand", PD_PLAN_STEP_IN_PROGRESS,
                       "Writing JSON with json-glib; the tests come next");
  pd_test_step_add_check (step, "build", "builds", "shell",
                          "{\"command\":\"ninja -C _build\"}", PD_PLAN_CHECK_PASSED);
  pd_test_step_add_check (step, "tests", "export tests pass", "shell",
                          "{\"command\":\"meson test -C _build export\"}", PD_PLAN_CHECK_FAILED);
  g_ptr_array_add (plan->steps, step);

  step = pd_test_step ("s3", "Document the export format", PD_PLAN_STEP_BLOCKED,
                       "Waiting for the format to be agreed on");
  pd_test_step_add_check (step, "docs", "man page builds", "shell",
                          "{\"command\":\"make -C docs man\"}", PD_PLAN_CHECK_BLOCKED);
  g_ptr_array_add (plan->steps, step);

  step = pd_test_step ("s4", "Run the whole test suite", PD_PLAN_STEP_PENDING, NULL);
  pd_test_step_add_check (step, "all", "all tests pass", "shell",
                          "{\"command\":\"meson test -C _build\"}", PD_PLAN_CHECK_PENDING);
  g_ptr_array_add (plan->steps, step);

  plan->revision = pd_plan_revision_new ("Split the export step after the first test run failed");

  return plan;
}

/* A handful of sessions that look like a week of work, for screenshots. */
void
pd_test_fill_showcase (PdSessionStore *store)
{
  g_autoptr(PdPlanState) sample = pd_test_sample_plan (4);
  g_autofree char *running = NULL;
  g_autofree char *failed = NULL;
  g_autofree char *done = NULL;
  g_autofree char *codex = NULL;
  g_autofree char *claude = NULL;
  g_autofree char *noplan = NULL;
  g_autoptr(PdPlanState) done_plan = pd_plan_state_new ();
  g_autoptr(PdPlanState) failed_plan = pd_plan_state_new ();
  g_autoptr(PdPlanState) claude_plan = pd_plan_state_new ();
  PdPlanStep *step;
  g_autoptr(GError) error = NULL;

  noplan = pd_test_add_session (store, "Explain how the event bus delivers to listeners", "odek");
  claude = pd_test_add_session (store, "Refactor the settings dialog into pages", "claude-code");
  codex = pd_test_add_session (store, "Fix the flaky scroll test", "codex");
  done = pd_test_add_session (store, "Add a --json flag to sessions list", "plandeck");
  failed = pd_test_add_session (store, "Migrate the config loader to GKeyFile", "plandeck");
  running = pd_test_add_session (store, "Add an export subcommand with tests and docs", "plandeck");

  done_plan->version = 3;
  g_ptr_array_add (done_plan->steps, pd_test_step ("s1", "Parse the flag", PD_PLAN_STEP_DONE, NULL));
  g_ptr_array_add (done_plan->steps, pd_test_step ("s2", "Print JSON", PD_PLAN_STEP_DONE, NULL));
  g_ptr_array_add (done_plan->steps, pd_test_step ("s3", "Test it", PD_PLAN_STEP_DONE, NULL));
  pd_test_save_plan (store, done, done_plan, PD_SESSION_STATUS_IDLE);

  failed_plan->version = 2;
  step = pd_test_step ("s1", "Read the old loader", PD_PLAN_STEP_DONE, NULL);
  g_ptr_array_add (failed_plan->steps, step);
  step = pd_test_step ("s2", "Port to GKeyFile", PD_PLAN_STEP_BLOCKED, "The provider stopped answering");
  g_ptr_array_add (failed_plan->steps, step);
  g_ptr_array_add (failed_plan->steps, pd_test_step ("s3", "Test", PD_PLAN_STEP_PENDING, NULL));
  pd_test_save_plan (store, failed, failed_plan, PD_SESSION_STATUS_FAILED);

  claude_plan->version = 1;
  g_ptr_array_add (claude_plan->steps, pd_test_step ("1", "Split the dialog", PD_PLAN_STEP_DONE, NULL));
  g_ptr_array_add (claude_plan->steps, pd_test_step ("2", "Move the pages", PD_PLAN_STEP_IN_PROGRESS, NULL));
  g_ptr_array_add (claude_plan->steps, pd_test_step ("3", "Check keyboard navigation", PD_PLAN_STEP_PENDING, NULL));
  pd_test_save_plan (store, claude, claude_plan, PD_SESSION_STATUS_IDLE);

  pd_test_save_plan (store, running, sample, PD_SESSION_STATUS_RUNNING);

  g_assert_true (pd_session_store_set_pinned (store, running, TRUE, &error));
  g_assert_no_error (error);
  g_assert_true (pd_session_store_rename (store, codex, "Flaky scroll test", &error));
  g_assert_no_error (error);
}

/* Runs the app on a new showcase database (pd_test_fill_showcase()) with
 * the settings reset and, unless @width is 0, the window @width × @height:
 * @func gets the first window.  Returns the app's exit status. */
int
pd_test_run_showcase (int              width,
                      int              height,
                      PdTestWindowFunc func,
                      gpointer         user_data)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "showcase.db", NULL);
  const char *args[] = { "--db", db, NULL };
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(GSettings) settings = NULL;

  pd_test_fill_showcase (store);
  pd_test_reset_settings ();
  if (width > 0)
    {
      settings = g_settings_new (APP_ID);
      g_settings_set_int (settings, "window-width", width);
      g_settings_set_int (settings, "window-height", height);
    }
  return pd_test_run_app (args, func, user_data, NULL);
}

/**
 * pd_test_fixture_home:
 *
 * A new temporary home for a test of what the window finds there at
 * start: HOME, XDG_DATA_HOME and XDG_CONFIG_HOME inside it, and no
 * CLAUDE_CONFIG_DIR or CODEX_HOME leading elsewhere.  Call it before GTK
 * or GLib asks for the home or the XDG folders (both are kept from the
 * first ask).
 *
 * Returns: (transfer full): the home
 */
char *
pd_test_fixture_home (void)
{
  char *home = pd_test_make_tmp_dir ();
  g_autofree char *data = g_build_filename (home, ".local", "share", NULL);
  g_autofree char *config = g_build_filename (home, ".config", NULL);

  g_setenv ("HOME", home, TRUE);
  g_setenv ("XDG_DATA_HOME", data, TRUE);
  g_setenv ("XDG_CONFIG_HOME", config, TRUE);
  g_unsetenv ("CLAUDE_CONFIG_DIR");
  g_unsetenv ("CODEX_HOME");
  return home;
}

/**
 * pd_test_place_fixture:
 *
 * Copies the folder @fixture of tests/fixtures (PD_FIXTURES_DIR) to
 * @place in @home, where an agent keeps its sessions.
 */
void
pd_test_place_fixture (const char *home,
                       const char *fixture,
                       const char *place)
{
  g_autofree char *from = g_build_filename (g_getenv ("PD_FIXTURES_DIR"), fixture, NULL);
  g_autofree char *to = g_build_filename (home, place, NULL);

  g_assert_true (g_file_test (from, G_FILE_TEST_IS_DIR));
  pd_test_copy_tree (from, to);
}
