/* pd-redact-code-calls.c: calls in code that take a password as a plain
 * argument with no name: a login's (smtplib's s.login("bob", "X"),
 * ftplib's, imaplib's), urllib's add_password(None, url, "bob", "X"), and
 * a user:password literal encoded for a Basic header (Python's
 * base64.b64encode(b"bob:X"), JavaScript's btoa("bob:X")).
 *
 * Each was stored in clear (tried as an attacker would): the name rule
 * never sees a value with no name, and pd-redact-code.c knew the pairs of
 * HTTP libraries only.  The rule is the same: the call's arguments are
 * literals or names, and the last one, a plain literal, is the password
 * (for an encoded literal, what follows its first colon), masked with
 * its quotes in sight.
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

/* The calls, each with how many arguments it takes (the password last). */
static const struct
{
  const char *name;
  gboolean    method;  /* only as a method: .login(, not login( */
  guint       args;
} calls[] = {
  { "login", TRUE, 2 },
  { "add_password", TRUE, 4 },
  { NULL, FALSE, 0 },
};

/* The functions that encode a user:password literal for a Basic header. */
static gboolean
encoder (const char *t,
         gsize       s,
         gsize       e)
{
  static const char * const ends[] = { "b64encode", "encodebytes", NULL };

  if (e - s == 4 && strncmp (t + s, "btoa", 4) == 0)
    return TRUE;
  for (guint j = 0; ends[j] != NULL; j++)
    {
      gsize n = strlen (ends[j]);

      if (e - s >= n && strncmp (t + e - n, ends[j], n) == 0)
        return TRUE;
    }
  return FALSE;
}

/* The arguments of the call whose '(' is at @k: each a literal or a name,
 * the last's literal text in [*vs, *ve); how many, or 0. */
static guint
arguments (Redactor *r,
           gsize     k,
           guint     depth,
           gsize    *vs,
           gsize    *ve,
           gsize    *end)
{
  const char *t = r->text;
  guint n = 0;

  k = _pd_redact_code_gap (t, r->len, k + 1, depth);
  for (;;)
    {
      gsize e = _pd_redact_code_literal_at (t, r->len, k, depth, vs, ve);

      if (e == 0)
        {
          *vs = *ve = 0;
          e = _pd_redact_code_user_at (t, r->len, k, depth);
        }
      if (e == 0 || ++n > 8)
        return 0;
      k = _pd_redact_code_gap (t, r->len, e, depth);
      if (k < r->len && t[k] == ')')
        {
          *end = k + 1;
          return n;
        }
      if (k >= r->len || t[k] != ',')
        return 0;
      k = _pd_redact_code_gap (t, r->len, k + 1, depth);
    }
}

gsize
_pd_redact_code_call_at (Redactor *r,
                         gsize     i)
{
  const char *t = r->text;
  guint depth = _pd_redact_depth_at (r->depths, i);
  gsize e, k, vs = 0, ve = 0, end;
  guint n;

  if (depth > 1 || (i > 0 && (g_ascii_isalnum (t[i - 1]) || t[i - 1] == '_')))
    return i;
  for (e = i; e < r->len && e - i <= 32 && (g_ascii_isalnum (t[e]) || t[e] == '_'); e++)
    ;
  k = _pd_redact_code_gap (t, r->len, e, depth);
  if (e == i || e - i > 32 || k >= r->len || t[k] != '(')
    return i;
  if (encoder (t, i, e))
    {
      gsize q = _pd_redact_code_gap (t, r->len, k + 1, depth), colon;

      /* b"…", B'…': Python's bytes */
      if (q + 1 < r->len && (t[q] == 'b' || t[q] == 'B'))
        q++;
      if (arguments (r, q - 1, depth, &vs, &ve, &end) != 1 || ve <= vs)
        return i;
      for (colon = vs; colon < ve && t[colon] != ':'; colon++)
        ;
      if (colon == vs || colon + 1 >= ve || !_pd_redact_code_mask_literal (r, colon + 1, ve))
        return i;
      return MAX (r->copied, end);
    }
  for (guint c = 0; calls[c].name != NULL; c++)
    {
      if (strlen (calls[c].name) != e - i || strncmp (t + i, calls[c].name, e - i) != 0)
        continue;
      if (calls[c].method && (i == 0 || t[i - 1] != '.'))
        return i;
      n = arguments (r, k, depth, &vs, &ve, &end);
      if (n != calls[c].args || ve <= vs || !_pd_redact_code_mask_literal (r, vs, ve))
        return i;
      return MAX (r->copied, end);
    }
  return i;
}
