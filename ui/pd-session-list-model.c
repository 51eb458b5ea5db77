/* pd-session-list-model.c: the listed sessions, merged by id on each refresh
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A GListModel of PdSessionItem in the order the source lists them (pinned
 * first, then most recently updated).  A refresh is merged, never
 * cleared and refilled: items of sessions that stay keep their GObject and
 * are updated in place, items of sessions that are gone are removed, new
 * sessions are inserted where the listing puts them, and an item whose
 * place changed moves.  Selection and scroll position survive.
 */
#define G_LOG_DOMAIN "pd-session-list-model"

#include "config.h"

#include "pd-session-list-model.h"

struct _PdSessionListModel
{
  GObject    parent_instance;

  GPtrArray *items;   /* (element-type PdSessionItem) */
};

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PdSessionListModel, pd_session_list_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

enum {
  PROP_0,
  PROP_N_ITEMS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static GType
pd_session_list_model_get_item_type (GListModel *model)
{
  return PD_TYPE_SESSION_ITEM;
}

static guint
pd_session_list_model_get_n_items (GListModel *model)
{
  return PD_SESSION_LIST_MODEL (model)->items->len;
}

static gpointer
pd_session_list_model_get_item (GListModel *model,
                                guint       position)
{
  PdSessionListModel *self = PD_SESSION_LIST_MODEL (model);

  if (position >= self->items->len)
    return NULL;

  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = pd_session_list_model_get_item_type;
  iface->get_n_items = pd_session_list_model_get_n_items;
  iface->get_item = pd_session_list_model_get_item;
}

static void
pd_session_list_model_finalize (GObject *object)
{
  PdSessionListModel *self = PD_SESSION_LIST_MODEL (object);

  g_clear_pointer (&self->items, g_ptr_array_unref);

  G_OBJECT_CLASS (pd_session_list_model_parent_class)->finalize (object);
}

static void
pd_session_list_model_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  PdSessionListModel *self = PD_SESSION_LIST_MODEL (object);

  switch (prop_id)
    {
    case PROP_N_ITEMS:
      g_value_set_uint (value, self->items->len);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_session_list_model_class_init (PdSessionListModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = pd_session_list_model_finalize;
  object_class->get_property = pd_session_list_model_get_property;

  properties[PROP_N_ITEMS] =
    g_param_spec_uint ("n-items", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
pd_session_list_model_init (PdSessionListModel *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
}

PdSessionListModel *
pd_session_list_model_new (void)
{
  return g_object_new (PD_TYPE_SESSION_LIST_MODEL, NULL);
}

/**
 * pd_session_list_model_find:
 * @position: (out) (optional): where the item is
 *
 * Returns: (transfer none) (nullable): the item of session @id
 */
PdSessionItem *
pd_session_list_model_find (PdSessionListModel *self,
                            const char         *id,
                            guint              *position)
{
  g_return_val_if_fail (PD_IS_SESSION_LIST_MODEL (self), NULL);

  for (guint i = 0; i < self->items->len; i++)
    {
      PdSessionItem *item = g_ptr_array_index (self->items, i);

      if (g_strcmp0 (pd_session_item_get_id (item), id) == 0)
        {
          if (position != NULL)
            *position = i;
          return item;
        }
    }

  return NULL;
}

/**
 * pd_session_list_model_merge:
 * @sessions: (element-type PdSessionInfo): the new listing, in order
 * @now: the present, for relative times
 *
 * Makes the model list @sessions in their order, reusing the items of
 * sessions it already holds.
 */
void
pd_session_list_model_merge (PdSessionListModel *self,
                             GPtrArray          *sessions,
                             GDateTime          *now)
{
  g_autoptr(GHashTable) wanted = NULL;
  guint old_len;

  g_return_if_fail (PD_IS_SESSION_LIST_MODEL (self));
  g_return_if_fail (sessions != NULL);
  g_return_if_fail (now != NULL);

  old_len = self->items->len;
  wanted = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < sessions->len; i++)
    {
      const PdSessionInfo *info = g_ptr_array_index (sessions, i);

      g_hash_table_add (wanted, info->id);
    }

  /* Gone sessions, from the end so positions stay valid. */
  for (guint i = self->items->len; i > 0; i--)
    {
      PdSessionItem *item = g_ptr_array_index (self->items, i - 1);

      if (!g_hash_table_contains (wanted, pd_session_item_get_id (item)))
        {
          g_ptr_array_remove_index (self->items, i - 1);
          g_list_model_items_changed (G_LIST_MODEL (self), i - 1, 1, 0);
        }
    }

  /* Walk the new order: keep, move or insert. */
  for (guint i = 0; i < sessions->len; i++)
    {
      const PdSessionInfo *info = g_ptr_array_index (sessions, i);
      PdSessionItem *item = NULL;
      guint found = 0;

      if (i < self->items->len &&
          g_strcmp0 (pd_session_item_get_id (g_ptr_array_index (self->items, i)), info->id) == 0)
        {
          pd_session_item_update (g_ptr_array_index (self->items, i), info, now);
          continue;
        }

      for (guint j = i + 1; j < self->items->len; j++)
        {
          if (g_strcmp0 (pd_session_item_get_id (g_ptr_array_index (self->items, j)),
                         info->id) == 0)
            {
              found = j;
              break;
            }
        }

      if (found > 0)
        {
          /* The same item moves up to its new place. */
          item = g_ptr_array_steal_index (self->items, found);
          g_list_model_items_changed (G_LIST_MODEL (self), found, 1, 0);
          pd_session_item_update (item, info, now);
        }
      else
        {
          item = pd_session_item_new (info, now);
        }

      g_ptr_array_insert (self->items, i, item);
      g_list_model_items_changed (G_LIST_MODEL (self), i, 0, 1);
    }

  if (old_len != self->items->len)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_ITEMS]);
}

/**
 * pd_session_list_model_update_times:
 *
 * Brings every relative time ("5 min ago") up to @now.
 */
void
pd_session_list_model_update_times (PdSessionListModel *self,
                                    GDateTime          *now)
{
  g_return_if_fail (PD_IS_SESSION_LIST_MODEL (self));

  for (guint i = 0; i < self->items->len; i++)
    pd_session_item_update_time (g_ptr_array_index (self->items, i), now);
}
