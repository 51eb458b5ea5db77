/* test-multi-source.c: PdMultiSource over real database files.
 *
 * Two PdLocalSources on their own SQLite files (a window's database and a
 * second source standing in for an endpoint) read through one
 * PdMultiSource: the merged listing in the list's order, page by page and
 * from any offset, with a search; a session of the second source read,
 * renamed and deleted there through its listed id; a source that
 * cannot be read left out of the listing, said with ::listed, while the
 * other's sessions stay; and an endpoint (a real PdServer) that goes away
 * listed from what it gave last, stale, until it is back.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-db.h"
#include "pd-local-source.h"
#include "pd-multi-source.h"
#include "pd-remote-source.h"
#include "pd-server.h"
#include "pd-session-store.h"
#include "pd-source-list.h"

typedef struct
{
  char           *dir;
  char           *paths[2];
  PdSessionStore *stores[2];
  PdSourceList   *list;
  PdMultiSource  *multi;
} Fixture;

static void
got_result (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

static GAsyncResult *
await (GAsyncResult **slot)
{
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  while (*slot == NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (*slot);
  return *slot;
}

static PdSessionPage *
list_page (PdSource   *source,
           const char *query,
           guint       offset,
           guint       limit,
           GError    **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  pd_source_list_sessions_async (source, query, FALSE, offset, limit, NULL, got_result, &result);
  return pd_source_list_sessions_finish (source, await (&result), error);
}

/* 60 sessions, made in turns in the two files so their times interleave;
 * every seventh pinned, and every fifth named "needle". */
static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->dir = g_dir_make_tmp ("pd-multi-source-XXXXXX", &error);
  g_assert_no_error (error);
  for (guint s = 0; s < 2; s++)
    {
      g_autoptr(PdDb) db = NULL;

      f->paths[s] = g_strdup_printf ("%s/source%u.db", f->dir, s);
      db = pd_db_open (f->paths[s], PD_DB_CREATE, &error);
      g_assert_no_error (error);
      f->stores[s] = pd_session_store_new (db);
    }
  for (guint i = 0; i < 60; i++)
    {
      PdSessionStore *store = f->stores[(i / 3) % 2];
      g_autofree char *task = g_strdup_printf ("%s task %u", i % 5 == 0 ? "needle" : "plain", i);
      g_autoptr(PdSessionInfo) info = pd_session_store_create (store, task, "m", "replay", "plandeck", "/tmp",
                                                               &error);

      g_assert_no_error (error);
      if (i % 7 == 0)
        {
          g_assert_true (pd_session_store_set_pinned (store, info->id, TRUE, &error));
          g_assert_no_error (error);
        }
    }

  f->list = pd_source_list_new ();
  for (guint s = 0; s < 2; s++)
    {
      g_autoptr(PdLocalSource) local = pd_local_source_new (f->paths[s], FALSE);

      pd_source_list_append (f->list, PD_SOURCE (local), s == 0 ? PD_SOURCE_LIST_LOCAL_ID : "second",
                             s == 0 ? "This Computer" : "Second");
    }
  f->multi = pd_multi_source_new (f->list);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  g_clear_object (&f->multi);
  g_clear_object (&f->list);
  for (guint s = 0; s < 2; s++)
    {
      g_autofree char *wal = g_strconcat (f->paths[s], "-wal", NULL);
      g_autofree char *shm = g_strconcat (f->paths[s], "-shm", NULL);

      g_clear_object (&f->stores[s]);
      g_unlink (f->paths[s]);
      g_unlink (wal);
      g_unlink (shm);
      g_free (f->paths[s]);
    }
  g_rmdir (f->dir);
  g_free (f->dir);
}

/* The listing in the list's order: pinned first, then newest. */
static void
assert_ordered (GPtrArray *sessions)
{
  for (guint i = 1; i < sessions->len; i++)
    {
      PdSessionInfo *a = g_ptr_array_index (sessions, i - 1);
      PdSessionInfo *b = g_ptr_array_index (sessions, i);

      g_assert_true (a->pinned >= b->pinned);
      if (a->pinned == b->pinned)
        g_assert_cmpint (a->updated_at, >=, b->updated_at);
    }
}

/* Page by page as the session list reads (25, then 25s, then larger): every
 * session once, in order, the second source's with its prefix; and a page
 * asked for at an offset no page ended at is the same slice. */
static void
test_merged_pages (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_session_info_free);
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  guint limits[] = { 25, 25, 7, 200 };
  guint offset = 0;
  guint second = 0;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionPage) slice = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (limits); i++)
    {
      g_autoptr(PdSessionPage) page = list_page (PD_SOURCE (f->multi), NULL, offset, limits[i], &error);

      g_assert_no_error (error);
      g_assert_cmpuint (page->total, ==, 60);
      for (guint j = 0; j < page->sessions->len; j++)
        g_ptr_array_add (all, pd_session_info_copy (g_ptr_array_index (page->sessions, j)));
      offset += page->sessions->len;
    }
  g_assert_cmpuint (all->len, ==, 60);
  assert_ordered (all);
  for (guint i = 0; i < all->len; i++)
    {
      PdSessionInfo *info = g_ptr_array_index (all, i);

      g_assert_false (g_hash_table_contains (seen, info->id));
      g_hash_table_add (seen, info->id);
      if (g_str_has_prefix (info->id, "second/"))
        second++;
      else
        g_assert_null (strchr (info->id, '/'));
    }
  g_assert_cmpuint (second, ==, 30);

  /* A change forgets where pages ended; a page from anywhere is the slice. */
  pd_source_emit_changed (pd_source_list_lookup (f->list, "second", NULL));
  slice = list_page (PD_SOURCE (f->multi), NULL, 33, 10, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (slice->sessions->len, ==, 10);
  for (guint i = 0; i < 10; i++)
    g_assert_cmpstr (((PdSessionInfo *) g_ptr_array_index (slice->sessions, i))->id, ==,
                     ((PdSessionInfo *) g_ptr_array_index (all, 33 + i))->id);
}

/* A search goes to both sources and merges. */
static void
test_search (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionPage) page = list_page (PD_SOURCE (f->multi), "needle", 0, 50, &error);
  gboolean first = FALSE;
  gboolean second = FALSE;

  g_assert_no_error (error);
  g_assert_cmpuint (page->sessions->len, ==, 12);
  g_assert_cmpuint (page->total, ==, 12);
  assert_ordered (page->sessions);
  for (guint i = 0; i < page->sessions->len; i++)
    {
      PdSessionInfo *info = g_ptr_array_index (page->sessions, i);

      g_assert_true (g_str_has_prefix (info->task, "needle"));
      if (g_str_has_prefix (info->id, "second/"))
        second = TRUE;
      else
        first = TRUE;
    }
  g_assert_true (first && second);
}

/* A session of the second source: read, renamed and deleted there. */
static void
test_routed_calls (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionPage) page = list_page (PD_SOURCE (f->multi), NULL, 0, 60, &error);
  g_autoptr(GAsyncResult) got = NULL;
  g_autoptr(GAsyncResult) renamed = NULL;
  g_autoptr(GAsyncResult) deleted = NULL;
  g_autoptr(GAsyncResult) unknown = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(PdSessionInfo) stored = NULL;
  g_autofree char *raw = NULL;
  const char *id = NULL;
  guint total = 0;
  g_autoptr(GPtrArray) left = NULL;

  g_assert_no_error (error);
  for (guint i = 0; i < page->sessions->len && id == NULL; i++)
    if (g_str_has_prefix (((PdSessionInfo *) g_ptr_array_index (page->sessions, i))->id, "second/"))
      id = ((PdSessionInfo *) g_ptr_array_index (page->sessions, i))->id;
  g_assert_nonnull (id);
  g_assert_true (pd_multi_source_resolve (f->multi, id, &raw) ==
                 pd_source_list_lookup (f->list, "second", NULL));
  g_assert_cmpstr (raw, ==, id + strlen ("second/"));

  pd_source_get_session_async (PD_SOURCE (f->multi), id, NULL, got_result, &got);
  info = pd_source_get_session_finish (PD_SOURCE (f->multi), await (&got), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (info->id, ==, id);

  pd_source_update_session_async (PD_SOURCE (f->multi), id, "Renamed there", -1, NULL, got_result, &renamed);
  g_assert_true (pd_source_update_session_finish (PD_SOURCE (f->multi), await (&renamed), &error));
  g_assert_no_error (error);
  stored = pd_session_store_get (f->stores[1], raw, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (stored->name, ==, "Renamed there");

  pd_source_delete_session_async (PD_SOURCE (f->multi), id, NULL, got_result, &deleted);
  g_assert_true (pd_source_delete_session_finish (PD_SOURCE (f->multi), await (&deleted), &error));
  g_assert_no_error (error);
  left = pd_session_store_list (f->stores[1], NULL, FALSE, 0, 100, &total, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (total, ==, 29);
  total = 0;
  g_clear_pointer (&left, g_ptr_array_unref);
  left = pd_session_store_list (f->stores[0], NULL, FALSE, 0, 100, &total, &error);
  g_assert_cmpuint (total, ==, 30);

  /* A source that is not in the list: a clear error, nothing touched. */
  pd_source_delete_session_async (PD_SOURCE (f->multi), "gone/20250101-0a0b0c0d", NULL, got_result, &unknown);
  g_assert_false (pd_source_delete_session_finish (PD_SOURCE (f->multi), await (&unknown), &error));
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND);
}

static void
on_listed (PdMultiSource *multi,
           PdSource      *source,
           const GError  *error,
           guint         *failures)
{
  if (error != NULL)
    (*failures)++;
}

/* A source that cannot be read is left out; the others' sessions stay. */
/* A search with an endpoint that takes the request and never answers: the
 * other sources' matches come without waiting out its deadline, and the
 * listing says it could not ask it; a listing of all sessions after it
 * says nothing is left out. */
static void
test_search_hung (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GSocketListener) listener = g_socket_listener_new ();
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autoptr(PdRemoteSource) hung = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionPage) page = NULL;
  g_autofree char *url = NULL;
  GPtrArray *left_out;
  gint64 start;

  g_assert_true (g_socket_listener_add_address (listener, any, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                                                NULL, &bound, &error));
  g_assert_no_error (error);
  url = g_strdup_printf ("http://127.0.0.1:%u", g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));
  hung = pd_remote_source_new (url, "token", &error);
  g_assert_no_error (error);
  pd_remote_source_set_timeout (hung, 0);
  pd_source_list_append (f->list, PD_SOURCE (hung), "hung", "Hung");

  start = g_get_monotonic_time ();
  page = list_page (PD_SOURCE (f->multi), "needle", 0, 200, &error);
  g_test_message ("the search's matches came after %.2f s, the hung endpoint left out",
                  (g_get_monotonic_time () - start) / 1e6);
  g_assert_no_error (error);
  g_assert_cmpuint (page->sessions->len, ==, 12);
  left_out = pd_multi_source_get_not_searched (f->multi);
  g_assert_cmpuint (left_out->len, ==, 1);
  g_assert_true (g_ptr_array_index (left_out, 0) == (gpointer) hung);

  /* All sessions: nothing said left out (its kept listing, or none). */
  g_clear_pointer (&page, pd_session_page_free);
  page = list_page (PD_SOURCE (f->multi), NULL, 0, 200, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pd_multi_source_get_not_searched (f->multi)->len, ==, 0);

  pd_source_list_remove (f->list, "hung");
  g_socket_listener_close (listener);
  {
    gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

    while (G_OBJECT (f->multi)->ref_count > 1 && g_get_monotonic_time () < deadline)
      g_main_context_iteration (NULL, TRUE);
  }
}

static void
test_failing_source (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *missing = g_build_filename (f->dir, "no-such.db", NULL);
  g_autoptr(PdLocalSource) broken = pd_local_source_new (missing, FALSE);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionPage) page = NULL;
  guint failures = 0;

  pd_source_list_append (f->list, PD_SOURCE (broken), "broken", "Broken");
  g_signal_connect (f->multi, "listed", G_CALLBACK (on_listed), &failures);
  page = list_page (PD_SOURCE (f->multi), NULL, 0, 200, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (page->sessions->len, ==, 60);
  g_assert_cmpuint (failures, ==, 1);
  g_assert_false (g_file_test (missing, G_FILE_TEST_EXISTS));

  /* Every source failing is the listing's error. */
  pd_source_list_remove (f->list, "second");
  pd_source_list_remove (f->list, PD_SOURCE_LIST_LOCAL_ID);
  g_clear_pointer (&page, pd_session_page_free);
  page = list_page (PD_SOURCE (f->multi), NULL, 0, 25, &error);
  g_assert_null (page);
  g_assert_nonnull (error);
}

typedef struct
{
  PdSource *source;
  char     *message;
} Late;

static void
on_listed_late (PdMultiSource *multi,
                PdSource      *source,
                const GError  *error,
                Late          *late)
{
  if (error != NULL && source == late->source)
    {
      g_free (late->message);
      late->message = g_strdup (error->message);
    }
}

/* An endpoint that takes the request and never answers (its HTTP timeout
 * taken away, so only the deadline can end the wait): the listing comes
 * without it, and says why. */
static void
test_hung_source (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GSocketListener) listener = g_socket_listener_new ();
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autoptr(PdRemoteSource) hung = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionPage) page = NULL;
  g_autoptr(PdSessionPage) again = NULL;
  g_autofree char *url = NULL;
  Late late = { NULL, NULL };

  g_assert_true (g_socket_listener_add_address (listener, any, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                                                NULL, &bound, &error));
  g_assert_no_error (error);
  url = g_strdup_printf ("http://127.0.0.1:%u", g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));
  hung = pd_remote_source_new (url, "token", &error);
  g_assert_no_error (error);
  pd_remote_source_set_timeout (hung, 0);
  pd_source_list_append (f->list, PD_SOURCE (hung), "hung", "Hung");
  late.source = PD_SOURCE (hung);
  g_signal_connect (f->multi, "listed", G_CALLBACK (on_listed_late), &late);

  page = list_page (PD_SOURCE (f->multi), NULL, 0, 200, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (page->sessions->len, ==, 60);
  g_assert_nonnull (late.message);
  g_assert_nonnull (strstr (late.message, "did not answer"));

  /* Left out of the next listing at once, still not answering. */
  again = list_page (PD_SOURCE (f->multi), "needle", 0, 200, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (again->sessions->len, ==, 12);

  /* The hung endpoint alone: each listing fails with its error, the next
   * one too, while it is still left out (that one had no error to give:
   * a critical in g_task_return_error, seen under load). */
  pd_source_list_remove (f->list, "second");
  pd_source_list_remove (f->list, PD_SOURCE_LIST_LOCAL_ID);
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(PdSessionPage) alone = list_page (PD_SOURCE (f->multi), NULL, 0, 25, &error);

      g_assert_null (alone);
      g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE);
      g_clear_error (&error);
    }

  /* Closed, the endpoint resets what it held: the requests in flight end
   * and let go of the sources. */
  pd_source_list_remove (f->list, "hung");
  g_socket_listener_close (listener);
  {
    gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

    while (G_OBJECT (f->multi)->ref_count > 1 && g_get_monotonic_time () < deadline)
      g_main_context_iteration (NULL, TRUE);
  }
  g_free (late.message);
}

typedef struct
{
  PdSource *source;
  guint     errors;
  guint     answers;
} Heard;

static void
on_listed_heard (PdMultiSource *multi,
                 PdSource      *source,
                 const GError  *error,
                 Heard         *heard)
{
  if (source != heard->source)
    return;
  if (error != NULL)
    heard->errors++;
  else
    heard->answers++;
}

static guint
count_prefixed (PdSessionPage *page,
                const char    *prefix)
{
  guint n = 0;

  for (guint i = 0; i < page->sessions->len; i++)
    if (g_str_has_prefix (((PdSessionInfo *) g_ptr_array_index (page->sessions, i))->id, prefix))
      n++;
  return n;
}

static PdServer *
start_server (const char *db,
              guint       port)
{
  g_autoptr(GError) error = NULL;
  PdServer *server = pd_server_new (db);

  pd_server_set_listen (server, "127.0.0.1", port);
  pd_server_set_token (server, "kept-token");
  g_assert_true (pd_server_start (server, &error));
  g_assert_no_error (error);
  return server;
}

/* An endpoint that goes away lost its sessions from the list (tried as a
 * new user would; README: kept with its error): they are listed from what
 * it gave last, stale, said with ::listed, and fresh again once it is
 * back.  A search leaves it out; one that never answered has nothing. */
static void
test_kept_listing (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *far_db = g_build_filename (f->dir, "far.db", NULL);
  g_autoptr(PdServer) server = NULL;
  g_autoptr(PdRemoteSource) far = NULL;
  g_autoptr(PdRemoteSource) never = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GUri) uri = NULL;
  g_autofree char *url = NULL;
  guint port;
  Heard heard = { NULL, 0, 0 };

  {
    g_autoptr(PdDb) db = pd_db_open (far_db, PD_DB_CREATE, &error);
    g_autoptr(PdSessionStore) store = NULL;

    g_assert_no_error (error);
    store = pd_session_store_new (db);
    for (guint i = 0; i < 3; i++)
      {
        g_autoptr(PdSessionInfo) info = pd_session_store_create (store, "far task", "m", "replay", "plandeck",
                                                                 "/tmp", &error);
        g_assert_no_error (error);
      }
  }
  server = start_server (far_db, 0);
  url = pd_server_dup_start_url (server);
  uri = g_uri_parse (url, G_URI_FLAGS_NONE, &error);
  g_assert_no_error (error);
  port = g_uri_get_port (uri);
  g_clear_pointer (&url, g_free);
  url = g_strdup_printf ("http://127.0.0.1:%u", port);
  far = pd_remote_source_new (url, "kept-token", &error);
  g_assert_no_error (error);
  pd_source_list_append (f->list, PD_SOURCE (far), "far", "Far");
  heard.source = PD_SOURCE (far);
  g_signal_connect (f->multi, "listed", G_CALLBACK (on_listed_heard), &heard);

  {
    g_autoptr(PdSessionPage) page = list_page (PD_SOURCE (f->multi), NULL, 0, 200, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (page->sessions->len, ==, 63);
    g_assert_cmpuint (count_prefixed (page, "far/"), ==, 3);
    g_assert_false (pd_multi_source_is_stale (f->multi, PD_SOURCE (far)));
  }

  /* Gone: its sessions stay, stale, with its error said. */
  pd_server_stop (server);
  g_clear_object (&server);
  {
    g_autoptr(PdSessionPage) page = list_page (PD_SOURCE (f->multi), NULL, 0, 200, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (page->sessions->len, ==, 63);
    g_assert_cmpuint (page->total, ==, 63);
    g_assert_cmpuint (count_prefixed (page, "far/"), ==, 3);
    assert_ordered (page->sessions);
    g_assert_true (pd_multi_source_is_stale (f->multi, PD_SOURCE (far)));
    g_assert_cmpuint (heard.errors, >=, 1);
  }
  /* Page by page too. */
  {
    g_autoptr(PdSessionPage) first = list_page (PD_SOURCE (f->multi), NULL, 0, 25, &error);
    g_autoptr(PdSessionPage) rest = list_page (PD_SOURCE (f->multi), NULL, 25, 200, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (first->sessions->len + rest->sessions->len, ==, 63);
    g_assert_cmpuint (count_prefixed (first, "far/") + count_prefixed (rest, "far/"), ==, 3);
  }
  /* A search asks the sources: what it gave last is no answer to it. */
  {
    g_autoptr(PdSessionPage) page = list_page (PD_SOURCE (f->multi), "needle", 0, 200, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (page->sessions->len, ==, 12);
  }

  /* Back: fresh again. */
  server = start_server (far_db, port);
  heard.answers = 0;
  {
    g_autoptr(PdSessionPage) page = list_page (PD_SOURCE (f->multi), NULL, 0, 200, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (count_prefixed (page, "far/"), ==, 3);
    g_assert_cmpuint (heard.answers, >=, 1);
    g_assert_false (pd_multi_source_is_stale (f->multi, PD_SOURCE (far)));
  }

  /* One that never answered has nothing to keep. */
  never = pd_remote_source_new ("http://127.0.0.1:9", "kept-token", &error);
  g_assert_no_error (error);
  pd_source_list_append (f->list, PD_SOURCE (never), "never", "Never");
  {
    g_autoptr(PdSessionPage) page = list_page (PD_SOURCE (f->multi), NULL, 0, 200, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (page->sessions->len, ==, 63);
    g_assert_false (pd_multi_source_is_stale (f->multi, PD_SOURCE (never)));
  }
  g_signal_handlers_disconnect_by_func (f->multi, on_listed_heard, &heard);
  pd_source_list_remove (f->list, "never");
  pd_source_list_remove (f->list, "far");
  pd_server_stop (server);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/pd/multi-source/merged-pages", Fixture, NULL, fixture_set_up, test_merged_pages, fixture_tear_down);
  g_test_add ("/pd/multi-source/search", Fixture, NULL, fixture_set_up, test_search, fixture_tear_down);
  g_test_add ("/pd/multi-source/routed-calls", Fixture, NULL, fixture_set_up, test_routed_calls, fixture_tear_down);
  g_test_add ("/pd/multi-source/hung-source", Fixture, NULL, fixture_set_up, test_hung_source, fixture_tear_down);
  g_test_add ("/pd/multi-source/search-hung", Fixture, NULL, fixture_set_up, test_search_hung, fixture_tear_down);
  g_test_add ("/pd/multi-source/failing-source", Fixture, NULL, fixture_set_up, test_failing_source,
              fixture_tear_down);
  g_test_add ("/pd/multi-source/kept-listing", Fixture, NULL, fixture_set_up, test_kept_listing, fixture_tear_down);

  return g_test_run ();
}
