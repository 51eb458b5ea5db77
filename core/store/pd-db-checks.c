/* pd-db-checks.c: what pd_db_open() checks before it trusts a file: its
 * header read with plain reads, its identity and version, its integrity and
 * that its schema is the one its version has.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "pd-db-private.h"

/* Statements of a corrupt database can take very long; quick_check reads every
 * page, so it runs on open only while the file is small enough for that to
 * stay well under a frame of a worker thread's time budget. */
#define QUICK_CHECK_MAX_BYTES (4 * 1024 * 1024)

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
gboolean
_pd_db_check_file (const char  *path,
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

gboolean
_pd_db_check_identity (PdDb        *self,
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
  if (!_pd_db_query_int (self, "PRAGMA schema_version", &schema_version, error) ||
      !_pd_db_query_int (self, "PRAGMA user_version", &user_version, error) ||
      !_pd_db_query_int (self, "PRAGMA application_id", &app_id, error) ||
      !_pd_db_query_int (self, "SELECT count(*) FROM sqlite_master", &n_objects, error))
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
        rc = sqlite3_exec (handle, _pd_db_migration_sql ((guint) v + 1), NULL, NULL, NULL);
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
gboolean
_pd_db_check_schema (PdDb    *self,
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
