/* test-redact-header.c: an HTTP header's word read as bash reads it
 * (core/store/pd-redact-header.c), each row as text, in a tool call's JSON
 * text and as a JSON document's string value.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "pd-redact.h"
#include "test-redact-util.h"
#include "test-redact-attack-util.h"


/* Finding (round 16's attack, HIGH): $'\c' before the closing quote was
 * read as \c and a control character of the quote, so the string stayed
 * open to the reader while bash closed it: TOKEN$(touch …) was masked
 * with the $( of a command bash runs (stored "…$'\c'[REDACTED] /tmp/PWNED)'
 * https://x'").  Same with $'\c\\' (bash: one 0x1c, then the quote
 * closes).  bash 5.2 read for each spelling: $'\c'x' is \c, x and an open
 * quote; \c\\ one 0x1c; \c\' a 0x1c and a quote that does not close. */
static void
test_header_control_escape (void)
{
  static const RedactRow rows[] = {
    HIDE_NOTHING ("curl -H Authorization:Bearer$'\\c'TOKENABCDEF123$(touch pwned)' https://x'", NULL, "$(touch pwned)"),
    HIDE_NOTHING ("curl -H Authorization:Bearer$'\\c'TOKENABCDEF123$(reboot)' https://x'", NULL, "$(reboot)"),
    HIDE_NOTHING ("curl -H Authorization:Bearer$'\\c\\\\'TOKENABCDEF123$(touch pwned)' https://x'", NULL, "$(touch pwned)"),
    HIDE_NOTHING ("curl -H Cookie:$'\\c'session=T0kenZq9abc$(reboot)' x'", NULL, "$(reboot)"),
    HIDE_NOTHING ("curl -H X-Api-Key:$'\\c'S3cretZq9abc$(touch pwned)' x'", NULL, "$(touch pwned)"),
    /* the secret of F1b, after \c\\ (one 0x1c to bash) */
    MASKED ("curl -H 'Authorization: Bearer '$'\\c\\\\'Zq9SecretValue77 https://x",
            "curl -H 'Authorization: Bearer '$'\\c\\\\'[REDACTED] https://x", "Zq9SecretValue77"),
    /* \c\x: 0x1c and x */
    MASKED ("curl -H Authorization:Bearer$'\\c\\x'S3cretZq9abc https://x",
            "curl -H Authorization:Bearer$'\\c\\[REDACTED]'[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer$'\\cA'S3cretZq9abc https://x",
            "curl -H Authorization:Bearer$'\\cA'[REDACTED] https://x", "S3cretZq9abc"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* Finding (round 16's attack, MEDIUM-HIGH): an Authorization scheme not in
 * the list was taken for the credential: 'Authorization: Bot TOKEN' was
 * stored "Authorization: [REDACTED] TOKEN" (Okta's SSWS, OAuth, Splunk,
 * GenieKey, Klaviyo-API-Key alike, in wget, httpie, git, a Python dict
 * and JSON text).  A word of letters, digits and '-' before a blank is a
 * scheme now: it stays, the credential goes; a single word goes whole. */
static void
test_header_other_scheme (void)
{
  static const RedactRow rows[] = {
    MASKED ("curl -H 'Authorization: Bot MTAxNjY4OTk5ODg3NzY1NDMyMQ.GhJkLm.abcdefghijklmnopqrstuvwxyz012' https://x",
            "curl -H 'Authorization: Bot [REDACTED]' https://x", "MTAxNjY4OTk5ODg3NzY1NDMyMQ"),
    MASKED ("curl -H Authorization:' 'Bot' 'Zq9SecretValue77 https://x", "curl -H Authorization:' 'Bot' '[REDACTED] https://x",
            "Zq9SecretValue77"),
    MASKED ("curl -H 'Authorization: SSWS 00aBcZq9SecretValue77' x", "curl -H 'Authorization: SSWS [REDACTED]' x",
            "Zq9SecretValue77"),
    MASKED ("curl -H 'Authorization: Klaviyo-API-Key pk_Zq9SecretValue77' x",
            "curl -H 'Authorization: Klaviyo-API-Key [REDACTED]' x", "Zq9SecretValue77"),
    MASKED ("wget --header='Proxy-Authorization: OAuth ya29Zq9SecretValue77' x",
            "wget --header='Proxy-Authorization: OAuth [REDACTED]' x", "Zq9SecretValue77"),
    MASKED ("git -c http.extraHeader='Authorization: Splunk 1a2bZq9SecretValue77' clone x",
            "git -c http.extraHeader='Authorization: Splunk [REDACTED]' clone x", "Zq9SecretValue77"),
    MASKED ("http x Authorization:'GenieKey Zq9SecretValue77'", "http x Authorization:'GenieKey [REDACTED]'",
            "Zq9SecretValue77"),
    MASKED ("python3 -c \"requests.get(u, headers={'Authorization': 'Bot Zq9SecretValue77abc'})\"",
            "python3 -c \"requests.get(u, headers={'Authorization': 'Bot [REDACTED]'})\"", "Zq9SecretValue77"),
    MASKED ("curl -H 'Authorization: s3cr3tZq9Value' https://x", "curl -H 'Authorization: [REDACTED]' https://x",
            "s3cr3tZq9Value"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* Finding (round 15's attack, HIGH): header values bash joins of quoted
 * parts were stored and served in clear: X-Api-Key:' '$'KEY',
 * Authorization:Bearer$'\c@'TOKEN, and the family (ANSI-C escapes \xHH,
 * \NNN, \uHHHH, \cX, \e; parts "…" '…' $'…' joined; escaped blanks),
 * each round's patch having taken one spelling.  Masked now whatever the
 * spelling, the quotes bash takes out left in sight. */
static void
test_header_dequoted_masked (void)
{
  static const RedactRow rows[] = {
    /* the attacker's two */
    MASKED ("curl -H X-Api-Key:' '$'S3cretZq9abc' https://x", "curl -H X-Api-Key:' '$'[REDACTED]' https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer$'\\c@'S3cretZq9abc https://x",
            "curl -H Authorization:Bearer$'\\c@'[REDACTED] https://x", "S3cretZq9abc"),
    /* ANSI-C escapes for the gap */
    MASKED ("curl -H Authorization:Bearer$'\\cA'S3cretZq9abc https://x",
            "curl -H Authorization:Bearer$'\\cA'[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer$'\\001'S3cretZq9abc https://x",
            "curl -H Authorization:Bearer$'\\001'[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer$'\\U00000020'S3cretZq9abc https://x",
            "curl -H Authorization:Bearer$'\\U00000020'[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer$'\\t\\t'S3cretZq9abc https://x",
            "curl -H Authorization:Bearer$'\\t\\t'[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer$'\\x9'S3cretZq9abc https://x",
            "curl -H Authorization:Bearer$'\\x9'[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H Authorization:Bearer$'\\n'S3cretZq9abc https://x",
            "curl -H Authorization:Bearer$'\\n'[REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -H $'Authorization:\\x20Bearer\\x20S3cretZq9abc' https://x",
            "curl -H $'Authorization:\\x20Bearer\\x20[REDACTED]' https://x", "S3cretZq9abc"),
    /* the scheme spelled with escapes, the header after -H glued */
    MASKED ("curl -H Authorization:$'\\x42earer'\\ S3cretZq9abc https://x",
            "curl -H Authorization:$'\\x42earer'\\ [REDACTED] https://x", "S3cretZq9abc"),
    MASKED ("curl -HX-Api-Key:' '$'S3cretZq9abc' https://x", "curl -HX-Api-Key:' '$'[REDACTED]' https://x", "S3cretZq9abc"),
    /* the secret itself of joined parts, or escaped: each part masked */
    MASKED ("curl -H X-Api-Key:\"S3cret\"'Zq9abc' https://x", "curl -H X-Api-Key:\"[REDACTED]\"'[REDACTED]' https://x",
            "Zq9abc"),
    MASKED ("curl -H X-Api-Key:$'\\x53'3cretZq9abc https://x", "curl -H X-Api-Key:$'[REDACTED]'[REDACTED] https://x",
            "3cretZq9abc"),
    MASKED ("curl -H 'X-Api-Key: '\"S3cretZq9abc\" https://x", "curl -H 'X-Api-Key: '\"[REDACTED]\" https://x", "S3cretZq9abc"),
    MASKED ("curl -H X-Api-Key:\\ \\ $'\\u0053'3cretZq9abc https://x",
            "curl -H X-Api-Key:\\ \\ $'[REDACTED]'[REDACTED] https://x", "3cretZq9abc"),
    MASKED ("curl -H Private-Token:\\ S3cretZq9abc https://x", "curl -H Private-Token:\\ [REDACTED] https://x", "S3cretZq9abc"),
    /* a backslash $'…' keeps as written: the mask takes it whole, never
     * half of a JSON string's \\ */
    MASKED ("curl -H X-Api-Key:$' \\q'S3cretZq9abc x", "curl -H X-Api-Key:$' [REDACTED]'[REDACTED] x", "3cretZq9abc"),
    MASKED ("curl -H X-Auth-Token:$'\\e'S3cretZq9abc https://x", "curl -H X-Auth-Token:$'\\e'[REDACTED] https://x", "S3cretZq9abc"),
    /* cookies */
    MASKED ("curl -H Cookie:$'\\x20'session=$'S3cretZq9abc' https://x",
            "curl -H Cookie:$'\\x20'session=$'[REDACTED]' https://x", "S3cretZq9abc"),
    MASKED ("curl -H Cookie:' 'lang=en\\;\\ session=S3cret\"Zq9abc\" https://x",
            "curl -H Cookie:' 'lang=en\\;\\ session=[REDACTED]\"[REDACTED]\" https://x", "Zq9abc"),
    /* wget, httpie, git */
    MASKED ("wget --header=X-Api-Key:' '$'S3cretZq9abc' https://x", "wget --header=X-Api-Key:' '$'[REDACTED]' https://x",
            "S3cretZq9abc"),
    MASKED ("http https://x X-Api-Key:' '$'S3cretZq9abc'", "http https://x X-Api-Key:' '$'[REDACTED]'", "S3cretZq9abc"),
    MASKED ("git -c http.extraHeader=Authorization:Bearer$'\\x20'$'S3cretZq9abc' clone x",
            "git -c http.extraHeader=Authorization:Bearer$'\\x20'$'[REDACTED]' clone x", "S3cretZq9abc"),
    MASKED ("curl --proxy-header Proxy-Authorization:Basic$'\\040'\"dXNlcjpTM2NyM3Q=\" https://x",
            "curl --proxy-header Proxy-Authorization:Basic$'\\040'\"[REDACTED]\" https://x", "dXNlcjpTM2NyM3Q="),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* What follows the header's word, and a value that reads as syntax or
 * runs, stay in sight. */
static void
test_header_dequoted_hide_nothing (void)
{
  static const RedactRow rows[] = {
    HIDE_NOTHING ("curl -H X-Api-Key:' '$'S3cretZq9abc';touch pwned", "S3cretZq9abc", ";touch pwned"),
    HIDE_NOTHING ("curl -H X-Api-Key:' '$'S3cretZq9abc'$IFS;reboot", "S3cretZq9abc", "$IFS;reboot"),
    HIDE_NOTHING ("curl -H Authorization:Bearer$'\\c@'S3cretZq9abc&&reboot", "S3cretZq9abc", "&&reboot"),
    HIDE_NOTHING ("curl -H Authorization:Bearer$'\\c@'S3cretZq9abc|sh", "S3cretZq9abc", "|sh"),
    HIDE_NOTHING ("curl -H X-Api-Key:' '$'a;touch pwned' https://x", NULL, "touch pwned"),
    HIDE_NOTHING ("curl -H X-Api-Key:' '$'x\\x3btouch pwned' https://x", NULL, "touch pwned"),
    HIDE_NOTHING ("curl -H X-Api-Key:' '$'S3cretZq9abc'$(touch pwned) https://x", NULL, "$(touch pwned)"),
    HIDE_NOTHING ("curl -H X-Api-Key:' '`touch pwned` https://x", NULL, "`touch pwned`"),
    HIDE_NOTHING ("curl -H Authorization:Bearer$'\\x20'\"x$(touch pwned)\" https://x", NULL, "$(touch pwned)"),
    HIDE_NOTHING ("curl -H Cookie:' 'session=$'S3cretZq9abc'\\;\\ b=1;touch pwned", "S3cretZq9abc", ";touch pwned"),
    HIDE_NOTHING ("curl -H 'X-Api-Key: '$'S3cretZq9abc' x; echo 'y'", "S3cretZq9abc", " x; echo 'y'"),
    /* a variable the text runs holds a command; bash expands braces */
    HIDE_NOTHING ("H=X-Api-Key:' '$'reboot'; eval \"${H#*: }\"", NULL, "reboot"),
    HIDE_NOTHING ("curl -H X-Api-Key:' '$'S3cret'{Zq9,x} y", NULL, "{Zq9,x}"),
    /* round 16 (att16 F6): a mask takes no backslash of an escape */
    HIDE_NOTHING ("curl -H 'Authorization: Bearer Zq9SecretValue77'\\$(reboot) https://x", "Zq9SecretValue77", "\\$(reboot)"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* A reference, a setting, a scheme alone: no secret. */
static void
test_header_dequoted_kept (void)
{
  static const RedactRow rows[] = {
    KEPT ("curl -H X-Api-Key:' '\"$TOKEN\" https://x"),
    KEPT ("curl -H Authorization:Bearer$'\\x20'\"$TOKEN\" https://x"),
    KEPT ("curl -H Authorization:Bearer$'\\x20'${TOKEN} https://x"),
    KEPT ("curl -H Accept:$'\\x20'text/plain https://x"),
    KEPT ("curl -H X-Request-Id:' '$'abc123def456' https://x"),
    KEPT ("curl -H Authorization:$'Basic' https://x"),
    KEPT ("curl -H Cookie:' '$'theme=darkmode' https://x"),
    KEPT ("curl -H 'Authorization: Bearer $TOKEN' https://x"),
    KEPT ("# curl -H X-Api-Key:' '$TOKEN"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* Finding (round 16's attack, att16 F2, MEDIUM): a header's NAME of
 * quoted parts was stored in clear with its secret: the header reader
 * started only where a name literally followed by ':' was written, and
 * bash hands curl "Authoriz"ation:' 'Basic' '… as Authorization: Basic ….
 * The name is read in the dequoted word now, after -H, --header,
 * --header=, -H glued, http.extraHeader=, wget's --header= or as
 * httpie's word. */
static void
test_header_name_quoted (void)
{
  static const RedactRow rows[] = {
    MASKED ("curl -H \"Authoriz\"ation:' 'Basic' 'dXNlcjpwYXNzd29yZA== https://x",
            "curl -H \"Authoriz\"ation:' 'Basic' '[REDACTED] https://x", "dXNlcjpwYXNzd29yZA"),
    MASKED ("curl -H $'\\x41'uthorization:' 'Token' 'Zq9SecretValue77 https://x",
            "curl -H $'\\x41'uthorization:' 'Token' '[REDACTED] https://x", "Zq9SecretValue77"),
    MASKED ("curl -H $'\\x41'uthorization:\\ Bearer\\ Zq9SecretValue77 https://x",
            "curl -H $'\\x41'uthorization:\\ Bearer\\ [REDACTED] https://x", "Zq9SecretValue77"),
    MASKED ("curl -H X-Api-K''ey:' 'Zq9SecretValue77 https://x", "curl -H X-Api-K''ey:' '[REDACTED] https://x",
            "Zq9SecretValue77"),
    MASKED ("curl -H X-Api-K\\ey:\\ Zq9SecretValue77 https://x", "curl -H X-Api-K\\ey:\\ [REDACTED] https://x",
            "Zq9SecretValue77"),
    MASKED ("curl -H \"X-Api-Key\"':'' 'Zq9SecretValue77 https://x", "curl -H \"X-Api-Key\"':'' '[REDACTED] https://x",
            "Zq9SecretValue77"),
    MASKED ("curl -H X-Api-Key$':\\x20'Zq9SecretValue77 https://x", "curl -H X-Api-Key$':\\x20'[REDACTED] https://x",
            "Zq9SecretValue77"),
    MASKED ("curl --header \"Authoriz\"ation:' 'Basic' 'dXNlcjpwYXNzd29yZA== https://x",
            "curl --header \"Authoriz\"ation:' 'Basic' '[REDACTED] https://x", "dXNlcjpwYXNzd29yZA"),
    MASKED ("curl --header=\"Authoriz\"ation:' 'Basic' 'dXNlcjpwYXNzd29yZA== https://x",
            "curl --header=\"Authoriz\"ation:' 'Basic' '[REDACTED] https://x", "dXNlcjpwYXNzd29yZA"),
    MASKED ("curl -H\"Authoriz\"ation:' 'Basic' 'dXNlcjpwYXNzd29yZA== https://x",
            "curl -H\"Authoriz\"ation:' 'Basic' '[REDACTED] https://x", "dXNlcjpwYXNzd29yZA"),
    MASKED ("curl -HX-Api-K''ey:' 'Zq9SecretValue77 https://x", "curl -HX-Api-K''ey:' '[REDACTED] https://x",
            "Zq9SecretValue77"),
    MASKED ("git -c http.extraHeader=\"Authoriz\"ation:' 'Basic' 'dXNlcjpwYXNzd29yZA== clone x",
            "git -c http.extraHeader=\"Authoriz\"ation:' 'Basic' '[REDACTED] clone x", "dXNlcjpwYXNzd29yZA"),
    MASKED ("wget --header=X-Api-K''ey:' 'Zq9SecretValue77 https://x", "wget --header=X-Api-K''ey:' '[REDACTED] https://x",
            "Zq9SecretValue77"),
    MASKED ("http https://x X-Api-K''ey:Zq9SecretValue77", "http https://x X-Api-K''ey:[REDACTED]", "Zq9SecretValue77"),
    MASKED ("http https://x \"Cook\"ie:' 'session=Zq9SecretValue77", "http https://x \"Cook\"ie:' 'session=[REDACTED]",
            "Zq9SecretValue77"),
    /* what runs, what follows the word, a reference: in sight */
    HIDE_NOTHING ("curl -H \"Authoriz\"ation:' 'Basic' 'dXNlcjpwYXNzd29yZA==;touch pwned", "dXNlcjpwYXNzd29yZA",
                  ";touch pwned"),
    HIDE_NOTHING ("echo \"see X-Api-K\"ey:' 'Zq9SecretValue77$(touch pwned)' tail'", NULL, "$(touch pwned)"),
    KEPT ("curl -H \"X-Api-K\"ey:' '$TOKEN https://x"),
    KEPT ("curl -H \"Authoriz\"ation:' 'Bearer' '\"$TOKEN\" https://x"),
    KEPT ("curl -H \"X-Request\"-Id:' 'abc123def456ghi https://x"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* Finding (round 16's attack, att16 F4's tail): Authorization: Bearer X,
 * Basic Y kept Y in clear: each credential of a list is masked. */
static void
test_header_credential_list (void)
{
  static const RedactRow rows[] = {
    MASKED_SOME ("curl -H 'Authorization: Bearer Zq9SecretValue77, Basic dXNlcjpwYXNzd29yZA==' x",
                 "curl -H 'Authorization: Bearer [REDACTED], Basic [REDACTED]' x", "dXNlcjpwYXNzd29yZA"),
    MASKED_SOME ("curl -H Authorization:' 'Bearer' 'Zq9SecretValue77,' 'Basic' 'dXNlcjpwYXNzd29yZA== x",
                 "curl -H Authorization:' 'Bearer' '[REDACTED],' 'Basic' '[REDACTED] x", "dXNlcjpwYXNzd29yZA"),
    KEPT ("curl -H 'Authorization: Basic' x"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* Finding (round 16's attack, the same family as F2): curl's
 * user:password and a NAME=value of quoted parts were read as written:
 * -u user:$'SECRET', -u "user":'SEC'"RET", --user=…, -uuser:$'…' were
 * stored in clear, and API"_KEY"=SECRET (to bash a command's name, to
 * env, export or docker -e an assignment) too.  Read by the shell-word
 * reader now, masked where written. */
static void
test_user_and_assignment_words (void)
{
  static const RedactRow rows[] = {
    MASKED ("curl -u user:$'Zq9SecretValue77' https://x", "curl -u user:$'[REDACTED]' https://x", "Zq9SecretValue77"),
    MASKED ("curl -u \"user\":'Zq9Sec'\"retValue77\" https://x", "curl -u \"user\":'[REDACTED]'\"[REDACTED]\" https://x",
            "retValue77"),
    MASKED ("curl --user=user:$'Zq9SecretValue77' https://x", "curl --user=user:$'[REDACTED]' https://x",
            "Zq9SecretValue77"),
    MASKED ("curl --user \"user\":'Zq9Sec'\"retValue77\" https://x",
            "curl --user \"user\":'[REDACTED]'\"[REDACTED]\" https://x", "retValue77"),
    MASKED ("curl -uuser:$'Zq9SecretValue77' https://x", "curl -uuser:$'[REDACTED]' https://x", "Zq9SecretValue77"),
    MASKED ("curl -fsSu user:Zq9\\ SecretValue77 https://x", "curl -fsSu user:[REDACTED] https://x",
            "SecretValue77"),
    MASKED ("env API\"_KEY\"=Zq9SecretValue77 x", "env API\"_KEY\"=[REDACTED] x", "Zq9SecretValue77"),
    MASKED ("export \"DB_PASS\"'WORD'=$'Zq9SecretValue77'", "export \"DB_PASS\"'WORD'=$'[REDACTED]'", "Zq9SecretValue77"),
    /* bash runs "API_KEY"=X as a command named API_KEY=X: masked in it */
    MASKED ("\"API_KEY\"=Zq9SecretValue77 x", "\"API_KEY\"=[REDACTED] x", "Zq9SecretValue77"),
    HIDE_NOTHING ("curl -u user:$'Zq9SecretValue77';touch pwned", "Zq9SecretValue77", ";touch pwned"),
    HIDE_NOTHING ("curl -u user:$'a'$(touch pwned) https://x", NULL, "$(touch pwned)"),
    HIDE_NOTHING ("env API\"_KEY\"=$'x;touch pwned' y", NULL, "touch pwned"),
    KEPT ("curl -u user:\"$PASSWORD\" https://x"),
    KEPT ("env API\"_KEY\"=\"$KEY\" x"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* Finding (att19, tried as an attacker would): curl's user:password all
 * in one $'…' (-u $'bob:SECRET', -u$'…', --user=$'…') was stored in
 * clear: its bytes read as written, so the word was left to the
 * patterns, which do not read $'…' (-u $'\x62ob:…' and -u user:$'…'
 * were masked).  Left to them now only when the word starts as written
 * or after one quote. */
static void
test_user_word_ansi_whole (void)
{
  static const RedactRow rows[] = {
    MASKED ("curl -u $'bob:Zq9SecretPass77' https://x", "curl -u $'bob:[REDACTED]' https://x", "Zq9SecretPass77"),
    MASKED ("curl -u$'bob:Zq9SecretPass77' https://x", "curl -u$'bob:[REDACTED]' https://x", "Zq9SecretPass77"),
    MASKED ("curl --user=$'bob:Zq9SecretPass77' https://x", "curl --user=$'bob:[REDACTED]' https://x",
            "Zq9SecretPass77"),
    MASKED ("curl --user $'bob:Zq9SecretPass77' https://x", "curl --user $'bob:[REDACTED]' https://x",
            "Zq9SecretPass77"),
    MASKED ("curl -fsSu $'bob:Zq9SecretPass77' https://x", "curl -fsSu $'bob:[REDACTED]' https://x",
            "Zq9SecretPass77"),
    MASKED ("curl -u ''\"bob:Zq9SecretPass77\" https://x", "curl -u ''\"bob:[REDACTED]\" https://x",
            "Zq9SecretPass77"),
    /* controls, masked or kept before too */
    MASKED ("curl -u $'\\x62ob:Zq9SecretPass77' https://x", "curl -u $'\\x62ob:[REDACTED]' https://x",
            "Zq9SecretPass77"),
    HIDE_NOTHING ("curl -u $'bob:Zq9SecretPass77;touch pwned' https://x", NULL, "touch pwned"),
    KEPT ("curl -u $'bob:\"$PASSWORD\"' https://x"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* Finding (att19 F2, tried as an attacker would): curl -u "$USER":SECRET
 * and "${USER}":SECRET were stored in clear ($USER:SECRET was masked):
 * the reader stopped at the variable and left the word to the patterns.
 * A plain $NAME or ${NAME} reads as a user now; a password that expands
 * one is still no secret written here. */
static void
test_user_word_variable_user (void)
{
  static const RedactRow rows[] = {
    MASKED ("curl -u \"$USER\":Zq9SecretPass77 https://x", "curl -u \"$USER\":[REDACTED] https://x", "Zq9SecretPass77"),
    MASKED ("curl -u \"${USER}\":Zq9SecretPass77 https://x", "curl -u \"${USER}\":[REDACTED] https://x",
            "Zq9SecretPass77"),
    MASKED ("curl --user=\"$USER\":\"Zq9SecretPass77\" https://x", "curl --user=\"$USER\":\"[REDACTED]\" https://x",
            "Zq9SecretPass77"),
    /* controls, masked or kept before too */
    MASKED ("curl -u${USER}:'Zq9SecretPass77' https://x", "curl -u${USER}:'[REDACTED]' https://x", "Zq9SecretPass77"),
    MASKED ("curl -u $USER:Zq9SecretPass77 https://x", "curl -u $USER:[REDACTED] https://x", "Zq9SecretPass77"),
    KEPT ("curl -u \"$USER\":\"$PASS\" https://x"),
    KEPT ("curl -u \"$USER\":pre${PASS} https://x"),
    HIDE_NOTHING ("curl -u \"${USER:-$(touch pwned)}\":Zq9SecretPass77 https://x", NULL, "touch pwned"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* Finding (att19 F3, tried as an attacker would): httpie's
 * http -a bob:SECRET was stored in clear (its --auth=bob:SECRET was
 * masked, by the option's name).  Its -a and --auth, and xh's, are read
 * as curl's -u now. */
static void
test_httpie_auth (void)
{
  static const RedactRow rows[] = {
    MASKED ("http -a bob:Zq9SecretPass77 https://x", "http -a bob:[REDACTED] https://x", "Zq9SecretPass77"),
    MASKED ("https -abob:Zq9SecretPass77 x.example", "https -abob:[REDACTED] x.example", "Zq9SecretPass77"),
    MASKED ("http -a 'bob:Zq9SecretPass77' https://x", "http -a 'bob:[REDACTED]' https://x", "Zq9SecretPass77"),
    MASKED ("http -a $'bob:Zq9SecretPass77' https://x", "http -a $'bob:[REDACTED]' https://x", "Zq9SecretPass77"),
    MASKED ("xh -a \"$USER\":Zq9SecretPass77 https://x", "xh -a \"$USER\":[REDACTED] https://x", "Zq9SecretPass77"),
    MASKED ("http -v -a bob:Zq9SecretPass77 POST https://x", "http -v -a bob:[REDACTED] POST https://x",
            "Zq9SecretPass77"),
    /* masked whole before (by the option's name), the user in sight now */
    MASKED ("http --auth bob:Zq9SecretPass77 https://x", "http --auth bob:[REDACTED] https://x", "Zq9SecretPass77"),
    MASKED ("http --auth=bob:Zq9SecretPass77 https://x", "http --auth=bob:[REDACTED] https://x", "Zq9SecretPass77"),
    /* controls, masked or kept before too */
    KEPT ("http -a bob https://x"),
    KEPT ("http -a bob:\"$PASS\" https://x"),
    KEPT ("http --auth-type=bearer https://x"),
    KEPT ("ls -a foo:bar"),
    HIDE_NOTHING ("http -a bob:Zq9;touch pwned https://x", NULL, "touch pwned"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pd/redact/header-dequoted-masked", test_header_dequoted_masked);
  g_test_add_func ("/pd/redact/header-dequoted-hide-nothing", test_header_dequoted_hide_nothing);
  g_test_add_func ("/pd/redact/header-dequoted-kept", test_header_dequoted_kept);
  g_test_add_func ("/pd/redact/header-control-escape", test_header_control_escape);
  g_test_add_func ("/pd/redact/header-other-scheme", test_header_other_scheme);
  g_test_add_func ("/pd/redact/header-name-quoted", test_header_name_quoted);
  g_test_add_func ("/pd/redact/header-credential-list", test_header_credential_list);
  g_test_add_func ("/pd/redact/user-and-assignment-words", test_user_and_assignment_words);
  g_test_add_func ("/pd/redact/user-word-ansi-whole", test_user_word_ansi_whole);
  g_test_add_func ("/pd/redact/user-word-variable-user", test_user_word_variable_user);
  g_test_add_func ("/pd/redact/httpie-auth", test_httpie_auth);
  return g_test_run ();
}
