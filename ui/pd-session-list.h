/* pd-session-list.h: the sidebar's searchable list of sessions
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "pd-session-item.h"
#include "pd-session-list-model.h"
#include "pd-source.h"

G_BEGIN_DECLS

#define PD_TYPE_SESSION_LIST (pd_session_list_get_type ())

G_DECLARE_FINAL_TYPE (PdSessionList, pd_session_list, PD, SESSION_LIST, GtkWidget)

PdSource           *pd_session_list_get_source        (PdSessionList *self);
void                pd_session_list_set_source        (PdSessionList *self,
                                                       PdSource      *source);
PdSessionListModel *pd_session_list_get_model         (PdSessionList *self);
PdSessionItem      *pd_session_list_get_selected_item (PdSessionList *self);
gboolean            pd_session_list_select            (PdSessionList *self,
                                                       const char    *id);
void                pd_session_list_unselect          (PdSessionList *self);
gboolean            pd_session_list_get_autoselect    (PdSessionList *self);
void                pd_session_list_refresh           (PdSessionList *self);
void                pd_session_list_set_hidden        (PdSessionList *self,
                                                       const char    *id,
                                                       gboolean       hidden);
void                pd_session_list_set_query         (PdSessionList *self,
                                                       const char    *query,
                                                       gboolean       full_text);
const char         *pd_session_list_get_query         (PdSessionList *self);
void                pd_session_list_show_menu         (PdSessionList *self,
                                                       PdSessionItem *item);
void                pd_session_list_start_search      (PdSessionList *self);
void                pd_session_list_focus_session     (PdSessionList *self,
                                                       const char    *id);
void                pd_session_list_clear_search      (PdSessionList *self);
gboolean            pd_session_list_get_loaded        (PdSessionList *self);
guint               pd_session_list_get_generation    (PdSessionList *self);
gboolean            pd_session_list_get_busy          (PdSessionList *self);

void             pd_session_list_set_found_elsewhere (PdSessionList *self,
                                                      const char    *names);
const char      *pd_session_list_get_found_elsewhere (PdSessionList *self);
gboolean         pd_session_list_get_full_text (PdSessionList *self);
void             pd_session_list_set_note      (PdSessionList *self,
                                                const char    *note);

G_END_DECLS
