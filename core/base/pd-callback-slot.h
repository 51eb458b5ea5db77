/* pd-callback-slot.h: a callback held with its data and their destroy
 * function.
 *
 * Objects that take a callback from their owner (the engine's progress and
 * tool functions, plan mode's append, the exit tool's review) replace it
 * under their lock, destroy the old data at once, and destroy the last
 * data when they finalize.  This is that, written once.  A callback that is
 * shared (a builder's, handed to each engine it makes) or may be replaced
 * while it runs (the approver's question) lives on its own instead,
 * reference-counted: its data is destroyed with the last reference.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef struct
{
  GCallback       func;     /* cast to its type by the holder */
  gpointer        data;
  GDestroyNotify  destroy;  /* of data; may be NULL */
} PdCallbackSlot;

/* Destroys the data @slot holds, then holds @func, @data and @destroy;
 * under @mutex (when not NULL), so that a caller holding it sees the old
 * callback or the new, never half of each. */
void            pd_callback_slot_set   (PdCallbackSlot *slot,
                                        GMutex         *mutex,
                                        GCallback       func,
                                        gpointer        data,
                                        GDestroyNotify  destroy);
/* Destroys the data @slot holds and empties it (for finalize). */
void            pd_callback_slot_clear (PdCallbackSlot *slot);

/* A new slot on its own, holding one reference (taken and released from
 * any thread). */
PdCallbackSlot *pd_callback_slot_new   (GCallback       func,
                                        gpointer        data,
                                        GDestroyNotify  destroy);
PdCallbackSlot *pd_callback_slot_ref   (PdCallbackSlot *slot);
void            pd_callback_slot_unref (PdCallbackSlot *slot);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdCallbackSlot, pd_callback_slot_unref)

G_END_DECLS
