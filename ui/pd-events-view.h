/* pd-events-view.h: a session's event stream, tailed live
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "pd-session-view.h"

G_BEGIN_DECLS

/* While live and visible, the view asks for new events this often. */
#define PD_EVENTS_VIEW_POLL_MS    1000
/* At most this many events per request. */
#define PD_EVENTS_VIEW_PAGE_SIZE  500
/* The newest events read first, and as many more with each "Show Earlier
 * Events". */
#define PD_EVENTS_VIEW_LATEST_MAX 200
/* Following the newest, the view keeps at most this many events listed:
 * the older are read back with "Show Earlier Events". */
#define PD_EVENTS_VIEW_KEEP_MAX   1000

#define PD_TYPE_EVENTS_VIEW (pd_events_view_get_type ())

G_DECLARE_FINAL_TYPE (PdEventsView, pd_events_view, PD, EVENTS_VIEW, PdSessionView)

GtkWidget  *pd_events_view_new             (void);
void        pd_events_view_refresh         (PdEventsView *self);
gboolean    pd_events_view_get_live        (PdEventsView *self);
void        pd_events_view_set_title       (PdEventsView *self,
                                            const char   *title);
void        pd_events_view_set_live        (PdEventsView *self,
                                            gboolean      live);
const char *pd_events_view_get_type_filter (PdEventsView *self);
void        pd_events_view_set_type_filter (PdEventsView *self,
                                            const char   *type);
GListModel *pd_events_view_get_model       (PdEventsView *self);
gint64      pd_events_view_get_last_seq    (PdEventsView *self);
gboolean    pd_events_view_get_following   (PdEventsView *self);
void        pd_events_view_jump_to_newest  (PdEventsView *self);

gboolean     pd_events_view_get_compact      (PdEventsView *self);

G_END_DECLS
