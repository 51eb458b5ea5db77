/* test-window-polish.c: what a new user still tripped on in the window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Tried as a new user would (nu19): a row's date "Gemini CLI,  5 Apr 2026"
 * with two spaces; tooltips over what their button had just opened ("Main
 * Menu" over the menu, "OpenAI-compatible" over the Provider's choices);
 * New Session on the replay provider still saying Profile "Local
 * OpenAI-compatible" and Model "llama3.1"; Escape out of the session
 * search leaving the focus on Main Menu, the open session's row scrolled
 * out of sight.  Each case failed before its fix.
 */
#define G_LOG_DOMAIN "test-window-polish"

#include "config.h"

#include "pd-new-session-dialog.h"
#include "pd-session-list.h"
#include "pd-test-a11y-keys.h"
#include "pd-test-a11y.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"
#include "pd-window-private.h"

#define N_SESSIONS 30

/* --- a date of one digit ------------------------------------------------- */

static void
test_date_unpadded (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_local (2026, 5, 20, 12, 0, 0);
  g_autoptr(GDateTime) then = g_date_time_new_local (2026, 4, 5, 12, 0, 0);
  g_autoptr(GDateTime) later = g_date_time_new_local (2026, 4, 15, 12, 0, 0);
  g_autofree char *single = pd_format_relative_time (g_date_time_to_unix (then) * G_USEC_PER_SEC, now);
  g_autofree char *two = pd_format_relative_time (g_date_time_to_unix (later) * G_USEC_PER_SEC, now);

  /* Before: "\u2007" + "5 Apr 2026", read as a double space after the
   * agent's name. */
  g_assert_cmpstr (single, ==, "5 Apr 2026");
  g_assert_cmpstr (two, ==, "15 Apr 2026");
}

/* --- a window over many sessions ------------------------------------------ */

static char *
many_sessions_db (char **oldest)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  char *db = g_build_filename (dir, "many.db", NULL);
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);

  for (guint i = 0; i < N_SESSIONS; i++)
    {
      g_autofree char *title = g_strdup_printf ("Session number %02u", i);
      char *id = pd_test_add_session (store, title, "plandeck");

      if (i == 0)
        *oldest = id;
      else
        g_free (id);
    }
  return db;
}

static gboolean
all_listed (gpointer data)
{
  PdSessionList *list = PD_WINDOW (data)->session_list;

  return pd_session_list_get_loaded (list) &&
         g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (list))) == N_SESSIONS;
}

static gboolean
is_main_menu (GtkWidget     *widget,
              gconstpointer  data)
{
  return GTK_IS_MENU_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_widget_get_tooltip_text (widget), "Main Menu") == 0;
}

/* --- tooltips over popovers ------------------------------------------------ */

static gboolean
popover_shown (gpointer data)
{
  return gtk_widget_get_mapped (data);
}

static gboolean
popover_hidden (gpointer data)
{
  return !gtk_widget_get_visible (data);
}

/* @owner's tooltip is off while @popover is open, and back once closed. */
static void
assert_quiet_while_open (GtkWidget *owner,
                         GtkWidget *popover,
                         const char *what)
{
  g_test_message ("%s", what);
  g_assert_true (gtk_widget_get_has_tooltip (owner));
  gtk_popover_popup (GTK_POPOVER (popover));
  pd_test_wait_until (popover_shown, popover, what);
  /* Before: TRUE, and GTK showed it over the popover. */
  g_assert_false (gtk_widget_get_has_tooltip (owner));
  gtk_popover_popdown (GTK_POPOVER (popover));
  pd_test_wait_until (popover_hidden, popover, "the popover to close");
  g_assert_true (gtk_widget_get_has_tooltip (owner));
}

static GtkWidget *
find_popover (GtkWidget *root)
{
  return pd_test_find_widget (root, GTK_TYPE_POPOVER);
}

static gboolean
row_titled (GtkWidget     *widget,
            gconstpointer  data)
{
  return ADW_IS_PREFERENCES_ROW (widget) &&
         g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), data) == 0;
}

static void
check_tooltips (PdApplication *app,
                PdWindow      *window,
                gpointer       user_data)
{
  GtkWidget *menu;
  GtkWindow *dialog;
  GtkWidget *provider;

  pd_test_wait_until (all_listed, window, "the sessions to be listed");
  menu = pd_test_find_first (GTK_WIDGET (window), is_main_menu, NULL);
  g_assert_nonnull (menu);
  assert_quiet_while_open (menu, GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (menu))), "Main Menu");

  dialog = pd_test_a11y_open_dialog (window, "win.new-session", PD_TYPE_NEW_SESSION_DIALOG, "New Session");
  provider = pd_test_find_first (GTK_WIDGET (dialog), row_titled, "Provider");
  g_assert_nonnull (provider);
  assert_quiet_while_open (provider, find_popover (provider), "Provider");
  gtk_window_close (dialog);
}

static void
test_tooltips (void)
{
  g_autofree char *oldest = NULL;
  g_autofree char *db = many_sessions_db (&oldest);
  const char *args[] = { "--db", db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_tooltips, NULL, NULL), ==, 0);
}

/* --- New Session on the replay provider ----------------------------------- */

static void
check_replay_rows (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  GtkWindow *dialog = pd_test_a11y_open_dialog (window, "win.new-session", PD_TYPE_NEW_SESSION_DIALOG, "New Session");
  GtkWidget *provider = pd_test_find_first (GTK_WIDGET (dialog), row_titled, "Provider");
  GtkWidget *profile = pd_test_find_first (GTK_WIDGET (dialog), row_titled, "Profile");
  GtkWidget *model = pd_test_find_first (GTK_WIDGET (dialog), row_titled, "Model");
  GtkWidget *recording = pd_test_find_first (GTK_WIDGET (dialog), row_titled, "Recording File");

  g_assert_nonnull (provider);
  g_assert_nonnull (profile);
  g_assert_nonnull (model);
  g_assert_nonnull (recording);
  g_assert_true (gtk_widget_get_visible (profile));
  g_assert_true (gtk_widget_get_visible (model));
  g_assert_false (gtk_widget_get_visible (recording));

  adw_combo_row_set_selected (ADW_COMBO_ROW (provider), 2);
  pd_test_flush (GTK_WIDGET (dialog));
  pd_test_screenshot_sizes (dialog, "new-session-replay");
  /* Before: both shown, the profile of another provider and its model. */
  g_assert_true (gtk_widget_get_visible (recording));
  g_assert_false (gtk_widget_get_visible (profile));
  g_assert_false (gtk_widget_get_visible (model));

  adw_combo_row_set_selected (ADW_COMBO_ROW (provider), 0);
  g_assert_true (gtk_widget_get_visible (profile));
  g_assert_true (gtk_widget_get_visible (model));
  g_assert_false (gtk_widget_get_visible (recording));
  gtk_window_close (dialog);
}

static void
test_replay_rows (void)
{
  g_autofree char *oldest = NULL;
  g_autofree char *db = many_sessions_db (&oldest);
  const char *args[] = { "--db", db, NULL };

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_replay_rows, NULL, NULL), ==, 0);
}

/* --- Escape out of the search ----------------------------------------------- */

typedef struct
{
  PdWindow   *window;
  const char *id;
} Opened;

static gboolean
oldest_open (gpointer data)
{
  Opened *opened = data;
  PdSessionItem *item = pd_session_list_get_selected_item (opened->window->session_list);

  return item != NULL && g_strcmp0 (pd_session_item_get_id (item), opened->id) == 0 &&
         pd_test_a11y_window_settled (opened->window);
}

/* The focus on the list's selected row, in sight in its scroller. */
static gboolean
focus_on_open_row (gpointer data)
{
  PdWindow *window = data;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkWidget *scroller;
  graphene_rect_t bounds;

  if (focus == NULL || !gtk_widget_is_ancestor (focus, GTK_WIDGET (window->session_list)) ||
      !(gtk_widget_get_state_flags (focus) & GTK_STATE_FLAG_SELECTED))
    return FALSE;
  scroller = gtk_widget_get_ancestor (focus, GTK_TYPE_SCROLLED_WINDOW);
  return scroller != NULL && gtk_widget_compute_bounds (focus, scroller, &bounds) &&
         bounds.origin.y >= 0 && bounds.origin.y + bounds.size.height <= gtk_widget_get_height (scroller);
}

static void
describe_focus (PdWindow *window)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));

  g_test_message ("the focus is on %s", focus != NULL ? G_OBJECT_TYPE_NAME (focus) : "nothing");
  if (focus != NULL)
    {
      GtkWidget *label = pd_test_find_widget (focus, GTK_TYPE_LABEL);
      GtkWidget *scroller = gtk_widget_get_ancestor (focus, GTK_TYPE_SCROLLED_WINDOW);
      graphene_rect_t bounds = { 0 };

      if (scroller != NULL && !gtk_widget_compute_bounds (focus, scroller, &bounds))
        g_test_message ("… not laid out");
      g_test_message ("… “%s”, selected %d, at %g+%g of %d", label ? gtk_label_get_text (GTK_LABEL (label)) : "",
                      (gtk_widget_get_state_flags (focus) & GTK_STATE_FLAG_SELECTED) != 0,
                      bounds.origin.y, bounds.size.height, scroller ? gtk_widget_get_height (scroller) : -1);
    }
  for (GtkWidget *w = focus; w != NULL; w = gtk_widget_get_parent (w))
    if (GTK_IS_MENU_BUTTON (w))
      g_test_message ("… inside the menu button “%s”", gtk_widget_get_tooltip_text (w));
}

static void
check_search_escape (PdApplication *app,
                     PdWindow      *window,
                     gpointer       user_data)
{
  Opened opened = { window, user_data };
  GtkWidget *entry = pd_test_find_widget (GTK_WIDGET (window->session_list), GTK_TYPE_SEARCH_ENTRY);
  GtkWidget *menu;

  pd_test_wait_until (all_listed, window, "the sessions to be listed");
  /* The oldest session, at the foot of the list, open. */
  g_assert_true (pd_session_list_select (window->session_list, opened.id));
  pd_test_wait_until (oldest_open, &opened, "the oldest session to open");

  /* The focus on Main Menu, where it stays once its menu closed; Ctrl+F. */
  menu = pd_test_find_first (GTK_WIDGET (window), is_main_menu, NULL);
  g_assert_nonnull (menu);
  g_assert_true (gtk_widget_grab_focus (menu));
  g_assert_true (gtk_widget_activate_action (gtk_root_get_focus (GTK_ROOT (window)), "win.search", NULL));
  describe_focus (window);
  pd_test_wait_until (pd_test_a11y_focus_is_in, entry, "the focus in the search field");
  gtk_editable_set_text (GTK_EDITABLE (entry), "number 2");
  pd_test_flush (GTK_WIDGET (window));
  if (!pd_test_a11y_press (entry, GDK_KEY_Escape, 0))
    g_error ("Escape is no key of the search field");
  describe_focus (window);
  pd_test_wait_until (pd_test_a11y_unmapped, entry, "the search bar to close");
  describe_focus (window);
  pd_test_flush (GTK_WIDGET (window));
  describe_focus (window);
  /* Before: back on Main Menu, the open row below the list's fold. */
  pd_test_wait_until (focus_on_open_row, window, "the focus on the open session's row, in sight");
  pd_test_screenshot_sizes (GTK_WINDOW (window), "search-escape-open-row");
}

static void
test_search_escape (void)
{
  g_autofree char *oldest = NULL;
  g_autofree char *db = many_sessions_db (&oldest);
  const char *args[] = { "--db", db, NULL };
  g_autoptr(GSettings) settings = NULL;

  pd_test_reset_settings ();
  settings = g_settings_new (APP_ID);
  g_settings_set_int (settings, "window-width", 1000);
  g_settings_set_int (settings, "window-height", 500);
  g_assert_cmpint (pd_test_run_app (args, check_search_escape, oldest, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  pd_test_views_init (&argc, &argv);

  g_test_add_func ("/pd/ui/window-polish/date-unpadded", test_date_unpadded);
  g_test_add_func ("/pd/ui/window-polish/tooltips-off-popovers", test_tooltips);
  g_test_add_func ("/pd/ui/window-polish/replay-rows", test_replay_rows);
  g_test_add_func ("/pd/ui/window-polish/search-escape-open-row", test_search_escape);
  return g_test_run ();
}
