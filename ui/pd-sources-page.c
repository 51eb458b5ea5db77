/* pd-sources-page.c: the Sources page of Preferences
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The endpoints the main window shows beside this computer's database:
 * the `sources` setting, a list of (id, name, URL).  Adding one checks its
 * address first (an http:// or https:// URL with a host; a bad one is said
 * under the fields and nothing is saved); the URL is kept without its
 * token, which goes to the secret store keyed by the URL (pd-secrets), as
 * does a token typed later.  An endpoint renamed keeps its id; one removed
 * can be put back from the toast's Undo.
 *
 * A token written into an address in the setting by hand (or by anything
 * but this page: `('e5', 'R', 'http://…/?token=S')`) was used as the
 * token and stayed there in clear.  The window moves it out when it reads
 * the setting (pd_sources_move_url_tokens()): the address is rewritten
 * without it, and the token is given as this page gives one, used at once
 * and kept in the secret store once the endpoint took it; with no keyring
 * it is kept for the session and this page says it will be lost.
 */
#define G_LOG_DOMAIN "pd-sources-page"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "pd-entry-row.h"
#include "pd-remote-source.h"
#include "pd-remote-url.h"
#include "pd-reader-rows.h"
#include "pd-secrets.h"
#include "pd-sources-page.h"
#include "pd-ui-util-private.h"
#include "pd-window.h"

struct _PdSourcesPage
{
  AdwPreferencesPage   parent_instance;

  GSettings           *settings;
  AdwPreferencesGroup *list_group;
  GPtrArray           *rows;          /* the list group's rows, removed on a rebuild */
  PdEntryRow          *url_row;
  PdEntryRow          *name_row;
  PdEntryRow          *token_row;
  GtkLabel            *error_label;
  GtkLabel            *unkept_label;
  GtkWidget           *empty_row;
};

G_DEFINE_FINAL_TYPE (PdSourcesPage, pd_sources_page, ADW_TYPE_PREFERENCES_PAGE)

/* Addresses whose token was moved out of the setting but that no keyring
 * could keep (address → why), and the pages that say so. */
static GHashTable *unkept_tokens;
static GList *live_pages;

static void pd_sources_page_show_unkept (PdSourcesPage *self);
static void pd_sources_give_token_as_spelled (const char *url,
                                              const char *token);

static void
pd_sources_note_unkept (const char *url,
                        const char *why)
{
  gboolean changed = TRUE;

  if (unkept_tokens == NULL)
    unkept_tokens = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (why != NULL)
    g_hash_table_replace (unkept_tokens, g_strdup (url), g_strdup (why));
  else
    changed = g_hash_table_remove (unkept_tokens, url);
  if (changed)
    for (GList *l = live_pages; l != NULL; l = l->next)
      pd_sources_page_show_unkept (l->data);
}

/**
 * pd_sources_dup_unkept_warning:
 *
 * Returns: (transfer full) (nullable): what Preferences → Sources says of
 *   tokens moved out of the setting that no keyring could keep; %NULL when
 *   there are none
 */
char *
pd_sources_dup_unkept_warning (void)
{
  g_autoptr(GString) urls = g_string_new (NULL);
  g_autoptr(GString) refused = g_string_new (NULL);
  GHashTableIter iter;
  gpointer url;

  if (unkept_tokens == NULL || g_hash_table_size (unkept_tokens) == 0)
    return NULL;
  g_hash_table_iter_init (&iter, unkept_tokens);
  while (g_hash_table_iter_next (&iter, &url, NULL))
    {
      /* A token the endpoint refuses since is not "used now" (tried as a
       * new user would, with serve started again with another token). */
      GString *to = pd_windows_endpoint_refused (url) ? refused : urls;

      g_string_append_printf (to, "%s%s", to->len > 0 ? ", " : "", (const char *) url);
    }
  {
    g_autofree char *used = NULL;
    g_autofree char *denied = NULL;

    /* Said once, in words: the keyring's own error (a sentence of its own,
     * with the bus's words in it) goes to the log, as the Connect to
     * Endpoint toast's does.  Translators: %s is one or more endpoint addresses */
    if (urls->len > 0)
      used = g_strdup_printf (_("No keyring could keep the token of %s. It is used now, but it is lost when "
                                "Plandeck quits, and the token is not in the settings either. Enter it under New "
                                "Token once a keyring is available."), urls->str);
    if (refused->len > 0)
      /* Translators: %s is one or more endpoint addresses */
      denied = g_strdup_printf (_("%s refused the token that no keyring could keep. Enter the new token under "
                                  "New Token."), refused->str);
    return g_strjoin (" ", used != NULL ? used : denied, used != NULL ? denied : NULL, NULL);
  }
}

/**
 * pd_sources_move_url_tokens:
 * @settings: the application's settings
 *
 * Takes every token parameter (any case of its name, as
 * pd_window_split_endpoint_url() takes it) out of the addresses of the
 * `sources` setting, and the setting is written again without them.  Each
 * token is given as Preferences gives one: used at once (kept for this
 * session, given to the windows showing the endpoint, and looked up before
 * the keyring's: pd_sources_lookup_token_finish()) and kept in the secret store for its
 * address once the endpoint took it, never when refused.  It went to the
 * keyring before the endpoint had checked it, and a mistyped one was sent
 * again at every start (tried as an attacker would, with gsettings).
 *
 * Returns: whether the setting held one (and was written again)
 */
gboolean
pd_sources_move_url_tokens (GSettings *settings)
{
  g_autoptr(GVariant) configured = g_settings_get_value (settings, "sources");
  GVariantBuilder builder;
  GVariantIter iter;
  const char *id;
  const char *name;
  const char *url;
  gboolean moved = FALSE;
  g_autoptr(GPtrArray) given = g_ptr_array_new_with_free_func (g_free);   /* address, token, … */

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sss)"));
  g_variant_iter_init (&iter, configured);
  while (g_variant_iter_next (&iter, "(&s&s&s)", &id, &name, &url))
    {
      g_autofree char *token = NULL;
      g_autofree char *base = pd_window_split_endpoint_url (url, &token);

      if (g_strcmp0 (base, url) != 0 || token != NULL)
        {
          moved = TRUE;
          if (token != NULL && token[0] != '\0')
            {
              g_ptr_array_add (given, g_strdup (base));
              g_ptr_array_add (given, g_steal_pointer (&token));
            }
          if (token != NULL)
            explicit_bzero (token, strlen (token));
        }
      /* A name left empty showed the address: not the one with its token. */
      g_variant_builder_add (&builder, "(sss)", id, g_strcmp0 (name, url) == 0 ? base : name, base);
    }
  if (!moved)
    {
      g_variant_builder_clear (&builder);
      return FALSE;
    }
  /* Out of the setting first; then given, under the address as the
   * setting spells it (what the window looks it up by). */
  g_settings_set_value (settings, "sources", g_variant_builder_end (&builder));
  for (guint i = 0; i + 1 < given->len; i += 2)
    {
      char *token = g_ptr_array_index (given, i + 1);

      pd_sources_give_token_as_spelled (g_ptr_array_index (given, i), token);
      explicit_bzero (token, strlen (token));
    }
  return TRUE;
}
/* --- tokens ------------------------------------------------------------ */

static void
on_token_stored (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  g_autofree char *url = user_data;

  /* Without a keyring the token is kept until Plandeck quits, and
   * Preferences says so: a fresh keyring without its login collection
   * lost every token at the next start with a word only on stderr (tried
   * as a new user would). */
  if (!pd_secrets_store_token_finish (result, &error))
    {
      g_message ("%s", error->message);
      pd_sources_note_unkept (url, error->message);
    }
  else
    pd_sources_note_unkept (url, NULL);
}

/* A token given is kept in the keyring once the endpoint took it: a
 * mistyped one, on the endpoint's page or in Preferences, went to the
 * keyring before the server had checked it, and the next start sent it
 * again (tried as a new user would).  It is asked with a probe of its own
 * (serve checks the token on every request), whatever window shows the
 * endpoint, or none yet (an endpoint being added); while the endpoint does
 * not answer, asked again after a growing wait.  A newer token given for
 * the address ends the check of the older. */
#define TOKEN_CHECK_FIRST_MS 2000
#define TOKEN_CHECK_MAX_MS   60000

typedef struct
{
  char           *url;
  char           *token;
  PdRemoteSource *probe;
  GCancellable   *cancellable;
  guint           retry;
  guint           wait_ms;
} TokenCheck;

static GHashTable *token_checks;   /* url → TokenCheck */

static void
token_check_free (TokenCheck *check)
{
  g_cancellable_cancel (check->cancellable);
  g_clear_object (&check->cancellable);
  g_clear_handle_id (&check->retry, g_source_remove);
  g_clear_object (&check->probe);
  explicit_bzero (check->token, strlen (check->token));
  g_free (check->token);
  g_free (check->url);
  g_free (check);
}

static void token_check_ask (TokenCheck *check);

static gboolean
on_token_check_retry (gpointer data)
{
  TokenCheck *check = data;

  check->retry = 0;
  token_check_ask (check);
  return G_SOURCE_REMOVE;
}

static void
on_token_checked (GObject      *object,
                  GAsyncResult *result,
                  gpointer      data)
{
  TokenCheck *check = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionPage) page = pd_source_list_sessions_finish (PD_SOURCE (object), result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (page == NULL && !g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_DENIED) &&
      pd_remote_source_get_state (check->probe) == PD_REMOTE_OFFLINE)
    {
      g_debug ("%s: the token is kept once it answers (%s)", check->url, error->message);
      check->retry = g_timeout_add (check->wait_ms, on_token_check_retry, check);
      check->wait_ms = MIN (check->wait_ms * 2, TOKEN_CHECK_MAX_MS);
      return;
    }
  /* Answered: taken, kept; refused (or answered so that nothing tells),
   * not kept. */
  if (page != NULL)
    pd_secrets_store_token_async (check->url, check->token, on_token_stored, g_strdup (check->url));
  else
    g_debug ("%s: the token given is not kept (%s)", check->url, error->message);
  g_hash_table_remove (token_checks, check->url);
}

static void
token_check_ask (TokenCheck *check)
{
  pd_source_list_sessions_async (PD_SOURCE (check->probe), NULL, FALSE, 0, 1, check->cancellable,
                                 on_token_checked, check);
}

static void
pd_sources_keep_token_once_taken (const char *url,
                                  const char *token)
{
  g_autoptr(GError) error = NULL;
  TokenCheck *check;

  if (token_checks == NULL)
    token_checks = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) token_check_free);
  g_hash_table_remove (token_checks, url);
  check = g_new0 (TokenCheck, 1);
  check->url = g_strdup (url);
  check->token = g_strdup (token);
  check->cancellable = g_cancellable_new ();
  check->wait_ms = TOKEN_CHECK_FIRST_MS;
  check->probe = pd_remote_source_new (url, token, &error);
  if (check->probe == NULL)
    {
      g_debug ("%s: %s", url, error->message);
      token_check_free (check);
      return;
    }
  g_hash_table_insert (token_checks, check->url, check);
  token_check_ask (check);
}

/**
 * pd_sources_token_check_pending:
 *
 * Returns: whether a token given for @url waits for the endpoint to take
 *   it before it is kept in the keyring
 */
gboolean
pd_sources_token_check_pending (const char *url)
{
  return token_checks != NULL && g_hash_table_contains (token_checks, url);
}

/* Tokens written into the setting, moved out of it (address as the
 * setting spells it → token): the ones the windows use for this session,
 * taken or not, until another is given for the address. */
static GHashTable *written_tokens;

/**
 * pd_sources_lookup_token_finish:
 * @url: the address pd_secrets_lookup_token_async() was asked for
 *
 * The token a window uses for @url: one written into the setting (and
 * moved out of it as the window read it) before the keyring's, which keeps
 * one only once the endpoint took it and may hold an older one.
 *
 * Returns: (transfer full) (nullable): as pd_secrets_lookup_token_finish()
 */
char *
pd_sources_lookup_token_finish (GAsyncResult  *result,
                                const char    *url,
                                GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  g_autofree char *kept = pd_secrets_lookup_token_finish (result, &local_error);
  const char *written = written_tokens != NULL ? g_hash_table_lookup (written_tokens, url) : NULL;

  if (written == NULL)
    {
      if (local_error != NULL)
        g_propagate_error (error, g_steal_pointer (&local_error));
      return g_steal_pointer (&kept);
    }
  if (kept != NULL)
    explicit_bzero (kept, strlen (kept));
  return g_strdup (written);
}

/**
 * pd_sources_page_set_token:
 * @token: (nullable): the endpoint's token; empty or %NULL removes it
 *
 * Keeps @token for @url in the secret store (never in GSettings), and the
 * windows showing that endpoint use it at once.
 */
void
pd_sources_page_set_token (PdSourcesPage *self,
                           const char    *url,
                           const char    *token)
{
  g_return_if_fail (PD_IS_SOURCES_PAGE (self));

  pd_sources_give_token (url, token);
}

/* The windows showing the endpoint at @url use @token at once. */
static void
give_token_to_windows (const char *url,
                       const char *token)
{
  GApplication *app = g_application_get_default ();

  if (app != NULL && GTK_IS_APPLICATION (app))
    for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
      if (PD_IS_WINDOW (l->data))
        pd_window_set_endpoint_token (PD_WINDOW (l->data), url, token);
}

/**
 * pd_sources_give_token:
 * @token: (nullable): the endpoint's token; empty or %NULL removes it
 *
 * As pd_sources_page_set_token(), from anywhere (the endpoint page of the
 * main window).
 */
void
pd_sources_give_token (const char *url,
                       const char *token)
{
  g_return_if_fail (url != NULL);

  if (token != NULL && token[0] == '\0')
    token = NULL;
  if (written_tokens != NULL)
    g_hash_table_remove (written_tokens, url);
  /* Removed at once; a new one kept once the endpoint took it. */
  if (token != NULL)
    pd_sources_keep_token_once_taken (url, token);
  else
    {
      if (token_checks != NULL)
        g_hash_table_remove (token_checks, url);
      pd_secrets_store_token_async (url, "", on_token_stored, g_strdup (url));
    }
  pd_secrets_keep_for_session (url, token);
  give_token_to_windows (url, token);
}

/* A token moved out of the setting: given as pd_sources_give_token()
 * gives one, under the address as the setting spells it (the window looks
 * its token up by that), and to the windows, which know the endpoint by
 * its address without a path ("http://host:port/" is "http://host:port"). */
static void
pd_sources_give_token_as_spelled (const char *url,
                                  const char *token)
{
  g_autoptr(PdRemoteSource) probe = pd_remote_source_new (url, NULL, NULL);

  pd_sources_give_token (url, token);
  if (written_tokens == NULL)
    written_tokens = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_replace (written_tokens, g_strdup (url), g_strdup (token));
  if (probe != NULL && g_strcmp0 (pd_remote_source_get_base_url (probe), url) != 0)
    give_token_to_windows (pd_remote_source_get_base_url (probe), token);
}

/* --- the setting ------------------------------------------------------- */

static GVariant *
pd_sources_page_build (GVariant   *configured,
                       const char *skip_id,
                       const char *rename_id,
                       const char *new_name,
                       guint       insert_at,
                       const char *insert_id,
                       const char *insert_name,
                       const char *insert_url)
{
  GVariantBuilder builder;
  GVariantIter iter;
  const char *id;
  const char *name;
  const char *url;
  guint i = 0;

  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sss)"));
  g_variant_iter_init (&iter, configured);
  while (g_variant_iter_next (&iter, "(&s&s&s)", &id, &name, &url))
    {
      if (insert_id != NULL && i == insert_at)
        g_variant_builder_add (&builder, "(sss)", insert_id, insert_name, insert_url);
      i++;
      if (g_strcmp0 (id, skip_id) == 0)
        continue;
      g_variant_builder_add (&builder, "(sss)", id,
                             g_strcmp0 (id, rename_id) == 0 ? new_name : name, url);
    }
  if (insert_id != NULL && insert_at >= i)
    g_variant_builder_add (&builder, "(sss)", insert_id, insert_name, insert_url);
  return g_variant_builder_end (&builder);
}

/* The address as the window keeps it: scheme, host and port; its token,
 * if it has one, apart. */
static char *
pd_sources_page_check_url (const char  *text,
                           char       **token,
                           GError     **error)
{
  g_autofree char *stripped = g_strstrip (g_strdup (text != NULL ? text : ""));
  g_autofree char *base = NULL;
  g_autoptr(PdRemoteSource) probe = NULL;
  g_autoptr(GError) local_error = NULL;

  if (stripped[0] == '\0')
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("Enter the endpoint’s address, as serve prints it: http://HOST:PORT/"));
      return NULL;
    }
  /* HOST:PORT as one says it, without its scheme: http:// (it was
   * refused, tried as a new user would). */
  if (strstr (stripped, "://") == NULL)
    {
      char *with_scheme = g_strconcat ("http://", stripped, NULL);

      g_free (stripped);
      stripped = with_scheme;
    }
  base = pd_window_split_endpoint_url (stripped, token);
  probe = pd_remote_source_new (base, NULL, &local_error);
  /* Said as what it is: it read "must start with http://" of an address
   * that did, with a port of 99999 (tried as a new user would). */
  if (g_error_matches (local_error, G_URI_ERROR, G_URI_ERROR_BAD_PORT))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      if (token != NULL)
        g_clear_pointer (token, g_free);
      return NULL;
    }
  if (probe == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   /* Translators: %s is what the user typed */
                   _("“%s” is not an endpoint address: it must start with http:// or https:// and name a host"),
                   base);
      if (token != NULL)
        g_clear_pointer (token, g_free);
      return NULL;
    }
  return g_strdup (pd_remote_source_get_base_url (probe));
}

/**
 * pd_sources_page_add:
 * @url: the endpoint's address, perhaps with `?token=…` as serve prints it
 * @name: (nullable): its name; empty or %NULL: the address
 * @token: (nullable): its token, kept in the secret store
 *
 * Returns: (transfer full) (nullable): the new endpoint's id, %NULL with
 *   @error when the address is not one (nothing is saved then)
 */
char *
pd_sources_page_add (PdSourcesPage *self,
                     const char    *url,
                     const char    *name,
                     const char    *token,
                     GError       **error)
{
  g_autofree char *url_token = NULL;
  g_autofree char *base = NULL;
  g_autofree char *id = NULL;
  g_autofree char *clean_name = NULL;
  g_autoptr(GVariant) configured = NULL;
  g_autofree char *key = NULL;
  GVariantIter iter;
  const char *other_name;
  const char *other_url;

  g_return_val_if_fail (PD_IS_SOURCES_PAGE (self), NULL);

  base = pd_sources_page_check_url (url, &url_token, error);
  if (base == NULL)
    return NULL;

  /* One endpoint under two spellings (localhost beside 127.0.0.1, [::1],
   * a slash, the default port) showed every session and card twice. */
  key = pd_remote_url_dup_key (base);
  configured = g_settings_get_value (self->settings, "sources");
  g_variant_iter_init (&iter, configured);
  while (g_variant_iter_next (&iter, "(&s&s&s)", NULL, &other_name, &other_url))
    {
      g_autofree char *other_key = pd_remote_url_dup_key (other_url);

      if (g_strcmp0 (other_url, base) == 0 || (key != NULL && g_strcmp0 (other_key, key) == 0))
        {
          g_autofree char *safe_name = _pd_isolated_short (other_name[0] != '\0' ? other_name : other_url, 80);

          g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                       /* Translators: the address typed, then the name and address of the endpoint in the list */
                       _("%s is the endpoint “%s” (%s), which is in the list already"),
                       base, safe_name, other_url);
          return NULL;
        }
    }

  clean_name = g_strstrip (g_strdup (name != NULL ? name : ""));
  if (clean_name[0] == '\0')
    {
      g_free (clean_name);
      clean_name = g_strdup (base);
    }
  id = g_uuid_string_random ();

  if (token == NULL || token[0] == '\0')
    token = url_token;
  if (token != NULL && token[0] != '\0')
    pd_sources_page_set_token (self, base, token);

  g_settings_set_value (self->settings, "sources",
                        pd_sources_page_build (configured, NULL, NULL, NULL, G_MAXUINT, id, clean_name, base));
  return g_steal_pointer (&id);
}

gboolean
pd_sources_page_rename (PdSourcesPage *self,
                        const char    *id,
                        const char    *name)
{
  g_autoptr(GVariant) configured = NULL;
  g_autofree char *clean = g_strstrip (g_strdup (name != NULL ? name : ""));

  g_return_val_if_fail (PD_IS_SOURCES_PAGE (self), FALSE);

  if (clean[0] == '\0')
    return FALSE;
  configured = g_settings_get_value (self->settings, "sources");
  g_settings_set_value (self->settings, "sources",
                        pd_sources_page_build (configured, NULL, id, clean, 0, NULL, NULL, NULL));
  return TRUE;
}

typedef struct
{
  GWeakRef  page;
  guint     position;
  char     *id;
  char     *name;
  char     *url;
} Removed;

static void
removed_free (gpointer data)
{
  Removed *removed = data;

  g_weak_ref_clear (&removed->page);
  g_free (removed->id);
  g_free (removed->name);
  g_free (removed->url);
  g_free (removed);
}

static void
on_undo_remove (AdwToast *toast,
                Removed  *removed)
{
  g_autoptr(PdSourcesPage) self = g_weak_ref_get (&removed->page);
  g_autoptr(GVariant) configured = NULL;

  if (self == NULL)
    return;
  configured = g_settings_get_value (self->settings, "sources");
  g_settings_set_value (self->settings, "sources",
                        pd_sources_page_build (configured, NULL, NULL, NULL, removed->position,
                                               removed->id, removed->name, removed->url));
}

/**
 * pd_sources_page_remove:
 *
 * Removes the endpoint @id from the list; a toast offers to put it back.
 * Its token stays in the secret store (for the address, which may be
 * added again).
 */
gboolean
pd_sources_page_remove (PdSourcesPage *self,
                        const char    *id)
{
  g_autoptr(GVariant) configured = NULL;
  GVariantIter iter;
  const char *other_id;
  const char *name;
  const char *url;
  Removed *removed = NULL;
  guint i = 0;

  g_return_val_if_fail (PD_IS_SOURCES_PAGE (self), FALSE);

  configured = g_settings_get_value (self->settings, "sources");
  g_variant_iter_init (&iter, configured);
  while (g_variant_iter_next (&iter, "(&s&s&s)", &other_id, &name, &url))
    {
      if (g_strcmp0 (other_id, id) == 0)
        {
          removed = g_new0 (Removed, 1);
          g_weak_ref_init (&removed->page, self);
          removed->position = i;
          removed->id = g_strdup (other_id);
          removed->name = g_strdup (name);
          removed->url = g_strdup (url);
          break;
        }
      i++;
    }
  if (removed == NULL)
    return FALSE;

  g_settings_set_value (self->settings, "sources",
                        pd_sources_page_build (configured, id, NULL, NULL, 0, NULL, NULL, NULL));

  {
    GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
    g_autofree char *escaped = g_markup_escape_text (removed->name, -1);
    /* Translators: a toast; %s is an endpoint's name */
    g_autofree char *title = g_strdup_printf (_("%s removed"), escaped);
    AdwToast *toast = adw_toast_new (title);

    adw_toast_set_button_label (toast, _("_Undo"));
    g_signal_connect_data (toast, "button-clicked", G_CALLBACK (on_undo_remove), removed,
                           (GClosureNotify) (void (*) (void)) removed_free, 0);
    if (root != NULL && ADW_IS_PREFERENCES_WINDOW (root))
      _pd_toast_add (GTK_WIDGET (root), toast);
    else
      g_object_unref (g_object_ref_sink (toast));
  }
  return TRUE;
}

/* --- the rows ---------------------------------------------------------- */

static void
on_name_apply (PdEntryRow    *row,
               PdSourcesPage *self)
{
  pd_sources_page_rename (self, g_object_get_data (G_OBJECT (row), "pd-source-id"),
                          gtk_editable_get_text (GTK_EDITABLE (row)));
}

static void
on_token_apply (PdEntryRow    *row,
                PdSourcesPage *self)
{
  g_autofree char *token = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (row))));

  pd_sources_page_set_token (self, g_object_get_data (G_OBJECT (row), "pd-source-url"), token);
  gtk_editable_set_text (GTK_EDITABLE (row), "");
  memset (token, 0, strlen (token));
}

static void
on_remove_clicked (GtkButton     *button,
                   PdSourcesPage *self)
{
  g_autofree char *id = g_strdup (g_object_get_data (G_OBJECT (button), "pd-source-id"));

  pd_sources_page_remove (self, id);
}

/* GTK 4.8 names a mnemonic button by its name and again by its label
 * ("Remove Build box Remove", found by the sources test): named once
 * shown, by its endpoint alone. */
static void
name_remove_button (GtkWidget *remove)
{
  _pd_accessible_set_text (remove, g_object_get_data (G_OBJECT (remove), "pd-remove-name"), NULL);
  gtk_accessible_reset_relation (GTK_ACCESSIBLE (remove), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
}

static void
on_has_token (GObject      *object,
              GAsyncResult *result,
              gpointer      data)
{
  GWeakRef *row_ref = data;
  g_autoptr(GtkWidget) row = g_weak_ref_get (row_ref);

  if (pd_secrets_has_token_finish (result, NULL) && row != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("Its token stays in the keyring"));
  g_weak_ref_clear (row_ref);
  g_free (row_ref);
}

/* Removing an endpoint leaves its token in the keyring: said under Remove
 * once the keyring says it has one.  It was said of endpoints added
 * without a token too (tried as a new user would). */
static void
pd_sources_page_say_token_stays (GtkWidget  *remove_row,
                                 const char *url)
{
  GWeakRef *row_ref = g_new0 (GWeakRef, 1);

  g_weak_ref_init (row_ref, remove_row);
  pd_secrets_has_token_async (url, on_has_token, row_ref);
}

static void pd_sources_page_sync_empty (PdSourcesPage *self);

static void
pd_sources_page_rebuild (PdSourcesPage *self)
{
  g_autoptr(GVariant) configured = g_settings_get_value (self->settings, "sources");
  GVariantIter iter;
  const char *id;
  const char *name;
  const char *url;

  for (guint i = 0; i < self->rows->len; i++)
    adw_preferences_group_remove (self->list_group, g_ptr_array_index (self->rows, i));
  g_ptr_array_set_size (self->rows, 0);

  g_variant_iter_init (&iter, configured);
  while (g_variant_iter_next (&iter, "(&s&s&s)", &id, &name, &url))
    {
      GtkWidget *expander = adw_expander_row_new ();
      GtkWidget *name_row = pd_entry_row_new ();
      GtkWidget *token_row = pd_entry_row_new_password ();
      GtkWidget *remove_row = adw_action_row_new ();
      GtkWidget *remove = gtk_button_new_with_mnemonic (_("_Remove"));
      g_autofree char *title = g_markup_escape_text (name, -1);
      g_autofree char *subtitle = g_markup_escape_text (url, -1);
      /* Translators: the accessible name of an endpoint's Remove button; %s is its name */
      g_autofree char *remove_name = g_strdup_printf (_("Remove %s"), name);

      /* Titles and subtitles of rows are markup. */
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (expander), title);
      adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (expander), subtitle);
      /* Opened by pd_preferences_window_show_endpoint(). */
      g_object_set_data_full (G_OBJECT (expander), "pd-source-url", g_strdup (url), g_free);
      g_object_set_data (G_OBJECT (expander), "pd-token-row", token_row);

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (name_row), _("Name"));
      gtk_editable_set_text (GTK_EDITABLE (name_row), name);
      pd_entry_row_set_show_apply_button (PD_ENTRY_ROW (name_row), TRUE);
      g_object_set_data_full (G_OBJECT (name_row), "pd-source-id", g_strdup (id), g_free);
      g_signal_connect (name_row, "apply", G_CALLBACK (on_name_apply), self);
      adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), name_row);

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (token_row), _("New Token"));
      pd_entry_row_set_show_apply_button (PD_ENTRY_ROW (token_row), TRUE);
      g_object_set_data_full (G_OBJECT (token_row), "pd-source-url", g_strdup (url), g_free);
      g_signal_connect (token_row, "apply", G_CALLBACK (on_token_apply), self);
      adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), token_row);
      pd_entry_row_align_fields (PD_ENTRY_ROW (name_row), PD_ENTRY_ROW (token_row), NULL);

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (remove_row), _("Remove from the Window"));
      /* Named by its endpoint, as its button is: each endpoint's row read
       * "Remove from the Window" alike (tried with a screen reader's
       * view). */
      gtk_accessible_reset_relation (GTK_ACCESSIBLE (remove_row), GTK_ACCESSIBLE_RELATION_LABELLED_BY);
      _pd_accessible_set_text (remove_row, remove_name, NULL);
      pd_sources_page_say_token_stays (remove_row, url);
      gtk_widget_set_valign (remove, GTK_ALIGN_CENTER);
      gtk_widget_add_css_class (remove, "destructive-action");
      g_object_set_data_full (G_OBJECT (remove), "pd-remove-name", g_strdup (remove_name), g_free);
      /* Named by name_remove_button(), not by its mnemonic label. */
      g_object_set_data (G_OBJECT (remove), "pd-own-name", GINT_TO_POINTER (TRUE));
      g_signal_connect (remove, "map", G_CALLBACK (name_remove_button), NULL);
      g_object_set_data_full (G_OBJECT (remove), "pd-source-id", g_strdup (id), g_free);
      g_signal_connect (remove, "clicked", G_CALLBACK (on_remove_clicked), self);
      adw_action_row_add_suffix (ADW_ACTION_ROW (remove_row), remove);
      adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), remove_row);
      /* In its row: named as a collapsed endpoint's button is met too. */
      name_remove_button (remove);

      /* Named by its endpoint, open or closed said, as a profile's: it was
       * an unnamed list item (found by the name walk). */
      _pd_expander_row_for_readers (ADW_EXPANDER_ROW (expander));
      adw_preferences_group_add (self->list_group, expander);
      g_ptr_array_add (self->rows, expander);
    }

  if (self->rows->len == 0)
    {
      pd_sources_page_sync_empty (self);
      adw_preferences_group_add (self->list_group, self->empty_row);
      g_ptr_array_add (self->rows, self->empty_row);
    }
}

/* No endpoint in the list, in a window opened with --remote on one: "No
 * endpoints yet" read as if that window's endpoint were not there (tried
 * as a new user would).  It is named, and how to keep it. */
static void
pd_sources_page_sync_empty (PdSourcesPage *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWindow *parent = GTK_IS_WINDOW (root) ? gtk_window_get_transient_for (GTK_WINDOW (root)) : NULL;
  PdSource *source = PD_IS_WINDOW (parent) ? pd_window_get_source (PD_WINDOW (parent)) : NULL;

  if (source != NULL && PD_IS_REMOTE_SOURCE (source))
    {
      /* Translators: %s is the endpoint's address, http://HOST:PORT */
      g_autofree char *title = g_strdup_printf (_("Open in this window: %s"),
                                                pd_remote_source_get_base_url (PD_REMOTE_SOURCE (source)));

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->empty_row), title);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (self->empty_row),
                                   _("Opened with --remote and not kept: add it below to list it in every window"));
    }
  else
    {
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->empty_row), _("No endpoints yet"));
      adw_action_row_set_subtitle (ADW_ACTION_ROW (self->empty_row), NULL);
    }
}

/* A window opened with --db FILE or --remote URL shows what it names alone:
 * an endpoint added here went to the list and to no window in sight, its
 * row with no state, and nothing said why (tried as a new user would).
 * The page says so there, and where they are shown. */
static void
pd_sources_page_sync_window (PdSourcesPage *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWindow *parent = GTK_IS_WINDOW (root) ? gtk_window_get_transient_for (GTK_WINDOW (root)) : NULL;
  gboolean with_endpoints = TRUE;
  const char *shown = NULL;
  g_autofree char *note = NULL;

  pd_sources_page_sync_empty (self);
  if (PD_IS_WINDOW (parent))
    {
      g_object_get (parent, "with-endpoints", &with_endpoints, NULL);
      shown = pd_window_get_remote_url (PD_WINDOW (parent));
      if (shown == NULL)
        shown = pd_window_get_database_path (PD_WINDOW (parent));
    }
  if (!with_endpoints && shown != NULL)
    /* Translators: %s is a database file or an endpoint's address, the one
     * a window opened with --db or --remote shows */
    note = g_strdup_printf (_("This window shows only %s. Endpoints added here are shown, with their state, "
                              "in the main window: Plandeck started without --db or --remote."), shown);
  /* The description is markup: a file name is not. */
  if (note != NULL)
    {
      g_autofree char *escaped = g_markup_escape_text (note, -1);

      adw_preferences_group_set_description (self->list_group, escaped);
    }
  else
    adw_preferences_group_set_description (self->list_group,
                                           _("Shown in the main window beside this computer’s sessions, with their state"));
}

static void
pd_sources_page_show_unkept (PdSourcesPage *self)
{
  g_autofree char *warning = pd_sources_dup_unkept_warning ();

  GtkWidget *note = gtk_widget_get_parent (GTK_WIDGET (self->unkept_label));

  gtk_label_set_text (self->unkept_label, warning != NULL ? warning : "");
  gtk_accessible_update_property (GTK_ACCESSIBLE (note), GTK_ACCESSIBLE_PROPERTY_LABEL, warning ? warning : "", -1);
  gtk_widget_set_visible (note, warning != NULL);
}

/* The Address row without its `token=` parameter, which goes to the Token
 * row unless a token was typed there already. */
static void
pd_sources_page_hide_url_token (PdSourcesPage *self)
{
  g_autofree char *url_token = NULL;
  g_autofree char *base = pd_window_split_endpoint_url (gtk_editable_get_text (GTK_EDITABLE (self->url_row)),
                                                        &url_token);

  if (url_token == NULL)
    return;
  gtk_editable_set_text (GTK_EDITABLE (self->url_row), base);
  if (gtk_editable_get_text (GTK_EDITABLE (self->token_row))[0] == '\0')
    gtk_editable_set_text (GTK_EDITABLE (self->token_row), url_token);
  memset (url_token, 0, strlen (url_token));
}

/* The address edited: its error goes as it is typed (it stayed in red
 * until Add was pressed again, tried as a new user would). */
static void
on_url_changed (PdSourcesPage *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
  gtk_widget_remove_css_class (GTK_WIDGET (self->url_row), "error");
  gtk_widget_remove_css_class (pd_entry_row_get_entry (self->url_row), "error");
}

/* Once the error is laid out, the page scrolls so that all of it is in
 * sight (the viewport's scroll-to-focus ran before the label, just shown,
 * had a place).  Done once, then removed. */
static gboolean
scroll_to_error (GtkWidget     *label,
                 GdkFrameClock *clock,
                 gpointer       user_data)
{
  GtkWidget *scroller = gtk_widget_get_ancestor (label, GTK_TYPE_SCROLLED_WINDOW);
  GtkWidget *viewport = scroller != NULL ? gtk_scrolled_window_get_child (GTK_SCROLLED_WINDOW (scroller)) : NULL;
  GtkAdjustment *adjustment;
  graphene_rect_t bounds;
  double value;

  if (viewport == NULL || !gtk_widget_get_visible (label))
    return G_SOURCE_REMOVE;
  if (gtk_widget_get_height (label) == 0 || !gtk_widget_compute_bounds (label, viewport, &bounds))
    return G_SOURCE_CONTINUE;
  adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));
  value = gtk_adjustment_get_value (adjustment);
  /* Set, not clamped: setting ends the scroll the viewport animates to
   * its focus child, which went by the label's place before it was laid
   * out and took the page back up after. */
  if (bounds.origin.y + bounds.size.height > gtk_adjustment_get_page_size (adjustment))
    gtk_adjustment_set_value (adjustment, value + bounds.origin.y + bounds.size.height
                                          - gtk_adjustment_get_page_size (adjustment));
  else if (bounds.origin.y < 0)
    gtk_adjustment_set_value (adjustment, value + bounds.origin.y);
  else
    gtk_adjustment_set_value (adjustment, value);
  return G_SOURCE_REMOVE;
}

/* Refused: the error is brought into sight.  It came under the Token
 * field, below the page's fold when the list of endpoints is long or the
 * window short, and nothing seemed to happen (tried as a new user would).
 * The focus goes to the address, to be corrected, which the error
 * describes; an alert, the error is said as it appears.  It took the focus
 * itself, selectable, and showed a text cursor in red (tried as a new user
 * would). */
static void
pd_sources_page_show_error (PdSourcesPage *self,
                            const char    *message)
{
  GtkWidget *label = GTK_WIDGET (self->error_label);

  gtk_label_set_text (self->error_label, message);
  gtk_widget_set_visible (label, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->url_row), "error");
  gtk_widget_add_css_class (pd_entry_row_get_entry (self->url_row), "error");
  gtk_widget_grab_focus (GTK_WIDGET (self->url_row));
  /* Not all selected, to be replaced by the first key: to be corrected. */
  gtk_editable_set_position (GTK_EDITABLE (self->url_row), -1);
  gtk_widget_add_tick_callback (label, scroll_to_error, NULL, NULL);
}

static void
on_add_clicked (PdSourcesPage *self)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *token = g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->token_row)));
  g_autofree char *id = pd_sources_page_add (self, gtk_editable_get_text (GTK_EDITABLE (self->url_row)),
                                             gtk_editable_get_text (GTK_EDITABLE (self->name_row)),
                                             g_strstrip (token), &error);

  memset (token, 0, strlen (token));
  if (id == NULL)
    {
      /* Nothing saved: the fields keep what was typed, to be corrected,
       * but a token typed in the address leaves it for the hidden Token
       * field: it stayed in clear in the Address row after a refusal
       * (tried as an attacker would). */
      pd_sources_page_hide_url_token (self);
      pd_sources_page_show_error (self, error->message);
      return;
    }
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), FALSE);
  gtk_widget_remove_css_class (GTK_WIDGET (self->url_row), "error");
  gtk_widget_remove_css_class (pd_entry_row_get_entry (self->url_row), "error");
  gtk_editable_set_text (GTK_EDITABLE (self->url_row), "");
  gtk_editable_set_text (GTK_EDITABLE (self->name_row), "");
  gtk_editable_set_text (GTK_EDITABLE (self->token_row), "");
}

static void
pd_sources_page_dispose (GObject *object)
{
  PdSourcesPage *self = PD_SOURCES_PAGE (object);

  live_pages = g_list_remove (live_pages, self);
  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_func (self->settings, pd_sources_page_rebuild, self);
  g_clear_object (&self->settings);
  g_clear_object (&self->empty_row);

  G_OBJECT_CLASS (pd_sources_page_parent_class)->dispose (object);
}

static void
pd_sources_page_finalize (GObject *object)
{
  PdSourcesPage *self = PD_SOURCES_PAGE (object);

  g_clear_pointer (&self->rows, g_ptr_array_unref);

  G_OBJECT_CLASS (pd_sources_page_parent_class)->finalize (object);
}

static void
pd_sources_page_class_init (PdSourcesPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = pd_sources_page_dispose;
  object_class->finalize = pd_sources_page_finalize;
}

static void
pd_sources_page_init (PdSourcesPage *self)
{
  AdwPreferencesGroup *add_group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  GtkWidget *add = gtk_button_new_with_mnemonic (_("_Add Endpoint"));
  GtkWidget *error_label = g_object_new (GTK_TYPE_LABEL, "accessible-role", GTK_ACCESSIBLE_ROLE_ALERT, NULL);
  GtkWidget *note;

  self->rows = g_ptr_array_new ();
  adw_preferences_page_set_title (ADW_PREFERENCES_PAGE (self), _("Sources"));
  adw_preferences_page_set_name (ADW_PREFERENCES_PAGE (self), "sources");
  adw_preferences_page_set_icon_name (ADW_PREFERENCES_PAGE (self), "network-server-symbolic");

  self->list_group = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (self->list_group, _("Endpoints"));
  adw_preferences_group_set_description (self->list_group,
                                         _("Shown in the main window beside this computer’s sessions, with their state"));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (self), self->list_group);

  /* Tokens moved out of the setting that no keyring kept: an alert (a
   * reader announces one as it comes) and a Tab stop, as the Now page's
   * notices are; a plain label was neither (tried as a new user would). */
  note = g_object_new (GTK_TYPE_BOX, "accessible-role", GTK_ACCESSIBLE_ROLE_ALERT, "focusable", TRUE, NULL);
  self->unkept_label = GTK_LABEL (gtk_label_new (NULL));
  gtk_box_append (GTK_BOX (note), GTK_WIDGET (self->unkept_label));
  gtk_widget_add_css_class (note, "pd-warning-note");
  gtk_label_set_wrap (self->unkept_label, TRUE);
  gtk_label_set_xalign (self->unkept_label, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->unkept_label), "warning");
  gtk_widget_add_css_class (GTK_WIDGET (self->unkept_label), "pd-warning-text");
  gtk_widget_set_margin_top (note, 12);
  adw_preferences_group_add (self->list_group, note);
  live_pages = g_list_prepend (live_pages, self);
  pd_sources_page_show_unkept (self);

  self->empty_row = g_object_ref_sink (adw_action_row_new ());
  /* An address is plain text, never markup. */
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (self->empty_row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->empty_row), _("No endpoints yet"));
  /* Its window is known once the page is in it: once connected, or every
   * map added one more handler, each adding one more. */
  g_signal_connect (self, "map", G_CALLBACK (pd_sources_page_sync_window), NULL);
  /* Nothing to do there: no Tab stop (as on a status page). */
  gtk_widget_set_focusable (GTK_WIDGET (self->empty_row), FALSE);

  adw_preferences_group_set_title (add_group, _("Add an Endpoint"));
  adw_preferences_group_set_description (add_group, _("A computer running plandeck-agent serve or odek serve"));
  self->url_row = PD_ENTRY_ROW (pd_entry_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->url_row), _("Address"));
  self->name_row = PD_ENTRY_ROW (pd_entry_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->name_row), _("Name"));
  self->token_row = PD_ENTRY_ROW (pd_entry_row_new_password ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->token_row), _("Token"));
  adw_preferences_group_add (add_group, GTK_WIDGET (self->url_row));
  adw_preferences_group_add (add_group, GTK_WIDGET (self->name_row));
  adw_preferences_group_add (add_group, GTK_WIDGET (self->token_row));
  pd_entry_row_align_fields (self->url_row, self->name_row, self->token_row, NULL);
  /* Enter in any of the fields adds, as Enter in an endpoint page's token
   * entry connects (it did nothing, tried as a keyboard user would). */
  g_signal_connect_swapped (self->url_row, "entry-activated", G_CALLBACK (on_add_clicked), self);
  g_signal_connect_swapped (self->url_row, "changed", G_CALLBACK (on_url_changed), self);
  g_signal_connect_swapped (self->name_row, "entry-activated", G_CALLBACK (on_add_clicked), self);
  g_signal_connect_swapped (self->token_row, "entry-activated", G_CALLBACK (on_add_clicked), self);

  self->error_label = GTK_LABEL (error_label);
  gtk_label_set_wrap (self->error_label, TRUE);
  gtk_label_set_xalign (self->error_label, 0);
  gtk_widget_add_css_class (error_label, "error");
  gtk_widget_set_margin_top (error_label, 6);
  gtk_widget_set_visible (error_label, FALSE);
  adw_preferences_group_add (add_group, error_label);
  gtk_accessible_update_relation (GTK_ACCESSIBLE (pd_entry_row_get_entry (self->url_row)),
                                  GTK_ACCESSIBLE_RELATION_DESCRIBED_BY,
                                  error_label, NULL, -1);

  gtk_widget_set_halign (add, GTK_ALIGN_END);
  gtk_widget_set_margin_top (add, 12);
  gtk_widget_add_css_class (add, "suggested-action");
  g_signal_connect_swapped (add, "clicked", G_CALLBACK (on_add_clicked), self);
  adw_preferences_group_add (add_group, add);
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (self), add_group);
}

/**
 * pd_sources_page_new:
 * @settings: the application's settings
 *
 * Returns: (transfer floating): the page
 */
AdwPreferencesPage *
pd_sources_page_new (GSettings *settings)
{
  PdSourcesPage *self = g_object_new (PD_TYPE_SOURCES_PAGE, NULL);

  self->settings = g_object_ref (settings);
  g_signal_connect_swapped (settings, "changed::sources", G_CALLBACK (pd_sources_page_rebuild), self);
  pd_sources_page_rebuild (self);
  return ADW_PREFERENCES_PAGE (self);
}
