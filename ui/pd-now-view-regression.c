/* pd-now-view-regression.c: what went back between two plans, in words
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Now page's notice when progress goes back (a done step no longer
 * done, passed evidence no longer passed), moved out of pd-now-view.c.
 */
#define G_LOG_DOMAIN "pd-now-view"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-now-view-private.h"
#include "pd-plan-diff.h"
#include "pd-safe-text.h"
#include "pd-ui-util-private.h"

static const char *
step_title (const PdPlanState *plan,
            const char        *step_id)
{
  for (guint i = 0; plan != NULL && i < plan->steps->len; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (plan->steps, i);

      if (g_strcmp0 (step->id, step_id) == 0)
        return step->title;
    }
  return step_id;
}

static const char *
status_words (const char *token)
{
  PdPlanStepStatus status = PD_PLAN_STEP_PENDING;

  if (!pd_plan_step_status_from_string (token, &status))
    return token ? token : "";
  switch (status)
    {
    case PD_PLAN_STEP_DONE:
      return C_("step went back from", "done");
    case PD_PLAN_STEP_IN_PROGRESS:
      return C_("step went back to", "in progress");
    case PD_PLAN_STEP_BLOCKED:
      return C_("step went back to", "blocked");
    case PD_PLAN_STEP_PENDING:
    default:
      return C_("step went back to", "pending");
    }
}

/**
 * _pd_now_view_explain_regression:
 * @old_plan: (nullable): the plan shown before
 * @new_plan: the plan shown now
 *
 * Says in plain words what went back between the two (a done step no
 * longer done, passed evidence no longer passed) and the reason the plan
 * gave: its revision reason when the revision is new, else what the
 * runtime does (evidence is invalidated by tool calls that change things).
 *
 * Returns: (transfer full) (nullable): the notice, or %NULL when nothing
 *   went back
 */
char *
_pd_now_view_explain_regression (const PdPlanState *old_plan,
                                 const PdPlanState *new_plan)
{
  g_autoptr(PdPlanDiff) diff = NULL;
  g_autoptr(GString) what = g_string_new (NULL);
  const PdPlanDiffEntry *revision;
  guint n_steps = 0;
  guint n_checks = 0;
  gboolean title_reopened = FALSE;

  if (old_plan == NULL || new_plan == NULL || pd_plan_state_is_empty (old_plan))
    return NULL;

  diff = pd_plan_diff_new (old_plan, new_plan);
  for (guint i = 0; i < diff->entries->len; i++)
    {
      const PdPlanDiffEntry *entry = g_ptr_array_index (diff->entries, i);

      if (entry->kind == PD_PLAN_DIFF_STEP_STATUS &&
          g_strcmp0 (entry->old_value, "done") == 0 && g_strcmp0 (entry->new_value, "done") != 0)
        {
          g_autofree char *title = _pd_isolated_line (step_title (new_plan, entry->step_id));
          g_autofree char *line = NULL;

          /* Translators: a step of the plan went back; “%s” is its title, then its
           * old and new status, e.g. “Run the tests” went back from done to in progress */
          line = g_strdup_printf (_("“%s” went back from %s to %s"), title,
                                  status_words (entry->old_value), status_words (entry->new_value));
          g_string_append_printf (what, "%s%s", what->len ? "; " : "", line);
          n_steps++;
          if (pd_plan_diff_find (diff, PD_PLAN_DIFF_STEP_TITLE, entry->step_id, NULL) != NULL)
            title_reopened = TRUE;
        }
      else if (entry->kind == PD_PLAN_DIFF_CHECK_EVIDENCE &&
               g_strcmp0 (entry->old_value, "passed") == 0 && g_strcmp0 (entry->new_value, "passed") != 0)
        n_checks++;
    }

  if (n_steps == 0 && n_checks == 0)
    return NULL;

  if (n_checks > 0)
    {
      g_autofree char *line =
        /* Translators: acceptance checks whose passing evidence no longer counts */
        g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                      "%u passed check must be run again",
                                      "%u passed checks must be run again", n_checks),
                         n_checks);

      g_string_append_printf (what, "%s%s", what->len ? "; " : "", line);
    }

  revision = pd_plan_diff_find (diff, PD_PLAN_DIFF_REVISION, NULL, NULL);
  if (revision != NULL && revision->new_value != NULL && revision->new_value[0] != '\0')
    {
      g_autofree char *reason = _pd_isolated_line (revision->new_value);

      /* Translators: %s says what went back, then the plan's revision reason (model text) */
      return g_strdup_printf (_("Progress went back: %s. The plan was revised: %s"), what->str, reason);
    }
  if (title_reopened)
    /* Translators: %s says what went back */
    return g_strdup_printf (_("Progress went back: %s. A step’s title changed, which reopens it."), what->str);
  if (n_checks > 0)
    /* Translators: %s says what went back.  Continuing a session starts a
     * new run, and evidence does not carry over into it (the plan spec's
     * resume rule); the page cannot tell that from a tool call. */
    return g_strdup_printf (_("Progress went back: %s. A tool call that changes files or runs commands invalidates the evidence of earlier checks, and so does continuing the session: evidence does not carry over into a new run."),
                            what->str);
  /* Translators: %s says what went back */
  return g_strdup_printf (_("Progress went back: %s. The agent changed the step’s status."), what->str);
}
