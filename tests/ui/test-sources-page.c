/* test-sources-page.c: Preferences → Sources over the window it opened from
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The real application: a window opened with --db FILE shows that file
 * alone, so an endpoint added in its Preferences went to the list and to no
 * window in sight, its row with no state, and nothing said why (tried as a
 * new user would).  The page says what the window shows and where added
 * endpoints are shown; the default window's page says what it always said.
 * Showing the page again did not keep one handler: each map added as many
 * as there were.
 */
#define G_LOG_DOMAIN "test-sources-page"

#include "config.h"

#include <string.h>

#include "pd-preferences-window.h"
#include "pd-sources-page.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"

#define APP_ID "io.github.plandeck.Plandeck"

static gboolean
is_group_labelled (GtkWidget     *widget,
                   gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         strstr (gtk_label_get_text (GTK_LABEL (widget)), data) != NULL;
}

/* The page's handlers of "map" (none is GTK's own: those are the class's),
 * counted as they are taken off. */
static guint
map_handlers (GtkWidget *page)
{
  guint map = g_signal_lookup ("map", GTK_TYPE_WIDGET);
  guint n = 0;
  gulong id;

  while ((id = g_signal_handler_find (page, G_SIGNAL_MATCH_ID, map, 0, NULL, NULL, NULL)) != 0)
    {
      g_signal_handler_disconnect (page, id);
      n++;
    }
  return n;
}

static GtkWidget *
open_sources (PdWindow             *window,
              PdPreferencesWindow **prefs)
{
  GtkWidget *page;

  *prefs = pd_preferences_window_new (GTK_WINDOW (window));
  gtk_window_present (GTK_WINDOW (*prefs));
  adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (*prefs), "sources");
  pd_test_flush (GTK_WIDGET (*prefs));
  page = pd_test_find_widget (GTK_WIDGET (*prefs), PD_TYPE_SOURCES_PAGE);
  g_assert_nonnull (page);
  g_assert_true (gtk_widget_get_mapped (page));
  return page;
}

static void
check_db_window (PdApplication *app,
                 PdWindow      *window,
                 gpointer       user_data)
{
  const char *db = user_data;
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autofree char *said = g_strdup_printf ("This window shows only %s.", db);
  PdPreferencesWindow *prefs;
  GtkWidget *page = open_sources (window, &prefs);
  GtkWidget *note;

  note = pd_test_find_first (page, is_group_labelled, said);
  g_assert_nonnull (note);
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (note)), "Endpoints added here are shown, with their state, "
                                                                    "in the main window"));
  g_assert_null (pd_test_find_first (page, is_group_labelled, "Shown in the main window beside"));
  pd_test_screenshot (GTK_WIDGET (prefs), "preferences-sources-db-window");

  /* An endpoint added: still said, beside its row. */
  g_settings_set_value (settings, "sources",
                        g_variant_new_parsed ("[('e1', 'Build box', 'http://127.0.0.1:9/')]"));
  pd_test_flush (GTK_WIDGET (prefs));
  g_assert_nonnull (pd_test_find_first (page, is_group_labelled, said));
  g_assert_nonnull (pd_test_find_first (page, is_group_labelled, "Build box"));

  /* Shown again and again: one handler of its own. */
  for (guint i = 0; i < 5; i++)
    {
      adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (prefs), "notifications");
      pd_test_flush (GTK_WIDGET (prefs));
      g_assert_false (gtk_widget_get_mapped (page));
      adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (prefs), "sources");
      pd_test_flush (GTK_WIDGET (prefs));
      g_assert_true (gtk_widget_get_mapped (page));
    }
  g_assert_nonnull (pd_test_find_first (page, is_group_labelled, said));
  g_assert_cmpuint (map_handlers (page), ==, 1);

  g_settings_reset (settings, "sources");
  gtk_window_destroy (GTK_WINDOW (prefs));
}

static void
test_sources_page_db_window (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "other.db", NULL);
  const char *args[] = { "--db", db, NULL };

  g_object_unref (pd_test_open_store (db));
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_db_window, db, NULL), ==, 0);
}

static void
check_default_window (PdApplication *app,
                      PdWindow      *window,
                      gpointer       user_data)
{
  PdPreferencesWindow *prefs;
  GtkWidget *page = open_sources (window, &prefs);

  g_assert_nonnull (pd_test_find_first (page, is_group_labelled,
                                        "Shown in the main window beside this computer’s sessions, with their state"));
  g_assert_null (pd_test_find_first (page, is_group_labelled, "This window shows only"));
  gtk_window_destroy (GTK_WINDOW (prefs));
}

static void
test_sources_page_default_window (void)
{
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (NULL, check_default_window, NULL, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);

  g_test_add_func ("/pd/ui/sources-page/db-window", test_sources_page_db_window);
  g_test_add_func ("/pd/ui/sources-page/default-window", test_sources_page_default_window);

  return g_test_run ();
}
