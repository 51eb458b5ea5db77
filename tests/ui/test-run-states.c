/* test-run-states.c: what a run's card and its Now page say of its state
 *
 * The default window (this computer's database) runs the engine with the
 * replay provider, answering its questions through the real dialogs:
 *  - a run whose check passed and was then denied, every step done, ends
 *    on a card that says a check did not pass, with the version that did
 *    it (it read "Done");
 *
 * (issue 21).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-run-states"

#include "config.h"

#include "pd-application.h"
#include "pd-overview-card-row.h"
#include "pd-overview-private.h"
#include "pd-overview-view.h"
#include "pd-test-runs.h"
#include "pd-window-private.h"

/* A checked step: written, its check run and passed, every step completed;
 * then the check run again, which the person denies. */
static const char *const replay_denied_again =
  "{\"label\": \"test: a check passed, then denied\", \"turns\": ["
  " {\"content\": \"Planning.\", \"tool_calls\": [{\"name\": \"plan\", \"arguments\": {\"verb\": \"create\", \"steps\": ["
  "  {\"id\": \"build\", \"title\": \"Write hello.txt\", \"checks\": [{\"id\": \"cat\", \"description\": \"hello.txt is readable\","
  "   \"tool\": \"shell\", \"arguments\": {\"command\": \"cat hello.txt\"}}]},"
  "  {\"id\": \"docs\", \"title\": \"Say so\"}]}}]},"
  " {\"content\": \"Writing.\", \"tool_calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"hello.txt\", \"content\": \"hello\"}}]},"
  " {\"content\": \"Checking.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"cat hello.txt\"}}]},"
  " {\"content\": \"Completing.\", \"tool_calls\": [{\"name\": \"plan\", \"arguments\": {\"verb\": \"complete\", \"step_id\": \"build\"}},"
  "  {\"name\": \"plan\", \"arguments\": {\"verb\": \"complete\", \"step_id\": \"docs\"}}]},"
  " {\"content\": \"Checking again.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"cat hello.txt\"}}]},"
  " {\"content\": \"All done.\"}]}";

typedef struct
{
  RunFixture     *fixture;
  PdSessionStore *store;    /* the default database, a connection of the test's own */
  gint64          version;  /* the plan version a wait looks for */
} Case;

/* The default database, empty, as the default window opens it. */
static PdSessionStore *
open_default_store (void)
{
  g_autofree char *local_db = pd_application_default_database_path ();
  g_autofree char *folder = g_path_get_dirname (local_db);

  g_assert_cmpint (g_mkdir_with_parents (folder, 0700), ==, 0);
  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *file = g_strconcat (local_db, (const char *[]) { "", "-wal", "-shm" }[i], NULL);

      g_unlink (file);
    }
  return pd_test_open_store (local_db);
}

/* --- a card of a run of the window ------------------------------------------ */

static PdOverviewCard *
only_card (PdWindow *window)
{
  PdOverview *overview = pd_window_get_overview (window);
  g_autoptr(PdOverviewCard) card = NULL;

  if (g_list_model_get_n_items (G_LIST_MODEL (overview)) != 1)
    return NULL;
  card = g_list_model_get_item (G_LIST_MODEL (overview), 0);
  return card;   /* the overview keeps it */
}

static gboolean
card_all_done_passed (gpointer data)
{
  PdOverviewCard *card = only_card (data);

  return card != NULL && pd_overview_card_get_total (card) == 2 && pd_overview_card_get_done (card) == 2 &&
         pd_overview_card_get_unpassed_checks (card) == 0;
}

typedef struct
{
  PdWindow *window;
  gint64    version;
} VersionWait;

static gboolean
card_ended_at (gpointer data)
{
  VersionWait *wait = data;
  PdOverviewCard *card = only_card (wait->window);

  return card != NULL && pd_overview_card_get_status (card) != PD_SESSION_STATUS_RUNNING &&
         pd_overview_card_get_plan_version (card) == wait->version;
}

static gboolean
label_is (GtkWidget     *widget,
          gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), data) == 0;
}

static gboolean
overview_row_says (gpointer data)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (data), PD_TYPE_OVERVIEW_VIEW);
  GtkWidget *row = view != NULL ? pd_test_find_widget (view, PD_TYPE_OVERVIEW_CARD_ROW) : NULL;

  return row != NULL && pd_test_find_first (row, label_is, "Done · 1 check not passed") != NULL;
}

static void
check_denied_again (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  Case *c = user_data;
  PdRunController *runs;
  AdwMessageDialog *dialog;
  PdOverviewCard *card;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  VersionWait wait = { window, 0 };

  runs = start_replay (window, c->fixture, PD_APPROVAL_POLICY_ASK, "Write hello.txt");
  respond (wait_for_dialog ("the write's question"), "once");
  respond (wait_for_dialog ("the check's question"), "once");
  /* The card has read the plan all done, its check passed, before the
   * check is run again. */
  dialog = wait_for_dialog ("the check's second question");
  pd_test_wait_until (card_all_done_passed, window, "the card of a plan all done, its check passed");
  respond (dialog, "deny");
  pd_test_wait_until (run_finished, c->fixture, "the run to finish");
  g_assert_cmpint (c->fixture->status, ==, PD_RUN_COMPLETED);

  /* The card that reads the run's end and its last version says what that
   * version says: the denied check did not pass. */
  info = pd_session_store_get (c->store, pd_run_controller_get_session_id (runs), &error);
  g_assert_no_error (error);
  wait.version = info->plan_version;
  pd_test_wait_until (card_ended_at, &wait, "the card to read the run's end and its last version");
  card = only_card (window);
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_UNVERIFIED);
  g_assert_cmpuint (pd_overview_card_get_unpassed_checks (card), ==, 1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-overview", NULL));
  pd_test_wait_until (overview_row_says, window, "the card to say a check did not pass");
}

static void
test_denied_again (void)
{
  Case c = { 0 };

  c.fixture = run_fixture_new (replay_denied_again);
  c.store = open_default_store ();
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (NULL, check_denied_again, &c, NULL), ==, 0);
  g_clear_object (&c.store);
  run_fixture_free (c.fixture);
}

int
main (int   argc,
      char *argv[])
{
  char *config_home = pd_test_runs_init (&argc, &argv);
  int status;

  g_test_add_func ("/pd/ui/run-states/card-denied-after-done", test_denied_again);
  status = g_test_run ();
  pd_test_runs_finish (config_home);
  return status;
}
