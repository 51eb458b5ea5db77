/* pd-callback-slot.c: a callback held with its data and their destroy
 * function.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-callback-slot"

#include "config.h"

#include "pd-callback-slot.h"

void
pd_callback_slot_set (PdCallbackSlot *slot,
                      GMutex         *mutex,
                      GCallback       func,
                      gpointer        data,
                      GDestroyNotify  destroy)
{
  g_return_if_fail (slot != NULL);

  if (mutex != NULL)
    g_mutex_lock (mutex);
  pd_callback_slot_clear (slot);
  slot->func = func;
  slot->data = data;
  slot->destroy = destroy;
  if (mutex != NULL)
    g_mutex_unlock (mutex);
}

void
pd_callback_slot_clear (PdCallbackSlot *slot)
{
  GDestroyNotify destroy = slot->destroy;
  gpointer data = slot->data;

  slot->func = NULL;
  slot->data = NULL;
  slot->destroy = NULL;
  if (destroy != NULL)
    destroy (data);
}

PdCallbackSlot *
pd_callback_slot_new (GCallback      func,
                      gpointer       data,
                      GDestroyNotify destroy)
{
  PdCallbackSlot *slot = g_atomic_rc_box_new0 (PdCallbackSlot);

  slot->func = func;
  slot->data = data;
  slot->destroy = destroy;
  return slot;
}

PdCallbackSlot *
pd_callback_slot_ref (PdCallbackSlot *slot)
{
  g_return_val_if_fail (slot != NULL, NULL);

  return g_atomic_rc_box_acquire (slot);
}

void
pd_callback_slot_unref (PdCallbackSlot *slot)
{
  g_return_if_fail (slot != NULL);

  g_atomic_rc_box_release_full (slot, (GDestroyNotify) pd_callback_slot_clear);
}
