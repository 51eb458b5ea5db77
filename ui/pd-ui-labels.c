/* pd-ui-labels.c: the words the views show for a status, a tool and an
 * event type (apart from pd-ui-util.c's widget helpers)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-ui-util"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "pd-plan-row-item.h"
#include "pd-ui-util-private.h"

const char *
_pd_step_status_icon_name (PdPlanStepStatus status)
{
  /* The Now and Checklist pages' glyph, in the Transcript's plan cards
   * and the History too: an in-progress step was a triangle there and
   * circling arrows on the Now page (tried as a new user would).  One
   * glyph for a status everywhere. */
  return pd_plan_step_status_icon_name (status);
}

const char *
_pd_check_status_label (PdPlanCheckStatus status)
{
  switch (status)
    {
    case PD_PLAN_CHECK_PASSED:
      return C_("check status", "passed");
    case PD_PLAN_CHECK_FAILED:
      return C_("check status", "failed");
    case PD_PLAN_CHECK_BLOCKED:
      return C_("check status", "blocked");
    case PD_PLAN_CHECK_PENDING:
    default:
      return C_("check status", "pending");
    }
}

/* A session's status in the words of the session list ("Idle",
 * "Running"). */
const char *
_pd_session_status_label (PdSessionStatus status)
{
  switch (status)
    {
    case PD_SESSION_STATUS_RUNNING:
      return C_("session status", "Running");
    case PD_SESSION_STATUS_FAILED:
      return C_("session status", "Failed");
    case PD_SESSION_STATUS_INTERRUPTED:
      /* TRANSLATORS: its run's process ended without finishing (killed) */
      return C_("session status", "Interrupted");
    case PD_SESSION_STATUS_IDLE:
    default:
      return C_("session status", "Idle");
    }
}

/* What a tool the agent asks to call does, for the question's body (the
 * approval dialog and the overview's card); NULL for a tool of another
 * kind, which the question names itself. */
const char *
_pd_describe_tool (const char *tool)
{
  if (g_strcmp0 (tool, "shell") == 0)
    return _("The agent wants to run a command.");
  if (g_strcmp0 (tool, "write_file") == 0)
    return _("The agent wants to write a file.");
  if (g_strcmp0 (tool, "edit_file") == 0)
    return _("The agent wants to edit a file.");
  return NULL;
}

/* An event type ("tool_call_started") as a person reads it ("Tool call
 * started"); a type this build does not know is shown as it is. */
const char *
_pd_event_type_label (const char *type)
{
  static const struct { const char *type; const char *label; } labels[] = {
    { "run_started", N_("Run started") },
    /* A model turn of the run, numbered in the Iteration column: "Step"
     * read as a step of the plan (tried as a new user would). */
    { "iteration_completed", N_("Iteration completed") },
    { "tool_call_started", N_("Tool call started") },
    { "tool_call_completed", N_("Tool call completed") },
    { "tool_call_failed", N_("Tool call failed") },
    { "session_saved", N_("Session saved") },
    { "context_trimmed", N_("Context trimmed") },
    { "budget_exceeded", N_("Budget exceeded") },
    { "run_completed", N_("Run completed") },
    { "run_failed", N_("Run failed") },
    { "plan_created", N_("Plan created") },
    { "plan_updated", N_("Plan updated") },
    { "plan_blocked", N_("Plan blocked") },
    { "plan_reassessment", N_("Plan reassessed") },
    { "plan_validation_failed", N_("Plan refused") },
    { "subagent_spawned", N_("Subagent started") },
    { "subagent_completed", N_("Subagent finished") },
    { "side_call_usage", N_("Side call") },
    { "plan_mode", N_("Plan mode") },
    { "plan_artifact_saved", N_("Plan saved") },
    { "turn_discarded", N_("Turn discarded") },
    { "provider_retry", N_("Retrying the provider") },
    /* serve's: a run there waits for a person's answer, then no longer does. */
    { "approval_requested", N_("Approval requested") },
    { "approval_resolved", N_("Approval resolved") },
  };

  for (guint i = 0; type != NULL && i < G_N_ELEMENTS (labels); i++)
    if (g_str_equal (type, labels[i].type))
      return _(labels[i].label);
  return type;
}
