/* pd-ui-labels.c: the words the views show for a status, a tool and an
 * event type, and a moment's time (apart from pd-ui-util.c's widget helpers)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-ui-util"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "pd-plan-row-item.h"
#include "pd-run-note.h"
#include "pd-session-state-private.h"
#include "pd-ui-util-private.h"

/**
 * _pd_format_local_time_at:
 * @unix_usec: a moment, in microseconds since the epoch
 * @now: the present, in local time
 *
 * A moment as GNOME's apps show one: its time alone when it is today
 * ("14:02:11"), with its day when not ("14 Mar 14:02:11") and its year too
 * when not this year ("14 Mar 2025 14:02:11").  A Codex session's plan
 * versions a day apart showed their times alone and seemed to go back in
 * time (tried as a new user would).
 *
 * Returns: (transfer full): the text, or "" for an unknown time
 */
char *
_pd_format_local_time_at (gint64     unix_usec,
                          GDateTime *now)
{
  g_autoptr(GDateTime) utc = NULL;
  g_autoptr(GDateTime) local = NULL;
  g_autoptr(GDateTime) here = NULL;
  int year, month, day;
  int now_year, now_month, now_day;

  g_return_val_if_fail (now != NULL, NULL);

  if (unix_usec <= 0)
    return g_strdup ("");

  utc = g_date_time_new_from_unix_utc (unix_usec / G_USEC_PER_SEC);
  if (utc == NULL)
    return g_strdup ("");
  local = g_date_time_to_local (utc);
  here = g_date_time_to_local (now);
  g_date_time_get_ymd (local, &year, &month, &day);
  g_date_time_get_ymd (here, &now_year, &now_month, &now_day);

  if (year == now_year && month == now_month && day == now_day)
    return g_date_time_format (local, "%H:%M:%S");
  if (year == now_year)
    /* Translators: a time on another day of this year, "14 Mar 14:02:11";
     * see g_date_time_format() */
    return g_date_time_format (local, C_("time not today", "%-d %b %H:%M:%S"));
  /* Translators: a time in another year, "14 Mar 2025 14:02:11"; see
   * g_date_time_format() */
  return g_date_time_format (local, C_("time not this year", "%-d %b %Y %H:%M:%S"));
}

/* _pd_format_local_time_at() now. */
char *
_pd_format_local_time (gint64 unix_usec)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();

  return _pd_format_local_time_at (unix_usec, now);
}

/* Whether a step left in progress is "in progress when the run stopped":
 * the session's last run ended short (its budget, a cancel, a failure, a
 * killed process).  The caller adds that no run goes on now. */
gboolean
_pd_run_left_off (PdSessionStatus  status,
                  const char      *stopped)
{
  return stopped != NULL || status == PD_SESSION_STATUS_FAILED || status == PD_SESSION_STATUS_INTERRUPTED;
}

/* A step's glyph on every page: the Now and Checklist pages', the
 * Transcript's plan cards and the History.  A step in progress when the
 * run stopped is a square (@run_stopped: the run working on it stopped
 * and none goes on); it was the square on the Now page and circling
 * arrows in the Transcript and History (tried as a new user would). */
const char *
_pd_step_status_icon_name (PdPlanStepStatus status,
                           gboolean         run_stopped)
{
  if (run_stopped && status == PD_PLAN_STEP_IN_PROGRESS)
    return "media-playback-stop-symbolic";
  return pd_plan_step_status_icon_name (status);
}

/* The words of that glyph, for its tooltip and its spoken name. */
const char *
_pd_step_status_text (PdPlanStepStatus status,
                      gboolean         run_stopped)
{
  if (run_stopped && status == PD_PLAN_STEP_IN_PROGRESS)
    return C_("step status", "In progress when the run stopped");
  return pd_plan_step_status_label (status);
}

/* An imported agent's item it cancelled (its plan's words call it
 * blocked): a minus, quiet, on History as in `sessions show` ("➖"); the
 * checklist strikes it out and says "cancelled". */
const char *
_pd_step_cancelled_icon_name (void)
{
  return "list-remove-symbolic";
}

const char *
_pd_step_cancelled_text (void)
{
  return C_("step status", "Cancelled");
}

/**
 * _pd_enum_label:
 * @labels: NC_() texts of @context, indexed by an enumeration whose first
 *   value (0) is its default
 * @value: the value to name
 *
 * The status labels were switches, one a status, each written again for
 * the step, the check, the session, the plan document: one table each now,
 * read the same way.  A value past the table reads as the default, as the
 * switches' `default:` did.
 *
 * Returns: @value's label, translated
 */
const char *
_pd_enum_label (const char * const *labels,
                gsize               n_labels,
                const char         *context,
                guint               value)
{
  return g_dpgettext2 (GETTEXT_PACKAGE, context, labels[value < n_labels ? value : 0]);
}

const char *
_pd_check_status_label (PdPlanCheckStatus status)
{
  static const char * const labels[] = {
    [PD_PLAN_CHECK_PENDING] = NC_("check status", "pending"),
    [PD_PLAN_CHECK_PASSED] = NC_("check status", "passed"),
    [PD_PLAN_CHECK_FAILED] = NC_("check status", "failed"),
    [PD_PLAN_CHECK_BLOCKED] = NC_("check status", "blocked"),
  };

  return _pd_enum_label (labels, G_N_ELEMENTS (labels), "check status", status);
}

/* A session's status in the words of the session list ("Idle",
 * "Running"). */
const char *
_pd_session_status_label (PdSessionStatus status)
{
  static const char * const labels[] = {
    [PD_SESSION_STATUS_IDLE] = NC_("session status", "Idle"),
    [PD_SESSION_STATUS_RUNNING] = NC_("session status", "Running"),
    [PD_SESSION_STATUS_FAILED] = NC_("session status", "Failed"),
    /* TRANSLATORS: its run's process ended without finishing (killed) */
    [PD_SESSION_STATUS_INTERRUPTED] = NC_("session status", "Interrupted"),
  };

  return _pd_enum_label (labels, G_N_ELEMENTS (labels), "session status", status);
}

/**
 * _pd_session_state_label:
 * @info: a session
 * @now: unix µs
 *
 * A session's state in one word wherever the window says it (its row,
 * an export), as `sessions list` and its Overview card say it: its run
 * ended short "Stopped", another agent's session written lately with
 * steps left "Working", unfinished work unchanged for the Overview's
 * minutes "Stalled" (an export said "Idle" of a session the list called
 * stalled, tried as a new user would), every step of its plan done
 * "Done" (a screen reader heard "Idle" for a row with a tick, nu18); else
 * its status, as pd_session_info_get_shown_state() says it for the CLI.
 */
const char *
_pd_session_state_label (const PdSessionInfo *info,
                         gint64               now)
{
  g_return_val_if_fail (info != NULL, NULL);

  if (pd_session_info_stopped_short (info))
    return C_("session status", "Stopped");
  if (info->status != PD_SESSION_STATUS_RUNNING && pd_session_info_is_working (info, now))
    /* TRANSLATORS: another agent's session written lately with steps left, as its Overview card says */
    return C_("session status", "Working");
  if (pd_session_info_is_stalled (info, now))
    /* TRANSLATORS: unfinished steps unchanged for a while, as its Overview card says */
    return C_("session status", "Stalled");
  if (info->status == PD_SESSION_STATUS_IDLE && info->plan_total > 0 && info->plan_done == info->plan_total)
    /* TRANSLATORS: at rest with every step of its plan done, as its Overview card says */
    return C_("session status", "Done");
  return _pd_session_status_label (info->status);
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
    { "budget_exceeded", N_("Budget ran out") },
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
    { "events_left_out", N_("Events left out") },
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

/* A run's budget in words ("iteration", "token", "time"), from the
 * name the engine gives it; another name, from an endpoint, as it is,
 * made safe and short.  Singular: "its iteration budget", not "its
 * iterations budget" (tried as a new user would). */
char *
_pd_budget_name (const char *name,
                 guint       max_chars)
{
  if (g_strcmp0 (name, "iterations") == 0 || g_strcmp0 (name, "tokens") == 0 || g_strcmp0 (name, "wall_time") == 0)
    return pd_run_note_budget_name (name);
  return _pd_isolated_short (name, max_chars);
}

/* Seconds from @ms: "2 s", "2.5 s"; with @tenths always a tenth ("2.0 s"),
 * as a time measured is (2001 ms read "2 s", as if within a budget of 2). */
static char *
seconds_text (gint64   ms,
              gboolean tenths)
{
  if (!tenths && ms % 1000 == 0)
    /* Translators: a number of seconds, e.g. "2 s" */
    return g_strdup_printf (_("%lld s"), (long long) (ms / 1000));
  /* Translators: seconds with a tenth, e.g. "2.0 s" */
  return g_strdup_printf (_("%.1f s"), (double) (ms / 100) / 10.0);
}

/* How much of a run's budget it used, of how much: "3 of 3", the time
 * budget in seconds ("2.0 s of 2 s"), not the milliseconds the engine
 * counts (it read "2001 of 2000", tried as a new user would). */
char *
_pd_budget_amount (const char *name,
                   gint64      observed,
                   gint64      limit)
{
  if (g_strcmp0 (name, "wall_time") == 0)
    {
      g_autofree char *used = seconds_text (observed, TRUE);
      g_autofree char *allowed = seconds_text (limit, FALSE);

      /* Translators: how much of a run's time budget it used, e.g. "2.0 s of 2 s" */
      return g_strdup_printf (_("%s of %s"), used, allowed);
    }
  /* Translators: how much of a run's budget it used, e.g. "3 of 3" iterations */
  return g_strdup_printf (_("%lld of %lld"), (long long) observed, (long long) limit);
}

/**
 * _pd_run_ended_short_text:
 * @status: the session's status
 * @stopped: (nullable): how its last run ended short (PdSessionInfo.stopped)
 * @error: (nullable): the reason a failed run gave (anyone's text); of a
 *   "budget" stop, the budget (iterations, tokens, wall_time)
 * @max_chars: how much of @error to show at most
 *
 * What a run that ended short of its answer reads as, the same on its
 * Overview card and on its Now page: "Interrupted", "Stopped — cancelled",
 * "Failed — HTTP 500 …".
 *
 * Returns: (transfer full) (nullable): the text, or %NULL when the last run
 *   did not end short (or one is on)
 */
char *
_pd_run_ended_short_text (PdSessionStatus  status,
                          const char      *stopped,
                          const char      *error,
                          guint            max_chars)
{
  /* Its process ended without ending the run (killed): what is known of
   * it, as a run its endpoint stopped says by what. */
  if (status == PD_SESSION_STATUS_INTERRUPTED && stopped == NULL)
    return g_strdup (_("Interrupted — the process running it stopped without ending it"));
  if (status == PD_SESSION_STATUS_INTERRUPTED)
    return g_strdup (_("Interrupted"));
  if (status == PD_SESSION_STATUS_RUNNING || (stopped == NULL && status != PD_SESSION_STATUS_FAILED))
    return NULL;
  if (g_strcmp0 (stopped, "cancelled") == 0 && error != NULL && *error != '\0')
    {
      g_autofree char *safe = _pd_isolated_short (error, max_chars);

      /* Translators: %s says what interrupted the run ("the endpoint (serve) stopped") */
      return g_strdup_printf (_("Interrupted — %s"), safe);
    }
  if (g_strcmp0 (stopped, "cancelled") == 0)
    return g_strdup (_("Stopped — cancelled"));
  if (g_strcmp0 (stopped, "refused") == 0)
    return g_strdup (_("Stopped — the model refused"));
  /* Which budget, as the Events page names it: a run stopped before its
   * plan said only "its budget ran out" (tried as a new user would). */
  if (g_strcmp0 (stopped, "budget") == 0 && error != NULL && *error != '\0')
    {
      g_autofree char *budget = _pd_budget_name (error, max_chars);

      /* Translators: %s names the budget: "iteration", "token" or "time" */
      return g_strdup_printf (_("Stopped — its %s budget ran out"), budget);
    }
  if (g_strcmp0 (stopped, "budget") == 0)
    return g_strdup (_("Stopped — its budget ran out"));
  if (g_strcmp0 (stopped, "incomplete") == 0)
    return g_strdup (_("Stopped — the answer was cut off"));
  if (error != NULL && *error != '\0')
    {
      g_autofree char *safe = _pd_isolated_short (error, max_chars);

      /* Translators: %s is why the run failed, as the model provider said it */
      return g_strdup_printf (_("Failed — %s"), safe);
    }
  return g_strdup (_("Failed"));
}
