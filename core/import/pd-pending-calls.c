/* pd-pending-calls.c: tool calls waiting for their result.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-import-private.h"
#include "pd-pending-calls.h"

struct _PdPendingCalls
{
  GHashTable *calls;   /* id (owned) → value */
  GQueue      order;   /* ids, oldest first (owned by calls) */
};

PdPendingCalls *
_pd_pending_calls_new (GDestroyNotify value_free)
{
  PdPendingCalls *self = g_new0 (PdPendingCalls, 1);

  self->calls = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, value_free);
  g_queue_init (&self->order);
  return self;
}

void
_pd_pending_calls_free (PdPendingCalls *self)
{
  if (self == NULL)
    return;
  g_queue_clear (&self->order);
  g_hash_table_unref (self->calls);
  g_free (self);
}

void
_pd_pending_calls_add (PdPendingCalls *self,
                       const char     *id,
                       gpointer        value,
                       PdImportStats  *stats)
{
  gpointer key;

  g_return_if_fail (self != NULL);
  g_return_if_fail (id != NULL);

  if (g_hash_table_lookup_extended (self->calls, id, &key, NULL))
    {
      g_queue_remove (&self->order, key);
      g_hash_table_remove (self->calls, id);
    }
  while (g_hash_table_size (self->calls) >= PD_IMPORT_MAX_PENDING)
    {
      char *oldest = g_queue_pop_head (&self->order);

      g_hash_table_remove (self->calls, oldest);
      if (stats != NULL)
        stats->ignored_updates++;
    }
  key = g_strdup (id);
  g_hash_table_insert (self->calls, key, value);
  g_queue_push_tail (&self->order, key);
}

gboolean
_pd_pending_calls_contains (PdPendingCalls *self,
                            const char     *id)
{
  return id != NULL && g_hash_table_contains (self->calls, id);
}

gboolean
_pd_pending_calls_take (PdPendingCalls *self,
                        const char     *id,
                        gpointer       *value)
{
  gpointer key;

  *value = NULL;
  if (id == NULL || !g_hash_table_steal_extended (self->calls, id, &key, value))
    return FALSE;
  g_queue_remove (&self->order, key);
  g_free (key);
  return TRUE;
}

guint
_pd_pending_calls_get_size (PdPendingCalls *self)
{
  return g_hash_table_size (self->calls);
}

gboolean
_pd_pending_calls_any_id_in (PdPendingCalls *self,
                             const char     *text,
                             gsize           length)
{
  for (GList *l = self->order.head; l != NULL; l = l->next)
    if (memmem (text, length, l->data, strlen (l->data)))
      return TRUE;
  return FALSE;
}
