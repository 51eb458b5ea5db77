/* test-plan-status.c: the chat/terminal rendering of a plan.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "pd-plan.h"

static PdPlanState *
state_with (guint       n,
            const char *note)
{
  PdPlanState *state = pd_plan_state_new ();

  state->version = 3;
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *id = g_strdup_printf ("s%u", i + 1);
      g_autofree char *title = g_strdup_printf ("Step number %u", i + 1);
      PdPlanStep *step = pd_plan_step_new (id, title);

      step->status = (PdPlanStepStatus) (i % 4);
      pd_plan_step_set_note (step, note);
      g_ptr_array_add (state->steps, step);
    }

  return state;
}

static void
test_no_plan (void)
{
  g_autoptr(PdPlanState) empty = pd_plan_state_new ();
  g_autofree char *a = pd_plan_format_status (NULL, PD_PLAN_STATUS_MAX_CHARS);
  g_autofree char *b = pd_plan_format_status (empty, PD_PLAN_STATUS_MAX_CHARS);

  g_assert_cmpstr (a, ==, "No active plan in this session.");
  g_assert_cmpstr (b, ==, "No active plan in this session.");
}

static void
test_lines_and_glyphs (void)
{
  g_autoptr(PdPlanState) state = state_with (4, "");
  g_autofree char *text = NULL;

  pd_plan_step_set_note (g_ptr_array_index (state->steps, 3), "waiting on the schema owners");
  text = pd_plan_format_status (state, PD_PLAN_STATUS_MAX_CHARS);

  g_assert_cmpstr (text, ==,
                   "📋 Plan — v3 · 1/4 done · 1 blocked\n"
                   "⬜ s1 Step number 1\n"
                   "🔄 s2 Step number 2\n"
                   "✅ s3 Step number 3\n"
                   "⛔ s4 Step number 4 — waiting on the schema owners");
}

static void
test_no_blocked_segment (void)
{
  g_autoptr(PdPlanState) state = state_with (3, "");
  g_autofree char *text = pd_plan_format_status (state, PD_PLAN_STATUS_MAX_CHARS);

  g_assert_true (g_str_has_prefix (text, "📋 Plan — v3 · 1/3 done\n"));
}

static void
test_note_truncated (void)
{
  g_autofree char *long_note = g_strnfill (200, 'n');
  g_autoptr(PdPlanState) state = state_with (1, long_note);
  g_autofree char *text = pd_plan_format_status (state, PD_PLAN_STATUS_MAX_CHARS);
  const char *line = strchr (text, '\n') + 1;
  const char *note = strstr (line, " — ") + strlen (" — ");

  g_assert_cmpint (g_utf8_strlen (note, -1), ==, PD_PLAN_STATUS_NOTE_CHARS);
  g_assert_true (g_str_has_suffix (note, "…"));
}

static void
test_bound_drops_whole_lines (void)
{
  g_autofree char *note = g_strnfill (70, 'x');
  g_autoptr(PdPlanState) state = state_with (50, note);
  g_autofree char *text = pd_plan_format_status (state, 1000);
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  guint n = g_strv_length (lines);
  guint shown = n - 2;   /* header and trailer */
  g_autofree char *trailer = g_strdup_printf ("%u more step(s) omitted", 50 - shown);

  g_assert_cmpint (g_utf8_strlen (text, -1), <=, 1000);
  g_assert_cmpuint (shown, >, 0);
  g_assert_cmpuint (shown, <, 50);
  g_assert_cmpstr (lines[n - 1], ==, trailer);

  /* Every shown line is whole: it ends with the full truncated note. */
  for (guint i = 1; i < n - 1; i++)
    g_assert_true (g_str_has_suffix (lines[i], note));
}

static void
test_fits_exactly_without_trailer (void)
{
  g_autoptr(PdPlanState) state = state_with (2, "");
  g_autofree char *full = pd_plan_format_status (state, PD_PLAN_STATUS_MAX_CHARS);
  g_autofree char *bounded = pd_plan_format_status (state, (guint) g_utf8_strlen (full, -1));

  g_assert_cmpstr (full, ==, bounded);
}

static void
test_default_bound (void)
{
  g_autofree char *note = g_strnfill (80, 'y');
  g_autoptr(PdPlanState) state = state_with (50, note);
  g_autofree char *text = pd_plan_format_status (state, PD_PLAN_STATUS_MAX_CHARS);

  g_assert_cmpint (g_utf8_strlen (text, -1), <=, 3800);
  g_assert_nonnull (strstr (text, "more step(s) omitted"));
}

/* A step done with a check that never passed (its test run was denied)
 * says it is unverified; a step whose checks passed, or that is not done
 * yet, reads as before. */
static void
test_unverified_done_step (void)
{
  g_autoptr(PdPlanState) state = state_with (3, "");
  PdPlanStep *done = g_ptr_array_index (state->steps, 2);
  PdPlanStep *pending = g_ptr_array_index (state->steps, 0);
  PdPlanCheck *check;
  g_autofree char *text = NULL;

  check = pd_plan_check_new ("tests", "the tests pass", "shell", "{\"command\":\"make check\"}");
  check->status = PD_PLAN_CHECK_BLOCKED;
  g_ptr_array_add (done->checks, check);
  check = pd_plan_check_new ("lint", "lint is clean", "shell", "{\"command\":\"make lint\"}");
  check->status = PD_PLAN_CHECK_PASSED;
  g_ptr_array_add (done->checks, check);
  check = pd_plan_check_new ("build", "it builds", "shell", "{\"command\":\"make\"}");
  check->status = PD_PLAN_CHECK_FAILED;
  g_ptr_array_add (done->checks, check);
  g_ptr_array_add (pending->checks, pd_plan_check_new ("t", "pending check", "shell", "{\"command\":\"true\"}"));
  text = pd_plan_format_status (state, PD_PLAN_STATUS_MAX_CHARS);

  g_assert_cmpstr (text, ==,
                   "📋 Plan — v3 · 1/3 done\n"
                   "⬜ s1 Step number 1\n"
                   "🔄 s2 Step number 2\n"
                   "✅ s3 Step number 3 · unverified: check tests blocked, check build failed");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/plan/status/no-plan", test_no_plan);
  g_test_add_func ("/pd/plan/status/lines-and-glyphs", test_lines_and_glyphs);
  g_test_add_func ("/pd/plan/status/no-blocked-segment", test_no_blocked_segment);
  g_test_add_func ("/pd/plan/status/note-truncated", test_note_truncated);
  g_test_add_func ("/pd/plan/status/bound-drops-whole-lines", test_bound_drops_whole_lines);
  g_test_add_func ("/pd/plan/status/fits-exactly", test_fits_exactly_without_trailer);
  g_test_add_func ("/pd/plan/status/default-bound", test_default_bound);
  g_test_add_func ("/pd/plan/status/unverified-done-step", test_unverified_done_step);

  return g_test_run ();
}
