/* pd-session-reads-private.h: how pd-session-reads.c reads the timeline of
 * a long imported transcript a part at a time (pd-session-reads-events.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-session-reads.h"

G_BEGIN_DECLS

/* Bytes the first part of a timeline covers; each next part twice the one
 * before, up to PD_SESSION_READS_PART_BYTES_MAX. */
#define PD_SESSION_READS_PART_BYTES     ((goffset) 256 * 1024)
#define PD_SESSION_READS_PART_BYTES_MAX ((goffset) 2 * 1024 * 1024)
/* Read before a part (and its events not kept) for the calls whose results
 * are in it: a call's result follows it closely. */
#define PD_SESSION_READS_CALL_REACH     ((goffset) 256 * 1024)

typedef struct _PdTimelineParts PdTimelineParts;
typedef PdSessionReadsEventFunc PdTimelineEventFunc;

/* The timeline of imported session @id in parts, when its transcript is
 * long (over the tail threshold) and its reader reads byte ranges (Qwen
 * Code); NULL without an error otherwise (the whole timeline is read as
 * before), NULL with one when the session cannot be looked up. */
PdTimelineParts *_pd_timeline_parts_open   (PdSessionStore      *store,
                                            const char          *id,
                                            GError             **error);
void             _pd_timeline_parts_free   (PdTimelineParts     *self);

/* The events after @after_seq (<= 0: from the first), at most @limit (0:
 * all), of @types only when not %NULL, oldest first: read forward from the
 * line of @after_seq, a part at a time, until there are @limit. */
GPtrArray       *_pd_timeline_parts_after  (PdTimelineParts     *self,
                                            gint64               after_seq,
                                            const char * const  *types,
                                            guint                limit,
                                            GCancellable        *cancellable,
                                            GError             **error);
/* The same, every event handed to @func as its part is read (none kept),
 * until @func returns FALSE.  FALSE on an error. */
gboolean         _pd_timeline_parts_foreach (PdTimelineParts     *self,
                                             gint64               after_seq,
                                             const char * const  *types,
                                             PdTimelineEventFunc  func,
                                             gpointer             user_data,
                                             GCancellable        *cancellable,
                                             GError             **error);
/* The newest @limit events (0: all) before @before_seq (<= 0: the
 * newest), of @types only when not %NULL, oldest first: read backward
 * from the end (or the line of @before_seq), a part at a time. */
GPtrArray       *_pd_timeline_parts_before (PdTimelineParts     *self,
                                            gint64               before_seq,
                                            const char * const  *types,
                                            guint                limit,
                                            GCancellable        *cancellable,
                                            GError             **error);
/* How many bytes of the transcript the reads of @self covered, the parts
 * and what was read before them for their calls (for the tests). */
guint64          _pd_timeline_parts_get_bytes_read (PdTimelineParts *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdTimelineParts, _pd_timeline_parts_free)

G_END_DECLS
