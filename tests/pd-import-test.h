/* pd-import-test.h: what the importer tests share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "pd-checklist.h"
#include "pd-import-index.h"
#include "pd-import-private.h"
#include "pd-imported-session.h"
#include "pd-test-files.h"

/* The project's own transcript fixtures (tests/fixtures, PD_FIXTURES_DIR):
 * always there, so a missing folder fails the test. */
static inline char *
pd_import_test_fixtures (const char *sub)
{
  const char *root = g_getenv ("PD_FIXTURES_DIR");
  char *dir;

  g_assert_nonnull (root);
  dir = g_build_filename (root, sub, NULL);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    g_error ("the project's fixtures folder %s is missing", dir);
  return dir;
}

/* A file of the project's own fixtures: @sub/@file under PD_FIXTURES_DIR. */
static inline char *
pd_import_test_fixture_file (const char *sub,
                             const char *file)
{
  char *dir = pd_import_test_fixtures (sub);
  char *path = g_build_filename (dir, file, NULL);

  g_free (dir);
  return path;
}

/* Appends @text to the file at @path, as an agent writes on. */
static inline void
pd_import_test_append (const char *path,
                       const char *text)
{
  FILE *file = fopen (path, "a");

  g_assert_nonnull (file);
  fputs (text, file);
  fclose (file);
}

/* The shared third-party recordings (../shared/fixtures beside the source
 * tree, PD_SHARED_FIXTURES_DIR): an extra check.  NULL after g_test_skip()
 * with the reason when they are not there. */
static inline char *
pd_import_test_shared_fixtures (const char *sub)
{
  const char *root = g_getenv ("PD_SHARED_FIXTURES_DIR");
  char *dir;

  if (root == NULL || !g_file_test (root, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("../shared/fixtures (the third-party recordings) is not beside the source tree: this extra "
                   "check is skipped; the same reader ran on the project's own fixtures in tests/fixtures");
      return NULL;
    }
  dir = g_build_filename (root, sub, NULL);
  if (!g_file_test (dir, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("a folder of ../shared/fixtures is missing: this extra check is skipped");
      g_free (dir);
      return NULL;
    }
  return dir;
}

/* Writes @lines (NULL-terminated) one per line to @dir/@name. */
static inline char *
pd_import_test_write (const char         *dir,
                      const char         *name,
                      const char * const *lines)
{
  GString *text = g_string_new (NULL);
  char *path = g_build_filename (dir, name, NULL);
  char *parent = g_path_get_dirname (path);
  GError *error = NULL;

  for (guint i = 0; lines[i]; i++)
    {
      g_string_append (text, lines[i]);
      g_string_append_c (text, '\n');
    }
  g_mkdir_with_parents (parent, 0700);
  g_file_set_contents (path, text->str, (gssize) text->len, &error);
  g_assert_no_error (error);
  g_string_free (text, TRUE);
  g_free (parent);
  return path;
}

static inline char *
pd_import_test_tmpdir (void)
{
  GError *error = NULL;
  char *dir = g_dir_make_tmp ("pd-import-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

/* A database of the test's own, in a new temporary folder (*@db_dir, for
 * pd_test_remove_tree()), and its store. */
static inline PdSessionStore *
pd_import_test_new_store (char **db_dir)
{
  GError *error = NULL;
  char *db_path;
  PdSessionStore *store;
  PdDb *db;

  *db_dir = pd_import_test_tmpdir ();
  db_path = g_build_filename (*db_dir, "sessions.db", NULL);
  db = pd_db_open (db_path, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  store = pd_session_store_new (db);
  g_object_unref (db);
  g_free (db_path);
  return store;
}

/* One import of @dir into @store by a new index, as a new process makes
 * one (nothing of the last is kept but the database): its counts in
 * *@stats, and the row of the one session there. */
static inline PdSessionInfo *
pd_import_test_import_fresh (PdSessionStore     *store,
                             const char         *dir,
                             PdImportIndexStats *stats)
{
  PdImportIndex *index = pd_import_index_new ();
  GPtrArray *list;
  GError *error = NULL;
  const char *roots[] = { dir, NULL };
  PdSessionInfo *info;

  memset (stats, 0, sizeof *stats);
  g_assert_true (pd_import_index_run_paths (index, store, roots, stats, NULL, &error));
  g_assert_no_error (error);
  list = pd_session_store_list (store, NULL, FALSE, 0, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 1);
  info = pd_session_info_copy (g_ptr_array_index (list, 0));
  g_ptr_array_unref (list);
  g_object_unref (index);
  return info;
}

/* "text:status|text:status" of the agent's section, for compact asserts. */
static inline char *
pd_import_test_describe (PdImportedSession *session)
{
  PdChecklist *list = pd_imported_session_get_checklist (session);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < pd_checklist_get_n_agent_items (list); i++)
    {
      const PdChecklistItem *item = pd_checklist_get_agent_item (list, i);
      if (i > 0)
        g_string_append_c (out, '|');
      g_string_append_printf (out, "%s:%s", item->text, pd_checklist_status_to_string (item->status));
    }
  return g_string_free (out, FALSE);
}

/* The session's checklist is @expected, as pd_import_test_describe() says it. */
static inline void
pd_import_test_assert_list (PdImportedSession *session,
                            const char        *expected)
{
  char *got = pd_import_test_describe (session);

  g_assert_cmpstr (got, ==, expected);
  g_free (got);
}

/* --- tail reads: a transcript written line by line, read whole and from
 * its end with the threshold and bound lowered ----------------------- */

typedef PdImportedSession *(*PdImportTestReadFunc) (const char  *path,
                                                    GError     **error);

typedef struct
{
  char    *dir;
  char    *path;
  GString *text;
  guint    clock;   /* seconds since the first line */
} PdTailFixture;

static inline void
pd_tail_fixture_init (PdTailFixture *f,
                      const char    *name)
{
  f->dir = pd_import_test_tmpdir ();
  f->path = g_build_filename (f->dir, name, NULL);
  f->text = g_string_new (NULL);
  f->clock = 0;
}

static inline void
pd_tail_fixture_clear (PdTailFixture *f)
{
  _pd_import_set_tail_limits (0, 0);
  pd_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->path);
  g_string_free (f->text, TRUE);
}

static inline void
pd_tail_fixture_save (PdTailFixture *f)
{
  GError *error = NULL;

  g_file_set_contents (f->path, f->text->str, (gssize) f->text->len, &error);
  g_assert_no_error (error);
}

/* Read whole: no tail read, every byte read. */
static inline PdImportedSession *
pd_tail_fixture_read_full (PdTailFixture        *f,
                           PdImportTestReadFunc  read)
{
  GError *error = NULL;
  PdImportedSession *session;

  _pd_import_set_tail_limits (0, 0);
  session = read (f->path, &error);
  g_assert_no_error (error);
  g_assert_false (pd_imported_session_get_stats (session)->tail_read);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->bytes_read, ==, f->text->len);
  return session;
}

/* Read as a file over the threshold, scanned back at most @bound bytes. */
static inline PdImportedSession *
pd_tail_fixture_read_tail (PdTailFixture        *f,
                           PdImportTestReadFunc  read,
                           goffset               bound)
{
  GError *error = NULL;
  PdImportedSession *session;

  _pd_import_set_tail_limits (64 * 1024, bound);
  session = read (f->path, &error);
  g_assert_no_error (error);
  _pd_import_set_tail_limits (0, 0);
  return session;
}
