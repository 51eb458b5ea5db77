/* pd-import-index-private.h: what PdImportWatcher uses of PdImportIndex, and
 * what its indexing (pd-import-index.c) and reading back
 * (pd-import-index-load.c) share.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <sys/stat.h>

#include "pd-import-index.h"
#include "pd-transcript-pages.h"

G_BEGIN_DECLS

/* Indexes one transcript file again (a file the watcher saw change, or a
 * new one in a watched folder), and adds the ids of the sessions whose rows
 * it rewrote to @changed_ids.  @queued is @path's lstat when the watcher
 * queued it: a path that is no longer that file or folder, or is a link,
 * is passed over, and a folder is opened by descriptor, never through a
 * link. */
gboolean _pd_import_index_update_file (PdImportIndex       *self,
                                       PdSessionStore      *store,
                                       const char          *path,
                                       const struct stat   *queued,
                                       GPtrArray           *changed_ids,
                                       PdImportIndexStats  *stats,
                                       GCancellable        *cancellable,
                                       GError             **error);

/* The transcript files and OpenCode databases of the index, for monitors.
 * Returns: (transfer full) (element-type utf8) */
GPtrArray *_pd_import_index_list_paths (PdSessionStore  *store,
                                        GError         **error);

/* Applies the stored overrides and user items to @checklist. */
gboolean _pd_import_index_apply_annotations (PdSessionStore  *store,
                                             const char      *session_id,
                                             PdChecklist     *checklist,
                                             GError         **error);

/* What a reading of the transcript depends on (its files' sizes and times),
 * for the pages cache; NULL when the transcript is gone. */
char    *_pd_import_index_signature         (const char      *format,
                                             const char      *path);

/* The bytes a whole read of the transcript reads (0: not known), which
 * the pages' budget is proportioned to (pd-transcript-pages-budget.c). */
guint64  _pd_import_index_source_bytes      (const char      *format,
                                             const char      *path);

/* Bytes the pages' reads (whole, History's, Events') read from
 * transcripts in this process: what the tests hold a followed transcript's
 * reads to (pd-import-follow.c). */
guint64  _pd_import_index_get_pages_bytes_read (void);
void     _pd_import_index_add_pages_bytes_read (guint64 bytes);
/* The same of the reads as an import reads (pd_import_index_read_session()). */
guint64  _pd_import_index_get_reader_bytes_read (void);
void     _pd_import_index_add_reader_bytes_read (guint64 bytes);

/* A transcript followed (pd-import-follow.c): its reader and the pages it
 * builds kept between reads, so a change reads what was appended only. */
typedef struct _PdImportFollow PdImportFollow;

typedef enum
{
  PD_IMPORT_FOLLOW_ALL,
  PD_IMPORT_FOLLOW_HISTORY,
  PD_IMPORT_FOLLOW_EVENTS,
  PD_IMPORT_FOLLOW_READER,   /* no pages: the reader's session (checklist, plans, facts) */
} PdImportFollowPart;

/* Whether @format is only ever appended to, so followed. */
gboolean           _pd_import_follow_can        (const char          *format);
/* The follow of @key (made when new), locked for the caller's thread. */
PdImportFollow    *_pd_import_follow_get        (const char          *key);
/* Reads what @path gained since the last read (whole the first time, or
 * when it is not the same file any more) into the followed pages; sealed
 * pages of what they hold now. */
PdTranscriptPages *_pd_import_follow_update     (PdImportFollow      *self,
                                                 const char          *format,
                                                 const char          *path,
                                                 const char          *agent_id,
                                                 PdImportFollowPart   part,
                                                 GCancellable        *cancellable,
                                                 GError             **error);
/* The same without pages: reads what @path gained into the kept reader;
 * the reader (transfer none, used only while the follow is held), whose
 * session's checklist and plans are those of the whole file. */
PdTranscriptReader *_pd_import_follow_update_reader (PdImportFollow *self,
                                                     const char     *format,
                                                     const char     *path,
                                                     const char     *agent_id,
                                                     GCancellable   *cancellable,
                                                     GError        **error);
/* Unlocks and lets go of what _pd_import_follow_get() gave. */
void               _pd_import_follow_release    (PdImportFollow      *self);
/* Lets go of every follow (tests). */
void               _pd_import_follow_forget_all (void);

G_END_DECLS
