/* pd-source-list.c: the sources a window shows, as a GListModel of PdSource.
 *
 * A short list (a database and a few dozen endpoints at most): entries are
 * found by walking it.  A rename replaces the entry in place
 * (items-changed of one item), so a row showing the name is built again.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-source"

#include "config.h"

#include "pd-source-list.h"

typedef struct
{
  PdSource *source;
  char     *id;
  char     *name;
} Entry;

struct _PdSourceList
{
  GObject    parent_instance;

  GPtrArray *entries;   /* (element-type Entry) */
};

static void pd_source_list_model_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PdSourceList, pd_source_list, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, pd_source_list_model_init))

static void
entry_free (Entry *entry)
{
  g_clear_object (&entry->source);
  g_free (entry->id);
  g_free (entry->name);
  g_free (entry);
}

static GType
pd_source_list_get_item_type (GListModel *model)
{
  return PD_TYPE_SOURCE;
}

static guint
pd_source_list_get_n_items (GListModel *model)
{
  return PD_SOURCE_LIST (model)->entries->len;
}

static gpointer
pd_source_list_get_item (GListModel *model,
                         guint       position)
{
  PdSourceList *self = PD_SOURCE_LIST (model);

  if (position >= self->entries->len)
    return NULL;
  return g_object_ref (((Entry *) g_ptr_array_index (self->entries, position))->source);
}

static void
pd_source_list_model_init (GListModelInterface *iface)
{
  iface->get_item_type = pd_source_list_get_item_type;
  iface->get_n_items = pd_source_list_get_n_items;
  iface->get_item = pd_source_list_get_item;
}

static void
pd_source_list_finalize (GObject *object)
{
  PdSourceList *self = PD_SOURCE_LIST (object);

  g_clear_pointer (&self->entries, g_ptr_array_unref);

  G_OBJECT_CLASS (pd_source_list_parent_class)->finalize (object);
}

static void
pd_source_list_class_init (PdSourceListClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_source_list_finalize;
}

static void
pd_source_list_init (PdSourceList *self)
{
  self->entries = g_ptr_array_new_with_free_func ((GDestroyNotify) entry_free);
}

PdSourceList *
pd_source_list_new (void)
{
  return g_object_new (PD_TYPE_SOURCE_LIST, NULL);
}

static Entry *
pd_source_list_entry_by_id (PdSourceList *self,
                            const char   *id,
                            guint        *position)
{
  for (guint i = 0; i < self->entries->len; i++)
    {
      Entry *entry = g_ptr_array_index (self->entries, i);

      if (g_strcmp0 (entry->id, id) == 0)
        {
          if (position != NULL)
            *position = i;
          return entry;
        }
    }
  return NULL;
}

static Entry *
pd_source_list_entry_by_source (PdSourceList *self,
                                PdSource     *source,
                                guint        *position)
{
  for (guint i = 0; i < self->entries->len; i++)
    {
      Entry *entry = g_ptr_array_index (self->entries, i);

      if (entry->source == source)
        {
          if (position != NULL)
            *position = i;
          return entry;
        }
    }
  return NULL;
}

/**
 * pd_source_list_append:
 * @id: stable and unique in the list; an entry with the same id is replaced
 *   where it is
 * @name: what a person reads for it
 */
void
pd_source_list_append (PdSourceList *self,
                       PdSource     *source,
                       const char   *id,
                       const char   *name)
{
  g_return_if_fail (PD_IS_SOURCE_LIST (self));

  pd_source_list_insert (self, self->entries->len, source, id, name);
}

/**
 * pd_source_list_insert:
 * @at: where, clamped to the end
 *
 * As pd_source_list_append(); an entry with the same id is replaced where
 * it is.
 */
void
pd_source_list_insert (PdSourceList *self,
                       guint         at,
                       PdSource     *source,
                       const char   *id,
                       const char   *name)
{
  Entry *entry;
  guint position;

  g_return_if_fail (PD_IS_SOURCE_LIST (self));
  g_return_if_fail (PD_IS_SOURCE (source));
  g_return_if_fail (id != NULL && name != NULL);

  entry = g_new0 (Entry, 1);
  entry->source = g_object_ref (source);
  entry->id = g_strdup (id);
  entry->name = g_strdup (name);

  if (pd_source_list_entry_by_id (self, id, &position) != NULL)
    {
      entry_free (g_ptr_array_index (self->entries, position));
      g_ptr_array_index (self->entries, position) = entry;
      g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 1);
      return;
    }
  position = MIN (at, self->entries->len);
  g_ptr_array_insert (self->entries, position, entry);
  g_list_model_items_changed (G_LIST_MODEL (self), position, 0, 1);
}

gboolean
pd_source_list_remove (PdSourceList *self,
                       const char   *id)
{
  guint position;

  g_return_val_if_fail (PD_IS_SOURCE_LIST (self), FALSE);

  if (pd_source_list_entry_by_id (self, id, &position) == NULL)
    return FALSE;
  g_ptr_array_remove_index (self->entries, position);
  g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 0);
  return TRUE;
}

void
pd_source_list_remove_all (PdSourceList *self)
{
  guint n;

  g_return_if_fail (PD_IS_SOURCE_LIST (self));

  n = self->entries->len;
  if (n == 0)
    return;
  g_ptr_array_set_size (self->entries, 0);
  g_list_model_items_changed (G_LIST_MODEL (self), 0, n, 0);
}

/**
 * pd_source_list_lookup:
 * @position: (out) (optional)
 *
 * Returns: (transfer none) (nullable): the source with @id
 */
PdSource *
pd_source_list_lookup (PdSourceList *self,
                       const char   *id,
                       guint        *position)
{
  Entry *entry;

  g_return_val_if_fail (PD_IS_SOURCE_LIST (self), NULL);

  entry = pd_source_list_entry_by_id (self, id, position);
  return entry != NULL ? entry->source : NULL;
}

gboolean
pd_source_list_find (PdSourceList *self,
                     PdSource     *source,
                     guint        *position)
{
  g_return_val_if_fail (PD_IS_SOURCE_LIST (self), FALSE);

  return pd_source_list_entry_by_source (self, source, position) != NULL;
}

/* Returns: (nullable): the id of @source, %NULL when it is not listed */
const char *
pd_source_list_get_id (PdSourceList *self,
                       PdSource     *source)
{
  Entry *entry;

  g_return_val_if_fail (PD_IS_SOURCE_LIST (self), NULL);

  entry = pd_source_list_entry_by_source (self, source, NULL);
  return entry != NULL ? entry->id : NULL;
}

/* Returns: (nullable): the name of @source, %NULL when it is not listed */
const char *
pd_source_list_get_name (PdSourceList *self,
                         PdSource     *source)
{
  Entry *entry;

  g_return_val_if_fail (PD_IS_SOURCE_LIST (self), NULL);

  entry = pd_source_list_entry_by_source (self, source, NULL);
  return entry != NULL ? entry->name : NULL;
}

/* Renames the entry @id; it changes in place (items-changed of one item). */
gboolean
pd_source_list_set_name (PdSourceList *self,
                         const char   *id,
                         const char   *name)
{
  Entry *entry;
  guint position;

  g_return_val_if_fail (PD_IS_SOURCE_LIST (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  entry = pd_source_list_entry_by_id (self, id, &position);
  if (entry == NULL)
    return FALSE;
  if (g_strcmp0 (entry->name, name) == 0)
    return TRUE;
  g_free (entry->name);
  entry->name = g_strdup (name);
  g_list_model_items_changed (G_LIST_MODEL (self), position, 1, 1);
  return TRUE;
}
