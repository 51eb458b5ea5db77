/* test-plan-diff.c: what changed between two plan versions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "pd-plan.h"

static PdPlanStep *
add_step (PdPlanState      *state,
          const char       *id,
          const char       *title,
          PdPlanStepStatus  status)
{
  PdPlanStep *step = pd_plan_step_new (id, title);

  step->status = status;
  g_ptr_array_add (state->steps, step);
  return step;
}

static PdPlanCheck *
add_check (PdPlanStep        *step,
           const char        *id,
           PdPlanCheckStatus  status,
           const char        *call_id)
{
  PdPlanCheck *check = pd_plan_check_new (id, "tests pass", "shell", "{\"command\":\"make check\"}");

  check->status = status;
  check->call_id = g_strdup (call_id);
  g_ptr_array_add (step->checks, check);
  return check;
}

static PdPlanState *
base_plan (void)
{
  PdPlanState *state = pd_plan_state_new ();
  PdPlanStep *s2;

  state->version = 2;
  add_step (state, "s1", "Read the parser", PD_PLAN_STEP_DONE);
  s2 = add_step (state, "s2", "Fix the parser", PD_PLAN_STEP_PENDING);
  add_check (s2, "c1", PD_PLAN_CHECK_PENDING, NULL);
  add_step (state, "s3", "Write docs", PD_PLAN_STEP_PENDING);

  return state;
}

static void
test_identical_is_empty (void)
{
  g_autoptr(PdPlanState) a = base_plan ();
  g_autoptr(PdPlanState) b = pd_plan_state_copy (a);
  g_autoptr(PdPlanDiff) diff = NULL;

  b->version = 3;
  diff = pd_plan_diff_new (a, b);
  g_assert_true (pd_plan_diff_is_empty (diff));
  g_assert_cmpint (diff->old_version, ==, 2);
  g_assert_cmpint (diff->new_version, ==, 3);
}

static void
test_first_version_adds_everything (void)
{
  g_autoptr(PdPlanState) b = base_plan ();
  g_autoptr(PdPlanDiff) diff = pd_plan_diff_new (NULL, b);
  const PdPlanDiffEntry *entry;

  g_assert_cmpint (diff->old_version, ==, 0);
  g_assert_cmpuint (diff->entries->len, ==, 3);
  g_assert_cmpuint (pd_plan_diff_count (diff, PD_PLAN_DIFF_STEP_ADDED), ==, 3);
  entry = g_ptr_array_index (diff->entries, 1);
  g_assert_cmpstr (entry->step_id, ==, "s2");
  g_assert_cmpstr (entry->new_value, ==, "Fix the parser");
  g_assert_null (entry->old_value);
}

static void
test_added_removed_status (void)
{
  g_autoptr(PdPlanState) a = base_plan ();
  g_autoptr(PdPlanState) b = pd_plan_state_copy (a);
  g_autoptr(PdPlanDiff) diff = NULL;
  const PdPlanDiffEntry *entry;

  b->version = 3;
  g_ptr_array_remove_index (b->steps, 2);                              /* s3 removed */
  ((PdPlanStep *) g_ptr_array_index (b->steps, 1))->status = PD_PLAN_STEP_IN_PROGRESS;
  add_step (b, "s4", "Add a <b>regression</b> test", PD_PLAN_STEP_PENDING);

  diff = pd_plan_diff_new (a, b);
  g_assert_cmpuint (diff->entries->len, ==, 3);

  /* Removed steps come first, then the new plan in its order. */
  entry = g_ptr_array_index (diff->entries, 0);
  g_assert_cmpint (entry->kind, ==, PD_PLAN_DIFF_STEP_REMOVED);
  g_assert_cmpstr (entry->step_id, ==, "s3");
  g_assert_cmpstr (entry->old_value, ==, "Write docs");

  entry = g_ptr_array_index (diff->entries, 1);
  g_assert_cmpint (entry->kind, ==, PD_PLAN_DIFF_STEP_STATUS);
  g_assert_cmpstr (entry->step_id, ==, "s2");
  g_assert_cmpstr (entry->old_value, ==, "pending");
  g_assert_cmpstr (entry->new_value, ==, "in_progress");

  entry = g_ptr_array_index (diff->entries, 2);
  g_assert_cmpint (entry->kind, ==, PD_PLAN_DIFF_STEP_ADDED);
  g_assert_cmpstr (entry->step_id, ==, "s4");
  g_assert_cmpstr (entry->new_value, ==, "Add a <b>regression</b> test");
}

static void
test_moved_step_keeps_identity (void)
{
  g_autoptr(PdPlanState) a = base_plan ();
  g_autoptr(PdPlanState) b = pd_plan_state_copy (a);
  g_autoptr(PdPlanDiff) diff = NULL;
  PdPlanStep *moved;

  moved = g_ptr_array_steal_index (b->steps, 0);
  g_ptr_array_add (b->steps, moved);
  diff = pd_plan_diff_new (a, b);
  g_assert_true (pd_plan_diff_is_empty (diff));
}

static void
test_title_and_note (void)
{
  g_autoptr(PdPlanState) a = base_plan ();
  g_autoptr(PdPlanState) b = pd_plan_state_copy (a);
  g_autoptr(PdPlanDiff) diff = NULL;
  PdPlanStep *s1 = g_ptr_array_index (b->steps, 0);
  const PdPlanDiffEntry *entry;

  g_free (s1->title);
  s1->title = g_strdup ("Read the lexer");
  pd_plan_step_set_note (s1, "only the tokenizer");
  diff = pd_plan_diff_new (a, b);

  g_assert_cmpuint (diff->entries->len, ==, 2);
  entry = pd_plan_diff_find (diff, PD_PLAN_DIFF_STEP_TITLE, "s1", NULL);
  g_assert_nonnull (entry);
  g_assert_cmpstr (entry->old_value, ==, "Read the parser");
  g_assert_cmpstr (entry->new_value, ==, "Read the lexer");
  entry = pd_plan_diff_find (diff, PD_PLAN_DIFF_STEP_NOTE, "s1", NULL);
  g_assert_nonnull (entry);
  g_assert_cmpstr (entry->old_value, ==, "");
  g_assert_cmpstr (entry->new_value, ==, "only the tokenizer");
}

static void
test_check_evidence (void)
{
  g_autoptr(PdPlanState) a = base_plan ();
  g_autoptr(PdPlanState) b = pd_plan_state_copy (a);
  g_autoptr(PdPlanState) c = NULL;
  g_autoptr(PdPlanDiff) diff = NULL;
  g_autoptr(PdPlanDiff) back = NULL;
  PdPlanCheck *check;
  const PdPlanDiffEntry *entry;

  check = g_ptr_array_index (((PdPlanStep *) g_ptr_array_index (b->steps, 1))->checks, 0);
  check->status = PD_PLAN_CHECK_PASSED;
  check->call_id = g_strdup ("call_x");
  diff = pd_plan_diff_new (a, b);

  g_assert_cmpuint (diff->entries->len, ==, 1);
  entry = pd_plan_diff_find (diff, PD_PLAN_DIFF_CHECK_EVIDENCE, "s2", "c1");
  g_assert_nonnull (entry);
  g_assert_cmpstr (entry->old_value, ==, "pending");
  g_assert_cmpstr (entry->new_value, ==, "passed");
  g_assert_null (entry->old_detail);
  g_assert_cmpstr (entry->new_detail, ==, "call_x");

  /* New evidence of the same status is a change too. */
  c = pd_plan_state_copy (b);
  check = g_ptr_array_index (((PdPlanStep *) g_ptr_array_index (c->steps, 1))->checks, 0);
  g_free (check->call_id);
  check->call_id = g_strdup ("call_y");
  back = pd_plan_diff_new (b, c);
  entry = pd_plan_diff_find (back, PD_PLAN_DIFF_CHECK_EVIDENCE, "s2", "c1");
  g_assert_nonnull (entry);
  g_assert_cmpstr (entry->old_value, ==, "passed");
  g_assert_cmpstr (entry->new_value, ==, "passed");
  g_assert_cmpstr (entry->old_detail, ==, "call_x");
  g_assert_cmpstr (entry->new_detail, ==, "call_y");
}

static void
test_check_added_removed_replaced (void)
{
  g_autoptr(PdPlanState) a = base_plan ();
  g_autoptr(PdPlanState) b = pd_plan_state_copy (a);
  g_autoptr(PdPlanDiff) diff = NULL;
  PdPlanStep *s2 = g_ptr_array_index (b->steps, 1);
  PdPlanStep *s1 = g_ptr_array_index (b->steps, 0);
  PdPlanCheck *check = g_ptr_array_index (s2->checks, 0);
  const PdPlanDiffEntry *entry;

  g_free (check->arguments);
  check->arguments = g_strdup ("{\"command\":\"make test\"}");
  add_check (s1, "c2", PD_PLAN_CHECK_PENDING, NULL);
  diff = pd_plan_diff_new (a, b);

  g_assert_cmpuint (diff->entries->len, ==, 2);
  entry = pd_plan_diff_find (diff, PD_PLAN_DIFF_CHECK_ADDED, "s1", "c2");
  g_assert_nonnull (entry);
  g_assert_cmpstr (entry->new_value, ==, "pending");
  g_assert_cmpstr (entry->new_detail, ==, "tests pass");
  entry = pd_plan_diff_find (diff, PD_PLAN_DIFF_CHECK_REQUIREMENT, "s2", "c1");
  g_assert_nonnull (entry);
  g_assert_cmpstr (entry->old_value, ==, "shell {\"command\":\"make check\"}");
  g_assert_cmpstr (entry->new_value, ==, "shell {\"command\":\"make test\"}");

  /* And back: the check is removed. */
  g_clear_pointer (&diff, pd_plan_diff_free);
  diff = pd_plan_diff_new (b, a);
  entry = pd_plan_diff_find (diff, PD_PLAN_DIFF_CHECK_REMOVED, "s1", "c2");
  g_assert_nonnull (entry);
  g_assert_cmpstr (entry->old_value, ==, "pending");
  g_assert_null (pd_plan_diff_find (diff, PD_PLAN_DIFF_CHECK_ADDED, NULL, NULL));
}

static void
test_revision (void)
{
  g_autoptr(PdPlanState) a = base_plan ();
  g_autoptr(PdPlanState) b = pd_plan_state_copy (a);
  g_autoptr(PdPlanState) c = NULL;
  g_autoptr(PdPlanDiff) diff = NULL;
  g_autoptr(PdPlanDiff) same = NULL;
  const PdPlanDiffEntry *entry;

  b->revision = pd_plan_revision_new ("the schema changed");
  pd_plan_revision_add (b->revision, "dropped s3");
  pd_plan_revision_add (b->revision, "added s4");
  diff = pd_plan_diff_new (a, b);

  g_assert_cmpuint (diff->entries->len, ==, 1);
  entry = g_ptr_array_index (diff->entries, 0);
  g_assert_cmpint (entry->kind, ==, PD_PLAN_DIFF_REVISION);
  g_assert_null (entry->step_id);
  g_assert_null (entry->old_value);
  g_assert_cmpstr (entry->new_value, ==, "the schema changed");
  g_assert_cmpstr (entry->new_detail, ==, "dropped s3; added s4");
  g_assert_cmpstr (pd_plan_diff_kind_to_string (entry->kind), ==, "revision");

  /* The same revision carried into the next version is not a change. */
  c = pd_plan_state_copy (b);
  same = pd_plan_diff_new (b, c);
  g_assert_true (pd_plan_diff_is_empty (same));
}

static void
test_copy (void)
{
  g_autoptr(PdPlanState) b = base_plan ();
  g_autoptr(PdPlanDiff) diff = pd_plan_diff_new (NULL, b);
  g_autoptr(PdPlanDiff) copy = pd_plan_diff_copy (diff);

  g_assert_cmpuint (copy->entries->len, ==, diff->entries->len);
  g_assert_cmpint (copy->new_version, ==, 2);
  g_assert_nonnull (pd_plan_diff_find (copy, PD_PLAN_DIFF_STEP_ADDED, "s3", NULL));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/plan-diff/identical-is-empty", test_identical_is_empty);
  g_test_add_func ("/pd/plan-diff/first-version-adds-everything", test_first_version_adds_everything);
  g_test_add_func ("/pd/plan-diff/added-removed-status", test_added_removed_status);
  g_test_add_func ("/pd/plan-diff/moved-step-keeps-identity", test_moved_step_keeps_identity);
  g_test_add_func ("/pd/plan-diff/title-and-note", test_title_and_note);
  g_test_add_func ("/pd/plan-diff/check-evidence", test_check_evidence);
  g_test_add_func ("/pd/plan-diff/check-added-removed-replaced", test_check_added_removed_replaced);
  g_test_add_func ("/pd/plan-diff/revision", test_revision);
  g_test_add_func ("/pd/plan-diff/copy", test_copy);

  return g_test_run ();
}
