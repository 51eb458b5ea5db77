/* pd-redact-pem.c: private key blocks out of text before it is stored.
 *
 * The first pass of pd_redact(): a PEM private key block is masked whole,
 * found with plain string searches.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-redact.h"
#include "pd-redact-private.h"

#define PEM_MAX_BODY 16384

/* @p points at "-----BEGIN " or "-----END ": the end of a marker line
 * "… [A-Z0-9 ]{0,40}PRIVATE KEY-----", or NULL when it is not one. */
static const char *
pem_marker_end (const char *p,
                gsize       skip)
{
  const char *q = p + skip;
  const char *run = q;

  while ((g_ascii_isupper (*q) || g_ascii_isdigit (*q) || *q == ' ') && q - run < 40 + 11)
    q++;
  if (q - run < 11 || strncmp (q - 11, "PRIVATE KEY", 11) != 0 || strncmp (q, "-----", 5) != 0)
    return NULL;
  return q + 5;
}

/* Replaces BEGIN … PRIVATE KEY … END … PRIVATE KEY blocks of at most
 * PEM_MAX_BODY bytes with no '"' inside (so a match never leaves a JSON
 * string).  The next footer and the next quote are remembered, so each is
 * searched for once, however many headers there are: linear. */
char *
_pd_redact_pem (const char *text,
                guint      *count)
{
  GString *out = NULL;
  const char *copied = text;
  const char *p = text;
  const char *footer = NULL;      /* next private key footer at or after p, once known */
  const char *footer_end = NULL;
  const char *quote = NULL;       /* next '"' at or after p, once known */
  gboolean no_footer = FALSE;
  gboolean no_quote = FALSE;

  while ((p = strstr (p, "-----BEGIN ")) != NULL)
    {
      const char *body = pem_marker_end (p, 11);

      if (body == NULL)
        {
          p += 11;
          continue;
        }

      if (!no_footer && (footer == NULL || footer < body))
        {
          const char *f = body;

          footer = NULL;
          while ((f = strstr (f, "-----END ")) != NULL)
            {
              if ((footer_end = pem_marker_end (f, 9)) != NULL)
                {
                  footer = f;
                  break;
                }
              f += 9;
            }
          no_footer = footer == NULL;
        }
      if (no_footer)
        break;  /* no block can end: none after this one either */

      if (!no_quote && (quote == NULL || quote < body))
        {
          quote = strchr (body, '"');
          no_quote = quote == NULL;
        }

      if (footer - body <= PEM_MAX_BODY && (no_quote || quote > footer))
        {
          if (out == NULL)
            out = g_string_sized_new (strlen (text));
          g_string_append_len (out, copied, p - copied);
          g_string_append (out, PD_REDACTED);
          (*count)++;
          copied = p = footer_end;
        }
      else
        p = body;
    }

  if (out == NULL)
    return NULL;
  g_string_append (out, copied);
  return g_string_free (out, FALSE);
}
