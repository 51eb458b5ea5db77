/* pd-secrets.h: endpoint tokens and provider API keys, kept where GNOME keeps secrets
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Every call gives up after this many seconds: a Secret Service that hangs
 * (or waits on a prompt nobody can answer) never holds a window. */
#define PD_SECRETS_TIMEOUT_SECONDS 10

void      pd_secrets_lookup_token_async  (const char           *endpoint,
                                          GAsyncReadyCallback   callback,
                                          gpointer              user_data);
char     *pd_secrets_lookup_token_finish (GAsyncResult         *result,
                                          GError              **error);
void      pd_secrets_store_token_async   (const char           *endpoint,
                                          const char           *token,
                                          GAsyncReadyCallback   callback,
                                          gpointer              user_data);
gboolean  pd_secrets_store_token_finish  (GAsyncResult         *result,
                                          GError              **error);
void      pd_secrets_has_token_async     (const char           *endpoint,
                                          GAsyncReadyCallback   callback,
                                          gpointer              user_data);
gboolean  pd_secrets_has_token_finish    (GAsyncResult         *result,
                                          GError              **error);
gboolean  pd_secrets_error_is_no_keyring (const GError        *error);
gboolean  pd_secrets_store_declined      (const GError        *error);
void      pd_secrets_keep_for_session    (const char           *endpoint,
                                          const char           *token);

/* Provider API keys, one per provider kind ("openai", "anthropic") and
 * base URL (NULL or "" for the provider's own): a key is only ever sent
 * to the endpoint it was stored for. */
void      pd_secrets_store_provider_key_async   (const char           *provider,
                                                 const char           *base_url,
                                                 const char           *key,
                                                 GAsyncReadyCallback   callback,
                                                 gpointer              user_data);
gboolean  pd_secrets_store_provider_key_finish  (GAsyncResult         *result,
                                                 GError              **error);
void      pd_secrets_lookup_provider_key_async  (const char           *provider,
                                                 const char           *base_url,
                                                 GAsyncReadyCallback   callback,
                                                 gpointer              user_data);
char     *pd_secrets_lookup_provider_key_finish (GAsyncResult         *result,
                                                 GError              **error);
void      pd_secrets_has_provider_key_async     (const char           *provider,
                                                 const char           *base_url,
                                                 GAsyncReadyCallback   callback,
                                                 gpointer              user_data);
gboolean  pd_secrets_has_provider_key_finish    (GAsyncResult         *result,
                                                 gboolean             *session_only,
                                                 GError              **error);
char     *pd_secrets_lookup_provider_key_sync   (const char           *provider,
                                                 const char           *base_url,
                                                 GError              **error);
gboolean  pd_secrets_is_variable_name           (const char           *text);
void      pd_secrets_migrate_profile_keys       (GApplication         *app);
void      pd_secrets_guard_variable_row         (GtkEditable          *variable,
                                                 GtkEditable          *key);

G_END_DECLS
