/* pd-test-serve-ws.h: the PdServer the WebSocket tests speak to.
 *
 * PdServer in its own thread on loopback port 0, a replayed engine whose
 * runs use the real tools in a temporary folder and ask approvals of the
 * person watching, as `serve` does; clients are libsoup's own WebSocket
 * client on the test's main context, or raw frames on a socket.  Shared by
 * test-server-ws.c (the handshake, limits and frames) and
 * test-server-ws-runs.c (prompts, approvals, cancelling).  Header-only
 * because the test list in tests/meson.build builds one source file per
 * test.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "pd-plan.h"
#include "pd-replay-provider.h"
#include "pd-server.h"
#include "pd-test-files.h"
#include "pd-tool-registry.h"

#define TOKEN "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define WAIT_SECONDS 30

typedef struct
{
  char           *dir;
  char           *db_path;
  char           *replay_path;
  PdSessionStore *store;
  PdServer       *server;
  SoupSession    *session;
  char           *base;
  char           *origin;
} Fixture;

/* ---------------------------------------------------------------------- */
/* The server                                                             */

static inline PdEngine *
replay_engine (const PdServerRunRequest  *request,
               gpointer                   user_data,
               GError                   **error)
{
  Fixture *f = user_data;
  g_autoptr(PdProvider) provider = NULL;
  g_autoptr(PdPlanStore) plan_store = pd_plan_store_new (12, 4000);
  g_autoptr(PdToolRegistry) tools = pd_tool_registry_new ();
  g_autoptr(PdToolContext) context = NULL;
  g_autoptr(PdApprover) approver = pd_approver_new (PD_APPROVAL_POLICY_ASK);
  PdEngineOptions options = { 0 };

  /* Asks whoever watches the run, as serve does. */
  pd_approver_set_func (approver, request->approve, request->approve_data, request->approve_destroy);
  if (!(provider = pd_provider_new_for_name ("replay", NULL, NULL, f->replay_path, error)) ||
      !(context = pd_tool_context_new (f->dir, error)))
    {
      request->review_destroy (request->review_data);
      return NULL;
    }
  pd_tool_registry_add_builtins (tools, plan_store);
  /* Plans are reviewed by whoever watches the run, as serve does. */
  pd_exit_plan_mode_tool_set_review_func (PD_EXIT_PLAN_MODE_TOOL (pd_tool_registry_lookup (tools, "exit_plan_mode")),
                                          request->review, request->review_data, request->review_destroy);

  options.provider = provider;
  options.model = "replay";
  options.tools = tools;
  options.plan_store = plan_store;
  options.approver = approver;
  options.store = request->store;
  options.bus = request->bus;
  options.tool_context = context;
  options.run_id = request->run_id;
  return pd_engine_new (&options);
}

static inline void
start_server (Fixture *f,
              guint    approval_timeout)
{
  g_autoptr(GError) error = NULL;

  f->server = pd_server_new (f->db_path);
  pd_server_set_listen (f->server, "127.0.0.1", 0);
  pd_server_set_token (f->server, TOKEN);
  pd_server_set_model (f->server, "replay");
  pd_server_add_allowed_origin (f->server, "https://proxy.example");
  if (approval_timeout > 0)
    pd_server_set_approval_timeout (f->server, approval_timeout);
  pd_server_set_engine_func (f->server, replay_engine, f, NULL);
  g_assert_true (pd_server_start (f->server, &error));
  g_assert_no_error (error);
  f->base = pd_server_dup_base_url (f->server);
  f->origin = g_strdup (f->base);
}

static inline void
set_replay (Fixture    *f,
            const char *json)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (f->replay_path, json, -1, &error));
}

static inline void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;

  f->dir = g_dir_make_tmp ("pd-server-ws-XXXXXX", &error);
  g_assert_no_error (error);
  f->db_path = g_build_filename (f->dir, "sessions.db", NULL);
  f->replay_path = g_build_filename (f->dir, "replay.json", NULL);
  set_replay (f, "{\"turns\":[{\"content\":\"Hello from the replay.\",\"input_tokens\":7,\"output_tokens\":3}]}");

  db = pd_db_open (f->db_path, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  f->store = pd_session_store_new (db);
  f->session = soup_session_new_with_options ("timeout", WAIT_SECONDS, NULL);

  start_server (f, GPOINTER_TO_UINT (data));
}

static inline void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_clear_object (&f->session);
  pd_server_stop (f->server);
  g_clear_object (&f->server);
  g_clear_object (&f->store);
  /* The client's closing handshakes, done. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  pd_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->db_path);
  g_free (f->replay_path);
  g_free (f->base);
  g_free (f->origin);
}

static inline gboolean
file_exists (Fixture    *f,
             const char *name)
{
  g_autofree char *path = g_build_filename (f->dir, name, NULL);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

/* ---------------------------------------------------------------------- */
/* REST                                                                   */

typedef struct
{
  guint       status;
  char       *body;
  JsonNode   *json;
  char       *session_token;
} Reply;

static inline void
reply_free (Reply *reply)
{
  g_free (reply->body);
  g_free (reply->session_token);
  g_clear_pointer (&reply->json, json_node_unref);
  g_free (reply);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Reply, reply_free)

static inline Reply *
request (Fixture    *f,
         const char *method,
         const char *path,
         const char *body,
         const char *session_token)
{
  g_autofree char *url = g_strconcat (f->base, path, NULL);
  g_autoptr(SoupMessage) msg = soup_message_new (method, url);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  Reply *reply = g_new0 (Reply, 1);

  soup_message_headers_replace (soup_message_get_request_headers (msg), "X-Odek-Ws-Token", TOKEN);
  if (session_token != NULL)
    soup_message_headers_replace (soup_message_get_request_headers (msg), "X-Session-Token", session_token);
  if (body != NULL)
    {
      g_autoptr(GBytes) request_body = g_bytes_new (body, strlen (body));
      soup_message_set_request_body_from_bytes (msg, "application/json", request_body);
    }
  bytes = soup_session_send_and_read (f->session, msg, NULL, &error);
  g_assert_no_error (error);
  reply->status = soup_message_get_status (msg);
  reply->body = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  reply->json = *reply->body ? json_from_string (reply->body, NULL) : NULL;
  reply->session_token = g_strdup (soup_message_headers_get_one (soup_message_get_response_headers (msg), "X-Session-Token"));
  return reply;
}

static inline JsonObject *
reply_object (Reply *reply)
{
  g_assert_nonnull (reply->json);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (reply->json));
  return json_node_get_object (reply->json);
}

static inline gint64
health_sockets (Fixture *f)
{
  g_autoptr(Reply) health = request (f, "GET", "/api/health", NULL, NULL);

  g_assert_cmpuint (health->status, ==, 200);
  return json_object_get_int_member (reply_object (health), "ws_connections");
}

/* ---------------------------------------------------------------------- */
/* The WebSocket client                                                   */

typedef struct
{
  SoupWebsocketConnection *conn;
  GPtrArray               *frames;     /* JsonObject, in order */
  guint                    status;     /* of the handshake */
  GError                  *error;      /* the handshake's */
  gboolean                 done;       /* the handshake is over */
  gboolean                 closed;
  gushort                  close_code;
  char                    *protocol;
} Client;

static inline void
client_free (Client *client)
{
  if (client->conn != NULL)
    {
      g_signal_handlers_disconnect_by_data (client->conn, client);
      if (soup_websocket_connection_get_state (client->conn) == SOUP_WEBSOCKET_STATE_OPEN)
        soup_websocket_connection_close (client->conn, SOUP_WEBSOCKET_CLOSE_NORMAL, NULL);
      g_object_unref (client->conn);
    }
  g_ptr_array_unref (client->frames);
  g_clear_error (&client->error);
  g_free (client->protocol);
  g_free (client);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Client, client_free)

static inline void
on_client_message (SoupWebsocketConnection *conn,
                   gint                     type,
                   GBytes                  *message,
                   gpointer                 user_data)
{
  Client *client = user_data;
  g_autoptr(JsonNode) node = NULL;

  g_assert_cmpint (type, ==, SOUP_WEBSOCKET_DATA_TEXT);
  node = json_from_string (g_bytes_get_data (message, NULL), NULL);
  g_assert_nonnull (node);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  g_ptr_array_add (client->frames, json_object_ref (json_node_get_object (node)));
}

static inline void
on_client_closed (SoupWebsocketConnection *conn,
                  gpointer                 user_data)
{
  Client *client = user_data;

  client->closed = TRUE;
  client->close_code = soup_websocket_connection_get_close_code (conn);
}

static inline void
on_connected (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  Client *client = user_data;

  client->conn = soup_session_websocket_connect_finish (SOUP_SESSION (object), result, &client->error);
  if (client->conn != NULL)
    {
      client->protocol = g_strdup (soup_websocket_connection_get_protocol (client->conn));
      g_signal_connect (client->conn, "message", G_CALLBACK (on_client_message), client);
      g_signal_connect (client->conn, "closed", G_CALLBACK (on_client_closed), client);
    }
  client->done = TRUE;
}

/* Runs the main context until @done says so, for at most WAIT_SECONDS. */
static inline void
spin_until (gboolean (*done) (gpointer),
            gpointer    data)
{
  gint64 deadline = g_get_monotonic_time () + WAIT_SECONDS * G_USEC_PER_SEC;

  while (!done (data))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static inline gboolean
client_connected (gpointer data)
{
  return ((Client *) data)->done;
}

/* @origin, @protocol_token (offered as odek.TOKEN), @cookie_token,
 * @header_token: each NULL for none. */
static inline Client *
client_open_full (Fixture    *f,
                  const char *origin,
                  const char *protocol_token,
                  const char *cookie_token,
                  const char *header_token)
{
  g_autofree char *url = g_strdup_printf ("ws://127.0.0.1:%u/ws", pd_server_get_port (f->server));
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);
  g_autofree char *protocol = protocol_token ? g_strconcat ("odek.", protocol_token, NULL) : NULL;
  char *protocols[] = { protocol, NULL };
  Client *client = g_new0 (Client, 1);

  client->frames = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  if (cookie_token != NULL)
    {
      g_autofree char *cookie = g_strdup_printf ("odek_ws_token=%s", cookie_token);
      soup_message_headers_replace (soup_message_get_request_headers (msg), "Cookie", cookie);
    }
  if (header_token != NULL)
    soup_message_headers_replace (soup_message_get_request_headers (msg), "X-Odek-Ws-Token", header_token);

  soup_session_websocket_connect_async (f->session, msg, origin, protocol ? protocols : NULL, G_PRIORITY_DEFAULT,
                                        NULL, on_connected, client);
  spin_until (client_connected, client);
  client->status = soup_message_get_status (msg);
  return client;
}

/* As odek's browser UI: the page's origin and the token as subprotocol. */
static inline Client *
client_open (Fixture *f)
{
  Client *client = client_open_full (f, f->origin, TOKEN, NULL, NULL);

  g_assert_no_error (client->error);
  g_assert_nonnull (client->conn);
  return client;
}

static inline void
client_send (Client     *client,
             JsonObject *frame)   /* (transfer full) */
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), frame);
  g_autofree char *text = json_to_string (node, FALSE);

  json_object_unref (frame);
  soup_websocket_connection_send_text (client->conn, text);
}

static inline JsonObject *
prompt_new (const char *content,
            const char *session_id,
            const char *auth_token)
{
  JsonObject *frame = json_object_new ();

  json_object_set_string_member (frame, "type", "prompt");
  json_object_set_string_member (frame, "content", content);
  json_object_set_array_member (frame, "attachments", json_array_new ());
  if (session_id != NULL)
    json_object_set_string_member (frame, "session_id", session_id);
  else
    json_object_set_null_member (frame, "session_id");
  if (auth_token != NULL)
    json_object_set_string_member (frame, "auth_token", auth_token);
  json_object_set_string_member (frame, "thinking", "");
  return frame;
}

static const char *
frame_type (JsonObject *frame)
{
  return json_object_get_string_member (frame, "type");
}

typedef struct
{
  Client     *client;
  guint       from;
  const char *type;
  guint       found;
} FrameWait;

static inline gboolean
frame_arrived (gpointer data)
{
  FrameWait *wait = data;

  for (guint i = wait->from; i < wait->client->frames->len; i++)
    if (g_strcmp0 (frame_type (g_ptr_array_index (wait->client->frames, i)), wait->type) == 0)
      {
        wait->found = i;
        return TRUE;
      }
  return wait->client->closed;
}

/* The index of the first frame of @type at @from or after, waiting for it. */
static inline guint
client_wait (Client     *client,
             guint       from,
             const char *type)
{
  FrameWait wait = { client, from, type, G_MAXUINT };

  spin_until (frame_arrived, &wait);
  if (wait.found == G_MAXUINT)
    g_error ("the socket closed before a %s frame", type);
  return wait.found;
}

static inline gboolean
is_terminator (JsonObject *frame)
{
  return g_strcmp0 (frame_type (frame), "done") == 0 || g_strcmp0 (frame_type (frame), "error") == 0;
}

/* Waits for the prompt's end: the index of its `done` or `error`, the one
 * terminator of the frames since @from. */
static inline guint
client_wait_end (Client *client,
                 guint   from)
{
  guint end = G_MAXUINT;
  gint64 deadline = g_get_monotonic_time () + WAIT_SECONDS * G_USEC_PER_SEC;

  while (end == G_MAXUINT)
    {
      for (guint i = from; i < client->frames->len && end == G_MAXUINT; i++)
        if (is_terminator (g_ptr_array_index (client->frames, i)))
          end = i;
      if (end != G_MAXUINT)
        break;
      g_assert_false (client->closed);
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  return end;
}

/* Waits for the first frame since @from that is of @type or ends the
 * prompt: its index (the prompt may end without one). */
static inline guint
client_wait_end_or (Client     *client,
                    guint       from,
                    const char *type)
{
  gint64 deadline = g_get_monotonic_time () + WAIT_SECONDS * G_USEC_PER_SEC;

  for (;;)
    {
      for (guint i = from; i < client->frames->len; i++)
        {
          JsonObject *frame = g_ptr_array_index (client->frames, i);

          if (is_terminator (frame) || g_strcmp0 (frame_type (frame), type) == 0)
            return i;
        }
      g_assert_false (client->closed);
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static inline gboolean
client_is_closed (gpointer data)
{
  return ((Client *) data)->closed;
}

/* Frames keep coming a little after the end: none may be a second end. */
static inline void
assert_one_terminator (Client *client,
                       guint   from)
{
  guint n = 0;

  for (guint i = 0; i < 20; i++)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (5000);
    }
  for (guint i = from; i < client->frames->len; i++)
    n += is_terminator (g_ptr_array_index (client->frames, i));
  g_assert_cmpuint (n, ==, 1);
}

/* ---------------------------------------------------------------------- */
/* The handshake                                                          */

static inline gboolean
no_sockets (gpointer data)
{
  Fixture *f = data;

  g_main_context_iteration (NULL, FALSE);
  return health_sockets (f) == 0;
}

/* Loopback, never through a proxy of the machine. */
static inline void
pd_test_serve_ws_init (int    *argc,
                       char ***argv)
{
  const char *proxies[] = { "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY" };

  g_test_init (argc, argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (proxies); i++)
    g_unsetenv (proxies[i]);
}

#define ADD(path, func, data) \
  g_test_add (path, Fixture, GUINT_TO_POINTER (data), fixture_set_up, func, fixture_tear_down)
