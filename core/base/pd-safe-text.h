/* pd-safe-text.h: text from elsewhere, made safe to show.
 *
 * Transcripts are written by other programs and by models: their text may
 * hold terminal escapes, line breaks that forge output lines, and invisible
 * format characters — bidi embeddings, overrides and isolates (U+202A–202E,
 * U+2066–2069) that make a terminal or a label show text in another order
 * than it is (as in "Trojan Source"), zero-width characters, tag characters
 * (U+E0000 block, text a reader cannot see).  These functions keep the text
 * and make each such character visible or harmless instead.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Whether @c is a format character that shows nothing (Unicode category
 * Cf, Hangul fillers), but for the zero-width (non-)joiner, which emoji
 * sequences and several scripts need and which reorder nothing. */
gboolean  pd_safe_text_is_invisible  (gunichar    c);

/* Whether @c, between @before and @after (0: none, a line's start or
 * end), is shown as an escape or by name where a person is asked to
 * approve a text (a command, a file's new contents), as it could make the
 * text read as something else: the one table of them.
 * - invisible format characters (pd_safe_text_is_invisible(): U+200B,
 *   bidi controls, U+2060–2064, U+FEFF, tags U+E0000–E007F, the Hangul
 *   fillers U+115F U+1160 U+3164 U+FFA0);
 * - look-alike blanks, every space separator but U+0020 (U+00A0,
 *   U+1680, U+2000–200A, U+202F, U+205F, U+3000): bash reads them as a
 *   word's letters, a person as a space;
 * - what a renderer draws nothing for (default-ignorable: U+034F, U+17B4,
 *   U+17B5, U+180E, U+2065, U+FFF0–FFF8…) and U+2800 braille blank;
 * - a variation selector (U+FE00–FE0F, U+180B–180D, U+180F,
 *   U+E0100–E01EF) but on a letter or symbol beyond ASCII, whose glyph it
 *   may choose (an emoji, a CJK variant);
 * - a zero-width (non-)joiner U+200C/U+200D but between two letters of
 *   one script that joins (Arabic, Indic…) or in an emoji sequence;
 * - a code point unassigned in the Unicode GLib knows (U+0378, U+FFFE) or
 *   for private use (U+E000–F8FF, planes 15 and 16): a box in GTK, a
 *   blank on a terminal whose font lacks it.
 * Not U+0F0C (a tsheg that does not break a line, drawn as U+0F0B is):
 * a letter that looks like another is drawn, and no more hidden than a
 * Cyrillic "а". */
gboolean  pd_safe_text_is_hidden     (gunichar    before,
                                      gunichar    c,
                                      gunichar    after);

/* The character before @p in @text, and the one after the character at
 * @p (before @end): 0 at a line's start or end or at an invalid byte. */
gunichar  pd_safe_text_char_before   (const char *text,
                                      const char *p);
gunichar  pd_safe_text_char_after    (const char *p,
                                      const char *end);

/* A run of what draws nothing, or only a blank, this long or longer is
 * said by pd_safe_text_approval() ("[900 × U+3000]"), not shown. */
#define PD_SAFE_TEXT_RUN_SAID 32

/* The end of the run of what draws nothing, or only a blank, that starts
 * at @p (before @end), as pd_safe_text_approval() finds it: a blank (a
 * space of any kind, a format or default-ignorable character, U+2800, an
 * unassigned or private-use code point), then blanks and what draws
 * nothing on them.  Its length into @n_out; @p and 0 when no blank is at @p.  Where an approval's preview escapes
 * what it holds, it leaves such a run of PD_SAFE_TEXT_RUN_SAID or more as
 * it is, for pd_safe_text_approval() to say (one finder of runs). */
const char *pd_safe_text_blank_run   (const char *p,
                                      const char *end,
                                      gsize      *n_out);

/* One line for a terminal or a label: control characters (C0, DEL, C1) and
 * line or paragraph separators become spaces, each invisible format
 * character becomes "<U+202E>", invalid UTF-8 becomes U+FFFD.  Nothing is
 * trimmed or cut. */
char     *pd_safe_text_line          (const char *text);

/* Lines for a text view: as pd_safe_text_line(), but line breaks ("\n")
 * and tabs are kept (a carriage return before a line break goes). */
char     *pd_safe_text_block         (const char *text);

/* Text a person is asked to approve (a command, a file's new contents):
 * as pd_safe_text_block(), but every character that could make it read as
 * something else is shown by name.  Controls but line break and tab become
 * "<U+001B>" (not a space that would hide a carriage return or an escape).
 * A run of what draws nothing, or only a blank — spaces of every kind,
 * format and default-ignorable characters (U+200B, tags, U+034F, Hangul
 * fillers), U+2800 braille blank, unassigned and private-use code points,
 * and any mark or variation selector on them — of 32 or more characters is said: each stretch of 32 or more of
 * one kind as "[600 × U+0020]", what lies between such stretches together
 * as "[1200 × U+0020 U+034F]" (its length, then its kinds as they come,
 * eight at most, then "…") when it is as long, else as a shorter run; a
 * shorter one keeps its spaces and tabs and names the rest, "<U+00A0>"
 * each (a joiner that starts it, in a word of a script that joins,
 * stays).  Elsewhere, what pd_safe_text_is_hidden() names is named.  Marks past two on
 * one letter are named, as a run.  More than two lines in a row with only
 * spaces and tabs on them become one line, "[1500 blank lines]".  Padding
 * that pushed the rest of a command out of sight (tried as an attacker
 * would) so stays short and says what it is. */
char     *pd_safe_text_approval      (const char *text);

/* JSON text with each invisible format character written as a \uXXXX
 * escape (a surrogate pair beyond the BMP): the same JSON value, but a
 * terminal showing it shows the escapes, not the reordering. */
char     *pd_safe_text_escape_json   (const char *json);
/* The same for @len bytes of @json, appended to @out. */
void      pd_safe_text_append_json   (GString    *out,
                                      const char *json,
                                      gsize       len);

G_END_DECLS
