/* pd-opencode-reader-private.h: the part replay, without files or SQLite.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "pd-imported-session.h"

G_BEGIN_DECLS

void _pd_opencode_replay_part_data (PdImportedSession  *session,
                                    const char * const *data,
                                    const gsize        *lengths,
                                    guint               n);

GPtrArray *_pd_opencode_read_storage_full (const char    *dir,
                                           GPtrArray     *skipped,
                                           GCancellable  *cancellable,
                                           GError       **error);

/* Tests only: the bounds on rows read per table and on SQLite VM steps. */
void _pd_opencode_set_limits (guint64 max_rows,
                              guint64 max_steps);

G_END_DECLS
