/* test-demo.c: the demo replays its recorded run against the real tools
 * into its own temporary database, and cleans up after itself.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "pd-db.h"
#include "pd-demo.h"
#include "pd-plan.h"
#include "pd-session-store.h"

static void
got_result (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static void
test_demo_runs (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDemo) demo = pd_demo_new (&error);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(PdRunResult) run = NULL;
  g_autoptr(PdDb) db = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autofree char *root = NULL;
  g_autofree char *greet = NULL;
  g_autofree char *greet_path = NULL;
  gint64 deadline;

  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (pd_demo_get_label (demo), "Plandeck demo"));
  root = g_path_get_dirname (pd_demo_get_folder (demo));

  pd_demo_set_speed (demo, 0);
  pd_demo_run_async (demo, NULL, got_result, &result);
  deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  while (result == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (result);

  run = pd_demo_run_finish (demo, result, &error);
  g_assert_no_error (error);
  g_assert_cmpint (run->status, ==, PD_RUN_COMPLETED);
  g_assert_null (strstr (run->final_text, "verification incomplete"));

  /* The real tools changed the real files. */
  greet_path = g_build_filename (pd_demo_get_folder (demo), "greet.sh", NULL);
  g_assert_true (g_file_get_contents (greet_path, &greet, NULL, NULL));
  g_assert_nonnull (strstr (greet, "Hello, ${name}!"));

  db = pd_db_open (pd_demo_get_database_path (demo), PD_DB_NONE, &error);
  g_assert_no_error (error);
  store = pd_session_store_new (db);
  info = pd_session_store_get (store, run->session_id, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (info->source, ==, "demo");
  g_assert_true (pd_session_store_get_plan (store, run->session_id, &plan, &error));
  g_assert_nonnull (plan);
  g_assert_cmpuint (plan->steps->len, ==, 4);
  for (guint i = 0; i < plan->steps->len; i++)
    g_assert_cmpint (((PdPlanStep *) g_ptr_array_index (plan->steps, i))->status, ==, PD_PLAN_STEP_DONE);

  events = pd_session_store_list_events (store, run->session_id, "plan_updated", 0, 1000, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, >, 5);

  g_clear_object (&store);
  g_clear_object (&db);
  g_clear_object (&result);   /* the finished task holds the demo */
  g_clear_object (&demo);
  g_assert_false (g_file_test (root, G_FILE_TEST_EXISTS));
}

/* A pace slower than any recording may ask for still plays: each turn's
 * delay is held at the replay's 10 s bound instead of being refused. */
static void
test_demo_slow_pace (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDemo) demo = pd_demo_new (&error);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(PdRunResult) run = NULL;
  gint64 deadline;

  g_assert_no_error (error);
  pd_demo_set_speed (demo, 1e-300);
  pd_demo_run_async (demo, cancellable, got_result, &result);

  deadline = g_get_monotonic_time () + G_USEC_PER_SEC / 2;
  while (result == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  /* Still playing: a refused recording would have answered at once. */
  g_assert_null (result);

  g_cancellable_cancel (cancellable);
  deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  while (result == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (result);

  run = pd_demo_run_finish (demo, result, &error);
  if (run != NULL)
    g_assert_cmpint (run->status, ==, PD_RUN_CANCELLED);
  else
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_object (&result);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pd/engine/demo/runs", test_demo_runs);
  g_test_add_func ("/pd/engine/demo/slow-pace", test_demo_slow_pace);
  return g_test_run ();
}
