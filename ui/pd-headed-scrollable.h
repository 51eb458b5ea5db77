/* pd-headed-scrollable.h: a list under a heading that scrolls away with it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define PD_TYPE_HEADED_SCROLLABLE (pd_headed_scrollable_get_type ())

G_DECLARE_FINAL_TYPE (PdHeadedScrollable, pd_headed_scrollable, PD, HEADED_SCROLLABLE, GtkWidget)

GtkWidget  *pd_headed_scrollable_new       (void);
GtkWidget  *pd_headed_scrollable_get_child (PdHeadedScrollable *self);
void        pd_headed_scrollable_set_child (PdHeadedScrollable *self,
                                            GtkWidget          *child);
const char *pd_headed_scrollable_get_title (PdHeadedScrollable *self);
void        pd_headed_scrollable_set_title (PdHeadedScrollable *self,
                                            const char         *title);

void                pd_headed_scrollable_scroll_to_end (PdHeadedScrollable *self);
PdHeadedScrollable *pd_headed_scrollable_find          (GtkWidget          *root);

G_END_DECLS
