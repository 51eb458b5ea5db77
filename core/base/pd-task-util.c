/* pd-task-util.c: handing a GTask the outcome of a call.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-task"

#include "config.h"

#include "pd-task-util.h"

void
pd_task_return_pointer_or_error (GTask          *task,
                                 gpointer        result,
                                 GDestroyNotify  result_destroy,
                                 GError         *error)
{
  g_return_if_fail (G_IS_TASK (task));
  g_return_if_fail (result != NULL || error != NULL);

  if (result == NULL)
    {
      g_task_return_error (task, error);
      return;
    }

  g_clear_error (&error);
  g_task_return_pointer (task, result, result_destroy);
}

static GQuark pd_cancel_reason_quark (void);
G_DEFINE_QUARK (pd-cancel-reason, pd_cancel_reason)

/**
 * pd_cancellable_cancel_for:
 * @reason: (nullable): why, when it is not a person stopping it ("the
 *   endpoint (serve) stopped")
 *
 * Cancels @cancellable; the first reason given stays.
 */
void
pd_cancellable_cancel_for (GCancellable *cancellable,
                           const char   *reason)
{
  g_return_if_fail (G_IS_CANCELLABLE (cancellable));

  /* Set before the cancel, so that whoever sees it cancelled sees why. */
  if (reason != NULL && !g_cancellable_is_cancelled (cancellable))
    g_object_replace_qdata (G_OBJECT (cancellable), pd_cancel_reason_quark (), NULL, g_strdup (reason), g_free,
                            NULL);
  g_cancellable_cancel (cancellable);
}

/**
 * pd_cancellable_get_reason:
 *
 * Returns: (nullable): why @cancellable was cancelled, when it was not a
 *   person stopping it
 */
const char *
pd_cancellable_get_reason (GCancellable *cancellable)
{
  if (cancellable == NULL || !g_cancellable_is_cancelled (cancellable))
    return NULL;
  return g_object_get_qdata (G_OBJECT (cancellable), pd_cancel_reason_quark ());
}

typedef struct
{
  PdTaskWorker   worker;
  GDestroyNotify result_destroy;
} Work;

#define WORK_KEY "pd-task-work"

static void
work_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  const Work *work = g_object_get_data (G_OBJECT (task), WORK_KEY);
  GError *error = NULL;
  gpointer result = work->worker (source_object, task_data, cancellable, &error);

  pd_task_return_pointer_or_error (task, result, work->result_destroy, error);
}

void
pd_task_run_worker (GTask          *task,
                    PdTaskWorker    worker,
                    GDestroyNotify  result_destroy)
{
  Work *work;

  g_return_if_fail (G_IS_TASK (task));
  g_return_if_fail (worker != NULL);

  /* Set before the thread starts, only read in it. */
  work = g_new (Work, 1);
  work->worker = worker;
  work->result_destroy = result_destroy;
  g_object_set_data_full (G_OBJECT (task), WORK_KEY, work, g_free);
  g_task_run_in_thread (task, work_thread);
}
