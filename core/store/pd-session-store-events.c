/* pd-session-store-events.c: the events table: the events of a session's
 * runs, kept for `events` and serve's event routes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include "pd-redact.h"
#include "pd-session-store.h"
#include "pd-session-store-private.h"

#define EVENTS_DEFAULT_LIMIT 100
#define EVENTS_MAX_LIMIT     1000

/* ---------------------------------------------------------------------- */
/* Events                                                                 */

gint64
pd_session_store_add_event (PdSessionStore  *self,
                            const char      *session_id,
                            const char      *run_id,
                            const char      *type,
                            gint64           timestamp_usec,
                            const char      *event_json,
                            GError         **error)
{
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;
  g_autofree char *redacted = NULL;
  g_autoptr(GError) local = NULL;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), -1);

  if (session_id != NULL && !_pd_session_store_check_id (session_id, error))
    return -1;
  if (type == NULL || *type == '\0' || event_json == NULL)
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID, "an event needs a type and a JSON body");
      return -1;
    }
  /* Plan events carry counts only, but tool events may quote arguments. */
  redacted = pd_redact_json (event_json, NULL);

  locker = pd_db_locker_new (self->db);
  if (!(stmt = pd_db_prepare (self->db,
                              "INSERT INTO events (session_id, run_id, type, timestamp, event_json) "
                              "VALUES (?1, ?2, ?3, ?4, ?5)",
                              error)))
    return -1;
  pd_db_stmt_bind_text_copy (stmt, 1, session_id);
  pd_db_stmt_bind_text_copy (stmt, 2, run_id);
  pd_db_stmt_bind_text (stmt, 3, type);
  pd_db_stmt_bind_int64 (stmt, 4, timestamp_usec);
  pd_db_stmt_bind_text (stmt, 5, redacted);
  if (!pd_db_step_done (self->db, stmt, &local))
    {
      /* The only constraint an event can break is its session's key. */
      if (session_id && g_error_matches (local, PD_DB_ERROR, PD_DB_ERROR_CONSTRAINT))
        _pd_session_store_set_not_found (session_id, error);
      else
        g_propagate_error (error, g_steal_pointer (&local));
      return -1;
    }
  return pd_db_last_insert_rowid (self->db);
}

GPtrArray *
pd_session_store_list_events (PdSessionStore  *self,
                              const char      *session_id,
                              const char      *type,
                              gint64           after_seq,
                              guint            limit,
                              GError         **error)
{
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GString) sql = g_string_new ("SELECT seq, event_json FROM events WHERE seq > ?1");
  int rc;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), NULL);

  if (session_id != NULL && !_pd_session_store_check_id (session_id, error))
    return NULL;
  if (limit == 0)
    limit = EVENTS_DEFAULT_LIMIT;
  limit = MIN (limit, EVENTS_MAX_LIMIT);

  /* One statement per filter combination, so each can use its index. */
  if (session_id)
    g_string_append (sql, " AND session_id = ?2");
  if (type)
    g_string_append (sql, " AND type = ?3");
  g_string_append (sql, " ORDER BY seq LIMIT ?4");

  locker = pd_db_locker_new (self->db);
  if (!(stmt = pd_db_prepare (self->db, sql->str, error)))
    return NULL;
  pd_db_stmt_bind_int64 (stmt, 1, after_seq);
  if (session_id)
    pd_db_stmt_bind_text (stmt, 2, session_id);
  if (type)
    pd_db_stmt_bind_text (stmt, 3, type);
  pd_db_stmt_bind_int (stmt, 4, (int) limit);

  events = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_stored_event_free);
  while ((rc = pd_db_step (self->db, stmt, error)) == PD_DB_ROW)
    {
      PdStoredEvent *event = g_new0 (PdStoredEvent, 1);

      event->seq = pd_db_stmt_column_int64 (stmt, 0);
      event->event_json = pd_db_stmt_column_dup_text (stmt, 1);
      g_ptr_array_add (events, event);
    }
  if (rc != PD_DB_DONE)
    return NULL;

  return g_steal_pointer (&events);
}

GPtrArray *
pd_session_store_list_latest_events (PdSessionStore     *self,
                                     const char         *session_id,
                                     gint64              before_seq,
                                     const char * const *types,
                                     guint               limit,
                                     GError            **error)
{
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GString) sql = g_string_new ("SELECT seq, event_json FROM events WHERE session_id = ?1");
  guint n_types = types != NULL ? g_strv_length ((char **) types) : 0;
  int rc;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  if (!_pd_session_store_check_id (session_id, error))
    return NULL;
  if (limit == 0)
    limit = EVENTS_DEFAULT_LIMIT;
  limit = MIN (limit, EVENTS_MAX_LIMIT);

  /* Read backwards along (session_id, seq): as much as the page, however
   * long the session's stream. */
  if (before_seq > 0)
    g_string_append (sql, " AND seq < ?2");
  if (n_types > 0)
    {
      g_string_append (sql, " AND type IN (");
      for (guint i = 0; i < n_types; i++)
        g_string_append_printf (sql, "%s?%u", i > 0 ? ", " : "", i + 4);
      g_string_append (sql, ")");
    }
  g_string_append (sql, " ORDER BY seq DESC LIMIT ?3");

  locker = pd_db_locker_new (self->db);
  if (!(stmt = pd_db_prepare (self->db, sql->str, error)))
    return NULL;
  pd_db_stmt_bind_text (stmt, 1, session_id);
  if (before_seq > 0)
    pd_db_stmt_bind_int64 (stmt, 2, before_seq);
  pd_db_stmt_bind_int (stmt, 3, (int) limit);
  for (guint i = 0; i < n_types; i++)
    pd_db_stmt_bind_text (stmt, (int) i + 4, types[i]);

  events = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_stored_event_free);
  while ((rc = pd_db_step (self->db, stmt, error)) == PD_DB_ROW)
    {
      PdStoredEvent *event = g_new0 (PdStoredEvent, 1);

      event->seq = pd_db_stmt_column_int64 (stmt, 0);
      event->event_json = pd_db_stmt_column_dup_text (stmt, 1);
      g_ptr_array_add (events, event);
    }
  if (rc != PD_DB_DONE)
    return NULL;

  /* Oldest first, as every other read of events. */
  for (guint i = 0; i < events->len / 2; i++)
    {
      gpointer swap = events->pdata[i];

      events->pdata[i] = events->pdata[events->len - 1 - i];
      events->pdata[events->len - 1 - i] = swap;
    }
  return g_steal_pointer (&events);
}
