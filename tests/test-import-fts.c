/* test-import-fts.c: the full-text rows of the sessions an import adds,
 * written together at the end of its transaction (schema v7): every
 * session found by its title, updates, re-imports, deletes and rollbacks
 * keeping the index right, in a new file and in one made at schema v6.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <sqlite3.h>

#include "pd-db-private.h"
#include "pd-import-index.h"
#include "pd-import-test.h"

typedef struct
{
  char           *dir;      /* transcripts */
  char           *db_dir;
  char           *db_path;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->dir = pd_import_test_tmpdir ();
  f->db_dir = pd_import_test_tmpdir ();
  f->db_path = g_build_filename (f->db_dir, "sessions.db", NULL);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  pd_test_remove_tree (f->dir);
  pd_test_remove_tree (f->db_dir);
  g_free (f->dir);
  g_free (f->db_dir);
  g_free (f->db_path);
}

static PdSessionStore *
open_store (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (path, PD_DB_CREATE, &error);

  g_assert_no_error (error);
  return pd_session_store_new (db);
}

static gint64
query_int (PdDb       *db,
           const char *sql)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDbStmt) stmt = pd_db_prepare (db, sql, &error);

  g_assert_no_error (error);
  g_assert_cmpint (pd_db_step (db, stmt, &error), ==, PD_DB_ROW);
  return pd_db_stmt_column_int64 (stmt, 0);
}

static void
exec_ok (PdDb       *db,
         const char *sql)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (pd_db_exec (db, sql, &error));
  g_assert_no_error (error);
}

static gint64
matches (PdDb       *db,
         const char *term)
{
  g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM sessions_fts WHERE sessions_fts MATCH '%s'", term);

  return query_int (db, sql);
}

/* The index holds exactly the terms of every session's title, at their
 * places, and nothing else: FTS5's integrity-check against the sessions
 * table (rank 1: without it an external content table is not read, and a
 * missing row passes), and the terms compared with an index made afresh
 * from the sessions table. */
static void
assert_index_is_sessions (PdDb *db)
{
  exec_ok (db, "INSERT INTO sessions_fts (sessions_fts, rank) VALUES ('integrity-check', 1)");
  exec_ok (db, "CREATE VIRTUAL TABLE temp.want_fts USING fts5 (task, tokenize='unicode61 remove_diacritics 2');"
               "INSERT INTO temp.want_fts (rowid, task) SELECT pk, task FROM sessions;"
               "CREATE VIRTUAL TABLE temp.have_terms USING fts5vocab (main, sessions_fts, instance);"
               "CREATE VIRTUAL TABLE temp.want_terms USING fts5vocab (temp, want_fts, instance);");
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM want_terms"), >, 0);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM (SELECT term, doc, offset FROM have_terms "
                                  "EXCEPT SELECT term, doc, offset FROM want_terms)"), ==, 0);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM (SELECT term, doc, offset FROM want_terms "
                                  "EXCEPT SELECT term, doc, offset FROM have_terms)"), ==, 0);
  exec_ok (db, "DROP TABLE temp.have_terms; DROP TABLE temp.want_terms; DROP TABLE temp.want_fts;");
  /* No batch left open, no session left waiting for its row. */
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sessions_fts_pending"), ==, 0);
}

static char *
write_titled (Fixture    *f,
              const char *name,
              const char *title)
{
  g_autofree char *project = g_build_filename (f->dir, "-work-app", NULL);
  g_autofree char *text =
    g_strdup_printf ("{\"type\":\"user\",\"timestamp\":\"2026-03-04T10:00:00Z\",\"sessionId\":\"s1\",\"cwd\":\"/work/app\","
                     "\"message\":{\"role\":\"user\",\"content\":\"%s\"}}\n"
                     "{\"type\":\"assistant\",\"timestamp\":\"2026-03-04T10:00:01Z\",\"sessionId\":\"s1\",\"cwd\":\"/work/app\","
                     "\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"tu1\","
                     "\"name\":\"TodoWrite\",\"input\":{\"todos\":[{\"content\":\"Step one\",\"status\":\"pending\"}]}}]}}\n",
                     title);
  char *path = g_build_filename (project, name, NULL);
  g_autoptr(GError) error = NULL;

  g_mkdir_with_parents (project, 0700);
  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
  return path;
}

static void
run_dir (Fixture            *f,
         PdSessionStore     *store,
         PdImportIndexStats *stats)
{
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  const char *paths[] = { f->dir, NULL };
  g_autoptr(GError) error = NULL;

  g_assert_true (pd_import_index_run_paths (index, store, paths, stats, NULL, &error));
  g_assert_no_error (error);
}

/* An import of many transcripts writes its sessions' full-text rows in one
 * statement at its end: one FTS5 segment for all of them (a row written
 * with each session was a segment each, written out at the next
 * statement's savepoint).  Every session is found by its title, in the
 * store's search too; a transcript rewritten with another first prompt, a
 * session deleted and a session of the app's own keep the index right. */
static void
test_import_writes_rows_at_end (Fixture       *f,
                                gconstpointer  data)
{
  enum { N = 24 };
  g_autoptr(PdSessionStore) store = open_store (f->db_path);
  PdDb *db = pd_session_store_get_db (store);
  g_autoptr(GPtrArray) found = NULL;
  g_autoptr(GError) error = NULL;
  PdImportIndexStats stats = { 0 };
  guint total = 0;

  for (guint i = 0; i < N; i++)
    {
      g_autofree char *name = g_strdup_printf ("s%02u.jsonl", i);
      g_autofree char *title = g_strdup_printf ("Tidy module%02u", i);

      g_free (write_titled (f, name, title));
    }
  run_dir (f, store, &stats);
  g_assert_cmpuint (stats.sessions_added, ==, N);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sessions"), ==, N);
  g_assert_cmpint (query_int (db, "SELECT count(DISTINCT segid) FROM sessions_fts_idx"), ==, 1);
  g_assert_cmpint (matches (db, "tidy"), ==, N);
  for (guint i = 0; i < N; i++)
    {
      g_autofree char *sql = g_strdup_printf ("SELECT count(*) FROM sessions_fts f JOIN sessions s ON s.pk = f.rowid "
                                              "WHERE sessions_fts MATCH 'module%02u' AND s.task = 'Tidy module%02u'",
                                              i, i);

      g_assert_cmpint (query_int (db, sql), ==, 1);
    }
  assert_index_is_sessions (db);
  found = pd_session_store_list (store, "module07", TRUE, 0, 10, &total, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (found->len, ==, 1);
  g_assert_cmpstr (((PdSessionInfo *) g_ptr_array_index (found, 0))->task, ==, "Tidy module07");

  /* A transcript rewritten with another first prompt: its session's row
   * follows the title (the update's own trigger, the row being indexed). */
  g_free (write_titled (f, "s00.jsonl", "Polish the docs"));
  run_dir (f, store, &stats);
  g_assert_cmpuint (stats.sessions_updated, ==, 1);
  g_assert_cmpuint (stats.sessions_added, ==, 0);
  g_assert_cmpint (matches (db, "module00"), ==, 0);
  g_assert_cmpint (matches (db, "polish"), ==, 1);
  g_assert_cmpint (matches (db, "tidy"), ==, N - 1);
  assert_index_is_sessions (db);

  /* A new transcript beside indexed ones: a batch of one. */
  g_free (write_titled (f, "s99.jsonl", "Tidy module99"));
  run_dir (f, store, &stats);
  g_assert_cmpuint (stats.sessions_added, ==, 1);
  g_assert_cmpint (matches (db, "module99"), ==, 1);
  assert_index_is_sessions (db);

  /* Deleted: its row goes. */
  exec_ok (db, "DELETE FROM sessions WHERE task = 'Tidy module05'");
  g_assert_cmpint (matches (db, "module05"), ==, 0);
  g_assert_cmpint (matches (db, "tidy"), ==, N - 1);
  assert_index_is_sessions (db);

  /* The app's own sessions are indexed as they are written, as before. */
  exec_ok (db, "INSERT INTO sessions (id, task, created_at, updated_at, auth_token) "
               "VALUES ('20260101-00000000000000000000000000000001', 'Refactor the quokka', 1, 2, 'tok')");
  g_assert_cmpint (matches (db, "quokka"), ==, 1);
  assert_index_is_sessions (db);
}

static void
save (PdSessionStore *store,
      const char     *id,
      const char     *title)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_strdup_printf ("/t/%s.jsonl", id);
  PdImportedSummary summary = { title, "claude-code", "/work", 1, 2, 0, 1 };
  PdImportRecord record = { path, "", "claude", 10, 20, "", 10, 1, 0, 0, 0 };

  g_assert_true (pd_session_store_save_import (store, id, &summary, &record, NULL, &error));
  g_assert_no_error (error);
}

#define ID_A "20260101-0000000000000000000000000000000a"
#define ID_B "20260101-0000000000000000000000000000000b"
#define ID_C "20260101-0000000000000000000000000000000c"
#define ID_D "20260101-0000000000000000000000000000000d"

/* The batch in a file made at schema v6 (the migrations up to v6, with a
 * session indexed by v6's triggers) and opened by this build: sessions
 * added in the batch have no row until its end; one updated in the batch
 * is indexed with its title at the end, one deleted in the batch never
 * (and the session given its pk next is);
 * an indexed session updated in the batch is indexed again at once; a
 * batch rolled back leaves nothing, and the next session is indexed as it
 * is written. */
static void
test_batch_in_migrated_file (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(GError) error = NULL;
  sqlite3 *handle = NULL;
  gint64 b_pk;
  PdDb *db;

  g_assert_cmpint (sqlite3_open (f->db_path, &handle), ==, SQLITE_OK);
  for (guint v = 1; v <= 6; v++)
    g_assert_cmpint (sqlite3_exec (handle, _pd_db_migration_sql (v), NULL, NULL, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (handle,
                                 "PRAGMA user_version = 6;"
                                 "INSERT INTO sessions (pk, id, task, created_at, updated_at, auth_token) "
                                 "VALUES (7, '20250101-0123456789abcdef0123456789abcdef', 'migrate the frobnicator', "
                                 "1, 2, 'tok');",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (handle);

  store = open_store (f->db_path);
  db = pd_session_store_get_db (store);
  g_assert_cmpint (pd_db_get_user_version (db), ==, PD_DB_SCHEMA_VERSION);
  g_assert_cmpint (query_int (db, "SELECT rowid FROM sessions_fts WHERE sessions_fts MATCH 'frobnicator'"), ==, 7);
  assert_index_is_sessions (db);

  g_assert_true (pd_db_begin (db, &error));
  g_assert_true (pd_session_store_import_batch_begin (store, &error));
  g_assert_no_error (error);
  /* First the indexed session: FTS5 is written in this transaction, so
   * each statement after this writes its pending terms out. */
  exec_ok (db, "UPDATE sessions SET task = 'frobnicator moved' WHERE pk = 7");
  g_assert_cmpint (matches (db, "moved"), ==, 1);
  save (store, ID_A, "alpha quokka");
  save (store, ID_B, "beta quokka");
  g_assert_cmpint (matches (db, "quokka"), ==, 0);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sessions_fts_pending WHERE pk != 0"), ==, 2);
  save (store, ID_A, "gamma quokka");
  b_pk = query_int (db, "SELECT pk FROM sessions WHERE id = '" ID_B "'");
  exec_ok (db, "DELETE FROM sessions WHERE id = '" ID_B "'");
  /* The next session gets the deleted one's pk, still noted. */
  save (store, ID_D, "epsilon quokka");
  g_assert_cmpint (query_int (db, "SELECT pk FROM sessions WHERE id = '" ID_D "'"), ==, b_pk);
  g_assert_true (pd_session_store_import_batch_end (store, &error));
  g_assert_no_error (error);
  g_assert_true (pd_db_commit (db, &error));
  g_assert_no_error (error);

  g_assert_cmpint (matches (db, "quokka"), ==, 2);
  g_assert_cmpint (matches (db, "gamma"), ==, 1);
  g_assert_cmpint (matches (db, "epsilon"), ==, 1);
  g_assert_cmpint (matches (db, "alpha"), ==, 0);
  g_assert_cmpint (matches (db, "beta"), ==, 0);
  g_assert_cmpint (matches (db, "migrate"), ==, 0);
  g_assert_cmpint (query_int (db, "SELECT rowid FROM sessions_fts WHERE sessions_fts MATCH 'moved'"), ==, 7);
  assert_index_is_sessions (db);

  /* Rolled back: neither the session nor the batch's mark stays. */
  g_assert_true (pd_db_begin (db, &error));
  g_assert_true (pd_session_store_import_batch_begin (store, &error));
  save (store, ID_C, "delta wombat");
  pd_db_rollback (db);
  g_assert_cmpint (query_int (db, "SELECT count(*) FROM sessions"), ==, 3);
  assert_index_is_sessions (db);
  save (store, ID_C, "delta wombat");
  g_assert_cmpint (matches (db, "wombat"), ==, 1);
  assert_index_is_sessions (db);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("/pd/import-fts/import-writes-rows-at-end", test_import_writes_rows_at_end);
  ADD ("/pd/import-fts/batch-in-migrated-file", test_batch_in_migrated_file);
#undef ADD

  return g_test_run ();
}
