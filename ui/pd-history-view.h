/* pd-history-view.h: every version of a session's plan, and what changed
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "pd-session-view.h"

G_BEGIN_DECLS

#define PD_TYPE_HISTORY_VIEW (pd_history_view_get_type ())

G_DECLARE_FINAL_TYPE (PdHistoryView, pd_history_view, PD, HISTORY_VIEW, PdSessionView)

GtkWidget  *pd_history_view_new              (void);
gboolean    pd_history_view_get_narrow       (PdHistoryView *self);
void        pd_history_view_set_narrow       (PdHistoryView *self,
                                              gboolean       narrow);
void        pd_history_view_refresh          (PdHistoryView *self);
void        pd_history_view_set_run_stopped  (PdHistoryView *self,
                                              gboolean       run_stopped);
GListModel *pd_history_view_get_model        (PdHistoryView *self);
void        pd_history_view_set_title        (PdHistoryView *self,
                                              const char    *title);
gint64      pd_history_view_get_selected_version (PdHistoryView *self);
gboolean    pd_history_view_select_version   (PdHistoryView *self,
                                              gint64         version);

G_END_DECLS
