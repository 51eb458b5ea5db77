/* test-db.c: PdDb on real files: creation, WAL, migrations, refusal of
 * newer, foreign and damaged files (which are never modified), the statement
 * cache and transactions. */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-db.h"
#include "pd-db-private.h"

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
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir && (name = g_dir_read_name (dir)))
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      g_remove (child);
    }
  g_rmdir (path);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  remove_tree (f->dir);
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
  return raw_int (pd_db_get_handle (db), sql);
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
      raw_exec (pd_db_get_handle (db),
                "BEGIN; INSERT INTO imports (session_pk, path, format, size, mtime, indexed_at) "
                "VALUES (7, '/t/a.jsonl', 'claude', 10, 20, 30)");
      g_assert_cmpint (db_int (db, "SELECT count(*) FROM imports WHERE session_pk = 7"), ==, 1);
      raw_exec (pd_db_get_handle (db), "DELETE FROM sessions WHERE pk = 7");
      g_assert_cmpint (db_int (db, "SELECT count(*) FROM imports"), ==, 0);
      raw_exec (pd_db_get_handle (db), "ROLLBACK");

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
  sqlite3_bind_int (a, 1, 1);
  g_assert_cmpint (sqlite3_step (a), ==, SQLITE_ROW);
  /* Handed out again: the same statement, reset, bindings cleared. */
  b = pd_db_prepare (db, "SELECT count(*) FROM sessions WHERE pinned = ?1", &error);
  g_assert_true (a == b);
  g_assert_cmpint (sqlite3_bind_parameter_count (b), ==, 1);
  g_assert_cmpint (sqlite3_stmt_busy (b), ==, 0);
  pd_db_stmt_release (b);

  g_assert_null (pd_db_prepare (db, "SELEKT nonsense", &error));
  g_assert_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID);
  g_assert_nonnull (strstr (error->message, "syntax error"));
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
  gint64      waited_us;
  gboolean    ok;
} Waiter;

static gpointer
second_writer (gpointer data)
{
  Waiter *w = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (w->path, PD_DB_NONE, &error);
  gint64 start = g_get_monotonic_time ();

  g_assert_no_error (error);
  w->ok = pd_db_begin (db, &error) &&
          pd_db_exec (db, "UPDATE sessions SET turns = turns + 1", &error) &&
          pd_db_commit (db, &error);
  g_assert_no_error (error);
  w->waited_us = g_get_monotonic_time () - start;
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
  g_assert_true (pd_db_commit (db, &error));
  g_thread_join (thread);

  g_assert_true (w.ok);
  g_assert_cmpint (w.waited_us, >=, 200 * 1000);
  g_assert_cmpint (db_int (db, "SELECT turns FROM sessions"), ==, 11);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/pd/db/create", test_create);
  ADD ("/pd/db/migrate-every-version", test_migrate_every_version);
  ADD ("/pd/db/read-only-old-schema", test_read_only_old_schema);
  ADD ("/pd/db/newer-schema", test_newer_schema);
  ADD ("/pd/db/foreign-files", test_foreign_files);
  ADD ("/pd/db/zero-length-create", test_zero_length_create);
  ADD ("/pd/db/corrupt", test_corrupt);
  ADD ("/pd/db/statement-cache", test_statement_cache);
  ADD ("/pd/db/transactions", test_transactions);
  ADD ("/pd/db/writers-wait", test_writers_wait);
#undef ADD

  return g_test_run ();
}
