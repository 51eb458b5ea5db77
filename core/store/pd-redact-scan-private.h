/* pd-redact-scan-private.h: what the scan of pd-redact.c and the masking
 * of pd-redact-mask.c share: the redactor's state, and how a value found
 * is judged and masked.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "pd-redact-private.h"

G_BEGIN_DECLS

/* The scan's state. */
typedef struct
{
  const char *text;
  gsize       len;
  GString    *out;      /* NULL until something is redacted */
  gsize       copied;   /* text[0, copied) is in out */
  guint       count;
  gboolean    joined;   /* the last match_at() found a joined word */
  gsize       tick_pos; /* backticks_before() counted the line up to here */
  guint       ticks;    /* and found this many backticks on it */
  PdRedactCommandLine line; /* the command line read forward (pd-redact-commands.c) */
  guint8     *depths;   /* in JSON strings (pd-redact-private.h; NULL: none) */
  guint8     *states;   /* the shell's reading at each byte (NULL until a mask) */
  gsize       name_start;   /* where the name or option of the value tried starts */
  gsize       refused_from; /* a value redact_span() refused starts here (G_MAXSIZE: none) */
  gsize       refused_end;  /* inside [.., refused_end) only known token shapes are tried */
  gsize       plain_from;   /* command_follows() found nothing the shell runs, */
  gsize       plain_to;     /* nor a word's end, in [plain_from, plain_to) */
  GHashTable *runs;         /* the variables the text runs (NULL: none or not read yet) */
  gboolean    runs_read;    /* runs is read */
  gsize       words_to;     /* nmcli's words are read up to here (pd-redact-settings.c) */
  GArray     *spans;        /* (nullable) each mask's start, end and whether it counts (gsize), in order */
  gsize       header_end;   /* a header's word is read up to here (pd-redact-header.c) */
  gint8       curl_config;  /* the text gives curl a config: 1, -1 not, 0 not read (pd-redact-curl-config.c) */
} Redactor;

/* Of pd-redact-mask.c. */

/* Masks [start, end), a known token's shape or a value (counted unless
 * @counted), where it keeps the quoting: all of it?  The last guard of
 * every mask. */
gboolean _pd_redact_mask_span               (Redactor *r,
                                             gsize     start,
                                             gsize     end,
                                             gboolean  counted);
/* Masks the value [start, end) of a name or an option, and the pieces of
 * its word the shell joins to it, unless masking could hide what a
 * command runs. */
void     _pd_redact_span                    (Redactor *r,
                                             gsize     start,
                                             gsize     end);
/* Whether the value [vs, ve) of curl's -u, an Authorization header, a
 * bearer token, a URL's or a .netrc line's password is a secret. */
gboolean _pd_redact_credential_is_secret    (Redactor *r,
                                             gsize     vs,
                                             gsize     ve,
                                             gboolean  single_quoted);
/* Whether the value [vs, ve) the patterns found holds a secret. */
gboolean _pd_redact_found_value_is_secret   (Redactor *r,
                                             gsize     vs,
                                             gsize     ve);

/* Of pd-redact.c: tries pattern @which (RE_*) anchored at @pos; on a match
 * sets [*vs, *ve), the part to replace. */
gboolean _pd_redact_match_at                (Redactor *r,
                                             guint     which,
                                             gsize     pos,
                                             gsize    *vs,
                                             gsize    *ve);

/* Of pd-redact.c: one scan of @text (@len bytes, after the known keys and
 * PEM blocks are masked), its masks counted into *@count, the bytes its
 * reading of command lines looked at added to *@line_bytes (nullable),
 * and each mask's start, end and whether it counts as a redaction (1)
 * or is a piece of one (0) appended to @spans (nullable; gsize).  Returns the redacted text, or NULL when nothing was masked. */
char    *_pd_redact_scan                    (const char *text,
                                             gsize       len,
                                             guint      *count,
                                             gsize      *line_bytes,
                                             GArray     *spans);

/* Of pd-redact-continuation.c: whether @text holds a line continuation
 * bash takes out (a backslash and a line feed, unquoted or in "…"); then
 * it is redacted as bash reads it, the continuations taken out, each
 * mask laid back over the bytes it stands for, the continuations in
 * sight, in *@redacted (NULL: nothing masked), counted as
 * _pd_redact_scan() counts.  FALSE: scan @text as it is. */
gboolean _pd_redact_continued               (const char  *text,
                                             char       **redacted,
                                             guint       *count,
                                             gsize       *line_bytes);

/* Of pd-redact.c: whether @name at [@start, @name_end), assigned (NAME=,
 * NAME+=) or expanded with a default (${NAME:-…}), is a variable the text
 * runs (pd-redact-runs.c): its value is then kept in sight, whatever
 * spelling found it (a cookie's name=value too). */
gboolean _pd_redact_assigned_variable_runs  (Redactor   *r,
                                             const char *name,
                                             gsize       start,
                                             gsize       name_end);

/* Of pd-redact-spellings.c: each returns where the scan goes on, @i when
 * nothing was found.  A here-string, echo or printf into a program that
 * reads a password, vault login, htpasswd -b at @i: */
gsize    _pd_redact_try_spelling            (Redactor *r,
                                             gsize     i);
/* Cookie: or Set-Cookie: at @i ("cookie"): its values; */
gsize    _pd_redact_cookie_at               (Redactor *r,
                                             gsize     i);
/* curl's -b or --cookie at @i: its values, when no cookie file; */
gsize    _pd_redact_curl_cookie_at          (Redactor *r,
                                             gsize     i);
/* whether a cookie's name=value (as bash reads them) holds a secret: its
 * name is a session's or a secret's, or its value looks random; */
gboolean _pd_redact_cookie_is_secret        (const char *name,
                                             gsize       name_len,
                                             const char *value,
                                             gsize       value_len);
/* the name=value pairs from @pos, the first only when @one; */
gsize    _pd_redact_cookie_values           (Redactor *r,
                                             gsize     pos,
                                             gboolean  one);
/* the '/' of an Oracle client's user/PASSWORD@db at @i; */
gsize    _pd_redact_oracle_at               (Redactor *r,
                                             gsize     i);
/* The next shell word from *@p, blanks skipped, before @limit: [*ws,
 * *we), *@p after it; FALSE where the command's words end. */
gboolean _pd_redact_next_word               (Redactor *r,
                                             gsize    *p,
                                             gsize     limit,
                                             gsize    *ws,
                                             gsize    *we);
/* The value a word [ws, we) holds, inside its quotes when quoted whole;
 * FALSE when it has a quote, backslash or $ inside. */
gboolean _pd_redact_word_value              (Redactor *r,
                                             gsize     ws,
                                             gsize     we,
                                             gsize    *vs,
                                             gsize    *ve);
/* Masks the value of the word [ws, we) when it is a secret's. */
void     _pd_redact_mask_word               (Redactor *r,
                                             gsize     ws,
                                             gsize     we);

/* Of pd-redact-header.c: an HTTP header's word (-H 'Name: value',
 * --header=…, Name:value) that holds @i, read as bash reads it, its quotes and escapes taken out: the
 * credentials of Authorization, the values of Cookie and Set-Cookie, the
 * value of a name the name rule says is a secret's, masked where they are
 * written.  Returns where the scan goes on, @i when nothing was masked. */
gsize    _pd_redact_header_at               (Redactor *r,
                                             gsize     i);

/* Of pd-redact-user-word.c: curl's -u (-[flags]u, -U, --user,
 * --proxy-user) at @i, its user:password word read as bash reads it when
 * it has quotes in it: the password masked where it is written.  Returns
 * where the scan goes on, @i when nothing was masked. */
gsize    _pd_redact_user_word_at            (Redactor *r,
                                             gsize     i);
/* httpie's (and xh's) -a, -aUSER:…, --auth at @i, the command known to be
 * one: its user:password word read as bash reads it, quoted or not, the
 * password masked where it is written.  Returns where the scan goes on,
 * @i when nothing was masked. */
gsize    _pd_redact_httpie_auth_at          (Redactor *r,
                                             gsize     i);
/* Of pd-redact-user-split.c: a user:password word whose user part bash
 * expands or quotes, split at the colon bash hands curl or httpie. */
gsize    _pd_redact_user_split_at           (Redactor *r,
                                             gsize     i);
gsize    _pd_redact_httpie_split_at         (Redactor *r,
                                             gsize     i);
gsize    _pd_redact_quoted_user_option_at   (Redactor *r,
                                             gsize     i);
/* NAME=value or --name=value at @start (its name to @name_end, then
 * '='), in a tool call's JSON string, its value holding an escape of
 * the string's or the shell's: read as bash reads the word, the value
 * masked where written.  Returns where the scan goes on, @start when
 * nothing was masked (or the value is written as it reads). */
gsize    _pd_redact_json_assignment_at      (Redactor *r,
                                             gsize     start,
                                             gsize     name_end);
/* A secret's name at [@start, @name_end) whose value is a word of
 * double quotes holding a literal $' ("$'SECRET'", \"$'…'\" in a JSON
 * string): the word after '=' or blanks read as bash reads it and masked
 * whole where it is written.  Returns where the scan goes on, @start
 * when nothing was masked. */
gsize    _pd_redact_dollar_quote_value_at   (Redactor *r,
                                             gsize     start,
                                             gsize     name_end);

/* Of pd-redact-code.c: a password given to an HTTP library's basic
 * authentication in code at @i (requests' auth=('bob', 'X') at its auth,
 * HTTPBasicAuth('bob', 'X') and the like at their Auth), a literal,
 * masked.  Returns where the scan goes on, @i when nothing was masked. */
gsize    _pd_redact_code_auth_at            (Redactor *r,
                                             gsize     i);
gsize    _pd_redact_code_call_at            (Redactor *r,
                                             gsize     i);
/* Of pd-redact-assign-forms.c: NAME=(X), NAME+=(X); NAME=X\;Y whole. */
gsize    _pd_redact_array_value_at          (Redactor *r,
                                             gsize     start,
                                             gsize     name_end);
gsize    _pd_redact_escaped_value_at        (Redactor *r,
                                             gsize     start,
                                             gsize     name_end);

/* Of pd-redact-curl-config.c: a line of curl's config at @i (user =
 * "bob:X", pass X, oauth2-bearer: X) in a text that gives curl one (-K,
 * --config, curlrc): its secret masked.  Returns where the scan goes on,
 * @i when nothing was masked. */
gsize    _pd_redact_curl_config_at          (Redactor *r,
                                             gsize     i);
/* Whether the text gives curl a config (-K, --config, curlrc): read once. */
gboolean _pd_redact_gives_curl_config       (Redactor *r);
/* Of pd-redact-curl-options.c: curl's --proxy-pass X, --cert FILE:X,
 * -E FILE:X; printf's argument a config's %s stands for. */
gsize    _pd_redact_curl_option_at          (Redactor *r,
                                             gsize     i);
gsize    _pd_redact_printf_config_at        (Redactor *r,
                                             gsize     i);

/* Of pd-redact-settings.c: each returns where the scan goes on, @i (or 0
 * for those given a name) when nothing was found.  SQL's IDENTIFIED at
 * @i: */
gsize    _pd_redact_identified_at           (Redactor *r,
                                             gsize     i);
/* PASSWORD 'X', SET PASSWORD … = 'X' after the name PASSWORD [start, end); */
gsize    _pd_redact_password_literal        (Redactor *r,
                                             gsize     start,
                                             gsize     end);
/* a YAML block value (NAME: | and the lines under it) after the name; */
gsize    _pd_redact_yaml_block              (Redactor *r,
                                             gsize     start,
                                             gsize     end);
/* <add key="NAME" value="X"/> around the name; */
gsize    _pd_redact_add_value               (Redactor *r,
                                             gsize     start,
                                             gsize     end);
/* .NET's <add …/> at @i, its attributes in any order (<add value="X"
 * key="Password"/>): the value of a key or name that is a secret's; */
gsize    _pd_redact_add_element             (Redactor *r,
                                             gsize     i);
/* nmcli at @i: its secret settings' values; */
gsize    _pd_redact_nmcli_at                (Redactor *r,
                                             gsize     i);
/* npm, pnpm or yarn at @i: config set KEY VALUE; */
gsize    _pd_redact_npm_config_at           (Redactor *r,
                                             gsize     i);
/* Whether the name at @start, its value from @vs, is in the quoted
 * program of sed or awk: then *@ve is cut to what of it may be a
 * literal value (to the program's next '/'), @vs when none, and where
 * the scan goes on is returned (0: no program). */
gsize    _pd_redact_program_value           (Redactor *r,
                                             gsize     start,
                                             gsize     vs,
                                             gsize    *ve);
/* a password given as a command's word at @i (a word's start): redis-cli's
 * AUTH [USER] X, SQL's WITH PASSWORD 'X', npm|pnpm|yarn config set NAME X,
 * aws configure set NAME X. */
gsize    _pd_redact_try_positional          (Redactor *r,
                                             gsize     i);

G_END_DECLS
