/* pd-session-export-private.h: the pieces of a session's export shared by
 * pd-session-export.c (read through the window's PdSource, written whole)
 * and pd-session-export-stream.c (a session of this computer's database,
 * written as it is read).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-local-source.h"
#include "pd-session-export.h"

G_BEGIN_DECLS

typedef struct
{
  PdSource              *source;
  char                  *session_id;
  PdSessionExportFormat  format;
  GFile                  *file;
  PdSessionInfo         *info;
  JsonArray             *messages;
  GPtrArray             *versions;
  GPtrArray             *events;     /* (element-type PdStoredEvent) an endpoint's, read in pages */
  /* Written as read: the session's own database and its id there. */
  PdLocalSource         *local;
  char                  *local_id;
  /* Another agent's checklist as the user sees it (nullable). */
  char                  *checklist_json;
} ExportData;

/* The Markdown up to the transcript: the facts, the task, the plan of
 * @newest (nullable) or, of another agent's session, its checklist as the
 * user sees it (@checklist_json, pd_session_reads_get_checklist_json()'s),
 * and the transcript's heading. */
void      _pd_session_export_markdown_head    (GString                 *out,
                                               const PdSessionInfo     *info,
                                               const PdPlanVersionInfo *newest,
                                               const char              *checklist_json);
/* That checklist's section, headed as version @version (else its own):
 * each item with its status, the user's ticks and own items said as the
 * user's (pd-session-export-checklist.c). */
void      _pd_session_export_markdown_checklist (GString               *out,
                                                 const char            *checklist_json,
                                                 gint64                 version);
/* @text as Markdown inline text, every control and invisible named. */
char     *_pd_session_export_inline_text      (const char              *text);
/* One message of the transcript in Markdown. */
void      _pd_session_export_markdown_message (GString                 *out,
                                               JsonObject              *message);
/* One event of the session's timeline in Markdown, after the "Events"
 * heading when @first. */
void      _pd_session_export_markdown_event   (GString                 *out,
                                               const PdStoredEvent     *event,
                                               gboolean                 first);
/* Whether @file may be written (a regular file or none), and its mode
 * when it exists (*@existed). */
gboolean  _pd_session_export_check_target     (GFile                   *file,
                                               gboolean                *existed,
                                               guint                   *mode,
                                               GError                 **error);
/* The local source that holds @session_id of @source (itself or, for the
 * window's sources together, the one it routes to), and its id there;
 * NULL for an endpoint's session. */
PdLocalSource *_pd_session_export_local_source (PdSource              *source,
                                                const char            *session_id,
                                                char                 **local_id);
/* In a worker thread: @task's session (ExportData with a local source)
 * written to its file as it is read. */
void      _pd_session_export_stream_thread    (GTask                   *task,
                                               gpointer                 source_object,
                                               gpointer                 task_data,
                                               GCancellable            *cancellable);

G_END_DECLS
