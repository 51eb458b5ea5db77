/* pd-import-watcher-private.h: the watcher's entry point for a seen change.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-import-watcher.h"

G_BEGIN_DECLS

/* A monitor saw @path change: it is read again once changes settle.  A
 * disposed watcher takes nothing, since its monitors may still deliver
 * what they held while they are being removed. */
void _pd_import_watcher_queue_path (PdImportWatcher *self,
                                    const char      *path);

/* For the tests: @hook is called on the update thread with each queued
 * path just before it is read (NULL: none). */
typedef void (*PdImportWatcherReadHook) (const char *path,
                                         gpointer    user_data);
void _pd_import_watcher_set_read_hook (PdImportWatcherReadHook hook,
                                       gpointer                user_data);

/* For the tests: @hook is called with each folder the walk at start reads
 * for its subfolders, on the thread that reads it (NULL: none). */
typedef void (*PdImportWatcherWalkHook) (const char *path,
                                         gpointer    user_data);
void _pd_import_watcher_set_walk_hook (PdImportWatcherWalkHook hook,
                                       gpointer                user_data);

G_END_DECLS
