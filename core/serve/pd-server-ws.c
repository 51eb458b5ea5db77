/* pd-server-ws.c: /ws, odek's WebSocket, on `plandeck-agent serve`.
 *
 * What odek's browser UI speaks (reference: odek-webui-protocol.md §2): one
 * JSON object per text frame.  The client sends `prompt` {content,
 * attachments, session_id, auth_token, model, thinking} and
 * `approval_response` {id, action}; ours, as odek's later protocol, also
 * `cancel`, and a `feedback` with a plan review's deny.  The server answers each prompt with `session` {session_id,
 * auth_token, model, sandbox} once the session is saved, then per batch
 * `thinking`, every `tool_call` {name, data: the arguments} before any
 * runs, an `approval_request` where a call needs a person, every
 * `tool_result` {name, data: the output}; then the answer as one `token`
 * and exactly one `done` {latency, token counts} or `error` {message}.
 * Validation errors are a single `error`.
 *
 * The handshake is judged with its headers like every request
 * (pd-server-guard.c): the instance token (cookie, header, or the
 * subprotocol odek.TOKEN, which is echoed), the Host, and the Origin (the
 * server's own, or one --allow-origin names).  Then here: 30 upgrades a
 * minute per client and 20 sockets at once (odek's), and libsoup's
 * handshake.  A socket takes messages of at most 8 MiB (attachments ride
 * in the prompt), in one frame or many (pd-ws-meter.c: libsoup 3.2 caps
 * frames only), without permessage-deflate, which would let a small frame
 * grow without bound.
 *
 * One socket, one prompt at a time (up to 7 more wait their turn, beyond
 * that "busy"); the run goes on in an engine worker (pd-server-runs.c)
 * while the socket is read, so an approval_response arrives while the tool
 * waits.  A question nobody answers is denied after the approval timeout;
 * the socket going away cancels its run, whose questions are then denied
 * at once.  Everything here is on the server's thread.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-server"

#include "config.h"

#include <string.h>

#include "pd-safe-text.h"
#include "pd-server-private.h"
#include "pd-json-util.h"
#include "pd-plan.h"
#include "pd-random.h"
#include "pd-redact.h"

#define KEEPALIVE_SECONDS        20
#define QUEUE_MAX                7
#define PROMPT_MAX               (1024 * 1024)
#define ATTACHMENT_MAX           (5 * 1024 * 1024)
#define ATTACHMENTS_MAX          (10 * 1024 * 1024)
#define FRICTION_WINDOW_USEC     (60 * G_TIME_SPAN_SECOND)
#define FRICTION_APPROVALS       3
#define CLOSE_GRACE_MS           1000

struct _Socket
{
  int                      ref;
  PdServer                *server;        /* (unowned) */
  SoupWebsocketConnection *conn;
  char                    *client;
  gboolean                 closed;
  gulong                   message_id;
  gulong                   closed_id;

  char                    *session_id;    /* the session of its last prompt */
  char                    *session_token;
  GQueue                   queue;         /* JsonObject: prompts waiting their turn */
  gboolean                 checking;      /* a prompt's session is looked up */
  Run                     *run;           /* (unowned) the prompt running now */
  gint64                   run_started;   /* monotonic µs */
  Approval                *asked;         /* the question shown now */
  GHashTable              *trusted;       /* risk class → TRUE, for the socket's life */
  GHashTable              *approvals;     /* risk class → GArray of monotonic µs (friction) */
  gint64                   session_input; /* tokens over the socket's life, as odek */
  gint64                   session_output;
};

static void socket_next (Socket *socket);

static Socket *
socket_ref (Socket *socket)
{
  socket->ref++;
  return socket;
}

static void
socket_unref (Socket *socket)
{
  if (--socket->ref > 0)
    return;
  g_clear_signal_handler (&socket->message_id, socket->conn);
  g_clear_signal_handler (&socket->closed_id, socket->conn);
  g_clear_object (&socket->conn);
  g_free (socket->client);
  g_free (socket->session_id);
  g_free (socket->session_token);
  g_queue_clear_full (&socket->queue, (GDestroyNotify) json_object_unref);
  g_clear_pointer (&socket->asked, _pd_server_approval_unref);
  g_hash_table_unref (socket->trusted);
  g_hash_table_unref (socket->approvals);
  g_free (socket);
}

/* ---------------------------------------------------------------------- */
/* Frames out                                                             */

static void
socket_send (Socket     *socket,
             JsonObject *object)   /* (transfer full) */
{
  g_autofree char *text = NULL;

  if (!socket->closed && soup_websocket_connection_get_state (socket->conn) == SOUP_WEBSOCKET_STATE_OPEN)
    {
      text = _pd_server_json_object_text (object);
      soup_websocket_connection_send_text (socket->conn, text);
    }
  json_object_unref (object);
}

static JsonObject *
frame_new (const char *type)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "type", type);
  return object;
}

static void
send_error (Socket     *socket,
            const char *message)
{
  JsonObject *frame = frame_new ("error");

  json_object_set_string_member (frame, "message", message);
  socket_send (socket, frame);
}

/* ---------------------------------------------------------------------- */
/* The run of a prompt                                                    */

static void
observe_session (Run        *run,
                 gpointer    data,
                 const char *session_id,
                 const char *auth_token)
{
  Socket *socket = data;
  JsonObject *frame = frame_new ("session");

  g_free (socket->session_id);
  socket->session_id = g_strdup (session_id);
  g_free (socket->session_token);
  socket->session_token = g_strdup (auth_token);

  json_object_set_string_member (frame, "session_id", session_id);
  json_object_set_string_member (frame, "auth_token", auth_token ? auth_token : "");
  json_object_set_string_member (frame, "model", socket->server->model ? socket->server->model : "");
  json_object_set_boolean_member (frame, "sandbox", FALSE);
  socket_send (socket, frame);
}

static void
observe_thinking (Run        *run,
                  gpointer    data,
                  const char *text)
{
  JsonObject *frame = frame_new ("thinking");

  json_object_set_string_member (frame, "content", text);
  socket_send (data, frame);
}

static void
observe_tool (Run               *run,
              gpointer           data,
              PdEngineToolStage  stage,
              const char        *name,
              const char        *text,
              gboolean           ok)
{
  JsonObject *frame = frame_new (stage == PD_ENGINE_TOOL_CALL ? "tool_call" : "tool_result");

  json_object_set_string_member (frame, "name", name);
  json_object_set_string_member (frame, "data", text);
  socket_send (data, frame);
}

/* How many times the socket approved @risk in the last minute (odek's
 * friction: from 3 on, its UI makes the person type "approve"). */
static guint
recent_approvals (Socket     *socket,
                  const char *risk)
{
  GArray *stamps = g_hash_table_lookup (socket->approvals, risk);
  gint64 now = g_get_monotonic_time ();
  guint n = 0;

  for (guint i = 0; stamps != NULL && i < stamps->len; i++)
    n += now - g_array_index (stamps, gint64, i) < FRICTION_WINDOW_USEC;
  return n;
}

static void
note_approval (Socket     *socket,
               const char *risk)
{
  GArray *stamps = g_hash_table_lookup (socket->approvals, risk);
  gint64 now = g_get_monotonic_time ();

  if (stamps == NULL)
    {
      stamps = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_hash_table_insert (socket->approvals, g_strdup (risk), stamps);
    }
  /* Only the window matters: older stamps go. */
  while (stamps->len > 0 && now - g_array_index (stamps, gint64, 0) >= FRICTION_WINDOW_USEC)
    g_array_remove_index (stamps, 0);
  g_array_append_val (stamps, now);
}

static void
observe_ask (Run      *run,
             gpointer  data,
             Approval *approval)
{
  Socket *socket = data;
  const char *risk = _pd_server_approval_get_risk (approval);
  JsonObject *frame;
  guint recent;

  if (socket->closed)
    {
      _pd_server_approval_answer (approval, APPROVAL_CANCELLED);
      return;
    }
  /* A class the person trusted for this socket is not asked again, but
   * for a masked command: the trust was given on what the person read,
   * and a masked one they never saw whole (a trusted code_execution ran
   * API_TOKEN=[REDACTED]; N=API_TOKEN; ${!N} unasked). */
  if (g_hash_table_contains (socket->trusted, risk) && !_pd_server_approval_needs_friction (approval))
    {
      _pd_server_approval_answer (approval, APPROVAL_TRUST);
      return;
    }

  g_clear_pointer (&socket->asked, _pd_server_approval_unref);
  socket->asked = _pd_server_approval_ref (approval);

  recent = recent_approvals (socket, risk);
  frame = _pd_server_approval_to_json (approval);
  json_object_set_string_member (frame, "type", "approval_request");
  /* odek's page shows "command" alone, in a block that scrolls: a write
   * read "one.sh (2087 bytes)" and a command was cut at 2,000 characters,
   * and either was approved unseen (tried as an attacker would).  It gets
   * what the call changes, whole, as our dialog shows it. */
  if (json_object_has_member (frame, "preview"))
    {
      /* Said as our own dialog says them: long padding the preview left
       * as it is, marks piled on a letter (odek's page draws them); a
       * look-alike blank is escaped already (\u00a0). */
      g_autofree char *shown = pd_safe_text_approval (json_object_get_string_member (frame, "preview"));

      json_object_set_string_member (frame, "command", shown);
    }
  /* A masked command, or one with control characters, is asked with
   * friction each time: what the approver reads is not what runs
   * (_pd_server_approval_new(), _pd_server_approval_set_controls()). */
  json_object_set_boolean_member (frame, "friction",
                                  recent >= FRICTION_APPROVALS || _pd_server_approval_needs_friction (approval));
  if (recent >= FRICTION_APPROVALS)
    json_object_set_int_member (frame, "friction_approvals", recent);
  socket_send (socket, frame);
}

static char *
outcome_error (PdRunResult  *outcome,
               const GError *error)
{
  if (outcome == NULL)
    return pd_redact (error ? error->message : "the run failed", NULL);

  switch (outcome->status)
    {
    case PD_RUN_CANCELLED:
      return g_strdup ("cancelled: the run was stopped");
    case PD_RUN_BUDGET_EXCEEDED:
      return g_strdup_printf ("budget exceeded: %s", outcome->budget_name ? outcome->budget_name : "");
    case PD_RUN_REFUSED:
      {
        g_autofree char *why = pd_redact (outcome->error_message ? outcome->error_message : "", NULL);
        return g_strdup_printf ("the model refused: %s", why);
      }
    case PD_RUN_INCOMPLETE:
      return g_strdup ("the answer was cut off by its output limit");
    case PD_RUN_FAILED:
    default:
      return pd_redact (outcome->error_message ? outcome->error_message : "the run failed", NULL);
    case PD_RUN_COMPLETED:
      return NULL;
    }
}

static void
observe_done (Run          *run,
              gpointer      data,
              PdRunResult  *outcome,
              const GError *error)
{
  Socket *socket = data;
  g_autofree char *failure = outcome_error (outcome, error);

  socket->run = NULL;
  g_clear_pointer (&socket->asked, _pd_server_approval_unref);

  /* The answer as one `token` (odek's UI renders each token frame as a
   * paragraph: deltas would garble its markdown); a cut answer too. */
  if (outcome != NULL && outcome->final_text != NULL && *outcome->final_text &&
      (outcome->status == PD_RUN_COMPLETED || outcome->status == PD_RUN_INCOMPLETE ||
       outcome->status == PD_RUN_BUDGET_EXCEEDED))
    {
      JsonObject *frame = frame_new ("token");
      g_autofree char *answer = pd_redact (outcome->final_text, NULL);

      json_object_set_string_member (frame, "content", answer);
      socket_send (socket, frame);
    }

  if (failure != NULL)
    send_error (socket, failure);
  else
    {
      JsonObject *frame = frame_new ("done");

      socket->session_input += outcome->input_tokens;
      socket->session_output += outcome->output_tokens;
      json_object_set_double_member (frame, "latency",
                                     (double) (g_get_monotonic_time () - socket->run_started) / G_USEC_PER_SEC);
      json_object_set_int_member (frame, "contextTokens", outcome->input_tokens);
      json_object_set_int_member (frame, "outputTokens", outcome->output_tokens);
      json_object_set_int_member (frame, "cacheCreationTokens", 0);
      json_object_set_int_member (frame, "cacheReadTokens", 0);
      json_object_set_int_member (frame, "cachedTokens", 0);
      json_object_set_int_member (frame, "sessionContextTokens", socket->session_input);
      json_object_set_int_member (frame, "sessionOutputTokens", socket->session_output);
      socket_send (socket, frame);
    }

  socket_next (socket);
}

static void
observe_release (gpointer data)
{
  socket_unref (data);
}

static const RunObserver socket_observer = {
  observe_session,
  observe_thinking,
  observe_tool,
  observe_ask,
  observe_done,
  observe_release,
};

/* ---------------------------------------------------------------------- */
/* Prompts in                                                             */

/* The model's message: the text, then each attachment in an envelope the
 * model is told not to take orders from (its contents are the file's, not
 * the person's words). */
static char *
prompt_text (const char *content,
             JsonArray  *attachments)
{
  GString *text = g_string_new (content);

  for (guint i = 0; attachments != NULL && i < json_array_get_length (attachments); i++)
    {
      JsonObject *attachment = json_array_get_object_element (attachments, i);
      g_autofree char *nonce = pd_random_hex (8);
      const char *name = pd_json_get_string (attachment, "name");

      if (text->len > 0)
        g_string_append (text, "\n\n");
      g_string_append_printf (text, "<untrusted_content_%s source=\"attachment\">\n--- %s ---\n%s\n</untrusted_content_%s>",
                              nonce, name ? name : "", pd_json_get_string (attachment, "content"), nonce);
    }
  return g_string_free (text, FALSE);
}

static gboolean
is_blank (const char *text)
{
  for (; *text; text++)
    if (!g_ascii_isspace (*text))
      return FALSE;
  return TRUE;
}

/* odek's checks of a prompt, in its order; the message of the error frame,
 * or NULL when it may run. */
static const char *
prompt_check (JsonObject *prompt,
              char      **attachment_error)
{
  JsonNode *node = json_object_get_member (prompt, "content");
  JsonArray *attachments = pd_json_get_array (prompt, "attachments");
  const char *content = pd_json_get_string (prompt, "content");
  const char *model = pd_json_get_string (prompt, "model");
  gsize total = 0;

  if (node != NULL && content == NULL && !JSON_NODE_HOLDS_NULL (node))
    return "content must be a string";
  if (json_object_has_member (prompt, "attachments") && attachments == NULL &&
      !JSON_NODE_HOLDS_NULL (json_object_get_member (prompt, "attachments")))
    return "attachments must be a list";
  if (model != NULL && *model && !_pd_server_model_id_is_valid (model))
    return "invalid model ID";
  if (content != NULL && strlen (content) > PROMPT_MAX)
    return "prompt exceeds maximum size";

  for (guint i = 0; attachments != NULL && i < json_array_get_length (attachments); i++)
    {
      /* Not json_array_get_object_element alone: on a number it logs a
       * critical, which G_DEBUG=fatal-criticals makes an abort (att15). */
      JsonNode *element = json_array_get_element (attachments, i);
      JsonObject *attachment = JSON_NODE_HOLDS_OBJECT (element) ? json_node_get_object (element) : NULL;
      const char *text = attachment ? pd_json_get_string (attachment, "content") : NULL;
      const char *name = attachment ? pd_json_get_string (attachment, "name") : NULL;

      if (text == NULL)
        return "an attachment needs its content as text";
      if (strlen (text) > ATTACHMENT_MAX)
        {
          *attachment_error = g_strdup_printf ("attachment too large: %s", name ? name : "");
          return *attachment_error;
        }
      total += strlen (text);
    }
  if (total > ATTACHMENTS_MAX)
    return "total attachment size exceeds 10 MB";

  /* odek drops an empty prompt without a word, and its UI then waits for
   * ever: say it. */
  if ((content == NULL || is_blank (content)) && (attachments == NULL || json_array_get_length (attachments) == 0))
    return "empty prompt: write a message or attach a file";
  return NULL;
}

static void
prompt_run (Socket     *socket,
            JsonObject *prompt,
            const char *session_id)
{
  PdServer *self = socket->server;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = prompt_text (pd_json_get_string (prompt, "content") ? pd_json_get_string (prompt, "content") : "",
                                       pd_json_get_array (prompt, "attachments"));
  const char *model = pd_json_get_string (prompt, "model");
  guint status = 0;
  Run *run;

  if (socket->closed)
    return;
  run = _pd_server_run_start (self, session_id, text, model && *model ? model : NULL,
                              &socket_observer, socket_ref (socket), &status, &error);
  if (run == NULL)
    {
      socket_unref (socket);
      send_error (socket, error->message);
      socket_next (socket);
      return;
    }
  socket->run = run;
  socket->run_started = g_get_monotonic_time ();
}

/* A prompt that continues a session another socket or client made: the
 * session must be there and the prompt carry its token, checked in a
 * worker like every read. */
typedef struct
{
  Socket     *socket;
  JsonObject *prompt;
  char       *session_id;
  char       *auth_token;
  const char *failure;    /* the error frame's message, or NULL */
} Check;

static void
check_free (gpointer data)
{
  Check *check = data;

  json_object_unref (check->prompt);
  g_free (check->session_id);
  g_free (check->auth_token);
  g_free (check);
}

static void
check_in_thread (GTask        *task,
                 gpointer      source_object,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  PdServer *self = source_object;
  Check *check = task_data;
  PdSessionStore *store = g_async_queue_pop (self->readers);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionInfo) info = pd_session_store_get (store, check->session_id, &error);

  g_async_queue_push (self->readers, store);
  if (info == NULL)
    check->failure = g_error_matches (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND) ? "session not found"
                                                                                  : "the session could not be read";
  /* The socket came in with the instance token: a session that never had
   * a token of its own (an imported one) takes that, as for the REST
   * routes. */
  else if (!_pd_server_token_allows_write (check->auth_token, TRUE, info->auth_token))
    check->failure = "invalid session token";
  g_task_return_boolean (task, TRUE);
}

static void
on_checked (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  PdServer *self = PD_SERVER (object);
  Check *check = g_task_get_task_data (G_TASK (result));
  Socket *socket = check->socket;

  self->pending--;
  socket->checking = FALSE;
  if (socket->closed || self->stopping)
    ;
  else if (check->failure != NULL)
    {
      send_error (socket, check->failure);
      socket_next (socket);
    }
  else
    {
      g_free (socket->session_token);
      socket->session_token = g_strdup (check->auth_token);
      prompt_run (socket, check->prompt, check->session_id);
    }
  socket_unref (socket);
  _pd_server_maybe_quit (self);
}

static void
prompt_start (Socket     *socket,
              JsonObject *prompt)
{
  PdServer *self = socket->server;
  g_autofree char *attachment_error = NULL;
  const char *failure = prompt_check (prompt, &attachment_error);
  const char *session_id = pd_json_get_string (prompt, "session_id");
  g_autoptr(GTask) task = NULL;
  Check *check;

  if (failure != NULL)
    {
      send_error (socket, failure);
      socket_next (socket);
      return;
    }
  if (json_object_has_member (prompt, "session_id") && session_id == NULL &&
      !JSON_NODE_HOLDS_NULL (json_object_get_member (prompt, "session_id")))
    {
      send_error (socket, "invalid session id");
      socket_next (socket);
      return;
    }

  /* No session: a new one, always (odek's "New session" relies on it). */
  if (session_id == NULL || *session_id == '\0')
    {
      prompt_run (socket, prompt, NULL);
      return;
    }
  if (!pd_session_id_is_valid (session_id))
    {
      send_error (socket, "session not found");
      socket_next (socket);
      return;
    }
  /* Its own session: it made it, or showed its token before. */
  if (g_strcmp0 (session_id, socket->session_id) == 0 && socket->session_token != NULL)
    {
      prompt_run (socket, prompt, session_id);
      return;
    }

  check = g_new0 (Check, 1);
  check->socket = socket_ref (socket);
  check->prompt = json_object_ref (prompt);
  check->session_id = g_strdup (session_id);
  check->auth_token = g_strdup (pd_json_get_string (prompt, "auth_token"));
  socket->checking = TRUE;
  self->pending++;
  task = g_task_new (self, NULL, on_checked, NULL);
  g_task_set_task_data (task, check, check_free);
  g_task_run_in_thread (task, check_in_thread);
}

/* The next prompt waiting, once none runs. */
static void
socket_next (Socket *socket)
{
  JsonObject *prompt;

  if (socket->closed || socket->run != NULL || socket->checking || socket->server->stopping)
    return;
  prompt = g_queue_pop_head (&socket->queue);
  if (prompt == NULL)
    return;
  prompt_start (socket, prompt);
  json_object_unref (prompt);
}

static void
on_prompt (Socket     *socket,
           JsonObject *prompt)
{
  if (socket->run != NULL || socket->checking || socket->queue.length > 0)
    {
      if (socket->queue.length >= QUEUE_MAX)
        {
          send_error (socket, "busy: a prompt is already running");
          return;
        }
      g_queue_push_tail (&socket->queue, json_object_ref (prompt));
      return;
    }
  prompt_start (socket, prompt);
}

static void
on_approval_response (Socket     *socket,
                      JsonObject *response)
{
  const char *id = pd_json_get_string (response, "id");
  const char *action = pd_json_get_string (response, "action");
  Approval *approval = socket->asked;
  ApprovalAnswer answer;
  JsonObject *ack;

  if (approval == NULL || g_strcmp0 (id, _pd_server_approval_get_id (approval)) != 0 ||
      !_pd_server_approval_parse_action (action, &answer))
    return;

  /* odek: trust where it is not offered is one approval. */
  if (answer == APPROVAL_TRUST && !_pd_server_approval_allows_trust (approval))
    answer = APPROVAL_APPROVE;
  /* Ours, as the window sends it: a plan review's deny may say how to go on
   * planning (odek's page never sends it). */
  if (!_pd_server_approval_answer_full (approval, answer,
                                        answer == APPROVAL_DENY ? pd_json_get_string (response, "feedback") : NULL))
    return;   /* timed out, or cancelled, just before */
  if (answer == APPROVAL_TRUST)
    g_hash_table_add (socket->trusted, g_strdup (_pd_server_approval_get_risk (approval)));
  if (answer != APPROVAL_DENY)
    note_approval (socket, _pd_server_approval_get_risk (approval));

  ack = frame_new ("approval_ack");
  json_object_set_string_member (ack, "id", id);
  json_object_set_string_member (ack, "action", action);
  g_clear_pointer (&socket->asked, _pd_server_approval_unref);
  socket_send (socket, ack);
}

static void
on_message (SoupWebsocketConnection *conn,
            gint                     type,
            GBytes                  *message,
            gpointer                 user_data)
{
  Socket *socket = user_data;
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  gsize len;
  const char *data = g_bytes_get_data (message, &len);
  JsonObject *object;
  const char *kind;

  /* odek's UI ignores what it cannot read; so does the server. */
  if (type != SOUP_WEBSOCKET_DATA_TEXT || len == 0 ||
      pd_json_nesting_exceeds (data, (gssize) len, PD_JSON_FOREIGN_MAX_DEPTH) ||
      !json_parser_load_from_data (parser, data, (gssize) len, NULL) ||
      json_parser_get_root (parser) == NULL || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
    return;

  object = json_node_get_object (json_parser_get_root (parser));
  kind = pd_json_get_string (object, "type");
  if (g_strcmp0 (kind, "prompt") == 0)
    on_prompt (socket, object);
  else if (g_strcmp0 (kind, "approval_response") == 0)
    on_approval_response (socket, object);
  else if (g_strcmp0 (kind, "cancel") == 0)
    {
      /* odek's later protocol: the socket's own run stops (its queue too). */
      g_queue_clear_full (&socket->queue, (GDestroyNotify) json_object_unref);
      if (socket->run != NULL)
        _pd_server_run_cancel (socket->run, NULL);
    }
}

/* The socket is gone (its client closed it or vanished, a frame was too
 * large, or the server stops): its run is cancelled, and the question it
 * waited on denied at once. */
static void
on_closed (SoupWebsocketConnection *conn,
           gpointer                 user_data)
{
  Socket *socket = user_data;
  PdServer *self = socket->server;

  if (socket->closed)
    return;
  socket->closed = TRUE;
  g_queue_clear_full (&socket->queue, (GDestroyNotify) json_object_unref);
  /* The run first: a question denied before its run is cancelled lets the
   * engine's worker go on with the denial and finish the run (seen once
   * under AddressSanitizer: completed, not cancelled). */
  if (socket->run != NULL)
    _pd_server_run_cancel (socket->run, self->stopping
                                        ? "interrupted: the endpoint (serve) stopped before anyone answered"
                                        : "interrupted: the client following the run went away before anyone answered");
  if (socket->asked != NULL)
    _pd_server_approval_answer (socket->asked, APPROVAL_CANCELLED);
  self->sockets = g_list_remove (self->sockets, socket);
  socket_unref (socket);
  _pd_server_maybe_quit (self);
}

/* ---------------------------------------------------------------------- */
/* The handshake                                                          */

#define SLOT_KEY "pd-ws-slot"

/* A handshake holds a slot from its check to its end (a socket, or an
 * answer without one). */
typedef struct
{
  PdServer *server;
  gboolean  held;
} Slot;

static void
slot_release (Slot *slot)
{
  if (slot->held)
    {
      slot->held = FALSE;
      slot->server->upgrading--;
    }
}

static void
slot_free (gpointer data)
{
  slot_release (data);
  g_free (data);
}

static void
on_handshake_finished (SoupServerMessage *msg,
                       gpointer           user_data)
{
  Slot *slot = g_object_get_data (G_OBJECT (msg), SLOT_KEY);

  if (slot != NULL)
    slot_release (slot);
}

static void on_upgraded (SoupServerMessage *msg, gpointer user_data);

/* What the guard could not judge by the headers alone, then the handshake:
 * a 101 and, once it is written, the socket. */
static void
handle_ws (SoupServer        *soup,
           SoupServerMessage *msg,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  PdServer *self = user_data;
  const char *client = soup_server_message_get_remote_host (msg);
  Slot *slot;

  if (self->stopping)
    {
      _pd_server_respond_error (msg, 503, "shutting down");
      return;
    }
  if (!_pd_server_guard_passed (msg, NULL))
    {
      _pd_server_respond_error (msg, 403, "Forbidden");
      return;
    }
  /* libsoup hands this handler every path that begins with "/ws". */
  if (strcmp (path, "/ws") != 0)
    {
      _pd_server_respond_error (msg, 404, "not found");
      return;
    }
  if (soup_server_message_get_method (msg) != SOUP_METHOD_GET)
    {
      _pd_server_respond_error (msg, 405, "method not allowed");
      return;
    }
  if (!_pd_server_rate_allow_in (self->socket_rate, self->rate_limit ? PD_SERVER_SOCKET_RATE : 0, client))
    {
      soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Retry-After", "60");
      _pd_server_respond_error (msg, 429, "too many WebSocket connections from this client; wait a minute");
      return;
    }
  if (g_list_length (self->sockets) + self->upgrading >= PD_SERVER_MAX_SOCKETS)
    {
      _pd_server_respond_error (msg, 503, "too many WebSockets open");
      return;
    }

  {
    g_autofree char *protocol = g_strconcat ("odek.", self->token, NULL);
    char *protocols[] = { protocol, NULL };
    g_autoptr(GPtrArray) no_extensions = g_ptr_array_new ();

    /* No origin here: the guard checked it, by our rule.  A request that is
     * no handshake gets libsoup's 400. */
    if (!soup_websocket_server_process_handshake (msg, NULL, protocols, no_extensions, NULL))
      return;
  }

  slot = g_new0 (Slot, 1);
  slot->server = self;
  slot->held = TRUE;
  self->upgrading++;
  g_object_set_data_full (G_OBJECT (msg), SLOT_KEY, slot, slot_free);
  g_signal_connect (msg, "finished", G_CALLBACK (on_handshake_finished), NULL);
  g_signal_connect (msg, "wrote-informational", G_CALLBACK (on_upgraded), self);
}

/* The 101 is written: the connection is the socket's from here, through
 * the meter that caps a whole message (pd-ws-meter.c). */
static void
on_upgraded (SoupServerMessage *msg,
             gpointer           user_data)
{
  PdServer *self = user_data;
  Slot *slot = g_object_get_data (G_OBJECT (msg), SLOT_KEY);
  g_autoptr(SoupServerMessage) hold = g_object_ref (msg);
  g_autoptr(GIOStream) stream = NULL;
  g_autoptr(GIOStream) metered = NULL;
  SoupMessageHeaders *response_headers = soup_server_message_get_response_headers (msg);
  SoupWebsocketConnection *conn;
  Socket *socket;

  g_signal_handlers_disconnect_by_func (msg, on_upgraded, user_data);
  stream = soup_server_message_steal_connection (msg);
  if (slot != NULL)
    slot_release (slot);
  if (stream == NULL)
    return;

  metered = _pd_ws_meter_new (stream, PD_SERVER_MAX_WS_MESSAGE);
  conn = soup_websocket_connection_new (metered, soup_server_message_get_uri (msg), SOUP_WEBSOCKET_CONNECTION_SERVER,
                                        soup_message_headers_get_one (soup_server_message_get_request_headers (msg), "Origin"),
                                        soup_message_headers_get_one (response_headers, "Sec-WebSocket-Protocol"),
                                        NULL);
  if (self->stopping)
    {
      soup_websocket_connection_close (conn, SOUP_WEBSOCKET_CLOSE_GOING_AWAY, "shutting down");
      g_object_unref (conn);
      return;
    }

  socket = g_new0 (Socket, 1);
  socket->ref = 1;
  socket->server = self;
  socket->conn = conn;
  socket->client = g_strdup (soup_server_message_get_remote_host (msg));
  g_queue_init (&socket->queue);
  socket->trusted = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  socket->approvals = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) g_array_unref);
  self->sockets = g_list_prepend (self->sockets, socket);

  /* A frame of at most 8 MiB (libsoup's default is 128 KiB; attachments ride
   * in the prompt), a message too (the meter). */
  soup_websocket_connection_set_max_incoming_payload_size (conn, PD_SERVER_MAX_WS_MESSAGE);
  soup_websocket_connection_set_keepalive_interval (conn, KEEPALIVE_SECONDS);
  socket->message_id = g_signal_connect (conn, "message", G_CALLBACK (on_message), socket);
  socket->closed_id = g_signal_connect (conn, "closed", G_CALLBACK (on_closed), socket);
}

/**
 * _pd_server_ws_install:
 *
 * Adds /ws to the server.  The handshake is libsoup's
 * (soup_websocket_server_process_handshake: it echoes the subprotocol
 * odek.TOKEN when the client offers it, and a browser drops a socket whose
 * offered protocol is not echoed), made here rather than by
 * soup_server_add_websocket_handler() so that the connection can go
 * through the meter, and with no extension: permessage-deflate would
 * inflate a small frame past any limit.
 */
void
_pd_server_ws_install (PdServer *self)
{
  soup_server_add_handler (self->soup, "/ws", handle_ws, self, NULL);
}

/* A client that does not answer the closing handshake: its connection is
 * closed now.  (libsoup's own 5 s wait for it loses its timer in 3.2.) */
static gboolean
on_close_deadline (gpointer user_data)
{
  PdServer *self = user_data;
  g_autoptr(GList) sockets = g_list_copy (self->sockets);

  g_clear_pointer (&self->sockets_deadline, g_source_unref);
  for (GList *l = sockets; l != NULL; l = l->next)
    {
      Socket *socket = l->data;

      /* Disposing closes the connection now, and drops every signal
       * handler: "closed" will not come, so it is done here. */
      socket_ref (socket);
      g_object_run_dispose (G_OBJECT (socket->conn));
      socket->message_id = 0;
      socket->closed_id = 0;
      on_closed (socket->conn, socket);
      socket_unref (socket);
    }
  return G_SOURCE_REMOVE;
}

/* Stopping: every socket is closed (its run was cancelled with the rest);
 * the server's loop ends once they are. */
void
_pd_server_ws_close_all (PdServer *self)
{
  for (GList *l = self->sockets; l != NULL; l = l->next)
    {
      Socket *socket = l->data;

      g_queue_clear_full (&socket->queue, (GDestroyNotify) json_object_unref);
      if (soup_websocket_connection_get_state (socket->conn) == SOUP_WEBSOCKET_STATE_OPEN)
        soup_websocket_connection_close (socket->conn, SOUP_WEBSOCKET_CLOSE_GOING_AWAY, "the server is stopping");
    }
  if (self->sockets != NULL && self->sockets_deadline == NULL)
    {
      self->sockets_deadline = g_timeout_source_new (CLOSE_GRACE_MS);
      g_source_set_callback (self->sockets_deadline, on_close_deadline, self, NULL);
      g_source_attach (self->sockets_deadline, self->context);
    }
}

/* Stopped: the grace timer, if the sockets closed before it. */
void
_pd_server_ws_clear (PdServer *self)
{
  if (self->sockets_deadline != NULL)
    {
      g_source_destroy (self->sockets_deadline);
      g_clear_pointer (&self->sockets_deadline, g_source_unref);
    }
}

guint
_pd_server_ws_count (PdServer *self)
{
  return g_list_length (self->sockets);
}
