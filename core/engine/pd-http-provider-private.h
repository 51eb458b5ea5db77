/* pd-http-provider-private.h: what the HTTP wires use of their base.
 *
 * pd-http-provider.c sends (one POST with retries); pd-http-provider-read.c
 * reads (bodies, server-sent events, error bodies).  The wires and their
 * tests see both through this header, so that OpenAI and Anthropic fail the
 * same way for the same reasons.
 */
#pragma once

#include "pd-http-provider.h"
#include "pd-provider-private.h"

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

typedef enum
{
  PD_SSE_CONTINUE,
  PD_SSE_DONE,
  PD_SSE_ERROR,
} PdSseResult;

/* event is "message" when the server named none; data has no trailing newline. */
typedef PdSseResult (*PdSseEventFunc)  (const char  *event,
                                        const char  *data,
                                        gsize        length,
                                        gpointer     user_data,
                                        GError     **error);
/* A whole answer in one JSON document (a server that ignored stream:true). */
typedef gboolean    (*PdHttpJsonFunc)  (gpointer     user_data,
                                        GBytes      *body,
                                        GError     **error);

/* How a wire reads one answer into its state (user_data). */
typedef struct
{
  PdHttpJsonFunc   read_json;
  PdSseEventFunc   on_event;
  /* Whether the events so far said how the answer ended, for a stream that
   * closed without its end event: otherwise it was cut, not short. */
  gboolean       (*said_end) (gpointer user_data);
  const char      *missing_end;   /* what was missing, for the message */
} PdHttpReader;

/* ---- pd-http-provider.c: the object and the sending ---- */

/* A wire's constructor: @base_url NULL or "" → the class's variable, then
 * its default; @api_key NULL → the class's variable. */
PdHttpProvider *_pd_http_provider_new               (GType                type,
                                                     const char          *base_url,
                                                     const char          *api_key);
/* Whether the base URL, with the wire's endpoint, is an http(s) URL. */
gboolean        _pd_http_provider_check_url         (PdHttpProvider      *self,
                                                     GError             **error);
gint64          _pd_http_provider_parse_retry_after (const char          *value,
                                                     GDateTime           *now);

/* ---- pd-http-provider-read.c: reading what the server sends ---- */

/* The skeleton of every wire's reader: a JSON body read whole (at most
 * PD_PROVIDER_MAX_RESPONSE_BYTES) and handed to read_json, or server-sent
 * events handed one by one to on_event; a stream that ends without its end
 * event, and without saying how the answer ended, is an error. */
gboolean        _pd_http_provider_read_answer       (const char          *name,
                                                     const PdHttpReader  *reader,
                                                     GInputStream        *input,
                                                     gboolean             is_json,
                                                     gpointer             user_data,
                                                     GCancellable        *cancellable,
                                                     GError             **error);
gboolean        _pd_http_provider_read_sse          (GInputStream        *stream,
                                                     const char          *name,
                                                     PdSseEventFunc       func,
                                                     gpointer             user_data,
                                                     gboolean            *out_done,
                                                     GCancellable        *cancellable,
                                                     GError             **error);
GBytes         *_pd_http_provider_read_body         (GInputStream        *stream,
                                                     const char          *name,
                                                     gsize                max_bytes,
                                                     GCancellable        *cancellable,
                                                     GError             **error);
gboolean        _pd_http_provider_is_json_response  (SoupMessage         *message);
/* The message of an error body, whatever its shape (or its text). */
char           *_pd_http_provider_error_body_message (GBytes             *body);
/* An error the server sent in place of an answer (@data: its event, or its
 * body): "NAME: the server WHEN: its message", cut and flattened to show. */
void            _pd_http_provider_set_server_error  (const char          *name,
                                                     PdProviderError      code,
                                                     const char          *when,
                                                     const char          *data,
                                                     gsize                length,
                                                     GError             **error);
/* The JSON object of an event's data or of a whole body; anything else is
 * a broken answer, named by @what ("an event of the stream"). */
JsonNode       *_pd_http_provider_parse_object      (const char          *name,
                                                     const char          *what,
                                                     const char          *data,
                                                     gsize                length,
                                                     GError             **error);
/* Adds @n bytes of model output to @total, failing once the answer of one
 * request grows beyond PD_PROVIDER_MAX_RESPONSE_BYTES. */
gboolean        _pd_http_provider_count_bytes       (const char          *name,
                                                     gsize               *total,
                                                     gsize                n,
                                                     GError             **error);

G_END_DECLS
