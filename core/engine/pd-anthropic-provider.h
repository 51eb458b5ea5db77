/* pd-anthropic-provider.h: Anthropic Messages, streamed.
 *
 * POST {base}/v1/messages with stream:true.  Requests and responses are
 * converted from and to the OpenAI shapes of pd-provider.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-http-provider.h"

G_BEGIN_DECLS

#define PD_TYPE_ANTHROPIC_PROVIDER (pd_anthropic_provider_get_type ())
G_DECLARE_FINAL_TYPE (PdAnthropicProvider, pd_anthropic_provider, PD, ANTHROPIC_PROVIDER, PdHttpProvider)

/* base_url: NULL → $ANTHROPIC_BASE_URL, then https://api.anthropic.com.
 * api_key: NULL → $ANTHROPIC_API_KEY (required by api.anthropic.com).  The
 * retry policy and the base URL are PdHttpProvider's. */
PdAnthropicProvider *pd_anthropic_provider_new (const char *base_url,
                                                const char *api_key);

G_END_DECLS
