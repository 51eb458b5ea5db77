/* test-db.c: PdDb on real files: creation, WAL, refusal of foreign and
 * damaged files (which are never modified), the statement cache and
 * transactions.  The schema's migrations and checks: test-db-schema.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <grp.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "test-db-util.h"

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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/pd/db/create", test_create);
  ADD ("/pd/db/create-private", test_create_private);
  ADD ("/pd/db/foreign-files", test_foreign_files);
  ADD ("/pd/db/zero-length-create", test_zero_length_create);
  ADD ("/pd/db/corrupt", test_corrupt);
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
