/* pd-import-index.h: other agents' transcripts in the session index.
 *
 * A run finds the transcripts (the scanner's folders, or given paths) and
 * gives each session a row in the sessions table, with its source
 * ("claude-code", "claude-desktop", "codex", "opencode"), title, folder,
 * times and the plan pill's counts, so imported sessions are listed by
 * pd_session_store_list() beside Plandeck's own.  Beside each row the
 * imports table keeps the file's path, size, mtime and the reader's offset.
 *
 * Privacy (seed 001): the agent's plan text is never written: only counts
 * and metadata.  The checklist itself is recomputed from the transcript, in
 * memory, by pd_import_index_load_checklist(); the user's overrides and own
 * items are the session's "checklist" annotation.
 *
 * Incremental: a file with the size, mtime (and subagent files) it had when
 * it was indexed is not opened at all.  A file that grew is read again: only
 * its appended bytes when this index still holds its reader (a long-lived
 * index in the app, or the watcher), from the start otherwise.
 *
 * Every call blocks; run them in a worker thread or use the _async forms.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "pd-checklist.h"
#include "pd-imported-session.h"
#include "pd-import-scanner.h"
#include "pd-import-skip.h"
#include "pd-session-store.h"
#include "pd-transcript-pages.h"
#include "pd-transcript-reader.h"

G_BEGIN_DECLS

/* The session store's annotation key of an imported session's checklist
 * annotations (pd_checklist_annotations_to_json()). */
#define PD_IMPORT_ANNOTATION_CHECKLIST "checklist"

typedef struct
{
  guint   transcripts;       /* transcript files (or OpenCode stores) found */
  guint   unchanged;         /* same size and mtime: not opened, no parsing */
  guint   read_full;         /* read from the start */
  guint   read_appended;     /* only the bytes appended since the last read */
  guint   failed;            /* could not be read (unreadable, damaged beyond reading, gone) */
  guint   sessions_added;
  guint   sessions_updated;
  guint64 bytes_read;
  guint64 lines_read;
  /* files passed over (the failed ones too): not regular files (a FIFO),
   * symbolic links, unreadable, of no known agent; each is named, with its
   * reason, by pd_import_index_get_skipped() */
  guint   skipped;
  guint   sessions_unchanged; /* the sessions of the unchanged files (an OpenCode store holds several) */
} PdImportIndexStats;

#define PD_TYPE_IMPORT_INDEX (pd_import_index_get_type ())
G_DECLARE_FINAL_TYPE (PdImportIndex, pd_import_index, PD, IMPORT_INDEX, GObject)

PdImportIndex *pd_import_index_new          (void);

/* Indexes the scanner's folders (@scanner NULL: the agents' defaults). */
gboolean       pd_import_index_run          (PdImportIndex        *self,
                                             PdSessionStore       *store,
                                             PdImportScanner      *scanner,
                                             PdImportIndexStats   *stats,
                                             GError              **error);
void           pd_import_index_run_async    (PdImportIndex        *self,
                                             PdSessionStore       *store,
                                             PdImportScanner      *scanner,
                                             GCancellable         *cancellable,
                                             GAsyncReadyCallback   callback,
                                             gpointer              user_data);
gboolean       pd_import_index_run_finish   (PdImportIndex        *self,
                                             GAsyncResult         *result,
                                             PdImportIndexStats   *stats,
                                             GError              **error);

/* The files the last run passed over (element-type PdImportSkip). */
GPtrArray     *pd_import_index_get_skipped  (PdImportIndex        *self);

/* Indexes transcript files, opencode.db files and folders laid out like an
 * agent's own.  An error when a path does not exist or is not a file or
 * folder (a FIFO). */
gboolean       pd_import_index_run_paths    (PdImportIndex        *self,
                                             PdSessionStore       *store,
                                             const char * const   *paths,
                                             PdImportIndexStats   *stats,
                                             GCancellable         *cancellable,
                                             GError              **error);

/* The checklist of an imported session, recomputed from its transcript,
 * with the stored overrides and user items applied.  PD_DB_ERROR_NOT_FOUND
 * when @session_id is not an imported session; a GIOError when its
 * transcript cannot be read any more. */
PdChecklist   *pd_import_index_load_checklist (PdSessionStore     *store,
                                               const char         *session_id,
                                               GError            **error);
/* Gives @func the reader of imported session @session_id, updated as an
 * import reads (a long transcript only at its end), and its checklist with
 * the stored annotations applied; neither may be kept after @func.  Where
 * appended transcripts are followed (pd_import_index_set_follow_appends()),
 * the reader is kept and a change is read by what was appended only
 * (pd-import-follow.c), @func called with it held.  What the Now page,
 * the session's facts and its resume command read. */
typedef void (*PdImportReadFunc) (PdTranscriptReader *reader,
                                  PdChecklist        *checklist,
                                  gpointer            user_data);
gboolean       pd_import_index_read_session (PdSessionStore    *store,
                                             const char        *session_id,
                                             PdImportReadFunc   func,
                                             gpointer           user_data,
                                             GCancellable      *cancellable,
                                             GError           **error);
/* The same, with a copy of the session's plan documents (@plans, element-type
 * PdArtifactPlan): what the Now page shows.  Where appended transcripts are
 * followed (pd_import_index_set_follow_appends()), the reader is kept and a
 * change is read by what was appended only (pd-import-follow.c). */
PdChecklist   *pd_import_index_load_checklist_plans (PdSessionStore  *store,
                                                     const char      *session_id,
                                                     GPtrArray      **plans,
                                                     GCancellable    *cancellable,
                                                     GError         **error);
/* The same, as the whole session read from its transcript: its checklist
 * (annotations applied) and its plan documents.  In memory only. */
PdImportedSession *pd_import_index_load_session (PdSessionStore   *store,
                                                 const char       *session_id,
                                                 GError          **error);
/* The reader that read it, as an import reads (a long Claude Code, Codex or
 * Qwen Code transcript only at its end, never whole for pages), its
 * session's checklist with the annotations applied: what the Now page and
 * `sessions show` need (the plan now, how to continue), in memory and time
 * that do not grow with the transcript's middle. */
PdTranscriptReader *pd_import_index_load_reader (PdSessionStore *store,
                                                 const char     *session_id,
                                                 GError        **error);
/* Whether @session_id is a session imported from another agent, and where
 * its transcript is: the path, the reader's format name and the agent's
 * own id of the session (for stores holding many; "" otherwise), each
 * optional.  FALSE, without an error, for any other session. */
gboolean       pd_import_index_lookup       (PdSessionStore       *store,
                                             const char           *session_id,
                                             char                **path,
                                             char                **format,
                                             char                **agent_id,
                                             GError              **error);
/* What a reading of imported session @session_id's transcript depends on:
 * its path, format and agent id, and its files' sizes and times.  Two
 * reads of equal signatures read the same.  NULL without an error for a
 * session that is not imported and for a transcript that is gone. */
char          *pd_import_index_dup_signature (PdSessionStore      *store,
                                              const char          *session_id,
                                              GError             **error);
/* The user's overrides and own items of an imported session, on an empty
 * checklist (no agent items), to apply to what its transcript says. */
PdChecklist   *pd_import_index_load_annotations (PdSessionStore   *store,
                                                 const char       *session_id,
                                                 GError          **error);
/* Whether a change of a transcript (Claude Code, Codex, Qwen Code, Gemini
 * CLI's JSONL) is read by what was appended, into the pages read before,
 * which are kept for that (pd-import-follow.c): for a process that
 * follows sessions as they grow (the window).  Off by default: a process
 * that reads a session once (the CLI, serve) keeps nothing of it and
 * reads it in its leanest way.  Any thread. */
void               pd_import_index_set_follow_appends (gboolean follow);

/* What the pages of an imported session show (pd-transcript-pages.h), read
 * whole from its transcript on demand.  The pages of the last few sessions
 * read are kept while their files stay the same (size, mtime, subagent
 * files), so the pages and the API asking one after the other read once.
 * PD_DB_ERROR_NOT_FOUND when @session_id is not an imported session; a
 * GIOError when its transcript cannot be read any more. */
PdTranscriptPages *pd_import_index_load_pages (PdSessionStore     *store,
                                               const char         *session_id,
                                               GCancellable       *cancellable,
                                               GError            **error);
/* The same for the History: the plan versions only, the newest
 * PD_TRANSCRIPT_PAGES_HISTORY_MAX kept (numbered among all), nothing else
 * of the transcript held. */
PdTranscriptPages *pd_import_index_load_history (PdSessionStore   *store,
                                                 const char       *session_id,
                                                 GCancellable     *cancellable,
                                                 GError          **error);
/* The same for the Events: the timeline only (no message, no call's text):
 * a transcript of 300,000 plan calls holds its events, not its calls. */
PdTranscriptPages *pd_import_index_load_events  (PdSessionStore   *store,
                                                 const char       *session_id,
                                                 GCancellable     *cancellable,
                                                 GError          **error);

/* The Transcript's part of a long session: @max messages of its own
 * conversation from the @first (-1: the newest), subagents nested, no
 * version, event or call beyond them held (pd_transcript_pages_get_part()).
 * Never cached. */
PdTranscriptPages *pd_import_index_load_part    (PdSessionStore   *store,
                                                 const char       *session_id,
                                                 gint64            first,
                                                 guint             max,
                                                 GCancellable     *cancellable,
                                                 GError          **error);
/* An export's reads: every message (then, in a second read, every plan
 * version) handed to @sink in order as it is read, a bounded number held;
 * the pages returned hold no message or version, only the plan documents
 * and how to continue. */
PdTranscriptPages *pd_import_index_stream_messages (PdSessionStore        *store,
                                                    const char            *session_id,
                                                    PdTranscriptPagesSink  sink,
                                                    gpointer               user_data,
                                                    GCancellable          *cancellable,
                                                    GError               **error);
PdTranscriptPages *pd_import_index_stream_versions (PdSessionStore               *store,
                                                    const char                   *session_id,
                                                    PdTranscriptPagesVersionSink  sink,
                                                    gpointer                      user_data,
                                                    GCancellable                 *cancellable,
                                                    GError                      **error);

/* Stores @checklist's annotations (overrides and user items, never agent
 * text) and refreshes the session's pill counts. */
gboolean       pd_import_index_save_annotations (PdSessionStore   *store,
                                                 const char       *session_id,
                                                 PdChecklist      *checklist,
                                                 GError          **error);

/* The session id an imported session gets: "YYYYMMDD-" (the UTC date of
 * its first record) and 32 hex digits of a hash of its format, path and the
 * agent's own session id (for files holding many). */
char          *pd_import_index_session_id   (const char           *format,
                                             const char           *path,
                                             const char           *agent_id,
                                             gint64                created_at);

G_END_DECLS
