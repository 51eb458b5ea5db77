/* pd-server-private.h: between the parts of PdServer.
 *
 * pd-server.c       the object, lifecycle, routing, shared answer helpers
 * pd-server-guard.c tokens, Host, Origin, the rate limiter
 * pd-server-reads.c the session routes and the plan cache (worker threads)
 * pd-server-plans.c a plan and its history as odek's JSON
 * pd-server-heavy.c the reads of imported sessions' transcripts, shared
 * pd-server-runs.c  POST /api/prompt, /api/runs, /api/cancel
 * pd-server-stream.c GET /api/events/stream
 * pd-server-accept.c the listening socket, accepted in bulk
 * pd-server-conns.c connections closed once their client is gone
 * pd-server-webui.c --webui: a browser UI served as odek serves its own
 * pd-server-ws.c    /ws, odek's WebSocket: prompts, their events, approvals
 * pd-server-approval.c one question to a person about a tool call
 *
 * Everything here runs on the server's thread unless it says otherwise.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <libsoup/soup.h>

#include "pd-database-watcher.h"
#include "pd-server.h"

G_BEGIN_DECLS

typedef struct _Run Run;
typedef struct _Refusal Refusal;
typedef struct _PdServerWebui PdServerWebui;
typedef struct _Approval Approval;
typedef struct _Socket Socket;

/* pd-server-heavy.c: what a read of a transcript answers */
typedef struct
{
  guint   status;
  GBytes *body;            /* application/json, or NULL (204) */
  char   *session_token;   /* X-Session-Token, or NULL */
} PdServerHeavyAnswer;
typedef void (*PdServerHeavyHook) (gpointer user_data);

typedef enum
{
  APPROVAL_PENDING,
  APPROVAL_APPROVE,
  APPROVAL_DENY,
  APPROVAL_TRUST,       /* approve, and the socket trusts the class from now */
  APPROVAL_TIMEOUT,     /* nobody answered in time: denied */
  APPROVAL_CANCELLED,   /* the run was cancelled or its socket went: denied */
} ApprovalAnswer;

/* Who watches a run (pd-server-ws.c: a socket's prompt).  Server thread. */
typedef struct
{
  void     (*session)  (Run *run, gpointer data, const char *session_id, const char *auth_token);
  void     (*thinking) (Run *run, gpointer data, const char *text);
  void     (*tool)     (Run *run, gpointer data, PdEngineToolStage stage, const char *name,
                        const char *text, gboolean ok);
  void     (*ask)      (Run *run, gpointer data, Approval *approval);
  /* @outcome NULL: the engine failed with @error */
  void     (*done)     (Run *run, gpointer data, PdRunResult *outcome, const GError *error);
  void     (*release)  (gpointer data);
} RunObserver;

struct _PdServer
{
  GObject             parent_instance;

  /* Settings, fixed once started. */
  char               *db_path;
  char               *host;
  guint               port;
  GPtrArray          *allowed_hosts;   /* lower case */
  GPtrArray          *allowed_origins;
  guint               rate_limit;
  gint64              approval_timeout;   /* µs */
  guint               max_streams;
  guint               max_streams_per_client;
  guint               stream_keepalive_ms;
  char               *token;
  char               *model;
  char               *working_directory;   /* (nullable) what /api/resources lists */
  PdServerWebui      *webui;               /* (nullable) --webui: a browser UI, odek's way */
  char               *read_only;       /* why the database cannot be written, or NULL */
  PdServerEngineFunc  engine_func;
  gpointer            engine_data;
  GDestroyNotify      engine_destroy;

  /* Shared between threads. */
  PdSessionStore     *store;           /* writes and runs */
  GAsyncQueue        *readers;         /* PdSessionStore, one connection each */
  PdEventBus         *bus;
  volatile gint       generation;      /* bumped on every change we can see */
  guint               watch_interval;  /* ms, the database watcher's fallback poll */

  /* The server thread. */
  GThread            *thread;
  GMainContext       *context;
  PdDatabaseWatcher  *db_watcher;      /* other processes' commits */
  gboolean            db_watched;      /* its baseline reading came */
  GMainLoop          *loop;
  SoupServer         *soup;
  GSocket            *listener;        /* pd-server-accept.c */
  GSource            *accept_source;
  GSource            *accept_pause;    /* out of descriptors: a moment's wait */
  GMutex              start_lock;
  GCond               start_cond;
  gboolean            start_done;
  GError             *start_error;
  gint64              started_at;      /* unix µs */
  gboolean            stopping;
  guint               pending;         /* worker tasks not yet completed */
  GHashTable         *rate;            /* client address → RateBucket */
  GHashTable         *plan_cache;      /* session id → PlanCacheEntry */
  gboolean            push_running;    /* a push's read is under way (pd-server-push.c) */
  gboolean            push_again;      /* a commit came during it */
  gint64              push_mark;       /* unix µs: when the last push read */
  guint               push_total;      /* sessions then, G_MAXUINT: not known */
  GHashTable         *pushed;          /* session id → gint64 updated_at, pushed lately */
  GHashTable         *runs;            /* run id → Run */
  GQueue              finished_runs;   /* run ids, oldest first */
  guint               active_runs;
  GList              *streams;         /* Stream */
  guint               n_streams;       /* in it */
  int                 streams_epoll;   /* watches their sockets, while there are streams */
  GSource            *streams_poll;    /* on the server's loop: the epoll descriptor */
  GSource            *streams_flush;   /* idle: writes what the last events queued */
  GList              *closed_streams;  /* Stream, freed once no walk of the streams runs */
  guint               streams_walking;
  guint               streams_listener; /* on the bus while there are streams */
  GSource            *streams_keepalive; /* while there are streams */
  guint               streams_check;    /* idle: drops streams too far behind */
  GHashTable         *conns;           /* GSocket → Conn (pd-server-conns.c) */
  GHashTable         *conn_peers;      /* client address → ConnPeer, its connections */
  GSource            *conns_sweep;     /* each second while there are connections */
  GList              *sockets;         /* Socket (pd-server-ws.c) */
  guint               upgrading;       /* WebSocket handshakes under way */
  GHashTable         *socket_rate;     /* client address → RateBucket, upgrades */
  GSource            *sockets_deadline;   /* stopping: closes what did not close */
  GList              *refusals;        /* Refusal (pd-server-conns.c) */
  guint               conns_cap;       /* connections and refusals at once */
  guint               fd_limit;        /* RLIMIT_NOFILE's soft limit, 0 for none */
  guint               fds_counted;     /* descriptors open at the last count of them */
  gint64              fds_counted_at;  /* monotonic µs of that count, 0 for none yet */
  guint64             conns_accepted;  /* connections ever, and at that count: */
  guint64             conns_accepted_counted;
  GThreadPool        *heavy_pool;      /* transcripts' reads (pd-server-heavy.c) */
  GAsyncQueue        *heavy_readers;   /* PdSessionStore, theirs */
  GHashTable         *heavy_flights;   /* key → Flight, reads under way */
  GQueue              heavy_queued;    /* Flight, waiting for a reader, oldest first */
  GQueue              heavy_running;   /* Flight, on a reader */
  GHashTable         *heavy_started_by; /* client address → guint, reads started, ever */
  GHashTable         *heavy_clients;   /* client address → guint, reads it started under way */
  GHashTable         *heavy_unsent;    /* GBytes → guint, long answers not yet written */
  gsize               heavy_unsent_max;
  GHashTable         *heavy_address_bytes; /* client address → gsize, its long answers not yet written */
  guint               heavy_stall_ms;  /* PD_SERVER_HEAVY_STALL_MS, or the tests' */
  gsize               heavy_floor_bytes; /* a second; PD_SERVER_HEAVY_FLOOR_BYTES, or the tests' */
  GHashTable         *heavy_lengths;   /* key → gsize, its last long answer's */
  GQueue              heavy_kept;      /* Kept, small answers, newest first */
  volatile gint       heavy_started;   /* reads started, ever; any thread */
  volatile gint       heavy_waiting;   /* requests waiting for one; any thread */
  GMutex              heavy_lock;      /* the hook */
  PdServerHeavyHook   heavy_hook;
  gpointer            heavy_hook_data;
};

/* pd-server.c */
char       *_pd_server_json_text          (JsonNode          *node);
char       *_pd_server_json_object_text   (JsonObject        *object);
void        _pd_server_respond_text       (SoupServerMessage *msg,
                                           guint              status,
                                           const char        *content_type,
                                           char              *body);
void        _pd_server_respond_json       (SoupServerMessage *msg,
                                           guint              status,
                                           JsonObject        *object);
char       *_pd_server_error_body         (const char        *message);
void        _pd_server_respond_error      (SoupServerMessage *msg,
                                           guint              status,
                                           const char        *message);
const char *_pd_server_query_get          (GHashTable        *query,
                                           const char        *name);
gboolean    _pd_server_parse_count        (const char        *text,
                                           gint64            *out);
void        _pd_server_maybe_quit         (PdServer          *self);
JsonObject *_pd_server_session_json       (const PdSessionInfo *info);
/* Any thread. */
void        _pd_server_bump_generation    (PdServer          *self);
gboolean    _pd_server_listens_on_address (PdServer          *self,
                                           const char        *host);

/* pd-server-guard.c */
gboolean    _pd_server_token_equal        (const char        *a,
                                           const char        *b);
gboolean    _pd_server_host_is_allowed    (PdServer          *self,
                                           const char        *host_header);
gboolean    _pd_server_origin_is_allowed  (PdServer          *self,
                                           const char        *origin);
char       *_pd_server_cookie_value       (SoupServerMessage *msg,
                                           const char        *name);
/* Any thread. */
gboolean    _pd_server_token_allows_read  (const char        *presented,
                                           gboolean           instance_header,
                                           const char        *session_token);
gboolean    _pd_server_token_allows_write (const char        *presented,
                                           gboolean           instance_header,
                                           const char        *session_token);
void        _pd_server_guard_watch        (PdServer          *self,
                                           SoupServerMessage *msg);
gboolean    _pd_server_guard_passed       (SoupServerMessage *msg,
                                           gboolean          *instance_header);
GBytes     *_pd_server_request_body       (SoupServerMessage *msg);
typedef struct _RateBucket RateBucket;
void        _pd_server_rate_bucket_free   (RateBucket        *bucket);
gboolean    _pd_server_rate_allow         (PdServer          *self,
                                           const char        *client);
gboolean    _pd_server_rate_allow_in      (GHashTable        *table,
                                           guint              limit,
                                           const char        *client);
gboolean    _pd_server_ws_token_offered   (PdServer          *self,
                                           SoupServerMessage *msg);

/* pd-server-accept.c */
gboolean    _pd_server_accept_listen      (PdServer          *self,
                                           GSocketAddress    *address,
                                           GError           **error);
void        _pd_server_accept_close       (PdServer          *self);
GSocket    *_pd_server_message_socket     (SoupServerMessage *msg);

/* pd-server-conns.c */
gboolean    _pd_server_conns_admit        (PdServer          *self,
                                           const char        *address);
void        _pd_server_conns_init         (PdServer          *self);
void        _pd_server_conns_clear        (PdServer          *self);
guint       _pd_server_conns_count        (PdServer          *self);
void        _pd_server_conns_request_started  (PdServer          *self,
                                               SoupServerMessage *msg);
void        _pd_server_conns_request_finished (PdServer          *self,
                                               SoupServerMessage *msg);
gboolean    _pd_server_conns_is_doomed    (PdServer          *self,
                                           SoupServerMessage *msg);
void        _pd_server_conns_close        (PdServer          *self,
                                           SoupServerMessage *msg);
void        _pd_server_conns_refuse       (PdServer          *self,
                                           SoupServerMessage *msg);
void        _pd_server_conns_end_refusals (PdServer          *self);

/* pd-server-reads.c */
typedef struct _PlanCacheEntry PlanCacheEntry;
typedef void (*PdServerAuthorized) (PdServer          *self,
                                    SoupServerMessage *msg,
                                    gpointer           data);
void        _pd_server_authorize_change   (PdServer           *self,
                                           SoupServerMessage  *msg,
                                           const char         *session_id,
                                           const char         *presented,
                                           gboolean            instance_header,
                                           PdServerAuthorized  then,
                                           gpointer            data,
                                           GDestroyNotify      destroy);
void        _pd_server_plan_cache_entry_free (PlanCacheEntry *entry);
void        _pd_server_handle_sessions    (PdServer          *self,
                                           SoupServerMessage *msg,
                                           GHashTable        *query);
void        _pd_server_handle_session     (PdServer          *self,
                                           SoupServerMessage *msg,
                                           const char        *rest,
                                           GHashTable        *query,
                                           const char        *presented,
                                           gboolean           instance_header);

/* pd-server-messages.c: GET /api/sessions/ID's messages, a page of them
 * (the comment at its top says which).  @before -1: the newest; @limit
 * -1: as many as the page holds. */
#define PD_SERVER_PAGE_BYTES ((gsize) 1024 * 1024)
gboolean    _pd_server_append_session_page (PdSessionStore *store,
                                            PdSessionInfo  *info,
                                            gint64          before,
                                            gint64          limit,
                                            GString        *out,
                                            GError        **error);
void        _pd_server_handle_resources   (PdServer          *self,
                                           SoupServerMessage *msg,
                                           GHashTable        *query);
void        _pd_server_handle_events      (PdServer          *self,
                                           SoupServerMessage *msg,
                                           GHashTable        *query);

/* pd-server-heavy.c */
/* Reads of transcripts at once, each on a thread and connection of its own */
#define PD_SERVER_HEAVY_READERS    2
/* Of them started by one client address and under way (running or
 * queued); past that, 429.  A Plandeck window asks an endpoint on four
 * connections at most, so it never meets it. */
#define PD_SERVER_HEAVY_PER_CLIENT 4
#define PD_SERVER_HEAVY_RETRY_AFTER_S 1
/* The bytes of long answers not yet written to their clients, each body
 * once, of all clients; past it, 503.  60 clients of 60 addresses that
 * asked a 60 MB session's record and never read held 1.10 GB (tried as
 * an attacker would). */
#define PD_SERVER_HEAVY_UNSENT_BYTES ((gsize) 192 * 1024 * 1024)
/* Of that bound, what one address's long answers may hold past its first
 * (which any address may have, however long): an eighth, so it takes eight
 * addresses, not one, to fill it; past it, 429.  6 addresses of 4 clients
 * that asked 8.9 MB answers and never read held the whole bound, and every
 * other reader was answered 503 for as long as they stayed (tried as an
 * attacker would). */
#define PD_SERVER_HEAVY_ADDRESS_PART 8
/* A long answer whose client took no byte of it for this long, or less than
 * PD_SERVER_HEAVY_FLOOR_BYTES a second over as long, is dropped and its
 * connection closed: its bytes given back to the bound.  30 s passes a
 * client's pause (a slow network, a machine waking up); 16 KiB/s is
 * 128 kbit/s, slower than any link a window of Plandeck reads on, and
 * reads an 8.9 MB answer in 9 minutes. */
#define PD_SERVER_HEAVY_STALL_MS    (30 * 1000)
#define PD_SERVER_HEAVY_FLOOR_BYTES (16 * 1024)
typedef enum
{
  PD_SERVER_HEAVY_ASKED,
  PD_SERVER_HEAVY_CLIENT_FULL,   /* 429 */
  PD_SERVER_HEAVY_ADDRESS_FULL,  /* 429: its part of the unsent bound */
  PD_SERVER_HEAVY_SERVER_FULL,   /* 503 */
} PdServerHeavyAsked;
/* A heavy thread: reads for @data on @store, and fills @answer. */
typedef void (*PdServerHeavyRead)     (gpointer                   data,
                                       PdSessionStore            *store,
                                       PdServerHeavyAnswer       *answer);
typedef void (*PdServerHeavyAnswered) (PdServer                  *self,
                                       gpointer                   data,
                                       const PdServerHeavyAnswer *answer);
gboolean    _pd_server_heavy_init         (PdServer          *self,
                                           GError           **error);
void        _pd_server_heavy_clear        (PdServer          *self);
PdServerHeavyAsked _pd_server_heavy_request (PdServer              *self,
                                           const char            *key,
                                           const char            *client,
                                           PdServerHeavyRead      read,
                                           PdServerHeavyAnswered  answered,
                                           gpointer               data,
                                           GDestroyNotify         destroy);
void        _pd_server_heavy_respond      (PdServer                  *self,
                                           SoupServerMessage         *msg,
                                           const PdServerHeavyAnswer *answer);
/* For the tests, on the server's thread or while it waits: the reads under
 * way and long answers not yet written of @client. */
guint       _pd_server_heavy_get_share    (PdServer                  *self,
                                           const char                *client);
/* For the tests; any thread.  @hook runs on a heavy thread before each
 * read (NULL: none). */
void        _pd_server_heavy_set_hook     (PdServer          *self,
                                           PdServerHeavyHook  hook,
                                           gpointer           user_data);
guint       _pd_server_heavy_get_started  (PdServer          *self);
/* For the tests; any thread: the reads started for @client, ever. */
guint       _pd_server_heavy_get_started_by (PdServer        *self,
                                             const char      *client);
/* For the tests; any thread: the bytes of long answers not yet written,
 * and their bound. */
gsize       _pd_server_heavy_get_unsent   (PdServer          *self);
void        _pd_server_heavy_set_unsent_max (PdServer        *self,
                                             gsize            max);
/* For the tests; any thread: the long answers dropped as stalled, ever, by
 * any server of the process. */
guint       _pd_server_heavy_get_dropped  (PdServer          *self);
guint       _pd_server_heavy_get_waiting  (PdServer          *self);
/* For the tests, before the first request: the stall time and rate floor. */
void        _pd_server_heavy_set_stall    (PdServer          *self,
                                           guint              stall_ms,
                                           gsize              floor_bytes);
/* Whether the database watcher's baseline reading came (its change counted). */
gboolean    _pd_server_get_db_watched     (PdServer          *self);

/* pd-server-plans.c; any thread */
JsonObject *_pd_server_plan_object        (const char        *session_id,
                                           const PdPlanState *state,
                                           GHashTable        *cancelled,
                                           gboolean           detail);
JsonArray  *_pd_server_history_array      (GPtrArray         *versions);

/* pd-server-approval.c; any thread */
/* A plan review: the tool, its risk class (odek's page shows it as a
 * word), and the longest plan shown (a preview's bound) */
#define PD_SERVER_PLAN_TOOL "exit_plan_mode"
#define PD_SERVER_PLAN_RISK "plan_review"
#define PD_SERVER_PLAN_MAX_BYTES (256 * 1024)
/* The most of a person's feedback that reaches the model */
#define PD_SERVER_FEEDBACK_MAX_BYTES (16 * 1024)
Approval   *_pd_server_approval_new       (const char        *tool,
                                           const char        *summary,
                                           const char        *preview);
Approval   *_pd_server_approval_new_plan  (const char        *markdown);
gboolean    _pd_server_approval_is_plan   (Approval          *approval);
gboolean    _pd_server_approval_answer_full (Approval        *approval,
                                           ApprovalAnswer     answer,
                                           const char        *feedback);
char       *_pd_server_approval_dup_feedback (Approval       *approval);
Approval   *_pd_server_approval_ref       (Approval          *approval);
void        _pd_server_approval_unref     (Approval          *approval);
const char *_pd_server_approval_get_id    (Approval          *approval);
const char *_pd_server_approval_get_risk  (Approval          *approval);
PdEvent    *_pd_server_approval_new_event (Approval         *approval,
                                           const char       *run_id,
                                           const char       *session_id,
                                           const char       *outcome);
gboolean    _pd_server_approval_allows_trust (Approval       *approval);
ApprovalAnswer _pd_server_approval_get_answer (Approval       *approval);
gboolean    _pd_server_approval_answer    (Approval          *approval,
                                           ApprovalAnswer     answer);
void        _pd_server_approval_start_clock (Approval        *approval,
                                             gint64           timeout_usec);
ApprovalAnswer _pd_server_approval_wait   (Approval          *approval,
                                           GCancellable      *cancellable);
gboolean    _pd_server_approval_is_masked  (Approval          *approval);
void        _pd_server_approval_set_controls (Approval        *approval,
                                              guint            kinds);
gboolean    _pd_server_approval_needs_friction (Approval      *approval);
const char *_pd_server_approval_masked_text (void);
JsonObject *_pd_server_approval_to_json   (Approval          *approval);
gboolean    _pd_server_approval_parse_action (const char     *action,
                                           ApprovalAnswer    *answer);

/* pd-server-runs.c */
void        _pd_server_run_unref          (Run               *run);
Run        *_pd_server_run_start          (PdServer          *self,
                                           const char        *session_id,
                                           const char        *message,
                                           const char        *model,
                                           const RunObserver *observer,
                                           gpointer           observer_data,
                                           guint             *status,
                                           GError           **error);
const char *_pd_server_run_get_id         (Run               *run);
const char *_pd_server_run_get_session_id (Run               *run);
void        _pd_server_run_cancel         (Run               *run,
                                           const char        *why);
Approval   *_pd_server_run_get_approval   (Run               *run,
                                           const char        *id);
gboolean    _pd_server_model_id_is_valid  (const char        *model);
void        _pd_server_handle_prompt      (PdServer          *self,
                                           SoupServerMessage *msg,
                                           const char        *presented,
                                           gboolean           instance_header);
void        _pd_server_handle_runs        (PdServer          *self,
                                           SoupServerMessage *msg,
                                           const char        *rest,
                                           const char        *presented,
                                           gboolean           instance_header);
void        _pd_server_handle_cancel      (PdServer          *self,
                                           SoupServerMessage *msg,
                                           GHashTable        *query,
                                           const char        *presented,
                                           gboolean           instance_header);
void        _pd_server_cancel_runs        (PdServer          *self);
void        _pd_server_detach_runs        (PdServer          *self);

/* pd-server-webui.c */
PdServerWebui *_pd_server_webui_load      (const char        *dir,
                                           GError           **error);
void        _pd_server_webui_free         (PdServerWebui     *webui);
void        _pd_server_webui_handle       (PdServer          *self,
                                           SoupServerMessage *msg,
                                           const char        *path,
                                           GHashTable        *query);

/* pd-ws-meter.c */
GIOStream  *_pd_ws_meter_new              (GIOStream         *base,
                                           guint64            max_message);

/* pd-server-ws.c */
void        _pd_server_ws_install         (PdServer          *self);
void        _pd_server_ws_close_all       (PdServer          *self);
void        _pd_server_ws_clear           (PdServer          *self);
guint       _pd_server_ws_count           (PdServer          *self);

/* pd-server-stream.c */
void        _pd_server_handle_stream      (PdServer          *self,
                                           SoupServerMessage *msg,
                                           GHashTable        *query,
                                           gboolean           instance_header);
gboolean    _pd_server_announce_store_changed (gpointer           data);
gboolean    _pd_server_streams_want_push  (PdServer          *self);
void        _pd_server_streams_push       (PdServer          *self,
                                           const char        *text);
void        _pd_server_end_streams        (PdServer          *self);

/* pd-server-push.c */
void        _pd_server_push_store_changed (PdServer          *self);
void        _pd_server_push_clear         (PdServer          *self);

G_END_DECLS
