/* pd-test-spawn.c: processes a ui test starts, which end with it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A test killed mid-run (meson's timeout, Ctrl+C, SIGKILL) never reaches
 * its tear-down: every `plandeck-agent serve --db /tmp/plandeck-ui-*` it
 * had started stayed, listening, after the test was gone (and CI's
 * machine kept them until it was rebooted).  A process started here gets
 * SIGTERM as the test's main thread ends, however it ends: serve stops
 * cleanly on it.
 */
#define G_LOG_DOMAIN "pd-test-ui"

#include "config.h"

#include <signal.h>
#include <unistd.h>
#include <sys/prctl.h>

#include "pd-test-spawn.h"

/* In the child, between fork() and exec(): async-signal-safe calls only. */
static void
die_with_test (gpointer data)
{
  pid_t test = (pid_t) GPOINTER_TO_INT (data);

  prctl (PR_SET_PDEATHSIG, SIGTERM);
  /* The test died before the line above: no signal will come. */
  if (getppid () != test)
    _exit (127);
}

/**
 * pd_test_launcher_new:
 * @flags: as for g_subprocess_launcher_new()
 *
 * A launcher whose processes get SIGTERM when the test that started them
 * ends.  Spawn from the main thread: the signal follows the thread that
 * started the process (PR_SET_PDEATHSIG), not the whole test.
 *
 * Returns: (transfer full): the launcher
 */
GSubprocessLauncher *
pd_test_launcher_new (GSubprocessFlags flags)
{
  GSubprocessLauncher *launcher = g_subprocess_launcher_new (flags);

  g_subprocess_launcher_set_child_setup (launcher, die_with_test, GINT_TO_POINTER ((int) getpid ()), NULL);
  return launcher;
}

/**
 * pd_test_spawn:
 * @flags: as for g_subprocess_new()
 * @error: where a failure to start goes
 * @argv0: the program, then its arguments, %NULL-terminated
 *
 * g_subprocess_new() with pd_test_launcher_new()'s launcher: the process
 * ends with the test.
 *
 * Returns: (transfer full) (nullable): the process, or %NULL with @error set
 */
GSubprocess *
pd_test_spawn (GSubprocessFlags   flags,
               GError           **error,
               const char        *argv0,
               ...)
{
  g_autoptr(GSubprocessLauncher) launcher = pd_test_launcher_new (flags);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  const char *arg;
  va_list args;

  g_return_val_if_fail (argv0 != NULL, NULL);

  g_ptr_array_add (argv, (char *) argv0);
  va_start (args, argv0);
  while ((arg = va_arg (args, const char *)) != NULL)
    g_ptr_array_add (argv, (char *) arg);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  return g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, error);
}
