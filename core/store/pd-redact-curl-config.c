/* pd-redact-curl-config.c: curl's config text (-K FILE, -K- or --config -
 * with the lines on its input, ~/.curlrc written), whose lines hold an
 * option and its value with no dashes: user = "bob:SECRET",
 * proxy-user: bob:SECRET, pass SECRET, oauth2-bearer SECRET.
 *
 * curl reads a config line's option with or without its dashes, and its
 * value after '=', ':' or blanks, in double quotes or not.  Without the
 * dashes no option rule read it (curl -K- <<< 'user = "bob:SECRET"',
 * printf 'user = "bob:SECRET"\n' > ~/.curlrc, the lines of a here
 * document fed to curl -K - were stored in clear; tried as an attacker
 * would).  Such a line is read where a line starts (the text's start, a
 * line break, printf's or a JSON string's \n, a quote or <<< opening the
 * string that holds it), and only in a text that gives curl a config
 * (it names curlrc, or runs curl with -K or --config): user = x in any
 * other file stays.  A header line (header = "X-Api-Key: …") is the
 * header rules'.  The value is masked only when it reads as written to
 * curl and to bash around it: no quote, backslash, $, backtick or shell
 * sign in it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-redact.h"
#include "pd-redact-private.h"
#include "pd-redact-scan-private.h"

/* How long a value may be. */
#define CONFIG_VALUE_MAX 256

/* Whether the text gives curl a config: it names curlrc (~/.curlrc,
 * _curlrc), or holds curl and a -K (alone or after grouped flags: -sK-)
 * or --config.  Read once a text. */
gboolean
_pd_redact_gives_curl_config (Redactor *r)
{
  const char *t = r->text;
  gboolean curl = FALSE, option = FALSE;

  if (r->curl_config != 0)
    return r->curl_config > 0;
  if (g_strstr_len (t, r->len, "curlrc") != NULL)
    {
      r->curl_config = 1;
      return TRUE;
    }
  for (gsize k = 0; k < r->len && !(curl && option); k++)
    {
      if (t[k] == 'c' && k + 4 <= r->len && strncmp (t + k, "curl", 4) == 0)
        curl = TRUE;
      else if (t[k] == '-' && (k == 0 || t[k - 1] == ' ' || t[k - 1] == '\t'))
        {
          gsize f = k + 1;

          if (f + 7 <= r->len && strncmp (t + f, "-config", 7) == 0)
            option = TRUE;
          while (f < r->len && f - k <= 16 && g_ascii_isalpha (t[f]) && t[f] != 'K')
            f++;
          if (f < r->len && t[f] == 'K')
            option = TRUE;
        }
    }
  r->curl_config = curl && option ? 1 : -1;
  return r->curl_config > 0;
}

/* Whether a config line may start at @i: after blanks, the text's start,
 * a line break, printf's or a JSON string's \n, a quote (the string that
 * holds the lines) or the < of <<<. */
static gboolean
line_starts_at (Redactor *r,
                gsize     i)
{
  const char *t = r->text;
  gsize b = i;

  while (b > 0 && i - b < 32 && (t[b - 1] == ' ' || t[b - 1] == '\t'))
    b--;
  if (b == 0)
    return TRUE;
  if (t[b - 1] == '\n' || t[b - 1] == '\'' || t[b - 1] == '"' || t[b - 1] == '<')
    return TRUE;
  return b >= 2 && t[b - 1] == 'n' && t[b - 2] == '\\';
}

/* The options whose value is a secret, or holds one after a ':'. */
static const struct
{
  const char *name;
  gboolean    user;  /* user:password: the part after the first ':' */
} options[] = {
  { "user", TRUE }, { "proxy-user", TRUE }, { "pass", FALSE }, { "proxy-pass", FALSE }, { "oauth2-bearer", FALSE },
};

/* Whether @c may stand in a value masked here: what reads as written to
 * curl's config and to bash around it. */
static inline gboolean
value_char (char c)
{
  return (guchar) c > ' ' && c != 0x7f && strchr ("'\"\\$`;&|<>(){}[]*?#", c) == NULL;
}

/* Whether printf's \n stands at @k: a backslash (two in a JSON string,
 * four in one held in one) and n. */
static gboolean
printf_line_end (const char *t,
                 gsize       len,
                 gsize       k)
{
  gsize b = k;

  while (b < len && b - k < 4 && t[b] == '\\')
    b++;
  return b > k && b < len && t[b] == 'n';
}

gsize
_pd_redact_curl_config_at (Redactor *r,
                           gsize     i)
{
  const char *t = r->text;
  guint depth = _pd_redact_depth_at (r->depths, i);
  gsize k, vs, ve, ms;
  gboolean user = FALSE, quoted = FALSE, sep = FALSE, assigned = FALSE;
  guint o;

  if (depth > 1 || (i > 0 && (g_ascii_isalnum (t[i - 1]) || t[i - 1] == '-' || t[i - 1] == '_')
                     && !(i >= 2 && t[i - 1] == 'n' && t[i - 2] == '\\')))
    return i;
  for (o = 0; o < G_N_ELEMENTS (options); o++)
    {
      gsize n = strlen (options[o].name);

      if (i + n < r->len && strncmp (t + i, options[o].name, n) == 0
          && (t[i + n] == ' ' || t[i + n] == '\t' || t[i + n] == '=' || t[i + n] == ':'))
        break;
    }
  if (o == G_N_ELEMENTS (options) || !line_starts_at (r, i) || !_pd_redact_gives_curl_config (r))
    return i;
  user = options[o].user;
  k = i + strlen (options[o].name);
  /* blanks, and one '=' or ':', or blanks alone */
  while (k < r->len && (t[k] == ' ' || t[k] == '\t'))
    k++, sep = TRUE;
  if (k < r->len && (t[k] == '=' || t[k] == ':'))
    {
      sep = assigned = TRUE;
      for (k++; k < r->len && (t[k] == ' ' || t[k] == '\t'); k++)
        ;
    }
  if (!sep || k >= r->len)
    return i;
  /* the value, in curl's double quotes (\" in a JSON string) or not */
  if (t[k] == '"' && depth == 0)
    quoted = TRUE, k++;
  else if (depth == 1 && t[k] == '\\' && k + 1 < r->len && t[k + 1] == '"')
    quoted = TRUE, k += 2;
  vs = k;
  while (k < r->len && k - vs <= CONFIG_VALUE_MAX && value_char (t[k]))
    k++;
  ve = k;
  if (ve == vs || ve - vs > CONFIG_VALUE_MAX)
    return i;
  /* the value's end: its closing quote, or a blank, a line's end, the
   * quote that closes the shell's string, printf's or JSON's \n */
  if (quoted ? !(ve < r->len && (depth == 0 ? t[ve] == '"' : (t[ve] == '\\' && ve + 1 < r->len && t[ve + 1] == '"')))
             : !(ve >= r->len || t[ve] == ' ' || t[ve] == '\t' || t[ve] == '\n' || t[ve] == '\r' || t[ve] == '\''
                 || t[ve] == '"' || printf_line_end (t, r->len, ve)))
    return i;
  ms = vs;
  if (user)
    {
      while (ms < ve && t[ms] != ':')
        ms++;
      if (ms + 1 >= ve)
        return i;
      ms++;
    }
  {
    g_autofree char *value = g_strndup (t + ms, ve - ms);
    gboolean word = TRUE;

    /* pass show x at a line's start is the password store's command, a
     * line of the script, not of the config: after blanks alone, a
     * value of lower-case letters only is taken for a word of a command */
    for (gsize c = 0; value[c] != '\0' && word; c++)
      word = g_ascii_islower (value[c]);
    if ((word && !user && !quoted && !assigned) || !_pd_redact_value_is_secret (value, TRUE) || ms < r->copied)
      return i;
  }
  _pd_redact_mask_span (r, ms, ve, FALSE);
  return MAX (r->copied, ve);
}
