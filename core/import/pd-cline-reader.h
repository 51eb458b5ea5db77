/* pd-cline-reader.h: tasks of Cline, Roo Code and Kilo Code (VS Code
 * extensions).
 *
 * Each extension keeps a folder per task in the editor's global storage,
 * <globalStorage>/<extension id>/tasks/<task id>/, whose ui_messages.json is
 * the task as the extension shows it: a JSON array of {ts, type: say | ask,
 * say | ask, text}, rewritten whole on every change (each update reads it
 * whole again; one caught half-written keeps what was read).
 *
 * The plan, always the full list:
 *  - Cline: {say: "task_progress", text: "- [ ] step\n- [x] step"};
 *  - Roo Code and Kilo Code: {ask: "tool", text: "{\"tool\":
 *    \"updateTodoList\", \"todos\": [{id, content, status}]}"} with the
 *    markdown marks [ ], [-], [x] as pending, in_progress, completed.  Roo's
 *    id is a hash of content and status, so it changes with the status:
 *    items are matched by their text, never by that id.
 *
 * The extension is told by its folder (saoudrizwan.claude-dev,
 * rooveterinaryinc.roo-cline, kilocode.kilo-code), else by the content.
 * Cline's own index, state/taskHistory.json, gives the task's folder.
 * These tasks are continued from the extension's task history in the
 * editor: there is no command line to resume them
 * (pd_transcript_reader_dup_resume_argv() gives NULL).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "pd-imported-session.h"
#include "pd-transcript-reader.h"

G_BEGIN_DECLS

#define PD_TYPE_CLINE_READER (pd_cline_reader_get_type ())
G_DECLARE_FINAL_TYPE (PdClineReader, pd_cline_reader, PD, CLINE_READER, GObject)

/* @path: a task's ui_messages.json. */
PdClineReader     *pd_cline_reader_new  (const char  *path);

PdImportedSession *pd_cline_read        (const char  *path,
                                         GError     **error);

/* The items of a markdown checklist ("- [ ] text" lines; [x] done, [-] or
 * [~] in progress); NULL when it has none.  For Cline's task_progress. */
GPtrArray         *pd_cline_parse_checklist (const char *markdown);
/* The same, keeping at most PD_IMPORT_MAX_ITEMS items; those past it are
 * counted in *@n_hidden (nullable), not built. */
GPtrArray         *pd_cline_parse_checklist_cut (const char *markdown,
                                                 guint      *n_hidden);

G_END_DECLS
