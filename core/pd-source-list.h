/* pd-source-list.h: the sources a window shows, as a GListModel of PdSource.
 *
 * A window holds this computer's database first, then every endpoint the
 * user configured (shared/DESIGN.md, "The flows" 2).  Each entry has a
 * stable id (kept in the settings, and the prefix of its sessions' ids in
 * a PdMultiSource) and a name a person reads ("This Computer", "build
 * box").  The sidebar, the Overview and the merged listing all follow it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "pd-source.h"

G_BEGIN_DECLS

/* The id of this computer's database in every list. */
#define PD_SOURCE_LIST_LOCAL_ID "local"

#define PD_TYPE_SOURCE_LIST (pd_source_list_get_type ())

G_DECLARE_FINAL_TYPE (PdSourceList, pd_source_list, PD, SOURCE_LIST, GObject)

PdSourceList *pd_source_list_new        (void);
void          pd_source_list_append     (PdSourceList *self,
                                         PdSource     *source,
                                         const char   *id,
                                         const char   *name);
void          pd_source_list_insert     (PdSourceList *self,
                                         guint         at,
                                         PdSource     *source,
                                         const char   *id,
                                         const char   *name);
gboolean      pd_source_list_remove     (PdSourceList *self,
                                         const char   *id);
void          pd_source_list_remove_all (PdSourceList *self);
PdSource     *pd_source_list_lookup     (PdSourceList *self,
                                         const char   *id,
                                         guint        *position);
gboolean      pd_source_list_find       (PdSourceList *self,
                                         PdSource     *source,
                                         guint        *position);
const char   *pd_source_list_get_id     (PdSourceList *self,
                                         PdSource     *source);
const char   *pd_source_list_get_name   (PdSourceList *self,
                                         PdSource     *source);
gboolean      pd_source_list_set_name   (PdSourceList *self,
                                         const char   *id,
                                         const char   *name);

G_END_DECLS
