/* pd-engine-tools.c: one batch of tool calls.
 *
 * The calls of one answer are decided (plan mode's guard, the approver) in
 * call order; reads next to each other run at once, at most
 * max_tool_parallel, and every other call runs alone, in call order.  Each
 * call's started event comes as its turn comes, its end as its group ends.
 * Their results go back into the transcript in call order, with evidence,
 * stall and reassessment bookkeeping after the batch.
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
#include "pd-redact.h"

typedef struct
{
  PdEngineRun  *run;
  char         *call_id;
  char         *name;
  char         *arguments_text;
  JsonObject   *arguments;       /* NULL when the text is not a JSON object */
  PdTool       *tool;            /* NULL for an unknown tool */
  PdToolResult *result;
  gint64        duration_ms;
  PdToolContext *context;        /* the call's, with a write's or edit's file resolved once */
} ToolJob;

typedef struct
{
  GMutex mutex;
  GCond  cond;
  guint  pending;
} BatchWait;

static void
tool_job_free (ToolJob *job)
{
  g_free (job->call_id);
  g_free (job->name);
  g_free (job->arguments_text);
  g_clear_pointer (&job->context, pd_tool_context_unref);
  g_clear_pointer (&job->arguments, json_object_unref);
  g_clear_object (&job->tool);
  g_clear_pointer (&job->result, pd_tool_result_free);
  g_free (job);
}

static const char *
error_class_of (const ToolJob *job)
{
  const PdToolResult *result = job->result;

  if (job->tool == NULL)
    return "unknown_tool";
  if (job->arguments == NULL)
    return "bad_arguments";
  if (result->content != NULL && g_str_has_prefix (result->content, "killed: timeout"))
    return "timeout";
  if (result->exit_status != 0)
    return "command_failed";
  if (result->content != NULL && strstr (result->content, "outside the working directory"))
    return "path_denied";
  if (result->content != NULL && (strstr (result->content, "No such file") || strstr (result->content, "not found")))
    return "not_found";
  return "tool_error";
}

/* Plan mode's guard and the approver, in call order on the run's thread:
 * a person is asked about the calls in the order the model gave them.
 * Leaves job->result set when the call is not to run. */
static void
decide_tool_job (ToolJob *job)
{
  PdEngineRun *run = job->run;
  PdEngine *self = run->engine;
  g_autofree char *reason = NULL;
  PdToolContext *context;

  /* The file a write or an edit lands in, resolved once, before plan
   * mode's guard and the question look at it: the guard, the question's
   * preview and the tool all take it from the call's context.  Each
   * resolved the path for itself, and a folder flipping to a link between
   * them made the question show docs/x/n.md, or the guard pass a plans
   * file, while the tool wrote .git/hooks/n.md or README.md (tried as an
   * attacker would).  The call runs only if its path still leads there,
   * into the same folder (a link planted while the person is asked is
   * refused, not followed). */
  if (job->tool != NULL && job->arguments != NULL &&
      (g_strcmp0 (job->name, "write_file") == 0 || g_strcmp0 (job->name, "edit_file") == 0))
    {
      const char *path = pd_json_get_string (job->arguments, "path");

      /* A write runs alone: one copy (one descriptor) at a time. */
      job->context = pd_tool_context_copy (self->tool_context);
      if (path != NULL)
        pd_tool_context_approve_path (job->context, path);
    }

  context = job->context != NULL ? job->context : self->tool_context;
  if (job->tool == NULL)
    job->result = pd_tool_result_new_printf (FALSE, "unknown tool '%s'", job->name);
  else if (job->arguments == NULL)
    job->result = pd_tool_result_new_printf (FALSE, "the arguments of %s are not a JSON object; send an object "
                                                    "matching the tool's parameters", job->name);
  else if ((job->result = _pd_engine_plan_mode_guard (run, context, job->name, job->tool, job->arguments)) != NULL)
    ;
  else if (self->approver != NULL &&
           pd_approver_decide (self->approver, job->tool, context, job->arguments, &reason) == PD_APPROVAL_DENY)
    job->result = pd_tool_result_new_denied (job->name, reason);

  /* A call that will not run holds no descriptor until the batch ends. */
  if (job->result != NULL)
    g_clear_pointer (&job->context, pd_tool_context_unref);
}

static void
run_tool_job (gpointer data,
              gpointer user_data)
{
  ToolJob *job = data;
  BatchWait *wait = user_data;
  PdEngineRun *run = job->run;
  PdEngine *self = run->engine;
  gint64 start = g_get_monotonic_time ();

  if (job->result == NULL)
    {
      g_autoptr(GError) error = NULL;
      /* The call's own context (a write's, with its one resolution), or
       * a copy of the run's; given up once the call is done. */
      g_autoptr(PdToolContext) context = job->context ? g_steal_pointer (&job->context)
                                                      : pd_tool_context_copy (self->tool_context);

      /* The run's time budget reaches into the tools: long work stops at it. */
      if (self->max_wall_ms > 0)
        pd_tool_context_set_deadline (context, run->started_usec + self->max_wall_ms * 1000);
      job->result = pd_tool_call (job->tool, context, job->arguments, run->cancellable, &error);
      if (job->result == NULL)
        job->result = pd_tool_result_new_printf (FALSE, "%s failed: %s", job->name, error->message);
    }

  job->duration_ms = (g_get_monotonic_time () - start) / 1000;

  g_mutex_lock (&wait->mutex);
  wait->pending--;
  g_cond_signal (&wait->cond);
  g_mutex_unlock (&wait->mutex);
}

/* Whether a call may run beside the calls next to it: only one that reads.
 * Two edits of one file run at once each read the file before the other
 * wrote it, and one change was lost while both said "edited"; a script
 * written then run in one answer ran in its old version (tried as an
 * attacker would).  A call that writes, runs a command, or changes the plan
 * or the mode runs alone, after every call before it and before every call
 * after it. */
static gboolean
tool_job_runs_beside (ToolJob *job)
{
  if (job->tool == NULL || job->arguments == NULL)
    return TRUE;  /* refused before it could run */
  return pd_tool_get_effects (job->tool, job->arguments) == PD_TOOL_EFFECTS_READ &&
         g_strcmp0 (job->name, "plan") != 0 && g_strcmp0 (job->name, "exit_plan_mode") != 0;
}

static ToolJob *
tool_job_new (PdEngineRun *run,
              JsonObject  *call,
              guint        index)
{
  ToolJob *job = g_new0 (ToolJob, 1);
  JsonObject *function = pd_json_get_object (call, "function");
  const char *arguments;

  job->run = run;
  job->call_id = g_strdup (pd_json_get_string (call, "id") ?: "");
  if (*job->call_id == '\0')
    {
      g_free (job->call_id);
      job->call_id = g_strdup_printf ("call_%u_%u", run->iteration + 1, index);
    }

  job->name = g_strdup (pd_json_get_string (function, "name") ?: "");
  arguments = pd_json_get_string (function, "arguments") ?: "";
  job->arguments_text = g_strdup (*arguments ? arguments : "{}");

  {
    g_autoptr(JsonNode) node = pd_json_parse (job->arguments_text, -1, NULL);

    if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
      job->arguments = json_object_ref (json_node_get_object (node));
  }

  job->tool = pd_tool_registry_lookup (run->engine->tools, job->name);
  if (job->tool != NULL)
    g_object_ref (job->tool);

  return job;
}

/* The one-line summary of a call with its arguments redacted. */
static char *
summarize_redacted (PdTool     *tool,
                    JsonObject *arguments)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), arguments);
  g_autoptr(JsonNode) redacted = pd_redact_node (node, NULL);
  g_autofree char *summary = NULL;

  if (redacted == NULL || !JSON_NODE_HOLDS_OBJECT (redacted))
    return NULL;
  summary = pd_approver_summarize (tool, json_node_get_object (redacted));
  return pd_redact (summary, NULL);
}

/* A call's tool_call_started event and its progress line, as its turn
 * comes: just before it is decided (so the line stands above a question
 * about it) and run.  They all came before the batch's first call ran, so
 * a watcher (the Now page, serve's stream) saw every call of an answer
 * "running" while the first one was (tried as an attacker would). */
static void
start_tool (PdEngineRun *run,
            ToolJob     *job)
{
  g_autofree char *summary = NULL;
  g_autofree char *told = NULL;
  g_autofree char *digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, job->arguments_text, -1);
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "call_id", job->call_id);
  json_object_set_string_member (data, "args_sha256", digest);
  json_object_set_int_member (data, "args_bytes", strlen (job->arguments_text));
  /* What the call asks, in one line (odek's args_summary): the events are
   * the record of what ran once compaction has dropped the call's exchange
   * from the stored transcript (an approved `touch` vanished from the
   * session after eight reads; tried as an attacker would).  Summarized
   * from the redacted arguments, so the mask is the one the stored copy
   * has, then redacted once more as a line: live watchers (serve's
   * stream) get the event before the store's redaction. */
  if (job->tool != NULL && job->arguments != NULL)
    told = summarize_redacted (job->tool, job->arguments);
  if (told != NULL)
    json_object_set_string_member (data, "args_summary", told);
  _pd_engine_emit_data (run, PD_EVENT_TOOL_CALL_STARTED, job->name, TRUE, data);

  /* The progress line (run's "→ shell: …" on stderr) says what the
   * stored session says, masked: it showed the command as the model wrote
   * it, password included, where the session held [REDACTED] (tried as an
   * attacker would).  The tool's name is the model's too. */
  summary = told != NULL ? g_strdup (told) : pd_redact (job->name, NULL);
  _pd_engine_progress (run, PD_ENGINE_PROGRESS_TOOL_START, summary);
}

/* Its tool_call_completed or _failed event and its progress line, as soon
 * as its group of calls is done. */
static void
end_tool (PdEngineRun *run,
          ToolJob     *job)
{
  PdToolResult *result = job->result;
  JsonObject *data = json_object_new ();

  json_object_set_string_member (data, "call_id", job->call_id);
  json_object_set_int_member (data, "duration_ms", job->duration_ms);
  if (result->ok)
    {
      json_object_set_int_member (data, "result_bytes", strlen (result->content));
      _pd_engine_emit_data (run, PD_EVENT_TOOL_CALL_COMPLETED, job->name, TRUE, data);
    }
  else
    {
      json_object_set_string_member (data, "error_class", result->denied ? "denied" : error_class_of (job));
      _pd_engine_emit_data (run, PD_EVENT_TOOL_CALL_FAILED, job->name, TRUE, data);
    }

  _pd_engine_progress (run, PD_ENGINE_PROGRESS_TOOL_END,
                       result->denied ? "denied" : result->ok ? "ok" : "failed");
}

static JsonNode *
arguments_node (ToolJob *job)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (node, job->arguments);
  return node;
}

/* Evidence, stall and reassessment bookkeeping for one finished call, in
 * call order after the batch, so "latest outcome wins" is deterministic
 * (its events went out when its group ended: end_tool()). */
static void
observe_result (PdEngineRun *run,
                ToolJob     *job)
{
  PdEngine *self = run->engine;
  PdToolResult *result = job->result;
  /* With planning off, a call named "plan" is just an unknown tool. */
  gboolean is_plan = _pd_engine_planning (run) && job->tool != NULL && g_strcmp0 (job->name, "plan") == 0;
  PdToolEffects effects = job->tool ? pd_tool_get_effects (job->tool, job->arguments) : PD_TOOL_EFFECTS_READ;
  g_autofree char *canonical = NULL;
  g_autoptr(JsonNode) args = NULL;

  if (job->arguments != NULL)
    {
      args = arguments_node (job);
      canonical = pd_json_canonicalize_object (args, NULL);
    }

  if (is_plan)
    {
      if (!result->ok && self->bus != NULL)
        {
          /* The model's arguments: a verb of another type reads as none. */
          const char *verb = pd_json_get_string (job->arguments, "verb");
          g_autoptr(GError) error = g_error_new_literal (PD_PLAN_ERROR, PD_PLAN_ERROR_INVALID_ARGS, result->content);

          _pd_engine_emit (run, pd_event_new_plan_validation_failed (run->run_id, run->session_id, verb, error));
        }
      return;
    }

  /* Evidence: only tools that exist and could run. */
  if (_pd_engine_planning (run) && job->tool != NULL && args != NULL)
    {
      PdPlanObservation observation = { 0 };
      gboolean matched = pd_plan_store_matches_check (self->plan_store, job->name, args);

      observation.tool = job->name;
      observation.arguments = args;
      observation.ok = result->ok;
      observation.call_id = job->call_id;
      observation.effects = effects;
      observation.denied = result->denied;
      pd_plan_store_record_outcome (self->plan_store, &observation);

      if (matched && !result->denied)
        {
          g_autofree char *key = g_strconcat (job->name, " ", canonical, NULL);
          pd_reassessment_check_outcome (run->reassess, key, result->ok);
        }
    }

  {
    g_autoptr(PdStall) stall = pd_stall_detector_observe (run->stall, job->name, canonical, result->content,
                                                          effects != PD_TOOL_EFFECTS_READ, result->denied);
    if (stall != NULL)
      {
        g_autofree char *in_progress = NULL;
        g_autofree char *next_pending = NULL;

        _pd_engine_plan_pointers (run, &in_progress, &next_pending);
        g_ptr_array_add (run->hints, pd_stall_format_hint (stall, in_progress, next_pending));
      }
  }

  /* Denials, cancellations and background polls are not evidence of a
   * wrong approach. */
  if (!result->denied && !g_cancellable_is_cancelled (run->cancellable) && !g_str_has_prefix (job->name, "bg_"))
    {
      g_autofree char *fingerprint = g_compute_checksum_for_string (G_CHECKSUM_SHA256,
                                                                    canonical ? canonical : job->arguments_text, -1);
      g_autofree char *keyed = g_strconcat (job->name, ":", fingerprint, NULL);

      pd_reassessment_tool_outcome (run->reassess, keyed, result->ok, result->ok ? NULL : error_class_of (job));
    }
}

void
_pd_engine_run_batch (PdEngineRun *run,
                      JsonArray   *tool_calls)
{
  PdEngine *self = run->engine;
  g_autoptr(GPtrArray) jobs = g_ptr_array_new_with_free_func ((GDestroyNotify) tool_job_free);
  BatchWait wait;
  GThreadPool *pool;
  guint n = json_array_get_length (tool_calls);
  const char *reason;

  g_mutex_init (&wait.mutex);
  g_cond_init (&wait.cond);
  wait.pending = 0;

  for (guint i = 0; i < n; i++)
    {
      JsonObject *call = pd_json_array_get_object (tool_calls, i);

      if (call != NULL)
        g_ptr_array_add (jobs, tool_job_new (run, call, i));
    }

  /* What the model asked, every call before any runs: odek's wire sends
   * all tool_call frames of a batch first (odek-webui-protocol.md). */
  for (guint i = 0; i < jobs->len; i++)
    {
      ToolJob *job = g_ptr_array_index (jobs, i);

      _pd_engine_tell_tool (run, PD_ENGINE_TOOL_CALL, job->name, job->call_id, job->arguments_text, TRUE);
    }

  /* A pool per batch: its user data is this batch's wait.  The calls run
   * in call order, in groups: a run of reads at once (at most
   * max_tool_parallel), anything else alone. */
  pool = g_thread_pool_new (run_tool_job, &wait, (int) self->max_tool_parallel, FALSE, NULL);

  for (guint first = 0; first < jobs->len;)
    {
      guint end = first + 1;

      if (tool_job_runs_beside (g_ptr_array_index (jobs, first)))
        while (end < jobs->len && tool_job_runs_beside (g_ptr_array_index (jobs, end)))
          end++;
      /* A plan changed by the calls before is stored before any question
       * about this group can be asked, and before a plan review (a plan
       * call asks nothing: a run of them is stored with the batch). */
      if (_pd_engine_planning (run) && g_strcmp0 (((ToolJob *) g_ptr_array_index (jobs, first))->name, "plan") != 0)
        _pd_engine_save_plan (run);
      for (guint i = first; i < end; i++)
        {
          start_tool (run, g_ptr_array_index (jobs, i));
          decide_tool_job (g_ptr_array_index (jobs, i));
        }

      g_mutex_lock (&wait.mutex);
      wait.pending = end - first;
      g_mutex_unlock (&wait.mutex);
      for (guint i = first; i < end; i++)
        g_thread_pool_push (pool, g_ptr_array_index (jobs, i), NULL);
      g_mutex_lock (&wait.mutex);
      while (wait.pending > 0)
        g_cond_wait (&wait.cond, &wait.mutex);
      g_mutex_unlock (&wait.mutex);
      for (guint i = first; i < end; i++)
        end_tool (run, g_ptr_array_index (jobs, i));
      first = end;
    }

  g_thread_pool_free (pool, FALSE, TRUE);
  g_mutex_clear (&wait.mutex);
  g_cond_clear (&wait.cond);

  for (guint i = 0; i < jobs->len; i++)
    {
      ToolJob *job = g_ptr_array_index (jobs, i);
      g_autoptr(JsonObject) message = pd_message_new ("tool", job->result->content);

      json_object_set_string_member (message, "tool_call_id", job->call_id);
      json_object_set_string_member (message, "name", job->name);
      if (!job->result->ok)
        json_object_set_boolean_member (message, PD_MESSAGE_IS_ERROR, TRUE);
      pd_transcript_append (run->transcript, message);
      _pd_engine_tell_tool (run, PD_ENGINE_TOOL_RESULT, job->name, job->call_id, job->result->content, job->result->ok);
      observe_result (run, job);
    }

  if (_pd_engine_planning (run))
    pd_plan_store_end_batch (self->plan_store);

  reason = pd_reassessment_end_batch (run->reassess, _pd_engine_plan_is_open (run));
  if (reason != NULL)
    {
      JsonObject *data = json_object_new ();

      json_object_set_string_member (data, "reason", reason);
      json_object_set_int_member (data, "failure_batches", PD_REASSESS_FAILURE_BATCHES);
      _pd_engine_emit_data (run, PD_EVENT_PLAN_REASSESSMENT, NULL, TRUE, data);
      g_ptr_array_add (run->hints, pd_reassessment_format_hint (reason));
    }

  if (g_atomic_int_compare_and_exchange (&run->blocked_fired, 1, 0))
    g_ptr_array_add (run->hints,
                     g_strdup ("[plandeck plan: three steps in a row were marked blocked. Decompose the work with "
                               "plan revise \xe2\x80\x94 split or supersede the blocked steps \xe2\x80\x94 instead of "
                               "blocking more, or report the blocker.]"));
}
