/* test-a11y-focus.c: where the focus goes on pages without a control, and
 * after a dialog; the dialogs at 1.5× text
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs with GTK_A11Y=test, as test-a11y.c does. A status page (no plan,
 * no events, no sessions) has nothing to activate: Tab goes past it to the
 * first control. A dialog that closes gives the focus back to what opened
 * it. At 1.5× text (gtk-xft-dpi) no dialog cuts its text.
 */
#define G_LOG_DOMAIN "test-a11y-focus"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-new-session-dialog.h"
#include "pd-removed-sessions.h"
#include "pd-run-controller.h"
#include "pd-session-item.h"
#include "pd-session-list.h"
#include "pd-session-list-model.h"
#include "pd-test-a11y.h"
#include "pd-test-a11y-keys.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-runs.h"
#include "pd-test-ui.h"

/* @focus is a status page's own scroller: nothing to activate there. */
static gboolean
is_status_scroller (GtkWidget *focus)
{
  return GTK_IS_SCROLLED_WINDOW (focus) && ADW_IS_STATUS_PAGE (gtk_widget_get_parent (focus));
}

/* Tabs round the whole window, as GTK moves the focus for Tab; returns
 * the stops that are a status page with its text whole (nothing to scroll
 * either), after telling each. */
static guint
count_status_stops (GtkWidget  *window,
                    const char *where)
{
  g_autoptr(GPtrArray) seen = g_ptr_array_new ();
  guint n_status = 0;

  gtk_root_set_focus (GTK_ROOT (window), NULL);
  for (guint i = 0; i < 400; i++)
    {
      GtkWidget *focus;

      if (!gtk_widget_child_focus (window, GTK_DIR_TAB_FORWARD))
        {
          gtk_root_set_focus (GTK_ROOT (window), NULL);
          /* A window with no Tab stop at all: Removed Sessions with
           * nothing removed, under Xvfb without a close button. */
          if (!gtk_widget_child_focus (window, GTK_DIR_TAB_FORWARD))
            break;
        }
      focus = gtk_root_get_focus (GTK_ROOT (window));
      if (focus == NULL)
        break;
      if (g_ptr_array_find (seen, focus, NULL))
        break;
      g_ptr_array_add (seen, focus);
      if (is_status_scroller (focus))
        {
          GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (focus));
          g_autofree char *path = pd_test_a11y_describe (focus);

          g_test_message ("%s: Tab stop %u is a status page (“%s”), its text %s: %s", where, i + 1,
                          adw_status_page_get_title (ADW_STATUS_PAGE (gtk_widget_get_parent (focus))),
                          gtk_adjustment_get_upper (adjustment) > gtk_adjustment_get_page_size (adjustment) + 0.5
                          ? "scrolls" : "whole", path);
          if (gtk_adjustment_get_upper (adjustment) <= gtk_adjustment_get_page_size (adjustment) + 0.5)
            n_status++;
        }
    }
  g_test_message ("%s: %u Tab stops, %u on a status page with nothing to do", where, seen->len, n_status);
  return n_status;
}

static gboolean
is_title (GtkWidget     *widget,
          gconstpointer  title)
{
  return ADW_IS_STATUS_PAGE (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (adw_status_page_get_title (ADW_STATUS_PAGE (widget)), title) == 0;
}

typedef struct
{
  PdWindow   *window;
  const char *title;
} StatusShown;

static gboolean
status_shown (gpointer data)
{
  StatusShown *shown = data;

  return pd_test_find_first (GTK_WIDGET (shown->window), is_title, shown->title) != NULL;
}

/* A session with no plan, no events and no plan versions: its Now, Events
 * and History pages are status pages; Tab never stops on one. */
static void
check_status_pages (PdApplication *app,
                    PdWindow      *window,
                    gpointer       user_data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  AdwViewStack *views = pd_test_a11y_view_stack (window);
  const struct { const char *page; const char *title; } pages[] = {
    { "now", "No Plan Yet" },
    { "events", "No Events Yet" },
    { "history", "No Plan Versions Yet" },
  };
  GListModel *model;
  guint n_status = 0;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  model = G_LIST_MODEL (pd_session_list_get_model (list));
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(PdSessionItem) item = g_list_model_get_item (model, i);

      if (g_str_equal (pd_session_item_get_title (item), "Explain how the event bus delivers to listeners"))
        g_assert_true (pd_session_list_select (list, pd_session_item_get_id (item)));
    }
  for (guint i = 0; i < G_N_ELEMENTS (pages); i++)
    {
      StatusShown shown = { window, pages[i].title };

      adw_view_stack_set_visible_child_name (views, pages[i].page);
      pd_test_wait_until (status_shown, &shown, pages[i].title);
      pd_test_spin (250);   /* the stack's cross-fade */
      pd_test_flush (GTK_WIDGET (window));
      n_status += count_status_stops (GTK_WIDGET (window), pages[i].title);
    }
  g_assert_cmpuint (n_status, ==, 0);
}

static void
test_status_pages (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_status_pages, NULL), ==, 0);
}

/* No sessions at all: the window's own status page, with its buttons, and
 * the Overview's. Tab goes to the buttons, never to the page. */
static void
check_no_sessions (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  StatusShown shown = { window, "No Sessions Yet" };
  guint n_status;

  pd_test_wait_until (status_shown, &shown, "“No Sessions Yet”");
  pd_test_spin (250);
  pd_test_flush (GTK_WIDGET (window));
  n_status = count_status_stops (GTK_WIDGET (window), "No Sessions Yet");
  pd_test_screenshot_sizes (GTK_WINDOW (window), "a11y-focus-no-sessions");
  g_assert_cmpuint (n_status, ==, 0);

  /* Removed Sessions with nothing removed: its status page is no Tab stop
   * either (its scroller was one, unnamed, with nothing to do). */
  {
    GtkWindow *removed;
    StatusShown removed_shown = { NULL, "No Removed Sessions" };

    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-removed-sessions", NULL));
    pd_test_wait_until (pd_test_toplevel_shown, GSIZE_TO_POINTER (PD_TYPE_REMOVED_SESSIONS),
                        "Removed Sessions");
    removed = pd_test_mapped_toplevel (PD_TYPE_REMOVED_SESSIONS);
    removed_shown.window = (PdWindow *) removed;
    pd_test_wait_until (status_shown, &removed_shown, "“No Removed Sessions”");
    pd_test_flush (GTK_WIDGET (removed));
    n_status = count_status_stops (GTK_WIDGET (removed), "No Removed Sessions");
    gtk_window_destroy (removed);
    g_assert_cmpuint (n_status, ==, 0);
  }
}

static void
test_no_sessions (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  const char *args[] = { "--db", db, NULL };

  g_object_unref (pd_test_open_store (db));
  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_no_sessions, NULL, NULL), ==, 0);
}

/* --- focus after a dialog ---------------------------------------------------- */

static gboolean
is_action_button (GtkWidget     *widget,
                  gconstpointer  action)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), action) == 0;
}

static gboolean
is_menu_button (GtkWidget     *widget,
                gconstpointer  data)
{
  return GTK_IS_MENU_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         gtk_widget_get_ancestor (widget, ADW_TYPE_HEADER_BAR) != NULL &&
         gtk_widget_get_ancestor (widget, PD_TYPE_SESSION_LIST) == NULL &&
         gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (widget)) != NULL;
}

static GtkWindow *
wait_for_toplevel (GType       type,
                   const char *what)
{
  GtkWindow *dialog;

  pd_test_wait_until (pd_test_toplevel_shown, GSIZE_TO_POINTER (type), what);
  dialog = pd_test_mapped_toplevel (type);
  pd_test_flush (GTK_WIDGET (dialog));
  return dialog;
}

/* Closes @dialog as Escape does and says where the window's focus went. */
static GtkWidget *
close_dialog (PdWindow   *window,
              GtkWindow  *dialog,
              GType       type,
              const char *what)
{
  GtkWidget *focus;
  g_autofree char *path = NULL;

  gtk_window_close (dialog);
  pd_test_wait_until (pd_test_toplevel_gone, GSIZE_TO_POINTER (type), what);
  pd_test_flush (GTK_WIDGET (window));
  pd_test_spin (200);
  pd_test_flush (GTK_WIDGET (window));
  focus = gtk_root_get_focus (GTK_ROOT (window));
  path = focus != NULL ? pd_test_a11y_describe (focus) : g_strdup ("nothing");
  g_test_message ("%s closed: the focus is on %s", what, path);
  return focus;
}

/* The main menu's item @action, chosen from the open menu as Enter on it
 * does: the menu closes, then the action runs. */
static void
choose_from_menu (GtkWidget  *menu_button,
                  const char *action)
{
  GtkPopover *popover = gtk_menu_button_get_popover (GTK_MENU_BUTTON (menu_button));

  g_assert_true (gtk_widget_grab_focus (menu_button));
  gtk_menu_button_popup (GTK_MENU_BUTTON (menu_button));
  pd_test_flush (menu_button);
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (popover)));
  /* The focus in the menu, on an item. */
  g_assert_true (gtk_widget_child_focus (GTK_WIDGET (popover), GTK_DIR_TAB_FORWARD));
  gtk_popover_popdown (popover);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (popover), action, NULL));
}

/* New Session from its + button, Preferences and Connect to Endpoint from
 * the main menu: closed, each gives the focus back to what opened it. */
static void
check_focus_after_dialogs (PdApplication *app,
                           PdWindow      *window,
                           gpointer       user_data)
{
  GtkWidget *plus;
  GtkWidget *menu;
  GtkWindow *dialog;
  guint n_lost = 0;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  gtk_window_set_focus_visible (GTK_WINDOW (window), TRUE);
  plus = pd_test_find_first (GTK_WIDGET (window), is_action_button, "win.new-session");
  menu = pd_test_find_first (GTK_WIDGET (window), is_menu_button, NULL);
  g_assert_nonnull (plus);
  g_assert_nonnull (menu);

  g_assert_true (gtk_widget_grab_focus (plus));
  g_signal_emit_by_name (plus, "clicked");
  dialog = wait_for_toplevel (PD_TYPE_NEW_SESSION_DIALOG, "New Session");
  /* The Task field described by the help under it. */
  {
    g_autofree char *description = pd_test_a11y_description (pd_test_find_widget (GTK_WIDGET (dialog),
                                                                                  GTK_TYPE_TEXT_VIEW));

    g_test_message ("the Task field: “%s”", description);
    g_assert_cmpstr (description, ==, "What the agent should do, in your words.");
  }
  close_dialog (window, dialog, PD_TYPE_NEW_SESSION_DIALOG, "New Session");
  if (!pd_test_a11y_focus_inside (plus))
    n_lost++;

  choose_from_menu (menu, "win.preferences");
  dialog = wait_for_toplevel (ADW_TYPE_PREFERENCES_WINDOW, "Preferences");
  close_dialog (window, dialog, ADW_TYPE_PREFERENCES_WINDOW, "Preferences");
  if (!pd_test_a11y_focus_inside (menu))
    n_lost++;

  choose_from_menu (menu, "win.connect-endpoint");
  dialog = wait_for_toplevel (ADW_TYPE_MESSAGE_DIALOG, "Connect to Endpoint");
  close_dialog (window, dialog, ADW_TYPE_MESSAGE_DIALOG, "Connect to Endpoint");
  if (!pd_test_a11y_focus_inside (menu))
    n_lost++;

  /* From the session's row: Rename…, named and closed with Escape; the
   * focus is back in the list (Delete has no dialog: an Undo toast). */
  {
    PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
    PdSessionItem *item = pd_session_list_get_selected_item (list);

    g_assert_true (gtk_widget_child_focus (GTK_WIDGET (list), GTK_DIR_TAB_FORWARD));
    g_assert_true (pd_test_a11y_focus_inside (GTK_WIDGET (list)));
    /* The row's menu (the Menu key's), then Rename… in it. */
    pd_session_list_show_menu (list, item);
    pd_test_flush (GTK_WIDGET (window));
    gtk_popover_popdown (GTK_POPOVER (pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_POPOVER_MENU)));
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (list), "session.rename", NULL));
    dialog = wait_for_toplevel (ADW_TYPE_MESSAGE_DIALOG, "Rename");
    pd_test_a11y_assert_named (GTK_WIDGET (dialog), "Rename");
    /* Its field described by the dialog's help. */
    {
      g_autofree char *description = pd_test_a11y_description (pd_test_find_widget (GTK_WIDGET (dialog),
                                                                                    GTK_TYPE_ENTRY));

      g_assert_cmpstr (description, ==, "An empty name shows the session's task again.");
    }
    close_dialog (window, dialog, ADW_TYPE_MESSAGE_DIALOG, "Rename");
    if (!pd_test_a11y_focus_inside (GTK_WIDGET (list)))
      n_lost++;
  }

  g_assert_cmpuint (n_lost, ==, 0);
}

static void
test_focus_after_dialogs (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_focus_after_dialogs, NULL), ==, 0);
}

/* --- a removal's toast and its Undo ------------------------------------------ */

#define REMOVED_TITLE "Refactor the settings dialog into pages"

static gboolean
is_undo_button (GtkWidget     *widget,
                gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), "_Undo") == 0;
}

static gboolean
undo_shown (gpointer window)
{
  return pd_test_find_first (window, is_undo_button, NULL) != NULL;
}

static gboolean
is_removed_label (GtkWidget     *widget,
                  gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), "removed from the list") != NULL;
}

static gboolean
focus_on_removed_row (gpointer window)
{
  PdSessionItem *item = pd_test_a11y_focused_item (window);

  return item != NULL && g_strcmp0 (pd_session_item_get_title (item), REMOVED_TITLE) == 0;
}

/* At 360 px: Remove From List's toast quotes the whole title ("“Flaky
 * s…” removed…" though the toast wraps), its Undo is named "Undo" before
 * it has the focus ("_Undo Undo"), and Undo from the keyboard puts the
 * focus on the row come back (it went to New Session; tried with a
 * screen reader). */
static void
check_undo_toast (PdApplication *app,
                  PdWindow      *window,
                  gpointer       user_data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  GtkWidget *rows = pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_LIST_VIEW);
  g_autofree char *id = NULL;
  g_autofree char *name = NULL;
  GtkWidget *label;
  GtkWidget *undo;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  gtk_window_set_focus_visible (GTK_WINDOW (window), TRUE);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sessions", NULL);
  pd_test_flush (GTK_WIDGET (window));
  pd_test_a11y_arrow_to (window, rows, REMOVED_TITLE);
  id = g_strdup (pd_session_item_get_id (pd_test_a11y_focused_item (window)));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.row-delete-session", "s", id));
  pd_test_wait_until (undo_shown, window, "the toast's Undo");

  label = pd_test_find_first (GTK_WIDGET (window), is_removed_label, NULL);
  g_assert_nonnull (label);
  g_test_message ("the toast: %s", gtk_label_get_text (GTK_LABEL (label)));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (label)), REMOVED_TITLE));

  undo = pd_test_find_first (GTK_WIDGET (window), is_undo_button, NULL);
  name = pd_test_a11y_name (undo);
  g_test_message ("Undo is named “%s”", name);
  g_assert_cmpstr (name, ==, "Undo");

  g_assert_true (gtk_widget_grab_focus (undo));
  g_assert_true (pd_test_a11y_focus_inside (undo));
  gtk_widget_activate (undo);
  pd_test_wait_until (focus_on_removed_row, window, "the focus on the row come back");
  g_assert_null (pd_test_a11y_why_unseen (gtk_root_get_focus (GTK_ROOT (window))));
}

static void
test_undo_toast (void)
{
  g_assert_cmpint (pd_test_run_showcase (360, 720, check_undo_toast, NULL), ==, 0);
}

/* --- a removal's toast going ------------------------------------------------- */

typedef struct
{
  PdWindow      *window;
  PdSessionList *list;
  const char    *removed;
} GoneWait;

static gboolean
focus_moved_on (gpointer data)
{
  GoneWait *wait = data;
  PdSessionItem *item = pd_test_a11y_focused_item (wait->window);

  return item != NULL && g_strcmp0 (pd_session_item_get_id (item), wait->removed) != 0;
}

static gboolean
is_close_button (GtkWidget     *widget,
                 gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (widget)), "window-close-symbolic") == 0 &&
         gtk_widget_get_ancestor (widget, ADW_TYPE_TOAST_OVERLAY) != NULL;
}

/* The removal went through and the list read again without it. */
static gboolean
removal_listed (gpointer data)
{
  GoneWait *wait = data;

  return pd_session_list_model_find (pd_session_list_get_model (wait->list), wait->removed, NULL) == NULL &&
         !pd_session_list_get_busy (wait->list) && !undo_shown (wait->window);
}

/* Remove From List puts the focus on the next row; when the toast goes
 * (its time up, or closed) and the removal is done, the focus stays on
 * that row.  It went to the list's last row, the list scrolled to its
 * end, as the listing read again came in (tried as a new user would, with
 * a screen reader). */
static void
check_toast_gone (PdApplication *app,
                  PdWindow      *window,
                  gpointer       user_data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  GtkWidget *rows = pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_LIST_VIEW);
  g_autofree char *id = NULL;
  g_autofree char *next = NULL;
  GoneWait wait = { window, list, NULL };
  PdSessionItem *item;
  GtkWidget *close;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  gtk_window_set_focus_visible (GTK_WINDOW (window), TRUE);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sessions", NULL);
  pd_test_flush (GTK_WIDGET (window));
  pd_test_a11y_arrow_to (window, rows, REMOVED_TITLE);
  id = g_strdup (pd_session_item_get_id (pd_test_a11y_focused_item (window)));
  wait.removed = id;
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.row-delete-session", "s", id));
  pd_test_wait_until (undo_shown, window, "the toast's Undo");
  pd_test_wait_until (focus_moved_on, &wait, "the focus on the next row");
  next = g_strdup (pd_session_item_get_id (pd_test_a11y_focused_item (window)));
  g_test_message ("removed, the focus on “%s”",
                  pd_session_item_get_title (pd_test_a11y_focused_item (window)));

  /* Closed as its time up does: dismissed, the removal done. */
  close = pd_test_find_first (GTK_WIDGET (window), is_close_button, NULL);
  g_assert_nonnull (close);

  /* The toast is a status named by its text: a screen reader is told
   * (nothing was, and its text was in no object's name). */
  {
    GtkWidget *toast = close;
    g_autofree char *name = NULL;

    while (toast != NULL && !g_str_equal (G_OBJECT_TYPE_NAME (toast), "AdwToastWidget"))
      toast = gtk_widget_get_parent (toast);
    g_assert_nonnull (toast);
    name = pd_test_a11y_name (toast);
    g_test_message ("the toast: role %u, named “%s”", (guint) gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (toast)), name);
    g_assert_cmpint (gtk_accessible_get_accessible_role (GTK_ACCESSIBLE (toast)), ==, GTK_ACCESSIBLE_ROLE_STATUS);
    g_assert_nonnull (name);
    g_assert_nonnull (strstr (name, REMOVED_TITLE));
    g_assert_nonnull (strstr (name, "removed from the list"));
  }
  gtk_widget_activate (close);
  pd_test_wait_until (removal_listed, &wait, "the removal done and listed");
  pd_test_spin (500);
  pd_test_flush (GTK_WIDGET (window));

  item = pd_test_a11y_focused_item (window);
  g_test_message ("the toast gone, the focus on “%s”",
                  item != NULL ? pd_session_item_get_title (item) : "no row");
  g_assert_nonnull (item);
  g_assert_cmpstr (pd_session_item_get_id (item), ==, next);
  g_assert_null (pd_test_a11y_why_unseen (gtk_root_get_focus (GTK_ROOT (window))));
}

static void
test_toast_gone (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_toast_gone, NULL), ==, 0);
}

/* --- the main menu from a row ----------------------------------------------- */

static gboolean
main_menu_open (gpointer window)
{
  GtkWidget *menu = pd_test_find_first (window, is_menu_button, NULL);
  GtkPopover *popover = menu != NULL ? gtk_menu_button_get_popover (GTK_MENU_BUTTON (menu)) : NULL;

  return popover != NULL && gtk_widget_get_mapped (GTK_WIDGET (popover));
}

/* F10 opens the main menu from a session's row; Escape closes it and the
 * focus is on that row again.  It was on the Main Menu button (tried as a
 * new user would, with a screen reader), where Shift+F10's row menu gave
 * it back to the row. */
static void
check_main_menu_escape (PdApplication *app,
                        PdWindow      *window,
                        gpointer       user_data)
{
  GtkWidget *rows = pd_test_find_widget (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST),
                                         GTK_TYPE_LIST_VIEW);
  g_autofree char *path = NULL;
  g_autofree char *id = NULL;
  PdSessionItem *item;
  GtkWidget *focus;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  gtk_window_set_focus_visible (GTK_WINDOW (window), TRUE);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sessions", NULL);
  pd_test_flush (GTK_WIDGET (window));
  pd_test_a11y_arrow_to (window, rows, REMOVED_TITLE);
  id = g_strdup (pd_session_item_get_id (pd_test_a11y_focused_item (window)));

  g_assert_true (pd_test_a11y_key (window, GDK_KEY_F10, 0));
  pd_test_wait_until (main_menu_open, window, "the main menu");
  pd_test_flush (GTK_WIDGET (window));
  {
    GtkWidget *menu = pd_test_find_first (GTK_WIDGET (window), is_menu_button, NULL);
    GtkPopover *popover = gtk_menu_button_get_popover (GTK_MENU_BUTTON (menu));
    GtkWidget *in_menu = gtk_root_get_focus (GTK_ROOT (window));
    g_autofree char *where = in_menu != NULL ? pd_test_a11y_describe (in_menu) : g_strdup ("nothing");

    g_test_message ("the main menu open: the focus on %s", where);
    /* Escape, as the popover's own binding does. */
    if (!pd_test_a11y_key (window, GDK_KEY_Escape, 0))
      gtk_popover_popdown (popover);
  }
  pd_test_spin (300);
  pd_test_flush (GTK_WIDGET (window));
  g_assert_false (main_menu_open (window));

  focus = gtk_root_get_focus (GTK_ROOT (window));
  path = focus != NULL ? pd_test_a11y_describe (focus) : g_strdup ("nothing");
  g_test_message ("the main menu closed: the focus on %s", path);
  item = pd_test_a11y_focused_item (window);
  g_assert_nonnull (item);
  g_assert_cmpstr (pd_session_item_get_id (item), ==, id);
}

static void
test_main_menu_escape (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_main_menu_escape, NULL), ==, 0);
}

/* --- the dialogs at 1.5× text ------------------------------------------------ */

static gboolean
dialog_resized (gpointer data)
{
  GtkWidget *dialog = data;

  return gtk_widget_get_width (dialog) <= GPOINTER_TO_INT (g_object_get_data (G_OBJECT (dialog), "a11y-width")) + 1;
}

/* An entry's hint cut short (its placeholder, ellipsized): a screen reader
 * says it whole, but one who sees it reads only its start. */
static guint
count_cut_hints (GtkWidget  *root,
                 const char *where)
{
  g_autoptr(GPtrArray) labels = g_ptr_array_new ();
  guint n_cut = 0;

  pd_test_collect (root, GTK_TYPE_LABEL, labels);
  for (guint i = 0; i < labels->len; i++)
    {
      GtkWidget *label = g_ptr_array_index (labels, i);

      if (gtk_widget_get_mapped (label) && GTK_IS_TEXT (gtk_widget_get_parent (label)) &&
          pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (label))))
        {
          g_test_message ("%s: the hint “%s” is cut to %d px", where, gtk_label_get_text (GTK_LABEL (label)),
                          gtk_widget_get_width (label));
          n_cut++;
        }
    }
  return n_cut;
}

/* The cut labels of each page of @dialog (Preferences' pages), or of
 * @dialog when it has none; each page's controls named (a screen reader
 * met only Preferences' first page in the names test). */
static guint
count_cut_pages (GtkWindow  *dialog,
                 const char *what)
{
  GtkWidget *stack = pd_test_find_widget (GTK_WIDGET (dialog), ADW_TYPE_VIEW_STACK);
  g_autoptr(GtkSelectionModel) pages = NULL;
  guint n_cut = 0;

  if (stack == NULL)
    {
      pd_test_a11y_assert_named (GTK_WIDGET (dialog), what);
      return pd_test_a11y_count_cut_labels (GTK_WIDGET (dialog), what) + count_cut_hints (GTK_WIDGET (dialog), what);
    }
  pages = adw_view_stack_get_pages (ADW_VIEW_STACK (stack));
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (pages)); i++)
    {
      g_autoptr(AdwViewStackPage) page = g_list_model_get_item (G_LIST_MODEL (pages), i);
      g_autofree char *where = g_strdup_printf ("%s, %s", what, adw_view_stack_page_get_title (page));

      adw_view_stack_set_visible_child (ADW_VIEW_STACK (stack), adw_view_stack_page_get_child (page));
      pd_test_flush (GTK_WIDGET (dialog));
      pd_test_spin (250);   /* the cross-fade */
      pd_test_flush (GTK_WIDGET (dialog));
      pd_test_a11y_assert_named (GTK_WIDGET (dialog), where);
      n_cut += pd_test_a11y_count_cut_labels (GTK_WIDGET (dialog), where) + count_cut_hints (GTK_WIDGET (dialog), where);
    }
  adw_view_stack_set_visible_child (ADW_VIEW_STACK (stack), adw_view_stack_get_visible_child (ADW_VIEW_STACK (stack)));
  return n_cut;
}

/* The cut labels of @dialog at its own size, then made 360 px wide (a
 * phone's width; a dialog that cannot narrow that far counts as cut). */
static guint
count_cut_in_dialog (GtkWindow  *dialog,
                     const char *what)
{
  g_autofree char *narrow = g_strdup_printf ("%s, 360 px", what);
  g_autofree char *shot = g_strdup_printf ("a11y-large-text-%s", what);
  guint n_cut;
  int minimum = 0;

  for (char *p = shot; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '-')
      *p = '-';
  pd_test_flush (GTK_WIDGET (dialog));
  n_cut = count_cut_pages (dialog, what);
  pd_test_screenshot (GTK_WIDGET (dialog), shot);
  /* Its content: the window's CSS box apart (its shadow, out of sight). */
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (dialog)); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (gtk_widget_get_visible (child))
      {
        int child_minimum = 0;

        gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &child_minimum, NULL, NULL, NULL);
        minimum = MAX (minimum, child_minimum);
      }
  g_test_message ("%s at 1.5× text: %d px wide, needs %d px; %u labels cut", what,
                  gtk_widget_get_width (GTK_WIDGET (dialog)), minimum, n_cut);
  if (minimum > 360)
    {
      pd_test_a11y_print_wide (GTK_WIDGET (dialog), 360 - 24, 1);
      n_cut++;
    }
  else
    {
      g_autofree char *shot_narrow = g_strdup_printf ("%s-360", shot);
      guint cut;

      g_object_set_data (G_OBJECT (dialog), "a11y-width", GINT_TO_POINTER (360));
      gtk_window_set_default_size (dialog, 360, -1);
      pd_test_wait_until (dialog_resized, dialog, narrow);
      pd_test_flush (GTK_WIDGET (dialog));
      cut = count_cut_pages (dialog, narrow);
      g_test_message ("%s: %u labels cut", narrow, cut);
      pd_test_screenshot (GTK_WIDGET (dialog), shot_narrow);
      n_cut += cut;
    }
  return n_cut;
}

/* Preferences, New Session and Connect to Endpoint at 1.5× text: no text
 * cut, at their size and at 360 px. */
static void
check_dialogs_large_text (PdApplication *app,
                          PdWindow      *window,
                          gpointer       user_data)
{
  const struct { const char *action; const char *what; } dialogs[] = {
    { "win.preferences", "Preferences" },
    { "win.new-session", "New Session" },
    { "win.connect-endpoint", "Connect to Endpoint" },
  };
  GType types[G_N_ELEMENTS (dialogs)];
  guint n_cut = 0;

  types[0] = ADW_TYPE_PREFERENCES_WINDOW;
  types[1] = PD_TYPE_NEW_SESSION_DIALOG;
  types[2] = ADW_TYPE_MESSAGE_DIALOG;
  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  for (guint i = 0; i < G_N_ELEMENTS (dialogs); i++)
    {
      GtkWindow *dialog;

      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), dialogs[i].action, NULL));
      dialog = wait_for_toplevel (types[i], dialogs[i].what);
      pd_test_spin (200);
      n_cut += count_cut_in_dialog (dialog, dialogs[i].what);
      close_dialog (window, dialog, types[i], dialogs[i].what);
    }
  g_assert_cmpuint (n_cut, ==, 0);
}

static void
test_dialogs_large_text (void)
{
  int dpi = pd_test_a11y_large_text ();

  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_dialogs_large_text, NULL), ==, 0);
  g_object_set (gtk_settings_get_default (), "gtk-xft-dpi", dpi, NULL);
}

/* --- a run's dialogs at 1.5× text, and the focus after them ------------------- */

/* A shell command, long, so that the approval has much to show. */
static const char *replay_approval =
  "{\"label\": \"test: a11y approval\", \"turns\": ["
  " {\"content\": \"Saying it.\", \"tool_calls\": [{\"name\": \"shell\", \"arguments\": {\"command\": "
  "   \"echo hello from a command long enough to wrap at a larger text size > said.txt\"}}]},"
  " {\"content\": \"I could not say it.\"}]}";

/* Plan mode's review. */
static const char *replay_review =
  "{\"label\": \"test: a11y review\", \"turns\": ["
  " {\"content\": \"Here is my plan.\", \"tool_calls\": [{\"name\": \"exit_plan_mode\", \"arguments\": {\"plan\": "
  "   \"# Tidy the README of the project\\n\\n- read it through once\\n- say which lines are unclear\\n\"}}]},"
  " {\"content\": \"I will keep planning.\"}]}";

/* The approval and the plan review at 1.5× text: nothing cut, at their
 * size and at 360 px; closed with Escape, the focus is back where it was
 * (the message entry) and not lost. */
static void
check_run_dialogs (PdApplication *app,
                   PdWindow      *window,
                   gpointer       user_data)
{
  RunFixture *fixture = user_data;
  const char *what[] = { "Approval", "Plan review" };
  GtkWidget *before;
  guint n_cut = 0;
  guint n_lost = 0;

  for (guint i = 0; i < G_N_ELEMENTS (what); i++)
    {
      AdwMessageDialog *dialog;
      GtkWidget *focus;

      g_assert_true (g_file_set_contents (fixture->replay, i == 0 ? replay_approval : replay_review, -1, NULL));
      fixture->finished = FALSE;
      start_replay (window, fixture, PD_APPROVAL_POLICY_ASK, i == 0 ? "Say hello" : "/plan Tidy the README");
      dialog = pd_test_a11y_wait_for_message_dialog (what[i]);

      /* Where the focus was in the window when the dialog came, once the
       * window has settled: the run's session, listed as the dialog
       * shows, moves the window's focus once (a view switcher button,
       * then the header's; read in between, the test failed 1 of 6). */
      for (guint k = 0; k < 20; k++)
        {
          GtkWidget *seen = gtk_root_get_focus (GTK_ROOT (window));

          pd_test_spin (150);
          pd_test_flush (GTK_WIDGET (window));
          if (seen == gtk_root_get_focus (GTK_ROOT (window)))
            break;
        }
      before = gtk_root_get_focus (GTK_ROOT (window));
      if (before != NULL)
        g_object_ref (before);
      {
        g_autofree char *path = before != NULL ? pd_test_a11y_describe (before) : g_strdup ("nothing");

        g_test_message ("%s: the window's focus was on %s", what[i], path);
      }
      n_cut += count_cut_in_dialog (GTK_WINDOW (dialog), what[i]);
      focus = close_dialog (window, GTK_WINDOW (dialog), ADW_TYPE_MESSAGE_DIALOG, what[i]);
      if (focus == NULL || (before != NULL && focus != before))
        n_lost++;
      g_clear_object (&before);
      pd_test_wait_until (run_finished, fixture, "the run to end");
    }
  g_assert_cmpuint (n_cut, ==, 0);
  g_assert_cmpuint (n_lost, ==, 0);
}

static void
test_run_dialogs (void)
{
  g_autoptr(RunFixture) fixture = run_fixture_new (replay_approval);
  const char *args[] = { "--db", fixture->db, NULL };
  int dpi = pd_test_a11y_large_text ();

  pd_test_reset_settings ();
  g_assert_cmpint (pd_test_run_app (args, check_run_dialogs, fixture, NULL), ==, 0);
  g_object_set (gtk_settings_get_default (), "gtk-xft-dpi", dpi, NULL);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/a11y/focus/status-pages", test_status_pages);
  g_test_add_func ("/pd/ui/a11y/focus/no-sessions", test_no_sessions);
  g_test_add_func ("/pd/ui/a11y/focus/after-dialogs", test_focus_after_dialogs);
  g_test_add_func ("/pd/ui/a11y/focus/undo-toast", test_undo_toast);
  g_test_add_func ("/pd/ui/a11y/focus/toast-gone", test_toast_gone);
  g_test_add_func ("/pd/ui/a11y/focus/main-menu-escape", test_main_menu_escape);
  g_test_add_func ("/pd/ui/a11y/dialogs/large-text", test_dialogs_large_text);
  g_test_add_func ("/pd/ui/a11y/dialogs/run-large-text", test_run_dialogs);

  return g_test_run ();
}
