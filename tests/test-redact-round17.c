/* test-redact-round17.c: credential spellings tried as an attacker would
 * and still found stored in clear after round 16 (or masked at the wrong
 * place: counted as masked, the secret in sight): curl's -u with the user
 * part of an expansion (${U:-bob}:X was masked inside the expansion) or
 * quotes around the colon, the option's name in quotes, httpie's bearer
 * token, and the ordinary commands of those shapes kept.  Every row is run
 * by real bash as written and masked (assert_rows()): a mask never changes
 * what a command runs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "pd-redact.h"
#include "test-redact-util.h"
#include "test-redact-attack-util.h"

/* curl -u (httpie -a) whose user part bash expands or quotes: split at
 * the colon bash hands curl.  ${U:-bob}:X and ${U:0:3}:X were masked as
 * ${U:[REDACTED]}:X, the rest kept whole. */
static void
test_user_part_expands (void)
{
  static const RedactRow rows[] = {
    MASKED ("curl -u ${U:-bob}:Zq9SecretPass77 https://x", "curl -u ${U:-bob}:[REDACTED] https://x", "Zq9SecretPass77"),
    MASKED ("curl -u ${U:0:3}:Zq9SecretPass77 https://x", "curl -u ${U:0:3}:[REDACTED] https://x", "Zq9SecretPass77"),
    MASKED ("http -a \"${U:0:3}:Zq9SecretPass77\" x.org", "http -a \"${U:0:3}:[REDACTED]\" x.org", "Zq9SecretPass77"),
    MASKED ("curl -u \"${U/a/b}:Zq9SecretPass77\" https://x", "curl -u \"${U/a/b}:[REDACTED]\" https://x",
            "Zq9SecretPass77"),
    MASKED ("curl -u \"$(whoami)\":Zq9SecretPass77 https://x", "curl -u \"$(whoami)\":[REDACTED] https://x",
            "Zq9SecretPass77"),
    MASKED ("curl -u \"$(cat u):Zq9SecretPass77\" https://x", "curl -u \"$(cat u):[REDACTED]\" https://x",
            "Zq9SecretPass77"),
    MASKED ("curl -u `whoami`:Zq9SecretPass77 https://x", "curl -u `whoami`:[REDACTED] https://x", "Zq9SecretPass77"),
    MASKED ("curl -u \"${U:-bob}\":Zq9SecretPass77 https://x", "curl -u \"${U:-bob}\":[REDACTED] https://x",
            "Zq9SecretPass77"),
    HIDE_NOTHING ("curl -u ${U:-bob}:Zq9SecretPass77;touch pwned", "Zq9SecretPass77", ";touch pwned"),
    HIDE_NOTHING ("curl -u ${U:-bob}:$(touch pwned) https://x", NULL, "$(touch pwned)"),
    HIDE_NOTHING ("curl -u \"${U:-x;touch pwned}\":Zq9SecretPass77 https://x", "Zq9SecretPass77", "${U:-x;touch pwned}"),
    KEPT ("curl -u ${U:-bob}:$PASS https://x"),
    KEPT ("curl -u \"$(whoami):${PW}\" https://x"),
    KEPT ("curl -u ${U:-bob} https://x"),
    KEPT ("echo ${U:-bob}:Zq9SecretPass77"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* The colon in double quotes: bob":"X and bob":X" are bob:X to curl. */
static void
test_quoted_colon (void)
{
  static const RedactRow rows[] = {
    MASKED ("curl -u bob\":\"Zq9SecretPass77 https://x", "curl -u bob\":\"[REDACTED] https://x", "Zq9SecretPass77"),
    MASKED ("curl -u bob\":Zq9SecretPass77\" https://x", "curl -u bob\":[REDACTED]\" https://x", "Zq9SecretPass77"),
    MASKED ("curl --user=bob\":\"Zq9SecretPass77 https://x", "curl --user=bob\":\"[REDACTED] https://x",
            "Zq9SecretPass77"),
    MASKED ("curl -ubob\":\"Zq9SecretPass77 https://x", "curl -ubob\":\"[REDACTED] https://x", "Zq9SecretPass77"),
    MASKED ("http -a bob\":\"Zq9SecretPass77 x.org", "http -a bob\":\"[REDACTED] x.org", "Zq9SecretPass77"),
    HIDE_NOTHING ("curl -u bob\":\"Zq9SecretPass77|sh", "Zq9SecretPass77", "|sh"),
    KEPT ("curl -u bob\":\"$PW https://x"),
    KEPT ("echo bob\":\"Zq9SecretPass77"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* The option's name in quotes: "-u", $'-u', -"u", '-u'bob:X are curl's
 * -u to bash. */
static void
test_quoted_option_name (void)
{
  static const RedactRow rows[] = {
    MASKED ("curl \"-u\" bob:Zq9SecretPass77 https://x", "curl \"-u\" bob:[REDACTED] https://x", "Zq9SecretPass77"),
    MASKED ("curl $'-u' bob:Zq9SecretPass77 https://x", "curl $'-u' bob:[REDACTED] https://x", "Zq9SecretPass77"),
    MASKED ("curl -\"u\" bob:Zq9SecretPass77 https://x", "curl -\"u\" bob:[REDACTED] https://x", "Zq9SecretPass77"),
    MASKED ("curl '-u'bob:Zq9SecretPass77 https://x", "curl '-u'bob:[REDACTED] https://x", "Zq9SecretPass77"),
    MASKED ("curl '--user' bob:Zq9SecretPass77 https://x", "curl '--user' bob:[REDACTED] https://x", "Zq9SecretPass77"),
    HIDE_NOTHING ("curl \"-u\" bob:Zq9SecretPass77;touch pwned", "Zq9SecretPass77", ";touch pwned"),
    KEPT ("curl \"-u\" bob:$PW https://x"),
    KEPT ("docker run \"-u\" 1000:1000 img"),
    KEPT ("grep \"-u\" bob:Zq9SecretPass77 f"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* httpie's -A bearer: -a is the token whole. */
static void
test_httpie_bearer (void)
{
  static const RedactRow rows[] = {
    MASKED ("http -A bearer -a Zq9SecretPass77 https://x", "http -A bearer -a [REDACTED] https://x", "Zq9SecretPass77"),
    MASKED ("http --auth-type=bearer --auth Zq9SecretPass77 https://x",
            "http --auth-type=bearer --auth [REDACTED] https://x", "Zq9SecretPass77"),
    HIDE_NOTHING ("http -A bearer -a Zq9SecretPass77;touch pwned", "Zq9SecretPass77", ";touch pwned"),
    KEPT ("http -A bearer -a $TOKEN https://x"),
    KEPT ("http -a bob https://x"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* A password given in code as a plain argument: the pair of an HTTP
 * library over a line break, in tuple([…]), in a Go raw string, assigned
 * to a name that auth= takes (auth=a was masked, the pair kept), a
 * login's, add_password's, and a user:password literal encoded for a
 * Basic header ("Basic "+btoa(…) masked +btoa, the password kept). */
static void
test_code_calls (void)
{
  static const RedactRow rows[] = {
    MASKED ("python3 -c 'import requests; requests.get(\"https://x\", auth=(\"bob\",\n \"Zq9SecretPass77\"))'",
            "python3 -c 'import requests; requests.get(\"https://x\", auth=(\"bob\",\n \"[REDACTED]\"))'", "Zq9SecretPass77"),
    MASKED ("python3 -c 'import requests; requests.get(u, auth=tuple([\"bob\", \"Zq9SecretPass77\"]))'",
            "python3 -c 'import requests; requests.get(u, auth=tuple([\"bob\", \"[REDACTED]\"]))'", "Zq9SecretPass77"),
    MASKED_SOME ("python3 -c 'import requests; a=(\"bob\",\"Zq9SecretPass77\"); requests.get(u, auth=a)'",
                 "python3 -c 'import requests; a=(\"bob\",\"[REDACTED]\"); requests.get(u, auth=[REDACTED])'",
                 "Zq9SecretPass77"),
    MASKED ("go run - <<'EOF'\npackage main\nfunc main(){ req.SetBasicAuth(\"bob\", `Zq9SecretPass77`) }\nEOF",
            "go run - <<'EOF'\npackage main\nfunc main(){ req.SetBasicAuth(\"bob\", `[REDACTED]`) }\nEOF", "Zq9SecretPass77"),
    MASKED ("go run - <<'EOF'\npackage main\nfunc main(){ req.SetBasicAuth(user,\n\"Zq9SecretPass77\") }\nEOF",
            "go run - <<'EOF'\npackage main\nfunc main(){ req.SetBasicAuth(user,\n\"[REDACTED]\") }\nEOF", "Zq9SecretPass77"),
    MASKED ("python3 -c 'import base64; base64.b64encode(b\"bob:Zq9SecretPass77\")'",
            "python3 -c 'import base64; base64.b64encode(b\"bob:[REDACTED]\")'", "Zq9SecretPass77"),
    MASKED ("node -e 'fetch(u,{headers:{Authorization:\"Basic \"+btoa(\"bob:Zq9SecretPass77\")}})'",
            "node -e 'fetch(u,{headers:{Authorization:\"Basic \"+btoa(\"bob:[REDACTED]\")}})'", "Zq9SecretPass77"),
    MASKED ("python3 -c 'm=u.HTTPPasswordMgrWithDefaultRealm(); m.add_password(None,\"https://x\",\"bob\",\"Zq9SecretPass77\")'",
            "python3 -c 'm=u.HTTPPasswordMgrWithDefaultRealm(); m.add_password(None,\"https://x\",\"bob\",\"[REDACTED]\")'",
            "Zq9SecretPass77"),
    MASKED ("python3 -c 'import smtplib; s=smtplib.SMTP(\"x\"); s.login(\"bob\", \"Zq9SecretPass77\")'",
            "python3 -c 'import smtplib; s=smtplib.SMTP(\"x\"); s.login(\"bob\", \"[REDACTED]\")'", "Zq9SecretPass77"),
    HIDE_NOTHING ("python3 -c 's.login(\"bob\", \"$(touch pwned)\")'", NULL, "$(touch pwned)"),
    HIDE_NOTHING ("python3 -c 's.login(\"bob\", \"Zq9SecretPass77\")';touch pwned", "Zq9SecretPass77", ";touch pwned"),
    KEPT ("python3 -c 's.login(user, password)'"),
    KEPT ("python3 -c 'import base64; base64.b64encode(b\"hello world\")'"),
    KEPT ("node -e 'console.log(btoa(\"bob:\" + pw))'"),
    KEPT ("python3 -c 'a=(\"x\", \"y\"); print(a)'"),
    KEPT ("npm login"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* NAME= spellings of bash's: an append (+=), an array, a default in
 * double quotes or with :=, and a bare value with an escaped sign
 * (API_KEY=X\;Y was kept whole as text, and in a tool call's JSON text
 * masked up to the escape, its tail in clear): masked whole, or kept
 * whole when its text reads as a command's words. */
static void
test_assignment_forms (void)
{
  static const RedactRow rows[] = {
    MASKED ("API_KEY+=Zq9SecretPass77 ./run", "API_KEY+=[REDACTED] ./run", "Zq9SecretPass77"),
    MASKED ("API_KEY=(Zq9SecretPass77)", "API_KEY=([REDACTED])", "Zq9SecretPass77"),
    MASKED ("API_KEY+=('Zq9SecretPass77')", "API_KEY+=('[REDACTED]')", "Zq9SecretPass77"),
    MASKED ("API_KEY=\"${X:-Zq9SecretPass77}\" ./run", "API_KEY=\"${X:-[REDACTED]}\" ./run", "Zq9SecretPass77"),
    MASKED ("API_KEY=${X:=Zq9SecretPass77} ./run", "API_KEY=${X:=[REDACTED]} ./run", "Zq9SecretPass77"),
    MASKED ("API_KEY=Zq9Secret\\;Pass77 ./run", "API_KEY=[REDACTED] ./run", "Pass77"),
    MASKED ("API_KEY=Zq9Secret\\&Pass77 ./run", "API_KEY=[REDACTED] ./run", "Pass77"),
    HIDE_NOTHING ("API_KEY=Zq9Secret\\;Pass77;touch pwned", "Pass77", ";touch pwned"),
    HIDE_NOTHING ("API_KEY=(Zq9SecretPass77);touch pwned", "Zq9SecretPass77", ";touch pwned"),
    HIDE_NOTHING ("API_KEY=($(touch pwned))", NULL, "$(touch pwned)"),
    KEPT ("API_KEY=abc\\;rm\\ -rf\\ ~ ./run"),
    KEPT ("API_KEY+=$X ./run"),
    KEPT ("API_KEY=($A $B)"),
    KEPT ("PATH+=:/opt/bin"),
    KEPT ("python3 -c \"auth=(user, pw)\""),
  };
  g_autofree char *json = pd_redact ("{\"command\":\"API_KEY=Zq9Secret\\\\;Pass77 ./run\"}", NULL);

  assert_rows (rows, G_N_ELEMENTS (rows));
  g_assert_cmpstr (json, ==, "{\"command\":\"API_KEY=[REDACTED] ./run\"}");
}

/* Options no name rule read: curl's --proxy-pass X, --cert FILE:X,
 * -E FILE:X; twine's -p X; printf's argument for a %s of curl's config
 * (curl -K <(printf 'user bob:%s' X)). */
static void
test_option_values (void)
{
  static const RedactRow rows[] = {
    MASKED ("curl --proxy-pass Zq9SecretPass77 https://x", "curl --proxy-pass [REDACTED] https://x", "Zq9SecretPass77"),
    MASKED ("curl --cert cert.pem:Zq9SecretPass77 https://x", "curl --cert cert.pem:[REDACTED] https://x",
            "Zq9SecretPass77"),
    MASKED ("curl -E cert.pem:Zq9SecretPass77 https://x", "curl -E cert.pem:[REDACTED] https://x", "Zq9SecretPass77"),
    MASKED ("curl --proxy-cert 'c.pem:Zq9SecretPass77' https://x", "curl --proxy-cert 'c.pem:[REDACTED]' https://x",
            "Zq9SecretPass77"),
    MASKED ("twine upload -u __token__ -p Zq9SecretPass77 dist/*", "twine upload -u __token__ -p [REDACTED] dist/*",
            "Zq9SecretPass77"),
    MASKED ("curl -K <(printf 'user bob:%s' Zq9SecretPass77) https://x",
            "curl -K <(printf 'user bob:%s' [REDACTED]) https://x", "Zq9SecretPass77"),
    MASKED ("printf 'silent\\npass = %s\\n' Zq9SecretPass77 | curl -K- https://x",
            "printf 'silent\\npass = %s\\n' [REDACTED] | curl -K- https://x", "Zq9SecretPass77"),
    HIDE_NOTHING ("curl --proxy-pass Zq9SecretPass77;touch pwned", "Zq9SecretPass77", ";touch pwned"),
    HIDE_NOTHING ("curl -E c.pem:$(touch pwned) https://x", NULL, "$(touch pwned)"),
    KEPT ("curl --cert cert.pem https://x"),
    KEPT ("curl --proxy-pass \"$PW\" https://x"),
    KEPT ("grep -E a:Zq9SecretPass77 f"),
    KEPT ("twine upload -p $PW dist/*"),
    KEPT ("printf 'user %s\\n' bob | curl -K- https://x"),
    KEPT ("printf 'user bob:%s' Zq9SecretPass77 > notes.txt"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pd/redact/round17/user-part-expands", test_user_part_expands);
  g_test_add_func ("/pd/redact/round17/quoted-colon", test_quoted_colon);
  g_test_add_func ("/pd/redact/round17/quoted-option-name", test_quoted_option_name);
  g_test_add_func ("/pd/redact/round17/httpie-bearer", test_httpie_bearer);
  g_test_add_func ("/pd/redact/round17/code-calls", test_code_calls);
  g_test_add_func ("/pd/redact/round17/assignment-forms", test_assignment_forms);
  g_test_add_func ("/pd/redact/round17/option-values", test_option_values);
  return g_test_run ();
}
