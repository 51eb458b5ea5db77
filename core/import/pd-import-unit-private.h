/* pd-import-unit-private.h: what the import index reads as one thing — a
 * transcript file with its subagent files, an OpenCode database or an
 * OpenCode storage tree — and finding them under a folder by stat alone
 * (pd-import-unit.c); the index (pd-import-index.c) reads and stores them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <sys/stat.h>

#include <gio/gio.h>

G_BEGIN_DECLS

typedef enum
{
  PD_IMPORT_UNIT_JSONL,
  PD_IMPORT_UNIT_OPENCODE_DB,
  PD_IMPORT_UNIT_OPENCODE_STORAGE,
} PdImportUnitKind;

/* One thing to index: a transcript file (with its subagent files), an
 * OpenCode database, or an OpenCode storage tree. */
typedef struct
{
  PdImportUnitKind   kind;
  char      *path;
  gint64     size;
  gint64     mtime;     /* unix µs */
  char      *identity;  /* "device:inode": another file renamed over the path differs */
  gint64     ctime;     /* the inode's change time, ns: a rewrite keeping size and mtime differs */
  char      *deps;      /* signature of the files read with it */
  GPtrArray *agents;    /* (nullable) flat agent-*.jsonl beside it (Claude Code 2.0) */
} PdImportUnit;

void      _pd_import_unit_free     (PdImportUnit  *unit);

/* Adds the units of @path (a transcript file, an OpenCode database, or a
 * folder walked as the scanner walks it) to @units; what is passed over is
 * named in @skipped.  A link named as @path is followed, links inside
 * folders are not. */
gboolean  _pd_import_discover_path (const char    *path,
                                    GPtrArray     *units,
                                    GPtrArray     *skipped,
                                    GCancellable  *cancellable,
                                    GError       **error);
/* The same for a path the watcher queued: read only if it is still what
 * @queued (its lstat when queued) says, never through a link, its folder
 * opened by descriptor and checked against @queued. */
gboolean  _pd_import_discover_watched (const char         *path,
                                       const struct stat  *queued,
                                       GPtrArray          *units,
                                       GPtrArray          *skipped,
                                       GCancellable       *cancellable,
                                       GError            **error);

G_END_DECLS
