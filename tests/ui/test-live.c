/* test-live.c: every view true and live
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the window shows is what is stored, without a click: the demo's
 * run, a run of a second process (plandeck-agent continue) on the same
 * database, and a burst of 500 events (a window on a serve endpoint:
 * test-live-remote.c).  The fallback polls are set to their
 * longest (10 s running, 60 s idle), so what follows here is pushed.
 */
#define G_LOG_DOMAIN "test-live"

#include "config.h"

#include "pd-event.h"
#include "pd-event-item.h"
#include "pd-local-source.h"
#include "pd-session-view.h"
#include "pd-test-live.h"

/* --- the demo fills every view live --------------------------------------- */

static gboolean
demo_done (gpointer data)
{
  PdWindow *window = data;
  const PdPlanState *plan = pd_now_view_get_plan (now_view (window));
  PdPlanCounts counts;

  if (plan == NULL)
    return FALSE;
  pd_plan_state_count (plan, &counts);
  return counts.steps > 0 && counts.done == counts.steps && pd_session_list_get_selected_item (session_list (window)) != NULL;
}

static void
check_demo (PdApplication *app,
            PdWindow      *window,
            gpointer       user_data)
{
  PdDemo *demo = pd_window_get_demo (window);
  PdSessionItem *item;

  pd_test_wait_until (demo_done, window, "the demo's plan to be all done");
  item = pd_session_list_get_selected_item (session_list (window));
  /* The run's last commits land after its plan is done: give them time to
   * be pushed, then every page must show all of it. */
  pd_test_flush (GTK_WIDGET (window));
  check_every_page (window, pd_demo_get_database_path (demo), pd_session_item_get_id (item));
}

static void
test_live_demo (void)
{
  const char *args[] = { "--demo", NULL };
  gboolean saw_window = FALSE;

  set_longest_polls ();
  g_setenv ("PLANDECK_DEMO_SPEED", "0", TRUE);
  g_assert_cmpint (pd_test_run_app (args, check_demo, NULL, &saw_window), ==, 0);
  g_unsetenv ("PLANDECK_DEMO_SPEED");
  g_assert_true (saw_window);
}

/* --- Events at 360 px, resized while another page was shown ------------------ */

static gboolean
window_narrow (gpointer data)
{
  GtkWidget *window = data;

  return gtk_widget_get_width (window) > 0 && gtk_widget_get_width (window) <= 360;
}

static gboolean
events_compact (gpointer data)
{
  return pd_events_view_get_compact (data);
}

static gboolean
is_mapped_label (GtkWidget     *widget,
                 gconstpointer  text)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0;
}

typedef struct
{
  GtkWidget  *view;
  const char *text;
} LabelWait;

/* The label is drawn inside the list's scroller, not scrolled out of it. */
static gboolean
label_in_view (gpointer data)
{
  LabelWait *wait = data;
  GtkWidget *columns = pd_test_find_widget (wait->view, GTK_TYPE_COLUMN_VIEW);
  GtkWidget *scroller = gtk_widget_get_ancestor (columns, GTK_TYPE_SCROLLED_WINDOW);
  GtkWidget *label = pd_test_find_first (wait->view, is_mapped_label, wait->text);
  graphene_rect_t bounds;

  return label != NULL && gtk_widget_compute_bounds (label, scroller, &bounds) &&
         bounds.origin.y >= 0 && bounds.origin.y + bounds.size.height <= gtk_widget_get_height (scroller) + 1;
}

static GtkWidget *
jump_button (GtkWidget *view)
{
  g_autoptr(GPtrArray) buttons = g_ptr_array_new ();

  pd_test_collect (view, GTK_TYPE_BUTTON, buttons);
  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_widget_get_tooltip_text (g_ptr_array_index (buttons, i)), "Jump to the Newest Event") == 0)
      return g_ptr_array_index (buttons, i);
  g_assert_not_reached ();
}

/* Tried as a new user would: the demo shown wide on its Now page, the
 * window made phone-narrow, then Events opened.  A manual run reported wide
 * columns and the first rows there; main at 9058a71 shows compact rows and
 * the newest here (and with a resize in steps), which this guards.  Scrolled up, the jump button floated over the rows and hid
 * a row's text at this width (failed before it moved beside the count). */
static void
check_demo_events_narrow (PdApplication *app,
                          PdWindow      *window,
                          gpointer       user_data)
{
  PdEventsView *events = PD_EVENTS_VIEW (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_EVENTS_VIEW));
  GListModel *model = pd_events_view_get_model (events);
  PdSessionItem *item;
  g_autoptr(PdEventItem) newest = NULL;
  Stored stored;
  LabelWait wait;

  pd_test_wait_until (demo_done, window, "the demo's plan to be all done");
  item = pd_session_list_get_selected_item (session_list (window));
  stored = read_stored (pd_demo_get_database_path (pd_window_get_demo (window)), pd_session_item_get_id (item));
  /* Not read while hidden: the Now page reads its notices itself. */
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 0);

  gtk_window_set_default_size (GTK_WINDOW (window), 360, 700);
  pd_test_wait_until (window_narrow, window, "the window to be 360 px wide");
  pd_test_flush (GTK_WIDGET (window));

  show_page (window, "events");
  wait_for_count (model, MIN (stored.events, PD_EVENTS_VIEW_LATEST_MAX), "the Events, shown");
  pd_test_wait_until (events_compact, events, "the Events to be compact");
  g_assert_true (pd_events_view_get_following (events));
  newest = g_list_model_get_item (model, g_list_model_get_n_items (model) - 1);
  wait.view = GTK_WIDGET (events);
  wait.text = pd_event_item_get_summary (newest);
  pd_test_wait_until (label_in_view, &wait, "the newest event drawn");
  g_assert_true (pd_events_view_get_following (events));
  pd_test_screenshot (GTK_WIDGET (window), "demo-events-narrow");

  /* Scrolled up, the jump button is offered and covers no row's text. */
  {
    GtkWidget *columns = pd_test_find_widget (GTK_WIDGET (events), GTK_TYPE_COLUMN_VIEW);
    GtkWidget *scroller = gtk_widget_get_ancestor (columns, GTK_TYPE_SCROLLED_WINDOW);
    g_autoptr(GPtrArray) labels = g_ptr_array_new ();
    GtkWidget *jump = jump_button (GTK_WIDGET (events));
    graphene_rect_t button;
    graphene_rect_t shown;
    guint checked = 0;

    gtk_adjustment_set_value (gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller)), 0);
    pd_test_flush (GTK_WIDGET (window));
    g_assert_false (pd_events_view_get_following (events));
    g_assert_true (gtk_widget_get_mapped (jump));
    /* Where the person put it: the button took no room from the list (a
     * bar below it moved the rows 42 px).  The list view may still settle
     * its estimate of the rows' heights by a pixel or two as they are
     * measured, which is no jump. */
    g_assert_cmpfloat (gtk_adjustment_get_value (gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller))), <, 8);
    pd_test_screenshot (GTK_WIDGET (window), "demo-events-narrow-scrolled-up");
    g_assert_true (gtk_widget_compute_bounds (jump, GTK_WIDGET (window), &button));
    g_assert_true (gtk_widget_compute_bounds (scroller, GTK_WIDGET (window), &shown));
    pd_test_collect (columns, GTK_TYPE_LABEL, labels);
    for (guint i = 0; i < labels->len; i++)
      {
        GtkWidget *label = g_ptr_array_index (labels, i);
        graphene_rect_t bounds;
        graphene_rect_t visible;

        if (!gtk_widget_get_mapped (label) || gtk_label_get_text (GTK_LABEL (label))[0] == '\0' ||
            !gtk_widget_compute_bounds (label, GTK_WIDGET (window), &bounds) ||
            !graphene_rect_intersection (&bounds, &shown, &visible))
          continue;
        checked++;
        if (graphene_rect_intersection (&visible, &button, NULL))
          g_error ("the jump button (%g,%g %gx%g) covers \"%s\" (%g,%g %gx%g)",
                   button.origin.x, button.origin.y, button.size.width, button.size.height,
                   gtk_label_get_text (GTK_LABEL (label)),
                   visible.origin.x, visible.origin.y, visible.size.width, visible.size.height);
      }
    g_assert_cmpuint (checked, >, 4);
  }
}

static void
test_live_demo_events_narrow (void)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  const char *args[] = { "--demo", NULL };
  gboolean saw_window = FALSE;

  set_longest_polls ();
  g_settings_set_int (settings, "window-width", 1100);
  g_settings_set_int (settings, "window-height", 700);
  g_setenv ("PLANDECK_DEMO_SPEED", "0", TRUE);
  g_assert_cmpint (pd_test_run_app (args, check_demo_events_narrow, NULL, &saw_window), ==, 0);
  g_unsetenv ("PLANDECK_DEMO_SPEED");
  g_assert_true (saw_window);
}

/* --- the demo's pages fill while it runs ------------------------------------ */

typedef struct
{
  PdWindow       *window;
  gboolean        bus_only;
  PdSessionStore *store;      /* the test's own connection */
  char           *id;
  GListModel     *model;      /* the page shown */
  guint           above;      /* rows to go beyond */
  guint           stored_end; /* rows stored once the run is over (0: running) */
} Running;

static gboolean
demo_session_selected (gpointer data)
{
  Running *running = data;

  return pd_session_list_get_selected_item (session_list (running->window)) != NULL &&
         g_file_test (pd_demo_get_database_path (pd_window_get_demo (running->window)), G_FILE_TEST_EXISTS);
}

static gboolean
demo_still_running (Running *running)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionInfo) info = pd_session_store_get (running->store, running->id, &error);

  g_assert_no_error (error);
  return info->status == PD_SESSION_STATUS_RUNNING;
}

/* The page shows more than running->above rows, or the run is over. */
static gboolean
grew_or_over (gpointer data)
{
  Running *running = data;

  return g_list_model_get_n_items (running->model) > running->above || !demo_still_running (running);
}

/* The page shown grows while the run goes on, with no click: twice, so
 * what shows it is the view following, not the page's first read. */
static void
follow_while_running (Running    *running,
                      const char *page,
                      GListModel *model,
                      guint       floor,
                      const char *what)
{
  show_page (running->window, page);
  running->model = model;
  running->above = floor;
  pd_test_wait_until (grew_or_over, running, what);
  g_assert_true (demo_still_running (running));
  g_test_message ("%s: %u rows while the demo runs", what, g_list_model_get_n_items (model));
  running->above = g_list_model_get_n_items (model);
  pd_test_wait_until (grew_or_over, running, what);
  g_assert_true (demo_still_running (running));
  g_test_message ("%s: then %u rows, the demo still running", what, g_list_model_get_n_items (model));
}

static void
check_demo_running (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  Running *running = user_data;
  PdDemo *demo = pd_window_get_demo (window);
  GListModel *transcript = pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (pd_test_find_widget (GTK_WIDGET (window),
                                                                                                  PD_TYPE_TRANSCRIPT_VIEW)));
  GListModel *history = pd_history_view_get_model (PD_HISTORY_VIEW (pd_test_find_widget (GTK_WIDGET (window),
                                                                                          PD_TYPE_HISTORY_VIEW)));

  running->window = window;
  /* No file monitor and no poll: the demo's events alone tell the window
   * (as on a file system without change notification). */
  if (running->bus_only)
    pd_local_source_watch (PD_LOCAL_SOURCE (pd_window_get_source (window)), 0);

  pd_test_wait_until (demo_session_selected, running, "the demo's session");
  running->store = pd_test_open_store (pd_demo_get_database_path (demo));
  /* The demo's engine tells the window's source through its bus. */
  g_assert_cmpuint (pd_local_source_get_n_buses (PD_LOCAL_SOURCE (pd_window_get_source (window))), ==, 1);
  running->id = g_strdup (pd_session_item_get_id (pd_session_list_get_selected_item (session_list (window))));

  /* System and user are there from the start; the rest comes as it runs. */
  follow_while_running (running, "transcript", transcript, 2, "the Transcript");
  follow_while_running (running, "history", history, 1, "the History");

  pd_test_wait_until (demo_done, window, "the demo's plan to be all done");
  pd_test_flush (GTK_WIDGET (window));
  check_every_page (window, pd_demo_get_database_path (demo), running->id);
  g_clear_object (&running->store);
}

static void
test_live_demo_running (gconstpointer data)
{
  const char *args[] = { "--demo", NULL };
  Running running = { 0 };
  gboolean saw_window = FALSE;

  running.bus_only = GPOINTER_TO_INT (data);
  set_longest_polls ();
  /* About 6 s in all, a turn every half second or so. */
  g_setenv ("PLANDECK_DEMO_SPEED", "2", TRUE);
  g_assert_cmpint (pd_test_run_app (args, check_demo_running, &running, &saw_window), ==, 0);
  g_unsetenv ("PLANDECK_DEMO_SPEED");
  g_assert_true (saw_window);
  g_free (running.id);
}

/* --- a second process commits ----------------------------------------------- */

/* A substantive title change reopens a done step (seed 000). */
static const char revise_turns[] =
  "{\"label\": \"revise\", \"turns\": ["
  " {\"content\": \"I missed the tests.\", \"tool_calls\": [{\"name\": \"plan\", \"arguments\": {\"verb\": \"revise\","
  "   \"reason\": \"The tests folder was missed; look again, tests included\","
  "   \"operations\": [{\"kind\": \"edit\", \"step_id\": \"look\", \"title\": \"Look at the whole project, tests included\"}]}}]},"
  " {\"content\": \"Revised.\"}]}";


/* One look and then nothing: the replay runs out, the run fails. */
static const char failing_turns[] =
  "{\"label\": \"failing\", \"turns\": ["
  " {\"content\": \"Looking again.\", \"tool_calls\": [{\"name\": \"list_dir\", \"arguments\": {\"path\": \".\"}}]}]}";

static gboolean
now_says_run_failed (gpointer data)
{
  GtkWidget *label = pd_test_find_label_containing (GTK_WIDGET (now_view (data)), "The run failed: ");

  return label != NULL && gtk_widget_get_mapped (label) &&
         strstr (gtk_label_get_text (GTK_LABEL (label)), "recorded turns of “failing” have been played") != NULL &&
         !gtk_label_get_use_markup (GTK_LABEL (label));
}


static void
check_second_process (PdApplication *app,
                      PdWindow      *window,
                      gpointer       user_data)
{
  Second *second = user_data;
  const char *cont[] = { "continue", second->id, "Go on", NULL };
  gpointer data[2] = { window, second->id };
  Stored before;
  Stored after;

  pd_test_wait_until (session_selectable, data, "the session in the list");
  before = read_stored (second->db, second->id);
  data[1] = GSIZE_TO_POINTER ((gsize) before.plan_version);
  pd_test_wait_until (now_shows_version, data, "the plan on the Now page");

  /* Another process continues the session; the window is not touched. */
  run_agent (second, second_turns, cont);
  after = read_stored (second->db, second->id);
  g_assert_cmpint (after.plan_version, >, before.plan_version);
  g_assert_cmpuint (after.messages, >, before.messages);

  data[1] = GSIZE_TO_POINTER ((gsize) after.plan_version);
  pd_test_wait_until (now_shows_version, data, "the Now page to follow the other process");
  pd_test_flush (GTK_WIDGET (window));
  check_every_page (window, second->db, second->id);

  /* The other process revises the plan and a done step is reopened: the
   * Now page says what went back and why, in the plan's words. */
  run_agent (second, revise_turns, cont);
  after = read_stored (second->db, second->id);
  data[1] = GSIZE_TO_POINTER ((gsize) after.plan_version);
  pd_test_wait_until (now_shows_version, data, "the Now page after the revision");
  {
    const char *notice = pd_now_view_get_regression (now_view (window));
    GtkWidget *label;

    g_assert_nonnull (notice);
    g_assert_nonnull (strstr (notice, "“\342\201\250Look at the whole project, tests included\342\201\251” went back from done to"));
    g_assert_nonnull (strstr (notice, "The tests folder was missed"));
    pd_test_flush (GTK_WIDGET (window));
    label = pd_test_find_label (GTK_WIDGET (window), notice);
    g_assert_nonnull (label);
    g_assert_true (gtk_widget_get_mapped (label));
    pd_test_screenshot (GTK_WIDGET (window), "now-regression");
  }

  /* The other process's next run fails (its model has nothing more to
   * say): the Now page, the page shown, says so and why, in plain text
   * (tried as a new user would: nothing said it unless the Events tab had
   * been opened, and then only "The run failed"). */
  run_agent (second, failing_turns, cont);
  pd_test_wait_until (now_says_run_failed, window, "the Now page to say the run failed");
  pd_test_flush (GTK_WIDGET (window));
  pd_test_screenshot (GTK_WIDGET (window), "now-run-failed");
}

static void
test_live_second_process (void)
{
  Second second = { 0 };
  const char *args[] = { "--db", NULL, NULL };
  gboolean saw_window = FALSE;

  second_init (&second);
  set_longest_polls ();
  args[1] = second.db;
  g_assert_cmpint (pd_test_run_app (args, check_second_process, &second, &saw_window), ==, 0);
  g_assert_true (saw_window);
  second_clear (&second);
}

/* --- one snapshot: the sidebar row and the Now page agree ------------------------ */

typedef struct
{
  PdWindow *window;
  guint     frames;        /* painted while the Now page showed a plan */
  guint     disagreeing;   /* of those, with the row on another version */
  gint64    seen_row;
  gint64    seen_now;
} Agreement;

/* Checked whenever either side changes (and at each painted frame): the
 * two never disagree, not even between two replies of one refresh. */
static void
check_agreement (Agreement *agreement)
{
  PdSessionItem *item = pd_session_list_get_selected_item (session_list (agreement->window));
  const PdPlanState *plan = pd_now_view_get_plan (now_view (agreement->window));

  if (item == NULL || plan == NULL)
    return;
  agreement->frames++;
  if (pd_session_item_get_plan_version (item) != plan->version)
    {
      agreement->disagreeing++;
      agreement->seen_row = pd_session_item_get_plan_version (item);
      agreement->seen_now = plan->version;
    }
}

static char *
many_updates (guint n)
{
  GString *turns = g_string_new ("{\"label\": \"many\", \"turns\": [");

  for (guint i = 0; i < n; i++)
    g_string_append_printf (turns,
                            "{\"content\": \"Step %u.\", \"tool_calls\": [{\"name\": \"plan\", \"arguments\": "
                            "{\"verb\": \"update\", \"updates\": [{\"id\": \"%s\", \"status\": \"%s\"}]}}]},",
                            i, (const char *[]) { "look", "write", "check" }[i % 3],
                            i % 2 == 0 ? "in_progress" : "done");
  g_string_append (turns, "{\"content\": \"Done.\"}]}");
  return g_string_free (turns, FALSE);
}

static void
check_one_snapshot (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  Second *second = user_data;
  const char *cont[] = { "continue", second->id, "Go on", NULL };
  gpointer data[2] = { window, second->id };
  g_autofree char *turns = many_updates (24);
  Agreement agreement = { window };
  GdkFrameClock *clock;
  PdSessionItem *item;
  gulong handlers[3];
  Stored after;

  pd_test_wait_until (session_selectable, data, "the session in the list");
  data[1] = GSIZE_TO_POINTER ((gsize) read_stored (second->db, second->id).plan_version);
  pd_test_wait_until (now_shows_version, data, "the plan on the Now page");

  /* Every frame painted while another process updates the plan 24 times:
   * the row's pie and the Now page show one version. */
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  item = pd_session_list_get_selected_item (session_list (window));
  handlers[0] = g_signal_connect_swapped (clock, "after-paint", G_CALLBACK (check_agreement), &agreement);
  handlers[1] = g_signal_connect_swapped (item, "notify", G_CALLBACK (check_agreement), &agreement);
  handlers[2] = g_signal_connect_swapped (now_view (window), "plan-shown", G_CALLBACK (check_agreement), &agreement);
  run_agent (second, turns, cont);
  after = read_stored (second->db, second->id);
  data[1] = GSIZE_TO_POINTER ((gsize) after.plan_version);
  pd_test_wait_until (now_shows_version, data, "the Now page to follow");
  pd_test_flush (GTK_WIDGET (window));
  g_signal_handler_disconnect (clock, handlers[0]);
  g_signal_handler_disconnect (item, handlers[1]);
  g_signal_handler_disconnect (now_view (window), handlers[2]);

  g_test_message ("%u moments with a plan, %u with the row on another version (last: row v%" G_GINT64_FORMAT
                  ", Now v%" G_GINT64_FORMAT ")", agreement.frames, agreement.disagreeing,
                  agreement.seen_row, agreement.seen_now);
  g_assert_cmpuint (agreement.frames, >, 0);
  g_assert_cmpuint (agreement.disagreeing, ==, 0);
  g_assert_cmpint (pd_session_item_get_plan_version (pd_session_list_get_selected_item (session_list (window))),
                   ==, after.plan_version);
}

static void
test_live_one_snapshot (void)
{
  Second second = { 0 };
  const char *args[] = { "--db", NULL, NULL };

  second_init (&second);
  set_longest_polls ();
  args[1] = second.db;
  g_assert_cmpint (pd_test_run_app (args, check_one_snapshot, &second, NULL), ==, 0);
  second_clear (&second);
}


/* --- the Events view tails a burst of 500 ------------------------------------ */

static gboolean
at_bottom (GtkAdjustment *adjustment)
{
  return gtk_adjustment_get_value (adjustment) + gtk_adjustment_get_page_size (adjustment) >=
         gtk_adjustment_get_upper (adjustment) - 2;
}

static gboolean
settled_at_bottom (gpointer data)
{
  GtkAdjustment *adjustment = data;

  return gtk_adjustment_get_upper (adjustment) > gtk_adjustment_get_page_size (adjustment) && at_bottom (adjustment);
}

static void
burst (PdTestDb   *db,
       const char *id,
       guint       n)
{
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *data = g_strdup_printf ("{\"steps\":4,\"done\":%u,\"blocked\":0,\"version\":%u}", i % 5, i + 1);

      pd_test_db_add_event (db, id, PD_EVENT_PLAN_UPDATED, NULL, 0, data);
    }
}

static guint
n_stored_events (PdTestDb   *db,
                 const char *id)
{
  g_autoptr(GPtrArray) events = pd_session_store_list_events (db->store, id, NULL, 0, 1000, NULL);

  return events->len;
}

static void
test_live_events_burst (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "A busy run");
  GtkWidget *view = pd_events_view_new ();
  GtkScrolledWindow *scroller;
  GtkAdjustment *adjustment;
  GtkWidget *jump;
  GListModel *model;
  GtkWindow *window;

  set_longest_polls ();
  pd_test_db_add_event (db, id, PD_EVENT_RUN_STARTED, NULL, 0, "{}");
  window = pd_test_present (view, 900, 500);
  pd_local_source_watch (db->source, 60000);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  model = pd_events_view_get_model (PD_EVENTS_VIEW (view));
  wait_for_count (model, 1, "the first event");
  scroller = GTK_SCROLLED_WINDOW (gtk_widget_get_ancestor (pd_test_find_widget (view, GTK_TYPE_COLUMN_VIEW),
                                                          GTK_TYPE_SCROLLED_WINDOW));
  adjustment = gtk_scrolled_window_get_vadjustment (scroller);

  /* 500 events from another connection, as fast as it commits them: every
   * one is listed, and the list follows the newest. */
  burst (db, id, 500);
  wait_for_count (model, n_stored_events (db, id), "after a burst of 500");
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 501);
  g_assert_cmpint (pd_events_view_get_last_seq (PD_EVENTS_VIEW (view)), >, 0);
  pd_test_wait_until (settled_at_bottom, adjustment, "the list to show the newest event");
  g_assert_true (pd_events_view_get_following (PD_EVENTS_VIEW (view)));

  /* Scrolled up, it stays where the person is, and offers to jump. */
  gtk_adjustment_set_value (adjustment, 0);
  pd_test_flush (view);
  g_assert_false (pd_events_view_get_following (PD_EVENTS_VIEW (view)));
  jump = NULL;
  {
    GPtrArray *buttons = g_ptr_array_new ();

    pd_test_collect (view, GTK_TYPE_BUTTON, buttons);
    for (guint i = 0; i < buttons->len; i++)
      if (g_strcmp0 (gtk_widget_get_tooltip_text (g_ptr_array_index (buttons, i)), "Jump to the Newest Event") == 0)
        jump = g_ptr_array_index (buttons, i);
    g_ptr_array_unref (buttons);
  }
  g_assert_nonnull (jump);
  g_assert_true (gtk_widget_get_mapped (jump));

  burst (db, id, 30);
  wait_for_count (model, n_stored_events (db, id), "after 30 more");
  pd_test_flush (view);
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, 0);
  g_assert_false (pd_events_view_get_following (PD_EVENTS_VIEW (view)));

  /* The jump button: the newest again, and following. */
  g_signal_emit_by_name (jump, "clicked");
  pd_test_wait_until (settled_at_bottom, adjustment, "the jump to the newest event");
  g_assert_true (pd_events_view_get_following (PD_EVENTS_VIEW (view)));
  pd_test_flush (view);
  g_assert_false (gtk_widget_get_visible (jump));
  pd_test_screenshot (GTK_WIDGET (window), "events-burst");

  pd_local_source_watch (db->source, 0);
  pd_test_destroy_window (window, view);
}

int
main (int   argc,
      char *argv[])
{
  pd_test_views_init (&argc, &argv);

  g_test_add_func ("/pd/ui/live/demo-fills-every-view", test_live_demo);
  g_test_add_func ("/pd/ui/live/demo-events-narrow", test_live_demo_events_narrow);
  g_test_add_data_func ("/pd/ui/live/demo-pages-fill-while-running", GINT_TO_POINTER (FALSE),
                        test_live_demo_running);
  g_test_add_data_func ("/pd/ui/live/demo-pages-fill-while-running-bus-only", GINT_TO_POINTER (TRUE),
                        test_live_demo_running);
  g_test_add_func ("/pd/ui/live/second-process", test_live_second_process);
  g_test_add_func ("/pd/ui/live/one-snapshot", test_live_one_snapshot);
  g_test_add_func ("/pd/ui/live/events-burst-500", test_live_events_burst);

  return g_test_run ();
}