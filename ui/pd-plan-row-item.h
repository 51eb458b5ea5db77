/* pd-plan-row-item.h: one step of the shown plan, as a GObject for binding
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "pd-plan.h"

G_BEGIN_DECLS

#define PD_TYPE_PLAN_ROW_ITEM (pd_plan_row_item_get_type ())

G_DECLARE_FINAL_TYPE (PdPlanRowItem, pd_plan_row_item, PD, PLAN_ROW_ITEM, GObject)

PdPlanRowItem    *pd_plan_row_item_new          (const PdPlanStep *step);
const PdPlanStep *pd_plan_row_item_get_step     (PdPlanRowItem    *self);
const char       *pd_plan_row_item_get_id       (PdPlanRowItem    *self);
gboolean          pd_plan_row_item_set_step     (PdPlanRowItem    *self,
                                                 const PdPlanStep *step);
gboolean          pd_plan_row_item_get_halted   (PdPlanRowItem    *self);
const char       *pd_plan_step_status_icon_name (PdPlanStepStatus  status);
const char       *pd_plan_step_status_label     (PdPlanStepStatus  status);
const char       *pd_plan_check_status_icon_name (PdPlanCheckStatus status);
const char       *pd_plan_check_status_label    (PdPlanCheckStatus status);

/* The plan's steps as PdPlanRowItems, merged by step id. */
GListStore       *pd_plan_rows_new              (void);
void              pd_plan_rows_merge            (GListStore        *rows,
                                                 const PdPlanState *plan);
void              pd_plan_rows_set_halted       (GListStore        *rows,
                                                 gboolean           halted);

G_END_DECLS
