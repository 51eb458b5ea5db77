/* pd-multi-source.h: one PdSource over all the sources of a window.
 *
 * The session list of a window with several sources reads them through
 * this: a listing (and a search) asks every source and merges their pages
 * in the list's order (pinned, then most recently updated); every other
 * call goes to the source the session came from.  A session of the first
 * source keeps its id; one of another source is listed as
 * "SOURCE-ID/SESSION-ID" (the source's id in the PdSourceList), so each
 * listed session remembers where it came from.  A source whose listing
 * fails (or that does not answer in time) is said with ::listed; what it
 * listed last is listed for it (pd_multi_source_is_stale()), so an
 * endpoint that goes away keeps its sessions, with its error; one that
 * never answered is left out.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-source.h"
#include "pd-source-list.h"

G_BEGIN_DECLS

#define PD_TYPE_MULTI_SOURCE (pd_multi_source_get_type ())

G_DECLARE_FINAL_TYPE (PdMultiSource, pd_multi_source, PD, MULTI_SOURCE, GObject)

PdMultiSource *pd_multi_source_new         (PdSourceList  *sources);
PdSourceList  *pd_multi_source_get_sources (PdMultiSource *self);
PdSource      *pd_multi_source_resolve     (PdMultiSource *self,
                                            const char    *id,
                                            char         **source_id);
char          *pd_multi_source_make_id     (PdMultiSource *self,
                                            PdSource      *source,
                                            const char    *source_id);
gboolean       pd_multi_source_is_stale    (PdMultiSource *self,
                                            PdSource      *source);
GPtrArray     *pd_multi_source_get_not_searched (PdMultiSource *self);

G_END_DECLS
