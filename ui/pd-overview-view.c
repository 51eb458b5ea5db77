/* pd-overview-view.c: the Overview page, every active session at a glance
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window's home: a card (PdOverviewCardRow) per active session of every
 * source, in the order of PdOverview (what needs the user first), updated
 * in place as the model merges; "No Active Sessions" when there is none.
 * Activating a card (a click, Enter) emits ::card-activated; a card's Deny
 * or Approve Once emits ::answer.  The window opens the session and sends
 * the answer.  A card's menu (right click, long press, Menu key) holds
 * what the window gives through ::card-menu.  The times since the last change are told again every 30 s.
 * With a source set (one chosen in the sidebar), the cards of that source
 * alone are shown.  A question that comes while the list is scrolled goes
 * first, out of sight: "1 New Request" says so at the top until the list
 * is back there (the button takes it there); with the list at its top, it
 * stays there and the question shows.
 */
#define G_LOG_DOMAIN "pd-overview-view"

#include "config.h"

#include <glib/gi18n.h>
#include <adwaita.h>

#include "pd-overview-card-row.h"
#include "pd-overview-view.h"
#include "pd-ui-util-private.h"

#define TIME_REFRESH_SECONDS 30

struct _PdOverviewView
{
  GtkWidget      parent_instance;

  PdOverview    *overview;
  PdSource      *source;        /* (nullable) the cards of this source alone */
  GtkFilterListModel *shown;    /* the overview's cards, filtered by source */
  GtkCustomFilter *filter;
  GHashTable    *hidden;        /* "SOURCE/ID" of the cards left out: deleted, their Undo offered */
  GPtrArray     *rows;          /* the card rows made, to tell their times again */
  guint          clock;

  GHashTable    *requests;      /* the cards asking a question, as last seen (refs) */
  guint          n_new;         /* questions come since the list was last at its top */
  guint          to_top;        /* a tick callback that keeps the list at its top */
  guint          to_top_frames;
  gboolean       top_on_map;    /* cards came first while the list was not shown */
  gboolean       pinned;        /* at its top, or moved from there by GTK alone */
  gboolean       user_input;    /* a person scrolled, clicked or typed since the list was last kept at its top */
  gboolean       in_frame;      /* between a frame's before-paint and after-paint: GTK lays the list out */
  GdkFrameClock *frame_clock;   /* (nullable) (unowned) the one watched, while the list is realized */

  GtkStack      *stack;
  AdwStatusPage *empty_page;
  GtkSpinner    *loading_spinner;
  GtkLabel      *waiting_note;
  GtkScrolledWindow *scroller;
  GtkListView   *list_view;
  GtkWidget     *new_requests;
  GtkWidget     *menu;          /* (nullable) a card's menu, made on first use */
  PdOverviewCard *menu_card;    /* (nullable) the card whose menu is open */

  PdOverviewCard *answered;     /* (nullable) a card answered with the focus in it */
  gulong         answered_changed;
  guint          answered_at;   /* its place in the list then */
  guint          land;          /* an idle that places the focus after it */
};

G_DEFINE_FINAL_TYPE (PdOverviewView, pd_overview_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_OVERVIEW,
  PROP_SOURCE,
  N_PROPS
};

enum {
  CARD_ACTIVATED,
  ANSWER,
  CARD_MENU,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
update_page (PdOverviewView *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->shown));
  guint minutes = self->overview != NULL ? pd_overview_get_active_minutes (self->overview)
                                         : PD_OVERVIEW_ACTIVE_MINUTES;
  g_autofree char *description = NULL;
  g_autofree char *waiting = NULL;
  gboolean loading;

  /* Translators: %u is a number of minutes (the Overview preference) */
  description = g_strdup_printf (ngettext ("Sessions show here while an agent works on them, and for %u minute after their last change.",
                                           "Sessions show here while an agent works on them, and for %u minutes after their last change.",
                                           minutes), minutes);
  adw_status_page_set_description (self->empty_page, description);
  /* "No Active Sessions" is what the sources answered, never a guess
   * before they did: it was shown for seconds at start-up, before the
   * cards came (tried as a new user would). */
  loading = n == 0 && self->overview != NULL && !pd_overview_get_answered (self->overview, self->source);
  /* Only until a first source answers: one that never does (an endpoint
   * that hangs) kept the spinner for good, the others' answers unseen.
   * A note names those still read (source names are plain text). */
  waiting = self->overview != NULL ? pd_overview_dup_waiting_names (self->overview, self->source) : NULL;
  if (waiting != NULL)
    {
      /* Translators: %s names the sources ("This Computer", an endpoint's name) not answered yet */
      g_autofree char *note = g_strdup_printf (_("Still reading the sessions of %s…"), waiting);

      gtk_label_set_text (self->waiting_note, note);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->waiting_note), waiting != NULL);
  _pd_spinner_set_wanted (self->loading_spinner, loading);
  gtk_stack_set_visible_child_name (self->stack, n > 0 ? "cards" : loading ? "loading" : "empty");
}

static GtkAdjustment *
vadjustment (PdOverviewView *self)
{
  return gtk_scrolled_window_get_vadjustment (self->scroller);
}

static void
hide_new_requests (PdOverviewView *self)
{
  self->n_new = 0;
  gtk_widget_set_visible (self->new_requests, FALSE);
}

static gboolean
keep_at_top (GtkWidget     *widget,
             GdkFrameClock *clock,
             gpointer       data)
{
  PdOverviewView *self = data;

  /* The list keeps the card that was first in its place, the new one above
   * it out of sight: once it is laid out (a frame later), the list goes to
   * its top again. */
  GtkAdjustment *adjustment = vadjustment (self);

  if (self->to_top_frames++ == 0)
    return G_SOURCE_CONTINUE;
  self->to_top = 0;
  /* GTK keeps the old first card in place, cards or pages below the top
   * (at start-up, this computer's card under every endpoint's).  A list a
   * person scrolled meanwhile stays where they took it (it jumped back to
   * its top under them). */
  if (self->pinned)
    gtk_adjustment_set_value (adjustment, gtk_adjustment_get_lower (adjustment));
  return G_SOURCE_REMOVE;
}

/* Keeps the list at its top a frame after it is laid out. */
static void
arm_keep_at_top (PdOverviewView *self)
{
  self->to_top_frames = 0;
  self->user_input = FALSE;
  if (self->to_top == 0)
    self->to_top = gtk_widget_add_tick_callback (GTK_WIDGET (self->list_view), keep_at_top, self, NULL);
}

static void
on_frame_start (PdOverviewView *self)
{
  self->in_frame = TRUE;
}

static void
on_frame_end (PdOverviewView *self)
{
  self->in_frame = FALSE;
}

static void
on_list_realize (PdOverviewView *self)
{
  self->frame_clock = gtk_widget_get_frame_clock (GTK_WIDGET (self->list_view));
  g_signal_connect_object (self->frame_clock, "before-paint", G_CALLBACK (on_frame_start), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->frame_clock, "after-paint", G_CALLBACK (on_frame_end), self, G_CONNECT_SWAPPED);
}

static void
on_list_unrealize (PdOverviewView *self)
{
  if (self->frame_clock != NULL)
    g_signal_handlers_disconnect_by_data (self->frame_clock, self);
  self->frame_clock = NULL;
  self->in_frame = FALSE;
}

/* A scroll, a click, a key: what moves the list next is a person, not GTK
 * keeping a card in place. */
static gboolean
on_user_input (PdOverviewView *self)
{
  self->user_input = TRUE;
  return FALSE;  /* the event goes on to the list */
}

/* The position of the first card a person sees, of those not in @fresh;
 * G_MAXUINT when none. */
static guint
first_visible (PdOverviewView *self,
               GHashTable     *fresh)
{
  GListModel *shown = G_LIST_MODEL (self->shown);
  int height = gtk_widget_get_height (GTK_WIDGET (self->scroller));
  guint first = G_MAXUINT;

  for (guint i = 0; i < self->rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (self->rows, i);
      PdOverviewCard *card = pd_overview_card_row_get_card (PD_OVERVIEW_CARD_ROW (row));
      graphene_rect_t bounds;

      if (card == NULL || g_hash_table_contains (fresh, card) || !gtk_widget_get_mapped (row) ||
          !gtk_widget_compute_bounds (row, GTK_WIDGET (self->scroller), &bounds) ||
          bounds.origin.y + bounds.size.height <= 0 || bounds.origin.y >= height)
        continue;
      for (guint j = 0; j < MIN (first, g_list_model_get_n_items (shown)); j++)
        {
          g_autoptr(PdOverviewCard) item = g_list_model_get_item (shown, j);

          if (item == card)
            {
              first = j;
              break;
            }
        }
    }
  return first;
}

/* Cards that ask a question go first: a new one, with the list scrolled
 * below it, is out of sight (tried as a new user would). */
static void
check_new_requests (PdOverviewView *self)
{
  GListModel *shown = G_LIST_MODEL (self->shown);
  g_autoptr(GHashTable) asking = g_hash_table_new_full (g_direct_hash, g_direct_equal, g_object_unref, NULL);
  g_autoptr(GHashTable) fresh = g_hash_table_new (g_direct_hash, g_direct_equal);
  guint first_fresh = G_MAXUINT;

  for (guint i = 0; i < g_list_model_get_n_items (shown); i++)
    {
      PdOverviewCard *card = g_list_model_get_item (shown, i);

      if (pd_overview_card_get_need (card) != PD_OVERVIEW_NEED_APPROVAL)
        {
          g_object_unref (card);
          break;
        }
      if (!g_hash_table_contains (self->requests, card))
        {
          g_hash_table_add (fresh, card);
          first_fresh = MIN (first_fresh, i);
        }
      g_hash_table_add (asking, card);
    }
  g_hash_table_unref (self->requests);
  self->requests = g_steal_pointer (&asking);

  if (g_hash_table_size (fresh) == 0 || !gtk_widget_get_mapped (GTK_WIDGET (self)))
    return;
  if (self->pinned)
    {
      /* At the top: it stays there, where the question shows. */
      arm_keep_at_top (self);
      return;
    }
  if (first_fresh < first_visible (self, fresh))
    {
      g_autofree char *label = NULL;

      self->n_new += g_hash_table_size (fresh);
      /* Translators: on a button at the top of the Overview; questions of
       * agents that came above the cards shown */
      label = g_strdup_printf (ngettext ("%u New Request", "%u New Requests", self->n_new), self->n_new);
      gtk_button_set_label (GTK_BUTTON (self->new_requests), label);
      gtk_widget_set_visible (self->new_requests, TRUE);
    }
}

/* Shown again after cards came first: the list opens at its top, where
 * they are. */
static void
on_list_mapped (PdOverviewView *self)
{
  if (!self->top_on_map)
    return;
  self->top_on_map = FALSE;
  self->pinned = TRUE;
  arm_keep_at_top (self);
}

static void
on_new_requests_clicked (PdOverviewView *self)
{
  GtkAdjustment *adjustment = vadjustment (self);

  /* Not the list's focus: GTK 4.8 scrolls back to the row that had it. */
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_lower (adjustment));
  hide_new_requests (self);
}

static void
on_scrolled (PdOverviewView *self)
{
  GtkAdjustment *adjustment = vadjustment (self);
  gboolean at_top = gtk_adjustment_get_value (adjustment) <= gtk_adjustment_get_lower (adjustment);

  /* Moved down in a frame while it is kept at its top and no person
   * touched it: GTK keeps a card in place as it lays the list out with
   * cards come above; the list is still the one a person left at its top.
   * Any other move is a person's (or their keys', or a program's set
   * between frames). */
  if (at_top)
    self->pinned = TRUE;
  else if (self->to_top == 0 || !self->in_frame || self->user_input)
    self->pinned = FALSE;
  if (self->n_new > 0 && at_top)
    hide_new_requests (self);
}

static void
on_shown_changed (PdOverviewView *self,
                  guint           position,
                  guint           removed,
                  guint           added)
{
  update_page (self);
  /* A card that comes first while the list is at its top shows there: the
   * window opened with its first card half out of sight above, and cards
   * that came first went there too (tried as a new user would).  So does
   * any change of a list at its top: cards placed again below the first
   * moved the list with a row GTK 4.8 kept in place, and the first card
   * went out of sight above.  "At its top" is where a person left it:
   * cards that come while GTK still holds the old first card in place,
   * a frame below the top (at start-up, every endpoint's after this
   * computer's), keep it there too (tried as a new user would: 5 of 9
   * start-ups opened on this computer's card, pages down). */
  if (added > 0 && position == 0 && !gtk_widget_get_mapped (GTK_WIDGET (self->list_view)))
    self->top_on_map = TRUE;
  else if ((added > 0 || removed > 0) && self->pinned)
    arm_keep_at_top (self);
  check_new_requests (self);
}

/* --- the focus after a card's question is answered -------------------------
 *
 * Deny or Approve Once pressed from the keyboard went away with the focus on
 * it once the question was answered, and the focus dropped to the card
 * placed again further down, or to nothing (tried with the keyboard
 * alone).  The focus goes to the card now in the answered card's place,
 * the next most in need, or to the last card.
 */

static void
forget_answered (PdOverviewView *self)
{
  if (self->answered != NULL)
    g_clear_signal_handler (&self->answered_changed, self->answered);
  g_clear_object (&self->answered);
  g_clear_handle_id (&self->land, g_source_remove);
}

static PdOverviewCardRow *card_row_of (GtkWidget *widget);

static gboolean
find_card (GListModel     *model,
           PdOverviewCard *card,
           guint          *position)
{
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr(PdOverviewCard) item = g_list_model_get_item (model, i);

      if (item == card)
        {
          *position = i;
          return TRUE;
        }
    }
  return FALSE;
}
static GtkWidget *card_row_at (PdOverviewView *self, guint position);

static gboolean
land_after_answer (gpointer data)
{
  PdOverviewView *self = data;
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  PdOverviewCardRow *focus_row = focus != NULL ? card_row_of (focus) : NULL;
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->shown));
  guint position = MIN (self->answered_at, n > 0 ? n - 1 : 0);
  gboolean still_there;
  GtkWidget *row;

  self->land = 0;
  /* Where the answer left it: nothing, what is not drawn, or the answered
   * card (a person who moved on is left where they went). */
  still_there = focus == NULL || !gtk_widget_is_drawable (focus) ||
                (focus_row != NULL && pd_overview_card_row_get_card (focus_row) == self->answered);
  g_clear_object (&self->answered);
  if (!still_there || !gtk_widget_get_mapped (GTK_WIDGET (self)))
    return G_SOURCE_REMOVE;
  if (n == 0)
    {
      gtk_widget_child_focus (GTK_WIDGET (self), GTK_DIR_TAB_FORWARD);
      return G_SOURCE_REMOVE;
    }
  gtk_widget_activate_action (GTK_WIDGET (self->list_view), "list.scroll-to-item", "u", position);
  row = card_row_at (self, position);
  if (row == NULL || !gtk_widget_grab_focus (row))
    gtk_widget_grab_focus (GTK_WIDGET (self->list_view));
  return G_SOURCE_REMOVE;
}

static void
on_answered_changed (PdOverviewView *self,
                     PdOverviewCard *card)
{
  if (pd_overview_card_has_approval (card) || self->land != 0)
    return;
  g_clear_signal_handler (&self->answered_changed, card);
  /* After the cards are placed again. */
  self->land = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, land_after_answer, self, NULL);
}

static void
on_answer (PdOverviewView    *self,
           PdOverviewCard    *card,
           gboolean           approve,
           PdRemoteRun       *run,
           guint              serial,
           PdOverviewCardRow *row)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (row));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  guint position;

  forget_answered (self);
  /* Watched before the answer is sent: a run of this window takes it at
   * once. */
  if (focus != NULL && gtk_widget_is_ancestor (focus, GTK_WIDGET (row)) &&
      find_card (G_LIST_MODEL (self->shown), card, &position))
    {
      self->answered = g_object_ref (card);
      self->answered_at = position;
      self->answered_changed = g_signal_connect_object (card, "changed", G_CALLBACK (on_answered_changed),
                                                        self, G_CONNECT_SWAPPED);
    }
  g_signal_emit (self, signals[ANSWER], 0, card, approve, run, serial);
}

/* A question the card cannot show whole: seen and answered in its session. */
static void
on_open (PdOverviewView    *self,
         PdOverviewCard    *card,
         PdOverviewCardRow *row)
{
  g_signal_emit (self, signals[CARD_ACTIVATED], 0, card);
}

static gboolean
card_is_shown (gpointer item,
               gpointer data)
{
  PdOverviewView *self = data;

  if (g_hash_table_size (self->hidden) > 0)
    {
      g_autofree char *key = g_strdup_printf ("%p/%s", (gpointer) pd_overview_card_get_source (item),
                                              pd_overview_card_get_session_id (item));

      if (g_hash_table_contains (self->hidden, key))
        return FALSE;
    }
  return self->source == NULL || pd_overview_card_get_source (item) == self->source;
}

/**
 * pd_overview_view_set_hidden:
 * @source: the card's source
 * @id: its session
 * @hidden: whether the card is left out
 *
 * Leaves out the card of a session deleted while its toast offers Undo, or
 * shows it again: the card stayed until the deletion was done, beside the
 * toast that said it was deleted (tried as a new user would).
 */
void
pd_overview_view_set_hidden (PdOverviewView *self,
                             PdSource       *source,
                             const char     *id,
                             gboolean        hidden)
{
  char *key;
  gboolean changed;

  g_return_if_fail (PD_IS_OVERVIEW_VIEW (self));
  g_return_if_fail (id != NULL);

  key = g_strdup_printf ("%p/%s", (gpointer) source, id);
  if (hidden)
    changed = g_hash_table_add (self->hidden, key);
  else
    {
      changed = g_hash_table_remove (self->hidden, key);
      g_free (key);
    }
  if (changed)
    gtk_filter_changed (GTK_FILTER (self->filter),
                        hidden ? GTK_FILTER_CHANGE_MORE_STRICT : GTK_FILTER_CHANGE_LESS_STRICT);
}

/* A row finalized without its teardown (the list gone first) leaves the
 * rows: the clock told the time again on a row that was freed. */
static void
on_row_finalized (gpointer  data,
                  GObject  *row)
{
  PdOverviewView *self = data;

  g_ptr_array_remove_fast (self->rows, row);
}

/* --- a card's menu ---------------------------------------------------------
 *
 * A right click, a long press, the Menu key or Shift+F10 on a card opens
 * its menu, as on a row of the session list: what the window offers for
 * that card's session (::card-menu; Export and Delete of the session list,
 * for the card's own source).  The Overview had none, and the window's
 * menu showed Export and Delete greyed out beside it (N11).
 */

static PdOverviewCardRow *
card_row_of (GtkWidget *widget)
{
  for (GtkWidget *w = widget; w != NULL; w = gtk_widget_get_parent (w))
    {
      if (PD_IS_OVERVIEW_CARD_ROW (w))
        return PD_OVERVIEW_CARD_ROW (w);
      /* A card's list item holds the row. */
      if (gtk_widget_get_first_child (w) != NULL && PD_IS_OVERVIEW_CARD_ROW (gtk_widget_get_first_child (w)))
        return PD_OVERVIEW_CARD_ROW (gtk_widget_get_first_child (w));
    }
  return NULL;
}

/* A card's menu closed (Escape, an item chosen): the focus back on its
 * card, or on the first card when it went (deleted).  GTK put it on a
 * header's first button (tried with the keyboard alone). */
static void
on_menu_closed (PdOverviewView *self)
{
  g_autoptr(PdOverviewCard) card = g_steal_pointer (&self->menu_card);
  GtkWidget *row = NULL;

  if (!gtk_widget_get_mapped (GTK_WIDGET (self)))
    return;
  for (guint i = 0; card != NULL && i < self->rows->len && row == NULL; i++)
    if (pd_overview_card_row_get_card (g_ptr_array_index (self->rows, i)) == card)
      row = g_ptr_array_index (self->rows, i);
  if (row == NULL || !gtk_widget_get_mapped (row))
    row = card_row_at (self, 0);
  if (row != NULL && gtk_widget_get_mapped (row))
    gtk_widget_grab_focus (row);
}

/**
 * pd_overview_view_popup_card_menu:
 * @card: a card shown
 *
 * Opens @card's menu at its row (the window gives its items through
 * ::card-menu); nothing when the window gives none.
 *
 * Returns: whether the menu opened
 */
gboolean
pd_overview_view_popup_card_menu (PdOverviewView *self,
                                  PdOverviewCard *card)
{
  g_autoptr(GMenuModel) model = NULL;
  GtkWidget *row = NULL;
  graphene_rect_t bounds;
  GdkRectangle rect = { 0, 0, 1, 1 };

  g_return_val_if_fail (PD_IS_OVERVIEW_VIEW (self), FALSE);
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD (card), FALSE);

  g_signal_emit (self, signals[CARD_MENU], 0, card, &model);
  if (model == NULL || g_menu_model_get_n_items (model) == 0)
    return FALSE;
  if (self->menu == NULL)
    {
      self->menu = gtk_popover_menu_new_from_model (NULL);
      g_signal_connect_object (self->menu, "closed", G_CALLBACK (on_menu_closed), self, G_CONNECT_SWAPPED);
      gtk_widget_set_parent (self->menu, GTK_WIDGET (self));
      /* Named, not "GtkPopoverMenu" (tried with a screen reader). */
      _pd_menu_set_name (self->menu, _("Session Menu"));
      gtk_popover_set_has_arrow (GTK_POPOVER (self->menu), FALSE);
      gtk_widget_set_halign (self->menu, GTK_ALIGN_START);
    }
  gtk_popover_menu_set_menu_model (GTK_POPOVER_MENU (self->menu), model);
  for (guint i = 0; i < self->rows->len && row == NULL; i++)
    if (pd_overview_card_row_get_card (g_ptr_array_index (self->rows, i)) == card)
      row = g_ptr_array_index (self->rows, i);
  if (row != NULL && gtk_widget_get_mapped (row) && gtk_widget_compute_bounds (row, GTK_WIDGET (self), &bounds))
    rect = (GdkRectangle) { (int) bounds.origin.x + 24, (int) bounds.origin.y + 24, 1, 1 };
  gtk_popover_set_pointing_to (GTK_POPOVER (self->menu), &rect);
  g_set_object (&self->menu_card, card);
  gtk_popover_popup (GTK_POPOVER (self->menu));
  return TRUE;
}

/**
 * pd_overview_view_get_card_menu:
 *
 * Returns: (transfer none) (nullable): the popover of a card's menu, once
 *   one was opened
 */
GtkWidget *
pd_overview_view_get_card_menu (PdOverviewView *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_VIEW (self), NULL);
  return self->menu;
}

static void
popup_at (PdOverviewView *self,
          double          x,
          double          y)
{
  GtkWidget *picked = gtk_widget_pick (GTK_WIDGET (self->list_view), x, y, GTK_PICK_DEFAULT);
  PdOverviewCardRow *row = picked != NULL ? card_row_of (picked) : NULL;

  if (row != NULL && pd_overview_card_row_get_card (row) != NULL)
    pd_overview_view_popup_card_menu (self, pd_overview_card_row_get_card (row));
}

static void
on_right_click (GtkGestureClick *gesture,
                int              n_press,
                double           x,
                double           y,
                PdOverviewView  *self)
{
  popup_at (self, x, y);
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
}

static void
on_long_press (GtkGestureLongPress *gesture,
               double               x,
               double               y,
               PdOverviewView      *self)
{
  popup_at (self, x, y);
}

/* The Menu key or Shift+F10: the menu of the card that has the focus. */
static gboolean
on_menu_key (GtkWidget *list_view,
             GVariant  *args,
             gpointer   user_data)
{
  PdOverviewView *self = user_data;
  GtkRoot *root = gtk_widget_get_root (list_view);
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  PdOverviewCardRow *row = focus != NULL ? card_row_of (focus) : NULL;

  if (row == NULL || pd_overview_card_row_get_card (row) == NULL)
    return FALSE;
  return pd_overview_view_popup_card_menu (self, pd_overview_card_row_get_card (row));
}

static void
setup_menu (PdOverviewView *self)
{
  GtkGesture *click = gtk_gesture_click_new ();
  GtkGesture *press = gtk_gesture_long_press_new ();
  GtkEventController *keys = gtk_shortcut_controller_new ();

  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_SECONDARY);
  g_signal_connect (click, "pressed", G_CALLBACK (on_right_click), self);
  gtk_widget_add_controller (GTK_WIDGET (self->list_view), GTK_EVENT_CONTROLLER (click));
  gtk_gesture_single_set_touch_only (GTK_GESTURE_SINGLE (press), TRUE);
  g_signal_connect (press, "pressed", G_CALLBACK (on_long_press), self);
  gtk_widget_add_controller (GTK_WIDGET (self->list_view), GTK_EVENT_CONTROLLER (press));
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
                                        gtk_shortcut_new (gtk_alternative_trigger_new (gtk_keyval_trigger_new (GDK_KEY_Menu, 0),
                                                                                       gtk_keyval_trigger_new (GDK_KEY_F10, GDK_SHIFT_MASK)),
                                                          gtk_callback_action_new (on_menu_key, self, NULL)));
  gtk_widget_add_controller (GTK_WIDGET (self->list_view), keys);
}

/* --- the keyboard: the cards are one Tab stop ------------------------------
 *
 * GTK 4.8 made each card a Tab stop, and a card with Deny and Approve Once
 * gave the focus to its buttons, or to no widget one could see (tried as a
 * new user would).  The cards are one stop: the arrows move between cards,
 * each card takes the focus whole (its buttons are out of the arrows'
 * way), Enter opens its session; Tab goes from a card to the command it
 * asks about (selectable text, so a screen reader reads it) and its
 * buttons, and from the last of them (or a card with none) out of the list.
 */

static void
collect_buttons (GtkWidget *widget,
                 GPtrArray *buttons)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (!gtk_widget_get_visible (child))
        continue;
      if (GTK_IS_BUTTON (child) || (GTK_IS_LABEL (child) && gtk_label_get_selectable (GTK_LABEL (child))))
        {
          if (gtk_widget_is_sensitive (child) && gtk_widget_get_focusable (child))
            g_ptr_array_add (buttons, child);
        }
      else
        collect_buttons (child, buttons);
    }
}

static gboolean
on_tab (GtkWidget *list_view,
        GVariant  *args,
        gpointer   user_data)
{
  GtkDirectionType direction = g_variant_get_int32 (args);
  GtkRoot *root = gtk_widget_get_root (list_view);
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  g_autoptr(GPtrArray) buttons = g_ptr_array_new ();
  GtkWidget *item = NULL;
  GtkWidget *card = NULL;
  int at = -1;

  for (GtkWidget *w = focus; w != NULL && w != list_view; w = gtk_widget_get_parent (w))
    if (gtk_widget_get_parent (w) == list_view)
      item = w;
  if (item != NULL)
    card = gtk_widget_get_first_child (item);
  if (card != NULL && PD_IS_OVERVIEW_CARD_ROW (card))
    collect_buttons (card, buttons);
  for (guint i = 0; i < buttons->len; i++)
    if (focus == g_ptr_array_index (buttons, i) || gtk_widget_is_ancestor (focus, g_ptr_array_index (buttons, i)))
      at = (int) i;

  if (direction == GTK_DIR_TAB_FORWARD && at + 1 < (int) buttons->len)
    return gtk_widget_grab_focus (g_ptr_array_index (buttons, at + 1));
  if (direction == GTK_DIR_TAB_BACKWARD && at > 0)
    return gtk_widget_grab_focus (g_ptr_array_index (buttons, at - 1));
  /* Back to the card itself. */
  if (direction == GTK_DIR_TAB_BACKWARD && at == 0)
    return gtk_widget_grab_focus (card);
  return _pd_list_leave (list_view, direction);
}

/* The row of the card at @position, when the list has made it. */
static GtkWidget *
card_row_at (PdOverviewView *self,
             guint           position)
{
  g_autoptr(PdOverviewCard) card = g_list_model_get_item (G_LIST_MODEL (self->shown), position);

  for (guint i = 0; card != NULL && i < self->rows->len; i++)
    {
      GtkWidget *row = g_ptr_array_index (self->rows, i);

      if (pd_overview_card_row_get_card (PD_OVERVIEW_CARD_ROW (row)) == card)
        return row;
    }
  return NULL;
}

/**
 * pd_overview_view_focus_first:
 * @self: a #PdOverviewView
 *
 * Puts the focus on the first card, the one that needs the person first,
 * scrolled into sight.  A card the list has not made yet (scrolled far
 * down) is scrolled to: call again after the next frame.
 *
 * Returns: whether the first card has the focus
 */
gboolean
pd_overview_view_focus_first (PdOverviewView *self)
{
  GtkWidget *row;

  g_return_val_if_fail (PD_IS_OVERVIEW_VIEW (self), FALSE);
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->stack), "cards") != 0 ||
      g_list_model_get_n_items (G_LIST_MODEL (self->shown)) == 0)
    return FALSE;
  gtk_widget_activate_action (GTK_WIDGET (self->list_view), "list.scroll-to-item", "u", 0);
  row = card_row_at (self, 0);
  return row != NULL && gtk_widget_get_child_visible (gtk_widget_get_parent (row)) && gtk_widget_grab_focus (row);
}

/* Tab into the cards: the first, the one that needs the person first.
 * GTK 4.8's list gave the focus back to the card it last had, wherever
 * that card had moved since, often out of sight. */
static gboolean
pd_overview_view_focus (GtkWidget        *widget,
                        GtkDirectionType  direction)
{
  PdOverviewView *self = PD_OVERVIEW_VIEW (widget);

  if (gtk_widget_get_focus_child (widget) == NULL &&
      (direction == GTK_DIR_TAB_FORWARD || direction == GTK_DIR_TAB_BACKWARD) &&
      pd_overview_view_focus_first (self))
    return TRUE;
  return GTK_WIDGET_CLASS (pd_overview_view_parent_class)->focus (widget, direction);
}

static void
setup_keys (PdOverviewView *self)
{
  /* Before a card's buttons take Tab. */
  _pd_take_tab (GTK_WIDGET (self->list_view), GTK_PHASE_CAPTURE, on_tab);
}

/* A row whose place in the list changed (the cards placed again, one
 * added above) holds its buttons back a moment: see
 * pd_overview_card_row_note_moved(). */
static void
on_position_changed (GtkListItem *item)
{
  GtkWidget *row = gtk_list_item_get_child (item);

  if (PD_IS_OVERVIEW_CARD_ROW (row))
    pd_overview_card_row_note_moved (PD_OVERVIEW_CARD_ROW (row));
}

static void
on_setup (GtkSignalListItemFactory *factory,
          GtkListItem              *item,
          PdOverviewView           *self)
{
  GtkWidget *row = pd_overview_card_row_new ();

  g_signal_connect (item, "notify::position", G_CALLBACK (on_position_changed), NULL);

  /* The card takes the focus whole (the arrows come to it, not to its
   * buttons); Tab leads into its buttons. */
  gtk_widget_set_focusable (row, TRUE);

  g_signal_connect_object (row, "answer", G_CALLBACK (on_answer), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (row, "open", G_CALLBACK (on_open), self, G_CONNECT_SWAPPED);
  g_ptr_array_add (self->rows, row);
  g_object_weak_ref (G_OBJECT (row), on_row_finalized, self);
  gtk_list_item_set_child (item, row);
}

static void
on_teardown (GtkSignalListItemFactory *factory,
             GtkListItem              *item,
             PdOverviewView           *self)
{
  GtkWidget *row = gtk_list_item_get_child (item);

  if (row != NULL && g_ptr_array_remove_fast (self->rows, row))
    g_object_weak_unref (G_OBJECT (row), on_row_finalized, self);
}

static void
on_bind (GtkSignalListItemFactory *factory,
         GtkListItem              *item,
         PdOverviewView           *self)
{
  pd_overview_card_row_set_card (PD_OVERVIEW_CARD_ROW (gtk_list_item_get_child (item)),
                                 gtk_list_item_get_item (item));
}

static void
on_unbind (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           PdOverviewView           *self)
{
  pd_overview_card_row_set_card (PD_OVERVIEW_CARD_ROW (gtk_list_item_get_child (item)), NULL);
}

static void
on_activate (PdOverviewView *self,
             guint           position)
{
  g_autoptr(PdOverviewCard) card = g_list_model_get_item (G_LIST_MODEL (self->shown), position);

  if (card != NULL)
    g_signal_emit (self, signals[CARD_ACTIVATED], 0, card);
}

static gboolean
on_clock (gpointer data)
{
  PdOverviewView *self = data;

  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    for (guint i = 0; i < self->rows->len; i++)
      pd_overview_card_row_update_time (g_ptr_array_index (self->rows, i));
  return G_SOURCE_CONTINUE;
}

/**
 * pd_overview_view_get_overview:
 *
 * Returns: (transfer none) (nullable): the cards shown
 */
PdOverview *
pd_overview_view_get_overview (PdOverviewView *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_VIEW (self), NULL);
  return self->overview;
}

void
pd_overview_view_set_overview (PdOverviewView *self,
                               PdOverview     *overview)
{
  g_return_if_fail (PD_IS_OVERVIEW_VIEW (self));

  if (self->overview == overview)
    return;
  if (self->overview != NULL)
    g_signal_handlers_disconnect_by_data (self->overview, self);
  g_set_object (&self->overview, overview);
  if (overview != NULL)
    {
      g_signal_connect_swapped (overview, "notify::active-minutes", G_CALLBACK (update_page), self);
      g_signal_connect_swapped (overview, "notify::n-waiting", G_CALLBACK (update_page), self);
    }
  gtk_filter_list_model_set_model (self->shown, G_LIST_MODEL (overview));
  update_page (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OVERVIEW]);
}

/**
 * pd_overview_view_get_source:
 *
 * Returns: (transfer none) (nullable): the source whose cards alone are
 *   shown, or %NULL for all
 */
PdSource *
pd_overview_view_get_source (PdOverviewView *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_VIEW (self), NULL);
  return self->source;
}

/* Shows the cards of @source alone; %NULL: every card. */
void
pd_overview_view_set_source (PdOverviewView *self,
                             PdSource       *source)
{
  g_return_if_fail (PD_IS_OVERVIEW_VIEW (self));

  if (self->source == source)
    return;
  g_set_object (&self->source, source);
  gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
  update_page (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOURCE]);
}

/**
 * pd_overview_view_get_shown:
 *
 * Returns: (transfer none): the cards shown, in their order
 */
GListModel *
pd_overview_view_get_shown (PdOverviewView *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_VIEW (self), NULL);
  return G_LIST_MODEL (self->shown);
}

static void
pd_overview_view_dispose (GObject *object)
{
  PdOverviewView *self = PD_OVERVIEW_VIEW (object);

  g_clear_handle_id (&self->clock, g_source_remove);
  forget_answered (self);
  if (self->to_top != 0 && self->list_view != NULL)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self->list_view), self->to_top);
  self->to_top = 0;
  g_clear_pointer (&self->menu, gtk_widget_unparent);
  g_clear_object (&self->menu_card);
  pd_overview_view_set_overview (self, NULL);
  g_clear_object (&self->source);
  gtk_widget_dispose_template (GTK_WIDGET (self), PD_TYPE_OVERVIEW_VIEW);

  G_OBJECT_CLASS (pd_overview_view_parent_class)->dispose (object);
}

static void
pd_overview_view_finalize (GObject *object)
{
  PdOverviewView *self = PD_OVERVIEW_VIEW (object);

  for (guint i = 0; i < self->rows->len; i++)
    g_object_weak_unref (g_ptr_array_index (self->rows, i), on_row_finalized, self);
  g_clear_pointer (&self->rows, g_ptr_array_unref);
  g_clear_pointer (&self->requests, g_hash_table_unref);
  g_clear_pointer (&self->hidden, g_hash_table_unref);
  g_clear_object (&self->shown);
  g_clear_object (&self->filter);

  G_OBJECT_CLASS (pd_overview_view_parent_class)->finalize (object);
}

static void
pd_overview_view_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  PdOverviewView *self = PD_OVERVIEW_VIEW (object);

  switch (prop_id)
    {
    case PROP_OVERVIEW:
      g_value_set_object (value, self->overview);
      break;
    case PROP_SOURCE:
      g_value_set_object (value, self->source);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_overview_view_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  PdOverviewView *self = PD_OVERVIEW_VIEW (object);

  switch (prop_id)
    {
    case PROP_OVERVIEW:
      pd_overview_view_set_overview (self, g_value_get_object (value));
      break;
    case PROP_SOURCE:
      pd_overview_view_set_source (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_overview_view_class_init (PdOverviewViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pd_overview_view_dispose;
  widget_class->focus = pd_overview_view_focus;
  object_class->finalize = pd_overview_view_finalize;
  object_class->get_property = pd_overview_view_get_property;
  object_class->set_property = pd_overview_view_set_property;

  properties[PROP_OVERVIEW] =
    g_param_spec_object ("overview", NULL, NULL, PD_TYPE_OVERVIEW,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SOURCE] =
    g_param_spec_object ("source", NULL, NULL, PD_TYPE_SOURCE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * PdOverviewView::card-activated:
   * @card: the card a person opened
   */
  signals[CARD_ACTIVATED] = g_signal_new ("card-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                          0, NULL, NULL, NULL, G_TYPE_NONE, 1, PD_TYPE_OVERVIEW_CARD);
  /**
   * PdOverviewView::answer:
   * @card: the card whose run waits on a question
   * @approve: Approve Once, or Deny
   * @run: (nullable): the endpoint's run and question the card showed
   * @serial: the question of a run in this window the card showed, or 0
   */
  signals[ANSWER] = g_signal_new ("answer", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                  0, NULL, NULL, NULL, G_TYPE_NONE, 4, PD_TYPE_OVERVIEW_CARD, G_TYPE_BOOLEAN,
                                  PD_TYPE_REMOTE_RUN | G_SIGNAL_TYPE_STATIC_SCOPE, G_TYPE_UINT);

  /**
   * PdOverviewView::card-menu:
   * @card: the card whose menu opens
   *
   * Returns: (transfer full) (nullable): the items of @card's menu
   */
  signals[CARD_MENU] = g_signal_new ("card-menu", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                     0, g_signal_accumulator_first_wins, NULL, NULL, G_TYPE_MENU_MODEL, 1,
                                     PD_TYPE_OVERVIEW_CARD);

  gtk_widget_class_set_template_from_resource (widget_class, "/io/github/plandeck/Plandeck/ui/pd-overview-view.ui");
  gtk_widget_class_bind_template_child (widget_class, PdOverviewView, stack);
  gtk_widget_class_bind_template_child (widget_class, PdOverviewView, empty_page);
  gtk_widget_class_bind_template_child (widget_class, PdOverviewView, loading_spinner);
  gtk_widget_class_bind_template_child (widget_class, PdOverviewView, waiting_note);
  /* Named, so that gtk_widget_dispose_template() takes it out. */
  gtk_widget_class_bind_template_child_full (widget_class, "box", FALSE, 0);
  gtk_widget_class_bind_template_child (widget_class, PdOverviewView, scroller);
  gtk_widget_class_bind_template_child (widget_class, PdOverviewView, list_view);
  gtk_widget_class_bind_template_child (widget_class, PdOverviewView, new_requests);
  gtk_widget_class_bind_template_callback (widget_class, on_activate);
  gtk_widget_class_bind_template_callback (widget_class, on_new_requests_clicked);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "overview");

  /* Its list's scroll bars are named as they are realized, in whatever
   * window holds the view: only PdWindow asked for that, so an Overview
   * shown before (or without) one had a scroll bar AT-SPI called
   * "GtkScrollbar". */
  _pd_scrollbars_speak ();
  /* A group named for its page ("Now", "Sessions"): a reader met it by its
   * class, "PdNowView" (issue 23). */
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
pd_overview_view_init (PdOverviewView *self)
{
  g_autoptr(GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
  GtkEventController *scroll, *keys;
  GtkGesture *click;

  self->rows = g_ptr_array_new ();
  self->requests = g_hash_table_new_full (g_direct_hash, g_direct_equal, g_object_unref, NULL);
  gtk_widget_init_template (GTK_WIDGET (self));
  _pd_stack_tab_shown_only (self->stack);
  g_signal_connect_object (vadjustment (self), "value-changed", G_CALLBACK (on_scrolled), self, G_CONNECT_SWAPPED);
  self->pinned = TRUE;
  /* What a person does to the list, seen before the list sees it. */
  scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  gtk_event_controller_set_propagation_phase (scroll, GTK_PHASE_CAPTURE);
  g_signal_connect_swapped (scroll, "scroll-begin", G_CALLBACK (on_user_input), self);
  g_signal_connect_swapped (scroll, "scroll", G_CALLBACK (on_user_input), self);
  gtk_widget_add_controller (GTK_WIDGET (self->scroller), scroll);
  click = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), 0);
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (click), GTK_PHASE_CAPTURE);
  g_signal_connect_swapped (click, "pressed", G_CALLBACK (on_user_input), self);
  gtk_widget_add_controller (GTK_WIDGET (self->scroller), GTK_EVENT_CONTROLLER (click));
  keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect_swapped (keys, "key-pressed", G_CALLBACK (on_user_input), self);
  gtk_widget_add_controller (GTK_WIDGET (self->scroller), keys);
  self->hidden = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->filter = gtk_custom_filter_new (card_is_shown, self, NULL);
  self->shown = gtk_filter_list_model_new (NULL, GTK_FILTER (g_object_ref (self->filter)));
  g_signal_connect_swapped (self->shown, "items-changed", G_CALLBACK (on_shown_changed), self);
  g_signal_connect_swapped (self->list_view, "map", G_CALLBACK (on_list_mapped), self);
  g_signal_connect_swapped (self->list_view, "realize", G_CALLBACK (on_list_realize), self);
  g_signal_connect_swapped (self->list_view, "unrealize", G_CALLBACK (on_list_unrealize), self);
  gtk_list_view_set_model (self->list_view,
                           GTK_SELECTION_MODEL (gtk_no_selection_new (G_LIST_MODEL (g_object_ref (self->shown)))));
  g_signal_connect (factory, "setup", G_CALLBACK (on_setup), self);
  g_signal_connect (factory, "teardown", G_CALLBACK (on_teardown), self);
  g_signal_connect (factory, "bind", G_CALLBACK (on_bind), self);
  g_signal_connect (factory, "unbind", G_CALLBACK (on_unbind), self);
  gtk_list_view_set_factory (self->list_view, factory);
  setup_keys (self);
  setup_menu (self);
  self->clock = g_timeout_add_seconds (TIME_REFRESH_SECONDS, on_clock, self);
  update_page (self);
}

GtkWidget *
pd_overview_view_new (void)
{
  return g_object_new (PD_TYPE_OVERVIEW_VIEW, NULL);
}
