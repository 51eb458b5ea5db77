/* pd-plan-status.c: the plan as a person reads it in a chat or a terminal.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-plan"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "pd-plan-status.h"

const char *
pd_plan_step_status_glyph (PdPlanStepStatus status)
{
  switch (status)
    {
    case PD_PLAN_STEP_DONE: return "\xe2\x9c\x85";               /* ✅ */
    case PD_PLAN_STEP_IN_PROGRESS: return "\xf0\x9f\x94\x84";    /* 🔄 */
    case PD_PLAN_STEP_BLOCKED: return "\xe2\x9b\x94";            /* ⛔ */
    case PD_PLAN_STEP_PENDING:
    default: return "\xe2\xac\x9c";                              /* ⬜ */
    }
}

/* An imported agent's cancelled item: neither done nor blocked. */
#define CANCELLED_GLYPH "\xe2\x9e\x96"   /* ➖ */
/* A step left in progress by a run that stopped: the window's square. */
#define HALTED_GLYPH "\xe2\x8f\xb9"      /* ⏹ */

static char *
step_line (const PdPlanStep *step,
           gboolean          cancelled,
           gboolean          run_stopped)
{
  gboolean halted = !cancelled && run_stopped && step->status == PD_PLAN_STEP_IN_PROGRESS;
  GString *line = g_string_new (cancelled ? CANCELLED_GLYPH :
                                halted ? HALTED_GLYPH : pd_plan_step_status_glyph (step->status));

  g_string_append_printf (line, " %s %s", step->id, step->title);
  if (cancelled)
    g_string_append (line, " (cancelled)");
  /* Nothing works on it any more: the circling arrows said it went on,
   * where the window shows the square and says so (tried as a new user
   * would). */
  if (halted)
    /* Translators: after a plan step in `plan status`, as the window's
     * "In progress when the run stopped" */
    g_string_append_printf (line, " (%s)", _("in progress when the run stopped"));

  if (step->note != NULL && *step->note)
    {
      g_string_append (line, " \xe2\x80\x94 ");
      if (g_utf8_strlen (step->note, -1) > PD_PLAN_STATUS_NOTE_CHARS)
        {
          g_autofree char *cut = g_utf8_substring (step->note, 0, PD_PLAN_STATUS_NOTE_CHARS - 1);
          g_string_append (line, cut);
          g_string_append (line, "\xe2\x80\xa6");   /* … */
        }
      else
        g_string_append (line, step->note);
    }

  /* A step marked done whose checks did not all pass (a denied test run,
   * say) is the model's word only: say so, as the window's check chips do. */
  if (step->status == PD_PLAN_STEP_DONE)
    {
      gboolean first = TRUE;

      for (guint i = 0; i < step->checks->len; i++)
        {
          const PdPlanCheck *check = g_ptr_array_index (step->checks, i);

          if (check->status == PD_PLAN_CHECK_PASSED)
            continue;
          g_string_append (line, first ? " \xc2\xb7 unverified: check " : ", check ");
          g_string_append_printf (line, "%s %s", check->id, pd_plan_check_status_to_string (check->status));
          first = FALSE;
        }
    }

  return g_string_free (line, FALSE);
}

/**
 * pd_plan_format_status:
 * @state: (nullable): the plan
 * @max_chars: the bound in characters, e.g. %PD_PLAN_STATUS_MAX_CHARS
 *
 * Returns: (transfer full): the status text; %PD_PLAN_STATUS_NO_PLAN
 *   without a plan
 */
char *
pd_plan_format_status (const PdPlanState *state,
                       guint              max_chars)
{
  return pd_plan_format_status_marked (state, max_chars, NULL, FALSE);
}

/**
 * pd_plan_format_status_marked:
 * @state: (nullable): the plan
 * @max_chars: the bound in characters
 * @cancelled: (nullable) (element-type utf8): ids of blocked steps that are
 *   an imported agent's cancelled items
 * @run_stopped: the session's last run ended short (stopped, failed,
 *   interrupted) and none goes on: a step in progress is shown as the
 *   window shows it, ⏹ "(in progress when the run stopped)"
 *
 * pd_plan_format_status() of an imported agent's plan, whose cancelled
 * items the plan's words call blocked: they are shown cancelled and
 * counted out of the steps ("3/4 done · 1 cancelled"), as the window
 * shows them.
 *
 * Returns: (transfer full): the status text
 */
char *
pd_plan_format_status_marked (const PdPlanState *state,
                              guint              max_chars,
                              GHashTable        *cancelled,
                              gboolean           run_stopped)
{
  g_autoptr(GPtrArray) lines = NULL;
  g_autoptr(GString) out = NULL;
  PdPlanCounts counts;
  guint n_cancelled = 0;
  glong used;
  guint kept = 0;

  if (state == NULL || state->version <= 0)
    return g_strdup (PD_PLAN_STATUS_NO_PLAN);

  pd_plan_state_count (state, &counts);
  for (guint i = 0; cancelled != NULL && i < state->steps->len; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (state->steps, i);

      n_cancelled += step->status == PD_PLAN_STEP_BLOCKED && g_hash_table_contains (cancelled, step->id);
    }

  out = g_string_new ("\xf0\x9f\x93\x8b Plan \xe2\x80\x94 ");   /* 📋 Plan — */
  if (counts.steps == 0)
    {
      /* A collapsed all-done plan keeps its version but not its rows. */
      g_string_append_printf (out, "v%" G_GINT64_FORMAT " \xc2\xb7 all steps complete", state->version);
      return g_string_free (g_steal_pointer (&out), FALSE);
    }

  g_string_append_printf (out, "v%" G_GINT64_FORMAT " \xc2\xb7 %u/%u done", state->version, counts.done,
                          counts.steps - n_cancelled);
  if (counts.blocked > n_cancelled)
    g_string_append_printf (out, " \xc2\xb7 %u blocked", counts.blocked - n_cancelled);
  if (n_cancelled > 0)
    g_string_append_printf (out, " \xc2\xb7 %u cancelled", n_cancelled);

  lines = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < state->steps->len; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (state->steps, i);

      g_ptr_array_add (lines, step_line (step, step->status == PD_PLAN_STEP_BLOCKED && cancelled != NULL
                                                 && g_hash_table_contains (cancelled, step->id),
                                         run_stopped));
    }

  used = g_utf8_strlen (out->str, -1);

  {
    glong total = used;

    for (guint i = 0; i < lines->len; i++)
      total += 1 + g_utf8_strlen (g_ptr_array_index (lines, i), -1);

    if (total <= (glong) max_chars)
      kept = lines->len;
  }

  /* Otherwise keep whole lines while they leave room for the trailer. */
  for (; kept < lines->len; kept++)
    {
      glong line_chars = 1 + g_utf8_strlen (g_ptr_array_index (lines, kept), -1);
      g_autofree char *trailer = g_strdup_printf ("\n%u more step(s) omitted", lines->len - kept - 1);

      if (used + line_chars + g_utf8_strlen (trailer, -1) > (glong) max_chars)
        break;
      used += line_chars;
    }

  for (guint i = 0; i < kept; i++)
    {
      g_string_append_c (out, '\n');
      g_string_append (out, g_ptr_array_index (lines, i));
    }

  if (kept < lines->len)
    g_string_append_printf (out, "\n%u more step(s) omitted", lines->len - kept);

  return g_string_free (g_steal_pointer (&out), FALSE);
}
