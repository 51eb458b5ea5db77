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

G_END_DECLS
