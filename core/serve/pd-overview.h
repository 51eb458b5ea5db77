/* pd-overview.h: every active session of many sources, as cards.
 *
 * A GListModel of PdOverviewCard over a GListModel of PdSource (this
 * computer's database, other agents' transcripts, remote endpoints): a card
 * per session that is working (a run going on) or was changed in the last
 * active-minutes, sorted by what it needs from the user (PdOverviewNeed),
 * then newest first.
 *
 * Updates are pushed: each source's PdSource::changed (a remote source's
 * event stream, a database's watcher) starts a refetch of that source only,
 * coalesced: one in flight and one pending at most, and no more often than
 * every min-interval-ms.  A refetch reads the source's newest sessions and,
 * for those whose plan changed, the plan (its current step), and for a
 * remote run going on, the question it waits on; then merges by key into
 * the model: a card is changed in place, moved, removed or inserted where it
 * belongs, never cleared and refilled.  Every read is the source's own
 * _async call (worker threads, or the SoupSession): the main context does
 * the merge alone.  Each source has its own cancellable: a source that
 * hangs or fails leaves the other sources' cards alone, and its own keep
 * their last values with the source's error (pd_overview_card_get_source_error()).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-overview-card.h"

G_BEGIN_DECLS

/* How long a session counts as active after its last change, by default. */
#define PD_OVERVIEW_ACTIVE_MINUTES 30
/* How long unfinished steps may go unchanged before a card is stalled. */
#define PD_OVERVIEW_STALLED_MINUTES PD_SESSION_WORKING_MINUTES
/* The shortest time between two refetches of one source, by default. */
#define PD_OVERVIEW_MIN_INTERVAL_MS 250

#define PD_TYPE_OVERVIEW (pd_overview_get_type ())

G_DECLARE_FINAL_TYPE (PdOverview, pd_overview, PD, OVERVIEW, GObject)

PdOverview     *pd_overview_new                  (GListModel *sources);
GListModel     *pd_overview_get_sources          (PdOverview *self);
guint           pd_overview_get_active_minutes   (PdOverview *self);
void            pd_overview_set_active_minutes   (PdOverview *self,
                                                  guint       minutes);
guint           pd_overview_get_stalled_minutes  (PdOverview *self);
void            pd_overview_set_stalled_minutes  (PdOverview *self,
                                                  guint       minutes);
guint           pd_overview_get_min_interval_ms  (PdOverview *self);
void            pd_overview_set_min_interval_ms  (PdOverview *self,
                                                  guint       ms);
gboolean        pd_overview_get_loaded           (PdOverview *self);
gboolean        pd_overview_get_answered         (PdOverview *self,
                                                  PdSource   *source);
guint           pd_overview_get_n_waiting        (PdOverview *self);
char           *pd_overview_dup_waiting_names    (PdOverview *self,
                                                  PdSource   *source);
void            pd_overview_refresh              (PdOverview *self);
void            pd_overview_refresh_source       (PdOverview *self,
                                                  PdSource   *source);
PdOverviewCard *pd_overview_find                 (PdOverview *self,
                                                  PdSource   *source,
                                                  const char *session_id);
void            pd_overview_set_local_approval   (PdOverview *self,
                                                  PdSource   *source,
                                                  const char *session_id,
                                                  const char *tool,
                                                  const char *command,
                                                  const char *preview,
                                                  guint       serial);
guint           pd_overview_get_n_refetches      (PdOverview *self);

G_END_DECLS
