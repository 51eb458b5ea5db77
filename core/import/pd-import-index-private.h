/* pd-import-index-private.h: what PdImportWatcher uses of PdImportIndex, and
 * what its indexing (pd-import-index.c) and reading back
 * (pd-import-index-load.c) share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <sys/stat.h>

#include "pd-import-index.h"

G_BEGIN_DECLS

/* Indexes one transcript file again (a file the watcher saw change, or a
 * new one in a watched folder), and adds the ids of the sessions whose rows
 * it rewrote to @changed_ids.  @queued is @path's lstat when the watcher
 * queued it: a path that is no longer that file or folder, or is a link,
 * is passed over, and a folder is opened by descriptor, never through a
 * link. */
gboolean _pd_import_index_update_file (PdImportIndex       *self,
                                       PdSessionStore      *store,
                                       const char          *path,
                                       const struct stat   *queued,
                                       GPtrArray           *changed_ids,
                                       PdImportIndexStats  *stats,
                                       GCancellable        *cancellable,
                                       GError             **error);

/* The transcript files and OpenCode databases of the index, for monitors.
 * Returns: (transfer full) (element-type utf8) */
GPtrArray *_pd_import_index_list_paths (PdSessionStore  *store,
                                        GError         **error);

/* Applies the stored overrides and user items to @checklist. */
gboolean _pd_import_index_apply_annotations (PdSessionStore  *store,
                                             const char      *session_id,
                                             PdChecklist     *checklist,
                                             GError         **error);

/* What a reading of the transcript depends on (its files' sizes and times),
 * for the pages cache; NULL when the transcript is gone. */
char    *_pd_import_index_signature         (const char      *format,
                                             const char      *path);

G_END_DECLS
