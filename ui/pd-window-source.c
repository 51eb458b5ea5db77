/* pd-window-source.c: what a window reads: a local database, an endpoint or the demo
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-window"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "pd-preferences-window.h"
#include "pd-remote-url.h"
#include "pd-secrets.h"
#include "pd-sources-page.h"
#include "pd-ui-util-private.h"
#include "pd-window-private.h"

static void pd_window_on_listed     (PdWindow     *self);
static void pd_window_on_searched   (PdWindow      *self,
                                     PdMultiSource *multi);

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

  _pd_run_release_application ();
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
  PdLocalSource *local = _pd_window_get_local_source (self);

  if (local == NULL)
    return;
  pd_local_source_follow_transcripts (local, g_settings_get_boolean (self->settings, "read-agent-plans"));
}

/**
 * _pd_window_get_local_source:
 *
 * Returns: (transfer none) (nullable): the window's database, alone or
 *   first of its sources; %NULL for a window on an endpoint
 */
PdLocalSource *
_pd_window_get_local_source (PdWindow *self)
{
  g_autoptr(PdSource) first = g_list_model_get_item (G_LIST_MODEL (self->sources), 0);

  return first != NULL && PD_IS_LOCAL_SOURCE (first) ? PD_LOCAL_SOURCE (first) : NULL;
}

/**
 * _pd_window_resolve_item:
 * @source_id: (out) (optional): the session's id in that source
 *
 * Returns: (transfer none) (nullable): the source @item was listed from
 */
PdSource *
_pd_window_resolve_item (PdWindow       *self,
                         PdSessionItem  *item,
                         char          **source_id)
{
  PdSource *listed = pd_session_list_get_source (self->session_list);
  const char *id = pd_session_item_get_id (item);

  if (listed != NULL && PD_IS_MULTI_SOURCE (listed))
    return pd_multi_source_resolve (PD_MULTI_SOURCE (listed), id, source_id);
  if (source_id != NULL)
    *source_id = g_strdup (id);
  return listed;
}

/* The session shown (@source_id of @source, or none) is what its endpoint
 * reads first: the Now page's plan of an endpoint with 400 sessions waited
 * behind the Overview's reads of all the others
 * (pd-remote-source-budget.c). */
void
_pd_window_show_on_endpoint (PdWindow   *self,
                             PdSource   *source,
                             const char *source_id)
{
  if (PD_IS_REMOTE_SOURCE (self->shown_source) && self->shown_source != source)
    pd_remote_source_set_shown_session (PD_REMOTE_SOURCE (self->shown_source), NULL);
  if (source != NULL && PD_IS_REMOTE_SOURCE (source))
    pd_remote_source_set_shown_session (PD_REMOTE_SOURCE (source), source_id);
}

/* --- the configured endpoints ------------------------------------------ */

/* The window of the default database shows the endpoints of the `sources`
 * setting (id, name, URL) after it, each with its token from the secret
 * store (keyed by URL), in the setting's order.  A change of the setting
 * adds, renames and removes them in place. */

typedef struct
{
  GWeakRef  window;
  guint     serial;
  char     *id;
  char     *name;
  char     *url;
} EndpointLookup;

static void
endpoint_lookup_free (EndpointLookup *lookup)
{
  g_weak_ref_clear (&lookup->window);
  g_free (lookup->id);
  g_free (lookup->name);
  g_free (lookup->url);
  g_free (lookup);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EndpointLookup, endpoint_lookup_free)

static void
pd_window_stop_remote (PdSource *source)
{
  if (source != NULL && PD_IS_REMOTE_SOURCE (source))
    pd_remote_source_watch (PD_REMOTE_SOURCE (source), 0);
}

/* Whether @source is the endpoint at @url.  The setting keeps an address
 * as it was given ("http://host:port/", `serve`'s own form); the endpoint
 * knows it without its path.  Compared as given, every change of the
 * setting made an endpoint at such an address again, new, its sessions
 * never kept: once it went down they left the list (tried as a new user
 * would). */
static gboolean
pd_window_endpoint_is_at (PdSource   *source,
                          const char *url)
{
  g_autoptr(PdRemoteSource) other = NULL;

  if (source == NULL || !PD_IS_REMOTE_SOURCE (source))
    return FALSE;
  other = pd_remote_source_new (url, NULL, NULL);
  return other != NULL && g_strcmp0 (pd_remote_source_get_base_url (PD_REMOTE_SOURCE (source)),
                                     pd_remote_source_get_base_url (other)) == 0;
}

/* Where the endpoint @id goes: after the database and every configured
 * endpoint before it that is there already. */
static guint
pd_window_endpoint_position (PdWindow   *self,
                             GVariant   *configured,
                             const char *id)
{
  GVariantIter iter;
  const char *other_id;
  guint position = 1;

  g_variant_iter_init (&iter, configured);
  while (g_variant_iter_next (&iter, "(&s&s&s)", &other_id, NULL, NULL))
    {
      if (g_strcmp0 (other_id, id) == 0)
        break;
      if (pd_source_list_lookup (self->sources, other_id, NULL) != NULL)
        position++;
    }
  return position;
}

static void
on_endpoint_token (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(EndpointLookup) lookup = user_data;
  g_autoptr(PdWindow) self = g_weak_ref_get (&lookup->window);
  g_autoptr(GError) error = NULL;
  g_autofree char *token = pd_sources_lookup_token_finish (result, lookup->url, &error);
  g_autoptr(GVariant) configured = NULL;
  g_autoptr(PdRemoteSource) remote = NULL;
  GVariantIter iter;
  const char *id;
  const char *name;
  const char *url;
  gboolean still = FALSE;

  if (self == NULL || self->source == NULL || !PD_IS_MULTI_SOURCE (self->source))
    return;
  /* Without a keyring the endpoint asks for its token (its state says
   * so): not a message on each endpoint's every lookup. */
  if (error != NULL)
    g_debug ("%s", error->message);

  /* Still configured as it was when asked? */
  configured = g_settings_get_value (self->settings, "sources");
  g_variant_iter_init (&iter, configured);
  while (g_variant_iter_next (&iter, "(&s&s&s)", &id, &name, &url))
    if (g_strcmp0 (id, lookup->id) == 0 && g_strcmp0 (url, lookup->url) == 0)
      still = TRUE;
  if (!still || pd_source_list_lookup (self->sources, lookup->id, NULL) != NULL)
    return;

  remote = pd_remote_source_new (lookup->url, token, &error);
  if (remote == NULL)
    {
      g_message ("%s: %s", lookup->url, error->message);
      return;
    }
  pd_remote_source_watch (remote, REMOTE_WATCH_MS);
  pd_source_list_insert (self->sources, pd_window_endpoint_position (self, configured, lookup->id),
                         PD_SOURCE (remote), lookup->id, lookup->name);
}

void
_pd_window_sync_endpoints (PdWindow *self)
{
  g_autoptr(GVariant) configured = NULL;
  g_autoptr(GHashTable) wanted = NULL;
  g_autoptr(GHashTable) keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GVariantIter iter;
  const char *id;
  const char *name;
  const char *url;
  guint n;

  if (self->source == NULL || !PD_IS_MULTI_SOURCE (self->source))
    return;

  /* A token written into an address goes to the secret store first, and
   * the setting is read as it is written again without it. */
  pd_sources_move_url_tokens (self->settings);
  configured = g_settings_get_value (self->settings, "sources");
  wanted = g_hash_table_new (g_str_hash, g_str_equal);

  g_variant_iter_init (&iter, configured);
  while (g_variant_iter_next (&iter, "(&s&s&s)", &id, &name, &url))
    {
      PdSource *there;

      /* The database's own id, or one twice, is not an endpoint's. */
      if (g_strcmp0 (id, PD_SOURCE_LIST_LOCAL_ID) == 0 || id[0] == '\0' || strchr (id, '/') != NULL ||
          g_hash_table_contains (wanted, id))
        continue;
      /* One endpoint under a second spelling (a setting written before
       * Preferences refused it): shown once, as it was first listed. */
      {
        char *key = pd_remote_url_dup_key (url);

        if (key != NULL && !g_hash_table_add (keys, key))
          continue;
      }
      g_hash_table_add (wanted, (gpointer) id);

      there = pd_source_list_lookup (self->sources, id, NULL);
      if (pd_window_endpoint_is_at (there, url))
        {
          pd_source_list_set_name (self->sources, id, name[0] != '\0' ? name : url);
          continue;
        }
      if (there != NULL)
        {
          /* Another address under the same id: made again. */
          g_object_ref (there);
          pd_source_list_remove (self->sources, id);
          pd_window_stop_remote (there);
          g_object_unref (there);
        }

      {
        EndpointLookup *lookup = g_new0 (EndpointLookup, 1);

        g_weak_ref_init (&lookup->window, self);
        lookup->id = g_strdup (id);
        lookup->name = g_strdup (name[0] != '\0' ? name : url);
        lookup->url = g_strdup (url);
        pd_secrets_lookup_token_async (url, on_endpoint_token, lookup);
      }
    }

  /* Removed from the setting: stopped and gone. */
  n = g_list_model_get_n_items (G_LIST_MODEL (self->sources));
  for (guint i = n; i > 1; i--)
    {
      g_autoptr(PdSource) source = g_list_model_get_item (G_LIST_MODEL (self->sources), i - 1);
      const char *source_id = pd_source_list_get_id (self->sources, source);

      if (!g_hash_table_contains (wanted, source_id))
        {
          pd_source_list_remove (self->sources, source_id);
          pd_window_stop_remote (source);
        }
    }
}

/* Every endpoint's event stream is closed with the window. */
void
_pd_window_stop_endpoints (PdWindow *self)
{
  guint n = self->sources != NULL ? g_list_model_get_n_items (G_LIST_MODEL (self->sources)) : 0;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PdSource) source = g_list_model_get_item (G_LIST_MODEL (self->sources), i);

      pd_window_stop_remote (source);
    }
}

/**
 * pd_window_set_endpoint_token:
 * @url: an endpoint's URL, without its token
 * @token: (nullable): its token
 *
 * Gives @token to the window's source at @url (its one endpoint, or one of
 * its configured endpoints), which reads everything again.
 *
 * Returns: whether the window has that endpoint
 */
gboolean
pd_window_set_endpoint_token (PdWindow   *self,
                              const char *url,
                              const char *token)
{
  guint n;

  g_return_val_if_fail (PD_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (url != NULL, FALSE);

  n = g_list_model_get_n_items (G_LIST_MODEL (self->sources));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PdSource) source = g_list_model_get_item (G_LIST_MODEL (self->sources), i);

      if (!PD_IS_REMOTE_SOURCE (source) ||
          g_strcmp0 (pd_remote_source_get_base_url (PD_REMOTE_SOURCE (source)), url) != 0)
        continue;
      /* A window on that endpoint alone: its banner and pages follow. */
      if (self->remote_url != NULL)
        pd_window_set_remote_token (self, token);
      else
        {
          pd_remote_source_set_token (PD_REMOTE_SOURCE (source), token);
          pd_source_emit_changed (self->source);
        }
      return TRUE;
    }
  return FALSE;
}

static void
on_remote_loaded (PdWindow *self)
{
  if (pd_session_list_get_loaded (self->session_list))
    pd_session_list_set_note (self->session_list, NULL);
}

/* A `--remote` window's search its endpoint did not answer: "Not
 * searched: … (Token refused)" over the list, as a window of several
 * sources says it.  The list was left blank (tried as a new user would). */
void
_pd_window_note_remote_unsearched (PdWindow *self)
{
  PdSource *listed = pd_session_list_get_source (self->session_list);
  g_autofree char *state = NULL;
  g_autofree char *name = NULL;
  g_autofree char *source = NULL;
  g_autofree char *note = NULL;

  if (self->remote_url == NULL || listed == NULL || self->source_sidebar == NULL || !PD_IS_REMOTE_SOURCE (listed))
    return;
  /* Listed again (the token taken), or no search: nothing left out. */
  if (g_object_get_data (G_OBJECT (self), "pd-remote-note") == NULL)
    {
      g_object_set_data (G_OBJECT (self), "pd-remote-note", GINT_TO_POINTER (TRUE));
      g_signal_connect_object (self->session_list, "notify::loaded", G_CALLBACK (on_remote_loaded), self,
                               G_CONNECT_SWAPPED);
    }
  if (pd_session_list_get_query (self->session_list) == NULL)
    {
      pd_session_list_set_note (self->session_list, NULL);
      return;
    }
  state = pd_source_sidebar_dup_state (self->source_sidebar, listed, NULL);
  name = _pd_isolated_short (pd_remote_source_get_base_url (PD_REMOTE_SOURCE (listed)), 80);
  /* Translators: a source a search could not ask, and its state: "Build box (Unreachable)" */
  source = state != NULL ? g_strdup_printf (_("%s (%s)"), name, state) : g_strdup (name);
  /* Translators: %s names the sources, "Build box (Unreachable), Beta (Token refused)" */
  note = g_strdup_printf (_("Not searched: %s"), source);
  pd_session_list_set_note (self->session_list, note);
}

/**
 * pd_windows_endpoint_refused:
 * @url: an endpoint's address, as the `sources` setting spells it
 *
 * Returns: whether a window's endpoint at @url refuses its token now
 */
gboolean
pd_windows_endpoint_refused (const char *url)
{
  GApplication *app = g_application_get_default ();

  if (app == NULL || !GTK_IS_APPLICATION (app))
    return FALSE;
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    {
      PdWindow *self = PD_IS_WINDOW (l->data) ? l->data : NULL;
      guint n = self != NULL && self->sources != NULL ? g_list_model_get_n_items (G_LIST_MODEL (self->sources)) : 0;

      for (guint i = 0; i < n; i++)
        {
          g_autoptr(PdSource) source = g_list_model_get_item (G_LIST_MODEL (self->sources), i);

          if (PD_IS_REMOTE_SOURCE (source) &&
              g_strcmp0 (pd_remote_source_get_base_url (PD_REMOTE_SOURCE (source)), url) == 0 &&
              pd_remote_source_get_state (PD_REMOTE_SOURCE (source)) == PD_REMOTE_DENIED &&
              !pd_remote_source_get_host_refused (PD_REMOTE_SOURCE (source)))
            return TRUE;
        }
    }
  return FALSE;
}

/**
 * pd_window_choose_endpoint:
 * @url: an endpoint's address in any spelling (`localhost` for
 *   `127.0.0.1`, a slash, the default port), without its token
 * @token: (nullable): a token given with it
 *
 * Chooses in the sidebar the endpoint of the window's at @url, so that
 * `plandeck --remote` for an endpoint in the sidebar opens that one, not
 * a second connection to it.  A new @token goes to it.
 *
 * Returns: whether the window lists that endpoint beside its database
 */
gboolean
pd_window_choose_endpoint (PdWindow   *self,
                           const char *url,
                           const char *token)
{
  g_autofree char *key = NULL;
  guint n;

  g_return_val_if_fail (PD_IS_WINDOW (self), FALSE);
  g_return_val_if_fail (url != NULL, FALSE);

  key = pd_remote_url_dup_key (url);
  if (key == NULL || self->remote_url != NULL || self->sources == NULL || self->source == NULL ||
      !PD_IS_MULTI_SOURCE (self->source))
    return FALSE;
  n = g_list_model_get_n_items (G_LIST_MODEL (self->sources));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PdSource) source = g_list_model_get_item (G_LIST_MODEL (self->sources), i);
      g_autofree char *source_key = NULL;
      PdRemoteSource *remote;

      if (!PD_IS_REMOTE_SOURCE (source))
        continue;
      remote = PD_REMOTE_SOURCE (source);
      source_key = pd_remote_url_dup_key (pd_remote_source_get_base_url (remote));
      if (g_strcmp0 (source_key, key) != 0)
        continue;
      if (token != NULL && token[0] != '\0' && g_strcmp0 (token, pd_remote_source_get_token (remote)) != 0)
        {
          pd_sources_give_token (pd_remote_source_get_base_url (remote), token);
          pd_remote_source_set_token (remote, token);
          pd_source_emit_changed (self->source);
        }
      pd_source_sidebar_select (self->source_sidebar, source);
      return TRUE;
    }
  return FALSE;
}

/* Retry's answer.  Pressed, the buttons say "Connecting…" until the
 * endpoint answers or fails again; then a toast says which.  A refused
 * connection fails at once with the same words as before, so the page and
 * the banner did not change, and Retry looked dead (tried as a new user
 * would). */
void
_pd_window_show_retrying (PdWindow *self)
{
  gtk_button_set_label (self->connection_retry, self->retrying ? _("Connecting…") : _("_Retry Now"));
  gtk_button_set_label (self->error_retry, self->retrying ? _("Connecting…") : _("_Retry"));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.retry", !self->retrying);
}

void
_pd_window_start_retry (PdWindow *self)
{
  self->retrying = TRUE;
  _pd_window_show_retrying (self);
}

/**
 * _pd_window_end_retry:
 * @reached: whether the endpoint answered
 *
 * Ends a retry, if one is on its way, with its toast.
 */
void
_pd_window_end_retry (PdWindow *self,
                      gboolean  reached)
{
  if (!self->retrying)
    return;
  self->retrying = FALSE;
  _pd_window_show_retrying (self);
  /* A refused token is said by its banner, with the entry for a new one. */
  if (self->source != NULL && PD_IS_REMOTE_SOURCE (self->source) &&
      pd_remote_source_get_state (PD_REMOTE_SOURCE (self->source)) == PD_REMOTE_DENIED)
    return;
  pd_window_show_message (self, reached ? _("Connected") : _("Still cannot reach the endpoint"));
  /* And its banner, which stayed as it was (pd-window-endpoint.c). */
  if (!reached)
    _pd_window_say_still_unreachable (self);
}

/* A token asked for, none typed yet: the focus goes to the banner's entry
 * unless the person put it somewhere (the window opened with it on the
 * header's first button, and a screen reader said nothing of the banner:
 * tried with one). */
static void
focus_token_entry (PdWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

  if (!gtk_widget_get_visible (GTK_WIDGET (self->token_box)) ||
      gtk_editable_get_text (GTK_EDITABLE (self->token_entry))[0] != '\0')
    return;
  if (focus == NULL || !gtk_widget_get_mapped (focus) || gtk_widget_get_ancestor (focus, ADW_TYPE_HEADER_BAR) != NULL ||
      gtk_widget_get_ancestor (focus, ADW_TYPE_STATUS_PAGE) != NULL)
    gtk_widget_grab_focus (GTK_WIDGET (self->token_entry));
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
      gtk_image_set_from_icon_name (self->connection_icon, "pd-endpoint-unreachable-symbolic");
      gtk_widget_remove_css_class (gtk_revealer_get_child (self->connection_banner), "denied");
      break;
    case PD_REMOTE_DENIED:
      if (pd_remote_source_get_host_refused (remote))
        text = g_strdup (reason ? reason : "");
      else if (_pd_window_token_needed (self))
        /* The source's reason sends the person to the endpoint's page of
         * the sources window and to Preferences → Sources, neither of which
         * this window has: the entry is right here (tried as a new user
         * would). */
        /* Translators: %s is the endpoint's address, http://HOST:PORT */
        text = g_strdup_printf (_("%s needs a token, and none is kept for it. Enter the token serve printed when it "
                                  "started (the part of its address after ?token=) here."),
                                pd_remote_source_get_base_url (remote));
      else
        /* Every cause of a refusal, not a restart alone: a token typed
         * wrong read as if the server had been restarted (tried as a new
         * user would). */
        /* Translators: %s says why, e.g. "http://… refused the token (HTTP 403)" */
        text = g_strdup_printf (_("%s. The token is wrong or has changed (a restarted serve prints a new one): "
                                  "enter the token serve printed here."), reason ? reason : "");
      gtk_image_set_from_icon_name (self->connection_icon, "dialog-password-symbolic");
      gtk_widget_add_css_class (gtk_revealer_get_child (self->connection_banner), "denied");
      break;
    case PD_REMOTE_CONNECTING:
    case PD_REMOTE_ONLINE:
    default:
      break;
    }

  if (state == PD_REMOTE_ONLINE)
    _pd_window_end_retry (self, TRUE);
  if (text != NULL)
    gtk_label_set_text (self->connection_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->connection_retry), state == PD_REMOTE_OFFLINE);
  gtk_widget_set_visible (GTK_WIDGET (self->token_box),
                          state == PD_REMOTE_DENIED && !pd_remote_source_get_host_refused (remote));
  gtk_revealer_set_reveal_child (self->connection_banner, state == PD_REMOTE_OFFLINE || state == PD_REMOTE_DENIED);
  /* After the banner is shown: a token refused is selected in its entry. */
  _pd_window_check_typed_token (self);
  if (state == PD_REMOTE_DENIED)
    focus_token_entry (self);
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
      _pd_run_hold_application ();
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
      else if (g_file_test (folder, G_FILE_TEST_IS_DIR) && g_access (folder, W_OK | X_OK) != 0)
        /* Offered there, accepting only failed with "Permission denied"
         * (tried as a new user would): the folder is named now. */
        /* Translators: the first %s is a folder, the second a file path */
        description = g_strdup_printf (_("You cannot write in the folder %s, so no database can be made at %s. Choose a folder of your own, or ask its owner for write access."),
                                       folder, self->database_path);
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

  {
    PdLocalSource *local = pd_local_source_new (self->database_path, self->create_database);

    if (self->with_endpoints)
      {
        /* This computer's database first; the endpoints join as their
         * tokens are looked up. */
        pd_source_list_append (self->sources, PD_SOURCE (local), PD_SOURCE_LIST_LOCAL_ID, _("This Computer"));
        g_object_unref (local);
        _pd_window_set_source (self, PD_SOURCE (pd_multi_source_new (self->sources)));
        g_signal_connect_object (self->source, "listed", G_CALLBACK (pd_window_on_listed), self,
                                 G_CONNECT_SWAPPED | G_CONNECT_AFTER);
        g_signal_connect_object (self->source, "searched", G_CALLBACK (pd_window_on_searched), self,
                                 G_CONNECT_SWAPPED);
        g_signal_connect_object (self->session_list, "load-failed", G_CALLBACK (_pd_window_on_chosen_load_failed), self,
                                 G_CONNECT_SWAPPED | G_CONNECT_AFTER);
        g_signal_connect_object (self->session_list, "notify::loaded", G_CALLBACK (_pd_window_on_chosen_loaded), self,
                                 G_CONNECT_SWAPPED);
        _pd_window_sync_endpoints (self);
      }
    else
      _pd_window_set_source (self, PD_SOURCE (local));

    local = _pd_window_get_local_source (self);
    pd_local_source_watch (local, _pd_window_poll_ms (self, FALSE));
    _pd_window_follow_transcripts (self);
    _pd_window_read_agent_sessions (self);

    _pd_window_set_runs (self, pd_run_controller_new (local, GTK_WINDOW (self)));
  }
}

/* --- the window's sources ------------------------------------------------ */

/**
 * _pd_window_show_session_title:
 * @title: a session's title, anyone's text (an endpoint's)
 *
 * Puts @title in the header as the session rows show it: one line, its
 * controls visible, isolated, and no longer than a header can hold.
 */
void
_pd_window_show_session_title (PdWindow   *self,
                               const char *title)
{
  g_autofree char *safe = _pd_isolated_short (title != NULL ? title : "", 240);

  adw_view_switcher_title_set_title (self->switcher_title, safe);
}

/* The label of the header's title (libadwaita's, inside the switcher
 * title), or %NULL. */
static GtkWidget *
header_title_label (GtkWidget *widget)
{
  if (ADW_IS_WINDOW_TITLE (widget))
    {
      for (GtkWidget *box = gtk_widget_get_first_child (widget); box != NULL; box = gtk_widget_get_next_sibling (box))
        for (GtkWidget *child = gtk_widget_get_first_child (box); child != NULL; child = gtk_widget_get_next_sibling (child))
          if (GTK_IS_LABEL (child))
            return child;
      return NULL;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = header_title_label (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
title_to_tooltip (AdwViewSwitcherTitle *title,
                  GParamSpec           *pspec,
                  GtkWidget            *label)
{
  const char *text = adw_view_switcher_title_get_title (title);

  gtk_widget_set_tooltip_text (label, text != NULL && *text != '\0' ? text : NULL);
  /* Its text and tooltip, isolated, are its name and description: a
   * reader gets them without the isolates (it said "⁨Add an export…⁩"). */
  if (text != NULL && *text != '\0')
    _pd_accessible_set_text (label, text, text);
}

/*
 * _pd_window_title_tooltip:
 *
 * The header's title, a session's, is cut to the header's width: at 360 px
 * and 1.5× text an imported Cline task's read "Add pagi…", whole nowhere
 * one could see it (tried as a new user would, with Large Text). Its label
 * has the whole title as its tooltip; the subtitle keeps the source's.
 */
void
_pd_window_title_tooltip (PdWindow *self)
{
  GtkWidget *label = header_title_label (GTK_WIDGET (self->switcher_title));

  if (label == NULL)
    return;
  g_signal_connect_object (self->switcher_title, "notify::title", G_CALLBACK (title_to_tooltip), label, 0);
  title_to_tooltip (self->switcher_title, NULL, label);
}

/* The id of the window's own source in its list of sources. */
const char *
_pd_window_source_id (PdWindow *self)
{
  return self->remote_url != NULL ? "remote" : PD_SOURCE_LIST_LOCAL_ID;
}

/* Its name in the sidebar: the endpoint's host, or this computer. */
const char *
_pd_window_source_name (PdWindow *self)
{
  if (self->remote_url != NULL)
    {
      g_autoptr(GUri) uri = g_uri_parse (self->remote_url, G_URI_FLAGS_NONE, NULL);

      if (uri != NULL && g_uri_get_host (uri) != NULL)
        return g_intern_string (g_uri_get_host (uri));
      return self->remote_url;
    }
  return _("This Computer");
}

/**
 * _pd_window_get_sources:
 *
 * Returns: (transfer none): the window's sources, a #GListModel of #PdSource
 *   (a #PdSourceList)
 */
GListModel *
_pd_window_get_sources (PdWindow *self)
{
  g_return_val_if_fail (PD_IS_WINDOW (self), NULL);

  return G_LIST_MODEL (self->sources);
}

/**
 * pd_window_new_with_endpoints:
 * @database_path: this computer's database, created when missing
 *
 * Returns: (transfer full): a window showing @database_path and, beside
 *   it, every endpoint configured in Preferences (the `sources` setting)
 */
PdWindow *
pd_window_new_with_endpoints (GtkApplication *application,
                              const char     *database_path)
{
  g_return_val_if_fail (GTK_IS_APPLICATION (application), NULL);
  g_return_val_if_fail (database_path != NULL, NULL);

  return g_object_new (PD_TYPE_WINDOW,
                       "application", application,
                       "database-path", database_path,
                       "create-database", TRUE,
                       "with-endpoints", TRUE,
                       NULL);
}

/* Rows name their source while the list shows several. */
static void
pd_window_name_origins (PdWindow *self,
                        guint     position,
                        guint     n_items)
{
  GListModel *model = G_LIST_MODEL (pd_session_list_get_model (self->session_list));
  PdSource *listed = pd_session_list_get_source (self->session_list);
  gboolean several = listed != NULL && PD_IS_MULTI_SOURCE (listed) &&
                     g_list_model_get_n_items (G_LIST_MODEL (self->sources)) > 1;

  for (guint i = position; i < position + n_items; i++)
    {
      g_autoptr(PdSessionItem) item = g_list_model_get_item (model, i);
      PdSource *source = several && item != NULL ? _pd_window_resolve_item (self, item, NULL) : NULL;
      gboolean stale = source != NULL && pd_multi_source_is_stale (PD_MULTI_SOURCE (listed), source);
      g_autofree char *origin = NULL;

      if (item == NULL)
        continue;
      if (stale)
        {
          /* An endpoint gone away keeps its sessions, saying so. */
          g_autofree char *state = pd_source_sidebar_dup_state (self->source_sidebar, source, NULL);

          /* Translators: a session's source and its state, e.g. "Build box · Unreachable" */
          origin = g_strdup_printf (_("%s · %s"), pd_source_list_get_name (self->sources, source),
                                    state != NULL ? state : _("Not answering"));
        }
      else if (source != NULL)
        origin = g_strdup (pd_source_list_get_name (self->sources, source));
      pd_session_item_set_origin (item, origin);
      pd_session_item_set_stale (item, stale);
    }
}

/* A source answered (or did not): its rows say whether they are stale. */
static void
pd_window_on_listed (PdWindow *self)
{
  if (self->session_list != NULL)
    pd_window_name_origins (self, 0,
                            g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (self->session_list))));
}

/* A listing done: a search names the sources it could not ask, with
 * their state ("Not searched: Build box (Not answering)"); they were left
 * out silently. */
static void
pd_window_on_searched (PdWindow      *self,
                       PdMultiSource *multi)
{
  GPtrArray *left_out = pd_multi_source_get_not_searched (multi);
  g_autoptr(GString) names = g_string_new (NULL);
  g_autofree char *note = NULL;

  /* Closing: the list and the sidebar went first. */
  if (self->session_list == NULL || self->sources == NULL || self->source_sidebar == NULL)
    return;
  /* A note of all sources, over one source's list: it stayed over an
   * endpoint chosen since, and given its token (tried as a new user
   * would).  Choosing one clears it (_pd_window_on_source_chosen()). */
  if (pd_session_list_get_source (self->session_list) != PD_SOURCE (multi))
    return;
  for (guint i = 0; i < left_out->len; i++)
    {
      PdSource *source = g_ptr_array_index (left_out, i);
      g_autofree char *state = pd_source_sidebar_dup_state (self->source_sidebar, source, NULL);
      g_autofree char *name = _pd_isolated_short (pd_source_list_get_name (self->sources, source), 80);

      if (names->len > 0)
        g_string_append (names, ", ");
      if (state != NULL)
        /* Translators: a source a search could not ask, and its state: "Build box (Unreachable)" */
        g_string_append_printf (names, _("%s (%s)"), name, state);
      else
        g_string_append (names, name);
    }
  if (names->len > 0)
    /* Translators: %s names the sources, "Build box (Unreachable), Beta (Token refused)" */
    note = g_strdup_printf (_("Not searched: %s"), names->str);
  pd_session_list_set_note (self->session_list, note);
}

void
_pd_window_on_session_items_added (PdWindow   *self,
                        guint       position,
                        guint       removed,
                        guint       added)
{
  if (added > 0)
    pd_window_name_origins (self, position, added);
}

/* Sources added, renamed or removed: the rows say the names of now. */
void
_pd_window_on_sources_changed (PdWindow *self)
{
  /* Emptied in dispose, after the template. */
  if (self->session_list == NULL)
    return;
  pd_window_name_origins (self, 0, g_list_model_get_n_items (G_LIST_MODEL (pd_session_list_get_model (self->session_list))));
}
