/* pd-server-webui.c: `serve --webui DIR`, a browser UI served the way odek
 * serves its own.
 *
 * Plandeck ships no web UI.  A folder laid out as odek's cmd/odek/ui
 * (index.html, app.js, style.css) is served as odek serves it, so odek's
 * browser UI, or any page written for that contract, runs against
 * `plandeck-agent serve` unchanged (reference: odek-webui-protocol.md §1):
 *
 *   /             index.html, its first {{ODEK_WS_TOKEN}} replaced by the
 *                 instance token and the odek_ws_token cookie set, when
 *                 the request carries ?token= with the right token; the
 *                 placeholder emptied and no cookie otherwise
 *   /app.js       application/javascript
 *   /style.css    text/css
 *   /favicon.ico  a small inline SVG
 *
 * and nothing else (404, /index.html too).  Every answer carries nosniff,
 * no-referrer, DENY framing and `frame-ancestors 'none'`, and no script-src
 * policy: odek's page uses inline handlers.  The files are read once, when
 * the option is given, so a request never touches the disk.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-server"

#include "config.h"

#include <string.h>

#include "pd-server-private.h"

#define WEBUI_FILE_MAX   (16 * 1024 * 1024)
#define TOKEN_PLACEHOLDER "{{ODEK_WS_TOKEN}}"

struct _PdServerWebui
{
  GBytes *index;   /* the page, placeholder kept */
  GBytes *script;  /* (nullable) */
  GBytes *style;   /* (nullable) */
};

static const char favicon[] =
  "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\">"
  "<rect width=\"16\" height=\"16\" rx=\"3\" fill=\"#3584e4\"/>"
  "<path d=\"M4 4h8v2H4zm0 3h8v2H4zm0 3h5v2H4z\" fill=\"#fff\"/></svg>";

void
_pd_server_webui_free (PdServerWebui *webui)
{
  if (webui == NULL)
    return;
  g_clear_pointer (&webui->index, g_bytes_unref);
  g_clear_pointer (&webui->script, g_bytes_unref);
  g_clear_pointer (&webui->style, g_bytes_unref);
  g_free (webui);
}

/* A regular file of @dir, at most WEBUI_FILE_MAX; NULL without an error
 * when it is not there and not @required. */
static GBytes *
load_file (const char  *dir,
           const char  *name,
           gboolean     required,
           GError     **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInfo) info = NULL;
  g_autoptr(GError) local_error = NULL;
  char *contents = NULL;
  gsize length;

  info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_TYPE "," G_FILE_ATTRIBUTE_STANDARD_SIZE,
                            G_FILE_QUERY_INFO_NONE, NULL, &local_error);
  if (info == NULL)
    {
      if (!required && g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        return NULL;
      g_propagate_prefixed_error (error, g_steal_pointer (&local_error), "%s: ", path);
      return NULL;
    }
  if (g_file_info_get_file_type (info) != G_FILE_TYPE_REGULAR)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE, "%s is not a regular file", path);
      return NULL;
    }
  if (g_file_info_get_size (info) > WEBUI_FILE_MAX)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s is larger than %d MiB", path,
                   WEBUI_FILE_MAX / (1024 * 1024));
      return NULL;
    }
  if (!g_file_load_contents (file, NULL, &contents, &length, NULL, error))
    return NULL;
  return g_bytes_new_take (contents, length);
}

/**
 * _pd_server_webui_load:
 *
 * Reads the browser UI of @dir: its index.html is required, app.js and
 * style.css are served when they are there.
 */
PdServerWebui *
_pd_server_webui_load (const char  *dir,
                       GError     **error)
{
  PdServerWebui *webui = g_new0 (PdServerWebui, 1);
  GError *local_error = NULL;

  if (!(webui->index = load_file (dir, "index.html", TRUE, error)))
    goto fail;
  webui->script = load_file (dir, "app.js", FALSE, &local_error);
  if (local_error == NULL)
    webui->style = load_file (dir, "style.css", FALSE, &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      goto fail;
    }
  return webui;

fail:
  _pd_server_webui_free (webui);
  return NULL;
}

/* The page with its first placeholder replaced by @token ("" for none). */
static GBytes *
page_with_token (GBytes     *index,
                 const char *token)
{
  gsize length;
  const char *data = g_bytes_get_data (index, &length);
  const char *at = g_strstr_len (data, (gssize) length, TOKEN_PLACEHOLDER);
  GString *page;

  if (at == NULL)
    return g_bytes_ref (index);
  page = g_string_sized_new (length + strlen (token));
  g_string_append_len (page, data, at - data);
  g_string_append (page, token);
  at += strlen (TOKEN_PLACEHOLDER);
  g_string_append_len (page, at, (gssize) (length - (gsize) (at - data)));
  return g_string_free_to_bytes (page);
}

static void
respond_bytes (SoupServerMessage *msg,
               const char        *content_type,
               GBytes            *bytes)
{
  gsize length;
  gconstpointer data = g_bytes_get_data (bytes, &length);

  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, content_type, SOUP_MEMORY_COPY, data, length);
}

/**
 * _pd_server_webui_handle:
 *
 * Answers every path outside /api and /ws when a web UI is served.
 */
void
_pd_server_webui_handle (PdServer          *self,
                         SoupServerMessage *msg,
                         const char        *path,
                         GHashTable        *query)
{
  PdServerWebui *webui = self->webui;
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (msg);
  const char *method = soup_server_message_get_method (msg);

  soup_message_headers_replace (headers, "X-Content-Type-Options", "nosniff");
  soup_message_headers_replace (headers, "Referrer-Policy", "no-referrer");
  soup_message_headers_replace (headers, "X-Frame-Options", "DENY");
  soup_message_headers_replace (headers, "Content-Security-Policy", "frame-ancestors 'none'");

  if (method != SOUP_METHOD_GET && method != SOUP_METHOD_HEAD)
    {
      soup_message_headers_replace (headers, "Allow", "GET, HEAD");
      _pd_server_respond_error (msg, 405, "method not allowed");
      return;
    }

  if (strcmp (path, "/") == 0)
    {
      const char *token = _pd_server_query_get (query, "token");
      gboolean known = token != NULL && _pd_server_token_equal (token, self->token);
      g_autoptr(GBytes) page = page_with_token (webui->index, known ? self->token : "");

      /* No token cookie, where odek sets one: a browser sends a cookie of
       * 127.0.0.1 to every port of 127.0.0.1 (cookies know no ports), so
       * any other program listening on this machine would receive the
       * instance token from the first page of its own that the browser
       * opened. The page sends the token from its meta tag instead: as a
       * header to /api and as the odek.TOKEN subprotocol to /ws. */
      respond_bytes (msg, "text/html; charset=utf-8", page);
    }
  else if (strcmp (path, "/app.js") == 0 && webui->script != NULL)
    respond_bytes (msg, "application/javascript; charset=utf-8", webui->script);
  else if (strcmp (path, "/style.css") == 0 && webui->style != NULL)
    respond_bytes (msg, "text/css; charset=utf-8", webui->style);
  else if (strcmp (path, "/favicon.ico") == 0)
    {
      g_autoptr(GBytes) icon = g_bytes_new_static (favicon, strlen (favicon));
      respond_bytes (msg, "image/svg+xml", icon);
    }
  else
    _pd_server_respond_error (msg, 404, "not found");
}
