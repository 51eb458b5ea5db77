/* pd-ui-row.c: the box of a row of the inspector's lists
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-ui-row"

#include "config.h"

#include "pd-ui-util-private.h"

/**
 * _pd_row_box_new:
 *
 * Returns: (transfer floating): the box of a row of the inspector's lists
 *   (a plan's steps, its changes and approved plans, a checklist, the
 *   removed sessions): horizontal, 12 px between its children, 12 px in
 *   from the sides, 8 px from the rows above and below
 */
GtkWidget *
_pd_row_box_new (void)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);

  gtk_widget_set_margin_start (box, 12);
  gtk_widget_set_margin_end (box, 12);
  gtk_widget_set_margin_top (box, 8);
  gtk_widget_set_margin_bottom (box, 8);
  return box;
}

/**
 * _pd_list_box_focused_row:
 * @list: a list box about to be emptied and filled again
 * @on_last: (out) (optional): whether the focus is on the row's last child
 *   that takes it (a Remove button) rather than on the row or its first
 *
 * Returns: the index of the row the focus is on or in, or -1 when it is
 *   not in @list
 */
int
_pd_list_box_focused_row (GtkListBox *list,
                          gboolean   *on_last)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (list));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  GtkWidget *row;

  if (focus == NULL || !gtk_widget_is_ancestor (focus, GTK_WIDGET (list)))
    return -1;
  row = GTK_IS_LIST_BOX_ROW (focus) ? focus : gtk_widget_get_ancestor (focus, GTK_TYPE_LIST_BOX_ROW);
  if (row == NULL)
    return -1;
  if (on_last != NULL)
    *on_last = GTK_IS_BUTTON (focus);
  return gtk_list_box_row_get_index (GTK_LIST_BOX_ROW (row));
}

/**
 * _pd_list_box_refocus_row:
 * @list: a list box filled again
 * @index: what _pd_list_box_focused_row() said before it was emptied
 * @on_last: what it said of the row's last child
 *
 * Gives the focus back to the row at @index (the last row when there are
 * fewer now), as a keyboard user left it: a list filled again took it
 * away, and GTK gave it to nothing (tried as a new user would: Space
 * ticked an item, its save read the list again, and the focus was gone).
 */
void
_pd_list_box_refocus_row (GtkListBox *list,
                          int         index,
                          gboolean    on_last)
{
  GtkListBoxRow *row = NULL;

  for (int i = index; i >= 0 && row == NULL; i--)
    row = gtk_list_box_get_row_at_index (list, i);
  if (row == NULL)
    return;
  if (!on_last && gtk_widget_grab_focus (GTK_WIDGET (row)))
    return;
  gtk_widget_child_focus (GTK_WIDGET (row), on_last ? GTK_DIR_TAB_BACKWARD : GTK_DIR_TAB_FORWARD);
}
