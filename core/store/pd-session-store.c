/* pd-session-store.c: sessions, transcripts, plan history, events and
 * annotations in a PdDb. */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>
#include <unistd.h>

#include "pd-json-util.h"
#include "pd-plan.h"
#include "pd-random.h"
#include "pd-redact.h"
#include "pd-run-owner.h"
#include "pd-session-store.h"
#include "pd-session-store-private.h"

/* A message's rowid is (session pk << SEQ_BITS) | seq, see the v1 schema. */
#define SEQ_BITS 24
#define SEQ_MAX  ((G_GINT64_CONSTANT (1) << SEQ_BITS) - 1)

#define EVENTS_DEFAULT_LIMIT 100
#define EVENTS_MAX_LIMIT     1000

struct _PdSessionStore
{
  GObject  parent_instance;

  PdDb    *db;
  char    *failpoint;
};

G_DEFINE_FINAL_TYPE (PdSessionStore, pd_session_store, G_TYPE_OBJECT)

G_DEFINE_BOXED_TYPE (PdSessionInfo, pd_session_info, pd_session_info_copy, pd_session_info_free)
G_DEFINE_BOXED_TYPE (PdPlanVersionInfo, pd_plan_version_info, pd_plan_version_info_copy, pd_plan_version_info_free)
G_DEFINE_BOXED_TYPE (PdStoredEvent, pd_stored_event, pd_stored_event_copy, pd_stored_event_free)

/* ---------------------------------------------------------------------- */
/* Boxed types and small helpers                                          */

static const char * const status_names[] = { "idle", "running", "failed", "interrupted" };

const char *
pd_session_status_to_string (PdSessionStatus status)
{
  if ((guint) status >= G_N_ELEMENTS (status_names))
    return "idle";
  return status_names[status];
}

gboolean
pd_session_status_from_string (const char      *str,
                               PdSessionStatus *status)
{
  for (guint i = 0; str != NULL && i < G_N_ELEMENTS (status_names); i++)
    if (strcmp (str, status_names[i]) == 0)
      {
        *status = (PdSessionStatus) i;
        return TRUE;
      }
  return FALSE;
}

PdSessionInfo *
pd_session_info_copy (const PdSessionInfo *self)
{
  PdSessionInfo *copy = g_memdup2 (self, sizeof *self);

  copy->id = g_strdup (self->id);
  copy->task = g_strdup (self->task);
  copy->name = g_strdup (self->name);
  copy->model = g_strdup (self->model);
  copy->provider = g_strdup (self->provider);
  copy->source = g_strdup (self->source);
  copy->cwd = g_strdup (self->cwd);
  copy->auth_token = g_strdup (self->auth_token);

  return copy;
}

/* RFC 3339 in UTC with microseconds, as the event stream writes times. */
char *
pd_session_time_to_string (gint64 unix_usec)
{
  g_autoptr(GDateTime) seconds = g_date_time_new_from_unix_utc (unix_usec / G_USEC_PER_SEC);
  g_autoptr(GDateTime) time = seconds ? g_date_time_add (seconds, unix_usec % G_USEC_PER_SEC) : NULL;

  if (time == NULL)
    return g_strdup ("1970-01-01T00:00:00.000000Z");
  return g_date_time_format (time, "%Y-%m-%dT%H:%M:%S.%fZ");
}

/**
 * pd_session_info_to_json:
 * @with_token: include the per-session auth token (only its owner may see it)
 *
 * The session record as the CLI and the REST API show it: odek's session
 * fields (id, title, task, model, provider, turns, tokens, pinned, times)
 * plus ours (name, source, cwd, status, the plan summary).
 *
 * Returns: (transfer full): a new object
 */
JsonObject *
pd_session_info_to_json (const PdSessionInfo *self,
                         gboolean             with_token)
{
  JsonObject *object = json_object_new ();
  JsonObject *plan = json_object_new ();
  g_autofree char *created = pd_session_time_to_string (self->created_at);
  g_autofree char *updated = pd_session_time_to_string (self->updated_at);

  json_object_set_string_member (object, "id", self->id);
  json_object_set_string_member (object, "title", self->name && *self->name ? self->name : (self->task ? self->task : ""));
  if (self->name != NULL)
    json_object_set_string_member (object, "name", self->name);
  json_object_set_string_member (object, "task", self->task ? self->task : "");
  json_object_set_string_member (object, "model", self->model ? self->model : "");
  json_object_set_string_member (object, "provider", self->provider ? self->provider : "");
  json_object_set_string_member (object, "source", self->source ? self->source : "");
  json_object_set_string_member (object, "cwd", self->cwd ? self->cwd : "");
  json_object_set_string_member (object, "status", pd_session_status_to_string (self->status));
  json_object_set_string_member (object, "created_at", created);
  json_object_set_string_member (object, "updated_at", updated);
  json_object_set_int_member (object, "turns", self->turns);
  json_object_set_int_member (object, "input_tokens", self->input_tokens);
  json_object_set_int_member (object, "output_tokens", self->output_tokens);
  json_object_set_boolean_member (object, "pinned", self->pinned);
  json_object_set_int_member (object, "messages", self->n_messages);
  json_object_set_int_member (plan, "version", self->plan_version);
  json_object_set_int_member (plan, "done", self->plan_done);
  json_object_set_int_member (plan, "total", self->plan_total);
  json_object_set_int_member (plan, "blocked", self->plan_blocked);
  json_object_set_object_member (object, "plan", plan);
  json_object_set_string_member (object, "auth_token", with_token && self->auth_token ? self->auth_token : "");

  return object;
}

/**
 * pd_session_info_is_imported:
 *
 * Whether the session was read from another agent's transcript (Claude
 * Code, Codex, OpenCode): shown, searched and annotated, but never
 * continued, since its history belongs to that agent.
 */
gboolean
pd_session_info_is_imported (const PdSessionInfo *self)
{
  static const char * const imported[] = { "claude-code", "claude-desktop", "codex", "opencode" };

  g_return_val_if_fail (self != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (imported); i++)
    if (g_strcmp0 (self->source, imported[i]) == 0)
      return TRUE;
  return FALSE;
}

void
pd_session_info_free (PdSessionInfo *self)
{
  if (self == NULL)
    return;
  g_free (self->id);
  g_free (self->task);
  g_free (self->name);
  g_free (self->model);
  g_free (self->provider);
  g_free (self->source);
  g_free (self->cwd);
  g_free (self->auth_token);
  g_free (self);
}

PdPlanVersionInfo *
pd_plan_version_info_copy (const PdPlanVersionInfo *self)
{
  PdPlanVersionInfo *copy = g_memdup2 (self, sizeof *self);

  copy->state_json = g_strdup (self->state_json);
  return copy;
}

void
pd_plan_version_info_free (PdPlanVersionInfo *self)
{
  if (self == NULL)
    return;
  g_free (self->state_json);
  g_free (self);
}

PdStoredEvent *
pd_stored_event_copy (const PdStoredEvent *self)
{
  PdStoredEvent *copy = g_memdup2 (self, sizeof *self);

  copy->event_json = g_strdup (self->event_json);
  return copy;
}

void
pd_stored_event_free (PdStoredEvent *self)
{
  if (self == NULL)
    return;
  g_free (self->event_json);
  g_free (self);
}

char *
pd_session_id_new (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *date = g_date_time_format (now, "%Y%m%d");
  g_autofree char *hex = pd_random_hex (16);

  return g_strdup_printf ("%s-%s", date, hex);
}

/* Exactly "YYYYMMDD-" + 32 lowercase hex: an id is used in file names and
 * URLs, so nothing else (separators, dots, NUL, upper case) gets through. */
gboolean
pd_session_id_is_valid (const char *id)
{
  if (id == NULL || strlen (id) != PD_SESSION_ID_LEN)
    return FALSE;
  for (guint i = 0; i < 8; i++)
    if (!g_ascii_isdigit (id[i]))
      return FALSE;
  if (id[8] != '-')
    return FALSE;
  for (guint i = 9; i < PD_SESSION_ID_LEN; i++)
    if (!g_ascii_isdigit (id[i]) && !(id[i] >= 'a' && id[i] <= 'f'))
      return FALSE;
  return TRUE;
}

static gboolean
check_id (const char  *id,
          GError     **error)
{
  if (pd_session_id_is_valid (id))
    return TRUE;
  g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID,
               "“%s” is not a session id (expected YYYYMMDD- and 32 hex digits)",
               id ? id : "(null)");
  return FALSE;
}

static void
set_not_found (const char  *id,
               GError     **error)
{
  g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND, "session %s not found", id);
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

static gboolean
failpoint (PdSessionStore  *self,
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
static gint64
lookup_pk (PdSessionStore  *self,
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
    set_not_found (id, error);
  return -1;
}

/* ---------------------------------------------------------------------- */
/* Sessions                                                               */

#define SESSION_COLUMNS \
  "s.id, s.task, s.name, s.model, s.provider, s.source, s.cwd, s.status, " \
  "s.created_at, s.updated_at, s.turns, s.input_tokens, s.output_tokens, s.pinned, " \
  "s.auth_token, s.plan_version, s.plan_done, s.plan_total, s.plan_blocked, s.n_messages, s.run_owner"
/* The column after SESSION_COLUMNS. */
#define SESSION_COLUMNS_END 21

static PdSessionInfo *
info_from_row (PdDbStmt     *stmt)
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

  return info;
}

/* A running session whose run's owner is gone was interrupted: a run
 * killed with SIGKILL never writes its end.  Noticed whenever a session is
 * read (get, list): the session reads as interrupted, and is written so
 * when the file can be written — only if it still has that owner, so a run
 * that took the session again meanwhile keeps it.  An owner that is alive,
 * or that cannot be judged, leaves the session running (pd-run-owner.h).
 * Caller holds the lock, with no statement of its own stepping. */
static void
settle_running (PdSessionStore *self,
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

  if (!check_id (id, error))
    return NULL;

  locker = pd_db_locker_new (self->db);
  if (!(stmt = pd_db_prepare (self->db, "SELECT " SESSION_COLUMNS " FROM sessions s WHERE s.id = ?1", error)))
    return NULL;
  pd_db_stmt_bind_text (stmt, 1, id);
  rc = pd_db_step (self->db, stmt, error);
  if (rc == PD_DB_ROW)
    {
      PdSessionInfo *info = info_from_row (stmt);
      g_autofree char *owner = pd_db_stmt_column_dup_text (stmt, 20);

      g_clear_pointer (&stmt, pd_db_stmt_release);
      settle_running (self, info, owner);
      return info;
    }
  if (rc == PD_DB_DONE)
    set_not_found (id, error);
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

  if ((pk = lookup_pk (self, turn->session_id, &n_stored, error)) < 0)
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

      if (!failpoint (self, "after-delete", error))
        return FALSE;

      for (guint i = 0; i < rows->len; i++)
        if (!insert_message (self, base + turn->first_changed + i,
                             &g_array_index (rows, RowMessage, i), error))
          {
            g_prefix_error (error, "message %u of session %s: ", turn->first_changed + i, turn->session_id);
            return FALSE;
          }

      if (!failpoint (self, "after-messages", error))
        return FALSE;
    }

  if (turn->plan != NULL &&
      !store_plan (self, turn->session_id, turn->plan, state_json, now, error))
    return FALSE;

  if (!failpoint (self, "after-plan", error))
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

  return failpoint (self, "before-commit", error);
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

  if (!check_id (turn->session_id, error))
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
      /* Plan titles and notes are model text like any message. */
      g_autofree char *raw = pd_plan_state_to_json (turn->plan);
      state_json = pd_redact (raw, NULL);
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

  if (!check_id (id, error))
    return NULL;

  locker = pd_db_locker_new (self->db);
  if ((pk = lookup_pk (self, id, NULL, error)) < 0)
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
          JsonNode *node = json_from_string (content, NULL);

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
          JsonNode *node = json_from_string (tool_calls, NULL);

          if (node)
            json_object_set_member (object, "tool_calls", node);
        }

      /* Other members last, never over the known ones. */
      if (extra != NULL)
        {
          g_autoptr(JsonNode) node = json_from_string (extra, NULL);

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

/* ---------------------------------------------------------------------- */
/* Plans                                                                  */

static gboolean
session_exists (PdSessionStore  *self,
                const char      *id,
                GError         **error)
{
  return lookup_pk (self, id, NULL, error) >= 0;
}

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

  if (!check_id (id, error))
    return NULL;

  locker = pd_db_locker_new (self->db);
  if (!session_exists (self, id, error))
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
  if (!check_id (id, error))
    return FALSE;

  {
    g_autoptr(PdDbLocker) locker = pd_db_locker_new (self->db);
    g_autoptr(PdDbStmt) stmt = NULL;
    int rc;

    if (!session_exists (self, id, error))
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

/* ---------------------------------------------------------------------- */
/* Listing and search                                                     */

char *
pd_session_store_fts_query (const char *text)
{
  g_auto(GStrv) words = NULL;
  GString *out;

  if (text == NULL)
    return NULL;

  words = g_strsplit_set (text, " \t\r\n\f\v", -1);
  out = g_string_new (NULL);
  for (guint i = 0; words[i] != NULL; i++)
    {
      gboolean searchable = FALSE;

      /* A word of punctuation only has no token: as a phrase it would be
       * an FTS5 syntax error or match nothing, so it is left out. */
      for (const char *p = words[i]; *p; p++)
        if (g_ascii_isalnum (*p) || (guchar) *p >= 0x80)
          searchable = TRUE;
      if (!searchable)
        continue;

      if (out->len > 0)
        g_string_append_c (out, ' ');
      g_string_append_c (out, '"');
      for (const char *p = words[i]; *p; p++)
        {
          if (*p == '"')
            g_string_append_c (out, '"');
          g_string_append_c (out, *p);
        }
      g_string_append_c (out, '"');
    }

  if (out->len == 0)
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  return g_string_free (out, FALSE);
}

static char *
like_pattern (const char *query)
{
  GString *out = g_string_new ("%");

  for (const char *p = query; *p; p++)
    {
      if (*p == '%' || *p == '_' || *p == '\\')
        g_string_append_c (out, '\\');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '%');

  return g_string_free (out, FALSE);
}

#define SUBSTRING_WHERE \
  " WHERE (s.task LIKE ?1 ESCAPE '\\' OR s.model LIKE ?1 ESCAPE '\\'" \
  " OR s.name LIKE ?1 ESCAPE '\\' OR s.id LIKE ?1 ESCAPE '\\'"
/* The message index gives the session as rowid >> 24: no join with messages. */
#define FTS_OR \
  " OR s.pk IN (SELECT rowid FROM sessions_fts WHERE sessions_fts MATCH ?2" \
  " UNION SELECT rowid >> 24 FROM messages_fts WHERE messages_fts MATCH ?2)"
/* For a term in a large part of all messages, collecting every match costs
 * ~100 ms at a million messages; probing each session in display order
 * stops after one page instead (a few ms).  The switch point: */
#define COMMON_TERM_MATCHES 20000
#define FTS_EXISTS \
  " OR s.pk IN (SELECT rowid FROM sessions_fts WHERE sessions_fts MATCH ?2)" \
  " OR EXISTS (SELECT 1 FROM messages_fts WHERE messages_fts MATCH ?2" \
  " AND rowid BETWEEN (s.pk << 24) AND (s.pk << 24) + 16777215)"
#define LIST_ORDER " ORDER BY s.pinned DESC, s.updated_at DESC, s.id LIMIT ?3 OFFSET ?4"

/* The number of message matches, counted up to COMMON_TERM_MATCHES + 1. */
static gint64
count_message_matches (PdSessionStore  *self,
                       const char      *fts,
                       GError         **error)
{
  g_autoptr(PdDbStmt) stmt = NULL;

  if (!(stmt = pd_db_prepare (self->db,
                              "SELECT count(*) FROM (SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?1 LIMIT ?2)",
                              error)))
    return -1;
  pd_db_stmt_bind_text (stmt, 1, fts);
  pd_db_stmt_bind_int (stmt, 2, COMMON_TERM_MATCHES + 1);
  if (pd_db_step (self->db, stmt, error) != PD_DB_ROW)
    return -1;
  return pd_db_stmt_column_int64 (stmt, 0);
}

/* Distinct sessions among the first COMMON_TERM_MATCHES message matches: a
 * lower bound of the total for a common term. */
static gint64
count_sessions_lower_bound (PdSessionStore  *self,
                            const char      *fts,
                            GError         **error)
{
  g_autoptr(PdDbStmt) stmt = NULL;

  if (!(stmt = pd_db_prepare (self->db,
                              "SELECT count(DISTINCT rowid >> 24) FROM "
                              "(SELECT rowid FROM messages_fts WHERE messages_fts MATCH ?1 LIMIT ?2)",
                              error)))
    return -1;
  pd_db_stmt_bind_text (stmt, 1, fts);
  pd_db_stmt_bind_int (stmt, 2, COMMON_TERM_MATCHES);
  if (pd_db_step (self->db, stmt, error) != PD_DB_ROW)
    return -1;
  return pd_db_stmt_column_int64 (stmt, 0);
}

GPtrArray *
pd_session_store_list (PdSessionStore  *self,
                       const char      *query,
                       gboolean         full_text,
                       guint            offset,
                       guint            limit,
                       guint           *total,
                       GError         **error)
{
  g_autoptr(PdDbLocker) locker = NULL;
  g_autoptr(PdDbStmt) stmt = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(GPtrArray) owners = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *like = NULL;
  g_autofree char *fts = NULL;
  const char *where;
  g_autofree char *page_sql = NULL;
  g_autofree char *count_sql = NULL;
  gint64 window_total = -1;
  gboolean common = FALSE;
  int rc;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), NULL);

  if (total)
    *total = 0;
  limit = CLAMP (limit, 1, PD_SESSION_LIST_MAX_LIMIT);

  if (query != NULL && strlen (query) > PD_SESSION_QUERY_MAX_BYTES)
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID,
                   "the search is too long (%" G_GSIZE_FORMAT " bytes; at most %d)",
                   strlen (query), PD_SESSION_QUERY_MAX_BYTES);
      return NULL;
    }

  if (query != NULL && *query != '\0')
    {
      like = like_pattern (query);
      if (full_text)
        fts = pd_session_store_fts_query (query);
    }

  locker = pd_db_locker_new (self->db);

  if (fts != NULL)
    {
      gint64 matches = count_message_matches (self, fts, error);

      if (matches < 0)
        return NULL;
      common = matches > COMMON_TERM_MATCHES;
    }

  if (like == NULL)
    where = "";
  else if (fts == NULL)
    where = SUBSTRING_WHERE ")";
  else if (!common)
    where = SUBSTRING_WHERE FTS_OR ")";
  else
    where = SUBSTRING_WHERE FTS_EXISTS ")";

  /* With a filter every row is visited anyway: the window count gives the
   * total in the same pass instead of a second scan (and FTS lookup).  Not
   * for a common term, where visiting every row is what is avoided. */
  page_sql = g_strconcat ("SELECT " SESSION_COLUMNS, like && !common ? ", count(*) OVER ()" : ", -1",
                          " FROM sessions s", where, LIST_ORDER, NULL);
  count_sql = g_strconcat ("SELECT count(*) FROM sessions s", where, NULL);

  if (!(stmt = pd_db_prepare (self->db, page_sql, error)))
    return NULL;
  if (like)
    pd_db_stmt_bind_text (stmt, 1, like);
  if (fts)
    pd_db_stmt_bind_text (stmt, 2, fts);
  pd_db_stmt_bind_int (stmt, 3, (int) limit);
  pd_db_stmt_bind_int64 (stmt, 4, offset);

  sessions = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_session_info_free);
  while ((rc = pd_db_step (self->db, stmt, error)) == PD_DB_ROW)
    {
      g_ptr_array_add (sessions, info_from_row (stmt));
      window_total = pd_db_stmt_column_int64 (stmt, SESSION_COLUMNS_END);
      /* Running sessions are settled once the statement is done. */
      g_ptr_array_add (owners, pd_db_stmt_column_dup_text (stmt, 20));
    }
  if (rc != PD_DB_DONE)
    return NULL;
  g_clear_pointer (&stmt, pd_db_stmt_release);

  for (guint i = 0; i < sessions->len; i++)
    settle_running (self, g_ptr_array_index (sessions, i), g_ptr_array_index (owners, i));

  if (total)
    {
      if (window_total >= 0)
        *total = (guint) window_total;
      /* A short first page already says how many there are. */
      else if (offset == 0 && sessions->len < limit)
        *total = sessions->len;
      else if (common)
        {
          /* A lower bound: at least this page, and at least the sessions
           * of the first matches. */
          gint64 bound = count_sessions_lower_bound (self, fts, error);

          if (bound < 0)
            return NULL;
          *total = (guint) MAX ((gint64) offset + sessions->len + (sessions->len == limit ? 1 : 0), bound);
        }
      else
        {
          if (!(stmt = pd_db_prepare (self->db, count_sql, error)))
            return NULL;
          if (like)
            pd_db_stmt_bind_text (stmt, 1, like);
          if (fts)
            pd_db_stmt_bind_text (stmt, 2, fts);
          if (pd_db_step (self->db, stmt, error) != PD_DB_ROW)
            return NULL;
          *total = (guint) pd_db_stmt_column_int64 (stmt, 0);
        }
    }

  return g_steal_pointer (&sessions);
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

  if (!check_id (id, error))
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
      set_not_found (id, error);
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
 * through ON DELETE CASCADE, the search index through its triggers. */
gboolean
pd_session_store_delete (PdSessionStore  *self,
                         const char      *id,
                         GError         **error)
{
  g_autoptr(PdDbStmt) stmt = NULL;
  gboolean changed;

  g_return_val_if_fail (PD_IS_SESSION_STORE (self), FALSE);

  if (!check_id (id, error))
    return FALSE;
  if (!pd_db_begin (self->db, error))
    return FALSE;
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
      set_not_found (id, error);
      return FALSE;
    }
  return pd_db_commit (self->db, error);
}

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

  if (session_id != NULL && !check_id (session_id, error))
    return -1;
  if (type == NULL || *type == '\0' || event_json == NULL)
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID, "an event needs a type and a JSON body");
      return -1;
    }
  /* Plan events carry counts only, but tool events may quote arguments. */
  redacted = pd_redact (event_json, NULL);

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
        set_not_found (session_id, error);
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

  if (session_id != NULL && !check_id (session_id, error))
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

  if (!check_id (session_id, error))
    return FALSE;
  if (key == NULL || *key == '\0')
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID, "an annotation needs a key");
      return FALSE;
    }
  if (value_json == NULL || !(parsed = json_from_string (value_json, &local)) )
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID, "annotation “%s” is not JSON: %s",
                   key, local ? local->message : "no value");
      return FALSE;
    }
  /* User items may quote anything, secrets included. */
  redacted = pd_redact_node (parsed, NULL);
  text = json_to_string (redacted, FALSE);

  locker = pd_db_locker_new (self->db);
  if (!session_exists (self, session_id, error))
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

  if (!check_id (session_id, error))
    return NULL;

  locker = pd_db_locker_new (self->db);
  if (!session_exists (self, session_id, error))
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
