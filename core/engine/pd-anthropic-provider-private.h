/* pd-anthropic-provider-private.h: the response reader, without HTTP.
 *
 * chat() posts the request and hands the body to this; tests and the fuzz
 * targets (fuzz/fuzz-sse-anthropic.c) feed it bytes directly.
 */
#pragma once

#include <gio/gio.h>

#include "pd-anthropic-provider.h"

G_BEGIN_DECLS

PdProviderResponse *_pd_anthropic_provider_read_response (GInputStream         *input,
                                                          gboolean              is_json,
                                                          PdProviderDeltaFunc   on_delta,
                                                          gpointer              delta_data,
                                                          GCancellable         *cancellable,
                                                          GError              **error);

G_END_DECLS
