/* pd-server-guard.c: who may ask what of `plandeck-agent serve`.
 *
 * The instance and session tokens, the Host and Origin checks, the body
 * limits, and the rate limiter of session lookups (odek's
 * requireServeToken, requireLocalHost, requireLocalOrigin and
 * sessionLookupLimiter).  A request is judged when its headers are in,
 * before any of its body is read: a refused one with a body is answered
 * and closed without reading it (pd-server-conns.c), and an accepted body
 * is kept here, never beyond PD_SERVER_MAX_BODY.  All on the server's
 * thread, except the token rules, which the database workers apply too.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-server"

#include "config.h"

#include <string.h>

#include "pd-server-private.h"

#define RATE_WINDOW_USEC     (60 * G_TIME_SPAN_SECOND)

gboolean
_pd_server_token_equal (const char *a,
                        const char *b)
{
  gsize la, lb;
  guint diff;

  if (a == NULL || b == NULL)
    return FALSE;
  la = strlen (a);
  lb = strlen (b);
  /* The lengths are compared whole: folded into 32 bits, a presented
   * token of the real one repeated past 4 GiB would have matched. */
  diff = la != lb;
  for (gsize i = 0; i < la; i++)
    diff |= (guchar) a[i] ^ (guchar) b[i % (lb ? lb : 1)];
  return diff == 0 && la > 0;
}

static char *
host_without_port (const char *host)
{
  const char *colon;

  if (host == NULL)
    return NULL;
  if (host[0] == '[')
    {
      const char *end = strchr (host, ']');

      return end ? g_ascii_strdown (host + 1, end - host - 1) : NULL;
    }
  colon = strrchr (host, ':');
  return g_ascii_strdown (host, colon ? colon - host : -1);
}

static gboolean
name_is_allowed (PdServer   *self,
                 const char *host)
{
  g_autofree char *lower = NULL;

  if (host == NULL || *host == '\0')
    return FALSE;
  lower = g_ascii_strdown (host, -1);
  if (strcmp (lower, "localhost") == 0 || strcmp (lower, "127.0.0.1") == 0 || strcmp (lower, "::1") == 0)
    return TRUE;
  /* The address it listens on, written as that address (--listen
   * 127.0.0.2:P prints http://127.0.0.2:P/): a DNS rebinding page sends
   * its own name, never this, so the address itself is as safe as
   * 127.0.0.1. A wildcard is no name anyone browses to. */
  if (_pd_server_listens_on_address (self, lower))
    return TRUE;
  for (guint i = 0; i < self->allowed_hosts->len; i++)
    if (strcmp (lower, g_ptr_array_index (self->allowed_hosts, i)) == 0)
      return TRUE;
  return FALSE;
}

gboolean
_pd_server_host_is_allowed (PdServer   *self,
                            const char *host_header)
{
  g_autofree char *host = host_without_port (host_header);

  return name_is_allowed (self, host);
}

/* No Origin (not a browser) is fine; "null" and foreign ones are not.  An
 * origin is the server's own when it is http, names the server (a loopback
 * name or an --allow-host one) and its port: a page on another port of the
 * same machine is another origin, and as foreign as any other site.  Those
 * of --allow-origin (a reverse proxy's) are taken exactly. */
gboolean
_pd_server_origin_is_allowed (PdServer   *self,
                              const char *origin)
{
  g_autoptr(GUri) uri = NULL;
  const char *path;

  if (origin == NULL)
    return TRUE;
  for (guint i = 0; i < self->allowed_origins->len; i++)
    if (g_ascii_strcasecmp (origin, g_ptr_array_index (self->allowed_origins, i)) == 0)
      return TRUE;

  uri = g_uri_parse (origin, G_URI_FLAGS_NONE, NULL);
  if (uri == NULL || g_strcmp0 (g_uri_get_scheme (uri), "http") != 0 || g_uri_get_userinfo (uri) != NULL ||
      g_uri_get_query (uri) != NULL || g_uri_get_fragment (uri) != NULL)
    return FALSE;
  path = g_uri_get_path (uri);
  if (path != NULL && *path != '\0' && strcmp (path, "/") != 0)
    return FALSE;
  /* No port in an http origin is port 80. */
  return (g_uri_get_port (uri) == -1 ? 80u : (guint) g_uri_get_port (uri)) == self->port &&
         name_is_allowed (self, g_uri_get_host (uri));
}

char *
_pd_server_cookie_value (SoupServerMessage *msg,
                         const char        *name)
{
  const char *header = soup_message_headers_get_list (soup_server_message_get_request_headers (msg), "Cookie");
  GHashTable *params;
  char *value;

  if (header == NULL)
    return NULL;
  params = soup_header_parse_semi_param_list (header);
  value = g_strdup (g_hash_table_lookup (params, name));
  soup_header_free_param_list (params);
  return value;
}

/* Reads accept the instance token header (the bootstrap) or the session's
 * own token; a wrong session token is refused either way. */
gboolean
_pd_server_token_allows_read (const char *presented,
                              gboolean    instance_header,
                              const char *session_token)
{
  if (presented != NULL && *presented)
    return session_token != NULL && *session_token && _pd_server_token_equal (presented, session_token);
  return instance_header;
}

/* Changes need the session's token; a session that never had one (an
 * imported index row) accepts the instance token header instead. */
gboolean
_pd_server_token_allows_write (const char *presented,
                               gboolean    instance_header,
                               const char *session_token)
{
  if (session_token == NULL || *session_token == '\0')
    return instance_header;
  return presented != NULL && _pd_server_token_equal (presented, session_token);
}

/* Whether the WebSocket handshake offers the subprotocol odek.TOKEN. */
gboolean
_pd_server_ws_token_offered (PdServer          *self,
                             SoupServerMessage *msg)
{
  const char *header = soup_message_headers_get_list (soup_server_message_get_request_headers (msg),
                                                      "Sec-WebSocket-Protocol");
  GSList *offered;
  gboolean found = FALSE;

  if (header == NULL)
    return FALSE;
  offered = soup_header_parse_list (header);
  for (GSList *l = offered; l != NULL; l = l->next)
    if (g_str_has_prefix (l->data, "odek.") && _pd_server_token_equal ((char *) l->data + 5, self->token))
      found = TRUE;
  soup_header_free_list (offered);
  return found;
}

/* ---------------------------------------------------------------------- */
/* The rate limiter: a sliding window per client address                  */

struct _RateBucket
{
  gint64 *stamps;   /* ring of rate_limit timestamps */
  guint   head;     /* the oldest */
  guint   count;
};

void
_pd_server_rate_bucket_free (RateBucket *bucket)
{
  g_free (bucket->stamps);
  g_free (bucket);
}

static gboolean
rate_prune_one (gpointer key,
                gpointer value,
                gpointer user_data)
{
  RateBucket *bucket = value;
  gint64 now = *(gint64 *) user_data;
  guint newest = (bucket->head + bucket->count - 1) % MAX (bucket->count, 1);

  return bucket->count == 0 || now - bucket->stamps[newest] >= RATE_WINDOW_USEC;
}

/* The budget's owner: an address, but every loopback address one, since
 * each of 127.0.0.0/8 and ::1 is this machine (tried as an attacker would:
 * 127.0.0.2, 127.0.0.3, … each got a fresh budget). */
static const char *
rate_key (const char *client)
{
  g_autoptr(GInetAddress) address = g_inet_address_new_from_string (client);

  if (address != NULL && g_inet_address_get_is_loopback (address))
    return "loopback";
  /* An IPv4 address mapped into IPv6 (::ffff:127.0.0.2) is read as IPv4. */
  if (address != NULL && g_ascii_strncasecmp (client, "::ffff:", 7) == 0 && strchr (client + 7, '.') != NULL)
    {
      g_autoptr(GInetAddress) v4 = g_inet_address_new_from_string (client + 7);

      if (v4 != NULL && g_inet_address_get_is_loopback (v4))
        return "loopback";
    }
  return client;
}

/* A sliding window of @limit requests a minute per client in @table. */
gboolean
_pd_server_rate_allow_in (GHashTable *table,
                          guint       limit,
                          const char *client)
{
  RateBucket *bucket;
  gint64 now;

  if (limit == 0 || client == NULL || *client == '\0')
    return TRUE;

  client = rate_key (client);
  now = g_get_monotonic_time ();
  bucket = g_hash_table_lookup (table, client);
  if (bucket == NULL)
    {
      if (g_hash_table_size (table) >= 4096)
        g_hash_table_foreach_remove (table, rate_prune_one, &now);
      bucket = g_new0 (RateBucket, 1);
      bucket->stamps = g_new0 (gint64, limit);
      g_hash_table_insert (table, g_strdup (client), bucket);
    }

  if (bucket->count < limit)
    {
      bucket->stamps[(bucket->head + bucket->count) % limit] = now;
      bucket->count++;
      return TRUE;
    }

  if (now - bucket->stamps[bucket->head] >= RATE_WINDOW_USEC)
    {
      bucket->stamps[bucket->head] = now;
      bucket->head = (bucket->head + 1) % limit;
      return TRUE;
    }

  return FALSE;
}

/* Session lookups (odek's sessionLookupLimiter). */
gboolean
_pd_server_rate_allow (PdServer   *self,
                       const char *client)
{
  return _pd_server_rate_allow_in (self->rate, self->rate_limit, client);
}

/* ---------------------------------------------------------------------- */
/* Requests judged by their headers, before a byte of body is read        */

#define GUARD_KEY "pd-server-guard"

/* What the guard knows of one request; lives on the message. */
typedef struct
{
  PdServer   *server;           /* (unowned) */
  gboolean    judged;           /* the headers passed */
  gboolean    instance_header;  /* the instance token came as a header */
  GByteArray *body;             /* what was read of it, never over the cap */
} Guard;

static void
guard_free (gpointer data)
{
  Guard *guard = data;

  g_clear_pointer (&guard->body, g_byte_array_unref);
  g_free (guard);
}

static gboolean
content_type_is_json (SoupMessageHeaders *headers)
{
  const char *type = soup_message_headers_get_content_type (headers, NULL);

  return type != NULL && g_ascii_strcasecmp (type, "application/json") == 0;
}

/* All Origin lines, joined: of two, libsoup hands out the last, and "evil,
 * then ours" passed.  A browser sends one origin, so a list is refused. */
static gboolean
origin_lines_allowed (PdServer           *self,
                      SoupMessageHeaders *headers)
{
  const char *origin = soup_message_headers_get_list (headers, "Origin");

  return (origin == NULL || strpbrk (origin, ", ") == NULL) && _pd_server_origin_is_allowed (self, origin);
}

/* The checks of handle_api, in odek's order (instance token, Host, Origin),
 * then ours of the body.  Returns the status of a refusal, 0 to go on. */
static guint
judge (Guard              *guard,
       SoupServerMessage  *msg,
       const char         *path,
       gboolean            has_body,
       goffset             length,
       const char        **error)
{
  PdServer *self = guard->server;
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *method = soup_server_message_get_method (msg);
  const char *host = soup_message_headers_get_list (headers, "Host");
  /* As libsoup routes: a handler of "/ws" takes "/ws/", "/ws;x" and
   * "/wsanything" too (soup_path_map_lookup() matches a prefix, not a
   * folder), so they are judged as the WebSocket is.  An exact "/ws" here
   * let "/ws/" open a socket with no token from any page. */
  gboolean api = g_str_has_prefix (path, "/api");
  gboolean ws = g_str_has_prefix (path, "/ws");
  gboolean changes = method != SOUP_METHOD_GET && method != SOUP_METHOD_HEAD && method != SOUP_METHOD_OPTIONS;
  /* The instance token came only as the cookie a browser adds by itself. */
  gboolean by_cookie = FALSE;
  GUri *target = soup_server_message_get_uri (msg);

  /* RFC 9112 §3.2: more than one Host field line is a 400, and a Host
   * that is a list is no valid Host either; libsoup reads only one of them,
   * and which one a proxy in front would read is anyone's guess. */
  if (host != NULL && strchr (host, ',') != NULL)
    {
      *error = "more than one Host header";
      return SOUP_STATUS_BAD_REQUEST;
    }

  if (api || ws)
    {
      const char *header_token = soup_message_headers_get_one (headers, "X-Odek-Ws-Token");

      if (header_token == NULL)
        header_token = soup_message_headers_get_one (headers, "X-Plandeck-Token");
      guard->instance_header = _pd_server_token_equal (header_token, self->token);
      if (!guard->instance_header)
        {
          g_autofree char *cookie_token = _pd_server_cookie_value (msg, "odek_ws_token");
          gboolean offered = ws && _pd_server_ws_token_offered (self, msg);

          /* The WebSocket also takes it as the subprotocol odek.TOKEN, which
           * is how a browser page sends it there. */
          if (!_pd_server_token_equal (cookie_token, self->token) && !offered)
            {
              *error = "Forbidden";
              return SOUP_STATUS_FORBIDDEN;
            }
          by_cookie = !offered;
        }
    }

  /* Every path: a page served under a name that is not ours (DNS
   * rebinding) gets nothing, the browser UI included.  RFC 9112 §3.2.2:
   * with an absolute-form target ("GET http://evil/…") its authority is
   * the request's, whatever Host says; libsoup builds the request's URI
   * from it, so that is checked too. */
  if (!_pd_server_host_is_allowed (self, host) ||
      (target != NULL && !name_is_allowed (self, g_uri_get_host (target))))
    {
      *error = "Host not allowed";
      return SOUP_STATUS_FORBIDDEN;
    }

  /* A browser sends an Origin with every WebSocket handshake and every
   * POST or DELETE, odek's page included; a change or a socket that brings
   * the cookie alone and no Origin is no page of ours (a forged request,
   * a plugin, a browser that hides it), and the cookie, which the browser
   * adds by itself, is all it has (tried as an attacker would).  Clients
   * that are not browsers send the token as a header. */
  if (by_cookie && (ws || changes) && soup_message_headers_get_one (headers, "Origin") == NULL)
    {
      *error = "Origin required: a request with the token cookie alone must come from a page";
      return SOUP_STATUS_FORBIDDEN;
    }

  /* A WebSocket is never a simple request: a page elsewhere could open one
   * with the cookie, and only the Origin tells (odek checks it too, more
   * loosely: any loopback port). */
  if (ws && !origin_lines_allowed (self, headers))
    {
      *error = "Origin not allowed";
      return SOUP_STATUS_FORBIDDEN;
    }

  if (api)
    {
      /* odek's rule (changes only), and ours for the event stream: a page
       * elsewhere must not hold stream slots either. */
      if (changes || strcmp (path, "/api/events/stream") == 0)
        {
          if (!origin_lines_allowed (self, headers))
            {
              *error = "Origin not allowed";
              return SOUP_STATUS_FORBIDDEN;
            }
        }

      /* A form or text/plain body is what a page elsewhere can send without
       * asking first (no CORS preflight); a JSON one it cannot. */
      if (has_body && !content_type_is_json (headers))
        {
          *error = "the request body must be JSON (Content-Type: application/json)";
          return SOUP_STATUS_UNSUPPORTED_MEDIA_TYPE;
        }
    }

  if (length > PD_SERVER_MAX_BODY)
    {
      *error = "request body too large";
      return SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE;
    }

  return 0;
}

/* The answer is set on @msg.  Without a body the request is complete and
 * libsoup sends it, on a connection kept alive; with one, the connection
 * is taken and closed without reading it. */
static void
refuse (Guard             *guard,
        SoupServerMessage *msg,
        guint              status,
        const char        *error,
        gboolean           has_body)
{
  g_clear_pointer (&guard->body, g_byte_array_unref);
  if (error != NULL)
    _pd_server_respond_error (msg, status, error);
  if (has_body)
    _pd_server_conns_refuse (guard->server, msg);
}

static void
on_got_headers (SoupServerMessage *msg,
                gpointer           user_data)
{
  Guard *guard = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  SoupEncoding encoding = soup_message_headers_get_encoding (headers);
  goffset length = encoding == SOUP_ENCODING_CONTENT_LENGTH ? soup_message_headers_get_content_length (headers) : 0;
  gboolean has_body = encoding == SOUP_ENCODING_CHUNKED || length > 0;
  GUri *uri = soup_server_message_get_uri (msg);
  const char *error = NULL;
  guint status;

  /* libsoup refused it already (a path with "..", a wrong scheme): its
   * answer stands, and a body is not read for it either. */
  if (soup_server_message_get_status (msg) != 0)
    {
      refuse (guard, msg, 0, NULL, has_body);
      return;
    }

  /* A connection that came with no room left is answered and closed
   * unread (pd-server-conns.c). */
  if (_pd_server_conns_is_doomed (guard->server, msg))
    {
      refuse (guard, msg, SOUP_STATUS_SERVICE_UNAVAILABLE, "too many connections at once; try again", TRUE);
      return;
    }

  status = judge (guard, msg, uri ? g_uri_get_path (uri) : "", has_body, length, &error);
  if (status != 0)
    {
      refuse (guard, msg, status, error, has_body);
      return;
    }

  guard->judged = TRUE;
  if (has_body)
    {
      /* The chunks land in guard->body, which refuses to grow past the
       * cap, instead of libsoup's body, which would take them all. */
      soup_message_body_set_accumulate (soup_server_message_get_request_body (msg), FALSE);
      guard->body = g_byte_array_sized_new ((guint) MIN (length, PD_SERVER_MAX_BODY));
    }
}

/* Content-Length bodies stop at their length (checked above); chunked ones
 * are counted as they come. */
static void
on_got_chunk (SoupServerMessage *msg,
              GBytes            *chunk,
              gpointer           user_data)
{
  Guard *guard = user_data;
  gsize size = g_bytes_get_size (chunk);

  if (guard->body == NULL)
    return;
  if (size > PD_SERVER_MAX_BODY - guard->body->len)
    {
      refuse (guard, msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, "request body too large", TRUE);
      return;
    }
  g_byte_array_append (guard->body, g_bytes_get_data (chunk, NULL), (guint) size);
}

/**
 * _pd_server_guard_watch:
 *
 * From SoupServer::request-started: judges @msg when its headers are in,
 * before its body is read, and keeps its body within PD_SERVER_MAX_BODY.
 */
void
_pd_server_guard_watch (PdServer          *self,
                        SoupServerMessage *msg)
{
  Guard *guard;

  if (g_object_get_data (G_OBJECT (msg), GUARD_KEY) != NULL)
    return;
  guard = g_new0 (Guard, 1);
  guard->server = self;
  g_object_set_data_full (G_OBJECT (msg), GUARD_KEY, guard, guard_free);
  g_signal_connect (msg, "got-headers", G_CALLBACK (on_got_headers), guard);
  g_signal_connect (msg, "got-chunk", G_CALLBACK (on_got_chunk), guard);
}

/**
 * _pd_server_guard_passed:
 * @instance_header: (out): whether the instance token came as a header
 *
 * Whether @msg's headers passed the guard: handlers answer nothing else.
 */
gboolean
_pd_server_guard_passed (SoupServerMessage *msg,
                         gboolean          *instance_header)
{
  Guard *guard = g_object_get_data (G_OBJECT (msg), GUARD_KEY);

  if (guard == NULL || !guard->judged)
    return FALSE;
  if (instance_header != NULL)
    *instance_header = guard->instance_header;
  return TRUE;
}

/**
 * _pd_server_request_body:
 *
 * Returns: (transfer full): @msg's body, at most PD_SERVER_MAX_BODY bytes;
 *   the body is handed over, so a second call returns nothing.
 */
GBytes *
_pd_server_request_body (SoupServerMessage *msg)
{
  Guard *guard = g_object_get_data (G_OBJECT (msg), GUARD_KEY);

  if (guard == NULL || guard->body == NULL)
    return g_bytes_new (NULL, 0);
  return g_byte_array_free_to_bytes (g_steal_pointer (&guard->body));
}
