/* test-source-checklist.c: the checklists of imported sessions through
 * PdSource: PdLocalSource reads them from the transcript and stores only
 * the user's overrides and own items; PdRemoteSource serves none.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#include "config.h"

#include <string.h>

#include "pd-checklist-test.h"
#include "pd-import-private.h"
#include "pd-local-source.h"
#include "pd-remote-source.h"
#include "pd-soup-compat.h"

typedef struct
{
  char           *dir;       /* transcripts */
  char           *db_dir;
  char           *db_path;
  PdSessionStore *store;     /* a writer, like `plandeck-agent import` */
  char           *session_id;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;

  f->dir = g_dir_make_tmp ("pd-source-checklist-XXXXXX", &error);
  g_assert_no_error (error);
  f->db_dir = g_dir_make_tmp ("pd-source-checklist-db-XXXXXX", &error);
  g_assert_no_error (error);
  f->db_path = g_build_filename (f->db_dir, "sessions.db", NULL);
  db = pd_db_open (f->db_path, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  f->store = pd_session_store_new (db);
  f->session_id = pd_checklist_test_import (f->store, f->dir);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_clear_object (&f->store);
  pd_test_remove_tree (f->dir);
  pd_test_remove_tree (f->db_dir);
  g_free (f->dir);
  g_free (f->db_dir);
  g_free (f->db_path);
  g_free (f->session_id);
}

static void
on_result (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  GAsyncResult **out = user_data;

  *out = g_object_ref (result);
}

/* Bounded: a hung worker fails the test instead of hanging it. */
static GAsyncResult *
wait_result (GAsyncResult **slot)
{
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (*slot == NULL)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
    }
  return *slot;
}

static PdChecklist *
get_checklist (PdSource    *source,
               const char  *id,
               GPtrArray  **plans,
               GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  pd_source_get_checklist_async (source, id, NULL, on_result, &result);
  return pd_source_get_checklist_finish (source, wait_result (&result), plans, error);
}

static gboolean
save_checklist (PdSource    *source,
                const char  *id,
                PdChecklist *checklist,
                GError     **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  pd_source_save_checklist_async (source, id, checklist, NULL, on_result, &result);
  return pd_source_save_checklist_finish (source, wait_result (&result), error);
}

static gboolean
file_contains (const char *path,
               const char *needle)
{
  g_autofree char *data = NULL;
  gsize length = 0;

  if (!g_file_get_contents (path, &data, &length, NULL))
    return FALSE;
  return memmem (data, length, needle, strlen (needle)) != NULL;
}

static void
test_get (Fixture       *f,
          gconstpointer  data)
{
  g_autoptr(PdLocalSource) source = pd_local_source_new (f->db_path, FALSE);
  g_autoptr(GPtrArray) plans = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdChecklist) checklist = get_checklist (PD_SOURCE (source), f->session_id, &plans, &error);
  const PdArtifactPlan *plan;
  guint done, total, in_progress;

  g_assert_no_error (error);
  g_assert_nonnull (checklist);
  g_assert_cmpint (pd_checklist_get_origin (checklist), ==, PD_CHECKLIST_ORIGIN_TODO_LIST);
  g_assert_cmpuint (pd_checklist_get_n_agent_items (checklist), ==, 3);
  g_assert_cmpstr (pd_checklist_get_agent_item (checklist, 0)->text, ==, PD_CHECKLIST_TEST_ITEM_0);
  g_assert_cmpstr (pd_checklist_get_agent_item (checklist, 1)->text, ==, PD_CHECKLIST_TEST_ITEM_1);
  g_assert_cmpint (pd_checklist_get_agent_item (checklist, 1)->status, ==, PD_CHECKLIST_STATUS_IN_PROGRESS);
  g_assert_cmpuint (pd_checklist_get_n_user_items (checklist), ==, 0);
  pd_checklist_count (checklist, &done, &total, &in_progress);
  g_assert_cmpuint (done, ==, 1);
  g_assert_cmpuint (total, ==, 3);
  g_assert_cmpuint (in_progress, ==, 1);

  g_assert_nonnull (plans);
  g_assert_cmpuint (plans->len, ==, 1);
  plan = g_ptr_array_index (plans, 0);
  g_assert_cmpstr (plan->markdown, ==, PD_CHECKLIST_TEST_PLAN);
  g_assert_cmpint (plan->status, ==, PD_ARTIFACT_PLAN_APPROVED);
}

static void
test_save (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(PdLocalSource) source = pd_local_source_new (f->db_path, FALSE);
  g_autoptr(PdChecklist) checklist = NULL;
  g_autoptr(PdChecklist) again = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *annotation = NULL;
  g_autofree char *wal = g_strconcat (f->db_path, "-wal", NULL);
  gboolean checked = FALSE;

  checklist = get_checklist (PD_SOURCE (source), f->session_id, NULL, &error);
  g_assert_no_error (error);
  pd_checklist_set_checked (checklist, 2, TRUE);
  pd_checklist_add_user_item (checklist, "Tell the team");
  g_assert_true (save_checklist (PD_SOURCE (source), f->session_id, checklist, &error));
  g_assert_no_error (error);

  /* What is saved is the snapshot at the call: later changes are not. */
  pd_checklist_add_user_item (checklist, "Not saved");

  again = get_checklist (PD_SOURCE (source), f->session_id, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (pd_checklist_get_override (again, 2, &checked));
  g_assert_true (checked);
  g_assert_cmpint (pd_checklist_get_effective_status (again, 2), ==, PD_CHECKLIST_STATUS_COMPLETED);
  g_assert_false (pd_checklist_get_override (again, 0, NULL));
  g_assert_cmpuint (pd_checklist_get_n_user_items (again), ==, 1);
  g_assert_cmpstr (pd_checklist_get_user_item (again, 0)->text, ==, "Tell the team");

  /* Privacy: the user's items are stored, the agent's text never. */
  annotation = pd_session_store_get_annotation (f->store, f->session_id, PD_IMPORT_ANNOTATION_CHECKLIST, &error);
  g_assert_no_error (error);
  g_assert_nonnull (annotation);
  g_assert_nonnull (strstr (annotation, "Tell the team"));
  g_assert_null (strstr (annotation, "Zanzibar"));
  g_assert_false (file_contains (f->db_path, "Zanzibar"));
  g_assert_false (file_contains (wal, "Zanzibar"));

  /* Choosing the agent's own status again removes the override. */
  pd_checklist_set_checked (again, 2, FALSE);
  g_assert_cmpuint (pd_checklist_get_n_overrides (again), ==, 0);
  g_assert_true (save_checklist (PD_SOURCE (source), f->session_id, again, &error));
  g_assert_no_error (error);
  g_clear_object (&checklist);
  checklist = get_checklist (PD_SOURCE (source), f->session_id, NULL, &error);
  g_assert_no_error (error);
  g_assert_false (pd_checklist_get_override (checklist, 2, NULL));
  g_assert_cmpuint (pd_checklist_get_n_user_items (checklist), ==, 1);
}

static void
test_not_imported (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(PdLocalSource) source = pd_local_source_new (f->db_path, FALSE);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionInfo) own = pd_session_store_create (f->store, "Own task", "test-model", "replay",
                                                          "plandeck", "/tmp", &error);
  g_autoptr(PdChecklist) checklist = NULL;
  GPtrArray *plans = (gpointer) 0x1;

  g_assert_no_error (error);
  checklist = get_checklist (PD_SOURCE (source), own->id, &plans, &error);
  g_assert_null (checklist);
  g_assert_null (plans);
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND);
  g_clear_error (&error);

  checklist = get_checklist (PD_SOURCE (source), "20260101-nope", NULL, &error);
  g_assert_null (checklist);
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND);
}

static void
test_remote_read_only (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdRemoteSource) source = pd_remote_source_new ("http://127.0.0.1:9/?token=t", NULL, &error);
  g_autoptr(PdChecklist) checklist = NULL;
  g_autoptr(PdChecklist) mine = pd_checklist_new ();

  g_assert_no_error (error);
  /* An endpoint's checklist is read from the plan it serves (for reading
   * only); a name that is no session id is refused before any request. */
  checklist = get_checklist (PD_SOURCE (source), "20260101-x", NULL, &error);
  g_assert_null (checklist);
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_false (save_checklist (PD_SOURCE (source), "20260101-x", mine, &error));
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_READ_ONLY);
}

/* A hostile endpoint's checklist (tried as an attacker would): a real
 * SoupServer on loopback serves an imported session whose plan has
 * @n_items items of @item_chars characters each, with a control character
 * and a bidi override in every one.  It answered 500 items of 20 KB and
 * held the window on "Loading…" for a minute. */
#define HOSTILE_ID "20260101-abcdefabcdefabcdefabcdefabcdefab"

typedef struct
{
  guint n_items;
  guint item_chars;
  guint plan_requests;
} Hostile;

static void
hostile_handler (SoupServer        *server,
                 SoupServerMessage *msg,
                 const char        *path,
                 GHashTable        *query,
                 gpointer           user_data)
{
  Hostile *h = user_data;
  GString *body = g_string_new (NULL);

  if (strcmp (path, "/api/sessions/" HOSTILE_ID) == 0)
    g_string_append (body, "{\"id\": \"" HOSTILE_ID "\", \"task\": \"Hostile\", \"source\": \"gemini\","
                           " \"status\": \"idle\"}");
  else if (g_str_has_prefix (path, "/api/sessions/" HOSTILE_ID "/plan"))
    {
      h->plan_requests++;
      g_string_append (body, "{\"found\": true, \"version\": 1, \"steps\": [");
      for (guint i = 0; i < h->n_items; i++)
        {
          g_string_append_printf (body, "%s{\"id\": \"%u\", \"status\": \"pending\", \"title\": \"\\u202e\\u0007",
                                  i ? ", " : "", i);
          for (guint j = 2; j < h->item_chars; j++)
            g_string_append_c (body, 'a' + (i + j) % 26);
          g_string_append (body, "\"}");
        }
      g_string_append (body, "]}");
    }
  else
    {
      soup_server_message_set_status (msg, 404, NULL);
      g_string_free (body, TRUE);
      return;
    }
  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_TAKE, body->str, body->len);
  g_string_free (body, FALSE);
}

static PdChecklist *
hostile_checklist (Hostile  *h,
                   GError  **error)
{
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(GError) local_error = NULL;
  g_autoptr(PdRemoteSource) source = NULL;
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) local = NULL;
  g_autofree char *url = NULL;
  PdChecklist *checklist;
  GSList *listeners;

  /* Neither soup_server_listen_local() nor soup_server_get_uris(): libsoup
   * 3.2 leaks an address in each (pd-test-remote-source.h does the same). */
  pd_soup_server_plug_accept_leak (server);
  soup_server_add_handler (server, NULL, hostile_handler, h, NULL);
  g_assert_true (soup_server_listen (server, address, 0, &local_error));
  g_assert_no_error (local_error);
  listeners = soup_server_get_listeners (server);
  local = g_socket_get_local_address (listeners->data, &local_error);
  g_assert_no_error (local_error);
  g_slist_free (listeners);
  url = g_strdup_printf ("http://127.0.0.1:%u/?token=t", g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (local)));
  source = pd_remote_source_new (url, NULL, &local_error);
  g_assert_no_error (local_error);

  checklist = get_checklist (PD_SOURCE (source), HOSTILE_ID, NULL, error);
  g_assert_cmpuint (h->plan_requests, >=, 1);
  soup_server_disconnect (server);
  return checklist;
}

/* More items than a local import keeps, each longer than its text: cut to
 * the same caps, the rest counted (and so said) and never built. */
static void
test_remote_hostile_items (void)
{
  Hostile h = { .n_items = PD_IMPORT_MAX_ITEMS + 100, .item_chars = 3 * PD_IMPORT_MAX_TEXT };
  g_autoptr(GError) error = NULL;
  g_autoptr(PdChecklist) checklist = hostile_checklist (&h, &error);

  g_assert_no_error (error);
  g_assert_nonnull (checklist);
  g_assert_cmpuint (pd_checklist_get_n_agent_items (checklist), ==, PD_IMPORT_MAX_ITEMS);
  g_assert_cmpuint (pd_checklist_get_n_hidden_agent_items (checklist), ==, 100);
  for (guint i = 0; i < pd_checklist_get_n_agent_items (checklist); i++)
    {
      const char *text = pd_checklist_get_agent_item (checklist, i)->text;

      g_assert_cmpint (g_utf8_strlen (text, -1), <=, PD_IMPORT_MAX_TEXT + 8);
      /* Cleaned as a local import's: the control gone, the override shown. */
      g_assert_true (g_str_has_prefix (text, "<U+202E>"));
      g_assert_null (strchr (text, '\a'));
    }
}

/* 500 items of 20 KB: a reply no serve sends for a checklist, refused once
 * it passes the bound, with an error that says so. */
static void
test_remote_hostile_bytes (void)
{
  Hostile h = { .n_items = PD_IMPORT_MAX_ITEMS, .item_chars = 20 * 1024 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PdChecklist) checklist = hostile_checklist (&h, &error);

  g_assert_null (checklist);
  g_assert_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "too large"));
}

/* Deleting an imported session hides it from the index and leaves the
 * agent's transcript alone; the next scan of the agent's folder does not
 * bring it back.  A session of ours is deleted, rows and all. */
static void
test_delete_hides_imported (Fixture       *f,
                            gconstpointer  data)
{
  g_autofree char *transcript = g_build_filename (f->dir, "-work-app", "0b7c0c1e-5f7e-4d21-9a43-3c2d1e0f9a11.jsonl", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(PdSessionInfo) ours = NULL;
  g_autoptr(GError) error = NULL;
  const char *paths[] = { f->dir, NULL };
  guint total = 99;

  g_assert_true (g_file_get_contents (transcript, &before, NULL, NULL));
  ours = pd_session_store_create (f->store, "Ours", "m", "replay", "plandeck", "/tmp", &error);
  g_assert_no_error (error);

  g_assert_true (pd_session_store_delete (f->store, f->session_id, &error));
  g_assert_no_error (error);
  g_assert_true (pd_session_store_delete (f->store, ours->id, &error));
  g_assert_no_error (error);

  list = pd_session_store_list (f->store, NULL, FALSE, 0, 10, &total, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 0);
  g_assert_cmpuint (total, ==, 0);
  g_clear_pointer (&list, g_ptr_array_unref);
  /* Not even by a search for it. */
  list = pd_session_store_list (f->store, "parser", TRUE, 0, 10, &total, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 0);
  g_clear_pointer (&list, g_ptr_array_unref);

  /* Ours is gone; the agent's transcript is as it was. */
  info = pd_session_store_get (f->store, ours->id, &error);
  g_assert_null (info);
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_assert_true (g_file_get_contents (transcript, &after, NULL, NULL));
  g_assert_cmpstr (after, ==, before);

  /* Scanned again, it stays hidden. */
  g_assert_true (pd_import_index_run_paths (index, f->store, paths, NULL, NULL, &error));
  g_assert_no_error (error);
  list = pd_session_store_list (f->store, NULL, FALSE, 0, 10, &total, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/pd/source/checklist/get", Fixture, NULL, fixture_setup, test_get, fixture_teardown);
  g_test_add ("/pd/source/checklist/save", Fixture, NULL, fixture_setup, test_save, fixture_teardown);
  g_test_add ("/pd/source/checklist/not-imported", Fixture, NULL, fixture_setup, test_not_imported, fixture_teardown);
  g_test_add_func ("/pd/source/checklist/remote-read-only", test_remote_read_only);
  g_test_add_func ("/pd/source/checklist/remote-hostile-items", test_remote_hostile_items);
  g_test_add_func ("/pd/source/checklist/remote-hostile-bytes", test_remote_hostile_bytes);
  g_test_add ("/pd/source/checklist/delete-hides-imported", Fixture, NULL, fixture_setup,
              test_delete_hides_imported, fixture_teardown);

  return g_test_run ();
}
