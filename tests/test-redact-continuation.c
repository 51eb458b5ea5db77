/* test-redact-continuation.c: secrets bash reads across line
 * continuations (a backslash and a line feed, which it takes out before it
 * splits words), found stored as written by an attacker's run through
 * serve: each through the real redactor, as text, inside a tool call's
 * JSON text and as a JSON document's string value, bash's reading of the
 * signs outside quotes the same; and the commands where bash takes no
 * continuation out kept.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "pd-approver.h"
#include "pd-redact.h"
#include "pd-server-private.h"
#include "pd-shell-tool.h"
#include "pd-tool.h"
#include "pd-write-file-tool.h"
#include "test-redact-util.h"
#include "test-redact-attack-util.h"

/* Each case redacted as text as it expects, its secret gone, and in the
 * other readings too (assert_attacks()). */
static void
assert_cases_everywhere (const RedactCase *cases,
                         gsize             n_cases)
{
  g_autofree AttackCase *attacks = g_new0 (AttackCase, n_cases);

  assert_cases (cases, n_cases, TRUE);
  for (gsize i = 0; i < n_cases; i++)
    attacks[i] = (AttackCase) { cases[i].input, cases[i].secret, { NULL } };
  assert_attacks (attacks, n_cases);
}

static void
assert_laid_out (const char *text,
                 const char *prefix,
                 const char *next_prefix,
                 const char *expected,
                 guint       expected_count)
{
  guint n = 99;
  g_autofree char *out = pd_redact_laid_out (text, prefix, next_prefix, &n);

  g_assert_cmpstr (out, ==, expected);
  g_assert_cmpuint (n, ==, expected_count);
}

/* Finding: the option after a continuation was no longer tied to its
 * command (a line break started a command line of its own), so the
 * README's forms written the usual multi-line way were stored as written;
 * the same on one line were masked.  And inside "…" bash takes the
 * continuation out too: a URL's password cut by one was stored. */
static void
test_continued_options (void)
{
  static const RedactCase cases[] = {
    { "mysql \\\n  -uroot \\\n  -pZq9Secr3tXy shop", "mysql \\\n  -uroot \\\n  -p[REDACTED] shop", "Zq9Secr3tXy" },
    { "mysql \\\n-pZq9Secr3tXy shop", "mysql \\\n-p[REDACTED] shop", "Zq9Secr3tXy" },
    { "mysql -uroot \\\n    -pZq9Secr3tXy shop", "mysql -uroot \\\n    -p[REDACTED] shop", "Zq9Secr3tXy" },
    { "mysqldump \\\n  -uroot \\\n  -pZq9Secr3tXy \\\n  shop", "mysqldump \\\n  -uroot \\\n  -p[REDACTED] \\\n  shop",
      "Zq9Secr3tXy" },
    { "sshpass \\\n  -p Zq9Secr3tXy ssh h", "sshpass \\\n  -p [REDACTED] ssh h", "Zq9Secr3tXy" },
    { "docker login \\\n  -u bob \\\n  -p Zq9Secr3tXy reg", "docker login \\\n  -u bob \\\n  -p [REDACTED] reg",
      "Zq9Secr3tXy" },
    { "redis-cli \\\n  -h h \\\n  -a Zq9Secr3tXy", "redis-cli \\\n  -h h \\\n  -a [REDACTED]", "Zq9Secr3tXy" },
    { "ldapsearch \\\n  -x -w Zq9Secr3tXy", "ldapsearch \\\n  -x -w [REDACTED]", "Zq9Secr3tXy" },
    /* the option itself cut: bash reads -pZq9Secr3tXy */
    { "mysql -uroot -p\\\nZq9Secr3tXy shop", "mysql -uroot -p\\\n[REDACTED] shop", "Zq9Secr3tXy" },
    /* the client's name cut */
    { "mys\\\nql -uroot -pZq9Secr3tXy shop", "mys\\\nql -uroot -p[REDACTED] shop", "Zq9Secr3tXy" },
    /* in "…" too */
    { "psql \"postgresql://bob:Zq9\\\nSecr3tXy@db/x\"", "psql \"postgresql://bob:[REDACTED]\\\n[REDACTED]@db/x\"",
      "Secr3tXy" },
  };

  assert_cases_everywhere (cases, G_N_ELEMENTS (cases));
}

/* Where bash takes no continuation out, the line break ends the command
 * and the next line is one of its own: no password option of the line
 * before. */
static void
test_no_continuation_kept (void)
{
  static const char * const kept[] = {
    /* an escaped backslash, then the line's end */
    "mysql -uroot \\\\\n-pZq9Secr3tXy shop",
    /* a comment is not continued */
    "mysql -uroot # the root user \\\n-pZq9Secr3tXy shop",
    /* a backslash and CR LF: the CR is escaped, the LF ends the line */
    "mysql -uroot \\\r\n-pZq9Secr3tXy shop",
    /* look-alike options of other commands, continued */
    "docker run \\\n  -p 8080:80 \\\n  nginx",
    "ssh \\\n  -p 2222 host",
    "grep \\\n  -a pattern file",
    "mysql \\\n  -uroot \\\n  -p \\\n  shop",
  };

  assert_commands_kept (kept, G_N_ELEMENTS (kept));
}

/* Found while fixing the above: the scan read a command cut by a
 * continuation as two words, so what bash runs was masked: eval cut in
 * two ran a variable whose value was masked, and $(…) after a continuation
 * is in the word of the value before it.  Read as bash reads it, they stay
 * in sight. */
static void
test_continued_runs_kept (void)
{
  static const char * const kept[] = {
    "API_TOKEN=reboot; ev\\\nal \"$API_TOKEN\"",
    "API_TOKEN=reboot; eval \"$API_TOK\\\nEN\"",
    "PGPASSWORD=\"abc\\\n$(id)\" psql",
    "PGPASSWORD=Zq9Secr3t\\\n$[x] true",
    "mysql -pZq9\\\n$(id) shop",
    "mysql -pZq9\\\n`id` shop",
  };

  assert_commands_kept (kept, G_N_ELEMENTS (kept));
}

/* The question serve asks of @command (@tool's @member): its preview laid
 * out by the real tool, then told as serve tells it. */
static JsonObject *
question_of (PdTool        *tool,
             PdToolContext *context,
             const char    *member,
             const char    *command)
{
  g_autoptr(JsonObject) args = json_object_new ();
  g_autofree char *preview = NULL;
  g_autofree char *summary = NULL;
  Approval *approval;
  JsonObject *question;

  json_object_set_string_member (args, "path", "f.env");
  json_object_set_string_member (args, member, command);
  preview = pd_tool_preview (tool, context, args, NULL);
  summary = pd_approver_summarize (tool, args);
  approval = _pd_server_approval_new (pd_tool_get_name (tool), summary, preview);
  question = _pd_server_approval_to_json (approval);
  _pd_server_approval_unref (approval);
  return question;
}

/* Finding: the question's preview indents each line of a command after
 * its first by two spaces, and was redacted so: the indent after a
 * continuation read as the command's, a blank that ends the value, and
 * what followed it was shown, the whole password after PGPASSWORD=\,
 * although the session stored it masked.  The README's own example,
 * PGPASSWORD=Sec\<newline>r3t, is [REDACTED]\<newline>[REDACTED] in the
 * preview too. */
static void
test_preview_continued (void)
{
  static const struct { const char *command, *secret, *shown; } cases[] = {
    { "mysql -uroot -pHunter2\\\nZq9TailSecret shop", "Zq9TailSecret",
      "\n$ mysql -uroot -p[REDACTED]\\\n  [REDACTED] shop\n" },
    { "PGPASSWORD=\\\nZq9Secr3tXy psql", "Zq9Secr3tXy", "\n$ PGPASSWORD=\\\n  [REDACTED] psql\n" },
    { "PGPASSWORD=Sec\\\nr3t psql", "r3t", "\n$ PGPASSWORD=[REDACTED]\\\n  [REDACTED] psql\n" },
    { "mysql -uroot --password=\\\nZq9Secr3tXy shop", "Zq9Secr3tXy",
      "\n$ mysql -uroot --password=\\\n  [REDACTED] shop\n" },
    { "export API_TOKEN=sk-live-\\\nZq9TailSecretXy", "Zq9TailSecretXy", "\n$ export API_TOKEN=" },
    { "mysql \\\n  -uroot \\\n  -pZq9Secr3tXy shop", "Zq9Secr3tXy", "\n    -p[REDACTED] shop\n" },
    { "docker login \\\n  -u bob \\\n  -p Zq9Secr3tXy reg", "Zq9Secr3tXy", "\n    -p [REDACTED] reg\n" },
    { "ldapsearch \\\n  -x -w Zq9Secr3tXy", "Zq9Secr3tXy", "\n    -x -w [REDACTED]\n" },
  };
  /* A continuation, then a blank: an empty value, and rm runs. */
  static const char * const kept[] = {
    "PGPASSWORD=\\\n rm x",
    "echo hi \\\n  there",
    "make \\\n  check",
  };
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-redact-continuation-XXXXXX", &error);
  g_autoptr(PdToolContext) context = NULL;
  g_autoptr(PdTool) shell = pd_shell_tool_new ();
  g_autoptr(PdTool) write_file = pd_write_file_tool_new ();

  g_assert_no_error (error);
  context = pd_tool_context_new (dir, &error);
  g_assert_no_error (error);

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonObject) question = question_of (shell, context, "command", cases[i].command);
      const char *preview = json_object_get_string_member (question, "preview");

      if (strstr (preview, cases[i].secret) != NULL || strstr (preview, cases[i].shown) == NULL)
        g_error ("%s: preview %s", cases[i].command, preview);
      /* and its one-line summary, line breaks written \n */
      if (strstr (json_object_get_string_member (question, "command"), cases[i].secret) != NULL)
        g_error ("%s: command %s", cases[i].command, json_object_get_string_member (question, "command"));
      g_assert_true (json_object_get_boolean_member (question, "masked"));
    }
  for (gsize i = 0; i < G_N_ELEMENTS (kept); i++)
    {
      g_autoptr(JsonObject) question = question_of (shell, context, "command", kept[i]);
      g_autofree char *line = g_strdup_printf ("\n$ %.*s", (int) (strchr (kept[i], '\n') - kept[i]), kept[i]);

      g_assert_nonnull (strstr (json_object_get_string_member (question, "preview"), line));
      g_assert_nonnull (strstr (json_object_get_string_member (question, "preview"), strchr (kept[i], '\n') + 1));
      g_assert_false (json_object_has_member (question, "masked"));
    }

  /* A file's lines, laid out "+ " each. */
  {
    g_autoptr(JsonObject) question = question_of (write_file, context, "content",
                                                  "#!/bin/sh\nPGPASSWORD=\\\nZq9Secr3tXy psql\n");
    const char *preview = json_object_get_string_member (question, "preview");

    if (strstr (preview, "Zq9Secr3tXy") != NULL || strstr (preview, "\n+ PGPASSWORD=\\\n+ [REDACTED] psql\n") == NULL)
      g_error ("write_file: preview %s", preview);
  }
  g_rmdir (dir);
}

/* Finding (a look-alike blank shown as \u00a0 in the question): the
 * redactor read `--password\u00a0Zq9…` as one word and kept the secret in
 * sight, `PGPASSWORD=Zq9…\u00a0psql` as one value and hid psql; padding
 * said as "[40 × U+3000]" before redaction kept `PGPASSWORD=Zq9…` whole.
 * serve redacts with the blanks as they are and escapes them again;
 * padding stays as it is in the preview until it is shown. */
static void
test_preview_blanks (void)
{
  static const struct { const char *command, *shown; } cases[] = {
    { "deploy --password\u00a0Zq9Secr3tXy prod", "\n$ deploy --password\\u00a0[REDACTED] prod\n" },
    { "redis-cli -a\u00a0Zq9Secr3tXy ping", "\n$ redis-cli -a\\u00a0[REDACTED] ping\n" },
    { "PGPASSWORD=Zq9Secr3tXy\u3000psql", "\n$ PGPASSWORD=[REDACTED]\\u3000psql\n" },
    { "sshpass -p                                        Zq9Secr3tXy ssh h", "[REDACTED] ssh h\n" },
    { "PGPASSWORD=Zq9Secr3tXy\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000"
      "\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000\u3000x",
      "\n$ PGPASSWORD=[REDACTED]\u3000\u3000" },
  };
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-redact-continuation-XXXXXX", &error);
  g_autoptr(PdToolContext) context = NULL;
  g_autoptr(PdTool) shell = pd_shell_tool_new ();

  g_assert_no_error (error);
  context = pd_tool_context_new (dir, &error);
  g_assert_no_error (error);

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonObject) question = question_of (shell, context, "command", cases[i].command);
      const char *preview = json_object_get_string_member (question, "preview");
      const char *command = json_object_get_string_member (question, "command");

      if (strstr (preview, "Zq9Secr3tXy") != NULL || strstr (preview, cases[i].shown) == NULL)
        g_error ("%s: preview %s", cases[i].command, preview);
      if (strstr (command, "Zq9Secr3tXy") != NULL || strstr (command, "[REDACTED]") == NULL)
        g_error ("%s: command %s", cases[i].command, command);
      g_assert_true (json_object_get_boolean_member (question, "masked"));
    }
  /* Nothing masked: the question as the tool showed it. */
  {
    g_autoptr(JsonObject) question = question_of (shell, context, "command", "cd build\u00a0; rm -f victim");

    g_assert_nonnull (strstr (json_object_get_string_member (question, "preview"), "\n$ cd build\\u00a0; rm -f victim\n"));
    g_assert_cmpstr (json_object_get_string_member (question, "command"), ==, "cd build\\u00a0; rm -f victim");
    g_assert_false (json_object_has_member (question, "masked"));
  }
  g_rmdir (dir);
}

/* pd_redact_laid_out(): the lines around a block redacted as text, a
 * block whose mask would take a line break as text, prefixes and all. */
static void
test_laid_out_lines (void)
{
  assert_laid_out ("In /x:\n$ PGPASSWORD=\\\n  Zq9Secr3tXy psql\n", "$ ", "  ",
                   "In /x:\n$ PGPASSWORD=\\\n  [REDACTED] psql\n", 1);
  assert_laid_out ("token=Zq9Secr3tXy\n$ true\n", "$ ", "  ", "token=[REDACTED]\n$ true\n", 1);
  assert_laid_out ("$ ", "$ ", "  ", "$ ", 0);
  assert_laid_out ("$ a\n  b\nc\n", "$ ", "  ", "$ a\n  b\nc\n", 0);
}

/* Finding: bash's $[…] is an arithmetic expansion, as $((…)) is, and
 * runs code through an array subscript (x='a[$(touch PWN)]'; $[x]): a
 * value that holds one, or is followed by one in its word, was masked
 * with it, where $(( stays in sight. */
static void
test_arithmetic_in_sight (void)
{
  static const char * const kept[] = {
    "x='a[$(touch PWN1)]'; PGPASSWORD=Zq9Secr3t$[x] true",
    "PGPASSWORD=\"Zq9Secr3t$[x]\" true",
    "PGPASSWORD=$[x]Zq9Secr3t true",
    "mysql -pZq9Secr3t$[x] shop",
    "curl -u bob:Zq9Secr3t$[x] https://h.example",
    "PGPASSWORD=Zq9Secr3t$((x)) true",
    /* whatever its quoting, as $( is: a command quoted for another shell */
    "PGPASSWORD='Zq9Secr3t$[x]' psql",
  };
  static const RedactCase masked[] = {
    /* brackets after no $: text, in a shell assignment */
    { "PGPASSWORD=Hunter[2x] psql", "PGPASSWORD=[REDACTED] psql", "Hunter" },
    { "PGPASSWORD=Zq9Secr3t$x psql", "PGPASSWORD=[REDACTED] psql", "Zq9" },
  };

  assert_commands_kept (kept, G_N_ELEMENTS (kept));
  assert_cases (masked, G_N_ELEMENTS (masked), TRUE);
}

/* Finding: spellings in the README's scope stored as written: sshpass's
 * environment variable, prefixes MySQL's clients and gpg take for their
 * options, OpenLDAP's -w after grouped flags, curl's --oauth2-bearer,
 * redis-cli's AUTH command, ssh-keygen's -P and -N, npm's and yarn's
 * config set, SQL's PASSWORD '…' of a role. */
static void
test_more_spellings_masked (void)
{
  static const RedactCase cases[] = {
    { "SSHPASS=Zq9Secr3tXy sshpass -e ssh h", "SSHPASS=[REDACTED] sshpass -e ssh h", "Zq9Secr3tXy" },
    { "SSHPASS='Zq9Secr3tXy' sshpass -e ssh h", "SSHPASS='[REDACTED]' sshpass -e ssh h", "Zq9Secr3tXy" },
    { "export SSHPASS=Zq9Secr3tXy", "export SSHPASS=[REDACTED]", "Zq9Secr3tXy" },
    { "mysql --passw=Zq9Secr3tXy shop", "mysql --passw=[REDACTED] shop", "Zq9Secr3tXy" },
    { "mysqldump --passwo=Zq9Secr3tXy shop", "mysqldump --passwo=[REDACTED] shop", "Zq9Secr3tXy" },
    { "mariadb --passwor=Zq9Secr3tXy shop", "mariadb --passwor=[REDACTED] shop", "Zq9Secr3tXy" },
    { "ldapsearch -xw Zq9Secr3tXy -b dc=x", "ldapsearch -xw [REDACTED] -b dc=x", "Zq9Secr3tXy" },
    { "ldapsearch -xwZq9Secr3tXy -b dc=x", "ldapsearch -xw[REDACTED] -b dc=x", "Zq9Secr3tXy" },
    { "ldapmodify -xWw Zq9Secr3tXy -f a.ldif", "ldapmodify -xWw [REDACTED] -f a.ldif", "Zq9Secr3tXy" },
    { "curl --oauth2-bearer Zq9Secr3tXy https://h.example", "curl --oauth2-bearer [REDACTED] https://h.example",
      "Zq9Secr3tXy" },
    { "redis-cli AUTH Zq9Secr3tXy", "redis-cli AUTH [REDACTED]", "Zq9Secr3tXy" },
    { "redis-cli AUTH bob Zq9Secr3tXy", "redis-cli AUTH bob [REDACTED]", "Zq9Secr3tXy" },
    { "redis-cli -h h -p 6379 auth Zq9Secr3tXy", "redis-cli -h h -p 6379 auth [REDACTED]", "Zq9Secr3tXy" },
    { "ssh-keygen -p -P Zq9Secr3tXy -f k", "ssh-keygen -p -P [REDACTED] -f k", "Zq9Secr3tXy" },
    { "ssh-keygen -t ed25519 -N Zq9Secr3tXy -f k", "ssh-keygen -t ed25519 -N [REDACTED] -f k", "Zq9Secr3tXy" },
    { "gpg --passph Zq9Secr3tXy -d f.gpg", "gpg --passph [REDACTED] -d f.gpg", "Zq9Secr3tXy" },
    { "npm config set //reg.example/:_password Zq9Secr3tXy", "npm config set //reg.example/:_password [REDACTED]",
      "Zq9Secr3tXy" },
    { "yarn config set npmAuthToken Zq9Secr3tXy", "yarn config set npmAuthToken [REDACTED]", "Zq9Secr3tXy" },
    { "aws configure set aws_secret_access_key Zq9Secr3tXy", "aws configure set aws_secret_access_key [REDACTED]",
      "Zq9Secr3tXy" },
    { "aws configure set aws_session_token Zq9Secr3tXy --profile p",
      "aws configure set aws_session_token [REDACTED] --profile p", "Zq9Secr3tXy" },
    { "psql -c \"ALTER USER bob WITH PASSWORD 'Zq9Secr3tXy'\"", "psql -c \"ALTER USER bob WITH PASSWORD '[REDACTED]'\"",
      "Zq9Secr3tXy" },
    { "CREATE ROLE bob LOGIN PASSWORD 'Zq9Secr3tXy';", "CREATE ROLE bob LOGIN PASSWORD '[REDACTED]';", "Zq9Secr3tXy" },
    { "ALTER ROLE bob WITH ENCRYPTED PASSWORD 'Zq9Secr3tXy';", "ALTER ROLE bob WITH ENCRYPTED PASSWORD '[REDACTED]';",
      "Zq9Secr3tXy" },
  };

  assert_cases_everywhere (cases, G_N_ELEMENTS (cases));
}

/* Their honest look-alikes, kept. */
static void
test_more_spellings_kept (void)
{
  static const char * const kept[] = {
    "SSHPASS= rm x",
    "ssh-keygen -t ed25519 -N '' -f k",
    "mysql -N shop",
    "ssh -N -p 2222 h",
    "redis-cli GET auth",
    "redis-cli -n 1 GET AUTH",
    "echo auth bob x",
    "ldapsearch -xLLL -b dc=x uid",
    "ls -xw 80",
    "mysql -xw shop",
    /* (Not "echo the PASSWORD 'is required'": a quoted literal after the
     * word PASSWORD is masked wherever it stands, as PostgreSQL's CREATE
     * USER u PASSWORD 'X', WITH optional, needs; pd-redact-settings.c.) */
    "ALTER USER bob WITH PASSWORD NULL;",
    "npm config set registry https://r.example",
    "npm config get //reg.example/:_password",
    "yarn config set npmAlwaysAuth true",
    "aws configure set region eu-west-1",
    "aws configure set aws_access_key_id AKXXEXAMPLEID",
    "aws configure get aws_secret_access_key",
    "curl --oauth2-bearer $TOKEN https://h.example",
    "token_type: bearer",
    "gpg --passphrase-file f -d x.gpg",
  };

  assert_commands_kept (kept, G_N_ELEMENTS (kept));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/redact/continued-options", test_continued_options);
  g_test_add_func ("/pd/redact/no-continuation-kept", test_no_continuation_kept);
  g_test_add_func ("/pd/redact/continued-runs-kept", test_continued_runs_kept);
  g_test_add_func ("/pd/redact/preview-continued", test_preview_continued);
  g_test_add_func ("/pd/redact/preview-blanks", test_preview_blanks);
  g_test_add_func ("/pd/redact/laid-out-lines", test_laid_out_lines);
  g_test_add_func ("/pd/redact/arithmetic-in-sight", test_arithmetic_in_sight);
  g_test_add_func ("/pd/redact/more-spellings-masked", test_more_spellings_masked);
  g_test_add_func ("/pd/redact/more-spellings-kept", test_more_spellings_kept);

  return g_test_run ();
}
