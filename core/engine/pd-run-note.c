/* pd-run-note.c: the engine's note of how a run ended, in a person's words.
 *
 * The engine keeps its note for the record in the words it would give a
 * model: "[plandeck: the run stopped because its iterations budget is
 * exhausted (2 of 2).]", then "[plan remaining: s2 in_progress]".  A
 * person reads "The run stopped: its iteration budget ran out (2 of 2)"
 * and "Steps left: s2 in progress", the same in the Transcript's Notice
 * and on `plandeck-agent run`'s stderr (the Transcript showed the engine's
 * words, tried as a new user would).  A line not of these forms is kept as
 * it is.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-engine"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "pd-plan-enums.h"
#include "pd-run-note.h"

/**
 * pd_run_note_budget_name:
 * @name: the engine's name of a budget ("iterations", "tokens",
 *   "wall_time", or "time" as its note says)
 *
 * Returns: (transfer full): the budget in words ("iteration", "token",
 *   "time"): "its iteration budget", not "its iterations budget"; another
 *   name as it is
 */
char *
pd_run_note_budget_name (const char *name)
{
  if (g_strcmp0 (name, "iterations") == 0)
    return g_strdup (C_("budget", "iteration"));
  if (g_strcmp0 (name, "tokens") == 0)
    return g_strdup (C_("budget", "token"));
  if (g_strcmp0 (name, "wall_time") == 0 || g_strcmp0 (name, "time") == 0)
    return g_strdup (C_("budget", "time"));
  return g_strdup (name != NULL ? name : "?");
}

/* A step's status token ("in_progress") in words. */
static const char *
step_status_words (const char *token)
{
  PdPlanStepStatus status;

  if (!pd_plan_step_status_from_string (token, &status))
    return token;
  switch (status)
    {
    case PD_PLAN_STEP_DONE: return C_("steps left", "done");
    case PD_PLAN_STEP_IN_PROGRESS: return C_("steps left", "in progress");
    case PD_PLAN_STEP_BLOCKED: return C_("steps left", "blocked");
    case PD_PLAN_STEP_PENDING:
    default: return C_("steps left", "pending");
    }
}

/* "[plandeck: the run stopped because its NAME budget is exhausted
 * (USED of LIMIT).]" */
static char *
budget_line (const char *line)
{
  static const char prefix[] = "[plandeck: the run stopped because its ";
  static const char middle[] = " budget is exhausted (";
  static const char suffix[] = ").]";
  const char *name_end;
  const char *of;
  g_autofree char *name = NULL;
  g_autofree char *words = NULL;
  g_autofree char *used = NULL;
  g_autofree char *limit = NULL;
  g_autofree char *amount = NULL;

  if (!g_str_has_prefix (line, prefix) || !g_str_has_suffix (line, suffix))
    return NULL;
  name_end = strstr (line + strlen (prefix), middle);
  if (name_end == NULL)
    return NULL;
  of = strstr (name_end + strlen (middle), " of ");
  if (of == NULL || of >= line + strlen (line) - strlen (suffix))
    return NULL;
  name = g_strndup (line + strlen (prefix), name_end - (line + strlen (prefix)));
  used = g_strndup (name_end + strlen (middle), of - (name_end + strlen (middle)));
  limit = g_strndup (of + 4, line + strlen (line) - strlen (suffix) - (of + 4));
  words = pd_run_note_budget_name (name);
  /* Translators: how much of a run's budget it used, e.g. "3 of 3" iterations */
  amount = g_strdup_printf (_("%s of %s"), used, limit);
  /* Translators: %s names the budget ("iteration", "token", "time"), then how
   * much of it the run used ("3 of 3", "2.0 s of 2 s") */
  return g_strdup_printf (_("The run stopped: its %s budget ran out (%s)"), words, amount);
}

/* "[plan remaining: s2 in_progress, s3 pending]" */
static char *
remaining_line (const char *line)
{
  static const char prefix[] = "[plan remaining: ";
  g_autofree char *inner = NULL;
  g_auto(GStrv) steps = NULL;
  g_autoptr(GString) said = g_string_new (NULL);

  if (!g_str_has_prefix (line, prefix) || !g_str_has_suffix (line, "]"))
    return NULL;
  inner = g_strndup (line + strlen (prefix), strlen (line) - strlen (prefix) - 1);
  steps = g_strsplit (inner, ", ", -1);
  for (guint i = 0; steps[i] != NULL; i++)
    {
      const char *space = strrchr (steps[i], ' ');

      if (said->len > 0)
        /* Translators: between the steps a stopped run left */
        g_string_append (said, _(", "));
      if (space == NULL)
        g_string_append (said, steps[i]);
      else
        {
          g_autofree char *id = g_strndup (steps[i], space - steps[i]);

          /* Translators: a step left and its status, e.g. "s2 in progress" */
          g_string_append_printf (said, C_("steps left", "%s %s"), id, step_status_words (space + 1));
        }
    }
  /* Translators: %s lists the plan's steps a stopped run left, "s2 in progress, s3 pending" */
  return g_strdup_printf (_("Steps left: %s"), said->str);
}

/* "[plandeck: the run was cancelled.]", "…interrupted: WHY.]", "…failed: WHY]" */
static char *
ended_line (const char *line)
{
  static const char interrupted[] = "[plandeck: the run was interrupted: ";
  static const char failed[] = "[plandeck: the run failed: ";
  static const char provider[] = "[plandeck: the model provider failed: ";
  g_autofree char *why = NULL;

  if (g_strcmp0 (line, "[plandeck: the run was cancelled.]") == 0)
    return g_strdup (_("The run was stopped"));
  if (g_str_has_prefix (line, interrupted) && g_str_has_suffix (line, ".]"))
    {
      why = g_strndup (line + strlen (interrupted), strlen (line) - strlen (interrupted) - 2);
      /* Translators: %s says what interrupted the run ("the endpoint (serve) stopped") */
      return g_strdup_printf (_("The run was interrupted: %s"), why);
    }
  if ((g_str_has_prefix (line, failed) || g_str_has_prefix (line, provider)) && g_str_has_suffix (line, "]"))
    {
      const char *start = strchr (line, ':') + 1;

      start = strchr (start, ':') + 2;
      why = g_strndup (start, strlen (start) - 1);
      /* Translators: %s says why, as the engine or the provider put it (plain text) */
      return g_strdup_printf (_("The run failed: %s"), why);
    }
  return NULL;
}

/**
 * pd_run_note_to_text:
 * @note: the engine's note (pd_message_new_note()'s text, its lines for a
 *   model, <untrusted_content_…>, taken out already or not)
 *
 * Returns: (transfer full): the note in a person's words, line by line
 */
char *
pd_run_note_to_text (const char *note)
{
  g_auto(GStrv) lines = g_strsplit (note != NULL ? note : "", "\n", -1);
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *said = NULL;

      if ((g_str_has_prefix (lines[i], "<untrusted_content_") || g_str_has_prefix (lines[i], "</untrusted_content_")) &&
          g_str_has_suffix (lines[i], ">"))
        continue;
      said = budget_line (lines[i]);
      if (said == NULL)
        said = remaining_line (lines[i]);
      if (said == NULL)
        said = ended_line (lines[i]);
      if (text->len > 0)
        g_string_append_c (text, '\n');
      g_string_append (text, said != NULL ? said : lines[i]);
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}
