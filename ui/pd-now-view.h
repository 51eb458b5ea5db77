/* pd-now-view.h: the Now workspace, the live plan of one session
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "pd-plan.h"
#include "pd-session-view.h"

G_BEGIN_DECLS

#define PD_TYPE_NOW_VIEW (pd_now_view_get_type ())

G_DECLARE_FINAL_TYPE (PdNowView, pd_now_view, PD, NOW_VIEW, PdSessionView)

GtkWidget  *pd_now_view_new             (void);
void        pd_now_view_set_running     (PdNowView          *self,
                                         gboolean            running);
void        pd_now_view_set_title       (PdNowView          *self,
                                         const char         *title);
void        pd_now_view_refresh         (PdNowView          *self);
char      **pd_now_view_get_notices     (PdNowView          *self);
const PdPlanState *pd_now_view_get_plan (PdNowView          *self);
const char *pd_now_view_get_regression  (PdNowView          *self);
void        pd_now_view_set_run_end     (PdNowView          *self,
                                         PdSessionStatus     status,
                                         const char         *stopped,
                                         const char         *error);
void        pd_now_view_set_approval    (PdNowView          *self,
                                         const char         *tool,
                                         const char         *summary);
const char *pd_now_view_get_approval    (PdNowView          *self);

G_END_DECLS
