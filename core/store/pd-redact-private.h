/* pd-redact-private.h: what the parts of the redactor share.
 *
 * pd-redact.c scans text and masks values; pd-redact-names.c holds the
 * name rule (pd-redact.h states it) that says whose value is a secret;
 * pd-redact-words.c reads shell words, joined of quoted parts;
 * pd-redact-values.c says which values hold no secret; pd-redact-json.c
 * walks JSON documents and redacts their strings and member names.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include <glib.h>

G_BEGIN_DECLS

/* g_ascii_tolower() is a call into GLib; this runs on every byte. */
static inline char
_pd_redact_lower (char c)
{
  return c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c;
}

static inline gboolean
_pd_redact_word_in (const char         *word,
                    const char * const *set)
{
  for (guint i = 0; set[i]; i++)
    if (word[0] == set[i][0] && strcmp (word, set[i]) == 0)
      return TRUE;
  return FALSE;
}

/* The length of one of Unicode's spaces at @p (U+0085, U+00A0, U+1680,
 * U+2000-200A, U+2028, U+2029, U+202F, U+205F, U+3000; USPACE of
 * pd-redact.c), or 0: they end an unquoted value as a blank does, whole,
 * so a mask never cuts one. */
static inline gsize
_pd_redact_unicode_space_len (const char *p,
                              gsize       avail)
{
  const guchar *u = (const guchar *) p;

  if (avail >= 2 && u[0] == 0xc2 && (u[1] == 0x85 || u[1] == 0xa0))
    return 2;
  if (avail < 3 || u[0] < 0xe1 || u[0] > 0xe3)
    return 0;
  if ((u[0] == 0xe1 && u[1] == 0x9a && u[2] == 0x80)
      || (u[0] == 0xe2 && u[1] == 0x80 && (u[2] <= 0x8a || u[2] == 0xa8 || u[2] == 0xa9 || u[2] == 0xaf)
          && u[2] >= 0x80)
      || (u[0] == 0xe2 && u[1] == 0x81 && u[2] == 0x9f)
      || (u[0] == 0xe3 && u[1] == 0x80 && u[2] == 0x80))
    return 3;
  return 0;
}

gboolean _pd_redact_name_is_secret (const char *name);

/* What the shell runs and puts in ($(…), `…`): masked, it hid a command
 * from whoever approves it ("x$(touch …)"; tried as an attacker would).
 * Whatever its quoting: single quotes inside a command quoted for another
 * shell (ssh h "PGPASSWORD='$(…)' psql", bash -c "…") do not stop the
 * outer shell's substitution, which the text alone does not show. */
static inline gboolean
_pd_redact_value_runs_command (const char *value)
{
  return strstr (value, "$(") != NULL || strchr (value, '`') != NULL;
}

/* Of pd-redact-values.c. */
gboolean _pd_redact_value_is_secret        (const char *value,
                                            gboolean    single_quoted);
gboolean _pd_redact_value_is_json_gap      (const char *value);
gboolean _pd_redact_value_is_pass_count    (const char *name,
                                            const char *value);
/* Whether the value @value (@len bytes; a joined word with its quotes)
 * holds what ends or joins a command, so that masking it could hide a
 * command from whoever approves it, whatever quoting reading found it:
 * ; & | < > or a line break, raw or as a JSON escape (\n, \u000a,
 * \u003b…), more than 4 blank-separated words, a word that looks like an
 * option ( -x, --x), or a blank at its start or end inside its quotes.
 * Such a value is never masked (its cost: a password holding those signs
 * is shown). */
gboolean _pd_redact_value_hides_syntax     (const char *value,
                                            gsize       len);
/* Whether a sign that ends or joins a command is at @p (before @end):
 * ; & | < > or a line break, raw or as a JSON escape. */
gboolean _pd_redact_syntax_at              (const char *p,
                                            const char *end);

/* The parts of a shell word at @pos ('a'"b"c: 3), its end in *@end. */
guint    _pd_redact_joined_word            (const char *text,
                                            gsize       len,
                                            gsize       pos,
                                            gsize      *end);
/* Whether a joined word is a reference ($X"y") or holds what the shell
 * runs ($(…) or `…` in any part, quoted or escaped): no secret to mask. */
gboolean _pd_redact_joined_holds_no_secret (const char *value);
/* The word as the shell reads it, its quotes and backslashes gone, in
 * place: "mysql", 'mysql', m'ysql' and \"mysql\" are mysql. */
void     _pd_redact_unquote_word           (char       *word);

G_END_DECLS
