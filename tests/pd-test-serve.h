/* pd-test-serve.h: the PdServer the server tests speak to.
 *
 * A PdServer on loopback port 0, in process, in its own thread, over a
 * database of three sessions (a plan, none, all done) and a replayed
 * engine; the tests speak to it with a synchronous SoupSession from the
 * main thread, or raw HTTP on a socket of their own.  Shared by
 * test-server.c (the guard, the reads) and test-server-stream.c (events,
 * streams, runs).  Header-only because the test list in tests/meson.build
 * builds one source file per test.
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

static inline void
reply_free (Reply *reply)
{
  g_free (reply->body);
  g_clear_pointer (&reply->headers, soup_message_headers_unref);
  g_clear_pointer (&reply->json, json_node_unref);
  g_free (reply);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Reply, reply_free)

static inline JsonObject *
reply_object (Reply *reply)
{
  g_assert_nonnull (reply->json);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (reply->json));
  return json_node_get_object (reply->json);
}

/* @token: the instance token header, or NULL; then name/value header pairs. */
static inline Reply *
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
static inline int
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

static inline gboolean
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
 * the server closes first or says nothing for 30 s. */
static inline char *
raw_read_answer (int fd)
{
  g_autoptr(GString) text = g_string_new (NULL);
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

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
      /* Quiet for 30 s, not 30 s in all: a long answer under the
       * sanitizers takes longer to write than to wait for, and a 12 MB
       * one queued behind others said nothing for 10 s under ASan at
       * load 28. */
      deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
    }
}

static inline guint
raw_status (const char *answer)
{
  g_assert_nonnull (answer);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 "));
  return (guint) g_ascii_strtoull (answer + 9, NULL, 10);
}

/* The sockets this process holds: the server's are among them (and only
 * sockets: the database files and eventfds come and go on their own). */
static inline guint
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

static inline char *
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
  g_autoptr(PdApprover) approver = NULL;
  PdEngineOptions options = { 0 };

  if (!(provider = pd_provider_new_for_name ("replay", NULL, NULL, f->replay_path, error)))
    {
      request->approve_destroy (request->approve_data);
      request->review_destroy (request->review_data);
      return NULL;
    }
  if (!(context = pd_tool_context_new (f->dir, error)))
    {
      request->approve_destroy (request->approve_data);
      request->review_destroy (request->review_data);
      return NULL;
    }
  pd_tool_registry_add_builtins (tools, plan_store);
  /* Plans are reviewed by whoever watches the run, as serve does. */
  pd_exit_plan_mode_tool_set_review_func (PD_EXIT_PLAN_MODE_TOOL (pd_tool_registry_lookup (tools, "exit_plan_mode")),
                                          request->review, request->review_data, request->review_destroy);

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

static const char *const two_steps = "{\"verb\":\"create\",\"steps\":[{\"title\":\"Read the parser\"},{\"title\":\"Fix <b>it</b>\"}]}";
static const char *const both_done = "{\"verb\":\"update\",\"updates\":[{\"id\":\"s1\",\"status\":\"done\"},{\"id\":\"s2\",\"status\":\"done\"}]}";
static const char *const first_done = "{\"verb\":\"update\",\"updates\":[{\"id\":\"s1\",\"status\":\"done\",\"note\":\"read\"}]}";

static inline void
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

static inline void
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

static inline void
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

static inline char *
session_token_of (Fixture    *f,
                  const char *id)
{
  g_autofree char *path = g_strdup_printf ("/api/sessions/%s", id);
  g_autoptr(Reply) reply = request (f, "GET", path, NULL, TOKEN, NULL);

  g_assert_cmpuint (reply->status, ==, 200);
  g_assert_nonnull (soup_message_headers_get_one (reply->headers, "X-Session-Token"));
  return g_strdup (soup_message_headers_get_one (reply->headers, "X-Session-Token"));
}

static inline const char *
error_of (Reply *reply)
{
  return json_object_get_string_member (reply_object (reply), "error");
}

/* The tests speak to loopback only, whatever proxy the machine names. */
static inline void
test_unset_proxies_local (void)
{
  const char *names[] = { "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY" };

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_unsetenv (names[i]);
}

#define PD_TEST_SERVE_ADD(path, func, limit) \
  g_test_add (path, Fixture, GUINT_TO_POINTER (limit), fixture_set_up, func, fixture_tear_down)
