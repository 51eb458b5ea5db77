/* test-run-states.c: what a run's card and its Now page say of its state
 *
 * The default window (this computer's database) runs the engine with the
 * replay provider, answering its questions through the real dialogs:
 *  - a run whose check passed and was then denied, every step done, ends
 *    on a card that says a check did not pass, with the version that did
 *    it (it read "Done");
 *  - a run of the window waiting for the person says so on its Now page,
 *    and so does an endpoint's (a real `plandeck-agent serve` added as a
 *    source), opened from its card: the tool and what it does, announced
 *    as an alert, with a button to the Overview where its card answers it
 *    (the Now page said nothing of the question);
 *  - a run that failed before making a plan says so and why on its Now
 *    page, as its card does (it said only "No Plan Yet");
 *  - a run that completed with a step whose check failed ends on a card
 *    that names the check, ranked with the failures (it read "Working",
 *    then "Stalled")
 * (issue 21).  Screenshots of both pages at the default size and 360 px
 * with PD_TEST_SCREENSHOT_DIR.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-run-states"

#include "config.h"

#include "pd-application.h"
#include "pd-overview-card-row.h"
#include "pd-overview-private.h"
#include "pd-overview-view.h"
#include "pd-secrets.h"
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
  respond (pd_test_wait_for_dialog ("the write's question"), "once");
  respond (pd_test_wait_for_dialog ("the check's question"), "once");
  /* The card has read the plan all done, its check passed, before the
   * check is run again. */
  dialog = pd_test_wait_for_dialog ("the check's second question");
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

/* --- a run that completed with a check failed ------------------------------- */

/* A checked step whose check's call fails; the model gives up and answers
 * (twice: the engine asks once more when a run would end with open steps). */
static const char *const replay_check_failed =
  "{\"label\": \"test: a check failed, then the answer\", \"turns\": ["
  " {\"content\": \"Planning.\", \"tool_calls\": [{\"name\": \"plan\", \"arguments\": {\"verb\": \"create\", \"steps\": ["
  "  {\"id\": \"read\", \"title\": \"Read the notes\"},"
  "  {\"id\": \"test\", \"title\": \"Run the tests\", \"checks\": [{\"id\": \"cat\", \"description\": \"missing.txt is readable\","
  "   \"tool\": \"shell\", \"arguments\": {\"command\": \"cat missing.txt\"}}]}]}}]},"
  " {\"content\": \"Reading.\", \"tool_calls\": [{\"name\": \"plan\", \"arguments\": {\"verb\": \"complete\", \"step_id\": \"read\"}},"
  "  {\"name\": \"plan\", \"arguments\": {\"verb\": \"update\", \"updates\": [{\"id\": \"test\", \"status\": \"in_progress\"}]}}]},"
  " {\"content\": \"Checking.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": \"cat missing.txt\"}}]},"
  " {\"content\": \"The file is not there; I stop here.\"},"
  " {\"content\": \"It is still not there: the check cannot pass.\"}]}";

static gboolean
card_failed_check_ended (gpointer data)
{
  VersionWait *wait = data;
  PdOverviewCard *card = only_card (wait->window);

  return card_ended_at (data) && pd_overview_card_get_failed_check (card) != NULL;
}

static gboolean
overview_row_says_check_failed (gpointer data)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (data), PD_TYPE_OVERVIEW_VIEW);
  GtkWidget *row = view != NULL ? pd_test_find_widget (view, PD_TYPE_OVERVIEW_CARD_ROW) : NULL;

  return row != NULL &&
         pd_test_find_first (row, label_is, "Done · check failed: \u2068missing.txt is readable\u2069") != NULL;
}

static void
check_check_failed (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  Case *c = user_data;
  PdRunController *runs;
  PdOverviewCard *card;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  VersionWait wait = { window, 0 };

  runs = start_replay (window, c->fixture, PD_APPROVAL_POLICY_AUTO, "Run the tests");
  pd_test_wait_until (run_finished, c->fixture, "the run to finish");
  g_assert_cmpstr (c->fixture->message, ==, NULL);
  g_assert_cmpint (c->fixture->status, ==, PD_RUN_COMPLETED);

  info = pd_session_store_get (c->store, pd_run_controller_get_session_id (runs), &error);
  g_assert_no_error (error);
  wait.version = info->plan_version;
  pd_test_wait_until (card_failed_check_ended, &wait, "the card to read the run's end and its failed check");
  card = only_card (window);
  g_assert_cmpstr (pd_overview_card_get_failed_check (card), ==, "missing.txt is readable");
  g_assert_cmpuint (pd_overview_card_get_done (card), ==, 1);
  g_assert_cmpuint (pd_overview_card_get_total (card), ==, 2);
  /* Over, and ranked with the failures: not "Working", nor "Stalled". */
  g_assert_cmpint (pd_overview_card_get_need (card), ==, PD_OVERVIEW_NEED_FAILED);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-overview", NULL));
  pd_test_wait_until (overview_row_says_check_failed, window, "the card to name the failed check");
  pd_test_screenshot_sizes (GTK_WINDOW (window), "overview-check-failed");
}

static void
test_check_failed (void)
{
  Case c = { 0 };

  c.fixture = run_fixture_new (replay_check_failed);
  c.store = open_default_store ();
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (NULL, check_check_failed, &c, NULL), ==, 0);
  g_clear_object (&c.store);
  run_fixture_free (c.fixture);
}

/* --- the Now page of a run waiting for the person ------------------------- */

static gboolean is_approval_notice (GtkWidget     *widget,
                                    gconstpointer  data);

/* The notice of the first write's question, in sight. */
static gboolean
approval_shown (gpointer data)
{
  PdNowView *now = PD_NOW_VIEW (pd_test_find_widget (GTK_WIDGET (data), PD_TYPE_NOW_VIEW));
  const char *text = pd_now_view_get_approval (now);

  return text != NULL && strstr (text, "one.txt") != NULL &&
         pd_test_find_first (GTK_WIDGET (now), is_approval_notice, NULL) != NULL;
}

static gboolean
approval_gone (gpointer data)
{
  PdNowView *now = PD_NOW_VIEW (pd_test_find_widget (GTK_WIDGET (data), PD_TYPE_NOW_VIEW));

  return pd_now_view_get_approval (now) == NULL;
}

static gboolean
is_approval_notice (GtkWidget     *widget,
                    gconstpointer  data)
{
  return gtk_widget_has_css_class (widget, "pd-approval-notice") && gtk_widget_get_mapped (widget);
}

static gboolean
is_mapped_button (GtkWidget     *widget,
                  gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), data) == 0;
}

/* The notice as a person and a screen reader meet it: the tool and what the
 * call does in plain text, an alert named by that text, and the button to
 * where the question is answered. */
static GtkWidget *
assert_approval_notice (PdWindow   *window,
                        const char *want)
{
  GtkWidget *now = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_NOW_VIEW);
  GtkWidget *notice = pd_test_find_first (now, is_approval_notice, NULL);
  GtkWidget *label, *button;

  g_assert_nonnull (notice);
  g_assert_cmpint (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (notice)), ==, GTK_ACCESSIBLE_ROLE_ALERT);
  g_assert_true (gtk_widget_get_focusable (notice));
  label = pd_test_find_first (notice, label_is, want);
  g_assert_nonnull (label);
  g_assert_false (gtk_label_get_use_markup (GTK_LABEL (label)));
  g_assert_cmpstr (pd_now_view_get_approval (PD_NOW_VIEW (now)), ==, want);
  button = pd_test_find_first (notice, is_mapped_button, "_Answer on the Overview");
  g_assert_nonnull (button);
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (button)), ==, "win.show-overview");
  return button;
}

/* A run of this window asks before each write: its Now page says what it
 * waits for while the dialog asks, and no more once it is answered. */
static void
check_local_approval (PdApplication *app,
                      PdWindow      *window,
                      gpointer       user_data)
{
  Case *c = user_data;
  AdwMessageDialog *dialog;

  start_replay (window, c->fixture, PD_APPROVAL_POLICY_ASK, "Write two files");
  dialog = pd_test_wait_for_dialog ("the first write's question");
  pd_test_wait_until (run_session_selected, window, "the run's session shown");
  pd_test_wait_until (approval_shown, window, "the Now page to say the run waits for the person");
  assert_approval_notice (window, "Waiting for your approval: “\u2068write_file\u2069” — \u2068one.txt (2 bytes)\u2069");
  respond (dialog, "deny");
  pd_test_wait_until (approval_gone, window, "the notice to go with its question");
  respond (pd_test_wait_for_dialog ("the second write's question"), "once");
  pd_test_wait_until (run_finished, c->fixture, "the run to finish");
  pd_test_wait_until (approval_gone, window, "no notice after the run");
}

static void
test_local_approval (void)
{
  Case c = { 0 };

  c.fixture = run_fixture_new (replay_writes);
  c.store = open_default_store ();
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (NULL, check_local_approval, &c, NULL), ==, 0);
  g_clear_object (&c.store);
  run_fixture_free (c.fixture);
}

static gboolean
card_asks (gpointer data)
{
  PdOverviewCard *card = only_card (data);

  return card != NULL && pd_overview_card_has_approval (card);
}

static gboolean
endpoint_session_shown (gpointer data)
{
  PdWindow *window = data;
  PdSessionItem *item = pd_session_list_get_selected_item (session_list (window));

  return !pd_window_get_overview_shown (window) && item != NULL &&
         g_strcmp0 (pd_session_item_get_title (item), "Remote work") == 0;
}

static gboolean
overview_shown (gpointer data)
{
  return pd_window_get_overview_shown (data) &&
         gtk_widget_get_mapped (pd_test_find_widget (GTK_WIDGET (data), PD_TYPE_OVERVIEW_VIEW));
}

/* An endpoint's run waits on a question: its card says so, and so does its
 * session's Now page, opened from the card; its button leads back to the
 * card, whose Deny ends the question. */
static void
check_endpoint_approval (PdApplication *app,
                         PdWindow      *window,
                         gpointer       user_data)
{
  GtkListView *list;
  GtkWidget *button, *row;

  pd_test_wait_until (card_asks, window, "the endpoint's question on its card");
  list = GTK_LIST_VIEW (pd_test_find_widget (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_OVERVIEW_VIEW),
                                             GTK_TYPE_LIST_VIEW));
  g_signal_emit_by_name (list, "activate", 0);
  pd_test_wait_until (endpoint_session_shown, window, "the endpoint's session opened from its card");
  pd_test_wait_until (approval_shown, window, "its Now page to say the run waits for the person");
  button = assert_approval_notice (window, "Waiting for your approval: “\u2068write_file\u2069” — \u2068one.txt (2 bytes)\u2069");
  pd_test_screenshot_sizes (GTK_WINDOW (window), "now-waiting-for-approval");

  gtk_widget_activate (button);
  pd_test_wait_until (overview_shown, window, "the Overview, where the card answers");
  row = pd_test_find_widget (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_OVERVIEW_VIEW),
                             PD_TYPE_OVERVIEW_CARD_ROW);
  g_assert_nonnull (row);
  pd_overview_card_row_set_answer_guard (PD_OVERVIEW_CARD_ROW (row), 0);
  button = pd_test_find_first (row, is_mapped_button, "_Deny");
  g_assert_nonnull (button);
  gtk_widget_activate (button);
  pd_test_wait_until (approval_gone, window, "the notice to go once the card answered");
}

static void
test_endpoint_approval (void)
{
  PdTestServed served = { 0 };
  g_autofree char *id = NULL;
  g_autoptr(PdSessionStore) local = open_default_store ();
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(GSettings) settings = NULL;
  GVariantBuilder builder;

  served.fixture = run_fixture_new (replay_writes);
  store = pd_test_open_store (served.fixture->db);
  id = pd_test_add_session (store, "Remote work", "plandeck");
  pd_test_served_start (&served);
  start_run_elsewhere (served.url, id, "Write two files");

  pd_test_reset_settings ();
  /* The token as the keyring would give it (no keyring here). */
  pd_secrets_keep_for_session (served.base, served.token);
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sss)"));
  g_variant_builder_add (&builder, "(sss)", "endpoint-0", "Build box", served.base);
  settings = g_settings_new (APP_ID);
  g_settings_set_value (settings, "sources", g_variant_builder_end (&builder));

  g_assert_cmpint (pd_test_run_app (NULL, check_endpoint_approval, NULL, NULL), ==, 0);

  pd_secrets_keep_for_session (served.base, NULL);
  pd_test_served_clear (&served);
  run_fixture_free (served.fixture);
}

/* --- the Now page of a run that failed before its plan ---------------------- */

/* No turn to play: the run fails at its first request. */
static const char *const replay_nothing = "{\"label\": \"test: nothing\", \"turns\": []}";

static gboolean
is_status_page_titled (GtkWidget     *widget,
                       gconstpointer  data)
{
  return ADW_IS_STATUS_PAGE (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (adw_status_page_get_title (ADW_STATUS_PAGE (widget)), data) == 0;
}

static gboolean
failed_page_shown (gpointer data)
{
  GtkWidget *now = pd_test_find_widget (GTK_WIDGET (data), PD_TYPE_NOW_VIEW);

  return pd_test_find_first (now, is_status_page_titled, "Run Failed") != NULL;
}

static gboolean
is_label_prefixed (GtkWidget     *widget,
                   gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         g_str_has_prefix (gtk_label_get_text (GTK_LABEL (widget)), data);
}

static void
check_failed_run (PdApplication *app,
                  PdWindow      *window,
                  gpointer       user_data)
{
  Case *c = user_data;
  GtkWidget *now, *page, *reason;

  start_replay (window, c->fixture, PD_APPROVAL_POLICY_ASK, "Summarise the project");
  pd_test_wait_until (run_finished, c->fixture, "the run to fail");
  g_assert_cmpint (c->fixture->status, ==, PD_RUN_FAILED);
  pd_test_wait_until (run_session_selected, window, "the run's session shown");
  pd_test_wait_until (failed_page_shown, window, "the Now page to say the run failed");

  now = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_NOW_VIEW);
  page = pd_test_find_first (now, is_status_page_titled, "Run Failed");
  g_assert_cmpstr (adw_status_page_get_description (ADW_STATUS_PAGE (page)), ==,
                   "The run ended before the agent made a plan.");
  /* Why, as the card says it ("Failed — …"), in plain text. */
  reason = pd_test_find_first (page, is_label_prefixed, "Failed — ");
  g_assert_nonnull (reason);
  g_assert_false (gtk_label_get_use_markup (GTK_LABEL (reason)));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (reason)), "all 0 recorded turns"));
  g_assert_null (pd_test_find_first (now, is_status_page_titled, "No Plan Yet"));
  pd_test_screenshot_sizes (GTK_WINDOW (window), "now-run-failed");
}

static void
test_failed_run (void)
{
  Case c = { 0 };

  c.fixture = run_fixture_new (replay_nothing);
  c.store = open_default_store ();
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (NULL, check_failed_run, &c, NULL), ==, 0);
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
  g_test_add_func ("/pd/ui/run-states/card-check-failed", test_check_failed);
  g_test_add_func ("/pd/ui/run-states/now-local-approval", test_local_approval);
  g_test_add_func ("/pd/ui/run-states/now-endpoint-approval", test_endpoint_approval);
  g_test_add_func ("/pd/ui/run-states/now-failed-run", test_failed_run);
  status = g_test_run ();
  pd_test_runs_finish (config_home);
  return status;
}
