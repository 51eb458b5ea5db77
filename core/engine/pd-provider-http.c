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
/* libsoup 3.2 has no names for them. */
#define STATUS_TOO_MANY_REQUESTS 429
#define STATUS_OVERLOADED        529   /* Anthropic: the API is overloaded for everyone */

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

/* What one failed attempt says about the next. */
typedef struct
{
  PdProviderError  code;
  char            *reason;       /* for messages: status, server, the server's message */
  gboolean         retryable;
  gint64           retry_after;  /* ms the server asked to wait, -1 when it said nothing */
  guint            status;       /* HTTP status, 0 when there was none */
} Failure;

static void
failure_clear (Failure *failure)
{
  g_clear_pointer (&failure->reason, g_free);
}

/* The wait a server asks for: retry-after-ms (Anthropic and OpenAI send it
 * with retry-after), then retry-after in seconds or as a date. */
static gint64
retry_after_of (SoupMessage *message)
{
  SoupMessageHeaders *headers = soup_message_get_response_headers (message);
  const char *ms = soup_message_headers_get_one (headers, "retry-after-ms");
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  guint64 value;

  if (ms != NULL)
    {
      g_autofree char *text = g_strstrip (g_strdup (ms));

      if (*text != '\0' && pd_decimal_parse (text, -1, G_MAXUINT64, &value))
        return (gint64) MIN (value, (guint64) PD_PROVIDER_RETRY_AFTER_CAP_MS);
    }

  return _pd_provider_parse_retry_after (soup_message_headers_get_one (headers, "Retry-After"), now);
}

/* error.type of an error body, and whether it says the organisation's
 * spending limit was reached (a 429 that no wait will lift). */
static const char *
error_type_of (JsonNode *root,
               gboolean *spend_limit)
{
  JsonObject *inner;
  JsonObject *details;

  *spend_limit = FALSE;
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return NULL;
  inner = _pd_provider_json_object (json_node_get_object (root), "error");
  details = _pd_provider_json_object (inner, "details");
  *spend_limit = g_strcmp0 (_pd_provider_json_string (details, "error_code"), "enforced_spend_limit_reached") == 0;
  return _pd_provider_json_string (inner, "type");
}

/* One request.  Returns the response body of a 2xx answer; otherwise NULL
 * with @failure filled in when another attempt may help, or with @error
 * set when it cannot (cancelled, credentials, a refused request). */
static GInputStream *
send_once (SoupSession         *session,
           const PdHttpPolicy  *policy,
           const char          *url,
           const char          *where,
           GBytes              *body,
           PdHttpHeadersFunc    add_headers,
           gpointer             headers_data,
           SoupMessage        **out_message,
           Failure             *failure,
           GCancellable        *cancellable,
           GError             **error)
{
  const char *name = policy->name;
  g_autoptr(SoupMessage) message = soup_message_new (SOUP_METHOD_POST, url);
  g_autoptr(GInputStream) stream = NULL;
  g_autoptr(GError) send_error = NULL;
  g_autoptr(GBytes) error_body = NULL;
  g_autoptr(JsonNode) error_root = NULL;
  g_autofree char *server_message = NULL;
  g_autofree char *shown = NULL;
  const char *error_type;
  gboolean spend_limit;
  guint status;

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
      if (g_error_matches (send_error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
          g_cancellable_is_cancelled (cancellable))
        {
          g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_CANCELLED,
                       "%s: the request was cancelled", name);
          return NULL;
        }

      shown = _pd_provider_sanitize (send_error->message, MAX_SHOWN_SERVER_MESSAGE, policy->secret);
      failure->code = PD_PROVIDER_ERROR_NETWORK;
      failure->retryable = is_retryable_network_error (send_error);
      failure->reason = g_strdup_printf ("cannot reach %s: %s", where, shown);
      return NULL;
    }

  status = soup_message_get_status (message);
  if (SOUP_STATUS_IS_SUCCESSFUL (status))
    {
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

  if (error_body != NULL && g_bytes_get_size (error_body) > 0)
    error_root = pd_json_parse (g_bytes_get_data (error_body, NULL), (gssize) g_bytes_get_size (error_body), NULL);
  error_type = error_type_of (error_root, &spend_limit);
  server_message = _pd_provider_error_body_message (error_body);
  shown = server_message
    ? _pd_provider_sanitize (server_message, MAX_SHOWN_SERVER_MESSAGE, policy->secret)
    : g_strdup ("no error message");
  failure->status = status;
  failure->reason = g_strdup_printf ("HTTP %u %s from %s: %s", status,
                                     soup_message_get_reason_phrase (message)
                                       ? soup_message_get_reason_phrase (message) : "",
                                     where, shown);

  if (status == SOUP_STATUS_UNAUTHORIZED || status == SOUP_STATUS_FORBIDDEN)
    {
      g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_AUTH,
                   "%s: the server did not accept the credentials; check the API key (%s)",
                   name, failure->reason);
      return NULL;
    }

  if (status == STATUS_TOO_MANY_REQUESTS && spend_limit)
    {
      g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_RATE_LIMITED,
                   "%s: the spending limit of the account is reached, and waiting will not lift it (%s)",
                   name, failure->reason);
      return NULL;
    }

  if (status == STATUS_TOO_MANY_REQUESTS)
    failure->code = PD_PROVIDER_ERROR_RATE_LIMITED;
  else if (status == STATUS_OVERLOADED || status == SOUP_STATUS_SERVICE_UNAVAILABLE ||
           g_strcmp0 (error_type, "overloaded_error") == 0)
    failure->code = PD_PROVIDER_ERROR_OVERLOADED;
  else if (status >= 500)
    failure->code = PD_PROVIDER_ERROR_SERVER;
  else
    {
      g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_HTTP,
                   "%s: the server refused the request (%s)", name, failure->reason);
      return NULL;
    }

  failure->retryable = TRUE;
  failure->retry_after = retry_after_of (message);
  return NULL;
}

/* Failures of the answer itself that another attempt may not repeat: the
 * server said mid-stream that it is overloaded, rate limited or failed.
 * Nothing of the answer has been used yet (no tool ran), so it can be asked
 * again whole. */
static gboolean
is_retryable_answer_error (const GError *error)
{
  return g_error_matches (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_OVERLOADED) ||
         g_error_matches (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_RATE_LIMITED) ||
         g_error_matches (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_SERVER);
}

static char *
final_message (const char *name,
               Failure    *failure,
               guint       attempts)
{
  switch (failure->code)
    {
    case PD_PROVIDER_ERROR_RATE_LIMITED:
      return g_strdup_printf ("%s: still rate limited after %u attempts (%s)", name, attempts, failure->reason);
    case PD_PROVIDER_ERROR_OVERLOADED:
      return g_strdup_printf ("%s: the server stayed overloaded through %u attempts; try again later (%s)",
                              name, attempts, failure->reason);
    case PD_PROVIDER_ERROR_SERVER:
      return g_strdup_printf ("%s: the server failed %u times in a row (%s)", name, attempts, failure->reason);
    default:
      return g_strdup_printf ("%s: %s (after %u attempts)", name, failure->reason, attempts);
    }
}

/**
 * _pd_provider_http_chat:
 * @read: reads one answer from a 2xx body
 *
 * One chat call with retries: a request that fails with a network error,
 * 429, 5xx or 529, and an answer that the server breaks off with an
 * overloaded, rate-limit or server error event, are sent again after the
 * wait the server asked for (retry-after-ms, Retry-After) or an exponential
 * backoff, up to policy->max_retries more times.  Every retry is told before
 * the wait: through the "retrying" signal, and through @request's
 * on_retry, which also says that what streamed so far is void.
 */
PdProviderResponse *
_pd_provider_http_chat (PdProvider               *self,
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
                        GError                  **error)
{
  g_autofree char *where = shown_url (url);
  const char *name = policy->name;

  for (guint attempt = 0;; attempt++)
    {
      g_autoptr(SoupMessage) message = NULL;
      g_autoptr(GInputStream) stream = NULL;
      g_autoptr(GError) read_error = NULL;
      g_autoptr(GError) fatal = NULL;
      Failure failure = { 0, NULL, FALSE, -1, 0 };
      guint delay_ms;

      stream = send_once (session, policy, url, where, body, add_headers, headers_data, &message,
                          &failure, cancellable, &fatal);
      if (fatal != NULL)
        {
          /* No attempt can help. */
          failure_clear (&failure);
          g_propagate_error (error, g_steal_pointer (&fatal));
          return NULL;
        }

      if (stream != NULL)
        {
          PdProviderResponse *response = read (stream, _pd_provider_is_json_response (message),
                                               on_delta, delta_data, read_data, cancellable, &read_error);

          g_input_stream_close (stream, NULL, NULL);
          if (response != NULL)
            return response;

          if (!is_retryable_answer_error (read_error))
            {
              g_propagate_error (error, g_steal_pointer (&read_error));
              return NULL;
            }

          /* The message already names the provider: keep the rest. */
          failure.code = read_error->code;
          failure.retryable = TRUE;
          failure.reason = g_strdup (g_str_has_prefix (read_error->message, name) &&
                                     read_error->message[strlen (name)] == ':'
                                     ? read_error->message + strlen (name) + 2 : read_error->message);
        }

      if (!failure.retryable || attempt >= policy->max_retries)
        {
          g_autofree char *text = final_message (name, &failure, attempt + 1);

          g_set_error_literal (error, PD_PROVIDER_ERROR, failure.code, text);
          failure_clear (&failure);
          return NULL;
        }

      if (failure.retry_after >= 0)
        delay_ms = (guint) failure.retry_after;
      else
        delay_ms = (guint) MIN ((guint64) policy->base_delay_ms << MIN (attempt, 20),
                                (guint64) PD_PROVIDER_BACKOFF_CAP_MS);

      g_debug ("%s: attempt %u failed (%s); retrying in %u ms", name, attempt + 1, failure.reason, delay_ms);
      _pd_provider_emit_retrying (self, attempt + 1, delay_ms, failure.reason);
      if (request != NULL && request->on_retry != NULL)
        request->on_retry (attempt + 2, policy->max_retries + 1, delay_ms, failure.status, failure.reason,
                           request->retry_data);
      failure_clear (&failure);

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
