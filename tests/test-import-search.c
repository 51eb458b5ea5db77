/* test-import-search.c: another agent's session is found by that agent's
 * own id (the one its Continue command names) as well as by Plandeck's.
 *
 * The project's fixture transcripts of every agent are read into a real
 * SQLite database; each session is then searched for by its ids.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "pd-import-index.h"
#include "pd-import-test.h"

static PdSessionStore *
open_store (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (path, PD_DB_CREATE, &error);

  g_assert_no_error (error);
  return pd_session_store_new (db);
}

static GPtrArray *
search (PdSessionStore *store,
        const char     *query)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *list = pd_session_store_list (store, query, FALSE, 0, PD_SESSION_LIST_MAX_LIMIT, NULL, &error);

  g_assert_no_error (error);
  return list;
}

/* Pasting the id `claude --resume ID` shows found nothing: the search
 * looked at Plandeck's id, the title, name and model alone (tried as a
 * new user would). */
static void
test_agent_ids (void)
{
  g_autofree char *root = pd_import_test_fixtures (".");
  g_autofree char *db_dir = pd_import_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (db_dir, "sessions.db", NULL);
  g_autoptr(PdSessionStore) store = open_store (db_path);
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) read = NULL;
  g_autoptr(GPtrArray) all = NULL;
  g_autoptr(GError) error = NULL;
  const char *paths[] = { root, NULL };
  guint searched = 0;

  g_assert_true (pd_import_index_run_paths (index, store, paths, NULL, NULL, &error));
  g_assert_no_error (error);
  all = search (store, NULL);
  g_assert_cmpuint (all->len, >, 5);

  /* Plandeck's own ids, whole and in part. */
  for (guint i = 0; i < all->len; i++)
    {
      const PdSessionInfo *info = g_ptr_array_index (all, i);
      g_autoptr(GPtrArray) found = search (store, info->id);

      g_assert_cmpuint (found->len, ==, 1);
      g_assert_cmpstr (((PdSessionInfo *) g_ptr_array_index (found, 0))->id, ==, info->id);
    }

  /* Each agent's own id of each session: the session comes first among
   * few, and an id's first part (as a person copies it) finds it too. */
  read = pd_import_read_path (root, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < all->len; i++)
    {
      const char *stored = ((PdSessionInfo *) g_ptr_array_index (all, i))->id;
      g_autofree char *path = NULL;
      g_autofree char *format = NULL;
      g_autofree char *agent_id = NULL;
      const char *id = NULL;
      g_autoptr(GPtrArray) found = NULL;
      gboolean hit = FALSE;

      g_assert_true (pd_session_store_get_import (store, stored, &path, &format, &agent_id, &error));
      g_assert_no_error (error);
      for (guint j = 0; j < read->len && id == NULL; j++)
        {
          PdImportedSession *session = g_ptr_array_index (read, j);
          g_autofree char *read_path = g_canonicalize_filename (pd_imported_session_get_path (session), NULL);
          g_autofree char *stored_path = g_canonicalize_filename (path, NULL);

          if (g_str_has_prefix (read_path, stored_path) &&
              (agent_id[0] == '\0' || g_strcmp0 (pd_imported_session_get_id (session), agent_id) == 0))
            id = pd_imported_session_get_id (session);
        }
      if (id == NULL || strlen (id) < 8)
        continue;
      found = search (store, id);
      for (guint j = 0; j < found->len; j++)
        hit |= g_str_equal (((PdSessionInfo *) g_ptr_array_index (found, j))->id, stored);
      if (!hit)
        g_error ("the session of %s (%s) was not found by its agent's id %s", path, stored, id);
      g_assert_cmpuint (found->len, <, all->len);
      /* Its first part, as copied from a narrow box. */
      {
        g_autofree char *start = g_strndup (id, 8);
        g_autoptr(GPtrArray) part = search (store, start);

        hit = FALSE;
        for (guint j = 0; j < part->len; j++)
          hit |= g_str_equal (((PdSessionInfo *) g_ptr_array_index (part, j))->id, stored);
        g_assert_true (hit);
      }
      searched++;
    }
  g_assert_cmpuint (searched, >=, 5);

  /* A text that is in every file's folder finds no session by it. */
  {
    g_autoptr(GPtrArray) none = search (store, "fixtures");

    g_assert_cmpuint (none->len, ==, 0);
  }
  pd_test_remove_tree (db_dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-search/agent-ids", test_agent_ids);

  return g_test_run ();
}
