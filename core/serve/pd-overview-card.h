/* pd-overview-card.h: one active session on the Overview, from any source.
 *
 * What the Overview shows of a session that is working or was changed a
 * short while ago: its source, agent, title, progress, the current step, a
 * question its run waits on, and what it needs from the user.  A card is
 * kept and changed in place by PdOverview (pd-overview.h) as its source
 * changes; "notify" says which values changed.  Every text is the agent's
 * or the server's (model-derived, untrusted): plain text only.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-remote-run.h"
#include "pd-source.h"

G_BEGIN_DECLS

/* What a session needs from the user, most first: the Overview's order. */
typedef enum
{
  PD_OVERVIEW_NEED_APPROVAL,  /* its run waits on a question */
  PD_OVERVIEW_NEED_BLOCKED,   /* a step of its plan is blocked */
  PD_OVERVIEW_NEED_UNVERIFIED, /* all steps done, a check not passed */
  PD_OVERVIEW_NEED_FAILED,    /* its run failed or was interrupted, or ended with a check failed */
  PD_OVERVIEW_NEED_STALLED,   /* unfinished steps, no change for the stalled time */
  PD_OVERVIEW_NEED_RUNNING,   /* working: a run, or unfinished steps changed lately */
  PD_OVERVIEW_NEED_DONE,      /* changed lately, nothing left to do */
  PD_OVERVIEW_NEED_STOPPED,   /* its run was stopped by the user or its budget, or completed with steps left:
                               * ranked with DONE, by time */
} PdOverviewNeed;

#define PD_TYPE_OVERVIEW_NEED (pd_overview_need_get_type ())
GType pd_overview_need_get_type (void) G_GNUC_CONST;

#define PD_TYPE_OVERVIEW_CARD (pd_overview_card_get_type ())

G_DECLARE_FINAL_TYPE (PdOverviewCard, pd_overview_card, PD, OVERVIEW_CARD, GObject)

PdSource          *pd_overview_card_get_source        (PdOverviewCard *self);
const char        *pd_overview_card_get_source_title  (PdOverviewCard *self);
const char        *pd_overview_card_get_source_kind   (PdOverviewCard *self);
const char        *pd_overview_card_get_source_error  (PdOverviewCard *self);
const char        *pd_overview_card_get_session_id    (PdOverviewCard *self);
const char        *pd_overview_card_get_agent         (PdOverviewCard *self);
const char        *pd_overview_card_get_title         (PdOverviewCard *self);
PdSessionStatus    pd_overview_card_get_status        (PdOverviewCard *self);
const char        *pd_overview_card_get_stopped       (PdOverviewCard *self);
const char        *pd_overview_card_get_stopped_error (PdOverviewCard *self);
guint              pd_overview_card_get_done          (PdOverviewCard *self);
guint              pd_overview_card_get_total         (PdOverviewCard *self);
guint              pd_overview_card_get_blocked       (PdOverviewCard *self);
gint64             pd_overview_card_get_plan_version  (PdOverviewCard *self);
const char        *pd_overview_card_get_current_step  (PdOverviewCard *self);
gboolean           pd_overview_card_get_current_step_started (PdOverviewCard *self);
gint64             pd_overview_card_get_changed_at    (PdOverviewCard *self);
PdOverviewNeed     pd_overview_card_get_need          (PdOverviewCard *self);
const char        *pd_overview_card_get_approval_tool (PdOverviewCard *self);
const char        *pd_overview_card_get_approval_command (PdOverviewCard *self);
const char        *pd_overview_card_get_approval_summary (PdOverviewCard *self);
gboolean           pd_overview_card_get_approval_whole (PdOverviewCard *self);
const PdRemoteRun *pd_overview_card_get_remote_run    (PdOverviewCard *self);
guint              pd_overview_card_get_approval_serial (PdOverviewCard *self);
gboolean           pd_overview_card_has_approval      (PdOverviewCard *self);
gint64             pd_overview_card_get_approval_deadline (PdOverviewCard *self);
guint              pd_overview_card_get_unpassed_checks (PdOverviewCard *self);
const char        *pd_overview_card_get_failed_check  (PdOverviewCard *self);

G_END_DECLS
