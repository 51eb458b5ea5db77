/* test-a11y-rows.c: History's versions at 1.5× text; the rows of
 * Preferences and New Session as a screen reader and a keyboard meet them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs with GTK_A11Y=test, as test-a11y.c does. Each finding was read
 * over AT-SPI first (python3-pyatspi on a private accessibility bus, keys
 * from xdotool, gtk-xft-dpi at 1.5×): History's versions cut to
 * "v10 · 11:24:16 · 3/…"; an expanded profile's unnamed Tab stop
 * ("[list item] ''"); a profile's Provider said without its value; a
 * number field and New Session's Working Directory two Tab stops each; a
 * Privacy switch's subtitle only a relation, which no reader spoke.
 */
#define G_LOG_DOMAIN "test-a11y-rows"

#include "config.h"

#include <string.h>

#include "pd-history-view.h"
#include "pd-new-session-dialog.h"
#include "pd-preferences-window.h"
#include "pd-test-a11y.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

#define N_VERSIONS 12

/* gtk-xft-dpi as the tests start */
static int base_dpi;

/* The text size now, for 1.5× of it (gtk-xft-dpi, as Large Text or a
 * font scaling of 1.5 sets it), and GNOME's window buttons, Close alone,
 * as test-a11y-layout.c has them for 360 px. */
static int
get_text_size (char **layout)
{
  GtkSettings *gtk_settings = gtk_settings_get_default ();
  int dpi = 0;

  g_object_get (gtk_settings, "gtk-xft-dpi", &dpi, "gtk-decoration-layout", layout, NULL);
  if (dpi <= 0)
    dpi = 96 * 1024;
  g_object_set (gtk_settings, "gtk-decoration-layout", "appmenu:close", NULL);
  return dpi;
}

/* --- History at 1.5× text ---------------------------------------------------- */

/* The shown labels of History's version list. */
static GPtrArray *
version_labels (GtkWidget *history)
{
  GtkWidget *list = pd_test_find_widget (history, GTK_TYPE_LIST_VIEW);
  g_autoptr(GPtrArray) all = g_ptr_array_new ();
  GPtrArray *shown = g_ptr_array_new ();

  pd_test_collect (list, GTK_TYPE_LABEL, all);
  for (guint i = 0; i < all->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (all, i);

      if (gtk_widget_get_mapped (label) && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (label)), "v"))
        g_ptr_array_add (shown, label);
    }
  return shown;
}

static gboolean
versions_shown (gpointer data)
{
  GtkWidget *history = pd_test_find_widget (data, PD_TYPE_HISTORY_VIEW);
  g_autoptr(GPtrArray) labels = NULL;

  if (!gtk_widget_get_mapped (history))
    return FALSE;
  labels = version_labels (history);
  return labels->len >= 3;
}

static gboolean
window_resized (gpointer data)
{
  GtkWidget *window = data;
  int wanted = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (window), "a11y-width"));

  return gtk_widget_get_width (window) <= wanted + 16;
}

/* Each shown version row's text has its whole width: given less than its
 * natural width, a label is cut (or wrapped). Returns how many are cut. */
static guint
count_cut_versions (GtkWidget  *history,
                    const char *where,
                    guint      *n_checked)
{
  g_autoptr(GPtrArray) labels = version_labels (history);
  guint n_cut = 0;

  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);
      int natural = 0;
      int width = gtk_widget_get_width (label);

      gtk_widget_measure (label, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
      if (width < natural)
        {
          g_test_message ("%s: “%s” has %d px of the %d px it needs", where,
                          gtk_label_get_text (GTK_LABEL (label)), width, natural);
          n_cut++;
        }
    }
  *n_checked += labels->len;
  return n_cut;
}

static void
check_history_large_text (PdApplication *app,
                          PdWindow      *window,
                          gpointer       user_data)
{
  /* 360 px: a window of its own from the start, as a phone opens it. */
  const int wide[] = { 1280, 1000 };
  const int narrow[] = { 360 };
  const int *widths = GPOINTER_TO_INT (user_data) == 360 ? narrow : wide;
  guint n_widths = GPOINTER_TO_INT (user_data) == 360 ? G_N_ELEMENTS (narrow) : G_N_ELEMENTS (wide);
  GtkWidget *history = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_HISTORY_VIEW);
  AdwLeaflet *leaflet = ADW_LEAFLET (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_LEAFLET));
  GtkPaned *paned = GTK_PANED (pd_test_find_widget (history, GTK_TYPE_PANED));
  guint n_cut = 0;
  guint n_checked = 0;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  adw_view_stack_set_visible_child_name (pd_test_a11y_view_stack (window), "history");
  pd_test_wait_until (versions_shown, window, "History's versions");
  /* Large Text turned on with the window open, as a person does in
   * Settings: the pane was sized once, for the text it was built with. */
  g_object_set (gtk_settings_get_default (), "gtk-xft-dpi", base_dpi * 3 / 2, NULL);
  pd_test_spin (300);
  pd_test_flush (GTK_WIDGET (window));
  for (guint i = 0; i < n_widths; i++)
    {
      g_autofree char *where = g_strdup_printf ("History at 1.5× text, %d px", widths[i]);
      g_autofree char *shot = g_strdup_printf ("a11y-rows-history-%d", widths[i]);
      GtkWidget *plan = gtk_paned_get_end_child (paned);

      g_object_set_data (G_OBJECT (window), "a11y-width", GINT_TO_POINTER (widths[i]));
      gtk_window_set_default_size (GTK_WINDOW (window), widths[i], 800);
      g_test_message ("%s: the window is %d px wide", where, gtk_widget_get_width (GTK_WIDGET (window)));
      pd_test_wait_until (window_resized, window, "the window's new width");
      adw_leaflet_set_visible_child_name (leaflet, "content");
      pd_test_spin (300);
      pd_test_flush (GTK_WIDGET (window));
      pd_test_wait_until (versions_shown, window, "History's versions");
      n_cut += count_cut_versions (history, where, &n_checked);
      g_test_message ("%s: versions pane %d px, plan %d px wide", where,
                      gtk_paned_get_position (paned), gtk_widget_get_width (plan));
      /* The plan beside (or below) the versions keeps room to be read. */
      g_assert_cmpint (gtk_widget_get_width (plan), >=, MIN (widths[i] / 3, 300));
      pd_test_screenshot (GTK_WIDGET (window), shot);
    }
  g_assert_cmpuint (n_checked, >=, 3 * n_widths);
  g_assert_cmpuint (n_cut, ==, 0);
}

static void
test_history_large_text (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "history.db", NULL);
  const char *args[] = { "--db", db, NULL };
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autofree char *id = pd_test_add_session (store, "Add an export subcommand with tests and docs", "plandeck");
  g_autofree char *layout = NULL;
  int dpi = base_dpi = get_text_size (&layout);

  /* Two-digit versions: "v10 · 11:24:16 · 3/4 done" was cut. */
  for (gint64 v = 1; v <= N_VERSIONS; v++)
    {
      g_autoptr(PdPlanState) plan = pd_test_sample_plan (v);

      pd_test_save_plan (store, id, plan, PD_SESSION_STATUS_IDLE);
    }
  for (guint i = 0; i < 2; i++)
    {
      int width = i == 0 ? 1280 : 360;

      pd_test_reset_settings ();
      g_settings_set_int (settings, "window-width", width);
      g_settings_set_int (settings, "window-height", 800);
      g_assert_cmpint (pd_test_run_app (args, check_history_large_text, GINT_TO_POINTER (width), NULL), ==, 0);
      g_object_set (gtk_settings_get_default (), "gtk-xft-dpi", dpi, NULL);
    }
  g_object_set (gtk_settings_get_default (), "gtk-xft-dpi", dpi, "gtk-decoration-layout", layout, NULL);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/a11y/rows/history-large-text", test_history_large_text);

  return g_test_run ();
}
