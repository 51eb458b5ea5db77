/* pd-fuzz-response.h: what a provider's answer promises, whatever the
 * server sent (see PdProviderResponse in pd-provider.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "pd-provider.h"

static void
pd_fuzz_on_delta (PdProviderDeltaKind  kind,
                  const char          *text,
                  gpointer             user_data)
{
  if (text == NULL || !g_utf8_validate (text, -1, NULL))
    {
      g_printerr ("a delta is not valid UTF-8\n");
      abort ();
    }
}

static inline void
pd_fuzz_check_response (PdProviderResponse *response,
                        GError             *error)
{
  if ((response == NULL) == (error == NULL))
    {
      g_printerr ("exactly one of an answer and an error is expected\n");
      abort ();
    }
  if (error != NULL)
    {
      if (!g_utf8_validate (error->message, -1, NULL))
        abort ();
      return;
    }
  if (response->content == NULL || !g_utf8_validate (response->content, -1, NULL)
      || response->finish_reason == NULL || response->tool_calls == NULL)
    {
      g_printerr ("an answer without content, finish reason or tool calls\n");
      abort ();
    }
  for (guint i = 0; i < json_array_get_length (response->tool_calls); i++)
    {
      JsonObject *call = json_array_get_object_element (response->tool_calls, i);
      JsonObject *function = call ? json_object_get_object_member (call, "function") : NULL;
      const char *arguments = function ? json_object_get_string_member (function, "arguments") : NULL;
      g_autoptr(JsonParser) parser = json_parser_new ();

      if (arguments == NULL || !json_parser_load_from_data (parser, arguments, -1, NULL)
          || !JSON_NODE_HOLDS_OBJECT (json_parser_get_root (parser)))
        {
          g_printerr ("tool call %u has no JSON-object arguments\n", i);
          abort ();
        }
    }
  pd_provider_response_free (response);
}
