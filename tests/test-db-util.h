/* test-db-util.h: what the PdDb test programs share.
 *
 * A fixture with a fresh folder, and helpers that run SQL on a file
 * behind PdDb's back, checksum it and check that PdDb refuses it unchanged.
 * test-db.c tries PdDb on real files (creation, foreign and damaged files,
 * the statement cache, transactions); test-db-schema.c its schema
 * (migrations, newer and changed schemas, the CHECK rules).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include <glib/gstdio.h>

#include "pd-db.h"
#include "pd-db-private.h"
#include "pd-sqlite-guard.h"
#include "pd-test-files.h"

typedef struct
{
  char *dir;
} Fixture;

static inline void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->dir = g_dir_make_tmp ("pd-test-db-XXXXXX", &error);
  g_assert_no_error (error);
}

static inline void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  pd_test_remove_tree (f->dir);
  g_free (f->dir);
}

static inline char *
file_checksum (const char *path)
{
  g_autofree char *contents = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, len);
}

static inline void
raw_exec (sqlite3    *handle,
          const char *sql)
{
  char *msg = NULL;
  int rc = sqlite3_exec (handle, sql, NULL, NULL, &msg);

  if (rc != SQLITE_OK)
    g_error ("%s: %s", sql, msg);
}

static inline gint64
raw_int (sqlite3    *handle,
         const char *sql)
{
  sqlite3_stmt *stmt = NULL;
  gint64 value;

  g_assert_cmpint (sqlite3_prepare_v2 (handle, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  value = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  return value;
}

static inline gint64
db_int (PdDb       *db,
        const char *sql)
{
  return raw_int (_pd_db_get_handle (db), sql);
}

static inline char *
make_db (Fixture *f,
         const char *name)
{
  g_autofree char *path = g_build_filename (f->dir, name, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (path, PD_DB_CREATE, &error);

  g_assert_no_error (error);
  g_assert_nonnull (db);
  return g_steal_pointer (&path);
}

static inline void
write_file (const char *path,
            const void *data,
            gsize       len)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, data, (gssize) len, &error);
  g_assert_no_error (error);
}

static inline void
assert_refused_unchanged (const char *path,
                          PdDbFlags   flags,
                          int         code,
                          const char *phrase)
{
  g_autofree char *before = file_checksum (path);
  g_autofree char *after = NULL;
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (path, flags, &error);

  g_assert_null (db);
  g_assert_error (error, PD_DB_ERROR, code);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, phrase));
  after = file_checksum (path);
  g_assert_cmpstr (before, ==, after);
  /* SQLite may open the (empty) log of a WAL-mode file while reading it; it
   * must never hold anything. */
  if (g_file_test (wal, G_FILE_TEST_EXISTS))
    {
      GStatBuf st;
      g_assert_cmpint (g_stat (wal, &st), ==, 0);
      g_assert_cmpint (st.st_size, ==, 0);
    }
}
