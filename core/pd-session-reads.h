/* pd-session-reads.h: a session's pages, as every front end asks for them.
 *
 * The window (PdLocalSource), the command line (plan status, sessions show
 * and export) and `serve` answer the same questions of a session: its
 * record, its plan, the plan's history, its messages, its events.  For
 * Plandeck's own sessions the answers are stored; for sessions imported
 * from another agent (Claude Code, Codex, OpenCode, Qwen Code, …) they are read from the
 * agent's transcript on demand (pd_import_index_load_pages()), in the same
 * shapes, with the user's overrides of the agent's checklist applied.  So
 * each front end asks here, and none needs to know where a session came
 * from.
 *
 * Every call blocks (SQLite, file reads): run it in a worker thread.
 * Errors are the store's (PD_DB_ERROR_NOT_FOUND for an unknown session) or,
 * for an imported session whose transcript cannot be read any more, a
 * GIOError.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-session-store.h"

G_BEGIN_DECLS

/* The record; for an imported session its message count is the
 * transcript's (the index stores none). */
PdSessionInfo *pd_session_reads_get                (PdSessionStore  *store,
                                                    const char      *id,
                                                    GError         **error);
/* The same; *@counted FALSE when the message count was not read: an
 * imported session whose transcript is too long to read whole for a count
 * (its plan version is then that of pd_session_reads_get_plan()). */
PdSessionInfo *pd_session_reads_get_counted        (PdSessionStore  *store,
                                                    const char      *id,
                                                    gboolean        *counted,
                                                    GError         **error);
/* The current plan; *@state NULL when there is none.  For an imported
 * session it is read as an import reads (a long transcript only at its
 * end), in memory and time that do not grow with the transcript's middle;
 * its version counts the plan updates read (all but in a transcript read
 * only at its end). */
gboolean       pd_session_reads_get_plan           (PdSessionStore  *store,
                                                    const char      *id,
                                                    PdPlanState    **state,
                                                    GError         **error);
/* The same, and of an imported agent's plan the ids of the steps it
 * cancelled (*@cancelled, element-type utf8; empty for our own plans): the
 * plan's words call them blocked, a person reads them as cancelled. */
gboolean       pd_session_reads_get_plan_marked    (PdSessionStore  *store,
                                                    const char      *id,
                                                    PdPlanState    **state,
                                                    GHashTable     **cancelled,
                                                    GError         **error);
/* Of an imported session, its checklist as the user sees it (the agent's
 * items with the user's ticks and unticks beside, then the user's own
 * items), as pd_transcript_pages_checklist_json() writes it: what an
 * export carries.  *@json NULL for our own sessions (their plan is the
 * newest version) and for a session without a list. */
gboolean       pd_session_reads_get_checklist_json (PdSessionStore  *store,
                                                    const char      *id,
                                                    char           **json,
                                                    GError         **error);
/* Oldest first.  Of an imported session the newest
 * PD_TRANSCRIPT_PAGES_HISTORY_MAX only, numbered among all (the first
 * listed says how many older ones are not).
 * Returns: (transfer full) (element-type PdPlanVersionInfo) */
GPtrArray     *pd_session_reads_list_plan_versions (PdSessionStore  *store,
                                                    const char      *id,
                                                    GError         **error);
/* Every version, for an export (with the whole pages of an imported
 * session, its messages too).
 * Returns: (transfer full) (element-type PdPlanVersionInfo) */
GPtrArray     *pd_session_reads_list_all_plan_versions (PdSessionStore *store,
                                                        const char     *id,
                                                        GError        **error);
JsonArray     *pd_session_reads_load_messages      (PdSessionStore  *store,
                                                    const char      *id,
                                                    GError         **error);
/* The Transcript page's read: of an imported session's long transcript a
 * part, @max messages before message @before (-1: the newest), read with
 * @cancellable; *@first is the first one's index in the conversation,
 * *@total how many it has.  Of another imported session read whole, the
 * newest PD_SESSION_READS_WHOLE_MAX messages (@before -1) or @max before
 * @before.  Our own sessions whole (*@first 0). */
#define PD_SESSION_READS_PART_MAX 200
#define PD_SESSION_READS_WHOLE_MAX 2000
JsonArray     *pd_session_reads_load_messages_part (PdSessionStore  *store,
                                                    const char      *id,
                                                    gint64           before,
                                                    guint            max,
                                                    guint64         *first,
                                                    guint64         *total,
                                                    GCancellable    *cancellable,
                                                    GError         **error);
/* The Transcript page following a session: of an imported transcript
 * followed (only appended to since, pd-import-follow.c) the messages from
 * @from on when @lineage is the one the last read gave (*@lineage); any
 * other read as pd_session_reads_load_messages_part() reads the newest
 * part (*@first says where it starts, *@lineage 0 when nothing is
 * followed). */
JsonArray     *pd_session_reads_load_messages_since (PdSessionStore  *store,
                                                     const char      *id,
                                                     guint64          from,
                                                     guint64          lineage,
                                                     guint            max,
                                                     guint64         *first,
                                                     guint64         *total,
                                                     guint64         *lineage_out,
                                                     GCancellable    *cancellable,
                                                     GError         **error);
/* `sessions export`: the session as JSON (its facts, "messages",
 * "plan_versions", "plan_documents" when there are any), pretty, written
 * to @out as it is read: an imported session's long transcript in two
 * reads that hold a bounded part of it, whatever its length.  With
 * @escape, invisible format characters as \u escapes (for a terminal). */
gboolean       pd_session_reads_export_json        (PdSessionStore  *store,
                                                    const char      *id,
                                                    GOutputStream   *out,
                                                    gboolean         escape,
                                                    GCancellable    *cancellable,
                                                    GError         **error);
/* Each message of session @id handed to @func in order (the func's to
 * keep): of an imported session's long transcript as it is read, a
 * bounded number held (pd_import_index_stream_messages()); of any other
 * read whole first.  FALSE on an error. */
typedef void (*PdSessionReadsMessageFunc) (JsonObject *message,
                                           gpointer    user_data);
gboolean       pd_session_reads_foreach_message    (PdSessionStore            *store,
                                                    const char                *id,
                                                    PdSessionReadsMessageFunc  func,
                                                    gpointer                   user_data,
                                                    GCancellable              *cancellable,
                                                    GError                   **error);
/* Whether imported session @id's transcript is long (read in parts). */
gboolean       _pd_session_reads_is_long           (PdSessionStore  *store,
                                                    const char      *id);
/* @type (nullable): only events of this type.
 * Returns: (transfer full) (element-type PdStoredEvent) */
GPtrArray     *pd_session_reads_list_events        (PdSessionStore  *store,
                                                    const char      *id,
                                                    const char      *type,
                                                    gint64           after_seq,
                                                    guint            limit,
                                                    GError         **error);
/* An event of pd_session_reads_foreach_event(), valid during the call;
 * FALSE: no more. */
typedef gboolean (*PdSessionReadsEventFunc) (const PdStoredEvent *event,
                                             gpointer             user_data);
/* Every event of session @id after @after_seq, of @type only when not
 * %NULL, handed to @func in order as it is read: of an imported session's
 * long transcript a part at a time, none kept (`events --session` prints
 * as it reads); of any other a page at a time.  FALSE on an error. */
gboolean       pd_session_reads_foreach_event      (PdSessionStore          *store,
                                                    const char              *id,
                                                    const char              *type,
                                                    gint64                   after_seq,
                                                    PdSessionReadsEventFunc  func,
                                                    gpointer                 user_data,
                                                    GCancellable            *cancellable,
                                                    GError                 **error);
/* The newest @limit events of session @id before sequence number
 * @before_seq (<= 0: the newest), of @types only when not %NULL, oldest
 * first: what a page of events read from its end shows.
 * Returns: (transfer full) (element-type PdStoredEvent) */
GPtrArray     *pd_session_reads_list_latest_events (PdSessionStore     *store,
                                                    const char         *id,
                                                    gint64              before_seq,
                                                    const char * const *types,
                                                    guint               limit,
                                                    GError            **error);
/* The plan documents of an imported session (Claude Code's ExitPlanMode,
 * Codex's proposed plans), in transcript order; none for our own, whose
 * approved plans are files and plan_artifact_saved events.
 * Returns: (transfer full) (element-type PdArtifactPlan) */
GPtrArray     *pd_session_reads_list_plan_documents (PdSessionStore *store,
                                                     const char     *id,
                                                     GError        **error);
/* How to continue an imported session in its own agent: the argv and the
 * folder to run it in (nullable).  FALSE without an error for Plandeck's
 * own sessions (continued here) and for sessions whose agent cannot be
 * given their id safely. */
gboolean       pd_session_reads_get_resume         (PdSessionStore  *store,
                                                    const char      *id,
                                                    GStrv           *argv,
                                                    char           **workdir,
                                                    GError         **error);

G_END_DECLS
