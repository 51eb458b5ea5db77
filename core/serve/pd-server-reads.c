/* pd-server-reads.c: the session routes of `plandeck-agent serve`.
 *
 * GET /api/sessions[/ID[/plan[/detail]|/export]], POST and DELETE of a
 * session, and the stored events of GET /api/events?after_seq=.  Each runs
 * in a GTask worker on a reader connection of its own; the answer goes back
 * to the server's thread, which caches GET …/plan per session.  A read of an
 * imported session's transcript is looked up there (its record, its token)
 * and then read by pd-server-heavy.c, shared by the requests asking it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-server"

#include "config.h"

#include "pd-json.h"

#include <string.h>

#include "pd-server-private.h"
#include "pd-plan.h"
#include "pd-import-index.h"
#include "pd-session-reads.h"

#define PLAN_CACHE_MAX       1024
#define EVENTS_DEFAULT_LIMIT 100

static int
compare_names (gconstpointer a,
                         gconstpointer b)
{
  return g_utf8_collate (*(const char * const *) a, *(const char * const *) b);
}

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
  OP_AUTHORIZE,   /* a change elsewhere (a run, a cancel) needs the session's token */
  OP_RESOURCES,   /* what an @ in the browser UI's prompt may name */
} OpKind;

typedef struct
{
  gint               ref;
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
  /* OP_GET: its page of messages (pd-server-messages.c); -1 unset */
  gint64             before;
  gint64             page_limit;
  /* OP_RESOURCES */
  char              *folder;
  /* OP_AUTHORIZE: what to do once allowed, on the server's thread */
  PdServerAuthorized then;
  gpointer           then_data;
  GDestroyNotify     then_destroy;
  /* tokens */
  char              *session_token;     /* presented */
  gboolean           instance_header;   /* the instance token came as a header */
  gint               generation;        /* read before the database */

  /* The answer. */
  guint              status;
  char              *body;
  char              *token_out;         /* X-Session-Token */
  char              *auth_token;        /* the session's, for the plan cache */
  gboolean           imported;          /* another agent's: read from its transcript, never cached */
  char              *heavy_key;         /* its transcript's read, which pd-server-heavy.c runs */
} Req;

static Req *
req_ref (Req *req)
{
  g_atomic_int_inc (&req->ref);
  return req;
}

static void
req_unref (Req *req)
{
  if (!g_atomic_int_dec_and_test (&req->ref))
    return;
  if (req->finished_id != 0)
    g_signal_handler_disconnect (req->msg, req->finished_id);
  g_clear_object (&req->msg);
  g_object_unref (req->server);
  g_free (req->id);
  g_free (req->query);
  g_free (req->folder);
  g_free (req->name);
  g_free (req->session_token);
  g_free (req->body);
  g_free (req->token_out);
  g_free (req->auth_token);
  g_free (req->heavy_key);
  if (req->then_destroy != NULL)
    req->then_destroy (req->then_data);
  g_free (req);
}

static void
req_set_error (Req        *req,
               guint       status,
               const char *message)
{
  req->status = status;
  g_free (req->body);
  req->body = _pd_server_error_body (message);
}

static void
req_set_object (Req        *req,
                guint       status,
                JsonObject *object)   /* (transfer full) */
{
  req->status = status;
  g_free (req->body);
  req->body = _pd_server_json_object_text (object);
  json_object_unref (object);
}

static void
req_set_db_error (Req    *req,
                  GError *error)
{
  if (g_error_matches (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND))
    req_set_error (req, 404, "session not found");
  else if (error->domain == G_IO_ERROR)
    {
      /* An imported session whose agent's transcript is gone or unreadable. */
      g_message ("transcript not read: %s", error->message);
      req_set_error (req, 503, "the session's transcript cannot be read");
    }
  else
    {
      g_message ("database error: %s", error->message);
      req_set_error (req, 500, "database error");
    }
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
    json_array_add_object_element (array, _pd_server_session_json (g_ptr_array_index (sessions, i)));

  if (!req->paged)
    {
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);

      json_node_take_array (node, array);
      req->status = 200;
      req->body = _pd_server_json_text (node);
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

/* Where the messages go in …/export's text: no text of a value can hold it
 * with its quotes unescaped. */
#define EXPORT_HOLE "pd-export-messages-hole"

/* …/export's body as it is written: the messages member's elements. */
typedef struct
{
  GString  *body;
  gboolean  first;
} ExportBody;

static void
export_append_message (JsonObject *message,   /* (transfer full) */
                       gpointer    data)
{
  ExportBody *export = data;
  g_autofree char *text = _pd_server_json_object_text (message);

  json_object_unref (message);
  if (!export->first)
    g_string_append_c (export->body, ',');
  export->first = FALSE;
  g_string_append (export->body, text);
}

/* One of "plan_versions"' elements, as the tree wrote it. */
static void
export_append_version (PdPlanVersionInfo *version,
                       ExportBody        *export)
{
  g_autofree char *stamp = pd_session_time_to_string (version->created_at);
  JsonObject *entry = json_object_new ();
  JsonNode *state = pd_json_from_string_bounded (version->state_json, NULL);
  g_autofree char *text = NULL;

  json_object_set_int_member (entry, "version", version->version);
  json_object_set_string_member (entry, "created_at", stamp ? stamp : "");
  if (state != NULL)
    json_object_set_member (entry, "state", state);
  else
    json_object_set_null_member (entry, "state");
  text = _pd_server_json_object_text (entry);
  json_object_unref (entry);
  if (!export->first)
    g_string_append_c (export->body, ',');
  export->first = FALSE;
  g_string_append (export->body, text);
}

static void
export_take_version (PdPlanVersionInfo *version,   /* (transfer full) */
                     gpointer           data)
{
  export_append_version (version, data);
  pd_plan_version_info_free (version);
}

static void
op_session (Req            *req,
            PdSessionStore *store)
{
  g_autoptr(GError) error = NULL;
  /* Reads answer imported sessions from their transcripts; changes need
   * the stored record only, and so does the record with its page, whose
   * counts come from the read of the page (pd-server-messages.c: the
   * transcript read whole for them took serve to 390.8 MB on a 40 MB
   * transcript of tiny calls). */
  g_autoptr(PdSessionInfo) info = req->kind == OP_UPDATE || req->kind == OP_DELETE || req->kind == OP_GET
                                  ? pd_session_store_get (store, req->id, &error)
                                  : pd_session_reads_get (store, req->id, &error);

  if (info == NULL)
    {
      req_set_db_error (req, error);
      return;
    }

  if (req->kind == OP_UPDATE || req->kind == OP_DELETE || req->kind == OP_AUTHORIZE)
    {
      PdSessionStore *writer = req->server->store;
      gboolean ok;

      if (!_pd_server_token_allows_write (req->session_token, req->instance_header, info->auth_token))
        {
          req_set_error (req, 401, "invalid session token");
          return;
        }
      if (req->kind == OP_AUTHORIZE)
        return;   /* status 0: allowed */

      if (req->kind == OP_DELETE)
        ok = pd_session_store_delete (writer, req->id, &error);
      else
        ok = (req->name == NULL || pd_session_store_rename (writer, req->id, req->name, &error)) &&
             (req->pinned < 0 || pd_session_store_set_pinned (writer, req->id, req->pinned != 0, &error));
      _pd_server_bump_generation (req->server);

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
      req_set_object (req, 200, _pd_server_session_json (info));
      return;
    }

  if (!_pd_server_token_allows_read (req->session_token, req->instance_header, info->auth_token))
    {
      req_set_error (req, 401, "invalid session token");
      return;
    }
  req->token_out = g_strdup (info->auth_token);
  req->auth_token = g_strdup (info->auth_token);
  req->imported = pd_session_info_is_imported (info);

  switch (req->kind)
    {
    case OP_GET:
      {
        /* odek's full record, with a page of its messages
         * (pd-server-messages.c says which). */
        GString *body = g_string_new (NULL);

        if (!_pd_server_append_session_page (store, info, req->before, req->page_limit, body, &error))
          {
            g_string_free (body, TRUE);
            req_set_db_error (req, error);
            return;
          }
        req->status = 200;
        g_free (req->body);
        req->body = g_string_free (body, FALSE);
      }
      break;

    case OP_PLAN:
    case OP_PLAN_DETAIL:
      {
        g_autoptr(PdPlanState) state = NULL;
        g_autoptr(GHashTable) cancelled = NULL;
        JsonObject *object;

        if (!pd_session_reads_get_plan_marked (store, req->id, &state, &cancelled, &error))
          {
            req_set_db_error (req, error);
            return;
          }
        object = _pd_server_plan_object (req->id, state, cancelled, req->kind == OP_PLAN_DETAIL);
        if (req->kind == OP_PLAN_DETAIL)
          {
            g_autoptr(GPtrArray) versions = pd_session_reads_list_plan_versions (store, req->id, &error);

            if (versions == NULL)
              {
                json_object_unref (object);
                req_set_db_error (req, error);
                return;
              }
            json_object_set_array_member (object, "history", _pd_server_history_array (versions));
          }
        req_set_object (req, 200, object);
      }
      break;

    case OP_EXPORT:
      {
        g_autoptr(GPtrArray) versions = NULL;
        g_autofree char *head = NULL;
        const char *hole;
        const char *tail;
        JsonObject *object;
        ExportBody export = { NULL, TRUE };

        /* The reply is written as the messages are read (a long imported
         * transcript a bounded part at a time), never as one tree of them
         * all: that took twice the reply's size again (205 MB for the
         * 35 MB reply of a 99 MB transcript).  The bytes are the tree's:
         * json-glib writes a member's value as it writes it alone. */
        object = _pd_server_session_json (info);
        /* "messages" keeps its place among the members (it replaces the
         * count there): a hole in the text, filled as the messages come. */
        json_object_set_string_member (object, "messages", EXPORT_HOLE);
        head = _pd_server_json_object_text (object);
        json_object_unref (object);
        hole = strstr (head, "\"messages\":\"" EXPORT_HOLE "\"");
        g_assert (hole != NULL);
        tail = hole + strlen ("\"messages\":\"" EXPORT_HOLE "\"");
        export.body = g_string_sized_new (1024 * 1024);
        g_string_append_len (export.body, head, hole - head);
        g_string_append (export.body, "\"messages\":[");
        if (!pd_session_reads_foreach_message (store, req->id, export_append_message, &export, NULL, &error) ||
            (!(pd_session_info_is_imported (info) && _pd_session_reads_is_long (store, req->id)) &&
             !(versions = pd_session_reads_list_all_plan_versions (store, req->id, &error))))
          {
            g_string_free (export.body, TRUE);
            req_set_db_error (req, error);
            return;
          }
        /* The members after it, then "plan_versions" last, where the tree
         * put it (its closing brace dropped and written at the end). */
        g_string_append_c (export.body, ']');
        g_string_append_len (export.body, tail, strlen (tail) - 1);
        g_string_append (export.body, ",\"plan_versions\":[");
        export.first = TRUE;
        if (versions != NULL)
          for (guint i = 0; i < versions->len; i++)
            export_append_version (g_ptr_array_index (versions, i), &export);
        else
          {
            g_autoptr(PdTranscriptPages) pages = NULL;

            /* A long transcript's versions as they are read, too: listed
             * first, every one came with the whole of its pages. */
            if (!(pages = pd_import_index_stream_versions (store, req->id, export_take_version, &export,
                                                           NULL, &error)))
              {
                g_string_free (export.body, TRUE);
                req_set_db_error (req, error);
                return;
              }
          }
        g_string_append (export.body, "]}");
        req->status = 200;
        g_free (req->body);
        req->body = g_string_free (export.body, FALSE);
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
  g_autoptr(GPtrArray) events = pd_session_reads_list_events (store, req->id, NULL, req->after_seq, req->limit, &error);
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
      JsonNode *node = pd_json_from_string_bounded (event->event_json, NULL);

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

/* The folder's own entries whose names begin with the query (no path: a
 * query with a separator or "..", or a long one, names no file), then the
 * sessions it matches.  Only names are read, never a file. */
static void
op_resources (Req            *req,
              PdSessionStore *store)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  const char *q = req->query ? req->query : "";
  JsonArray *array = json_array_new ();
  gboolean names_a_file = strlen (q) <= 256 && strchr (q, '/') == NULL && strchr (q, '\\') == NULL &&
                          strstr (q, "..") == NULL;

  json_node_take_array (node, array);
  if (!g_utf8_validate (q, -1, NULL))
    {
      req->status = 200;
      req->body = _pd_server_json_text (node);
      return;
    }

  if (req->folder != NULL && names_a_file)
    {
      g_autoptr(GDir) dir = g_dir_open (req->folder, 0, NULL);
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      g_autofree char *lower = g_utf8_strdown (q, -1);
      const char *name;

      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *folded = NULL;

          if (name[0] == '.' || !g_utf8_validate (name, -1, NULL))
            continue;
          folded = g_utf8_strdown (name, -1);
          if (g_str_has_prefix (folded, lower))
            g_ptr_array_add (names, g_strdup (name));
        }
      g_ptr_array_sort (names, (GCompareFunc) compare_names);
      for (guint i = 0; i < names->len && json_array_get_length (array) < req->limit; i++)
        {
          const char *entry = g_ptr_array_index (names, i);
          g_autofree char *path = g_build_filename (req->folder, entry, NULL);
          gboolean is_dir = g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK);
          JsonObject *row = json_object_new ();
          g_autofree char *id = g_strdup_printf ("@%s%s", entry, is_dir ? "/" : "");

          json_object_set_string_member (row, "id", id);
          json_object_set_string_member (row, "type", is_dir ? "directory" : "file");
          json_object_set_string_member (row, "label", entry);
          json_object_set_string_member (row, "detail", is_dir ? "directory" : "file");
          json_array_add_object_element (array, row);
        }
    }

  if (json_array_get_length (array) < req->limit)
    sessions = pd_session_store_list (store, *q ? q : NULL, FALSE, 0, req->limit - json_array_get_length (array),
                                      NULL, &error);
  for (guint i = 0; sessions != NULL && i < sessions->len; i++)
    {
      PdSessionInfo *info = g_ptr_array_index (sessions, i);
      JsonObject *row = json_object_new ();
      g_autofree char *id = g_strdup_printf ("@sess:%s", info->id);

      json_object_set_string_member (row, "id", id);
      json_object_set_string_member (row, "type", "session");
      json_object_set_string_member (row, "label", info->name && *info->name ? info->name : info->task ? info->task : "");
      json_object_set_string_member (row, "detail", info->id);
      json_array_add_object_element (array, row);
    }
  if (error != NULL)
    g_message ("database error: %s", error->message);

  req->status = 200;
  req->body = _pd_server_json_text (node);
}

/* Whether @req asks what an imported session's transcript says: then it is
 * read by pd-server-heavy.c, shared with every request asking the same
 * while it runs (@req->heavy_key), once the request may read the session
 * (else its 401 is set here).  FALSE for every other session, one not
 * found and a transcript gone: answered as before, here. */
static gboolean
req_wants_transcript (Req            *req,
                      PdSessionStore *store)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *signature = pd_import_index_dup_signature (store, req->id, &error);

  if (signature == NULL)
    return FALSE;
  if (req->kind != OP_EVENTS)
    {
      g_autoptr(PdSessionInfo) info = pd_session_store_get (store, req->id, &error);

      if (info == NULL)
        return FALSE;
      if (!_pd_server_token_allows_read (req->session_token, req->instance_header, info->auth_token))
        {
          req_set_error (req, 401, "invalid session token");
          return TRUE;
        }
    }
  req->heavy_key = g_strdup_printf ("%u|%s|%" G_GINT64_FORMAT "|%u|%" G_GINT64_FORMAT "|%" G_GINT64_FORMAT "|%d|%s",
                                    req->kind, req->id, req->after_seq, req->limit, req->before, req->page_limit,
                                    req->generation, signature);
  return TRUE;
}

/* A heavy thread: the read itself. */
static void
heavy_read (gpointer             data,
            PdSessionStore      *store,
            PdServerHeavyAnswer *answer)
{
  Req *req = data;

  if (req->kind == OP_EVENTS)
    op_events (req, store);
  else
    op_session (req, store);
  answer->status = req->status;
  if (req->body != NULL)
    {
      gsize len = strlen (req->body);

      answer->body = g_bytes_new_take (g_steal_pointer (&req->body), len);
    }
  answer->session_token = g_steal_pointer (&req->token_out);
}

static void
heavy_answered (PdServer                  *self,
                gpointer                   data,
                const PdServerHeavyAnswer *answer)
{
  Req *req = data;

  if (!req->finished)
    {
      _pd_server_heavy_respond (self, req->msg, answer);
      soup_server_message_unpause (req->msg);
    }
  g_clear_signal_handler (&req->finished_id, req->msg);
  g_clear_object (&req->msg);
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
      if (!req_wants_transcript (req, store))
        op_events (req, store);
      break;
    case OP_RESOURCES:
      op_resources (req, store);
      break;
    case OP_GET:
    case OP_PLAN:
    case OP_PLAN_DETAIL:
    case OP_EXPORT:
      if (!req_wants_transcript (req, store))
        op_session (req, store);
      break;
    default:
      op_session (req, store);
      break;
    }

  g_async_queue_push (self->readers, store);
  g_task_return_boolean (task, TRUE);
}

struct _PlanCacheEntry
{
  gint   generation;
  char  *body;
  char  *auth_token;
};

void
_pd_server_plan_cache_entry_free (PlanCacheEntry *entry)
{
  g_free (entry->body);
  g_free (entry->auth_token);
  g_free (entry);
}

static void
on_req_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  PdServer *self = PD_SERVER (object);
  Req *req = g_task_get_task_data (G_TASK (result));

  self->pending--;

  /* An imported session's plan changes with its transcript, which no
   * generation counts: read again each time (the transcript's pages are
   * kept while its files stay the same). */
  if (req->kind == OP_PLAN && req->status == 200 && req->auth_token != NULL && !req->imported)
    {
      PlanCacheEntry *entry = g_new0 (PlanCacheEntry, 1);

      if (g_hash_table_size (self->plan_cache) >= PLAN_CACHE_MAX)
        g_hash_table_remove_all (self->plan_cache);
      entry->generation = req->generation;
      entry->body = g_strdup (req->body);
      entry->auth_token = g_strdup (req->auth_token);
      g_hash_table_replace (self->plan_cache, g_strdup (req->id), entry);
    }

  if (!req->finished && req->heavy_key != NULL && req->status == 0)
    {
      /* Its transcript's read, shared; past the client's share, 429; past
       * the server's bound of unsent answers, 503. */
      PdServerHeavyAsked asked = _pd_server_heavy_request (self, req->heavy_key,
                                                           soup_server_message_get_remote_host (req->msg),
                                                           heavy_read, heavy_answered, req_ref (req),
                                                           (GDestroyNotify) req_unref);

      if (asked == PD_SERVER_HEAVY_ASKED)
        {
          _pd_server_maybe_quit (self);
          return;
        }
      req_unref (req);
      soup_message_headers_replace (soup_server_message_get_response_headers (req->msg), "Retry-After",
                                    G_STRINGIFY (PD_SERVER_HEAVY_RETRY_AFTER_S));
      if (asked == PD_SERVER_HEAVY_CLIENT_FULL)
        _pd_server_respond_error (req->msg, 429, "too many reads of transcripts at once from this client; "
                                                 "try again after Retry-After");
      else if (asked == PD_SERVER_HEAVY_ADDRESS_FULL)
        _pd_server_respond_error (req->msg, 429, "too many long answers not yet read by this client; "
                                                 "try again after Retry-After");
      else
        _pd_server_respond_error (req->msg, 503, "too many long answers not yet read by their clients; "
                                                 "try again after Retry-After");
      soup_server_message_unpause (req->msg);
    }
  else if (!req->finished && req->kind == OP_AUTHORIZE && req->status == 0)
    {
      /* Allowed: the change goes on, and answers (and unpauses) itself. */
      req->then (self, req->msg, req->then_data);
    }
  else if (!req->finished)
    {
      if (req->token_out != NULL && *req->token_out)
        soup_message_headers_replace (soup_server_message_get_response_headers (req->msg),
                                      "X-Session-Token", req->token_out);
      if (req->status == 204)
        soup_server_message_set_status (req->msg, 204, NULL);
      else
        _pd_server_respond_text (req->msg, req->status, "application/json", g_steal_pointer (&req->body));
      soup_server_message_unpause (req->msg);
    }

  /* The message lives on the server's thread: let go of it here.  The task
   * frees @req wherever its last reference goes, which may be the worker
   * thread, and a handler removed there raced the message's own teardown
   * here (a GSignal assertion in one run of 660). */
  g_clear_signal_handler (&req->finished_id, req->msg);
  g_clear_object (&req->msg);

  _pd_server_maybe_quit (self);
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

  req->ref = 1;
  req->server = g_object_ref (self);
  req->msg = g_object_ref (msg);
  req->kind = kind;
  req->id = g_strdup (id);
  req->pinned = -1;
  req->before = -1;
  req->page_limit = -1;
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
  g_task_set_task_data (task, req, (GDestroyNotify) req_unref);
  g_task_run_in_thread (task, run_req);
}

/**
 * _pd_server_authorize_change:
 * @presented: (nullable): the session token the request carried
 * @then: called on the server's thread once the request may change
 *   @session_id, with @msg paused; it answers and unpauses @msg
 *
 * The rule of rename and delete for changes made elsewhere (a run that
 * continues the session, a cancel): the session must exist (404) and the
 * request carry its token (401; a session that never had one takes the
 * instance token header).  The lookup runs in a worker like the reads; the
 * 404 or 401 is answered here.
 */
void
_pd_server_authorize_change (PdServer           *self,
                             SoupServerMessage  *msg,
                             const char         *session_id,
                             const char         *presented,
                             gboolean            instance_header,
                             PdServerAuthorized  then,
                             gpointer            data,
                             GDestroyNotify      destroy)
{
  Req *req = req_new (self, msg, OP_AUTHORIZE, session_id);

  req->session_token = g_strdup (presented);
  req->instance_header = instance_header;
  req->then = then;
  req->then_data = data;
  req->then_destroy = destroy;
  req_start (self, req);
}

/* ---------------------------------------------------------------------- */
/* Routes                                                                 */

void
_pd_server_handle_events (PdServer          *self,
                          SoupServerMessage *msg,
                          GHashTable        *query)
{
  const char *limit_text = _pd_server_query_get (query, "limit");
  const char *run_id = _pd_server_query_get (query, "run_id");
  const char *session_id = _pd_server_query_get (query, "session_id");
  const char *after_text = _pd_server_query_get (query, "after_seq");
  g_autoptr(GPtrArray) events = NULL;
  JsonObject *object;
  JsonArray *array;
  gint64 limit = EVENTS_DEFAULT_LIMIT;

  if (soup_server_message_get_method (msg) != SOUP_METHOD_GET)
    {
      _pd_server_respond_error (msg, 405, "method not allowed");
      return;
    }
  if (limit_text != NULL && !_pd_server_parse_count (limit_text, &limit))
    {
      _pd_server_respond_error (msg, 400, "invalid limit");
      return;
    }
  limit = CLAMP (limit, 1, PD_EVENT_BUS_RING_SIZE);
  if (session_id != NULL && *session_id == '\0')
    session_id = NULL;
  if (run_id != NULL && *run_id == '\0')
    run_id = NULL;
  if (session_id != NULL && !pd_session_id_is_valid (session_id))
    {
      _pd_server_respond_error (msg, 400, "invalid session id");
      return;
    }

  /* Ours: the stored events of a session after a sequence number. */
  if (after_text != NULL)
    {
      Req *req;
      gint64 after_seq;

      if (session_id == NULL || !_pd_server_parse_count (after_text, &after_seq))
        {
          _pd_server_respond_error (msg, 400, "after_seq needs a session_id and a number");
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
  _pd_server_respond_json (msg, 200, object);
}

/* GET /api/resources?q=&limit=: what an @ in odek's browser UI offers;
 * limit 10 by default, at most 100 (odek's). */
void
_pd_server_handle_resources (PdServer          *self,
                             SoupServerMessage *msg,
                             GHashTable        *query)
{
  const char *q = _pd_server_query_get (query, "q");
  const char *limit_text = _pd_server_query_get (query, "limit");
  gint64 limit = 10;
  Req *req;

  if (soup_server_message_get_method (msg) != SOUP_METHOD_GET)
    {
      _pd_server_respond_error (msg, 405, "method not allowed");
      return;
    }
  if (limit_text != NULL && !_pd_server_parse_count (limit_text, &limit))
    {
      _pd_server_respond_error (msg, 400, "invalid limit");
      return;
    }

  req = req_new (self, msg, OP_RESOURCES, NULL);
  req->limit = (guint) CLAMP (limit, 1, 100);
  req->query = g_strdup (q);
  req->folder = g_strdup (self->working_directory);
  req_start (self, req);
}

void
_pd_server_handle_sessions (PdServer          *self,
                            SoupServerMessage *msg,
                            GHashTable        *query)
{
  const char *q = _pd_server_query_get (query, "q");
  const char *limit_text = _pd_server_query_get (query, "limit");
  const char *offset_text = _pd_server_query_get (query, "offset");
  gint64 limit = 50, offset = 0;
  Req *req;

  if (soup_server_message_get_method (msg) != SOUP_METHOD_GET)
    {
      _pd_server_respond_error (msg, 405, "method not allowed");
      return;
    }

  req = req_new (self, msg, OP_LIST, NULL);
  req->paged = q != NULL || limit_text != NULL || offset_text != NULL;
  if ((limit_text != NULL && !_pd_server_parse_count (limit_text, &limit)) ||
      (offset_text != NULL && !_pd_server_parse_count (offset_text, &offset)))
    {
      req_unref (req);
      _pd_server_respond_error (msg, 400, "invalid limit or offset");
      return;
    }
  /* The store refuses it too; here it is the client's error, not a 500. */
  if (q != NULL && strlen (q) > PD_SESSION_QUERY_MAX_BYTES)
    {
      req_unref (req);
      _pd_server_respond_error (msg, 400, "the search is too long");
      return;
    }
  if (!req->paged)
    limit = PD_SESSION_LIST_MAX_LIMIT;
  req->limit = (guint) CLAMP (limit == 0 ? 50 : limit, 1, PD_SESSION_LIST_MAX_LIMIT);
  req->offset = (guint) offset;
  req->query = q && *q ? g_strdup (q) : NULL;
  req_start (self, req);
}

void
_pd_server_handle_session (PdServer          *self,
                           SoupServerMessage *msg,
                           const char        *rest,
                           GHashTable        *query,
                           const char        *presented,
                           gboolean           instance_header)
{
  const char *method = soup_server_message_get_method (msg);
  const char *before_text = _pd_server_query_get (query, "before");
  const char *limit_text = _pd_server_query_get (query, "limit");
  g_autofree char *id = NULL;
  gint64 before = -1, page_limit = -1;
  OpKind kind;
  Req *req;

  if (rest == NULL || *rest == '\0')
    {
      _pd_server_respond_error (msg, 400, "missing session id");
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
          _pd_server_respond_error (msg, 404, "not found");
          return;
        }
      /* Ours: a page of the record's messages (pd-server-messages.c). */
      if (kind == OP_GET && ((before_text != NULL && !_pd_server_parse_count (before_text, &before)) ||
                             (limit_text != NULL && !_pd_server_parse_count (limit_text, &page_limit))))
        {
          _pd_server_respond_error (msg, 400, "invalid before or limit");
          return;
        }

      if (!_pd_server_rate_allow (self, soup_server_message_get_remote_host (msg)))
        {
          soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Retry-After", "60");
          _pd_server_respond_error (msg, 429, "rate limit exceeded");
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
          _pd_server_respond_error (msg, 405, "method not allowed");
          return;
        }
      id = g_strdup (rest);
      kind = method == SOUP_METHOD_POST ? OP_UPDATE : OP_DELETE;
    }
  else
    {
      _pd_server_respond_error (msg, 405, "method not allowed");
      return;
    }

  if (!pd_session_id_is_valid (id))
    {
      _pd_server_respond_error (msg, 404, "session not found");
      return;
    }

  if (kind == OP_PLAN)
    {
      PlanCacheEntry *entry = g_hash_table_lookup (self->plan_cache, id);

      if (entry != NULL && entry->generation == g_atomic_int_get (&self->generation))
        {
          if (!_pd_server_token_allows_read (presented, instance_header, entry->auth_token))
            {
              _pd_server_respond_error (msg, 401, "invalid session token");
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
  req->before = before;
  req->page_limit = page_limit;

  if (kind == OP_UPDATE)
    {
      g_autoptr(GBytes) body = _pd_server_request_body (msg);
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
          req_unref (req);
          _pd_server_respond_error (msg, 400, "invalid JSON body");
          return;
        }
      object = json_node_get_object (json_parser_get_root (parser));
      if ((node = json_object_get_member (object, "name")) && !JSON_NODE_HOLDS_NULL (node))
        {
          if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
            {
              req_unref (req);
              _pd_server_respond_error (msg, 400, "name must be a string");
              return;
            }
          req->name = g_strdup (json_node_get_string (node));
        }
      if ((node = json_object_get_member (object, "pinned")) && !JSON_NODE_HOLDS_NULL (node))
        {
          if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
            {
              req_unref (req);
              _pd_server_respond_error (msg, 400, "pinned must be a boolean");
              return;
            }
          req->pinned = json_node_get_boolean (node) ? 1 : 0;
        }
      if (req->name == NULL && req->pinned < 0)
        {
          req_unref (req);
          _pd_server_respond_error (msg, 400, "nothing to update (name or pinned required)");
          return;
        }
    }

  req_start (self, req);
}
