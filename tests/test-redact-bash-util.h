/* test-redact-bash-util.h: real bash run on a command and on its masked
 * text, the commands each would run compared.
 *
 * The quote readings of the attack harness (unquoted_signs()) are this
 * project's own model of bash; a mask that hid a command bash runs
 * ($'\c'TOKEN$(touch x)' y': the model and the redactor read \c' alike,
 * bash does not) passed them.  So bash itself is asked: each text is run
 * with an empty PATH, in a folder of its own, stdin from /dev/null, and a
 * command_not_found_handle that writes down each command name it is asked
 * for; every name the original runs must be asked for by its masked text
 * too.  Without bash (it is on CI) the check is skipped.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "pd-redact.h"

/* The command names bash looks up when it runs @text, one a line. */
static inline char *
bash_command_names (const char *bash,
                    const char *text)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) proc = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-bash-XXXXXX", &error);
  g_autofree char *log = NULL;
  g_autofree char *script = NULL;
  g_autofree char *names = NULL;
  g_autofree char *nothing = NULL;

  g_assert_no_error (error);
  log = g_build_filename (dir, "names", NULL);
  nothing = g_build_filename (dir, "no-such-folder", NULL);
  script = g_strdup_printf ("command_not_found_handle () { printf '%%s\\n' \"$1\" >> '%s'; return 127; }\n%s\n", log,
                            text);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_subprocess_launcher_set_environ (launcher, NULL);
  g_subprocess_launcher_setenv (launcher, "PATH", nothing, TRUE);
  g_subprocess_launcher_setenv (launcher, "HOME", dir, TRUE);
  g_subprocess_launcher_set_cwd (launcher, dir);
  proc = g_subprocess_launcher_spawn (launcher, &error, bash, "--norc", "--noprofile", "-c", script, NULL);
  g_assert_no_error (error);
  g_subprocess_wait (proc, NULL, &error);
  g_assert_no_error (error);
  if (!g_file_get_contents (log, &names, NULL, NULL))
    names = g_strdup ("");
  g_unlink (log);
  g_rmdir (dir);
  return g_steal_pointer (&names);
}

/* Every command bash runs in @text is run by bash in pd_redact(@text). */
static inline void
assert_bash_runs_in_masked (const char *text)
{
  g_autofree char *bash = g_find_program_in_path ("bash");
  g_autofree char *masked = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_auto(GStrv) names = NULL;
  g_auto(GStrv) masked_names = NULL;

  if (bash == NULL)
    return;
  masked = pd_redact (text, NULL);
  before = bash_command_names (bash, text);
  after = bash_command_names (bash, masked);
  names = g_strsplit (before, "\n", -1);
  masked_names = g_strsplit (after, "\n", -1);
  for (guint i = 0; names[i] != NULL; i++)
    if (names[i][0] != '\0' && !g_strv_contains ((const char * const *) masked_names, names[i]))
      g_error ("bash runs '%s' in\n  %s\nbut not in its masked text\n  %s", names[i], text, masked);
}
