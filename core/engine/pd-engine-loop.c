/* pd-engine-loop.c: the loop of one run.
 *
 * Ask the model, then run the tool calls of its answer, until it answers
 * without tools, a budget runs out, the provider fails or the run is
 * cancelled.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-engine"

#include "config.h"

#include <string.h>

#include "pd-engine-private.h"
#include "pd-event.h"

static void
on_delta (PdProviderDeltaKind  kind,
          const char          *text,
          gpointer             user_data)
{
  PdEngineRun *run = user_data;

  if (kind == PD_PROVIDER_DELTA_TEXT)
    _pd_engine_progress (run, PD_ENGINE_PROGRESS_TEXT, text);
  else if (kind == PD_PROVIDER_DELTA_REASONING)
    _pd_engine_progress (run, PD_ENGINE_PROGRESS_REASONING, text);
}

/* PdProviderRetryFunc: the provider sends the request again.  Said as it
 * happens, so a slow answer is explained, and recorded. */
static void
on_retry (guint       attempt,
          guint       max_attempts,
          guint       delay_ms,
          guint       status,
          const char *reason,
          gpointer    user_data)
{
  PdEngineRun *run = user_data;
  g_autofree char *wait = delay_ms < 1000 ? g_strdup_printf ("%u ms", delay_ms)
                                           : g_strdup_printf ("%u.%u s", delay_ms / 1000, (delay_ms % 1000) / 100);
  g_autofree char *text = NULL;
  JsonObject *data = json_object_new ();

  text = g_strdup_printf ("[plandeck: %s; sending the request again in %s (attempt %u of %u).]",
                          reason, wait, attempt, max_attempts);
  _pd_engine_progress (run, PD_ENGINE_PROGRESS_RETRY, text);

  json_object_set_int_member (data, "attempt", attempt);
  json_object_set_int_member (data, "max_attempts", max_attempts);
  json_object_set_int_member (data, "delay_ms", delay_ms);
  if (status != 0)
    json_object_set_int_member (data, "status", status);
  json_object_set_string_member (data, "reason", reason);
  _pd_engine_emit_data (run, PD_EVENT_PROVIDER_RETRY, NULL, TRUE, data);
}

static void
flush_hints (PdEngineRun *run)
{
  for (guint i = 0; i < run->hints->len; i++)
    {
      const char *hint = g_ptr_array_index (run->hints, i);
      g_autoptr(JsonObject) message = pd_message_new ("system", hint);

      _pd_engine_progress (run, PD_ENGINE_PROGRESS_NOTICE, hint);
      pd_transcript_append (run->transcript, message);
    }
  g_ptr_array_set_size (run->hints, 0);
}

/* Thinking shares the answer's output limit, so the limit grows by the
 * budget (held to the family's ceiling), and the budget stays below it as
 * the API requires.  Families that take only adaptive thinking get that. */
static void
set_thinking (PdEngine          *self,
              PdProviderRequest *request)
{
  guint max_tokens;
  guint budget = self->thinking_budget;

  if (budget == 0)
    return;

  max_tokens = request->max_tokens + budget;
  if (self->limits.ceiling_tokens > 0)
    max_tokens = MIN (max_tokens, self->limits.ceiling_tokens);
  if (budget >= max_tokens)
    budget = max_tokens / 2;
  if (budget < 1024)
    return;   /* no room to think: the API's smallest budget is 1024 */

  request->max_tokens = max_tokens;
  if (self->limits.adaptive_only)
    request->thinking_adaptive = TRUE;
  else
    request->thinking_budget = budget;
}

/* What the model thought, stored with its answer: Anthropic's blocks as
 * they came (they go back to the model unchanged), or the reasoning text an
 * OpenAI-compatible server sent, under the name it used. */
void
_pd_engine_keep_thinking (JsonObject               *message,
                          const PdProviderResponse *response)
{
  if (response->thinking != NULL && json_array_get_length (response->thinking) > 0)
    json_object_set_array_member (message, "thinking", json_array_ref (response->thinking));
  else if (g_strcmp0 (response->reasoning_field, "reasoning_content") == 0)
    json_object_set_string_member (message, "reasoning_content", response->reasoning ? response->reasoning : "");
  else if (response->reasoning != NULL)
    json_object_set_string_member (message, "reasoning", response->reasoning);
}

static gboolean
cut_off (const PdProviderResponse *response)
{
  return g_strcmp0 (response->finish_reason, PD_FINISH_LENGTH) == 0;
}

static JsonObject *
assistant_message (PdProviderResponse *response)
{
  JsonObject *message = pd_message_new ("assistant", response->content && *response->content ? response->content : NULL);

  if (response->tool_calls != NULL && json_array_get_length (response->tool_calls) > 0)
    json_object_set_array_member (message, "tool_calls", json_array_ref (response->tool_calls));

  _pd_engine_keep_thinking (message, response);

  /* A text cut by the output limit is kept, and says it is not whole. */
  if (cut_off (response))
    json_object_set_string_member (message, PD_MESSAGE_INCOMPLETE,
                                   response->stop_reason ? response->stop_reason : PD_FINISH_LENGTH);

  return message;
}

/* A shallow copy: the same member values, in a new object. */
static JsonObject *
copy_message (JsonObject *message)
{
  JsonObject *copy = json_object_new ();
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;

  json_object_iter_init (&iter, message);
  while (json_object_iter_next (&iter, &name, &node))
    json_object_set_member (copy, name, json_node_copy (node));

  return copy;
}

/* The run's time budget over one model call: the provider blocks (a slow
 * stream, a retry after the wait a server asks for, up to a minute each),
 * so a watcher thread cancels the call when the budget runs out.  The
 * call's cancellable also follows the run's. */
typedef struct
{
  GMutex        mutex;
  GCond         cond;
  gboolean      done;
  gboolean      expired;
  gint64        deadline;   /* g_get_monotonic_time() */
  GCancellable *cancellable;
  gulong        run_handler;
  GThread      *thread;
} CallDeadline;

static gpointer
call_deadline_watch (gpointer data)
{
  CallDeadline *watch = data;

  g_mutex_lock (&watch->mutex);
  while (!watch->done && g_cond_wait_until (&watch->cond, &watch->mutex, watch->deadline))
    ;
  if (!watch->done)
    {
      watch->expired = TRUE;
      g_cancellable_cancel (watch->cancellable);
    }
  g_mutex_unlock (&watch->mutex);
  return NULL;
}

static void
on_run_cancelled (GCancellable *run_cancellable,
                  gpointer      data)
{
  g_cancellable_cancel (data);
}

static void
call_deadline_start (CallDeadline *watch,
                     PdEngineRun  *run)
{
  PdEngine *self = run->engine;

  memset (watch, 0, sizeof *watch);
  g_mutex_init (&watch->mutex);
  g_cond_init (&watch->cond);
  watch->cancellable = g_cancellable_new ();
  if (run->cancellable != NULL)
    watch->run_handler = g_cancellable_connect (run->cancellable, G_CALLBACK (on_run_cancelled),
                                                watch->cancellable, NULL);
  if (self->max_wall_ms > 0)
    {
      watch->deadline = run->started_usec + self->max_wall_ms * 1000;
      watch->thread = g_thread_new ("pd-call-deadline", call_deadline_watch, watch);
    }
}

/* Returns whether the budget ran out during the call. */
static gboolean
call_deadline_stop (CallDeadline *watch,
                    PdEngineRun  *run)
{
  gboolean expired;

  g_mutex_lock (&watch->mutex);
  watch->done = TRUE;
  g_cond_signal (&watch->cond);
  g_mutex_unlock (&watch->mutex);
  if (watch->thread != NULL)
    g_thread_join (watch->thread);
  if (watch->run_handler != 0)
    g_cancellable_disconnect (run->cancellable, watch->run_handler);
  expired = watch->expired;
  g_object_unref (watch->cancellable);
  g_mutex_clear (&watch->mutex);
  g_cond_clear (&watch->cond);
  return expired;
}

PdRunResult *
_pd_engine_loop (PdEngineRun *run)
{
  PdEngine *self = run->engine;
  g_autoptr(JsonArray) tools_json = pd_tool_registry_to_openai_json (self->tools);
  gboolean retried_overflow = FALSE;

  for (;;)
    {
      g_autoptr(PdProviderResponse) response = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonArray) messages = NULL;
      g_autoptr(JsonObject) assistant = NULL;
      PdProviderRequest request = { 0 };
      const char *budget_name = NULL;
      gint64 observed = 0, limit = 0;
      guint n_calls;

      if (g_cancellable_is_cancelled (run->cancellable))
        {
          g_autoptr(GError) cancelled = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "cancelled");
          return _pd_engine_fail_run (run, cancelled);
        }

      if (_pd_engine_budget_exhausted (run, &budget_name, &observed, &limit))
        return _pd_engine_stop_for_budget (run, budget_name, observed, limit, FALSE);

      /* The step boundary: a pending plan mode selection lands here. */
      if (run->plan_mode != NULL)
        {
          char *notice = pd_plan_mode_flush (run->plan_mode);

          if (notice != NULL)
            g_ptr_array_add (run->hints, notice);
        }

      flush_hints (run);
      _pd_engine_manage_context (run);

      messages = _pd_engine_request_messages (run);
      request.model = self->model;
      request.messages = messages;
      request.tools = json_array_get_length (tools_json) > 0 ? tools_json : NULL;
      request.temperature = -1;
      request.max_tokens = run->next_max_tokens ? run->next_max_tokens : self->answer_tokens;
      request.on_retry = on_retry;
      request.retry_data = run;
      run->next_max_tokens = 0;
      set_thinking (self, &request);

      {
        CallDeadline watch;
        gboolean expired;

        call_deadline_start (&watch, run);
        response = pd_provider_chat (self->provider, &request, on_delta, run, watch.cancellable, &error);
        expired = call_deadline_stop (&watch, run);

        /* The budget ran out while the model was asked (a slow answer, or
         * a server that asked for a long wait before a retry): the run
         * ends by its budget, as between turns. */
        if (response == NULL && expired && !g_cancellable_is_cancelled (run->cancellable) &&
            _pd_engine_budget_exhausted (run, &budget_name, &observed, &limit))
          return _pd_engine_stop_for_budget (run, budget_name, observed, limit, TRUE);
      }

      if (response == NULL)
        {
          if (_pd_engine_is_context_overflow (error) && !retried_overflow)
            {
              retried_overflow = TRUE;
              _pd_engine_trim_to_survival (run);
              continue;
            }

          return _pd_engine_fail_run (run, error);
        }

      retried_overflow = FALSE;
      /* What was spent counts, whether the answer can be used or not. */
      _pd_engine_count_tokens (run, response);

      if (g_strcmp0 (response->finish_reason, PD_FINISH_REFUSAL) == 0)
        return _pd_engine_refuse_run (run, response);

      if (response->cut_tool != NULL || response->rejected != NULL)
        {
          PdRunResult *failed = _pd_engine_discard_turn (run, response, request.max_tokens);

          if (failed != NULL)
            return failed;
          continue;
        }

      run->bad_arguments = 0;
      run->cut_answers = 0;

      assistant = assistant_message (response);
      pd_transcript_append (run->transcript, assistant);
      n_calls = response->tool_calls ? json_array_get_length (response->tool_calls) : 0;

      if (n_calls == 0)
        {
          g_autofree char *remaining = NULL;
          g_autofree char *notice = NULL;
          g_autoptr(GString) final = NULL;

          /* One bounded nudge when the run would end with open steps. */
          if (!run->nudged && _pd_engine_plan_is_open (run) && (remaining = _pd_engine_remaining_steps (run, FALSE)) != NULL)
            {
              run->nudged = TRUE;
              g_ptr_array_add (run->hints,
                               g_strdup_printf ("[plandeck plan: the plan still has open steps (%s). Finish them, "
                                                "mark them blocked with a note, or revise the plan before your "
                                                "final answer.]", remaining));
              _pd_engine_save_turn (run, PD_SESSION_STATUS_RUNNING);
              _pd_engine_complete_iteration (run, response, 0);
              continue;
            }

          final = g_string_new (response->content ? response->content : "");
          notice = _pd_engine_verification_notice (run);
          if (notice != NULL)
            {
              g_autoptr(JsonObject) with_notice = copy_message (assistant);

              g_string_append (final, notice);
              json_object_set_string_member (with_notice, "content", final->str);
              pd_transcript_replace (run->transcript, pd_transcript_get_length (run->transcript) - 1, with_notice);
              _pd_engine_progress (run, PD_ENGINE_PROGRESS_NOTICE, notice);
            }

          _pd_engine_complete_iteration (run, response, 0);
          if (cut_off (response))
            {
              g_autofree char *why = g_strdup_printf ("the answer was cut off at the output limit (stop reason %s%s); "
                                                      "it is incomplete",
                                                      response->stop_reason ? response->stop_reason : "length",
                                                      request.max_tokens ? "" : ", the server default");
              return _pd_engine_finish (run, PD_RUN_INCOMPLETE, final->str, why);
            }
          return _pd_engine_finish (run, PD_RUN_COMPLETED, final->str, NULL);
        }

      _pd_engine_run_batch (run, response->tool_calls);
      _pd_engine_refresh_plan_message (run);
      _pd_engine_save_turn (run, PD_SESSION_STATUS_RUNNING);
      _pd_engine_complete_iteration (run, response, n_calls);
    }
}
