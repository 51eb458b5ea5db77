/* pd-overview-cards.c: the Overview's cards kept in the order of need
 * (PdOverview's list), each change told as a change of its model.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-overview"

#include "config.h"

#include "pd-overview-private.h"

/* A card whose need stays and whose time moved (most changes: a plan's new
 * version) takes its new place among the cards of its need at most this
 * often, all such cards in one change of the model.  Each placed at once
 * made 500 changes a second with 500 sessions writing every second, each
 * over the span of cards it passed (most of the list): the list's filter
 * and widgets went over that span 500 times a second (bench-overview
 * --view).  Between two resorts the cards of one need may stand out of
 * their order by time; the needs keep theirs (a change of need is placed
 * at once). */
#define RESORT_MS 1000

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

static int
compare_cards (gconstpointer a,
               gconstpointer b)
{
  return _pd_overview_card_compare (*(PdOverviewCard * const *) a, *(PdOverviewCard * const *) b);
}

/* Cards changed in place since the last resort (their time moved, their
 * need the same) stand where they belong now: one change over the span
 * from the first card that moved to the last, none when none moved. */
static void
resort (GListModel *model,
        GPtrArray  *cards)
{
  g_autofree gpointer *before = NULL;
  guint first = 0, last;

  if (cards->len < 2)
    return;
  before = g_memdup2 (cards->pdata, sizeof (gpointer) * cards->len);
  g_ptr_array_sort (cards, compare_cards);
  while (first < cards->len && before[first] == cards->pdata[first])
    first++;
  if (first == cards->len)
    return;
  last = cards->len - 1;
  while (last > first && before[last] == cards->pdata[last])
    last--;
  g_list_model_items_changed (model, first, last - first + 1, last - first + 1);
}

typedef struct
{
  GListModel *model;     /* unowned: its dispose removes the timeout */
  GPtrArray  *cards;
  guint      *resort;
} Resort;

static gboolean
on_resort (gpointer data)
{
  Resort *r = data;

  *r->resort = 0;
  resort (r->model, r->cards);
  return G_SOURCE_REMOVE;
}

void
_pd_overview_cards_schedule_resort (GListModel *model,
                                    GPtrArray  *cards,
                                    guint      *resort_id)
{
  Resort *r;

  if (*resort_id != 0)
    return;
  r = g_new0 (Resort, 1);
  r->model = model;
  r->cards = cards;
  r->resort = resort_id;
  *resort_id = g_timeout_add_full (G_PRIORITY_DEFAULT, RESORT_MS, on_resort, r, g_free);
}
