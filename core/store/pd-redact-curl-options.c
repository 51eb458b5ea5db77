/* pd-redact-curl-options.c: curl's password options that no name rule
 * reads (--proxy-pass X; --cert FILE:X, -E FILE:X and --proxy-cert, whose
 * pass phrase follows the file's name after a colon), and the argument
 * printf hands curl's config for a %s in it (curl -K <(printf 'user
 * bob:%s' X)).  Each was stored in clear (tried as an attacker would).
 *
 * Only a plain value is masked, unquoted or in one pair of quotes that
 * stay in sight: one that expands a variable or runs a command is no
 * secret written here.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-redact.h"
#include "pd-redact-private.h"
#include "pd-redact-scan-private.h"

#define VALUE_MAX 256

static gboolean
plain (char c)
{
  return (guchar) c > ' ' && c != 0x7f && strchr ("'\"\\$`;&|<>(){}[]*?#", c) == NULL;
}

static gboolean
word_end (const char *t,
          gsize       len,
          gsize       k,
          guint       depth)
{
  if (k >= len || strchr (" \t\n\r;&|<>()", t[k]) != NULL)
    return TRUE;
  return depth == 1 && (t[k] == '"' || (t[k] == '\\' && k + 1 < len && strchr ("nrt", t[k + 1]) != NULL));
}

/* The plain word at @k, unquoted or in one pair of quotes ('…', "…", \"…\"
 * in a JSON string): its text in [*vs, *ve), its end returned, or 0. */
static gsize
plain_word (const char *t,
            gsize       len,
            gsize       k,
            guint       depth,
            gsize      *vs,
            gsize      *ve)
{
  gsize q = 0, e;

  if (k < len && (t[k] == '\'' || (depth == 0 && t[k] == '"')))
    q = 1;
  else if (depth == 1 && k + 1 < len && t[k] == '\\' && t[k + 1] == '"')
    q = 2;
  *vs = k + q;
  for (e = *vs; e < len && e - *vs < VALUE_MAX && plain (t[e]); e++)
    ;
  if (e == *vs || e - *vs >= VALUE_MAX || e + q > len || strncmp (t + e, t + k, q) != 0)
    return 0;
  *ve = e;
  return word_end (t, len, e + q, depth) ? e + q : 0;
}

/* Masks [vs, ve) when a secret: where the scan goes on, or @i. */
static gsize
mask (Redactor *r,
      gsize     i,
      gsize     vs,
      gsize     ve,
      gsize     end)
{
  g_autofree char *value = NULL;

  if (ve <= vs || vs < r->copied)
    return i;
  value = g_strndup (r->text + vs, ve - vs);
  if (!_pd_redact_value_is_secret (value, TRUE) || !_pd_redact_mask_span (r, vs, ve, FALSE))
    return i;
  return MAX (r->copied, end);
}

gsize
_pd_redact_curl_option_at (Redactor *r,
                           gsize     i)
{
  static const struct
  {
    const char *name;
    gboolean    after_colon;
  } options[] = {
    { "--proxy-pass", FALSE }, { "--cert", TRUE }, { "--proxy-cert", TRUE }, { "-E", TRUE },
  };
  const char *t = r->text;
  guint depth = _pd_redact_depth_at (r->depths, i);
  gsize k, vs, ve, end;

  if (depth > 1)
    return i;
  for (guint o = 0; o < G_N_ELEMENTS (options); o++)
    {
      gsize n = strlen (options[o].name);

      if (strncmp (t + i, options[o].name, n) != 0)
        continue;
      k = i + n;
      if (k < r->len && t[k] == '=' && options[o].name[1] == '-')
        k++;
      else if (k < r->len && (t[k] == ' ' || t[k] == '\t'))
        while (k < r->len && (t[k] == ' ' || t[k] == '\t'))
          k++;
      else
        return i;
      if ((end = plain_word (t, r->len, k, depth, &vs, &ve)) == 0
          || (_pd_redact_password_options_at (&r->line, t, i) & PW_GLUED_U) == 0)
        return i;
      if (options[o].after_colon)
        {
          /* FILE:PASSPHRASE, the first colon (a Windows drive's C:\ has a
           * backslash after it: no plain word) */
          gsize c = vs;

          while (c < ve && t[c] != ':')
            c++;
          if (c == vs || c + 1 >= ve)
            return i;
          vs = c + 1;
        }
      return mask (r, i, vs, ve, end);
    }
  return i;
}

/* Whether the format's text [s, e) before a %s ends a config line's
 * start whose value the %s is: user X: (after the user), pass, proxy-pass,
 * oauth2-bearer (with =, : or blanks, an opening quote, and dashes). */
static gboolean
slot_is_secret (const char *t,
                gsize       s,
                gsize       e)
{
  static const char * const names[] = { "user", "proxy-user", "pass", "proxy-pass", "oauth2-bearer", NULL };
  gsize k = e;

  /* the start of this line of the format (a line break, printf's \n) */
  for (gsize j = e; j > s; j--)
    if (t[j - 1] == '\n' || (j - 1 > s && t[j - 2] == '\\' && t[j - 1] == 'n'))
      {
        s = j;
        break;
      }
  while (s < e && (t[s] == ' ' || t[s] == '\t' || t[s] == '-'))
    s++;
  for (guint n = 0; names[n] != NULL; n++)
    {
      gsize len = strlen (names[n]);

      if (e - s <= len || strncmp (t + s, names[n], len) != 0 || !strchr (" \t=:", t[s + len]))
        continue;
      k = s + len;
      while (k < e && strchr (" \t=:", t[k]) != NULL)
        k++;
      if (k < e && t[k] == '"')
        k++;
      if (names[n][strlen (names[n]) - 1] == 'r' && strcmp (names[n], "oauth2-bearer") != 0)
        {
          /* user:… : the %s after the user's colon */
          while (k < e && t[k] != ':' && t[k] != ' ')
            k++;
          return k + 1 == e && t[k] == ':';
        }
      return k == e;
    }
  return FALSE;
}

gsize
_pd_redact_printf_config_at (Redactor *r,
                             gsize     i)
{
  const char *t = r->text;
  guint depth = _pd_redact_depth_at (r->depths, i);
  gsize k = i + 6, fs, fe, end, vs, ve, next = i;
  guint slot = 0, secret_slots = 0;
  guint64 secret = 0;

  if (depth > 1 || strncmp (t + i, "printf", 6) != 0 || k >= r->len || (t[k] != ' ' && t[k] != '\t')
      || !_pd_redact_gives_curl_config (r))
    return i;
  while (k < r->len && (t[k] == ' ' || t[k] == '\t'))
    k++;
  /* the format, in single quotes: its %s slots */
  if (k >= r->len || t[k] != '\'')
    return i;
  fs = k + 1;
  for (fe = fs; fe < r->len && fe - fs < 1024 && t[fe] != '\''; fe++)
    ;
  if (fe >= r->len || t[fe] != '\'')
    return i;
  for (gsize j = fs; j + 1 < fe && slot < 64; j++)
    if (t[j] == '%')
      {
        if (t[j + 1] == 's')
          {
            if (slot_is_secret (t, fs, j))
              {
                secret |= G_GUINT64_CONSTANT (1) << slot;
                secret_slots++;
              }
            slot++;
          }
        j++;  /* %% and %s alike */
      }
  if (secret_slots == 0)
    return i;
  /* the arguments, each the next %s's */
  k = fe + 1;
  for (guint a = 0; a < slot; a++)
    {
      while (k < r->len && (t[k] == ' ' || t[k] == '\t'))
        k++;
      if ((end = plain_word (t, r->len, k, depth, &vs, &ve)) == 0)
        break;
      if ((secret & (G_GUINT64_CONSTANT (1) << a)) != 0)
        next = MAX (next, mask (r, i, vs, ve, end));
      k = end;
    }
  return next;
}
