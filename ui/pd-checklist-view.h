/* pd-checklist-view.h: the checklist of a session imported from another
 * agent (Claude Code, Codex, OpenCode, Qwen Code, Gemini CLI, Cline, Roo, Kilo)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "pd-session-view.h"

G_BEGIN_DECLS

#define PD_TYPE_CHECKLIST_VIEW (pd_checklist_view_get_type ())

G_DECLARE_FINAL_TYPE (PdChecklistView, pd_checklist_view, PD, CHECKLIST_VIEW, PdSessionView)

GtkWidget   *pd_checklist_view_new            (void);
void         pd_checklist_view_refresh        (PdChecklistView *self);
PdChecklist *pd_checklist_view_get_checklist  (PdChecklistView *self);
gboolean     pd_checklist_view_is_busy        (PdChecklistView *self);
void         pd_checklist_view_set_title      (PdChecklistView *self,
                                               const char      *title);

G_END_DECLS
