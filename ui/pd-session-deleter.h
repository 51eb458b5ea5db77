/* pd-session-deleter.h: Delete with Undo for a window's sessions
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "pd-session-list.h"

G_BEGIN_DECLS

#define PD_TYPE_SESSION_DELETER (pd_session_deleter_get_type ())

G_DECLARE_FINAL_TYPE (PdSessionDeleter, pd_session_deleter, PD, SESSION_DELETER, GObject)

PdSessionDeleter *pd_session_deleter_new    (AdwToastOverlay  *toasts,
                                             PdSessionList    *list);
void              pd_session_deleter_delete (PdSessionDeleter *self,
                                             PdSource         *source,
                                             PdSessionItem    *item);
void              pd_session_deleter_flush  (PdSessionDeleter *self);

G_END_DECLS
