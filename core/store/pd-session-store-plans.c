/* pd-session-store-plans.c: the plan versions of a session (the
 * plan_versions table), read back as a list or as the newest state.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include "pd-plan.h"
#include "pd-session-store.h"
#include "pd-session-store-private.h"

/* ---------------------------------------------------------------------- */
/* Plans                                                                  */

GPtrArray *
pd_session_store_list_plan_versions (PdSessionStore  *self,
                                     const char      *id,
                                     GError         **error)
{
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;
  g_autoptr(GPtrArray) versions = NULL;
  int rc;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), NULL);

  if (!_pd_session_store_check_id (id, error))
    return NULL;

  locker = pd_db_locker_new (self->db);
  if (!_pd_session_store_session_exists (self, id, error))
    return NULL;
  if (!(stmt = pd_db_prepare (self->db,
                              "SELECT version, created_at, state_json FROM plan_versions "
                              "WHERE session_id = ?1 ORDER BY id",
                              error)))
    return NULL;
  pd_db_stmt_bind_text (stmt, 1, id);

  versions = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_plan_version_info_free);
  while ((rc = pd_db_step (self->db, stmt, error)) == PD_DB_ROW)
    {
      PdPlanVersionInfo *info = g_new0 (PdPlanVersionInfo, 1);

      info->version = pd_db_stmt_column_int64 (stmt, 0);
      info->created_at = pd_db_stmt_column_int64 (stmt, 1);
      info->state_json = pd_db_stmt_column_dup_text (stmt, 2);
      g_ptr_array_add (versions, info);
    }
  if (rc != PD_DB_DONE)
    return NULL;

  return g_steal_pointer (&versions);
}

/* *state is NULL (and TRUE returned) when the session has no plan. */
gboolean
pd_session_store_get_plan (PdSessionStore  *self,
                           const char      *id,
                           PdPlanState    **state,
                           GError         **error)
{
  g_autofree char *state_json = NULL;
  g_autoptr(JsonArray) messages = NULL;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), FALSE);
  g_return_val_if_fail (state != NULL, FALSE);

  *state = NULL;
  if (!_pd_session_store_check_id (id, error))
    return FALSE;

  {
    g_autoptr(PdDbLocker) locker = pd_db_locker_new (self->db);
    g_autoptr(PdDbStmt) stmt = NULL;
    int rc;

    if (!_pd_session_store_session_exists (self, id, error))
      return FALSE;
    if (!(stmt = pd_db_prepare (self->db,
                                "SELECT state_json FROM plan_versions WHERE session_id = ?1 ORDER BY id DESC LIMIT 1",
                                error)))
      return FALSE;
    pd_db_stmt_bind_text (stmt, 1, id);
    rc = pd_db_step (self->db, stmt, error);
    if (rc == PD_DB_ROW)
      state_json = pd_db_stmt_column_dup_text (stmt, 0);
    else if (rc != PD_DB_DONE)
      return FALSE;
  }

  if (state_json != NULL)
    {
      g_autoptr(GError) local = NULL;

      *state = pd_plan_state_new_from_json (state_json, &local);
      if (*state != NULL)
        return TRUE;
      /* A row this build cannot read (an older encoding): the transcript
       * still has the rendered plan. */
      g_debug ("stored plan of %s unreadable, extracting from the transcript: %s", id, local->message);
    }

  if (!(messages = pd_session_store_load_messages (self, id, error)))
    return FALSE;
  *state = pd_plan_extract (messages, NULL);
  return TRUE;
}
