/* pd-run-owner.c: which process runs a session, and whether it still does.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "pd-decimal.h"
#include "pd-run-owner.h"

static char *
read_boot_id (void)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents ("/proc/sys/kernel/random/boot_id", &text, NULL, NULL))
    return NULL;
  g_strstrip (text);
  return text[0] != '\0' && strchr (text, ' ') == NULL ? g_steal_pointer (&text) : NULL;
}

/* "pid:[4026531836]" of /proc/PID/ns/pid, as a number. */
static char *
read_pid_namespace (int pid)
{
  g_autofree char *link = g_strdup_printf ("/proc/%d/ns/pid", pid);
  g_autofree char *target = g_file_read_link (link, NULL);
  const char *open, *close;

  if (target == NULL || !(open = strchr (target, '[')) || !(close = strchr (open, ']')))
    return NULL;
  return g_strndup (open + 1, close - open - 1);
}

/* Field 22 of /proc/PID/stat, the start time in clock ticks since boot.
 * The command name (field 2) may hold spaces and parentheses: the fields
 * are counted after its last ')'. */
static char *
read_start_time (int pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", pid);
  g_autofree char *text = NULL;
  g_auto(GStrv) fields = NULL;
  const char *rest;

  if (!g_file_get_contents (path, &text, NULL, NULL) || !(rest = strrchr (text, ')')))
    return NULL;
  fields = g_strsplit (rest + 1, " ", 0);
  /* fields[0] is the empty string before field 3 (state). */
  if (g_strv_length (fields) < 21)
    return NULL;
  return g_strdup (fields[20]);
}

char *
_pd_run_owner_of (int pid)
{
  g_autofree char *boot = read_boot_id ();
  g_autofree char *ns = read_pid_namespace (pid);
  g_autofree char *start = read_start_time (pid);

  if (boot == NULL || ns == NULL || start == NULL)
    return NULL;
  return g_strdup_printf ("v1 %s %s %d %s", boot, ns, pid, start);
}

const char *
_pd_run_owner_self (void)
{
  static gsize once = 0;
  static char *self = NULL;

  if (g_once_init_enter (&once))
    {
      self = _pd_run_owner_of ((int) getpid ());
      /* No /proc: an owner no one can judge, so never marked. */
      if (self == NULL)
        self = g_strdup ("v1 unknown");
      g_once_init_leave (&once, 1);
    }
  return self;
}

PdRunOwnerState
_pd_run_owner_check (const char *owner)
{
  g_auto(GStrv) parts = NULL;
  g_autofree char *boot = NULL;
  g_autofree char *ns = NULL;
  g_autofree char *start = NULL;
  guint64 pid = 0;

  if (owner == NULL)
    return PD_RUN_OWNER_GONE;
  parts = g_strsplit (owner, " ", 0);
  if (g_strv_length (parts) != 5 || strcmp (parts[0], "v1") != 0
      || !pd_decimal_parse (parts[3], -1, G_MAXINT, &pid) || pid == 0)
    return PD_RUN_OWNER_UNKNOWN;

  if (!(boot = read_boot_id ()) || !(ns = read_pid_namespace ((int) getpid ())))
    return PD_RUN_OWNER_UNKNOWN;
  /* Written before the last boot: every process of then is gone. */
  if (strcmp (parts[1], boot) != 0)
    return PD_RUN_OWNER_GONE;
  /* Another pid namespace (a container sharing the file): its pids mean
   * other processes here. */
  if (strcmp (parts[2], ns) != 0)
    return PD_RUN_OWNER_UNKNOWN;
  if (!(start = read_start_time ((int) pid)))
    return PD_RUN_OWNER_GONE;
  /* The pid is someone else's now. */
  if (strcmp (parts[4], start) != 0)
    return PD_RUN_OWNER_GONE;
  return PD_RUN_OWNER_ALIVE;
}
