/* pd-overview-card-need-private.h: what an Overview card says its session needs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-overview-card.h"

G_BEGIN_DECLS

/* The most characters of one text a card shows; the label ellipsizes. */
#define CARD_TEXT_CHARS 400

/* The most of a failed run's reason its tooltip and description say. */
#define CARD_WHOLE_CHARS 4000

char       *_pd_overview_card_need_text  (PdOverviewCard *card);
char       *_pd_overview_card_need_whole (PdOverviewCard *card);
const char *_pd_overview_card_need_class (PdOverviewNeed  need);
char       *_pd_overview_card_step_text  (PdOverviewCard *card);

G_END_DECLS
