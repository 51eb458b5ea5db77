/* pd-remote-source.c: a PdSource over a `serve` endpoint (see the header):
 * the object and its requests; the PdSource calls are in
 * pd-remote-source-iface.c, the live updates and the connection's state in
 * pd-remote-source-live.c, the endpoint's runs in pd-remote-source-runs.c,
 * with pd-remote-source-private.h between them.
 * What the records the endpoint sends become is pd-remote-records.c's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-source"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>
#include <libsoup/soup.h>

#include "pd-bounded-reply.h"
#include "pd-decimal.h"
#include "pd-event-bus.h"
#include "pd-json-util.h"
#include "pd-session-store.h"
#include "pd-plan.h"
#include "pd-remote-records-private.h"
#include "pd-remote-run.h"
#include "pd-remote-source.h"
#include "pd-remote-source-private.h"
#include "pd-remote-url.h"

#define BACKOFF_MAX_SECONDS 60
#define REQUEST_IDLE_SECONDS 15
/* More than one: a reply that takes long (a large export, or a hostile
 * endpoint's trickle, held to its pace: pd-bounded-reply.h) holds its
 * connection while the others go on theirs.  With one, a reply sent a byte
 * a second held every request of the window to that endpoint for minutes. */
#define REQUEST_CONNS 4

enum {
  EVENT,
  SESSIONS_PUSHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

enum {
  PROP_0,
  PROP_STATE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_ENUM_TYPE (PdRemoteState, pd_remote_state,
                    G_DEFINE_ENUM_VALUE (PD_REMOTE_CONNECTING, "connecting"),
                    G_DEFINE_ENUM_VALUE (PD_REMOTE_ONLINE, "online"),
                    G_DEFINE_ENUM_VALUE (PD_REMOTE_OFFLINE, "offline"),
                    G_DEFINE_ENUM_VALUE (PD_REMOTE_DENIED, "denied"))

G_DEFINE_FINAL_TYPE_WITH_CODE (PdRemoteSource, pd_remote_source, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (PD_TYPE_SOURCE, _pd_remote_source_iface_init))

void
_pd_remote_source_notify_state (PdRemoteSource *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

void
_pd_remote_source_emit_event (PdRemoteSource *self,
                              PdEvent        *event)
{
  g_signal_emit (self, signals[EVENT], 0, event);
}

void
_pd_remote_source_emit_sessions_pushed (PdRemoteSource *self,
                                        GPtrArray      *sessions)
{
  g_signal_emit (self, signals[SESSIONS_PUSHED], 0, sessions);
}

void
pd_remote_pushed_session_free (PdRemotePushedSession *pushed)
{
  g_clear_pointer (&pushed->info, pd_session_info_free);
  g_free (pushed->current_step);
  g_free (pushed->failed_check);
  g_free (pushed);
}

/* ---------------------------------------------------------------------- */
/* Requests                                                                */

static void
call_free (Call *call)
{
  g_free (call->method);
  g_free (call->path);
  g_free (call->body);
  g_free (call->id);
  g_clear_pointer (&call->followers, g_ptr_array_unref);
  g_free (call->failed_key);
  g_clear_error (&call->failure);
  g_free (call);
}

static void
export_answer_free (ExportAnswer *answer)
{
  g_free (answer->id);
  g_clear_object (&answer->msg);
  g_clear_pointer (&answer->bytes, g_bytes_unref);
  g_free (answer);
}

/* @task's export request ends (answered, failed or dropped): later asks
 * send their own; a successful answer serves them until the next change. */
void
_pd_remote_source_export_answered (PdRemoteSource *self,
                 GTask          *task,
                 SoupMessage    *msg,
                 GBytes         *bytes)
{
  Call *call = g_task_get_task_data (task);

  if (g_hash_table_lookup (self->exports_asked, call->id) == task)
    g_hash_table_remove (self->exports_asked, call->id);

  if (msg == NULL || bytes == NULL || !SOUP_STATUS_IS_SUCCESSFUL (soup_message_get_status (msg)) ||
      call->changes != self->changes)
    return;

  g_clear_pointer (&self->last_export, export_answer_free);
  self->last_export = g_new0 (ExportAnswer, 1);
  self->last_export->id = g_strdup (call->id);
  self->last_export->changes = call->changes;
  self->last_export->msg = g_object_ref (msg);
  self->last_export->bytes = g_bytes_ref (bytes);
}

/* The followers of @task's call, taken from it. */
static GPtrArray *
steal_followers (GTask *task)
{
  Call *call = g_task_get_task_data (task);

  return g_steal_pointer (&call->followers);
}

static void send_call (GTask *task);

static void
return_http_error (GTask      *task,
                   guint       status,
                   JsonNode   *root,
                   const char *retry_after)
{
  PdRemoteSource *self = g_task_get_source_object (task);
  const char *message = root && JSON_NODE_HOLDS_OBJECT (root) ? pd_json_get_string (json_node_get_object (root), "error") : NULL;

  if (message == NULL)
    message = soup_status_get_phrase (status);

  switch (status)
    {
    case 401:
    case 403:
      _pd_remote_source_fail (task, _pd_remote_source_denied_error (self, status, message));
      break;
    case 404:
      _pd_remote_source_fail (task, g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND, _("Not found on %s: %s"), self->base, message));
      break;
    case 429:
      {
        guint64 seconds = 0;

        if (retry_after == NULL || !pd_decimal_parse (retry_after, -1, BACKOFF_MAX_SECONDS, &seconds) || seconds == 0)
          seconds = self->backoff_seconds ? MIN (self->backoff_seconds * 2, BACKOFF_MAX_SECONDS) : 1;
        self->backoff_seconds = (guint) seconds;
        self->backoff_until = g_get_monotonic_time () + (gint64) seconds * G_USEC_PER_SEC;
        g_task_return_new_error (task, PD_SOURCE_ERROR, PD_SOURCE_ERROR_RATE_LIMITED,
                                 _("%s is rate limiting requests; waiting %u s before the next one"),
                                 self->base, (guint) seconds);
      }
      break;
    default:
      _pd_remote_source_fail (task, g_error_new (PD_SOURCE_ERROR, status >= 500 ? PD_SOURCE_ERROR_UNAVAILABLE : PD_SOURCE_ERROR_INVALID,
                                                 _("%s answered HTTP %u: %s"), self->base, status, message));
      break;
    }
}

/* A server without runs (odek's HEAD has no /api/prompt; a serve started
 * without an engine answers 501) or without our approval route: said as
 * such, so the app can tell the person what this endpoint cannot do.  A
 * route that is there answers its errors as JSON ({"error": …}); a missing
 * one answers 404 or 405 with no such body.  TRUE when it returned. */
static gboolean
return_unsupported (GTask    *task,
                    guint     status,
                    JsonNode *root)
{
  PdRemoteSource *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);
  const char *message = root && JSON_NODE_HOLDS_OBJECT (root) ? pd_json_get_string (json_node_get_object (root), "error") : NULL;
  gboolean missing = status == 405 || status == 501 || (status == 404 && message == NULL);

  if (!missing)
    return FALSE;

  switch (call->kind)
    {
    case OP_PROMPT:
      g_task_return_new_error (task, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED,
                               _("%s does not run sessions for this app (HTTP %u on /api/prompt%s%s): start runs there with its own client"),
                               self->base, status, message ? ": " : "", message ? message : "");
      return TRUE;
    case OP_RUN:
    case OP_RUNS:
      g_task_return_new_error (task, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED,
                               _("%s does not say how its runs go (HTTP %u on /api/runs): the run goes on there, but this app cannot follow it or answer its questions"),
                               self->base, status);
      return TRUE;
    case OP_ANSWER:
      g_task_return_new_error (task, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED,
                               _("%s takes no approvals from this app (HTTP %u on /api/runs/…/approval): the change is denied there when its question times out"),
                               self->base, status);
      return TRUE;
    case OP_CANCEL:
      g_task_return_new_error (task, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED,
                               _("%s cannot cancel runs (HTTP %u on /api/cancel)"), self->base, status);
      return TRUE;
    default:
      return FALSE;
    }
}

static void
finish_call (GTask    *task,
             JsonNode *root)
{
  PdRemoteSource *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);
  JsonObject *object = root && JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  GError *error = NULL;

  switch (call->kind)
    {
    case OP_LIST:
      {
        PdSessionPage *page = _pd_remote_session_page_from_json (root);

        if (page == NULL)
          _pd_remote_source_fail (task, g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID, _("%s sent a session list of an unknown shape"), self->base));
        else
          g_task_return_pointer (task, page, (GDestroyNotify) pd_session_page_free);
      }
      return;

    case OP_GET:
      {
        PdSessionInfo *info = object ? _pd_remote_session_from_json (object) : NULL;

        if (info == NULL)
          _pd_remote_source_fail (task, g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID, _("%s sent a session record without a valid id"), self->base));
        else
          g_task_return_pointer (task, info, (GDestroyNotify) pd_session_info_free);
      }
      return;

    case OP_PLAN:
      {
        PdPlanState *state = object ? _pd_remote_plan_from_json (object, &error) : NULL;

        if (error != NULL)
          _pd_remote_source_fail (task, error);
        else if (object == NULL)
          _pd_remote_source_fail (task, g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID, _("%s sent a plan of an unknown shape"), self->base));
        else
          g_task_return_pointer (task, state, state ? (GDestroyNotify) pd_plan_state_free : NULL);
      }
      return;

    case OP_HISTORY:
      {
        g_task_return_pointer (task, _pd_remote_plan_history_from_json (object), (GDestroyNotify) g_ptr_array_unref);
      }
      return;

    case OP_MESSAGES:
      {
        JsonArray *messages = pd_json_get_array (object, "messages");

        g_task_return_pointer (task, messages ? json_array_ref (messages) : json_array_new (), (GDestroyNotify) json_array_unref);
      }
      return;

    case OP_PAGE:
      /* The record with its page of messages: read by the caller
       * (pd-remote-source-iface.c). */
      if (object == NULL || pd_json_get_array (object, "messages") == NULL)
        _pd_remote_source_fail (task, g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID, _("%s sent messages of an unknown shape"), self->base));
      else
        g_task_return_pointer (task, json_object_ref (object), (GDestroyNotify) json_object_unref);
      return;

    case OP_EVENTS:
      {
        GPtrArray *events = _pd_remote_events_from_json (object, call->after_seq);

        if (events == NULL)
          _pd_remote_source_fail (task, g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID, _("%s sent events of an unknown shape"), self->base));
        else
          g_task_return_pointer (task, events, (GDestroyNotify) g_ptr_array_unref);
      }
      return;

    case OP_USAGE:
      if (object == NULL)
        _pd_remote_source_fail (task, g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID, _("%s sent usage of an unknown shape"), self->base));
      else
        g_task_return_pointer (task, json_object_ref (object), (GDestroyNotify) json_object_unref);
      return;

    case OP_UPDATE:
    case OP_DELETE:
      if (call->kind == OP_DELETE)
        g_hash_table_remove (self->session_tokens, call->id);
      /* Changed here: an export asked before is not its answer. */
      self->changes++;
      g_clear_pointer (&self->last_export, export_answer_free);
      g_task_return_boolean (task, TRUE);
      return;

    case OP_PROMPT:
    case OP_RUN:
      {
        PdRemoteRun *run = pd_remote_run_new_from_json (object);

        if (run == NULL)
          _pd_remote_source_fail (task, g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID,
                                                     _("%s sent a run of an unknown shape"), self->base));
        else
          g_task_return_pointer (task, run, (GDestroyNotify) pd_remote_run_free);
      }
      return;

    case OP_ANSWER:
    case OP_CANCEL:
      g_task_return_boolean (task, TRUE);
      return;

    case OP_RUNS:
      {
        JsonArray *runs = pd_json_get_array (object, "runs");
        PdRemoteRun *live = NULL;

        if (runs == NULL)
          {
            _pd_remote_source_fail (task, g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID,
                                                       _("%s sent a run list of an unknown shape"), self->base));
            return;
          }
        for (guint i = 0; live == NULL && i < json_array_get_length (runs); i++)
          {
            g_autoptr(PdRemoteRun) run = pd_remote_run_new_from_json (json_array_get_object_element (runs, i));

            if (run != NULL && g_strcmp0 (run->session_id, call->id) == 0 && !pd_remote_run_is_over (run))
              live = g_steal_pointer (&run);
          }
        g_task_return_pointer (task, live, (GDestroyNotify) pd_remote_run_free);
      }
      return;

    default:
      g_assert_not_reached ();
    }
}

/* Answers @task (taken) with the reply to its request: @bytes, parsed as
 * @root (NULL when it is empty or not JSON, or @bloated: it held too many
 * values to parse; parse_reply()). */
static void
handle_reply (GTask       *task_,
              SoupMessage *msg,
              GBytes      *bytes,
              JsonNode    *root,
              gboolean     bloated,
              const GError *send_error)
{
  g_autoptr(GTask) task = task_;
  PdRemoteSource *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);
  g_autoptr(GError) error = send_error ? g_error_copy (send_error) : NULL;
  const char *token;
  guint status;

  if (g_task_return_error_if_cancelled (task))
    return;

  if (bytes == NULL)
    {
      g_autoptr(GError) unavailable = NULL;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_task_return_error (task, g_steal_pointer (&error));
          return;
        }
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE))   /* answered: not gone */
        {
          _pd_remote_source_fail (task, g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID, _("%s sent a reply too large to read: %s"),
                                                     self->base, error->message));
          return;
        }
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
        {
          GCancellable *cancellable = g_task_get_cancellable (task);

          unavailable = g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE, _("%s is too slow to answer: %s"),
                                     self->base, error->message);
          /* The watch asks again, after its growing wait, unless this was
           * its own request (it does so itself). */
          if (cancellable == NULL || cancellable != self->watch_cancellable)
            {
              _pd_remote_source_note_too_slow (self, unavailable);
              g_task_return_error (task, g_steal_pointer (&unavailable));
              return;
            }
        }
      else if ((self->connect_refused = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED)))
        unavailable = g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE,
                                   _("Could not reach %s: the connection was refused (is the server running?)"), self->base);
      else
        unavailable = g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE, _("Could not reach %s: %s"), self->base, error->message);
      _pd_remote_source_note_failure (self, unavailable);
      g_task_return_error (task, g_steal_pointer (&unavailable));
      return;
    }

  status = soup_message_get_status (msg);
  self->connect_refused = FALSE;
  token = soup_message_headers_get_one (soup_message_get_response_headers (msg), "X-Session-Token");
  if (token != NULL && *token && call->id != NULL)
    g_hash_table_replace (self->session_tokens, g_strdup (call->id), g_strdup (token));

  if (bloated)
    {
      _pd_remote_source_fail (task, g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID,
                                                 _("%s sent a malformed reply: too many values for its size"), self->base));
      return;
    }
  if (g_bytes_get_size (bytes) > 0 && root == NULL && SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      _pd_remote_source_fail (task, g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID, _("%s sent a reply that is not JSON"), self->base));
      return;
    }

  /* An older server (odek) has no …/plan/detail: its 404 names the path as
   * a session.  Ask …/plan once; if that works, stop asking for detail. */
  if (call->kind == OP_PLAN && call->detail && status == 404)
    {
      g_autofree char *escaped = g_uri_escape_string (call->id, NULL, TRUE);

      call->detail = FALSE;
      g_free (call->path);
      call->path = g_strdup_printf ("/api/sessions/%s/plan", escaped);
      self->has_detail = -2;   /* probing */
      send_call (g_steal_pointer (&task));
      return;
    }
  if (call->kind == OP_PLAN && self->has_detail == -2)
    self->has_detail = SOUP_STATUS_IS_SUCCESSFUL (status) ? 0 : -1;
  else if (call->kind == OP_PLAN && call->detail && SOUP_STATUS_IS_SUCCESSFUL (status))
    self->has_detail = 1;

  if (SOUP_STATUS_IS_REDIRECTION (status))
    {
      g_autoptr(GError) redirected = g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE,
                                                  _("%s answered with a redirect (HTTP %u); Plandeck does not follow it, "
                                                    "so the token is not sent elsewhere: connect to the address it names instead"),
                                                  self->base, status);

      _pd_remote_source_note_failure (self, redirected);
      _pd_remote_source_fail (task, g_steal_pointer (&redirected));
      return;
    }
  /* Refused with the token before the one set since (a listing on its way
   * when the token was given): no verdict on the new one.  Taken as one, it
   * set "Token refused" after the new token was accepted, and a refused
   * endpoint is never offline: its card never said "Unreachable".  Resent. */
  if ((status == 401 || status == 403) && call->token_serial != self->token_serial)
    {
      g_debug ("%s: %s refused the token it was sent with, not the current one: asked again", self->base, call->path);
      send_call (g_steal_pointer (&task));
      return;
    }
  if (!SOUP_STATUS_IS_SUCCESSFUL (status) && return_unsupported (task, status, root))
    return;

  if (!SOUP_STATUS_IS_SUCCESSFUL (status))
    {
      if (status == 401 || status == 403)
        {
          const char *why = root && JSON_NODE_HOLDS_OBJECT (root) ? pd_json_get_string (json_node_get_object (root), "error") : NULL;
          g_autoptr(GError) denied = _pd_remote_source_denied_error (self, status, why);

          _pd_remote_source_note_failure (self, denied);
        }
      return_http_error (task, status, root,
                         soup_message_headers_get_one (soup_message_get_response_headers (msg), "Retry-After"));
      return;
    }

  self->backoff_seconds = 0;
  finish_call (task, root);
}

/* The most values a reply may hold: one unit (pd_json_values_exceed(),
 * about 100 bytes of json-glib's tree) for each PD_REPLY_BYTES_PER_UNIT
 * bytes, and PD_REPLY_UNITS_SLACK more for a small reply.  The size caps
 * alone let a hostile endpoint's 6 MB plan of "[{},{},...]" take 1.6 GB,
 * and a 24 MiB export 2.5 GB (tried as an attacker would): three units a
 * three bytes.  What a real `plandeck-agent serve` sends is far sparser:
 * its plan detail 7.6 bytes a unit (the densest: step and history objects
 * of short strings and counts), exports 12.8 to 43, records 15 to 56, the
 * session list 10.2; a step of one-letter id and title with no checks, the
 * least a plan of PD_REMOTE_MAX_STEPS could be made of, 4.6.  So a legit
 * reply is never refused, and an accepted one takes at most about 25 times
 * its size (a legit plan of compact checks already takes about 18). */
#define PD_REPLY_BYTES_PER_UNIT 4
#define PD_REPLY_UNITS_SLACK    4096

/* TRUE when @size bytes of JSON at @data hold more values than their size
 * can (above): refused before json-glib builds them.  Any thread. */
gboolean
_pd_remote_json_bloated (const char *data,
                         gsize       size)
{
  return pd_json_values_exceed (data, size, size / PD_REPLY_BYTES_PER_UNIT + PD_REPLY_UNITS_SLACK);
}

/* A reply's JSON, or NULL when it is not JSON (or nests deeper than a
 * foreign document may, or holds more values than its size can:
 * @bloated, not parsed).  Any thread. */
static JsonNode *
parse_reply (GBytes   *bytes,
             gboolean *bloated)
{
  gsize size = 0;
  const char *data = g_bytes_get_data (bytes, &size);
  g_autoptr(JsonParser) parser = NULL;
  g_autofree char *marked = NULL;

  *bloated = FALSE;
  if (size == 0 || pd_json_nesting_exceeds (data, (gssize) size, PD_JSON_FOREIGN_MAX_DEPTH))
    return NULL;
  if (_pd_remote_json_bloated (data, size))
    {
      *bloated = TRUE;
      return NULL;
    }
  /* json-glib ends a string at an escaped NUL: marked first, the rest kept. */
  if ((marked = _pd_remote_mark_nul (data, size)) != NULL)
    data = marked;
  parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, data, (gssize) size, NULL))
    return NULL;
  return json_parser_steal_root (parser);
}

/* Answers @task (taken), and the lookups merged into it, with the reply. */
static void
answer_call (GTask        *task,
             SoupMessage  *msg,
             GBytes       *bytes,
             JsonNode     *root,
             gboolean      bloated,
             const GError *error)
{
  g_autoptr(GPtrArray) followers = steal_followers (task);
  g_autoptr(GTask) answered = g_object_ref (task);
  Call *call = g_task_get_task_data (task);

  if (call->shares_export)
    _pd_remote_source_export_answered (g_task_get_source_object (task), task, msg, bytes);
  handle_reply (task, msg, bytes, root, bloated, error);
  /* The lookups merged into this one get the same, newest answer. */
  for (guint i = 0; followers != NULL && i < followers->len; i++)
    handle_reply (g_object_ref (g_ptr_array_index (followers, i)), msg, bytes, root, bloated, error);
  _pd_remote_source_note_read (g_task_get_source_object (answered), answered, bytes != NULL ? msg : NULL);
}

/* A reply being parsed on a worker thread. */
typedef struct
{
  GTask       *task;   /* the call's, taken */
  SoupMessage *msg;
  GBytes      *bytes;
  gboolean     bloated;   /* set by the worker, read after it returned */
} Parse;

static void
parse_free (Parse *parse)
{
  g_clear_object (&parse->task);
  g_clear_object (&parse->msg);
  g_clear_pointer (&parse->bytes, g_bytes_unref);
  g_free (parse);
}

static void
parse_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  Parse *parse = task_data;
  JsonNode *root = parse_reply (parse->bytes, &parse->bloated);

  /* NULL is an answer too: the reply is not JSON. */
  g_task_return_pointer (task, root, (GDestroyNotify) json_node_unref);
}

static void
release_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  JsonNode **root = task_data;

  g_clear_pointer (root, json_node_unref);
  g_task_return_boolean (task, TRUE);
}

/* Whether an answer of @call hands out a part of the reply's tree (a
 * JsonArray or JsonObject of it): their reference counts are not atomic,
 * so such a tree is freed on the thread its parts are used on. */
static gboolean
answer_keeps_tree (const Call *call)
{
  return call->kind == OP_MESSAGES || call->kind == OP_USAGE;
}

static void
on_parsed (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Parse *parse = g_task_get_task_data (G_TASK (result));
  g_autoptr(JsonNode) root = g_task_propagate_pointer (G_TASK (result), NULL);
  Call *call = g_task_get_task_data (parse->task);
  gboolean kept = answer_keeps_tree (call);
  g_autoptr(GTask) release = NULL;

  for (guint i = 0; call->followers != NULL && i < call->followers->len; i++)
    kept |= answer_keeps_tree (g_task_get_task_data (g_ptr_array_index (call->followers, i)));
  answer_call (g_steal_pointer (&parse->task), parse->msg, parse->bytes, root, parse->bloated, NULL);
  if (root == NULL || kept)
    return;
  /* Else the tree is freed on a worker too: its million nodes took as long
   * to free as to parse.  Nothing of it is used here any more (the answers
   * were built from it, none keeps a part of it). */
  release = g_task_new (NULL, NULL, NULL, NULL);
  g_task_set_source_tag (release, release_thread);
  g_task_set_task_data (release, g_memdup2 (&root, sizeof root), g_free);
  root = NULL;
  g_task_run_in_thread (release, release_thread);
}

/* Answers @task (taken) with @bytes, the reply to @msg (NULL with @error
 * when none came).  A reply of more than PD_REMOTE_REPLY_INLINE_BYTES is
 * parsed on a worker thread: a hostile endpoint's 16 MB reply held the
 * window 6.4 s when parsed on the main context (tried as an attacker
 * would).  A smaller one, what a refetch usually brings, is parsed here:
 * the hop to a worker and back costs more than such a parse (c7fc059). */
static void
answer_reply (GTask        *task,
              SoupMessage  *msg,
              GBytes       *bytes,
              const GError *error)
{
  g_autoptr(JsonNode) root = NULL;
  gboolean bloated = FALSE;

  if (bytes != NULL && g_bytes_get_size (bytes) > PD_REMOTE_REPLY_INLINE_BYTES)
    {
      Parse *parse = g_new0 (Parse, 1);
      g_autoptr(GTask) worker = g_task_new (NULL, NULL, on_parsed, NULL);

      parse->task = task;
      parse->msg = g_object_ref (msg);
      parse->bytes = g_bytes_ref (bytes);
      g_task_set_source_tag (worker, parse_thread);
      g_task_set_task_data (worker, parse, (GDestroyNotify) parse_free);
      g_task_run_in_thread (worker, parse_thread);
      return;
    }
  if (bytes != NULL)
    root = parse_reply (bytes, &bloated);
  answer_call (task, msg, bytes, root, bloated, error);
}

static void
on_sent (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  GTask *task = user_data;
  SoupMessage *msg = SOUP_MESSAGE (object);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = pd_bounded_reply_send_finish (msg, result, &error);

  answer_reply (task, msg, bytes, error);
}

static gboolean
send_later (gpointer data)
{
  send_call (data);
  return G_SOURCE_REMOVE;
}

static void
on_bootstrapped (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionInfo) info = g_task_propagate_pointer (G_TASK (result), &error);

  if (info == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  send_call (g_steal_pointer (&task));
}

/* Takes the task's reference. */
static void
send_call (GTask *task)
{
  PdRemoteSource *self = g_task_get_source_object (task);
  Call *call = g_task_get_task_data (task);
  g_autofree char *url = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  const char *session_token;
  gint64 now = g_get_monotonic_time ();
  PdReplyPace pace;

  _pd_remote_source_forget_waiting_lookup (self, task);
  if (g_task_return_error_if_cancelled (task))
    {
      g_autoptr(GPtrArray) followers = steal_followers (task);
      gboolean shares_export = call->shares_export;
      guint changes = call->changes;

      if (shares_export)
        _pd_remote_source_export_answered (self, task, NULL, NULL);
      g_object_unref (task);
      /* Those merged into it still want the answer: the first leads. */
      if (followers != NULL && followers->len > 0)
        {
          GTask *leader = g_ptr_array_steal_index (followers, 0);
          Call *leader_call = g_task_get_task_data (leader);

          if (followers->len > 0)
            leader_call->followers = g_steal_pointer (&followers);
          if (shares_export)
            {
              leader_call->shares_export = TRUE;
              leader_call->changes = changes;
              g_hash_table_replace (self->exports_asked, g_strdup (leader_call->id), leader);
            }
          send_call (leader);
        }
      return;
    }

  /* A read that failed and waits is answered so again, unsent. */
  if (_pd_remote_source_replay_failure (self, task))
    return;
  /* Session lookups within the budget, in their queue
   * (pd-remote-source-budget.c), merged with a waiting lookup of the same
   * path; after a 429 the others wait for its back-off. */
  if (!_pd_remote_source_admit_lookup (self, task))
    return;
  if (self->backoff_until > now)
    {
      GSource *source = g_timeout_source_new ((guint) ((self->backoff_until - now) / 1000 + 1));

      g_source_set_callback (source, send_later, task, NULL);
      g_source_attach (source, self->context);
      g_source_unref (source);
      return;
    }

  session_token = call->id ? g_hash_table_lookup (self->session_tokens, call->id) : NULL;
  if ((call->kind == OP_UPDATE || call->kind == OP_DELETE || call->kind == OP_ANSWER || call->kind == OP_CANCEL ||
       (call->kind == OP_PROMPT && call->id != NULL)) &&
      session_token == NULL && !call->bootstrapped)
    {
      /* A read returns the session's token; changes need it. */
      g_autofree char *escaped = g_uri_escape_string (call->id, NULL, TRUE);
      Call *get = g_new0 (Call, 1);

      call->bootstrapped = TRUE;
      get->kind = OP_GET;
      get->method = g_strdup ("GET");
      get->path = g_strdup_printf ("/api/sessions/%s?limit=0", escaped);
      get->id = g_strdup (call->id);
      _pd_remote_source_start_call (self, get, send_call, g_task_get_cancellable (task), on_bootstrapped, task);
      return;
    }

  url = pd_remote_url_join (self->base, self->base_query, call->path);
  msg = soup_message_new (call->method, url);
  if (msg == NULL)
    {
      g_autoptr(GPtrArray) followers = steal_followers (task);

      if (call->shares_export)
        _pd_remote_source_export_answered (self, task, NULL, NULL);
      g_task_return_new_error (task, PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID, _("“%s” is not a valid URL"), url);
      g_object_unref (task);
      for (guint i = 0; followers != NULL && i < followers->len; i++)
        g_task_return_new_error (g_ptr_array_index (followers, i), PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID,
                                 _("“%s” is not a valid URL"), url);
      return;
    }
  /* A redirect is never followed: libsoup would send the token (and a
   * session's own token) on to wherever the Location points. */
  soup_message_add_flags (msg, SOUP_MESSAGE_NO_REDIRECT);
  if (self->token != NULL)
    soup_message_headers_replace (soup_message_get_request_headers (msg), "X-Odek-Ws-Token", self->token);
  call->token_serial = self->token_serial;
  soup_message_headers_replace (soup_message_get_request_headers (msg), "Accept", "application/json");
  if (session_token != NULL)
    soup_message_headers_replace (soup_message_get_request_headers (msg), "X-Session-Token", session_token);
  /* What the person looks at goes first of the requests waiting for the
   * connection (libsoup keeps its queue in the order of priority). */
  if (_pd_remote_source_call_is_shown (self, call))
    soup_message_set_priority (msg, SOUP_MESSAGE_PRIORITY_HIGH);
  if (call->body != NULL)
    {
      g_autoptr(GBytes) body = g_bytes_new (call->body, strlen (call->body));
      soup_message_set_request_body_from_bytes (msg, "application/json", body);
    }

  /* One merged lookup answers several callers: one caller's cancellable
   * must not cancel it for the others (an export is shared with callers
   * that may come after it is sent). */
  pace = _pd_remote_source_reply_pace (self, call->kind);
  pd_bounded_reply_send_async (self->session, msg, call->max_bytes != 0 ? call->max_bytes : _pd_remote_source_reply_bound (call->kind),
                               &pace,
                               call->followers != NULL || call->shares_export ? NULL : g_task_get_cancellable (task),
                               on_sent, task);
}

void
_pd_remote_source_send_call (GTask *task)
{
  send_call (task);
}

void
_pd_remote_source_start_call (PdRemoteSource      *self,
                              Call                *call,
                              gpointer             tag,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, tag);
  g_task_set_task_data (task, call, (GDestroyNotify) call_free);
  send_call (task);
}

Call *
_pd_remote_source_call_new (OpKind      kind,
                            const char *method,
                            const char *id,
                            const char *format,
                            ...)
{
  Call *call = g_new0 (Call, 1);
  va_list ap;

  call->kind = kind;
  call->method = g_strdup (method);
  call->id = g_strdup (id);
  va_start (ap, format);
  call->path = g_strdup_vprintf (format, ap);
  va_end (ap);
  return call;
}

void
_pd_remote_source_start_get (PdRemoteSource      *self,
                             OpKind               kind,
                             const char          *path,
                             gpointer             tag,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  _pd_remote_source_start_call (self, _pd_remote_source_call_new (kind, "GET", NULL, "%s", path), tag, cancellable, callback, user_data);
}

/* A session id goes into a path only when it is one: no path tricks. */
gboolean
_pd_remote_source_check_id (const char          *id,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data,
                            PdRemoteSource      *self,
                            gpointer             tag)
{
  if (id != NULL && pd_session_id_is_valid (id))
    return TRUE;
  g_task_report_new_error (self, callback, user_data, tag, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND,
                           _("“%s” is not a session id"), id ? id : "");
  return FALSE;
}

/* An answer kept from before may serve only while every change would have
 * been heard of: watching, and the server answering. */
static gboolean
export_reusable (PdRemoteSource *self,
                 const char     *id)
{
  return self->last_export != NULL && self->last_export->changes == self->changes &&
         strcmp (self->last_export->id, id) == 0 &&
         self->watch_interval > 0 && self->state == PD_REMOTE_ONLINE;
}

/* The plan history and the messages both come from …/export: asked since
 * the last change, the request already made answers this one too. */
void
_pd_remote_source_get_export (PdRemoteSource      *self,
                              OpKind               kind,
                              const char          *id,
                              gpointer             tag,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  Call *call = _pd_remote_source_call_new (kind, "GET", id, "/api/sessions/%s/export", id);
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  GTask *asked = g_hash_table_lookup (self->exports_asked, id);

  g_task_set_source_tag (task, tag);
  g_task_set_task_data (task, call, (GDestroyNotify) call_free);

  if (asked != NULL && ((Call *) g_task_get_task_data (asked))->changes == self->changes)
    {
      Call *leader = g_task_get_task_data (asked);

      if (leader->followers == NULL)
        leader->followers = g_ptr_array_new_with_free_func (g_object_unref);
      g_ptr_array_add (leader->followers, task);
      return;
    }
  if (export_reusable (self, id))
    {
      answer_reply (task, self->last_export->msg, self->last_export->bytes, NULL);
      return;
    }

  call->shares_export = TRUE;
  call->changes = self->changes;
  g_hash_table_replace (self->exports_asked, g_strdup (id), task);
  send_call (task);
}

/* ---------------------------------------------------------------------- */

static void
pd_remote_source_dispose (GObject *object)
{
  PdRemoteSource *self = (PdRemoteSource *) object;

  pd_remote_source_watch (self, 0);
  _pd_remote_source_budget_clear (self);
  if (self->session != NULL)
    soup_session_abort (self->session);

  G_OBJECT_CLASS (pd_remote_source_parent_class)->dispose (object);
}

static void
pd_remote_source_finalize (GObject *object)
{
  PdRemoteSource *self = (PdRemoteSource *) object;

  g_clear_object (&self->session);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_hash_table_unref (self->session_tokens);
  g_hash_table_unref (self->lookups_waiting);
  g_hash_table_unref (self->exports_asked);
  g_hash_table_unref (self->failed_reads);
  g_clear_pointer (&self->last_export, export_answer_free);
  g_free (self->base);
  g_free (self->base_query);
  g_free (self->base_url);
  g_free (self->token);
  g_free (self->last_event_key);
  g_free (self->state_message);

  G_OBJECT_CLASS (pd_remote_source_parent_class)->finalize (object);
}

static void
pd_remote_source_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  PdRemoteSource *self = PD_REMOTE_SOURCE (object);

  switch (prop_id)
    {
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_remote_source_class_init (PdRemoteSourceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = pd_remote_source_dispose;
  object_class->finalize = pd_remote_source_finalize;
  object_class->get_property = pd_remote_source_get_property;

  /**
   * PdRemoteSource:state:
   *
   * Whether the endpoint answers (#PdRemoteState).
   */
  properties[PROP_STATE] =
    g_param_spec_enum ("state", NULL, NULL,
                       PD_TYPE_REMOTE_STATE, PD_REMOTE_CONNECTING,
                       (G_PARAM_READABLE |
                        G_PARAM_EXPLICIT_NOTIFY |
                        G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * PdRemoteSource::event:
   * @event: a #PdEvent, in either schema
   *
   * An event from the server's stream, while watching.
   */
  signals[EVENT] = g_signal_new ("event", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                 G_TYPE_NONE, 1, PD_TYPE_EVENT | G_SIGNAL_TYPE_STATIC_SCOPE);
  /**
   * PdRemoteSource::sessions-pushed:
   * @sessions: (element-type PdRemotePushedSession): sessions another
   *   connection changed, as the server pushed them
   *
   * Emitted just before the ::changed they make, while watching a server
   * that pushes them (/api/health's sessions_push).  A handler that takes
   * what it needs from them may skip the read that ::changed asks for.
   */
  signals[SESSIONS_PUSHED] = g_signal_new ("sessions-pushed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                           NULL, NULL, NULL, G_TYPE_NONE, 1,
                                           G_TYPE_PTR_ARRAY | G_SIGNAL_TYPE_STATIC_SCOPE);
}

/* Whatever changed (the stream, a poll, a reconnection, the window), an
 * export answered before it is old. */
static void
on_changed (PdRemoteSource *self)
{
  self->changes++;
  g_clear_pointer (&self->last_export, export_answer_free);
}

static void
pd_remote_source_init (PdRemoteSource *self)
{
  self->session_tokens = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->has_detail = -1;
  self->lookup_tokens = LOOKUP_BURST;
  self->lookup_refilled = g_get_monotonic_time ();
  self->lookups_waiting = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->lookup_limit = -1;
  self->exports_asked = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->failed_reads = _pd_remote_source_failed_reads_new ();
  /* First of the handlers: before any view reloads on it. */
  g_signal_connect (self, "changed", G_CALLBACK (on_changed), NULL);
  self->context = g_main_context_ref_thread_default ();
  /* The event stream holds one connection (the streams' session's, on
   * their thread: pd-remote-stream.c); requests share up to REQUEST_CONNS
   * more, kept while they come and closed after REQUEST_IDLE_SECONDS
   * without one: an endpoint that pushes what changes is asked seldom, and
   * stays on one connection between. */
  self->session = soup_session_new_with_options ("timeout", 30, "idle-timeout", REQUEST_IDLE_SECONDS,
                                                 "max-conns-per-host", REQUEST_CONNS, NULL);
}

/**
 * pd_remote_source_new:
 * @url: the endpoint, as `serve` prints it (`http://127.0.0.1:8080/?token=…`)
 *   or its base URL
 * @token: (nullable): the instance token, when @url does not carry it
 */
PdRemoteSource *
pd_remote_source_new (const char  *url,
                      const char  *token,
                      GError     **error)
{
  g_autofree char *from_query = NULL;
  PdRemoteSource *self = g_object_new (PD_TYPE_REMOTE_SOURCE, NULL);

  /* A path and a query (a proxy's) stay; the API paths go after them. */
  if (!pd_remote_url_split (url, &self->base, &self->base_query, &from_query, error))
    {
      g_object_unref (self);
      return NULL;
    }
  self->base_url = self->base_query ? g_strconcat (self->base, "?", self->base_query, NULL) : g_strdup (self->base);
  /* Without a token the endpoint is still asked: whether it is there at
   * all is what a person needs to know first; it then refuses access. */
  if (token == NULL)
    token = from_query;
  self->token = token != NULL && *token != '\0' ? g_strdup (token) : NULL;
  return self;
}

const char *
pd_remote_source_get_base_url (PdRemoteSource *self)
{
  g_return_val_if_fail (PD_IS_REMOTE_SOURCE (self), NULL);
  return self->base_url;
}

void
pd_remote_source_set_timeout (PdRemoteSource *self,
                              guint           seconds)
{
  g_return_if_fail (PD_IS_REMOTE_SOURCE (self));
  soup_session_set_timeout (self->session, seconds);
}
