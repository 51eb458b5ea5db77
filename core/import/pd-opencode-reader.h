/* pd-opencode-reader.h: OpenCode sessions.
 *
 * Two storage generations: the JSON tree (~/.local/share/opencode/storage
 * with session/<project>/<id>.json, message/<session>/…, part/<message>/…)
 * and the SQLite database (~/.local/share/opencode/opencode.db), which is
 * opened read-only and never written.  The plan is the replay of the
 * session's completed todowrite tool parts, ordered by time; each is a full
 * list.
 */
#pragma once

#include <gio/gio.h>

#include "pd-imported-session.h"

G_BEGIN_DECLS

/* Every session of a storage tree (@dir holds session/, message/, part/).
 * Returns: (transfer full) (element-type PdImportedSession) */
GPtrArray *pd_opencode_read_storage  (const char    *dir,
                                      GCancellable  *cancellable,
                                      GError       **error);

/* Every session of an opencode.db.
 * Returns: (transfer full) (element-type PdImportedSession) */
GPtrArray *pd_opencode_read_database (const char    *path,
                                      GCancellable  *cancellable,
                                      GError       **error);

G_END_DECLS
