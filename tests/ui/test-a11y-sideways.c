/* test-a11y-sideways.c: nothing scrolls sideways at 1.5× text and 360 px
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Found by a screen-reader tester at 1.5× text in a 360 px window (issue
 * 23): the Events page's compact rows scrolled sideways, the time off the
 * left edge and the titles clipped at the right without an ellipsis.
 * Every cell fits the width: no sideways scroll, each label inside the
 * scroller's width.
 */
#define G_LOG_DOMAIN "test-a11y-sideways"

#include "config.h"

#include "pd-event.h"
#include "pd-events-view.h"
#include "pd-test-a11y-keys.h"
#include "pd-test-db.h"
#include "pd-test-ui.h"

typedef struct
{
  GListModel *model;
  guint       n;
} CountWait;

static gboolean
has_n_items (gpointer data)
{
  CountWait *wait = data;

  return g_list_model_get_n_items (wait->model) == wait->n;
}

static gboolean
is_compact (gpointer view)
{
  return pd_events_view_get_compact (view);
}

/* The mapped labels of @root drawn past @scroller's left or right edge. */
static guint
count_labels_outside (GtkWidget *root,
                      GtkWidget *scroller)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  int width = gtk_widget_get_width (scroller);
  guint n_outside = 0;

  pd_test_collect (root, GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);
      graphene_rect_t bounds;

      if (!gtk_widget_get_mapped (label) || *gtk_label_get_text (GTK_LABEL (label)) == '\0' ||
          !gtk_widget_compute_bounds (label, scroller, &bounds))
        continue;
      if (bounds.origin.x < -1 || bounds.origin.x + bounds.size.width > width + 1)
        {
          g_test_message ("“%s” is drawn from %.0f to %.0f px, the scroller %d px wide",
                          gtk_label_get_text (GTK_LABEL (label)), bounds.origin.x,
                          bounds.origin.x + bounds.size.width, width);
          n_outside++;
        }
    }
  return n_outside;
}

/* The Events page at 1.5× text in 360 px: compact rows that fit. */
static void
test_events_large_text_narrow (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, "Say hello");
  int dpi = pd_test_a11y_large_text ();
  GtkWidget *view = pd_events_view_new ();
  GtkWidget *columns;
  GtkWidget *scroller;
  GtkAdjustment *hadjustment;
  GtkWindow *window;
  CountWait wait;
  guint outside;

  pd_test_db_add_event (db, id, PD_EVENT_RUN_STARTED, NULL, 0, "{\"model\":\"llama3.1\",\"provider\":\"openai\"}");
  for (guint i = 2; i <= 4; i++)
    {
      g_autofree char *data = g_strdup_printf ("{\"attempt\":%u,\"max_attempts\":4,\"delay_ms\":%u,"
                                               "\"reason\":\"broken off before the answer ended\"}",
                                               i, 250u << i);

      pd_test_db_add_event (db, id, PD_EVENT_PROVIDER_RETRY, NULL, 0, data);
    }
  pd_test_db_add_event (db, id, PD_EVENT_RUN_FAILED, NULL, 0, "{\"message\":\"failed after 3.6 s\"}");

  window = pd_test_present (view, 360, 640);
  pd_session_view_set_source (PD_SESSION_VIEW (view), PD_SOURCE (db->source));
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  wait.model = pd_events_view_get_model (PD_EVENTS_VIEW (view));
  wait.n = 5;
  g_assert_true (pd_test_wait_for (has_n_items, &wait));
  g_assert_true (pd_test_wait_for (is_compact, view));
  gtk_test_widget_wait_for_draw (view);
  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (100);
  pd_test_flush (GTK_WIDGET (window));

  columns = pd_test_find_widget (view, GTK_TYPE_COLUMN_VIEW);
  scroller = gtk_widget_get_parent (columns);
  g_assert_true (GTK_IS_SCROLLED_WINDOW (scroller));
  hadjustment = gtk_scrollable_get_hadjustment (GTK_SCROLLABLE (columns));
  g_test_message ("at 1.5× text and 360 px: the rows %.0f px wide in %.0f px", gtk_adjustment_get_upper (hadjustment),
                  gtk_adjustment_get_page_size (hadjustment));
  outside = count_labels_outside (columns, scroller);
  pd_test_screenshot_sizes (window, "a11y-sideways-events");
  g_assert_cmpfloat (gtk_adjustment_get_upper (hadjustment), <=, gtk_adjustment_get_page_size (hadjustment) + 1);
  g_assert_cmpuint (outside, ==, 0);

  gtk_window_destroy (window);
  g_object_set (gtk_settings_get_default (), "gtk-xft-dpi", dpi, NULL);
}

int
main (int   argc,
      char *argv[])
{
  pd_test_views_init (&argc, &argv);
  g_test_add_func ("/pd/ui/a11y/sideways/events", test_events_large_text_narrow);
  return g_test_run ();
}
