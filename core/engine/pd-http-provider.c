/* pd-http-provider.c: the base of the HTTP providers, and sending.
 *
 * A chat call is one POST of the wire's body to base URL + endpoint, sent
 * again with back-off while the server is overloaded, rate limited or
 * failing, and its answer read by the wire (pd-http-provider-read.c reads
 * the bytes).  Everything here runs on the caller's worker thread with
 * libsoup's synchronous API, which libsoup 3.2 allows from any thread;
 * nothing here touches a GMainContext.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-provider"

#include "config.h"

#include <string.h>

#include "pd-decimal.h"
#include "pd-http-provider-private.h"
#include "pd-json.h"
#include "pd-secret-text.h"

/* Error bodies are read for their message only; a server that answers an
 * error with megabytes is not worth reading further. */
#define MAX_ERROR_BODY_BYTES (64 * 1024)
#define MAX_SHOWN_SERVER_MESSAGE 400
/* libsoup 3.2 has no names for them. */
#define STATUS_TOO_MANY_REQUESTS 429
#define STATUS_OVERLOADED        529   /* Anthropic: the API is overloaded for everyone */

typedef struct
{
  SoupSession *session;
  char        *base_url;
  char        *api_key;
  guint        max_retries;
  guint        retry_base_delay_ms;
} PdHttpProviderPrivate;

static void provider_iface_init (PdProviderInterface *iface);

G_DEFINE_ABSTRACT_TYPE_WITH_CODE (PdHttpProvider, pd_http_provider, G_TYPE_OBJECT,
                                  G_ADD_PRIVATE (PdHttpProvider)
                                  G_IMPLEMENT_INTERFACE (PD_TYPE_PROVIDER, provider_iface_init))

enum {
  PROP_0,
  PROP_BASE_URL,
  PROP_API_KEY,
  PROP_MAX_RETRIES,
  PROP_RETRY_BASE_DELAY_MS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static SoupSession *
new_session (void)
{
  /* The I/O timeout is long on purpose: a local model on a CPU can think for
   * minutes before the first token, and that is not a network failure. */
  return soup_session_new_with_options ("user-agent", "plandeck/" PACKAGE_VERSION,
                                        "timeout", 600,
                                        "idle-timeout", 60,
                                        NULL);
}

static char *
build_url (const char  *name,
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
  /* Its user and password (both: G_URI_FLAGS_NONE keeps them as one
   * userinfo, which HIDE_PASSWORD left whole) and its query go nowhere. */
  return pd_secret_text_shown_url (url);
}

/* Retry-After in seconds or as an HTTP date, in ms from @now, capped;
 * -1 when it says nothing usable. */
gint64
_pd_http_provider_parse_retry_after (const char *value,
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

  return _pd_http_provider_parse_retry_after (soup_message_headers_get_one (headers, "Retry-After"), now);
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
send_once (PdHttpProvider  *self,
           const char      *url,
           const char      *where,
           GBytes          *body,
           SoupMessage    **out_message,
           Failure         *failure,
           GCancellable    *cancellable,
           GError         **error)
{
  PdHttpProviderPrivate *priv = pd_http_provider_get_instance_private (self);
  PdHttpProviderClass *klass = PD_HTTP_PROVIDER_GET_CLASS (self);
  const char *name = klass->name;
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

  /* The API key goes to the configured endpoint only, never on to where a
   * redirect points (a 3xx is then an answer like any other error). */
  soup_message_add_flags (message, SOUP_MESSAGE_NO_REDIRECT);
  soup_message_set_request_body_from_bytes (message, "application/json", body);
  soup_message_headers_replace (soup_message_get_request_headers (message),
                                "Accept", "text/event-stream, application/json");
  klass->add_headers (self, soup_message_get_request_headers (message), priv->api_key);

  stream = soup_session_send (priv->session, message, cancellable, &send_error);

  if (stream == NULL)
    {
      if (g_error_matches (send_error, G_IO_ERROR, G_IO_ERROR_CANCELLED) ||
          g_cancellable_is_cancelled (cancellable))
        {
          _pd_provider_set_cancelled (error, name);
          return NULL;
        }

      shown = _pd_provider_sanitize (send_error->message, MAX_SHOWN_SERVER_MESSAGE, priv->api_key);
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

  error_body = _pd_http_provider_read_body (stream, name, MAX_ERROR_BODY_BYTES, cancellable, NULL);
  if (g_cancellable_is_cancelled (cancellable))
    {
      _pd_provider_set_cancelled (error, name);
      return NULL;
    }

  if (error_body != NULL && g_bytes_get_size (error_body) > 0)
    error_root = pd_json_parse (g_bytes_get_data (error_body, NULL), (gssize) g_bytes_get_size (error_body), NULL);
  error_type = error_type_of (error_root, &spend_limit);
  server_message = _pd_http_provider_error_body_message (error_body);
  shown = server_message
    ? _pd_provider_sanitize (server_message, MAX_SHOWN_SERVER_MESSAGE, priv->api_key)
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

/* One chat call with retries: a request that fails with a network error,
 * 429, 5xx or 529, and an answer that the server breaks off with an
 * overloaded, rate-limit or server error event, are sent again after the
 * wait the server asked for (retry-after-ms, Retry-After) or an exponential
 * backoff, up to max-retries more times.  Every retry is told before the
 * wait: through the "retrying" signal, and through @request's on_retry,
 * which also says that what streamed so far is void. */
static PdProviderResponse *
send_with_retries (PdHttpProvider           *self,
                   const char               *url,
                   GBytes                   *body,
                   const PdProviderRequest  *request,
                   PdProviderDeltaFunc       on_delta,
                   gpointer                  delta_data,
                   GCancellable             *cancellable,
                   GError                  **error)
{
  PdHttpProviderPrivate *priv = pd_http_provider_get_instance_private (self);
  PdHttpProviderClass *klass = PD_HTTP_PROVIDER_GET_CLASS (self);
  g_autofree char *where = shown_url (url);
  const char *name = klass->name;
  /* The policy of this call: a change while it runs is for the next one. */
  guint max_retries = priv->max_retries;
  guint base_delay_ms = priv->retry_base_delay_ms;

  for (guint attempt = 0;; attempt++)
    {
      g_autoptr(SoupMessage) message = NULL;
      g_autoptr(GInputStream) stream = NULL;
      g_autoptr(GError) read_error = NULL;
      g_autoptr(GError) fatal = NULL;
      Failure failure = { 0, NULL, FALSE, -1, 0 };
      guint delay_ms;

      stream = send_once (self, url, where, body, &message, &failure, cancellable, &fatal);
      if (fatal != NULL)
        {
          /* No attempt can help. */
          failure_clear (&failure);
          g_propagate_error (error, g_steal_pointer (&fatal));
          return NULL;
        }

      if (stream != NULL)
        {
          PdProviderResponse *response =
            _pd_http_provider_read_response (self, stream, _pd_http_provider_is_json_response (message),
                                             on_delta, delta_data, cancellable, &read_error);

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

      if (!failure.retryable || attempt >= max_retries)
        {
          g_autofree char *text = final_message (name, &failure, attempt + 1);

          g_set_error_literal (error, PD_PROVIDER_ERROR, failure.code, text);
          failure_clear (&failure);
          return NULL;
        }

      if (failure.retry_after >= 0)
        delay_ms = (guint) failure.retry_after;
      else
        delay_ms = (guint) MIN ((guint64) base_delay_ms << MIN (attempt, 20),
                                (guint64) PD_PROVIDER_BACKOFF_CAP_MS);

      g_debug ("%s: attempt %u failed (%s); retrying in %u ms", name, attempt + 1, failure.reason, delay_ms);
      _pd_provider_emit_retrying (PD_PROVIDER (self), attempt + 1, delay_ms, failure.reason);
      if (request->on_retry != NULL)
        request->on_retry (attempt + 2, max_retries + 1, delay_ms, failure.status, failure.reason,
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
static gboolean
url_has_host (const char *url,
              const char *host)
{
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_NONE, NULL);

  return uri != NULL && g_uri_get_host (uri) != NULL &&
         g_ascii_strcasecmp (g_uri_get_host (uri), host) == 0;
}

static PdProviderResponse *
pd_http_provider_chat (PdProvider               *provider,
                       const PdProviderRequest  *request,
                       PdProviderDeltaFunc       on_delta,
                       gpointer                  delta_data,
                       GCancellable             *cancellable,
                       GError                  **error)
{
  PdHttpProvider *self = PD_HTTP_PROVIDER (provider);
  PdHttpProviderPrivate *priv = pd_http_provider_get_instance_private (self);
  PdHttpProviderClass *klass = PD_HTTP_PROVIDER_GET_CLASS (self);
  g_autofree char *url = NULL;
  g_autoptr(JsonObject) object = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GBytes) body = NULL;
  char *text;

  if (request->model == NULL || *request->model == '\0')
    {
      g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG,
                   "%s: no model was given; set one with --model or in the config", klass->name);
      return NULL;
    }

  if (!(url = build_url (klass->name, priv->base_url, klass->endpoint, error)))
    return NULL;

  if ((priv->api_key == NULL || *priv->api_key == '\0') &&
      klass->official_host != NULL && url_has_host (url, klass->official_host))
    {
      g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG,
                   "%s: %s needs an API key; set %s", klass->name, klass->official_host, klass->key_variable);
      return NULL;
    }

  if (!(object = klass->build_body (self, request, error)))
    return NULL;
  root = json_node_init_object (json_node_alloc (), object);
  text = pd_json_to_string (root, FALSE);
  body = g_bytes_new_take (text, strlen (text));

  return send_with_retries (self, url, body, request, on_delta, delta_data, cancellable, error);
}

static const char *
pd_http_provider_get_name (PdProvider *provider)
{
  return PD_HTTP_PROVIDER_GET_CLASS (provider)->name;
}

static void
provider_iface_init (PdProviderInterface *iface)
{
  iface->get_name = pd_http_provider_get_name;
  iface->chat = pd_http_provider_chat;
}

static void
pd_http_provider_finalize (GObject *object)
{
  PdHttpProvider *self = (PdHttpProvider *) object;
  PdHttpProviderPrivate *priv = pd_http_provider_get_instance_private (self);

  g_clear_object (&priv->session);
  pd_secret_text_unregister_url (priv->base_url);
  g_clear_pointer (&priv->base_url, g_free);
  pd_secret_text_unregister (priv->api_key);
  g_clear_pointer (&priv->api_key, pd_secret_text_free);

  G_OBJECT_CLASS (pd_http_provider_parent_class)->finalize (object);
}

static void
pd_http_provider_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  PdHttpProvider *self = PD_HTTP_PROVIDER (object);
  PdHttpProviderPrivate *priv = pd_http_provider_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_BASE_URL:
      g_value_set_string (value, priv->base_url);
      break;
    case PROP_MAX_RETRIES:
      g_value_set_uint (value, priv->max_retries);
      break;
    case PROP_RETRY_BASE_DELAY_MS:
      g_value_set_uint (value, priv->retry_base_delay_ms);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_http_provider_set_property (GObject      *object,
                               guint         prop_id,
                               const GValue *value,
                               GParamSpec   *pspec)
{
  PdHttpProvider *self = PD_HTTP_PROVIDER (object);
  PdHttpProviderPrivate *priv = pd_http_provider_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_BASE_URL:
      /* Empty is the wire's default, as it is when none is given. */
      pd_secret_text_unregister_url (priv->base_url);
      g_free (priv->base_url);
      priv->base_url = g_value_dup_string (value);
      if (priv->base_url == NULL || *priv->base_url == '\0')
        {
          g_free (priv->base_url);
          priv->base_url = g_strdup (PD_HTTP_PROVIDER_GET_CLASS (self)->default_base_url);
        }
      /* Its password and token are masked wherever they are echoed. */
      pd_secret_text_register_url (priv->base_url);
      break;
    case PROP_API_KEY:
      pd_secret_text_unregister (priv->api_key);
      pd_secret_text_free (priv->api_key);
      priv->api_key = g_value_dup_string (value);
      pd_secret_text_register (priv->api_key);
      break;
    case PROP_MAX_RETRIES:
      pd_http_provider_set_max_retries (self, g_value_get_uint (value));
      break;
    case PROP_RETRY_BASE_DELAY_MS:
      pd_http_provider_set_retry_base_delay_ms (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_http_provider_class_init (PdHttpProviderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = pd_http_provider_finalize;
  object_class->get_property = pd_http_provider_get_property;
  object_class->set_property = pd_http_provider_set_property;

  properties[PROP_BASE_URL] =
    g_param_spec_string ("base-url", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  /* Write-only, so no property dump can show it. */
  properties[PROP_API_KEY] =
    g_param_spec_string ("api-key", NULL, NULL, NULL,
                         G_PARAM_WRITABLE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_MAX_RETRIES] =
    g_param_spec_uint ("max-retries", NULL, NULL, 0, 20, PD_PROVIDER_DEFAULT_RETRIES,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_RETRY_BASE_DELAY_MS] =
    g_param_spec_uint ("retry-base-delay-ms", NULL, NULL, 0, 60000, PD_PROVIDER_DEFAULT_BASE_DELAY,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
pd_http_provider_init (PdHttpProvider *self)
{
  PdHttpProviderPrivate *priv = pd_http_provider_get_instance_private (self);

  priv->session = new_session ();
  priv->max_retries = PD_PROVIDER_DEFAULT_RETRIES;
  priv->retry_base_delay_ms = PD_PROVIDER_DEFAULT_BASE_DELAY;
}

PdHttpProvider *
_pd_http_provider_new (GType       type,
                       const char *base_url,
                       const char *api_key)
{
  g_autoptr(GTypeClass) klass = g_type_class_ref (type);
  PdHttpProviderClass *http_class = PD_HTTP_PROVIDER_CLASS (klass);
  PdHttpProvider *self;
  PdHttpProviderPrivate *priv;

  if ((base_url == NULL || *base_url == '\0') && http_class->base_url_variable != NULL)
    base_url = g_getenv (http_class->base_url_variable);
  if (api_key == NULL && http_class->key_variable != NULL)
    api_key = g_getenv (http_class->key_variable);

  self = g_object_new (type, "base-url", base_url, NULL);
  /* Not through the "api-key" property: g_object_new() would copy the key
   * into a GValue and free that copy without wiping it. */
  priv = pd_http_provider_get_instance_private (self);
  priv->api_key = g_strdup (api_key);
  pd_secret_text_register (priv->api_key);
  return self;
}

/* A bad URL is a configuration mistake: the factory says so at once, not
 * at the first turn. */
gboolean
_pd_http_provider_check_url (PdHttpProvider  *self,
                             GError         **error)
{
  PdHttpProviderPrivate *priv = pd_http_provider_get_instance_private (self);
  PdHttpProviderClass *klass = PD_HTTP_PROVIDER_GET_CLASS (self);
  g_autofree char *url = build_url (klass->name, priv->base_url, klass->endpoint, error);

  return url != NULL;
}

const char *
pd_http_provider_get_base_url (PdHttpProvider *self)
{
  PdHttpProviderPrivate *priv = pd_http_provider_get_instance_private (self);

  g_return_val_if_fail (PD_IS_HTTP_PROVIDER (self), NULL);

  return priv->base_url;
}

guint
pd_http_provider_get_max_retries (PdHttpProvider *self)
{
  PdHttpProviderPrivate *priv = pd_http_provider_get_instance_private (self);

  g_return_val_if_fail (PD_IS_HTTP_PROVIDER (self), 0);

  return priv->max_retries;
}

void
pd_http_provider_set_max_retries (PdHttpProvider *self,
                                  guint           max_retries)
{
  PdHttpProviderPrivate *priv = pd_http_provider_get_instance_private (self);

  g_return_if_fail (PD_IS_HTTP_PROVIDER (self));

  if (priv->max_retries == max_retries)
    return;
  priv->max_retries = max_retries;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_RETRIES]);
}

guint
pd_http_provider_get_retry_base_delay_ms (PdHttpProvider *self)
{
  PdHttpProviderPrivate *priv = pd_http_provider_get_instance_private (self);

  g_return_val_if_fail (PD_IS_HTTP_PROVIDER (self), 0);

  return priv->retry_base_delay_ms;
}

void
pd_http_provider_set_retry_base_delay_ms (PdHttpProvider *self,
                                          guint           delay_ms)
{
  PdHttpProviderPrivate *priv = pd_http_provider_get_instance_private (self);

  g_return_if_fail (PD_IS_HTTP_PROVIDER (self));

  if (priv->retry_base_delay_ms == delay_ms)
    return;
  priv->retry_base_delay_ms = delay_ms;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RETRY_BASE_DELAY_MS]);
}
