/* test-import-cline.c: Cline, Roo Code and Kilo Code tasks replayed into
 * checklists: the project's fixtures, Roo's ids that change with the
 * status, whole-file rewrites followed, the pages, overrides across
 * re-imports in the index, hostile files, and Kilo Code's CLI (OpenCode's
 * storage in its own folder).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include <sqlite3.h>

#include "pd-cline-reader.h"
#include "pd-import-index.h"
#include "pd-import-scanner.h"
#include "pd-import-test.h"
#include "pd-import-watcher.h"
#include "pd-transcript-reader.h"

#define STORAGE "User/globalStorage/"
#define CLINE_TASK STORAGE "saoudrizwan.claude-dev/tasks/1775300000000/ui_messages.json"
#define ROO_TASK STORAGE "rooveterinaryinc.roo-cline/tasks/1775310000000/ui_messages.json"
#define KILO_TASK STORAGE "kilocode.kilo-code/tasks/1775320000000/ui_messages.json"

#define CLINE_LIST "Read the orders handler:completed|Add limit and offset:completed|Test the pages:pending|" \
                   "Check the last page:pending"
#define ROO_LIST "Map the checkout's dependencies:completed|Move payment code to payments/:completed|" \
                 "Fix the imports:in_progress"

static void
test_own_fixtures (void)
{
  g_autofree char *cline = pd_import_test_fixture_file ("vscode", CLINE_TASK);
  g_autofree char *roo = pd_import_test_fixture_file ("vscode", ROO_TASK);
  g_autofree char *kilo = pd_import_test_fixture_file ("vscode", KILO_TASK);
  g_autoptr(PdTranscriptReader) reader = pd_transcript_reader_new_for_format ("cline", cline, NULL, NULL);
  g_autoptr(PdImportedSession) roo_session = NULL;
  g_autoptr(PdImportedSession) kilo_session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *workdir = NULL;
  g_auto(GStrv) argv = NULL;
  PdImportedSession *session;

  g_assert_true (pd_transcript_reader_update (reader, NULL, &error));
  g_assert_no_error (error);
  session = pd_transcript_reader_get_session (reader);
  g_assert_cmpint (pd_imported_session_get_source (session), ==, PD_IMPORT_SOURCE_CLINE);
  g_assert_cmpstr (pd_imported_session_get_id (session), ==, "1775300000000");
  g_assert_cmpstr (pd_imported_session_get_title (session), ==,
                   "Add pagination to the /orders endpoint: limit and offset, 50 by default.");
  g_assert_cmpstr (pd_imported_session_get_cwd (session), ==, "/home/dev/src/shopfront");
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (session)), ==,
                   PD_CHECKLIST_ORIGIN_CLINE_PROGRESS);
  pd_import_test_assert_list (session, CLINE_LIST);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==, 3);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->ignored_updates, ==, 1);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->lines, ==, 11);
  g_assert_cmpint (pd_imported_session_get_created_at (session), ==, G_GINT64_CONSTANT (1775300004100) * 1000);
  /* Continued from the extension's history, not from a command line. */
  argv = pd_transcript_reader_dup_resume_argv (reader, &workdir);
  g_assert_null (argv);
  g_assert_cmpstr (workdir, ==, "/home/dev/src/shopfront");
  g_assert_cmpint (pd_transcript_reader_get_offset (reader), ==, 0);

  roo_session = pd_cline_read (roo, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pd_imported_session_get_source (roo_session), ==, PD_IMPORT_SOURCE_ROO);
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (roo_session)), ==,
                   PD_CHECKLIST_ORIGIN_ROO_TODOS);
  pd_import_test_assert_list (roo_session, ROO_LIST);
  g_assert_cmpuint (pd_imported_session_get_stats (roo_session)->applied_updates, ==, 3);
  g_assert_cmpuint (pd_imported_session_get_stats (roo_session)->ignored_updates, ==, 1);
  /* Roo's ids are not the items' identity: left out. */
  g_assert_null (pd_checklist_get_agent_item (pd_imported_session_get_checklist (roo_session), 0)->source_id);
  /* No task index names its folder: the first request's environment
   * details do (sessions show said "folder unknown"). */
  g_assert_cmpstr (pd_imported_session_get_cwd (roo_session), ==, "/home/dev/src/checkout");

  kilo_session = pd_cline_read (kilo, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pd_imported_session_get_source (kilo_session), ==, PD_IMPORT_SOURCE_KILO);
  pd_import_test_assert_list (kilo_session, "List the refund endpoints:completed|Write the examples:in_progress");
  g_assert_cmpstr (pd_imported_session_get_cwd (kilo_session), ==, "/home/dev/src/refunds");
  /* Its list is Kilo Code's, not Roo Code's (the Now page's heading said
   * "Roo Code" under a "Kilo Code" chip). */
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (kilo_session)), ==,
                   PD_CHECKLIST_ORIGIN_KILO_TODOS);
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (roo_session)), ==,
                   PD_CHECKLIST_ORIGIN_ROO_TODOS);
}

/* Roo's id per status: the user's tick on an item stays when the agent's
 * next list gives the item another id. */
static void
test_roo_ids_change (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  const char *first[] = {
    "[{\"ts\":1,\"type\":\"say\",\"say\":\"task\",\"text\":\"Go\"},"
    "{\"ts\":2,\"type\":\"ask\",\"ask\":\"tool\",\"text\":\"{\\\"tool\\\":\\\"updateTodoList\\\",\\\"todos\\\":["
    "{\\\"id\\\":\\\"aa\\\",\\\"content\\\":\\\"A\\\",\\\"status\\\":\\\"in_progress\\\"},"
    "{\\\"id\\\":\\\"bb\\\",\\\"content\\\":\\\"B\\\",\\\"status\\\":\\\"pending\\\"}]}\"}]",
    NULL,
  };
  const char *second[] = {
    "[{\"ts\":1,\"type\":\"say\",\"say\":\"task\",\"text\":\"Go\"},"
    "{\"ts\":3,\"type\":\"ask\",\"ask\":\"tool\",\"text\":\"{\\\"tool\\\":\\\"updateTodoList\\\",\\\"todos\\\":["
    "{\\\"id\\\":\\\"cc\\\",\\\"content\\\":\\\"A\\\",\\\"status\\\":\\\"completed\\\"},"
    "{\\\"id\\\":\\\"dd\\\",\\\"content\\\":\\\"B\\\",\\\"status\\\":\\\"in_progress\\\"}]}\"}]",
    NULL,
  };
  g_autofree char *path = pd_import_test_write (dir, "tasks/7/ui_messages.json", first);
  g_autoptr(PdClineReader) reader = pd_cline_reader_new (path);
  PdTranscriptReader *r = PD_TRANSCRIPT_READER (reader);
  PdChecklist *checklist = pd_imported_session_get_checklist (pd_transcript_reader_get_session (r));
  g_autoptr(GError) error = NULL;
  gboolean checked;

  g_assert_true (pd_transcript_reader_update (r, NULL, &error));
  g_assert_no_error (error);
  pd_import_test_assert_list (pd_transcript_reader_get_session (r), "A:in_progress|B:pending");
  /* Not in a known extension's folder: the tool tells Roo. */
  g_assert_cmpint (pd_imported_session_get_source (pd_transcript_reader_get_session (r)), ==, PD_IMPORT_SOURCE_ROO);
  pd_checklist_set_checked (checklist, 1, TRUE);   /* the user ticks B */

  g_free (pd_import_test_write (dir, "tasks/7/ui_messages.json", second));
  g_assert_true (pd_transcript_reader_update (r, NULL, &error));
  pd_import_test_assert_list (pd_transcript_reader_get_session (r), "A:completed|B:in_progress");
  g_assert_true (pd_checklist_get_override (checklist, 1, &checked));
  g_assert_true (checked);
  g_assert_cmpint (pd_checklist_get_effective_status (checklist, 1), ==, PD_CHECKLIST_STATUS_COMPLETED);
  pd_test_remove_tree (dir);
}

/* Rewritten whole: read again; caught half-written, kept. */
static void
test_rewrites (void)
{
  g_autofree char *cline = pd_import_test_fixture_file ("vscode", CLINE_TASK);
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *task = g_build_filename (dir, "saoudrizwan.claude-dev", "tasks", "1775300000000", NULL);
  g_autofree char *path = g_build_filename (task, "ui_messages.json", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *longer = NULL;
  g_autoptr(PdClineReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  PdImportedSession *session;

  g_assert_true (g_file_get_contents (cline, &contents, NULL, NULL));
  g_mkdir_with_parents (task, 0700);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  reader = pd_cline_reader_new (path);
  g_assert_true (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error));
  session = pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader));
  pd_import_test_assert_list (session, CLINE_LIST);
  /* No taskHistory.json beside it: no folder. */
  g_assert_null (pd_imported_session_get_cwd (session));

  contents[strlen (contents) - 1] = '\0';   /* the closing ] */
  longer = g_strconcat (contents, ",{\"ts\":1775300099000,\"type\":\"say\",\"say\":\"task_progress\","
                        "\"text\":\"- [x] Read the orders handler\\n- [x] Add limit and offset\\n- [x] Test the pages\"}]", NULL);
  g_assert_true (g_file_set_contents (path, longer, -1, NULL));
  g_assert_true (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error));
  pd_import_test_assert_list (session, "Read the orders handler:completed|Add limit and offset:completed|Test the pages:completed");
  g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==, 4);
  /* Messages read in both passes: 11, then the 12 of the rewrite. */
  g_assert_cmpuint (pd_imported_session_get_stats (session)->lines, ==, 23);

  g_assert_true (g_file_set_contents (path, longer, (gssize) strlen (longer) - 40, NULL));
  g_assert_true (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error));
  g_assert_no_error (error);
  pd_import_test_assert_list (session, "Read the orders handler:completed|Add limit and offset:completed|Test the pages:completed");
  pd_test_remove_tree (dir);
}

static void
test_pages (void)
{
  g_autofree char *cline = pd_import_test_fixture_file ("vscode", CLINE_TASK);
  g_autoptr(PdTranscriptReader) reader = pd_transcript_reader_new_for_format ("cline", cline, NULL, NULL);
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *all = NULL;

  pages = pd_transcript_reader_read_pages (reader, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pd_transcript_pages_get_n_versions (pages), ==, 3);
  messages = pd_transcript_pages_dup_messages (pages);
  node = json_node_init_array (json_node_alloc (), messages);
  all = json_to_string (node, FALSE);
  g_assert_cmpstr (pd_json_get_string (json_array_get_object_element (messages, 0), "role"), ==, "user");
  g_assert_nonnull (strstr (all, "npm test -- orders"));
  g_assert_nonnull (strstr (all, "4 passed"));
  g_assert_nonnull (strstr (all, "Pagination is in"));
  events = pd_transcript_pages_dup_events (pages, "s", 0, 0);
  g_assert_cmpuint (events->len, >, 0);
  g_assert_null (pd_transcript_pages_dup_resume_argv (pages));
}

/* The scanner finds the three extensions' tasks under a global storage
 * folder, and the index keeps the user's ticks across a rewrite. */
static void
test_index (void)
{
  g_autofree char *root = pd_import_test_fixtures ("vscode");
  g_autofree char *storage = g_build_filename (root, "User", "globalStorage", NULL);
  g_autofree char *roo_folder = g_build_filename (storage, "rooveterinaryinc.roo-cline", NULL);
  g_autofree char *nowhere = g_build_filename (root, "nowhere", NULL);
  g_autofree char *db_dir = pd_import_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (db_dir, "sessions.db", NULL);
  g_autoptr(PdImportScanner) scanner = pd_import_scanner_new ();
  g_autoptr(GPtrArray) scanned = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (db_path, PD_DB_CREATE, &error);
  g_autoptr(PdSessionStore) store = pd_session_store_new (db);
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) list = NULL;
  PdImportIndexStats stats = { 0 };
  guint total;

  pd_import_scanner_set_claude_dir (scanner, nowhere);
  pd_import_scanner_set_codex_dir (scanner, nowhere);
  pd_import_scanner_set_opencode_dir (scanner, nowhere);
  pd_import_scanner_set_qwen_dir (scanner, nowhere);
  pd_import_scanner_set_gemini_dir (scanner, nowhere);
  pd_import_scanner_set_kilo_dir (scanner, nowhere);
  pd_import_scanner_set_vscode_dir (scanner, storage);
  scanned = pd_import_scanner_scan (scanner, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (scanned->len, ==, 3);

  /* One extension's folder named directly. */
  g_clear_pointer (&scanned, g_ptr_array_unref);
  pd_import_scanner_set_vscode_dir (scanner, roo_folder);
  scanned = pd_import_scanner_scan (scanner, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (scanned->len, ==, 1);
  g_assert_cmpint (pd_imported_session_get_source (g_ptr_array_index (scanned, 0)), ==, PD_IMPORT_SOURCE_ROO);

  /* Another agent's default folder a FIFO: skipped with its reason, and
   * the others read (it failed the whole read, tried as an attacker would). */
  pd_import_scanner_set_vscode_dir (scanner, storage);
  {
    g_autofree char *fifo = g_build_filename (db_dir, "gemini-tmp", NULL);
    g_autoptr(GPtrArray) skips = NULL;
    gboolean named = FALSE;

    g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
    pd_import_scanner_set_gemini_dir (scanner, fifo);
    g_assert_true (pd_import_index_run (index, store, scanner, &stats, &error));
    g_assert_no_error (error);
    skips = pd_import_index_get_skipped (index);
    for (guint i = 0; i < skips->len; i++)
      {
        PdImportSkip *skip = g_ptr_array_index (skips, i);

        named |= g_strcmp0 (skip->path, fifo) == 0;
      }
    g_assert_true (named);
    pd_import_scanner_set_gemini_dir (scanner, nowhere);
    unlink (fifo);
  }
  g_assert_cmpuint (stats.sessions_added, ==, 3);
  list = pd_session_store_list (store, NULL, FALSE, 0, 10, &total, &error);
  g_assert_cmpuint (list->len, ==, 3);
  for (guint i = 0; i < list->len; i++)
    {
      PdSessionInfo *info = g_ptr_array_index (list, i);
      g_autofree char *format = NULL;

      g_assert_true (pd_session_info_is_imported (info));
      g_assert_true (pd_import_index_lookup (store, info->id, NULL, &format, NULL, &error));
      g_assert_cmpstr (format, ==, "cline");
      g_assert_true (g_strv_contains ((const char * const []) { "cline", "roo", "kilo", NULL }, info->source));
    }
  g_clear_object (&store);
  pd_test_remove_tree (db_dir);
}

/* A copy of a task in a database: the user's override survives the
 * extension rewriting the file with the next list. */
static void
test_index_overrides (void)
{
  g_autofree char *roo = pd_import_test_fixture_file ("vscode", ROO_TASK);
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *task = g_build_filename (dir, "rooveterinaryinc.roo-cline", "tasks", "1775310000000", NULL);
  g_autofree char *path = g_build_filename (task, "ui_messages.json", NULL);
  g_autofree char *db_dir = pd_import_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (db_dir, "sessions.db", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *longer = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (db_path, PD_DB_CREATE, &error);
  g_autoptr(PdSessionStore) store = pd_session_store_new (db);
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(PdChecklist) checklist = NULL;
  const char *roots[] = { dir, NULL };
  PdImportIndexStats stats = { 0 };
  PdSessionInfo *info;
  gboolean checked;
  guint total;

  g_assert_true (g_file_get_contents (roo, &contents, NULL, NULL));
  g_mkdir_with_parents (task, 0700);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  pd_import_index_run_paths (index, store, roots, &stats, NULL, &error);
  g_assert_no_error (error);
  list = pd_session_store_list (store, NULL, FALSE, 0, 10, &total, &error);
  g_assert_cmpuint (list->len, ==, 1);
  info = g_ptr_array_index (list, 0);
  g_assert_cmpstr (info->source, ==, "roo");
  checklist = pd_import_index_load_checklist (store, info->id, &error);
  g_assert_no_error (error);
  pd_checklist_set_checked (checklist, 2, TRUE);   /* "Fix the imports", in progress */
  g_assert_true (pd_import_index_save_annotations (store, info->id, checklist, &error));

  contents[strlen (contents) - 1] = '\0';
  longer = g_strconcat (contents, ",{\"ts\":1775310099000,\"type\":\"ask\",\"ask\":\"tool\",\"text\":"
                        "\"{\\\"tool\\\":\\\"updateTodoList\\\",\\\"todos\\\":[{\\\"id\\\":\\\"x1\\\",\\\"content\\\":"
                        "\\\"Fix the imports\\\",\\\"status\\\":\\\"in_progress\\\"},{\\\"id\\\":\\\"x2\\\",\\\"content\\\":"
                        "\\\"Run the checkout tests\\\",\\\"status\\\":\\\"pending\\\"}]}\"}]", NULL);
  g_assert_true (g_file_set_contents (path, longer, -1, NULL));
  pd_import_index_run_paths (index, store, roots, &stats, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stats.read_full, ==, 1);
  /* Read whole again: its 8 messages, not the one it grew by. */
  g_assert_cmpuint (stats.lines_read, ==, 8);
  g_clear_object (&checklist);
  checklist = pd_import_index_load_checklist (store, info->id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pd_checklist_get_n_agent_items (checklist), ==, 2);
  g_assert_true (pd_checklist_get_override (checklist, 0, &checked));
  g_assert_true (checked);
  g_assert_cmpint (pd_checklist_get_effective_status (checklist, 0), ==, PD_CHECKLIST_STATUS_COMPLETED);
  g_clear_object (&store);
  pd_test_remove_tree (dir);
  pd_test_remove_tree (db_dir);
}

/* @path rewritten in place (the same inode, no rename) with @contents,
 * then given back @mtime: a rewrite that keeps the size and the mtime. */
static void
rewrite_keeping_times (const char           *path,
                       const char           *contents,
                       const struct timespec *mtime)
{
  struct timespec times[2] = { { 0, UTIME_OMIT }, *mtime };
  gsize length = strlen (contents);
  int fd = open (path, O_WRONLY | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (pwrite (fd, contents, length, 0), ==, (gssize) length);
  g_assert_cmpint (futimens (fd, times), ==, 0);
  close (fd);
}

static guint
plan_done_of (PdSessionStore *store)
{
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(GError) error = NULL;
  guint total;

  list = pd_session_store_list (store, NULL, FALSE, 0, 10, &total, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (list->len, ==, 1);
  return ((PdSessionInfo *) g_ptr_array_index (list, 0))->plan_done;
}

/* A task rewritten whole to the same size with its mtime kept (Cline, Roo
 * and Kilo rewrite the file on every change): read again, by the index
 * that read it and by a new one (a new process), and its new list stored.
 * Both took it as unchanged before. */
static void
test_index_same_size_rewrite (void)
{
  g_autofree char *roo = pd_import_test_fixture_file ("vscode", ROO_TASK);
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *task = g_build_filename (dir, "rooveterinaryinc.roo-cline", "tasks", "1775310000000", NULL);
  g_autofree char *path = g_build_filename (task, "ui_messages.json", NULL);
  g_autofree char *db_dir = pd_import_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (db_dir, "sessions.db", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (db_path, PD_DB_CREATE, &error);
  g_autoptr(PdSessionStore) store = pd_session_store_new (db);
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(PdImportIndex) later = NULL;
  const char *roots[] = { dir, NULL };
  PdImportIndexStats stats = { 0 };
  struct stat st;
  char *last;

  g_assert_true (g_file_get_contents (roo, &contents, NULL, NULL));
  g_mkdir_with_parents (task, 0700);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  g_assert_true (pd_import_index_run_paths (index, store, roots, &stats, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (plan_done_of (store), ==, 2);
  g_assert_cmpint (stat (path, &st), ==, 0);

  /* The last list's second item back to pending, at the same length. */
  last = g_strrstr (contents, "\\\"completed\\\"");
  g_assert_nonnull (last);
  memcpy (last, "\\\"pending\\\"  ", strlen ("\\\"completed\\\""));
  rewrite_keeping_times (path, contents, &st.st_mtim);
  g_assert_true (pd_import_index_run_paths (index, store, roots, &stats, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (stats.unchanged, ==, 0);
  g_assert_cmpuint (plan_done_of (store), ==, 1);

  /* And again, seen by a new index: its first item back to pending too. */
  last = g_strrstr (contents, "\\\"completed\\\"");
  g_assert_nonnull (last);
  memcpy (last, "\\\"pending\\\"  ", strlen ("\\\"completed\\\""));
  rewrite_keeping_times (path, contents, &st.st_mtim);
  later = pd_import_index_new ();
  g_assert_true (pd_import_index_run_paths (later, store, roots, &stats, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (stats.unchanged, ==, 0);
  g_assert_cmpuint (plan_done_of (store), ==, 0);

  /* Nothing changed: nothing read. */
  g_clear_object (&later);
  later = pd_import_index_new ();
  g_assert_true (pd_import_index_run_paths (later, store, roots, &stats, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (stats.unchanged, ==, 1);
  g_assert_cmpuint (stats.bytes_read, ==, 0);
  g_clear_object (&store);
  pd_test_remove_tree (dir);
  pd_test_remove_tree (db_dir);
}

/* Files as an attacker would write them. */
static void
test_hostile (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *huge = g_strnfill (1024 * 1024, 'z');
  g_autoptr(GString) many = g_string_new (NULL);
  g_autofree char *big = NULL;
  const char *shapes[] = {
    "[1, null, [], {\"type\":7}, {\"type\":\"say\"}, {\"type\":\"say\",\"say\":\"task_progress\",\"text\":7},"
    "{\"type\":\"say\",\"say\":\"task_progress\",\"text\":\"- [ ]\\n- [?] odd\\n-[x]tight\\n- [x] \\u202e bidi \\u0007\"},"
    "{\"type\":\"ask\",\"ask\":\"tool\",\"text\":\"{\\\"tool\\\":\\\"updateTodoList\\\",\\\"todos\\\":[{\\\"content\\\":1}]}\"},"
    "{\"type\":\"ask\",\"ask\":\"tool\",\"text\":\"updateTodoList {not json\"},"
    "{\"ts\":\"soon\",\"type\":\"ask\",\"ask\":\"tool\",\"text\":\"{\\\"tool\\\":\\\"updateTodoList\\\",\\\"todos\\\":\\\"- [-] doing\\\\n- [x] done\\\"}\"},"
    "{\"ts\":-5,\"type\":\"say\",\"say\":\"task\",\"text\":{}}]",
    NULL,
  };
  g_autofree char *path = pd_import_test_write (dir, "tasks/1/ui_messages.json", shapes);
  g_autoptr(PdImportedSession) session = NULL;
  g_autoptr(GError) error = NULL;

  session = pd_cline_read (path, &error);
  g_assert_no_error (error);
  /* The bidi item, then Roo's markdown todos; refused: the progress that
   * is no text, the todos of another shape (a tool text that is no JSON
   * is no call at all). */
  g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==, 2);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->ignored_updates, ==, 2);
  pd_import_test_assert_list (session, "doing:in_progress|done:completed");
  g_assert_cmpuint (pd_imported_session_get_stats (session)->skipped_lines, ==, 5);

  {
    g_autoptr(GPtrArray) items = pd_cline_parse_checklist ("- [x] \u202e bidi \a bell");

    g_assert_nonnull (strstr (((PdChecklistItem *) items->pdata[0])->text, "<U+202E>"));
    g_assert_null (strchr (((PdChecklistItem *) items->pdata[0])->text, '\a'));
  }

  /* A huge item and a crowd of them. */
  g_string_append (many, "[{\"type\":\"say\",\"say\":\"task_progress\",\"text\":\"");
  for (guint i = 0; i < 800; i++)
    g_string_append_printf (many, "- [ ] step %u\\n", i);
  g_string_append_printf (many, "- [ ] %s\"}]", huge);
  big = g_build_filename (dir, "tasks", "2", "ui_messages.json", NULL);
  {
    g_autofree char *parent = g_path_get_dirname (big);
    g_mkdir_with_parents (parent, 0700);
  }
  g_assert_true (g_file_set_contents (big, many->str, (gssize) many->len, NULL));
  g_clear_object (&session);
  session = pd_cline_read (big, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pd_checklist_get_n_agent_items (pd_imported_session_get_checklist (session)), ==, PD_IMPORT_MAX_ITEMS);
  /* The rest is counted, to be said. */
  g_assert_cmpuint (pd_checklist_get_n_hidden_agent_items (pd_imported_session_get_checklist (session)), ==,
                    801 - PD_IMPORT_MAX_ITEMS);

  /* Not an array; a FIFO where the task should be. */
  {
    const char *object[] = { "{\"messages\": []}", NULL };
    g_autofree char *odd = pd_import_test_write (dir, "tasks/3/ui_messages.json", object);

    g_assert_null (pd_cline_read (odd, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    g_clear_error (&error);
  }
  pd_test_remove_tree (dir);
}

/* A task is checked and its messages' members found in one walk: a task
 * of more messages than the walk keeps rows of is read by walking them
 * again, to the same checklist; a task broken anywhere (cut, a bad byte,
 * a bad escape, nested too deep) is refused whole, and one met again in a
 * rewrite keeps what was read; escaped keys and repeated members read as
 * the tree reads them. */
static void
test_one_walk (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autoptr(GString) task = g_string_new ("[{\"ts\":1775300000000,\"type\":\"say\",\"say\":\"task\",\"text\":\"many\"}");
  g_autoptr(PdImportedSession) session = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  const guint n = 40000;

  for (guint i = 1; i < n; i++)
    {
      if (i == n - 2)
        g_string_append_printf (task, ",{\"ts\":%u,\"type\":\"say\",\"say\":\"task_progress\",\"text\":\"- [x] first\\n- [ ] last %u\"}",
                                1775300000u + i, i);
      else
        g_string_append_printf (task, ",{\"ts\":%u,\"type\":\"say\",\"say\":\"text\",\"text\":\"message %u\"}",
                                1775300000u + i, i);
    }
  g_string_append_c (task, ']');
  {
    const char *parts[] = { task->str, NULL };

    path = pd_import_test_write (dir, "tasks/1/ui_messages.json", parts);
  }
  session = pd_cline_read (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->lines, ==, n);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==, 1);
  pd_import_test_assert_list (session, "first:completed|last 39998:pending");
  g_assert_cmpstr (pd_imported_session_get_title (session), ==, "many");
  g_clear_object (&session);

  /* Escaped keys, members met again (the last counts), nested values. */
  {
    const char *parts[] = {
      "[{\"t\\u0079pe\":\"say\",\"say\":\"text\",\"say\":\"task\",\"text\":\"title\"},"
      "{\"type\":\"say\",\"say\":\"task_progress\",\"text\":\"- [ ] shadowed\",\"text\":\"- [x] kept \\\"quoted\\\"\"},"
      "{\"type\":\"say\",\"say\":{\"say\":\"task_progress\"},\"text\":[[[{\"text\":\"- [ ] nested\"}]]]},"
      "{\"type\":\"say\",\"s\\u0061y\":\"task_progress\",\"text\":\"- [ ] escaped \\u00e9\",\"ts\":99999999999999999999}]",
      NULL,
    };
    g_autofree char *odd = pd_import_test_write (dir, "tasks/2/ui_messages.json", parts);

    session = pd_cline_read (odd, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (pd_imported_session_get_title (session), ==, "title");
    g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==, 2);
    pd_import_test_assert_list (session, "escaped \u00e9:pending");
    g_assert_cmpuint (pd_imported_session_get_stats (session)->skipped_lines, ==, 1);
    g_clear_object (&session);
  }

  /* Kinds told in place as the copy tells them: escaped, cut at a
   * "\u0000" (the copy ends there), of an ask, no string, near misses. */
  {
    const char *parts[] = {
      "[{\"type\":\"say\",\"say\":\"tasks\",\"text\":\"not the task\"},"
      "{\"type\":\"say\",\"say\":7,\"text\":\"- [ ] no kind\"},"
      "{\"type\":\"say\",\"say\":\"t\\u0061sk\",\"text\":\"escaped title\"},"
      "{\"type\":\"say\",\"say\":\"task\",\"text\":\"second title\"},"
      "{\"type\":\"say\",\"say\":\"task_progres\",\"text\":\"- [ ] near miss\"},"
      "{\"type\":\"say\",\"say\":\"task_progress\\u0000x\",\"text\":\"- [x] cut kind\"},"
      "{\"type\":\"\\u0061sk\",\"say\":\"text\",\"ask\":\"task_progress\",\"text\":\"- [ ] escaped ask\"},"
      "{\"type\":\"asks\",\"say\":\"task_progress\",\"ask\":\"text\",\"text\":\"- [ ] no ask\"},"
      "{\"type\":\"ask\",\"ask\":\"t\\u006fol\",\"say\":\"text\",\"text\":"
      "\"{\\\"tool\\\":\\\"updateTodoList\\\",\\\"todos\\\":[{\\\"content\\\":\\\"asked tool\\\",\\\"status\\\":\\\"in_progress\\\"}]}\"},"
      "{\"type\":\"say\",\"say\":\"\",\"text\":\"- [ ] empty kind\"}]",
      NULL,
    };
    g_autofree char *kinds = pd_import_test_write (dir, "tasks/4/ui_messages.json", parts);

    session = pd_cline_read (kinds, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (pd_imported_session_get_title (session), ==, "escaped title");
    g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==, 4);
    g_assert_cmpuint (pd_imported_session_get_stats (session)->skipped_lines, ==, 1);
    pd_import_test_assert_list (session, "asked tool:in_progress");
    g_clear_object (&session);
  }

  /* Broken: refused on a first read, what was read kept on a later one. */
  {
    const char *broken[] = {
      "[{\"type\":\"say\",\"say\":\"task_progress\",\"text\":\"- [ ] a\"}", /* cut */
      "[{\"type\":\"say\",\"say\":\"task_progress\",\"text\":\"- [ ] \xff\"}]",
      "[{\"type\":\"say\",\"say\":\"task_progress\",\"text\":\"- [ ] \\q\"}]",
      "[{\"type\":\"say\",\"say\":\"task_progress\",\"text\":\"- [ ] a\"},]",
      "[{\"type\":\"say\",\"say\":\"task_progress\",\"text\":\"- [ ] a\"}] []",
      "[{\"type\":\"say\",\"say\":\"task_progress\",\"text\":\"- [ ] a\",\"ts\":01}]",
      "[{\"type\":\"say\",\"say\":\"task_progress\",\"text\":\"- [ ] a\"},\"\\ud800\",{\"x\":" "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
    };
    g_autofree char *good_text = g_strdup ("[{\"type\":\"say\",\"say\":\"task_progress\",\"text\":\"- [x] kept\"}]");
    g_autofree char *bad = g_build_filename (dir, "tasks", "3", "ui_messages.json", NULL);
    g_autofree char *parent = g_path_get_dirname (bad);

    g_mkdir_with_parents (parent, 0700);
    for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
      {
        g_autoptr(PdClineReader) reader = NULL;

        g_assert_true (g_file_set_contents (bad, broken[i], -1, NULL));
        g_assert_null (pd_cline_read (bad, &error));
        g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
        g_clear_error (&error);

        g_assert_true (g_file_set_contents (bad, good_text, -1, NULL));
        reader = pd_cline_reader_new (bad);
        g_assert_true (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error));
        g_assert_no_error (error);
        g_assert_true (g_file_set_contents (bad, broken[i], -1, NULL));
        g_assert_true (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error));
        g_assert_no_error (error);
        pd_import_test_assert_list (pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader)), "kept:completed");
      }
  }
  pd_test_remove_tree (dir);
}

/* A message's time read from its digits as the tree reads the number
 * (eight at a time, then one at a time; others through a node), and the
 * list tool found in a tool message's text wherever its name is: times of
 * 1 to 20 digits, with a fraction, an exponent or a sign. */
static void
test_times_and_tool (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  const char *times[] = {
    "1", "12", "1234567", "12345678", "123456789", "1775310004100", "9223372036854", "9223372036854775",
    "9223372036854776", "12345678901234567", "123456789012345678", "99999999999999999999", "1775310004100.5",
    "1775310004100.0", "12345678.9", "1234567.8", "1.7753100041e12", "17753100041e2", "-1775310004100", "0",
    "0.5", "1e3", "98765432", "87654321098",
  };

  for (guint i = 0; i < G_N_ELEMENTS (times); i++)
    {
      g_autofree char *number = g_strdup_printf ("{\"ts\":%s}", times[i]);
      g_autoptr(JsonNode) node = json_from_string (number, NULL);
      gint64 ms = pd_json_get_int (json_node_get_object (node), "ts", 0);
      gint64 expected = ms > 0 && ms <= G_MAXINT64 / 1000 ? ms * 1000 : 0;
      g_autofree char *text = g_strdup_printf ("[{\"ts\":%s,\"type\":\"say\",\"say\":\"text\",\"text\":\"x\"}]", times[i]);
      g_autofree char *rel = g_strdup_printf ("tasks/t%u/ui_messages.json", i);
      const char *parts[] = { text, NULL };
      g_autofree char *path = pd_import_test_write (dir, rel, parts);
      g_autoptr(GError) error = NULL;
      g_autoptr(PdImportedSession) session = pd_cline_read (path, &error);

      g_assert_no_error (error);
      if (pd_imported_session_get_created_at (session) != expected)
        g_error ("ts %s read as %" G_GINT64_FORMAT " us, the tree's is %" G_GINT64_FORMAT, times[i],
                 pd_imported_session_get_created_at (session), expected);
    }

  /* The tool's name after bytes of its last letter but one ('L'), first,
   * and as late in the text as a list can have it. */
  {
    const char *texts[] = {
      "{\\\"tool\\\":\\\"updateTodoList\\\",\\\"todos\\\":[{\\\"content\\\":\\\"first\\\",\\\"status\\\":\\\"pending\\\"}]}",
      "{\\\"path\\\":\\\"L/LL/LLLupdateTodoLis/L\\\",\\\"tool\\\":\\\"updateTodoList\\\",\\\"todos\\\":[{\\\"content\\\":\\\"after L\\\",\\\"status\\\":\\\"pending\\\"}]}",
      "{\\\"todos\\\":[{\\\"content\\\":\\\"L last\\\",\\\"status\\\":\\\"completed\\\"}],\\\"tool\\\":\\\"updateTodoList\\\"}",
    };
    const char *lists[] = { "first:pending", "after L:pending", "L last:completed" };

    for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
      {
        g_autofree char *text = g_strdup_printf ("[{\"type\":\"ask\",\"ask\":\"tool\",\"text\":\"%s\"}]", texts[i]);
        g_autofree char *rel = g_strdup_printf ("tasks/l%u/ui_messages.json", i);
        const char *parts[] = { text, NULL };
        g_autofree char *path = pd_import_test_write (dir, rel, parts);
        g_autoptr(GError) error = NULL;
        g_autoptr(PdImportedSession) session = pd_cline_read (path, &error);

        g_assert_no_error (error);
        pd_import_test_assert_list (session, lists[i]);
      }
  }
  pd_test_remove_tree (dir);
}

/* The folder of a task without an index entry comes from its first
 * request's environment details, as the extension wrote them: a task text
 * quoting the words names no folder (tried as an attacker would), a
 * folder that is not absolute or is too long is none. */
static void
test_environment_folder (void)
{
  static const struct { const char *conversation; const char *cwd; } cases[] = {
    { "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"<task>\\nGo\\n</task>\"},"
      "{\"type\":\"text\",\"text\":\"<environment_details>\\n# Current Working Directory (/home/dev/a (b) Files) Files\\nx\\n\"}]}]",
      "/home/dev/a (b) Files" },
    { "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"<task>\\n\\\"<environment_details>\\n"
      "# Current Workspace Directory (/evil) Files\\n</task>\"},"
      "{\"type\":\"text\",\"text\":\"<environment_details>\\n# Current Workspace Directory (/home/dev/real) Files\\n\"}]}]",
      "/home/dev/real" },
    { "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"<task>\\n<environment_details>\\n"
      "# Current Workspace Directory (/evil) Files\\n</task>\"}]}]",
      NULL },
    { "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"<environment_details>\\n"
      "# Current Workspace Directory (c:/Users/dev/shop) Files\\n\"}]}]",
      NULL },
    { "[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"<environment_details>\\n"
      "# Current Workspace Directory (/home/dev/caf\\u00e9\\\\x) Files\\n\"}]}]",
      "/home/dev/caf\u00e9\\x" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *dir = pd_import_test_tmpdir ();
      const char *task[] = { "[{\"ts\":1775310004100,\"type\":\"say\",\"say\":\"task\",\"text\":\"Go\"}]", NULL };
      const char *conversation[] = { cases[i].conversation, NULL };
      g_autofree char *path = pd_import_test_write (dir, "rooveterinaryinc.roo-cline/tasks/7/ui_messages.json", task);
      g_autofree char *history = pd_import_test_write (dir, "rooveterinaryinc.roo-cline/tasks/7/api_conversation_history.json",
                                                       conversation);
      g_autoptr(PdImportedSession) session = NULL;
      g_autoptr(GError) error = NULL;

      session = pd_cline_read (path, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (pd_imported_session_get_cwd (session), ==, cases[i].cwd);
      pd_test_remove_tree (dir);
    }
}

/* A lone surrogate escape, as JavaScript's JSON.stringify writes one for a
 * string cut inside a pair: the task is kept, the escape read as U+FFFD
 * (the whole task was refused before). */
static void
test_lone_surrogate (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  const char *task[] = {
    "[{\"ts\":1775300000000,\"type\":\"say\",\"say\":\"task\",\"text\":\"Tidy the logs \\ud83d\"},"
    "{\"ts\":1775300001000,\"type\":\"say\",\"say\":\"task_progress\",\"text\":\"- [x] Cut \\udfff here\\n- [ ] Ship\"},"
    "{\"ts\":1775300002000,\"type\":\"ask\",\"ask\":\"tool\",\"text\":\"{\\\"tool\\\":\\\"updateTodoList\\\","
    "\\\"todos\\\":[{\\\"content\\\":\\\"Pair \\\\ud83d\\\\ude00 kept\\\",\\\"status\\\":\\\"completed\\\"},"
    "{\\\"content\\\":\\\"Inner \\\\udfff too\\\",\\\"status\\\":\\\"pending\\\"}]}\"}]",
    NULL,
  };
  g_autofree char *path = pd_import_test_write (dir, "saoudrizwan.claude-dev/tasks/1775300000000/ui_messages.json", task);
  g_autoptr(PdImportedSession) session = NULL;
  g_autoptr(GError) error = NULL;

  session = pd_cline_read (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (pd_imported_session_get_title (session), ==, "Tidy the logs \xef\xbf\xbd");
  g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==, 2);
  /* The last list (Roo's shape inside): its inner escapes alike. */
  pd_import_test_assert_list (session, "Pair \xf0\x9f\x98\x80 kept:completed|Inner \xef\xbf\xbd too:pending");
  g_assert_cmpuint (pd_imported_session_get_stats (session)->skipped_lines, ==, 0);
  pd_test_remove_tree (dir);
}

/* Kilo Code's CLI: OpenCode's database as kilo.db in its own folder. */
static void
test_kilo_cli (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *kilo = g_build_filename (dir, "kilo", NULL);
  g_autofree char *path = g_build_filename (kilo, "kilo.db", NULL);
  g_autofree char *nowhere = g_build_filename (dir, "nowhere", NULL);
  g_autoptr(PdImportScanner) scanner = pd_import_scanner_new ();
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTranscriptReader) reader = NULL;
  g_auto(GStrv) argv = NULL;
  sqlite3 *db;

  g_mkdir_with_parents (kilo, 0700);
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db,
                   "CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT, parent_id TEXT, directory TEXT, title TEXT,"
                   " version TEXT, time_created INTEGER, time_updated INTEGER);"
                   "CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, data TEXT);"
                   "CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, data TEXT);"
                   "INSERT INTO session VALUES ('ses_k', 'p', NULL, '/work/k', 'Kilo task', '0.9', 1767225600000, 1767225660000);"
                   "INSERT INTO part VALUES ('prt_1', 'msg', 'ses_k', 0, '{\"type\":\"tool\",\"tool\":\"todowrite\",\"state\":"
                   "{\"status\":\"completed\",\"time\":{\"start\":1000},\"input\":{\"todos\":[{\"content\":\"K\",\"status\":\"in_progress\"}]}}}');",
                   NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);

  pd_import_scanner_set_claude_dir (scanner, nowhere);
  pd_import_scanner_set_codex_dir (scanner, nowhere);
  pd_import_scanner_set_opencode_dir (scanner, nowhere);
  pd_import_scanner_set_qwen_dir (scanner, nowhere);
  pd_import_scanner_set_gemini_dir (scanner, nowhere);
  pd_import_scanner_set_vscode_dir (scanner, nowhere);
  pd_import_scanner_set_kilo_dir (scanner, kilo);
  sessions = pd_import_scanner_scan (scanner, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sessions->len, ==, 1);
  /* Kilo's CLI, named apart from the extension ("kilo" for both before),
   * and its list not OpenCode's. */
  g_assert_cmpint (pd_imported_session_get_source (g_ptr_array_index (sessions, 0)), ==, PD_IMPORT_SOURCE_KILO_CLI);
  g_assert_cmpstr (pd_import_source_to_string (PD_IMPORT_SOURCE_KILO_CLI), ==, "kilo-cli");
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (g_ptr_array_index (sessions, 0))), ==,
                   PD_CHECKLIST_ORIGIN_KILO_CLI_TODOS);
  pd_import_test_assert_list (g_ptr_array_index (sessions, 0), "K:in_progress");

  reader = pd_transcript_reader_new_for_format ("opencode-db", path, "ses_k", NULL);
  g_assert_true (pd_transcript_reader_update (reader, NULL, &error));
  g_assert_no_error (error);
  argv = pd_transcript_reader_dup_resume_argv (reader, NULL);
  g_assert_nonnull (argv);
  g_assert_cmpstr (argv[0], ==, "kilo");
  g_assert_cmpstr (argv[1], ==, "-s");
  g_assert_cmpstr (argv[2], ==, "ses_k");
  pd_test_remove_tree (dir);
}

typedef struct
{
  GMainLoop *loop;
  guint      changes;
} Watch;

static void
on_changed (PdImportWatcher *watcher,
            const char      *session_id,
            gpointer         user_data)
{
  Watch *watch = user_data;

  watch->changes++;
  g_main_loop_quit (watch->loop);
}

static void
on_started (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_assert_true (pd_import_watcher_start_finish (PD_IMPORT_WATCHER (object), result, NULL));
  g_main_loop_quit (((Watch *) user_data)->loop);
}

static gboolean
on_timeout (gpointer user_data)
{
  g_main_loop_quit (user_data);
  return G_SOURCE_REMOVE;
}

/* Waits for the watcher's next change, or gives up after 10 s (the
 * assertion that follows then fails: no timed assertion of its own). */
static void
wait_change (Watch *watch,
             guint  n)
{
  guint timeout = g_timeout_add_seconds (10, on_timeout, watch->loop);

  while (watch->changes < n)
    {
      guint before = watch->changes;

      g_main_loop_run (watch->loop);
      if (watch->changes == before)
        return;
    }
  g_source_remove (timeout);
}

/* Followed live: the extension rewrites the task whole (a new file renamed
 * over the old one), the watcher reads it again. */
static void
test_watcher (void)
{
  g_autofree char *roo = pd_import_test_fixture_file ("vscode", ROO_TASK);
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *task = g_build_filename (dir, "rooveterinaryinc.roo-cline", "tasks", "1775310000000", NULL);
  g_autofree char *path = g_build_filename (task, "ui_messages.json", NULL);
  g_autofree char *db_dir = pd_import_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (db_dir, "sessions.db", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *longer = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (db_path, PD_DB_CREATE, &error);
  g_autoptr(PdSessionStore) store = pd_session_store_new (db);
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(PdImportWatcher) watcher = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GPtrArray) list = NULL;
  const char *roots[] = { dir, NULL };
  Watch watch = { loop, 0 };
  PdSessionInfo *info;
  guint total;

  g_assert_true (g_file_get_contents (roo, &contents, NULL, NULL));
  g_mkdir_with_parents (task, 0700);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  g_assert_true (pd_import_index_run_paths (index, store, roots, NULL, NULL, &error));
  list = pd_session_store_list (store, NULL, FALSE, 0, 10, &total, &error);
  info = g_ptr_array_index (list, 0);
  g_assert_cmpuint (info->plan_done, ==, 2);
  g_assert_cmpuint (info->plan_total, ==, 3);

  watcher = pd_import_watcher_new (index, store);
  g_signal_connect (watcher, "changed", G_CALLBACK (on_changed), &watch);
  pd_import_watcher_start_async (watcher, NULL, on_started, &watch);
  g_main_loop_run (loop);
  g_assert_cmpuint (pd_import_watcher_get_n_watched (watcher), >=, 1);

  contents[strlen (contents) - 1] = '\0';
  longer = g_strconcat (contents, ",{\"ts\":1775310099000,\"type\":\"ask\",\"ask\":\"tool\",\"text\":"
                        "\"{\\\"tool\\\":\\\"updateTodoList\\\",\\\"todos\\\":[{\\\"id\\\":\\\"x1\\\",\\\"content\\\":"
                        "\\\"Fix the imports\\\",\\\"status\\\":\\\"completed\\\"}]}\"}]", NULL);
  /* g_file_set_contents() writes a new file and renames it over the old:
   * as the extensions save. */
  g_assert_true (g_file_set_contents (path, longer, -1, NULL));
  wait_change (&watch, 1);
  g_assert_cmpuint (watch.changes, >=, 1);
  g_clear_pointer (&list, g_ptr_array_unref);
  list = pd_session_store_list (store, NULL, FALSE, 0, 10, &total, &error);
  g_assert_cmpuint (list->len, ==, 1);
  info = g_ptr_array_index (list, 0);
  g_assert_cmpuint (info->plan_done, ==, 1);
  g_assert_cmpuint (info->plan_total, ==, 1);

  pd_import_watcher_stop (watcher);
  g_clear_object (&watcher);
  g_clear_object (&store);
  pd_test_remove_tree (dir);
  pd_test_remove_tree (db_dir);
}

/* A new task appears while the app runs: every task is a new folder under
 * the extension's tasks/ folder, which the watcher follows as a root (tried
 * as a new user would, a new task never appeared). */
static void
test_watcher_new_task (void)
{
  g_autofree char *roo = pd_import_test_fixture_file ("vscode", ROO_TASK);
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *tasks = g_build_filename (dir, "rooveterinaryinc.roo-cline", "tasks", NULL);
  g_autofree char *task = g_build_filename (tasks, "1775310000001", NULL);
  g_autofree char *path = g_build_filename (task, "ui_messages.json", NULL);
  g_autofree char *db_dir = pd_import_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (db_dir, "sessions.db", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (db_path, PD_DB_CREATE, &error);
  g_autoptr(PdSessionStore) store = pd_session_store_new (db);
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(PdImportWatcher) watcher = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GPtrArray) list = NULL;
  const char *roots[] = { tasks, NULL };
  Watch watch = { loop, 0 };
  PdSessionInfo *info;
  guint total;

  g_assert_true (g_file_get_contents (roo, &contents, NULL, NULL));
  g_mkdir_with_parents (tasks, 0700);

  watcher = pd_import_watcher_new (index, store);
  pd_import_watcher_set_roots (watcher, roots);
  g_signal_connect (watcher, "changed", G_CALLBACK (on_changed), &watch);
  pd_import_watcher_start_async (watcher, NULL, on_started, &watch);
  g_main_loop_run (loop);
  list = pd_session_store_list (store, NULL, FALSE, 0, 10, &total, &error);
  g_assert_cmpuint (list->len, ==, 0);

  g_assert_cmpint (g_mkdir (task, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, contents, -1, NULL));
  wait_change (&watch, 1);
  g_assert_cmpuint (watch.changes, >=, 1);
  g_clear_pointer (&list, g_ptr_array_unref);
  list = pd_session_store_list (store, NULL, FALSE, 0, 10, &total, &error);
  g_assert_cmpuint (list->len, ==, 1);
  info = g_ptr_array_index (list, 0);
  g_assert_cmpuint (info->plan_done, ==, 2);
  g_assert_cmpuint (info->plan_total, ==, 3);

  pd_import_watcher_stop (watcher);
  g_clear_object (&watcher);
  g_clear_object (&store);
  pd_test_remove_tree (dir);
  pd_test_remove_tree (db_dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-cline/own-fixtures", test_own_fixtures);
  g_test_add_func ("/pd/import-cline/roo-ids-change", test_roo_ids_change);
  g_test_add_func ("/pd/import-cline/rewrites", test_rewrites);
  g_test_add_func ("/pd/import-cline/pages", test_pages);
  g_test_add_func ("/pd/import-cline/index", test_index);
  g_test_add_func ("/pd/import-cline/index-overrides", test_index_overrides);
  g_test_add_func ("/pd/import-cline/index-same-size-rewrite", test_index_same_size_rewrite);
  g_test_add_func ("/pd/import-cline/hostile", test_hostile);
  g_test_add_func ("/pd/import-cline/one-walk", test_one_walk);
  g_test_add_func ("/pd/import-cline/times-and-tool", test_times_and_tool);
  g_test_add_func ("/pd/import-cline/lone-surrogate", test_lone_surrogate);
  g_test_add_func ("/pd/import-cline/environment-folder", test_environment_folder);
  g_test_add_func ("/pd/import-cline/kilo-cli", test_kilo_cli);
  g_test_add_func ("/pd/import-cline/watcher", test_watcher);
  g_test_add_func ("/pd/import-cline/watcher-new-task", test_watcher_new_task);
  return g_test_run ();
}
