/* test-events-view-follow.c: a followed run's Events page after "Show
 * Earlier Events"
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A real PdEventsView on a real database; events are added through the
 * session store while the view follows them, as a run in another process
 * adds them.  The ui tests run with G_DEBUG=fatal-warnings: a GTK warning
 * on these moves fails them.
 */
#define G_LOG_DOMAIN "test-events-view-follow"

#include "config.h"

#include "pd-event-item.h"
#include "pd-events-view.h"
#include "pd-session-store.h"
#include "pd-test-db.h"
#include "pd-test-ui.h"

typedef struct
{
  PdEventsView *view;
  gint64        seq;
} SeqWait;

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
view_is_idle_cb (gpointer user_data)
{
  return !pd_session_view_get_busy (PD_SESSION_VIEW (user_data));
}

static gboolean
has_read_to (gpointer data)
{
  SeqWait *wait = data;

  return pd_events_view_get_last_seq (wait->view) >= wait->seq &&
         !pd_session_view_get_busy (PD_SESSION_VIEW (wait->view));
}

static gint64
newest_seq (PdTestDb   *db,
            const char *id)
{
  g_autoptr(GPtrArray) latest = pd_session_store_list_latest_events (db->store, id, -1, NULL, 1, NULL);

  g_assert_nonnull (latest);
  g_assert_cmpuint (latest->len, ==, 1);
  return ((PdStoredEvent *) g_ptr_array_index (latest, 0))->seq;
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

static gboolean
find_label_button (GtkWidget     *widget,
                   gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), data) == 0;
}

static gboolean
adjustment_at_end (gpointer data)
{
  GtkAdjustment *adjustment = data;

  return gtk_adjustment_get_upper (adjustment) > gtk_adjustment_get_page_size (adjustment) &&
         gtk_adjustment_get_value (adjustment) + gtk_adjustment_get_page_size (adjustment) >=
         gtk_adjustment_get_upper (adjustment) - 1;
}

static GtkAdjustment *
view_adjustment (GtkWidget *view)
{
  GtkWidget *columns = pd_test_find_widget (view, GTK_TYPE_COLUMN_VIEW);

  return gtk_scrolled_window_get_vadjustment (
    GTK_SCROLLED_WINDOW (gtk_widget_get_ancestor (columns, GTK_TYPE_SCROLLED_WINDOW)));
}

/* 2 000 events of a run, followed at the bottom. */
static GtkWindow *
follow_long_run (PdTestDb   *db,
                 const char *id,
                 GtkWidget  *view)
{
  GtkWindow *window = pd_test_present (view, 900, 500);
  SeqWait wait = { PD_EVENTS_VIEW (view), 0 };

  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  pd_events_view_set_live (PD_EVENTS_VIEW (view), TRUE);
  for (guint round = 0; round < 4; round++)
    {
      add_tool_calls (db, id, round * 500, 500);
      pd_events_view_refresh (PD_EVENTS_VIEW (view));
      wait.seq = newest_seq (db, id);
      g_assert_true (pd_test_wait_for (has_read_to, &wait));
    }
  pd_test_flush (view);
  g_assert_true (pd_test_wait_for (adjustment_at_end, view_adjustment (view)));
  g_assert_true (pd_events_view_get_following (PD_EVENTS_VIEW (view)));
  return window;
}

/* "Show Earlier Events" clicked: waits for its @n more rows. */
static void
show_earlier (GtkWidget *view)
{
  GListModel *model = pd_events_view_get_model (PD_EVENTS_VIEW (view));
  GtkWidget *earlier = pd_test_find_first (view, find_label_button, "Show Earlier Events");
  CountWait count = { model, g_list_model_get_n_items (model) + PD_EVENTS_VIEW_LATEST_MAX };

  g_assert_nonnull (earlier);
  g_assert_true (gtk_widget_get_mapped (earlier));
  g_signal_emit_by_name (earlier, "clicked");
  g_assert_true (pd_test_wait_for (has_n_items, &count));
  pd_test_flush (view);
}

/* Tried as a new user would: a followed run's Events page scrolled up, the
 * jump arrow, Show Earlier Events, the run going on: GTK warned "Trying to
 * snapshot GtkBox without a current allocation" (fatal here) and once the
 * top bar (Type filter, count) was not drawn: the jump arrow in it was
 * shown or hidden from the list's layout. */
static void
test_events_moves_no_warning (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "A replay of 3 000 turns");
  GtkWidget *view = pd_events_view_new ();
  GtkWindow *window = follow_long_run (db, id, view);
  GtkAdjustment *adjustment = view_adjustment (view);
  GtkWidget *toolbar;
  SeqWait wait = { PD_EVENTS_VIEW (view), 0 };

  /* Show Earlier Events at the bottom, the run going on. */
  show_earlier (view);
  add_tool_calls (db, id, 3000, 5);
  pd_events_view_refresh (PD_EVENTS_VIEW (view));
  wait.seq = newest_seq (db, id);
  g_assert_true (pd_test_wait_for (has_read_to, &wait));
  pd_test_flush (view);

  /* Scrolled up, the run going on, then the jump arrow. */
  gtk_adjustment_set_value (adjustment, 0);
  pd_test_flush (view);
  g_assert_false (pd_events_view_get_following (PD_EVENTS_VIEW (view)));
  add_tool_calls (db, id, 2000, 50);
  pd_events_view_refresh (PD_EVENTS_VIEW (view));
  g_assert_true (pd_test_wait_for (view_is_idle_cb, view));
  pd_test_flush (view);
  pd_events_view_jump_to_newest (PD_EVENTS_VIEW (view));
  wait.seq = newest_seq (db, id);
  g_assert_true (pd_test_wait_for (has_read_to, &wait));
  pd_test_flush (view);
  g_assert_true (pd_test_wait_for (adjustment_at_end, adjustment));

  /* Show Earlier Events, the run going on. */
  show_earlier (view);
  add_tool_calls (db, id, 2050, 5);
  pd_events_view_refresh (PD_EVENTS_VIEW (view));
  wait.seq = newest_seq (db, id);
  g_assert_true (pd_test_wait_for (has_read_to, &wait));
  pd_test_flush (view);

  /* The top bar is laid out: the type filter has its size. */
  toolbar = gtk_widget_get_parent (pd_test_find_widget (view, GTK_TYPE_DROP_DOWN));
  g_assert_cmpint (gtk_widget_get_height (toolbar), >, 0);
  pd_test_screenshot (GTK_WIDGET (window), "events-moves-no-warning");

  pd_test_destroy_window (window, view);
}

int
main (int   argc,
      char *argv[])
{
  pd_test_views_init (&argc, &argv);

  g_test_add_func ("/pd/ui/events-view-follow/moves-no-warning", test_events_moves_no_warning);
  return g_test_run ();
}
