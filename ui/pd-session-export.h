/* pd-session-export.h: a session written out as Markdown or JSON
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "pd-source.h"

G_BEGIN_DECLS

typedef enum
{
  PD_SESSION_EXPORT_MARKDOWN,
  PD_SESSION_EXPORT_JSON,
} PdSessionExportFormat;

char     *pd_session_export_markdown    (const PdSessionInfo   *info,
                                         JsonArray             *messages,
                                         GPtrArray             *versions,
                                         GPtrArray             *events);
char     *pd_session_export_json        (const PdSessionInfo   *info,
                                         JsonArray             *messages,
                                         GPtrArray             *versions,
                                         GPtrArray             *events);

void      pd_session_export_async       (PdSource              *source,
                                         const char            *session_id,
                                         PdSessionExportFormat  format,
                                         GFile                 *file,
                                         GCancellable          *cancellable,
                                         GAsyncReadyCallback    callback,
                                         gpointer               user_data);
gboolean  pd_session_export_finish      (GAsyncResult          *result,
                                         GError               **error);
gboolean  pd_session_export_when_done   (PdSource              *source,
                                         const char            *session_id,
                                         GSourceFunc            func,
                                         gpointer               data);

void      pd_session_export_choose      (GtkWindow             *parent,
                                         AdwToastOverlay       *toasts,
                                         PdSource              *source,
                                         const char            *session_id,
                                         const char            *title,
                                         PdSessionExportFormat  format);

G_END_DECLS
