/* pd-db.c: the SQLite connection wrapper of the store. */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "pd-db.h"
#include "pd-db-private.h"
#include "pd-sqlite-guard.h"

/* Statements of a corrupt database can take very long; quick_check reads every
 * page, so it runs on open only while the file is small enough for that to
 * stay well under a frame of a worker thread's time budget. */
#define QUICK_CHECK_MAX_BYTES (4 * 1024 * 1024)
#define BUSY_TIMEOUT_MS 5000

struct _PdDb
{
  GObject     parent_instance;

  GRecMutex   lock;
  sqlite3    *handle;
  char       *path;
  GHashTable *stmts;        /* sql → sqlite3_stmt* (finalized on dispose) */
  int         user_version;
  guint       read_only : 1;
  /* Asked for writing, but the file (or its folder) cannot be written:
   * SQLite then opens it read-only without saying so. */
  guint       read_only_file : 1;
};

G_DEFINE_FINAL_TYPE (PdDb, pd_db, G_TYPE_OBJECT)

G_DEFINE_QUARK (pd-db-error-quark, pd_db_error)

/* The migrations, in order.  Step N takes user_version N-1 to N and runs in
 * its own transaction together with the user_version bump, so a crash leaves
 * the file at a version it really has.  Never edit a released step: add one. */
static const char * const migrations[] = {
  /* v1: sessions, transcripts, events. */
  "PRAGMA application_id = 1346652977;\n" /* PD_DB_APPLICATION_ID */
  "CREATE TABLE sessions (\n"
  "  pk            INTEGER PRIMARY KEY,\n"
  "  id            TEXT NOT NULL UNIQUE,\n"
  "  task          TEXT NOT NULL DEFAULT '',\n"
  "  name          TEXT,\n"
  "  model         TEXT NOT NULL DEFAULT '',\n"
  "  provider      TEXT NOT NULL DEFAULT '',\n"
  "  source        TEXT NOT NULL DEFAULT 'plandeck',\n"
  "  cwd           TEXT NOT NULL DEFAULT '',\n"
  "  status        TEXT NOT NULL DEFAULT 'idle' CHECK (status IN ('running','idle','failed')),\n"
  "  created_at    INTEGER NOT NULL,\n"
  "  updated_at    INTEGER NOT NULL,\n"
  "  turns         INTEGER NOT NULL DEFAULT 0,\n"
  "  input_tokens  INTEGER NOT NULL DEFAULT 0,\n"
  "  output_tokens INTEGER NOT NULL DEFAULT 0,\n"
  "  pinned        INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0,1)),\n"
  "  auth_token    TEXT NOT NULL,\n"
  "  n_messages    INTEGER NOT NULL DEFAULT 0\n"
  ");\n"
  "CREATE INDEX sessions_by_order ON sessions (pinned DESC, updated_at DESC, id);\n"
  /* A message's rowid is (session pk << 24) | seq: the transcript of a session
   * is one contiguous rowid range (ordered, cheap to load and to cut), and the
   * full-text index yields the session without a join. */
  "CREATE TABLE messages (\n"
  "  id           INTEGER PRIMARY KEY,\n"
  "  role         TEXT NOT NULL CHECK (role IN ('system','developer','user','assistant','tool')),\n"
  "  content      TEXT,\n"
  "  content_json INTEGER NOT NULL DEFAULT 0,\n"  /* 1: content is JSON text (an array of parts) */
  "  name         TEXT,\n"
  "  tool_call_id TEXT,\n"
  "  tool_calls   TEXT,\n"                        /* JSON array text, or NULL */
  "  extra        TEXT\n"                         /* JSON object of any other members, or NULL */
  ");\n"
  "CREATE TABLE events (\n"
  "  seq        INTEGER PRIMARY KEY AUTOINCREMENT,\n"
  "  session_id TEXT REFERENCES sessions (id) ON DELETE CASCADE,\n"
  "  run_id     TEXT,\n"
  "  type       TEXT NOT NULL,\n"
  "  timestamp  INTEGER NOT NULL,\n"
  "  event_json TEXT NOT NULL\n"
  ");\n"
  "CREATE INDEX events_by_session ON events (session_id, seq);\n"
  "CREATE INDEX events_by_type ON events (type, seq);\n"
  /* Messages hang off the rowid range, not a foreign key, so they cascade here. */
  "CREATE TRIGGER sessions_delete_messages AFTER DELETE ON sessions BEGIN\n"
  "  DELETE FROM messages WHERE id BETWEEN (old.pk << 24) AND (old.pk << 24) + 16777215;\n"
  "END;\n",

  /* v2: plan history, annotations, the plan pill, full-text search. */
  "ALTER TABLE sessions ADD COLUMN plan_version INTEGER NOT NULL DEFAULT 0;\n"
  "ALTER TABLE sessions ADD COLUMN plan_done INTEGER NOT NULL DEFAULT 0;\n"
  "ALTER TABLE sessions ADD COLUMN plan_total INTEGER NOT NULL DEFAULT 0;\n"
  "ALTER TABLE sessions ADD COLUMN plan_blocked INTEGER NOT NULL DEFAULT 0;\n"
  "CREATE TABLE plan_versions (\n"
  "  id         INTEGER PRIMARY KEY,\n"
  "  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,\n"
  "  version    INTEGER NOT NULL,\n"
  "  created_at INTEGER NOT NULL,\n"
  "  state_json TEXT NOT NULL,\n"
  "  done       INTEGER NOT NULL,\n"
  "  total      INTEGER NOT NULL,\n"
  "  blocked    INTEGER NOT NULL\n"
  ");\n"
  "CREATE INDEX plan_versions_by_session ON plan_versions (session_id, id);\n"
  "CREATE TABLE annotations (\n"
  "  session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,\n"
  "  key        TEXT NOT NULL,\n"
  "  value_json TEXT NOT NULL,\n"
  "  updated_at INTEGER NOT NULL,\n"
  "  PRIMARY KEY (session_id, key)\n"
  ") WITHOUT ROWID;\n"
  "CREATE VIRTUAL TABLE sessions_fts USING fts5 (task, content='sessions', content_rowid='pk',\n"
  "  tokenize='unicode61 remove_diacritics 2');\n"
  "CREATE VIRTUAL TABLE messages_fts USING fts5 (content, content='messages', content_rowid='id',\n"
  "  tokenize='unicode61 remove_diacritics 2');\n"
  "CREATE TRIGGER sessions_fts_ai AFTER INSERT ON sessions BEGIN\n"
  "  INSERT INTO sessions_fts (rowid, task) VALUES (new.pk, new.task);\n"
  "END;\n"
  "CREATE TRIGGER sessions_fts_ad AFTER DELETE ON sessions BEGIN\n"
  "  INSERT INTO sessions_fts (sessions_fts, rowid, task) VALUES ('delete', old.pk, old.task);\n"
  "END;\n"
  "CREATE TRIGGER sessions_fts_au AFTER UPDATE OF task ON sessions BEGIN\n"
  "  INSERT INTO sessions_fts (sessions_fts, rowid, task) VALUES ('delete', old.pk, old.task);\n"
  "  INSERT INTO sessions_fts (rowid, task) VALUES (new.pk, new.task);\n"
  "END;\n"
  "CREATE TRIGGER messages_fts_ai AFTER INSERT ON messages BEGIN\n"
  "  INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);\n"
  "END;\n"
  "CREATE TRIGGER messages_fts_ad AFTER DELETE ON messages BEGIN\n"
  "  INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);\n"
  "END;\n"
  "CREATE TRIGGER messages_fts_au AFTER UPDATE OF content ON messages BEGIN\n"
  "  INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.id, old.content);\n"
  "  INSERT INTO messages_fts (rowid, content) VALUES (new.id, new.content);\n"
  "END;\n"
  /* Index what v1 already holds. */
  "INSERT INTO sessions_fts (sessions_fts) VALUES ('rebuild');\n"
  "INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');\n",

  /* v3: other agents' transcripts in the index.  One row per imported
   * session: the file it was read from (an OpenCode database or storage tree
   * holds many sessions: agent_id tells them apart), what the file was like
   * when it was read (size, mtime, and a signature of the files read with it:
   * subagent transcripts, a WAL), and how far the reader got.  Only metadata
   * and counts: the agent's plan text is never stored (seed 001). */
  "CREATE TABLE imports (\n"
  "  session_pk      INTEGER PRIMARY KEY REFERENCES sessions (pk) ON DELETE CASCADE,\n"
  "  path            TEXT NOT NULL,\n"
  "  agent_id        TEXT NOT NULL DEFAULT '',\n"
  "  format          TEXT NOT NULL CHECK (format IN ('claude','codex','opencode-db','opencode-storage')),\n"
  "  size            INTEGER NOT NULL,\n"
  "  mtime           INTEGER NOT NULL,\n"
  "  deps            TEXT NOT NULL DEFAULT '',\n"
  "  read_offset     INTEGER NOT NULL DEFAULT 0,\n"
  "  lines           INTEGER NOT NULL DEFAULT 0,\n"
  "  skipped_lines   INTEGER NOT NULL DEFAULT 0,\n"
  "  applied_updates INTEGER NOT NULL DEFAULT 0,\n"
  "  ignored_updates INTEGER NOT NULL DEFAULT 0,\n"
  "  indexed_at      INTEGER NOT NULL,\n"
  "  UNIQUE (path, agent_id)\n"
  ");\n",

  /* v4: a run killed with SIGKILL left its session "running" for ever.  A
   * running session now names its run's owner (run_owner: the process, see
   * pd-run-owner.h), and one whose owner is gone is "interrupted".  SQLite
   * cannot change a CHECK constraint in place: the table is rebuilt (with
   * foreign keys off, see run_migrations(); same pk values, so messages,
   * the full-text index and the tables that point here stay as they are). */
  "CREATE TABLE sessions_v4 (\n"
  "  pk            INTEGER PRIMARY KEY,\n"
  "  id            TEXT NOT NULL UNIQUE,\n"
  "  task          TEXT NOT NULL DEFAULT '',\n"
  "  name          TEXT,\n"
  "  model         TEXT NOT NULL DEFAULT '',\n"
  "  provider      TEXT NOT NULL DEFAULT '',\n"
  "  source        TEXT NOT NULL DEFAULT 'plandeck',\n"
  "  cwd           TEXT NOT NULL DEFAULT '',\n"
  "  status        TEXT NOT NULL DEFAULT 'idle' CHECK (status IN ('running','idle','failed','interrupted')),\n"
  "  created_at    INTEGER NOT NULL,\n"
  "  updated_at    INTEGER NOT NULL,\n"
  "  turns         INTEGER NOT NULL DEFAULT 0,\n"
  "  input_tokens  INTEGER NOT NULL DEFAULT 0,\n"
  "  output_tokens INTEGER NOT NULL DEFAULT 0,\n"
  "  pinned        INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0,1)),\n"
  "  auth_token    TEXT NOT NULL,\n"
  "  n_messages    INTEGER NOT NULL DEFAULT 0,\n"
  "  plan_version  INTEGER NOT NULL DEFAULT 0,\n"
  "  plan_done     INTEGER NOT NULL DEFAULT 0,\n"
  "  plan_total    INTEGER NOT NULL DEFAULT 0,\n"
  "  plan_blocked  INTEGER NOT NULL DEFAULT 0,\n"
  "  run_owner     TEXT\n"
  ");\n"
  "INSERT INTO sessions_v4 (pk, id, task, name, model, provider, source, cwd, status, created_at, updated_at,\n"
  "  turns, input_tokens, output_tokens, pinned, auth_token, n_messages, plan_version, plan_done, plan_total,\n"
  "  plan_blocked)\n"
  "SELECT pk, id, task, name, model, provider, source, cwd, status, created_at, updated_at, turns, input_tokens,\n"
  "  output_tokens, pinned, auth_token, n_messages, plan_version, plan_done, plan_total, plan_blocked\n"
  "FROM sessions;\n"
  "DROP TABLE sessions;\n"
  "ALTER TABLE sessions_v4 RENAME TO sessions;\n"
  "CREATE INDEX sessions_by_order ON sessions (pinned DESC, updated_at DESC, id);\n"
  "CREATE TRIGGER sessions_delete_messages AFTER DELETE ON sessions BEGIN\n"
  "  DELETE FROM messages WHERE id BETWEEN (old.pk << 24) AND (old.pk << 24) + 16777215;\n"
  "END;\n"
  "CREATE TRIGGER sessions_fts_ai AFTER INSERT ON sessions BEGIN\n"
  "  INSERT INTO sessions_fts (rowid, task) VALUES (new.pk, new.task);\n"
  "END;\n"
  "CREATE TRIGGER sessions_fts_ad AFTER DELETE ON sessions BEGIN\n"
  "  INSERT INTO sessions_fts (sessions_fts, rowid, task) VALUES ('delete', old.pk, old.task);\n"
  "END;\n"
  "CREATE TRIGGER sessions_fts_au AFTER UPDATE OF task ON sessions BEGIN\n"
  "  INSERT INTO sessions_fts (sessions_fts, rowid, task) VALUES ('delete', old.pk, old.task);\n"
  "  INSERT INTO sessions_fts (rowid, task) VALUES (new.pk, new.task);\n"
  "END;\n",
};

G_STATIC_ASSERT (G_N_ELEMENTS (migrations) == PD_DB_SCHEMA_VERSION);

const char *
_pd_db_migration_sql (guint version)
{
  if (version < 1 || version > G_N_ELEMENTS (migrations))
    return NULL;
  return migrations[version - 1];
}

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

/* A PdDbStmt is an sqlite3_stmt under another name, so that only this file
 * sees SQLite. */
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

static gboolean
query_int (PdDb        *self,
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

/* Closing any descriptor of a file drops every POSIX lock this process
 * holds on it, SQLite's included: a connection of this process already on
 * the file (the window's source, a watcher) would lose its read lock while
 * another process writes, and then read a stale or "malformed" database.
 * So the descriptor a header check opens is never closed while it may be
 * the file of a connection: one is kept per file (device and inode) for the
 * life of the process, as SQLite keeps its own, and read with pread. */
static GMutex      header_fds_lock;
static GHashTable *header_fds;   /* "dev:ino" → fd + 1 */

static int
header_fd_for (const char  *path,
               struct stat *st)
{
  g_autofree char *key = NULL;
  int fd;

  if (g_stat (path, st) != 0)
    return -1;
  if (!S_ISREG (st->st_mode))
    {
      /* Not a database: its descriptor may be closed (and a FIFO is
       * opened without blocking, never waited on). */
      errno = 0;
      return -2;
    }

  key = g_strdup_printf ("%ju:%ju", (uintmax_t) st->st_dev, (uintmax_t) st->st_ino);
  g_mutex_lock (&header_fds_lock);
  if (header_fds == NULL)
    header_fds = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  fd = GPOINTER_TO_INT (g_hash_table_lookup (header_fds, key)) - 1;
  if (fd < 0)
    {
      fd = g_open (path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0);
      if (fd >= 0)
        g_hash_table_insert (header_fds, g_steal_pointer (&key), GINT_TO_POINTER (fd + 1));
    }
  g_mutex_unlock (&header_fds_lock);

  return fd;
}

/* Checks the file with plain reads before SQLite sees it, so nothing of a
 * foreign file is ever touched.  Sets *empty for a zero-length file.  A
 * FIFO or device put at the path is refused, never waited on. */
static gboolean
check_header (const char  *path,
              gboolean    *exists,
              gboolean    *empty,
              goffset     *size,
              GError     **error)
{
  static const char magic[16] = "SQLite format 3";  /* with its NUL */
  char header[100];
  struct stat st;
  gsize n = 0;
  int fd;

  *exists = *empty = FALSE;
  *size = 0;

  fd = header_fd_for (path, &st);
  if (fd == -1)
    {
      int saved = errno;

      if (saved == ENOENT)
        return TRUE;
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                   "cannot read %s: %s", path, g_strerror (saved));
      return FALSE;
    }
  *exists = TRUE;

  if (fd == -2 || fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_NOT_A_DATABASE,
                   "%s is not a Plandeck database (not a regular file)", path);
      return FALSE;
    }

  *size = st.st_size;
  if (st.st_size == 0)
    {
      *empty = TRUE;
      return TRUE;
    }

  while (n < sizeof header)
    {
      gssize got = pread (fd, header + n, sizeof header - n, (off_t) n);

      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        {
          int saved = errno;

          g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_IO,
                       "cannot read %s: %s", path, g_strerror (saved));
          return FALSE;
        }
      if (got == 0)
        break;
      n += (gsize) got;
    }

  if (n < sizeof header || memcmp (header, magic, sizeof magic) != 0)
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_NOT_A_DATABASE,
                   "%s is not a Plandeck database (it is not an SQLite file)", path);
      return FALSE;
    }

  return TRUE;
}

/* The migration of one version, in the caller's transaction: its SQL,
 * the foreign keys checked (a table rebuild runs with them off), and the
 * version bump. */
static int
migrate_step (PdDb  *self,
              guint  v)
{
  g_autofree char *bump = g_strdup_printf ("PRAGMA user_version = %u", v);
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_exec (self->handle, migrations[v - 1], NULL, NULL, NULL);

  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (self->handle, "PRAGMA foreign_key_check", -1, &stmt, NULL);
  if (rc == SQLITE_OK)
    {
      rc = sqlite3_step (stmt);
      /* A row is a broken reference: keep the file as it was. */
      rc = rc == SQLITE_DONE ? SQLITE_OK : rc == SQLITE_ROW ? SQLITE_CONSTRAINT : rc;
      sqlite3_finalize (stmt);
    }
  if (rc == SQLITE_OK)
    rc = sqlite3_exec (self->handle, bump, NULL, NULL, NULL);
  return rc;
}

static gboolean run_migrations_locked (PdDb    *self,
                                       GError **error);

/* Foreign keys are off while migrating: rebuilding the sessions table (v4)
 * drops the old one, which with them on would delete every event, plan
 * version and annotation through ON DELETE CASCADE.  The pragma has no
 * effect inside a transaction, so it is set around them. */
static gboolean
run_migrations (PdDb    *self,
                GError **error)
{
  gboolean ok;

  sqlite3_exec (self->handle, "PRAGMA foreign_keys = OFF", NULL, NULL, NULL);
  ok = run_migrations_locked (self, error);
  sqlite3_exec (self->handle, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
  return ok;
}

static gboolean
run_migrations_locked (PdDb    *self,
                       GError **error)
{
  for (guint v = (guint) self->user_version + 1; v <= PD_DB_SCHEMA_VERSION; v++)
    {
      gint64 current = 0;
      int rc;

      if (!pd_db_begin (self, error))
        return FALSE;

      /* Another process may have migrated while we waited for the lock. */
      if (!query_int (self, "PRAGMA user_version", &current, error))
        {
          pd_db_rollback (self);
          return FALSE;
        }
      if (current >= v)
        {
          pd_db_rollback (self);
          self->user_version = (int) current;
          continue;
        }

      rc = migrate_step (self, v);
      if (rc != SQLITE_OK)
        {
          g_autofree char *what = g_strdup_printf ("upgrading the schema to version %u", v);

          _pd_db_set_error_from_sqlite (self, rc, what, error);
          pd_db_rollback (self);
          return FALSE;
        }
      if (!pd_db_commit (self, error))
        return FALSE;
      self->user_version = (int) v;
      g_debug ("%s: migrated to schema version %u", self->path, v);
    }

  return TRUE;
}

static gboolean
check_identity (PdDb        *self,
                gboolean     fresh,
                goffset      size,
                GError     **error)
{
  gint64 schema_version = 0;
  gint64 user_version = 0;
  gint64 app_id = 0;
  gint64 n_objects = 0;

  /* The first statements read page 1 and the schema: this is where a file
   * with a valid header but garbage behind it fails. */
  if (!query_int (self, "PRAGMA schema_version", &schema_version, error) ||
      !query_int (self, "PRAGMA user_version", &user_version, error) ||
      !query_int (self, "PRAGMA application_id", &app_id, error) ||
      !query_int (self, "SELECT count(*) FROM sqlite_master", &n_objects, error))
    return FALSE;

  if (!fresh)
    {
      if (app_id != PD_DB_APPLICATION_ID && (app_id != 0 || user_version != 0 || n_objects > 0))
        {
          g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_NOT_A_DATABASE,
                       "%s is not a Plandeck database (it is an SQLite database of another application)",
                       self->path);
          return FALSE;
        }
    }

  /* user_version is a signed 32-bit field anyone can set; below 0 it is no
   * version Plandeck ever wrote, and the migrations count up from it. */
  if (user_version < 0)
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_CORRUPT,
                   "%s is damaged: database schema version %" G_GINT64_FORMAT " is not one Plandeck writes "
                   "(0 to %d); restore it from a backup or move it away to start a new one",
                   self->path, user_version, PD_DB_SCHEMA_VERSION);
      return FALSE;
    }
  if (user_version > PD_DB_SCHEMA_VERSION)
    {
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_NEWER_SCHEMA,
                   "%s: database schema version %" G_GINT64_FORMAT " is newer than this Plandeck (%d); update Plandeck",
                   self->path, user_version, PD_DB_SCHEMA_VERSION);
      return FALSE;
    }
  self->user_version = (int) user_version;

  if (!fresh && size > 0 && size <= QUICK_CHECK_MAX_BYTES)
    {
      sqlite3_stmt *stmt = NULL;
      int rc = sqlite3_prepare_v2 (self->handle, "PRAGMA quick_check(1)", -1, &stmt, NULL);

      if (rc == SQLITE_OK)
        rc = sqlite3_step (stmt);
      if (rc == SQLITE_ROW)
        {
          const char *result = (const char *) sqlite3_column_text (stmt, 0);

          if (g_strcmp0 (result, "ok") != 0)
            {
              g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_CORRUPT,
                           "%s is damaged: %s; restore it from a backup or move it away to start a new one",
                           self->path, result ? result : "integrity check failed");
              sqlite3_finalize (stmt);
              return FALSE;
            }
        }
      else if (rc != SQLITE_DONE)
        {
          _pd_db_set_error_from_sqlite (self, rc, "checking the database", error);
          sqlite3_finalize (stmt);
          return FALSE;
        }
      sqlite3_finalize (stmt);
    }

  return TRUE;
}

/* Every schema object and column as one string each ("table sessions",
 * "column sessions.n_messages", "trigger …"), SQLite's own left out. */
static const char schema_sql[] =
  "SELECT type || ' ' || name FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
  "UNION ALL "
  "SELECT 'column ' || m.name || '.' || p.name FROM sqlite_master m, pragma_table_info (m.name) p "
  "WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite\\_%' ESCAPE '\\'";

static gboolean
collect_schema (sqlite3     *handle,
                GHashTable  *into,
                int         *rc_out)
{
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_prepare_v2 (handle, schema_sql, -1, &stmt, NULL);

  while (rc == SQLITE_OK && (rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      g_hash_table_add (into, g_strdup ((const char *) sqlite3_column_text (stmt, 0)));
      rc = SQLITE_OK;
    }
  sqlite3_finalize (stmt);
  *rc_out = rc;
  return rc == SQLITE_DONE;
}

static int
schema_rank (const char *entry)
{
  static const char * const kinds[] = { "table ", "column ", "index ", "trigger " };

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (g_str_has_prefix (entry, kinds[i]))
      return (int) i;
  return G_N_ELEMENTS (kinds);
}

static int
compare_schema_entries (gconstpointer a,
                        gconstpointer b)
{
  const char *x = *(const char * const *) a;
  const char *y = *(const char * const *) b;
  int rank = schema_rank (x) - schema_rank (y);

  return rank != 0 ? rank : strcmp (x, y);
}

/* What the migrations up to @version build, computed once per process on
 * an in-memory database, so the check can never drift from the schema. */
static GPtrArray *
expected_schema (int version)
{
  static gsize once[PD_DB_SCHEMA_VERSION + 1];
  static GPtrArray *expected[PD_DB_SCHEMA_VERSION + 1];

  g_assert (version >= 0 && version <= PD_DB_SCHEMA_VERSION);

  if (g_once_init_enter (&once[version]))
    {
      g_autoptr(GHashTable) set = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      GPtrArray *list = g_ptr_array_new_with_free_func (g_free);
      sqlite3 *handle = NULL;
      GHashTableIter iter;
      gpointer key;
      int rc = sqlite3_open_v2 (":memory:", &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);

      for (int v = 0; rc == SQLITE_OK && v < version; v++)
        rc = sqlite3_exec (handle, migrations[v], NULL, NULL, NULL);
      /* The migrations are constants: failing here is a bug, not input. */
      g_assert_cmpint (rc, ==, SQLITE_OK);
      g_assert_true (collect_schema (handle, set, &rc));
      sqlite3_close (handle);

      g_hash_table_iter_init (&iter, set);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        g_ptr_array_add (list, g_strdup (key));
      /* Tables first: a dropped table is reported as such, not as its
       * first column. */
      g_ptr_array_sort (list, compare_schema_entries);
      expected[version] = list;
      g_once_init_leave (&once[version], 1);
    }

  return expected[version];
}

/* A file whose tables, columns, indexes or triggers were dropped or
 * changed by something else would fail later, in the middle of a run or
 * after half a command; refuse it on open instead, before anything is
 * written to it (WAL, migrations).  Objects the file has beyond the ones
 * of its version are left alone. */
static gboolean
check_schema (PdDb    *self,
              GError **error)
{
  g_autoptr(GHashTable) found = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GPtrArray *expected = expected_schema (self->user_version);
  int rc;

  if (!collect_schema (self->handle, found, &rc))
    return _pd_db_set_error_from_sqlite (self, rc, "reading the schema", error);

  for (guint i = 0; i < expected->len; i++)
    {
      const char *want = g_ptr_array_index (expected, i);
      const char *space = strchr (want, ' ');
      g_autofree char *kind = g_strndup (want, space - want);

      if (g_hash_table_contains (found, want))
        continue;
      g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_CORRUPT,
                   "%s is damaged: its %s “%s” is missing, so its schema is not the one version %d has; "
                   "restore it from a backup or move it away to start a new one",
                   self->path, kind, space + 1, self->user_version);
      return FALSE;
    }

  return TRUE;
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
  if (!check_header (path, &exists, &empty, &size, error))
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

  if (!check_identity (self, fresh, size, error) ||
      !check_schema (self, error) ||
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
      if (!run_migrations (self, error))
        return NULL;
    }

  return g_steal_pointer (&self);
}
