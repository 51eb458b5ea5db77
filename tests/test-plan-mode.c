/* test-plan-mode.c: plan mode (seed 002) and plan artifacts — the folded
 * log, pending intents, notices, the guards, the reviewed exit, and the
 * approved plan written atomically.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "pd-test-engine.h"
#include "pd-exit-plan-mode-tool.h"
#include "pd-plan-artifact.h"
#include "pd-plan-mode.h"

/* --- the fold -------------------------------------------------------- */

static void
test_fold (void)
{
  g_autoptr(GPtrArray) log = g_ptr_array_new_with_free_func (g_free);

  g_assert_false (pd_plan_mode_fold (NULL));
  g_assert_false (pd_plan_mode_fold (log));

  g_ptr_array_add (log, g_strdup ("{\"schema\":\"plandeck.event/v1\",\"type\":\"plan_mode\",\"timestamp\":\"2026-01-01T00:00:00.000000Z\",\"data\":{\"active\":true}}"));
  g_assert_true (pd_plan_mode_fold (log));

  /* Other types and malformed values do not count. */
  g_ptr_array_add (log, g_strdup ("{\"type\":\"plan_updated\",\"data\":{\"active\":false}}"));
  g_ptr_array_add (log, g_strdup ("{\"type\":\"plan_mode\",\"data\":{\"active\":\"no\"}}"));
  g_ptr_array_add (log, g_strdup ("not json"));
  g_assert_true (pd_plan_mode_fold (log));

  g_ptr_array_add (log, g_strdup ("{\"type\":\"plan_mode\",\"data\":{\"active\":false}}"));
  g_assert_false (pd_plan_mode_fold (log));
}

/* --- set, pending, flush --------------------------------------------- */

typedef struct
{
  GArray   *appended;   /* gboolean */
  gboolean  fail;
} Log;

static gboolean
append_to_log (gboolean   active,
               gpointer   user_data,
               GError   **error)
{
  Log *log = user_data;

  if (log->fail)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_FAILED, "disk full");
      return FALSE;
    }
  g_array_append_val (log->appended, active);
  return TRUE;
}

static void
test_set_idle_commits (void)
{
  g_autoptr(PdPlanMode) mode = pd_plan_mode_new (FALSE);
  Log log = { g_array_new (FALSE, FALSE, sizeof (gboolean)), FALSE };
  gboolean pending = TRUE;

  pd_plan_mode_set_append_func (mode, append_to_log, &log, NULL);

  g_assert_cmpint (pd_plan_mode_set (mode, FALSE), ==, PD_PLAN_MODE_NOOP);
  g_assert_cmpint (pd_plan_mode_set (mode, TRUE), ==, PD_PLAN_MODE_COMMITTED);
  g_assert_true (pd_plan_mode_get (mode, &pending));
  g_assert_false (pending);
  g_assert_cmpuint (log.appended->len, ==, 1);
  g_assert_true (g_array_index (log.appended, gboolean, 0));
  g_assert_cmpint (pd_plan_mode_set (mode, TRUE), ==, PD_PLAN_MODE_NOOP);

  /* A failed append between turns stays pending, and lands at a boundary. */
  log.fail = TRUE;
  g_assert_cmpint (pd_plan_mode_set (mode, FALSE), ==, PD_PLAN_MODE_QUEUED);
  g_assert_true (pd_plan_mode_get (mode, &pending));
  g_assert_true (pending);
  log.fail = FALSE;
  g_free (pd_plan_mode_flush (mode));
  g_assert_false (pd_plan_mode_get_active (mode));
  g_assert_cmpuint (log.appended->len, ==, 2);

  g_array_unref (log.appended);
}

static void
test_pending_in_turn (void)
{
  g_autoptr(PdPlanMode) mode = pd_plan_mode_new (FALSE);
  Log log = { g_array_new (FALSE, FALSE, sizeof (gboolean)), FALSE };
  g_autofree char *notice = NULL;
  gboolean pending = FALSE;

  pd_plan_mode_set_append_func (mode, append_to_log, &log, NULL);
  pd_plan_mode_set_turn_open (mode, TRUE);

  g_assert_cmpint (pd_plan_mode_set (mode, TRUE), ==, PD_PLAN_MODE_QUEUED);
  /* Nothing logged, and the step in progress still runs without plan mode. */
  g_assert_cmpuint (log.appended->len, ==, 0);
  g_assert_false (pd_plan_mode_get (mode, &pending));
  g_assert_true (pending);
  g_assert_cmpint (pd_plan_mode_set (mode, TRUE), ==, PD_PLAN_MODE_NOOP);

  /* A flip back before the boundary nets out: no append, no notice. */
  g_assert_cmpint (pd_plan_mode_set (mode, FALSE), ==, PD_PLAN_MODE_CANCELLED);
  g_assert_null (pd_plan_mode_flush (mode));
  g_assert_cmpuint (log.appended->len, ==, 0);

  /* Selected again: lands at the boundary with one notice. */
  g_assert_cmpint (pd_plan_mode_set (mode, TRUE), ==, PD_PLAN_MODE_QUEUED);
  notice = pd_plan_mode_flush (mode);
  g_assert_nonnull (notice);
  g_assert_nonnull (strstr (notice, "plan mode is now active"));
  g_assert_true (pd_plan_mode_get_active (mode));
  g_assert_cmpuint (log.appended->len, ==, 1);

  /* Never redundantly. */
  g_assert_null (pd_plan_mode_flush (mode));

  /* A failed append at the boundary never blocks: it stays pending. */
  log.fail = TRUE;
  g_assert_cmpint (pd_plan_mode_set (mode, FALSE), ==, PD_PLAN_MODE_QUEUED);
  g_assert_null (pd_plan_mode_flush (mode));
  g_assert_true (pd_plan_mode_get (mode, &pending));
  g_assert_true (pending);
  log.fail = FALSE;
  g_clear_pointer (&notice, g_free);
  notice = pd_plan_mode_flush (mode);
  g_assert_nonnull (notice);
  g_assert_false (pd_plan_mode_get_active (mode));

  g_array_unref (log.appended);
}

static void
test_exit_is_silent (void)
{
  g_autoptr(PdPlanMode) mode = pd_plan_mode_new (TRUE);

  pd_plan_mode_set_turn_open (mode, TRUE);
  pd_plan_mode_request_exit (mode);
  /* Guidance holds until the boundary. */
  g_assert_true (pd_plan_mode_get_active (mode));
  g_assert_null (pd_plan_mode_flush (mode));
  g_assert_false (pd_plan_mode_get_active (mode));
}

/* --- artifacts --------------------------------------------------------- */

static void
test_artifact_names_and_atomic_write (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-artifact-XXXXXX", &error);
  g_autoptr(GDateTime) when = g_date_time_new_utc (2026, 11, 30, 3, 4, 5);
  g_autofree char *first = NULL;
  g_autofree char *second = NULL;
  g_autofree char *content = NULL;
  g_autofree char *expected_dir = NULL;
  const char *plan = "# Fix the Parser: step 1 — ünïcode!\n\n- read\n- fix\n";

  g_assert_true (pd_plan_artifact_is_plan (plan));
  g_assert_true (pd_plan_artifact_is_plan ("\n\n#  Title"));
  g_assert_false (pd_plan_artifact_is_plan ("Title\n# later"));
  g_assert_false (pd_plan_artifact_is_plan ("#nospace"));
  g_assert_false (pd_plan_artifact_is_plan ("#   \n"));
  g_assert_false (pd_plan_artifact_is_plan (NULL));

  first = pd_plan_artifact_save (dir, "20261130-0123456789abcdef0123456789abcdef", plan, when, &error);
  g_assert_no_error (error);
  expected_dir = g_build_filename (dir, ".plandeck", "plans", NULL);
  g_assert_true (g_str_has_prefix (first, expected_dir));
  g_assert_true (g_str_has_suffix (first, "/20261130T030405Z-fix-the-parser-step-1-unicode.md"));
  g_assert_true (pd_plan_artifact_path_is_artifact (dir, first));

  g_assert_true (g_file_get_contents (first, &content, NULL, NULL));
  g_assert_true (g_str_has_prefix (content, "<!-- plandeck plan artifact: session 20261130-0123456789abcdef0123456789abcdef, approved 2026-11-30T03:04:05Z -->\n\n# Fix"));

  /* The same second: a distinct file, the first one untouched. */
  second = pd_plan_artifact_save (dir, "s", plan, when, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (first, !=, second);
  g_assert_true (g_file_test (first, G_FILE_TEST_IS_REGULAR));

  g_assert_null (pd_plan_artifact_save (dir, "s", "no heading", when, &error));
  g_assert_nonnull (error);

  g_assert_false (pd_plan_artifact_path_is_artifact (dir, "/etc/passwd.md"));
  {
    g_autofree char *escape = g_build_filename (dir, ".plandeck", "plans", "..", "..", "x.md", NULL);
    g_assert_false (pd_plan_artifact_path_is_artifact (dir, escape));
  }

  pd_test_remove_tree (dir);
}

/* --- the engine -------------------------------------------------------- */

typedef struct
{
  PdPlanReviewAnswer answer;
  const char        *feedback;
  guint              asked;
  char              *last_plan;
} Reviewer;

static PdPlanReviewAnswer
review (const char  *markdown,
        char       **feedback,
        gpointer     user_data)
{
  Reviewer *reviewer = user_data;

  reviewer->asked++;
  g_free (reviewer->last_plan);
  reviewer->last_plan = g_strdup (markdown);
  if (reviewer->feedback)
    *feedback = g_strdup (reviewer->feedback);
  return reviewer->answer;
}

static void
set_reviewer (EngineFixture *f,
              Reviewer      *reviewer)
{
  PdTool *tool = pd_tool_registry_lookup (f->tools, "exit_plan_mode");

  g_assert_true (PD_IS_EXIT_PLAN_MODE_TOOL (tool));
  pd_exit_plan_mode_tool_set_review_func (PD_EXIT_PLAN_MODE_TOOL (tool), reviewer ? review : NULL, reviewer, NULL);
}

static const char *
tool_result (JsonArray  *messages,
             const char *call_id)
{
  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *m = json_array_get_object_element (messages, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (m, "tool_call_id", ""), call_id) == 0)
        return json_object_get_string_member (m, "content");
    }
  return NULL;
}

static guint
stored_plan_mode_events (EngineFixture *f,
                         const char    *session_id,
                         gboolean      *last)
{
  g_autoptr(GPtrArray) events = pd_session_store_list_events (f->store, session_id, "plan_mode", 0, 100, NULL);
  g_autoptr(GPtrArray) texts = g_ptr_array_new ();

  for (guint i = 0; i < events->len; i++)
    g_ptr_array_add (texts, ((PdStoredEvent *) g_ptr_array_index (events, i))->event_json);
  *last = pd_plan_mode_fold (texts);
  return events->len;
}

#define PLAN_MD "# Greeting fix\\n\\n1. Change Helo to Hello\\n2. Run the test"

/* As an attacker would: a repository carries .plandeck (or .plandeck/plans)
 * as a link to a folder of the person's.  The approved plan went there
 * (g_mkdir_with_parents and g_file_set_contents follow links); now nothing
 * is written where a link points, and the error says why. */
static void
test_artifact_never_through_a_link (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-artifact-link-XXXXXX", &error);
  g_autofree char *work = g_build_filename (dir, "work", NULL);
  g_autofree char *outside = g_build_filename (dir, "outside", NULL);
  g_autofree char *link = g_build_filename (work, ".plandeck", NULL);
  g_autofree char *inner = g_build_filename (work, ".plandeck", "plans", NULL);
  g_autofree char *path = NULL;
  const char *plan = "# Evil plan\n\n- step\n";

  g_assert_no_error (error);
  g_assert_cmpint (g_mkdir (work, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (outside, 0755), ==, 0);
  g_assert_cmpint (symlink (outside, link), ==, 0);

  path = pd_plan_artifact_save (work, "s", plan, NULL, &error);
  g_assert_null (path);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_LOOP);
  g_assert_nonnull (strstr (error->message, ".plandeck is a symbolic link"));
  g_clear_error (&error);
  {
    g_autoptr(GDir) listing = g_dir_open (outside, 0, NULL);

    g_assert_null (g_dir_read_name (listing));
  }

  /* One level down: .plandeck is a folder, plans the link. */
  g_assert_cmpint (unlink (link), ==, 0);
  g_assert_cmpint (g_mkdir (link, 0755), ==, 0);
  g_assert_cmpint (symlink (outside, inner), ==, 0);
  g_assert_null (pd_plan_artifact_save (work, "s", plan, NULL, &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_LOOP);
  g_clear_error (&error);
  {
    g_autoptr(GDir) listing = g_dir_open (outside, 0, NULL);

    g_assert_null (g_dir_read_name (listing));
  }

  /* The folder itself is fine; a link named like the next file is
   * replaced, never written through. */
  g_assert_cmpint (unlink (inner), ==, 0);
  path = pd_plan_artifact_save (work, "s", plan, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (g_str_has_prefix (path, inner));
  g_assert_true (g_file_test (path, G_FILE_TEST_IS_REGULAR));

  pd_test_remove_tree (dir);
}

static void
test_engine_plan_mode_approve (void)
{
  EngineFixture fixture = { 0 }, *f = &fixture;
  Reviewer reviewer = { PD_PLAN_REVIEW_APPROVE, NULL, 0, NULL };
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  g_autofree char *written = NULL;
  g_autofree char *plans_dir = NULL;
  g_autofree char *hello = NULL;
  gboolean active = TRUE;
  const char *content;

  engine_fixture_setup (f, TRUE);
  set_reviewer (f, &reviewer);
  engine_fixture_replay (f,
    "{'turns':["
    " {'content':'Looking first.','tool_calls':["
    "   {'name':'write_file','arguments':{'path':'hello.txt','content':'x'}},"
    "   {'name':'plan','arguments':{'verb':'create','steps':['Fix']}},"
    "   {'name':'plan','arguments':{'verb':'get'}},"
    "   {'name':'write_file','arguments':{'path':'.plandeck/plans/draft.md','content':'# Draft'}},"
    "   {'name':'list_dir','arguments':{}}]},"
    " {'content':'','tool_calls':[{'name':'exit_plan_mode','arguments':{'plan':'" PLAN_MD "'}},"
    "                             {'name':'write_file','arguments':{'path':'hello.txt','content':'too early'}}]},"
    " {'content':'','tool_calls':[{'name':'write_file','arguments':{'path':'hello.txt','content':'Hello'}},"
    "                             {'name':'plan','arguments':{'verb':'create','steps':['Fix']}}]},"
    " {'content':'','tool_calls':[{'name':'plan','arguments':{'verb':'complete','step_id':'s1'}}]},"
    " {'content':'Done.'}]}", NULL);

  result = engine_fixture_run (f, NULL, "/plan Fix the greeting");
  if (result->status != PD_RUN_COMPLETED)
    g_printerr ("run: %s\n", result->final_text);
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);

  messages = stored_messages (f, result->session_id);
  /* In plan mode: writes and checklist edits refused, reads and the plan
   * artifact folder allowed. */
  content = tool_result (messages, "replay_1_1");
  g_assert_nonnull (strstr (content, "plan mode is active: write_file is refused"));
  content = tool_result (messages, "replay_1_2");
  g_assert_true (g_str_has_prefix (content, "plan: the plan tool is the execution checklist and is not allowed in plan mode"));
  g_assert_cmpstr (tool_result (messages, "replay_1_3"), ==, "No active plan.");
  g_assert_true (g_str_has_prefix (tool_result (messages, "replay_1_4"), "created"));

  /* The review: approved; guidance holds for the rest of that batch. */
  g_assert_cmpuint (reviewer.asked, ==, 1);
  g_assert_true (g_str_has_prefix (reviewer.last_plan, "# Greeting fix"));
  content = tool_result (messages, "replay_2_1");
  g_assert_true (g_str_has_prefix (content, "{\"approved\":true}"));
  g_assert_nonnull (strstr (tool_result (messages, "replay_2_2"), "plan mode is active"));

  /* After the boundary: execution. */
  g_assert_true (g_str_has_prefix (tool_result (messages, "replay_3_1"), "created") ||
                 g_str_has_prefix (tool_result (messages, "replay_3_1"), "wrote"));
  g_assert_true (g_str_has_prefix (tool_result (messages, "replay_3_2"), "[Current plan: v1"));
  hello = g_build_filename (f->workdir, "hello.txt", NULL);
  g_assert_true (g_file_get_contents (hello, &written, NULL, NULL));
  g_assert_cmpstr (written, ==, "Hello");

  /* The log: on, then off. */
  g_assert_cmpuint (stored_plan_mode_events (f, result->session_id, &active), ==, 2);
  g_assert_false (active);

  /* The artifact, atomically written and recorded. */
  plans_dir = g_build_filename (f->workdir, ".plandeck", "plans", NULL);
  {
    g_autoptr(GDir) dir = g_dir_open (plans_dir, 0, NULL);
    const char *name;
    guint artifacts = 0;

    while ((name = g_dir_read_name (dir)) != NULL)
      if (g_str_has_suffix (name, "-greeting-fix.md"))
        artifacts++;
    g_assert_cmpuint (artifacts, ==, 1);
  }
  g_assert_cmpuint (count_events (f, PD_EVENT_PLAN_ARTIFACT_SAVED), ==, 1);

  /* The guidance rode the system prompt only while plan mode was on. */
  {
    g_autoptr(JsonArray) first = pd_recorder_request (f->recorder, 0);
    g_autoptr(JsonArray) last = pd_recorder_request (f->recorder, pd_recorder_n_requests (f->recorder) - 1);

    g_assert_nonnull (strstr (msg_content (first, 0), "Plan mode is active"));
    g_assert_null (strstr (msg_content (last, 0), "Plan mode is active"));
    g_assert_null (strstr (msg_content (messages, 0), "Plan mode is active"));
  }

  g_free (reviewer.last_plan);
  engine_fixture_teardown (f);
}

static void
test_engine_keep_planning_and_resume (void)
{
  EngineFixture fixture = { 0 }, *f = &fixture;
  Reviewer reviewer = { PD_PLAN_REVIEW_KEEP_PLANNING, "split the second step", 0, NULL };
  g_autoptr(PdRunResult) first = NULL;
  g_autoptr(PdRunResult) second = NULL;
  g_autoptr(PdRunResult) off = NULL;
  g_autoptr(JsonArray) messages = NULL;
  gboolean active = FALSE;

  engine_fixture_setup (f, TRUE);
  set_reviewer (f, &reviewer);
  engine_fixture_replay (f,
    "{'turns':["
    " {'content':'','tool_calls':[{'name':'exit_plan_mode','arguments':{'plan':'no heading'}}]},"
    " {'content':'','tool_calls':[{'name':'exit_plan_mode','arguments':{'plan':'" PLAN_MD "'}}]},"
    " {'content':'I will revise.'},"
    " {'content':'','tool_calls':[{'name':'shell','arguments':{'command':'echo hi > x'}}]},"
    " {'content':'Still planning.'}]}", NULL);

  first = engine_fixture_run (f, NULL, "/plan Fix it");
  messages = stored_messages (f, first->session_id);
  g_assert_cmpstr (tool_result (messages, "replay_1_1"), ==,
                   "exit_plan_mode requires a non-empty markdown plan starting with a # heading");
  g_assert_cmpstr (tool_result (messages, "replay_2_1"), ==,
                   "The user chose to keep planning; revise the plan and present it again; their feedback: "
                   "split the second step");
  g_assert_cmpuint (stored_plan_mode_events (f, first->session_id, &active), ==, 1);
  g_assert_true (active);

  /* Resume: the fold of the log says plan mode, so the shell is refused. */
  second = engine_fixture_run (f, first->session_id, "Go on");
  g_clear_pointer (&messages, json_array_unref);
  messages = stored_messages (f, first->session_id);
  g_assert_nonnull (strstr (tool_result (messages, "replay_4_1"), "plan mode is active: shell is refused"));
  g_assert_true (pd_engine_get_plan_mode (f->engine, first->session_id, NULL));

  /* Between turns a selection commits at once; "/plan off" alone asks the
   * model nothing. */
  off = engine_fixture_run (f, first->session_id, "/plan off");
  g_assert_cmpstr (off->final_text, ==, "Plan mode off.");
  g_assert_false (pd_engine_get_plan_mode (f->engine, first->session_id, NULL));
  g_assert_cmpint (pd_engine_set_plan_mode (f->engine, first->session_id, FALSE, NULL), ==, PD_PLAN_MODE_NOOP);
  g_assert_cmpint (pd_engine_set_plan_mode (f->engine, first->session_id, TRUE, NULL), ==, PD_PLAN_MODE_COMMITTED);
  g_assert_cmpuint (stored_plan_mode_events (f, first->session_id, &active), ==, 3);
  g_assert_true (active);

  g_free (reviewer.last_plan);
  engine_fixture_teardown (f);
}

/* As an attacker would (att18 N2): plan mode's guard and the question
 * resolve the path when the call is decided, the tool resolved it again
 * when it ran.  A link planted in between (here by the approver itself,
 * which runs after the guard and before the tool) made an approved plan
 * file `.plandeck/plans/x/README.md` replace the repository's README.md,
 * and outside plan mode an approved new `docs/x/notes.md` land in
 * .git/hooks.  The call now runs only if its path still leads to the file
 * it was let through for. */
typedef struct
{
  char *link;
  char *target;
  guint asked;
} Plant;

static gboolean
plant_link_and_approve (const char *tool,
                        const char *summary,
                        const char *preview,
                        gpointer    data)
{
  Plant *plant = data;

  if (plant->asked++ == 0)
    g_assert_cmpint (symlink (plant->target, plant->link), ==, 0);

  return TRUE;
}

static void
test_engine_link_planted_while_asked (void)
{
  EngineFixture fixture = { 0 }, *f = &fixture;
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autofree char *plans = NULL;
  g_autofree char *readme = NULL;
  g_autofree char *readme_text = NULL;
  Plant plant = { 0 };

  engine_fixture_setup (f, TRUE);
  set_reviewer (f, NULL);
  plans = g_build_filename (f->workdir, ".plandeck", "plans", NULL);
  g_assert_cmpint (g_mkdir_with_parents (plans, 0755), ==, 0);
  readme = g_build_filename (f->workdir, "README.md", NULL);
  g_assert_true (g_file_set_contents (readme, "# The project\n", -1, NULL));
  plant.link = g_build_filename (plans, "x", NULL);
  plant.target = g_strdup ("../..");
  pd_approver_set_policy (f->approver, PD_APPROVAL_POLICY_ASK);
  pd_approver_set_func (f->approver, plant_link_and_approve, &plant, NULL);

  engine_fixture_replay (f,
    "{'turns':["
    " {'content':'','tool_calls':["
    "   {'name':'write_file','arguments':{'path':'.plandeck/plans/x/README.md','content':'# Replaced'}}]},"
    " {'content':'Done.'}]}", NULL);

  result = engine_fixture_run (f, NULL, "/plan Look around");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
  messages = stored_messages (f, result->session_id);

  g_assert_cmpuint (plant.asked, ==, 1);
  g_assert_true (g_file_get_contents (readme, &readme_text, NULL, NULL));
  g_assert_cmpstr (readme_text, ==, "# The project\n");
  g_assert_nonnull (strstr (tool_result (messages, "replay_1_1"), "a link changed meanwhile"));

  pd_approver_set_func (f->approver, NULL, NULL, NULL);
  g_free (plant.link);
  g_free (plant.target);
  engine_fixture_teardown (f);
}

static void
test_engine_link_planted_after_approval (void)
{
  EngineFixture fixture = { 0 }, *f = &fixture;
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autofree char *docs = NULL;
  g_autofree char *hooks = NULL;
  g_autofree char *hook = NULL;
  Plant plant = { 0 };

  engine_fixture_setup (f, FALSE);
  docs = g_build_filename (f->workdir, "docs", NULL);
  hooks = g_build_filename (f->workdir, ".git", "hooks", NULL);
  g_assert_cmpint (g_mkdir_with_parents (docs, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (hooks, 0755), ==, 0);
  plant.link = g_build_filename (docs, "x", NULL);
  plant.target = g_strdup ("../.git/hooks");
  pd_approver_set_policy (f->approver, PD_APPROVAL_POLICY_ASK);
  pd_approver_set_func (f->approver, plant_link_and_approve, &plant, NULL);

  engine_fixture_replay (f,
    "{'turns':["
    " {'content':'','tool_calls':["
    "   {'name':'write_file','arguments':{'path':'docs/x/notes.md','content':'echo hi'}}]},"
    " {'content':'Done.'}]}", NULL);

  result = engine_fixture_run (f, NULL, "Take notes");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
  messages = stored_messages (f, result->session_id);

  g_assert_cmpuint (plant.asked, ==, 1);
  hook = g_build_filename (hooks, "notes.md", NULL);
  g_assert_false (g_file_test (hook, G_FILE_TEST_EXISTS));
  g_assert_nonnull (strstr (tool_result (messages, "replay_1_1"), "a link changed meanwhile"));

  pd_approver_set_func (f->approver, NULL, NULL, NULL);
  g_free (plant.link);
  g_free (plant.target);
  engine_fixture_teardown (f);
}

/* As an attacker would (att17 F3): a cloned repository ships links inside
 * its plans folder, `.plandeck/plans/up -> ../..` and `notes -> ../../src`.
 * The path names a plan file, but written through the link it would replace
 * the repository's README, create an AGENTS.md other agents read, or write
 * into src/ — all while plan mode promises to change nothing.  Only a path
 * that reaches the plans folder through no link at all is let through. */
static void
test_engine_no_write_through_plans_link (void)
{
  EngineFixture fixture = { 0 }, *f = &fixture;
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autofree char *plans = NULL;
  g_autofree char *src = NULL;
  g_autofree char *up = NULL;
  g_autofree char *notes = NULL;
  g_autofree char *readme = NULL;
  g_autofree char *readme_text = NULL;
  g_autofree char *agents = NULL;
  g_autofree char *build = NULL;
  g_autofree char *draft = NULL;

  engine_fixture_setup (f, TRUE);
  set_reviewer (f, NULL);
  plans = g_build_filename (f->workdir, ".plandeck", "plans", NULL);
  src = g_build_filename (f->workdir, "src", NULL);
  g_assert_cmpint (g_mkdir_with_parents (plans, 0755), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (src, 0755), ==, 0);
  up = g_build_filename (plans, "up", NULL);
  notes = g_build_filename (plans, "notes", NULL);
  g_assert_cmpint (symlink ("../..", up), ==, 0);
  g_assert_cmpint (symlink ("../../src", notes), ==, 0);
  readme = g_build_filename (f->workdir, "README.md", NULL);
  g_assert_true (g_file_set_contents (readme, "# The project\n", -1, NULL));

  engine_fixture_replay (f,
    "{'turns':["
    " {'content':'','tool_calls':["
    "   {'name':'write_file','arguments':{'path':'.plandeck/plans/up/README.md','content':'# Replaced'}},"
    "   {'name':'write_file','arguments':{'path':'.plandeck/plans/up/AGENTS.md','content':'# Obey'}},"
    "   {'name':'edit_file','arguments':{'path':'.plandeck/plans/up/README.md','old_string':'project','new_string':'x'}},"
    "   {'name':'write_file','arguments':{'path':'.plandeck/plans/notes/BUILD.md','content':'# Build'}},"
    "   {'name':'write_file','arguments':{'path':'.plandeck/plans/draft.md','content':'# Draft'}}]},"
    " {'content':'Done.'}]}", NULL);

  result = engine_fixture_run (f, NULL, "/plan Look around");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
  messages = stored_messages (f, result->session_id);

  for (guint i = 1; i <= 4; i++)
    {
      g_autofree char *id = g_strdup_printf ("replay_1_%u", i);

      g_assert_nonnull (strstr (tool_result (messages, id), "plan mode is active"));
    }
  g_assert_true (g_str_has_prefix (tool_result (messages, "replay_1_5"), "created"));

  g_assert_true (g_file_get_contents (readme, &readme_text, NULL, NULL));
  g_assert_cmpstr (readme_text, ==, "# The project\n");
  agents = g_build_filename (f->workdir, "AGENTS.md", NULL);
  build = g_build_filename (src, "BUILD.md", NULL);
  draft = g_build_filename (plans, "draft.md", NULL);
  g_assert_false (g_file_test (agents, G_FILE_TEST_EXISTS));
  g_assert_false (g_file_test (build, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (draft, G_FILE_TEST_IS_REGULAR));

  engine_fixture_teardown (f);
}

static void
test_engine_no_channel_and_outside (void)
{
  EngineFixture fixture = { 0 }, *f = &fixture;
  g_autoptr(PdRunResult) outside = NULL;
  g_autoptr(PdRunResult) inside = NULL;
  g_autoptr(JsonArray) messages = NULL;

  engine_fixture_setup (f, TRUE);
  set_reviewer (f, NULL);
  engine_fixture_replay (f,
    "{'turns':["
    " {'content':'','tool_calls':[{'name':'exit_plan_mode','arguments':{'plan':'" PLAN_MD "'}}]},"
    " {'content':'Fine.'},"
    " {'content':'','tool_calls':[{'name':'exit_plan_mode','arguments':{'plan':'" PLAN_MD "'}}]},"
    " {'content':'Waiting.'}]}", NULL);

  outside = engine_fixture_run (f, NULL, "Do it");
  messages = stored_messages (f, outside->session_id);
  g_assert_cmpstr (tool_result (messages, "replay_1_1"), ==, "exit_plan_mode is only available in plan mode");

  inside = engine_fixture_run (f, outside->session_id, "/plan Think first");
  g_clear_pointer (&messages, json_array_unref);
  messages = stored_messages (f, outside->session_id);
  g_assert_true (g_str_has_prefix (tool_result (messages, "replay_3_1"), "no review channel is available"));
  g_assert_true (pd_engine_get_plan_mode (f->engine, outside->session_id, NULL));

  engine_fixture_teardown (f);
}

/* The model's arguments are untrusted: a path or a verb of another type
 * (an object, an array) is refused like any other call in plan mode, and
 * read as no verb when a plan call fails outside it; json-glib is never
 * asked for the string of an object (a critical, fatal here). */
static void
test_engine_mistyped_arguments (void)
{
  EngineFixture fixture = { 0 }, *f = &fixture;
  g_autoptr(PdRunResult) planning = NULL;
  g_autoptr(PdRunResult) outside = NULL;
  g_autoptr(JsonArray) messages = NULL;
  guint failed_before;

  engine_fixture_setup (f, TRUE);
  set_reviewer (f, NULL);
  engine_fixture_replay (f,
    "{'turns':["
    " {'content':'','tool_calls':["
    "   {'name':'write_file','arguments':{'path':{'a':1},'content':'x'}},"
    "   {'name':'edit_file','arguments':{'path':['hello.txt'],'old':'a','new':'b'}},"
    "   {'name':'plan','arguments':{'verb':{'get':true}}}]},"
    " {'content':'Planned.'},"
    " {'content':'','tool_calls':[{'name':'plan','arguments':{'verb':['create'],'steps':['Fix']}}]},"
    " {'content':'Done.'}]}", NULL);

  planning = engine_fixture_run (f, NULL, "/plan Look first");
  messages = stored_messages (f, planning->session_id);
  g_assert_nonnull (strstr (tool_result (messages, "replay_1_1"), "plan mode is active: write_file is refused"));
  g_assert_nonnull (strstr (tool_result (messages, "replay_1_2"), "plan mode is active: edit_file is refused"));
  g_assert_true (g_str_has_prefix (tool_result (messages, "replay_1_3"),
                                   "plan: the plan tool is the execution checklist and is not allowed in plan mode"));

  failed_before = count_events (f, PD_EVENT_PLAN_VALIDATION_FAILED);
  g_assert_cmpint (pd_engine_set_plan_mode (f->engine, planning->session_id, FALSE, NULL), ==, PD_PLAN_MODE_COMMITTED);
  outside = engine_fixture_run (f, planning->session_id, "Go on");
  g_clear_pointer (&messages, json_array_unref);
  messages = stored_messages (f, planning->session_id);
  g_assert_nonnull (tool_result (messages, "replay_3_1"));
  g_assert_true (g_str_has_prefix (tool_result (messages, "replay_3_1"), "plan:"));
  g_assert_cmpuint (count_events (f, PD_EVENT_PLAN_VALIDATION_FAILED), ==, failed_before + 1);

  engine_fixture_teardown (f);
}

static const char *
digest_of (JsonArray *messages)
{
  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      const char *content = msg_content (messages, i);

      if (content != NULL && g_str_has_prefix (content, "[Compacted earlier context:"))
        return content;
    }
  return NULL;
}

/* Compaction keeps the approved plan as its path in the digest — or says
 * the file is gone; it never invents one. */
static void
compaction_case (gboolean remove_artifact)
{
  EngineFixture fixture = { 0 }, *f = &fixture;
  Reviewer reviewer = { PD_PLAN_REVIEW_APPROVE, NULL, 0, NULL };
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GString) big = g_string_new (NULL);
  g_autoptr(GString) recording = g_string_new (NULL);
  PdEngineOptions options = { .context_budget = 3000 };
  const char *digest;

  engine_fixture_setup (f, TRUE);
  set_reviewer (f, &reviewer);
  for (guint i = 0; i < 100; i++)
    g_string_append_printf (big, "line %03u of a large file that fills up the context\n", i);
  for (guint i = 1; i <= 4; i++)
    {
      g_autofree char *name = g_strdup_printf ("%u.txt", i);
      write_file (f, name, big->str);
    }

  g_string_append (recording,
    "{'turns':["
    " {'content':'','tool_calls':[{'name':'exit_plan_mode','arguments':{'plan':'" PLAN_MD "'}}]},");
  if (remove_artifact)
    g_string_append (recording, " {'content':'','tool_calls':[{'name':'shell','arguments':{'command':'rm -r .plandeck'}}]},");
  g_string_append (recording,
    " {'content':'','tool_calls':[{'name':'read_file','arguments':{'path':'1.txt'}},{'name':'read_file','arguments':{'path':'2.txt'}}]},"
    " {'content':'','tool_calls':[{'name':'read_file','arguments':{'path':'3.txt'}},{'name':'read_file','arguments':{'path':'4.txt'}}]},"
    " {'content':'Read.'}]}");
  engine_fixture_replay (f, recording->str, &options);
  f->recorder->digest = g_strdup ("Digest.");

  result = engine_fixture_run (f, NULL, "/plan Read four files");
  messages = stored_messages (f, result->session_id);
  digest = digest_of (messages);
  g_assert_nonnull (digest);
  g_assert_nonnull (strstr (digest, "Approved plan: "));
  g_assert_nonnull (strstr (digest, "-greeting-fix.md"));
  if (remove_artifact)
    g_assert_nonnull (strstr (digest, "(missing: the file could not be read)"));
  else
    g_assert_null (strstr (digest, "(missing"));

  g_free (reviewer.last_plan);
  engine_fixture_teardown (f);
}

static void
test_compaction_keeps_artifact_path (void)
{
  compaction_case (FALSE);
}

static void
test_compaction_reports_missing_artifact (void)
{
  compaction_case (TRUE);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/plan-mode/fold", test_fold);
  g_test_add_func ("/pd/plan-mode/set-idle-commits", test_set_idle_commits);
  g_test_add_func ("/pd/plan-mode/pending-in-turn", test_pending_in_turn);
  g_test_add_func ("/pd/plan-mode/exit-is-silent", test_exit_is_silent);
  g_test_add_func ("/pd/plan-mode/artifact", test_artifact_names_and_atomic_write);
  g_test_add_func ("/pd/plan-mode/artifact-never-through-a-link", test_artifact_never_through_a_link);
  g_test_add_func ("/pd/plan-mode/engine/approve", test_engine_plan_mode_approve);
  g_test_add_func ("/pd/plan-mode/engine/keep-planning-and-resume", test_engine_keep_planning_and_resume);
  g_test_add_func ("/pd/plan-mode/engine/no-channel-and-outside", test_engine_no_channel_and_outside);
  g_test_add_func ("/pd/plan-mode/engine/no-write-through-plans-link", test_engine_no_write_through_plans_link);
  g_test_add_func ("/pd/plan-mode/engine/link-planted-while-asked", test_engine_link_planted_while_asked);
  g_test_add_func ("/pd/plan-mode/engine/link-planted-after-approval", test_engine_link_planted_after_approval);
  g_test_add_func ("/pd/plan-mode/engine/mistyped-arguments", test_engine_mistyped_arguments);
  g_test_add_func ("/pd/plan-mode/engine/compaction-keeps-artifact-path", test_compaction_keeps_artifact_path);
  g_test_add_func ("/pd/plan-mode/engine/compaction-reports-missing-artifact", test_compaction_reports_missing_artifact);

  return g_test_run ();
}
