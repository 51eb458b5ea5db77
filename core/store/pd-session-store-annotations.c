/* pd-session-store-annotations.c: the annotations table: what a person adds
 * to a session (a checklist's overrides), as JSON under a key.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include "pd-json.h"

#include "pd-redact.h"
#include "pd-session-store.h"
#include "pd-session-store-private.h"

/* ---------------------------------------------------------------------- */
/* Annotations                                                            */

gboolean
pd_session_store_set_annotation (PdSessionStore  *self,
                                 const char      *session_id,
                                 const char      *key,
                                 const char      *value_json,
                                 GError         **error)
{
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;
  g_autoptr(JsonNode) parsed = NULL;
  g_autoptr(JsonNode) redacted = NULL;
  g_autoptr(GError) local = NULL;
  g_autofree char *text = NULL;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), FALSE);

  if (!_pd_session_store_check_id (session_id, error))
    return FALSE;
  if (key == NULL || *key == '\0')
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID, "an annotation needs a key");
      return FALSE;
    }
  if (value_json == NULL || !(parsed = pd_json_from_string_bounded (value_json, &local)) )
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID, "annotation “%s” is not JSON: %s",
                   key, local ? local->message : "no value");
      return FALSE;
    }
  /* User items may quote anything, secrets included. */
  redacted = pd_redact_node (parsed, NULL);
  text = json_to_string (redacted, FALSE);

  locker = pd_db_locker_new (self->db);
  if (!_pd_session_store_session_exists (self, session_id, error))
    return FALSE;
  if (!(stmt = pd_db_prepare (self->db,
                              "INSERT INTO annotations (session_id, key, value_json, updated_at) VALUES (?1, ?2, ?3, ?4) "
                              "ON CONFLICT (session_id, key) DO UPDATE SET value_json = excluded.value_json, "
                              "updated_at = excluded.updated_at",
                              error)))
    return FALSE;
  pd_db_stmt_bind_text (stmt, 1, session_id);
  pd_db_stmt_bind_text (stmt, 2, key);
  pd_db_stmt_bind_text (stmt, 3, text);
  pd_db_stmt_bind_int64 (stmt, 4, g_get_real_time ());
  return pd_db_step_done (self->db, stmt, error);
}

/* NULL without an error when the session has no such annotation. */
char *
pd_session_store_get_annotation (PdSessionStore  *self,
                                 const char      *session_id,
                                 const char      *key,
                                 GError         **error)
{
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;
  int rc;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), NULL);

  if (!_pd_session_store_check_id (session_id, error))
    return NULL;

  locker = pd_db_locker_new (self->db);
  if (!_pd_session_store_session_exists (self, session_id, error))
    return NULL;
  if (!(stmt = pd_db_prepare (self->db,
                              "SELECT value_json FROM annotations WHERE session_id = ?1 AND key = ?2",
                              error)))
    return NULL;
  pd_db_stmt_bind_text (stmt, 1, session_id);
  pd_db_stmt_bind_text (stmt, 2, key);
  rc = pd_db_step (self->db, stmt, error);
  if (rc == PD_DB_ROW)
    return pd_db_stmt_column_dup_text (stmt, 0);
  return NULL;
}
