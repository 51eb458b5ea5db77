/* pd-provider-private.h: what the HTTP providers share.
 *
 * Retries with backoff, the server-sent-events reader, error-body reading
 * and tool-argument checks live here once, so that the OpenAI and Anthropic
 * providers fail the same way for the same reasons.
 */
#pragma once

#include <libsoup/soup.h>

#include "pd-json-util.h"
#include "pd-provider.h"

G_BEGIN_DECLS

/* One SSE line (and one event) may not exceed this: a server that sends
 * more is broken, and we must not grow a buffer without bound. */
#define PD_PROVIDER_MAX_LINE_BYTES     (4 * 1024 * 1024)
/* The whole of one response (content plus tool arguments, or a JSON body). */
#define PD_PROVIDER_MAX_RESPONSE_BYTES (64 * 1024 * 1024)
#define PD_PROVIDER_RETRY_AFTER_CAP_MS (60 * 1000)
#define PD_PROVIDER_BACKOFF_CAP_MS     (30 * 1000)
#define PD_PROVIDER_DEFAULT_RETRIES    3
#define PD_PROVIDER_DEFAULT_BASE_DELAY 500

typedef struct
{
  const char  *name;           /* "openai", for messages */
  guint        max_retries;
  guint        base_delay_ms;
  const char  *secret;         /* the API key: redacted from every message */
} PdHttpPolicy;

typedef void (*PdHttpHeadersFunc) (SoupMessageHeaders *headers,
                                   gpointer            user_data);

typedef enum
{
  PD_SSE_CONTINUE,
  PD_SSE_DONE,
  PD_SSE_ERROR,
} PdSseResult;

/* event is "message" when the server named none; data has no trailing newline. */
typedef PdSseResult (*PdSseEventFunc) (const char  *event,
                                       const char  *data,
                                       gsize        length,
                                       gpointer     user_data,
                                       GError     **error);

SoupSession  *_pd_provider_new_session           (void);
char         *_pd_provider_build_url             (const char          *name,
                                                  const char          *base_url,
                                                  const char          *suffix,
                                                  GError             **error);
/* Reads one answer from a 2xx body (a JSON document when @is_json). */
typedef PdProviderResponse *(*PdHttpReadFunc) (GInputStream         *input,
                                               gboolean              is_json,
                                               PdProviderDeltaFunc   on_delta,
                                               gpointer              delta_data,
                                               gpointer              read_data,
                                               GCancellable         *cancellable,
                                               GError              **error);

PdProviderResponse *_pd_provider_http_chat       (PdProvider               *self,
                                                  SoupSession              *session,
                                                  const PdHttpPolicy       *policy,
                                                  const char               *url,
                                                  GBytes                   *body,
                                                  PdHttpHeadersFunc         add_headers,
                                                  gpointer                  headers_data,
                                                  PdHttpReadFunc            read,
                                                  gpointer                  read_data,
                                                  const PdProviderRequest  *request,
                                                  PdProviderDeltaFunc       on_delta,
                                                  gpointer                  delta_data,
                                                  GCancellable             *cancellable,
                                                  GError                  **error);
gboolean      _pd_provider_read_sse              (GInputStream        *stream,
                                                  const char          *name,
                                                  PdSseEventFunc       func,
                                                  gpointer             user_data,
                                                  gboolean            *out_done,
                                                  GCancellable        *cancellable,
                                                  GError             **error);
GBytes       *_pd_provider_read_body             (GInputStream        *stream,
                                                  const char          *name,
                                                  gsize                max_bytes,
                                                  GCancellable        *cancellable,
                                                  GError             **error);
gboolean      _pd_provider_is_json_response      (SoupMessage         *message);
gboolean      _pd_provider_url_has_host          (const char          *url,
                                                  const char          *host);
gboolean      _pd_provider_count_bytes           (const char          *name,
                                                  gsize               *total,
                                                  gsize                n,
                                                  GError             **error);
gint64        _pd_provider_parse_retry_after     (const char          *value,
                                                  GDateTime           *now);
char         *_pd_provider_error_body_message    (GBytes              *body);
char         *_pd_provider_sanitize              (const char          *text,
                                                  gsize                max_chars,
                                                  const char          *secret);
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
