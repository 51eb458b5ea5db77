/* pd-tool.c: the PdTool interface and its result type.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-tools"

#include "config.h"

#include <string.h>

#include "pd-task-util.h"
#include "pd-tool-private.h"

G_DEFINE_QUARK (pd-tool-error-quark, pd_tool_error)

const char *
pd_tool_safety_to_string (PdToolSafety safety)
{
  switch (safety)
    {
    case PD_TOOL_SAFE:
      return "safe";
    case PD_TOOL_READ_ONLY:
      return "read-only";
    case PD_TOOL_MUTATING:
      return "mutating";
    default:
      g_return_val_if_reached (NULL);
    }
}

/* PdToolResult */

G_DEFINE_BOXED_TYPE (PdToolResult, pd_tool_result, pd_tool_result_copy, pd_tool_result_free)

/**
 * pd_tool_result_new_take:
 * @content: (transfer full): the text; made valid UTF-8 if it is not
 */
PdToolResult *
pd_tool_result_new_take (gboolean  ok,
                         char     *content)
{
  PdToolResult *self = g_new0 (PdToolResult, 1);

  self->ok = !!ok;

  if (content == NULL)
    content = g_strdup ("");

  /* The content goes into JSON for the model and onto terminals: it must
   * be UTF-8 whatever a command printed. */
  if (!g_utf8_validate (content, -1, NULL))
    {
      char *valid = g_utf8_make_valid (content, -1);

      g_free (content);
      content = valid;
    }

  self->content = content;

  return self;
}

PdToolResult *
pd_tool_result_new (gboolean    ok,
                    const char *content)
{
  return pd_tool_result_new_take (ok, g_strdup (content));
}

PdToolResult *
pd_tool_result_new_printf (gboolean    ok,
                           const char *format,
                           ...)
{
  va_list args;
  char *content;

  va_start (args, format);
  content = g_strdup_vprintf (format, args);
  va_end (args);

  return pd_tool_result_new_take (ok, content);
}

/**
 * pd_tool_result_new_denied:
 * @tool_name: the tool that was not run
 * @reason: (nullable): why, from pd_approver_decide()
 *
 * The result the model reads for a call the approval policy refused.  The
 * engine records it with `denied` set so matching checks become blocked.
 */
PdToolResult *
pd_tool_result_new_denied (const char *tool_name,
                           const char *reason)
{
  PdToolResult *self;

  g_return_val_if_fail (tool_name != NULL, NULL);

  self = pd_tool_result_new_printf (FALSE, "denied: the %s call was not run (%s). "
                                    "Do not retry it unchanged; continue without it or "
                                    "report that it was refused.",
                                    tool_name, reason ? reason : "refused by the approval policy");
  self->denied = TRUE;

  return self;
}

PdToolResult *
pd_tool_result_copy (const PdToolResult *self)
{
  PdToolResult *copy;

  g_return_val_if_fail (self != NULL, NULL);

  copy = g_new0 (PdToolResult, 1);
  *copy = *self;
  copy->content = g_strdup (self->content);

  return copy;
}

void
pd_tool_result_free (PdToolResult *self)
{
  if (self == NULL)
    return;

  g_free (self->content);
  g_free (self);
}

/* PdTool */

G_DEFINE_INTERFACE (PdTool, pd_tool, G_TYPE_OBJECT)

/* A tool that declares no safety or effects (leaves get_safety or
 * get_effects NULL) is subject to the policy, and only what cannot touch
 * the world reads: see pd_tool_get_safety() and pd_tool_get_effects(). */
static void
pd_tool_default_init (PdToolInterface *iface)
{
}

/* PdBuiltinTool: every built-in tool, answering the interface from its row
 * of the table of built-ins. */

#define PD_TYPE_BUILTIN_TOOL (pd_builtin_tool_get_type ())

G_DECLARE_FINAL_TYPE (PdBuiltinTool, pd_builtin_tool, PD, BUILTIN_TOOL, GObject)

struct _PdBuiltinTool
{
  GObject           parent_instance;

  const PdToolInfo *info;
  gpointer          state;
};

static void pd_builtin_tool_iface_init (PdToolInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PdBuiltinTool, pd_builtin_tool, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (PD_TYPE_TOOL, pd_builtin_tool_iface_init))

static void
pd_builtin_tool_finalize (GObject *object)
{
  PdBuiltinTool *self = (PdBuiltinTool *) object;

  if (self->state != NULL && self->info->state_free != NULL)
    self->info->state_free (self->state);

  G_OBJECT_CLASS (pd_builtin_tool_parent_class)->finalize (object);
}

static void
pd_builtin_tool_class_init (PdBuiltinToolClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_builtin_tool_finalize;
}

static void
pd_builtin_tool_init (PdBuiltinTool *self)
{
}

static const char *
builtin_get_name (PdTool *tool)
{
  return PD_BUILTIN_TOOL (tool)->info->name;
}

static const char *
builtin_get_description (PdTool *tool)
{
  const PdToolInfo *info = PD_BUILTIN_TOOL (tool)->info;

  return info->get_description != NULL ? info->get_description () : info->description;
}

static JsonNode *
builtin_get_parameters (PdTool *tool)
{
  const PdToolInfo *info = PD_BUILTIN_TOOL (tool)->info;

  return info->get_parameters != NULL ? info->get_parameters () : _pd_tool_parse_schema (info->schema);
}

static PdToolSafety
builtin_get_safety (PdTool *tool)
{
  return PD_BUILTIN_TOOL (tool)->info->safety;
}

static PdToolEffects
builtin_get_effects (PdTool     *tool,
                     JsonObject *args)
{
  return PD_BUILTIN_TOOL (tool)->info->effects;
}

static PdToolResult *
builtin_call (PdTool         *tool,
              PdToolContext  *context,
              JsonObject     *args,
              GCancellable   *cancellable,
              GError        **error)
{
  const PdToolInfo *info = PD_BUILTIN_TOOL (tool)->info;
  PdToolCall call = { tool, context, args, cancellable, error, { { 0 } } };
  PdToolResult *error_result;

  if ((error_result = _pd_tool_read_args (info, args, call.arg)) != NULL)
    return error_result;

  return info->run (&call);
}

static char *
builtin_preview (PdTool        *tool,
                 PdToolContext *context,
                 JsonObject    *args)
{
  const PdToolInfo *info = PD_BUILTIN_TOOL (tool)->info;

  return info->preview != NULL ? info->preview (context, args) : NULL;
}

static void
pd_builtin_tool_iface_init (PdToolInterface *iface)
{
  iface->get_name = builtin_get_name;
  iface->get_description = builtin_get_description;
  iface->get_parameters = builtin_get_parameters;
  iface->get_safety = builtin_get_safety;
  iface->get_effects = builtin_get_effects;
  iface->call = builtin_call;
  iface->preview = builtin_preview;
}

/* @info is a row of the static table; @data goes to its state_new. */
PdTool *
_pd_builtin_tool_new (const PdToolInfo *info,
                      gpointer          data)
{
  PdBuiltinTool *self = g_object_new (PD_TYPE_BUILTIN_TOOL, NULL);

  self->info = info;
  if (info->state_new != NULL)
    self->state = info->state_new (data);

  return PD_TOOL (self);
}

gpointer
_pd_builtin_tool_get_state (PdTool *tool)
{
  g_return_val_if_fail (PD_IS_BUILTIN_TOOL (tool), NULL);

  return PD_BUILTIN_TOOL (tool)->state;
}

/**
 * pd_tool_new_builtin:
 * @name: a built-in tool's name: read_file, list_dir, grep, write_file,
 *   edit_file, shell, exit_plan_mode or plan
 * @data: (nullable): what the tool holds: the plan tool's #PdPlanStore
 *
 * Returns: (transfer full): a new instance of the built-in tool @name
 */
PdTool *
pd_tool_new_builtin (const char *name,
                     gpointer    data)
{
  g_return_val_if_fail (name != NULL, NULL);

  for (const PdToolInfo *info = _pd_builtin_tools; info->name != NULL; info++)
    if (g_str_equal (info->name, name))
      return _pd_builtin_tool_new (info, data);

  g_return_val_if_reached (NULL);
}

/**
 * pd_tool_is_builtin:
 * @object: (nullable): a tool or anything else
 *
 * Returns: whether @object is the built-in tool @name (not another tool
 *   registered under that name)
 */
gboolean
pd_tool_is_builtin (gpointer    object,
                    const char *name)
{
  return object != NULL && PD_IS_BUILTIN_TOOL (object) &&
         g_strcmp0 (PD_BUILTIN_TOOL (object)->info->name, name) == 0;
}

const char *
pd_tool_get_name (PdTool *self)
{
  g_return_val_if_fail (PD_IS_TOOL (self), NULL);

  return PD_TOOL_GET_IFACE (self)->get_name (self);
}

const char *
pd_tool_get_description (PdTool *self)
{
  g_return_val_if_fail (PD_IS_TOOL (self), NULL);

  return PD_TOOL_GET_IFACE (self)->get_description (self);
}

/**
 * pd_tool_get_parameters:
 *
 * Returns: (transfer full): the JSON schema object of the arguments
 */
JsonNode *
pd_tool_get_parameters (PdTool *self)
{
  g_return_val_if_fail (PD_IS_TOOL (self), NULL);

  return PD_TOOL_GET_IFACE (self)->get_parameters (self);
}

PdToolSafety
pd_tool_get_safety (PdTool *self)
{
  g_return_val_if_fail (PD_IS_TOOL (self), PD_TOOL_MUTATING);

  if (PD_TOOL_GET_IFACE (self)->get_safety == NULL)
    return PD_TOOL_MUTATING;
  return PD_TOOL_GET_IFACE (self)->get_safety (self);
}

/**
 * pd_tool_get_effects:
 * @args: (nullable): the call's arguments
 *
 * What a call does to the world, for the evidence recorder: a call with
 * write or unknown effects that matches no check invalidates evidence.
 */
PdToolEffects
pd_tool_get_effects (PdTool     *self,
                     JsonObject *args)
{
  g_return_val_if_fail (PD_IS_TOOL (self), PD_TOOL_EFFECTS_UNKNOWN);

  /* Without a declaration, only what cannot touch the world reads. */
  if (PD_TOOL_GET_IFACE (self)->get_effects == NULL)
    return pd_tool_get_safety (self) == PD_TOOL_MUTATING ? PD_TOOL_EFFECTS_UNKNOWN
                                                         : PD_TOOL_EFFECTS_READ;
  return PD_TOOL_GET_IFACE (self)->get_effects (self, args);
}

/**
 * pd_tool_preview:
 * @context: (nullable): where the call would run
 * @args: (nullable): the call's arguments (the model's, untrusted)
 * @whole: (out) (optional): whether the preview shows all of the call;
 *   %FALSE when something had to be cut (over PD_TOOL_PREVIEW_MAX_LINES
 *   lines of a text, a line of over 10 000 characters, or over 256 KiB)
 *
 * What a call would do, for a person asked to approve it: the file and
 * the text an edit takes out and puts in, a file to write, a command and
 * the folder it runs in.  Plain text of several lines, escaped (no control
 * or direction character) and cut when very long, never markup.
 *
 * Returns: (transfer full) (nullable): the preview, or %NULL when the
 *   tool has none (its pd_approver_summarize() line says it all)
 */
char *
pd_tool_preview (PdTool        *self,
                 PdToolContext *context,
                 JsonObject    *args,
                 gboolean      *whole)
{
  g_autoptr(JsonObject) empty = NULL;

  if (whole != NULL)
    *whole = TRUE;

  g_return_val_if_fail (PD_IS_TOOL (self), NULL);

  if (PD_TOOL_GET_IFACE (self)->preview == NULL)
    return NULL;
  if (args == NULL)
    args = empty = json_object_new ();
  return _pd_tool_preview_seal (PD_TOOL_GET_IFACE (self)->preview (self, context, args), whole);
}

/**
 * pd_tool_call:
 * @args: (nullable): the arguments object from the model (untrusted);
 *   %NULL is read as `{}`
 *
 * Runs the tool on the calling thread.
 *
 * Returns: (transfer full) (nullable): the result, or %NULL with @error
 *   set when the machinery failed or @cancellable was cancelled
 */
PdToolResult *
pd_tool_call (PdTool         *self,
              PdToolContext  *context,
              JsonObject     *args,
              GCancellable   *cancellable,
              GError        **error)
{
  g_autoptr(JsonObject) empty = NULL;
  PdToolResult *result;
  GError *local_error = NULL;

  g_return_val_if_fail (PD_IS_TOOL (self), NULL);
  g_return_val_if_fail (context != NULL, NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  /* A call that would start work on the world after the run's time ran
   * out does not (a batch may hold more calls than run at once).  Tools on
   * the engine's own state (plan) are instant and still record. */
  if (pd_tool_get_safety (self) != PD_TOOL_SAFE &&
      _pd_tool_check_stop (context, NULL) == PD_TOOL_STOP_DEADLINE)
    return pd_tool_result_new_printf (FALSE, "%s: not run: the run's time budget ran out",
                                      pd_tool_get_name (self));

  if (args == NULL)
    args = empty = json_object_new ();

  result = PD_TOOL_GET_IFACE (self)->call (self, context, args, cancellable, &local_error);

  if (result == NULL && local_error == NULL)
    g_set_error (&local_error, PD_TOOL_ERROR, PD_TOOL_ERROR_FAILED,
                 "the %s tool returned neither a result nor an error", pd_tool_get_name (self));

  if (local_error != NULL)
    {
      g_clear_pointer (&result, pd_tool_result_free);
      g_propagate_error (error, local_error);
      return NULL;
    }

  return result;
}

typedef struct
{
  PdToolContext *context;
  JsonObject    *args;
} CallData;

static void
call_data_free (CallData *data)
{
  g_clear_pointer (&data->context, pd_tool_context_unref);
  g_clear_pointer (&data->args, json_object_unref);
  g_free (data);
}

static gpointer
call_worker (gpointer       source_object,
             gpointer       task_data,
             GCancellable  *cancellable,
             GError       **error)
{
  CallData *data = task_data;

  return pd_tool_call (source_object, data->context, data->args, cancellable, error);
}

/**
 * pd_tool_call_async:
 *
 * Runs pd_tool_call() in a thread of GTask's pool.  The arguments object
 * is shared with that thread: do not modify it until the call finishes.
 */
void
pd_tool_call_async (PdTool              *self,
                    PdToolContext       *context,
                    JsonObject          *args,
                    GCancellable        *cancellable,
                    GAsyncReadyCallback  callback,
                    gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  CallData *data;

  g_return_if_fail (PD_IS_TOOL (self));
  g_return_if_fail (context != NULL);

  data = g_new0 (CallData, 1);
  data->context = pd_tool_context_ref (context);
  data->args = args ? json_object_ref (args) : NULL;

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, pd_tool_call_async);
  g_task_set_task_data (task, data, (GDestroyNotify) call_data_free);
  /* No return-on-cancel: the tool has to finish to reap its processes. */
  pd_task_run_worker (task, call_worker, (GDestroyNotify) pd_tool_result_free);
}

PdToolResult *
pd_tool_call_finish (PdTool        *self,
                     GAsyncResult  *result,
                     GError       **error)
{
  g_return_val_if_fail (PD_IS_TOOL (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * pd_tool_to_openai_json:
 *
 * Returns: (transfer full): `{"type":"function","function":{name,
 *   description, parameters}}` as the Chat Completions API wants it
 */
JsonNode *
pd_tool_to_openai_json (PdTool *self)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  g_return_val_if_fail (PD_IS_TOOL (self), NULL);

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "function");
  json_builder_set_member_name (builder, "function");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "name");
  json_builder_add_string_value (builder, pd_tool_get_name (self));
  json_builder_set_member_name (builder, "description");
  json_builder_add_string_value (builder, pd_tool_get_description (self));
  json_builder_set_member_name (builder, "parameters");
  json_builder_add_value (builder, pd_tool_get_parameters (self));
  json_builder_end_object (builder);
  json_builder_end_object (builder);

  return json_builder_get_root (builder);
}

