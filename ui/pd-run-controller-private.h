/* pd-run-controller-private.h: what the parts of PdRunController share
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * PdRunController is one type in four files: pd-run-controller.c (the
 * settings, the run's lifecycle, plan mode), pd-run-controller-channel.c
 * (everything that runs on the engine's worker threads and the channel that
 * brings it back to the main thread), pd-run-controller-dialogs.c (the
 * questions for a person: approve a call, review a plan) and
 * pd-run-controller-remote.c (runs that go on at a serve endpoint).
 */
#pragma once

#include "pd-run-controller.h"

G_BEGIN_DECLS

/* The channel from worker threads: a reference-counted link to the main
 * context and a weak reference to the controller, dereferenced on the main
 * thread only. */
typedef struct
{
  gatomicrefcount  ref;
  GWeakRef         controller;
  GMainContext    *context;
} Channel;

typedef enum
{
  QUESTION_APPROVAL,
  QUESTION_REVIEW,
} QuestionKind;

typedef struct
{
  gatomicrefcount  ref;
  QuestionKind     kind;
  Channel         *channel;
  char            *tool;
  char            *text;
  char            *preview;    /* (nullable) an approval's pd_tool_preview() */
  guint            controls;   /* what the call holds that is shown as escapes (PdApproverControls) */

  GMutex           mutex;
  GCond            cond;
  gboolean         answered;
  int              answer;     /* TRUE/FALSE, or a PdPlanReviewAnswer */
  gboolean         dismissed;  /* nobody answered: the run stopped, the window closed */
  char            *feedback;
  PdRemoteRun     *remote_run; /* (nullable) a remote run's question: answered over HTTP */

  GtkWidget       *dialog;     /* main thread only */
  guint            serial;     /* an approval's number in its controller, for a notification's answer */
} Question;

struct _PdRunController
{
  GObject        parent_instance;

  PdLocalSource *source;       /* (nullable) a local database's window */
  PdRemoteSource *remote;      /* (nullable) an endpoint's window */
  GtkWindow     *parent;       /* weak */
  Channel       *channel;

  PdEngine      *engine;
  PdRunSettings *engine_settings;  /* (nullable) what @engine was built with */
  GCancellable  *cancellable;
  gboolean       running;
  char          *session_id;
  char          *task;         /* (nullable) the task of a new session, until it is listed */
  GString       *status_text;
  gboolean       status_stale;  /* a tool ran since: the next text starts anew */
  char          *activity;
  char          *activity_tool; /* the tool of the call in the activity, or NULL */
  char          *notice;       /* said until the run's first answer, or NULL */
  GString       *transcript;

  guint          approval_serial; /* the last approval question's number */
  GHashTable    *always;       /* tool names approved for the session */
  GPtrArray     *questions;    /* (element-type Question) open, main thread */

  /* A remote run: the last word on it, the question asked of it, the
   * calls in flight (cancelled only when the controller goes). */
  PdRemoteRun   *remote_run;
  char          *remote_asked;
  char          *remote_message;    /* the message the run was started with */
  GCancellable  *remote_calls;
  guint          remote_poll;
  gboolean       remote_stop;  /* stopped before the server named the run */
  gboolean       remote_asking;     /* a GET /api/runs/ID is out */
  gboolean       remote_ask_again;  /* the stream told of the run meanwhile */
  gboolean       remote_ending;     /* the stream said it ended: its record will */
};

typedef struct
{
  PdRunSettings *settings;
  char          *env_key;      /* (nullable) the profile's variable, read on the main thread */
  char          *db_path;
  Channel       *channel;
  PdEngine      *engine;       /* (nullable) reused when set */
  char          *session_id;
  char          *message;
  gboolean       active;
  gboolean       fallback_provider;
} Job;

typedef enum
{
  PROP_0,
  PROP_RUNNING,
  PROP_SESSION_ID,
  PROP_STATUS_TEXT,
  PROP_ACTIVITY,
  PROP_NOTICE,
  N_PROPS
} PdRunControllerProp;

/* pd-run-controller.c */
void      _pd_run_controller_notify               (PdRunController     *self,
                                                   PdRunControllerProp  prop);
void      _pd_run_controller_set_notice           (PdRunController     *self,
                                                   const char          *notice);
void      _pd_run_controller_emit_review          (PdRunController     *self,
                                                   gboolean             asked);
void      _pd_run_controller_emit_approval        (PdRunController     *self,
                                                   const char          *tool,
                                                   guint                serial);
void      _pd_run_controller_emit_unsent          (PdRunController     *self,
                                                   const char          *session_id,
                                                   const char          *message);
void      _pd_run_controller_emit_session_started (PdRunController     *self,
                                                   const char          *session_id);
void      _pd_run_controller_set_session_id       (PdRunController     *self,
                                                   const char          *session_id);
void      _pd_run_controller_append_transcript    (PdRunController     *self,
                                                   const char          *text);
void      _pd_run_controller_set_running          (PdRunController     *self,
                                                   gboolean             running);
void      _pd_run_controller_finish               (PdRunController     *self,
                                                   PdRunStatus          status,
                                                   const char          *message);

/* pd-run-controller-channel.c */
Channel  *_pd_run_channel_new                     (PdRunController     *controller);
Channel  *_pd_run_channel_ref                     (Channel             *channel);
void      _pd_run_channel_unref                   (Channel             *channel);
Question *_pd_run_question_new                    (QuestionKind         kind,
                                                   Channel             *channel,
                                                   const char          *tool,
                                                   const char          *text);
gboolean  _pd_run_question_guarded                (Question            *question);
void      _pd_run_job_free                        (Job                 *job);
PdEngine *_pd_run_job_ensure_engine               (Job                 *job,
                                                   GError             **error);
gpointer  _pd_run_prepare_worker                  (gpointer             source_object,
                                                   gpointer             task_data,
                                                   GCancellable        *cancellable,
                                                   GError             **error);

/* pd-run-controller-dialogs.c */
Question *_pd_run_question_ref                    (Question            *question);
void      _pd_run_question_unref                  (Question            *question);
void      _pd_run_question_answer                 (Question            *question,
                                                   int                  answer,
                                                   const char          *feedback);
int       _pd_run_question_dismissed_answer       (Question            *question);
void      _pd_run_question_dismiss                (Question            *question);
void      _pd_run_controller_close_question       (PdRunController     *self,
                                                   Question            *question);
void      _pd_run_controller_dismiss_questions    (PdRunController     *self);
void      _pd_run_controller_ask_approval         (PdRunController     *self,
                                                   Question            *question);
void      _pd_run_controller_ask_review           (PdRunController     *self,
                                                   Question            *question);

/* pd-run-controller-remote.c */
void      _pd_run_controller_begin_remote         (PdRunController     *self,
                                                   const char          *session_id,
                                                   const char          *message);
void      _pd_run_controller_stop_remote          (PdRunController     *self);
/* Follows what the endpoint's stream says of the run (pd_run_controller_new_for_remote()). */
void      _pd_run_controller_watch_remote         (PdRunController     *self);
void      _pd_run_controller_answer_remote        (PdRunController     *self,
                                                   const PdRemoteRun   *run,
                                                   gboolean             allow);

G_END_DECLS
