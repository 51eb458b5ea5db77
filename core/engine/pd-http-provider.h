/* pd-http-provider.h: the base of the providers that talk HTTP.
 *
 * PdHttpProvider holds what every HTTP wire shares: the SoupSession, the
 * base URL, the API key, the retry policy (Retry-After, overload, back-off)
 * and the streaming skeleton (one POST, server-sent events split into
 * events, cancellation).  A wire derives from it and keeps only its format:
 * the request body, its headers, and how its events fold into one answer.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <libsoup/soup.h>

#include "pd-provider.h"

G_BEGIN_DECLS

#define PD_TYPE_HTTP_PROVIDER (pd_http_provider_get_type ())
G_DECLARE_DERIVABLE_TYPE (PdHttpProvider, pd_http_provider, PD, HTTP_PROVIDER, GObject)

/* How a wire reads its answers: pd-http-provider-private.h. */
typedef struct _PdHttpReader PdHttpReader;

struct _PdHttpProviderClass
{
  GObjectClass parent_class;

  /* Set by each wire in its class_init. */
  const char *name;              /* "openai": PdProvider's name, and the first word of its errors */
  const char *default_base_url;  /* when neither the caller nor the environment gives one */
  const char *base_url_variable; /* the environment variable of the base URL ("OPENAI_BASE_URL") */
  const char *key_variable;      /* the environment variable of the key ("OPENAI_API_KEY") */
  const char *endpoint;          /* appended to the base URL unless it ends so: "/chat/completions" */
  const char *official_host;     /* a host that needs a key: its requests without one fail early */

  /* The request body of one chat call, in the wire's format (the base
   * sends it as JSON text). */
  JsonObject         *(*build_body)    (PdHttpProvider           *self,
                                        const PdProviderRequest  *request,
                                        GError                  **error);
  /* The wire's own headers, and its way of carrying @api_key (NULL or ""
   * when there is none). */
  void                (*add_headers)   (PdHttpProvider           *self,
                                        SoupMessageHeaders       *headers,
                                        const char               *api_key);
  /* How the wire reads one answer from the body of a 2xx response; the
   * base does the rest (the body, the events, the state's life). */
  const PdHttpReader *reader;

  gpointer padding[8];
};

const char *pd_http_provider_get_base_url            (PdHttpProvider *self);
guint       pd_http_provider_get_max_retries         (PdHttpProvider *self);
void        pd_http_provider_set_max_retries         (PdHttpProvider *self,
                                                      guint           max_retries);
guint       pd_http_provider_get_retry_base_delay_ms (PdHttpProvider *self);
void        pd_http_provider_set_retry_base_delay_ms (PdHttpProvider *self,
                                                      guint           delay_ms);

/* The two wires, each a type of its own for its constructor and casts; what
 * each speaks is said in its header (pd-openai-provider.h,
 * pd-anthropic-provider.h).  base_url NULL or "": the wire's variable, then
 * its default; api_key NULL: the wire's variable. */
#define PD_TYPE_OPENAI_PROVIDER    (pd_openai_provider_get_type ())
#define PD_TYPE_ANTHROPIC_PROVIDER (pd_anthropic_provider_get_type ())
G_DECLARE_FINAL_TYPE (PdOpenAIProvider, pd_openai_provider, PD, OPENAI_PROVIDER, PdHttpProvider)
G_DECLARE_FINAL_TYPE (PdAnthropicProvider, pd_anthropic_provider, PD, ANTHROPIC_PROVIDER, PdHttpProvider)

PdOpenAIProvider    *pd_openai_provider_new    (const char *base_url,
                                                const char *api_key);
PdAnthropicProvider *pd_anthropic_provider_new (const char *base_url,
                                                const char *api_key);

G_END_DECLS
