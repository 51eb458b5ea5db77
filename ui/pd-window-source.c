/* pd-window-source.c: what a window reads: a local database, an endpoint or the demo
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-window"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-window-private.h"

/* How often a remote source polls when the server has no event stream. */
#define REMOTE_WATCH_MS PD_REMOTE_SOURCE_WATCH_MS

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
    pd_local_source_watch (PD_LOCAL_SOURCE (self->source), _pd_window_poll_ms (self, FALSE));
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

/* --- the source --------------------------------------------------------- */

/* A local database's imported sessions are followed live while reading
 * agents' plans is on: a running Claude Code or Codex session's checklist
 * updates as the agent writes. */
void
_pd_window_follow_transcripts (PdWindow *self)
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
  _pd_window_update_error_page (self);
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
      _pd_window_show_error (self, _("Cannot Reach the Endpoint"), error->message);
      return;
    }

  g_signal_connect_object (remote, "notify::state", G_CALLBACK (pd_window_update_connection),
                           self, G_CONNECT_SWAPPED);
  pd_remote_source_watch (remote, REMOTE_WATCH_MS);
  _pd_window_set_source (self, PD_SOURCE (remote));
  /* Sessions there are continued there: the server's engine runs them,
   * and asks its questions here. */
  _pd_window_set_runs (self, pd_run_controller_new_for_remote (remote, GTK_WINDOW (self)));
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

void
_pd_window_open_source (PdWindow *self)
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
      _pd_window_set_source (self, PD_SOURCE (pd_local_source_new (self->database_path, TRUE)));
      pd_local_source_watch (PD_LOCAL_SOURCE (self->source), _pd_window_poll_ms (self, TRUE));
      return;
    }

  if (self->database_path == NULL)
    return;

  if (!self->create_database && !g_file_test (self->database_path, G_FILE_TEST_EXISTS))
    {
      g_autofree char *folder = g_path_get_dirname (self->database_path);
      g_autofree char *description = NULL;

      /* In a folder that exists, the file can be made here; a folder that
       * does not exist is most likely a typing mistake, and is refused. */
      if (g_file_test (self->database_path, G_FILE_TEST_IS_SYMLINK))
        /* A dangling link: creating would make the database where it
         * points, outside the folder; the store refuses that too. */
        /* Translators: %s is a file path */
        description = g_strdup_printf (_("%s is a symbolic link to a file that does not exist. No database is created through a link; open the file it points to, or another database."),
                                       self->database_path);
      else if (g_file_test (folder, G_FILE_TEST_IS_DIR))
        {
          /* Translators: %s is a file path */
          description = g_strdup_printf (_("There is no Plandeck database at %s yet. Create a new, empty one there, or open another."),
                                         self->database_path);
          /* Making it is what the page offers; Retry waits for another
           * program to; "or open another" keeps its own button. */
          gtk_widget_set_visible (GTK_WIDGET (self->create_button), TRUE);
          gtk_widget_remove_css_class (GTK_WIDGET (self->error_retry), "suggested-action");
        }
      else
        /* Translators: the first %s is a folder, the second a file path */
        description = g_strdup_printf (_("There is no folder %s, so no database at %s. Check the path, or open another database."),
                                       folder, self->database_path);

      _pd_window_show_error (self, _("No Database Here"), description);
      /* Nothing went wrong: a new file is offered, not a stop sign (tried
       * as a new user would). */
      if (gtk_widget_get_visible (GTK_WIDGET (self->create_button)))
        adw_status_page_set_icon_name (self->error_page, "document-new-symbolic");
      gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.new-session", FALSE);
      return;
    }

  _pd_window_set_source (self, PD_SOURCE (pd_local_source_new (self->database_path, self->create_database)));
  pd_local_source_watch (PD_LOCAL_SOURCE (self->source), _pd_window_poll_ms (self, FALSE));
  _pd_window_follow_transcripts (self);

  _pd_window_set_runs (self, pd_run_controller_new (PD_LOCAL_SOURCE (self->source), GTK_WINDOW (self)));
}
