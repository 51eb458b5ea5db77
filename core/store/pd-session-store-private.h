/* pd-session-store-private.h: between the parts of PdSessionStore (one file
 * per table, pd-session-store.c), and its test hooks.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-session-store.h"

G_BEGIN_DECLS

/* Makes save_turn fail at a named point inside its transaction
 * ("after-delete", "after-messages", "after-plan", "before-commit"), or with
 * "crash-after-messages" end the process there with _exit(3), as a crash
 * would.  NULL clears it. */
void _pd_session_store_set_failpoint (PdSessionStore *self,
                                      const char     *failpoint);

struct _PdSessionStore
{
  GObject  parent_instance;

  PdDb    *db;
  char    *failpoint;
};

/* An imported session's plan version is the updates its import applied
 * (the index keeps them in imports, never in the session's row, which
 * said 0 to every list); ours is the row's. */
#define SESSION_COLUMNS \
  "s.id, s.task, s.name, s.model, s.provider, s.source, s.cwd, s.status, " \
  "s.created_at, s.updated_at, s.turns, s.input_tokens, s.output_tokens, s.pinned, " \
  "s.auth_token, coalesce ((SELECT i.applied_updates FROM imports i WHERE i.session_pk = s.pk), s.plan_version), " \
  "s.plan_done, s.plan_total, s.plan_blocked, s.n_messages, s.run_owner, " \
  "le.type, json_extract (le.event_json, '$.data.error_class'), json_extract (le.event_json, '$.data.error'), " \
  "json_extract (le.event_json, '$.data.incomplete'), json_extract (le.event_json, '$.data.budget_exceeded'), " \
  "s.plan_hidden"
/* The sessions with the last start or end of a run of each (le), for how
 * its last run ended: found backwards through its own events by the
 * events_by_session index, so it reads the events of one run at most. */
#define SESSION_FROM \
  " FROM sessions s LEFT JOIN events le ON le.seq = (SELECT e.seq FROM events e INDEXED BY events_by_session" \
  " WHERE e.session_id = s.id AND e.type IN ('run_started', 'run_completed', 'run_failed')" \
  " ORDER BY e.seq DESC LIMIT 1)"
/* The annotation that hides a deleted imported session from listings, and
 * the sources that are imported (as pd_session_info_is_imported()). */
#define PD_SESSION_STORE_HIDDEN_KEY "hidden"
/* Keep in step with pd_session_info_is_imported(). */
#define PD_SESSION_STORE_IMPORTED_SOURCES \
  "('claude-code','claude-desktop','codex','opencode','qwen','gemini','cline','roo','kilo','kilo-cli')"
#define PD_SESSION_STORE_NOT_HIDDEN \
  " NOT EXISTS (SELECT 1 FROM annotations h WHERE h.session_id = s.id AND h.key = '" PD_SESSION_STORE_HIDDEN_KEY "')"

/* The column after SESSION_COLUMNS. */
#define SESSION_COLUMNS_END 27

/* FALSE with PD_DB_ERROR_INVALID unless @id is a session id. */
gboolean       _pd_session_store_check_id       (const char      *id,
                                                 GError         **error);
void           _pd_session_store_set_not_found  (const char      *id,
                                                 GError         **error);
/* FALSE (or the crash) where the test hook names @name. */
gboolean       _pd_session_store_failpoint      (PdSessionStore  *self,
                                                 const char      *name,
                                                 GError         **error);
/* pk of a session, or -1 with NOT_FOUND.  Caller holds the lock. */
gint64         _pd_session_store_lookup_pk      (PdSessionStore  *self,
                                                 const char      *id,
                                                 gint64          *n_messages,
                                                 GError         **error);
gboolean       _pd_session_store_session_exists (PdSessionStore  *self,
                                                 const char      *id,
                                                 GError         **error);
/* A row of SESSION_COLUMNS. */
PdSessionInfo *_pd_session_store_info_from_row  (PdDbStmt        *stmt);
void           _pd_session_store_settle_running (PdSessionStore  *self,
                                                 PdSessionInfo   *info,
                                                 const char      *run_owner);

G_END_DECLS
