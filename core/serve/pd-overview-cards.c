/* pd-overview-cards.c: the Overview's cards kept in the order of need
 * (PdOverview's list), each change told as a change of its model, and
 * that model (PdOverview's GListModel).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-overview"

#include "config.h"

#include "pd-overview-private.h"

static guint
insertion_point (GPtrArray      *cards,
                 PdOverviewCard *card)
{
  guint low = 0, high = cards->len;

  while (low < high)
    {
      guint mid = low + (high - low) / 2;

      if (_pd_overview_card_compare (g_ptr_array_index (cards, mid), card) < 0)
        low = mid + 1;
      else
        high = mid;
    }
  return low;
}

void
_pd_overview_cards_insert (GListModel     *model,
                           GPtrArray      *cards,
                           PdOverviewCard *card)
{
  guint position = insertion_point (cards, card);

  g_ptr_array_insert (cards, position, g_object_ref (card));
  g_list_model_items_changed (model, position, 0, 1);
}

void
_pd_overview_cards_remove (GListModel     *model,
                           GPtrArray      *cards,
                           PdOverviewCard *card)
{
  guint position;

  if (g_ptr_array_find (cards, card, &position))
    {
      g_ptr_array_remove_index (cards, position);
      g_list_model_items_changed (model, position, 1, 0);
    }
}

/* After @card changed: where it stands now, said as one change in place
 * when it stays, or over the cards it passed when it moves. */
void
_pd_overview_cards_place (GListModel     *model,
                          GPtrArray      *cards,
                          PdOverviewCard *card)
{
  guint old_position, position;
  g_autoptr(PdOverviewCard) held = NULL;

  if (!g_ptr_array_find (cards, card, &old_position))
    return;
  held = g_ptr_array_steal_index (cards, old_position);
  position = insertion_point (cards, card);
  g_ptr_array_insert (cards, position, g_steal_pointer (&held));
  /* One change over the span it moved across: the model holds it at its
   * new place already, so two changes (a removal, an insertion) would
   * tell a count it does not have in between. */
  if (position >= old_position)
    g_list_model_items_changed (model, old_position, position - old_position + 1,
                                position - old_position + 1);
  else
    g_list_model_items_changed (model, position, old_position - position + 1,
                                old_position - position + 1);
}

static GType
cards_get_item_type (GListModel *model)
{
  return PD_TYPE_OVERVIEW_CARD;
}

static guint
cards_get_n_items (GListModel *model)
{
  return _pd_overview_get_cards (PD_OVERVIEW (model))->len;
}

static gpointer
cards_get_item (GListModel *model,
                guint       position)
{
  GPtrArray *cards = _pd_overview_get_cards (PD_OVERVIEW (model));

  if (position >= cards->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (cards, position));
}

void
_pd_overview_cards_model_init (GListModelInterface *iface)
{
  iface->get_item_type = cards_get_item_type;
  iface->get_n_items = cards_get_n_items;
  iface->get_item = cards_get_item;
}
