/* pd-redact-patterns.c: the patterns of the secrets pd-redact.c masks.
 *
 * Each is tried anchored where the scan of pd-redact.c found where a
 * secret could start.  Every pattern is possessive or bounded, and runs on
 * bytes (G_REGEX_RAW), so the cost stays linear in the text.  The
 * quoting rules of the shell they follow (and those of the JSON strings a
 * command may be held in) are said with each piece.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-redact.h"
#include "pd-redact-private.h"
#include "pd-redact-patterns-private.h"

/* The patterns run on bytes: a character of UTF-8 is one to four of them,
 * and a mask must never cut one (a value before a no-break space, C2 A0,
 * was masked with its C2: the lone A0 left made the stored session, its
 * export and serve's replies invalid UTF-8; tried as an attacker would).
 * A byte of 80-FF is a value's unless it starts one of Unicode's spaces
 * (U+0085, U+00A0, U+1680, U+2000-200A, U+2028, U+2029, U+202F, U+205F,
 * U+3000), which end a value as a blank does: whole characters either way
 * (PCRE2's \s on bytes matched the A0 and the 85 alone). */
#define USPACE \
  "(?:\\xc2[\\x85\\xa0]|\\xe1\\x9a\\x80|\\xe2\\x80[\\x80-\\x8a\\xa8\\xa9\\xaf]|\\xe2\\x81\\x9f|\\xe3\\x80\\x80)"
/* A line break escaped for the shell (\ and a line break), which the shell
 * takes out, or its spelling inside a JSON string (\\ and \n): the word
 * goes on after it (_pd_redact_continuation_len() of pd-redact-private.h). */
#define CONT "(?:\\\\\\r?\\n|\\\\\\\\(?:\\\\r)?\\\\n)"
/* The blanks between an option and its value: a space or a tab, one of
 * Unicode's spaces, or a line continuation (--password \<newline> X). */
#define BLANK "(?:[ \\t]|" USPACE "|" CONT ")"
/* A mask an earlier redaction left stands for a value's characters, so a
 * value is read the same when the text is redacted again (its brackets
 * made another reading of it the second time; found by fuzz-redact). */
#define MASK "\\[REDACTED\\]"
#define HIGH_VALUE_BYTE "(?!" USPACE ")[\\x80-\\xff]"
/* What a secret value may be made of: never quotes, backslashes, brackets,
 * braces, parentheses, separators or whitespace.  That is what keeps a
 * redacted JSON string or a rendered plan line intact. */
#define VALUE_CHARS "(?:[^\\s\"'`\\\\\\[\\]{}()<>,;&|\\x80-\\xff]|" HIGH_VALUE_BYTE "|" MASK ")"
/* An escape, as the shell reads one outside single quotes: a backslash and
 * the character after it, taken together (a\ b, a\"b), so a value is masked
 * whole and a JSON escape is never cut in two.  (Of a character of UTF-8
 * the backslash takes the first byte, the value the others.) */
#define ESCAPE "\\\\[^\\n\\r]"
/* Unquoted, a backslash is taken with what it escapes, as the shell reads
 * it (tried as an attacker would: PGPASSWORD=\Secr3t was stored as
 * written, bash's value is Secr3t); in a JSON string (BARE_ESCAPE_SHELL
 * outside one, bare_escape_nested() in one held in one):
 *  - before a space or a sign, not one of Unicode's spaces (which ends the
 *    value) nor " or a backslash (below);
 *  - before a letter or a digit, but not n r t b f u U: \n, \t and \u0041
 *    are the JSON string's own escapes;
 *  - doubled, \\\\ (a JSON string's spelling of the shell's \\), or \\ before
 *    a value's character or a line continuation.  Never before a quote or another escape (\\\",
 *    \\', \\ and \n in a JSON string): the mask would take the backslash
 *    that escapes it and leave a quote, or a line break, that the shell
 *    reads as its own;
 *  - never \" (ssh h \"mysql -pX\" keeps its quote, and inside a JSON
 *    string it opens or closes a quoted part).
 * A value goes on after an escaped quote and a line continuation, masked
 * apart (redact_span()). */
#define BARE_ESCAPE \
  "(?:\\\\(?!" USPACE ")[^\\n\\rA-Za-z0-9\\t\"\\\\]|\\\\(?![nrtbfuU])[A-Za-z0-9]" \
  "|\\\\\\\\\\\\\\\\|\\\\\\\\(?=" VALUE_CHARS "|\\\\\\r?\\n))"
/* Outside a JSON string (depth 0 of pd-redact-private.h) the shell's
 * reading only: a backslash and any character but a quote, a blank or a
 * line break (PGPASSWORD=Q\w\e\rty is Qwerty, \\ a backslash).  The
 * patterns are compiled once with each (_pd_redact_get_regex()). */
#define BARE_ESCAPE_SHELL "(?:\\\\(?!" USPACE ")[^\\n\\r\\t\"])"
/* In a JSON string held in one (depth 2) the shell's backslash is four,
 * eight three deep (bare_escape_nested() below): \\\\ before a value's
 * character, and \\\\\\\\ (the shell's \\) whole; never \\\\ alone, whose
 * character a mask would leave bare. */
/* A quoted value, up to its closing quote: in '…' everything is literal
 * text, backslashes too; in "…" and bash's $'…' an escaped quote does not
 * close it.  Quotes escaped themselves (\"…\" inside a JSON string) hold a
 * value with no quote, backslash, bracket or line break. */
#define SQUOTED_VALUE "(?<=(?<![\\\\$])')[^'\\n\\r]{1,256}+(?=')"
#define ANSI_VALUE "(?<=\\$')(?:[^'\\\\\\n\\r]|" ESCAPE "){1,256}+(?=')"
#define DQUOTED_VALUE "(?<=(?<!\\\\)\")(?:[^\"\\\\\\n\\r]|" ESCAPE "){1,256}+(?=\")"
/* An escaped quote (\" or \', also \\\" inside a JSON string) is the sign
 * itself to the shell, the words split at a blank after it: its value
 * holds none (PGPASSWORD=\"x rm victim\" runs rm; tried as an attacker
 * would).  A value of JSON's own \"…\" with a blank shows its other words. */
#define ESCAPED_QUOTED_VALUE \
  "(?<=[\"'])(?(?<=\\\\[\"'])(?=[^\\s\"'`\\\\]{1,256}+\\\\?[\"']))" \
  "(?:[^\"'`\\\\\\[\\]\\n\\r]|" MASK "){1,256}+(?=\\\\?[\"'])"
#define QUOTED_VALUE SQUOTED_VALUE "|" ANSI_VALUE "|" DQUOTED_VALUE "|" ESCAPED_QUOTED_VALUE
/* A value as written: quoted, or unquoted with its escapes. */
#define VALUE_PIECES "(?:" VALUE_CHARS "|" BARE_ESCAPE ")++"
#define VALUE "(?<v>" QUOTED_VALUE "|" VALUE_PIECES ")"
#define WORD_END "(?![A-Za-z0-9_\\-])"
/* A quote escaped: \" or \', and the shell's \" and \' inside a JSON
 * string, \\\" and \\'. */
#define ESCAPED_QUOTE "(?:\\\\\\\\\\\\\"|\\\\\\\\'|\\\\[\"'])"
/* An opening quote before a value: ' or ", escaped (ESCAPED_QUOTE), or
 * bash's ANSI-C quoting $'…' (and its $"…"); at depth 2 the shell's \" and
 * \' are 8 and 5 bytes too, 16 and 9 three deep (open_quote_nested()
 * below: PGPASSWORD=\"x opens no value there either). */
#define OPEN_QUOTE "(?:\\$?(?:\\\\\\\\\\\\\"|\\\\\\\\'|\\\\?[\"']))?"
/* Where a value starts (group "s": a value the shell joins of parts,
 * -p"a"b, is found from there by _pd_redact_joined_word()), and the value;
 * after line continuations, which the shell takes out (PGPASSWORD=\<newline>
 * X is X; PGPASSWORD=\<newline> rm x an empty value, then rm x). */
#define WORD_VALUE "(?:" CONT ")*+(?<s>)(?:" OPEN_QUOTE VALUE ")?+"
/* curl's user before the ':' of user:password (none: -u :PASSWORD). */
#define CURL_USER "[^\\s:\"'`\\\\/]{0,256}+:"

/* A backslash the shell drops after a glued -p (-p\\PASSWORD), not a JSON
 * string's \\n, \\t, \\u…; outside one any (-pTr\\n is -pTrn). */
#define GLUED_ESCAPE "\\\\(?![nrtbfu])(?=[A-Za-z0-9])"
#define GLUED_ESCAPE_SHELL "\\\\(?=[A-Za-z0-9])"

/* A blank escaped as bash reads a word, \  or \<tab> (X-Api-Key:\ KEY), the
 * shell's \\  inside a JSON string (there it was stored as written). */
#define ESCAPED_BLANK "\\\\{1,15}+[ \\t]"
/* The schemes of an Authorization header. */
#define AUTH_SCHEMES "(?i:basic|bearer|token|digest|negotiate|ntlm|apikey|key|sso-key|aws4-hmac-sha256)"
/* What parts a scheme from its credentials, as bash reads the word (tried
 * as an attacker would: Authorization:Bearer\ TOKEN was stored as
 * written): a blank, escaped (\ , \<tab>, the shell's \\  inside a JSON
 * string), a JSON string's \t, or blanks quoted, opened and closed by the
 * same quote (Bearer' 'TOKEN, Bearer" "TOKEN, bash's ANSI-C quoting
 * Bearer$'\t'TOKEN, $'\x20', $'\040').  A quote that closes the header's
 * word before a blank parts no credentials: "Authorization: Basic" URL. */
#define GAP_BLANK "(?:" BLANK "|\\\\{1,15}+(?:[ \\t]|t|r|x20|x09|x0d|040|011|015))"
/* Quotes bash takes out of a word: empty ('', "", $'', Bearer''\ TOKEN,
 * Bearer\ ''TOKEN), and a quote that closes the header's word right before
 * an escaped or quoted blank ('Authorization: Bearer'\ TOKEN is one word). */
#define GAP_QUOTES \
  "\\$?+(\\\\{0,15}+[\"'])\\g{-1}" \
  "|\\\\{0,15}+[\"'](?=\\\\{1,15}+[ \\t]|\\$?+\\\\{0,15}+[\"'](?:[ \\t]|\\\\))"
/* Blanks quoted, opened and closed by the same quote (' ', " ", $'\t'). */
#define QUOTED_BLANKS "\\$?+(\\\\{0,15}+[\"'])" GAP_BLANK "++\\g{-1}"
/* bash's ANSI-C quoting of control characters and spaces, which no
 * credentials hold ($'\u0020', $'\40', $'\v', $'\f', $'\e', $'\c@'): the
 * scheme stays (it was masked with the token). */
#define ANSI_CONTROLS \
  "\\$'(?:\\\\{1,15}+(?:[abefnrtv ]|x[0-9A-Fa-f]{1,3}+|[0-7]{1,3}+|u0{0,2}+[0-9A-Fa-f]{1,2}+|c[^'\\s]))++'"
/* A scheme not in the list (Bot, SSWS, OAuth, Splunk, GenieKey,
 * Klaviyo-API-Key…): a word of letters, digits and '-' that blanks part
 * from a credential.  The credential goes, the scheme stays (tried as an
 * attacker would: Authorization: Bot TOKEN masked Bot and kept TOKEN). */
#define OTHER_SCHEME \
  "[A-Za-z][A-Za-z0-9\\-]{0,31}+(?:[ \\t]|" ESCAPED_BLANK ")++(?=[A-Za-z0-9_\\-.~+/])"
#define SCHEME_GAP \
  "(?:" GAP_QUOTES ")*+" \
  "(?:" QUOTED_BLANKS "|" ANSI_CONTROLS "|" GAP_BLANK ")" \
  "(?:" QUOTED_BLANKS "|" ANSI_CONTROLS "|" GAP_BLANK "|" GAP_QUOTES ")*+"


static const char * const patterns[N_RE] = {
  /* Known token shapes. */
  [RE_KEY] =
    "(?:sk-ant-[A-Za-z0-9_\\-]{20,}+"
    /* a key has a capital or a digit; kebab-case words (sk-learn-…) do not */
    "|sk-(?=[a-z_\\-]*+[A-Z0-9])[A-Za-z0-9_\\-]{20,}+"
    "|(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}+"
    "|github_pat_[A-Za-z0-9_]{22,}+"
    "|gl(?:pat|ptt|dt|rt|cbt|imt|soat|ffct|oas|agent)-[A-Za-z0-9_\\-]{20,}+"
    "|npm_[A-Za-z0-9]{36}"
    "|gsk_[A-Za-z0-9]{40,}+"
    "|dckr_pat_[A-Za-z0-9_\\-]{20,}+"
    "|pypi-[A-Za-z0-9_\\-]{50,}+"
    "|(?:AKIA|ASIA)[A-Z0-9]{16}"
    "|xox[abposr]-[A-Za-z0-9\\-]{10,}+"
    "|xapp-[0-9]-[A-Za-z0-9\\-]{10,}+"
    "|AIza[A-Za-z0-9_\\-]{35}"
    "|(?:sk_|rk_)(?:live_|test_)[A-Za-z0-9]{16,}+"
    "|hf_[A-Za-z0-9]{30,}+"
    "|SG\\.[A-Za-z0-9_\\-]{22}\\.[A-Za-z0-9_\\-]{43}"
    "|do[por]_v1_[a-f0-9]{64}"
    "|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"
    "|eyJ[A-Za-z0-9_\\-]{8,}+\\.eyJ[A-Za-z0-9_\\-]{8,}+\\.[A-Za-z0-9_\\-]*+"
    ")" WORD_END,
  /* Authorization: [scheme] credentials, the credentials quoted or not
   * (the scheme stays, and is never taken for the credentials: in
   * Authorization: Basic '$(id)' the mask took Basic; AUTHORIZATION= cmd
   * is an empty assignment, as in RE_ASSIGN). */
  [RE_AUTH] =
    "(?i:(?:proxy-)?authorization)(?:\\\\?[\"'])?(?:[ \\t]*+:|=(?![ \\t])|[ \\t]++=)(?:[ \\t]|" ESCAPED_BLANK ")*+(?:\\\\?[\"'])?"
    "(?>" AUTH_SCHEMES SCHEME_GAP "|" OTHER_SCHEME ")?(?:" ESCAPED_QUOTE "|\\$?+[\"'])?+"
    "(?!" AUTH_SCHEMES "(?!" VALUE_CHARS "))"
    "(?<v>(?:(?!\\$[A-Za-z_{])(?:" VALUE_CHARS "|" BARE_ESCAPE "))++)",
  [RE_BEARER] = "(?i:bearer)" SCHEME_GAP "(?<v>[A-Za-z0-9\\-._~+/]{8,}+=*+)",
  /* curl -u user:password (also glued: -uuser:password; after grouped
   * flags: -fsSu user:password; the proxy's: -U, --proxy-user; or quoted,
   * to its closing quote: -u 'user:a b', -u user:'a b'), the part after
   * the first ':'; unquoted with its escapes: -u user:pa\ ss). */
  [RE_CURL] =
    "(?:-[" CURL_FLAGS "]{0,16}+[uU](?:" BLANK "++|=)?+|--(?:proxy-)?user(?:" BLANK "++|=))"
    "(?|'" CURL_USER "(?<v>[^'\\n\\r]{1,256}+)(?=')"
    "|\"" CURL_USER "(?<v>(?:[^\"\\\\\\n\\r]|" ESCAPE "){1,256}+)(?=\")"
    "|" ESCAPED_QUOTE CURL_USER "(?<v>[^\\s\"'`\\\\\\[\\]]{1,256}+)(?=\\\\[\"'])"
    "|" ESCAPED_QUOTE CURL_USER "(?<v>" VALUE_PIECES ")"
    "|" CURL_USER "'(?<v>[^'\\n\\r]{1,256}+)(?=')"
    "|" CURL_USER "\"(?<v>(?:[^\"\\\\\\n\\r]|" ESCAPE "){1,256}+)(?=\")"
    "|" CURL_USER ESCAPED_QUOTE "(?<v>[^\\s\"'`\\\\\\[\\]]{1,256}+)(?=\\\\[\"'])"
    "|" CURL_USER ESCAPED_QUOTE "(?<v>" VALUE_PIECES ")"
    "|" CURL_USER "(?:" CONT ")*+(?<v>" VALUE_PIECES "))",
  /* Webhook URLs: whoever has the path may post. */
  [RE_HOOK] =
    "(?i:https?)://(?:hooks\\.slack\\.com/(?:services|workflows|triggers)/"
    "|(?:ptb\\.|canary\\.)?discord(?:app)?\\.com/api/webhooks/)(?<v>[A-Za-z0-9_/\\-]{8,}+)",
  /* scheme://user:password@host: the password goes. */
  [RE_USERINFO] =
    "[A-Za-z][A-Za-z0-9+.\\-]{0,30}+://[^\\s:/?#@\"'`<>\\\\\\[\\]{}]*+:"
    "(?<v>[^\\s/?#@\"'`<>\\\\\\[\\]{}]++)(?=@)",
  /* scheme://TOKEN@host: a key given as the user (a Sentry DSN, a
   * token in a git remote), 20 or more of a key's characters. */
  [RE_USERTOKEN] =
    "[A-Za-z][A-Za-z0-9+.\\-]{0,30}+://(?<v>[A-Za-z0-9_\\-]{20,}+)(?=@)",
  /* A .netrc line: machine HOST login USER password SECRET. */
  [RE_NETRC] = "(?i:password)[ \\t]++(?<v>(?:[^\\s\"'`\\x80-\\xff]|" HIGH_VALUE_BYTE ")++)",
  /* MySQL's (and sshpass's) -pPASSWORD, glued or quoted: -p'a b',
   * -p$'a b', after grouped flags: -vpPASSWORD, after a backslash the
   * shell drops: -p\PASSWORD (not \n, \t, \u…: a JSON string's). */
  [RE_GLUED] = "-[" GROUPED_FLAGS "]{0,16}+p=?+(?:" GLUED_ESCAPE ")?+" WORD_VALUE,
  /* sshpass's -p PASSWORD, redis-cli's -a PASSWORD and --pass PASSWORD,
   * the MongoDB tools' -p PASSWORD, OpenLDAP's -w PASSWORD, sqlcmd's, bcp's,
   * zip's and unzip's -P PASSWORD, openssl's -k PASSWORD and -K KEY, ssh-keygen's
   * -N and -P PASSPHRASE, keytool's -new PASSWORD, usermod's -p HASH;
   * OpenLDAP's flags grouped before -w: -xw PASSWORD. */
  [RE_SPACED] = "(?:-[paPwkKN]|-new|-[" LDAP_FLAGS "]{1,8}+w|--pass)" BLANK "++" WORD_VALUE,
  /* OpenLDAP's -wPASSWORD, sqlcmd's and bcp's -PPASSWORD, glued. */
  [RE_GLUED_WP] = "-(?:[" LDAP_FLAGS "]{0,8}+w|P)" WORD_VALUE,
  /* zip's and unzip's -P PASSWORD after grouped flags: -rP X, -qP X. */
  [RE_GROUPED_CAP_P] = "-[A-OQ-Za-z0-9]{1,8}+P" BLANK "++" WORD_VALUE,
  /* ssh-keygen's -N and -P after its flags, spaced or glued: -qN X,
   * -qNX, -NX, -pqP X. */
  [RE_KEYGEN] = "-[" KEYGEN_FLAGS "]{0,16}+[NP]" BLANK "*+" WORD_VALUE,
  /* openssl's -k glued: -kPASSWORD, -k=PASSWORD. */
  [RE_GLUED_K] = "-k=?+" WORD_VALUE,
  /* Samba's -U user%PASSWORD, --user=user%PASSWORD (the user may be
   * DOMAIN\user), also quoted: -U 'user%a b'. */
  [RE_SMB] =
    "(?:-U[ \\t]*+|--user(?:=|[ \\t]++))"
    "(?|'[^\\s%'\"]{1,256}+%(?<v>[^'\\n\\r]{1,256}+)(?=')"
    "|\"[^\\s%'\"]{1,256}+%(?<v>(?:[^\"\\\\\\n\\r]|" ESCAPE "){1,256}+)(?=\")"
    "|[^\\s%'\"]{1,256}+%(?<v>" VALUE_PIECES "))",
  /* NAME=value, NAME: value, "name": "value", NAME := value, NAME = value,
   * --name value, --name=value.  A blank right after an '=' glued to its
   * name ends the value there, empty, as the shell reads NAME= cmd: what
   * follows is the command (PGPASSWORD= rm x runs rm), never a value.
   * After NAME: blanks quoted as bash reads them (X-Api-Key:' 'KEY,
   * X-Api-Key:$'\t'KEY; tried as an attacker would) part the name from a
   * value that follows them directly, unquoted, to its first blank, quote
   * or sign ($TOKEN is a reference, read as before): the gap's closing quote opens no quoted value (inside a JSON
   * string that took the words after the key, X-Api-Key:' 'KEY x). */
  [RE_ASSIGN] =
    "(?<dash>--?)?[A-Za-z_][A-Za-z0-9_.\\-]{0,63}+"
    "(?(dash)(?:=" USPACE "*+|" BLANK "++(?![\\-\\s]))"
    "|(?:\\\\?[\"'])?(?:\\+?+=(?![=:])|[ \\t]*+(?::=|:(?![=:]))(?:[ \\t]|" ESCAPED_BLANK ")*+"
    "(?:(?<gq>(?:" QUOTED_BLANKS ")++)(?=(?!\\$)" VALUE_CHARS "))?+|[ \\t]++=(?![=:])[ \\t]*+))"
    "(?:" CONT ")*+(?<s>)(?:" OPEN_QUOTE "(?<v>(?(<gq>)" VALUE_CHARS "++|(?:" QUOTED_VALUE "|" VALUE_PIECES "))))?+",
  /* openssl's pass phrase arguments: -passin pass:PASSWORD, -passout
   * pass:…, -pass pass:… (quoted too: -pass 'pass:a b', pass:'a b'; after
   * '=': -passin=pass:…). */
  [RE_PASSARG] =
    "--?+pass(?:in|out)?+(?:[ \\t]++|=)"
    "(?|'pass:(?<v>[^'\\n\\r]{1,256}+)(?=')"
    "|pass:'(?<v>[^'\\n\\r]{1,256}+)(?=')"
    "|pass:\"(?<v>(?:[^\"\\\\\\n\\r]|" ESCAPE "){1,256}+)(?=\")"
    "|\"pass:(?<v>(?:[^\"\\\\\\n\\r]|" ESCAPE "){1,256}+)(?=\")"
    "|" ESCAPED_QUOTE "pass:(?<v>[^\\s\"'`\\\\\\[\\]]{1,256}+)(?=\\\\[\"'])"
    "|" ESCAPED_QUOTE "pass:(?<v>" VALUE_PIECES ")"
    "|pass:(?<v>" VALUE_PIECES "))",
  /* lftp's -u user,PASSWORD, also quoted: -u 'user,a b'. */
  [RE_LFTP] =
    "-u" BLANK "++"
    "(?|'[^\\s,'\"]{1,256}+,(?<v>[^'\\n\\r]{1,256}+)(?=')"
    "|\"[^\\s,'\"]{1,256}+,(?<v>(?:[^\"\\\\\\n\\r]|" ESCAPE "){1,256}+)(?=\")"
    "|[^\\s,'\"]{1,256}+,(?<v>" VALUE_PIECES "))",
  /* An Oracle connect string, user/PASSWORD@db or user/PASSWORD: no $
   * (a reference), quote or sign in it; or user/"PASS WORD"@db, Oracle's
   * quoted password (\"…\" in a JSON string), no $, backslash or
   * backtick in it. */
  [RE_ORACLE] =
    "[A-Za-z0-9_#.]{1,128}+/"
    "(?|\"(?<v>[^\"\\n\\r\\\\$`]{1,256}+)(?=\"(?:[@\\s'\\\\;&|)]|$))"
    "|\\\\\"(?<v>[^\"\\n\\r\\\\$`]{1,256}+)(?=\\\\\"(?:[@\\s'\\\\;&|)]|$))"
    "|(?<v>[^\\s/@\"'`\\\\$;&|<>()\\[\\]{}]{1,256}+)(?=[@\\s\"'\\\\;&|)]|$))",
  /* An XML element's text: <password>PASSWORD</password>. */
  [RE_XML] = "[A-Za-z_][A-Za-z0-9_.:\\-]{0,63}+>(?<v>" VALUE_PIECES ")(?=</)",
  /* A cookie's value: name=VALUE (Cookie:, Set-Cookie:, curl -b); an
   * escaped ; ends it, as the shell gives it to curl (Cookie:\ a=X\;\ b=1
   * is a=X; b=1, and was stored as written). */
  [RE_COOKIE] =
    "[^=;,\\s\"'`\\\\<>()\\[\\]{}]{1,128}+="
    "(?<v>(?:(?!\\\\{1,15}+;)(?:" VALUE_CHARS "|" BARE_ESCAPE "))++)",
};

/* @n backslashes, as a pattern reads them. */
static void
append_backslashes (GString *pattern,
                    gsize    n)
{
  for (gsize i = 0; i < n; i++)
    g_string_append (pattern, "\\\\");
}

/* BARE_ESCAPE_NESTED and OPEN_QUOTE_NESTED for a JSON string held @depth
 * deep (2 or more), where the shell's backslash is 2^@depth of them: its
 * \\ whole, or its \ before a value's character; its \" (2^(@depth + 1)
 * - 1 backslashes and a quote) and \' open no value, nor do the forms of
 * the strings it is in. */
static char *
bare_escape_nested (guint depth)
{
  GString *pattern = g_string_new ("(?:");
  gsize width = (gsize) 1 << depth;

  append_backslashes (pattern, 2 * width);
  g_string_append_c (pattern, '|');
  append_backslashes (pattern, width);
  g_string_append (pattern, "(?=" VALUE_CHARS "))");
  return g_string_free (pattern, FALSE);
}

static char *
open_quote_nested (guint depth)
{
  GString *pattern = g_string_new ("(?:\\$?(?:");

  for (guint d = depth; d >= 1; d--)
    {
      append_backslashes (pattern, ((gsize) 2 << d) - 1);
      g_string_append (pattern, "\"|");
      append_backslashes (pattern, (gsize) 1 << d);
      g_string_append (pattern, "'|");
    }
  g_string_append (pattern, "\\\\?[\"']))?");
  return g_string_free (pattern, FALSE);
}

/* The pattern @which, compiled once, and the numbers of its groups "s"
 * and "v" (-1 when it has none): as read at @depth in JSON strings, 0 as
 * the shell reads it (BARE_ESCAPE_SHELL, GLUED_ESCAPE_SHELL), 2 and more
 * with bare_escape_nested() and open_quote_nested().  NULL deeper than
 * PD_REDACT_PATTERN_DEPTH. */
GRegex *
_pd_redact_get_regex (guint  which,
                      guint  depth,
                      int   *s_group,
                      int   *v_group)
{
  static gsize once = 0;
  static GRegex *regexes[PD_REDACT_PATTERN_DEPTH + 1][N_RE];
  static int s_groups[N_RE], v_groups[N_RE];

  if (g_once_init_enter (&once))
    {
      for (guint i = 0; i < (PD_REDACT_PATTERN_DEPTH + 1) * N_RE; i++)
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(GString) pattern = g_string_new (patterns[i % N_RE]);
          GRegex **regex = &regexes[i / N_RE][i % N_RE];
          guint d = i / N_RE;

          if (d == 0)
            {
              g_string_replace (pattern, BARE_ESCAPE, BARE_ESCAPE_SHELL, 0);
              g_string_replace (pattern, GLUED_ESCAPE, GLUED_ESCAPE_SHELL, 0);
            }
          else if (d >= 2)
            {
              g_autofree char *bare = bare_escape_nested (d);
              g_autofree char *open = open_quote_nested (d);

              g_string_replace (pattern, BARE_ESCAPE, bare, 0);
              g_string_replace (pattern, OPEN_QUOTE, open, 0);
            }
          /* Anchored when compiled: PCRE2's JIT does not take the
           * anchoring as a match option, and falls back to its (much
           * slower) interpreter then. */
          *regex = g_regex_new (pattern->str, G_REGEX_OPTIMIZE | G_REGEX_RAW | G_REGEX_ANCHORED, 0, &error);
          /* The patterns are constants: failing to compile is a bug, not input. */
          g_assert_no_error (error);
          s_groups[i % N_RE] = g_regex_get_string_number (*regex, "s");
          v_groups[i % N_RE] = g_regex_get_string_number (*regex, "v");
        }
      g_once_init_leave (&once, 1);
    }
  *s_group = s_groups[which];
  *v_group = v_groups[which];
  return depth <= PD_REDACT_PATTERN_DEPTH ? regexes[depth][which] : NULL;
}
