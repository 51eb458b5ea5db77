/* pd-sqlite-guard.c: SQLite never waits on, or writes through, a file an
 * attacker put beside a database (see pd-sqlite-guard.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <sqlite3.h>

#include "pd-sqlite-guard.h"

static const char * const companions[] = { "-journal", "-wal", "-shm" };

static gboolean
is_companion (const char *path)
{
  for (guint i = 0; i < G_N_ELEMENTS (companions); i++)
    if (g_str_has_suffix (path, companions[i]))
      return TRUE;
  return FALSE;
}

/* What this thread's SQLite opened while pd_sqlite_guard_watch_opens()
 * was on: path → struct stat of the descriptor it got. */
static GPrivate watched_opens = G_PRIVATE_INIT ((GDestroyNotify) g_hash_table_unref);

/* A companion belongs to this user or to the database's owner; one of
 * another owner was put there by someone else (a -wal made ready for a new
 * database in a shared folder would be replayed into it).  Fails with
 * EACCES. */
static gboolean
companion_owner_ok (const char *path,
                    int         fd)
{
  g_autofree char *db_path = NULL;
  struct stat st, db_st;

  if (fstat (fd, &st) != 0 || st.st_uid == geteuid ())
    return TRUE;
  db_path = g_strndup (path, strlen (path) - strlen (strrchr (path, '-')));
  return stat (db_path, &db_st) == 0 && db_st.st_uid == st.st_uid;
}

/* SQLite's unix VFS calls this for every file it opens (the database, its
 * companions, the folder it syncs, /dev/urandom).  O_NONBLOCK changes
 * nothing for a regular file or a folder; a FIFO opened with it does not
 * wait for a writer, and reads as empty.  A companion is never a link, and
 * never another user's. */
static int
guarded_open (const char *path,
              int         flags,
              int         mode)
{
  gboolean companion = is_companion (path);
  GHashTable *watched;
  int fd;

  flags |= O_NONBLOCK | O_NOCTTY;
  if (companion)
    flags |= O_NOFOLLOW;
  fd = open (path, flags, mode);
  if (fd < 0)
    return fd;
  if (companion && !companion_owner_ok (path, fd))
    {
      close (fd);
      errno = EACCES;
      return -1;
    }
  if (!companion && (watched = g_private_get (&watched_opens)) != NULL)
    {
      struct stat *st = g_new0 (struct stat, 1);

      if (fstat (fd, st) == 0)
        g_hash_table_replace (watched, g_strdup (path), st);
      else
        g_free (st);
    }
  return fd;
}

/**
 * pd_sqlite_guard_watch_opens:
 * @watch: start (forgetting what was seen) or stop watching
 *
 * While on, what SQLite opens on this thread is remembered by the name it
 * opened it by, for pd_sqlite_guard_opened().
 */
void
pd_sqlite_guard_watch_opens (gboolean watch)
{
  g_private_replace (&watched_opens,
                     watch ? g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free) : NULL);
}

/**
 * pd_sqlite_guard_opened:
 * @path: the name SQLite opened a file by (sqlite3_db_filename())
 * @st: (out): what the descriptor SQLite got was
 *
 * Whether SQLite opened @path on this thread since
 * pd_sqlite_guard_watch_opens() was turned on; @st is the file it got,
 * not what the name points at now.
 */
gboolean
pd_sqlite_guard_opened (const char  *path,
                        struct stat *st)
{
  GHashTable *watched = g_private_get (&watched_opens);
  struct stat *seen = watched != NULL && path != NULL ? g_hash_table_lookup (watched, path) : NULL;

  if (seen == NULL)
    return FALSE;
  *st = *seen;
  return TRUE;
}

static gpointer
install_once (gpointer data)
{
  sqlite3_vfs *vfs;

  /* Every unix VFS variant shares one table of system calls; setting it
   * through the default one sets it for all.  Done before this process's
   * first connection (every opener calls in first), as SQLite asks. */
  sqlite3_initialize ();
  vfs = sqlite3_vfs_find (NULL);
  if (vfs == NULL || vfs->iVersion < 3 || vfs->xSetSystemCall == NULL ||
      vfs->xSetSystemCall (vfs, "open", (sqlite3_syscall_ptr) guarded_open) != SQLITE_OK)
    g_warning ("SQLite's file opens could not be guarded: a FIFO beside a database may block");
  return NULL;
}

void
pd_sqlite_guard_install (void)
{
  static GOnce once = G_ONCE_INIT;

  g_once (&once, install_once, NULL);
}

static const char *
kind_of (mode_t mode)
{
  if (S_ISLNK (mode))
    return "a symbolic link";
  if (S_ISFIFO (mode))
    return "a FIFO";
  if (S_ISDIR (mode))
    return "a folder";
  if (S_ISSOCK (mode))
    return "a socket";
  if (S_ISCHR (mode) || S_ISBLK (mode))
    return "a device";
  return "not a regular file";
}

/**
 * pd_sqlite_guard_check_companions:
 *
 * Whether each of @db_path's journal, log and shared-memory files is
 * missing, or a regular file of this user or of the database's owner; the
 * error names the one that is not, and says what to do.  The
 * guarded opens hold even when one is swapped in after this check; this is
 * for the message.
 */
gboolean
pd_sqlite_guard_check_companions (const char  *db_path,
                                  GError     **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (companions); i++)
    {
      g_autofree char *path = g_strconcat (db_path, companions[i], NULL);
      struct stat st, db_st;

      if (g_lstat (path, &st) != 0)
        continue;
      if (!S_ISREG (st.st_mode))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                       "%s cannot be opened: %s beside it is %s, not SQLite's own file; move it away",
                       db_path, path, kind_of (st.st_mode));
          return FALSE;
        }
      /* The rule of companion_owner_ok(), said before SQLite meets it
       * (its own error was "unable to open database file"). */
      if (st.st_uid != geteuid () && (g_stat (db_path, &db_st) != 0 || db_st.st_uid != st.st_uid))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                       "%s cannot be opened: %s beside it belongs to another user (uid %u), not to "
                       "you or to the database's owner, so it is not taken as part of the "
                       "database; if you did not put it there, move it away (or ask that user "
                       "why it is there), then open the database again",
                       db_path, path, (guint) st.st_uid);
          return FALSE;
        }
    }
  return TRUE;
}
