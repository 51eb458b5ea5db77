/* test-server.c: PdServer on loopback port 0, in process, through HTTP.
 *
 * The server runs in its own thread; the tests speak to it with a
 * synchronous SoupSession from the main thread.
 */
#define G_LOG_DOMAIN "test-server"

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

#include "pd-import-index.h"
#include "pd-plan.h"
#include "pd-redact.h"
#include "pd-replay-provider.h"
#include "pd-server.h"
#include "pd-tool-registry.h"

#define TOKEN "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

typedef struct
{
  char           *dir;
  char           *db_path;
  PdSessionStore *store;        /* a connection of the test's own */
  PdServer       *server;
  SoupSession    *session;
  char           *base;
  char           *plan_id;      /* a session with a plan */
  char           *plain_id;     /* a session without one */
  char           *done_id;      /* an all-done plan */
  char           *replay_path;
} Fixture;

typedef struct
{
  guint               status;
  char               *body;
  SoupMessageHeaders *headers;
  JsonNode           *json;
} Reply;

static void
reply_free (Reply *reply)
{
  g_free (reply->body);
  g_clear_pointer (&reply->headers, soup_message_headers_unref);
  g_clear_pointer (&reply->json, json_node_unref);
  g_free (reply);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Reply, reply_free)

static JsonObject *
reply_object (Reply *reply)
{
  g_assert_nonnull (reply->json);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (reply->json));
  return json_node_get_object (reply->json);
}

/* @token: the instance token header, or NULL; then name/value header pairs. */
static Reply *
request (Fixture    *f,
         const char *method,
         const char *path,
         const char *body,
         const char *token,
         ...)
{
  g_autofree char *url = g_strconcat (f->base, path, NULL);
  g_autoptr(SoupMessage) msg = soup_message_new (method, url);
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  Reply *reply = g_new0 (Reply, 1);
  const char *name;
  va_list ap;

  g_assert_nonnull (msg);
  if (token != NULL)
    soup_message_headers_replace (soup_message_get_request_headers (msg), "X-Odek-Ws-Token", token);
  va_start (ap, token);
  while ((name = va_arg (ap, const char *)) != NULL)
    soup_message_headers_replace (soup_message_get_request_headers (msg), name, va_arg (ap, const char *));
  va_end (ap);
  if (body != NULL)
    {
      g_autoptr(GBytes) request_body = g_bytes_new (body, strlen (body));
      soup_message_set_request_body_from_bytes (msg, "application/json", request_body);
    }

  bytes = soup_session_send_and_read (f->session, msg, NULL, &error);
  g_assert_no_error (error);
  reply->status = soup_message_get_status (msg);
  reply->body = g_bytes_get_size (bytes) ? g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes)) : g_strdup ("");
  reply->headers = soup_message_headers_ref (soup_message_get_response_headers (msg));
  if (*reply->body)
    reply->json = json_from_string (reply->body, NULL);

  /* Every answer, whatever it is, must never be cached. */
  g_assert_cmpstr (soup_message_headers_get_one (reply->headers, "Cache-Control"), ==, "no-store");
  return reply;
}

/* Raw HTTP on a socket of its own: what an attacker sends is not always
 * what SoupSession would. */
static int
raw_connect (Fixture *f)
{
  struct sockaddr_in addr = { 0 };
  int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

  g_assert_cmpint (fd, >=, 0);
  addr.sin_family = AF_INET;
  addr.sin_port = htons (pd_server_get_port (f->server));
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  g_assert_cmpint (connect (fd, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  return fd;
}

static gboolean
raw_send (int         fd,
          const void *data,
          gsize       len)
{
  gsize sent = 0;

  while (sent < len)
    {
      ssize_t n = send (fd, (const char *) data + sent, len - sent, MSG_NOSIGNAL);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      sent += (gsize) n;
    }
  return TRUE;
}

/* One answer (its head, and a body of Content-Length bytes), or NULL when
 * the server closes first or says nothing for 10 s. */
static char *
raw_read_answer (int fd)
{
  g_autoptr(GString) text = g_string_new (NULL);
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  for (;;)
    {
      const char *end = strstr (text->str, "\r\n\r\n");
      struct pollfd pfd = { fd, POLLIN, 0 };
      char buffer[4096];
      ssize_t n;

      if (end != NULL)
        {
          g_autofree char *head = g_ascii_strdown (text->str, end - text->str);
          const char *cl = strstr (head, "\r\ncontent-length:");
          gsize body = text->len - (gsize) (end + 4 - text->str);

          if (cl == NULL || body >= g_ascii_strtoull (cl + 17, NULL, 10))
            return g_string_free (g_steal_pointer (&text), FALSE);
        }
      if (g_get_monotonic_time () > deadline)
        return NULL;
      if (poll (&pfd, 1, 100) <= 0)
        continue;
      n = recv (fd, buffer, sizeof buffer, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return NULL;
      g_string_append_len (text, buffer, n);
    }
}

static guint
raw_status (const char *answer)
{
  g_assert_nonnull (answer);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 "));
  return (guint) g_ascii_strtoull (answer + 9, NULL, 10);
}

/* The sockets this process holds: the server's are among them (and only
 * sockets: the database files and eventfds come and go on their own). */
static guint
count_sockets (void)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/fd", 0, NULL);
  const char *name;
  guint n = 0;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc/self/fd", name, NULL);
      g_autofree char *target = g_file_read_link (path, NULL);

      n += target != NULL && g_str_has_prefix (target, "socket:");
    }
  return n;
}

static char *
make_session (PdSessionStore *store,
              const char     *task,
              const char    **plan_calls)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionInfo) info = pd_session_store_create (store, task, "test-model", "replay", "plandeck", "/tmp", &error);
  g_autoptr(PdPlanStore) plan = pd_plan_store_new (12, 4000);
  g_autoptr(PdPlanState) state = NULL;
  g_autoptr(JsonArray) messages = json_array_new ();
  JsonObject *user = json_object_new ();
  PdTurn turn = { 0 };

  g_assert_no_error (error);
  for (guint i = 0; plan_calls && plan_calls[i]; i++)
    {
      g_autofree char *result = pd_plan_store_execute (plan, plan_calls[i], &error);
      g_assert_no_error (error);
    }
  if (plan_calls)
    state = pd_plan_store_snapshot (plan);

  json_object_set_string_member (user, "role", "user");
  json_object_set_string_member (user, "content", task);
  json_array_add_object_element (messages, user);
  turn.session_id = info->id;
  turn.messages = messages;
  turn.plan = state;
  turn.count_turn = TRUE;
  turn.status = PD_SESSION_STATUS_IDLE;
  g_assert_true (pd_session_store_save_turn (store, &turn, &error));
  g_assert_no_error (error);
  return g_strdup (info->id);
}

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
  g_autoptr(PdApprover) approver = NULL;
  PdEngineOptions options = { 0 };

  if (!(provider = pd_provider_new_for_name ("replay", NULL, NULL, f->replay_path, error)))
    {
      request->approve_destroy (request->approve_data);
      return NULL;
    }
  if (!(context = pd_tool_context_new (f->dir, error)))
    {
      request->approve_destroy (request->approve_data);
      return NULL;
    }
  pd_tool_registry_add_builtins (tools, plan_store);

  /* Changes are asked of whoever watches the run, as serve does. */
  approver = pd_approver_new (PD_APPROVAL_POLICY_ASK);
  pd_approver_set_func (approver, request->approve, request->approve_data, request->approve_destroy);

  options.provider = provider;
  options.model = "replay";
  options.tools = tools;
  options.approver = approver;
  options.plan_store = plan_store;
  options.store = request->store;
  options.bus = request->bus;
  options.tool_context = context;
  options.run_id = request->run_id;
  return pd_engine_new (&options);
}

static const char *two_steps = "{\"verb\":\"create\",\"steps\":[{\"title\":\"Read the parser\"},{\"title\":\"Fix <b>it</b>\"}]}";
static const char *both_done = "{\"verb\":\"update\",\"updates\":[{\"id\":\"s1\",\"status\":\"done\"},{\"id\":\"s2\",\"status\":\"done\"}]}";
static const char *first_done = "{\"verb\":\"update\",\"updates\":[{\"id\":\"s1\",\"status\":\"done\",\"note\":\"read\"}]}";

static void
start_server (Fixture *f,
              guint    rate_limit)
{
  g_autoptr(GError) error = NULL;

  f->server = pd_server_new (f->db_path);
  pd_server_set_listen (f->server, "127.0.0.1", 0);
  pd_server_set_token (f->server, TOKEN);
  pd_server_set_rate_limit (f->server, rate_limit);
  pd_server_add_allowed_host (f->server, "plandeck.test");
  pd_server_add_allowed_origin (f->server, "https://proxy.example");
  pd_server_set_engine_func (f->server, replay_engine, f, NULL);
  pd_server_set_working_directory (f->server, f->dir);
  g_assert_true (pd_server_start (f->server, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (pd_server_get_port (f->server), >, 0);
  f->base = pd_server_dup_base_url (f->server);
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  const char *plan_calls[] = { two_steps, first_done, NULL };
  const char *done_calls[] = { two_steps, both_done, NULL };
  const char *replay =
    "{\"label\":\"test\",\"turns\":["
    "{\"tool_calls\":[{\"name\":\"plan\",\"arguments\":{\"verb\":\"create\",\"steps\":[{\"title\":\"One\"},{\"title\":\"Two\"}]}}],"
    " \"input_tokens\":10,\"output_tokens\":5},"
    "{\"tool_calls\":[{\"name\":\"plan\",\"arguments\":{\"verb\":\"update\",\"updates\":[{\"id\":\"s1\",\"status\":\"done\"},{\"id\":\"s2\",\"status\":\"done\"}]}}]},"
    "{\"content\":\"All done.\",\"input_tokens\":12,\"output_tokens\":3}]}";

  f->dir = g_dir_make_tmp ("pd-server-XXXXXX", &error);
  g_assert_no_error (error);
  f->db_path = g_build_filename (f->dir, "sessions.db", NULL);
  f->replay_path = g_build_filename (f->dir, "replay.json", NULL);
  g_assert_true (g_file_set_contents (f->replay_path, replay, -1, &error));

  db = pd_db_open (f->db_path, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  f->store = pd_session_store_new (db);
  f->plan_id = make_session (f->store, "Fix the parser", plan_calls);
  f->plain_id = make_session (f->store, "Say hello", NULL);
  f->done_id = make_session (f->store, "Finished work", done_calls);

  f->session = soup_session_new_with_options ("timeout", 20, NULL);

  start_server (f, GPOINTER_TO_UINT (data));
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GFile) dir = g_file_new_for_path (f->dir);
  g_autoptr(GFileEnumerator) children = NULL;
  GFileInfo *info;

  g_clear_object (&f->session);
  pd_server_stop (f->server);
  g_clear_object (&f->server);
  g_clear_object (&f->store);

  children = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME, 0, NULL, NULL);
  while (children && (info = g_file_enumerator_next_file (children, NULL, NULL)))
    {
      g_autofree char *path = g_build_filename (f->dir, g_file_info_get_name (info), NULL);
      g_unlink (path);
      g_object_unref (info);
    }
  g_rmdir (f->dir);

  g_free (f->dir);
  g_free (f->db_path);
  g_free (f->replay_path);
  g_free (f->base);
  g_free (f->plan_id);
  g_free (f->plain_id);
  g_free (f->done_id);
}

static char *
session_token_of (Fixture    *f,
                  const char *id)
{
  g_autofree char *path = g_strdup_printf ("/api/sessions/%s", id);
  g_autoptr(Reply) reply = request (f, "GET", path, NULL, TOKEN, NULL);

  g_assert_cmpuint (reply->status, ==, 200);
  g_assert_nonnull (soup_message_headers_get_one (reply->headers, "X-Session-Token"));
  return g_strdup (soup_message_headers_get_one (reply->headers, "X-Session-Token"));
}

static const char *
error_of (Reply *reply)
{
  return json_object_get_string_member (reply_object (reply), "error");
}

static void
test_health (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(Reply) health = request (f, "GET", "/api/health", NULL, TOKEN, NULL);
  g_autoptr(Reply) missing = request (f, "GET", "/api/nothing-here", NULL, TOKEN, NULL);
  g_autoptr(Reply) usage = request (f, "GET", "/api/usage", NULL, TOKEN, NULL);
  g_autoptr(Reply) usage_post = request (f, "POST", "/api/usage", "{}", TOKEN, NULL);

  g_assert_cmpuint (health->status, ==, 200);
  g_assert_cmpstr (json_object_get_string_member (reply_object (health), "status"), ==, "ok");
  g_assert_true (json_object_get_boolean_member (reply_object (health), "events_stream"));
  g_assert_cmpuint (missing->status, ==, 404);
  g_assert_cmpstr (error_of (missing), ==, "not found");
  g_assert_cmpuint (usage->status, ==, 200);
  g_assert_true (json_object_has_member (reply_object (usage), "plans_created"));
  g_assert_true (json_object_has_member (reply_object (usage), "prompts_started"));
  g_assert_cmpuint (usage_post->status, ==, 405);
}

static void
test_instance_token (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *cookie = g_strdup_printf ("odek_ws_token=%s", TOKEN);
  g_autofree char *root_path = g_strdup_printf ("/?token=%s", TOKEN);
  g_autoptr(Reply) none = request (f, "GET", "/api/health", NULL, NULL, NULL);
  g_autoptr(Reply) wrong = request (f, "GET", "/api/health", NULL, "ffff", NULL);
  g_autoptr(Reply) almost = NULL;
  g_autoptr(Reply) header = request (f, "GET", "/api/health", NULL, TOKEN, NULL);
  g_autoptr(Reply) ours = request (f, "GET", "/api/health", NULL, NULL, "X-Plandeck-Token", TOKEN, NULL);
  g_autoptr(Reply) via_cookie = request (f, "GET", "/api/health", NULL, NULL, "Cookie", cookie, NULL);
  g_autoptr(Reply) root = request (f, "GET", root_path, NULL, NULL, NULL);
  g_autofree char *prefix = g_strndup (TOKEN, strlen (TOKEN) - 1);

  almost = request (f, "GET", "/api/health", NULL, prefix, NULL);
  g_assert_cmpuint (none->status, ==, 403);
  g_assert_cmpstr (error_of (none), ==, "Forbidden");
  g_assert_cmpuint (wrong->status, ==, 403);
  g_assert_cmpuint (almost->status, ==, 403);
  g_assert_cmpuint (header->status, ==, 200);
  g_assert_cmpuint (ours->status, ==, 200);
  g_assert_cmpuint (via_cookie->status, ==, 200);
  g_assert_cmpuint (root->status, ==, 200);
  g_assert_nonnull (strstr (soup_message_headers_get_one (root->headers, "Set-Cookie"), cookie));
  g_assert_nonnull (strstr (soup_message_headers_get_one (root->headers, "Set-Cookie"), "HttpOnly"));
}

/* A POST carrying @origin: 400 "nothing to update" once past the Origin check. */
static guint
post_with_origin (Fixture    *f,
                  const char *path,
                  const char *origin)
{
  g_autoptr(Reply) reply = request (f, "POST", path, "{}", TOKEN, "Origin", origin, NULL);

  if (reply->status == 403)
    g_assert_cmpstr (error_of (reply), ==, "Origin not allowed");
  return reply->status;
}

static char *
with_port (const char *pattern,
           guint       port)
{
  GString *text = g_string_new (pattern);
  g_autofree char *number = g_strdup_printf ("%u", port);

  g_string_replace (text, "PORT", number, 0);
  return g_string_free (text, FALSE);
}

static void
test_host_and_origin (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *path = g_strdup_printf ("/api/sessions/%s", f->plain_id);
  guint port = pd_server_get_port (f->server);
  g_autoptr(Reply) evil_host = request (f, "GET", "/api/health", NULL, TOKEN, "Host", "evil.example:8080", NULL);
  g_autoptr(Reply) allowed_host = request (f, "GET", "/api/health", NULL, TOKEN, "Host", "plandeck.test:8080", NULL);
  g_autoptr(Reply) localhost = request (f, "GET", "/api/health", NULL, TOKEN, "Host", "localhost", NULL);
  g_autoptr(Reply) evil_origin = request (f, "POST", path, "{\"name\":\"x\"}", TOKEN, "Origin", "http://evil.example", NULL);
  g_autoptr(Reply) null_origin = request (f, "DELETE", path, NULL, TOKEN, "Origin", "null", NULL);
  g_autoptr(Reply) get_foreign = request (f, "GET", "/api/health", NULL, TOKEN, "Origin", "http://evil.example", NULL);
  g_autoptr(Reply) check = NULL;
  /* The server's own origin, by each name it answers to, and one allowed. */
  const char *own[] = { "http://localhost:PORT", "http://127.0.0.1:PORT", "http://[::1]:PORT", "http://LocalHost:PORT",
                        "http://plandeck.test:PORT", "https://proxy.example", "HTTPS://PROXY.EXAMPLE" };
  /* A page on another port of this machine is another origin; so is https
   * on our port, port 80 by default, and what is no origin at all. */
  const char *foreign[] = { "http://127.0.0.1:3000", "http://localhost:5173", "https://127.0.0.1:PORT",
                            "http://localhost", "ws://127.0.0.1:PORT", "http://127.0.0.1:PORT/page",
                            "http://user@127.0.0.1:PORT", "https://proxy.example:444", "http://proxy.example",
                            "127.0.0.1:PORT", "http://127.0.0.1:PORT?x", "" };

  g_assert_cmpuint (evil_host->status, ==, 403);
  g_assert_cmpstr (error_of (evil_host), ==, "Host not allowed");
  g_assert_cmpuint (allowed_host->status, ==, 200);
  g_assert_cmpuint (localhost->status, ==, 200);
  g_assert_cmpuint (evil_origin->status, ==, 403);
  g_assert_cmpstr (error_of (evil_origin), ==, "Origin not allowed");
  g_assert_cmpuint (null_origin->status, ==, 403);
  g_assert_cmpuint (get_foreign->status, ==, 200);

  for (guint i = 0; i < G_N_ELEMENTS (foreign); i++)
    {
      g_autofree char *origin = with_port (foreign[i], port);

      g_test_message ("foreign origin %s", origin);
      g_assert_cmpuint (post_with_origin (f, path, origin), ==, 403);
    }
  for (guint i = 0; i < G_N_ELEMENTS (own); i++)
    {
      g_autofree char *origin = with_port (own[i], port);

      g_test_message ("own origin %s", origin);
      g_assert_cmpuint (post_with_origin (f, path, origin), ==, 400);
    }

  /* Nothing was renamed or deleted. */
  check = request (f, "GET", path, NULL, TOKEN, NULL);
  g_assert_cmpuint (check->status, ==, 200);
  g_assert_false (json_object_has_member (reply_object (check), "name"));
}

/* A raw request to the server, answered by one answer (or NULL). */
static char *
raw_exchange (Fixture    *f,
              const char *text)
{
  int fd = raw_connect (f);
  char *answer;

  g_assert_true (raw_send (fd, text, strlen (text)));
  answer = raw_read_answer (fd);
  close (fd);
  return answer;
}

/* Bodies a page elsewhere can send without asking first (text/plain, a
 * form) start nothing: POST bodies are JSON.  And such a page cannot hold
 * event-stream slots either. */
static void
test_json_bodies_only (Fixture       *f,
                       gconstpointer  data)
{
  const char *body = "{\"message\":\"Do two things\"}";
  const char *types[] = { "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x",
                          "application/jsonx", NULL };
  g_autofree char *stream = NULL;
  g_autofree char *stream_text = NULL;
  g_autofree char *accepted = NULL;
  g_autofree char *accepted_text = NULL;
  g_autoptr(Reply) runs = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    {
      g_autofree char *type_line = types[i] ? g_strdup_printf ("Content-Type: %s\r\n", types[i]) : g_strdup ("");
      g_autofree char *text = g_strdup_printf ("POST /api/prompt HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Odek-Ws-Token: %s\r\n"
                                               "%sContent-Length: %zu\r\n\r\n%s", TOKEN, type_line, strlen (body), body);
      g_autofree char *answer = raw_exchange (f, text);

      g_test_message ("Content-Type %s", types[i] ? types[i] : "(none)");
      g_assert_cmpuint (raw_status (answer), ==, 415);
      g_assert_nonnull (strstr (answer, "must be JSON"));
    }

  accepted_text = g_strdup_printf ("POST /api/prompt HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Odek-Ws-Token: %s\r\n"
                                   "Content-Type: Application/JSON; charset=utf-8\r\nContent-Length: %zu\r\n\r\n%s",
                                   TOKEN, strlen (body), body);
  accepted = raw_exchange (f, accepted_text);
  g_assert_cmpuint (raw_status (accepted), ==, 202);

  /* Only that one run was started. */
  runs = request (f, "GET", "/api/runs", NULL, TOKEN, NULL);
  g_assert_cmpint (json_object_get_int_member (reply_object (runs), "count"), ==, 1);

  stream_text = g_strdup_printf ("GET /api/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Odek-Ws-Token: %s\r\n"
                                 "Origin: http://127.0.0.1:3000\r\n\r\n", TOKEN);
  stream = raw_exchange (f, stream_text);
  g_assert_cmpuint (raw_status (stream), ==, 403);
}

/* The answer comes before the body: an announced body is judged by the
 * headers alone, and the connection is closed without reading it. */
static void
assert_refused_before_body (Fixture    *f,
                            const char *text,
                            guint       status,
                            const char *error)
{
  int fd = raw_connect (f);
  g_autofree char *answer = NULL;
  char byte;

  g_assert_true (raw_send (fd, text, strlen (text)));
  /* Not one body byte is sent: the server that waits for them never answers. */
  answer = raw_read_answer (fd);
  g_assert_nonnull (answer);
  g_assert_cmpuint (raw_status (answer), ==, status);
  g_assert_nonnull (strstr (answer, error));
  g_assert_nonnull (strstr (answer, "Connection: close"));
  /* And then the end of the connection. */
  g_assert_cmpint (recv (fd, &byte, 1, 0), <=, 0);
  close (fd);
}

/* Bodies were read whole (and copied once more) before the token, Host and
 * size checks: a 1.2 GB POST with a wrong token took serve to 2.4 GB. */
static void
test_body_limits (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *wrong_token = g_strdup ("POST /api/prompt HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Odek-Ws-Token: wrong\r\n"
                                           "Content-Type: application/json\r\nContent-Length: 1200000000\r\n\r\n");
  g_autofree char *wrong_host = g_strdup_printf ("POST /api/prompt HTTP/1.1\r\nHost: evil.example\r\nX-Odek-Ws-Token: %s\r\n"
                                                 "Content-Type: application/json\r\nContent-Length: 1200000000\r\n\r\n", TOKEN);
  g_autofree char *too_large = g_strdup_printf ("POST /api/prompt HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Odek-Ws-Token: %s\r\n"
                                                "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n",
                                                TOKEN, PD_SERVER_MAX_BODY + 1);
  g_autofree char *not_json = g_strdup_printf ("POST /api/prompt HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Odek-Ws-Token: %s\r\n"
                                               "Content-Type: text/plain\r\nContent-Length: 100\r\n\r\n", TOKEN);
  g_autofree char *root = g_strdup ("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1200000000\r\n\r\n");
  g_autofree char *chunked = g_strdup_printf ("POST /api/prompt HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Odek-Ws-Token: %s\r\n"
                                              "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n", TOKEN);
  const gsize endless = 64 * 1024 * 1024;
  g_autofree char *chunk = NULL;
  g_autofree char *answer = NULL;
  g_autoptr(Reply) runs = NULL;
  gsize sent = 0;
  int fd;

  assert_refused_before_body (f, wrong_token, 403, "Forbidden");
  assert_refused_before_body (f, wrong_host, 403, "Host not allowed");
  assert_refused_before_body (f, too_large, 413, "request body too large");
  assert_refused_before_body (f, not_json, 415, "must be JSON");
  assert_refused_before_body (f, root, 413, "request body too large");

  /* A chunked body says nothing of its size: counted as it comes, refused
   * at the cap, and the server stops reading.  Before, it read the 64 MiB
   * (into memory, twice) and only then said 413. */
  fd = raw_connect (f);
  g_assert_true (raw_send (fd, chunked, strlen (chunked)));
  {
    const gsize piece = 64 * 1024;
    g_autofree char *spaces = g_malloc (piece);

    memset (spaces, ' ', piece);
    chunk = g_strdup_printf ("%zx\r\n", piece);
    while (sent < endless)
      {
        struct pollfd pfd = { fd, POLLOUT, 0 };

        /* A server that neither reads nor closes stops the test here. */
        if (poll (&pfd, 1, 10000) <= 0 ||
            !raw_send (fd, chunk, strlen (chunk)) || !raw_send (fd, spaces, piece) || !raw_send (fd, "\r\n", 2))
          break;
        sent += piece;
      }
  }
  g_test_message ("%" G_GSIZE_FORMAT " bytes of chunks sent before the server stopped reading", sent);
  g_assert_cmpuint (sent, <, endless);
  g_assert_cmpuint (sent, >=, PD_SERVER_MAX_BODY);
  answer = raw_read_answer (fd);
  /* The answer may be lost to the reset when the client goes on sending;
   * when it arrives, it is the 413. */
  if (answer != NULL)
    g_assert_cmpuint (raw_status (answer), ==, 413);
  close (fd);

  /* None of it started a run. */
  runs = request (f, "GET", "/api/runs", NULL, TOKEN, NULL);
  g_assert_cmpint (json_object_get_int_member (reply_object (runs), "count"), ==, 0);

  /* A body within the cap still works, in one piece or in chunks. */
  {
    g_autoptr(Reply) ok = request (f, "POST", "/api/prompt", "{\"message\":\"Do two things\"}", TOKEN, NULL);
    g_autofree char *small = g_strdup_printf ("POST /api/prompt HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Odek-Ws-Token: %s\r\n"
                                              "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                                              "d\r\n{\"message\":\"\r\nf\r\nDo two things\"}\r\n0\r\n\r\n", TOKEN);
    g_autofree char *small_answer = raw_exchange (f, small);

    g_assert_cmpuint (ok->status, ==, 202);
    g_assert_cmpuint (raw_status (small_answer), ==, 202);
  }
}

/* RFC 9112 §3.2: two Host lines, or a Host that is a list, are a 400:
 * libsoup keeps one of them, a proxy in front may read the other. */
static void
test_duplicate_host (Fixture       *f,
                     gconstpointer  data)
{
  const char *hosts[] = { "Host: evil.example\r\nHost: 127.0.0.1", "Host: 127.0.0.1\r\nHost: evil.example",
                          "Host: 127.0.0.1\r\nHost: 127.0.0.1", "Host: 127.0.0.1, evil.example" };
  const char *paths[] = { "/api/health", "/" };

  for (guint p = 0; p < G_N_ELEMENTS (paths); p++)
    for (guint i = 0; i < G_N_ELEMENTS (hosts); i++)
      {
        g_autofree char *text = g_strdup_printf ("GET %s HTTP/1.1\r\n%s\r\nX-Odek-Ws-Token: %s\r\n\r\n",
                                                 paths[p], hosts[i], TOKEN);
        g_autofree char *answer = raw_exchange (f, text);

        g_test_message ("%s with %s", paths[p], hosts[i]);
        g_assert_cmpuint (raw_status (answer), ==, 400);
        if (strcmp (paths[p], "/api/health") == 0)
          g_assert_nonnull (strstr (answer, "more than one Host header"));
      }

  {
    g_autofree char *text = g_strdup_printf ("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Odek-Ws-Token: %s\r\n\r\n", TOKEN);
    g_autofree char *answer = raw_exchange (f, text);

    g_assert_cmpuint (raw_status (answer), ==, 200);
  }
}

/* Found as an attacker would, past the fixed Host and Origin checks: an
 * absolute-form target names another host than Host does (its authority is
 * the request's, RFC 9112 §3.2.2), two Origin lines with ours last, and a
 * search longer than SQLite's LIKE takes (a 500). */
static void
test_request_authority (Fixture       *f,
                        gconstpointer  data)
{
  {
    g_autofree char *text = g_strdup_printf ("GET http://evil.example/api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                             "X-Odek-Ws-Token: %s\r\n\r\n", TOKEN);
    g_autofree char *answer = raw_exchange (f, text);

    g_assert_cmpuint (raw_status (answer), ==, 403);
    g_assert_nonnull (strstr (answer, "Host not allowed"));
  }
  {
    g_autofree char *text = g_strdup_printf ("GET http://127.0.0.1:%u/api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                             "X-Odek-Ws-Token: %s\r\n\r\n", pd_server_get_port (f->server), TOKEN);
    g_autofree char *answer = raw_exchange (f, text);

    g_assert_cmpuint (raw_status (answer), ==, 200);
  }
  {
    g_autofree char *own = g_strdup_printf ("http://127.0.0.1:%u", pd_server_get_port (f->server));
    const char *firsts[] = { "http://evil.example", own, "http://evil.example" };
    const char *seconds[] = { "\r\nOrigin: ", "\r\nOrigin: ", " " };
    const char *lasts[] = { own, "http://evil.example", own };

    for (guint i = 0; i < G_N_ELEMENTS (firsts); i++)
      {
        g_autofree char *origin = g_strconcat ("Origin: ", firsts[i], seconds[i], lasts[i], NULL);
        g_autofree char *text = g_strdup_printf ("DELETE /api/sessions/%s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n"
                                                 "X-Odek-Ws-Token: %s\r\n\r\n", f->plan_id, origin, TOKEN);
        g_autofree char *answer = raw_exchange (f, text);

        g_test_message ("%s", origin);
        g_assert_cmpuint (raw_status (answer), ==, 403);
        g_assert_nonnull (strstr (answer, "Origin not allowed"));
      }
  }
  {
    g_autofree char *long_query = g_strnfill (60000, 'a');
    g_autofree char *path = g_strdup_printf ("/api/sessions?q=%s", long_query);
    g_autoptr(Reply) reply = request (f, "GET", path, NULL, TOKEN, NULL);

    g_assert_cmpuint (reply->status, ==, 400);
    g_assert_cmpstr (json_object_get_string_member (reply_object (reply), "error"), ==, "the search is too long");
  }
}

static void
test_session_list (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(Reply) bare = request (f, "GET", "/api/sessions", NULL, TOKEN, NULL);
  g_autoptr(Reply) paged = request (f, "GET", "/api/sessions?q=PARSER&limit=10", NULL, TOKEN, NULL);
  g_autoptr(Reply) page2 = request (f, "GET", "/api/sessions?limit=1&offset=1", NULL, TOKEN, NULL);
  g_autoptr(Reply) bad = request (f, "GET", "/api/sessions?limit=ten", NULL, TOKEN, NULL);
  g_autoptr(Reply) post = request (f, "POST", "/api/sessions", "{}", TOKEN, NULL);
  JsonObject *object, *first;
  JsonArray *array;

  g_assert_cmpuint (bare->status, ==, 200);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (bare->json));
  array = json_node_get_array (bare->json);
  g_assert_cmpuint (json_array_get_length (array), ==, 3);
  first = json_array_get_object_element (array, 0);
  g_assert_true (json_object_has_member (first, "id"));
  /* The token of a session is never in a listing. */
  g_assert_cmpstr (json_object_get_string_member (first, "auth_token"), ==, "");

  g_assert_cmpuint (paged->status, ==, 200);
  object = reply_object (paged);
  g_assert_cmpint (json_object_get_int_member (object, "count"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (object, "limit"), ==, 10);
  g_assert_cmpint (json_object_get_int_member (object, "offset"), ==, 0);
  g_assert_cmpstr (json_object_get_string_member (object, "query"), ==, "parser");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (json_object_get_array_member (object, "sessions"), 0), "id"),
                   ==, f->plan_id);

  g_assert_cmpuint (page2->status, ==, 200);
  g_assert_cmpint (json_object_get_int_member (reply_object (page2), "count"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (reply_object (page2), "offset"), ==, 1);

  g_assert_cmpuint (bad->status, ==, 400);
  g_assert_cmpuint (post->status, ==, 405);
}

static void
test_session_tokens (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *path = g_strdup_printf ("/api/sessions/%s", f->plain_id);
  g_autofree char *cookie = g_strdup_printf ("odek_ws_token=%s", TOKEN);
  g_autoptr(Reply) get = request (f, "GET", path, NULL, TOKEN, NULL);
  const char *session_token = soup_message_headers_get_one (get->headers, "X-Session-Token");
  g_autofree char *both_cookies = NULL;
  g_autoptr(Reply) cookie_only = request (f, "GET", path, NULL, NULL, "Cookie", cookie, NULL);
  g_autoptr(Reply) wrong_read = request (f, "GET", path, NULL, TOKEN, "X-Session-Token", "nope", NULL);
  g_autoptr(Reply) with_cookies = NULL;
  g_autoptr(Reply) rename_without = request (f, "POST", path, "{\"name\":\"Greeting\"}", TOKEN, NULL);
  g_autoptr(Reply) rename_wrong = NULL;
  g_autoptr(Reply) rename = NULL;
  g_autoptr(Reply) nothing = NULL;
  g_autoptr(Reply) bad_json = NULL;
  g_autoptr(Reply) bad_type = NULL;
  g_autoptr(Reply) after = NULL;
  g_autoptr(Reply) del_without = NULL;
  g_autoptr(Reply) del = NULL;
  g_autoptr(Reply) gone = NULL;
  g_autoptr(Reply) put = request (f, "PUT", path, "{}", TOKEN, NULL);
  g_autoptr(Reply) empty = request (f, "GET", "/api/sessions/", NULL, TOKEN, NULL);
  g_autoptr(Reply) tricky = request (f, "GET", "/api/sessions/..%2F..%2Fetc%2Fpasswd", NULL, TOKEN, NULL);
  g_autoptr(Reply) unknown = request (f, "GET", "/api/sessions/20260101-00000000000000000000000000000000", NULL, TOKEN, NULL);

  g_assert_cmpuint (get->status, ==, 200);
  g_assert_nonnull (session_token);
  g_assert_cmpuint (strlen (session_token), ==, 64);
  g_assert_cmpstr (json_object_get_string_member (reply_object (get), "id"), ==, f->plain_id);
  g_assert_cmpstr (json_object_get_string_member (reply_object (get), "auth_token"), ==, "");

  /* The cookie alone is no bootstrap: the session's own token is needed. */
  g_assert_cmpuint (cookie_only->status, ==, 401);
  g_assert_cmpstr (error_of (cookie_only), ==, "invalid session token");
  g_assert_cmpuint (wrong_read->status, ==, 401);
  both_cookies = g_strdup_printf ("%s; session_token=%s", cookie, session_token);
  with_cookies = request (f, "GET", path, NULL, NULL, "Cookie", both_cookies, NULL);
  g_assert_cmpuint (with_cookies->status, ==, 200);

  /* Changes need the session token itself. */
  g_assert_cmpuint (rename_without->status, ==, 401);
  rename_wrong = request (f, "POST", path, "{\"name\":\"Greeting\"}", TOKEN, "X-Session-Token", "0000", NULL);
  g_assert_cmpuint (rename_wrong->status, ==, 401);
  rename = request (f, "POST", path, "{\"name\":\"Greeting\",\"pinned\":true}", TOKEN, "X-Session-Token", session_token, NULL);
  g_assert_cmpuint (rename->status, ==, 200);
  g_assert_cmpstr (json_object_get_string_member (reply_object (rename), "name"), ==, "Greeting");
  g_assert_true (json_object_get_boolean_member (reply_object (rename), "pinned"));
  nothing = request (f, "POST", path, "{}", TOKEN, "X-Session-Token", session_token, NULL);
  g_assert_cmpuint (nothing->status, ==, 400);
  g_assert_cmpstr (error_of (nothing), ==, "nothing to update (name or pinned required)");
  bad_json = request (f, "POST", path, "{name:", TOKEN, "X-Session-Token", session_token, NULL);
  g_assert_cmpuint (bad_json->status, ==, 400);
  {
    /* Whitespace parses to no document at all (found by fuzzing). */
    g_autoptr(Reply) blank = request (f, "POST", path, "  ", TOKEN, "X-Session-Token", session_token, NULL);
    g_assert_cmpuint (blank->status, ==, 400);
  }
  bad_type = request (f, "POST", path, "{\"pinned\":\"yes\"}", TOKEN, "X-Session-Token", session_token, NULL);
  g_assert_cmpuint (bad_type->status, ==, 400);
  after = request (f, "GET", path, NULL, TOKEN, NULL);
  g_assert_cmpstr (json_object_get_string_member (reply_object (after), "name"), ==, "Greeting");

  del_without = request (f, "DELETE", path, NULL, TOKEN, NULL);
  g_assert_cmpuint (del_without->status, ==, 401);
  del = request (f, "DELETE", path, NULL, TOKEN, "X-Session-Token", session_token, NULL);
  g_assert_cmpuint (del->status, ==, 204);
  gone = request (f, "GET", path, NULL, TOKEN, NULL);
  g_assert_cmpuint (gone->status, ==, 404);
  g_assert_cmpstr (error_of (gone), ==, "session not found");

  g_assert_cmpuint (put->status, ==, 405);
  g_assert_cmpuint (empty->status, ==, 400);
  g_assert_cmpstr (error_of (empty), ==, "missing session id");
  /* libsoup refuses the encoded dots itself; either way no path is read. */
  g_assert_cmpuint (tricky->status / 100, ==, 4);
  g_assert_cmpuint (unknown->status, ==, 404);
}

/* odek's GET /api/sessions/{id} is the full record, its transcript as a
 * messages array: odek's browser UI shows a session from it (a count made
 * it say "Error loading session"). */
static void
test_session_record (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *path = g_strdup_printf ("/api/sessions/%s", f->plan_id);
  g_autoptr(Reply) reply = request (f, "GET", path, NULL, TOKEN, NULL);
  g_autoptr(Reply) list = request (f, "GET", "/api/sessions", NULL, TOKEN, NULL);
  JsonObject *object, *first;
  JsonArray *messages;

  g_assert_cmpuint (reply->status, ==, 200);
  object = reply_object (reply);
  g_assert_cmpstr (json_object_get_string_member (object, "id"), ==, f->plan_id);
  g_assert_cmpstr (json_object_get_string_member (object, "task"), ==, "Fix the parser");
  g_assert_true (JSON_NODE_HOLDS_ARRAY (json_object_get_member (object, "messages")));
  messages = json_object_get_array_member (object, "messages");
  g_assert_cmpuint (json_array_get_length (messages), ==, 1);
  first = json_array_get_object_element (messages, 0);
  g_assert_cmpstr (json_object_get_string_member (first, "role"), ==, "user");
  g_assert_cmpstr (json_object_get_string_member (first, "content"), ==, "Fix the parser");
  g_assert_cmpstr (soup_message_headers_get_content_type (reply->headers, NULL), ==, "application/json");

  /* The list stays light: no transcripts in it. */
  g_assert_false (JSON_NODE_HOLDS_ARRAY (json_object_get_member (json_array_get_object_element (json_node_get_array (list->json), 0),
                                                                 "messages")));
}

/* odek's rename sets `task`, which its list shows: the name must come back
 * as the task everywhere a client reads one (before, only `title` and
 * `name` changed, and the browser UI's list kept the old task). */
static void
test_rename_sets_task (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *path = g_strdup_printf ("/api/sessions/%s", f->plain_id);
  g_autofree char *token = session_token_of (f, f->plain_id);
  g_autoptr(Reply) rename = request (f, "POST", path, "{\"name\":\"Renamed X\"}", TOKEN, "X-Session-Token", token, NULL);
  g_autoptr(Reply) record = request (f, "GET", path, NULL, TOKEN, NULL);
  g_autoptr(Reply) list = request (f, "GET", "/api/sessions", NULL, TOKEN, NULL);
  g_autoptr(Reply) cleared = NULL;
  g_autoptr(Reply) again = NULL;
  JsonArray *array;
  gboolean seen = FALSE;

  g_assert_cmpuint (rename->status, ==, 200);
  g_assert_cmpstr (json_object_get_string_member (reply_object (rename), "task"), ==, "Renamed X");
  g_assert_cmpstr (json_object_get_string_member (reply_object (record), "task"), ==, "Renamed X");
  g_assert_cmpstr (json_object_get_string_member (reply_object (record), "title"), ==, "Renamed X");
  array = json_node_get_array (list->json);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *row = json_array_get_object_element (array, i);

      if (g_strcmp0 (json_object_get_string_member (row, "id"), f->plain_id) == 0)
        {
          g_assert_cmpstr (json_object_get_string_member (row, "task"), ==, "Renamed X");
          seen = TRUE;
        }
    }
  g_assert_true (seen);

  /* An empty name gives the first prompt back. */
  cleared = request (f, "POST", path, "{\"name\":\"\"}", TOKEN, "X-Session-Token", token, NULL);
  g_assert_cmpuint (cleared->status, ==, 200);
  again = request (f, "GET", path, NULL, TOKEN, NULL);
  g_assert_cmpstr (json_object_get_string_member (reply_object (again), "task"), ==, "Say hello");
}

/* GET /api/models: odek's shape, the configured model as the current one. */
static void
test_models (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(Reply) none = request (f, "GET", "/api/models", NULL, TOKEN, NULL);
  g_autoptr(Reply) post = request (f, "POST", "/api/models", "{}", TOKEN, NULL);
  g_autoptr(Reply) bare = request (f, "GET", "/api/models", NULL, NULL, NULL);
  g_autoptr(Reply) one = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *model;

  g_assert_cmpuint (none->status, ==, 200);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (none->json));
  g_assert_cmpuint (json_array_get_length (json_node_get_array (none->json)), ==, 0);
  g_assert_cmpuint (post->status, ==, 405);
  g_assert_cmpuint (bare->status, ==, 403);

  pd_server_stop (f->server);
  g_clear_object (&f->server);
  g_clear_pointer (&f->base, g_free);
  f->server = pd_server_new (f->db_path);
  pd_server_set_listen (f->server, "127.0.0.1", 0);
  pd_server_set_token (f->server, TOKEN);
  pd_server_set_model (f->server, "qwen2.5-coder");
  g_assert_true (pd_server_start (f->server, &error));
  f->base = pd_server_dup_base_url (f->server);

  one = request (f, "GET", "/api/models", NULL, TOKEN, NULL);
  g_assert_cmpuint (one->status, ==, 200);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (one->json)), ==, 1);
  model = json_array_get_object_element (json_node_get_array (one->json), 0);
  g_assert_cmpstr (json_object_get_string_member (model, "id"), ==, "qwen2.5-coder");
  g_assert_true (json_object_get_boolean_member (model, "current"));
  g_assert_true (json_object_has_member (model, "max_context"));
}

#define WEBUI_PAGE "<!DOCTYPE html><meta name=\"odek-ws-token\" content=\"{{ODEK_WS_TOKEN}}\"/>" \
                   "<p>{{ODEK_WS_TOKEN}}</p>"

/* serve --webui DIR: the folder's page, script and style the way odek
 * serves its browser UI (the token in the page and the cookie only for the
 * right ?token=, odek's security headers, nothing else served). */
static void
test_webui (Fixture       *f,
            gconstpointer  data)
{
  g_autofree char *ui = g_build_filename (f->dir, "ui", NULL);
  g_autofree char *index = g_build_filename (ui, "index.html", NULL);
  g_autofree char *script = g_build_filename (ui, "app.js", NULL);
  g_autofree char *style = g_build_filename (ui, "style.css", NULL);
  g_autofree char *with_token = g_strdup_printf ("/?token=%s", TOKEN);
  g_autofree char *filled = g_strdup_printf ("content=\"%s\"", TOKEN);
  g_autofree char *cookie = g_strdup_printf ("odek_ws_token=%s; Path=/; HttpOnly; SameSite=Strict", TOKEN);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdServer) bare = pd_server_new (f->db_path);

  g_assert_cmpint (g_mkdir (ui, 0700), ==, 0);

  /* No index.html: said, naming the file. */
  g_assert_false (pd_server_set_webui (bare, ui, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "index.html"));
  g_clear_error (&error);

  g_assert_true (g_file_set_contents (index, WEBUI_PAGE, -1, &error));
  g_assert_true (g_file_set_contents (script, "console.log(1);", -1, &error));
  g_assert_true (g_file_set_contents (style, "body{}", -1, &error));

  pd_server_stop (f->server);
  g_clear_object (&f->server);
  g_clear_pointer (&f->base, g_free);
  f->server = pd_server_new (f->db_path);
  pd_server_set_listen (f->server, "127.0.0.1", 0);
  pd_server_set_token (f->server, TOKEN);
  g_assert_true (pd_server_set_webui (f->server, ui, &error));
  g_assert_no_error (error);
  g_assert_true (pd_server_start (f->server, &error));
  f->base = pd_server_dup_base_url (f->server);

  /* The files are read once: changing them later changes nothing served. */
  g_assert_true (g_file_set_contents (script, "changed();", -1, &error));

  {
    g_autoptr(Reply) page = request (f, "GET", with_token, NULL, NULL, NULL);
    const char *csp;

    g_assert_cmpuint (page->status, ==, 200);
    g_assert_cmpstr (soup_message_headers_get_content_type (page->headers, NULL), ==, "text/html");
    /* The first placeholder only, as odek. */
    g_assert_nonnull (strstr (page->body, filled));
    g_assert_nonnull (strstr (page->body, "<p>{{ODEK_WS_TOKEN}}</p>"));
    g_assert_cmpstr (soup_message_headers_get_one (page->headers, "Set-Cookie"), ==, cookie);
    g_assert_cmpstr (soup_message_headers_get_one (page->headers, "X-Content-Type-Options"), ==, "nosniff");
    g_assert_cmpstr (soup_message_headers_get_one (page->headers, "Referrer-Policy"), ==, "no-referrer");
    g_assert_cmpstr (soup_message_headers_get_one (page->headers, "X-Frame-Options"), ==, "DENY");
    csp = soup_message_headers_get_one (page->headers, "Content-Security-Policy");
    g_assert_cmpstr (csp, ==, "frame-ancestors 'none'");
  }
  {
    g_autoptr(Reply) plain = request (f, "GET", "/", NULL, NULL, NULL);
    g_autoptr(Reply) wrong = request (f, "GET", "/?token=ffff", NULL, NULL, NULL);

    g_assert_cmpuint (plain->status, ==, 200);
    g_assert_nonnull (strstr (plain->body, "content=\"\""));
    g_assert_null (strstr (plain->body, TOKEN));
    g_assert_null (soup_message_headers_get_one (plain->headers, "Set-Cookie"));
    g_assert_cmpuint (wrong->status, ==, 200);
    g_assert_null (strstr (wrong->body, TOKEN));
    g_assert_null (soup_message_headers_get_one (wrong->headers, "Set-Cookie"));
  }
  {
    g_autoptr(Reply) js = request (f, "GET", "/app.js", NULL, NULL, NULL);
    g_autoptr(Reply) css = request (f, "GET", "/style.css?v=2", NULL, NULL, NULL);
    g_autoptr(Reply) icon = request (f, "GET", "/favicon.ico", NULL, NULL, NULL);
    g_autoptr(Reply) index_html = request (f, "GET", "/index.html", NULL, NULL, NULL);
    g_autoptr(Reply) other = request (f, "GET", "/etc/passwd", NULL, NULL, NULL);
    g_autoptr(Reply) post = request (f, "POST", "/", "{}", NULL, NULL);
    g_autoptr(Reply) evil = request (f, "GET", with_token, NULL, NULL, "Host", "evil.example", NULL);

    g_assert_cmpuint (js->status, ==, 200);
    g_assert_cmpstr (soup_message_headers_get_content_type (js->headers, NULL), ==, "application/javascript");
    g_assert_cmpstr (js->body, ==, "console.log(1);");
    g_assert_cmpuint (css->status, ==, 200);
    g_assert_cmpstr (soup_message_headers_get_content_type (css->headers, NULL), ==, "text/css");
    g_assert_cmpuint (icon->status, ==, 200);
    g_assert_cmpstr (soup_message_headers_get_content_type (icon->headers, NULL), ==, "image/svg+xml");
    g_assert_cmpuint (index_html->status, ==, 404);
    g_assert_cmpuint (other->status, ==, 404);
    g_assert_cmpuint (post->status, ==, 405);
    /* Another name for this machine (DNS rebinding): nothing, the token
     * least of all. */
    g_assert_cmpuint (evil->status, ==, 403);
    g_assert_null (strstr (evil->body, TOKEN));
  }

  g_unlink (index);
  g_unlink (script);
  g_unlink (style);
  g_rmdir (ui);
}

static gboolean
resources_have (Reply      *reply,
                const char *id)
{
  JsonArray *array;

  g_assert_cmpuint (reply->status, ==, 200);
  g_assert_true (JSON_NODE_HOLDS_ARRAY (reply->json));
  array = json_node_get_array (reply->json);
  for (guint i = 0; i < json_array_get_length (array); i++)
    if (g_strcmp0 (json_object_get_string_member (json_array_get_object_element (array, i), "id"), id) == 0)
      return TRUE;
  return FALSE;
}

/* GET /api/resources: what an @ offers in odek's browser UI — the names in
 * the folder runs work in, and sessions; never a path out of it. */
static void
test_resources (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *main_c = g_build_filename (f->dir, "main.c", NULL);
  g_autofree char *sub = g_build_filename (f->dir, "maindir", NULL);
  g_autofree char *hidden = g_build_filename (f->dir, ".main-secret", NULL);
  g_autofree char *session_query = NULL;
  g_autofree char *session_ref = g_strdup_printf ("@sess:%s", f->plan_id);
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_set_contents (main_c, "int main;\n", -1, &error));
  g_assert_true (g_file_set_contents (hidden, "x", -1, &error));
  g_assert_cmpint (g_mkdir (sub, 0700), ==, 0);

  {
    g_autoptr(Reply) mai = request (f, "GET", "/api/resources?q=mai&limit=8", NULL, TOKEN, NULL);
    JsonObject *row;

    g_assert_true (resources_have (mai, "@main.c"));
    g_assert_true (resources_have (mai, "@maindir/"));
    g_assert_false (resources_have (mai, "@.main-secret"));
    row = json_array_get_object_element (json_node_get_array (mai->json), 0);
    g_assert_cmpstr (json_object_get_string_member (row, "id"), ==, "@main.c");
    g_assert_cmpstr (json_object_get_string_member (row, "type"), ==, "file");
    g_assert_cmpstr (json_object_get_string_member (row, "label"), ==, "main.c");
  }
  {
    g_autoptr(Reply) up = request (f, "GET", "/api/resources?q=..%2F&limit=8", NULL, TOKEN, NULL);
    g_autoptr(Reply) slash = request (f, "GET", "/api/resources?q=%2Fetc%2Fpass", NULL, TOKEN, NULL);
    g_autoptr(Reply) bad_utf8 = request (f, "GET", "/api/resources?q=%FF", NULL, TOKEN, NULL);
    g_autoptr(Reply) bad_limit = request (f, "GET", "/api/resources?q=a&limit=x", NULL, TOKEN, NULL);
    g_autoptr(Reply) post = request (f, "POST", "/api/resources", "{}", TOKEN, NULL);

    g_assert_cmpuint (json_array_get_length (json_node_get_array (up->json)), ==, 0);
    g_assert_cmpuint (json_array_get_length (json_node_get_array (slash->json)), ==, 0);
    g_assert_cmpuint (bad_utf8->status, ==, 200);
    g_assert_cmpuint (bad_limit->status, ==, 400);
    g_assert_cmpuint (post->status, ==, 405);
  }

  /* Sessions by a part of their id or their task. */
  session_query = g_strdup_printf ("/api/resources?q=%.20s", f->plan_id + 9);
  {
    g_autoptr(Reply) by_id = request (f, "GET", session_query, NULL, TOKEN, NULL);
    g_autoptr(Reply) by_task = request (f, "GET", "/api/resources?q=parser", NULL, TOKEN, NULL);
    g_autoptr(Reply) one = request (f, "GET", "/api/resources?q=&limit=1", NULL, TOKEN, NULL);

    g_assert_true (resources_have (by_id, session_ref));
    g_assert_true (resources_have (by_task, session_ref));
    g_assert_cmpuint (json_array_get_length (json_node_get_array (one->json)), ==, 1);
  }

  g_rmdir (sub);
}

static void
test_export (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *path = g_strdup_printf ("/api/sessions/%s/export", f->plan_id);
  g_autoptr(Reply) reply = request (f, "GET", path, NULL, TOKEN, NULL);
  JsonObject *object;

  g_assert_cmpuint (reply->status, ==, 200);
  object = reply_object (reply);
  g_assert_cmpstr (json_object_get_string_member (object, "id"), ==, f->plan_id);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (object, "messages")), ==, 1);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (object, "plan_versions")), >=, 1);
  g_assert_nonnull (soup_message_headers_get_one (reply->headers, "X-Session-Token"));
}

static void
test_plan (Fixture       *f,
           gconstpointer  data)
{
  g_autofree char *found_path = g_strdup_printf ("/api/sessions/%s/plan", f->plan_id);
  g_autofree char *none_path = g_strdup_printf ("/api/sessions/%s/plan", f->plain_id);
  g_autofree char *done_path = g_strdup_printf ("/api/sessions/%s/plan", f->done_id);
  g_autofree char *record_path = g_strdup_printf ("/api/sessions/%s", f->plan_id);
  g_autoptr(Reply) found = request (f, "GET", found_path, NULL, TOKEN, NULL);
  g_autoptr(Reply) cached = request (f, "GET", found_path, NULL, TOKEN, NULL);
  g_autoptr(Reply) none = request (f, "GET", none_path, NULL, TOKEN, NULL);
  g_autoptr(Reply) done = request (f, "GET", done_path, NULL, TOKEN, NULL);
  g_autoptr(Reply) unknown = request (f, "GET", "/api/sessions/20260101-aabbcc/plan", NULL, TOKEN, NULL);
  g_autoptr(Reply) unknown_valid = request (f, "GET", "/api/sessions/20260101-0123456789abcdef0123456789abcdef/plan", NULL, TOKEN, NULL);
  g_autoptr(Reply) wrong_token = request (f, "GET", found_path, NULL, TOKEN, "X-Session-Token", "bad", NULL);
  g_autoptr(Reply) record = NULL;
  const char *methods[] = { "POST", "DELETE", "PUT", "PATCH" };
  JsonObject *object, *step;
  JsonArray *steps;

  g_assert_cmpuint (found->status, ==, 200);
  g_assert_cmpstr (soup_message_headers_get_content_type (found->headers, NULL), ==, "application/json");
  object = reply_object (found);
  g_assert_cmpstr (json_object_get_string_member (object, "session_id"), ==, f->plan_id);
  g_assert_cmpint (json_object_get_int_member (object, "version"), ==, 2);
  g_assert_true (json_object_get_boolean_member (object, "found"));
  steps = json_object_get_array_member (object, "steps");
  g_assert_cmpuint (json_array_get_length (steps), ==, 2);
  step = json_array_get_object_element (steps, 0);
  g_assert_cmpstr (json_object_get_string_member (step, "id"), ==, "s1");
  g_assert_cmpstr (json_object_get_string_member (step, "status"), ==, "done");
  g_assert_cmpstr (json_object_get_string_member (step, "note"), ==, "read");
  step = json_array_get_object_element (steps, 1);
  /* Model text is data, returned verbatim, never interpreted. */
  g_assert_cmpstr (json_object_get_string_member (step, "title"), ==, "Fix <b>it</b>");
  g_assert_false (json_object_has_member (step, "note"));
  g_assert_false (json_object_has_member (step, "checks"));
  g_assert_cmpstr (cached->body, ==, found->body);
  g_assert_nonnull (soup_message_headers_get_one (cached->headers, "X-Session-Token"));
  g_assert_cmpuint (wrong_token->status, ==, 401);

  g_assert_cmpuint (none->status, ==, 200);
  g_assert_false (json_object_get_boolean_member (reply_object (none), "found"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (reply_object (none), "steps")), ==, 0);

  g_assert_cmpuint (done->status, ==, 200);
  g_assert_true (json_object_get_boolean_member (reply_object (done), "found"));
  g_assert_cmpint (json_object_get_int_member (reply_object (done), "version"), ==, 2);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (reply_object (done), "steps")), ==, 0);

  g_assert_cmpuint (unknown->status, ==, 404);
  g_assert_cmpuint (unknown_valid->status, ==, 404);

  /* Read only: no other method reaches a mutator. */
  for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
    {
      g_autofree char *session_token = g_strdup (soup_message_headers_get_one (found->headers, "X-Session-Token"));
      g_autoptr(Reply) reply = request (f, methods[i], found_path, "{\"name\":\"hijacked\"}", TOKEN,
                                        "X-Session-Token", session_token, NULL);

      g_assert_cmpuint (reply->status, !=, 200);
      g_assert_cmpuint (reply->status, >=, 400);
    }
  record = request (f, "GET", record_path, NULL, TOKEN, NULL);
  g_assert_cmpuint (record->status, ==, 200);
  g_assert_false (json_object_has_member (reply_object (record), "name"));
  g_assert_cmpstr (json_object_get_string_member (reply_object (record), "task"), ==, "Fix the parser");
}

static void
test_plan_detail (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *path = g_strdup_printf ("/api/sessions/%s/plan/detail", f->plan_id);
  g_autofree char *done_path = g_strdup_printf ("/api/sessions/%s/plan/detail", f->done_id);
  g_autoptr(Reply) reply = request (f, "GET", path, NULL, TOKEN, NULL);
  g_autoptr(Reply) done = request (f, "GET", done_path, NULL, TOKEN, NULL);
  JsonObject *object, *step;
  JsonArray *history;

  g_assert_cmpuint (reply->status, ==, 200);
  object = reply_object (reply);
  g_assert_true (json_object_get_boolean_member (object, "found"));
  g_assert_false (json_object_get_boolean_member (object, "collapsed"));
  step = json_array_get_object_element (json_object_get_array_member (object, "steps"), 0);
  g_assert_true (json_object_has_member (step, "checks"));
  g_assert_true (json_object_has_member (object, "revision"));
  history = json_object_get_array_member (object, "history");
  g_assert_cmpuint (json_array_get_length (history), ==, 1);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (history, 0), "done"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (history, 0), "steps"), ==, 2);

  /* The Now workspace still sees the rows of a collapsed plan. */
  g_assert_cmpuint (done->status, ==, 200);
  g_assert_true (json_object_get_boolean_member (reply_object (done), "collapsed"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (reply_object (done), "steps")), ==, 2);
}

/* Another process (here: the test's own connection) changes the plan: the
 * cached answer must not outlive the change by more than the watcher's
 * interval. */
static void
test_plan_cache_invalidation (Fixture       *f,
                              gconstpointer  data)
{
  g_autofree char *path = g_strdup_printf ("/api/sessions/%s/plan", f->plan_id);
  g_autoptr(Reply) before = request (f, "GET", path, NULL, TOKEN, NULL);
  g_autoptr(PdPlanState) state = NULL;
  g_autoptr(GError) error = NULL;
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  PdTurn turn = { 0 };
  gint64 version = 0;

  g_assert_cmpint (json_object_get_int_member (reply_object (before), "version"), ==, 2);

  g_assert_true (pd_session_store_get_plan (f->store, f->plan_id, &state, &error));
  state->version = 7;
  turn.session_id = f->plan_id;
  turn.plan = state;
  turn.status = PD_SESSION_STATUS_IDLE;
  g_assert_true (pd_session_store_save_turn (f->store, &turn, &error));
  g_assert_no_error (error);

  while (version != 7 && g_get_monotonic_time () < deadline)
    {
      g_autoptr(Reply) now = request (f, "GET", path, NULL, TOKEN, NULL);

      version = json_object_get_int_member (reply_object (now), "version");
      if (version != 7)
        g_usleep (20 * 1000);
    }
  g_assert_cmpint (version, ==, 7);
}

#define IMPORTED_LINES \
  "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"sessionId\":\"f1\",\"cwd\":\"/work\"," \
  "\"message\":{\"role\":\"user\",\"content\":\"Go\"}}\n" \
  "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:01Z\",\"message\":{\"id\":\"m1\",\"role\":\"assistant\"," \
  "\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"TodoWrite\",\"input\":{\"todos\":[" \
  "{\"content\":\"Alpha step\",\"status\":\"in_progress\"},{\"content\":\"Beta step\",\"status\":\"pending\"}]}}]}}\n" \
  "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:02Z\",\"message\":{\"role\":\"user\",\"content\":[" \
  "{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"ok\"}]}}\n"

#define IMPORTED_MORE \
  "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:01:00Z\",\"message\":{\"id\":\"m2\",\"role\":\"assistant\"," \
  "\"content\":[{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"TodoWrite\",\"input\":{\"todos\":[" \
  "{\"content\":\"Alpha step\",\"status\":\"completed\"},{\"content\":\"Beta step\",\"status\":\"in_progress\"}]}}]}}\n" \
  "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:01:01Z\",\"message\":{\"role\":\"user\",\"content\":[" \
  "{\"type\":\"tool_result\",\"tool_use_id\":\"t2\",\"content\":\"ok\"}]}}\n"

/* A session imported from Claude Code answers every read route from its
 * transcript, as our own do from the database; its plan follows the
 * transcript at once (no cached answer outlives an update). */
static void
test_imported (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *transcript = g_build_filename (f->dir, "f1.jsonl", NULL);
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *record_path = NULL, *plan_path = NULL, *detail_path = NULL, *export_path = NULL;
  g_autofree char *events_path = NULL;
  g_autoptr(Reply) record = NULL, plan = NULL, detail = NULL, exported = NULL, events = NULL, later = NULL;
  const char *paths[] = { transcript, NULL };
  const char *id = NULL;
  JsonArray *steps;
  FILE *file;

  g_assert_true (g_file_set_contents (transcript, IMPORTED_LINES, -1, &error));
  g_assert_true (pd_import_index_run_paths (index, f->store, paths, NULL, NULL, &error));
  g_assert_no_error (error);
  list = pd_session_store_list (f->store, NULL, FALSE, 0, 10, NULL, &error);
  for (guint i = 0; i < list->len; i++)
    if (pd_session_info_is_imported (g_ptr_array_index (list, i)))
      id = ((PdSessionInfo *) g_ptr_array_index (list, i))->id;
  g_assert_nonnull (id);
  record_path = g_strdup_printf ("/api/sessions/%s", id);
  plan_path = g_strdup_printf ("/api/sessions/%s/plan", id);
  detail_path = g_strdup_printf ("/api/sessions/%s/plan/detail", id);
  export_path = g_strdup_printf ("/api/sessions/%s/export", id);
  events_path = g_strdup_printf ("/api/events?session_id=%s&after_seq=0", id);

  record = request (f, "GET", record_path, NULL, TOKEN, NULL);
  g_assert_cmpuint (record->status, ==, 200);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (reply_object (record), "messages")), ==, 3);

  plan = request (f, "GET", plan_path, NULL, TOKEN, NULL);
  g_assert_cmpuint (plan->status, ==, 200);
  g_assert_true (json_object_get_boolean_member (reply_object (plan), "found"));
  g_assert_cmpint (json_object_get_int_member (reply_object (plan), "version"), ==, 1);
  steps = json_object_get_array_member (reply_object (plan), "steps");
  g_assert_cmpuint (json_array_get_length (steps), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (steps, 0), "title"), ==, "Alpha step");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (steps, 0), "status"), ==, "in_progress");

  detail = request (f, "GET", detail_path, NULL, TOKEN, NULL);
  g_assert_cmpuint (detail->status, ==, 200);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (reply_object (detail), "history")), ==, 1);

  exported = request (f, "GET", export_path, NULL, TOKEN, NULL);
  g_assert_cmpuint (exported->status, ==, 200);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (reply_object (exported), "messages")), ==, 3);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (reply_object (exported), "plan_versions")), ==, 1);

  events = request (f, "GET", events_path, NULL, TOKEN, NULL);
  g_assert_cmpuint (events->status, ==, 200);
  /* tool_call_started, plan_created, tool_call_completed */
  g_assert_cmpint (json_object_get_int_member (reply_object (events), "count"), ==, 3);

  /* The agent goes on: the next read says so. */
  file = fopen (transcript, "a");
  g_assert_nonnull (file);
  fputs (IMPORTED_MORE, file);
  fclose (file);
  later = request (f, "GET", plan_path, NULL, TOKEN, NULL);
  g_assert_cmpuint (later->status, ==, 200);
  g_assert_cmpint (json_object_get_int_member (reply_object (later), "version"), ==, 2);
  steps = json_object_get_array_member (reply_object (later), "steps");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (steps, 1), "status"), ==, "in_progress");

  /* Gone: said, not a database failure. */
  g_assert_cmpint (g_unlink (transcript), ==, 0);
  {
    g_autoptr(Reply) gone = request (f, "GET", plan_path, NULL, TOKEN, NULL);
    g_assert_cmpuint (gone->status, ==, 503);
  }
}

static void
test_rate_limit (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *path = g_strdup_printf ("/api/sessions/%s/plan", f->plan_id);

  for (guint i = 0; i < 5; i++)
    {
      g_autoptr(Reply) ok = request (f, "GET", path, NULL, TOKEN, NULL);
      g_assert_cmpuint (ok->status, ==, 200);
    }

  {
    g_autoptr(Reply) limited = request (f, "GET", path, NULL, TOKEN, NULL);
    g_autofree char *record = g_strdup_printf ("/api/sessions/%s", f->plain_id);
    g_autoptr(Reply) limited_record = request (f, "GET", record, NULL, TOKEN, NULL);
    g_autoptr(Reply) list = request (f, "GET", "/api/sessions", NULL, TOKEN, NULL);

    g_assert_cmpuint (limited->status, ==, 429);
    g_assert_cmpstr (error_of (limited), ==, "rate limit exceeded");
    g_assert_nonnull (soup_message_headers_get_one (limited->headers, "Retry-After"));
    g_assert_cmpuint (limited_record->status, ==, 429);
    /* Listing is no session lookup. */
    g_assert_cmpuint (list->status, ==, 200);
  }
}

static void
test_rate_limit_off (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *path = g_strdup_printf ("/api/sessions/%s/plan", f->plan_id);

  for (guint i = 0; i < 100; i++)
    {
      g_autoptr(Reply) ok = request (f, "GET", path, NULL, TOKEN, NULL);
      g_assert_cmpuint (ok->status, ==, 200);
    }
}

static PdEvent *
event_for (const char *type,
           const char *session_id,
           const char *run_id)
{
  PdEvent *event = pd_event_new (type);

  pd_event_set_session_id (event, session_id);
  pd_event_set_run_id (event, run_id);
  return event;
}

/* pd_event_bus_emit() does not take the event. */
static void
emit (PdEventBus *bus,
      PdEvent    *event)
{
  pd_event_bus_emit (bus, event);
  pd_event_unref (event);
}

static void
test_events (Fixture       *f,
             gconstpointer  data)
{
  PdEventBus *bus = pd_server_get_bus (f->server);
  g_autofree char *by_session = g_strdup_printf ("/api/events?session_id=%s", f->plan_id);
  g_autofree char *stored = g_strdup_printf ("/api/events?session_id=%s&after_seq=0", f->plan_id);
  g_autoptr(Reply) all = NULL;
  g_autoptr(Reply) two = NULL;
  g_autoptr(Reply) session = NULL;
  g_autoptr(Reply) run = NULL;
  g_autoptr(Reply) bad = NULL;
  g_autoptr(Reply) bad_id = NULL;
  g_autoptr(Reply) from_store = NULL;
  g_autoptr(Reply) usage = NULL;
  JsonArray *events;

  emit (bus, event_for (PD_EVENT_RUN_STARTED, f->plan_id, "r1"));
  emit (bus, event_for (PD_EVENT_PLAN_CREATED, f->plan_id, "r1"));
  emit (bus, event_for (PD_EVENT_RUN_STARTED, f->done_id, "r2"));
  emit (bus, event_for (PD_EVENT_RUN_COMPLETED, f->plan_id, "r1"));
  pd_event_bus_flush (bus);

  all = request (f, "GET", "/api/events", NULL, TOKEN, NULL);
  g_assert_cmpuint (all->status, ==, 200);
  g_assert_cmpint (json_object_get_int_member (reply_object (all), "count"), ==, 4);

  /* The most recent two, oldest first. */
  two = request (f, "GET", "/api/events?limit=2", NULL, TOKEN, NULL);
  events = json_object_get_array_member (reply_object (two), "events");
  g_assert_cmpuint (json_array_get_length (events), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (events, 0), "session_id"), ==, f->done_id);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (events, 1), "type"), ==, "run_completed");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (events, 1), "schema"), ==, PD_EVENT_SCHEMA);

  session = request (f, "GET", by_session, NULL, TOKEN, NULL);
  g_assert_cmpint (json_object_get_int_member (reply_object (session), "count"), ==, 3);
  run = request (f, "GET", "/api/events?run_id=r2", NULL, TOKEN, NULL);
  g_assert_cmpint (json_object_get_int_member (reply_object (run), "count"), ==, 1);
  bad = request (f, "GET", "/api/events?limit=-3", NULL, TOKEN, NULL);
  g_assert_cmpuint (bad->status, ==, 400);
  bad_id = request (f, "GET", "/api/events?session_id=../x", NULL, TOKEN, NULL);
  g_assert_cmpuint (bad_id->status, ==, 400);

  /* Ours: the stored events, with their sequence numbers. */
  from_store = request (f, "GET", stored, NULL, TOKEN, NULL);
  g_assert_cmpuint (from_store->status, ==, 200);
  g_assert_cmpint (json_object_get_int_member (reply_object (from_store), "count"), ==, 3);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (reply_object (from_store), "seq")), ==, 3);

  usage = request (f, "GET", "/api/usage", NULL, TOKEN, NULL);
  g_assert_cmpint (json_object_get_int_member (reply_object (usage), "plans_created"), ==, 1);
  g_assert_cmpint (json_object_get_int_member (reply_object (usage), "prompts_started"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (reply_object (usage), "prompts_completed"), ==, 1);
}

static gpointer
cancel_later (gpointer data)
{
  g_usleep (30 * G_USEC_PER_SEC);
  g_cancellable_cancel (data);
  g_object_unref (data);
  return NULL;
}

static GDataInputStream *open_stream (Fixture *f, const char *path, GCancellable *cancellable);

/* /api/health announces the stream's keepalive interval, and an idle
 * stream does hear its comment line again and again: a client that hears
 * nothing for a few intervals may take the server for gone. */
static void
test_stream_keepalive (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(Reply) health = request (f, "GET", "/api/health", NULL, TOKEN, NULL);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GDataInputStream) stream = NULL;
  guint keepalives = 0;

  g_assert_cmpuint (health->status, ==, 200);
  g_assert_cmpint (json_object_get_int_member (reply_object (health), "keepalive_ms"), ==,
                   PD_SERVER_STREAM_KEEPALIVE_MS);
  g_assert_cmpint (PD_SERVER_STREAM_KEEPALIVE_MS, <=, 1000);

  g_thread_unref (g_thread_new ("cancel-later", cancel_later, g_object_ref (cancellable)));
  stream = open_stream (f, "/api/events/stream", cancellable);
  while (keepalives < 3)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *line = g_data_input_stream_read_line_utf8 (stream, NULL, cancellable, &error);

      g_assert_no_error (error);
      g_assert_nonnull (line);
      keepalives += g_strcmp0 (line, ": keepalive") == 0;
    }
  g_cancellable_cancel (cancellable);
}

static GDataInputStream *
open_stream (Fixture      *f,
             const char   *path,
             GCancellable *cancellable)
{
  g_autofree char *url = g_strconcat (f->base, path, NULL);
  g_autoptr(SoupMessage) msg = soup_message_new ("GET", url);
  g_autoptr(GError) error = NULL;
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GDataInputStream) data = NULL;
  g_autofree char *first = NULL;

  soup_message_headers_replace (soup_message_get_request_headers (msg), "X-Odek-Ws-Token", TOKEN);
  stream = soup_session_send (f->session, msg, cancellable, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (soup_message_get_status (msg), ==, 200);
  g_assert_cmpstr (soup_message_headers_get_content_type (soup_message_get_response_headers (msg), NULL), ==,
                   "text/event-stream");
  data = g_data_input_stream_new (stream);
  first = g_data_input_stream_read_line_utf8 (data, NULL, cancellable, &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (first, ":"));
  return g_steal_pointer (&data);
}

static void
test_prompt_and_stream (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GDataInputStream) stream = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(Reply) accepted = NULL;
  g_autoptr(GPtrArray) types = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *run_path = NULL;
  g_autofree char *plan_path = NULL;
  g_autoptr(Reply) plan = NULL;
  g_autoptr(Reply) run_reply = NULL;
  const char *run_id, *session_id;
  gint64 deadline;
  gboolean completed = FALSE;

  g_thread_unref (g_thread_new ("cancel-later", cancel_later, g_object_ref (cancellable)));
  stream = open_stream (f, "/api/events/stream", cancellable);

  accepted = request (f, "POST", "/api/prompt", "{\"message\":\"Do two things\"}", TOKEN, NULL);
  g_assert_cmpuint (accepted->status, ==, 202);
  g_assert_cmpstr (json_object_get_string_member (reply_object (accepted), "status"), ==, "running");
  run_id = json_object_get_string_member (reply_object (accepted), "run_id");
  session_id = json_object_get_string_member (reply_object (accepted), "session_id");
  g_assert_cmpuint (strlen (run_id), ==, 32);
  g_assert_true (pd_session_id_is_valid (session_id));

  while (!completed)
    {
      g_autofree char *line = g_data_input_stream_read_line_utf8 (stream, NULL, cancellable, &error);
      g_autoptr(PdEvent) event = NULL;

      g_assert_no_error (error);
      g_assert_nonnull (line);
      if (!g_str_has_prefix (line, "data: "))
        continue;
      event = pd_event_new_from_json (line + strlen ("data: "), &error);
      g_assert_no_error (error);
      g_assert_cmpstr (pd_event_get_run_id (event), ==, run_id);
      g_assert_cmpstr (pd_event_get_session_id (event), ==, session_id);
      g_ptr_array_add (types, g_strdup (pd_event_get_event_type (event)));
      if (g_strcmp0 (pd_event_get_event_type (event), PD_EVENT_RUN_FAILED) == 0)
        {
          g_autofree char *path = g_strdup_printf ("/api/runs/%s", run_id);
          g_autoptr(Reply) why = NULL;

          g_usleep (200000);
          why = request (f, "GET", path, NULL, TOKEN, NULL);
          g_error ("the run failed: %s", why->body);
        }
      completed = g_strcmp0 (pd_event_get_event_type (event), PD_EVENT_RUN_COMPLETED) == 0;
    }
  g_assert_cmpstr (g_ptr_array_index (types, 0), ==, PD_EVENT_RUN_STARTED);
  g_assert_true (g_ptr_array_find_with_equal_func (types, PD_EVENT_PLAN_CREATED, g_str_equal, NULL));

  /* The record of the run settles once the engine returned. */
  run_path = g_strdup_printf ("/api/runs/%s", run_id);
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  for (;;)
    {
      g_clear_pointer (&run_reply, reply_free);
      run_reply = request (f, "GET", run_path, NULL, TOKEN, NULL);
      g_assert_cmpuint (run_reply->status, ==, 200);
      if (g_strcmp0 (json_object_get_string_member (reply_object (run_reply), "status"), "running") != 0 ||
          g_get_monotonic_time () > deadline)
        break;
      g_usleep (10 * 1000);
    }
  g_assert_cmpstr (json_object_get_string_member (reply_object (run_reply), "status"), ==, "completed");
  g_assert_cmpstr (json_object_get_string_member (reply_object (run_reply), "result"), ==, "All done.");
  g_assert_cmpint (json_object_get_int_member (reply_object (run_reply), "input_tokens"), ==, 22);

  plan_path = g_strdup_printf ("/api/sessions/%s/plan", session_id);
  plan = request (f, "GET", plan_path, NULL, TOKEN, NULL);
  /* The run finished its plan: found, and collapsed as the transcript shows it. */
  g_assert_true (json_object_get_boolean_member (reply_object (plan), "found"));
  g_assert_cmpint (json_object_get_int_member (reply_object (plan), "version"), ==, 2);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (reply_object (plan), "steps")), ==, 0);

  g_cancellable_cancel (cancellable);
}

/* The session's token, as a client learns it: from a read with the
 * instance token header. */

/* A run that goes on until it is cancelled, however slow the machine: four
 * commands of ten minutes each (the shell tool's longest), each asked
 * about first, which nobody answers here (60 s each before it is denied):
 * four minutes at least, more than any test may take, valgrind's included. */
#define HELD_TURN \
  "{\"content\":\"thinking\",\"tool_calls\":[{\"name\":\"shell\"," \
  "\"arguments\":{\"command\":\"sleep 600\",\"timeout_ms\":600000}}]},"
static const char *held_run = "{\"turns\":[" HELD_TURN HELD_TURN HELD_TURN HELD_TURN "{\"content\":\"done\"}]}";
#undef HELD_TURN

static gboolean
run_is_live (const char *status)
{
  return g_strcmp0 (status, "running") == 0 || g_strcmp0 (status, "waiting_approval") == 0;
}

static const char *
run_status (Fixture    *f,
            const char *run_id,
            Reply     **keep)
{
  g_autofree char *path = g_strdup_printf ("/api/runs/%s", run_id);

  g_clear_pointer (keep, reply_free);
  *keep = request (f, "GET", path, NULL, TOKEN, NULL);
  g_assert_cmpuint ((*keep)->status, ==, 200);
  return json_object_get_string_member (reply_object (*keep), "status");
}

/* A run that continues a session, and a cancel, change that session: the
 * session's own token is needed, as for rename and delete (the instance
 * token alone let anyone continue or stop anyone's session). */
static void
test_session_changes_need_token (Fixture       *f,
                                 gconstpointer  data)
{
  g_autofree char *body = g_strdup_printf ("{\"message\":\"Take it over\",\"session_id\":\"%s\"}", f->plan_id);
  g_autofree char *cancel_path = g_strdup_printf ("/api/cancel?session_id=%s", f->plan_id);
  g_autofree char *token = session_token_of (f, f->plan_id);
  g_autofree char *other_token = session_token_of (f, f->plain_id);
  g_autofree char *cookie = g_strdup_printf ("session_token=%s", token);
  const char *unknown_id = "20260101-0123456789abcdef0123456789abcdef";
  g_autofree char *unknown_body = g_strdup_printf ("{\"message\":\"hi\",\"session_id\":\"%s\"}", unknown_id);
  g_autofree char *unknown_cancel = g_strdup_printf ("/api/cancel?session_id=%s", unknown_id);
  g_autoptr(GError) error = NULL;
  g_autoptr(Reply) runs = NULL;
  g_autoptr(Reply) status = NULL;
  g_autofree char *run_id = NULL;
  gint64 deadline;

  g_assert_true (g_file_set_contents (f->replay_path, held_run, -1, &error));

  /* Continuing: the instance token alone, an empty, a wrong, another
   * session's token: 401, and no run. */
  {
    g_autoptr(Reply) bare = request (f, "POST", "/api/prompt", body, TOKEN, NULL);
    g_autoptr(Reply) empty = request (f, "POST", "/api/prompt", body, TOKEN, "X-Session-Token", "", NULL);
    g_autoptr(Reply) wrong = request (f, "POST", "/api/prompt", body, TOKEN, "X-Session-Token", "0000", NULL);
    g_autoptr(Reply) other = request (f, "POST", "/api/prompt", body, TOKEN, "X-Session-Token", other_token, NULL);
    g_autoptr(Reply) unknown = request (f, "POST", "/api/prompt", unknown_body, TOKEN, "X-Session-Token", token, NULL);

    g_assert_cmpuint (bare->status, ==, 401);
    g_assert_cmpstr (error_of (bare), ==, "invalid session token");
    g_assert_cmpuint (empty->status, ==, 401);
    g_assert_cmpuint (wrong->status, ==, 401);
    g_assert_cmpuint (other->status, ==, 401);
    g_assert_cmpuint (unknown->status, ==, 404);
    g_assert_cmpstr (error_of (unknown), ==, "session not found");
    runs = request (f, "GET", "/api/runs", NULL, TOKEN, NULL);
    g_assert_cmpint (json_object_get_int_member (reply_object (runs), "count"), ==, 0);
  }

  /* With the token (the header, or the cookie): the run starts. */
  {
    g_autoptr(Reply) accepted = request (f, "POST", "/api/prompt", body, TOKEN, "Cookie", cookie, NULL);

    g_assert_cmpuint (accepted->status, ==, 202);
    g_assert_cmpstr (json_object_get_string_member (reply_object (accepted), "session_id"), ==, f->plan_id);
    run_id = g_strdup (json_object_get_string_member (reply_object (accepted), "run_id"));
  }

  /* Cancelling it: 401 without the token, and the run goes on; 404 for a
   * session that is not there; with the token it is cancelled. */
  {
    g_autoptr(Reply) bare = request (f, "POST", cancel_path, NULL, TOKEN, NULL);
    g_autoptr(Reply) empty = request (f, "POST", cancel_path, NULL, TOKEN, "X-Session-Token", "", NULL);
    g_autoptr(Reply) other = request (f, "POST", cancel_path, NULL, TOKEN, "X-Session-Token", other_token, NULL);
    g_autoptr(Reply) unknown = request (f, "POST", unknown_cancel, NULL, TOKEN, "X-Session-Token", token, NULL);
    g_autoptr(Reply) allowed = NULL;

    g_assert_cmpuint (bare->status, ==, 401);
    g_assert_cmpstr (error_of (bare), ==, "invalid session token");
    g_assert_cmpuint (empty->status, ==, 401);
    g_assert_cmpuint (other->status, ==, 401);
    g_assert_cmpuint (unknown->status, ==, 404);
    g_assert_cmpstr (error_of (unknown), ==, "session not found");
    /* Still going: at its command, or asking to run it (serve asks). */
    g_assert_true (run_is_live (run_status (f, run_id, &status)));

    allowed = request (f, "POST", cancel_path, NULL, TOKEN, "X-Session-Token", token, NULL);
    g_assert_cmpuint (allowed->status, ==, 200);
    g_assert_false (json_object_get_boolean_member (reply_object (allowed), "idle"));
  }

  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (run_is_live (run_status (f, run_id, &status)) && g_get_monotonic_time () < deadline)
    g_usleep (10 * 1000);
  g_assert_cmpstr (run_status (f, run_id, &status), ==, "cancelled");
}

static void
test_prompt_errors (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(Reply) bad_json = request (f, "POST", "/api/prompt", "not json", TOKEN, NULL);
  /* Whitespace parses to no document at all (found by fuzzing). */
  g_autoptr(Reply) blank = request (f, "POST", "/api/prompt", " \n ", TOKEN, NULL);
  g_autoptr(Reply) no_message = request (f, "POST", "/api/prompt", "{\"session_id\":null}", TOKEN, NULL);
  g_autoptr(Reply) bad_id = request (f, "POST", "/api/prompt", "{\"message\":\"hi\",\"session_id\":\"../../x\"}", TOKEN, NULL);
  g_autoptr(Reply) unknown = request (f, "POST", "/api/prompt",
                                      "{\"message\":\"hi\",\"session_id\":\"20260101-0123456789abcdef0123456789abcdef\"}", TOKEN, NULL);
  g_autoptr(Reply) get = request (f, "GET", "/api/prompt", NULL, TOKEN, NULL);
  g_autoptr(Reply) no_run = request (f, "GET", "/api/runs/ffff", NULL, TOKEN, NULL);
  g_autoptr(Reply) runs = request (f, "GET", "/api/runs", NULL, TOKEN, NULL);
  g_autoptr(Reply) cancel_missing = request (f, "POST", "/api/cancel", NULL, TOKEN, NULL);
  g_autoptr(Reply) cancel_no_session = request (f, "POST", "/api/cancel?session_id=..%2Fx", NULL, TOKEN, "X-Session-Token", "", NULL);
  g_autofree char *cancel_path = g_strdup_printf ("/api/cancel?session_id=%s", f->plan_id);
  g_autofree char *plan_token = session_token_of (f, f->plan_id);
  g_autoptr(Reply) cancel_idle = request (f, "POST", cancel_path, NULL, TOKEN, "X-Session-Token", plan_token, NULL);
  g_autoptr(Reply) cancel_get = request (f, "GET", cancel_path, NULL, TOKEN, NULL);

  g_assert_cmpuint (bad_json->status, ==, 400);
  g_assert_cmpuint (blank->status, ==, 400);
  g_assert_cmpuint (no_message->status, ==, 400);
  g_assert_cmpstr (error_of (no_message), ==, "message required");
  g_assert_cmpuint (bad_id->status, ==, 400);
  g_assert_cmpuint (unknown->status, ==, 404);
  g_assert_cmpuint (get->status, ==, 405);
  g_assert_cmpuint (no_run->status, ==, 404);
  g_assert_cmpuint (runs->status, ==, 200);
  g_assert_cmpuint (cancel_missing->status, ==, 400);
  /* An id no session can have is no session: 404, as odek answers. */
  g_assert_cmpuint (cancel_no_session->status, ==, 404);
  g_assert_cmpuint (cancel_idle->status, ==, 200);
  g_assert_true (json_object_get_boolean_member (reply_object (cancel_idle), "idle"));
  g_assert_cmpstr (json_object_get_string_member (reply_object (cancel_idle), "session_id"), ==, f->plan_id);
  g_assert_cmpuint (cancel_get->status, ==, 405);
}

/* What a run answers is served to anyone with the instance token: a secret
 * the model repeated (a key it read in a file) is redacted as in the store. */
static void
test_runs_redacted (Fixture       *f,
                    gconstpointer  data)
{
  const char *replay =
    "{\"turns\":[{\"content\":\"Found it: OPENAI_API_KEY=sk-proj-AbCdEfGhIjKlMnOpQrStUvWx_yz-0123456789 and password=hunter2\"}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(Reply) accepted = NULL;
  g_autoptr(Reply) one = NULL;
  g_autoptr(Reply) all = NULL;
  g_autofree char *run_path = NULL;
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  g_assert_true (g_file_set_contents (f->replay_path, replay, -1, &error));
  accepted = request (f, "POST", "/api/prompt", "{\"message\":\"Look for the key\"}", TOKEN, NULL);
  g_assert_cmpuint (accepted->status, ==, 202);
  run_path = g_strdup_printf ("/api/runs/%s", json_object_get_string_member (reply_object (accepted), "run_id"));

  do
    {
      g_clear_pointer (&one, reply_free);
      g_usleep (10 * 1000);
      one = request (f, "GET", run_path, NULL, TOKEN, NULL);
      g_assert_cmpuint (one->status, ==, 200);
    }
  while (g_strcmp0 (json_object_get_string_member (reply_object (one), "status"), "running") == 0 &&
         g_get_monotonic_time () < deadline);
  g_assert_cmpstr (json_object_get_string_member (reply_object (one), "status"), ==, "completed");
  all = request (f, "GET", "/api/runs", NULL, TOKEN, NULL);

  g_assert_null (strstr (one->body, "sk-proj-AbCdEf"));
  g_assert_null (strstr (one->body, "hunter2"));
  g_assert_null (strstr (all->body, "sk-proj-AbCdEf"));
  g_assert_null (strstr (all->body, "hunter2"));
  g_assert_cmpstr (json_object_get_string_member (reply_object (one), "result"), ==,
                   "Found it: OPENAI_API_KEY=" PD_REDACTED " and password=" PD_REDACTED);
}

/* libsoup 3.2 kept every kept-alive connection its client closed open in
 * CLOSE-WAIT (one descriptor each, for good: the server stopped answering
 * after about 1 000).  With the token, without it, and closed with a reset:
 * the server's sockets are all closed again. */
static void
test_keepalive_closed (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *with_token = g_strdup_printf ("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                 "X-Odek-Ws-Token: %s\r\n\r\n", TOKEN);
  const char *without_token = "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  guint before = count_sockets ();
  gint64 deadline;
  guint after;

  for (guint i = 0; i < 60; i++)
    {
      int fd = raw_connect (f);
      const char *text = i % 2 ? with_token : without_token;
      g_autofree char *answer = NULL;

      g_assert_true (raw_send (fd, text, strlen (text)));
      answer = raw_read_answer (fd);
      g_assert_cmpuint (raw_status (answer), ==, i % 2 ? 200 : 403);
      /* A second request on the same connection, for some. */
      if (i % 3 == 0)
        {
          g_autofree char *again = NULL;

          g_assert_true (raw_send (fd, text, strlen (text)));
          again = raw_read_answer (fd);
          g_assert_cmpuint (raw_status (again), ==, i % 2 ? 200 : 403);
        }
      if (i % 5 == 0)
        {
          struct linger reset = { 1, 0 };

          setsockopt (fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
        }
      close (fd);
    }

  /* The server closes each as it sees the end: wait for it, not for a time. */
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while ((after = count_sockets ()) > before && g_get_monotonic_time () < deadline)
    g_usleep (10 * 1000);
  g_assert_cmpuint (after, <=, before);

  /* And it goes on answering on kept-alive connections. */
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(Reply) health = request (f, "GET", "/api/health", NULL, TOKEN, NULL);
      g_assert_cmpuint (health->status, ==, 200);
    }
}

/* A client that goes away mid-stream costs nothing: later events are not
 * written anywhere and the server goes on answering. */
static void
test_stream_disconnect (Fixture       *f,
                        gconstpointer  data)
{
  PdEventBus *bus = pd_server_get_bus (f->server);

  for (guint round = 0; round < 3; round++)
    {
      g_autoptr(GCancellable) cancellable = g_cancellable_new ();
      g_autofree char *path = g_strdup_printf ("/api/events/stream?session_id=%s", f->plan_id);
      g_autoptr(GDataInputStream) stream = open_stream (f, path, cancellable);
      g_autoptr(GError) error = NULL;
      g_autofree char *line = NULL;

      emit (bus, event_for (PD_EVENT_PLAN_UPDATED, f->done_id, "other"));
      emit (bus, event_for (PD_EVENT_PLAN_UPDATED, f->plan_id, "r"));
      do
        {
          g_free (line);
          line = g_data_input_stream_read_line_utf8 (stream, NULL, cancellable, &error);
          g_assert_no_error (error);
        }
      while (line != NULL && !g_str_has_prefix (line, "data: "));
      /* The filter let only this session's event through. */
      g_assert_nonnull (strstr (line, f->plan_id));

      g_input_stream_close (G_INPUT_STREAM (stream), NULL, NULL);
    }

  for (guint i = 0; i < 50; i++)
    emit (bus, event_for (PD_EVENT_PLAN_UPDATED, f->plan_id, "r"));
  pd_event_bus_flush (bus);

  {
    g_autoptr(Reply) health = request (f, "GET", "/api/health", NULL, TOKEN, NULL);
    g_assert_cmpuint (health->status, ==, 200);
  }
}

static void restart_with_keepalive (Fixture *f, guint interval_ms);

/* One client cannot take every event-stream slot, and a client that goes
 * gives its slot back at once, not at the next keepalive write: the
 * keepalive is set an hour off (a write to a stream whose client went frees
 * its slot too, and at the default second that hid a stream that only a
 * write ever freed), and no event is emitted here, so nothing writes to the
 * streams while the test waits. */
static void
test_stream_slots (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *open_text = g_strdup_printf ("GET /api/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                "X-Odek-Ws-Token: %s\r\n\r\n", TOKEN);
  int fds[PD_SERVER_MAX_STREAMS_PER_CLIENT];
  guint before;
  g_autofree char *refused = NULL;
  g_autofree char *again = NULL;
  gint64 deadline;
  guint after;
  int extra;

  restart_with_keepalive (f, 3600 * 1000);
  {
    g_autoptr(Reply) health = request (f, "GET", "/api/health", NULL, TOKEN, NULL);

    g_assert_cmpuint (health->status, ==, 200);
    g_assert_cmpint (json_object_get_int_member (reply_object (health), "keepalive_ms"), ==, 3600 * 1000);
  }
  before = count_sockets ();

  for (guint i = 0; i < G_N_ELEMENTS (fds); i++)
    {
      g_autofree char *head = NULL;

      fds[i] = raw_connect (f);
      g_assert_true (raw_send (fds[i], open_text, strlen (open_text)));
      head = raw_read_answer (fds[i]);
      g_assert_cmpuint (raw_status (head), ==, 200);
    }

  extra = raw_connect (f);
  g_assert_true (raw_send (extra, open_text, strlen (open_text)));
  refused = raw_read_answer (extra);
  g_assert_cmpuint (raw_status (refused), ==, 503);
  g_assert_nonnull (strstr (refused, "too many event streams from this client"));
  close (extra);

  for (guint i = 0; i < G_N_ELEMENTS (fds); i++)
    close (fds[i]);

  /* Every server side is closed. */
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while ((after = count_sockets ()) > before && g_get_monotonic_time () < deadline)
    g_usleep (10 * 1000);
  g_assert_cmpuint (after, <=, before);

  extra = raw_connect (f);
  g_assert_true (raw_send (extra, open_text, strlen (open_text)));
  again = raw_read_answer (extra);
  g_assert_cmpuint (raw_status (again), ==, 200);
  close (extra);
}

/* Reads what @fd has now (without waiting) and counts the event frames in
 * it; @tail carries the end of the last read, where a frame's name may
 * begin. */
static guint
count_frames_now (int      fd,
                  GString *tail)
{
  static const char name[] = "event: plan_updated";
  char buffer[65536];
  guint frames = 0;
  ssize_t n;

  while ((n = recv (fd, buffer, sizeof buffer, MSG_DONTWAIT)) > 0)
    {
      const char *p;

      g_string_append_len (tail, buffer, n);
      for (p = tail->str; (p = strstr (p, name)) != NULL; p += sizeof name - 1)
        frames++;
      /* Keep less than a name: it cannot be counted twice. */
      if (tail->len >= sizeof name - 1)
        g_string_erase (tail, 0, tail->len - (sizeof name - 2));
    }
  return frames;
}

/* A watcher that never reads its stream costs the others nothing and the
 * server a bounded amount: once it is PD_SERVER_STREAM_MAX_BACKLOG behind
 * its socket buffers its stream is closed, while a watcher that reads gets
 * every event.  (The server kept every chunk of a stream in memory for as
 * long as it was open, and a watcher that never read was kept forever.) */
static void
test_stream_slow_watcher (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *open_text = g_strdup_printf ("GET /api/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                "X-Odek-Ws-Token: %s\r\n\r\n", TOKEN);
  PdEventBus *bus = pd_server_get_bus (f->server);
  g_autoptr(GString) tail = g_string_new (NULL);
  g_autofree char *pad = g_strnfill (2000, 'x');
  g_autofree char *head = NULL;
  struct sockaddr_in addr = { 0 };
  int small = 4096;
  int reader, slow;
  guint with_slow;
  guint emitted = 0;
  guint received = 0;
  gboolean dropped = FALSE;
  gint64 deadline;

  reader = raw_connect (f);
  g_assert_true (raw_send (reader, open_text, strlen (open_text)));
  head = raw_read_answer (reader);
  g_assert_cmpuint (raw_status (head), ==, 200);

  /* The slow one takes as little as the kernel allows, and never reads. */
  slow = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  g_assert_cmpint (slow, >=, 0);
  setsockopt (slow, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  addr.sin_family = AF_INET;
  addr.sin_port = htons (pd_server_get_port (f->server));
  addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  g_assert_cmpint (connect (slow, (struct sockaddr *) &addr, sizeof addr), ==, 0);
  g_assert_true (raw_send (slow, open_text, strlen (open_text)));
  g_usleep (100 * 1000);
  with_slow = count_sockets ();

  /* 2 KB events until the server closes its side of the slow stream; 16 MiB
   * of them would be far past any bound. */
  while (emitted < 8192 && !dropped)
    {
      g_autoptr(JsonObject) event_data = json_object_new ();

      json_object_set_string_member (event_data, "pad", pad);
      emit (bus, pd_event_new_full (PD_EVENT_PLAN_UPDATED, "r", f->plan_id, 1, NULL,
                                    g_steal_pointer (&event_data)));
      emitted++;
      /* The reader reads as a client does, all along. */
      received += count_frames_now (reader, tail);
      if (emitted % 16 == 0)
        {
          pd_event_bus_flush (bus);
          g_usleep (5 * 1000);   /* the server writes; the loop goes idle and judges */
          received += count_frames_now (reader, tail);
          dropped = count_sockets () < with_slow;
        }
    }
  g_test_message ("the slow watcher was dropped after %u events of 2 KB", emitted);
  g_assert_true (dropped);
  /* Dropped within its bound: the kernel's buffers and 256 KiB more. */
  g_assert_cmpuint (emitted, <, 1024);

  /* An event larger than the bound still reaches a watcher that reads. */
  {
    g_autofree char *big = g_strnfill (PD_SERVER_STREAM_MAX_BACKLOG + 1024, 'y');
    g_autoptr(JsonObject) event_data = json_object_new ();

    json_object_set_string_member (event_data, "pad", big);
    emit (bus, pd_event_new_full (PD_EVENT_PLAN_UPDATED, "r", f->plan_id, 1, NULL,
                                  g_steal_pointer (&event_data)));
    emitted++;
  }

  /* The reader has every event, and the server goes on. */
  pd_event_bus_flush (bus);
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (received < emitted && g_get_monotonic_time () < deadline)
    {
      struct pollfd pfd = { reader, POLLIN, 0 };

      poll (&pfd, 1, 100);
      received += count_frames_now (reader, tail);
    }
  g_assert_cmpuint (received, ==, emitted);

  close (slow);
  close (reader);
}

/* Restarts the fixture's server with its event streams' keepalive every
 * @interval_ms. */
static void
restart_with_keepalive (Fixture *f,
                        guint    interval_ms)
{
  g_autoptr(GError) error = NULL;

  pd_server_stop (f->server);
  g_clear_object (&f->server);
  g_clear_pointer (&f->base, g_free);
  f->server = pd_server_new (f->db_path);
  pd_server_set_listen (f->server, "127.0.0.1", 0);
  pd_server_set_token (f->server, TOKEN);
  pd_server_set_rate_limit (f->server, 0);
  pd_server_set_stream_keepalive (f->server, interval_ms);
  g_assert_true (pd_server_start (f->server, &error));
  g_assert_no_error (error);
  f->base = pd_server_dup_base_url (f->server);
}

/* Restarts the fixture's server with room for @n event streams, all from
 * this one client address. */
static void
restart_with_streams (Fixture *f,
                      guint    n)
{
  g_autoptr(GError) error = NULL;

  pd_server_stop (f->server);
  g_clear_object (&f->server);
  g_clear_pointer (&f->base, g_free);
  f->server = pd_server_new (f->db_path);
  pd_server_set_listen (f->server, "127.0.0.1", 0);
  pd_server_set_token (f->server, TOKEN);
  pd_server_set_rate_limit (f->server, 0);
  pd_server_set_stream_limits (f->server, n, n);
  g_assert_true (pd_server_start (f->server, &error));
  g_assert_no_error (error);
  f->base = pd_server_dup_base_url (f->server);
}

/* An event-stream client reading the raw bytes: the answer's head, then the
 * chunked body decoded chunk by chunk, then the events' "n" marks, each of
 * which must be the one after the last. */
typedef struct
{
  int      fd;
  GString *raw;        /* not yet decoded */
  GString *body;       /* decoded, not yet scanned (a line's start) */
  gboolean head_done;
  gboolean opened;     /* the stream's first comment came */
  gboolean ended;      /* the last chunk, or the connection's end */
  gboolean wrong;      /* a bad chunk, or an event missing, doubled or out of order */
  guint    next;       /* the event expected next */
} Watcher;

static void
watcher_open (Watcher *w,
              Fixture *f)
{
  g_autofree char *open_text = g_strdup_printf ("GET /api/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                "X-Odek-Ws-Token: %s\r\n\r\n", TOKEN);

  w->fd = raw_connect (f);
  w->raw = g_string_new (NULL);
  w->body = g_string_new (NULL);
  g_assert_true (raw_send (w->fd, open_text, strlen (open_text)));
}

static void
watcher_close (Watcher *w)
{
  if (w->fd >= 0)
    close (w->fd);
  g_string_free (w->raw, TRUE);
  g_string_free (w->body, TRUE);
}

static void
watcher_take (Watcher    *w,
              const char *data,
              gsize       len)
{
  static const char mark[] = "\"n\":";
  char *nl;

  g_string_append_len (w->raw, data, len);
  if (!w->head_done)
    {
      const char *end = strstr (w->raw->str, "\r\n\r\n");
      g_autofree char *head = NULL;

      if (end == NULL)
        return;
      head = g_ascii_strdown (w->raw->str, end - w->raw->str);
      if (!g_str_has_prefix (head, "http/1.1 200") || strstr (head, "\r\ntransfer-encoding: chunked") == NULL)
        w->wrong = TRUE;
      g_string_erase (w->raw, 0, end + 4 - w->raw->str);
      w->head_done = TRUE;
    }

  while (!w->ended)
    {
      const char *crlf = strstr (w->raw->str, "\r\n");
      char *size_end = NULL;
      gsize size, line;

      if (crlf == NULL)
        break;
      line = crlf - w->raw->str;
      size = g_ascii_strtoull (w->raw->str, &size_end, 16);
      if (size_end != crlf || line == 0)
        {
          w->wrong = w->ended = TRUE;
          break;
        }
      if (w->raw->len < line + 2 + size + 2)
        break;   /* the rest of the chunk is still on its way */
      if (memcmp (w->raw->str + line + 2 + size, "\r\n", 2) != 0)
        w->wrong = TRUE;
      g_string_append_len (w->body, w->raw->str + line + 2, size);
      g_string_erase (w->raw, 0, line + 2 + size + 2);
      w->ended = size == 0;
    }

  while ((nl = memchr (w->body->str, '\n', w->body->len)) != NULL)
    {
      *nl = '\0';
      if (strcmp (w->body->str, ": plandeck event stream") == 0)
        w->opened = TRUE;
      else if (g_str_has_prefix (w->body->str, "data: "))
        {
          const char *p = strstr (w->body->str, mark);

          if (p == NULL || (guint) g_ascii_strtoull (p + strlen (mark), NULL, 10) != w->next)
            w->wrong = TRUE;
          w->next++;
        }
      g_string_erase (w->body, 0, nl + 1 - w->body->str);
    }
}

/* Reads what @w has now, without waiting. */
static void
watcher_read (Watcher *w)
{
  char buffer[65536];
  ssize_t n;

  if (w->fd < 0 || w->ended)
    return;
  while ((n = recv (w->fd, buffer, sizeof buffer, MSG_DONTWAIT)) > 0)
    watcher_take (w, buffer, n);
  if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
    w->ended = TRUE;
}

/* Reads @watchers until each has @count events (or a minute went by). */
static void
watchers_read_until (Watcher *watchers,
                     guint    n,
                     guint    count)
{
  g_autofree struct pollfd *pfds = g_new0 (struct pollfd, n);
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (g_get_monotonic_time () < deadline)
    {
      guint behind = 0;

      for (guint i = 0; i < n; i++)
        {
          watcher_read (&watchers[i]);
          behind += watchers[i].next < count && !watchers[i].ended;
          pfds[i].fd = watchers[i].fd;
          pfds[i].events = POLLIN;
        }
      if (behind == 0)
        break;
      poll (pfds, n, 100);
    }
}

/* Each stream's first comment came: its events come from now on. */
static void
watchers_wait_open (Watcher *watchers,
                    guint    n)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  guint open = 0;

  while (open < n && g_get_monotonic_time () < deadline)
    {
      open = 0;
      for (guint i = 0; i < n; i++)
        {
          watcher_read (&watchers[i]);
          open += watchers[i].opened;
        }
      if (open < n)
        g_usleep (10 * 1000);
    }
  g_assert_cmpuint (open, ==, n);
}

static void
emit_numbered (PdEventBus *bus,
               const char *session_id,
               guint       n,
               const char *pad)
{
  g_autoptr(JsonObject) event_data = json_object_new ();

  json_object_set_int_member (event_data, "n", n);
  json_object_set_string_member (event_data, "pad", pad);
  emit (bus, pd_event_new_full (PD_EVENT_PLAN_UPDATED, "r", session_id, 1, NULL,
                                g_steal_pointer (&event_data)));
}

#define MANY_WATCHERS 220

/* Many watchers and one that never reads: every one that reads gets every
 * event, whole and in order (the stream writes each socket itself, frames
 * cut wherever the socket's room ends); the one that never reads is
 * dropped once it is its bound behind, and the others go on meanwhile. */
static void
test_stream_many_watchers (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree Watcher *watchers = g_new0 (Watcher, MANY_WATCHERS);
  g_autofree char *pad = g_strnfill (3000, 'x');
  /* Now and then one longer than a socket takes at once (but within the
   * bound): the readers' streams are cut mid-frame and go on from there. */
  g_autofree char *long_pad = g_strnfill (150 * 1024, 'w');
  Watcher slow = { 0 };
  int small = 4096;
  PdEventBus *bus;
  guint with_slow;
  guint emitted = 0;
  gboolean dropped = FALSE;

  restart_with_streams (f, MANY_WATCHERS + 1);
  bus = pd_server_get_bus (f->server);

  for (guint i = 0; i < MANY_WATCHERS; i++)
    watcher_open (&watchers[i], f);
  watchers_wait_open (watchers, MANY_WATCHERS);

  /* The slow one takes as little as the kernel allows, and never reads. */
  slow.fd = raw_connect (f);
  setsockopt (slow.fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  {
    g_autofree char *open_text = g_strdup_printf ("GET /api/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                                  "X-Odek-Ws-Token: %s\r\n\r\n", TOKEN);

    g_assert_true (raw_send (slow.fd, open_text, strlen (open_text)));
  }
  g_usleep (100 * 1000);
  with_slow = count_sockets ();

  /* 3 KB events until the server closes its side of the slow stream (the
   * readers read as clients do, all along); far more would be far past
   * any bound. */
  while (emitted < 4096 && !dropped)
    {
      emit_numbered (bus, f->plan_id, emitted, emitted % 50 == 10 ? long_pad : pad);
      emitted++;
      if (emitted % 8 == 0)
        {
          pd_event_bus_flush (bus);
          watchers_read_until (watchers, MANY_WATCHERS, emitted);
          dropped = count_sockets () < with_slow;
        }
    }
  g_test_message ("the slow watcher was dropped after %u events of 3 KB (and some of 150 KiB)", emitted);
  g_assert_true (dropped);
  /* Within its bound: the kernel's buffers and 256 KiB more. */
  g_assert_cmpuint (emitted, <, 1024);

  /* And the others go on. */
  for (guint i = 0; i < 20; i++)
    emit_numbered (bus, f->plan_id, emitted++, pad);
  pd_event_bus_flush (bus);
  watchers_read_until (watchers, MANY_WATCHERS, emitted);
  for (guint i = 0; i < MANY_WATCHERS; i++)
    {
      g_assert_false (watchers[i].wrong);
      g_assert_false (watchers[i].ended);
      g_assert_cmpuint (watchers[i].next, ==, emitted);
      watcher_close (&watchers[i]);
    }
  close (slow.fd);
}

/* Clients that go away in the middle of a frame (some with a reset, some
 * with an orderly close, each having read part of it) cost the server
 * nothing: it goes on writing to the others, closes their sockets, and
 * answers. */
static void
test_stream_gone_mid_frame (Fixture       *f,
                            gconstpointer  data)
{
  Watcher reader = { 0 };
  Watcher quitters[6] = { { 0 } };
  /* Longer than what the sockets take at once, shorter than the bound. */
  g_autofree char *big = g_strnfill (200 * 1024, 'y');
  g_autofree char *pad = g_strnfill (100, 'z');
  PdEventBus *bus;
  guint before = count_sockets ();
  guint emitted = 0;
  gint64 deadline;
  guint after;

  restart_with_streams (f, 16);
  bus = pd_server_get_bus (f->server);
  before = count_sockets ();

  watcher_open (&reader, f);
  for (guint i = 0; i < G_N_ELEMENTS (quitters); i++)
    watcher_open (&quitters[i], f);
  watchers_wait_open (&reader, 1);
  watchers_wait_open (quitters, G_N_ELEMENTS (quitters));

  emit_numbered (bus, f->plan_id, emitted++, big);
  pd_event_bus_flush (bus);
  for (guint i = 0; i < G_N_ELEMENTS (quitters); i++)
    {
      char buffer[16384];
      gsize got = 0;

      /* The reader reads as a client does, all along. */
      watchers_read_until (&reader, 1, emitted);
      g_assert_false (reader.ended);

      /* Some of the big frame, not all of it. */
      while (got < (i + 1) * 8192)
        {
          struct pollfd pfd = { quitters[i].fd, POLLIN, 0 };
          ssize_t n;

          g_assert_cmpint (poll (&pfd, 1, 10000), ==, 1);
          n = recv (quitters[i].fd, buffer, MIN (sizeof buffer, (i + 1) * 8192 - got), 0);
          g_assert_cmpint (n, >, 0);
          got += n;
        }
      if (i % 2 == 0)
        {
          struct linger reset = { 1, 0 };

          setsockopt (quitters[i].fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
        }
      close (quitters[i].fd);
      quitters[i].fd = -1;
      /* More for the server to write to it meanwhile. */
      emit_numbered (bus, f->plan_id, emitted++, pad);
    }

  for (guint i = 0; i < 50; i++)
    {
      emit_numbered (bus, f->plan_id, emitted++, i % 10 == 0 ? big : pad);
      pd_event_bus_flush (bus);
      watchers_read_until (&reader, 1, emitted);
    }
  g_assert_false (reader.wrong);
  g_assert_false (reader.ended);
  g_assert_cmpuint (reader.next, ==, emitted);

  /* The server closed each quitter's socket: only the reader's two remain. */
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while ((after = count_sockets ()) > before + 2 && g_get_monotonic_time () < deadline)
    g_usleep (10 * 1000);
  g_assert_cmpuint (after, <=, before + 2);

  {
    g_autoptr(Reply) health = request (f, "GET", "/api/health", NULL, TOKEN, NULL);
    g_assert_cmpuint (health->status, ==, 200);
  }
  watcher_close (&reader);
  for (guint i = 0; i < G_N_ELEMENTS (quitters); i++)
    watcher_close (&quitters[i]);
}

/* Stopping with a run in flight cancels it and waits for it to save. */
static void
test_stop_during_run (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(Reply) accepted = NULL;
  g_autoptr(PdSessionInfo) info = NULL;

  g_assert_true (g_file_set_contents (f->replay_path, held_run, -1, &error));
  accepted = request (f, "POST", "/api/prompt", "{\"message\":\"Take your time\"}", TOKEN, NULL);
  g_assert_cmpuint (accepted->status, ==, 202);

  /* The run would hold for minutes, past the test's timeout:
   * stopping returns only because it cancels the run. */
  pd_server_stop (f->server);

  info = pd_session_store_get (f->store, json_object_get_string_member (reply_object (accepted), "session_id"), &error);
  g_assert_no_error (error);
  g_assert_nonnull (info);
}

static void
test_unset_proxies_local (void)
{
  const char *names[] = { "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_unsetenv (names[i]);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  test_unset_proxies_local ();

#define ADD(path, func, limit) \
  g_test_add (path, Fixture, GUINT_TO_POINTER (limit), fixture_set_up, func, fixture_tear_down)

  ADD ("/pd/server/health", test_health, 0);
  ADD ("/pd/server/instance-token", test_instance_token, 0);
  ADD ("/pd/server/host-and-origin", test_host_and_origin, 0);
  ADD ("/pd/server/json-bodies-only", test_json_bodies_only, 0);
  ADD ("/pd/server/duplicate-host", test_duplicate_host, 0);
  ADD ("/pd/server/request-authority", test_request_authority, 0);
  ADD ("/pd/server/body-limits", test_body_limits, 0);
  ADD ("/pd/server/session-list", test_session_list, 0);
  ADD ("/pd/server/session-tokens", test_session_tokens, 0);
  ADD ("/pd/server/session-record", test_session_record, 0);
  ADD ("/pd/server/rename-sets-task", test_rename_sets_task, 0);
  ADD ("/pd/server/models", test_models, 0);
  ADD ("/pd/server/resources", test_resources, 0);
  ADD ("/pd/server/webui", test_webui, 0);
  ADD ("/pd/server/export", test_export, 0);
  ADD ("/pd/server/plan", test_plan, 0);
  ADD ("/pd/server/plan-detail", test_plan_detail, 0);
  ADD ("/pd/server/plan-cache-invalidation", test_plan_cache_invalidation, 0);
  ADD ("/pd/server/imported", test_imported, 0);
  ADD ("/pd/server/rate-limit", test_rate_limit, 5);
  ADD ("/pd/server/rate-limit-off", test_rate_limit_off, 0);
  ADD ("/pd/server/events", test_events, 0);
  ADD ("/pd/server/prompt-and-stream", test_prompt_and_stream, 0);
  ADD ("/pd/server/prompt-errors", test_prompt_errors, 0);
  ADD ("/pd/server/session-changes-need-token", test_session_changes_need_token, 0);
  ADD ("/pd/server/runs-redacted", test_runs_redacted, 0);
  ADD ("/pd/server/stream-disconnect", test_stream_disconnect, 0);
  ADD ("/pd/server/keepalive-closed", test_keepalive_closed, 0);
  ADD ("/pd/server/stream-slots", test_stream_slots, 0);
  ADD ("/pd/server/stream-keepalive", test_stream_keepalive, 0);
  ADD ("/pd/server/stream-slow-watcher", test_stream_slow_watcher, 0);
  ADD ("/pd/server/stream-many-watchers", test_stream_many_watchers, 0);
  ADD ("/pd/server/stream-gone-mid-frame", test_stream_gone_mid_frame, 0);
  ADD ("/pd/server/stop-during-run", test_stop_during_run, 0);

  return g_test_run ();
}
