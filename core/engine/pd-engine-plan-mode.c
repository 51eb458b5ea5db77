/* pd-engine-plan-mode.c: plan mode in a run.
 *
 * Plan mode is the fold of the session's plan_mode events; a run logs to
 * it, refuses mutating tools while it is on (but for the plan artifact),
 * and adds its guidance to the system prompt of every request.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-engine"

#include "config.h"

#include <string.h>

#include "pd-engine-private.h"
#include "pd-event.h"
#include "pd-json.h"
#include "pd-json-util.h"
#include "pd-plan-artifact.h"

typedef struct
{
  PdEngine *engine;     /* outlives every run and selection */
  char     *session_id;
  char     *run_id;     /* nullable */
} AppendContext;

static void
append_context_free (AppendContext *context)
{
  g_free (context->session_id);
  g_free (context->run_id);
  g_free (context);
}

/* Appends one plan_mode event to the session's log, synchronously: a
 * failure must leave the selection pending. */
static gboolean
append_plan_mode (gboolean   active,
                  gpointer   user_data,
                  GError   **error)
{
  AppendContext *context = user_data;
  PdEngine *self = context->engine;
  g_autoptr(PdEvent) event = pd_event_new (PD_PLAN_MODE_EVENT);
  g_autofree char *json = NULL;
  JsonObject *data = json_object_new ();

  pd_event_set_session_id (event, context->session_id);
  if (context->run_id != NULL)
    pd_event_set_run_id (event, context->run_id);
  json_object_set_boolean_member (data, "active", active);
  pd_event_take_data (event, data);
  json = pd_event_to_json (event);

  if (self->store != NULL &&
      pd_session_store_add_event (self->store, context->session_id, context->run_id, PD_PLAN_MODE_EVENT,
                                  pd_event_get_timestamp (event), json, error) < 0)
    return FALSE;

  if (self->bus != NULL)
    pd_event_bus_emit (self->bus, event);

  return TRUE;
}

/* The stored events of one type, as JSON text, oldest first. */
static GPtrArray *
stored_events (PdEngine   *self,
               const char *session_id,
               const char *type)
{
  GPtrArray *texts = g_ptr_array_new_with_free_func (g_free);
  gint64 after = 0;

  if (self->store == NULL)
    return texts;

  for (;;)
    {
      g_autoptr(GPtrArray) page = pd_session_store_list_events (self->store, session_id, type, after, 1000, NULL);

      if (page == NULL)
        break;
      for (guint i = 0; i < page->len; i++)
        {
          const PdStoredEvent *event = g_ptr_array_index (page, i);

          g_ptr_array_add (texts, g_strdup (event->event_json));
          after = event->seq;
        }
      if (page->len < 1000)
        break;
    }

  return texts;
}

/* The newest approved plan artifact recorded for the session. */
char *
_pd_engine_last_artifact_path (PdEngine   *self,
                               const char *session_id)
{
  g_autoptr(GPtrArray) saved = stored_events (self, session_id, PD_EVENT_PLAN_ARTIFACT_SAVED);

  for (guint i = saved->len; i-- > 0; )
    {
      g_autoptr(JsonNode) node = pd_json_parse (g_ptr_array_index (saved, i), -1, NULL);
      JsonObject *data;

      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        continue;
      data = pd_json_get_object (json_node_get_object (node), "data");
      if (pd_json_get_string (data, "path") != NULL)
        return g_strdup (pd_json_get_string (data, "path"));
    }

  return NULL;
}

/* Plan mode of a session: the fold of its log, logging to it. */
PdPlanMode *
_pd_engine_session_plan_mode (PdEngine   *self,
                              const char *session_id,
                              const char *run_id)
{
  g_autoptr(GPtrArray) log = stored_events (self, session_id, PD_PLAN_MODE_EVENT);
  PdPlanMode *mode = pd_plan_mode_new (pd_plan_mode_fold (log));
  AppendContext *context = g_new0 (AppendContext, 1);

  context->engine = self;
  context->session_id = g_strdup (session_id);
  context->run_id = g_strdup (run_id);
  pd_plan_mode_set_append_func (mode, append_plan_mode, context, (GDestroyNotify) append_context_free);
  pd_plan_mode_set_section (mode, self->plan_mode_section);
  pd_plan_mode_set_advisory (mode, self->plan_mode_advisory);

  return mode;
}

/* The plan mode of the run of @session_id in progress, if any: a selection
 * goes to it, to land at its next step boundary. */
static PdPlanMode *
running_plan_mode (PdEngine   *self,
                   const char *session_id)
{
  PdPlanMode *mode = NULL;

  g_mutex_lock (&self->current_mutex);
  if (self->current_mode != NULL && g_strcmp0 (self->current_session, session_id) == 0)
    mode = g_object_ref (self->current_mode);
  g_mutex_unlock (&self->current_mutex);

  return mode;
}

/**
 * pd_engine_set_plan_mode:
 *
 * Selects plan mode for a session: held as a pending intent while a run of
 * that session is between steps, logged at once otherwise.
 */
PdPlanModeSetResult
pd_engine_set_plan_mode (PdEngine    *self,
                         const char  *session_id,
                         gboolean     active,
                         GError     **error)
{
  g_autoptr(PdPlanMode) mode = NULL;
  g_autoptr(PdSessionInfo) info = NULL;

  g_return_val_if_fail (PD_IS_ENGINE (self), PD_PLAN_MODE_NOOP);

  mode = running_plan_mode (self, session_id);

  if (mode == NULL)
    {
      if (self->store != NULL && !(info = pd_session_store_get (self->store, session_id, error)))
        return PD_PLAN_MODE_NOOP;
      mode = _pd_engine_session_plan_mode (self, session_id, NULL);
    }

  return pd_plan_mode_set (mode, active);
}

/**
 * pd_engine_get_plan_mode:
 * @pending: (out) (optional): a selection awaits the next step boundary
 *
 * Returns: the plan mode in force for the session
 */
gboolean
pd_engine_get_plan_mode (PdEngine   *self,
                         const char *session_id,
                         gboolean   *pending)
{
  g_autoptr(PdPlanMode) mode = NULL;

  g_return_val_if_fail (PD_IS_ENGINE (self), FALSE);

  mode = running_plan_mode (self, session_id);

  if (mode == NULL)
    mode = _pd_engine_session_plan_mode (self, session_id, NULL);

  return pd_plan_mode_get (mode, pending);
}

/* Called on a tool thread when exit_plan_mode saved an approved plan. */
static void
on_artifact_saved (const char *path,
                   const char *title,
                   gpointer    user_data)
{
  PdEngineRun *run = user_data;
  JsonObject *data = json_object_new ();

  g_mutex_lock (&run->artifact_mutex);
  g_free (run->artifact_path);
  run->artifact_path = g_strdup (path);
  g_mutex_unlock (&run->artifact_mutex);

  json_object_set_string_member (data, "path", path);
  _pd_engine_emit_data (run, PD_EVENT_PLAN_ARTIFACT_SAVED, "exit_plan_mode", TRUE, data);
}

void
_pd_engine_bind_exit_tool (PdEngineRun *run,
                           gboolean     bind)
{
  PdTool *tool = pd_tool_registry_lookup (run->engine->tools, "exit_plan_mode");

  if (tool == NULL || !PD_IS_EXIT_PLAN_MODE_TOOL (tool))
    return;

  if (bind)
    pd_exit_plan_mode_tool_bind (PD_EXIT_PLAN_MODE_TOOL (tool), run->plan_mode, run->session_id,
                                 on_artifact_saved, run);
  else
    pd_exit_plan_mode_tool_bind (PD_EXIT_PLAN_MODE_TOOL (tool), NULL, NULL, NULL, NULL);
}

/* Plan mode is read-only by policy: mutating tools are refused (but for
 * writing the plan artifact), and so are checklist changes — the plan tool
 * is the execution checklist.  Advisory plan mode only guides. */
PdToolResult *
_pd_engine_plan_mode_guard (PdEngineRun   *run,
                            PdToolContext *context,
                            const char  *name,
                            PdTool      *tool,
                            JsonObject  *arguments)
{
  const char *path;
  PdToolResult *result;

  if (run->plan_mode == NULL || !pd_plan_mode_get_active (run->plan_mode) || tool == NULL)
    return NULL;

  if (g_strcmp0 (name, "plan") == 0)
    {
      /* The model's arguments: a verb of another type is no verb. */
      const char *verb = pd_json_get_string (arguments, "verb");

      if (g_strcmp0 (verb, "get") == 0)
        return NULL;
      result = pd_tool_result_new (FALSE, "plan: the plan tool is the execution checklist and is not allowed in "
                                          "plan mode; explore, then present your plan with exit_plan_mode");
      result->denied = TRUE;
      return result;
    }

  if (pd_plan_mode_get_advisory (run->plan_mode) || pd_tool_get_safety (tool) != PD_TOOL_MUTATING)
    return NULL;

  path = pd_json_get_string (arguments, "path");
  if (path != NULL && (g_strcmp0 (name, "write_file") == 0 || g_strcmp0 (name, "edit_file") == 0))
    {
      const char *worktree = pd_tool_context_get_working_dir (context);
      g_autofree char *absolute = g_canonicalize_filename (path, worktree);
      g_autofree char *own = NULL;
      const char *resolved = pd_tool_context_get_approved_path (context);

      /* The name is not enough: a repository can ship a link inside its
       * plans folder (`.plandeck/plans/up -> ../..`), and the tool would
       * write where it leads, a README or src/.  So the path the tool
       * will write must be the one named: reached through no link.  That
       * is the call's one resolution (decide_tool_job()), the one the tool
       * writes: resolved here again, a link flipping in between let plan
       * mode replace README.md (3 of 150 calls; tried as an attacker
       * would). */
      if (resolved == NULL)
        resolved = own = pd_tool_context_resolve_path (context, path, NULL);
      if (pd_plan_artifact_path_is_artifact (worktree, absolute) && g_strcmp0 (absolute, resolved) == 0)
        return NULL;
    }

  result = pd_tool_result_new_printf (FALSE, "plan mode is active: %s is refused while planning (plan mode is "
                                             "read-only). Read and explore, then present the complete plan with "
                                             "exit_plan_mode.", name);
  result->denied = TRUE;
  return result;
}

/* The request as the model sees it: with the plan-mode guidance in the
 * system prompt while plan mode is active, never in the transcript. */
JsonArray *
_pd_engine_request_messages (PdEngineRun *run)
{
  JsonArray *messages = pd_transcript_to_request (run->transcript);
  JsonArray *guided;
  JsonObject *first;
  guint n = json_array_get_length (messages);
  guint start = 0;

  if (run->plan_mode == NULL || !pd_plan_mode_get_active (run->plan_mode))
    return messages;

  guided = json_array_sized_new (n + 1);
  first = n > 0 ? json_array_get_object_element (messages, 0) : NULL;

  if (first != NULL && g_strcmp0 (pd_message_get_role (first), "system") == 0)
    {
      g_autofree char *content = g_strconcat (pd_message_get_content (first) ? pd_message_get_content (first) : "",
                                              "\n\n", pd_plan_mode_get_section (run->plan_mode), NULL);
      json_array_add_object_element (guided, pd_message_new ("system", content));
      start = 1;
    }
  else
    json_array_add_object_element (guided, pd_message_new ("system", pd_plan_mode_get_section (run->plan_mode)));

  for (guint i = start; i < n; i++)
    json_array_add_object_element (guided, json_object_ref (json_array_get_object_element (messages, i)));

  json_array_unref (messages);
  return guided;
}

/* For the compaction digest: the approved plan survives as its path. */
char *
_pd_engine_approved_plan_note (PdEngineRun *run)
{
  g_autofree char *path = NULL;

  g_mutex_lock (&run->artifact_mutex);
  path = g_strdup (run->artifact_path);
  g_mutex_unlock (&run->artifact_mutex);

  if (path == NULL)
    return NULL;
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return g_strdup_printf ("Approved plan: %s (missing: the file could not be read)", path);
  return g_strdup_printf ("Approved plan: %s", path);
}

/* "/plan", "/plan off" and "/plan MESSAGE": a plan mode selection, and the
 * message left for the model (NULL for none). */
gboolean
_pd_engine_parse_plan_command (const char  *message,
                               gboolean    *active,
                               const char **rest)
{
  const char *p;

  if (message == NULL || !g_str_has_prefix (message, "/plan"))
    return FALSE;

  p = message + strlen ("/plan");
  if (*p != '\0' && !g_ascii_isspace (*p))
    return FALSE;
  while (g_ascii_isspace (*p))
    p++;

  if (g_ascii_strcasecmp (p, "off") == 0)
    {
      *active = FALSE;
      *rest = NULL;
    }
  else
    {
      *active = TRUE;
      *rest = *p ? p : NULL;
    }

  return TRUE;
}
