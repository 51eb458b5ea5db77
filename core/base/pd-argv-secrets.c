/* pd-argv-secrets.c: tokens out of what /proc/PID/cmdline shows.
 *
 * `plandeck --remote 'http://host:8080/?token=T'` is the form serve
 * prints.  Every local user can read a process's arguments (ps -eo args)
 * for as long as it runs, and the token opens the whole API.  Linux reads
 * /proc/PID/cmdline from the process's own argument memory, so the value
 * is overwritten there once the program has its own copy.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-argv"

#include "config.h"
#include <string.h>
#include "pd-argv-secrets.h"

/* Whether the parameter name between @name and @end is `token` as a URL
 * reader sees it: g_uri_parse_params() (what the remote source reads the
 * URL with) decodes percent-escapes in names, so `%74oken=` is a token too. */
static gboolean
is_token_name (const char *name,
               const char *end)
{
  g_autofree char *raw = g_strndup (name, (gsize) (end - name));
  g_autofree char *decoded = g_uri_unescape_string (raw, NULL);

  /* A name that does not decode is no name the reader takes.  Besides
   * the token the window reads, the names providers take a key by
   * (?key=, ?api_key=: tried as an attacker would, they stayed in ps). */
  return decoded != NULL &&
         (g_ascii_strcasecmp (decoded, "token") == 0 || g_ascii_strcasecmp (decoded, "key") == 0 ||
          g_ascii_strcasecmp (decoded, "api_key") == 0 || g_ascii_strcasecmp (decoded, "apikey") == 0 ||
          g_ascii_strcasecmp (decoded, "access_token") == 0);
}

/* Overwrites the value of each token parameter in the `&`-separated
 * parameters from @params up to @stop (or the end); the count. */
static guint
hide_in_params (char *params,
                char  stop)
{
  guint hidden = 0;

  for (char *p = params; *p != '\0' && *p != stop; )
    {
      char *end = p + strcspn (p, stop == '#' ? "&#" : "&");
      char *equals = memchr (p, '=', (gsize) (end - p));

      if (equals != NULL && end > equals + 1 && is_token_name (p, equals))
        {
          memset (equals + 1, '*', (gsize) (end - (equals + 1)));
          hidden++;
        }
      p = *end == '&' ? end + 1 : end;
    }
  return hidden;
}

/* Overwrites the user and password of a URL's authority
 * (`http://u:TOKEN@host/`, which the window takes a token from); the
 * count. */
static guint
hide_userinfo (char *arg)
{
  char *authority = strstr (arg, "://");
  char *at;
  gsize length;

  if (authority == NULL)
    return 0;
  authority += 3;
  length = strcspn (authority, "/?#");
  at = NULL;
  for (char *p = authority; p < authority + length; p++)
    if (*p == '@')
      at = p;
  if (at == NULL || at == authority)
    return 0;
  memset (authority, '*', (gsize) (at - authority));
  return 1;
}

/* Overwrites every place of @arg a token can ride in; the count. */
static guint
hide_in_argument (char *arg)
{
  guint hidden = 0;
  char *query = strchr (arg, '?');
  char *fragment;

  if (query != NULL)
    hidden += hide_in_params (query + 1, '#');
  /* Only in a URL: `#` is an ordinary character of a file name. */
  if (strstr (arg, "://") != NULL)
    {
      hidden += hide_userinfo (arg);
      if ((fragment = strchr (arg, '#')) != NULL)
        hidden += hide_in_params (fragment + 1, '\0');
    }
  return hidden;
}

/**
 * pd_argv_hide_tokens:
 * @argv: (array length=argc): the process's own arguments, as main() got them
 *
 * Overwrites, in place, the value of every token parameter (its name
 * `token`, in any case and percent-escaped or not) in a URL's query or
 * fragment among @argv, and a URL's user and password, with asterisks of
 * the same length (the memory cannot grow).  Call it on main()'s argv after a copy has been taken for
 * parsing.
 *
 * Returns: how many values were hidden
 */
guint
pd_argv_hide_tokens (int    argc,
                     char **argv)
{
  guint hidden = 0;

  for (int i = 1; i < argc && argv[i] != NULL; i++)
    hidden += hide_in_argument (argv[i]);
  return hidden;
}
