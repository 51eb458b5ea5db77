/* pd-overview-entry-private.h: what the parts of PdOverview share (each
 * source followed, its refetch): pd-overview.c and pd-overview-fetch.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-overview-private.h"
#include "pd-remote-source.h"

G_BEGIN_DECLS

typedef struct _Entry Entry;

struct _PdOverview
{
  GObject     parent_instance;

  GListModel *sources;
  GPtrArray  *entries;        /* (element-type Entry), in the order of sources */
  GPtrArray  *cards;          /* (element-type PdOverviewCard), sorted by need */
  guint       active_minutes;
  guint       stalled_minutes;
  guint       min_interval_ms;
  guint       tick;
  guint       refetches;
  gboolean    loaded;
  guint       n_waiting;      /* sources not answered yet */
  GQueue      merges;         /* (element-type Fetch) lists answered, their merge waiting (pd-overview-fetch.c) */
  guint       merge_idle;     /* at the frames' priority (pd-overview-fetch.c) */
};

/* One source followed: its cards, its refetch, its state. */
struct _Entry
{
  PdOverview   *overview;     /* (nullable) unset once the source is gone */
  PdSource     *source;
  char         *name;         /* (nullable) its name in a PdSourceList of sources */
  gulong        changed_id;
  gulong        state_id;
  gulong        pushed_id;
  gulong        event_id;
  gboolean      push_merged;  /* the ::changed that follows a push is for others */
  GCancellable *cancellable;
  GHashTable   *cards;        /* session id → PdOverviewCard (a ref) */
  GHashTable   *approvals;    /* session id → LocalApproval: runs of this window waiting */
  char         *error;        /* (nullable) the source's last failure */
  gboolean      in_flight;
  gboolean      pending;
  gboolean      answered;     /* a first refetch has ended */
  gint64        last_start;   /* monotonic µs */
  gint64        relist_spread; /* µs past PUSHED_RELIST_USEC before its pushes alone have it listed again */
  gint64        stream_seen;  /* its stream at the last listing (pd_remote_source_get_streaming_since()) */
  guint         timer;
  guint         step_timer;   /* a refetch for the steps held back */
  gint64        step_due;     /* monotonic µs; 0: none held back */
  guint         generation;
  guint         push_serial;  /* pushes merged so far (a list knows those before it was asked) */
};

typedef struct
{
  char  *tool;
  char  *command;
  char  *preview;
  guint  serial;
} LocalApproval;

void      _pd_overview_entry_clear          (gpointer             data);

static inline Entry *
entry_ref (Entry *entry)
{
  return g_rc_box_acquire (entry);
}

static inline void
entry_unref (Entry *entry)
{
  g_rc_box_release_full (entry, _pd_overview_entry_clear);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Entry, entry_unref)

static inline gint64
stalled_usec (PdOverview *self)
{
  return (gint64) self->stalled_minutes * 60 * G_USEC_PER_SEC;
}

/* pd-overview.c */
gboolean  _pd_overview_is_active            (PdOverview          *self,
                                             Entry               *entry,
                                             const PdSessionInfo *info,
                                             gint64               now);
void      _pd_overview_insert_card          (PdOverview          *self,
                                             PdOverviewCard      *card);
void      _pd_overview_card_changed         (PdOverview          *self,
                                             PdOverviewCard      *card,
                                             gboolean             need_moved);
gboolean  _pd_overview_entry_apply_approval (Entry               *entry,
                                             PdOverviewCard      *card);
void      _pd_overview_entry_set_error      (Entry               *entry,
                                             const char          *message);
void      _pd_overview_entry_remove_card    (Entry               *entry,
                                             PdOverviewCard      *card);
void      _pd_overview_entry_schedule       (Entry               *entry);
void      _pd_overview_entry_finish_fetch   (Entry               *entry);

/* pd-overview-fetch.c */
void      _pd_overview_merges_clear         (PdOverview          *self);
void      _pd_overview_entry_start_fetch    (Entry               *entry);
void      _pd_overview_entry_merge          (Entry               *entry,
                                             const PdSessionInfo *info,
                                             gboolean             pushed,
                                             gboolean             step_read,
                                             const char          *step,
                                             gboolean             started,
                                             guint                unpassed,
                                             const char          *failed_check,
                                             gboolean             run_read,
                                             const PdRemoteRun   *run,
                                             gint64               now);

G_END_DECLS
