/* pd-plan-step.h: one ordered step of a plan.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

#include "pd-plan-check.h"
#include "pd-plan-enums.h"

G_BEGIN_DECLS

#define PD_TYPE_PLAN_STEP (pd_plan_step_get_type ())

typedef struct
{
  char             *id;
  char             *title;
  PdPlanStepStatus  status;
  char             *note;    /* never NULL; "" when there is none */
  GPtrArray        *checks;  /* (element-type PdPlanCheck), never NULL, at most 4 */
} PdPlanStep;

GType       pd_plan_step_get_type (void) G_GNUC_CONST;
PdPlanStep *pd_plan_step_new      (const char       *id,
                                   const char       *title);
PdPlanStep *pd_plan_step_copy     (const PdPlanStep *self);
void        pd_plan_step_free     (PdPlanStep       *self);
gboolean    pd_plan_step_equal    (const PdPlanStep *a,
                                   const PdPlanStep *b);
gboolean    pd_plan_step_has_checks (const PdPlanStep *self);
gboolean    pd_plan_step_checks_allow_done (const PdPlanStep *self);
PdPlanCheck *pd_plan_step_find_check (const PdPlanStep *self,
                                      const char       *check_id);
void        pd_plan_step_set_note (PdPlanStep       *self,
                                   const char       *note);
void        pd_plan_step_append_json (const PdPlanStep *self,
                                      GString          *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdPlanStep, pd_plan_step_free)

G_END_DECLS
