/* pd-overview-card-need.c: what an Overview card says its session needs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The texts of a card's need and of its step line, and the need's style,
 * apart from the card's row (pd-overview-card-row.c), which had grown to
 * the length a file may have.
 */
#define G_LOG_DOMAIN "pd-overview-card-row"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "pd-overview-card-need-private.h"
#include "pd-ui-util-private.h"

/* A run that ended short: interrupted, failed with its reason, or stopped
 * with what stopped it, as its Now page says it. */
static char *
failed_text (PdOverviewCard *card,
             guint           max_chars)
{
  const char *check = pd_overview_card_get_failed_check (card);
  char *text;

  /* A run that completed, a step's check failed: it is done, with what
   * failed named (it read "Working", then "Stalled"). */
  if (check != NULL && pd_overview_card_get_stopped (card) == NULL &&
      pd_overview_card_get_status (card) != PD_SESSION_STATUS_FAILED &&
      pd_overview_card_get_status (card) != PD_SESSION_STATUS_INTERRUPTED)
    {
      g_autofree char *safe = _pd_isolated_short (check, max_chars);

      /* Translators: the run completed, but the acceptance check %s (its description) failed */
      return g_strdup_printf (_("Done · check failed: %s"), safe);
    }
  text = _pd_run_ended_short_text (pd_overview_card_get_status (card), pd_overview_card_get_stopped (card),
                                         pd_overview_card_get_stopped_error (card), max_chars);

  return text != NULL ? text : g_strdup (_("Failed"));
}

char *
_pd_overview_card_need_text (PdOverviewCard *card)
{
  guint blocked = pd_overview_card_get_blocked (card);

  switch (pd_overview_card_get_need (card))
    {
    case PD_OVERVIEW_NEED_APPROVAL:
      return g_strdup (_("Waiting for Approval"));
    case PD_OVERVIEW_NEED_BLOCKED:
      /* Translators: %u is a number of plan steps */
      return g_strdup_printf (ngettext ("%u Step Blocked", "%u Steps Blocked", blocked), blocked);
    case PD_OVERVIEW_NEED_UNVERIFIED:
      {
        guint unpassed = pd_overview_card_get_unpassed_checks (card);

        /* Translators: all steps done, but %u acceptance checks were denied, failed or never run */
        return g_strdup_printf (ngettext ("Done · %u check not passed", "Done · %u checks not passed", unpassed),
                                unpassed);
      }
    case PD_OVERVIEW_NEED_FAILED:
      return failed_text (card, CARD_TEXT_CHARS);
    case PD_OVERVIEW_NEED_STALLED:
      return g_strdup (_("Stalled"));
    case PD_OVERVIEW_NEED_STOPPED:
      /* Its budget ran out: which one ("Stopped — its time budget ran
       * out"), neutral as the person's stop. */
      if (g_strcmp0 (pd_overview_card_get_stopped (card), "budget") == 0)
        return failed_text (card, CARD_TEXT_CHARS);
      /* Its run completed with steps left: it ended, and how far it got
       * (it read "Working" while nothing ran). */
      if (pd_overview_card_get_stopped (card) == NULL &&
          pd_overview_card_get_status (card) == PD_SESSION_STATUS_INTERRUPTED)
        /* Translators: on an Overview card, the process that ran the agent's run stopped without ending it */
        return g_strdup (C_("overview card", "Interrupted"));
      if (pd_overview_card_get_stopped (card) == NULL)
        /* Translators: on an Overview card, the agent's run ended with plan steps left; %u/%u are steps done and all steps */
        return g_strdup_printf (C_("overview card", "Run ended · %u/%u done"),
                                pd_overview_card_get_done (card), pd_overview_card_get_total (card));
      /* A cancel with a reason was no person's: the endpoint stopped, or
       * the client following the run went away. */
      if (pd_overview_card_get_stopped_error (card) != NULL)
        /* Translators: on an Overview card, the agent's run was cut short by its endpoint stopping */
        return g_strdup (C_("overview card", "Interrupted"));
      /* Translators: on an Overview card, the person stopped the agent's run */
      return g_strdup (C_("overview card", "Stopped"));
    case PD_OVERVIEW_NEED_RUNNING:
      return g_strdup (pd_overview_card_get_status (card) == PD_SESSION_STATUS_RUNNING
                       ? _("Running") : _("Working"));
    case PD_OVERVIEW_NEED_DONE:
    default:
      return g_strdup (pd_overview_card_get_total (card) > 0 ? _("Done") : _("Changed Lately"));
    }
}

/* A failed card's reason, whole (up to CARD_WHOLE_CHARS): the card wraps
 * it to three lines and cuts it there, with nowhere to read the rest (tried
 * as a new user would); its tooltip and its description say it.  NULL of
 * any other card. */
char *
_pd_overview_card_need_whole (PdOverviewCard *card)
{
  if (pd_overview_card_get_need (card) != PD_OVERVIEW_NEED_FAILED)
    return NULL;
  return failed_text (card, CARD_WHOLE_CHARS);
}

const char *
_pd_overview_card_need_class (PdOverviewNeed need)
{
  switch (need)
    {
    case PD_OVERVIEW_NEED_APPROVAL:
    case PD_OVERVIEW_NEED_BLOCKED:
    case PD_OVERVIEW_NEED_UNVERIFIED:
    case PD_OVERVIEW_NEED_STALLED:
      return "warning";
    case PD_OVERVIEW_NEED_FAILED:
      return "error";
    case PD_OVERVIEW_NEED_DONE:
      return "success";
    case PD_OVERVIEW_NEED_STOPPED:
      /* The person's own choice, or the budget they set: neither a
       * failure nor a success. */
      return "dim-label";
    case PD_OVERVIEW_NEED_RUNNING:
    default:
      return "accent";
    }
}

/* The step the plan stands at: "Now: …" while the session goes on; where
 * a run that failed or stopped left it, once it is over.  A failed or
 * stopped card said "Now: …" as if the step were still being worked on
 * (tried as a new user would). */
char *
_pd_overview_card_step_text (PdOverviewCard *card)
{
  g_autofree char *safe = _pd_isolated_short (pd_overview_card_get_current_step (card), CARD_TEXT_CHARS);

  switch (pd_overview_card_get_need (card))
    {
    case PD_OVERVIEW_NEED_FAILED:
    case PD_OVERVIEW_NEED_STOPPED:
      /* No step was in progress: the run ended between steps, and the one
       * named is the next, which it never began; "Stopped at: …" said it
       * had (tried as a new user would). */
      if (!pd_overview_card_get_current_step_started (card))
        /* Translators: %s is the title of the next plan step, which the agent's run (now ended) never began */
        return g_strdup_printf (_("Next step: %s"), safe);
      break;
    default:
      break;
    }

  switch (pd_overview_card_get_need (card))
    {
    case PD_OVERVIEW_NEED_FAILED:
      /* Translators: %s is the title of the plan step where the agent's run failed */
      return g_strdup_printf (_("Failed at: %s"), safe);
    case PD_OVERVIEW_NEED_STOPPED:
      /* Translators: %s is the title of the plan step where the agent's run stopped */
      return g_strdup_printf (_("Stopped at: %s"), safe);
    default:
      /* Translators: %s is the title of the plan step the agent works on */
      return g_strdup_printf (_("Now: %s"), safe);
    }
}
