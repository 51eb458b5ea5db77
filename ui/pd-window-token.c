/* pd-window-token.c: the token of a window's endpoint, and the keyring
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A token typed in the banner of a window on one endpoint is used at once,
 * and kept (in the keyring, else for this session) only once the endpoint
 * has accepted it: a mistyped token went to the keyring before the server
 * had checked it, and the next start sent it again (tried as a new user
 * would).  serve checks the token on every request, /api/health included,
 * so the endpoint's state turning to Connected with that token is a 2xx to
 * a request that carried it.  A token given with `--remote URL?token=…`
 * waits in the same way (pd_window_keep_token_once_accepted()), but is
 * not kept unasked: it is used until Plandeck quits, the window says so
 * once and offers Remember (a keyring may ask for a password then).
 * Stored unasked, it popped gnome-keyring's "Choose password for new
 * keyring" over a window opened from the command line on a fresh account
 * (tried as a new user would, nu15 #4, nu18 #7, nu19 #6).
 */
#define G_LOG_DOMAIN "pd-window"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "pd-secrets.h"
#include "pd-ui-util-private.h"
#include "pd-window-private.h"

/**
 * pd_window_say_token_not_kept:
 * @error: why the secret store did not keep it
 *
 * Says, once for this window, that no keyring kept its endpoint's token:
 * it was said on every token the window stored, with the bus's error.  A
 * keyring there that did not take it (its unlock or its creation prompt
 * cancelled) is no missing keyring: that is said each time.
 */
void
pd_window_say_token_not_kept (PdWindow     *self,
                              const GError *error)
{
  g_return_if_fail (PD_IS_WINDOW (self));

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
    {
      pd_window_show_message (self, _("Token not saved: it is used until Plandeck quits"));
      return;
    }
  if (self->said_no_keyring)
    return;
  self->said_no_keyring = TRUE;
  pd_window_show_message (self, _("No keyring is running: the token is used until Plandeck quits"));
}

static void
on_token_kept (GObject      *object,
               GAsyncResult *result,
               gpointer      data)
{
  GWeakRef *window_ref = data;
  g_autoptr(PdWindow) self = g_weak_ref_get (window_ref);
  g_autoptr(GError) error = NULL;

  g_weak_ref_clear (window_ref);
  g_free (window_ref);
  if (pd_secrets_store_token_finish (result, &error))
    return;
  g_debug ("%s", error->message);
  if (self != NULL)
    pd_window_say_token_not_kept (self, error);
}

/**
 * pd_window_keep_token:
 * @endpoint: the endpoint's URL without its token
 * @token: its token
 *
 * Keeps @token for @endpoint in the keyring (for this session at once),
 * and says in @self what became of it when no keyring took it.  The window
 * may be closed meanwhile.
 */
void
pd_window_keep_token (PdWindow   *self,
                      const char *endpoint,
                      const char *token)
{
  GWeakRef *window_ref;

  g_return_if_fail (PD_IS_WINDOW (self));
  g_return_if_fail (endpoint != NULL);

  window_ref = g_new0 (GWeakRef, 1);
  g_weak_ref_init (window_ref, self);
  pd_secrets_store_token_async (endpoint, token, on_token_kept, window_ref);
}

typedef struct
{
  GWeakRef  window;
  char     *endpoint;
  char     *token;
} RememberOffer;

static void
remember_offer_free (gpointer data,
                     GClosure *closure)
{
  RememberOffer *offer = data;

  g_weak_ref_clear (&offer->window);
  explicit_bzero (offer->token, strlen (offer->token));
  g_free (offer->token);
  g_free (offer->endpoint);
  g_free (offer);
}

static void
on_remember_clicked (AdwToast      *toast,
                     RememberOffer *offer)
{
  g_autoptr(PdWindow) self = g_weak_ref_get (&offer->window);

  if (self != NULL)
    pd_window_keep_token (self, offer->endpoint, offer->token);
}

/* The token the endpoint took, given with the address: used for this run,
 * said once, kept only when Remember is chosen. */
static void
offer_to_remember (PdWindow   *self,
                   const char *endpoint,
                   const char *token)
{
  RememberOffer *offer;
  AdwToast *toast;
  g_autofree char *escaped = NULL;

  self->token_for_run = FALSE;
  /* Another window on the address, opened later in this run, has it too. */
  pd_secrets_keep_for_session (endpoint, token);
  offer = g_new0 (RememberOffer, 1);
  g_weak_ref_init (&offer->window, self);
  offer->endpoint = g_strdup (endpoint);
  offer->token = g_strdup (token);
  /* AdwToast titles are Pango markup. */
  escaped = g_markup_escape_text (_("The token is used until Plandeck quits"), -1);
  toast = adw_toast_new (escaped);
  adw_toast_set_button_label (toast, _("_Remember"));
  /* Long enough to read and reach; Preferences → Sources keeps it later. */
  adw_toast_set_timeout (toast, 10);
  g_signal_connect_data (toast, "button-clicked", G_CALLBACK (on_remember_clicked), offer,
                         remember_offer_free, 0);
  _pd_toast_add (GTK_WIDGET (self->toast_overlay), toast);
}

/* The token typed or given, taken by the endpoint: kept, or offered. */
static void
keep_taken_token (PdWindow *self)
{
  if (self->token_for_run)
    offer_to_remember (self, self->remote_url, self->typed_token);
  else
    pd_window_keep_token (self, self->remote_url, self->typed_token);
  _pd_window_forget_typed_token (self);
}

void
_pd_window_forget_typed_token (PdWindow *self)
{
  if (self->typed_token != NULL)
    explicit_bzero (self->typed_token, strlen (self->typed_token));
  g_clear_pointer (&self->typed_token, g_free);
}

/**
 * _pd_window_check_typed_token:
 *
 * Keeps the token typed in the banner once the endpoint is connected with
 * it; called on each change of the endpoint's state.  A refused one stays
 * unkept, and the next one typed takes its place.
 */
void
_pd_window_check_typed_token (PdWindow *self)
{
  PdRemoteSource *remote;

  if (self->source == NULL || !PD_IS_REMOTE_SOURCE (self->source))
    return;
  remote = PD_REMOTE_SOURCE (self->source);
  /* What was typed stays in the banner's entry until the endpoint takes
   * it: a wrong token was cleared, and had to be typed again whole to
   * correct one character (tried as a new user would).  Refused, it is
   * selected, to be corrected or typed over; taken, it goes. */
  if (pd_remote_source_get_state (remote) == PD_REMOTE_ONLINE)
    gtk_editable_set_text (GTK_EDITABLE (self->token_entry), "");
  else if (pd_remote_source_get_state (remote) == PD_REMOTE_DENIED &&
           gtk_editable_get_text (GTK_EDITABLE (self->token_entry))[0] != '\0')
    {
      GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

      /* The focus was in the banner, hidden while connecting: back there. */
      if (focus == NULL || !gtk_widget_get_mapped (focus) || gtk_widget_is_ancestor (focus, GTK_WIDGET (self->token_box)))
        gtk_widget_grab_focus (GTK_WIDGET (self->token_entry));
      gtk_editable_select_region (GTK_EDITABLE (self->token_entry), 0, -1);
    }
  if (self->typed_token == NULL || self->remote_url == NULL)
    return;
  if (pd_remote_source_get_state (remote) != PD_REMOTE_ONLINE ||
      g_strcmp0 (pd_remote_source_get_token (remote), self->typed_token) != 0)
    return;
  keep_taken_token (self);
}

/**
 * _pd_window_typed_token_listed:
 *
 * The window's list was read (it had not been): its endpoint answered the
 * token it has now, which is kept if it is the one given.  The listing of
 * a `--remote URL?token=…` window is answered before its event stream
 * turns the endpoint Connected, and a window closed between the two never
 * kept a token that worked.
 */
void
_pd_window_typed_token_listed (PdWindow *self)
{
  PdRemoteSource *remote;

  if (self->typed_token == NULL || self->remote_url == NULL || self->source == NULL ||
      !PD_IS_REMOTE_SOURCE (self->source))
    return;
  remote = PD_REMOTE_SOURCE (self->source);
  if (pd_remote_source_get_state (remote) == PD_REMOTE_DENIED ||
      g_strcmp0 (pd_remote_source_get_token (remote), self->typed_token) != 0)
    return;
  keep_taken_token (self);
}

/**
 * pd_window_keep_token_once_accepted:
 * @token: the token @self's endpoint was given (with `--remote URL?token=`)
 *
 * Once @self's endpoint is connected with @token, says that it is used
 * until Plandeck quits and offers to remember it (pd_window_keep_token());
 * a refused one is never offered.  Nothing goes to the keyring unasked.
 */
void
pd_window_keep_token_once_accepted (PdWindow   *self,
                                    const char *token)
{
  g_return_if_fail (PD_IS_WINDOW (self));
  g_return_if_fail (token != NULL);

  _pd_window_forget_typed_token (self);
  self->typed_token = g_strdup (token);
  self->token_for_run = TRUE;
  _pd_window_check_typed_token (self);
}

/**
 * _pd_window_endpoint_had_refused:
 *
 * Whether @remote (an endpoint chosen in the sidebar) refused a token it
 * was given: its page says "Token refused", not "Token needed".
 */
gboolean
_pd_window_endpoint_had_refused (PdRemoteSource *remote)
{
  return pd_remote_source_get_state (remote) == PD_REMOTE_DENIED &&
         pd_remote_source_get_token (remote) != NULL;
}

/**
 * _pd_window_endpoint_refusal:
 *
 * What the page of @remote says once it answered the token given there
 * ("" when taken).  Refused, the token stays in the page's entry,
 * selected, to be corrected or typed over, as in the banner: it was
 * emptied, and a token one character wrong had to be typed again whole
 * (tried as a new user would).
 *
 * Returns: (transfer none): the note
 */
const char *
_pd_window_endpoint_refusal (PdWindow       *self,
                             PdRemoteSource *remote)
{
  GtkWidget *entry = g_object_get_data (G_OBJECT (self), "pd-endpoint-token");
  gboolean again = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (self), "pd-endpoint-connecting")) == 2;

  if (pd_remote_source_get_state (remote) != PD_REMOTE_DENIED)
    return "";
  if (entry != NULL && gtk_widget_get_mapped (entry))
    {
      gtk_widget_grab_focus (entry);
      gtk_editable_select_region (GTK_EDITABLE (entry), 0, -1);
    }
  return again ? _("Token refused again. Enter the token the server printed when it started.")
               : _("Token refused. Enter the token the server printed when it started.");
}

/* A chosen endpoint listed: the token given on its page was taken. */
void
_pd_window_endpoint_taken (PdWindow *self)
{
  GtkEditable *entry = g_object_get_data (G_OBJECT (self), "pd-endpoint-token");

  if (entry != NULL)
    gtk_editable_set_text (entry, "");
}

/* The port a URL names, or its scheme's own. */
static int
uri_port (GUri *uri)
{
  if (g_uri_get_port (uri) > 0)
    return g_uri_get_port (uri);
  return g_ascii_strcasecmp (g_uri_get_scheme (uri), "https") == 0 ? 443 : 80;
}

/* Whether @a and @b name the same endpoint: scheme, host and port. */
static gboolean
same_endpoint (const char *a,
               const char *b)
{
  g_autoptr(GUri) ua = g_uri_parse (a, G_URI_FLAGS_ENCODED_QUERY, NULL);
  g_autoptr(GUri) ub = g_uri_parse (b, G_URI_FLAGS_ENCODED_QUERY, NULL);

  return ua != NULL && ub != NULL &&
         g_uri_get_host (ua) != NULL && g_uri_get_host (ub) != NULL &&
         g_ascii_strcasecmp (g_uri_get_scheme (ua), g_uri_get_scheme (ub)) == 0 &&
         g_ascii_strcasecmp (g_uri_get_host (ua), g_uri_get_host (ub)) == 0 &&
         uri_port (ua) == uri_port (ub);
}

/* What a person typed or pasted as @endpoint's token, in *@token: the
 * token itself, or what `serve` prints, the whole address with its token
 * (a person pastes that), whose token is taken only for @endpoint's own
 * address: another address's token is not sent there.  FALSE, and the
 * window told why, when the text is an address that gives no token. */
gboolean
_pd_window_token_from_pasted (PdWindow    *self,
                              const char  *endpoint,
                              char       **token)
{
  g_autofree char *from_url = NULL;
  g_autofree char *base = NULL;

  if (!g_str_has_prefix (*token, "http://") && !g_str_has_prefix (*token, "https://"))
    return TRUE;
  base = pd_window_split_endpoint_url (*token, &from_url);
  if (endpoint == NULL || !same_endpoint (base, endpoint))
    {
      pd_window_show_message (self, _("That address is not this window’s endpoint: paste its token, or use Connect to Endpoint"));
      return FALSE;
    }
  if (from_url == NULL || from_url[0] == '\0')
    {
      pd_window_show_message (self, _("That address has no token: paste the address serve printed, or the token alone"));
      return FALSE;
    }
  explicit_bzero (*token, strlen (*token));
  g_free (*token);
  *token = g_steal_pointer (&from_url);
  return TRUE;
}

/* win.use-token: the token entered in the banner, for a server that
 * refused the old one (or was given none). */
void
_pd_window_use_token_action (GtkWidget  *widget,
                             const char *action_name,
                             GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);
  g_autofree char *token = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->token_entry))));

  if (token[0] == '\0')
    return;

  if (!_pd_window_token_from_pasted (self, self->remote_url, &token))
    return;
  if (self->remote_url == NULL)
    return;
  _pd_window_forget_typed_token (self);
  self->typed_token = g_strdup (token);
  self->token_for_run = FALSE;
  pd_window_set_remote_token (self, token);
  /* The same token again, while connected with it: accepted already. */
  _pd_window_check_typed_token (self);
  explicit_bzero (token, strlen (token));
}
