/* pd-run-controller-channel.c: what runs on the engine's worker threads
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The channel back to the main thread, the questions a worker asks and
 * waits on, the progress it reports, and building the engine.
 */
#define G_LOG_DOMAIN "pd-run-controller"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "pd-config.h"
#include "pd-engine-builder.h"
#include "pd-provider.h"
#include "pd-run-controller-private.h"
#include "pd-secrets.h"

#define STATUS_TEXT_MAX 600

/* --- the channel from worker threads --------------------------------------- */

Channel *
_pd_run_channel_new (PdRunController *controller)
{
  Channel *channel = g_new0 (Channel, 1);

  g_atomic_ref_count_init (&channel->ref);
  g_weak_ref_init (&channel->controller, controller);
  channel->context = g_main_context_ref_thread_default ();

  return channel;
}

Channel *
_pd_run_channel_ref (Channel *channel)
{
  g_atomic_ref_count_inc (&channel->ref);
  return channel;
}

void
_pd_run_channel_unref (Channel *channel)
{
  if (g_atomic_ref_count_dec (&channel->ref))
    {
      g_weak_ref_clear (&channel->controller);
      g_main_context_unref (channel->context);
      g_free (channel);
    }
}

/* Main thread: a worker asks. */
static gboolean
ask_on_main (gpointer data)
{
  Question *question = data;
  g_autoptr(PdRunController) self = g_weak_ref_get (&question->channel->controller);

  if (self == NULL)
    {
      _pd_run_question_dismiss (question);
      return G_SOURCE_REMOVE;
    }

  /* "Always for This Session" answers a later call of its tool, but never
   * one whose command the person cannot read whole (control characters
   * shown as escapes, or an endpoint's masked text): that one is asked. */
  if (question->kind == QUESTION_APPROVAL && g_hash_table_contains (self->always, question->tool) &&
      !_pd_run_question_guarded (question))
    {
      _pd_run_question_answer (question, TRUE, NULL);
      return G_SOURCE_REMOVE;
    }

  if (g_cancellable_is_cancelled (self->cancellable))
    {
      _pd_run_question_dismiss (question);
      return G_SOURCE_REMOVE;
    }

  g_ptr_array_add (self->questions, _pd_run_question_ref (question));
  if (question->kind == QUESTION_APPROVAL)
    _pd_run_controller_ask_approval (self, question);
  else
    _pd_run_controller_ask_review (self, question);

  return G_SOURCE_REMOVE;
}

/* Whether what @question shows is not all that runs: an endpoint's masked
 * or escaped command (pd_remote_run_approval_is_guarded()), or a call of
 * this window's own run that holds control characters.  Such a question
 * is always asked, offers no "Always for This Session", and a
 * notification's Approve does not answer it. */
gboolean
_pd_run_question_guarded (Question *question)
{
  return question->controls != 0 ||
         (question->remote_run != NULL && pd_remote_run_approval_is_guarded (question->remote_run));
}

/* Worker thread: queues @question on the main context and waits. */
static void
ask_and_wait (Question *question)
{
  g_main_context_invoke_full (question->channel->context, G_PRIORITY_DEFAULT, ask_on_main,
                              _pd_run_question_ref (question), (GDestroyNotify) _pd_run_question_unref);

  g_mutex_lock (&question->mutex);
  while (!question->answered)
    g_cond_wait (&question->cond, &question->mutex);
  g_mutex_unlock (&question->mutex);
}

Question *
_pd_run_question_new (QuestionKind  kind,
                      Channel      *channel,
                      const char   *tool,
                      const char   *text)
{
  Question *question = g_new0 (Question, 1);

  g_atomic_ref_count_init (&question->ref);
  question->kind = kind;
  question->channel = _pd_run_channel_ref (channel);
  question->tool = g_strdup (tool);
  question->text = g_strdup (text);
  g_mutex_init (&question->mutex);
  g_cond_init (&question->cond);

  return question;
}

/* The tool of a call's summary ("shell: make check"): the name before ": ". */
static char *
summary_tool (const char *summary)
{
  const char *colon = strstr (summary, ": ");

  return colon != NULL ? g_strndup (summary, colon - summary) : g_strdup (summary);
}

/* A call as the run bar says it: its summary ("shell: make check"), but
 * words for a plan handed in for review, and the bare name of a tool whose
 * summary is its arguments' JSON (the run bar showed exit_plan_mode's whole
 * plan as JSON, tried as a new user would). */
static char *
tool_call_words (const char *summary,
                 const char *tool)
{
  const char *rest = summary + strlen (tool);

  if (g_strcmp0 (tool, "exit_plan_mode") == 0)
    return g_strdup (_("Plan submitted for review"));
  if (g_str_has_prefix (rest, ": {") || g_str_has_prefix (rest, ": ["))
    return g_strdup (tool);
  return g_strdup (summary);
}

/* The engine ends a tool call with "ok", "failed" or "denied"; the run bar
 * says it in words, with the call it ends (the activity "→ tool: what"). */
static char *
tool_end_words (const char *result,
                const char *activity,
                const char *tool)
{
  const char *call = activity != NULL && g_str_has_prefix (activity, "\xe2\x86\x92 ") ? activity + 4 : NULL;

  /* A plan review ends approved, or sent back (kept planning, or the
   * review closed). */
  if (g_strcmp0 (tool, "exit_plan_mode") == 0 && g_strcmp0 (result, "ok") == 0)
    return g_strdup (_("Plan approved"));
  if (g_strcmp0 (tool, "exit_plan_mode") == 0 && g_strcmp0 (result, "failed") == 0)
    return g_strdup (_("Plan not approved: the agent keeps planning"));

  if (g_strcmp0 (result, "ok") == 0)
    /* Translators: %s is a tool call, such as "write_file: notes.txt (12 bytes)" */
    return call ? g_strdup_printf (_("Done: %s"), call) : g_strdup (_("The tool call is done"));
  if (g_strcmp0 (result, "denied") == 0)
    /* Translators: %s is a tool call, such as "shell: make check" */
    return call ? g_strdup_printf (_("Not allowed: %s"), call) : g_strdup (_("The tool call was not allowed"));
  if (g_strcmp0 (result, "failed") == 0)
    /* Translators: %s is a tool call, such as "read_file: missing.txt" */
    return call ? g_strdup_printf (_("Did not work: %s"), call) : g_strdup (_("The tool call did not work"));
  return g_strdup (result);
}

/* PdApprovalFunc: on a tool worker thread. */
static gboolean
approve_on_worker (const char *tool,
                   const char *summary,
                   const char *preview,
                   gpointer    user_data)
{
  Question *question = _pd_run_question_new (QUESTION_APPROVAL, user_data, tool, summary);
  gboolean allow;

  question->preview = g_strdup (preview);
  question->controls = pd_approver_asked_controls_kinds ();

  ask_and_wait (question);
  allow = question->answer;
  if (!allow && question->dismissed)
    pd_approver_set_denial_reason ("interrupted: the run was stopped or its window closed before anyone answered");
  _pd_run_question_unref (question);

  return allow;
}

/* PdPlanReviewFunc: on a tool worker thread. */
static PdPlanReviewAnswer
review_on_worker (const char  *markdown,
                  char       **feedback,
                  gpointer     user_data)
{
  Question *question = _pd_run_question_new (QUESTION_REVIEW, user_data, "exit_plan_mode", markdown);
  PdPlanReviewAnswer answer;

  ask_and_wait (question);
  answer = question->answer;
  if (feedback != NULL)
    *feedback = g_steal_pointer (&question->feedback);
  _pd_run_question_unref (question);

  return answer;
}

/* --- progress ------------------------------------------------------------- */

typedef struct
{
  Channel          *channel;
  PdEngineProgress  kind;
  char             *text;
} Progress;

static void
progress_free (Progress *progress)
{
  _pd_run_channel_unref (progress->channel);
  g_free (progress->text);
  g_free (progress);
}

static gboolean
progress_on_main (gpointer data)
{
  Progress *progress = data;
  g_autoptr(PdRunController) self = g_weak_ref_get (&progress->channel->controller);

  if (self == NULL)
    return G_SOURCE_REMOVE;

  /* The run's first answer: its notice has been up since the run began. */
  if (progress->kind == PD_ENGINE_PROGRESS_TEXT || progress->kind == PD_ENGINE_PROGRESS_REASONING ||
      progress->kind == PD_ENGINE_PROGRESS_TOOL_START)
    _pd_run_controller_set_notice (self, NULL);

  switch (progress->kind)
    {
    case PD_ENGINE_PROGRESS_TEXT:
      /* The text of a turn stays up while its tools run. */
      if (self->status_stale)
        g_string_truncate (self->status_text, 0);
      self->status_stale = FALSE;
      g_string_append (self->status_text, progress->text);
      if (self->status_text->len > STATUS_TEXT_MAX)
        {
          /* Keep the tail, cut at a character boundary. */
          const char *start = self->status_text->str + self->status_text->len - STATUS_TEXT_MAX;

          start = g_utf8_find_next_char (start - 1, NULL);
          g_string_erase (self->status_text, 0, start - self->status_text->str);
        }
      _pd_run_controller_append_transcript (self, progress->text);
      _pd_run_controller_notify (self, PROP_STATUS_TEXT);
      break;

    case PD_ENGINE_PROGRESS_TOOL_START:
      self->status_stale = TRUE;
      {
        g_autofree char *words = NULL;

        g_free (self->activity_tool);
        self->activity_tool = summary_tool (progress->text);
        words = tool_call_words (progress->text, self->activity_tool);
        g_free (self->activity);
        self->activity = g_strdup_printf ("\xe2\x86\x92 %s", words);
      }
      _pd_run_controller_append_transcript (self, "\n");
      _pd_run_controller_append_transcript (self, self->activity);
      _pd_run_controller_append_transcript (self, "\n");
      _pd_run_controller_notify (self, PROP_ACTIVITY);
      break;

    case PD_ENGINE_PROGRESS_RETRY:
    case PD_ENGINE_PROGRESS_DISCARDED:
      /* That answer is asked again: its text goes from the run bar, and the
       * activity line says why (a retry: when). */
      self->status_stale = TRUE;
      G_GNUC_FALLTHROUGH;
    case PD_ENGINE_PROGRESS_TOOL_END:
    case PD_ENGINE_PROGRESS_NOTICE:
      {
        char *words = progress->kind == PD_ENGINE_PROGRESS_TOOL_END
          ? tool_end_words (progress->text, self->activity, self->activity_tool) : g_strdup (progress->text);

        g_free (self->activity);
        self->activity = words;
      }
      _pd_run_controller_append_transcript (self, self->activity);
      _pd_run_controller_append_transcript (self, "\n");
      _pd_run_controller_notify (self, PROP_ACTIVITY);
      break;

    case PD_ENGINE_PROGRESS_SESSION:
      _pd_run_controller_set_session_id (self, progress->text);
      _pd_run_controller_emit_session_started (self, progress->text);
      break;

    case PD_ENGINE_PROGRESS_REASONING:
    default:
      break;
    }

  return G_SOURCE_REMOVE;
}

/* PdEngineProgressFunc: on the engine's threads. */
static void
progress_on_worker (PdEngineProgress  kind,
                    const char       *text,
                    gpointer          user_data)
{
  Channel *channel = user_data;
  Progress *progress = g_new0 (Progress, 1);

  progress->channel = _pd_run_channel_ref (channel);
  progress->kind = kind;
  progress->text = g_strdup (text ? text : "");
  g_main_context_invoke_full (channel->context, G_PRIORITY_DEFAULT, progress_on_main,
                              progress, (GDestroyNotify) progress_free);
}

/* --- building an engine (worker thread) ----------------------------------- */

/* The key the keyring keeps for the address the run's requests will go
 * to.  That address is the builder's to resolve (the profile's, else
 * config.json's or OPENAI_BASE_URL's, else the provider's own): looking
 * up by the profile's address alone sent a key kept for the provider's
 * own endpoint to whatever address the environment named. */
static char *
lookup_kept_key (PdEngineBuilder *builder)
{
  const char *provider = pd_engine_builder_get_provider_name (builder);
  g_autoptr(GError) error = NULL;
  g_autofree char *base_url = NULL;
  char *key;

  if (g_strcmp0 (provider, "openai") != 0 && g_strcmp0 (provider, "anthropic") != 0)
    return NULL;
  base_url = pd_engine_builder_dup_base_url (builder, &error);
  if (error != NULL)
    return NULL;  /* the build says why */
  key = pd_secrets_lookup_provider_key_sync (provider, base_url, &error);
  if (error != NULL)
    g_debug ("%s", error->message);
  return key;
}

static void
forget_key (char *key)
{
  if (key != NULL)
    memset (key, 0, strlen (key));
  g_free (key);
}

/* The engine comes from the core builder like every other front end's:
 * the configuration (with the project file of the session's folder, not of
 * wherever the app started) sets the limits, plan mode and tool rules; the
 * profile picks the provider; the window only answers the questions. */
static PdEngine *
build_engine (const PdRunSettings  *settings,
              const char           *env_key,
              const char           *db_path,
              Channel              *channel,
              gboolean              fallback_provider,
              gboolean              report_warnings,
              GError              **error)
{
  PdConfigLoadOptions config_options = PD_CONFIG_LOAD_OPTIONS_INIT;
  g_autoptr(PdConfig) config = NULL;
  g_autoptr(PdEngineBuilder) builder = NULL;
  g_autoptr(GError) build_error = NULL;
  g_autofree char *project_config = NULL;
  PdEngine *engine;

  project_config = g_build_filename (settings->working_directory, "plandeck.json", NULL);
  config_options.project_path = project_config;
  config = pd_config_load (&config_options);

  /* What the CLI prints on stderr, the window shows with the run. */
  if (report_warnings)
    for (const char * const *warning = pd_config_get_warnings (config); *warning != NULL; warning++)
      {
        g_autofree char *text = g_strchomp (g_strdup_printf (_("warning: %s\n"), *warning));

        progress_on_worker (PD_ENGINE_PROGRESS_NOTICE, text, channel);
      }

  builder = pd_engine_builder_new (config);
  pd_engine_builder_set_provider_name (builder, settings->provider);
  pd_engine_builder_set_base_url (builder, settings->base_url);
  pd_engine_builder_set_model (builder, settings->model);
  /* The key a run sends: one typed for this session, else the one the
   * keyring keeps for the address the requests go to, else the profile's
   * environment variable's. */
  if (settings->api_key != NULL)
    pd_engine_builder_set_api_key (builder, settings->api_key);
  else
    {
      char *kept_key = lookup_kept_key (builder);

      pd_engine_builder_set_api_key (builder, kept_key != NULL ? kept_key : env_key);
      forget_key (kept_key);
    }
  /* The profile's key variable never reaches a command the model runs. */
  pd_engine_builder_set_api_key_env (builder, settings->api_key_env);
  pd_engine_builder_set_replay_path (builder, settings->replay_path);
  pd_engine_builder_set_working_directory (builder, settings->working_directory);
  pd_engine_builder_set_planning (builder, settings->planning);
  pd_engine_builder_set_approval (builder, settings->policy, approve_on_worker,
                                  _pd_run_channel_ref (channel), (GDestroyNotify) _pd_run_channel_unref);
  pd_engine_builder_set_review_func (builder, review_on_worker,
                                     _pd_run_channel_ref (channel), (GDestroyNotify) _pd_run_channel_unref);
  pd_engine_builder_set_database_path (builder, db_path);

  engine = pd_engine_builder_build (builder, &build_error);
  if (engine == NULL && fallback_provider && build_error->domain == PD_PROVIDER_ERROR)
    {
      /* Plan mode needs an engine on the session, not a model: any provider does. */
      g_autoptr(PdProvider) fallback = pd_provider_new_for_name ("openai", NULL, NULL, NULL, error);

      if (fallback == NULL)
        return NULL;
      pd_engine_builder_set_provider (builder, fallback);
      g_clear_error (&build_error);
      engine = pd_engine_builder_build (builder, &build_error);
    }
  if (engine == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&build_error));
      return NULL;
    }

  pd_engine_set_progress_func (engine, progress_on_worker, _pd_run_channel_ref (channel),
                               (GDestroyNotify) _pd_run_channel_unref);

  return engine;
}


void
_pd_run_job_free (Job *job)
{
  if (job->env_key != NULL)
    memset (job->env_key, 0, strlen (job->env_key));
  g_free (job->env_key);
  pd_run_settings_free (job->settings);
  g_free (job->db_path);
  _pd_run_channel_unref (job->channel);
  g_clear_object (&job->engine);
  g_free (job->session_id);
  g_free (job->message);
  g_free (job);
}

PdEngine *
_pd_run_job_ensure_engine (Job     *job,
                           GError **error)
{
  if (job->engine == NULL)
    job->engine = build_engine (job->settings, job->env_key, job->db_path, job->channel,
                                job->fallback_provider, !job->fallback_provider, error);
  return job->engine;
}

/* A PdTaskWorker: the job's engine, built in the worker thread. */
gpointer
_pd_run_prepare_worker (gpointer       source_object,
                        gpointer       task_data,
                        GCancellable  *cancellable,
                        GError       **error)
{
  PdEngine *engine = _pd_run_job_ensure_engine (task_data, error);

  return engine != NULL ? g_object_ref (engine) : NULL;
}
