/* pd-window.c: the main Plandeck window
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A window shows one source of sessions: a local database file or a remote
 * endpoint. For now it has the sidebar placeholder and the empty state; the
 * session list and plan views plug into the two leaflet panes.
 */
#define G_LOG_DOMAIN "pd-window"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-window.h"

struct _PdWindow
{
  AdwApplicationWindow parent_instance;

  GSettings           *settings;
  char                *database_path;
  char                *remote_url;

  /* Template widgets */
  AdwToastOverlay     *toast_overlay;
  AdwLeaflet          *leaflet;
  AdwWindowTitle      *window_title;
  AdwStatusPage       *empty_state;
};

G_DEFINE_FINAL_TYPE (PdWindow, pd_window, ADW_TYPE_APPLICATION_WINDOW)

enum {
  PROP_0,
  PROP_DATABASE_PATH,
  PROP_REMOTE_URL,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* The label a person reads for the source: the full database path, or the URL. */
static void
pd_window_update_title (PdWindow *self)
{
  g_autofree char *short_name = NULL;
  g_autofree char *title = NULL;
  const char *subtitle;

  if (self->remote_url != NULL)
    {
      g_autoptr(GUri) uri = g_uri_parse (self->remote_url, G_URI_FLAGS_NONE, NULL);

      subtitle = self->remote_url;
      if (uri != NULL && g_uri_get_host (uri) != NULL)
        short_name = g_strdup (g_uri_get_host (uri));
      else
        short_name = g_strdup (self->remote_url);
    }
  else if (self->database_path != NULL)
    {
      subtitle = self->database_path;
      short_name = g_path_get_basename (self->database_path);
    }
  else
    {
      adw_window_title_set_subtitle (self->window_title, NULL);
      gtk_window_set_title (GTK_WINDOW (self), _("Plandeck"));
      return;
    }

  adw_window_title_set_subtitle (self->window_title, subtitle);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->window_title), subtitle);

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
show_sessions_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);

  adw_leaflet_set_visible_child_name (self->leaflet, "sidebar");
}

static void
pd_window_constructed (GObject *object)
{
  PdWindow *self = PD_WINDOW (object);

  G_OBJECT_CLASS (pd_window_parent_class)->constructed (object);

  pd_window_update_title (self);
}

static void
pd_window_dispose (GObject *object)
{
  gtk_widget_dispose_template (GTK_WIDGET (object), PD_TYPE_WINDOW);

  G_OBJECT_CLASS (pd_window_parent_class)->dispose (object);
}

static void
pd_window_finalize (GObject *object)
{
  PdWindow *self = PD_WINDOW (object);

  g_clear_object (&self->settings);
  g_clear_pointer (&self->database_path, g_free);
  g_clear_pointer (&self->remote_url, g_free);

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
      self->remote_url = g_value_dup_string (value);
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

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/plandeck/Plandeck/ui/pd-window.ui");
  gtk_widget_class_bind_template_child (widget_class, PdWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, leaflet);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, PdWindow, empty_state);

  gtk_widget_class_install_action (widget_class, "win.show-sessions", NULL, show_sessions_action);
  /* Placeholders until sources can be switched at run time; they stay
   * disabled so their buttons and menu items show as unavailable. */
  gtk_widget_class_install_action (widget_class, "win.open-database", NULL, NULL);
  gtk_widget_class_install_action (widget_class, "win.connect-endpoint", NULL, NULL);
}

static void
pd_window_init (PdWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  self->settings = g_settings_new (APP_ID);
  pd_window_restore_size (self);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.open-database", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.connect-endpoint", FALSE);

  /* When the leaflet folds on a narrow window, the main area comes first. */
  adw_leaflet_set_visible_child_name (self->leaflet, "content");
}

/**
 * pd_window_new:
 * @application: the application the window belongs to
 * @database_path: (nullable): a local database file
 * @remote_url: (nullable): an endpoint URL; used instead of @database_path when set
 *
 * Returns: (transfer full): a new window showing the given source
 */
PdWindow *
pd_window_new (GtkApplication *application,
               const char     *database_path,
               const char     *remote_url)
{
  g_return_val_if_fail (GTK_IS_APPLICATION (application), NULL);

  return g_object_new (PD_TYPE_WINDOW,
                       "application", application,
                       "database-path", remote_url == NULL ? database_path : NULL,
                       "remote-url", remote_url,
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
