/* pd-plan-tool.h: the plan tool — the model's checklist (seed 000).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-tool.h"
#include "pd-types.h"

G_BEGIN_DECLS

/* The plan tool is a built-in (pd-builtin-tools.c) that holds its store. */
typedef PdTool PdPlanTool;

#define PD_PLAN_TOOL(obj)    ((PdPlanTool *) (obj))
#define PD_IS_PLAN_TOOL(obj) (pd_tool_is_builtin ((obj), "plan"))

PdTool      *pd_plan_tool_new       (PdPlanStore *store);
PdPlanStore *pd_plan_tool_get_store (PdPlanTool  *self);

G_END_DECLS
