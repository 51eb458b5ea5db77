/* pd-reader-rows.h: preference rows as a screen reader and a keyboard meet them
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

void _pd_switch_row_one_tab_stop  (AdwActionRow   *row);
void _pd_field_row_one_tab_stop   (AdwActionRow   *row,
                                   GtkWidget      *field);
void _pd_expander_row_for_readers (AdwExpanderRow *expander);

G_END_DECLS
