/* pd-plan-diff.h: what changed between two versions of a plan.
 *
 * Steps are matched by id and checks by id within their step, so a step
 * that moved keeps its identity.  The entries come in a stable order:
 * removed steps (in the old order), then, for each step of the new plan in
 * its order, either "added" or the changes to it (title, status, note,
 * checks), then the revision.  Values are the plan's own tokens and text;
 * a surface formats them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

#include "pd-plan-state.h"

G_BEGIN_DECLS

typedef enum
{
  PD_PLAN_DIFF_STEP_ADDED,        /* new_value: title */
  PD_PLAN_DIFF_STEP_REMOVED,      /* old_value: title */
  PD_PLAN_DIFF_STEP_TITLE,        /* old/new_value: titles */
  PD_PLAN_DIFF_STEP_STATUS,       /* old/new_value: status tokens ("pending", …) */
  PD_PLAN_DIFF_STEP_NOTE,         /* old/new_value: notes, "" when none */
  PD_PLAN_DIFF_CHECK_ADDED,       /* new_value: status token, new_detail: description */
  PD_PLAN_DIFF_CHECK_REMOVED,     /* old_value: status token, old_detail: description */
  PD_PLAN_DIFF_CHECK_REQUIREMENT, /* old/new_value: "tool arguments", old/new_detail: description */
  PD_PLAN_DIFF_CHECK_EVIDENCE,    /* old/new_value: status tokens, old/new_detail: call ids or NULL */
  PD_PLAN_DIFF_REVISION,          /* old/new_value: reasons (nullable), new_detail: summary joined by "; " */
} PdPlanDiffKind;

typedef struct
{
  PdPlanDiffKind  kind;
  char           *step_id;     /* NULL for PD_PLAN_DIFF_REVISION */
  char           *check_id;    /* only for the CHECK kinds */
  char           *old_value;   /* (nullable) */
  char           *new_value;   /* (nullable) */
  char           *old_detail;  /* (nullable) */
  char           *new_detail;  /* (nullable) */
} PdPlanDiffEntry;

#define PD_TYPE_PLAN_DIFF (pd_plan_diff_get_type ())

typedef struct
{
  gint64     old_version;  /* 0 when there was no previous plan */
  gint64     new_version;
  GPtrArray *entries;      /* (element-type PdPlanDiffEntry), never NULL */
} PdPlanDiff;

GType            pd_plan_diff_get_type       (void) G_GNUC_CONST;
PdPlanDiff      *pd_plan_diff_new            (const PdPlanState *old_state,
                                              const PdPlanState *new_state);
PdPlanDiff      *pd_plan_diff_copy           (const PdPlanDiff  *self);
void             pd_plan_diff_free           (PdPlanDiff        *self);
gboolean         pd_plan_diff_is_empty       (const PdPlanDiff  *self);
guint            pd_plan_diff_count          (const PdPlanDiff  *self,
                                              PdPlanDiffKind     kind);
const PdPlanDiffEntry *pd_plan_diff_find     (const PdPlanDiff  *self,
                                              PdPlanDiffKind     kind,
                                              const char        *step_id,
                                              const char        *check_id);
const char      *pd_plan_diff_kind_to_string (PdPlanDiffKind     kind);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdPlanDiff, pd_plan_diff_free)

G_END_DECLS
