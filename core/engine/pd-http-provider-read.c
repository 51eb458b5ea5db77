/* pd-http-provider-read.c: reading what an HTTP provider's server sends.
 *
 * The body of an answer (a JSON document, or server-sent events split into
 * lines and events), and the body of an error.  Everything here runs on the
 * caller's worker thread and blocks on the stream; cancelling its
 * cancellable ends the read.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-provider"

#include "config.h"

#include <string.h>

#include "pd-json.h"
#include "pd-http-provider-private.h"

/* What an error event may show of the server's message. */
#define MAX_SHOWN_SERVER_MESSAGE 400

char *
_pd_http_provider_error_body_message (GBytes *body)
{
  g_autoptr(JsonNode) root = NULL;
  const char *data;
  gsize size;
  JsonObject *object;
  JsonObject *inner;
  JsonNode *node;

  if (body == NULL || g_bytes_get_size (body) == 0)
    return NULL;

  data = g_bytes_get_data (body, &size);
  root = pd_json_parse (data, size, NULL);

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_autofree char *text = g_strndup (data, size);

      g_strstrip (text);
      return *text ? g_steal_pointer (&text) : NULL;
    }

  object = json_node_get_object (root);

  /* OpenAI {"error":{"message","type"}}, Anthropic
   * {"type":"error","error":{"type","message"}}, some servers {"error":"…"},
   * FastAPI-style {"detail":"…"}, others {"message":"…"}. */
  if ((inner = _pd_provider_json_object (object, "error")))
    {
      const char *type = _pd_provider_json_string (inner, "type");
      const char *message = _pd_provider_json_string (inner, "message");

      if (type && message)
        return g_strdup_printf ("%s: %s", type, message);
      if (message || type)
        return g_strdup (message ? message : type);
    }

  if ((node = json_object_get_member (object, "error")) ||
      (node = json_object_get_member (object, "detail")) ||
      (node = json_object_get_member (object, "message")))
    {
      const char *text = pd_json_node_get_string (node);

      return text != NULL ? g_strdup (text) : pd_json_to_string (node, FALSE);
    }

  return pd_json_to_string (root, FALSE);
}

void
_pd_http_provider_set_server_error (const char       *name,
                                    PdProviderError   code,
                                    const char       *when,
                                    const char       *data,
                                    gsize             length,
                                    GError          **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, length);
  g_autofree char *message = _pd_http_provider_error_body_message (bytes);
  g_autofree char *shown = _pd_provider_sanitize (message ? message : "no error message",
                                                  MAX_SHOWN_SERVER_MESSAGE, NULL);

  g_set_error (error, PD_PROVIDER_ERROR, code, "%s: the server %s: %s", name, when, shown);
}

JsonNode *
_pd_http_provider_parse_object (const char  *name,
                                const char  *what,
                                const char  *data,
                                gsize        length,
                                GError     **error)
{
  g_autoptr(GError) parse_error = NULL;
  g_autoptr(JsonNode) root = pd_json_parse (data ? data : "", (gssize) length, &parse_error);

  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_autofree char *text = g_strndup (data, MIN (length, 200));
      g_autofree char *shown = _pd_provider_sanitize (text, 80, NULL);

      g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_MALFORMED_STREAM,
                   "%s: %s is not a JSON object (%s): %s",
                   name, what, parse_error ? parse_error->message : "wrong type", shown);
      return NULL;
    }

  return g_steal_pointer (&root);
}

static gboolean
set_read_error (const char  *name,
                GError      *read_error,
                gsize        bytes_read,
                GError     **error)
{
  if (g_error_matches (read_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _pd_provider_set_cancelled (error, name);
  else if (g_error_matches (read_error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT) ||
           g_error_matches (read_error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED) ||
           g_error_matches (read_error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE))
    g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_MALFORMED_STREAM,
                 "%s: the connection closed in the middle of the response, after %" G_GSIZE_FORMAT " bytes (%s)",
                 name, bytes_read, read_error->message);
  else
    g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_NETWORK,
                 "%s: reading the response failed after %" G_GSIZE_FORMAT " bytes: %s",
                 name, bytes_read, read_error->message);
  return FALSE;
}

GBytes *
_pd_http_provider_read_body (GInputStream  *stream,
                             const char    *name,
                             gsize          max_bytes,
                             GCancellable  *cancellable,
                             GError       **error)
{
  g_autoptr(GByteArray) bytes = g_byte_array_new ();
  guint8 buffer[16 * 1024];

  for (;;)
    {
      g_autoptr(GError) read_error = NULL;
      gssize n = g_input_stream_read (stream, buffer, sizeof buffer, cancellable, &read_error);

      if (n < 0)
        {
          set_read_error (name, read_error, bytes->len, error);
          return NULL;
        }
      if (n == 0)
        break;
      if (bytes->len + (gsize) n > max_bytes)
        {
          g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_MALFORMED_STREAM,
                       "%s: the response is larger than %" G_GSIZE_FORMAT " bytes", name, max_bytes);
          return NULL;
        }
      g_byte_array_append (bytes, buffer, (guint) n);
    }

  return g_byte_array_free_to_bytes (g_steal_pointer (&bytes));
}

gboolean
_pd_http_provider_is_json_response (SoupMessage *message)
{
  const char *type = soup_message_headers_get_content_type (soup_message_get_response_headers (message), NULL);

  return type != NULL &&
         (g_ascii_strcasecmp (type, "application/json") == 0 || g_str_has_suffix (type, "+json"));
}

typedef struct
{
  const char     *name;
  PdSseEventFunc  func;
  gpointer        user_data;
  GString        *data;
  char           *event;
  gboolean        has_data;
} SseState;

static PdSseResult
sse_dispatch (SseState  *state,
              GError   **error)
{
  PdSseResult result = PD_SSE_CONTINUE;

  if (state->has_data)
    result = state->func (state->event ? state->event : "message",
                          state->data->str, state->data->len, state->user_data, error);

  g_string_truncate (state->data, 0);
  g_clear_pointer (&state->event, g_free);
  state->has_data = FALSE;

  return result;
}

static PdSseResult
sse_line (SseState    *state,
          const char  *line,
          gsize        length,
          GError     **error)
{
  const char *colon;
  const char *value;
  gsize field_len;
  gsize value_len;

  if (length == 0)
    return sse_dispatch (state, error);

  if (line[0] == ':')
    return PD_SSE_CONTINUE;

  colon = memchr (line, ':', length);
  field_len = colon ? (gsize) (colon - line) : length;
  value = colon ? colon + 1 : line + length;
  if (value < line + length && *value == ' ')
    value++;
  value_len = (gsize) (line + length - value);

#define FIELD_IS(literal) (field_len == strlen (literal) && memcmp (line, literal, field_len) == 0)

  if (FIELD_IS ("data"))
    {
      if (state->has_data)
        g_string_append_c (state->data, '\n');
      g_string_append_len (state->data, value, value_len);
      state->has_data = TRUE;
      if (state->data->len > PD_PROVIDER_MAX_LINE_BYTES)
        {
          g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_MALFORMED_STREAM,
                       "%s: one event of the stream is larger than %d bytes",
                       state->name, PD_PROVIDER_MAX_LINE_BYTES);
          return PD_SSE_ERROR;
        }
    }
  else if (FIELD_IS ("event"))
    {
      g_free (state->event);
      state->event = g_strndup (value, value_len);
    }
  else if (FIELD_IS ("id") || FIELD_IS ("retry"))
    {
      /* Reconnection hints: we never reconnect a chat stream. */
    }
  else if (FIELD_IS ("error"))
    {
      /* llama.cpp's server reports failures as an "error:" line. */
      g_autofree char *text = g_strndup (value, value_len);

      return state->func ("error", text, value_len, state->user_data, error);
    }
  else
    {
      g_autofree char *text = g_strndup (line, MIN (length, 200));
      g_autofree char *shown = _pd_provider_sanitize (text, 80, NULL);

      g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_MALFORMED_STREAM,
                   "%s: the response is not a server-sent event stream; unexpected line “%s”",
                   state->name, shown);
      return PD_SSE_ERROR;
    }

#undef FIELD_IS

  return PD_SSE_CONTINUE;
}

gboolean
_pd_http_provider_read_sse (GInputStream  *stream,
                            const char    *name,
                            PdSseEventFunc func,
                            gpointer       user_data,
                            gboolean      *out_done,
                            GCancellable  *cancellable,
                            GError       **error)
{
  g_autoptr(GString) line = g_string_new (NULL);
  g_autoptr(GString) data = g_string_new (NULL);
  SseState state = { name, func, user_data, data, NULL, FALSE };
  gboolean after_cr = FALSE;
  gsize total = 0;
  char buffer[16 * 1024];
  PdSseResult result = PD_SSE_CONTINUE;

  *out_done = FALSE;

  while (result == PD_SSE_CONTINUE)
    {
      g_autoptr(GError) read_error = NULL;
      gssize n = g_input_stream_read (stream, buffer, sizeof buffer, cancellable, &read_error);
      gsize i = 0;

      if (n < 0)
        {
          g_free (state.event);
          return set_read_error (name, read_error, total, error);
        }

      if (n == 0)
        {
          /* A last event without its blank line still counts. */
          if (line->len > 0)
            result = sse_line (&state, line->str, line->len, error);
          if (result == PD_SSE_CONTINUE)
            result = sse_dispatch (&state, error);
          break;
        }

      total += (gsize) n;

      /* Lines end with \n, \r\n or \r, and any of them may be split
       * between two reads. */
      while (i < (gsize) n && result == PD_SSE_CONTINUE)
        {
          gsize j = i;

          if (after_cr && buffer[i] == '\n')
            {
              after_cr = FALSE;
              i++;
              continue;
            }
          after_cr = FALSE;

          while (j < (gsize) n && buffer[j] != '\n' && buffer[j] != '\r')
            j++;

          g_string_append_len (line, buffer + i, (gssize) (j - i));
          if (line->len > PD_PROVIDER_MAX_LINE_BYTES)
            {
              g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_MALFORMED_STREAM,
                           "%s: one line of the stream is longer than %d bytes",
                           name, PD_PROVIDER_MAX_LINE_BYTES);
              result = PD_SSE_ERROR;
              break;
            }

          if (j == (gsize) n)
            break;

          after_cr = buffer[j] == '\r';
          result = sse_line (&state, line->str, line->len, error);
          g_string_truncate (line, 0);
          i = j + 1;
        }
    }

  g_free (state.event);

  if (result == PD_SSE_ERROR)
    return FALSE;

  *out_done = result == PD_SSE_DONE;
  return TRUE;
}

static gboolean
read_into_state (const PdHttpReader  *reader,
                 PdHttpAnswer        *answer,
                 GInputStream        *input,
                 gboolean             is_json,
                 GCancellable        *cancellable,
                 GError             **error)
{
  g_autoptr(GBytes) json = NULL;
  g_autoptr(JsonNode) root = NULL;
  gboolean done = FALSE;

  if (is_json)
    {
      const char *data;
      gsize size;

      if (!(json = _pd_http_provider_read_body (input, answer->name, PD_PROVIDER_MAX_RESPONSE_BYTES,
                                                cancellable, error)))
        return FALSE;
      data = g_bytes_get_data (json, &size);
      return (root = _pd_http_provider_parse_object (answer->name, "the JSON response", data, size, error)) &&
             reader->read_json (answer, json_node_get_object (root), data, size, error);
    }

  if (!_pd_http_provider_read_sse (input, answer->name, reader->on_event, answer, &done, cancellable, error))
    return FALSE;

  /* Without its end we cannot tell a finished answer from a cut one, and a
   * cut one must not pass for the model's word. */
  if (!done && answer->stop == NULL)
    {
      g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_MALFORMED_STREAM,
                   "%s: the stream ended before the response was complete (%s)", answer->name, reader->missing_end);
      return FALSE;
    }

  return TRUE;
}

PdProviderResponse *
_pd_http_provider_read_response (PdHttpProvider      *self,
                                 GInputStream        *input,
                                 gboolean             is_json,
                                 PdProviderDeltaFunc  on_delta,
                                 gpointer             delta_data,
                                 GCancellable        *cancellable,
                                 GError             **error)
{
  PdHttpProviderClass *klass;
  const PdHttpReader *reader;
  PdHttpAnswer *answer;
  PdProviderResponse *response = NULL;

  g_return_val_if_fail (PD_IS_HTTP_PROVIDER (self), NULL);

  klass = PD_HTTP_PROVIDER_GET_CLASS (self);
  reader = klass->reader;
  g_assert (reader != NULL && reader->state_size >= sizeof (PdHttpAnswer));

  answer = g_malloc0 (reader->state_size);
  answer->name = klass->name;
  answer->on_delta = on_delta;
  answer->delta_data = delta_data;
  answer->input_tokens = -1;
  answer->output_tokens = -1;
  reader->init (answer, self);

  if (read_into_state (reader, answer, input, is_json, cancellable, error) &&
      (response = reader->build (answer, error)) != NULL)
    {
      response->input_tokens = answer->input_tokens;
      response->output_tokens = answer->output_tokens;
      if (!_pd_provider_settle_tool_calls (answer->name, response, error))
        g_clear_pointer (&response, pd_provider_response_free);
    }

  reader->clear (answer);
  g_free (answer->stop);
  g_free (answer);
  return response;
}

gboolean
_pd_http_provider_count_bytes (const char  *name,
                               gsize       *total,
                               gsize        n,
                               GError     **error)
{
  *total += n;
  if (*total > PD_PROVIDER_MAX_RESPONSE_BYTES)
    {
      g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_MALFORMED_STREAM,
                   "%s: the response is larger than %d bytes", name, PD_PROVIDER_MAX_RESPONSE_BYTES);
      return FALSE;
    }
  return TRUE;
}

void
_pd_http_answer_set_stop (PdHttpAnswer *answer,
                          const char   *stop)
{
  if (stop == NULL)
    return;
  g_free (answer->stop);
  answer->stop = g_strdup (stop);
}

void
_pd_http_answer_emit (PdHttpAnswer        *answer,
                      PdProviderDeltaKind  kind,
                      const char          *text)
{
  if (answer->on_delta != NULL && text != NULL && *text != '\0')
    answer->on_delta (kind, text, answer->delta_data);
}

gboolean
_pd_http_answer_append (PdHttpAnswer  *answer,
                        GString       *into,
                        const char    *text,
                        GError       **error)
{
  gsize len;

  if (text == NULL || *text == '\0')
    return TRUE;

  len = strlen (text);
  if (!_pd_http_provider_count_bytes (answer->name, &answer->total, len, error))
    return FALSE;
  g_string_append_len (into, text, (gssize) len);
  return TRUE;
}
