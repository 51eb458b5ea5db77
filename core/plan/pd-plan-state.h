/* pd-plan-state.h: the whole plan: version, ordered steps, latest revision.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

#include "pd-plan-revision.h"
#include "pd-plan-step.h"

G_BEGIN_DECLS

#define PD_TYPE_PLAN_STATE (pd_plan_state_get_type ())

typedef struct
{
  gint64          version;   /* bumps on every effective mutation; 0 before the first */
  GPtrArray      *steps;     /* (element-type PdPlanStep), never NULL */
  PdPlanRevision *revision;  /* (nullable) */
  guint           n_hidden;  /* steps of another program's plan not kept (an
                              * endpoint's past PD_REMOTE_PLAN_MAX_STEPS); 0 for ours */
} PdPlanState;

typedef struct
{
  guint steps;
  guint done;
  guint in_progress;
  guint blocked;
  guint pending;
  guint checks;
} PdPlanCounts;

GType        pd_plan_state_get_type   (void) G_GNUC_CONST;
PdPlanState *pd_plan_state_new        (void);
PdPlanState *pd_plan_state_copy       (const PdPlanState *self);
void         pd_plan_state_free       (PdPlanState       *self);
gboolean     pd_plan_state_same_content (const PdPlanState *a,
                                         const PdPlanState *b);
void         pd_plan_state_count      (const PdPlanState *self,
                                       PdPlanCounts      *counts);
gboolean     pd_plan_state_has_checks (const PdPlanState *self);
guint        pd_plan_state_count_unpassed_checks (const PdPlanState *self);
const char  *pd_plan_state_current_step_title    (const PdPlanState *self);
gboolean     pd_plan_state_current_step_started  (const PdPlanState *self);
const char  *pd_plan_state_failed_check_name     (const PdPlanState *self);
PdPlanStep  *pd_plan_state_find_step  (const PdPlanState *self,
                                       const char        *id,
                                       guint             *index);
gboolean     pd_plan_state_is_empty   (const PdPlanState *self);
char        *pd_plan_state_to_json    (const PdPlanState *self);
PdPlanState *pd_plan_state_new_from_json (const char     *json,
                                          GError        **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdPlanState, pd_plan_state_free)

G_END_DECLS
