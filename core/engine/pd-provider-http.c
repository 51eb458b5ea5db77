/* pd-provider-http.c: sending with retries, and reading event streams.
 *
 * Everything here runs on the caller's worker thread with libsoup's
 * synchronous API, which libsoup 3.2 allows from any thread; nothing here
 * touches a GMainContext.
 */
#define G_LOG_DOMAIN "pd-provider"

#include "config.h"

#include <string.h>

#include "pd-decimal.h"
#include "pd-json.h"
#include "pd-provider-private.h"

/* Error bodies are read for their message only; a server that answers an
 * error with megabytes is not worth reading further. */
#define MAX_ERROR_BODY_BYTES (64 * 1024)
#define MAX_SHOWN_SERVER_MESSAGE 400
/* libsoup 3.2 has no name for it. */
#define STATUS_TOO_MANY_REQUESTS 429

SoupSession *
_pd_provider_new_session (void)
{
  /* The I/O timeout is long on purpose: a local model on a CPU can think for
   * minutes before the first token, and that is not a network failure. */
  return soup_session_new_with_options ("user-agent", "plandeck/" PACKAGE_VERSION,
                                        "timeout", 600,
                                        "idle-timeout", 60,
                                        NULL);
}

char *
_pd_provider_build_url (const char  *name,
                        const char  *base_url,
                        const char  *suffix,
                        GError     **error)
{
  g_autofree char *base = g_strstrip (g_strdup (base_url ? base_url : ""));
  g_autofree char *url = NULL;
  g_autoptr(GUri) uri = NULL;
  gsize len = strlen (base);
  const char *scheme;

  while (len > 0 && base[len - 1] == '/')
    base[--len] = '\0';

  /* People paste the full endpoint as often as the base: accept both. */
  if (g_str_has_suffix (base, suffix))
    url = g_strdup (base);
  else
    url = g_strconcat (base, suffix, NULL);

  uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);
  scheme = uri ? g_uri_get_scheme (uri) : NULL;
  if (uri == NULL ||
      (g_ascii_strcasecmp (scheme, "http") != 0 && g_ascii_strcasecmp (scheme, "https") != 0) ||
      g_uri_get_host (uri) == NULL || *g_uri_get_host (uri) == '\0')
    {
      g_autofree char *shown = _pd_provider_sanitize (base, 200, NULL);

      g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG,
                   "%s: the base URL “%s” is not an http:// or https:// URL", name, shown);
      return NULL;
    }

  return g_steal_pointer (&url);
}

static char *
shown_url (const char *url)
{
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);

  if (uri == NULL)
    return g_strdup ("(invalid URL)");

  return g_uri_to_string_partial (uri, G_URI_HIDE_PASSWORD | G_URI_HIDE_QUERY);
}

gint64
_pd_provider_parse_retry_after (const char *value,
                                GDateTime  *now)
{
  g_autofree char *text = NULL;
  g_autoptr(GDateTime) when = NULL;
  gint64 ms;

  if (value == NULL)
    return -1;

  text = g_strstrip (g_strdup (value));
  if (*text == '\0')
    return -1;

  if (g_ascii_isdigit (*text))
    {
      guint64 seconds;

      if (!pd_decimal_parse (text, -1, G_MAXUINT64, &seconds))
        return -1;
      if (seconds >= PD_PROVIDER_RETRY_AFTER_CAP_MS / 1000)
        return PD_PROVIDER_RETRY_AFTER_CAP_MS;
      return (gint64) seconds * 1000;
    }

  if (!(when = soup_date_time_new_from_http_string (text)))
    return -1;

  ms = g_date_time_difference (when, now) / 1000;
  return CLAMP (ms, 0, PD_PROVIDER_RETRY_AFTER_CAP_MS);
}

char *
_pd_provider_error_body_message (GBytes *body)
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
      if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
        return g_strdup (json_node_get_string (node));
      return pd_json_to_string (node, FALSE);
    }

  return pd_json_to_string (root, FALSE);
}

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
      g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_CANCELLED,
                   "%s: the request was cancelled", name);
      return FALSE;
    }

  return TRUE;
}

static gboolean
set_read_error (const char  *name,
                GError      *read_error,
                gsize        bytes_read,
                GError     **error)
{
  if (g_error_matches (read_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_CANCELLED,
                 "%s: the request was cancelled", name);
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
_pd_provider_read_body (GInputStream  *stream,
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
_pd_provider_is_json_response (SoupMessage *message)
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
_pd_provider_read_sse (GInputStream  *stream,
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
is_retryable_network_error (GError *error)
{
  /* A certificate problem does not fix itself in a second. */
  return error->domain != G_TLS_ERROR;
}

GInputStream *
_pd_provider_http_post (PdProvider          *self,
                        SoupSession         *session,
                        const PdHttpPolicy  *policy,
                        const char          *url,
                        GBytes              *body,
                        PdHttpHeadersFunc    add_headers,
                        gpointer             headers_data,
                        SoupMessage        **out_message,
                        GCancellable        *cancellable,
                        GError             **error)
{
  g_autofree char *where = shown_url (url);
  const char *name = policy->name;

  for (guint attempt = 0;; attempt++)
    {
      g_autoptr(SoupMessage) message = soup_message_new (SOUP_METHOD_POST, url);
      g_autoptr(GInputStream) stream = NULL;
      g_autoptr(GError) send_error = NULL;
      g_autofree char *reason = NULL;
      g_autofree char *final_message = NULL;
      PdProviderError code;
      gint64 retry_after = -1;
      gboolean retryable;
      guint status;
      guint delay_ms;

      if (message == NULL)
        {
          g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG,
                       "%s: cannot send to %s: not a valid URL", name, where);
          return NULL;
        }

      soup_message_set_request_body_from_bytes (message, "application/json", body);
      if (add_headers != NULL)
        add_headers (soup_message_get_request_headers (message), headers_data);

      stream = soup_session_send (session, message, cancellable, &send_error);

      if (stream == NULL)
        {
          g_autofree char *shown = NULL;

          if (g_error_matches (send_error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
              g_cancellable_is_cancelled (cancellable))
            {
              g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_CANCELLED,
                           "%s: the request was cancelled", name);
              return NULL;
            }

          shown = _pd_provider_sanitize (send_error->message, MAX_SHOWN_SERVER_MESSAGE, policy->secret);
          code = PD_PROVIDER_ERROR_NETWORK;
          retryable = is_retryable_network_error (send_error);
          reason = g_strdup_printf ("cannot reach %s: %s", where, shown);
        }
      else
        {
          g_autoptr(GBytes) error_body = NULL;
          g_autofree char *server_message = NULL;
          g_autofree char *shown = NULL;

          status = soup_message_get_status (message);
          if (SOUP_STATUS_IS_SUCCESSFUL (status))
            {
              if (out_message != NULL)
                *out_message = g_steal_pointer (&message);
              return g_steal_pointer (&stream);
            }

          error_body = _pd_provider_read_body (stream, name, MAX_ERROR_BODY_BYTES, cancellable, NULL);
          if (g_cancellable_is_cancelled (cancellable))
            {
              g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_CANCELLED,
                           "%s: the request was cancelled", name);
              return NULL;
            }

          server_message = _pd_provider_error_body_message (error_body);
          shown = server_message
            ? _pd_provider_sanitize (server_message, MAX_SHOWN_SERVER_MESSAGE, policy->secret)
            : g_strdup ("no error message");
          reason = g_strdup_printf ("HTTP %u %s from %s: %s", status,
                                    soup_message_get_reason_phrase (message)
                                      ? soup_message_get_reason_phrase (message) : "",
                                    where, shown);

          if (status == SOUP_STATUS_UNAUTHORIZED || status == SOUP_STATUS_FORBIDDEN)
            {
              g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_AUTH,
                           "%s: the server did not accept the credentials; check the API key (%s)",
                           name, reason);
              return NULL;
            }

          if (status == STATUS_TOO_MANY_REQUESTS)
            code = PD_PROVIDER_ERROR_RATE_LIMITED;
          else if (status >= 500)
            code = PD_PROVIDER_ERROR_SERVER;
          else
            {
              g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_HTTP,
                           "%s: the server refused the request (%s)", name, reason);
              return NULL;
            }

          retryable = TRUE;
          if (status == STATUS_TOO_MANY_REQUESTS || status == SOUP_STATUS_SERVICE_UNAVAILABLE)
            {
              g_autoptr(GDateTime) now = g_date_time_new_now_utc ();

              retry_after = _pd_provider_parse_retry_after (
                soup_message_headers_get_one (soup_message_get_response_headers (message), "Retry-After"),
                now);
            }
        }

      if (!retryable || attempt >= policy->max_retries)
        {
          switch (code)
            {
            case PD_PROVIDER_ERROR_RATE_LIMITED:
              final_message = g_strdup_printf ("%s: still rate limited after %u attempts (%s)",
                                               name, attempt + 1, reason);
              break;
            case PD_PROVIDER_ERROR_SERVER:
              final_message = g_strdup_printf ("%s: the server failed %u times in a row (%s)",
                                               name, attempt + 1, reason);
              break;
            default:
              final_message = g_strdup_printf ("%s: %s (after %u attempts)", name, reason, attempt + 1);
              break;
            }
          g_set_error_literal (error, PD_PROVIDER_ERROR, code, final_message);
          return NULL;
        }

      if (retry_after >= 0)
        delay_ms = (guint) retry_after;
      else
        delay_ms = (guint) MIN ((guint64) policy->base_delay_ms << MIN (attempt, 20),
                                (guint64) PD_PROVIDER_BACKOFF_CAP_MS);

      g_debug ("%s: attempt %u failed (%s); retrying in %u ms", name, attempt + 1, reason, delay_ms);
      _pd_provider_emit_retrying (self, attempt + 1, delay_ms, reason);

      /* Let go of the failed response before sleeping on it. */
      g_clear_object (&stream);

      if (!_pd_provider_wait (delay_ms, name, cancellable, error))
        return NULL;
    }
}

/* Whether @url names @host: the official endpoints need a key, others
 * (local servers, proxies) may not. */
gboolean
_pd_provider_url_has_host (const char *url,
                           const char *host)
{
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);

  return uri != NULL && g_uri_get_host (uri) != NULL &&
         g_ascii_strcasecmp (g_uri_get_host (uri), host) == 0;
}

/* Adds @n bytes of model output to @total, failing once the answer of one
 * request grows beyond PD_PROVIDER_MAX_RESPONSE_BYTES. */
gboolean
_pd_provider_count_bytes (const char  *name,
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
