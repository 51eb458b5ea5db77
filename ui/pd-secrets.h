/* pd-secrets.h: the endpoint tokens, kept where GNOME keeps secrets
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

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
void      pd_secrets_keep_for_session    (const char           *endpoint,
                                          const char           *token);

G_END_DECLS
