/* pd-opencode-reader.h: OpenCode sessions.
 *
 * Two storage generations: the JSON tree (~/.local/share/opencode/storage
 * with session/<project>/<id>.json, message/<session>/…, part/<message>/…)
 * and the SQLite database (~/.local/share/opencode/opencode.db), which is
 * opened read-only and never written.  The plan is the replay of the
 * session's completed todowrite tool parts, ordered by time; each is a full
 * list.
 *
 * The index reads a whole store at once (pd_opencode_read_storage(),
 * pd_opencode_read_database()); PdOpenCodeReader, a PdTranscriptReader,
 * reads one session of it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "pd-imported-session.h"
#include "pd-transcript-reader.h"

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

typedef enum
{
  PD_OPENCODE_STORE_TREE,      /* the JSON storage tree */
  PD_OPENCODE_STORE_DATABASE,  /* opencode.db */
} PdOpenCodeStore;

#define PD_TYPE_OPENCODE_READER (pd_opencode_reader_get_type ())
G_DECLARE_FINAL_TYPE (PdOpenCodeReader, pd_opencode_reader, PD, OPENCODE_READER, GObject)

PdOpenCodeReader *pd_opencode_reader_new (const char      *path,
                                          PdOpenCodeStore  store,
                                          const char      *session_id);

G_END_DECLS
