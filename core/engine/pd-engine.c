/* pd-engine.c: the agent loop (observe → think → act): the object and a run.
 *
 * A run is set up here (a new session or a stored one, its plan and plan
 * mode restored), handed to the loop (pd-engine-loop.c), and torn down;
 * its events and saves go through here too.  pd-engine-private.h lists the
 * parts.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-engine"

#include "config.h"

#include <string.h>

#include "pd-engine-private.h"
#include "pd-event.h"
#include "pd-json.h"
#include "pd-task-util.h"

G_DEFINE_FINAL_TYPE (PdEngine, pd_engine, G_TYPE_OBJECT)

/* --- lifecycle ------------------------------------------------------- */

static void
pd_engine_finalize (GObject *object)
{
  PdEngine *self = (PdEngine *) object;

  pd_callback_slot_clear (&self->progress);
  pd_callback_slot_clear (&self->tool);

  g_clear_object (&self->provider);
  g_clear_object (&self->tools);
  g_clear_object (&self->plan_store);
  g_clear_object (&self->approver);
  g_clear_object (&self->store);
  g_clear_object (&self->bus);
  g_clear_pointer (&self->tool_context, pd_tool_context_unref);
  g_free (self->model);
  g_free (self->provider_name);
  g_free (self->run_id);
  g_free (self->system_prompt);
  g_free (self->source);
  g_free (self->plan_mode_section);
  g_mutex_clear (&self->progress_mutex);
  g_mutex_clear (&self->run_mutex);
  g_mutex_clear (&self->current_mutex);

  G_OBJECT_CLASS (pd_engine_parent_class)->finalize (object);
}

static void
pd_engine_class_init (PdEngineClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_engine_finalize;
}

static void
pd_engine_init (PdEngine *self)
{
  g_mutex_init (&self->progress_mutex);
  g_mutex_init (&self->run_mutex);
  g_mutex_init (&self->current_mutex);
}

char *
pd_engine_default_system_prompt (gboolean planning)
{
  GString *out = g_string_new ("You are a careful coding agent working in the user's project folder through tools. "
                               "Read and search before you change anything, make small changes you can verify, run "
                               "the project's own checks, and end with a short report of what you did and what "
                               "remains.");

  if (planning)
    g_string_append (out, " " PD_ENGINE_PLAN_SENTENCE);

  return g_string_free (out, FALSE);
}

PdEngine *
pd_engine_new (const PdEngineOptions *options)
{
  PdEngine *self;

  g_return_val_if_fail (options != NULL, NULL);
  g_return_val_if_fail (PD_IS_PROVIDER (options->provider), NULL);
  g_return_val_if_fail (PD_IS_TOOL_REGISTRY (options->tools), NULL);
  g_return_val_if_fail (options->tool_context != NULL, NULL);

  self = g_object_new (PD_TYPE_ENGINE, NULL);
  self->provider = g_object_ref (options->provider);
  self->model = g_strdup (options->model ? options->model : "");
  self->provider_name = g_strdup (options->provider_name ? options->provider_name : pd_provider_get_name (options->provider));
  self->tools = g_object_ref (options->tools);
  self->plan_store = options->plan_store ? g_object_ref (options->plan_store) : NULL;
  self->approver = options->approver ? g_object_ref (options->approver) : NULL;
  self->store = options->store ? g_object_ref (options->store) : NULL;
  self->bus = options->bus ? g_object_ref (options->bus) : NULL;
  self->tool_context = pd_tool_context_ref (options->tool_context);
  self->system_prompt = options->system_prompt ? g_strdup (options->system_prompt)
                                               : pd_engine_default_system_prompt (options->plan_store != NULL);
  self->source = g_strdup (options->source ? options->source : "plandeck");
  self->run_id = g_strdup (options->run_id);
  self->max_iterations = options->max_iterations ? options->max_iterations : PD_ENGINE_DEFAULT_MAX_ITERATIONS;
  self->max_tool_parallel = options->max_tool_parallel ? options->max_tool_parallel : PD_ENGINE_DEFAULT_MAX_TOOL_PARALLEL;
  self->max_tokens = options->max_tokens;
  self->max_wall_ms = options->max_wall_ms;
  self->context_budget = options->context_budget > 0 ? options->context_budget : PD_ENGINE_DEFAULT_CONTEXT_BUDGET;
  pd_model_limits_lookup (self->provider_name, self->model, &self->limits);
  self->answer_tokens = pd_model_limits_answer (&self->limits, options->max_output_tokens);
  /* Only the Messages API takes a thinking budget. */
  if (g_strcmp0 (self->provider_name, "anthropic") == 0)
    self->thinking_budget = options->thinking_budget;
  self->plan_mode_section = g_strdup (options->plan_mode_section);
  self->plan_mode_advisory = options->plan_mode_advisory;

  return self;
}

void
pd_engine_set_progress_func (PdEngine             *self,
                             PdEngineProgressFunc  func,
                             gpointer              user_data,
                             GDestroyNotify        destroy)
{
  g_return_if_fail (PD_IS_ENGINE (self));

  pd_callback_slot_set (&self->progress, &self->progress_mutex, G_CALLBACK (func), user_data, destroy);
}

/**
 * pd_engine_set_tool_func:
 * @func: (nullable): told of each tool call with its arguments as the model
 *   wrote them, and of each result with the tool's whole output
 *
 * For a front end that shows the calls themselves (serve's WebSocket): the
 * calls of a batch are told before any of them runs, their results in call
 * order once the batch is over.  Called on the run's thread.
 */
void
pd_engine_set_tool_func (PdEngine         *self,
                         PdEngineToolFunc  func,
                         gpointer          user_data,
                         GDestroyNotify    destroy)
{
  g_return_if_fail (PD_IS_ENGINE (self));

  pd_callback_slot_set (&self->tool, &self->progress_mutex, G_CALLBACK (func), user_data, destroy);
}

/* Events go to the database with their session, as they happen (on the
 * bus's dispatcher thread). */
static void
persist_event (PdEvent  *event,
               gpointer  user_data)
{
  PdSessionStore *store = user_data;
  g_autofree char *json = pd_event_to_json (event);
  g_autoptr(GError) error = NULL;

  /* plan_mode events are log entries the engine appends itself, at once,
   * because a failed append must stay pending; see append_plan_mode(). */
  if (pd_event_get_session_id (event) == NULL ||
      g_strcmp0 (pd_event_get_event_type (event), PD_PLAN_MODE_EVENT) == 0)
    return;

  if (pd_session_store_add_event (store, pd_event_get_session_id (event), pd_event_get_run_id (event),
                                  pd_event_get_event_type (event), pd_event_get_timestamp (event), json,
                                  &error) < 0)
    g_debug ("event not stored: %s", error->message);
}

/**
 * pd_engine_store_events:
 *
 * Persists every event of @bus that belongs to a session in @store.
 */
void
pd_engine_store_events (PdEventBus     *bus,
                        PdSessionStore *store)
{
  g_return_if_fail (PD_IS_EVENT_BUS (bus));
  g_return_if_fail (PD_IS_SESSION_STORE (store));

  pd_event_bus_add_sink (bus, persist_event, g_object_ref (store), g_object_unref);
}

/**
 * pd_engine_get_bus:
 *
 * Where the engine's events go: a front end of the same process listens
 * there to hear of its runs' commits (a session_saved event follows the
 * commit it reports) without waiting for the database file to be noticed.
 *
 * Returns: (transfer none) (nullable): the engine's bus, %NULL when it
 *   emits no events
 */
PdEventBus *
pd_engine_get_bus (PdEngine *self)
{
  g_return_val_if_fail (PD_IS_ENGINE (self), NULL);

  return self->bus;
}

void
pd_run_result_free (PdRunResult *result)
{
  if (result == NULL)
    return;
  g_free (result->session_id);
  g_free (result->final_text);
  g_free (result->error_message);
  g_free (result->budget_name);
  g_free (result);
}

void
_pd_engine_progress (PdEngineRun      *run,
                     PdEngineProgress  kind,
                     const char       *text)
{
  PdEngine *self = run->engine;

  /* Tool workers report too; one at a time keeps a terminal readable. */
  g_mutex_lock (&self->progress_mutex);
  if (self->progress.func)
    ((PdEngineProgressFunc) self->progress.func) (kind, text, self->progress.data);
  g_mutex_unlock (&self->progress_mutex);
}

void
_pd_engine_tell_tool (PdEngineRun       *run,
                      PdEngineToolStage  stage,
                      const char        *name,
                      const char        *call_id,
                      const char        *text,
                      gboolean           ok)
{
  PdEngine *self = run->engine;

  g_mutex_lock (&self->progress_mutex);
  if (self->tool.func)
    ((PdEngineToolFunc) self->tool.func) (stage, name, call_id, text, ok, self->tool.data);
  g_mutex_unlock (&self->progress_mutex);
}

/* --- events ---------------------------------------------------------- */

void
_pd_engine_emit (PdEngineRun *run,
                 PdEvent     *event)
{
  if (run->engine->bus != NULL)
    pd_event_bus_emit (run->engine->bus, event);
  pd_event_unref (event);
}

static PdEvent *
new_event (PdEngineRun *run,
           const char  *type,
           const char  *tool,
           gboolean     with_iteration)
{
  PdEvent *event = pd_event_new (type);

  pd_event_set_run_id (event, run->run_id);
  pd_event_set_session_id (event, run->session_id);
  if (with_iteration)
    pd_event_set_iteration (event, run->iteration + 1);
  if (tool != NULL)
    pd_event_set_tool (event, tool);

  return event;
}

void
_pd_engine_emit_data (PdEngineRun *run,
                      const char  *type,
                      const char  *tool,
                      gboolean     with_iteration,
                      JsonObject  *data)
{
  PdEvent *event = new_event (run, type, tool, with_iteration);

  if (data != NULL)
    pd_event_take_data (event, data);
  _pd_engine_emit (run, event);
}

/* As _pd_engine_emit_data(), of the turn @iteration (counted from 1). */
void
_pd_engine_emit_data_at (PdEngineRun *run,
                         const char  *type,
                         const char  *tool,
                         guint        iteration,
                         JsonObject  *data)
{
  PdEvent *event = new_event (run, type, tool, FALSE);

  pd_event_set_iteration (event, iteration);
  if (data != NULL)
    pd_event_take_data (event, data);
  _pd_engine_emit (run, event);
}

/* --- persistence ----------------------------------------------------- */

void
_pd_engine_save_turn (PdEngineRun     *run,
                      PdSessionStatus  status)
{
  PdEngine *self = run->engine;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GArray) replaced = NULL;
  PdTurn turn = { 0 };

  if (self->store == NULL)
    return;

  messages = pd_transcript_to_json (run->transcript);
  if (_pd_engine_planning (run) && pd_plan_store_has_plan (self->plan_store))
    plan = pd_plan_store_snapshot (self->plan_store);

  turn.session_id = run->session_id;
  turn.messages = messages;
  turn.first_changed = pd_transcript_get_dirty_from (run->transcript);
  replaced = pd_transcript_get_replaced (run->transcript);
  turn.replaced = (const guint *) (gpointer) replaced->data;
  turn.n_replaced = replaced->len;
  turn.plan = plan;
  turn.input_tokens = run->unsaved_input;
  turn.output_tokens = run->unsaved_output;
  turn.count_turn = !run->turn_counted;
  turn.status = status;

  if (!pd_session_store_save_turn (self->store, &turn, &error))
    {
      /* The transcript stays dirty from the same place, so the next save
       * writes everything this one could not. */
      g_autofree char *note = g_strdup_printf ("could not save the session: %s", error->message);
      g_warning ("%s", note);
      _pd_engine_progress (run, PD_ENGINE_PROGRESS_NOTICE, note);
      return;
    }

  pd_transcript_mark_saved (run->transcript);
  run->unsaved_input = run->unsaved_output = 0;
  run->turn_counted = TRUE;
  if (plan != NULL)
    run->saved_plan_version = plan->version;

  {
    JsonObject *data = json_object_new ();

    json_object_set_int_member (data, "messages", pd_transcript_get_length (run->transcript));
    if (plan != NULL)
      json_object_set_int_member (data, "plan_version", plan->version);
    _pd_engine_emit_data (run, PD_EVENT_SESSION_SAVED, NULL, FALSE, data);
  }
}

/* The plan alone, when it changed since the last save: before a question
 * (an approval, a plan review) in the middle of a batch, so whoever answers
 * sees the plan the question is about.  The transcript waits for the
 * batch's end, as always: a call's message is stored with its result.  A
 * batch of a plan change and a write asked about the write while every
 * reader of the store (the Now page, the Overview card, serve) still showed
 * the plan before the change (tried as a new user would). */
void
_pd_engine_save_plan (PdEngineRun *run)
{
  PdEngine *self = run->engine;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(GError) error = NULL;
  PdTurn turn = { 0 };

  if (self->store == NULL || self->plan_store == NULL || !pd_plan_store_has_plan (self->plan_store) ||
      pd_plan_store_get_version (self->plan_store) == run->saved_plan_version)
    return;

  plan = pd_plan_store_snapshot (self->plan_store);
  turn.session_id = run->session_id;
  turn.plan = plan;
  turn.status = PD_SESSION_STATUS_RUNNING;

  if (!pd_session_store_save_turn (self->store, &turn, &error))
    {
      /* The batch's save writes it after all. */
      g_warning ("could not save the plan: %s", error->message);
      return;
    }

  run->saved_plan_version = plan->version;

  {
    JsonObject *data = json_object_new ();

    /* As every session_saved says: the messages stored, here those before
     * the batch's (a client counts on the member). */
    json_object_set_int_member (data, "messages", pd_transcript_get_dirty_from (run->transcript));
    json_object_set_int_member (data, "plan_version", plan->version);
    _pd_engine_emit_data (run, PD_EVENT_SESSION_SAVED, NULL, FALSE, data);
  }
}

/* Providers report -1 when a server said nothing about usage. */
void
_pd_engine_count_tokens (PdEngineRun              *run,
                         const PdProviderResponse *response)
{
  gint64 in = MAX (response->input_tokens, 0);
  gint64 out = MAX (response->output_tokens, 0);

  run->input_tokens += in;
  run->output_tokens += out;
  run->unsaved_input += in;
  run->unsaved_output += out;
}

/* --- a run ----------------------------------------------------------- */

static char *
new_run_id (void)
{
  char *nonce = pd_plan_new_nonce ();   /* 128 random bits in hex */
  return nonce;
}

static gboolean
prepare (PdEngineRun  *run,
         const char   *session_id,
         const char   *message,
         GError      **error)
{
  PdEngine *self = run->engine;

  if (session_id != NULL)
    {
      g_autoptr(JsonArray) stored = NULL;
      g_autoptr(PdSessionInfo) info = NULL;

      if (self->store == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "continuing a session needs a session database");
          return FALSE;
        }
      if (!(info = pd_session_store_get (self->store, session_id, error)) ||
          !(stored = pd_session_store_load_messages (self->store, session_id, error)))
        return FALSE;
      /* Another agent's transcript is read, never written: its history and
       * tools are that agent's, and a turn of ours would be a forgery. */
      if (pd_session_info_is_imported (info))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                       "session %s was imported from %s and cannot be continued here; "
                       "continue it in that agent", session_id, info->source);
          return FALSE;
        }

      run->session_id = g_strdup (session_id);
      run->transcript = pd_transcript_new_from_json (stored);

      if (_pd_engine_planning (run))
        _pd_engine_sync_plan (run);

      if (message != NULL && *message)
        {
          g_autoptr(JsonObject) user = pd_message_new ("user", message);
          pd_transcript_append (run->transcript, user);
        }
    }
  else
    {
      g_autoptr(JsonObject) system = pd_message_new ("system", self->system_prompt);
      g_autoptr(JsonObject) user = NULL;

      if (message == NULL || *message == '\0')
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "a run needs a task");
          return FALSE;
        }

      if (self->store != NULL)
        {
          g_autoptr(PdSessionInfo) info = pd_session_store_create (self->store, message, self->model,
                                                                   self->provider_name, self->source,
                                                                   pd_tool_context_get_working_dir (self->tool_context),
                                                                   error);
          if (info == NULL)
            return FALSE;
          run->session_id = g_strdup (info->id);
        }
      else
        run->session_id = pd_session_id_new ();

      run->transcript = pd_transcript_new ();
      pd_transcript_append (run->transcript, system);
      user = pd_message_new ("user", message);
      pd_transcript_append (run->transcript, user);

      if (_pd_engine_planning (run))
        pd_plan_store_reset (self->plan_store);
    }

  return TRUE;
}

static void
run_clear (PdEngineRun *run)
{
  if (run->engine->plan_store != NULL)
    pd_plan_store_set_change_func (run->engine->plan_store, NULL, NULL, NULL);
  g_clear_object (&run->cancellable);
  g_free (run->run_id);
  g_free (run->session_id);
  g_clear_object (&run->transcript);
  g_clear_object (&run->render_cache);
  g_clear_object (&run->stall);
  g_clear_object (&run->reassess);
  g_clear_pointer (&run->hints, g_ptr_array_unref);
  g_clear_object (&run->plan_mode);
  g_free (run->artifact_path);
  g_mutex_clear (&run->artifact_mutex);
}

/**
 * pd_engine_run:
 * @session_id: (nullable): continue this stored session, or %NULL for a new one
 * @message: the task of a new session, or the user's next message (may be
 *   %NULL when continuing)
 *
 * Runs until the model answers without tools, a budget runs out, the
 * provider fails or @cancellable fires.  Every outcome but a setup failure
 * is a #PdRunResult, and the transcript is saved whatever happens.
 *
 * Returns: (transfer full): the result, or %NULL when the run could not start
 */
PdRunResult *
pd_engine_run (PdEngine      *self,
               const char    *session_id,
               const char    *message,
               GCancellable  *cancellable,
               GError       **error)
{
  PdEngineRun run = { 0 };
  PdRunResult *result = NULL;
  gboolean plan_command, plan_active = FALSE;
  const char *rest = message;

  g_return_val_if_fail (PD_IS_ENGINE (self), NULL);

  plan_command = _pd_engine_parse_plan_command (message, &plan_active, &rest);

  g_mutex_lock (&self->run_mutex);
  g_mutex_init (&run.artifact_mutex);

  run.engine = self;
  run.cancellable = cancellable ? g_object_ref (cancellable) : g_cancellable_new ();
  run.run_id = self->run_id ? g_strdup (self->run_id) : new_run_id ();
  run.render_cache = pd_plan_render_cache_new ();
  run.stall = pd_stall_detector_new (3);
  run.reassess = pd_reassessment_new ();
  run.hints = g_ptr_array_new_with_free_func (g_free);
  run.started_usec = g_get_monotonic_time ();

  if (prepare (&run, session_id, plan_command ? rest : message, error))
    {
      JsonObject *data = json_object_new ();

      _pd_engine_progress (&run, PD_ENGINE_PROGRESS_SESSION, run.session_id);

      /* Plan mode: the fold of the session's log, logged to by this run. */
      run.plan_mode = _pd_engine_session_plan_mode (self, run.session_id, run.run_id);
      run.artifact_path = _pd_engine_last_artifact_path (self, run.session_id);

      if (plan_command)
        {
          PdPlanModeSetResult set = pd_plan_mode_set (run.plan_mode, plan_active);

          if (rest == NULL)
            {
              /* Only a selection: nothing for the model this time. */
              PdRunResult *done = g_new0 (PdRunResult, 1);

              done->status = PD_RUN_COMPLETED;
              done->session_id = g_strdup (run.session_id);
              done->final_text = g_strdup (set == PD_PLAN_MODE_NOOP
                                           ? (plan_active ? "Plan mode is already on." : "Plan mode is already off.")
                                           : (plan_active ? "Plan mode on. Use /plan off to leave."
                                                          : "Plan mode off."));
              g_clear_pointer (&data, json_object_unref);
              run_clear (&run);
              g_mutex_unlock (&self->run_mutex);
              return done;
            }
        }

      /* The refused turn is left out of every request, so without a new
       * message there would be nothing to answer. */
      if ((rest == NULL || *rest == '\0') && pd_transcript_ends_refused (run.transcript))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       "the model refused the last turn of session %s; continue it with a new message",
                       run.session_id);
          json_object_unref (data);
          run_clear (&run);
          g_mutex_unlock (&self->run_mutex);
          return NULL;
        }

      g_mutex_lock (&self->current_mutex);
      g_set_object (&self->current_mode, run.plan_mode);
      g_free (self->current_session);
      self->current_session = g_strdup (run.session_id);
      g_mutex_unlock (&self->current_mutex);

      pd_plan_mode_set_turn_open (run.plan_mode, TRUE);
      _pd_engine_bind_exit_tool (&run, TRUE);

      if (_pd_engine_planning (&run))
        pd_plan_store_set_change_func (self->plan_store, _pd_engine_on_plan_changed, &run, NULL);

      json_object_set_string_member (data, "model", self->model);
      json_object_set_string_member (data, "provider", self->provider_name);
      _pd_engine_emit_data (&run, PD_EVENT_RUN_STARTED, NULL, FALSE, data);

      _pd_engine_refresh_plan_message (&run);
      _pd_engine_save_turn (&run, PD_SESSION_STATUS_RUNNING);
      result = _pd_engine_loop (&run);

      /* A selection left pending after the last step lands now, between
       * turns. */
      pd_plan_mode_set_turn_open (run.plan_mode, FALSE);
      g_free (pd_plan_mode_flush (run.plan_mode));
      _pd_engine_bind_exit_tool (&run, FALSE);

      g_mutex_lock (&self->current_mutex);
      g_clear_object (&self->current_mode);
      g_clear_pointer (&self->current_session, g_free);
      g_mutex_unlock (&self->current_mutex);
    }

  if (self->bus != NULL)
    pd_event_bus_flush (self->bus);

  run_clear (&run);
  g_mutex_unlock (&self->run_mutex);

  return result;
}

typedef struct
{
  char *session_id;
  char *message;
} RunArgs;

static void
run_args_free (RunArgs *args)
{
  g_free (args->session_id);
  g_free (args->message);
  g_free (args);
}

static gpointer
run_worker (gpointer       source_object,
            gpointer       task_data,
            GCancellable  *cancellable,
            GError       **error)
{
  RunArgs *args = task_data;

  return pd_engine_run (source_object, args->session_id, args->message, cancellable, error);
}

void
pd_engine_run_async (PdEngine            *self,
                     const char          *session_id,
                     const char          *message,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  RunArgs *args = g_new0 (RunArgs, 1);

  g_return_if_fail (PD_IS_ENGINE (self));

  args->session_id = g_strdup (session_id);
  args->message = g_strdup (message);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, pd_engine_run_async);
  /* A cancelled run still returns its result (status cancelled, saved). */
  g_task_set_check_cancellable (task, FALSE);
  g_task_set_task_data (task, args, (GDestroyNotify) run_args_free);
  pd_task_run_worker (task, run_worker, (GDestroyNotify) pd_run_result_free);
}

PdRunResult *
pd_engine_run_finish (PdEngine      *self,
                      GAsyncResult  *result,
                      GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
