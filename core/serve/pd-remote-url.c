/* pd-remote-url.c: an endpoint's address, as PdRemoteSource asks it and
 * as the window tells one endpoint from another.
 *
 * `serve` prints `http://127.0.0.1:PORT/?token=…`; a person may put the
 * endpoint behind a proxy under a path (`http://host/plandeck/`) or with a
 * query the proxy needs (`?x=y`).  The API paths go after the path, the
 * query goes with every request, and the token never goes in a URL.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-source"

#include "config.h"

#include <string.h>

#include <gio/gio.h>
#include <glib/gi18n-lib.h>

#include "pd-remote-url.h"
#include "pd-source.h"

/* @query without its `token` parameter (any case), which goes to @token:
 * %NULL when nothing else is left. */
static char *
query_without_token (const char  *query,
                     char       **token)
{
  g_auto(GStrv) params = g_strsplit (query, "&", -1);
  g_autoptr(GString) kept = g_string_new (NULL);

  for (guint i = 0; params[i] != NULL; i++)
    {
      const char *eq = strchr (params[i], '=');
      g_autofree char *name = g_uri_unescape_segment (params[i], eq, NULL);

      if (params[i][0] == '\0')
        continue;
      if (name != NULL && g_ascii_strcasecmp (name, "token") == 0)
        {
          if (token != NULL && *token == NULL && eq != NULL)
            *token = g_uri_unescape_string (eq + 1, NULL);
          continue;
        }
      if (kept->len > 0)
        g_string_append_c (kept, '&');
      g_string_append (kept, params[i]);
    }
  return kept->len > 0 ? g_strdup (kept->str) : NULL;
}

/**
 * pd_remote_url_split:
 * @url: the endpoint, as `serve` prints it, or behind a proxy with a path
 *   and a query of its own
 * @base: (out) (optional): `scheme://host[:port][/path]`, no trailing slash
 * @query: (out) (optional) (nullable): the query without its token
 * @token: (out) (optional) (nullable): the query's `token`
 *
 * Returns: %FALSE with @error when @url is no http:// or https:// URL
 *   naming a host (%G_URI_ERROR_BAD_PORT when its port is out of range)
 */
gboolean
pd_remote_url_split (const char  *url,
                     char       **base,
                     char       **query,
                     char       **token,
                     GError     **error)
{
  g_autoptr(GError) parse_error = NULL;
  g_autoptr(GUri) uri = g_uri_parse (url, G_URI_FLAGS_ENCODED, &parse_error);
  g_autofree char *found = NULL;
  g_autofree char *kept = NULL;
  g_autofree char *path = NULL;
  gsize len;

  /* http://127.0.0.1:99999 was "not an http:// or https:// URL", of an
   * address whose scheme was right and whose port was not (tried as a new
   * user would).  Port 0 is no port to reach either. */
  if (g_error_matches (parse_error, G_URI_ERROR, G_URI_ERROR_BAD_PORT) || (uri != NULL && g_uri_get_port (uri) == 0))
    {
      /* The address is not quoted: unparsed, its token could not be
       * taken out of it. */
      g_set_error_literal (error, G_URI_ERROR, G_URI_ERROR_BAD_PORT,
                           _("The port must be a number from 1 to 65535, as in http://127.0.0.1:8080"));
      return FALSE;
    }
  if (uri == NULL || g_uri_get_host (uri) == NULL || g_uri_get_host (uri)[0] == '\0' ||
      (g_strcmp0 (g_uri_get_scheme (uri), "http") != 0 && g_strcmp0 (g_uri_get_scheme (uri), "https") != 0))
    {
      g_set_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID, _("“%s” is not an http:// or https:// URL"), url);
      return FALSE;
    }

  if (g_uri_get_query (uri) != NULL)
    kept = query_without_token (g_uri_get_query (uri), &found);
  path = g_strdup (g_uri_get_path (uri));
  len = strlen (path);
  while (len > 0 && path[len - 1] == '/')
    path[--len] = '\0';

  if (base != NULL)
    *base = g_uri_join (G_URI_FLAGS_ENCODED, g_uri_get_scheme (uri), NULL, g_uri_get_host (uri),
                        g_uri_get_port (uri), path, NULL, NULL);
  if (query != NULL)
    *query = g_steal_pointer (&kept);
  if (token != NULL)
    *token = g_steal_pointer (&found);
  else if (found != NULL)
    explicit_bzero (found, strlen (found));
  return TRUE;
}

/**
 * pd_remote_url_join:
 * @base: as pd_remote_url_split() gives it
 * @query: (nullable): the base's own query
 * @path: an API path, perhaps with its query (`/api/sessions?limit=50`)
 *
 * Returns: (transfer full): the URL to ask: @path after @base's path, and
 *   @query before @path's own
 */
char *
pd_remote_url_join (const char *base,
                    const char *query,
                    const char *path)
{
  const char *mark = strchr (path, '?');

  if (query == NULL || query[0] == '\0')
    return g_strconcat (base, path, NULL);
  if (mark == NULL)
    return g_strconcat (base, path, "?", query, NULL);
  return g_strdup_printf ("%s%.*s?%s&%s", base, (int) (mark - path), path, query, mark + 1);
}

/* The names of this computer a loopback endpoint may be reached by. */
static gboolean
host_is_loopback (const char *host)
{
  g_autoptr(GInetAddress) address = NULL;
  g_autofree char *lower = g_ascii_strdown (host, -1);
  gsize len = strlen (lower);

  while (len > 0 && lower[len - 1] == '.')
    lower[--len] = '\0';
  if (strcmp (lower, "localhost") == 0 || g_str_has_suffix (lower, ".localhost"))
    return TRUE;
  address = g_inet_address_new_from_string (lower);
  return address != NULL && (g_inet_address_get_is_loopback (address) || g_inet_address_get_is_any (address));
}

/**
 * pd_remote_url_dup_key:
 * @url: an endpoint's address, in any of its spellings
 *
 * Two addresses of one endpoint have one key: the scheme and host in
 * lower case, every loopback name (`localhost`, `127.0.0.x`, `[::1]`,
 * `0.0.0.0`) as one, the default port spelled or not, the path without
 * its trailing slash, the query without its token.
 *
 * Returns: (transfer full) (nullable): the key, %NULL when @url is no
 *   endpoint address
 */
char *
pd_remote_url_dup_key (const char *url)
{
  g_autofree char *base = NULL;
  g_autofree char *query = NULL;
  g_autoptr(GUri) uri = NULL;
  g_autofree char *host = NULL;
  g_autofree char *scheme = NULL;
  int port;

  if (url == NULL || !pd_remote_url_split (url, &base, &query, NULL, NULL))
    return NULL;
  uri = g_uri_parse (base, G_URI_FLAGS_ENCODED, NULL);
  if (uri == NULL)
    return NULL;
  scheme = g_ascii_strdown (g_uri_get_scheme (uri), -1);
  host = host_is_loopback (g_uri_get_host (uri)) ? g_strdup ("loopback") : g_ascii_strdown (g_uri_get_host (uri), -1);
  port = g_uri_get_port (uri);
  if (port < 0)
    port = strcmp (scheme, "https") == 0 ? 443 : 80;
  return g_strdup_printf ("%s://%s:%d%s?%s", scheme, host, port, g_uri_get_path (uri), query != NULL ? query : "");
}
