/* pd-db.h: the SQLite connection wrapper of the store.
 *
 * One PdDb is one sqlite3 connection.  Every call returns GErrors in the
 * PD_DB_ERROR domain; every call blocks, so callers run them off the main
 * thread.  A PdDb may be shared between threads (it has its own recursive
 * mutex), but one connection per thread or process is the recommended shape:
 * WAL lets readers run beside a writer, and BEGIN IMMEDIATE plus the busy
 * timeout makes writers of different connections wait for each other instead
 * of failing.
 *
 * Opening never modifies a file that is not a Plandeck database: the header is
 * checked with plain file reads, the schema and ids are read, and only then are
 * pragmas that write (journal_mode) set and migrations run.
 *
 * Statements are bound and read through the typed pd_db_stmt_* calls, so no
 * file outside PdDb's own sees SQLite itself (sqlite3.h stays in pd-db*.c and
 * the store's private headers).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define PD_DB_ERROR (pd_db_error_quark ())

typedef enum
{
  PD_DB_ERROR_NOT_A_DATABASE,  /* not SQLite, or SQLite of another application */
  PD_DB_ERROR_CORRUPT,         /* a Plandeck database that is damaged */
  PD_DB_ERROR_NEWER_SCHEMA,    /* written by a newer Plandeck */
  PD_DB_ERROR_BUSY,            /* another writer held the lock past the busy timeout */
  PD_DB_ERROR_IO,              /* disk, permission, read-only file system */
  PD_DB_ERROR_NOT_FOUND,       /* no such file, session, row */
  PD_DB_ERROR_INVALID,         /* bad argument or SQL; a programming error mostly */
  PD_DB_ERROR_CONSTRAINT,      /* a row broke a schema constraint */
} PdDbError;

typedef enum
{
  PD_DB_NONE      = 0,
  PD_DB_READ_ONLY = 1 << 0,  /* never writes, never migrates */
  PD_DB_CREATE    = 1 << 1,  /* create the file (or initialise a zero-length one) */
} PdDbFlags;

/* The schema this build writes.  Files with a higher user_version are refused. */
#define PD_DB_SCHEMA_VERSION 8
/* "PDK1": marks the file as Plandeck's, so another application's SQLite
 * database with tables in it is never migrated into ours. */
#define PD_DB_APPLICATION_ID 0x50444b31

/* A borrowed statement from the cache; the cleanup resets it (ends its read
 * snapshot) and clears its bindings, it never finalizes it. */
typedef struct _PdDbStmt PdDbStmt;

/* What pd_db_step() returns besides an error: a row to read, or the end. */
#define PD_DB_ROW  100
#define PD_DB_DONE 101

#define PD_TYPE_DB (pd_db_get_type ())
G_DECLARE_FINAL_TYPE (PdDb, pd_db, PD, DB, GObject)

GQuark        pd_db_error_quark     (void);

PdDb         *pd_db_open            (const char  *path,
                                     PdDbFlags    flags,
                                     GError     **error);
const char   *pd_db_get_path        (PdDb        *self);
gboolean      pd_db_is_read_only    (PdDb        *self);
gboolean      pd_db_check_writable  (PdDb        *self,
                                     GError     **error);
gboolean      pd_db_check_creatable (const char  *path,
                                     GError     **error);
int           pd_db_get_user_version (PdDb       *self);
char         *pd_db_get_journal_mode (PdDb       *self,
                                      GError    **error);

/* The lock guards the connection and its statement cache.  Every pd_db_*
 * call takes it; hold it yourself around a sequence that must not interleave
 * with another thread's use of the same PdDb (it is recursive). */
void          pd_db_lock            (PdDb        *self);
void          pd_db_unlock          (PdDb        *self);

gboolean      pd_db_exec            (PdDb        *self,
                                     const char  *sql,
                                     GError     **error);
PdDbStmt     *pd_db_prepare         (PdDb        *self,
                                     const char  *sql,
                                     GError     **error);
gboolean      pd_db_step_done       (PdDb        *self,
                                     PdDbStmt    *stmt,
                                     GError     **error);
int           pd_db_step            (PdDb        *self,
                                     PdDbStmt    *stmt,
                                     GError     **error);
void          pd_db_stmt_release    (PdDbStmt    *stmt);

gboolean      pd_db_begin           (PdDb        *self,
                                     GError     **error);
gboolean      pd_db_commit          (PdDb        *self,
                                     GError     **error);
void          pd_db_rollback        (PdDb        *self);
gboolean      pd_db_in_transaction  (PdDb        *self);

/* Of the last INSERT, UPDATE or DELETE of this connection (hold the lock
 * across the statement and the call). */
gint64        pd_db_changes         (PdDb        *self);
gint64        pd_db_last_insert_rowid (PdDb      *self);

/* Binding: @index is 1-based, as ?1 in the SQL.  bind_text keeps a pointer
 * to @text, which must outlive the statement's steps (until it is
 * released); bind_text_copy copies it.  A NULL text binds NULL. */
void          pd_db_stmt_bind_text      (PdDbStmt    *stmt,
                                         int          index,
                                         const char  *text);
void          pd_db_stmt_bind_text_copy (PdDbStmt    *stmt,
                                         int          index,
                                         const char  *text);
void          pd_db_stmt_bind_int64     (PdDbStmt    *stmt,
                                         int          index,
                                         gint64       value);
void          pd_db_stmt_bind_int       (PdDbStmt    *stmt,
                                         int          index,
                                         int          value);
void          pd_db_stmt_bind_null      (PdDbStmt    *stmt,
                                         int          index);

/* Reading the current row: @column is 0-based.  column_text is NULL for
 * NULL and stays valid until the next step or release of @stmt;
 * column_dup_text copies it. */
const char   *pd_db_stmt_column_text     (PdDbStmt   *stmt,
                                          int         column);
char         *pd_db_stmt_column_dup_text (PdDbStmt   *stmt,
                                          int         column);
gint64        pd_db_stmt_column_int64    (PdDbStmt   *stmt,
                                          int         column);
int           pd_db_stmt_column_int      (PdDbStmt   *stmt,
                                          int         column);
gboolean      pd_db_stmt_column_is_null  (PdDbStmt   *stmt,
                                          int         column);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdDbStmt, pd_db_stmt_release)

/* g_autoptr(PdDbLocker) locker = pd_db_locker_new (db): holds the PdDb lock
 * to the end of the scope.  Declare it before any PdDbStmt of that scope so
 * the statements are released while the lock is still held. */
typedef PdDb PdDbLocker;

static inline PdDbLocker *
pd_db_locker_new (PdDb *db)
{
  pd_db_lock (db);
  return (PdDbLocker *) db;
}

static inline void
pd_db_locker_free (PdDbLocker *locker)
{
  pd_db_unlock ((PdDb *) locker);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdDbLocker, pd_db_locker_free)

G_END_DECLS
