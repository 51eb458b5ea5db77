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
