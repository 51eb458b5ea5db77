/* pd-window.c: the main Plandeck window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A window shows one source of sessions: a local database file (read
 * through PdLocalSource, watched for other writers) or a remote endpoint;
 * the default database's window shows it with the endpoints configured in
 * Preferences, through a PdMultiSource (pd-window-source.c).  The sidebar
 * lists the sources (when there are several) and the sessions; the main area shows the selected one as
 * a view stack (Now, Transcript, Events, History), or a status page: no
 * sessions yet, no matches, a source that cannot be opened.
 */
#define G_LOG_DOMAIN "pd-window"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "pd-ui-util-private.h"
#include "pd-window-private.h"

G_DEFINE_FINAL_TYPE (PdWindow, pd_window, ADW_TYPE_APPLICATION_WINDOW)

enum {
  PROP_0,
  PROP_DATABASE_PATH,
  PROP_REMOTE_URL,
  PROP_CREATE_DATABASE,
  PROP_DEMO,
  PROP_SOURCE,
  PROP_SHOWN_SOURCE,
  PROP_SESSION_ID,
  PROP_WITH_ENDPOINTS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Commits to a local database are pushed (a file monitor on the file and
 * its WAL); the fallback poll of its data version follows the Refresh
 * preferences: poll-running-ms while a run of this window or the demo
 * writes, poll-idle-ms otherwise. */
guint
_pd_window_poll_ms (PdWindow *self,
                    gboolean  running)
{
  return g_settings_get_uint (self->settings, running ? "poll-running-ms" : "poll-idle-ms");
}

const char *
_pd_window_source_label (PdWindow *self)
{
  return self->remote_url != NULL ? self->remote_url : self->database_path;
}

/* The label a person reads for the source: the full database path, or the URL. */
static void
pd_window_update_title (PdWindow *self)
{
  g_autofree char *short_name = NULL;
  g_autofree char *title = NULL;
  const char *subtitle = _pd_window_source_label (self);

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
  PdWindow *self = PD_WINDOW (window);

  pd_window_save_size (self);
  if (GTK_WINDOW_CLASS (pd_window_parent_class)->close_request (window))
    return TRUE;

  /* A run in progress holds the application until it ends, and holds this
   * window (its callback's reference), so dispose would cancel it only
   * after it ended: closed, it is cancelled now (Quit and SIGTERM close
   * every window).  A run on an endpoint goes on there. */
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  if (self->runs != NULL)
    pd_run_controller_cancel_local (self->runs);
  return FALSE;
}


void
_pd_window_show_error (PdWindow   *self,
                       const char *title,
                       const char *description)
{
  self->failed = TRUE;
  adw_status_page_set_icon_name (self->error_page, "dialog-error-symbolic");
  adw_status_page_set_title (self->error_page, title);
  g_free (self->error_description);
  self->error_description = g_strdup (description);
  adw_view_switcher_title_set_view_switcher_enabled (self->switcher_title, FALSE);
  gtk_stack_set_visible_child_name (self->content_stack, "error");
  _pd_window_update_error_page (self);
}

/* One message for one cause: the connection banner over the error page
 * says why when it is revealed (a refused token, with the entry for a new
 * one), and the page then keeps its title only; an endpoint that cannot be
 * reached is told by the page, with its Retry, and the banner stays
 * hidden (see pd_window_update_connection()). */
void
_pd_window_update_error_page (PdWindow *self)
{
  gboolean page = self->failed && g_strcmp0 (gtk_stack_get_visible_child_name (self->content_stack), "error") == 0;
  PdRemoteState state = self->source != NULL && PD_IS_REMOTE_SOURCE (self->source)
                        ? pd_remote_source_get_state (PD_REMOTE_SOURCE (self->source)) : PD_REMOTE_ONLINE;
  gboolean told;
  g_autofree char *escaped = NULL;

  if (page && state == PD_REMOTE_OFFLINE)
    gtk_revealer_set_reveal_child (self->connection_banner, FALSE);
  told = page && gtk_revealer_get_reveal_child (self->connection_banner);

  if (!told && self->error_description != NULL)
    /* The description of an AdwStatusPage is Pango markup. */
    escaped = g_markup_escape_text (self->error_description, -1);
  adw_status_page_set_description (self->error_page, escaped);
  gtk_widget_set_visible (GTK_WIDGET (self->error_retry), !told);
}

static void
pd_window_set_shown_source (PdWindow *self,
                            PdSource *source)
{
  if (self->shown_source == source)
    return;
  g_set_object (&self->shown_source, source);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SHOWN_SOURCE]);
}

/* The views read @item (or nothing) from its own source, by its id there. */
void
_pd_window_show_session_of (PdWindow      *self,
                            PdSessionItem *item)
{
  g_autofree char *source_id = NULL;
  PdSource *source = item != NULL ? _pd_window_resolve_item (self, item, &source_id) : NULL;

  _pd_window_show_on_endpoint (self, source, source_id);
  if (source != NULL && source != self->shown_source)
    {
      /* No view reads the old session's id from the new source. */
      g_clear_pointer (&self->session_id, g_free);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION_ID]);
      pd_window_set_shown_source (self, source);
    }

  g_free (self->session_id);
  self->session_id = g_steal_pointer (&source_id);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION_ID]);

  /* With several sources the title names the session's; with one, the
   * database's path as ever. */
  if (source != NULL && PD_IS_MULTI_SOURCE (self->source) &&
      g_list_model_get_n_items (G_LIST_MODEL (self->sources)) > 1)
    {
      const char *where = PD_IS_REMOTE_SOURCE (source)
                          ? pd_remote_source_get_base_url (PD_REMOTE_SOURCE (source)) : self->database_path;

      adw_view_switcher_title_set_subtitle (self->switcher_title, pd_source_list_get_name (self->sources, source));
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->switcher_title), where);
    }
  else if (source != NULL && PD_IS_MULTI_SOURCE (self->source))
    pd_window_update_title (self);
}

/* The main menu's Session section names deleting as the row's menu does
 * for the session shown. */
static void
pd_window_name_delete_item (PdWindow *self)
{
  PdSessionItem *item = pd_session_list_get_selected_item (self->session_list);
  gboolean imported = item != NULL && pd_session_item_is_imported (item);
  guint n = g_menu_model_get_n_items (G_MENU_MODEL (self->session_section));
  g_autoptr(GMenuItem) delete = NULL;

  if (n == 0)
    return;
  delete = g_menu_item_new_from_model (G_MENU_MODEL (self->session_section), n - 1);
  g_menu_item_set_label (delete, _pd_session_delete_label (imported));
  g_menu_remove (self->session_section, n - 1);
  g_menu_append_item (self->session_section, delete);
}

static void
on_selected_item_changed (PdWindow *self)
{
  _pd_window_overview_on_selection (self);
  pd_window_name_delete_item (self);
  _pd_window_update_content (self);
}

static void
on_list_loaded (PdWindow *self)
{
  /* Read after all (a server back, a retry that worked): no error page. */
  if (self->source != NULL && pd_session_list_get_loaded (self->session_list))
    {
      self->failed = FALSE;
      _pd_window_end_retry (self, TRUE);
      _pd_window_typed_token_listed (self);
    }

  /* Runs go into the local database or the endpoint, so they are offered
   * once it reads. */
  if (self->runs != NULL)
    gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.new-session", TRUE);
  _pd_window_update_content (self);
}

static void
on_session_activated (PdWindow      *self,
                      PdSessionItem *item)
{
  self->overview_shown = FALSE;
  _pd_window_update_content (self);
  adw_leaflet_set_visible_child_name (self->leaflet, "content");
  _pd_window_focus_opened (self);
}

static void
on_load_failed (PdWindow     *self,
                const GError *error)
{
  gboolean retried = self->retrying;

  _pd_window_end_retry (self, FALSE);
  if (!pd_session_list_get_loaded (self->session_list))
    {
      if (self->remote_url == NULL)
        {
          /* A run could not be stored there either. */
          gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.new-session", FALSE);
          _pd_window_show_error (self, _("Cannot Open This Database"), error->message);
        }
      else if (g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_DENIED))
        /* None kept, none refused: it said "Refused Access" over a banner
         * asking for a token (tried as a new user would). */
        _pd_window_show_error (self, _pd_window_token_needed (self) ? _("The Endpoint Needs a Token")
                                                                    : _("The Endpoint Refused Access"), error->message);
      else
        _pd_window_show_error (self, _("Cannot Reach the Endpoint"), error->message);
      _pd_window_note_remote_unsearched (self);
      return;
    }

  /* The retry's toast said it; the banner says why. */
  if (!retried)
    pd_window_show_message (self, error->message);
}

void
_pd_window_try_select_pending (PdWindow *self)
{
  if (self->pending_select != NULL && pd_session_list_select (self->session_list, self->pending_select))
    {
      g_clear_pointer (&self->pending_select, g_free);
      _pd_window_update_content (self);
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
  _pd_window_try_select_pending (self);

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
  _pd_window_fold_plan_toggle (self, narrow);
}

/* Takes @source.  The session views follow through their bindings. */
void
_pd_window_set_source (PdWindow *self,
                       PdSource *source)
{
  if (self->source == source)
    return;

  g_clear_object (&self->source);
  self->source = source;
  if (self->notifier != NULL)
    pd_notifier_set_source (self->notifier, source);
  self->failed = FALSE;
  self->retrying = FALSE;
  _pd_window_show_retrying (self);

  /* A PdMultiSource reads the window's list of sources; one source alone
   * is the list. */
  if (source == NULL || !PD_IS_MULTI_SOURCE (source))
    {
      pd_source_list_remove_all (self->sources);
      if (source != NULL)
        pd_source_list_append (self->sources, source, _pd_window_source_id (self),
                               _pd_window_source_name (self));
    }
  pd_source_sidebar_set_sources (self->source_sidebar,
                                 source != NULL && PD_IS_MULTI_SOURCE (source) ? PD_MULTI_SOURCE (source) : NULL);
  {
    g_autoptr(PdSource) first = g_list_model_get_item (G_LIST_MODEL (self->sources), 0);

    pd_window_set_shown_source (self, first);
  }

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOURCE]);
  pd_session_list_set_source (self->session_list, self->source);
  _pd_window_overview_set_source (self, self->source);
  _pd_window_update_content (self);
}

/* --- GObject ------------------------------------------------------------ */

static void
pd_window_constructed (GObject *object)
{
  PdWindow *self = PD_WINDOW (object);

  G_OBJECT_CLASS (pd_window_parent_class)->constructed (object);

  pd_window_update_title (self);
  _pd_window_open_source (self);
  _pd_window_update_recent (self);
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
  g_clear_object (&self->shown_source);
  if (self->first_show_tick != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->first_show_tick);
  self->first_show_tick = 0;
  _pd_window_stop_focus_opened (self);
  g_clear_weak_pointer (&self->page_focus);
  g_clear_weak_pointer (&self->search_from);

  g_clear_handle_id (&self->select_idle, g_source_remove);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  /* Deletions waiting for their Undo toast are done now. */
  if (self->deleter != NULL)
    g_object_run_dispose (G_OBJECT (self->deleter));
  g_clear_object (&self->deleter);
  /* A closed window's approval notifications must not stay behind. */
  if (self->notifier != NULL)
    pd_notifier_withdraw_all (self->notifier);
  if (self->notifier != NULL)
    g_object_run_dispose (G_OBJECT (self->notifier));
  g_clear_object (&self->notifier);
  if (self->runs != NULL)
    g_object_run_dispose (G_OBJECT (self->runs));
  g_clear_object (&self->runs);

  _pd_window_overview_dispose (self);
  gtk_widget_dispose_template (GTK_WIDGET (object), PD_TYPE_WINDOW);

  /* A remote source's open event stream holds the source: stopped here, or
   * the source (its HTTP session and connection) outlives the window. */
  if (self->source != NULL && PD_IS_REMOTE_SOURCE (self->source))
    pd_remote_source_watch (PD_REMOTE_SOURCE (self->source), 0);
  _pd_window_stop_endpoints (self);
  g_clear_object (&self->source);
  if (self->sources != NULL)
    pd_source_list_remove_all (self->sources);
  /* After the source: the demo removes its folder and database. */
  g_clear_object (&self->demo);

  G_OBJECT_CLASS (pd_window_parent_class)->dispose (object);
}

static void
pd_window_finalize (GObject *object)
{
  PdWindow *self = PD_WINDOW (object);

  g_clear_object (&self->settings);
  g_clear_object (&self->sources);
  g_clear_pointer (&self->database_path, g_free);
  g_clear_pointer (&self->remote_url, g_free);
  g_clear_pointer (&self->remote_token, g_free);
  _pd_window_forget_typed_token (self);
  g_clear_pointer (&self->error_description, g_free);
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

    case PROP_SHOWN_SOURCE:
      g_value_set_object (value, self->shown_source);
      break;

    case PROP_WITH_ENDPOINTS:
      g_value_set_boolean (value, self->with_endpoints);
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

    case PROP_WITH_ENDPOINTS:
      self->with_endpoints = g_value_get_boolean (value);
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

  /* Before any of its widgets is made: see _pd_a11y_quiet_classes(). */
  _pd_a11y_quiet_classes ();
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
   * PdWindow:shown-source:
   *
   * The source of the session shown (the window's source, or with several
   * sources the one the session came from); every session view reads it.
   */
  properties[PROP_SHOWN_SOURCE] =
    g_param_spec_object ("shown-source", NULL, NULL,
                         PD_TYPE_SOURCE,
                         (G_PARAM_READABLE |
                          G_PARAM_EXPLICIT_NOTIFY |
                          G_PARAM_STATIC_STRINGS));

  /**
   * PdWindow:with-endpoints:
   *
   * Whether the window shows the endpoints configured in Preferences
   * beside its database (the default database's window does).
   */
  properties[PROP_WITH_ENDPOINTS] =
    g_param_spec_boolean ("with-endpoints", NULL, NULL,
                          FALSE,
                          (G_PARAM_READWRITE |
                           G_PARAM_CONSTRUCT_ONLY |
                           G_PARAM_STATIC_STRINGS));

  /**
   * PdWindow:session-id:
   *
   * The session shown, by its id in the shown source, or %NULL; every
   * session view is bound to it (the Now page to a session of our own,
   * the checklist to an imported one).
   */
  properties[PROP_SESSION_ID] =
    g_param_spec_string ("session-id", NULL, NULL,
                         NULL,
                         (G_PARAM_READABLE |
                          G_PARAM_EXPLICIT_NOTIFY |
                          G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (PD_TYPE_SOURCE_SIDEBAR);
  g_type_ensure (PD_TYPE_SESSION_LIST);
  g_type_ensure (PD_TYPE_NOW_VIEW);
  g_type_ensure (PD_TYPE_TRANSCRIPT_VIEW);
  g_type_ensure (PD_TYPE_CHECKLIST_VIEW);
  g_type_ensure (PD_TYPE_EVENTS_VIEW);
  g_type_ensure (PD_TYPE_HISTORY_VIEW);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/plandeck/Plandeck/ui/pd-window.ui");
  gtk_widget_class_bind_template_child (widget_class, PdWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, announcer);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, leaflet);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, switcher_title);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, empty_state);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, error_page);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, content_stack);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, view_stack);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, source_sidebar);
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
  gtk_widget_class_bind_template_child (widget_class, PdWindow, create_button);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, plan_mode_button);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, switcher_bar);
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
  gtk_widget_class_bind_template_child (widget_class, PdWindow, session_section);
  gtk_widget_class_bind_template_callback (widget_class, on_selected_item_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_list_loaded);
  gtk_widget_class_bind_template_callback (widget_class, on_session_activated);
  gtk_widget_class_bind_template_callback (widget_class, on_load_failed);
  gtk_widget_class_bind_template_callback_full (widget_class, "on_source_chosen",
                                                G_CALLBACK (_pd_window_on_source_chosen));
  gtk_widget_class_bind_template_callback_full (widget_class, "on_search_counted",
                                                G_CALLBACK (_pd_window_on_search_counted));

  _pd_window_class_runs_init (widget_class);
  _pd_window_class_overview_init (widget_class);
  _pd_window_class_actions_init (widget_class);
}

/* The Now page shows sessions of our own, the checklist imported ones. */
static gboolean
session_id_for_view (GBinding     *binding,
                     const GValue *from,
                     GValue       *to,
                     gpointer      user_data)
{
  PdWindow *self = user_data;
  gboolean imported = self->shown_item != NULL && pd_session_item_is_imported (self->shown_item);
  g_autoptr(GObject) view = g_binding_dup_target (binding);
  gboolean for_checklist = view == G_OBJECT (self->checklist_view);

  g_value_set_string (to, imported == for_checklist ? g_value_get_string (from) : NULL);
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
    g_object_bind_property (self, "shown-source", views[i], "source", G_BINDING_SYNC_CREATE);

  g_object_bind_property_full (self, "session-id", self->now_view, "session-id", G_BINDING_SYNC_CREATE,
                               session_id_for_view, NULL, self, NULL);
  g_object_bind_property_full (self, "session-id", self->checklist_view, "session-id", G_BINDING_SYNC_CREATE,
                               session_id_for_view, NULL, self, NULL);
  g_object_bind_property (self, "session-id", self->transcript_view, "session-id", G_BINDING_SYNC_CREATE);
  g_object_bind_property (self, "session-id", self->events_view, "session-id", G_BINDING_SYNC_CREATE);
  g_object_bind_property (self, "session-id", self->history_view, "session-id", G_BINDING_SYNC_CREATE);
}

static void
pd_window_init (PdWindow *self)
{
  g_autoptr(GtkWindowGroup) group = gtk_window_group_new ();

  /* Its own group (its modal dialogs block it alone); a frame over AT-SPI, however built. */
  gtk_window_group_add_window (group, GTK_WINDOW (self));
  _pd_window_keep_role (GTK_WINDOW (self));
  gtk_widget_init_template (GTK_WIDGET (self));
  _pd_a11y_name_switchers (GTK_WIDGET (self));
  _pd_stack_tab_shown_only (self->content_stack);
  _pd_stack_tab_shown_only (self->now_stack);
  _pd_view_stack_reader_shown_only (self->view_stack);
  _pd_status_pages_tab_to_controls (GTK_WIDGET (self));
  _pd_images_speak (GTK_WIDGET (self));
  _pd_menu_buttons_return_focus (GTK_WIDGET (self));
  _pd_popover_tooltips_quiet (GTK_WIDGET (self));
  _pd_spinners_spin_when_shown (GTK_WIDGET (self));
  /* Its buttons and its dialogs': named by their mnemonic labels once. */
  _pd_name_mnemonic_buttons ();
  /* The pages without a session fit a phone's width at any text size. */
  _pd_wrap_button_labels (adw_status_page_get_child (self->empty_state));
  _pd_wrap_button_labels (adw_status_page_get_child (self->error_page));
  pd_window_bind_views (self);
  _pd_window_title_tooltip (self);
  _pd_window_actions_init (self);
  _pd_window_sidebar_init (self);
  g_signal_connect_object (self->now_view, "plan-shown",
                           G_CALLBACK (_pd_window_on_now_plan_shown), self, G_CONNECT_SWAPPED);

  self->settings = g_settings_new (APP_ID);
  self->cancellable = g_cancellable_new ();
  self->sources = pd_source_list_new ();
  g_signal_connect_object (self->sources, "items-changed", G_CALLBACK (_pd_window_on_sources_changed), self,
                           G_CONNECT_SWAPPED);
  _pd_window_overview_init (self);
  pd_window_restore_size (self);
  self->notifier = pd_notifier_new (GTK_WINDOW (self));
  pd_notifier_set_source (self->notifier, self->source);
  pd_notifier_watch_sessions (self->notifier, G_LIST_MODEL (pd_session_list_get_model (self->session_list)));
  self->deleter = pd_session_deleter_new (self->toast_overlay, self->session_list);

  self->items_handler = g_signal_connect_object (pd_session_list_get_model (self->session_list),
                                                 "items-changed",
                                                 G_CALLBACK (on_session_items_changed),
                                                 self, G_CONNECT_SWAPPED);
  g_signal_connect_object (pd_session_list_get_model (self->session_list), "items-changed",
                           G_CALLBACK (_pd_window_on_session_items_added), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed::sources",
                           G_CALLBACK (_pd_window_sync_endpoints), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed::read-agent-plans",
                           G_CALLBACK (_pd_window_follow_transcripts), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->settings, "changed::recent-sources",
                           G_CALLBACK (_pd_window_update_recent), self, G_CONNECT_SWAPPED);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.stop-run", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.send-message", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.delete-session", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-markdown", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export-json", FALSE);

  /* When the leaflet folds on a narrow window, the main area comes first. */
  adw_leaflet_set_visible_child_name (self->leaflet, "content");
  g_signal_connect_object (self->leaflet, "notify::folded", G_CALLBACK (on_folded), self, G_CONNECT_SWAPPED);
  on_folded (self);
  _pd_widen_view_switcher_bar (self->switcher_bar);
  /* Toasts above the run bar, the message entry and the page tabs. */
  _pd_toast_keep_above (GTK_WIDGET (self->toast_overlay), GTK_WIDGET (self->view_stack));
  _pd_toast_set_announcer (GTK_WIDGET (self->toast_overlay), self->announcer);
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
  g_return_if_fail (PD_IS_WINDOW (self));
  g_return_if_fail (message != NULL);

  _pd_toast_add_text (GTK_WIDGET (self->toast_overlay), message);
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

