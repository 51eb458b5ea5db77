/* pd-remote-source-private.h: between the parts of PdRemoteSource: the
 * object and its requests (pd-remote-source.c), the PdSource calls
 * (pd-remote-source-iface.c), the live updates and connection state
 * (pd-remote-source-live.c), the endpoint's runs
 * (pd-remote-source-runs.c), and its replies' bounds
 * (pd-remote-source-bounds.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <libsoup/soup.h>

#include "pd-bounded-reply.h"
#include "pd-event.h"
#include "pd-remote-source.h"

G_BEGIN_DECLS

/* Reconnecting after the server went away: 0.5 s, 1 s, 2 s … at most 30 s. */
#define RECONNECT_FIRST_MS  500
#define RECONNECT_MAX_MS    30000
/* … but at most 2 s while the connection is refused: nothing listens there
 * (a serve stopped, to be started again), and a refused connection costs
 * the endpoint nothing.  A restarted serve waited up to 30 s for its next
 * try, its banner saying "connection refused" all the while. */
#define RECONNECT_REFUSED_MAX_MS 2000
/* A stream that lived this long and said something real puts the back-off
 * back to none when it ends; a shorter one, or one of comments alone,
 * grows it. */
#define RECONNECT_RESET_MS  5000

/* A server that stops answering (hung, or the network cut) sends no error:
 * the watchdog takes it for gone when nothing came for WATCHDOG_FACTOR
 * times the stream's announced keepalive, or, when it announces none (odek,
 * an older serve), when a health probe sent every PROBE_MS is not answered
 * within WATCHDOG_FACTOR × PROBE_MS.  It looks every WATCHDOG_TICK_MS. */
#define WATCHDOG_FACTOR     2.5
#define PROBE_MS            1000
#define WATCHDOG_TICK_MS    250
#define KEEPALIVE_MIN_MS    200
#define KEEPALIVE_MAX_MS    60000

/* The client's budget of session lookups (GET /api/sessions/ID…), which a
 * server limits to 60 a minute per client (odek, and serve by default): a
 * token bucket of LOOKUP_BURST that refills LOOKUP_PER_MINUTE a minute, so
 * that no 60 s window holds more than LOOKUP_BURST + LOOKUP_PER_MINUTE
 * (58) of them.  A lookup with no token waits, merged with any other
 * waiting lookup of the same path: several changes, one refetch.  Our
 * serve announces its limit (/api/health's lookup_limit): the budget
 * follows it, and there is none when the server has none. */
#define LOOKUP_BURST        8
#define LOOKUP_PER_MINUTE   50
#define LOOKUP_LIMIT_ASSUMED 60

typedef enum
{
  OP_LIST,
  OP_GET,
  OP_PLAN,
  OP_HISTORY,
  OP_MESSAGES,
  OP_PAGE,      /* GET /api/sessions/ID?before=: a page of its messages */
  OP_EVENTS,
  OP_USAGE,
  OP_UPDATE,
  OP_DELETE,
  OP_PROMPT,    /* POST /api/prompt: a run starts */
  OP_RUN,       /* GET /api/runs/ID */
  OP_ANSWER,    /* POST /api/runs/ID/approval */
  OP_CANCEL,    /* POST /api/cancel?session_id= */
  OP_RUNS,      /* GET /api/runs: the live run of one session */
} OpKind;

typedef struct
{
  OpKind      kind;
  char       *method;
  char       *path;         /* with the query */
  char       *body;         /* JSON text or NULL */
  char       *id;           /* the session, for its token */
  gboolean    detail;       /* OP_PLAN: asked …/plan/detail */
  gint64      after_seq;
  gboolean    bootstrapped; /* the session token was fetched for this call */
  GPtrArray  *followers;    /* GTasks merged into this waiting lookup; they get its answer */
  gboolean    shares_export; /* OP_HISTORY/OP_MESSAGES: the request others share */
  gsize       max_bytes;     /* the reply's bound; 0: PD_BOUNDED_REPLY_MAX_BYTES */
  guint       changes;      /* shares_export: the source's changes when it was asked */
  gboolean    budgeted;     /* a lookup given its token in the queue: it goes */
  guint       token_serial; /* the source's token_serial when it was sent */
  gboolean    keyed;        /* failed_key was decided (pd-remote-source-backoff.c) */
  char       *failed_key;   /* (nullable) what a failure of this read is kept by */
  GError     *failure;      /* (nullable) the failure the endpoint answered it with */
} Call;

/* GET /api/sessions/ID/export answers both the plan history and the
 * messages, which the History and Transcript pages ask for at once on each
 * change: one request answers both, and its answer serves later asks until
 * the next change the source hears of (PdSource::changed). */
typedef struct
{
  char        *id;
  guint        changes;     /* the source's changes it was asked at */
  SoupMessage *msg;         /* a successful answer */
  GBytes      *bytes;
} ExportAnswer;

struct _PdRemoteSource
{
  GObject       parent_instance;

  char         *base;            /* scheme://host:port and its path, no trailing slash */
  char         *base_query;      /* (nullable) the address's query, without its token */
  char         *base_url;        /* both, as the endpoint is known */
  char         *token;
  guint         token_serial;    /* tokens set so far: a refusal of an older one is no verdict */
  SoupSession  *session;
  GMainContext *context;
  GHashTable   *session_tokens;  /* session id → X-Session-Token */
  gint64        backoff_until;   /* monotonic µs */
  guint         backoff_seconds;
  int           has_detail;      /* -1 unknown, 0 no, 1 yes */
  double        lookup_tokens;   /* the lookup budget: tokens left … */
  gint64        lookup_refilled; /* … as of this monotonic µs */
  GHashTable   *lookups_waiting; /* "kind path" → GTask (borrowed): lookups waiting for budget or backoff */
  GQueue        lookup_queue;    /* (element-type GTask) (owned) the same, in the order they go */
  GSource      *lookup_timer;    /* (nullable) for the first of them */
  char         *shown_id;        /* (nullable) the session the person looks at: its reads first */
  guint         changes;         /* PdSource::changed emitted so far */
  GHashTable   *exports_asked;   /* session id → GTask (borrowed): its export request, not yet answered */
  ExportAnswer *last_export;     /* the last export answered, while no change came since */

  guint         watch_interval;
  GCancellable *watch_cancellable;
  guint         watch_source;
  gboolean      streaming;
  gboolean      stream_spoke;    /* the open stream delivered an event, a push or a change */
  gint64        stream_since;    /* monotonic µs at which the open stream was answered */
  gboolean      stream_pushes;   /* the open stream pushes sessions (?sessions=1) */
  char         *last_event_key;
  struct _PdRemoteStream *stream; /* (nullable) its event stream, read on the streams' thread */

  guint         keepalive_ms;    /* announced by /api/health; 0 when not */
  gint64        lookup_limit;    /* announced by /api/health: a minute, 0 none; -1 when not */
  guint         watchdog_source;  /* its context's shared watchdog (pd-remote-source-live.c) while watched, else 0 */
  gint64        waiting_since;   /* monotonic µs: a watch request (or the stream's next line) awaited since; 0 none */
  gint64        probe_since;     /* a health probe awaited since; 0 none */
  gint64        last_heard;      /* the last answer or line */
  gint64        last_tick;

  PdRemoteState state;
  char         *state_message;   /* why it is offline or denied */
  gboolean      host_refused;    /* the last 401/403 refused the Host, not the token */
  guint         reconnect_ms;    /* the next wait before reconnecting */
  gboolean      connect_refused; /* the last try's connection was refused */

  guint         list_pace_ms;    /* > 0: a test's pace for session lists (PdReplyPace's first_ms) … */
  guint         list_pace_rate;  /* … and their least rate */

  GHashTable   *failed_reads;    /* failed_key → FailedRead: reads answered with a failure, waiting */
  guint         failed_first_ms; /* > 0: a test's first wait after such a failure */
};

/* A request: its path is @format's; @id names the session whose token
 * it sends. */
Call     *_pd_remote_source_call_new     (OpKind               kind,
                                          const char          *method,
                                          const char          *id,
                                          const char          *format,
                                          ...) G_GNUC_PRINTF (4, 5);
/* pd-remote-source-budget.c: whether @task (taken) goes now, else it
 * waits for the lookup budget; the request of a waiting lookup forgotten
 * as it is sent; whether @call is for the shown session. */
gboolean  _pd_remote_source_admit_lookup (PdRemoteSource      *self,
                                          GTask               *task);
void      _pd_remote_source_forget_waiting_lookup (PdRemoteSource *self,
                                                   GTask          *task);
gboolean  _pd_remote_source_call_is_shown (PdRemoteSource     *self,
                                           const Call         *call);
void      _pd_remote_source_budget_clear (PdRemoteSource      *self);
/* pd-remote-source-backoff.c: a read answered with a failure waits before
 * it is sent again.  _pd_remote_source_fail() answers @task with @error
 * (taken), a failure the endpoint answered; _pd_remote_source_note_read()
 * keeps it once its reply is handled (@msg NULL when none came), or
 * forgets it on a success; _pd_remote_source_replay_failure() answers
 * @task (taken, when TRUE) with it while its wait is not over. */
GHashTable *_pd_remote_source_failed_reads_new (void);
void      _pd_remote_source_fail         (GTask               *task,
                                          GError              *error);
void      _pd_remote_source_note_read    (PdRemoteSource      *self,
                                          GTask               *task,
                                          SoupMessage         *msg);
gboolean  _pd_remote_source_replay_failure (PdRemoteSource    *self,
                                            GTask             *task);
void      _pd_remote_source_forget_session_failures (PdRemoteSource *self,
                                                     const char     *session_id);
/* Sends @task (taken) as it is, its lookup token taken. */
void      _pd_remote_source_send_call    (GTask               *task);
/* @task's export request ends: @msg and @bytes its answer, or NULL. */
void      _pd_remote_source_export_answered (PdRemoteSource   *self,
                                             GTask            *task,
                                             SoupMessage      *msg,
                                             GBytes           *bytes);
/* Sends @call (taken) as a task of @self. */
void      _pd_remote_source_start_call   (PdRemoteSource      *self,
                                          Call                *call,
                                          gpointer             tag,
                                          GCancellable        *cancellable,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data);
/* %TRUE when @id is a session id; else reports the error to @callback. */
gboolean  _pd_remote_source_check_id     (const char          *id,
                                          GAsyncReadyCallback  callback,
                                          gpointer             user_data,
                                          PdRemoteSource      *self,
                                          gpointer             tag);
/* GET @path (with its query), as the PdSource calls do. */
void  _pd_remote_source_start_get    (PdRemoteSource      *self,
                                      OpKind               kind,
                                      const char          *path,
                                      gpointer             tag,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
/* The DENIED error of a 401 or 403 whose body said @why (nullable). */
GError *_pd_remote_source_denied_error (PdRemoteSource *self,
                                        guint           status,
                                        const char     *why);
/* A reply came too slowly (@error says so): offline, and the watch, when
 * on, asks again after its growing wait. */
void  _pd_remote_source_note_too_slow (PdRemoteSource     *self,
                                       const GError       *error);
/* More values in @size bytes of JSON than a real reply or pushed line
 * holds (pd-remote-source.c says how much): not to be parsed. */
gboolean _pd_remote_json_bloated (const char *data,
                                  gsize       size);
/* The server answered with a failure: offline or denied, and reconnect. */
void  _pd_remote_source_note_failure (PdRemoteSource      *self,
                                      const GError        *error);
void  _pd_remote_source_notify_state (PdRemoteSource      *self);
void  _pd_remote_source_emit_event   (PdRemoteSource      *self,
                                      PdEvent             *event);
void  _pd_remote_source_emit_sessions_pushed (PdRemoteSource *self,
                                              GPtrArray      *sessions);
/* GET …/export for the plan history (@kind OP_HISTORY) or the messages
 * (OP_MESSAGES): one request, or one answer kept since the last change,
 * serves both. */
void  _pd_remote_source_get_export   (PdRemoteSource      *self,
                                      OpKind               kind,
                                      const char          *id,
                                      gpointer             tag,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
/* pd-remote-source-bounds.c: the most a reply of @kind may be, and how
 * fast it must come. */
gsize       _pd_remote_source_reply_bound (OpKind          kind);
PdReplyPace _pd_remote_source_reply_pace  (PdRemoteSource *self,
                                           OpKind          kind);
/* The PdSource interface of PdRemoteSource. */
void  _pd_remote_source_iface_init   (PdSourceInterface   *iface);

G_END_DECLS
