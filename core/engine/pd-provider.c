/* pd-provider.c: the PdProvider interface, its response type, the factory
 * and the helpers every provider shares.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-provider"

#include "config.h"

#include <string.h>

#include "pd-anthropic-provider.h"
#include "pd-http-provider-private.h"
#include "pd-json.h"
#include "pd-openai-provider.h"
#include "pd-replay-provider.h"
#include "pd-secret-text.h"

G_DEFINE_QUARK (pd-provider-error-quark, pd_provider_error)

enum {
  RETRYING,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_INTERFACE (PdProvider, pd_provider, G_TYPE_OBJECT)

static void
pd_provider_default_init (PdProviderInterface *iface)
{
  signals[RETRYING] =
    g_signal_new ("retrying",
                  G_TYPE_FROM_INTERFACE (iface),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3, G_TYPE_UINT, G_TYPE_UINT, G_TYPE_STRING);
}

G_DEFINE_BOXED_TYPE (PdProviderResponse, pd_provider_response,
                     pd_provider_response_copy, pd_provider_response_free)

PdProviderResponse *
pd_provider_response_new (void)
{
  PdProviderResponse *response = g_new0 (PdProviderResponse, 1);

  response->content = g_strdup ("");
  response->tool_calls = json_array_new ();
  response->finish_reason = g_strdup ("stop");
  response->input_tokens = -1;
  response->output_tokens = -1;

  return response;
}

PdProviderResponse *
pd_provider_response_copy (const PdProviderResponse *response)
{
  PdProviderResponse *copy;
  g_autoptr(JsonNode) calls = NULL;
  g_autoptr(JsonNode) calls_copy = NULL;

  g_return_val_if_fail (response != NULL, NULL);

  copy = g_new0 (PdProviderResponse, 1);
  copy->content = g_strdup (response->content);
  copy->finish_reason = g_strdup (response->finish_reason);
  copy->input_tokens = response->input_tokens;
  copy->output_tokens = response->output_tokens;
  copy->stop_reason = g_strdup (response->stop_reason);
  copy->refusal = g_strdup (response->refusal);
  copy->refusal_category = g_strdup (response->refusal_category);
  copy->cut_tool = g_strdup (response->cut_tool);
  copy->rejected = g_strdup (response->rejected);
  copy->reasoning = g_strdup (response->reasoning);
  copy->reasoning_field = g_strdup (response->reasoning_field);
  if (response->thinking != NULL)
    {
      g_autoptr(JsonNode) blocks = json_node_init_array (json_node_alloc (), response->thinking);
      g_autoptr(JsonNode) blocks_copy = json_node_copy (blocks);

      copy->thinking = json_node_dup_array (blocks_copy);
    }

  /* A deep copy: the caller may edit one without the other changing. */
  if (response->tool_calls != NULL)
    {
      calls = json_node_init_array (json_node_alloc (), response->tool_calls);
      calls_copy = json_node_copy (calls);
      copy->tool_calls = json_node_dup_array (calls_copy);
    }

  return copy;
}

void
pd_provider_response_free (PdProviderResponse *response)
{
  if (response == NULL)
    return;

  g_free (response->content);
  g_clear_pointer (&response->tool_calls, json_array_unref);
  g_free (response->finish_reason);
  g_free (response->stop_reason);
  g_free (response->refusal);
  g_free (response->refusal_category);
  g_free (response->cut_tool);
  g_free (response->rejected);
  g_free (response->reasoning);
  g_free (response->reasoning_field);
  g_clear_pointer (&response->thinking, json_array_unref);
  g_free (response);
}

const char *
pd_provider_get_name (PdProvider *self)
{
  g_return_val_if_fail (PD_IS_PROVIDER (self), NULL);

  return PD_PROVIDER_GET_IFACE (self)->get_name (self);
}

PdProviderResponse *
pd_provider_chat (PdProvider               *self,
                  const PdProviderRequest  *request,
                  PdProviderDeltaFunc       on_delta,
                  gpointer                  delta_data,
                  GCancellable             *cancellable,
                  GError                  **error)
{
  g_autoptr(GError) local_error = NULL;
  PdProviderResponse *response;

  g_return_val_if_fail (PD_IS_PROVIDER (self), NULL);
  g_return_val_if_fail (request != NULL, NULL);
  g_return_val_if_fail (request->messages != NULL, NULL);
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_cancellable_is_cancelled (cancellable))
    {
      _pd_provider_set_cancelled (error, pd_provider_get_name (self));
      return NULL;
    }

  response = PD_PROVIDER_GET_IFACE (self)->chat (self, request, on_delta, delta_data,
                                                 cancellable, &local_error);

  if (response == NULL)
    {
      /* The engine records whatever comes back; make sure something does. */
      if (local_error == NULL)
        g_set_error (&local_error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_MALFORMED_STREAM,
                     "%s: the provider returned no response and no reason",
                     pd_provider_get_name (self));
      else if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_clear_error (&local_error);
          _pd_provider_set_cancelled (&local_error, pd_provider_get_name (self));
        }
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }

  if (response->content == NULL)
    response->content = g_strdup ("");
  if (response->tool_calls == NULL)
    response->tool_calls = json_array_new ();
  if (response->finish_reason == NULL)
    response->finish_reason = g_strdup (json_array_get_length (response->tool_calls) > 0
                                        ? PD_FINISH_TOOL_CALLS : PD_FINISH_STOP);

  /* A refusal always says something a person can read, and only a refusal
   * carries one. */
  if (g_strcmp0 (response->finish_reason, PD_FINISH_REFUSAL) == 0)
    {
      if (response->refusal == NULL || *response->refusal == '\0')
        {
          g_free (response->refusal);
          response->refusal = g_strdup ("the model declined to answer and gave no explanation");
        }
    }
  else
    {
      g_clear_pointer (&response->refusal, g_free);
      g_clear_pointer (&response->refusal_category, g_free);
    }

  return response;
}

PdProvider *
pd_provider_new_for_name (const char  *name,
                          const char  *base_url,
                          const char  *api_key,
                          const char  *replay_path,
                          GError     **error)
{
  g_autoptr(PdProvider) provider = NULL;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_strcmp0 (name, "replay") == 0)
    {
      if (replay_path == NULL || *replay_path == '\0')
        {
          g_set_error_literal (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG,
                               "replay: no file of recorded turns was given");
          return NULL;
        }
      return PD_PROVIDER (pd_replay_provider_new_from_file (replay_path, error));
    }

  if (g_strcmp0 (name, "openai") == 0)
    provider = PD_PROVIDER (pd_openai_provider_new (base_url, api_key));
  else if (g_strcmp0 (name, "anthropic") == 0)
    provider = PD_PROVIDER (pd_anthropic_provider_new (base_url, api_key));
  else
    {
      g_autofree char *shown = _pd_provider_sanitize (name ? name : "(none)", 40, NULL);

      g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG,
                   "unknown provider “%s”: use openai, anthropic or replay", shown);
      return NULL;
    }

  /* A bad URL is a configuration mistake: say so now, not at the first turn. */
  if (!_pd_http_provider_check_url (PD_HTTP_PROVIDER (provider), error))
    return NULL;

  return g_steal_pointer (&provider);
}

void
_pd_provider_set_cancelled (GError     **error,
                            const char  *name)
{
  g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_CANCELLED,
               "%s: the request was cancelled", name);
}

/* Sleeps @delay_ms on the calling thread, or until @cancellable is
 * cancelled (then FALSE, with a cancelled error). */
gboolean
_pd_provider_wait (guint          delay_ms,
                   const char    *name,
                   GCancellable  *cancellable,
                   GError       **error)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) delay_ms * 1000;
  GPollFD pollfd;
  gboolean have_fd = cancellable && g_cancellable_make_pollfd (cancellable, &pollfd);

  for (;;)
    {
      gint64 left = deadline - g_get_monotonic_time ();

      if (g_cancellable_is_cancelled (cancellable))
        break;
      if (left <= 0)
        break;

      /* Woken by the cancellable's fd, so cancelling does not wait out a
       * 60-second Retry-After.  Without an fd, poll in short slices. */
      if (have_fd)
        g_poll (&pollfd, 1, (int) MAX (1, left / 1000));
      else
        g_usleep (MIN (left, 20 * 1000));
    }

  if (have_fd)
    g_cancellable_release_fd (cancellable);

  if (g_cancellable_is_cancelled (cancellable))
    {
      _pd_provider_set_cancelled (error, name);
      return FALSE;
    }

  return TRUE;
}

void
_pd_provider_emit_retrying (PdProvider *self,
                            guint       attempt,
                            guint       delay_ms,
                            const char *reason)
{
  g_signal_emit (self, signals[RETRYING], 0, attempt, delay_ms, reason);
}

/* OpenAI content is a string, null, or an array of parts; only the text
 * parts mean anything to the providers that take plain text. */
char *
_pd_provider_content_text (JsonNode *content)
{
  char *text = pd_json_content_text (content, "");

  return text != NULL ? text : g_strdup ("");
}

JsonObject *
_pd_provider_new_tool_call (const char *id,
                            const char *name,
                            const char *arguments)
{
  JsonObject *call = json_object_new ();
  JsonObject *function = json_object_new ();

  json_object_set_string_member (function, "name", name ? name : "");
  json_object_set_string_member (function, "arguments", arguments ? arguments : "");
  json_object_set_string_member (call, "id", id ? id : "");
  json_object_set_string_member (call, "type", "function");
  json_object_set_object_member (call, "function", function);

  return call;
}

/* Every provider hands the engine tool calls whose arguments are the text of
 * a JSON object, so the engine never has to guess.  An empty string is what
 * several servers send for a call without parameters. */
gboolean
_pd_provider_finish_tool_calls (const char  *name,
                                JsonArray   *tool_calls,
                                GError     **error)
{
  for (guint i = 0; i < json_array_get_length (tool_calls); i++)
    {
      JsonObject *call = json_array_get_object_element (tool_calls, i);
      JsonObject *function = _pd_provider_json_object (call, "function");
      const char *tool = _pd_provider_json_string (function, "name");
      const char *arguments = _pd_provider_json_string (function, "arguments");
      g_autoptr(JsonNode) parsed = NULL;
      g_autoptr(GError) parse_error = NULL;
      g_autofree char *trimmed = NULL;

      if (tool == NULL || *tool == '\0')
        {
          g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_MALFORMED_STREAM,
                       "%s: tool call %u of the response has no tool name", name, i + 1);
          return FALSE;
        }

      trimmed = g_strstrip (g_strdup (arguments ? arguments : ""));
      if (*trimmed == '\0')
        {
          json_object_set_string_member (function, "arguments", "{}");
          continue;
        }

      parsed = pd_json_parse (trimmed, -1, &parse_error);
      if (parsed == NULL || !JSON_NODE_HOLDS_OBJECT (parsed))
        {
          g_autofree char *shown_tool = _pd_provider_sanitize (tool, 80, NULL);

          /* The arguments' text is not quoted: cut, or spelled in \u
           * escapes, a key in it passed every redaction (tried as an
           * attacker would); the stored call keeps them, redacted as a
           * whole. */
          g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_BAD_TOOL_ARGUMENTS,
                       "%s: the model called the tool “%s” with arguments that are not a JSON object (%s; %"
                       G_GSIZE_FORMAT " bytes)",
                       name, shown_tool,
                       parse_error ? parse_error->message : "not an object", strlen (arguments));
          return FALSE;
        }
    }

  return TRUE;
}

/**
 * _pd_provider_settle_tool_calls:
 *
 * What becomes of an answer's tool calls, once its finish reason is known:
 *  - cut by the output limit: none runs (the last one lost its arguments,
 *    and the others were meant to go with it); cut_tool names the last;
 *  - arguments that are not a JSON object: none runs, and rejected says
 *    why, so the engine can ask again and still count what was spent;
 *  - otherwise they are checked and kept (arguments "" become "{}").
 *
 * Returns: %FALSE only for a call without a tool name
 */
gboolean
_pd_provider_settle_tool_calls (const char          *name,
                                PdProviderResponse  *response,
                                GError             **error)
{
  g_autoptr(GError) local_error = NULL;
  guint n = json_array_get_length (response->tool_calls);

  if (n > 0 && g_strcmp0 (response->finish_reason, PD_FINISH_LENGTH) == 0)
    {
      JsonObject *last = json_array_get_object_element (response->tool_calls, n - 1);
      const char *tool = _pd_provider_json_string (_pd_provider_json_object (last, "function"), "name");

      response->cut_tool = _pd_provider_sanitize (tool && *tool ? tool : "(unnamed)", 80, NULL);
      json_array_unref (response->tool_calls);
      response->tool_calls = json_array_new ();
      return TRUE;
    }

  if (_pd_provider_finish_tool_calls (name, response->tool_calls, &local_error))
    return TRUE;

  if (!g_error_matches (local_error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_BAD_TOOL_ARGUMENTS))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }

  response->rejected = g_strdup (local_error->message);
  json_array_unref (response->tool_calls);
  response->tool_calls = json_array_new ();
  return TRUE;
}

/* Text from a server or a model that goes into an error message: cut to a
 * length a person can read, control characters flattened so it cannot fake
 * log lines, and the API key removed in case a server echoes it. */
char *
_pd_provider_sanitize (const char *text,
                       gsize       max_chars,
                       const char *secret)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *valid = NULL;
  const char *p;
  gsize n = 0;

  if (text == NULL)
    return g_strdup ("");

  valid = g_utf8_make_valid (text, -1);

  if (secret != NULL && strlen (secret) >= 4)
    {
      g_autoptr(GString) redacted = g_string_new (valid);

      g_string_replace (redacted, secret, "[redacted]", 0);
      g_free (valid);
      valid = g_string_free (g_steal_pointer (&redacted), FALSE);
    }
  /* Every key and URL secret this process holds, whatever its shape. */
  {
    char *masked = pd_secret_text_mask (valid, NULL);

    g_free (valid);
    valid = masked;
  }

  for (p = valid; *p != '\0' && n < max_chars; p = g_utf8_next_char (p), n++)
    {
      gunichar c = g_utf8_get_char (p);

      if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0))
        g_string_append_c (out, ' ');
      else
        g_string_append_unichar (out, c);
    }

  if (*p != '\0')
    g_string_append (out, "…");

  return g_string_free (g_steal_pointer (&out), FALSE);
}
