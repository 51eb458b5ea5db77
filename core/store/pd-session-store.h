/* pd-session-store.h: sessions, transcripts, plan history, events and
 * annotations in a PdDb.
 *
 * Every call blocks: run it in a worker thread.  Text is redacted
 * (pd-redact.h) when it is saved, so what is read back is the redacted text.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "pd-db.h"
#include "pd-plan-state.h"
#include "pd-session-info.h"

G_BEGIN_DECLS

/* A search longer than this is refused (SQLite's LIKE takes 50 000 bytes
 * at most, and a search that long is no search a person types). */
#define PD_SESSION_QUERY_MAX_BYTES 1000

typedef struct
{
  const char        *session_id;
  /* The whole transcript: OpenAI-shaped objects {role, content, name?,
   * tool_call_id?, tool_calls?}.  NULL: the transcript is unchanged. */
  JsonArray         *messages;
  /* Messages before this index are already stored unchanged, but for the
   * ones listed in @replaced (below). */
  guint              first_changed;
  const PdPlanState *plan;          /* (nullable) the plan after this turn */
  gint64             input_tokens;  /* deltas */
  gint64             output_tokens;
  gboolean           count_turn;
  PdSessionStatus    status;
  /* Messages below first_changed replaced in place (the plan message), so
   * a turn rewrites one row instead of the transcript behind it. */
  const guint       *replaced;      /* (nullable) ascending indices */
  guint              n_replaced;
} PdTurn;

#define PD_TYPE_SESSION_STORE (pd_session_store_get_type ())
G_DECLARE_FINAL_TYPE (PdSessionStore, pd_session_store, PD, SESSION_STORE, GObject)

PdSessionStore *pd_session_store_new          (PdDb            *db);
PdDb           *pd_session_store_get_db       (PdSessionStore  *self);

PdSessionInfo  *pd_session_store_create       (PdSessionStore  *self,
                                               const char      *task,
                                               const char      *model,
                                               const char      *provider,
                                               const char      *source,
                                               const char      *cwd,
                                               GError         **error);
gboolean        pd_session_store_save_turn    (PdSessionStore  *self,
                                               const PdTurn    *turn,
                                               GError         **error);
PdSessionInfo  *pd_session_store_get          (PdSessionStore  *self,
                                               const char      *id,
                                               GError         **error);
JsonArray      *pd_session_store_load_messages (PdSessionStore *self,
                                                const char     *id,
                                                GError        **error);
GPtrArray      *pd_session_store_list_plan_versions (PdSessionStore *self,
                                                     const char     *id,
                                                     GError        **error);
gboolean        pd_session_store_get_plan     (PdSessionStore  *self,
                                               const char      *id,
                                               PdPlanState    **state,
                                               GError         **error);
GPtrArray      *pd_session_store_list         (PdSessionStore  *self,
                                               const char      *query,
                                               gboolean         full_text,
                                               guint            offset,
                                               guint            limit,
                                               guint           *total,   /* a lower bound for very common full-text terms */
                                               GError         **error);
gboolean        pd_session_store_rename       (PdSessionStore  *self,
                                               const char      *id,
                                               const char      *name,
                                               GError         **error);
gboolean        pd_session_store_set_pinned   (PdSessionStore  *self,
                                               const char      *id,
                                               gboolean         pinned,
                                               GError         **error);
gboolean        pd_session_store_set_status   (PdSessionStore  *self,
                                               const char      *id,
                                               PdSessionStatus  status,
                                               GError         **error);
gboolean        pd_session_store_delete       (PdSessionStore  *self,
                                               const char      *id,
                                               GError         **error);
GPtrArray      *pd_session_store_list_removed (PdSessionStore  *self,
                                               GError         **error);
gboolean        pd_session_store_restore      (PdSessionStore  *self,
                                               const char      *id,
                                               GError         **error);
gint64          pd_session_store_add_event    (PdSessionStore  *self,
                                               const char      *session_id,
                                               const char      *run_id,
                                               const char      *type,
                                               gint64           timestamp_usec,
                                               const char      *event_json,
                                               GError         **error);
GPtrArray      *pd_session_store_list_events  (PdSessionStore  *self,
                                               const char      *session_id,
                                               const char      *type,
                                               gint64           after_seq,
                                               guint            limit,
                                               GError         **error);
/* The newest @limit events of @session_id before sequence number
 * @before_seq (<= 0: the newest of all), of @types only when not %NULL,
 * oldest first: a page of a long stream read from its end.
 * Returns: (transfer full) (element-type PdStoredEvent) */
GPtrArray      *pd_session_store_list_latest_events (PdSessionStore     *self,
                                                     const char         *session_id,
                                                     gint64              before_seq,
                                                     const char * const *types,
                                                     guint               limit,
                                                     GError            **error);
gboolean        pd_session_store_set_annotation (PdSessionStore *self,
                                                 const char     *session_id,
                                                 const char     *key,
                                                 const char     *value_json,
                                                 GError        **error);
char           *pd_session_store_get_annotation (PdSessionStore *self,
                                                 const char     *session_id,
                                                 const char     *key,
                                                 GError        **error);

/* Sessions imported from other agents' transcripts (pd-session-store-imports.c).
 * The import index reads the transcripts; these keep where each session's
 * transcript is and what of it was read, so that an unchanged file is not
 * opened again. */
typedef struct
{
  const char *path;             /* the transcript file or folder */
  const char *agent_id;         /* the agent's own id, for a file of several sessions; "" otherwise */
  const char *format;           /* pd_transcript_reader_new_for_format()'s name */
  gint64      size;             /* of the file, with mtime and deps: what "unchanged" means */
  gint64      mtime;
  const char *deps;
  gint64      read_offset;      /* where the next read goes on */
  gint64      lines;
  gint64      skipped_lines;
  gint64      applied_updates;
  gint64      ignored_updates;
} PdImportRecord;

/* What the session list shows of an imported session.  The title is stored
 * as given: redact it first. */
typedef struct
{
  const char *title;
  const char *source;           /* "claude-code", "codex", "opencode" */
  const char *cwd;
  gint64      created_at;       /* unix µs */
  gint64      updated_at;
  guint       plan_done;        /* the checklist, with the user's overrides */
  guint       plan_total;
  guint       plan_hidden;      /* the agent's items past those kept, not in plan_total */
} PdImportedSummary;

/* What an earlier import stored of one transcript file and its session:
 * enough for a new process to read on from where that import ended. */
typedef struct
{
  char   *format;
  gint64  size;
  gint64  read_offset;
  gint64  lines;
  gint64  skipped_lines;
  gint64  applied_updates;
  gint64  ignored_updates;
  char   *title;        /* as stored: redacted */
  char   *cwd;
  gint64  created_at;
  gint64  updated_at;
  guint   plan_done;    /* with the user's overrides */
  guint   plan_total;
  guint   plan_hidden;
} PdImportState;

void            pd_import_state_clear                (PdImportState            *state);
/* FALSE without an error when @path (with @agent_id) was never imported. */
gboolean        pd_session_store_get_import_state    (PdSessionStore           *self,
                                                      const char               *path,
                                                      const char               *agent_id,
                                                      PdImportState            *state,
                                                      GError                  **error);
gboolean        pd_session_store_import_is_unchanged (PdSessionStore           *self,
                                                      const char               *path,
                                                      gint64                    size,
                                                      gint64                    mtime,
                                                      const char               *deps,
                                                      guint                    *n_sessions,
                                                      GError                  **error);
/* The id of the session imported from @path (and @agent_id), or NULL;
 * NULL without an error when there is none. */
char           *pd_session_store_find_import         (PdSessionStore           *self,
                                                      const char               *path,
                                                      const char               *agent_id,
                                                      GError                  **error);
/* Makes or updates session @session_id and its imports row; @added says
 * whether the session is new. */
gboolean        pd_session_store_save_import         (PdSessionStore           *self,
                                                      const char               *session_id,
                                                      const PdImportedSummary  *summary,
                                                      const PdImportRecord     *record,
                                                      gboolean                 *added,
                                                      GError                  **error);
/* An import's batch, inside the caller's transaction (pd_db_begin()):
 * after _begin() the sessions pd_session_store_save_import() adds get their
 * full-text rows when _end() runs, all in one statement, not one each.
 * Call _end() before the commit; a rollback undoes both. */
gboolean        pd_session_store_import_batch_begin  (PdSessionStore           *self,
                                                      GError                  **error);
gboolean        pd_session_store_import_batch_end    (PdSessionStore           *self,
                                                      GError                  **error);
GPtrArray      *pd_session_store_list_import_paths   (PdSessionStore           *self,
                                                      gboolean                  with_folders,
                                                      GError                  **error);
/* FALSE without an error when @session_id is not an imported session. */
gboolean        pd_session_store_get_import          (PdSessionStore           *self,
                                                      const char               *session_id,
                                                      char                    **path,
                                                      char                    **format,
                                                      char                    **agent_id,
                                                      GError                  **error);
/* Annotation @key and the session's done/total counts, in one transaction. */
gboolean        pd_session_store_save_checklist      (PdSessionStore           *self,
                                                      const char               *session_id,
                                                      const char               *key,
                                                      const char               *value_json,
                                                      guint                     done,
                                                      guint                     total,
                                                      GError                  **error);

/* Turns user text into an FTS5 expression that is never FTS syntax: each
 * word becomes a quoted phrase, all must match.  NULL when nothing
 * searchable is left. */
char           *pd_session_store_fts_query    (const char      *text);

G_END_DECLS
