/* fuzz-sse-anthropic.c: the Anthropic Messages response reader.
 *
 * The first byte chooses the body's kind (bit 0: a JSON document instead
 * of server-sent events) and how many bytes each read returns (the rest,
 * 1 to 128, so lines and CR/LF pairs are cut anywhere); the remainder is
 * the body.  Every delta and every answer is valid UTF-8, and an answer's
 * tool calls carry a name and JSON-object arguments.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "pd-anthropic-provider.h"
#include "pd-http-provider-private.h"
#include "pd-fuzz.h"
#include "pd-fuzz-stream.h"
#include "pd-fuzz-response.h"

static PdAnthropicProvider *provider;

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  pd_fuzz_init_logging ();
  provider = pd_anthropic_provider_new ("http://127.0.0.1:9", NULL);
  return 0;
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GError) error = NULL;
  PdProviderResponse *response;

  if (size < 1 || size > 256 * 1024)
    return -1;

  input = pd_fuzz_stream_new (data + 1, size - 1, data[0] & 1 ? 4096 : 1 + (data[0] >> 1));
  response = _pd_http_provider_read_response (PD_HTTP_PROVIDER (provider), input, data[0] & 1,
                                              pd_fuzz_on_delta, NULL, NULL, &error);
  pd_fuzz_check_response (response, error);
  return 0;
}
