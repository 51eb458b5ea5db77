/* pd-session-list-top.c: the session list stays at its top
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A list scrolled to its top stays there as sessions come above the rows
 * in sight, shown or hidden as they come, as a mail client's does; a list
 * scrolled down keeps the rows in sight where they are (GTK's own anchor).
 * Split from pd-session-list.c, which holds the listing.
 */
#define G_LOG_DOMAIN "pd-session-list"

#include "config.h"

#include "pd-session-list-private.h"

static GtkAdjustment *
list_adjustment (PdSessionList *self)
{
  return gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (self->list_view));
}

static gboolean
keep_at_top (GtkWidget     *widget,
             GdkFrameClock *clock,
             gpointer       data)
{
  PdSessionList *self = PD_SESSION_LIST (widget);

  /* The list keeps the row that was first in its place, the new ones
   * above it out of sight: once they are laid out (a frame later), the
   * list goes to its top again. */
  if (self->top_frames++ == 0)
    return G_SOURCE_CONTINUE;
  self->top_tick = 0;
  gtk_adjustment_set_value (list_adjustment (self), gtk_adjustment_get_lower (list_adjustment (self)));
  return G_SOURCE_REMOVE;
}

/* Goes to the list's top once the rows merged are laid out. */
void
_pd_session_list_show_top (PdSessionList *self)
{
  self->top_frames = 0;
  if (self->top_tick == 0)
    self->top_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self), keep_at_top, NULL, NULL);
}

/* A session that comes first (a new one, one just changed) while the list
 * is at its top shows there: it came above the rows in sight and the list
 * did not move (tried as a new user would).  So does any change of a list
 * at its top: one that came second, under a pinned session, moved the row
 * open below it down, and GTK 4.8's list went with that row (it has the
 * focus), the pinned row out of sight above (tried as a new user would). */
static void
on_shown_items_changed (PdSessionList *self,
                        guint          position,
                        guint          removed,
                        guint          added)
{
  GtkAdjustment *adjustment = list_adjustment (self);
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  /* Below the first row, only with the focus in the list (what GTK keeps
   * in place): with the focus elsewhere, the tick it took moved the focus
   * of a folded window's Events page out of sight (a11y-keyboard
   * f6-events-folded). */
  if (position > 0 && (focus == NULL || !gtk_widget_is_ancestor (focus, GTK_WIDGET (self->list_view))))
    return;
  if ((added == 0 && removed == 0) || adjustment == NULL ||
      gtk_adjustment_get_value (adjustment) > gtk_adjustment_get_lower (adjustment))
    return;
  /* Hidden (a folded window showing a session), the list lays itself out
   * as it is shown again around the row that was first, the new one above
   * out of sight (tried as a new user would, on a narrow window): it goes
   * to its top once shown. */
  if (!gtk_widget_get_mapped (GTK_WIDGET (self->list_view)))
    {
      self->top_on_map = TRUE;
      return;
    }
  _pd_session_list_show_top (self);
}

static void
on_list_view_map (PdSessionList *self)
{
  if (self->top_on_map)
    _pd_session_list_show_top (self);
  self->top_on_map = FALSE;
}

void
_pd_session_list_init_top (PdSessionList *self)
{
  g_signal_connect_swapped (self->shown, "items-changed", G_CALLBACK (on_shown_items_changed), self);
  g_signal_connect_swapped (self->list_view, "map", G_CALLBACK (on_list_view_map), self);
}

void
_pd_session_list_dispose_top (PdSessionList *self)
{
  if (self->top_tick != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->top_tick);
  self->top_tick = 0;
}
