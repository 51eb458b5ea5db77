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

/* A cancellable that cancels itself after the timeout. */
static GCancellable *
bounded_cancellable (GTask *task)
{
  GCancellable *cancellable = g_cancellable_new ();
  GSource *source = g_timeout_source_new_seconds (PD_SECRETS_TIMEOUT_SECONDS);

  g_source_set_callback (source, on_timeout, g_object_ref (cancellable), g_object_unref);
  g_source_attach (source, g_main_context_get_thread_default ());
  /* The timer goes with the task. */
  g_object_set_data_full (G_OBJECT (task), "pd-secrets-timeout", source, destroy_source);
  return cancellable;
}

static void
on_lookup (GObject      *object,
           GAsyncResult *result,
           gpointer      data)
{
  g_autoptr(GTask) task = data;
  g_autoptr(GError) error = NULL;
  char *token = secret_password_lookup_finish (result, &error);
  const char *endpoint = g_task_get_task_data (task);
  const char *kept;

  if (token != NULL)
    {
      g_task_return_pointer (task, g_strdup (token), g_free);
      secret_password_free (token);
      return;
    }
  kept = g_hash_table_lookup (session_tokens (), endpoint);
  if (kept != NULL)
    g_task_return_pointer (task, g_strdup (kept), g_free);
  else if (error != NULL)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                             _("No keyring is available (%s)"), error->message);
  else
    g_task_return_pointer (task, NULL, NULL);
}

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
  GTask *task = g_task_new (NULL, NULL, callback, user_data);
  g_autoptr(GCancellable) cancellable = bounded_cancellable (task);

  g_task_set_source_tag (task, pd_secrets_lookup_token_async);
  g_task_set_task_data (task, g_strdup (endpoint), g_free);
  secret_password_lookup (pd_secrets_token_schema (), cancellable, on_lookup, task,
                          "kind", "remote-token",
                          "endpoint", endpoint,
                          NULL);
}

char *
pd_secrets_lookup_token_finish (GAsyncResult  *result,
                                GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
on_store (GObject      *object,
          GAsyncResult *result,
          gpointer      data)
{
  g_autoptr(GTask) task = data;
  g_autoptr(GError) error = NULL;

  if (!secret_password_store_finish (result, &error))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                               _("No keyring could keep the token (%s): it is kept for this session only"),
                               error->message);
      return;
    }
  g_task_return_boolean (task, TRUE);
}

/**
 * pd_secrets_store_token_async:
 * @endpoint: the endpoint's URL without its token
 * @token: its instance token
 *
 * Stores @token in the keyring.  It is kept for this session in any case,
 * so that a failure (no Secret Service) loses nothing until the app quits.
 */
void
pd_secrets_store_token_async (const char          *endpoint,
                              const char          *token,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GTask *task = g_task_new (NULL, NULL, callback, user_data);
  g_autoptr(GCancellable) cancellable = bounded_cancellable (task);
  g_autofree char *label = g_strdup_printf (_("Plandeck token for %s"), endpoint);

  g_task_set_source_tag (task, pd_secrets_store_token_async);
  pd_secrets_keep_for_session (endpoint, token);
  secret_password_store (pd_secrets_token_schema (), SECRET_COLLECTION_DEFAULT, label, token,
                         cancellable, on_store, task,
                         "kind", "remote-token",
                         "endpoint", endpoint,
                         NULL);
}

gboolean
pd_secrets_store_token_finish (GAsyncResult  *result,
                               GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* --- provider API keys ------------------------------------------------------ */

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

static void
on_key_stored (GObject      *object,
               GAsyncResult *result,
               gpointer      data)
{
  g_autoptr(GTask) task = data;
  g_autoptr(GError) error = NULL;
  gboolean cleared = GPOINTER_TO_INT (g_task_get_task_data (task));
  gboolean ok = cleared ? (secret_password_clear_finish (result, &error) || error == NULL)
                        : secret_password_store_finish (result, &error);

  if (!ok)
    {
      if (cleared)
        g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                                 _("No keyring is available (%s)"), error->message);
      else
        g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                                 _("No keyring could keep the API key (%s): it is kept for this session only"),
                                 error->message);
      return;
    }
  g_task_return_boolean (task, TRUE);
}

/**
 * pd_secrets_store_provider_key_async:
 * @provider: "openai" or "anthropic"
 * @base_url: (nullable): the endpoint the key is for; %NULL or "" for the
 *   provider's own
 * @key: (nullable): the API key; %NULL or "" removes the stored one
 *
 * Stores @key in the keyring.  It is kept for this session in any case, so
 * that a failure (no Secret Service) loses nothing until the app quits.
 */
void
pd_secrets_store_provider_key_async (const char          *provider,
                                     const char          *base_url,
                                     const char          *key,
                                     GAsyncReadyCallback  callback,
                                     gpointer             user_data)
{
  GTask *task = g_task_new (NULL, NULL, callback, user_data);
  g_autoptr(GCancellable) cancellable = bounded_cancellable (task);
  g_autofree char *base = key_base_url (base_url);
  gboolean clear = key == NULL || key[0] == '\0';

  g_return_if_fail (provider != NULL);

  g_task_set_source_tag (task, pd_secrets_store_provider_key_async);
  g_task_set_task_data (task, GINT_TO_POINTER (clear), NULL);
  keep_key_for_session (provider, base_url, key);
  if (clear)
    {
      secret_password_clear (pd_secrets_key_schema (), cancellable, on_key_stored, task,
                             "provider", provider,
                             "base-url", base,
                             NULL);
    }
  else
    {
      /* Translators: %s is a provider (openai, anthropic), then its address or "default" */
      g_autofree char *label = g_strdup_printf (_("Plandeck API key for %s (%s)"), provider, base);

      secret_password_store (pd_secrets_key_schema (), SECRET_COLLECTION_DEFAULT, label, key,
                             cancellable, on_key_stored, task,
                             "provider", provider,
                             "base-url", base,
                             NULL);
    }
}

gboolean
pd_secrets_store_provider_key_finish (GAsyncResult  *result,
                                      GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

typedef struct
{
  char *provider;
  char *base_url;
} KeyLookup;

static void
key_lookup_free (KeyLookup *lookup)
{
  g_free (lookup->provider);
  g_free (lookup->base_url);
  g_free (lookup);
}

static void
on_key_lookup (GObject      *object,
               GAsyncResult *result,
               gpointer      data)
{
  g_autoptr(GTask) task = data;
  g_autoptr(GError) error = NULL;
  KeyLookup *lookup = g_task_get_task_data (task);
  char *key = secret_password_lookup_finish (result, &error);
  g_autofree char *kept = NULL;

  if (key != NULL)
    {
      g_task_return_pointer (task, g_strdup (key), g_free);
      secret_password_free (key);
      return;
    }
  kept = dup_session_key (lookup->provider, lookup->base_url);
  if (kept != NULL)
    g_task_return_pointer (task, g_steal_pointer (&kept), g_free);
  else if (error != NULL)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                             _("No keyring is available (%s)"), error->message);
  else
    g_task_return_pointer (task, NULL, NULL);
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
  GTask *task = g_task_new (NULL, NULL, callback, user_data);
  g_autoptr(GCancellable) cancellable = bounded_cancellable (task);
  g_autofree char *base = key_base_url (base_url);
  KeyLookup *lookup = g_new0 (KeyLookup, 1);

  g_return_if_fail (provider != NULL);

  lookup->provider = g_strdup (provider);
  lookup->base_url = g_strdup (base_url);
  g_task_set_source_tag (task, pd_secrets_lookup_provider_key_async);
  g_task_set_task_data (task, lookup, (GDestroyNotify) key_lookup_free);
  secret_password_lookup (pd_secrets_key_schema (), cancellable, on_key_lookup, task,
                          "provider", provider,
                          "base-url", base,
                          NULL);
}

char *
pd_secrets_lookup_provider_key_finish (GAsyncResult  *result,
                                       GError       **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
on_key_search (GObject      *object,
               GAsyncResult *result,
               gpointer      data)
{
  g_autoptr(GTask) task = data;
  g_autoptr(GError) error = NULL;
  KeyLookup *lookup = g_task_get_task_data (task);
  GList *found = secret_password_search_finish (result, &error);
  g_autofree char *kept = NULL;

  if (found != NULL)
    {
      g_list_free_full (found, g_object_unref);
      g_task_return_boolean (task, TRUE);
      return;
    }
  kept = dup_session_key (lookup->provider, lookup->base_url);
  if (kept != NULL)
    {
      memset (kept, 0, strlen (kept));
      g_task_return_boolean (task, TRUE);
    }
  else if (error != NULL)
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                             _("No keyring is available (%s)"), error->message);
  else
    g_task_return_boolean (task, FALSE);
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
  GTask *task = g_task_new (NULL, NULL, callback, user_data);
  g_autoptr(GCancellable) cancellable = bounded_cancellable (task);
  g_autofree char *base = key_base_url (base_url);
  KeyLookup *lookup = g_new0 (KeyLookup, 1);

  g_return_if_fail (provider != NULL);

  lookup->provider = g_strdup (provider);
  lookup->base_url = g_strdup (base_url);
  g_task_set_source_tag (task, pd_secrets_has_provider_key_async);
  g_task_set_task_data (task, lookup, (GDestroyNotify) key_lookup_free);
  /* SECRET_SEARCH_NONE: neither SECRET_SEARCH_UNLOCK nor
   * SECRET_SEARCH_LOAD_SECRETS; locked items match all the same. */
  secret_password_search (pd_secrets_key_schema (), SECRET_SEARCH_NONE, cancellable, on_key_search, task,
                          "provider", provider,
                          "base-url", base,
                          NULL);
}

gboolean
pd_secrets_has_provider_key_finish (GAsyncResult  *result,
                                    GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
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
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *base = key_base_url (base_url);
  g_autoptr(GError) local_error = NULL;
  GSource *timeout;
  char *secret;
  char *key = NULL;

  g_return_val_if_fail (provider != NULL, NULL);

  timeout = g_timeout_source_new_seconds (PD_SECRETS_TIMEOUT_SECONDS);
  g_source_set_callback (timeout, on_timeout, g_object_ref (cancellable), g_object_unref);
  g_source_attach (timeout, g_main_context_default ());
  secret = secret_password_lookup_sync (pd_secrets_key_schema (), cancellable, &local_error,
                                        "provider", provider,
                                        "base-url", base,
                                        NULL);
  g_source_destroy (timeout);
  g_source_unref (timeout);

  if (secret != NULL)
    {
      key = g_strdup (secret);
      secret_password_free (secret);
      return key;
    }
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

  if (!pd_secrets_store_provider_key_finish (result, &error))
    {
      /* It stays where it was, and works for this session. */
      g_message ("%s", error->message);
      migration_free (migration);
      return;
    }

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
