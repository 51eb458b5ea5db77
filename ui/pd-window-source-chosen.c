/* pd-window-source-chosen.c: an endpoint chosen in the sidebar that does
 * not list (its page, its token entry) and an endpoint's address without
 * its secrets; the rest of what a window reads is pd-window-source.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-window"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "pd-preferences-window.h"
#include "pd-remote-url.h"
#include "pd-secrets.h"
#include "pd-session-item.h"
#include "pd-sources-page.h"
#include "pd-ui-util-private.h"
#include "pd-window-private.h"

/* --- a chosen endpoint that does not list ------------------------------ */

/* The error page of a window over several sources, for an endpoint chosen
 * in the sidebar that does not list: its name, its address and its state
 * in words, and for a refused token an entry for the new one with Connect
 * (kept in the secret store as Preferences keeps it), and Edit in
 * Preferences.  It said "Cannot Open This Database" with Retry and "Open
 * Another Database…", of an endpoint (tried as a new user would). */

static PdRemoteSource *
pd_window_chosen_endpoint (PdWindow *self)
{
  PdSource *chosen = self->source_sidebar != NULL ? pd_source_sidebar_get_selected (self->source_sidebar) : NULL;

  return chosen != NULL && PD_IS_REMOTE_SOURCE (chosen) ? PD_REMOTE_SOURCE (chosen) : NULL;
}

/* What became of the token given on the page ("" for nothing). */
static void
pd_window_endpoint_note (PdWindow   *self,
                         const char *text)
{
  GtkLabel *note = g_object_get_data (G_OBJECT (self), "pd-endpoint-note");

  if (note == NULL)
    return;
  gtk_label_set_text (note, text);
  gtk_widget_set_visible (GTK_WIDGET (note), *text != '\0');
}

static void
on_endpoint_connect (PdWindow *self)
{
  PdRemoteSource *remote = pd_window_chosen_endpoint (self);
  GtkEditable *entry = g_object_get_data (G_OBJECT (self), "pd-endpoint-token");
  g_autofree char *token = g_strstrip (g_strdup (gtk_editable_get_text (entry)));

  if (remote == NULL || token[0] == '\0')
    return;
  /* The line serve printed, pasted whole, was refused as a token "again"
   * (tried as a new user would): its token is taken, as the banner does. */
  if (!_pd_window_token_from_pasted (self, pd_remote_source_get_base_url (remote), &token))
    return;
  /* "Again" once a token was refused: it said so of the first one given
   * to an endpoint that had none (tried as a new user would). */
  g_object_set_data (G_OBJECT (self), "pd-endpoint-connecting",
                     GINT_TO_POINTER (_pd_window_endpoint_had_refused (remote) ? 2 : 1));
  pd_sources_give_token (pd_remote_source_get_base_url (remote), token);
  explicit_bzero (token, strlen (token));
  /* Said while it is tried, and after: a refused token looked like no try
   * at all (tried as a new user would).  It stays in the entry until
   * taken, as in the banner. */
  pd_window_endpoint_note (self, _("Connecting…"));
  pd_session_list_refresh (self->session_list);
}

static void
on_endpoint_preferences (PdWindow *self)
{
  PdPreferencesWindow *prefs = pd_preferences_window_new (GTK_WINDOW (self));
  PdRemoteSource *remote = pd_window_chosen_endpoint (self);

  adw_preferences_window_set_visible_page_name (ADW_PREFERENCES_WINDOW (prefs), "sources");
  gtk_window_present (GTK_WINDOW (prefs));
  if (remote != NULL)
    pd_preferences_window_show_endpoint (prefs, pd_remote_source_get_base_url (remote));
}

/* Its token entry, Connect and Edit in Preferences, made once under the
 * error page's buttons; shown while "Open Another Database…" is not. */
static GtkWidget *
pd_window_endpoint_box (PdWindow *self)
{
  GtkWidget *box = g_object_get_data (G_OBJECT (self), "pd-endpoint-box");
  GtkWidget *token_box;
  GtkWidget *note;
  GtkWidget *entry;
  GtkWidget *connect;
  GtkWidget *edit;

  if (box != NULL)
    return box;
  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  token_box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  entry = gtk_password_entry_new ();
  gtk_password_entry_set_show_peek_icon (GTK_PASSWORD_ENTRY (entry), TRUE);
  /* Its Caps Lock warning and Show Text named by their tooltips: the Caps
   * Lock image was met with no name (tried with a screen reader's view). */
  _pd_images_speak (entry);
  g_object_set (entry, "placeholder-text", _("New token"), "activates-default", FALSE, NULL);
  gtk_widget_set_hexpand (entry, TRUE);
  /* Room for a token `serve` prints (43 characters) where the page has
   * it, narrower at 360 px: it was ~170 px wide, a few characters of it
   * in view (tried as a new user would). */
  gtk_editable_set_width_chars (GTK_EDITABLE (entry), 8);
  gtk_editable_set_max_width_chars (GTK_EDITABLE (entry), 48);
  _pd_accessible_set_text (GTK_WIDGET (entry), _("The endpoint’s new token"), NULL);
  connect = gtk_button_new_with_mnemonic (_("C_onnect"));
  gtk_widget_add_css_class (connect, "suggested-action");
  edit = gtk_button_new_with_mnemonic (_("_Edit in Preferences"));
  gtk_widget_add_css_class (edit, "pill");
  gtk_widget_set_halign (edit, GTK_ALIGN_CENTER);
  /* Made after the window was shown, whose buttons were named then: GTK
   * 4.8 names a mnemonic button by its raw label and again through its
   * mnemonic ("C_onnect Connect", found by the a11y walk of this page). */
  gtk_accessible_reset_property (GTK_ACCESSIBLE (connect), GTK_ACCESSIBLE_PROPERTY_LABEL);
  gtk_accessible_reset_property (GTK_ACCESSIBLE (edit), GTK_ACCESSIBLE_PROPERTY_LABEL);
  gtk_box_append (GTK_BOX (token_box), entry);
  gtk_box_append (GTK_BOX (token_box), connect);
  gtk_box_append (GTK_BOX (box), token_box);
  note = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (note), TRUE);
  gtk_label_set_justify (GTK_LABEL (note), GTK_JUSTIFY_CENTER);
  gtk_widget_set_visible (note, FALSE);
  gtk_box_append (GTK_BOX (box), note);
  gtk_box_append (GTK_BOX (box), edit);
  gtk_widget_set_size_request (token_box, _pd_text_width (token_box, 28), -1);
  g_signal_connect_swapped (entry, "activate", G_CALLBACK (on_endpoint_connect), self);
  g_signal_connect_swapped (connect, "clicked", G_CALLBACK (on_endpoint_connect), self);
  g_signal_connect_swapped (edit, "clicked", G_CALLBACK (on_endpoint_preferences), self);
  gtk_box_append (GTK_BOX (adw_status_page_get_child (self->error_page)), box);
  g_object_bind_property (self->error_button, "visible", box, "visible",
                          G_BINDING_SYNC_CREATE | G_BINDING_INVERT_BOOLEAN);
  g_object_set_data (G_OBJECT (self), "pd-endpoint-box", box);
  g_object_set_data (G_OBJECT (self), "pd-endpoint-token", entry);
  g_object_set_data (G_OBJECT (self), "pd-endpoint-token-box", token_box);
  g_object_set_data (G_OBJECT (self), "pd-endpoint-note", note);
  return box;
}

/* After the window's own handler: the page says it of the endpoint. */
void
_pd_window_on_chosen_load_failed (PdWindow     *self,
                       const GError *error)
{
  PdRemoteSource *remote = pd_window_chosen_endpoint (self);
  const char *icon = NULL;
  g_autofree char *state = NULL;
  g_autofree char *name = NULL;
  g_autofree char *description = NULL;
  const char *reason;

  if (remote == NULL || PD_SOURCE (remote) != pd_session_list_get_source (self->session_list) ||
      pd_session_list_get_loaded (self->session_list))
    return;
  state = pd_source_sidebar_dup_state (self->source_sidebar, PD_SOURCE (remote), &icon);
  reason = pd_remote_source_get_state_message (remote);
  name = _pd_isolated_short (pd_source_list_get_name (self->sources, PD_SOURCE (remote)), 80);
  /* Translators: an endpoint's page: its address, its state ("Token refused"), and why */
  description = g_strdup_printf (_("%s\n%s: %s"), pd_remote_source_get_base_url (remote),
                                 state != NULL ? state : _("Unreachable"),
                                 reason != NULL ? reason : error->message);
  _pd_window_show_error (self, name, description);
  adw_status_page_set_icon_name (self->error_page, icon != NULL ? icon : "network-offline-symbolic");
  pd_window_endpoint_box (self);
  gtk_widget_set_visible (GTK_WIDGET (self->error_button), FALSE);
  gtk_widget_set_visible (g_object_get_data (G_OBJECT (self), "pd-endpoint-token-box"),
                          pd_remote_source_get_state (remote) == PD_REMOTE_DENIED &&
                          !pd_remote_source_get_host_refused (remote));
  gtk_widget_set_visible (GTK_WIDGET (self->error_retry), pd_remote_source_get_state (remote) != PD_REMOTE_DENIED ||
                                                         pd_remote_source_get_host_refused (remote));
  if (g_object_get_data (G_OBJECT (self), "pd-endpoint-connecting") != NULL)
    pd_window_endpoint_note (self, _pd_window_endpoint_refusal (self, remote));
  g_object_set_data (G_OBJECT (self), "pd-endpoint-connecting", NULL);
}

/* Connected from its page, whose token entry had the focus: the page
 * went and the focus with it, the next Tab on "New Session" at the top
 * (tried as a new user would).  It goes to the endpoint's first session,
 * else the list. */
static void
pd_window_focus_after_connect (PdWindow *self)
{
  GtkWidget *box = g_object_get_data (G_OBJECT (self), "pd-endpoint-box");
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  GListModel *model = G_LIST_MODEL (pd_session_list_get_model (self->session_list));
  g_autoptr(PdSessionItem) first = g_list_model_get_item (model, 0);

  if (focus != NULL && gtk_widget_get_mapped (focus) && (box == NULL || !gtk_widget_is_ancestor (focus, box)))
    return;
  if (first != NULL)
    pd_session_list_focus_session (self->session_list, pd_session_item_get_id (first));
  else
    gtk_widget_grab_focus (GTK_WIDGET (self->session_list));
}

/* Listed: a token given on the page was taken, and the note goes. */
void
_pd_window_on_chosen_loaded (PdWindow *self)
{
  if (!pd_session_list_get_loaded (self->session_list))
    return;
  if (g_object_get_data (G_OBJECT (self), "pd-endpoint-connecting") != NULL)
    pd_window_focus_after_connect (self);
  pd_window_endpoint_note (self, "");
  g_object_set_data (G_OBJECT (self), "pd-endpoint-connecting", NULL);
  _pd_window_endpoint_taken (self);
}

/* The chosen endpoint turned unreachable before its first list answered:
 * its page says so now.  The list's own request waits out its timeout
 * (30 s), and "Reading the Sessions" spun all that while under a sidebar
 * row already saying "Unreachable" (tried as a new user would). */
static void
pd_window_on_chosen_state (PdWindow       *self,
                           GParamSpec     *pspec,
                           PdRemoteSource *remote)
{
  g_autoptr(GError) error = NULL;
  const char *reason;

  if (pd_window_chosen_endpoint (self) != remote || pd_remote_source_get_state (remote) != PD_REMOTE_OFFLINE)
    return;
  reason = pd_remote_source_get_state_message (remote);
  error = g_error_new_literal (PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE,
                               reason != NULL ? reason : _("The endpoint does not answer"));
  /* Said only while its list has not come: the function checks that. */
  _pd_window_on_chosen_load_failed (self, error);
}

static void
pd_window_watch_chosen_state (PdWindow *self,
                              PdSource *chosen)
{
  if (chosen == NULL || !PD_IS_REMOTE_SOURCE (chosen))
    return;
  if (g_object_get_data (G_OBJECT (chosen), "pd-window-chosen-watch") == NULL)
    {
      g_signal_connect_object (chosen, "notify::state", G_CALLBACK (pd_window_on_chosen_state), self,
                               G_CONNECT_SWAPPED);
      g_object_set_data (G_OBJECT (chosen), "pd-window-chosen-watch", GINT_TO_POINTER (TRUE));
    }
  pd_window_on_chosen_state (self, NULL, PD_REMOTE_SOURCE (chosen));
}

/* A source chosen in the sidebar: its sessions alone, or all again; the
 * header names it. */
void
_pd_window_on_source_chosen (PdWindow *self)
{
  PdSource *chosen;

  /* Closed with an endpoint chosen: the sidebar went first. */
  if (self->source == NULL || self->source_sidebar == NULL)
    return;
  chosen = pd_source_sidebar_get_selected (self->source_sidebar);
  /* What became of a token given to another endpoint's page. */
  pd_window_endpoint_note (self, "");
  g_object_set_data (G_OBJECT (self), "pd-endpoint-connecting", NULL);
  gtk_widget_set_visible (GTK_WIDGET (self->error_button), TRUE);
  /* "Not searched: …" says what a search of all sources left out: one
   * source chosen is searched alone, or shows its page. */
  if (chosen != NULL)
    pd_session_list_set_note (self->session_list, NULL);
  pd_session_list_set_source (self->session_list, chosen != NULL ? chosen : self->source);
  adw_view_switcher_title_set_subtitle (self->switcher_title,
                                        chosen != NULL ? pd_source_list_get_name (self->sources, chosen)
                                                       : _("All Sources"));
  _pd_window_overview_set_source (self, chosen != NULL ? chosen : self->source);
  pd_window_watch_chosen_state (self, chosen);
}

/* --- an endpoint's address ------------------------------------------ */

/* The value of the last token parameter (any case of its name) of
 * @params, %NULL when none; the other parameters appended to @rest. */
static char *
take_token_param (const char *params,
                  GString    *rest)
{
  GUriParamsIter iter;
  char *key = NULL;
  char *value = NULL;
  char *token = NULL;

  g_uri_params_iter_init (&iter, params, -1, "&", G_URI_PARAMS_NONE);
  while (g_uri_params_iter_next (&iter, &key, &value, NULL))
    {
      /* Any case: ps hides ?TOKEN= as a token, so it never stays in the stored, shown address. */
      if (key != NULL && g_ascii_strcasecmp (key, "token") == 0)
        {
          g_free (token);
          token = g_steal_pointer (&value);
        }
      else if (rest != NULL)
        {
          g_autofree char *k = g_uri_escape_string (key, NULL, FALSE);
          g_autofree char *v = g_uri_escape_string (value ? value : "", NULL, FALSE);

          g_string_append_printf (rest, "%s%s=%s", rest->len ? "&" : "", k, v);
        }
      g_clear_pointer (&key, g_free);
      g_clear_pointer (&value, g_free);
    }
  return token;
}

/**
 * pd_window_split_endpoint_url:
 * @url: an endpoint URL, perhaps with `?token=…` as `serve` prints it
 * @token: (out) (optional) (nullable): the token of the URL, or %NULL
 *
 * The address without what could hold a secret: its token parameter (any
 * case), its user and password (`http://u:TOKEN@host/`) and its fragment
 * (`#token=…`).  A token written into the `sources` setting in either of
 * the last two forms stayed there in clear and was shown in Preferences
 * (tried as an attacker would).  The token is the query's, else the
 * fragment's, else the password.
 *
 * Returns: (transfer full): @url without them
 */
char *
pd_window_split_endpoint_url (const char  *url,
                              char       **token)
{
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_ENCODED_QUERY | G_URI_FLAGS_ENCODED_FRAGMENT |
                                          G_URI_FLAGS_HAS_PASSWORD, NULL);
  g_autoptr(GString) query = NULL;
  g_autoptr(GUri) stripped = NULL;
  g_autofree char *found = NULL;

  if (token != NULL)
    *token = NULL;

  if (uri == NULL ||
      (g_uri_get_query (uri) == NULL && g_uri_get_userinfo (uri) == NULL && g_uri_get_fragment (uri) == NULL))
    return g_strdup (url);

  query = g_string_new (NULL);
  if (g_uri_get_query (uri) != NULL)
    found = take_token_param (g_uri_get_query (uri), query);
  if (found == NULL && g_uri_get_fragment (uri) != NULL)
    found = take_token_param (g_uri_get_fragment (uri), NULL);
  if (found == NULL && g_uri_get_password (uri) != NULL)
    found = g_uri_unescape_string (g_uri_get_password (uri), NULL);
  if (token != NULL)
    *token = g_steal_pointer (&found);
  else if (found != NULL)
    explicit_bzero (found, strlen (found));

  stripped = g_uri_build (G_URI_FLAGS_ENCODED_QUERY, g_uri_get_scheme (uri), NULL,
                          g_uri_get_host (uri), g_uri_get_port (uri), g_uri_get_path (uri),
                          query->len ? query->str : NULL, NULL);

  return g_uri_to_string (stripped);
}
