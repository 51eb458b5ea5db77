/* pd-window-titles.c: the session's title on the window's pages (part of PdWindow)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * At 360 px the header cuts a session's title ("Add an ex…", tried as a
 * new user would): the pages of the session head themselves with it,
 * whole and wrapped, as their first line, scrolling away with the page:
 * the Now page (and an imported session's checklist) head the plan,
 * History the version shown.  The Transcript and Events pages head
 * themselves above their lists, which do not scroll it away (issue 23).
 */
#define G_LOG_DOMAIN "pd-window"

#include "config.h"

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
  pd_transcript_view_set_title (self->transcript_view, title);
  pd_events_view_set_title (self->events_view, title);
  pd_history_view_set_title (self->history_view, title);
}
