/* pd-provider.h: one streaming chat call to a language model, with tools.
 *
 * The engine loop runs in a worker thread and calls pd_provider_chat()
 * synchronously.  Requests and responses use the OpenAI Chat Completions
 * shapes whatever the wire protocol is, so the engine and the transcript
 * store only ever see one shape.
 *
 * Everything a response carries (content, tool names, tool arguments) is
 * model output: data to show and record, never to execute or interpret as
 * markup.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define PD_PROVIDER_ERROR (pd_provider_error_quark ())

/* Messages start with the provider name ("openai: …") and say what to do. */
typedef enum
{
  PD_PROVIDER_ERROR_NETWORK,            /* connection failed (after retries) or broke mid-stream */
  PD_PROVIDER_ERROR_HTTP,               /* 4xx other than 401/403/429: the request was refused */
  PD_PROVIDER_ERROR_RATE_LIMITED,       /* 429 after all retries */
  PD_PROVIDER_ERROR_SERVER,             /* 5xx after all retries, or a server error event */
  PD_PROVIDER_ERROR_OVERLOADED,         /* 529/503 or an overloaded_error event, after all retries */
  PD_PROVIDER_ERROR_AUTH,               /* 401/403: never retried */
  PD_PROVIDER_ERROR_MALFORMED_STREAM,   /* the response could not be understood */
  PD_PROVIDER_ERROR_BAD_TOOL_ARGUMENTS, /* unused: such an answer is a response with "rejected" */
  PD_PROVIDER_ERROR_CANCELLED,
  PD_PROVIDER_ERROR_REPLAY_EXHAUSTED,
  PD_PROVIDER_ERROR_INVALID_CONFIG,
  PD_PROVIDER_ERROR_OUTPUT_LIMIT,       /* the engine: answers keep being cut by the output limit */
} PdProviderError;

GQuark pd_provider_error_quark (void);

/* Told before a request is sent again: @attempt is the number of the one
 * about to go (2 for the first retry) of at most @max_attempts, after
 * @delay_ms; @status is the HTTP status that failed (0: none, or an error
 * in the middle of the answer); @reason names it.  Whatever streamed of the
 * failed attempt is void: the answer starts over. */
typedef void (*PdProviderRetryFunc) (guint        attempt,
                                     guint        max_attempts,
                                     guint        delay_ms,
                                     guint        status,
                                     const char  *reason,
                                     gpointer     user_data);

typedef struct
{
  const char *model;
  /* OpenAI-shaped: {role: system|user|assistant|tool, content (string|null),
   * name?, tool_call_id?, tool_calls?: [{id, type:"function",
   * function:{name, arguments (JSON text)}}]} */
  JsonArray  *messages;
  /* OpenAI function tools: [{type:"function", function:{name, description,
   * parameters}}]; NULL or empty for none. */
  JsonArray  *tools;
  guint       max_tokens;   /* the output limit of this answer; 0 = provider default */
  double      temperature;  /* < 0 = provider default */
  PdProviderRetryFunc on_retry;  /* nullable; called on the calling thread */
  gpointer    retry_data;
  /* Anthropic extended thinking: a budget in tokens (0: off; less than
   * max_tokens), or adaptive thinking for the families that take only
   * that.  With either, the thinking blocks stored with earlier answers
   * ("thinking" on assistant messages) are sent back unchanged. */
  guint       thinking_budget;
  gboolean    thinking_adaptive;
} PdProviderRequest;

typedef enum
{
  PD_PROVIDER_DELTA_TEXT,       /* a piece of the assistant's content */
  PD_PROVIDER_DELTA_TOOL_CALL,  /* the name of a tool call, once, as soon as it is known */
  PD_PROVIDER_DELTA_REASONING,  /* a piece of reasoning/thinking text (not part of content) */
} PdProviderDeltaKind;

/* Streaming progress, called on the calling (worker) thread. */
typedef void (*PdProviderDeltaFunc) (PdProviderDeltaKind  kind,
                                     const char          *text,
                                     gpointer             user_data);

#define PD_TYPE_PROVIDER_RESPONSE (pd_provider_response_get_type ())

/* finish_reason, whatever the wire: */
#define PD_FINISH_STOP       "stop"        /* a whole answer */
#define PD_FINISH_TOOL_CALLS "tool_calls"  /* the answer asks for tools */
#define PD_FINISH_LENGTH     "length"      /* cut off by the output limit (max_tokens) */
#define PD_FINISH_REFUSAL    "refusal"     /* the model (or the server's filter) declined */

typedef struct
{
  char      *content;        /* never NULL; "" when the model wrote no text */
  JsonArray *tool_calls;     /* never NULL; [{id, type:"function", function:{name, arguments}}],
                              * arguments always the text of a JSON object */
  char      *finish_reason;  /* never NULL: one of the PD_FINISH_ words above */
  gint64     input_tokens;   /* -1 when the server did not say */
  gint64     output_tokens;  /* -1 when the server did not say */
  char      *stop_reason;    /* nullable: the server's own word ("end_turn", "max_tokens",
                              * "refusal", "length", "content_filter", …), for naming it */
  char      *refusal;        /* set exactly when finish_reason is "refusal": the explanation
                              * (the server's, or the model's refusal text), never "" */
  char      *refusal_category; /* nullable: the policy category the server named */
  char      *cut_tool;       /* nullable: the answer was cut by the output limit while it called
                              * this tool; no call of it is in tool_calls (none can run) */
  char      *rejected;       /* nullable: why the answer's tool calls cannot be used (arguments
                              * that are not a JSON object); tool_calls is then empty */
  char      *reasoning;      /* nullable: the model's thinking or reasoning, as text to show */
  char      *reasoning_field; /* nullable: "reasoning_content" when an OpenAI-compatible server
                              * sent that field (sent back with tool calls, as such servers ask) */
  JsonArray *thinking;       /* nullable: Anthropic thinking and redacted_thinking blocks, whole
                              * and in order, signatures included: to be sent back unchanged */
} PdProviderResponse;

GType               pd_provider_response_get_type (void) G_GNUC_CONST;
PdProviderResponse *pd_provider_response_new      (void);
PdProviderResponse *pd_provider_response_copy     (const PdProviderResponse *response);
void                pd_provider_response_free     (PdProviderResponse       *response);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdProviderResponse, pd_provider_response_free)

#define PD_TYPE_PROVIDER (pd_provider_get_type ())
G_DECLARE_INTERFACE (PdProvider, pd_provider, PD, PROVIDER, GObject)

/* Signals (on every provider):
 *   "retrying" (PdProvider *self, guint attempt, guint delay_ms,
 *               const char *reason) — emitted on the calling thread before
 *   an HTTP provider waits to send a request again; the engine can record
 *   it so a slow answer is explained.
 */
struct _PdProviderInterface
{
  GTypeInterface parent;

  const char         *(*get_name) (PdProvider                *self);
  PdProviderResponse *(*chat)     (PdProvider                *self,
                                   const PdProviderRequest   *request,
                                   PdProviderDeltaFunc        on_delta,
                                   gpointer                   delta_data,
                                   GCancellable              *cancellable,
                                   GError                   **error);
};

/* "openai", "anthropic", "replay" */
const char         *pd_provider_get_name     (PdProvider               *self);

/* SYNCHRONOUS: blocks the calling (worker) thread until the whole response
 * has arrived, the call failed, or @cancellable was cancelled.  Returns NULL
 * with @error set on failure; text already streamed through @on_delta is
 * the only partial result. */
PdProviderResponse *pd_provider_chat         (PdProvider               *self,
                                              const PdProviderRequest  *request,
                                              PdProviderDeltaFunc       on_delta,
                                              gpointer                  delta_data,
                                              GCancellable             *cancellable,
                                              GError                  **error);

/* name: "openai", "anthropic" or "replay".  base_url and api_key may be NULL
 * (environment, then defaults); replay_path is required for "replay". */
PdProvider         *pd_provider_new_for_name (const char               *name,
                                              const char               *base_url,
                                              const char               *api_key,
                                              const char               *replay_path,
                                              GError                  **error);

G_END_DECLS
