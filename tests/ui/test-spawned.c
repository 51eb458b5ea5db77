/* test-spawned.c: the ui tests' harness: a test killed mid-run leaves no
 * serve behind, and a wait that times out says what spun
 *
 * A ui test that starts `plandeck-agent serve` (as test-sources.c does)
 * and is killed with SIGKILL before its tear-down: the serve it started
 * is gone soon after, not listening on with its database
 * (/tmp/plandeck-ui-*) for as long as the machine runs, as each ui test
 * cut short by meson's timeout or Ctrl+C left its servers.  The test runs
 * itself as that child (--hold-serve), which starts serve through
 * pd_test_spawn() and waits to be killed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-spawned"

#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "pd-test-hang.h"
#include "pd-test-spawn.h"
#include "pd-test-ui.h"

/* The child: serve started and its pid said, then killed while it waits. */
static int
hold_serve (const char *db)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) serve = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autofree char *url = NULL;

  serve = pd_test_spawn (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_SILENCE, &error,
                         g_getenv ("PLANDECK_AGENT"), "serve", "--db", db, "--listen", "127.0.0.1:0",
                         "--rate-limit", "0", NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (serve));
  /* Listening: what serve prints first. */
  url = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (url);
  printf ("%s\n", g_subprocess_get_identifier (serve));
  fflush (stdout);
  for (;;)
    pause ();
  return 1;
}

/* The pids of the processes whose command line names @db: serve's. */
static GArray *
pids_naming (const char *db)
{
  GArray *pids = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr(GDir) proc = g_dir_open ("/proc", 0, NULL);
  const char *name;

  g_assert_nonnull (proc);
  while ((name = g_dir_read_name (proc)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autofree char *cmdline = NULL;
      gsize length = 0;
      int pid;

      if (!g_ascii_isdigit (name[0]))
        continue;
      path = g_build_filename ("/proc", name, "cmdline", NULL);
      /* A zombie's is empty: it runs no more. */
      if (!g_file_get_contents (path, &cmdline, &length, NULL))
        continue;
      for (gsize i = 0; i + 1 < length; i++)
        if (cmdline[i] == '\0')
          cmdline[i] = ' ';
      pid = atoi (name);
      if (pid != getpid () && strstr (cmdline, " serve ") != NULL && strstr (cmdline, db) != NULL)
        g_array_append_val (pids, pid);
    }
  return pids;
}

static void
test_killed (void)
{
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = pd_test_make_tmp_dir ();
  g_autofree char *db = g_build_filename (dir, "sessions.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) child = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autofree char *said = NULL;
  g_autoptr(GArray) before = NULL;
  g_autoptr(GArray) after = NULL;
  gint64 deadline;

  g_assert_nonnull (self);
  child = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, self, "--hold-serve", db, NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (child));
  said = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (said);
  before = pids_naming (db);
  g_assert_cmpuint (before->len, ==, 1);
  g_assert_cmpint (g_array_index (before, int, 0), ==, atoi (said));

  /* Killed as meson's timeout or the OOM killer does: no tear-down runs. */
  g_subprocess_send_signal (child, SIGKILL);
  g_assert_false (g_subprocess_wait_check (child, NULL, NULL));
  g_assert_true (g_subprocess_get_if_signaled (child));

  deadline = g_get_monotonic_time () + (gint64) pd_test_wait_ms () * 1000;
  do
    {
      g_clear_pointer (&after, g_array_unref);
      g_usleep (20 * 1000);
      after = pids_naming (db);
    }
  while (after->len > 0 && g_get_monotonic_time () < deadline);
  /* Left running: ended here, not by the next reboot. */
  for (guint i = 0; i < after->len; i++)
    kill (g_array_index (after, int, i), SIGKILL);
  g_assert_cmpuint (after->len, ==, 0);

  for (guint i = 0; i < 3; i++)
    {
      g_autofree char *file = g_strconcat (db, (const char *[]) { "", "-wal", "-shm" }[i], NULL);

      g_unlink (file);
    }
  g_rmdir (dir);
}

/* --- a wait that times out ---------------------------------------------- */

static gboolean
never (gpointer data)
{
  return FALSE;
}

static gboolean
spin (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

/* The sources test timed out once with the CI run's CPU 2.5 times its
 * usual, and nothing in its log said what had spun.  A wait that times out
 * now says how often the main loop turned, the CPU it took, and each thread's
 * and child's CPU: here a main loop kept busy by an idle, and a child. */
static void
test_hang_report (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GSubprocess) child = NULL;

      g_setenv ("PD_TEST_WAIT_SCALE", "0.01", TRUE);
      child = pd_test_spawn (G_SUBPROCESS_FLAGS_NONE, &error, "sleep", "60", NULL);
      g_assert_no_error (error);
      g_idle_add (spin, NULL);
      pd_test_wait_until (never, NULL, "nothing that comes");
      return;
    }
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*# waiting for nothing that comes: * s, the main loop turned * times*"
                             "the process took * s of CPU (* % of a core)*"
                             "#   thread * (test-ui-spawned): * s of CPU*"
                             "#   child * (sleep): * s of CPU*"
                             "timed out after 900 ms waiting for nothing that comes*");
}

int
main (int   argc,
      char *argv[])
{
  if (argc == 3 && strcmp (argv[1], "--hold-serve") == 0)
    return hold_serve (argv[2]);

  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pd/ui/spawned/killed-test-leaves-no-serve", test_killed);
  g_test_add_func ("/pd/ui/spawned/hang-report", test_hang_report);
  return g_test_run ();
}
