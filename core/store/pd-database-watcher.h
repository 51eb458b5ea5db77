/* pd-database-watcher.h: notices commits to a session database, pushed.
 *
 * One object per database file: a file monitor on the file and its WAL
 * (every commit, of this process or another, writes the WAL), then
 * `PRAGMA data_version` on a connection of its own, read in a worker, says
 * whether a transaction was really committed since the last look.  A poll
 * at a fallback interval reads it too, for file systems without change
 * notification (NFS, some FUSE mounts).  ::changed is emitted on the main
 * context the watcher was made on.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define PD_TYPE_DATABASE_WATCHER (pd_database_watcher_get_type ())

G_DECLARE_FINAL_TYPE (PdDatabaseWatcher, pd_database_watcher, PD, DATABASE_WATCHER, GObject)

PdDatabaseWatcher *pd_database_watcher_new              (const char        *path);
const char        *pd_database_watcher_get_path         (PdDatabaseWatcher *self);
void               pd_database_watcher_set_poll_interval (PdDatabaseWatcher *self,
                                                         guint              interval_ms);
guint              pd_database_watcher_get_poll_interval (PdDatabaseWatcher *self);
void               pd_database_watcher_set_baseline_changes (PdDatabaseWatcher *self,
                                                            gboolean           baseline_changes);
gboolean           pd_database_watcher_get_pushed       (PdDatabaseWatcher *self);
void               pd_database_watcher_check            (PdDatabaseWatcher *self);
guint64            pd_database_watcher_get_n_reads      (PdDatabaseWatcher *self);

G_END_DECLS
