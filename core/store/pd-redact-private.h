/* pd-redact-private.h: what the parts of the redactor share.
 *
 * pd-redact.c scans text (pd-redact-mask.c masks the values it finds,
 * pd-redact-scan-private.h their shared state), after pd-redact-pem.c masked
 * private key blocks, trying the patterns of pd-redact-patterns.c;
 * pd-redact-names.c holds the name rule (pd-redact.h states it) that says
 * whose value is a secret;
 * pd-redact-words.c reads shell words, joined of quoted parts, and how
 * deep in JSON strings a text's bytes are;
 * pd-redact-spellings.c and pd-redact-settings.c find secrets no name
 * rule's NAME=value spelling says;
 * pd-redact-values.c says which values hold no secret; pd-redact-neutral.c
 * how much of one a mask may take and keep the shell's quoting; pd-redact-json.c
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
 * pd-redact-patterns.c), or 0: they end an unquoted value as a blank
 * does, whole, so a mask never cuts one. */
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

/* The length of a line continuation at @p of @t (@len bytes), or 0: a
 * backslash and a line break (CR LF too), which the shell takes out, the
 * word going on after it, or its spelling inside a JSON string (\\ and \n,
 * \\ \r \n).  CONT of pd-redact-patterns.c.  @p must start an escape, not be the
 * byte a backslash before it escapes. */
static inline gsize
_pd_redact_continuation_len (const char *t,
                             gsize       len,
                             gsize       p)
{
  if (p + 1 >= len || t[p] != '\\')
    return 0;
  if (t[p + 1] == '\n')
    return 2;
  if (p + 2 < len && t[p + 1] == '\r' && t[p + 2] == '\n')
    return 3;
  if (p + 3 < len && t[p + 1] == '\\' && t[p + 2] == '\\' && t[p + 3] == 'n')
    return 4;
  if (p + 5 < len && memcmp (t + p + 1, "\\\\r\\n", 5) == 0)
    return 6;
  return 0;
}

/* How deep in JSON strings each byte of a text is (pd-redact-words.c):
 * 0 outside, 1 in a JSON string's text (a tool call's arguments: the
 * JSON escape \n is a line break of the command there, \\ a backslash),
 * 2 in a JSON string held escaped in one ({\"cmd\":\"…\"} inside a
 * JSON string), 3 in one held in that (its quotes \\\"), and so on to
 * JSON_DEPTH, where a string held deeper is counted (the patterns are
 * compiled to PD_REDACT_PATTERN_DEPTH; deeper, known token shapes only are
 * masked).  A string opens at a quote after { [ , or : and ends at its
 * mate, never over a raw line break; a text whose first quote closes a
 * string ("…x", "b") starts inside one.  JSON_OPENS marks the quote that
 * opens a string (\" for one of depth 2): a command line starts after
 * it. */
enum { JSON_DEPTH = 7, JSON_OPENS = 8 };

/* The depths of @t (@len bytes, @len + 1 of them), or NULL when it holds
 * no quote (all 0).  One pass, or two. */
guint8  *_pd_redact_json_depths            (const char *t,
                                            gsize       len);
static inline guint
_pd_redact_depth_at (const guint8 *depths,
                     gsize         p)
{
  return depths != NULL ? depths[p] & JSON_DEPTH : 0;
}

/* The quoting of a value as the shell reads it, once the escapes of the
 * JSON strings it is in are read: what a backslash in it means. */
typedef enum
{
  QUOTING_NONE,    /* unquoted: \x is x */
  QUOTING_SINGLE,  /* '…': a backslash is text */
  QUOTING_DOUBLE,  /* "…": \ escapes $ ` " \ and a line break only */
  QUOTING_ANSI,    /* $'…': \n, \r, \x0a, \012, \cJ… are line breaks */
} PdRedactQuoting;

/* Whether the quote before @vs closes an empty pair ('', "", $''). */
gboolean        _pd_redact_after_empty_quotes (const char *t,
                                               gsize       vs);

/* The quoting of the value at @vs of @t: the quote right before it, read
 * through the JSON strings @vs is in (at @depth: \" in a JSON string is
 * the shell's ", \\\" its escaped quote, which opens nothing, like the
 * JSON string's own quote). */
PdRedactQuoting _pd_redact_value_quoting   (const char   *t,
                                            const guint8 *depths,
                                            gsize         vs,
                                            guint        *depth);

/* The length of an escape a value takes whole at @p of @t, unquoted, as
 * BARE_ESCAPE of pd-redact-patterns.c reads it at @depth, or 0.  In a JSON
 * string (a backslash and what it escapes: \S, \;, \\\\, \\ before a value's
 * character; a quote (\"), a line continuation, \n, \t, \u… and one of
 * Unicode's spaces are none); outside one a backslash and any character
 * but a quote, a blank or a line break (\n is n). */
gsize    _pd_redact_escape_len             (const char *t,
                                            gsize       len,
                                            gsize       p,
                                            guint       depth);
/* The length of an escaped quote at @p of @t, the shell's \" or \' as
 * it is written at @depth (\" \\\" \\' in a JSON string, and 8 and 5
 * bytes in one held in one), or 0: a value's word goes on after it. */
gsize    _pd_redact_escaped_quote_len      (const char *t,
                                            gsize       len,
                                            gsize       p,
                                            guint       depth);
/* The end of the unquoted part of a word at @p: value bytes, earlier masks
 * and escapes (_pd_redact_escape_len()), up to a blank or a sign. */
gsize    _pd_redact_unquoted_end           (const char *t,
                                            gsize       len,
                                            gsize       p,
                                            guint       depth);

gboolean _pd_redact_name_is_secret (const char *name);

/* Of pd-redact-neutral.c: the part of [@start, @end) of @t a mask may
 * take, its start in *@part_start, its end returned (both @start: none):
 * what leaves every quoting of the shell as it found it once masked, read
 * through the escapes of the JSON strings it is in.  Never a quote, a
 * backslash or the $ of $'…' that changes the quoting of what follows. */
gsize    _pd_redact_neutral_part           (const char   *t,
                                            const guint8 *depths,
                                            gsize         start,
                                            gsize         end,
                                            gsize        *part_start);
/* The shell's reading before each byte of @t (@len + 1 of them):
 * unquoted (and at a word's start or after a $), in '…', "…" or $'…',
 * after a backslash, in a comment, each JSON string (depth 1, read
 * through its escapes) a text of its own. */
guint8  *_pd_redact_reading_states         (const char   *t,
                                            gsize         len,
                                            const guint8 *depths);
/* Whether bash reads byte @k unquoted (not escaped, nor in a comment,
 * nor unknown) once the bytes before it are read. */
gboolean _pd_redact_reading_unquoted       (const guint8 *states,
                                            gsize         k);
/* Whether bash reads byte @k inside '…' (as text). */
gboolean _pd_redact_reading_single_quoted  (const guint8 *states,
                                            gsize         k);
/* The length of the line continuation bash takes out at byte @k of @t
 * (@len bytes, @depths its JSON strings'), or 0: a backslash and a line
 * feed (\\ and \n in a JSON string; a backslash and CR LF is none: the CR
 * is escaped, the LF ends the line), read unquoted or in "…", the
 * backslash escaping nothing before it, nor in a comment, '…' or $'…'. */
gsize    _pd_redact_reading_joins_line     (const guint8 *states,
                                            const guint8 *depths,
                                            const char   *t,
                                            gsize         len,
                                            gsize         k);
/* The last guard on a mask over [@start, @end): TRUE when [REDACTED]
 * leaves the shell's reading (@states) where the range leaves it, so
 * what follows is read the same.  Otherwise the value stays in sight (a
 * leak, the lesser harm than a command hidden from whoever approves). */
gboolean _pd_redact_mask_keeps_reading     (const guint8 *states,
                                            const guint8 *depths,
                                            gsize         start,
                                            gsize         end);


/* What the shell runs and puts in ($(…), `…`): masked, it hid a command
 * from whoever approves it ("x$(touch …)"; tried as an attacker would).
 * Whatever its quoting: single quotes inside a command quoted for another
 * shell (ssh h "PGPASSWORD='$(…)' psql", bash -c "…") do not stop the
 * outer shell's substitution, which the text alone does not show.  A
 * parameter expansion (${…}) too: inside it bash reads quotes of its own,
 * so a " in ${X:-'"'} does not end the "…" around it, and a mask read to
 * that " took the opening one: "; touch PWN" after it read as quoted
 * (tried as an attacker would).  And $[…] (below). */
static inline gboolean
_pd_redact_value_runs_command (const char *value)
{
  /* $[…] is bash's old arithmetic expansion, as $((…)) is: it runs code
   * through an array subscript (x='a[$(touch PWN)]'; $[x]). */
  return strstr (value, "$(") != NULL || strstr (value, "${") != NULL || strstr (value, "$[") != NULL
         || strchr (value, '`') != NULL;
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
 * ; & | < > or a line break, raw or as the escapes of the JSON strings
 * it is in (@depth: \n, \u000a, \u003b…) or of its quoting (@quoting,
 * then the quotes inside it: $'a\nb'), more than 4 blank-separated words,
 * a word that looks like an option ( -x, --x), or a blank at its start or
 * end inside its quotes.  Such a value is never masked (its cost: a
 * password holding those signs is shown).  A backslash before n is no
 * line break in '…', "…" or unquoted ('x9\nQ7' is masked). */
gboolean _pd_redact_value_hides_syntax     (const char     *value,
                                            gsize           len,
                                            PdRedactQuoting quoting,
                                            guint           depth);
/* Whether a sign that ends or joins a command is at @p (before @end):
 * ; & | < > or a line break, raw or, in a JSON string (@depth > 0), as a
 * JSON escape. */
gboolean _pd_redact_syntax_at              (const char *p,
                                            const char *end,
                                            guint       depth);

/* The parts of a shell word at @pos ('a'"b"c: 3), its end in *@end. */
guint    _pd_redact_joined_word            (const char *text,
                                            gsize       len,
                                            gsize       pos,
                                            guint       depth,
                                            gsize      *end);
/* Whether a joined word is a reference ($X"y") or holds what the shell
 * runs ($(…) or `…` in any part, quoted or escaped): no secret to mask. */
gboolean _pd_redact_joined_holds_no_secret (const char *value);
/* The word as the shell reads it, its quotes and backslashes gone, in
 * place: "mysql", 'mysql', m'ysql' and \"mysql\" are mysql. */
void     _pd_redact_unquote_word           (char       *word);

/* The short options a MySQL or MariaDB client (or sshpass) takes without
 * an argument, which may stand grouped before its -p: mysql -vpSECRET.
 * Not u, h, P, S, D, e, r, w, T…: those take one (-uprod is the user
 * "prod", no password). */
#define GROUPED_FLAGS "vsNBEtnqXHCfiAbcGxlKQRFdYyV"

/* The password options of the command an option at @i belongs to:
 * MySQL and MariaDB clients take it glued to -p (-pSECRET, -vpSECRET;
 * their -p SECRET asks, and SECRET is the database), sshpass glued or
 * not (-pSECRET, -p SECRET), redis-cli (and its forks valkey-cli and
 * keydb-cli) as -a SECRET or --pass SECRET, the login of a container
 * registry's client (docker, podman, nerdctl, buildah, skopeo, crane,
 * oras, az; helm registry login, crane auth login, az acr login) as
 * -p SECRET, -pSECRET or -p=SECRET, curl its -u user:SECRET also glued
 * (-uuser:SECRET), the MongoDB tools (mongosh, mongodump…) -p SECRET,
 * OpenLDAP's (ldapsearch…) -w SECRET or -wSECRET, sqlcmd and bcp
 * -P SECRET or -PSECRET, Samba's clients -U user%SECRET (and whose
 * --password takes no value after a blank: PW_LONG_NO_SPACED).  Elsewhere
 * -p2222, -pr, -p8080:80 (docker run's), -a and -u1000:1000 are no
 * secrets.  The command is the first client named since the start of its
 * command line (; | & ( ` or a line break), read forward as the scan
 * goes (each byte once: linear, however many options follow); its
 * name is read as the shell reads it ("mysql", m'ysql'), and a command
 * quoted for another shell (ssh host "mysql -pX", bash -c 'mysql -pX') is
 * found inside its quote. */
enum {
  PW_GLUED_P = 1 << 0,
  PW_SPACED_P = 1 << 1,
  PW_SPACED_A = 1 << 2,
  PW_GLUED_U = 1 << 3,
  PW_SPACED_W = 1 << 4,
  PW_SPACED_CAP_P = 1 << 5,
  PW_SMB_U = 1 << 6,
  PW_GLUED_W = 1 << 7,
  PW_GLUED_CAP_P = 1 << 8,
  /* Not a password form: the command's long options named as a secret
   * take no value after a blank.  PostgreSQL's clients (psql, pg_dump…)
   * take --password as a flag (it asks), MySQL's and MariaDB's take
   * --password=X only (--password X asks, and X is the database). */
  PW_LONG_NO_SPACED = 1 << 9,
  /* 7-Zip's (7z, 7za, 7zr, 7zz) -pSECRET, glued and never after other
   * flags (-spf is a switch of its own; its -p SECRET asks). */
  PW_SEVENZIP = 1 << 10,
  /* openssl's -k SECRET (enc's password). */
  PW_SPACED_K = 1 << 11,
  /* lftp's -u user,SECRET. */
  PW_LFTP_U = 1 << 12,
  /* The user/SECRET@db connect string of Oracle's clients (sqlplus,
   * sqlldr, rman, expdp, impdp, exp, imp, dgmgrl). */
  PW_ORACLE = 1 << 13,
  /* zip's and unzip's -P SECRET after grouped flags: -rP X, -qP X. */
  PW_GROUPED_CAP_P = 1 << 14,
  /* ssh-keygen's -N NEW_PASSPHRASE (its -P OLD is PW_SPACED_CAP_P). */
  PW_SPACED_N = 1 << 15,
  /* keytool's -new NEW_PASSWORD (-storepasswd, -keypasswd). */
  PW_SPACED_NEW = 1 << 16,
  /* Not a password form: sed's and awk's quoted program is code, a
   * name=value in it no value (s/^API_TOKEN=//p). */
  PW_PROGRAM = 1 << 17,
  /* ssh-keygen's -N NEW and -P OLD after its flags or glued: -qN X,
   * -qNX, -NX, -pqP X (getopt's grouping). */
  PW_KEYGEN = 1 << 18,
  /* MySQL's and MariaDB's long option by a unique prefix: --pas=X (the
   * name rule's passw… take the longer ones). */
  PW_LONG_PREFIX = 1 << 19,
  /* openssl's -kX and -k=X glued (-key, -kdf, -kfile… are options). */
  PW_GLUED_K = 1 << 20,
  /* openssl's -K HEX, enc's raw key (its -iv is none). */
  PW_SPACED_CAP_K = 1 << 21,
  /* httpie's (http, https) and xh's -a user:SECRET, --auth user:SECRET. */
  PW_HTTPIE_A = 1 << 22,
};

/* The short options of ssh-keygen that take no argument, which may stand
 * grouped before its -N or -P: ssh-keygen -qN X, -pqP X. */
#define KEYGEN_FLAGS "ABHKLQUXceghiklopquvy"

/* The short options of OpenLDAP's clients that take no argument, which may
 * stand grouped before their -w: ldapsearch -xw SECRET, -xWwSECRET. */
#define LDAP_FLAGS "xWZnvcMNQILtur"

/* The command line as read so far. */
typedef struct
{
  gsize    pos;         /* read up to here, */
  gsize    word;        /* in a word that starts here (G_MAXSIZE: between words), */
  guint    forms;       /* and found a command with these password options (PW_*) */
  gboolean registry;    /* or a registry client, whose login comes next */
  gboolean word_masked; /* a mask is in the word at word */
  gsize    bytes_read;  /* how many bytes the reading looked at, in all */
  const guint8 *depths; /* of the text's JSON strings (NULL: none), whose quotes start lines */
} PdRedactCommandLine;

void  _pd_redact_command_line_init    (PdRedactCommandLine *line);
/* The PW_* forms of the command an option at @i of @text belongs to. */
guint _pd_redact_password_options_at  (PdRedactCommandLine *line,
                                       const char          *text,
                                       gsize                i);
/* A mask over [start, end): part of a word to the command line, as
 * [REDACTED] is when the text is redacted again. */
void  _pd_redact_command_line_masked  (PdRedactCommandLine *line,
                                       const char          *text,
                                       gsize                start,
                                       gsize                end);
/* A password option at @p (a word's start): which form it is (PW_*), or 0.
 * Grouped flags may come before a glued -p (mysql -vpSECRET), and the
 * glued value may follow a '=' (docker login -p=SECRET). */
guint _pd_redact_password_option_form (const char          *p);
/* ssh-keygen's -N or -P at @p, after its flags (-qN, -pqP): the length
 * of the option, or 0. */
gsize _pd_redact_keygen_option_len    (const char          *p);

/* Whether a blank (a space, a tab, one of Unicode's spaces, or \ and a
 * line break) is at @p. */
gboolean _pd_redact_option_blank (const char *p);

/* openssl's pass phrase options at @p (-passin, -passout, -pass, with
 * one dash or two) and the blanks or the '=' after them: their length,
 * or 0. */
gsize _pd_redact_passphrase_option_len (const char          *p);

/* Of pd-redact-runs.c: the names of the shell variables @t (@len bytes,
 * its JSON strings' @depths) expands where the shell runs what they hold
 * (a command's word, eval's words, sh -c's code, python -c's…), a set of
 * strings; NULL when none.  One pass over the text, and one over each
 * depth of its JSON strings: linear. */
GHashTable *_pd_redact_run_names (const char   *t,
                                  gsize         len,
                                  const guint8 *depths);

/* Of pd-redact-pem.c: @text with its PEM private key blocks masked, their
 * number added to *@count, or NULL when it holds none. */
char *_pd_redact_pem      (const char *text,
                           guint      *count);

/* pd_redact(), and in *@line_bytes how many bytes its reading of command
 * lines looked at: each a bounded number of times, so a small multiple of
 * the text's length (test-redact-attack's /pd/redact/linear-lookups).
 * The words after the values, read for what the shell runs, count too. */
char *_pd_redact_counting (const char *text,
                           guint      *n_redacted,
                           gsize      *line_bytes);

G_END_DECLS
