/* pd-redact-user-split.c: a user:password word whose user part bash
 * expands or quotes, split where curl (or httpie) splits it: at the first
 * colon bash hands it, not the first one written.
 *
 * curl -u ${U:-bob}:SECRET and ${U:0:3}:SECRET were masked at the colon
 * inside the expansion (${U:[REDACTED]}:SECRET: counted as masked, the
 * password in clear), and "$(whoami)":SECRET, "${U/a/b}:SECRET",
 * `whoami`:SECRET, bob":"SECRET and bob":SECRET" were stored as written
 * (tried as an attacker would).  The word is read here a unit at a time:
 * '…' and "…" (\" in a JSON string), and ${…}, $(…), `…` and $NAME
 * skipped whole; the first colon outside an expansion splits it.  The
 * password is the run of plain bytes after it (quotes that open or
 * close around it stay in sight), and only a plain literal is masked:
 * one that expands a variable or runs a command is no secret written
 * here.  The option's name in quotes ("-u", $'-u', -"u", '-u'bob:X: bash
 * hands curl -u) is read here too, as is httpie's -a TOKEN after
 * -A bearer.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-redact.h"
#include "pd-redact-private.h"
#include "pd-redact-scan-private.h"

/* How far a word, or an expansion in it, is read. */
#define WORD_MAX 512

/* Bytes a masked password may hold: none the shell reads otherwise. */
static gboolean
plain_byte (char c)
{
  return (guchar) c > ' ' && c != 0x7f && strchr ("'\"\\$`;&|<>(){}[]*?#", c) == NULL;
}

/* The length of a double quote at @k (\" in a JSON string), or 0. */
static gsize
dquote_len (const char *t,
            gsize       len,
            gsize       k,
            guint       depth)
{
  if (depth == 0)
    return t[k] == '"' ? 1 : 0;
  return k + 1 < len && t[k] == '\\' && t[k + 1] == '"' ? 2 : 0;
}

/* The end of the expansion at @k ($NAME, ${…}, $(…), `…`), or 0 when
 * none starts there; G_MAXSIZE when one does and its end is not found. */
static gsize
expansion_end (const char *t,
               gsize       len,
               gsize       k)
{
  gsize e;
  guint open = 0;
  char o, c;

  if (t[k] == '`')
    {
      for (e = k + 1; e < len && e - k < WORD_MAX && t[e] != '`' && t[e] != '\n'; e++)
        ;
      return e < len && t[e] == '`' ? e + 1 : G_MAXSIZE;
    }
  if (t[k] != '$' || k + 1 >= len)
    return 0;
  if (g_ascii_isalpha (t[k + 1]) || t[k + 1] == '_')
    {
      for (e = k + 1; e < len && (g_ascii_isalnum (t[e]) || t[e] == '_'); e++)
        ;
      return e;
    }
  if (t[k + 1] != '{' && t[k + 1] != '(')
    return 0;
  o = t[k + 1];
  c = o == '{' ? '}' : ')';
  for (e = k + 1; e < len && e - k < WORD_MAX && t[e] != '\n'; e++)
    {
      /* bash reads quotes of its own inside: ${U:-'}'} ends at the last } */
      if (t[e] == '\'')
        {
          const char *q = memchr (t + e + 1, '\'', MIN (len - e - 1, WORD_MAX));

          if (q == NULL)
            return G_MAXSIZE;
          e = q - t;
          continue;
        }
      if (t[e] == o)
        open++;
      else if (t[e] == c && --open == 0)
        return e + 1;
    }
  return G_MAXSIZE;
}

/* Whether a blank or a sign that ends a word unquoted is at @k. */
static gboolean
word_ends_at (const char *t,
              gsize       len,
              gsize       k,
              guint       depth)
{
  if (k >= len || strchr (" \t\n\r;&|<>()", t[k]) != NULL)
    return TRUE;
  /* the JSON string's end, or its escapes of a line break */
  if (depth == 1 && (t[k] == '"' || (t[k] == '\\' && k + 1 < len && strchr ("nrt", t[k + 1]) != NULL)))
    return TRUE;
  return FALSE;
}

typedef enum
{
  SPLIT_NONE,      /* not such a word: the other rules' */
  SPLIT_DECLINED,  /* such a word, its password none to mask */
  SPLIT_MASKED,
} SplitResult;

/* The word at @vs (at @depth) as user:password; the password masked when
 * the user part expands or quotes (or @any).  Its end in *@we. */
static SplitResult
split_word (Redactor *r,
            gsize     vs,
            guint     depth,
            gboolean  any,
            gsize    *we)
{
  const char *t = r->text;
  gsize k = vs, q, e, colon = G_MAXSIZE, ps = 0, pe = 0;
  char state = 0;
  gboolean unusual = any, expands = FALSE, after_secret = FALSE;

  *we = vs;
  while (k - vs < WORD_MAX)
    {
      if (state == 0 && word_ends_at (t, r->len, k, depth))
        break;
      if (k >= r->len || t[k] == '\n')
        return SPLIT_NONE;
      if (state != '\'' && (q = dquote_len (t, r->len, k, depth)) > 0)
        {
          state = state == '"' ? 0 : '"';
          unusual = TRUE;
          k += q;
          continue;
        }
      if (state != '"' && t[k] == '\'')
        {
          state = state == '\'' ? 0 : '\'';
          unusual = TRUE;
          k++;
          continue;
        }
      if (colon == G_MAXSIZE)
        {
          if (state != '\'' && (e = expansion_end (t, r->len, k)) != 0)
            {
              if (e == G_MAXSIZE)
                return SPLIT_NONE;
              unusual = expands = TRUE;
              k = e;
              continue;
            }
          if (t[k] == '\\')
            return SPLIT_NONE;
          if (t[k] == ':')
            colon = k;
          k++;
          continue;
        }
      /* after the colon: plain bytes, once, between quotes only */
      if (!plain_byte (t[k]) || after_secret)
        return expands ? SPLIT_DECLINED : SPLIT_NONE;
      ps = k;
      while (k < r->len && plain_byte (t[k]) && (state == 0 || t[k] != ' '))
        k++;
      pe = k;
      after_secret = TRUE;
    }
  if (state != 0 || k - vs >= WORD_MAX || colon == G_MAXSIZE)
    return expands ? SPLIT_DECLINED : SPLIT_NONE;
  *we = k;
  if (!unusual)
    return SPLIT_NONE;
  /* scheme://…: a URL's (its own rule) */
  if (colon + 2 < r->len && t[colon + 1] == '/' && t[colon + 2] == '/')
    return SPLIT_NONE;
  /* declined, a word that expands is no pattern's either: they split it
   * at a colon inside the expansion */
  if (pe <= ps || ps < r->copied)
    return expands ? SPLIT_DECLINED : SPLIT_NONE;
  {
    g_autofree char *value = g_strndup (t + ps, pe - ps);

    if (!_pd_redact_value_is_secret (value, TRUE))
      return expands ? SPLIT_DECLINED : SPLIT_NONE;
  }
  if (_pd_redact_mask_span (r, ps, pe, FALSE))
    return SPLIT_MASKED;
  return expands ? SPLIT_DECLINED : SPLIT_NONE;
}

/* The value's start after an option that ends at @k (blanks, '=' or
 * glued when @glued_ok), or 0. */
static gsize
value_start (const char *t,
             gsize       len,
             gsize       k,
             gboolean    glued_ok)
{
  if (k < len && t[k] == '=')
    return k + 1;
  if (k < len && (t[k] == ' ' || t[k] == '\t'))
    {
      while (k < len && (t[k] == ' ' || t[k] == '\t'))
        k++;
      return k < len ? k : 0;
    }
  return glued_ok && k < len ? k : 0;
}

static gsize
split_at (Redactor *r,
          gsize     i,
          gsize     vs,
          guint     depth,
          gboolean  any)
{
  gsize we;

  SplitResult res = split_word (r, vs, depth, any, &we);

  /* a text whose first quote closes a string reads as inside a JSON
   * string (pd-redact-private.h): bob":"X is such a text, as written */
  if (res == SPLIT_NONE && depth == 1)
    res = split_word (r, vs, 0, any, &we);
  switch (res)
    {
    case SPLIT_MASKED:
      return MAX (r->copied, we);
    case SPLIT_DECLINED:
      /* past the option: the patterns read the word at its first colon
       * written, inside the expansion */
      return MAX (i + 2, MIN (vs, we));
    case SPLIT_NONE:
    default:
      return i;
    }
}

gsize
_pd_redact_user_split_at (Redactor *r,
                          gsize     i)
{
  const char *t = r->text;
  guint depth = _pd_redact_depth_at (r->depths, i);
  gsize k, vs;

  if (depth > 1)
    return i;
  if (strncmp (t + i, "--proxy-user", 12) == 0)
    k = i + 12;
  else if (strncmp (t + i, "--user", 6) == 0)
    k = i + 6;
  else
    {
      for (k = i + 1; k < r->len && k - i < 17 && strchr ("0123456#BfGgIiJjkLlMNnOpqRSsvZ", t[k]) != NULL; k++)
        ;
      if (k >= r->len || (t[k] != 'u' && t[k] != 'U'))
        return i;
      k++;
    }
  if ((vs = value_start (t, r->len, k, t[i + 1] != '-')) == 0)
    return i;
  return split_at (r, i, vs, depth, FALSE);
}

/* Whether httpie's -A bearer (--auth-type bearer, =bearer) stands on the
 * command line before @i: its -a is the token whole. */
static gboolean
bearer_before (const char *t,
               gsize       i)
{
  gsize s = i;
  g_autofree char *line = NULL;

  while (s > 0 && i - s < 1024 && strchr ("\n;&|", t[s - 1]) == NULL)
    s--;
  line = g_strndup (t + s, i - s);
  return strstr (line, "-A bearer") != NULL || strstr (line, "-A=bearer") != NULL
         || strstr (line, "--auth-type bearer") != NULL || strstr (line, "--auth-type=bearer") != NULL;
}

gsize
_pd_redact_httpie_split_at (Redactor *r,
                            gsize     i)
{
  const char *t = r->text;
  guint depth = _pd_redact_depth_at (r->depths, i);
  gsize vs, ve;

  if (depth > 1)
    return i;
  if ((vs = value_start (t, r->len, strncmp (t + i, "--auth", 6) == 0 ? i + 6 : i + 2, FALSE)) == 0)
    return i;
  if (bearer_before (t, i))
    {
      g_autofree char *value = NULL;

      for (ve = vs; ve < r->len && ve - vs < WORD_MAX && plain_byte (t[ve]); ve++)
        ;
      if (ve == vs || !word_ends_at (t, r->len, ve, depth) || vs < r->copied)
        return i;
      value = g_strndup (t + vs, ve - vs);
      if (!_pd_redact_value_is_secret (value, TRUE) || !_pd_redact_mask_span (r, vs, ve, FALSE))
        return i;
      return MAX (r->copied, ve);
    }
  return split_at (r, i, vs, depth, FALSE);
}

/* The option's name in quotes at @i: "-u", $'-u', -"u", '-u'bob:X, whose
 * word bash reads as curl's -u (--user, --proxy-user, -U). */
static gsize
quoted_user_option (Redactor *r,
                    gsize     i,
                    guint     depth)
{
  const char *t = r->text;
  char name[16];
  guint n = 0;
  gsize k = i, q, vs;
  char state = 0;
  gboolean quoted = FALSE;

  while (k < r->len && n < sizeof name - 1)
    {
      if (state == 0 && word_ends_at (t, r->len, k, depth))
        break;
      if (state == 0 && t[k] == '$' && k + 1 < r->len && t[k + 1] == '\'')
        {
          state = '\'';
          quoted = TRUE;
          k += 2;
        }
      else if (state != '\'' && (q = dquote_len (t, r->len, k, depth)) > 0)
        {
          state = state == '"' ? 0 : '"';
          quoted = TRUE;
          k += q;
        }
      else if (state != '"' && t[k] == '\'')
        {
          state = state == '\'' ? 0 : '\'';
          quoted = TRUE;
          k++;
        }
      else if (g_ascii_isalpha (t[k]) || t[k] == '-')
        name[n++] = t[k++];
      else
        break;
      name[n] = '\0';
      /* -u, -U: the value glued or the next word; --user, --proxy-user */
      if (state == 0 && quoted && n >= 2 && name[0] == '-'
          && (((name[1] == 'u' || name[1] == 'U') && n == 2)
              || (n > 2 && (strcmp (name, "--user") == 0 || strcmp (name, "--proxy-user") == 0))))
        {
          if (!word_ends_at (t, r->len, k, depth) && t[k] != '=' && n > 2)
            continue;
          if ((vs = value_start (t, r->len, k, n == 2)) == 0)
            return i;
          if ((_pd_redact_password_options_at (&r->line, r->text, i) & PW_GLUED_U) == 0)
            return i;
          return split_at (r, i, vs, depth, TRUE);
        }
    }
  return i;
}

gsize
_pd_redact_quoted_user_option_at (Redactor *r,
                                  gsize     i)
{
  guint depth = _pd_redact_depth_at (r->depths, i);
  gsize n;

  if (depth > 1)
    return i;
  /* (a text whose first quote closes a string reads as a JSON string's) */
  if ((n = quoted_user_option (r, i, depth)) == i && depth == 1)
    n = quoted_user_option (r, i, 0);
  return n;
}
