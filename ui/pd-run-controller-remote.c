/* pd-run-controller-remote.c: runs that go on at a serve endpoint, followed from the main thread
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-run-controller"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-event.h"
#include "pd-exit-plan-mode-tool.h"
#include "pd-run-controller-private.h"

/* How often a remote run is asked how it goes (GET /api/runs/ID).  While
 * the endpoint's event stream is open it tells when the run asks, is
 * answered or ends, and the run is asked then; else at most every
 * REMOTE_FALLBACK_MS, for an event lost.  Without a stream (odek), every
 * REMOTE_POLL_MS.  Between the run's end said on the stream and its record
 * saying so (serve sets it after the engine's last event), and for the
 * first look, REMOTE_SOON_MS.  Asked every 250 ms whatever the stream
 * said, a followed run cost its endpoint four requests a second. */
#define REMOTE_SOON_MS      250
#define REMOTE_POLL_MS      1000
#define REMOTE_FALLBACK_MS  5000

/* --- remote runs (main thread, asynchronous) ------------------------------ */

static void pd_run_controller_poll_remote_later (PdRunController *self);
static void pd_run_controller_poll_remote_in (PdRunController *self,
                                              guint            ms);
static void on_remote_answered (GObject      *object,
                                GAsyncResult *result,
                                gpointer      user_data);

static void
pd_run_controller_set_activity (PdRunController *self,
                                const char      *activity)
{
  if (g_strcmp0 (self->activity, activity) == 0)
    return;
  g_free (self->activity);
  self->activity = g_strdup (activity);
  _pd_run_controller_notify (self, PROP_ACTIVITY);
}

static void
pd_run_controller_finish_remote (PdRunController   *self,
                                 const PdRemoteRun *run)
{
  g_clear_handle_id (&self->remote_poll, g_source_remove);
  if (run->result != NULL)
    {
      /* The server's answer (model text): plain text in the run bar. */
      g_string_assign (self->status_text, run->result);
      _pd_run_controller_append_transcript (self, run->result);
      _pd_run_controller_notify (self, PROP_STATUS_TEXT);
    }

  if (g_strcmp0 (run->status, "completed") == 0)
    _pd_run_controller_finish (self, PD_RUN_COMPLETED, NULL);
  else if (g_strcmp0 (run->status, "cancelled") == 0)
    _pd_run_controller_finish (self, PD_RUN_CANCELLED, _("The run was stopped"));
  else
    _pd_run_controller_finish (self, PD_RUN_FAILED, run->error ? run->error : _("The run failed"));
}

/* The question on screen is for an approval the run no longer waits on
 * (answered elsewhere, timed out, the run cancelled): it goes. */
static void
pd_run_controller_close_stale_remote_questions (PdRunController   *self,
                                                const PdRemoteRun *run)
{
  for (guint i = self->questions->len; i > 0; i--)
    {
      Question *question = g_ptr_array_index (self->questions, i - 1);

      if (question->remote_run != NULL && g_strcmp0 (question->remote_run->approval_id, run->approval_id) != 0)
        {
          _pd_run_question_answer (question, FALSE, NULL);
          _pd_run_controller_close_question (self, question);
        }
    }
}

static void
question_unref_closure (gpointer  data,
                        GClosure *closure)
{
  _pd_run_question_unref (data);
}

/* After the dialog's own handler took the answer: the endpoint is told,
 * Keep Planning with the feedback typed.  Closing the dialog turns the plan
 * down without words (the endpoint has no "dismissed"). */
static void
on_remote_review_response (AdwMessageDialog *dialog,
                           const char       *response,
                           Question         *question)
{
  g_autoptr(PdRunController) self = g_weak_ref_get (&question->channel->controller);
  g_autofree char *feedback = NULL;
  int answer;

  if (self == NULL || question->remote_run == NULL)
    return;
  g_mutex_lock (&question->mutex);
  answer = question->answered ? question->answer : PD_PLAN_REVIEW_DISMISSED;
  feedback = g_strdup (question->feedback);
  g_mutex_unlock (&question->mutex);

  pd_run_controller_set_activity (self, answer == PD_PLAN_REVIEW_APPROVE ? _("Plan approved") : _("Keep planning"));
  pd_remote_source_answer_review_async (self->remote, question->remote_run, answer == PD_PLAN_REVIEW_APPROVE,
                                        answer == PD_PLAN_REVIEW_KEEP_PLANNING ? feedback : NULL,
                                        self->remote_calls, on_remote_answered, g_object_ref (self));
}

/* exit_plan_mode's question: the plan review dialog local runs show. */
static void
pd_run_controller_ask_remote_review (PdRunController   *self,
                                     const PdRemoteRun *run)
{
  Question *question;

  pd_run_controller_set_activity (self, _("Waiting for the plan’s review"));
  question = _pd_run_question_new (QUESTION_REVIEW, self->channel, run->approval_tool,
                                   run->approval_command ? run->approval_command : "");
  question->remote_run = pd_remote_run_copy (run);
  g_ptr_array_add (self->questions, question);
  _pd_run_controller_ask_review (self, question);
  if (question->dialog != NULL)
    g_signal_connect_data (question->dialog, "response", G_CALLBACK (on_remote_review_response),
                           _pd_run_question_ref (question), question_unref_closure, 0);
}

static void
pd_run_controller_ask_remote (PdRunController   *self,
                              const PdRemoteRun *run)
{
  g_autofree char *waiting = NULL;
  Question *question;

  g_free (self->remote_asked);
  self->remote_asked = g_strdup (run->approval_id);

  if (g_strcmp0 (run->approval_tool, "exit_plan_mode") == 0)
    {
      pd_run_controller_ask_remote_review (self, run);
      return;
    }

  /* "Always for This Session" was given on what the person read: a
   * masked or escaped command they never saw whole is asked again. */
  if (g_hash_table_contains (self->always, run->approval_tool) && !pd_remote_run_approval_is_guarded (run))
    {
      _pd_run_controller_answer_remote (self, run, TRUE);
      return;
    }

  /* Translators: %s is the name of a tool, such as shell */
  waiting = g_strdup_printf (_("Waiting for approval: %s"), run->approval_tool);
  pd_run_controller_set_activity (self, waiting);

  question = _pd_run_question_new (QUESTION_APPROVAL, self->channel, run->approval_tool, run->approval_command);
  question->preview = g_strdup (run->approval_preview);
  question->remote_run = pd_remote_run_copy (run);
  g_ptr_array_add (self->questions, question);
  _pd_run_controller_ask_approval (self, question);
}

static void
on_remote_run (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(PdRunController) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdRemoteRun) run = pd_remote_source_get_run_finish (PD_REMOTE_SOURCE (object), result, &error);
  gboolean again = self->remote_ask_again;

  self->remote_asking = FALSE;
  self->remote_ask_again = FALSE;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || !self->running)
    return;

  if (run == NULL)
    {
      if (g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED))
        {
          g_autoptr(PdRemoteRun) lost = pd_remote_run_copy (self->remote_run);

          g_free (lost->status);
          lost->status = g_strdup ("failed");
          g_free (lost->error);
          lost->error = g_strdup (error->message);
          pd_run_controller_finish_remote (self, lost);
          return;
        }
      /* Offline for a moment, or rate limited: the run goes on there; say
       * so and ask again. */
      pd_run_controller_set_activity (self, error->message);
      pd_run_controller_poll_remote_later (self);
      return;
    }

  pd_remote_run_free (self->remote_run);
  self->remote_run = pd_remote_run_copy (run);
  if (run->session_id != NULL && g_strcmp0 (run->session_id, self->session_id) != 0)
    {
      _pd_run_controller_set_session_id (self, run->session_id);
      _pd_run_controller_emit_session_started (self, run->session_id);
    }

  pd_run_controller_close_stale_remote_questions (self, run);
  if (pd_remote_run_is_over (run))
    {
      pd_run_controller_finish_remote (self, run);
      return;
    }

  if (run->approval_id != NULL && g_strcmp0 (run->approval_id, self->remote_asked) != 0)
    pd_run_controller_ask_remote (self, run);
  else if (run->approval_id == NULL)
    pd_run_controller_set_activity (self, _("Running on the endpoint"));

  /* An event came while this was asked: what it told may be newer. */
  if (again)
    pd_run_controller_poll_remote_in (self, 0);
  else
    pd_run_controller_poll_remote_later (self);
}

static gboolean
poll_remote (gpointer data)
{
  PdRunController *self = data;

  self->remote_poll = 0;
  if (self->remote_asking)
    {
      self->remote_ask_again = TRUE;
      return G_SOURCE_REMOVE;
    }
  self->remote_asking = TRUE;
  pd_remote_source_get_run_async (self->remote, self->remote_run->run_id, self->remote_calls,
                                  on_remote_run, g_object_ref (self));
  return G_SOURCE_REMOVE;
}

static void
pd_run_controller_poll_remote_in (PdRunController *self,
                                  guint            ms)
{
  g_clear_handle_id (&self->remote_poll, g_source_remove);
  self->remote_poll = g_timeout_add (ms, poll_remote, self);
}

static void
pd_run_controller_poll_remote_later (PdRunController *self)
{
  guint ms = REMOTE_POLL_MS;

  if (self->remote_ending)
    ms = REMOTE_SOON_MS;
  else if (pd_remote_source_is_streaming (self->remote))
    ms = REMOTE_FALLBACK_MS;
  if (self->remote_poll == 0)
    self->remote_poll = g_timeout_add (ms, poll_remote, self);
}

/* What the endpoint's stream says of the run followed: it asks, it was
 * answered (here or elsewhere), it ended.  Asked at once. */
static void
on_remote_event (PdRunController *self,
                 PdEvent         *event)
{
  const char *type = pd_event_get_event_type (event);
  const char *run_id = pd_event_get_run_id (event);
  const char *session_id = pd_event_get_session_id (event);
  gboolean ends;

  if (!self->running || self->remote_run == NULL ||
      (g_strcmp0 (run_id, self->remote_run->run_id) != 0 &&
       (session_id == NULL || g_strcmp0 (session_id, self->remote_run->session_id) != 0)))
    return;
  ends = g_strcmp0 (type, PD_EVENT_RUN_COMPLETED) == 0 || g_strcmp0 (type, PD_EVENT_RUN_FAILED) == 0;
  if (!ends && g_strcmp0 (type, PD_EVENT_APPROVAL_REQUESTED) != 0 && g_strcmp0 (type, PD_EVENT_APPROVAL_RESOLVED) != 0)
    return;
  self->remote_ending |= ends;
  if (self->remote_asking)
    self->remote_ask_again = TRUE;
  else
    pd_run_controller_poll_remote_in (self, 0);
}

void
_pd_run_controller_watch_remote (PdRunController *self)
{
  g_signal_connect_object (self->remote, "event", G_CALLBACK (on_remote_event), self, G_CONNECT_SWAPPED);
}

/* A call the endpoint did not take (an answer timed out there, or the
 * endpoint takes no answers; a stop it refused): the run bar says why,
 * the run goes on. */
static void
tell_refused (PdRunController *self,
              gboolean         taken,
              const GError    *error)
{
  if (!taken && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    pd_run_controller_set_activity (self, error->message);
}

static void
on_remote_answered (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(PdRunController) self = user_data;
  g_autoptr(GError) error = NULL;
  gboolean taken = pd_remote_source_answer_approval_finish (PD_REMOTE_SOURCE (object), result, &error);

  tell_refused (self, taken, error);
}

void
_pd_run_controller_answer_remote (PdRunController   *self,
                                  const PdRemoteRun *run,
                                  gboolean           allow)
{
  pd_run_controller_set_activity (self, allow ? _("Approved") : _("Denied"));
  pd_remote_source_answer_approval_async (self->remote, run, allow, self->remote_calls,
                                          on_remote_answered, g_object_ref (self));
}

static void
on_remote_cancelled (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(PdRunController) self = user_data;
  g_autoptr(GError) error = NULL;
  gboolean taken = pd_remote_source_cancel_finish (PD_REMOTE_SOURCE (object), result, &error);

  tell_refused (self, taken, error);
}

/* Stop: the server cancels the run (and its question); the run is
 * followed until it says it ended. */
void
_pd_run_controller_stop_remote (PdRunController *self)
{
  const char *session_id = self->remote_run ? self->remote_run->session_id : NULL;

  if (self->remote_run == NULL)
    {
      self->remote_stop = TRUE;
      return;
    }
  if (session_id == NULL)
    return;
  pd_run_controller_set_activity (self, _("Stopping…"));
  pd_remote_source_cancel_async (self->remote, session_id, self->remote_calls,
                                 on_remote_cancelled, g_object_ref (self));
}

static void
on_remote_started (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(PdRunController) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdRemoteRun) run = pd_remote_source_start_run_finish (PD_REMOTE_SOURCE (object), result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (run == NULL)
    {
      /* The endpoint did not take it (gone, refused): the message goes
       * back to the person, who typed it (tried as a new user would: sent
       * while serve was stopped, it was gone with the error). */
      g_autofree char *message = g_steal_pointer (&self->remote_message);
      g_autofree char *session_id = g_strdup (self->session_id);

      _pd_run_controller_finish (self, PD_RUN_FAILED, error->message);
      if (message != NULL)
        _pd_run_controller_emit_unsent (self, session_id, message);
      return;
    }

  g_clear_pointer (&self->remote_message, g_free);
  self->remote_run = pd_remote_run_copy (run);
  if (run->session_id != NULL && g_strcmp0 (run->session_id, self->session_id) != 0)
    {
      _pd_run_controller_set_session_id (self, run->session_id);
      _pd_run_controller_emit_session_started (self, run->session_id);
    }
  pd_run_controller_set_activity (self, _("Running on the endpoint"));
  if (self->remote_stop)
    _pd_run_controller_stop_remote (self);
  pd_run_controller_poll_remote_in (self, REMOTE_SOON_MS);
}

void
_pd_run_controller_begin_remote (PdRunController *self,
                                 const char      *session_id,
                                 const char      *message)
{
  g_clear_pointer (&self->remote_run, pd_remote_run_free);
  g_clear_pointer (&self->remote_asked, g_free);
  g_free (self->remote_message);
  self->remote_message = g_strdup (message);
  self->remote_stop = FALSE;
  self->remote_ending = FALSE;
  pd_run_controller_set_activity (self, _("Starting on the endpoint…"));
  pd_remote_source_start_run_async (self->remote, session_id, message, self->remote_calls,
                                    on_remote_started, g_object_ref (self));
}

static void
on_remote_found (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(PdRunController) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdRemoteRun) run = pd_remote_source_find_run_finish (PD_REMOTE_SOURCE (object), result, &error);

  /* Nothing going on there, the endpoint cannot say, or a run of our own
   * started meanwhile: nothing to follow. */
  if (run == NULL || self->running)
    return;

  g_clear_pointer (&self->remote_run, pd_remote_run_free);
  g_clear_pointer (&self->remote_asked, g_free);
  self->remote_stop = FALSE;
  self->remote_ending = FALSE;
  g_string_truncate (self->status_text, 0);
  g_string_truncate (self->transcript, 0);
  _pd_run_controller_notify (self, PROP_STATUS_TEXT);
  self->cancellable = g_cancellable_new ();
  self->remote_run = pd_remote_run_copy (run);
  _pd_run_controller_set_session_id (self, run->session_id);
  pd_run_controller_set_activity (self, _("Running on the endpoint"));
  _pd_run_controller_set_running (self, TRUE);
  /* The run as found: its question, if it asks one, at once. */
  pd_run_controller_poll_remote_in (self, 0);
}

/**
 * pd_run_controller_follow:
 * @session_id: a session of the controller's endpoint
 *
 * Reattaches to the run of @session_id going on at the endpoint (started
 * from a window since closed, or by another client): it is shown as this
 * window's run, its questions come to the dialog, Stop cancels it.  Does
 * nothing for a local database, while a run is going on, or when the
 * session has no run.
 */
void
pd_run_controller_follow (PdRunController *self,
                          const char      *session_id)
{
  g_return_if_fail (PD_IS_RUN_CONTROLLER (self));

  if (self->remote == NULL || self->running || session_id == NULL)
    return;
  pd_remote_source_find_run_async (self->remote, session_id, self->remote_calls,
                                   on_remote_found, g_object_ref (self));
}
