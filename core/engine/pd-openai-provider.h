/* pd-openai-provider.h: OpenAI-compatible Chat Completions, streamed.
 *
 * The protocol Ollama, llama.cpp's server, vLLM, LM Studio and OpenAI
 * speak: POST {base}/chat/completions with stream:true, read as
 * server-sent events.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-http-provider.h"

G_BEGIN_DECLS

#define PD_TYPE_OPENAI_PROVIDER (pd_openai_provider_get_type ())
G_DECLARE_FINAL_TYPE (PdOpenAIProvider, pd_openai_provider, PD, OPENAI_PROVIDER, PdHttpProvider)

/* base_url: e.g. http://127.0.0.1:11434/v1; NULL → $OPENAI_BASE_URL, then
 * https://api.openai.com/v1.  api_key: NULL → $OPENAI_API_KEY; may be absent
 * for local servers.  The retry policy and the base URL are PdHttpProvider's. */
PdOpenAIProvider *pd_openai_provider_new (const char *base_url,
                                          const char *api_key);

G_END_DECLS
