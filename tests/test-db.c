/* test-db.c: PdDb on real files: creation, WAL, migrations, refusal of
 * newer, foreign and damaged files (which are never modified), the statement
 * cache and transactions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <grp.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "pd-db.h"
#include "pd-db-private.h"
#include "pd-sqlite-guard.h"
#include "pd-test-files.h"

typedef struct
{
  char *dir;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  f->dir = g_dir_make_tmp ("pd-test-db-XXXXXX", &error);
  g_assert_no_error (error);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  pd_test_remove_tree (f->dir);
  g_free (f->dir);
}

static char *
file_checksum (const char *path)
{
  g_autofree char *contents = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (path, &contents, &len, NULL));
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, len);
}

static void
raw_exec (sqlite3    *handle,
          const char *sql)
{
  char *msg = NULL;
  int rc = sqlite3_exec (handle, sql, NULL, NULL, &msg);

  if (rc != SQLITE_OK)
    g_error ("%s: %s", sql, msg);
}

static gint64
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

static gint64
db_int (PdDb       *db,
        const char *sql)
{
  return raw_int (_pd_db_get_handle (db), sql);
}

static char *
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

static void
test_create (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "new.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  g_autoptr(PdDb) ro = NULL;
  g_autofree char *mode = NULL;

  /* Without CREATE a missing file is an error, and nothing is created. */
  db = pd_db_open (path, PD_DB_NONE, &error);
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND);
  g_assert_null (db);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_clear_error (&error);

  db = pd_db_open (path, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pd_db_get_user_version (db), ==, PD_DB_SCHEMA_VERSION);
  g_assert_cmpint (db_int (db, "PRAGMA user_version"), ==, PD_DB_SCHEMA_VERSION);
  g_assert_cmpint (db_int (db, "PRAGMA application_id"), ==, PD_DB_APPLICATION_ID);
  g_assert_cmpint (db_int (db, "PRAGMA foreign_keys"), ==, 1);
  g_assert_cmpint (db_int (db, "PRAGMA synchronous"), ==, 1);  /* NORMAL */
  mode = pd_db_get_journal_mode (db, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (mode, ==, "wal");

  /* A read-only connection beside the writer sees the same file. */
  ro = pd_db_open (path, PD_DB_READ_ONLY, &error);
  g_assert_no_error (error);
  g_assert_true (pd_db_is_read_only (ro));
  g_assert_cmpint (db_int (ro, "SELECT count(*) FROM sqlite_master WHERE name = 'sessions'"), ==, 1);
  g_assert_false (pd_db_begin (ro, &error));
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
}

static void
insert_v1_data (sqlite3 *handle)
{
  raw_exec (handle,
            "INSERT INTO sessions (pk, id, task, model, created_at, updated_at, auth_token, n_messages) "
            "VALUES (7, '20250101-0123456789abcdef0123456789abcdef', 'migrate the frobnicator', 'm1', 1, 2, 'tok', 2);"
            "INSERT INTO messages (id, role, content) VALUES ((7 << 24) + 0, 'user', 'please migrate');"
            "INSERT INTO messages (id, role, content) VALUES ((7 << 24) + 1, 'assistant', 'quixotic answer');"
            "INSERT INTO events (session_id, type, timestamp, event_json) "
            "VALUES ('20250101-0123456789abcdef0123456789abcdef', 'run/start', 1, '{}');");
}

/* For every earlier version: build a file with the migration SQL up to that
 * version only, put data in it, and open it with PdDb. */
static void
test_migrate_every_version (Fixture       *f,
                            gconstpointer  data)
{
  for (guint from = 1; from < PD_DB_SCHEMA_VERSION; from++)
    {
      g_autofree char *name = g_strdup_printf ("v%u.db", from);
      g_autofree char *path = g_build_filename (f->dir, name, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(PdDb) db = NULL;
      g_autofree char *bump = g_strdup_printf ("PRAGMA user_version = %u", from);
      sqlite3 *handle = NULL;

      g_assert_cmpint (sqlite3_open (path, &handle), ==, SQLITE_OK);
      for (guint v = 1; v <= from; v++)
        raw_exec (handle, _pd_db_migration_sql (v));
      raw_exec (handle, bump);
      insert_v1_data (handle);
      sqlite3_close (handle);

      db = pd_db_open (path, PD_DB_NONE, &error);
      g_assert_no_error (error);
      g_assert_cmpint (pd_db_get_user_version (db), ==, PD_DB_SCHEMA_VERSION);
      g_assert_cmpint (db_int (db, "PRAGMA user_version"), ==, PD_DB_SCHEMA_VERSION);

      /* The data survived, and the v2 parts know about it. */
      g_assert_cmpint (db_int (db, "SELECT count(*) FROM messages"), ==, 2);
      g_assert_cmpint (db_int (db, "SELECT count(*) FROM events"), ==, 1);
      g_assert_cmpint (db_int (db, "SELECT plan_total FROM sessions WHERE pk = 7"), ==, 0);
      g_assert_cmpint (db_int (db, "SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'quixotic'"), ==,
                       (G_GINT64_CONSTANT (7) << 24) + 1);
      g_assert_cmpint (db_int (db, "SELECT rowid FROM sessions_fts WHERE sessions_fts MATCH 'frobnicator'"), ==, 7);
      g_assert_cmpint (db_int (db, "SELECT count(*) FROM plan_versions"), ==, 0);
      g_assert_cmpint (db_int (db, "SELECT count(*) FROM annotations"), ==, 0);
      /* v3: the import index, empty, and tied to its sessions. */
      g_assert_cmpint (db_int (db, "SELECT count(*) FROM imports"), ==, 0);
      raw_exec (_pd_db_get_handle (db),
                "BEGIN; INSERT INTO imports (session_pk, path, format, size, mtime, indexed_at) "
                "VALUES (7, '/t/a.jsonl', 'claude', 10, 20, 30)");
      g_assert_cmpint (db_int (db, "SELECT count(*) FROM imports WHERE session_pk = 7"), ==, 1);
      raw_exec (_pd_db_get_handle (db), "DELETE FROM sessions WHERE pk = 7");
      g_assert_cmpint (db_int (db, "SELECT count(*) FROM imports"), ==, 0);
      /* v4 rebuilt the sessions table: what points at it still follows it
       * (the cascade to events, the trigger to messages). */
      g_assert_cmpint (db_int (db, "SELECT count(*) FROM events"), ==, 0);
      g_assert_cmpint (db_int (db, "SELECT count(*) FROM messages"), ==, 0);
      raw_exec (_pd_db_get_handle (db), "ROLLBACK");

      /* v4: interrupted runs, and their owners. */
      g_assert_cmpint (db_int (db, "PRAGMA foreign_keys"), ==, 1);
      raw_exec (_pd_db_get_handle (db), "UPDATE sessions SET status = 'interrupted', run_owner = 'x' WHERE pk = 7");
      g_assert_cmpint (db_int (db, "SELECT count(*) FROM sessions WHERE status = 'interrupted'"), ==, 1);
      g_assert_cmpint (db_int (db, "SELECT task = 'migrate the frobnicator' AND n_messages = 2 FROM sessions WHERE pk = 7"), ==, 1);
      g_assert_cmpint (db_int (db, "SELECT count(*) FROM pragma_foreign_key_check"), ==, 0);

      /* Opening again is a no-op. */
      g_clear_object (&db);
      db = pd_db_open (path, PD_DB_NONE, &error);
      g_assert_no_error (error);
      g_assert_cmpint (db_int (db, "SELECT count(*) FROM messages"), ==, 2);
    }
}

static void
test_read_only_old_schema (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "old.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  sqlite3 *handle = NULL;

  g_assert_cmpint (sqlite3_open (path, &handle), ==, SQLITE_OK);
  raw_exec (handle, _pd_db_migration_sql (1));
  raw_exec (handle, "PRAGMA user_version = 1");
  sqlite3_close (handle);
  before = file_checksum (path);

  /* A viewer never migrates. */
  db = pd_db_open (path, PD_DB_READ_ONLY, &error);
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "older"));
  g_assert_null (db);
  after = file_checksum (path);
  g_assert_cmpstr (before, ==, after);
}

static void
test_newer_schema (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *path = make_db (f, "newer.db");
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *expected = NULL;
  sqlite3 *handle = NULL;

  g_assert_cmpint (sqlite3_open (path, &handle), ==, SQLITE_OK);
  raw_exec (handle, "PRAGMA journal_mode = DELETE; PRAGMA user_version = 99");
  sqlite3_close (handle);
  before = file_checksum (path);

  for (guint i = 0; i < 2; i++)
    {
      db = pd_db_open (path, i == 0 ? PD_DB_NONE : PD_DB_READ_ONLY, &error);
      g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_NEWER_SCHEMA);
      g_assert_null (db);
      expected = g_strdup_printf ("database schema version 99 is newer than this Plandeck (%d); update Plandeck",
                                  PD_DB_SCHEMA_VERSION);
      g_assert_nonnull (strstr (error->message, expected));
      g_clear_pointer (&expected, g_free);
      g_clear_error (&error);
    }

  after = file_checksum (path);
  g_assert_cmpstr (before, ==, after);
  /* Refused before WAL was switched on: no side files either. */
  {
    g_autofree char *wal = g_strconcat (path, "-wal", NULL);
    g_assert_false (g_file_test (wal, G_FILE_TEST_EXISTS));
  }
}

static void
write_file (const char *path,
            const void *data,
            gsize       len)
{
  g_autoptr(GError) error = NULL;

  g_file_set_contents (path, data, (gssize) len, &error);
  g_assert_no_error (error);
}

static void
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

static void
test_foreign_files (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *text = g_build_filename (f->dir, "notes.txt", NULL);
  g_autofree char *empty = g_build_filename (f->dir, "empty.db", NULL);
  g_autofree char *noise = g_build_filename (f->dir, "noise.bin", NULL);
  g_autofree char *fake = g_build_filename (f->dir, "fake-header.db", NULL);
  g_autofree char *other = g_build_filename (f->dir, "other-app.db", NULL);
  guint8 bytes[8192];
  GRand *rand = g_rand_new_with_seed (42);
  sqlite3 *handle = NULL;

  for (guint i = 0; i < sizeof bytes; i++)
    bytes[i] = (guint8) g_rand_int_range (rand, 0, 256);
  g_rand_free (rand);

  write_file (text, "These are my notes.\nNot a database.\n", 36);
  write_file (empty, "", 0);
  write_file (noise, bytes, sizeof bytes);
  /* The right magic with garbage behind it. */
  memcpy (bytes, "SQLite format 3", 16);
  write_file (fake, bytes, sizeof bytes);

  g_assert_cmpint (sqlite3_open (other, &handle), ==, SQLITE_OK);
  raw_exec (handle, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('mine');");
  sqlite3_close (handle);

  for (guint i = 0; i < 2; i++)
    {
      PdDbFlags flags = i == 0 ? PD_DB_NONE : PD_DB_READ_ONLY;

      assert_refused_unchanged (text, flags, PD_DB_ERROR_NOT_A_DATABASE, "is not a Plandeck database");
      assert_refused_unchanged (empty, flags, PD_DB_ERROR_NOT_A_DATABASE, "is not a Plandeck database");
      assert_refused_unchanged (noise, flags, PD_DB_ERROR_NOT_A_DATABASE, "is not a Plandeck database");
      assert_refused_unchanged (other, flags, PD_DB_ERROR_NOT_A_DATABASE, "another application");
    }
  /* Even when asked to create: an existing file is never overwritten. */
  assert_refused_unchanged (text, PD_DB_CREATE, PD_DB_ERROR_NOT_A_DATABASE, "is not a Plandeck database");
  assert_refused_unchanged (other, PD_DB_CREATE, PD_DB_ERROR_NOT_A_DATABASE, "another application");

  /* Garbage behind a valid magic is reported as not a database or as
   * damage, whichever SQLite meets first — never opened. */
  {
    g_autofree char *before = file_checksum (fake);
    g_autofree char *after = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(PdDb) db = pd_db_open (fake, PD_DB_NONE, &error);

    g_assert_null (db);
    g_assert_true (g_error_matches (error, PD_DB_ERROR, PD_DB_ERROR_NOT_A_DATABASE) ||
                   g_error_matches (error, PD_DB_ERROR, PD_DB_ERROR_CORRUPT));
    after = file_checksum (fake);
    g_assert_cmpstr (before, ==, after);
  }
}

static void
test_zero_length_create (Fixture       *f,
                         gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "touched.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;

  write_file (path, "", 0);
  db = pd_db_open (path, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pd_db_get_user_version (db), ==, PD_DB_SCHEMA_VERSION);
}

/* A Plandeck database with enough rows to span many pages. */
static char *
make_filled_db (Fixture    *f,
                const char *name)
{
  g_autofree char *path = make_db (f, name);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (path, PD_DB_NONE, &error);

  g_assert_no_error (error);
  g_assert_true (pd_db_exec (db,
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) "
    "INSERT INTO sessions (id, task, created_at, updated_at, auth_token) "
    "SELECT printf('20250101-%032x', i), printf('task number %d with some words', i), i, i, 'tok' FROM n;",
    &error));
  g_assert_no_error (error);
  g_clear_object (&db);  /* the last close checkpoints: the file holds it all */

  return g_steal_pointer (&path);
}

static void
test_corrupt (Fixture       *f,
              gconstpointer  data)
{
  g_autofree char *damaged = make_filled_db (f, "damaged.db");
  g_autofree char *truncated = make_filled_db (f, "truncated.db");
  g_autofree char *contents = NULL;
  gsize len = 0;

  /* Overwrite pages in the middle of the tables. */
  g_assert_true (g_file_get_contents (damaged, &contents, &len, NULL));
  g_assert_cmpuint (len, >, 16 * 4096);
  for (gsize i = 4 * 4096; i < 12 * 4096; i++)
    contents[i] = (char) (i * 7);
  write_file (damaged, contents, len);
  assert_refused_unchanged (damaged, PD_DB_NONE, PD_DB_ERROR_CORRUPT, "is damaged");
  assert_refused_unchanged (damaged, PD_DB_READ_ONLY, PD_DB_ERROR_CORRUPT, "is damaged");

  g_clear_pointer (&contents, g_free);
  g_assert_true (g_file_get_contents (truncated, &contents, &len, NULL));
  write_file (truncated, contents, len / 2);
  assert_refused_unchanged (truncated, PD_DB_NONE, PD_DB_ERROR_CORRUPT, "is damaged");
}

/* user_version is a signed field anyone can set: below 0 it was never
 * Plandeck's, and the migrations must not count up from it (they read
 * before the first migration and crashed every command). */
static void
test_negative_user_version (Fixture       *f,
                            gconstpointer  data)
{
  static const char * const versions[] = { "-1", "-2", "-2147483648" };

  for (guint i = 0; i < G_N_ELEMENTS (versions); i++)
    {
      g_autofree char *name = g_strdup_printf ("negative%u.db", i);
      g_autofree char *path = make_db (f, name);
      g_autofree char *bump = g_strdup_printf ("PRAGMA journal_mode = DELETE; PRAGMA user_version = %s", versions[i]);
      g_autofree char *phrase = g_strdup_printf ("schema version %s is not one Plandeck writes", versions[i]);
      sqlite3 *handle = NULL;

      g_assert_cmpint (sqlite3_open (path, &handle), ==, SQLITE_OK);
      raw_exec (handle, bump);
      sqlite3_close (handle);

      assert_refused_unchanged (path, PD_DB_NONE, PD_DB_ERROR_CORRUPT, phrase);
      assert_refused_unchanged (path, PD_DB_READ_ONLY, PD_DB_ERROR_CORRUPT, phrase);
      assert_refused_unchanged (path, PD_DB_CREATE, PD_DB_ERROR_CORRUPT, "restore it from a backup");
    }

  /* Of no application, never written by Plandeck: another program's. */
  {
    g_autofree char *path = g_build_filename (f->dir, "bare-negative.db", NULL);
    sqlite3 *handle = NULL;

    g_assert_cmpint (sqlite3_open (path, &handle), ==, SQLITE_OK);
    raw_exec (handle, "PRAGMA user_version = -1");
    sqlite3_close (handle);
    assert_refused_unchanged (path, PD_DB_NONE, PD_DB_ERROR_NOT_A_DATABASE, "another application");
  }
}

/* A file of the current version whose schema something else changed is
 * refused on open, naming what is missing, instead of failing half way
 * through a command (or a run) at the first statement that needs it. */
static void
test_schema_changed (Fixture       *f,
                     gconstpointer  data)
{
  static const struct { const char *sql; const char *missing; } cases[] = {
    { "DROP TABLE plan_versions", "its table “plan_versions” is missing" },
    { "DROP TABLE annotations", "its table “annotations” is missing" },
    { "ALTER TABLE sessions DROP COLUMN n_messages", "its column “sessions.n_messages” is missing" },
    { "DROP TABLE events; CREATE TABLE events (x)", "its column “events.event_json” is missing" },
    { "DROP TRIGGER messages_fts_ai", "its trigger “messages_fts_ai” is missing" },
    { "DROP INDEX events_by_session", "its index “events_by_session” is missing" },
    { "DROP TABLE messages_fts", "its table “messages_fts” is missing" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("changed%u.db", i);
      g_autofree char *path = make_db (f, name);
      g_autofree char *sql = g_strdup_printf ("PRAGMA journal_mode = DELETE; %s", cases[i].sql);
      sqlite3 *handle = NULL;

      g_assert_cmpint (sqlite3_open (path, &handle), ==, SQLITE_OK);
      raw_exec (handle, sql);
      sqlite3_close (handle);

      assert_refused_unchanged (path, PD_DB_NONE, PD_DB_ERROR_CORRUPT, cases[i].missing);
      assert_refused_unchanged (path, PD_DB_READ_ONLY, PD_DB_ERROR_CORRUPT, cases[i].missing);
    }

  /* What the file has beyond our schema is its own business. */
  {
    g_autofree char *path = make_db (f, "extra.db");
    g_autoptr(GError) error = NULL;
    g_autoptr(PdDb) db = NULL;
    sqlite3 *handle = NULL;

    g_assert_cmpint (sqlite3_open (path, &handle), ==, SQLITE_OK);
    raw_exec (handle, "CREATE TABLE my_notes (body TEXT); ALTER TABLE sessions ADD COLUMN colour TEXT;"
                      "CREATE INDEX sessions_by_colour ON sessions (colour)");
    sqlite3_close (handle);
    db = pd_db_open (path, PD_DB_NONE, &error);
    g_assert_no_error (error);
    g_assert_nonnull (db);
  }
}

/* A folder or a FIFO at the path: refused, and the FIFO never waited on
 * (no writer will ever come). */
static void
test_not_regular (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *folder = g_build_filename (f->dir, "folder.db", NULL);
  g_autofree char *fifo = g_build_filename (f->dir, "fifo.db", NULL);
  const char *paths[] = { folder, fifo };

  g_assert_cmpint (g_mkdir (folder, 0700), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  for (guint p = 0; p < G_N_ELEMENTS (paths); p++)
    for (guint i = 0; i < 3; i++)
      {
        PdDbFlags flags = i == 0 ? PD_DB_NONE : i == 1 ? PD_DB_READ_ONLY : PD_DB_CREATE;
        g_autoptr(GError) error = NULL;
        g_autoptr(PdDb) db = pd_db_open (paths[p], flags, &error);

        g_assert_null (db);
        g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_NOT_A_DATABASE);
        g_assert_nonnull (strstr (error->message, "not a regular file"));
      }
  g_assert_true (g_file_test (folder, G_FILE_TEST_IS_DIR));
}

/* A rollback-journal database with a FIFO where its journal goes: SQLite's
 * hot-journal check opened it for reading and waited for ever for a writer;
 * with a link there, a writer's log went wherever the link pointed.  Each
 * open runs in a subprocess with a time limit, so a wait fails the test. */
static void
test_companions_subprocess (void)
{
  const char *dir = g_getenv ("PD_TEST_DB_DIR");
  g_autofree char *fifo_db = g_build_filename (dir, "fifo.db", NULL);
  g_autofree char *link_db = g_build_filename (dir, "link.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  sqlite3 *handle = NULL;

  for (guint i = 0; i < 2; i++)
    {
      db = pd_db_open (fifo_db, i == 0 ? PD_DB_NONE : PD_DB_READ_ONLY, &error);
      g_assert_null (db);
      g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
      g_assert_nonnull (strstr (error->message, "fifo.db-journal beside it is a FIFO"));
      g_clear_error (&error);
    }
  db = pd_db_open (link_db, PD_DB_NONE, &error);
  g_assert_null (db);
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "link.db-wal beside it is a symbolic link"));
  g_clear_error (&error);

  /* The check above is for the message; what holds against a FIFO swapped
   * in after it is the guarded open: SQLite itself, past every check of
   * ours, answers (an I/O error: it cannot seek in a FIFO), never waits. */
  pd_sqlite_guard_install ();
  g_assert_cmpint (sqlite3_open_v2 (fifo_db, &handle, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  {
    sqlite3_stmt *stmt = NULL;
    int rc = sqlite3_prepare_v2 (handle, "SELECT count(*) FROM sessions", -1, &stmt, NULL);

    g_assert_cmpint (rc, ==, SQLITE_IOERR);
    sqlite3_finalize (stmt);
  }
  sqlite3_close (handle);
}

/* A symbolic link where a database is to be made (dangling, or to an empty
 * file): SQLite followed it and made the database, its log and its shared
 * memory where the link pointed, outside the folder (found as an attacker
 * would).  Creation through a link is refused and writes nothing; an
 * existing database behind a link still opens. */
static void
test_create_through_link (Fixture       *f,
                          gconstpointer  data)
{
  g_autofree char *elsewhere = g_build_filename (f->dir, "elsewhere", NULL);
  g_autofree char *target = g_build_filename (elsewhere, "out.db", NULL);
  g_autofree char *target_wal = g_strconcat (target, "-wal", NULL);
  g_autofree char *empty = g_build_filename (elsewhere, "empty.db", NULL);
  g_autofree char *dangling = g_build_filename (f->dir, "dangling.db", NULL);
  g_autofree char *to_empty = g_build_filename (f->dir, "to-empty.db", NULL);
  g_autofree char *real = make_db (f, "real.db");
  g_autofree char *to_real = g_build_filename (f->dir, "to-real.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  gsize length = 1;
  g_autofree char *contents = NULL;

  g_assert_cmpint (g_mkdir (elsewhere, 0700), ==, 0);
  g_assert_cmpint (symlink (target, dangling), ==, 0);
  write_file (empty, "", 0);
  g_assert_cmpint (symlink (empty, to_empty), ==, 0);
  g_assert_cmpint (symlink (real, to_real), ==, 0);

  db = pd_db_open (dangling, PD_DB_CREATE, &error);
  g_assert_null (db);
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "dangling.db is a symbolic link"));
  g_clear_error (&error);
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (target_wal, G_FILE_TEST_EXISTS));

  db = pd_db_open (to_empty, PD_DB_CREATE, &error);
  g_assert_null (db);
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
  g_clear_error (&error);
  g_assert_true (g_file_get_contents (empty, &contents, &length, NULL));
  g_assert_cmpuint (length, ==, 0);

  db = pd_db_open (to_real, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  g_assert_nonnull (db);
}

static void
test_companions (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *fifo_db = make_db (f, "fifo.db");
  g_autofree char *link_db = make_db (f, "link.db");
  g_autofree char *journal = g_strconcat (fifo_db, "-journal", NULL);
  g_autofree char *wal = g_strconcat (link_db, "-wal", NULL);
  g_autofree char *outside = g_build_filename (f->dir, "outside.txt", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  sqlite3 *handle = NULL;

  g_assert_cmpint (sqlite3_open (fifo_db, &handle), ==, SQLITE_OK);
  raw_exec (handle, "PRAGMA journal_mode = DELETE");
  sqlite3_close (handle);
  g_assert_cmpint (mkfifo (journal, 0600), ==, 0);
  write_file (outside, "keep me\n", 8);
  before = file_checksum (outside);
  g_assert_cmpint (symlink (outside, wal), ==, 0);

  g_setenv ("PD_TEST_DB_DIR", f->dir, TRUE);
  g_test_trap_subprocess ("/pd/db/companions/subprocess", 20 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_unsetenv ("PD_TEST_DB_DIR");
  g_test_trap_assert_passed ();

  after = file_checksum (outside);
  g_assert_cmpstr (before, ==, after);
}

/* The tests below need a file this process cannot write.  As root every
 * file is writable, so the checks run in a subprocess that first gives up
 * root for nobody (65534). */
static void
drop_root (void)
{
  if (geteuid () != 0)
    return;
  g_assert_cmpint (setgroups (0, NULL), ==, 0);
  g_assert_cmpint (setgid (65534), ==, 0);
  g_assert_cmpint (setuid (65534), ==, 0);
  g_assert_cmpint (geteuid (), ==, 65534);
}

static void
test_read_only_file_subprocess (void)
{
  const char *dir = g_getenv ("PD_TEST_DB_DIR");
  g_autofree char *path = g_build_filename (dir, "ro.db", NULL);
  g_autofree char *old = g_build_filename (dir, "ro-old.db", NULL);
  g_autofree char *empty = g_build_filename (dir, "ro-empty.db", NULL);
  g_autofree char *locked = g_build_filename (dir, "locked", "x.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;

  drop_root ();
  g_assert_cmpint (access (path, W_OK), !=, 0);

  /* Asked for writing, opened for reading: lists still work, and every
   * write is refused up front with the reason. */
  db = pd_db_open (path, PD_DB_NONE, &error);
  g_assert_no_error (error);
  g_assert_true (pd_db_is_read_only (db));
  g_assert_cmpint (db_int (db, "SELECT count(*) FROM sessions"), ==, 1);
  g_assert_false (pd_db_check_writable (db, &error));
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "the file is read-only"));
  g_clear_error (&error);
  g_assert_false (pd_db_begin (db, &error));
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "the file is read-only"));
  g_clear_error (&error);
  /* A write that skips BEGIN meets SQLite's refusal, in words. */
  g_assert_false (pd_db_exec (db, "DELETE FROM sessions", &error));
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "is read-only for this process (running SQL failed:"));
  g_clear_error (&error);
  g_clear_object (&db);

  /* Too old to read, and it cannot be upgraded. */
  db = pd_db_open (old, PD_DB_NONE, &error);
  g_assert_null (db);
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "cannot be upgraded: the file is read-only"));
  g_clear_error (&error);

  /* An empty file cannot be made a database. */
  db = pd_db_open (empty, PD_DB_CREATE, &error);
  g_assert_null (db);
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "no database can be made in it"));
  g_clear_error (&error);

  /* A writable file in a folder that is not: SQLite cannot make its -shm
   * file, and the message says where to look. */
  g_assert_cmpint (access (locked, W_OK), ==, 0);
  db = pd_db_open (locked, PD_DB_NONE, &error);
  g_assert_null (db);
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_IO);
  g_assert_nonnull (strstr (error->message, "is read-only for this process"));
  g_assert_nonnull (strstr (error->message, "permissions of the file and of its folder"));
}

static void
test_read_only_file (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *path = make_db (f, "ro.db");
  g_autofree char *old = g_build_filename (f->dir, "ro-old.db", NULL);
  g_autofree char *empty = g_build_filename (f->dir, "ro-empty.db", NULL);
  g_autofree char *locked_dir = g_build_filename (f->dir, "locked", NULL);
  g_autofree char *locked = g_build_filename (locked_dir, "x.db", NULL);
  g_autofree char *locked_db = NULL;
  sqlite3 *handle = NULL;

  g_assert_cmpint (sqlite3_open (path, &handle), ==, SQLITE_OK);
  raw_exec (handle, "INSERT INTO sessions (id, created_at, updated_at, auth_token) "
                    "VALUES ('20250101-00000000000000000000000000000001', 1, 1, 't')");
  sqlite3_close (handle);
  g_assert_cmpint (sqlite3_open (old, &handle), ==, SQLITE_OK);
  raw_exec (handle, _pd_db_migration_sql (1));
  raw_exec (handle, "PRAGMA user_version = 1");
  sqlite3_close (handle);
  write_file (empty, "", 0);
  g_assert_cmpint (g_mkdir (locked_dir, 0700), ==, 0);
  locked_db = make_db (f, "locked/x.db");

  g_assert_cmpint (g_chmod (path, 0444), ==, 0);
  g_assert_cmpint (g_chmod (old, 0444), ==, 0);
  g_assert_cmpint (g_chmod (empty, 0444), ==, 0);
  g_assert_cmpint (g_chmod (locked, 0666), ==, 0);
  g_assert_cmpint (g_chmod (locked_dir, 0555), ==, 0);
  /* Nobody may make SQLite's side files beside ro.db, as its owner could. */
  g_assert_cmpint (g_chmod (f->dir, 0777), ==, 0);
  /* Files of their own that they cannot write: a file of another user is
   * never written whatever its mode (test-db-create.c). */
  if (geteuid () == 0)
    {
      const char *own[] = { path, old, empty, locked };

      for (guint i = 0; i < G_N_ELEMENTS (own); i++)
        g_assert_cmpint (chown (own[i], 65534, 65534), ==, 0);
    }

  g_setenv ("PD_TEST_DB_DIR", f->dir, TRUE);
  g_test_trap_subprocess ("/pd/db/read-only-file/subprocess", 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_unsetenv ("PD_TEST_DB_DIR");

  g_chmod (locked_dir, 0700);
  g_remove (locked);
  g_rmdir (locked_dir);
  g_test_trap_assert_passed ();
}

static void
test_statement_cache (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *path = make_db (f, "cache.db");
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (path, PD_DB_NONE, &error);
  PdDbStmt *a, *b;

  g_assert_no_error (error);
  a = pd_db_prepare (db, "SELECT count(*) FROM sessions WHERE pinned = ?1", &error);
  g_assert_no_error (error);
  pd_db_stmt_bind_int (a, 1, 1);
  g_assert_cmpint (pd_db_step (db, a, &error), ==, PD_DB_ROW);
  /* Handed out again: the same statement, reset, bindings cleared. */
  b = pd_db_prepare (db, "SELECT count(*) FROM sessions WHERE pinned = ?1", &error);
  g_assert_true (a == b);
  g_assert_cmpint (sqlite3_bind_parameter_count ((sqlite3_stmt *) b), ==, 1);
  g_assert_cmpint (sqlite3_stmt_busy ((sqlite3_stmt *) b), ==, 0);
  pd_db_stmt_release (b);

  g_assert_null (pd_db_prepare (db, "SELEKT nonsense", &error));
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "syntax error"));
}

/* The typed binds and getters give back what was bound, NULL included, and a
 * text bound by copy outlives the caller's buffer. */
static void
test_statement_typed (Fixture       *f,
                      gconstpointer  data)
{
  g_autofree char *path = make_db (f, "typed.db");
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (path, PD_DB_NONE, &error);
  g_autoptr(PdDbStmt) stmt = NULL;
  g_autofree char *copied = g_strdup ("copied text");
  g_autofree char *dup = NULL;

  g_assert_no_error (error);
  stmt = pd_db_prepare (db, "SELECT ?1, ?2, ?3, ?4, ?5, ?6", &error);
  g_assert_no_error (error);
  pd_db_stmt_bind_text (stmt, 1, "kept text");
  pd_db_stmt_bind_text_copy (stmt, 2, copied);
  memset (copied, 'x', strlen (copied));
  pd_db_stmt_bind_int64 (stmt, 3, G_GINT64_CONSTANT (1) << 40);
  pd_db_stmt_bind_int (stmt, 4, -7);
  pd_db_stmt_bind_null (stmt, 5);
  pd_db_stmt_bind_text (stmt, 6, NULL);
  g_assert_cmpint (pd_db_step (db, stmt, &error), ==, PD_DB_ROW);
  g_assert_no_error (error);

  g_assert_cmpstr (pd_db_stmt_column_text (stmt, 0), ==, "kept text");
  dup = pd_db_stmt_column_dup_text (stmt, 1);
  g_assert_cmpstr (dup, ==, "copied text");
  g_assert_cmpint (pd_db_stmt_column_int64 (stmt, 2), ==, G_GINT64_CONSTANT (1) << 40);
  g_assert_cmpint (pd_db_stmt_column_int (stmt, 3), ==, -7);
  g_assert_false (pd_db_stmt_column_is_null (stmt, 0));
  g_assert_true (pd_db_stmt_column_is_null (stmt, 4));
  g_assert_true (pd_db_stmt_column_is_null (stmt, 5));
  g_assert_null (pd_db_stmt_column_text (stmt, 5));
  g_assert_null (pd_db_stmt_column_dup_text (stmt, 5));
  g_assert_cmpint (pd_db_step (db, stmt, &error), ==, PD_DB_DONE);
}

static void
test_transactions (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *path = make_db (f, "tx.db");
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (path, PD_DB_NONE, &error);

  g_assert_no_error (error);
  g_assert_true (pd_db_begin (db, &error));
  g_assert_true (pd_db_in_transaction (db));
  g_assert_true (pd_db_exec (db, "INSERT INTO sessions (id, created_at, updated_at, auth_token) "
                                 "VALUES ('20250101-00000000000000000000000000000001', 1, 1, 't')", &error));
  pd_db_rollback (db);
  g_assert_false (pd_db_in_transaction (db));
  g_assert_cmpint (db_int (db, "SELECT count(*) FROM sessions"), ==, 0);

  g_assert_true (pd_db_begin (db, &error));
  g_assert_true (pd_db_exec (db, "INSERT INTO sessions (id, created_at, updated_at, auth_token) "
                                 "VALUES ('20250101-00000000000000000000000000000001', 1, 1, 't')", &error));
  g_assert_true (pd_db_commit (db, &error));
  g_assert_no_error (error);
  g_assert_cmpint (db_int (db, "SELECT count(*) FROM sessions"), ==, 1);

  /* Constraint failures map to CONSTRAINT. */
  g_assert_false (pd_db_exec (db, "INSERT INTO sessions (id, created_at, updated_at, auth_token) "
                                  "VALUES ('20250101-00000000000000000000000000000001', 1, 1, 't')", &error));
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_CONSTRAINT);
}

typedef struct
{
  const char *path;
  gint        first_committed;  /* set by the first writer right after its COMMIT */
  gboolean    ok;
} Waiter;

static gpointer
second_writer (gpointer data)
{
  Waiter *w = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (w->path, PD_DB_NONE, &error);

  g_assert_no_error (error);
  /* BEGIN IMMEDIATE returns only once the first writer has committed:
   * told by order, not by a time a busy machine may stretch. */
  w->ok = pd_db_begin (db, &error) && g_atomic_int_get (&w->first_committed) &&
          pd_db_exec (db, "UPDATE sessions SET turns = turns + 1", &error) &&
          pd_db_commit (db, &error);
  g_assert_no_error (error);
  return NULL;
}

/* A second connection's BEGIN waits for the first writer (busy_timeout)
 * instead of failing with "database is locked". */
static void
test_writers_wait (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *path = make_db (f, "wait.db");
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (path, PD_DB_NONE, &error);
  Waiter w = { path, 0, FALSE };
  GThread *thread;

  g_assert_no_error (error);
  g_assert_true (pd_db_exec (db, "INSERT INTO sessions (id, created_at, updated_at, auth_token) "
                                 "VALUES ('20250101-00000000000000000000000000000001', 1, 1, 't')", &error));
  g_assert_true (pd_db_begin (db, &error));
  g_assert_true (pd_db_exec (db, "UPDATE sessions SET turns = turns + 10", &error));
  thread = g_thread_new ("second-writer", second_writer, &w);
  g_usleep (300 * 1000);
  g_atomic_int_set (&w.first_committed, TRUE);  /* just before: no writer gets in between */
  g_assert_true (pd_db_commit (db, &error));
  g_thread_join (thread);

  g_assert_true (w.ok);
  g_assert_cmpint (db_int (db, "SELECT turns FROM sessions"), ==, 11);
}

/* A new database and its log are its owner's alone, whatever the umask:
 * made with "Create a New Database Here" in a folder of the user's, it was
 * -rw-r--r--, its log with transcripts in it too (tried as a new user
 * would). */
static void
test_create_private (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *path = g_build_filename (f->dir, "private.db", NULL);
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  mode_t old = umask (022);
  GStatBuf st;

  db = pd_db_open (path, PD_DB_CREATE, &error);
  umask (old);
  g_assert_no_error (error);
  g_assert_nonnull (db);
  g_assert_true (pd_db_exec (db, "CREATE TABLE t (x); INSERT INTO t VALUES (1)", &error));
  g_assert_no_error (error);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_mode & 0777, ==, 0600);
  if (g_stat (wal, &st) == 0)
    g_assert_cmpint (st.st_mode & 0777, ==, 0600);
}

/* The opcodes SQLite compiled @sql to, one a line. */
static GString *
explain (sqlite3    *handle,
         const char *sql)
{
  g_autofree char *query = g_strconcat ("EXPLAIN ", sql, NULL);
  GString *ops = g_string_new (NULL);
  sqlite3_stmt *stmt = NULL;

  g_assert_cmpint (sqlite3_prepare_v2 (handle, query, -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    g_string_append_printf (ops, "%s\n", (const char *) sqlite3_column_text (stmt, 1));
  sqlite3_finalize (stmt);
  return ops;
}

/* @sql fails on a CHECK rule, and changes nothing. */
static void
check_refused (sqlite3    *handle,
               const char *sql)
{
  g_assert_cmpint (sqlite3_exec (handle, sql, NULL, NULL, NULL), ==, SQLITE_CONSTRAINT);
  g_assert_cmpint (sqlite3_extended_errcode (handle), ==, SQLITE_CONSTRAINT_CHECK);
}

/* A new session's row and its import row, as an import writes them, check
 * their CHECK rules without building a temporary index (SQLite makes one for
 * an IN list of more than two constants at each run: two a session), in a
 * new file and in one migrated from v5; the rules still allow exactly the
 * values they allowed. */
static void
test_checks_without_temp_index (Fixture       *f,
                                gconstpointer  data)
{
  static const char * const statuses[] = { "running", "idle", "failed", "interrupted" };
  static const char * const formats[] = { "claude", "codex", "opencode-db", "opencode-storage",
                                          "qwen", "gemini", "gemini-json", "cline" };
  static const char * const session_sql =
    "INSERT INTO sessions (id, task, source, cwd, status, created_at, updated_at, auth_token, "
    "plan_done, plan_total, plan_blocked) VALUES (?1, ?6, ?2, ?7, 'idle', ?3, ?4, ?5, ?8, ?9, 0)";
  static const char * const import_sql =
    "INSERT INTO imports (session_pk, path, agent_id, format, size, mtime, deps, read_offset, "
    "lines, skipped_lines, applied_updates, ignored_updates, indexed_at) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) "
    "ON CONFLICT (session_pk) DO UPDATE SET path = excluded.path, format = excluded.format";
  g_autofree char *old_path = g_build_filename (f->dir, "v5.db", NULL);
  g_autofree char *new_path = make_db (f, "new.db");
  const char *paths[] = { new_path, old_path };
  sqlite3 *handle = NULL;

  g_assert_cmpint (sqlite3_open (old_path, &handle), ==, SQLITE_OK);
  for (guint v = 1; v <= 5; v++)
    raw_exec (handle, _pd_db_migration_sql (v));
  raw_exec (handle, "PRAGMA user_version = 5");
  insert_v1_data (handle);
  raw_exec (handle, "INSERT INTO imports (session_pk, path, format, size, mtime, indexed_at) "
                    "VALUES (7, '/t/a.jsonl', 'gemini-json', 10, 20, 30)");
  sqlite3_close (handle);

  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(PdDb) db = pd_db_open (paths[i], PD_DB_NONE, &error);
      g_autoptr(GString) ops = NULL;

      g_assert_no_error (error);
      handle = _pd_db_get_handle (db);
      ops = explain (handle, session_sql);
      g_assert_null (strstr (ops->str, "OpenEphemeral"));
      g_string_free (ops, TRUE);
      ops = explain (handle, import_sql);
      g_assert_null (strstr (ops->str, "OpenEphemeral"));

      /* The same values allowed, and no other. */
      raw_exec (handle, "BEGIN");
      for (guint s = 0; s <= G_N_ELEMENTS (formats); s++)
        {
          g_autofree char *sql = g_strdup_printf ("INSERT INTO sessions (pk, id, status, created_at, updated_at, "
                                                  "auth_token) VALUES (%u, 'status-%u', '%s', 1, 1, 'st%u')",
                                                  100 + s, s, statuses[s % G_N_ELEMENTS (statuses)], s);
          raw_exec (handle, sql);
        }
      for (guint k = 0; k < G_N_ELEMENTS (formats); k++)
        {
          g_autofree char *sql = g_strdup_printf ("INSERT INTO imports (session_pk, path, format, size, mtime, "
                                                  "indexed_at) VALUES (%u, '/t/%u', '%s', 1, 1, 1)",
                                                  100 + k, k, formats[k]);
          raw_exec (handle, sql);
        }
      check_refused (handle, "INSERT INTO sessions (id, status, created_at, updated_at, auth_token) "
                             "VALUES ('bad', 'Idle', 1, 1, 'bad')");
      check_refused (handle, "INSERT INTO sessions (id, status, created_at, updated_at, auth_token) "
                             "VALUES ('bad', 1, 1, 1, 'bad')");
      check_refused (handle, "UPDATE sessions SET status = 'done' WHERE pk = 100");
      check_refused (handle, "INSERT INTO imports (session_pk, path, format, size, mtime, indexed_at) "
                             "VALUES (108, '/t/x', 'gemini-jsonl', 1, 1, 1)");
      check_refused (handle, "INSERT INTO imports (session_pk, path, format, size, mtime, indexed_at) "
                             "VALUES (108, '/t/x', x'636c696e65', 1, 1, 1)");
      check_refused (handle, "UPDATE imports SET format = 'opencode' WHERE session_pk = 100");
      raw_exec (handle, "ROLLBACK");

      /* What the old file held is all there, found by its full-text index. */
      if (paths[i] == old_path)
        {
          g_assert_cmpint (db_int (db, "SELECT count(*) FROM imports WHERE session_pk = 7 AND format = 'gemini-json'"),
                           ==, 1);
          g_assert_cmpint (db_int (db, "SELECT rowid FROM sessions_fts WHERE sessions_fts MATCH 'frobnicator'"), ==, 7);
          g_assert_cmpint (db_int (db, "SELECT count(*) FROM pragma_foreign_key_check"), ==, 0);
          raw_exec (handle, "INSERT INTO sessions_fts (sessions_fts) VALUES ('integrity-check')");
        }
    }
}

/* The schema of the file at @path, one object a line, without quotes (a
 * renamed table's name has them) and with white space made single spaces. */
static char *
schema_of (const char *path)
{
  GString *text = g_string_new (NULL);
  sqlite3 *handle = NULL;
  sqlite3_stmt *stmt = NULL;

  g_assert_cmpint (sqlite3_open (path, &handle), ==, SQLITE_OK);
  g_string_append_printf (text, "user_version %" G_GINT64_FORMAT "\napplication_id %" G_GINT64_FORMAT "\n",
                          raw_int (handle, "PRAGMA user_version"), raw_int (handle, "PRAGMA application_id"));
  g_assert_cmpint (sqlite3_prepare_v2 (handle, "SELECT type, name, tbl_name, coalesce (sql, '') FROM sqlite_master "
                                               "ORDER BY type, name", -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      const char *sql = (const char *) sqlite3_column_text (stmt, 3);
      gboolean space = FALSE;

      g_string_append_printf (text, "%s %s %s:", sqlite3_column_text (stmt, 0), sqlite3_column_text (stmt, 1),
                              sqlite3_column_text (stmt, 2));
      for (const char *c = sql; *c != '\0'; c++)
        {
          if (*c == '"')
            continue;
          if (g_ascii_isspace (*c))
            {
              space = TRUE;
              continue;
            }
          if (space)
            g_string_append_c (text, ' ');
          space = FALSE;
          g_string_append_c (text, *c);
        }
      g_string_append_c (text, '\n');
    }
  sqlite3_finalize (stmt);
  sqlite3_close (handle);
  return g_string_free (text, FALSE);
}

/* A new file is made in one step, with what the migrations make of an empty
 * file: the same tables, columns, rules, indexes, triggers and full-text
 * tables; its tables never renamed into place (no rebuilds replayed). */
static void
test_new_schema_as_migrated (Fixture       *f,
                             gconstpointer  data)
{
  g_autofree char *new_path = make_db (f, "new.db");
  g_autofree char *old_path = g_build_filename (f->dir, "migrated.db", NULL);
  g_autofree char *new_schema = NULL;
  g_autofree char *old_schema = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  sqlite3 *handle = NULL;

  g_assert_cmpint (sqlite3_open (old_path, &handle), ==, SQLITE_OK);
  for (guint v = 1; v <= PD_DB_SCHEMA_VERSION; v++)
    {
      g_autofree char *bump = g_strdup_printf ("PRAGMA user_version = %u", v);

      raw_exec (handle, _pd_db_migration_sql (v));
      raw_exec (handle, bump);
    }
  sqlite3_close (handle);

  new_schema = schema_of (new_path);
  old_schema = schema_of (old_path);
  g_assert_cmpstr (new_schema, ==, old_schema);

  /* It is a database this build opens and uses as it is, full-text index
   * and cascades included. */
  db = pd_db_open (new_path, PD_DB_NONE, &error);
  g_assert_no_error (error);
  g_assert_cmpint (db_int (db, "SELECT sql GLOB 'CREATE TABLE sessions (*' FROM sqlite_master WHERE name = 'sessions'"),
                   ==, 1);
  handle = _pd_db_get_handle (db);
  insert_v1_data (handle);
  raw_exec (handle, "INSERT INTO imports (session_pk, path, format, size, mtime, indexed_at) "
                    "VALUES (7, '/t/a.jsonl', 'cline', 10, 20, 30)");
  g_assert_cmpint (db_int (db, "SELECT rowid FROM sessions_fts WHERE sessions_fts MATCH 'frobnicator'"), ==, 7);
  g_assert_cmpint (db_int (db, "SELECT rowid FROM messages_fts WHERE messages_fts MATCH 'quixotic'"), ==,
                   (G_GINT64_CONSTANT (7) << 24) + 1);
  raw_exec (handle, "DELETE FROM sessions WHERE pk = 7");
  g_assert_cmpint (db_int (db, "SELECT count(*) FROM messages"), ==, 0);
  g_assert_cmpint (db_int (db, "SELECT count(*) FROM events"), ==, 0);
  g_assert_cmpint (db_int (db, "SELECT count(*) FROM imports"), ==, 0);
  g_assert_cmpint (db_int (db, "SELECT count(*) FROM sessions_fts WHERE sessions_fts MATCH 'frobnicator'"), ==, 0);
  raw_exec (handle, "INSERT INTO sessions_fts (sessions_fts) VALUES ('integrity-check')");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/pd/db/create", test_create);
  ADD ("/pd/db/create-private", test_create_private);
  ADD ("/pd/db/migrate-every-version", test_migrate_every_version);
  ADD ("/pd/db/checks-without-temp-index", test_checks_without_temp_index);
  ADD ("/pd/db/new-schema-as-migrated", test_new_schema_as_migrated);
  ADD ("/pd/db/read-only-old-schema", test_read_only_old_schema);
  ADD ("/pd/db/newer-schema", test_newer_schema);
  ADD ("/pd/db/foreign-files", test_foreign_files);
  ADD ("/pd/db/zero-length-create", test_zero_length_create);
  ADD ("/pd/db/corrupt", test_corrupt);
  ADD ("/pd/db/negative-user-version", test_negative_user_version);
  ADD ("/pd/db/schema-changed", test_schema_changed);
  ADD ("/pd/db/not-regular", test_not_regular);
  ADD ("/pd/db/companions", test_companions);
  ADD ("/pd/db/create-through-link", test_create_through_link);
  g_test_add_func ("/pd/db/companions/subprocess", test_companions_subprocess);
  ADD ("/pd/db/read-only-file", test_read_only_file);
  g_test_add_func ("/pd/db/read-only-file/subprocess", test_read_only_file_subprocess);
  ADD ("/pd/db/statement-cache", test_statement_cache);
  ADD ("/pd/db/statement-typed", test_statement_typed);
  ADD ("/pd/db/transactions", test_transactions);
  ADD ("/pd/db/writers-wait", test_writers_wait);
#undef ADD

  return g_test_run ();
}
