/* pd-tool-look-alike.c: what a call's text draws as another text than it
 * is, for a person asked to approve it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A person reads a command by its glyphs; bash, curl and the file system
 * by its code points.  Where they differ the preview shows an escape
 * (\u0430) and the question is asked with controls' friction.  Rules, not
 * a list of attacks (each round's list was passed by the next script:
 * Armenian օ, Cherokee Ꭺ, fullwidth ｒｍ, 𝐠, ʀ, ＃ — tried as an attacker
 * would):
 * - a run of letters (digits, marks and letters of no script go with
 *   their neighbours) holding letters of two scripts: `p\u0430ypal`,
 *   `h\u0585me`, `\u0261oogle` (IPA letters, small capitals and the like
 *   count as a script of their own);
 * - a run that is all letters drawn as Latin ones (`\u0430\u0440\u0440
 *   \u04cf\u0435` of аррӏе.com, the а of /tmp/а, a run of Cherokee or
 *   Lisu) in a word holding Latin letters too; Russian or Greek prose with
 *   a Latin word joined by a hyphen (`CI-пайплайн`) reads as it is;
 * - a decimal digit of another script (Tamil ௦, Devanagari ०) in a run
 *   with Latin letters or ASCII digits, or alone in a word with them:
 *   `micros\u0be6ft.com`, `10.0.0.\u0be6`;
 * - a character whose compatibility form (NFKC) is other ASCII: ｒｍ, ＃,
 *   𝐠, K (Kelvin), ᴹ;
 * - a short set of shell signs NFKC keeps: quotes (″ ‶ ״ 〃 too),
 *   slashes, bars, hyphens, dashes, a minus sign, ♯ and ⌗ (a comment's
 *   #) — and Chinese or Japanese prose keeps its fullwidth commas,
 *   colons, brackets, ！ and ？ in a word with its letters (its ； beside
 *   one), an English one its apostrophe, an en or em dash in a word or
 *   before a blank its look.
 */
#define G_LOG_DOMAIN "pd-tools"

#include "config.h"

#include <stdlib.h>

#include "pd-safe-text.h"
#include "pd-tool-private.h"

/* Classes of letters: a GUnicodeScript, or one of these. */
#define CLASS_NONE     (-1)  /* Common, Inherited, Unknown: goes with its neighbours */
#define CLASS_PHONETIC (-2)  /* Latin drawn another way: IPA, small capitals */
#define CLASS_CJK      (-3)  /* Han, kana, Hangul, Bopomofo: written beside Latin */

/* Letters of Cyrillic, Greek and Armenian drawn as a Latin one (as
 * Unicode's confusables have them), in order.  A run of them only reads
 * as Latin; a Russian or Greek word holds others. */
static const gunichar latin_shaped[] = {
  0x0391, 0x0392, 0x0395, 0x0396, 0x0397, 0x0399, 0x039A, 0x039C, 0x039D, 0x039F,
  0x03A1, 0x03A4, 0x03A5, 0x03A7, 0x03B1, 0x03B9, 0x03BA, 0x03BD, 0x03BF, 0x03C1,
  0x03C5, 0x03C7, 0x03F2, 0x03F3, 0x03F9,
  0x0405, 0x0406, 0x0408, 0x0410, 0x0412, 0x0415, 0x041A, 0x041C, 0x041D, 0x041E,
  0x0420, 0x0421, 0x0422, 0x0425, 0x0430, 0x0435, 0x043E, 0x0440, 0x0441, 0x0443,
  0x0445, 0x0455, 0x0456, 0x0458, 0x0475, 0x04AE, 0x04AF, 0x04BA, 0x04BB, 0x04C0,
  0x04CF, 0x0501, 0x051A, 0x051B, 0x051C, 0x051D,
  0x054D, 0x0555, 0x0561, 0x0563, 0x0566, 0x0570, 0x0578, 0x057D, 0x0581, 0x0585,
};

/* Signs of the shell NFKC leaves as they are, and what they are drawn as. */
static const gunichar shell_shaped[] = {
  0x00B4,                                           /* ´ a quote */
  0x01C0, 0x01C3,                                   /* ǀ ǃ | ! */
  0x02B9, 0x02BA, 0x02BB, 0x02BC, 0x02C2, 0x02C3,   /* ʹ ʺ ʻ ʼ ˂ ˃ */
  0x02C8, 0x02CB, 0x02D7, 0x02DC,                   /* ˈ ˋ ˗ ˜ */
  0x05C0, 0x05F4,                                   /* ׀ | ״ a quote */
  0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015,   /* dashes */
  0x2018, 0x2019, 0x201A, 0x201B, 0x201C, 0x201D, 0x201E, 0x201F,  /* quotes */
  0x2032, 0x2033, 0x2035, 0x2036,                   /* ′ ″ ‵ ‶ quotes */
  0x2039, 0x203A, 0x2043, 0x2044,                   /* ‹ › ⁃ ⁄ */
  0x204E, 0x2053, 0x2212, 0x2215, 0x2216, 0x2217,   /* ⁎ ⁓ − ∕ ∖ ∗ */
  0x2223, 0x2236, 0x223C, 0x2317, 0x23D0,           /* ∣ ∶ ∼ ⌗ (a #) ⏐ */
  0x2571, 0x266F, 0x2758,                           /* ╱ ♯ (a #) ❘ */
  0x29F5, 0x29F8, 0x2E3A, 0x2E3B, 0x3003, 0xA789,   /* ⧵ ⧸ ⸺ ⸻ 〃 ꞉ */
};

static int
compare_unichar (const void *a,
                 const void *b)
{
  gunichar x = *(const gunichar *) a, y = *(const gunichar *) b;

  return x < y ? -1 : x > y;
}

static gboolean
in_set (const gunichar *set,
        gsize           n,
        gunichar        c)
{
  return bsearch (&c, set, n, sizeof (gunichar), compare_unichar) != NULL;
}

/* Letters of IPA and the phonetic blocks written in living alphabets
 * (Ewe, Twi, Azerbaijani…), in order: not another way to draw a Latin
 * letter, but letters of their own. */
static const gunichar phonetic_alphabet[] = {
  0x0253, 0x0254, 0x0256, 0x0257, 0x0259, 0x025B, 0x0263, 0x0268, 0x0269, 0x0272,
  0x0283, 0x028A, 0x028B, 0x0292, 0x0294,
};

static int
letter_class (gunichar c)
{
  GUnicodeScript script = g_unichar_get_script (c);

  switch ((int) script)
    {
    case G_UNICODE_SCRIPT_COMMON:
    case G_UNICODE_SCRIPT_INHERITED:
    case G_UNICODE_SCRIPT_UNKNOWN:
    case G_UNICODE_SCRIPT_INVALID_CODE:
      return CLASS_NONE;
    case G_UNICODE_SCRIPT_HAN:
    case G_UNICODE_SCRIPT_HIRAGANA:
    case G_UNICODE_SCRIPT_KATAKANA:
    case G_UNICODE_SCRIPT_HANGUL:
    case G_UNICODE_SCRIPT_BOPOMOFO:
      return CLASS_CJK;
    case G_UNICODE_SCRIPT_LATIN:
      if (((c >= 0x0250 && c <= 0x02AF) || (c >= 0x1D00 && c <= 0x1DBF)) &&
          !in_set (phonetic_alphabet, G_N_ELEMENTS (phonetic_alphabet), c))
        return CLASS_PHONETIC;
      return script;
    default:
      return script;
    }
}

/* Whether a run of letters of @class only (not Latin) reads as Latin:
 * @c is one of its letters. */
static gboolean
is_latin_shaped (int      class,
                 gunichar c)
{
  switch (class)
    {
    case CLASS_PHONETIC:
    case G_UNICODE_SCRIPT_CHEROKEE:
    case G_UNICODE_SCRIPT_COPTIC:
    case G_UNICODE_SCRIPT_LISU:
    case G_UNICODE_SCRIPT_VAI:
    case G_UNICODE_SCRIPT_OSAGE:
    case G_UNICODE_SCRIPT_CANADIAN_ABORIGINAL:
    case G_UNICODE_SCRIPT_OLD_ITALIC:
      /* scripts whose letters are Latin's, or drawn as them */
      return TRUE;
    case G_UNICODE_SCRIPT_CYRILLIC:
    case G_UNICODE_SCRIPT_GREEK:
    case G_UNICODE_SCRIPT_ARMENIAN:
      return in_set (latin_shaped, G_N_ELEMENTS (latin_shaped), c);
    default:
      return FALSE;
    }
}

static gboolean
in_run (gunichar c)
{
  return g_unichar_isalnum (c) || g_unichar_ismark (c) || c == 0x200C || c == 0x200D;
}

static gboolean
is_cjk (gunichar c)
{
  return c != 0 && g_unichar_isalpha (c) && letter_class (c) == CLASS_CJK;
}

static gboolean
is_blank_or_end (gunichar c)
{
  return c == 0 || g_unichar_isspace (c);
}

/* Whether @c may have a compatibility form in ASCII: in a block that has
 * such forms (Latin-1's symbols, modifier letters, letterlike symbols,
 * enclosed and fullwidth forms, mathematical letters…).  A filter for
 * speed, before the decomposition's lookup: a Russian or Chinese text
 * looked each letter up in vain (/pd/approver/look-alike-every-ascii-form
 * checks it against every code point). */
static gboolean
may_fold_to_ascii (gunichar c)
{
  return c <= 0x03FF || (c >= 0x1D2C && c <= 0x1DBF) || (c >= 0x1FEF && c <= 0x24FF) ||
         (c >= 0x2A74 && c <= 0x2C7D) || c == 0x3000 || (c >= 0x3250 && c <= 0x33FF) ||
         (c >= 0xA7F2 && c <= 0xA7F4) || (c >= 0xFB00 && c <= 0xFB29) ||
         (c >= 0xFE10 && c <= 0xFF5E) || (c >= 0x10780 && c <= 0x107BA) ||
         (c >= 0x1D400 && c <= 0x1D7FF) || (c >= 0x1F100 && c <= 0x1F1FF) ||
         (c >= 0x1FBF0 && c <= 0x1FBF9);
}

/* Whether @c, between @before and @after, is drawn as ASCII it is not:
 * its compatibility form is ASCII, or it is a shell sign NFKC keeps. */
static gboolean
is_ascii_shaped (gunichar before,
                 gunichar c,
                 gunichar after)
{
  gunichar folded[G_UNICHAR_MAX_DECOMPOSITION_LENGTH];
  gsize n;

  if ((c == 0x00B4 || (c >= 0x01C0 && c <= 0x02DC) || c == 0x05C0 || c == 0x05F4 ||
       (c >= 0x2010 && c <= 0x2E3B) || c == 0x3003 || c == 0xA789) && in_set (shell_shaped, G_N_ELEMENTS (shell_shaped), c))
    {
      /* An apostrophe in a word (don’t) opens and closes nothing. */
      if ((c == 0x2019 || c == 0x02BC) && before != 0 && after != 0 &&
          g_unichar_isalpha (before) && g_unichar_isalpha (after))
        return FALSE;
      /* A dash longer than a hyphen in a word (2019–2020) or before a
       * blank (prose's " — ") is no option: one that starts a word
       * (`–rf`, `—force`) is.  A hyphen or minus sign is drawn as `-`
       * anywhere: `github.com/x/attacker‐repo` names another repository
       * (tried as an attacker would). */
      if ((c >= 0x2013 && c <= 0x2015) || c == 0x2E3A || c == 0x2E3B)
        return !(before != 0 && g_unichar_isalnum (before)) && !is_blank_or_end (after);
      return TRUE;
    }
  /* The NFKC form of one character is ASCII just when its full
   * compatibility decomposition (NFKD) is: ASCII composes with nothing.
   * One lookup, where g_utf8_normalize() allocated. */
  if (!may_fold_to_ascii (c))
    return FALSE;
  n = g_unichar_fully_decompose (c, TRUE, folded, G_N_ELEMENTS (folded));
  if (n == 0 || (n == 1 && folded[0] == c))
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (folded[i] >= 0x80)
      return FALSE;
  /* Chinese and Japanese prose writes its commas, colons and brackets
   * fullwidth: beside a Han or kana letter they are its punctuation.
   * Quotes, #, $, &, | and the rest are escaped wherever they are. */
  if ((c == 0xFF01 || c == 0xFF08 || c == 0xFF09 || c == 0xFF0C || c == 0xFF1A ||
       c == 0xFF1B || c == 0xFF1F) && (is_cjk (before) || is_cjk (after)))
    return FALSE;
  return TRUE;
}

/* Reads the word (up to blanks) around @p into @state, once. */
static void
read_word (PdToolLookAlike *state,
           const char      *text,
           const char      *p,
           const char      *end)
{
  const char *wfloor = state->word_end != NULL && state->word_end > text ? state->word_end : text;
  const char *start = p, *q;
  gboolean latin = FALSE, ascii = FALSE, cjk = FALSE;

  if (state->word_end != NULL && p < state->word_end)
    return;
  while (start > wfloor)
    {
      const char *prev = g_utf8_find_prev_char (wfloor, start);

      if (prev == NULL || g_unichar_isspace (g_utf8_get_char (prev)))
        break;
      start = prev;
    }
  for (q = start; q < end; q = g_utf8_next_char (q))
    {
      gunichar d = g_utf8_get_char (q);

      if (g_unichar_isspace (d))
        break;
      latin = latin || (g_unichar_isalpha (d) && letter_class (d) == G_UNICODE_SCRIPT_LATIN);
      ascii = ascii || (d >= '0' && d <= '9');
      cjk = cjk || is_cjk (d);
    }
  state->word_end = q;
  state->word_latin = latin;
  state->word_ascii = latin || ascii;
  state->word_cjk = cjk;
}

/* Reads the run of letters around @p, from no earlier than @floor, into
 * @state; reads its word (up to blanks) when the run may read as Latin. */
static void
read_run (PdToolLookAlike *state,
          const char      *text,
          const char      *p,
          const char      *end)
{
  const char *floor = state->run_end != NULL && state->run_end > text ? state->run_end : text;
  const char *start = p, *q;
  int one = CLASS_NONE;
  gboolean mixed = FALSE, shaped = TRUE, latin = FALSE, letters = FALSE;

  while (start > floor)
    {
      const char *prev = g_utf8_find_prev_char (floor, start);

      if (prev == NULL || !in_run (g_utf8_get_char (prev)))
        break;
      start = prev;
    }
  for (q = start; q < end; q = g_utf8_next_char (q))
    {
      gunichar d = g_utf8_get_char (q);
      int class;

      if (!in_run (d))
        break;
      latin = latin || (d >= '0' && d <= '9');
      if (!g_unichar_isalpha (d))
        continue;
      letters = TRUE;
      if ((class = letter_class (d)) == CLASS_NONE)
        continue;
      latin = latin || class == G_UNICODE_SCRIPT_LATIN;
      if (class == CLASS_CJK)
        {
          shaped = FALSE;
          continue;
        }
      if (one == CLASS_NONE)
        one = class;
      else if (class != one)
        mixed = TRUE;
      shaped = shaped && is_latin_shaped (class, d);
    }
  state->run_end = q;
  state->run_flagged = mixed;
  /* A digit of another script is drawn as one of ours (௦ ० ౦ ၀ ০ ૦ ೦
   * as 0 or o): escaped in a run with Latin letters or ASCII digits
   * (micros\u0be6ft), or alone in a word with them (10.0.0.\u0be6). */
  state->run_digits = latin;
  if (!latin && !letters)
    {
      read_word (state, text, p, end);
      state->run_digits = state->word_ascii;
    }
  if (mixed || one == CLASS_NONE || one == G_UNICODE_SCRIPT_LATIN || !shaped)
    return;

  /* One script, every letter drawn as Latin: flagged in a word holding
   * Latin letters. */
  read_word (state, text, p, end);
  state->run_flagged = state->word_latin;
}

/**
 * _pd_tool_looks_alike_at:
 * @state: this pass's, zeroed before its first character
 * @text: the text (valid UTF-8)
 * @before: the character before @p (pd_safe_text_char_before())
 * @c: the character at @p
 * @after: the one after it (pd_safe_text_char_after())
 * @end: the text's end
 *
 * Whether @c is drawn as another character than it is where it stands
 * (the rules above), or is a combining mark that composes with the
 * letter before it (a name decomposed, NFD: café of e and U+0301 is drawn
 * as café, and is not that name).  Shown as an escape, with controls'
 * friction.  Each word and run of letters is read once: linear in @text.
 */
gboolean
_pd_tool_looks_alike_at (PdToolLookAlike *state,
                         const char      *text,
                         gunichar         before,
                         gunichar         c,
                         gunichar         after,
                         const char      *p,
                         const char      *end)
{
  gunichar composed;
  int class;

  if (c < 0x80)
    return FALSE;
  if (g_unichar_ismark (c))
    return before != 0 && g_unichar_compose (before, c, &composed);
  /* Chinese and Japanese prose's fullwidth commas, colons, brackets, !
   * and ? are its punctuation in a word holding its letters: the `）` of
   * `崩溃（#12）` and the `！` of `（ホット）！` as the `（` (a fullwidth
   * `；` only beside a letter: it is drawn as the shell's separator). */
  if (c == 0xFF01 || c == 0xFF08 || c == 0xFF09 || c == 0xFF0C || c == 0xFF1A || c == 0xFF1F)
    {
      read_word (state, text, p, end);
      if (state->word_cjk)
        return FALSE;
    }
  if (is_ascii_shaped (before, c, after))
    return TRUE;
  if (g_unichar_type (c) == G_UNICODE_DECIMAL_NUMBER)
    {
      /* ASCII's, and fullwidth or mathematical ones (NFKC), are above */
      if (letter_class (c) == CLASS_NONE)
        return FALSE;
      if (state->run_end == NULL || p >= state->run_end)
        read_run (state, text, p, end);
      return state->run_digits;
    }
  if (!g_unichar_isalpha (c) || (class = letter_class (c)) == CLASS_NONE ||
      class == CLASS_CJK || class == G_UNICODE_SCRIPT_LATIN)
    return FALSE;
  if (state->run_end == NULL || p >= state->run_end)
    read_run (state, text, p, end);
  return state->run_flagged;
}
