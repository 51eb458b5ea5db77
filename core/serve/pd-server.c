/* pd-server.c: the REST API of `plandeck-agent serve` on a SoupServer.
 *
 * See pd-server.h for the routes and the threading model.  This file holds
 * the object, its lifecycle (the server thread, the data_version watcher,
 * the event sink) and the routing; beside it pd-server-guard.c (tokens,
 * Host, Origin, rate limit), pd-server-reads.c (the session routes),
 * pd-server-runs.c (runs) and pd-server-stream.c (the event stream), with
 * pd-server-private.h between them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-server"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <glib/gi18n-lib.h>

#include "pd-server-private.h"
#include "pd-decimal.h"
#include "pd-plan-mode.h"
#include "pd-random.h"
#include "pd-soup-compat.h"

#define N_READERS            4
/* The fallback poll of the database watcher, besides its file monitors. */
#define WATCH_INTERVAL_MS    100

G_DEFINE_QUARK (pd-server-error-quark, pd_server_error)

G_DEFINE_FINAL_TYPE (PdServer, pd_server, G_TYPE_OBJECT)

/* ---------------------------------------------------------------------- */
/* Answers                                                                */

char *
_pd_server_json_text (JsonNode *node)
{
  return json_to_string (node, FALSE);
}

char *
_pd_server_json_object_text (JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (node, object);
  return _pd_server_json_text (node);
}

void
_pd_server_respond_text (SoupServerMessage *msg,
                         guint              status,
                         const char        *content_type,
                         char              *body)   /* (transfer full) */
{
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, content_type, SOUP_MEMORY_TAKE, body, strlen (body));
}

void
_pd_server_respond_json (SoupServerMessage *msg,
                         guint              status,
                         JsonObject        *object)   /* (transfer full) */
{
  char *text = _pd_server_json_object_text (object);

  json_object_unref (object);
  _pd_server_respond_text (msg, status, "application/json", text);
}

char *
_pd_server_error_body (const char *message)
{
  g_autoptr(JsonObject) object = json_object_new ();

  json_object_set_string_member (object, "error", message);
  return _pd_server_json_object_text (object);
}

void
_pd_server_respond_error (SoupServerMessage *msg,
                          guint              status,
                          const char        *message)
{
  _pd_server_respond_text (msg, status, "application/json", _pd_server_error_body (message));
}

const char *
_pd_server_query_get (GHashTable *query,
                      const char *name)
{
  return query ? g_hash_table_lookup (query, name) : NULL;
}

/* A non-negative decimal number, or FALSE. */
gboolean
_pd_server_parse_count (const char *text,
                        gint64     *out)
{
  guint64 value;

  if (text == NULL || *text == '\0' || !pd_decimal_parse (text, -1, G_MAXINT32, &value))
    return FALSE;
  *out = (gint64) value;
  return TRUE;
}

/* A session as the API shows it: the store's record without its token,
 * and `task` is the title a person sees.  odek's rename sets `task`, and
 * its clients (the browser UI's list) show `task`; ours keeps the first
 * prompt and the name apart, so a renamed session answers its name as
 * `task`, and `name` says it was renamed. */
JsonObject *
_pd_server_session_json (const PdSessionInfo *info)
{
  JsonObject *object = pd_session_info_to_json (info, FALSE);

  if (info->name != NULL && *info->name)
    json_object_set_string_member (object, "task", info->name);
  return object;
}

void
_pd_server_bump_generation (PdServer *self)
{
  g_atomic_int_inc (&self->generation);
}

/* ---------------------------------------------------------------------- */
/* Routing                                                                */

static void
handle_health (PdServer          *self,
               SoupServerMessage *msg)
{
  JsonObject *object = json_object_new ();
  g_autofree char *started = pd_session_time_to_string (self->started_at);

  json_object_set_string_member (object, "status", "ok");
  json_object_set_string_member (object, "version", PACKAGE_VERSION);
  json_object_set_string_member (object, "server", "plandeck");
  json_object_set_string_member (object, "started_at", started);
  json_object_set_int_member (object, "uptime_seconds", (g_get_real_time () - self->started_at) / G_USEC_PER_SEC);
  json_object_set_string_member (object, "model", self->model ? self->model : "");
  json_object_set_boolean_member (object, "sandbox", FALSE);
  json_object_set_boolean_member (object, "stream", TRUE);
  json_object_set_boolean_member (object, "events_stream", TRUE);
  /* Ours: the stream's comment line comes this often, so a client that
   * hears nothing for a few of them knows the server stopped answering. */
  json_object_set_int_member (object, "keepalive_ms", self->stream_keepalive_ms);
  /* Ours: the session lookups a client may make a minute (0: no limit), so
   * a client keeps its own budget to this, not to a guess. */
  json_object_set_int_member (object, "lookup_limit", self->rate_limit);
  json_object_set_boolean_member (object, "plan_detail", TRUE);
  /* Ours: /api/events/stream?sessions=1 pushes what other connections'
   * commits changed (pd-server-push.c). */
  json_object_set_boolean_member (object, "sessions_push", TRUE);
  json_object_set_int_member (object, "ws_connections", _pd_server_ws_count (self));
  json_object_set_int_member (object, "runs_active", self->active_runs);
  /* Ours: a run's question can be answered with POST /api/runs/ID/approval. */
  json_object_set_boolean_member (object, "run_approvals", TRUE);
  _pd_server_respond_json (msg, 200, object);
}

static void
handle_usage (PdServer          *self,
              SoupServerMessage *msg)
{
  PdUsage usage = pd_event_bus_get_usage (self->bus);
  JsonObject *object = pd_usage_to_json_object (&usage);

  json_object_set_double_member (object, "estimated_cost_usd", 0.0);
  json_object_set_boolean_member (object, "prices_configured", FALSE);
  json_object_set_string_member (object, "model", self->model ? self->model : "");
  json_object_set_int_member (object, "ws_connections", _pd_server_ws_count (self));
  json_object_set_int_member (object, "runs_active", self->active_runs);
  json_object_set_int_member (object, "subagents", 0);
  _pd_server_respond_json (msg, 200, object);
}

/* GET /api/models: the one model runs use (odek's HEAD answers the same);
 * a prompt may name another, which the provider then takes or refuses. */
static void
handle_models (PdServer          *self,
               SoupServerMessage *msg)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);
  JsonArray *array = json_array_new ();

  if (soup_server_message_get_method (msg) != SOUP_METHOD_GET)
    {
      json_array_unref (array);
      _pd_server_respond_error (msg, 405, "method not allowed");
      return;
    }
  if (self->model != NULL && *self->model)
    {
      JsonObject *model = json_object_new ();

      json_object_set_string_member (model, "id", self->model);
      json_object_set_int_member (model, "max_context", 0);
      json_object_set_string_member (model, "description", self->model);
      json_object_set_boolean_member (model, "current", TRUE);
      json_array_add_object_element (array, model);
    }
  json_node_take_array (node, array);
  _pd_server_respond_text (msg, 200, "application/json", _pd_server_json_text (node));
}

static void
handle_api (SoupServer        *soup,
            SoupServerMessage *msg,
            const char        *path,
            GHashTable        *query,
            gpointer           user_data)
{
  PdServer *self = user_data;
  SoupMessageHeaders *request_headers = soup_server_message_get_request_headers (msg);
  SoupMessageHeaders *response_headers = soup_server_message_get_response_headers (msg);
  const char *method = soup_server_message_get_method (msg);
  const char *session_header = soup_message_headers_get_one (request_headers, "X-Session-Token");
  g_autofree char *session_cookie = NULL;
  gboolean instance_header = FALSE;

  soup_message_headers_replace (response_headers, "Cache-Control", "no-store");

  if (self->stopping)
    {
      _pd_server_respond_error (msg, 503, "shutting down");
      return;
    }

  /* The instance token, Host and Origin were checked with the headers,
   * before the body was read (pd-server-guard.c); a request the guard did
   * not judge is not answered here. */
  if (!_pd_server_guard_passed (msg, &instance_header))
    {
      _pd_server_respond_error (msg, 403, "Forbidden");
      return;
    }

  if (session_header == NULL)
    session_header = session_cookie = _pd_server_cookie_value (msg, "session_token");

  if (strcmp (path, "/api/health") == 0)
    handle_health (self, msg);
  else if (strcmp (path, "/api/usage") == 0)
    {
      if (method != SOUP_METHOD_GET)
        _pd_server_respond_error (msg, 405, "method not allowed");
      else
        handle_usage (self, msg);
    }
  else if (strcmp (path, "/api/models") == 0)
    handle_models (self, msg);
  else if (strcmp (path, "/api/resources") == 0)
    _pd_server_handle_resources (self, msg, query);
  else if (strcmp (path, "/api/sessions") == 0)
    _pd_server_handle_sessions (self, msg, query);
  else if (g_str_has_prefix (path, "/api/sessions/"))
    _pd_server_handle_session (self, msg, path + strlen ("/api/sessions/"), query, session_header, instance_header);
  else if (strcmp (path, "/api/events") == 0)
    _pd_server_handle_events (self, msg, query);
  else if (strcmp (path, "/api/events/stream") == 0)
    _pd_server_handle_stream (self, msg, query, instance_header);
  else if (strcmp (path, "/api/prompt") == 0)
    _pd_server_handle_prompt (self, msg, session_header, instance_header);
  else if (strcmp (path, "/api/runs") == 0)
    _pd_server_handle_runs (self, msg, NULL, session_header, instance_header);
  else if (g_str_has_prefix (path, "/api/runs/"))
    _pd_server_handle_runs (self, msg, path + strlen ("/api/runs/"), session_header, instance_header);
  else if (strcmp (path, "/api/cancel") == 0)
    _pd_server_handle_cancel (self, msg, query, session_header, instance_header);
  else
    _pd_server_respond_error (msg, 404, "not found");
}

/* `GET /` says where the API is; with --webui the folder's browser UI is
 * served (pd-server-webui.c). No token cookie is set (see there). */
/* What the printed URL shows in a browser without odek's web UI: it said
 * "plandeck serve: the API is under /api/" and nothing of Plandeck (tried
 * as a new user would, nu15).  A small plain page naming the command that
 * opens it; no token in it (the page is answered without one). */
static char *
front_page (void)
{
  g_autofree char *title = g_markup_escape_text (_("Plandeck sessions, served"), -1);
  g_autofree char *open = g_markup_escape_text (_("Open it in Plandeck:"), -1);
  g_autofree char *url = g_markup_escape_text (_("URL is the address serve printed, with its token."), -1);
  g_autofree char *api = g_markup_escape_text (_("Scripts read the API under /api/."), -1);

  return g_strdup_printf ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title></head>\n"
                          "<body>\n<h1>%s</h1>\n<p>%s <code>plandeck --remote URL</code></p>\n<p>%s</p>\n"
                          "<p>%s</p>\n</body></html>\n",
                          title, title, open, url, api);
}

static void
handle_root (SoupServer        *soup,
             SoupServerMessage *msg,
             const char        *path,
             GHashTable        *query,
             gpointer           user_data)
{
  PdServer *self = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);

  soup_message_headers_replace (headers, "Cache-Control", "no-store");

  if (!_pd_server_guard_passed (msg, NULL))
    {
      _pd_server_respond_error (msg, 403, "Forbidden");
      return;
    }
  if (self->webui != NULL)
    {
      _pd_server_webui_handle (self, msg, path, query);
      return;
    }

  if (strcmp (path, "/") != 0 || soup_server_message_get_method (msg) != SOUP_METHOD_GET)
    {
      _pd_server_respond_error (msg, 404, "not found");
      return;
    }

  _pd_server_respond_text (msg, 200, "text/html; charset=utf-8", front_page ());
}

/* ---------------------------------------------------------------------- */
/* Event sink and data_version watcher                                    */

static void
persist_event (PdEvent  *event,
               gpointer  user_data)
{
  PdServer *self = user_data;
  const char *type = pd_event_get_event_type (event);
  g_autofree char *json = NULL;
  g_autoptr(GError) error = NULL;

  /* plan_mode events are log entries the engine appends itself, at once
   * (pd-engine-plan-mode.c), as pd_engine_store_events() knows: stored
   * here too, each was logged twice. */
  if (pd_event_get_session_id (event) != NULL && g_strcmp0 (type, PD_PLAN_MODE_EVENT) != 0)
    {
      json = pd_event_to_json (event);
      if (pd_session_store_add_event (self->store, pd_event_get_session_id (event), pd_event_get_run_id (event),
                                      type, pd_event_get_timestamp (event), json, &error) < 0)
        g_debug ("event not stored: %s", error->message);
    }

  if (pd_event_type_is_plan (type) || g_strcmp0 (type, PD_EVENT_SESSION_SAVED) == 0 ||
      g_strcmp0 (type, PD_EVENT_RUN_COMPLETED) == 0 || g_strcmp0 (type, PD_EVENT_RUN_FAILED) == 0)
    _pd_server_bump_generation (self);
}

/* Another connection committed (another process, or this one's writer):
 * cached plans are stale, and the event streams hear of commits the bus
 * never sees.  The baseline reading counts as a change for the cache, taken
 * after the server began answering (pd_database_watcher_set_baseline_changes),
 * but is no news for the streams.  Server thread. */
static void
on_store_changed (PdServer *self)
{
  _pd_server_bump_generation (self);
  if (self->db_watched)
    _pd_server_push_store_changed (self);
  g_atomic_int_set (&self->db_watched, TRUE);
}

/* Any thread (the tests). */
gboolean
_pd_server_get_db_watched (PdServer *self)
{
  return g_atomic_int_get (&self->db_watched);
}

/* ---------------------------------------------------------------------- */
/* Lifecycle                                                              */

void
_pd_server_maybe_quit (PdServer *self)
{
  if (self->stopping && self->pending == 0 && self->active_runs == 0 && self->sockets == NULL && self->loop != NULL)
    g_main_loop_quit (self->loop);
}

static gboolean
begin_stop (gpointer data)
{
  PdServer *self = data;

  self->stopping = TRUE;
  _pd_server_ws_close_all (self);
  _pd_server_cancel_runs (self);
  _pd_server_end_streams (self);
  _pd_server_maybe_quit (self);
  return G_SOURCE_REMOVE;
}

/* Every answer, libsoup's own errors included, is marked no-store; every
 * connection is watched for its client going away (pd-server-conns.c); every
 * request is judged by its headers before its body is read
 * (pd-server-guard.c). */
static void
on_request_started (SoupServer        *soup,
                    SoupServerMessage *msg,
                    gpointer           user_data)
{
  PdServer *self = user_data;

  soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Cache-Control", "no-store");
  _pd_server_conns_request_started (self, msg);
  _pd_server_guard_watch (self, msg);
}

/* ::request-finished and ::request-aborted */
static void
on_request_finished (SoupServer        *soup,
                     SoupServerMessage *msg,
                     gpointer           user_data)
{
  _pd_server_conns_request_finished (user_data, msg);
}

static gpointer
server_thread (gpointer data)
{
  PdServer *self = data;
  g_autoptr(GInetAddress) address = NULL;
  g_autoptr(GSocketAddress) socket_address = NULL;
  GError *error = NULL;

  g_main_context_push_thread_default (self->context);

  self->db_watcher = pd_database_watcher_new (self->db_path);
  pd_database_watcher_set_baseline_changes (self->db_watcher, TRUE);
  pd_database_watcher_set_poll_interval (self->db_watcher, self->watch_interval);
  g_signal_connect_swapped (self->db_watcher, "changed", G_CALLBACK (on_store_changed), self);

  self->soup = soup_server_new ("server-header", "plandeck/" PACKAGE_VERSION " ", NULL);
  pd_soup_server_plug_accept_leak (self->soup);
  soup_server_add_handler (self->soup, "/api", handle_api, self, NULL);
  _pd_server_ws_install (self);
  soup_server_add_handler (self->soup, NULL, handle_root, self, NULL);
  g_signal_connect (self->soup, "request-started", G_CALLBACK (on_request_started), self);
  g_signal_connect (self->soup, "request-finished", G_CALLBACK (on_request_finished), self);
  g_signal_connect (self->soup, "request-aborted", G_CALLBACK (on_request_finished), self);

  address = g_inet_address_new_from_string (self->host);
  if (address == NULL)
    g_set_error (&error, PD_SERVER_ERROR, PD_SERVER_ERROR_ADDRESS, "'%s' is not an IP address", self->host);
  else
    {
      socket_address = g_inet_socket_address_new (address, self->port);
      /* serve's own listening socket, accepted in bulk (pd-server-accept.c). */
      if (!_pd_server_accept_listen (self, socket_address, &error))
        {
          g_prefix_error (&error, "cannot listen on %s:%u: ", self->host, self->port);
          error->domain = PD_SERVER_ERROR;
          error->code = PD_SERVER_ERROR_LISTEN;
        }
    }

  g_mutex_lock (&self->start_lock);
  self->start_error = error;
  self->start_done = TRUE;
  g_cond_signal (&self->start_cond);
  g_mutex_unlock (&self->start_lock);

  if (error == NULL)
    g_main_loop_run (self->loop);

  _pd_server_accept_close (self);
  soup_server_disconnect (self->soup);
  _pd_server_ws_clear (self);
  _pd_server_conns_clear (self);
  _pd_server_conns_end_refusals (self);
  g_clear_object (&self->soup);
  g_signal_handlers_disconnect_by_data (self->db_watcher, self);
  g_clear_object (&self->db_watcher);
  while (g_main_context_iteration (self->context, FALSE))
    ;
  g_main_context_pop_thread_default (self->context);
  return NULL;
}

static void
pd_server_finalize (GObject *object)
{
  PdServer *self = (PdServer *) object;

  pd_server_stop (self);

  if (self->engine_destroy)
    self->engine_destroy (self->engine_data);
  g_clear_object (&self->bus);
  g_clear_object (&self->store);
  if (self->readers != NULL)
    {
      PdSessionStore *store;

      while ((store = g_async_queue_try_pop (self->readers)))
        g_object_unref (store);
      g_async_queue_unref (self->readers);
    }
  _pd_server_heavy_clear (self);
  g_hash_table_unref (self->rate);
  g_hash_table_unref (self->socket_rate);
  g_hash_table_unref (self->conns);
  g_hash_table_unref (self->conn_peers);
  g_hash_table_unref (self->plan_cache);
  _pd_server_push_clear (self);
  g_hash_table_unref (self->runs);
  g_queue_clear_full (&self->finished_runs, g_free);
  g_ptr_array_unref (self->allowed_hosts);
  g_ptr_array_unref (self->allowed_origins);
  g_main_loop_unref (self->loop);
  g_main_context_unref (self->context);
  g_free (self->db_path);
  g_free (self->host);
  g_free (self->token);
  g_free (self->model);
  g_free (self->working_directory);
  _pd_server_webui_free (self->webui);
  g_free (self->read_only);
  g_mutex_clear (&self->start_lock);
  g_mutex_clear (&self->heavy_lock);
  g_cond_clear (&self->start_cond);

  G_OBJECT_CLASS (pd_server_parent_class)->finalize (object);
}

static void
pd_server_class_init (PdServerClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_server_finalize;
}

static void
pd_server_init (PdServer *self)
{
  self->host = g_strdup (PD_SERVER_DEFAULT_HOST);
  self->port = PD_SERVER_DEFAULT_PORT;
  self->rate_limit = PD_SERVER_DEFAULT_RATE_LIMIT;
  self->approval_timeout = PD_SERVER_APPROVAL_TIMEOUT * G_USEC_PER_SEC;
  self->watch_interval = WATCH_INTERVAL_MS;
  self->max_streams = PD_SERVER_MAX_STREAMS;
  self->max_streams_per_client = PD_SERVER_MAX_STREAMS_PER_CLIENT;
  self->stream_keepalive_ms = PD_SERVER_STREAM_KEEPALIVE_MS;
  self->allowed_hosts = g_ptr_array_new_with_free_func (g_free);
  self->allowed_origins = g_ptr_array_new_with_free_func (g_free);
  self->token = pd_random_hex (32);
  self->context = g_main_context_new ();
  self->loop = g_main_loop_new (self->context, FALSE);
  _pd_server_conns_init (self);
  self->rate = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) _pd_server_rate_bucket_free);
  self->socket_rate = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) _pd_server_rate_bucket_free);
  self->plan_cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) _pd_server_plan_cache_entry_free);
  self->runs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) _pd_server_run_unref);
  g_queue_init (&self->finished_runs);
  g_mutex_init (&self->start_lock);
  g_mutex_init (&self->heavy_lock);
  g_cond_init (&self->start_cond);
}

/**
 * pd_server_new:
 * @db_path: the session database (created when missing)
 */
PdServer *
pd_server_new (const char *db_path)
{
  PdServer *self = g_object_new (PD_TYPE_SERVER, NULL);

  self->db_path = g_strdup (db_path);
  return self;
}

/**
 * pd_server_parse_listen:
 * @text: "ADDR:PORT", "[V6]:PORT", ":PORT" or "PORT"; "localhost" means
 *   127.0.0.1
 */
gboolean
pd_server_parse_listen (const char  *text,
                        char       **host,
                        guint       *port,
                        GError     **error)
{
  g_autofree char *h = NULL;
  const char *port_text;
  guint64 value;

  if (text == NULL || *text == '\0')
    goto bad;

  if (text[0] == '[')
    {
      const char *end = strchr (text, ']');

      if (end == NULL || end[1] != ':')
        goto bad;
      h = g_strndup (text + 1, end - text - 1);
      port_text = end + 2;
    }
  else
    {
      const char *colon = strrchr (text, ':');

      if (colon == NULL)
        {
          h = g_strdup (PD_SERVER_DEFAULT_HOST);
          port_text = text;
        }
      else
        {
          h = colon == text ? g_strdup (PD_SERVER_DEFAULT_HOST) : g_strndup (text, colon - text);
          port_text = colon + 1;
        }
    }

  if (g_ascii_strcasecmp (h, "localhost") == 0)
    {
      g_free (h);
      h = g_strdup ("127.0.0.1");
    }
  if (!g_hostname_is_ip_address (h) ||
      !pd_decimal_parse (port_text, -1, 65535, &value))
    goto bad;

  *host = g_steal_pointer (&h);
  *port = (guint) value;
  return TRUE;

bad:
  g_set_error (error, PD_SERVER_ERROR, PD_SERVER_ERROR_ADDRESS,
               "'%s' is not ADDRESS:PORT (an IP address, or localhost, and a port 0–65535)", text ? text : "");
  return FALSE;
}

void
pd_server_set_listen (PdServer   *self,
                      const char *host,
                      guint       port)
{
  g_return_if_fail (PD_IS_SERVER (self));
  g_return_if_fail (self->thread == NULL);

  g_free (self->host);
  self->host = g_strdup (host ? host : PD_SERVER_DEFAULT_HOST);
  self->port = port;
}

/**
 * pd_server_add_allowed_host:
 *
 * Accepts requests whose Host (and Origin) names @host besides the loopback
 * names, for a server behind a local reverse proxy.
 */
void
pd_server_add_allowed_host (PdServer   *self,
                            const char *host)
{
  g_return_if_fail (PD_IS_SERVER (self));
  g_return_if_fail (self->thread == NULL);

  g_ptr_array_add (self->allowed_hosts, g_ascii_strdown (host, -1));
}

/**
 * pd_server_add_allowed_origin:
 * @origin: "scheme://host[:port]", as a browser sends it
 *
 * Accepts changes from pages of @origin besides the server's own (http, a
 * name it answers to, its port): a reverse proxy's https origin, say.
 * Compared exactly, case aside.
 */
void
pd_server_add_allowed_origin (PdServer   *self,
                              const char *origin)
{
  g_return_if_fail (PD_IS_SERVER (self));
  g_return_if_fail (self->thread == NULL);
  g_return_if_fail (origin != NULL);

  g_ptr_array_add (self->allowed_origins, g_strdup (origin));
}

/**
 * pd_server_set_rate_limit:
 * @per_minute: session lookups per minute per client address; 0 turns the
 *   limit off (load tests)
 */
void
pd_server_set_rate_limit (PdServer *self,
                          guint     per_minute)
{
  g_return_if_fail (PD_IS_SERVER (self));
  g_return_if_fail (self->thread == NULL);

  self->rate_limit = per_minute;
}

/**
 * pd_server_set_approval_timeout:
 * @seconds: how long a run waits for a person to answer a question about a
 *   tool call before it is denied (default 60, odek's)
 */
void
pd_server_set_approval_timeout (PdServer *self,
                                guint     seconds)
{
  g_return_if_fail (PD_IS_SERVER (self));
  g_return_if_fail (self->thread == NULL);

  self->approval_timeout = (gint64) seconds * G_USEC_PER_SEC;
}

/**
 * pd_server_set_watch_interval:
 * @interval_ms: how often the data version is read besides the pushes of
 *   the file monitor (which tell of a write at once); tests set it long
 *   to see that the pushes alone tell
 */
void
pd_server_set_watch_interval (PdServer *self,
                              guint     interval_ms)
{
  g_return_if_fail (PD_IS_SERVER (self));
  g_return_if_fail (self->thread == NULL);
  g_return_if_fail (interval_ms > 0);

  self->watch_interval = interval_ms;
}

/**
 * pd_server_set_stream_limits:
 * @total: event streams open at once (`--max-streams`), at least 1
 * @per_client: of them from one client address, at least 1; more than
 *   @total means @total
 *
 * A stream costs a few KiB while its client keeps up, and at most
 * PD_SERVER_STREAM_MAX_BACKLOG more while it falls behind.
 */
void
pd_server_set_stream_limits (PdServer *self,
                             guint     total,
                             guint     per_client)
{
  g_return_if_fail (PD_IS_SERVER (self));
  g_return_if_fail (self->thread == NULL);
  g_return_if_fail (total > 0 && per_client > 0);

  self->max_streams = total;
  self->max_streams_per_client = MIN (per_client, total);
}

/**
 * pd_server_set_stream_keepalive:
 * @interval_ms: how often an event stream gets its comment line (and
 *   /api/health's keepalive_ms), more than 0
 *
 * PD_SERVER_STREAM_KEEPALIVE_MS unless set.  A test sets it far off to see
 * that what it checks does not wait for a keepalive write.
 */
void
pd_server_set_stream_keepalive (PdServer *self,
                                guint     interval_ms)
{
  g_return_if_fail (PD_IS_SERVER (self));
  g_return_if_fail (self->thread == NULL);
  g_return_if_fail (interval_ms > 0);

  self->stream_keepalive_ms = interval_ms;
}

/* Tests and benchmarks name the token; otherwise it is 32 random bytes. */
void
pd_server_set_token (PdServer   *self,
                     const char *token)
{
  g_return_if_fail (PD_IS_SERVER (self));
  g_return_if_fail (self->thread == NULL);
  g_return_if_fail (token != NULL && *token);

  g_free (self->token);
  self->token = g_strdup (token);
}

void
pd_server_set_model (PdServer   *self,
                     const char *model)
{
  g_return_if_fail (PD_IS_SERVER (self));
  g_free (self->model);
  self->model = g_strdup (model);
}

/**
 * pd_server_set_working_directory:
 * @path: (nullable): the folder runs work in
 *
 * GET /api/resources offers the names of its own entries (never their
 * contents) for an @ in the browser UI's prompt.
 */
void
pd_server_set_working_directory (PdServer   *self,
                                 const char *path)
{
  g_return_if_fail (PD_IS_SERVER (self));
  g_return_if_fail (self->thread == NULL);

  g_free (self->working_directory);
  self->working_directory = path ? g_canonicalize_filename (path, NULL) : NULL;
}

/**
 * pd_server_set_webui:
 * @dir: (nullable): a folder with index.html (and app.js, style.css), as
 *   odek's cmd/odek/ui; %NULL serves none
 *
 * Serves @dir's browser UI the way odek serves its own: the page with the
 * instance token in it for `/?token=` (no token cookie), the script and
 * the style sheet, nothing else.  The files are read now.
 *
 * Returns: %FALSE when index.html cannot be read (or a file is too large)
 */
gboolean
pd_server_set_webui (PdServer    *self,
                     const char  *dir,
                     GError     **error)
{
  PdServerWebui *webui = NULL;

  g_return_val_if_fail (PD_IS_SERVER (self), FALSE);
  g_return_val_if_fail (self->thread == NULL, FALSE);

  if (dir != NULL && !(webui = _pd_server_webui_load (dir, error)))
    return FALSE;
  _pd_server_webui_free (self->webui);
  self->webui = webui;
  return TRUE;
}

/**
 * pd_server_set_engine_func:
 *
 * Enables POST /api/prompt: @func builds one engine per run.  Without it
 * the route answers 501.
 */
void
pd_server_set_engine_func (PdServer           *self,
                           PdServerEngineFunc  func,
                           gpointer            user_data,
                           GDestroyNotify      destroy)
{
  g_return_if_fail (PD_IS_SERVER (self));
  g_return_if_fail (self->thread == NULL);

  if (self->engine_destroy)
    self->engine_destroy (self->engine_data);
  self->engine_func = func;
  self->engine_data = user_data;
  self->engine_destroy = destroy;
}

/**
 * pd_server_start:
 *
 * Opens the database (a writer connection and a pool of readers), starts
 * the server thread and returns once it listens, or with the reason it
 * could not.
 */
gboolean
pd_server_start (PdServer  *self,
                 GError   **error)
{
  g_autoptr(PdDb) db = NULL;

  g_return_val_if_fail (PD_IS_SERVER (self), FALSE);
  g_return_val_if_fail (self->thread == NULL, FALSE);

  /* Every error of pd_db_open() names the file already. */
  if (!(db = pd_db_open (self->db_path, PD_DB_CREATE, error)))
    return FALSE;
  /* A file this process may not write is served for reading; a run could
   * save nothing, so runs are refused up front (pd_server_get_read_only()). */
  {
    g_autoptr(GError) write_error = NULL;

    if (!pd_db_check_writable (db, &write_error))
      self->read_only = g_strdup (write_error->message);
  }
  self->store = pd_session_store_new (db);

  self->readers = g_async_queue_new ();
  for (guint i = 0; i < N_READERS; i++)
    {
      g_autoptr(PdDb) reader = pd_db_open (self->db_path, PD_DB_NONE, error);

      if (reader == NULL)
        return FALSE;
      g_async_queue_push (self->readers, pd_session_store_new (reader));
    }

  if (!_pd_server_heavy_init (self, error))
    return FALSE;

  self->bus = pd_event_bus_new ();
  pd_event_bus_add_sink (self->bus, persist_event, self, NULL);

  self->started_at = g_get_real_time ();
  self->thread = g_thread_new ("pd-server", server_thread, self);

  g_mutex_lock (&self->start_lock);
  while (!self->start_done)
    g_cond_wait (&self->start_cond, &self->start_lock);
  g_mutex_unlock (&self->start_lock);

  if (self->start_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&self->start_error));
      pd_server_stop (self);
      return FALSE;
    }

  return TRUE;
}

/**
 * pd_server_stop:
 *
 * Cancels active runs and waits for them to save, ends event streams,
 * finishes database work in flight, closes the sockets and joins the
 * threads.  Safe to call twice, and from a signal handler's main loop.
 */
void
pd_server_stop (PdServer *self)
{
  g_return_if_fail (PD_IS_SERVER (self));

  if (self->thread != NULL)
    {
      g_main_context_invoke (self->context, begin_stop, self);
      g_thread_join (self->thread);
      self->thread = NULL;
    }

  if (self->bus != NULL)
    pd_event_bus_flush (self->bus);

  if (self->runs != NULL)
    _pd_server_detach_runs (self);
}

/**
 * pd_server_get_read_only:
 *
 * Returns: (nullable): once started, why the database cannot be written
 *   (runs are then refused with 503), or %NULL when it can be
 */
const char *
pd_server_get_read_only (PdServer *self)
{
  g_return_val_if_fail (PD_IS_SERVER (self), NULL);
  return self->read_only;
}

/**
 * pd_server_get_active_runs:
 * @self: a #PdServer
 *
 * Returns: how many runs the server has going now (ended runs not counted)
 */
guint
pd_server_get_active_runs (PdServer *self)
{
  g_return_val_if_fail (PD_IS_SERVER (self), 0);
  return self->active_runs;
}

guint
pd_server_get_port (PdServer *self)
{
  g_return_val_if_fail (PD_IS_SERVER (self), 0);
  return self->port;
}

const char *
pd_server_get_token (PdServer *self)
{
  g_return_val_if_fail (PD_IS_SERVER (self), NULL);
  return self->token;
}

char *
pd_server_dup_base_url (PdServer *self)
{
  g_return_val_if_fail (PD_IS_SERVER (self), NULL);

  if (strchr (self->host, ':') != NULL)
    return g_strdup_printf ("http://[%s]:%u", self->host, self->port);
  return g_strdup_printf ("http://%s:%u", self->host, self->port);
}

/* Whether @host (lower case, no port, no brackets) is the address the
 * server listens on, written as an address and not a wildcard. */
gboolean
_pd_server_listens_on_address (PdServer   *self,
                               const char *host)
{
  g_autoptr(GInetAddress) listening = g_inet_address_new_from_string (self->host);
  g_autoptr(GInetAddress) named = g_inet_address_new_from_string (host);

  if (listening == NULL || named == NULL || g_inet_address_get_is_any (listening))
    return FALSE;
  /* Spelled as the listen address is (not 127.1 or ::ffff:127.0.0.2). */
  return g_inet_address_equal (listening, named) && g_ascii_strcasecmp (self->host, host) == 0;
}

/* The URL printed at start: the base URL with ?token=.  A wildcard
 * address (0.0.0.0, ::) is reached from this machine as loopback, which
 * the guard accepts; the wildcard itself it would refuse as a Host. */
char *
pd_server_dup_start_url (PdServer *self)
{
  g_autoptr(GInetAddress) address = g_inet_address_new_from_string (self->host);
  g_autofree char *base = NULL;

  if (address != NULL && g_inet_address_get_is_any (address))
    {
      if (g_inet_address_get_family (address) == G_SOCKET_FAMILY_IPV6)
        base = g_strdup_printf ("http://[::1]:%u", self->port);
      else
        base = g_strdup_printf ("http://127.0.0.1:%u", self->port);
    }
  else
    base = pd_server_dup_base_url (self);
  return g_strdup_printf ("%s/?token=%s", base, self->token);
}

PdEventBus *
pd_server_get_bus (PdServer *self)
{
  g_return_val_if_fail (PD_IS_SERVER (self), NULL);
  return self->bus;
}

PdSessionStore *
pd_server_get_store (PdServer *self)
{
  g_return_val_if_fail (PD_IS_SERVER (self), NULL);
  return self->store;
}
