/* pd-session-list-model.h: the listed sessions, merged by id on each refresh
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "pd-session-item.h"

G_BEGIN_DECLS

#define PD_TYPE_SESSION_LIST_MODEL (pd_session_list_model_get_type ())

G_DECLARE_FINAL_TYPE (PdSessionListModel, pd_session_list_model, PD, SESSION_LIST_MODEL, GObject)

PdSessionListModel *pd_session_list_model_new          (void);
void                pd_session_list_model_merge        (PdSessionListModel *self,
                                                        GPtrArray          *sessions,
                                                        GDateTime          *now);
gboolean            pd_session_list_model_merge_range (PdSessionListModel *self,
                                                       guint               position,
                                                       GPtrArray          *sessions,
                                                       gboolean            last,
                                                       GDateTime          *now);
PdSessionItem      *pd_session_list_model_find         (PdSessionListModel *self,
                                                        const char         *id,
                                                        guint              *position);
void                pd_session_list_model_update_times (PdSessionListModel *self,
                                                        GDateTime          *now);

G_END_DECLS
