/* pd-redact-neutral.c: how much of a value a mask may take without
 * changing how the shell reads the quotes of what follows.
 *
 * The redactor does not always know the quoting a value stands in: a
 * command quoted for another shell (ssh h 'mysql -pX\'; reboot; …'), a
 * quote opened far before.  A mask that takes a quote, a backslash or the
 * $ of $'…' the shell reads differently there changes the quoting of the
 * rest of the line: ssh db1 'mysql -pHunter2\'; reboot; echo 'x\' was
 * stored as ssh db1 'mysql -p[REDACTED]; reboot; echo 'x\', reboot shown
 * as quoted text (tried as an attacker would).  [REDACTED] reads the same
 * in every quoting, so a mask is safe when what it replaces leaves every
 * quoting as it found it: unquoted, '…', "…" and $'…', and a backslash
 * or a $ right before it still waiting for its character.  The bytes are
 * read through the escapes of the JSON strings they are in first.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-redact.h"
#include "pd-redact-private.h"

/* How many leading bytes of quotes, backslashes and $ a value's mask may
 * leave in sight to find a part it can take (PGPASSWORD=\'Q7vLm …). */
#define LEAD_MAX 8

typedef enum { SH_NONE, SH_SINGLE, SH_DOUBLE, SH_ANSI } ShQuote;

typedef struct
{
  ShQuote  start;
  ShQuote  q;
  gboolean escape;   /* a backslash waits for its character */
  gboolean dollar;   /* an unquoted $ waits: $' and $" open a quote */
  gboolean broken;   /* a backtick: what the shell runs, never neutral */
} ShReader;

static void
sh_feed (ShReader *s,
         char      c)
{
  if (s->escape)
    {
      s->escape = FALSE;
      return;
    }
  if (s->dollar)
    {
      s->dollar = FALSE;
      if (c == '\'')
        {
          s->q = SH_ANSI;
          return;
        }
      if (c == '"')
        {
          s->q = SH_DOUBLE;
          return;
        }
    }
  switch (s->q)
    {
    case SH_NONE:
      if (c == '\\')
        s->escape = TRUE;
      else if (c == '\'')
        s->q = SH_SINGLE;
      else if (c == '"')
        s->q = SH_DOUBLE;
      else if (c == '$')
        s->dollar = TRUE;
      else if (c == '`')
        s->broken = TRUE;
      break;
    case SH_SINGLE:
      if (c == '\'')
        s->q = SH_NONE;
      break;
    case SH_DOUBLE:
      if (c == '\\')
        s->escape = TRUE;
      else if (c == '"')
        s->q = SH_NONE;
      else if (c == '`')
        s->broken = TRUE;
      break;
    case SH_ANSI:
      if (c == '\\')
        s->escape = TRUE;
      else if (c == '\'')
        s->q = SH_NONE;
      break;
    default:
      g_assert_not_reached ();
    }
}

static inline gboolean
sh_neutral (const ShReader *s)
{
  return !s->broken && !s->escape && !s->dollar && s->q == s->start;
}

/* One level of JSON string escapes read forward: \\ \" \/ \n \t \uXXXX…
 * (a code point below 0x80 is its character: \u0027 is a quote). */
typedef struct
{
  guint escape;  /* 0, 1 after a backslash, 2..5 in \uXXXX's digits */
  guint code;
} JsonEscapes;

/* Feeds @c; the character it completes in *@out, if any. */
static gboolean
json_feed (JsonEscapes *j,
           char        c,
           char       *out)
{
  if (j->escape == 0)
    {
      if (c == '\\')
        {
          j->escape = 1;
          return FALSE;
        }
      *out = c;
      return TRUE;
    }
  if (j->escape == 1)
    {
      j->escape = 0;
      switch (c)
        {
        case 'n': *out = '\n'; return TRUE;
        case 'r': *out = '\r'; return TRUE;
        case 't': *out = '\t'; return TRUE;
        case 'b': case 'f': *out = 'x'; return TRUE;
        case 'u': j->escape = 2; j->code = 0; return FALSE;
        default: *out = c; return TRUE;
        }
    }
  j->code = j->code * 16 + (g_ascii_isxdigit (c) ? (guint) g_ascii_xdigit_value (c) : 0);
  if (++j->escape < 6)
    return FALSE;
  j->escape = 0;
  *out = j->code < 0x80 ? (char) j->code : 'x';
  return TRUE;
}

/* The readers of the quotings a mask at @start must keep: every quoting,
 * and a backslash or a $ before @start still waiting (read raw: a JSON
 * escape's backslash counts too, which only asks for more). */
static guint
readers_init (ShReader       *s,
              const char     *t,
              gsize           start,
              PdRedactQuoting quoting)
{
  /* Not $'…' unseen: '''x''' there ends in '…', and a value's word
   * joined of quoted parts would never be masked. */
  static const ShQuote all[] = { SH_NONE, SH_SINGLE, SH_DOUBLE };
  guint n = 0;

  /* A value opened by a quote the scanner read is in that quoting, read
   * to the quote's mate: the part it is sure of. */
  if (quoting != QUOTING_NONE)
    {
      ShQuote q = quoting == QUOTING_SINGLE ? SH_SINGLE : quoting == QUOTING_DOUBLE ? SH_DOUBLE : SH_ANSI;

      s[n++] = (ShReader) { .start = q, .q = q };
      return n;
    }
  for (guint k = 0; k < G_N_ELEMENTS (all); k++)
    s[n++] = (ShReader) { .start = all[k], .q = all[k] };
  if (start > 0 && t[start - 1] == '\\')
    {
      s[n++] = (ShReader) { .start = SH_NONE, .q = SH_NONE, .escape = TRUE };
      s[n++] = (ShReader) { .start = SH_DOUBLE, .q = SH_DOUBLE, .escape = TRUE };
    }
  if (start > 0 && t[start - 1] == '$')
    s[n++] = (ShReader) { .start = SH_NONE, .q = SH_NONE, .dollar = TRUE };
  return n;
}

/* The end of the longest part of [@start, @end) from @start a mask may
 * take: @start when none. */
static gsize
neutral_end (const char     *t,
             gsize           start,
             gsize           end,
             guint           depth,
             PdRedactQuoting quoting)
{
  ShReader s[8];
  JsonEscapes j[JSON_DEPTH] = { { 0 } };
  guint n = readers_init (s, t, start, quoting);
  gsize last = start;

  for (gsize i = start; i < end; i++)
    {
      char c = t[i];
      gboolean done = TRUE;
      gboolean neutral = TRUE;

      for (guint d = 0; d < depth && done; d++)
        done = json_feed (&j[d], c, &c);
      if (!done)
        continue;
      for (guint k = 0; k < n; k++)
        {
          sh_feed (&s[k], c);
          neutral = neutral && sh_neutral (&s[k]);
        }
      if (neutral)
        last = i + 1;
    }
  return last;
}

gsize
_pd_redact_neutral_part (const char   *t,
                         const guint8 *depths,
                         gsize         start,
                         gsize         end,
                         gsize        *part_start)
{
  guint depth;
  PdRedactQuoting quoting = _pd_redact_value_quoting (t, depths, start, &depth);
  gsize e = neutral_end (t, start, end, depth, quoting);
  gsize s = start;

  if (e == start)
    {
      /* Leading quotes, backslashes and $ left in sight, the rest tried
       * once more. */
      while (s < end && s - start < LEAD_MAX && strchr ("\\'\"$", t[s]) != NULL)
        s++;
      e = s > start ? neutral_end (t, s, end, depth, QUOTING_NONE) : s;
      if (e == s)
        s = e = start;
    }
  *part_start = s;
  return e;
}
