/* test-a11y-about.c: the About window's parts, named
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs with GTK_A11Y=test (tests/ui/meson.build).  libadwaita 1.2's About
 * window left its lists, its subpages' Back buttons and its text views
 * without names, which GTK 4.8 says over AT-SPI as their class:
 * "GtkListBox" four times, "GtkImage" (a Back button, by its icon),
 * "GtkTextView" (read over AT-SPI, nu21 #5).  Each is walked, on every
 * subpage, once the window is built.
 */
#define G_LOG_DOMAIN "test-a11y-about"

#include "config.h"

#include <string.h>

#include "pd-test-a11y.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

static gboolean
is_back_button (GtkWidget *widget)
{
  return GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (widget)), "go-previous-symbolic") == 0;
}

/* Adds to @wrong each list, text view and Back button below @widget that
 * is not kept out of the reader's tree and has no name of its own. */
static void
collect_unnamed (GtkWidget *widget,
                 GPtrArray *wrong,
                 guint     *n_checked)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (!gtk_widget_get_visible (child))
        continue;
      if (GTK_IS_LIST_BOX (child) || GTK_IS_TEXT_VIEW (child) || is_back_button (child))
        {
          g_autofree char *name = pd_test_a11y_name (child);

          (*n_checked)++;
          g_test_message ("%s: “%s”", G_OBJECT_TYPE_NAME (child), name != NULL ? name : "");
          if (name == NULL || *name == '\0' || g_str_has_prefix (name, "Gtk") || g_str_has_prefix (name, "Adw"))
            g_ptr_array_add (wrong, g_strdup (G_OBJECT_TYPE_NAME (child)));
        }
      collect_unnamed (child, wrong, n_checked);
    }
}

static void
check_about (PdApplication *app,
             PdWindow      *window,
             gpointer       user_data)
{
  g_autoptr(GPtrArray) wrong = g_ptr_array_new_with_free_func (g_free);
  GtkWindow *about;
  guint n_checked = 0;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  gtk_widget_activate_action (GTK_WIDGET (window), "app.about", NULL);
  pd_test_wait_until (pd_test_toplevel_shown, GSIZE_TO_POINTER (ADW_TYPE_ABOUT_WINDOW), "About");
  about = pd_test_mapped_toplevel (ADW_TYPE_ABOUT_WINDOW);
  pd_test_flush (GTK_WIDGET (about));
  collect_unnamed (GTK_WIDGET (about), wrong, &n_checked);
  g_assert_cmpuint (n_checked, >=, 4);
  for (guint i = 0; i < wrong->len; i++)
    g_test_message ("unnamed: %s", (char *) g_ptr_array_index (wrong, i));
  g_assert_cmpuint (wrong->len, ==, 0);
  gtk_window_destroy (about);
}

static void
test_about (void)
{
  g_assert_cmpint (pd_test_run_showcase (0, 0, check_about, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pd/ui/a11y/about/named", test_about);
  return g_test_run ();
}
