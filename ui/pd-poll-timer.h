/* pd-poll-timer.h: the cadence of a live view's polling
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define PD_TYPE_POLL_TIMER (pd_poll_timer_get_type ())

G_DECLARE_FINAL_TYPE (PdPollTimer, pd_poll_timer, PD, POLL_TIMER, GObject)

/* How the timer schedules its ticks; tests replace it with a fake clock. */
typedef guint (*PdPollAddFunc)    (guint        interval_ms,
                                   GSourceFunc  func,
                                   gpointer     func_data,
                                   gpointer     user_data);
typedef void  (*PdPollRemoveFunc) (guint        id,
                                   gpointer     user_data);

PdPollTimer *pd_poll_timer_new           (guint             running_ms,
                                          guint             idle_ms);
void         pd_poll_timer_set_scheduler (PdPollTimer      *self,
                                          PdPollAddFunc     add,
                                          PdPollRemoveFunc  remove,
                                          gpointer          user_data);
void         pd_poll_timer_set_visible   (PdPollTimer      *self,
                                          gboolean          visible);
gboolean     pd_poll_timer_get_visible   (PdPollTimer      *self);
void         pd_poll_timer_set_running   (PdPollTimer      *self,
                                          gboolean          running);
gboolean     pd_poll_timer_get_running   (PdPollTimer      *self);
guint        pd_poll_timer_get_interval  (PdPollTimer      *self);

G_END_DECLS
