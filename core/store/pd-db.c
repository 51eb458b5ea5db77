/* pd-db.c: the SQLite connection wrapper of the store: opening, statements,
 * transactions and errors a person can act on.
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

#include <glib/gstdio.h>

#include "pd-db.h"
#include "pd-db-private.h"
#include "pd-sqlite-guard.h"

#define BUSY_TIMEOUT_MS 5000

G_DEFINE_FINAL_TYPE (PdDb, pd_db, G_TYPE_OBJECT)

G_DEFINE_QUARK (pd-db-error-quark, pd_db_error)

void (*_pd_db_race_hook) (const char *path, PdDbRacePoint point) = NULL;

static void
pd_db_finalize (GObject *object)
{
  PdDb *self = (PdDb *) object;

  g_clear_pointer (&self->stmts, g_hash_table_unref);
  if (self->handle != NULL)
    {
      /* sqlite3_close_v2 defers the close until statements are gone; the
       * cache was finalized just above, so this closes now. */
      sqlite3_close_v2 (self->handle);
      self->handle = NULL;
    }
  g_clear_pointer (&self->path, g_free);
  g_rec_mutex_clear (&self->lock);

  G_OBJECT_CLASS (pd_db_parent_class)->finalize (object);
}

static void
pd_db_class_init (PdDbClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_db_finalize;
}

static void
pd_db_init (PdDb *self)
{
  g_rec_mutex_init (&self->lock);
  self->stmts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                       (GDestroyNotify) sqlite3_finalize);
}

static PdDbError
code_from_sqlite (int rc)
{
  switch (rc & 0xff)
    {
    case SQLITE_NOTADB:     return PD_DB_ERROR_NOT_A_DATABASE;
    case SQLITE_CORRUPT:    return PD_DB_ERROR_CORRUPT;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:     return PD_DB_ERROR_BUSY;
    case SQLITE_CONSTRAINT: return PD_DB_ERROR_CONSTRAINT;
    case SQLITE_NOTFOUND:   return PD_DB_ERROR_NOT_FOUND;
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_NOLFS:
    case SQLITE_PROTOCOL:   return PD_DB_ERROR_IO;
    default:                return PD_DB_ERROR_INVALID;
    }
}

/* Turns an sqlite result code into a GError a person can act on.  Always
 * returns FALSE so callers can `return _pd_db_set_error_from_sqlite (…)`. */
gboolean
_pd_db_set_error_from_sqlite (PdDb        *self,
                             int          rc,
                             const char  *what,
                             GError     **error)
{
  const char *path = self ? self->path : "database";
  const char *detail = (self && self->handle) ? sqlite3_errmsg (self->handle) : sqlite3_errstr (rc);
  PdDbError code = code_from_sqlite (rc);

  switch (code)
    {
    case PD_DB_ERROR_NOT_A_DATABASE:
      g_set_error (error, PD_DB_ERROR, code, "%s is not a Plandeck database (%s)", path, detail);
      break;
    case PD_DB_ERROR_CORRUPT:
      g_set_error (error, PD_DB_ERROR, code,
                   "%s is damaged: %s; restore it from a backup or move it away to start a new one",
                   path, detail);
      break;
    case PD_DB_ERROR_BUSY:
      g_set_error (error, PD_DB_ERROR, code,
                   "%s is locked by another Plandeck process for longer than %d s (%s): %s",
                   path, BUSY_TIMEOUT_MS / 1000, what, detail);
      break;
    case PD_DB_ERROR_IO:
      if ((rc & 0xff) == SQLITE_READONLY)
        g_set_error (error, PD_DB_ERROR, code,
                     "%s is read-only for this process (%s failed: %s); check the permissions of the file "
                     "and of its folder, where SQLite keeps its -wal and -shm files",
                     path, what, detail);
      else
        g_set_error (error, PD_DB_ERROR, code, "%s failed in %s: %s", what, path, detail);
      break;
    default:
      g_set_error (error, PD_DB_ERROR, code, "%s failed in %s: %s", what, path, detail);
      break;
    }

  return FALSE;
}

const char *
pd_db_get_path (PdDb *self)
{
  g_return_val_if_fail (PD_IS_DB (self), NULL);
  return self->path;
}

gboolean
pd_db_is_read_only (PdDb *self)
{
  g_return_val_if_fail (PD_IS_DB (self), TRUE);
  return self->read_only;
}

int
pd_db_get_user_version (PdDb *self)
{
  g_return_val_if_fail (PD_IS_DB (self), -1);
  return self->user_version;
}

sqlite3 *
_pd_db_get_handle (PdDb *self)
{
  g_return_val_if_fail (PD_IS_DB (self), NULL);
  return self->handle;
}

gint64
pd_db_changes (PdDb *self)
{
  g_return_val_if_fail (PD_IS_DB (self), 0);
  return sqlite3_changes (self->handle);
}

gint64
pd_db_last_insert_rowid (PdDb *self)
{
  g_return_val_if_fail (PD_IS_DB (self), 0);
  return sqlite3_last_insert_rowid (self->handle);
}

void
pd_db_lock (PdDb *self)
{
  g_rec_mutex_lock (&self->lock);
}

void
pd_db_unlock (PdDb *self)
{
  g_rec_mutex_unlock (&self->lock);
}

/* A PdDbStmt is an sqlite3_stmt under another name, so that only PdDb's own
 * files see SQLite. */
#define STMT(s) ((sqlite3_stmt *) (s))

void
pd_db_stmt_release (PdDbStmt *stmt)
{
  if (stmt == NULL)
    return;
  sqlite3_reset (STMT (stmt));
  sqlite3_clear_bindings (STMT (stmt));
}

/* A bind fails only for an index the SQL does not have (or out of memory
 * for a copy): a programming error, said as loudly as GLib says those. */
static void
check_bind (PdDbStmt   *stmt,
            int         index,
            int         rc)
{
  if G_UNLIKELY (rc != SQLITE_OK)
    g_critical ("Binding parameter %d of \"%s\": %s", index, sqlite3_sql (STMT (stmt)), sqlite3_errstr (rc));
}

void
pd_db_stmt_bind_text (PdDbStmt   *stmt,
                      int         index,
                      const char *text)
{
  check_bind (stmt, index, sqlite3_bind_text (STMT (stmt), index, text, -1, SQLITE_STATIC));
}

void
pd_db_stmt_bind_text_copy (PdDbStmt   *stmt,
                           int         index,
                           const char *text)
{
  check_bind (stmt, index, sqlite3_bind_text (STMT (stmt), index, text, -1, SQLITE_TRANSIENT));
}

void
pd_db_stmt_bind_int64 (PdDbStmt *stmt,
                       int       index,
                       gint64    value)
{
  check_bind (stmt, index, sqlite3_bind_int64 (STMT (stmt), index, value));
}

void
pd_db_stmt_bind_int (PdDbStmt *stmt,
                     int       index,
                     int       value)
{
  check_bind (stmt, index, sqlite3_bind_int (STMT (stmt), index, value));
}

void
pd_db_stmt_bind_null (PdDbStmt *stmt,
                      int       index)
{
  check_bind (stmt, index, sqlite3_bind_null (STMT (stmt), index));
}

const char *
pd_db_stmt_column_text (PdDbStmt *stmt,
                        int       column)
{
  return (const char *) sqlite3_column_text (STMT (stmt), column);
}

char *
pd_db_stmt_column_dup_text (PdDbStmt *stmt,
                            int       column)
{
  return g_strdup ((const char *) sqlite3_column_text (STMT (stmt), column));
}

gint64
pd_db_stmt_column_int64 (PdDbStmt *stmt,
                         int       column)
{
  return sqlite3_column_int64 (STMT (stmt), column);
}

int
pd_db_stmt_column_int (PdDbStmt *stmt,
                       int       column)
{
  return sqlite3_column_int (STMT (stmt), column);
}

gboolean
pd_db_stmt_column_is_null (PdDbStmt *stmt,
                           int       column)
{
  return sqlite3_column_type (STMT (stmt), column) == SQLITE_NULL;
}

gboolean
pd_db_exec (PdDb        *self,
            const char  *sql,
            GError     **error)
{
  int rc;

  g_return_val_if_fail (PD_IS_DB (self), FALSE);

  pd_db_lock (self);
  rc = sqlite3_exec (self->handle, sql, NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    _pd_db_set_error_from_sqlite (self, rc, "running SQL", error);
  pd_db_unlock (self);

  return rc == SQLITE_OK;
}

/* Returns a cached statement, reset and with cleared bindings.  It stays
 * valid until the PdDb is finalized; use it under pd_db_lock() when the PdDb
 * is shared between threads, and release it (g_autoptr(PdDbStmt)) so it does
 * not pin a read snapshot. */
PdDbStmt *
pd_db_prepare (PdDb        *self,
               const char  *sql,
               GError     **error)
{
  sqlite3_stmt *stmt;
  int rc;

  g_return_val_if_fail (PD_IS_DB (self), NULL);
  g_return_val_if_fail (sql != NULL, NULL);

  pd_db_lock (self);
  stmt = g_hash_table_lookup (self->stmts, sql);
  if (stmt != NULL)
    {
      sqlite3_reset (stmt);
      sqlite3_clear_bindings (stmt);
      pd_db_unlock (self);
      return (PdDbStmt *) stmt;
    }

  rc = sqlite3_prepare_v3 (self->handle, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, NULL);
  if (rc != SQLITE_OK)
    {
      _pd_db_set_error_from_sqlite (self, rc, "preparing a statement", error);
      pd_db_unlock (self);
      return NULL;
    }
  g_hash_table_insert (self->stmts, g_strdup (sql), stmt);
  pd_db_unlock (self);

  return (PdDbStmt *) stmt;
}

G_STATIC_ASSERT (PD_DB_ROW == SQLITE_ROW);
G_STATIC_ASSERT (PD_DB_DONE == SQLITE_DONE);

/* PD_DB_ROW or PD_DB_DONE; anything else has set @error. */
int
pd_db_step (PdDb        *self,
            PdDbStmt    *stmt,
            GError     **error)
{
  int rc = sqlite3_step (STMT (stmt));

  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    _pd_db_set_error_from_sqlite (self, rc, "running a statement", error);

  return rc;
}

/* Steps a statement that returns no rows. */
gboolean
pd_db_step_done (PdDb        *self,
                 PdDbStmt    *stmt,
                 GError     **error)
{
  int rc = pd_db_step (self, stmt, error);

  if (rc == SQLITE_ROW)
    return TRUE;  /* e.g. RETURNING; the caller did not want the row */
  return rc == SQLITE_DONE;
}

gboolean
pd_db_in_transaction (PdDb *self)
{
  return !sqlite3_get_autocommit (self->handle);
}

/**
 * pd_db_check_writable:
 *
 * Whether this connection may write: not when it was opened read-only, nor
 * when the file turned out to be read-only.  A command that will write
 * (a run) asks first, instead of failing at its first save.
 */
gboolean
pd_db_check_writable (PdDb    *self,
                      GError **error)
{
  g_return_val_if_fail (PD_IS_DB (self), FALSE);

  if (self->foreign_owner)
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                   "%s cannot be written: it belongs to another user (uid %u), and Plandeck writes "
                   "only to databases of your own; copy it, or choose another path",
                   self->path, self->owner_uid);
      return FALSE;
    }
  if (self->read_only_file)
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                   "%s cannot be written: the file is read-only; check its permissions", self->path);
      return FALSE;
    }
  if (self->read_only)
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                   "%s is open read-only; it cannot be written", self->path);
      return FALSE;
    }
  return TRUE;
}

/**
 * pd_db_check_creatable:
 * @path: where a new database would be made
 *
 * Whether a new database can be made at @path: its folder exists and this
 * user may write in it, and nothing stands at @path, not even a dangling
 * link.  For offering to make one; pd_db_open() still makes the file
 * exclusively, so what changes after this check is refused there.
 */
gboolean
pd_db_check_creatable (const char  *path,
                       GError     **error)
{
  g_autofree char *folder = NULL;
  GStatBuf st;

  g_return_val_if_fail (path != NULL, FALSE);

  folder = g_path_get_dirname (path);
  if (g_lstat (path, &st) == 0)
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                   S_ISLNK (st.st_mode)
                   ? "%s is a symbolic link; no database is made through a link (it would be made "
                     "where the link points): choose a path that is not a link"
                   : "%s already exists; open it, or choose another path",
                   path);
      return FALSE;
    }
  if (g_stat (folder, &st) != 0 || !S_ISDIR (st.st_mode))
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND,
                   "No database can be made at %s: there is no folder %s; check the path",
                   path, folder);
      return FALSE;
    }
  if (g_access (folder, W_OK | X_OK) != 0)
    {
      int saved = errno;

      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                   "No database can be made at %s: you cannot write in the folder %s (%s); "
                   "choose a folder of your own, or ask its owner for write access",
                   path, folder, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

/* BEGIN IMMEDIATE takes the write lock up front: two writers then wait for
 * each other through the busy timeout.  A deferred BEGIN that later upgrades
 * a read snapshot to a write fails with SQLITE_BUSY at once in WAL mode. */
gboolean
pd_db_begin (PdDb    *self,
             GError **error)
{
  g_autoptr(PdDbStmt) stmt = NULL;
  gboolean ok;

  g_return_val_if_fail (PD_IS_DB (self), FALSE);

  if (!pd_db_check_writable (self, error))
    return FALSE;

  pd_db_lock (self);
  if (!(stmt = pd_db_prepare (self, "BEGIN IMMEDIATE", error)))
    {
      pd_db_unlock (self);
      return FALSE;
    }
  ok = pd_db_step_done (self, stmt, error);
  if (!ok)
    pd_db_unlock (self);
  /* On success the lock stays held until commit or rollback: another thread
   * sharing this connection must not run statements inside our transaction. */
  return ok;
}

gboolean
pd_db_commit (PdDb    *self,
              GError **error)
{
  g_autoptr(PdDbStmt) stmt = NULL;
  gboolean ok;

  g_return_val_if_fail (PD_IS_DB (self), FALSE);

  if (!(stmt = pd_db_prepare (self, "COMMIT", error)))
    {
      pd_db_rollback (self);
      return FALSE;
    }
  ok = pd_db_step_done (self, stmt, error);
  g_clear_pointer (&stmt, pd_db_stmt_release);
  if (!ok)
    {
      /* A failed COMMIT (e.g. busy) leaves the transaction open: end it so the
       * caller's "all or nothing" holds. */
      pd_db_rollback (self);
      return FALSE;
    }
  pd_db_unlock (self);
  return TRUE;
}

void
pd_db_rollback (PdDb *self)
{
  g_return_if_fail (PD_IS_DB (self));

  if (!sqlite3_get_autocommit (self->handle))
    sqlite3_exec (self->handle, "ROLLBACK", NULL, NULL, NULL);
  pd_db_unlock (self);
}

gboolean
_pd_db_query_int (PdDb        *self,
                  const char  *sql,
                  gint64      *value,
                  GError     **error)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  rc = sqlite3_prepare_v2 (self->handle, sql, -1, &stmt, NULL);
  if (rc == SQLITE_OK)
    {
      rc = sqlite3_step (stmt);
      if (rc == SQLITE_ROW)
        {
          *value = sqlite3_column_int64 (stmt, 0);
          rc = SQLITE_OK;
        }
      else if (rc == SQLITE_DONE)
        {
          *value = 0;
          rc = SQLITE_OK;
        }
    }
  if (rc != SQLITE_OK)
    {
      /* sqlite3_errmsg must be read before finalize overwrites it. */
      _pd_db_set_error_from_sqlite (self, rc, "reading the database", error);
      sqlite3_finalize (stmt);
      return FALSE;
    }
  sqlite3_finalize (stmt);
  return TRUE;
}

char *
pd_db_get_journal_mode (PdDb    *self,
                        GError **error)
{
  sqlite3_stmt *stmt = NULL;
  char *mode = NULL;
  int rc;

  pd_db_lock (self);
  rc = sqlite3_prepare_v2 (self->handle, "PRAGMA journal_mode", -1, &stmt, NULL);
  if (rc == SQLITE_OK && (rc = sqlite3_step (stmt)) == SQLITE_ROW)
    mode = g_ascii_strdown ((const char *) sqlite3_column_text (stmt, 0), -1);
  else
    _pd_db_set_error_from_sqlite (self, rc, "reading the journal mode", error);
  sqlite3_finalize (stmt);
  pd_db_unlock (self);

  return mode;
}

static gboolean
set_pragmas (PdDb    *self,
             GError **error)
{
  g_autofree char *mode = NULL;
  int rc;

  rc = sqlite3_exec (self->handle,
                     "PRAGMA foreign_keys = ON;"
                     "PRAGMA synchronous = NORMAL;",
                     NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    return _pd_db_set_error_from_sqlite (self, rc, "configuring the connection", error);

  if (self->read_only)
    return TRUE;

  rc = sqlite3_exec (self->handle, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
  if (rc != SQLITE_OK)
    return _pd_db_set_error_from_sqlite (self, rc, "switching to WAL", error);

  /* journal_mode answers with the mode in force; some file systems (network
   * mounts) silently keep the rollback journal, and then concurrent readers
   * block the writer: better to say so than to stall later. */
  if (!(mode = pd_db_get_journal_mode (self, error)))
    return FALSE;
  if (g_strcmp0 (mode, "wal") != 0)
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                   "%s could not be switched to write-ahead logging (journal mode is \"%s\"); "
                   "put the database on a local file system",
                   self->path, mode);
      return FALSE;
    }

  return TRUE;
}

/* What stands at @path now is the file @claimed (device and inode). */
static gboolean
same_file_at (const char        *path,
              const struct stat *claimed)
{
  struct stat st;

  return g_lstat (path, &st) == 0 && st.st_dev == claimed->st_dev && st.st_ino == claimed->st_ino;
}

/* Makes (or, for an empty file of the user's own already there, takes) the
 * file of a new database and returns a descriptor of it, held while SQLite
 * opens it so its inode cannot be reused; -1 with @error set naming the
 * file and what to do, -2 when a file of the user's own was made there
 * meanwhile (to be opened as it is). */
static int
claim_new_file (const char  *path,
                gboolean     exists,
                struct stat *claimed,
                GError     **error)
{
  g_autofree char *folder = g_path_get_dirname (path);
  int fd;

  if (!exists)
    fd = g_open (path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  else
    fd = g_open (path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);

  if (fd < 0)
    {
      int saved = errno;
      struct stat st;

      /* Another Plandeck of this user made it first (two started at once
       * on a new database): a regular file of the user's own is no one
       * else's doing, and is opened as the file that is there.  -2. */
      if (saved == EEXIST && !exists && g_lstat (path, &st) == 0 && S_ISREG (st.st_mode) &&
          st.st_uid == geteuid ())
        return -2;
      if (saved == EEXIST || saved == ELOOP)
        g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                     "%s appeared (made by another program or user) while Plandeck was about to "
                     "make a database there, so none was made and it was left alone; look at what "
                     "it is, or make the database in a folder only you can write",
                     path);
      else if (exists && (saved == EACCES || saved == EPERM || saved == EROFS))
        g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                     "%s cannot be written: the file is read-only, so no database can be made in it; "
                     "check its permissions (%s)",
                     path, g_strerror (saved));
      else if (saved == EACCES || saved == EPERM || saved == EROFS)
        g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                     "No database can be made at %s: you cannot write in the folder %s (%s); "
                     "choose a folder of your own, or ask its owner for write access",
                     path, folder, g_strerror (saved));
      else
        g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                     "No database can be made at %s: %s; check the folder %s (that it exists "
                     "and has space)",
                     path, g_strerror (saved), folder);
      return -1;
    }

  /* An empty file of the user's own that has become a database since it
   * was checked: another Plandeck of this user is making it.  -2. */
  if (exists && fstat (fd, claimed) == 0 && S_ISREG (claimed->st_mode) &&
      claimed->st_uid == geteuid () && claimed->st_size != 0)
    {
      close (fd);
      return -2;
    }
  /* An empty file with a second name (a hard link another user made in a
   * shared folder) would be one database under both names, readable
   * through the other one (tried as an attacker would). */
  if (exists && fstat (fd, claimed) == 0 && S_ISREG (claimed->st_mode) && claimed->st_nlink > 1)
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                   "%s has another name (a hard link to it), so no database is made in it: anyone "
                   "who can read the other name could read the sessions; remove it or choose another path",
                   path);
      close (fd);
      return -1;
    }
  if (fstat (fd, claimed) != 0 || !S_ISREG (claimed->st_mode) || claimed->st_size != 0 ||
      claimed->st_uid != geteuid ())
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                   "%s is not an empty file of your own (it belongs to uid %u), so no database is "
                   "made in it; choose another path",
                   path, (guint) claimed->st_uid);
      close (fd);
      return -1;
    }

  /* A new database has no journal, log or shared memory; one already
   * beside it was put there by someone else, and SQLite would replay a
   * log into the new file. */
  for (guint i = 0; i < 3; i++)
    {
      static const char * const suffixes[] = { "-journal", "-wal", "-shm" };
      g_autofree char *companion = g_strconcat (path, suffixes[i], NULL);
      struct stat st;

      if (g_lstat (companion, &st) != 0)
        continue;
      /* Beside an empty file of the user's own that was there before: the
       * log of another Plandeck of this user making the database now.
       * SQLite's own files have one name; one with another (a hard link)
       * was put there, and would be written under both names. */
      if (exists && S_ISREG (st.st_mode) && st.st_uid == geteuid () && st.st_nlink == 1)
        {
          close (fd);
          return -2;
        }
      if (S_ISREG (st.st_mode) && st.st_nlink > 1)
        g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                     "No database is made at %s: %s beside it has another name (a hard link to "
                     "it), which SQLite's own files never have: what the database writes there "
                     "could be read through the other name; move it away, or choose another path",
                     path, companion);
      else
        g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                     "No database is made at %s: %s already lies beside it, and a new database has "
                     "none; move it away, or choose another path",
                     path, companion);
      if (!exists && same_file_at (path, claimed))
        g_unlink (path);
      close (fd);
      return -1;
    }

  /* An empty file of the user's own taken for a new database gets a new
   * database's mode: its log and shared memory take theirs from it, and a
   * 0644 or 0666 file left every session readable to others. */
  if (exists && fchmod (fd, 0600) != 0)
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                   "%s cannot be made private to you (%s), so no database is made in it",
                   path, g_strerror (errno));
      close (fd);
      return -1;
    }

  return fd;
}

/* Whether the file SQLite opened as "main" is the one claim_new_file()
 * made, by what SQLite's own open got, not by what the name shows now. */
static gboolean
opened_claimed_file (PdDb              *self,
                     const struct stat *claimed)
{
  struct stat st;

  return pd_sqlite_guard_opened (sqlite3_db_filename (self->handle, "main"), &st) &&
         st.st_dev == claimed->st_dev && st.st_ino == claimed->st_ino &&
         st.st_uid == geteuid ();
}

static PdDb *open_once (const char *path, PdDbFlags flags, gboolean *again, GError **error);

static GMutex creating;

PdDb *
pd_db_open (const char  *path,
            PdDbFlags    flags,
            GError     **error)
{
  gboolean again = FALSE;
  PdDb *db;

  g_return_val_if_fail (path != NULL, NULL);

  /* Two openers of this process making the same new database at once (the
   * demo's run and its window's list) took turns in the middle: the second
   * found the first's empty file, or its log beside it, and refused it as
   * planted.  Creating opens of a process take turns; the second finds a
   * database and opens it. */
  if (flags & PD_DB_CREATE)
    g_mutex_lock (&creating);
  db = open_once (path, flags, &again, error);
  /* Made by another Plandeck of this user between the check and the
   * making: opened as the file it is now, once. */
  if (db == NULL && again)
    db = open_once (path, flags, NULL, error);
  if (flags & PD_DB_CREATE)
    g_mutex_unlock (&creating);
  return db;
}

static PdDb *
open_once (const char  *path,
           PdDbFlags    flags,
           gboolean    *again,
           GError     **error)
{
  g_autoptr(PdDb) self = NULL;
  gboolean exists, empty, fresh;
  gboolean foreign = FALSE;
  guint foreign_uid = 0;
  struct stat claimed;
  int claimed_fd = -1;
  goffset size;
  int open_flags;
  int rc;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (!((flags & PD_DB_READ_ONLY) && (flags & PD_DB_CREATE)), NULL);

  pd_sqlite_guard_install ();
  if (!_pd_db_check_file (path, &exists, &empty, &size, error))
    return NULL;
  {
    g_autoptr(GError) companion_error = NULL;

    if (!pd_sqlite_guard_check_companions (path, &companion_error))
      {
        g_set_error_literal (error, PD_DB_ERROR, PD_DB_ERROR_IO, companion_error->message);
        return NULL;
      }
  }

  if (!exists && !(flags & PD_DB_CREATE))
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND,
                   "%s does not exist", path);
      return NULL;
    }
  /* A zero-length file holds nothing to lose, but it is only made a database
   * when asked to create one: a read-only viewer never writes it. */
  if (empty && !(flags & PD_DB_CREATE))
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_NOT_A_DATABASE,
                   "%s is not a Plandeck database (it is empty)", path);
      return NULL;
    }
  fresh = !exists || empty;
  /* A symbolic link at the path (dangling, or to an empty file) would have
   * SQLite make the database, its log and its shared memory wherever the
   * link points, outside the folder the user chose: a database is never
   * created through a link.  An existing database behind a link opens. */
  if (fresh && (flags & PD_DB_CREATE) && g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                   "%s is a symbolic link; no database is created through a link "
                   "(it would be made where the link points): choose a path that is not a link",
                   path);
      return NULL;
    }

  /* A new database is its owner's alone: it holds transcripts and tool
   * output.  SQLite would make it with the umask's mode (0644 in a folder
   * the user chose, tried as a new user would), and would take whatever
   * stands at the name by the time it opens it: in a shared folder another
   * user can put a file or a link there after the check above (tried as an
   * attacker would).  So the file is made here, exclusively, never through
   * a link, with 0600 (its log and shared memory take that mode from it),
   * and SQLite must open that very file. */
  if (fresh && (flags & PD_DB_CREATE) && !(flags & PD_DB_READ_ONLY) &&
      strcmp (path, ":memory:") != 0 && !g_str_has_prefix (path, "file:"))
    {
      if (_pd_db_race_hook != NULL)
        _pd_db_race_hook (path, PD_DB_RACE_BEFORE_CREATE);
      claimed_fd = claim_new_file (path, exists, &claimed, error);
      if (claimed_fd == -2 && again != NULL)
        {
          *again = TRUE;
          return NULL;
        }
      if (claimed_fd == -2)
        g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                     "%s was made, removed or is still being made by another program while "
                     "Plandeck was making a database there; try again (if it stays so, move the "
                     "empty file and what lies beside it away)",
                     path);
      if (claimed_fd < 0)
        return NULL;
      if (_pd_db_race_hook != NULL)
        _pd_db_race_hook (path, PD_DB_RACE_BEFORE_SQLITE);
    }
  else if (exists && !fresh && strcmp (path, ":memory:") != 0 && !g_str_has_prefix (path, "file:"))
    {
      struct stat link_st, st;

      /* A database of another user is read, never written (its owner
       * would find sessions of someone else in it, and whoever put it in
       * a shared folder would read the ones written); through a link it
       * is not opened at all: the link was put there by someone, the
       * user named the link's place, not that file. */
      if (g_lstat (path, &link_st) == 0 && g_stat (path, &st) == 0 && st.st_uid != geteuid ())
        {
          if (S_ISLNK (link_st.st_mode))
            {
              g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                           "%s is a symbolic link to a database of another user (uid %u); Plandeck "
                           "follows a link only to a database of your own: open the file itself if "
                           "you trust it, or choose another path",
                           path, (guint) st.st_uid);
              return NULL;
            }
          foreign = TRUE;
          foreign_uid = (guint) st.st_uid;
        }
    }

  self = g_object_new (PD_TYPE_DB, NULL);
  self->path = g_strdup (path);
  self->read_only = (flags & PD_DB_READ_ONLY) != 0 || foreign;
  self->read_only_file = foreign;
  self->foreign_owner = foreign;
  self->owner_uid = foreign_uid;

  /* NOMUTEX: the PdDb lock serialises use of the connection. */
  open_flags = SQLITE_OPEN_NOMUTEX;
  if (self->read_only)
    open_flags |= SQLITE_OPEN_READONLY;
  else
    /* A claimed file is there: SQLite opens it, and makes nothing. */
    open_flags |= SQLITE_OPEN_READWRITE | (fresh && claimed_fd < 0 ? SQLITE_OPEN_CREATE : 0);

  if (claimed_fd >= 0)
    pd_sqlite_guard_watch_opens (TRUE);
  rc = sqlite3_open_v2 (path, &self->handle, open_flags, NULL);
  if (claimed_fd >= 0)
    {
      gboolean same = rc == SQLITE_OK && opened_claimed_file (self, &claimed);

      pd_sqlite_guard_watch_opens (FALSE);
      /* SQLite holds no lock yet (it takes them in statements), so closing
       * this descriptor of the file drops none of its. */
      close (claimed_fd);
      if (rc == SQLITE_OK && !same)
        {
          g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                       "%s was replaced by another program or user while Plandeck was making the "
                       "database, so nothing was written to it; make the database in a folder only "
                       "you can write",
                       path);
          return NULL;
        }
    }
  if (rc != SQLITE_OK)
    {
      _pd_db_set_error_from_sqlite (self, rc, "opening the database", error);
      return NULL;
    }
  /* A file this process may not write is opened read-only without a word:
   * say so now, so that reading works and every write is refused clearly. */
  if (!self->read_only && sqlite3_db_readonly (self->handle, "main") == 1)
    {
      self->read_only = TRUE;
      self->read_only_file = TRUE;
      if (fresh)
        {
          g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                       "%s cannot be written: the file is read-only, so no database can be made in it; "
                       "check its permissions", path);
          return NULL;
        }
    }
  sqlite3_extended_result_codes (self->handle, 0);
  /* Harmless on any file, and needed before anything that may wait on a
   * lock held by another process (reading a WAL database mid-checkpoint). */
  sqlite3_busy_timeout (self->handle, BUSY_TIMEOUT_MS);

  if (!_pd_db_check_identity (self, fresh, size, error) ||
      !_pd_db_check_schema (self, error) ||
      !set_pragmas (self, error))
    return NULL;

  if (self->user_version < PD_DB_SCHEMA_VERSION)
    {
      if (self->foreign_owner)
        {
          g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                       "%s has schema version %d, older than this Plandeck (%d), and cannot be upgraded: "
                       "it belongs to another user (uid %u); its owner can open it once to upgrade it",
                       path, self->user_version, PD_DB_SCHEMA_VERSION, self->owner_uid);
          return NULL;
        }
      if (self->read_only_file)
        {
          g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                       "%s has schema version %d, older than this Plandeck (%d), and cannot be upgraded: "
                       "the file is read-only; check its permissions",
                       path, self->user_version, PD_DB_SCHEMA_VERSION);
          return NULL;
        }
      if (self->read_only)
        {
          g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_INVALID,
                       "%s has schema version %d, older than this Plandeck (%d); "
                       "open it once for writing to upgrade it",
                       path, self->user_version, PD_DB_SCHEMA_VERSION);
          return NULL;
        }
      if (!_pd_db_run_migrations (self, error))
        return NULL;
    }

  return g_steal_pointer (&self);
}
