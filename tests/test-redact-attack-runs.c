/* test-redact-attack-runs.c: the redactor tried as an attacker would, by
 * a secret's name: a value assigned to a variable that the shell then
 * runs (eval "$API_TOKEN", bash -c "$SECRET_KEY", $PASSWORD as a command
 * word…) is a command, and masked it hides from whoever approves the
 * command what runs.  It stays in sight (a leak is the lesser harm); a
 * variable used as data (a header, a password option, a pipe into
 * --password-stdin) is masked as before.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "pd-redact.h"
#include "test-redact-util.h"
#include "test-redact-attack-util.h"

/* @command redacted to @expected as text, and @secret gone from it in a
 * tool call's JSON text and in a JSON document's string value. */
static void
assert_masked_everywhere (const char *command,
                          const char *expected,
                          const char *secret)
{
  g_autofree char *json = command_as_json (command);
  g_autofree char *as_text = pd_redact (json, NULL);
  g_autofree char *as_json = pd_redact_json (json, NULL);

  assert_redacted (command, expected, 1);
  if (strstr (as_text, secret) != NULL)
    g_error ("%s in JSON text became %s: \"%s\" stored", command, as_text, secret);
  if (strstr (as_json, secret) != NULL)
    g_error ("%s in a JSON document became %s: \"%s\" stored", command, as_json, secret);
}

/* Finding: API_TOKEN=reboot; eval "$API_TOKEN" was stored as
 * API_TOKEN=[REDACTED]; eval "$API_TOKEN": the approver saw a token
 * evaluated and approved reboot unseen.  A value whose variable the shell
 * runs (a command word, eval's words, the code of sh -c, python -c,
 * perl -e…, source, what a precommand runs, a pipe or a here-string into
 * a shell) is kept. */
static void
test_variable_run (void)
{
  static const char * const kept[] = {
    "API_TOKEN=reboot; eval \"$API_TOKEN\"",
    "API_TOKEN=reboot; eval $API_TOKEN",
    "API_TOKEN=reboot; eval 'echo start; $API_TOKEN'",
    "SECRET_KEY='sh x.sh'; bash -c \"$SECRET_KEY\"",
    "SECRET_KEY=reboot; bash -lc \"$SECRET_KEY\"",
    "PASSWORD='rm -rf ~'; $PASSWORD",
    "PASSWORD=reboot; $PASSWORD",
    "PASSWORD=reboot\n\"$PASSWORD\" now",
    "export TOKEN=reboot; sh -c \"$TOKEN\"",
    "export TOKEN=reboot; bash -c '$TOKEN'",
    "API_TOKEN=reboot; zsh -c \"$API_TOKEN\"",
    "API_TOKEN=reboot; dash -c \"$API_TOKEN\"",
    "API_TOKEN=reboot; ksh -c \"$API_TOKEN\"",
    "API_TOKEN=reboot; source \"$API_TOKEN\"",
    "API_TOKEN=reboot; . $API_TOKEN",
    "API_TOKEN=reboot; exec $API_TOKEN",
    "API_TOKEN=reboot; echo x | xargs $API_TOKEN",
    "API_TOKEN=reboot; env $API_TOKEN",
    "API_TOKEN=reboot; env A=1 $API_TOKEN",
    "API_TOKEN=reboot; sudo $API_TOKEN",
    "API_TOKEN=reboot; sudo -u root $API_TOKEN",
    "API_TOKEN=reboot; nohup $API_TOKEN &",
    "API_TOKEN=reboot; time $API_TOKEN",
    "API_TOKEN=reboot; timeout 10 $API_TOKEN",
    "API_TOKEN=reboot; x=$($API_TOKEN)",
    "API_TOKEN=reboot; x=\"$($API_TOKEN)\"",
    "API_TOKEN=reboot; x=`$API_TOKEN`",
    "API_TOKEN=reboot; ${API_TOKEN}",
    "API_TOKEN=reboot; ${API_TOKEN:-true}",
    "API_TOKEN=reboot && python3 -c \"$API_TOKEN\"",
    "API_TOKEN=reboot && perl -e \"$API_TOKEN\"",
    "API_TOKEN=reboot && node -e \"$API_TOKEN\"",
    "API_TOKEN=reboot && ruby -e \"$API_TOKEN\"",
    "API_TOKEN=reboot; echo \"$API_TOKEN\" | sh",
    "API_TOKEN=reboot; printf '%s' \"$API_TOKEN\" | sudo bash",
    "API_TOKEN=reboot; bash <<< \"$API_TOKEN\"",
    "API_TOKEN=reboot; ssh host \"$API_TOKEN\"",
    "API_TOKEN=reboot; if true; then $API_TOKEN; fi",
    "API_TOKEN=${X:-reboot}; eval \"$API_TOKEN\"",
    "API_TOKEN=reboot; echo \"$API_TOKEN\" | tee log | bash",
    "API_TOKEN=reboot; su root -c \"$API_TOKEN\"",
    "API_TOKEN=reboot; trap \"$API_TOKEN\" EXIT",
    "API_TOKEN=reboot; find . -name x -exec $API_TOKEN {} +",
    "API_TOKEN=reboot; awk \"BEGIN { system(\\\"$API_TOKEN\\\") }\"",
    "API_TOKEN=reboot; (true; $API_TOKEN)",
    "API_TOKEN=reboot; true && { $API_TOKEN; }",
    "API_TOKEN=reboot; sudo -- \"$API_TOKEN\"",
    "API_TOKEN=reboot; env -S \"$API_TOKEN\"",
    /* Through another variable, a loop's, a function's or an alias's
     * words, a program named by a variable the text sets, an input. */
    "API_TOKEN=reboot; X=\"$API_TOKEN\"; eval \"$X\"",
    "API_TOKEN=reboot; X=$API_TOKEN; Y=${X}; $Y",
    "API_TOKEN=reboot; for t in $API_TOKEN; do $t; done",
    "API_TOKEN=reboot; x=eval; $x \"$API_TOKEN\"",
    "API_TOKEN=reboot; run() { eval \"$1\"; }; run \"$API_TOKEN\"",
    "API_TOKEN=reboot; function run { \"$@\"; }; run $API_TOKEN",
    "API_TOKEN=reboot; alias go=eval; go \"$API_TOKEN\"",
    "API_TOKEN=reboot; sh < <(echo \"$API_TOKEN\")",
    /* A command held in a JSON string held in one. */
    "{\"cmd\":\"{\\\"command\\\":\\\"API_TOKEN=reboot; eval \\\\\\\"$API_TOKEN\\\\\\\"\\\"}\"}",
  };

  assert_commands_kept (kept, G_N_ELEMENTS (kept));
}

/* A variable used as data stays masked: a header, a password glued to
 * -p, a pipe into --password-stdin, a script's argument, the arguments
 * after sh -c's code, what a precommand's command takes. */
static void
test_variable_as_data (void)
{
  assert_masked_everywhere ("API_TOKEN=abc123XYZq; curl -H \"Authorization: Bearer $API_TOKEN\" https://x.example",
                            "API_TOKEN=[REDACTED]; curl -H \"Authorization: Bearer $API_TOKEN\" https://x.example",
                            "abc123XYZq");
  assert_masked_everywhere ("PASS=Hunter2xyz; mysql -p\"$PASS\" shop",
                            "PASS=[REDACTED]; mysql -p\"$PASS\" shop", "Hunter2xyz");
  assert_masked_everywhere ("REG_PASSWORD=Hunter2xyz; echo \"$REG_PASSWORD\" | docker login --password-stdin -u u reg",
                            "REG_PASSWORD=[REDACTED]; echo \"$REG_PASSWORD\" | docker login --password-stdin -u u reg",
                            "Hunter2xyz");
  assert_masked_everywhere ("API_TOKEN=abc123XYZq; python3 app.py --token \"$API_TOKEN\"",
                            "API_TOKEN=[REDACTED]; python3 app.py --token \"$API_TOKEN\"", "abc123XYZq");
  assert_masked_everywhere ("API_TOKEN=abc123XYZq; bash -c 'deploy --token \"$1\"' _ \"$API_TOKEN\"",
                            "API_TOKEN=[REDACTED]; bash -c 'deploy --token \"$1\"' _ \"$API_TOKEN\"", "abc123XYZq");
  assert_masked_everywhere ("API_TOKEN=abc123XYZq; sudo -E curl -H \"X-Token: $API_TOKEN\" x.example",
                            "API_TOKEN=[REDACTED]; sudo -E curl -H \"X-Token: $API_TOKEN\" x.example", "abc123XYZq");
  assert_masked_everywhere ("export API_TOKEN=abc123XYZq\necho \"$API_TOKEN\" > token.txt",
                            "export API_TOKEN=[REDACTED]\necho \"$API_TOKEN\" > token.txt", "abc123XYZq");
  /* Another variable run is no reason to show this one. */
  assert_masked_everywhere ("API_TOKEN=abc123XYZq; CMD=true; eval \"$CMD\"; curl -u \"u:$API_TOKEN\" x.example",
                            "API_TOKEN=[REDACTED]; CMD=true; eval \"$CMD\"; curl -u \"u:$API_TOKEN\" x.example",
                            "abc123XYZq");
  /* A function that uses its argument as data, a program named by a
   * variable the text does not set. */
  assert_masked_everywhere ("API_TOKEN=abc123XYZq; send() { curl -H \"X-Token: $1\" x.example; }; send \"$API_TOKEN\"",
                            "API_TOKEN=[REDACTED]; send() { curl -H \"X-Token: $1\" x.example; }; send \"$API_TOKEN\"",
                            "abc123XYZq");
  assert_masked_everywhere ("API_TOKEN=abc123XYZq; $CURL -H \"X-Token: $API_TOKEN\" x.example",
                            "API_TOKEN=[REDACTED]; $CURL -H \"X-Token: $API_TOKEN\" x.example", "abc123XYZq");
  /* Nor is a name that only begins like it ($API_TOKEN_FILE). */
  assert_masked_everywhere ("API_TOKEN=abc123XYZq; eval \"$API_TOKEN_FILE\"",
                            "API_TOKEN=[REDACTED]; eval \"$API_TOKEN_FILE\"", "abc123XYZq");
}

/* Finding (round 10's attack): another spelling matched first and the
 * runs check never saw the assignment or the eval.  The cookie spelling
 * masked API_TOKEN=reboot as a cookie's pair (echo Cookie: sid=abcdef;
 * API_TOKEN=reboot; eval "$API_TOKEN" stored both masked), and shell
 * quotes taken for JSON strings left the eval out of every reading
 * (echo '{"b":"' ; eval "$API_TOKEN" ; echo '"}').  The value stays in
 * sight; a cookie's pair that runs nothing is masked as before. */
static void
test_variable_run_other_spelling (void)
{
  static const AttackCase cases[] = {
    { "echo Cookie: sid=abcdef; API_TOKEN=reboot; eval \"$API_TOKEN\"", NULL, { "API_TOKEN=reboot" } },
    { "echo Cookie: sid=abcdef; X=reboot9now; $X", NULL, { "X=reboot9now" } },
    { "echo Cookie: sid=rebootnow; eval \"$sid\"", NULL, { "sid=rebootnow" } },
    { "echo '{\"a\":\"x\"}' ; API_TOKEN=reboot; echo '{\"b\":\"' ; eval \"$API_TOKEN\" ; echo '\"}'",
      NULL, { "API_TOKEN=reboot" } },
  };

  assert_attacks (cases, G_N_ELEMENTS (cases));
  assert_redacted ("echo Cookie: sid=abcdef; API_TOKEN=reboot; eval \"$API_TOKEN\"",
                   "echo Cookie: sid=[REDACTED]; API_TOKEN=reboot; eval \"$API_TOKEN\"", 1);
  assert_redacted ("curl -H 'Cookie: a=S3cretZq9; b=T0kenZq9xx' https://x.example",
                   "curl -H 'Cookie: a=[REDACTED]; b=[REDACTED]' https://x.example", 2);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pd/redact/variable-run", test_variable_run);
  g_test_add_func ("/pd/redact/variable-as-data", test_variable_as_data);
  g_test_add_func ("/pd/redact/variable-run-other-spelling", test_variable_run_other_spelling);
  return g_test_run ();
}
