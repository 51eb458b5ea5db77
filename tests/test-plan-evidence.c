/* test-plan-evidence.c: acceptance-check evidence (seed 000, wire formats §3).
 *
 * Evidence comes only from finished tool calls whose tool name and canonical
 * arguments match a declared check, declared in an earlier batch.  Anything
 * that may have written something since invalidates it conservatively.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-plan-evidence"

#include "config.h"

#include <string.h>

#include <glib.h>

#include "pd-plan.h"

typedef struct
{
  PdPlanStore *store;
  guint        notifications;
  gint64       last_version;
} Fixture;

static void
record_change (const PdPlanChange *change,
               gpointer            user_data)
{
  Fixture *f = user_data;

  f->notifications++;
  g_assert_cmpint (change->version, ==, f->last_version + 1);
  f->last_version = change->version;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  memset (f, 0, sizeof *f);
  f->store = pd_plan_store_new (12, 4000);
  pd_plan_store_set_change_func (f->store, record_change, f, NULL);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_clear_object (&f->store);
}

static void
exec_ok (Fixture    *f,
         const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *result = pd_plan_store_execute (f->store, json, &error);

  if (error != NULL)
    g_error ("call %s failed: %s", json, error->message);
}

static void
exec_err (Fixture    *f,
          const char *json,
          int         code,
          const char *expected)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *result = pd_plan_store_execute (f->store, json, &error);

  g_assert_null (result);
  g_assert_error (error, PD_PLAN_ERROR, code);
  g_assert_cmpstr (error->message, ==, expected);
}

/* Records one observation; returns whether the plan changed. */
static gboolean
observe_full (Fixture       *f,
              const char    *tool,
              const char    *args_json,
              gboolean       ok,
              const char    *call_id,
              PdToolEffects  effects,
              gboolean       denied)
{
  g_autoptr(JsonNode) args = pd_json_parse (args_json, -1, NULL);
  PdPlanObservation obs = { tool, args, ok, call_id, effects, denied };
  gint64 before = pd_plan_store_get_version (f->store);
  guint notifications = f->notifications;
  gboolean changed;

  g_assert_nonnull (args);
  changed = pd_plan_store_record_outcome (f->store, &obs);

  /* Exactly one version and one notification per effective change. */
  g_assert_cmpint (pd_plan_store_get_version (f->store), ==, before + (changed ? 1 : 0));
  g_assert_cmpuint (f->notifications, ==, notifications + (changed ? 1 : 0));
  return changed;
}

static gboolean
observe (Fixture    *f,
         const char *tool,
         const char *args_json,
         gboolean    ok,
         const char *call_id)
{
  return observe_full (f, tool, args_json, ok, call_id, PD_TOOL_EFFECTS_WRITE, FALSE);
}

static const PdPlanStep *
step_of (PdPlanState *state,
         const char  *id)
{
  PdPlanStep *step = pd_plan_state_find_step (state, id, NULL);

  g_assert_nonnull (step);
  return step;
}

/* "status[:call_id]" of check @check_id of step @step_id. */
static char *
check_summary (Fixture    *f,
               const char *step_id,
               const char *check_id)
{
  g_autoptr(PdPlanState) state = pd_plan_store_snapshot (f->store);
  const PdPlanCheck *check = pd_plan_step_find_check (step_of (state, step_id), check_id);

  g_assert_nonnull (check);
  if (check->call_id)
    return g_strdup_printf ("%s:%s", pd_plan_check_status_to_string (check->status), check->call_id);
  return g_strdup (pd_plan_check_status_to_string (check->status));
}

static void
assert_check (Fixture    *f,
              const char *step_id,
              const char *check_id,
              const char *expected)
{
  g_autofree char *summary = check_summary (f, step_id, check_id);

  g_assert_cmpstr (summary, ==, expected);
}

static void
assert_step_status (Fixture    *f,
                    const char *step_id,
                    const char *expected)
{
  g_autoptr(PdPlanState) state = pd_plan_store_snapshot (f->store);

  g_assert_cmpstr (pd_plan_step_status_to_string (step_of (state, step_id)->status), ==, expected);
}

/* Step t checks a shell call with nested arguments; step u checks a read. */
#define PLAN "{\"verb\":\"create\",\"steps\":[\"Plain\"," \
  "{\"id\":\"t\",\"title\":\"Tests\",\"checks\":[{\"id\":\"go\",\"description\":\"tests pass\",\"tool\":\"shell\"," \
  "\"arguments\":{\"command\":\"make check\",\"env\":{\"B\":1,\"A\":[1,{\"y\":2,\"x\":1}]}}}]}," \
  "{\"id\":\"u\",\"title\":\"Docs\",\"checks\":[{\"id\":\"doc\",\"description\":\"built\",\"tool\":\"docs\",\"arguments\":{\"n\":1}}," \
  "{\"id\":\"lint\",\"description\":\"lint\",\"tool\":\"lint\",\"arguments\":{}}]}]}"
#define GO_ARGS "{\"command\":\"make check\",\"env\":{\"B\":1,\"A\":[1,{\"y\":2,\"x\":1}]}}"

static void
seed (Fixture *f)
{
  exec_ok (f, PLAN);
  pd_plan_store_end_batch (f->store);
}

/* --- matching ----------------------------------------------------------- */

static void
test_exact_match (Fixture       *f,
                  gconstpointer  data)
{
  seed (f);

  /* Key order at every level does not matter, and neither does 1 vs 1.0. */
  g_assert_true (observe_full (f, "shell", "{\"env\":{\"A\":[1.0,{\"x\":1,\"y\":2e0}],\"B\":1},\"command\":\"make check\"}",
                               TRUE, "c1", PD_TOOL_EFFECTS_WRITE, FALSE));
  assert_check (f, "t", "go", "passed:c1");

  /* Array order does, and so does any other difference: those are
   * non-matching writes that invalidate the evidence. */
  g_assert_true (observe (f, "shell", "{\"command\":\"make check\",\"env\":{\"B\":1,\"A\":[{\"y\":2,\"x\":1},1]}}", TRUE, "c2"));
  assert_check (f, "t", "go", "pending");

  g_assert_true (observe (f, "shell", GO_ARGS, TRUE, "c3"));
  assert_check (f, "t", "go", "passed:c3");
  g_assert_true (observe (f, "Shell", GO_ARGS, TRUE, "c4"));
  assert_check (f, "t", "go", "pending");

  g_assert_true (observe (f, "shell", GO_ARGS, TRUE, "c5"));
  g_assert_true (observe (f, "shell", "{\"command\":\"make check\",\"env\":{\"B\":1,\"A\":[1,{\"y\":2,\"x\":1}]},\"extra\":null}", TRUE, "c6"));
  assert_check (f, "t", "go", "pending");

  g_assert_true (observe (f, "shell", GO_ARGS, TRUE, "c7"));
  g_assert_true (observe (f, "shell", "{\"command\":\"make check \",\"env\":{\"B\":1,\"A\":[1,{\"y\":2,\"x\":1}]}}", TRUE, "c8"));
  assert_check (f, "t", "go", "pending");

  {
    g_autoptr(JsonNode) args = pd_json_parse ("{\"env\":{\"B\":1.0,\"A\":[1,{\"x\":1,\"y\":2}]},\"command\":\"make check\"}", -1, NULL);
    g_autoptr(JsonNode) other = pd_json_parse ("{\"command\":\"make\"}", -1, NULL);

    g_assert_true (pd_plan_store_matches_check (f->store, "shell", args));
    g_assert_false (pd_plan_store_matches_check (f->store, "shell", other));
    g_assert_false (pd_plan_store_matches_check (f->store, "bash", args));
  }
}

/* A check declared in the current batch waits for the next one. */
static void
test_same_batch (Fixture       *f,
                 gconstpointer  data)
{
  exec_ok (f, PLAN);
  g_assert_false (observe_full (f, "shell", GO_ARGS, TRUE, "c1", PD_TOOL_EFFECTS_READ, FALSE));
  assert_check (f, "t", "go", "pending");

  pd_plan_store_end_batch (f->store);
  g_assert_true (observe (f, "shell", GO_ARGS, TRUE, "c2"));
  assert_check (f, "t", "go", "passed:c2");

  /* Checks appended by a revise in this batch wait too, older ones do not. */
  exec_ok (f, "{\"verb\":\"revise\",\"reason\":\"r\",\"operations\":[{\"kind\":\"edit\",\"step_id\":\"s1\","
              "\"checks\":[{\"id\":\"new\",\"description\":\"d\",\"tool\":\"fresh\",\"arguments\":{}}]}]}");
  g_assert_false (observe_full (f, "fresh", "{}", TRUE, "c3", PD_TOOL_EFFECTS_READ, FALSE));
  assert_check (f, "s1", "new", "pending");
  g_assert_true (observe_full (f, "docs", "{\"n\":1}", TRUE, "c4", PD_TOOL_EFFECTS_READ, FALSE));
  assert_check (f, "u", "doc", "passed:c4");

  pd_plan_store_end_batch (f->store);
  g_assert_true (observe_full (f, "fresh", "{}", TRUE, "c5", PD_TOOL_EFFECTS_READ, FALSE));
  assert_check (f, "s1", "new", "passed:c5");
}

static void
test_latest_wins (Fixture       *f,
                  gconstpointer  data)
{
  seed (f);

  g_assert_true (observe (f, "shell", GO_ARGS, FALSE, "c1"));
  assert_check (f, "t", "go", "failed:c1");
  g_assert_true (observe (f, "shell", GO_ARGS, TRUE, "c2"));
  assert_check (f, "t", "go", "passed:c2");
  /* The same outcome from the same call again changes nothing. */
  g_assert_false (observe (f, "shell", GO_ARGS, TRUE, "c2"));
  g_assert_true (observe (f, "shell", GO_ARGS, TRUE, "c3"));
  assert_check (f, "t", "go", "passed:c3");
  g_assert_true (observe (f, "shell", GO_ARGS, FALSE, "c4"));
  assert_check (f, "t", "go", "failed:c4");
}

/* A failing matching call first invalidates all other evidence. */
static void
test_failure_invalidates (Fixture       *f,
                          gconstpointer  data)
{
  seed (f);

  g_assert_true (observe_full (f, "docs", "{\"n\":1}", TRUE, "d1", PD_TOOL_EFFECTS_READ, FALSE));
  g_assert_true (observe_full (f, "lint", "{}", TRUE, "l1", PD_TOOL_EFFECTS_READ, FALSE));
  exec_ok (f, "{\"verb\":\"complete\",\"step_id\":\"u\"}");
  assert_step_status (f, "u", "done");

  g_assert_true (observe (f, "shell", GO_ARGS, FALSE, "c1"));
  assert_check (f, "t", "go", "failed:c1");
  assert_check (f, "u", "doc", "pending");
  assert_check (f, "u", "lint", "pending");
  assert_step_status (f, "u", "in_progress");
}

/* A call that matches nothing and may write invalidates everything. */
static void
test_write_invalidates (Fixture       *f,
                        gconstpointer  data)
{
  PdToolEffects effects[] = { PD_TOOL_EFFECTS_WRITE, PD_TOOL_EFFECTS_UNKNOWN };

  seed (f);

  for (guint i = 0; i < G_N_ELEMENTS (effects); i++)
    {
      g_assert_true (observe (f, "shell", GO_ARGS, TRUE, "c1"));
      g_assert_true (observe (f, "docs", "{\"n\":1}", TRUE, "d1"));
      g_assert_true (observe (f, "lint", "{}", TRUE, "l1"));
      exec_ok (f, "{\"verb\":\"update\",\"updates\":[{\"id\":\"t\",\"status\":\"done\"},{\"id\":\"u\",\"status\":\"done\"},"
                  "{\"id\":\"s1\",\"status\":\"done\"}]}");

      /* A read leaves the evidence alone. */
      g_assert_false (observe_full (f, "read_file", "{\"path\":\"x\"}", TRUE, "r1", PD_TOOL_EFFECTS_READ, FALSE));
      g_assert_false (observe_full (f, "read_file", "{\"path\":\"x\"}", FALSE, "r2", PD_TOOL_EFFECTS_READ, FALSE));
      assert_check (f, "t", "go", "passed:c1");

      g_assert_true (observe_full (f, "write_file", "{\"path\":\"x\"}", TRUE, "w1", effects[i], FALSE));
      assert_check (f, "t", "go", "pending");
      assert_check (f, "u", "doc", "pending");
      assert_check (f, "u", "lint", "pending");
      assert_step_status (f, "t", "in_progress");
      assert_step_status (f, "u", "in_progress");
      /* Unchecked steps are advisory: they stay done. */
      assert_step_status (f, "s1", "done");

      /* Nothing left to invalidate: no new version. */
      g_assert_false (observe_full (f, "write_file", "{\"path\":\"y\"}", TRUE, "w2", effects[i], FALSE));
    }
}

static void
test_plan_calls_ignored (Fixture       *f,
                         gconstpointer  data)
{
  seed (f);
  g_assert_true (observe (f, "shell", GO_ARGS, TRUE, "c1"));
  g_assert_false (observe (f, "plan", "{\"verb\":\"get\"}", TRUE, "p1"));
  g_assert_false (observe (f, "plan", GO_ARGS, FALSE, "p2"));
  assert_check (f, "t", "go", "passed:c1");
}

/* Without checks, outcomes never change anything. */
static void
test_unchecked_plan (Fixture       *f,
                     gconstpointer  data)
{
  g_assert_false (observe (f, "shell", "{}", TRUE, "c0"));
  exec_ok (f, "{\"verb\":\"create\",\"steps\":[\"A\"]}");
  exec_ok (f, "{\"verb\":\"complete\",\"step_id\":\"s1\"}");
  pd_plan_store_end_batch (f->store);
  g_assert_false (observe (f, "write_file", "{\"p\":1}", TRUE, "c1"));
  g_assert_false (pd_plan_store_invalidate_checks (f->store));
  g_assert_cmpint (pd_plan_store_get_version (f->store), ==, 2);
}

/* --- denied and completion ---------------------------------------------- */

static void
test_denied (Fixture       *f,
             gconstpointer  data)
{
  g_autoptr(GPtrArray) pending = NULL;

  seed (f);

  g_assert_true (observe_full (f, "docs", "{\"n\":1}", FALSE, "d1", PD_TOOL_EFFECTS_WRITE, TRUE));
  assert_check (f, "u", "doc", "blocked:d1");

  /* A denied call that matches nothing never ran: nothing to invalidate. */
  g_assert_true (observe (f, "shell", GO_ARGS, TRUE, "c1"));
  g_assert_false (observe_full (f, "rm", "{\"path\":\"/\"}", FALSE, "x1", PD_TOOL_EFFECTS_WRITE, TRUE));
  assert_check (f, "t", "go", "passed:c1");

  pending = pd_plan_store_pending_checks (f->store);
  g_assert_cmpuint (pending->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (pending, 0), ==, "u/lint");

  /* The blocked check does not gate completion; the pending one does. */
  exec_err (f, "{\"verb\":\"complete\",\"step_id\":\"u\"}", PD_PLAN_ERROR_CHECKS_PENDING,
            "plan: complete: step \"u\" has checks that have not passed \xe2\x80\x94 retryable: true; "
            "blocking checks and satisfying calls: lint: call lint with {}");
  g_assert_true (observe_full (f, "lint", "{}", TRUE, "l1", PD_TOOL_EFFECTS_READ, FALSE));
  exec_ok (f, "{\"verb\":\"complete\",\"step_id\":\"u\"}");
  assert_step_status (f, "u", "done");
}

static void
test_completion_gate (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(GPtrArray) pending = NULL;

  seed (f);

  pending = pd_plan_store_pending_checks (f->store);
  g_assert_cmpuint (pending->len, ==, 3);
  g_assert_cmpstr (g_ptr_array_index (pending, 0), ==, "t/go");
  g_assert_cmpstr (g_ptr_array_index (pending, 1), ==, "u/doc");
  g_assert_cmpstr (g_ptr_array_index (pending, 2), ==, "u/lint");

  exec_err (f, "{\"verb\":\"complete\",\"step_id\":\"t\"}", PD_PLAN_ERROR_CHECKS_PENDING,
            "plan: complete: step \"t\" has checks that have not passed \xe2\x80\x94 retryable: true; "
            "blocking checks and satisfying calls: go: call shell with "
            "{\"command\":\"make check\",\"env\":{\"A\":[1,{\"x\":1,\"y\":2}],\"B\":1}}");

  g_assert_true (observe_full (f, "lint", "{}", FALSE, "l1", PD_TOOL_EFFECTS_READ, FALSE));
  exec_err (f, "{\"verb\":\"update\",\"updates\":[{\"id\":\"u\",\"status\":\"done\"}]}", PD_PLAN_ERROR_CHECKS_PENDING,
            "plan: update: step \"u\" has checks that have not passed \xe2\x80\x94 retryable: true; "
            "blocking checks and satisfying calls: doc: call docs with {\"n\":1}; "
            "lint: call lint with {} (last run failed)");

  /* Other statuses stay free for checked steps. */
  exec_ok (f, "{\"verb\":\"update\",\"updates\":[{\"id\":\"u\",\"status\":\"blocked\"}]}");
  assert_step_status (f, "u", "blocked");

  g_assert_true (observe (f, "shell", GO_ARGS, TRUE, "c1"));
  exec_ok (f, "{\"verb\":\"complete\",\"step_id\":\"t\"}");
  assert_step_status (f, "t", "done");
  pending = (g_ptr_array_unref (pending), pd_plan_store_pending_checks (f->store));
  g_assert_cmpuint (pending->len, ==, 2);
}

/* --- restore ------------------------------------------------------------ */

static void
test_restore (Fixture       *f,
              gconstpointer  data)
{
  g_autoptr(PdPlanState) saved = NULL;
  g_autoptr(PdPlanState) restored = NULL;
  g_autoptr(PdPlanState) again = NULL;
  guint notifications;

  seed (f);
  g_assert_true (observe (f, "shell", GO_ARGS, TRUE, "c1"));
  g_assert_true (observe_full (f, "docs", "{\"n\":1}", FALSE, "d1", PD_TOOL_EFFECTS_READ, TRUE));
  exec_ok (f, "{\"verb\":\"update\",\"updates\":[{\"id\":\"t\",\"status\":\"done\"},{\"id\":\"s1\",\"status\":\"done\"}]}");
  saved = pd_plan_store_snapshot (f->store);
  g_assert_cmpint (saved->version, ==, 4);

  pd_plan_store_reset (f->store);
  g_assert_false (pd_plan_store_has_plan (f->store));
  notifications = f->notifications;

  pd_plan_store_restore (f->store, saved);
  restored = pd_plan_store_snapshot (f->store);
  g_assert_cmpint (restored->version, ==, 5);
  assert_check (f, "t", "go", "pending");
  assert_check (f, "u", "doc", "pending");
  assert_step_status (f, "t", "in_progress");
  assert_step_status (f, "s1", "done");
  g_assert_cmpuint (f->notifications, ==, notifications);

  /* Restoring an already downgraded state changes nothing: same version. */
  pd_plan_store_restore (f->store, restored);
  again = pd_plan_store_snapshot (f->store);
  g_assert_cmpint (again->version, ==, 5);
  g_assert_cmpuint (f->notifications, ==, notifications);

  /* Restored checks count as declared before: the next call satisfies them. */
  f->last_version = 5;
  g_assert_true (observe (f, "shell", GO_ARGS, TRUE, "c2"));
  assert_check (f, "t", "go", "passed:c2");
}

static void
test_call_ids (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *long_id = g_strnfill (129, 'a');
  g_autofree char *max_id = g_strnfill (128, 'b');
  g_autofree char *expected = NULL;

  seed (f);
  g_assert_true (observe (f, "shell", GO_ARGS, TRUE, max_id));
  expected = g_strdup_printf ("passed:%s", max_id);
  assert_check (f, "t", "go", expected);
  g_free (expected);

  g_assert_true (observe (f, "shell", GO_ARGS, TRUE, long_id));
  {
    g_autofree char *digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, long_id, -1);
    expected = g_strdup_printf ("passed:sha256:%s", digest);
  }
  assert_check (f, "t", "go", expected);
  g_free (expected);

  g_assert_true (observe (f, "shell", GO_ARGS, TRUE, "call 1\n"));
  {
    g_autofree char *digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, "call 1\n", -1);
    expected = g_strdup_printf ("passed:sha256:%s", digest);
  }
  assert_check (f, "t", "go", expected);

  g_assert_true (observe (f, "shell", GO_ARGS, TRUE, "toolu_01:A-b.c_d"));
  assert_check (f, "t", "go", "passed:toolu_01:A-b.c_d");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add ("/pd/plan/evidence/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("exact-match", test_exact_match);
  ADD ("same-batch", test_same_batch);
  ADD ("latest-wins", test_latest_wins);
  ADD ("failure-invalidates", test_failure_invalidates);
  ADD ("write-invalidates", test_write_invalidates);
  ADD ("plan-calls-ignored", test_plan_calls_ignored);
  ADD ("unchecked-plan", test_unchecked_plan);
  ADD ("denied", test_denied);
  ADD ("completion-gate", test_completion_gate);
  ADD ("restore", test_restore);
  ADD ("call-ids", test_call_ids);
#undef ADD

  return g_test_run ();
}
