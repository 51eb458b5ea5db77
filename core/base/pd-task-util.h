/* pd-task-util.h: handing a GTask the outcome of a call; why a call was
 * cancelled.
 *
 * A worker thread or a callback that runs a call returning an object (or
 * NULL with an error) gives the task one or the other.  This is that,
 * written once.  A cancellable cancelled for a reason other than a
 * person's stop (the endpoint stopping, the client going away) carries
 * that reason, for whoever records how the call ended.
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

G_END_DECLS
