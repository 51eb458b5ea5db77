/* pd-list-stop-util.c: a list box that is one Tab stop, its rows reached with the arrows
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GTK 4.8's list box makes every focusable row a Tab stop: History's
 * detail pane was a stop for each plan step, each change (and the
 * selectable label in it), tried with a screen reader and the keyboard.
 * _pd_list_one_tab_stop() answers the Tab key, but the focus chain the
 * window walks (and what a reader's "next focusable" follows) still
 * holds every row.  Here, with the focus outside the list, only its first
 * and last rows are focusable (Tab comes in at the first, Shift+Tab at
 * the last: a list box enters at its first or last row, and passes by
 * when that one cannot take the focus); with the focus on a row, only
 * that row.  Up, Down, Home and End move the focus to the others (the
 * list box's own cursor keys pass over rows that are not focusable).
 * From a row, the focus chain goes on out of the list: the next row is not
 * focusable.  (A list of two rows is two stops of the focus chain; the Tab
 * key itself leaves it from either, _pd_list_one_tab_stop().)
 */
#define G_LOG_DOMAIN "pd-ui"

#include "config.h"

#include "pd-ui-util-private.h"

#define ROVING_KEY "pd-list-stop-row"

/* @row the list's one stop; the other rows that take part, none. */
static void
set_stop (GtkWidget *list,
          GtkWidget *stop)
{
  for (GtkWidget *row = gtk_widget_get_first_child (list); row != NULL; row = gtk_widget_get_next_sibling (row))
    if (g_object_get_data (G_OBJECT (row), ROVING_KEY) != NULL)
      gtk_widget_set_focusable (row, row == stop);
}

static gboolean
is_roving (GtkWidget *row);

/* The focus outside: the first and the last row take it as it comes in. */
static void
set_ends (GtkWidget *list)
{
  GtkWidget *first = NULL;
  GtkWidget *last = NULL;

  for (GtkWidget *row = gtk_widget_get_first_child (list); row != NULL; row = gtk_widget_get_next_sibling (row))
    if (is_roving (row))
      {
        first = first != NULL ? first : row;
        last = row;
      }
  set_stop (list, first);
  if (last != NULL)
    gtk_widget_set_focusable (last, TRUE);
}

static void
on_list_leave (GtkEventControllerFocus *controller,
               gpointer                 user_data)
{
  GtkWidget *list = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller));
  GtkRoot *root = gtk_widget_get_root (list);
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  /* The window left, the focus still on the row: it stays the stop. */
  if (focus != NULL && gtk_widget_is_ancestor (focus, list))
    return;
  set_ends (list);
}

static void
on_row_enter (GtkEventControllerFocus *controller,
              gpointer                 user_data)
{
  GtkWidget *row = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller));
  GtkWidget *list = gtk_widget_get_parent (row);

  if (list != NULL)
    set_stop (list, row);
}

static gboolean
is_roving (GtkWidget *row)
{
  return row != NULL && g_object_get_data (G_OBJECT (row), ROVING_KEY) != NULL &&
         gtk_widget_get_visible (row) && gtk_widget_is_sensitive (row);
}

/* Up, Down (by one row), Home and End (to the first and the last). */
static gboolean
move_in_list (GtkWidget *list,
              GVariant  *args,
              gpointer   user_data)
{
  int step = g_variant_get_int32 (args);
  GtkRoot *root = gtk_widget_get_root (list);
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  GtkWidget *from = focus != NULL ? gtk_widget_get_ancestor (focus, GTK_TYPE_LIST_BOX_ROW) : NULL;
  GtkWidget *to = NULL;

  if (from == NULL || gtk_widget_get_parent (from) != list || !is_roving (from))
    return FALSE;
  if (step == -2 || step == 2)
    {
      for (GtkWidget *row = step < 0 ? gtk_widget_get_first_child (list) : gtk_widget_get_last_child (list);
           row != NULL && to == NULL;
           row = step < 0 ? gtk_widget_get_next_sibling (row) : gtk_widget_get_prev_sibling (row))
        if (is_roving (row))
          to = row;
    }
  else
    {
      for (GtkWidget *row = step < 0 ? gtk_widget_get_prev_sibling (from) : gtk_widget_get_next_sibling (from);
           row != NULL && to == NULL;
           row = step < 0 ? gtk_widget_get_prev_sibling (row) : gtk_widget_get_next_sibling (row))
        if (is_roving (row))
          to = row;
    }
  /* At an end: the focus stays, and the key is taken (as the list's own). */
  if (to == NULL)
    return TRUE;
  set_stop (list, to);
  gtk_widget_grab_focus (to);
  return TRUE;
}

static void
take_arrows (GtkWidget *list)
{
  GtkEventController *controller = gtk_shortcut_controller_new ();
  const struct { guint keyval; int step; } keys[] = {
    { GDK_KEY_Up, -1 }, { GDK_KEY_KP_Up, -1 }, { GDK_KEY_Down, 1 }, { GDK_KEY_KP_Down, 1 },
    { GDK_KEY_Home, -2 }, { GDK_KEY_KP_Home, -2 }, { GDK_KEY_End, 2 }, { GDK_KEY_KP_End, 2 },
  };

  /* Before the list box's own keys, which skip the rows not focusable. */
  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      GtkShortcut *shortcut = gtk_shortcut_new (gtk_keyval_trigger_new (keys[i].keyval, 0),
                                                gtk_callback_action_new (move_in_list, NULL, NULL));

      gtk_shortcut_set_arguments (shortcut, g_variant_new_int32 (keys[i].step));
      gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller), shortcut);
    }
  gtk_widget_add_controller (list, controller);
}

/*
 * _pd_list_box_roving_row:
 * @row: a row about to be added to a list box of _pd_list_box_one_stop()
 *
 * Makes @row one the list's single stop moves between.  Returns @row.
 */
GtkWidget *
_pd_list_box_roving_row (GtkWidget *row)
{
  GtkEventController *focus = gtk_event_controller_focus_new ();

  g_return_val_if_fail (GTK_IS_LIST_BOX_ROW (row), row);

  g_object_set_data (G_OBJECT (row), ROVING_KEY, GINT_TO_POINTER (TRUE));
  g_signal_connect (focus, "enter", G_CALLBACK (on_row_enter), NULL);
  gtk_widget_add_controller (row, focus);
  return row;
}

/*
 * _pd_list_box_one_stop:
 * @list: a list box whose rows were made with _pd_list_box_roving_row()
 *
 * Called once its rows are added: the list is entered at its first row
 * (or its last, backwards), and Tab and Shift+Tab leave it from any row.
 */
void
_pd_list_box_one_stop (GtkListBox *list)
{
  g_return_if_fail (GTK_IS_LIST_BOX (list));

  if (g_object_get_data (G_OBJECT (list), ROVING_KEY) == NULL)
    {
      GtkEventController *focus = gtk_event_controller_focus_new ();

      g_object_set_data (G_OBJECT (list), ROVING_KEY, GINT_TO_POINTER (TRUE));
      _pd_list_one_tab_stop (GTK_WIDGET (list));
      take_arrows (GTK_WIDGET (list));
      g_signal_connect (focus, "leave", G_CALLBACK (on_list_leave), NULL);
      gtk_widget_add_controller (GTK_WIDGET (list), focus);
    }
  set_ends (GTK_WIDGET (list));
}

/*
 * _pd_list_box_refocus:
 * @widget: where the focus was, a row of a list of _pd_list_box_one_stop()
 *   or any widget
 *
 * Gives @widget the focus back (F6 back into a page): a row the list made
 * not focusable when the focus left is its stop again.  The list box had
 * gone on to the row after it (tried with the keyboard alone).
 *
 * Returns: whether @widget has the focus
 */
gboolean
_pd_list_box_refocus (GtkWidget *widget)
{
  GtkWidget *list = gtk_widget_get_parent (widget);

  if (is_roving (widget) && list != NULL && g_object_get_data (G_OBJECT (list), ROVING_KEY) != NULL)
    set_stop (list, widget);
  return gtk_widget_grab_focus (widget);
}
