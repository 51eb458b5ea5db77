/* pd-engine-outcomes.c: how a run ends, and answers that cannot be used.
 *
 * Every end of a run (completed, refused, incomplete, out of budget,
 * failed, cancelled) is saved and told the same way; an answer cut by the
 * output limit or with bad tool arguments is discarded and asked again.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-engine"

#include "config.h"

#include "pd-engine-private.h"
#include "pd-event.h"
#include "pd-model-limits.h"
#include "pd-redact.h"
#include "pd-task-util.h"

#define MAX_BAD_ARGUMENT_RETRIES 2
#define ERROR_MAX_CHARS          400   /* of the reason a run_failed event gives */

gboolean
_pd_engine_budget_exhausted (PdEngineRun  *run,
                             const char  **name,
                             gint64       *observed,
                             gint64       *limit)
{
  PdEngine *self = run->engine;
  gint64 elapsed_ms = (g_get_monotonic_time () - run->started_usec) / 1000;

  if (run->iteration >= self->max_iterations)
    {
      *name = "iterations", *observed = run->iteration, *limit = self->max_iterations;
      return TRUE;
    }
  if (self->max_tokens > 0 && run->input_tokens + run->output_tokens >= self->max_tokens)
    {
      *name = "tokens", *observed = run->input_tokens + run->output_tokens, *limit = self->max_tokens;
      return TRUE;
    }
  if (self->max_wall_ms > 0 && elapsed_ms >= self->max_wall_ms)
    {
      *name = "wall_time", *observed = elapsed_ms, *limit = self->max_wall_ms;
      return TRUE;
    }
  return FALSE;
}

/* @extra: (transfer full) (nullable): members added to the run_completed
 * or run_failed event */
PdRunResult *
_pd_engine_finish_with (PdEngineRun *run,
                        PdRunStatus  status,
                        const char  *text,
                        const char  *error_message,
                        JsonObject  *extra)
{
  PdRunResult *result = g_new0 (PdRunResult, 1);
  gint64 duration_ms = (g_get_monotonic_time () - run->started_usec) / 1000;
  JsonObject *data = extra ? extra : json_object_new ();

  result->status = status;
  result->session_id = g_strdup (run->session_id);
  result->final_text = g_strdup (text);
  result->error_message = g_strdup (error_message);
  result->iterations = run->iteration;
  result->input_tokens = run->input_tokens;
  result->output_tokens = run->output_tokens;

  _pd_engine_save_turn (run, status == PD_RUN_FAILED ? PD_SESSION_STATUS_FAILED : PD_SESSION_STATUS_IDLE);

  json_object_set_int_member (data, "duration_ms", duration_ms);
  json_object_set_int_member (data, "input_tokens", run->input_tokens);
  json_object_set_int_member (data, "output_tokens", run->output_tokens);
  if (status == PD_RUN_INCOMPLETE)
    json_object_set_boolean_member (data, "incomplete", TRUE);
  if (status == PD_RUN_COMPLETED || status == PD_RUN_BUDGET_EXCEEDED || status == PD_RUN_INCOMPLETE)
    _pd_engine_emit_data (run, PD_EVENT_RUN_COMPLETED, NULL, FALSE, data);
  else
    {
      json_object_set_string_member (data, "error_class",
                                     status == PD_RUN_CANCELLED ? "cancelled" :
                                     status == PD_RUN_REFUSED ? "refused" : "failed");
      /* Ours: why, in words, for a person reading the session later (the
       * Now page); redacted and bounded like what is stored. */
      /* A cancel that was no person's stop says what interrupted it (the
       * endpoint stopping, its client going away): the window's card and
       * Now page read "Stopped" for it. */
      if (status == PD_RUN_CANCELLED && pd_cancellable_get_reason (run->cancellable) != NULL)
        {
          json_object_set_boolean_member (data, "interrupted", TRUE);
          json_object_set_string_member (data, "error", pd_cancellable_get_reason (run->cancellable));
        }
      else if (status != PD_RUN_CANCELLED && error_message != NULL && error_message[0] != '\0')
        {
          g_autofree char *redacted = pd_redact (error_message, NULL);

          if (g_utf8_validate (redacted, -1, NULL) && g_utf8_strlen (redacted, -1) > ERROR_MAX_CHARS)
            {
              g_autofree char *start = g_utf8_substring (redacted, 0, ERROR_MAX_CHARS);

              g_free (redacted);
              redacted = g_strconcat (start, "…", NULL);
            }
          json_object_set_string_member (data, "error", redacted);
        }
      _pd_engine_emit_data (run, PD_EVENT_RUN_FAILED, NULL, FALSE, data);
    }

  return result;
}

PdRunResult *
_pd_engine_finish (PdEngineRun *run,
                   PdRunStatus  status,
                   const char  *text,
                   const char  *error_message)
{
  return _pd_engine_finish_with (run, status, text, error_message, NULL);
}

/* @ms as seconds: "2 s", "2.5 s"; with @tenths always a tenth ("2.0 s"),
 * as a time measured is (2001 ms read "2 s", as if within a budget of 2). */
static char *
seconds_text (gint64   ms,
              gboolean tenths)
{
  if (!tenths && ms % 1000 == 0)
    return g_strdup_printf ("%" G_GINT64_FORMAT " s", ms / 1000);
  return g_strdup_printf ("%" G_GINT64_FORMAT ".%" G_GINT64_FORMAT " s", ms / 1000, ms % 1000 / 100);
}

/* @in_turn: the budget ran out while the model was asked, in the turn
 * that then counts as begun; else between turns, after the last one. */
PdRunResult *
_pd_engine_stop_for_budget (PdEngineRun *run,
                            const char  *name,
                            gint64       observed,
                            gint64       limit,
                            gboolean     in_turn)
{
  g_autofree char *remaining = _pd_engine_remaining_steps (run, FALSE);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GString) said = NULL;
  g_autoptr(JsonObject) note = NULL;
  JsonObject *data = json_object_new ();
  JsonObject *end;
  PdRunResult *result;

  json_object_set_string_member (data, "limit_name", name);
  json_object_set_int_member (data, "observed", observed);
  json_object_set_int_member (data, "limit", limit);
  /* Between turns, the event is of the last turn that ran: the Events page
   * said "iteration 4" of a run the CLI said stopped after 3 iterations
   * (3 of 3), as its Now page did (tried as a new user would). */
  if (in_turn || run->iteration == 0)
    _pd_engine_emit_data (run, PD_EVENT_BUDGET_EXCEEDED, NULL, in_turn, data);
  else
    _pd_engine_emit_data_at (run, PD_EVENT_BUDGET_EXCEEDED, NULL, run->iteration, data);

  /* The time budget by a name a person reads, in seconds: it read "its
   * wall_time budget is exhausted (2001 of 2000)", milliseconds under an
   * internal name (tried as a new user would).  The event keeps both. */
  if (g_strcmp0 (name, "wall_time") == 0)
    {
      g_autofree char *used = seconds_text (observed, TRUE);
      g_autofree char *allowed = seconds_text (limit, FALSE);

      g_string_append_printf (text, "[plandeck: the run stopped because its time budget is exhausted (%s of %s).]",
                              used, allowed);
    }
  else
    g_string_append_printf (text, "[plandeck: the run stopped because its %s budget is exhausted (%" G_GINT64_FORMAT
                                  " of %" G_GINT64_FORMAT ").]", name, observed, limit);
  said = g_string_new (text->str);
  if (remaining != NULL)
    {
      /* Derived from the plan, so wrapped like the plan message body for
       * the model; a person is told it plain (run printed the wrapper on
       * stderr, tried as a new user would). */
      g_autofree char *nonce = pd_plan_new_nonce ();

      g_string_append_printf (text, "\n<untrusted_content_%s source=\"plan_remaining\">\n[plan remaining: %s]\n"
                                    "</untrusted_content_%s>", nonce, remaining, nonce);
      g_string_append_printf (said, "\n[plan remaining: %s]", remaining);
    }

  note = pd_message_new_note (text->str);
  pd_transcript_append (run->transcript, note);
  _pd_engine_progress (run, PD_ENGINE_PROGRESS_NOTICE, said->str);

  /* Ours: which budget ended it, so the session's listing can say the run
   * stopped (pd-session-info.h) without reading the budget_exceeded event. */
  end = json_object_new ();
  json_object_set_string_member (end, "budget_exceeded", name);
  result = _pd_engine_finish_with (run, PD_RUN_BUDGET_EXCEEDED, said->str, NULL, end);
  result->budget_name = g_strdup (name);
  result->budget_observed = observed;
  result->budget_limit = limit;
  return result;
}

PdRunResult *
_pd_engine_fail_run (PdEngineRun  *run,
                     const GError *error)
{
  g_autofree char *text = NULL;
  g_autoptr(JsonObject) note = NULL;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
      g_error_matches (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_CANCELLED))
    {
      const char *reason = pd_cancellable_get_reason (run->cancellable);

      text = reason != NULL ? g_strdup_printf ("[plandeck: the run was interrupted: %s.]", reason)
                            : g_strdup ("[plandeck: the run was cancelled.]");
      note = pd_message_new_note (text);
      pd_transcript_append (run->transcript, note);
      return _pd_engine_finish (run, PD_RUN_CANCELLED, text, "cancelled");
    }

  /* Answers that kept coming back unusable are the model's doing, not the
   * provider's. */
  if (g_error_matches (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_OUTPUT_LIMIT) ||
      g_error_matches (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_BAD_TOOL_ARGUMENTS))
    text = g_strdup_printf ("[plandeck: the run failed: %s]", error->message);
  else
    text = g_strdup_printf ("[plandeck: the model provider failed: %s]", error->message);
  note = pd_message_new_note (text);
  pd_transcript_append (run->transcript, note);
  _pd_engine_progress (run, PD_ENGINE_PROGRESS_NOTICE, text);
  return _pd_engine_finish (run, PD_RUN_FAILED, text, error->message);
}

/* One model turn done: iteration_completed carries its number (1-based),
 * then the count moves on. */
void
_pd_engine_complete_iteration (PdEngineRun              *run,
                               const PdProviderResponse *response,
                               guint                     n_calls)
{
  JsonObject *data = json_object_new ();

  json_object_set_int_member (data, "input_tokens", MAX (response->input_tokens, 0));
  json_object_set_int_member (data, "output_tokens", MAX (response->output_tokens, 0));
  json_object_set_int_member (data, "tools_called", n_calls);
  _pd_engine_emit_data (run, PD_EVENT_ITERATION_COMPLETED, NULL, TRUE, data);
  run->iteration++;
}

/* The model declined.  Its turn is stored with the explanation (and
 * whatever it wrote before declining), the person is told, and the run
 * ends: asking again with the same context would only be refused again.
 * The next request leaves the refused turn out (pd_transcript_to_request). */
PdRunResult *
_pd_engine_refuse_run (PdEngineRun        *run,
                       PdProviderResponse *response)
{
  g_autoptr(JsonObject) message = pd_message_new ("assistant", *response->content ? response->content : NULL);
  g_autofree char *reason = NULL;
  g_autofree char *notice = NULL;
  JsonObject *extra = json_object_new ();

  json_object_set_string_member (message, PD_MESSAGE_REFUSAL, response->refusal);
  _pd_engine_keep_thinking (message, response);
  if (response->refusal_category != NULL)
    json_object_set_string_member (message, PD_MESSAGE_REFUSAL_CATEGORY, response->refusal_category);
  pd_transcript_append (run->transcript, message);

  reason = response->refusal_category != NULL
    ? g_strdup_printf ("the model refused to answer (%s): %s", response->refusal_category, response->refusal)
    : g_strdup_printf ("the model refused to answer: %s", response->refusal);
  notice = g_strdup_printf ("[plandeck: %s. The refused request is left out of what the model sees next; "
                            "continue the session with a new message.]", reason);
  _pd_engine_progress (run, PD_ENGINE_PROGRESS_NOTICE, notice);

  if (response->refusal_category != NULL)
    json_object_set_string_member (extra, "category", response->refusal_category);
  json_object_set_string_member (extra, "stop_reason", response->stop_reason ? response->stop_reason : "refusal");

  _pd_engine_complete_iteration (run, response, 0);
  return _pd_engine_finish_with (run, PD_RUN_REFUSED, response->content, reason, extra);
}

/* Whether a call of @name would write files: such calls carry whole files
 * or long edits, the ones an output limit cuts. */
static gboolean
writes_files (PdEngineRun *run,
              const char  *name)
{
  PdTool *tool = pd_tool_registry_lookup (run->engine->tools, name);

  return tool != NULL && pd_tool_get_safety (tool) == PD_TOOL_MUTATING &&
         (g_strcmp0 (name, "write_file") == 0 || g_strcmp0 (name, "edit_file") == 0);
}

/* An answer that cannot be used: a tool call cut off by the output limit,
 * or tool arguments that are not a JSON object.  It is not stored (none of
 * its calls can run, and a half-written call shown back to the model only
 * misleads it) but it is counted, said, and asked again:
 *  - a cut call that writes files is asked again once with the family's
 *    higher limit; any other cut call, or one already asked with the higher
 *    limit, once with a hint to split the work; then the run fails saying
 *    which limit cut what;
 *  - bad arguments are asked again with a hint, twice, then the run fails.
 * Returns NULL to go on, or the failed run. */
PdRunResult *
_pd_engine_discard_turn (PdEngineRun        *run,
                         PdProviderResponse *response,
                         guint               used_limit)
{
  PdEngine *self = run->engine;
  gboolean cut = response->cut_tool != NULL;
  const char *stop = response->stop_reason ? response->stop_reason : PD_FINISH_LENGTH;
  g_autofree char *limit_text = used_limit > 0 ? g_strdup_printf ("%u tokens", used_limit)
                                               : g_strdup ("the server default");
  g_autofree char *notice = NULL;
  g_autofree char *hint = NULL;
  guint raised = 0;
  JsonObject *data = json_object_new ();

  if (cut)
    {
      if (run->cut_answers == 0 && writes_files (run, response->cut_tool))
        raised = pd_model_limits_raise (&self->limits, used_limit);

      if (run->cut_answers >= 1)
        {
          g_autoptr(GError) error = NULL;

          error = g_error_new (PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_OUTPUT_LIMIT,
                               "the model's answer was cut off at its output limit again (stop reason %s, %s) "
                               "while it wrote the call of %s, so that call never ran; raise "
                               "provider.max_output_tokens in the config if the model can write more, or ask "
                               "for the change in smaller parts", stop, limit_text, response->cut_tool);
          json_object_unref (data);
          return _pd_engine_fail_run (run, error);
        }
      run->cut_answers++;

      if (raised > 0)
        {
          run->next_max_tokens = raised;
          notice = g_strdup_printf ("[plandeck: the answer was cut off at the output limit (stop reason %s, %s) "
                                    "while the model wrote the call of %s; asking again with a limit of %u tokens.]",
                                    stop, limit_text, response->cut_tool, raised);
        }
      else
        {
          hint = g_strdup_printf ("[plandeck: your last answer was cut off at the output limit (stop reason %s, %s) "
                                  "while you wrote the arguments of %s, so it did not run. Do the work in smaller "
                                  "parts: write a shorter file and extend it with edit_file, or split the edit.]",
                                  stop, limit_text, response->cut_tool);
          notice = g_strdup_printf ("[plandeck: the answer was cut off at the output limit (stop reason %s, %s) "
                                    "while the model wrote the call of %s; asking again for smaller parts.]",
                                    stop, limit_text, response->cut_tool);
        }
    }
  else
    {
      if (run->bad_arguments >= MAX_BAD_ARGUMENT_RETRIES)
        {
          g_autoptr(GError) error = g_error_new_literal (PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_BAD_TOOL_ARGUMENTS,
                                                         response->rejected);
          json_object_unref (data);
          return _pd_engine_fail_run (run, error);
        }
      run->bad_arguments++;
      hint = g_strdup_printf ("[plandeck: your last answer could not be used: %s. Send tool call arguments as one "
                              "JSON object.]", response->rejected);
      notice = g_strdup_printf ("[plandeck: the answer could not be used (%s); asking again.]", response->rejected);
    }

  json_object_set_string_member (data, "reason", cut ? "max_tokens" : "bad_arguments");
  if (cut)
    json_object_set_string_member (data, "tool", response->cut_tool);
  json_object_set_string_member (data, "stop_reason", cut ? stop : response->finish_reason);
  json_object_set_int_member (data, "input_tokens", MAX (response->input_tokens, 0));
  json_object_set_int_member (data, "output_tokens", MAX (response->output_tokens, 0));
  json_object_set_int_member (data, "max_tokens", used_limit);
  if (raised > 0)
    json_object_set_int_member (data, "next_max_tokens", raised);
  _pd_engine_emit_data (run, PD_EVENT_TURN_DISCARDED, NULL, TRUE, data);

  _pd_engine_progress (run, PD_ENGINE_PROGRESS_DISCARDED, notice);
  if (hint != NULL)
    g_ptr_array_add (run->hints, g_steal_pointer (&hint));

  /* It was a model turn: it counts against the iterations too. */
  run->iteration++;
  return NULL;
}
