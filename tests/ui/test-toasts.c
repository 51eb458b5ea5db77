/* test-toasts.c: a toast dismissed while it appears
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * libadwaita 1.2 frees a toast's record when its hide animation ends, and
 * its show animation's end then reads the record: a toast dismissed while
 * it appears (its timeout in a main loop that drew no frame, its close
 * button, a checklist tick's toast replacing the last one) made the
 * window read freed memory.  The imported-pages test crashed so 1 run in
 * 4 with MALLOC_PERTURB_.  These run a real AdwToastOverlay in a real
 * window under Xvfb, with the C library's per-thread cache of freed
 * blocks off and MALLOC_PERTURB_ fixed (meson.build): a freed record is
 * overwritten at once, and reading it crashed every run before
 * _pd_toast_add() held such dismissals back.
 */
#define G_LOG_DOMAIN "test-toasts"

#include "config.h"

#include "pd-test-db.h"
#include "pd-test-ui.h"
#include "pd-ui-util-private.h"

static gboolean
is_toast_widget (GtkWidget     *widget,
                 gconstpointer  data)
{
  return g_strcmp0 (gtk_widget_get_css_name (widget), "toast") == 0;
}

static gboolean
no_toast_widget (gpointer root)
{
  return pd_test_find_first (root, is_toast_widget, NULL) == NULL;
}

static gboolean
has_toast_widget (gpointer root)
{
  return !no_toast_widget (root);
}

static void
count_dismissed (AdwToast *toast,
                 guint    *count)
{
  (*count)++;
}

typedef struct
{
  GtkWidget *overlay;
  GtkWindow *window;
} Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  GtkWidget *child = gtk_label_new ("Content");

  f->overlay = adw_toast_overlay_new ();
  adw_toast_overlay_set_child (ADW_TOAST_OVERLAY (f->overlay), child);
  f->window = pd_test_present (f->overlay, 640, 480);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  pd_test_destroy_window (f->window, f->overlay);
}

/* Shown and dismissed in the same turn of the main loop, as a timeout or
 * a click that comes before any frame was drawn: the hiding and the
 * appearing end in the same frame, the hiding's tick first. */
static void
test_dismissed_at_once (Fixture       *f,
                        gconstpointer  data)
{
  AdwToast *toast = adw_toast_new ("Reading the transcripts of other agents…");
  guint dismissed = 0;

  _pd_toast_add (f->overlay, toast);
  g_signal_connect_after (toast, "dismissed", G_CALLBACK (count_dismissed), &dismissed);
  adw_toast_dismiss (toast);
  /* It goes, once, when it has appeared. */
  g_assert_true (pd_test_wait_for (no_toast_widget, f->window));
  g_assert_cmpuint (dismissed, ==, 1);
  /* Any show animation still to end would end in these frames. */
  pd_test_spin (700);
  g_assert_true (no_toast_widget (f->window));
}

/* A toast replacing one that hides appears in 500 ms; dismissed at once
 * it hid in 300 and its record was freed 200 ms before the show ended
 * (a tick of the checklist replacing the last tick's toast, twice). */
static void
test_replaced_while_appearing (Fixture       *f,
                               gconstpointer  data)
{
  AdwToast *first = adw_toast_new ("Ticked “Write the tests”");
  AdwToast *second = adw_toast_new ("Ticked “Run them”");
  AdwToast *third = adw_toast_new ("Ticked “Ship”");
  guint dismissed = 0;

  _pd_toast_add (f->overlay, first);
  g_assert_true (pd_test_wait_for (has_toast_widget, f->window));
  pd_test_spin (700);
  adw_toast_dismiss (first);
  _pd_toast_add (f->overlay, second);
  g_signal_connect_after (second, "dismissed", G_CALLBACK (count_dismissed), &dismissed);
  adw_toast_dismiss (second);
  _pd_toast_add (f->overlay, third);
  g_signal_connect_after (third, "dismissed", G_CALLBACK (count_dismissed), &dismissed);
  adw_toast_dismiss (third);
  g_assert_true (pd_test_wait_for (no_toast_widget, f->window));
  g_assert_cmpuint (dismissed, ==, 2);
  pd_test_spin (700);
  g_assert_true (no_toast_widget (f->window));
}

/* A toast that waits to be dismissed goes with its window. */
static void
test_window_closed_while_held (Fixture       *f,
                               gconstpointer  data)
{
  AdwToast *toast = adw_toast_new ("Ticked “Write the tests”");
  guint dismissed = 0;

  g_object_ref (toast);
  _pd_toast_add (f->overlay, toast);
  g_signal_connect_after (toast, "dismissed", G_CALLBACK (count_dismissed), &dismissed);
  adw_toast_dismiss (toast);
  g_assert_cmpuint (dismissed, ==, 0);
  pd_test_destroy_window (f->window, f->overlay);
  g_assert_cmpuint (dismissed, ==, 1);
  pd_test_assert_finalized (toast);
  f->overlay = adw_toast_overlay_new ();
  f->window = pd_test_present (f->overlay, 640, 480);
}

typedef struct
{
  GtkWidget *overlay;
  GtkWidget *entry;
} AboveWait;

/* The toast shown and placed: its bounds in the overlay, and the entry's. */
static gboolean
toast_placed (gpointer data)
{
  AboveWait *wait = data;
  GtkWidget *toast = pd_test_find_first (wait->overlay, is_toast_widget, NULL);
  graphene_rect_t bounds;

  return toast != NULL && gtk_widget_get_mapped (toast) &&
         gtk_widget_compute_bounds (toast, wait->overlay, &bounds) && bounds.size.height > 0;
}

/* The window's toasts came at its bottom, over the message entry below
 * the Now page (tried as a new user would): kept above the content's
 * bottom edge, the bars below it uncovered. */
static void
test_kept_above_bars (void)
{
  GtkWidget *overlay = adw_toast_overlay_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *content = gtk_label_new ("The Now page");
  GtkWidget *entry = gtk_entry_new ();
  GtkWindow *window;
  GtkWidget *toast;
  graphene_rect_t toast_bounds, entry_bounds;
  AboveWait wait = { overlay, entry };

  gtk_widget_set_vexpand (content, TRUE);
  gtk_box_append (GTK_BOX (box), content);
  gtk_box_append (GTK_BOX (box), entry);
  adw_toast_overlay_set_child (ADW_TOAST_OVERLAY (overlay), box);
  _pd_toast_keep_above (overlay, content);
  window = pd_test_present (overlay, 640, 480);

  _pd_toast_add_text (overlay, "Token not saved: it is used until Plandeck quits");
  g_assert_true (pd_test_wait_for (toast_placed, &wait));
  pd_test_spin (700);
  toast = pd_test_find_first (overlay, is_toast_widget, NULL);
  g_assert_true (gtk_widget_compute_bounds (toast, overlay, &toast_bounds));
  g_assert_true (gtk_widget_compute_bounds (entry, overlay, &entry_bounds));
  g_test_message ("toast %.0f–%.0f, entry %.0f–%.0f", toast_bounds.origin.y,
                  toast_bounds.origin.y + toast_bounds.size.height, entry_bounds.origin.y,
                  entry_bounds.origin.y + entry_bounds.size.height);
  g_assert_false (graphene_rect_intersection (&toast_bounds, &entry_bounds, NULL));
  g_assert_cmpfloat (toast_bounds.origin.y + toast_bounds.size.height, <=, entry_bounds.origin.y);
  pd_test_screenshot (GTK_WIDGET (window), "toast-above-entry");
  pd_test_destroy_window (window, overlay);
}

int
main (int   argc,
      char *argv[])
{
  pd_test_views_init (&argc, &argv);

  g_test_add ("/pd/ui/toasts/dismissed-at-once", Fixture, NULL, fixture_setup, test_dismissed_at_once,
              fixture_teardown);
  g_test_add ("/pd/ui/toasts/replaced-while-appearing", Fixture, NULL, fixture_setup,
              test_replaced_while_appearing, fixture_teardown);
  g_test_add ("/pd/ui/toasts/window-closed-while-held", Fixture, NULL, fixture_setup,
              test_window_closed_while_held, fixture_teardown);
  g_test_add_func ("/pd/ui/toasts/kept-above-bars", test_kept_above_bars);
  return g_test_run ();
}
