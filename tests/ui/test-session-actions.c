/* test-session-actions.c: Delete with Undo, Create a database, About
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The real application on a real database: the actions of the session's
 * context menu and of the header's session menu, with the toast's Undo and
 * close buttons pressed as a user would, and the database read afterwards.
 * Export has its own file, test-session-export.c.
 */
#define G_LOG_DOMAIN "test-session-actions"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-removed-sessions.h"
#include "pd-session-list.h"
#include "pd-session-list-private.h"
#include "pd-session-row.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"


static gboolean
is_popover_menu (GtkWidget     *widget,
                 gconstpointer  data)
{
  return GTK_IS_POPOVER_MENU (widget);
}
static PdSessionList *
session_list_of (PdWindow *window)
{
  return PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
}

static gboolean
list_loaded (gpointer window)
{
  return pd_session_list_get_loaded (session_list_of (window)) &&
         !pd_session_list_get_busy (session_list_of (window));
}

static const char *
selected_id (PdSessionList *list)
{
  PdSessionItem *item = pd_session_list_get_selected_item (list);

  return item != NULL ? pd_session_item_get_id (item) : NULL;
}

static gboolean
is_button_labelled (GtkWidget     *widget,
                    gconstpointer  label)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0;
}

static gboolean
is_close_button (GtkWidget     *widget,
                 gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (widget)), "window-close-symbolic") == 0 &&
         gtk_widget_get_ancestor (widget, ADW_TYPE_TOAST_OVERLAY) != NULL;
}

typedef struct
{
  GtkWidget         *root;
  PdTestWidgetMatch  match;
  gconstpointer      data;
} Find;

static gboolean
found (gpointer data)
{
  Find *find = data;

  return pd_test_find_first (find->root, find->match, find->data) != NULL;
}

/* Waits for the widget (the toast is shown after its animation starts). */
static GtkWidget *
wait_for_widget (GtkWidget         *root,
                 PdTestWidgetMatch  match,
                 gconstpointer      data,
                 const char        *what)
{
  Find find = { root, match, data };

  pd_test_wait_until (found, &find, what);
  return pd_test_find_first (root, match, data);
}

/* First strong isolate and pop directional isolate, in UTF-8. */
#define FSI "\342\201\250"
#define PDI "\342\201\251"

typedef struct
{
  char           *dir;
  char           *db;
  PdSessionStore *store;
  char           *ours;
  char           *other;
  char           *imported;
  char           *closing;
  char           *running;
} DeleteFixture;

static gboolean
stored (PdSessionStore *store,
        const char     *id)
{
  g_autoptr(PdSessionInfo) info = pd_session_store_get (store, id, NULL);

  return info != NULL;
}

static gboolean
listed_in_store (PdSessionStore *store,
                 const char     *id)
{
  g_autoptr(GPtrArray) list = pd_session_store_list (store, NULL, FALSE, 0, 100, NULL, NULL);

  for (guint i = 0; list != NULL && i < list->len; i++)
    if (g_str_equal (((PdSessionInfo *) g_ptr_array_index (list, i))->id, id))
      return TRUE;
  return FALSE;
}

typedef struct
{
  PdSessionStore *store;
  const char     *id;
} Gone;

static gboolean
gone_from_store (gpointer data)
{
  Gone *gone = data;

  return !stored (gone->store, gone->id);
}

static gboolean
gone_from_listing (gpointer data)
{
  Gone *gone = data;

  return !listed_in_store (gone->store, gone->id);
}

static gboolean
back_in_listing (gpointer data)
{
  Gone *gone = data;

  return listed_in_store (gone->store, gone->id);
}

static gboolean
removed_loaded (gpointer window)
{
  return pd_removed_sessions_get_loaded (window);
}

typedef struct
{
  PdSessionList *list;
  const char    *id;
} Selected;

static gboolean
selected_is (gpointer data)
{
  Selected *selected = data;

  return g_strcmp0 (selected_id (selected->list), selected->id) == 0;
}

static gboolean
is_label_text (GtkWidget     *widget,
               gconstpointer  text)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0;
}

static gboolean
is_toast (GtkWidget     *widget,
          gconstpointer  data)
{
  return g_strcmp0 (gtk_widget_get_css_name (widget), "toast") == 0;
}

static gboolean
no_toast (gpointer window)
{
  return pd_test_find_first (window, is_toast, NULL) == NULL;
}

/* Until the toast has gone, with its animation. */
static void
wait_toast_gone (PdWindow *window)
{
  pd_test_wait_until (no_toast, window, "the toast to go");
}

/* The toast closed by its close button, as a user does.  First it is
 * let finish appearing: libadwaita 1.2 frees a toast's animations twice
 * when it is closed during its 300 ms show animation (a crash no person's
 * click is fast enough for). */
static void
dismiss_toast (PdWindow *window)
{
  GtkWidget *close = wait_for_widget (GTK_WIDGET (window), is_close_button, NULL, "the toast's close button");

  pd_test_spin (500);
  g_signal_emit_by_name (close, "clicked");
}

static gboolean
is_menu_button (GtkWidget     *widget,
                gconstpointer  data)
{
  return GTK_IS_MENU_BUTTON (widget) && gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (widget)) != NULL;
}

/* The label of the last item of the main menu's Session section. */
static char *
main_menu_delete_label (PdWindow *window)
{
  GtkWidget *button = pd_test_find_first (GTK_WIDGET (window), is_menu_button, NULL);
  GMenuModel *menu;
  g_autoptr(GMenuModel) section = NULL;
  char *label = NULL;
  int n;

  g_assert_nonnull (button);
  menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (button));
  section = g_menu_model_get_item_link (menu, 0, G_MENU_LINK_SECTION);
  g_assert_nonnull (section);
  n = g_menu_model_get_n_items (section);
  g_assert_cmpint (n, >, 0);
  g_assert_true (g_menu_model_get_item_attribute (section, n - 1, G_MENU_ATTRIBUTE_LABEL, "s", &label));
  return label;
}

static void
check_delete (PdApplication *app,
              PdWindow      *window,
              gpointer       user_data)
{
  DeleteFixture *f = user_data;
  PdSessionList *list = session_list_of (window);
  GtkWidget *undo;

  pd_test_wait_until (list_loaded, window, "the list");
  g_assert_true (pd_session_list_select (list, f->ours));

  /* Deleted from the row's menu: gone from the list at once, still stored
   * while Undo is offered. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", f->ours);
  g_assert_false (pd_session_list_select (list, f->ours));
  g_assert_true (stored (f->store, f->ours));
  g_assert_nonnull (wait_for_widget (GTK_WIDGET (window), is_button_labelled,
                                     "_Undo", "the Undo button"));
  g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (window), "“" FSI "Tidy the parser" PDI "” deleted"));
  pd_test_spin (400);
  pd_test_screenshot_sizes (GTK_WINDOW (window), "delete-undo");

  /* Undo: back in the list, selected again as it was (the selection had
   * moved on to another session and stayed there), and never deleted. */
  g_assert_cmpstr (selected_id (list), !=, f->ours);
  undo = pd_test_find_first (GTK_WIDGET (window), is_button_labelled, "_Undo");
  pd_test_spin (500);
  g_signal_emit_by_name (undo, "clicked");
  wait_toast_gone (window);
  g_assert_cmpstr (selected_id (list), ==, f->ours);

  /* A session that was not selected comes back without taking the
   * selection from the one that is. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", f->other);
  undo = wait_for_widget (GTK_WIDGET (window), is_button_labelled, "_Undo", "the Undo button");
  g_assert_cmpstr (selected_id (list), ==, f->ours);
  pd_test_spin (500);
  g_signal_emit_by_name (undo, "clicked");
  wait_toast_gone (window);
  g_assert_cmpstr (selected_id (list), ==, f->ours);
  g_assert_true (pd_session_list_select (list, f->other));
  g_assert_true (pd_session_list_select (list, f->ours));
  pd_test_spin (300);
  pd_session_list_refresh (list);
  pd_test_wait_until (list_loaded, window, "the list again");
  g_assert_true (stored (f->store, f->ours));
  g_assert_true (pd_session_list_select (list, f->ours));

  /* The header's session menu names deleting as the row's menu does for
   * the session shown: one name for each kind (it said "Delete Session"
   * for an agent's session too, which only leaves the list). */
  {
    g_autofree char *imported_label = NULL;
    g_autofree char *ours_label = NULL;

    g_assert_true (pd_session_list_select (list, f->imported));
    imported_label = main_menu_delete_label (window);
    g_assert_cmpstr (imported_label, ==, "_Remove From List");
    g_assert_true (pd_session_list_select (list, f->ours));
    ours_label = main_menu_delete_label (window);
    g_assert_cmpstr (ours_label, ==, "_Delete");
  }

  /* A row's menu opened by a click near the list's right edge opens
   * leftwards: at 360 px it went on past the window, "Remove From List"
   * cut (tried as a new user would); near the left edge, rightwards. */
  {
    GtkWidget *row = pd_test_find_widget (GTK_WIDGET (list), PD_TYPE_SESSION_ROW);
    GtkWidget *menu;
    graphene_point_t at;

    g_assert_nonnull (row);
    g_assert_true (gtk_widget_compute_point (row, GTK_WIDGET (list),
                                             &GRAPHENE_POINT_INIT (4, gtk_widget_get_height (row) / 2.0f), &at));
    _pd_session_list_popup_at (list, gtk_widget_get_width (GTK_WIDGET (list)) - 8, at.y);
    menu = pd_test_find_first (GTK_WIDGET (list), is_popover_menu, NULL);
    g_assert_nonnull (menu);
    g_assert_cmpint (gtk_widget_get_halign (menu), ==, GTK_ALIGN_END);
    gtk_popover_popdown (GTK_POPOVER (menu));
    pd_test_flush (GTK_WIDGET (window));
    _pd_session_list_popup_at (list, 8, at.y);
    g_assert_cmpint (gtk_widget_get_halign (menu), ==, GTK_ALIGN_START);
    gtk_popover_popdown (GTK_POPOVER (menu));
    pd_test_flush (GTK_WIDGET (window));
  }

  /* From the header's session menu (the shown session), then the toast
   * closed: deleted, rows and all. */
  pd_test_flush (GTK_WIDGET (window));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", "");
  g_assert_false (pd_session_list_select (list, f->ours));
  dismiss_toast (window);
  {
    Gone gone = { f->store, f->ours };

    pd_test_wait_until (gone_from_store, &gone, "the session to be deleted");
  }
  wait_toast_gone (window);

  /* An imported session: hidden from the index, the toast says the
   * agent's transcript stays. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", f->imported);
  g_assert_nonnull (wait_for_widget (GTK_WIDGET (window), is_button_labelled, "_Undo", "the Undo button"));
  g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (window), "the agent’s own transcript is kept"));
  dismiss_toast (window);
  {
    Gone gone = { f->store, f->imported };

    pd_test_wait_until (gone_from_listing, &gone, "the imported session to leave the index");
    g_assert_true (stored (f->store, f->imported));
  }
  wait_toast_gone (window);

  /* Once its Undo is gone, it comes back from Main Menu → Removed
   * Sessions, where Restore lists it again (there was no way back, and
   * reading the agents' folders again kept it hidden, tried as a new user
   * would). */
  {
    GtkWindow *removed;
    GtkWidget *restore;
    Gone gone = { f->store, f->imported };

    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-removed-sessions", NULL));
    removed = pd_test_find_toplevel (PD_TYPE_REMOVED_SESSIONS);
    g_assert_nonnull (removed);
    pd_test_wait_until (removed_loaded, removed, "the removed sessions read");
    pd_test_flush (GTK_WIDGET (removed));
    g_assert_nonnull (pd_test_find_label (GTK_WIDGET (removed), "An agent's session"));
    pd_test_screenshot_sizes (removed, "removed-sessions");
    restore = wait_for_widget (GTK_WIDGET (removed), is_button_labelled, "_Restore", "the Restore button");
    g_signal_emit_by_name (restore, "clicked");
    pd_test_wait_until (back_in_listing, &gone, "the session listed again in the index");
    pd_test_wait_until (selected_is, &(Selected) { list, f->imported }, "the restored session listed and shown");
    g_assert_nonnull (wait_for_widget (GTK_WIDGET (removed), is_label_text, "No Removed Sessions",
                                       "the empty page"));
    pd_test_screenshot_sizes (removed, "removed-sessions-empty");
    pd_test_destroy_window (removed, NULL);
  }

  /* A session whose run goes on (this process's, so alive): deleting it
   * let the run go on unrecorded (found as an attacker would).  The window
   * says to stop the run and hides nothing; no Undo is offered. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", f->running);
  g_assert_true (pd_session_list_select (list, f->running));
  g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (window),
                                                   "“" FSI "Running now" PDI "” is running: stop the run first"));
  g_assert_null (pd_test_find_first (GTK_WIDGET (window), is_button_labelled, "_Undo"));
  g_assert_true (stored (f->store, f->running));
  dismiss_toast (window);
  wait_toast_gone (window);

  /* Deleted, and the window closes before the toast goes: it is deleted
   * (checked once the application is gone). */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", f->closing);
  g_assert_true (stored (f->store, f->closing));
}

static void
test_delete (void)
{
  DeleteFixture f = { 0 };
  const char *args[] = { "--db", NULL, NULL };

  f.dir = pd_test_make_tmp_dir ();
  f.db = g_build_filename (f.dir, "sessions.db", NULL);
  f.store = pd_test_open_store (f.db);
  f.other = pd_test_add_session (f.store, "Keep this one", "plandeck");
  f.closing = pd_test_add_session (f.store, "Close before the toast goes", "plandeck");
  f.imported = pd_test_add_session (f.store, "An agent's session", "claude-code");
  f.ours = pd_test_add_session (f.store, "Tidy the parser", "plandeck");
  f.running = pd_test_add_session (f.store, "Running now", "plandeck");
  g_assert_true (pd_session_store_set_status (f.store, f.running, PD_SESSION_STATUS_RUNNING, NULL));
  args[1] = f.db;

  g_assert_cmpint (pd_test_run_app (args, check_delete, &f, NULL), ==, 0);

  g_assert_false (stored (f.store, f.closing));
  g_assert_false (stored (f.store, f.ours));
  g_assert_true (listed_in_store (f.store, f.other));
  g_assert_true (stored (f.store, f.running));

  g_object_unref (f.store);
  g_free (f.ours);
  g_free (f.other);
  g_free (f.imported);
  g_free (f.closing);
  g_free (f.running);
  g_free (f.db);
  g_free (f.dir);
}

/* --- a row's menu with no session shown ------------------------------------ */

/* Tried as a new user would: on the Overview (no session shown) a row's
 * menu had Export and Delete greyed, the actions it named being off there
 * to leave the main menu's Session section out.  Each item of the row's
 * menu is taken from the menu itself and activated. */
static void
check_row_menu_on_overview (PdApplication *app,
                            PdWindow      *window,
                            gpointer       user_data)
{
  DeleteFixture *f = user_data;
  PdSessionList *list = session_list_of (window);
  GtkWidget *row;
  GtkWidget *menu;
  GMenuModel *model;
  g_autoptr(GMenuModel) section = NULL;
  g_autofree char *delete_action = NULL;
  g_autoptr(GVariant) delete_target = NULL;
  graphene_point_t at;

  pd_test_wait_until (list_loaded, window, "the list");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-overview", NULL));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_null (pd_session_list_get_selected_item (list));

  row = pd_test_find_widget (GTK_WIDGET (list), PD_TYPE_SESSION_ROW);
  g_assert_nonnull (row);
  g_assert_true (gtk_widget_compute_point (row, GTK_WIDGET (list),
                                           &GRAPHENE_POINT_INIT (4, gtk_widget_get_height (row) / 2.0f), &at));
  _pd_session_list_popup_at (list, 8, at.y);
  menu = pd_test_find_first (GTK_WIDGET (list), is_popover_menu, NULL);
  g_assert_nonnull (menu);
  model = gtk_popover_menu_get_menu_model (GTK_POPOVER_MENU (menu));
  section = g_menu_model_get_item_link (model, g_menu_model_get_n_items (model) - 1, G_MENU_LINK_SECTION);
  g_assert_nonnull (section);
  g_assert_cmpint (g_menu_model_get_n_items (section), ==, 3);
  g_assert_true (g_menu_model_get_item_attribute (section, 2, G_MENU_ATTRIBUTE_ACTION, "s", &delete_action));
  delete_target = g_menu_model_get_item_attribute_value (section, 2, G_MENU_ATTRIBUTE_TARGET, G_VARIANT_TYPE_STRING);
  g_assert_nonnull (delete_target);
  gtk_popover_popdown (GTK_POPOVER (menu));
  pd_test_flush (GTK_WIDGET (window));

  /* Its Delete deletes, with the Overview still shown. */
  gtk_widget_activate_action_variant (GTK_WIDGET (window), delete_action, delete_target);
  g_assert_nonnull (wait_for_widget (GTK_WIDGET (window), is_button_labelled, "_Undo", "the Undo button"));
  g_assert_false (pd_session_list_select (list, g_variant_get_string (delete_target, NULL)));
  g_assert_null (pd_session_list_get_selected_item (list));
  (void) f;
}

static void
test_row_menu_on_overview (void)
{
  DeleteFixture f = { 0 };
  const char *args[] = { "--db", NULL, NULL };

  f.dir = pd_test_make_tmp_dir ();
  f.db = g_build_filename (f.dir, "sessions.db", NULL);
  f.store = pd_test_open_store (f.db);
  f.ours = pd_test_add_session (f.store, "Tidy the parser", "plandeck");
  args[1] = f.db;

  g_assert_cmpint (pd_test_run_app (args, check_row_menu_on_overview, &f, NULL), ==, 0);

  g_object_unref (f.store);
  g_free (f.ours);
  g_free (f.db);
  g_free (f.dir);
}

/* --- a bidi-safe toast ------------------------------------------------------ */

/* As an attacker would title a session: a right-to-left override (U+202E)
 * and a left-to-right embedding (U+202A) that, obeyed, reorder the rest of
 * the toast ("“…” deleted" read backwards, "exe.txt" shown as "txt.exe"). */
#define BIDI_TITLE "Report \342\200\256fdp.exe\342\200\252 now"

static gboolean
is_running_label (GtkWidget     *widget,
                  gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), "is running") != NULL;
}

static gboolean
is_deleted_label (GtkWidget     *widget,
                  gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), "deleted") != NULL;
}

/* Whether @text holds an embedding, override or isolate control. */
static guint
count_bidi_controls (const char *text,
                     gunichar   *first)
{
  guint n = 0;

  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if ((c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069))
        {
          if (n++ == 0 && first != NULL)
            *first = c;
        }
    }
  return n;
}

static void
check_bidi_toast (PdApplication *app,
                  PdWindow      *window,
                  gpointer       user_data)
{
  const char * const *ids = user_data;
  const char *id = ids[0];
  GtkWidget *label;
  GtkWidget *undo;
  const char *text;
  gunichar first = 0;

  pd_test_wait_until (list_loaded, window, "the list");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", id);
  undo = wait_for_widget (GTK_WIDGET (window), is_button_labelled, "_Undo", "the Undo button");
  label = pd_test_find_first (GTK_WIDGET (window), is_deleted_label, NULL);
  g_assert_nonnull (label);
  text = gtk_label_get_text (GTK_LABEL (label));
  g_test_message ("toast: %s", text);

  /* The title's controls are shown, not obeyed, and the title sits in an
   * isolate of its own: the only controls are its FSI and PDI, in order. */
  g_assert_cmpstr (text, ==, "“" FSI "Report <U+202E>fdp.exe<U+202A> now" PDI "” deleted");
  g_assert_cmpuint (count_bidi_controls (text, &first), ==, 2);
  g_assert_cmpuint (first, ==, 0x2068);
  pd_test_screenshot_sizes (GTK_WINDOW (window), "delete-bidi-toast");

  pd_test_spin (500);
  g_signal_emit_by_name (undo, "clicked");
  wait_toast_gone (window);

  /* The toast that refuses to delete a running session names it alike
   * (it showed the title raw, controls and all). */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", ids[1]);
  label = pd_test_find_first (GTK_WIDGET (window), is_running_label, NULL);
  g_assert_nonnull (label);
  text = gtk_label_get_text (GTK_LABEL (label));
  g_assert_cmpstr (text, ==, "“" FSI "Running <U+202E>fdp.exe now" PDI "” is running: stop the run first, then delete it");
  g_assert_cmpuint (count_bidi_controls (text, NULL), ==, 2);
  dismiss_toast (window);
  wait_toast_gone (window);
}

static void
test_delete_bidi_toast (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, BIDI_TITLE);
  g_autofree char *running = pd_test_db_create_session (db, "Running \342\200\256fdp.exe now");
  const char *ids[] = { id, running };
  const char *args[] = { "--db", db->path, NULL };

  g_assert_true (pd_session_store_set_status (db->store, running, PD_SESSION_STATUS_RUNNING, NULL));
  g_assert_cmpint (pd_test_run_app (args, check_bidi_toast, ids, NULL), ==, 0);
}

/* --- a long title in the toast ------------------------------------------------ */

/* 120 characters: as a person writes a task in its first message. */
#define LONG_TITLE "Move every preference of the old INI file to GSettings, keep the migration for a release, " \
                   "and document it in the README"
#define LONG_TITLE_QUOTED "“" FSI "Move every preference of the old INI file to GSettings, keep the migration for …" \
                          PDI "” deleted"

static gboolean
is_title_label (GtkWidget     *widget,
                gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget) &&
         g_str_has_prefix (gtk_label_get_text (GTK_LABEL (widget)), "“" FSI "Move");
}

static gboolean
is_narrow (gpointer window)
{
  return gtk_widget_get_width (GTK_WIDGET (window)) == 360;
}

static void
check_long_title_toast (PdApplication *app,
                        PdWindow      *window,
                        gpointer       user_data)
{
  const char *id = user_data;
  GtkWidget *undo;
  GtkWidget *label;
  graphene_rect_t bounds;

  pd_test_wait_until (list_loaded, window, "the list");
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", id);
  undo = wait_for_widget (GTK_WIDGET (window), is_button_labelled, "_Undo", "the Undo button");
  pd_test_spin (400);
  label = pd_test_find_first (GTK_WIDGET (window), is_title_label, NULL);
  g_assert_nonnull (label);

  /* The title's first 80 characters, cut with "…" inside its isolate;
   * the sentence whole, and drawn whole, wrapping (the label was
   * ellipsized at its end, losing "deleted"). */
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, LONG_TITLE_QUOTED);
  g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (label))));
  /* Undo inside the window, beside the sentence. */
  g_assert_true (gtk_widget_get_mapped (undo));
  g_assert_true (gtk_widget_compute_bounds (undo, GTK_WIDGET (window), &bounds));
  g_assert_cmpfloat (bounds.origin.x + bounds.size.width, <=, gtk_widget_get_width (GTK_WIDGET (window)));
  g_assert_cmpfloat (bounds.size.width, >, 0);
  pd_test_screenshot (GTK_WIDGET (window), "delete-long-title");
  g_signal_emit_by_name (undo, "clicked");
  wait_toast_gone (window);

  /* On a phone's 360 px the same quote: the toast wraps, the sentence and
   * Undo stay whole there too.  Cut to what fit beside the sentence, a
   * 17-character title was said as 7 ("“Flaky s…” removed", tried with a
   * screen reader). */
  gtk_window_set_default_size (GTK_WINDOW (window), 360, 640);
  pd_test_wait_until (is_narrow, window, "the window to be narrow");
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.delete-session", "s", id);
  undo = wait_for_widget (GTK_WIDGET (window), is_button_labelled, "_Undo", "the Undo button");
  pd_test_spin (400);
  label = pd_test_find_first (GTK_WIDGET (window), is_title_label, NULL);
  g_assert_nonnull (label);
  g_test_message ("narrow toast: %s", gtk_label_get_text (GTK_LABEL (label)));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, LONG_TITLE_QUOTED);
  g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (label))));
  g_assert_true (gtk_widget_compute_bounds (undo, GTK_WIDGET (window), &bounds));
  g_assert_cmpfloat (bounds.origin.x + bounds.size.width, <=, gtk_widget_get_width (GTK_WIDGET (window)));
  pd_test_screenshot (GTK_WIDGET (window), "delete-long-title-360");
  g_signal_emit_by_name (undo, "clicked");
  wait_toast_gone (window);
}

static void
test_delete_long_title (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *id = pd_test_db_create_session (db, LONG_TITLE);
  const char *args[] = { "--db", db->path, NULL };

  g_assert_cmpint (pd_test_run_app (args, check_long_title_toast, id, NULL), ==, 0);
}

/* --- create a database ------------------------------------------------------------ */

static gboolean
is_shown_button_for (GtkWidget     *widget,
                     gconstpointer  action)
{
  return GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) &&
         g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), action) == 0;
}

/* The button a person sees for @action, or NULL. */
static GtkWidget *
shown_button_for (PdWindow   *window,
                  const char *action)
{
  pd_test_flush (GTK_WIDGET (window));
  return pd_test_find_first (GTK_WIDGET (window), is_shown_button_for, action);
}

static gboolean
is_shown_status_page (GtkWidget     *widget,
                      gconstpointer  data)
{
  return ADW_IS_STATUS_PAGE (widget) && gtk_widget_get_mapped (widget);
}

static const char *
error_page_icon (PdWindow *window)
{
  GtkWidget *page = pd_test_find_first (GTK_WIDGET (window), is_shown_status_page, NULL);

  g_assert_nonnull (page);
  return adw_status_page_get_icon_name (ADW_STATUS_PAGE (page));
}

static void
check_create (PdApplication *app,
              PdWindow      *window,
              gpointer       user_data)
{
  const char *path = user_data;
  GtkWidget *create = shown_button_for (window, "win.create-database");
  GtkWidget *open = shown_button_for (window, "win.open-database");

  g_assert_nonnull (pd_test_find_label (GTK_WIDGET (window), "No Database Here"));
  g_assert_nonnull (create);
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (create)), ==, "_Create a New Database Here");
  g_assert_true (gtk_widget_has_css_class (create, "suggested-action"));
  /* A new file is offered: its page shows a new document, not the stop
   * sign of an error (which a missing folder keeps, below). */
  g_assert_cmpstr (error_page_icon (window), ==, "document-new-symbolic");
  pd_test_screenshot_sizes (GTK_WINDOW (window), "create-database");
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  /* "…or open another": the page's description says it, a button does it
   * (there was none: Create took the place of Open). */
  g_assert_nonnull (open);
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (open)), ==, "_Open Another Database…");
  gtk_widget_activate (open);
  pd_test_wait_until (pd_test_toplevel_shown, GSIZE_TO_POINTER (GTK_TYPE_FILE_CHOOSER), "the file chooser to open another database");
  g_assert_true (gtk_file_chooser_get_action (GTK_FILE_CHOOSER (pd_test_mapped_toplevel (GTK_TYPE_FILE_CHOOSER))) == GTK_FILE_CHOOSER_ACTION_OPEN);
  gtk_dialog_response (GTK_DIALOG (pd_test_mapped_toplevel (GTK_TYPE_FILE_CHOOSER)), GTK_RESPONSE_CANCEL);
  pd_test_wait_until (pd_test_toplevel_gone, GSIZE_TO_POINTER (GTK_TYPE_FILE_CHOOSER), "the file chooser to close");
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  gtk_widget_activate (create);
  pd_test_wait_until (list_loaded, window, "the new database's list");
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_nonnull (pd_window_get_source (window));
  g_assert_false (gtk_widget_get_visible (create));
}

static void
check_no_folder (PdApplication *app,
                 PdWindow      *window,
                 gpointer       user_data)
{
  g_assert_nonnull (pd_test_find_label (GTK_WIDGET (window), "No Database Here"));
  /* A missing folder is refused: no button makes it. */
  g_assert_null (shown_button_for (window, "win.create-database"));
  g_assert_cmpstr (error_page_icon (window), ==, "dialog-error-symbolic");
  g_assert_nonnull (shown_button_for (window, "win.open-database"));
}

static gboolean
refusal_shown (gpointer data)
{
  return pd_test_find_label_containing (GTK_WIDGET (data), "no database is created through a link") != NULL;
}

/* A dangling symbolic link at the path: Create made the database where it
 * pointed, outside the folder (found as an attacker would).  The page names
 * the link and offers no Create. */
static void
check_dangling_link (PdApplication *app,
                     PdWindow      *window,
                     gpointer       user_data)
{
  const char *path = user_data;
  g_autofree char *text = g_strdup_printf ("%s is a symbolic link to a file that does not exist", path);

  g_assert_nonnull (pd_test_find_label (GTK_WIDGET (window), "No Database Here"));
  g_assert_null (shown_button_for (window, "win.create-database"));
  g_assert_nonnull (shown_button_for (window, "win.open-database"));
  g_assert_nonnull (pd_test_find_label_containing (GTK_WIDGET (window), text));
  /* Activated anyway (a stale button, a shortcut): the store refuses. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.create-database", NULL);
  pd_test_wait_until (refusal_shown, window, "the store's refusal");
}

static void
test_create_database (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "new.db", NULL);
  g_autofree char *missing = g_build_filename (dir, "no-such-folder", "new.db", NULL);
  g_autofree char *missing_dir = g_path_get_dirname (missing);
  const char *args[] = { "--db", path, NULL };
  const char *missing_args[] = { "--db", missing, NULL };

  g_assert_cmpint (pd_test_run_app (args, check_create, path, NULL), ==, 0);
  g_assert_cmpint (pd_test_run_app (missing_args, check_no_folder, NULL, NULL), ==, 0);
  g_assert_false (g_file_test (missing_dir, G_FILE_TEST_EXISTS));

  {
    g_autofree char *elsewhere = g_build_filename (dir, "elsewhere", NULL);
    g_autofree char *target = g_build_filename (elsewhere, "out.db", NULL);
    g_autofree char *link = g_build_filename (dir, "dangling.db", NULL);
    const char *link_args[] = { "--db", link, NULL };

    g_assert_cmpint (g_mkdir (elsewhere, 0700), ==, 0);
    g_assert_cmpint (symlink (target, link), ==, 0);
    g_assert_cmpint (pd_test_run_app (link_args, check_dangling_link, link, NULL), ==, 0);
    g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
  }
}

/* --- About ------------------------------------------------------------------- */

static gboolean
about_shown (gpointer data)
{
  return pd_test_find_toplevel (ADW_TYPE_ABOUT_WINDOW) != NULL;
}

/* A row of the page on screen whose title, less its mnemonic, is @title. */
static gboolean
is_shown_row_titled (GtkWidget     *widget,
                     gconstpointer  title)
{
  g_autofree char *text = NULL;
  char *out;

  if (!ADW_IS_PREFERENCES_ROW (widget) || !gtk_widget_get_mapped (widget))
    return FALSE;
  text = g_strdup (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)));
  out = text;
  for (const char *in = text; *in != '\0'; in++)
    if (*in != '_')
      *out++ = *in;
  *out = '\0';
  return g_strcmp0 (text, title) == 0;
}

static void
check_about (PdApplication *app,
             PdWindow      *window,
             gpointer       user_data)
{
  AdwAboutWindow *about;
  const char * const *developers;

  g_action_group_activate_action (G_ACTION_GROUP (app), "about", NULL);
  pd_test_wait_until (about_shown, NULL, "the About window");
  about = ADW_ABOUT_WINDOW (pd_test_find_toplevel (ADW_TYPE_ABOUT_WINDOW));
  g_assert_cmpstr (adw_about_window_get_website (about), ==, "https://github.com/plandeck/plandeck");
  g_assert_cmpstr (adw_about_window_get_issue_url (about), ==, "https://github.com/plandeck/plandeck/issues");
  g_assert_nonnull (strstr (adw_about_window_get_copyright (about), "The Plandeck Project"));
  pd_test_screenshot_sizes (GTK_WINDOW (about), "about");
  /* What a person sees first: the website, the issue tracker, credits and
   * the legal page (copyright) as rows of the main page.  The website
   * was in a Details page, behind a row, while comments were set. */
  pd_test_flush (GTK_WIDGET (about));
  {
    /* Mapped once the main page is laid out (later under load). */
    Find find = { GTK_WIDGET (about), is_shown_row_titled, "Website" };

    pd_test_wait_until (found, &find, "the Website row on the About window's main page");
  }
  g_assert_nonnull (pd_test_find_first (GTK_WIDGET (about), is_shown_row_titled, "Report an Issue"));
  g_assert_nonnull (pd_test_find_first (GTK_WIDGET (about), is_shown_row_titled, "Credits"));
  g_assert_nonnull (pd_test_find_first (GTK_WIDGET (about), is_shown_row_titled, "Legal"));
  developers = adw_about_window_get_developers (about);
  g_assert_nonnull (developers);
  g_assert_nonnull (developers[0]);
  pd_test_destroy_window (about, NULL);
}

static void
test_about (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  const char *args[] = { "--db", db->path, NULL };

  g_assert_cmpint (pd_test_run_app (args, check_about, NULL, NULL), ==, 0);
}

static gboolean
is_caption (GtkWidget     *widget,
            gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "caption");
}

static void
check_removed_alike (PdApplication *app,
                     PdWindow      *window,
                     gpointer       user_data)
{
  GtkWindow *removed;
  GtkWidget *listbox;
  g_autoptr(GPtrArray) subtitles = g_ptr_array_new ();

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-removed-sessions", NULL));
  removed = pd_test_find_toplevel (PD_TYPE_REMOVED_SESSIONS);
  g_assert_nonnull (removed);
  pd_test_wait_until (removed_loaded, removed, "the removed sessions read");
  pd_test_flush (GTK_WIDGET (removed));
  listbox = pd_test_find_widget (GTK_WIDGET (removed), GTK_TYPE_LIST_BOX);
  g_assert_nonnull (listbox);
  for (GtkWidget *row = gtk_widget_get_first_child (listbox); row != NULL; row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *caption = pd_test_find_first (row, is_caption, NULL);

      g_assert_nonnull (pd_test_find_first (row, is_label_text, "Tidy the build"));
      g_assert_nonnull (caption);
      g_ptr_array_add (subtitles, (gpointer) gtk_label_get_text (GTK_LABEL (caption)));
    }
  g_assert_cmpuint (subtitles->len, ==, 2);
  /* The agent, when it changed ("just now"), and the start of the id. */
  for (guint i = 0; i < subtitles->len; i++)
    {
      const char *text = g_ptr_array_index (subtitles, i);

      g_assert_true (g_str_has_prefix (text, "Claude Code · just now · "));
      g_assert_nonnull (strstr (text, " · 20"));
    }
  g_assert_cmpstr (g_ptr_array_index (subtitles, 0), !=, g_ptr_array_index (subtitles, 1));
  pd_test_screenshot_sizes (removed, "removed-sessions-alike");
  pd_test_destroy_window (removed, NULL);
}

/* Two removed sessions of one title were two rows alike in Removed
 * Sessions (tried as a new user would): each row says its agent, when it
 * last changed and, as the titles are the same, the start of its id. */
static void
test_removed_alike (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  const char *args[] = { "--db", db, NULL };

  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *id = pd_test_add_session (store, "Tidy the build", "claude-code");

      g_assert_true (pd_session_store_delete (store, id, NULL));
    }
  g_assert_cmpint (pd_test_run_app (args, check_removed_alike, NULL, NULL), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();


  g_test_add_func ("/pd/ui/session-actions/delete-undo", test_delete);
  g_test_add_func ("/pd/ui/session-actions/removed-alike", test_removed_alike);
  g_test_add_func ("/pd/ui/session-actions/row-menu-on-overview", test_row_menu_on_overview);
  g_test_add_func ("/pd/ui/session-actions/delete-bidi-toast", test_delete_bidi_toast);
  g_test_add_func ("/pd/ui/session-actions/delete-long-title", test_delete_long_title);
  g_test_add_func ("/pd/ui/session-actions/create-database", test_create_database);
  g_test_add_func ("/pd/ui/session-actions/about", test_about);

  return g_test_run ();
}
