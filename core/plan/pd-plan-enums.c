/* pd-plan-enums.c: status tokens of plan steps and acceptance checks.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-plan"

#include "config.h"

#include <string.h>

#include "pd-plan-enums.h"

static const char * const step_tokens[] = {
  [PD_PLAN_STEP_PENDING] = "pending",
  [PD_PLAN_STEP_IN_PROGRESS] = "in_progress",
  [PD_PLAN_STEP_DONE] = "done",
  [PD_PLAN_STEP_BLOCKED] = "blocked",
};

static const char * const check_tokens[] = {
  [PD_PLAN_CHECK_PENDING] = "pending",
  [PD_PLAN_CHECK_PASSED] = "passed",
  [PD_PLAN_CHECK_FAILED] = "failed",
  [PD_PLAN_CHECK_BLOCKED] = "blocked",
};

static const char * const effects_tokens[] = {
  [PD_TOOL_EFFECTS_READ] = "read",
  [PD_TOOL_EFFECTS_WRITE] = "write",
  [PD_TOOL_EFFECTS_UNKNOWN] = "unknown",
};

static gboolean
lookup_token (const char * const *tokens,
              guint               n_tokens,
              const char         *str,
              int                *out)
{
  if (str == NULL)
    return FALSE;

  for (guint i = 0; i < n_tokens; i++)
    {
      if (strcmp (tokens[i], str) == 0)
        {
          *out = (int) i;
          return TRUE;
        }
    }

  return FALSE;
}

const char *
pd_plan_step_status_to_string (PdPlanStepStatus status)
{
  g_return_val_if_fail ((guint) status < G_N_ELEMENTS (step_tokens), "pending");
  return step_tokens[status];
}

gboolean
pd_plan_step_status_from_string (const char       *str,
                                 PdPlanStepStatus *status)
{
  int value;

  if (!lookup_token (step_tokens, G_N_ELEMENTS (step_tokens), str, &value))
    return FALSE;
  *status = (PdPlanStepStatus) value;
  return TRUE;
}

const char *
pd_plan_check_status_to_string (PdPlanCheckStatus status)
{
  g_return_val_if_fail ((guint) status < G_N_ELEMENTS (check_tokens), "pending");
  return check_tokens[status];
}

gboolean
pd_plan_check_status_from_string (const char        *str,
                                  PdPlanCheckStatus *status)
{
  int value;

  if (!lookup_token (check_tokens, G_N_ELEMENTS (check_tokens), str, &value))
    return FALSE;
  *status = (PdPlanCheckStatus) value;
  return TRUE;
}

const char *
pd_tool_effects_to_string (PdToolEffects effects)
{
  g_return_val_if_fail ((guint) effects < G_N_ELEMENTS (effects_tokens), "unknown");
  return effects_tokens[effects];
}

gboolean
pd_tool_effects_from_string (const char    *str,
                             PdToolEffects *effects)
{
  int value;

  if (!lookup_token (effects_tokens, G_N_ELEMENTS (effects_tokens), str, &value))
    return FALSE;
  *effects = (PdToolEffects) value;
  return TRUE;
}
