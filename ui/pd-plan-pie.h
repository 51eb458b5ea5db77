/* pd-plan-pie.h: a small pie of a plan's progress
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define PD_TYPE_PLAN_PIE (pd_plan_pie_get_type ())

G_DECLARE_FINAL_TYPE (PdPlanPie, pd_plan_pie, PD, PLAN_PIE, GtkWidget)

GtkWidget *pd_plan_pie_new (void);

G_END_DECLS
