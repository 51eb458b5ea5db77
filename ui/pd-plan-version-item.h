/* pd-plan-version-item.h: one stored plan version, as the history lists it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-plan.h"

G_BEGIN_DECLS

#define PD_TYPE_PLAN_VERSION_ITEM (pd_plan_version_item_get_type ())

G_DECLARE_FINAL_TYPE (PdPlanVersionItem, pd_plan_version_item, PD, PLAN_VERSION_ITEM, GObject)

PdPlanVersionItem *pd_plan_version_item_new            (gint64             version,
                                                        gint64             created_at,
                                                        const char        *state_json);
gint64             pd_plan_version_item_get_version    (PdPlanVersionItem *self);
gint64             pd_plan_version_item_get_created_at (PdPlanVersionItem *self);
const char        *pd_plan_version_item_get_state_json (PdPlanVersionItem *self);
const PdPlanState *pd_plan_version_item_get_state      (PdPlanVersionItem *self);
const char        *pd_plan_version_item_get_label      (PdPlanVersionItem *self);
guint              pd_plan_version_item_get_n_cancelled (PdPlanVersionItem *self);

/* What a history of many versions lists: the newest this many
 * (PD_TRANSCRIPT_PAGES_HISTORY_MAX of another agent's transcript). */
#define PD_PLAN_VERSION_ITEM_HISTORY_MAX 1000
char              *pd_plan_version_item_describe_gaps  (GListModel        *versions);
char              *pd_plan_version_item_describe_older (GListModel        *versions);

G_END_DECLS
