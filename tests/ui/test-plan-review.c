/* test-plan-review.c: a hostile plan in the window's plan review
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Found (tried as an attacker would): "Review the Plan" showed a plan's
 * bidi overrides, terminal escapes and padding as the model wrote them —
 * a heading that read backwards, an escape sequence in the text, a step
 * whose end was pushed 600 spaces out of sight and a page of blank lines
 * before the rest — while the approval dialog and the Overview's cards
 * named them.  A replayed run in the real application hands in such a
 * plan: each of those is named in the dialog, the padding said in a few
 * characters, a code block's command read left to right, and the plan's
 * words all there.  Screenshots at the default size and 360 px with
 * PD_TEST_SCREENSHOT_DIR.
 *
 * Found too (tried as an attacker would): the rest of a code fence's line
 * was never shown.  "```sh — then also delete the backups" was approved
 * and saved with its words, and the person approving saw none of them; a
 * "#" not starting a heading ("#5") was dropped, a line of inline code
 * ("```rm -rf ~/backups```") opened a block and vanished, and a "```foo"
 * line inside a block closed it and vanished.  Every character of the
 * plan but the markup itself is shown.
 */
#define G_LOG_DOMAIN "test-plan-review"

#include "config.h"

#include "pd-test-runs.h"

static char *
dialog_text (AdwMessageDialog *dialog)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_TEXT_VIEW);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

/* The plan, as JSON text in the replay: an override in the heading, an
 * escape sequence (clear the screen, cursor home) in a step, 600 spaces
 * before a step's end, 200 lines of spaces, and a command in a code block
 * that starts with a right-to-left letter. */
static char *
hostile_replay (void)
{
  g_autofree char *spaces = g_strnfill (600, ' ');
  g_autofree char *blank = NULL;
  GString *lines = g_string_new (NULL);

  for (guint i = 0; i < 200; i++)
    g_string_append (lines, "  \\n");
  blank = g_string_free (lines, FALSE);
  return g_strdup_printf (
    "{\"label\": \"test: hostile plan\", \"turns\": ["
    " {\"content\": \"Here is my plan.\", \"tool_calls\": [{\"name\": \"exit_plan_mode\", \"arguments\": {\"plan\":"
    " \"# Deploy \\u202Eyalpsid\\u202C now\\n\\n- clean up\\u001b[2J\\u001b[H first\\n- keep%shidden tail\\n%s"
    "- last step\\n\\n```\\n\\u05d0; touch x #\\u05d1 echo done\\n```\\n\"}}]},"
    " {\"content\": \"Waiting for a review.\"}]}",
    spaces, blank);
}

static void
check_hostile_plan (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  RunFixture *fixture = user_data;
  AdwMessageDialog *dialog;
  g_autofree char *shown = NULL;

  start_replay (window, fixture, PD_APPROVAL_POLICY_ASK, "/plan Deploy it");
  dialog = pd_test_wait_for_dialog ("the plan review");
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Review the Plan");
  shown = dialog_text (dialog);

  /* Named, not applied. */
  g_assert_null (strstr (shown, "\xe2\x80\xae"));   /* U+202E */
  g_assert_null (strstr (shown, "\xe2\x80\xac"));   /* U+202C */
  g_assert_null (strchr (shown, '\x1b'));
  g_assert_nonnull (strstr (shown, "Deploy <U+202E>yalpsid<U+202C> now"));
  g_assert_nonnull (strstr (shown, "clean up<U+001B>[2J<U+001B>[H first"));
  /* The padding said in a few characters, the words after it in sight. */
  g_assert_null (strstr (shown, "          "));
  g_assert_nonnull (strstr (shown, "keep[600 × U+0020]hidden tail"));
  g_assert_nonnull (strstr (shown, "blank lines]"));
  g_assert_nonnull (strstr (shown, "last step"));
  g_assert_cmpuint (strlen (shown), <, 400);
  /* Still rendered: the heading as a heading, the steps as bullets, the
   * command left to right (U+200E before it). */
  g_assert_null (strstr (shown, "# Deploy"));
  g_assert_nonnull (strstr (shown, "\xe2\x80\xa2 last step"));
  g_assert_nonnull (strstr (shown, "\xe2\x80\x8e\xd7\x90; touch x #\xd7\x91 echo done"));

  pd_test_screenshot_sizes (GTK_WINDOW (dialog), "plan-review-hostile");

  g_object_ref (dialog);
  gtk_window_close (GTK_WINDOW (dialog));
  pd_test_assert_finalized (dialog);
  pd_test_wait_until (run_finished, fixture, "the run to finish");
}

static void
test_hostile_plan (void)
{
  g_autofree char *replay = hostile_replay ();
  g_autoptr(RunFixture) fixture = run_fixture_new (replay);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_hostile_plan, fixture, NULL), ==, 0);
}

/* A plan whose words sit where the markdown is: after a fence's
 * backticks, after a "#" that starts no heading, in a line of inline code,
 * and in a code block's line that starts with backticks but closes
 * nothing. */
static const char fenced_replay[] =
  "{\"label\": \"test: fenced plan\", \"turns\": ["
  " {\"content\": \"Here is my plan.\", \"tool_calls\": [{\"name\": \"exit_plan_mode\", \"arguments\": {\"plan\":"
  " \"# Tidy up\\n\\n```sh \\u2014 then also delete the backups\\nrm -rf build\\n```\\n\\n"
  "#5 is the step after that\\n\\n```rm -rf ~/backups``` as well\\n\\n"
  "````\\n```text and the keys in ~/.ssh\\n````\\n\\n- done\\n\"}}]},"
  " {\"content\": \"Carrying it out.\"}]}";

static gboolean
saved_plan_contains (RunFixture *fixture,
                     const char *words)
{
  g_autofree char *plans = g_build_filename (fixture->project, ".plandeck", "plans", NULL);
  g_autoptr(GDir) dir = g_dir_open (plans, 0, NULL);
  const char *name;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (plans, name, NULL);
      g_autofree char *text = NULL;

      g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
      if (strstr (text, words) != NULL)
        return TRUE;
    }
  return FALSE;
}

static void
check_fenced_plan (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  RunFixture *fixture = user_data;
  AdwMessageDialog *dialog;
  g_autofree char *shown = NULL;

  start_replay (window, fixture, PD_APPROVAL_POLICY_ASK, "/plan Tidy up");
  dialog = pd_test_wait_for_dialog ("the plan review");
  shown = dialog_text (dialog);

  /* The fence's label line: its words, not its backticks. */
  g_assert_nonnull (strstr (shown, "sh \xe2\x80\x94 then also delete the backups\n"));
  g_assert_null (strstr (shown, "```sh"));
  g_assert_nonnull (strstr (shown, "rm -rf build"));
  /* Markup only where it is markup. */
  g_assert_nonnull (strstr (shown, "#5 is the step after that"));
  g_assert_nonnull (strstr (shown, "```rm -rf ~/backups``` as well"));
  g_assert_nonnull (strstr (shown, "```text and the keys in ~/.ssh"));
  g_assert_null (strstr (shown, "````"));
  g_assert_null (strstr (shown, "# Tidy"));
  g_assert_nonnull (strstr (shown, "\xe2\x80\xa2 done"));

  pd_test_screenshot_sizes (GTK_WINDOW (dialog), "plan-review-fenced");

  /* What was shown is what Approve saves. */
  respond (dialog, "approve");
  pd_test_wait_until (run_finished, fixture, "the run to finish");
  g_assert_cmpint (fixture->status, ==, 0);
  g_assert_true (saved_plan_contains (fixture, "then also delete the backups"));
}

static void
test_fenced_plan (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (fenced_replay);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_fenced_plan, fixture, NULL), ==, 0);
}

/* A plan of about 2 MB: 40 000 steps.  "Review the Plan" laid all of it
 * out (10 MB took 6 s and 340 MB; tried as an attacker would); it shows a
 * bounded beginning, says how much is not shown, and Approve still
 * answers, and saves, the whole plan. */
#define HUGE_STEPS 40000u

static char *
huge_replay (void)
{
  GString *replay = g_string_new ("{\"label\": \"test: huge plan\", \"turns\": ["
                                  " {\"content\": \"Here is my plan.\", \"tool_calls\": [{\"name\": \"exit_plan_mode\","
                                  " \"arguments\": {\"plan\": \"# A long plan\\n\\n");

  for (guint i = 1; i <= HUGE_STEPS; i++)
    g_string_append_printf (replay, "- step %u: carry out part %u of the work with care\\n", i, i);
  g_string_append (replay, "\"}}]}, {\"content\": \"Carrying it out.\"}]}");
  return g_string_free (replay, FALSE);
}

static gboolean
is_label_containing (GtkWidget     *widget,
                     gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_visible (widget) &&
         strstr (gtk_label_get_text (GTK_LABEL (widget)), data) != NULL;
}

static gsize
saved_plan_size (RunFixture *fixture)
{
  g_autofree char *plans = g_build_filename (fixture->project, ".plandeck", "plans", NULL);
  g_autoptr(GDir) dir = g_dir_open (plans, 0, NULL);
  const char *name;
  gsize size = 0;

  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (plans, name, NULL);
      g_autofree char *text = NULL;
      gsize length = 0;

      g_assert_true (g_file_get_contents (path, &text, &length, NULL));
      size = MAX (size, length);
    }
  return size;
}

static void
check_huge_plan (PdApplication *app,
                 PdWindow      *window,
                 gpointer       user_data)
{
  RunFixture *fixture = user_data;
  AdwMessageDialog *dialog;
  g_autofree char *shown = NULL;
  g_autofree char *last = g_strdup_printf ("step %u:", HUGE_STEPS);

  start_replay (window, fixture, PD_APPROVAL_POLICY_ASK, "/plan Do it all");
  dialog = pd_test_wait_for_dialog ("the plan review");
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Review the Plan");
  shown = dialog_text (dialog);

  /* A bounded beginning (64 KiB of the markdown: a bullet's "- " is two
   * characters shown too), in whole lines, rendered as the rest would be. */
  g_assert_cmpint (g_utf8_strlen (shown, -1), <=, 64 * 1024);
  g_assert_nonnull (strstr (shown, "\xe2\x80\xa2 step 1: carry out part 1 of the work with care\n"));
  g_assert_null (strstr (shown, last));
  g_assert_true (g_str_has_suffix (shown, "with care"));
  /* What is not shown is said. */
  g_assert_nonnull (pd_test_find_first (GTK_WIDGET (dialog), is_label_containing, "not shown"));

  pd_test_screenshot_sizes (GTK_WINDOW (dialog), "plan-review-huge");

  /* The answer is to the whole plan: all of it is saved. */
  respond (dialog, "approve");
  pd_test_wait_until (run_finished, fixture, "the run to finish");
  g_assert_cmpint (fixture->status, ==, 0);
  g_assert_cmpuint (saved_plan_size (fixture), >, (gsize) HUGE_STEPS * 50);
}

static void
test_huge_plan (void)
{
  g_autofree char *replay = huge_replay ();
  g_autoptr(RunFixture) fixture = run_fixture_new (replay);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_huge_plan, fixture, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  char *config_home = pd_test_runs_init (&argc, &argv);
  int status;

  g_test_add_func ("/pd/ui/plan-review/hostile-plan", test_hostile_plan);
  g_test_add_func ("/pd/ui/plan-review/huge-plan", test_huge_plan);
  g_test_add_func ("/pd/ui/plan-review/fenced-plan", test_fenced_plan);

  status = g_test_run ();
  pd_test_runs_finish (config_home);

  return status;
}
