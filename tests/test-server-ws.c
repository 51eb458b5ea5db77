/* test-server-ws.c: /ws, odek's WebSocket, on PdServer, through libsoup's
 * own WebSocket client; and the approval questions of REST runs.
 *
 * The server runs in its own thread on loopback port 0; the client is a
 * SoupSession on the test's main context.  Runs use the replay provider
 * against the real tools in a temporary folder, asking approvals of the
 * person watching as `serve` does.
 */
#define G_LOG_DOMAIN "test-server-ws"

#include "config.h"

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

static PdEngine *
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
  if (!(provider = pd_provider_new_for_name ("replay", NULL, NULL, f->replay_path, error)))
    return NULL;
  if (!(context = pd_tool_context_new (f->dir, error)))
    return NULL;
  pd_tool_registry_add_builtins (tools, plan_store);

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

static void
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

static void
set_replay (Fixture    *f,
            const char *json)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (f->replay_path, json, -1, &error));
}

static void
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

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

static void
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
  remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->db_path);
  g_free (f->replay_path);
  g_free (f->base);
  g_free (f->origin);
}

static gboolean
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

static void
reply_free (Reply *reply)
{
  g_free (reply->body);
  g_free (reply->session_token);
  g_clear_pointer (&reply->json, json_node_unref);
  g_free (reply);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Reply, reply_free)

static Reply *
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

static JsonObject *
reply_object (Reply *reply)
{
  g_assert_nonnull (reply->json);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (reply->json));
  return json_node_get_object (reply->json);
}

static gint64
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

static void
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

static void
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

static void
on_client_closed (SoupWebsocketConnection *conn,
                  gpointer                 user_data)
{
  Client *client = user_data;

  client->closed = TRUE;
  client->close_code = soup_websocket_connection_get_close_code (conn);
}

static void
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
static void
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

static gboolean
client_connected (gpointer data)
{
  return ((Client *) data)->done;
}

/* @origin, @protocol_token (offered as odek.TOKEN), @cookie_token,
 * @header_token: each NULL for none. */
static Client *
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
static Client *
client_open (Fixture *f)
{
  Client *client = client_open_full (f, f->origin, TOKEN, NULL, NULL);

  g_assert_no_error (client->error);
  g_assert_nonnull (client->conn);
  return client;
}

static void
client_send (Client     *client,
             JsonObject *frame)   /* (transfer full) */
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), frame);
  g_autofree char *text = json_to_string (node, FALSE);

  json_object_unref (frame);
  soup_websocket_connection_send_text (client->conn, text);
}

static JsonObject *
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

static gboolean
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
static guint
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

static gboolean
is_terminator (JsonObject *frame)
{
  return g_strcmp0 (frame_type (frame), "done") == 0 || g_strcmp0 (frame_type (frame), "error") == 0;
}

/* Waits for the prompt's end: the index of its `done` or `error`, the one
 * terminator of the frames since @from. */
static guint
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

static gboolean
client_is_closed (gpointer data)
{
  return ((Client *) data)->closed;
}

/* Frames keep coming a little after the end: none may be a second end. */
static void
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

static gboolean
no_sockets (gpointer data)
{
  Fixture *f = data;

  g_main_context_iteration (NULL, FALSE);
  return health_sockets (f) == 0;
}

/* Token by subprotocol (echoed, or a browser drops the socket), cookie or
 * header; without one, a wrong one, a foreign origin or Host: 403 before
 * any socket. */
static void
test_handshake (Fixture       *f,
                gconstpointer  data)
{
  {
    g_autoptr(Client) client = client_open (f);
    g_autofree char *expected = g_strconcat ("odek.", TOKEN, NULL);

    g_assert_cmpstr (client->protocol, ==, expected);
  }
  {
    g_autoptr(Client) cookie = client_open_full (f, f->origin, NULL, TOKEN, NULL);
    g_autoptr(Client) header = client_open_full (f, NULL, NULL, NULL, TOKEN);

    g_assert_no_error (cookie->error);
    g_assert_null (cookie->protocol);
    g_assert_no_error (header->error);
  }
  {
    g_autoptr(Client) none = client_open_full (f, f->origin, NULL, NULL, NULL);
    g_autoptr(Client) wrong = client_open_full (f, f->origin, "ffff", NULL, NULL);
    g_autoptr(Client) wrong_cookie = client_open_full (f, f->origin, NULL, "ffff", NULL);

    g_assert_null (none->conn);
    g_assert_cmpuint (none->status, ==, 403);
    g_assert_null (wrong->conn);
    g_assert_cmpuint (wrong->status, ==, 403);
    g_assert_null (wrong_cookie->conn);
    g_assert_cmpuint (wrong_cookie->status, ==, 403);
  }
  {
    /* A page elsewhere, another port of this machine included: the
     * cookie would ride along (SameSite ignores ports), the Origin does
     * not lie. */
    g_autoptr(Client) evil = client_open_full (f, "http://evil.test", TOKEN, TOKEN, NULL);
    g_autoptr(Client) other_port = client_open_full (f, "http://127.0.0.1:1", TOKEN, TOKEN, NULL);
    g_autoptr(Client) null_origin = client_open_full (f, "null", TOKEN, TOKEN, NULL);
    g_autoptr(Client) proxy = client_open_full (f, "https://proxy.example", TOKEN, NULL, NULL);

    g_assert_null (evil->conn);
    g_assert_cmpuint (evil->status, ==, 403);
    g_assert_null (other_port->conn);
    g_assert_cmpuint (other_port->status, ==, 403);
    g_assert_null (null_origin->conn);
    g_assert_cmpuint (null_origin->status, ==, 403);
    g_assert_no_error (proxy->error);
  }
  spin_until (no_sockets, f);
}

/* A raw upgrade: what a browser never sends (another Host, deflate). */
static char *
raw_upgrade (Fixture    *f,
             const char *extra)
{
  struct sockaddr_in addr = { 0 };
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  g_autofree char *text = g_strdup_printf ("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nUpgrade: websocket\r\n"
                                           "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                                           "Sec-WebSocket-Version: 13\r\nX-Odek-Ws-Token: %s\r\n%s\r\n",
                                           pd_server_get_port (f->server), TOKEN, extra);
  GString *answer = g_string_new (NULL);

  addr.sin_family = AF_INET;
  addr.sin_port = htons (pd_server_get_port (f->server));
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  g_assert_cmpint (connect (fd, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  g_assert_cmpint (send (fd, text, strlen (text), MSG_NOSIGNAL), ==, (gssize) strlen (text));
  while (strstr (answer->str, "\r\n\r\n") == NULL)
    {
      struct pollfd pfd = { fd, POLLIN, 0 };
      char buffer[1024];
      ssize_t n;

      g_assert_cmpint (poll (&pfd, 1, WAIT_SECONDS * 1000), ==, 1);
      n = recv (fd, buffer, sizeof buffer, 0);
      if (n <= 0)
        break;
      g_string_append_len (answer, buffer, n);
    }
  close (fd);
  return g_string_free (answer, FALSE);
}

static void
test_handshake_raw (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *plain = raw_upgrade (f, "");
  g_autofree char *deflate = raw_upgrade (f, "Sec-WebSocket-Extensions: permessage-deflate\r\n");
  g_autofree char *evil_host = NULL;

  g_assert_true (g_str_has_prefix (plain, "HTTP/1.1 101 "));
  /* No deflate: a small frame could inflate past any limit. */
  g_assert_true (g_str_has_prefix (deflate, "HTTP/1.1 101 "));
  g_assert_null (strstr (deflate, "permessage-deflate"));

  {
    struct sockaddr_in addr = { 0 };
    int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const char *text = "GET /ws HTTP/1.1\r\nHost: evil.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                       "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                       "X-Odek-Ws-Token: " TOKEN "\r\n\r\n";
    char buffer[512] = { 0 };
    struct pollfd pfd;

    addr.sin_family = AF_INET;
    addr.sin_port = htons (pd_server_get_port (f->server));
    addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    g_assert_cmpint (connect (fd, (struct sockaddr *) &addr, sizeof addr), ==, 0);
    g_assert_cmpint (send (fd, text, strlen (text), MSG_NOSIGNAL), ==, (gssize) strlen (text));
    pfd.fd = fd;
    pfd.events = POLLIN;
    g_assert_cmpint (poll (&pfd, 1, WAIT_SECONDS * 1000), ==, 1);
    g_assert_cmpint (recv (fd, buffer, sizeof buffer - 1, 0), >, 0);
    evil_host = g_strdup (buffer);
    close (fd);
  }
  /* DNS rebinding: a name that is not ours gets no socket. */
  g_assert_true (g_str_has_prefix (evil_host, "HTTP/1.1 403 "));
}


/* 20 sockets at once, as odek; the 21st is refused until one closes. */
static void
test_too_many_sockets (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(GPtrArray) clients = g_ptr_array_new_with_free_func ((GDestroyNotify) client_free);

  for (guint i = 0; i < PD_SERVER_MAX_SOCKETS; i++)
    g_ptr_array_add (clients, client_open (f));
  g_assert_cmpint (health_sockets (f), ==, PD_SERVER_MAX_SOCKETS);

  {
    g_autoptr(Client) one_more = client_open_full (f, f->origin, TOKEN, NULL, NULL);

    g_assert_null (one_more->conn);
    g_assert_cmpuint (one_more->status, ==, 503);
  }

  g_ptr_array_set_size (clients, 0);
  spin_until (no_sockets, f);
}

static gboolean
fewer_than_max (gpointer data)
{
  Fixture *f = data;

  g_main_context_iteration (NULL, FALSE);
  return health_sockets (f) < PD_SERVER_MAX_SOCKETS;
}

static void
test_slot_freed (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(GPtrArray) clients = g_ptr_array_new_with_free_func ((GDestroyNotify) client_free);

  for (guint i = 0; i < PD_SERVER_MAX_SOCKETS; i++)
    g_ptr_array_add (clients, client_open (f));
  g_ptr_array_remove_index (clients, 0);
  spin_until (fewer_than_max, f);
  {
    g_autoptr(Client) again = client_open (f);
    g_assert_nonnull (again->conn);
  }
}

/* 30 upgrades a minute from one client (odek's), when limits are on. */
static void
test_upgrade_rate (Fixture       *f,
                   gconstpointer  data)
{
  guint refused = 0;

  for (guint i = 0; i < PD_SERVER_SOCKET_RATE + 1; i++)
    {
      g_autoptr(Client) client = client_open_full (f, f->origin, TOKEN, NULL, NULL);

      if (client->conn == NULL)
        {
          g_assert_cmpuint (client->status, ==, 429);
          refused++;
        }
    }
  g_assert_cmpuint (refused, ==, 1);
}

/* ---------------------------------------------------------------------- */
/* Frames                                                                 */

/* A frame past 8 MiB closes the socket (1009, too big); one of 4 MiB, an
 * attachment's size, is a prompt like any. */
static void
test_huge_frames (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autoptr(Client) small = client_open (f);
  JsonObject *prompt = prompt_new ("Read this", NULL, NULL);
  JsonArray *attachments = json_array_new ();
  JsonObject *attachment = json_object_new ();
  g_autofree char *four = g_malloc (4 * 1024 * 1024 + 1);
  g_autofree char *nine = g_malloc (9 * 1024 * 1024 + 1);
  guint start;

  memset (four, 'a', 4 * 1024 * 1024);
  four[4 * 1024 * 1024] = '\0';
  json_object_set_string_member (attachment, "name", "big.txt");
  json_object_set_string_member (attachment, "content", four);
  json_array_add_object_element (attachments, attachment);
  json_object_set_array_member (prompt, "attachments", attachments);
  client_send (small, prompt);
  start = client_wait (small, 0, "session");
  g_assert_cmpuint (client_wait_end (small, start), >, start);
  g_assert_cmpstr (frame_type (g_ptr_array_index (small->frames, client_wait_end (small, start))), ==, "done");

  memset (nine, ' ', 9 * 1024 * 1024);
  nine[9 * 1024 * 1024] = '\0';
  soup_websocket_connection_send_text (client->conn, nine);
  spin_until (client_is_closed, client);
  /* Closed at once, without a closing handshake (libsoup's way). */
  g_assert_cmpuint (client->close_code, !=, SOUP_WEBSOCKET_CLOSE_NORMAL);
  g_assert_cmpuint (client->frames->len, ==, 0);
}

/* A raw socket after the handshake: frames as an attacker writes them. */
static int
ws_raw_open (Fixture *f)
{
  struct sockaddr_in addr = { 0 };
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  g_autofree char *text = g_strdup_printf ("GET /ws HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nUpgrade: websocket\r\n"
                                           "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                                           "Sec-WebSocket-Version: 13\r\nX-Odek-Ws-Token: %s\r\n\r\n",
                                           pd_server_get_port (f->server), TOKEN);
  g_autoptr(GString) head = g_string_new (NULL);

  addr.sin_family = AF_INET;
  addr.sin_port = htons (pd_server_get_port (f->server));
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  g_assert_cmpint (connect (fd, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  g_assert_cmpint (send (fd, text, strlen (text), MSG_NOSIGNAL), ==, (gssize) strlen (text));
  /* Byte by byte up to the end of the head: nothing of a frame is taken. */
  while (!g_str_has_suffix (head->str, "\r\n\r\n"))
    {
      char c;

      g_assert_cmpint (recv (fd, &c, 1, 0), ==, 1);
      g_string_append_c (head, c);
    }
  g_assert_true (g_str_has_prefix (head->str, "HTTP/1.1 101 "));
  return fd;
}

/* One masked frame (a zero mask: the payload as is); FALSE once the server
 * has closed. */
static gboolean
ws_raw_frame (int         fd,
              gboolean    fin,
              guint       opcode,
              const char *payload,
              gsize       len)
{
  guint8 header[14];
  gsize at = 0, sent = 0;

  header[at++] = (fin ? 0x80 : 0) | opcode;
  if (len < 126)
    header[at++] = 0x80 | len;
  else if (len <= G_MAXUINT16)
    {
      header[at++] = 0x80 | 126;
      header[at++] = len >> 8;
      header[at++] = len & 0xff;
    }
  else
    {
      header[at++] = 0x80 | 127;
      for (int i = 7; i >= 0; i--)
        header[at++] = ((guint64) len >> (8 * i)) & 0xff;
    }
  memset (header + at, 0, 4);
  at += 4;
  if (send (fd, header, at, MSG_NOSIGNAL) != (gssize) at)
    return FALSE;
  while (sent < len)
    {
      ssize_t n = send (fd, payload + sent, len - sent, MSG_NOSIGNAL);

      if (n <= 0)
        return FALSE;
      sent += (gsize) n;
    }
  return TRUE;
}

/* The payload of the next text frame from the server (unmasked), or NULL
 * when it closes. */
static char *
ws_raw_read_text (int fd)
{
  for (;;)
    {
      guint8 header[10];
      guint64 len;
      g_autofree char *payload = NULL;
      gsize got = 0;

      if (recv (fd, header, 2, MSG_WAITALL) != 2)
        return NULL;
      len = header[1] & 0x7f;
      if (len == 126)
        {
          if (recv (fd, header + 2, 2, MSG_WAITALL) != 2)
            return NULL;
          len = ((guint64) header[2] << 8) | header[3];
        }
      else if (len == 127)
        {
          if (recv (fd, header + 2, 8, MSG_WAITALL) != 8)
            return NULL;
          len = 0;
          for (int i = 0; i < 8; i++)
            len = (len << 8) | header[2 + i];
        }
      payload = g_malloc (len + 1);
      while (got < len)
        {
          ssize_t n = recv (fd, payload + got, len - got, 0);

          if (n <= 0)
            return NULL;
          got += (gsize) n;
        }
      payload[len] = '\0';
      if ((header[0] & 0x0f) == 0x1)
        return g_steal_pointer (&payload);
      if ((header[0] & 0x0f) == 0x8)
        return NULL;
    }
}

/* libsoup 3.2 caps a frame, not a message: fragments of less than 8 MiB
 * each, never the last, would grow its buffer without end.  The meter
 * closes the socket once a message passes 8 MiB; a prompt in a few
 * fragments is read as one. */
static void
test_fragmented_message (Fixture       *f,
                         gconstpointer  data)
{
  gsize piece = 1024 * 1024;
  g_autofree char *spaces = g_malloc (piece);
  int fd = ws_raw_open (f);
  const char *prompt = "{\"type\":\"prompt\",\"content\":\"In three pieces\",\"session_id\":null}";
  g_autofree char *first = NULL;
  struct pollfd pfd;
  guint sent = 0;
  char byte;

  /* Three fragments, one message. */
  g_assert_true (ws_raw_frame (fd, FALSE, 0x1, prompt, 10));
  g_assert_true (ws_raw_frame (fd, FALSE, 0x0, prompt + 10, 20));
  g_assert_true (ws_raw_frame (fd, TRUE, 0x0, prompt + 30, strlen (prompt) - 30));
  first = ws_raw_read_text (fd);
  g_assert_nonnull (first);
  g_assert_nonnull (strstr (first, "\"type\":\"session\""));

  /* Then a message of endless 1 MiB fragments. */
  memset (spaces, ' ', piece);
  if (ws_raw_frame (fd, FALSE, 0x1, spaces, piece))
    for (sent = 1; sent < 64; sent++)
      if (!ws_raw_frame (fd, FALSE, 0x0, spaces, piece))
        break;
  /* Refused by the ninth MiB: the rest could not even be sent. */
  g_assert_cmpuint (sent, <, 64);

  pfd.fd = fd;
  pfd.events = POLLIN;
  for (;;)
    {
      ssize_t n;

      g_assert_cmpint (poll (&pfd, 1, WAIT_SECONDS * 1000), ==, 1);
      n = recv (fd, &byte, 1, 0);
      if (n <= 0)
        break;
    }
  close (fd);
  spin_until (no_sockets, f);
}

/* What the client sends that is no prompt gets nothing (odek's UI ignores
 * what it cannot read; so does the server), and the socket stays. */
static void
test_junk_frames (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autoptr(GString) deep = g_string_new (NULL);
  guint start;

  for (guint i = 0; i < 100000; i++)
    g_string_append_c (deep, '[');
  soup_websocket_connection_send_text (client->conn, "not json");
  soup_websocket_connection_send_text (client->conn, "[1,2]");
  soup_websocket_connection_send_text (client->conn, deep->str);
  soup_websocket_connection_send_text (client->conn, "{\"type\":\"nonsense\"}");
  soup_websocket_connection_send_text (client->conn, "{\"type\":\"approval_response\",\"id\":\"apr-0\",\"action\":\"approve\"}");
  soup_websocket_connection_send_binary (client->conn, "\x00\x01", 2);

  client_send (client, prompt_new ("Hi", NULL, NULL));
  start = client_wait (client, 0, "session");
  /* The junk made no frame: the prompt's session is the first. */
  g_assert_cmpuint (start, ==, 0);
  client_wait_end (client, start);
}

/* ---------------------------------------------------------------------- */
/* Prompts                                                                */

/* A new session, then its continuation on the same socket: `session` first
 * (the session saved), the answer as one `token`, then `done`; the second
 * prompt's `session` names the same session. */
static void
test_prompt (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autofree char *session_id = NULL;
  g_autofree char *auth_token = NULL;
  JsonObject *session, *token, *done;
  guint end, second;

  client_send (client, prompt_new ("Say hello, please", NULL, NULL));
  end = client_wait_end (client, 0);
  assert_one_terminator (client, 0);
  g_assert_cmpuint (client->frames->len, ==, 3);

  session = g_ptr_array_index (client->frames, 0);
  g_assert_cmpstr (frame_type (session), ==, "session");
  session_id = g_strdup (json_object_get_string_member (session, "session_id"));
  auth_token = g_strdup (json_object_get_string_member (session, "auth_token"));
  g_assert_true (pd_session_id_is_valid (session_id));
  g_assert_cmpuint (strlen (auth_token), ==, 64);
  g_assert_cmpstr (json_object_get_string_member (session, "model"), ==, "replay");
  g_assert_false (json_object_get_boolean_member (session, "sandbox"));

  token = g_ptr_array_index (client->frames, 1);
  g_assert_cmpstr (frame_type (token), ==, "token");
  g_assert_cmpstr (json_object_get_string_member (token, "content"), ==, "Hello from the replay.");
  done = g_ptr_array_index (client->frames, end);
  g_assert_cmpstr (frame_type (done), ==, "done");
  g_assert_cmpint (json_object_get_int_member (done, "contextTokens"), ==, 7);
  g_assert_cmpint (json_object_get_int_member (done, "outputTokens"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (done, "sessionOutputTokens"), ==, 3);
  g_assert_true (json_object_get_double_member (done, "latency") >= 0);

  /* Saved before `session` was said, and readable with that token. */
  {
    g_autofree char *path = g_strdup_printf ("/api/sessions/%s", session_id);
    g_autoptr(Reply) record = request (f, "GET", path, NULL, auth_token);
    JsonArray *messages;

    g_assert_cmpuint (record->status, ==, 200);
    messages = json_object_get_array_member (reply_object (record), "messages");
    g_assert_cmpuint (json_array_get_length (messages), >=, 2);
  }

  second = client->frames->len;
  client_send (client, prompt_new ("And again", session_id, auth_token));
  end = client_wait_end (client, second);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "done");
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (client->frames, second), "session_id"), ==,
                   session_id);
  g_assert_cmpint (json_object_get_int_member (g_ptr_array_index (client->frames, end), "sessionOutputTokens"), ==, 6);
  {
    g_autofree char *path = g_strdup_printf ("/api/sessions/%s", session_id);
    g_autoptr(Reply) record = request (f, "GET", path, NULL, auth_token);

    g_assert_cmpint (json_object_get_int_member (reply_object (record), "turns"), ==, 2);
  }

  /* No session id: a new session, always. */
  second = client->frames->len;
  client_send (client, prompt_new ("Another", NULL, NULL));
  client_wait_end (client, second);
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (client->frames, second), "session_id"), !=,
                   session_id);
}

/* Continuing a session from another socket needs its token; validation
 * errors are one `error` and nothing else. */
static void
test_prompt_errors (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(Client) first = client_open (f);
  g_autoptr(Client) other = client_open (f);
  g_autofree char *session_id = NULL;
  g_autofree char *auth_token = NULL;
  struct { JsonObject *frame; const char *message; } cases[9];
  guint end;

  client_send (first, prompt_new ("Start", NULL, NULL));
  client_wait_end (first, 0);
  session_id = g_strdup (json_object_get_string_member (g_ptr_array_index (first->frames, 0), "session_id"));
  auth_token = g_strdup (json_object_get_string_member (g_ptr_array_index (first->frames, 0), "auth_token"));

  cases[0].frame = prompt_new ("Take it", session_id, NULL);
  cases[0].message = "invalid session token";
  cases[1].frame = prompt_new ("Take it", session_id, "0000");
  cases[1].message = "invalid session token";
  cases[2].frame = prompt_new ("Hi", "20260101-0123456789abcdef0123456789abcdef", auth_token);
  cases[2].message = "session not found";
  cases[3].frame = prompt_new ("Hi", "../../etc", auth_token);
  cases[3].message = "session not found";
  cases[4].frame = prompt_new ("Hi", NULL, NULL);
  json_object_set_string_member (cases[4].frame, "model", "a b");
  cases[4].message = "invalid model ID";
  cases[5].frame = prompt_new ("   ", NULL, NULL);
  cases[5].message = "empty prompt: write a message or attach a file";
  cases[6].frame = prompt_new ("Hi", NULL, NULL);
  json_object_set_int_member (cases[6].frame, "session_id", 5);
  cases[6].message = "invalid session id";
  {
    g_autofree char *long_text = g_malloc (1024 * 1024 + 2);

    memset (long_text, 'x', 1024 * 1024 + 1);
    long_text[1024 * 1024 + 1] = '\0';
    cases[7].frame = prompt_new (long_text, NULL, NULL);
    cases[7].message = "prompt exceeds maximum size";
  }
  cases[8].frame = prompt_new ("Hi", NULL, NULL);
  json_object_set_int_member (cases[8].frame, "content", 3);
  cases[8].message = "content must be a string";

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      guint from = other->frames->len;

      client_send (other, cases[i].frame);
      end = client_wait_end (other, from);
      g_assert_cmpuint (end, ==, from);
      g_assert_cmpstr (frame_type (g_ptr_array_index (other->frames, end)), ==, "error");
      g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (other->frames, end), "message"), ==,
                       cases[i].message);
    }

  /* With the token it continues. */
  {
    guint from = other->frames->len;

    client_send (other, prompt_new ("Take it", session_id, auth_token));
    end = client_wait_end (other, from);
    g_assert_cmpstr (frame_type (g_ptr_array_index (other->frames, end)), ==, "done");
    g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (other->frames, from), "session_id"), ==,
                     session_id);
  }
}

/* Prompts sent while one runs wait their turn; each gets its own end. */
static void
test_prompt_queue (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  guint ends = 0, busy = 0;

  set_replay (f, "{\"turns\":[{\"content\":\"Slowly\",\"delay_ms\":300}]}");
  for (guint i = 0; i < 10; i++)
    client_send (client, prompt_new ("One of many", NULL, NULL));

  while (ends < 10)
    {
      g_main_context_iteration (NULL, FALSE);
      ends = 0;
      busy = 0;
      for (guint i = 0; i < client->frames->len; i++)
        {
          JsonObject *frame = g_ptr_array_index (client->frames, i);

          ends += is_terminator (frame);
          busy += g_strcmp0 (json_object_get_string_member_with_default (frame, "message", ""),
                             "busy: a prompt is already running") == 0;
        }
      g_assert_false (client->closed);
      g_usleep (1000);
    }
  /* One runs, seven wait, two are turned away. */
  g_assert_cmpuint (busy, ==, 2);
}

/* Tool calls, each before any runs, then the results in call order. */
static void
test_tool_events (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autofree char *notes = g_build_filename (f->dir, "notes.txt", NULL);
  g_autoptr(GError) error = NULL;
  JsonObject *call, *result;
  guint end, first_call, first_result;

  g_assert_true (g_file_set_contents (notes, "a note", -1, &error));
  set_replay (f, "{\"turns\":["
                 "{\"reasoning\":\"Let me look.\",\"tool_calls\":["
                 "{\"name\":\"read_file\",\"arguments\":{\"path\":\"notes.txt\"}},"
                 "{\"name\":\"list_dir\",\"arguments\":{\"path\":\".\"}}]},"
                 "{\"content\":\"It says: a note\"}]}");
  client_send (client, prompt_new ("What do the notes say?", NULL, NULL));
  end = client_wait_end (client, 0);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "done");

  first_call = client_wait (client, 0, "tool_call");
  first_result = client_wait (client, 0, "tool_result");
  /* The reasoning before the calls, as one piece. */
  g_assert_cmpuint (client_wait (client, 0, "thinking"), ==, first_call - 1);
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (client->frames, first_call - 1), "content"), ==,
                   "Let me look.");
  g_assert_cmpuint (first_result, ==, first_call + 2);
  call = g_ptr_array_index (client->frames, first_call);
  g_assert_cmpstr (json_object_get_string_member (call, "name"), ==, "read_file");
  g_assert_nonnull (strstr (json_object_get_string_member (call, "data"), "notes.txt"));
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (client->frames, first_call + 1), "name"), ==,
                   "list_dir");
  result = g_ptr_array_index (client->frames, first_result);
  g_assert_cmpstr (json_object_get_string_member (result, "name"), ==, "read_file");
  g_assert_nonnull (strstr (json_object_get_string_member (result, "data"), "a note"));
  g_assert_cmpstr (json_object_get_string_member (g_ptr_array_index (client->frames, first_result + 1), "name"), ==,
                   "list_dir");
  /* The answer after every tool event. */
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end - 1)), ==, "token");
  g_assert_cmpuint (end - 1, >, first_result + 1);
}

/* ---------------------------------------------------------------------- */
/* Approvals                                                              */

#define WRITE_TURNS(path) \
  "{\"turns\":[{\"tool_calls\":[{\"name\":\"write_file\",\"arguments\":{\"path\":\"" path "\",\"content\":\"x\"}}]}," \
  "{\"content\":\"Wrote it.\"}]}"

static JsonObject *
approval_response (JsonObject *request,
                   const char *action)
{
  JsonObject *frame = json_object_new ();

  json_object_set_string_member (frame, "type", "approval_response");
  json_object_set_string_member (frame, "id", json_object_get_string_member (request, "id"));
  json_object_set_string_member (frame, "action", action);
  return frame;
}

/* A write needs a person: the tool waits for approval_response (the socket
 * is read while it waits), and runs only when approved. */
static void
test_approval (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autofree char *approved = g_build_filename (f->dir, "approved.txt", NULL);
  g_autofree char *denied = g_build_filename (f->dir, "denied.txt", NULL);
  JsonObject *request_frame;
  guint asked, end, from;

  set_replay (f, WRITE_TURNS ("approved.txt"));
  client_send (client, prompt_new ("Write it", NULL, NULL));
  asked = client_wait (client, 0, "approval_request");
  request_frame = g_ptr_array_index (client->frames, asked);
  g_assert_true (g_str_has_prefix (json_object_get_string_member (request_frame, "id"), "apr-"));
  g_assert_cmpuint (strlen (json_object_get_string_member (request_frame, "id")), ==, 4 + 16);
  g_assert_cmpstr (json_object_get_string_member (request_frame, "risk"), ==, "local_write");
  g_assert_nonnull (strstr (json_object_get_string_member (request_frame, "command"), "approved.txt"));
  g_assert_cmpstr (json_object_get_string_member (request_frame, "description"), ==, "tool=write_file");
  g_assert_false (json_object_get_boolean_member (request_frame, "is_operation"));
  g_assert_true (json_object_get_boolean_member (request_frame, "allow_trust"));
  g_assert_false (json_object_get_boolean_member (request_frame, "friction"));
  /* The call was told before the question. */
  g_assert_cmpuint (client_wait (client, 0, "tool_call"), <, asked);
  /* Nothing written while it waits. */
  g_assert_false (g_file_test (approved, G_FILE_TEST_EXISTS));

  client_send (client, approval_response (request_frame, "approve"));
  end = client_wait_end (client, asked);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "done");
  g_assert_cmpuint (client_wait (client, asked, "approval_ack"), <, end);
  g_assert_true (g_file_test (approved, G_FILE_TEST_EXISTS));
  assert_one_terminator (client, 0);

  /* Denied: the tool does not run, the model hears so, the turn goes on. */
  set_replay (f, WRITE_TURNS ("denied.txt"));
  from = client->frames->len;
  client_send (client, prompt_new ("Write the other", NULL, NULL));
  asked = client_wait (client, from, "approval_request");
  client_send (client, approval_response (g_ptr_array_index (client->frames, asked), "deny"));
  end = client_wait_end (client, asked);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "done");
  {
    JsonObject *result = g_ptr_array_index (client->frames, client_wait (client, asked, "tool_result"));

    g_assert_nonnull (strstr (json_object_get_string_member (result, "data"), "denied"));
  }
  g_assert_false (g_file_test (denied, G_FILE_TEST_EXISTS));
}

/* Trust: the class is not asked again on this socket, and only there. */
static void
test_approval_trust (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autoptr(Client) other = NULL;
  guint asked, from, end;

  set_replay (f, WRITE_TURNS ("one.txt"));
  client_send (client, prompt_new ("Write one", NULL, NULL));
  asked = client_wait (client, 0, "approval_request");
  client_send (client, approval_response (g_ptr_array_index (client->frames, asked), "trust"));
  client_wait_end (client, asked);

  set_replay (f, WRITE_TURNS ("two.txt"));
  from = client->frames->len;
  client_send (client, prompt_new ("Write two", NULL, NULL));
  end = client_wait_end (client, from);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "done");
  for (guint i = from; i < end; i++)
    g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, i)), !=, "approval_request");
  g_assert_true (file_exists (f, "two.txt"));

  /* Another socket is asked. */
  other = client_open (f);
  set_replay (f, WRITE_TURNS ("three.txt"));
  client_send (other, prompt_new ("Write three", NULL, NULL));
  asked = client_wait (other, 0, "approval_request");
  client_send (other, approval_response (g_ptr_array_index (other->frames, asked), "deny"));
  client_wait_end (other, asked);
}

/* Nobody answers: after the timeout the call is denied and the prompt ends
 * with its one terminator; nothing approves by default. */
static void
test_approval_never_answered (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autofree char *path = g_build_filename (f->dir, "never.txt", NULL);
  guint asked, end;

  set_replay (f, WRITE_TURNS ("never.txt"));
  client_send (client, prompt_new ("Write it", NULL, NULL));
  asked = client_wait (client, 0, "approval_request");
  end = client_wait_end (client, asked);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "done");
  g_assert_nonnull (strstr (json_object_get_string_member (g_ptr_array_index (client->frames,
                                                                              client_wait (client, asked, "tool_result")),
                                                           "data"), "denied"));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  assert_one_terminator (client, 0);

  /* A late answer changes nothing. */
  client_send (client, approval_response (g_ptr_array_index (client->frames, asked), "approve"));
  assert_one_terminator (client, 0);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

static const char *
run_status (Fixture    *f,
            const char *run_id,
            Reply     **keep)
{
  g_autofree char *path = g_strdup_printf ("/api/runs/%s", run_id);

  g_clear_pointer (keep, reply_free);
  *keep = request (f, "GET", path, NULL, NULL);
  g_assert_cmpuint ((*keep)->status, ==, 200);
  return json_object_get_string_member (reply_object (*keep), "status");
}

/* The one run of a session, from GET /api/runs. */
static char *
run_of_session (Fixture    *f,
                const char *session_id)
{
  g_autoptr(Reply) runs = request (f, "GET", "/api/runs", NULL, NULL);
  JsonArray *array = json_object_get_array_member (reply_object (runs), "runs");

  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *run = json_array_get_object_element (array, i);

      if (g_strcmp0 (json_object_get_string_member (run, "session_id"), session_id) == 0)
        return g_strdup (json_object_get_string_member (run, "id"));
    }
  return NULL;
}

typedef struct
{
  Fixture    *f;
  const char *run_id;
  const char *status;
} StatusWait;

static gboolean
run_reached (gpointer data)
{
  StatusWait *wait = data;
  g_autoptr(Reply) keep = NULL;

  g_main_context_iteration (NULL, FALSE);
  return g_strcmp0 (run_status (wait->f, wait->run_id, &keep), wait->status) == 0;
}

/* The client vanishes while its run waits on a question: the question is
 * denied at once (not after the timeout), the run cancelled and saved, the
 * socket's slot free; the server goes on. */
static void
test_client_vanishes (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autofree char *session_id = NULL;
  g_autofree char *run_id = NULL;
  StatusWait wait = { f, NULL, "cancelled" };
  GIOStream *stream;

  set_replay (f, WRITE_TURNS ("vanished.txt"));
  client_send (client, prompt_new ("Write it", NULL, NULL));
  client_wait (client, 0, "approval_request");
  session_id = g_strdup (json_object_get_string_member (g_ptr_array_index (client->frames, 0), "session_id"));
  run_id = run_of_session (f, session_id);
  g_assert_nonnull (run_id);
  {
    g_autoptr(Reply) keep = NULL;
    g_assert_cmpstr (run_status (f, run_id, &keep), ==, "waiting_approval");
  }

  /* Gone without a closing handshake, as a killed browser. */
  stream = soup_websocket_connection_get_io_stream (client->conn);
  g_signal_handlers_disconnect_by_data (client->conn, client);
  g_io_stream_close (stream, NULL, NULL);

  wait.run_id = run_id;
  spin_until (run_reached, &wait);
  spin_until (no_sockets, f);
  g_assert_false (file_exists (f, "vanished.txt"));

  /* The session is there, and another socket carries on. */
  {
    g_autofree char *path = g_strdup_printf ("/api/sessions/%s", session_id);
    g_autoptr(Reply) record = request (f, "GET", path, NULL, NULL);
    g_autoptr(Client) next = client_open (f);
    guint end;

    g_assert_cmpuint (record->status, ==, 200);
    set_replay (f, "{\"turns\":[{\"content\":\"Still here.\"}]}");
    client_send (next, prompt_new ("Hello?", NULL, NULL));
    end = client_wait_end (next, 0);
    g_assert_cmpstr (frame_type (g_ptr_array_index (next->frames, end)), ==, "done");
  }
}

/* POST /api/cancel with the session's token reaches the run on the socket
 * that owns it, and a question it waits on is denied at once; the socket
 * gets one `error`. */
static void
test_cancel (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  g_autofree char *session_id = NULL;
  g_autofree char *auth_token = NULL;
  g_autofree char *path = NULL;
  guint asked, end;

  set_replay (f, WRITE_TURNS ("cancelled.txt"));
  client_send (client, prompt_new ("Write it", NULL, NULL));
  asked = client_wait (client, 0, "approval_request");
  session_id = g_strdup (json_object_get_string_member (g_ptr_array_index (client->frames, 0), "session_id"));
  auth_token = g_strdup (json_object_get_string_member (g_ptr_array_index (client->frames, 0), "auth_token"));
  path = g_strdup_printf ("/api/cancel?session_id=%s", session_id);

  {
    /* odek's UI sends the header even empty. */
    g_autoptr(Reply) without = request (f, "POST", path, NULL, "");
    g_autoptr(Reply) unknown = request (f, "POST", "/api/cancel?session_id=20260101-0123456789abcdef0123456789abcdef",
                                        NULL, auth_token);

    g_assert_cmpuint (without->status, ==, 401);
    g_assert_cmpuint (unknown->status, ==, 404);
  }
  {
    g_autoptr(Reply) cancelled = request (f, "POST", path, NULL, auth_token);

    g_assert_cmpuint (cancelled->status, ==, 200);
    g_assert_false (json_object_get_boolean_member (reply_object (cancelled), "idle"));
  }
  end = client_wait_end (client, asked);
  g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "error");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (g_ptr_array_index (client->frames, end), "message"),
                                   "cancelled"));
  assert_one_terminator (client, 0);
  g_assert_false (file_exists (f, "cancelled.txt"));

  /* And the frame of odek's later protocol: the socket's own run. */
  {
    guint from = client->frames->len;
    JsonObject *cancel = json_object_new ();

    set_replay (f, "{\"turns\":[{\"content\":\"Slowly\",\"delay_ms\":10000}]}");
    client_send (client, prompt_new ("Take your time", NULL, NULL));
    client_wait (client, from, "session");
    json_object_set_string_member (cancel, "type", "cancel");
    client_send (client, cancel);
    end = client_wait_end (client, from);
    g_assert_cmpstr (frame_type (g_ptr_array_index (client->frames, end)), ==, "error");
  }
}

/* ---------------------------------------------------------------------- */
/* Questions of REST runs (the desktop app's)                             */

/* A run of POST /api/prompt waits on its question in GET /api/runs/ID; it
 * is answered with the session's token, and the run goes on. */
static void
test_rest_approval (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(Reply) accepted = NULL;
  g_autoptr(Reply) keep = NULL;
  g_autofree char *token = NULL;
  g_autofree char *answer_path = NULL;
  g_autofree char *body = NULL;
  g_autofree char *approval_id = NULL;
  StatusWait wait = { f, NULL, "waiting_approval" };
  const char *run_id, *session_id;

  set_replay (f, WRITE_TURNS ("rest.txt"));
  accepted = request (f, "POST", "/api/prompt", "{\"message\":\"Write it\"}", NULL);
  g_assert_cmpuint (accepted->status, ==, 202);
  run_id = json_object_get_string_member (reply_object (accepted), "run_id");
  session_id = json_object_get_string_member (reply_object (accepted), "session_id");
  wait.run_id = run_id;
  spin_until (run_reached, &wait);

  run_status (f, run_id, &keep);
  {
    JsonObject *approval = json_object_get_object_member (reply_object (keep), "approval");

    g_assert_nonnull (approval);
    g_assert_cmpstr (json_object_get_string_member (approval, "tool"), ==, "write_file");
    g_assert_nonnull (strstr (json_object_get_string_member (approval, "command"), "rest.txt"));
    approval_id = g_strdup (json_object_get_string_member (approval, "id"));
  }

  answer_path = g_strdup_printf ("/api/runs/%s/approval", run_id);
  body = g_strdup_printf ("{\"id\":\"%s\",\"action\":\"approve\"}", approval_id);
  {
    g_autofree char *session_path = g_strdup_printf ("/api/sessions/%s", session_id);
    g_autoptr(Reply) record = request (f, "GET", session_path, NULL, NULL);
    g_autoptr(Reply) without = request (f, "POST", answer_path, body, NULL);
    g_autoptr(Reply) wrong_id = request (f, "POST", answer_path, "{\"id\":\"apr-0\",\"action\":\"approve\"}", NULL);
    g_autoptr(Reply) bad = NULL;
    g_autoptr(Reply) no_run = request (f, "POST", "/api/runs/ffff/approval", body, NULL);

    token = g_strdup (record->session_token);
    bad = request (f, "POST", answer_path, "{\"id\":\"x\",\"action\":\"maybe\"}", token);
    g_assert_cmpuint (without->status, ==, 401);
    g_assert_cmpuint (wrong_id->status, ==, 401);
    g_assert_cmpuint (bad->status, ==, 400);
    g_assert_cmpuint (no_run->status, ==, 404);
    g_assert_false (file_exists (f, "rest.txt"));
  }
  {
    g_autoptr(Reply) wrong_id = request (f, "POST", answer_path, "{\"id\":\"apr-0\",\"action\":\"approve\"}", token);
    g_autoptr(Reply) answered = request (f, "POST", answer_path, body, token);
    g_autoptr(Reply) again = request (f, "POST", answer_path, body, token);

    g_assert_cmpuint (wrong_id->status, ==, 404);
    g_assert_cmpuint (answered->status, ==, 200);
    g_assert_cmpuint (again->status, ==, 404);
  }

  wait.status = "completed";
  spin_until (run_reached, &wait);
  g_assert_true (file_exists (f, "rest.txt"));
  run_status (f, run_id, &keep);
  g_assert_false (json_object_has_member (reply_object (keep), "approval"));
}

/* Stopping the server while a socket's run waits on a question: the run is
 * cancelled and saved, the socket closed (1001), nothing waits out the
 * timeout. */
static void
test_stop_with_socket (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(Client) client = client_open (f);
  gint64 start;

  set_replay (f, WRITE_TURNS ("stopped.txt"));
  client_send (client, prompt_new ("Write it", NULL, NULL));
  client_wait (client, 0, "approval_request");

  start = g_get_monotonic_time ();
  pd_server_stop (f->server);
  /* Not a timing assertion: the default 60 s of the question would be a
   * hang, not a slow machine. */
  g_assert_cmpint (g_get_monotonic_time () - start, <, 50 * G_USEC_PER_SEC);
  spin_until (client_is_closed, client);
  g_assert_cmpuint (client->close_code, ==, SOUP_WEBSOCKET_CLOSE_GOING_AWAY);
  g_assert_false (file_exists (f, "stopped.txt"));
}

int
main (int   argc,
      char *argv[])
{
  const char *proxies[] = { "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY" };

  g_test_init (&argc, &argv, NULL);
  /* Loopback, never through a proxy of the machine. */
  for (guint i = 0; i < G_N_ELEMENTS (proxies); i++)
    g_unsetenv (proxies[i]);

#define ADD(path, func, data) \
  g_test_add (path, Fixture, GUINT_TO_POINTER (data), fixture_set_up, func, fixture_tear_down)

  ADD ("/pd/server-ws/handshake", test_handshake, 0);
  ADD ("/pd/server-ws/handshake-raw", test_handshake_raw, 0);
  ADD ("/pd/server-ws/too-many-sockets", test_too_many_sockets, 0);
  ADD ("/pd/server-ws/slot-freed", test_slot_freed, 0);
  ADD ("/pd/server-ws/upgrade-rate", test_upgrade_rate, 0);
  ADD ("/pd/server-ws/huge-frames", test_huge_frames, 0);
  ADD ("/pd/server-ws/fragmented-message", test_fragmented_message, 0);
  ADD ("/pd/server-ws/junk-frames", test_junk_frames, 0);
  ADD ("/pd/server-ws/prompt", test_prompt, 0);
  ADD ("/pd/server-ws/prompt-errors", test_prompt_errors, 0);
  ADD ("/pd/server-ws/prompt-queue", test_prompt_queue, 0);
  ADD ("/pd/server-ws/tool-events", test_tool_events, 0);
  ADD ("/pd/server-ws/approval", test_approval, 0);
  ADD ("/pd/server-ws/approval-trust", test_approval_trust, 0);
  ADD ("/pd/server-ws/approval-never-answered", test_approval_never_answered, 1);
  ADD ("/pd/server-ws/client-vanishes", test_client_vanishes, 0);
  ADD ("/pd/server-ws/cancel", test_cancel, 0);
  ADD ("/pd/server-ws/rest-approval", test_rest_approval, 0);
  ADD ("/pd/server-ws/stop-with-socket", test_stop_with_socket, 0);

  return g_test_run ();
}
