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
 *
 * A toast's title is whole at 1.5× text in a window 360 px wide: the app's
 * longest toasts of each kind, with Undo and without, wrap inside the
 * toast (their titles ended in "…", or ran under the buttons).
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

/* --- whole at 1.5× text and 360 px ------------------------------------- */

/* Toasts of the app's own kinds, the longest of each: a deleted session
 * and a removed endpoint with Undo, a tick of the checklist with Undo, a
 * failed export and a failed answer with a server's message, the import's
 * note. Their titles were cut to "“Plan the release of…”…" at 1.5× text
 * and 360 px (tried as a new user would). */
static const struct
{
  const char *title;
  const char *button;
} long_toasts[] = {
  { "“Plan the release of version 2.4 and write its notes” deleted", "_Undo" },
  { "“Plan the release of version 2.4” removed from the list; the agent’s own transcript is kept", "_Undo" },
  { "Ticked “Write the migration for the sessions table and test it on a copy”", "_Undo" },
  { "builds.example.org removed", "_Undo" },
  { "Could not export to “plan-the-release.md”: Error opening file: Permission denied", NULL },
  { "The answer could not be sent: the endpoint answered 503 Service Unavailable", NULL },
  { "3 sessions imported; 1 file could not be read (`plandeck-agent import` names it and why)", NULL },
};

static gboolean
toast_drawn (gpointer data)
{
  GtkWidget *toast = pd_test_find_first (data, is_toast_widget, NULL);

  return toast != NULL && gtk_widget_get_mapped (toast) && gtk_widget_get_width (toast) > 0;
}

static void
test_whole_at_large_text (void)
{
  GtkSettings *settings = gtk_settings_get_default ();
  GtkWidget *overlay = adw_toast_overlay_new ();
  GtkWindow *window;
  int dpi = 0;

  g_object_get (settings, "gtk-xft-dpi", &dpi, NULL);
  if (dpi <= 0)
    dpi = 96 * 1024;
  g_object_set (settings, "gtk-xft-dpi", dpi * 3 / 2, NULL);
  adw_toast_overlay_set_child (ADW_TOAST_OVERLAY (overlay), gtk_label_new ("Content"));
  window = pd_test_present (overlay, 360, 640);

  for (guint i = 0; i < G_N_ELEMENTS (long_toasts); i++)
    {
      g_autofree char *escaped = g_markup_escape_text (long_toasts[i].title, -1);
      g_autofree char *shot = g_strdup_printf ("toast-large-text-360-%u", i);
      AdwToast *toast = adw_toast_new (escaped);
      GtkWidget *widget;
      GtkWidget *title;
      gboolean cut;

      if (long_toasts[i].button != NULL)
        adw_toast_set_button_label (toast, long_toasts[i].button);
      adw_toast_set_timeout (toast, 0);
      g_object_ref (toast);
      _pd_toast_add (overlay, toast);
      g_assert_true (pd_test_wait_for (toast_drawn, overlay));
      pd_test_spin (700);
      pd_test_flush (GTK_WIDGET (window));
      widget = pd_test_find_first (overlay, is_toast_widget, NULL);
      title = pd_test_find_label (widget, long_toasts[i].title);
      g_assert_nonnull (title);
      {
        PangoLayout *layout = gtk_label_get_layout (GTK_LABEL (title));
        int drawn = 0;

        pango_layout_get_pixel_size (layout, &drawn, NULL);
        cut = pango_layout_is_ellipsized (layout) || drawn > gtk_widget_get_width (title) + 1;
      }
      g_test_message ("“%s”: a toast %d × %d px in a window %d px wide, its title %s", long_toasts[i].title,
                      gtk_widget_get_width (widget), gtk_widget_get_height (widget),
                      gtk_widget_get_width (GTK_WIDGET (window)), cut ? "cut" : "whole");
      pd_test_screenshot (GTK_WIDGET (window), shot);
      g_assert_false (cut);
      g_assert_cmpint (gtk_widget_get_width (widget), <=, gtk_widget_get_width (overlay));
      /* The title and the buttons inside the toast: the title, one line
       * as wide as its text, went past the toast's edge, its Undo and
       * close buttons drawn over it. */
      for (GtkWidget *part = gtk_widget_get_first_child (widget); part != NULL;
           part = gtk_widget_get_next_sibling (part))
        {
          graphene_rect_t bounds;

          if (!gtk_widget_get_mapped (part))
            continue;
          g_assert_true (gtk_widget_compute_bounds (part, widget, &bounds));
          g_test_message ("  %s at %.0f–%.0f of %d px", G_OBJECT_TYPE_NAME (part), bounds.origin.x,
                          bounds.origin.x + bounds.size.width, gtk_widget_get_width (widget));
          g_assert_cmpfloat (bounds.origin.x, >=, 0);
          g_assert_cmpfloat (bounds.origin.x + bounds.size.width, <=, gtk_widget_get_width (widget) + 1);
        }
      {
        graphene_rect_t bounds;

        g_assert_true (gtk_widget_compute_bounds (title, widget, &bounds));
        g_assert_cmpfloat (bounds.origin.x + bounds.size.width, <=, gtk_widget_get_width (widget) + 1);
      }
      adw_toast_dismiss (toast);
      g_assert_true (pd_test_wait_for (no_toast_widget, window));
      g_object_unref (toast);
    }
  pd_test_destroy_window (window, overlay);
  g_object_set (settings, "gtk-xft-dpi", dpi, NULL);
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
  g_test_add_func ("/pd/ui/toasts/whole-at-large-text", test_whole_at_large_text);
  return g_test_run ();
}
