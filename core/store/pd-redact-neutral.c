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

/* The shell's reading at each byte of the text, for the last guard on a
 * mask (_pd_redact_mask_keeps_reading()): what bash reads the byte in,
 * once the bytes before it are read. */
enum
{
  RD_UNQUOTED, RD_SINGLE, RD_DOUBLE, RD_ANSI, RD_COMMENT, RD_MODE = 7,
  RD_ESCAPE = 8,      /* a backslash waits for its character */
  RD_WORD_START = 16, /* unquoted, where a word starts: # opens a comment */
  RD_DOLLAR = 32,     /* an unquoted $ waits: $' opens $'…' */
  RD_UNKNOWN = 0xff,  /* inside a JSON escape, or held too deep to read */
  RD_START = RD_UNQUOTED | RD_WORD_START,
};

static guint8
read_step (guint8 s,
           char   c)
{
  guint mode = s & RD_MODE;

  if (s & RD_ESCAPE)
    return c == '\n' ? s & ~RD_ESCAPE : mode;  /* a line continuation is taken out */
  switch (mode)
    {
    case RD_COMMENT:
      return c == '\n' ? RD_START : s;
    case RD_SINGLE:
      return c == '\'' ? RD_UNQUOTED : s;
    case RD_DOUBLE:
    case RD_ANSI:
      if (c == '\\')
        return s | RD_ESCAPE;
      return c == (mode == RD_DOUBLE ? '"' : '\'') ? RD_UNQUOTED : s;
    default:
      if (c == '#' && (s & RD_WORD_START))
        return RD_COMMENT;
      if (c == '\\')
        return RD_ESCAPE | (s & RD_WORD_START);
      if (c == '\'')
        return s & RD_DOLLAR ? RD_ANSI : RD_SINGLE;
      if (c == '"')
        return RD_DOUBLE;
      if (c == '$')
        return RD_DOLLAR;
      return c != '\0' && strchr (" \t\r\n;&|()<>", c) != NULL ? RD_START : RD_UNQUOTED;
    }
}

/* The character a JSON escape at @p (in a string of depth 1) stands for,
 * its length in *@len. */
static char
json_escaped_char (const char *p,
                   gsize       avail,
                   gsize      *len)
{
  *len = MIN (avail, 2);
  if (avail < 2)
    return 'x';
  switch (p[1])
    {
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case '"': return '"';
    case '\\': return '\\';
    case '/': return '/';
    case 'u':
      if (avail >= 6 && g_ascii_isxdigit (p[2]) && g_ascii_isxdigit (p[3])
          && g_ascii_isxdigit (p[4]) && g_ascii_isxdigit (p[5]))
        {
          guint v = g_ascii_xdigit_value (p[2]) << 12 | g_ascii_xdigit_value (p[3]) << 8
                    | g_ascii_xdigit_value (p[4]) << 4 | g_ascii_xdigit_value (p[5]);

          *len = 6;
          return v > 0 && v < 0x80 ? (char) v : 'x';
        }
      return 'x';
    default:
      return 'x';
    }
}

guint8 *
_pd_redact_reading_states (const char   *t,
                           gsize         len,
                           const guint8 *depths)
{
  guint8 *states = g_malloc (len + 1);
  guint8 s = RD_START;
  guint prev_depth = 0;
  /* Held two or more deep, a string's bytes are read through the escapes
   * of each string it is in (dec[0] the outermost's), a character at a
   * time: its first byte has the reading before it, the others none. */
  JsonEscapes dec[JSON_DEPTH] = { { 0 } };
  gsize first = G_MAXSIZE;
  guint8 before = RD_START;

  for (gsize k = 0; k < len; )
    {
      guint depth = _pd_redact_depth_at (depths, k);
      gboolean opens = depths != NULL && (depths[k] & JSON_OPENS);
      char c = t[k];
      gsize w = 1;
      gboolean ended = depth < prev_depth;

      /* Each JSON string is a text of its own (a command): read from its
       * start, and what its end leaves is the reading there. */
      if (depth > prev_depth || opens)
        s = RD_START;
      states[k] = first != G_MAXSIZE ? RD_UNKNOWN : s;
      if (depth != prev_depth || opens)
        {
          memset (dec, 0, sizeof dec);
          first = G_MAXSIZE;
        }
      if (ended)
        s = RD_START;
      prev_depth = depth;
      if (depth > 1)
        {
          gboolean starts = first == G_MAXSIZE;
          gboolean complete = TRUE;
          char c1 = c;

          if (starts)
            {
              first = k;
              before = s;
            }
          for (guint d = 0; d + 1 < depth && complete; d++)
            complete = json_feed (&dec[d], c1, &c1);
          if (complete && dec[depth - 1].escape == 0 && c1 == '"')
            s = RD_START;  /* the string's own quote */
          else if (complete && json_feed (&dec[depth - 1], c1, &c1))
            s = read_step (s, c1);
          else
            complete = FALSE;
          /* Where a string ends, the reading it leaves (set above). */
          if (!ended)
            states[k] = starts ? before : RD_UNKNOWN;
          if (complete)
            first = G_MAXSIZE;
          k++;
          continue;
        }
      if (depth == 1 && c == '"')
        s = RD_START;  /* the string's own quote */
      else
        {
          if (depth == 1 && c == '\\')
            c = json_escaped_char (t + k, len - k, &w);
          s = read_step (s, c);
        }
      for (gsize j = 1; j < w; j++)
        states[k + j] = RD_UNKNOWN;
      k += w;
    }
  states[len] = first != G_MAXSIZE ? RD_UNKNOWN : s;
  return states;
}

gboolean
_pd_redact_reading_unquoted (const guint8 *states,
                             gsize         k)
{
  return states[k] != RD_UNKNOWN && (states[k] & (RD_MODE | RD_ESCAPE)) == RD_UNQUOTED;
}

gboolean
_pd_redact_reading_single_quoted (const guint8 *states,
                                  gsize         k)
{
  return states[k] != RD_UNKNOWN && (states[k] & (RD_MODE | RD_ESCAPE)) == RD_SINGLE;
}

gsize
_pd_redact_reading_joins_line (const guint8 *states,
                               const guint8 *depths,
                               const char   *t,
                               gsize         len,
                               gsize         k)
{
  guint depth = _pd_redact_depth_at (depths, k);
  guint8 s = states[k];
  gsize n;

  if (depth == 0 && k + 1 < len && t[k] == '\\' && t[k + 1] == '\n')
    n = 2;
  else if (depth == 1 && k + 3 < len && memcmp (t + k, "\\\\\\n", 4) == 0
           && _pd_redact_depth_at (depths, k + 3) == 1)
    n = 4;
  else
    return 0;
  if (s == RD_UNKNOWN || (s & RD_ESCAPE))
    return 0;
  return (s & RD_MODE) == RD_UNQUOTED || (s & RD_MODE) == RD_DOUBLE ? n : 0;
}

gboolean
_pd_redact_mask_keeps_reading (const guint8 *states,
                               const guint8 *depths,
                               gsize         start,
                               gsize         end)
{
  guint depth = _pd_redact_depth_at (depths, start);
  guint8 s = states[start];

  /* Across strings: the reading of neither is known to be kept. */
  if (depth != _pd_redact_depth_at (depths, end - 1))
    return FALSE;
  if (s == RD_UNKNOWN || states[end] == RD_UNKNOWN)
    return FALSE;
  for (const char *p = PD_REDACTED; *p; p++)
    s = read_step (s, *p);
  /* [REDACTED] ends its character, so what follows it is read in a word:
   * what the range left must be read the same. */
  return s == states[end];
}
