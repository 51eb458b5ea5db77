/* pd-test-hang.c: what a ui test's wait that timed out says of itself
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A wait of the sources test timed out once in four CI runs with the run's
 * CPU at 594 s against 233 s: something spun, and the log could not say
 * what, nor whether it was the test's main loop, one of its threads (the
 * event streams', libsoup's) or a serve it had started.  Before the wait
 * fails it prints (TAP comments, on stderr) how often the main loop turned
 * and the CPU the wait took, and each thread's and each child process's
 * CPU since it began.
 */
#define G_LOG_DOMAIN "pd-test-ui"

#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "pd-test-hang.h"

static gint64
process_cpu_us (void)
{
  struct rusage usage;

  if (getrusage (RUSAGE_SELF, &usage) != 0)
    return 0;
  return (gint64) (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * G_USEC_PER_SEC +
         usage.ru_utime.tv_usec + usage.ru_stime.tv_usec;
}

void
pd_test_hang_watch_start (PdTestHangWatch *watch)
{
  watch->started = g_get_monotonic_time ();
  watch->cpu_us = process_cpu_us ();
  watch->iterations = 0;
}

/* A /proc stat file's name (comm), parent and CPU seconds; FALSE when it
 * cannot be read (gone meanwhile). */
static gboolean
read_stat (const char  *path,
           char       **comm,
           int         *ppid,
           double      *cpu_s)
{
  g_autofree char *text = NULL;
  const char *open_paren;
  const char *close_paren;
  g_auto(GStrv) fields = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL) ||
      (open_paren = strchr (text, '(')) == NULL || (close_paren = strrchr (text, ')')) == NULL)
    return FALSE;
  /* After the name: state, ppid, …, utime (the 12th), stime (the 13th). */
  fields = g_strsplit (close_paren + 2, " ", 14);
  if (g_strv_length (fields) < 14)
    return FALSE;
  *comm = g_strndup (open_paren + 1, close_paren - open_paren - 1);
  *ppid = atoi (fields[1]);
  *cpu_s = (g_ascii_strtod (fields[11], NULL) + g_ascii_strtod (fields[12], NULL)) / (double) sysconf (_SC_CLK_TCK);
  return TRUE;
}

/**
 * pd_test_hang_report:
 * @watch: started as the wait began
 * @what: what the wait waited for
 *
 * Prints what the process and its children did while @watch ran.
 */
void
pd_test_hang_report (const PdTestHangWatch *watch,
                     const char            *what)
{
  double wall_s = (g_get_monotonic_time () - watch->started) / (double) G_USEC_PER_SEC;
  double cpu_s = (process_cpu_us () - watch->cpu_us) / (double) G_USEC_PER_SEC;
  g_autoptr(GDir) tasks = g_dir_open ("/proc/self/task", 0, NULL);
  g_autoptr(GDir) procs = g_dir_open ("/proc", 0, NULL);
  const char *name;

  g_printerr ("# waiting for %s: %.1f s, the main loop turned %u times (%.0f a second), "
              "the process took %.1f s of CPU (%.0f %% of a core)\n",
              what, wall_s, watch->iterations, watch->iterations / MAX (wall_s, 0.001), cpu_s,
              100.0 * cpu_s / MAX (wall_s, 0.001));
  while (tasks != NULL && (name = g_dir_read_name (tasks)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc/self/task", name, "stat", NULL);
      g_autofree char *comm = NULL;
      int ppid;
      double thread_cpu_s;

      if (read_stat (path, &comm, &ppid, &thread_cpu_s))
        g_printerr ("#   thread %s (%s): %.1f s of CPU since it began\n", name, comm, thread_cpu_s);
    }
  while (procs != NULL && (name = g_dir_read_name (procs)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autofree char *comm = NULL;
      int ppid = 0;
      double child_cpu_s;

      if (!g_ascii_isdigit (name[0]))
        continue;
      path = g_build_filename ("/proc", name, "stat", NULL);
      if (read_stat (path, &comm, &ppid, &child_cpu_s) && ppid == getpid ())
        g_printerr ("#   child %s (%s): %.1f s of CPU since it began\n", name, comm, child_cpu_s);
    }
}
