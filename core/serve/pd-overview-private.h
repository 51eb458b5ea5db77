/* pd-overview-private.h: what PdOverview and its cards share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-overview-card.h"
#include "pd-overview.h"

G_BEGIN_DECLS

PdOverviewCard *_pd_overview_card_new              (PdSource             *source,
                                                    const char           *session_id);
/* Each returns whether anything shown changed. */
gboolean        _pd_overview_card_set_info         (PdOverviewCard       *self,
                                                    const PdSessionInfo  *info);
gboolean        _pd_overview_card_set_current_step (PdOverviewCard       *self,
                                                    gint64                plan_version,
                                                    const char           *step,
                                                    gboolean              started,
                                                    guint                 unpassed,
                                                    const char           *failed_check);
gboolean        _pd_overview_card_set_remote_run   (PdOverviewCard       *self,
                                                    const PdRemoteRun    *run);
gboolean        _pd_overview_card_set_local_approval (PdOverviewCard     *self,
                                                      const char         *tool,
                                                      const char         *command,
                                                      const char         *preview,
                                                      guint               serial);
gboolean        _pd_overview_card_set_source_name  (PdOverviewCard       *self,
                                                    const char           *name);
gboolean        _pd_overview_card_set_source_error (PdOverviewCard       *self,
                                                    const char           *message);
gboolean        _pd_overview_card_update_need      (PdOverviewCard       *self,
                                                    gint64                now,
                                                    gint64                stalled_usec);
gboolean        _pd_overview_card_needs_plan       (PdOverviewCard       *self,
                                                    const PdSessionInfo  *info);
gint64          _pd_overview_card_get_step_due     (PdOverviewCard       *self,
                                                    const PdSessionInfo  *info,
                                                    gint64                interval);
void            _pd_overview_card_mark_step_asked  (PdOverviewCard       *self,
                                                    gint64                now);
gboolean        _pd_overview_card_run_due          (PdOverviewCard       *self,
                                                    gint64                now,
                                                    gint64                interval);
void            _pd_overview_card_mark_run_asked   (PdOverviewCard       *self,
                                                    gint64                now);
void            _pd_overview_card_mark_run_stale   (PdOverviewCard       *self);
/* A list answered after a push must not put its card back (issue 21). */
gboolean        _pd_overview_card_is_newer         (PdOverviewCard       *self,
                                                    const PdSessionInfo  *info);
/* The overview's count of pushes when one last came to the card. */
void            _pd_overview_card_set_pushed_serial (PdOverviewCard    *self,
                                                     guint              serial);
guint           _pd_overview_card_get_pushed_serial (PdOverviewCard    *self);
int             _pd_overview_card_compare          (PdOverviewCard       *a,
                                                    PdOverviewCard       *b);
void            _pd_overview_card_emit_changed     (PdOverviewCard       *self);

/* pd-overview-cards.c: @cards (element-type PdOverviewCard, refs) kept
 * sorted by need, each change told as items-changed of @model. */
void            _pd_overview_cards_insert          (GListModel           *model,
                                                    GPtrArray            *cards,
                                                    PdOverviewCard       *card);
void            _pd_overview_cards_remove          (GListModel           *model,
                                                    GPtrArray            *cards,
                                                    PdOverviewCard       *card);
/* PdOverview's GListModel: _pd_overview_get_cards() in their order. */
GPtrArray      *_pd_overview_get_cards             (PdOverview           *self);
void            _pd_overview_cards_model_init      (GListModelInterface  *iface);
/* After @card changed: where it stands now. */
void            _pd_overview_cards_place           (GListModel           *model,
                                                    GPtrArray            *cards,
                                                    PdOverviewCard       *card);

G_END_DECLS
