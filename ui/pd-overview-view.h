/* pd-overview-view.h: the Overview page, every active session at a glance
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gtk/gtk.h>

#include "pd-overview.h"

G_BEGIN_DECLS

#define PD_TYPE_OVERVIEW_VIEW (pd_overview_view_get_type ())

G_DECLARE_FINAL_TYPE (PdOverviewView, pd_overview_view, PD, OVERVIEW_VIEW, GtkWidget)

GtkWidget  *pd_overview_view_new          (void);
PdOverview *pd_overview_view_get_overview (PdOverviewView *self);
void        pd_overview_view_set_overview (PdOverviewView *self,
                                           PdOverview     *overview);
PdSource   *pd_overview_view_get_source   (PdOverviewView *self);
void        pd_overview_view_set_source   (PdOverviewView *self,
                                           PdSource       *source);
GListModel *pd_overview_view_get_shown    (PdOverviewView *self);
void        pd_overview_view_set_hidden   (PdOverviewView *self,
                                           PdSource       *source,
                                           const char     *id,
                                           gboolean        hidden);
gboolean    pd_overview_view_popup_card_menu (PdOverviewView *self,
                                              PdOverviewCard *card);
GtkWidget  *pd_overview_view_get_card_menu   (PdOverviewView *self);
gboolean    pd_overview_view_focus_first     (PdOverviewView *self);

G_END_DECLS
