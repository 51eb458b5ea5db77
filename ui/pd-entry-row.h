/* pd-entry-row.h: a preferences row holding a text field a screen reader finds
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define PD_TYPE_ENTRY_ROW (pd_entry_row_get_type ())

G_DECLARE_FINAL_TYPE (PdEntryRow, pd_entry_row, PD, ENTRY_ROW, AdwActionRow)

GtkWidget *pd_entry_row_new                   (void);
GtkWidget *pd_entry_row_new_password          (void);
GtkWidget *pd_entry_row_get_entry             (PdEntryRow *self);
gboolean   pd_entry_row_get_password          (PdEntryRow *self);
gboolean   pd_entry_row_get_show_apply_button (PdEntryRow *self);
void       pd_entry_row_set_show_apply_button (PdEntryRow *self,
                                               gboolean    show_apply_button);
void       pd_entry_row_align_fields          (PdEntryRow *self,
                                               ...) G_GNUC_NULL_TERMINATED;

G_END_DECLS
