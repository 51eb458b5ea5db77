/* pd-window-shown.c: the session the window shows (part of PdWindow)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The selected row decides what the main area shows: the session's views
 * follow its item (running, title, how its last run ended, its plan), or a
 * page stands in their place (loading, Overview, no results, empty).
 */
#define G_LOG_DOMAIN "pd-window"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-ui-util-private.h"
#include "pd-window-private.h"

static void
pd_window_show_page (PdWindow   *self,
                     const char *name)
{
  adw_view_switcher_title_set_view_switcher_enabled (self->switcher_title,
                                                     g_str_equal (name, "session"));
  _pd_stack_show_moving_focus (self->content_stack, name);
}

/* How the shown session's last run ended, for its Now page; whether one
 * goes on, for History's polls (it lagged 10–15 s behind the Now page). */
static void
show_run_end (PdWindow      *self,
              PdSessionItem *item)
{
  const PdSessionInfo *info = item != NULL ? pd_session_item_get_info (item) : NULL;
  gboolean run_stopped = info != NULL && _pd_run_left_off (info->status, info->stopped) &&
                         !pd_session_item_get_running (item);

  pd_session_view_set_running (PD_SESSION_VIEW (self->history_view),
                               item != NULL && pd_session_item_get_running (item));
  if (info == NULL)
    pd_now_view_set_run_end (self->now_view, PD_SESSION_STATUS_IDLE, NULL, NULL);
  else
    pd_now_view_set_run_end (self->now_view, info->status, info->stopped, info->stopped_error);
  /* A step left in progress by it: one glyph on every page. */
  pd_transcript_view_set_run_stopped (self->transcript_view, run_stopped);
  pd_history_view_set_run_stopped (self->history_view, run_stopped);
}

/* Follows the selected session: its title, its status, its plan. */
static void
on_shown_item_running (PdWindow *self)
{
  gboolean running = pd_session_item_get_running (self->shown_item);

  pd_now_view_set_running (self->now_view, running);
  show_run_end (self, self->shown_item);
  /* The events tail live while the run goes on. */
  pd_events_view_set_live (self->events_view, running);
  /* A run another client started on the endpoint while its session was
   * shown is followed as when the session is chosen: its questions come
   * to this window's dialog, not only to odek's page until the endpoint
   * denies them. */
  if (running && self->runs != NULL)
    pd_run_controller_follow (self->runs, pd_session_item_get_id (self->shown_item));
}

/* One snapshot: the selected row draws the plan the Now page shows.  When
 * the list has read a newer one, the Now page reads it too (it will, on
 * the same ::changed, unless it is hidden: then the row takes the list's
 * until the Now page is shown again). */
void
_pd_window_on_now_plan_shown (PdWindow *self)
{
  if (self->shown_item != NULL && !pd_session_item_is_imported (self->shown_item))
    pd_session_item_show_plan (self->shown_item, pd_now_view_get_plan (self->now_view));
}

static void
on_shown_item_ahead (PdWindow *self)
{
  if (pd_session_view_get_visible_now (PD_SESSION_VIEW (self->now_view)))
    pd_now_view_refresh (self->now_view);
  else
    pd_session_item_show_plan (self->shown_item, NULL);
}

static void
on_shown_item_title (PdWindow *self)
{
  _pd_window_show_session_title (self, pd_session_item_get_title (self->shown_item));
  _pd_window_show_page_titles (self, pd_session_item_get_title (self->shown_item));
}

static gboolean
on_first_show_tick (GtkWidget     *widget,
                    GdkFrameClock *clock,
                    gpointer       user_data)
{
  PdWindow *self = PD_WINDOW (widget);

  self->first_show_tick = 0;
  self->first_shown = TRUE;
  _pd_window_update_content (self);

  return G_SOURCE_REMOVE;
}

void
_pd_window_update_content (PdWindow *self)
{
  PdSessionItem *item = pd_session_list_get_selected_item (self->session_list);

  /* The Overview opens no session: no row looks selected beside it (the
   * first one did, tried as a new user would). */
  if (self->overview_shown && item != NULL)
    {
      pd_session_list_unselect (self->session_list);
      item = pd_session_list_get_selected_item (self->session_list);
    }

  /* The first frame shows the list; the session it selects is read and
   * laid out from the next frame on.  Its four views asking for their data
   * and building their rows would otherwise hold that first frame back. */
  if (!self->first_shown && item != NULL && self->shown_item == NULL &&
      gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      if (self->first_show_tick == 0)
        self->first_show_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self), on_first_show_tick,
                                                              NULL, NULL);
      return;
    }
  if (item != NULL)
    self->first_shown = TRUE;

  if (item != self->shown_item)
    {
      if (self->shown_item != NULL)
        {
          g_clear_signal_handler (&self->running_handler, self->shown_item);
          g_clear_signal_handler (&self->title_handler, self->shown_item);
          g_clear_signal_handler (&self->ahead_handler, self->shown_item);
          pd_session_item_show_plan (self->shown_item, NULL);
        }
      g_set_object (&self->shown_item, item);

      if (item != NULL)
        {
          self->running_handler = g_signal_connect_swapped (item, "notify::running",
                                                            G_CALLBACK (on_shown_item_running), self);
          self->title_handler = g_signal_connect_swapped (item, "notify::title",
                                                          G_CALLBACK (on_shown_item_title), self);
          self->ahead_handler = g_signal_connect_swapped (item, "listed-ahead",
                                                          G_CALLBACK (on_shown_item_ahead), self);
          pd_now_view_set_running (self->now_view, pd_session_item_get_running (item));
          show_run_end (self, item);
          /* Another agent's session: its Now workspace is its checklist. */
          gtk_stack_set_visible_child_name (self->now_stack,
                                            pd_session_item_is_imported (item) ? "checklist" : "plan");
          pd_events_view_set_live (self->events_view, pd_session_item_get_running (item));
          _pd_window_show_session_title (self, pd_session_item_get_title (item));
          _pd_window_show_page_titles (self, pd_session_item_get_title (item));
        }
      else
        {
          _pd_window_show_page_titles (self, NULL);
          pd_now_view_set_running (self->now_view, FALSE);
          show_run_end (self, NULL);
          pd_events_view_set_live (self->events_view, FALSE);
          adw_view_switcher_title_set_title (self->switcher_title, _("Plandeck"));
        }

      /* Every view of the session follows through its binding, to the
       * source the session came from. */
      _pd_window_show_session_of (self, item);

      gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.delete-session", item != NULL);
      gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-markdown", item != NULL);
      gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-json", item != NULL);

      _pd_window_update_run_ui (self);
      _pd_window_refresh_plan_mode (self);
      /* A run of this session on the endpoint (from a window since closed,
       * or another client) is followed here, its questions asked here. */
      if (self->runs != NULL && item != NULL)
        pd_run_controller_follow (self->runs, pd_session_item_get_id (item));
    }

  if (self->failed || self->source == NULL)
    return;

  if (!pd_session_list_get_loaded (self->session_list))
    pd_window_show_page (self, "loading");
  else if (_pd_window_overview_update (self, item))
    pd_window_show_page (self, "overview");
  else if (item != NULL)
    pd_window_show_page (self, "session");
  else if (_pd_window_describe_search (self))
    pd_window_show_page (self, "no-results");
  else
    pd_window_show_page (self, "empty");
}
