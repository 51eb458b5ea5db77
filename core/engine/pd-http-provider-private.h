/* pd-http-provider-private.h: what the HTTP wires use of their base.
 *
 * pd-http-provider.c sends (one POST with retries); pd-http-provider-read.c
 * reads (bodies, server-sent events, error bodies).  The wires and their
 * tests see both through this header, so that OpenAI and Anthropic fail the
 * same way for the same reasons.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
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
/* A whole answer in one JSON object (a server that ignored stream:true);
 * @data is the body the object was read from, for an error that quotes it. */
typedef gboolean    (*PdHttpJsonFunc)  (gpointer     user_data,
                                        JsonObject  *object,
                                        const char  *data,
                                        gsize        length,
                                        GError     **error);

/* What every wire's reader keeps besides its own format: where the deltas
 * go, how much model output came so far (for the cap), and the tokens the
 * server counted.  A wire's state starts with one, so that the callbacks
 * below get the whole state as user_data (the base allocates it zeroed, of
 * the reader's state_size, and fills this part in). */
typedef struct
{
  const char          *name;          /* the wire's, for its errors */
  PdProviderDeltaFunc  on_delta;
  gpointer             delta_data;
  gsize                total;         /* bytes of content and arguments */
  gint64               input_tokens;  /* -1 while the server said none */
  gint64               output_tokens;
  /* How the server said the answer ended, in its words (Anthropic's
   * stop_reason, OpenAI's finish_reason); NULL while it said nothing.  A
   * stream that closes without its end event and without this was cut,
   * not short. */
  char                *stop;
} PdHttpAnswer;

/* How a wire reads one answer into its state (user_data). */
struct _PdHttpReader
{
  gsize            state_size;    /* of the wire's state, which starts with a PdHttpAnswer */
  /* Sets up the wire's own part of a new state; frees it. */
  void           (*init)     (gpointer        state,
                              PdHttpProvider *self);
  void           (*clear)    (gpointer        state);
  PdHttpJsonFunc   read_json;
  PdSseEventFunc   on_event;
  /* What was missing when a stream closed without its end event and no
   * PdHttpAnswer.stop came, for the message. */
  const char      *missing_end;
  /* The response from the state, once all of it is read, with its
   * finish_reason set; the base then settles its tool calls
   * (_pd_provider_settle_tool_calls()) and adds the tokens. */
  PdProviderResponse *(*build) (gpointer user_data,
                                GError **error);
};

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

/* One answer of @self's wire from the body of a 2xx response (a JSON
 * document when @is_json, server-sent events otherwise), without HTTP:
 * what chat() calls, and the tests and the fuzz targets too.  A JSON body
 * is read whole (at most PD_PROVIDER_MAX_RESPONSE_BYTES), and its object
 * handed to read_json (anything but an object is a broken answer), server-sent events one by one to on_event; a stream that ends
 * without its end event, and without saying how the answer ended, is an
 * error.  Then the wire builds the response, the tokens of its
 * PdHttpAnswer go into it, and its tool calls are settled. */
PdProviderResponse *_pd_http_provider_read_response (PdHttpProvider      *self,
                                                     GInputStream        *input,
                                                     gboolean             is_json,
                                                     PdProviderDeltaFunc  on_delta,
                                                     gpointer             delta_data,
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
/* Hands @text to the caller's delta function, if any and if @text has any. */
void            _pd_http_answer_emit                (PdHttpAnswer        *answer,
                                                     PdProviderDeltaKind  kind,
                                                     const char          *text);
/* Keeps @stop as how the answer ended (NULL: the server said nothing of it
 * here, and what it said before stays). */
void            _pd_http_answer_set_stop            (PdHttpAnswer        *answer,
                                                     const char          *stop);
/* Appends the model's @text to @into, counted toward the cap. */
gboolean        _pd_http_answer_append              (PdHttpAnswer        *answer,
                                                     GString             *into,
                                                     const char          *text,
                                                     GError             **error);

G_END_DECLS
