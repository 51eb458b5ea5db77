/* pd-safe-text.c: text from elsewhere, made safe to show.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-safe-text"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "pd-safe-text.h"

gboolean
pd_safe_text_is_invisible (gunichar c)
{
  switch (c)
    {
    case 0x200C:  /* zero-width non-joiner */
    case 0x200D:  /* zero-width joiner */
      return FALSE;
    case 0x115F:  /* Hangul fillers: letters that show nothing */
    case 0x1160:
    case 0x3164:
    case 0xFFA0:
      return TRUE;
    default:
      return g_unichar_type (c) == G_UNICODE_FORMAT;
    }
}

static gboolean
is_control (gunichar c)
{
  return c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == 0x2028 || c == 0x2029;
}

static char *
safe_text (const char *text,
           gboolean    lines)
{
  GString *out;
  const char *p, *end;

  if (text == NULL)
    return g_strdup ("");

  end = text + strlen (text);
  out = g_string_sized_new (end - text);
  for (p = text; p < end; )
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_unichar (out, 0xFFFD);
          p++;
          continue;
        }
      if (lines && (c == '\n' || c == '\t'))
        g_string_append_c (out, (char) c);
      else if (lines && c == '\r' && p + 1 < end && p[1] == '\n')
        {
          /* "\r\n" is one line break. */
        }
      else if (is_control (c))
        g_string_append_c (out, ' ');
      else if (pd_safe_text_is_invisible (c))
        g_string_append_printf (out, "<U+%04X>", c);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }
  /* Held in no more than it takes: a GString's buffer is 128 bytes at
   * least, and a transcript of tiny calls keeps a name for each. */
  {
    gsize length = out->len;

    return g_realloc (g_string_free (out, FALSE), length + 1);
  }
}

char *
pd_safe_text_line (const char *text)
{
  return safe_text (text, FALSE);
}

char *
pd_safe_text_block (const char *text)
{
  return safe_text (text, TRUE);
}

/* Default-ignorable code points (Unicode's DerivedCoreProperties): a
 * renderer draws nothing for them, assigned or not. */
static gboolean
is_default_ignorable (gunichar c)
{
  return c == 0x00AD || c == 0x034F || c == 0x061C || (c >= 0x115F && c <= 0x1160) ||
         (c >= 0x17B4 && c <= 0x17B5) || (c >= 0x180B && c <= 0x180F) ||
         (c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) ||
         (c >= 0x2060 && c <= 0x206F) || c == 0x3164 || (c >= 0xFE00 && c <= 0xFE0F) ||
         c == 0xFEFF || c == 0xFFA0 || (c >= 0xFFF0 && c <= 0xFFF8) ||
         (c >= 0x1BCA0 && c <= 0x1BCA3) || (c >= 0x1D173 && c <= 0x1D17A) ||
         (c >= 0xE0000 && c <= 0xE0FFF);
}

/* A code point no font of the system is sure to have: unassigned in the
 * Unicode GLib knows (U+0378, noncharacters) or for private use (U+E000–
 * U+F8FF, planes 15 and 16).  GTK draws a box for it, a terminal whose
 * font lacks it a blank: 100 of them pushed `; touch x` out of sight,
 * neither escaped nor said (tried as an attacker would). */
static gboolean
is_unknown (gunichar c)
{
  GUnicodeType type = g_unichar_type (c);

  return type == G_UNICODE_UNASSIGNED || type == G_UNICODE_PRIVATE_USE;
}

/* Chooses how the letter before it is drawn (emoji, Mongolian): of use on
 * a letter, nothing on a blank. */
static gboolean
is_variation_selector (gunichar c)
{
  return (c >= 0x180B && c <= 0x180D) || c == 0x180F || (c >= 0xFE00 && c <= 0xFE0F) ||
         (c >= 0xE0100 && c <= 0xE01EF);
}

/* Draws nothing, or only a blank, on its own: a space of any kind, a
 * format character (U+200B, bidi controls, tags U+E0000…), a default-
 * ignorable one (U+034F, U+17B4, the Hangul fillers) but a variation
 * selector, U+2800 braille blank; or may draw only a blank or a box
 * (is_unknown()). */
static gboolean
is_blank (gunichar c)
{
  GUnicodeType type;

  if (c == ' ' || c == '\t' || c == 0x2800 ||
      (is_default_ignorable (c) && !is_variation_selector (c)) || (c >= 0x80 && is_unknown (c)))
    return TRUE;
  type = g_unichar_type (c);
  return type == G_UNICODE_SPACE_SEPARATOR || type == G_UNICODE_FORMAT;
}

/* Draws nothing of its own: on a blank, a blank stays (combining marks,
 * variation selectors, joiners, anything of zero width). */
static gboolean
is_blank_mark (gunichar c)
{
  GUnicodeType type = g_unichar_type (c);

  return type == G_UNICODE_NON_SPACING_MARK || type == G_UNICODE_ENCLOSING_MARK ||
         g_unichar_iszerowidth (c) || is_blank (c);
}

/* Whether a zero-width (non-)joiner between @before and @after joins
 * them as text needs it: in an emoji sequence (a ZWJ between symbols), or
 * between two letters of one script that writes them (Arabic, Indic
 * scripts…: not Latin, Greek, Cyrillic, nor common punctuation and
 * digits).  Between ASCII letters, in a path or an option, it only makes
 * the text differ from what it reads as. */
static gboolean
joins (gunichar before,
       gunichar c,
       gunichar after)
{
  GUnicodeScript script;

  if (before == 0 || after == 0)
    return FALSE;
  if (c == 0x200D && g_unichar_type (after) == G_UNICODE_OTHER_SYMBOL &&
      (g_unichar_type (before) == G_UNICODE_OTHER_SYMBOL || before == 0xFE0F ||
       (before >= 0x1F3FB && before <= 0x1F3FF)))
    return TRUE;
  if (!(g_unichar_isalpha (before) || g_unichar_ismark (before)) ||
      !(g_unichar_isalpha (after) || g_unichar_ismark (after)))
    return FALSE;
  script = g_unichar_get_script (before);
  return script == g_unichar_get_script (after) && script != G_UNICODE_SCRIPT_COMMON &&
         script != G_UNICODE_SCRIPT_INHERITED && script != G_UNICODE_SCRIPT_UNKNOWN &&
         script != G_UNICODE_SCRIPT_LATIN && script != G_UNICODE_SCRIPT_GREEK &&
         script != G_UNICODE_SCRIPT_CYRILLIC;
}

gboolean
pd_safe_text_is_hidden (gunichar before,
                        gunichar c,
                        gunichar after)
{
  if (c < 0x80)
    return FALSE;
  if (c == 0x200C || c == 0x200D)
    return !joins (before, c, after);
  /* On a letter or symbol beyond ASCII a selector may choose its glyph
   * (an emoji's, a CJK or Mongolian variant); elsewhere it draws nothing. */
  if (is_variation_selector (c))
    return !(before >= 0x80 && g_unichar_isgraph (before) && !g_unichar_ismark (before) &&
             !is_blank (before) && !is_variation_selector (before));
  return pd_safe_text_is_invisible (c) || c == 0x2800 || is_default_ignorable (c) ||
         g_unichar_type (c) == G_UNICODE_SPACE_SEPARATOR || is_unknown (c);
}

gunichar
pd_safe_text_char_before (const char *text,
                          const char *p)
{
  const char *prev = p > text ? g_utf8_find_prev_char (text, p) : NULL;
  gunichar c;

  if (prev == NULL)
    return 0;
  c = g_utf8_get_char_validated (prev, p - prev);
  return c == (gunichar) -1 || c == (gunichar) -2 || c == '\n' ? 0 : c;
}

gunichar
pd_safe_text_char_after (const char *p,
                         const char *end)
{
  const char *next;
  gunichar c;

  if (p >= end)
    return 0;
  next = g_utf8_find_next_char (p, end);
  if (next == NULL || next >= end)
    return 0;
  c = g_utf8_get_char_validated (next, end - next);
  return c == (gunichar) -1 || c == (gunichar) -2 || c == '\n' ? 0 : c;
}

/* The end of the blank run that starts at @p (at most @end, never past a
 * line): blanks, and whatever draws nothing on them.  Its length into
 * @n_out.  A mark after
 * every space split the padding into runs of one (" \u034F" × 600 showed
 * "$ make check" alone, tried as an attacker would), so a run is what
 * draws nothing, of whatever it is made.  @on_letter: it starts with a
 * mark on a letter, one past those a letter may carry. */
static const char *
blank_run (const char *p,
           const char *end,
           gboolean    on_letter,
           gsize      *n_out)
{
  gsize n = 0;

  while (p < end)
    {
      gunichar c = g_utf8_get_char_validated (p, end - p);

      if (c == (gunichar) -1 || c == (gunichar) -2 || c == '\n' || c == '\r' ||
          !(n == 0 && !on_letter ? is_blank (c) : is_blank_mark (c)))
        break;
      n++;
      p = g_utf8_next_char (p);
    }
  *n_out = n;
  return p;
}

/* How many lines from @p on hold nothing but spaces and tabs; @p is past
 * them, at the start of the next line, into @next. */
static gsize
blank_lines (const char  *p,
             const char  *end,
             const char **next)
{
  gsize n = 0;

  *next = p;
  for (;;)
    {
      while (p < end && (*p == ' ' || *p == '\t'))
        p++;
      if (p + 1 < end && p[0] == '\r' && p[1] == '\n')
        p++;
      if (p >= end || *p != '\n')
        return n;
      n++;
      *next = ++p;
    }
}

/* A run of this many blank characters or more is said, not shown. */
#define APPROVAL_RUN_SHOWN PD_SAFE_TEXT_RUN_SAID
/* This many kinds of them are named; more are "…". */
#define APPROVAL_KINDS_SHOWN 8
/* More blank lines than this in a row are said on one line: 1,500 empty
 * lines after "make check" showed an empty scrolled area, with the
 * command's real end out of sight below (tried as an attacker would). */
#define APPROVAL_BLANK_LINES_SHOWN 2

/* Marks stacked on one letter beyond this are named: a pile of them drew
 * bars over the lines around a command, hiding its `touch` (tried as an
 * attacker would).  Real text stacks two at most (Vietnamese). */
#define APPROVAL_MARKS_SHOWN 2

/* Draws nothing and has no use in real text on a letter: named wherever
 * it is. */
static gboolean
is_useless_mark (gunichar c)
{
  return c == 0x034F || c == 0x17B4 || c == 0x17B5;
}

/* Says the @n characters [@p, @end): "[600 × U+0020 U+034F]". */
static void
append_said (GString    *out,
             const char *p,
             const char *end,
             gsize       n)
{
  g_autoptr(GArray) kinds = g_array_new (FALSE, FALSE, sizeof (gunichar));

  for (; p < end; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      guint i;

      for (i = 0; i < kinds->len && g_array_index (kinds, gunichar, i) != c; i++)
        ;
      if (i == kinds->len)
        g_array_append_val (kinds, c);
    }
  g_string_append_printf (out, "[%" G_GSIZE_FORMAT " \xc3\x97", n);
  for (guint i = 0; i < kinds->len && i < APPROVAL_KINDS_SHOWN; i++)
    g_string_append_printf (out, " U+%04X", g_array_index (kinds, gunichar, i));
  if (kinds->len > APPROVAL_KINDS_SHOWN)
    g_string_append (out, " \xe2\x80\xa6");
  g_string_append_c (out, ']');
}

/* Shows [@p, @end), blanks too few to say: spaces and tabs as they are, a
 * joiner that starts a run (@run_start: one in a word, as Persian writes
 * them) too; the rest each by name. */
static void
append_named (GString    *out,
              const char *p,
              const char *end,
              gboolean    run_start)
{
  for (gboolean first = run_start; p < end; p = g_utf8_next_char (p), first = FALSE)
    {
      gunichar c = g_utf8_get_char (p);

      if (c == ' ' || c == '\t' || (first && (c == 0x200C || c == 0x200D)))
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      else
        g_string_append_printf (out, "<U+%04X>", c);
    }
}

static void
append_group (GString    *out,
              const char *p,
              const char *end,
              gsize       n,
              gboolean    run_start)
{
  if (n >= APPROVAL_RUN_SHOWN)
    append_said (out, p, end, n);
  else if (n > 0)
    append_named (out, p, end, run_start);
}

/* A blank run of @n characters: each stretch of 32 or more of one kind
 * said alone ("[300 × U+2800][600 × U+0020]"), what lies between them
 * said together when it is as long, else shown. */
static void
append_blank_run (GString    *out,
                  const char *p,
                  const char *run_end,
                  gsize       n,
                  gboolean    in_line)
{
  const char *start = p;
  const char *group = p;
  gsize group_n = 0;

  if (n < APPROVAL_RUN_SHOWN)
    {
      append_named (out, p, run_end, in_line);
      return;
    }
  while (p < run_end)
    {
      gunichar c = g_utf8_get_char (p);
      const char *q = p;
      gsize k = 0;

      while (q < run_end && g_utf8_get_char (q) == c)
        {
          k++;
          q = g_utf8_next_char (q);
        }
      if (k >= APPROVAL_RUN_SHOWN)
        {
          append_group (out, group, p, group_n, in_line && group == start);
          append_said (out, p, q, k);
          group = q;
          group_n = 0;
        }
      else
        group_n += k;
      p = q;
    }
  append_group (out, group, run_end, group_n, in_line && group == start);
}

const char *
pd_safe_text_blank_run (const char *p,
                        const char *end,
                        gsize      *n_out)
{
  gunichar c = p < end ? g_utf8_get_char_validated (p, end - p) : (gunichar) -1;

  if (c == (gunichar) -1 || c == (gunichar) -2 || !is_blank (c))
    {
      *n_out = 0;
      return p;
    }
  return blank_run (p, end, FALSE, n_out);
}

char *
pd_safe_text_approval (const char *text)
{
  GString *out;
  const char *p, *end;
  guint marks = 0;   /* combining marks on the letter before */

  if (text == NULL)
    return g_strdup ("");

  end = text + strlen (text);
  out = g_string_sized_new (end - text);
  for (p = text; p < end; )
    {
      gunichar c;
      gsize n;

      if (p == text || p[-1] == '\n')
        {
          const char *next;

          if ((n = blank_lines (p, end, &next)) > APPROVAL_BLANK_LINES_SHOWN)
            {
              guint lines = (guint) MIN (n, G_MAXUINT);

              /* Translators: in a command or a file to approve, in place of
               * lines with nothing on them */
              g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE, "[%u blank line]",
                                                        "[%u blank lines]", lines), lines);
              g_string_append_c (out, '\n');
              p = next;
              continue;
            }
        }

      c = g_utf8_get_char_validated (p, end - p);
      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          g_string_append_unichar (out, 0xFFFD);
          marks = 0;
          p++;
          continue;
        }
      /* Zero-width letters (Hangul vowels and finals) pile as marks do. */
      if (g_unichar_ismark (c) || g_unichar_iszerowidth (c))
        marks++;
      else
        marks = 0;
      /* A mark or joiner with no letter under it, at a line's start, draws
       * nothing: "\n\u200D\n" × 100 showed 200 empty lines, neither said
       * nor named (tried as an attacker would).  It is a blank run. */
      if (is_blank (c) || marks > APPROVAL_MARKS_SHOWN ||
          (marks > 0 && (p == text || p[-1] == '\n')))
        {
          const char *run_end = blank_run (p, end, !is_blank (c), &n);

          /* A joiner keeps its place in a word of a script that joins,
           * never at a line's start (pd_safe_text_is_hidden()). */
          append_blank_run (out, p, run_end, n,
                            !(p == text || p[-1] == '\n') &&
                              !pd_safe_text_is_hidden (pd_safe_text_char_before (text, p), c,
                                                       pd_safe_text_char_after (p, end)));
          marks = 0;
          p = run_end;
          continue;
        }

      if (c == '\n')
        g_string_append_c (out, '\n');
      else if (c == '\r' && p + 1 < end && p[1] == '\n')
        {
          /* "\r\n" is one line break. */
        }
      else if (is_control (c) || is_useless_mark (c) ||
               pd_safe_text_is_hidden (pd_safe_text_char_before (text, p), c,
                                       pd_safe_text_char_after (p, end)))
        g_string_append_printf (out, "<U+%04X>", c);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }
  return g_string_free (out, FALSE);
}

void
pd_safe_text_append_json (GString    *out,
                          const char *json,
                          gsize       len)
{
  const char *p, *end = json + len;

  for (p = json; p < end; )
    {
      gunichar c;

      /* ASCII is kept as it is: a run of it at once. */
      if ((guchar) *p < 0x80)
        {
          const char *run = p;

          while (p < end && (guchar) *p < 0x80)
            p++;
          g_string_append_len (out, run, p - run);
          continue;
        }
      c = g_utf8_get_char_validated (p, end - p);

      if (c == (gunichar) -1 || c == (gunichar) -2)
        {
          /* The generator writes UTF-8; keep any stray byte as it is. */
          g_string_append_c (out, *p++);
          continue;
        }
      /* Outside strings these characters cannot occur in JSON a generator
       * wrote, so escaping every one keeps the document's value. */
      if (pd_safe_text_is_invisible (c) || c == 0x2028 || c == 0x2029 || (c >= 0x80 && c < 0xa0))
        {
          if (c > 0xFFFF)
            {
              gunichar v = c - 0x10000;

              g_string_append_printf (out, "\\u%04x\\u%04x", 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF));
            }
          else
            g_string_append_printf (out, "\\u%04x", c);
        }
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }
}

char *
pd_safe_text_escape_json (const char *json)
{
  GString *out;
  gsize len;

  if (json == NULL)
    return NULL;

  len = strlen (json);
  out = g_string_sized_new (len);
  pd_safe_text_append_json (out, json, len);
  return g_string_free (out, FALSE);
}
