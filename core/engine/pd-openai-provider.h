/* pd-openai-provider.h: OpenAI-compatible Chat Completions, streamed.
 *
 * The protocol Ollama, llama.cpp's server, vLLM, LM Studio and OpenAI
 * speak: POST {base}/chat/completions with stream:true, read as
 * server-sent events.  The base URL is e.g. http://127.0.0.1:11434/v1;
 * without one, $OPENAI_BASE_URL, then https://api.openai.com/v1.  The key:
 * $OPENAI_API_KEY without one; local servers may need none.
 * pd_openai_provider_new() is declared with its base, PdHttpProvider.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-http-provider.h"
