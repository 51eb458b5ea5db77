/* test-remote-source.c: PdRemoteSource against our PdServer (in its own
 * thread) and against a fixture server on this thread that answers with
 * odek's recorded shapes.
 */
#define G_LOG_DOMAIN "test-remote-source"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>
#include <libsoup/soup.h>

#include "pd-plan.h"
#include "pd-remote-source.h"
#include "pd-server.h"
#include "pd-soup-compat.h"

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
  guint           odek_generation;  /* > 0: /api/events ends with an event of this second */
  guint           redirected_with_token;  /* requests that followed it, token and all */
} Fixture;

static GAsyncResult *
wait_result (GAsyncResult **slot)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  while (*slot == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (*slot);
  return *slot;
}

static void
store_result (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  *(GAsyncResult **) user_data = g_object_ref (result);
}

static void
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
static void
on_endless_wrote_chunk (SoupServerMessage *msg,
                        gpointer           user_data)
{
  EndlessStream *stream = user_data;

  if (stream->index == 1)
    stream->f->endless_first += sizeof endless_chunk;
  soup_message_body_append (soup_server_message_get_response_body (msg), SOUP_MEMORY_STATIC,
                            endless_chunk, sizeof endless_chunk);
}

static void
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

static void
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
    body = "[{\"id\":\"" ODEK_ID "\",\"title\":\"Port the parser\",\"created_at\":\"2026-01-01T10:00:00Z\","
           "\"updated_at\":\"2026-01-01T11:00:00.5Z\",\"turns\":3,\"model\":\"gpt-x\",\"pinned\":true,"
           "\"input_tokens\":100,\"output_tokens\":20}]";
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

static void
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
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) local = NULL;
  GSList *listeners;
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
  r1 = pd_plan_store_execute (plan, "{\"verb\":\"create\",\"steps\":[{\"title\":\"Read\"},{\"title\":\"Fix\"}]}", &error);
  g_assert_no_error (error);
  r2 = pd_plan_store_execute (plan, "{\"verb\":\"update\",\"updates\":[{\"id\":\"s1\",\"status\":\"done\"}]}", &error);
  g_assert_no_error (error);
  state = pd_plan_store_snapshot (plan);
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

  /* Neither soup_server_listen_local() nor soup_server_get_uris(): libsoup
   * 3.2 leaks an address in each (and each accepted socket, unless plugged). */
  f->odek_held = g_ptr_array_new_with_free_func (g_object_unref);
  f->odek = soup_server_new (NULL, NULL);
  pd_soup_server_plug_accept_leak (f->odek);
  soup_server_add_handler (f->odek, NULL, odek_handler, f, NULL);
  soup_server_listen (f->odek, address, 0, &error);
  g_assert_no_error (error);
  listeners = soup_server_get_listeners (f->odek);
  local = g_socket_get_local_address (listeners->data, &error);
  g_assert_no_error (error);
  g_slist_free (listeners);
  f->odek_url = g_strdup_printf ("http://127.0.0.1:%u/?token=%s",
                                 g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local)), TOKEN);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  const char *names[] = { "sessions.db", "sessions.db-wal", "sessions.db-shm" };

  pd_server_stop (f->server);
  g_clear_object (&f->server);
  for (guint i = 0; i < f->odek_held->len; i++)
    soup_server_message_unpause (g_ptr_array_index (f->odek_held, i));
  g_ptr_array_unref (f->odek_held);
  soup_server_disconnect (f->odek);
  g_clear_object (&f->odek);
  while (g_main_context_iteration (NULL, FALSE))
    ;
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
}

static PdSource *
our_source (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *url = pd_server_dup_start_url (f->server);
  PdRemoteSource *source = pd_remote_source_new (url, NULL, &error);

  g_assert_no_error (error);
  return PD_SOURCE (source);
}

static PdSource *
odek_source (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  PdRemoteSource *source = pd_remote_source_new (f->odek_url, NULL, &error);

  g_assert_no_error (error);
  return PD_SOURCE (source);
}

static void
test_ours (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(PdSource) source = our_source (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL, r3 = NULL, r4 = NULL, r5 = NULL, r6 = NULL, r7 = NULL, r8 = NULL, r9 = NULL, r10 = NULL;
  g_autoptr(PdSessionPage) page = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(GPtrArray) history = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(JsonObject) usage = NULL;
  PdEventBus *bus = pd_server_get_bus (f->server);

  g_assert_cmpstr (pd_source_get_kind (source), ==, "remote");

  pd_source_list_sessions_async (source, "parser", FALSE, 0, 10, NULL, store_result, &r1);
  page = pd_source_list_sessions_finish (source, wait_result (&r1), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (page->sessions->len, ==, 1);
  g_assert_cmpuint (page->total, ==, 1);
  g_assert_cmpstr (((PdSessionInfo *) g_ptr_array_index (page->sessions, 0))->id, ==, f->id);

  pd_source_get_session_async (source, f->id, NULL, store_result, &r2);
  info = pd_source_get_session_finish (source, wait_result (&r2), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (info->task, ==, "Fix the parser");
  g_assert_cmpint (info->plan_version, ==, 2);
  g_assert_cmpuint (info->plan_total, ==, 2);
  g_assert_cmpint (info->created_at, >, 0);

  pd_source_get_plan_async (source, f->id, NULL, store_result, &r3);
  g_assert_true (pd_source_get_plan_finish (source, wait_result (&r3), &plan, &error));
  g_assert_no_error (error);
  g_assert_nonnull (plan);
  g_assert_cmpint (plan->version, ==, 2);
  g_assert_cmpuint (plan->steps->len, ==, 2);
  g_assert_cmpint (((PdPlanStep *) g_ptr_array_index (plan->steps, 0))->status, ==, PD_PLAN_STEP_DONE);

  pd_source_get_plan_history_async (source, f->id, NULL, store_result, &r4);
  history = pd_source_get_plan_history_finish (source, wait_result (&r4), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (history->len, ==, 1);

  pd_source_get_messages_async (source, f->id, NULL, store_result, &r5);
  messages = pd_source_get_messages_finish (source, wait_result (&r5), &error);
  g_assert_no_error (error);

  {
    PdEvent *event = pd_event_new (PD_EVENT_PLAN_UPDATED);
    pd_event_set_session_id (event, f->id);
    pd_event_bus_emit (bus, event);
    pd_event_unref (event);
    event = pd_event_new (PD_EVENT_RUN_COMPLETED);
    pd_event_set_session_id (event, f->id);
    pd_event_bus_emit (bus, event);
    pd_event_unref (event);
    pd_event_bus_flush (bus);
  }
  pd_source_get_events_async (source, f->id, 0, 10, NULL, store_result, &r6);
  events = pd_source_get_events_finish (source, wait_result (&r6), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 2);
  g_assert_cmpint (((PdStoredEvent *) g_ptr_array_index (events, 1))->seq, >,
                   ((PdStoredEvent *) g_ptr_array_index (events, 0))->seq);
  {
    gint64 first = ((PdStoredEvent *) g_ptr_array_index (events, 0))->seq;
    g_autoptr(GPtrArray) later = NULL;

    pd_source_get_events_async (source, f->id, first, 10, NULL, store_result, &r7);
    later = pd_source_get_events_finish (source, wait_result (&r7), &error);
    g_assert_no_error (error);
    g_assert_cmpuint (later->len, ==, 1);
  }

  pd_source_get_usage_async (source, NULL, store_result, &r8);
  usage = pd_source_get_usage_finish (source, wait_result (&r8), &error);
  g_assert_no_error (error);
  g_assert_cmpint (json_object_get_int_member (usage, "plans_updated"), ==, 1);

  /* A change on a source that never read the session: it fetches the
   * session token first. */
  {
    g_autoptr(PdSource) fresh = our_source (f);
    g_autoptr(GAsyncResult) ru = NULL, rg = NULL, rd = NULL, rx = NULL;
    g_autoptr(PdSessionInfo) renamed = NULL;
    g_autoptr(PdSessionInfo) gone = NULL;

    pd_source_update_session_async (fresh, f->id, "Parser work", 1, NULL, store_result, &ru);
    g_assert_true (pd_source_update_session_finish (fresh, wait_result (&ru), &error));
    g_assert_no_error (error);
    pd_source_get_session_async (fresh, f->id, NULL, store_result, &rg);
    renamed = pd_source_get_session_finish (fresh, wait_result (&rg), &error);
    g_assert_cmpstr (renamed->name, ==, "Parser work");
    g_assert_true (renamed->pinned);

    pd_source_delete_session_async (fresh, f->id, NULL, store_result, &rd);
    g_assert_true (pd_source_delete_session_finish (fresh, wait_result (&rd), &error));
    g_assert_no_error (error);
    pd_source_get_session_async (fresh, f->id, NULL, store_result, &rx);
    gone = pd_source_get_session_finish (fresh, wait_result (&rx), &error);
    g_assert_null (gone);
    g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND);
    g_clear_error (&error);
  }

  /* Ids are checked before they reach a path. */
  pd_source_get_plan_async (source, "../../etc/passwd", NULL, store_result, &r9);
  g_assert_false (pd_source_get_plan_finish (source, wait_result (&r9), NULL, &error));
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND);
  g_clear_error (&error);

  /* A wrong token. */
  {
    g_autofree char *base = pd_server_dup_base_url (f->server);
    g_autoptr(PdRemoteSource) wrong = pd_remote_source_new (base, "nope", &error);
    g_autoptr(JsonObject) nothing = NULL;

    g_assert_no_error (error);
    pd_source_get_usage_async (PD_SOURCE (wrong), NULL, store_result, &r10);
    nothing = pd_source_get_usage_finish (PD_SOURCE (wrong), wait_result (&r10), &error);
    g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_DENIED);
    g_clear_error (&error);
  }
}

static void
test_errors (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL, r3 = NULL;
  g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autofree char *url = NULL;
  g_autoptr(PdRemoteSource) refused = NULL;
  g_autoptr(PdSource) odek = odek_source (f);
  g_autoptr(JsonObject) usage = NULL;
  PdPlanState *plan = NULL;

  g_assert_null (pd_remote_source_new ("ftp://example.org", "t", &error));
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID);
  g_clear_error (&error);
  /* No token: the source is made all the same, and a refused connection
   * says so (whether the server is there is what a person needs first). */
  {
    g_autoptr(PdRemoteSource) tokenless = pd_remote_source_new ("http://127.0.0.1:1/", NULL, &error);
    g_autoptr(GAsyncResult) r0 = NULL;
    g_autoptr(JsonObject) none = NULL;

    g_assert_no_error (error);
    g_assert_null (pd_remote_source_get_token (tokenless));
    g_assert_cmpint (pd_remote_source_get_state (tokenless), ==, PD_REMOTE_CONNECTING);
    pd_source_get_usage_async (PD_SOURCE (tokenless), NULL, store_result, &r0);
    none = pd_source_get_usage_finish (PD_SOURCE (tokenless), wait_result (&r0), &error);
    g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE);
    g_assert_nonnull (strstr (error->message, "refused"));
    g_clear_error (&error);
    g_assert_cmpint (pd_remote_source_get_state (tokenless), ==, PD_REMOTE_OFFLINE);
    g_assert_nonnull (strstr (pd_remote_source_get_state_message (tokenless), "refused"));
  }

  /* A port nobody listens on (bound, never listening). */
  g_assert_true (g_socket_bind (socket, any, FALSE, &error));
  bound = g_socket_get_local_address (socket, &error);
  url = g_strdup_printf ("http://127.0.0.1:%u/?token=x", g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));
  refused = pd_remote_source_new (url, NULL, &error);
  g_assert_no_error (error);
  pd_source_get_usage_async (PD_SOURCE (refused), NULL, store_result, &r1);
  usage = pd_source_get_usage_finish (PD_SOURCE (refused), wait_result (&r1), &error);
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE);
  g_clear_error (&error);

  /* Bad JSON. */
  pd_source_get_plan_async (odek, BAD_ID, NULL, store_result, &r2);
  g_assert_false (pd_source_get_plan_finish (odek, wait_result (&r2), &plan, &error));
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID);
  g_clear_error (&error);

  /* 429, then the next request waits for Retry-After and succeeds. */
  pd_source_get_plan_async (odek, SLOW_ID, NULL, store_result, &r3);
  g_assert_false (pd_source_get_plan_finish (odek, wait_result (&r3), &plan, &error));
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_RATE_LIMITED);
  g_clear_error (&error);
  {
    g_autoptr(GAsyncResult) r4 = NULL;
    gint64 start = g_get_monotonic_time ();

    pd_source_get_plan_async (odek, SLOW_ID, NULL, store_result, &r4);
    g_assert_true (pd_source_get_plan_finish (odek, wait_result (&r4), &plan, &error));
    g_assert_no_error (error);
    g_assert_null (plan);
    g_assert_cmpint (g_get_monotonic_time () - start, >=, 500 * 1000);
  }
}

static void
test_rate_limited_by_ours (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(PdSource) source = our_source (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL, r3 = NULL;
  g_autoptr(PdSessionInfo) a = NULL, b = NULL, c = NULL;

  pd_source_get_session_async (source, f->id, NULL, store_result, &r1);
  a = pd_source_get_session_finish (source, wait_result (&r1), &error);
  g_assert_no_error (error);
  pd_source_get_session_async (source, f->id, NULL, store_result, &r2);
  b = pd_source_get_session_finish (source, wait_result (&r2), &error);
  g_assert_no_error (error);
  pd_source_get_session_async (source, f->id, NULL, store_result, &r3);
  c = pd_source_get_session_finish (source, wait_result (&r3), &error);
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_RATE_LIMITED);
}

static void
test_odek_shapes (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(PdSource) source = odek_source (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL, r3 = NULL, r4 = NULL, r5 = NULL, r6 = NULL;
  g_autoptr(PdSessionPage) page = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(PdPlanState) again = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(JsonArray) messages = NULL;
  PdSessionInfo *row;
  PdPlanStep *step;

  pd_source_list_sessions_async (source, NULL, FALSE, 0, 50, NULL, store_result, &r1);
  page = pd_source_list_sessions_finish (source, wait_result (&r1), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (page->sessions->len, ==, 1);
  row = g_ptr_array_index (page->sessions, 0);
  g_assert_cmpstr (row->id, ==, ODEK_ID);
  g_assert_cmpstr (row->task, ==, "Port the parser");
  g_assert_true (row->pinned);
  g_assert_cmpint (row->turns, ==, 3);
  g_assert_cmpint (row->updated_at, ==, row->created_at + (gint64) 3600 * G_USEC_PER_SEC + G_USEC_PER_SEC / 2);

  pd_source_get_session_async (source, ODEK_ID, NULL, store_result, &r2);
  info = pd_source_get_session_finish (source, wait_result (&r2), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (info->n_messages, ==, 1);

  /* No …/plan/detail there: the client falls back to …/plan. */
  pd_source_get_plan_async (source, ODEK_ID, NULL, store_result, &r3);
  g_assert_true (pd_source_get_plan_finish (source, wait_result (&r3), &plan, &error));
  g_assert_no_error (error);
  g_assert_cmpint (plan->version, ==, 3);
  g_assert_cmpuint (plan->steps->len, ==, 2);
  step = g_ptr_array_index (plan->steps, 1);
  g_assert_cmpstr (step->title, ==, "Write <i>it</i>");
  g_assert_cmpstr (step->note, ==, "half");
  g_assert_cmpint (step->status, ==, PD_PLAN_STEP_IN_PROGRESS);
  pd_source_get_plan_async (source, ODEK_ID, NULL, store_result, &r4);
  g_assert_true (pd_source_get_plan_finish (source, wait_result (&r4), &again, &error));
  g_assert_cmpint (again->version, ==, 3);

  pd_source_get_events_async (source, ODEK_ID, 0, 100, NULL, store_result, &r5);
  events = pd_source_get_events_finish (source, wait_result (&r5), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 2);
  g_assert_nonnull (strstr (((PdStoredEvent *) g_ptr_array_index (events, 1))->event_json, "tool_call_completed"));

  pd_source_get_messages_async (source, ODEK_ID, NULL, store_result, &r6);
  messages = pd_source_get_messages_finish (source, wait_result (&r6), &error);
  /* odek's export route is not in the fixture: a clear not-found. */
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND);
}

/* Elements of another type in a server's arrays are passed over (a plan
 * step that is not an object is a clear error): json-glib is never asked
 * for an object or an integer it does not hold (a critical, fatal here). */
static void
test_mistyped_elements (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(PdSource) source = odek_source (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL, r3 = NULL, r4 = NULL, r5 = NULL;
  g_autoptr(PdSessionPage) page = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(PdPlanState) none = NULL;
  g_autoptr(GPtrArray) history = NULL;
  g_autoptr(GPtrArray) events = NULL;
  PdPlanStep *step;

  f->odek_mistyped = TRUE;

  pd_source_list_sessions_async (source, NULL, FALSE, 0, 50, NULL, store_result, &r1);
  page = pd_source_list_sessions_finish (source, wait_result (&r1), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (page->sessions->len, ==, 1);
  g_assert_cmpstr (((PdSessionInfo *) g_ptr_array_index (page->sessions, 0))->task, ==, "Kept");

  pd_source_get_plan_async (source, ODEK_ID, NULL, store_result, &r2);
  g_assert_true (pd_source_get_plan_finish (source, wait_result (&r2), &plan, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (plan->steps->len, ==, 1);
  step = g_ptr_array_index (plan->steps, 0);
  g_assert_cmpuint (step->checks->len, ==, 1);
  g_assert_cmpstr (((PdPlanCheck *) g_ptr_array_index (step->checks, 0))->description, ==, "kept");

  pd_source_get_plan_async (source, BAD_ID, NULL, store_result, &r3);
  g_assert_false (pd_source_get_plan_finish (source, wait_result (&r3), &none, &error));
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID);
  g_assert_null (none);
  g_clear_error (&error);

  pd_source_get_plan_history_async (source, ODEK_ID, NULL, store_result, &r4);
  history = pd_source_get_plan_history_finish (source, wait_result (&r4), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (history->len, ==, 1);

  /* A sequence number that is not one: the event's position stands in. */
  pd_source_get_events_async (source, ODEK_ID, 0, 100, NULL, store_result, &r5);
  events = pd_source_get_events_finish (source, wait_result (&r5), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (events->len, ==, 2);
  g_assert_cmpint (((PdStoredEvent *) g_ptr_array_index (events, 0))->seq, ==, 1);
  g_assert_cmpint (((PdStoredEvent *) g_ptr_array_index (events, 1))->seq, ==, 9);
}

/* An endpoint without runs says so, in words a person can act on: odek's
 * HEAD (no /api/prompt, no /api/runs: its mux answers 404 in plain text)
 * and a serve with no engine (501). */
static void
test_runs_unsupported (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(PdSource) odek = odek_source (f);
  g_autoptr(PdSource) ours = our_source (f);
  g_autoptr(GAsyncResult) r1 = NULL, r2 = NULL, r3 = NULL, r4 = NULL, r5 = NULL;
  g_autoptr(GError) e1 = NULL, e2 = NULL, e3 = NULL, e4 = NULL, e5 = NULL;
  g_autoptr(PdRemoteRun) started = NULL, followed = NULL, ours_started = NULL;
  PdRemoteRun question = { .run_id = (char *) "run-1", .session_id = (char *) ODEK_ID,
                           .status = (char *) "waiting_approval", .approval_id = (char *) "apr-1" };

  pd_remote_source_start_run_async (PD_REMOTE_SOURCE (odek), ODEK_ID, "Go on", NULL, store_result, &r1);
  started = pd_remote_source_start_run_finish (PD_REMOTE_SOURCE (odek), wait_result (&r1), &e1);
  g_assert_null (started);
  g_assert_error (e1, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (e1->message, "does not run sessions for this app"));
  g_assert_nonnull (strstr (e1->message, "/api/prompt"));

  pd_remote_source_get_run_async (PD_REMOTE_SOURCE (odek), "run-1", NULL, store_result, &r2);
  followed = pd_remote_source_get_run_finish (PD_REMOTE_SOURCE (odek), wait_result (&r2), &e2);
  g_assert_null (followed);
  g_assert_error (e2, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (e2->message, "cannot follow it"));

  pd_remote_source_answer_approval_async (PD_REMOTE_SOURCE (odek), &question, TRUE, NULL, store_result, &r3);
  g_assert_false (pd_remote_source_answer_approval_finish (PD_REMOTE_SOURCE (odek), wait_result (&r3), &e3));
  g_assert_error (e3, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (e3->message, "takes no approvals from this app"));

  pd_remote_source_cancel_async (PD_REMOTE_SOURCE (odek), ODEK_ID, NULL, store_result, &r4);
  g_assert_false (pd_remote_source_cancel_finish (PD_REMOTE_SOURCE (odek), wait_result (&r4), &e4));
  g_assert_error (e4, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED);

  /* Ours without an engine: 501 with its reason. */
  pd_remote_source_start_run_async (PD_REMOTE_SOURCE (ours), NULL, "Start", NULL, store_result, &r5);
  ours_started = pd_remote_source_start_run_finish (PD_REMOTE_SOURCE (ours), wait_result (&r5), &e5);
  g_assert_null (ours_started);
  g_assert_error (e5, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED);
  g_assert_nonnull (strstr (e5->message, "this server does not run prompts"));

  /* Finding a session's live run: odek's HEAD cannot say; ours has none. */
  {
    g_autoptr(GAsyncResult) r6 = NULL, r7 = NULL;
    g_autoptr(GError) e6 = NULL, e7 = NULL;
    g_autoptr(PdRemoteRun) odek_live = NULL, ours_live = NULL;

    pd_remote_source_find_run_async (PD_REMOTE_SOURCE (odek), ODEK_ID, NULL, store_result, &r6);
    odek_live = pd_remote_source_find_run_finish (PD_REMOTE_SOURCE (odek), wait_result (&r6), &e6);
    g_assert_null (odek_live);
    g_assert_error (e6, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNSUPPORTED);

    pd_remote_source_find_run_async (PD_REMOTE_SOURCE (ours), f->id, NULL, store_result, &r7);
    ours_live = pd_remote_source_find_run_finish (PD_REMOTE_SOURCE (ours), wait_result (&r7), &e7);
    g_assert_no_error (e7);
    g_assert_null (ours_live);
  }
}

static void
on_event (PdRemoteSource *source,
          PdEvent        *event,
          gpointer        user_data)
{
  if (g_strcmp0 (pd_event_get_event_type (event), PD_EVENT_PLAN_UPDATED) == 0)
    *(gboolean *) user_data = TRUE;
}

static void
on_changed (PdSource *source,
            gpointer  user_data)
{
  *(gboolean *) user_data = TRUE;
}

static gboolean
is_streaming (PdRemoteSource *source)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (!pd_remote_source_is_streaming (source) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  return pd_remote_source_is_streaming (source);
}

static void
test_watch_stream (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(PdSource) source = our_source (f);
  gboolean got_event = FALSE, changed = FALSE;
  PdEvent *event;

  g_signal_connect (source, "event", G_CALLBACK (on_event), &got_event);
  g_signal_connect (source, "changed", G_CALLBACK (on_changed), &changed);
  pd_remote_source_watch (PD_REMOTE_SOURCE (source), 200);
  g_assert_true (is_streaming (PD_REMOTE_SOURCE (source)));

  /* The stream is open on the server once the first line went out; give
   * its listener a moment, then emit. */
  for (guint i = 0; i < 50 && !got_event; i++)
    {
      event = pd_event_new (PD_EVENT_PLAN_UPDATED);
      pd_event_set_session_id (event, f->id);
      pd_event_bus_emit (pd_server_get_bus (f->server), event);
      pd_event_unref (event);
      {
        gint64 until = g_get_monotonic_time () + 100 * 1000;
        while (!got_event && g_get_monotonic_time () < until)
          g_main_context_iteration (NULL, FALSE);
      }
    }
  iterate_until (&got_event);
  iterate_until (&changed);
  pd_remote_source_watch (PD_REMOTE_SOURCE (source), 0);
}

/* Another connection (a CLI run) commits: serve's file monitor tells its
 * streams at once, with its fallback poll a minute away. */
static void
set_up_slow_poll (Fixture       *f,
                  gconstpointer  data)
{
  fixture_watch_interval = 60000;
  fixture_set_up (f, data);
  fixture_watch_interval = 0;
}

static void
test_watch_other_writer (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(PdSource) source = our_source (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  gboolean changed = FALSE;
  gint64 until;

  g_signal_connect (source, "changed", G_CALLBACK (on_changed), &changed);
  /* The source's own fallback poll a minute away too. */
  pd_remote_source_watch (PD_REMOTE_SOURCE (source), 60000);
  g_assert_true (is_streaming (PD_REMOTE_SOURCE (source)));
  until = g_get_monotonic_time () + 300 * 1000;
  while (g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, FALSE);
  changed = FALSE;

  db = pd_db_open (f->db_path, PD_DB_NONE, &error);
  g_assert_no_error (error);
  store = pd_session_store_new (db);
  info = pd_session_store_create (store, "Another task", "m", "replay", "plandeck", f->dir, &error);
  g_assert_no_error (error);
  iterate_until (&changed);
  pd_remote_source_watch (PD_REMOTE_SOURCE (source), 0);
}

static void
test_watch_poll (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(PdSource) source = odek_source (f);
  gint64 deadline = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;

  pd_remote_source_watch (PD_REMOTE_SOURCE (source), 50);
  /* odek has no stream: polling, never streaming, no error. */
  while (g_get_monotonic_time () < deadline)
    {
      g_main_context_iteration (NULL, FALSE);
      g_assert_false (pd_remote_source_is_streaming (PD_REMOTE_SOURCE (source)));
      g_usleep (1000);
    }
  pd_remote_source_watch (PD_REMOTE_SOURCE (source), 0);
}

static gboolean
in_state (PdRemoteSource *source,
          PdRemoteState   state)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  while (pd_remote_source_get_state (source) != state && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  return pd_remote_source_get_state (source) == state;
}

/* The History and Transcript pages both read …/export on each change (the
 * plan history and the messages): one request answers both, and a page
 * that asks later, with no change since, gets the same answer; each change
 * is one request more, and a page that cancels its ask (a reload) takes
 * nothing from the other.  (Issue 15: every change cost two.) */
typedef struct
{
  GAsyncResult *history;
  GAsyncResult *messages;
} ExportAsks;

static void
count_change (PdSource *source,
              gpointer  user_data)
{
  (*(guint *) user_data)++;
}

static void
ask_export (PdSource     *source,
            ExportAsks   *asks,
            GCancellable *history_cancellable)
{
  g_clear_object (&asks->history);
  g_clear_object (&asks->messages);
  pd_source_get_plan_history_async (source, ODEK_ID, history_cancellable, store_result, &asks->history);
  pd_source_get_messages_async (source, ODEK_ID, NULL, store_result, &asks->messages);
}

static void
assert_export_answers (PdSource   *source,
                       ExportAsks *asks)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) history = pd_source_get_plan_history_finish (source, wait_result (&asks->history), &error);
  g_autoptr(JsonArray) messages = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (history->len, ==, 1);
  messages = pd_source_get_messages_finish (source, wait_result (&asks->messages), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (messages), ==, 2);
}

static void
test_export_shared (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(PdSource) source = odek_source (f);
  ExportAsks asks = { NULL, NULL };
  guint changes = 0;

  g_signal_connect (source, "changed", G_CALLBACK (count_change), &changes);
  f->odek_generation = 1;
  pd_remote_source_watch (PD_REMOTE_SOURCE (source), 50);
  g_assert_true (in_state (PD_REMOTE_SOURCE (source), PD_REMOTE_ONLINE));

  for (guint round = 1; round <= 3; round++)
    {
      if (round > 1)
        {
          /* Another run's event: the poll tells of a change. */
          f->odek_generation = round;
          while (changes < round - 1)
            g_main_context_iteration (NULL, TRUE);
          g_assert_cmpuint (changes, ==, round - 1);
        }

      /* Both pages ask at once: one request. */
      ask_export (source, &asks, NULL);
      assert_export_answers (source, &asks);
      g_assert_cmpuint (f->odek_exports, ==, round);

      /* A page shown later asks again, nothing changed: no request. */
      ask_export (source, &asks, NULL);
      assert_export_answers (source, &asks);
      g_assert_cmpuint (f->odek_exports, ==, round);
    }

  /* A change, and the first page to ask cancels (it reloads): the other
   * still gets its answer, from the one request. */
  f->odek_generation = 4;
  while (changes < 3)
    g_main_context_iteration (NULL, TRUE);
  {
    g_autoptr(GCancellable) cancellable = g_cancellable_new ();
    g_autoptr(GError) error = NULL;
    g_autoptr(JsonArray) messages = NULL;
    g_autoptr(GPtrArray) history = NULL;

    ask_export (source, &asks, cancellable);
    g_cancellable_cancel (cancellable);
    messages = pd_source_get_messages_finish (source, wait_result (&asks.messages), &error);
    g_assert_no_error (error);
    g_assert_cmpuint (json_array_get_length (messages), ==, 2);
    history = pd_source_get_plan_history_finish (source, wait_result (&asks.history), &error);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_assert_null (history);
    g_assert_cmpuint (f->odek_exports, ==, 4);
  }

  /* Not watching, no change would be heard of: each ask is a request. */
  pd_remote_source_watch (PD_REMOTE_SOURCE (source), 0);
  ask_export (source, &asks, NULL);
  assert_export_answers (source, &asks);
  g_assert_cmpuint (f->odek_exports, ==, 5);
  ask_export (source, &asks, NULL);
  assert_export_answers (source, &asks);
  g_assert_cmpuint (f->odek_exports, ==, 6);

  g_clear_object (&asks.history);
  g_clear_object (&asks.messages);
}

/* A server that announces no keepalive (odek) and stops answering: its
 * connections stay open, so no request fails, and the HTTP timeout is
 * taken away.  The watchdog's health probe, unanswered, tells: offline,
 * saying so; once it answers again, online. */
static void
test_watch_hung_odek (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(PdSource) source = odek_source (f);
  PdRemoteSource *remote = PD_REMOTE_SOURCE (source);

  pd_remote_source_set_timeout (remote, 0);
  /* Its poll a minute away: only the probe can notice. */
  pd_remote_source_watch (remote, 60000);
  g_assert_true (in_state (remote, PD_REMOTE_ONLINE));
  while (f->odek_polls == 0)
    g_main_context_iteration (NULL, TRUE);

  f->odek_hung = TRUE;
  g_assert_true (in_state (remote, PD_REMOTE_OFFLINE));
  g_assert_nonnull (strstr (pd_remote_source_get_state_message (remote), "stopped answering"));

  f->odek_hung = FALSE;
  for (guint i = 0; i < f->odek_held->len; i++)
    soup_server_message_unpause (g_ptr_array_index (f->odek_held, i));
  g_ptr_array_set_size (f->odek_held, 0);
  g_assert_true (in_state (remote, PD_REMOTE_ONLINE));
  g_assert_false (pd_remote_source_is_streaming (remote));
  pd_remote_source_watch (remote, 0);
}

/* A server whose stream sends one line that never ends (or a chunk of
 * gigabytes): the source keeps a bounded part of it, drops the stream and
 * reconnects.  It read on, buffering it all, until the window's memory
 * ran out (about 100 MB a second). */
static void
test_watch_endless_line (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(PdSource) source = odek_source (f);
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  f->odek_endless = TRUE;
  pd_remote_source_watch (PD_REMOTE_SOURCE (source), 60000);
  while (f->endless_streams < 2 && g_get_monotonic_time () < deadline)
    {
      g_main_context_iteration (NULL, TRUE);
      /* What is sent and not yet taken waits in socket buffers: a few MiB. */
      g_assert_cmpuint (f->endless_first, <, 64 * 1024 * 1024);
    }
  g_test_message ("first stream: %" G_GSIZE_FORMAT " bytes", f->endless_first);
  g_assert_cmpuint (f->endless_streams, >=, 2);
  pd_remote_source_watch (PD_REMOTE_SOURCE (source), 0);
}

/* A server that answers with a redirect: not followed, so the token goes
 * nowhere else, and the error says why.  libsoup followed it, sending the
 * token (and the session tokens) on to wherever Location pointed. */
static void
test_redirect_not_followed (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(PdSource) source = odek_source (f);
  g_autoptr(GAsyncResult) r1 = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) usage = NULL;

  f->odek_redirect = TRUE;
  pd_source_get_usage_async (source, NULL, store_result, &r1);
  usage = pd_source_get_usage_finish (source, wait_result (&r1), &error);
  g_assert_null (usage);
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE);
  g_assert_nonnull (strstr (error->message, "redirect"));
  g_assert_cmpuint (f->redirected_with_token, ==, 0);

  /* The live watch too (its health read and its stream). */
  pd_remote_source_watch (PD_REMOTE_SOURCE (source), 60000);
  g_assert_true (in_state (PD_REMOTE_SOURCE (source), PD_REMOTE_OFFLINE));
  pd_remote_source_watch (PD_REMOTE_SOURCE (source), 0);
  g_assert_cmpuint (f->redirected_with_token, ==, 0);
}

/* The window refetches a session on every change; a run that commits
 * quickly pushes many.  The source keeps its lookups within its budget
 * (serve allows 60 a minute per client, as odek does): merged, delayed,
 * never a 429, and the last plan version arrives in the end. */
typedef struct
{
  PdSource *source;
  const char *id;
  guint     in_flight;
  guint     rate_limited;
  guint     changes;
  gint64    version;     /* the newest plan version received */
} Follower;

static void
on_follow_plan (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Follower *follower = user_data;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(GError) error = NULL;

  follower->in_flight--;
  if (pd_source_get_plan_finish (PD_SOURCE (object), result, &plan, &error))
    follower->version = MAX (follower->version, plan->version);
  else if (g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_RATE_LIMITED))
    follower->rate_limited++;
}

static void
on_follow_session (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Follower *follower = user_data;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(GError) error = NULL;

  follower->in_flight--;
  info = pd_source_get_session_finish (PD_SOURCE (object), result, &error);
  if (g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_RATE_LIMITED))
    follower->rate_limited++;
}

static void
on_follow_changed (PdSource *source,
                   gpointer  user_data)
{
  Follower *follower = user_data;

  follower->changes++;
  follower->in_flight += 2;
  pd_source_get_session_async (source, follower->id, NULL, on_follow_session, follower);
  pd_source_get_plan_async (source, follower->id, NULL, on_follow_plan, follower);
}

static void
test_lookup_budget (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(PdSource) source = our_source (f);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdPlanStore) plan = pd_plan_store_new (12, 4000);
  g_autofree char *created = NULL;
  Follower follower = { .source = source, .id = f->id };
  gint64 last = 0, deadline;

  g_signal_connect (source, "changed", G_CALLBACK (on_follow_changed), &follower);
  pd_remote_source_watch (PD_REMOTE_SOURCE (source), 60000);
  g_assert_true (is_streaming (PD_REMOTE_SOURCE (source)));

  /* A second writer (the run) commits 200 plan updates quickly. */
  db = pd_db_open (f->db_path, PD_DB_NONE, &error);
  g_assert_no_error (error);
  store = pd_session_store_new (db);
  created = pd_plan_store_execute (plan, "{\"verb\":\"create\",\"steps\":[{\"title\":\"Read\"},{\"title\":\"Fix\"}]}", &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *json = g_strdup_printf ("{\"verb\":\"update\",\"updates\":[{\"id\":\"s1\",\"status\":\"%s\"}]}",
                                               i % 2 ? "pending" : "in_progress");
      g_autofree char *revision = pd_plan_store_execute (plan, json, &error);
      g_autoptr(PdPlanState) state = NULL;
      PdTurn turn = { 0 };
      PdEvent *event;

      g_assert_no_error (error);
      state = pd_plan_store_snapshot (plan);
      last = state->version;
      turn.session_id = f->id;
      turn.plan = state;
      turn.status = PD_SESSION_STATUS_RUNNING;
      g_assert_true (pd_session_store_save_turn (store, &turn, &error));
      g_assert_no_error (error);
      /* and says so on the stream, as serve's own runs do */
      event = pd_event_new (PD_EVENT_PLAN_UPDATED);
      pd_event_set_session_id (event, f->id);
      pd_event_bus_emit (pd_server_get_bus (f->server), event);
      pd_event_unref (event);
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_usleep (2000);
    }

  deadline = g_get_monotonic_time () + 40 * G_USEC_PER_SEC;
  while ((follower.version < last || follower.in_flight > 0) && follower.rate_limited == 0 &&
         g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_test_message ("%u changes pushed; plan version %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT,
                  follower.changes, follower.version, last);
  g_assert_cmpuint (follower.changes, >, 60);
  g_assert_cmpuint (follower.rate_limited, ==, 0);
  g_assert_cmpint (follower.version, ==, last);
  pd_remote_source_watch (PD_REMOTE_SOURCE (source), 0);
  g_signal_handlers_disconnect_by_data (source, &follower);
  /* The lookups still waiting for the budget answer @follower, which
   * lives on this stack: the test may not return before the last one (a
   * late answer wrote into the next test's frame under valgrind). */
  deadline = g_get_monotonic_time () + 120 * G_USEC_PER_SEC;
  while (follower.in_flight > 0 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (follower.in_flight, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  const char *names[] = { "http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY" };

  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_unsetenv (names[i]);

  g_test_add ("/pd/remote-source/ours", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_ours, fixture_tear_down);
  g_test_add ("/pd/remote-source/errors", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_errors, fixture_tear_down);
  g_test_add ("/pd/remote-source/rate-limited", Fixture, GUINT_TO_POINTER (2), fixture_set_up, test_rate_limited_by_ours, fixture_tear_down);
  g_test_add ("/pd/remote-source/lookup-budget", Fixture, GUINT_TO_POINTER (PD_SERVER_DEFAULT_RATE_LIMIT), fixture_set_up,
              test_lookup_budget, fixture_tear_down);
  g_test_add ("/pd/remote-source/odek-shapes", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_odek_shapes, fixture_tear_down);
  g_test_add ("/pd/remote-source/mistyped-elements", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_mistyped_elements, fixture_tear_down);
  g_test_add ("/pd/remote-source/runs-unsupported", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_runs_unsupported, fixture_tear_down);
  g_test_add ("/pd/remote-source/watch-stream", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_watch_stream, fixture_tear_down);
  g_test_add ("/pd/remote-source/watch-other-writer", Fixture, GUINT_TO_POINTER (0), set_up_slow_poll,
              test_watch_other_writer, fixture_tear_down);
  g_test_add ("/pd/remote-source/export-shared", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_export_shared, fixture_tear_down);
  g_test_add ("/pd/remote-source/watch-poll", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_watch_poll, fixture_tear_down);
  g_test_add ("/pd/remote-source/watch-endless-line", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_watch_endless_line,
              fixture_tear_down);
  g_test_add ("/pd/remote-source/watch-hung-odek", Fixture, GUINT_TO_POINTER (0), fixture_set_up, test_watch_hung_odek,
              fixture_tear_down);

  g_test_add ("/pd/remote-source/redirect-not-followed", Fixture, GUINT_TO_POINTER (0), fixture_set_up,
              test_redirect_not_followed, fixture_tear_down);

  return g_test_run ();
}
