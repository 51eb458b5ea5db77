/* pd-server-runs.c: runs through the embedded engine.
 *
 * POST /api/prompt starts one (202 once its session is known), a prompt on
 * a WebSocket another (pd-server-ws.c, which watches it through a
 * RunObserver); GET /api/runs[/ID] lists them (the last RUNS_KEPT finished
 * ones kept), POST /api/cancel?session_id= cancels the active run of a
 * session, whichever connection started it.
 *
 * The engine runs in a GTask worker.  What it reports from there (the
 * session, reasoning, tool calls and results, a question for a person)
 * comes to the server's thread through g_main_context_invoke, in the order
 * it was reported, and goes on to the run's observer.  A question waits on
 * the worker (pd-server-approval.c) until the observer's person answers,
 * POST /api/runs/ID/approval answers, the run is cancelled, or the time is
 * up: a denial in all but the first case.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-server"

#include "config.h"

#include <string.h>

#include "pd-server-private.h"
#include "pd-json-util.h"
#include "pd-plan.h"
#include "pd-random.h"
#include "pd-redact.h"
#include "pd-task-util.h"

#define RUNS_KEPT            100

struct _Run
{
  gatomicrefcount    ref;
  PdServer          *server;      /* (unowned) cleared when the server goes */
  char              *id;
  char              *session_id;
  char              *model;
  char              *status;
  gint64             started_at;
  gint64             ended_at;
  gint64             input_tokens;
  gint64             output_tokens;
  char              *result;      /* redacted: anyone with the instance token reads runs */
  char              *error;       /* redacted too */
  GCancellable      *cancellable;
  PdEngine          *engine;
  SoupServerMessage *pending;     /* the POST waiting for its 202 */
  gboolean           active;
  /* Why it was cancelled (a static string, set before the cancellable is;
   * read on the engine's thread): the reason a question it waited on is
   * recorded as denied for. */
  const char        *cancel_reason;

  /* The server's thread. */
  Approval          *approval;    /* the question open now, or NULL */
  const RunObserver *observer;    /* who watches: a socket's prompt, or nobody */
  gpointer           observer_data;

  /* The engine's thread: reasoning since the last tool call or answer,
   * sent as one piece (odek's UI appends what it gets). */
  GMutex             lock;
  GString           *reasoning;
};

static Run *
run_ref (Run *run)
{
  g_atomic_ref_count_inc (&run->ref);
  return run;
}

void
_pd_server_run_unref (Run *run)
{
  if (!g_atomic_ref_count_dec (&run->ref))
    return;
  g_free (run->id);
  g_free (run->session_id);
  g_free (run->model);
  g_free (run->status);
  g_free (run->result);
  g_free (run->error);
  g_clear_object (&run->cancellable);
  g_clear_object (&run->engine);
  g_clear_object (&run->pending);
  g_clear_pointer (&run->approval, _pd_server_approval_unref);
  g_string_free (run->reasoning, TRUE);
  g_mutex_clear (&run->lock);
  g_free (run);
}

const char *
_pd_server_run_get_id (Run *run)
{
  return run->id;
}

const char *
_pd_server_run_get_session_id (Run *run)
{
  return run->session_id;
}

/**
 * _pd_server_run_cancel:
 * @why: (nullable): a static string: why, for a question the run waits on
 *   ("interrupted: …"); %NULL for a person stopping it
 */
void
_pd_server_run_cancel (Run        *run,
                       const char *why)
{
  g_atomic_pointer_compare_and_exchange (&run->cancel_reason, NULL,
                                         why != NULL ? why : "the run was stopped before anyone answered");
  /* The run's end says it was interrupted, and by what ("the endpoint
   * (serve) stopped"), not that a person stopped it. */
  if (why != NULL && g_str_has_prefix (why, "interrupted: "))
    {
      g_autofree char *reason = g_strdup (why + strlen ("interrupted: "));

      if (g_str_has_suffix (reason, " before anyone answered"))
        reason[strlen (reason) - strlen (" before anyone answered")] = '\0';
      pd_cancellable_cancel_for (run->cancellable, reason);
    }
  else
    g_cancellable_cancel (run->cancellable);
}

/* The question open now, if it is @id's (server thread). */
Approval *
_pd_server_run_get_approval (Run        *run,
                             const char *id)
{
  if (run->approval == NULL || (id != NULL && g_strcmp0 (_pd_server_approval_get_id (run->approval), id) != 0))
    return NULL;
  return run->approval;
}

static JsonObject *
run_to_json (Run *run)
{
  JsonObject *object = json_object_new ();
  g_autofree char *started = pd_session_time_to_string (run->started_at);

  json_object_set_string_member (object, "id", run->id);
  json_object_set_string_member (object, "session_id", run->session_id ? run->session_id : "");
  json_object_set_string_member (object, "model", run->model ? run->model : "");
  json_object_set_string_member (object, "status", run->status);
  json_object_set_string_member (object, "started_at", started);
  if (run->ended_at > 0)
    {
      g_autofree char *ended = pd_session_time_to_string (run->ended_at);
      json_object_set_string_member (object, "ended_at", ended);
    }
  else
    json_object_set_null_member (object, "ended_at");
  json_object_set_int_member (object, "input_tokens", run->input_tokens);
  json_object_set_int_member (object, "output_tokens", run->output_tokens);
  json_object_set_string_member (object, "result", run->result ? run->result : "");
  json_object_set_string_member (object, "error", run->error ? run->error : "");
  /* Ours: the question a person is asked, for the desktop app. */
  if (run->approval != NULL)
    {
      JsonObject *approval = _pd_server_approval_to_json (run->approval);

      /* As the WebSocket asks it: masked, or with controls, with friction. */
      if (_pd_server_approval_needs_friction (run->approval))
        json_object_set_boolean_member (approval, "friction", TRUE);
      json_object_set_object_member (object, "approval", approval);
    }
  return object;
}

static void
run_answer_accepted (Run *run)
{
  JsonObject *object;

  if (run->pending == NULL)
    return;
  object = json_object_new ();
  json_object_set_string_member (object, "run_id", run->id);
  json_object_set_string_member (object, "session_id", run->session_id ? run->session_id : "");
  json_object_set_string_member (object, "status", "running");
  _pd_server_respond_json (run->pending, 202, object);
  soup_server_message_unpause (run->pending);
  g_clear_object (&run->pending);
}

/* ---------------------------------------------------------------------- */
/* From the engine's thread to the server's                               */

typedef enum
{
  NOTE_SESSION,
  NOTE_THINKING,
  NOTE_TOOL,
  NOTE_APPROVAL_OPEN,
  NOTE_APPROVAL_CLOSE,
} NoteKind;

typedef struct
{
  Run               *run;
  NoteKind           kind;
  char              *text;      /* session id, reasoning, tool output or arguments */
  char              *name;      /* tool */
  char              *token;     /* NOTE_SESSION: the session's token */
  PdEngineToolStage  stage;
  gboolean           ok;
  Approval          *approval;
} Note;

static void
note_free (gpointer data)
{
  Note *note = data;

  _pd_server_run_unref (note->run);
  g_free (note->text);
  g_free (note->name);
  g_free (note->token);
  g_clear_pointer (&note->approval, _pd_server_approval_unref);
  g_free (note);
}

static void
approval_open (Run      *run,
               Approval *approval)
{
  PdServer *self = run->server;
  PdEvent *event;

  g_clear_pointer (&run->approval, _pd_server_approval_unref);
  run->approval = _pd_server_approval_ref (approval);
  g_free (run->status);
  run->status = g_strdup ("waiting_approval");

  /* Those who follow the run's events learn it waits (the desktop app asks
   * GET /api/runs/ID for the question, with the session's token). */
  event = _pd_server_approval_new_event (approval, run->id, run->session_id, NULL);
  pd_event_bus_emit (self->bus, event);
  pd_event_unref (event);

  if (run->observer != NULL && run->observer->ask != NULL)
    run->observer->ask (run, run->observer_data, approval);
}

static const char *
approval_outcome (ApprovalAnswer answer)
{
  switch (answer)
    {
    case APPROVAL_APPROVE:
    case APPROVAL_TRUST:
      return "approved";
    case APPROVAL_DENY:
      return "denied";
    case APPROVAL_TIMEOUT:
      return "timed_out";
    case APPROVAL_CANCELLED:
    case APPROVAL_PENDING:
    default:
      return "cancelled";
    }
}

static void
approval_close (Run      *run,
                Approval *approval)
{
  PdEvent *event;

  if (run->approval == approval)
    {
      g_clear_pointer (&run->approval, _pd_server_approval_unref);
      if (run->active)
        {
          g_free (run->status);
          run->status = g_strdup ("running");
        }
    }

  /* Told once the run's record no longer holds the question: a client that
   * shows it (the Overview's card) reads the run again and finds it gone,
   * whoever answered (odek's page, another window, the time).  Without it
   * the card kept an answered question until the call's result was saved,
   * and learned of the next one only when something else made it read. */
  event = _pd_server_approval_new_event (approval, run->id, run->session_id,
                                         approval_outcome (_pd_server_approval_get_answer (approval)));
  pd_event_bus_emit (run->server->bus, event);
  pd_event_unref (event);
}

static gboolean
on_note (gpointer user_data)
{
  Note *note = user_data;
  Run *run = note->run;

  if (run->server == NULL)
    return G_SOURCE_REMOVE;

  switch (note->kind)
    {
    case NOTE_SESSION:
      if (run->session_id == NULL)
        run->session_id = g_strdup (note->text);
      run_answer_accepted (run);
      if (run->observer != NULL && run->observer->session != NULL)
        run->observer->session (run, run->observer_data, run->session_id, note->token);
      break;

    case NOTE_THINKING:
      if (run->observer != NULL && run->observer->thinking != NULL)
        run->observer->thinking (run, run->observer_data, note->text);
      break;

    case NOTE_TOOL:
      if (run->observer != NULL && run->observer->tool != NULL)
        run->observer->tool (run, run->observer_data, note->stage, note->name, note->text, note->ok);
      break;

    case NOTE_APPROVAL_OPEN:
      approval_open (run, note->approval);
      break;

    case NOTE_APPROVAL_CLOSE:
      approval_close (run, note->approval);
      break;
    }
  return G_SOURCE_REMOVE;
}

/* Any thread; in the order of the calls. */
static void
note_post (Run  *run,
           Note *note)
{
  PdServer *self = run->server;
  GSource *source;

  if (self == NULL)
    {
      note_free (note);
      return;
    }
  note->run = run_ref (run);
  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, on_note, note, note_free);
  g_source_attach (source, self->context);
  g_source_unref (source);
}

/* The reasoning gathered so far, as one `thinking`. */
static void
flush_reasoning (Run *run)
{
  Note *note;

  g_mutex_lock (&run->lock);
  if (run->reasoning->len == 0)
    {
      g_mutex_unlock (&run->lock);
      return;
    }
  note = g_new0 (Note, 1);
  note->kind = NOTE_THINKING;
  note->text = pd_redact (run->reasoning->str, NULL);  /* as stored, as a tool call's text */
  g_string_truncate (run->reasoning, 0);
  g_mutex_unlock (&run->lock);
  note_post (run, note);
}

/* The session's token, read on the engine's thread (the session was just
 * made, or just checked). */
static char *
read_session_token (PdServer   *self,
                    const char *session_id)
{
  PdSessionStore *store = g_async_queue_pop (self->readers);
  g_autoptr(PdSessionInfo) info = pd_session_store_get (store, session_id, NULL);

  g_async_queue_push (self->readers, store);
  return info ? g_strdup (info->auth_token) : NULL;
}

/* On the engine's worker thread. */
static void
on_run_progress (PdEngineProgress  kind,
                 const char       *text,
                 gpointer          user_data)
{
  Run *run = user_data;
  Note *note;

  if (run->server == NULL)
    return;

  switch (kind)
    {
    case PD_ENGINE_PROGRESS_SESSION:
      note = g_new0 (Note, 1);
      note->kind = NOTE_SESSION;
      note->text = g_strdup (text);
      if (run->observer != NULL)
        note->token = read_session_token (run->server, text);
      note_post (run, note);
      break;

    case PD_ENGINE_PROGRESS_REASONING:
      g_mutex_lock (&run->lock);
      if (run->reasoning->len < PD_SERVER_MAX_BODY)
        g_string_append (run->reasoning, text);
      g_mutex_unlock (&run->lock);
      break;

    case PD_ENGINE_PROGRESS_DISCARDED:
    case PD_ENGINE_PROGRESS_RETRY:
      /* What streamed is void: asked again. */
      g_mutex_lock (&run->lock);
      g_string_truncate (run->reasoning, 0);
      g_mutex_unlock (&run->lock);
      break;

    default:
      break;
    }
}

/* On the engine's threads: each call of a batch before any runs, then the
 * results in call order. */
static void
on_run_tool (PdEngineToolStage  stage,
             const char        *name,
             const char        *call_id,
             const char        *text,
             gboolean           ok,
             gpointer           user_data)
{
  Run *run = user_data;
  Note *note;

  if (run->observer == NULL)
    return;
  if (stage == PD_ENGINE_TOOL_CALL)
    flush_reasoning (run);

  note = g_new0 (Note, 1);
  note->kind = NOTE_TOOL;
  note->stage = stage;
  note->name = g_strdup (name);
  /* What the model wrote and a tool read may hold a key: shown as the store
   * keeps it. */
  note->text = pd_redact (text ? text : "", NULL);
  note->ok = ok;
  note_post (run, note);
}

/* On a tool worker thread (one question at a time): @approval asked of
 * whoever watches the run, and waited on.  What went unanswered is told
 * to the approver as its denial's reason, and returned in @why. */
static ApprovalAnswer
ask_and_wait (Run         *run,
              Approval    *approval,
              const char **why)
{
  ApprovalAnswer answer;
  Note *note;

  _pd_server_approval_start_clock (approval, run->server->approval_timeout);
  note = g_new0 (Note, 1);
  note->kind = NOTE_APPROVAL_OPEN;
  note->approval = _pd_server_approval_ref (approval);
  note_post (run, note);

  answer = _pd_server_approval_wait (approval, run->cancellable);
  /* Nobody said no: the run's record says what happened instead of "the
   * user declined" (a stopped serve read as the person's refusal). */
  *why = NULL;
  if (answer == APPROVAL_TIMEOUT)
    *why = "no one answered in time";
  else if (answer == APPROVAL_CANCELLED)
    {
      *why = g_atomic_pointer_get (&run->cancel_reason);
      if (*why == NULL)
        *why = "interrupted: the run ended before anyone answered";
    }

  note = g_new0 (Note, 1);
  note->kind = NOTE_APPROVAL_CLOSE;
  note->approval = _pd_server_approval_ref (approval);
  note_post (run, note);
  return answer;
}

/* PdApprovalFunc, on a tool worker thread (one question at a time). */
static gboolean
on_run_approve (const char *tool,
                const char *summary,
                const char *preview,
                gpointer    user_data)
{
  Run *run = user_data;
  Approval *approval;
  ApprovalAnswer answer;
  const char *why;

  if (run->server == NULL)
    return FALSE;

  approval = _pd_server_approval_new (tool, summary, preview);
  _pd_server_approval_set_controls (approval, pd_approver_asked_controls_kinds ());
  answer = ask_and_wait (run, approval, &why);
  if (why != NULL)
    pd_approver_set_denial_reason (why);
  _pd_server_approval_unref (approval);

  return answer == APPROVAL_APPROVE || answer == APPROVAL_TRUST;
}

/* PdPlanReviewFunc, on a tool worker thread: exit_plan_mode's plan asked
 * of whoever watches the run, as its approvals are (odek's page answers it
 * unchanged).  Approve leaves plan mode; deny keeps planning, with the
 * feedback the answer brought; no answer (the time, a closed socket, a
 * cancelled run) fails the call and plan mode stays. */
static PdPlanReviewAnswer
on_run_review (const char  *markdown,
               char       **feedback,
               gpointer     user_data)
{
  Run *run = user_data;
  Approval *approval;
  ApprovalAnswer answer;
  const char *why;

  if (run->server == NULL)
    {
      *feedback = g_strdup ("the server is stopping");
      return PD_PLAN_REVIEW_UNANSWERED;
    }
  /* A person is asked only about what they are shown whole. */
  if (strlen (markdown) > PD_SERVER_PLAN_MAX_BYTES)
    {
      *feedback = g_strdup_printf ("the plan is longer than the %d KiB a review shows; shorten it",
                                   PD_SERVER_PLAN_MAX_BYTES / 1024);
      return PD_PLAN_REVIEW_UNANSWERED;
    }

  approval = _pd_server_approval_new_plan (markdown);
  answer = ask_and_wait (run, approval, &why);
  switch (answer)
    {
    case APPROVAL_APPROVE:
    case APPROVAL_TRUST:
      _pd_server_approval_unref (approval);
      return PD_PLAN_REVIEW_APPROVE;

    case APPROVAL_DENY:
      *feedback = _pd_server_approval_dup_feedback (approval);
      _pd_server_approval_unref (approval);
      return PD_PLAN_REVIEW_KEEP_PLANNING;

    case APPROVAL_TIMEOUT:
    case APPROVAL_CANCELLED:
    case APPROVAL_PENDING:
    default:
      *feedback = g_strdup (why != NULL ? why : "no answer");
      _pd_server_approval_unref (approval);
      return PD_PLAN_REVIEW_UNANSWERED;
    }
}

/* ---------------------------------------------------------------------- */
/* Runs                                                                   */

static void
forget_finished_runs (PdServer *self)
{
  while (g_queue_get_length (&self->finished_runs) > RUNS_KEPT)
    {
      char *id = g_queue_pop_head (&self->finished_runs);

      g_hash_table_remove (self->runs, id);
      g_free (id);
    }
}

static void
on_run_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  Run *run = user_data;
  PdServer *self = run->server;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdRunResult) outcome = pd_engine_run_finish (PD_ENGINE (object), result, &error);
  const RunObserver *observer = run->observer;
  gpointer observer_data = run->observer_data;

  run->ended_at = g_get_real_time ();
  run->active = FALSE;
  /* The engine's callbacks hold references to the run. */
  pd_engine_set_progress_func (run->engine, NULL, NULL, NULL);
  pd_engine_set_tool_func (run->engine, NULL, NULL, NULL);
  g_clear_object (&run->engine);
  g_clear_pointer (&run->status, g_free);
  g_clear_pointer (&run->approval, _pd_server_approval_unref);

  if (outcome == NULL)
    {
      run->status = g_strdup ("failed");
      run->error = pd_redact (error->message, NULL);
      if (run->pending != NULL)
        {
          gboolean not_found = g_error_matches (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND);

          _pd_server_respond_error (run->pending, not_found ? 404 : 400, not_found ? "session not found" : run->error);
          soup_server_message_unpause (run->pending);
          g_clear_object (&run->pending);
        }
    }
  else
    {
      if (run->session_id == NULL && outcome->session_id != NULL)
        run->session_id = g_strdup (outcome->session_id);
      run_answer_accepted (run);
      run->input_tokens = outcome->input_tokens;
      run->output_tokens = outcome->output_tokens;
      run->result = outcome->final_text ? pd_redact (outcome->final_text, NULL) : NULL;
      switch (outcome->status)
        {
        case PD_RUN_COMPLETED:
          run->status = g_strdup ("completed");
          break;
        case PD_RUN_CANCELLED:
          run->status = g_strdup ("cancelled");
          break;
        case PD_RUN_BUDGET_EXCEEDED:
          run->status = g_strdup ("failed");
          run->error = g_strdup_printf ("budget exceeded: %s", outcome->budget_name ? outcome->budget_name : "");
          break;
        case PD_RUN_FAILED:
        default:
          run->status = g_strdup ("failed");
          run->error = pd_redact (outcome->error_message ? outcome->error_message : "failed", NULL);
          break;
        }
    }

  /* The reasoning of the answer comes before it. */
  flush_reasoning (run);

  _pd_server_bump_generation (self);
  self->active_runs--;
  g_queue_push_tail (&self->finished_runs, g_strdup (run->id));

  /* Last: the observer may start the next prompt of its socket. */
  run->observer = NULL;
  run->observer_data = NULL;
  if (observer != NULL)
    {
      observer->done (run, observer_data, outcome, error);
      if (observer->release != NULL)
        observer->release (observer_data);
    }

  forget_finished_runs (self);
  _pd_server_run_unref (run);
  _pd_server_maybe_quit (self);
}

static Run *
find_active_run (PdServer   *self,
                 const char *session_id)
{
  GHashTableIter iter;
  Run *run;

  g_hash_table_iter_init (&iter, self->runs);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &run))
    if (run->active && g_strcmp0 (run->session_id, session_id) == 0)
      return run;
  return NULL;
}

/**
 * _pd_server_run_start:
 * @session_id: (nullable): the session to continue (its token checked)
 * @observer: (nullable): who watches the run, with @observer_data, which
 *   observer->release lets go of once the run is done (not called when the
 *   run does not start)
 * @status: (out): on failure, the HTTP status that says why (409 busy, 503
 *   too many runs, 400 no engine)
 *
 * Returns: (transfer none): the run, in the run table, or %NULL with @error
 */
Run *
_pd_server_run_start (PdServer           *self,
                      const char         *session_id,
                      const char         *message,
                      const char         *model,
                      const RunObserver  *observer,
                      gpointer            observer_data,
                      guint              *status,
                      GError            **error)
{
  g_autoptr(PdEngine) engine = NULL;
  PdServerRunRequest request = { 0 };
  g_autofree char *run_id = NULL;
  Run *run;

  if (session_id != NULL && find_active_run (self, session_id) != NULL)
    {
      *status = 409;
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_BUSY, "session is busy");
      return NULL;
    }
  if (self->active_runs >= PD_SERVER_MAX_ACTIVE_RUNS)
    {
      *status = 503;
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_BUSY, "too many active runs");
      return NULL;
    }
  if (self->engine_func == NULL)
    {
      *status = 501;
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, "this server does not run prompts");
      return NULL;
    }

  run_id = pd_random_hex (16);
  run = g_new0 (Run, 1);
  g_atomic_ref_count_init (&run->ref);
  g_mutex_init (&run->lock);
  run->reasoning = g_string_new (NULL);
  run->server = self;
  run->id = g_strdup (run_id);
  run->session_id = g_strdup (session_id);
  run->model = g_strdup (model ? model : self->model);
  run->status = g_strdup ("running");
  run->started_at = g_get_real_time ();
  run->cancellable = g_cancellable_new ();

  request.session_id = session_id;
  request.message = message;
  request.model = model;
  request.run_id = run_id;
  request.store = self->store;
  request.bus = self->bus;
  request.approve = on_run_approve;
  request.approve_data = run_ref (run);
  request.approve_destroy = (GDestroyNotify) _pd_server_run_unref;
  request.review = on_run_review;
  request.review_data = run_ref (run);
  request.review_destroy = (GDestroyNotify) _pd_server_run_unref;
  if (!(engine = self->engine_func (&request, self->engine_data, error)))
    {
      *status = 400;
      run->server = NULL;
      _pd_server_run_unref (run);
      return NULL;
    }

  run->engine = g_object_ref (engine);
  run->active = TRUE;
  run->observer = observer;
  run->observer_data = observer_data;
  g_hash_table_insert (self->runs, g_strdup (run_id), run);
  self->active_runs++;

  pd_engine_set_progress_func (engine, on_run_progress, run_ref (run), (GDestroyNotify) _pd_server_run_unref);
  pd_engine_set_tool_func (engine, on_run_tool, run_ref (run), (GDestroyNotify) _pd_server_run_unref);
  pd_engine_run_async (engine, session_id, message, run->cancellable, on_run_done, run_ref (run));
  return run;
}

/* ---------------------------------------------------------------------- */
/* POST /api/prompt                                                       */

/* What a POST /api/prompt asked for, kept while its session is looked up. */
typedef struct
{
  char *message;
  char *session_id;   /* (nullable) a session to continue */
  char *model;        /* (nullable) */
} Prompt;

static void
prompt_free (gpointer data)
{
  Prompt *prompt = data;

  g_free (prompt->message);
  g_free (prompt->session_id);
  g_free (prompt->model);
  g_free (prompt);
}

/* Starts the run.  Returns TRUE when the run took @msg (it answers 202 once
 * the session is known), FALSE when @msg was answered with an error. */
static gboolean
prompt_start (PdServer          *self,
              SoupServerMessage *msg,
              Prompt            *prompt)
{
  g_autoptr(GError) error = NULL;
  guint status = 0;
  Run *run = _pd_server_run_start (self, prompt->session_id, prompt->message, prompt->model, NULL, NULL,
                                   &status, &error);

  if (run == NULL)
    {
      _pd_server_respond_error (msg, status, error->message);
      return FALSE;
    }
  run->pending = g_object_ref (msg);
  soup_server_message_pause (msg);
  return TRUE;
}

/* The request may continue the session (it carried its token). */
static void
on_prompt_authorized (PdServer          *self,
                      SoupServerMessage *msg,
                      gpointer           data)
{
  /* @msg is paused for the lookup: a run unpauses it with its 202. */
  if (!prompt_start (self, msg, data))
    soup_server_message_unpause (msg);
}

/* POST /api/prompt {message, session_id?, model?}.  A run that continues a
 * session changes it: the same rule as rename and delete (404 for a
 * session that is not there, 401 without its token). */
void
_pd_server_handle_prompt (PdServer          *self,
                          SoupServerMessage *msg,
                          const char        *presented,
                          gboolean           instance_header)
{
  g_autoptr(GBytes) body = NULL;
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) error = NULL;
  Prompt *prompt;
  JsonObject *object;
  JsonNode *node;
  const char *message = NULL, *session_id = NULL, *model = NULL;
  const char *data;
  gsize len;

  if (soup_server_message_get_method (msg) != SOUP_METHOD_POST)
    {
      _pd_server_respond_error (msg, 405, "method not allowed");
      return;
    }
  /* A run that could save nothing is not started. */
  if (self->read_only != NULL)
    {
      g_autofree char *text = g_strdup_printf ("runs are refused: %s", self->read_only);

      _pd_server_respond_error (msg, 503, text);
      return;
    }

  body = _pd_server_request_body (msg);
  data = g_bytes_get_data (body, &len);
  if (len > PD_SERVER_MAX_BODY)
    {
      _pd_server_respond_error (msg, 413, "request body too large");
      return;
    }
  if (len == 0 || pd_json_nesting_exceeds (data, (gssize) len, PD_JSON_FOREIGN_MAX_DEPTH) ||
      !json_parser_load_from_data (parser, data, (gssize) len, &error) ||
      json_parser_get_root (parser) == NULL ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      _pd_server_respond_error (msg, 400, "invalid JSON body");
      return;
    }
  object = json_node_get_object (json_parser_get_root (parser));

  node = json_object_get_member (object, "message");
  if (node && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    message = json_node_get_string (node);
  if (message == NULL || *message == '\0')
    {
      _pd_server_respond_error (msg, 400, "message required");
      return;
    }
  node = json_object_get_member (object, "session_id");
  if (node && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
        {
          _pd_server_respond_error (msg, 400, "invalid session id");
          return;
        }
      session_id = json_node_get_string (node);
      if (*session_id == '\0')
        session_id = NULL;
      else if (!pd_session_id_is_valid (session_id))
        {
          _pd_server_respond_error (msg, 400, "invalid session id");
          return;
        }
    }
  node = json_object_get_member (object, "model");
  if (node && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    model = json_node_get_string (node);
  if (model != NULL && !_pd_server_model_id_is_valid (model))
    {
      _pd_server_respond_error (msg, 400, "invalid model ID");
      return;
    }

  if (self->engine_func == NULL)
    {
      _pd_server_respond_error (msg, 501, "this server does not run prompts");
      return;
    }

  prompt = g_new0 (Prompt, 1);
  prompt->message = g_strdup (message);
  prompt->session_id = g_strdup (session_id);
  prompt->model = g_strdup (model);

  if (session_id == NULL)
    {
      prompt_start (self, msg, prompt);
      prompt_free (prompt);
      return;
    }
  _pd_server_authorize_change (self, msg, session_id, presented, instance_header,
                               on_prompt_authorized, prompt, prompt_free);
}

/* odek's rule for a model id: at most 128 bytes of [A-Za-z0-9_.:/@-]. */
gboolean
_pd_server_model_id_is_valid (const char *model)
{
  gsize len = strlen (model);

  if (len == 0 || len > 128)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum (model[i]) && strchr ("_.:/@-", model[i]) == NULL)
      return FALSE;
  return TRUE;
}

/* ---------------------------------------------------------------------- */
/* GET /api/runs[/ID], POST /api/runs/ID/approval                         */

typedef struct
{
  char           *run_id;
  char           *approval_id;
  ApprovalAnswer  answer;
  char           *feedback;      /* (nullable) a plan review's, with deny */
} Answer;

static void
answer_free (gpointer data)
{
  Answer *answer = data;

  g_free (answer->run_id);
  g_free (answer->approval_id);
  g_free (answer->feedback);
  g_free (answer);
}

/* The request may answer for the run's session (it carried its token). */
static void
on_answer_authorized (PdServer          *self,
                      SoupServerMessage *msg,
                      gpointer           data)
{
  Answer *answer = data;
  Run *run = g_hash_table_lookup (self->runs, answer->run_id);
  Approval *approval = run ? _pd_server_run_get_approval (run, answer->approval_id) : NULL;
  JsonObject *object;

  if (approval == NULL || !_pd_server_approval_answer_full (approval, answer->answer, answer->feedback))
    _pd_server_respond_error (msg, 404, "no such question: it was answered, or timed out");
  else
    {
      object = json_object_new ();
      json_object_set_string_member (object, "run_id", answer->run_id);
      json_object_set_string_member (object, "id", answer->approval_id);
      json_object_set_string_member (object, "action",
                                     answer->answer == APPROVAL_DENY ? "deny" : "approve");
      _pd_server_respond_json (msg, 200, object);
    }
  soup_server_message_unpause (msg);
}

/* POST /api/runs/ID/approval {id, action[, feedback]}: ours, how the
 * desktop app answers the question a run it started (or follows) asks; a
 * plan review's deny may bring feedback.  A change of the run's session:
 * its token is needed. */
static void
handle_approval (PdServer          *self,
                 SoupServerMessage *msg,
                 const char        *run_id,
                 const char        *presented,
                 gboolean           instance_header)
{
  g_autoptr(GBytes) body = _pd_server_request_body (msg);
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  Run *run = g_hash_table_lookup (self->runs, run_id);
  const char *data, *id, *action;
  ApprovalAnswer value;
  JsonObject *object;
  Answer *answer;
  gsize len;

  if (soup_server_message_get_method (msg) != SOUP_METHOD_POST)
    {
      soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Allow", "POST");
      _pd_server_respond_error (msg, 405, "method not allowed");
      return;
    }
  if (run == NULL || run->session_id == NULL)
    {
      _pd_server_respond_error (msg, 404, "run not found");
      return;
    }

  data = g_bytes_get_data (body, &len);
  if (len == 0 || pd_json_nesting_exceeds (data, (gssize) len, PD_JSON_FOREIGN_MAX_DEPTH) ||
      !json_parser_load_from_data (parser, data, (gssize) len, NULL) ||
      json_parser_get_root (parser) == NULL || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      _pd_server_respond_error (msg, 400, "invalid JSON body");
      return;
    }
  object = json_node_get_object (json_parser_get_root (parser));
  id = pd_json_get_string (object, "id");
  action = pd_json_get_string (object, "action");
  if (id == NULL || !_pd_server_approval_parse_action (action, &value))
    {
      _pd_server_respond_error (msg, 400, "an approval needs its id and an action: approve, deny or trust");
      return;
    }
  /* Trust is a socket's; here it is one approval. */
  if (value == APPROVAL_TRUST)
    value = APPROVAL_APPROVE;

  answer = g_new0 (Answer, 1);
  answer->run_id = g_strdup (run_id);
  answer->approval_id = g_strdup (id);
  answer->answer = value;
  if (value == APPROVAL_DENY)
    answer->feedback = g_strdup (pd_json_get_string (object, "feedback"));
  _pd_server_authorize_change (self, msg, run->session_id, presented, instance_header,
                               on_answer_authorized, answer, answer_free);
}

void
_pd_server_handle_runs (PdServer          *self,
                        SoupServerMessage *msg,
                        const char        *rest,
                        const char        *presented,
                        gboolean           instance_header)
{
  const char *slash = rest ? strchr (rest, '/') : NULL;

  if (slash != NULL)
    {
      g_autofree char *run_id = g_strndup (rest, slash - rest);

      if (strcmp (slash, "/approval") == 0)
        handle_approval (self, msg, run_id, presented, instance_header);
      else
        _pd_server_respond_error (msg, 404, "not found");
      return;
    }

  if (soup_server_message_get_method (msg) != SOUP_METHOD_GET)
    {
      _pd_server_respond_error (msg, 405, "method not allowed");
      return;
    }

  if (rest == NULL || *rest == '\0')
    {
      JsonObject *object = json_object_new ();
      JsonArray *array = json_array_new ();
      GHashTableIter iter;
      Run *run;

      g_hash_table_iter_init (&iter, self->runs);
      while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &run))
        json_array_add_object_element (array, run_to_json (run));
      json_object_set_int_member (object, "count", json_array_get_length (array));
      json_object_set_array_member (object, "runs", array);
      _pd_server_respond_json (msg, 200, object);
      return;
    }

  {
    Run *run = g_hash_table_lookup (self->runs, rest);

    if (run == NULL)
      _pd_server_respond_error (msg, 404, "run not found");
    else
      _pd_server_respond_json (msg, 200, run_to_json (run));
  }
}

/* ---------------------------------------------------------------------- */
/* POST /api/cancel                                                       */

/* The request may cancel the session's run (it carried its token). */
static void
on_cancel_authorized (PdServer          *self,
                      SoupServerMessage *msg,
                      gpointer           data)
{
  const char *session_id = data;
  Run *run = find_active_run (self, session_id);
  JsonObject *object;

  /* A question the run waits on is answered no at once (odek's HEAD left
   * it waiting out its minute). */
  if (run != NULL)
    _pd_server_run_cancel (run, NULL);

  object = json_object_new ();
  json_object_set_string_member (object, "session_id", session_id);
  json_object_set_boolean_member (object, "idle", run == NULL);
  _pd_server_respond_json (msg, 200, object);
  soup_server_message_unpause (msg);
}

/* POST /api/cancel?session_id=: odek's answers, 400 without an id, 404 for
 * a session that is not there, 401 without its token, else 200
 * {session_id, idle}. */
void
_pd_server_handle_cancel (PdServer          *self,
                          SoupServerMessage *msg,
                          GHashTable        *query,
                          const char        *presented,
                          gboolean           instance_header)
{
  const char *session_id = _pd_server_query_get (query, "session_id");

  if (soup_server_message_get_method (msg) != SOUP_METHOD_POST)
    {
      _pd_server_respond_error (msg, 405, "method not allowed");
      return;
    }
  if (session_id == NULL || *session_id == '\0')
    {
      _pd_server_respond_error (msg, 400, "missing session_id");
      return;
    }
  /* A session id that could be no session's is no session (odek: 404). */
  if (!pd_session_id_is_valid (session_id))
    {
      _pd_server_respond_error (msg, 404, "session not found");
      return;
    }

  _pd_server_authorize_change (self, msg, session_id, presented, instance_header,
                               on_cancel_authorized, g_strdup (session_id), g_free);
}

/* Stopping: every active run is cancelled; each saves and ends on its own. */
void
_pd_server_cancel_runs (PdServer *self)
{
  GHashTableIter iter;
  Run *run;

  g_hash_table_iter_init (&iter, self->runs);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &run))
    if (run->active)
      _pd_server_run_cancel (run, "interrupted: the endpoint (serve) stopped before anyone answered");
}

/* Stopped: runs kept for GET /api/runs hold a pointer back; none is active
 * any more. */
void
_pd_server_detach_runs (PdServer *self)
{
  GHashTableIter iter;
  Run *run;

  g_hash_table_iter_init (&iter, self->runs);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &run))
    run->server = NULL;
}
