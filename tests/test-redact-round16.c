/* test-redact-round16.c: credential spellings tried as an attacker would
 * and found stored in clear (in the store, `sessions export`, run's
 * stderr line and events' args_summary alike: all go through
 * pd_redact()): curl's -u with the user named by a variable, curl's
 * config text (-K, ~/.curlrc), a header's name of bash's brace
 * expansion, "$'SECRET'" in double quotes, Python's requests auth; and
 * the ordinary commands of those shapes kept.  Every row is run by real
 * bash as written and masked (assert_rows()): a mask never changes what
 * a command runs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "pd-redact.h"
#include "test-redact-util.h"
#include "test-redact-attack-util.h"

/* curl -u with the user a variable: "$USER:SECRET", "${USER}:SECRET",
 * "$USER":SECRET and $USER:SECRET, the password masked, the variable in
 * sight (checked: masked already, kept as rows so it stays so). */
static void
test_curl_user_variable (void)
{
  static const RedactRow rows[] = {
    MASKED ("curl -u \"$USER:S3cretZq9\" https://x.example",
            "curl -u \"$USER:[REDACTED]\" https://x.example", "S3cretZq9"),
    MASKED ("curl -u \"${USER}:S3cretZq9\" https://x.example",
            "curl -u \"${USER}:[REDACTED]\" https://x.example", "S3cretZq9"),
    MASKED ("curl -u \"$USER\":S3cretZq9 https://x.example",
            "curl -u \"$USER\":[REDACTED] https://x.example", "S3cretZq9"),
    MASKED ("curl -u $USER:S3cretZq9 https://x.example",
            "curl -u $USER:[REDACTED] https://x.example", "S3cretZq9"),
    MASKED ("curl --user=\"${USER}:S3cretZq9\" https://x.example",
            "curl --user=\"${USER}:[REDACTED]\" https://x.example", "S3cretZq9"),
    KEPT ("curl -u \"$USER:$PASS\" https://x.example"),
    KEPT ("curl -u \"${USER}\" https://x.example"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* In double quotes $' is text: "$'SECRET'" is the secret as written (with
 * its $ and quotes), and was kept as a reference to a variable. */
static void
test_dollar_quote_in_double_quotes (void)
{
  static const RedactRow rows[] = {
    MASKED ("PGPASSWORD=\"$'S3cretZq9'\" psql", "PGPASSWORD=\"[REDACTED]\" psql", "S3cretZq9"),
    MASKED ("wget --password \"$'S3cretZq9'\" https://x", "wget --password \"[REDACTED]\" https://x", "S3cretZq9"),
    MASKED ("wget --password=\"$'S3cretZq9'\" https://x", "wget --password=\"[REDACTED]\" https://x", "S3cretZq9"),
    MASKED ("export API_TOKEN=\"$'S3cretZq9'\"", "export API_TOKEN=\"[REDACTED]\"", "S3cretZq9"),
    KEPT ("PGPASSWORD=\"$PW\" psql"),
    KEPT ("PGPASSWORD=\"${PW}\" psql"),
    KEPT ("wget --password \"$(pass show x)\" https://x"),
    HIDE_NOTHING ("PGPASSWORD=\"$'$(touch pwned)'\" psql", NULL, "$(touch pwned)"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* A header's name of bash's brace expansion: bash hands curl one header
 * a name ({Authorization,X}:\ Token\ X is Authorization: Token X and X:
 * Token X), and each was stored in clear. */
static void
test_brace_header_name (void)
{
  static const RedactRow rows[] = {
    MASKED ("curl -H {Authorization,X}:\\ Token\\ S3cretZq9 https://x",
            "curl -H {Authorization,X}:\\ Token\\ [REDACTED] https://x", "S3cretZq9"),
    MASKED ("curl -H {X-Api-Key,Y}:S3cretZq9 https://x", "curl -H {X-Api-Key,Y}:[REDACTED] https://x", "S3cretZq9"),
    MASKED ("curl -H X-Api-{Key,Id}:S3cretZq9 https://x", "curl -H X-Api-{Key,Id}:[REDACTED] https://x", "S3cretZq9"),
    MASKED ("curl -H{Authorization,X}:' Bearer S3cretZq9' https://x",
            "curl -H{Authorization,X}:' Bearer [REDACTED]' https://x", "S3cretZq9"),
    MASKED ("curl --header={X-Auth-Token,Z}:S3cretZq9 https://x",
            "curl --header={X-Auth-Token,Z}:[REDACTED] https://x", "S3cretZq9"),
    MASKED ("curl -H {Cookie,X}:\\ a=S3cretZq9abc https://x", "curl -H {Cookie,X}:\\ a=[REDACTED] https://x",
            "S3cretZq9abc"),
    MASKED ("curl -H {,X-}Api-Key:S3cretZq9 https://x", "curl -H {,X-}Api-Key:[REDACTED] https://x", "S3cretZq9"),
    HIDE_NOTHING ("curl -H {X-Api-Key,Y}:S3cretZq9;touch pwned", "S3cretZq9", ";touch pwned"),
    HIDE_NOTHING ("curl -H {Authorization,X}:\\ Token\\ $(touch pwned) https://x", NULL, "$(touch pwned)"),
    KEPT ("echo {a,b}:c"),
    KEPT ("echo {x,y}:S3cretZq9"),
    KEPT ("cp f{,.bak}:v1 d"),
    KEPT ("echo {Authorization,X}:\\ Token\\ $TOKEN"),
    KEPT ("curl -H {Accept,X-Trace}:\\ text/plain https://x"),
    /* quoted braces are no expansion: a name of its own, no header's */
    KEPT ("curl -H '{Authorization,X}: Token S3cretZq9x' https://x"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* A password given to an HTTP library's basic authentication in code
 * (requests' auth=('bob', 'X'), HTTPBasicAuth('bob', 'X'), Go's
 * SetBasicAuth): the second of two values with no name, stored in clear.
 * A JavaScript header's value in backticks was masked already. */
static void
test_code_basic_auth (void)
{
  static const RedactRow rows[] = {
    MASKED ("python3 -c \"import requests; requests.get(u, auth=('bob','S3cretZq9'))\"",
            "python3 -c \"import requests; requests.get(u, auth=('bob','[REDACTED]'))\"", "S3cretZq9"),
    MASKED ("python3 -c 'import requests; requests.get(u, auth=(\"bob\", \"S3cretZq9\"))'",
            "python3 -c 'import requests; requests.get(u, auth=(\"bob\", \"[REDACTED]\"))'", "S3cretZq9"),
    MASKED ("python3 -c \"from requests.auth import HTTPBasicAuth; a = HTTPBasicAuth('bob', 'S3cretZq9')\"",
            "python3 -c \"from requests.auth import HTTPBasicAuth; a = HTTPBasicAuth('bob', '[REDACTED]')\"", "S3cretZq9"),
    MASKED ("python3 -c \"import requests; requests.get(u, auth=HTTPDigestAuth('bob', 'S3cretZq9'))\"",
            "python3 -c \"import requests; requests.get(u, auth=HTTPDigestAuth('bob', '[REDACTED]'))\"", "S3cretZq9"),
    MASKED ("python3 -c \"import requests; requests.get(u, auth=[user, 'S3cretZq9'])\"",
            "python3 -c \"import requests; requests.get(u, auth=[user, '[REDACTED]'])\"", "S3cretZq9"),
    MASKED_TEXT ("requests.get(u, auth=('bob', 'S3cretZq9'))", "requests.get(u, auth=('bob', '[REDACTED]'))", "S3cretZq9"),
    MASKED_TEXT ("session.auth = aiohttp.BasicAuth('bob', 'S3cretZq9')",
                 "session.auth = aiohttp.BasicAuth('bob', '[REDACTED]')", "S3cretZq9"),
    MASKED_TEXT ("req.SetBasicAuth(\"bob\", \"S3cretZq9\")", "req.SetBasicAuth(\"bob\", \"[REDACTED]\")", "S3cretZq9"),
    MASKED ("node -e 'fetch(u, {headers: {Authorization: `Bearer S3cretZq9`}})'",
            "node -e 'fetch(u, {headers: {Authorization: `Bearer [REDACTED]`}})'", "S3cretZq9"),
    HIDE_NOTHING ("python3 -c \"requests.get(u, auth=('bob', '$(touch pwned)'))\"", NULL, "$(touch pwned)"),
    KEPT ("python3 -c \"import requests; requests.get(u, auth=(user, pw))\""),
    KEPT ("python3 -c \"import requests; requests.get(u, auth=(os.environ['U'], os.environ['P']))\""),
    KEPT ("python3 -c \"x = dict(auth=('bob', ''))\""),
    KEPT ("python3 -c \"requests.get(u, auth=('bob', 'a;b'))\""),
    KEPT ("python3 -c \"oauth=('a', 'b')\""),
    KEPT ("python3 -c \"h = HTTPBasicAuth(user, password)\""),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* curl's config text, its options with no dashes (user = "bob:X",
 * proxy-user: bob:X, pass X, oauth2-bearer X), fed to curl -K- or
 * written to ~/.curlrc: stored in clear.  user = x in a file that is no
 * curl config stays, as does the password store's pass show x. */
static void
test_curl_config (void)
{
  static const RedactRow rows[] = {
    MASKED ("curl -K- <<< 'user = \"bob:S3cretZq9\"' https://x",
            "curl -K- <<< 'user = \"bob:[REDACTED]\"' https://x", "S3cretZq9"),
    MASKED ("curl -K - https://x <<EOF\nuser = bob:S3cretZq9\nEOF",
            "curl -K - https://x <<EOF\nuser = bob:[REDACTED]\nEOF", "S3cretZq9"),
    MASKED ("curl -sK - https://x <<'EOF'\nproxy-user: bob:S3cretZq9\nEOF",
            "curl -sK - https://x <<'EOF'\nproxy-user: bob:[REDACTED]\nEOF", "S3cretZq9"),
    MASKED ("printf 'user = \"bob:S3cretZq9\"\\n' > ~/.curlrc",
            "printf 'user = \"bob:[REDACTED]\"\\n' > ~/.curlrc", "S3cretZq9"),
    MASKED ("printf 'silent\\nuser bob:S3cretZq9\\n' >> ~/.curlrc",
            "printf 'silent\\nuser bob:[REDACTED]\\n' >> ~/.curlrc", "S3cretZq9"),
    MASKED ("echo 'header = \"Authorization: Bearer S3cretZq9\"' >> ~/.curlrc",
            "echo 'header = \"Authorization: Bearer [REDACTED]\"' >> ~/.curlrc", "S3cretZq9"),
    MASKED ("echo 'header = \"X-Api-Key: S3cretZq9\"' >> ~/.curlrc",
            "echo 'header = \"X-Api-Key: [REDACTED]\"' >> ~/.curlrc", "S3cretZq9"),
    MASKED ("echo 'pass = S3cretZq9' >> ~/.curlrc", "echo 'pass = [REDACTED]' >> ~/.curlrc", "S3cretZq9"),
    MASKED ("echo 'pass S3cretZq9' >> ~/.curlrc", "echo 'pass [REDACTED]' >> ~/.curlrc", "S3cretZq9"),
    MASKED ("echo '--pass S3cretZq9' >> ~/.curlrc", "echo '--pass [REDACTED]' >> ~/.curlrc", "S3cretZq9"),
    MASKED ("echo 'proxy-pass: \"S3cretZq9\"' >> ~/.curlrc", "echo 'proxy-pass: \"[REDACTED]\"' >> ~/.curlrc", "S3cretZq9"),
    MASKED ("echo 'oauth2-bearer S3cretZq9' | curl -K- https://x",
            "echo 'oauth2-bearer [REDACTED]' | curl -K- https://x", "S3cretZq9"),
    MASKED ("echo '--oauth2-bearer S3cretZq9' | curl -K- https://x",
            "echo '--oauth2-bearer [REDACTED]' | curl -K- https://x", "S3cretZq9"),
    MASKED ("echo 'oauth2-bearer: \"S3cretZq9\"' | curl --config - https://x",
            "echo 'oauth2-bearer: \"[REDACTED]\"' | curl --config - https://x", "S3cretZq9"),
    MASKED ("echo 'user bob:S3cretZq9' | curl -K- https://x", "echo 'user bob:[REDACTED]' | curl -K- https://x", "S3cretZq9"),
    MASKED ("echo '--user bob:S3cretZq9' >> ~/.curlrc", "echo '--user bob:[REDACTED]' >> ~/.curlrc", "S3cretZq9"),
    MASKED_SOME ("cat > ~/.curlrc <<'EOF'\nuser = \"bob:S3cretZq9\"\noauth2-bearer S3cretZq9b\nEOF",
                 "cat > ~/.curlrc <<'EOF'\nuser = \"bob:[REDACTED]\"\noauth2-bearer [REDACTED]\nEOF", "S3cretZq9"),
    HIDE_NOTHING ("curl -K - https://x <<EOF\nuser = bob:$(touch pwned)\nEOF", NULL, "$(touch pwned)"),
    HIDE_NOTHING ("echo 'user bob:S3cretZq9' | curl -K- https://x;touch pwned", "S3cretZq9", ";touch pwned"),
    KEPT ("printf 'user = x\\n' > notes.txt"),
    KEPT ("printf 'user = bob:S3cretZq9\\n' > notes.txt"),
    KEPT ("echo 'pass S3cretZq9' > notes.txt"),
    KEPT ("curl -K cfg https://x\npass show foo"),
    KEPT ("curl -K- <<< 'user = \"bob:$PW\"' https://x"),
    KEPT ("curl -K- <<< 'user = \"bob\"' https://x"),
    KEPT ("curl -K- <<< 'silent' https://x; useradd -m bob"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* NAME=value and --name=value in a tool call's JSON text, the value
 * holding an escape (the shell's \\ of a blank or a comma, JSON's
 * \u00c4): the patterns masked it up to the escape and kept the rest.
 * As text these were masked whole already; the rows check both. */
static void
test_json_escaped_assignment (void)
{
  static const RedactRow rows[] = {
    MASKED_SOME ("PGPASSWORD=S3cret\\ Zq9x psql", "PGPASSWORD=[REDACTED] psql", "Zq9x"),
    MASKED_SOME ("PGPASSWORD=S3cret\\,Zq9x psql", "PGPASSWORD=[REDACTED] psql", "Zq9x"),
    MASKED_SOME ("wget --password=S3cret\\ Zq9x https://x", "wget --password=[REDACTED] https://x", "Zq9x"),
    MASKED_SOME ("env API_TOKEN=ab\\cd\\ Zq9x cmd", "env API_TOKEN=[REDACTED] cmd", "Zq9x"),
    MASKED_SOME ("wget --password=S3cret\\$\\(id\\)Zq9x https://x", "wget --password=[REDACTED] https://x", "Zq9x"),
    HIDE_NOTHING ("wget --password=S3cret$(touch pwned)Zq9x https://x", NULL, "$(touch pwned)"),
    HIDE_NOTHING ("PGPASSWORD=S3cret\\ Zq9x;touch pwned", "Zq9x", ";touch pwned"),
    KEPT ("make CFLAGS=-O2\\ -g"),
    KEPT ("env TOKEN_FILE=a\\ b.txt cmd"),
    KEPT ("ls a\\ b=c"),
  };

  assert_rows (rows, G_N_ELEMENTS (rows));
}

/* The same as a JSON document's text with a \u escape (a JSON writer that
 * escapes what is not ASCII): PGPASSWORD=S3cret\u00c4Zq9 kept Zq9. */
static void
test_json_unicode_escape_assignment (void)
{
  guint n = 0;
  g_autofree char *out = pd_redact ("{\"command\":\"PGPASSWORD=S3cret\\u00c4Zq9x psql\"}", &n);
  g_autofree char *out2 = pd_redact ("{\"command\":\"PGPASSWORD=S3cret\\\\ Zq9x psql\"}", NULL);

  g_assert_cmpstr (out, ==, "{\"command\":\"PGPASSWORD=[REDACTED] psql\"}");
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpstr (out2, ==, "{\"command\":\"PGPASSWORD=[REDACTED] psql\"}");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pd/redact/round16/curl-user-variable", test_curl_user_variable);
  g_test_add_func ("/pd/redact/round16/dollar-quote-in-double-quotes", test_dollar_quote_in_double_quotes);
  g_test_add_func ("/pd/redact/round16/brace-header-name", test_brace_header_name);
  g_test_add_func ("/pd/redact/round16/code-basic-auth", test_code_basic_auth);
  g_test_add_func ("/pd/redact/round16/curl-config", test_curl_config);
  g_test_add_func ("/pd/redact/round16/json-escaped-assignment", test_json_escaped_assignment);
  g_test_add_func ("/pd/redact/round16/json-unicode-escape-assignment", test_json_unicode_escape_assignment);
  return g_test_run ();
}
