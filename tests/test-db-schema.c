/* test-db-schema.c: PdDb's schema on real files: every migration, old
 * schemas read only, newer, negative and changed schemas refused with the
 * file unchanged, the CHECK rules without a temporary index, and a new
 * file's schema the same as a migrated one's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "test-db-util.h"

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
  ADD ("/pd/db/migrate-every-version", test_migrate_every_version);
  ADD ("/pd/db/checks-without-temp-index", test_checks_without_temp_index);
  ADD ("/pd/db/new-schema-as-migrated", test_new_schema_as_migrated);
  ADD ("/pd/db/read-only-old-schema", test_read_only_old_schema);
  ADD ("/pd/db/newer-schema", test_newer_schema);
  ADD ("/pd/db/negative-user-version", test_negative_user_version);
  ADD ("/pd/db/schema-changed", test_schema_changed);
#undef ADD

  return g_test_run ();
}
