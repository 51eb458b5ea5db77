/* pd-event-item.h: one stored event, as the events view lists it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-event.h"

G_BEGIN_DECLS

#define PD_TYPE_EVENT_ITEM (pd_event_item_get_type ())

G_DECLARE_FINAL_TYPE (PdEventItem, pd_event_item, PD, EVENT_ITEM, GObject)

PdEventItem *pd_event_item_new            (gint64       seq,
                                           const char  *event_json);
gint64       pd_event_item_get_seq        (PdEventItem *self);
PdEvent     *pd_event_item_get_event      (PdEventItem *self);
const char  *pd_event_item_get_event_type (PdEventItem *self);
const char  *pd_event_item_get_time_text  (PdEventItem *self);
const char  *pd_event_item_get_iteration_text (PdEventItem *self);
const char  *pd_event_item_get_tool       (PdEventItem *self);
const char  *pd_event_item_get_summary    (PdEventItem *self);
const char  *pd_event_item_get_details    (PdEventItem *self);
char        *pd_event_item_dup_row_name   (PdEventItem *self);

G_END_DECLS
