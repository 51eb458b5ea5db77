/* pd-test-remote-source.h: what the remote source tests share: a real
 * `serve` (PdServer) on loopback and an odek-shaped SoupServer, each with
 * its sessions, and a PdRemoteSource over either.  Shared by
 * test-remote-source.c (requests and answers) and
 * test-remote-source-watch.c (watching, exports shared, redirects, the
 * lookup budget).  The odek server is pd-test-loopback.h's.  Header-only because the test list builds one source
 * file per test.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "pd-bounded-reply.h"
#include "pd-plan.h"
#include "pd-remote-source.h"
#include "pd-server.h"
#include "pd-soup-compat.h"
#include "pd-test-loopback.h"

#define TOKEN  "feedface0123456789abcdef0123456789abcdef0123456789abcdef01234567"
#define ODEK_ID "20260101-0123456789abcdef0123456789abcdef"
#define SLOW_ID "20260101-ffffffffffffffffffffffffffffffff"
#define BAD_ID  "20260101-eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"

typedef struct
{
  char           *dir;
  char           *db_path;
  PdServer       *server;
  char           *id;
  SoupServer     *odek;
  char           *odek_url;
  guint           odek_429;
  gboolean        odek_mistyped;  /* answer with elements of every type */
  gboolean        odek_hung;      /* answer nothing, keep the requests */
  GPtrArray      *odek_held;      /* the requests held meanwhile */
  guint           odek_polls;     /* GET /api/events answered */
  gboolean        odek_endless;   /* a stream of one line that never ends */
  guint           endless_streams;  /* streams opened */
  gsize           endless_first;    /* bytes sent on the first */
  gboolean        odek_redirect;    /* answer every /api request with a 302 */
  guint           odek_exports;     /* GET /api/sessions/ODEK_ID/export answered */
  gboolean        odek_huge;        /* answer the session list with an endless body */
  gboolean        odek_trickle;     /* answer /trickle with a body that never ends nor grows */
  guint           odek_trickle_list;  /* the session list: 1 a byte a tick without end, 2 1 000 a tick, then whole */
  guint           trickles_started;   /* such replies begun … */
  guint           trickles_ended;     /* … and ended (the client went away) */
  guint           odek_generation;  /* > 0: /api/events ends with an event of this second */
  guint           redirected_with_token;  /* requests that followed it, token and all */
  GBytes         *odek_plan;        /* when set: the answer to ODEK_ID's …/plan and …/plan/detail */
  GBytes         *odek_export;      /* when set: the answer to ODEK_ID's …/export */
} Fixture;

static inline GAsyncResult *
wait_result (GAsyncResult **slot)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  while (*slot == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (*slot);
  return *slot;
}

static inline void
store_result (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static inline void
iterate_until (gboolean *flag)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  while (!*flag && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (*flag);
}

/* --- the odek fixture ------------------------------------------------- */

static char endless_chunk[64 * 1024];

typedef struct
{
  Fixture *f;
  guint    index;
} EndlessStream;

/* Another piece of the endless line once the last one is out. */
static inline void
on_endless_wrote_chunk (SoupServerMessage *msg,
                        gpointer           user_data)
{
  EndlessStream *stream = user_data;

  if (stream->index == 1)
    stream->f->endless_first += sizeof endless_chunk;
  soup_message_body_append (soup_server_message_get_response_body (msg), SOUP_MEMORY_STATIC,
                            endless_chunk, sizeof endless_chunk);
}

static inline void
endless_stream_start (Fixture           *f,
                      SoupServerMessage *msg)
{
  EndlessStream *stream = g_new0 (EndlessStream, 1);

  memset (endless_chunk, 'x', sizeof endless_chunk);
  stream->f = f;
  stream->index = ++f->endless_streams;
  soup_server_message_set_status (msg, 200, NULL);
  soup_message_headers_set_content_type (soup_server_message_get_response_headers (msg), "text/event-stream", NULL);
  soup_message_headers_set_encoding (soup_server_message_get_response_headers (msg), SOUP_ENCODING_CHUNKED);
  g_signal_connect_data (msg, "wrote-chunk", G_CALLBACK (on_endless_wrote_chunk), stream,
                         (GClosureNotify) (GCallback) g_free, 0);
  soup_message_body_append (soup_server_message_get_response_body (msg), SOUP_MEMORY_STATIC,
                            ": hello\n\ndata: ", 16);
}

#define ODEK_LIST \
  "[{\"id\":\"" ODEK_ID "\",\"title\":\"Port the parser\",\"created_at\":\"2026-01-01T10:00:00Z\"," \
  "\"updated_at\":\"2026-01-01T11:00:00.5Z\",\"turns\":3,\"model\":\"gpt-x\",\"pinned\":true," \
  "\"input_tokens\":100,\"output_tokens\":20}]"

/* A reply sent in small pieces, each on a timer: blanks, which JSON allows
 * before a value, then the session list.  A byte a tick without end is
 * what a hostile endpoint does to hold a client's connection; 1 000 bytes
 * a tick (20 000 a second) for 1.5 s, a slow link's steady reply. */
typedef struct
{
  Fixture           *f;
  SoupServerMessage *msg;
  guint              tick;
  gsize              per_tick;
  gsize              blanks_left;   /* G_MAXSIZE: without end */
} Trickle;

static char trickle_blanks[1000];

static inline gboolean
on_trickle_tick (gpointer user_data)
{
  Trickle *trickle = user_data;
  SoupMessageBody *body = soup_server_message_get_response_body (trickle->msg);
  gsize n = MIN (trickle->per_tick, trickle->blanks_left);

  if (n == 0)
    {
      soup_message_body_append (body, SOUP_MEMORY_STATIC, ODEK_LIST, strlen (ODEK_LIST));
      soup_message_body_complete (body);
      soup_server_message_unpause (trickle->msg);
      trickle->tick = 0;
      return G_SOURCE_REMOVE;
    }
  soup_message_body_append (body, SOUP_MEMORY_STATIC, trickle_blanks, n);
  if (trickle->blanks_left != G_MAXSIZE)
    trickle->blanks_left -= n;
  soup_server_message_unpause (trickle->msg);
  return G_SOURCE_CONTINUE;
}

/* The connection is gone (the client dropped it): no more bytes. */
static inline void
on_trickle_finished (SoupServerMessage *msg,
                     gpointer           user_data)
{
  Trickle *trickle = user_data;

  g_clear_handle_id (&trickle->tick, g_source_remove);
  trickle->f->trickles_ended++;
}

static inline void
trickle_free (Trickle *trickle)
{
  g_clear_handle_id (&trickle->tick, g_source_remove);
  g_free (trickle);
}

static inline void
trickle_start (Fixture           *f,
               SoupServerMessage *msg)
{
  Trickle *trickle = g_new0 (Trickle, 1);

  memset (trickle_blanks, ' ', sizeof trickle_blanks);
  trickle->f = f;
  trickle->msg = msg;
  trickle->per_tick = f->odek_trickle_list == 1 ? 1 : sizeof trickle_blanks;
  trickle->blanks_left = f->odek_trickle_list == 1 ? G_MAXSIZE : 30 * sizeof trickle_blanks;
  f->trickles_started++;
  soup_server_message_set_status (msg, 200, NULL);
  soup_message_headers_set_content_type (soup_server_message_get_response_headers (msg), "application/json", NULL);
  soup_message_headers_set_encoding (soup_server_message_get_response_headers (msg), SOUP_ENCODING_CHUNKED);
  soup_message_body_append (soup_server_message_get_response_body (msg), SOUP_MEMORY_STATIC, " ", 1);
  trickle->tick = g_timeout_add (50, on_trickle_tick, trickle);
  g_signal_connect_data (msg, "finished", G_CALLBACK (on_trickle_finished), trickle,
                         (GClosureNotify) (GCallback) trickle_free, 0);
}

static inline void
odek_handler (SoupServer        *server,
              SoupServerMessage *msg,
              const char        *path,
              GHashTable        *query,
              gpointer           user_data)
{
  Fixture *f = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  const char *body = NULL;
  guint status = 200;

  /* Hung: the connection stays open and nothing comes back, as when the
   * server stopped or the network was cut. */
  if (f->odek_hung)
    {
      soup_server_message_pause (msg);
      g_ptr_array_add (f->odek_held, g_object_ref (msg));
      return;
    }
  f->odek_polls += strcmp (path, "/api/events") == 0;
  f->odek_exports += strcmp (path, "/api/sessions/" ODEK_ID "/export") == 0;

  /* Another run's event: what the source's poll notices as a change. */
  if (f->odek_generation > 0 && strcmp (path, "/api/events") == 0 &&
      g_strcmp0 (soup_message_headers_get_one (soup_server_message_get_request_headers (msg), "X-Odek-Ws-Token"), TOKEN) == 0)
    {
      char *text = g_strdup_printf ("{\"events\":[{\"schema\":\"odek.event/v1\",\"type\":\"plan_updated\",\"run_id\":\"aa\","
                                    "\"session_id\":\"" ODEK_ID "\",\"timestamp\":\"2026-08-07T12:00:%02uZ\",\"data\":{}}],"
                                    "\"count\":1}", f->odek_generation % 60);

      soup_server_message_set_status (msg, 200, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_TAKE, text, strlen (text));
      return;
    }

  /* A server that sends every request on elsewhere: whatever arrives
   * there came by following the redirect. */
  if (g_str_has_prefix (path, "/elsewhere/"))
    {
      f->redirected_with_token += soup_message_headers_get_one (soup_server_message_get_request_headers (msg),
                                                                "X-Odek-Ws-Token") != NULL;
      soup_server_message_set_status (msg, 404, NULL);
      return;
    }
  if (f->odek_redirect)
    {
      g_autofree char *to = g_strconcat ("/elsewhere", path, NULL);

      soup_server_message_set_redirect (msg, 302, to);
      return;
    }

  /* A body that begins and then neither grows nor ends. */
  if (f->odek_trickle && strcmp (path, "/trickle") == 0)
    {
      soup_server_message_set_status (msg, 200, NULL);
      soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
      soup_message_body_append (soup_server_message_get_response_body (msg), SOUP_MEMORY_STATIC, "[", 1);
      return;
    }
  if (f->odek_trickle_list && strcmp (path, "/api/sessions") == 0)
    {
      trickle_start (f, msg);
      return;
    }
  /* A session list that never ends: a hostile or broken server. */
  if (f->odek_huge && strcmp (path, "/api/sessions") == 0)
    {
      endless_stream_start (f, msg);
      soup_message_headers_set_content_type (headers, "application/json", NULL);
      return;
    }

  if (g_strcmp0 (soup_message_headers_get_one (soup_server_message_get_request_headers (msg), "X-Odek-Ws-Token"), TOKEN) != 0)
    {
      soup_server_message_set_status (msg, 403, NULL);
      soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_STATIC, "Forbidden\n", 10);
      return;
    }

  /* A server whose arrays hold elements of the wrong types among the
   * right ones (numbers, strings, arrays, nulls). */
  if (f->odek_endless && strcmp (path, "/api/events/stream") == 0)
    {
      endless_stream_start (f, msg);
      return;
    }
  if (f->odek_plan != NULL && g_str_has_prefix (path, "/api/sessions/" ODEK_ID "/plan"))
    {
      soup_server_message_set_status (msg, 200, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY,
                                        g_bytes_get_data (f->odek_plan, NULL), g_bytes_get_size (f->odek_plan));
      return;
    }
  if (f->odek_export != NULL && strcmp (path, "/api/sessions/" ODEK_ID "/export") == 0)
    {
      soup_server_message_set_status (msg, 200, NULL);
      soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY,
                                        g_bytes_get_data (f->odek_export, NULL), g_bytes_get_size (f->odek_export));
      return;
    }
  if (f->odek_endless && strcmp (path, "/api/health") == 0)
    body = "{\"status\":\"ok\",\"events_stream\":true,\"keepalive_ms\":1000}";
  else if (f->odek_mistyped && strcmp (path, "/api/sessions") == 0)
    body = "[1,\"x\",null,[],{\"id\":\"" ODEK_ID "\",\"title\":\"Kept\"}]";
  else if (f->odek_mistyped && strcmp (path, "/api/sessions/" ODEK_ID "/plan") == 0)
    body = "{\"session_id\":\"" ODEK_ID "\",\"version\":2,\"found\":true,\"steps\":[{\"id\":\"s1\",\"title\":\"Read\","
           "\"checks\":[7,[],\"c\",null,{\"id\":\"c1\",\"description\":\"kept\"}]}]}";
  else if (f->odek_mistyped && strcmp (path, "/api/sessions/" BAD_ID "/plan") == 0)
    body = "{\"session_id\":\"" BAD_ID "\",\"version\":2,\"found\":true,\"steps\":[{\"id\":\"s1\",\"title\":\"Read\"},5]}";
  else if (f->odek_mistyped && strcmp (path, "/api/sessions/" ODEK_ID "/export") == 0)
    body = "{\"messages\":[],\"plan_versions\":[1,[],{\"version\":1,\"created_at\":\"2026-01-01T10:00:00Z\","
           "\"state\":{\"version\":1,\"steps\":[]}}]}";
  else if (f->odek_mistyped && strcmp (path, "/api/events") == 0)
    body = "{\"events\":[{\"schema\":\"odek.event/v1\",\"type\":\"run_started\",\"run_id\":\"aa\",\"session_id\":\"" ODEK_ID "\","
           "\"timestamp\":\"2026-08-07T12:00:00Z\",\"data\":{}},"
           "{\"schema\":\"odek.event/v1\",\"type\":\"run_completed\",\"run_id\":\"aa\",\"session_id\":\"" ODEK_ID "\","
           "\"timestamp\":\"2026-08-07T12:00:01Z\",\"data\":{}}],\"seq\":[{},9]}";
  else if (strcmp (path, "/api/sessions") == 0)
    body = ODEK_LIST;
  else if (strcmp (path, "/api/sessions/" ODEK_ID) == 0)
    {
      soup_message_headers_replace (headers, "X-Session-Token", "odek-session-token");
      body = "{\"id\":\"" ODEK_ID "\",\"auth_token\":\"\",\"task\":\"Port the parser\",\"model\":\"gpt-x\","
             "\"messages\":[{\"role\":\"user\",\"content\":\"Port the parser\"}],\"turns\":3}";
    }
  else if (f->odek_generation > 0 && strcmp (path, "/api/sessions/" ODEK_ID "/export") == 0)
    body = "{\"id\":\"" ODEK_ID "\",\"messages\":[{\"role\":\"user\",\"content\":\"Port the parser\"},"
           "{\"role\":\"assistant\",\"content\":\"Reading it first.\"}],"
           "\"plan_versions\":[{\"version\":1,\"created_at\":\"2026-01-01T10:00:00Z\",\"state\":{\"version\":1,\"steps\":"
           "[{\"id\":\"s1\",\"title\":\"Read\",\"status\":\"in_progress\"}]}}]}";
  else if (strcmp (path, "/api/sessions/" ODEK_ID "/plan") == 0)
    body = "{\"session_id\":\"" ODEK_ID "\",\"version\":3,\"steps\":[{\"id\":\"s1\",\"title\":\"Read\",\"status\":\"done\"},"
           "{\"id\":\"s2\",\"title\":\"Write <i>it</i>\",\"status\":\"in_progress\",\"note\":\"half\"}],\"found\":true}";
  else if (strcmp (path, "/api/sessions/" SLOW_ID "/plan") == 0)
    {
      if (f->odek_429++ == 0)
        {
          status = 429;
          soup_message_headers_replace (headers, "Retry-After", "1");
          body = "rate limit exceeded\n";
        }
      else
        body = "{\"session_id\":\"" SLOW_ID "\",\"version\":0,\"steps\":[],\"found\":false}";
    }
  else if (strcmp (path, "/api/sessions/" BAD_ID "/plan") == 0)
    body = "{\"session_id\": oops";
  else if (strcmp (path, "/api/events") == 0)
    body = "{\"events\":[{\"schema\":\"odek.event/v1\",\"type\":\"run_started\",\"run_id\":\"aa\",\"session_id\":\"" ODEK_ID "\","
           "\"timestamp\":\"2026-08-07T12:00:00Z\",\"data\":{}},"
           "{\"schema\":\"odek.event/v1\",\"type\":\"tool_call_completed\",\"run_id\":\"aa\",\"session_id\":\"" ODEK_ID "\","
           "\"iteration\":3,\"tool\":\"read_file\",\"timestamp\":\"2026-08-07T12:00:01Z\","
           "\"data\":{\"duration_ms\":412,\"result_bytes\":812,\"artifact_count\":1}}],\"count\":2}";
  else if (strcmp (path, "/api/health") == 0)
    body = "{\"status\":\"ok\",\"version\":\"1.0\",\"model\":\"gpt-x\",\"ws_connections\":0}";
  else if (strcmp (path, "/api/usage") == 0)
    body = "{\"prompts_started\":1,\"tokens_in\":100,\"prices_configured\":false}";

  if (body == NULL)
    {
      status = 404;
      body = "session not found\n";
    }
  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, status == 200 ? "application/json" : "text/plain",
                                    SOUP_MEMORY_STATIC, body, strlen (body));
}

/* The server's fallback read of data_version; 0: its default. */
static guint fixture_watch_interval;

static inline void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(PdPlanStore) plan = pd_plan_store_new (12, 4000);
  g_autoptr(PdPlanState) state = NULL;
  g_autofree char *r1 = NULL;
  g_autofree char *r2 = NULL;
  guint odek_port;
  PdTurn turn = { 0 };

  f->dir = g_dir_make_tmp ("pd-remote-XXXXXX", &error);
  g_assert_no_error (error);
  f->db_path = g_build_filename (f->dir, "sessions.db", NULL);
  db = pd_db_open (f->db_path, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  store = pd_session_store_new (db);
  info = pd_session_store_create (store, "Fix the parser", "m", "replay", "plandeck", f->dir, &error);
  g_assert_no_error (error);
  f->id = g_strdup (info->id);
  r1 = pd_plan_store_execute (plan, "{\"verb\":\"create\",\"steps\":[{\"title\":\"Read\"},{\"title\":\"Fix\","
                                    "\"checks\":[{\"id\":\"t\",\"description\":\"tests pass\",\"tool\":\"shell\","
                                    "\"arguments\":{\"command\":\"make test\"}}]}]}", &error);
  g_assert_no_error (error);
  r2 = pd_plan_store_execute (plan, "{\"verb\":\"update\",\"updates\":[{\"id\":\"s1\",\"status\":\"done\"}]}", &error);
  g_assert_no_error (error);
  state = pd_plan_store_snapshot (plan);
  /* Its evidence, as a run that ran the check would leave it. */
  {
    PdPlanCheck *check = g_ptr_array_index (((PdPlanStep *) g_ptr_array_index (state->steps, 1))->checks, 0);

    check->call_id = g_strdup ("call_7");
  }
  turn.session_id = f->id;
  turn.plan = state;
  turn.status = PD_SESSION_STATUS_IDLE;
  g_assert_true (pd_session_store_save_turn (store, &turn, &error));

  f->server = pd_server_new (f->db_path);
  pd_server_set_listen (f->server, "127.0.0.1", 0);
  pd_server_set_token (f->server, TOKEN);
  pd_server_set_rate_limit (f->server, GPOINTER_TO_UINT (data));
  if (fixture_watch_interval > 0)
    pd_server_set_watch_interval (f->server, fixture_watch_interval);
  g_assert_true (pd_server_start (f->server, &error));
  g_assert_no_error (error);

  f->odek_held = g_ptr_array_new_with_free_func (g_object_unref);
  f->odek = pd_test_loopback_start (0, odek_handler, f, &odek_port);
  f->odek_url = g_strdup_printf ("http://127.0.0.1:%u/?token=%s", odek_port, TOKEN);
}

static inline void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  const char *names[] = { "sessions.db", "sessions.db-wal", "sessions.db-shm" };

  pd_server_stop (f->server);
  g_clear_object (&f->server);
  for (guint i = 0; i < f->odek_held->len; i++)
    soup_server_message_unpause (g_ptr_array_index (f->odek_held, i));
  g_ptr_array_unref (f->odek_held);
  pd_test_loopback_stop (&f->odek);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (f->dir, names[i], NULL);
      g_unlink (path);
    }
  g_rmdir (f->dir);
  g_free (f->dir);
  g_free (f->db_path);
  g_free (f->id);
  g_free (f->odek_url);
  g_clear_pointer (&f->odek_plan, g_bytes_unref);
  g_clear_pointer (&f->odek_export, g_bytes_unref);
}

static inline PdSource *
our_source (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *url = pd_server_dup_start_url (f->server);
  PdRemoteSource *source = pd_remote_source_new (url, NULL, &error);

  g_assert_no_error (error);
  return PD_SOURCE (source);
}

static inline PdSource *
odek_source (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  PdRemoteSource *source = pd_remote_source_new (f->odek_url, NULL, &error);

  g_assert_no_error (error);
  return PD_SOURCE (source);
}

/* Loopback, never through a proxy of the machine. */
static inline void
pd_test_remote_source_init (int    *argc,
                            char ***argv)
{
  const char *names[] = { "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY" };

  g_test_init (argc, argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_unsetenv (names[i]);
}

/* --- a hostile endpoint ------------------------------------------------ */

/* A raw endpoint on loopback, each connection served on a thread of its
 * own, answering /api/health as our serve does and its event stream as
 * one that misbehaves would: HOSTILE_FLOOD sends valid events without a
 * pause, HOSTILE_PUSH_FLOOD pushes new sessions without a pause,
 * HOSTILE_CLOSE_LOOP says one comment line and closes, and
 * HOSTILE_PUSH_BLOATED pushes a session in a line of megabytes of "{},"
 * then one in a line of its own, and holds the stream. */
typedef enum
{
  HOSTILE_FLOOD,
  HOSTILE_PUSH_FLOOD,
  HOSTILE_CLOSE_LOOP,
  HOSTILE_PUSH_BLOATED,
} HostileMode;

#define HOSTILE_PUSHED_SESSION(n) \
  "{\"id\":\"20261203-0000000000000000000000000000000" n "\",\"title\":\"pushed " n "\"," \
  "\"updated_at\":\"2026-12-03T17:00:00.000Z\",\"unpassed_checks\":0,\"plan\":{\"total\":3,\"done\":1}}"

typedef struct
{
  GSocketService *service;
  char           *url;
  HostileMode     mode;
  gint            stop;     /* atomic */
  gint            streams;  /* atomic: streams opened */
  gint            running;  /* atomic: connections being served */
  gsize           sent;     /* atomic: bytes of streams sent */
} Hostile;

static inline gboolean
hostile_write (Hostile       *hostile,
               GOutputStream *out,
               const char    *data,
               gsize          len)
{
  if (g_atomic_int_get (&hostile->stop))
    return FALSE;
  if (!g_output_stream_write_all (out, data, len, NULL, NULL, NULL))
    return FALSE;
  g_atomic_pointer_add (&hostile->sent, (gssize) len);
  return TRUE;
}

static inline void
hostile_stream (Hostile       *hostile,
                GOutputStream *out)
{
  const char *head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                     "Connection: close\r\n\r\n: plandeck event stream\n\n";
  g_autoptr(GString) block = g_string_new (NULL);
  guint next = 0;

  g_atomic_int_inc (&hostile->streams);
  if (!hostile_write (hostile, out, head, strlen (head)))
    return;
  switch (hostile->mode)
    {
    case HOSTILE_CLOSE_LOOP:
      return;
    case HOSTILE_PUSH_BLOATED:
      g_string_append (block, "event: sessions\ndata: {\"sessions\":[" HOSTILE_PUSHED_SESSION ("1"));
      for (guint i = 0; i < 1024 * 1024; i++)
        g_string_append (block, ",{}");
      g_string_append (block, "]}\n\nevent: sessions\ndata: {\"sessions\":[" HOSTILE_PUSHED_SESSION ("2") "]}\n\n");
      if (!hostile_write (hostile, out, block->str, block->len))
        return;
      while (!g_atomic_int_get (&hostile->stop))
        g_usleep (10000);
      return;
    case HOSTILE_FLOOD:
      for (guint i = 0; i < 200; i++)
        g_string_append (block, "data: {\"schema\":\"plandeck.event/v1\",\"type\":\"session_saved\","
                                "\"run_id\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\","
                                "\"session_id\":\"20261203-0000000000000000000000000abc0000\","
                                "\"timestamp\":\"2026-12-03T17:00:00.000000Z\",\"data\":{\"messages\":2}}\n\n");
      while (hostile_write (hostile, out, block->str, block->len))
        ;
      return;
    case HOSTILE_PUSH_FLOOD:
      for (;;)
        {
          g_string_truncate (block, 0);
          for (guint k = 0; k < 100; k++, next++)
            g_string_append_printf (block, "event: sessions\ndata: {\"sessions\":[{\"id\":\"20261203-%032x\","
                                           "\"title\":\"t%u\",\"updated_at\":\"2026-12-03T17:00:00.000Z\","
                                           "\"unpassed_checks\":0,\"plan\":{\"total\":3,\"done\":1}}]}\n\n",
                                    0xabc0000 + next, next);
          if (!hostile_write (hostile, out, block->str, block->len))
            return;
        }
    default:
      g_assert_not_reached ();
    }
}

static inline gboolean
on_hostile_run (GThreadedSocketService *service,
                GSocketConnection      *connection,
                GObject                *source_object,
                gpointer                user_data)
{
  Hostile *hostile = user_data;
  GInputStream *in = g_io_stream_get_input_stream (G_IO_STREAM (connection));
  GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (connection));
  g_autoptr(GString) request = g_string_new (NULL);
  char buffer[4096];
  const char *body = "{}";
  g_autofree char *answer = NULL;

  g_atomic_int_inc (&hostile->running);
  g_socket_set_timeout (g_socket_connection_get_socket (connection), 5);
  while (strstr (request->str, "\r\n\r\n") == NULL && request->len < 65536)
    {
      gssize n = g_input_stream_read (in, buffer, sizeof buffer, NULL, NULL);

      if (n <= 0)
        goto out;
      g_string_append_len (request, buffer, n);
    }
  if (g_str_has_prefix (request->str, "GET /api/events/stream"))
    {
      hostile_stream (hostile, out);
      goto out;
    }
  if (g_str_has_prefix (request->str, "GET /api/health"))
    body = "{\"status\":\"ok\",\"server\":\"plandeck\",\"events_stream\":true,\"keepalive_ms\":1000,"
           "\"sessions_push\":true,\"plan_detail\":true}";
  else if (g_str_has_prefix (request->str, "GET /api/sessions"))
    body = "[]";
  answer = g_strdup_printf ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
                            "Connection: close\r\n\r\n%s", strlen (body), body);
  g_output_stream_write_all (out, answer, strlen (answer), NULL, NULL, NULL);
out:
  g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
  g_atomic_int_dec_and_test (&hostile->running);
  return TRUE;
}

static inline Hostile *
hostile_start (HostileMode mode)
{
  Hostile *hostile = g_new0 (Hostile, 1);
  g_autoptr(GError) error = NULL;
  guint16 port;

  hostile->mode = mode;
  hostile->service = g_threaded_socket_service_new (32);
  g_signal_connect (hostile->service, "run", G_CALLBACK (on_hostile_run), hostile);
  port = g_socket_listener_add_any_inet_port (G_SOCKET_LISTENER (hostile->service), NULL, &error);
  g_assert_no_error (error);
  hostile->url = g_strdup_printf ("http://127.0.0.1:%u/?token=%s", port, TOKEN);
  g_socket_service_start (hostile->service);
  return hostile;
}

static inline void
hostile_service_gone (gpointer  data,
                      GObject  *where_the_object_was)
{
  g_atomic_int_set ((int *) data, 1);
}

/* Stops it once its connections are done (a stream ends at the next
 * write once told to stop).  A connection accepted just before the stop
 * can still be waiting for a worker thread, its handler not yet counted
 * in `running`; each such job holds a reference on the service, so the
 * Hostile is freed only once the service is gone (freed with the count
 * at 0, a late handler read it after the free: found by ASan). */
static inline void
hostile_stop (Hostile *hostile)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  int gone = 0;

  g_atomic_int_set (&hostile->stop, 1);
  g_socket_service_stop (hostile->service);
  g_socket_listener_close (G_SOCKET_LISTENER (hostile->service));
  g_object_weak_ref (G_OBJECT (hostile->service), hostile_service_gone, &gone);
  g_clear_object (&hostile->service);
  while (!g_atomic_int_get (&gone) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  g_assert_true (g_atomic_int_get (&gone));
  g_assert_cmpint (g_atomic_int_get (&hostile->running), ==, 0);
  g_free (hostile->url);
  g_free (hostile);
}

static inline PdSource *
hostile_source (Hostile *hostile)
{
  g_autoptr(GError) error = NULL;
  PdRemoteSource *source = pd_remote_source_new (hostile->url, NULL, &error);

  g_assert_no_error (error);
  return PD_SOURCE (source);
}
