/* pd-event-bus.h: where events go.
 *
 * The engine emits from its worker threads and must never wait for a slow
 * consumer, so emitting only appends to a bounded queue (a full queue drops
 * the event and counts it).  One dispatcher thread takes events in emit
 * order and, for each: appends it to the ring of recent events, counts it in
 * the usage counters, writes the JSONL line, calls the sinks (on the
 * dispatcher thread), and queues it for every listener, which is called on
 * the main context it registered from.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

#include "pd-event.h"
#include "pd-usage.h"

G_BEGIN_DECLS

#define PD_EVENT_BUS_DEFAULT_CAPACITY 1024
#define PD_EVENT_BUS_RING_SIZE        500

#define PD_TYPE_EVENT_BUS (pd_event_bus_get_type ())

G_DECLARE_FINAL_TYPE (PdEventBus, pd_event_bus, PD, EVENT_BUS, GObject)

/* Called on the dispatcher thread, in emit order; must not block for long
 * (it holds up every later event), must not call pd_event_bus_flush(), and
 * must not drop the last reference to the bus (dispose joins that thread). */
typedef void (*PdEventSinkFunc)     (PdEvent  *event,
                                     gpointer  user_data);
/* Called on the main context that was thread-default at registration. */
typedef void (*PdEventListenerFunc) (PdEvent  *event,
                                     gpointer  user_data);

PdEventBus *pd_event_bus_new                (void);
PdEventBus *pd_event_bus_new_with_capacity  (guint                capacity);
guint       pd_event_bus_get_capacity       (PdEventBus          *self);

void        pd_event_bus_emit               (PdEventBus          *self,
                                             PdEvent             *event);
void        pd_event_bus_flush              (PdEventBus          *self);
gboolean    pd_event_bus_flush_timeout      (PdEventBus          *self,
                                             gint64               timeout_usec);

void        pd_event_bus_add_sink           (PdEventBus          *self,
                                             PdEventSinkFunc      func,
                                             gpointer             user_data,
                                             GDestroyNotify       destroy);
guint       pd_event_bus_add_listener       (PdEventBus          *self,
                                             PdEventListenerFunc  func,
                                             gpointer             user_data,
                                             GDestroyNotify       destroy);
void        pd_event_bus_remove_listener    (PdEventBus          *self,
                                             guint                id);

GPtrArray  *pd_event_bus_get_recent         (PdEventBus          *self,
                                             guint                limit,
                                             const char          *run_id,
                                             const char          *session_id);
PdUsage     pd_event_bus_get_usage          (PdEventBus          *self);

gboolean    pd_event_bus_open_jsonl         (PdEventBus          *self,
                                             const char          *path,
                                             GError             **error);
void        pd_event_bus_close_jsonl        (PdEventBus          *self);
void        pd_event_bus_set_jsonl_fsync    (PdEventBus          *self,
                                             gboolean             fsync_each);

G_END_DECLS
