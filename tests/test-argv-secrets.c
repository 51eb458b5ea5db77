/* test-argv-secrets.c: tokens in a URL argument are hidden in place.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib.h>
#include "pd-argv-secrets.h"

static void
check (const char *given,
       const char *hidden,
       guint       n)
{
  g_autofree char *arg = g_strdup (given);
  char *argv[] = { (char *) "plandeck", arg, NULL };

  g_assert_cmpuint (pd_argv_hide_tokens (2, argv), ==, n);
  g_assert_cmpstr (arg, ==, hidden);
}

static void
test_hide (void)
{
  check ("http://127.0.0.1:8080/?token=s3cret", "http://127.0.0.1:8080/?token=******", 1);
  check ("http://h/?a=1&token=abc&b=2", "http://h/?a=1&token=***&b=2", 1);
  check ("http://h/?token=abc#frag", "http://h/?token=***#frag", 1);
  check ("http://h/?token=a&token=bb", "http://h/?token=*&token=**", 2);
  /* A provider's key in its URL (tried as an attacker would: it stayed). */
  check ("http://h/v1?key=KEYsecret555&api_key=abc", "http://h/v1?key=************&api_key=***", 2);
  check ("http://h/v1?monkey=1", "http://h/v1?monkey=1", 0);
  /* a name the URL reader decodes to `token` (tried as an attacker would:
   * `%74oken=` hid nothing, and the last of two names wins) */
  check ("http://h/?%74oken=SECRET", "http://h/?%74oken=******", 1);
  check ("http://h/?token=x&%74oken=SECRET", "http://h/?token=*&%74oken=******", 2);
  check ("http://h/?%54%4F%4B%45%4E=ab", "http://h/?%54%4F%4B%45%4E=**", 1);
  /* not a token parameter, or no value */
  check ("http://h/?mytoken=abc&token=", "http://h/?mytoken=abc&token=", 0);
  check ("http://h/path?x=1#mytoken=abc", "http://h/path?x=1#mytoken=abc", 0);
  check ("/home/u/a#b?c/s.db", "/home/u/a#b?c/s.db", 0);
  check ("/home/u/notes#token=1.db", "/home/u/notes#token=1.db", 0);
  check ("--remote", "--remote", 0);
  check ("", "", 0);
}

/* The window also takes a token from a URL's password and fragment, so
 * they are hidden too (tried as an attacker would: `ps` showed both for
 * the window's whole life). */
static void
test_hide_userinfo_and_fragment (void)
{
  check ("http://x:s3cret@127.0.0.1:8080/", "http://********@127.0.0.1:8080/", 1);
  check ("https://user@h/", "https://****@h/", 1);
  check ("http://a:b@c@h/p?q=1", "http://*****@h/p?q=1", 1);
  check ("http://h/path?x=1#token=abc", "http://h/path?x=1#token=***", 1);
  check ("http://h/#a=1&TOKEN=abc", "http://h/#a=1&TOKEN=***", 1);
  check ("--remote=http://u:p@h/?token=t#token=f", "--remote=http://***@h/?token=*#token=*", 3);
  /* an @ in the path is no user */
  check ("http://h/a@b", "http://h/a@b", 0);
  check ("http://@h/", "http://@h/", 0);
}

/* argv[0] is the program, never a URL to hide in. */
static void
test_program_kept (void)
{
  g_autofree char *prog = g_strdup ("/opt/x?token=y/plandeck");
  g_autofree char *arg = g_strdup ("--remote=http://h/?token=zz");
  char *argv[] = { prog, arg, NULL };

  g_assert_cmpuint (pd_argv_hide_tokens (2, argv), ==, 1);
  g_assert_cmpstr (prog, ==, "/opt/x?token=y/plandeck");
  g_assert_cmpstr (arg, ==, "--remote=http://h/?token=**");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pd/argv-secrets/hide", test_hide);
  g_test_add_func ("/pd/argv-secrets/program-kept", test_program_kept);
  g_test_add_func ("/pd/argv-secrets/userinfo-and-fragment", test_hide_userinfo_and_fragment);
  return g_test_run ();
}
