/* pd-plan-row.h: one step in the Now workspace
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "pd-plan-row-item.h"

G_BEGIN_DECLS

#define PD_TYPE_PLAN_ROW (pd_plan_row_get_type ())

G_DECLARE_FINAL_TYPE (PdPlanRow, pd_plan_row, PD, PLAN_ROW, GtkListBoxRow)

GtkWidget     *pd_plan_row_new            (PdPlanRowItem *item);
GtkWidget     *pd_plan_row_new_lazy       (PdPlanRowItem *item);
gboolean       pd_plan_row_ensure_content (PdPlanRow     *self);
gboolean       pd_plan_row_has_content    (PdPlanRow     *self);
PdPlanRowItem *pd_plan_row_get_item       (PdPlanRow     *self);

G_END_DECLS
