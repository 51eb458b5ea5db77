/* test-hints.c: stall detection and failure-driven reassessment.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "pd-reassessment.h"
#include "pd-stall-detector.h"

static guint
fires_in (PdStallDetector *detector,
          guint            calls,
          const char      *tool,
          const char      *result,
          GArray          *at)
{
  guint fires = 0;

  for (guint i = 1; i <= calls; i++)
    {
      g_autoptr(PdStall) stall = pd_stall_detector_observe (detector, tool, "{\"a\":1}", result, FALSE, FALSE);

      if (stall != NULL)
        {
          fires++;
          if (at)
            g_array_append_val (at, i);
        }
    }

  return fires;
}

static void
test_stall_doubling_intervals (void)
{
  g_autoptr(PdStallDetector) detector = pd_stall_detector_new (3);
  g_autoptr(GArray) at = g_array_new (FALSE, FALSE, sizeof (guint));

  /* Fires after 3 identical calls, then 6 more, then 12 more. */
  g_assert_cmpuint (fires_in (detector, 21, "read_file", "same", at), ==, 3);
  g_assert_cmpuint (g_array_index (at, guint, 0), ==, 3);
  g_assert_cmpuint (g_array_index (at, guint, 1), ==, 9);
  g_assert_cmpuint (g_array_index (at, guint, 2), ==, 21);
}

static void
test_stall_changing_results_never_fire (void)
{
  g_autoptr(PdStallDetector) detector = pd_stall_detector_new (3);

  for (guint i = 0; i < 30; i++)
    {
      g_autofree char *result = g_strdup_printf ("progress %u%%", i);
      g_autoptr(PdStall) stall = pd_stall_detector_observe (detector, "bg_status", "{}", result, FALSE, FALSE);
      g_assert_null (stall);
    }
}

static void
test_stall_background_poll_threshold (void)
{
  g_autoptr(PdStallDetector) detector = pd_stall_detector_new (3);
  g_autoptr(GArray) at = g_array_new (FALSE, FALSE, sizeof (guint));

  g_assert_cmpuint (fires_in (detector, 9, "bg_status", "running", at), ==, 1);
  g_assert_cmpuint (g_array_index (at, guint, 0), ==, 9);
}

static void
test_stall_hint_text (void)
{
  g_autoptr(PdStallDetector) detector = pd_stall_detector_new (3);
  g_autoptr(PdStall) first = NULL;
  g_autoptr(PdStall) second = NULL;
  g_autofree char *text1 = NULL;
  g_autofree char *text2 = NULL;

  for (guint i = 0; i < 3 && first == NULL; i++)
    first = pd_stall_detector_observe (detector, "write_file", "{\"path\":\"a\"}", "ok", TRUE, FALSE);
  g_assert_nonnull (first);
  g_assert_true (first->escalate);
  g_assert_false (first->again);
  text1 = pd_stall_format_hint (first, "s2", "s3");
  g_assert_cmpstr (text1, ==,
                   "[plandeck stall: repeated identical call (3xwrite_file)] The same call keeps producing the same "
                   "outcome. Stop retrying this class of action; report what blocks it, or move to work that does not "
                   "need it. Plan: in_progress=s2 next_non_mutating=s3.");

  for (guint i = 0; i < 6 && second == NULL; i++)
    second = pd_stall_detector_observe (detector, "write_file", "{\"path\":\"a\"}", "ok", TRUE, FALSE);
  g_assert_nonnull (second);
  g_assert_true (second->again);
  text2 = pd_stall_format_hint (second, NULL, NULL);
  g_assert_true (g_str_has_prefix (text2, "[plandeck stall: repeated identical call (9xwrite_file, again)]"));
  g_assert_null (strstr (text2, "Plan:"));
}

static void
test_reassess_repeated_check_failure (void)
{
  g_autoptr(PdReassessment) r = pd_reassessment_new ();

  /* Two failures in one batch count once. */
  pd_reassessment_check_outcome (r, "s1/c1", FALSE);
  pd_reassessment_check_outcome (r, "s1/c1", FALSE);
  g_assert_null (pd_reassessment_end_batch (r, TRUE));
  pd_reassessment_check_outcome (r, "s1/c1", FALSE);
  g_assert_null (pd_reassessment_end_batch (r, TRUE));
  pd_reassessment_check_outcome (r, "s1/c1", FALSE);
  g_assert_cmpstr (pd_reassessment_end_batch (r, TRUE), ==, PD_REASSESS_REPEATED_CHECK_FAILURE);
}

static void
test_reassess_success_resets_check (void)
{
  g_autoptr(PdReassessment) r = pd_reassessment_new ();

  pd_reassessment_check_outcome (r, "s1/c1", FALSE);
  pd_reassessment_end_batch (r, TRUE);
  pd_reassessment_check_outcome (r, "s1/c1", FALSE);
  pd_reassessment_end_batch (r, TRUE);
  pd_reassessment_check_outcome (r, "s1/c1", TRUE);
  pd_reassessment_end_batch (r, TRUE);
  pd_reassessment_check_outcome (r, "s1/c1", FALSE);
  g_assert_null (pd_reassessment_end_batch (r, TRUE));
}

static void
test_reassess_needs_open_plan (void)
{
  g_autoptr(PdReassessment) r = pd_reassessment_new ();

  for (guint i = 0; i < 3; i++)
    {
      pd_reassessment_check_outcome (r, "s1/c1", FALSE);
      g_assert_null (pd_reassessment_end_batch (r, FALSE));
    }
}

static void
failing_batch (PdReassessment *r,
               const char     *fp1,
               const char     *fp2,
               const char     *klass)
{
  pd_reassessment_tool_outcome (r, fp1, FALSE, klass);
  if (fp2)
    pd_reassessment_tool_outcome (r, fp2, FALSE, klass);
}

static void
test_reassess_varied_failures (void)
{
  g_autoptr(PdReassessment) r = pd_reassessment_new ();

  failing_batch (r, "a", NULL, "not_found");
  g_assert_null (pd_reassessment_end_batch (r, TRUE));
  /* A plan-only batch neither advances nor breaks the streak. */
  g_assert_null (pd_reassessment_end_batch (r, TRUE));
  failing_batch (r, "b", NULL, "not_found");
  g_assert_null (pd_reassessment_end_batch (r, TRUE));
  failing_batch (r, "a", NULL, "not_found");
  g_assert_cmpstr (pd_reassessment_end_batch (r, TRUE), ==, PD_REASSESS_VARIED_TOOL_FAILURES);
}

static void
test_reassess_same_fingerprint_is_not_varied (void)
{
  g_autoptr(PdReassessment) r = pd_reassessment_new ();

  for (guint i = 0; i < 5; i++)
    {
      failing_batch (r, "a", NULL, "timeout");
      g_assert_null (pd_reassessment_end_batch (r, TRUE));
    }
}

static void
test_reassess_mixed_batch_resets (void)
{
  g_autoptr(PdReassessment) r = pd_reassessment_new ();

  failing_batch (r, "a", "b", "timeout");
  pd_reassessment_end_batch (r, TRUE);
  failing_batch (r, "a", "b", "timeout");
  pd_reassessment_end_batch (r, TRUE);
  failing_batch (r, "a", NULL, "timeout");
  pd_reassessment_tool_outcome (r, "c", TRUE, NULL);
  g_assert_null (pd_reassessment_end_batch (r, TRUE));
  failing_batch (r, "a", "b", "timeout");
  g_assert_null (pd_reassessment_end_batch (r, TRUE));
}

static void
test_reassess_cooldown_and_cap (void)
{
  g_autoptr(PdReassessment) r = pd_reassessment_new ();
  guint hints = 0;
  GArray *at = g_array_new (FALSE, FALSE, sizeof (guint));

  /* A failing check every batch: hints at most every third batch, two at most. */
  for (guint i = 1; i <= 20; i++)
    {
      pd_reassessment_check_outcome (r, "s1/c1", FALSE);
      if (pd_reassessment_end_batch (r, TRUE))
        {
          hints++;
          g_array_append_val (at, i);
        }
    }

  g_assert_cmpuint (hints, ==, 2);
  g_assert_cmpuint (g_array_index (at, guint, 1) - g_array_index (at, guint, 0), >=, 3);
  g_array_unref (at);

  pd_reassessment_reset (r);
  for (guint i = 0; i < 3; i++)
    pd_reassessment_check_outcome (r, "s1/c1", FALSE), (void) pd_reassessment_end_batch (r, TRUE);
}

static void
test_reassess_hint_text (void)
{
  g_autofree char *text = pd_reassessment_format_hint (PD_REASSESS_VARIED_TOOL_FAILURES);

  g_assert_true (g_str_has_prefix (text, "[plandeck plan reassessment: varied_tool_failures] Three observed failure batches"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/engine/stall/doubling-intervals", test_stall_doubling_intervals);
  g_test_add_func ("/pd/engine/stall/changing-results-never-fire", test_stall_changing_results_never_fire);
  g_test_add_func ("/pd/engine/stall/background-poll-threshold", test_stall_background_poll_threshold);
  g_test_add_func ("/pd/engine/stall/hint-text", test_stall_hint_text);
  g_test_add_func ("/pd/engine/reassess/repeated-check-failure", test_reassess_repeated_check_failure);
  g_test_add_func ("/pd/engine/reassess/success-resets-check", test_reassess_success_resets_check);
  g_test_add_func ("/pd/engine/reassess/needs-open-plan", test_reassess_needs_open_plan);
  g_test_add_func ("/pd/engine/reassess/varied-failures", test_reassess_varied_failures);
  g_test_add_func ("/pd/engine/reassess/same-fingerprint-not-varied", test_reassess_same_fingerprint_is_not_varied);
  g_test_add_func ("/pd/engine/reassess/mixed-batch-resets", test_reassess_mixed_batch_resets);
  g_test_add_func ("/pd/engine/reassess/cooldown-and-cap", test_reassess_cooldown_and_cap);
  g_test_add_func ("/pd/engine/reassess/hint-text", test_reassess_hint_text);

  return g_test_run ();
}
