/* pd-server.c: the REST API of `plandeck-agent serve` on a SoupServer.
 *
 * See pd-server.h for the routes and the threading model.
 */
#define G_LOG_DOMAIN "pd-server"

#include "config.h"

#include <string.h>

#include <libsoup/soup.h>

#include "pd-server.h"
#include "pd-decimal.h"
#include "pd-plan.h"
#include "pd-random.h"
#include "pd-redact.h"

#define N_READERS            4
#define RATE_WINDOW_USEC     (60 * G_TIME_SPAN_SECOND)
#define WATCH_INTERVAL_USEC  (100 * G_TIME_SPAN_MILLISECOND)
#define KEEPALIVE_SECONDS    15
#define PLAN_CACHE_MAX       1024
#define RUNS_KEPT            100
#define EVENTS_DEFAULT_LIMIT 100

G_DEFINE_QUARK (pd-server-error-quark, pd_server_error)

typedef struct _Run Run;

struct _PdServer
{
  GObject             parent_instance;

  /* Settings, fixed once started. */
  char               *db_path;
  char               *host;
  guint               port;
  GPtrArray          *allowed_hosts;   /* lower case */
  guint               rate_limit;
  char               *token;
  char               *model;
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
};

G_DEFINE_FINAL_TYPE (PdServer, pd_server, G_TYPE_OBJECT)

/* ---------------------------------------------------------------------- */
/* Small helpers                                                           */

static gboolean
const_time_equal (const char *a,
                  const char *b)
{
  gsize la, lb;
  guint diff;

  if (a == NULL || b == NULL)
    return FALSE;
  la = strlen (a);
  lb = strlen (b);
  diff = la ^ lb;
  for (gsize i = 0; i < la; i++)
    diff |= (guchar) a[i] ^ (guchar) b[i % (lb ? lb : 1)];
  return diff == 0 && la > 0;
}

static char *
json_text (JsonNode *node)
{
  return json_to_string (node, FALSE);
}

static char *
json_object_text (JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (node, object);
  return json_text (node);
}

static void
respond_text (SoupServerMessage *msg,
              guint              status,
              const char        *content_type,
              char              *body)   /* (transfer full) */
{
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, content_type, SOUP_MEMORY_TAKE, body, strlen (body));
}

static void
respond_json (SoupServerMessage *msg,
              guint              status,
              JsonObject        *object)   /* (transfer full) */
{
  char *text = json_object_text (object);

  json_object_unref (object);
  respond_text (msg, status, "application/json", text);
}

static char *
error_body (const char *message)
{
  g_autoptr(JsonObject) object = json_object_new ();

  json_object_set_string_member (object, "error", message);
  return json_object_text (object);
}

static void
respond_error (SoupServerMessage *msg,
               guint              status,
               const char        *message)
{
  respond_text (msg, status, "application/json", error_body (message));
}

static const char *
query_get (GHashTable *query,
           const char *name)
{
  return query ? g_hash_table_lookup (query, name) : NULL;
}

/* A non-negative decimal number, or FALSE. */
static gboolean
parse_count (const char *text,
             gint64     *out)
{
  guint64 value;

  if (text == NULL || *text == '\0' || !pd_decimal_parse (text, -1, G_MAXINT32, &value))
    return FALSE;
  *out = (gint64) value;
  return TRUE;
}

static char *
host_without_port (const char *host)
{
  const char *colon;

  if (host == NULL)
    return NULL;
  if (host[0] == '[')
    {
      const char *end = strchr (host, ']');

      return end ? g_ascii_strdown (host + 1, end - host - 1) : NULL;
    }
  colon = strrchr (host, ':');
  return g_ascii_strdown (host, colon ? colon - host : -1);
}

static gboolean
name_is_allowed (PdServer   *self,
                 const char *host)
{
  g_autofree char *lower = NULL;

  if (host == NULL || *host == '\0')
    return FALSE;
  lower = g_ascii_strdown (host, -1);
  if (strcmp (lower, "localhost") == 0 || strcmp (lower, "127.0.0.1") == 0 || strcmp (lower, "::1") == 0)
    return TRUE;
  for (guint i = 0; i < self->allowed_hosts->len; i++)
    if (strcmp (lower, g_ptr_array_index (self->allowed_hosts, i)) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
host_is_allowed (PdServer   *self,
                 const char *host_header)
{
  g_autofree char *host = host_without_port (host_header);

  return name_is_allowed (self, host);
}

/* No Origin (not a browser) is fine; "null" and foreign ones are not. */
static gboolean
origin_is_allowed (PdServer   *self,
                   const char *origin)
{
  g_autoptr(GUri) uri = NULL;

  if (origin == NULL)
    return TRUE;
  uri = g_uri_parse (origin, G_URI_FLAGS_NONE, NULL);
  return uri != NULL && name_is_allowed (self, g_uri_get_host (uri));
}

static char *
cookie_value (SoupServerMessage *msg,
              const char        *name)
{
  const char *header = soup_message_headers_get_list (soup_server_message_get_request_headers (msg), "Cookie");
  GHashTable *params;
  char *value;

  if (header == NULL)
    return NULL;
  params = soup_header_parse_semi_param_list (header);
  value = g_strdup (g_hash_table_lookup (params, name));
  soup_header_free_param_list (params);
  return value;
}

static void
bump_generation (PdServer *self)
{
  g_atomic_int_inc (&self->generation);
}

/* ---------------------------------------------------------------------- */
/* The rate limiter: a sliding window per client address                  */

typedef struct
{
  gint64 *stamps;   /* ring of rate_limit timestamps */
  guint   head;     /* the oldest */
  guint   count;
} RateBucket;

static void
rate_bucket_free (RateBucket *bucket)
{
  g_free (bucket->stamps);
  g_free (bucket);
}

static gboolean
rate_prune_one (gpointer key,
                gpointer value,
                gpointer user_data)
{
  RateBucket *bucket = value;
  gint64 now = *(gint64 *) user_data;
  guint newest = (bucket->head + bucket->count - 1) % MAX (bucket->count, 1);

  return bucket->count == 0 || now - bucket->stamps[newest] >= RATE_WINDOW_USEC;
}

static gboolean
rate_allow (PdServer   *self,
            const char *client)
{
  RateBucket *bucket;
  gint64 now;

  if (self->rate_limit == 0 || client == NULL || *client == '\0')
    return TRUE;

  now = g_get_monotonic_time ();
  bucket = g_hash_table_lookup (self->rate, client);
  if (bucket == NULL)
    {
      if (g_hash_table_size (self->rate) >= 4096)
        g_hash_table_foreach_remove (self->rate, rate_prune_one, &now);
      bucket = g_new0 (RateBucket, 1);
      bucket->stamps = g_new0 (gint64, self->rate_limit);
      g_hash_table_insert (self->rate, g_strdup (client), bucket);
    }

  if (bucket->count < self->rate_limit)
    {
      bucket->stamps[(bucket->head + bucket->count) % self->rate_limit] = now;
      bucket->count++;
      return TRUE;
    }

  if (now - bucket->stamps[bucket->head] >= RATE_WINDOW_USEC)
    {
      bucket->stamps[bucket->head] = now;
      bucket->head = (bucket->head + 1) % self->rate_limit;
      return TRUE;
    }

  return FALSE;
}

/* ---------------------------------------------------------------------- */
/* Database work in worker threads                                        */

typedef enum
{
  OP_LIST,
  OP_GET,
  OP_PLAN,
  OP_PLAN_DETAIL,
  OP_EXPORT,
  OP_UPDATE,
  OP_DELETE,
  OP_EVENTS,
} OpKind;

typedef struct
{
  PdServer          *server;
  SoupServerMessage *msg;
  gulong             finished_id;
  gboolean           finished;

  OpKind             kind;
  char              *id;
  /* OP_LIST */
  gboolean           paged;
  char              *query;
  guint              offset;
  guint              limit;
  /* OP_UPDATE */
  char              *name;
  int                pinned;
  /* OP_EVENTS */
  gint64             after_seq;
  /* tokens */
  char              *session_token;     /* presented */
  gboolean           instance_header;   /* the instance token came as a header */
  gint               generation;        /* read before the database */

  /* The answer. */
  guint              status;
  char              *body;
  char              *token_out;         /* X-Session-Token */
  char              *auth_token;        /* the session's, for the plan cache */
} Req;

static void
req_free (Req *req)
{
  if (req->finished_id != 0)
    g_signal_handler_disconnect (req->msg, req->finished_id);
  g_clear_object (&req->msg);
  g_object_unref (req->server);
  g_free (req->id);
  g_free (req->query);
  g_free (req->name);
  g_free (req->session_token);
  g_free (req->body);
  g_free (req->token_out);
  g_free (req->auth_token);
  g_free (req);
}

static void
req_set_error (Req        *req,
               guint       status,
               const char *message)
{
  req->status = status;
  g_free (req->body);
  req->body = error_body (message);
}

static void
req_set_object (Req        *req,
                guint       status,
                JsonObject *object)   /* (transfer full) */
{
  req->status = status;
  g_free (req->body);
  req->body = json_object_text (object);
  json_object_unref (object);
}

static void
req_set_db_error (Req    *req,
                  GError *error)
{
  if (g_error_matches (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND))
    req_set_error (req, 404, "session not found");
  else
    {
      g_message ("database error: %s", error->message);
      req_set_error (req, 500, "database error");
    }
}

/* Reads accept the instance token header (the bootstrap) or the session's
 * own token; a wrong session token is refused either way. */
static gboolean
token_allows_read (const char *presented,
                   gboolean    instance_header,
                   const char *session_token)
{
  if (presented != NULL && *presented)
    return session_token != NULL && *session_token && const_time_equal (presented, session_token);
  return instance_header;
}

/* Changes need the session's token; a session that never had one (an
 * imported index row) accepts the instance token header instead. */
static gboolean
token_allows_write (const char *presented,
                    gboolean    instance_header,
                    const char *session_token)
{
  if (session_token == NULL || *session_token == '\0')
    return instance_header;
  return presented != NULL && const_time_equal (presented, session_token);
}

static JsonObject *
plan_object (const char        *session_id,
             const PdPlanState *state,
             gboolean           detail)
{
  JsonObject *object = json_object_new ();
  JsonArray *steps = json_array_new ();
  PdPlanCounts counts = { 0 };
  gboolean collapsed = FALSE;

  if (state != NULL)
    {
      pd_plan_state_count (state, &counts);
      /* What the rendered message shows: an all-done plan without checks or
       * revision collapses to its header, and odek answers from that. */
      collapsed = counts.steps > 0 && counts.done == counts.steps && counts.checks == 0 && state->revision == NULL;
    }

  json_object_set_string_member (object, "session_id", session_id);
  json_object_set_int_member (object, "version", state ? state->version : 0);

  for (guint i = 0; state != NULL && (!collapsed || detail) && i < state->steps->len; i++)
    {
      PdPlanStep *step = g_ptr_array_index (state->steps, i);
      JsonObject *row = json_object_new ();

      json_object_set_string_member (row, "id", step->id);
      json_object_set_string_member (row, "title", step->title);
      json_object_set_string_member (row, "status", pd_plan_step_status_to_string (step->status));
      if (step->note && *step->note)
        json_object_set_string_member (row, "note", step->note);
      if (detail)
        {
          JsonArray *checks = json_array_new ();

          for (guint j = 0; j < step->checks->len; j++)
            {
              PdPlanCheck *check = g_ptr_array_index (step->checks, j);
              JsonObject *c = json_object_new ();

              json_object_set_string_member (c, "id", check->id);
              json_object_set_string_member (c, "description", check->description ? check->description : "");
              json_object_set_string_member (c, "tool", check->tool ? check->tool : "");
              json_object_set_string_member (c, "status", pd_plan_check_status_to_string (check->status));
              json_array_add_object_element (checks, c);
            }
          json_object_set_array_member (row, "checks", checks);
        }
      json_array_add_object_element (steps, row);
    }

  json_object_set_array_member (object, "steps", steps);
  json_object_set_boolean_member (object, "found", state != NULL);

  if (detail)
    {
      json_object_set_boolean_member (object, "collapsed", collapsed);
      if (state != NULL && state->revision != NULL)
        {
          JsonObject *revision = json_object_new ();
          JsonArray *summary = json_array_new ();

          json_object_set_string_member (revision, "reason", state->revision->reason ? state->revision->reason : "");
          for (guint i = 0; i < state->revision->summary->len; i++)
            json_array_add_string_element (summary, g_ptr_array_index (state->revision->summary, i));
          json_object_set_array_member (revision, "summary", summary);
          json_object_set_object_member (object, "revision", revision);
        }
      else
        json_object_set_null_member (object, "revision");
    }

  return object;
}

static JsonArray *
history_array (GPtrArray *versions)
{
  JsonArray *history = json_array_new ();

  for (guint i = 0; i < versions->len; i++)
    {
      PdPlanVersionInfo *version = g_ptr_array_index (versions, i);
      g_autoptr(PdPlanState) state = pd_plan_state_new_from_json (version->state_json, NULL);
      g_autofree char *stamp = pd_session_time_to_string (version->created_at);
      JsonObject *entry = json_object_new ();
      PdPlanCounts counts = { 0 };

      if (state != NULL)
        pd_plan_state_count (state, &counts);
      json_object_set_int_member (entry, "version", version->version);
      json_object_set_string_member (entry, "created_at", stamp ? stamp : "");
      json_object_set_int_member (entry, "steps", counts.steps);
      json_object_set_int_member (entry, "done", counts.done);
      json_object_set_int_member (entry, "in_progress", counts.in_progress);
      json_object_set_int_member (entry, "blocked", counts.blocked);
      json_object_set_int_member (entry, "pending", counts.pending);
      json_array_add_object_element (history, entry);
    }
  return history;
}

static void
op_list (Req            *req,
         PdSessionStore *store)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  JsonArray *array = json_array_new ();
  guint total = 0;

  sessions = pd_session_store_list (store, req->query, FALSE, req->offset, req->limit, &total, &error);
  if (sessions == NULL)
    {
      json_array_unref (array);
      req_set_db_error (req, error);
      return;
    }

  for (guint i = 0; i < sessions->len; i++)
    json_array_add_object_element (array, pd_session_info_to_json (g_ptr_array_index (sessions, i), FALSE));

  if (!req->paged)
    {
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);

      json_node_take_array (node, array);
      req->status = 200;
      req->body = json_text (node);
    }
  else
    {
      JsonObject *object = json_object_new ();
      g_autofree char *lower = g_utf8_strdown (req->query ? req->query : "", -1);

      json_object_set_array_member (object, "sessions", array);
      json_object_set_int_member (object, "offset", req->offset);
      json_object_set_int_member (object, "limit", req->limit);
      json_object_set_int_member (object, "count", sessions->len);
      json_object_set_int_member (object, "total", total);
      json_object_set_string_member (object, "query", lower);
      req_set_object (req, 200, object);
    }
}

static void
op_session (Req            *req,
            PdSessionStore *store)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionInfo) info = pd_session_store_get (store, req->id, &error);

  if (info == NULL)
    {
      req_set_db_error (req, error);
      return;
    }

  if (req->kind == OP_UPDATE || req->kind == OP_DELETE)
    {
      PdSessionStore *writer = req->server->store;
      gboolean ok;

      if (!token_allows_write (req->session_token, req->instance_header, info->auth_token))
        {
          req_set_error (req, 401, "invalid session token");
          return;
        }

      if (req->kind == OP_DELETE)
        ok = pd_session_store_delete (writer, req->id, &error);
      else
        ok = (req->name == NULL || pd_session_store_rename (writer, req->id, req->name, &error)) &&
             (req->pinned < 0 || pd_session_store_set_pinned (writer, req->id, req->pinned != 0, &error));
      bump_generation (req->server);

      if (!ok)
        {
          req_set_db_error (req, error);
          return;
        }
      if (req->kind == OP_DELETE)
        {
          req->status = 204;
          req->body = g_strdup ("");
          return;
        }

      g_clear_pointer (&info, pd_session_info_free);
      if (!(info = pd_session_store_get (writer, req->id, &error)))
        {
          req_set_db_error (req, error);
          return;
        }
      req_set_object (req, 200, pd_session_info_to_json (info, FALSE));
      return;
    }

  if (!token_allows_read (req->session_token, req->instance_header, info->auth_token))
    {
      req_set_error (req, 401, "invalid session token");
      return;
    }
  req->token_out = g_strdup (info->auth_token);
  req->auth_token = g_strdup (info->auth_token);

  switch (req->kind)
    {
    case OP_GET:
      req_set_object (req, 200, pd_session_info_to_json (info, FALSE));
      break;

    case OP_PLAN:
    case OP_PLAN_DETAIL:
      {
        g_autoptr(PdPlanState) state = NULL;
        JsonObject *object;

        if (!pd_session_store_get_plan (store, req->id, &state, &error))
          {
            req_set_db_error (req, error);
            return;
          }
        object = plan_object (req->id, state, req->kind == OP_PLAN_DETAIL);
        if (req->kind == OP_PLAN_DETAIL)
          {
            g_autoptr(GPtrArray) versions = pd_session_store_list_plan_versions (store, req->id, &error);

            if (versions == NULL)
              {
                json_object_unref (object);
                req_set_db_error (req, error);
                return;
              }
            json_object_set_array_member (object, "history", history_array (versions));
          }
        req_set_object (req, 200, object);
      }
      break;

    case OP_EXPORT:
      {
        g_autoptr(JsonArray) messages = pd_session_store_load_messages (store, req->id, &error);
        g_autoptr(GPtrArray) versions = NULL;
        JsonObject *object;
        JsonArray *history;

        if (messages == NULL || !(versions = pd_session_store_list_plan_versions (store, req->id, &error)))
          {
            req_set_db_error (req, error);
            return;
          }
        object = pd_session_info_to_json (info, FALSE);
        json_object_set_array_member (object, "messages", json_array_ref (messages));
        history = json_array_new ();
        for (guint i = 0; i < versions->len; i++)
          {
            PdPlanVersionInfo *version = g_ptr_array_index (versions, i);
            g_autofree char *stamp = pd_session_time_to_string (version->created_at);
            JsonObject *entry = json_object_new ();
            JsonNode *state = json_from_string (version->state_json, NULL);

            json_object_set_int_member (entry, "version", version->version);
            json_object_set_string_member (entry, "created_at", stamp ? stamp : "");
            if (state != NULL)
              json_object_set_member (entry, "state", state);
            else
              json_object_set_null_member (entry, "state");
            json_array_add_object_element (history, entry);
          }
        json_object_set_array_member (object, "plan_versions", history);
        req_set_object (req, 200, object);
      }
      break;

    default:
      g_assert_not_reached ();
    }
}

static void
op_events (Req            *req,
           PdSessionStore *store)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = pd_session_store_list_events (store, req->id, NULL, req->after_seq, req->limit, &error);
  JsonObject *object;
  JsonArray *array, *seqs;

  if (events == NULL)
    {
      req_set_db_error (req, error);
      return;
    }

  object = json_object_new ();
  array = json_array_new ();
  seqs = json_array_new ();
  for (guint i = 0; i < events->len; i++)
    {
      PdStoredEvent *event = g_ptr_array_index (events, i);
      JsonNode *node = json_from_string (event->event_json, NULL);

      if (node == NULL)
        continue;
      json_array_add_element (array, node);
      json_array_add_int_element (seqs, event->seq);
    }
  json_object_set_array_member (object, "events", array);
  json_object_set_int_member (object, "count", json_array_get_length (seqs));
  json_object_set_array_member (object, "seq", seqs);
  req_set_object (req, 200, object);
}

static void
run_req (GTask        *task,
         gpointer      source_object,
         gpointer      task_data,
         GCancellable *cancellable)
{
  PdServer *self = source_object;
  Req *req = task_data;
  PdSessionStore *store = g_async_queue_pop (self->readers);

  switch (req->kind)
    {
    case OP_LIST:
      op_list (req, store);
      break;
    case OP_EVENTS:
      op_events (req, store);
      break;
    default:
      op_session (req, store);
      break;
    }

  g_async_queue_push (self->readers, store);
  g_task_return_boolean (task, TRUE);
}

typedef struct
{
  gint   generation;
  char  *body;
  char  *auth_token;
} PlanCacheEntry;

static void
plan_cache_entry_free (PlanCacheEntry *entry)
{
  g_free (entry->body);
  g_free (entry->auth_token);
  g_free (entry);
}

static void maybe_quit (PdServer *self);

static void
on_req_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  PdServer *self = PD_SERVER (object);
  Req *req = g_task_get_task_data (G_TASK (result));

  self->pending--;

  if (req->kind == OP_PLAN && req->status == 200 && req->auth_token != NULL)
    {
      PlanCacheEntry *entry = g_new0 (PlanCacheEntry, 1);

      if (g_hash_table_size (self->plan_cache) >= PLAN_CACHE_MAX)
        g_hash_table_remove_all (self->plan_cache);
      entry->generation = req->generation;
      entry->body = g_strdup (req->body);
      entry->auth_token = g_strdup (req->auth_token);
      g_hash_table_replace (self->plan_cache, g_strdup (req->id), entry);
    }

  if (!req->finished)
    {
      if (req->token_out != NULL && *req->token_out)
        soup_message_headers_replace (soup_server_message_get_response_headers (req->msg),
                                      "X-Session-Token", req->token_out);
      if (req->status == 204)
        soup_server_message_set_status (req->msg, 204, NULL);
      else
        respond_text (req->msg, req->status, "application/json", g_steal_pointer (&req->body));
      soup_server_message_unpause (req->msg);
    }

  /* The message lives on the server's thread: let go of it here.  The task
   * frees @req wherever its last reference goes, which may be the worker
   * thread, and a handler removed there raced the message's own teardown
   * here (a GSignal assertion in one run of 660). */
  g_clear_signal_handler (&req->finished_id, req->msg);
  g_clear_object (&req->msg);

  maybe_quit (self);
}

static void
on_req_msg_finished (SoupServerMessage *msg,
                     gpointer           user_data)
{
  Req *req = user_data;

  req->finished = TRUE;
}

static Req *
req_new (PdServer          *self,
         SoupServerMessage *msg,
         OpKind             kind,
         const char        *id)
{
  Req *req = g_new0 (Req, 1);

  req->server = g_object_ref (self);
  req->msg = g_object_ref (msg);
  req->kind = kind;
  req->id = g_strdup (id);
  req->pinned = -1;
  return req;
}

static void
req_start (PdServer *self,
           Req      *req)
{
  g_autoptr(GTask) task = g_task_new (self, NULL, on_req_done, NULL);

  req->generation = g_atomic_int_get (&self->generation);
  req->finished_id = g_signal_connect (req->msg, "finished", G_CALLBACK (on_req_msg_finished), req);
  soup_server_message_pause (req->msg);
  self->pending++;
  g_task_set_task_data (task, req, (GDestroyNotify) req_free);
  g_task_run_in_thread (task, run_req);
}

/* ---------------------------------------------------------------------- */
/* Runs                                                                    */

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
};

static Run *
run_ref (Run *run)
{
  g_atomic_ref_count_inc (&run->ref);
  return run;
}

static void
run_unref (Run *run)
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
  g_free (run);
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
  respond_json (run->pending, 202, object);
  soup_server_message_unpause (run->pending);
  g_clear_object (&run->pending);
}

typedef struct
{
  Run  *run;
  char *session_id;
} SessionKnown;

static gboolean
on_session_known (gpointer user_data)
{
  SessionKnown *known = user_data;
  Run *run = known->run;

  if (run->session_id == NULL)
    run->session_id = g_strdup (known->session_id);
  run_answer_accepted (run);
  return G_SOURCE_REMOVE;
}

static void
session_known_free (gpointer data)
{
  SessionKnown *known = data;

  run_unref (known->run);
  g_free (known->session_id);
  g_free (known);
}

/* On the engine's worker thread. */
static void
on_run_progress (PdEngineProgress  kind,
                 const char       *text,
                 gpointer          user_data)
{
  Run *run = user_data;
  SessionKnown *known;
  GSource *source;

  if (kind != PD_ENGINE_PROGRESS_SESSION || run->server == NULL)
    return;

  known = g_new0 (SessionKnown, 1);
  known->run = run_ref (run);
  known->session_id = g_strdup (text);
  source = g_idle_source_new ();
  g_source_set_callback (source, on_session_known, known, session_known_free);
  g_source_attach (source, run->server->context);
  g_source_unref (source);
}

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

  run->ended_at = g_get_real_time ();
  run->active = FALSE;
  /* The engine's progress func holds a reference to the run. */
  pd_engine_set_progress_func (run->engine, NULL, NULL, NULL);
  g_clear_object (&run->engine);
  g_clear_pointer (&run->status, g_free);

  if (outcome == NULL)
    {
      run->status = g_strdup ("failed");
      run->error = pd_redact (error->message, NULL);
      if (run->pending != NULL)
        {
          gboolean not_found = g_error_matches (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND);

          respond_error (run->pending, not_found ? 404 : 400, not_found ? "session not found" : run->error);
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

  bump_generation (self);
  self->active_runs--;
  g_queue_push_tail (&self->finished_runs, g_strdup (run->id));
  forget_finished_runs (self);
  run_unref (run);
  maybe_quit (self);
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

static void
handle_prompt (PdServer          *self,
               SoupServerMessage *msg)
{
  g_autoptr(GBytes) body = NULL;
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) error = NULL;
  g_autoptr(PdEngine) engine = NULL;
  PdServerRunRequest request = { 0 };
  g_autofree char *run_id = NULL;
  JsonObject *object;
  JsonNode *node;
  const char *message = NULL, *session_id = NULL, *model = NULL;
  const char *data;
  gsize len;
  Run *run;

  if (soup_server_message_get_method (msg) != SOUP_METHOD_POST)
    {
      respond_error (msg, 405, "method not allowed");
      return;
    }

  body = soup_message_body_flatten (soup_server_message_get_request_body (msg));
  data = g_bytes_get_data (body, &len);
  if (len > PD_SERVER_MAX_BODY)
    {
      respond_error (msg, 413, "request body too large");
      return;
    }
  if (len == 0 || pd_json_nesting_exceeds (data, (gssize) len, PD_JSON_FOREIGN_MAX_DEPTH) ||
      !json_parser_load_from_data (parser, data, (gssize) len, &error) ||
      json_parser_get_root (parser) == NULL ||
      !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    {
      respond_error (msg, 400, "invalid JSON body");
      return;
    }
  object = json_node_get_object (json_parser_get_root (parser));

  node = json_object_get_member (object, "message");
  if (node && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    message = json_node_get_string (node);
  if (message == NULL || *message == '\0')
    {
      respond_error (msg, 400, "message required");
      return;
    }
  node = json_object_get_member (object, "session_id");
  if (node && !JSON_NODE_HOLDS_NULL (node))
    {
      if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
        {
          respond_error (msg, 400, "invalid session id");
          return;
        }
      session_id = json_node_get_string (node);
      if (*session_id == '\0')
        session_id = NULL;
      else if (!pd_session_id_is_valid (session_id))
        {
          respond_error (msg, 400, "invalid session id");
          return;
        }
    }
  node = json_object_get_member (object, "model");
  if (node && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    model = json_node_get_string (node);

  if (self->engine_func == NULL)
    {
      respond_error (msg, 501, "this server does not run prompts");
      return;
    }
  if (session_id != NULL && find_active_run (self, session_id) != NULL)
    {
      respond_error (msg, 409, "session is busy");
      return;
    }
  if (self->active_runs >= PD_SERVER_MAX_ACTIVE_RUNS)
    {
      respond_error (msg, 503, "too many active runs");
      return;
    }

  run_id = pd_random_hex (16);
  request.session_id = session_id;
  request.message = message;
  request.model = model;
  request.run_id = run_id;
  request.store = self->store;
  request.bus = self->bus;
  if (!(engine = self->engine_func (&request, self->engine_data, &error)))
    {
      respond_error (msg, 400, error->message);
      return;
    }

  run = g_new0 (Run, 1);
  g_atomic_ref_count_init (&run->ref);
  run->server = self;
  run->id = g_strdup (run_id);
  run->session_id = g_strdup (session_id);
  run->model = g_strdup (model ? model : self->model);
  run->status = g_strdup ("running");
  run->started_at = g_get_real_time ();
  run->cancellable = g_cancellable_new ();
  run->engine = g_object_ref (engine);
  run->pending = g_object_ref (msg);
  run->active = TRUE;
  g_hash_table_insert (self->runs, g_strdup (run_id), run);
  self->active_runs++;

  soup_server_message_pause (msg);
  pd_engine_set_progress_func (engine, on_run_progress, run_ref (run), (GDestroyNotify) run_unref);
  pd_engine_run_async (engine, session_id, message, run->cancellable, on_run_done, run_ref (run));
}

static void
handle_runs (PdServer          *self,
             SoupServerMessage *msg,
             const char        *rest)
{
  if (soup_server_message_get_method (msg) != SOUP_METHOD_GET)
    {
      respond_error (msg, 405, "method not allowed");
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
      respond_json (msg, 200, object);
      return;
    }

  {
    Run *run = g_hash_table_lookup (self->runs, rest);

    if (run == NULL)
      respond_error (msg, 404, "run not found");
    else
      respond_json (msg, 200, run_to_json (run));
  }
}

static void
handle_cancel (PdServer          *self,
               SoupServerMessage *msg,
               GHashTable        *query)
{
  const char *session_id = query_get (query, "session_id");
  JsonObject *object;
  Run *run;

  if (soup_server_message_get_method (msg) != SOUP_METHOD_POST)
    {
      respond_error (msg, 405, "method not allowed");
      return;
    }
  if (session_id == NULL || *session_id == '\0')
    {
      respond_error (msg, 400, "missing session_id");
      return;
    }
  if (!pd_session_id_is_valid (session_id))
    {
      respond_error (msg, 400, "invalid session id");
      return;
    }

  run = find_active_run (self, session_id);
  if (run != NULL)
    g_cancellable_cancel (run->cancellable);

  object = json_object_new ();
  json_object_set_string_member (object, "session_id", session_id);
  json_object_set_boolean_member (object, "idle", run == NULL);
  respond_json (msg, 200, object);
}

/* ---------------------------------------------------------------------- */
/* Server-Sent Events                                                      */

typedef struct
{
  PdServer          *server;
  SoupServerMessage *msg;
  char              *session_id;
  char              *run_id;
  guint              listener_id;
  GSource           *keepalive;
  gulong             finished_id;
  gboolean           closed;
} Stream;

static void
stream_close (Stream *stream)
{
  PdServer *self = stream->server;

  if (stream->closed)
    return;
  stream->closed = TRUE;
  self->streams = g_list_remove (self->streams, stream);
  if (stream->keepalive != NULL)
    {
      g_source_destroy (stream->keepalive);
      g_clear_pointer (&stream->keepalive, g_source_unref);
    }
  /* Last: its destroy notify may free the stream right here. */
  pd_event_bus_remove_listener (self->bus, stream->listener_id);
}

static void
stream_free (gpointer data)
{
  Stream *stream = data;

  g_signal_handler_disconnect (stream->msg, stream->finished_id);
  g_object_unref (stream->msg);
  g_free (stream->session_id);
  g_free (stream->run_id);
  g_free (stream);
}

static void
stream_write (Stream     *stream,
              const char *text)
{
  if (stream->closed)
    return;
  soup_message_body_append (soup_server_message_get_response_body (stream->msg), SOUP_MEMORY_COPY,
                            text, strlen (text));
  soup_server_message_unpause (stream->msg);
}

static void
on_stream_event (PdEvent  *event,
                 gpointer  user_data)
{
  Stream *stream = user_data;
  g_autofree char *json = NULL;
  g_autofree char *frame = NULL;

  if (stream->closed)
    return;
  if (stream->session_id && g_strcmp0 (pd_event_get_session_id (event), stream->session_id) != 0)
    return;
  if (stream->run_id && g_strcmp0 (pd_event_get_run_id (event), stream->run_id) != 0)
    return;

  json = pd_event_to_json (event);
  /* One line of JSON: no newline can split the data field. */
  frame = g_strdup_printf ("event: %s\ndata: %s\n\n", pd_event_get_event_type (event), json);
  stream_write (stream, frame);
}

static gboolean
on_stream_keepalive (gpointer user_data)
{
  stream_write (user_data, ": keepalive\n\n");
  return G_SOURCE_CONTINUE;
}

static void
on_stream_finished (SoupServerMessage *msg,
                    gpointer           user_data)
{
  Stream *stream = user_data;

  /* The listener's destroy notify frees the stream once no call runs. */
  stream_close (stream);
}

static void
handle_stream (PdServer          *self,
               SoupServerMessage *msg,
               GHashTable        *query)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  const char *session_id = query_get (query, "session_id");
  const char *run_id = query_get (query, "run_id");
  Stream *stream;

  if (soup_server_message_get_method (msg) != SOUP_METHOD_GET)
    {
      respond_error (msg, 405, "method not allowed");
      return;
    }
  if (session_id != NULL && *session_id && !pd_session_id_is_valid (session_id))
    {
      respond_error (msg, 400, "invalid session id");
      return;
    }
  if (g_list_length (self->streams) >= PD_SERVER_MAX_STREAMS)
    {
      respond_error (msg, 503, "too many event streams");
      return;
    }

  stream = g_new0 (Stream, 1);
  stream->server = self;
  stream->msg = g_object_ref (msg);
  stream->session_id = session_id && *session_id ? g_strdup (session_id) : NULL;
  stream->run_id = run_id && *run_id ? g_strdup (run_id) : NULL;
  self->streams = g_list_prepend (self->streams, stream);

  soup_server_message_set_status (msg, 200, NULL);
  soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  soup_message_headers_replace (headers, "X-Accel-Buffering", "no");

  stream->finished_id = g_signal_connect (msg, "finished", G_CALLBACK (on_stream_finished), stream);
  stream->listener_id = pd_event_bus_add_listener (self->bus, on_stream_event, stream, stream_free);
  stream->keepalive = g_timeout_source_new_seconds (KEEPALIVE_SECONDS);
  g_source_set_callback (stream->keepalive, on_stream_keepalive, stream, NULL);
  g_source_attach (stream->keepalive, self->context);

  stream_write (stream, ": plandeck event stream\n\n");
}

/* ---------------------------------------------------------------------- */
/* Routing                                                                 */

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
  json_object_set_boolean_member (object, "plan_detail", TRUE);
  json_object_set_int_member (object, "ws_connections", 0);
  json_object_set_int_member (object, "runs_active", self->active_runs);
  respond_json (msg, 200, object);
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
  json_object_set_int_member (object, "ws_connections", 0);
  json_object_set_int_member (object, "runs_active", self->active_runs);
  json_object_set_int_member (object, "subagents", 0);
  respond_json (msg, 200, object);
}

static void
handle_events (PdServer          *self,
               SoupServerMessage *msg,
               GHashTable        *query)
{
  const char *limit_text = query_get (query, "limit");
  const char *run_id = query_get (query, "run_id");
  const char *session_id = query_get (query, "session_id");
  const char *after_text = query_get (query, "after_seq");
  g_autoptr(GPtrArray) events = NULL;
  JsonObject *object;
  JsonArray *array;
  gint64 limit = EVENTS_DEFAULT_LIMIT;

  if (soup_server_message_get_method (msg) != SOUP_METHOD_GET)
    {
      respond_error (msg, 405, "method not allowed");
      return;
    }
  if (limit_text != NULL && !parse_count (limit_text, &limit))
    {
      respond_error (msg, 400, "invalid limit");
      return;
    }
  limit = CLAMP (limit, 1, PD_EVENT_BUS_RING_SIZE);
  if (session_id != NULL && *session_id == '\0')
    session_id = NULL;
  if (run_id != NULL && *run_id == '\0')
    run_id = NULL;
  if (session_id != NULL && !pd_session_id_is_valid (session_id))
    {
      respond_error (msg, 400, "invalid session id");
      return;
    }

  /* Ours: the stored events of a session after a sequence number. */
  if (after_text != NULL)
    {
      Req *req;
      gint64 after_seq;

      if (session_id == NULL || !parse_count (after_text, &after_seq))
        {
          respond_error (msg, 400, "after_seq needs a session_id and a number");
          return;
        }
      req = req_new (self, msg, OP_EVENTS, session_id);
      req->after_seq = after_seq;
      req->limit = (guint) limit;
      req_start (self, req);
      return;
    }

  events = pd_event_bus_get_recent (self->bus, (guint) limit, run_id, session_id);
  object = json_object_new ();
  array = json_array_new ();
  for (guint i = 0; i < events->len; i++)
    json_array_add_element (array, pd_event_to_json_node (g_ptr_array_index (events, i)));
  json_object_set_array_member (object, "events", array);
  json_object_set_int_member (object, "count", events->len);
  respond_json (msg, 200, object);
}

static void
handle_sessions (PdServer          *self,
                 SoupServerMessage *msg,
                 GHashTable        *query)
{
  const char *q = query_get (query, "q");
  const char *limit_text = query_get (query, "limit");
  const char *offset_text = query_get (query, "offset");
  gint64 limit = 50, offset = 0;
  Req *req;

  if (soup_server_message_get_method (msg) != SOUP_METHOD_GET)
    {
      respond_error (msg, 405, "method not allowed");
      return;
    }

  req = req_new (self, msg, OP_LIST, NULL);
  req->paged = q != NULL || limit_text != NULL || offset_text != NULL;
  if ((limit_text != NULL && !parse_count (limit_text, &limit)) ||
      (offset_text != NULL && !parse_count (offset_text, &offset)))
    {
      req_free (req);
      respond_error (msg, 400, "invalid limit or offset");
      return;
    }
  if (!req->paged)
    limit = PD_SESSION_LIST_MAX_LIMIT;
  req->limit = (guint) CLAMP (limit == 0 ? 50 : limit, 1, PD_SESSION_LIST_MAX_LIMIT);
  req->offset = (guint) offset;
  req->query = q && *q ? g_strdup (q) : NULL;
  req_start (self, req);
}

static void
handle_session (PdServer          *self,
                SoupServerMessage *msg,
                const char        *rest,
                const char        *presented,
                gboolean           instance_header)
{
  const char *method = soup_server_message_get_method (msg);
  g_autofree char *id = NULL;
  OpKind kind;
  Req *req;

  if (rest == NULL || *rest == '\0')
    {
      respond_error (msg, 400, "missing session id");
      return;
    }

  if (method == SOUP_METHOD_GET)
    {
      const char *slash = strchr (rest, '/');

      id = g_strndup (rest, slash ? (gsize) (slash - rest) : strlen (rest));
      if (slash == NULL)
        kind = OP_GET;
      else if (strcmp (slash, "/plan") == 0)
        kind = OP_PLAN;
      else if (strcmp (slash, "/plan/detail") == 0)
        kind = OP_PLAN_DETAIL;
      else if (strcmp (slash, "/export") == 0)
        kind = OP_EXPORT;
      else
        {
          respond_error (msg, 404, "not found");
          return;
        }

      if (!rate_allow (self, soup_server_message_get_remote_host (msg)))
        {
          soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Retry-After", "60");
          respond_error (msg, 429, "rate limit exceeded");
          return;
        }
    }
  else if (method == SOUP_METHOD_POST || method == SOUP_METHOD_DELETE)
    {
      /* Suffixes are never stripped for changes: a POST to …/plan names no
       * session and reaches no mutator. */
      if (strchr (rest, '/') != NULL)
        {
          soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Allow", "GET");
          respond_error (msg, 405, "method not allowed");
          return;
        }
      id = g_strdup (rest);
      kind = method == SOUP_METHOD_POST ? OP_UPDATE : OP_DELETE;
    }
  else
    {
      respond_error (msg, 405, "method not allowed");
      return;
    }

  if (!pd_session_id_is_valid (id))
    {
      respond_error (msg, 404, "session not found");
      return;
    }

  if (kind == OP_PLAN)
    {
      PlanCacheEntry *entry = g_hash_table_lookup (self->plan_cache, id);

      if (entry != NULL && entry->generation == g_atomic_int_get (&self->generation))
        {
          if (!token_allows_read (presented, instance_header, entry->auth_token))
            {
              respond_error (msg, 401, "invalid session token");
              return;
            }
          if (*entry->auth_token)
            soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                          "X-Session-Token", entry->auth_token);
          soup_server_message_set_status (msg, 200, NULL);
          soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY,
                                            entry->body, strlen (entry->body));
          return;
        }
    }

  req = req_new (self, msg, kind, id);
  req->session_token = g_strdup (presented);
  req->instance_header = instance_header;

  if (kind == OP_UPDATE)
    {
      g_autoptr(GBytes) body = soup_message_body_flatten (soup_server_message_get_request_body (msg));
      g_autoptr(JsonParser) parser = json_parser_new_immutable ();
      gsize len;
      const char *data = g_bytes_get_data (body, &len);
      JsonObject *object;
      JsonNode *node;

      if (len == 0 || len > PD_SERVER_MAX_BODY ||
          pd_json_nesting_exceeds (data, (gssize) len, PD_JSON_FOREIGN_MAX_DEPTH) ||
          !json_parser_load_from_data (parser, data, (gssize) len, NULL) ||
          /* A body of whitespace only parses to no root at all. */
          json_parser_get_root (parser) == NULL ||
          !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
        {
          req_free (req);
          respond_error (msg, 400, "invalid JSON body");
          return;
        }
      object = json_node_get_object (json_parser_get_root (parser));
      if ((node = json_object_get_member (object, "name")) && !JSON_NODE_HOLDS_NULL (node))
        {
          if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
            {
              req_free (req);
              respond_error (msg, 400, "name must be a string");
              return;
            }
          req->name = g_strdup (json_node_get_string (node));
        }
      if ((node = json_object_get_member (object, "pinned")) && !JSON_NODE_HOLDS_NULL (node))
        {
          if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
            {
              req_free (req);
              respond_error (msg, 400, "pinned must be a boolean");
              return;
            }
          req->pinned = json_node_get_boolean (node) ? 1 : 0;
        }
      if (req->name == NULL && req->pinned < 0)
        {
          req_free (req);
          respond_error (msg, 400, "nothing to update (name or pinned required)");
          return;
        }
    }

  req_start (self, req);
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
  const char *header_token = soup_message_headers_get_one (request_headers, "X-Odek-Ws-Token");
  const char *session_header = soup_message_headers_get_one (request_headers, "X-Session-Token");
  g_autofree char *cookie_token = NULL;
  g_autofree char *session_cookie = NULL;
  gboolean instance_header;

  soup_message_headers_replace (response_headers, "Cache-Control", "no-store");

  if (self->stopping)
    {
      respond_error (msg, 503, "shutting down");
      return;
    }

  if (header_token == NULL)
    header_token = soup_message_headers_get_one (request_headers, "X-Plandeck-Token");
  instance_header = const_time_equal (header_token, self->token);
  if (!instance_header)
    {
      cookie_token = cookie_value (msg, "odek_ws_token");
      if (!const_time_equal (cookie_token, self->token))
        {
          respond_error (msg, 403, "Forbidden");
          return;
        }
    }

  if (!host_is_allowed (self, soup_message_headers_get_one (request_headers, "Host")))
    {
      respond_error (msg, 403, "Host not allowed");
      return;
    }

  if (method != SOUP_METHOD_GET && method != SOUP_METHOD_HEAD && method != SOUP_METHOD_OPTIONS &&
      !origin_is_allowed (self, soup_message_headers_get_one (request_headers, "Origin")))
    {
      respond_error (msg, 403, "Origin not allowed");
      return;
    }

  if (session_header == NULL)
    session_header = session_cookie = cookie_value (msg, "session_token");

  if (strcmp (path, "/api/health") == 0)
    handle_health (self, msg);
  else if (strcmp (path, "/api/usage") == 0)
    {
      if (method != SOUP_METHOD_GET)
        respond_error (msg, 405, "method not allowed");
      else
        handle_usage (self, msg);
    }
  else if (strcmp (path, "/api/sessions") == 0)
    handle_sessions (self, msg, query);
  else if (g_str_has_prefix (path, "/api/sessions/"))
    handle_session (self, msg, path + strlen ("/api/sessions/"), session_header, instance_header);
  else if (strcmp (path, "/api/events") == 0)
    handle_events (self, msg, query);
  else if (strcmp (path, "/api/events/stream") == 0)
    handle_stream (self, msg, query);
  else if (strcmp (path, "/api/prompt") == 0)
    handle_prompt (self, msg);
  else if (strcmp (path, "/api/runs") == 0)
    handle_runs (self, msg, NULL);
  else if (g_str_has_prefix (path, "/api/runs/"))
    handle_runs (self, msg, path + strlen ("/api/runs/"));
  else if (strcmp (path, "/api/cancel") == 0)
    handle_cancel (self, msg, query);
  else
    respond_error (msg, 404, "not found");
}

/* `GET /?token=…` stores the instance token in a cookie, as odek does, so a
 * browser can use the API; there is no web UI. */
static void
handle_root (SoupServer        *soup,
             SoupServerMessage *msg,
             const char        *path,
             GHashTable        *query,
             gpointer           user_data)
{
  PdServer *self = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  const char *token = query_get (query, "token");

  soup_message_headers_replace (headers, "Cache-Control", "no-store");

  if (strcmp (path, "/") != 0 || soup_server_message_get_method (msg) != SOUP_METHOD_GET)
    {
      respond_error (msg, 404, "not found");
      return;
    }

  if (token != NULL && const_time_equal (token, self->token))
    {
      g_autofree char *cookie = g_strdup_printf ("odek_ws_token=%s; Path=/; HttpOnly; SameSite=Strict", self->token);
      soup_message_headers_append (headers, "Set-Cookie", cookie);
    }
  respond_text (msg, 200, "text/plain; charset=utf-8", g_strdup ("plandeck serve: the API is under /api/\n"));
}

/* ---------------------------------------------------------------------- */
/* Event sink and data_version watcher                                     */

static void
persist_event (PdEvent  *event,
               gpointer  user_data)
{
  PdServer *self = user_data;
  const char *type = pd_event_get_event_type (event);
  g_autofree char *json = NULL;
  g_autoptr(GError) error = NULL;

  if (pd_event_get_session_id (event) != NULL)
    {
      json = pd_event_to_json (event);
      if (pd_session_store_add_event (self->store, pd_event_get_session_id (event), pd_event_get_run_id (event),
                                      type, pd_event_get_timestamp (event), json, &error) < 0)
        g_debug ("event not stored: %s", error->message);
    }

  if (pd_event_type_is_plan (type) || g_strcmp0 (type, PD_EVENT_SESSION_SAVED) == 0 ||
      g_strcmp0 (type, PD_EVENT_RUN_COMPLETED) == 0 || g_strcmp0 (type, PD_EVENT_RUN_FAILED) == 0)
    bump_generation (self);
}

static gpointer
watch_thread (gpointer data)
{
  PdServer *self = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (self->db_path, PD_DB_READ_ONLY, &error);
  gint64 last = -1;

  if (db == NULL)
    g_debug ("not watching for other writers: %s", error->message);

  g_mutex_lock (&self->watch_lock);
  while (!self->watch_stop)
    {
      gint64 deadline = g_get_monotonic_time () + WATCH_INTERVAL_USEC;

      if (db != NULL)
        {
          gint64 version = -1;

          g_mutex_unlock (&self->watch_lock);
          {
            g_autoptr(PdDbLocker) locker = pd_db_locker_new (db);
            PdDbStmt *stmt = pd_db_prepare (db, "PRAGMA data_version", NULL);

            if (stmt != NULL)
              {
                if (pd_db_step (db, stmt, NULL) == SQLITE_ROW)
                  version = sqlite3_column_int64 (stmt, 0);
                pd_db_stmt_release (stmt);
              }
          }
          /* The first reading is a baseline taken after the server began
           * answering: a change committed before it would never be seen, so
           * it counts as a change too (one spurious miss at most). */
          if (version >= 0 && version != last)
            bump_generation (self);
          last = version;
          g_mutex_lock (&self->watch_lock);
        }

      while (!self->watch_stop && g_cond_wait_until (&self->watch_cond, &self->watch_lock, deadline))
        ;
    }
  g_mutex_unlock (&self->watch_lock);
  return NULL;
}

/* ---------------------------------------------------------------------- */
/* Lifecycle                                                               */

static void
maybe_quit (PdServer *self)
{
  if (self->stopping && self->pending == 0 && self->active_runs == 0 && self->loop != NULL)
    g_main_loop_quit (self->loop);
}

static gboolean
begin_stop (gpointer data)
{
  PdServer *self = data;
  GHashTableIter iter;
  Run *run;

  self->stopping = TRUE;

  g_hash_table_iter_init (&iter, self->runs);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &run))
    if (run->active)
      g_cancellable_cancel (run->cancellable);

  while (self->streams != NULL)
    {
      Stream *stream = self->streams->data;

      soup_message_body_complete (soup_server_message_get_response_body (stream->msg));
      soup_server_message_unpause (stream->msg);
      stream_close (stream);
    }

  maybe_quit (self);
  return G_SOURCE_REMOVE;
}

/* Every answer, libsoup's own errors included, is marked no-store. */
static void
on_request_started (SoupServer        *soup,
                    SoupServerMessage *msg,
                    gpointer           user_data)
{
  soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Cache-Control", "no-store");
}

static gpointer
server_thread (gpointer data)
{
  PdServer *self = data;
  g_autoptr(GInetAddress) address = NULL;
  g_autoptr(GSocketAddress) socket_address = NULL;
  GError *error = NULL;

  g_main_context_push_thread_default (self->context);

  self->soup = soup_server_new ("server-header", "plandeck/" PACKAGE_VERSION " ", NULL);
  soup_server_add_handler (self->soup, "/api", handle_api, self, NULL);
  soup_server_add_handler (self->soup, NULL, handle_root, self, NULL);
  g_signal_connect (self->soup, "request-started", G_CALLBACK (on_request_started), NULL);

  address = g_inet_address_new_from_string (self->host);
  if (address == NULL)
    g_set_error (&error, PD_SERVER_ERROR, PD_SERVER_ERROR_ADDRESS, "'%s' is not an IP address", self->host);
  else
    {
      socket_address = g_inet_socket_address_new (address, self->port);
      if (!soup_server_listen (self->soup, socket_address, 0, &error))
        {
          g_prefix_error (&error, "cannot listen on %s:%u: ", self->host, self->port);
          error->domain = PD_SERVER_ERROR;
          error->code = PD_SERVER_ERROR_LISTEN;
        }
      else
        {
          /* Not soup_server_get_uris(): libsoup 3.2 leaks the address it
           * reads there; the listening socket tells the port as well. */
          GSList *listeners = soup_server_get_listeners (self->soup);
          g_autoptr(GSocketAddress) local = listeners ? g_socket_get_local_address (listeners->data, NULL) : NULL;

          if (local != NULL && G_IS_INET_SOCKET_ADDRESS (local))
            self->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local));
          g_slist_free (listeners);
        }
    }

  g_mutex_lock (&self->start_lock);
  self->start_error = error;
  self->start_done = TRUE;
  g_cond_signal (&self->start_cond);
  g_mutex_unlock (&self->start_lock);

  if (error == NULL)
    g_main_loop_run (self->loop);

  soup_server_disconnect (self->soup);
  g_clear_object (&self->soup);
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
  g_hash_table_unref (self->rate);
  g_hash_table_unref (self->plan_cache);
  g_hash_table_unref (self->runs);
  g_queue_clear_full (&self->finished_runs, g_free);
  g_ptr_array_unref (self->allowed_hosts);
  g_main_loop_unref (self->loop);
  g_main_context_unref (self->context);
  g_free (self->db_path);
  g_free (self->host);
  g_free (self->token);
  g_free (self->model);
  g_mutex_clear (&self->start_lock);
  g_cond_clear (&self->start_cond);
  g_mutex_clear (&self->watch_lock);
  g_cond_clear (&self->watch_cond);

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
  self->allowed_hosts = g_ptr_array_new_with_free_func (g_free);
  self->token = pd_random_hex (32);
  self->context = g_main_context_new ();
  self->loop = g_main_loop_new (self->context, FALSE);
  self->rate = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) rate_bucket_free);
  self->plan_cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) plan_cache_entry_free);
  self->runs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) run_unref);
  g_queue_init (&self->finished_runs);
  g_mutex_init (&self->start_lock);
  g_cond_init (&self->start_cond);
  g_mutex_init (&self->watch_lock);
  g_cond_init (&self->watch_cond);
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

  if (!(db = pd_db_open (self->db_path, PD_DB_CREATE, error)))
    {
      g_prefix_error (error, "%s: ", self->db_path);
      return FALSE;
    }
  self->store = pd_session_store_new (db);

  self->readers = g_async_queue_new ();
  for (guint i = 0; i < N_READERS; i++)
    {
      g_autoptr(PdDb) reader = pd_db_open (self->db_path, PD_DB_NONE, error);

      if (reader == NULL)
        {
          g_prefix_error (error, "%s: ", self->db_path);
          return FALSE;
        }
      g_async_queue_push (self->readers, pd_session_store_new (reader));
    }

  self->bus = pd_event_bus_new ();
  pd_event_bus_add_sink (self->bus, persist_event, self, NULL);

  self->started_at = g_get_real_time ();
  self->watcher = g_thread_new ("pd-server-watch", watch_thread, self);
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

  if (self->watcher != NULL)
    {
      g_mutex_lock (&self->watch_lock);
      self->watch_stop = TRUE;
      g_cond_signal (&self->watch_cond);
      g_mutex_unlock (&self->watch_lock);
      g_thread_join (self->watcher);
      self->watcher = NULL;
    }

  if (self->bus != NULL)
    pd_event_bus_flush (self->bus);

  /* Runs hold a pointer back; none is active any more. */
  if (self->runs != NULL)
    {
      GHashTableIter iter;
      Run *run;

      g_hash_table_iter_init (&iter, self->runs);
      while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &run))
        run->server = NULL;
    }
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

/* The URL printed at start: the base URL with ?token=. */
char *
pd_server_dup_start_url (PdServer *self)
{
  g_autofree char *base = pd_server_dup_base_url (self);

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
