/* pd-ui-util.c: small helpers the inspector views share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-ui-util"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-ui-util-private.h"

/* HH:MM:SS in local time, or "" for an unknown time. */
char *
_pd_format_local_time (gint64 unix_usec)
{
  g_autoptr(GDateTime) utc = NULL;
  g_autoptr(GDateTime) local = NULL;

  if (unix_usec <= 0)
    return g_strdup ("");

  utc = g_date_time_new_from_unix_utc (unix_usec / G_USEC_PER_SEC);
  if (utc == NULL)
    return g_strdup ("");
  local = g_date_time_to_local (utc);

  return g_date_time_format (local, "%H:%M:%S");
}

#define FOLLOW_KEY "pd-follow-bottom"

static gboolean
at_bottom (GtkAdjustment *adjustment)
{
  return gtk_adjustment_get_value (adjustment) + gtk_adjustment_get_page_size (adjustment) >=
         gtk_adjustment_get_upper (adjustment) - 2;
}

static void
on_adjustment_value_changed (GtkAdjustment *adjustment)
{
  g_object_set_data (G_OBJECT (adjustment), FOLLOW_KEY, GINT_TO_POINTER (at_bottom (adjustment)));
}

static void
on_adjustment_changed (GtkAdjustment *adjustment)
{
  /* The content grew (or the view was resized): stay at the end when the
   * person was there, stay put otherwise. */
  if (GPOINTER_TO_INT (g_object_get_data (G_OBJECT (adjustment), FOLLOW_KEY)) && !at_bottom (adjustment))
    gtk_adjustment_set_value (adjustment,
                              gtk_adjustment_get_upper (adjustment) -
                              gtk_adjustment_get_page_size (adjustment));
}

/* Tail like `tail -f`: new rows keep the end in view while the person is
 * at the end, and never move a view they scrolled up. */
void
_pd_follow_bottom (GtkScrolledWindow *scroller)
{
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (scroller);

  g_object_set_data (G_OBJECT (adjustment), FOLLOW_KEY, GINT_TO_POINTER (TRUE));
  g_signal_connect (adjustment, "value-changed", G_CALLBACK (on_adjustment_value_changed), NULL);
  g_signal_connect (adjustment, "changed", G_CALLBACK (on_adjustment_changed), NULL);
}

gboolean
_pd_is_following_bottom (GtkScrolledWindow *scroller)
{
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (scroller);

  return GPOINTER_TO_INT (g_object_get_data (G_OBJECT (adjustment), FOLLOW_KEY));
}

const char *
_pd_step_status_icon_name (PdPlanStepStatus status)
{
  switch (status)
    {
    case PD_PLAN_STEP_DONE:
      return "object-select-symbolic";
    case PD_PLAN_STEP_IN_PROGRESS:
      return "media-playback-start-symbolic";
    case PD_PLAN_STEP_BLOCKED:
      return "action-unavailable-symbolic";
    case PD_PLAN_STEP_PENDING:
    default:
      return "radio-symbolic";
    }
}

const char *
_pd_step_status_label (PdPlanStepStatus status)
{
  switch (status)
    {
    case PD_PLAN_STEP_DONE:
      return _("Done");
    case PD_PLAN_STEP_IN_PROGRESS:
      return _("In progress");
    case PD_PLAN_STEP_BLOCKED:
      return _("Blocked");
    case PD_PLAN_STEP_PENDING:
    default:
      return _("Pending");
    }
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

/* An event type ("tool_call_started") as a person reads it ("Tool call
 * started"); a type this build does not know is shown as it is. */
const char *
_pd_event_type_label (const char *type)
{
  static const struct { const char *type; const char *label; } labels[] = {
    { "run_started", N_("Run started") },
    { "iteration_completed", N_("Step completed") },
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
  };

  for (guint i = 0; type != NULL && i < G_N_ELEMENTS (labels); i++)
    if (g_str_equal (type, labels[i].type))
      return _(labels[i].label);
  return type;
}
