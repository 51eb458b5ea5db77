/* pd-events-view-private.h: parts of the Events page kept apart from its view
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

void                _pd_events_view_name_header  (GtkColumnView        *column_view,
                                                  GtkColumnViewColumn **columns,
                                                  guint                 n_columns);
GtkListItemFactory *_pd_events_view_type_factory (void);
void                _pd_events_view_update_left_out (GtkLabel   *label,
                                                     GListModel *events);

G_END_DECLS
