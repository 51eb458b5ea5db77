/* test-import-claude.c: Claude Code transcripts replayed into checklists.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "pd-claude-code-reader.h"
#include "pd-import-private.h"
#include "pd-import-scanner.h"
#include "pd-import-test.h"
#include "pd-transcript-pages.h"
#include "pd-transcript-reader.h"

static char *
use (const char *ts,
     const char *id,
     const char *name,
     const char *input)
{
  return g_strdup_printf ("{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:%sZ\",\"sessionId\":\"s1\",\"cwd\":\"/w\","
                          "\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"%s\","
                          "\"name\":\"%s\",\"input\":%s}]}}", ts, id, name, input);
}

static char *
res (const char *ts,
     const char *id,
     gboolean    is_error,
     const char *text,
     const char *tool_use_result)
{
  g_autofree char *tur = tool_use_result ? g_strdup_printf (",\"toolUseResult\":%s", tool_use_result) : g_strdup ("");
  return g_strdup_printf ("{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:%sZ\",\"message\":{\"role\":\"user\","
                          "\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"%s\",\"content\":\"%s\",\"is_error\":%s}]}%s}",
                          ts, id, text, is_error ? "true" : "false", tur);
}

typedef struct
{
  char      *dir;
  GPtrArray *lines;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->dir = pd_import_test_tmpdir ();
  f->lines = g_ptr_array_new_with_free_func (g_free);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  pd_test_remove_tree (f->dir);
  g_free (f->dir);
  g_ptr_array_unref (f->lines);
}

static void
add (Fixture *f,
     char    *line)
{
  g_ptr_array_add (f->lines, line);
}

static PdImportedSession *
replay (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  PdImportedSession *session;

  g_ptr_array_add (f->lines, NULL);
  path = pd_import_test_write (f->dir, "s1.jsonl", (const char * const *) f->lines->pdata);
  g_ptr_array_remove_index (f->lines, f->lines->len - 1);
  session = pd_claude_code_read (path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (session);
  return session;
}

#define TODOS_AB "{\"todos\":[{\"content\":\"A\",\"status\":\"completed\",\"activeForm\":\"Doing A\"},{\"content\":\"B\",\"status\":\"in_progress\",\"activeForm\":\"Doing B\"}]}"

/* ---------------------------------------------------------------------- */

static const PdChecklistItem *
find_id (PdImportedSession *session,
         const char        *id)
{
  PdChecklist *list = pd_imported_session_get_checklist (session);

  for (guint i = 0; i < pd_checklist_get_n_agent_items (list); i++)
    if (g_strcmp0 (pd_checklist_get_agent_item (list, i)->source_id, id) == 0)
      return pd_checklist_get_agent_item (list, i);
  return NULL;
}

/* The project's own fixtures (tests/fixtures/README.md gives the oracle). */

#define WORD_COUNT "-home-dev-src-inkwell/3c9d0e71-5a2b-4e8f-9d14-7b60c2a1f5e3.jsonl"
#define SETTINGS_TOML "-home-dev-src-inkwell/b7e14c52-0d9a-4f3e-9c61-2a8f5d07e3b9.jsonl"
#define UPLOAD_LIMITS "-home-dev-src-harbor/5b2e9f07-c3d1-4a6b-8e20-f14d9a6c0b72.jsonl"

static PdImportedSession *
read_own (const char *dir,
          const char *file)
{
  g_autofree char *path = g_build_filename (dir, file, NULL);
  g_autoptr(GError) error = NULL;
  PdImportedSession *session = pd_claude_code_read (path, &error);

  g_assert_no_error (error);
  g_assert_nonnull (session);
  g_assert_cmpint (pd_imported_session_get_source (session), ==, PD_IMPORT_SOURCE_CLAUDE_CODE);
  g_assert_cmpint (pd_imported_session_get_created_at (session), >, 0);
  g_assert_cmpint (pd_imported_session_get_updated_at (session), >=, pd_imported_session_get_created_at (session));
  return session;
}

static char *
plan_statuses (PdImportedSession *session)
{
  GPtrArray *plans = pd_imported_session_get_plans (session);
  GString *out = g_string_new (NULL);

  for (guint j = 0; j < plans->len; j++)
    {
      const PdArtifactPlan *plan = g_ptr_array_index (plans, j);
      g_string_append_printf (out, "%s%s", j ? "," : "", pd_artifact_plan_status_to_string (plan->status));
      g_assert_cmpuint (strlen (plan->markdown), >, 20);
    }
  return g_string_free (out, FALSE);
}

/* v1.0: legacy items with ids, an inline sidechain with a list of its own,
 * a rejected update. */
static void
test_own_legacy_todos (void)
{
  g_autofree char *dir = pd_import_test_fixtures ("claude-code");
  g_autoptr(PdImportedSession) session = read_own (dir, WORD_COUNT);
  PdChecklist *list = pd_imported_session_get_checklist (session);
  const PdImportStats *stats = pd_imported_session_get_stats (session);
  g_autofree char *plans = plan_statuses (session);

  g_assert_cmpstr (pd_imported_session_get_title (session), ==, "Word count in the status bar");
  g_assert_cmpstr (pd_imported_session_get_cwd (session), ==, "/home/dev/src/inkwell");
  g_assert_cmpstr (pd_imported_session_get_id (session), ==, "3c9d0e71-5a2b-4e8f-9d14-7b60c2a1f5e3");
  g_assert_cmpint (pd_checklist_get_origin (list), ==, PD_CHECKLIST_ORIGIN_TODO_LIST);
  pd_import_test_assert_list (session, "Find where the status bar text is built:completed|"
                        "Count words incrementally on buffer changes:completed|"
                        "Show the count next to the cursor position:completed");
  /* The legacy item shape keeps the agent's ids. */
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *id = g_strdup_printf ("%u", i + 1);
      g_assert_cmpstr (pd_checklist_get_agent_item (list, i)->source_id, ==, id);
    }
  g_assert_cmpuint (stats->applied_updates, ==, 4);
  g_assert_cmpuint (stats->ignored_updates, ==, 1);
  g_assert_cmpuint (stats->skipped_lines, ==, 0);
  g_assert_cmpstr (plans, ==, "");
}

/* v2.0: plan mode, activeForm items, a flat subagent file, a torn line, a
 * compaction and a continuation; long enough for the tail read. */
static void
test_own_plan_mode (void)
{
  g_autofree char *dir = pd_import_test_fixtures ("claude-code");
  g_autoptr(PdImportedSession) session = read_own (dir, SETTINGS_TOML);
  g_autoptr(PdImportedSession) tail = NULL;
  g_autofree char *path = g_build_filename (dir, SETTINGS_TOML, NULL);
  g_autofree char *plans = plan_statuses (session);
  g_autofree char *full_list = pd_import_test_describe (session);
  g_autofree char *tail_list = NULL;
  const PdImportStats *stats = pd_imported_session_get_stats (session);
  GStatBuf st;
  guint done, total;

  g_assert_true (g_str_has_prefix (pd_imported_session_get_title (session),
                                   "Settings are read from ~/.config/inkwell/inkwell.ini today."));
  g_assert_cmpint (g_utf8_strlen (pd_imported_session_get_title (session), -1), <=, 120);
  g_assert_true (g_str_has_suffix (pd_imported_session_get_title (session), "…"));
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (session)), ==, PD_CHECKLIST_ORIGIN_TODO_LIST);
  pd_import_test_assert_list (session, "Read and write settings.toml atomically:completed|"
                        "Convert inkwell.ini once on first start:completed|"
                        "Keep defaults for unknown keys and bad values:completed|"
                        "Tests for defaults, round trip and conversion:completed|"
                        "Note the move in the changelog:in_progress");
  pd_checklist_count (pd_imported_session_get_checklist (session), &done, &total, NULL);
  g_assert_cmpuint (done, ==, 4);
  g_assert_cmpuint (total, ==, 5);
  g_assert_cmpuint (stats->applied_updates, ==, 6);
  g_assert_cmpuint (stats->ignored_updates, ==, 0);
  g_assert_cmpuint (stats->skipped_lines, ==, 1);
  g_assert_cmpstr (plans, ==, "rejected,approved");
  g_assert_true (g_str_has_prefix (((PdArtifactPlan *) pd_imported_session_get_plans (session)->pdata[1])->markdown,
                                   "# Move settings to TOML\n\n1. Read `settings.toml`"));

  /* Read from its end, as a transcript over the threshold: the same list. */
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (st.st_size, >, 96 * 1024);
  _pd_import_set_tail_limits (64 * 1024, 32 * 1024);
  tail = pd_claude_code_read (path, NULL);
  _pd_import_set_tail_limits (0, 0);
  g_assert_nonnull (tail);
  g_assert_true (pd_imported_session_get_stats (tail)->tail_read);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->bytes_read, <, (guint64) st.st_size);
  tail_list = pd_import_test_describe (tail);
  g_assert_cmpstr (tail_list, ==, full_list);
  g_assert_cmpstr (pd_imported_session_get_title (tail), ==, pd_imported_session_get_title (session));
}

/* v2.1: Task tools, a subagent that takes a task, failed and no-op updates,
 * a deletion, a TaskList and a reminder. */
static void
test_own_tasks (void)
{
  g_autofree char *dir = pd_import_test_fixtures ("claude-code");
  g_autoptr(PdImportedSession) session = read_own (dir, UPLOAD_LIMITS);
  const PdImportStats *stats = pd_imported_session_get_stats (session);
  guint done, total;

  g_assert_cmpstr (pd_imported_session_get_title (session), ==, "Upload rate limits");
  g_assert_cmpstr (pd_imported_session_get_cwd (session), ==, "/home/dev/src/harbor");
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (session)), ==, PD_CHECKLIST_ORIGIN_CLAUDE_TASKS);
  pd_import_test_assert_list (session, "Write a token bucket keyed by client address:completed|"
                        "Return 429 with Retry-After from POST /upload:in_progress|"
                        "Tests for the limiter under a fake clock:completed");
  pd_checklist_count (pd_imported_session_get_checklist (session), &done, &total, NULL);
  g_assert_cmpuint (done, ==, 2);
  g_assert_cmpuint (total, ==, 3);
  /* Two of the twelve are the subagent's: its transcript was merged in. */
  g_assert_cmpuint (stats->applied_updates, ==, 12);
  g_assert_cmpuint (stats->ignored_updates, ==, 1);
  g_assert_cmpuint (stats->skipped_lines, ==, 0);
  g_assert_nonnull (find_id (session, "3"));
  g_assert_null (find_id (session, "4"));
}

/* ---------------------------------------------------------------------- */
/* The shared third-party recordings: an extra check when they are there. */

typedef struct
{
  const char *file;
  guint       applied;
  const char *plans;
} RealCase;

static void
test_shared_fixtures (void)
{
  static const RealCase cases[] = {
    { "-Users-dain-workspace-claude-code-log-sample/326189cf-5676-4237-8cde-1ce80aae4a9f.jsonl", 4, "" },
    { "-Users-dain-workspace-danieldemmel-me-next/b25638d7-b104-4f06-a797-70ac33d069ed.jsonl", 4, "approved" },
    { "-Users-dain-workspace-danieldemmel-me-next/f852ad25-1024-47da-964e-5eaae5bd6e6a.jsonl", 12,
      "rejected,approved,rejected,approved" },
  };
  g_autofree char *dir = pd_import_test_shared_fixtures ("claude-code");

  if (dir == NULL)
    return;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_build_filename (dir, cases[i].file, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(PdImportedSession) session = pd_claude_code_read (path, &error);
      g_autofree char *statuses = NULL;
      PdChecklist *list;
      guint done, total;

      g_assert_no_error (error);
      list = pd_imported_session_get_checklist (session);
      g_assert_cmpint (pd_imported_session_get_source (session), ==, PD_IMPORT_SOURCE_CLAUDE_CODE);
      g_assert_cmpint (pd_checklist_get_origin (list), ==, PD_CHECKLIST_ORIGIN_TODO_LIST);
      g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==, cases[i].applied);
      g_assert_cmpuint (pd_imported_session_get_stats (session)->skipped_lines, ==, 0);
      pd_checklist_count (list, &done, &total, NULL);
      g_assert_cmpuint (total, ==, 2);
      g_assert_cmpuint (done, ==, 2);
      g_assert_nonnull (pd_imported_session_get_cwd (session));
      g_assert_cmpint (pd_imported_session_get_created_at (session), >, 0);
      g_assert_cmpint (pd_imported_session_get_updated_at (session), >=, pd_imported_session_get_created_at (session));
      statuses = plan_statuses (session);
      g_assert_cmpstr (statuses, ==, cases[i].plans);
    }

  /* The legacy item shape keeps the agent's ids. */
  {
    g_autofree char *path = g_build_filename (dir, cases[0].file, NULL);
    g_autoptr(PdImportedSession) session = pd_claude_code_read (path, NULL);
    const PdChecklistItem *item = pd_checklist_get_agent_item (pd_imported_session_get_checklist (session), 0);
    g_assert_nonnull (item->source_id);
  }
}

static void
test_todo_write_rules (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(PdImportedSession) session = NULL;

  add (f, use ("01", "t1", "TodoWrite", TODOS_AB));
  add (f, res ("02", "t1", FALSE, "Todos have been modified successfully", NULL));
  /* A rejected call changes nothing. */
  add (f, use ("03", "t2", "TodoWrite", "{\"todos\":[{\"content\":\"X\",\"status\":\"pending\"}]}"));
  add (f, res ("04", "t2", TRUE, "The user doesn't want to proceed", "\"Error: The user doesn't want to proceed\""));
  /* A call without a result yet changes nothing either. */
  add (f, use ("05", "t3", "TodoWrite", "{\"todos\":[{\"content\":\"Y\",\"status\":\"pending\"}]}"));

  session = replay (f);
  pd_import_test_assert_list (session, "A:completed|B:in_progress");
  g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==, 1);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->ignored_updates, ==, 1);
}

static void
test_new_todos_preferred (Fixture       *f,
                          gconstpointer  data)
{
  g_autoptr(PdImportedSession) session = NULL;

  add (f, use ("01", "t1", "TodoWrite", "{\"todos\":[{\"content\":\"from input\",\"status\":\"pending\"}]}"));
  add (f, res ("02", "t1", FALSE, "ok",
               "{\"oldTodos\":[],\"newTodos\":[{\"content\":\"from result\",\"status\":\"in_progress\",\"priority\":\"high\",\"id\":\"7\"},"
               "{\"content\":\"odd\",\"status\":\"someday\",\"id\":\"8\"}]}"));
  session = replay (f);
  /* Unknown statuses read as pending. */
  pd_import_test_assert_list (session, "from result:in_progress|odd:pending");
  g_assert_cmpstr (pd_checklist_get_agent_item (pd_imported_session_get_checklist (session), 0)->source_id, ==, "7");
}


static void
test_task_create_out_of_order (Fixture       *f,
                               gconstpointer  data)
{
  g_autoptr(PdImportedSession) session = NULL;

  add (f, use ("01", "c1", "TaskCreate", "{\"subject\":\"Alpha\",\"description\":\"d\"}"));
  add (f, use ("01", "c2", "TaskCreate", "{\"subject\":\"Beta\",\"description\":\"d\"}"));
  add (f, use ("01", "c3", "TaskCreate", "{\"subject\":\"Gamma\",\"description\":\"d\"}"));
  /* Results come back out of order; each binds by tool_use_id. */
  add (f, res ("02", "c3", FALSE, "Task #3 created successfully: Gamma", "{\"task\":{\"id\":\"3\",\"subject\":\"Gamma\"}}"));
  add (f, res ("02", "c1", FALSE, "Task #1 created successfully: Alpha", "{\"task\":{\"id\":\"1\",\"subject\":\"Alpha\"}}"));
  add (f, res ("02", "c2", FALSE, "Task #2 created successfully: Beta", "{\"task\":{\"id\":\"2\",\"subject\":\"Beta\"}}"));
  /* A failed creation and one without an id create nothing. */
  add (f, use ("03", "c4", "TaskCreate", "{\"subject\":\"Delta\"}"));
  add (f, res ("04", "c4", TRUE, "Error: no", NULL));
  add (f, use ("05", "c5", "TaskCreate", "{\"subject\":\"Epsilon\"}"));
  add (f, res ("06", "c5", FALSE, "something else", "{}"));

  session = replay (f);
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (session)), ==, PD_CHECKLIST_ORIGIN_CLAUDE_TASKS);
  g_assert_cmpuint (pd_checklist_get_n_agent_items (pd_imported_session_get_checklist (session)), ==, 3);
  g_assert_cmpstr (find_id (session, "1")->text, ==, "Alpha");
  g_assert_cmpstr (find_id (session, "2")->text, ==, "Beta");
  g_assert_cmpstr (find_id (session, "3")->text, ==, "Gamma");
  g_assert_cmpuint (pd_imported_session_get_stats (session)->ignored_updates, ==, 2);
}

static void
test_task_update_rules (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(PdImportedSession) session = NULL;

  add (f, use ("01", "c1", "TaskCreate", "{\"subject\":\"One\"}"));
  add (f, res ("01", "c1", FALSE, "Task #1 created successfully: One", "{\"task\":{\"id\":\"1\",\"subject\":\"One\"}}"));
  add (f, use ("02", "c2", "TaskCreate", "{\"subject\":\"Two\"}"));
  add (f, res ("02", "c2", FALSE, "Task #2 created successfully: Two", "{\"task\":{\"id\":\"2\",\"subject\":\"Two\"}}"));
  add (f, use ("03", "c3", "TaskCreate", "{\"subject\":\"Three\"}"));
  add (f, res ("03", "c3", FALSE, "Task #3 created successfully: Three", "{\"task\":{\"id\":\"3\",\"subject\":\"Three\"}}"));
  /* Confirmed status change. */
  add (f, use ("04", "u1", "TaskUpdate", "{\"taskId\":\"1\",\"status\":\"in_progress\"}"));
  add (f, res ("04", "u1", FALSE, "Updated task #1 status",
               "{\"success\":true,\"taskId\":\"1\",\"updatedFields\":[\"status\"],\"statusChange\":{\"from\":\"pending\",\"to\":\"in_progress\"}}"));
  /* Failed. */
  add (f, use ("05", "u2", "TaskUpdate", "{\"taskId\":\"2\",\"status\":\"completed\"}"));
  add (f, res ("05", "u2", FALSE, "x", "{\"success\":false,\"taskId\":\"2\",\"updatedFields\":[],\"error\":\"nope\"}"));
  /* Unconfirmed: the result does not list the field. */
  add (f, use ("06", "u3", "TaskUpdate", "{\"taskId\":\"2\",\"status\":\"completed\",\"subject\":\"Changed\"}"));
  add (f, res ("06", "u3", FALSE, "Updated task #2 ", "{\"success\":true,\"taskId\":\"2\",\"updatedFields\":[]}"));
  /* Dependency-only. */
  add (f, use ("07", "u4", "TaskUpdate", "{\"taskId\":\"2\",\"addBlockedBy\":[\"1\"]}"));
  add (f, res ("07", "u4", FALSE, "Updated task #2 blockedBy", "{\"success\":true,\"taskId\":\"2\",\"updatedFields\":[\"blockedBy\"]}"));
  /* Unknown task: never invented. */
  add (f, use ("08", "u5", "TaskUpdate", "{\"taskId\":\"9\",\"status\":\"completed\",\"subject\":\"Ghost\"}"));
  add (f, res ("08", "u5", FALSE, "Updated task #9 status",
               "{\"success\":true,\"taskId\":\"9\",\"updatedFields\":[\"status\",\"subject\"],\"statusChange\":{\"from\":\"pending\",\"to\":\"completed\"}}"));
  /* A result for another task is not a confirmation. */
  add (f, use ("09", "u6", "TaskUpdate", "{\"taskId\":\"2\",\"status\":\"completed\"}"));
  add (f, res ("09", "u6", FALSE, "Updated task #3 status",
               "{\"success\":true,\"taskId\":\"3\",\"updatedFields\":[\"status\"],\"statusChange\":{\"from\":\"pending\",\"to\":\"completed\"}}"));
  /* Confirmed subject edit, with a numeric taskId. */
  add (f, use ("10", "u7", "TaskUpdate", "{\"taskId\":2,\"subject\":\"Two, renamed\"}"));
  add (f, res ("10", "u7", FALSE, "Updated task #2 subject", "{\"success\":true,\"taskId\":\"2\",\"updatedFields\":[\"subject\"]}"));
  /* Deletion. */
  add (f, use ("11", "u8", "TaskUpdate", "{\"taskId\":\"3\",\"status\":\"deleted\"}"));
  add (f, res ("11", "u8", FALSE, "Updated task #3 deleted",
               "{\"success\":true,\"taskId\":\"3\",\"updatedFields\":[\"status\"],\"statusChange\":{\"from\":\"pending\",\"to\":\"deleted\"}}"));
  /* Never answered. */
  add (f, use ("12", "u9", "TaskUpdate", "{\"taskId\":\"1\",\"status\":\"completed\"}"));

  session = replay (f);
  pd_import_test_assert_list (session, "One:in_progress|Two, renamed:pending");
}

static void
test_task_id_reuse_and_full_list (Fixture       *f,
                                  gconstpointer  data)
{
  g_autoptr(PdImportedSession) session = NULL;

  add (f, use ("01", "c1", "TaskCreate", "{\"subject\":\"Old\"}"));
  add (f, res ("01", "c1", FALSE, "Task #1 created successfully: Old", "{\"task\":{\"id\":\"1\",\"subject\":\"Old\"}}"));
  add (f, use ("02", "u1", "TaskUpdate", "{\"taskId\":\"1\",\"status\":\"completed\"}"));
  add (f, res ("02", "u1", FALSE, "Updated task #1 status",
               "{\"success\":true,\"taskId\":\"1\",\"updatedFields\":[\"status\"],\"statusChange\":{\"from\":\"pending\",\"to\":\"completed\"}}"));
  add (f, use ("03", "c2", "TaskCreate", "{\"subject\":\"New\"}"));
  add (f, res ("03", "c2", FALSE, "Task #1 created successfully: New", "{\"task\":{\"id\":\"1\",\"subject\":\"New\"}}"));
  session = replay (f);
  pd_import_test_assert_list (session, "New:pending");
  g_clear_object (&session);

  /* A full list switches back to the list source and clears known tasks:
   * a later update of an old task invents nothing. */
  add (f, use ("04", "t1", "TodoWrite", TODOS_AB));
  add (f, res ("04", "t1", FALSE, "ok", NULL));
  add (f, use ("05", "u2", "TaskUpdate", "{\"taskId\":\"1\",\"status\":\"in_progress\"}"));
  add (f, res ("05", "u2", FALSE, "Updated task #1 status",
               "{\"success\":true,\"taskId\":\"1\",\"updatedFields\":[\"status\"],\"statusChange\":{\"from\":\"pending\",\"to\":\"in_progress\"}}"));
  session = replay (f);
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (session)), ==, PD_CHECKLIST_ORIGIN_TODO_LIST);
  pd_import_test_assert_list (session, "A:completed|B:in_progress");
}

static void
test_task_snapshots (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(PdImportedSession) session = NULL;

  add (f, use ("01", "l1", "TaskList", "{}"));
  add (f, res ("01", "l1", FALSE, "#2 [pending] B\\n#1 [completed] A",
               "{\"tasks\":[{\"id\":\"2\",\"subject\":\"B\",\"status\":\"pending\",\"blockedBy\":[]},"
               "{\"id\":\"1\",\"subject\":\"A\",\"status\":\"completed\",\"blockedBy\":[]}]}"));
  session = replay (f);
  pd_import_test_assert_list (session, "A:completed|B:pending");
  g_clear_object (&session);

  add (f, g_strdup ("{\"type\":\"attachment\",\"timestamp\":\"2026-01-01T00:00:09Z\",\"attachment\":{\"type\":\"task_reminder\","
                    "\"content\":[{\"id\":\"1\",\"subject\":\"A\",\"status\":\"completed\"},{\"id\":\"2\",\"subject\":\"B\",\"status\":\"in_progress\"},"
                    "{\"id\":\"3\",\"subject\":\"C\",\"status\":\"pending\"}],\"itemCount\":3}}"));
  session = replay (f);
  pd_import_test_assert_list (session, "A:completed|B:in_progress|C:pending");
}

static void
test_caps (Fixture       *f,
           gconstpointer  data)
{
  g_autoptr(PdImportedSession) session = NULL;

  /* 105 creations: the 100 newest tasks are kept. */
  for (guint i = 1; i <= 105; i++)
    {
      g_autofree char *id = g_strdup_printf ("c%u", i);
      g_autofree char *text = g_strdup_printf ("Task #%u created successfully: T%u", i, i);
      g_autofree char *tur = g_strdup_printf ("{\"task\":{\"id\":\"%u\",\"subject\":\"T%u\"}}", i, i);
      add (f, use ("01", id, "TaskCreate", "{\"subject\":\"T\"}"));
      add (f, res ("01", id, FALSE, text, tur));
    }
  session = replay (f);
  g_assert_cmpuint (pd_checklist_get_n_agent_items (pd_imported_session_get_checklist (session)), ==, 100);
  g_assert_cmpstr (pd_checklist_get_agent_item (pd_imported_session_get_checklist (session), 0)->source_id, ==, "6");
  g_clear_object (&session);
  g_ptr_array_set_size (f->lines, 0);

  /* 105 calls waiting: the 5 oldest are given up. */
  for (guint i = 1; i <= 105; i++)
    {
      g_autofree char *id = g_strdup_printf ("p%u", i);
      add (f, use ("02", id, "TaskCreate", "{\"subject\":\"P\"}"));
    }
  add (f, res ("03", "p1", FALSE, "Task #1 created successfully: P", "{\"task\":{\"id\":\"1\",\"subject\":\"P1\"}}"));
  add (f, res ("03", "p105", FALSE, "Task #2 created successfully: P", "{\"task\":{\"id\":\"2\",\"subject\":\"P105\"}}"));
  session = replay (f);
  pd_import_test_assert_list (session, "P105:pending");
  g_assert_cmpuint (pd_imported_session_get_stats (session)->ignored_updates, ==, 5);
}

static void
test_subagents_merged_by_time (Fixture       *f,
                               gconstpointer  data)
{
  g_autoptr(PdImportedSession) session = NULL;
  const char *sub[] = { NULL, NULL, NULL, NULL, NULL };
  g_autofree char *sub_path = NULL;

  add (f, use ("01", "c1", "TaskCreate", "{\"subject\":\"Shared\"}"));
  add (f, res ("01", "c1", FALSE, "Task #1 created successfully: Shared", "{\"task\":{\"id\":\"1\",\"subject\":\"Shared\"}}"));
  add (f, use ("02", "t1", "TodoWrite", TODOS_AB));
  add (f, res ("02", "t1", FALSE, "ok", NULL));
  add (f, use ("03", "c2", "TaskCreate", "{\"subject\":\"Again\"}"));
  add (f, res ("03", "c2", FALSE, "Task #1 created successfully: Again", "{\"task\":{\"id\":\"1\",\"subject\":\"Again\"}}"));
  add (f, use ("07", "u1", "TaskUpdate", "{\"taskId\":\"1\",\"status\":\"completed\"}"));
  add (f, res ("07", "u1", FALSE, "Updated task #1 status",
               "{\"success\":true,\"taskId\":\"1\",\"updatedFields\":[\"status\"],\"statusChange\":{\"from\":\"in_progress\",\"to\":\"completed\"}}"));

  /* The subagent works between the two (text-only results, as subagent
   * files have), and keeps a TodoWrite list of its own. */
  sub[0] = use ("05", "s1", "TaskUpdate", "{\"taskId\":\"1\",\"status\":\"in_progress\"}");
  sub[1] = res ("05", "s1", FALSE, "Updated task #1 status", NULL);
  sub[2] = use ("06", "s2", "TodoWrite", "{\"todos\":[{\"content\":\"Sub\",\"status\":\"pending\"}]}");
  sub[3] = res ("06", "s2", FALSE, "ok", NULL);
  sub_path = pd_import_test_write (f->dir, "s1/subagents/agent-a1.jsonl", sub);
  for (guint i = 0; i < 4; i++)
    g_free ((char *) sub[i]);

  session = replay (f);
  /* Merged by time: the subagent's in_progress (05) comes before the
   * parent's completed (07). */
  pd_import_test_assert_list (session, "Again:completed");
  g_clear_object (&session);

  /* Without a later parent update, the subagent's change shows. */
  g_ptr_array_set_size (f->lines, f->lines->len - 2);
  session = replay (f);
  pd_import_test_assert_list (session, "Again:in_progress");
}

/* Found writing the pages of imported sessions: names were sorted with
 * g_ascii_strcasecmp given to g_ptr_array_sort, which hands the comparison
 * pointers to the array's elements, so it compared the bytes of addresses
 * and the subagents came in any order.  On equal times the subagents are
 * replayed in name order: the last word is agent-z's, every time. */
static void
test_subagents_equal_times (Fixture       *f,
                            gconstpointer  data)
{
  const char *names[] = { "agent-z9.jsonl", "agent-a1.jsonl", "agent-m5.jsonl", "agent-c3.jsonl" };
  const char *statuses[] = { "in_progress", "completed", "pending", "completed" };

  add (f, use ("01", "c1", "TaskCreate", "{\"subject\":\"Shared\"}"));
  add (f, res ("01", "c1", FALSE, "Task #1 created successfully: Shared", "{\"task\":{\"id\":\"1\",\"subject\":\"Shared\"}}"));
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *input = g_strdup_printf ("{\"taskId\":\"1\",\"status\":\"%s\"}", statuses[i]);
      g_autofree char *call_id = g_strdup_printf ("s%u", i);
      g_autofree char *path = g_build_filename ("s1", "subagents", names[i], NULL);
      g_autofree char *written = NULL;
      const char *sub[] = { use ("05", call_id, "TaskUpdate", input), res ("05", call_id, FALSE, "Updated task #1 status", NULL), NULL };

      written = pd_import_test_write (f->dir, path, sub);
      g_free ((char *) sub[0]);
      g_free ((char *) sub[1]);
    }

  /* Many reads, each with its own allocations. */
  for (guint round = 0; round < 40; round++)
    {
      g_autoptr(PdImportedSession) session = replay (f);
      g_autofree char *padding = g_malloc (round * 97 + 1);

      pd_import_test_assert_list (session, "Shared:in_progress");
    }
}

static void
test_exit_plan_mode (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(PdImportedSession) session = NULL;
  GPtrArray *plans;

  add (f, use ("01", "p1", "ExitPlanMode", "{\"plan\":\"# First\\n- a\"}"));
  add (f, res ("02", "p1", TRUE, "The user doesn't want to proceed", "\"Error: rejected\""));
  add (f, use ("03", "p2", "ExitPlanMode", "{\"plan\":\"# Second\\n- b\"}"));
  add (f, res ("04", "p2", FALSE, "User has approved your plan.", "{\"plan\":\"# Second, edited\\n- b\",\"isAgent\":false}"));
  add (f, use ("05", "p3", "ExitPlanMode", "{\"plan\":\"# Third\"}"));
  session = replay (f);
  plans = pd_imported_session_get_plans (session);
  g_assert_cmpuint (plans->len, ==, 3);
  g_assert_cmpint (((PdArtifactPlan *) plans->pdata[0])->status, ==, PD_ARTIFACT_PLAN_REJECTED);
  g_assert_cmpstr (((PdArtifactPlan *) plans->pdata[0])->markdown, ==, "# First\n- a");
  g_assert_cmpint (((PdArtifactPlan *) plans->pdata[1])->status, ==, PD_ARTIFACT_PLAN_APPROVED);
  g_assert_cmpstr (((PdArtifactPlan *) plans->pdata[1])->markdown, ==, "# Second, edited\n- b");
  g_assert_cmpint (((PdArtifactPlan *) plans->pdata[2])->status, ==, PD_ARTIFACT_PLAN_PROPOSED);
  /* A plan document is not a checklist. */
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (session)), ==, PD_CHECKLIST_ORIGIN_NONE);
}

#define CCD_ITEMS "{\"items\":[{\"text\":\"Read\",\"status\":\"in_progress\"},{\"text\":\"Write\",\"status\":\"pending\"},{\"text\":\"Test\",\"status\":\"pending\"}]}"

static void
test_desktop_plan (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(PdImportedSession) session = NULL;

  /* Steps before a full list give no plan. */
  add (f, use ("01", "a0", "mcp__ccd_turn__update_plan", "{\"advance\":true}"));
  add (f, res ("01", "a0", FALSE, "ok", NULL));
  session = replay (f);
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (session)), ==, PD_CHECKLIST_ORIGIN_NONE);
  g_assert_cmpint (pd_imported_session_get_source (session), ==, PD_IMPORT_SOURCE_CLAUDE_DESKTOP);
  g_clear_object (&session);

  add (f, use ("02", "i1", "mcp__ccd_turn__update_plan", CCD_ITEMS));
  add (f, res ("02", "i1", FALSE, "ok", NULL));
  session = replay (f);
  pd_import_test_assert_list (session, "Read:in_progress|Write:pending|Test:pending");
  g_clear_object (&session);

  add (f, use ("03", "a1", "mcp__ccd_turn__update_plan", "{\"advance\":true}"));
  add (f, res ("03", "a1", FALSE, "ok", NULL));
  session = replay (f);
  pd_import_test_assert_list (session, "Read:completed|Write:in_progress|Test:pending");
  g_clear_object (&session);

  add (f, use ("04", "d1", "mcp__ccd_turn__update_plan", "{\"done\":[\"Write\"],\"start\":\"Test\"}"));
  add (f, res ("04", "d1", FALSE, "ok", NULL));
  session = replay (f);
  pd_import_test_assert_list (session, "Read:completed|Write:completed|Test:in_progress");
  g_clear_object (&session);

  /* A failed step changes nothing. */
  add (f, use ("05", "a2", "mcp__ccd_turn__update_plan", "{\"advance\":true}"));
  add (f, res ("05", "a2", TRUE, "error", NULL));
  add (f, use ("06", "w1", "mcp__ccd_turn__wrap_up", "{}"));
  add (f, res ("06", "w1", FALSE, "ok", NULL));
  session = replay (f);
  pd_import_test_assert_list (session, "Read:completed|Write:completed|Test:completed");
  g_clear_object (&session);

  /* An unrecognised shape gives no plan rather than a wrong one. */
  add (f, use ("07", "x1", "mcp__ccd_turn__update_plan", "{\"steps\":[1,2,3]}"));
  add (f, res ("07", "x1", FALSE, "ok", NULL));
  session = replay (f);
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (session)), ==, PD_CHECKLIST_ORIGIN_NONE);
  g_assert_cmpuint (pd_checklist_get_n_agent_items (pd_imported_session_get_checklist (session)), ==, 0);
  g_clear_object (&session);

  /* And stays so until the next full list. */
  add (f, use ("08", "a3", "mcp__ccd_turn__update_plan", "{\"advance\":true}"));
  add (f, res ("08", "a3", FALSE, "ok", NULL));
  session = replay (f);
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (session)), ==, PD_CHECKLIST_ORIGIN_NONE);
  g_clear_object (&session);

  /* Items of an unknown shape, and references to missing items, too. */
  g_ptr_array_set_size (f->lines, 0);
  add (f, use ("01", "i1", "mcp__ccd_turn__update_plan", CCD_ITEMS));
  add (f, res ("01", "i1", FALSE, "ok", NULL));
  add (f, use ("02", "d1", "mcp__ccd_turn__update_plan", "{\"done\":[\"Nope\"]}"));
  add (f, res ("02", "d1", FALSE, "ok", NULL));
  session = replay (f);
  g_assert_cmpuint (pd_checklist_get_n_agent_items (pd_imported_session_get_checklist (session)), ==, 0);
  g_clear_object (&session);

  g_ptr_array_set_size (f->lines, 0);
  add (f, use ("01", "i1", "mcp__ccd_turn__update_plan", "{\"items\":[{\"text\":\"ok\"},\"bare string\"]}"));
  add (f, res ("01", "i1", FALSE, "ok", NULL));
  session = replay (f);
  g_assert_cmpuint (pd_checklist_get_n_agent_items (pd_imported_session_get_checklist (session)), ==, 0);
}

static void
test_bad_lines (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(PdClaudeCodeReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *path = g_build_filename (f->dir, "s1.jsonl", NULL);
  g_autofree char *t1 = use ("01", "t1", "TodoWrite", TODOS_AB);
  g_autofree char *r1 = res ("02", "t1", FALSE, "ok", NULL);
  g_autofree char *t2 = use ("03", "t2", "TodoWrite", "{\"todos\":[{\"content\":\"Z\",\"status\":\"pending\"}]}");
  g_autofree char *r2 = res ("04", "t2", FALSE, "ok", NULL);
  g_autoptr(GString) text = g_string_new (NULL);
  PdImportedSession *session;
  const PdImportStats *stats;

  g_string_append (text, "not json at all\n");
  g_string_append (text, "\n   \n");
  g_string_append_printf (text, "%s\n", t1);
  /* A huge line (a tool output) beyond the cap. */
  g_string_append (text, "{\"type\":\"user\",\"x\":\"");
  for (guint i = 0; i < 20000; i++)
    g_string_append (text, "TodoWrite ");
  g_string_append (text, "\"}\n");
  g_string_append_printf (text, "%s\n", r1);
  /* Invalid UTF-8 in a line worth parsing. */
  g_string_append (text, "{\"type\":\"assistant\",\"name\":\"TodoWrite\",\"bad\":\"\xff\xfe\"}\n");
  g_string_append (text, "{\"type\":\"assistant\",\"TodoWrite\":[1,2\n");
  g_string_append_printf (text, "%s\n", t2);
  /* A torn last line: the result being written. */
  g_string_append_len (text, r2, (gssize) strlen (r2) / 2);
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));

  reader = pd_claude_code_reader_new (path);
  pd_transcript_reader_set_max_line (PD_TRANSCRIPT_READER (reader), 64 * 1024);
  g_assert_true (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error));
  g_assert_no_error (error);
  session = pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader));
  stats = pd_imported_session_get_stats (session);
  pd_import_test_assert_list (session, "A:completed|B:in_progress");
  /* garbage, two blank, huge, invalid UTF-8, unclosed, torn */
  g_assert_cmpuint (stats->skipped_lines, ==, 7);
  g_assert_cmpuint (stats->lines, ==, 10);
}

static void
test_follow (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(PdClaudeCodeReader) reader = NULL;
  g_autofree char *path = g_build_filename (f->dir, "s1.jsonl", NULL);
  g_autofree char *t1 = use ("01", "t1", "TodoWrite", TODOS_AB);
  g_autofree char *r1 = res ("02", "t1", FALSE, "ok", NULL);
  g_autofree char *first = g_strdup_printf ("%s\n%s", t1, r1);
  g_autofree char *second = g_strdup_printf ("%s\n%s\n", t1, r1);
  PdImportedSession *session;

  /* The result's line is still being written. */
  g_assert_true (g_file_set_contents (path, first, -1, NULL));
  reader = pd_claude_code_reader_new (path);
  pd_transcript_reader_set_follow (PD_TRANSCRIPT_READER (reader), TRUE);
  g_assert_true (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, NULL));
  session = pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader));
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (session)), ==, PD_CHECKLIST_ORIGIN_NONE);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->skipped_lines, ==, 0);

  /* Now it is whole: only the appended bytes are read. */
  g_assert_true (g_file_set_contents (path, second, -1, NULL));
  g_assert_true (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, NULL));
  pd_import_test_assert_list (session, "A:completed|B:in_progress");
  g_assert_cmpuint (pd_imported_session_get_stats (session)->lines, ==, 2);
}

/* The scanner finds each session once: subagent transcripts join their
 * parent, inline or flat or in subagents/. */
static void
scan_claude_dir (const char *dir,
                 guint       expected)
{
  g_autoptr(PdImportScanner) scanner = pd_import_scanner_new ();
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(GError) error = NULL;

  pd_import_scanner_set_claude_dir (scanner, dir);
  pd_import_scanner_set_codex_dir (scanner, "/nonexistent");
  pd_import_scanner_set_opencode_dir (scanner, "/nonexistent");
  sessions = pd_import_scanner_scan (scanner, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sessions->len, ==, expected);
}

static void
test_scanner (void)
{
  g_autofree char *dir = pd_import_test_fixtures ("claude-code");

  scan_claude_dir (dir, 3);
}

static void
test_scanner_shared (void)
{
  g_autofree char *dir = pd_import_test_shared_fixtures ("claude-code");

  if (dir != NULL)
    scan_claude_dir (dir, 3);
}

/* The session read from @path as `import --json` prints it, the lines
 * picked (the facts' lines read in place) or built whole. */
static char *
meta_session_json (const char *path,
                   gboolean    pick)
{
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(JsonArray) array = json_array_new ();
  g_autoptr(JsonNode) root = NULL;

  _pd_import_set_pick_lines (pick);
  sessions = pd_import_read_path (path, NULL, NULL);
  _pd_import_set_pick_lines (TRUE);
  for (guint i = 0; sessions != NULL && i < sessions->len; i++)
    json_array_add_element (array, pd_imported_session_to_json (g_ptr_array_index (sessions, i), TRUE));
  root = json_node_init_array (json_node_alloc (), array);
  return json_to_string (root, TRUE);
}

/* Lines that give a session its facts (folder, id, source, title), made
 * to tell a read in place from the tree: members met again, of the wrong
 * kind, escaped, cut at a "\u0000", missing. */
static const char * const meta_lines[] = {
  "{\"type\":\"user\",\"cwd\":\"/w\",\"sessionId\":\"s1\",\"message\":{\"role\":\"user\",\"content\":\"Fix the \\u0000 bug\"}}",
  "{\"type\":\"user\",\"isMeta\":true,\"cwd\":\"/a\",\"message\":{\"content\":\"a meta prompt\"}}",
  "{\"type\":\"user\",\"isMeta\":1,\"message\":{\"content\":\"not meta: a number\"}}",
  "{\"type\":\"user\",\"isMeta\":false,\"isMeta\":true,\"message\":{\"content\":\"meta at last\"}}",
  "{\"type\":\"user\",\"message\":{\"content\":\"<command-name>\"}}",
  "{\"type\":\"user\",\"message\":{\"content\":\"\"}}",
  "{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"blocks\"}]}}",
  "{\"type\":\"user\",\"message\":\"a string\"}",
  "{\"type\":\"user\",\"message\":{\"content\":\"first\"},\"message\":{\"content\":\"second \\u00e9\\n\\t\\u202e\"}}",
  "{\"type\":\"user\",\"message\":{\"content\":\"kept\"},\"message\":[]}",
  "{\"type\":\"summary\",\"summary\":\"A summary \\u00e9\\u200b\",\"leafUuid\":\"x\"}",
  "{\"type\":\"summary\",\"summary\":5}",
  "{\"type\":\"summary\",\"summary\":\"one\",\"summary\":\"two\"}",
  "{\"type\":\"custom-title\",\"customTitle\":\"Mine\",\"title\":\"Other\"}",
  "{\"type\":\"custom-title\",\"customTitle\":null,\"title\":\"Other\"}",
  "{\"type\":\"custom-title\",\"title\":\"Only \\\"quoted\\\"\"}",
  "{\"type\":\"custom-title\",\"customTitle\":[\"x\"]}",
  "{\"type\":\"user\",\"entrypoint\":\"claude-desktop\",\"cwd\":\"/d\",\"message\":{\"content\":\"desk\"}}",
  "{\"type\":\"summary\",\"entrypoint\":\"claude-desktop\",\"entrypoint\":\"cli\",\"summary\":\"s\"}",
  "{\"entrypoint\":\"claude-desktop\",\"type\":\"summary\",\"summary\":\"t\"}",
  "{\"cwd\":\"/x\",\"sessionId\":7,\"type\":null}",
  "{\"type\":\"user\",\"cwd\":[\"/x\"],\"message\":{\"content\":\"a\"}}",
  "{\"type\":\"user\",\"cwd\":\"/x\",\"cwd\":null,\"message\":{\"content\":\"b\"}}",
  "{\"type\":\"user\",\"cwd\":\"/\\u0077\\u0000x\",\"sessionId\":\"s\\u0031\",\"message\":{\"content\":\"c\"}}",
  "{\"type\":\"user\",\"message\":{\"content\":\"bad \\ud800\"}}",
  "{\"type\":\"user\",\"message\":{\"content\":\"bad \xc3\x28 byte\"}}",
  "{\"type\":\"user\",\"message\":{\"content\":\"x\"}} trailing",
};

static void
test_meta_in_place (void)
{
  g_autofree char *dir = g_dir_make_tmp ("pd-claude-meta-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "00000000-0000-4000-8000-000000000001.jsonl", NULL);
  g_autofree char *todo = use ("01", "t1", "TodoWrite", "{\"todos\":[{\"content\":\"One\",\"status\":\"pending\"}]}");
  guint n_sessions = 0;

  /* Each line alone and cut after each of its bytes, then before a plan
   * call; and each before each other (the first prompt, the folder and
   * the title are taken once). */
  for (guint i = 0; i < G_N_ELEMENTS (meta_lines); i++)
    {
      gsize length = strlen (meta_lines[i]);

      for (gsize cut = 0; cut <= length + 1; cut++)
        for (guint with_plan = 0; with_plan < 2; with_plan++)
          {
            g_autofree char *text = g_strdup_printf ("%.*s\n%s\n", (int) MIN (cut, length), meta_lines[i],
                                                     with_plan ? todo : "");
            g_autofree char *picked = NULL;
            g_autofree char *whole = NULL;

            if (cut == length + 1 && !with_plan)
              continue;
            g_assert_true (g_file_set_contents_full (path, text, -1, G_FILE_SET_CONTENTS_NONE, 0600, NULL));
            picked = meta_session_json (path, TRUE);
            whole = meta_session_json (path, FALSE);
            g_assert_cmpstr (picked, ==, whole);
            n_sessions += strlen (picked) > 2;
          }
      for (guint j = 0; j < G_N_ELEMENTS (meta_lines); j++)
        {
          g_autofree char *text = g_strdup_printf ("%s\n%s\n%s\n", meta_lines[i], meta_lines[j], todo);
          g_autofree char *picked = NULL;
          g_autofree char *whole = NULL;

          g_assert_true (g_file_set_contents_full (path, text, -1, G_FILE_SET_CONTENTS_NONE, 0600, NULL));
          picked = meta_session_json (path, TRUE);
          whole = meta_session_json (path, FALSE);
          g_assert_cmpstr (picked, ==, whole);
        }
    }
  g_assert_cmpuint (n_sessions, >, 0);
  g_unlink (path);
  g_rmdir (dir);
}

/* The session as `import --json` prints it, without its path, read with
 * the lines picked or built whole; and its pages' messages. */
static char *
spaced_session_json (const char *path,
                     gboolean    pick)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdImportedSession) session = NULL;
  g_autoptr(JsonNode) root = NULL;

  _pd_import_set_pick_lines (pick);
  session = pd_claude_code_read (path, &error);
  _pd_import_set_pick_lines (TRUE);
  g_assert_no_error (error);
  root = pd_imported_session_to_json (session, TRUE);
  json_object_remove_member (json_node_get_object (root), "path");
  return json_to_string (root, TRUE);
}

static char *
spaced_messages_json (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTranscriptReader) reader = pd_transcript_reader_new_for_format ("claude", path, NULL, &error);
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(JsonNode) root = NULL;

  g_assert_no_error (error);
  pages = pd_transcript_reader_read_pages (reader, NULL, &error);
  g_assert_no_error (error);
  root = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (root, pd_transcript_pages_dup_messages (pages));
  return json_to_string (root, TRUE);
}

/* The same transcripts written as spaced JSON ({"type": "user", …}, as
 * Python's json.dumps writes them and some tools rewrite them): the same
 * sessions, times, titles and messages.  The prefilter found the time, the
 * summary, the custom title and the user's lines by their compact bytes
 * ("timestamp":"), so such a session had no time and another title,
 * silently (tried as a new user would). */
static void
test_spaced_json (void)
{
  static const char * const files[] = { WORD_COUNT, UPLOAD_LIMITS };
  g_autofree char *compact_dir = pd_import_test_fixtures ("claude-code");
  g_autofree char *spaced_dir = pd_import_test_fixtures ("claude-code-spaced");

  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *compact = g_build_filename (compact_dir, files[i], NULL);
      g_autofree char *spaced = g_build_filename (spaced_dir, files[i], NULL);
      g_autoptr(PdImportedSession) session = read_own (spaced_dir, files[i]);
      g_autofree char *compact_messages = spaced_messages_json (compact);
      g_autofree char *spaced_messages = spaced_messages_json (spaced);

      g_assert_true (strstr (pd_imported_session_get_title (session), i == 0 ? "Word count" : "Upload rate") != NULL);
      for (guint pick = 0; pick < 2; pick++)
        {
          g_autofree char *want = spaced_session_json (compact, pick);
          g_autofree char *got = spaced_session_json (spaced, pick);

          g_assert_cmpstr (got, ==, want);
        }
      g_assert_cmpuint (strlen (compact_messages), >, 100);
      g_assert_cmpstr (spaced_messages, ==, compact_messages);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define FIXTURE_TEST(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  g_test_add_func ("/pd/import-claude/own/legacy-todos", test_own_legacy_todos);
  g_test_add_func ("/pd/import-claude/own/plan-mode", test_own_plan_mode);
  g_test_add_func ("/pd/import-claude/own/tasks", test_own_tasks);
  g_test_add_func ("/pd/import-claude/scanner", test_scanner);
  g_test_add_func ("/pd/import-claude/meta-in-place", test_meta_in_place);
  g_test_add_func ("/pd/import-claude/spaced-json", test_spaced_json);
  g_test_add_func ("/pd/import-claude/shared/fixtures", test_shared_fixtures);
  g_test_add_func ("/pd/import-claude/shared/scanner", test_scanner_shared);
  FIXTURE_TEST ("/pd/import-claude/todo-write", test_todo_write_rules);
  FIXTURE_TEST ("/pd/import-claude/new-todos-preferred", test_new_todos_preferred);
  FIXTURE_TEST ("/pd/import-claude/task-create-out-of-order", test_task_create_out_of_order);
  FIXTURE_TEST ("/pd/import-claude/task-update-rules", test_task_update_rules);
  FIXTURE_TEST ("/pd/import-claude/task-id-reuse-and-full-list", test_task_id_reuse_and_full_list);
  FIXTURE_TEST ("/pd/import-claude/task-snapshots", test_task_snapshots);
  FIXTURE_TEST ("/pd/import-claude/caps", test_caps);
  FIXTURE_TEST ("/pd/import-claude/subagents-merged-by-time", test_subagents_merged_by_time);
  FIXTURE_TEST ("/pd/import-claude/subagents-equal-times", test_subagents_equal_times);
  FIXTURE_TEST ("/pd/import-claude/exit-plan-mode", test_exit_plan_mode);
  FIXTURE_TEST ("/pd/import-claude/desktop-plan", test_desktop_plan);
  FIXTURE_TEST ("/pd/import-claude/bad-lines", test_bad_lines);
  FIXTURE_TEST ("/pd/import-claude/follow", test_follow);

  return g_test_run ();
}
