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

#include "pd-overview-card-row.h"
#include "pd-session-export.h"
#include "pd-ui-util-private.h"
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

/* The first member of the window's sources: this computer's database, or
 * the endpoint of a window on one; where the window's own runs are. */
static PdSource *
own_source (PdWindow *self)
{
  g_autoptr(PdSource) first = g_list_model_get_item (_pd_window_get_sources (self), 0);

  return first;
}

/* With several sources, the header says which: the source chosen in the
 * sidebar, or all of them. */
static void
overview_name_sources (PdWindow *self)
{
  PdSource *chosen = pd_overview_view_get_source (self->overview_view);

  /* One source: the header names it (the database's path) as ever. */
  if (self->source == NULL || !PD_IS_MULTI_SOURCE (self->source) ||
      g_list_model_get_n_items (_pd_window_get_sources (self)) < 2)
    return;
  adw_view_switcher_title_set_subtitle (self->switcher_title,
                                        chosen != NULL ? pd_source_list_get_name (self->sources, chosen)
                                                       : _("All Sources"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->switcher_title), NULL);
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

  /* No session anywhere: the empty page, with what there is to do (the
   * Demo, reading other agents' sessions, a new session), not an empty
   * Overview.  The first start on the default database, which opens on
   * the Overview, offered nothing (tried as a new user would). */
  if (shown && item == NULL && _pd_window_nothing_listed (self))
    {
      /* Named as a --db window's empty page is, not "Overview". */
      adw_view_switcher_title_set_title (self->switcher_title, _("Plandeck"));
      return FALSE;
    }

  if (shown)
    {
      adw_view_switcher_title_set_title (self->switcher_title, _("Overview"));
      overview_name_sources (self);
    }
  else if (item != NULL)
    _pd_window_show_session_title (self, pd_session_item_get_title (item));
  return shown;
}

/* A session picked in the list leaves the Overview; the list's first
 * selection, as it loads, does not (the Overview shows no session, so one
 * picked while the list picks none is a person's or a new run's). */
void
_pd_window_overview_on_selection (PdWindow *self)
{
  PdSessionItem *item = pd_session_list_get_selected_item (self->session_list);

  if (self->overview_shown && item != NULL &&
      (self->shown_item != NULL ? item != self->shown_item : !pd_session_list_get_autoselect (self->session_list)))
    self->overview_shown = FALSE;
}

/* The overview follows every member of the window's sources, each card
 * with its own; it shows the cards of @source alone when it is one of them
 * (chosen in the sidebar), else all.  A window over many sources opens on
 * its Overview, the app's home; so does a window on an endpoint
 * (`--remote`), which opened on its first session's Now page (tried as a
 * new user would). */
void
_pd_window_overview_set_source (PdWindow *self,
                                PdSource *source)
{
  if (source != NULL && (PD_IS_MULTI_SOURCE (source) || PD_IS_REMOTE_SOURCE (source)) &&
      !self->overview_home_done)
    {
      self->overview_home_done = TRUE;
      self->overview_shown = TRUE;
    }
  if (source != NULL && (PD_IS_MULTI_SOURCE (source) || !pd_source_list_find (self->sources, source, NULL) ||
                         g_list_model_get_n_items (_pd_window_get_sources (self)) < 2))
    source = NULL;
  pd_overview_view_set_source (self->overview_view, source);
  if (self->overview_shown)
    overview_name_sources (self);
}

static void
on_approval_asked (PdWindow   *self,
                   const char *session_id,
                   const char *tool,
                   guint       serial)
{
  /* The command or change asked about, as the dialog shows it: the card
   * offered Approve Once with none (tried as an attacker would). */
  if (own_source (self) != NULL && session_id != NULL && self->runs != NULL)
    pd_overview_set_local_approval (self->overview, own_source (self), session_id, tool,
                                    pd_run_controller_get_approval_text (self->runs, session_id, serial),
                                    pd_run_controller_get_approval_preview (self->runs, session_id, serial),
                                    serial);
}

static void
on_approval_answered (PdWindow   *self,
                      const char *session_id)
{
  if (own_source (self) != NULL && session_id != NULL)
    pd_overview_set_local_approval (self->overview, own_source (self), session_id, NULL, NULL, NULL, 0);
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
  PdSource *source = pd_overview_card_get_source (card);
  PdSource *listed = pd_session_list_get_source (self->session_list);
  char *id;

  if (!pd_source_list_find (self->sources, source, NULL))
    return;
  /* The list shows another source alone: it shows them all again. */
  if (listed != source && listed != self->source)
    {
      pd_source_sidebar_select (self->source_sidebar, NULL);
      listed = pd_session_list_get_source (self->session_list);
    }
  if (listed != NULL && PD_IS_MULTI_SOURCE (listed))
    id = pd_multi_source_make_id (PD_MULTI_SOURCE (listed), source, pd_overview_card_get_session_id (card));
  else
    id = g_strdup (pd_overview_card_get_session_id (card));
  if (id == NULL)
    return;
  g_free (self->pending_select);
  self->pending_select = id;
  self->overview_shown = FALSE;
  _pd_window_try_select_pending (self);
  /* A search of the list that hides the card's session makes way: the
   * page said "No Matching Sessions" beside the search's matches (tried
   * as a new user would). */
  if (self->pending_select != NULL && pd_session_list_get_query (self->session_list) != NULL)
    pd_session_list_clear_search (self->session_list);
  _pd_window_update_content (self);
  adw_leaflet_set_visible_child_name (self->leaflet, "content");
  /* The focus into the session's page once it has read, as Enter on a
   * session in the list puts it: the card it was on went with the
   * Overview, and the focus with it (tried with the keyboard alone).  GTK
   * may move it to the message entry meanwhile: not the person's move. */
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->content_stack), "session") == 0)
    {
      _pd_window_focus_opened (self);
      self->open_focus_in_page = self->open_focus_tick != 0;
    }
}

/* The card a page key (Alt+1…4) opens on the Overview: the one with the
 * focus (on it or on its Deny), else the first shown, the one most in
 * need. */
static PdOverviewCard *
card_for_keys (PdWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  GtkWidget *row = NULL;
  GListModel *shown = pd_overview_view_get_shown (self->overview_view);
  g_autoptr(PdOverviewCard) first = NULL;

  if (focus != NULL && gtk_widget_is_ancestor (focus, GTK_WIDGET (self->overview_view)))
    {
      row = PD_IS_OVERVIEW_CARD_ROW (focus) ? focus : gtk_widget_get_ancestor (focus, PD_TYPE_OVERVIEW_CARD_ROW);
      /* The list item around a card row has the focus, the row inside. */
      if (row == NULL)
        for (GtkWidget *child = gtk_widget_get_first_child (focus); child != NULL && row == NULL;
             child = gtk_widget_get_next_sibling (child))
          if (PD_IS_OVERVIEW_CARD_ROW (child))
            row = child;
    }
  if (row != NULL && pd_overview_card_row_get_card (PD_OVERVIEW_CARD_ROW (row)) != NULL)
    return pd_overview_card_row_get_card (PD_OVERVIEW_CARD_ROW (row));
  if (g_list_model_get_n_items (shown) == 0)
    return NULL;
  first = g_list_model_get_item (shown, 0);
  return first;
}

/*
 * _pd_window_overview_open_for_keys:
 *
 * On the Overview, Alt+1…4 open a card's session (the card with the focus,
 * else the first) on the page the key names, as they switch the pages of
 * a session shown: they did nothing there (tried with the keyboard
 * alone).  The caller has set the page.
 *
 * Returns: whether a session opened
 */
gboolean
_pd_window_overview_open_for_keys (PdWindow *self)
{
  PdOverviewCard *card;

  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->content_stack), "overview") != 0)
    return FALSE;
  card = card_for_keys (self);
  if (card == NULL)
    return FALSE;
  on_card_activated (self, card);
  return g_strcmp0 (gtk_stack_get_visible_child_name (self->content_stack), "session") == 0;
}

/* --- a card's menu: Export and Delete of its session, from its source ---- */

/* The card of a card action's target (source id, session id). */
static PdOverviewCard *
card_for_target (PdWindow  *self,
                 GVariant  *parameter,
                 PdSource **source)
{
  const char *source_id, *session_id;

  g_variant_get (parameter, "(&s&s)", &source_id, &session_id);
  *source = pd_source_list_lookup (self->sources, source_id, NULL);
  if (*source == NULL || self->overview == NULL)
    return NULL;
  return pd_overview_find (self->overview, *source, session_id);
}

static void
card_export_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);
  PdSource *source = NULL;
  PdOverviewCard *card = card_for_target (self, parameter, &source);

  if (card == NULL)
    return;
  pd_session_export_choose (GTK_WINDOW (self), self->toast_overlay, source, pd_overview_card_get_session_id (card),
                            pd_overview_card_get_title (card),
                            g_str_equal (action_name, "win.card-export-json")
                            ? PD_SESSION_EXPORT_JSON : PD_SESSION_EXPORT_MARKDOWN);
}

/* A session whose run goes on is not deleted (its run would go on
 * unrecorded; the store refuses it too, but only once the Undo toast has
 * gone): the window says so at once, from the session list and from a
 * card alike. */
void
_pd_window_refuse_running_delete (PdWindow   *self,
                                  const char *title)
{
  g_autofree char *shown = _pd_isolated_short (title, PD_TOAST_TITLE_CHARS);
  /* Translators: %s is a session's title */
  g_autofree char *text = g_strdup_printf (_("“%s” is running: stop the run first, then delete it"), shown);

  _pd_toast_add_text (GTK_WIDGET (self->toast_overlay), text);
}

static void
card_delete_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);
  PdSource *source = NULL;
  PdOverviewCard *card = card_for_target (self, parameter, &source);
  g_autoptr(PdSessionItem) item = NULL;
  g_autoptr(GDateTime) now = NULL;
  PdSessionInfo info = { 0 };

  if (card == NULL)
    return;
  /* Its run would go on unrecorded (as the session list's Delete says). */
  if (pd_overview_card_get_status (card) == PD_SESSION_STATUS_RUNNING)
    {
      _pd_window_refuse_running_delete (self, pd_overview_card_get_title (card));
      return;
    }
  info.id = (char *) pd_overview_card_get_session_id (card);
  info.task = (char *) pd_overview_card_get_title (card);
  info.source = (char *) pd_overview_card_get_agent (card);
  info.status = pd_overview_card_get_status (card);
  now = g_date_time_new_now_local ();
  item = pd_session_item_new (&info, now);
  pd_session_deleter_delete (self->deleter, source, item);
}

/* Export and Delete of the card's session, through its own source. */
static GMenuModel *
on_card_menu (PdWindow       *self,
              PdOverviewCard *card)
{
  PdSource *source = pd_overview_card_get_source (card);
  const char *source_id = pd_source_list_get_id (self->sources, source);
  const char *session_id = pd_overview_card_get_session_id (card);
  GMenu *menu;
  g_autoptr(GMenuItem) markdown = NULL;
  g_autoptr(GMenuItem) json = NULL;
  g_autoptr(GMenuItem) delete = NULL;
  PdSessionInfo info = { 0 };

  if (source_id == NULL)
    return NULL;
  info.source = (char *) pd_overview_card_get_agent (card);
  menu = g_menu_new ();
  markdown = g_menu_item_new (_("Export as _Markdown…"), NULL);
  json = g_menu_item_new (_("Export as _JSON…"), NULL);
  delete = g_menu_item_new (_pd_session_delete_label (pd_session_info_is_imported (&info)), NULL);
  g_menu_item_set_action_and_target (markdown, "win.card-export-markdown", "(ss)", source_id, session_id);
  g_menu_item_set_action_and_target (json, "win.card-export-json", "(ss)", source_id, session_id);
  g_menu_item_set_action_and_target (delete, "win.card-delete", "(ss)", source_id, session_id);
  g_menu_append_item (menu, markdown);
  g_menu_append_item (menu, json);
  g_menu_append_item (menu, delete);
  return G_MENU_MODEL (menu);
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

        _pd_toast_add_text (GTK_WIDGET (answer->window->toast_overlay), text);
      }
    }
  pd_overview_refresh_source (answer->overview, answer->source);
}

/* @run and @serial are the question the card showed when its button was
 * pressed, which may no longer be the card's: the answer names that one
 * (the endpoint refuses an answer to a question its run no longer asks). */
static void
on_answer (PdWindow          *self,
           PdOverviewCard    *card,
           gboolean           approve,
           const PdRemoteRun *run,
           guint              serial)
{
  const char *id = pd_overview_card_get_session_id (card);
  PdSource *source = pd_overview_card_get_source (card);
  Answer *answer;

  /* Asked in this window: answered as its dialog would be, which goes. */
  if (serial != 0 && self->runs != NULL && source == own_source (self) &&
      pd_run_controller_answer_approval (self->runs, id, serial, approve))
    return;
  if (run == NULL || run->approval_id == NULL || !PD_IS_REMOTE_SOURCE (source))
    return;

  answer = g_new0 (Answer, 1);
  answer->window = g_object_ref (self);
  answer->overview = g_object_ref (self->overview);
  answer->source = g_object_ref (source);
  pd_remote_source_answer_approval_async (PD_REMOTE_SOURCE (source), run, approve, self->cancellable,
                                          on_remote_answered, answer);
}

/* Frames, not time, bound the wait for the cards to be laid out. */
#define OVERVIEW_FOCUS_MAX_FRAMES 120

static gboolean
focus_overview_tick (GtkWidget     *widget,
                     GdkFrameClock *clock,
                     gpointer       data)
{
  PdWindow *self = PD_WINDOW (widget);
  guint *frames = data;
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

  /* The window ticks, not the Overview page: with the tick callback on
   * the page, GTK 4.8 warned "no handler with id" as the window was
   * unrealized (run-states, every run). */
  widget = GTK_WIDGET (self->overview_view);

  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->content_stack), "overview") != 0)
    return G_SOURCE_REMOVE;
  /* In the cards already (a person's arrow, a click). */
  if (focus != NULL && gtk_widget_is_ancestor (focus, widget) && gtk_widget_is_drawable (focus))
    return G_SOURCE_REMOVE;
  /* The first card, scrolled into sight: the list gave the focus back to
   * the card it last had, second once an asking card came first, or out
   * of sight (tried with the keyboard alone). */
  if (gtk_widget_get_mapped (widget) &&
      (pd_overview_view_focus_first (self->overview_view) ||
       (g_list_model_get_n_items (pd_overview_view_get_shown (self->overview_view)) == 0 &&
        gtk_widget_child_focus (widget, GTK_DIR_TAB_FORWARD))))
    return G_SOURCE_REMOVE;
  return ++*frames < OVERVIEW_FOCUS_MAX_FRAMES ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

/*
 * _pd_window_focus_overview:
 *
 * The focus on the Overview's first card, the one most in need, once the
 * cards are laid out (nothing when the Overview is not shown); a folded
 * window shows the content.
 */
void
_pd_window_focus_overview (PdWindow *self)
{
  _pd_window_stop_focus_opened (self);
  adw_leaflet_set_visible_child_name (self->leaflet, "content");
  /* The leaflet gave the focus to the card the list last had (F6 from
   * the session list): the first card now, or once laid out. */
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->content_stack), "overview") == 0 &&
      !(gtk_widget_get_mapped (GTK_WIDGET (self->overview_view)) && pd_overview_view_focus_first (self->overview_view)))
    gtk_widget_add_tick_callback (GTK_WIDGET (self), focus_overview_tick, g_new0 (guint, 1), g_free);
}

/* Ctrl+Shift+O (the Overview button, the Now page's link): the focus on
 * the first card.  It stayed in the session page the Overview hid, so it
 * was on nothing one could see, and Enter did nothing (tried with the
 * keyboard alone). */
static void
show_overview_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);

  _pd_window_show_overview (self, TRUE);
  _pd_window_focus_overview (self);
}

/* Whether the window lists no session at all (read, no search) and the
 * Overview has no card. */
gboolean
_pd_window_nothing_listed (PdWindow *self)
{
  return pd_session_list_get_loaded (self->session_list) &&
         pd_session_list_get_query (self->session_list) == NULL &&
         g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (self->session_list))) == 0 &&
         (self->overview == NULL || g_list_model_get_n_items (G_LIST_MODEL (self->overview)) == 0);
}

/* The first session listed, or the last gone: the empty page goes, or
 * comes back, in place of the Overview. */
static void
on_sessions_listed (PdWindow *self,
                    guint     position,
                    guint     removed,
                    guint     added)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (self->session_list)));
  guint before = n + removed - added;

  if ((before == 0) != (n == 0) && pd_session_list_get_selected_item (self->session_list) == NULL)
    _pd_window_update_content (self);
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

/* A source added or gone while the Overview shows: the header names them
 * again ("All Sources" once there are several).  It followed only when
 * something else updated the page. */
static void
on_sources_changed (PdWindow *self)
{
  if (self->content_stack != NULL &&
      g_strcmp0 (gtk_stack_get_visible_child_name (self->content_stack), "overview") == 0)
    overview_name_sources (self);
}

/* --- the shown session's question, on its Now page ----------------------- */

static void
show_card_approval (PdWindow *self)
{
  PdOverviewCard *card = self->shown_card;

  if (card != NULL && pd_overview_card_has_approval (card))
    pd_now_view_set_approval (self->now_view, pd_overview_card_get_approval_tool (card),
                              pd_overview_card_get_approval_summary (card));
  else
    pd_now_view_set_approval (self->now_view, NULL, NULL);
}

static void
set_shown_card (PdWindow       *self,
                PdOverviewCard *card)
{
  if (card != self->shown_card)
    {
      if (self->shown_card != NULL)
        g_clear_signal_handler (&self->shown_card_handler, self->shown_card);
      g_set_object (&self->shown_card, card);
      if (card != NULL)
        self->shown_card_handler = g_signal_connect_swapped (card, "changed", G_CALLBACK (show_card_approval), self);
    }
  show_card_approval (self);
}

/* The card of the session shown, if the Overview has one: its question
 * (a run of this window or an endpoint's waiting for the person) shows on
 * the Now page too, which said nothing of it (issue 21).  Looked for again
 * as the session or the cards change. */
static void
follow_shown_card (PdWindow *self)
{
  PdOverviewCard *card = NULL;

  if (self->overview != NULL && self->shown_source != NULL && self->session_id != NULL)
    card = pd_overview_find (self->overview, self->shown_source, self->session_id);
  set_shown_card (self, card);
}

void
_pd_window_overview_init (PdWindow *self)
{
  self->overview = pd_overview_new (_pd_window_get_sources (self));
  g_settings_bind (self->settings, "overview-active-minutes", self->overview, "active-minutes",
                   G_SETTINGS_BIND_GET);
  g_settings_bind (self->settings, "notify-stalled-minutes", self->overview, "stalled-minutes",
                   G_SETTINGS_BIND_GET);
  pd_overview_view_set_overview (self->overview_view, self->overview);
  g_signal_connect_object (self->overview, "items-changed", G_CALLBACK (on_overview_items_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->overview, "items-changed", G_CALLBACK (follow_shown_card), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (pd_session_list_get_model (self->session_list), "items-changed",
                           G_CALLBACK (on_sessions_listed), self, G_CONNECT_SWAPPED);
  g_signal_connect_swapped (self, "notify::session-id", G_CALLBACK (follow_shown_card), self);
  g_signal_connect_swapped (self, "notify::shown-source", G_CALLBACK (follow_shown_card), self);
  g_signal_connect_object (_pd_window_get_sources (self), "items-changed", G_CALLBACK (on_sources_changed), self,
                           G_CONNECT_SWAPPED);
}

void
_pd_window_overview_dispose (PdWindow *self)
{
  if (self->shown_card != NULL)
    g_clear_signal_handler (&self->shown_card_handler, self->shown_card);
  g_clear_object (&self->shown_card);
  /* Its reads end with the window, whoever still holds it. */
  if (self->overview != NULL)
    g_object_run_dispose (G_OBJECT (self->overview));
  g_clear_object (&self->overview);
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
  gtk_widget_class_bind_template_callback_full (widget_class, "on_overview_card_menu", G_CALLBACK (on_card_menu));
  gtk_widget_class_install_action (widget_class, "win.card-export-markdown", "(ss)", card_export_action);
  gtk_widget_class_install_action (widget_class, "win.card-export-json", "(ss)", card_export_action);
  gtk_widget_class_install_action (widget_class, "win.card-delete", "(ss)", card_delete_action);
}
