/* pd-redact-shell-word-private.h: one shell word read as bash reads it,
 * for every rule of the redactor that looks at words.
 *
 * Stored commands are shell text, and bash joins a word of any parts:
 * 'quoted', "quoted", $'ANSI-C' with its escapes, backslash-escaped
 * bytes.  A rule that reads the text as written reads one spelling at a
 * time, and each round of attack found the next (a header's name of
 * quoted parts, curl -u user:$'SECRET'; tried as an attacker would).  So
 * a rule reads the word here: its dequoted text (what bash hands the
 * command), each byte with the span of the text as written that it
 * comes from, decides on the dequoted text, and masks the secret's bytes
 * where they are written, piece by piece between the quotes bash takes
 * out (_pd_redact_mask_dequoted()): a quote, a backslash or the $ of
 * $'…' stays in sight.  What the reader cannot read exactly as bash 5.2
 * does (a quote left open, too long a word, an expansion that runs) it
 * says so (PD_SHELL_WORD_BROKEN, _COMMAND), and the rule leaves the word
 * to the others.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "pd-redact-scan-private.h"

G_BEGIN_DECLS

/* The byte a variable reads as in _pd_shell_word_read_variables(). */
#define PD_SHELL_WORD_VARIABLE_BYTE '\x01'

/* How much of a word is read, dequoted and as written: beyond, unsure. */
#define PD_SHELL_WORD_MAX 4096
#define PD_SHELL_WORD_SOURCE_MAX 16384

/* Why the reading of a word stopped. */
typedef enum
{
  PD_SHELL_WORD_END,       /* where bash ends the word */
  PD_SHELL_WORD_VARIABLE,  /* at $NAME: what follows is no literal */
  PD_SHELL_WORD_COMMAND,   /* at what runs or expands with quotes of its own: $(, `, ${, $[ */
  PD_SHELL_WORD_BROKEN,    /* too long, or a quote left open: unsure */
} PdShellWordStop;

/* The word as bash reads it: @d its bytes, each from [from[i], to[i]) of
 * the text as written.  Not to be copied (from and to may point into
 * it); _pd_shell_word_clear() after. */
typedef struct
{
  GString        *d;
  gsize          *from;
  gsize          *to;
  gsize           cap;     /* of from and to */
  gboolean        heap;    /* from and to are allocated (else the buffers below) */
  PdShellWordStop stop;
  gsize           end;     /* where the reading stopped, as written */
  gboolean        quoted;  /* bash took quotes or backslashes out of it */
  gboolean        variables;  /* $NAME, ${NAME} read as PD_SHELL_WORD_VARIABLE_BYTE */
  gsize           from_buf[128];
  gsize           to_buf[128];
} PdShellWord;

/* Reads the shell word that starts at @start of @t (@len bytes) into @w
 * (uninitialised), as bash joins its parts; in a JSON string's text when
 * @json (the string's escapes read first, its closing quote ends it). */
void     _pd_shell_word_read             (PdShellWord       *w,
                                          const char        *t,
                                          gsize              len,
                                          gsize              start,
                                          gboolean           json);
/* The same, a plain $NAME or ${NAME} (quoted or not) read as one
 * PD_SHELL_WORD_VARIABLE_BYTE that spans it as written: what it expands
 * to is unknown, but no secret written here (curl -u "$USER":SECRET). */
void     _pd_shell_word_read_variables   (PdShellWord       *w,
                                          const char        *t,
                                          gsize              len,
                                          gsize              start,
                                          gboolean           json);
void     _pd_shell_word_clear            (PdShellWord       *w);
/* Whether the dequoted bytes [ds, de) of @w are written as they read,
 * each one byte of the text next to the one before. */
gboolean _pd_shell_word_as_written       (const PdShellWord *w,
                                          gsize              ds,
                                          gsize              de);

/* Whether bash ends a word right before @k of the redactor's text (at
 * @depth in JSON strings): a blank or a sign, the JSON string's opening
 * quote or its \n and \t. */
gboolean _pd_shell_word_starts_at        (Redactor          *r,
                                          gsize              k,
                                          guint              depth);
/* Whether the word at @ws (at @depth) holds a quote, a backslash or a $
 * before its end, as written (its end, when not, in *@end): a word with
 * none reads as it is written. */
gboolean _pd_shell_word_has_quotes       (Redactor          *r,
                                          gsize              ws,
                                          guint              depth,
                                          gsize             *end);
/* Masks the dequoted bytes [ds, de) of @w where they are written, a
 * piece for each run of bytes written next to each other, each through
 * _pd_redact_mask_span(): one redaction counted.  Whether anything was
 * masked. */
gboolean _pd_redact_mask_dequoted        (Redactor          *r,
                                          const PdShellWord *w,
                                          gsize              ds,
                                          gsize              de);
/* Whether a dequoted value holds what reads as shell syntax to whoever
 * reads it (; & | < > a backtick, braces, globs, a line break, a NUL) or
 * a mask already: then it stays in sight. */
gboolean _pd_shell_word_value_hides_nothing (const char     *value,
                                             gsize           len);

/* Of pd-redact-user-word.c: @w, read from @ws (the scan at @i), as
 * NAME=value or --name=value whose name bash joins of quoted parts
 * (API"_KEY"=X, which env, export and docker -e take as an assignment):
 * the value masked when the name rule says it is a secret's.  Returns
 * where the scan goes on, @i when nothing was masked. */
gsize    _pd_redact_assignment_word      (Redactor          *r,
                                          const PdShellWord *w,
                                          gsize              i,
                                          gsize              ws);

G_END_DECLS
