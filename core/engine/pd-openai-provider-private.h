/* pd-openai-provider-private.h: the response reader, without HTTP.
 *
 * chat() posts the request and hands the body to this; tests and the fuzz
 * targets (fuzz/fuzz-sse-openai.c) feed it bytes directly.
 */
#pragma once

#include <gio/gio.h>

#include "pd-openai-provider.h"

G_BEGIN_DECLS

PdProviderResponse *_pd_openai_provider_read_response (PdOpenAIProvider     *self,
                                                       GInputStream         *input,
                                                       gboolean              is_json,
                                                       PdProviderDeltaFunc   on_delta,
                                                       gpointer              delta_data,
                                                       GCancellable         *cancellable,
                                                       GError              **error);

G_END_DECLS
