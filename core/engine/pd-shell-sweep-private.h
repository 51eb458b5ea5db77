/* pd-shell-sweep-private.h: the engine's side of ending every process of
 * a shell call, for pd-shell-tool.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <sys/types.h>

#include <glib.h>

G_BEGIN_DECLS

/* Before a call spawns its reaper: the mark its processes carry (the hard
 * limit of RLIMIT_LOCKS, to set in the reaper), 0 when none can be given.
 * Holds the sweep's lock until _pd_shell_sweep_spawned(). */
guint64 _pd_shell_sweep_begin   (void);
/* After the spawn: the reaper's pid, or 0 when it failed. */
void    _pd_shell_sweep_spawned (guint64 mark,
                                 pid_t   reaper);
/* Once the reaper is reaped and the call's processes are to end: kills
 * and reaps every orphan of the engine that carries a mark of no running
 * call, until none is left. */
void    _pd_shell_sweep_end     (guint64 mark,
                                 pid_t   reaper);

G_END_DECLS
