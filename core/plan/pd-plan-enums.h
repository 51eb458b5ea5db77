/* pd-plan-enums.h: status tokens of plan steps and acceptance checks.
 *
 * The tokens are part of the rendered plan grammar (seed 000) and of the
 * wire formats, so they are spelled exactly and never translated.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  PD_PLAN_STEP_PENDING,
  PD_PLAN_STEP_IN_PROGRESS,
  PD_PLAN_STEP_DONE,
  PD_PLAN_STEP_BLOCKED,
} PdPlanStepStatus;

typedef enum
{
  PD_PLAN_CHECK_PENDING,
  PD_PLAN_CHECK_PASSED,
  PD_PLAN_CHECK_FAILED,
  PD_PLAN_CHECK_BLOCKED,
} PdPlanCheckStatus;

/* What a tool call can do to the world, as the evidence rules see it: a call
 * with write or unknown effects that matches no check invalidates evidence. */
typedef enum
{
  PD_TOOL_EFFECTS_READ,
  PD_TOOL_EFFECTS_WRITE,
  PD_TOOL_EFFECTS_UNKNOWN,
} PdToolEffects;

const char *pd_plan_step_status_to_string  (PdPlanStepStatus   status);
gboolean    pd_plan_step_status_from_string (const char        *str,
                                             PdPlanStepStatus  *status);
const char *pd_plan_check_status_to_string (PdPlanCheckStatus  status);
gboolean    pd_plan_check_status_from_string (const char       *str,
                                              PdPlanCheckStatus *status);
const char *pd_tool_effects_to_string      (PdToolEffects      effects);
gboolean    pd_tool_effects_from_string    (const char        *str,
                                            PdToolEffects     *effects);

G_END_DECLS
