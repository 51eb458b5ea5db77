/* pd-session-list-model.c: the listed sessions, merged by id on each refresh
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A GListModel of PdSessionItem in the order the source lists them (pinned
 * first, then most recently updated).  A refresh is merged, never
 * cleared and refilled: items of sessions that stay keep their GObject and
 * are updated in place, items of sessions that are gone are removed, new
 * sessions are inserted where the listing puts them, and an item whose
 * place changed moves.  Selection and scroll position survive.  A long
 * listing arrives page by page (pd_session_list_model_merge_range()), each
 * merged into its place; an index by id keeps a page's merge linear.
 */
#define G_LOG_DOMAIN "pd-session-list-model"

#include "config.h"

#include "pd-session-list-model.h"

struct _PdSessionListModel
{
  GObject    parent_instance;

  GPtrArray  *items;   /* (element-type PdSessionItem) */
  GHashTable *by_id;   /* session id → item in @items */
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

  g_clear_pointer (&self->by_id, g_hash_table_unref);
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
  self->by_id = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
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
  PdSessionItem *item;

  g_return_val_if_fail (PD_IS_SESSION_LIST_MODEL (self), NULL);

  if (id == NULL || !(item = g_hash_table_lookup (self->by_id, id)))
    return NULL;

  if (position != NULL && !g_ptr_array_find (self->items, item, position))
    g_assert_not_reached ();

  return item;
}

/* Insertions are announced in one ::items-changed per run of adjacent
 * ones: a page of 200 new sessions is one signal, not 200. */
typedef struct
{
  PdSessionListModel *self;
  guint               position;
  guint               added;
  gboolean            changed;
} Merge;

static void
merge_flush (Merge *merge)
{
  if (merge->added == 0)
    return;

  g_list_model_items_changed (G_LIST_MODEL (merge->self), merge->position, 0, merge->added);
  merge->added = 0;
}

static void
merge_insert (Merge         *merge,
              guint          position,
              PdSessionItem *item)
{
  if (merge->added > 0 && position != merge->position + merge->added)
    merge_flush (merge);
  if (merge->added == 0)
    merge->position = position;

  g_ptr_array_insert (merge->self->items, position, item);
  g_hash_table_insert (merge->self->by_id, g_strdup (pd_session_item_get_id (item)), item);
  merge->added++;
  merge->changed = TRUE;
}

static PdSessionItem *
merge_steal (Merge *merge,
             guint  position)
{
  PdSessionItem *item;

  merge_flush (merge);
  item = g_ptr_array_steal_index (merge->self->items, position);
  g_hash_table_remove (merge->self->by_id, pd_session_item_get_id (item));
  g_list_model_items_changed (G_LIST_MODEL (merge->self), position, 1, 0);
  merge->changed = TRUE;

  return item;
}

/**
 * pd_session_list_model_merge_range:
 * @position: where @sessions start in the whole listing
 * @sessions: (element-type PdSessionInfo): one page of the listing, in order
 * @last: whether the listing ends with @sessions
 * @now: the present, for relative times
 *
 * Makes the items from @position on list @sessions in their order, reusing
 * the items of sessions the model already holds wherever they are (a
 * session that moved between two pages of a listing is moved, never
 * doubled).  Items after the page are left for the next page, except when
 * the page is the @last one: then every item after it goes.
 *
 * Returns: %TRUE when the model changed (an item added, moved, removed or
 *   updated)
 */
gboolean
pd_session_list_model_merge_range (PdSessionListModel *self,
                                   guint               position,
                                   GPtrArray          *sessions,
                                   gboolean            last,
                                   GDateTime          *now)
{
  Merge merge = { self, 0, 0, FALSE };
  guint old_len;
  guint p;

  g_return_val_if_fail (PD_IS_SESSION_LIST_MODEL (self), FALSE);
  g_return_val_if_fail (sessions != NULL, FALSE);
  g_return_val_if_fail (now != NULL, FALSE);

  old_len = self->items->len;
  p = MIN (position, self->items->len);

  /* The last page: sessions after @position that it does not list are
   * gone.  Removed in place, from the end so positions stay valid. */
  if (last)
    {
      g_autoptr(GHashTable) wanted = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint i = 0; i < sessions->len; i++)
        g_hash_table_add (wanted, ((PdSessionInfo *) g_ptr_array_index (sessions, i))->id);

      for (guint i = self->items->len; i > p; i--)
        {
          PdSessionItem *item = g_ptr_array_index (self->items, i - 1);

          if (!g_hash_table_contains (wanted, pd_session_item_get_id (item)))
            g_object_unref (merge_steal (&merge, i - 1));
        }
    }

  /* Walk the page: keep, move or insert. */
  for (guint i = 0; i < sessions->len; i++, p++)
    {
      const PdSessionInfo *info = g_ptr_array_index (sessions, i);
      PdSessionItem *item;
      guint found;

      if (p < self->items->len)
        {
          item = g_ptr_array_index (self->items, p);
          if (g_str_equal (pd_session_item_get_id (item), info->id))
            {
              if (pd_session_item_update (item, info, now))
                merge.changed = TRUE;
              continue;
            }
        }

      item = g_hash_table_lookup (self->by_id, info->id);
      if (item != NULL && g_ptr_array_find (self->items, item, &found))
        {
          /* The same item moves to its new place.  One from before the
           * page moved down: the page's place moves up by one with it. */
          item = merge_steal (&merge, found);
          if (found < p)
            p--;
          pd_session_item_update (item, info, now);
        }
      else
        {
          item = pd_session_item_new (info, now);
        }

      merge_insert (&merge, p, item);
    }

  /* Whatever the walk pushed past the last page is not listed any more. */
  if (last && p < self->items->len)
    {
      guint removed = self->items->len - p;

      merge_flush (&merge);
      for (guint i = p; i < self->items->len; i++)
        g_hash_table_remove (self->by_id, pd_session_item_get_id (g_ptr_array_index (self->items, i)));
      g_ptr_array_remove_range (self->items, p, removed);
      g_list_model_items_changed (G_LIST_MODEL (self), p, removed, 0);
      merge.changed = TRUE;
    }

  merge_flush (&merge);

  if (old_len != self->items->len)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_ITEMS]);

  return merge.changed;
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
  pd_session_list_model_merge_range (self, 0, sessions, TRUE, now);
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
