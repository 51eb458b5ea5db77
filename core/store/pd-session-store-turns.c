/* pd-session-store-turns.c: the messages table and a turn's save: the
 * transcript, the plan version and the counters of one turn in one
 * transaction, and the transcript read back.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include "pd-json.h"

#include "pd-json-util.h"
#include "pd-plan.h"
#include "pd-redact.h"
#include "pd-run-owner.h"
#include "pd-session-store.h"
#include "pd-session-store-private.h"

/* A message's rowid is (session pk << SEQ_BITS) | seq, see the v1 schema. */
#define SEQ_BITS 24
#define SEQ_MAX  ((G_GINT64_CONSTANT (1) << SEQ_BITS) - 1)

/* ---------------------------------------------------------------------- */
/* Turns                                                                  */

typedef struct
{
  char     *role;
  char     *content;       /* NULL for null */
  gboolean  content_json;
  char     *name;
  char     *tool_call_id;
  char     *tool_calls;    /* JSON text or NULL */
  char     *extra;         /* JSON text or NULL */
} RowMessage;

static void
row_message_clear (RowMessage *row)
{
  g_free (row->role);
  g_free (row->content);
  g_free (row->name);
  g_free (row->tool_call_id);
  g_free (row->tool_calls);
  g_free (row->extra);
}

static char *
node_to_text (JsonNode *node)
{
  return json_to_string (node, FALSE);
}

static const char *
optional_string (JsonObject  *object,
                 const char  *member,
                 guint        index,
                 GError     **error)
{
  const char *value;

  if (pd_json_get_optional_string (object, member, &value))
    return value;
  g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID,
               "message %u: “%s” must be a string or null", index, member);
  return NULL;
}

/* Redacts and flattens one message; runs before the write lock is taken. */
static gboolean
row_message_init (RowMessage  *row,
                  JsonNode    *node,
                  guint        index,
                  GError     **error)
{
  g_autoptr(JsonNode) redacted = NULL;
  g_autoptr(JsonObject) extra = NULL;
  g_autoptr(GList) names = NULL;
  JsonObject *object;
  JsonNode *member;
  const char *role;

  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID, "message %u is not a JSON object", index);
      return FALSE;
    }

  redacted = pd_redact_node (node, NULL);
  object = json_node_get_object (redacted);

  role = optional_string (object, "role", index, error);
  if (role == NULL)
    {
      if (error && *error == NULL)
        g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID, "message %u has no role", index);
      return FALSE;
    }
  row->role = g_strdup (role);

  member = json_object_get_member (object, "content");
  if (member == NULL || JSON_NODE_HOLDS_NULL (member))
    row->content = NULL;
  else if (JSON_NODE_HOLDS_VALUE (member) && json_node_get_value_type (member) == G_TYPE_STRING)
    row->content = g_strdup (json_node_get_string (member));
  else
    {
      row->content = node_to_text (member);
      row->content_json = TRUE;
    }

  {
    GError *local = NULL;
    const char *name = optional_string (object, "name", index, &local);
    const char *tool_call_id = local ? NULL : optional_string (object, "tool_call_id", index, &local);

    if (local)
      {
        g_propagate_error (error, local);
        return FALSE;
      }
    row->name = g_strdup (name);
    row->tool_call_id = g_strdup (tool_call_id);
  }

  member = json_object_get_member (object, "tool_calls");
  if (member != NULL && !JSON_NODE_HOLDS_NULL (member))
    {
      if (!JSON_NODE_HOLDS_ARRAY (member))
        {
          g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID,
                       "message %u: “tool_calls” must be an array", index);
          return FALSE;
        }
      row->tool_calls = node_to_text (member);
    }

  /* Members beyond the OpenAI shape (reasoning_content, ids of other
   * agents…) are kept as they came so a transcript round-trips. */
  names = json_object_get_members (object);
  for (GList *l = names; l; l = l->next)
    {
      const char *member_name = l->data;

      member = json_object_get_member (object, member_name);
      if (g_str_equal (member_name, "role") || g_str_equal (member_name, "content") ||
          g_str_equal (member_name, "name") || g_str_equal (member_name, "tool_call_id") ||
          g_str_equal (member_name, "tool_calls"))
        continue;
      if (extra == NULL)
        extra = json_object_new ();
      json_object_set_member (extra, member_name, json_node_copy (member));
    }
  if (extra != NULL)
    {
      g_autoptr(JsonNode) extra_node = json_node_init_object (json_node_alloc (), extra);
      row->extra = node_to_text (extra_node);
    }

  return TRUE;
}

static gboolean
insert_message (PdSessionStore  *self,
                gint64           rowid,
                const RowMessage *row,
                GError         **error)
{
  g_autoptr(PdDbStmt) stmt = NULL;

  if (!(stmt = pd_db_prepare (self->db,
                              "INSERT INTO messages (id, role, content, content_json, name, tool_call_id, tool_calls, extra) "
                              "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                              error)))
    return FALSE;
  pd_db_stmt_bind_int64 (stmt, 1, rowid);
  pd_db_stmt_bind_text (stmt, 2, row->role);
  pd_db_stmt_bind_text_copy (stmt, 3, row->content);
  pd_db_stmt_bind_int (stmt, 4, row->content_json ? 1 : 0);
  pd_db_stmt_bind_text_copy (stmt, 5, row->name);
  pd_db_stmt_bind_text_copy (stmt, 6, row->tool_call_id);
  pd_db_stmt_bind_text_copy (stmt, 7, row->tool_calls);
  pd_db_stmt_bind_text_copy (stmt, 8, row->extra);

  return pd_db_step_done (self->db, stmt, error);
}

static gboolean
store_plan (PdSessionStore     *self,
            const char         *session_id,
            const PdPlanState  *plan,
            const char         *state_json,
            gint64              now,
            GError            **error)
{
  g_autoptr(PdDbStmt) newest = NULL;
  g_autoptr(PdDbStmt) insert = NULL;
  g_autoptr(PdDbStmt) update = NULL;
  PdPlanCounts counts;
  int rc;

  if (!(newest = pd_db_prepare (self->db,
                                "SELECT version FROM plan_versions WHERE session_id = ?1 ORDER BY id DESC LIMIT 1",
                                error)))
    return FALSE;
  pd_db_stmt_bind_text (newest, 1, session_id);
  rc = pd_db_step (self->db, newest, error);
  if (rc == PD_DB_ROW && pd_db_stmt_column_int64 (newest, 0) == plan->version)
    return TRUE;  /* not an effective change */
  if (rc != PD_DB_ROW && rc != PD_DB_DONE)
    return FALSE;
  g_clear_pointer (&newest, pd_db_stmt_release);

  pd_plan_state_count (plan, &counts);

  if (!(insert = pd_db_prepare (self->db,
                                "INSERT INTO plan_versions (session_id, version, created_at, state_json, done, total, blocked) "
                                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                                error)))
    return FALSE;
  pd_db_stmt_bind_text (insert, 1, session_id);
  pd_db_stmt_bind_int64 (insert, 2, plan->version);
  pd_db_stmt_bind_int64 (insert, 3, now);
  pd_db_stmt_bind_text (insert, 4, state_json);
  pd_db_stmt_bind_int (insert, 5, (int) counts.done);
  pd_db_stmt_bind_int (insert, 6, (int) counts.steps);
  pd_db_stmt_bind_int (insert, 7, (int) counts.blocked);
  if (!pd_db_step_done (self->db, insert, error))
    return FALSE;

  if (!(update = pd_db_prepare (self->db,
                                "UPDATE sessions SET plan_version = ?2, plan_done = ?3, plan_total = ?4, plan_blocked = ?5 "
                                "WHERE id = ?1",
                                error)))
    return FALSE;
  pd_db_stmt_bind_text (update, 1, session_id);
  pd_db_stmt_bind_int64 (update, 2, plan->version);
  pd_db_stmt_bind_int (update, 3, (int) counts.done);
  pd_db_stmt_bind_int (update, 4, (int) counts.steps);
  pd_db_stmt_bind_int (update, 5, (int) counts.blocked);
  return pd_db_step_done (self->db, update, error);
}

/* The transaction body; any FALSE makes the caller roll back. */
static gboolean
save_turn_locked (PdSessionStore  *self,
                  const PdTurn    *turn,
                  GArray          *rows,
                  GArray          *replaced_rows,
                  const char      *state_json,
                  GError         **error)
{
  gint64 now = g_get_real_time ();
  gint64 n_stored = 0;
  gint64 pk;

  if ((pk = _pd_session_store_lookup_pk (self, turn->session_id, &n_stored, error)) < 0)
    return FALSE;

  if (turn->messages != NULL)
    {
      g_autoptr(PdDbStmt) cut = NULL;
      gint64 base = pk << SEQ_BITS;

      /* Messages before first_changed are trusted to be stored already; a
       * gap would silently lose the ones in between. */
      if (turn->first_changed > n_stored)
        {
          g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID,
                       "turn of session %s starts at message %u but only %" G_GINT64_FORMAT " are stored",
                       turn->session_id, turn->first_changed, n_stored);
          return FALSE;
        }

      /* Rows replaced in place (the plan message): one row each, so a turn
       * never rewrites the whole transcript behind the plan message. */
      for (guint i = 0; i < turn->n_replaced; i++)
        {
          g_autoptr(PdDbStmt) drop = NULL;
          guint index = turn->replaced[i];

          if (index >= turn->first_changed || index >= n_stored)
            continue;
          if (!(drop = pd_db_prepare (self->db, "DELETE FROM messages WHERE id = ?1", error)))
            return FALSE;
          pd_db_stmt_bind_int64 (drop, 1, base + index);
          if (!pd_db_step_done (self->db, drop, error))
            return FALSE;
          g_clear_pointer (&drop, pd_db_stmt_release);
          if (!insert_message (self, base + index, &g_array_index (replaced_rows, RowMessage, i), error))
            {
              g_prefix_error (error, "message %u of session %s: ", index, turn->session_id);
              return FALSE;
            }
        }

      if (!(cut = pd_db_prepare (self->db, "DELETE FROM messages WHERE id BETWEEN ?1 AND ?2", error)))
        return FALSE;
      pd_db_stmt_bind_int64 (cut, 1, base + turn->first_changed);
      pd_db_stmt_bind_int64 (cut, 2, base + SEQ_MAX);
      if (!pd_db_step_done (self->db, cut, error))
        return FALSE;
      g_clear_pointer (&cut, pd_db_stmt_release);

      if (!_pd_session_store_failpoint (self, "after-delete", error))
        return FALSE;

      for (guint i = 0; i < rows->len; i++)
        if (!insert_message (self, base + turn->first_changed + i,
                             &g_array_index (rows, RowMessage, i), error))
          {
            g_prefix_error (error, "message %u of session %s: ", turn->first_changed + i, turn->session_id);
            return FALSE;
          }

      if (!_pd_session_store_failpoint (self, "after-messages", error))
        return FALSE;
    }

  if (turn->plan != NULL &&
      !store_plan (self, turn->session_id, turn->plan, state_json, now, error))
    return FALSE;

  if (!_pd_session_store_failpoint (self, "after-plan", error))
    return FALSE;

  {
    g_autoptr(PdDbStmt) stmt = NULL;

    if (!(stmt = pd_db_prepare (self->db,
                                "UPDATE sessions SET updated_at = max(updated_at, ?2), turns = turns + ?3, "
                                "input_tokens = input_tokens + ?4, output_tokens = output_tokens + ?5, "
                                "status = ?6, n_messages = coalesce(?7, n_messages), run_owner = ?8 WHERE pk = ?1",
                                error)))
      return FALSE;
    pd_db_stmt_bind_int64 (stmt, 1, pk);
    pd_db_stmt_bind_int64 (stmt, 2, now);
    pd_db_stmt_bind_int (stmt, 3, turn->count_turn ? 1 : 0);
    pd_db_stmt_bind_int64 (stmt, 4, turn->input_tokens);
    pd_db_stmt_bind_int64 (stmt, 5, turn->output_tokens);
    pd_db_stmt_bind_text (stmt, 6, pd_session_status_to_string (turn->status));
    if (turn->messages != NULL)
      pd_db_stmt_bind_int64 (stmt, 7, json_array_get_length (turn->messages));
    else
      pd_db_stmt_bind_null (stmt, 7);
    /* A running session names the process that runs it (pd-run-owner.h). */
    if (turn->status == PD_SESSION_STATUS_RUNNING)
      pd_db_stmt_bind_text (stmt, 8, _pd_run_owner_self ());
    else
      pd_db_stmt_bind_null (stmt, 8);
    if (!pd_db_step_done (self->db, stmt, error))
      return FALSE;
  }

  return _pd_session_store_failpoint (self, "before-commit", error);
}

gboolean
pd_session_store_save_turn (PdSessionStore  *self,
                            const PdTurn    *turn,
                            GError         **error)
{
  g_autoptr(GArray) rows = NULL;
  g_autoptr(GArray) replaced_rows = NULL;
  g_autofree char *state_json = NULL;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), FALSE);
  g_return_val_if_fail (turn != NULL, FALSE);

  if (!_pd_session_store_check_id (turn->session_id, error))
    return FALSE;

  /* Everything that does not need the database happens before the write
   * lock is taken, so other writers wait as little as possible. */
  rows = g_array_new (FALSE, TRUE, sizeof (RowMessage));
  g_array_set_clear_func (rows, (GDestroyNotify) row_message_clear);
  if (turn->messages != NULL)
    {
      guint len = json_array_get_length (turn->messages);

      if (turn->first_changed > len)
        {
          g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID,
                       "first changed message %u is past the end of the %u-message transcript",
                       turn->first_changed, len);
          return FALSE;
        }
      if (len > SEQ_MAX)
        {
          g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID,
                       "a transcript of %u messages is more than a session can hold", len);
          return FALSE;
        }
      g_array_set_size (rows, len - turn->first_changed);
      for (guint i = turn->first_changed; i < len; i++)
        if (!row_message_init (&g_array_index (rows, RowMessage, i - turn->first_changed),
                               json_array_get_element (turn->messages, i), i, error))
          return FALSE;
    }

  replaced_rows = g_array_new (FALSE, TRUE, sizeof (RowMessage));
  g_array_set_clear_func (replaced_rows, (GDestroyNotify) row_message_clear);
  if (turn->messages != NULL && turn->n_replaced > 0)
    {
      guint len = json_array_get_length (turn->messages);

      g_array_set_size (replaced_rows, turn->n_replaced);
      for (guint i = 0; i < turn->n_replaced; i++)
        {
          guint index = turn->replaced[i];

          if (index >= len)
            {
              g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID,
                           "replaced message %u is past the end of the %u-message transcript", index, len);
              return FALSE;
            }
          if (!row_message_init (&g_array_index (replaced_rows, RowMessage, i),
                                 json_array_get_element (turn->messages, index), index, error))
            return FALSE;
        }
    }
  if (turn->plan != NULL)
    {
      /* Plan titles and notes are model text like any message, redacted
       * a string at a time: as one text, a quote opened in one step ran
       * over the steps after it. */
      g_autofree char *raw = pd_plan_state_to_json (turn->plan);
      state_json = pd_redact_json (raw, NULL);
    }

  if (!pd_db_begin (self->db, error))
    return FALSE;
  if (!save_turn_locked (self, turn, rows, replaced_rows, state_json, error))
    {
      pd_db_rollback (self->db);
      return FALSE;
    }
  return pd_db_commit (self->db, error);
}

JsonArray *
pd_session_store_load_messages (PdSessionStore  *self,
                                const char      *id,
                                GError         **error)
{
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;
  g_autoptr(JsonArray) messages = NULL;
  gint64 pk;
  int rc;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), NULL);

  if (!_pd_session_store_check_id (id, error))
    return NULL;

  locker = pd_db_locker_new (self->db);
  if ((pk = _pd_session_store_lookup_pk (self, id, NULL, error)) < 0)
    return NULL;

  if (!(stmt = pd_db_prepare (self->db,
                              "SELECT role, content, content_json, name, tool_call_id, tool_calls, extra "
                              "FROM messages WHERE id BETWEEN ?1 AND ?2 ORDER BY id",
                              error)))
    return NULL;
  pd_db_stmt_bind_int64 (stmt, 1, pk << SEQ_BITS);
  pd_db_stmt_bind_int64 (stmt, 2, (pk << SEQ_BITS) + SEQ_MAX);

  messages = json_array_new ();
  while ((rc = pd_db_step (self->db, stmt, error)) == PD_DB_ROW)
    {
      g_autoptr(JsonObject) object = json_object_new ();
      const char *content = pd_db_stmt_column_text (stmt, 1);
      const char *extra = pd_db_stmt_column_text (stmt, 6);
      const char *tool_calls = pd_db_stmt_column_text (stmt, 5);

      json_object_set_string_member (object, "role", pd_db_stmt_column_text (stmt, 0));
      if (content == NULL)
        json_object_set_null_member (object, "content");
      else if (pd_db_stmt_column_int (stmt, 2))
        {
          JsonNode *node = pd_json_from_string_bounded (content, NULL);

          if (node)
            json_object_set_member (object, "content", node);
          else
            json_object_set_string_member (object, "content", content);
        }
      else
        json_object_set_string_member (object, "content", content);

      if (!pd_db_stmt_column_is_null (stmt, 3))
        json_object_set_string_member (object, "name", pd_db_stmt_column_text (stmt, 3));
      if (!pd_db_stmt_column_is_null (stmt, 4))
        json_object_set_string_member (object, "tool_call_id", pd_db_stmt_column_text (stmt, 4));
      if (tool_calls != NULL)
        {
          JsonNode *node = pd_json_from_string_bounded (tool_calls, NULL);

          if (node)
            json_object_set_member (object, "tool_calls", node);
        }

      /* Other members last, never over the known ones. */
      if (extra != NULL)
        {
          g_autoptr(JsonNode) node = pd_json_from_string_bounded (extra, NULL);

          if (node && JSON_NODE_HOLDS_OBJECT (node))
            {
              JsonObject *stored = json_node_get_object (node);
              g_autoptr(GList) names = json_object_get_members (stored);

              for (GList *l = names; l; l = l->next)
                if (!json_object_has_member (object, l->data))
                  json_object_set_member (object, l->data,
                                          json_node_copy (json_object_get_member (stored, l->data)));
            }
        }

      json_array_add_object_element (messages, g_steal_pointer (&object));
    }
  if (rc != PD_DB_DONE)
    return NULL;

  return g_steal_pointer (&messages);
}
