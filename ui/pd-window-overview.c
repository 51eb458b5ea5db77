/* pd-window-overview.c: the window's Overview page (part of PdWindow)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The window follows its sources in a PdOverview (every active session, as
 * cards) shown by its PdOverviewView: from the sidebar's Overview button,
 * win.show-overview (Ctrl+Shift+O) and whenever no session is selected.
 * Opening a card selects its session; answering a card's question goes to
 * the run that asks: a run of this window through its run controller (which
 * closes the dialog that asked), a run on an endpoint through that
 * endpoint.  The window's own runs tell the overview of their questions,
 * since no source does.
 */
#define G_LOG_DOMAIN "pd-window"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-window-private.h"

/**
 * pd_window_get_overview:
 *
 * Returns: (transfer none): the cards of the window's active sessions
 */
PdOverview *
pd_window_get_overview (PdWindow *self)
{
  g_return_val_if_fail (PD_IS_WINDOW (self), NULL);
  return self->overview;
}

/* Whether the Overview page is what the window shows, sessions loaded. */
gboolean
pd_window_get_overview_shown (PdWindow *self)
{
  g_return_val_if_fail (PD_IS_WINDOW (self), FALSE);
  return self->overview_shown;
}

void
_pd_window_show_overview (PdWindow *self,
                          gboolean  shown)
{
  if (self->overview_shown == shown)
    return;
  self->overview_shown = shown;
  _pd_window_update_content (self);
}

/* Whether the content shows the Overview (asked for, or no session selected
 * while it has cards), with the header's title to match. */
gboolean
_pd_window_overview_update (PdWindow      *self,
                            PdSessionItem *item)
{
  gboolean shown = self->overview_shown ||
                   (item == NULL && pd_session_list_get_query (self->session_list) == NULL &&
                    self->overview != NULL && g_list_model_get_n_items (G_LIST_MODEL (self->overview)) > 0);

  if (shown)
    adw_view_switcher_title_set_title (self->switcher_title, _("Overview"));
  else if (item != NULL)
    _pd_window_show_session_title (self, pd_session_item_get_title (item));
  return shown;
}

/* Another session picked in the list leaves the Overview; the list's first
 * selection, as it loads, does not. */
void
_pd_window_overview_on_selection (PdWindow *self)
{
  PdSessionItem *item = pd_session_list_get_selected_item (self->session_list);

  if (self->overview_shown && item != NULL && self->shown_item != NULL && item != self->shown_item)
    self->overview_shown = FALSE;
}

/* The overview follows the window's source; once the window holds many
 * (the sidebar's sources), it follows them all. */
void
_pd_window_overview_set_source (PdWindow *self,
                                PdSource *source)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->overview_sources));

  if (source != NULL)
    g_list_store_splice (self->overview_sources, 0, n, (gpointer *) &source, 1);
  else
    g_list_store_remove_all (self->overview_sources);
}

static void
on_approval_asked (PdWindow   *self,
                   const char *session_id,
                   const char *tool,
                   guint       serial)
{
  if (self->source != NULL && session_id != NULL)
    pd_overview_set_local_approval (self->overview, self->source, session_id, tool, NULL, serial);
}

static void
on_approval_answered (PdWindow   *self,
                      const char *session_id)
{
  if (self->source != NULL && session_id != NULL)
    pd_overview_set_local_approval (self->overview, self->source, session_id, NULL, NULL, 0);
}

void
_pd_window_overview_set_runs (PdWindow        *self,
                              PdRunController *runs)
{
  if (runs == NULL)
    return;
  g_signal_connect_object (runs, "approval-asked", G_CALLBACK (on_approval_asked), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (runs, "approval-answered", G_CALLBACK (on_approval_answered), self, G_CONNECT_SWAPPED);
}

static void
on_card_activated (PdWindow       *self,
                   PdOverviewCard *card)
{
  if (pd_overview_card_get_source (card) != self->source)
    return;
  g_free (self->pending_select);
  self->pending_select = g_strdup (pd_overview_card_get_session_id (card));
  self->overview_shown = FALSE;
  _pd_window_try_select_pending (self);
  _pd_window_update_content (self);
  adw_leaflet_set_visible_child_name (self->leaflet, "content");
}

typedef struct
{
  PdWindow   *window;   /* a ref */
  PdOverview *overview; /* a ref */
  PdSource   *source;   /* a ref */
} Answer;

static void
answer_free (Answer *answer)
{
  g_clear_object (&answer->window);
  g_clear_object (&answer->overview);
  g_clear_object (&answer->source);
  g_free (answer);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Answer, answer_free)

static void
on_remote_answered (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(Answer) answer = user_data;
  g_autoptr(GError) error = NULL;

  if (!pd_remote_source_answer_approval_finish (PD_REMOTE_SOURCE (object), result, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      {
        /* Translators: %s says why, from the endpoint */
        g_autofree char *text = g_strdup_printf (_("The answer could not be sent: %s"), error->message);
        /* The endpoint's words: a toast's title is markup in libadwaita 1.2. */
        g_autofree char *escaped = g_markup_escape_text (text, -1);

        adw_toast_overlay_add_toast (answer->window->toast_overlay, adw_toast_new (escaped));
      }
    }
  pd_overview_refresh_source (answer->overview, answer->source);
}

static void
on_answer (PdWindow       *self,
           PdOverviewCard *card,
           gboolean        approve)
{
  const char *id = pd_overview_card_get_session_id (card);
  PdSource *source = pd_overview_card_get_source (card);
  const PdRemoteRun *run = pd_overview_card_get_remote_run (card);
  guint serial = pd_overview_card_get_approval_serial (card);
  Answer *answer;

  /* Asked in this window: answered as its dialog would be, which goes. */
  if (serial != 0 && self->runs != NULL && source == self->source &&
      pd_run_controller_answer_approval (self->runs, id, serial, approve))
    return;
  if (run == NULL || !PD_IS_REMOTE_SOURCE (source))
    return;

  answer = g_new0 (Answer, 1);
  answer->window = g_object_ref (self);
  answer->overview = g_object_ref (self->overview);
  answer->source = g_object_ref (source);
  pd_remote_source_answer_approval_async (PD_REMOTE_SOURCE (source), run, approve, self->cancellable,
                                          on_remote_answered, answer);
}

static void
show_overview_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);

  _pd_window_show_overview (self, TRUE);
  adw_leaflet_set_visible_child_name (self->leaflet, "content");
}

/* With no session selected, the Overview shows as soon as it has cards. */
static void
on_overview_items_changed (PdWindow *self,
                           guint     position,
                           guint     removed,
                           guint     added)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->overview));
  guint before = n + removed - added;

  if (!self->overview_shown && (before == 0) != (n == 0) &&
      pd_session_list_get_selected_item (self->session_list) == NULL)
    _pd_window_update_content (self);
}

void
_pd_window_overview_init (PdWindow *self)
{
  self->overview_sources = g_list_store_new (PD_TYPE_SOURCE);
  self->overview = pd_overview_new (G_LIST_MODEL (self->overview_sources));
  g_settings_bind (self->settings, "overview-active-minutes", self->overview, "active-minutes",
                   G_SETTINGS_BIND_GET);
  g_settings_bind (self->settings, "notify-stalled-minutes", self->overview, "stalled-minutes",
                   G_SETTINGS_BIND_GET);
  pd_overview_view_set_overview (self->overview_view, self->overview);
  g_signal_connect_object (self->overview, "items-changed", G_CALLBACK (on_overview_items_changed), self,
                           G_CONNECT_SWAPPED);
}

void
_pd_window_overview_dispose (PdWindow *self)
{
  if (self->overview_sources != NULL)
    g_list_store_remove_all (self->overview_sources);
  g_clear_object (&self->overview);
  g_clear_object (&self->overview_sources);
}

void
_pd_window_class_overview_init (GtkWidgetClass *widget_class)
{
  g_type_ensure (PD_TYPE_OVERVIEW_VIEW);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, overview_view);
  gtk_widget_class_bind_template_callback_full (widget_class, "on_overview_card_activated",
                                                G_CALLBACK (on_card_activated));
  gtk_widget_class_bind_template_callback_full (widget_class, "on_overview_answer", G_CALLBACK (on_answer));
  gtk_widget_class_install_action (widget_class, "win.show-overview", NULL, show_overview_action);
}
