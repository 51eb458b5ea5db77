/* pd-plan-tool.h: the plan tool — the model's checklist (seed 000).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-tool.h"
#include "pd-types.h"

G_BEGIN_DECLS

#define PD_TYPE_PLAN_TOOL (pd_plan_tool_get_type ())

G_DECLARE_FINAL_TYPE (PdPlanTool, pd_plan_tool, PD, PLAN_TOOL, GObject)

PdTool      *pd_plan_tool_new       (PdPlanStore *store);
PdPlanStore *pd_plan_tool_get_store (PdPlanTool  *self);

G_END_DECLS
