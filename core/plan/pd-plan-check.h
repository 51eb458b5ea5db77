/* pd-plan-check.h: an acceptance check declared on a plan step.
 *
 * A check is an evidence requirement, never a command: it names the exact
 * tool and canonical arguments of a call the model must make itself.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

#include "pd-plan-enums.h"

G_BEGIN_DECLS

#define PD_TYPE_PLAN_CHECK (pd_plan_check_get_type ())

typedef struct
{
  char              *id;
  char              *description;
  char              *tool;
  char              *arguments;      /* canonical JSON object text */
  PdPlanCheckStatus  status;
  char              *call_id;        /* the call that produced the evidence, or NULL */
  /* The tool batch in which the check was declared; only calls of a later
   * batch may satisfy it.  0 means "before anything this store has seen"
   * (restored checks). */
  guint64            declared_batch;
} PdPlanCheck;

GType        pd_plan_check_get_type (void) G_GNUC_CONST;
PdPlanCheck *pd_plan_check_new      (const char        *id,
                                     const char        *description,
                                     const char        *tool,
                                     const char        *arguments);
PdPlanCheck *pd_plan_check_copy     (const PdPlanCheck *self);
void         pd_plan_check_free     (PdPlanCheck       *self);
gboolean     pd_plan_check_same_requirement (const PdPlanCheck *a,
                                             const PdPlanCheck *b);
gboolean     pd_plan_check_equal    (const PdPlanCheck *a,
                                     const PdPlanCheck *b);
void         pd_plan_check_reset_evidence (PdPlanCheck *self);
void         pd_plan_check_append_json (const PdPlanCheck *self,
                                        GString           *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdPlanCheck, pd_plan_check_free)

G_END_DECLS
