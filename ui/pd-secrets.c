/* pd-secrets.c: endpoint tokens and provider API keys, kept where GNOME
 * keeps secrets
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A remote endpoint's instance token and a provider profile's API key are
 * stored through libsecret (the Secret Service: GNOME Keyring, KeePassXC…),
 * never in GSettings, where they would sit in clear in ~/.config/dconf.
 * Without a Secret Service a secret is kept in memory for this session
 * only, and the caller says so.  Every call is bounded by
 * PD_SECRETS_TIMEOUT_SECONDS; the one synchronous call is for the run's
 * worker thread.  The engine (core) never sees libsecret: the window looks
 * the key up and hands it to the engine builder.
 */
#define G_LOG_DOMAIN "pd-secrets"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <libsecret/secret.h>

#include "pd-secret-service.h"
#include "pd-secrets.h"

static const SecretSchema *
pd_secrets_token_schema (void)
{
  static const SecretSchema schema = {
    "io.github.plandeck.Plandeck.Token", SECRET_SCHEMA_NONE,
    {
      { "kind", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { "endpoint", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { NULL, 0 },
    }
  };

  return &schema;
}

static const SecretSchema *
pd_secrets_key_schema (void)
{
  static const SecretSchema schema = {
    "io.github.plandeck.Plandeck.ProviderKey", SECRET_SCHEMA_NONE,
    {
      { "provider", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { "base-url", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { NULL, 0 },
    }
  };

  return &schema;
}

/* The attributes a token is kept under: one builder for its lookup and
 * its store, so that they cannot drift apart. */
static GHashTable *
token_attributes (const char *endpoint)
{
  GHashTable *attributes = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);

  g_hash_table_insert (attributes, (gpointer) "kind", g_strdup ("remote-token"));
  g_hash_table_insert (attributes, (gpointer) "endpoint", g_strdup (endpoint != NULL ? endpoint : ""));
  return attributes;
}

/* The attribute a base URL is stored under: the provider's own endpoint is
 * "default"; a URL keeps its text less spaces and a trailing slash, as
 * the provider builds its requests from it. */
static char *
key_base_url (const char *base_url)
{
  g_autofree char *text = g_strstrip (g_strdup (base_url != NULL ? base_url : ""));
  gsize len = strlen (text);

  while (len > 0 && text[len - 1] == '/')
    text[--len] = '\0';
  if (len == 0)
    return g_strdup ("default");
  return g_steal_pointer (&text);
}

/* The attributes a provider key is kept under: one builder for every
 * call (lookup, search, store, clear), so that what Preferences finds and
 * what a run reads cannot drift apart (they were written out per call). */
static GHashTable *
key_attributes (const char *provider,
                const char *base_url)
{
  GHashTable *attributes = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);

  g_hash_table_insert (attributes, (gpointer) "provider", g_strdup (provider));
  g_hash_table_insert (attributes, (gpointer) "base-url", key_base_url (base_url));
  return attributes;
}

/* Why the keyring did not do what it was asked: libsecret may fail and set
 * no error (a locked collection whose prompt was dismissed), and an
 * error->message there crashed. */
static char *
keyring_failure (const GError *error)
{
  g_autoptr(GError) copy = NULL;

  if (error == NULL)
    return g_strdup (_("the keyring is locked and was not unlocked"));
  /* No Secret Service on the bus: said in words, not as the bus's error
   * ("The name org.freedesktop.secrets was not provided by any .service
   * files", which Preferences showed). */
  if (pd_secrets_error_is_no_keyring (error))
    return g_strdup (_("no keyring is running"));
  copy = g_error_copy (error);
  g_dbus_error_strip_remote_error (copy);
  return g_strdup (copy->message);
}

/* Whether a store failed because the keyring has no default collection
 * and made none: libsecret asks the keyring to create one, and when that
 * prompt is cancelled (or cannot be shown) it stores into the missing
 * collection all the same, whose error is this one ("Object does not
 * exist at path …/collection/login"). */
static gboolean
keyring_not_made (const GError *error)
{
  return g_error_matches (error, SECRET_ERROR, SECRET_ERROR_NO_SUCH_OBJECT) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD) ||
         g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_OBJECT);
}

/**
 * pd_secrets_error_is_no_keyring:
 * @error: (nullable): what the secret store said
 *
 * Returns: whether @error says no keyring (Secret Service) runs on the
 *   session bus
 */
gboolean
pd_secrets_error_is_no_keyring (const GError *error)
{
  return error != NULL &&
         (g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN) ||
          g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER));
}

/**
 * pd_secrets_store_declined:
 * @error: (nullable): why a keyring that answered did not keep a secret
 *
 * Returns: whether the keyring runs and did not take it (its unlock or
 *   creation prompt dismissed, or refused): "Token not saved", not "No
 *   keyring is running"
 */
gboolean
pd_secrets_store_declined (const GError *error)
{
  /* Asked only of a keyring that answered: it runs.  Listing the ways it
   * may decline (locked, none made, a dismissed prompt) missed one:
   * gnome-keyring's "Choose password for new keyring" cancelled with its
   * own prompter read as no keyring at all (tried as a new user would). */
  return !pd_secrets_error_is_no_keyring (error);
}

/* --- one request to the keyring --------------------------------------------- */

/* Where a search found a key. */
enum
{
  KEY_NONE,
  KEY_IN_KEYRING,
  KEY_FOR_SESSION,
};

typedef enum
{
  REQUEST_LOOKUP,
  REQUEST_SEARCH,
  REQUEST_STORE,
  REQUEST_CLEAR,
} RequestKind;

/* What a request asks, kept with its task until the keyring answers. */
typedef struct
{
  RequestKind          kind;
  const SecretSchema  *schema;
  GHashTable          *attributes;
  char                *label;      /* REQUEST_STORE */
  char                *secret;     /* REQUEST_STORE; wiped when freed */
  char                *provider;   /* (nullable) the key's, for the session's copy */
  char                *base_url;
  char                *endpoint;   /* (nullable) the token's, for the session's copy */
  GCancellable        *cancellable;
} Request;

static void
request_free (Request *request)
{
  g_clear_pointer (&request->attributes, g_hash_table_unref);
  g_free (request->label);
  if (request->secret != NULL)
    explicit_bzero (request->secret, strlen (request->secret));
  g_free (request->secret);
  g_free (request->provider);
  g_free (request->base_url);
  g_free (request->endpoint);
  g_clear_object (&request->cancellable);
  g_free (request);
}

static void
destroy_source (gpointer source)
{
  g_source_destroy (source);
  g_source_unref (source);
}

static gboolean
on_timeout (gpointer data)
{
  g_cancellable_cancel (G_CANCELLABLE (data));
  return G_SOURCE_REMOVE;
}

/* A task for @request whose cancellable cancels itself after the timeout. */
static GTask *
request_task_new (Request             *request,
                  gpointer             source_tag,
                  GAsyncReadyCallback  callback,
                  gpointer             user_data)
{
  GTask *task = g_task_new (NULL, NULL, callback, user_data);
  GSource *source = g_timeout_source_new_seconds (PD_SECRETS_TIMEOUT_SECONDS);

  request->cancellable = g_cancellable_new ();
  g_source_set_callback (source, on_timeout, g_object_ref (request->cancellable), g_object_unref);
  g_source_attach (source, g_main_context_get_thread_default ());
  /* The timer goes with the task. */
  g_object_set_data_full (G_OBJECT (task), "pd-secrets-timeout", source, destroy_source);
  g_task_set_source_tag (task, source_tag);
  g_task_set_task_data (task, request, (GDestroyNotify) request_free);
  return task;
}

/* Keys the keyring could not take, for this session only; read by the
 * run's worker thread too. */
static GMutex session_keys_lock;
static GHashTable *session_keys;

static char *
session_key_name (const char *provider,
                  const char *base_url)
{
  g_autofree char *base = key_base_url (base_url);

  return g_strconcat (provider, "\n", base, NULL);
}

static void
keep_key_for_session (const char *provider,
                      const char *base_url,
                      const char *key)
{
  g_autofree char *name = session_key_name (provider, base_url);

  g_mutex_lock (&session_keys_lock);
  if (session_keys == NULL)
    session_keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (key == NULL || key[0] == '\0')
    g_hash_table_remove (session_keys, name);
  else
    g_hash_table_replace (session_keys, g_steal_pointer (&name), g_strdup (key));
  g_mutex_unlock (&session_keys_lock);
}

static char *
dup_session_key (const char *provider,
                 const char *base_url)
{
  g_autofree char *name = session_key_name (provider, base_url);
  char *key = NULL;

  g_mutex_lock (&session_keys_lock);
  if (session_keys != NULL)
    key = g_strdup (g_hash_table_lookup (session_keys, name));
  g_mutex_unlock (&session_keys_lock);
  return key;
}

/* Tokens the keyring could not take, for this session only. */
static GHashTable *
session_tokens (void)
{
  static GHashTable *tokens;

  if (tokens == NULL)
    tokens = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return tokens;
}

void
pd_secrets_keep_for_session (const char *endpoint,
                             const char *token)
{
  g_return_if_fail (endpoint != NULL);

  if (token == NULL || token[0] == '\0')
    g_hash_table_remove (session_tokens (), endpoint);
  else
    g_hash_table_replace (session_tokens (), g_strdup (endpoint), g_strdup (token));
}

/* The copy kept for this session of what @request looks up, or NULL. */
static char *
dup_kept (Request *request)
{
  if (request->endpoint != NULL)
    return g_strdup (g_hash_table_lookup (session_tokens (), request->endpoint));
  return dup_session_key (request->provider, request->base_url);
}

static void
return_no_keyring (GTask        *task,
                   const GError *error)
{
  g_autofree char *why = keyring_failure (error);

  /* A keyring left locked is there: it says so (PdSecretService). */
  if (error == NULL || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED, "%s", why);
  else
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("No keyring is available (%s)"), why);
}

static void
on_answer (GObject      *object,
           GAsyncResult *result,
           gpointer      data)
{
  g_autoptr(GTask) task = data;
  Request *request = g_task_get_task_data (task);
  SecretService *service = SECRET_SERVICE (object);
  g_autoptr(GError) error = NULL;

  switch (request->kind)
    {
    case REQUEST_LOOKUP:
      {
        g_autoptr(SecretValue) value = secret_service_lookup_finish (service, result, &error);
        g_autofree char *kept = NULL;

        if (value != NULL)
          {
            g_task_return_pointer (task, g_strdup (secret_value_get_text (value)), g_free);
            return;
          }
        kept = dup_kept (request);
        if (kept != NULL)
          g_task_return_pointer (task, g_steal_pointer (&kept), g_free);
        else if (error != NULL)
          return_no_keyring (task, error);
        else
          g_task_return_pointer (task, NULL, NULL);
        return;
      }

    case REQUEST_SEARCH:
      {
        GList *found = secret_service_search_finish (service, result, &error);
        g_autofree char *kept = NULL;

        if (found != NULL)
          {
            g_list_free_full (found, g_object_unref);
            g_task_return_int (task, KEY_IN_KEYRING);
            return;
          }
        kept = dup_kept (request);
        if (kept != NULL)
          {
            explicit_bzero (kept, strlen (kept));
            g_task_return_int (task, KEY_FOR_SESSION);
          }
        else if (error != NULL)
          return_no_keyring (task, error);
        else
          g_task_return_int (task, KEY_NONE);
        return;
      }

    case REQUEST_STORE:
      if (!secret_service_store_finish (service, result, &error))
        {
          gboolean not_made = keyring_not_made (error);
          g_autofree char *why = not_made ? g_strdup (_("no keyring was created for it")) : keyring_failure (error);
          /* The keyring is there and did not take it: left locked (its
           * prompt cancelled, no error from libsecret, or refused), or
           * none made (the prompt for a first keyring cancelled).  Told
           * apart, so that the window does not say no keyring runs (tried
           * as a new user would). */
          GIOErrorEnum code = pd_secrets_store_declined (error) ? G_IO_ERROR_PERMISSION_DENIED : G_IO_ERROR_NOT_SUPPORTED;

          if (request->endpoint != NULL)
            g_task_return_new_error (task, G_IO_ERROR, code,
                                     _("No keyring could keep the token (%s): it is kept until Plandeck quits"),
                                     why);
          else
            g_task_return_new_error (task, G_IO_ERROR, code,
                                     _("No keyring could keep the API key (%s): it is kept until Plandeck quits"),
                                     why);
          return;
        }
      g_task_return_boolean (task, TRUE);
      return;

    case REQUEST_CLEAR:
      /* Clearing nothing is no failure: FALSE without an error. */
      if (!secret_service_clear_finish (service, result, &error) && error != NULL)
        {
          return_no_keyring (task, error);
          return;
        }
      g_task_return_boolean (task, TRUE);
      return;

    default:
      g_assert_not_reached ();
    }
}

static void
on_service (GObject      *object,
            GAsyncResult *result,
            gpointer      data)
{
  GTask *task = data;
  Request *request = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;
  g_autoptr(SecretService) service = pd_secret_service_get_finish (result, &error);

  if (service == NULL)
    {
      /* No Secret Service: what this session keeps still answers. */
      g_autofree char *kept = request->kind == REQUEST_LOOKUP || request->kind == REQUEST_SEARCH
                              ? dup_kept (request) : NULL;

      if (kept != NULL && request->kind == REQUEST_LOOKUP)
        g_task_return_pointer (task, g_steal_pointer (&kept), g_free);
      else if (kept != NULL)
        {
          explicit_bzero (kept, strlen (kept));
          g_task_return_int (task, KEY_FOR_SESSION);
        }
      else if (request->kind == REQUEST_STORE)
        {
          g_autofree char *why = keyring_failure (error);

          g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                                   request->endpoint != NULL
                                   ? _("No keyring could keep the token (%s): it is kept until Plandeck quits")
                                   : _("No keyring could keep the API key (%s): it is kept until Plandeck quits"),
                                   why);
        }
      else
        return_no_keyring (task, error);
      g_object_unref (task);
      return;
    }

  switch (request->kind)
    {
    case REQUEST_LOOKUP:
      secret_service_lookup (service, request->schema, request->attributes, request->cancellable, on_answer, task);
      break;

    case REQUEST_SEARCH:
      /* SECRET_SEARCH_NONE: neither SECRET_SEARCH_UNLOCK nor
       * SECRET_SEARCH_LOAD_SECRETS; locked items match all the same. */
      secret_service_search (service, request->schema, request->attributes, SECRET_SEARCH_NONE,
                             request->cancellable, on_answer, task);
      break;

    case REQUEST_STORE:
      {
        g_autoptr(SecretValue) value = secret_value_new (request->secret, -1, "text/plain");

        secret_service_store (service, request->schema, request->attributes, SECRET_COLLECTION_DEFAULT,
                              request->label, value, request->cancellable, on_answer, task);
        break;
      }

    case REQUEST_CLEAR:
      secret_service_clear (service, request->schema, request->attributes, request->cancellable, on_answer, task);
      break;

    default:
      g_assert_not_reached ();
    }
}

static void
request_send (GTask *task)
{
  Request *request = g_task_get_task_data (task);

  pd_secret_service_get_async (request->cancellable, on_service, task);
}

/* --- remote endpoint tokens ------------------------------------------------- */

/**
 * pd_secrets_lookup_token_async:
 * @endpoint: the endpoint's URL without its token
 *
 * Looks up the token stored for @endpoint: in the keyring, else the one
 * kept for this session.  The result is %NULL when none is known.
 */
void
pd_secrets_lookup_token_async (const char          *endpoint,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  Request *request = g_new0 (Request, 1);

  request->kind = REQUEST_LOOKUP;
  request->schema = pd_secrets_token_schema ();
  request->attributes = token_attributes (endpoint);
  request->endpoint = g_strdup (endpoint != NULL ? endpoint : "");
  request_send (request_task_new (request, pd_secrets_lookup_token_async, callback, user_data));
}

char *
pd_secrets_lookup_token_finish (GAsyncResult  *result,
                                GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * pd_secrets_has_token_async:
 * @endpoint: the endpoint's URL without its token
 *
 * Asks whether the keyring keeps a token for @endpoint, without unlocking
 * it (no prompt).
 */
void
pd_secrets_has_token_async (const char          *endpoint,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  Request *request = g_new0 (Request, 1);

  request->kind = REQUEST_SEARCH;
  request->schema = pd_secrets_token_schema ();
  request->attributes = token_attributes (endpoint);
  request->endpoint = g_strdup (endpoint != NULL ? endpoint : "");
  request_send (request_task_new (request, pd_secrets_has_token_async, callback, user_data));
}

/* Returns: whether the keyring itself (not this session alone) keeps one. */
gboolean
pd_secrets_has_token_finish (GAsyncResult  *result,
                             GError       **error)
{
  return g_task_propagate_int (G_TASK (result), error) == KEY_IN_KEYRING;
}

/**
 * pd_secrets_store_token_async:
 * @endpoint: the endpoint's URL without its token
 * @token: its instance token
 *
 * Stores @token in the keyring.  It is kept for this session in any case,
 * so that a failure (no Secret Service, a locked keyring left locked)
 * loses nothing until the app quits.
 */
void
pd_secrets_store_token_async (const char          *endpoint,
                              const char          *token,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  Request *request = g_new0 (Request, 1);

  pd_secrets_keep_for_session (endpoint, token);
  request->kind = REQUEST_STORE;
  request->schema = pd_secrets_token_schema ();
  request->attributes = token_attributes (endpoint);
  request->endpoint = g_strdup (endpoint);
  request->label = g_strdup_printf (_("Plandeck token for %s"), endpoint);
  request->secret = g_strdup (token != NULL ? token : "");
  request_send (request_task_new (request, pd_secrets_store_token_async, callback, user_data));
}

gboolean
pd_secrets_store_token_finish (GAsyncResult  *result,
                               GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* --- provider API keys ------------------------------------------------------ */

static Request *
key_request_new (RequestKind  kind,
                 const char  *provider,
                 const char  *base_url)
{
  Request *request = g_new0 (Request, 1);

  request->kind = kind;
  request->schema = pd_secrets_key_schema ();
  request->attributes = key_attributes (provider, base_url);
  request->provider = g_strdup (provider);
  request->base_url = g_strdup (base_url);
  return request;
}

/**
 * pd_secrets_store_provider_key_async:
 * @provider: "openai" or "anthropic"
 * @base_url: (nullable): the endpoint the key is for; %NULL or "" for the
 *   provider's own
 * @key: (nullable): the API key; %NULL or "" removes the stored one
 *
 * Stores @key in the keyring.  It is kept for this session in any case, so
 * that a failure (no Secret Service, a locked keyring left locked) loses
 * nothing until the app quits.
 */
void
pd_secrets_store_provider_key_async (const char          *provider,
                                     const char          *base_url,
                                     const char          *key,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  gboolean clear = key == NULL || key[0] == '\0';
  Request *request;

  g_return_if_fail (provider != NULL);

  keep_key_for_session (provider, base_url, key);
  request = key_request_new (clear ? REQUEST_CLEAR : REQUEST_STORE, provider, base_url);
  if (!clear)
    {
      /* Translators: %s is a provider (openai, anthropic), then its address or "default" */
      request->label = g_strdup_printf (_("Plandeck API key for %s (%s)"), provider,
                                        (const char *) g_hash_table_lookup (request->attributes, "base-url"));
      request->secret = g_strdup (key);
    }
  request_send (request_task_new (request, pd_secrets_store_provider_key_async, callback, user_data));
}

gboolean
pd_secrets_store_provider_key_finish (GAsyncResult  *result,
                                      GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * pd_secrets_lookup_provider_key_async:
 *
 * Looks up the API key stored for @provider at @base_url: in the keyring,
 * else the one kept for this session.  The result is %NULL when none is.
 */
void
pd_secrets_lookup_provider_key_async (const char          *provider,
                                      const char          *base_url,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_return_if_fail (provider != NULL);

  request_send (request_task_new (key_request_new (REQUEST_LOOKUP, provider, base_url),
                                  pd_secrets_lookup_provider_key_async, callback, user_data));
}

char *
pd_secrets_lookup_provider_key_finish (GAsyncResult  *result,
                                       GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * pd_secrets_has_provider_key_async:
 *
 * Finds out whether an API key is stored for @provider at @base_url (in
 * the keyring, or kept for this session) without reading it: the search
 * does not unlock, so a locked keyring is never asked to open (no
 * unlock prompt) for a window that only says whether a key is there.
 */
void
pd_secrets_has_provider_key_async (const char          *provider,
                                   const char          *base_url,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_return_if_fail (provider != NULL);

  request_send (request_task_new (key_request_new (REQUEST_SEARCH, provider, base_url),
                                  pd_secrets_has_provider_key_async, callback, user_data));
}

/**
 * pd_secrets_has_provider_key_finish:
 * @session_only: (out) (optional): set to whether the key is kept for this
 *   session only (in memory: no keyring took it)
 *
 * Returns: whether a key is kept
 */
gboolean
pd_secrets_has_provider_key_finish (GAsyncResult  *result,
                                    gboolean      *session_only,
                                    GError       **error)
{
  GError *local_error = NULL;
  gssize place = g_task_propagate_int (G_TASK (result), &local_error);

  if (session_only != NULL)
    *session_only = place == KEY_FOR_SESSION;
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return FALSE;
    }
  return place != KEY_NONE;
}

/**
 * pd_secrets_lookup_provider_key_sync:
 *
 * The same as pd_secrets_lookup_provider_key_async(), for a worker thread
 * (a run's): it waits, at most PD_SECRETS_TIMEOUT_SECONDS, counted by the
 * main context, which goes on running meanwhile.
 *
 * Returns: (transfer full) (nullable): the key, or %NULL with @error unset
 *   when none is stored, or with @error set when no keyring answered
 */
char *
pd_secrets_lookup_provider_key_sync (const char  *provider,
                                     const char  *base_url,
                                     GError     **error)
{
  g_autoptr(GCancellable) cancellable = NULL;
  g_autoptr(GHashTable) attributes = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(SecretService) service = NULL;
  g_autoptr(SecretValue) value = NULL;
  GSource *timeout;
  char *key = NULL;

  g_return_val_if_fail (provider != NULL, NULL);

  cancellable = g_cancellable_new ();
  attributes = key_attributes (provider, base_url);
  timeout = g_timeout_source_new_seconds (PD_SECRETS_TIMEOUT_SECONDS);
  g_source_set_callback (timeout, on_timeout, g_object_ref (cancellable), g_object_unref);
  g_source_attach (timeout, g_main_context_default ());
  service = pd_secret_service_get_sync (cancellable, &local_error);
  if (service != NULL)
    value = secret_service_lookup_sync (service, pd_secrets_key_schema (), attributes, cancellable, &local_error);
  g_source_destroy (timeout);
  g_source_unref (timeout);

  if (value != NULL)
    return g_strdup (secret_value_get_text (value));
  key = dup_session_key (provider, base_url);
  if (key == NULL && local_error != NULL)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                 _("No keyring is available (%s)"), local_error->message);
  return key;
}

/* Prefixes providers give their keys, which no one names a variable with:
 * Groq, Hugging Face, Fireworks, xAI, Perplexity, Stripe-style sk_ and pk_. */
static const char * const key_prefixes[] = {
  "gsk_", "hf_", "fw_", "sk_", "pk_", "xai_", "pplx_",
};

/**
 * pd_secrets_is_variable_name:
 *
 * Whether @text, in a profile's field for the name of the key's environment
 * variable, is such a name and not the key itself pasted there.  Shape
 * alone does not tell them apart: "gsk_…", "hf_…" and hex keys are made of
 * the same letters, digits and _ as a variable's name.  So a name is what
 * names look like in practice: letters, digits and _ not starting with a
 * digit, with none of the prefixes keys carry (gsk_, hf_, fw_, sk_, …), and
 * not 20 characters or more mixing lower-case letters and digits, as
 * random keys do and names (OPENAI_API_KEY, my_key_2) do not.
 *
 * Returns: %TRUE for a variable's name
 */
gboolean
pd_secrets_is_variable_name (const char *text)
{
  gboolean lower = FALSE;
  gboolean digit = FALSE;
  gsize len = 0;

  if (text == NULL || text[0] == '\0' || g_ascii_isdigit (text[0]))
    return FALSE;
  for (const char *p = text; *p != '\0'; p++, len++)
    {
      if (!g_ascii_isalnum (*p) && *p != '_')
        return FALSE;
      lower |= g_ascii_islower (*p);
      digit |= g_ascii_isdigit (*p);
    }
  for (gsize i = 0; i < G_N_ELEMENTS (key_prefixes); i++)
    if (g_str_has_prefix (text, key_prefixes[i]))
      return FALSE;
  return !(len >= 20 && lower && digit);
}

static const char *
default_variable (const char *provider)
{
  if (g_strcmp0 (provider, "anthropic") == 0)
    return "ANTHROPIC_API_KEY";
  if (g_strcmp0 (provider, "openai") == 0)
    return "OPENAI_API_KEY";
  return "";
}

typedef struct
{
  char         *field;   /* the profile's field as it was, key and all */
  GApplication *app;     /* (nullable) held until the keyring answered */
} Migration;

static void
migration_free (Migration *migration)
{
  if (migration->app != NULL)
    {
      g_application_release (migration->app);
      g_object_unref (migration->app);
    }
  if (migration->field != NULL)
    memset (migration->field, 0, strlen (migration->field));
  g_free (migration->field);
  g_free (migration);
}

/* Once the keyring has the key, it leaves GSettings: every profile whose
 * variable field holds it names the provider's usual variable instead. */
static void
on_profile_key_migrated (GObject      *object,
                         GAsyncResult *result,
                         gpointer      data)
{
  Migration *migration = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(GSettings) settings = NULL;
  g_autoptr(GVariant) profiles = NULL;
  GVariantBuilder builder;
  GVariantIter iter;
  const char *name, *kind, *base_url, *model, *env;
  gboolean changed = FALSE;

  /* Without a keyring (or with one left locked) the key is kept for this
   * session only, in memory, and leaves GSettings all the same: in clear
   * there, any program could read it.  Preferences says it is not kept
   * past this session. */
  if (!pd_secrets_store_provider_key_finish (result, &error))
    g_message ("%s", error->message);

  settings = g_settings_new (APP_ID);
  profiles = g_settings_get_value (settings, "provider-profiles");
  g_variant_builder_init (&builder, G_VARIANT_TYPE ("a(sssss)"));
  g_variant_iter_init (&iter, profiles);
  while (g_variant_iter_next (&iter, "(&s&s&s&s&s)", &name, &kind, &base_url, &model, &env))
    {
      if (g_strcmp0 (env, migration->field) == 0)
        {
          env = default_variable (kind);
          changed = TRUE;
        }
      g_variant_builder_add (&builder, "(sssss)", name, kind, base_url, model, env);
    }
  if (changed)
    g_settings_set_value (settings, "provider-profiles", g_variant_builder_end (&builder));
  else
    g_variant_builder_clear (&builder);
  migration_free (migration);
}

/**
 * pd_secrets_migrate_profile_keys:
 *
 * A profile's field for the name of the key's environment variable that
 * holds no name holds, most likely, the key itself, pasted there and kept
 * in clear: it moves to the keyring (for the profile's provider and base
 * URL) and leaves GSettings once the keyring has it.  Until then, and
 * without a keyring, it is kept for this session and nothing is lost.
 * @app, when given, is held until the keyring has answered.
 */
void
pd_secrets_migrate_profile_keys (GApplication *app)
{
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(GVariant) profiles = g_settings_get_value (settings, "provider-profiles");
  GVariantIter iter;
  const char *name, *kind, *base_url, *model, *env;

  g_variant_iter_init (&iter, profiles);
  while (g_variant_iter_next (&iter, "(&s&s&s&s&s)", &name, &kind, &base_url, &model, &env))
    {
      g_autofree char *key = g_strstrip (g_strdup (env));
      Migration *migration;

      if (key[0] == '\0' || pd_secrets_is_variable_name (key) ||
          (g_strcmp0 (kind, "openai") != 0 && g_strcmp0 (kind, "anthropic") != 0))
        continue;
      migration = g_new0 (Migration, 1);
      migration->field = g_strdup (env);
      if (app != NULL)
        {
          migration->app = g_object_ref (app);
          g_application_hold (app);
        }
      pd_secrets_store_provider_key_async (kind, base_url, key, on_profile_key_migrated, migration);
      memset (key, 0, strlen (key));
    }
}

/* --- a key typed where a variable's name goes ------------------------------- */

#define BEFORE_KEY "pd-secrets-variable-before"

static void
on_variable_focus_enter (GtkEventControllerFocus *controller,
                         GtkEditable             *variable)
{
  g_object_set_data_full (G_OBJECT (variable), BEFORE_KEY,
                          g_strdup (gtk_editable_get_text (variable)), g_free);
}

static void
on_variable_changed (GtkEditable *variable,
                     GtkEditable *key)
{
  g_autofree char *text = g_strstrip (g_strdup (gtk_editable_get_text (variable)));
  GtkEditable *variable_text = gtk_editable_get_delegate (variable);
  const char *before;
  gboolean focused;
  GtkEditable *key_text;

  if (text[0] == '\0')
    return;   /* also the middle of gtk_editable_set_text(): deleted, then inserted */
  if (pd_secrets_is_variable_name (text))
    {
      /* Set by the program (a profile chosen): the name to go back to. */
      if (!gtk_widget_has_focus (GTK_WIDGET (variable_text != NULL ? variable_text : variable)))
        g_object_set_data_full (G_OBJECT (variable), BEFORE_KEY, g_steal_pointer (&text), g_free);
      return;
    }

  /* A key: into the masked row, and the name it replaced back. */
  focused = gtk_widget_has_focus (GTK_WIDGET (variable_text != NULL ? variable_text : variable));
  gtk_editable_set_text (key, text);
  explicit_bzero (text, strlen (text));
  before = g_object_get_data (G_OBJECT (variable), BEFORE_KEY);
  gtk_editable_set_text (variable, before != NULL ? before : "");
  key_text = gtk_editable_get_delegate (key);
  if (focused && GTK_IS_TEXT (key_text))
    {
      /* Typing goes on in the masked row, after what was typed. */
      gtk_text_grab_focus_without_selecting (GTK_TEXT (key_text));
      gtk_editable_set_position (key, -1);
    }
}

/**
 * pd_secrets_guard_variable_row:
 * @variable: the row for the name of the key's environment variable
 * @key: the masked row (a password entry) for the key itself
 *
 * A key pasted or typed into @variable (anything pd_secrets_is_variable_name()
 * does not take for a name) moves to @key at once, and @variable shows the
 * name it held before: the row showed the key in clear, and the settings
 * kept it so (tried as a new user would).  Connect this before any other
 * handler of @variable's ::changed, so that they never see the key.
 */
void
pd_secrets_guard_variable_row (GtkEditable *variable,
                               GtkEditable *key)
{
  GtkEventController *focus = gtk_event_controller_focus_new ();

  g_return_if_fail (GTK_IS_EDITABLE (variable));
  g_return_if_fail (GTK_IS_EDITABLE (key));

  g_object_set_data_full (G_OBJECT (variable), BEFORE_KEY,
                          g_strdup (gtk_editable_get_text (variable)), g_free);
  g_signal_connect_object (variable, "changed", G_CALLBACK (on_variable_changed), key, 0);
  g_signal_connect_object (focus, "enter", G_CALLBACK (on_variable_focus_enter), variable, 0);
  gtk_widget_add_controller (GTK_WIDGET (variable), focus);
}
