/* pd-session-store-imports.c: the imports table, where each session
 * imported from another agent's transcript is found again.
 *
 * The import index (core/import) reads the transcripts and decides what
 * changed; what it writes and reads back of the database is here, so that
 * only the store writes SQL.  One row of imports belongs to one row of
 * sessions (session_pk); a file of several sessions (OpenCode's database)
 * has one row per session, told apart by agent_id.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-random.h"
#include "pd-session-store.h"

gboolean
pd_session_store_import_is_unchanged (PdSessionStore  *self,
                                      const char      *path,
                                      gint64           size,
                                      gint64           mtime,
                                      const char      *deps,
                                      guint           *n_sessions,
                                      GError         **error)
{
  PdDb *db;
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;
  guint n = 0;
  int rc;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  db = pd_session_store_get_db (self);
  locker = pd_db_locker_new (db);
  if (!(stmt = pd_db_prepare (db, "SELECT size, mtime, deps FROM imports WHERE path = ?1", error)))
    return FALSE;
  pd_db_stmt_bind_text (stmt, 1, path);
  while ((rc = pd_db_step (db, stmt, error)) == PD_DB_ROW)
    {
      if (pd_db_stmt_column_int64 (stmt, 0) != size
          || pd_db_stmt_column_int64 (stmt, 1) != mtime
          || g_strcmp0 (pd_db_stmt_column_text (stmt, 2), deps) != 0)
        return FALSE;
      n++;
    }
  /* One row per session: an OpenCode store holds several. */
  if (n_sessions != NULL)
    *n_sessions = n;
  return rc == PD_DB_DONE && n > 0;
}

void
pd_import_state_clear (PdImportState *state)
{
  g_clear_pointer (&state->format, g_free);
  g_clear_pointer (&state->title, g_free);
  g_clear_pointer (&state->cwd, g_free);
}

gboolean
pd_session_store_get_import_state (PdSessionStore  *self,
                                   const char      *path,
                                   const char      *agent_id,
                                   PdImportState   *state,
                                   GError         **error)
{
  PdDb *db;
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), FALSE);
  g_return_val_if_fail (path != NULL && state != NULL, FALSE);

  memset (state, 0, sizeof *state);
  db = pd_session_store_get_db (self);
  locker = pd_db_locker_new (db);
  if (!(stmt = pd_db_prepare (db,
                              "SELECT i.format, i.size, i.read_offset, i.lines, i.skipped_lines, i.applied_updates, "
                              "i.ignored_updates, s.task, s.cwd, s.created_at, s.updated_at, s.plan_done, s.plan_total, s.plan_hidden "
                              "FROM imports i JOIN sessions s ON s.pk = i.session_pk "
                              "WHERE i.path = ?1 AND i.agent_id = ?2",
                              error)))
    return FALSE;
  pd_db_stmt_bind_text (stmt, 1, path);
  pd_db_stmt_bind_text (stmt, 2, agent_id ? agent_id : "");
  if (pd_db_step (db, stmt, error) != PD_DB_ROW)
    return FALSE;
  state->format = pd_db_stmt_column_dup_text (stmt, 0);
  state->size = pd_db_stmt_column_int64 (stmt, 1);
  state->read_offset = pd_db_stmt_column_int64 (stmt, 2);
  state->lines = pd_db_stmt_column_int64 (stmt, 3);
  state->skipped_lines = pd_db_stmt_column_int64 (stmt, 4);
  state->applied_updates = pd_db_stmt_column_int64 (stmt, 5);
  state->ignored_updates = pd_db_stmt_column_int64 (stmt, 6);
  state->title = pd_db_stmt_column_dup_text (stmt, 7);
  state->cwd = pd_db_stmt_column_dup_text (stmt, 8);
  state->created_at = pd_db_stmt_column_int64 (stmt, 9);
  state->updated_at = pd_db_stmt_column_int64 (stmt, 10);
  state->plan_done = (guint) MAX (pd_db_stmt_column_int64 (stmt, 11), 0);
  state->plan_total = (guint) MAX (pd_db_stmt_column_int64 (stmt, 12), 0);
  state->plan_hidden = (guint) MAX (pd_db_stmt_column_int64 (stmt, 13), 0);
  return TRUE;
}

char *
pd_session_store_find_import (PdSessionStore  *self,
                              const char      *path,
                              const char      *agent_id,
                              GError         **error)
{
  PdDb *db;
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), NULL);
  g_return_val_if_fail (path != NULL, NULL);

  db = pd_session_store_get_db (self);
  locker = pd_db_locker_new (db);
  if (!(stmt = pd_db_prepare (db,
                              "SELECT s.id FROM imports i JOIN sessions s ON s.pk = i.session_pk "
                              "WHERE i.path = ?1 AND i.agent_id = ?2",
                              error)))
    return NULL;
  pd_db_stmt_bind_text (stmt, 1, path);
  pd_db_stmt_bind_text (stmt, 2, agent_id ? agent_id : "");
  if (pd_db_step (db, stmt, error) != PD_DB_ROW)
    return NULL;
  return pd_db_stmt_column_dup_text (stmt, 0);
}

/* The session's row, made when it is new (with the summary: no second
 * statement to fill it in).  Its token is never used (an imported session
 * is not run here) but the column is NOT NULL and unique.  The new pk is the
 * connection's last rowid, read under the caller's lock (the full-text
 * trigger's own insert does not change it once the trigger ended): RETURNING
 * made SQLite open, fill and drop a temporary table for each new session. */
static gboolean
ensure_session (PdDb                     *db,
                const char               *session_id,
                const PdImportedSummary  *summary,
                gint64                   *pk,
                gboolean                 *added,
                GError                  **error)
{
  g_autoptr(PdDbStmt) stmt = NULL;
  g_autofree char *token = NULL;
  int rc;

  if (!(stmt = pd_db_prepare (db, "SELECT pk FROM sessions WHERE id = ?1", error)))
    return FALSE;
  pd_db_stmt_bind_text (stmt, 1, session_id);
  rc = pd_db_step (db, stmt, error);
  if (rc == PD_DB_ROW)
    {
      *pk = pd_db_stmt_column_int64 (stmt, 0);
      *added = FALSE;
      return TRUE;
    }
  if (rc != PD_DB_DONE)
    return FALSE;
  g_clear_pointer (&stmt, pd_db_stmt_release);

  token = pd_random_hex (32);
  if (!(stmt = pd_db_prepare (db,
                              "INSERT INTO sessions (id, task, source, cwd, status, created_at, updated_at, auth_token, "
                              "plan_done, plan_total, plan_blocked, plan_hidden) "
                              "VALUES (?1, ?6, ?2, ?7, 'idle', ?3, ?4, ?5, ?8, ?9, 0, ?10)",
                              error)))
    return FALSE;
  pd_db_stmt_bind_text (stmt, 1, session_id);
  pd_db_stmt_bind_text (stmt, 2, summary->source);
  pd_db_stmt_bind_int64 (stmt, 3, summary->created_at);
  pd_db_stmt_bind_int64 (stmt, 4, summary->updated_at);
  pd_db_stmt_bind_text (stmt, 5, token);
  pd_db_stmt_bind_text (stmt, 6, summary->title ? summary->title : "");
  pd_db_stmt_bind_text (stmt, 7, summary->cwd ? summary->cwd : "");
  pd_db_stmt_bind_int (stmt, 8, (int) summary->plan_done);
  pd_db_stmt_bind_int (stmt, 9, (int) summary->plan_total);
  pd_db_stmt_bind_int (stmt, 10, (int) MIN (summary->plan_hidden, G_MAXINT));
  if (!pd_db_step_done (db, stmt, error))
    return FALSE;
  *pk = pd_db_last_insert_rowid (db);
  *added = TRUE;
  return TRUE;
}

gboolean
pd_session_store_save_import (PdSessionStore           *self,
                              const char               *session_id,
                              const PdImportedSummary  *summary,
                              const PdImportRecord     *record,
                              gboolean                 *added,
                              GError                  **error)
{
  PdDb *db;
  g_autoptr(PdDbLocker) locker = NULL;
  gint64 pk = 0;
  gboolean is_new = FALSE;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), FALSE);
  g_return_val_if_fail (session_id != NULL, FALSE);
  g_return_val_if_fail (summary != NULL && record != NULL, FALSE);
  g_return_val_if_fail (record->path != NULL, FALSE);

  db = pd_session_store_get_db (self);
  locker = pd_db_locker_new (db);
  if (!ensure_session (db, session_id, summary, &pk, &is_new, error))
    return FALSE;

  /* A row that was there: its summary now. */
  if (!is_new)
    {
      g_autoptr(PdDbStmt) stmt = NULL;

      if (!(stmt = pd_db_prepare (db,
                                  "UPDATE sessions SET task = ?2, source = ?3, cwd = ?4, created_at = ?5, "
                                  "updated_at = ?6, plan_done = ?7, plan_total = ?8, plan_blocked = 0, plan_hidden = ?9 "
                                  "WHERE pk = ?1",
                                  error)))
        return FALSE;
      pd_db_stmt_bind_int64 (stmt, 1, pk);
      pd_db_stmt_bind_text (stmt, 2, summary->title ? summary->title : "");
      pd_db_stmt_bind_text (stmt, 3, summary->source);
      pd_db_stmt_bind_text (stmt, 4, summary->cwd ? summary->cwd : "");
      pd_db_stmt_bind_int64 (stmt, 5, summary->created_at);
      pd_db_stmt_bind_int64 (stmt, 6, summary->updated_at);
      pd_db_stmt_bind_int (stmt, 7, (int) summary->plan_done);
      pd_db_stmt_bind_int (stmt, 8, (int) summary->plan_total);
      pd_db_stmt_bind_int (stmt, 9, (int) MIN (summary->plan_hidden, G_MAXINT));
      if (!pd_db_step_done (db, stmt, error))
        return FALSE;
    }

  {
    g_autoptr(PdDbStmt) stmt = NULL;

    if (!(stmt = pd_db_prepare (db,
                                "INSERT INTO imports (session_pk, path, agent_id, format, size, mtime, deps, read_offset, "
                                "lines, skipped_lines, applied_updates, ignored_updates, indexed_at) "
                                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) "
                                "ON CONFLICT (session_pk) DO UPDATE SET path = excluded.path, agent_id = excluded.agent_id, "
                                "format = excluded.format, size = excluded.size, mtime = excluded.mtime, deps = excluded.deps, "
                                "read_offset = excluded.read_offset, lines = excluded.lines, "
                                "skipped_lines = excluded.skipped_lines, applied_updates = excluded.applied_updates, "
                                "ignored_updates = excluded.ignored_updates, indexed_at = excluded.indexed_at",
                                error)))
      return FALSE;
    pd_db_stmt_bind_int64 (stmt, 1, pk);
    pd_db_stmt_bind_text (stmt, 2, record->path);
    pd_db_stmt_bind_text (stmt, 3, record->agent_id ? record->agent_id : "");
    pd_db_stmt_bind_text (stmt, 4, record->format);
    pd_db_stmt_bind_int64 (stmt, 5, record->size);
    pd_db_stmt_bind_int64 (stmt, 6, record->mtime);
    pd_db_stmt_bind_text (stmt, 7, record->deps);
    pd_db_stmt_bind_int64 (stmt, 8, record->read_offset);
    pd_db_stmt_bind_int64 (stmt, 9, record->lines);
    pd_db_stmt_bind_int64 (stmt, 10, record->skipped_lines);
    pd_db_stmt_bind_int64 (stmt, 11, record->applied_updates);
    pd_db_stmt_bind_int64 (stmt, 12, record->ignored_updates);
    pd_db_stmt_bind_int64 (stmt, 13, g_get_real_time ());
    if (!pd_db_step_done (db, stmt, error))
      return FALSE;
  }

  if (added != NULL)
    *added = is_new;
  return TRUE;
}

/* The batch's mark is the row of pk 0 in sessions_fts_pending: while it is
 * there the full-text triggers note a new session's pk instead of writing
 * its row (schema v7, see pd-db-migrations.c).  FTS5 writes its pending
 * terms out at every statement's savepoint once it was written in a
 * transaction, so a row written with each session cost a segment each;
 * written at the end, the rows are one statement and one segment. */
gboolean
pd_session_store_import_batch_begin (PdSessionStore  *self,
                                     GError         **error)
{
  PdDb *db;
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), FALSE);

  db = pd_session_store_get_db (self);
  locker = pd_db_locker_new (db);
  if (!(stmt = pd_db_prepare (db, "INSERT OR IGNORE INTO sessions_fts_pending (pk) VALUES (0)", error)))
    return FALSE;
  return pd_db_step_done (db, stmt, error);
}

/* The full-text rows of the sessions the batch added, with the titles they
 * have now (an update in the batch changed the row only), in pk order;
 * then the mark and the notes go. */
gboolean
pd_session_store_import_batch_end (PdSessionStore  *self,
                                   GError         **error)
{
  PdDb *db;
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), FALSE);

  db = pd_session_store_get_db (self);
  locker = pd_db_locker_new (db);
  if (!(stmt = pd_db_prepare (db,
                              "INSERT INTO sessions_fts (rowid, task) "
                              "SELECT s.pk, s.task FROM sessions_fts_pending p JOIN sessions s ON s.pk = p.pk "
                              "WHERE p.pk != 0 ORDER BY p.pk",
                              error))
      || !pd_db_step_done (db, stmt, error))
    return FALSE;
  g_clear_pointer (&stmt, pd_db_stmt_release);
  if (!(stmt = pd_db_prepare (db, "DELETE FROM sessions_fts_pending", error)))
    return FALSE;
  return pd_db_step_done (db, stmt, error);
}

GPtrArray *
pd_session_store_list_import_paths (PdSessionStore  *self,
                                    gboolean         with_folders,
                                    GError         **error)
{
  PdDb *db;
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  int rc;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), NULL);

  db = pd_session_store_get_db (self);
  locker = pd_db_locker_new (db);
  /* OpenCode's storage folders are watched as folders, not as files: left
   * out for the watcher, kept for a look at where the sessions came from
   * (`import --db --opencode-dir` alone said the folder held nothing and
   * exited 2). */
  if (!(stmt = pd_db_prepare (db,
                              with_folders ? "SELECT DISTINCT path FROM imports ORDER BY path"
                                           : "SELECT DISTINCT path FROM imports WHERE format != 'opencode-storage' "
                                             "ORDER BY path",
                              error)))
    return NULL;
  while ((rc = pd_db_step (db, stmt, error)) == PD_DB_ROW)
    g_ptr_array_add (paths, pd_db_stmt_column_dup_text (stmt, 0));
  if (rc != PD_DB_DONE)
    return NULL;
  return g_steal_pointer (&paths);
}

gboolean
pd_session_store_get_import (PdSessionStore  *self,
                             const char      *session_id,
                             char           **path,
                             char           **format,
                             char           **agent_id,
                             GError         **error)
{
  PdDb *db;
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), FALSE);
  g_return_val_if_fail (session_id != NULL, FALSE);

  db = pd_session_store_get_db (self);
  locker = pd_db_locker_new (db);
  if (!(stmt = pd_db_prepare (db,
                              "SELECT i.path, i.format, i.agent_id FROM imports i "
                              "JOIN sessions s ON s.pk = i.session_pk WHERE s.id = ?1",
                              error)))
    return FALSE;
  pd_db_stmt_bind_text (stmt, 1, session_id);
  if (pd_db_step (db, stmt, error) != PD_DB_ROW)
    return FALSE;
  if (path)
    *path = pd_db_stmt_column_dup_text (stmt, 0);
  if (format)
    *format = pd_db_stmt_column_dup_text (stmt, 1);
  if (agent_id)
    *agent_id = pd_db_stmt_column_dup_text (stmt, 2);
  return TRUE;
}

gboolean
pd_session_store_save_checklist (PdSessionStore  *self,
                                 const char      *session_id,
                                 const char      *key,
                                 const char      *value_json,
                                 guint            done,
                                 guint            total,
                                 GError         **error)
{
  PdDb *db;
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), FALSE);
  g_return_val_if_fail (session_id != NULL, FALSE);

  db = pd_session_store_get_db (self);
  locker = pd_db_locker_new (db);
  if (!pd_db_begin (db, error))
    return FALSE;
  if (!pd_session_store_set_annotation (self, session_id, key, value_json, error)
      || !(stmt = pd_db_prepare (db, "UPDATE sessions SET plan_done = ?2, plan_total = ?3 WHERE id = ?1", error)))
    {
      pd_db_rollback (db);
      return FALSE;
    }
  pd_db_stmt_bind_text (stmt, 1, session_id);
  pd_db_stmt_bind_int (stmt, 2, (int) done);
  pd_db_stmt_bind_int (stmt, 3, (int) total);
  if (!pd_db_step_done (db, stmt, error))
    {
      g_clear_pointer (&stmt, pd_db_stmt_release);
      pd_db_rollback (db);
      return FALSE;
    }
  g_clear_pointer (&stmt, pd_db_stmt_release);
  return pd_db_commit (db, error);
}
