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
