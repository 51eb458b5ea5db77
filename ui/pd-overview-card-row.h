/* pd-overview-card-row.h: one card of the Overview page
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "pd-overview-card.h"

G_BEGIN_DECLS

#define PD_TYPE_OVERVIEW_CARD_ROW (pd_overview_card_row_get_type ())

G_DECLARE_FINAL_TYPE (PdOverviewCardRow, pd_overview_card_row, PD, OVERVIEW_CARD_ROW, GtkWidget)

GtkWidget      *pd_overview_card_row_new      (void);
PdOverviewCard *pd_overview_card_row_get_card (PdOverviewCardRow *self);
void            pd_overview_card_row_set_card (PdOverviewCardRow *self,
                                               PdOverviewCard    *card);
void            pd_overview_card_row_update   (PdOverviewCardRow *self);
void            pd_overview_card_row_update_time (PdOverviewCardRow *self);
GtkWidget      *pd_overview_card_row_get_review (PdOverviewCardRow *self);
void            pd_overview_card_row_set_answer_guard (PdOverviewCardRow *self,
                                                       guint              ms);
void            pd_overview_card_row_note_moved (PdOverviewCardRow *self);
gboolean        pd_overview_card_row_takes_answers (PdOverviewCardRow *self);

G_END_DECLS
