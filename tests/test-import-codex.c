/* test-import-codex.c: Codex rollouts replayed into checklists.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "pd-codex-reader.h"
#include "pd-import-test.h"

#define META "{\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"abc\",\"cwd\":\"/w\"}}"
#define CALL(id, args) "{\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"update_plan\",\"arguments\":\"" args "\",\"call_id\":\"" id "\"}}"
#define OUT(id, text) "{\"timestamp\":\"2026-01-01T00:00:02.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"" id "\",\"output\":\"" text "\"}}"
#define PLAN_AB "{\\\"plan\\\":[{\\\"step\\\":\\\"A\\\",\\\"status\\\":\\\"completed\\\"},{\\\"status\\\":\\\"in_progress\\\",\\\"step\\\":\\\"B\\\"}]}"
#define PLAN_X "{\\\"plan\\\":[{\\\"step\\\":\\\"X\\\",\\\"status\\\":\\\"pending\\\"}]}"

static PdImportedSession *
replay (const char * const *lines)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *path = pd_import_test_write (dir, "rollout-2026-01-01T00-00-00-abc.jsonl", lines);
  g_autoptr(GError) error = NULL;
  PdImportedSession *session = pd_codex_read (path, &error);

  g_assert_no_error (error);
  pd_test_remove_tree (dir);
  return session;
}

/* The project's own rollouts (tests/fixtures/README.md gives the oracle). */

#define SINCE_FILTER "sessions/2026/03/14/rollout-2026-03-14T09-12-40-019ceb9e-8409-72b7-bb14-1b6f441e1673.jsonl"
#define NO_PLAN "sessions/2026/03/16/rollout-2026-03-16T15-02-11-019cf72b-3c1c-773a-8239-ac018110b3b1.jsonl"

static void
test_own_fixtures (void)
{
  g_autofree char *dir = pd_import_test_fixtures ("codex");
  g_autofree char *since = g_build_filename (dir, SINCE_FILTER, NULL);
  g_autofree char *no_plan = g_build_filename (dir, NO_PLAN, NULL);
  g_autoptr(PdImportedSession) session = NULL;
  g_autoptr(PdImportedSession) tail = NULL;
  g_autoptr(PdImportedSession) other = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *full_list = NULL;
  g_autofree char *tail_list = NULL;
  const PdArtifactPlan *plan;
  GStatBuf st;

  session = pd_codex_read (since, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pd_imported_session_get_source (session), ==, PD_IMPORT_SOURCE_CODEX);
  g_assert_cmpstr (pd_imported_session_get_title (session), ==,
                   "Add a --since filter to `logtail show` that takes an ISO time and skips older entries.");
  g_assert_cmpstr (pd_imported_session_get_cwd (session), ==, "/home/dev/src/logtail");
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (session)), ==, PD_CHECKLIST_ORIGIN_CODEX_PLAN);
  /* The code-mode scripts of the resumed session have the last word. */
  pd_import_test_assert_list (session, "Parse durations like 2h, 3d and 1w:completed|Accept durations in --since:in_progress|"
                        "Tests for durations:pending");
  /* The refused status and the script without a literal plan. */
  g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==, 6);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->ignored_updates, ==, 2);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->skipped_lines, ==, 0);
  g_assert_cmpuint (pd_imported_session_get_plans (session)->len, ==, 1);
  plan = pd_imported_session_get_plans (session)->pdata[0];
  g_assert_cmpint (plan->status, ==, PD_ARTIFACT_PLAN_PROPOSED);
  g_assert_true (g_str_has_prefix (plan->markdown, "# Relative --since values\n\n1. Parse `<number><unit>`"));
  g_assert_true (g_str_has_suffix (plan->markdown, "ISO unchanged.\n"));

  /* Read from its end, as a rollout over the threshold: the same list. */
  g_assert_cmpint (g_stat (since, &st), ==, 0);
  g_assert_cmpint (st.st_size, >, 96 * 1024);
  _pd_import_set_tail_limits (64 * 1024, 32 * 1024);
  tail = pd_codex_read (since, NULL);
  _pd_import_set_tail_limits (0, 0);
  g_assert_nonnull (tail);
  g_assert_true (pd_imported_session_get_stats (tail)->tail_read);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->bytes_read, <, (guint64) st.st_size);
  full_list = pd_import_test_describe (session);
  tail_list = pd_import_test_describe (tail);
  g_assert_cmpstr (tail_list, ==, full_list);
  g_assert_cmpstr (pd_imported_session_get_title (tail), ==, pd_imported_session_get_title (session));

  /* Many record types, none of them a plan: no plan, nothing broken. */
  other = pd_codex_read (no_plan, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (other)), ==, PD_CHECKLIST_ORIGIN_NONE);
  g_assert_cmpuint (pd_imported_session_get_stats (other)->skipped_lines, ==, 0);
  g_assert_cmpuint (pd_imported_session_get_stats (other)->lines, ==, 27);
  g_assert_cmpuint (pd_imported_session_get_plans (other)->len, ==, 0);
  g_assert_cmpstr (pd_imported_session_get_title (other), ==,
                   "Why does `logtail tail` use a whole core after the log file is rotated?");
}

/* The shared recordings: an extra check when they are there. */
static void
test_shared_fixtures (void)
{
  g_autofree char *dir = pd_import_test_shared_fixtures ("codex");
  g_autofree char *synthetic = NULL;
  g_autofree char *small = NULL;
  g_autoptr(PdImportedSession) session = NULL;
  g_autoptr(PdImportedSession) other = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *plans;

  if (dir == NULL)
    return;

  synthetic = g_build_filename (dir, "SYNTHETIC_update_plan_variants.jsonl", NULL);
  session = pd_codex_read (synthetic, &error);
  g_assert_no_error (error);
  /* The README's oracle: [completed, completed, in_progress] after turn 1. */
  pd_import_test_assert_list (session, "Read the CLI parser:completed|Add --json flag:completed|Run tests:in_progress");
  g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==, 3);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->ignored_updates, ==, 1);
  g_assert_cmpstr (pd_imported_session_get_cwd (session), ==, "/workspace/demo");
  plans = pd_imported_session_get_plans (session);
  g_assert_cmpuint (plans->len, ==, 1);
  g_assert_cmpstr (((PdArtifactPlan *) plans->pdata[0])->markdown, ==,
                   "# YAML output\n\n1. Add serde_yaml\n2. Add --yaml flag\n3. Tests\n");

  small = g_build_filename (dir, "agent-sessions_codex_small_0.146.jsonl", NULL);
  other = pd_codex_read (small, &error);
  g_assert_no_error (error);
  /* Many record types, none of them a plan call: no plan, nothing broken. */
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (other)), ==, PD_CHECKLIST_ORIGIN_NONE);
  g_assert_cmpuint (pd_imported_session_get_stats (other)->skipped_lines, ==, 0);
  g_assert_cmpuint (pd_imported_session_get_stats (other)->lines, ==, 118);
  g_assert_cmpuint (pd_imported_session_get_plans (other)->len, ==, 1);
  g_assert_cmpstr (pd_imported_session_get_id (other), ==, "019fc8be-3658-7ca3-9e29-000000000000");
  g_assert_cmpstr (pd_imported_session_get_cwd (other), ==, "/tmp/repo");
}

static void
test_error_outputs (void)
{
  const char *lines[] = {
    META,
    CALL ("c1", PLAN_AB), OUT ("c1", "Plan updated"),
    /* An error output changes nothing. */
    CALL ("c2", PLAN_X), OUT ("c2", "failed to parse function arguments: missing field"),
    CALL ("c3", PLAN_X),
    "{\"timestamp\":\"2026-01-01T00:00:03.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"c3\",\"output\":{\"content\":\"no\",\"success\":false}}}",
    /* Malformed arguments, whatever the output says. */
    CALL ("c4", "{\\\"plan\\\":[{\\\"step\\\":1}]}"), OUT ("c4", "Plan updated"),
    /* Not answered yet. */
    CALL ("c5", PLAN_X),
    NULL,
  };
  g_autoptr(PdImportedSession) session = replay (lines);

  pd_import_test_assert_list (session, "A:completed|B:in_progress");
  g_assert_cmpuint (pd_imported_session_get_stats (session)->applied_updates, ==, 1);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->ignored_updates, ==, 3);
}

/* A resumed or forked rollout repeats session_meta lines after its own
 * (Codex 0.146's small fixture has seven): the first names the session.
 * The last was taken, so a real rollout's id and folder read as another's
 * ("[trimmed for fixture]" in the fixture; tried as a new user would). */
static void
test_first_meta_wins (void)
{
  const char *lines[] = {
    META,
    CALL ("c1", PLAN_AB), OUT ("c1", "Plan updated"),
    "{\"timestamp\":\"2026-01-01T00:00:05.000Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"parent-one\",\"cwd\":\"/elsewhere\"}}",
    NULL,
  };
  g_autoptr(PdImportedSession) session = replay (lines);

  g_assert_cmpstr (pd_imported_session_get_id (session), ==, "abc");
  g_assert_cmpstr (pd_imported_session_get_cwd (session), ==, "/w");
  pd_import_test_assert_list (session, "A:completed|B:in_progress");
}

static void
test_exec_literal (void)
{
  struct { const char *script; const char *expected; } cases[] = {
    { "const r = await tools.update_plan({plan:[{step:'a',status:\"completed\"},{step:`b`,status:'pending',},],}); text(r);",
      "{\"plan\":[{\"step\":\"a\",\"status\":\"completed\"},{\"step\":\"b\",\"status\":\"pending\"}]}" },
    { "await tools.update_plan( { explanation: 'it\\'s', plan: [] } )", "{\"explanation\":\"it's\",\"plan\":[]}" },
    { "tools.update_plan({plan: steps})", NULL },
    { "tools.update_plan({plan:[]}); tools.update_plan({plan:[]});", NULL },
    { "tools.update_plan({plan:[{step:`${x}`,status:'pending'}]})", NULL },
    { "tools.update_plan({plan:[{step:'a',status:'pending'}]}", NULL },
    { "console.log('no plan here')", NULL },
    { "tools.update_plan({plan:[{step:'a\\", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) node = pd_codex_extract_exec_plan (cases[i].script);
      g_autofree char *json = node ? json_to_string (node, FALSE) : NULL;
      g_assert_cmpstr (json, ==, cases[i].expected);
    }
}

#define EXEC(id, script) "{\"timestamp\":\"2026-01-01T00:00:04.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"custom_tool_call\",\"status\":\"completed\",\"call_id\":\"" id "\",\"name\":\"exec\",\"input\":\"" script "\"}}"
#define EXEC_OUT(id, text) "{\"timestamp\":\"2026-01-01T00:00:05.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"custom_tool_call_output\",\"call_id\":\"" id "\",\"output\":[{\"type\":\"input_text\",\"text\":\"" text "\"}]}}"

static void
test_exec_form (void)
{
  const char *lines[] = {
    META,
    EXEC ("e1", "await tools.update_plan({plan:[{step:'A',status:'completed'},{step:'B',status:'in_progress'}]});"),
    EXEC_OUT ("e1", "Script completed\\nPlan updated"),
    EXEC ("e2", "await tools.update_plan({plan:[{step:'X',status:'pending'}]});"),
    EXEC_OUT ("e2", "Script failed\\nError: boom"),
    EXEC ("e3", "await tools.update_plan({plan:myPlan});"),
    EXEC_OUT ("e3", "Script completed"),
    NULL,
  };
  g_autoptr(PdImportedSession) session = replay (lines);

  pd_import_test_assert_list (session, "A:completed|B:in_progress");
  g_assert_cmpuint (pd_imported_session_get_stats (session)->ignored_updates, ==, 2);
}

#define TURN(id) "{\"timestamp\":\"2026-01-01T00:00:06.000Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"task_started\",\"turn_id\":\"" id "\",\"collaboration_mode_kind\":\"plan\"}}"
#define SAY(text) "{\"timestamp\":\"2026-01-01T00:00:07.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"" text "\"}]}}"

static void
test_proposed_plans (void)
{
  const char *lines[] = {
    META,
    TURN ("t1"),
    /* Tags not on their own lines are not a block. */
    SAY ("see <proposed_plan> inline </proposed_plan>"),
    SAY ("Draft\\n<proposed_plan>\\n# One\\n</proposed_plan>\\nand\\n<proposed_plan>\\n# Two\\n</proposed_plan>"),
    "{\"timestamp\":\"2026-01-01T00:00:08.000Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"item_completed\",\"turn_id\":\"t1\",\"item\":{\"type\":\"Plan\",\"id\":\"t1-plan\",\"text\":\"# Final\\n\"}}}",
    TURN ("t2"),
    SAY ("<proposed_plan>\\n# Next turn\\n- a\\n</proposed_plan>"),
    NULL,
  };
  g_autoptr(PdImportedSession) session = replay (lines);
  GPtrArray *plans = pd_imported_session_get_plans (session);

  g_assert_cmpuint (plans->len, ==, 2);
  g_assert_cmpstr (((PdArtifactPlan *) plans->pdata[0])->markdown, ==, "# Final\n");
  g_assert_cmpstr (((PdArtifactPlan *) plans->pdata[1])->markdown, ==, "# Next turn\n- a\n");
  /* Plan documents are never a checklist; free text is never interpreted. */
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (session)), ==, PD_CHECKLIST_ORIGIN_NONE);
}

static void
test_bad_lines (void)
{
  const char *lines[] = {
    "garbage",
    META,
    "{\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"update_plan\"",
    "{\"type\":\"mystery\",\"payload\":{\"update_plan\":1}}",
    CALL ("c1", PLAN_AB), OUT ("c1", "Plan updated"),
    "{\"type\":\"event_msg\",\"payload\":{\"type\":\"plan_update\",\"plan\":[{\"step\":\"\xff\",\"status\":\"pending\"}]}}",
    NULL,
  };
  g_autoptr(PdImportedSession) session = replay (lines);

  pd_import_test_assert_list (session, "A:completed|B:in_progress");
  g_assert_cmpuint (pd_imported_session_get_stats (session)->skipped_lines, ==, 3);
  g_assert_cmpuint (pd_imported_session_get_stats (session)->lines, ==, 7);
}

/* The fixtures rewritten as spaced JSON ({"type": "…"}, as Python's
 * json.dumps writes it): the same sessions, times and messages. */
static void
test_spaced_json (void)
{
  static const char * const files[] = { SINCE_FILTER, NO_PLAN, NULL };

  pd_import_test_assert_spaced_same ("codex", "codex", files);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-codex/own-fixtures", test_own_fixtures);
  g_test_add_func ("/pd/import-codex/shared-fixtures", test_shared_fixtures);
  g_test_add_func ("/pd/import-codex/error-outputs", test_error_outputs);
  g_test_add_func ("/pd/import-codex/first-meta-wins", test_first_meta_wins);
  g_test_add_func ("/pd/import-codex/exec-literal", test_exec_literal);
  g_test_add_func ("/pd/import-codex/exec-form", test_exec_form);
  g_test_add_func ("/pd/import-codex/proposed-plans", test_proposed_plans);
  g_test_add_func ("/pd/import-codex/bad-lines", test_bad_lines);

  g_test_add_func ("/pd/import-codex/spaced-json", test_spaced_json);

  return g_test_run ();
}
