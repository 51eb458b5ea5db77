/* pd-remote-source-iface.c: the PdSource calls of PdRemoteSource, each a
 * request to the endpoint (pd-remote-source.c sends them).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-source"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "pd-bounded-reply.h"
#include "pd-event-bus.h"
#include "pd-import-private.h"
#include "pd-json-util.h"
#include "pd-plan.h"
#include "pd-remote-source.h"
#include "pd-remote-source-private.h"
#include "pd-session-store.h"

static const char *
remote_get_title (PdSource *source)
{
  return PD_REMOTE_SOURCE (source)->base;
}

static const char *
remote_get_kind (PdSource *source)
{
  return "remote";
}

static void
remote_list_sessions_async (PdSource *source, const char *query, gboolean full_text, guint offset, guint limit,
                            GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  PdRemoteSource *self = PD_REMOTE_SOURCE (source);
  g_autofree char *q = g_uri_escape_string (query ? query : "", NULL, TRUE);
  guint rows = limit ? MIN (limit, PD_SESSION_LIST_MAX_LIMIT) : 50;
  Call *call = _pd_remote_source_call_new (OP_LIST, "GET", NULL, "/api/sessions?q=%s&limit=%u&offset=%u", q,
                                           rows, offset);

  /* A list is as long as the rows asked for: an endpoint that ignored the
   * limit and sent 200,000 sessions (26 MB, under the 64 MiB bound of any
   * reply) had each reply parsed whole, and the window grew to 0.9 GB,
   * again at every refresh (tried as an attacker would). */
  call->max_bytes = MAX (PD_LIST_REPLY_MIN_BYTES, (gsize) rows * PD_LIST_REPLY_ROW_BYTES);
  _pd_remote_source_start_call (self, call, remote_list_sessions_async, cancellable, callback, user_data);
}

static void
remote_get_session_async (PdSource *source, const char *id, GCancellable *cancellable,
                          GAsyncReadyCallback callback, gpointer user_data)
{
  PdRemoteSource *self = PD_REMOTE_SOURCE (source);

  if (_pd_remote_source_check_id (id, callback, user_data, self, remote_get_session_async))
    /* The record only: its messages are the Transcript page's to ask a
     * page of (an endpoint that sends them anyway, odek, is read whole). */
    _pd_remote_source_start_call (self, _pd_remote_source_call_new (OP_GET, "GET", id, "/api/sessions/%s?limit=0", id),
                remote_get_session_async, cancellable, callback, user_data);
}

static Call *
plan_call_new (PdRemoteSource *self,
               const char     *id)
{
  Call *call = _pd_remote_source_call_new (OP_PLAN, "GET", id, self->has_detail == 0 ? "/api/sessions/%s/plan" : "/api/sessions/%s/plan/detail", id);

  call->detail = self->has_detail != 0;
  return call;
}

static void
remote_get_plan_async (PdSource *source, const char *id, GCancellable *cancellable,
                       GAsyncReadyCallback callback, gpointer user_data)
{
  PdRemoteSource *self = PD_REMOTE_SOURCE (source);

  if (_pd_remote_source_check_id (id, callback, user_data, self, remote_get_plan_async))
    _pd_remote_source_start_call (self, plan_call_new (self, id), remote_get_plan_async, cancellable, callback, user_data);
}

static void
remote_get_plan_history_async (PdSource *source, const char *id, GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data)
{
  PdRemoteSource *self = PD_REMOTE_SOURCE (source);

  if (_pd_remote_source_check_id (id, callback, user_data, self, remote_get_plan_history_async))
    _pd_remote_source_get_export (self, OP_HISTORY, id, remote_get_plan_history_async, cancellable, callback, user_data);
}

static void
remote_get_messages_async (PdSource *source, const char *id, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data)
{
  PdRemoteSource *self = PD_REMOTE_SOURCE (source);

  if (_pd_remote_source_check_id (id, callback, user_data, self, remote_get_messages_async))
    _pd_remote_source_get_export (self, OP_MESSAGES, id, remote_get_messages_async, cancellable, callback, user_data);
}

/* The Transcript page's read: the messages of the session's record, a
 * page of them (serve's GET /api/sessions/ID: the newest, or those before
 * message @before, and where they start: "messages_first", of
 * "messages_total").  An endpoint that sends the record whole (odek) has
 * its messages all read, from the first (*@first 0). */
static void
remote_get_messages_part_async (PdSource *source, const char *id, gint64 before, GCancellable *cancellable,
                                GAsyncReadyCallback callback, gpointer user_data)
{
  PdRemoteSource *self = PD_REMOTE_SOURCE (source);
  Call *call;

  if (!_pd_remote_source_check_id (id, callback, user_data, self, remote_get_messages_part_async))
    return;
  if (before >= 0)
    call = _pd_remote_source_call_new (OP_PAGE, "GET", id, "/api/sessions/%s?before=%" G_GINT64_FORMAT, id, before);
  else
    call = _pd_remote_source_call_new (OP_PAGE, "GET", id, "/api/sessions/%s", id);
  _pd_remote_source_start_call (self, call, remote_get_messages_part_async, cancellable, callback, user_data);
}

static JsonArray *
remote_get_messages_part_finish (PdSource *source, GAsyncResult *result, guint64 *first, guint64 *total,
                                 GError **error)
{
  g_autoptr(JsonObject) object = g_task_propagate_pointer (G_TASK (result), error);
  JsonArray *messages;
  guint n;

  *first = *total = 0;
  if (object == NULL)
    return NULL;
  messages = json_array_ref (pd_json_get_array (object, "messages"));
  n = json_array_get_length (messages);
  /* Whatever an endpoint says, the page lies within the conversation. */
  *first = (guint64) CLAMP (pd_json_get_int (object, "messages_first", 0), 0, G_MAXINT);
  *total = MAX ((guint64) CLAMP (pd_json_get_int (object, "messages_total", 0), 0, G_MAXINT), *first + n);
  return messages;
}

static void
remote_get_events_async (PdSource *source, const char *session_id, gint64 after_seq, guint limit,
                         GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  PdRemoteSource *self = PD_REMOTE_SOURCE (source);
  guint clamped = limit ? MIN (limit, PD_EVENT_BUS_RING_SIZE) : 100;
  Call *call;

  if (session_id != NULL)
    {
      if (!_pd_remote_source_check_id (session_id, callback, user_data, self, remote_get_events_async))
        return;
      call = _pd_remote_source_call_new (OP_EVENTS, "GET", session_id, "/api/events?session_id=%s&limit=%u&after_seq=%" G_GINT64_FORMAT,
                       session_id, clamped, MAX (after_seq, 0));
    }
  else
    call = _pd_remote_source_call_new (OP_EVENTS, "GET", NULL, "/api/events?limit=%u", clamped);
  call->after_seq = after_seq;
  _pd_remote_source_start_call (self, call, remote_get_events_async, cancellable, callback, user_data);
}

static void
remote_get_usage_async (PdSource *source, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  _pd_remote_source_start_call (PD_REMOTE_SOURCE (source), _pd_remote_source_call_new (OP_USAGE, "GET", NULL, "/api/usage"),
              remote_get_usage_async, cancellable, callback, user_data);
}

static void
remote_update_session_async (PdSource *source, const char *id, const char *name, int pinned,
                             GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  PdRemoteSource *self = PD_REMOTE_SOURCE (source);
  g_autoptr(JsonObject) body = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  Call *call;

  if (!_pd_remote_source_check_id (id, callback, user_data, self, remote_update_session_async))
    return;
  if (name != NULL)
    json_object_set_string_member (body, "name", name);
  if (pinned >= 0)
    json_object_set_boolean_member (body, "pinned", pinned != 0);
  json_node_set_object (node, body);
  call = _pd_remote_source_call_new (OP_UPDATE, "POST", id, "/api/sessions/%s", id);
  call->body = json_to_string (node, FALSE);
  _pd_remote_source_start_call (self, call, remote_update_session_async, cancellable, callback, user_data);
}

static void
remote_delete_session_async (PdSource *source, const char *id, GCancellable *cancellable,
                             GAsyncReadyCallback callback, gpointer user_data)
{
  PdRemoteSource *self = PD_REMOTE_SOURCE (source);

  if (_pd_remote_source_check_id (id, callback, user_data, self, remote_delete_session_async))
    _pd_remote_source_start_call (self, _pd_remote_source_call_new (OP_DELETE, "DELETE", id, "/api/sessions/%s", id),
                remote_delete_session_async, cancellable, callback, user_data);
}

/* The checklist of an endpoint's imported session: the plan the endpoint
 * serves for it (serve reads it from the agent's transcript, as the local
 * source reads its checklist) as the agent's items, named by the session's
 * agent.  The endpoint keeps no overrides of ours, so there are none.  Every
 * imported session opened from a window on an endpoint said "This endpoint
 * does not serve agent checklists" while serve answered its plan (tried as
 * a new user would).
 *
 * What an endpoint serves is held to a local import's caps: at most
 * PD_IMPORT_MAX_ITEMS items (the rest counted, and said, as a local
 * import's are), each item's text cleaned and cut at PD_IMPORT_MAX_TEXT
 * characters, and the reply itself at CHECKLIST_REPLY_MAX_BYTES.  A hostile
 * endpoint answering with 500 items of 20 KB each held the window on
 * "Loading…" for a minute (tried as an attacker would). */

/* The most a checklist's plan reply may be: PD_IMPORT_MAX_ITEMS items of
 * PD_IMPORT_MAX_TEXT characters, four bytes each, with room for ids,
 * statuses and escapes.  serve never sends more for an imported session. */
#define CHECKLIST_REPLY_MAX_BYTES ((gsize) PD_IMPORT_MAX_ITEMS * (PD_IMPORT_MAX_TEXT * 4 + 512) + 64 * 1024)

typedef struct
{
  char              *id;
  PdChecklistOrigin  origin;
  guint              hidden;   /* the items the endpoint's import left out */
} ChecklistRead;

static void
checklist_read_free (ChecklistRead *read)
{
  g_free (read->id);
  g_free (read);
}

static PdChecklistOrigin
origin_of_agent (const char *agent)
{
  static const struct { const char *agent; PdChecklistOrigin origin; } origins[] = {
    { "claude-code", PD_CHECKLIST_ORIGIN_TODO_LIST }, { "claude-desktop", PD_CHECKLIST_ORIGIN_DESKTOP_PLAN },
    { "codex", PD_CHECKLIST_ORIGIN_CODEX_PLAN }, { "opencode", PD_CHECKLIST_ORIGIN_OPENCODE_TODOS },
    { "qwen", PD_CHECKLIST_ORIGIN_QWEN_TODOS }, { "gemini", PD_CHECKLIST_ORIGIN_GEMINI_TODOS },
    { "cline", PD_CHECKLIST_ORIGIN_CLINE_PROGRESS }, { "roo", PD_CHECKLIST_ORIGIN_ROO_TODOS },
    { "kilo", PD_CHECKLIST_ORIGIN_KILO_TODOS }, { "kilo-cli", PD_CHECKLIST_ORIGIN_KILO_CLI_TODOS },
  };

  for (guint i = 0; i < G_N_ELEMENTS (origins); i++)
    if (g_strcmp0 (agent, origins[i].agent) == 0)
      return origins[i].origin;
  return PD_CHECKLIST_ORIGIN_NONE;
}

static PdChecklistStatus
checklist_status_of (PdPlanStepStatus status)
{
  switch (status)
    {
    case PD_PLAN_STEP_DONE:
      return PD_CHECKLIST_STATUS_COMPLETED;
    case PD_PLAN_STEP_IN_PROGRESS:
      return PD_CHECKLIST_STATUS_IN_PROGRESS;
    case PD_PLAN_STEP_BLOCKED:
      /* serve's "cancelled", read back as blocked: an imported checklist
       * has no other blocked item. */
      return PD_CHECKLIST_STATUS_CANCELLED;
    case PD_PLAN_STEP_PENDING:
    default:
      return PD_CHECKLIST_STATUS_PENDING;
    }
}

static void
on_checklist_plan (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  ChecklistRead *read = g_task_get_task_data (task);
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdChecklist) checklist = NULL;

  if (!pd_source_get_plan_finish (PD_SOURCE (object), result, &plan, &error))
    {
      /* The session is there (it was just read): a plan not found is a
       * route the endpoint does not have (odek's serve). */
      if (g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND))
        g_task_return_new_error (task, PD_SOURCE_ERROR, PD_SOURCE_ERROR_READ_ONLY,
                                 _("This endpoint does not serve agent checklists"));
      else
        g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  checklist = pd_checklist_new ();
  if (plan != NULL && plan->steps->len > 0)
    {
      guint n_kept = MIN (plan->steps->len, PD_IMPORT_MAX_ITEMS);
      GPtrArray *items = g_ptr_array_new_full (n_kept, (GDestroyNotify) pd_checklist_item_free);

      for (guint i = 0; i < n_kept; i++)
        {
          const PdPlanStep *step = g_ptr_array_index (plan->steps, i);
          g_autofree char *text = _pd_import_clean_text (step->title);
          g_autofree char *id = g_utf8_substring (step->id, 0, MIN (g_utf8_strlen (step->id, -1), PD_PLAN_MAX_ID_CHARS * 4));

          g_ptr_array_add (items, pd_checklist_item_new (text, checklist_status_of (step->status), id));
        }
      /* The steps past the reply's own bound were counted, never built;
       * those past the endpoint's (its plan.hidden) were never sent: a
       * list of 600 said nothing of the 100 not shown, where a local one
       * did (tried as a new user would). */
      pd_checklist_replace_agent_items_cut (checklist, read->origin, items,
                                            MIN ((guint64) plan->steps->len - n_kept + plan->n_hidden + read->hidden,
                                                 G_MAXUINT));
    }
  g_task_return_pointer (task, g_steal_pointer (&checklist), g_object_unref);
}

static void
on_checklist_session (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  PdRemoteSource *self = PD_REMOTE_SOURCE (object);
  ChecklistRead *read = g_task_get_task_data (task);
  g_autoptr(PdSessionInfo) info = NULL;
  GError *error = NULL;
  Call *call;

  info = pd_source_get_session_finish (PD_SOURCE (object), result, &error);
  if (info == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* A session of Plandeck's own has no agent checklist. */
  if (!pd_session_info_is_imported (info))
    {
      g_task_return_new_error (task, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND,
                               _("The session has no agent checklist"));
      return;
    }
  read->origin = origin_of_agent (info->source);
  read->hidden = info->plan_hidden;
  call = plan_call_new (self, read->id);
  call->max_bytes = CHECKLIST_REPLY_MAX_BYTES;
  _pd_remote_source_start_call (self, call, remote_get_plan_async, g_task_get_cancellable (task), on_checklist_plan,
                                g_object_ref (task));
}

static void
remote_get_checklist_async (PdSource *source, const char *session_id, GCancellable *cancellable,
                            GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = g_task_new (source, cancellable, callback, user_data);
  ChecklistRead *read = g_new0 (ChecklistRead, 1);

  g_task_set_source_tag (task, remote_get_checklist_async);
  read->id = g_strdup (session_id);
  g_task_set_task_data (task, read, (GDestroyNotify) checklist_read_free);
  pd_source_get_session_async (source, session_id, cancellable, on_checklist_session, g_object_ref (task));
}

static PdChecklist *
remote_get_checklist_finish (PdSource *source, GAsyncResult *result, GPtrArray **plans, GError **error)
{
  if (plans)
    *plans = NULL;
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
remote_save_checklist_async (PdSource *source, const char *session_id, PdChecklist *checklist,
                             GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr(GTask) task = g_task_new (source, cancellable, callback, user_data);

  g_task_set_source_tag (task, remote_save_checklist_async);
  g_task_return_new_error (task, PD_SOURCE_ERROR, PD_SOURCE_ERROR_READ_ONLY,
                           _("Ticks and items of an endpoint's session are not kept: the endpoint serves its "
                             "checklist for reading"));
}

void
_pd_remote_source_iface_init (PdSourceInterface *iface)
{
  iface->get_title = remote_get_title;
  iface->get_kind = remote_get_kind;
  iface->list_sessions_async = remote_list_sessions_async;
  iface->get_session_async = remote_get_session_async;
  iface->get_plan_async = remote_get_plan_async;
  iface->get_plan_history_async = remote_get_plan_history_async;
  iface->get_messages_async = remote_get_messages_async;
  iface->get_messages_part_async = remote_get_messages_part_async;
  iface->get_messages_part_finish = remote_get_messages_part_finish;
  iface->get_events_async = remote_get_events_async;
  iface->get_usage_async = remote_get_usage_async;
  iface->update_session_async = remote_update_session_async;
  iface->delete_session_async = remote_delete_session_async;
  iface->get_checklist_async = remote_get_checklist_async;
  iface->get_checklist_finish = remote_get_checklist_finish;
  iface->save_checklist_async = remote_save_checklist_async;
}
