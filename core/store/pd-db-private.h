/* pd-db-private.h: internals of PdDb that tests and the store use. */
#pragma once

#include "pd-db.h"

G_BEGIN_DECLS

/* The SQL of migration step @version (1-based), which takes a database from
 * version - 1 to version.  NULL past the newest. */
const char *_pd_db_migration_sql (guint version);

G_END_DECLS
