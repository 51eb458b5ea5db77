/* pd-window-titles.c: the session's title on the window's pages (part of PdWindow)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * At 360 px the header cuts a session's title ("Add an ex…", tried as a
 * new user would): each page of the session heads itself with it, whole
 * and wrapped, as its first line, scrolling away with the page. The Now
 * page (and an imported session's checklist) head the plan, the Transcript
 * and Events pages their list, History the version shown.
 */
#define G_LOG_DOMAIN "pd-window"

#include "config.h"

#include "pd-headed-scrollable.h"
#include "pd-window-private.h"

/**
 * _pd_window_show_page_titles:
 * @title: (nullable): the session's title, anyone's text (the agent's);
 *   %NULL with no session shown
 */
void
_pd_window_show_page_titles (PdWindow   *self,
                             const char *title)
{
  pd_checklist_view_set_title (self->checklist_view, title);
  pd_now_view_set_title (self->now_view, title);
  pd_headed_scrollable_set_title (pd_headed_scrollable_find (GTK_WIDGET (self->transcript_view)), title);
  pd_headed_scrollable_set_title (pd_headed_scrollable_find (GTK_WIDGET (self->events_view)), title);
  pd_history_view_set_title (self->history_view, title);
}
