/* pd-window-endpoint.c: Connect to Endpoint, the dialog that opens an
 * endpoint's window (win.connect-endpoint)
 *
 * The address typed is checked as it is typed: an address that is none
 * says why under the field and Connect waits, the text kept.  Connect on
 * such an address closed the dialog with a toast, and the dialog opened
 * again showed the address remembered before, the typed one lost.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-window"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "pd-remote-url.h"
#include "pd-secrets.h"
#include "pd-ui-util-private.h"
#include "pd-window-private.h"

/**
 * _pd_window_say_still_unreachable:
 *
 * A retry failed: the offline banner says so, with the time of the try.
 * A refused connection fails at once, the toast alone was easily missed,
 * and the banner's words stayed as they were, as if Retry Now did nothing
 * (tried as a new user would).
 */
void
_pd_window_say_still_unreachable (PdWindow *self)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *time = g_date_time_format (now, "%H:%M:%S");
  g_autofree char *text = NULL;
  const char *reason;

  if (self->source == NULL || !PD_IS_REMOTE_SOURCE (self->source) ||
      pd_remote_source_get_state (PD_REMOTE_SOURCE (self->source)) != PD_REMOTE_OFFLINE)
    return;
  reason = pd_remote_source_get_state_message (PD_REMOTE_SOURCE (self->source));
  /* Translators: %s is the time of the try (14:05:09), then why it failed */
  text = g_strdup_printf (_("Still unreachable at %s. %s"), time, reason != NULL ? reason : "");
  gtk_label_set_text (self->connection_label, text);
}

/* The window's endpoint asks for a token and none was sent: not its Host
 * refused, which no token helps. */
gboolean
_pd_window_token_needed (PdWindow *self)
{
  PdRemoteSource *remote = self->source != NULL && PD_IS_REMOTE_SOURCE (self->source)
                           ? PD_REMOTE_SOURCE (self->source) : NULL;

  return remote != NULL && pd_remote_source_get_state (remote) == PD_REMOTE_DENIED &&
         pd_remote_source_get_token (remote) == NULL && !pd_remote_source_get_host_refused (remote);
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

/* As the address is typed: Connect waits for one, and an address that
 * is none says why under it (its token, if typed in it, left out). */
static void
on_endpoint_url_changed (GtkEditable      *entry,
                         AdwMessageDialog *dialog)
{
  GtkWidget *error_label = g_object_get_data (G_OBJECT (dialog), "url-error");
  g_autofree char *url = g_strstrip (g_strdup (gtk_editable_get_text (entry)));
  g_autoptr(GError) error = NULL;
  gboolean valid = url[0] != '\0' && pd_remote_url_split (url, NULL, NULL, NULL, &error);

  adw_message_dialog_set_response_enabled (dialog, "connect", valid);
  if (valid || url[0] == '\0')
    {
      gtk_widget_remove_css_class (GTK_WIDGET (entry), "error");
      gtk_widget_set_visible (error_label, FALSE);
      gtk_accessible_reset_state (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_STATE_INVALID);
      return;
    }
  /* A port out of range read "must start with http://" (tried as a new
   * user would). */
  if (g_error_matches (error, G_URI_ERROR, G_URI_ERROR_BAD_PORT))
    {
      gtk_label_set_text (GTK_LABEL (error_label), error->message);
    }
  else
    {
      g_autofree char *shown = pd_window_split_endpoint_url (url, NULL);
      g_autofree char *safe = _pd_isolated_short (shown, 200);
      /* Translators: %s is what the user typed */
      g_autofree char *message = g_strdup_printf (_("“%s” is not an endpoint address: it must start with http:// or "
                                                    "https:// and name a host"), safe);

      gtk_label_set_text (GTK_LABEL (error_label), message);
    }
  gtk_widget_add_css_class (GTK_WIDGET (entry), "error");
  gtk_widget_set_visible (error_label, TRUE);
  gtk_accessible_update_state (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_STATE_INVALID, GTK_ACCESSIBLE_INVALID_TRUE, -1);
}

static void
on_remembered_token (GObject      *object,
                     GAsyncResult *result,
                     gpointer      data)
{
  GWeakRef *entry_ref = data;
  GtkEditable *entry = g_weak_ref_get (entry_ref);
  g_autofree char *token = pd_secrets_lookup_token_finish (result, NULL);

  if (entry != NULL && token != NULL && gtk_editable_get_text (entry)[0] == '\0')
    gtk_editable_set_text (entry, token);
  g_clear_object (&entry);
  g_weak_ref_clear (entry_ref);
  g_free (entry_ref);
}

void
_pd_window_connect_endpoint_action (GtkWidget  *widget,
                                    const char *action_name,
                                    GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);
  g_autofree char *remembered_url = g_settings_get_string (self->settings, "endpoint-url");
  GtkWidget *dialog;
  GtkWidget *box;
  GtkWidget *entry;
  GtkWidget *token_entry;
  GtkWidget *token_label;
  GtkWidget *error_label;

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
  _pd_accessible_set_text (GTK_WIDGET (entry), _("Endpoint URL"), NULL);
  gtk_box_append (GTK_BOX (box), entry);
  error_label = gtk_label_new (NULL);
  gtk_label_set_wrap (GTK_LABEL (error_label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (error_label), 0);
  gtk_widget_add_css_class (error_label, "error");
  gtk_widget_set_visible (error_label, FALSE);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_RELATION_DESCRIBED_BY, error_label, NULL, -1);
  gtk_box_append (GTK_BOX (box), error_label);
  g_object_set_data (G_OBJECT (dialog), "url-error", error_label);
  g_signal_connect_object (entry, "changed", G_CALLBACK (on_endpoint_url_changed), dialog, 0);
  on_endpoint_url_changed (GTK_EDITABLE (entry), ADW_MESSAGE_DIALOG (dialog));

  /* What the token field is for, above it and wrapped: as its hint, at
   * 1.5× text and 360 px it read "Token (unless the URL has ?t…" (tried
   * as a new user would, with Large Text). */
  token_label = gtk_label_new (_("Token (unless the URL has ?token=)"));
  gtk_label_set_wrap (GTK_LABEL (token_label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (token_label), 0);
  gtk_widget_set_margin_top (token_label, 6);
  gtk_box_append (GTK_BOX (box), token_label);
  token_entry = gtk_password_entry_new ();
  gtk_password_entry_set_show_peek_icon (GTK_PASSWORD_ENTRY (token_entry), TRUE);
  /* Its Caps Lock warning and Show Text named by their tooltips: the Caps
   * Lock image was met with no name (tried with a screen reader's view). */
  _pd_images_speak (token_entry);
  g_object_set (token_entry, "activates-default", TRUE, NULL);
  /* The remembered token is filled in when the keyring gives it, unless
   * one was typed meanwhile. */
  if (remembered_url[0] != '\0')
    {
      GWeakRef *entry_ref = g_new0 (GWeakRef, 1);

      g_weak_ref_init (entry_ref, token_entry);
      pd_secrets_lookup_token_async (remembered_url, on_remembered_token, entry_ref);
    }
  gtk_accessible_update_relation (GTK_ACCESSIBLE (token_entry), GTK_ACCESSIBLE_RELATION_LABELLED_BY,
                                  token_label, NULL, -1);
  gtk_box_append (GTK_BOX (box), token_entry);

  g_object_set_data (G_OBJECT (dialog), "url-entry", entry);
  g_object_set_data (G_OBJECT (dialog), "token-entry", token_entry);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), box);

  g_signal_connect_object (dialog, "response", G_CALLBACK (on_endpoint_response), self, 0);
  /* Each response met once by a reader (libadwaita makes two of each). */
  _pd_message_dialog_responses_once (dialog);
  gtk_window_present (GTK_WINDOW (dialog));
}

