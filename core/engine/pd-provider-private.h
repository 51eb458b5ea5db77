/* pd-provider-private.h: what every provider shares.
 *
 * Tool-call checks, the cancellable wait, and the flattening of server and
 * model text for messages live here once, so that the HTTP wires
 * (pd-http-provider-private.h) and the replay fail the same way for the same
 * reasons.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-json-util.h"
#include "pd-provider.h"

G_BEGIN_DECLS

char         *_pd_provider_sanitize              (const char          *text,
                                                  gsize                max_chars,
                                                  const char          *secret);
/* The one error of a cancelled request: "NAME: the request was cancelled"
 * (PD_PROVIDER_ERROR_CANCELLED), whichever part of a provider saw it. */
void          _pd_provider_set_cancelled         (GError             **error,
                                                  const char          *name);
gboolean      _pd_provider_wait                  (guint                delay_ms,
                                                  const char          *name,
                                                  GCancellable        *cancellable,
                                                  GError             **error);
gboolean      _pd_provider_finish_tool_calls     (const char          *name,
                                                  JsonArray           *tool_calls,
                                                  GError             **error);
gboolean      _pd_provider_settle_tool_calls     (const char          *name,
                                                  PdProviderResponse  *response,
                                                  GError             **error);
JsonObject   *_pd_provider_new_tool_call         (const char          *id,
                                                  const char          *name,
                                                  const char          *arguments);
/* Typed reads of JSON members: core/base/pd-json-util.h's, under the names
 * the providers' wire code uses. */
#define _pd_provider_json_string pd_json_get_string
#define _pd_provider_json_object pd_json_get_object
#define _pd_provider_json_array  pd_json_get_array
#define _pd_provider_json_int    pd_json_get_int
char         *_pd_provider_content_text          (JsonNode            *content);
void          _pd_provider_emit_retrying         (PdProvider          *self,
                                                  guint                attempt,
                                                  guint                delay_ms,
                                                  const char          *reason);

G_END_DECLS
