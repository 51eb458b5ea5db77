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

#include <json-glib/json-glib.h>

#include "pd-redact.h"
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

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/redact/continued-options", test_continued_options);
  g_test_add_func ("/pd/redact/no-continuation-kept", test_no_continuation_kept);

  return g_test_run ();
}
