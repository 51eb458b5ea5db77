/* test-import-opencode.c: OpenCode storage trees and opencode.db.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "pd-import-scanner.h"
#include "pd-import-test.h"
#include "pd-opencode-reader.h"
#include "pd-opencode-reader-private.h"

static PdImportedSession *
find_session (GPtrArray  *sessions,
              const char *id)
{
  for (guint i = 0; i < sessions->len; i++)
    if (g_strcmp0 (pd_imported_session_get_id (g_ptr_array_index (sessions, i)), id) == 0)
      return g_ptr_array_index (sessions, i);
  return NULL;
}

/* One session read alone, through the reader the index makes for its row:
 * the same as the whole store read at once gave. */
static void
assert_read_alone (const char        *format,
                   const char        *path,
                   PdImportedSession *expected)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTranscriptReader) reader = NULL;
  g_autofree char *want = pd_import_test_describe (expected);
  g_autofree char *got = NULL;
  PdImportedSession *session;

  reader = pd_transcript_reader_new_for_format (format, path, pd_imported_session_get_id (expected), &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pd_transcript_reader_get_format (reader), ==, format);
  g_assert_true (pd_transcript_reader_update (reader, NULL, &error));
  g_assert_no_error (error);
  session = pd_transcript_reader_get_session (reader);
  got = pd_import_test_describe (session);
  g_assert_cmpstr (got, ==, want);
  g_assert_cmpstr (pd_imported_session_get_id (session), ==, pd_imported_session_get_id (expected));
  g_assert_cmpstr (pd_imported_session_get_title (session), ==, pd_imported_session_get_title (expected));
  g_assert_cmpstr (pd_imported_session_get_cwd (session), ==, pd_imported_session_get_cwd (expected));
  g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==,
                    pd_imported_session_get_stats (expected)->applied_updates);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->ignored_updates, ==,
                    pd_imported_session_get_stats (expected)->ignored_updates);

  /* Read again: the same (OpenCode rewrites parts in place, so each update
   * reads the session whole). */
  g_assert_true (pd_transcript_reader_update (reader, NULL, &error));
  g_clear_pointer (&got, g_free);
  got = pd_import_test_describe (pd_transcript_reader_get_session (reader));
  g_assert_cmpstr (got, ==, want);
}

static void
assert_not_there (const char *format,
                  const char *path,
                  const char *agent_id)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTranscriptReader) reader = pd_transcript_reader_new_for_format (format, path, agent_id, &error);

  g_assert_no_error (error);
  g_assert_false (pd_transcript_reader_update (reader, NULL, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
}

/* The project's own storage tree (tests/fixtures/README.md gives the oracle). */
static void
test_own_storage (void)
{
  g_autofree char *dir = pd_import_test_fixtures ("opencode");
  g_autofree char *storage = g_build_filename (dir, "storage", NULL);
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(GPtrArray) all = NULL;
  g_autoptr(GError) error = NULL;
  PdImportedSession *session;
  PdImportedSession *child;
  guint done, total;

  sessions = pd_opencode_read_storage (storage, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sessions->len, ==, 2);
  session = find_session (sessions, "ses_3a9f1c2e0ffeQk7wTb2LxNsd4R");
  g_assert_nonnull (session);
  g_assert_cmpstr (pd_imported_session_get_title (session), ==, "Retry failed webhook deliveries");
  g_assert_cmpstr (pd_imported_session_get_cwd (session), ==, "/home/dev/src/hookshot");
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (session)), ==,
                   PD_CHECKLIST_ORIGIN_OPENCODE_TODOS);
  /* The same list as storage/todo/<session>.json holds: the refused call
   * and the one still running when the run stopped change nothing. */
  pd_import_test_assert_list (session, "Find where deliveries fail:completed|Retry with exponential backoff for up to a day:completed|"
                        "Record each attempt:in_progress|Show attempts on the admin page:cancelled");
  g_assert_cmpstr (pd_checklist_get_agent_item (pd_imported_session_get_checklist (session), 3)->source_id, ==, "4");
  g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==, 3);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->ignored_updates, ==, 1);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->skipped_lines, ==, 0);
  pd_checklist_count (pd_imported_session_get_checklist (session), &done, &total, NULL);
  g_assert_cmpuint (done, ==, 2);
  g_assert_cmpuint (total, ==, 3);

  child = find_session (sessions, "ses_3a9f0d71effeJm2Vq8ZcHyWp6T");
  g_assert_nonnull (child);
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (child)), ==, PD_CHECKLIST_ORIGIN_NONE);

  assert_read_alone ("opencode-storage", storage, session);
  assert_read_alone ("opencode-storage", storage, child);
  assert_not_there ("opencode-storage", storage, "ses_gone");
  /* An id is a file name, never a path out of the tree. */
  assert_not_there ("opencode-storage", storage, "../session/9f2c41d07be3a56e1c880d4f2a7b6e31c05d9a48/ses_3a9f1c2e0ffeQk7wTb2LxNsd4R");

  /* Recognised from the layout, from the top folder down. */
  all = pd_import_read_path (dir, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (all->len, ==, 2);
}

/* The shared recordings: an extra check when they are there. */
static void
test_shared_storage (void)
{
  g_autofree char *dir = pd_import_test_shared_fixtures ("opencode");
  g_autofree char *synthetic = NULL;
  g_autofree char *v2 = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(GPtrArray) others = NULL;
  g_autoptr(GPtrArray) all = NULL;
  g_autoptr(GError) error = NULL;
  PdImportedSession *session;

  if (dir == NULL)
    return;

  synthetic = g_build_filename (dir, "SYNTHETIC_legacy_storage", "storage", NULL);
  sessions = pd_opencode_read_storage (synthetic, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sessions->len, ==, 1);
  session = sessions->pdata[0];
  g_assert_cmpstr (pd_imported_session_get_title (session), ==, "Add --json flag");
  g_assert_cmpstr (pd_imported_session_get_cwd (session), ==, "/workspace/demo");
  /* The same list as storage/todo/<session>.json holds. */
  pd_import_test_assert_list (session, "Read the CLI parser:completed|Add --json flag:in_progress|Run tests:pending");
  g_assert_cmpstr (pd_checklist_get_agent_item (pd_imported_session_get_checklist (session), 2)->source_id, ==, "3");

  v2 = g_build_filename (dir, "agent-sessions-storage_v2", NULL);
  others = pd_opencode_read_storage (v2, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (others->len, ==, 2);
  for (guint i = 0; i < others->len; i++)
    {
      g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (others->pdata[i])), ==,
                       PD_CHECKLIST_ORIGIN_NONE);
      /* Files named otherwise than their session's id are found too. */
      assert_read_alone ("opencode-storage", v2, others->pdata[i]);
    }
  assert_read_alone ("opencode-storage", synthetic, session);

  /* Recognised from the layout, from the top folder down. */
  all = pd_import_read_path (dir, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (all->len, ==, 3);
}

static void
exec_sql (sqlite3    *db,
          const char *sql)
{
  char *message = NULL;

  if (sqlite3_exec (db, sql, NULL, NULL, &message) != SQLITE_OK)
    g_error ("%s: %s", sql, message);
}

#define PART(status, start, todos) \
  "{\"type\":\"tool\",\"tool\":\"todowrite\",\"callID\":\"c\",\"state\":{\"status\":\"" status "\"," \
  "\"input\":{\"todos\":" todos "},\"time\":{\"start\":" start ",\"end\":" start "}}}"

static char *
checksum_file (const char *path)
{
  g_autofree char *contents = NULL;
  gsize length;

  g_assert_true (g_file_get_contents (path, &contents, &length, NULL));
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) contents, length);
}

static void
test_database (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "opencode.db", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(GPtrArray) again = NULL;
  g_autoptr(GError) error = NULL;
  PdImportedSession *session;
  sqlite3 *db;
  sqlite3_stmt *stmt;
  struct {
    const char *id;
    const char *data;
  } parts[] = {
    /* Inserted out of order: replayed by their start time. */
    { "prt_3", PART ("completed", "3000", "[{\"content\":\"Plan\",\"status\":\"completed\",\"priority\":\"high\"},"
                                         "{\"content\":\"Build\",\"status\":\"in_progress\",\"priority\":\"high\"},"
                                         "{\"content\":\"Skip\",\"status\":\"cancelled\",\"priority\":\"low\"}]") },
    { "prt_1", PART ("completed", "1000", "[{\"content\":\"Plan\",\"status\":\"in_progress\",\"priority\":\"high\"}]") },
    { "prt_4", PART ("error", "4000", "[{\"content\":\"Wrong\",\"status\":\"pending\",\"priority\":\"high\"}]") },
    { "prt_5", PART ("running", "5000", "[{\"content\":\"Not yet\",\"status\":\"pending\",\"priority\":\"high\"}]") },
    { "prt_6", "{\"type\":\"tool\",\"tool\":\"todowrite\",\"state\":" },
  };

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  exec_sql (db, "PRAGMA journal_mode=WAL;"
                "CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, directory TEXT, title TEXT,"
                " version TEXT, time_created INTEGER, time_updated INTEGER);"
                "CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, data TEXT);"
                "CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, data TEXT);"
                "CREATE TABLE todo (session_id TEXT, content TEXT, status TEXT, priority TEXT, position INTEGER,"
                " PRIMARY KEY (session_id, position));"
                "INSERT INTO session VALUES ('ses_a', 'p', NULL, '/work/a', 'Session A', '1.2', 1767225600000, 1767225660000);"
                "INSERT INTO session VALUES ('ses_b', 'p', NULL, '/work/b', 'Session B', '1.2', 1767225600000, 1767225600000);");
  g_assert_cmpint (sqlite3_prepare_v2 (db, "INSERT INTO part VALUES (?1, 'msg', 'ses_a', 0, ?2)", -1, &stmt, NULL), ==, SQLITE_OK);
  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    {
      sqlite3_bind_text (stmt, 1, parts[i].id, -1, SQLITE_STATIC);
      sqlite3_bind_text (stmt, 2, parts[i].data, -1, SQLITE_STATIC);
      g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_DONE);
      sqlite3_reset (stmt);
    }
  sqlite3_finalize (stmt);
  exec_sql (db, "PRAGMA wal_checkpoint(TRUNCATE);");
  sqlite3_close (db);

  before = checksum_file (path);
  sessions = pd_opencode_read_database (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sessions->len, ==, 2);
  session = find_session (sessions, "ses_a");
  g_assert_nonnull (session);
  g_assert_cmpstr (pd_imported_session_get_title (session), ==, "Session A");
  g_assert_cmpstr (pd_imported_session_get_cwd (session), ==, "/work/a");
  pd_import_test_assert_list (session, "Plan:completed|Build:in_progress|Skip:cancelled");
  g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==, 2);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->ignored_updates, ==, 1);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->skipped_lines, ==, 1);
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (find_session (sessions, "ses_b"))), ==,
                   PD_CHECKLIST_ORIGIN_NONE);
  {
    guint done, total;
    /* A cancelled step counts neither way. */
    pd_checklist_count (pd_imported_session_get_checklist (session), &done, &total, NULL);
    g_assert_cmpuint (done, ==, 1);
    g_assert_cmpuint (total, ==, 2);
  }

  assert_read_alone ("opencode-db", path, session);
  assert_read_alone ("opencode-db", path, find_session (sessions, "ses_b"));
  assert_not_there ("opencode-db", path, "ses_gone");

  /* Never written. */
  after = checksum_file (path);
  g_assert_cmpstr (before, ==, after);

  /* A copy in a read-only folder still reads (immutable fallback). */
  g_assert_cmpint (g_chmod (path, 0444), ==, 0);
  g_assert_cmpint (g_chmod (dir, 0555), ==, 0);
  again = pd_import_read_path (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (again->len, ==, 2);
  g_assert_cmpint (g_chmod (dir, 0755), ==, 0);
  g_assert_cmpint (g_chmod (path, 0644), ==, 0);

  pd_test_remove_tree (dir);
}

/* OpenCode's database is someone else's file, and its folder may come from
 * elsewhere: a FIFO named as its rollback journal made SQLite's hot-journal
 * check wait for ever for a writer (import hung).  The open runs in a
 * subprocess with a time limit, so a wait fails the test. */
static void
test_fifo_journal_subprocess (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("PD_TEST_OPENCODE_DIR"), "opencode.db", NULL);
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(GError) error = NULL;

  sessions = pd_opencode_read_database (path, NULL, &error);
  g_assert_null (sessions);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "opencode.db-journal beside it is a FIFO"));
}

static void
test_fifo_journal (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "opencode.db", NULL);
  g_autofree char *journal = g_build_filename (dir, "opencode.db-journal", NULL);
  sqlite3 *db;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  exec_sql (db, "PRAGMA journal_mode=DELETE;"
                "CREATE TABLE session (id TEXT PRIMARY KEY, title TEXT);"
                "INSERT INTO session VALUES ('ses_a', 'Session A');");
  sqlite3_close (db);
  g_assert_cmpint (mkfifo (journal, 0600), ==, 0);

  g_setenv ("PD_TEST_OPENCODE_DIR", dir, TRUE);
  g_test_trap_subprocess ("/pd/import-opencode/fifo-journal/subprocess", 20 * G_USEC_PER_SEC,
                          G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_unsetenv ("PD_TEST_OPENCODE_DIR");
  pd_test_remove_tree (dir);
  g_test_trap_assert_passed ();
}

static void
test_not_a_database (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  const char *lines[] = { "hello", NULL };
  g_autofree char *path = pd_import_test_write (dir, "opencode.db", lines);
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(GError) error = NULL;

  sessions = pd_opencode_read_database (path, NULL, &error);
  g_assert_null (sessions);
  g_assert_nonnull (error);
  pd_test_remove_tree (dir);
}

/* Found by fuzz-opencode-part: a start time of 1.7e17 ms overflowed when
 * turned into µs, and a double beyond gint64 was cast.  Such times are
 * unknown; the lists are still replayed. */
static void
test_unknown_format (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTranscriptReader) reader = pd_transcript_reader_new_for_format ("gemini-chat", "/nowhere", NULL, &error);

  g_assert_null (reader);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, "gemini-chat"));
}

/* A foreign database is bounded: rows read per table, SQLite VM steps, the
 * size of a value; views and triggers are never run.  Each refusal names
 * its reason. */
static void
test_bounds (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "opencode.db", NULL);
  g_autofree char *view_path = g_build_filename (dir, "view.db", NULL);
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(GError) error = NULL;
  sqlite3 *db;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  exec_sql (db, "CREATE TABLE session (id TEXT, title TEXT);"
                "CREATE TABLE part (session_id TEXT, id TEXT, data TEXT);"
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000)"
                " INSERT INTO session SELECT 'ses_' || x, 'T' FROM c;"
                "UPDATE session SET title = printf('%.100000c', 'x') WHERE id = 'ses_1';"
                /* A trigger the read must not fire (it would fail: read-only). */
                "CREATE TABLE log (x);"
                "CREATE TRIGGER t AFTER INSERT ON part BEGIN INSERT INTO log VALUES (1); END;");
  sqlite3_close (db);

  /* The real bounds: read whole; an over-long title is left out, not read. */
  sessions = pd_opencode_read_database (path, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sessions->len, ==, 20000);
  g_assert_null (pd_imported_session_get_title (find_session (sessions, "ses_1")));
  g_clear_pointer (&sessions, g_ptr_array_unref);

  /* More rows than allowed: refused whole, named. */
  _pd_opencode_set_limits (19999, G_MAXUINT64);
  sessions = pd_opencode_read_database (path, NULL, &error);
  g_assert_null (sessions);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "its session table has more than 19999 rows"));
  g_clear_error (&error);

  /* More VM steps than allowed (20000 rows take more than 5000). */
  _pd_opencode_set_limits (1000000, 5000);
  sessions = pd_opencode_read_database (path, NULL, &error);
  g_assert_null (sessions);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "took more than 5000 steps"));
  g_clear_error (&error);
  _pd_opencode_set_limits (1000000, G_GUINT64_CONSTANT (2000000000));

  /* An endless view in place of the session table: never run. */
  g_assert_cmpint (sqlite3_open (view_path, &db), ==, SQLITE_OK);
  exec_sql (db, "CREATE VIEW session AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)"
                " SELECT 'ses_' || x AS id FROM c;");
  sqlite3_close (db);
  sessions = pd_opencode_read_database (view_path, NULL, &error);
  g_assert_null (sessions);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "its session is a view, not a table"));
}

static void
test_huge_times (void)
{
  const char *parts[] = {
    "{\"id\":\"p1\",\"type\":\"tool\",\"tool\":\"todowrite\",\"state\":{\"status\":\"completed\","
    "\"input\":{\"todos\":[{\"content\":\"A\",\"status\":\"pending\",\"id\":\"1\"}]},"
    "\"time\":{\"start\":176722560200602001}}}",
    "{\"id\":\"p2\",\"type\":\"tool\",\"tool\":\"todowrite\",\"state\":{\"status\":\"completed\","
    "\"input\":{\"todos\":[{\"content\":\"B\",\"status\":\"pending\",\"id\":\"1\"}]},"
    "\"time\":{\"start\":1e300}}}",
    /* 18446744073709552 ms wrapped to 384 µs: a time in 1970. */
    "{\"id\":\"p3\",\"type\":\"tool\",\"tool\":\"todowrite\",\"state\":{\"status\":\"completed\","
    "\"input\":{\"todos\":[{\"content\":\"D\",\"status\":\"pending\",\"id\":\"1\"}]},"
    "\"time\":{\"start\":18446744073709552}}}",
    "{\"id\":\"p0\",\"type\":\"tool\",\"tool\":\"todowrite\",\"state\":{\"status\":\"completed\","
    "\"input\":{\"todos\":[{\"content\":\"C\",\"status\":\"done\",\"id\":\"1\"}]},"
    "\"time\":{\"start\":1767225602000}}}",
  };
  gsize lengths[G_N_ELEMENTS (parts)];
  g_autoptr(PdImportedSession) session = pd_imported_session_new (PD_IMPORT_SOURCE_OPENCODE, "test");
  PdChecklist *checklist;

  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    lengths[i] = strlen (parts[i]);
  _pd_opencode_replay_part_data (session, parts, lengths, G_N_ELEMENTS (parts));

  /* Only the real time counts. */
  g_assert_cmpint (pd_imported_session_get_created_at (session), ==, (gint64) 1767225602000 * 1000);
  g_assert_cmpint (pd_imported_session_get_updated_at (session), ==, (gint64) 1767225602000 * 1000);
  checklist = pd_imported_session_get_checklist (session);
  g_assert_cmpuint (pd_checklist_get_n_agent_items (checklist), ==, 1);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==, 4);
}

/* Writes @text at @root/@rel, its folders made. */
static char *
write_at (const char *root,
          const char *rel,
          const char *text)
{
  char *path = g_build_filename (root, rel, NULL);
  g_autofree char *parent = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

/* Makes @root/@rel a symbolic link to @target, its folders made. */
static char *
link_at (const char *root,
         const char *rel,
         const char *target)
{
  char *path = g_build_filename (root, rel, NULL);
  g_autofree char *parent = g_path_get_dirname (path);

  g_assert_cmpint (g_mkdir_with_parents (parent, 0700), ==, 0);
  g_assert_cmpint (symlink (target, path), ==, 0);
  return path;
}

static const char *
reason_of (GPtrArray  *skipped,
           const char *path)
{
  for (guint i = 0; i < skipped->len; i++)
    {
      const PdImportSkip *skip = g_ptr_array_index (skipped, i);

      if (g_strcmp0 (skip->path, path) == 0)
        return skip->reason;
    }
  return NULL;
}

#define SESSION(id) "{\"id\":\"" id "\",\"title\":\"Title of " id "\",\"directory\":\"/w\",\"time\":{\"created\":1767225600000}}"
#define MESSAGE(id, session) "{\"id\":\"" id "\",\"sessionID\":\"" session "\",\"role\":\"user\",\"time\":{\"created\":1767225600000}}"
#define TODO(what) PART ("completed", "1767225601000", "[{\"content\":\"" what "\",\"status\":\"pending\",\"priority\":\"high\",\"id\":\"1\"}]")

/* A storage tree whose folders and files are made links to a tree outside
 * it that holds a secret (tried as an attacker would: another user's tree,
 * or ~/.ssh, linked into a store the import reads).  Nothing of the
 * outside is read, by the whole-tree read, by a session read alone (the
 * index's reader, and its pages) or by the scanner; each link is named
 * once as "a symbolic link (not followed)".  An honest session beside them
 * is read as ever. */
static void
test_links_out (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *outside = g_build_filename (dir, "outside", NULL);
  g_autofree char *storage = g_build_filename (dir, "store", "storage", NULL);
  g_autofree char *outside_proj = g_build_filename (outside, "proj", NULL);
  g_autofree char *outside_msgs = g_build_filename (outside, "msgs", NULL);
  g_autofree char *outside_parts = g_build_filename (outside, "parts", NULL);
  g_autofree char *outside_message = g_build_filename (outside_msgs, "msg_s.json", NULL);
  g_autofree char *store = g_build_filename (dir, "store", NULL);
  g_autofree char *outside_part = NULL, *outside_session = NULL;
  g_autofree char *link_project = NULL, *link_message_dir = NULL, *link_part_dir = NULL;
  g_autofree char *link_part_file = NULL, *link_session_file = NULL, *link_message_file = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(GPtrArray) skipped = pd_import_skips_new ();
  g_autoptr(GError) error = NULL;
  const char * const ids[] = { "ses_a", "ses_b", "ses_c" };

  /* The outside: a project of sessions, messages, parts, all secret. */
  g_free (write_at (outside_proj, "ses_secret.json", SESSION ("ses_secret")));
  g_free (write_at (outside_msgs, "msg_s.json", MESSAGE ("msg_s", "ses_a")));
  g_free (write_at (outside_parts, "prt_s.json", TODO ("SECRET from a linked part folder")));
  outside_part = write_at (outside, "part.json", TODO ("SECRET from a linked part file"));
  outside_session = write_at (outside, "session.json", SESSION ("ses_secret_file"));

  /* The honest session: read as ever. */
  g_free (write_at (storage, "session/p/ses_d.json", SESSION ("ses_d")));
  g_free (write_at (storage, "message/ses_d/msg_d.json", MESSAGE ("msg_d", "ses_d")));
  g_free (write_at (storage, "part/msg_d/prt_d.json", TODO ("Honest step")));

  /* session/<project> a link. */
  link_project = link_at (storage, "session/evil", outside_proj);
  /* message/<session> a link: its message's parts are in the tree. */
  g_free (write_at (storage, "session/p/ses_a.json", SESSION ("ses_a")));
  link_message_dir = link_at (storage, "message/ses_a", outside_msgs);
  g_free (write_at (storage, "part/msg_s/prt_1.json", TODO ("SECRET through a linked message folder")));
  /* part/<message> a link. */
  g_free (write_at (storage, "session/p/ses_b.json", SESSION ("ses_b")));
  g_free (write_at (storage, "message/ses_b/msg_b.json", MESSAGE ("msg_b", "ses_b")));
  link_part_dir = link_at (storage, "part/msg_b", outside_parts);
  /* A part file a link. */
  g_free (write_at (storage, "session/p/ses_c.json", SESSION ("ses_c")));
  g_free (write_at (storage, "message/ses_c/msg_c.json", MESSAGE ("msg_c", "ses_c")));
  link_part_file = link_at (storage, "part/msg_c/prt_c.json", outside_part);
  /* A session file a link. */
  link_session_file = link_at (storage, "session/p/ses_f.json", outside_session);
  /* A message file a link: not read (its parts, in the tree, are; the
   * pages show no message of it). */
  g_free (write_at (storage, "session/p/ses_e.json", SESSION ("ses_e")));
  link_message_file = link_at (storage, "message/ses_e/msg_e.json", outside_message);
  g_free (write_at (storage, "part/msg_e/prt_e.json", TODO ("A step of the tree")));

  sessions = _pd_opencode_read_storage_full (storage, skipped, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sessions->len, ==, 5);
  g_assert_null (find_session (sessions, "ses_secret"));
  g_assert_null (find_session (sessions, "ses_secret_file"));
  pd_import_test_assert_list (find_session (sessions, "ses_d"), "Honest step:pending");
  pd_import_test_assert_list (find_session (sessions, "ses_e"), "A step of the tree:pending");
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      PdImportedSession *session = find_session (sessions, ids[i]);

      g_assert_nonnull (session);
      g_assert_cmpuint (pd_checklist_get_n_agent_items (pd_imported_session_get_checklist (session)), ==, 0);
    }
  g_assert_cmpstr (reason_of (skipped, link_project), ==, "a symbolic link (not followed)");
  g_assert_cmpstr (reason_of (skipped, link_message_dir), ==, "a symbolic link (not followed)");
  g_assert_cmpstr (reason_of (skipped, link_part_dir), ==, "a symbolic link (not followed)");
  g_assert_cmpstr (reason_of (skipped, link_part_file), ==, "a symbolic link (not followed)");
  g_assert_cmpstr (reason_of (skipped, link_session_file), ==, "a symbolic link (not followed)");
  g_assert_cmpuint (skipped->len, ==, 5);
  g_clear_pointer (&sessions, g_ptr_array_unref);

  /* Read alone (the index's reader), pages and all: nothing of outside. */
  for (guint i = 0; i <= G_N_ELEMENTS (ids); i++)
    {
      const char *id = i < G_N_ELEMENTS (ids) ? ids[i] : "ses_e";
      g_autoptr(PdTranscriptReader) reader = pd_transcript_reader_new_for_format ("opencode-storage", storage, id,
                                                                                  &error);
      g_autoptr(PdTranscriptPages) pages = NULL;
      g_autoptr(JsonArray) messages = NULL;
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);
      g_autofree char *text = NULL;

      g_assert_no_error (error);
      pages = pd_transcript_reader_read_pages (reader, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (pd_checklist_get_n_agent_items (pd_imported_session_get_checklist (
                          pd_transcript_reader_get_session (reader))), ==, i < G_N_ELEMENTS (ids) ? 0 : 1);
      messages = pd_transcript_pages_dup_messages (pages);
      json_node_set_array (node, messages);
      text = json_to_string (node, FALSE);
      g_assert_null (strstr (text, "SECRET"));
      g_assert_cmpuint (json_array_get_length (messages), ==, 0);
    }
  assert_not_there ("opencode-storage", storage, "ses_secret");
  assert_not_there ("opencode-storage", storage, "ses_secret_file");

  /* The scanner: the same. */
  g_clear_pointer (&skipped, g_ptr_array_unref);
  skipped = pd_import_skips_new ();
  sessions = pd_import_read_path_full (store, skipped, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sessions->len, ==, 5);
  g_assert_null (find_session (sessions, "ses_secret"));
  g_assert_null (find_session (sessions, "ses_secret_file"));
  for (guint i = 0; i < sessions->len; i++)
    {
      PdChecklist *list = pd_imported_session_get_checklist (g_ptr_array_index (sessions, i));

      for (guint j = 0; j < pd_checklist_get_n_agent_items (list); j++)
        g_assert_null (strstr (pd_checklist_get_agent_item (list, j)->text, "SECRET"));
    }
  g_assert_cmpstr (reason_of (skipped, link_message_dir), ==, "a symbolic link (not followed)");
  g_assert_cmpstr (reason_of (skipped, link_part_dir), ==, "a symbolic link (not followed)");

  pd_test_remove_tree (dir);
}

/* opencode.db a link to a database elsewhere, and the scanner's storage
 * folder one (tried as an attacker would): neither is opened through the
 * link, and each says why. */
static void
test_database_link (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *secret = g_build_filename (dir, "secret.db", NULL);
  g_autofree char *store = g_build_filename (dir, "store", NULL);
  g_autofree char *path = g_build_filename (store, "opencode.db", NULL);
  g_autoptr(PdTranscriptReader) reader = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(GPtrArray) skipped = pd_import_skips_new ();
  g_autoptr(GError) error = NULL;
  sqlite3 *db;

  g_assert_cmpint (sqlite3_open (secret, &db), ==, SQLITE_OK);
  exec_sql (db, "CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, directory TEXT, title TEXT,"
                " version TEXT, time_created INTEGER, time_updated INTEGER);"
                "INSERT INTO session VALUES ('ses_secret', 'p', NULL, '/w', 'SECRET', '1.2', 1767225600000, 1767225600000);");
  sqlite3_close (db);
  /* It can be read where it is. */
  sessions = pd_opencode_read_database (secret, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sessions->len, ==, 1);
  g_clear_pointer (&sessions, g_ptr_array_unref);

  g_assert_cmpint (g_mkdir_with_parents (store, 0700), ==, 0);
  g_assert_cmpint (symlink (secret, path), ==, 0);
  sessions = pd_opencode_read_database (path, NULL, &error);
  g_assert_null (sessions);
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "a symbolic link (not followed)"));
  g_clear_error (&error);

  reader = pd_transcript_reader_new_for_format ("opencode-db", path, "ses_secret", &error);
  g_assert_no_error (error);
  g_assert_false (pd_transcript_reader_update (reader, NULL, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);

  sessions = pd_import_read_path_full (store, skipped, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sessions->len, ==, 0);
  g_assert_cmpstr (reason_of (skipped, path), ==, "a symbolic link (not followed)");

  pd_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-opencode/own-storage", test_own_storage);
  g_test_add_func ("/pd/import-opencode/shared-storage", test_shared_storage);
  g_test_add_func ("/pd/import-opencode/database", test_database);
  g_test_add_func ("/pd/import-opencode/fifo-journal", test_fifo_journal);
  g_test_add_func ("/pd/import-opencode/fifo-journal/subprocess", test_fifo_journal_subprocess);
  g_test_add_func ("/pd/import-opencode/not-a-database", test_not_a_database);
  g_test_add_func ("/pd/import-opencode/huge-times", test_huge_times);
  g_test_add_func ("/pd/import-opencode/bounds", test_bounds);
  g_test_add_func ("/pd/import-opencode/unknown-format", test_unknown_format);
  g_test_add_func ("/pd/import-opencode/links-out", test_links_out);
  g_test_add_func ("/pd/import-opencode/database-link", test_database_link);

  return g_test_run ();
}
