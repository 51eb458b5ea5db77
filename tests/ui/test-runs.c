/* test-runs.c: the demo and runs of the embedded engine
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every case runs the real application.  Runs use the replay provider on a
 * temporary database and folder; questions of the engine (approve this
 * call? approve this plan?) are answered through the real dialogs, from the
 * main thread, as a person would.  Windows on a serve endpoint are in
 * test-runs-remote.c; what both share is pd-test-runs.h.
 */
#define G_LOG_DOMAIN "test-runs"

#include "config.h"

#include "pd-test-runs.h"

/* --- the demo ------------------------------------------------------------ */

static gboolean
demo_plan_done (gpointer data)
{
  GtkWidget *now = pd_test_find_widget (GTK_WIDGET (data), PD_TYPE_NOW_VIEW);
  GtkWidget *header = find_label_matching (now, "Plan — v", " · 4/4 done");

  return header != NULL && gtk_widget_get_mapped (header);
}

static void
check_demo (PdApplication *app,
            PdWindow      *window,
            gpointer       user_data)
{
  PdDemo *demo = pd_window_get_demo (window);
  g_autofree char *folder = NULL;
  g_autofree char *greet = NULL;
  g_autofree char *contents = NULL;
  PdSessionItem *item;
  GtkWidget *banner;

  g_assert_nonnull (demo);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "Demo — Plandeck");
  banner = pd_test_find_label (GTK_WIDGET (window),
                               "A recorded run replayed against real tools in a temporary folder");
  g_assert_nonnull (banner);
  g_assert_true (gtk_widget_get_mapped (banner));
  /* The demo is no place for runs of one's own. */
  g_assert_null (pd_window_get_run_controller (window));

  /* The recorded run shows as soon as it is there, and plays to its end. */
  pd_test_wait_until (demo_plan_done, window, "the demo's plan to be all done");
  item = pd_session_list_get_selected_item (session_list (window));
  g_assert_nonnull (item);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (session_list (window)))), ==, 1);

  /* Real tools in a temporary folder: the script was fixed there. */
  folder = g_strdup (pd_demo_get_folder (demo));
  greet = g_build_filename (folder, "greet.sh", NULL);
  g_assert_true (g_file_get_contents (greet, &contents, NULL, NULL));
  g_assert_true (g_str_has_prefix (folder, g_get_tmp_dir ()));
}

static void
test_demo_plays_live (void)
{
  const char *args[] = { "--demo", NULL };
  gboolean saw_window = FALSE;

  pd_test_reset_settings ();
  g_setenv ("PLANDECK_DEMO_SPEED", "0", TRUE);
  g_assert_cmpint (pd_test_run_app (args, check_demo, NULL, &saw_window), ==, 0);
  g_unsetenv ("PLANDECK_DEMO_SPEED");
  g_assert_true (saw_window);
}

/* The main area's page of a window with no sessions (the primary menu has an
 * "Open Demo" item too). */
static GtkWidget *
empty_state (PdWindow *window)
{
  GtkWidget *views = pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_VIEW_STACK);
  GtkStack *pages = GTK_STACK (gtk_widget_get_ancestor (views, GTK_TYPE_STACK));

  return gtk_stack_get_child_by_name (pages, "empty");
}

static gboolean
demo_button_mapped (gpointer data)
{
  GtkWidget *label = pd_test_find_label (empty_state (data), "Open Demo");

  return label != NULL && gtk_widget_get_mapped (label);
}

static void
check_demo_from_empty_state (PdApplication *app,
                             PdWindow      *window,
                             gpointer       user_data)
{
  PdWindow **demo_window = user_data;
  GtkWidget *button;

  pd_test_wait_until (demo_button_mapped, window, "the empty state");
  button = gtk_widget_get_parent (pd_test_find_label (empty_state (window), "Open Demo"));
  g_signal_emit_by_name (button, "clicked");

  *demo_window = PD_WINDOW (gtk_application_get_active_window (GTK_APPLICATION (app)));
  g_assert_true (*demo_window != window);
  g_assert_nonnull (pd_window_get_demo (*demo_window));
  pd_test_wait_until (demo_plan_done, *demo_window, "the demo's plan to be all done");
}

static void
test_demo_from_empty_state (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  const char *args[] = { "--db", db, NULL };
  PdWindow *demo_window = NULL;

  g_object_unref (pd_test_open_store (db));
  pd_test_reset_settings ();
  g_setenv ("PLANDECK_DEMO_SPEED", "0", TRUE);
  g_assert_cmpint (pd_test_run_app (args, check_demo_from_empty_state, &demo_window, NULL), ==, 0);
  g_unsetenv ("PLANDECK_DEMO_SPEED");
  g_assert_nonnull (demo_window);
}

/* --- runs ------------------------------------------------------------------ */

static const char *replay_streams =
  "{\"label\": \"test: a planned run\", \"turns\": ["
  " {\"content\": \"Planning the work.\", \"tool_calls\": [{\"name\": \"plan\", \"arguments\": {\"verb\": \"create\", \"steps\": ["
  "   {\"id\": \"look\", \"title\": \"Look at the files\"}, {\"id\": \"sum\", \"title\": \"Summarise\"}]}}]},"
  " {\"content\": \"Looking.\", \"tool_calls\": [{\"name\": \"list_dir\", \"arguments\": {}}]},"
  " {\"content\": \"Done looking.\", \"tool_calls\": [{\"name\": \"plan\", \"arguments\": {\"verb\": \"update\", \"updates\": ["
  "   {\"id\": \"look\", \"status\": \"done\"}, {\"id\": \"sum\", \"status\": \"done\"}]}}]},"
  " {\"content\": \"The project has a README.\"}]}";

static void
check_run_streams (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  RunFixture *fixture = user_data;
  PdRunController *runs;

  runs = start_replay (window, fixture, PD_APPROVAL_POLICY_ASK, "Summarise the project");

  /* The new session is picked up and shown while the run goes on. */
  pd_test_wait_until (run_session_selected, window, "the run's session to be selected");
  pd_test_wait_until (run_finished, fixture, "the run to finish");
  g_assert_cmpint (fixture->status, ==, PD_RUN_COMPLETED);
  g_assert_null (fixture->message);
  g_assert_nonnull (strstr (pd_run_controller_get_transcript (runs), "The project has a README."));
  g_assert_nonnull (strstr (pd_run_controller_get_transcript (runs), "list_dir"));
  pd_test_wait_until (run_plan_shown, window, "the Now workspace to show the run's plan");
  /* The run's engine tells the window's source of its commits through its
   * event bus, file monitor or not (/pd/ui/live/demo-pages-fill-while-running-bus-only). */
  g_assert_cmpuint (pd_local_source_get_n_buses (PD_LOCAL_SOURCE (pd_window_get_source (window))), ==, 1);

  /* Idle: the message entry offers to continue the session; Stop is off. */
  g_assert_true (action_enabled (window, "win.send-message"));
  g_assert_false (action_enabled (window, "win.stop-run"));
}

static void
test_run_streams_into_window (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_streams);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_run_streams, fixture, NULL), ==, 0);
}

/* With sessions listed (one selected), the run's new session still wins
 * the selection, and keeps it as the list refreshes. */
static void
check_run_selects_over_existing (PdApplication *app,
                                 PdWindow      *window,
                                 gpointer       user_data)
{
  RunFixture *fixture = user_data;

  pd_test_wait_until (list_loaded_with_selection, window, "the listed session to be selected");
  start_replay (window, fixture, PD_APPROVAL_POLICY_AUTO, "Summarise the project");
  pd_test_wait_until (run_session_selected, window, "the run's session to be selected");
  pd_test_wait_until (run_finished, fixture, "the run to finish");
  pd_test_spin (1500);
  g_assert_true (run_session_selected (window));
}

static void
test_run_selects_over_existing (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_streams);
  g_autoptr(PdSessionStore) store = pd_test_open_store (fixture->db);
  g_autofree char *older = pd_test_add_session (store, "An older session", "plandeck");
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_run_selects_over_existing, fixture, NULL), ==, 0);
}

/* A search that lists nothing ("zzz"), then a New Session: the run's
 * session is listed and selected, the search cleared.  The list said "No
 * Matching Sessions" for the whole run and the old session stayed shown
 * (tried as a new user would). */
static gboolean
nothing_matches (gpointer data)
{
  PdSessionList *list = session_list (data);

  return pd_session_list_get_query (list) != NULL && !pd_session_list_get_busy (list) &&
         g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (list))) == 0;
}

static void
check_run_clears_search (PdApplication *app,
                         PdWindow      *window,
                         gpointer       user_data)
{
  RunFixture *fixture = user_data;
  PdSessionList *list = session_list (window);
  GtkWidget *entry = pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_SEARCH_ENTRY);

  pd_test_wait_until (list_loaded_with_selection, window, "the listed session to be selected");
  pd_session_list_start_search (list);
  gtk_editable_set_text (GTK_EDITABLE (entry), "zzz");
  pd_test_wait_until (nothing_matches, window, "the search to list nothing");

  start_replay (window, fixture, PD_APPROVAL_POLICY_AUTO, "Summarise the project");
  pd_test_wait_until (run_session_selected, window, "the run's session to be selected");
  g_assert_null (pd_session_list_get_query (list));
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, "");
  pd_test_wait_until (run_finished, fixture, "the run to finish");
  g_assert_true (run_session_selected (window));
}

static void
test_run_clears_search (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_streams);
  g_autoptr(PdSessionStore) store = pd_test_open_store (fixture->db);
  g_autofree char *older = pd_test_add_session (store, "An older session", "plandeck");
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_run_clears_search, fixture, NULL), ==, 0);
}

/* --- approvals --------------------------------------------------------------- */

static void
check_approval_deny_then_once (PdApplication *app,
                               PdWindow      *window,
                               gpointer       user_data)
{
  RunFixture *fixture = user_data;
  AdwMessageDialog *dialog;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GPtrArray) results = NULL;

  start_replay (window, fixture, PD_APPROVAL_POLICY_ASK, "Write two files");

  /* The question is asked over the window, with the call shown as text. */
  dialog = pd_test_wait_for_dialog ("the first approval prompt");
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dialog)) == GTK_WINDOW (window));
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Allow This Change?");
  g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (dialog), "one.txt"));
  g_assert_false (project_file_exists (fixture, "one.txt"));
  respond (dialog, "deny");

  dialog = pd_test_wait_for_dialog ("the second approval prompt");
  g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (dialog), "two.txt"));
  respond (dialog, "once");

  pd_test_wait_until (run_finished, fixture, "the run to finish");
  g_assert_cmpint (fixture->status, ==, PD_RUN_COMPLETED);
  g_assert_false (project_file_exists (fixture, "one.txt"));
  g_assert_true (project_file_exists (fixture, "two.txt"));

  /* The model read the refusal as a denial, and the approved call's result. */
  messages = load_messages (fixture, pd_run_controller_get_session_id (pd_window_get_run_controller (window)));
  results = tool_results (messages);
  g_assert_cmpuint (results->len, ==, 2);
  g_assert_true (g_str_has_prefix (g_ptr_array_index (results, 0), "denied:"));
  g_assert_false (g_str_has_prefix (g_ptr_array_index (results, 1), "denied:"));
}

static void
test_run_approval_deny_then_once (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_writes);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_approval_deny_then_once, fixture, NULL), ==, 0);
}

static void
check_approval_always (PdApplication *app,
                       PdWindow      *window,
                       gpointer       user_data)
{
  RunFixture *fixture = user_data;
  AdwMessageDialog *dialog;

  start_replay (window, fixture, PD_APPROVAL_POLICY_ASK, "Write two files");

  dialog = pd_test_wait_for_dialog ("the approval prompt");
  respond (dialog, "always");

  /* The second write of the session is not asked about again. */
  pd_test_wait_until (run_finished, fixture, "the run to finish");
  g_assert_null (pd_test_open_message_dialog ());
  g_assert_true (project_file_exists (fixture, "one.txt"));
  g_assert_true (project_file_exists (fixture, "two.txt"));
}

static void
test_run_approval_always (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_writes);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_approval_always, fixture, NULL), ==, 0);
}

/* Stop answers an open question no and ends the run. */
static void
check_stop_while_asking (PdApplication *app,
                         PdWindow      *window,
                         gpointer       user_data)
{
  RunFixture *fixture = user_data;

  start_replay (window, fixture, PD_APPROVAL_POLICY_ASK, "Write two files");
  pd_test_wait_for_dialog ("the approval prompt");
  g_assert_true (action_enabled (window, "win.stop-run"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.stop-run", NULL));

  pd_test_wait_until (run_finished, fixture, "the run to stop");
  g_assert_cmpint (fixture->status, ==, PD_RUN_CANCELLED);
  g_assert_null (pd_test_open_message_dialog ());
  g_assert_false (project_file_exists (fixture, "one.txt"));

  /* The session records the call as interrupted, not as the person's
   * refusal: nobody said no (it read "the user declined", tried as a new
   * user would). */
  {
    g_autoptr(PdSessionStore) store = pd_test_open_store (fixture->db);
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) sessions = pd_session_store_list (store, NULL, FALSE, 0, 10, NULL, &error);
    g_autoptr(JsonArray) messages = NULL;
    g_autoptr(JsonNode) node = NULL;
    g_autofree char *text = NULL;

    g_assert_no_error (error);
    g_assert_cmpuint (sessions->len, ==, 1);
    messages = pd_session_store_load_messages (store, ((PdSessionInfo *) g_ptr_array_index (sessions, 0))->id,
                                               &error);
    g_assert_no_error (error);
    node = json_node_init_array (json_node_alloc (), messages);
    text = json_to_string (node, FALSE);
    g_assert_nonnull (strstr (text, "interrupted: the run was stopped"));
    g_assert_null (strstr (text, "the user declined"));
  }
}

static void
test_run_stop_while_asking (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_writes);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_stop_while_asking, fixture, NULL), ==, 0);
}

/* --- plan review ---------------------------------------------------------- */

static const char *replay_plan_mode =
  "{\"label\": \"test: plan mode\", \"turns\": ["
  " {\"content\": \"Here is my plan.\", \"tool_calls\": [{\"name\": \"exit_plan_mode\", \"arguments\": {\"plan\": \"# Tidy the README\\n\\n- read it\\n- <b>rewrite</b> it\\n\"}}]},"
  " {\"content\": \"Revised.\", \"tool_calls\": [{\"name\": \"exit_plan_mode\", \"arguments\": {\"plan\": \"# Tidy the README\\n\\n- read it\\n- rewrite the first line\\n\"}}]},"
  " {\"content\": \"Plan approved; starting.\"}]}";

static char *
dialog_text (AdwMessageDialog *dialog)
{
  GtkWidget *view = pd_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_TEXT_VIEW);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

typedef struct
{
  gboolean done;
  gboolean active;
} PlanModeRead;

static void
on_plan_mode_read (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  PlanModeRead *read = user_data;
  g_autoptr(GError) error = NULL;

  read->active = pd_run_controller_get_plan_mode_finish (PD_RUN_CONTROLLER (object), result, NULL, &error);
  g_assert_no_error (error);
  read->done = TRUE;
}

static gboolean
plan_mode_read (gpointer data)
{
  return ((PlanModeRead *) data)->done;
}

static gboolean
artifact_saved (RunFixture *fixture)
{
  g_autofree char *plans = g_build_filename (fixture->project, ".plandeck", "plans", NULL);
  g_autoptr(GDir) dir = g_dir_open (plans, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".md"))
      return TRUE;

  return FALSE;
}

static void
check_plan_review (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  RunFixture *fixture = user_data;
  PdRunController *runs;
  AdwMessageDialog *dialog;
  GtkWidget *feedback;
  g_autofree char *shown = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GPtrArray) results = NULL;
  PlanModeRead read = { 0 };
  GtkToggleButton *toggle;

  runs = start_replay (window, fixture, PD_APPROVAL_POLICY_ASK, "/plan Tidy the README");

  /* The first proposal: shown as text (the tags stay text), sent back. */
  dialog = pd_test_wait_for_dialog ("the plan review");
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Review the Plan");
  shown = dialog_text (dialog);
  g_assert_nonnull (strstr (shown, "Tidy the README"));
  g_assert_nonnull (strstr (shown, "<b>rewrite</b>"));
  g_assert_null (strstr (shown, "# Tidy"));   /* the heading is rendered as a heading */

  /* While planning, the toggle in the header says so. */
  toggle = find_plan_toggle (GTK_WIDGET (window));
  g_assert_true (GTK_IS_TOGGLE_BUTTON (toggle));

  feedback = pd_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_ENTRY);
  gtk_editable_set_text (GTK_EDITABLE (feedback), "Say which line");
  respond (dialog, "keep");

  /* The revision: approved. */
  dialog = pd_test_wait_for_dialog ("the second plan review");
  g_clear_pointer (&shown, g_free);
  shown = dialog_text (dialog);
  g_assert_nonnull (strstr (shown, "rewrite the first line"));
  respond (dialog, "approve");

  pd_test_wait_until (run_finished, fixture, "the run to finish");
  g_assert_cmpint (fixture->status, ==, PD_RUN_COMPLETED);

  /* Keep planning reached the model with the feedback; Approve approved. */
  messages = load_messages (fixture, pd_run_controller_get_session_id (runs));
  results = tool_results (messages);
  g_assert_cmpuint (results->len, ==, 2);
  g_assert_nonnull (strstr (g_ptr_array_index (results, 0), "Say which line"));
  g_assert_nonnull (strstr (g_ptr_array_index (results, 1), "approved"));
  g_assert_true (artifact_saved (fixture));

  /* Plan mode was left after the approval. */
  pd_run_controller_get_plan_mode_async (runs, pd_run_controller_get_session_id (runs), NULL,
                                         on_plan_mode_read, &read);
  pd_test_wait_until (plan_mode_read, &read, "the plan mode");
  g_assert_false (read.active);
  g_assert_false (gtk_toggle_button_get_active (toggle));
}

static void
test_run_plan_review (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_plan_mode);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_plan_review, fixture, NULL), ==, 0);
}

/* Closing the review dialog is "dismissed": the call fails, plan mode stays. */
static const char *replay_plan_dismissed =
  "{\"label\": \"test: plan mode dismissed\", \"turns\": ["
  " {\"content\": \"Here is my plan.\", \"tool_calls\": [{\"name\": \"exit_plan_mode\", \"arguments\": {\"plan\": \"# Tidy\\n\\n- read\\n\"}}]},"
  " {\"content\": \"Waiting for a review.\"}]}";

static gboolean
toggle_active (gpointer data)
{
  return gtk_toggle_button_get_active (data);
}

static void
check_plan_dismissed (PdApplication *app,
                      PdWindow      *window,
                      gpointer       user_data)
{
  RunFixture *fixture = user_data;
  AdwMessageDialog *dialog;
  GtkToggleButton *toggle;

  start_replay (window, fixture, PD_APPROVAL_POLICY_ASK, "/plan Tidy the README");
  dialog = pd_test_wait_for_dialog ("the plan review");
  g_object_ref (dialog);
  gtk_window_close (GTK_WINDOW (dialog));
  pd_test_assert_finalized (dialog);

  pd_test_wait_until (run_finished, fixture, "the run to finish");
  g_assert_false (artifact_saved (fixture));

  /* The session is still in plan mode, and the toggle shows it (once the
   * run's session is selected: the list may still be merging a push). */
  toggle = find_plan_toggle (GTK_WIDGET (window));
  pd_test_wait_until ((PdTestCondition) gtk_widget_get_visible, toggle, "the plan mode toggle");
  pd_test_wait_until (toggle_active, toggle, "the plan mode toggle to be on");
}

static void
test_run_plan_dismissed (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_plan_dismissed);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_plan_dismissed, fixture, NULL), ==, 0);
}

/* --- the configuration, as the CLI follows it -------------------------------- */

/* The window's runs and `plandeck-agent run` get their engines from the same
 * builder: the same configuration (the person's config.json, the project
 * file of the folder the tools work in) gives the same limits, the same
 * plan mode and the same reach of the tools (allow_outside).  Each case runs the window, then the real CLI on a copy of the
 * folder, and compares what both runs left in their databases. */

static void
write_global_config (const char *json)
{
  g_autofree char *dir = g_build_filename (g_get_user_config_dir (), "plandeck", NULL);
  g_autofree char *path = g_build_filename (dir, "config.json", NULL);

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, json, -1, NULL));
}

/* A second folder for the CLI's run, with what the window's folder has. */
static char *
copy_project (RunFixture *fixture,
              const char *project_json)
{
  g_autofree char *readme = NULL;
  char *copy = g_build_filename (fixture->dir, "cli-project", NULL);

  g_assert_cmpint (g_mkdir (copy, 0700), ==, 0);
  readme = g_build_filename (copy, "README.md", NULL);
  g_assert_true (g_file_set_contents (readme, "A small project.\n", -1, NULL));
  if (project_json != NULL)
    {
      g_autofree char *window_file = g_build_filename (fixture->project, "plandeck.json", NULL);
      g_autofree char *cli_file = g_build_filename (copy, "plandeck.json", NULL);

      g_assert_true (g_file_set_contents (window_file, project_json, -1, NULL));
      g_assert_true (g_file_set_contents (cli_file, project_json, -1, NULL));
    }

  return copy;
}

/* What a run left, as one line to compare: how it ended, the budget that
 * stopped it (name and limit, as the budget_exceeded event says), and the
 * result of every tool call in order. */
static char *
describe_run (const char *db,
              const char *session_id,
              const char *ending)
{
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GPtrArray) results = NULL;
  GString *out = g_string_new (ending);

  events = pd_session_store_list_events (store, session_id, "budget_exceeded", 0, 10, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < events->len; i++)
    {
      PdStoredEvent *event = g_ptr_array_index (events, i);
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *data;

      g_assert_true (json_parser_load_from_data (parser, event->event_json, -1, NULL));
      data = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "data");
      g_string_append_printf (out, "; budget %s/%" G_GINT64_FORMAT,
                              json_object_get_string_member (data, "limit_name"),
                              json_object_get_int_member (data, "limit"));
    }

  messages = pd_session_store_load_messages (store, session_id, &error);
  g_assert_no_error (error);
  results = tool_results (messages);
  for (guint i = 0; i < results->len; i++)
    g_string_append_printf (out, "; tool %s", (const char *) g_ptr_array_index (results, i));

  return g_string_free (out, FALSE);
}

static const char *
ending_of (PdRunStatus status)
{
  switch (status)
    {
    case PD_RUN_COMPLETED:
      return "done";
    case PD_RUN_BUDGET_EXCEEDED:
      return "budget";
    case PD_RUN_CANCELLED:
      return "cancelled";
    case PD_RUN_FAILED:
    default:
      return "failed";
    }
}

/* Runs the real `plandeck-agent run` in @folder on a database of its own
 * and describes its one session.  NULL when the binary is not known. */
static char *
run_cli (RunFixture         *fixture,
         const char         *folder,
         const char * const *options,
         const char         *task)
{
  const char *agent = g_getenv ("PLANDECK_AGENT");
  g_autofree char *db = g_build_filename (fixture->dir, "cli.db", NULL);
  g_autoptr(GStrvBuilder) argv_builder = g_strv_builder_new ();
  g_auto(GStrv) argv = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  PdSessionInfo *info;
  const char *ending;
  int wait_status = 0;
  guint total = 0;

  if (agent == NULL)
    return NULL;

  g_strv_builder_add_many (argv_builder, agent, "run", "--db", db, "-C", folder, "--approve", "auto", NULL);
  g_strv_builder_addv (argv_builder, (const char **) options);
  g_strv_builder_add (argv_builder, task);
  argv = g_strv_builder_end (argv_builder);

  g_spawn_sync (NULL, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &wait_status, &error);
  g_assert_no_error (error);
  g_test_message ("plandeck-agent: exit %d\n%s%s", WEXITSTATUS (wait_status), out, err);
  g_assert_true (WIFEXITED (wait_status));
  switch (WEXITSTATUS (wait_status))
    {
    case 0:
      ending = "done";
      break;
    case 3:
      ending = "budget";
      break;
    default:
      ending = "failed";
      break;
    }

  store = pd_test_open_store (db);
  sessions = pd_session_store_list (store, NULL, FALSE, 0, 10, &total, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sessions->len, ==, 1);
  info = g_ptr_array_index (sessions, 0);

  return describe_run (db, info->id, ending);
}

typedef struct
{
  const char *name;
  const char *global_json;    /* the person's config.json, or NULL */
  const char *project_json;   /* the folder's plandeck.json, or NULL */
  const char *replay;
  const char *task;
  const char *expected;       /* how the window's run must begin */
  const char *notice;         /* (nullable) what the window must show from the config */
} ConfigCase;

static const char *replay_four_looks =
  "{\"label\": \"test: four looks\", \"turns\": ["
  " {\"content\": \"One.\", \"input_tokens\": 30, \"output_tokens\": 30, \"tool_calls\": [{\"name\": \"list_dir\", \"arguments\": {}}]},"
  " {\"content\": \"Two.\", \"input_tokens\": 30, \"output_tokens\": 30, \"tool_calls\": [{\"name\": \"list_dir\", \"arguments\": {}}]},"
  " {\"content\": \"Three.\", \"input_tokens\": 30, \"output_tokens\": 30, \"tool_calls\": [{\"name\": \"list_dir\", \"arguments\": {}}]},"
  " {\"content\": \"All seen.\"}]}";

/* The first turn takes longer than the one-second limit (no timing is
 * asserted: the elapsed time is at least the delay), and the budget cuts
 * it: the run ends before its tool, in the window as on the command line. */
static const char *replay_slow_look =
  "{\"label\": \"test: a slow look\", \"turns\": ["
  " {\"content\": \"Looking.\", \"delay_ms\": 1200, \"tool_calls\": [{\"name\": \"list_dir\", \"arguments\": {}}]},"
  " {\"content\": \"Still looking.\", \"tool_calls\": [{\"name\": \"list_dir\", \"arguments\": {}}]},"
  " {\"content\": \"Seen.\"}]}";

static const char *replay_plan_mode_writes =
  "{\"label\": \"test: writes in plan mode\", \"turns\": ["
  " {\"content\": \"Noting.\", \"tool_calls\": [{\"name\": \"write_file\", \"arguments\": {\"path\": \"notes.txt\", \"content\": \"n\\n\"}}]},"
  " {\"content\": \"Noted.\"}]}";

/* A file beside the project: read only where the configuration allows the
 * tools outside their folder. */
static const char *replay_read_outside =
  "{\"label\": \"test: a file beside\", \"turns\": ["
  " {\"content\": \"Reading.\", \"tool_calls\": [{\"name\": \"read_file\", \"arguments\": {\"path\": \"../outside.txt\"}}]},"
  " {\"content\": \"Read.\"}]}";

static const ConfigCase config_cases[] = {
  { "limits/iterations", "{\"limits\": {\"max_iterations\": 2}}", NULL,
    NULL, "Look around", "budget; budget iterations/2;", NULL },
  { "limits/tokens", "{\"limits\": {\"max_tokens\": 100}}", NULL,
    NULL, "Look around", "budget; budget tokens/100;", NULL },
  { "limits/time", "{\"limits\": {\"max_seconds\": 1}}", NULL,
    NULL, "Look around", "budget; budget wall_time/1000", NULL },
  { "limits/project-lowers", NULL, "{\"limits\": {\"max_iterations\": 1}}",
    NULL, "Look around", "budget; budget iterations/1;", NULL },
  { "plan-mode/advisory", "{\"plan_mode\": {\"advisory\": true}}", NULL,
    NULL, "/plan Take notes", "done; tool created notes.txt", NULL },
  { "plan-mode/project-cannot-loosen", NULL, "{\"plan_mode\": {\"advisory\": true}}",
    NULL, "/plan Take notes", "done; tool plan mode is active: write_file is refused while planning",
    "plan_mode.advisory true ignored: a project may only turn it off" },
  { "tools/allow-outside", "{\"tools\": {\"allow_outside\": true}}", NULL,
    NULL, "Read the file beside", "done; tool beside the project\n", NULL },
};

typedef struct
{
  const ConfigCase *c;
  RunFixture       *fixture;
} ConfigRun;

static void
check_config_case (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  ConfigRun *run = user_data;
  PdRunController *runs;

  runs = start_replay (window, run->fixture, PD_APPROVAL_POLICY_AUTO, run->c->task);
  pd_test_wait_until (run_finished, run->fixture, "the run to finish");
  /* What the CLI prints on stderr, the window shows with the run. */
  if (run->c->notice != NULL)
    g_assert_nonnull (strstr (pd_run_controller_get_transcript (runs), run->c->notice));
}

static void
test_config_case (gconstpointer data)
{
  const ConfigCase *c = data;
  const char *replay = g_str_has_prefix (c->name, "plan-mode/") ? replay_plan_mode_writes
                     : g_str_has_prefix (c->name, "tools/") ? replay_read_outside
                     : g_str_equal (c->name, "limits/time") ? replay_slow_look : replay_four_looks;
  g_autoptr(RunFixture) fixture = run_fixture_new (replay);
  g_autofree char *outside = g_build_filename (fixture->dir, "outside.txt", NULL);
  const char *args[] = { "--db", fixture->db, NULL };
  g_autofree char *cli_project = NULL;
  g_autofree char *window_run = NULL;
  g_autofree char *cli_run = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(GError) error = NULL;
  const char *cli_options[] = { "--provider", "replay", "--replay", fixture->replay, NULL, NULL };
  const char *task = c->task;
  ConfigRun run = { c, fixture };
  guint total = 0;

  if (g_getenv ("PLANDECK_AGENT") == NULL)
    {
      g_test_skip ("PLANDECK_AGENT (the plandeck-agent to compare with) is not set");
      return;
    }

  /* Beside both the window's folder and the CLI's copy of it. */
  g_assert_true (g_file_set_contents (outside, "beside the project\n", -1, NULL));
  if (c->global_json != NULL)
    write_global_config (c->global_json);
  cli_project = copy_project (fixture, c->project_json);

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_config_case, &run, NULL), ==, 0);

  store = pd_test_open_store (fixture->db);
  sessions = pd_session_store_list (store, NULL, FALSE, 0, 10, &total, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sessions->len, ==, 1);
  window_run = describe_run (fixture->db, ((PdSessionInfo *) g_ptr_array_index (sessions, 0))->id,
                             ending_of (fixture->status));

  if (g_str_has_prefix (task, "/plan "))
    {
      cli_options[4] = "--plan-mode";
      task += strlen ("/plan ");
    }
  cli_run = run_cli (fixture, cli_project, cli_options, task);

  remove_global_config ();
  g_test_message ("window: %s\ncli:    %s", window_run, cli_run);
  g_assert_true (g_str_has_prefix (window_run, c->expected));
  g_assert_cmpstr (window_run, ==, cli_run);
}

/* The plan-mode guidance of the person's config reaches the model from the
 * window as from the CLI: both ask a loopback server, which keeps what it
 * was sent. */
static const char *provider_reply =
  "{\"id\": \"r\", \"object\": \"chat.completion\", \"model\": \"m\", \"choices\": [{\"index\": 0,"
  " \"finish_reason\": \"stop\", \"message\": {\"role\": \"assistant\", \"content\": \"Planned.\"}}],"
  " \"usage\": {\"prompt_tokens\": 3, \"completion_tokens\": 2}}";

#define GUIDANCE_MARKER "Guidance 7f3a: name every file you would touch."

typedef struct
{
  RunFixture *fixture;
  TestServer *server;
} GuidanceRun;

static void
check_guidance (PdApplication *app,
                PdWindow      *window,
                gpointer       user_data)
{
  GuidanceRun *run = user_data;
  PdRunController *runs = pd_window_get_run_controller (window);
  g_autoptr(PdRunSettings) settings = pd_run_settings_new ();
  g_autoptr(GError) error = NULL;

  settings->base_url = g_strdup (run->server->base_url);
  settings->model = g_strdup ("local-model");
  settings->working_directory = g_strdup (run->fixture->project);
  settings->policy = PD_APPROVAL_POLICY_AUTO;
  settings->planning = TRUE;
  g_signal_connect (runs, "finished", G_CALLBACK (on_finished), run->fixture);
  g_assert_true (pd_run_controller_start (runs, settings, "/plan Look around", &error));
  g_assert_no_error (error);
  pd_test_wait_until (run_finished, run->fixture, "the run to finish");
  g_assert_cmpint (run->fixture->status, ==, PD_RUN_COMPLETED);
}

static gboolean
request_has (TestServer *server,
             guint       index,
             const char *text)
{
  TestRequest *request = test_server_request (server, index);
  g_autofree char *body = g_strndup (g_bytes_get_data (request->body, NULL), g_bytes_get_size (request->body));

  return strstr (body, text) != NULL;
}

static void
test_config_guidance (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_four_looks);
  const char *args[] = { "--db", fixture->db, NULL };
  g_autofree char *cli_project = NULL;
  g_autofree char *cli_run = NULL;
  GuidanceRun run = { fixture, NULL };
  const char *cli_options[] = { "--provider", "openai", "--base-url", NULL, "--model", "local-model", "--plan-mode", NULL };

  if (g_getenv ("PLANDECK_AGENT") == NULL)
    {
      g_test_skip ("PLANDECK_AGENT (the plandeck-agent to compare with) is not set");
      return;
    }

  test_unset_proxies ();
  run.server = test_server_new ();
  test_server_push (run.server, test_reply_plain (200, "application/json", provider_reply));
  test_server_push (run.server, test_reply_plain (200, "application/json", provider_reply));
  write_global_config ("{\"plan_mode\": {\"section\": \"" GUIDANCE_MARKER "\"}}");
  cli_project = copy_project (fixture, NULL);

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_guidance, &run, NULL), ==, 0);

  cli_options[3] = run.server->base_url;
  cli_run = run_cli (fixture, cli_project, cli_options, "Look around");
  remove_global_config ();
  g_assert_true (g_str_has_prefix (cli_run, "done"));

  g_assert_cmpuint (test_server_count (run.server), ==, 2);
  g_assert_true (request_has (run.server, 0, GUIDANCE_MARKER));
  g_assert_true (request_has (run.server, 1, GUIDANCE_MARKER));
  test_server_free (run.server);
}

/* What the model did, in the window: an overloaded server asked again
 * (the run bar says so as it waits), then the model's refusal, said with
 * its explanation when the run ends.  A loopback server plays the real
 * Anthropic refusal recording after a 529 made in the API's shape. */
static char *
provider_recording (const char *relative)
{
  g_autofree char *path = g_build_filename (g_getenv ("PD_FIXTURES_DIR"), relative, NULL);
  g_autoptr(GError) error = NULL;
  char *text = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

static void
check_retry_and_refusal (PdApplication *app,
                         PdWindow      *window,
                         gpointer       user_data)
{
  GuidanceRun *run = user_data;
  PdRunController *runs = pd_window_get_run_controller (window);
  g_autoptr(PdRunSettings) settings = pd_run_settings_new ();
  g_autoptr(GError) error = NULL;

  g_free (settings->provider);
  settings->provider = g_strdup ("anthropic");
  settings->base_url = g_strdup (run->server->base_url);
  settings->model = g_strdup ("claude-test");
  settings->working_directory = g_strdup (run->fixture->project);
  settings->policy = PD_APPROVAL_POLICY_AUTO;
  g_signal_connect (runs, "finished", G_CALLBACK (on_finished), run->fixture);
  g_assert_true (pd_run_controller_start (runs, settings, "Write something harmful", &error));
  g_assert_no_error (error);
  pd_test_wait_until (run_finished, run->fixture, "the run to finish");

  g_assert_cmpint (run->fixture->status, ==, PD_RUN_REFUSED);
  g_assert_nonnull (strstr (run->fixture->message, "This request was refused due to policy."));
  g_assert_nonnull (strstr (pd_run_controller_get_transcript (runs), "HTTP 529"));
  g_assert_nonnull (strstr (pd_run_controller_get_transcript (runs), "sending the request again in 20 ms"));
  g_assert_nonnull (strstr (pd_run_controller_get_activity (runs), "the model refused to answer (cyber)"));
}

static void
test_run_retry_and_refusal (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_four_looks);
  const char *args[] = { "--db", fixture->db, NULL };
  g_autofree char *overloaded = provider_recording ("anthropic/made-529-overloaded.json");
  g_autofree char *refusal = provider_recording ("anthropic/refusal_response.sse");
  GuidanceRun run = { fixture, NULL };
  TestReply *reply;

  test_unset_proxies ();
  run.server = test_server_new ();
  reply = test_reply_plain (529, "application/json", overloaded);
  reply->retry_after_ms = g_strdup ("20");
  test_server_push (run.server, reply);
  test_server_push (run.server, test_reply_stream ("text/event-stream", refusal, 0, TRUE));

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_retry_and_refusal, &run, NULL), ==, 0);
  g_assert_cmpuint (test_server_count (run.server), ==, 2);
  test_server_free (run.server);
}

/* --- the new session dialog ---------------------------------------------------- */

static void
check_new_session_dialog (PdApplication *app,
                          PdWindow      *window,
                          gpointer       user_data)
{
  RunFixture *fixture = user_data;
  PdNewSessionDialog *dialog;
  g_autoptr(PdRunSettings) settings = NULL;
  g_autofree char *message = NULL;
  g_autoptr(GSettings) gsettings = g_settings_new (APP_ID);
  g_autofree char *remembered = NULL;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.new-session", NULL));
  dialog = PD_NEW_SESSION_DIALOG (pd_test_find_toplevel (PD_TYPE_NEW_SESSION_DIALOG));
  g_assert_nonnull (dialog);
  pd_test_flush (GTK_WIDGET (dialog));

  /* It opens with the task's field focused, so typing goes there. */
  g_assert_true (gtk_root_get_focus (GTK_ROOT (dialog)) == pd_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_TEXT_VIEW));

  /* Nothing to start without a task. */
  g_assert_false (pd_new_session_dialog_activate_start (dialog));

  pd_new_session_dialog_set_task (dialog, "Summarise the project");
  pd_new_session_dialog_set_folder (dialog, fixture->project);
  settings = pd_new_session_dialog_dup_settings (dialog);
  message = pd_new_session_dialog_dup_message (dialog);
  g_assert_cmpstr (settings->working_directory, ==, fixture->project);
  g_assert_cmpstr (message, ==, "Summarise the project");
  /* The default profile: an OpenAI-compatible server on this machine. */
  g_assert_cmpstr (settings->provider, ==, "openai");

  pd_test_destroy_window (dialog, NULL);
  g_assert_cmpstr ((remembered = g_settings_get_string (gsettings, "last-working-directory")), ==, "");
}

static void
test_new_session_dialog (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_streams);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_new_session_dialog, fixture, NULL), ==, 0);
}

/* --- preferences --------------------------------------------------------------- */

static void
check_preferences (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(GVariant) before = g_settings_get_value (settings, "provider-profiles");
  g_autoptr(GVariant) after = NULL;
  GtkWindow *preferences;
  GtkWidget *add;
  GtkSwitch *privacy;
  const char *name, *kind, *env;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.preferences", NULL));
  preferences = pd_test_find_toplevel (PD_TYPE_PREFERENCES_WINDOW);
  g_assert_nonnull (preferences);
  pd_test_flush (GTK_WIDGET (preferences));

  /* The privacy switch is on by default and stored as it is flipped. */
  g_assert_true (g_settings_get_boolean (settings, "read-agent-plans"));
  privacy = GTK_SWITCH (pd_test_find_widget (gtk_widget_get_ancestor (pd_test_find_label (GTK_WIDGET (preferences), "Read Agents’ Plans into Their Checklists"),
                                                                     ADW_TYPE_ACTION_ROW),
                                             GTK_TYPE_SWITCH));
  g_assert_true (gtk_switch_get_active (privacy));
  /* It names every agent whose transcripts it reads (it named three of
   * eight, tried as a new user would). */
  {
    const char *agents[] = { "claude-code", "codex", "opencode", "qwen", "gemini", "cline", "roo", "kilo" };
    const char *subtitle = adw_action_row_get_subtitle (ADW_ACTION_ROW (gtk_widget_get_ancestor (GTK_WIDGET (privacy),
                                                                                                  ADW_TYPE_ACTION_ROW)));

    for (gsize i = 0; i < G_N_ELEMENTS (agents); i++)
      if (strstr (subtitle, pd_session_source_label (agents[i])) == NULL)
        g_error ("the privacy setting does not name %s: %s", pd_session_source_label (agents[i]), subtitle);
  }
  gtk_switch_set_active (privacy, FALSE);
  g_assert_false (g_settings_get_boolean (settings, "read-agent-plans"));

  /* Add Profile stores a new profile: a kind and an environment variable name, no key. */
  add = NULL;
  {
    GPtrArray *buttons = g_ptr_array_new ();

    pd_test_collect (GTK_WIDGET (preferences), GTK_TYPE_BUTTON, buttons);
    for (guint i = 0; i < buttons->len && add == NULL; i++)
      if (g_strcmp0 (gtk_widget_get_tooltip_text (g_ptr_array_index (buttons, i)), "Add Profile") == 0)
        add = g_ptr_array_index (buttons, i);
    g_ptr_array_unref (buttons);
  }
  g_assert_nonnull (add);
  g_signal_emit_by_name (add, "clicked");

  after = g_settings_get_value (settings, "provider-profiles");
  g_assert_cmpuint (g_variant_n_children (after), ==, g_variant_n_children (before) + 1);
  g_variant_get_child (after, g_variant_n_children (after) - 1, "(&s&ss&s&s)", &name, &kind, NULL, NULL, &env);
  g_assert_cmpstr (name, ==, "New Profile");
  g_assert_cmpstr (kind, ==, "openai");
  g_assert_cmpstr (env, ==, "OPENAI_API_KEY");

  pd_test_destroy_window (preferences, NULL);
}

static void
test_preferences (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_streams);
  const char *args[] = { "--db", fixture->db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_preferences, NULL, NULL), ==, 0);
}

/* The Now workspace polls at the cadence of the preferences. */
static void
test_preferences_poll_cadence (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  GtkWidget *view;
  PdPollTimer *timer;

  pd_test_reset_settings ();
  g_settings_set_uint (settings, "poll-running-ms", 500);
  g_settings_set_uint (settings, "poll-idle-ms", 5000);

  view = g_object_ref_sink (pd_now_view_new ());
  timer = _pd_now_view_get_poll_timer (PD_NOW_VIEW (view));
  pd_poll_timer_set_visible (timer, TRUE);
  pd_poll_timer_set_running (timer, TRUE);
  g_assert_cmpuint (pd_poll_timer_get_interval (timer), ==, 500);
  pd_poll_timer_set_running (timer, FALSE);
  g_assert_cmpuint (pd_poll_timer_get_interval (timer), ==, 5000);
  g_assert_finalize_object (view);
  pd_test_reset_settings ();
}


int
main (int   argc,
      char *argv[])
{
  char *config_home = pd_test_runs_init (&argc, &argv);
  int status;

  g_test_add_func ("/pd/ui/demo/plays-live", test_demo_plays_live);
  g_test_add_func ("/pd/ui/demo/from-empty-state", test_demo_from_empty_state);
  g_test_add_func ("/pd/ui/runs/streams-into-window", test_run_streams_into_window);
  g_test_add_func ("/pd/ui/runs/clears-search", test_run_clears_search);
  g_test_add_func ("/pd/ui/runs/selects-over-existing", test_run_selects_over_existing);
  g_test_add_func ("/pd/ui/runs/approval-deny-then-once", test_run_approval_deny_then_once);
  g_test_add_func ("/pd/ui/runs/approval-always", test_run_approval_always);
  g_test_add_func ("/pd/ui/runs/stop-while-asking", test_run_stop_while_asking);
  g_test_add_func ("/pd/ui/runs/plan-review", test_run_plan_review);
  g_test_add_func ("/pd/ui/runs/plan-review-dismissed", test_run_plan_dismissed);
  for (guint i = 0; i < G_N_ELEMENTS (config_cases); i++)
    {
      g_autofree char *path = g_strconcat ("/pd/ui/runs/config/", config_cases[i].name, NULL);

      g_test_add_data_func (path, &config_cases[i], test_config_case);
    }
  g_test_add_func ("/pd/ui/runs/config/plan-mode/guidance", test_config_guidance);
  g_test_add_func ("/pd/ui/runs/retry-and-refusal", test_run_retry_and_refusal);
  g_test_add_func ("/pd/ui/runs/new-session-dialog", test_new_session_dialog);
  g_test_add_func ("/pd/ui/preferences/profiles-and-privacy", test_preferences);
  g_test_add_func ("/pd/ui/preferences/poll-cadence", test_preferences_poll_cadence);

  status = g_test_run ();
  pd_test_runs_finish (config_home);

  return status;
}
