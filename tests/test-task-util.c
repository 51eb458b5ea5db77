/* test-task-util.c: the thread that runs a blocking call for an _async
 * function (pd_task_run_worker()).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-task-util"

#include "config.h"

#include <gio/gio.h>

#include "pd-task-util.h"

typedef struct
{
  GMainLoop *loop;
  char      *result;
  GError    *error;
  GThread   *worker_thread;
} Outcome;

static gpointer
echo_worker (gpointer       source_object,
             gpointer       task_data,
             GCancellable  *cancellable,
             GError       **error)
{
  Outcome *outcome = g_object_get_data (source_object, "outcome");

  outcome->worker_thread = g_thread_self ();
  if (g_strcmp0 (task_data, "fail") == 0)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "no such thing");
      return NULL;
    }
  return g_strdup_printf ("%s from the worker", (const char *) task_data);
}

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Outcome *outcome = user_data;

  outcome->result = g_task_propagate_pointer (G_TASK (result), &outcome->error);
  g_main_loop_quit (outcome->loop);
}

static void
run_worker (const char *data,
            Outcome    *outcome)
{
  g_autoptr(GObject) source = g_object_new (G_TYPE_OBJECT, NULL);
  g_autoptr(GTask) task = NULL;

  outcome->loop = g_main_loop_new (NULL, FALSE);
  g_object_set_data (source, "outcome", outcome);
  task = g_task_new (source, NULL, on_done, outcome);
  g_task_set_task_data (task, g_strdup (data), g_free);
  pd_task_run_worker (task, echo_worker, g_free);
  g_clear_object (&task);
  g_main_loop_run (outcome->loop);
  g_main_loop_unref (outcome->loop);
}

/* The worker's result, from another thread, with the task's data. */
static void
test_result (void)
{
  Outcome outcome = { 0 };

  run_worker ("hello", &outcome);
  g_assert_no_error (outcome.error);
  g_assert_cmpstr (outcome.result, ==, "hello from the worker");
  g_assert_nonnull (outcome.worker_thread);
  g_assert_true (outcome.worker_thread != g_thread_self ());
  g_free (outcome.result);
}

/* The worker's error, and no result. */
static void
test_error (void)
{
  Outcome outcome = { 0 };

  run_worker ("fail", &outcome);
  g_assert_error (outcome.error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_cmpstr (outcome.error->message, ==, "no such thing");
  g_assert_null (outcome.result);
  g_clear_error (&outcome.error);
}

static void
on_done_untaken (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_main_loop_quit (user_data);
}

/* A result no one takes is freed with the given function (valgrind sees
 * a leak otherwise). */
static void
test_untaken_result (void)
{
  g_autoptr(GObject) source = g_object_new (G_TYPE_OBJECT, NULL);
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  Outcome outcome = { 0 };
  GTask *task;

  g_object_set_data (source, "outcome", &outcome);
  task = g_task_new (source, NULL, on_done_untaken, loop);
  g_task_set_task_data (task, g_strdup ("unread"), g_free);
  pd_task_run_worker (task, echo_worker, g_free);
  g_object_unref (task);
  g_main_loop_run (loop);
  g_assert_nonnull (outcome.worker_thread);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/task-util/result", test_result);
  g_test_add_func ("/pd/task-util/error", test_error);
  g_test_add_func ("/pd/task-util/untaken-result", test_untaken_result);

  return g_test_run ();
}
