/* pd-run-controller.c: the embedded engine of one window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A window on a local database owns one PdRunController, and the controller
 * owns one PdEngine at a time.  The engine is built by the core
 * PdEngineBuilder in a worker thread (it opens its own connection to the
 * source's database, so the window's source sees its commits like those of
 * any other writer), runs with pd_engine_run_async,
 * and reports on its own threads.  Everything that reaches the controller
 * from those threads goes through a Channel: a reference-counted link to
 * the main context and a weak reference to the controller, dereferenced on
 * the main thread only.
 *
 * Questions for a person (approve this call? approve this plan?) come from
 * tool worker threads and block there until answered.  The worker queues
 * the question on the main context and waits on a condition variable; the
 * main thread shows an AdwMessageDialog and answers.  Stop and dispose
 * answer every open question (deny, dismissed), so no worker waits forever.
 *
 * A window on a `serve` endpoint owns one too, made with
 * pd_run_controller_new_for_remote(): its runs go on there (the server's
 * engine, folder and limits), started and continued through the
 * PdRemoteSource, followed with GET /api/runs/ID, and the question a run
 * waits on is shown in the same dialog as a local run's and answered with
 * POST /api/runs/ID/approval.  Everything is asynchronous on the main
 * context; nothing blocks.  Stop cancels the run there; closing the window
 * leaves it running (its question times out there, denied).
 */
#define G_LOG_DOMAIN "pd-run-controller"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "pd-run-controller-private.h"
#include "pd-task-util.h"
#include "pd-ui-util-private.h"

#define TRANSCRIPT_MAX  (64 * 1024)

/* --- settings ------------------------------------------------------------- */

G_DEFINE_BOXED_TYPE (PdRunSettings, pd_run_settings, pd_run_settings_copy, pd_run_settings_free)

PdRunSettings *
pd_run_settings_new (void)
{
  PdRunSettings *self = g_new0 (PdRunSettings, 1);

  self->provider = g_strdup ("openai");
  self->planning = TRUE;
  self->policy = PD_APPROVAL_POLICY_ASK;

  return self;
}

PdRunSettings *
pd_run_settings_copy (const PdRunSettings *self)
{
  PdRunSettings *copy = g_new0 (PdRunSettings, 1);

  copy->provider = g_strdup (self->provider);
  copy->base_url = g_strdup (self->base_url);
  copy->model = g_strdup (self->model);
  copy->api_key = g_strdup (self->api_key);
  copy->api_key_env = g_strdup (self->api_key_env);
  copy->replay_path = g_strdup (self->replay_path);
  copy->working_directory = g_strdup (self->working_directory);
  copy->planning = self->planning;
  copy->policy = self->policy;

  return copy;
}

void
pd_run_settings_free (PdRunSettings *self)
{
  if (self == NULL)
    return;

  g_free (self->provider);
  g_free (self->base_url);
  g_free (self->model);
  if (self->api_key != NULL)
    memset (self->api_key, 0, strlen (self->api_key));
  g_free (self->api_key);
  g_free (self->api_key_env);
  g_free (self->replay_path);
  g_free (self->working_directory);
  g_free (self);
}

static char *
nonempty (const char *text)
{
  return text != NULL && *text != '\0' ? g_strdup (text) : NULL;
}

/**
 * pd_run_settings_new_from_gsettings:
 * @profile: (nullable): a profile name; %NULL for the default profile
 *
 * Returns: (transfer full): the settings of a provider profile, with the
 *   remembered working directory, planning and approval policy
 */
PdRunSettings *
pd_run_settings_new_from_gsettings (GSettings  *settings,
                                    const char *profile)
{
  PdRunSettings *self = pd_run_settings_new ();
  g_autoptr(GVariant) profiles = g_settings_get_value (settings, "provider-profiles");
  g_autofree char *wanted = profile ? g_strdup (profile) : g_settings_get_string (settings, "default-profile");
  g_autofree char *policy = g_settings_get_string (settings, "last-approval-policy");
  g_autofree char *cwd = g_settings_get_string (settings, "last-working-directory");
  GVariantIter iter;
  const char *name, *kind, *base_url, *model, *env;
  gboolean first = TRUE;

  g_variant_iter_init (&iter, profiles);
  while (g_variant_iter_next (&iter, "(&s&s&s&s&s)", &name, &kind, &base_url, &model, &env))
    {
      if (first || g_strcmp0 (name, wanted) == 0)
        {
          g_free (self->provider);
          self->provider = g_strdup (kind);
          g_free (self->base_url);
          self->base_url = nonempty (base_url);
          g_free (self->model);
          self->model = nonempty (model);
          g_free (self->api_key_env);
          self->api_key_env = nonempty (env);
        }
      if (g_strcmp0 (name, wanted) == 0)
        break;
      first = FALSE;
    }

  self->planning = g_settings_get_boolean (settings, "last-planning");
  pd_approval_policy_from_string (policy, &self->policy);
  self->working_directory = cwd[0] != '\0' ? g_steal_pointer (&cwd) : g_strdup (g_get_home_dir ());

  return self;
}

G_DEFINE_FINAL_TYPE (PdRunController, pd_run_controller, G_TYPE_OBJECT)

enum {
  SESSION_STARTED,
  FINISHED,
  APPROVAL_ASKED,
  APPROVAL_ANSWERED,
  REVIEW_ASKED,
  REVIEW_ENDED,
  UNSENT,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

void
_pd_run_controller_notify (PdRunController     *self,
                           PdRunControllerProp  prop)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop]);
}

/* The run's lasting notice (what a continued session goes on with): it
 * stays on the run bar until the run's first answer, a new run, or the
 * person's dismissal.  As an activity line it was replaced within
 * milliseconds by the first retry's line, unread (tried as a new user
 * would). */
void
_pd_run_controller_set_notice (PdRunController *self,
                               const char      *notice)
{
  if (g_strcmp0 (self->notice, notice) == 0)
    return;
  g_free (self->notice);
  self->notice = g_strdup (notice);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_NOTICE]);
}

void
_pd_run_controller_emit_unsent (PdRunController *self,
                                const char      *session_id,
                                const char      *message)
{
  g_signal_emit (self, signals[UNSENT], 0, session_id, message);
}

void
_pd_run_controller_emit_session_started (PdRunController *self,
                                         const char      *session_id)
{
  g_signal_emit (self, signals[SESSION_STARTED], 0, session_id);
}

/* An approval dialog opened (@tool, question number @serial) or was
 * answered (@tool %NULL). */
void
_pd_run_controller_emit_approval (PdRunController *self,
                                  const char      *tool,
                                  guint            serial)
{
  if (tool != NULL)
    g_signal_emit (self, signals[APPROVAL_ASKED], 0, self->session_id, tool, serial);
  else
    g_signal_emit (self, signals[APPROVAL_ANSWERED], 0, self->session_id);
}

/* A plan review's dialog opened (@asked), or was answered or closed. */
void
_pd_run_controller_emit_review (PdRunController *self,
                                gboolean         asked)
{
  g_signal_emit (self, signals[asked ? REVIEW_ASKED : REVIEW_ENDED], 0, self->session_id);
}

/* The window's source hears of this engine's commits from its events at
 * once (file monitor or not), and no more from an engine replaced. */
static void
pd_run_controller_set_engine (PdRunController *self,
                              PdEngine        *engine)
{
  if (self->engine == engine)
    return;
  if (self->engine != NULL && pd_engine_get_bus (self->engine) != NULL)
    pd_local_source_unfollow_bus (self->source, pd_engine_get_bus (self->engine));
  g_set_object (&self->engine, engine);
  if (engine != NULL && pd_engine_get_bus (engine) != NULL)
    pd_local_source_follow_bus (self->source, pd_engine_get_bus (engine));
}

void
_pd_run_controller_set_session_id (PdRunController *self,
                                   const char      *session_id)
{
  if (g_strcmp0 (self->session_id, session_id) == 0)
    return;

  if (self->session_id != NULL)
    g_hash_table_remove_all (self->always);
  g_free (self->session_id);
  self->session_id = g_strdup (session_id);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION_ID]);
}

void
_pd_run_controller_append_transcript (PdRunController *self,
                                      const char      *text)
{
  g_string_append (self->transcript, text);
  if (self->transcript->len > TRANSCRIPT_MAX)
    g_string_erase (self->transcript, 0, self->transcript->len - TRANSCRIPT_MAX);
}

static Job *
pd_run_controller_new_job (PdRunController     *self,
                           const PdRunSettings *settings)
{
  Job *job = g_new0 (Job, 1);

  if (settings != NULL)
    {
      job->settings = pd_run_settings_copy (settings);
    }
  else
    {
      g_autoptr(GSettings) gsettings = g_settings_new (APP_ID);

      job->settings = pd_run_settings_new_from_gsettings (gsettings, NULL);
    }

  /* The environment is read here, on the main thread (a setenv meanwhile
   * would race with a worker's getenv); the keyring in the worker, which
   * may wait for it.  See _pd_run_job_ensure_engine(). */
  if (job->settings->api_key == NULL && job->settings->api_key_env != NULL)
    job->env_key = nonempty (g_getenv (job->settings->api_key_env));

  job->db_path = self->source ? g_strdup (pd_local_source_get_path (self->source)) : NULL;
  job->channel = _pd_run_channel_ref (self->channel);
  if (settings == NULL && self->engine != NULL)
    job->engine = g_object_ref (self->engine);

  return job;
}

/* --- running -------------------------------------------------------------- */

void
_pd_run_controller_set_running (PdRunController *self,
                                gboolean         running)
{
  if (self->running == running)
    return;

  self->running = running;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUNNING]);
}

void
_pd_run_controller_finish (PdRunController *self,
                           PdRunStatus      status,
                           const char      *message)
{
  _pd_run_controller_dismiss_questions (self);
  g_clear_object (&self->cancellable);
  _pd_run_controller_set_running (self, FALSE);
  g_signal_emit (self, signals[FINISHED], 0, (int) status, message);
}

static void
on_run_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(PdRunController) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdRunResult) run = pd_engine_run_finish (PD_ENGINE (object), result, &error);

  _pd_run_release_application ();
  if (run == NULL)
    {
      _pd_run_controller_finish (self, PD_RUN_FAILED, error->message);
      return;
    }

  if (run->session_id != NULL)
    _pd_run_controller_set_session_id (self, run->session_id);

  switch (run->status)
    {
    case PD_RUN_COMPLETED:
      _pd_run_controller_finish (self, run->status, NULL);
      break;
    case PD_RUN_CANCELLED:
      _pd_run_controller_finish (self, run->status, _("The run was stopped"));
      break;
    case PD_RUN_BUDGET_EXCEEDED:
      _pd_run_controller_finish (self, run->status, _("The run stopped: its budget ran out"));
      break;
    case PD_RUN_INCOMPLETE:
      _pd_run_controller_finish (self, run->status,
                                _("The answer was cut off at the model's output limit: it is incomplete"));
      break;
    case PD_RUN_REFUSED:
      {
        /* The explanation is the server's (or the model's) text: shown plain. */
        g_autofree char *message = g_strdup_printf (_("Refused — %s. Continue the session with a new message."),
                                                    run->error_message ? run->error_message : "");
        _pd_run_controller_finish (self, run->status, message);
      }
      break;
    case PD_RUN_FAILED:
    default:
      _pd_run_controller_finish (self, run->status,
                                run->error_message ? run->error_message : _("The run failed"));
      break;
    }
}

static void
on_prepared (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  PdRunController *self = PD_RUN_CONTROLLER (object);
  Job *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  g_autoptr(PdEngine) engine = g_task_propagate_pointer (G_TASK (result), &error);

  if (engine == NULL)
    {
      _pd_run_controller_finish (self, PD_RUN_FAILED, error->message);
      return;
    }

  if (engine != self->engine)
    {
      pd_run_settings_free (self->engine_settings);
      self->engine_settings = pd_run_settings_copy (job->settings);
    }
  pd_run_controller_set_engine (self, engine);

  if (g_cancellable_is_cancelled (self->cancellable))
    {
      _pd_run_controller_finish (self, PD_RUN_CANCELLED, _("The run was stopped"));
      return;
    }

  _pd_run_hold_application ();
  pd_engine_run_async (engine, job->session_id, job->message, self->cancellable,
                       on_run_done, g_object_ref (self));
}

static void
pd_run_controller_start_job (PdRunController     *self,
                             const PdRunSettings *settings,
                             const char          *session_id,
                             const char          *message)
{
  g_autoptr(GTask) task = NULL;
  Job *job = pd_run_controller_new_job (self, settings);

  job->session_id = g_strdup (session_id);
  job->message = g_strdup (message);

  task = g_task_new (self, self->cancellable, on_prepared, NULL);
  g_task_set_source_tag (task, pd_run_controller_start_job);
  g_task_set_check_cancellable (task, FALSE);
  g_task_set_task_data (task, job, (GDestroyNotify) _pd_run_job_free);
  pd_task_run_worker (task, _pd_run_prepare_worker, g_object_unref);
}

typedef struct
{
  PdRunController *self;
  char            *message;
} ContinueData;

static gboolean
same_text (const char *a,
           const char *b)
{
  return g_strcmp0 (a != NULL && *a != '\0' ? a : NULL, b != NULL && *b != '\0' ? b : NULL) == 0;
}

/* The provider profile a stored session goes on with: the one with its
 * provider and model, else one with its provider, else the default; in
 * the last two cases *@notice says so.  It went on with the default
 * profile's provider, another than the one it ran with, without a word
 * (tried as a new user would). */
static PdRunSettings *
settings_for_session (const PdSessionInfo  *info,
                      char                **notice)
{
  g_autoptr(GSettings) gsettings = g_settings_new (APP_ID);
  g_autoptr(GVariant) profiles = g_settings_get_value (gsettings, "provider-profiles");
  g_autofree char *same_provider = NULL;
  PdRunSettings *settings;
  GVariantIter iter;
  const char *name, *kind, *base_url, *model, *env;

  *notice = NULL;
  if (info->provider == NULL || *info->provider == '\0')
    return pd_run_settings_new_from_gsettings (gsettings, NULL);

  g_variant_iter_init (&iter, profiles);
  while (g_variant_iter_next (&iter, "(&s&s&s&s&s)", &name, &kind, &base_url, &model, &env))
    {
      if (g_strcmp0 (kind, info->provider) != 0)
        continue;
      if (same_text (model, info->model))
        return pd_run_settings_new_from_gsettings (gsettings, name);
      if (same_provider == NULL)
        same_provider = g_strdup (name);
    }

  settings = pd_run_settings_new_from_gsettings (gsettings, same_provider);
  if (same_provider == NULL || !same_text (settings->model, info->model))
    {
      /* The session row's names are anyone's text (a database another
       * program wrote): each on one line, its controls shown, in an
       * isolate, so none can reorder or break the sentence around it. */
      g_autofree char *ran_provider = _pd_isolated_line (info->provider);
      g_autofree char *ran_model = _pd_isolated_line (info->model != NULL && *info->model != '\0' ? info->model : "-");
      g_autofree char *next_provider = _pd_isolated_line (settings->provider);
      g_autofree char *next_model = _pd_isolated_line (settings->model != NULL ? settings->model
                                                                             : _("the provider’s default model"));

      /* Translators: the first two %s are the provider and model a session
       * ran with, the last two those it goes on with (e.g. "openai", "llama3.1") */
      *notice = g_strdup_printf (_("This session ran with %s (%s); it goes on with %s (%s)"),
                                 ran_provider, ran_model, next_provider, next_model);
    }
  return settings;
}

static void
on_continued_session (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  ContinueData *data = user_data;
  g_autoptr(PdRunController) self = data->self;
  g_autofree char *message = data->message;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionInfo) info = pd_source_get_session_finish (PD_SOURCE (object), result, &error);
  g_autoptr(PdRunSettings) settings = NULL;
  g_autofree char *notice = NULL;

  g_free (data);
  if (g_cancellable_is_cancelled (self->cancellable))
    {
      _pd_run_controller_finish (self, PD_RUN_CANCELLED, _("The run was stopped"));
      return;
    }
  if (info == NULL)
    {
      _pd_run_controller_finish (self, PD_RUN_FAILED, error->message);
      return;
    }

  settings = settings_for_session (info, &notice);
  if (notice != NULL)
    {
      /* On the run bar until the run's first answer, and in the run's log. */
      _pd_run_controller_set_notice (self, notice);
      _pd_run_controller_append_transcript (self, notice);
      _pd_run_controller_append_transcript (self, "\n");
    }
  /* The engine of the last run, when it was built with these. */
  if (self->engine != NULL && self->engine_settings != NULL &&
      g_strcmp0 (self->engine_settings->provider, settings->provider) == 0 &&
      same_text (self->engine_settings->model, settings->model) &&
      same_text (self->engine_settings->base_url, settings->base_url))
    pd_run_controller_start_job (self, NULL, info->id, message);
  else
    pd_run_controller_start_job (self, settings, info->id, message);
}

static gboolean
pd_run_controller_begin (PdRunController      *self,
                         const PdRunSettings  *settings,
                         const char           *session_id,
                         const char           *message,
                         GError              **error)
{
  if (self->running)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_BUSY,
                           _("A run is going on in this window; stop it first"));
      return FALSE;
    }

  _pd_run_controller_set_session_id (self, session_id);
  g_string_truncate (self->status_text, 0);
  self->status_stale = FALSE;
  g_string_truncate (self->transcript, 0);
  g_clear_pointer (&self->activity, g_free);
  g_clear_pointer (&self->activity_tool, g_free);
  _pd_run_controller_set_notice (self, NULL);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATUS_TEXT]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ACTIVITY]);

  self->cancellable = g_cancellable_new ();
  _pd_run_controller_set_running (self, TRUE);

  if (self->remote != NULL)
    {
      _pd_run_controller_begin_remote (self, session_id, message);
      return TRUE;
    }

  /* A stored session goes on with what it ran with: asked of the source
   * first (a worker's read), then started. */
  if (settings == NULL && session_id != NULL && self->source != NULL)
    {
      ContinueData *data = g_new0 (ContinueData, 1);

      data->self = g_object_ref (self);
      data->message = g_strdup (message);
      pd_source_get_session_async (PD_SOURCE (self->source), session_id, self->cancellable,
                                   on_continued_session, data);
      return TRUE;
    }

  pd_run_controller_start_job (self, settings, session_id, message);
  return TRUE;
}

/**
 * pd_run_controller_start:
 * @settings: the provider, folder and policies of the new session
 * @message: the task; "/plan TASK" starts in plan mode
 *
 * Starts a new session.  ::session-started tells its id once the engine
 * made it; ::finished tells how the run ended.
 *
 * Returns: %FALSE when a run is going on already
 */
gboolean
pd_run_controller_start (PdRunController      *self,
                         const PdRunSettings  *settings,
                         const char           *message,
                         GError              **error)
{
  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), FALSE);
  g_return_val_if_fail (settings != NULL || self->remote != NULL, FALSE);
  g_return_val_if_fail (message != NULL, FALSE);

  if (!pd_run_controller_begin (self, settings, NULL, message, error))
    return FALSE;
  /* Its title until the session is stored and listed: the task, without
   * the "/plan" that only chose the mode. */
  g_free (self->task);
  self->task = g_strstrip (g_strdup (g_str_has_prefix (message, "/plan ") ? message + strlen ("/plan ")
                                     : g_strcmp0 (message, "/plan") == 0 ? "" : message));
  return TRUE;
}

/**
 * pd_run_controller_continue:
 * @message: the new message; "/plan", "/plan off" and "/plan TEXT" too
 *
 * Resumes a stored session with the engine of the last run (or one made
 * from the default provider profile).
 */
gboolean
pd_run_controller_continue (PdRunController  *self,
                            const char       *session_id,
                            const char       *message,
                            GError          **error)
{
  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), FALSE);
  g_return_val_if_fail (session_id != NULL, FALSE);

  if (!pd_run_controller_begin (self, NULL, session_id, message, error))
    return FALSE;
  /* A stored session has its title. */
  g_clear_pointer (&self->task, g_free);
  return TRUE;
}

/**
 * pd_run_controller_stop:
 *
 * Cancels the run; it ends after the current step, and open questions are
 * answered no.
 */
void
pd_run_controller_stop (PdRunController *self)
{
  g_return_if_fail (PD_IS_RUN_CONTROLLER (self));

  if (self->remote != NULL && self->running)
    _pd_run_controller_stop_remote (self);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  _pd_run_controller_dismiss_questions (self);
}

/**
 * pd_run_controller_cancel_local:
 *
 * As pd_run_controller_stop() for a run of this process (its window
 * closes); a run on an endpoint goes on there.
 */
void
pd_run_controller_cancel_local (PdRunController *self)
{
  g_return_if_fail (PD_IS_RUN_CONTROLLER (self));

  if (self->remote == NULL)
    pd_run_controller_stop (self);
}

/* --- plan mode ------------------------------------------------------------ */

static void
plan_mode_thread (GTask        *task,
                  gpointer      source_object,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  Job *job = task_data;
  GError *error = NULL;

  if (_pd_run_job_ensure_engine (job, &error) == NULL)
    {
      g_task_return_error (task, error);
      return;
    }

  if (g_task_get_source_tag (task) == pd_run_controller_get_plan_mode_async)
    {
      gboolean pending = FALSE;
      gboolean active = pd_engine_get_plan_mode (job->engine, job->session_id, &pending);

      job->active = pending;
      g_task_return_boolean (task, active);
    }
  else
    {
      PdPlanModeSetResult result = pd_engine_set_plan_mode (job->engine, job->session_id,
                                                            job->active, &error);

      if (error != NULL)
        g_task_return_error (task, error);
      else
        g_task_return_int (task, result);
    }
}

static void
pd_run_controller_plan_mode_job (PdRunController     *self,
                                 gpointer             tag,
                                 const char          *session_id,
                                 gboolean             active,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  Job *job;

  if (self->remote != NULL)
    {
      /* Plan mode is the engine's, and the engine is the server's. */
      g_task_set_source_tag (task, tag);
      g_task_set_task_data (task, g_new0 (Job, 1), g_free);
      g_task_return_new_error (task, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED,
                               _("Plan mode of a session on an endpoint is set there"));
      return;
    }

  job = pd_run_controller_new_job (self, NULL);
  job->session_id = g_strdup (session_id);
  job->active = active;
  job->fallback_provider = TRUE;

  g_task_set_source_tag (task, tag);
  g_task_set_task_data (task, job, (GDestroyNotify) _pd_run_job_free);
  g_task_run_in_thread (task, plan_mode_thread);
}

/* Adopts an engine a plan-mode job had to build. */
static void
adopt_engine (PdRunController *self,
              GAsyncResult    *result)
{
  Job *job = g_task_get_task_data (G_TASK (result));

  if (self->engine == NULL && job != NULL && job->engine != NULL)
    pd_run_controller_set_engine (self, job->engine);
}

void
pd_run_controller_get_plan_mode_async (PdRunController     *self,
                                       const char          *session_id,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data)
{
  g_return_if_fail (PD_IS_RUN_CONTROLLER (self));
  g_return_if_fail (session_id != NULL);

  pd_run_controller_plan_mode_job (self, pd_run_controller_get_plan_mode_async, session_id,
                                   FALSE, cancellable, callback, user_data);
}

/**
 * pd_run_controller_get_plan_mode_finish:
 * @pending: (out) (optional): a selection waits for the next step boundary
 *
 * Returns: whether plan mode is in force for the session
 */
gboolean
pd_run_controller_get_plan_mode_finish (PdRunController  *self,
                                        GAsyncResult     *result,
                                        gboolean         *pending,
                                        GError          **error)
{
  Job *job;

  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  adopt_engine (self, result);
  job = g_task_get_task_data (G_TASK (result));
  if (pending != NULL)
    *pending = job->active;

  return g_task_propagate_boolean (G_TASK (result), error);
}

void
pd_run_controller_set_plan_mode_async (PdRunController     *self,
                                       const char          *session_id,
                                       gboolean             active,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data)
{
  g_return_if_fail (PD_IS_RUN_CONTROLLER (self));
  g_return_if_fail (session_id != NULL);

  pd_run_controller_plan_mode_job (self, pd_run_controller_set_plan_mode_async, session_id,
                                   active, cancellable, callback, user_data);
}

/**
 * pd_run_controller_set_plan_mode_finish:
 *
 * Returns: committed (at once), queued (at the next step boundary of the
 *   running turn), cancelled (a queued change taken back) or noop
 */
PdPlanModeSetResult
pd_run_controller_set_plan_mode_finish (PdRunController  *self,
                                        GAsyncResult     *result,
                                        GError          **error)
{
  g_autoptr(GError) local_error = NULL;
  gssize value;

  g_return_val_if_fail (g_task_is_valid (result, self), PD_PLAN_MODE_NOOP);

  adopt_engine (self, result);
  value = g_task_propagate_int (G_TASK (result), &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return PD_PLAN_MODE_NOOP;
    }

  return (PdPlanModeSetResult) value;
}

/* --- GObject -------------------------------------------------------------- */

static void
pd_run_controller_dispose (GObject *object)
{
  PdRunController *self = PD_RUN_CONTROLLER (object);

  /* A remote run goes on on its server: only our following of it ends. */
  if (self->remote != NULL)
    g_signal_handlers_disconnect_by_data (self->remote, self);
  g_cancellable_cancel (self->remote_calls);
  g_clear_handle_id (&self->remote_poll, g_source_remove);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  _pd_run_controller_dismiss_questions (self);
  g_clear_weak_pointer (&self->parent);
  pd_run_controller_set_engine (self, NULL);

  G_OBJECT_CLASS (pd_run_controller_parent_class)->dispose (object);
}

static void
pd_run_controller_finalize (GObject *object)
{
  PdRunController *self = PD_RUN_CONTROLLER (object);

  g_clear_object (&self->source);
  g_clear_object (&self->remote);
  g_clear_object (&self->remote_calls);
  g_clear_pointer (&self->remote_run, pd_remote_run_free);
  g_clear_pointer (&self->remote_asked, g_free);
  g_clear_pointer (&self->remote_message, g_free);
  g_clear_pointer (&self->notice, g_free);
  g_clear_object (&self->engine);
  g_clear_pointer (&self->engine_settings, pd_run_settings_free);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->channel, _pd_run_channel_unref);
  g_clear_pointer (&self->session_id, g_free);
  g_clear_pointer (&self->task, g_free);
  g_clear_pointer (&self->activity, g_free);
  g_clear_pointer (&self->activity_tool, g_free);
  g_string_free (self->status_text, TRUE);
  g_string_free (self->transcript, TRUE);
  g_hash_table_unref (self->always);
  g_ptr_array_unref (self->questions);

  G_OBJECT_CLASS (pd_run_controller_parent_class)->finalize (object);
}

static void
pd_run_controller_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  PdRunController *self = PD_RUN_CONTROLLER (object);

  switch (prop_id)
    {
    case PROP_RUNNING:
      g_value_set_boolean (value, self->running);
      break;

    case PROP_SESSION_ID:
      g_value_set_string (value, self->session_id);
      break;

    case PROP_STATUS_TEXT:
      g_value_set_string (value, self->status_text->str);
      break;

    case PROP_ACTIVITY:
      g_value_set_string (value, self->activity);
      break;

    case PROP_NOTICE:
      g_value_set_string (value, self->notice);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_run_controller_class_init (PdRunControllerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = pd_run_controller_dispose;
  object_class->finalize = pd_run_controller_finalize;
  object_class->get_property = pd_run_controller_get_property;

  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SESSION_ID] =
    g_param_spec_string ("session-id", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The assistant's text of the current turn, streaming (plain text). */
  properties[PROP_STATUS_TEXT] =
    g_param_spec_string ("status-text", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The latest tool call or its outcome (plain text). */
  properties[PROP_ACTIVITY] =
    g_param_spec_string ("activity", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /* What the run goes on with when it is not what the session ran with
   * (plain text); until the run's first answer or its dismissal. */
  properties[PROP_NOTICE] =
    g_param_spec_string ("notice", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * PdRunController::session-started:
   * @session_id: the session of the run
   */
  signals[SESSION_STARTED] =
    g_signal_new ("session-started", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * PdRunController::finished:
   * @status: a #PdRunStatus
   * @message: (nullable): why it did not complete, for a person
   */
  signals[FINISHED] =
    g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_STRING);

  /**
   * PdRunController::approval-asked:
   * @session_id: (nullable): the session of the run that waits
   * @tool: the tool it wants to use
   * @serial: the question's number, which an answer from outside the
   *   dialog names (pd_run_controller_answer_approval())
   */
  signals[APPROVAL_ASKED] =
    g_signal_new ("approval-asked", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 3, G_TYPE_STRING, G_TYPE_STRING, G_TYPE_UINT);

  /**
   * PdRunController::approval-answered:
   * @session_id: (nullable): the session of the run that asked
   */
  signals[APPROVAL_ANSWERED] =
    g_signal_new ("approval-answered", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * PdRunController::review-asked:
   * @session_id: (nullable): the session whose plan waits for a review
   *
   * Plan mode's review dialog opened: the run waits for the user.
   */
  signals[REVIEW_ASKED] =
    g_signal_new ("review-asked", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * PdRunController::review-ended:
   * @session_id: (nullable): the session of the review
   *
   * The review was answered, or its dialog closed with the run.
   */
  signals[REVIEW_ENDED] =
    g_signal_new ("review-ended", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  /**
   * PdRunController::unsent:
   * @session_id: (nullable): the session the message was for
   * @message: the message
   *
   * A run could not be started with @message (the endpoint did not take
   * it): the message is the person's to send again, not lost.
   */
  signals[UNSENT] =
    g_signal_new ("unsent", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);
}

static void
pd_run_controller_init (PdRunController *self)
{
  self->channel = _pd_run_channel_new (self);
  self->status_text = g_string_new (NULL);
  self->transcript = g_string_new (NULL);
  self->always = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->questions = g_ptr_array_new_with_free_func ((GDestroyNotify) _pd_run_question_unref);
  self->remote_calls = g_cancellable_new ();
}

/**
 * pd_run_controller_new:
 * @source: the window's database
 * @parent: (nullable): the window questions are asked over
 *
 * Returns: (transfer full): a controller with no engine yet
 */
PdRunController *
pd_run_controller_new (PdLocalSource *source,
                       GtkWindow     *parent)
{
  PdRunController *self;

  g_return_val_if_fail (PD_IS_LOCAL_SOURCE (source), NULL);

  self = g_object_new (PD_TYPE_RUN_CONTROLLER, NULL);
  self->source = g_object_ref (source);
  g_set_weak_pointer (&self->parent, parent);

  return self;
}

/**
 * pd_run_controller_new_for_remote:
 * @source: the window's endpoint
 * @parent: (nullable): the window questions are asked over
 *
 * Runs on the endpoint: pd_run_controller_start() (its @settings are the
 * server's to choose, and ignored) and pd_run_controller_continue() start
 * them there, questions come to the same dialog, stop cancels there.
 *
 * Returns: (transfer full): a controller for @source's runs
 */
PdRunController *
pd_run_controller_new_for_remote (PdRemoteSource *source,
                                  GtkWindow      *parent)
{
  PdRunController *self;

  g_return_val_if_fail (PD_IS_REMOTE_SOURCE (source), NULL);

  self = g_object_new (PD_TYPE_RUN_CONTROLLER, NULL);
  self->remote = g_object_ref (source);
  _pd_run_controller_watch_remote (self);
  g_set_weak_pointer (&self->parent, parent);

  return self;
}

gboolean
pd_run_controller_is_remote (PdRunController *self)
{
  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), FALSE);
  return self->remote != NULL;
}

gboolean
pd_run_controller_get_running (PdRunController *self)
{
  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), FALSE);
  return self->running;
}

const char *
pd_run_controller_get_session_id (PdRunController *self)
{
  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), NULL);
  return self->session_id;
}

/**
 * pd_run_controller_get_task:
 *
 * Returns: (nullable): the task a new session was started with (without
 *   "/plan"), what names it until it is listed; %NULL for a session
 *   continued
 */
const char *
pd_run_controller_get_task (PdRunController *self)
{
  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), NULL);
  return self->task != NULL && self->task[0] != '\0' ? self->task : NULL;
}

const char *
pd_run_controller_get_status_text (PdRunController *self)
{
  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), NULL);
  return self->status_text->str;
}

const char *
pd_run_controller_get_activity (PdRunController *self)
{
  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), NULL);
  return self->activity;
}

/**
 * pd_run_controller_get_notice:
 *
 * Returns: (nullable): what the run goes on with, when it is not what its
 *   session ran with; until the run's first answer or its dismissal
 */
const char *
pd_run_controller_get_notice (PdRunController *self)
{
  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), NULL);
  return self->notice;
}

/* The person read the notice: it goes. */
void
pd_run_controller_dismiss_notice (PdRunController *self)
{
  g_return_if_fail (PD_IS_RUN_CONTROLLER (self));
  _pd_run_controller_set_notice (self, NULL);
}

/* Everything the current run said and did, plain text (tests, copy). */
const char *
pd_run_controller_get_transcript (PdRunController *self)
{
  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), NULL);
  return self->transcript->str;
}
