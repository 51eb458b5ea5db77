/* test-shell-reaper-stop.c: a command that stops its reaper and then kills
 * the engine (tried as an attacker would).  The reaper's SIGTERM on the
 * engine's death waited behind the stop for good, and the job it would
 * have killed ran on under PID 1, with nothing left to end it.  Now the
 * mark of a call names its engine, and the next call of any engine ends
 * the processes of engines that are gone (pd-shell-sweep.c).  Real bash,
 * a real engine (this program run again) and a real SIGKILL.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#define _GNU_SOURCE

#include "pd-test-tools.h"

static void
wait_for_file (Fixture    *f,
               const char *name)
{
  g_autofree char *path = fixture_path (f, name);

  for (guint i = 0; i < 3000 && !g_file_test (path, G_FILE_TEST_EXISTS); i++)
    g_usleep (10 * 1000);
  g_assert_true (g_file_test (path, G_FILE_TEST_EXISTS));
}

/* Alive and not stopped for good: a kill (0) that works on a process that
 * is no zombie. */
static gboolean
alive_now (pid_t pid)
{
  g_autofree char *stat_path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *stat_text = NULL;
  const char *paren;

  return kill (pid, 0) == 0 && g_file_get_contents (stat_path, &stat_text, NULL, NULL) &&
         (paren = strrchr (stat_text, ')')) != NULL && paren[1] == ' ' && paren[2] != 'Z';
}

/* The engine's call stops its reaper and leaves a job that writes
 * late.txt once told to (go), the way a timer would.  While the engine
 * lives, another engine's call leaves all of it alone, and a process
 * whose limit was lowered by hand too; once the engine is killed, the
 * next call ends the stopped reaper and the job: no late file. */
static void
test_reaper_stopped_engine_killed (Fixture       *f,
                                   gconstpointer  data)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE);
  g_autoptr(GSubprocess) engine = NULL;
  g_autoptr(GSubprocess) bystander = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTool) shell = pd_shell_tool_new ();
  g_autoptr(PdToolResult) first = NULL;
  g_autoptr(PdToolResult) second = NULL;
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *go_path = fixture_path (f, "go");
  g_autofree char *late_path = fixture_path (f, "late.txt");
  gboolean job_alive_before, reaper_alive_before, job_gone, reaper_gone, bash_gone, late;
  pid_t job, reaper, bash;

  g_assert_nonnull (self);
  g_subprocess_launcher_setenv (launcher, "PD_TEST_ENGINE_DIR", f->wd, TRUE);
  engine = g_subprocess_launcher_spawn (launcher, &error, self, NULL);
  g_assert_no_error (error);
  /* Not a call's: a limit lowered by hand is no mark of an engine. */
  bystander = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error,
                                "bash", "-c", "ulimit -Hx 100; exec sleep 97", NULL);
  g_assert_no_error (error);

  wait_for_file (f, "ready");
  job = read_pid (f, "j.pid");
  reaper = read_pid (f, "r.pid");
  bash = read_pid (f, "b.pid");

  first = call (shell, f->context, "{\"command\":\"true\"}");
  job_alive_before = alive_now (job);
  reaper_alive_before = alive_now (reaper);

  g_subprocess_send_signal (engine, SIGKILL);
  g_subprocess_wait (engine, NULL, NULL);

  second = call (shell, f->context, "{\"command\":\"true\"}");
  job_gone = process_gone (job);
  reaper_gone = process_gone (reaper);
  bash_gone = process_gone (bash);
  g_assert_true (g_file_set_contents (go_path, "", 0, NULL));
  g_usleep (500 * 1000);
  late = g_file_test (late_path, G_FILE_TEST_EXISTS);

  /* A failing run leaves nothing behind either. */
  if (!job_gone)
    kill (job, SIGKILL);
  /* The reaper leads the group of bash and its sleep. */
  if (!reaper_gone || !bash_gone)
    kill (-reaper, SIGKILL);

  g_assert_true (alive_now (atoi (g_subprocess_get_identifier (bystander))));
  g_subprocess_force_exit (bystander);
  g_subprocess_wait (bystander, NULL, NULL);

  g_assert_cmpstr (first->content, ==, "(no output)\nexit status 0");
  g_assert_cmpstr (second->content, ==, "(no output)\nexit status 0");
  g_assert_true (job_alive_before);
  g_assert_true (reaper_alive_before);
  g_assert_true (job_gone);
  g_assert_true (reaper_gone);
  g_assert_true (bash_gone);
  g_assert_false (late);
}

/* An engine in a PID namespace of its own (a sandbox's): its marks hold
 * its pid as that namespace numbers it, 2 here, which in ours is another
 * process.  Its running call must not be taken for a dead engine's.
 * Skipped where unprivileged namespaces are refused. */
static void
test_engine_in_other_pid_namespace (Fixture       *f,
                                    gconstpointer  data)
{
  /* Not the test's output: what is left holds no pipe of the runner's. */
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE |
                                                                       G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  g_autoptr(GSubprocess) probe = NULL;
  g_autoptr(GSubprocess) engine = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTool) shell = pd_shell_tool_new ();
  g_autoptr(PdToolResult) result = NULL;
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  gboolean job_alive;
  pid_t job;

  probe = g_subprocess_launcher_spawn (launcher, &error, "unshare", "--user", "--map-current-user",
                                       "--pid", "--fork", "true", NULL);
  if (probe == NULL || !g_subprocess_wait_check (probe, NULL, NULL))
    {
      g_test_skip ("no unprivileged PID namespace here");
      return;
    }

  g_subprocess_launcher_setenv (launcher, "PD_TEST_ENGINE_DIR", f->wd, TRUE);
  g_subprocess_launcher_setenv (launcher, "PD_TEST_ENGINE_PLAIN", "1", TRUE);
  /* sh is the namespace's PID 1, the engine its child, 2; killing
   * unshare kills sh (--kill-child), and the namespace with it. */
  engine = g_subprocess_launcher_spawn (launcher, &error, "unshare", "--user", "--map-current-user",
                                        "--pid", "--fork", "--kill-child", "sh", "-c", "\"$0\"; :", self, NULL);
  g_assert_no_error (error);

  wait_for_file (f, "ready");
  job = read_pid (f, "j.pid");
  result = call (shell, f->context, "{\"command\":\"true\"}");
  job_alive = alive_now (job);

  g_subprocess_force_exit (engine);
  g_subprocess_wait (engine, NULL, NULL);
  /* The namespace ended with its PID 1, the job too. */
  g_assert_true (process_gone (job));

  g_assert_cmpstr (result->content, ==, "(no output)\nexit status 0");
  g_assert_true (job_alive);
}

/* The engine of the tests: one call that stops its reaper, then runs until
 * the engine is killed (the job gives up by itself after 30 s); or, with
 * PD_TEST_ENGINE_PLAIN, a call with a job, whose pid as our namespace
 * numbers it is read from /proc/self (the /proc mounted for ours) by the
 * shell that then becomes the job. */
static int
run_engine (const char *dir)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdToolContext) context = pd_tool_context_new (dir, &error);
  g_autoptr(PdTool) shell = pd_shell_tool_new ();
  g_autoptr(PdToolResult) result = NULL;

  g_assert_no_error (error);
  if (g_getenv ("PD_TEST_ENGINE_PLAIN") != NULL)
    {
      result = call (shell, context,
                     "{\"command\":\"bash -c 'read -r p _ < /proc/self/stat; echo $p > j.tmp; mv j.tmp j.pid; "
                     "exec sleep 97' </dev/null >/dev/null 2>&1 & "
                     "while [ ! -s j.pid ]; do sleep 0.01; done; touch ready; sleep 97\","
                     "\"timeout_ms\":120000}");
      return 0;
    }
  result = call (shell, context,
                 "{\"command\":\"set -m; (while [ ! -e go ] && [ $SECONDS -lt 30 ]; do sleep 0.05; done; "
                 "[ -e go ] && echo LATE > late.txt) </dev/null >/dev/null 2>&1 & echo $! > j.pid; "
                 "echo $PPID > r.pid; echo $$ > b.pid; kill -STOP $PPID; touch ready; sleep 97\","
                 "\"timeout_ms\":120000}");

  return 0;
}

int
main (int   argc,
      char *argv[])
{
  if (g_getenv ("PD_TEST_ENGINE_DIR") != NULL)
    return run_engine (g_getenv ("PD_TEST_ENGINE_DIR"));

  pd_test_tools_init (&argc, &argv);

  ADD ("/pd/tools/shell/reaper-stopped/engine-killed", test_reaper_stopped_engine_killed);
  ADD ("/pd/tools/shell/reaper-stopped/other-pid-namespace", test_engine_in_other_pid_namespace);

  return g_test_run ();
}
