/* pd-redact-words.c: shell words as the redactor reads them.
 *
 * The shell joins a word of parts, quoted or not: -p"a"b is the password
 * ab, PGPASSWORD=a"b c"d the value ab cd, '''x''' the value x, and
 * "mysql" or m'ysql' the command mysql.  A value's parts are taken whole
 * (pd-redact.h), the way the patterns of pd-redact-patterns.c take a single quoted
 * value: a quoted part of at most 256 bytes to its closing quote, never
 * over a line break; an escape (\x) always with what it escapes, so a JSON
 * string is never cut inside one.  What a backslash escapes depends on
 * whether the word is in a JSON string (\n is its line break there, n to
 * the shell outside one): _pd_redact_json_depths() says.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-redact.h"
#include "pd-redact-private.h"

#define PART_MAX_BYTES 256

/* What an unquoted value may hold (VALUE_CHARS of pd-redact-patterns.c). */
static inline gboolean
is_value_char (char c)
{
  return c != '\0' && !g_ascii_isspace (c) && strchr ("\"'`\\[]{}()<>,;&|", c) == NULL;
}

/* Whether the mask an earlier redaction left is at @p: it stands for a
 * value's characters, so a word is read the same when the text is
 * redacted again. */
static inline gboolean
is_mask (const char *p,
         gsize       avail)
{
  return avail >= strlen (PD_REDACTED) && strncmp (p, PD_REDACTED, strlen (PD_REDACTED)) == 0;
}

/* The first byte of a quoted part that is not empty.  Not a space or a
 * separator: the quote after a value that closes a command quoted for
 * another shell (ssh h "mysql -pX" && ssh h "ls") or a JSON string
 * ("…-pX", "b") opens no part. */
static inline gboolean
is_part_first (char c)
{
  return is_value_char (c) && c != ':';
}

/* The length of the shell's backslash at @p of @t as the JSON strings it
 * is in write it (@depth: 1, 2, 4 bytes…), or 0. */
static gsize
shell_backslash_len (const char *t,
                     gsize       len,
                     gsize       p,
                     guint       depth)
{
  gsize width = (gsize) 1 << MIN (depth, JSON_DEPTH);

  for (gsize k = 0; k < width; k++)
    if (p + k >= len || t[p + k] != '\\')
      return 0;
  return width;
}

gsize
_pd_redact_escape_len (const char *t,
                       gsize       len,
                       gsize       p,
                       guint       depth)
{
  char c;

  if (p + 1 >= len || t[p] != '\\')
    return 0;
  c = t[p + 1];
  if (depth == 0)
    {
      /* The shell's: \n is n, \\ a backslash (PGPASSWORD=Q\w\e\rty was
       * masked up to the \r; tried as an attacker would). */
      if (c == '"' || c == '\0' || c == '\n' || c == '\r' || c == '\t'
          || _pd_redact_unicode_space_len (t + p + 1, len - p - 1) > 0)
        return 0;
      return 2;
    }
  if (depth >= 2)
    {
      /* Four backslashes are the shell's one two deep, eight three deep
       * (BARE_ESCAPE_NESTED). */
      gsize w = shell_backslash_len (t, len, p, depth);

      if (w == 0)
        return 0;
      if (shell_backslash_len (t, len, p + w, depth) == w)
        return 2 * w;
      return p + w < len && is_value_char (t[p + w]) ? w : 0;
    }
  if (c == '\\')
    {
      /* \\\\ of a JSON string, the shell's \\, whole; \\ only before a
       * value's character or a line continuation (not before a JSON
       * string's \", \n or \\ that it escapes). */
      if (p + 3 < len && t[p + 2] == '\\' && t[p + 3] == '\\')
        return 4;
      if (_pd_redact_continuation_len (t, len, p + 2) == 2 || _pd_redact_continuation_len (t, len, p + 2) == 3)
        return 2;  /* before the shell's own \<newline> */
      if (p + 2 < len && t[p + 2] != '\0' && strchr (";&|<>()[]{},`", t[p + 2]) != NULL)
        return 3;  /* the shell's escaped sign, \; (-p'a'\\;reboot is one word) */
      return p + 2 < len && is_value_char (t[p + 2]) && _pd_redact_unicode_space_len (t + p + 2, len - p - 2) == 0 ? 2 : 0;
    }
  if (c == '"')
    return 0;  /* a JSON string's quote, or the shell's: no value's */
  if (g_ascii_isalnum (c))
    return strchr ("nrtbfuU", c) == NULL ? 2 : 0;
  if (c == '\0' || c == '\n' || c == '\r' || c == '\t' || _pd_redact_unicode_space_len (t + p + 1, len - p - 1) > 0)
    return 0;
  return 2;  /* a space or a sign (of a character of UTF-8, its first byte) */
}

gsize
_pd_redact_unquoted_end (const char *t,
                         gsize       len,
                         gsize       p,
                         guint       depth)
{
  gsize q = p, n;

  while (q < len)
    {
      if (_pd_redact_unicode_space_len (t + q, len - q) > 0)
        break;  /* a no-break space or another of Unicode's: a blank */
      if (is_value_char (t[q]))
        q++;
      else if (is_mask (t + q, len - q))
        q += strlen (PD_REDACTED);  /* an earlier mask: a value's characters */
      else if ((n = _pd_redact_escape_len (t, len, q, depth)) > 0)
        q += n;  /* of a character of UTF-8 escaped, its other bytes follow as a value's */
      else
        break;
    }
  return q;
}

static inline gboolean
opens_json_string_after (char before)
{
  return before != 0 && strchr ("{[,:", before) != NULL;
}

/* The last byte before @k that is no blank, back to @floor (@at_floor
 * there): outside a string. */
static char
byte_before (const char *t,
             gsize       floor,
             char        at_floor,
             gsize       k)
{
  while (k > floor && g_ascii_isspace (t[k - 1]))
    k--;
  return k > floor ? t[k - 1] : at_floor;
}

/* The same inside a string from @floor: its blanks are raw or escaped
 * (\n \t \r of JSON text held in it, pretty-printed). */
static char
char_before (const char *t,
             gsize       floor,
             gsize       k)
{
  while (k > floor && (t[k - 1] == ' ' || t[k - 1] == '\t'
                       || (k - 1 > floor && t[k - 2] == '\\' && strchr ("ntr", t[k - 1]) != NULL)))
    k -= t[k - 1] == ' ' || t[k - 1] == '\t' ? 1 : 2;
  return k > floor ? t[k - 1] : 0;
}

/* One pass of _pd_redact_json_depths() from depth @depth at the start:
 * FALSE when the text's first quote closes a string (then it starts in
 * one, and is read again so).  It jumps: to the next quote outside a
 * string, to the next quote, backslash or line break inside one, and
 * looks back for the byte before a quote only when one is met (each byte
 * so looked at once: the blanks before it). */
static gboolean
read_json_depths (const char *t,
                  gsize       len,
                  guint8     *d,
                  guint       depth)
{
  static const guint8 stops[256] = { ['"'] = 1, ['\\'] = 1, ['\n'] = 1, ['\r'] = 1 };
  gsize k = 0, floor = 0, inside = 0;  /* outside strings from floor, in the string from inside */
  char at_floor = 0;
  gboolean quote_seen = FALSE;

  while (k < len)
    {
      gsize e, run;
      guint mark, level;

      if (depth == 0)
        {
          const char *q = memchr (t + k, '"', len - k);

          if (q == NULL)
            break;
          k = (gsize) (q - t);
          if (k > 0 && t[k - 1] == '\\')
            {
              k++;  /* the shell's escaped quote */
              continue;
            }
          if (opens_json_string_after (byte_before (t, floor, at_floor, k)))
            {
              d[k] = JSON_OPENS;
              depth = 1;
              inside = ++k;
              quote_seen = TRUE;
              continue;
            }
          /* The first quote of a piece cut from a JSON string ("x", "b"). */
          if (!quote_seen && memchr (t, '\n', k) == NULL)
            {
              for (e = k + 1; e < len && (t[e] == ' ' || t[e] == '\t'); e++)
                ;
              if (e < len && strchr (",:}]", t[e]) != NULL)
                return FALSE;
            }
          quote_seen = TRUE;
          k++;
          continue;
        }

      /* In a string: its bytes up to one that matters. */
      for (e = k; e < len && !stops[(guchar) t[e]]; e++)
        ;
      memset (d + k, (int) depth, e - k);
      k = e;
      if (k >= len)
        break;
      if (t[k] != '\\')
        {
          /* Its mate (a quote of a string held in it holds a backslash),
           * or a raw line break, which no JSON string holds. */
          at_floor = t[k] == '"' ? '"' : 0;
          depth = 0;
          floor = ++k;
          continue;
        }
      for (e = k; e < len && t[e] == '\\'; e++)
        ;
      run = e - k;
      if (e >= len || t[e] != '"')
        {
          /* Escapes, the last with its character (\n, \u…); not a raw
           * line break, which ends the string. */
          if (run % 2 == 1 && e < len && t[e] != '\n' && t[e] != '\r')
            e++;
          memset (d + k, (int) depth, e - k);
          k = e;
          continue;
        }
      /* A quote after backslashes: each string it is in, from the
       * outermost, halves them.  An even number left at a string's level
       * makes the quote that string's mate (\" of a string held in one,
       * \\\" of one held three deep); an odd one to the innermost is
       * a quote of its text, which opens a string held in it after
       * { [ , or : (PGPASSWORD held in a string in a string in a string
       * was read two deep, tried as an attacker would). */
      mark = depth;
      for (level = 0; level < depth && run % 2 == 1; level++)
        run = (run - 1) / 2;
      if (level < depth)
        {
          depth = level;  /* the mate of the string of level + 1 */
          mark = depth;
          inside = e + 1;
          if (depth == 0)
            at_floor = '"', floor = e + 1;
        }
      else if (run == 0 && depth < JSON_DEPTH && opens_json_string_after (char_before (t, inside, k)))
        {
          d[k] = JSON_OPENS;
          depth++;
          inside = e + 1;
        }
      for (; k <= e; k++)
        d[k] |= (guint8) mark;
    }
  return TRUE;
}

guint8 *
_pd_redact_json_depths (const char *t,
                        gsize       len)
{
  guint8 *d;

  if (memchr (t, '"', len) == NULL)
    return NULL;
  d = g_malloc0 (len + 1);
  if (!read_json_depths (t, len, d, 0))
    {
      memset (d, 0, len + 1);
      read_json_depths (t, len, d, 1);
    }
  return d;
}

/* Whether the quote before @vs closes an empty pair ('', "", $'', \"\" in a
 * JSON string, each quote after as many backslashes): bash joins the word
 * and the value after it is unquoted (Bearer\ ''TOKEN;cmd was taken for a
 * quoted value that stops short of its closing quote, and stored as
 * written; tried as an attacker would).  A value the patterns find holds no
 * shell syntax, so reading a '' of 'a''TOKEN so masks nothing the shell
 * runs. */
gboolean
_pd_redact_after_empty_quotes (const char *t,
                               gsize       vs)
{
  gsize q, bs = 0, o, k = 0;

  if (vs < 2 || (t[vs - 1] != '"' && t[vs - 1] != '\''))
    return FALSE;
  q = vs - 1;
  while (bs < q && bs < 256 && t[q - 1 - bs] == '\\')
    bs++;
  if (q <= bs || t[q - bs - 1] != t[q])
    return FALSE;
  o = q - bs - 1;
  while (k < o && k <= bs && t[o - 1 - k] == '\\')
    k++;
  return k == bs;
}

PdRedactQuoting
_pd_redact_value_quoting (const char   *t,
                          const guint8 *depths,
                          gsize         vs,
                          guint        *depth)
{
  gsize q, n = 0, bs;

  *depth = _pd_redact_depth_at (depths, vs);
  if (vs == 0 || (t[vs - 1] != '"' && t[vs - 1] != '\''))
    return QUOTING_NONE;
  q = vs - 1;
  while (n < q && n < 256 && t[q - 1 - n] == '\\')
    n++;
  bs = n;
  /* Each JSON string halves the backslashes; an odd one left escapes the
   * quote.  A " with none is the string's own. */
  for (guint level = 0; level < *depth; level++)
    {
      if (t[q] == '"' && n % 2 == 0)
        return QUOTING_NONE;
      if (t[q] == '\'' && n % 2 == 1)
        return QUOTING_NONE;  /* \' is no JSON escape: the sign itself */
      n /= 2;
    }
  if (n % 2 == 1)
    return QUOTING_NONE;  /* the shell's escaped quote opens nothing */
  /* The second quote of an empty pair closes it: the value after it is
   * unquoted (_pd_redact_after_empty_quotes()). */
  if (_pd_redact_after_empty_quotes (t, vs))
    return QUOTING_NONE;
  if (t[q] == '"')
    return QUOTING_DOUBLE;
  return q > bs && t[q - bs - 1] == '$' ? QUOTING_ANSI : QUOTING_SINGLE;
}

/* The length of one character of the shell's text at @p of @t as the JSON
 * strings it is in write it (@depth): its backslash and its " are escaped
 * for each of them (\\ and \" in one), an escape of theirs (\n, \u0041)
 * is a character of its own.  At least 1. */
static gsize
shell_char_len (const char *t,
                gsize       len,
                gsize       p,
                guint       depth)
{
  gsize width = (gsize) 1 << MIN (depth, JSON_DEPTH), k = 0;

  if (depth == 0 || p >= len || t[p] != '\\')
    return 1;
  while (p + k < len && k < width && t[p + k] == '\\')
    k++;
  if (k == width)
    return width;  /* a backslash */
  if (p + k >= len)
    return k;
  if (t[p + k] == 'u')
    return MIN (k + 5, len - p);  /* \uXXXX, read by one of the strings */
  return k + 1;  /* the shell's ", or an escape of a string it is in */
}

/* Whether the quote at @p of @t, after a backslash, is escaped for the
 * shell: the backslashes before it, read through the JSON strings it is
 * in (@depth; each halves them, and a " escaped for none of them is a
 * string's own), leave an odd one.  Only outside a JSON string and for a
 * single quote, which JSON does not escape: the shell's " in one is
 * read from its backslash (part_end()). */
static gboolean
quote_is_escaped (const char *t,
                  gsize       p,
                  guint       depth)
{
  guint n = 0;

  if (depth > 0 && t[p] == '"')
    return TRUE;
  while (n < p && n < 64 && t[p - 1 - n] == '\\')
    n++;
  for (guint level = 0; level < depth; level++)
    {
      if (n % 2 == 1)
        return TRUE;  /* \' is no JSON escape: the sign itself */
      n /= 2;
    }
  return n % 2 == 1;
}

/* The end of the part of a word at @p, or @p when none starts there.
 * Quoted: '…' (everything literal), $'…' and "…" (escapes taken whole),
 * \"…\" and \'…\' (quotes escaped inside a JSON string: no quote,
 * backslash or bracket inside).  Unquoted: value bytes and escapes
 * (_pd_redact_escape_len(): not \n, \t, \u, a continuation or \":
 * a JSON string's). */
static gsize
part_end (const char *t,
          gsize       len,
          gsize       p,
          guint       depth)
{
  gsize open = 0, q;
  char close = 0;
  gboolean escapes = FALSE, json = FALSE;

  /* A quote after a backslash opens nothing: \' in the shell, \\' in a
   * JSON string, is the sign itself (PGPASSWORD=\'abc rm victim \' runs
   * rm; the mask hid it, tried as an attacker would).  Unless that
   * backslash is escaped itself: Ab\\"efZq9A" is Ab\efZq9A, one word. */
  if ((t[p] == '\'' || t[p] == '"') && p > 0 && t[p - 1] == '\\' && quote_is_escaped (t, p, depth))
    return p;
  if (t[p] == '\'')
    open = 1, close = '\'', escapes = p > 0 && t[p - 1] == '$';  /* Secr$'\''etZ: the $ ended the part before */
  else if (t[p] == '$' && p + 1 < len && t[p + 1] == '\'')
    open = 2, close = '\'', escapes = TRUE;
  else if (t[p] == '"' || (t[p] == '$' && p + 1 < len && t[p + 1] == '"'))
    open = t[p] == '$' ? 2 : 1, close = '"', escapes = TRUE;
  else if (t[p] == '\\' && p + 1 < len && (t[p + 1] == '"' || t[p + 1] == '\''))
    open = 2, close = t[p + 1], json = TRUE;

  if (open == 0)
    return _pd_redact_unquoted_end (t, len, p, depth);

  q = p + open;
  /* In $'…' a backslash starts an escape of the value (Secr$'\t'etZq9B),
   * also when the $ ended the part before. */
  if (q < len && !(json ? t[q] == '\\' && q + 1 < len && t[q + 1] == close : t[q] == close)
      && !is_part_first (t[q]) && !is_mask (t + q, len - q)
      && !(t[q] == '\\' && close == '\'' && escapes))
    return p;
  while (q < len && q - (p + open) <= PART_MAX_BYTES)
    {
      char c = t[q];

      if (json && c == '\\' && q + 1 < len && t[q + 1] == close)
        return q + 2;
      if (!json && c == close)
        return q + 1;
      if (c == '\n' || c == '\r')
        return p;
      if (json && is_mask (t + q, len - q))
        {
          q += strlen (PD_REDACTED);
          continue;
        }
      /* An escaped quote with a blank before its mate: no value.  The
       * shell reads \' and \" outside quotes as the sign itself and splits
       * the words at the blank: PGPASSWORD=\'abc rm victim \' runs rm, and
       * the mask hid it (tried as an attacker would).  JSON's own \"…\"
       * may hold one; it is shown, not masked. */
      if (json && (strchr ("\"'`\\[]", c) != NULL || c == ' ' || c == '\t'
                   || _pd_redact_unicode_space_len (t + q, len - q) > 0))
        return p;
      if (escapes && c == '\\')
        {
          gsize bs = shell_backslash_len (t, len, q, depth);

          if (q + 1 >= len || t[q + 1] == '\n' || t[q + 1] == '\r')
            return p;
          /* The shell's backslash and the character it escapes, both as
           * the JSON strings the part is in write them ($'\\'' in one
           * is $'\'': the quote is escaped, not closing). */
          q += bs > 0 ? bs + shell_char_len (t, len, q + bs, depth) : shell_char_len (t, len, q, depth);
        }
      else
        q++;
    }
  return p;
}

guint
_pd_redact_joined_word (const char *text,
                        gsize       len,
                        gsize       pos,
                        guint       depth,
                        gsize      *end)
{
  guint parts = 0;
  gsize p = pos;

  while (p < len)
    {
      gsize next = part_end (text, len, p, depth);

      if (next == p)
        break;
      p = next;
      parts++;
    }
  *end = p;
  return parts;
}

gboolean
_pd_redact_joined_holds_no_secret (const char *value)
{
  /* The quote the scan is in: 0, ' , A ($'…), " or J (\"…\" in JSON). */
  char quote = 0;
  gboolean first = TRUE;

  /* What the shell runs, in any part, quoted or escaped: single quotes
   * inside a command quoted for another shell (ssh h "PGPASSWORD='$(…)'x"),
   * or \` and \$( there (bash -c "…'x'\`id\`"), are run by one of the two
   * shells, which the text alone does not show (tried as an attacker
   * would: the word was masked whole, the command with it). */
  if (_pd_redact_value_runs_command (value))
    return TRUE;
  for (const char *p = value; *p != '\0'; p++)
    {
      gboolean runs = quote == 0 || quote == '"' || quote == 'J';

      if (quote == 0 && (*p == '\'' || *p == '"'))
        quote = *p;
      else if (quote == 0 && *p == '$' && (p[1] == '\'' || p[1] == '"'))
        quote = *++p == '\'' ? 'A' : '"';
      else if ((quote == 0 || quote == 'J') && *p == '\\' && p[1] == '"')
        quote = quote == 0 ? 'J' : 0, p++;
      else if ((quote == '\'' && *p == '\'') || (quote == 'A' && *p == '\'') || (quote == '"' && *p == '"'))
        quote = 0;
      else if (quote != '\'' && *p == '\\' && p[1] != '\0')
        p++, first = FALSE;
      else
        {
          /* A reference ($TOKEN"x"), as the first thing in the word. */
          if (first && runs && (*p == '$' || *p == '%'))
            return TRUE;
          first = FALSE;
        }
    }
  return FALSE;
}

void
_pd_redact_unquote_word (char *word)
{
  char *out = word;

  for (const char *p = word; *p != '\0'; p++)
    if (!(*p == '"' || *p == '\'' || *p == '\\' || (*p == '$' && (p[1] == '"' || p[1] == '\''))))
      *out++ = *p;
  *out = '\0';
}

gsize
_pd_redact_escaped_quote_len (const char *t,
                              gsize       len,
                              gsize       p,
                              guint       depth)
{
  /* Deepest first: the shell's \" is 8 bytes in a JSON string held in
   * one, \' 5, 16 and 9 three deep (their backslash escaped for each
   * string). */
  if (depth >= 2)
    {
      gsize w = shell_backslash_len (t, len, p, depth);

      if (w > 0 && shell_backslash_len (t, len, p + w, depth) == 0)
        {
          gsize k = 0;

          while (p + w + k < len && t[p + w + k] == '\\')
            k++;
          if (k == w - 1 && p + w + k < len && t[p + w + k] == '"')
            return 2 * w;
          if (k == 0 && p + w < len && t[p + w] == '\'')
            return w + 1;
        }
    }
  if (p + 1 < len && t[p] == '\\' && (t[p + 1] == '"' || t[p + 1] == '\''))
    return 2;
  if (p + 3 < len && strncmp (t + p, "\\\\\\\"", 4) == 0)
    return 4;
  if (p + 2 < len && strncmp (t + p, "\\\\'", 3) == 0)
    return 3;
  return 0;
}
