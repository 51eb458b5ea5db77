/* pd-run-owner.h: which process runs a session, and whether it still does.
 *
 * A run writes its session as "running" at every turn and as idle or failed
 * at its end; a process killed with SIGKILL never writes the end.  So a
 * running session also names its owner, the process that saves its turns:
 * "v1 BOOT_ID PID_NAMESPACE PID START_TIME" (the kernel's boot id, the pid
 * namespace inode, the pid, and the pid's start time in clock ticks since
 * boot, which tells a reused pid from the owner).  The store asks whether
 * the owner is alive whenever it reads a running session; a gone owner makes
 * the session "interrupted".  When the answer cannot be known (another pid
 * namespace: a container sharing the file; no /proc) the session is left
 * running: a live run is never marked.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  PD_RUN_OWNER_ALIVE,
  PD_RUN_OWNER_GONE,
  PD_RUN_OWNER_UNKNOWN,
} PdRunOwnerState;

/* This process, as a run owner (computed once). */
const char      *_pd_run_owner_self  (void);
/* The owner string of process @pid of this boot and pid namespace, or
 * NULL when /proc does not say (for tests). */
char            *_pd_run_owner_of    (int         pid);
/* NULL (a row written before owners were kept) counts as gone. */
PdRunOwnerState  _pd_run_owner_check (const char *owner);

G_END_DECLS
