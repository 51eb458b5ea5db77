/* pd-sqlite-guard.h: SQLite never waits on, or writes through, a file an
 * attacker put beside a database.
 *
 * SQLite opens a database's companions by name: its rollback journal
 * (DB-journal), write-ahead log (DB-wal) and shared memory (DB-shm).  A
 * FIFO at one of those names blocked the open for ever (a hot-journal
 * check opens DB-journal for reading), and a symbolic link there made a
 * writer write its log into whatever file the link names.  And a check of
 * the database file itself, then SQLite's own open by name, leaves a window
 * in which the file can be swapped for a FIFO.
 *
 * pd_sqlite_guard_install() makes every open SQLite's unix VFS does in this
 * process non-blocking (a FIFO or device then reads as empty or fails, it
 * never waits) and, for the companion files, O_NOFOLLOW.  Every place that
 * opens SQLite calls it first.  pd_sqlite_guard_check_companions() names a
 * companion that is not a regular file, or is another user's, for a clear
 * error before SQLite sees it.  A companion owned by neither this user nor the database's owner
 * fails to open (EACCES).  pd_sqlite_guard_watch_opens() and
 * pd_sqlite_guard_opened() tell what file SQLite really opened, so a new
 * database is known to be the very file Plandeck made.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <sys/stat.h>

#include <glib.h>

G_BEGIN_DECLS

void      pd_sqlite_guard_install           (void);
gboolean  pd_sqlite_guard_check_companions  (const char  *db_path,
                                             GError     **error);
void      pd_sqlite_guard_watch_opens       (gboolean     watch);
gboolean  pd_sqlite_guard_opened            (const char  *path,
                                             struct stat *st);

G_END_DECLS
