/* pd-needles.c: several needles found in one pass over a line, the
 * prefilter every JSON lines reader runs on every line before any JSON
 * work (declared in pd-import-private.h).
 *
 * Each needle is found by a window of three of its bytes (two for a needle
 * of two bytes) and put in one of eight buckets.  The scan tests thirty-two
 * positions at a time (sixteen without AVX2) for "the three bytes here could
 * be some bucket's window", by nibbles looked up in shuffle tables (the
 * Teddy method of Hyperscan): six look-ups and a few ANDs per block,
 * however many needles; and only at the rare positions that pass are the
 * needles of the buckets named compared whole.
 *
 * What makes it fast is windows that are rare in a transcript.  A reader
 * that knows its lines names them (_pd_needles_new_chosen()): for Claude
 * Code, "doW" of "TodoWrite" or "p\":" of "timestamp": — where a window of
 * a quote and a lower-case letter ("\"t", in every "type" and "text") passed
 * thousands of times per megabyte.  _pd_needles_new() takes the window at
 * the first byte that is no letter or digit, as before.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-import-private.h"

#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
#define PD_NEEDLES_X86 1
#include <immintrin.h>
#endif

#define N_BUCKETS 8
#define WINDOW    3

struct _PdNeedles
{
  /* For byte j of a window: the buckets whose window may have a byte with
   * this low (lo) or high (hi) nibble there, twice over (for both lanes of
   * an AVX2 register). */
  guint8      lo[WINDOW][32];
  guint8      hi[WINDOW][32];
  /* The same for the positions after the last block, by whole byte. */
  guint8      by_byte[WINDOW][256];
#ifdef PD_NEEDLES_X86
  gboolean    avx2;
  gboolean    ssse3;
#endif
  guint       n;
  gsize       min_length;
  guint32     in_bucket[N_BUCKETS];     /* the needles of each bucket */
  const char *needles[PD_NEEDLES_MAX];
  gsize       lengths[PD_NEEDLES_MAX];
  gsize       windows[PD_NEEDLES_MAX];  /* where in the needle its window starts */
};

/* The first byte that is no letter or digit (a quote, an underscore),
 * where such a window is rarer than in the words around it. */
static guint
default_window (const char *needle,
                gsize       length)
{
  gsize k;

  for (k = 0; k + 1 < length; k++)
    if (!g_ascii_isalnum (needle[k]))
      break;
  if (k + 1 >= length)
    k = 0;
  return (guint) MIN (k, length >= WINDOW ? length - WINDOW : 0);
}

static void
add_window_byte (PdNeedles *self,
                 guint      j,
                 guint      bucket,
                 int        byte)   /* -1: any byte */
{
  guint8 bit = (guint8) (1u << bucket);

  for (guint b = 0; b < 256; b++)
    if (byte < 0 || (int) b == byte)
      {
        self->by_byte[j][b] |= bit;
        self->lo[j][b & 0xf] |= bit;
        self->lo[j][16 + (b & 0xf)] |= bit;
        self->hi[j][b >> 4] |= bit;
        self->hi[j][16 + (b >> 4)] |= bit;
      }
}

/**
 * _pd_needles_new_chosen:
 * @needles: the needles, each with its window and bucket, ended by one
 *   whose text is %NULL
 *
 * Returns: (transfer full): the needles compiled for _pd_needles_scan()
 */
PdNeedles *
_pd_needles_new_chosen (const PdNeedle *needles)
{
  /* Aligned for the vectors inside. */
  PdNeedles *self = g_aligned_alloc0 (1, sizeof (PdNeedles), 64);

  self->min_length = G_MAXSIZE;
  for (guint i = 0; needles[i].text != NULL; i++)
    {
      const char *text = needles[i].text;
      gsize length = strlen (text);
      guint bucket = needles[i].bucket % N_BUCKETS;
      gsize at = needles[i].window;

      g_return_val_if_fail (i < PD_NEEDLES_MAX, self);
      g_return_val_if_fail (length >= 2, self);
      if (at + MIN (length, WINDOW) > length)
        at = length - MIN (length, WINDOW);

      self->needles[i] = text;
      self->lengths[i] = length;
      self->windows[i] = at;
      self->in_bucket[bucket] |= 1u << i;
      for (guint j = 0; j < WINDOW; j++)
        add_window_byte (self, j, bucket, at + j < length ? (guchar) text[at + j] : -1);
      self->min_length = MIN (self->min_length, length);
      self->n = i + 1;
    }
#ifdef PD_NEEDLES_X86
  self->avx2 = __builtin_cpu_supports ("avx2");
  self->ssse3 = __builtin_cpu_supports ("ssse3");
#endif
  return self;
}

PdNeedles *
_pd_needles_new (const char * const *needles)
{
  PdNeedle chosen[PD_NEEDLES_MAX + 1] = { { NULL, 0, 0 } };
  guint n;

  for (n = 0; needles[n] != NULL; n++)
    {
      g_return_val_if_fail (n < PD_NEEDLES_MAX, NULL);
      chosen[n].text = needles[n];
      chosen[n].window = (guint8) default_window (needles[n], strlen (needles[n]));
      chosen[n].bucket = (guint8) (n % N_BUCKETS);
    }
  return _pd_needles_new_chosen (chosen);
}

void
_pd_needles_free (PdNeedles *self)
{
  g_aligned_free (self);
}

/* The needles of @buckets whose window may start at @pos: each compared
 * whole, and noted with where it starts. */
static inline guint32
check_window (const PdNeedles  *self,
              const char       *line,
              gsize             length,
              gsize             pos,
              guint             buckets,
              guint32           found,
              const char      **first)
{
  for (; buckets != 0; buckets &= buckets - 1)
    {
      guint32 candidates = self->in_bucket[__builtin_ctz (buckets)] & ~found;

      for (; candidates != 0; candidates &= candidates - 1)
        {
          guint i = (guint) __builtin_ctz (candidates);
          gsize start;

          if (pos < self->windows[i])
            continue;
          start = pos - self->windows[i];
          if (self->lengths[i] <= length - start && memcmp (line + start, self->needles[i], self->lengths[i]) == 0)
            {
              found |= 1u << i;
              if (first)
                first[i] = line + start;
            }
        }
    }
  return found;
}

#ifdef PD_NEEDLES_X86
/* The buckets whose window's byte j may be each byte of @v. */
__attribute__ ((target ("avx2")))
static inline __m256i
match_avx2 (const PdNeedles *self,
            guint            j,
            __m256i          v)
{
  const __m256i low = _mm256_set1_epi8 (0x0f);
  __m256i lo = _mm256_and_si256 (v, low);
  __m256i hi = _mm256_and_si256 (_mm256_srli_epi16 (v, 4), low);

  return _mm256_and_si256 (_mm256_shuffle_epi8 (_mm256_load_si256 ((const __m256i *) self->lo[j]), lo),
                           _mm256_shuffle_epi8 (_mm256_load_si256 ((const __m256i *) self->hi[j]), hi));
}

/* Thirty-two window starts a block; returns where it stopped. */
__attribute__ ((target ("avx2")))
static gsize
scan_avx2 (const PdNeedles  *self,
           const char       *line,
           gsize             length,
           gsize             pos,
           guint32          *found,
           const char      **first)
{
  for (; pos + 32 + WINDOW - 1 <= length; pos += 32)
    {
      __m256i m = _mm256_and_si256 (match_avx2 (self, 0, _mm256_loadu_si256 ((const __m256i *) (line + pos))),
                                    match_avx2 (self, 1, _mm256_loadu_si256 ((const __m256i *) (line + pos + 1))));
      guint32 mask;

      m = _mm256_and_si256 (m, match_avx2 (self, 2, _mm256_loadu_si256 ((const __m256i *) (line + pos + 2))));
      mask = ~(guint32) _mm256_movemask_epi8 (_mm256_cmpeq_epi8 (m, _mm256_setzero_si256 ()));
      if (mask != 0)
        {
          guint8 buckets[32];

          _mm256_storeu_si256 ((__m256i *) buckets, m);
          for (; mask != 0; mask &= mask - 1)
            {
              guint k = (guint) __builtin_ctz (mask);

              *found = check_window (self, line, length, pos + k, buckets[k], *found, first);
            }
        }
    }
  return pos;
}

__attribute__ ((target ("ssse3")))
static inline __m128i
match_ssse3 (const PdNeedles *self,
             guint            j,
             __m128i          v)
{
  const __m128i low = _mm_set1_epi8 (0x0f);
  __m128i lo = _mm_and_si128 (v, low);
  __m128i hi = _mm_and_si128 (_mm_srli_epi16 (v, 4), low);

  return _mm_and_si128 (_mm_shuffle_epi8 (_mm_load_si128 ((const __m128i *) self->lo[j]), lo),
                        _mm_shuffle_epi8 (_mm_load_si128 ((const __m128i *) self->hi[j]), hi));
}

/* The same sixteen at a time, for a processor without AVX2. */
__attribute__ ((target ("ssse3")))
static gsize
scan_ssse3 (const PdNeedles  *self,
            const char       *line,
            gsize             length,
            gsize             pos,
            guint32          *found,
            const char      **first)
{
  for (; pos + 16 + WINDOW - 1 <= length; pos += 16)
    {
      __m128i m = _mm_and_si128 (match_ssse3 (self, 0, _mm_loadu_si128 ((const __m128i *) (line + pos))),
                                 match_ssse3 (self, 1, _mm_loadu_si128 ((const __m128i *) (line + pos + 1))));
      guint mask;

      m = _mm_and_si128 (m, match_ssse3 (self, 2, _mm_loadu_si128 ((const __m128i *) (line + pos + 2))));
      mask = ~(guint) _mm_movemask_epi8 (_mm_cmpeq_epi8 (m, _mm_setzero_si128 ())) & 0xffffu;
      if (mask != 0)
        {
          guint8 buckets[16];

          _mm_storeu_si128 ((__m128i *) buckets, m);
          for (; mask != 0; mask &= mask - 1)
            {
              guint k = (guint) __builtin_ctz (mask);

              *found = check_window (self, line, length, pos + k, buckets[k], *found, first);
            }
        }
    }
  return pos;
}
#endif

guint32
_pd_needles_scan (const PdNeedles  *self,
                  const char       *line,
                  gsize             length,
                  const char      **first)
{
  guint32 found = 0;
  gsize pos = 0;

  if (self->n == 0 || length < self->min_length)
    return 0;

#ifdef PD_NEEDLES_X86
  if (self->avx2)
    pos = scan_avx2 (self, line, length, pos, &found, first);
  if (self->ssse3)
    pos = scan_ssse3 (self, line, length, pos, &found, first);
#endif

  /* What is left, a position at a time; a window past the end of the line
   * is read as far as the line goes (a needle of two bytes, or a needle
   * whose window ends the line, is compared whole anyway). */
  for (; pos < length; pos++)
    {
      guint buckets = self->by_byte[0][(guchar) line[pos]];

      if (buckets != 0 && pos + 1 < length)
        buckets &= self->by_byte[1][(guchar) line[pos + 1]];
      if (buckets != 0 && pos + 2 < length)
        buckets &= self->by_byte[2][(guchar) line[pos + 2]];
      if (buckets != 0)
        found = check_window (self, line, length, pos, buckets, found, first);
    }
  return found;
}
