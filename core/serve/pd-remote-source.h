/* pd-remote-source.h: a PdSource over a `serve` endpoint, ours or odek's.
 *
 * One SoupSession, asynchronous, on the main context that was
 * thread-default when the source was created.  Every request carries the
 * instance token (X-Odek-Ws-Token); the X-Session-Token a read returns is
 * remembered per session and sent with POST and DELETE (fetched first with
 * a GET when it is not known yet).
 *
 * Shapes: a bare-array session list and the paged object both read; events
 * in either schema (odek.event/v1, plandeck.event/v1) read; the plan comes
 * from …/plan/detail where the server has it and from …/plan otherwise.
 *
 * Errors are PD_SOURCE_ERROR: UNAVAILABLE (refused, timed out, 5xx),
 * DENIED (401/403), RATE_LIMITED (429: later requests wait for the
 * Retry-After or a doubling back-off), NOT_FOUND, INVALID (bad JSON).
 *
 * pd_remote_source_watch() follows the server's SSE stream when it has one
 * (our /api/events/stream) and polls /api/events otherwise, emitting
 * ::event for events it sees on the stream and PdSource::changed when a
 * session may have changed.  It also keeps :state: a server that goes
 * away is OFFLINE as soon as its stream breaks, reconnected with a growing
 * back-off (0.5 s to 30 s) and read again whole when it is back; a
 * refused token is DENIED until pd_remote_source_set_token().
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-remote-run.h"
#include "pd-source.h"

G_BEGIN_DECLS

/* How often a source without an event stream polls, by default. */
#define PD_REMOTE_SOURCE_WATCH_MS 2000

typedef enum
{
  PD_REMOTE_CONNECTING,  /* no answer yet */
  PD_REMOTE_ONLINE,      /* answering; its event stream followed */
  PD_REMOTE_OFFLINE,     /* cannot be reached; reconnecting with back-off */
  PD_REMOTE_DENIED,      /* 401/403: the token is missing or old */
} PdRemoteState;

#define PD_TYPE_REMOTE_STATE (pd_remote_state_get_type ())
GType pd_remote_state_get_type (void) G_GNUC_CONST;

/* A session as an endpoint's event stream pushed it (::sessions-pushed):
 * its record as the session list gives it, and, when the endpoint read its
 * plan, what a card shows of that. */
typedef struct
{
  PdSessionInfo *info;
  gboolean       has_step;         /* the two below were read */
  char          *current_step;     /* (nullable) the step in progress, else the first pending */
  gboolean       step_started;     /* current_step is in progress (an older serve: assumed so) */
  guint          unpassed_checks;
  char          *failed_check;     /* (nullable) a failed check of a step not done */
} PdRemotePushedSession;

void pd_remote_pushed_session_free (PdRemotePushedSession *pushed);

#define PD_TYPE_REMOTE_SOURCE (pd_remote_source_get_type ())

G_DECLARE_FINAL_TYPE (PdRemoteSource, pd_remote_source, PD, REMOTE_SOURCE, GObject)

PdRemoteSource *pd_remote_source_new          (const char     *url,
                                               const char     *token,
                                               GError        **error);
const char     *pd_remote_source_get_base_url (PdRemoteSource *self);
void            pd_remote_source_set_timeout  (PdRemoteSource *self,
                                               guint           seconds);
void            pd_remote_source_watch        (PdRemoteSource *self,
                                               guint           interval_ms);
gboolean        pd_remote_source_is_streaming (PdRemoteSource *self);
gint64          pd_remote_source_get_streaming_since (PdRemoteSource *self);
PdRemoteState   pd_remote_source_get_state    (PdRemoteSource *self);
const char     *pd_remote_source_get_state_message (PdRemoteSource *self);
gboolean        pd_remote_source_get_host_refused  (PdRemoteSource *self);
void            pd_remote_source_reconnect    (PdRemoteSource *self);
const char     *pd_remote_source_get_token    (PdRemoteSource *self);
void            pd_remote_source_set_token    (PdRemoteSource *self,
                                               const char     *token);
void            pd_remote_source_set_shown_session (PdRemoteSource *self,
                                                    const char     *session_id);
/* A read the endpoint answered with a failure (a 5xx, a refusal, a
 * malformed reply) is not sent again before a wait that doubles from 3 s
 * to 60 s; this ends the waits of @session_id's reads, or (NULL) of all. */
void            pd_remote_source_forget_failures   (PdRemoteSource *self,
                                                    const char     *session_id);

/* Runs on the endpoint: started or continued there (its engine, folder
 * and limits), followed, their questions answered, cancelled.  Said
 * PD_SOURCE_ERROR_UNSUPPORTED where the endpoint lacks the route. */
void            pd_remote_source_start_run_async  (PdRemoteSource      *self,
                                                   const char          *session_id,
                                                   const char          *message,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
PdRemoteRun    *pd_remote_source_start_run_finish (PdRemoteSource      *self,
                                                   GAsyncResult        *result,
                                                   GError             **error);
void            pd_remote_source_get_run_async    (PdRemoteSource      *self,
                                                   const char          *run_id,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
PdRemoteRun    *pd_remote_source_get_run_finish   (PdRemoteSource      *self,
                                                   GAsyncResult        *result,
                                                   GError             **error);
void            pd_remote_source_answer_approval_async  (PdRemoteSource      *self,
                                                         const PdRemoteRun   *run,
                                                         gboolean             approve,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
void            pd_remote_source_answer_review_async    (PdRemoteSource      *self,
                                                         const PdRemoteRun   *run,
                                                         gboolean             approve,
                                                         const char          *feedback,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
gboolean        pd_remote_source_answer_approval_finish (PdRemoteSource      *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);
void            pd_remote_source_find_run_async   (PdRemoteSource      *self,
                                                   const char          *session_id,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
PdRemoteRun    *pd_remote_source_find_run_finish  (PdRemoteSource      *self,
                                                   GAsyncResult        *result,
                                                   GError             **error);
void            pd_remote_source_cancel_async     (PdRemoteSource      *self,
                                                   const char          *session_id,
                                                   GCancellable        *cancellable,
                                                   GAsyncReadyCallback  callback,
                                                   gpointer             user_data);
gboolean        pd_remote_source_cancel_finish    (PdRemoteSource      *self,
                                                   GAsyncResult        *result,
                                                   GError             **error);

G_END_DECLS
