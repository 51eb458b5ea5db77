/* pd-now-view-private.h: what the tests look at inside the Now workspace
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-now-view.h"
#include "pd-plan.h"
#include "pd-poll-timer.h"

G_BEGIN_DECLS

typedef enum
{
  PD_NOW_APPLIED,    /* shown */
  PD_NOW_UNCHANGED,  /* same version and content as shown: nothing changed */
  PD_NOW_DROPPED,    /* late: another session, or an older version */
} PdNowApply;

PdNowApply   _pd_now_view_apply_plan       (PdNowView         *self,
                                            const char        *session_id,
                                            const PdPlanState *plan);
PdPollTimer *_pd_now_view_get_poll_timer   (PdNowView         *self);
GListModel  *_pd_now_view_get_rows         (PdNowView         *self);
GtkWidget   *_pd_now_view_get_row_widget   (PdNowView         *self,
                                            guint              position);
gboolean     _pd_now_view_row_is_made      (PdNowView         *self,
                                            guint              position);
GtkWidget   *_pd_now_view_get_rows_box     (PdNowView         *self);
guint        _pd_now_view_get_n_replies    (PdNowView         *self);
gboolean     _pd_now_view_get_page_visible (PdNowView         *self);
char        *_pd_now_view_explain_regression (const PdPlanState *old_plan,
                                              const PdPlanState *new_plan);

G_END_DECLS
