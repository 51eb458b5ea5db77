/* pd-openai-provider.h: OpenAI-compatible Chat Completions, streamed.
 *
 * The protocol Ollama, llama.cpp's server, vLLM, LM Studio and OpenAI
 * speak: POST {base}/chat/completions with stream:true, read as
 * server-sent events.
 */
#pragma once

#include "pd-provider.h"

G_BEGIN_DECLS

#define PD_TYPE_OPENAI_PROVIDER (pd_openai_provider_get_type ())
G_DECLARE_FINAL_TYPE (PdOpenAIProvider, pd_openai_provider, PD, OPENAI_PROVIDER, GObject)

/* base_url: e.g. http://127.0.0.1:11434/v1; NULL → $OPENAI_BASE_URL, then
 * https://api.openai.com/v1.  api_key: NULL → $OPENAI_API_KEY; may be absent
 * for local servers. */
PdOpenAIProvider *pd_openai_provider_new                     (const char       *base_url,
                                                              const char       *api_key);
const char       *pd_openai_provider_get_base_url            (PdOpenAIProvider *self);
guint             pd_openai_provider_get_max_retries         (PdOpenAIProvider *self);
void              pd_openai_provider_set_max_retries         (PdOpenAIProvider *self,
                                                              guint             max_retries);
guint             pd_openai_provider_get_retry_base_delay_ms (PdOpenAIProvider *self);
void              pd_openai_provider_set_retry_base_delay_ms (PdOpenAIProvider *self,
                                                              guint             delay_ms);

G_END_DECLS
