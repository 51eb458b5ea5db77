/* pd-test-a11y-keys.c: keys pressed as GTK gives them, where the focus is,
 * and the set-up of the a11y tests' windows
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shared by the a11y tests (test-a11y-*.c): a key given to the focus
 * widget's shortcuts, then to each ancestor's up to the window's, and the
 * checks of where it landed; large text, a dialog opened from the window,
 * what keeps a window from narrowing.  Each test had its own copy of these,
 * some a little apart from the others.
 */
#include "config.h"

#include "pd-session-item.h"
#include "pd-session-list.h"
#include "pd-session-row.h"
#include "pd-test-a11y.h"
#include "pd-test-a11y-keys.h"
#include "pd-test-ui.h"

#ifdef GDK_WINDOWING_X11
#include <gdk/x11/gdkx.h>
#endif

/* Activates @widget's shortcut for the key, of its controllers of the
 * capture phase or of the others. */
static gboolean
press_in_phase (GtkWidget       *widget,
                guint            keyval,
                GdkModifierType  mods,
                gboolean         capture)
{
  g_autoptr(GtkShortcutTrigger) wanted = gtk_keyval_trigger_new (keyval, mods);
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller) ||
          (gtk_event_controller_get_propagation_phase (GTK_EVENT_CONTROLLER (controller)) == GTK_PHASE_CAPTURE) != capture)
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);

          if (gtk_shortcut_trigger_equal (gtk_shortcut_get_trigger (shortcut), wanted) &&
              gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut), 0, widget,
                                            gtk_shortcut_get_arguments (shortcut)))
            return TRUE;
        }
    }
  return FALSE;
}

/* A key pressed with the focus where it is, as GTK delivers it: the
 * capture phase from the window down to the focus widget, then the focus
 * widget's shortcuts and each ancestor's up to the window's. A GtkPaned
 * on the way took F6 before the window's own (tried with the keyboard
 * alone). */
gboolean
pd_test_a11y_key (PdWindow        *window,
                  guint            keyval,
                  GdkModifierType  mods)
{
  return pd_test_a11y_key_in (GTK_WINDOW (window), keyval, mods);
}

/* As pd_test_a11y_key(), in any window (a dialog). */
gboolean
pd_test_a11y_key_in (GtkWindow       *window,
                     guint            keyval,
                     GdkModifierType  mods)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  g_autoptr(GPtrArray) chain = g_ptr_array_new ();

  /* GTK shows the focus ring at each key press it handles, and hides it
   * 3 s after the last (GTK 4.8's unset_focus_visible). */
  gtk_window_set_focus_visible (window, TRUE);
  for (GtkWidget *w = focus != NULL ? focus : GTK_WIDGET (window); w != NULL; w = gtk_widget_get_parent (w))
    g_ptr_array_insert (chain, 0, w);
  for (guint i = 0; i < chain->len; i++)
    if (press_in_phase (g_ptr_array_index (chain, i), keyval, mods, TRUE))
      return TRUE;
  for (guint i = chain->len; i > 0; i--)
    if (press_in_phase (g_ptr_array_index (chain, i - 1), keyval, mods, FALSE))
      return TRUE;
  /* Then the window's own move-focus, which wraps at the end. */
  if (keyval == GDK_KEY_Tab || keyval == GDK_KEY_ISO_Left_Tab)
    {
      GtkDirectionType direction = keyval == GDK_KEY_Tab ? GTK_DIR_TAB_FORWARD : GTK_DIR_TAB_BACKWARD;

      if (gtk_widget_child_focus (GTK_WIDGET (window), direction))
        return TRUE;
      gtk_root_set_focus (GTK_ROOT (window), NULL);
      return gtk_widget_child_focus (GTK_WIDGET (window), direction);
    }
  return FALSE;
}

/* Why @widget, given the focus, is not seen, or %NULL when it is: not
 * drawn, in a stack page that is not the one shown, or see-through. */
const char *
pd_test_a11y_why_unseen (GtkWidget *widget)
{
  if (!gtk_widget_is_drawable (widget))
    return "not drawn";
  for (GtkWidget *w = widget; w != NULL; w = gtk_widget_get_parent (w))
    {
      GtkWidget *parent = gtk_widget_get_parent (w);

      if (gtk_widget_get_opacity (w) == 0)
        return "see-through";
      if (!gtk_widget_get_child_visible (w))
        return "a hidden child";
      if (parent != NULL && GTK_IS_STACK (parent) &&
          gtk_stack_get_visible_child (GTK_STACK (parent)) != w)
        return "in a stack page not shown";
      if (parent != NULL && ADW_IS_VIEW_STACK (parent) &&
          adw_view_stack_get_visible_child (ADW_VIEW_STACK (parent)) != w)
        return "in a view stack page not shown";
    }
  return NULL;
}

char *
pd_test_a11y_describe (GtkWidget *widget)
{
  GString *path = g_string_new (NULL);

  for (GtkWidget *w = widget; w != NULL && !GTK_IS_ROOT (w); w = gtk_widget_get_parent (w))
    {
      g_string_prepend (path, G_OBJECT_TYPE_NAME (w));
      g_string_prepend_c (path, '/');
    }
  return g_string_free (path, FALSE);
}

/* The focus is in the shown page of the session, on a widget one sees. */
gboolean
pd_test_a11y_focus_in_page (gpointer data)
{
  PdWindow *window = data;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkWidget *page = adw_view_stack_get_visible_child (pd_test_a11y_view_stack (window));

  return focus != NULL && page != NULL && gtk_widget_is_ancestor (focus, page) && pd_test_a11y_why_unseen (focus) == NULL;
}

/* The focus is on the session list's row of the open session. */
gboolean
pd_test_a11y_focus_on_open_row (gpointer data)
{
  PdWindow *window = data;
  PdSessionList *list = PD_SESSION_LIST (pd_test_find_widget (GTK_WIDGET (window), PD_TYPE_SESSION_LIST));
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkWidget *row = focus != NULL ? gtk_widget_get_first_child (focus) : NULL;

  return row != NULL && PD_IS_SESSION_ROW (row) && pd_test_a11y_why_unseen (focus) == NULL &&
         pd_session_row_get_item (PD_SESSION_ROW (row)) == pd_session_list_get_selected_item (list);
}

/* The session item of the row the focus is on, or %NULL. */
PdSessionItem *
pd_test_a11y_focused_item (PdWindow *window)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (window));
  GtkWidget *row = focus != NULL ? gtk_widget_get_first_child (focus) : NULL;

  return row != NULL && PD_IS_SESSION_ROW (row) ? pd_session_row_get_item (PD_SESSION_ROW (row)) : NULL;
}

/* With the arrows, from the list's first row down to @title's. */
void
pd_test_a11y_arrow_to (PdWindow   *window,
                       GtkWidget  *rows,
                       const char *title)
{
  if (!pd_test_a11y_focus_inside (rows))
    g_assert_true (gtk_widget_child_focus (rows, GTK_DIR_TAB_FORWARD));
  g_assert_true (pd_test_a11y_key (window, GDK_KEY_Home, 0));
  pd_test_flush (GTK_WIDGET (window));
  for (guint i = 0; i < 20 && g_strcmp0 (pd_session_item_get_title (pd_test_a11y_focused_item (window)), title) != 0; i++)
    {
      g_assert_true (pd_test_a11y_key (window, GDK_KEY_Down, 0));
      pd_test_flush (GTK_WIDGET (window));
    }
  g_assert_cmpstr (pd_session_item_get_title (pd_test_a11y_focused_item (window)), ==, title);
}

/**
 * pd_test_a11y_x11_key:
 * @window: a shown window
 * @keys: keys as xdotool names them, apart by spaces ("F6", "ctrl+f",
 *   "e x p o r t")
 *
 * Presses @keys through the X server (xdotool) with the pointer over
 * @window, as a person does: GTK gets real key events, press and release,
 * through its event controllers, not only its shortcuts.  The main loop
 * runs until they arrived.
 *
 * Returns: %FALSE when it cannot (no xdotool, not on X11): the caller skips
 */
gboolean
pd_test_a11y_x11_key (GtkWindow  *window,
                      const char *keys)
{
#ifdef GDK_WINDOWING_X11
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (window));
  g_autofree char *window_id = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  if (xdotool == NULL || surface == NULL || !GDK_IS_X11_SURFACE (surface))
    return FALSE;
  window_id = g_strdup_printf ("%lu", (gulong) gdk_x11_surface_get_xid (surface));
  {
    /* No window manager under Xvfb: the key goes where the pointer is. */
    g_auto(GStrv) each = g_strsplit (keys, " ", -1);
    g_autoptr(GPtrArray) argv = g_ptr_array_new ();
    const char *start[] = { xdotool, "mousemove", "--window", window_id, "1", "1", "key", "--delay", "20" };

    for (guint i = 0; i < G_N_ELEMENTS (start); i++)
      g_ptr_array_add (argv, (gpointer) start[i]);
    for (guint i = 0; each[i] != NULL; i++)
      g_ptr_array_add (argv, each[i]);
    g_ptr_array_add (argv, NULL);
    g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status,
                                 &error));
  }
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  /* The server has them: the round trip makes GDK read them. */
  gdk_display_sync (gtk_widget_get_display (GTK_WIDGET (window)));
  for (guint i = 0; i < 3; i++)
    pd_test_flush (GTK_WIDGET (window));
  return TRUE;
#else
  return FALSE;
#endif
}

/* Whether real keys can be pressed (xdotool on an X server). */
gboolean
pd_test_a11y_x11_keys_work (void)
{
#ifdef GDK_WINDOWING_X11
  g_autofree char *xdotool = g_find_program_in_path ("xdotool");

  return GDK_IS_X11_DISPLAY (gdk_display_get_default ()) && xdotool != NULL;
#else
  return FALSE;
#endif
}

/* --- the windows' set-up ------------------------------------------------- */

/**
 * pd_test_a11y_large_text:
 *
 * Sets gtk-xft-dpi at 1.5×, as Large Text or a font scaling of 1.5 sets
 * it.
 *
 * Returns: the dpi it had, to set back
 */
int
pd_test_a11y_large_text (void)
{
  GtkSettings *gtk_settings = gtk_settings_get_default ();
  int dpi = 0;

  g_object_get (gtk_settings, "gtk-xft-dpi", &dpi, NULL);
  if (dpi <= 0)
    dpi = 96 * 1024;
  g_object_set (gtk_settings, "gtk-xft-dpi", dpi * 3 / 2, NULL);
  return dpi;
}

/**
 * pd_test_a11y_print_wide:
 * @limit: the width, in px
 * @depth: how far in @widget is, for the indent
 *
 * Prints, from @widget down, the children whose minimum width passes
 * @limit (a label's text with it): what keeps the window from narrowing.
 */
void
pd_test_a11y_print_wide (GtkWidget *widget,
                         int        limit,
                         guint      depth)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      int minimum = 0;

      if (!gtk_widget_get_visible (child))
        continue;
      gtk_widget_measure (child, GTK_ORIENTATION_HORIZONTAL, -1, &minimum, NULL, NULL, NULL);
      if (minimum > limit)
        {
          g_test_message ("%*s%s (%s%s%s) needs %d px", (int) depth * 2, "", G_OBJECT_TYPE_NAME (child),
                          gtk_widget_get_css_name (child), GTK_IS_LABEL (child) ? " " : "",
                          GTK_IS_LABEL (child) ? gtk_label_get_text (GTK_LABEL (child)) : "", minimum);
          pd_test_a11y_print_wide (child, limit, depth + 1);
        }
    }
}

/**
 * pd_test_a11y_open_dialog:
 * @action: the window's action that opens it ("win.preferences")
 * @type: the dialog's type
 * @what: (nullable): named if it never comes; %NULL for @action
 *
 * Returns: (transfer none): the dialog, shown and drawn
 */
GtkWindow *
pd_test_a11y_open_dialog (PdWindow   *window,
                          const char *action,
                          GType       type,
                          const char *what)
{
  GtkWindow *dialog;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), action, NULL));
  pd_test_wait_until (pd_test_toplevel_shown, GSIZE_TO_POINTER (type), what != NULL ? what : action);
  dialog = pd_test_mapped_toplevel (type);
  pd_test_flush (GTK_WIDGET (dialog));
  return dialog;
}

/* The header's Search button (pd_test_find_first()). */
gboolean
pd_test_a11y_is_search_button (GtkWidget     *widget,
                               gconstpointer  data)
{
  return GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), "win.search") == 0;
}

/* pd_test_wait_until() conditions: the focus is in @widget; @widget is not
 * shown (a search bar closed). */
gboolean
pd_test_a11y_focus_is_in (gpointer widget)
{
  return pd_test_a11y_focus_inside (widget);
}

gboolean
pd_test_a11y_unmapped (gpointer widget)
{
  return !gtk_widget_get_mapped (widget);
}
