/* test-import-watch-start.c: the import watcher's walk at start reads its
 * folders off the main thread, and follows what it followed before
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-import-watch-start"

#include "config.h"

#include <unistd.h>

#include <glib/gstdio.h>

#include "pd-db.h"
#include "pd-import-index.h"
#include "pd-import-watcher-private.h"
#include "pd-import-watcher.h"
#include "pd-session-store.h"

typedef struct
{
  GThread *main_thread;
  gint     read;          /* atomic: folders read */
  gint     read_on_main;  /* atomic: of them, on the main thread */
} Walk;

static void
on_walk (const char *path,
         gpointer    user_data)
{
  Walk *walk = user_data;

  g_atomic_int_inc (&walk->read);
  if (g_thread_self () == walk->main_thread)
    g_atomic_int_inc (&walk->read_on_main);
}

static void
on_started (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (pd_import_watcher_start_finish (PD_IMPORT_WATCHER (object), result, &error));
  g_assert_no_error (error);
  g_main_loop_quit (user_data);
}

static char *
make_folder (const char *parent,
             const char *name)
{
  char *path = g_build_filename (parent, name, NULL);

  g_assert_cmpint (g_mkdir (path, 0700), ==, 0);
  return path;
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (!g_file_test (path, G_FILE_TEST_IS_SYMLINK) && (dir = g_dir_open (path, 0, NULL)))
    while ((name = g_dir_read_name (dir)))
      {
        g_autofree char *child = g_build_filename (path, name, NULL);
        remove_tree (child);
      }
  g_remove (path);
}

/* Before, the agents' root folders were walked on the main thread at
 * start (watch_folder(): every folder opened and each entry's type asked
 * there; the fixture home: 16 folders, 17 ms before the first frames).
 * Now the walk is the worker's, and the main thread makes the monitors
 * from what it found: the same folders, as deep as before, no link. */
static void
test_walk_off_main (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-watch-start-XXXXXX", &error);
  g_autofree char *db_path = g_build_filename (dir, "local.db", NULL);
  g_autofree char *root = make_folder (dir, "root");
  g_autofree char *p1 = make_folder (root, "p1");
  g_autofree char *p2 = make_folder (root, "p2");
  g_autofree char *d1 = make_folder (p2, "d1");
  g_autofree char *d2 = make_folder (d1, "d2");
  g_autofree char *d3 = make_folder (d2, "d3");
  g_autofree char *d4 = make_folder (d3, "d4");
  g_autofree char *link = g_build_filename (root, "link", NULL);
  g_autoptr(PdDb) db = pd_db_open (db_path, PD_DB_CREATE, &error);
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(PdImportWatcher) watcher = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  const char *roots[] = { root, NULL };
  Walk walk = { g_thread_self (), 0, 0 };

  g_assert_no_error (error);
  /* A link to a folder of the tree: passed over, as the import passes it. */
  g_assert_cmpint (symlink (p2, link), ==, 0);
  store = pd_session_store_new (db);
  watcher = pd_import_watcher_new (index, store);
  pd_import_watcher_set_roots (watcher, roots);
  _pd_import_watcher_set_walk_hook (on_walk, &walk);
  pd_import_watcher_start_async (watcher, NULL, on_started, loop);
  g_main_loop_run (loop);
  _pd_import_watcher_set_walk_hook (NULL, NULL);

  g_test_message ("%d folders read, %d of them on the main thread", g_atomic_int_get (&walk.read),
                  g_atomic_int_get (&walk.read_on_main));
  /* root, p1, p2, d1, d2 read for their subfolders; d3 is four levels
   * down, followed but not read; d4 is past it. */
  g_assert_cmpint (g_atomic_int_get (&walk.read), ==, 5);
  g_assert_cmpint (g_atomic_int_get (&walk.read_on_main), ==, 0);
  g_assert_cmpuint (pd_import_watcher_get_n_watched (watcher), ==, 6);

  pd_import_watcher_stop (watcher);
  g_clear_object (&watcher);
  g_clear_object (&store);
  g_clear_object (&db);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-watch-start/walk-off-main", test_walk_off_main);
  return g_test_run ();
}
