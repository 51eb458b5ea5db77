/* pd-secrets.c: the endpoint tokens, kept where GNOME keeps secrets
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A remote endpoint's instance token is stored through libsecret (the
 * Secret Service: GNOME Keyring, KeePassXC…), never in GSettings, where
 * it would sit in clear in ~/.config/dconf.  Without a Secret Service the
 * token is kept in memory for this session only, and the caller says so.
 * Every call is asynchronous and bounded by PD_SECRETS_TIMEOUT_SECONDS.
 */
#include "config.h"

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
