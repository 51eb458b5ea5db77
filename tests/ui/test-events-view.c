/* test-events-view.c: the event stream as a person watches it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A real PdEventsView on a real database; events are added through the
 * session store while the view is live, as a run in another process adds
 * them.
 */
#define G_LOG_DOMAIN "test-events-view"

#include "config.h"

#include <string.h>

#include "../pd-import-test.h"
#include "pd-event-item.h"
#include "pd-events-view.h"
#include "pd-import-private.h"
#include "pd-session-store.h"
#include "pd-test-db.h"
#include "pd-test-ui.h"

typedef struct
{
  GListModel *model;
  guint       n;
} CountWait;

static gboolean
has_n_items (gpointer user_data)
{
  CountWait *wait = user_data;

  return g_list_model_get_n_items (wait->model) == wait->n;
}

static gboolean
view_is_idle (gpointer user_data)
{
  return !pd_session_view_get_busy (PD_SESSION_VIEW (user_data));
}

static void
add_first_events (PdTestDb   *db,
                  const char *id)
{
  pd_test_db_add_event (db, id, PD_EVENT_RUN_STARTED, NULL, 0,
                        "{\"model\":\"test-model\",\"provider\":\"replay\"}");
  pd_test_db_add_event (db, id, PD_EVENT_TOOL_CALL_COMPLETED, "shell", 1,
                        "{\"call_id\":\"call_1\",\"duration_ms\":412,\"result_bytes\":2048}");
  pd_test_db_add_event (db, id, PD_EVENT_PLAN_UPDATED, NULL, 0,
                        "{\"steps\":4,\"done\":1,\"in_progress\":1,\"blocked\":0,\"pending\":2,\"version\":3}");
}

static GtkSelectionModel *
column_model (GtkWidget *view)
{
  GtkColumnView *columns = GTK_COLUMN_VIEW (pd_test_find_widget (view, GTK_TYPE_COLUMN_VIEW));

  g_assert_nonnull (columns);
  return gtk_column_view_get_model (columns);
}

static char *
details_text (GtkWidget *view)
{
  GtkTextView *text = GTK_TEXT_VIEW (pd_test_find_widget (view, GTK_TYPE_TEXT_VIEW));
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (text);
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

static void
test_events_tail_live (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Fix the parser");
  g_autoptr(GPtrArray) before = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree char *details = NULL;
  GtkWidget *view = pd_events_view_new ();
  GtkSelectionModel *selection;
  GListModel *model;
  GtkWindow *window;
  CountWait wait;

  add_first_events (db, id);
  window = pd_test_present (view, 1000, 640);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  pd_events_view_set_live (PD_EVENTS_VIEW (view), TRUE);

  model = pd_events_view_get_model (PD_EVENTS_VIEW (view));
  wait.model = model;
  wait.n = 3;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  for (guint i = 0; i < 3; i++)
    g_ptr_array_add (before, g_list_model_get_item (model, i));

  /* Columns and summaries derived from the data. */
  g_assert_cmpstr (pd_event_item_get_summary (g_ptr_array_index (before, 1)), ==, "shell · 412 ms");
  g_assert_cmpstr (pd_event_item_get_summary (g_ptr_array_index (before, 2)), ==, "plan v3 · 1/4 done");
  g_assert_cmpstr (pd_event_item_get_iteration_text (g_ptr_array_index (before, 1)), ==, "1");
  g_assert_cmpuint (strlen (pd_event_item_get_time_text (g_ptr_array_index (before, 0))), ==, 8);
  gtk_test_widget_wait_for_draw (view);
  g_assert_nonnull (pd_test_find_label (view, "shell · 412 ms"));
  /* The type in words; the token stays in the details' JSON. */
  g_assert_nonnull (pd_test_find_label (view, "Tool call completed"));
  g_assert_null (pd_test_find_label (view, "tool_call_completed"));

  /* Select the tool call: its JSON in the details pane. */
  selection = column_model (view);
  g_assert_true (gtk_selection_model_select_item (selection, 1, TRUE));
  details = details_text (view);
  g_assert_nonnull (strstr (details, "\"duration_ms\" : 412"));
  g_assert_nonnull (strstr (details, "\"type\" : \"tool_call_completed\""));

  /* The run goes on: new events are appended, nothing is refilled. */
  pd_test_db_add_event (db, id, PD_EVENT_PLAN_REASSESSMENT, NULL, 4,
                        "{\"reason\":\"repeated_check_failure\",\"failure_batches\":3}");
  pd_test_db_add_event (db, id, PD_EVENT_PLAN_BLOCKED, NULL, 0,
                        "{\"steps\":4,\"blocked\":2,\"version\":5}");
  wait.n = 5;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(GObject) now = g_list_model_get_item (model, i);

      g_assert_true (now == g_ptr_array_index (before, i));
    }
  g_assert_cmpuint (gtk_single_selection_get_selected (GTK_SINGLE_SELECTION (selection)), ==, 1);
  g_assert_true (gtk_single_selection_get_selected_item (GTK_SINGLE_SELECTION (selection)) ==
                 g_ptr_array_index (before, 1));

  {
    g_autoptr(PdEventItem) item = g_list_model_get_item (model, 3);

    g_assert_cmpstr (pd_event_item_get_summary (item), ==, "reassessment: repeated_check_failure");
  }

  /* Not live: nothing is read behind the person's back.  A read the last
   * tick started while live may still be on its way (on a busy machine its
   * query ran after the event below was added: 6 rows, the test failed in
   * an integration's suite); it ends first, then nothing more is read. */
  pd_events_view_set_live (PD_EVENTS_VIEW (view), FALSE);
  g_assert_true (pd_test_wait_for (view_is_idle, view));
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 5);
  pd_test_db_add_event (db, id, PD_EVENT_RUN_COMPLETED, NULL, 0,
                        "{\"duration_ms\":5300,\"input_tokens\":1200,\"output_tokens\":300}");
  pd_test_spin (1500);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 5);
  /* A refresh reads what is new. */
  pd_events_view_refresh (PD_EVENTS_VIEW (view));
  wait.n = 6;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));

  pd_test_screenshot (GTK_WIDGET (window), "events");
  pd_test_destroy_window (window, view);
}

static gboolean
is_label_saying (GtkWidget     *widget,
                 gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), data) == 0;
}

static gboolean
is_ellipsized_label (GtkWidget     *widget,
                     gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (widget)));
}

static void
test_events_filter_by_type (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Fix the parser");
  GtkWidget *view = pd_events_view_new ();
  GtkSelectionModel *selection;
  GtkDropDown *dropdown;
  GtkWindow *window;
  CountWait wait;

  add_first_events (db, id);
  pd_test_db_add_event (db, id, PD_EVENT_TOOL_CALL_COMPLETED, "read_file", 2,
                        "{\"call_id\":\"call_2\",\"duration_ms\":3}");
  window = pd_test_present (view, 900, 600);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);

  wait.model = pd_events_view_get_model (PD_EVENTS_VIEW (view));
  wait.n = 4;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));

  /* The drop-down offers "All Types" and each type present, once. */
  dropdown = GTK_DROP_DOWN (pd_test_find_widget (view, GTK_TYPE_DROP_DOWN));
  g_assert_cmpuint (g_list_model_get_n_items (gtk_drop_down_get_model (dropdown)), ==, 4);
  g_assert_null (pd_events_view_get_type_filter (PD_EVENTS_VIEW (view)));
  /* Opened, every name is whole: three "Tool call …" could not be told
   * apart (tried as a new user would). */
  {
    GtkWidget *popover = pd_test_find_widget (GTK_WIDGET (dropdown), GTK_TYPE_POPOVER);

    g_assert_nonnull (popover);
    gtk_popover_popup (GTK_POPOVER (popover));
    pd_test_flush (GTK_WIDGET (window));
    pd_test_flush (popover);
    g_assert_true (gtk_widget_get_mapped (popover));
    g_assert_nonnull (pd_test_find_first (popover, is_label_saying, "Tool call completed"));
    g_assert_null (pd_test_find_first (popover, is_ellipsized_label, NULL));
    pd_test_screenshot (popover, "events-type-list");
    gtk_popover_popdown (GTK_POPOVER (popover));
  }

  selection = column_model (view);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (selection)), ==, 4);
  pd_events_view_set_type_filter (PD_EVENTS_VIEW (view), PD_EVENT_TOOL_CALL_COMPLETED);
  g_assert_cmpstr (pd_events_view_get_type_filter (PD_EVENTS_VIEW (view)), ==, PD_EVENT_TOOL_CALL_COMPLETED);
  g_assert_cmpuint (gtk_drop_down_get_selected (dropdown), >, 0);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (selection)), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(PdEventItem) item = g_list_model_get_item (G_LIST_MODEL (selection), i);

      g_assert_cmpstr (pd_event_item_get_event_type (item), ==, PD_EVENT_TOOL_CALL_COMPLETED);
    }
  gtk_test_widget_wait_for_draw (view);
  g_assert_nonnull (pd_test_find_label (view, "2 of 4 events"));

  /* Events of the filtered type arriving later show up filtered in. */
  pd_test_db_add_event (db, id, PD_EVENT_TOOL_CALL_COMPLETED, "grep", 3, "{\"duration_ms\":1500}");
  pd_test_db_add_event (db, id, PD_EVENT_ITERATION_COMPLETED, NULL, 3, "{\"tools_called\":1}");
  pd_events_view_refresh (PD_EVENTS_VIEW (view));
  wait.n = 6;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (selection)), ==, 3);

  pd_events_view_set_type_filter (PD_EVENTS_VIEW (view), NULL);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (selection)), ==, 6);

  pd_test_destroy_window (window, view);
}


static gboolean
empty_state_shown (gpointer data)
{
  GtkWidget *status = pd_test_find_widget (data, ADW_TYPE_STATUS_PAGE);

  return status != NULL && gtk_widget_get_mapped (status) &&
         g_strcmp0 (adw_status_page_get_title (ADW_STATUS_PAGE (status)), "No Events Yet") == 0;
}

static void
test_events_plain_text_and_empty (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Fix the parser");
  g_autofree char *other = pd_test_db_create_session (db, "Another session");
  GtkWidget *view = pd_events_view_new ();
  AdwStatusPage *status;
  GtkWindow *window;
  CountWait wait;
  GtkWidget *label;
  g_autofree char *details = NULL;

  pd_test_db_add_event (db, id, PD_EVENT_TOOL_CALL_COMPLETED, "<b>x</b>", 1,
                        "{\"call_id\":\"<i>call</i>\",\"duration_ms\":7}");
  window = pd_test_present (view, 900, 600);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));

  /* A session with no events: the empty state, once its read is in. */
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), other);
  g_assert_true (pd_test_wait_for (empty_state_shown, view));
  status = ADW_STATUS_PAGE (pd_test_find_widget (view, ADW_TYPE_STATUS_PAGE));
  g_assert_cmpstr (adw_status_page_get_title (status), ==, "No Events Yet");
  gtk_test_widget_wait_for_draw (view);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (status)));

  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  wait.model = pd_events_view_get_model (PD_EVENTS_VIEW (view));
  wait.n = 1;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  gtk_test_widget_wait_for_draw (view);

  label = pd_test_find_label (view, "<b>x</b>");
  g_assert_nonnull (label);
  g_assert_false (gtk_label_get_use_markup (GTK_LABEL (label)));
  g_assert_nonnull (pd_test_find_label (view, "<b>x</b> · 7 ms"));

  g_assert_true (gtk_selection_model_select_item (column_model (view), 0, TRUE));
  details = details_text (view);
  g_assert_nonnull (strstr (details, "\"tool\" : \"<b>x</b>\""));

  /* Switching away drops what belonged to the old session. */
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), other);
  g_assert_cmpuint (g_list_model_get_n_items (wait.model), ==, 0);
  pd_test_spin (300);
  g_assert_cmpuint (g_list_model_get_n_items (wait.model), ==, 0);

  /* Destroyed while live with a read in flight. */
  pd_events_view_set_live (PD_EVENTS_VIEW (view), TRUE);
  pd_events_view_refresh (PD_EVENTS_VIEW (view));
  pd_test_destroy_window (window, view);
  pd_test_spin (300);
}

/* What the model did that a run must show: a retry with its wait and
 * status, an answer cut and asked again, a run that ended incomplete. */
static void
test_events_model_outcomes (void)
{
  const struct {
    const char *json;
    const char *summary;
  } cases[] = {
    { "{\"schema\":\"plandeck.event/v1\",\"type\":\"provider_retry\",\"timestamp\":\"2026-12-01T10:00:00Z\","
      "\"iteration\":1,\"data\":{\"attempt\":2,\"max_attempts\":4,\"delay_ms\":1500,\"status\":529,"
      "\"reason\":\"HTTP 529\"}}",
      "attempt 2 of 4 in 1.5 s · HTTP 529" },
    { "{\"schema\":\"plandeck.event/v1\",\"type\":\"provider_retry\",\"timestamp\":\"2026-12-01T10:00:00Z\","
      "\"data\":{\"attempt\":2,\"max_attempts\":4,\"delay_ms\":500,\"reason\":\"overloaded_error\"}}",
      "attempt 2 of 4 in 500 ms · broken off mid-answer" },
    { "{\"schema\":\"plandeck.event/v1\",\"type\":\"turn_discarded\",\"timestamp\":\"2026-12-01T10:00:00Z\","
      "\"data\":{\"reason\":\"max_tokens\",\"tool\":\"write_file\",\"max_tokens\":16384,\"next_max_tokens\":64000}}",
      "cut off at 16384 tokens in write_file · asked again with 64000" },
    { "{\"schema\":\"plandeck.event/v1\",\"type\":\"run_completed\",\"timestamp\":\"2026-12-01T10:00:00Z\","
      "\"data\":{\"duration_ms\":2000,\"input_tokens\":30,\"output_tokens\":16384,\"incomplete\":true}}",
      "incomplete: cut off by the output limit · 2.0 s · 30 in / 16384 out tokens" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(PdEventItem) item = pd_event_item_new (i + 1, cases[i].json);

      g_assert_cmpstr (pd_event_item_get_summary (item), ==, cases[i].summary);
    }
}

static gboolean
is_compact (gpointer view)
{
  return pd_events_view_get_compact (view);
}

static gboolean
is_wide (gpointer view)
{
  return !pd_events_view_get_compact (view);
}

static gboolean
is_mapped_label (GtkWidget     *widget,
                 gconstpointer  text)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0;
}

static gboolean
is_column_view (GtkWidget     *widget,
                gconstpointer  data)
{
  return GTK_IS_COLUMN_VIEW (widget);
}

/* At 360 px each event is one compact row that fits: no column to scroll
 * sideways to, the summary in the row; wide again, the columns return. */
static void
test_events_narrow (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Fix the parser");
  GtkWidget *view = pd_events_view_new ();
  GtkColumnView *columns;
  GListModel *list;
  GtkAdjustment *hadjustment;
  GtkWindow *window;
  CountWait wait;
  guint visible = 0;

  add_first_events (db, id);
  window = pd_test_present (view, 360, 640);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  wait.model = pd_events_view_get_model (PD_EVENTS_VIEW (view));
  wait.n = 3;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  g_assert_true (pd_test_wait_for (is_compact, view));
  gtk_test_widget_wait_for_draw (view);
  pd_test_flush (GTK_WIDGET (window));

  columns = GTK_COLUMN_VIEW (pd_test_find_first (view, is_column_view, NULL));
  list = gtk_column_view_get_columns (columns);
  for (guint i = 0; i < g_list_model_get_n_items (list); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (list, i);

      if (gtk_column_view_column_get_visible (column))
        visible++;
    }
  g_assert_cmpuint (visible, ==, 1);
  /* Nothing to scroll to sideways. */
  hadjustment = gtk_scrollable_get_hadjustment (GTK_SCROLLABLE (columns));
  g_assert_cmpfloat (gtk_adjustment_get_upper (hadjustment), <=, gtk_adjustment_get_page_size (hadjustment) + 1);
  /* The row holds what the columns held: type and summary, to read. */
  {
    g_autoptr(PdEventItem) item = g_list_model_get_item (wait.model, 1);
    GtkWidget *summary = pd_test_find_first (view, is_mapped_label, pd_event_item_get_summary (item));
    g_autofree char *type_label = NULL;
    GtkWidget *type;

    g_object_get (item, "type-label", &type_label, NULL);
    type = pd_test_find_first (view, is_mapped_label, type_label);
    g_assert_nonnull (summary);
    g_assert_nonnull (type);
  }
  pd_test_screenshot_sizes (window, "events-compact");

  /* Rows of even height, a long summary cut to its line (tried as a new
   * user would: a long one took three lines and the rows jumped in size;
   * the whole of it is in the details below). */
  pd_test_db_add_event (db, id, PD_EVENT_PLAN_REASSESSMENT, NULL, 4,
                        "{\"reason\":\"an acceptance check kept failing on every platform the project builds on, "
                        "including the ones that only run at night, and the logs say why at great length\"}");
  pd_test_db_add_event (db, id, PD_EVENT_RUN_STARTED, NULL, 0, "{}");
  pd_events_view_refresh (PD_EVENTS_VIEW (view));
  wait.n = 5;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  gtk_test_widget_wait_for_draw (view);
  pd_test_flush (GTK_WIDGET (window));
  {
    GtkWidget *rows = gtk_widget_get_first_child (GTK_WIDGET (pd_test_find_first (view, is_column_view, NULL)));
    int height = -1;
    guint n_rows = 0;

    while (rows != NULL && !GTK_IS_LIST_VIEW (rows))
      rows = gtk_widget_get_next_sibling (rows);
    g_assert_nonnull (rows);
    for (GtkWidget *row = gtk_widget_get_first_child (rows); row != NULL; row = gtk_widget_get_next_sibling (row))
      {
        if (!gtk_widget_get_mapped (row) || gtk_widget_get_height (row) <= 0)
          continue;
        g_test_message ("compact row %u: %d px", n_rows, gtk_widget_get_height (row));
        if (height < 0)
          height = gtk_widget_get_height (row);
        g_assert_cmpint (gtk_widget_get_height (row), ==, height);
        n_rows++;
      }
    g_assert_cmpuint (n_rows, ==, 5);
  }
  pd_test_screenshot_sizes (window, "events-compact-even");

  gtk_window_set_default_size (window, 900, 640);
  g_assert_true (pd_test_wait_for (is_wide, view));
  visible = 0;
  for (guint i = 0; i < g_list_model_get_n_items (list); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (list, i);

      if (gtk_column_view_column_get_visible (column))
        visible++;
    }
  g_assert_cmpuint (visible, ==, 5);

  pd_test_destroy_window (window, view);
}

static void
add_tool_calls (PdTestDb   *db,
                const char *id,
                guint       first,
                guint       n)
{
  for (guint i = first; i < first + n; i++)
    {
      g_autofree char *data = g_strdup_printf ("{\"call_id\":\"call_%u\",\"duration_ms\":%u,\"result_bytes\":64}",
                                               i, 100 + i);

      pd_test_db_add_event (db, id, PD_EVENT_TOOL_CALL_COMPLETED, "shell", 1, data);
    }
}

typedef struct
{
  GtkWidget  *view;
  const char *text;
} LabelWait;

static gboolean
has_mapped_label (gpointer user_data)
{
  LabelWait *wait = user_data;

  return pd_test_find_first (wait->view, is_mapped_label, wait->text) != NULL;
}

static gboolean
adjustment_at_end (gpointer data)
{
  GtkAdjustment *adjustment = data;

  return gtk_adjustment_get_upper (adjustment) > gtk_adjustment_get_page_size (adjustment) &&
         gtk_adjustment_get_value (adjustment) + gtk_adjustment_get_page_size (adjustment) >=
         gtk_adjustment_get_upper (adjustment) - 1;
}

/* Following: the adjustment is at its end and the newest row is drawn inside
 * the scroller, not merely believed to be there. */
static void
assert_newest_shown (GtkWidget *view,
                     guint      newest)
{
  GtkWidget *columns = pd_test_find_widget (view, GTK_TYPE_COLUMN_VIEW);
  GtkScrolledWindow *scroller = GTK_SCROLLED_WINDOW (gtk_widget_get_ancestor (columns, GTK_TYPE_SCROLLED_WINDOW));
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (scroller);
  g_autofree char *summary = g_strdup_printf ("shell · %u ms", 100 + newest);
  GtkWidget *label;
  graphene_rect_t bounds;
  LabelWait wait;

  pd_test_flush (view);
  g_assert_true (pd_events_view_get_following (PD_EVENTS_VIEW (view)));
  /* The list moves as it lays itself out, at a frame to come. */
  g_assert_true (pd_test_wait_for (adjustment_at_end, adjustment));
  g_assert_true (pd_events_view_get_following (PD_EVENTS_VIEW (view)));
  /* The list draws its rows at the next frame. */
  wait.view = view;
  wait.text = summary;
  g_assert_true (pd_test_wait_for (has_mapped_label, &wait));
  label = pd_test_find_first (view, is_mapped_label, summary);
  g_assert_nonnull (label);
  g_assert_true (gtk_widget_compute_bounds (label, GTK_WIDGET (scroller), &bounds));
  g_assert_cmpfloat (bounds.origin.y, >=, 0);
  g_assert_cmpfloat (bounds.origin.y + bounds.size.height, <=, gtk_widget_get_height (GTK_WIDGET (scroller)) + 1);
}

/* Issue 15 item 5, tried as a new user would: many events arrive while the
 * view follows (shown, and hidden then shown again); the newest row is the
 * one drawn, not the first rows with the adjustment claiming the end. */
static void
test_events_follow_newest (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Fix the parser");
  g_autofree char *other = pd_test_db_create_session (db, "Port the lexer");
  GtkWidget *view = pd_events_view_new ();
  GtkAdjustment *adjustment;
  GListModel *model;
  GtkWindow *window;
  CountWait wait;

  add_first_events (db, id);
  window = pd_test_present (view, 900, 600);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  pd_events_view_set_live (PD_EVENTS_VIEW (view), TRUE);
  model = pd_events_view_get_model (PD_EVENTS_VIEW (view));
  wait.model = model;
  wait.n = 3;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  pd_test_flush (view);

  /* Shown: a burst of 85 while following. */
  add_tool_calls (db, id, 0, 85);
  wait.n = 88;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  assert_newest_shown (view, 84);

  /* Hidden while the rows arrive (read once shown), then shown again. */
  gtk_widget_set_visible (view, FALSE);
  add_tool_calls (db, id, 85, 60);
  pd_events_view_refresh (PD_EVENTS_VIEW (view));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 88);
  gtk_widget_set_visible (view, TRUE);
  wait.n = 148;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  assert_newest_shown (view, 144);

  /* Scrolled up by the person: it stays there while rows arrive; the jump
   * button brings the newest back, and following. */
  adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (
    gtk_widget_get_ancestor (pd_test_find_widget (view, GTK_TYPE_COLUMN_VIEW), GTK_TYPE_SCROLLED_WINDOW)));
  gtk_adjustment_set_value (adjustment, 0);
  pd_test_flush (view);
  g_assert_false (pd_events_view_get_following (PD_EVENTS_VIEW (view)));
  add_tool_calls (db, id, 145, 5);
  wait.n = 153;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  pd_test_flush (view);
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, 0);
  g_assert_false (pd_events_view_get_following (PD_EVENTS_VIEW (view)));
  pd_events_view_jump_to_newest (PD_EVENTS_VIEW (view));
  assert_newest_shown (view, 149);

  /* Another session with fewer rows than were listed: the list is emptied
   * and filled again while it follows (a move made into rows the list no
   * longer had made GtkListBase warn, fatal here), and it follows on. */
  add_first_events (db, other);
  add_tool_calls (db, other, 500, 30);
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), other);
  wait.n = 33;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  assert_newest_shown (view, 529);
  add_tool_calls (db, other, 530, 40);
  wait.n = 73;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  assert_newest_shown (view, 569);

  /* Never an event lost: the rows are the stored events. */
  {
    g_autoptr(GPtrArray) stored = pd_session_store_list_events (db->store, other, NULL, 0, 1000, NULL);

    g_assert_cmpuint (g_list_model_get_n_items (model), ==, stored->len);
  }

  pd_test_destroy_window (window, view);
}

/* --- opening at the newest -------------------------------------------------- */

typedef struct
{
  GtkWidget *view;
  guint      oldest_painted;   /* frames that showed the oldest rows */
  guint      painted;
} PaintWatch;

/* How visible @widget is drawn: its opacity and its ancestors'. */
static double
drawn_opacity (GtkWidget *widget)
{
  double opacity = 1;

  for (GtkWidget *w = widget; w != NULL; w = gtk_widget_get_parent (w))
    opacity *= gtk_widget_get_opacity (w);
  return opacity;
}

static void
on_after_paint (GdkFrameClock *clock,
                PaintWatch    *watch)
{
  GtkWidget *columns = pd_test_find_widget (watch->view, GTK_TYPE_COLUMN_VIEW);
  GtkWidget *scroller = gtk_widget_get_ancestor (columns, GTK_TYPE_SCROLLED_WINDOW);
  GtkWidget *oldest = pd_test_find_first (watch->view, is_mapped_label, "shell · 100 ms");
  graphene_rect_t bounds;

  if (!gtk_widget_get_mapped (watch->view))
    return;
  watch->painted++;
  if (oldest != NULL && drawn_opacity (scroller) > 0 &&
      gtk_widget_compute_bounds (oldest, scroller, &bounds) &&
      bounds.origin.y + bounds.size.height > 0 && bounds.origin.y < gtk_widget_get_height (scroller))
    watch->oldest_painted++;
}

/* Tried as a new user would: the Events page opened at its oldest event,
 * drawn so, then jumped to the newest.  Opened (filled while shown, and
 * filled while hidden then shown), no frame draws the oldest rows. */
static void
test_events_open_at_newest (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Fix the parser");
  g_autofree char *other = pd_test_db_create_session (db, "Port the lexer");
  GtkWidget *view = pd_events_view_new ();
  PaintWatch watch = { view, 0, 0 };
  GdkFrameClock *clock;
  GtkWindow *window;
  gulong handler;
  CountWait wait;

  add_tool_calls (db, id, 0, 150);
  add_tool_calls (db, other, 0, 120);
  window = pd_test_present (view, 900, 500);
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  handler = g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), &watch);

  /* Shown, then filled. */
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  wait.model = pd_events_view_get_model (PD_EVENTS_VIEW (view));
  wait.n = 150;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  assert_newest_shown (view, 149);
  gtk_test_widget_wait_for_draw (view);
  g_test_message ("%u frames, %u with the oldest rows", watch.painted, watch.oldest_painted);
  g_assert_cmpuint (watch.oldest_painted, ==, 0);

  /* Another session while hidden (another page shown): nothing read until
   * shown, then shown at its newest. */
  gtk_widget_set_visible (view, FALSE);
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), other);
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpuint (g_list_model_get_n_items (wait.model), ==, 0);
  watch.painted = 0;
  gtk_widget_set_visible (view, TRUE);
  wait.n = 120;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  assert_newest_shown (view, 119);
  gtk_test_widget_wait_for_draw (view);
  g_test_message ("%u frames, %u with the oldest rows", watch.painted, watch.oldest_painted);
  g_assert_cmpuint (watch.painted, >, 0);
  g_assert_cmpuint (watch.oldest_painted, ==, 0);

  g_signal_handler_disconnect (clock, handler);
  pd_test_destroy_window (window, view);
}

static GtkWidget *
find_button (GtkWidget  *view,
             const char *label)
{
  g_autoptr(GPtrArray) buttons = g_ptr_array_new ();

  pd_test_collect (view, GTK_TYPE_BUTTON, buttons);
  for (guint i = 0; i < buttons->len; i++)
    if (g_strcmp0 (gtk_button_get_label (g_ptr_array_index (buttons, i)), label) == 0)
      return g_ptr_array_index (buttons, i);
  return NULL;
}

static gint64
seq_at (GListModel *model,
        guint       position)
{
  g_autoptr(PdEventItem) item = g_list_model_get_item (model, position);

  return pd_event_item_get_seq (item);
}

/* A long stream is read from its end: the newest 200 events, then 200
 * more before them with each "Show Earlier Events", up to the first; new
 * events are appended after the newest as ever.  (A session of 600,000
 * events was listed whole: the window took gigabytes for it.) */
static void
test_events_newest_first (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "A long run");
  g_autofree char *other = pd_test_db_create_session (db, "Another run");
  GtkWidget *view = pd_events_view_new ();
  GtkWidget *earlier;
  GListModel *model;
  GtkWindow *window;
  CountWait wait;
  gint64 newest;

  add_tool_calls (db, id, 0, 250);
  add_tool_calls (db, other, 0, 10);
  newest = pd_test_db_add_event (db, id, PD_EVENT_PLAN_BLOCKED, NULL, 0, "{\"steps\":4,\"blocked\":2}");
  add_tool_calls (db, id, 250, 199);
  window = pd_test_present (view, 900, 500);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  model = pd_events_view_get_model (PD_EVENTS_VIEW (view));
  wait.model = model;
  wait.n = PD_EVENTS_VIEW_LATEST_MAX;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  pd_test_flush (GTK_WIDGET (window));
  /* The read after the newest has ended (a fallback poll may come on a
   * loaded machine: it finds nothing more). */
  g_assert_true (pd_test_wait_for (view_is_idle, view));
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, PD_EVENTS_VIEW_LATEST_MAX);
  /* The newest 200: the blocked streak first, then the last 199 calls. */
  g_assert_cmpint (seq_at (model, 0), ==, newest);
  g_assert_cmpint (pd_events_view_get_last_seq (PD_EVENTS_VIEW (view)), ==, newest + 199);
  earlier = find_button (view, "Show Earlier Events");
  g_assert_nonnull (earlier);
  g_assert_true (gtk_widget_get_mapped (earlier));
  g_assert_nonnull (pd_test_find_label (view, "Earlier events are not shown"));

  /* 200 before them, put above: the other session's ten are not among them. */
  g_signal_emit_by_name (earlier, "clicked");
  wait.n = 2 * PD_EVENTS_VIEW_LATEST_MAX;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  g_assert_cmpint (seq_at (model, PD_EVENTS_VIEW_LATEST_MAX), ==, newest);
  for (guint i = 1; i < g_list_model_get_n_items (model); i++)
    g_assert_cmpint (seq_at (model, i - 1), <, seq_at (model, i));
  g_assert_true (gtk_widget_get_mapped (earlier));

  /* The first 50: then nothing is left before. */
  g_signal_emit_by_name (earlier, "clicked");
  wait.n = 450;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_false (gtk_widget_get_mapped (earlier));
  {
    g_autoptr(PdEventItem) first = g_list_model_get_item (model, 0);

    g_assert_cmpstr (pd_event_item_get_summary (first), ==, "shell · 100 ms");
  }

  /* New events come after the newest. */
  add_tool_calls (db, id, 449, 3);
  pd_events_view_refresh (PD_EVENTS_VIEW (view));
  wait.n = 453;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  pd_test_screenshot (GTK_WIDGET (window), "events-newest-first");

  pd_test_destroy_window (window, view);
}

/* @n todo_write calls of a Qwen Code session from call @from on, the
 * list's one item done at the last: a call, its result, a plan update. */
static void
append_plan_calls (const char *path,
                   guint       from,
                   guint       n)
{
  g_autoptr(GString) text = g_string_new (NULL);
  const char *head = "{\"uuid\":\"u\",\"sessionId\":\"s1\",\"timestamp\":\"2026-04-02T08:00:00.000Z\",\"cwd\":\"/w\",";

  for (guint i = from; i < from + n; i++)
    g_string_append_printf (text,
                            "%s\"type\":\"assistant\",\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":"
                            "{\"id\":\"c%u\",\"name\":\"todo_write\",\"args\":{\"todos\":[{\"id\":\"1\",\"content\":"
                            "\"Step %u\",\"status\":\"%s\"}]}}}]}}\n"
                            "%s\"type\":\"tool_result\",\"message\":{\"role\":\"user\",\"parts\":[{\"functionResponse\":"
                            "{\"id\":\"c%u\",\"name\":\"todo_write\",\"response\":{\"output\":\"ok\"}}}]},"
                            "\"toolCallResult\":{\"callId\":\"c%u\",\"status\":\"success\"}}\n",
                            head, i, i, i + 1 == from + n ? "completed" : "in_progress", head, i, i);
  pd_import_test_append (path, text->str);
}

/* A long imported transcript's Events page: the newest events read from
 * the file's end (its plan updates give their counts: a part knows no
 * version's number), the part before them, then what the agent appends.
 * Before, the whole timeline was built and the row said "plan v300 · …". */
static gboolean
widget_is_mapped (gpointer data)
{
  return gtk_widget_get_mapped (GTK_WIDGET (data));
}

static void
test_events_long_imported (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *chats = g_build_filename (dir, "chats", NULL);
  g_autofree char *path = g_build_filename (chats, "s1.jsonl", NULL);
  g_autoptr(PdSessionInfo) info = NULL;
  PdImportIndexStats stats;
  GtkWidget *view = pd_events_view_new ();
  GtkWidget *earlier;
  GListModel *model;
  GtkWindow *window;
  CountWait wait;

  g_assert_cmpint (g_mkdir_with_parents (chats, 0700), ==, 0);
  append_plan_calls (path, 0, 300);
  info = pd_import_test_import_fresh (db->store, dir, &stats);
  _pd_import_set_tail_limits (16 * 1024, 16 * 1024);

  window = pd_test_present (view, 900, 500);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), info->id);
  model = pd_events_view_get_model (PD_EVENTS_VIEW (view));
  wait.model = model;
  wait.n = PD_EVENTS_VIEW_LATEST_MAX;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, PD_EVENTS_VIEW_LATEST_MAX);
  {
    g_autoptr(PdEventItem) last = g_list_model_get_item (model, PD_EVENTS_VIEW_LATEST_MAX - 1);
    g_autoptr(PdEventItem) started = g_list_model_get_item (model, PD_EVENTS_VIEW_LATEST_MAX - 3);

    g_assert_cmpstr (pd_event_item_get_summary (last), ==, "plan · 1/1 done");
    g_assert_cmpstr (pd_event_item_get_summary (started), ==, "todo_write · c299");
  }

  /* The part before: above, in order. */
  earlier = find_button (view, "Show Earlier Events");
  /* The page shows once its read after the newest part has ended too. */
  g_assert_true (pd_test_wait_for (widget_is_mapped, earlier));
  g_signal_emit_by_name (earlier, "clicked");
  wait.n = 2 * PD_EVENTS_VIEW_LATEST_MAX;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  for (guint i = 1; i < g_list_model_get_n_items (model); i++)
    g_assert_cmpint (seq_at (model, i - 1), <, seq_at (model, i));
  {
    g_autoptr(PdEventItem) first = g_list_model_get_item (model, 0);

    /* 900 events: the 400 newest begin with call 166's plan update. */
    g_assert_cmpstr (pd_event_item_get_summary (first), ==, "plan · 0/1 done");
  }

  /* The agent writes on: its events come after the newest. */
  append_plan_calls (path, 300, 2);
  pd_events_view_refresh (PD_EVENTS_VIEW (view));
  wait.n = 2 * PD_EVENTS_VIEW_LATEST_MAX + 6;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  pd_test_screenshot (GTK_WIDGET (window), "events-long-imported");

  pd_test_destroy_window (window, view);
  _pd_import_set_tail_limits (0, 0);
  pd_test_remove_tree (dir);
}

/* --- a hidden page reads nothing ---------------------------------------------- */

/* The Events page read while another page was shown: the window marks the
 * shown session live while its Now page is up, and that read raced the one
 * the page started when shown (a flaky live test).  Behind another page of
 * a stack, as in the window: made live, asked to refresh, events committed
 * meanwhile, it reads nothing; shown, it reads once and lists them all. */
static void
test_events_hidden_reads_nothing (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "A long run");
  GtkWidget *stack = gtk_stack_new ();
  GtkWidget *view;
  PdSessionView *session_view;
  GListModel *model;
  GtkWindow *window;
  CountWait wait;
  guint reads;

  /* The fallback poll ticks while the page is shown, never hidden: every
   * read counted while hidden is one too many. */
  view = pd_events_view_new ();
  session_view = PD_SESSION_VIEW (view);
  gtk_stack_add_named (GTK_STACK (stack), gtk_label_new ("Now"), "now");
  gtk_stack_add_named (GTK_STACK (stack), view, "events");
  gtk_stack_set_visible_child_name (GTK_STACK (stack), "now");
  add_first_events (db, id);
  window = pd_test_present (stack, 900, 500);
  model = pd_events_view_get_model (PD_EVENTS_VIEW (view));

  pd_session_view_set_source (session_view, PD_SOURCE (db->source));
  pd_session_view_set_session_id (session_view, id);
  pd_events_view_set_live (PD_EVENTS_VIEW (view), TRUE);
  add_tool_calls (db, id, 0, 40);
  pd_events_view_refresh (PD_EVENTS_VIEW (view));
  pd_test_flush (GTK_WIDGET (window));
  g_test_message ("hidden: %u reads, %u rows", pd_session_view_get_n_reloads (session_view),
                  g_list_model_get_n_items (model));
  g_assert_cmpuint (pd_session_view_get_n_reloads (session_view), ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 0);

  gtk_stack_set_visible_child_name (GTK_STACK (stack), "events");
  wait.model = model;
  wait.n = 43;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  g_assert_true (pd_test_wait_for (view_is_idle, view));
  reads = pd_session_view_get_n_reloads (session_view);
  g_assert_cmpuint (reads, >=, 1);

  /* Hidden again while the run goes on: shown, it catches up once. */
  gtk_stack_set_visible_child_name (GTK_STACK (stack), "now");
  pd_test_flush (GTK_WIDGET (window));
  add_tool_calls (db, id, 40, 10);
  pd_events_view_refresh (PD_EVENTS_VIEW (view));
  pd_events_view_set_live (PD_EVENTS_VIEW (view), FALSE);
  pd_events_view_set_live (PD_EVENTS_VIEW (view), TRUE);
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpuint (pd_session_view_get_n_reloads (session_view), ==, reads);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 43);
  gtk_stack_set_visible_child_name (GTK_STACK (stack), "events");
  wait.n = 53;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  g_assert_true (pd_test_wait_for (view_is_idle, view));
  g_assert_cmpuint (pd_session_view_get_n_reloads (session_view), >, reads);

  pd_test_destroy_window (window, view);
}

/* --- a long run followed: a bounded window ------------------------------------ */

typedef struct
{
  PdEventsView *view;
  gint64        seq;
} SeqWait;

static gboolean
has_read_to (gpointer data)
{
  SeqWait *wait = data;

  return pd_events_view_get_last_seq (wait->view) >= wait->seq &&
         !pd_session_view_get_busy (PD_SESSION_VIEW (wait->view));
}

/* The newest stored event of @id. */
static gint64
newest_seq (PdTestDb   *db,
            const char *id)
{
  g_autoptr(GPtrArray) latest = pd_session_store_list_latest_events (db->store, id, -1, NULL, 1, NULL);

  g_assert_nonnull (latest);
  g_assert_cmpuint (latest->len, ==, 1);
  return ((PdStoredEvent *) g_ptr_array_index (latest, 0))->seq;
}

/* Following, and the list at its end (the rows' summaries of calls over
 * a second repeat: "shell · 2.6 s"). */
static void
assert_at_newest (GtkWidget *view)
{
  GtkWidget *columns = pd_test_find_widget (view, GTK_TYPE_COLUMN_VIEW);
  GtkScrolledWindow *scroller = GTK_SCROLLED_WINDOW (gtk_widget_get_ancestor (columns, GTK_TYPE_SCROLLED_WINDOW));

  pd_test_flush (view);
  g_assert_true (pd_events_view_get_following (PD_EVENTS_VIEW (view)));
  g_assert_true (pd_test_wait_for (adjustment_at_end, gtk_scrolled_window_get_vadjustment (scroller)));
  g_assert_true (pd_events_view_get_following (PD_EVENTS_VIEW (view)));
}

static void
assert_in_order (GListModel *model)
{
  for (guint i = 1; i < g_list_model_get_n_items (model); i++)
    g_assert_cmpint (seq_at (model, i - 1), <, seq_at (model, i));
}

/* Following a run of hours, the Events page kept every event it had read
 * (its JSON and texts): the window's heap grew without bound.  Following,
 * it keeps the newest PD_EVENTS_VIEW_KEEP_MAX, the older read back with
 * "Show Earlier Events"; scrolled up, the list does not grow under the
 * person, and the jump to the newest starts again from the newest. */
static void
test_events_bounded_window (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "A run of hours");
  GtkWidget *view = pd_events_view_new ();
  GtkAdjustment *adjustment;
  GListModel *model;
  GtkWindow *window;
  GtkWidget *earlier;
  SeqWait wait = { PD_EVENTS_VIEW (view), 0 };
  gint64 first;
  double value;

  add_first_events (db, id);
  window = pd_test_present (view, 900, 500);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  pd_events_view_set_live (PD_EVENTS_VIEW (view), TRUE);
  model = pd_events_view_get_model (PD_EVENTS_VIEW (view));

  /* 2 500 events in bursts, followed. */
  for (guint round = 0; round < 5; round++)
    {
      add_tool_calls (db, id, round * 500, 500);
      pd_events_view_refresh (PD_EVENTS_VIEW (view));
      wait.seq = newest_seq (db, id);
      g_assert_true (pd_test_wait_for (has_read_to, &wait));
    }
  g_test_message ("following 2 503 events: %u listed", g_list_model_get_n_items (model));
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, PD_EVENTS_VIEW_KEEP_MAX);
  g_assert_cmpint (seq_at (model, PD_EVENTS_VIEW_KEEP_MAX - 1), ==, wait.seq);
  assert_in_order (model);
  assert_at_newest (view);
  earlier = find_button (view, "Show Earlier Events");
  g_assert_true (gtk_widget_get_mapped (earlier));
  pd_test_screenshot (GTK_WIDGET (window), "events-bounded-window");

  /* The ones let go of are read back, just before the first listed. */
  first = seq_at (model, 0);
  g_signal_emit_by_name (earlier, "clicked");
  {
    CountWait count = { model, PD_EVENTS_VIEW_KEEP_MAX + PD_EVENTS_VIEW_LATEST_MAX };

    g_assert_true (pd_test_wait_for (has_n_items, &count));
  }
  g_assert_cmpint (seq_at (model, PD_EVENTS_VIEW_LATEST_MAX), ==, first);
  g_assert_cmpint (seq_at (model, PD_EVENTS_VIEW_LATEST_MAX - 1), ==, first - 1);
  assert_in_order (model);
  /* What the person asked for stays while the run goes on: only as many
   * go as come. */
  add_tool_calls (db, id, 2500, 5);
  pd_events_view_refresh (PD_EVENTS_VIEW (view));
  wait.seq = newest_seq (db, id);
  g_assert_true (pd_test_wait_for (has_read_to, &wait));
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, PD_EVENTS_VIEW_KEEP_MAX + PD_EVENTS_VIEW_LATEST_MAX);
  first = seq_at (model, 0);

  /* Scrolled up: 1 500 more are not listed under the person reading. */
  adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (
    gtk_widget_get_ancestor (pd_test_find_widget (view, GTK_TYPE_COLUMN_VIEW), GTK_TYPE_SCROLLED_WINDOW)));
  pd_test_flush (view);
  gtk_adjustment_set_value (adjustment, 0);
  pd_test_flush (view);
  g_assert_false (pd_events_view_get_following (PD_EVENTS_VIEW (view)));
  value = gtk_adjustment_get_value (adjustment);
  add_tool_calls (db, id, 2505, 1500);
  pd_events_view_refresh (PD_EVENTS_VIEW (view));
  pd_test_flush (view);
  g_assert_true (pd_test_wait_for (view_is_idle, view));
  g_test_message ("scrolled up, 1 500 more: %u listed", g_list_model_get_n_items (model));
  g_assert_cmpuint (g_list_model_get_n_items (model), <=, PD_EVENTS_VIEW_KEEP_MAX + PD_EVENTS_VIEW_LATEST_MAX);
  g_assert_cmpint (seq_at (model, 0), ==, first);
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, value);
  g_assert_false (pd_events_view_get_following (PD_EVENTS_VIEW (view)));

  /* Following again: it reads on to the newest, within the bound. */
  pd_events_view_jump_to_newest (PD_EVENTS_VIEW (view));
  wait.seq = newest_seq (db, id);
  g_assert_true (pd_test_wait_for (has_read_to, &wait));
  assert_at_newest (view);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, PD_EVENTS_VIEW_KEEP_MAX);
  g_assert_cmpint (seq_at (model, g_list_model_get_n_items (model) - 1), ==, wait.seq);
  assert_in_order (model);

  /* Hidden while 5 000 come (hours on another page), then shown: read up
   * to the newest, within the bound. */
  gtk_widget_set_visible (view, FALSE);
  add_tool_calls (db, id, 4005, 5000);
  pd_events_view_refresh (PD_EVENTS_VIEW (view));
  pd_test_flush (GTK_WIDGET (window));
  gtk_widget_set_visible (view, TRUE);
  wait.seq = newest_seq (db, id);
  g_assert_true (pd_test_wait_for (has_read_to, &wait));
  assert_at_newest (view);
  g_test_message ("shown after 5 000 came hidden: %u listed", g_list_model_get_n_items (model));
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, PD_EVENTS_VIEW_KEEP_MAX);
  g_assert_cmpint (seq_at (model, 0), ==, wait.seq - PD_EVENTS_VIEW_KEEP_MAX + 1);
  g_assert_true (gtk_widget_get_mapped (earlier));
  g_assert_cmpint (seq_at (model, g_list_model_get_n_items (model) - 1), ==, wait.seq);
  assert_in_order (model);

  pd_test_destroy_window (window, view);
}

/* An endpoint's run waiting for a person, and answered: words, not
 * "approval_requested" (tried as a new user would); a type of no known
 * name stays as it came.  Each row says what was asked, the answer's row
 * the answer too: its Summary was empty (tried as a new user would). */
static gboolean
all_words_shown (gpointer data)
{
  const char *shown[] = { "Approval requested", "Approval resolved", "custom_marker",
                          "asked: write_file (writes files)", "asked: write_file (writes files) · approved" };

  for (guint i = 0; i < G_N_ELEMENTS (shown); i++)
    if (pd_test_find_first (data, is_mapped_label, shown[i]) == NULL)
      return FALSE;
  return TRUE;
}

static void
test_events_type_words (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "A run asking");
  GtkWidget *view = pd_events_view_new ();
  GtkWindow *window = pd_test_present (view, 900, 500);
  CountWait wait = { pd_events_view_get_model (PD_EVENTS_VIEW (view)), 3 };

  /* As serve tells them (/pd/server-ws/approval checks that it does). */
  pd_test_db_add_event (db, id, PD_EVENT_APPROVAL_REQUESTED, "write_file", 0,
                        "{\"approval_id\":\"a1\",\"risk\":\"local_write\"}");
  pd_test_db_add_event (db, id, PD_EVENT_APPROVAL_RESOLVED, "write_file", 0,
                        "{\"approval_id\":\"a1\",\"risk\":\"local_write\",\"outcome\":\"approved\"}");
  pd_test_db_add_event (db, id, "custom_marker", NULL, 0, "{}");
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  /* A wait, not a look: on a loaded machine the list makes its rows some
   * frames after the model has them (a clean clone's CI failed here). */
  g_assert_true (pd_test_wait_for (all_words_shown, view));
  g_assert_null (pd_test_find_first (view, is_mapped_label, PD_EVENT_APPROVAL_REQUESTED));
  pd_test_screenshot (GTK_WIDGET (window), "events-type-words");
  pd_test_destroy_window (window, view);
}

int
main (int   argc,
      char *argv[])
{
  pd_test_views_init (&argc, &argv);

  g_test_add_func ("/pd/ui/events-view/tail-live", test_events_tail_live);
  g_test_add_func ("/pd/ui/events-view/filter-by-type", test_events_filter_by_type);
  g_test_add_func ("/pd/ui/events-view/plain-text-and-empty", test_events_plain_text_and_empty);
  g_test_add_func ("/pd/ui/events-view/model-outcomes", test_events_model_outcomes);
  g_test_add_func ("/pd/ui/events-view/narrow", test_events_narrow);
  g_test_add_func ("/pd/ui/events-view/follow-newest", test_events_follow_newest);
  g_test_add_func ("/pd/ui/events-view/newest-first", test_events_newest_first);
  g_test_add_func ("/pd/ui/events-view/open-at-newest", test_events_open_at_newest);
  g_test_add_func ("/pd/ui/events-view/long-imported", test_events_long_imported);
  g_test_add_func ("/pd/ui/events-view/hidden-reads-nothing", test_events_hidden_reads_nothing);
  g_test_add_func ("/pd/ui/events-view/bounded-window", test_events_bounded_window);
  g_test_add_func ("/pd/ui/events-view/type-words", test_events_type_words);

  return g_test_run ();
}
