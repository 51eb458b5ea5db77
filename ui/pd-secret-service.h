/* pd-secret-service.h: the Secret Service, with a prompt that always answers
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <libsecret/secret.h>

G_BEGIN_DECLS

#define PD_TYPE_SECRET_SERVICE (pd_secret_service_get_type ())

G_DECLARE_FINAL_TYPE (PdSecretService, pd_secret_service, PD, SECRET_SERVICE, SecretService)

void           pd_secret_service_get_async  (GCancellable         *cancellable,
                                             GAsyncReadyCallback   callback,
                                             gpointer              user_data);
SecretService *pd_secret_service_get_finish (GAsyncResult         *result,
                                             GError              **error);
SecretService *pd_secret_service_get_sync   (GCancellable         *cancellable,
                                             GError              **error);

G_END_DECLS
