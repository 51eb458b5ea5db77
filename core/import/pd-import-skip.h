/* pd-import-skip.h: a file an import did not read, and why.
 *
 * An import walks folders other programs write: a FIFO named like a
 * transcript, a file it may not read, a symbolic link, a file of no known
 * agent.  None of them is read, and none is passed over in silence: each is
 * one PdImportSkip, which `plandeck-agent import` prints (and --json lists).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "pd-json-writer.h"

G_BEGIN_DECLS

#define PD_TYPE_IMPORT_SKIP (pd_import_skip_get_type ())

typedef struct
{
  char *path;
  char *reason;   /* "not a regular file (a FIFO)", "permission denied", … */
} PdImportSkip;

GType         pd_import_skip_get_type (void) G_GNUC_CONST;
PdImportSkip *pd_import_skip_new      (const char         *path,
                                       const char         *reason);
PdImportSkip *pd_import_skip_copy     (const PdImportSkip *self);
void          pd_import_skip_free     (PdImportSkip       *self);

/* A new array of PdImportSkip that frees its elements. */
GPtrArray    *pd_import_skips_new     (void);
/* [{"path": …, "reason": …}, …] */
JsonNode     *pd_import_skips_to_json (GPtrArray          *skips);
void          pd_import_skips_write_json (GPtrArray    *skips,
                                          PdJsonWriter *writer,
                                          const char   *name);

/* Appends to @skips (nullable: then nothing is recorded).  @error's message
 * is the reason (without a leading "PATH: "). */
void          _pd_import_skip_add        (GPtrArray          *skips,
                                          const char         *path,
                                          const char         *reason);
void          _pd_import_skip_add_error  (GPtrArray          *skips,
                                          const char         *path,
                                          const GError       *error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdImportSkip, pd_import_skip_free)

G_END_DECLS
