/* pd-session-store.c: sessions and their metadata in a PdDb: the object,
 * the sessions table (create, get, rename, pin, status, delete) and the
 * helpers its parts share.
 *
 * The other tables have a file each, behind the same public API
 * (pd-session-store.h) with pd-session-store-private.h between them:
 * pd-session-store-turns.c (messages and a turn's save), -plans.c, -list.c
 * (listing and search), -events.c, -annotations.c and -imports.c; the value
 * types are in pd-session-info.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>
#include <unistd.h>

#include "pd-random.h"
#include "pd-redact.h"
#include "pd-run-owner.h"
#include "pd-session-store.h"
#include "pd-session-store-private.h"

G_DEFINE_FINAL_TYPE (PdSessionStore, pd_session_store, G_TYPE_OBJECT)

/* ---------------------------------------------------------------------- */
/* Helpers of every part                                                  */

gboolean
_pd_session_store_check_id (const char  *id,
                            GError     **error)
{
  if (pd_session_id_is_valid (id))
    return TRUE;
  g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID,
               "“%s” is not a session id (expected YYYYMMDD- and 32 hex digits)",
               id ? id : "(null)");
  return FALSE;
}

void
_pd_session_store_set_not_found (const char  *id,
                                 GError     **error)
{
  g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND, "session %s not found", id);
}

gboolean
_pd_session_store_session_exists (PdSessionStore  *self,
                                  const char      *id,
                                  GError         **error)
{
  return _pd_session_store_lookup_pk (self, id, NULL, error) >= 0;
}

/* ---------------------------------------------------------------------- */
/* Object                                                                 */

static void
pd_session_store_finalize (GObject *object)
{
  PdSessionStore *self = (PdSessionStore *) object;

  g_clear_object (&self->db);
  g_clear_pointer (&self->failpoint, g_free);

  G_OBJECT_CLASS (pd_session_store_parent_class)->finalize (object);
}

static void
pd_session_store_class_init (PdSessionStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_session_store_finalize;
}

static void
pd_session_store_init (PdSessionStore *self)
{
}

PdSessionStore *
pd_session_store_new (PdDb *db)
{
  PdSessionStore *self;

  g_return_val_if_fail (PD_IS_DB (db), NULL);

  self = g_object_new (PD_TYPE_SESSION_STORE, NULL);
  self->db = g_object_ref (db);
  return self;
}

PdDb *
pd_session_store_get_db (PdSessionStore *self)
{
  g_return_val_if_fail (PD_IS_SESSION_STORE (self), NULL);
  return self->db;
}

void
_pd_session_store_set_failpoint (PdSessionStore *self,
                                 const char     *failpoint)
{
  g_free (self->failpoint);
  self->failpoint = g_strdup (failpoint);
}

gboolean
_pd_session_store_failpoint (PdSessionStore  *self,
                             const char      *name,
                             GError         **error)
{
  if (self->failpoint == NULL)
    return TRUE;
  if (g_str_has_prefix (self->failpoint, "crash-") && strcmp (self->failpoint + 6, name) == 0)
    _exit (3);
  if (strcmp (self->failpoint, name) != 0)
    return TRUE;
  g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO, "injected failure at %s", name);
  return FALSE;
}

/* pk of a session, or -1 with NOT_FOUND.  Caller holds the lock. */
gint64
_pd_session_store_lookup_pk (PdSessionStore  *self,
                             const char      *id,
                             gint64          *n_messages,
                             GError         **error)
{
  g_autoptr(PdDbStmt) stmt = NULL;
  int rc;

  if (!(stmt = pd_db_prepare (self->db, "SELECT pk, n_messages FROM sessions WHERE id = ?1", error)))
    return -1;
  pd_db_stmt_bind_text (stmt, 1, id);
  rc = pd_db_step (self->db, stmt, error);
  if (rc == PD_DB_ROW)
    {
      if (n_messages)
        *n_messages = pd_db_stmt_column_int64 (stmt, 1);
      return pd_db_stmt_column_int64 (stmt, 0);
    }
  if (rc == PD_DB_DONE)
    _pd_session_store_set_not_found (id, error);
  return -1;
}

/* ---------------------------------------------------------------------- */
/* Sessions                                                               */

PdSessionInfo *
_pd_session_store_info_from_row (PdDbStmt     *stmt)
{
  PdSessionInfo *info = g_new0 (PdSessionInfo, 1);

  info->id = pd_db_stmt_column_dup_text (stmt, 0);
  info->task = pd_db_stmt_column_dup_text (stmt, 1);
  info->name = pd_db_stmt_column_dup_text (stmt, 2);
  info->model = pd_db_stmt_column_dup_text (stmt, 3);
  info->provider = pd_db_stmt_column_dup_text (stmt, 4);
  info->source = pd_db_stmt_column_dup_text (stmt, 5);
  info->cwd = pd_db_stmt_column_dup_text (stmt, 6);
  if (!pd_session_status_from_string (pd_db_stmt_column_text (stmt, 7), &info->status))
    info->status = PD_SESSION_STATUS_IDLE;
  info->created_at = pd_db_stmt_column_int64 (stmt, 8);
  info->updated_at = pd_db_stmt_column_int64 (stmt, 9);
  info->turns = pd_db_stmt_column_int64 (stmt, 10);
  info->input_tokens = pd_db_stmt_column_int64 (stmt, 11);
  info->output_tokens = pd_db_stmt_column_int64 (stmt, 12);
  info->pinned = pd_db_stmt_column_int (stmt, 13) != 0;
  info->auth_token = pd_db_stmt_column_dup_text (stmt, 14);
  info->plan_version = pd_db_stmt_column_int64 (stmt, 15);
  info->plan_done = (guint) pd_db_stmt_column_int (stmt, 16);
  info->plan_total = (guint) pd_db_stmt_column_int (stmt, 17);
  info->plan_blocked = (guint) pd_db_stmt_column_int (stmt, 18);
  info->n_messages = (guint) pd_db_stmt_column_int (stmt, 19);
  info->plan_hidden = (guint) MAX (pd_db_stmt_column_int64 (stmt, 26), 0);
  /* Column 20 is the run's owner, read by the caller. */
  if (g_strcmp0 (pd_db_stmt_column_text (stmt, 21), "run_failed") == 0)
    {
      const char *class = pd_db_stmt_column_text (stmt, 22);

      info->stopped = g_strdup (class != NULL && *class != '\0' ? class : "failed");
      info->stopped_error = pd_db_stmt_column_dup_text (stmt, 23);
    }
  else if (g_strcmp0 (pd_db_stmt_column_text (stmt, 21), "run_completed") == 0)
    {
      info->run_ended = TRUE;
      /* Which budget ran out ("iterations", "tokens", "wall_time"): the
       * Now page of a run stopped before its plan said only "its budget
       * ran out" (tried as a new user would). */
      if (pd_db_stmt_column_text (stmt, 25) != NULL)
        {
          info->stopped = g_strdup ("budget");
          info->stopped_error = pd_db_stmt_column_dup_text (stmt, 25);
        }
      else if (pd_db_stmt_column_int (stmt, 24) != 0)
        info->stopped = g_strdup ("incomplete");
    }

  return info;
}

/* A running session whose run's owner is gone was interrupted: a run
 * killed with SIGKILL never writes its end.  Noticed whenever a session is
 * read (get, list): the session reads as interrupted, and is written so
 * when the file can be written — only if it still has that owner, so a run
 * that took the session again meanwhile keeps it.  An owner that is alive,
 * or that cannot be judged, leaves the session running (pd-run-owner.h).
 * Caller holds the lock, with no statement of its own stepping. */
void
_pd_session_store_settle_running (PdSessionStore *self,
                                  PdSessionInfo  *info,
                                  const char     *owner)
{
  g_autoptr(PdDbStmt) stmt = NULL;
  g_autoptr(GError) error = NULL;

  if (info->status != PD_SESSION_STATUS_RUNNING || _pd_run_owner_check (owner) != PD_RUN_OWNER_GONE)
    return;
  info->status = PD_SESSION_STATUS_INTERRUPTED;
  if (pd_db_is_read_only (self->db))
    return;
  if (!(stmt = pd_db_prepare (self->db,
                              "UPDATE sessions SET status = 'interrupted', run_owner = NULL "
                              "WHERE id = ?1 AND status = 'running' AND run_owner IS ?2",
                              &error)))
    {
      g_debug ("%s", error->message);
      return;
    }
  pd_db_stmt_bind_text (stmt, 1, info->id);
  if (owner)
    pd_db_stmt_bind_text (stmt, 2, owner);
  else
    pd_db_stmt_bind_null (stmt, 2);
  /* Not written (busy, read-only after all): it reads as interrupted
   * anyway, and the next read tries again. */
  if (!pd_db_step_done (self->db, stmt, &error))
    g_debug ("could not mark session %s interrupted: %s", info->id, error->message);
}

PdSessionInfo *
pd_session_store_get (PdSessionStore  *self,
                      const char      *id,
                      GError         **error)
{
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;
  int rc;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), NULL);

  if (!_pd_session_store_check_id (id, error))
    return NULL;

  locker = pd_db_locker_new (self->db);
  if (!(stmt = pd_db_prepare (self->db, "SELECT " SESSION_COLUMNS SESSION_FROM " WHERE s.id = ?1", error)))
    return NULL;
  pd_db_stmt_bind_text (stmt, 1, id);
  rc = pd_db_step (self->db, stmt, error);
  if (rc == PD_DB_ROW)
    {
      PdSessionInfo *info = _pd_session_store_info_from_row (stmt);
      g_autofree char *owner = pd_db_stmt_column_dup_text (stmt, 20);

      g_clear_pointer (&stmt, pd_db_stmt_release);
      _pd_session_store_settle_running (self, info, owner);
      return info;
    }
  if (rc == PD_DB_DONE)
    _pd_session_store_set_not_found (id, error);
  return NULL;
}

PdSessionInfo *
pd_session_store_create (PdSessionStore  *self,
                         const char      *task,
                         const char      *model,
                         const char      *provider,
                         const char      *source,
                         const char      *cwd,
                         GError         **error)
{
  g_autofree char *id = pd_session_id_new ();
  g_autofree char *token = pd_random_hex (32);
  g_autofree char *redacted_task = pd_redact (task ? task : "", NULL);
  gint64 now = g_get_real_time ();

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), NULL);

  {
    g_autoptr(PdDbLocker) locker = pd_db_locker_new (self->db);
    g_autoptr(PdDbStmt) stmt = NULL;

    if (!(stmt = pd_db_prepare (self->db,
                                "INSERT INTO sessions (id, task, model, provider, source, cwd, status, "
                                "created_at, updated_at, auth_token) "
                                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'idle', ?7, ?7, ?8)",
                                error)))
      return NULL;
    pd_db_stmt_bind_text (stmt, 1, id);
    pd_db_stmt_bind_text (stmt, 2, redacted_task);
    pd_db_stmt_bind_text (stmt, 3, model ? model : "");
    pd_db_stmt_bind_text (stmt, 4, provider ? provider : "");
    pd_db_stmt_bind_text (stmt, 5, source && *source ? source : "plandeck");
    pd_db_stmt_bind_text (stmt, 6, cwd ? cwd : "");
    pd_db_stmt_bind_int64 (stmt, 7, now);
    pd_db_stmt_bind_text (stmt, 8, token);
    if (!pd_db_step_done (self->db, stmt, error))
      return NULL;
  }

  return pd_session_store_get (self, id, error);
}

/* ---------------------------------------------------------------------- */
/* Session metadata                                                       */

static gboolean
update_session (PdSessionStore  *self,
                const char      *id,
                const char      *sql,
                const char      *text,
                gint64           number,
                GError         **error)
{
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;

  if (!_pd_session_store_check_id (id, error))
    return FALSE;

  locker = pd_db_locker_new (self->db);
  if (!(stmt = pd_db_prepare (self->db, sql, error)))
    return FALSE;
  pd_db_stmt_bind_text (stmt, 1, id);
  if (text)
    pd_db_stmt_bind_text (stmt, 2, text);
  else
    pd_db_stmt_bind_int64 (stmt, 2, number);
  if (!pd_db_step_done (self->db, stmt, error))
    return FALSE;
  if (pd_db_changes (self->db) == 0)
    {
      _pd_session_store_set_not_found (id, error);
      return FALSE;
    }
  return TRUE;
}

gboolean
pd_session_store_rename (PdSessionStore  *self,
                         const char      *id,
                         const char      *name,
                         GError         **error)
{
  g_autofree char *redacted = NULL;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), FALSE);

  if (name == NULL || *name == '\0')
    return update_session (self, id, "UPDATE sessions SET name = NULL WHERE id = ?1 AND ?2 = 0", NULL, 0, error);
  redacted = pd_redact (name, NULL);
  return update_session (self, id, "UPDATE sessions SET name = ?2 WHERE id = ?1", redacted, 0, error);
}

gboolean
pd_session_store_set_pinned (PdSessionStore  *self,
                             const char      *id,
                             gboolean         pinned,
                             GError         **error)
{
  g_return_val_if_fail (PD_IS_SESSION_STORE (self), FALSE);
  return update_session (self, id, "UPDATE sessions SET pinned = ?2 WHERE id = ?1", NULL, pinned ? 1 : 0, error);
}

gboolean
pd_session_store_set_status (PdSessionStore  *self,
                             const char      *id,
                             PdSessionStatus  status,
                             GError         **error)
{
  g_return_val_if_fail (PD_IS_SESSION_STORE (self), FALSE);
  if (status == PD_SESSION_STATUS_RUNNING)
    return update_session (self, id, "UPDATE sessions SET status = 'running', run_owner = ?2 WHERE id = ?1",
                           _pd_run_owner_self (), 0, error);
  return update_session (self, id, "UPDATE sessions SET status = ?2, run_owner = NULL WHERE id = ?1",
                         pd_session_status_to_string (status), 0, error);
}

/* Messages go through a trigger, events, plan versions and annotations
 * through ON DELETE CASCADE, the search index through its triggers; all in
 * one transaction.
 *
 * A session imported from another agent's transcript is hidden instead:
 * its row stays, marked with the "hidden" annotation that listings leave
 * out, so that the next scan of the agent's folder does not index it
 * again.  The agent's transcript is never touched. */
gboolean
pd_session_store_delete (PdSessionStore  *self,
                         const char      *id,
                         GError         **error)
{
  g_autoptr(PdDbStmt) stmt = NULL;
  gboolean changed;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), FALSE);

  if (!_pd_session_store_check_id (id, error))
    return FALSE;
  if (!pd_db_begin (self->db, error))
    return FALSE;

  /* A session whose run goes on is not deleted: the run would go on
   * unrecorded ("could not save the session") and end as if done. */
  if (!(stmt = pd_db_prepare (self->db, "SELECT run_owner FROM sessions WHERE id = ?1 AND status = 'running'",
                              error)))
    {
      pd_db_rollback (self->db);
      return FALSE;
    }
  pd_db_stmt_bind_text (stmt, 1, id);
  switch (pd_db_step (self->db, stmt, error))
    {
    case PD_DB_ROW:
      if (_pd_run_owner_check (pd_db_stmt_column_text (stmt, 0)) == PD_RUN_OWNER_ALIVE)
        {
          g_clear_pointer (&stmt, pd_db_stmt_release);
          pd_db_rollback (self->db);
          g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_BUSY,
                       "session %s is running; stop the run first, then delete it", id);
          return FALSE;
        }
      break;
    case PD_DB_DONE:
      break;
    default:
      g_clear_pointer (&stmt, pd_db_stmt_release);
      pd_db_rollback (self->db);
      return FALSE;
    }
  g_clear_pointer (&stmt, pd_db_stmt_release);

  if (!(stmt = pd_db_prepare (self->db,
                              "INSERT INTO annotations (session_id, key, value_json, updated_at) "
                              "SELECT id, '" PD_SESSION_STORE_HIDDEN_KEY "', 'true', ?2 FROM sessions "
                              "WHERE id = ?1 AND source IN " PD_SESSION_STORE_IMPORTED_SOURCES " "
                              "ON CONFLICT (session_id, key) DO UPDATE SET value_json = 'true', "
                              "updated_at = excluded.updated_at",
                              error)))
    {
      pd_db_rollback (self->db);
      return FALSE;
    }
  pd_db_stmt_bind_text (stmt, 1, id);
  pd_db_stmt_bind_int64 (stmt, 2, g_get_real_time ());
  if (!pd_db_step_done (self->db, stmt, error))
    {
      g_clear_pointer (&stmt, pd_db_stmt_release);
      pd_db_rollback (self->db);
      return FALSE;
    }
  changed = pd_db_changes (self->db) > 0;
  g_clear_pointer (&stmt, pd_db_stmt_release);
  if (changed)
    return pd_db_commit (self->db, error);

  if (!(stmt = pd_db_prepare (self->db, "DELETE FROM sessions WHERE id = ?1", error)))
    {
      pd_db_rollback (self->db);
      return FALSE;
    }
  pd_db_stmt_bind_text (stmt, 1, id);
  if (!pd_db_step_done (self->db, stmt, error))
    {
      g_clear_pointer (&stmt, pd_db_stmt_release);
      pd_db_rollback (self->db);
      return FALSE;
    }
  changed = pd_db_changes (self->db) > 0;
  g_clear_pointer (&stmt, pd_db_stmt_release);
  if (!changed)
    {
      pd_db_rollback (self->db);
      _pd_session_store_set_not_found (id, error);
      return FALSE;
    }
  return pd_db_commit (self->db, error);
}
