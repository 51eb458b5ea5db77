/* pd-wrap-box.h: children in a row, wrapped onto more rows as needed
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define PD_TYPE_WRAP_BOX (pd_wrap_box_get_type ())

G_DECLARE_FINAL_TYPE (PdWrapBox, pd_wrap_box, PD, WRAP_BOX, GtkWidget)

GtkWidget *pd_wrap_box_new        (void);
void       pd_wrap_box_append     (PdWrapBox *self,
                                   GtkWidget *child);
void       pd_wrap_box_remove_all (PdWrapBox *self);

G_END_DECLS
