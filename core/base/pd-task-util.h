/* pd-task-util.h: handing a GTask the outcome of a call; why a call was
 * cancelled.
 *
 * A worker thread or a callback that runs a call returning an object (or
 * NULL with an error) gives the task one or the other.  This is that,
 * written once, and so is the thread that runs such a call for an _async
 * function.  A cancellable cancelled for a reason other than a person's
 * stop (the endpoint stopping, the client going away) carries that reason,
 * for whoever records how the call ended.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Returns @result on @task (@result_destroy frees it when no one takes it)
 * or, when @result is NULL, @error; takes both. */
void pd_task_return_pointer_or_error (GTask          *task,
                                      gpointer        result,
                                      GDestroyNotify  result_destroy,
                                      GError         *error);

void        pd_cancellable_cancel_for  (GCancellable *cancellable,
                                        const char   *reason);
const char *pd_cancellable_get_reason  (GCancellable *cancellable);

/* A blocking call that an _async function runs in a thread: @source_object
 * and @task_data are the task's.  Returns the result, or NULL with @error
 * set. */
typedef gpointer (*PdTaskWorker) (gpointer       source_object,
                                  gpointer       task_data,
                                  GCancellable  *cancellable,
                                  GError       **error);

/* Runs @worker in a thread of GTask's pool and returns what it gives on
 * @task, as pd_task_return_pointer_or_error() does (@result_destroy frees
 * a result no one takes).  The task's data stays the caller's. */
void pd_task_run_worker (GTask          *task,
                         PdTaskWorker    worker,
                         GDestroyNotify  result_destroy);

G_END_DECLS
