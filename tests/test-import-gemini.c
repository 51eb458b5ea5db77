/* test-import-gemini.c: Gemini CLI sessions replayed into checklists: both
 * formats of the project's fixtures, the three replay rules of the JSON
 * lines, live following (appends, and documents rewritten whole), the
 * pages, overrides across re-imports in the index, and hostile records.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#include "config.h"

#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "pd-gemini-reader.h"
#include "pd-import-index.h"
#include "pd-import-scanner.h"
#include "pd-import-test.h"
#include "pd-transcript-reader.h"

#define SIGHUP_ID "3fa9c0d1-5e27-4b8a-9c61-0d2e4f6a8b10"
#define LEGACY_ID "7b1e2f3a-9c4d-4e6f-8a0b-1c2d3e4f5a6b"
#define CHATS "tmp/lantern/chats/"
#define SIGHUP_FILE CHATS "session-2026-04-05T10-12-3fa9c0d1.jsonl"
#define LEGACY_FILE CHATS "session-2026-03-20T09-00-7b1e2f3a.json"

#define SIGHUP_LIST "Find where the config is loaded:completed|Install a SIGHUP handler:completed|" \
                    "Reload without dropping connections:completed|Document the signal:cancelled|Log each reload:in_progress"
#define LEGACY_LIST "Parse --dry-run:completed|Print the plan, change nothing:in_progress"

#define HEADER "{\"sessionId\":\"s1\",\"projectHash\":\"ab\",\"startTime\":\"2026-04-05T10:00:00.000Z\",\"lastUpdated\":\"2026-04-05T10:00:00.000Z\",\"kind\":\"main\"}"
#define MSG(id, calls) "{\"id\":\"" id "\",\"timestamp\":\"2026-04-05T10:00:01.000Z\",\"type\":\"gemini\",\"content\":\"\",\"toolCalls\":" calls "}"
#define TODOS(list, status) "[{\"id\":\"w\",\"name\":\"write_todos\",\"args\":{\"todos\":" list "},\"status\":\"" status "\"}]"
#define LIST_A "[{\"description\":\"A\",\"status\":\"in_progress\"}]"
#define LIST_AB "[{\"description\":\"A\",\"status\":\"completed\"},{\"description\":\"B\",\"status\":\"in_progress\"}]"

/* The project's own sessions (tests/fixtures/README.md gives the oracle). */
static void
test_own_fixtures (void)
{
  g_autofree char *sighup = pd_import_test_fixture_file ("gemini", SIGHUP_FILE);
  g_autofree char *legacy = pd_import_test_fixture_file ("gemini", LEGACY_FILE);
  g_autoptr(PdTranscriptReader) reader = pd_transcript_reader_new_for_format ("gemini", sighup, NULL, NULL);
  g_autoptr(PdImportedSession) old = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) argv = NULL;
  g_autofree char *workdir = NULL;
  PdImportedSession *session;
  const PdImportStats *stats;

  g_assert_true (pd_transcript_reader_update (reader, NULL, &error));
  g_assert_no_error (error);
  session = pd_transcript_reader_get_session (reader);
  g_assert_cmpint (pd_imported_session_get_source (session), ==, PD_IMPORT_SOURCE_GEMINI);
  g_assert_cmpstr (pd_imported_session_get_id (session), ==, SIGHUP_ID);
  g_assert_cmpstr (pd_imported_session_get_cwd (session), ==, "/home/dev/src/lantern");
  /* $set's summary is the title. */
  g_assert_cmpstr (pd_imported_session_get_title (session), ==, "Reload lantern's config on SIGHUP");
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (session)), ==,
                   PD_CHECKLIST_ORIGIN_GEMINI_TODOS);
  /* The rewind dropped "Restart the workers"; the replaced message counts
   * once, with its second list. */
  pd_import_test_assert_list (session, SIGHUP_LIST);
  stats = pd_imported_session_get_stats (session);
  g_assert_cmpuint (stats->applied_updates, ==, 4);
  g_assert_cmpuint (stats->ignored_updates, ==, 1);
  g_assert_cmpuint (stats->lines, ==, 14);
  g_assert_cmpuint (stats->skipped_lines, ==, 0);
  /* No ids in Gemini's lists. */
  g_assert_null (pd_checklist_get_agent_item (pd_imported_session_get_checklist (session), 0)->source_id);
  g_assert_cmpstr (pd_transcript_reader_get_format (reader), ==, "gemini");

  argv = pd_transcript_reader_dup_resume_argv (reader, &workdir);
  g_assert_nonnull (argv);
  g_assert_cmpstr (argv[0], ==, "gemini");
  g_assert_cmpstr (argv[1], ==, "--resume");
  g_assert_cmpstr (argv[2], ==, SIGHUP_ID);
  g_assert_null (argv[3]);
  g_assert_cmpstr (workdir, ==, "/home/dev/src/lantern");

  /* The older format: one document, the tool under its v0.8 name first. */
  old = pd_gemini_read (legacy, &error);
  g_assert_no_error (error);
  pd_import_test_assert_list (old, LEGACY_LIST);
  g_assert_cmpuint (pd_imported_session_get_stats (old)->applied_updates, ==, 2);
  g_assert_cmpstr (pd_imported_session_get_id (old), ==, LEGACY_ID);
  g_assert_cmpstr (pd_imported_session_get_title (old), ==, "Add a --dry-run flag to lantern's migrate command.");
  g_assert_cmpstr (pd_imported_session_get_cwd (old), ==, "/home/dev/src/lantern");
  g_assert_cmpint (pd_imported_session_get_created_at (old), ==, G_GINT64_CONSTANT (1773997209) * G_USEC_PER_SEC);
}

/* Found where Gemini keeps them, both formats, by the content. */
static void
test_read_path (void)
{
  g_autofree char *dir = pd_import_test_fixtures ("gemini");
  g_autofree char *tmp = g_build_filename (dir, "tmp", NULL);
  g_autofree char *nowhere = g_build_filename (dir, "nowhere", NULL);
  g_autoptr(GPtrArray) skipped = pd_import_skips_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) sessions = pd_import_read_path_full (dir, skipped, NULL, &error);
  g_autoptr(PdImportScanner) scanner = pd_import_scanner_new ();
  g_autoptr(GPtrArray) scanned = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (sessions->len, ==, 2);
  g_assert_cmpuint (skipped->len, ==, 0);
  for (guint i = 0; i < sessions->len; i++)
    g_assert_cmpint (pd_imported_session_get_source (g_ptr_array_index (sessions, i)), ==, PD_IMPORT_SOURCE_GEMINI);

  pd_import_scanner_set_claude_dir (scanner, nowhere);
  pd_import_scanner_set_codex_dir (scanner, nowhere);
  pd_import_scanner_set_opencode_dir (scanner, nowhere);
  pd_import_scanner_set_qwen_dir (scanner, nowhere);
  pd_import_scanner_set_gemini_dir (scanner, tmp);
  scanned = pd_import_scanner_scan (scanner, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (scanned->len, ==, 2);
}

/* The three rules, as the lines arrive: a replaced message, $set, and a
 * rewind that takes a list back; a torn line waits. */
static void
test_follow (void)
{
  const char *lines[] = { HEADER, MSG ("m1", TODOS (LIST_A, "success")), NULL };
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *path = pd_import_test_write (dir, "chats/session-1.jsonl", lines);
  g_autoptr(PdGeminiReader) reader = pd_gemini_reader_new (path, FALSE);
  PdTranscriptReader *r = PD_TRANSCRIPT_READER (reader);
  PdImportedSession *session = pd_transcript_reader_get_session (r);
  g_autoptr(GError) error = NULL;
  const char *torn = MSG ("m3", TODOS (LIST_A, "success")) "\n";

  pd_transcript_reader_set_follow (r, TRUE);
  g_assert_true (pd_transcript_reader_update (r, NULL, &error));
  g_assert_no_error (error);
  pd_import_test_assert_list (session, "A:in_progress");
  g_assert_null (pd_imported_session_get_cwd (session));   /* no .project_root */

  pd_import_test_append (path, MSG ("m2", TODOS (LIST_AB, "success")) "\n{\"$set\":{\"summary\":\"Named\"}}\n");
  g_assert_true (pd_transcript_reader_update (r, NULL, &error));
  pd_import_test_assert_list (session, "A:completed|B:in_progress");
  g_assert_cmpstr (pd_imported_session_get_title (session), ==, "Named");
  g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==, 2);

  /* m1 written again without its call: its list goes, m2's stays. */
  pd_import_test_append (path, "{\"id\":\"m1\",\"timestamp\":\"2026-04-05T10:00:01.000Z\",\"type\":\"gemini\",\"content\":\"x\"}\n");
  g_assert_true (pd_transcript_reader_update (r, NULL, &error));
  g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==, 1);
  pd_import_test_assert_list (session, "A:completed|B:in_progress");

  /* Rewound to m1: m2 and its list go. */
  pd_import_test_append (path, "{\"$rewindTo\":\"m1\"}\n");
  g_assert_true (pd_transcript_reader_update (r, NULL, &error));
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (session)), ==, PD_CHECKLIST_ORIGIN_NONE);
  g_assert_cmpuint (pd_checklist_get_n_agent_items (pd_imported_session_get_checklist (session)), ==, 0);

  /* Half a line: nothing yet; the rest: the list. */
  {
    g_autofree char *head = g_strndup (torn, strlen (torn) / 2);

    pd_import_test_append (path, head);
    g_assert_true (pd_transcript_reader_update (r, NULL, &error));
    g_assert_cmpuint (pd_checklist_get_n_agent_items (pd_imported_session_get_checklist (session)), ==, 0);
    pd_import_test_append (path, torn + strlen (torn) / 2);
    g_assert_true (pd_transcript_reader_update (r, NULL, &error));
    pd_import_test_assert_list (session, "A:in_progress");
  }
  g_assert_cmpuint (pd_imported_session_get_stats (session)->skipped_lines, ==, 0);
  pd_test_remove_tree (dir);
}

/* The older format is rewritten whole: each update reads it again; one
 * caught half-written keeps what was read. */
static void
test_document_rewrites (void)
{
  g_autofree char *legacy = pd_import_test_fixture_file ("gemini", LEGACY_FILE);
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *chats = g_build_filename (dir, "chats", NULL);
  g_autofree char *path = g_build_filename (chats, "session-old.json", NULL);
  g_autofree char *contents = NULL;
  g_autofree char *longer = NULL;
  g_autoptr(PdGeminiReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  PdImportedSession *session;
  gsize length;
  char *last;

  g_assert_true (g_file_get_contents (legacy, &contents, &length, NULL));
  g_mkdir_with_parents (chats, 0700);
  g_assert_true (g_file_set_contents (path, contents, (gssize) length, NULL));
  reader = pd_gemini_reader_new (path, TRUE);
  g_assert_true (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error));
  g_assert_no_error (error);
  session = pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader));
  pd_import_test_assert_list (session, LEGACY_LIST);
  g_assert_cmpint (pd_transcript_reader_get_offset (PD_TRANSCRIPT_READER (reader)), ==, 0);
  g_assert_cmpstr (pd_transcript_reader_get_format (PD_TRANSCRIPT_READER (reader)), ==, "gemini-json");

  /* One more message, written into the whole document again. */
  last = strrchr (contents, ']');
  g_assert_nonnull (last);
  *last = '\0';
  longer = g_strconcat (contents, ", " MSG ("late", TODOS (LIST_AB, "success")) "]", last + 1, NULL);
  g_assert_true (g_file_set_contents (path, longer, -1, NULL));
  g_assert_true (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error));
  g_assert_no_error (error);
  pd_import_test_assert_list (session, "A:completed|B:in_progress");
  g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==, 3);
  /* Messages read in both passes: 4, then the 5 of the rewrite. */
  g_assert_cmpuint (pd_imported_session_get_stats (session)->lines, ==, 9);

  /* Caught while Gemini writes it: the list stays what it was. */
  g_assert_true (g_file_set_contents (path, longer, (gssize) strlen (longer) / 2, NULL));
  g_assert_true (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error));
  g_assert_no_error (error);
  pd_import_test_assert_list (session, "A:completed|B:in_progress");

  /* Never read whole: a clear error. */
  {
    g_autoptr(PdGeminiReader) fresh = pd_gemini_reader_new (path, TRUE);

    g_assert_false (pd_transcript_reader_update (PD_TRANSCRIPT_READER (fresh), NULL, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  }
  pd_test_remove_tree (dir);
}

static void
test_pages (void)
{
  g_autofree char *sighup = pd_import_test_fixture_file ("gemini", SIGHUP_FILE);
  g_autoptr(PdTranscriptReader) reader = pd_transcript_reader_new_for_format ("gemini", sighup, NULL, NULL);
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_auto(GStrv) argv = NULL;
  g_autofree char *all = NULL;
  g_autoptr(JsonNode) node = NULL;

  pages = pd_transcript_reader_read_pages (reader, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pd_transcript_pages_get_n_versions (pages), ==, 4);
  messages = pd_transcript_pages_dup_messages (pages);
  node = json_node_init_array (json_node_alloc (), messages);
  all = json_to_string (node, FALSE);
  /* The thought, the user's words; not what the rewind dropped. */
  g_assert_nonnull (strstr (all, "Three steps: find, handle, reload."));
  g_assert_nonnull (strstr (all, "Log each reload instead."));
  g_assert_null (strstr (all, "Also restart the workers."));
  g_assert_cmpstr (pd_json_get_string (json_array_get_object_element (messages, 0), "role"), ==, "user");
  events = pd_transcript_pages_dup_events (pages, "s", 0, 0);
  g_assert_cmpuint (events->len, >, 0);
  argv = pd_transcript_pages_dup_resume_argv (pages);
  g_assert_cmpstr (argv[0], ==, "gemini");
  g_assert_cmpstr (pd_transcript_pages_get_workdir (pages), ==, "/home/dev/src/lantern");
}

/* In the index: both formats listed; the user's ticks stay across an
 * append and across a rewrite of the whole document. */
static void
test_index_overrides (void)
{
  g_autofree char *legacy = pd_import_test_fixture_file ("gemini", LEGACY_FILE);
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *db_dir = pd_import_test_tmpdir ();
  g_autofree char *db_path = g_build_filename (db_dir, "sessions.db", NULL);
  const char *lines[] = { HEADER, MSG ("m1", TODOS (LIST_AB, "success")), NULL };
  g_autofree char *path = pd_import_test_write (dir, "lantern/chats/session-new.jsonl", lines);
  g_autofree char *doc = g_build_filename (dir, "lantern", "chats", "session-old.json", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = pd_db_open (db_path, PD_DB_CREATE, &error);
  g_autoptr(PdSessionStore) store = pd_session_store_new (db);
  g_autoptr(PdImportIndex) index = pd_import_index_new ();
  g_autoptr(GPtrArray) list = NULL;
  g_autoptr(PdChecklist) checklist = NULL;
  g_autofree char *doc_id = NULL;
  const char *roots[] = { dir, NULL };
  PdImportIndexStats stats = { 0 };
  guint total;
  gboolean checked;

  g_assert_true (g_file_get_contents (legacy, &contents, NULL, NULL));
  g_assert_true (g_file_set_contents (doc, contents, -1, NULL));
  pd_import_index_run_paths (index, store, roots, &stats, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (stats.sessions_added, ==, 2);
  list = pd_session_store_list (store, NULL, FALSE, 0, 10, &total, &error);
  g_assert_cmpuint (list->len, ==, 2);
  for (guint i = 0; i < list->len; i++)
    {
      PdSessionInfo *info = g_ptr_array_index (list, i);
      g_autofree char *format = NULL;

      g_assert_cmpstr (info->source, ==, "gemini");
      g_assert_true (pd_import_index_lookup (store, info->id, NULL, &format, NULL, &error));
      if (g_strcmp0 (format, "gemini-json") == 0)
        doc_id = g_strdup (info->id);
    }
  g_assert_nonnull (doc_id);

  /* Untick "Parse --dry-run", done by the agent. */
  checklist = pd_import_index_load_checklist (store, doc_id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pd_checklist_get_n_agent_items (checklist), ==, 2);
  pd_checklist_set_checked (checklist, 0, FALSE);
  g_assert_true (pd_import_index_save_annotations (store, doc_id, checklist, &error));

  /* Gemini rewrites the document with one more list (the same first step). */
  {
    g_autofree char *longer = NULL;
    char *last = strrchr (contents, ']');

    *last = '\0';
    longer = g_strconcat (contents, ", " MSG ("late", "[{\"name\":\"write_todos\",\"args\":{\"todos\":[{\"description\":\"Parse --dry-run\",\"status\":\"completed\"},{\"description\":\"Print the plan, change nothing\",\"status\":\"completed\"}]}}]") "]", last + 1, NULL);
    g_assert_true (g_file_set_contents (doc, longer, -1, NULL));
  }
  pd_import_test_append (path, MSG ("m2", TODOS (LIST_A, "success")) "\n");
  pd_import_index_run_paths (index, store, roots, &stats, NULL, &error);
  g_assert_no_error (error);
  /* The document whole again, the JSON lines from where they ended. */
  g_assert_cmpuint (stats.read_full, ==, 1);
  g_assert_cmpuint (stats.read_appended, ==, 1);
  g_clear_object (&checklist);
  checklist = pd_import_index_load_checklist (store, doc_id, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pd_checklist_get_effective_status (checklist, 0), ==, PD_CHECKLIST_STATUS_PENDING);
  g_assert_true (pd_checklist_get_override (checklist, 0, &checked));
  g_assert_false (checked);
  g_assert_cmpint (pd_checklist_get_effective_status (checklist, 1), ==, PD_CHECKLIST_STATUS_COMPLETED);

  g_clear_object (&store);
  pd_test_remove_tree (dir);
  pd_test_remove_tree (db_dir);
}

#define USER_MSG(id, text) "{\"id\":\"" id "\",\"timestamp\":\"2026-04-05T10:00:02.000Z\",\"type\":\"user\",\"content\":[{\"text\":\"" text "\"}]}"
#define LIST_ABC "[{\"description\":\"A\",\"status\":\"completed\"},{\"description\":\"B\",\"status\":\"completed\"},{\"description\":\"C\",\"status\":\"in_progress\"}]"

/* Imports in new processes read on from where the last one ended: only the
 * appended bytes (all of the file was read before).  The counts and title
 * stored stand; a $set still names the session.  What may reach back
 * before where the last import ended has the whole file read again, and
 * the replay rules give what a first read gives: a plan call (which may be
 * a message written again with its id: here one that fails now), a rewind
 * to a message before it.  A file replaced by a shorter one is read whole. */
static void
test_index_resume (void)
{
  const char *first[] = { HEADER, USER_MSG ("u1", "Go"), MSG ("m1", TODOS (LIST_AB, "success")), NULL };
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *db_dir = NULL;
  g_autofree char *path = pd_import_test_write (dir, "lantern/chats/session-1.jsonl", first);
  g_autoptr(PdSessionStore) store = pd_import_test_new_store (&db_dir);
  PdImportIndexStats stats;
  PdSessionInfo *info;
  const char *more = USER_MSG ("u2", "Now the tests") "\n";
  const char *named = "{\"$set\":{\"summary\":\"Reload on SIGHUP\"}}\n";
  const char *list = MSG ("m2", TODOS (LIST_ABC, "success")) "\n";
  const char *failed_again = MSG ("m2", TODOS (LIST_ABC, "error")) "\n";
  const char *rewind = "{\"$rewindTo\":\"u1\"}\n";
  GStatBuf st;

  info = pd_import_test_import_fresh (store, dir, &stats);
  g_assert_cmpuint (stats.read_full, ==, 1);
  g_assert_cmpuint (info->plan_done, ==, 1);
  g_assert_cmpuint (info->plan_total, ==, 2);
  g_assert_cmpstr (info->task, ==, "Go");
  pd_session_info_free (info);

  /* A message without a list: only it is read; counts and title stand. */
  pd_import_test_append (path, more);
  info = pd_import_test_import_fresh (store, dir, &stats);
  g_assert_cmpuint (stats.read_appended, ==, 1);
  g_assert_cmpuint (stats.read_full, ==, 0);
  g_assert_cmpuint (stats.bytes_read, ==, strlen (more));
  g_assert_cmpuint (stats.lines_read, ==, 1);
  g_assert_cmpuint (info->plan_done, ==, 1);
  g_assert_cmpuint (info->plan_total, ==, 2);
  g_assert_cmpstr (info->task, ==, "Go");
  pd_session_info_free (info);

  /* $set: read alone, and it names the session. */
  pd_import_test_append (path, named);
  info = pd_import_test_import_fresh (store, dir, &stats);
  g_assert_cmpuint (stats.read_appended, ==, 1);
  g_assert_cmpuint (stats.bytes_read, ==, strlen (named));
  g_assert_cmpstr (info->task, ==, "Reload on SIGHUP");
  g_assert_cmpuint (info->plan_total, ==, 2);
  pd_session_info_free (info);

  /* A new list: the whole file again (it might have replaced an earlier
   * message), and its counts. */
  pd_import_test_append (path, list);
  info = pd_import_test_import_fresh (store, dir, &stats);
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpuint (stats.read_full, ==, 1);
  g_assert_cmpuint (stats.read_appended, ==, 0);
  g_assert_cmpuint (stats.bytes_read, ==, strlen (list) + (guint64) st.st_size);
  g_assert_cmpuint (info->plan_done, ==, 2);
  g_assert_cmpuint (info->plan_total, ==, 3);
  g_assert_cmpstr (info->task, ==, "Reload on SIGHUP");
  pd_session_info_free (info);

  /* That message written again, failed: its list no longer counts, as a
   * first read says (the list before it is the plan again). */
  pd_import_test_append (path, failed_again);
  info = pd_import_test_import_fresh (store, dir, &stats);
  g_assert_cmpuint (stats.read_full, ==, 1);
  g_assert_cmpuint (info->plan_done, ==, 1);
  g_assert_cmpuint (info->plan_total, ==, 2);
  pd_session_info_free (info);

  /* A rewind to before where the last import ended: no list is left. */
  pd_import_test_append (path, rewind);
  info = pd_import_test_import_fresh (store, dir, &stats);
  g_assert_cmpuint (stats.read_full, ==, 1);
  g_assert_cmpuint (info->plan_done, ==, 0);
  g_assert_cmpuint (info->plan_total, ==, 0);
  pd_session_info_free (info);

  /* Then appended again: read on, from the new end. */
  pd_import_test_append (path, more);
  info = pd_import_test_import_fresh (store, dir, &stats);
  g_assert_cmpuint (stats.read_appended, ==, 1);
  g_assert_cmpuint (stats.bytes_read, ==, strlen (more));
  g_assert_cmpuint (info->plan_total, ==, 0);
  pd_session_info_free (info);

  /* Replaced by a shorter session: read whole. */
  {
    const char *other[] = { HEADER, MSG ("m9", TODOS (LIST_A, "success")), NULL };
    g_autofree char *again = pd_import_test_write (dir, "lantern/chats/session-1.jsonl", other);

    info = pd_import_test_import_fresh (store, dir, &stats);
    g_assert_cmpuint (stats.read_full, ==, 1);
    g_assert_cmpuint (info->plan_done, ==, 0);
    g_assert_cmpuint (info->plan_total, ==, 1);
    pd_session_info_free (info);
  }

  g_clear_object (&store);
  pd_test_remove_tree (dir);
  pd_test_remove_tree (db_dir);
}

static PdImportedSession *
replay (const char * const *lines)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *path = pd_import_test_write (dir, "chats/session-1.jsonl", lines);
  g_autoptr(GError) error = NULL;
  PdImportedSession *session = pd_gemini_read (path, &error);

  g_assert_no_error (error);
  pd_test_remove_tree (dir);
  return session;
}

/* Records as an attacker would write them. */
static void
test_hostile (void)
{
  g_autofree char *huge = g_strnfill (2 * 1024 * 1024, 'y');
  g_autofree char *huge_line = g_strdup_printf (MSG ("h", TODOS ("[{\"description\":\"%s\",\"status\":\"pending\"}]", "success")), huge);
  const char *lines[] = {
    HEADER,
    MSG ("m1", TODOS (LIST_AB, "success")),
    "{\"$rewindTo\":7}",
    "{\"$rewindTo\":\"nobody\"}",
    "{\"$set\":[1,2]}",
    "{\"$set\":{\"summary\":\"bidi \\u202e and \\u0007 bell\\nnewline\"}}",
    "{\"id\":\"m2\",\"type\":\"gemini\",\"toolCalls\":{\"name\":\"write_todos\"}}",
    "{\"id\":\"m3\",\"type\":\"gemini\",\"toolCalls\":[1,null,[],{\"name\":\"write_todos\",\"args\":\"x\"}]}",
    "{\"id\":\"m4\",\"type\":\"gemini\",\"toolCalls\":[{\"name\":\"write_todos\",\"args\":{\"todos\":[{\"description\":5}]}}]}",
    "{\"id\":\"m5\",\"type\":\"gemini\",\"toolCalls\":[{\"name\":\"write_todos\",\"status\":[],\"args\":{\"todos\":[]}}]}",
    "{\"id\":[],\"type\":\"user\",\"content\":{}}",
    "{\"id\":\"m1\",\"type\":7}",
    "{\"id\":\"m6\",\"type\":\"user\",\"content\":[{\"text\":7},\"word\",null]}",
    "{\"id\":\"m7\",\"timestamp\":\"9999-99-99\",\"type\":\"gemini\",\"content\":\"\"",
    "not json",
    huge_line,
    NULL,
  };
  g_autoptr(PdImportedSession) session = replay (lines);
  const PdImportStats *stats = pd_imported_session_get_stats (session);

  /* m1 written again as a record of no known type: it replaces the first
   * and its list goes; the huge one counts, cut to the bound. */
  g_assert_cmpuint (stats->applied_updates, ==, 1);
  g_assert_cmpuint (stats->ignored_updates, ==, 3);
  g_assert_cmpuint (pd_checklist_get_n_agent_items (pd_imported_session_get_checklist (session)), ==, 1);
  g_assert_cmpuint (g_utf8_strlen (pd_checklist_get_agent_item (pd_imported_session_get_checklist (session), 0)->text, -1),
                    <=, PD_IMPORT_MAX_TEXT);
  g_assert_null (strchr (pd_imported_session_get_title (session), '\n'));
  g_assert_null (strchr (pd_imported_session_get_title (session), '\a'));
  g_assert_nonnull (strstr (pd_imported_session_get_title (session), "<U+202E>"));
  g_assert_cmpuint (stats->skipped_lines, ==, 2);

  /* A document of another shape, or not one at all. */
  {
    g_autofree char *dir = pd_import_test_tmpdir ();
    const char *array[] = { "[{\"messages\": []}]", NULL };
    g_autofree char *path = pd_import_test_write (dir, "chats/session-x.json", array);
    g_autoptr(GError) error = NULL;

    g_assert_null (pd_gemini_read (path, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    pd_test_remove_tree (dir);
  }
}

/* The session a document reader has after reading each text in turn (a
 * document rewritten whole under it), as `import --json --plans` prints
 * it with its counts, or the refusal; read in place or as trees. */
static char *
document_read (const char         *path,
               const char * const *texts,
               gboolean            pick)
{
  g_autoptr(PdGeminiReader) reader = pd_gemini_reader_new (path, TRUE);
  GString *out = g_string_new (NULL);

  _pd_import_set_pick_lines (pick);
  for (guint i = 0; texts[i] != NULL; i++)
    {
      g_autoptr(GError) error = NULL;
      PdImportedSession *session;
      const PdImportStats *stats;
      g_autoptr(JsonNode) node = NULL;
      g_autofree char *json = NULL;

      g_assert_true (g_file_set_contents (path, texts[i], -1, NULL));
      if (!pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error))
        {
          g_string_append_printf (out, "refused: %s\n", error->message);
          continue;
        }
      session = pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader));
      stats = pd_imported_session_get_stats (session);
      node = pd_imported_session_to_json (session, TRUE);
      json = json_to_string (node, TRUE);
      g_string_append_printf (out, "%s\nlines %" G_GUINT64_FORMAT " skipped %" G_GUINT64_FORMAT
                              " applied %" G_GUINT64_FORMAT " ignored %" G_GUINT64_FORMAT "\n",
                              json, (guint64) stats->lines, (guint64) stats->skipped_lines,
                              (guint64) stats->applied_updates, (guint64) stats->ignored_updates);
    }
  _pd_import_set_pick_lines (TRUE);
  return g_string_free (out, FALSE);
}

/* An older-format document checked and read in one walk, as an attacker
 * would write it: header members and "messages" met twice, escaped and cut
 * keys, elements that are no message, messages written again, rewound and
 * refused, more messages than the walk keeps rows of, a last "messages"
 * of another kind, a rewrite caught half-written; read the same in place
 * as from trees. */
static void
test_document_one_walk (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "session-2026-03-20T09-00-7b1e2f3a.json", NULL);
  g_autoptr(GString) many = g_string_new ("{\"sessionId\":\"many\",\"messages\":[");
  const char *head = "{\"sessionId\":\"s\\u0031\",\"summary\":\"first\",\"sessionId\":\"s2\",\"summary\":7,"
                     "\"startTime\":\"2026-03-20T09:00:00.000Z\",\"messages\":[" MSG ("shadowed", TODOS (LIST_A, "success")) "],"
                     "\"lastUpdated\":\"2026-03-20T09:30:00.000Z\",\"messages\":[7,\"text\",null,[],{},"
                     "{\"\\u0069d\":\"u1\",\"type\":\"user\",\"content\":[{\"text\":\"plan \\u00e9\"},\"word\",{\"text\":7}]},"
                     "{\"id\\u0000x\":\"cut\",\"timestamp\":\"2026-03-20T09:01:00.000Z\"},"
                     "{\"id\":\"m1\",\"id\":\"m2\",\"type\":\"gemini\",\"toolCalls\":[{\"name\":\"write_todos\",\"status\":\"error\","
                     "\"args\":{\"todos\":" LIST_A "}},{\"n\\u0061me\":\"write_todos\",\"args\":{\"todos\":" LIST_AB "}}]},"
                     MSG ("m3", TODOS (LIST_A, "success")) ",{\"$rewindTo\":\"m2\"},{\"$set\":{\"summary\":\"set\"}},"
                     "{\"id\":\"u1\",\"type\":\"user\",\"content\":{\"text\":\"again\"}},"
                     MSG ("m4", "[1,{\"name\":\"write_todos\",\"args\":[]},{\"name\":\"write_todos\",\"status\":7,\"args\":{\"todos\":[]}}]");
  g_autofree char *whole = g_strconcat (head, "]}", NULL);
  g_autofree char *other = g_strconcat (head, "],\"messages\":{}}", NULL);
  g_autofree char *half = g_strndup (whole, strlen (whole) / 2);
  const char *sets[][4] = {
    { whole, half, NULL },
    { other, whole, other, NULL },
    { "[{\"messages\":[]}]", "{\"messages\":[]} ", NULL },
    { NULL },
  };

  /* Past the rows' bound: messages walked again. */
  for (guint i = 0; i < 33000; i++)
    g_string_append_printf (many, "{\"id\":\"n%u\",\"timestamp\":\"2026-03-20T09:00:00.000Z\"},", i);
  g_string_append (many, MSG ("last", TODOS (LIST_AB, "success")) ",{\"id\":\"n7\",\"type\":\"user\",\"content\":\"late\"}]}");
  sets[3][0] = many->str;
  sets[3][1] = whole;
  sets[3][2] = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (sets); i++)
    {
      g_autofree char *in_place = document_read (path, sets[i], TRUE);
      g_autofree char *trees = document_read (path, sets[i], FALSE);

      g_assert_cmpstr (in_place, ==, trees);
      g_assert_null (strstr (in_place, "shadowed"));
    }
  {
    g_autofree char *read = document_read (path, sets[0], TRUE);
    g_autofree char *refused = document_read (path, sets[1], TRUE);
    g_autofree char *rows = document_read (path, sets[3], TRUE);

    g_assert_nonnull (strstr (read, "\"s2\""));
    g_assert_nonnull (strstr (read, "\"B\""));
    g_assert_true (g_str_has_prefix (refused, "refused: "));
    g_assert_nonnull (strstr (rows, "lines 33002 "));
  }
  pd_test_remove_tree (dir);
}

/* A call's arguments nested deeper than json-glib is given: the document
 * is read, the arguments a placeholder.  The check that reads a document
 * in place refuses such nesting itself, so only a document it refused is
 * looked at for it (each document was walked for its nesting first, a
 * fifth of a Gemini CLI import): read the same in place as from trees,
 * which look first, up to the bound and past it, in a call's arguments
 * (read), in another member (refused past it) and in a string (no
 * nesting).  Fails with the look after a refusal taken out. */
static void
test_document_deep (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "session-2026-03-20T09-00-7b1e2f3a.json", NULL);
  const char *head = "{\"sessionId\":\"deep\",\"startTime\":\"2026-03-20T09:00:00.000Z\",\"messages\":["
                     MSG ("m1", TODOS (LIST_AB, "success")) ",";
  /* Around them: the root, messages and the message (3), and in a call's
   * arguments toolCalls and the call (5): the bound is passed at 510 and
   * 508 levels. */
  const guint levels[] = { 507, 508, 509, 510, 600 };
  guint read = 0, refused = 0;

  for (guint l = 0; l < G_N_ELEMENTS (levels); l++)
    for (guint where = 0; where < 3; where++)
      {
        g_autoptr(GString) text = g_string_new (head);
        g_autofree char *in_place = NULL;
        g_autofree char *trees = NULL;
        const char *texts[2] = { NULL, NULL };

        if (where == 0)
          g_string_append (text, "{\"id\":\"m2\",\"type\":\"gemini\",\"toolCalls\":[{\"name\":\"run_shell_command\",\"args\":");
        else
          g_string_append (text, "{\"id\":\"m2\",\"type\":\"gemini\",\"x\":");
        if (where == 2)
          g_string_append_c (text, '"');
        for (guint i = 0; i < levels[l]; i++)
          g_string_append (text, where == 2 ? "[" : "{\"a\":");
        g_string_append_c (text, '1');
        for (guint i = 0; i < levels[l]; i++)
          g_string_append_c (text, where == 2 ? ']' : '}');
        if (where == 2)
          g_string_append_c (text, '"');
        g_string_append (text, where == 0 ? ",\"status\":\"success\"}]}" : "}");
        g_string_append (text, "," MSG ("m3", TODOS (LIST_A, "success")) "]}");
        texts[0] = text->str;
        in_place = document_read (path, texts, TRUE);
        trees = document_read (path, texts, FALSE);
        g_assert_cmpstr (in_place, ==, trees);
        if (g_str_has_prefix (in_place, "refused: "))
          {
            g_assert_cmpuint (where, ==, 1);
            g_assert_cmpuint (levels[l], >=, 510);
            refused++;
          }
        else
          {
            g_assert_nonnull (strstr (in_place, "\"A\""));
            g_assert_nonnull (strstr (in_place, "applied 2 "));
            read++;
          }
      }
  g_assert_cmpuint (read, ==, 13);
  g_assert_cmpuint (refused, ==, 2);
  pd_test_remove_tree (dir);
}

#ifdef __GLIBC__
/* The heap in use, in bytes (glibc's count; 0 under valgrind). */
static gsize
heap_in_use (void)
{
  return mallinfo2 ().uordblks;
}
#endif

/* What a reader holds of the messages whose id alone matters (most of a
 * session): the index keeps every session's reader, and each block it
 * holds took fresh pages of memory (a page fault each, a third more CPU
 * for `import --db` than for `--json` on the real corpus's Gemini CLI
 * part).  20 000 such messages in each format, one written again, rewound
 * to, then read for the pages by the same reader: the same plan as
 * before, and at most 90 and 130 bytes held a message (65 and 109 now,
 * with the table by id; 145 and 189 with a whole message and its id
 * apart). */
static void
plain_messages_held (void)
{
#ifdef __GLIBC__
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *lines_path = g_build_filename (dir, "chats", "session-2026-04-05T10-12-0000cafe.jsonl", NULL);
  g_autofree char *doc_path = g_build_filename (dir, "chats", "session-2026-04-05T10-12-0000cafe.json", NULL);
  g_autoptr(GString) lines = g_string_new (HEADER "\n" MSG ("m1", TODOS (LIST_A, "success")) "\n");
  g_autoptr(GString) doc = g_string_new ("{\"sessionId\":\"s1\",\"messages\":[" MSG ("m1", TODOS (LIST_A, "success")));
  const guint n = 20000;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  {
    g_autofree char *chats = g_build_filename (dir, "chats", NULL);

    g_assert_cmpint (g_mkdir_with_parents (chats, 0700), ==, 0);
  }
  for (guint i = 0; i < n; i++)
    {
      g_string_append_printf (lines, "{\"id\":\"p%05u\",\"timestamp\":\"2026-04-05T10:00:02.000Z\",\"type\":\"gemini\",\"content\":\"ok\"}\n", i);
      g_string_append_printf (doc, ",{\"id\":\"p%05u\",\"timestamp\":\"2026-04-05T10:00:02.000Z\",\"type\":\"gemini\",\"content\":\"ok\"}", i);
    }
  g_string_append (lines, MSG ("m2", TODOS (LIST_AB, "success")) "\n");
  g_string_append (doc, "," MSG ("m2", TODOS (LIST_AB, "success")) "]}");
  g_assert_true (g_file_set_contents (lines_path, lines->str, (gssize) lines->len, NULL));
  g_assert_true (g_file_set_contents (doc_path, doc->str, (gssize) doc->len, NULL));

  for (guint format = 0; format < 2; format++)
    {
      gsize before = heap_in_use ();
      g_autoptr(PdGeminiReader) reader = pd_gemini_reader_new (format == 0 ? lines_path : doc_path, format == 1);
      PdTranscriptReader *r = PD_TRANSCRIPT_READER (reader);
      PdImportedSession *session = pd_transcript_reader_get_session (r);
      g_autoptr(PdTranscriptPages) pages = NULL;
      g_autoptr(GError) error = NULL;
      gsize held;

      pd_transcript_reader_set_follow (r, TRUE);
      g_assert_true (pd_transcript_reader_update (r, NULL, &error));
      g_assert_no_error (error);
      held = heap_in_use () - before;
      if (before > 0)
        g_assert_cmpuint (held / n, <=, (format == 0 ? 90 : 130));
      pd_import_test_assert_list (session, "A:completed|B:in_progress");
      g_assert_cmpuint (pd_imported_session_get_stats (session)->lines, >=, n);
      if (format == 1)
        continue;

      /* A plain message written again as m2 (its list goes), a rewind to
       * a plain one, then the pages from the same reader. */
      pd_import_test_append (lines_path, "{\"id\":\"m2\",\"timestamp\":\"2026-04-05T10:00:03.000Z\",\"type\":\"gemini\",\"content\":\"x\"}\n");
      g_assert_true (pd_transcript_reader_update (r, NULL, &error));
      pd_import_test_assert_list (session, "A:in_progress");
      pd_import_test_append (lines_path, MSG ("m3", TODOS (LIST_AB, "success")) "\n{\"$rewindTo\":\"p00007\"}\n");
      g_assert_true (pd_transcript_reader_update (r, NULL, &error));
      pd_import_test_assert_list (session, "A:in_progress");
      pd_import_test_append (lines_path, MSG ("m4", TODOS (LIST_AB, "success")) "\n");
      pages = pd_transcript_reader_read_pages (r, NULL, &error);
      g_assert_no_error (error);
      g_assert_nonnull (pages);
      pd_import_test_assert_list (session, "A:completed|B:in_progress");
    }
  pd_test_remove_tree (dir);
#endif
}

/* In a process of its own: what the tests before left in glibc's caches
 * is not counted (it moved the figure by up to 45 bytes a message). */
static void
test_plain_messages_held (void)
{
#ifdef __GLIBC__
  if (g_test_subprocess ())
    {
      plain_messages_held ();
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
#else
  g_test_skip ("glibc's heap counts");
#endif
}

/* The fixtures rewritten as spaced JSON ({"type": "…"}, as Python's
 * json.dumps writes it): the same sessions, times and messages. */
static void
test_spaced_json (void)
{
  static const char * const files[] = { "tmp/lantern/chats/session-2026-04-05T10-12-3fa9c0d1.jsonl", NULL };

  pd_import_test_assert_spaced_same ("gemini", "gemini", files);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-gemini/own-fixtures", test_own_fixtures);
  g_test_add_func ("/pd/import-gemini/read-path", test_read_path);
  g_test_add_func ("/pd/import-gemini/follow", test_follow);
  g_test_add_func ("/pd/import-gemini/document-rewrites", test_document_rewrites);
  g_test_add_func ("/pd/import-gemini/pages", test_pages);
  g_test_add_func ("/pd/import-gemini/index-overrides", test_index_overrides);
  g_test_add_func ("/pd/import-gemini/hostile", test_hostile);
  g_test_add_func ("/pd/import-gemini/index-resume", test_index_resume);
  g_test_add_func ("/pd/import-gemini/document-one-walk", test_document_one_walk);
  g_test_add_func ("/pd/import-gemini/spaced-json", test_spaced_json);
  g_test_add_func ("/pd/import-gemini/document-deep", test_document_deep);
  g_test_add_func ("/pd/import-gemini/plain-messages-held", test_plain_messages_held);

  return g_test_run ();
}
