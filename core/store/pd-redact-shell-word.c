/* pd-redact-shell-word.c: one shell word read as bash reads it
 * (pd-redact-shell-word-private.h says why), and its secret masked where
 * it is written.
 *
 * The reading: 'quoted', "quoted", $'ANSI-C' with its escapes (\x20,
 * \040, \u0020, \cX, \t, \e…), backslash-escaped bytes and line
 * continuations taken out, each dequoted byte with the span of the text
 * as written it comes from (a "view" of the word, as
 * pd-redact-continuation.c reads a command with its continuations taken
 * out).  A word in a JSON string (a tool call's arguments) is read
 * through the string's escapes.  The word ends where bash ends it (an
 * unquoted blank, ; & | ( ) < >); the reading stops at $NAME (what
 * follows is no literal) and at what runs ($(…), `…`, ${…}, $[…]), and
 * gives up on a quote left open or a word too long.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-redact.h"
#include "pd-redact-private.h"
#include "pd-redact-scan-private.h"
#include "pd-redact-shell-word-private.h"

/* The shell's text at the word, read through the escapes of the JSON
 * string it is in (@json): a character at a time, with its span. */
typedef struct
{
  const char *t;
  gsize       len;
  gsize       k;
  gboolean    json;
} Cursor;

static int
hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

static gboolean
is_unicode_space (gunichar cp)
{
  return cp == 0x85 || cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028
         || cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

/* The next character at the cursor, its span in [*s, *e); FALSE at the
 * text's end or its JSON string's.  A JSON string's \uXXXX beyond ASCII is
 * 0x80, one of Unicode's spaces 0x01 (a blank to the reading below, as
 * the patterns take them): the reading needs no more of it. */
static gboolean
cursor_get (Cursor *c,
            guint  *ch,
            gsize  *s,
            gsize  *e)
{
  const char *t = c->t;

  if (c->k >= c->len)
    return FALSE;
  *s = c->k;
  if (!c->json)
    {
      *ch = (guchar) t[c->k++];
      *e = c->k;
      return TRUE;
    }
  if (t[c->k] == '"' || t[c->k] == '\n' || t[c->k] == '\r')
    return FALSE;  /* the JSON string's end */
  if (t[c->k] != '\\')
    {
      *ch = (guchar) t[c->k++];
      *e = c->k;
      return TRUE;
    }
  if (c->k + 1 >= c->len)
    return FALSE;
  switch (t[c->k + 1])
    {
    case '"': *ch = '"'; break;
    case '\\': *ch = '\\'; break;
    case '/': *ch = '/'; break;
    case 'b': *ch = '\b'; break;
    case 'f': *ch = '\f'; break;
    case 'n': *ch = '\n'; break;
    case 'r': *ch = '\r'; break;
    case 't': *ch = '\t'; break;
    case 'u':
      {
        gunichar cp = 0;

        if (c->k + 6 > c->len)
          return FALSE;
        for (guint j = 2; j < 6; j++)
          {
            int h = hex_value (t[c->k + j]);

            if (h < 0)
              return FALSE;
            cp = cp * 16 + (gunichar) h;
          }
        c->k += 6;
        *e = c->k;
        *ch = cp < 0x80 ? cp : is_unicode_space (cp) ? 0x01 : 0x80;
        return TRUE;
      }
    default:
      return FALSE;
    }
  c->k += 2;
  *e = c->k;
  return TRUE;
}

static gboolean
cursor_peek (Cursor *c,
             guint  *ch)
{
  gsize k = c->k, s, e;
  gboolean got = cursor_get (c, ch, &s, &e);

  c->k = k;
  return got;
}

static void
emit (PdShellWord  *w,
      guint  ch,
      gsize  s,
      gsize  e)
{
  if (w->d->len >= w->cap)
    {
      gsize cap = w->cap * 2;

      if (w->heap)
        {
          w->from = g_renew (gsize, w->from, cap);
          w->to = g_renew (gsize, w->to, cap);
        }
      else
        {
          w->from = g_memdup2 (w->from, w->cap * sizeof (gsize));
          w->to = g_memdup2 (w->to, w->cap * sizeof (gsize));
          w->from = g_renew (gsize, w->from, cap);
          w->to = g_renew (gsize, w->to, cap);
          w->heap = TRUE;
        }
      w->cap = cap;
    }
  w->from[w->d->len] = s;
  w->to[w->d->len] = e;
  g_string_append_c (w->d, (char) ch);
}

/* Emits the code point @cp of bash's \u or \U, as UTF-8, from [s, e). */
static void
emit_code_point (PdShellWord     *w,
                 gunichar  cp,
                 gsize     s,
                 gsize     e)
{
  char utf8[6];
  int n;

  if (cp > 0x10ffff)
    cp = 0xfffd;
  if (is_unicode_space (cp))
    {
      emit (w, 0x01, s, e);
      return;
    }
  n = g_unichar_to_utf8 (cp, utf8);
  for (int j = 0; j < n; j++)
    emit (w, (guchar) utf8[j], s, e);
}

/* One escape of bash's $'…' after its backslash (at [@s, @bs_end): two
 * bytes in a JSON string): what it stands for emitted, the cursor after
 * it.  An escape bash keeps as written keeps each byte's own span, so no
 * mask starts inside a JSON string's \\. */
static void
ansi_escape (Cursor *c,
             PdShellWord   *w,
             gsize   s,
             gsize   bs_end)
{
  static const char simple[] = "a\ab\be\033E\033f\fn\nr\rt\tv\v\\\\''\"\"??";
  guint ch, next;
  gsize cs, ce;

  if (!cursor_get (c, &ch, &cs, &ce))
    {
      emit (w, '\\', s, bs_end);
      return;
    }
  for (guint j = 0; simple[j] != '\0'; j += 2)
    if ((guint) (guchar) simple[j] == ch)
      {
        emit (w, (guchar) simple[j + 1], s, ce);
        return;
      }
  if (ch >= '0' && ch <= '7')
    {
      guint v = ch - '0';

      for (guint n = 1; n < 3 && cursor_peek (c, &next) && next >= '0' && next <= '7'; n++)
        {
          cursor_get (c, &next, &cs, &ce);
          v = v * 8 + (next - '0');
        }
      emit (w, v & 0xff, s, ce);
      return;
    }
  if (ch == 'x' || ch == 'u' || ch == 'U')
    {
      guint max = ch == 'x' ? 2 : ch == 'u' ? 4 : 8, n = 0;
      gunichar v = 0;

      for (; n < max && cursor_peek (c, &next) && next < 0x80 && hex_value ((char) next) >= 0; n++)
        {
          cursor_get (c, &next, &cs, &ce);
          v = v * 16 + (gunichar) hex_value ((char) next);
        }
      if (n == 0)
        {
          emit (w, '\\', s, bs_end);
          emit (w, ch, bs_end, ce);
        }
      else if (ch == 'x')
        emit (w, v & 0xff, s, ce);
      else
        emit_code_point (w, v, s, ce);
      return;
    }
  if (ch == 'c' && cursor_peek (c, &next) && next != '\'')
    {
      /* \cX: a control character (\c@ is NUL, which ends the string to
       * bash: read as a blank here, as the patterns took it).  As bash
       * 5.2 reads it (checked with bash itself): \c before the closing
       * quote is the text \c and the quote closes the string ($'\c'x'
       * is \c, then x and a quote of its own); \c\ is the control
       * character of \ and the backslash still escapes, to bash's
       * lexer, what follows it: \c\\ is one 0x1c, \c\' a 0x1c and a
       * quote that does not close. */
      cursor_get (c, &next, &cs, &ce);
      if (next == '\\')
        {
          guint after;
          gsize as, ae;

          if (!cursor_get (c, &after, &as, &ae))
            return;  /* the string left open: the reading gives up */
          emit (w, 0x1c, s, after == '\\' ? ae : ce);
          if (after != '\\')
            emit (w, after, as, ae);
          return;
        }
      emit (w, next == '?' ? 0x7f : next & 0x1f, s, ce);
      return;
    }
  emit (w, '\\', s, bs_end);
  emit (w, ch, cs, ce);
}

/* Whether a $ followed by @next expands a name ($NAME, $1, $@…). */
static gboolean
expands_name (guint next)
{
  return next < 0x80 && (g_ascii_isalnum ((char) next) || strchr ("_@*#?$!-", (int) next) != NULL);
}

/* With @w->variables: a plain $NAME or ${NAME} at the cursor (after its
 * $), read as one PD_SHELL_WORD_VARIABLE_BYTE spanning it as written from
 * @s.  FALSE, the cursor where it was, for anything else. */
static gboolean
read_variable (Cursor      *c,
               PdShellWord *w,
               gsize        s)
{
  Cursor at = *c;
  guint ch;
  gsize s2, e2, e = 0;
  gboolean braced = FALSE, any = FALSE;

  if (!w->variables)
    return FALSE;
  if (cursor_peek (c, &ch) && ch == '{')
    {
      cursor_get (c, &ch, &s2, &e2);
      braced = TRUE;
    }
  while (cursor_peek (c, &ch) && ch < 0x80 && (ch == '_' || (any ? g_ascii_isalnum ((char) ch) : g_ascii_isalpha ((char) ch))))
    {
      cursor_get (c, &ch, &s2, &e);
      any = TRUE;
    }
  if (any && braced)
    {
      if (cursor_get (c, &ch, &s2, &e2) && ch == '}')
        e = e2;
      else
        any = FALSE;
    }
  if (!any)
    {
      *c = at;
      return FALSE;
    }
  emit (w, PD_SHELL_WORD_VARIABLE_BYTE, s, e);
  return TRUE;
}

/* Reads the shell word at the cursor into @w, as bash joins its parts. */
static void
read_word (Cursor *c,
           PdShellWord   *w)
{
  enum { NONE, SINGLE, DOUBLE, ANSI } q = NONE;
  gsize start = c->k;

  w->stop = PD_SHELL_WORD_BROKEN;
  for (;;)
    {
      gsize before = c->k, s, e, s2, e2;
      guint ch, next;

      w->end = c->k;
      if (w->d->len + 8 >= PD_SHELL_WORD_MAX || c->k - start >= PD_SHELL_WORD_SOURCE_MAX)
        return;
      if (!cursor_get (c, &ch, &s, &e))
        {
          if (q == NONE)
            w->stop = PD_SHELL_WORD_END;
          return;
        }
      switch (q)
        {
        case NONE:
          if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || (ch < 0x80 && strchr (";&|()<>", (int) ch) != NULL))
            {
              c->k = before;
              w->end = before;
              w->stop = PD_SHELL_WORD_END;
              return;
            }
          if (ch == '\\' || ch == '\'' || ch == '"')
            w->quoted = TRUE;
          if (ch == '\\')
            {
              if (!cursor_get (c, &next, &s2, &e2))
                emit (w, '\\', s, e);
              else if (next != '\n')
                emit (w, next, s, e2);
              continue;  /* \ and a line break: taken out */
            }
          if (ch == '\'' || ch == '"')
            {
              q = ch == '\'' ? SINGLE : DOUBLE;
              continue;
            }
          if (ch == '$' && cursor_peek (c, &next))
            {
              if (next == '\'' || next == '"')
                {
                  w->quoted = TRUE;
                  cursor_get (c, &next, &s2, &e2);
                  q = next == '\'' ? ANSI : DOUBLE;
                  continue;
                }
              if (read_variable (c, w, s))
                continue;
              if (next == '(' || next == '{' || next == '[')
                {
                  w->stop = PD_SHELL_WORD_COMMAND;
                  return;
                }
              if (expands_name (next))
                {
                  w->stop = PD_SHELL_WORD_VARIABLE;
                  return;
                }
            }
          if (ch == '`')
            {
              w->stop = PD_SHELL_WORD_COMMAND;
              return;
            }
          emit (w, ch, s, e);
          break;

        case SINGLE:
          if (ch == '\'')
            q = NONE;
          else
            emit (w, ch, s, e);
          break;

        case DOUBLE:
          if (ch == '"')
            q = NONE;
          else if (ch == '\\' && cursor_peek (c, &next) && (next == '$' || next == '`' || next == '"' || next == '\\' || next == '\n'))
            {
              cursor_get (c, &next, &s2, &e2);
              if (next != '\n')
                emit (w, next, s, e2);
            }
          else if (ch == '$' && read_variable (c, w, s))
            ;
          else if (ch == '$' && cursor_peek (c, &next) && (next == '(' || next == '{' || next == '['))
            {
              w->stop = PD_SHELL_WORD_COMMAND;
              return;
            }
          else if (ch == '$' && cursor_peek (c, &next) && expands_name (next))
            {
              w->stop = PD_SHELL_WORD_VARIABLE;
              return;
            }
          else if (ch == '`')
            {
              w->stop = PD_SHELL_WORD_COMMAND;
              return;
            }
          else
            emit (w, ch, s, e);
          break;

        case ANSI:
          if (ch == '\'')
            q = NONE;
          else if (ch == '\\')
            ansi_escape (c, w, s, e);
          else
            emit (w, ch, s, e);
          break;
        }
    }
}

/* Both readers: @variables reads a plain `$NAME` or `${NAME}` as one
 * placeholder byte (the -u and httpie rules), else it stops the word. */
static void
read_from (PdShellWord *w,
           const char  *t,
           gsize        len,
           gsize        start,
           gboolean     json,
           gboolean     variables)
{
  Cursor c = { t, len, start, json };

  w->d = g_string_sized_new (128);
  w->from = w->from_buf;
  w->to = w->to_buf;
  w->cap = G_N_ELEMENTS (w->from_buf);
  w->heap = FALSE;
  w->stop = PD_SHELL_WORD_BROKEN;
  w->end = start;
  w->quoted = FALSE;
  w->variables = variables;
  read_word (&c, w);
}

void
_pd_shell_word_read (PdShellWord *w,
                     const char  *t,
                     gsize        len,
                     gsize        start,
                     gboolean     json)
{
  read_from (w, t, len, start, json, FALSE);
}

void
_pd_shell_word_read_variables (PdShellWord *w,
                               const char  *t,
                               gsize        len,
                               gsize        start,
                               gboolean     json)
{
  read_from (w, t, len, start, json, TRUE);
}

void
_pd_shell_word_clear (PdShellWord *w)
{
  if (w->heap)
    {
      g_free (w->from);
      g_free (w->to);
    }
  w->heap = FALSE;
  if (w->d != NULL)
    g_string_free (w->d, TRUE);
  w->d = NULL;
}

/* Whether the dequoted bytes [ds, de) of @w are written as they read,
 * each one byte of the text next to the one before. */
gboolean
_pd_shell_word_as_written (const PdShellWord *w,
                           gsize              ds,
                           gsize              de)
{
  for (gsize k = ds; k < de; k++)
    if (w->to[k] != w->from[k] + 1 || (k > ds && w->from[k] != w->to[k - 1]))
      return FALSE;
  return TRUE;
}

gboolean
_pd_shell_word_value_hides_nothing (const char *value,
                                    gsize       len)
{
  /* (and what bash expands in a word: brace lists and globs, {a,b} two
   * words) */
  for (gsize k = 0; k < len; k++)
    if (value[k] == '\0' || strchr (";&|<>`\n\r{}[]*?", value[k]) != NULL)
      return FALSE;
  return g_strstr_len (value, (gssize) len, PD_REDACTED) == NULL;
}

/* Masks the dequoted bytes [ds, de) of @w where they are written: a piece
 * for each run of bytes written next to each other, so that the quotes
 * bash takes out between them stay in sight.  One redaction counted.
 * Whether anything was masked. */
gboolean
_pd_redact_mask_dequoted (Redactor          *r,
                          const PdShellWord *w,
                          gsize              ds,
                          gsize              de)
{
  gboolean any = FALSE;

  for (gsize k = ds; k < de; )
    {
      gsize ps = w->from[k], pe = w->to[k], at;

      for (k++; k < de && (w->from[k] == pe || w->from[k] == ps); k++)
        pe = MAX (pe, w->to[k]);
      if (ps < r->copied)
        continue;
      /* a $ or ` bash reads from an escape (\$ out of quotes): the backslash
       * stays in sight, the mask takes what it escapes ('…S'\$(reboot)
       * was masked '[REDACTED]'[REDACTED](reboot); tried as an attacker
       * would).  In a JSON string the shell's backslash is \\. */
      if (_pd_redact_depth_at (r->depths, ps) == 0 && pe - ps > 1 && r->text[ps] == '\\'
          && (r->text[ps + 1] == '$' || r->text[ps + 1] == '`'))
        ps++;
      else if (_pd_redact_depth_at (r->depths, ps) == 1 && pe - ps > 2 && r->text[ps] == '\\' && r->text[ps + 1] == '\\'
               && (r->text[ps + 2] == '$' || r->text[ps + 2] == '`'))
        ps += 2;
      /* what the last guard cuts off is tried again after it: a quote or
       * a backslash inside the piece stays in sight, the rest goes */
      at = ps;
      for (guint n = 0; at < pe && n < 16; n++)
        {
          gsize before = r->copied;

          _pd_redact_mask_span (r, at, pe, any);
          if (r->copied == before || r->copied <= at)
            break;
          any = TRUE;
          at = r->copied;
        }
    }
  return any;
}

/* Whether bash ends a word right before @k of @t (at @depth in JSON
 * strings): a blank or a sign, the JSON string's opening quote or its
 * \n and \t. */
gboolean
_pd_shell_word_starts_at (Redactor *r,
                          gsize     k,
                          guint     depth)
{
  const char *t = r->text;

  if (k == 0)
    return TRUE;
  if (depth == 0)
    return strchr (" \t\n\r;&|()<>", t[k - 1]) != NULL;
  if (_pd_redact_depth_at (r->depths, k - 1) < depth || (r->depths[k - 1] & JSON_OPENS) != 0)
    return TRUE;
  if (strchr (" \t;&|()<>", t[k - 1]) != NULL)
    return TRUE;
  return k >= 2 && (t[k - 1] == 'n' || t[k - 1] == 't') && t[k - 2] == '\\' && !(k >= 3 && t[k - 3] == '\\');
}

/* Whether the word at @ws (at @depth in JSON strings) holds a quote, a
 * backslash or a $ before its first blank or sign, as written: a word
 * with none reads as it is written, the patterns' (most words: each is
 * looked at once, then read only when it has one). */
gboolean
_pd_shell_word_has_quotes (Redactor *r,
                           gsize     ws,
                           guint     depth,
                           gsize    *end)
{
  const char *t = r->text;
  gsize k;

  for (k = ws; k < r->len && k - ws < PD_SHELL_WORD_SOURCE_MAX; k++)
    {
      char c = t[k];

      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '&' || c == '|' || c == '<'
          || c == '>' || c == '(' || c == ')')
        break;
      if (c == '\'' || c == '$')
        return TRUE;
      if (depth == 0 && (c == '"' || c == '\\'))
        return TRUE;
      if (depth == 1 && c == '"')
        break;  /* the JSON string's end */
      if (depth == 1 && c == '\\' && k + 1 < r->len)
        {
          if (t[k + 1] == '"' || t[k + 1] == '\\' || t[k + 1] == 'u')
            return TRUE;
          if (t[k + 1] == 'n' || t[k + 1] == 't' || t[k + 1] == 'r')
            break;  /* a blank */
          k++;
        }
    }
  *end = k;
  return k - ws >= PD_SHELL_WORD_SOURCE_MAX;  /* unsure: read it */
}

