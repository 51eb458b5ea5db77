/* pd-source-sidebar.h: the sidebar's list of a window's sources
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <adwaita.h>

#include "pd-multi-source.h"
#include "pd-source-list.h"

G_BEGIN_DECLS

#define PD_TYPE_SOURCE_SIDEBAR (pd_source_sidebar_get_type ())

G_DECLARE_FINAL_TYPE (PdSourceSidebar, pd_source_sidebar, PD, SOURCE_SIDEBAR, GtkWidget)

void        pd_source_sidebar_set_sources  (PdSourceSidebar *self,
                                            PdMultiSource   *multi);
PdSource   *pd_source_sidebar_get_selected (PdSourceSidebar *self);
void        pd_source_sidebar_select       (PdSourceSidebar *self,
                                            PdSource        *source);
char       *pd_source_sidebar_dup_state    (PdSourceSidebar *self,
                                            PdSource        *source,
                                            const char     **icon_name);

G_END_DECLS
