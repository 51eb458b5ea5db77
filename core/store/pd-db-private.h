/* pd-db-private.h: internals of PdDb that tests and the store use. */
#pragma once

#include <sqlite3.h>

#include "pd-db.h"

G_BEGIN_DECLS

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

G_END_DECLS
