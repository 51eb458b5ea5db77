/* pd-redact-code.c: a password given to an HTTP library's basic
 * authentication in code: Python's requests (auth=('bob', 'SECRET'),
 * HTTPBasicAuth('bob', 'SECRET'), HTTPDigestAuth, HTTPProxyAuth),
 * httpx's and aiohttp's BasicAuth('bob', 'SECRET'), Go's
 * req.SetBasicAuth("bob", "SECRET").
 *
 * The password is the second of two values with no name of its own, so
 * the name rule never saw it, and such code run with python3 -c or
 * written to a file was stored in clear (tried as an attacker would).
 * Only a literal is masked, its quotes in sight: a variable
 * (auth=(user, pw)) is no secret written here, and a literal holding a
 * quote, a backslash, a $ or a backtick (what a shell around the code
 * may read otherwise), or a sign of the shell's (; & | < > brackets,
 * braces, globs, #) stays in sight.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-redact.h"
#include "pd-redact-private.h"
#include "pd-redact-scan-private.h"
#include "pd-redact-code-private.h"


/* Blanks and line breaks between a call's values (auth=("bob",\n "X"):
 * the line break kept the pair in clear; tried as an attacker would),
 * in a JSON string at @depth 1 the escapes \n \r \t too. */
gsize
_pd_redact_code_gap (const char *t,
                     gsize       len,
                     gsize       k,
                     guint       depth)
{
  for (;;)
    {
      if (k < len && (t[k] == ' ' || t[k] == '\t' || t[k] == '\n' || t[k] == '\r'))
        k++;
      else if (depth == 1 && k + 1 < len && t[k] == '\\' && strchr ("nrt", t[k + 1]) != NULL)
        k += 2;
      else
        return k;
    }
}

#define skip_blanks(t, len, k) _pd_redact_code_gap ((t), (len), (k), depth)

/* The quote that opens a literal at @k: ' or " (\" in a JSON string at
 * @depth 1), its length in *@qlen; 0 when none. */
static char
literal_quote (const char *t,
               gsize       len,
               gsize       k,
               guint       depth,
               gsize      *qlen)
{
  /* a Go raw string or a JavaScript template in backquotes too */
  if (k < len && (t[k] == '\'' || t[k] == '`' || (t[k] == '"' && depth == 0)))
    {
      *qlen = 1;
      return t[k];
    }
  if (depth == 1 && k + 1 < len && t[k] == '\\' && t[k + 1] == '"')
    {
      *qlen = 2;
      return '"';
    }
  return 0;
}

/* A string literal at @k, its text in [*vs, *ve), of bytes that read
 * as they are written to the code and to a shell around it; where it
 * ends (after its closing quote), or 0. */
gsize
_pd_redact_code_literal_at (const char *t,
            gsize       len,
            gsize       k,
            guint       depth,
            gsize      *vs,
            gsize      *ve)
{
  gsize qlen, e;
  char q = literal_quote (t, len, k, depth, &qlen);

  if (q == 0)
    return 0;
  *vs = k + qlen;
  for (e = *vs; e < len && e - *vs <= LITERAL_MAX && strchr ("'\"\\$`\n\r", t[e]) == NULL; e++)
    ;
  if (e >= len || e - *vs > LITERAL_MAX || e == *vs)
    return 0;
  /* closed by the quote that opened it, written alike */
  if (qlen == 1 ? t[e] != q : !(t[e] == '\\' && e + 1 < len && t[e + 1] == '"'))
    return 0;
  *ve = e;
  return e + qlen;
}

/* The user: a literal or a name (a variable, user.name). */
gsize
_pd_redact_code_user_at (const char *t,
         gsize       len,
         gsize       k,
         guint       depth)
{
  gsize vs, ve, e = _pd_redact_code_literal_at (t, len, k, depth, &vs, &ve);

  if (e > 0)
    return e;
  if (k >= len || !(g_ascii_isalpha (t[k]) || t[k] == '_'))
    return 0;
  for (e = k; e < len && e - k <= 64 && (g_ascii_isalnum (t[e]) || t[e] == '_' || t[e] == '.'); e++)
    ;
  return e - k <= 64 ? e : 0;
}

/* Whether [s, e) names a class of basic authentication: it ends in
 * BasicAuth, DigestAuth or ProxyAuth (HTTPBasicAuth, httpx.DigestAuth). */
static gboolean
auth_class (const char *t,
            gsize       s,
            gsize       e)
{
  static const char * const ends[] = { "BasicAuth", "DigestAuth", "ProxyAuth", NULL };

  for (guint j = 0; ends[j] != NULL; j++)
    {
      gsize n = strlen (ends[j]);

      if (e - s >= n && strncmp (t + e - n, ends[j], n) == 0)
        return TRUE;
    }
  return FALSE;
}

/* The pair at @k (after its '(' or '['): a user, a password literal,
 * the pair's end; the literal masked.  Where it ends, or 0. */
static gsize
mask_pair (Redactor *r,
           gsize     k,
           guint     depth)
{
  const char *t = r->text;
  gsize vs, ve, e;

  if ((k = _pd_redact_code_user_at (t, r->len, k, depth)) == 0)
    return 0;
  k = skip_blanks (t, r->len, k);
  if (k >= r->len || t[k] != ',')
    return 0;
  k = skip_blanks (t, r->len, k + 1);
  if ((e = _pd_redact_code_literal_at (t, r->len, k, depth, &vs, &ve)) == 0)
    return 0;
  /* the pair's end: the password is its second and last value */
  k = skip_blanks (t, r->len, e);
  if (k >= r->len || (t[k] != ')' && t[k] != ']'))
    return 0;
  return _pd_redact_code_mask_literal (r, vs, ve) ? e : 0;
}

gboolean
_pd_redact_code_mask_literal (Redactor *r,
                              gsize     vs,
                              gsize     ve)
{
  g_autofree char *value = g_strndup (r->text + vs, ve - vs);

  /* what reads as shell syntax to whoever reads it stays in sight, as
   * in every value (the code may stand in no quotes of a shell's) */
  if (!_pd_redact_value_is_secret (value, TRUE) || strpbrk (value, ";&|<>(){}[]*?#") != NULL || vs < r->copied)
    return FALSE;
  _pd_redact_mask_span (r, vs, ve, FALSE);
  return TRUE;
}

/* auth=NAME: the pair assigned to NAME before it (a = ("bob", "X");
 * requests.get(u, auth=a): the mask took the name, the pair stayed in
 * clear; tried as an attacker would), masked where it is, when nothing
 * after it was masked yet.  Looked for up to 1 KiB back: bounded. */
static void
pair_of_name (Redactor *r,
              gsize     ns,
              gsize     ne,
              guint     depth)
{
  const char *t = r->text;
  gsize from = MAX (r->copied, ns > 1024 ? ns - 1024 : 0);

  for (gsize k = ns; k > from; k--)
    {
      gsize at = k - 1, e;

      if (t[at] != t[ns] || strncmp (t + at, t + ns, ne - ns) != 0 || (at > 0 && (g_ascii_isalnum (t[at - 1]) || t[at - 1] == '_' || t[at - 1] == '.')))
        continue;
      e = skip_blanks (t, r->len, at + (ne - ns));
      if (e >= r->len || t[e] != '=' || (e + 1 < r->len && t[e + 1] == '='))
        continue;
      e = skip_blanks (t, r->len, e + 1);
      if (e < r->len && (t[e] == '(' || t[e] == '[') && mask_pair (r, skip_blanks (t, r->len, e + 1), depth) != 0)
        return;
    }
}

/* What opens the pair at @i: auth=( or auth=[ (a word of its own, or an
 * attribute: session.auth = (…)), auth=tuple([ or auth=list((, or
 * BasicAuth(, DigestAuth(, ProxyAuth( with @i at its Auth, also after
 * auth= (auth=HTTPDigestAuth(…): the scan skips a value that is code);
 * where the pair's first value starts, or 0. */
static gsize
pair_opens (Redactor *r,
            gsize     i,
            guint     depth)
{
  const char *t = r->text;
  gsize k;

  if (strncmp (t + i, "auth", 4) == 0)
    {
      if (i > 0 && (g_ascii_isalnum (t[i - 1]) || t[i - 1] == '_'))
        return 0;
      k = skip_blanks (t, r->len, i + 4);
      if (k >= r->len || t[k] != '=' || (k + 1 < r->len && t[k + 1] == '='))
        return 0;
      k = skip_blanks (t, r->len, k + 1);
      if (k < r->len && g_ascii_isalpha (t[k]))
        {
          gsize s = k;

          while (k < r->len && k - s <= 64 && (g_ascii_isalnum (t[k]) || t[k] == '_' || t[k] == '.'))
            k++;
          /* tuple(["bob", "X"]), list(("bob", "X")) */
          if (((k - s == 5 && strncmp (t + s, "tuple", 5) == 0) || (k - s == 4 && strncmp (t + s, "list", 4) == 0))
              && k + 1 < r->len && t[k] == '(')
            {
              k = skip_blanks (t, r->len, k + 1);
              return k < r->len && (t[k] == '[' || t[k] == '(') ? skip_blanks (t, r->len, k + 1) : 0;
            }
          if (!auth_class (t, s, k))
            {
              if (k - s <= 64 && (k >= r->len || t[k] == ')' || t[k] == ',' || t[k] == ' '))
                pair_of_name (r, s, k, depth);
              return 0;
            }
          k = skip_blanks (t, r->len, k);
          return k < r->len && t[k] == '(' ? skip_blanks (t, r->len, k + 1) : 0;
        }
      if (k >= r->len || (t[k] != '(' && t[k] != '['))
        return 0;
      return skip_blanks (t, r->len, k + 1);
    }
  if (strncmp (t + i, "Auth", 4) == 0 && auth_class (t, 0, i + 4))
    {
      k = skip_blanks (t, r->len, i + 4);
      if (k >= r->len || t[k] != '(')
        return 0;
      return skip_blanks (t, r->len, k + 1);
    }
  return 0;
}

gsize
_pd_redact_code_auth_at (Redactor *r,
                         gsize     i)
{
  guint depth = _pd_redact_depth_at (r->depths, i);
  gsize k, e;

  if (depth > 1 || (k = pair_opens (r, i, depth)) == 0)
    return i;
  if ((e = mask_pair (r, k, depth)) == 0)
    return i;
  return MAX (r->copied, e);
}
