/* pd-db.c: the SQLite connection wrapper of the store: opening, statements,
 * transactions and errors a person can act on.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "pd-db.h"
#include "pd-db-private.h"
#include "pd-sqlite-guard.h"

#define BUSY_TIMEOUT_MS 5000

G_DEFINE_FINAL_TYPE (PdDb, pd_db, G_TYPE_OBJECT)

G_DEFINE_QUARK (pd-db-error-quark, pd_db_error)

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

PdDb *
pd_db_open (const char  *path,
            PdDbFlags    flags,
            GError     **error)
{
  g_autoptr(PdDb) self = NULL;
  gboolean exists, empty, fresh;
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
   * the user chose, tried as a new user would); made here empty with 0600,
   * its log and shared memory take the same mode from it. */
  if (!exists && (flags & PD_DB_CREATE) && !(flags & PD_DB_READ_ONLY) &&
      strcmp (path, ":memory:") != 0 && !g_str_has_prefix (path, "file:"))
    {
      int fd = g_open (path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

      if (fd < 0 && errno != EEXIST)
        {
          int saved = errno;

          g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO, "%s cannot be made: %s",
                       path, g_strerror (saved));
          return NULL;
        }
      if (fd >= 0)
        close (fd);
    }

  self = g_object_new (PD_TYPE_DB, NULL);
  self->path = g_strdup (path);
  self->read_only = (flags & PD_DB_READ_ONLY) != 0;

  /* NOMUTEX: the PdDb lock serialises use of the connection. */
  open_flags = SQLITE_OPEN_NOMUTEX;
  if (self->read_only)
    open_flags |= SQLITE_OPEN_READONLY;
  else
    open_flags |= SQLITE_OPEN_READWRITE | (fresh ? SQLITE_OPEN_CREATE : 0);

  rc = sqlite3_open_v2 (path, &self->handle, open_flags, NULL);
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
