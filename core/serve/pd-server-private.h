/* pd-server-private.h: between the parts of PdServer.
 *
 * pd-server.c       the object, lifecycle, routing, shared answer helpers
 * pd-server-guard.c tokens, Host, Origin, the rate limiter
 * pd-server-reads.c the session routes and the plan cache (worker threads)
 * pd-server-runs.c  POST /api/prompt, /api/runs, /api/cancel
 * pd-server-stream.c GET /api/events/stream
 * pd-server-conns.c connections closed once their client is gone
 * pd-server-webui.c --webui: a browser UI served as odek serves its own
 *
 * Everything here runs on the server's thread unless it says otherwise.
 */
#pragma once

#include <libsoup/soup.h>

#include "pd-server.h"

G_BEGIN_DECLS

typedef struct _Run Run;
typedef struct _Refusal Refusal;
typedef struct _PdServerWebui PdServerWebui;

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
  char               *token;
  char               *model;
  char               *working_directory;   /* (nullable) what /api/resources lists */
  PdServerWebui      *webui;               /* (nullable) --webui: a browser UI, odek's way */
  PdServerEngineFunc  engine_func;
  gpointer            engine_data;
  GDestroyNotify      engine_destroy;

  /* Shared between threads. */
  PdSessionStore     *store;           /* writes and runs */
  GAsyncQueue        *readers;         /* PdSessionStore, one connection each */
  PdEventBus         *bus;
  volatile gint       generation;      /* bumped on every change we can see */
  GThread            *watcher;
  GMutex              watch_lock;
  GCond               watch_cond;
  gboolean            watch_stop;

  /* The server thread. */
  GThread            *thread;
  GMainContext       *context;
  GMainLoop          *loop;
  SoupServer         *soup;
  GMutex              start_lock;
  GCond               start_cond;
  gboolean            start_done;
  GError             *start_error;
  gint64              started_at;      /* unix µs */
  gboolean            stopping;
  guint               pending;         /* worker tasks not yet completed */
  GHashTable         *rate;            /* client address → RateBucket */
  GHashTable         *plan_cache;      /* session id → PlanCacheEntry */
  GHashTable         *runs;            /* run id → Run */
  GQueue              finished_runs;   /* run ids, oldest first */
  guint               active_runs;
  GList              *streams;         /* Stream */
  GHashTable         *conns;           /* GSocket → Conn (pd-server-conns.c) */
  GList              *refusals;        /* Refusal (pd-server-conns.c) */
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

/* pd-server-conns.c */
void        _pd_server_conns_init         (PdServer          *self);
void        _pd_server_conns_clear        (PdServer          *self);
guint       _pd_server_conns_count        (PdServer          *self);
void        _pd_server_conns_request_started  (PdServer          *self,
                                               SoupServerMessage *msg);
void        _pd_server_conns_request_finished (PdServer          *self,
                                               SoupServerMessage *msg);
void        _pd_server_conns_watch_stream (PdServer          *self,
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
                                           const char        *presented,
                                           gboolean           instance_header);
void        _pd_server_handle_resources   (PdServer          *self,
                                           SoupServerMessage *msg,
                                           GHashTable        *query);
void        _pd_server_handle_events      (PdServer          *self,
                                           SoupServerMessage *msg,
                                           GHashTable        *query);

/* pd-server-runs.c */
void        _pd_server_run_unref          (Run               *run);
void        _pd_server_handle_prompt      (PdServer          *self,
                                           SoupServerMessage *msg,
                                           const char        *presented,
                                           gboolean           instance_header);
void        _pd_server_handle_runs        (PdServer          *self,
                                           SoupServerMessage *msg,
                                           const char        *rest);
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

/* pd-server-stream.c */
void        _pd_server_handle_stream      (PdServer          *self,
                                           SoupServerMessage *msg,
                                           GHashTable        *query);
gboolean    _pd_server_announce_store_changed (gpointer           data);
void        _pd_server_end_streams        (PdServer          *self);

G_END_DECLS
