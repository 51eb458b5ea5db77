/* test-overview-stale.c: PdOverview never puts a card back to an older
 * state than one it was pushed, and merges a list's answer in parts
 *
 * Real parts: a PdServer on loopback over its session database, followed by
 * a PdRemoteSource (its event stream) in one overview; between them a
 * pass-through of the test's own that can hold the answers of the
 * requests' connection (a slow endpoint, a list answered late), never the
 * event stream's.  A writer of the test's own changes the database as a run
 * in another process would.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-overview-stale"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-db.h"
#include "pd-local-source.h"
#include "pd-overview.h"
#include "pd-plan.h"
#include "pd-remote-source.h"
#include "pd-server.h"
#include "pd-session-store.h"

#define TOKEN "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"

/* --- the pass-through ------------------------------------------------------ */

typedef struct
{
  GSocketService *service;
  guint16         upstream;
  guint16         port;
  GPtrArray      *requests;   /* (element-type utf8) request lines, in order */
  gboolean        hold;       /* the requests' answers wait */
  GPtrArray      *held;       /* (element-type Conn) connections with answers waiting */
  gsize           held_bytes;
} Proxy;

typedef struct
{
  Proxy        *proxy;
  GIOStream    *client;
  GIOStream    *server;
  gboolean      stream;       /* the event stream's connection: never held */
  GString      *line;
  GByteArray   *pending;      /* the server's bytes held */
  char          up[16384];
  char          down[16384];
  guint         refs;
} Conn;

static void
conn_unref (Conn *conn)
{
  if (--conn->refs > 0)
    return;
  g_io_stream_close (conn->client, NULL, NULL);
  g_io_stream_close (conn->server, NULL, NULL);
  g_object_unref (conn->client);
  g_object_unref (conn->server);
  g_string_free (conn->line, TRUE);
  g_byte_array_unref (conn->pending);
  g_free (conn);
}

static void conn_read_up (Conn *conn);
static void conn_read_down (Conn *conn);

static void
conn_end (Conn *conn)
{
  /* Either way's end ends both: the peer sees the close. */
  g_io_stream_close (conn->client, NULL, NULL);
  g_io_stream_close (conn->server, NULL, NULL);
  conn_unref (conn);
}

static void
on_up_written (GObject *object, GAsyncResult *result, gpointer data)
{
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, NULL))
    conn_end (data);
  else
    conn_read_up (data);
}

static void
on_up_read (GObject *object, GAsyncResult *result, gpointer data)
{
  Conn *conn = data;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, NULL);
  char *end;

  if (n <= 0)
    {
      conn_end (conn);
      return;
    }
  g_string_append_len (conn->line, conn->up, n);
  while ((end = strstr (conn->line->str, "\r\n")) != NULL)
    {
      g_autofree char *line = g_strndup (conn->line->str, (gsize) (end - conn->line->str));

      g_string_erase (conn->line, 0, end - conn->line->str + 2);
      if (g_str_has_prefix (line, "GET ") && g_str_has_suffix (line, " HTTP/1.1"))
        {
          conn->stream |= g_str_has_prefix (line, "GET /api/events/stream");
          g_ptr_array_add (conn->proxy->requests, g_steal_pointer (&line));
        }
    }
  g_output_stream_write_all_async (g_io_stream_get_output_stream (conn->server), conn->up, (gsize) n,
                                   G_PRIORITY_DEFAULT, NULL, on_up_written, conn);
}

static void
conn_read_up (Conn *conn)
{
  g_input_stream_read_async (g_io_stream_get_input_stream (conn->client), conn->up, sizeof conn->up,
                             G_PRIORITY_DEFAULT, NULL, on_up_read, conn);
}

static void
on_down_written (GObject *object, GAsyncResult *result, gpointer data)
{
  if (!g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, NULL))
    conn_end (data);
  else
    conn_read_down (data);
}

static void
on_down_read (GObject *object, GAsyncResult *result, gpointer data)
{
  Conn *conn = data;
  Proxy *proxy = conn->proxy;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, NULL);

  if (n <= 0)
    {
      conn_end (conn);
      return;
    }
  if (proxy->hold && !conn->stream)
    {
      if (conn->pending->len == 0)
        {
          conn->refs++;
          g_ptr_array_add (proxy->held, conn);
        }
      g_byte_array_append (conn->pending, (const guint8 *) conn->down, (guint) n);
      proxy->held_bytes += (gsize) n;
      conn_read_down (conn);
      return;
    }
  g_output_stream_write_all_async (g_io_stream_get_output_stream (conn->client), conn->down, (gsize) n,
                                   G_PRIORITY_DEFAULT, NULL, on_down_written, conn);
}

static void
conn_read_down (Conn *conn)
{
  g_input_stream_read_async (g_io_stream_get_input_stream (conn->server), conn->down, sizeof conn->down,
                             G_PRIORITY_DEFAULT, NULL, on_down_read, conn);
}

static gboolean
on_incoming (GSocketService    *service,
             GSocketConnection *connection,
             GObject           *source_object,
             gpointer           data)
{
  Proxy *proxy = data;
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  GSocketConnection *upstream = g_socket_client_connect_to_host (client, "127.0.0.1", proxy->upstream, NULL, NULL);
  Conn *conn;

  if (upstream == NULL)
    return FALSE;
  conn = g_new0 (Conn, 1);
  conn->proxy = proxy;
  conn->client = G_IO_STREAM (g_object_ref (connection));
  conn->server = G_IO_STREAM (upstream);
  conn->line = g_string_new (NULL);
  conn->pending = g_byte_array_new ();
  conn->refs = 2;   /* one for each way */
  conn_read_up (conn);
  conn_read_down (conn);
  return TRUE;
}

static Proxy *
proxy_new (guint16 upstream)
{
  Proxy *proxy = g_new0 (Proxy, 1);
  g_autoptr(GError) error = NULL;

  proxy->upstream = upstream;
  proxy->requests = g_ptr_array_new_with_free_func (g_free);
  proxy->held = g_ptr_array_new ();
  proxy->service = g_socket_service_new ();
  proxy->port = g_socket_listener_add_any_inet_port (G_SOCKET_LISTENER (proxy->service), NULL, &error);
  g_assert_no_error (error);
  g_signal_connect (proxy->service, "incoming", G_CALLBACK (on_incoming), proxy);
  g_socket_service_start (proxy->service);
  return proxy;
}

/* The last fixture's proxy, kept for the connections that outlive it. */
static Proxy *proxy_kept;

/* The answers held go on, in order, and nothing is held any more. */
static void
proxy_release (Proxy *proxy)
{
  proxy->hold = FALSE;
  for (guint i = 0; i < proxy->held->len; i++)
    {
      Conn *conn = g_ptr_array_index (proxy->held, i);

      /* Loopback, a few kB: the write does not wait on anything. */
      g_output_stream_write_all (g_io_stream_get_output_stream (conn->client), conn->pending->data,
                                 conn->pending->len, NULL, NULL, NULL);
      g_byte_array_set_size (conn->pending, 0);
      conn_unref (conn);
    }
  g_ptr_array_set_size (proxy->held, 0);
}

/* --- the fixture ------------------------------------------------------------ */

typedef struct
{
  char           *dir;
  char           *path;
  PdSessionStore *store;
  PdServer       *server;
  Proxy          *proxy;
  PdRemoteSource *source;
  GListStore     *sources;
  PdOverview     *overview;
  GHashTable     *plans;       /* session id → PdPlanStore */
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  g_autofree char *url = NULL;

  f->plans = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  f->dir = g_dir_make_tmp ("pd-overview-stale-XXXXXX", &error);
  g_assert_no_error (error);
  f->path = g_build_filename (f->dir, "endpoint.db", NULL);
  db = pd_db_open (f->path, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  f->store = pd_session_store_new (db);
  f->server = pd_server_new (f->path);
  pd_server_set_listen (f->server, "127.0.0.1", 0);
  pd_server_set_token (f->server, TOKEN);
  pd_server_set_rate_limit (f->server, 0);
  g_assert_true (pd_server_start (f->server, &error));
  g_assert_no_error (error);
  f->proxy = proxy_new ((guint16) pd_server_get_port (f->server));
  url = g_strdup_printf ("http://127.0.0.1:%u/?token=%s", f->proxy->port, TOKEN);
  f->source = pd_remote_source_new (url, NULL, &error);
  g_assert_no_error (error);
  pd_remote_source_set_timeout (f->source, 30);
  f->sources = g_list_store_new (PD_TYPE_SOURCE);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  const char *suffixes[] = { "", "-wal", "-shm" };

  proxy_release (f->proxy);
  g_clear_object (&f->overview);
  g_clear_object (&f->sources);
  pd_remote_source_watch (f->source, 0);
  g_clear_object (&f->source);
  pd_server_stop (f->server);
  g_clear_object (&f->server);
  g_socket_service_stop (f->proxy->service);
  g_socket_listener_close (G_SOCKET_LISTENER (f->proxy->service));
  for (guint i = 0; i < 50; i++)
    while (g_main_context_iteration (NULL, FALSE))
      ;
  /* Connections still open end with the process: their pumps hold them,
   * and each its proxy, which stays reachable until then (a later test
   * turns the main context, and a pump may still read it). */
  g_clear_object (&f->proxy->service);
  proxy_kept = g_steal_pointer (&f->proxy);
  g_clear_object (&f->store);
  for (guint j = 0; j < G_N_ELEMENTS (suffixes); j++)
    {
      g_autofree char *path = g_strconcat (f->path, suffixes[j], NULL);
      g_unlink (path);
    }
  g_free (f->path);
  g_rmdir (f->dir);
  g_free (f->dir);
  g_hash_table_unref (f->plans);
}

static const char *three[] = { "Read the parser", "Fix the lexer", "Run the tests", NULL };

/* The session's newest plan: each save a new version, as a run's plan tool
 * makes them. */
static void
save_plan (Fixture     *f,
           const char  *id,
           const char **statuses)
{
  PdPlanStore *plan = g_hash_table_lookup (f->plans, id);
  g_autoptr(GString) update = g_string_new ("{\"verb\":\"update\",\"updates\":[");
  g_autoptr(PdPlanState) state = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *r2 = NULL;
  PdTurn turn = { 0 };

  if (plan == NULL)
    {
      g_autofree char *r1 = NULL;

      plan = pd_plan_store_new (12, 4000);
      g_hash_table_insert (f->plans, g_strdup (id), plan);
      r1 = pd_plan_store_execute (plan, "{\"verb\":\"create\",\"steps\":[{\"title\":\"Read the parser\"},"
                                        "{\"title\":\"Fix the lexer\"},{\"title\":\"Run the tests\"}]}", &error);
      g_assert_no_error (error);
    }
  for (guint i = 0; three[i] != NULL; i++)
    g_string_append_printf (update, "%s{\"id\":\"s%u\",\"status\":\"%s\"}", i ? "," : "", i + 1, statuses[i]);
  g_string_append (update, "]}");
  r2 = pd_plan_store_execute (plan, update->str, &error);
  g_assert_no_error (error);
  state = pd_plan_store_snapshot (plan);
  turn.session_id = id;
  turn.plan = state;
  turn.status = PD_SESSION_STATUS_IDLE;
  g_assert_true (pd_session_store_save_turn (f->store, &turn, &error));
  g_assert_no_error (error);
}

static char *
add_session (Fixture    *f,
             const char *task)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionInfo) info = pd_session_store_create (f->store, task, "m", "replay", "plandeck", "/tmp", &error);

  g_assert_no_error (error);
  return g_strdup (info->id);
}

typedef gboolean (*Condition) (Fixture *f, gconstpointer data);

static void
wait_until (Fixture       *f,
            Condition      condition,
            gconstpointer  data,
            const char    *what)
{
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  while (!condition (f, data) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  if (!condition (f, data))
    g_error ("Waited 30 s for %s", what);
}

typedef struct
{
  const char *id;
  guint       done;
} Expect;

static gboolean
card_done (Fixture       *f,
           gconstpointer  data)
{
  const Expect *expect = data;
  PdOverviewCard *card = pd_overview_find (f->overview, PD_SOURCE (f->source), expect->id);

  return card != NULL && pd_overview_card_get_done (card) == expect->done;
}

static gboolean
ready (Fixture       *f,
       gconstpointer  data)
{
  return pd_overview_get_loaded (f->overview) && pd_remote_source_is_streaming (f->source) &&
         g_list_model_get_n_items (G_LIST_MODEL (f->overview)) == GPOINTER_TO_UINT (data);
}

static gboolean
list_held (Fixture       *f,
           gconstpointer  data)
{
  guint from = GPOINTER_TO_UINT (data);
  gboolean asked = FALSE;

  for (guint i = from; i < f->proxy->requests->len; i++)
    asked |= g_str_has_prefix (g_ptr_array_index (f->proxy->requests, i), "GET /api/sessions?");
  return asked && f->proxy->held_bytes > 0;
}

static gboolean
refetched (Fixture       *f,
           gconstpointer  data)
{
  return pd_overview_get_n_refetches (f->overview) >= GPOINTER_TO_UINT (data);
}

/* What the cards said after the push, at every change. */
typedef struct
{
  Fixture    *f;
  const char *a_id;
  const char *b_id;
  guint       a_min_done;
  gboolean    b_lost;
  gboolean    watching;
} Watch;

static void
look (Watch *watch)
{
  PdOverviewCard *a, *b;

  if (!watch->watching)
    return;
  a = pd_overview_find (watch->f->overview, PD_SOURCE (watch->f->source), watch->a_id);
  b = pd_overview_find (watch->f->overview, PD_SOURCE (watch->f->source), watch->b_id);
  watch->a_min_done = a != NULL ? MIN (watch->a_min_done, pd_overview_card_get_done (a)) : 0;
  watch->b_lost |= b == NULL;
}

static void
on_items_changed (GListModel *model,
                  guint       position,
                  guint       removed,
                  guint       added,
                  Watch      *watch)
{
  look (watch);
}

/* A list asked before a change and answered after the change's push (a slow
 * endpoint, a list long on its way): the cards keep what the push said.
 * Before, the late list put the card back a version (1/3 → 0/3 for a
 * moment, until the next push or list) and took away a card the push had
 * made (the list knew nothing of it). */
static void
test_late_list (Fixture       *f,
                gconstpointer  data)
{
  const char *first[] = { "in_progress", "pending", "pending" };
  const char *second[] = { "done", "in_progress", "pending" };
  g_autofree char *a_id = add_session (f, "Work on A");
  g_autofree char *b_id = NULL;
  Expect a_first = { a_id, 0 }, a_second = { a_id, 1 }, b_shown = { NULL, 1 };
  Watch watch = { f, a_id, NULL, G_MAXUINT, FALSE, FALSE };
  guint requests, refetches;
  g_autoptr(PdOverviewCard) a_card = NULL;
  g_autoptr(PdOverviewCard) b_card = NULL;

  save_plan (f, a_id, first);
  pd_remote_source_watch (f->source, PD_REMOTE_SOURCE_WATCH_MS);
  g_list_store_append (f->sources, f->source);
  f->overview = pd_overview_new (G_LIST_MODEL (f->sources));
  wait_until (f, ready, GUINT_TO_POINTER (1), "A's card and the stream");
  wait_until (f, card_done, &a_first, "A's card at 0/3");

  /* A list asked and answered by the endpoint as things are now, its
   * answer held on the way. */
  requests = f->proxy->requests->len;
  refetches = pd_overview_get_n_refetches (f->overview);
  f->proxy->hold = TRUE;
  pd_overview_refresh (f->overview);
  wait_until (f, list_held, GUINT_TO_POINTER (requests), "a list's answer held");
  g_assert_cmpuint (pd_overview_get_n_refetches (f->overview), ==, refetches + 1);

  /* Meanwhile A moves on and B comes: both pushed on the stream. */
  save_plan (f, a_id, second);
  b_id = add_session (f, "Work on B");
  save_plan (f, b_id, second);
  b_shown.id = watch.b_id = b_id;
  wait_until (f, card_done, &a_second, "A's card at 1/3 from the push");
  wait_until (f, card_done, &b_shown, "B's card from the push");
  a_card = g_object_ref (pd_overview_find (f->overview, PD_SOURCE (f->source), a_id));
  b_card = g_object_ref (pd_overview_find (f->overview, PD_SOURCE (f->source), b_id));
  g_assert_cmpint (pd_overview_card_get_plan_version (a_card), >, 0);

  /* The late answer comes; a list after it tells when it was merged. */
  watch.watching = TRUE;
  g_signal_connect (f->overview, "items-changed", G_CALLBACK (on_items_changed), &watch);
  g_signal_connect_swapped (a_card, "changed", G_CALLBACK (look), &watch);
  g_signal_connect_swapped (b_card, "changed", G_CALLBACK (look), &watch);
  proxy_release (f->proxy);
  pd_overview_refresh (f->overview);
  wait_until (f, refetched, GUINT_TO_POINTER (refetches + 2), "the list after the late one");
  look (&watch);

  g_assert_cmpuint (watch.a_min_done, ==, 1);
  g_assert_false (watch.b_lost);
  g_assert_true (card_done (f, &a_second));
  g_signal_handlers_disconnect_by_data (f->overview, &watch);
  g_signal_handlers_disconnect_by_data (a_card, &watch);
  g_signal_handlers_disconnect_by_data (b_card, &watch);
}

typedef struct
{
  guint added;      /* cards added in the turn of the loop */
} Turn;

static void
on_cards_added (GListModel *model,
                guint       position,
                guint       removed,
                guint       added,
                Turn       *turn)
{
  turn->added += added;
}

/* A source's list of many active sessions is merged a part at a time, a
 * turn of the main loop each (a frame may come between): before, the 150
 * cards came in one dispatch, with all the list's changes (bench-overview:
 * fifty endpoints' lists answered together held a frame 16–23 ms). */
static void
test_merge_in_parts (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-overview-parts-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "local.db", NULL);
  g_autoptr(PdDb) db = pd_db_open (path, PD_DB_CREATE, &error);
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(GListStore) sources = g_list_store_new (PD_TYPE_SOURCE);
  g_autoptr(PdLocalSource) local = NULL;
  g_autoptr(PdOverview) overview = NULL;
  const char *suffixes[] = { "", "-wal", "-shm" };
  guint turns = 0, most = 0;
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  g_assert_no_error (error);
  store = pd_session_store_new (db);
  for (guint i = 0; i < 150; i++)
    {
      g_autofree char *task = g_strdup_printf ("Work %u", i);
      g_autoptr(PdSessionInfo) info = pd_session_store_create (store, task, "m", "replay", "plandeck", "/tmp", &error);

      g_assert_no_error (error);
    }
  local = pd_local_source_new (path, FALSE);
  g_list_store_append (sources, local);
  overview = pd_overview_new (G_LIST_MODEL (sources));
  while (!pd_overview_get_loaded (overview) && g_get_monotonic_time () < deadline)
    {
      Turn turn = { 0 };
      gulong id = g_signal_connect (overview, "items-changed", G_CALLBACK (on_cards_added), &turn);

      g_main_context_iteration (NULL, TRUE);
      g_signal_handler_disconnect (overview, id);
      most = MAX (most, turn.added);
      turns += turn.added > 0;
    }
  g_assert_true (pd_overview_get_loaded (overview));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (overview)), ==, 150);
  g_test_message ("150 cards in %u turns, at most %u in one", turns, most);
  g_assert_cmpuint (most, <=, 32);
  g_assert_cmpuint (turns, >=, 5);

  g_clear_object (&overview);
  g_clear_object (&local);
  g_clear_object (&store);
  g_clear_object (&db);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  for (guint j = 0; j < G_N_ELEMENTS (suffixes); j++)
    {
      g_autofree char *file = g_strconcat (path, suffixes[j], NULL);
      g_unlink (file);
    }
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/pd/overview/late-list", Fixture, NULL, fixture_set_up, test_late_list, fixture_tear_down);
  g_test_add_func ("/pd/overview/merge-in-parts", test_merge_in_parts);
  return g_test_run ();
}
