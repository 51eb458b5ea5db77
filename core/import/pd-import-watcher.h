/* pd-import-watcher.h: follows the transcripts of the import index live.
 *
 * A GFileMonitor on each transcript file of the index and on the folders
 * holding them.  When a file changes (an agent appended a line) or a new
 * transcript appears in a watched folder, the watcher indexes it again in a
 * worker thread through its PdImportIndex (which keeps each file's reader,
 * so only the appended bytes are read), updates the session row's counts,
 * and emits ::changed with the session id on the main context.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "pd-import-index.h"

G_BEGIN_DECLS

#define PD_TYPE_IMPORT_WATCHER (pd_import_watcher_get_type ())
G_DECLARE_FINAL_TYPE (PdImportWatcher, pd_import_watcher, PD, IMPORT_WATCHER, GObject)

PdImportWatcher *pd_import_watcher_new          (PdImportIndex     *index,
                                                 PdSessionStore    *store);
/* Reads the index's files (in a thread) and starts monitoring them. */
void             pd_import_watcher_start_async  (PdImportWatcher   *self,
                                                 GCancellable      *cancellable,
                                                 GAsyncReadyCallback callback,
                                                 gpointer           user_data);
gboolean         pd_import_watcher_start_finish (PdImportWatcher   *self,
                                                 GAsyncResult      *result,
                                                 GError           **error);
/* Also follows @path (a transcript, or a folder for new transcripts). */
gboolean         pd_import_watcher_watch        (PdImportWatcher   *self,
                                                 const char        *path,
                                                 GError           **error);
/* The agents' root folders (pd_import_scanner_dup_roots()): from start,
 * they and their subfolders (a few levels, a bounded count) are followed,
 * so a new task, project or session folder and its transcripts are found
 * while the app runs.  Call before pd_import_watcher_start_async(). */
void             pd_import_watcher_set_roots    (PdImportWatcher   *self,
                                                 const char * const *roots);
/* Stops for good: no more monitors, reads or ::changed, even while a read
 * still running keeps the watcher alive. */
void             pd_import_watcher_stop         (PdImportWatcher   *self);
guint            pd_import_watcher_get_n_watched (PdImportWatcher  *self);
/* What the watcher's updates did, added up. */
void             pd_import_watcher_get_stats    (PdImportWatcher   *self,
                                                 PdImportIndexStats *stats);

G_END_DECLS
