/* pd-redact-header.c: an HTTP header's word read as bash reads it.
 *
 * A header given to curl, wget, httpie or git (-H 'Name: value',
 * --header=…, http.extraHeader=…, or the bare Name:value of httpie) is one
 * shell word, and bash joins that word of any parts: 'quoted', "quoted",
 * $'ANSI-C' with its escapes (\x20, \040, \u0020, \cX, \t, \e…), and
 * backslash-escaped blanks.  The patterns of pd-redact-patterns.c read
 * one spelling at a time, and each round of attack found the next
 * (X-Api-Key:' '$'KEY', Authorization:Bearer$'\c@'TOKEN were stored as
 * written; tried as an attacker would).  So the word is read here as bash
 * reads it: its dequoted text, each byte with the span of the text as
 * written that it comes from (a "view" of the word, as
 * pd-redact-continuation.c reads a command with its continuations taken
 * out).  Whether it is Authorization: [scheme] credentials, Cookie: or
 * Set-Cookie: name=value pairs, or a header whose name the name rule says
 * is a secret's (X-Api-Key, X-Auth-Token, Private-Token) is decided on the
 * dequoted text; the secret's bytes are then masked where they are
 * written, piece by piece between the quotes bash takes out, each piece
 * through the last guard of every mask (_pd_redact_mask_span()): a quote,
 * a backslash or the $ of $'…' stays in sight.
 *
 * A mask never hides a command: the word ends where bash ends it (an
 * unquoted blank, ; & | ( ) < >), so what follows it stays in sight; a
 * value that holds ; & | < > or a backtick (escaped or quoted: it is text,
 * but reads as syntax), starts with $ (a placeholder), or a word with a
 * command substitution ($(…), `…`, ${…}, $[…]) is left to the other rules;
 * an unquoted $NAME ends the value before it ($IFS;reboot stays).
 *
 * Only the word of a name literally followed by ':' is read (the scan
 * tries this where a secret-like name, Authorization or Cookie starts),
 * from its start (at most HEADER_BACK bytes before the name) and once:
 * each byte is read a bounded number of times, so the scan stays linear.
 * A word in a JSON string (a tool call's arguments) is read through the
 * string's escapes; a string held in one is left to the patterns.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-redact.h"
#include "pd-redact-private.h"
#include "pd-redact-scan-private.h"

/* How far before the name its word may start (-H, --header=,
 * http.extraHeader=, quotes), how long the name may be, and how much of
 * the word is read (dequoted, and as written). */
#define HEADER_BACK 96
#define HEADER_NAME_MAX 64
#define HEADER_WORD_MAX 4096
#define HEADER_SOURCE_MAX 16384
/* How many values of one word are masked (a cookie's), as _pd_redact_cookie_values() reads. */
#define FOUND_MAX 32

/* Why the reading of a word stopped. */
typedef enum
{
  STOP_END,       /* where bash ends the word */
  STOP_VARIABLE,  /* at $NAME: what follows is no literal */
  STOP_COMMAND,   /* at what runs or expands with quotes of its own: $(, `, ${, $[ */
  STOP_BROKEN,    /* too long, or a quote left open: unsure */
} Stop;

/* The shell's text at the word, read through the escapes of the JSON
 * string it is in (@json): a character at a time, with its span. */
typedef struct
{
  const char *t;
  gsize       len;
  gsize       k;
  gboolean    json;
} Cursor;

/* The word as bash reads it: @d its bytes, each from [from[i], to[i]) of
 * the text as written. */
typedef struct
{
  GString *d;
  gsize   *from;
  gsize   *to;
  gsize    cap;     /* of from and to */
  gboolean heap;    /* from and to are allocated (else the caller's) */
  Stop     stop;
  gsize    end;     /* where the reading stopped, as written */
  gboolean quoted;  /* bash took quotes or backslashes out of it */
  gsize    found[2 * FOUND_MAX];  /* the secrets found in d, [start, end) each */
  guint    n_found;
} Word;

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
emit (Word  *w,
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
emit_code_point (Word     *w,
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
             Word   *w,
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

/* Reads the shell word at the cursor into @w, as bash joins its parts. */
static void
read_word (Cursor *c,
           Word   *w)
{
  enum { NONE, SINGLE, DOUBLE, ANSI } q = NONE;
  gsize start = c->k;

  w->stop = STOP_BROKEN;
  for (;;)
    {
      gsize before = c->k, s, e, s2, e2;
      guint ch, next;

      w->end = c->k;
      if (w->d->len + 8 >= HEADER_WORD_MAX || c->k - start >= HEADER_SOURCE_MAX)
        return;
      if (!cursor_get (c, &ch, &s, &e))
        {
          if (q == NONE)
            w->stop = STOP_END;
          return;
        }
      switch (q)
        {
        case NONE:
          if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || (ch < 0x80 && strchr (";&|()<>", (int) ch) != NULL))
            {
              c->k = before;
              w->end = before;
              w->stop = STOP_END;
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
              if (next == '(' || next == '{' || next == '[')
                {
                  w->stop = STOP_COMMAND;
                  return;
                }
              if (expands_name (next))
                {
                  w->stop = STOP_VARIABLE;
                  return;
                }
            }
          if (ch == '`')
            {
              w->stop = STOP_COMMAND;
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
          else if (ch == '$' && cursor_peek (c, &next) && (next == '(' || next == '{' || next == '['))
            {
              w->stop = STOP_COMMAND;
              return;
            }
          else if (ch == '$' && cursor_peek (c, &next) && expands_name (next))
            {
              w->stop = STOP_VARIABLE;
              return;
            }
          else if (ch == '`')
            {
              w->stop = STOP_COMMAND;
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

/* Whether the dequoted byte at @p of @d parts a header's words: a blank,
 * a control character (bash's $'\v', $'\c@' too) or one of Unicode's
 * spaces. */
static gsize
separator_len (const GString *d,
               gsize          p)
{
  guchar c = (guchar) d->str[p];

  if (c <= 0x20 || c == 0x7f)
    return 1;
  return _pd_redact_unicode_space_len (d->str + p, d->len - p);
}

static gsize
skip_separators (const GString *d,
                 gsize          p)
{
  gsize n;

  while (p < d->len && (n = separator_len (d, p)) > 0)
    p += n;
  return p;
}

/* The end of the run of bytes at @p up to a separator or one of @stops. */
static gsize
run_end (const GString *d,
         gsize          p,
         const char    *stops)
{
  while (p < d->len && separator_len (d, p) == 0 && strchr (stops, d->str[p]) == NULL)
    p++;
  return p;
}

/* Whether a value of the dequoted word reads as shell syntax to whoever
 * reads it, or is a placeholder, a mask already, or what runs: then the
 * other rules decide, as for any value ("a value that holds ; & | < >
 * stays in sight"). */
static gboolean
value_hides_nothing (const char *value,
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
static gboolean
mask_dequoted (Redactor   *r,
               const Word *w,
               gsize       ds,
               gsize       de)
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

static const char * const schemes[] = {
  "basic", "bearer", "token", "digest", "negotiate", "ntlm", "apikey", "key", "sso-key", "aws4-hmac-sha256", NULL,
};

static gboolean
is_scheme (const char *p,
           gsize       len)
{
  for (guint j = 0; schemes[j] != NULL; j++)
    if (strlen (schemes[j]) == len && g_ascii_strncasecmp (p, schemes[j], len) == 0)
      return TRUE;
  return FALSE;
}

/* Whether [p, p + len) reads as a scheme's name: letters, digits, '-'. */
static gboolean
other_scheme (const char *p,
              gsize       len)
{
  for (gsize k = 0; k < len; k++)
    if (!g_ascii_isalnum (p[k]) && p[k] != '-')
      return FALSE;
  return TRUE;
}

/* A secret found at [ds, de) of the dequoted word, a printf's \n or \t
 * at its end (in quotes, where the backslash stays) left out.  TRUE. */
static gboolean
found (Word  *w,
       gsize  ds,
       gsize  de)
{
  if (de - ds > 3 && w->d->str[de - 2] == '\\' && (w->d->str[de - 1] == 'n' || w->d->str[de - 1] == 't')
      && w->d->str[de - 3] != '\\')
    de -= 2;
  if (w->n_found < FOUND_MAX)
    {
      w->found[2 * w->n_found] = ds;
      w->found[2 * w->n_found + 1] = de;
      w->n_found++;
    }
  return TRUE;
}

/* Authorization: [scheme] credentials, from @p of the dequoted word. */
static gboolean
authorization (Word  *w,
               gsize  p)
{
  const GString *d = w->d;
  gsize te, cs, ce;

  p = skip_separators (d, p);
  te = run_end (d, p, ",");
  if (is_scheme (d->str + p, te - p))
    {
      /* the scheme alone ("Authorization: Basic" URL), and Digest's
       * parameter list (its response is a hash of one nonce), are no
       * credentials here */
      if (te >= d->len || d->str[te] == ',' || (te - p == 6 && g_ascii_strncasecmp (d->str + p, "digest", 6) == 0
                                               && memchr (d->str + te, '=', d->len - te) != NULL))
        return FALSE;
      cs = skip_separators (d, te);
    }
  else if (te > p && te - p <= 32 && g_ascii_isalpha (d->str[p]) && other_scheme (d->str + p, te - p)
           && skip_separators (d, te) > te && skip_separators (d, te) < d->len && d->str[skip_separators (d, te)] != ',')
    cs = skip_separators (d, te);  /* a scheme not in the list (Bot, SSWS, OAuth…): it stays */
  else
    cs = p;
  ce = run_end (d, cs, ",");
  /* '…: Bearer $TOKEN' in single quotes is a placeholder, no token */
  if (ce == cs || d->str[cs] == '$' || !value_hides_nothing (d->str + cs, ce - cs))
    return FALSE;
  return found (w, cs, ce);
}

/* Cookie: name=value; name=value (Set-Cookie: its first, the attributes
 * stay), from @p of the dequoted word: the values
 * _pd_redact_cookie_is_secret() says are secrets. */
static gboolean
cookies (Word     *w,
         gsize     p,
         gboolean  set)
{
  const GString *d = w->d;
  gboolean any = FALSE;

  p = skip_separators (d, p);
  for (guint n = 0; n < 32 && p < d->len; n++)
    {
      gsize ne = run_end (d, p, "=;,"), vs, ve;

      if (ne == p || ne >= d->len || d->str[ne] != '=')
        break;
      vs = ne + 1;
      ve = run_end (d, vs, ";");
      if (ve - vs >= 6 && d->str[vs] != '$' && value_hides_nothing (d->str + vs, ve - vs)
          && _pd_redact_cookie_is_secret (d->str + p, ne - p, d->str + vs, ve - vs))
        any = found (w, vs, ve);
      if (set || ve >= d->len || d->str[ve] != ';')
        break;
      p = skip_separators (d, ve + 1);
    }
  return any;
}

/* NAME: value of a name the name rule says is a secret's. */
static gboolean
named_value (Word       *w,
             const char *name,
             gsize       p)
{
  const GString *d = w->d;
  g_autofree char *value = NULL;
  gsize ve;

  p = skip_separators (d, p);
  ve = run_end (d, p, "");
  if (ve == p || !value_hides_nothing (d->str + p, ve - p))
    return FALSE;
  value = g_strndup (d->str + p, ve - p);
  /* a literal $ is text here: an expansion ended the reading */
  if (!_pd_redact_value_is_secret (value, TRUE) || _pd_redact_value_is_pass_count (name, value))
    return FALSE;
  return found (w, p, ve);
}

static inline gboolean
is_header_name_char (char c)
{
  return g_ascii_isalnum (c) || c == '-' || c == '_';
}

/* Whether bash ends a word right before @k of @t (at @depth in JSON
 * strings): a blank or a sign, the JSON string's opening quote or its
 * \n and \t. */
static gboolean
word_boundary_before (Redactor *r,
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

/* Whether the dequoted word's part before the header's name, [0, n), is
 * what may stand there: nothing, curl's -H glued, or an option or setting
 * ending in '=' (--header=, http.extraHeader=). */
static gboolean
prefix_fits (const GString *d,
             gsize          n)
{
  if (n == 0)
    return TRUE;
  if (n == 2 && d->str[0] == '-' && d->str[1] == 'H')
    return TRUE;
  if (d->str[n - 1] != '=')
    return FALSE;
  for (gsize k = 0; k + 1 < n; k++)
    if (!(g_ascii_isalnum (d->str[k]) || strchr ("-_.", d->str[k]) != NULL))
      return FALSE;
  return TRUE;
}

/* Whether the dequoted bytes [ds, de) of @w are written as they read,
 * each one byte of the text next to the one before. */
static gboolean
as_written (const Word *w,
            gsize       ds,
            gsize       de)
{
  for (gsize k = ds; k < de; k++)
    if (w->to[k] != w->from[k] + 1 || (k > ds && w->from[k] != w->to[k - 1]))
      return FALSE;
  return TRUE;
}

/* The header's word @w read from @ws, its name [ns, ne) written as it is
 * (the scan's trigger at @i): its secrets masked (where the scan goes on
 * returned), none found (only known token shapes are tried in it; @i + 1),
 * or the patterns' to read (@i). */
static gsize
header_word (Redactor *r,
             Word     *w,
             gsize     i,
             gsize     ws,
             gsize     ns,
             gsize     ne)
{
  const char *t = r->text;
  const GString *d = w->d;
  const gsize *from = w->from;
  g_autofree char *name = NULL;
  gsize k, kn;
  gboolean masked;

  /* A word written as it reads (Authorization:Bearer, 'NAME: value'
   * unquoted) is the patterns': they read it whole; a word unsure or
   * holding what runs too. */
  if (!w->quoted || w->stop == STOP_BROKEN || w->stop == STOP_COMMAND)
    return i;

  /* The name in the dequoted word, where it is written, after what may
   * stand before it. */
  for (kn = 0; kn < d->len && from[kn] != ns; kn++)
    ;
  if (kn + (ne - ns) > d->len || !prefix_fits (d, kn) || memcmp (d->str + kn, t + ns, ne - ns) != 0)
    return i;
  for (k = kn + (ne - ns); k < d->len && (d->str[k] == ' ' || d->str[k] == '\t'); k++)
    ;
  if (k >= d->len || d->str[k] != ':')
    return i;
  k++;
  /* H=X-Api-Key:' '$'…' assigns a variable: one the text runs holds a
   * command (eval "${H#*: }"), kept in sight as any such value. */
  if (kn > 1 && d->str[kn - 1] == '=' && as_written (w, 0, kn))
    {
      g_autofree char *variable = g_strndup (d->str, kn - 1);

      if (_pd_redact_assigned_variable_runs (r, variable, ws, ws + kn - 1))
        return i;
    }

  name = g_strndup (t + ns, ne - ns);
  if (g_ascii_strcasecmp (name, "authorization") == 0 || g_ascii_strcasecmp (name, "proxy-authorization") == 0)
    authorization (w, k);
  else if (g_ascii_strcasecmp (name, "cookie") == 0 || g_ascii_strcasecmp (name, "set-cookie") == 0)
    cookies (w, k, name[0] == 's' || name[0] == 'S');
  else if (_pd_redact_name_is_secret (name))
    named_value (w, name, k);
  else
    return i;  /* no secret's header: its value may hold a NAME=value */
  /* Written as bash reads it, from the name to the last value read (one
   * quoted part: printf 'password: X\n'): the patterns' to read, as they
   * always have. */
  if (as_written (w, kn, w->n_found > 0 ? w->found[2 * w->n_found - 1] : d->len))
    return i;
  /* what bash reads as a word's start (not in quotes or a comment) */
  if (r->states == NULL)
    r->states = _pd_redact_reading_states (t, r->len, r->depths);
  if (!_pd_redact_reading_unquoted (r->states, ws))
    return i;
  masked = FALSE;
  for (guint f = 0; f < w->n_found; f++)
    masked = mask_dequoted (r, w, w->found[2 * f], w->found[2 * f + 1]) || masked;
  if (masked)
    return MAX (r->copied, i + 1);
  /* The header read and nothing found a secret (a reference, a setting, a
   * scheme alone): the patterns, which read the word in pieces, try only
   * known token shapes in it (Bearer$'\x20'"$TOKEN" was masked whole). */
  r->refused_end = MAX (r->refused_end, w->end);
  return i + 1;
}

/* Whether the word at @ws (at @depth in JSON strings) holds a quote, a
 * backslash or a $ before its first blank or sign, as written: a word
 * with none reads as it is written, the patterns' (most words: each is
 * looked at once, then read only when it has one). */
static gboolean
word_has_quotes (Redactor *r,
                 gsize     ws,
                 guint     depth,
                 gsize    *end)
{
  const char *t = r->text;
  gsize k;

  for (k = ws; k < r->len && k - ws < HEADER_SOURCE_MAX; k++)
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
  return k - ws >= HEADER_SOURCE_MAX;  /* unsure: read it */
}

gsize
_pd_redact_header_at (Redactor *r,
                      gsize     i)
{
  const char *t = r->text;
  guint depth = _pd_redact_depth_at (r->depths, i);
  gsize ns = i, ne = i, k, ws, next;
  gsize from_buf[256], to_buf[256];
  g_autoptr(GString) d = NULL;
  Cursor c;
  Word w;

  if (depth > 1)
    return i;
  /* The name, literally written, and a ':' after it (looked for first:
   * most names have none). */
  while (ne < r->len && ne - i <= HEADER_NAME_MAX && is_header_name_char (t[ne]))
    ne++;
  for (k = ne; k < r->len && (t[k] == ' ' || t[k] == '\t'); k++)
    ;
  if (k >= r->len || t[k] != ':')
    return i;
  while (ns > r->copied && i - ns < HEADER_NAME_MAX && is_header_name_char (t[ns - 1]))
    ns--;
  if ((ns > 0 && is_header_name_char (t[ns - 1])) || ne - ns > HEADER_NAME_MAX)
    return i;
  if (t[ns] == '-' && ns + 2 < ne && t[ns + 1] == 'H')
    ns += 2;  /* -HName: */
  if (!g_ascii_isalpha (t[ns]))
    return i;

  /* Its word's start, read once. */
  for (ws = ns; ws > r->copied && ns - ws < HEADER_BACK && !word_boundary_before (r, ws, depth); ws--)
    ;
  if (!word_boundary_before (r, ws, depth) || ws < r->header_end)
    return i;
  if (!word_has_quotes (r, ws, depth, &k))
    {
      r->header_end = MAX (k, ws + 1);  /* the word is not looked at again */
      return i;
    }

  d = g_string_sized_new (256);
  w = (Word) { .d = d, .from = from_buf, .to = to_buf, .cap = G_N_ELEMENTS (from_buf), .stop = STOP_BROKEN, .end = ws };
  c = (Cursor) { t, r->len, ws, depth == 1 };
  read_word (&c, &w);
  r->header_end = MAX (w.end, ws + 1);
  r->line.bytes_read += w.end - ws;
  next = header_word (r, &w, i, ws, ns, ne);
  if (w.heap)
    {
      g_free (w.from);
      g_free (w.to);
    }
  return next;
}
