/* pd-source.h: PdSource, the one interface the UI reads sessions through.
 *
 * A local session database (PdLocalSource) and a remote `serve` endpoint
 * (PdRemoteSource, ours or odek's) look the same to a widget: every call is
 * _async/_finish on a GTask, results come back on the caller's main context,
 * and a widget cancels what it no longer needs in dispose.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "pd-checklist.h"
#include "pd-imported-session.h"
#include "pd-plan-state.h"
#include "pd-session-info.h"

G_BEGIN_DECLS

#define PD_SOURCE_ERROR (pd_source_error_quark ())

typedef enum
{
  PD_SOURCE_ERROR_NOT_FOUND,     /* no such session */
  PD_SOURCE_ERROR_UNAVAILABLE,   /* the database or endpoint cannot be reached */
  PD_SOURCE_ERROR_DENIED,        /* 401/403: a token is missing or wrong */
  PD_SOURCE_ERROR_RATE_LIMITED,  /* 429 */
  PD_SOURCE_ERROR_INVALID,       /* a reply that could not be understood */
  PD_SOURCE_ERROR_READ_ONLY,     /* the source cannot change this */
  PD_SOURCE_ERROR_UNSUPPORTED,   /* the endpoint lacks this feature (runs, approvals) */
} PdSourceError;

GQuark pd_source_error_quark (void);

/* One page of a session listing. */
#define PD_TYPE_SESSION_PAGE (pd_session_page_get_type ())

typedef struct
{
  GPtrArray *sessions;   /* (element-type PdSessionInfo) */
  guint      total;      /* all matches, for paging */
} PdSessionPage;

GType          pd_session_page_get_type (void) G_GNUC_CONST;
PdSessionPage *pd_session_page_new      (GPtrArray           *sessions,
                                         guint                total);
PdSessionPage *pd_session_page_copy     (const PdSessionPage *self);
void           pd_session_page_free     (PdSessionPage       *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdSessionPage, pd_session_page_free)

/* How to continue a session imported from another agent in that agent. */
#define PD_TYPE_RESUME_COMMAND (pd_resume_command_get_type ())

typedef struct
{
  GStrv  argv;      /* e.g. {"claude", "--resume", ID}: run as is, never through a shell;
                     * NULL for an editor extension's task (see @source) */
  char  *workdir;   /* (nullable) the session's folder, to run it in */
  char  *source;    /* (nullable) with no argv, the extension ("cline", "roo", "kilo") whose
                     * task history in the editor continues the task: it has no command */
} PdResumeCommand;

GType            pd_resume_command_get_type (void) G_GNUC_CONST;
PdResumeCommand *pd_resume_command_new      (GStrv                  argv,
                                             const char            *workdir);
PdResumeCommand *pd_resume_command_new_in_editor (const char         *source,
                                                  const char         *workdir);
PdResumeCommand *pd_resume_command_copy     (const PdResumeCommand *self);
void             pd_resume_command_free     (PdResumeCommand       *self);
/* The command as one line to paste into a shell, each word quoted. */
char            *pd_resume_command_to_string (const PdResumeCommand *self);
/* Why a command has no line to paste (see pd_resume_command_to_paste()). */
typedef enum
{
  PD_RESUME_PASTE_OK,
  PD_RESUME_PASTE_CONTROL,   /* a control character: a terminal takes it as a key */
  PD_RESUME_PASTE_QUOTE,     /* a ' or \: fish reads them inside single quotes */
} PdResumePaste;

char            *pd_resume_command_to_paste  (const PdResumeCommand *self);
PdResumePaste    pd_resume_command_check_paste (const PdResumeCommand *self);
const char      *pd_resume_command_get_source (const PdResumeCommand *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdResumeCommand, pd_resume_command_free)

/* What reading other agents' transcripts into a source found. */
typedef struct
{
  guint transcripts;       /* transcript files (or OpenCode stores) found */
  guint sessions_added;
  guint sessions_updated;
  guint unchanged;         /* same size and mtime as at the last read: not read again */
  guint failed;            /* transcripts that could not be read (gone, unreadable, damaged) */
  guint skipped;           /* files passed over, the failed ones too: a FIFO, a symbolic link,
                            * a file of no known agent; `plandeck-agent import` names each */
  guint sessions_unchanged; /* the sessions of the unchanged transcripts: an OpenCode store holds
                             * several (the toast counted it as one) */
} PdImportCounts;

#define PD_TYPE_SOURCE (pd_source_get_type ())

G_DECLARE_INTERFACE (PdSource, pd_source, PD, SOURCE, GObject)

/* A source returns each value on the GTask its _async made: then it may
 * leave the matching _finish NULL, and the task's value is taken (the plan
 * read as a PdPlanState; a successful update or delete emits ::changed).
 * get_checklist_finish is the source's own. */
struct _PdSourceInterface
{
  GTypeInterface parent_iface;

  const char     *(*get_title)            (PdSource *self);
  const char     *(*get_kind)             (PdSource *self);

  void            (*list_sessions_async)  (PdSource *self, const char *query, gboolean full_text,
                                           guint offset, guint limit, GCancellable *cancellable,
                                           GAsyncReadyCallback callback, gpointer user_data);
  PdSessionPage  *(*list_sessions_finish) (PdSource *self, GAsyncResult *result, GError **error);

  void            (*get_session_async)    (PdSource *self, const char *id, GCancellable *cancellable,
                                           GAsyncReadyCallback callback, gpointer user_data);
  PdSessionInfo  *(*get_session_finish)   (PdSource *self, GAsyncResult *result, GError **error);

  void            (*get_plan_async)       (PdSource *self, const char *id, GCancellable *cancellable,
                                           GAsyncReadyCallback callback, gpointer user_data);
  gboolean        (*get_plan_finish)      (PdSource *self, GAsyncResult *result, PdPlanState **plan,
                                           GError **error);

  void            (*get_plan_history_async)  (PdSource *self, const char *id, GCancellable *cancellable,
                                              GAsyncReadyCallback callback, gpointer user_data);
  GPtrArray      *(*get_plan_history_finish) (PdSource *self, GAsyncResult *result, GError **error);

  void            (*get_messages_async)   (PdSource *self, const char *id, GCancellable *cancellable,
                                           GAsyncReadyCallback callback, gpointer user_data);
  JsonArray      *(*get_messages_finish)  (PdSource *self, GAsyncResult *result, GError **error);

  void            (*get_events_async)     (PdSource *self, const char *session_id, gint64 after_seq,
                                           guint limit, GCancellable *cancellable,
                                           GAsyncReadyCallback callback, gpointer user_data);
  GPtrArray      *(*get_events_finish)    (PdSource *self, GAsyncResult *result, GError **error);

  void            (*get_usage_async)      (PdSource *self, GCancellable *cancellable,
                                           GAsyncReadyCallback callback, gpointer user_data);
  JsonObject     *(*get_usage_finish)     (PdSource *self, GAsyncResult *result, GError **error);

  void            (*update_session_async) (PdSource *self, const char *id, const char *name,
                                           int pinned, GCancellable *cancellable,
                                           GAsyncReadyCallback callback, gpointer user_data);
  gboolean        (*update_session_finish) (PdSource *self, GAsyncResult *result, GError **error);

  void            (*delete_session_async) (PdSource *self, const char *id, GCancellable *cancellable,
                                           GAsyncReadyCallback callback, gpointer user_data);
  gboolean        (*delete_session_finish) (PdSource *self, GAsyncResult *result, GError **error);

  void            (*get_checklist_async)  (PdSource *self, const char *session_id, GCancellable *cancellable,
                                           GAsyncReadyCallback callback, gpointer user_data);
  PdChecklist    *(*get_checklist_finish) (PdSource *self, GAsyncResult *result, GPtrArray **plans,
                                           GError **error);

  void            (*save_checklist_async) (PdSource *self, const char *session_id, PdChecklist *checklist,
                                           GCancellable *cancellable, GAsyncReadyCallback callback,
                                           gpointer user_data);
  gboolean        (*save_checklist_finish) (PdSource *self, GAsyncResult *result, GError **error);

  /* Optional: a source without them continues no session elsewhere. */
  void            (*get_resume_command_async)  (PdSource *self, const char *session_id, GCancellable *cancellable,
                                                GAsyncReadyCallback callback, gpointer user_data);
  PdResumeCommand *(*get_resume_command_finish) (PdSource *self, GAsyncResult *result, GError **error);

  /* Optional: a source without them reads no other agents' transcripts. */
  void            (*import_transcripts_async)  (PdSource *self, GCancellable *cancellable,
                                                GAsyncReadyCallback callback, gpointer user_data);
  gboolean        (*import_transcripts_finish) (PdSource *self, GAsyncResult *result,
                                                PdImportCounts *counts, GError **error);

  /* Optional: a source without them reads a session's messages whole. */
  void            (*get_messages_part_async)   (PdSource *self, const char *id, gint64 before,
                                                GCancellable *cancellable, GAsyncReadyCallback callback,
                                                gpointer user_data);
  JsonArray      *(*get_messages_part_finish)  (PdSource *self, GAsyncResult *result, guint64 *first,
                                                guint64 *total, GError **error);

  /* Optional: a source without them reads the newest part each time. */
  void            (*get_messages_since_async)  (PdSource *self, const char *id, guint64 from, guint64 lineage,
                                                GCancellable *cancellable, GAsyncReadyCallback callback,
                                                gpointer user_data);
  JsonArray      *(*get_messages_since_finish) (PdSource *self, GAsyncResult *result, guint64 *first,
                                                guint64 *total, guint64 *lineage, GError **error);

  /* Optional: a source without them is read forward to its end. */
  void            (*get_latest_events_async)   (PdSource *self, const char *session_id, gint64 before_seq,
                                                const char * const *types, guint limit,
                                                GCancellable *cancellable, GAsyncReadyCallback callback,
                                                gpointer user_data);
  GPtrArray      *(*get_latest_events_finish)  (PdSource *self, GAsyncResult *result, GError **error);
};

const char    *pd_source_get_title             (PdSource             *self);
const char    *pd_source_get_kind              (PdSource             *self);

void           pd_source_list_sessions_async   (PdSource             *self,
                                                const char           *query,
                                                gboolean              full_text,
                                                guint                 offset,
                                                guint                 limit,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
PdSessionPage *pd_source_list_sessions_finish  (PdSource             *self,
                                                GAsyncResult         *result,
                                                GError              **error);
void           pd_source_get_session_async     (PdSource             *self,
                                                const char           *id,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
PdSessionInfo *pd_source_get_session_finish    (PdSource             *self,
                                                GAsyncResult         *result,
                                                GError              **error);
void           pd_source_get_plan_async        (PdSource             *self,
                                                const char           *id,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
gboolean       pd_source_get_plan_finish       (PdSource             *self,
                                                GAsyncResult         *result,
                                                PdPlanState         **plan,
                                                GError              **error);
void           pd_source_get_plan_history_async  (PdSource           *self,
                                                  const char         *id,
                                                  GCancellable       *cancellable,
                                                  GAsyncReadyCallback callback,
                                                  gpointer            user_data);
GPtrArray     *pd_source_get_plan_history_finish (PdSource           *self,
                                                  GAsyncResult       *result,
                                                  GError            **error);
void           pd_source_get_messages_async    (PdSource             *self,
                                                const char           *id,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
JsonArray     *pd_source_get_messages_finish   (PdSource             *self,
                                                GAsyncResult         *result,
                                                GError              **error);
/* The Transcript page's read: a long session's newest messages (@before
 * -1), or those just before message @before; *@first is the index of the
 * first one returned, *@total how many the conversation has (a session
 * read whole: 0 and its length).  Reading stops when @cancellable is
 * cancelled. */
void           pd_source_get_messages_part_async  (PdSource           *self,
                                                   const char         *id,
                                                   gint64              before,
                                                   GCancellable       *cancellable,
                                                   GAsyncReadyCallback callback,
                                                   gpointer            user_data);
JsonArray     *pd_source_get_messages_part_finish (PdSource           *self,
                                                   GAsyncResult       *result,
                                                   guint64            *first,
                                                   guint64            *total,
                                                   GError            **error);
/* The Transcript page following a session that grows: the messages from
 * index @from on, when @lineage (0: none) is what the last reply said and
 * the source still reads on from those messages (an imported transcript
 * only appended to since); else what pd_source_get_messages_part_async()
 * gives of the newest part (*@first says where the reply starts).
 * *@lineage is the one to give next time (0: the source keeps none). */
void           pd_source_get_messages_since_async  (PdSource           *self,
                                                    const char         *id,
                                                    guint64             from,
                                                    guint64             lineage,
                                                    GCancellable       *cancellable,
                                                    GAsyncReadyCallback callback,
                                                    gpointer            user_data);
JsonArray     *pd_source_get_messages_since_finish (PdSource           *self,
                                                    GAsyncResult       *result,
                                                    guint64            *first,
                                                    guint64            *total,
                                                    guint64            *lineage,
                                                    GError            **error);
void           pd_source_get_events_async      (PdSource             *self,
                                                const char           *session_id,
                                                gint64                after_seq,
                                                guint                 limit,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
GPtrArray     *pd_source_get_events_finish     (PdSource             *self,
                                                GAsyncResult         *result,
                                                GError              **error);
/* The newest @limit events of a session before @before_seq (<= 0: the
 * newest), of @types only when not %NULL; oldest first. */
void           pd_source_get_latest_events_async  (PdSource           *self,
                                                   const char         *session_id,
                                                   gint64              before_seq,
                                                   const char * const *types,
                                                   guint               limit,
                                                   GCancellable       *cancellable,
                                                   GAsyncReadyCallback callback,
                                                   gpointer            user_data);
GPtrArray     *pd_source_get_latest_events_finish (PdSource           *self,
                                                   GAsyncResult       *result,
                                                   GError            **error);
void           pd_source_get_usage_async       (PdSource             *self,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
JsonObject    *pd_source_get_usage_finish      (PdSource             *self,
                                                GAsyncResult         *result,
                                                GError              **error);
void           pd_source_update_session_async  (PdSource             *self,
                                                const char           *id,
                                                const char           *name,
                                                int                   pinned,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
gboolean       pd_source_update_session_finish (PdSource             *self,
                                                GAsyncResult         *result,
                                                GError              **error);
void           pd_source_delete_session_async  (PdSource             *self,
                                                const char           *id,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
gboolean       pd_source_delete_session_finish (PdSource             *self,
                                                GAsyncResult         *result,
                                                GError              **error);
/* The checklist of a session imported from another agent (Claude Code,
 * Codex, OpenCode, Claude desktop), recomputed from its transcript with the
 * user's overrides and own items applied, and its plan documents.  A source
 * that does not serve them fails with PD_SOURCE_ERROR_READ_ONLY. */
void           pd_source_get_checklist_async   (PdSource             *self,
                                                const char           *session_id,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
PdChecklist   *pd_source_get_checklist_finish  (PdSource             *self,
                                                GAsyncResult         *result,
                                                GPtrArray           **plans,
                                                GError              **error);
/* Stores the user's overrides and own items of @checklist (a snapshot taken
 * when called), never the agent's text. */
void           pd_source_save_checklist_async  (PdSource             *self,
                                                const char           *session_id,
                                                PdChecklist          *checklist,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
gboolean       pd_source_save_checklist_finish (PdSource             *self,
                                                GAsyncResult         *result,
                                                GError              **error);

/* The command that continues a session imported from another agent in
 * that agent (claude --resume ID, codex resume ID, opencode --session ID),
 * for Copy and Open in Terminal.  NULL without an error when there is none:
 * one of Plandeck's own sessions, an id that cannot be passed safely, or a
 * source that does not say. */
void           pd_source_get_resume_command_async  (PdSource            *self,
                                                    const char          *session_id,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
PdResumeCommand *pd_source_get_resume_command_finish (PdSource          *self,
                                                      GAsyncResult      *result,
                                                      GError           **error);

/* Reads the transcripts other agents keep on this
 * computer into the source (counts and metadata: their plan text stays in
 * their files), in a worker thread.  A source that cannot fails with
 * PD_SOURCE_ERROR_UNSUPPORTED. */
void           pd_source_import_transcripts_async  (PdSource            *self,
                                                    GCancellable        *cancellable,
                                                    GAsyncReadyCallback  callback,
                                                    gpointer             user_data);
gboolean       pd_source_import_transcripts_finish (PdSource            *self,
                                                    GAsyncResult        *result,
                                                    PdImportCounts      *counts,
                                                    GError             **error);

void           pd_source_emit_changed          (PdSource             *self);

G_END_DECLS
