/* pd-json-scan-private.h: the byte scans the JSON checker and the span
 * reader share, sixteen bytes at a time.
 *
 * A transcript line is mostly strings: keys of a few bytes and values of
 * kilobytes (file contents, command output).  Finding a string's end with
 * one memchr() for its quote and another for a backslash before it costs
 * two calls per string, which for the many short ones is most of the work;
 * one vector loop that stops at either byte is one pass with no call.  The
 * same for UTF-8: plain ASCII is passed over sixteen bytes at a time, and
 * only the runs of other bytes are validated, each on its own.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include <glib.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

G_BEGIN_DECLS

/* The first '"' or '\\' in [@p, @end), or @end. */
static inline const char *
pd_json_find_quote_or_backslash (const char *p,
                                 const char *end)
{
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8 ('"');
  const __m128i backslash = _mm_set1_epi8 ('\\');

  while (end - p >= 16)
    {
      __m128i v = _mm_loadu_si128 ((const __m128i *) p);
      int mask = _mm_movemask_epi8 (_mm_or_si128 (_mm_cmpeq_epi8 (v, quote), _mm_cmpeq_epi8 (v, backslash)));

      if (mask != 0)
        return p + __builtin_ctz ((unsigned) mask);
      p += 16;
    }
#else
  const guint64 ones = G_GUINT64_CONSTANT (0x0101010101010101);
  const guint64 high = G_GUINT64_CONSTANT (0x8080808080808080);

  while (end - p >= 8)
    {
      guint64 word, q, b;

      memcpy (&word, p, 8);
      q = word ^ (ones * '"');
      b = word ^ (ones * '\\');
      /* A zero byte in either: one of the two is there. */
      if ((((q - ones) & ~q) | ((b - ones) & ~b)) & high)
        break;
      p += 8;
    }
#endif
  while (p < end && *p != '"' && *p != '\\')
    p++;
  return p;
}

/* The first byte in [@p, @end) that is no JSON white space (space, tab,
 * newline, carriage return), or @end.  A run of one or two (a compact
 * line's ", ") ends in the first loop; the indentation of a pretty-printed
 * document is passed over sixteen bytes at a time. */
static inline const char *
pd_json_skip_ws_run (const char *p,
                     const char *end)
{
  for (guint i = 0; i < 2; i++, p++)
    if (p >= end || (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r'))
      return p;
#if defined(__SSE2__)
  {
    const __m128i space = _mm_set1_epi8 (' ');
    const __m128i tab = _mm_set1_epi8 ('\t');
    const __m128i newline = _mm_set1_epi8 ('\n');
    const __m128i cr = _mm_set1_epi8 ('\r');

    while (end - p >= 16)
      {
        __m128i v = _mm_loadu_si128 ((const __m128i *) p);
        __m128i ws = _mm_or_si128 (_mm_or_si128 (_mm_cmpeq_epi8 (v, space), _mm_cmpeq_epi8 (v, tab)),
                                   _mm_or_si128 (_mm_cmpeq_epi8 (v, newline), _mm_cmpeq_epi8 (v, cr)));
        unsigned other = ~(unsigned) _mm_movemask_epi8 (ws) & 0xffff;

        if (other != 0)
          return p + __builtin_ctz (other);
        p += 16;
      }
  }
#endif
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
    p++;
  return p;
}

/* The number of ASCII digits at @p (at most 16), looked at sixteen bytes
 * at once when as many are there; -1 when fewer than sixteen bytes are
 * left (the caller counts them one at a time). */
static inline int
pd_json_count_digits16 (const char *p,
                        const char *end)
{
#if defined(__SSE2__)
  if (end - p >= 16)
    {
      __m128i v = _mm_loadu_si128 ((const __m128i *) p);
      /* Signed compares: a byte of 0x80 or more is below '0' too. */
      __m128i other = _mm_or_si128 (_mm_cmplt_epi8 (v, _mm_set1_epi8 ('0')),
                                    _mm_cmpgt_epi8 (v, _mm_set1_epi8 ('9')));
      unsigned mask = (unsigned) _mm_movemask_epi8 (other) | 0x10000;

      return __builtin_ctz (mask);
    }
#endif
  (void) p;
  (void) end;
  return -1;
}

/* The first byte in [@p, @end) that is not plain ASCII (a byte of 0x80 or
 * more) or is a NUL, or @end. */
static inline const char *
pd_json_find_not_ascii (const char *p,
                        const char *end)
{
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128 ();

  while (end - p >= 16)
    {
      __m128i v = _mm_loadu_si128 ((const __m128i *) p);
      int mask = _mm_movemask_epi8 (v) | _mm_movemask_epi8 (_mm_cmpeq_epi8 (v, zero));

      if (mask != 0)
        return p + __builtin_ctz ((unsigned) mask);
      p += 16;
    }
#else
  const guint64 ones = G_GUINT64_CONSTANT (0x0101010101010101);
  const guint64 high = G_GUINT64_CONSTANT (0x8080808080808080);

  while (end - p >= 8)
    {
      guint64 word;

      memcpy (&word, p, 8);
      if ((word & high) != 0 || ((word - ones) & ~word & high) != 0)
        break;
      p += 8;
    }
#endif
  while (p < end && *p != '\0' && (guchar) *p < 0x80)
    p++;
  return p;
}

/* g_utf8_validate_len() (which refuses NUL bytes too) on @text, the ASCII
 * passed over by pd_json_find_not_ascii() and each run of other bytes
 * validated on its own.  The same answer: a well-formed sequence is all
 * bytes of 0x80 or more after its first, so none spans an ASCII byte, and
 * one cut short by one is invalid either way. */
static inline gboolean
pd_json_utf8_validate (const char *text,
                       gsize       length)
{
  const char *p = text;
  const char *end = text + length;

  for (;;)
    {
      const char *run;

      p = pd_json_find_not_ascii (p, end);
      if (p >= end)
        return TRUE;
      if (*p == '\0')
        return FALSE;
      run = p;
      while (p < end && (guchar) *p >= 0x80)
        p++;
      if (!g_utf8_validate_len (run, (gsize) (p - run), NULL))
        return FALSE;
    }
}

G_END_DECLS
