/* pd-window.c: the main Plandeck window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A window shows one source of sessions: a local database file (read
 * through PdLocalSource, watched for other writers) or a remote endpoint.
 * The sidebar lists the sessions; the main area shows the selected one as
 * a view stack (Now, Transcript, Events, History), or a status page: no
 * sessions yet, no matches, a source that cannot be opened.
 */
#define G_LOG_DOMAIN "pd-window"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "pd-checklist-view.h"
#include "pd-import-index.h"
#include "pd-events-view.h"
#include "pd-history-view.h"
#include "pd-local-source.h"
#include "pd-new-session-dialog.h"
#include "pd-now-view.h"
#include "pd-preferences-window.h"
#include "pd-remote-source.h"
#include "pd-run-controller.h"
#include "pd-transcript-view.h"
#include "pd-session-list.h"
#include "pd-window.h"

/* Commits to a local database are pushed (a file monitor on the file and
 * its WAL); the fallback poll of its data version follows the Refresh
 * preferences: poll-running-ms while a run of this window or the demo
 * writes, poll-idle-ms otherwise. */
/* How often a remote source polls when the server has no event stream. */
#define REMOTE_WATCH_MS PD_REMOTE_SOURCE_WATCH_MS
#define MAX_RECENT_SHOWN 6

struct _PdWindow
{
  AdwApplicationWindow parent_instance;

  GSettings           *settings;
  char                *database_path;
  char                *remote_url;
  char                *remote_token;
  gboolean             create_database;
  PdSource            *source;
  gboolean             failed;

  PdDemo              *demo;
  GCancellable        *cancellable;
  PdRunController     *runs;
  char                *pending_select;
  gulong               items_handler;
  guint                select_idle;
  guint                plan_mode_serial;

  PdSessionItem       *shown_item;
  char                *session_id;      /* of shown_item, bound to the views */
  guint                first_show_tick; /* the first session shows a frame after the list */
  gboolean             first_shown;
  gulong               running_handler;
  gulong               title_handler;
  gulong               ahead_handler;

  /* Template widgets */
  AdwToastOverlay     *toast_overlay;
  AdwLeaflet          *leaflet;
  AdwViewSwitcherTitle *switcher_title;
  AdwStatusPage       *empty_state;
  AdwStatusPage       *error_page;
  GtkStack            *content_stack;
  AdwViewStack        *view_stack;
  PdSessionList       *session_list;
  PdNowView           *now_view;
  GtkBox              *transcript_slot;
  GtkBox              *events_slot;
  GtkBox              *history_slot;
  GtkStack            *now_stack;
  PdChecklistView     *checklist_view;
  PdTranscriptView    *transcript_view;
  PdEventsView        *events_view;
  PdHistoryView       *history_view;
  GtkButton           *error_button;
  GtkToggleButton     *plan_mode_button;
  GtkRevealer         *demo_banner;
  GtkRevealer         *connection_banner;
  GtkBox              *connection_row;
  GtkImage            *connection_icon;
  GtkLabel            *connection_label;
  GtkButton           *connection_retry;
  GtkBox              *token_box;
  GtkPasswordEntry    *token_entry;
  GtkButton           *error_retry;
  GtkRevealer         *run_bar;
  GtkLabel            *run_activity_label;
  GtkLabel            *run_text_label;
  GtkRevealer         *message_bar;
  GtkEntry            *message_entry;
  GMenu               *recent_section;
};

G_DEFINE_FINAL_TYPE (PdWindow, pd_window, ADW_TYPE_APPLICATION_WINDOW)

enum {
  PROP_0,
  PROP_DATABASE_PATH,
  PROP_REMOTE_URL,
  PROP_CREATE_DATABASE,
  PROP_DEMO,
  PROP_SOURCE,
  PROP_SESSION_ID,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void pd_window_update_run_ui     (PdWindow *self);
static void pd_window_open_source       (PdWindow *self);

static guint
pd_window_poll_ms (PdWindow *self,
                   gboolean  running)
{
  return g_settings_get_uint (self->settings, running ? "poll-running-ms" : "poll-idle-ms");
}
static void pd_window_refresh_plan_mode (PdWindow *self);

static const char *
pd_window_source_label (PdWindow *self)
{
  return self->remote_url != NULL ? self->remote_url : self->database_path;
}

/* The label a person reads for the source: the full database path, or the URL. */
static void
pd_window_update_title (PdWindow *self)
{
  g_autofree char *short_name = NULL;
  g_autofree char *title = NULL;
  const char *subtitle = pd_window_source_label (self);

  if (self->demo != NULL)
    {
      adw_view_switcher_title_set_subtitle (self->switcher_title, _("Demo"));
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->switcher_title), pd_demo_get_label (self->demo));
      gtk_window_set_title (GTK_WINDOW (self), _("Demo — Plandeck"));
      return;
    }

  if (self->remote_url != NULL)
    {
      g_autoptr(GUri) uri = g_uri_parse (self->remote_url, G_URI_FLAGS_NONE, NULL);

      if (uri != NULL && g_uri_get_host (uri) != NULL)
        short_name = g_strdup (g_uri_get_host (uri));
      else
        short_name = g_strdup (self->remote_url);
    }
  else if (self->database_path != NULL)
    {
      short_name = g_path_get_basename (self->database_path);
    }
  else
    {
      adw_view_switcher_title_set_subtitle (self->switcher_title, NULL);
      gtk_window_set_title (GTK_WINDOW (self), _("Plandeck"));
      return;
    }

  adw_view_switcher_title_set_subtitle (self->switcher_title, subtitle);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->switcher_title), subtitle);

  /* Translators: the window title; %s is a database file name or a host name */
  title = g_strdup_printf (_("%s — Plandeck"), short_name);
  gtk_window_set_title (GTK_WINDOW (self), title);
}

static void
pd_window_restore_size (PdWindow *self)
{
  int width = g_settings_get_int (self->settings, "window-width");
  int height = g_settings_get_int (self->settings, "window-height");

  gtk_window_set_default_size (GTK_WINDOW (self), width, height);
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
}

static gboolean
pd_window_size_in_range (PdWindow   *self,
                         const char *key,
                         int         value)
{
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GSettingsSchemaKey) schema_key = NULL;
  g_autoptr(GVariant) variant = g_variant_ref_sink (g_variant_new_int32 (value));

  g_object_get (self->settings, "settings-schema", &schema, NULL);
  schema_key = g_settings_schema_get_key (schema, key);

  return g_settings_schema_key_range_check (schema_key, variant);
}

static void
pd_window_save_size (PdWindow *self)
{
  int width = 0;
  int height = 0;

  /* The default size follows the window while it is neither maximized nor
   * fullscreen, so it is the size to come back to after unmaximizing. */
  gtk_window_get_default_size (GTK_WINDOW (self), &width, &height);

  g_settings_delay (self->settings);
  /* A size the schema does not accept (a window never shown) is not stored. */
  if (pd_window_size_in_range (self, "window-width", width) &&
      pd_window_size_in_range (self, "window-height", height))
    {
      g_settings_set_int (self->settings, "window-width", width);
      g_settings_set_int (self->settings, "window-height", height);
    }
  g_settings_set_boolean (self->settings, "window-maximized",
                          gtk_window_is_maximized (GTK_WINDOW (self)));
  g_settings_apply (self->settings);
}

static gboolean
pd_window_close_request (GtkWindow *window)
{
  pd_window_save_size (PD_WINDOW (window));

  return GTK_WINDOW_CLASS (pd_window_parent_class)->close_request (window);
}


static void
pd_window_show_error (PdWindow   *self,
                      const char *title,
                      const char *description)
{
  g_autofree char *escaped = g_markup_escape_text (description, -1);

  self->failed = TRUE;
  adw_status_page_set_title (self->error_page, title);
  /* The description of an AdwStatusPage is Pango markup. */
  adw_status_page_set_description (self->error_page, escaped);
  adw_view_switcher_title_set_view_switcher_enabled (self->switcher_title, FALSE);
  gtk_stack_set_visible_child_name (self->content_stack, "error");
}

static void
pd_window_show_page (PdWindow   *self,
                     const char *name)
{
  adw_view_switcher_title_set_view_switcher_enabled (self->switcher_title,
                                                     g_str_equal (name, "session"));
  gtk_stack_set_visible_child_name (self->content_stack, name);
}

/* Follows the selected session: its title, its status, its plan. */
static void
on_shown_item_running (PdWindow *self)
{
  gboolean running = pd_session_item_get_running (self->shown_item);

  pd_now_view_set_running (self->now_view, running);
  /* The events tail live while the run goes on. */
  pd_events_view_set_live (self->events_view, running);
}

/* Reassessment, blocked-streak and run notices from the event stream show
 * in the Now workspace. */
static void
on_notices_changed (PdWindow *self)
{
  g_auto(GStrv) notices = pd_events_view_get_notices (self->events_view);

  pd_now_view_set_notices (self->now_view, (const char * const *) notices);
}

/* One snapshot: the selected row draws the plan the Now page shows.  When
 * the list has read a newer one, the Now page reads it too (it will, on
 * the same ::changed, unless it is hidden: then the row takes the list's
 * until the Now page is shown again). */
static void
on_now_plan_shown (PdWindow *self)
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
  adw_view_switcher_title_set_title (self->switcher_title,
                                     pd_session_item_get_title (self->shown_item));
}

static void pd_window_update_content (PdWindow *self);

static gboolean
on_first_show_tick (GtkWidget     *widget,
                    GdkFrameClock *clock,
                    gpointer       user_data)
{
  PdWindow *self = PD_WINDOW (widget);

  self->first_show_tick = 0;
  self->first_shown = TRUE;
  pd_window_update_content (self);

  return G_SOURCE_REMOVE;
}

static void
pd_window_update_content (PdWindow *self)
{
  PdSessionItem *item = pd_session_list_get_selected_item (self->session_list);

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
          /* Another agent's session: its Now workspace is its checklist. */
          gtk_stack_set_visible_child_name (self->now_stack,
                                            pd_session_item_is_imported (item) ? "checklist" : "plan");
          pd_events_view_set_live (self->events_view, pd_session_item_get_running (item));
          adw_view_switcher_title_set_title (self->switcher_title, pd_session_item_get_title (item));
        }
      else
        {
          pd_now_view_set_running (self->now_view, FALSE);
          pd_events_view_set_live (self->events_view, FALSE);
          adw_view_switcher_title_set_title (self->switcher_title, _("Plandeck"));
        }

      /* Every view of the session follows through its binding. */
      g_free (self->session_id);
      self->session_id = item != NULL ? g_strdup (pd_session_item_get_id (item)) : NULL;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION_ID]);

      pd_window_update_run_ui (self);
      pd_window_refresh_plan_mode (self);
      /* A run of this session on the endpoint (from a window since closed,
       * or another client) is followed here, its questions asked here. */
      if (self->runs != NULL && item != NULL)
        pd_run_controller_follow (self->runs, pd_session_item_get_id (item));
    }

  if (self->failed || self->source == NULL)
    return;

  if (!pd_session_list_get_loaded (self->session_list))
    pd_window_show_page (self, "loading");
  else if (item != NULL)
    pd_window_show_page (self, "session");
  else if (pd_session_list_get_query (self->session_list) != NULL)
    pd_window_show_page (self, "no-results");
  else
    pd_window_show_page (self, "empty");
}

static void
on_selected_item_changed (PdWindow *self)
{
  pd_window_update_content (self);
}

static void
on_list_loaded (PdWindow *self)
{
  /* Read after all (a server back, a retry that worked): no error page. */
  if (self->source != NULL && pd_session_list_get_loaded (self->session_list))
    self->failed = FALSE;

  /* Runs go into the local database or the endpoint, so they are offered
   * once it reads. */
  if (self->runs != NULL)
    gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.new-session", TRUE);
  pd_window_update_content (self);
}

static void
on_session_activated (PdWindow      *self,
                      PdSessionItem *item)
{
  adw_leaflet_set_visible_child_name (self->leaflet, "content");
}

static void
on_load_failed (PdWindow     *self,
                const GError *error)
{
  if (!pd_session_list_get_loaded (self->session_list))
    {
      if (self->remote_url == NULL)
        {
          /* A run could not be stored there either. */
          gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.new-session", FALSE);
          pd_window_show_error (self, _("Cannot Open This Database"), error->message);
        }
      else if (g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_DENIED))
        pd_window_show_error (self, _("The Endpoint Refused Access"), error->message);
      else
        pd_window_show_error (self, _("Cannot Reach the Endpoint"), error->message);
      return;
    }

  pd_window_show_message (self, error->message);
}

/* --- runs ---------------------------------------------------------------- */

static const char *
pd_window_shown_session_id (PdWindow *self)
{
  return self->shown_item != NULL ? pd_session_item_get_id (self->shown_item) : NULL;
}

/* The run bar shows while this window's run goes on (for its session, or
 * before the session exists); the message entry when the shown session of a
 * local database is idle and ours: another agent's imported transcript is
 * continued in that agent, not here. */
static void
pd_window_update_run_ui (PdWindow *self)
{
  gboolean running = self->runs != NULL && pd_run_controller_get_running (self->runs);
  const char *run_session = self->runs ? pd_run_controller_get_session_id (self->runs) : NULL;
  const char *shown = pd_window_shown_session_id (self);
  gboolean ours = running && (run_session == NULL || g_strcmp0 (run_session, shown) == 0);
  gboolean continuable = self->runs != NULL && shown != NULL && !pd_session_item_is_imported (self->shown_item);

  gtk_revealer_set_reveal_child (self->run_bar, ours);
  gtk_revealer_set_reveal_child (self->message_bar, continuable && !running);
  /* Plan mode is the engine's: an endpoint's sessions have it there. */
  gtk_widget_set_visible (GTK_WIDGET (self->plan_mode_button),
                          continuable && !pd_run_controller_is_remote (self->runs));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.stop-run", running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.send-message", continuable && !running);
}

static void
on_run_text (PdWindow *self)
{
  const char *text = pd_run_controller_get_status_text (self->runs);
  const char *activity = pd_run_controller_get_activity (self->runs);

  /* Model-derived text: plain labels. */
  gtk_label_set_text (self->run_text_label, text != NULL && *text ? text : _("Working…"));
  gtk_label_set_text (self->run_activity_label, activity ? activity : "");
  gtk_widget_set_visible (GTK_WIDGET (self->run_activity_label), activity != NULL);
}

static void
pd_window_try_select_pending (PdWindow *self)
{
  if (self->pending_select != NULL && pd_session_list_select (self->session_list, self->pending_select))
    {
      g_clear_pointer (&self->pending_select, g_free);
      pd_window_update_content (self);
    }

  /* The demo shows its run as soon as it is there. */
  if (self->demo != NULL && pd_session_list_get_selected_item (self->session_list) == NULL)
    {
      GListModel *model = G_LIST_MODEL (pd_session_list_get_model (self->session_list));
      g_autoptr(PdSessionItem) first = g_list_model_get_item (model, 0);

      if (first != NULL)
        pd_session_list_select (self->session_list, pd_session_item_get_id (first));
    }
}

static gboolean
select_pending_idle (gpointer data)
{
  PdWindow *self = data;

  self->select_idle = 0;
  pd_window_try_select_pending (self);

  return G_SOURCE_REMOVE;
}

/* The list keeps its selection across a merge, after the items changed:
 * a pending selection is made once the merge is over. */
static void
on_session_items_changed (PdWindow *self)
{
  if (self->select_idle == 0 && (self->pending_select != NULL || self->demo != NULL))
    self->select_idle = g_idle_add (select_pending_idle, self);
}

static void
on_run_session_started (PdWindow   *self,
                        const char *session_id)
{
  g_free (self->pending_select);
  self->pending_select = g_strdup (session_id);
  pd_session_list_refresh (self->session_list);
  pd_window_try_select_pending (self);
  pd_window_update_run_ui (self);
}

static void
on_run_running (PdWindow *self)
{
  gboolean running = pd_run_controller_get_running (self->runs);

  if (PD_IS_LOCAL_SOURCE (self->source))
    pd_local_source_watch (PD_LOCAL_SOURCE (self->source), pd_window_poll_ms (self, running));
  pd_window_update_run_ui (self);
}

static void
on_run_finished (PdWindow   *self,
                 int         status,
                 const char *message)
{
  if (message != NULL)
    pd_window_show_message (self, message);
  pd_session_list_refresh (self->session_list);
  pd_now_view_refresh (self->now_view);
  pd_window_update_run_ui (self);
  pd_window_refresh_plan_mode (self);
}

static void
on_new_session_start (PdWindow      *self,
                      PdRunSettings *settings,
                      const char    *message)
{
  g_autoptr(GError) error = NULL;

  if (!pd_run_controller_start (self->runs, settings, message, &error))
    pd_window_show_message (self, error->message);
}

static void
on_message_activate (PdWindow *self)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "win.send-message", NULL);
}

/* The plan mode toggle follows the engine's folded state of the session. */
typedef struct
{
  PdWindow *window;
  guint     serial;
  gboolean  active;
  char     *session_id;
} PlanModeCall;

static void
plan_mode_call_free (PlanModeCall *call)
{
  g_object_unref (call->window);
  g_free (call->session_id);
  g_free (call);
}

static void
pd_window_show_plan_mode (PdWindow *self,
                          gboolean  active,
                          gboolean  pending)
{
  g_signal_handlers_block_matched (self->plan_mode_button, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);
  gtk_toggle_button_set_active (self->plan_mode_button, active);
  g_signal_handlers_unblock_matched (self->plan_mode_button, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);

  if (pending)
    gtk_widget_add_css_class (GTK_WIDGET (self->plan_mode_button), "pd-pending");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->plan_mode_button), "pd-pending");
}

static void
on_plan_mode_read (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  PlanModeCall *call = user_data;
  PdWindow *self = call->window;
  g_autoptr(GError) error = NULL;
  gboolean pending = FALSE;
  gboolean active = pd_run_controller_get_plan_mode_finish (PD_RUN_CONTROLLER (object), result,
                                                            &pending, &error);

  /* A late reply for a session no longer shown is dropped. */
  if (call->serial == self->plan_mode_serial && error == NULL &&
      g_strcmp0 (call->session_id, pd_window_shown_session_id (self)) == 0)
    pd_window_show_plan_mode (self, active, pending);

  plan_mode_call_free (call);
}

static void
pd_window_refresh_plan_mode (PdWindow *self)
{
  const char *shown = pd_window_shown_session_id (self);
  PlanModeCall *call;

  self->plan_mode_serial++;
  if (self->runs == NULL || shown == NULL || pd_run_controller_is_remote (self->runs))
    return;

  call = g_new0 (PlanModeCall, 1);
  call->window = g_object_ref (self);
  call->serial = self->plan_mode_serial;
  call->session_id = g_strdup (shown);
  pd_run_controller_get_plan_mode_async (self->runs, shown, self->cancellable,
                                         on_plan_mode_read, call);
}

static void
on_plan_mode_set (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  PlanModeCall *call = user_data;
  PdWindow *self = call->window;
  g_autoptr(GError) error = NULL;
  PdPlanModeSetResult outcome = pd_run_controller_set_plan_mode_finish (PD_RUN_CONTROLLER (object),
                                                                        result, &error);
  gboolean active = call->active;

  if (error != NULL)
    pd_window_show_message (self, error->message);
  else if (outcome == PD_PLAN_MODE_COMMITTED)
    pd_window_show_message (self, active ? _("Plan mode is on") : _("Plan mode is off"));
  else if (outcome == PD_PLAN_MODE_QUEUED)
    pd_window_show_message (self, active ? _("Plan mode turns on at the next step")
                                         : _("Plan mode turns off at the next step"));
  else if (outcome == PD_PLAN_MODE_CANCELLED)
    pd_window_show_message (self, _("The pending plan mode change was taken back"));

  if (!g_cancellable_is_cancelled (self->cancellable))
    pd_window_refresh_plan_mode (self);
  plan_mode_call_free (call);
}

static void
on_plan_mode_toggled (PdWindow *self)
{
  const char *shown = pd_window_shown_session_id (self);
  PlanModeCall *call;

  if (self->runs == NULL || shown == NULL)
    return;

  call = g_new0 (PlanModeCall, 1);
  call->window = g_object_ref (self);
  call->active = gtk_toggle_button_get_active (self->plan_mode_button);
  call->session_id = g_strdup (shown);
  pd_run_controller_set_plan_mode_async (self->runs, shown,
                                         gtk_toggle_button_get_active (self->plan_mode_button),
                                         self->cancellable, on_plan_mode_set, call);
}

/* --- the demo ---------------------------------------------------------------- */

static void
on_demo_done (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(PdWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdRunResult) run = pd_demo_run_finish (PD_DEMO (object), result, &error);

  if (g_cancellable_is_cancelled (self->cancellable))
    return;

  if (run == NULL)
    pd_window_show_message (self, error->message);
  else
    pd_window_show_message (self, _("The demo run is complete"));

  if (self->source != NULL)
    pd_local_source_watch (PD_LOCAL_SOURCE (self->source), pd_window_poll_ms (self, FALSE));
  pd_session_list_refresh (self->session_list);
  pd_now_view_refresh (self->now_view);
}

/* The demo's run tells the window's source of its commits through its
 * events, as a run of the window does (PdRunController). */
static void
on_demo_engine (PdWindow *self)
{
  PdEngine *engine = pd_demo_get_engine (self->demo);

  if (engine != NULL && pd_engine_get_bus (engine) != NULL && PD_IS_LOCAL_SOURCE (self->source))
    pd_local_source_follow_bus (PD_LOCAL_SOURCE (self->source), pd_engine_get_bus (engine));
}

/* On a narrow window the banner's button goes under its text, which then
 * has the whole width: beside a long button (German) the text was a column
 * a word wide. */
static void
on_folded (PdWindow *self)
{
  gboolean narrow = adw_leaflet_get_folded (self->leaflet);

  gtk_orientable_set_orientation (GTK_ORIENTABLE (self->connection_row),
                                  narrow ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL);
  gtk_box_set_spacing (self->connection_row, narrow ? 6 : 12);
  gtk_widget_set_visible (GTK_WIDGET (self->connection_icon), !narrow);
  gtk_widget_set_halign (GTK_WIDGET (self->connection_retry), narrow ? GTK_ALIGN_END : GTK_ALIGN_FILL);
}

/* --- the source --------------------------------------------------------- */

/* Takes @source.  The session views follow through their bindings. */
static void
pd_window_set_source (PdWindow *self,
                      PdSource *source)
{
  if (self->source == source)
    return;

  g_clear_object (&self->source);
  self->source = source;
  self->failed = FALSE;

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOURCE]);
  pd_session_list_set_source (self->session_list, self->source);
  pd_window_update_content (self);
}

/* A local database's imported sessions are followed live while reading
 * agents' plans is on: a running Claude Code or Codex session's checklist
 * updates as the agent writes. */
static void
pd_window_follow_transcripts (PdWindow *self)
{
  if (self->source == NULL || !PD_IS_LOCAL_SOURCE (self->source))
    return;
  pd_local_source_follow_transcripts (PD_LOCAL_SOURCE (self->source),
                                      g_settings_get_boolean (self->settings, "read-agent-plans"));
}

/* The banner over the content says whether a remote endpoint answers:
 * offline (reconnecting by itself, or now with Retry), or refusing the
 * token (a new one can be entered in place). */
static void
pd_window_update_connection (PdWindow *self)
{
  PdRemoteSource *remote = self->source != NULL && PD_IS_REMOTE_SOURCE (self->source)
                           ? PD_REMOTE_SOURCE (self->source) : NULL;
  PdRemoteState state = remote != NULL ? pd_remote_source_get_state (remote) : PD_REMOTE_ONLINE;
  const char *reason = remote != NULL ? pd_remote_source_get_state_message (remote) : NULL;
  g_autofree char *text = NULL;

  switch (state)
    {
    case PD_REMOTE_OFFLINE:
      /* Translators: %s says why, e.g. "Could not reach http://…: the connection was refused" */
      text = g_strdup_printf (_("Offline, reconnecting. %s"), reason ? reason : "");
      gtk_image_set_from_icon_name (self->connection_icon, "network-offline-symbolic");
      gtk_widget_remove_css_class (gtk_revealer_get_child (self->connection_banner), "denied");
      break;
    case PD_REMOTE_DENIED:
      /* Translators: %s says why, e.g. "http://… refused the token (HTTP 403)" */
      text = g_strdup_printf (_("%s. A restarted server prints a new token: enter it here."), reason ? reason : "");
      gtk_image_set_from_icon_name (self->connection_icon, "dialog-password-symbolic");
      gtk_widget_add_css_class (gtk_revealer_get_child (self->connection_banner), "denied");
      break;
    case PD_REMOTE_CONNECTING:
    case PD_REMOTE_ONLINE:
    default:
      break;
    }

  if (text != NULL)
    gtk_label_set_text (self->connection_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->connection_retry), state == PD_REMOTE_OFFLINE);
  gtk_widget_set_visible (GTK_WIDGET (self->token_box), state == PD_REMOTE_DENIED);
  gtk_revealer_set_reveal_child (self->connection_banner, state == PD_REMOTE_OFFLINE || state == PD_REMOTE_DENIED);
}

/* Takes @runs: the window's runs, on its database or its endpoint. */
static void
pd_window_set_runs (PdWindow        *self,
                    PdRunController *runs)
{
  if (self->runs != NULL)
    g_object_run_dispose (G_OBJECT (self->runs));
  g_clear_object (&self->runs);
  self->runs = runs;
  g_signal_connect_object (self->runs, "session-started", G_CALLBACK (on_run_session_started),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "finished", G_CALLBACK (on_run_finished),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "notify::running", G_CALLBACK (on_run_running),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "notify::status-text", G_CALLBACK (on_run_text),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "notify::activity", G_CALLBACK (on_run_text),
                           self, G_CONNECT_SWAPPED);
  pd_window_update_run_ui (self);
  pd_window_refresh_plan_mode (self);
}

static void
pd_window_open_remote (PdWindow *self)
{
  g_autoptr(GError) error = NULL;
  PdRemoteSource *remote = pd_remote_source_new (self->remote_url, self->remote_token, &error);

  gtk_button_set_label (self->error_button, _("_Connect to Endpoint…"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->error_button), "win.connect-endpoint");
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.new-session", FALSE);

  if (remote == NULL)
    {
      pd_window_show_error (self, _("Cannot Reach the Endpoint"), error->message);
      return;
    }

  g_signal_connect_object (remote, "notify::state", G_CALLBACK (pd_window_update_connection),
                           self, G_CONNECT_SWAPPED);
  pd_remote_source_watch (remote, REMOTE_WATCH_MS);
  pd_window_set_source (self, PD_SOURCE (remote));
  /* Sessions there are continued there: the server's engine runs them,
   * and asks its questions here. */
  pd_window_set_runs (self, pd_run_controller_new_for_remote (remote, GTK_WINDOW (self)));
}

/**
 * pd_window_set_remote_token:
 * @token: (nullable): the instance token of the endpoint the window shows
 *
 * Uses @token for the window's endpoint from now on (a restarted server
 * prints a new one) and reads everything again.
 */
void
pd_window_set_remote_token (PdWindow   *self,
                            const char *token)
{
  g_return_if_fail (PD_IS_WINDOW (self));

  if (self->remote_url == NULL)
    return;
  if (g_strcmp0 (self->remote_token, token) == 0 && self->source != NULL && PD_IS_REMOTE_SOURCE (self->source) &&
      pd_remote_source_get_state (PD_REMOTE_SOURCE (self->source)) == PD_REMOTE_ONLINE)
    return;

  g_free (self->remote_token);
  self->remote_token = g_strdup (token);
  if (self->source != NULL && PD_IS_REMOTE_SOURCE (self->source))
    {
      pd_remote_source_set_token (PD_REMOTE_SOURCE (self->source), token);
      pd_session_list_refresh (self->session_list);
    }
  else
    {
      self->failed = FALSE;
      pd_window_open_remote (self);
    }
}

static void
pd_window_open_source (PdWindow *self)
{
  if (self->remote_url != NULL)
    {
      pd_window_open_remote (self);
      return;
    }

  if (self->demo != NULL)
    {
      /* The run creates the database, then the source reads it live. */
      gtk_revealer_set_reveal_child (self->demo_banner, TRUE);
      gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.new-session", FALSE);
      g_signal_connect_object (self->demo, "notify::engine", G_CALLBACK (on_demo_engine), self,
                               G_CONNECT_SWAPPED);
      pd_demo_run_async (self->demo, self->cancellable, on_demo_done, g_object_ref (self));
      pd_window_set_source (self, PD_SOURCE (pd_local_source_new (self->database_path, TRUE)));
      pd_local_source_watch (PD_LOCAL_SOURCE (self->source), pd_window_poll_ms (self, TRUE));
      return;
    }

  if (self->database_path == NULL)
    return;

  if (!self->create_database && !g_file_test (self->database_path, G_FILE_TEST_EXISTS))
    {
      g_autofree char *description =
        /* Translators: %s is a file path */
        g_strdup_printf (_("There is no Plandeck database at %s. A run started with “plandeck-agent run --db PATH” creates one."),
                         self->database_path);

      pd_window_show_error (self, _("No Database Here"), description);
      gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.new-session", FALSE);
      return;
    }

  pd_window_set_source (self, PD_SOURCE (pd_local_source_new (self->database_path, self->create_database)));
  pd_local_source_watch (PD_LOCAL_SOURCE (self->source), pd_window_poll_ms (self, FALSE));
  pd_window_follow_transcripts (self);

  pd_window_set_runs (self, pd_run_controller_new (PD_LOCAL_SOURCE (self->source), GTK_WINDOW (self)));
}

/* --- actions ------------------------------------------------------------ */

static void
show_sessions_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);

  adw_leaflet_set_visible_child_name (self->leaflet, "sidebar");
}

static void
search_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);

  adw_leaflet_set_visible_child_name (self->leaflet, "sidebar");
  pd_session_list_start_search (self->session_list);
}

static void
show_now_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);

  adw_view_stack_set_visible_child_name (self->view_stack, "now");
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->content_stack), "session") == 0)
    adw_leaflet_set_visible_child_name (self->leaflet, "content");
}

static void
on_database_chosen (GtkNativeDialog *dialog,
                    int              response,
                    PdWindow        *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;

      if (path != NULL)
        gtk_widget_activate_action (GTK_WIDGET (self), "app.open-database", "s", path);
    }

  gtk_native_dialog_destroy (dialog);
  g_object_unref (dialog);
}

static void
open_database_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);
  GtkFileChooserNative *chooser;
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) all = gtk_file_filter_new ();

  chooser = gtk_file_chooser_native_new (_("Open Database"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);

  gtk_file_filter_set_name (filter, _("Session Databases"));
  gtk_file_filter_add_pattern (filter, "*.db");
  gtk_file_filter_add_pattern (filter, "*.sqlite");
  gtk_file_filter_add_pattern (filter, "*.sqlite3");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
  gtk_file_filter_set_name (all, _("All Files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), all);

  g_signal_connect (chooser, "response", G_CALLBACK (on_database_chosen), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
on_endpoint_response (AdwMessageDialog *dialog,
                      const char       *response,
                      PdWindow         *self)
{
  GtkEditable *entry = g_object_get_data (G_OBJECT (dialog), "url-entry");
  GtkEditable *token_entry = g_object_get_data (G_OBJECT (dialog), "token-entry");
  g_autofree char *url = NULL;
  g_autofree char *token = NULL;
  g_autofree char *base = NULL;
  g_autofree char *from_url = NULL;

  if (g_strcmp0 (response, "connect") != 0)
    return;

  url = g_strstrip (g_strdup (gtk_editable_get_text (entry)));
  token = g_strstrip (g_strdup (gtk_editable_get_text (token_entry)));
  if (url[0] == '\0')
    return;

  /* The token travels in the URL to the application, which keeps it apart. */
  base = pd_window_split_endpoint_url (url, &from_url);
  if (token[0] != '\0' && from_url == NULL)
    {
      g_autofree char *escaped = g_uri_escape_string (token, NULL, FALSE);
      g_autofree char *with_token = g_strconcat (base, strchr (base, '?') ? "&" : "?",
                                                 "token=", escaped, NULL);

      gtk_widget_activate_action (GTK_WIDGET (self), "app.open-remote", "s", with_token);
      return;
    }

  gtk_widget_activate_action (GTK_WIDGET (self), "app.open-remote", "s", url);
}

static void
connect_endpoint_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);
  g_autofree char *remembered_url = g_settings_get_string (self->settings, "endpoint-url");
  g_autofree char *remembered_token = g_settings_get_string (self->settings, "endpoint-token");
  GtkWidget *dialog;
  GtkWidget *box;
  GtkWidget *entry;
  GtkWidget *token_entry;

  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Connect to Endpoint"),
                                   _("The address of a plandeck-agent serve or odek serve endpoint."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "connect", _("C_onnect"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "connect",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "connect");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  entry = gtk_entry_new ();
  gtk_entry_set_placeholder_text (GTK_ENTRY (entry), "http://127.0.0.1:8080");
  gtk_editable_set_text (GTK_EDITABLE (entry), remembered_url);
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Endpoint URL"), -1);
  gtk_box_append (GTK_BOX (box), entry);

  token_entry = gtk_password_entry_new ();
  gtk_password_entry_set_show_peek_icon (GTK_PASSWORD_ENTRY (token_entry), TRUE);
  g_object_set (token_entry, "placeholder-text", _("Token (unless the URL has ?token=)"),
                "activates-default", TRUE, NULL);
  gtk_editable_set_text (GTK_EDITABLE (token_entry), remembered_token);
  gtk_accessible_update_property (GTK_ACCESSIBLE (token_entry), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Token"), -1);
  gtk_box_append (GTK_BOX (box), token_entry);

  g_object_set_data (G_OBJECT (dialog), "url-entry", entry);
  g_object_set_data (G_OBJECT (dialog), "token-entry", token_entry);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), box);

  g_signal_connect_object (dialog, "response", G_CALLBACK (on_endpoint_response), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
new_session_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);
  PdNewSessionDialog *dialog;

  if (self->runs == NULL)
    return;

  dialog = pd_new_session_dialog_new (GTK_WINDOW (self));
  if (pd_run_controller_is_remote (self->runs))
    pd_new_session_dialog_set_endpoint (dialog, self->remote_url);
  g_signal_connect_object (dialog, "start", G_CALLBACK (on_new_session_start), self,
                           G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
preferences_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  gtk_window_present (GTK_WINDOW (pd_preferences_window_new (GTK_WINDOW (widget))));
}

/* --- importing other agents' sessions ------------------------------------ */

/* The window and the database the import runs for.  The task's last
 * reference may go in the worker thread, so the task owns none of them: the
 * job is freed by on_import_done(), on the main thread, after the worker
 * is done with it. */
typedef struct
{
  PdWindow      *window;
  PdLocalSource *source;
} ImportJob;

static void
import_job_free (ImportJob *job)
{
  g_object_unref (job->window);
  g_object_unref (job->source);
  g_free (job);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ImportJob, import_job_free)

static void
import_in_thread (GTask        *task,
                  gpointer      source_object,
                  gpointer      task_data,
                  GCancellable *cancellable)
{
  ImportJob *job = task_data;
  PdLocalSource *source = job->source;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdImportIndex) index = NULL;
  PdImportIndexStats *stats = g_new0 (PdImportIndexStats, 1);
  GError *error = NULL;

  if (!(store = pd_local_source_open_store (source, &error)))
    {
      g_free (stats);
      g_task_return_error (task, error);
      return;
    }

  index = pd_import_index_new ();
  if (!pd_import_index_run (index, store, NULL, stats, &error))
    {
      g_free (stats);
      g_task_return_error (task, error);
      return;
    }

  g_task_return_pointer (task, stats, g_free);
}

static void
on_import_done (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(ImportJob) job = user_data;
  PdWindow *self = job->window;
  g_autoptr(GError) error = NULL;
  g_autofree PdImportIndexStats *stats = g_task_propagate_pointer (G_TASK (result), &error);
  g_autofree char *message = NULL;

  if (stats == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        pd_window_show_message (self, error->message);
      return;
    }

  if (stats->transcripts == 0)
    message = g_strdup (_("No transcripts of other agents were found on this computer"));
  else
    /* Translators: counts of sessions read from other agents' transcripts */
    message = g_strdup_printf (_("Other agents: %u sessions added, %u updated, %u unchanged"),
                               stats->sessions_added, stats->sessions_updated, stats->unchanged);
  pd_window_show_message (self, message);

  if (self->source != NULL)
    pd_source_emit_changed (self->source);
  /* Follow the sessions just found as well. */
  pd_window_follow_transcripts (self);
}

/* Claude Code, Codex and OpenCode keep their transcripts on this machine:
 * index them into this database (counts and metadata only — their plan
 * text stays in their files). */
static void
import_transcripts_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);
  g_autoptr(GTask) task = NULL;
  ImportJob *job;

  if (self->source == NULL || !PD_IS_LOCAL_SOURCE (self->source))
    {
      pd_window_show_message (self, _("Other agents' sessions can be read into a local database only"));
      return;
    }

  if (!g_settings_get_boolean (self->settings, "read-agent-plans"))
    {
      pd_window_show_message (self, _("Reading other agents' plans is turned off in Preferences"));
      return;
    }

  pd_window_show_message (self, _("Reading the transcripts of other agents…"));
  job = g_new0 (ImportJob, 1);
  job->window = g_object_ref (self);
  job->source = PD_LOCAL_SOURCE (g_object_ref (self->source));
  task = g_task_new (NULL, NULL, on_import_done, job);
  g_task_set_task_data (task, job, NULL);
  g_task_run_in_thread (task, import_in_thread);
}

static void
open_demo_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  gtk_widget_activate_action (widget, "app.open-demo", NULL);
}

static void
stop_run_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);

  if (self->runs != NULL)
    pd_run_controller_stop (self->runs);
}

static void
send_message_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);
  const char *shown = pd_window_shown_session_id (self);
  g_autofree char *message = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->message_entry))));
  g_autoptr(GError) error = NULL;

  if (self->runs == NULL || shown == NULL || message[0] == '\0')
    return;

  if (!pd_run_controller_continue (self->runs, shown, message, &error))
    {
      pd_window_show_message (self, error->message);
      return;
    }
  gtk_editable_set_text (GTK_EDITABLE (self->message_entry), "");
}

static void
on_token_activate (PdWindow *self)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "win.use-token", NULL);
}

/* The token entered in the banner, for a server that refused the old one. */
static void
use_token_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);
  g_autofree char *token = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->token_entry))));

  if (token[0] == '\0')
    return;
  gtk_editable_set_text (GTK_EDITABLE (self->token_entry), "");
  pd_window_set_remote_token (self, token);
}

/* Retry on an error page or the offline banner: open or ask again now. */
static void
retry_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);

  if (self->source == NULL)
    {
      self->failed = FALSE;
      pd_window_open_source (self);
      return;
    }

  if (PD_IS_REMOTE_SOURCE (self->source))
    pd_remote_source_reconnect (PD_REMOTE_SOURCE (self->source));
  else
    pd_source_emit_changed (self->source);
  pd_session_list_refresh (self->session_list);
}

/* The primary menu's recent sources, from GSettings, newest first. */
static void
pd_window_update_recent (PdWindow *self)
{
  g_auto(GStrv) recent = g_settings_get_strv (self->settings, "recent-sources");
  guint shown = 0;

  g_menu_remove_all (self->recent_section);
  for (guint i = 0; recent[i] != NULL && shown < MAX_RECENT_SHOWN; i++)
    {
      g_autoptr(GMenuItem) item = NULL;
      g_autofree char *label = NULL;
      gboolean is_url = g_str_has_prefix (recent[i], "http://") || g_str_has_prefix (recent[i], "https://");

      if (g_strcmp0 (recent[i], pd_window_source_label (self)) == 0)
        continue;

      label = is_url ? g_strdup (recent[i]) : g_path_get_basename (recent[i]);
      item = g_menu_item_new (label, NULL);
      g_menu_item_set_action_and_target_value (item, is_url ? "app.open-remote" : "app.open-database",
                                               g_variant_new_string (recent[i]));
      g_menu_append_item (self->recent_section, item);
      shown++;
    }
}

/* --- GObject ------------------------------------------------------------ */

static void
pd_window_constructed (GObject *object)
{
  PdWindow *self = PD_WINDOW (object);

  G_OBJECT_CLASS (pd_window_parent_class)->constructed (object);

  pd_window_update_title (self);
  pd_window_open_source (self);
  pd_window_update_recent (self);
}

static void
pd_window_dispose (GObject *object)
{
  PdWindow *self = PD_WINDOW (object);

  if (self->shown_item != NULL)
    {
      g_clear_signal_handler (&self->running_handler, self->shown_item);
      g_clear_signal_handler (&self->title_handler, self->shown_item);
      g_clear_signal_handler (&self->ahead_handler, self->shown_item);
    }
  g_clear_object (&self->shown_item);
  if (self->first_show_tick != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->first_show_tick);
  self->first_show_tick = 0;

  g_clear_handle_id (&self->select_idle, g_source_remove);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  if (self->runs != NULL)
    g_object_run_dispose (G_OBJECT (self->runs));
  g_clear_object (&self->runs);

  gtk_widget_dispose_template (GTK_WIDGET (object), PD_TYPE_WINDOW);

  /* A remote source's open event stream holds the source: stopped here, or
   * the source (its HTTP session and connection) outlives the window. */
  if (self->source != NULL && PD_IS_REMOTE_SOURCE (self->source))
    pd_remote_source_watch (PD_REMOTE_SOURCE (self->source), 0);
  g_clear_object (&self->source);
  /* After the source: the demo removes its folder and database. */
  g_clear_object (&self->demo);

  G_OBJECT_CLASS (pd_window_parent_class)->dispose (object);
}

static void
pd_window_finalize (GObject *object)
{
  PdWindow *self = PD_WINDOW (object);

  g_clear_object (&self->settings);
  g_clear_pointer (&self->database_path, g_free);
  g_clear_pointer (&self->remote_url, g_free);
  g_clear_pointer (&self->remote_token, g_free);
  g_clear_pointer (&self->pending_select, g_free);
  g_clear_pointer (&self->session_id, g_free);
  g_clear_object (&self->cancellable);

  G_OBJECT_CLASS (pd_window_parent_class)->finalize (object);
}

static void
pd_window_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  PdWindow *self = PD_WINDOW (object);

  switch (prop_id)
    {
    case PROP_DATABASE_PATH:
      g_value_set_string (value, self->database_path);
      break;

    case PROP_REMOTE_URL:
      g_value_set_string (value, self->remote_url);
      break;

    case PROP_CREATE_DATABASE:
      g_value_set_boolean (value, self->create_database);
      break;

    case PROP_DEMO:
      g_value_set_object (value, self->demo);
      break;

    case PROP_SOURCE:
      g_value_set_object (value, self->source);
      break;

    case PROP_SESSION_ID:
      g_value_set_string (value, self->session_id);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_window_set_property (GObject      *object,
                        guint         prop_id,
                        const GValue *value,
                        GParamSpec   *pspec)
{
  PdWindow *self = PD_WINDOW (object);

  switch (prop_id)
    {
    case PROP_DATABASE_PATH:
      g_free (self->database_path);
      self->database_path = g_value_dup_string (value);
      break;

    case PROP_REMOTE_URL:
      g_free (self->remote_url);
      g_clear_pointer (&self->remote_token, g_free);
      /* The token is kept apart, never shown in a title or remembered. */
      self->remote_url = g_value_get_string (value) != NULL
        ? pd_window_split_endpoint_url (g_value_get_string (value), &self->remote_token)
        : NULL;
      break;

    case PROP_CREATE_DATABASE:
      self->create_database = g_value_get_boolean (value);
      break;

    case PROP_DEMO:
      self->demo = g_value_dup_object (value);
      if (self->demo != NULL)
        {
          g_free (self->database_path);
          self->database_path = g_strdup (pd_demo_get_database_path (self->demo));
        }
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_window_class_init (PdWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->constructed = pd_window_constructed;
  object_class->dispose = pd_window_dispose;
  object_class->finalize = pd_window_finalize;
  object_class->get_property = pd_window_get_property;
  object_class->set_property = pd_window_set_property;

  window_class->close_request = pd_window_close_request;

  /**
   * PdWindow:database-path:
   *
   * The local database file this window shows, or %NULL for a remote source.
   */
  properties[PROP_DATABASE_PATH] =
    g_param_spec_string ("database-path", NULL, NULL,
                         NULL,
                         (G_PARAM_READWRITE |
                          G_PARAM_CONSTRUCT_ONLY |
                          G_PARAM_STATIC_STRINGS));

  /**
   * PdWindow:remote-url:
   *
   * The endpoint this window shows, or %NULL for a local database.
   */
  properties[PROP_REMOTE_URL] =
    g_param_spec_string ("remote-url", NULL, NULL,
                         NULL,
                         (G_PARAM_READWRITE |
                          G_PARAM_CONSTRUCT_ONLY |
                          G_PARAM_STATIC_STRINGS));

  /**
   * PdWindow:create-database:
   *
   * Whether a missing database file is created (the default database is);
   * otherwise a missing file is reported.
   */
  properties[PROP_CREATE_DATABASE] =
    g_param_spec_boolean ("create-database", NULL, NULL,
                          FALSE,
                          (G_PARAM_READWRITE |
                           G_PARAM_CONSTRUCT_ONLY |
                           G_PARAM_STATIC_STRINGS));

  /**
   * PdWindow:demo:
   *
   * The demo this window replays, kept alive with the window.
   */
  properties[PROP_DEMO] =
    g_param_spec_object ("demo", NULL, NULL,
                         PD_TYPE_DEMO,
                         (G_PARAM_READWRITE |
                          G_PARAM_CONSTRUCT_ONLY |
                          G_PARAM_STATIC_STRINGS));

  /**
   * PdWindow:source:
   *
   * What the window reads sessions from; every session view is bound to it.
   */
  properties[PROP_SOURCE] =
    g_param_spec_object ("source", NULL, NULL,
                         PD_TYPE_SOURCE,
                         (G_PARAM_READABLE |
                          G_PARAM_EXPLICIT_NOTIFY |
                          G_PARAM_STATIC_STRINGS));

  /**
   * PdWindow:session-id:
   *
   * The session shown, or %NULL; every session view is bound to it (the
   * Now page to a session of our own, the checklist to an imported one).
   */
  properties[PROP_SESSION_ID] =
    g_param_spec_string ("session-id", NULL, NULL,
                         NULL,
                         (G_PARAM_READABLE |
                          G_PARAM_EXPLICIT_NOTIFY |
                          G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (PD_TYPE_SESSION_LIST);
  g_type_ensure (PD_TYPE_NOW_VIEW);
  g_type_ensure (PD_TYPE_TRANSCRIPT_VIEW);
  g_type_ensure (PD_TYPE_CHECKLIST_VIEW);
  g_type_ensure (PD_TYPE_EVENTS_VIEW);
  g_type_ensure (PD_TYPE_HISTORY_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/plandeck/Plandeck/ui/pd-window.ui");
  gtk_widget_class_bind_template_child (widget_class, PdWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, leaflet);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, switcher_title);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, empty_state);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, error_page);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, content_stack);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, view_stack);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, session_list);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, now_view);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, transcript_slot);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, events_slot);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, history_slot);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, now_stack);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, checklist_view);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, transcript_view);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, events_view);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, history_view);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, error_button);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, plan_mode_button);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, demo_banner);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, connection_banner);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, connection_row);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, connection_icon);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, connection_label);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, connection_retry);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, token_box);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, token_entry);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, error_retry);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, run_bar);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, run_activity_label);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, run_text_label);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, message_bar);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, message_entry);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, recent_section);
  gtk_widget_class_bind_template_callback (widget_class, on_plan_mode_toggled);
  gtk_widget_class_bind_template_callback (widget_class, on_message_activate);
  gtk_widget_class_bind_template_callback (widget_class, on_selected_item_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_list_loaded);
  gtk_widget_class_bind_template_callback (widget_class, on_session_activated);
  gtk_widget_class_bind_template_callback (widget_class, on_load_failed);
  gtk_widget_class_bind_template_callback (widget_class, on_token_activate);

  gtk_widget_class_install_action (widget_class, "win.show-sessions", NULL, show_sessions_action);
  gtk_widget_class_install_action (widget_class, "win.search", NULL, search_action);
  gtk_widget_class_install_action (widget_class, "win.show-now", NULL, show_now_action);
  gtk_widget_class_install_action (widget_class, "win.open-database", NULL, open_database_action);
  gtk_widget_class_install_action (widget_class, "win.connect-endpoint", NULL,
                                   connect_endpoint_action);
  gtk_widget_class_install_action (widget_class, "win.open-demo", NULL, open_demo_action);
  gtk_widget_class_install_action (widget_class, "win.import-transcripts", NULL, import_transcripts_action);
  gtk_widget_class_install_action (widget_class, "win.new-session", NULL, new_session_action);
  gtk_widget_class_install_action (widget_class, "win.preferences", NULL, preferences_action);
  gtk_widget_class_install_action (widget_class, "win.stop-run", NULL, stop_run_action);
  gtk_widget_class_install_action (widget_class, "win.send-message", NULL, send_message_action);
  gtk_widget_class_install_action (widget_class, "win.retry", NULL, retry_action);
  gtk_widget_class_install_action (widget_class, "win.use-token", NULL, use_token_action);
}

/* The Now page shows sessions of our own, the checklist imported ones. */
static gboolean
session_id_if_own (GBinding     *binding,
                   const GValue *from,
                   GValue       *to,
                   gpointer      user_data)
{
  PdWindow *self = user_data;
  gboolean imported = self->shown_item != NULL && pd_session_item_is_imported (self->shown_item);

  g_value_set_string (to, imported ? NULL : g_value_get_string (from));
  return TRUE;
}

static gboolean
session_id_if_imported (GBinding     *binding,
                        const GValue *from,
                        GValue       *to,
                        gpointer      user_data)
{
  PdWindow *self = user_data;
  gboolean imported = self->shown_item != NULL && pd_session_item_is_imported (self->shown_item);

  g_value_set_string (to, imported ? g_value_get_string (from) : NULL);
  return TRUE;
}

static void
pd_window_bind_views (PdWindow *self)
{
  GtkWidget *views[] = {
    GTK_WIDGET (self->now_view), GTK_WIDGET (self->checklist_view), GTK_WIDGET (self->transcript_view),
    GTK_WIDGET (self->events_view), GTK_WIDGET (self->history_view),
  };

  for (guint i = 0; i < G_N_ELEMENTS (views); i++)
    g_object_bind_property (self, "source", views[i], "source", G_BINDING_SYNC_CREATE);

  g_object_bind_property_full (self, "session-id", self->now_view, "session-id", G_BINDING_SYNC_CREATE,
                               session_id_if_own, NULL, self, NULL);
  g_object_bind_property_full (self, "session-id", self->checklist_view, "session-id", G_BINDING_SYNC_CREATE,
                               session_id_if_imported, NULL, self, NULL);
  g_object_bind_property (self, "session-id", self->transcript_view, "session-id", G_BINDING_SYNC_CREATE);
  g_object_bind_property (self, "session-id", self->events_view, "session-id", G_BINDING_SYNC_CREATE);
  g_object_bind_property (self, "session-id", self->history_view, "session-id", G_BINDING_SYNC_CREATE);
}

static void
pd_window_init (PdWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  pd_window_bind_views (self);

  g_signal_connect_object (self->events_view, "notices-changed",
                           G_CALLBACK (on_notices_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->now_view, "plan-shown",
                           G_CALLBACK (on_now_plan_shown), self, G_CONNECT_SWAPPED);

  self->settings = g_settings_new (APP_ID);
  self->cancellable = g_cancellable_new ();
  pd_window_restore_size (self);

  self->items_handler = g_signal_connect_object (pd_session_list_get_model (self->session_list),
                                                 "items-changed",
                                                 G_CALLBACK (on_session_items_changed),
                                                 self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed::read-agent-plans",
                           G_CALLBACK (pd_window_follow_transcripts), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed::recent-sources",
                           G_CALLBACK (pd_window_update_recent), self, G_CONNECT_SWAPPED);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.stop-run", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.send-message", FALSE);

  /* When the leaflet folds on a narrow window, the main area comes first. */
  adw_leaflet_set_visible_child_name (self->leaflet, "content");
  g_signal_connect_object (self->leaflet, "notify::folded", G_CALLBACK (on_folded), self, G_CONNECT_SWAPPED);
  on_folded (self);
}

/**
 * pd_window_new:
 * @application: the application the window belongs to
 * @database_path: (nullable): a local database file
 * @remote_url: (nullable): an endpoint URL; used instead of @database_path when set
 * @create_database: create @database_path when it does not exist
 *
 * Returns: (transfer full): a new window showing the given source
 */
PdWindow *
pd_window_new (GtkApplication *application,
               const char     *database_path,
               const char     *remote_url,
               gboolean        create_database)
{
  g_return_val_if_fail (GTK_IS_APPLICATION (application), NULL);

  return g_object_new (PD_TYPE_WINDOW,
                       "application", application,
                       "database-path", remote_url == NULL ? database_path : NULL,
                       "remote-url", remote_url,
                       "create-database", create_database,
                       NULL);
}

const char *
pd_window_get_database_path (PdWindow *self)
{
  g_return_val_if_fail (PD_IS_WINDOW (self), NULL);

  return self->database_path;
}

const char *
pd_window_get_remote_url (PdWindow *self)
{
  g_return_val_if_fail (PD_IS_WINDOW (self), NULL);

  return self->remote_url;
}

/**
 * pd_window_show_message:
 * @self: a #PdWindow
 * @message: plain text for a person to read
 *
 * Shows @message in a toast. The text is never interpreted as markup.
 */
void
pd_window_show_message (PdWindow   *self,
                        const char *message)
{
  g_autofree char *escaped = NULL;

  g_return_if_fail (PD_IS_WINDOW (self));
  g_return_if_fail (message != NULL);

  /* AdwToast titles are Pango markup. */
  escaped = g_markup_escape_text (message, -1);
  adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (escaped));
}

/**
 * pd_window_get_source:
 *
 * Returns: (transfer none) (nullable): the source the window reads, %NULL
 *   when it could not be opened
 */
PdSource *
pd_window_get_source (PdWindow *self)
{
  g_return_val_if_fail (PD_IS_WINDOW (self), NULL);

  return self->source;
}

/**
 * pd_window_new_for_demo:
 * @demo: the demo to replay; the window keeps it (and its folder) alive
 *
 * Returns: (transfer full): a window labelled as a demo that starts the
 *   recorded run and follows it live
 */
PdWindow *
pd_window_new_for_demo (GtkApplication *application,
                        PdDemo         *demo)
{
  g_return_val_if_fail (GTK_IS_APPLICATION (application), NULL);
  g_return_val_if_fail (PD_IS_DEMO (demo), NULL);

  return g_object_new (PD_TYPE_WINDOW,
                       "application", application,
                       "demo", demo,
                       "create-database", TRUE,
                       NULL);
}

PdDemo *
pd_window_get_demo (PdWindow *self)
{
  g_return_val_if_fail (PD_IS_WINDOW (self), NULL);

  return self->demo;
}

/**
 * pd_window_get_run_controller:
 *
 * Returns: (transfer none) (nullable): the engine of a window on a local
 *   database; %NULL for remote sources and the demo
 */
PdRunController *
pd_window_get_run_controller (PdWindow *self)
{
  g_return_val_if_fail (PD_IS_WINDOW (self), NULL);

  return self->runs;
}

/**
 * pd_window_split_endpoint_url:
 * @url: an endpoint URL, perhaps with `?token=…` as `serve` prints it
 * @token: (out) (optional) (nullable): the token of the URL, or %NULL
 *
 * Returns: (transfer full): @url without its token parameter
 */
char *
pd_window_split_endpoint_url (const char  *url,
                              char       **token)
{
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_ENCODED_QUERY, NULL);
  g_autoptr(GString) query = NULL;
  g_autoptr(GUri) stripped = NULL;
  GUriParamsIter iter;
  char *key = NULL;
  char *value = NULL;

  if (token != NULL)
    *token = NULL;

  if (uri == NULL || g_uri_get_query (uri) == NULL)
    return g_strdup (url);

  query = g_string_new (NULL);
  g_uri_params_iter_init (&iter, g_uri_get_query (uri), -1, "&", G_URI_PARAMS_NONE);
  while (g_uri_params_iter_next (&iter, &key, &value, NULL))
    {
      if (g_strcmp0 (key, "token") == 0)
        {
          if (token != NULL)
            {
              g_free (*token);
              *token = g_steal_pointer (&value);
            }
        }
      else
        {
          g_autofree char *k = g_uri_escape_string (key, NULL, FALSE);
          g_autofree char *v = g_uri_escape_string (value ? value : "", NULL, FALSE);

          g_string_append_printf (query, "%s%s=%s", query->len ? "&" : "", k, v);
        }
      g_clear_pointer (&key, g_free);
      g_clear_pointer (&value, g_free);
    }

  stripped = g_uri_build (G_URI_FLAGS_ENCODED_QUERY, g_uri_get_scheme (uri), g_uri_get_userinfo (uri),
                          g_uri_get_host (uri), g_uri_get_port (uri), g_uri_get_path (uri),
                          query->len ? query->str : NULL, g_uri_get_fragment (uri));

  return g_uri_to_string (stripped);
}
