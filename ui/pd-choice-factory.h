/* pd-choice-factory.h: the items of a drop-down's open list, named
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* What an item of the list shows for its string (a GtkStringObject's). */
typedef const char *(*PdChoiceTextFunc) (const char *string);

GtkListItemFactory *_pd_choice_factory_new        (GtkWidget        *owner,
                                                   PdChoiceTextFunc  text_func);
void                _pd_combo_row_name_choices    (AdwComboRow      *row);
void                _pd_drop_down_name_choices    (GtkDropDown      *drop_down,
                                                   PdChoiceTextFunc  text_func);

G_END_DECLS
