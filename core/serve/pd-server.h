/* pd-server.h: PdServer, the REST API of `plandeck-agent serve`.
 *
 * The paths, headers, status codes and JSON shapes are odek's `serve` ones
 * (reference §5), so a client of either works against both:
 *
 *   GET    /api/health
 *   GET    /api/sessions[?q=&limit=&offset=]   bare array without a query
 *   GET    /api/models                         the model runs use
 *   GET    /api/resources?q=&limit=            @ completions: folder entries, sessions
 *   GET    /api/sessions/{id}                  the record with its messages, X-Session-Token
 *   POST   /api/sessions/{id}                  {name?, pinned?}, strict token
 *   DELETE /api/sessions/{id}                  strict token, 204
 *   GET    /api/sessions/{id}/export           record + messages + plan versions
 *   GET    /api/sessions/{id}/plan             {session_id, version, steps, found}
 *   GET    /api/sessions/{id}/plan/detail      ours: checks, revision, history
 *   GET    /api/events[?limit=&run_id=&session_id=&after_seq=]
 *   GET    /api/events/stream[?session_id=&run_id=]   Server-Sent Events (ours)
 *   GET    /api/usage
 *   POST   /api/prompt {session_id?, message}  202 {run_id, session_id, status}
 *   GET    /api/runs, /api/runs/{id}           with the question a run waits on
 *   POST   /api/runs/{id}/approval {id, action}   ours: answers it, session token
 *   POST   /api/cancel?session_id=
 *   GET    /ws                                 odek's WebSocket: prompts, tool events,
 *                                              approvals (pd-server-ws.c)
 *
 * With pd_server_set_webui(), `/`, `/app.js` and `/style.css` serve a
 * browser UI folder the way odek serves its own (pd-server-webui.c).
 *
 * Threads: the server runs its own GMainContext in a dedicated thread,
 * started by pd_server_start() and joined by pd_server_stop(); handlers,
 * the rate limiter, the run table and the plan cache live on that thread
 * only.  Database reads run in GTask worker threads, each on a connection
 * of its own from a small pool, so a slow query never stalls the loop; the
 * answers of GET …/plan are cached per session and invalidated by a
 * generation counter that our own writes, the event bus and a
 * PRAGMA data_version watcher (other processes) bump.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "pd-approver.h"
#include "pd-engine.h"
#include "pd-event-bus.h"
#include "pd-exit-plan-mode-tool.h"
#include "pd-session-store.h"

G_BEGIN_DECLS

#define PD_SERVER_DEFAULT_HOST        "127.0.0.1"
#define PD_SERVER_DEFAULT_PORT        8080
#define PD_SERVER_DEFAULT_RATE_LIMIT  60     /* session lookups per minute per client */
#define PD_SERVER_MAX_ACTIVE_RUNS     20
#define PD_SERVER_MAX_STREAMS         64     /* default of --max-streams */
#define PD_SERVER_MAX_STREAMS_PER_CLIENT 16   /* of them from one client address, by default */
#define PD_SERVER_STREAM_MAX_BACKLOG  (256 * 1024)  /* bytes a stream's client may be behind, beyond its socket */
#define PD_SERVER_STREAM_KEEPALIVE_MS 1000   /* a stream's comment line; /api/health's keepalive_ms */
#define PD_SERVER_MAX_BODY            (1024 * 1024)
#define PD_SERVER_APPROVAL_TIMEOUT    60     /* seconds a person has to answer, as odek */
#define PD_SERVER_MAX_SOCKETS         20     /* WebSockets at once, as odek */
#define PD_SERVER_SOCKET_RATE         30     /* WebSocket upgrades per minute per client, as odek */
#define PD_SERVER_MAX_WS_MESSAGE      (8 * 1024 * 1024)

#define PD_SERVER_ERROR (pd_server_error_quark ())

typedef enum
{
  PD_SERVER_ERROR_ADDRESS,   /* --listen could not be understood */
  PD_SERVER_ERROR_LISTEN,    /* the socket could not be bound */
  PD_SERVER_ERROR_DATABASE,  /* the database could not be opened */
} PdServerError;

GQuark pd_server_error_quark (void);

/* What POST /api/prompt asks for, handed to the engine factory.  The
 * engine must use @store and @bus (so the server sees its turns and
 * events) and @run_id (PdEngineOptions.run_id). */
typedef struct
{
  const char     *session_id;   /* (nullable) continue this session */
  const char     *message;
  const char     *model;        /* (nullable) the request's "model" */
  const char     *run_id;
  PdSessionStore *store;
  PdEventBus     *bus;
  /* Who answers approval questions: the person watching the run (its
   * WebSocket, or the desktop app through POST /api/runs/ID/approval), or
   * nobody within the timeout, which denies.  Hand @approve_data to the
   * engine's approver with @approve_destroy (pd_engine_builder_set_approval,
   * pd_approver_set_func), or call @approve_destroy on it. */
  PdApprovalFunc  approve;
  gpointer        approve_data;
  GDestroyNotify  approve_destroy;
  /* Who reviews a plan exit_plan_mode hands in: the same person, asked the
   * same way.  Hand @review_data to pd_engine_builder_set_review_func (or
   * the exit_plan_mode tool's) with @review_destroy, or call
   * @review_destroy on it. */
  PdPlanReviewFunc review;
  gpointer         review_data;
  GDestroyNotify   review_destroy;
} PdServerRunRequest;

/* Called on the server thread; returns a new engine for one run. */
typedef PdEngine *(*PdServerEngineFunc) (const PdServerRunRequest  *request,
                                         gpointer                   user_data,
                                         GError                   **error);

#define PD_TYPE_SERVER (pd_server_get_type ())

G_DECLARE_FINAL_TYPE (PdServer, pd_server, PD, SERVER, GObject)

PdServer       *pd_server_new              (const char          *db_path);
gboolean        pd_server_parse_listen     (const char          *text,
                                            char               **host,
                                            guint               *port,
                                            GError             **error);
void            pd_server_set_listen       (PdServer            *self,
                                            const char          *host,
                                            guint                port);
void            pd_server_add_allowed_host (PdServer            *self,
                                            const char          *host);
void            pd_server_add_allowed_origin (PdServer          *self,
                                            const char          *origin);
void            pd_server_set_watch_interval (PdServer          *self,
                                              guint              interval_ms);
void            pd_server_set_rate_limit   (PdServer            *self,
                                            guint                per_minute);
void            pd_server_set_approval_timeout (PdServer        *self,
                                            guint                seconds);
void            pd_server_set_stream_limits (PdServer           *self,
                                            guint                total,
                                            guint                per_client);
void            pd_server_set_stream_keepalive (PdServer        *self,
                                            guint                interval_ms);
void            pd_server_set_token        (PdServer            *self,
                                            const char          *token);
void            pd_server_set_model        (PdServer            *self,
                                            const char          *model);
void            pd_server_set_working_directory (PdServer       *self,
                                            const char          *path);
gboolean        pd_server_set_webui        (PdServer            *self,
                                            const char          *dir,
                                            GError             **error);
void            pd_server_set_engine_func  (PdServer            *self,
                                            PdServerEngineFunc   func,
                                            gpointer             user_data,
                                            GDestroyNotify       destroy);

gboolean        pd_server_start            (PdServer            *self,
                                            GError             **error);
void            pd_server_stop             (PdServer            *self);

guint           pd_server_get_port         (PdServer            *self);
guint           pd_server_get_active_runs  (PdServer            *self);
const char     *pd_server_get_read_only    (PdServer            *self);
const char     *pd_server_get_token        (PdServer            *self);
char           *pd_server_dup_base_url     (PdServer            *self);
char           *pd_server_dup_start_url    (PdServer            *self);
PdEventBus     *pd_server_get_bus          (PdServer            *self);
PdSessionStore *pd_server_get_store        (PdServer            *self);

G_END_DECLS
