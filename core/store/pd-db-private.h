/* pd-db-private.h: internals of PdDb that tests and the store use.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <sqlite3.h>

#include "pd-db.h"

G_BEGIN_DECLS

/* PdDb is written in three parts: the connection, its statements and
 * transactions (pd-db.c); the checks a file passes before it is trusted
 * (pd-db-checks.c); the schema's migrations (pd-db-migrations.c). */
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
  /* The file belongs to another user: read, never written (read_only_file
   * is set too). */
  guint       foreign_owner : 1;
  guint       owner_uid;
};

/* Tests only (NULL otherwise): called where another user could act on a
 * new database's path: after pd_db_open()'s checks found no file there and
 * before it makes one (PD_DB_RACE_BEFORE_CREATE), and after it made the
 * file and before SQLite opens it (PD_DB_RACE_BEFORE_SQLITE). */
typedef enum
{
  PD_DB_RACE_BEFORE_CREATE,
  PD_DB_RACE_BEFORE_SQLITE,
} PdDbRacePoint;

extern void (*_pd_db_race_hook) (const char    *path,
                                 PdDbRacePoint  point);

/* The SQL of migration step @version (1-based), which takes a database from
 * version - 1 to version.  NULL past the newest. */
const char *_pd_db_migration_sql (guint version);

/* The raw connection, for tests that must reach under the store (a forged
 * row, a held transaction).  The store itself goes through pd-db.h. */
sqlite3    *_pd_db_get_handle (PdDb *self);

gboolean    _pd_db_set_error_from_sqlite (PdDb        *self,
                                          int          rc,
                                          const char  *what,
                                          GError     **error);

/* One integer from @sql (0 when it returns no row), outside the cache. */
gboolean    _pd_db_query_int        (PdDb        *self,
                                     const char  *sql,
                                     gint64      *value,
                                     GError     **error);

/* pd-db-checks.c */
gboolean    _pd_db_check_file       (const char  *path,
                                     gboolean    *exists,
                                     gboolean    *empty,
                                     goffset     *size,
                                     GError     **error);
gboolean    _pd_db_check_identity   (PdDb        *self,
                                     gboolean     fresh,
                                     goffset      size,
                                     GError     **error);
gboolean    _pd_db_check_schema     (PdDb        *self,
                                     GError     **error);

/* pd-db-migrations.c: runs the steps from the file's version up. */
gboolean    _pd_db_run_migrations   (PdDb        *self,
                                     GError     **error);

G_END_DECLS
