/* pd-redact-words.c: shell words as the redactor reads them.
 *
 * The shell joins a word of parts, quoted or not: -p"a"b is the password
 * ab, PGPASSWORD=a"b c"d the value ab cd, '''x''' the value x, and
 * "mysql" or m'ysql' the command mysql.  A value's parts are taken whole
 * (pd-redact.h), the way the patterns of pd-redact.c take a single quoted
 * value: a quoted part of at most 256 bytes to its closing quote, never
 * over a line break; an escape (\x) always with what it escapes, so a JSON
 * string is never cut inside one.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-redact.h"
#include "pd-redact-private.h"

#define PART_MAX_BYTES 256

/* What an unquoted value may hold (VALUE_CHARS of pd-redact.c). */
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

gsize
_pd_redact_escape_len (const char *t,
                       gsize       len,
                       gsize       p)
{
  char c;

  if (p + 1 >= len || t[p] != '\\')
    return 0;
  c = t[p + 1];
  if (c == '\\')
    {
      /* \\\\ of a JSON string, the shell's \\, whole; \\ only before a
       * value's character or a line continuation (not before a JSON
       * string's \", \n or \\ that it escapes). */
      if (p + 3 < len && t[p + 2] == '\\' && t[p + 3] == '\\')
        return 4;
      if (_pd_redact_continuation_len (t, len, p + 2) == 2 || _pd_redact_continuation_len (t, len, p + 2) == 3)
        return 2;  /* before the shell's own \<newline> */
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
                         gsize       p)
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
      else if ((n = _pd_redact_escape_len (t, len, q)) > 0)
        q += n;  /* of a character of UTF-8 escaped, its other bytes follow as a value's */
      else
        break;
    }
  return q;
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
          gsize       p)
{
  gsize open = 0, q;
  char close = 0;
  gboolean escapes = FALSE, json = FALSE;

  /* A quote after a backslash opens nothing: \' in the shell, \\' in a
   * JSON string, is the sign itself (PGPASSWORD=\'abc rm victim \' runs
   * rm; the mask hid it, tried as an attacker would). */
  if ((t[p] == '\'' || t[p] == '"') && p > 0 && t[p - 1] == '\\')
    return p;
  if (t[p] == '\'')
    open = 1, close = '\'';
  else if (t[p] == '$' && p + 1 < len && t[p + 1] == '\'')
    open = 2, close = '\'', escapes = TRUE;
  else if (t[p] == '"' || (t[p] == '$' && p + 1 < len && t[p + 1] == '"'))
    open = t[p] == '$' ? 2 : 1, close = '"', escapes = TRUE;
  else if (t[p] == '\\' && p + 1 < len && (t[p + 1] == '"' || t[p + 1] == '\''))
    open = 2, close = t[p + 1], json = TRUE;

  if (open == 0)
    return _pd_redact_unquoted_end (t, len, p);

  q = p + open;
  if (q < len && !(json ? t[q] == '\\' && q + 1 < len && t[q + 1] == close : t[q] == close)
      && !is_part_first (t[q]) && !is_mask (t + q, len - q))
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
          if (q + 1 >= len || t[q + 1] == '\n' || t[q + 1] == '\r')
            return p;
          q += 2;
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
                        gsize      *end)
{
  guint parts = 0;
  gsize p = pos;

  while (p < len)
    {
      gsize next = part_end (text, len, p);

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
  if (strstr (value, "$(") != NULL || strchr (value, '`') != NULL)
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
