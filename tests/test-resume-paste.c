/* test-resume-paste.c: the Continue panel's Copy line (`cd 'FOLDER' &&
 * claude --resume ID`) as an attacker would name the folder, run in bash,
 * zsh and fish (each where installed: fish and zsh are not on CI).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "pd-source.h"

#define ID "44444444-aaaa-4bbb-8ccc-dddddddddddd"

typedef struct
{
  char *tmp;
  char *bin;      /* holds a fake `claude` that writes the folder it ran in */
  char *mark;
  char *pwned;
} Fixture;

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *claude = NULL;

  f->tmp = g_dir_make_tmp ("pd-resume-paste-XXXXXX", &error);
  g_assert_no_error (error);
  f->bin = g_build_filename (f->tmp, "bin", NULL);
  f->mark = g_build_filename (f->tmp, "mark", NULL);
  f->pwned = g_build_filename (f->tmp, "PWNED", NULL);
  g_assert_cmpint (g_mkdir (f->bin, 0700), ==, 0);
  claude = g_build_filename (f->bin, "claude", NULL);
  g_assert_true (g_file_set_contents (claude, "#!/bin/sh\npwd > \"$PD_MARK\"\n", -1, &error));
  g_assert_cmpint (g_chmod (claude, 0700), ==, 0);
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  remove_tree (f->tmp);
  g_free (f->tmp);
  g_free (f->bin);
  g_free (f->mark);
  g_free (f->pwned);
}

/* The folder's name with TMP and PWNED filled in. */
static char *
fill (Fixture    *f,
      const char *pattern)
{
  g_autoptr(GString) out = g_string_new (pattern);

  g_string_replace (out, "PWNED", f->pwned, 0);
  g_string_replace (out, "TMP", f->tmp, 0);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Runs @line in @shell; returns FALSE when the shell is not installed.
 * *ran_in is the folder the fake claude ran in, or NULL. */
static gboolean
run_in (Fixture     *f,
        const char  *shell,
        const char  *line,
        char       **ran_in)
{
  g_autofree char *program = g_find_program_in_path (shell);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_auto(GStrv) env = NULL;
  const char *fish_argv[] = { NULL, "--no-config", "-c", line, NULL };
  const char *zsh_argv[] = { NULL, "-f", "-c", line, NULL };
  const char *bash_argv[] = { NULL, "--norc", "--noprofile", "-c", line, NULL };
  const char **argv;
  int status = 0;

  *ran_in = NULL;
  if (program == NULL)
    return FALSE;
  argv = g_str_equal (shell, "fish") ? fish_argv : g_str_equal (shell, "zsh") ? zsh_argv : bash_argv;
  argv[0] = program;
  path = g_strdup_printf ("%s:/usr/bin:/bin", f->bin);
  env = g_environ_setenv (NULL, "PATH", path, TRUE);
  env = g_environ_setenv (env, "HOME", f->tmp, TRUE);
  env = g_environ_setenv (env, "XDG_CONFIG_HOME", f->tmp, TRUE);
  env = g_environ_setenv (env, "XDG_DATA_HOME", f->tmp, TRUE);
  env = g_environ_setenv (env, "XDG_CACHE_HOME", f->tmp, TRUE);
  env = g_environ_setenv (env, "PD_MARK", f->mark, TRUE);
  g_unlink (f->mark);
  g_assert_true (g_spawn_sync (f->tmp, (char **) argv, env, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                               NULL, NULL, NULL, NULL, &status, &error));
  g_assert_no_error (error);
  if (g_file_get_contents (f->mark, ran_in, NULL, NULL))
    g_strchomp (*ran_in);
  return TRUE;
}

/* Folders as a transcript may name them: the first ones fish reads
 * differently inside single quotes, so no line is given for them. */
static const char *hostile[] = {
  "/nonexistent/y\\' ; touch PWNED ; echo \\'",
  "TMP/x\\' ; touch PWNED ; echo \\'",
  "TMP/a'b; touch PWNED",
  "TMP/back\\\\'; touch PWNED; echo '",
  "TMP/ends-in\\",
};

/* Folders whose line is the same command in every shell: it goes there. */
static const char *plain[] = {
  "TMP/a b;$(touch PWNED)`touch PWNED`",
  "TMP/\"; touch PWNED; echo \"",
  "TMP/{x,y} *?[a] ~ %self $HOME !! #c & |",
  "TMP/\303\274n\303\257code \342\200\256 rtl",
  "TMP/-dash",
};

static void
test_hostile (Fixture       *f,
              gconstpointer  data)
{
  const char *shells[] = { "bash", "zsh", "fish" };

  for (guint i = 0; i < G_N_ELEMENTS (hostile); i++)
    {
      g_autofree char *folder = fill (f, hostile[i]);
      g_autoptr(PdResumeCommand) command =
        pd_resume_command_new (g_strsplit ("claude --resume " ID, " ", -1), folder);
      g_autofree char *line = pd_resume_command_to_paste (command);

      g_test_message ("folder %s: line %s", folder, line ? line : "(none)");
      /* Made real where it can be, as a checkout could name it. */
      if (g_str_has_prefix (folder, f->tmp))
        g_mkdir_with_parents (folder, 0700);
      /* Run before the assertion, so that a line given shows what it did. */
      for (guint s = 0; line != NULL && s < G_N_ELEMENTS (shells); s++)
        {
          g_autofree char *ran_in = NULL;

          if (!run_in (f, shells[s], line, &ran_in))
            continue;
          if (g_file_test (f->pwned, G_FILE_TEST_EXISTS))
            g_test_message ("%s ran the injected command", shells[s]);
          g_assert_false (g_file_test (f->pwned, G_FILE_TEST_EXISTS));
        }
      g_assert_null (line);
      g_assert_cmpint (pd_resume_command_check_paste (command), ==, PD_RESUME_PASTE_QUOTE);
    }
}

static void
test_plain (Fixture       *f,
            gconstpointer  data)
{
  const char *shells[] = { "bash", "zsh", "fish" };
  guint ran = 0;

  for (guint i = 0; i < G_N_ELEMENTS (plain); i++)
    {
      g_autofree char *folder = fill (f, plain[i]);
      g_autoptr(PdResumeCommand) command =
        pd_resume_command_new (g_strsplit ("claude --resume " ID, " ", -1), folder);
      g_autofree char *line = pd_resume_command_to_paste (command);

      g_assert_nonnull (line);
      g_assert_cmpint (pd_resume_command_check_paste (command), ==, PD_RESUME_PASTE_OK);
      g_assert_cmpint (g_mkdir_with_parents (folder, 0700), ==, 0);
      for (guint s = 0; s < G_N_ELEMENTS (shells); s++)
        {
          g_autofree char *ran_in = NULL;

          if (!run_in (f, shells[s], line, &ran_in))
            {
              g_test_message ("%s is not installed: its run is skipped", shells[s]);
              continue;
            }
          ran++;
          g_assert_false (g_file_test (f->pwned, G_FILE_TEST_EXISTS));
          /* The same command everywhere: claude ran, in the folder. */
          g_assert_cmpstr (ran_in, ==, folder);
        }
    }
  g_assert_cmpuint (ran, >=, G_N_ELEMENTS (plain));
}

/* Control characters (also C1, as UTF-8) give no line either, and a word
 * of the command holding a quote is refused as the folder is. */
static void
test_words (void)
{
  const char *controls[] = { "/tmp/x\025touch /tmp/p\n", "/tmp/x\177", "/tmp/x\302\233" "2J" };
  const char *argv_quote[] = { "claude", "--resume", "a'b", NULL };
  g_autoptr(PdResumeCommand) quoted = pd_resume_command_new (g_strdupv ((char **) argv_quote), NULL);
  const char *argv_equals[] = { "claude", "=ls", NULL };
  g_autoptr(PdResumeCommand) equals = pd_resume_command_new (g_strdupv ((char **) argv_equals), NULL);
  g_autofree char *equals_line = pd_resume_command_to_string (equals);

  for (guint i = 0; i < G_N_ELEMENTS (controls); i++)
    {
      g_autoptr(PdResumeCommand) command =
        pd_resume_command_new (g_strsplit ("claude --resume " ID, " ", -1), controls[i]);

      g_assert_null (pd_resume_command_to_paste (command));
      g_assert_cmpint (pd_resume_command_check_paste (command), ==, PD_RESUME_PASTE_CONTROL);
    }
  g_assert_null (pd_resume_command_to_paste (quoted));
  g_assert_cmpint (pd_resume_command_check_paste (quoted), ==, PD_RESUME_PASTE_QUOTE);
  /* zsh reads a bare =ls as /usr/bin/ls. */
  g_assert_cmpstr (equals_line, ==, "claude '=ls'");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/pd/resume-paste/hostile", Fixture, NULL, fixture_set_up, test_hostile, fixture_tear_down);
  g_test_add ("/pd/resume-paste/plain", Fixture, NULL, fixture_set_up, test_plain, fixture_tear_down);
  g_test_add_func ("/pd/resume-paste/words", test_words);
  return g_test_run ();
}
