/* test-question-plan.c: the plan a question is about, in sight while it waits
 *
 * The default window (this computer's database) runs the engine with the
 * replay provider.  The agent changes its plan and, in the same answer,
 * asks to write a file: while the approval dialog waits, the Now page and
 * the run's Overview card show the plan after the change.  Tried as a new
 * user would, both showed the version before it until the question was
 * answered: the plan was stored only at the end of the batch of calls,
 * after the question.
 *
 * Beside it, two more things of the window a new user met (each failed
 * before its fix): the Plan toggle stayed pressed while the run went on
 * after the plan was approved (plan mode left), and a session deleted from
 * its Overview card kept its card while the toast offered Undo.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-question-plan"

#include "config.h"

#include "pd-application.h"
#include "pd-overview-private.h"
#include "pd-overview-view.h"
#include "pd-source-list.h"
#include "pd-test-runs.h"
#include "pd-window-private.h"

/* A plan of two steps; then, in one answer, the first done and a write. */
static const char *const replay_plan_then_write =
  "{\"label\": \"test: a plan change, then a question\", \"turns\": ["
  " {\"content\": \"Planning.\", \"tool_calls\": [{\"name\": \"plan\", \"arguments\": {\"verb\": \"create\", \"steps\": ["
  "  {\"id\": \"read\", \"title\": \"Read the notes\"},"
  "  {\"id\": \"write\", \"title\": \"Write one.txt\"}]}}]},"
  " {\"content\": \"Read; writing.\", \"tool_calls\": [{\"name\": \"plan\", \"arguments\": {\"verb\": \"complete\", \"step_id\": \"read\"}},"
  "  {\"name\": \"write_file\", \"arguments\": {\"path\": \"one.txt\", \"content\": \"1\\n\"}}]},"
  " {\"content\": \"Done.\", \"tool_calls\": [{\"name\": \"plan\", \"arguments\": {\"verb\": \"complete\", \"step_id\": \"write\"}}]},"
  " {\"content\": \"All done.\"}]}";

/* The default database, empty, as the default window opens it. */
static void
empty_default_database (void)
{
  g_autofree char *local_db = pd_application_default_database_path ();
  g_autofree char *folder = g_path_get_dirname (local_db);

  g_assert_cmpint (g_mkdir_with_parents (folder, 0700), ==, 0);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *file = g_strconcat (local_db, (const char *[]) { "", "-wal", "-shm" }[i], NULL);

      g_unlink (file);
    }
  g_object_unref (pd_test_open_store (local_db));
}

static gboolean
now_shows_one_done (gpointer data)
{
  GtkWidget *now = pd_test_find_widget (GTK_WIDGET (data), PD_TYPE_NOW_VIEW);
  GtkWidget *header = find_label_matching (now, "Plan — v", " · 1/2 done");

  return header != NULL && gtk_widget_get_mapped (header);
}

/* The run's card, alone: the default database is this test's own
 * (tests/ui/meson.build), so no other test's session has a card there. */
static gboolean
card_one_done (gpointer data)
{
  PdOverview *overview = pd_window_get_overview (data);
  g_autoptr(PdOverviewCard) card = NULL;

  if (g_list_model_get_n_items (G_LIST_MODEL (overview)) != 1)
    return FALSE;
  card = g_list_model_get_item (G_LIST_MODEL (overview), 0);
  return pd_overview_card_get_total (card) == 2 && pd_overview_card_get_done (card) == 1;
}

static void
check_plan_while_asked (PdApplication *app,
                        PdWindow      *window,
                        gpointer       user_data)
{
  RunFixture *fixture = user_data;
  AdwMessageDialog *dialog;

  start_replay (window, fixture, PD_APPROVAL_POLICY_ASK, "Read the notes, then write one.txt");
  dialog = pd_test_wait_for_dialog ("the write's question");
  g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (dialog), "one.txt"));
  pd_test_wait_until (run_session_selected, window, "the run's session shown");

  /* The question waits: the plan it is about is the one shown. */
  pd_test_wait_until (now_shows_one_done, window, "the Now page to show the first step done while asked");
  pd_test_wait_until (card_one_done, window, "the card to count the first step done while asked");
  g_assert_null (pd_test_find_label_containing (GTK_WIDGET (window), " · 0/2 done"));
  g_assert_false (project_file_exists (fixture, "one.txt"));

  respond (dialog, "once");
  pd_test_wait_until (run_finished, fixture, "the run to finish");
  g_assert_cmpint (fixture->status, ==, PD_RUN_COMPLETED);
  g_assert_true (project_file_exists (fixture, "one.txt"));
}

static void
test_plan_while_asked (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_plan_then_write);

  empty_default_database ();
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (NULL, check_plan_while_asked, fixture, NULL), ==, 0);
}

/* --- the Plan toggle once the plan is approved ------------------------------- */

/* Plan mode: a plan reviewed and approved, then a write asked about. */
static const char *const replay_plan_approved =
  "{\"label\": \"test: a plan approved, then a write\", \"turns\": ["
  " {\"content\": \"Here is my plan.\", \"tool_calls\": [{\"name\": \"exit_plan_mode\", \"arguments\": {\"plan\": \"# Write one.txt\\n\\n- write it\\n\"}}]},"
  " {\"content\": \"Writing.\", \"tool_calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"one.txt\", \"content\": \"1\\n\"}}]},"
  " {\"content\": \"All done.\"}]}";

static gboolean
toggle_on (gpointer data)
{
  GtkToggleButton *toggle = find_plan_toggle (GTK_WIDGET (data));

  return toggle != NULL && gtk_widget_get_visible (GTK_WIDGET (toggle)) && gtk_toggle_button_get_active (toggle);
}

static gboolean
toggle_off (gpointer data)
{
  GtkToggleButton *toggle = find_plan_toggle (GTK_WIDGET (data));

  return toggle != NULL && gtk_widget_get_visible (GTK_WIDGET (toggle)) && !gtk_toggle_button_get_active (toggle);
}

static void
check_toggle_after_approval (PdApplication *app,
                             PdWindow      *window,
                             gpointer       user_data)
{
  RunFixture *fixture = user_data;
  AdwMessageDialog *dialog;

  start_replay (window, fixture, PD_APPROVAL_POLICY_ASK, "/plan Write one.txt");
  dialog = pd_test_wait_for_dialog ("the plan review");
  pd_test_wait_until (run_session_selected, window, "the run's session shown");
  pd_test_wait_until (toggle_on, window, "the Plan toggle to show plan mode while the plan is reviewed");
  respond (dialog, "approve");

  /* The run goes on, out of plan mode: the toggle says so while it runs. */
  dialog = pd_test_wait_for_dialog ("the write's question");
  g_assert_true (pd_run_controller_get_running (pd_window_get_run_controller (window)));
  pd_test_wait_until (toggle_off, window, "the Plan toggle to show plan mode left once the plan was approved");
  respond (dialog, "once");
  pd_test_wait_until (run_finished, fixture, "the run to finish");
  g_assert_cmpint (fixture->status, ==, PD_RUN_COMPLETED);
  g_assert_true (toggle_off (window));
}

static void
test_toggle_after_approval (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_plan_approved);

  empty_default_database ();
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (NULL, check_toggle_after_approval, fixture, NULL), ==, 0);
}

/* --- a deleted session's card, while its Undo is offered ----------------------- */

static GListModel *
shown_cards (PdWindow *window)
{
  return pd_overview_view_get_shown (PD_OVERVIEW_VIEW (pd_test_find_widget (GTK_WIDGET (window),
                                                                             PD_TYPE_OVERVIEW_VIEW)));
}

static gboolean
one_card_shown (gpointer data)
{
  return g_list_model_get_n_items (shown_cards (data)) == 1;
}

static gboolean
undo_offered (gpointer data)
{
  return pd_test_find_first (GTK_WIDGET (data), is_button_labelled, "_Undo") != NULL;
}

static void
check_card_deleted (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  g_autoptr(PdOverviewCard) card = NULL;
  const char *source_id;
  GtkWidget *undo;

  pd_test_wait_until (one_card_shown, window, "the session's card");
  card = g_list_model_get_item (shown_cards (window), 0);
  g_assert_cmpstr (pd_overview_card_get_session_id (card), ==, user_data);
  source_id = pd_source_list_get_id (window->sources, pd_overview_card_get_source (card));
  g_assert_nonnull (source_id);

  /* Deleted: the card goes at once, while the toast offers Undo. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.card-delete", "(ss)", source_id,
                                             (const char *) user_data));
  pd_test_wait_until (undo_offered, window, "the toast's Undo");
  g_assert_cmpuint (g_list_model_get_n_items (shown_cards (window)), ==, 0);

  /* Undone: it comes back. */
  undo = pd_test_find_first (GTK_WIDGET (window), is_button_labelled, "_Undo");
  g_signal_emit_by_name (undo, "clicked");
  g_assert_cmpuint (g_list_model_get_n_items (shown_cards (window)), ==, 1);
}

static void
test_card_deleted (void)
{
  g_autofree char *local_db = pd_application_default_database_path ();
  g_autofree char *id = NULL;

  empty_default_database ();
  {
    g_autoptr(PdSessionStore) store = pd_test_open_store (local_db);

    id = pd_test_add_session (store, "Tidy the parser", "plandeck");
  }
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (NULL, check_card_deleted, id, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  char *config_home = pd_test_runs_init (&argc, &argv);
  int status;

  g_test_add_func ("/pd/ui/question-plan/approval", test_plan_while_asked);
  g_test_add_func ("/pd/ui/question-plan/toggle-after-approval", test_toggle_after_approval);
  g_test_add_func ("/pd/ui/question-plan/card-deleted", test_card_deleted);
  status = g_test_run ();
  pd_test_runs_finish (config_home);
  return status;
}
