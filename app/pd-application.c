/* pd-application.c: the Plandeck desktop application
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Parses the command line (--db, --remote, --demo), opens one window per
 * source, and owns the application-wide actions (about, quit).
 */
#define G_LOG_DOMAIN "pd-application"

#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib-unix.h>

#include "pd-application.h"
#include "pd-argv-secrets.h"
#include "pd-import-index.h"
#include "pd-notifier.h"
#include "pd-remote-url.h"
#include "pd-secrets.h"
#include "pd-ui-util-private.h"
#include "pd-window.h"

#define MAX_RECENT_SOURCES 10

/* As the metainfo's homepage, bugtracker and contribute URLs. */
#define PD_WEBSITE "https://github.com/plandeck/plandeck"

/* Exit status for a command line that cannot be acted on, as sysexits' EX_USAGE. */
#define EXIT_USAGE 64

/* The longest a quit by a signal waits for the runs it cancelled to end
 * (their engines record them stopped and stop their commands). */
#define SIGNAL_QUIT_BOUND_S 20

struct _PdApplication
{
  AdwApplication parent_instance;

  guint          signal_sources[3];  /* SIGTERM, SIGHUP, SIGINT */
  guint          quit_bound;
  gboolean       quitting;
};

G_DEFINE_FINAL_TYPE (PdApplication, pd_application, ADW_TYPE_APPLICATION)

static const GOptionEntry main_entries[] = {
  { "db", 0, 0, G_OPTION_ARG_FILENAME, NULL,
    N_("Open the sessions in the database at PATH"), N_("PATH") },
  { "remote", 0, 0, G_OPTION_ARG_STRING, NULL,
    N_("Open the sessions served by the endpoint at URL"), N_("URL") },
  { "demo", 0, 0, G_OPTION_ARG_NONE, NULL,
    N_("Replay a recorded run against real tools in a temporary folder"), NULL },
  { "version", 0, 0, G_OPTION_ARG_NONE, NULL,
    N_("Print the version and exit"), NULL },
  { NULL }
};

/**
 * pd_application_default_database_path:
 *
 * Returns: (transfer full): `$XDG_DATA_HOME/plandeck/sessions.db`
 */
char *
pd_application_default_database_path (void)
{
  return g_build_filename (g_get_user_data_dir (), "plandeck", "sessions.db", NULL);
}

/* Returns TRUE when @url is an absolute http or https URL with a host. */
static gboolean
is_endpoint_url (const char  *url,
                 GError     **error)
{
  g_autoptr(GUri) uri = NULL;
  const char *scheme;

  uri = g_uri_parse (url, G_URI_FLAGS_NONE, error);
  if (uri == NULL)
    return FALSE;

  scheme = g_uri_get_scheme (uri);
  if ((g_ascii_strcasecmp (scheme, "http") != 0 && g_ascii_strcasecmp (scheme, "https") != 0) ||
      g_uri_get_host (uri) == NULL || g_uri_get_host (uri)[0] == '\0')
    {
      g_set_error (error, G_URI_ERROR, G_URI_ERROR_BAD_SCHEME,
                   _("Only http:// and https:// endpoints are supported"));
      return FALSE;
    }

  return TRUE;
}

static void
remember_source (const char *source,
                 gboolean    is_endpoint)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_auto(GStrv) old = g_settings_get_strv (settings, "recent-sources");
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_auto(GStrv) recent = NULL;
  guint n = 1;

  g_strv_builder_add (builder, source);
  for (guint i = 0; old[i] != NULL && n < MAX_RECENT_SOURCES; i++)
    {
      if (g_strcmp0 (old[i], source) == 0)
        continue;
      g_strv_builder_add (builder, old[i]);
      n++;
    }
  recent = g_strv_builder_end (builder);

  g_settings_delay (settings);
  g_settings_set_strv (settings, "recent-sources", (const char * const *) recent);
  if (is_endpoint)
    g_settings_set_string (settings, "endpoint-url", source);
  g_settings_apply (settings);
}

/* An older Plandeck kept the token in GSettings: it moves to the keyring,
 * and leaves GSettings once the keyring has it. */
static void
on_token_migrated (GObject      *object,
                   GAsyncResult *result,
                   gpointer      data)
{
  g_autofree char *token = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GSettings) settings = NULL;
  g_autofree char *still = NULL;

  if (!pd_secrets_store_token_finish (result, &error))
    {
      g_message ("%s", error->message);
      return;
    }
  settings = g_settings_new (APP_ID);
  still = g_settings_get_string (settings, "endpoint-token");
  if (g_strcmp0 (still, token) == 0)
    g_settings_reset (settings, "endpoint-token");
}

/* @a and @b are one endpoint, whatever their spellings. */
static gboolean
pd_application_same_endpoint (const char *a,
                              const char *b)
{
  g_autofree char *key_a = a != NULL ? pd_remote_url_dup_key (a) : NULL;
  g_autofree char *key_b = b != NULL ? pd_remote_url_dup_key (b) : NULL;

  return g_strcmp0 (a, b) == 0 || (key_a != NULL && g_strcmp0 (key_a, key_b) == 0);
}

/* Presents the window already showing this source, or a new one;
 * @token is the endpoint's, known now. */
static void
pd_application_open_source_now (PdApplication *self,
                                const char    *database_path,
                                const char    *remote_url,
                                const char    *token,
                                gboolean       token_is_new,
                                gboolean       create_database)
{
  PdWindow *window = NULL;
  g_autofree char *with_token = NULL;

  if (remote_url != NULL && token != NULL)
    {
      g_autofree char *escaped = g_uri_escape_string (token, NULL, FALSE);

      with_token = g_strconcat (remote_url, strchr (remote_url, '?') ? "&" : "?", "token=", escaped, NULL);
    }

  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l; l = l->next)
    {
      PdWindow *candidate;

      if (!PD_IS_WINDOW (l->data))
        continue;

      candidate = PD_WINDOW (l->data);
      if (remote_url != NULL
          ? pd_application_same_endpoint (pd_window_get_remote_url (candidate), remote_url)
          : g_strcmp0 (pd_window_get_database_path (candidate), database_path) == 0)
        {
          window = candidate;
          break;
        }
    }

  /* An endpoint the sidebar of a window lists already, in any spelling:
   * that one, chosen there, not a second connection to it. */
  if (window == NULL && remote_url != NULL)
    for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l; l = l->next)
      if (PD_IS_WINDOW (l->data) && pd_window_choose_endpoint (PD_WINDOW (l->data), remote_url, token))
        {
          gtk_window_present (GTK_WINDOW (l->data));
          return;
        }

  if (window == NULL && remote_url == NULL && create_database)
    {
      g_autofree char *default_path = pd_application_default_database_path ();

      /* The default database's window shows the configured endpoints too;
       * --db and --remote windows show what they name. */
      if (g_strcmp0 (database_path, default_path) == 0)
        window = pd_window_new_with_endpoints (GTK_APPLICATION (self), database_path);
    }
  if (window == NULL)
    window = pd_window_new (GTK_APPLICATION (self), database_path,
                            with_token != NULL ? with_token : remote_url, create_database);
  else if (remote_url != NULL && token != NULL)
    /* The address is open already: a token given now (a restarted server
     * prints a new one) goes to that window, which reads everything again. */
    pd_window_set_remote_token (window, token);

  if (remote_url != NULL)
    {
      remember_source (remote_url, TRUE);
      if (token_is_new)
        /* A token that came with the URL is used for this run; once the
         * endpoint took it the window says so and offers to remember it in
         * the keyring (stored unasked, it popped the keyring's "new
         * keyring" prompt on a fresh account).  It never goes to
         * GSettings, which keeps it in clear, and a refused one is never
         * offered. */
        pd_window_keep_token_once_accepted (window, token);
    }
  else
    remember_source (database_path, FALSE);

  gtk_window_present (GTK_WINDOW (window));
}

typedef struct
{
  PdApplication *app;
  char          *remote_url;
} TokenLookup;

static void
on_token_looked_up (GObject      *object,
                    GAsyncResult *result,
                    gpointer      data)
{
  TokenLookup *lookup = data;
  g_autoptr(GError) error = NULL;
  g_autofree char *token = pd_secrets_lookup_token_finish (result, &error);

  /* Without a keyring the window asks for the token as before (and says
   * so once it is given). */
  if (error != NULL)
    g_debug ("%s", error->message);
  pd_application_open_source_now (lookup->app, NULL, lookup->remote_url, token, FALSE, FALSE);
  g_application_release (G_APPLICATION (lookup->app));
  g_object_unref (lookup->app);
  g_free (lookup->remote_url);
  g_free (lookup);
}

static void
pd_application_open_source (PdApplication *self,
                            const char    *database_path,
                            const char    *remote_url,
                            gboolean       create_database)
{
  g_autofree char *token = NULL;
  g_autofree char *base_url = NULL;

  if (remote_url == NULL)
    {
      pd_application_open_source_now (self, database_path, NULL, NULL, FALSE, create_database);
      return;
    }

  /* Windows, titles and recent sources know the URL without its token. */
  base_url = pd_window_split_endpoint_url (remote_url, &token);
  if (token != NULL)
    {
      pd_application_open_source_now (self, NULL, base_url, token, TRUE, FALSE);
      return;
    }

  {
    g_autoptr(GSettings) settings = g_settings_new (APP_ID);
    g_autofree char *remembered_url = g_settings_get_string (settings, "endpoint-url");
    g_autofree char *old_token = g_settings_get_string (settings, "endpoint-token");

    if (g_strcmp0 (remembered_url, base_url) == 0 && old_token[0] != '\0')
      {
        pd_secrets_store_token_async (base_url, old_token, on_token_migrated, g_strdup (old_token));
        pd_application_open_source_now (self, NULL, base_url, old_token, FALSE, FALSE);
        return;
      }
  }

  /* The keyring answers on the main loop; the application waits for it. */
  {
    TokenLookup *lookup = g_new0 (TokenLookup, 1);

    lookup->app = g_object_ref (self);
    lookup->remote_url = g_steal_pointer (&base_url);
    g_application_hold (G_APPLICATION (self));
    pd_secrets_lookup_token_async (lookup->remote_url, on_token_looked_up, lookup);
  }
}

static int
pd_application_handle_local_options (GApplication *app,
                                     GVariantDict *options)
{
  const char *remote = NULL;

  if (g_variant_dict_contains (options, "version"))
    {
      g_print ("plandeck %s\n", PACKAGE_VERSION);
      return EXIT_SUCCESS;
    }

  if (g_variant_dict_contains (options, "db") && g_variant_dict_contains (options, "remote"))
    {
      g_printerr ("plandeck: %s\n", _("Use either --db or --remote, not both"));
      return EXIT_USAGE;
    }

  if (g_variant_dict_lookup (options, "remote", "&s", &remote))
    {
      g_autoptr(GError) error = NULL;

      if (!is_endpoint_url (remote, &error))
        {
          /* The address and GLib's words about it, without the token
           * either may quote (tried as an attacker would: a typo printed it). */
          g_autofree char *shown = g_strdup (remote);
          g_autofree char *why = g_strdup (error->message);
          char *hide[] = { (char *) "plandeck", shown, why, NULL };

          pd_argv_hide_tokens (3, hide);
          g_printerr ("plandeck: %s: %s\n", shown, why);
          g_printerr ("%s\n", _("An endpoint URL looks like http://127.0.0.1:8080"));
          return EXIT_USAGE;
        }
    }

  /* Started from the build tree without its schema, g_settings_new()
   * would abort with a GLib error that says nothing of what to do. */
  {
    GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
    g_autoptr(GSettingsSchema) schema = source ? g_settings_schema_source_lookup (source, APP_ID, TRUE) : NULL;

    if (schema == NULL)
      {
        g_printerr ("plandeck: ");
        g_printerr (_("the settings schema %s is not installed. Start an uninstalled build with "
                      "“bash build-aux/dev.sh run” (or set GSETTINGS_SCHEMA_DIR to the build "
                      "tree’s data folder), or install Plandeck with “meson install”."), APP_ID);
        g_printerr ("\n");
        return EXIT_FAILURE;
      }
  }

  return -1;
}

static int
pd_application_command_line (GApplication            *app,
                              GApplicationCommandLine *command_line)
{
  PdApplication *self = PD_APPLICATION (app);
  GVariantDict *options = g_application_command_line_get_options_dict (command_line);
  g_autofree char *database_path = NULL;
  const char *db_arg = NULL;
  const char *remote = NULL;
  gboolean create_database = FALSE;

  if (g_variant_dict_contains (options, "demo"))
    {
      g_action_group_activate_action (G_ACTION_GROUP (self), "open-demo", NULL);
      return EXIT_SUCCESS;
    }

  g_variant_dict_lookup (options, "remote", "&s", &remote);

  if (remote == NULL)
    {
      if (g_variant_dict_lookup (options, "db", "^&ay", &db_arg))
        {
          /* Relative to the directory plandeck was started in. */
          g_autoptr(GFile) file = g_application_command_line_create_file_for_arg (command_line,
                                                                                  db_arg);
          database_path = g_file_get_path (file);
        }
      else
        {
          /* The default database is made on first use; a named one must exist. */
          database_path = pd_application_default_database_path ();
          create_database = TRUE;
        }
    }

  pd_application_open_source (self, database_path, remote, create_database);

  return EXIT_SUCCESS;
}

static void
pd_application_activate (GApplication *app)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window != NULL)
    {
      gtk_window_present (window);
    }
  else
    {
      g_autofree char *database_path = pd_application_default_database_path ();

      pd_application_open_source (PD_APPLICATION (app), database_path, NULL, TRUE);
    }
}

/* libadwaita 1.2's About window draws the version as a button (it shows
 * the release notes when there are any) with no accessible name: a screen
 * reader said "button".  It is named for what it says. */
static void
name_version_button (GtkWidget  *widget,
                     const char *version)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *label = GTK_IS_BUTTON (child) ? gtk_button_get_child (GTK_BUTTON (child)) : NULL;

      if (GTK_IS_LABEL (label) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)), version) == 0)
        {
          g_autofree char *name = g_strdup_printf (_("Version %s"), version);

          gtk_accessible_update_property (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
        }
      else
        name_version_button (child, version);
    }
}

static GtkWidget *
pd_about_find (GtkWidget *widget,
               GType      type)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = G_TYPE_CHECK_INSTANCE_TYPE (child, type) ? child : pd_about_find (child, type);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* libadwaita 1.2's About window leaves its lists, its subpages' Back
 * buttons and its text views unnamed: GTK 4.8 said them over AT-SPI by
 * their class, "GtkListBox" ×4, a Back button by its icon, "GtkTextView"
 * (read over AT-SPI, nu21 #5).  A list outside a titled group is named by
 * its rows' titles, a Back button by its tooltip, a text view by the
 * title of its page. */
static char *
about_list_name (GtkWidget *list)
{
  GtkWidget *group = gtk_widget_get_ancestor (list, ADW_TYPE_PREFERENCES_GROUP);
  const char *title = group != NULL ? adw_preferences_group_get_title (ADW_PREFERENCES_GROUP (group)) : NULL;
  GString *rows;

  /* A group's title labels its list already ("Code by"). */
  if (title != NULL && *title != '\0')
    return NULL;
  rows = g_string_new (NULL);
  for (GtkWidget *row = gtk_widget_get_first_child (list); row != NULL; row = gtk_widget_get_next_sibling (row))
    if (ADW_IS_PREFERENCES_ROW (row) && gtk_widget_get_visible (row))
      {
        g_autofree char *plain = _pd_without_mnemonic (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));

        /* Translators: the rows of a list named one after another, "Website, Report an Issue" */
        g_string_append (rows, rows->len > 0 ? _(", ") : "");
        g_string_append (rows, plain);
      }
  return g_string_free (rows, rows->len == 0);
}

static const char *
about_page_title (GtkWidget *widget)
{
  for (GtkWidget *page = widget; page != NULL; page = gtk_widget_get_parent (page))
    if (ADW_IS_LEAFLET (gtk_widget_get_parent (page)))
      {
        GtkWidget *title = pd_about_find (page, ADW_TYPE_WINDOW_TITLE);

        return title != NULL ? adw_window_title_get_title (ADW_WINDOW_TITLE (title)) : NULL;
      }
  return NULL;
}

static void
name_about_parts (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      g_autofree char *name = NULL;

      if (GTK_IS_LIST_BOX (child))
        name = about_list_name (child);
      else if (GTK_IS_BUTTON (child) &&
               g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (child)), "go-previous-symbolic") == 0)
        name = g_strdup (gtk_widget_get_tooltip_text (child) != NULL ? gtk_widget_get_tooltip_text (child) : _("Back"));
      else if (GTK_IS_TEXT_VIEW (child))
        name = g_strdup (about_page_title (child));
      if (name != NULL && *name != '\0')
        gtk_accessible_update_property (GTK_ACCESSIBLE (child), GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
      name_about_parts (child);
    }
}

static void
about_action (GSimpleAction *action,
              GVariant      *parameter,
              gpointer       user_data)
{
  /* The project names no people: its contributors are one credit. */
  static const char *developers[] = {
    "The Plandeck Project contributors https://github.com/plandeck/plandeck/graphs/contributors",
    NULL
  };
  GtkApplication *app = GTK_APPLICATION (user_data);
  GtkWidget *about;

  /* No comments and no extra links: with either, libadwaita 1.2 moves the
   * Website row off the main page into a Details page (its
   * update_details()), and the About window showed no website at all at
   * first sight.  The website is the source code; CONTRIBUTING.md, behind
   * Support Questions, says how to build, test and translate. */

  about = adw_about_window_new ();
  gtk_window_set_transient_for (GTK_WINDOW (about), gtk_application_get_active_window (app));
  gtk_window_set_modal (GTK_WINDOW (about), TRUE);
  adw_about_window_set_application_icon (ADW_ABOUT_WINDOW (about), APP_ID);
  adw_about_window_set_application_name (ADW_ABOUT_WINDOW (about), _("Plandeck"));
  adw_about_window_set_developer_name (ADW_ABOUT_WINDOW (about), _("The Plandeck Project"));
  adw_about_window_set_version (ADW_ABOUT_WINDOW (about), PACKAGE_VERSION);
  adw_about_window_set_license_type (ADW_ABOUT_WINDOW (about), GTK_LICENSE_GPL_3_0);
  adw_about_window_set_website (ADW_ABOUT_WINDOW (about), PD_WEBSITE);
  adw_about_window_set_issue_url (ADW_ABOUT_WINDOW (about), PD_WEBSITE "/issues");
  adw_about_window_set_support_url (ADW_ABOUT_WINDOW (about), PD_WEBSITE "/blob/main/CONTRIBUTING.md");
  adw_about_window_set_copyright (ADW_ABOUT_WINDOW (about), _("© 2026 The Plandeck Project"));
  adw_about_window_set_developers (ADW_ABOUT_WINDOW (about), developers);
  /* Translators: replace with your names, one per line */
  adw_about_window_set_translator_credits (ADW_ABOUT_WINDOW (about), _("translator-credits"));
  name_version_button (about, PACKAGE_VERSION);
  name_about_parts (about);
  gtk_window_present (GTK_WINDOW (about));
}

static void
quit_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  GtkApplication *app = GTK_APPLICATION (user_data);
  g_autoptr(GList) windows = g_list_copy (gtk_application_get_windows (app));

  /* Closing (rather than destroying) lets each window save its state. */
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (GTK_WINDOW (l->data));
}

/* The runs a quit cancelled did not end in time: the process ends anyway. */
static gboolean
on_quit_bound (gpointer user_data)
{
  PdApplication *self = user_data;

  self->quit_bound = 0;
  g_application_quit (G_APPLICATION (self));
  return G_SOURCE_REMOVE;
}

/* SIGTERM (a session logging out, kill, a service manager), SIGHUP and
 * SIGINT ended the window at once: a run in progress stayed "running" in
 * the database, its shell command ran on with no one watching, and the
 * demo's temporary folder stayed behind.  Now they quit as Quit does: the
 * windows close, which cancels their runs, and a run in progress holds the
 * application until its engine has recorded it stopped (as the CLI on
 * SIGTERM).  A second signal, or SIGNAL_QUIT_BOUND_S, ends it at once. */
static gboolean
on_quit_signal (PdApplication *self,
                int            signum)
{
  if (self->quitting)
    _exit (128 + signum);
  self->quitting = TRUE;
  fprintf (stderr, "%s\n", _("plandeck: stopping: runs in progress are cancelled, their commands stopped"));
  self->quit_bound = g_timeout_add_seconds (SIGNAL_QUIT_BOUND_S, on_quit_bound, self);
  g_action_group_activate_action (G_ACTION_GROUP (self), "quit", NULL);
  return G_SOURCE_CONTINUE;
}

static gboolean
on_sigterm (gpointer user_data)
{
  return on_quit_signal (user_data, SIGTERM);
}

static gboolean
on_sighup (gpointer user_data)
{
  return on_quit_signal (user_data, SIGHUP);
}

static gboolean
on_sigint (gpointer user_data)
{
  return on_quit_signal (user_data, SIGINT);
}

static void
open_database_action (GSimpleAction *action,
                      GVariant      *parameter,
                      gpointer       user_data)
{
  pd_application_open_source (PD_APPLICATION (user_data),
                              g_variant_get_string (parameter, NULL), NULL, FALSE);
}

static void
open_remote_action (GSimpleAction *action,
                    GVariant      *parameter,
                    gpointer       user_data)
{
  const char *url = g_variant_get_string (parameter, NULL);
  g_autoptr(GError) error = NULL;
  GtkWindow *active = gtk_application_get_active_window (GTK_APPLICATION (user_data));

  if (!is_endpoint_url (url, &error))
    {
      if (PD_IS_WINDOW (active))
        pd_window_show_message (PD_WINDOW (active), error->message);
      return;
    }

  pd_application_open_source (PD_APPLICATION (user_data), NULL, url, FALSE);
}

/* A demo in a new temporary folder, in a window of its own.
 * PLANDECK_DEMO_SPEED (a factor; 0: no delays) is for tests and screenshots. */
static void
open_demo_action (GSimpleAction *action,
                  GVariant      *parameter,
                  gpointer       user_data)
{
  GtkApplication *app = GTK_APPLICATION (user_data);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdDemo) demo = pd_demo_new (&error);
  const char *speed = g_getenv ("PLANDECK_DEMO_SPEED");
  PdWindow *window;

  if (demo == NULL)
    {
      GtkWindow *active = gtk_application_get_active_window (app);

      g_warning ("Cannot set up the demo: %s", error->message);
      if (PD_IS_WINDOW (active))
        pd_window_show_message (PD_WINDOW (active), error->message);
      return;
    }

  if (speed != NULL && *speed != '\0')
    pd_demo_set_speed (demo, g_ascii_strtod (speed, NULL));

  window = pd_window_new_for_demo (app, demo);
  gtk_window_present (GTK_WINDOW (window));
}

/* A notification's click: the window that lists the session shows it. */
static void
open_session_action (GSimpleAction *action,
                     GVariant      *parameter,
                     gpointer       user_data)
{
  const char *session_id = g_variant_get_string (parameter, NULL);

  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (user_data)); l; l = l->next)
    if (PD_IS_WINDOW (l->data) && pd_window_open_session (PD_WINDOW (l->data), session_id))
      return;
  g_debug ("no window lists session %s", session_id);
}

/* A notification's Approve or Deny button: its target is a random id of
 * the question it showed (pd_notifier_answer_approval()).  Only that
 * question, while it is open, gets the answer: a stale notification's
 * button (the question answered, its window or an earlier process gone)
 * answers nothing, and Approve is refused for a question its notification
 * offered only Deny for. */
static void
answer_approval (GtkApplication *app,
                 const char     *target,
                 gboolean        allow)
{
  for (GList *l = gtk_application_get_windows (app); l; l = l->next)
    if (PD_IS_WINDOW (l->data) && pd_window_answer_approval (PD_WINDOW (l->data), target, allow))
      return;
  g_debug ("an approval answer names no question of ours; it is ignored");
}

static void
approve_run_action (GSimpleAction *action,
                    GVariant      *parameter,
                    gpointer       user_data)
{
  answer_approval (GTK_APPLICATION (user_data), g_variant_get_string (parameter, NULL), TRUE);
}

static void
deny_run_action (GSimpleAction *action,
                 GVariant      *parameter,
                 gpointer       user_data)
{
  answer_approval (GTK_APPLICATION (user_data), g_variant_get_string (parameter, NULL), FALSE);
}

static const GActionEntry app_actions[] = {
  { PD_NOTIFIER_ACTION_OPEN, open_session_action, "s" },
  { PD_NOTIFIER_ACTION_APPROVE, approve_run_action, "s" },
  { PD_NOTIFIER_ACTION_DENY, deny_run_action, "s" },
  { "about", about_action },
  { "quit", quit_action },
  { "open-database", open_database_action, "s" },
  { "open-remote", open_remote_action, "s" },
  { "open-demo", open_demo_action },
};

static void
pd_application_startup (GApplication *app)
{
  static const char *quit_accels[] = { "<Control>q", NULL };
  static const char *close_accels[] = { "<Control>w", NULL };
  static const char *open_accels[] = { "<Control>o", NULL };
  static const char *search_accels[] = { "<Control>f", NULL };
  static const char *overview_accels[] = { "<Control><Shift>o", NULL };
  static const char *new_session_accels[] = { "<Control>n", NULL };
  static const char *preferences_accels[] = { "<Control>comma", NULL };

  G_APPLICATION_CLASS (pd_application_parent_class)->startup (app);

  /* The window follows sessions as their transcripts grow. */
  pd_import_index_set_follow_appends (TRUE);

  PD_APPLICATION (app)->signal_sources[0] = g_unix_signal_add (SIGTERM, on_sigterm, app);
  PD_APPLICATION (app)->signal_sources[1] = g_unix_signal_add (SIGHUP, on_sighup, app);
  PD_APPLICATION (app)->signal_sources[2] = g_unix_signal_add (SIGINT, on_sigint, app);

  /* An API key pasted into a profile sat in GSettings in clear. */
  pd_secrets_migrate_profile_keys (app);

  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions,
                                   G_N_ELEMENTS (app_actions), app);

  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", quit_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "window.close", close_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.open-database",
                                         open_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.search", search_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.show-overview", overview_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.new-session",
                                         new_session_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "win.preferences",
                                         preferences_accels);
}

/* The shortcuts window GtkApplication gives each window: its key caps in
 * words, "Page Down", not GTK 4.8's "Page_Down". */
static void
pd_application_window_added (GtkApplication *app,
                             GtkWindow      *window)
{
  GtkShortcutsWindow *overlay = NULL;

  GTK_APPLICATION_CLASS (pd_application_parent_class)->window_added (app, window);
  if (GTK_IS_APPLICATION_WINDOW (window))
    overlay = gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (window));
  if (overlay != NULL)
    {
      _pd_name_shortcut_keys (GTK_WIDGET (overlay));
      /* Again as it shows: its sections lay their columns out anew. */
      g_signal_connect (overlay, "map", G_CALLBACK (_pd_name_shortcut_keys), NULL);
    }
}

/* Approval notifications outlive the process on the desktop's list: none
 * may stay behind to be pressed once another process asks. */
static void
pd_application_shutdown (GApplication *app)
{
  PdApplication *self = PD_APPLICATION (app);

  for (guint i = 0; i < G_N_ELEMENTS (self->signal_sources); i++)
    g_clear_handle_id (&self->signal_sources[i], g_source_remove);
  g_clear_handle_id (&self->quit_bound, g_source_remove);
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l; l = l->next)
    if (PD_IS_WINDOW (l->data) && pd_window_get_notifier (PD_WINDOW (l->data)) != NULL)
      pd_notifier_withdraw_all (pd_window_get_notifier (PD_WINDOW (l->data)));

  G_APPLICATION_CLASS (pd_application_parent_class)->shutdown (app);
}

static void
pd_application_class_init (PdApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  app_class->handle_local_options = pd_application_handle_local_options;
  app_class->command_line = pd_application_command_line;
  app_class->activate = pd_application_activate;
  app_class->startup = pd_application_startup;
  app_class->shutdown = pd_application_shutdown;
  GTK_APPLICATION_CLASS (klass)->window_added = pd_application_window_added;
}

static void
pd_application_init (PdApplication *self)
{
  g_application_add_main_option_entries (G_APPLICATION (self), main_entries);
  g_application_set_option_context_summary (G_APPLICATION (self),
                                            _("Inspect the plans of AI coding-agent runs."));
}

/**
 * pd_application_set_process_name:
 *
 * Names the process "Plandeck" (g_set_application_name()), once, before
 * the application runs: GLib's freedesktop.org notification backend sends
 * it as each notification's app_name, and a server showed "plandeck" (the
 * program's name) without it.  GLib warns when it is set twice.
 */
void
pd_application_set_process_name (void)
{
  static gsize named = 0;

  if (g_once_init_enter (&named))
    {
      g_set_application_name (_("Plandeck"));
      g_once_init_leave (&named, 1);
    }
}

/**
 * pd_application_new:
 *
 * Returns: (transfer full): the Plandeck application
 */
PdApplication *
pd_application_new (void)
{
  return g_object_new (PD_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_COMMAND_LINE,
                       "resource-base-path", "/io/github/plandeck/Plandeck",
                       NULL);
}
