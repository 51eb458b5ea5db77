/* pd-server-guard.c: who may ask what of `plandeck-agent serve`.
 *
 * The instance and session tokens, the Host and Origin checks, and the
 * rate limiter of session lookups (odek's requireServeToken,
 * requireLocalHost, requireLocalOrigin and sessionLookupLimiter).  All on
 * the server's thread, except the token rules, which the database workers
 * apply too.
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
  diff = la ^ lb;
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

/* No Origin (not a browser) is fine; "null" and foreign ones are not. */
gboolean
_pd_server_origin_is_allowed (PdServer   *self,
                              const char *origin)
{
  g_autoptr(GUri) uri = NULL;

  if (origin == NULL)
    return TRUE;
  uri = g_uri_parse (origin, G_URI_FLAGS_NONE, NULL);
  return uri != NULL && name_is_allowed (self, g_uri_get_host (uri));
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

gboolean
_pd_server_rate_allow (PdServer   *self,
                       const char *client)
{
  RateBucket *bucket;
  gint64 now;

  if (self->rate_limit == 0 || client == NULL || *client == '\0')
    return TRUE;

  now = g_get_monotonic_time ();
  bucket = g_hash_table_lookup (self->rate, client);
  if (bucket == NULL)
    {
      if (g_hash_table_size (self->rate) >= 4096)
        g_hash_table_foreach_remove (self->rate, rate_prune_one, &now);
      bucket = g_new0 (RateBucket, 1);
      bucket->stamps = g_new0 (gint64, self->rate_limit);
      g_hash_table_insert (self->rate, g_strdup (client), bucket);
    }

  if (bucket->count < self->rate_limit)
    {
      bucket->stamps[(bucket->head + bucket->count) % self->rate_limit] = now;
      bucket->count++;
      return TRUE;
    }

  if (now - bucket->stamps[bucket->head] >= RATE_WINDOW_USEC)
    {
      bucket->stamps[bucket->head] = now;
      bucket->head = (bucket->head + 1) % self->rate_limit;
      return TRUE;
    }

  return FALSE;
}
