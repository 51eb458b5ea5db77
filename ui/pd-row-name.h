/* pd-row-name.h: names the list row it is placed in
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define PD_TYPE_ROW_NAME (pd_row_name_get_type ())

G_DECLARE_FINAL_TYPE (PdRowName, pd_row_name, PD, ROW_NAME, GtkWidget)

const char *pd_row_name_get_text (PdRowName  *self);
void        pd_row_name_set_text (PdRowName  *self,
                                  const char *text);

G_END_DECLS
