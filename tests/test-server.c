/* test-server.c: PdServer on loopback port 0, in process, through HTTP:
 * the guard (token, host, origin, bodies, rate) and the reads (sessions,
 * plans, exports, the web UI).  Events, streams and runs are in
 * test-server-stream.c; the server both speak to is pd-test-serve.h's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-server"

#include "config.h"

#include "pd-test-serve.h"

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
  /* No token cookie: a browser would send it to every other port of this
   * host (tried as an attacker would: a program on 127.0.0.1:OTHER read
   * it from the first request the browser made there). */
  g_assert_null (soup_message_headers_get_one (root->headers, "Set-Cookie"));
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

/* The address --listen names is a Host the server answers to (the URL it
 * prints names it); a wildcard's printed URL names loopback.  Tried as an
 * attacker would: `--listen 127.0.0.2:P` printed a URL the server then
 * refused ("Host not allowed"), `0.0.0.0:P` one naming 0.0.0.0. */
static void
test_listen_address (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdServer) wildcard = pd_server_new (f->db_path);
  g_autoptr(PdServer) wildcard6 = pd_server_new (f->db_path);
  g_autofree char *wildcard_url = NULL, *wildcard6_url = NULL, *start_url = NULL, *other_spelling = NULL;

  pd_server_stop (f->server);
  g_clear_object (&f->server);
  g_clear_pointer (&f->base, g_free);
  f->server = pd_server_new (f->db_path);
  pd_server_set_listen (f->server, "127.0.0.2", 0);
  pd_server_set_token (f->server, TOKEN);
  g_assert_true (pd_server_start (f->server, &error));
  g_assert_no_error (error);
  f->base = pd_server_dup_base_url (f->server);
  start_url = pd_server_dup_start_url (f->server);
  g_assert_true (g_str_has_prefix (start_url, f->base));
  other_spelling = g_strdup_printf ("127.1:%u", pd_server_get_port (f->server));

  {
    g_autoptr(Reply) own = request (f, "GET", "/api/health", NULL, TOKEN, NULL);
    g_autoptr(Reply) loopback = request (f, "GET", "/api/health", NULL, TOKEN, "Host", "localhost", NULL);
    g_autoptr(Reply) spelled = request (f, "GET", "/api/health", NULL, TOKEN, "Host", other_spelling, NULL);
    g_autoptr(Reply) evil = request (f, "GET", "/api/health", NULL, TOKEN, "Host", "evil.example", NULL);

    g_assert_cmpuint (own->status, ==, 200);
    g_assert_cmpuint (loopback->status, ==, 200);
    g_assert_cmpuint (spelled->status, ==, 403);
    g_assert_cmpuint (evil->status, ==, 403);
  }

  pd_server_set_listen (wildcard, "0.0.0.0", 18080);
  wildcard_url = pd_server_dup_start_url (wildcard);
  g_assert_true (g_str_has_prefix (wildcard_url, "http://127.0.0.1:18080/?token="));
  pd_server_set_listen (wildcard6, "::", 18080);
  wildcard6_url = pd_server_dup_start_url (wildcard6);
  g_assert_true (g_str_has_prefix (wildcard6_url, "http://[::1]:18080/?token="));
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
    g_assert_null (soup_message_headers_get_one (page->headers, "Set-Cookie"));
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

/* A Gemini CLI item the agent cancelled (the project's own fixture) is
 * "cancelled" in the plan and its detail, as in `sessions show` and the
 * export; it said "blocked". */
static void
test_imported_cancelled (Fixture       *f,
                         gconstpointer  data)
{
  const char *root = g_getenv ("PD_FIXTURES_DIR");
  g_autofree char *transcript = NULL;
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GError) error = NULL;
  const char *want[] = { "done", "done", "done", "cancelled", "in_progress" };
  const char *id = NULL;

  g_assert_nonnull (root);
  transcript = g_build_filename (root, "gemini", "tmp", "lantern", "chats", "session-2026-04-05T10-12-3fa9c0d1.jsonl", NULL);
  g_assert_true (g_file_test (transcript, G_FILE_TEST_IS_REGULAR));
  {
    const char *paths[] = { transcript, NULL };

    g_assert_true (pd_import_index_run_paths (index, f->store, paths, NULL, NULL, &error));
    g_assert_no_error (error);
  }
  list = pd_session_store_list (f->store, NULL, FALSE, 0, 10, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < list->len; i++)
    if (g_strcmp0 (((PdSessionInfo *) g_ptr_array_index (list, i))->source, "gemini") == 0)
      id = ((PdSessionInfo *) g_ptr_array_index (list, i))->id;
  g_assert_nonnull (id);

  for (guint k = 0; k < 2; k++)
    {
      g_autofree char *path = g_strdup_printf ("/api/sessions/%s/plan%s", id, k == 0 ? "" : "/detail");
      g_autoptr(Reply) plan = request (f, "GET", path, NULL, TOKEN, NULL);
      JsonArray *steps;

      g_assert_cmpuint (plan->status, ==, 200);
      steps = json_object_get_array_member (reply_object (plan), "steps");
      g_assert_cmpuint (json_array_get_length (steps), ==, G_N_ELEMENTS (want));
      for (guint i = 0; i < G_N_ELEMENTS (want); i++)
        g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (steps, i), "status"), ==, want[i]);
      g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (steps, 3), "title"), ==,
                       "Document the signal");
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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  test_unset_proxies_local ();

#define ADD PD_TEST_SERVE_ADD
  ADD ("/pd/server/health", test_health, 0);
  ADD ("/pd/server/instance-token", test_instance_token, 0);
  ADD ("/pd/server/host-and-origin", test_host_and_origin, 0);
  ADD ("/pd/server/listen-address", test_listen_address, 0);
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
  ADD ("/pd/server/imported-cancelled", test_imported_cancelled, 0);
  ADD ("/pd/server/rate-limit", test_rate_limit, 5);
  ADD ("/pd/server/rate-limit-off", test_rate_limit_off, 0);

  return g_test_run ();
}
