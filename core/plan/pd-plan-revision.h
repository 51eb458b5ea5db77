/* pd-plan-revision.h: why the plan last changed shape.
 *
 * Only the latest revision is kept; the transcript keeps the older revise
 * calls.  It is rendered as `[Plan revision: {"reason":…,"summary":[…]}]`.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define PD_TYPE_PLAN_REVISION (pd_plan_revision_get_type ())

typedef struct
{
  char      *reason;
  GPtrArray *summary;  /* (element-type utf8), at most 8 items */
} PdPlanRevision;

GType           pd_plan_revision_get_type (void) G_GNUC_CONST;
PdPlanRevision *pd_plan_revision_new      (const char           *reason);
PdPlanRevision *pd_plan_revision_copy     (const PdPlanRevision *self);
void            pd_plan_revision_free     (PdPlanRevision       *self);
void            pd_plan_revision_add      (PdPlanRevision       *self,
                                           const char           *item);
gboolean        pd_plan_revision_equal    (const PdPlanRevision *a,
                                           const PdPlanRevision *b);
void            pd_plan_revision_append_json (const PdPlanRevision *self,
                                              GString              *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdPlanRevision, pd_plan_revision_free)

G_END_DECLS
