/* pd-history-changes.c: a plan change as a person reads it (History's
 * change rows: their sentence, icon and kind), apart from the view
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-history-view"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-history-changes-private.h"
#include "pd-plan-row-item.h"
#include "pd-safe-text.h"
#include "pd-ui-util-private.h"

char *
_pd_history_quoted (const char *text)
{
  /* Translators: quotes a plan title or note inside a change line */
  return g_strdup_printf (_("“%s”"), text ? text : "");
}

/* A status token of the plan ("in_progress") as a person reads it. */
const char *
_pd_history_step_status_word (const char *token)
{
  PdPlanStepStatus status;

  if (token != NULL && pd_plan_step_status_from_string (token, &status))
    return pd_plan_step_status_label (status);
  return token ? token : "";
}

static const char *
check_status_word (const char *token)
{
  PdPlanCheckStatus status;

  if (token != NULL && pd_plan_check_status_from_string (token, &status))
    return _pd_check_status_label (status);
  return token ? token : "";
}

/* Anyone's text inside one of our sentences: on one line, its controls
 * shown, in an isolate (see _pd_isolated_line()); "" for none. */
char *
_pd_history_iso (const char *text)
{
  return _pd_isolated_line (text != NULL ? text : "");
}

/* How a person reads one change; plain text.  Every id, title, note,
 * check and reason comes from a model or an agent: each is isolated, so a
 * right-to-left override in one cannot reorder the sentence around it. */
char *
_pd_history_change_text (const PdPlanDiffEntry *entry,
             const char            *step_name)   /* isolated already */
{
  g_autofree char *step = _pd_history_iso (entry->step_id);
  g_autofree char *check = _pd_history_iso (entry->check_id);
  g_autofree char *old_value = _pd_history_iso (entry->old_value);
  g_autofree char *new_value = _pd_history_iso (entry->new_value);
  g_autofree char *new_detail = _pd_history_iso (entry->new_detail);

  switch (entry->kind)
    {
    /* An imported agent's step is named by its text (@step_name, not its
     * id): the id is Plandeck's, a hash of the text when the agent gave
     * none ("Added f8f8d714: Log each reload", tried as a new user would). */
    case PD_PLAN_DIFF_STEP_ADDED:
      if (g_strcmp0 (step_name, step) != 0)
        /* Translators: an agent's item added to its list: "Added “Write tests”" */
        return g_strdup_printf (_("Added %s"), step_name);
      /* Translators: a step added to the plan: "Added s4: Write tests" */
      return g_strdup_printf (_("Added %s: %s"), step, new_value);

    case PD_PLAN_DIFF_STEP_REMOVED:
      if (g_strcmp0 (step_name, step) != 0)
        return g_strdup_printf (_("Removed %s"), step_name);
      return g_strdup_printf (_("Removed %s: %s"), step, old_value);

    case PD_PLAN_DIFF_STEP_TITLE:
      {
        g_autofree char *from = _pd_history_quoted (old_value);
        g_autofree char *to = _pd_history_quoted (new_value);

        return g_strdup_printf (_("%s renamed: %s → %s"), step, from, to);
      }

    case PD_PLAN_DIFF_STEP_STATUS:
      /* Translators: a step's status changed: "s2: Pending → In progress" */
      return g_strdup_printf (_("%s: %s → %s"), step_name, _pd_history_step_status_word (entry->old_value),
                              _pd_history_step_status_word (entry->new_value));

    case PD_PLAN_DIFF_STEP_NOTE:
      {
        g_autofree char *to = _pd_history_quoted (new_value);

        if (entry->new_value == NULL || entry->new_value[0] == '\0')
          return g_strdup_printf (_("%s note cleared"), step);
        return g_strdup_printf (_("%s note: %s"), step, to);
      }

    case PD_PLAN_DIFF_CHECK_ADDED:
      return g_strdup_printf (_("%s check %s added: %s"), step, check, new_detail);

    case PD_PLAN_DIFF_CHECK_REMOVED:
      return g_strdup_printf (_("%s check %s removed"), step, check);

    case PD_PLAN_DIFF_CHECK_REQUIREMENT:
      return g_strdup_printf (_("%s check %s now requires %s"), step, check, new_value);

    case PD_PLAN_DIFF_CHECK_EVIDENCE:
      /* The status stayed and only the evidence changed: a status change
       * "blocked → blocked" said nothing (tried as a new user would). */
      if (g_strcmp0 (entry->old_value, entry->new_value) == 0)
        {
          if (entry->new_detail != NULL)
            /* Translators: a check's status stayed, its evidence is now another
             * tool call: "c1: still passed, evidence now from call_y" */
            return g_strdup_printf (_("%s: still %s, evidence now from %s"), check,
                                    check_status_word (entry->new_value), new_detail);
          /* Translators: a check's status stayed, its evidence was dropped */
          return g_strdup_printf (_("%s: still %s, its evidence was cleared"), check,
                                  check_status_word (entry->new_value));
        }
      /* "c1: pending → passed (call_x)" */
      if (entry->new_detail != NULL)
        return g_strdup_printf (_("%s: %s → %s (%s)"), check, check_status_word (entry->old_value),
                                check_status_word (entry->new_value), new_detail);
      return g_strdup_printf (_("%s: %s → %s"), check, check_status_word (entry->old_value),
                              check_status_word (entry->new_value));

    case PD_PLAN_DIFF_REVISION:
      if (entry->new_detail != NULL && entry->new_detail[0] != '\0')
        /* Translators: the reason a plan was revised, then what changed */
        return g_strdup_printf (_("Revised: %s — %s"), new_value, new_detail);
      return g_strdup_printf (_("Revised: %s"), new_value);

    default:
      return g_strdup ("");
    }
}

/* A change's glyph.  A check's shows the state it came to, as its chip
 * does: every check's change had the tick, and "tests: failed → pending"
 * read as passed (tried as a new user would). */
const char *
_pd_history_change_icon_name (const PdPlanDiffEntry *entry)
{
  PdPlanCheckStatus check;

  if (entry->kind == PD_PLAN_DIFF_CHECK_EVIDENCE && entry->new_value != NULL &&
      pd_plan_check_status_from_string (entry->new_value, &check))
    return pd_plan_check_status_icon_name (check);

  switch (entry->kind)
    {
    case PD_PLAN_DIFF_STEP_ADDED:
    case PD_PLAN_DIFF_CHECK_ADDED:
      return "list-add-symbolic";
    case PD_PLAN_DIFF_STEP_REMOVED:
    case PD_PLAN_DIFF_CHECK_REMOVED:
      return "list-remove-symbolic";
    case PD_PLAN_DIFF_STEP_STATUS:
      return "media-playback-start-symbolic";
    case PD_PLAN_DIFF_REVISION:
      return "emblem-synchronizing-symbolic";
    case PD_PLAN_DIFF_CHECK_EVIDENCE:
    case PD_PLAN_DIFF_STEP_TITLE:
    case PD_PLAN_DIFF_STEP_NOTE:
    case PD_PLAN_DIFF_CHECK_REQUIREMENT:
    default:
      return "document-edit-symbolic";
    }
}

/* What a change's icon says, in words (never the diff's "check_evidence"). */
const char *
_pd_history_change_kind_label (PdPlanDiffKind kind)
{
  switch (kind)
    {
    case PD_PLAN_DIFF_STEP_ADDED:
      return _("Step added");
    case PD_PLAN_DIFF_STEP_REMOVED:
      return _("Step removed");
    case PD_PLAN_DIFF_STEP_TITLE:
      return _("Step renamed");
    case PD_PLAN_DIFF_STEP_STATUS:
      return _("Step status changed");
    case PD_PLAN_DIFF_STEP_NOTE:
      return _("Step note changed");
    case PD_PLAN_DIFF_CHECK_ADDED:
      return _("Check added");
    case PD_PLAN_DIFF_CHECK_REMOVED:
      return _("Check removed");
    case PD_PLAN_DIFF_CHECK_REQUIREMENT:
      return _("Check requirement changed");
    case PD_PLAN_DIFF_CHECK_EVIDENCE:
      return _("Check evidence");
    case PD_PLAN_DIFF_REVISION:
      return _("Plan revised");
    default:
      return _("Change");
    }
}

/* @said: what the change says, or %NULL for change_text()'s */
