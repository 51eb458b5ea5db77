/* pd-local-source.h: a PdSource over a session database file.
 *
 * The database is opened lazily, in a worker thread, on the first request;
 * every request runs in a worker thread and returns on the caller's main
 * context.  With pd_local_source_watch() it notices commits of other
 * connections (a CLI run writing the same file, the demo, serve) as they
 * happen, through a PdDatabaseWatcher, and emits ::changed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-database-watcher.h"
#include "pd-types.h"
#include "pd-event-bus.h"
#include "pd-session-reads.h"
#include "pd-source.h"

G_BEGIN_DECLS

#define PD_TYPE_LOCAL_SOURCE (pd_local_source_get_type ())

G_DECLARE_FINAL_TYPE (PdLocalSource, pd_local_source, PD, LOCAL_SOURCE, GObject)

PdLocalSource *pd_local_source_new      (const char    *path,
                                         gboolean       create);
const char    *pd_local_source_get_path (PdLocalSource *self);
void           pd_local_source_watch    (PdLocalSource *self,
                                         guint          interval_ms);
PdDatabaseWatcher *pd_local_source_get_watcher (PdLocalSource *self);
void           pd_local_source_follow_transcripts (PdLocalSource *self,
                                                   gboolean       follow);
guint          pd_local_source_get_n_followed     (PdLocalSource *self);
void           pd_local_source_follow_bus         (PdLocalSource *self,
                                                   PdEventBus    *bus);
void           pd_local_source_unfollow_bus       (PdLocalSource *self,
                                                   PdEventBus    *bus);
guint          pd_local_source_get_n_buses        (PdLocalSource *self);
PdSessionStore *pd_local_source_open_store (PdLocalSource *self,
                                            GError       **error);

/* An export written as it is read (the window's Export), blocking: call
 * them in a worker thread.  The session as `plandeck-agent sessions
 * export` writes it (pd_session_reads_export_json()), to @out. */
gboolean       pd_local_source_export_json        (PdLocalSource  *self,
                                                   const char     *session_id,
                                                   GOutputStream  *out,
                                                   GCancellable   *cancellable,
                                                   GError        **error);
/* Of another agent's session, its checklist as the user sees it
 * (pd_session_reads_get_checklist_json()), blocking. */
gboolean       pd_local_source_get_checklist_json (PdLocalSource  *self,
                                                   const char     *session_id,
                                                   char          **json,
                                                   GError        **error);
/* Each message of the session handed to @func in order (the func's to
 * keep), an imported session's long transcript as it is read. */
typedef void (*PdLocalSourceMessageFunc) (JsonObject *message,
                                          gpointer    user_data);
gboolean       pd_local_source_foreach_message    (PdLocalSource            *self,
                                                   const char               *session_id,
                                                   PdLocalSourceMessageFunc  func,
                                                   gpointer                  user_data,
                                                   GCancellable             *cancellable,
                                                   GError                  **error);

/* Each event of the session handed to @func in order, as `events
 * --session` reads them (blocking: call it from a worker thread). */
gboolean       pd_local_source_foreach_event      (PdLocalSource            *self,
                                                   const char               *session_id,
                                                   PdSessionReadsEventFunc   func,
                                                   gpointer                  user_data,
                                                   GCancellable             *cancellable,
                                                   GError                  **error);
/* Other agents' sessions removed from the list, and one of them listed
 * again (blocking: call them from a worker thread).
 * Returns: (transfer full) (element-type PdSessionInfo) */
GPtrArray     *pd_local_source_list_removed       (PdLocalSource            *self,
                                                   GError                  **error);
gboolean       pd_local_source_restore            (PdLocalSource            *self,
                                                   const char               *session_id,
                                                   GError                  **error);

G_END_DECLS
