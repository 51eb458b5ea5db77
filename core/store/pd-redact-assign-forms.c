/* pd-redact-assign-forms.c: NAME=value spellings of bash's the patterns
 * do not read: an array, NAME=(SECRET) and NAME+=(SECRET), and a bare
 * value with escapes of the shell's signs, NAME=SECRET\;TAIL.
 *
 * API_KEY=(X) was stored in clear, and API_KEY=X\;Y kept whole as text
 * but masked up to the escape in a tool call's JSON text ([REDACTED]\;Y:
 * counted as masked, the tail in clear; tried as an attacker would).  To
 * bash the escaped sign is a byte of the value: the word runs on to its
 * blank, so the value is masked whole, to the word's end, or not at all
 * (when its text reads as words of a command: a blank before an option,
 * more than 4 words; NAME=abc\;rm\ -rf\ ~ stays in sight).
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

/* A byte of a plain value: none the shell reads otherwise. */
static gboolean
plain (char c)
{
  return (guchar) c > ' ' && c != 0x7f && strchr ("'\"\\$`;&|<>(){}[]*?#!~", c) == NULL;
}

/* Whether the shell's blank, a sign or the end is at @k: the word ends. */
static gboolean
word_end (const char *t,
          gsize       len,
          gsize       k,
          guint       depth)
{
  if (k >= len || strchr (" \t\n\r;&|<>()", t[k]) != NULL)
    return TRUE;
  return depth == 1 && (t[k] == '"' || (t[k] == '\\' && k + 1 < len && strchr ("nrt\"", t[k + 1]) != NULL));
}

/* Whether the dequoted value reads as words of a command (as
 * pd-redact-user-word.c's reads_as_words()). */
static gboolean
reads_as_words (const GString *v)
{
  guint words = 0;

  if (v->len == 0 || g_ascii_isspace (v->str[0]) || g_ascii_isspace (v->str[v->len - 1]))
    return TRUE;
  for (gsize k = 0; k < v->len; k++)
    if (k == 0 || (g_ascii_isspace (v->str[k - 1]) && !g_ascii_isspace (v->str[k])))
      if (++words > 4 || (k > 0 && v->str[k] == '-'))
        return TRUE;
  return FALSE;
}

gsize
_pd_redact_escaped_value_at (Redactor *r,
                             gsize     start,
                             gsize     name_end)
{
  const char *t = r->text;
  guint depth = _pd_redact_depth_at (r->depths, start);
  gsize vs = name_end + 1, k, bs = depth == 1 ? 2 : 1;
  gboolean sign = FALSE;
  g_autoptr(GString) v = NULL;

  if (depth > 1 || name_end >= r->len || t[name_end] != '=' || vs >= r->len)
    return start;
  v = g_string_new (NULL);
  for (k = vs; k - vs < VALUE_MAX && !word_end (t, r->len, k, depth); )
    {
      /* the shell's backslash (\\ in a JSON string) and what it escapes */
      if (t[k] == '\\' && (depth == 0 || (k + 1 < r->len && t[k + 1] == '\\')))
        {
          char c = k + bs < r->len ? t[k + bs] : '\0';

          if (!(plain (c) || strchr (";&|<> ", c) != NULL) || c == '\0')
            return start;
          sign |= strchr (";&|<>", c) != NULL;
          g_string_append_c (v, c);
          k += bs + 1;
        }
      else if (plain (t[k]) || (t[k] == '~' && k > vs))
        g_string_append_c (v, t[k++]);
      else
        return start;
    }
  /* only a value with an escaped sign: the others are the patterns' */
  if (!sign || k - vs >= VALUE_MAX || vs < r->copied)
    return start;
  if (reads_as_words (v) || !_pd_redact_value_is_secret (v->str, TRUE))
    return k;  /* kept whole, never in part */
  _pd_redact_mask_span (r, vs, k, FALSE);
  return MAX (r->copied, k);
}

gsize
_pd_redact_array_value_at (Redactor *r,
                           gsize     start,
                           gsize     name_end)
{
  const char *t = r->text;
  guint depth = _pd_redact_depth_at (r->depths, start);
  gsize k = name_end, end;
  GArray *spans;

  if (depth > 1)
    return start;
  if (k < r->len && t[k] == '+')
    k++;
  if (k + 1 >= r->len || t[k] != '=' || t[k + 1] != '(')
    return start;
  /* the elements, plain or in one pair of quotes, up to the ')' */
  spans = g_array_new (FALSE, FALSE, sizeof (gsize));
  for (k += 2; k < r->len && k - name_end < 1024; )
    {
      gsize es, ee, ql = 0;

      while (k < r->len && (t[k] == ' ' || t[k] == '\t'))
        k++;
      if (k < r->len && t[k] == ')')
        break;
      if (k < r->len && t[k] == '\'')
        ql = 1;
      else if (depth == 0 && k < r->len && t[k] == '"')
        ql = 1;
      else if (depth == 1 && k + 1 < r->len && t[k] == '\\' && t[k + 1] == '"')
        ql = 2;
      es = k + ql;
      /* (no comma: auth=(user, pw) is Python's tuple, no array) */
      for (ee = es; ee < r->len && ee - es < VALUE_MAX && plain (t[ee]) && t[ee] != ','; ee++)
        ;
      if (ee == es || ee >= r->len || strncmp (t + ee, t + k, ql) != 0)
        break;
      g_array_append_val (spans, es);
      g_array_append_val (spans, ee);
      k = ee + ql;
      if (k < r->len && t[k] != ' ' && t[k] != '\t' && t[k] != ')')
        break;
    }
  if (k >= r->len || t[k] != ')' || spans->len == 0 || g_array_index (spans, gsize, 0) < r->copied)
    {
      g_array_unref (spans);
      return start;
    }
  end = k + 1;
  for (guint j = 0; j < spans->len; j += 2)
    {
      gsize es = g_array_index (spans, gsize, j), ee = g_array_index (spans, gsize, j + 1);
      g_autofree char *value = g_strndup (t + es, ee - es);

      if (_pd_redact_value_is_secret (value, TRUE))
        _pd_redact_mask_span (r, es, ee, FALSE);
    }
  g_array_unref (spans);
  return MAX (r->copied, end);
}
