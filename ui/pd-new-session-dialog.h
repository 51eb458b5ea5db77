/* pd-new-session-dialog.h: what a new run needs to know
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "pd-run-controller.h"

G_BEGIN_DECLS

#define PD_TYPE_NEW_SESSION_DIALOG (pd_new_session_dialog_get_type ())

G_DECLARE_FINAL_TYPE (PdNewSessionDialog, pd_new_session_dialog, PD, NEW_SESSION_DIALOG, AdwWindow)

PdNewSessionDialog *pd_new_session_dialog_new            (GtkWindow          *parent);
PdRunSettings      *pd_new_session_dialog_dup_settings   (PdNewSessionDialog *self);
char               *pd_new_session_dialog_dup_message    (PdNewSessionDialog *self);
void                pd_new_session_dialog_set_task       (PdNewSessionDialog *self,
                                                          const char         *task);
void                pd_new_session_dialog_set_folder     (PdNewSessionDialog *self,
                                                          const char         *folder);
gboolean            pd_new_session_dialog_activate_start (PdNewSessionDialog *self);
void                pd_new_session_dialog_set_endpoint   (PdNewSessionDialog *self,
                                                          const char         *endpoint);

G_END_DECLS
