/* test-import-tail.c: long transcripts read from the end (seed 001, "Long
 * transcripts"), with the threshold and the bound lowered so that files of
 * a few hundred KB stand for ones of many MB.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "pd-claude-code-reader.h"
#include "pd-import-index.h"
#include "pd-import-private.h"
#include "pd-import-test.h"

#define FILLER_BYTES 1000

typedef PdTailFixture Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  pd_tail_fixture_init (f, "0c3f6a2e-5b1d-4e6f-9a7b-1c2d3e4f5a6b.jsonl");
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  pd_tail_fixture_clear (f);
}

static void
append_line (Fixture    *f,
             const char *format,
             ...) G_GNUC_PRINTF (2, 3);

/* A line of the session: its timestamp, session and folder, then the rest. */
static void
append_line (Fixture    *f,
             const char *format,
             ...)
{
  va_list args;
  guint t = f->clock++;

  g_string_append_printf (f->text, "{\"timestamp\":\"2026-01-01T%02u:%02u:%02uZ\",\"sessionId\":\"s1\",\"cwd\":\"/w\",",
                          t / 3600, (t / 60) % 60, t % 60);
  va_start (args, format);
  g_string_append_vprintf (f->text, format, args);
  va_end (args);
  g_string_append (f->text, "}\n");
}

static void
prompt (Fixture    *f,
        const char *text)
{
  append_line (f, "\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"%s\"}", text);
}

static void
filler (Fixture *f,
        guint    n)
{
  g_autofree char *words = g_strnfill (FILLER_BYTES, 'w');

  for (guint i = 0; i < n; i++)
    append_line (f, "\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"%s\"}]}",
                 words);
}

static void
use (Fixture    *f,
     const char *id,
     const char *name,
     const char *input)
{
  append_line (f, "\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"%s\","
                  "\"name\":\"%s\",\"input\":%s}]}", id, name, input);
}

static void
res (Fixture    *f,
     const char *id,
     gboolean    is_error,
     const char *text,
     const char *tool_use_result)
{
  g_autofree char *tur = tool_use_result ? g_strdup_printf (",\"toolUseResult\":%s", tool_use_result) : g_strdup ("");

  append_line (f, "\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"%s\","
                  "\"content\":\"%s\",\"is_error\":%s}]}%s", id, text, is_error ? "true" : "false", tur);
}

static void
todo_write (Fixture    *f,
            const char *id,
            const char *todos,
            gboolean    ok)
{
  g_autofree char *input = g_strdup_printf ("{\"todos\":%s}", todos);

  use (f, id, "TodoWrite", input);
  res (f, id, !ok, ok ? "Todos have been modified successfully." : "Error: no", NULL);
}

static void
task_create (Fixture    *f,
             const char *call,
             const char *id,
             const char *subject)
{
  g_autofree char *input = g_strdup_printf ("{\"subject\":\"%s\",\"description\":\"d\"}", subject);
  g_autofree char *text = g_strdup_printf ("Task #%s created successfully: %s", id, subject);
  g_autofree char *result = g_strdup_printf ("{\"task\":{\"id\":\"%s\",\"subject\":\"%s\"}}", id, subject);

  use (f, call, "TaskCreate", input);
  res (f, call, FALSE, text, result);
}

static void
task_update (Fixture    *f,
             const char *call,
             const char *id,
             const char *status)
{
  g_autofree char *input = g_strdup_printf ("{\"taskId\":\"%s\",\"status\":\"%s\"}", id, status);
  g_autofree char *text = g_strdup_printf ("Updated task #%s status", id);
  g_autofree char *result = g_strdup_printf ("{\"success\":true,\"taskId\":\"%s\",\"updatedFields\":[\"status\"],"
                                             "\"statusChange\":{\"from\":\"pending\",\"to\":\"%s\"}}", id, status);

  use (f, call, "TaskUpdate", input);
  res (f, call, FALSE, text, result);
}

static void
save (Fixture *f)
{
  pd_tail_fixture_save (f);
}

static PdImportedSession *
read_full (Fixture *f)
{
  return pd_tail_fixture_read_full (f, pd_claude_code_read);
}

static PdImportedSession *
read_tail (Fixture *f,
           goffset  bound)
{
  return pd_tail_fixture_read_tail (f, pd_claude_code_read, bound);
}

/* The same checklist as a full read, from a fraction of the bytes. */
static void
test_same_as_full (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(PdImportedSession) full = NULL;
  g_autoptr(PdImportedSession) tail = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *got = NULL;

  prompt (f, "Refactor the parser");
  task_create (f, "c1", "1", "Early task");
  filler (f, 1000);
  todo_write (f, "t1", "[{\"content\":\"A\",\"status\":\"pending\"},{\"content\":\"B\",\"status\":\"pending\"}]", TRUE);
  filler (f, 200);
  prompt (f, "A later prompt, not the title");
  todo_write (f, "t2", "[{\"content\":\"A\",\"status\":\"completed\"},{\"content\":\"B\",\"status\":\"in_progress\"},"
                       "{\"content\":\"C\",\"status\":\"pending\"}]", TRUE);
  filler (f, 50);
  save (f);

  full = read_full (f);
  tail = read_tail (f, 64 * 1024 * 1024);
  expected = pd_import_test_describe (full);
  got = pd_import_test_describe (tail);
  g_assert_cmpstr (expected, ==, "A:completed|B:in_progress|C:pending");
  g_assert_cmpstr (got, ==, expected);
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (tail)), ==, PD_CHECKLIST_ORIGIN_TODO_LIST);

  /* The session's facts come from the head, as with a full read. */
  g_assert_cmpstr (pd_imported_session_get_title (tail), ==, pd_imported_session_get_title (full));
  g_assert_cmpstr (pd_imported_session_get_title (tail), ==, "Refactor the parser");
  g_assert_cmpint (pd_imported_session_get_created_at (tail), ==, pd_imported_session_get_created_at (full));
  g_assert_cmpint (pd_imported_session_get_updated_at (tail), ==, pd_imported_session_get_updated_at (full));
  g_assert_cmpstr (pd_imported_session_get_cwd (tail), ==, "/w");

  /* Fewer bytes: the head's first lines, the last 51 lines backwards, and
   * them again forwards. */
  g_assert_true (pd_imported_session_get_stats (tail)->tail_read);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->bytes_read, <, f->text->len / 4);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->lines, <, pd_imported_session_get_stats (full)->lines / 4);
}

/* The newest full list failed: the scan goes on to the one before. */
static void
test_failed_newest (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(PdImportedSession) full = NULL;
  g_autoptr(PdImportedSession) tail = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *got = NULL;

  prompt (f, "Go");
  filler (f, 1000);
  todo_write (f, "t1", "[{\"content\":\"Old\",\"status\":\"pending\"}]", TRUE);
  filler (f, 20);
  todo_write (f, "t2", "[{\"content\":\"Kept\",\"status\":\"in_progress\"}]", TRUE);
  filler (f, 20);
  todo_write (f, "t3", "[{\"content\":\"Refused\",\"status\":\"pending\"}]", FALSE);
  filler (f, 20);
  save (f);

  full = read_full (f);
  tail = read_tail (f, 64 * 1024 * 1024);
  expected = pd_import_test_describe (full);
  got = pd_import_test_describe (tail);
  g_assert_cmpstr (expected, ==, "Kept:in_progress");
  g_assert_cmpstr (got, ==, expected);
  g_assert_true (pd_imported_session_get_stats (tail)->tail_read);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->bytes_read, <, f->text->len / 2);
}

/* Task* increments after the last full list are applied; an update of a
 * task created before it invents nothing, with either read. */
static void
test_task_increments (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(PdImportedSession) full = NULL;
  g_autoptr(PdImportedSession) tail = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *got = NULL;

  prompt (f, "Go");
  task_create (f, "c0", "7", "Before the list");
  filler (f, 1000);
  todo_write (f, "t1", "[{\"content\":\"A\",\"status\":\"pending\"}]", TRUE);
  filler (f, 10);
  task_create (f, "c1", "1", "One");
  task_create (f, "c2", "2", "Two");
  task_update (f, "u1", "1", "completed");
  task_update (f, "u2", "2", "in_progress");
  task_update (f, "u3", "7", "completed");
  filler (f, 10);
  save (f);

  full = read_full (f);
  tail = read_tail (f, 64 * 1024 * 1024);
  expected = pd_import_test_describe (full);
  got = pd_import_test_describe (tail);
  g_assert_cmpstr (expected, ==, "One:completed|Two:in_progress");
  g_assert_cmpstr (got, ==, expected);
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (tail)), ==, PD_CHECKLIST_ORIGIN_CLAUDE_TASKS);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->bytes_read, <, f->text->len / 2);

  /* A task snapshot is a full list too. */
  g_string_truncate (f->text, 0);
  g_clear_object (&full);
  g_clear_object (&tail);
  g_clear_pointer (&expected, g_free);
  g_clear_pointer (&got, g_free);
  prompt (f, "Go");
  todo_write (f, "t1", "[{\"content\":\"A\",\"status\":\"pending\"}]", TRUE);
  filler (f, 1000);
  use (f, "l1", "TaskList", "{}");
  res (f, "l1", FALSE, "#1 [pending] One", "{\"tasks\":[{\"id\":\"1\",\"subject\":\"One\",\"status\":\"pending\"}]}");
  task_update (f, "u1", "1", "in_progress");
  save (f);

  full = read_full (f);
  tail = read_tail (f, 64 * 1024 * 1024);
  expected = pd_import_test_describe (full);
  got = pd_import_test_describe (tail);
  g_assert_cmpstr (expected, ==, "One:in_progress");
  g_assert_cmpstr (got, ==, expected);
  g_assert_true (pd_imported_session_get_stats (tail)->tail_read);
}

/* No full list within the bound: the replay starts at the bound's start
 * and the checklist has what can be known there, nothing invented. */
static void
test_no_full_list_in_bound (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(PdImportedSession) full = NULL;
  g_autoptr(PdImportedSession) tail = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *got = NULL;
  const goffset bound = 100 * 1024;

  prompt (f, "Go");
  todo_write (f, "t1", "[{\"content\":\"Outside\",\"status\":\"pending\"}]", TRUE);
  task_create (f, "c1", "7", "Created outside");
  filler (f, 1000);
  task_create (f, "c2", "8", "Created inside");
  task_update (f, "u1", "7", "completed");
  task_update (f, "u2", "8", "in_progress");
  filler (f, 20);
  save (f);

  full = read_full (f);
  tail = read_tail (f, bound);
  expected = pd_import_test_describe (full);
  got = pd_import_test_describe (tail);
  g_assert_cmpstr (expected, ==, "Created outside:completed|Created inside:in_progress");
  g_assert_cmpstr (got, ==, "Created inside:in_progress");
  /* Read: the head, the bound backwards, and the bound forwards. */
  g_assert_true (pd_imported_session_get_stats (tail)->tail_read);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->bytes_read, <=, PD_IMPORT_TAIL_HEAD + 2 * bound);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->bytes_read, <, f->text->len);
  g_assert_cmpstr (pd_imported_session_get_title (tail), ==, "Go");
}

/* Torn, invalid and blank lines in the scanned region, some naming a full
 * list: skipped and counted, never taken for one. */
static void
test_bad_lines_in_tail (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(PdImportedSession) full = NULL;
  g_autoptr(PdImportedSession) tail = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *got = NULL;

  prompt (f, "Go");
  filler (f, 1000);
  todo_write (f, "t1", "[{\"content\":\"Good\",\"status\":\"in_progress\"}]", TRUE);
  filler (f, 5);
  /* Invalid UTF-8 in a full list's call and result. */
  append_line (f, "\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"bad1\","
                  "\"name\":\"TodoWrite\",\"input\":{\"todos\":[{\"content\":\"\xff\xfe\",\"status\":\"pending\"}]}}]}");
  res (f, "bad1", FALSE, "ok", NULL);
  /* A line torn in the middle, and blank lines. */
  g_string_append (f->text, "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"bad2\",\"name\":\"TodoWrite\",\"inp\n");
  res (f, "bad2", FALSE, "ok", NULL);
  g_string_append (f->text, "\n\n");
  filler (f, 5);
  /* A torn last line naming a full list. */
  g_string_append (f->text, "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"id\":\"bad3\",\"name\":\"TodoWrite\",\"input\":{\"to");
  save (f);

  full = read_full (f);
  tail = read_tail (f, 64 * 1024 * 1024);
  expected = pd_import_test_describe (full);
  got = pd_import_test_describe (tail);
  g_assert_cmpstr (expected, ==, "Good:in_progress");
  g_assert_cmpstr (got, ==, expected);
  /* Every bad line is in the replayed region: counted alike. */
  g_assert_cmpuint (pd_imported_session_get_stats (full)->skipped_lines, ==, 5);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->skipped_lines, ==, 5);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->bytes_read, <, f->text->len / 2);
}

/* Subagent transcripts are merged by timestamp: such a session is read
 * whole, from the start. */
static void
test_subagents_read_whole (Fixture       *f,
                           gconstpointer  data)
{
  g_autoptr(PdImportedSession) tail = NULL;
  g_autofree char *sub_dir = g_build_filename (f->dir, "0c3f6a2e-5b1d-4e6f-9a7b-1c2d3e4f5a6b", "subagents", NULL);
  g_autofree char *sub = NULL;
  g_autofree char *got = NULL;
  const char *sub_lines[] = {
    "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:01Z\",\"isSidechain\":true,\"message\":{\"role\":\"user\",\"content\":\"sub\"}}",
    NULL,
  };

  prompt (f, "Go");
  todo_write (f, "t1", "[{\"content\":\"A\",\"status\":\"pending\"}]", TRUE);
  filler (f, 1000);
  save (f);
  sub = pd_import_test_write (sub_dir, "agent-a1.jsonl", sub_lines);

  tail = read_tail (f, 64 * 1024 * 1024);
  g_assert_false (pd_imported_session_get_stats (tail)->tail_read);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->bytes_read, ==, f->text->len);
  got = pd_import_test_describe (tail);
  g_assert_cmpstr (got, ==, "A:pending");
}

/* Through the index: the run's bytes_read says what was really read. */
static void
test_index_bytes_read (Fixture       *f,
                       gconstpointer  data)
{
  g_autofree char *db_path = g_build_filename (f->dir, "sessions.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDb) db = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdImportIndex) index = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  PdImportIndexStats stats = { 0 };
  const char *paths[] = { f->path, NULL };

  prompt (f, "Go");
  filler (f, 1000);
  todo_write (f, "t1", "[{\"content\":\"A\",\"status\":\"completed\"},{\"content\":\"B\",\"status\":\"pending\"}]", TRUE);
  filler (f, 10);
  save (f);

  db = pd_db_open (db_path, PD_DB_CREATE, &error);
  g_assert_no_error (error);
  store = pd_session_store_new (db);
  index = pd_import_index_new ();
  _pd_import_set_tail_limits (64 * 1024, 0);
  g_assert_true (pd_import_index_run_paths (index, store, paths, &stats, NULL, &error));
  g_assert_no_error (error);
  _pd_import_set_tail_limits (0, 0);
  g_assert_cmpuint (stats.sessions_added, ==, 1);
  g_assert_cmpuint (stats.bytes_read, >, 0);
  g_assert_cmpuint (stats.bytes_read, <, f->text->len / 4);

  sessions = pd_session_store_list (store, NULL, FALSE, 0, 10, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sessions->len, ==, 1);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define FIXTURE_TEST(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  FIXTURE_TEST ("/pd/import-tail/same-as-full", test_same_as_full);
  FIXTURE_TEST ("/pd/import-tail/failed-newest", test_failed_newest);
  FIXTURE_TEST ("/pd/import-tail/task-increments", test_task_increments);
  FIXTURE_TEST ("/pd/import-tail/no-full-list-in-bound", test_no_full_list_in_bound);
  FIXTURE_TEST ("/pd/import-tail/bad-lines", test_bad_lines_in_tail);
  FIXTURE_TEST ("/pd/import-tail/subagents-read-whole", test_subagents_read_whole);
  FIXTURE_TEST ("/pd/import-tail/index-bytes-read", test_index_bytes_read);

  return g_test_run ();
}
