/* test-import-qwen.c: Qwen Code sessions replayed into checklists: the
 * project's fixtures, the side file's check, a long session's tail read,
 * live following, the pages, overrides across re-imports in the index, and
 * hostile records.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#include "config.h"

#include <sys/stat.h>

#include "pd-import-index.h"
#include "pd-import-scanner.h"
#include "pd-import-skip.h"
#include "pd-import-test.h"
#include "pd-qwen-reader.h"
#include "pd-transcript-reader.h"

#define REPORT_ID "5f0c2a9e-3b41-4d8e-a6c2-91e07b3d4f18"
#define STOPPED_ID "9a3b7c11-0d2e-4f5a-8b6c-2e4f6a8c0d13"
#define PROJECT "projects/-home-dev-src-tidepool/chats/"

#define REC(type, rest) "{\"uuid\":\"u\",\"sessionId\":\"s1\",\"timestamp\":\"2026-04-02T08:00:00.000Z\",\"type\":\"" type "\",\"cwd\":\"/w\"" rest "}"
#define USER(text) REC ("user", ",\"message\":{\"role\":\"user\",\"parts\":[{\"text\":\"" text "\"}]}")
#define CALL(id, todos) REC ("assistant", ",\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"id\":\"" id "\",\"name\":\"todo_write\",\"args\":{\"todos\":" todos "}}}]}")
#define RESULT(id, status) REC ("tool_result", ",\"message\":{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"id\":\"" id "\",\"name\":\"todo_write\",\"response\":{\"output\":\"ok\"}}}]},\"toolCallResult\":{\"callId\":\"" id "\",\"status\":\"" status "\"}")
#define TODOS_AB "[{\"id\":\"1\",\"content\":\"A\",\"status\":\"completed\"},{\"id\":\"2\",\"content\":\"B\",\"status\":\"in_progress\"}]"
#define TODOS_ABC "[{\"id\":\"1\",\"content\":\"A\",\"status\":\"completed\"},{\"id\":\"2\",\"content\":\"B\",\"status\":\"completed\"},{\"id\":\"3\",\"content\":\"C\",\"status\":\"pending\"}]"

static char *
fixture_path (const char *id)
{
  g_autofree char *dir = pd_import_test_fixtures ("qwen");
  g_autofree char *name = g_strconcat (id, ".jsonl", NULL);

  return g_build_filename (dir, PROJECT, name, NULL);
}

static PdImportedSession *
replay (const char * const *lines)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *path = pd_import_test_write (dir, "s1.jsonl", lines);
  g_autoptr(GError) error = NULL;
  PdImportedSession *session = pd_qwen_read (path, &error);

  g_assert_no_error (error);
  pd_test_remove_tree (dir);
  return session;
}

#define REPORT_LIST "Read how report builds its table:completed|Add the --json flag:completed|Test both outputs:in_progress"

/* The project's own sessions (tests/fixtures/README.md gives the oracle). */
static void
test_own_fixtures (void)
{
  g_autofree char *report = fixture_path (REPORT_ID);
  g_autofree char *stopped = fixture_path (STOPPED_ID);
  g_autoptr(PdQwenReader) reader = pd_qwen_reader_new (report);
  g_autoptr(PdQwenReader) other = pd_qwen_reader_new (stopped);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) argv = NULL;
  g_autofree char *workdir = NULL;
  PdImportedSession *session;
  const PdImportStats *stats;

  g_assert_true (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error));
  g_assert_no_error (error);
  session = pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader));
  g_assert_cmpint (pd_imported_session_get_source (session), ==, PD_IMPORT_SOURCE_QWEN);
  g_assert_cmpstr (pd_import_source_to_string (PD_IMPORT_SOURCE_QWEN), ==, "qwen");
  g_assert_cmpstr (pd_imported_session_get_id (session), ==, REPORT_ID);
  g_assert_cmpstr (pd_imported_session_get_cwd (session), ==, "/home/dev/src/tidepool");
  /* The custom title wins over the first prompt. */
  g_assert_cmpstr (pd_imported_session_get_title (session), ==, "tidepool: JSON report output");
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (session)), ==,
                   PD_CHECKLIST_ORIGIN_QWEN_TODOS);
  pd_import_test_assert_list (session, REPORT_LIST);
  stats = pd_imported_session_get_stats (session);
  /* Three answered lists; the one of another shape and the refused one. */
  g_assert_cmpuint (stats->applied_updates, ==, 3);
  g_assert_cmpuint (stats->ignored_updates, ==, 2);
  g_assert_cmpuint (stats->skipped_lines, ==, 0);
  g_assert_cmpuint (stats->lines, ==, 21);
  g_assert_cmpint (pd_imported_session_get_created_at (session), ==, G_GINT64_CONSTANT (1775118607) * G_USEC_PER_SEC);
  g_assert_cmpint (pd_qwen_reader_get_side_check (reader), ==, PD_QWEN_SIDE_CHECK_AGREES);
  /* The items keep Qwen's ids. */
  g_assert_cmpstr (pd_checklist_get_agent_item (pd_imported_session_get_checklist (session), 2)->source_id, ==, "3");

  argv = pd_transcript_reader_dup_resume_argv (PD_TRANSCRIPT_READER (reader), &workdir);
  g_assert_nonnull (argv);
  g_assert_cmpstr (argv[0], ==, "qwen");
  g_assert_cmpstr (argv[1], ==, "--resume");
  g_assert_cmpstr (argv[2], ==, REPORT_ID);
  g_assert_null (argv[3]);
  g_assert_cmpstr (workdir, ==, "/home/dev/src/tidepool");
  g_assert_cmpstr (pd_transcript_reader_get_format (PD_TRANSCRIPT_READER (reader)), ==, "qwen");

  /* Stopped while the last call ran: its list is not confirmed, so the
   * replay keeps the one before, and the side file (written by the tool)
   * shows the difference. */
  g_assert_true (pd_transcript_reader_update (PD_TRANSCRIPT_READER (other), NULL, &error));
  g_assert_no_error (error);
  session = pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (other));
  pd_import_test_assert_list (session, "Find every use of station:in_progress|Rename it to gauge:pending");
  g_assert_cmpstr (pd_imported_session_get_title (session), ==, "Rename the `station` column to `gauge` everywhere.");
  g_assert_cmpint (pd_qwen_reader_get_side_check (other), ==, PD_QWEN_SIDE_CHECK_DIFFERS);
}

/* Without the side file the check says so, and the replay is the same. */
static void
test_side_file_missing (void)
{
  g_autofree char *report = fixture_path (REPORT_ID);
  g_autofree char *empty = pd_import_test_tmpdir ();
  g_autoptr(PdQwenReader) reader = pd_qwen_reader_new (report);
  g_autoptr(GError) error = NULL;

  pd_qwen_reader_set_todos_dir (reader, empty);
  g_assert_true (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (pd_qwen_reader_get_side_check (reader), ==, PD_QWEN_SIDE_CHECK_NONE);
  pd_import_test_assert_list (pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader)), REPORT_LIST);
  pd_test_remove_tree (empty);
}

/* Read from its end, as a session over the threshold: the same list and
 * facts, without reading the whole file. */
static void
test_tail_read (void)
{
  g_autofree char *report = fixture_path (REPORT_ID);
  g_autoptr(PdImportedSession) tail = NULL;
  GStatBuf st;

  g_assert_cmpint (g_stat (report, &st), ==, 0);
  g_assert_cmpint (st.st_size, >, 128 * 1024);
  _pd_import_set_tail_limits (64 * 1024, 32 * 1024);
  tail = pd_qwen_read (report, NULL);
  _pd_import_set_tail_limits (0, 0);
  g_assert_nonnull (tail);
  g_assert_true (pd_imported_session_get_stats (tail)->tail_read);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->bytes_read, <, (guint64) st.st_size);
  pd_import_test_assert_list (tail, REPORT_LIST);
  g_assert_cmpstr (pd_imported_session_get_title (tail), ==, "tidepool: JSON report output");
  g_assert_cmpstr (pd_imported_session_get_cwd (tail), ==, "/home/dev/src/tidepool");
  g_assert_cmpstr (pd_imported_session_get_id (tail), ==, REPORT_ID);
}

/* A session whose second line is far over the line cap (an 81 MB tool
 * output took 3 s), with plan calls after it, read from its end: the long
 * line is passed over without being read whole, the head (where it is)
 * read once however many candidates the tail search tries, and the plan
 * call after it still applies.  Here the cap is lowered to 1 MiB and the
 * line is 4 MiB; thirty calls at the end have no result yet, so thirty-one
 * candidates are tried.  Each read the whole long line again before (over
 * 120 MB for a 4 MB file). */
static void
test_tail_long_line (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "s1.jsonl", NULL);
  g_autoptr(GString) text = g_string_new (USER ("Tidy the shop") "\n");
  g_autoptr(PdQwenReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  PdImportedSession *session;
  const PdImportStats *stats;

  g_string_append (text, "{\"uuid\":\"u\",\"sessionId\":\"s1\",\"timestamp\":\"2026-04-02T08:00:00.000Z\","
                         "\"type\":\"tool_result\",\"cwd\":\"/w\",\"message\":{\"role\":\"user\",\"parts\":"
                         "[{\"functionResponse\":{\"id\":\"r0\",\"name\":\"run_shell_command\",\"response\":{\"output\":\"");
  for (guint i = 0; i < 4 * 1024 * 1024 / 64; i++)
    g_string_append (text, "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
  g_string_append (text, "\"}}}]}}\n");
  g_string_append (text, CALL ("c0", TODOS_AB) "\n" RESULT ("c0", "success") "\n");
  for (guint i = 1; i <= 30; i++)
    {
      g_autofree char *id = g_strdup_printf ("\"id\":\"c%u\"", i);
      g_autoptr(GString) call = g_string_new (CALL ("cN", TODOS_ABC) "\n");

      g_string_replace (call, "\"id\":\"cN\"", id, 1);
      g_string_append (text, call->str);
    }
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));

  reader = pd_qwen_reader_new (path);
  pd_transcript_reader_set_max_line (PD_TRANSCRIPT_READER (reader), 1024 * 1024);
  _pd_import_set_tail_limits (64 * 1024, 1024 * 1024);
  g_assert_true (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error));
  _pd_import_set_tail_limits (0, 0);
  g_assert_no_error (error);
  session = pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader));
  stats = pd_imported_session_get_stats (session);
  g_assert_true (stats->tail_read);
  pd_import_test_assert_list (session, "A:completed|B:in_progress");
  g_assert_cmpstr (pd_imported_session_get_title (session), ==, "Tidy the shop");
  g_assert_cmpstr (pd_imported_session_get_id (session), ==, "s1");
  /* Less than the file: the long line's head bound, the tail's bound
   * backwards, and the candidates' replays of the calls after it. */
  g_test_message ("%" G_GUINT64_FORMAT " bytes read of a %" G_GSIZE_FORMAT "-byte file", stats->bytes_read, text->len);
  g_assert_cmpuint (stats->bytes_read, <, (guint64) text->len);

  /* Read whole, from its start (no tail search), the same. */
  g_clear_object (&reader);
  reader = pd_qwen_reader_new (path);
  pd_transcript_reader_set_max_line (PD_TRANSCRIPT_READER (reader), 1024 * 1024);
  g_assert_true (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error));
  g_assert_no_error (error);
  session = pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader));
  pd_import_test_assert_list (session, "A:completed|B:in_progress");
  g_assert_cmpuint (pd_imported_session_get_stats (session)->skipped_lines, ==, 1);
  pd_test_remove_tree (dir);
}

/* A running session: appended records are read alone, a half-written line
 * waits for its end. */
static void
test_follow (void)
{
  const char *first[] = { USER ("Go"), CALL ("c1", TODOS_AB), RESULT ("c1", "success"), NULL };
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *path = pd_import_test_write (dir, "s1.jsonl", first);
  g_autoptr(PdQwenReader) reader = pd_qwen_reader_new (path);
  PdTranscriptReader *r = PD_TRANSCRIPT_READER (reader);
  g_autoptr(GError) error = NULL;
  const char *call = CALL ("c2", TODOS_ABC) "\n";
  const char *result = RESULT ("c2", "success") "\n";
  gsize half = strlen (result) / 2;
  goffset before;
  FILE *file;

  pd_transcript_reader_set_follow (r, TRUE);
  g_assert_true (pd_transcript_reader_update (r, NULL, &error));
  g_assert_no_error (error);
  pd_import_test_assert_list (pd_transcript_reader_get_session (r), "A:completed|B:in_progress");
  before = pd_transcript_reader_get_offset (r);

  file = fopen (path, "a");
  fputs (call, file);
  fwrite (result, 1, half, file);
  fclose (file);
  g_assert_true (pd_transcript_reader_update (r, NULL, &error));
  /* The call waits for its result; the torn line is left for later. */
  pd_import_test_assert_list (pd_transcript_reader_get_session (r), "A:completed|B:in_progress");
  g_assert_cmpint (pd_transcript_reader_get_offset (r), ==, before + (goffset) strlen (call));

  file = fopen (path, "a");
  fputs (result + half, file);
  fclose (file);
  g_assert_true (pd_transcript_reader_update (r, NULL, &error));
  pd_import_test_assert_list (pd_transcript_reader_get_session (r), "A:completed|B:completed|C:pending");
  g_assert_cmpuint (pd_imported_session_get_stats (pd_transcript_reader_get_session (r))->skipped_lines, ==, 0);
  g_assert_cmpuint (pd_imported_session_get_stats (pd_transcript_reader_get_session (r))->applied_updates, ==, 2);
  pd_test_remove_tree (dir);
}

/* The pages: the conversation, one version per applied list, the resume
 * command. */
static void
test_pages (void)
{
  g_autofree char *report = fixture_path (REPORT_ID);
  g_autoptr(PdTranscriptReader) reader = pd_transcript_reader_new_for_format ("qwen", report, NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GPtrArray) versions = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_auto(GStrv) argv = NULL;
  gboolean saw_thinking = FALSE, saw_error = FALSE;

  g_assert_nonnull (reader);
  pages = pd_transcript_reader_read_pages (reader, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (pages);
  g_assert_cmpuint (pd_transcript_pages_get_n_versions (pages), ==, 3);
  versions = pd_transcript_pages_dup_plan_versions (pages, NULL);
  g_assert_cmpuint (versions->len, ==, 3);
  messages = pd_transcript_pages_dup_messages (pages);
  g_assert_cmpuint (json_array_get_length (messages), >=, 10);
  g_assert_cmpstr (pd_json_get_string (json_array_get_object_element (messages, 0), "role"), ==, "user");
  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);
      g_autofree char *text = json_to_string (json_array_get_element (messages, i), FALSE);

      if (strstr (text, "covered by the tests"))
        saw_thinking = TRUE;
      if (g_strcmp0 (pd_json_get_string (message, "role"), "tool") == 0 && strstr (text, "more than one task"))
        saw_error = TRUE;
    }
  g_assert_true (saw_thinking);
  g_assert_true (saw_error);
  events = pd_transcript_pages_dup_events (pages, "s", 0, 0);
  g_assert_cmpuint (events->len, >, 0);
  argv = pd_transcript_pages_dup_resume_argv (pages);
  g_assert_cmpstr (argv[0], ==, "qwen");
  g_assert_cmpstr (pd_transcript_pages_get_workdir (pages), ==, "/home/dev/src/tidepool");
}

/* Recognised from the content, beside Claude Code's look-alike envelope. */
static void
test_read_path (void)
{
  g_autofree char *dir = pd_import_test_fixtures ("qwen");
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) skipped = pd_import_skips_new ();
  g_autoptr(GPtrArray) sessions = pd_import_read_path_full (dir, skipped, NULL, &error);
  g_autoptr(PdImportScanner) scanner = pd_import_scanner_new ();
  g_autoptr(GPtrArray) scanned = NULL;
  g_autofree char *projects = g_build_filename (dir, "projects", NULL);
  g_autofree char *nowhere = g_build_filename (dir, "nowhere", NULL);

  g_assert_no_error (error);
  g_assert_cmpuint (sessions->len, ==, 2);
  for (guint i = 0; i < sessions->len; i++)
    g_assert_cmpint (pd_imported_session_get_source (g_ptr_array_index (sessions, i)), ==, PD_IMPORT_SOURCE_QWEN);
  /* The side files are not transcripts, and not named as skipped ones. */
  g_assert_cmpuint (skipped->len, ==, 0);

  /* The scanner's --qwen-dir, alone. */
  pd_import_scanner_set_claude_dir (scanner, nowhere);
  pd_import_scanner_set_codex_dir (scanner, nowhere);
  pd_import_scanner_set_opencode_dir (scanner, nowhere);
  pd_import_scanner_set_qwen_dir (scanner, projects);
  scanned = pd_import_scanner_scan (scanner, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (scanned->len, ==, 2);
}

/* Imports in new processes read on from where the last one ended: only the
 * appended bytes are read (all of the file was, before).  The counts stored
 * stand until a new list comes; a todo_write call still waiting for its
 * result has the next import read the file whole again, or the result
 * would find no call. */
static void
test_index_resume (void)
{
  const char *first[] = { USER ("Go"), CALL ("c1", TODOS_AB), RESULT ("c1", "success"), NULL };
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *db_dir = NULL;
  g_autofree char *path = pd_import_test_write (dir, "chats/s1.jsonl", first);
  g_autoptr(PdSessionStore) store = pd_import_test_new_store (&db_dir);
  PdImportIndexStats stats;
  PdSessionInfo *info;
  const char *more = USER ("Now the tests") "\n";
  const char *list = CALL ("c2", TODOS_ABC) "\n" RESULT ("c2", "success") "\n";
  const char *waiting = CALL ("c3", TODOS_AB) "\n";
  const char *answer = RESULT ("c3", "success") "\n";
  GStatBuf st;

  info = pd_import_test_import_fresh (store, dir, &stats);
  g_assert_cmpuint (stats.read_full, ==, 1);
  g_assert_cmpuint (info->plan_done, ==, 1);
  g_assert_cmpuint (info->plan_total, ==, 2);
  pd_session_info_free (info);

  /* A line without a list: only it is read; the stored counts and title stand. */
  pd_import_test_append (path, more);
  info = pd_import_test_import_fresh (store, dir, &stats);
  g_assert_cmpuint (stats.read_appended, ==, 1);
  g_assert_cmpuint (stats.read_full, ==, 0);
  g_assert_cmpuint (stats.bytes_read, ==, strlen (more));
  g_assert_cmpuint (stats.lines_read, ==, 1);
  g_assert_cmpuint (info->plan_done, ==, 1);
  g_assert_cmpuint (info->plan_total, ==, 2);
  g_assert_cmpstr (info->task, ==, "Go");
  g_assert_cmpstr (info->cwd, ==, "/w");
  pd_session_info_free (info);

  /* A new list: read alone, and its counts stored. */
  pd_import_test_append (path, list);
  info = pd_import_test_import_fresh (store, dir, &stats);
  g_assert_cmpuint (stats.read_appended, ==, 1);
  g_assert_cmpuint (stats.bytes_read, ==, strlen (list));
  g_assert_cmpuint (info->plan_done, ==, 2);
  g_assert_cmpuint (info->plan_total, ==, 3);
  pd_session_info_free (info);

  /* A call whose result is not written yet, then its result. */
  pd_import_test_append (path, waiting);
  info = pd_import_test_import_fresh (store, dir, &stats);
  g_assert_cmpuint (stats.bytes_read, ==, strlen (waiting));
  pd_session_info_free (info);
  pd_import_test_append (path, answer);
  info = pd_import_test_import_fresh (store, dir, &stats);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpuint (stats.read_full, ==, 1);
  g_assert_cmpuint (stats.bytes_read, ==, (guint64) st.st_size);
  g_assert_cmpuint (info->plan_done, ==, 1);
  g_assert_cmpuint (info->plan_total, ==, 2);
  pd_session_info_free (info);

  pd_test_remove_tree (dir);
  pd_test_remove_tree (db_dir);
}

/* A folder the scanner is given that is a FIFO is named with what it is,
 * not passed over in silence (nor waited on); one not there is no
 * agent installed, and says nothing. */
static void
test_root_not_folder (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *fifo = g_build_filename (dir, "projects", NULL);
  g_autofree char *nowhere = g_build_filename (dir, "nowhere", NULL);
  g_autoptr(PdImportScanner) scanner = pd_import_scanner_new ();
  g_autoptr(GPtrArray) skipped = pd_import_skips_new ();
  g_autoptr(GPtrArray) scanned = NULL;
  g_autoptr(GError) error = NULL;
  const PdImportSkip *skip;

  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  pd_import_scanner_set_claude_dir (scanner, nowhere);
  pd_import_scanner_set_codex_dir (scanner, nowhere);
  pd_import_scanner_set_opencode_dir (scanner, nowhere);
  pd_import_scanner_set_gemini_dir (scanner, nowhere);
  pd_import_scanner_set_vscode_dir (scanner, nowhere);
  pd_import_scanner_set_kilo_dir (scanner, nowhere);
  pd_import_scanner_set_qwen_dir (scanner, fifo);
  scanned = pd_import_scanner_scan_full (scanner, skipped, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (scanned->len, ==, 0);
  g_assert_cmpuint (skipped->len, ==, 1);
  skip = g_ptr_array_index (skipped, 0);
  g_assert_cmpstr (skip->path, ==, fifo);
  g_assert_cmpstr (skip->reason, ==, "not a folder (a FIFO); the agent's sessions are read from a folder");
  pd_test_remove_tree (dir);
}

/* In the index: overrides and own items stay across re-imports, and the
 * reader kept by the index reads only what was appended. */
static void
test_index_overrides (void)
{
  const char *first[] = { USER ("Go"), CALL ("c1", TODOS_AB), RESULT ("c1", "success"), NULL };
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *db_dir = pd_import_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (db_dir, "sessions.db", NULL);
  g_autofree char *path = pd_import_test_write (dir, "chats/s1.jsonl", first);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (db_path, PD_DB_CREATE, &error);
  g_autoptr(PdSessionStore) store = pd_session_store_new (db);
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(PdChecklist) checklist = NULL;
  g_autoptr(GPtrArray) list = NULL;
  g_autofree char *format = NULL;
  const char *roots[] = { dir, NULL };
  PdImportIndexStats stats = { 0 };
  PdSessionInfo *info;
  guint total;
  gboolean checked;
  FILE *file;

  pd_import_index_run_paths (index, store, roots, &stats, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stats.sessions_added, ==, 1);
  list = pd_session_store_list (store, NULL, FALSE, 0, 10, &total, &error);
  g_assert_cmpuint (list->len, ==, 1);
  info = g_ptr_array_index (list, 0);
  g_assert_cmpstr (info->source, ==, "qwen");
  g_assert_true (pd_session_info_is_imported (info));
  g_assert_true (pd_import_index_lookup (store, info->id, NULL, &format, NULL, &error));
  g_assert_cmpstr (format, ==, "qwen");

  checklist = pd_import_index_load_checklist (store, info->id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pd_checklist_get_n_agent_items (checklist), ==, 2);
  pd_checklist_set_checked (checklist, 1, TRUE);   /* B, in progress for the agent */
  pd_checklist_add_user_item (checklist, "Tell the team");
  g_assert_true (pd_import_index_save_annotations (store, info->id, checklist, &error));
  g_assert_no_error (error);

  file = fopen (path, "a");
  fputs (CALL ("c2", TODOS_ABC) "\n" RESULT ("c2", "success") "\n", file);
  fclose (file);
  g_assert_true (pd_import_index_run_paths (index, store, roots, &stats, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (stats.read_appended, ==, 1);
  g_assert_cmpuint (stats.sessions_updated, ==, 1);

  g_clear_object (&checklist);
  checklist = pd_import_index_load_checklist (store, info->id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pd_checklist_get_n_agent_items (checklist), ==, 3);
  /* B is now completed by the agent too: the override of "checked" stays
   * stored, with the same effect. */
  g_assert_true (pd_checklist_get_override (checklist, 1, &checked) ? checked : TRUE);
  g_assert_cmpint (pd_checklist_get_effective_status (checklist, 1), ==, PD_CHECKLIST_STATUS_COMPLETED);
  g_assert_cmpint (pd_checklist_get_effective_status (checklist, 2), ==, PD_CHECKLIST_STATUS_PENDING);
  g_assert_cmpuint (pd_checklist_get_n_user_items (checklist), ==, 1);
  g_assert_cmpstr (pd_checklist_get_user_item (checklist, 0)->text, ==, "Tell the team");

  /* The user unticks A, done by the agent; a fresh index (a new process)
   * reads on from where the last import ended and keeps it. */
  pd_checklist_set_checked (checklist, 0, FALSE);
  g_assert_true (pd_import_index_save_annotations (store, info->id, checklist, &error));
  {
    g_autoptr(PdImportIndex) fresh = pd_import_index_new ();
    g_autoptr(PdChecklist) again = NULL;

    file = fopen (path, "a");
    fputs (USER ("More") "\n", file);
    fclose (file);
    g_assert_true (pd_import_index_run_paths (fresh, store, roots, &stats, NULL, &error));
    g_assert_cmpuint (stats.read_full, ==, 0);
    g_assert_cmpuint (stats.read_appended, ==, 1);
    again = pd_import_index_load_checklist (store, info->id, &error);
    g_assert_no_error (error);
    g_assert_cmpint (pd_checklist_get_effective_status (again, 0), ==, PD_CHECKLIST_STATUS_PENDING);
    g_assert_true (pd_checklist_get_override (again, 0, &checked));
    g_assert_false (checked);
  }

  g_clear_object (&store);
  pd_test_remove_tree (dir);
  pd_test_remove_tree (db_dir);
}

/* Records as an attacker would write them: torn, of other types, huge.
 * Nothing crashes or warns; what is shown stays bounded. */
static void
test_hostile (void)
{
  g_autofree char *huge = g_strnfill (3 * 1024 * 1024, 'x');
  g_autofree char *huge_call = g_strdup_printf (
      REC ("assistant", ",\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"id\":\"h\",\"name\":\"todo_write\",\"args\":{\"todos\":[{\"id\":\"1\",\"content\":\"%s\",\"status\":\"pending\"}]}}}]}"),
      huge);
  g_autoptr(GString) many = g_string_new ("[");
  g_autofree char *many_call = NULL;
  g_autoptr(PdImportedSession) session = NULL;
  g_autoptr(PdImportedSession) big = NULL;
  g_autoptr(PdImportedSession) crowd = NULL;

  for (guint i = 0; i < 700; i++)
    g_string_append_printf (many, "%s{\"id\":\"%u\",\"content\":\"step %u\",\"status\":\"pending\"}", i ? "," : "", i, i);
  g_string_append_c (many, ']');
  many_call = g_strdup_printf (REC ("assistant", ",\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"id\":\"m\",\"name\":\"todo_write\",\"args\":{\"todos\":%s}}}]}"),
                               many->str);

  {
    const char *lines[] = {
      CALL ("c1", TODOS_AB), RESULT ("c1", "success"),
      "{\"uuid\":\"u\",\"sessionId\":\"s1\",\"type\":\"assistant\",\"message\":{\"parts\":[{\"functionCall\":{\"id\":\"c2\",\"na",
      REC ("assistant", ",\"message\":{\"role\":\"model\",\"parts\":\"todo_write\"}"),
      REC ("assistant", ",\"message\":{\"role\":\"model\",\"parts\":[[],1,null,{\"functionCall\":[]},{\"functionCall\":{\"name\":7}}]}"),
      REC ("assistant", ",\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"id\":\"c3\",\"name\":\"todo_write\",\"args\":{\"todos\":{\"content\":\"x\"}}}}]}"),
      RESULT ("c3", "success"),
      REC ("assistant", ",\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"id\":\"c4\",\"name\":\"todo_write\",\"args\":{\"todos\":[{\"id\":1,\"content\":\"Z\",\"status\":7}]}}}]}"),
      RESULT ("c4", "success"),
      REC ("assistant", ",\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"id\":\"c5\",\"name\":\"todo_write\",\"args\":{\"todos\":[{\"content\":\"bidi \\u202e and \\u0007 bell\\nnewline\",\"status\":\"done\"}]}}}]}"),
      REC ("tool_result", ",\"message\":{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"id\":\"c5\",\"response\":[]}}]},\"toolCallResult\":{\"status\":[]}"),
      "{\"type\":7,\"sessionId\":[],\"cwd\":{},\"message\":\"x\"}",
      "[1,2,3]",
      "{\"type\":\"system\",\"subtype\":\"custom_title\",\"systemPayload\":{\"title\":[\"not text\"]}}",
      "\xff\xfe{}",
      "",
      NULL,
    };

    session = replay (lines);
    /* c3 (not a list) and c4 (a status of another type) are refused; c5's
     * result has no status word and no error: it counts, and its text is
     * made safe to show. */
    g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==, 2);
    g_assert_cmpuint (pd_imported_session_get_stats (session)->ignored_updates, ==, 2);
    g_assert_cmpuint (pd_checklist_get_n_agent_items (pd_imported_session_get_checklist (session)), ==, 1);
    g_assert_null (strchr (pd_checklist_get_agent_item (pd_imported_session_get_checklist (session), 0)->text, '\n'));
    g_assert_null (strchr (pd_checklist_get_agent_item (pd_imported_session_get_checklist (session), 0)->text, '\a'));
    g_assert_nonnull (strstr (pd_checklist_get_agent_item (pd_imported_session_get_checklist (session), 0)->text, "<U+202E>"));
    g_assert_cmpuint (pd_imported_session_get_stats (session)->skipped_lines, >=, 4);
    g_assert_cmpstr (pd_imported_session_get_id (session), ==, "s1");
  }

  {
    const char *lines[] = { huge_call, RESULT ("h", "success"), NULL };

    big = replay (lines);
    g_assert_cmpuint (pd_checklist_get_n_agent_items (pd_imported_session_get_checklist (big)), ==, 1);
    g_assert_cmpuint (g_utf8_strlen (pd_checklist_get_agent_item (pd_imported_session_get_checklist (big), 0)->text, -1),
                      <=, PD_IMPORT_MAX_TEXT);
  }
  {
    const char *lines[] = { many_call, RESULT ("m", "success"), NULL };

    crowd = replay (lines);
    g_assert_cmpuint (pd_checklist_get_n_agent_items (pd_imported_session_get_checklist (crowd)), ==, PD_IMPORT_MAX_ITEMS);
  }
}

/* A call that is never answered, and more of them than may wait. */
static void
test_pending_bound (void)
{
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(PdImportedSession) session = NULL;

  for (guint i = 0; i < PD_IMPORT_MAX_PENDING + 20; i++)
    g_ptr_array_add (lines, g_strdup_printf (
        REC ("assistant", ",\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"id\":\"p%u\",\"name\":\"todo_write\",\"args\":{\"todos\":" TODOS_AB "}}}]}"),
        i));
  /* The newest is answered; the oldest were let go. */
  g_ptr_array_add (lines, g_strdup (RESULT ("p119", "success")));
  g_ptr_array_add (lines, g_strdup (RESULT ("p0", "success")));
  g_ptr_array_add (lines, NULL);
  session = replay ((const char * const *) lines->pdata);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==, 1);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->ignored_updates, ==, 20);
  pd_import_test_assert_list (session, "A:completed|B:in_progress");
}

/* The fixtures rewritten as spaced JSON ({"type": "…"}, as Python's
 * json.dumps writes it): the same sessions, times and messages. */
static void
test_spaced_json (void)
{
  static const char * const files[] = { "projects/-home-dev-src-tidepool/chats/5f0c2a9e-3b41-4d8e-a6c2-91e07b3d4f18.jsonl", "projects/-home-dev-src-tidepool/chats/9a3b7c11-0d2e-4f5a-8b6c-2e4f6a8c0d13.jsonl", NULL };

  pd_import_test_assert_spaced_same ("qwen", "qwen", files);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-qwen/own-fixtures", test_own_fixtures);
  g_test_add_func ("/pd/import-qwen/side-file-missing", test_side_file_missing);
  g_test_add_func ("/pd/import-qwen/tail-read", test_tail_read);
  g_test_add_func ("/pd/import-qwen/tail-long-line", test_tail_long_line);
  g_test_add_func ("/pd/import-qwen/follow", test_follow);
  g_test_add_func ("/pd/import-qwen/pages", test_pages);
  g_test_add_func ("/pd/import-qwen/read-path", test_read_path);
  g_test_add_func ("/pd/import-qwen/root-not-folder", test_root_not_folder);
  g_test_add_func ("/pd/import-qwen/index-overrides", test_index_overrides);
  g_test_add_func ("/pd/import-qwen/index-resume", test_index_resume);
  g_test_add_func ("/pd/import-qwen/hostile", test_hostile);
  g_test_add_func ("/pd/import-qwen/pending-bound", test_pending_bound);
  g_test_add_func ("/pd/import-qwen/spaced-json", test_spaced_json);

  return g_test_run ();
}
