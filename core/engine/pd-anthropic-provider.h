/* pd-anthropic-provider.h: Anthropic Messages, streamed.
 *
 * POST {base}/v1/messages with stream:true.  Requests and responses are
 * converted from and to the OpenAI shapes of pd-provider.h.  Without a base
 * URL, $ANTHROPIC_BASE_URL, then https://api.anthropic.com; the key:
 * $ANTHROPIC_API_KEY without one (api.anthropic.com requires one).
 * pd_anthropic_provider_new() is declared with its base, PdHttpProvider.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-http-provider.h"
