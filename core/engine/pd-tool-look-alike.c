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
 *   before a blank its look;
 * - signs a shell reads by their place in the word: ノ as a slash, 一 and
 *   ー as an option's dash, 。 and ｡ as a host's dot, where no Han or kana
 *   letter stands beside them (`/tmpノetc`, `rm ーrf`, `evil。com`).
 *
 * Inside quotes, in a text of several words (or of Han or kana letters)
 * with none of ; & | ` $ < > (a commit message, an echo'd sentence:
 * "prose"), the signs and the
 * compatibility forms above are typography and read as they are (`„Hallo
 * Welt“`, `It’s “fine” – really … 5 km`, `東京 １２３`, `ﬁle`, a NBSP),
 * but for what still changes how a command reads there: a slash, a bar
 * or a semicolon, a dash or a # that starts a word (an option, a
 * comment to a `sh -c`), a dot between letters (a host), any in a word
 * that is a path, a URL, a host or an option, and the quote that closes
 * the text when its look-alikes are not in pairs and another such quote
 * follows: `echo 'it’s' ; rm -rf ~ ; echo 'x’y'` reads as one string to
 * whoever takes ’ for '.  Where there is an operator, `sh -c "echo “hi;
 * rm -rf ~”"` runs rm: nothing is spared; nor in what a shell runs (after
 * an option with c, eval, ssh…: `sh -c "rm -rf “a src b”"` removes src),
 * nor after a << (a here-document's lines are no words to follow).
 * Tried as a new user and as an attacker would.
 */
#define G_LOG_DOMAIN "pd-tools"

#include "config.h"

#include <stdlib.h>
#include <string.h>

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

/* The ASCII sign @c is drawn as where the shell reads signs (a quote, a
 * slash, a dash, #, a dot, a bar…, or its compatibility form's one
 * character), else 0. */
static char
drawn_as (gunichar c)
{
  gunichar folded[G_UNICHAR_MAX_DECOMPOSITION_LENGTH];
  gsize n;

  switch (c)
    {
    case 0x00B4: case 0x02B9: case 0x02BB: case 0x02BC: case 0x02C8: case 0x02CB:
    case 0x2018: case 0x2019: case 0x201A: case 0x201B: case 0x2032: case 0x2035:
    case 0x2039: case 0x203A:
      return '\'';
    case 0x02BA: case 0x05F4: case 0x201C: case 0x201D: case 0x201E: case 0x201F:
    case 0x2033: case 0x2036: case 0x3003:
      return '"';
    case 0x2044: case 0x2215: case 0x2571: case 0x29F8: case 0x30CE:
      return '/';
    case 0x2216: case 0x29F5:
      return '\\';
    case 0x02D7: case 0x2010: case 0x2011: case 0x2012: case 0x2013: case 0x2014:
    case 0x2015: case 0x2043: case 0x2212: case 0x2E3A: case 0x2E3B: case 0x30FC:
    case 0x4E00:
      return '-';
    case 0x2317: case 0x266F:
      return '#';
    case 0x3002: case 0xFE12: case 0xFF61:
      return '.';
    case 0x01C0: case 0x05C0: case 0x2223: case 0x23D0: case 0x2758:
      return '|';
    default:
      break;
    }
  if (!may_fold_to_ascii (c))
    return 0;
  n = g_unichar_fully_decompose (c, TRUE, folded, G_N_ELEMENTS (folded));
  return n == 1 && folded[0] < 0x80 && folded[0] != c ? (char) folded[0] : 0;
}

/* Whether @c is a Han or kana letter, or a sign of Japanese prose. */
static gboolean
is_cjk_side (gunichar c)
{
  return c != 0 && (is_cjk (c) || (c >= 0x3040 && c <= 0x30FF) || c == 0x3005 ||
                    (c >= 0x31F0 && c <= 0x31FF) || (c >= 0xFF66 && c <= 0xFF9F));
}

static gboolean
is_ascii_alnum (gunichar c)
{
  return c < 0x80 && g_ascii_isalnum (c);
}

/* Whether a text beside @before starts a shell word there. */
static gboolean
starts_word (gunichar before)
{
  return before == 0 || g_unichar_isspace (before) || before == '\'' || before == '"';
}

/* ノ as a slash, 一 and ー as a dash; 。, ︒ and ｡ as a dot. */
static gboolean
is_cjk_slash_or_dash (gunichar c)
{
  return c == 0x30CE || c == 0x30FC || c == 0x4E00;
}

static gboolean
is_cjk_dot (gunichar c)
{
  return c == 0x3002 || c == 0xFE12 || c == 0xFF61;
}

/* Whether the run of Han and kana around @p (the sign there) holds a
 * letter that is not such a sign, within 64 characters each way. */
static gboolean
sign_run_has_letter (const char *text,
                     const char *p,
                     const char *end)
{
  const char *q = g_utf8_next_char (p);

  for (guint i = 0; i < 64 && q < end; i++, q = g_utf8_next_char (q))
    {
      gunichar d = g_utf8_get_char_validated (q, end - q);

      if (d == (gunichar) -1 || d == (gunichar) -2 || !is_cjk_side (d))
        break;
      if (!is_cjk_slash_or_dash (d))
        return TRUE;
    }
  q = p;
  for (guint i = 0; i < 64 && q > text; i++)
    {
      gunichar d;

      if ((q = g_utf8_find_prev_char (text, q)) == NULL)
        break;
      d = g_utf8_get_char_validated (q, end - q);
      if (d == (gunichar) -1 || d == (gunichar) -2 || !is_cjk_side (d))
        break;
      if (!is_cjk_slash_or_dash (d))
        return TRUE;
    }
  return FALSE;
}

/* Whether @c (at @p) is drawn as a sign the shell reads by its place, and
 * stands where it reads as that sign: ノ, 一 and ー in a run of Han and
 * kana with no other letter (`ーーhelp` read as `--help` and ran `rm -rf
 * victim` unflagged, each ー the other's kana neighbour, tried as an
 * attacker would; `すごーーい` and `ノート` keep theirs), 。 and ｡ between
 * ASCII letters or digits, or beside another of them, in a host. */
static gboolean
is_cjk_sign_out_of_place (const char *text,
                          const char *p,
                          const char *end,
                          gunichar    before,
                          gunichar    c,
                          gunichar    after)
{
  if (is_cjk_slash_or_dash (c))
    return !sign_run_has_letter (text, p, end);
  if (is_cjk_dot (c))
    return (is_ascii_alnum (before) || is_cjk_dot (before)) && (is_ascii_alnum (after) || is_cjk_dot (after)) &&
           (is_ascii_alnum (before) || is_ascii_alnum (after));
  return FALSE;
}

/* Whether a ' (@kind '\'') or a " or a look-alike of it stands in
 * [@from, @text_end): found once, as the last of them, for a pass. */
static gboolean
quote_follows (PdToolLookAlike *state,
               char             kind,
               const char      *from,
               const char      *text_end)
{
  int i = kind == '"';

  if (!state->last_read[i])
    {
      state->last_quote[i] = NULL;
      for (const char *q = from; q < text_end; )
        {
          gunichar d = g_utf8_get_char_validated (q, text_end - q);

          if (d == (gunichar) -1 || d == (gunichar) -2)
            {
              q++;
              continue;
            }
          if (d == (gunichar) kind || (d >= 0x80 && drawn_as (d) == kind))
            state->last_quote[i] = q;
          q = g_utf8_next_char (q);
        }
      state->last_read[i] = TRUE;
    }
  return state->last_quote[i] != NULL && state->last_quote[i] >= from;
}

/* Reads the quoted text on this line that @state is in (to its closing
 * quote, the line's end or the text's) into @state, once. */
static void
read_segment (PdToolLookAlike *state,
              const char      *text,
              const char      *end)
{
  const char *text_end = state->text_end != NULL ? state->text_end : end;
  const char *q = state->seg_start != NULL ? state->seg_start : text;
  char kind = state->quote == '"' ? '"' : '\'';
  gboolean blank = FALSE, cjk = FALSE, op = FALSE, escaped = FALSE;
  guint n = 0;

  while (q < text_end && *q != '\n')
    {
      gunichar d = g_utf8_get_char_validated (q, text_end - q);

      if (d == (gunichar) -1 || d == (gunichar) -2)
        {
          q++;
          continue;
        }
      if (escaped)
        escaped = FALSE;
      else if (d == '\\' && state->quote != '\'')
        escaped = TRUE;
      else if (d == (gunichar) kind)
        break;
      else if (d == ' ' || d == '\t' || (d >= 0x80 && g_unichar_isspace (d)))
        blank = TRUE;
      else if (d == ';' || d == '&' || d == '|' || d == '`' || d == '$' || d == '<' || d == '>')
        op = TRUE;
      else if (d >= 0x80 && drawn_as (d) == kind)
        n++;
      else
        cjk = cjk || is_cjk (d);
      q = g_utf8_next_char (q);
    }
  state->seg_end = q;
  /* Chinese and Japanese write a sentence without blanks; what sh -c or
   * ssh runs, or a here-document's lines, are no prose */
  state->seg_prose = (blank || cjk) && !op && !state->code && !state->heredoc;
  /* Its look-alikes of the closing quote in pairs keep the count of
   * quotes a reader makes; one alone shifts it, and matters when another
   * such quote follows, to open what the reader takes for a string. */
  state->seg_paired = n % 2 == 0 ||
                      !quote_follows (state, kind, q < text_end && *q == kind ? q + 1 : q, text_end);
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
  gboolean latin = FALSE, ascii = FALSE, cjk = FALSE, link = FALSE;
  gunichar last = 0;

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
      /* a path, a URL, a host (a dot between letters), an option */
      if (d == '/' || d == '\\' || d == ':' || d == '@' || d == '=' ||
          (d == '.' && is_ascii_alnum (last) && is_ascii_alnum (pd_safe_text_char_after (q, end))) ||
          ((d == '-' || d == '~' || drawn_as (d) == '-') && (last == 0 || last == '\'' || last == '"')))
        link = TRUE;
      last = d;
    }
  state->word_link = link;
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

/* Of a character drawn as ASCII it is not (is_ascii_shaped()): a letter
 * or digit (ｒ, 𝐠, ﬁ, １), or a sign (“, ⁄, ＃, …). */
static PdToolEscapes
shape_kind (gunichar c)
{
  gunichar folded[G_UNICHAR_MAX_DECOMPOSITION_LENGTH];
  gsize n;

  if (drawn_as (c) != 0 && !g_ascii_isalnum (drawn_as (c)))
    return PD_TOOL_ESCAPES_SIGNS;
  n = g_unichar_fully_decompose (c, TRUE, folded, G_N_ELEMENTS (folded));
  return n > 0 && folded[0] < 0x80 && g_ascii_isalnum (folded[0]) ? PD_TOOL_ESCAPES_LETTERS
                                                                  : PD_TOOL_ESCAPES_SIGNS;
}

/* Whether @p is in quoted prose (the top of this file), in a word that
 * is no path, URL, host or option. */
static gboolean
in_quoted_prose (PdToolLookAlike *state,
                 const char      *text,
                 const char      *p,
                 const char      *end)
{
  if (state->quote != '\'' && state->quote != '"' && state->quote != '$')
    return FALSE;
  if (state->seg_end == NULL)
    read_segment (state, text, end);
  if (!state->seg_prose)
    return FALSE;
  read_word (state, text, p, end);
  return !state->word_link;
}

/* Whether @c, drawn as ASCII it is not, reads as typography in quoted
 * prose: not a slash, a bar, a semicolon, a dash or # that starts a word,
 * a dot between letters, nor the closing quote out of pairs. */
static gboolean
spared_in_prose (PdToolLookAlike *state,
                 gunichar         before,
                 gunichar         c,
                 gunichar         after)
{
  char sign = drawn_as (c);

  switch (sign)
    {
    case '\'':
    case '"':
      return sign != (state->quote == '"' ? '"' : '\'') || state->seg_paired;
    case '/': case '\\': case '|': case ';': case '&': case '<': case '>': case '`': case '$':
      return FALSE;
    case '#':
      return !starts_word (before);
    case '-':
      return !starts_word (before) || is_blank_or_end (after);
    case '.':
      return !(is_ascii_alnum (before) && is_ascii_alnum (after));
    default:
      return TRUE;
    }
}

/**
 * _pd_tool_look_alike_spares_blank:
 * @c: a look-alike blank (pd_safe_text_is_hidden()) at @p
 *
 * Whether @c, a no-break, thin or ideographic space, is typography in
 * quoted prose (`"5\u00a0km"`, `'東京\u3000大阪'`): inside the quotes it is
 * part of the word as a space is.
 */
gboolean
_pd_tool_look_alike_spares_blank (PdToolLookAlike *state,
                                  const char      *text,
                                  gunichar         c,
                                  const char      *p,
                                  const char      *end)
{
  return (c == 0x00A0 || c == 0x2009 || c == 0x202F || c == 0x3000) &&
         in_quoted_prose (state, text, p, end);
}

/* Whether the shell word in @state, ended, makes its simple command run
 * quoted text as a shell's: an option with c (sh -c, bash -lc, su -c), or
 * a command that runs its arguments so (eval, ssh, watch, xargs…). */
static gboolean
word_runs_code (const PdToolLookAlike *state)
{
  static const char *const runners[] = { "eval", "ssh", "watch", "xargs", "parallel", "script", "flock" };
  const char *w = state->word;

  if (state->word_len == 0 || state->word_len >= sizeof state->word)
    return FALSE;
  if (w[0] == '-' && w[1] != '-' && strchr (w + 1, 'c') != NULL && strchr (w, '=') == NULL)
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (runners); i++)
    if (strcmp (w, runners[i]) == 0)
      return TRUE;
  return FALSE;
}

/* Ends the shell word in @state; after @c (not a blank), its simple
 * command too. */
static void
end_word (PdToolLookAlike *state,
          gunichar         c)
{
  state->code = state->code || word_runs_code (state);
  state->word_len = 0;
  state->word[0] = '\0';
  if (c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '\n')
    state->code = FALSE;
}

static void
add_to_word (PdToolLookAlike *state,
             gunichar         c)
{
  if (state->word_len < sizeof state->word - 1 && c < 0x80)
    {
      state->word[state->word_len++] = (char) c;
      state->word[state->word_len] = '\0';
    }
  else
    state->word_len = sizeof state->word;
}

/**
 * _pd_tool_look_alike_step:
 * @before: the character before @p
 * @c: the character at @p, read after its own question
 *
 * Follows the shell's quotes over @c as bash reads them: '…', "…", $'…',
 * a backslash, a comment; and its words, for what runs quoted text as a
 * shell's (sh -c, eval, ssh…: no prose in it) and a here-document (its
 * lines are no shell words: from a << on, no prose is read).  A line
 * break keeps the quotes (the text goes on) and starts their text on
 * this line anew.
 */
void
_pd_tool_look_alike_step (PdToolLookAlike *state,
                          gunichar         before,
                          gunichar         c,
                          const char      *p)
{
  const char *next = g_utf8_next_char (p);
  gboolean escaped = state->escaped == p;

  if (c == '\n')
    {
      if (state->quote == '#')
        state->quote = 0;
      if (state->quote == 0 && !escaped)
        end_word (state, c);
      state->seg_start = next;
      state->seg_end = NULL;
      return;
    }
  if (escaped)
    {
      if (state->quote != '#')
        add_to_word (state, c);
      return;
    }
  if (c >= 0x80)
    {
      if (state->quote != '#')
        add_to_word (state, c);
      return;
    }
  switch (state->quote)
    {
    case '#':
      return;
    case '\'':
    case '$':
    case '"':
      if (c == '\\' && state->quote != '\'')
        state->escaped = next;
      else if (c == (state->quote == '"' ? '"' : '\''))
        {
          state->quote = 0;
          state->seg_end = NULL;
        }
      else
        add_to_word (state, c);
      return;
    default:
      if (c == '\\')
        state->escaped = next;
      else if (c == '$')
        state->dollar = next;
      else if (c == '\'' || c == '"')
        {
          state->quote = c == '"' ? '"' : state->dollar == p ? '$' : '\'';
          state->seg_start = next;
          state->seg_end = NULL;
          return;
        }
      else if (c == '#' && (before == 0 || before == ' ' || before == '\t' || before == ';' ||
                            before == '&' || before == '|' || before == '(' || before == ')'))
        {
          state->quote = '#';
          return;
        }
      if (c == '<')
        {
          state->heredoc = state->heredoc || state->less_end == p;
          state->less_end = next;
        }
      if (c == ' ' || c == '\t' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' ||
          c == '<' || c == '>')
        end_word (state, c);
      else if (c != '\\' && c != '$')
        add_to_word (state, c);
    }
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
PdToolEscapes
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
    return PD_TOOL_ESCAPES_NONE;
  if (g_unichar_ismark (c))
    return before != 0 && g_unichar_compose (before, c, &composed) ? PD_TOOL_ESCAPES_LETTERS
                                                                   : PD_TOOL_ESCAPES_NONE;
  /* Chinese and Japanese prose's fullwidth commas, colons, brackets, !
   * and ? are its punctuation in a word holding its letters: the `）` of
   * `崩溃（#12）` and the `！` of `（ホット）！` as the `（` (a fullwidth
   * `；` only beside a letter: it is drawn as the shell's separator). */
  if (c == 0xFF01 || c == 0xFF08 || c == 0xFF09 || c == 0xFF0C || c == 0xFF1A || c == 0xFF1F)
    {
      read_word (state, text, p, end);
      if (state->word_cjk)
        return PD_TOOL_ESCAPES_NONE;
    }
  if (is_cjk_sign_out_of_place (text, p, end, before, c, after))
    return PD_TOOL_ESCAPES_SIGNS;
  /* An apostrophe in a word (don’t) is drawn as a ': outside quotes, or
   * inside '…' out of pairs, it shifts the count of quotes a reader
   * makes when another ' follows (`echo it’s ; rm -rf ~ ; echo x’y`
   * reads as one string, tried as an attacker would). */
  if (c == 0x2019 || c == 0x02BC)
    {
      const char *next = g_utf8_next_char (p);

      if (state->quote == 0 &&
          quote_follows (state, '\'', next, state->text_end != NULL ? state->text_end : end))
        return PD_TOOL_ESCAPES_SIGNS;
      if (state->quote == '\'' || state->quote == '$')
        {
          if (state->seg_end == NULL)
            read_segment (state, text, end);
          if (!state->seg_paired)
            return PD_TOOL_ESCAPES_SIGNS;
        }
    }
  if (is_ascii_shaped (before, c, after))
    {
      if (in_quoted_prose (state, text, p, end) && spared_in_prose (state, before, c, after))
        return PD_TOOL_ESCAPES_NONE;
      return shape_kind (c);
    }
  if (g_unichar_type (c) == G_UNICODE_DECIMAL_NUMBER)
    {
      /* ASCII's, and fullwidth or mathematical ones (NFKC), are above */
      if (letter_class (c) == CLASS_NONE)
        return PD_TOOL_ESCAPES_NONE;
      if (state->run_end == NULL || p >= state->run_end)
        read_run (state, text, p, end);
      return state->run_digits ? PD_TOOL_ESCAPES_LETTERS : PD_TOOL_ESCAPES_NONE;
    }
  if (!g_unichar_isalpha (c) || (class = letter_class (c)) == CLASS_NONE ||
      class == CLASS_CJK || class == G_UNICODE_SCRIPT_LATIN)
    return PD_TOOL_ESCAPES_NONE;
  if (state->run_end == NULL || p >= state->run_end)
    read_run (state, text, p, end);
  return state->run_flagged ? PD_TOOL_ESCAPES_LETTERS : PD_TOOL_ESCAPES_NONE;
}
