/* test-events-stopped.c: a run stopped short ends the Events page as such
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A real PdEventsView on a real database holding the events of a run its
 * iterations budget stopped, as the engine writes them: budget_exceeded,
 * then run_completed with budget_exceeded.  Its last row read "Run
 * completed" where the Now page said "Stopped — its budget ran out" (tried
 * as a new user would): it says the run stopped, and why.  A run whose
 * answer was cut off likewise.  Screenshots at the default size and 360 px
 * with PD_TEST_SCREENSHOT_DIR.
 */
#define G_LOG_DOMAIN "test-events-stopped"

#include "config.h"

#include <string.h>

#include "pd-event-item.h"
#include "pd-events-view.h"
#include "pd-test-stopped-run.h"

static gboolean
shows_stopped (gpointer view)
{
  return pd_test_find_first (view, pd_test_is_mapped_label, "Run stopped") != NULL;
}

static void
test_budget_stopped (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Three things");
  GtkWidget *view = pd_events_view_new ();
  GtkWindow *window;
  PdTestCountWait wait;
  g_autoptr(PdEventItem) last = NULL;
  g_autoptr(PdEventItem) cut = NULL;
  g_autofree char *row_name = NULL;

  pd_test_db_add_stopped_run (db, id, "iterations", 2, 2, 2, 2000, 30, 10);

  window = pd_test_show_session (view, db, id, 900, 600);
  wait.model = pd_events_view_get_model (PD_EVENTS_VIEW (view));
  wait.n = 3;
  g_assert_true (pd_test_wait_for (pd_test_has_n_items, &wait));

  last = g_list_model_get_item (wait.model, 2);
  {
    g_autofree char *label = NULL;

    g_object_get (last, "type-label", &label, NULL);
    g_assert_cmpstr (label, ==, "Run stopped");
  }
  /* One wording for a budget that ran out, singular ("its iteration
   * budget"), as the Now notice and the Overview card say it: the event
   * read "Budget exceeded", the row "its budget ran out (iterations)". */
  g_assert_cmpstr (pd_event_item_get_summary (last), ==,
                   "stopped: its iteration budget ran out · 2.0 s · 30 in / 10 out tokens");
  row_name = pd_event_item_dup_row_name (last);
  g_assert_nonnull (strstr (row_name, "Run stopped: stopped: its iteration budget ran out"));
  {
    g_autoptr(PdEventItem) exceeded = g_list_model_get_item (wait.model, 1);
    g_autofree char *label = NULL;

    g_object_get (exceeded, "type-label", &label, NULL);
    g_assert_cmpstr (label, ==, "Budget ran out");
    g_assert_cmpstr (pd_event_item_get_summary (exceeded), ==, "iteration budget · 2 of 2");
  }
  /* Shown so, in its row. */
  g_assert_true (pd_test_wait_for (shows_stopped, view));
  g_assert_null (pd_test_find_first (view, pd_test_is_mapped_label, "Run completed"));
  pd_test_screenshot_sizes (window, "events-budget-stopped");

  /* An answer cut off by the output limit stopped the run too. */
  cut = pd_event_item_new (4, "{\"schema\":\"plandeck.event/v1\",\"type\":\"run_completed\","
                              "\"timestamp\":\"2026-12-01T10:00:00Z\",\"data\":{\"duration_ms\":2000,"
                              "\"input_tokens\":30,\"output_tokens\":16384,\"incomplete\":true}}");
  {
    g_autofree char *label = NULL;

    g_object_get (cut, "type-label", &label, NULL);
    g_assert_cmpstr (label, ==, "Run stopped");
  }
  pd_test_destroy_window (window, view);
}

/* The time budget by name and in seconds: its row read "wall_time ·
 * 2021/2000", milliseconds under an internal name (tried as a new user
 * would).  The event's data keeps both. */
static void
test_time_budget (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "One slow thing");
  GtkWidget *view = pd_events_view_new ();
  GtkWindow *window;
  PdTestCountWait wait;
  g_autoptr(PdEventItem) exceeded = NULL;
  g_autoptr(PdEventItem) last = NULL;

  pd_test_db_add_stopped_run (db, id, "wall_time", 1, 2021, 2000, 2021, 30, 10);

  window = pd_test_show_session (view, db, id, 900, 600);
  wait.model = pd_events_view_get_model (PD_EVENTS_VIEW (view));
  wait.n = 3;
  g_assert_true (pd_test_wait_for (pd_test_has_n_items, &wait));

  exceeded = g_list_model_get_item (wait.model, 1);
  g_assert_cmpstr (pd_event_item_get_summary (exceeded), ==, "time budget · 2.0 s of 2 s");
  last = g_list_model_get_item (wait.model, 2);
  g_assert_cmpstr (pd_event_item_get_summary (last), ==,
                   "stopped: its time budget ran out · 2.0 s · 30 in / 10 out tokens");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_null (pd_test_find_label_containing (view, "wall_time"));
  pd_test_screenshot_sizes (window, "events-time-budget");
  pd_test_destroy_window (window, view);
}

/* An imported session's timeline cut to its bound ends with
 * events_left_out: its row says the later events were left out and why.
 * The cut was not said, the last call read as the session's last (tried
 * as an attacker would, a transcript of many tiny calls). */
static void
test_events_left_out (void)
{
  g_autoptr(PdEventItem) item = pd_event_item_new (7, "{\"schema\":\"plandeck.event/v1\",\"type\":\"events_left_out\","
                                                      "\"timestamp\":\"2026-12-01T10:00:00Z\","
                                                      "\"data\":{\"items\":1234,\"bytes\":2468}}");
  g_autofree char *label = NULL;

  g_object_get (item, "type-label", &label, NULL);
  g_assert_cmpstr (label, ==, "Events left out");
  g_assert_cmpstr (pd_event_item_get_summary (item), ==,
                   "Later events were left out: the transcript is too large (1234 more tool calls and results)");
}

#define LEFT_OUT_TEXT "Later events were left out: the transcript is too large (1234 more tool calls and results)"

static gboolean
shows_left_out (gpointer view)
{
  return pd_test_find_first (view, pd_test_is_mapped_label, LEFT_OUT_TEXT) != NULL;
}

/* Its row's summary was cut at 960 and at 360 px, with no tooltip, and
 * selecting it showed raw JSON (tried as a new user would, nu15): the
 * notice is said whole over the list, wrapped, within the window.  Before,
 * no mapped label held the whole text (shows_left_out timed out). */
static void
test_events_left_out_shown (void)
{
  const int widths[] = { 960, 360 };

  for (guint i = 0; i < G_N_ELEMENTS (widths); i++)
    {
      g_autoptr(PdTestDb) db = pd_test_db_new ();
      g_autofree char *id = pd_test_db_create_session (db, "A long imported session");
      GtkWidget *view = pd_events_view_new ();
      GtkWindow *window;
      PdTestCountWait wait;
      GtkWidget *label;

      pd_test_db_add_event (db, id, PD_EVENT_TOOL_CALL_STARTED, "bash", 1, "{\"call_id\":\"c1\"}");
      pd_test_db_add_event (db, id, PD_EVENT_EVENTS_LEFT_OUT, NULL, 0, "{\"items\":1234,\"bytes\":2468}");

      window = pd_test_show_session (view, db, id, widths[i], 600);
      wait.model = pd_events_view_get_model (PD_EVENTS_VIEW (view));
      wait.n = 2;
      g_assert_true (pd_test_wait_for (pd_test_has_n_items, &wait));
      g_assert_true (pd_test_wait_for (shows_left_out, view));
      label = pd_test_find_first (view, pd_test_is_mapped_label, LEFT_OUT_TEXT);
      g_assert_true (gtk_label_get_wrap (GTK_LABEL (label)));
      g_assert_cmpint (gtk_label_get_ellipsize (GTK_LABEL (label)), ==, PANGO_ELLIPSIZE_NONE);
      g_assert_false (gtk_label_get_use_markup (GTK_LABEL (label)));
      pd_test_flush (GTK_WIDGET (window));
      g_assert_cmpint (gtk_widget_get_width (label), <=, widths[i]);
      pd_test_screenshot (GTK_WIDGET (window), i == 0 ? "events-left-out-960" : "events-left-out-360");
      pd_test_destroy_window (window, view);
    }
}

int
main (int   argc,
      char *argv[])
{
  pd_test_views_init (&argc, &argv);

  g_test_add_func ("/pd/ui/events-stopped/budget", test_budget_stopped);
  g_test_add_func ("/pd/ui/events-stopped/time-budget", test_time_budget);
  g_test_add_func ("/pd/ui/events-stopped/events-left-out", test_events_left_out);
  g_test_add_func ("/pd/ui/events-stopped/events-left-out-shown", test_events_left_out_shown);

  return g_test_run ();
}
