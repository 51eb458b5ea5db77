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
 * The word is read by pd-redact-shell-word.c where the scan meets a
 * quote, a backslash or a $ (or a secret-like name, Authorization or
 * Cookie) in it, from its start (at most HEADER_BACK bytes before) and
 * once: each byte is read a bounded number of times, so the scan stays
 * linear.  Its name is found in the dequoted text, after what may stand
 * before it (-H glued, --header=, http.extraHeader=): a name of quoted
 * parts ("Authoriz"ation:, X-Api-K''ey:, $'\x41'uthorization:, a ':'
 * quoted) is a name bash hands the command (tried as an attacker would).
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
#include "pd-redact-shell-word-private.h"

/* How far before the byte that triggers it a word may start (-H,
 * --header=, http.extraHeader=, the name, quotes), and how long the name
 * may be. */
#define HEADER_BACK 96
#define HEADER_NAME_MAX 64
/* How many values of one word are masked (a cookie's), as _pd_redact_cookie_values() reads. */
#define FOUND_MAX 32

/* A header's word, and the secrets found in its dequoted text. */
typedef struct
{
  PdShellWord w;
  gsize       found[2 * FOUND_MAX];  /* [start, end) each, of w.d */
  guint       n_found;
} Header;

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
found (Header  *h,
       gsize  ds,
       gsize  de)
{
  if (de - ds > 3 && h->w.d->str[de - 2] == '\\' && (h->w.d->str[de - 1] == 'n' || h->w.d->str[de - 1] == 't')
      && h->w.d->str[de - 3] != '\\')
    de -= 2;
  if (h->n_found < FOUND_MAX)
    {
      h->found[2 * h->n_found] = ds;
      h->found[2 * h->n_found + 1] = de;
      h->n_found++;
    }
  return TRUE;
}

/* One credential of Authorization: [scheme] credentials, from @p of the
 * dequoted word; where it ends in *@end (a ',' or the word's end). */
static gboolean
credential (Header *h,
            gsize   p,
            gsize  *end)
{
  const GString *d = h->w.d;
  gsize te, cs, ce;

  p = skip_separators (d, p);
  te = run_end (d, p, ",");
  *end = te;
  if (is_scheme (d->str + p, te - p))
    {
      /* the scheme alone ("Authorization: Basic" URL), and Digest's
       * parameter list (its response is a hash of one nonce), are no
       * credentials here */
      if (te - p == 6 && g_ascii_strncasecmp (d->str + p, "digest", 6) == 0 && memchr (d->str + te, '=', d->len - te) != NULL)
        {
          *end = d->len;
          return FALSE;
        }
      if (te >= d->len || d->str[te] == ',')
        return FALSE;
      cs = skip_separators (d, te);
    }
  else if (te > p && te - p <= 32 && g_ascii_isalpha (d->str[p]) && other_scheme (d->str + p, te - p)
           && skip_separators (d, te) > te && skip_separators (d, te) < d->len && d->str[skip_separators (d, te)] != ',')
    cs = skip_separators (d, te);  /* a scheme not in the list (Bot, SSWS, OAuth…): it stays */
  else
    cs = p;
  ce = run_end (d, cs, ",");
  *end = ce;
  /* '…: Bearer $TOKEN' in single quotes is a placeholder, no token */
  if (ce == cs || d->str[cs] == '$' || !_pd_shell_word_value_hides_nothing (d->str + cs, ce - cs))
    return FALSE;
  return found (h, cs, ce);
}

/* Authorization: [scheme] credentials, from @p of the dequoted word;
 * each credential of a list (Bearer X, Basic Y: the second was stored
 * in clear; tried as an attacker would). */
static gboolean
authorization (Header *h,
               gsize   p)
{
  const GString *d = h->w.d;
  gboolean any = FALSE;

  for (guint n = 0; n < FOUND_MAX && p < d->len; n++)
    {
      gsize end;

      any = credential (h, p, &end) || any;
      /* only a list of credentials goes on: after one, a ',' and a blank */
      if (end >= d->len || d->str[end] != ',')
        break;
      p = end + 1;
    }
  return any;
}

/* Cookie: name=value; name=value (Set-Cookie: its first, the attributes
 * stay), from @p of the dequoted word: the values
 * _pd_redact_cookie_is_secret() says are secrets. */
static gboolean
cookies (Header     *h,
         gsize     p,
         gboolean  set)
{
  const GString *d = h->w.d;
  gboolean any = FALSE;

  p = skip_separators (d, p);
  for (guint n = 0; n < 32 && p < d->len; n++)
    {
      gsize ne = run_end (d, p, "=;,"), vs, ve;

      if (ne == p || ne >= d->len || d->str[ne] != '=')
        break;
      vs = ne + 1;
      ve = run_end (d, vs, ";");
      if (ve - vs >= 6 && d->str[vs] != '$' && _pd_shell_word_value_hides_nothing (d->str + vs, ve - vs)
          && _pd_redact_cookie_is_secret (d->str + p, ne - p, d->str + vs, ve - vs))
        any = found (h, vs, ve);
      if (set || ve >= d->len || d->str[ve] != ';')
        break;
      p = skip_separators (d, ve + 1);
    }
  return any;
}

/* NAME: value of a name the name rule says is a secret's. */
static gboolean
named_value (Header       *h,
             const char *name,
             gsize       p)
{
  const GString *d = h->w.d;
  g_autofree char *value = NULL;
  gsize ve;

  p = skip_separators (d, p);
  ve = run_end (d, p, "");
  /* "X" in the word as text (a line of curl's config, oauth2-bearer:
   * "X", in a JSON string: the quotes could not be masked, and the value
   * was stored in clear): the value is between them */
  if (ve - p > 2 && d->str[p] == '"' && d->str[ve - 1] == '"')
    p++, ve--;
  if (ve == p || !_pd_shell_word_value_hides_nothing (d->str + p, ve - p))
    return FALSE;
  value = g_strndup (d->str + p, ve - p);
  /* a literal $ is text here: an expansion ended the reading */
  if (!_pd_redact_value_is_secret (value, TRUE) || _pd_redact_value_is_pass_count (name, value))
    return FALSE;
  return found (h, p, ve);
}

static inline gboolean
is_header_name_char (char c)
{
  return g_ascii_isalnum (c) || c == '-' || c == '_';
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

/* Where the header's name starts in the dequoted word @d, after what may
 * stand before it (prefix_fits()), its end in *@ne (a ':' after it,
 * blanks between), or G_MAXSIZE: no header. */
static gsize
header_name (const GString *d,
             gsize         *ne)
{
  gsize kn = 0, k;

  for (k = 0; k < d->len && k < HEADER_BACK && (g_ascii_isalnum (d->str[k]) || strchr ("-_.", d->str[k]) != NULL); k++)
    ;
  if (k < d->len && d->str[k] == '=' && prefix_fits (d, k + 1))
    kn = k + 1;  /* --header=, http.extraHeader= */
  else if (d->len > 2 && d->str[0] == '-' && d->str[1] == 'H')
    kn = 2;  /* -HName: */
  if (kn >= d->len || !g_ascii_isalpha (d->str[kn]))
    return G_MAXSIZE;
  for (k = kn; k < d->len && k - kn <= HEADER_NAME_MAX && is_header_name_char (d->str[k]); k++)
    ;
  if (k - kn > HEADER_NAME_MAX)
    return G_MAXSIZE;
  *ne = k;
  while (k < d->len && (d->str[k] == ' ' || d->str[k] == '\t'))
    k++;
  return k < d->len && d->str[k] == ':' ? kn : G_MAXSIZE;
}

/* A header's name bash makes by brace expansion: {Authorization,X}:\ Token\ X
 * is two words, Authorization: Token X and X: Token X, {X-Api-Key,Y}:X and
 * X-Api-{Key,Id}:X likewise (stored in clear; tried as an attacker
 * would).  One {a,b,…} of unquoted braces and commas in the name, after
 * nothing, -H glued or an option's --name= (NAME={…} assigns a variable:
 * bash expands no braces there).  Each name it makes is tried; the one
 * that says the most (Authorization, then a cookie, then a secret's name)
 * in *@name, its start and the ':' after it in *@kn and *@colon.  FALSE
 * when the word holds no such name. */
static gboolean
brace_name (Redactor  *r,
            Header    *h,
            gsize     *kn,
            gsize     *colon,
            char     **name)
{
  const GString *d = h->w.d;
  gsize start = 0, k, open = G_MAXSIZE, close = G_MAXSIZE;
  guint commas = 0, best = 0;

  if (d->len > 2 && d->str[0] == '-' && d->str[1] == 'H')
    start = 2;
  else if (d->len > 2 && d->str[0] == '-' && d->str[1] == '-')
    {
      for (k = 2; k < d->len && k < HEADER_BACK && (g_ascii_isalnum (d->str[k]) || strchr ("-_.", d->str[k]) != NULL); k++)
        ;
      if (k >= d->len || d->str[k] != '=')
        return FALSE;
      start = k + 1;
    }
  for (k = start; k < d->len && k - start <= 2 * HEADER_NAME_MAX && d->str[k] != ':'; k++)
    {
      char c = d->str[k];

      if (c == '{' || c == '}' || c == ',')
        {
          gsize at = h->w.from[k];

          /* each as written, unquoted: bash expands only such braces */
          if (h->w.to[k] != at + 1 || r->text[at] != c)
            return FALSE;
          if (r->states == NULL)
            r->states = _pd_redact_reading_states (r->text, r->len, r->depths);
          if (!_pd_redact_reading_unquoted (r->states, at))
            return FALSE;
        }
      if (c == '{' && open == G_MAXSIZE)
        open = k;
      else if (c == '}' && open != G_MAXSIZE && close == G_MAXSIZE)
        close = k;
      else if (c == ',' && open != G_MAXSIZE && close == G_MAXSIZE)
        commas++;
      else if (!is_header_name_char (c))
        return FALSE;
    }
  if (k >= d->len || d->str[k] != ':' || close == G_MAXSIZE || commas == 0)
    return FALSE;
  for (gsize a = open + 1; a <= close; )
    {
      gsize b = a;
      g_autoptr(GString) made = g_string_new_len (d->str + start, open - start);
      guint says;

      while (b < close && d->str[b] != ',')
        b++;
      g_string_append_len (made, d->str + a, b - a);
      g_string_append_len (made, d->str + close + 1, k - close - 1);
      if (made->len == 0 || !g_ascii_isalpha (made->str[0]))
        says = 0;
      else if (g_ascii_strcasecmp (made->str, "authorization") == 0 || g_ascii_strcasecmp (made->str, "proxy-authorization") == 0)
        says = 3;
      else if (g_ascii_strcasecmp (made->str, "cookie") == 0 || g_ascii_strcasecmp (made->str, "set-cookie") == 0)
        says = 2;
      else
        says = _pd_redact_name_is_secret (made->str) ? 1 : 0;
      if (says > best)
        {
          best = says;
          g_free (*name);
          *name = g_string_free (g_steal_pointer (&made), FALSE);
        }
      a = b + 1;
    }
  *kn = start;
  *colon = k;
  return best > 0;
}

/* The header's word read from @ws (the scan's trigger at @i): its
 * secrets masked (where the scan goes on returned), none found (only
 * known token shapes are tried in it; @i + 1), or the patterns' to read
 * (@i). */
static gsize
header_word (Redactor *r,
             Header   *h,
             gsize     i,
             gsize     ws)
{
  const char *t = r->text;
  const GString *d = h->w.d;
  g_autofree char *name = NULL;
  gsize k, kn, ne = 0;
  gboolean masked, braces;

  if (h->w.stop == PD_SHELL_WORD_BROKEN || h->w.stop == PD_SHELL_WORD_COMMAND)
    return i;
  /* a name of brace expansion, quoted or not: none of the patterns' */
  braces = brace_name (r, h, &kn, &k, &name);
  /* A word written as it reads (Authorization:Bearer, 'NAME: value'
   * unquoted) is the patterns': they read it whole; a word unsure or
   * holding what runs too. */
  if (!h->w.quoted && !braces)
    return i;

  /* The name in the dequoted word, after what may stand before it: as
   * bash hands it to the command, whatever its quotes. */
  if (braces)
    ne = k;
  else if ((kn = header_name (d, &ne)) == G_MAXSIZE)
    return _pd_redact_assignment_word (r, &h->w, i, ws);
  for (k = ne; d->str[k] != ':'; k++)
    ;
  k++;
  /* H=X-Api-Key:' '$'…' assigns a variable: one the text runs holds a
   * command (eval "${H#*: }"), kept in sight as any such value. */
  if (!braces && kn > 1 && d->str[kn - 1] == '=' && _pd_shell_word_as_written (&h->w, 0, kn))
    {
      g_autofree char *variable = g_strndup (d->str, kn - 1);

      if (_pd_redact_assigned_variable_runs (r, variable, ws, ws + kn - 1))
        return i;
    }

  /* a name alone ('X-Api-Key': 'v' of a Python dict): the patterns' */
  if (skip_separators (d, k) >= d->len)
    return i;
  if (name == NULL)
    name = g_strndup (d->str + kn, ne - kn);
  if (g_ascii_strcasecmp (name, "authorization") == 0 || g_ascii_strcasecmp (name, "proxy-authorization") == 0)
    authorization (h, k);
  else if (g_ascii_strcasecmp (name, "cookie") == 0 || g_ascii_strcasecmp (name, "set-cookie") == 0)
    cookies (h, k, name[0] == 's' || name[0] == 'S');
  else if (_pd_redact_name_is_secret (name))
    named_value (h, name, k);
  else
    return i;  /* no secret's header: its value may hold a NAME=value */
  /* Written as bash reads it, from the name to its one value (one quoted
   * part: printf 'password: X\n'): the patterns' to read, as they always
   * have (a list of credentials is read here: the patterns take its
   * first only). */
  if (!braces && h->n_found <= 1 && _pd_shell_word_as_written (&h->w, kn, h->n_found > 0 ? h->found[1] : d->len))
    return i;
  /* what bash reads as a word's start (not in quotes or a comment) */
  if (r->states == NULL)
    r->states = _pd_redact_reading_states (t, r->len, r->depths);
  if (!_pd_redact_reading_unquoted (r->states, ws))
    return i;
  masked = FALSE;
  for (guint f = 0; f < h->n_found; f++)
    masked = _pd_redact_mask_dequoted (r, &h->w, h->found[2 * f], h->found[2 * f + 1]) || masked;
  if (masked)
    return MAX (r->copied, i + 1);
  /* The header read and nothing found a secret (a reference, a setting, a
   * scheme alone): the patterns, which read the word in pieces, try only
   * known token shapes in it (Bearer$'\x20'"$TOKEN" was masked whole). */
  r->refused_end = MAX (r->refused_end, h->w.end);
  return i + 1;
}

gsize
_pd_redact_header_at (Redactor *r,
                      gsize     i)
{
  guint depth = _pd_redact_depth_at (r->depths, i);
  gsize k, ws, next;
  Header h;

  if (depth > 1 || i < r->header_end)
    return i;
  /* a JSON string's own quotes are no shell word's */
  if (r->depths != NULL && r->text[i] == '"'
      && ((r->depths[i] & JSON_OPENS) != 0 || (i > 0 && _pd_redact_depth_at (r->depths, i - 1) > depth)))
    return i;
  /* The word's start, its word read once. */
  for (ws = i; ws > r->copied && i - ws < HEADER_BACK && !_pd_shell_word_starts_at (r, ws, depth); ws--)
    ;
  if (!_pd_shell_word_starts_at (r, ws, depth) || ws < r->header_end)
    {
      /* a word whose start is too far back: none of its quotes looks
       * back for it again (a'b'a'b'… looked back 96 bytes at each) */
      if (ws >= r->header_end && i - ws >= HEADER_BACK)
        {
          for (k = i; k < r->len && k - i < PD_SHELL_WORD_SOURCE_MAX && strchr (" \t\n\r;&|<>()", r->text[k]) == NULL
                      && !(depth == 1 && r->text[k] == '"' && r->text[k - 1] != '\\'); k++)
            ;
          r->header_end = MAX (r->header_end, k);
        }
      return i;
    }
  /* read too with braces in it: a header's name of brace expansion */
  if (!_pd_shell_word_has_quotes (r, ws, depth, &k) && memchr (r->text + ws, '{', k - ws) == NULL)
    {
      r->header_end = MAX (k, ws + 1);  /* the word is not looked at again */
      return i;
    }

  h.n_found = 0;
  _pd_shell_word_read (&h.w, r->text, r->len, ws, depth == 1);
  r->header_end = MAX (h.w.end, ws + 1);
  r->line.bytes_read += h.w.end - ws;
  next = header_word (r, &h, i, ws);
  _pd_shell_word_clear (&h.w);
  return next;
}
