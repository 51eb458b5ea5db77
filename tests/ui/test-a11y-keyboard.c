/* test-a11y-keyboard.c: the window with the keyboard alone
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Runs with GTK_A11Y=test, as test-a11y.c does. The window's own keys
 * switch pages and move between its parts; every list is one Tab stop with
 * the arrows inside; the focus comes back where it was after a menu or a
 * dialog; the shortcuts window lists every key the window binds.
 */
#define G_LOG_DOMAIN "test-a11y-keyboard"

#include "config.h"

#include <string.h>

#include "pd-history-view.h"
#include "pd-local-source.h"
#include "pd-now-view.h"
#include "pd-overview-card-row.h"
#include "pd-overview-view.h"
#include "pd-plan-row.h"
#include "pd-session-item.h"
#include "pd-session-list.h"
#include "pd-session-list-model.h"
#include "pd-session-row.h"
#include "pd-test-a11y.h"
#include "pd-test-db.h"
#include "pd-test-fixtures.h"
#include "pd-test-ui.h"
#include "test-a11y-keyboard-landing.h"

/* The Now page's steps: one Tab stop, Down and Up move between the steps. */
static void
assert_steps_one_stop (PdWindow *window)
{
  GtkWidget *now = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_NOW_VIEW);
  GtkWidget *steps = pd_test_find_widget (now, GTK_TYPE_LIST_BOX);
  GtkWidget *first;
  GtkWidget *focus;

  pd_test_a11y_assert_one_tab_stop (window, "now", PD_TYPE_NOW_VIEW, GTK_TYPE_LIST_BOX);

  g_assert_true (gtk_widget_child_focus (steps, GTK_DIR_TAB_FORWARD));
  first = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_true (PD_IS_PLAN_ROW (first));
  g_assert_nonnull (gtk_widget_get_next_sibling (first));
  g_assert_true (pd_test_a11y_press (steps, GDK_KEY_Down, 0));
  focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_true (focus == gtk_widget_get_next_sibling (first));
  g_assert_true (pd_test_a11y_press (steps, GDK_KEY_Up, 0));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == first);
  g_test_message ("now: the arrows move between its steps");
}

/* Ctrl+Page Down and Up are held by a shortcut controller of the window
 * that runs in the capture phase. */
static gboolean
page_keys_captured (GtkWidget *window)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (window);
  guint found = 0;

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (shortcut);
          guint keyval = GTK_IS_KEYVAL_TRIGGER (trigger) ? gtk_keyval_trigger_get_keyval (GTK_KEYVAL_TRIGGER (trigger)) : 0;

          if ((keyval == GDK_KEY_Page_Down || keyval == GDK_KEY_Page_Up) &&
              gtk_keyval_trigger_get_modifiers (GTK_KEYVAL_TRIGGER (trigger)) == GDK_CONTROL_MASK)
            {
              if (gtk_event_controller_get_propagation_phase (GTK_EVENT_CONTROLLER (controller)) != GTK_PHASE_CAPTURE)
                return FALSE;
              found++;
            }
        }
    }
  return found == 2;
}

static void
check_keyboard (PdApplication *app,
                PdWindow      *window,
                gpointer       user_data)
{
  AdwViewStack *views = pd_test_a11y_view_stack (window);
  GtkWidget *list = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST);
  g_autoptr(GtkBuilder) builder = NULL;
  g_autoptr(GPtrArray) shortcuts = g_ptr_array_new ();
  g_autoptr(GString) listed = g_string_new (NULL);
  const char *wanted[] = { "<Alt>1", "<Alt>2", "<Alt>3", "<Alt>4", "<Control>Page_Down",
                           "<Control>Page_Up", "F6 <Shift>F6", "<Alt>Left",
                           /* New Session's Start, from its task (it was not listed). */
                           "<Control>Return" };

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  pd_test_flush (GTK_WIDGET (window));

  /* Alt+1…4 and Ctrl+Page Down/Up switch pages. */
  g_assert_true (pd_test_a11y_press (GTK_WIDGET (window), GDK_KEY_2, GDK_ALT_MASK));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (views), ==, "transcript");
  g_assert_true (pd_test_a11y_press (GTK_WIDGET (window), GDK_KEY_4, GDK_ALT_MASK));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (views), ==, "history");
  g_assert_true (pd_test_a11y_press (GTK_WIDGET (window), GDK_KEY_Page_Down, GDK_CONTROL_MASK));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (views), ==, "now");
  /* Before the focused list's own keys (a list took Ctrl+Page Down to
   * scroll, tried as a new user would): the window's in the capture phase. */
  g_assert_true (page_keys_captured (GTK_WIDGET (window)));
  g_assert_true (pd_test_a11y_press (GTK_WIDGET (window), GDK_KEY_Page_Up, GDK_CONTROL_MASK));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (views), ==, "history");
  g_assert_true (pd_test_a11y_press (GTK_WIDGET (window), GDK_KEY_3, GDK_ALT_MASK));
  g_assert_cmpstr (adw_view_stack_get_visible_child_name (views), ==, "events");
  pd_test_flush (GTK_WIDGET (window));

  /* F6 goes from the session list to the session and back. */
  g_assert_true (gtk_widget_child_focus (list, GTK_DIR_TAB_FORWARD));
  g_assert_true (pd_test_a11y_focus_inside (list));
  g_assert_true (pd_test_a11y_press (GTK_WIDGET (window), GDK_KEY_F6, 0));
  g_assert_false (pd_test_a11y_focus_inside (list));
  g_assert_nonnull (gtk_root_get_focus (GTK_ROOT (window)));
  g_assert_true (pd_test_a11y_press (GTK_WIDGET (window), GDK_KEY_F6, 0));
  g_assert_true (pd_test_a11y_focus_inside (list));

  /* The plan's steps on the Now page, and the History versions, are one
   * Tab stop each (each step, each version was one). */
  assert_steps_one_stop (window);
  pd_test_a11y_assert_one_tab_stop (window, "history", PD_TYPE_HISTORY_VIEW, GTK_TYPE_LIST_VIEW);

  /* Alt+Left goes back to the list. */
  g_assert_true (pd_test_a11y_press (GTK_WIDGET (window), GDK_KEY_Left, GDK_ALT_MASK));

  /* The shortcuts window lists each of them. */
  builder = gtk_builder_new_from_resource ("/io/github/plandeck/Plandeck/gtk/help-overlay.ui");
  pd_test_collect (GTK_WIDGET (gtk_builder_get_object (builder, "help_overlay")),
                   GTK_TYPE_SHORTCUTS_SHORTCUT, shortcuts);
  for (guint i = 0; i < shortcuts->len; i++)
    {
      g_autofree char *accelerator = NULL;

      g_object_get (g_ptr_array_index (shortcuts, i), "accelerator", &accelerator, NULL);
      g_string_append_printf (listed, "[%s]", accelerator ? accelerator : "");
    }
  for (guint i = 0; i < G_N_ELEMENTS (wanted); i++)
    {
      g_autofree char *entry = g_strdup_printf ("[%s]", wanted[i]);

      if (strstr (listed->str, entry) == NULL)
        g_error ("the shortcuts window does not list %s (it lists %s)", wanted[i], listed->str);
    }
  gtk_window_destroy (GTK_WINDOW (gtk_builder_get_object (builder, "help_overlay")));
}

static gboolean
popover_shown (gpointer data)
{
  GtkWidget *popover = pd_test_find_widget (data, GTK_TYPE_POPOVER_MENU);

  return popover != NULL && gtk_widget_get_mapped (popover);
}

static gboolean
title_is (gpointer data)
{
  PdSessionList *list = data;
  PdSessionItem *item = pd_session_list_get_selected_item (list);

  return item != NULL && g_strcmp0 (pd_session_item_get_title (item), "Renamed by keyboard") == 0;
}

/* The row menu and the rename dialog give the focus back to the row. */
static void
check_focus_returns (PdApplication *app,
                     PdWindow      *window,
                     gpointer       user_data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  PdSessionItem *item;
  GtkWidget *popover;
  AdwMessageDialog *dialog;
  GtkWidget *entry;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  pd_test_flush (GTK_WIDGET (window));
  item = pd_session_list_get_selected_item (list);
  g_assert_true (gtk_widget_child_focus (GTK_WIDGET (list), GTK_DIR_TAB_FORWARD));
  g_assert_true (pd_test_a11y_focus_inside (GTK_WIDGET (list)));

  /* The Menu key's menu, closed with Escape. */
  pd_session_list_show_menu (list, item);
  pd_test_wait_until (popover_shown, list, "the row menu");
  popover = pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_POPOVER_MENU);
  gtk_popover_popdown (GTK_POPOVER (popover));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (pd_test_a11y_focus_inside (GTK_WIDGET (list)));

  /* Rename…, typed and confirmed with Enter. */
  pd_session_list_show_menu (list, item);
  pd_test_wait_until (popover_shown, list, "the row menu");
  popover = pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_POPOVER_MENU);
  gtk_popover_popdown (GTK_POPOVER (popover));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (list), "session.rename", NULL));
  dialog = pd_test_a11y_wait_for_message_dialog ("the rename dialog");
  entry = pd_test_find_widget (GTK_WIDGET (dialog), GTK_TYPE_ENTRY);
  gtk_editable_set_text (GTK_EDITABLE (entry), "Renamed by keyboard");
  g_signal_emit_by_name (gtk_editable_get_delegate (GTK_EDITABLE (entry)), "activate");
  pd_test_wait_until (title_is, list, "the new name");
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (pd_test_a11y_focus_inside (GTK_WIDGET (list)));
}

static void
test_focus_returns (void)
{
  g_assert_cmpint (pd_test_run_showcase (0, 0, check_focus_returns, NULL), ==, 0);
}

/* Adds to @triggers the accelerator name of each key shortcut of
 * @widget's own shortcut controllers (its class bindings among them). */
static void
collect_key_shortcuts (GtkWidget  *widget,
                       GHashTable *triggers)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (shortcut);

          if (GTK_IS_KEYVAL_TRIGGER (trigger))
            g_hash_table_add (triggers,
                              gtk_accelerator_name (gtk_keyval_trigger_get_keyval (GTK_KEYVAL_TRIGGER (trigger)),
                                                    gtk_keyval_trigger_get_modifiers (GTK_KEYVAL_TRIGGER (trigger))));
        }
    }
}

/* Adds each accelerator of @accels ("<Control>q F6", or a strv) to
 * @listed in gtk_accelerator_name()'s form. */
static void
add_accelerators (GHashTable  *listed,
                  char       **accels)
{
  for (guint i = 0; accels != NULL && accels[i] != NULL; i++)
    {
      guint keyval = 0;
      GdkModifierType mods = 0;

      if (*accels[i] == '\0')
        continue;
      g_assert_true (gtk_accelerator_parse (accels[i], &keyval, &mods));
      g_hash_table_add (listed, gtk_accelerator_name (keyval, mods));
    }
}

static gboolean
is_in (gpointer key,
       gpointer value,
       gpointer table)
{
  return g_hash_table_contains (table, key);
}

/* A keysym's name, not words: a '_' between letters ("Page_Down"). */
static gboolean
shows_keysym_name (const char *text)
{
  for (const char *p = strchr (text, '_'); p != NULL; p = strchr (p + 1, '_'))
    if (p > text && g_ascii_isalnum (p[-1]) && g_ascii_isalnum (p[1]))
      return TRUE;
  return FALSE;
}

/* What the shortcuts window shows a person: no key by its keysym name
 * ("Ctrl + Page_Down") in a title or a key cap, and no two shortcuts whose
 * keys differ only by a mark of punctuation (Ctrl + , for Preferences and
 * Ctrl + . for the Now page looked the same); a key cap that is one of those
 * small marks is named in words beside it too (Preferences' "," was nearly
 * invisible, tried as a new user would: "Ctrl+Comma"). */
static void
assert_shortcuts_readable (GtkWidget *shortcuts)
{
  g_autoptr(GPtrArray) entries = g_ptr_array_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  guint n_raw = 0;
  guint n_alike = 0;

  pd_test_collect (shortcuts, GTK_TYPE_SHORTCUTS_SHORTCUT, entries);
  g_assert_cmpuint (entries->len, >, 10);
  for (guint i = 0; i < entries->len; i++)
    {
      g_autoptr(GPtrArray) labels = g_ptr_array_new ();
      g_autoptr(GString) keys = g_string_new (NULL);
      g_autofree char *title = NULL;
      char *shape;

      g_object_get (g_ptr_array_index (entries, i), "title", &title, NULL);
      pd_test_collect (g_ptr_array_index (entries, i), GTK_TYPE_LABEL, labels);
      for (guint j = 0; j < labels->len; j++)
        {
          GtkWidget *label = g_ptr_array_index (labels, j);
          const char *text = gtk_label_get_text (GTK_LABEL (label));

          if (shows_keysym_name (text))
            {
              g_test_message ("the shortcuts window shows “%s” (for “%s”)", text, title);
              n_raw++;
            }
          if (gtk_widget_get_ancestor (label, GTK_TYPE_SHORTCUT_LABEL) != NULL)
            g_string_append_printf (keys, "%s%s", keys->len > 0 ? " " : "", text);
          /* A key GTK draws as a mark or a glyph (",", "⏎", "←") is named
           * in words beside it, as README names the keys (the window
           * showed ⏎ and ← alone; tried as a new user would). */
          /* A small mark is in words on the cap itself: Preferences'
           * "," still read "Ctrl + ." beside its subtitle (nu19 #9). */
          if (gtk_widget_get_ancestor (label, GTK_TYPE_SHORTCUT_LABEL) != NULL &&
              strlen (text) == 1 && strchr (",.;:'`", text[0]) != NULL)
            {
              g_test_message ("“%s” shows the key “%s” as a mark", title, text);
              n_raw++;
            }
          if (gtk_widget_get_ancestor (label, GTK_TYPE_SHORTCUT_LABEL) != NULL &&
              g_strv_contains ((const char *[]) { "\u23ce", "\u2190", "\u2192", "\u2191", "\u2193", NULL }, text))
            {
              g_autofree char *subtitle = NULL;

              g_object_get (g_ptr_array_index (entries, i), "subtitle", &subtitle, NULL);
              if (subtitle == NULL || *subtitle == '\0')
                {
                  g_test_message ("“%s” shows the key “%s” without its name (“%s”)", title, text,
                                  subtitle ? subtitle : "");
                  n_raw++;
                }
            }
        }
      g_test_message ("%-48s %s", title, keys->str);
      /* The small marks that look alike in a key cap. The window lists
       * each shortcut twice, the second time for its search. */
      shape = g_strdelimit (g_strdup (keys->str), ",.;:'`", '.');
      if (g_strcmp0 (g_hash_table_lookup (seen, shape), title) == 0)
        g_free (shape);
      else if (g_hash_table_contains (seen, shape))
        {
          g_test_message ("“%s” and “%s” show keys that look alike: %s",
                          (char *) g_hash_table_lookup (seen, shape), title, keys->str);
          n_alike++;
          g_free (shape);
        }
      else
        g_hash_table_insert (seen, shape, g_strdup (title));
    }
  g_assert_cmpuint (n_raw, ==, 0);
  g_assert_cmpuint (n_alike, ==, 0);
}

/* Every key the application, the window and the session list bind is in
 * the shortcuts window, so the two cannot drift apart (Ctrl+Page Down and
 * Up switched pages unlisted). GTK's and libadwaita's own window keys (the
 * inspector's) are those a plain AdwApplicationWindow has too. */
static void
check_shortcuts_listed (PdApplication *app,
                        PdWindow      *window,
                        gpointer       user_data)
{
  g_autoptr(GHashTable) bound = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) toolkit = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) listed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto(GStrv) actions = gtk_application_list_action_descriptions (GTK_APPLICATION (app));
  g_autoptr(GtkBuilder) builder = NULL;
  g_autoptr(GPtrArray) shortcuts = g_ptr_array_new ();
  GtkWidget *plain = g_object_ref_sink (adw_application_window_new (NULL));
  GHashTableIter iter;
  const char *accel;
  guint n_missing = 0;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");

  collect_key_shortcuts (plain, toolkit);
  gtk_window_destroy (GTK_WINDOW (plain));
  g_object_unref (plain);
  collect_key_shortcuts (GTK_WIDGET (window), bound);
  g_hash_table_foreach_remove (bound, is_in, toolkit);
  collect_key_shortcuts (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST), bound);
  for (guint i = 0; actions[i] != NULL; i++)
    {
      g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), actions[i]);

      add_accelerators (bound, accels);
    }
  g_assert_cmpuint (g_hash_table_size (bound), >=, 10);

  builder = gtk_builder_new_from_resource ("/io/github/plandeck/Plandeck/gtk/help-overlay.ui");
  pd_test_collect (GTK_WIDGET (gtk_builder_get_object (builder, "help_overlay")),
                   GTK_TYPE_SHORTCUTS_SHORTCUT, shortcuts);
  for (guint i = 0; i < shortcuts->len; i++)
    {
      g_autofree char *accelerator = NULL;
      g_autofree char *action = NULL;
      g_auto(GStrv) parts = NULL;

      g_object_get (g_ptr_array_index (shortcuts, i), "accelerator", &accelerator,
                    "action-name", &action, NULL);
      parts = g_strsplit (accelerator != NULL ? accelerator : "", " ", -1);
      add_accelerators (listed, parts);
      if (action != NULL)
        {
          g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), action);

          g_assert_true (accels != NULL && accels[0] != NULL);
          add_accelerators (listed, accels);
        }
    }
  gtk_window_destroy (GTK_WINDOW (gtk_builder_get_object (builder, "help_overlay")));

  g_hash_table_iter_init (&iter, bound);
  while (g_hash_table_iter_next (&iter, (gpointer *) &accel, NULL))
    {
      gboolean found = g_hash_table_contains (listed, accel);

      g_test_message ("%-24s %s", accel, found ? "listed" : "NOT LISTED");
      if (!found)
        n_missing++;
    }
  g_assert_cmpuint (n_missing, ==, 0);

  /* Shown, it lays out without a warning (GTK 4.8 warned of a label at a
   * negative width with the page keys listed; warnings are fatal here). */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-help-overlay", NULL);
  pd_test_wait_until (pd_test_toplevel_shown, GSIZE_TO_POINTER (GTK_TYPE_SHORTCUTS_WINDOW),
                      "the shortcuts window");
  pd_test_flush (GTK_WIDGET (pd_test_mapped_toplevel (GTK_TYPE_SHORTCUTS_WINDOW)));
  assert_shortcuts_readable (GTK_WIDGET (pd_test_mapped_toplevel (GTK_TYPE_SHORTCUTS_WINDOW)));
  pd_test_screenshot_sizes (pd_test_mapped_toplevel (GTK_TYPE_SHORTCUTS_WINDOW), "a11y-shortcuts");
  gtk_window_close (pd_test_mapped_toplevel (GTK_TYPE_SHORTCUTS_WINDOW));
}

static void
test_shortcuts_listed (void)
{
  g_assert_cmpint (pd_test_run_showcase (0, 0, check_shortcuts_listed, NULL), ==, 0);
}

/* The rows of @view that look selected. */
static guint
n_rows_selected (GtkWidget *view)
{
  guint n = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (view); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (gtk_widget_get_child_visible (child) && (gtk_widget_get_state_flags (child) & GTK_STATE_FLAG_SELECTED))
      n++;
  return n;
}

/* The session list is one Tab stop: the arrows move between sessions,
 * Enter and Space open one (in a folded window, its pages), the Menu key
 * and Shift+F10 open the row menu of the session the focus is on. */
static void
check_session_list_keys (PdApplication *app,
                         PdWindow      *window,
                         gpointer       user_data)
{
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  GtkWidget *rows = pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_LIST_VIEW);
  AdwLeaflet *leaflet = ADW_LEAFLET (pd_test_find_widget (GTK_WIDGET (window), ADW_TYPE_LEAFLET));
  GListModel *model = G_LIST_MODEL (pd_session_list_get_model (list));
  g_autoptr(PdSessionItem) first = NULL;
  g_autoptr(PdSessionItem) second = NULL;
  GtkWidget *popover;
  GtkWidget *focused;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  g_assert_true (adw_leaflet_get_folded (leaflet));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-sessions", NULL);
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpstr (adw_leaflet_get_visible_child_name (leaflet), ==, "sidebar");
  g_assert_cmpuint (g_list_model_get_n_items (model), >=, 2);
  second = g_list_model_get_item (model, 1);
  /* Back in the list: on the open session's row. From outside it here. */
  g_assert_true (pd_test_a11y_focus_inside (rows));
  gtk_root_set_focus (GTK_ROOT (window), NULL);

  /* Tab and Shift+Tab leave the list from its first row (each row was a
   * stop of its own). */
  first = g_list_model_get_item (model, 0);
  g_assert_true (pd_session_list_select (list, pd_session_item_get_id (first)));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (gtk_widget_child_focus (rows, GTK_DIR_TAB_FORWARD));
  g_assert_true (pd_test_a11y_focus_inside (rows));
  g_assert_true (pd_test_a11y_press (rows, GDK_KEY_Tab, 0));
  g_assert_false (pd_test_a11y_focus_inside (rows));
  g_assert_true (gtk_widget_child_focus (rows, GTK_DIR_TAB_FORWARD));
  g_assert_true (pd_test_a11y_press (rows, GDK_KEY_ISO_Left_Tab, GDK_SHIFT_MASK));
  g_assert_false (pd_test_a11y_focus_inside (rows));

  /* Down moves the focus to the next session, which is not opened: each
   * arrow opened the session it passed (tried as a new user would).  The
   * open session stays the one row selected. */
  g_assert_true (gtk_widget_child_focus (rows, GTK_DIR_TAB_FORWARD));
  g_assert_true (pd_test_a11y_press (rows, GDK_KEY_Down, 0));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (pd_test_a11y_focus_inside (rows));
  focused = gtk_widget_get_first_child (gtk_root_get_focus (GTK_ROOT (window)));
  g_assert_true (PD_IS_SESSION_ROW (focused));
  g_assert_true (pd_session_row_get_item (PD_SESSION_ROW (focused)) == second);
  g_assert_true (pd_session_list_get_selected_item (list) == first);
  g_assert_cmpuint (n_rows_selected (rows), ==, 1);
  g_assert_true (pd_test_a11y_press (rows, GDK_KEY_End, 0));
  g_assert_true (pd_test_a11y_press (rows, GDK_KEY_Home, 0));
  g_assert_true (pd_test_a11y_press (rows, GDK_KEY_Down, 0));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (pd_session_list_get_selected_item (list) == first);

  /* The Menu key, then Shift+F10: the menu of that session. */
  g_assert_true (pd_test_a11y_press (GTK_WIDGET (list), GDK_KEY_Menu, 0));
  pd_test_wait_until (popover_shown, list, "the row menu from the Menu key");
  popover = pd_test_find_widget (GTK_WIDGET (list), GTK_TYPE_POPOVER_MENU);
  gtk_popover_popdown (GTK_POPOVER (popover));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (pd_test_a11y_focus_inside (rows));
  g_assert_true (pd_test_a11y_press (GTK_WIDGET (list), GDK_KEY_F10, GDK_SHIFT_MASK));
  pd_test_wait_until (popover_shown, list, "the row menu from Shift+F10");
  gtk_popover_popdown (GTK_POPOVER (popover));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (pd_test_a11y_focus_inside (rows));

  /* Enter opens the session the focus is on: the folded window shows its
   * pages. */
  g_assert_true (pd_test_a11y_press (gtk_root_get_focus (GTK_ROOT (window)), GDK_KEY_Return, 0));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpstr (adw_leaflet_get_visible_child_name (leaflet), ==, "content");
  g_assert_true (pd_session_list_get_selected_item (list) == second);
  g_assert_cmpuint (n_rows_selected (rows), ==, 1);

  /* Back, then Space opens it too. */
  g_assert_true (pd_test_a11y_press (GTK_WIDGET (window), GDK_KEY_Left, GDK_ALT_MASK));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpstr (adw_leaflet_get_visible_child_name (leaflet), ==, "sidebar");
  g_assert_true (gtk_widget_child_focus (rows, GTK_DIR_TAB_FORWARD));
  focused = gtk_widget_get_first_child (gtk_root_get_focus (GTK_ROOT (window)));
  g_assert_true (PD_IS_SESSION_ROW (focused));
  g_assert_true (pd_test_a11y_press (rows, GDK_KEY_space, 0));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpstr (adw_leaflet_get_visible_child_name (leaflet), ==, "content");
  g_assert_true (pd_session_list_get_selected_item (list) == pd_session_row_get_item (PD_SESSION_ROW (focused)));

  /* The Overview opens no session: no row looks selected beside it (the
   * first row did).  A session picked in the list leaves it. */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.show-overview", NULL);
  pd_test_flush (GTK_WIDGET (window));
  g_assert_true (pd_window_get_overview_shown (window));
  g_assert_null (pd_session_list_get_selected_item (list));
  g_assert_cmpuint (n_rows_selected (rows), ==, 0);
  g_assert_true (pd_session_list_select (list, pd_session_item_get_id (second)));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_false (pd_window_get_overview_shown (window));
  g_assert_true (pd_session_list_get_selected_item (list) == second);
  g_assert_cmpuint (n_rows_selected (rows), ==, 1);
}

static void
test_session_list_keys (void)
{
  g_assert_cmpint (pd_test_run_showcase (360, 720, check_session_list_keys, NULL), ==, 0);
}

static void
test_keyboard (void)
{
  g_assert_cmpint (pd_test_run_showcase (1200, 800, check_keyboard, NULL), ==, 0);
}

/* --- F6 lands where the person is --------------------------------------------- */

typedef struct
{
  PdWindow   *window;
  GtkWidget  *within;
  const char *prefix;   /* a label of the focused row starts so */
} FocusWait;

static gboolean
is_label_with_prefix (GtkWidget     *widget,
                      gconstpointer  prefix)
{
  return GTK_IS_LABEL (widget) && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (widget)), prefix);
}

/* The focus is on a row of @within that shows @prefix. */
static gboolean
focus_on_row (gpointer data)
{
  FocusWait *wait = data;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (wait->window));

  return focus != NULL && gtk_widget_is_ancestor (focus, wait->within) &&
         pd_test_find_first (focus, is_label_with_prefix, wait->prefix) != NULL;
}

/* The focus is on the session list's row of the open session. */
static gboolean
focus_on_open_session (gpointer data)
{
  PdWindow *window = data;
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkWidget *row = focus != NULL ? gtk_widget_get_first_child (focus) : NULL;

  return row != NULL && PD_IS_SESSION_ROW (row) && gtk_widget_is_ancestor (focus, GTK_WIDGET (list)) &&
         pd_session_row_get_item (PD_SESSION_ROW (row)) == pd_session_list_get_selected_item (list);
}

static gboolean
shows_version (gpointer data)
{
  return pd_history_view_get_selected_version (PD_HISTORY_VIEW (data)) == 6 &&
         g_list_model_get_n_items (pd_history_view_get_model (PD_HISTORY_VIEW (data))) == 6;
}

/* Tried as a new user would: on the History page, F6 went to the first
 * version (v1 while v6 was shown), then to the "Revision reason" text, the
 * message entry, and a session row that was not the open session. */
static void
check_f6 (PdApplication *app,
          PdWindow      *window,
          gpointer       user_data)
{
  const char *title = user_data;
  AdwViewStack *views = pd_test_a11y_view_stack (window);
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  GtkWidget *history = pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_HISTORY_VIEW);
  GtkWidget *versions = pd_test_find_widget (history, GTK_TYPE_LIST_VIEW);
  GListModel *sessions = G_LIST_MODEL (pd_session_list_get_model (list));
  FocusWait on_version = { window, versions, "v6 · " };
  const char *id = NULL;

  pd_test_wait_until (pd_test_a11y_window_settled, window, "the window to show a session");
  for (guint i = 0; i < g_list_model_get_n_items (sessions); i++)
    {
      g_autoptr(PdSessionItem) item = g_list_model_get_item (sessions, i);

      if (g_str_equal (pd_session_item_get_title (item), title))
        {
          g_assert_cmpuint (i, >, 0);   /* not the list's first row */
          id = pd_session_item_get_id (item);
        }
    }
  g_assert_nonnull (id);
  g_assert_true (pd_session_list_select (list, id));
  adw_view_stack_set_visible_child_name (views, "history");
  pd_test_wait_until (shows_version, history, "the History to show v6");
  pd_test_flush (GTK_WIDGET (window));

  /* From the session list to the shown version, and back to the open
   * session's row; Shift+F6 the same way. */
  g_assert_true (gtk_widget_child_focus (GTK_WIDGET (list), GTK_DIR_TAB_FORWARD));
  g_assert_true (pd_test_a11y_press (GTK_WIDGET (window), GDK_KEY_F6, 0));
  pd_test_wait_until (focus_on_row, &on_version, "the focus on v6");
  g_assert_true (pd_test_a11y_press (GTK_WIDGET (window), GDK_KEY_F6, 0));
  pd_test_wait_until (focus_on_open_session, window, "the focus on the open session's row");
  g_assert_true (pd_test_a11y_press (GTK_WIDGET (window), GDK_KEY_F6, GDK_SHIFT_MASK));
  pd_test_wait_until (focus_on_row, &on_version, "the focus on v6 again");
  g_assert_true (pd_test_a11y_press (GTK_WIDGET (window), GDK_KEY_F6, GDK_SHIFT_MASK));
  pd_test_wait_until (focus_on_open_session, window, "the focus on the open session's row again");
}

static void
test_f6 (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autofree char *id = pd_test_add_session (store, "Fix the greeting of the shell script", "plandeck");
  g_autofree char *other = NULL;
  const char *args[] = { "--db", db, NULL };

  for (gint64 v = 1; v <= 6; v++)
    {
      g_autoptr(PdPlanState) plan = pd_test_sample_plan (v);
      PdPlanStep *step = g_ptr_array_index (plan->steps, 0);

      g_free (step->note);
      step->note = g_strdup_printf ("pass %" G_GINT64_FORMAT, v);
      pd_test_save_plan (store, id, plan, PD_SESSION_STATUS_IDLE);
    }
  /* Newer, so first in the list. */
  g_usleep (20000);
  other = pd_test_add_session (store, "Document the greeting", "plandeck");
  g_assert_cmpint (pd_test_run_app (args, check_f6, (gpointer) "Fix the greeting of the shell script", NULL), ==, 0);
}

/* --- the Overview's cards ------------------------------------------------- */

typedef struct
{
  PdOverview *overview;
  guint       n;
} CardsWait;

static gboolean
has_cards (gpointer data)
{
  CardsWait *wait = data;

  return pd_overview_get_loaded (wait->overview) &&
         g_list_model_get_n_items (G_LIST_MODEL (wait->overview)) == wait->n;
}

/* The card the focus is on or in. */
static GtkWidget *
focused_card (GtkWidget          *list,
              PdOverviewCardRow **row)
{
  GtkWidget *focus = gtk_root_get_focus (gtk_widget_get_root (list));

  *row = NULL;
  for (GtkWidget *w = focus; w != NULL && w != list; w = gtk_widget_get_parent (w))
    if (PD_IS_OVERVIEW_CARD_ROW (w))
      *row = PD_OVERVIEW_CARD_ROW (w);
  return GTK_WIDGET (*row);
}

static gboolean
is_button_labelled (GtkWidget     *widget,
                    gconstpointer  label)
{
  return GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0;
}

static gboolean
is_command_label (GtkWidget     *widget,
                  gconstpointer  data)
{
  return GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "pd-approval-command");
}

/* The Overview's cards are one Tab stop, with the arrows between cards, and
 * a card that asks a question leads Tab to its Deny and Approve Once: every
 * card was a Tab stop, and the buttons of one that asked were reached by
 * no Tab one could see (tried as a new user would). */
static void
test_overview_cards (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(PdLocalSource) source = NULL;
  g_autoptr(GListStore) sources = g_list_store_new (PD_TYPE_SOURCE);
  g_autoptr(PdOverview) overview = NULL;
  g_autofree char *asking_id = NULL;
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *before = gtk_button_new_with_label ("Before");
  GtkWidget *after = gtk_button_new_with_label ("After");
  PdOverviewView *view;
  PdOverviewCardRow *row;
  GtkWidget *list, *card, *first, *focus;
  GtkWindow *window;
  CardsWait wait;

  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *title = g_strdup_printf ("Work %u", i);
      g_autofree char *id = pd_test_add_session (store, title, "plandeck");
      g_autoptr(PdPlanState) plan = pd_test_sample_plan (1);

      pd_test_save_plan (store, id, plan, PD_SESSION_STATUS_RUNNING);
      if (i == 1)
        asking_id = g_steal_pointer (&id);
    }
  source = pd_local_source_new (db, FALSE);
  g_list_store_append (sources, source);
  overview = pd_overview_new (G_LIST_MODEL (sources));
  view = PD_OVERVIEW_VIEW (pd_overview_view_new ());
  pd_overview_view_set_overview (view, overview);
  gtk_widget_set_vexpand (GTK_WIDGET (view), TRUE);
  gtk_box_append (GTK_BOX (box), before);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (view));
  gtk_box_append (GTK_BOX (box), after);
  window = pd_test_present (box, 600, 700);
  wait = (CardsWait) { overview, 3 };
  pd_test_wait_until (has_cards, &wait, "3 cards");
  pd_overview_set_local_approval (overview, PD_SOURCE (source), asking_id, "shell", "make", NULL, 1);
  pd_test_flush (GTK_WIDGET (window));
  list = pd_test_find_widget (GTK_WIDGET (view), GTK_TYPE_LIST_VIEW);

  /* Into the list: the first card takes the focus whole (it asks).  The
   * ring shown as the Tab press shows it: GTK 4.8 hides it 3 s after the
   * last key, and turned on before the cards were read it could be gone
   * under load. */
  gtk_widget_grab_focus (before);
  gtk_window_set_focus_visible (window, TRUE);
  g_assert_true (gtk_widget_child_focus (GTK_WIDGET (window), GTK_DIR_TAB_FORWARD));
  first = focused_card (list, &row);
  g_assert_nonnull (first);
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == first);
  g_assert_true (gtk_widget_is_drawable (first));
  g_assert_true (gtk_widget_get_state_flags (first) & GTK_STATE_FLAG_FOCUS_VISIBLE);
  g_assert_cmpstr (pd_overview_card_get_session_id (pd_overview_card_row_get_card (row)), ==, asking_id);

  /* Tab: its command, its Deny, then Approve Once, then out of the list. */
  g_assert_true (pd_test_a11y_press (list, GDK_KEY_Tab, 0));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == pd_test_find_first (first, is_command_label, NULL));
  g_test_message ("the command focused: %s", gtk_label_get_selection_bounds (GTK_LABEL (pd_test_find_first (first, is_command_label, NULL)), NULL, NULL) ? "selected" : "not selected");
  g_assert_true (pd_test_a11y_press (list, GDK_KEY_Tab, 0));
  focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_true (focus == pd_test_find_first (first, is_button_labelled, "_Deny"));
  /* The command's selection let go with the focus (it stayed grey). */
  g_assert_false (gtk_label_get_selection_bounds (GTK_LABEL (pd_test_find_first (first, is_command_label, NULL)), NULL, NULL));
  g_assert_true (gtk_widget_is_drawable (focus));
  g_assert_true (pd_test_a11y_press (list, GDK_KEY_Tab, 0));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == pd_test_find_first (first, is_button_labelled, "_Approve Once"));
  /* Shift+Tab goes back through them to the card. */
  g_assert_true (pd_test_a11y_press (list, GDK_KEY_ISO_Left_Tab, GDK_SHIFT_MASK));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == pd_test_find_first (first, is_button_labelled, "_Deny"));
  g_assert_true (pd_test_a11y_press (list, GDK_KEY_ISO_Left_Tab, GDK_SHIFT_MASK));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == pd_test_find_first (first, is_command_label, NULL));
  g_assert_true (pd_test_a11y_press (list, GDK_KEY_ISO_Left_Tab, GDK_SHIFT_MASK));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == first);
  for (guint i = 0; i < 4; i++)
    g_assert_true (pd_test_a11y_press (list, GDK_KEY_Tab, 0));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == after);

  /* Back in: Down goes to the next card, whole; Tab from a card that asks
   * nothing leaves the list, as Shift+Tab from a card does. */
  g_assert_true (gtk_widget_child_focus (list, GTK_DIR_TAB_FORWARD));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == first);
  g_assert_true (pd_test_a11y_press (list, GDK_KEY_Down, 0));
  card = focused_card (list, &row);
  g_assert_nonnull (card);
  g_assert_true (card != first);
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == card);
  g_assert_true (gtk_widget_is_drawable (card));
  g_assert_true (pd_test_a11y_press (list, GDK_KEY_Tab, 0));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == after);
  g_assert_true (gtk_widget_child_focus (list, GTK_DIR_TAB_FORWARD));
  g_assert_true (pd_test_a11y_press (list, GDK_KEY_ISO_Left_Tab, GDK_SHIFT_MASK));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == before);
  /* Up, back to the card that asks: the card again, not its buttons. */
  g_assert_true (gtk_widget_child_focus (list, GTK_DIR_TAB_FORWARD));
  g_assert_true (pd_test_a11y_press (list, GDK_KEY_Up, 0));
  g_assert_true (gtk_root_get_focus (GTK_ROOT (window)) == first);

  gtk_window_destroy (window);
}

typedef struct
{
  PdOverview *overview;
  PdSource   *source;
  guint       answered;
  guint       wanted;
} Answering;

static gboolean
answered (gpointer data)
{
  Answering *answering = data;

  return answering->answered >= answering->wanted;
}

typedef struct
{
  GtkWidget  *list;
  const char *left;
} Landing;

/* The focus is on a card drawn, not the one left. */
static gboolean
on_other_card (gpointer data)
{
  Landing *landing = data;
  GtkWidget *focus = gtk_root_get_focus (gtk_widget_get_root (landing->list));
  PdOverviewCardRow *row;

  return focus != NULL && gtk_widget_is_drawable (focus) && focused_card (landing->list, &row) == focus &&
         pd_overview_card_row_get_card (row) != NULL &&
         g_strcmp0 (pd_overview_card_get_session_id (pd_overview_card_row_get_card (row)), landing->left) != 0;
}

/* What the window does with an answer: the run is told, the card's
 * question goes. */
static void
on_view_answer (PdOverviewView *view,
                PdOverviewCard *card,
                gboolean        approve,
                PdRemoteRun    *run,
                guint           serial,
                Answering      *answering)
{
  answering->answered++;
  pd_overview_set_local_approval (answering->overview, answering->source,
                                  pd_overview_card_get_session_id (card), NULL, NULL, NULL, 0);
}

typedef struct
{
  GtkWindow *window;
  GtkWidget *list;
} TabIn;

/* Tab into the view from nothing focused: the focus lands on a card,
 * whole (never on what is inside it), and once the list has made the
 * row of the card that asks, on that card.  From nothing: on a loaded
 * machine the cards came before the window was mapped, GTK gave the
 * first card the focus as the window's first, and the test's own Tab
 * went on from there, into that card's command (seen 13 runs in 25 with
 * three busy loops beside it). */
static gboolean
tab_lands_on_asking_card (gpointer data)
{
  TabIn *in = data;
  PdOverviewCardRow *row;
  GtkWidget *card;

  gtk_window_set_focus (in->window, NULL);
  if (!gtk_widget_child_focus (GTK_WIDGET (in->window), GTK_DIR_TAB_FORWARD))
    return FALSE;
  card = focused_card (in->list, &row);
  g_assert_nonnull (card);
  g_assert_true (gtk_root_get_focus (GTK_ROOT (in->window)) == card);
  return pd_overview_card_has_approval (pd_overview_card_row_get_card (row));
}

/* Tab from a card that asks goes to its command: selectable, named, shown
 * from its start; then to Deny. */
static void
assert_command_stop (GtkWindow *window,
                     GtkWidget *list,
                     GtkWidget *card)
{
  g_autofree char *name = NULL;
  GtkWidget *focus, *label, *scroller;
  GtkAdjustment *hadjustment;

  g_assert_true (pd_test_a11y_press (list, GDK_KEY_Tab, 0));
  focus = gtk_root_get_focus (GTK_ROOT (window));
  label = pd_test_find_first (card, is_command_label, NULL);
  g_assert_nonnull (label);
  if (focus != label)
    g_error ("Tab from a card that asks went to %s, not to its command",
             focus != NULL ? G_OBJECT_TYPE_NAME (focus) : "nothing");
  g_assert_true (gtk_label_get_selectable (GTK_LABEL (label)));
  name = pd_test_a11y_name (label);
  g_test_message ("the command's name: “%.60s…”", name);
  g_assert_true (g_str_has_prefix (name, "Command: make check && echo step-0-of-a-long-line"));
  /* GTK scrolled to the focus in an animation: frames for it to end. */
  for (guint i = 0; i < 20; i++)
    pd_test_flush (GTK_WIDGET (window));
  scroller = gtk_widget_get_ancestor (label, GTK_TYPE_SCROLLED_WINDOW);
  hadjustment = gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (scroller));
  g_test_message ("the command scrolls %.0f of %.0f px, at %.0f", gtk_adjustment_get_upper (hadjustment),
                  gtk_adjustment_get_page_size (hadjustment), gtk_adjustment_get_value (hadjustment));
  g_assert_cmpfloat (gtk_adjustment_get_upper (hadjustment), >, gtk_adjustment_get_page_size (hadjustment));
  g_assert_cmpfloat (gtk_adjustment_get_value (hadjustment), ==, gtk_adjustment_get_lower (hadjustment));
  g_assert_true (pd_test_a11y_press (list, GDK_KEY_Tab, 0));
  focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_true (focus == pd_test_find_first (card, is_button_labelled, "_Deny"));
}

/* overview-answered: a card's question answered from the keyboard (Deny,
 * then Approve Once on the next question): the focus goes to the card now
 * in that place, the next that needs the person, drawn.  The answered
 * buttons went away with the focus on them, and the focus followed the
 * answered card to its new place further down, or went to nothing (tried
 * with the keyboard alone).  overview-command: the command asked about is
 * a named Tab stop of its own before Deny, its text selectable, shown from
 * its start (a screen reader could not reach it; focused, it scrolled to
 * its end). */
static void
test_overview_asking (gconstpointer data)
{
  gboolean answers = GPOINTER_TO_INT (data);
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(PdLocalSource) source = NULL;
  g_autoptr(GListStore) sources = g_list_store_new (PD_TYPE_SOURCE);
  g_autoptr(PdOverview) overview = NULL;
  g_autoptr(GString) command = g_string_new ("make check && ");
  g_autofree char *answered_id = NULL;
  char *ids[3] = { NULL, NULL, NULL };
  PdOverviewView *view;
  PdOverviewCardRow *row;
  GtkWidget *list, *card, *focus;
  GtkWindow *window;
  CardsWait wait;
  Answering answering = { 0 };
  Landing landing;
  TabIn tab_in;

  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *title = g_strdup_printf ("Work %u", i);
      g_autoptr(PdPlanState) plan = pd_test_sample_plan (1);

      ids[i] = pd_test_add_session (store, title, "plandeck");
      pd_test_save_plan (store, ids[i], plan, PD_SESSION_STATUS_RUNNING);
    }
  /* One line, wider than the card: it scrolls sideways. */
  for (guint i = 0; i < 12; i++)
    g_string_append_printf (command, "echo step-%u-of-a-long-line && ", i);
  g_string_append (command, "echo end-of-the-command");
  source = pd_local_source_new (db, FALSE);
  g_list_store_append (sources, source);
  overview = pd_overview_new (G_LIST_MODEL (sources));
  view = PD_OVERVIEW_VIEW (pd_overview_view_new ());
  pd_overview_view_set_overview (view, overview);
  answering = (Answering) { overview, PD_SOURCE (source), 0, 0 };
  g_signal_connect (view, "answer", G_CALLBACK (on_view_answer), &answering);
  window = pd_test_present (GTK_WIDGET (view), 600, 700);
  gtk_window_set_focus_visible (window, TRUE);
  wait = (CardsWait) { overview, 3 };
  pd_test_wait_until (has_cards, &wait, "3 cards");
  pd_overview_set_local_approval (overview, PD_SOURCE (source), ids[0], "shell", command->str, NULL, 1);
  pd_overview_set_local_approval (overview, PD_SOURCE (source), ids[2], "shell", command->str, NULL, 2);
  pd_test_flush (GTK_WIDGET (window));
  list = pd_test_find_widget (GTK_WIDGET (view), GTK_TYPE_LIST_VIEW);

  /* The first card asks: Tab goes to its command, then Deny. */
  tab_in = (TabIn) { window, list };
  pd_test_wait_until (tab_lands_on_asking_card, &tab_in, "a Tab landing on the card that asks");
  card = focused_card (list, &row);
  g_assert_nonnull (card);
  answered_id = g_strdup (pd_overview_card_get_session_id (pd_overview_card_row_get_card (row)));
  pd_overview_card_row_set_answer_guard (row, 0);
  if (!answers)
    {
      assert_command_stop (window, list, card);
      gtk_window_destroy (window);
      for (guint i = 0; i < 3; i++)
        g_free (ids[i]);
      return;
    }
  focus = pd_test_find_first (card, is_button_labelled, "_Deny");
  g_assert_true (gtk_widget_grab_focus (focus));

  /* Deny: the focus goes on to the card in its place, the other that asks. */
  answering.wanted = 1;
  gtk_widget_activate (focus);
  pd_test_wait_until (answered, &answering, "the Deny to be taken");
  landing = (Landing) { list, answered_id };
  pd_test_wait_until (on_other_card, &landing, "the focus on the next card after Deny");
  card = focused_card (list, &row);
  g_test_message ("after Deny on %s the focus is on %s's card", answered_id,
                  pd_overview_card_get_session_id (pd_overview_card_row_get_card (row)));
  g_assert_true (pd_overview_card_has_approval (pd_overview_card_row_get_card (row)));

  /* Approve Once on that one, from the keyboard: the focus on the card
   * in its place, the one answered first. */
  g_free (answered_id);
  answered_id = g_strdup (pd_overview_card_get_session_id (pd_overview_card_row_get_card (row)));
  pd_overview_card_row_set_answer_guard (row, 0);
  g_assert_true (pd_test_a11y_press (list, GDK_KEY_Tab, 0));
  g_assert_true (pd_test_a11y_press (list, GDK_KEY_Tab, 0));
  g_assert_true (pd_test_a11y_press (list, GDK_KEY_Tab, 0));
  focus = gtk_root_get_focus (GTK_ROOT (window));
  g_assert_true (focus == pd_test_find_first (card, is_button_labelled, "_Approve Once"));
  answering.wanted = 2;
  gtk_widget_activate (focus);
  pd_test_wait_until (answered, &answering, "the Approve Once to be taken");
  landing = (Landing) { list, answered_id };
  pd_test_wait_until (on_other_card, &landing, "the focus on the next card after Approve Once");

  gtk_window_destroy (window);
  for (guint i = 0; i < 3; i++)
    g_free (ids[i]);
}

/* A card that comes first while the cards are at their top shows there:
 * the window opened with its first card half out of sight above, and new
 * cards went there too (tried as a new user would). */
static void
test_overview_new_on_top (void)
{
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  g_autoptr(PdSessionStore) store = pd_test_open_store (db);
  g_autoptr(PdLocalSource) source = NULL;
  g_autoptr(GListStore) sources = g_list_store_new (PD_TYPE_SOURCE);
  g_autoptr(PdOverview) overview = NULL;
  g_autoptr(PdOverviewCard) first = NULL;
  g_autoptr(PdPlanState) plan = pd_test_sample_plan (1);
  g_autofree char *id = NULL;
  PdOverviewView *view;
  GtkAdjustment *adjustment;
  GtkWidget *list, *row = NULL;
  GtkWindow *window;
  CardsWait wait;
  graphene_rect_t bounds;

  for (guint i = 0; i < 12; i++)
    {
      g_autofree char *title = g_strdup_printf ("Work %u", i);
      g_autofree char *older = pd_test_add_session (store, title, "plandeck");

      pd_test_save_plan (store, older, plan, PD_SESSION_STATUS_RUNNING);
    }
  source = pd_local_source_new (db, FALSE);
  g_list_store_append (sources, source);
  overview = pd_overview_new (G_LIST_MODEL (sources));
  view = PD_OVERVIEW_VIEW (pd_overview_view_new ());
  pd_overview_view_set_overview (view, overview);
  window = pd_test_present (GTK_WIDGET (view), 600, 500);
  wait = (CardsWait) { overview, 12 };
  pd_test_wait_until (has_cards, &wait, "12 cards");
  pd_test_flush (GTK_WIDGET (window));
  list = pd_test_find_widget (GTK_WIDGET (view), GTK_TYPE_LIST_VIEW);
  adjustment = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (list));
  g_assert_true (gtk_adjustment_get_upper (adjustment) > gtk_adjustment_get_page_size (adjustment));
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, gtk_adjustment_get_lower (adjustment));

  g_usleep (20000);
  id = pd_test_add_session (store, "Started just now", "plandeck");
  pd_test_save_plan (store, id, plan, PD_SESSION_STATUS_RUNNING);
  pd_overview_refresh_source (overview, PD_SOURCE (source));
  wait = (CardsWait) { overview, 13 };
  pd_test_wait_until (has_cards, &wait, "the new card");
  first = g_list_model_get_item (G_LIST_MODEL (overview), 0);
  g_assert_cmpstr (pd_overview_card_get_session_id (first), ==, id);
  pd_test_flush (GTK_WIDGET (window));
  pd_test_flush (GTK_WIDGET (window));
  pd_test_flush (GTK_WIDGET (window));
  g_assert_cmpfloat (gtk_adjustment_get_value (adjustment), ==, gtk_adjustment_get_lower (adjustment));
  for (GtkWidget *child = gtk_widget_get_first_child (list); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (gtk_widget_get_first_child (child) != NULL &&
        pd_overview_card_row_get_card (PD_OVERVIEW_CARD_ROW (gtk_widget_get_first_child (child))) == first)
      row = child;
  g_assert_nonnull (row);
  g_assert_true (gtk_widget_get_mapped (row));
  g_assert_true (gtk_widget_compute_bounds (row, list, &bounds));
  g_assert_cmpfloat (bounds.origin.y, >=, 0);

  gtk_window_destroy (window);
}

int
main (int   argc,
      char *argv[])
{
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add_func ("/pd/ui/a11y/keyboard/pages", test_keyboard);
  g_test_add_func ("/pd/ui/a11y/keyboard/focus-returns", test_focus_returns);
  g_test_add_func ("/pd/ui/a11y/keyboard/session-list", test_session_list_keys);
  g_test_add_func ("/pd/ui/a11y/keyboard/shortcuts-listed", test_shortcuts_listed);
  g_test_add_func ("/pd/ui/a11y/keyboard/f6-lands", test_f6);
  g_test_add_func ("/pd/ui/a11y/keyboard/overview-cards", test_overview_cards);
  g_test_add_func ("/pd/ui/a11y/keyboard/overview-new-on-top", test_overview_new_on_top);
  g_test_add_data_func ("/pd/ui/a11y/keyboard/overview-command", GINT_TO_POINTER (FALSE), test_overview_asking);
  g_test_add_data_func ("/pd/ui/a11y/keyboard/overview-answered", GINT_TO_POINTER (TRUE), test_overview_asking);
  pd_test_a11y_keyboard_add_landing ();

  return g_test_run ();
}
