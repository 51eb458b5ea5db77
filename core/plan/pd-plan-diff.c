/* pd-plan-diff.c: what changed between two versions of a plan.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-plan"

#include "config.h"

#include "pd-plan-diff.h"

static PdPlanDiffEntry *
entry_new (PdPlanDiffKind  kind,
           const char     *step_id,
           const char     *check_id,
           const char     *old_value,
           const char     *new_value)
{
  PdPlanDiffEntry *entry = g_new0 (PdPlanDiffEntry, 1);

  entry->kind = kind;
  entry->step_id = g_strdup (step_id);
  entry->check_id = g_strdup (check_id);
  entry->old_value = g_strdup (old_value);
  entry->new_value = g_strdup (new_value);

  return entry;
}

static PdPlanDiffEntry *
entry_copy (const PdPlanDiffEntry *entry)
{
  PdPlanDiffEntry *copy = entry_new (entry->kind, entry->step_id, entry->check_id,
                                     entry->old_value, entry->new_value);

  copy->old_detail = g_strdup (entry->old_detail);
  copy->new_detail = g_strdup (entry->new_detail);

  return copy;
}

static void
entry_free (PdPlanDiffEntry *entry)
{
  g_free (entry->step_id);
  g_free (entry->check_id);
  g_free (entry->old_value);
  g_free (entry->new_value);
  g_free (entry->old_detail);
  g_free (entry->new_detail);
  g_free (entry);
}

G_DEFINE_BOXED_TYPE (PdPlanDiff, pd_plan_diff, pd_plan_diff_copy, pd_plan_diff_free)

static PdPlanDiff *
diff_alloc (void)
{
  PdPlanDiff *self = g_new0 (PdPlanDiff, 1);

  self->entries = g_ptr_array_new_with_free_func ((GDestroyNotify) entry_free);

  return self;
}

PdPlanDiff *
pd_plan_diff_copy (const PdPlanDiff *self)
{
  PdPlanDiff *copy = diff_alloc ();

  copy->old_version = self->old_version;
  copy->new_version = self->new_version;
  for (guint i = 0; i < self->entries->len; i++)
    g_ptr_array_add (copy->entries, entry_copy (g_ptr_array_index (self->entries, i)));

  return copy;
}

void
pd_plan_diff_free (PdPlanDiff *self)
{
  if (self == NULL)
    return;

  g_ptr_array_unref (self->entries);
  g_free (self);
}

static char *
requirement_text (const PdPlanCheck *check)
{
  return g_strdup_printf ("%s %s", check->tool ? check->tool : "",
                          check->arguments ? check->arguments : "{}");
}

static void
diff_checks (PdPlanDiff       *self,
             const PdPlanStep *old_step,
             const PdPlanStep *new_step)
{
  for (guint i = 0; i < old_step->checks->len; i++)
    {
      const PdPlanCheck *old_check = g_ptr_array_index (old_step->checks, i);

      if (pd_plan_step_find_check (new_step, old_check->id) == NULL)
        {
          PdPlanDiffEntry *entry = entry_new (PD_PLAN_DIFF_CHECK_REMOVED, new_step->id, old_check->id,
                                              pd_plan_check_status_to_string (old_check->status),
                                              NULL);

          entry->old_detail = g_strdup (old_check->description);
          g_ptr_array_add (self->entries, entry);
        }
    }

  for (guint i = 0; i < new_step->checks->len; i++)
    {
      const PdPlanCheck *new_check = g_ptr_array_index (new_step->checks, i);
      const PdPlanCheck *old_check = pd_plan_step_find_check (old_step, new_check->id);
      PdPlanDiffEntry *entry;

      if (old_check == NULL)
        {
          entry = entry_new (PD_PLAN_DIFF_CHECK_ADDED, new_step->id, new_check->id, NULL,
                             pd_plan_check_status_to_string (new_check->status));
          entry->new_detail = g_strdup (new_check->description);
          g_ptr_array_add (self->entries, entry);
          continue;
        }

      if (!pd_plan_check_same_requirement (old_check, new_check))
        {
          g_autofree char *old_req = requirement_text (old_check);
          g_autofree char *new_req = requirement_text (new_check);

          entry = entry_new (PD_PLAN_DIFF_CHECK_REQUIREMENT, new_step->id, new_check->id,
                             old_req, new_req);
          entry->old_detail = g_strdup (old_check->description);
          entry->new_detail = g_strdup (new_check->description);
          g_ptr_array_add (self->entries, entry);
        }

      if (old_check->status != new_check->status ||
          g_strcmp0 (old_check->call_id, new_check->call_id) != 0)
        {
          entry = entry_new (PD_PLAN_DIFF_CHECK_EVIDENCE, new_step->id, new_check->id,
                             pd_plan_check_status_to_string (old_check->status),
                             pd_plan_check_status_to_string (new_check->status));
          entry->old_detail = g_strdup (old_check->call_id);
          entry->new_detail = g_strdup (new_check->call_id);
          g_ptr_array_add (self->entries, entry);
        }
    }
}

static char *
revision_summary (const PdPlanRevision *revision)
{
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 0; i < revision->summary->len; i++)
    {
      if (i > 0)
        g_string_append (out, "; ");
      g_string_append (out, g_ptr_array_index (revision->summary, i));
    }

  return g_string_free (g_steal_pointer (&out), FALSE);
}

/**
 * pd_plan_diff_new:
 * @old_state: (nullable): the earlier plan, or %NULL when there was none
 * @new_state: the later plan
 *
 * Returns: (transfer full): the changes from @old_state to @new_state
 */
PdPlanDiff *
pd_plan_diff_new (const PdPlanState *old_state,
                  const PdPlanState *new_state)
{
  g_autoptr(PdPlanState) empty = NULL;
  PdPlanDiff *self;

  g_return_val_if_fail (new_state != NULL, NULL);

  if (old_state == NULL)
    old_state = empty = pd_plan_state_new ();

  self = diff_alloc ();
  self->old_version = old_state->version;
  self->new_version = new_state->version;

  for (guint i = 0; i < old_state->steps->len; i++)
    {
      const PdPlanStep *old_step = g_ptr_array_index (old_state->steps, i);

      if (pd_plan_state_find_step (new_state, old_step->id, NULL) == NULL)
        g_ptr_array_add (self->entries, entry_new (PD_PLAN_DIFF_STEP_REMOVED, old_step->id, NULL,
                                                   old_step->title, NULL));
    }

  for (guint i = 0; i < new_state->steps->len; i++)
    {
      const PdPlanStep *new_step = g_ptr_array_index (new_state->steps, i);
      const PdPlanStep *old_step = pd_plan_state_find_step (old_state, new_step->id, NULL);

      if (old_step == NULL)
        {
          g_ptr_array_add (self->entries, entry_new (PD_PLAN_DIFF_STEP_ADDED, new_step->id, NULL,
                                                     NULL, new_step->title));
          continue;
        }

      if (g_strcmp0 (old_step->title, new_step->title) != 0)
        g_ptr_array_add (self->entries, entry_new (PD_PLAN_DIFF_STEP_TITLE, new_step->id, NULL,
                                                   old_step->title, new_step->title));
      if (old_step->status != new_step->status)
        g_ptr_array_add (self->entries,
                         entry_new (PD_PLAN_DIFF_STEP_STATUS, new_step->id, NULL,
                                    pd_plan_step_status_to_string (old_step->status),
                                    pd_plan_step_status_to_string (new_step->status)));
      if (g_strcmp0 (old_step->note, new_step->note) != 0)
        g_ptr_array_add (self->entries, entry_new (PD_PLAN_DIFF_STEP_NOTE, new_step->id, NULL,
                                                   old_step->note ? old_step->note : "",
                                                   new_step->note ? new_step->note : ""));
      diff_checks (self, old_step, new_step);
    }

  if (new_state->revision != NULL && !pd_plan_revision_equal (old_state->revision, new_state->revision))
    {
      PdPlanDiffEntry *entry = entry_new (PD_PLAN_DIFF_REVISION, NULL, NULL,
                                          old_state->revision ? old_state->revision->reason : NULL,
                                          new_state->revision->reason);

      entry->new_detail = revision_summary (new_state->revision);
      g_ptr_array_add (self->entries, entry);
    }

  return self;
}

gboolean
pd_plan_diff_is_empty (const PdPlanDiff *self)
{
  g_return_val_if_fail (self != NULL, TRUE);

  return self->entries->len == 0;
}

guint
pd_plan_diff_count (const PdPlanDiff *self,
                    PdPlanDiffKind    kind)
{
  guint n = 0;

  g_return_val_if_fail (self != NULL, 0);

  for (guint i = 0; i < self->entries->len; i++)
    if (((PdPlanDiffEntry *) g_ptr_array_index (self->entries, i))->kind == kind)
      n++;

  return n;
}

/**
 * pd_plan_diff_find:
 * @step_id: (nullable): the step, or %NULL for any
 * @check_id: (nullable): the check, or %NULL for any
 *
 * Returns: (nullable) (transfer none): the first entry of @kind that matches
 */
const PdPlanDiffEntry *
pd_plan_diff_find (const PdPlanDiff *self,
                   PdPlanDiffKind    kind,
                   const char       *step_id,
                   const char       *check_id)
{
  g_return_val_if_fail (self != NULL, NULL);

  for (guint i = 0; i < self->entries->len; i++)
    {
      const PdPlanDiffEntry *entry = g_ptr_array_index (self->entries, i);

      if (entry->kind == kind &&
          (step_id == NULL || g_strcmp0 (entry->step_id, step_id) == 0) &&
          (check_id == NULL || g_strcmp0 (entry->check_id, check_id) == 0))
        return entry;
    }

  return NULL;
}

const char *
pd_plan_diff_kind_to_string (PdPlanDiffKind kind)
{
  switch (kind)
    {
    case PD_PLAN_DIFF_STEP_ADDED:
      return "step_added";
    case PD_PLAN_DIFF_STEP_REMOVED:
      return "step_removed";
    case PD_PLAN_DIFF_STEP_TITLE:
      return "step_title";
    case PD_PLAN_DIFF_STEP_STATUS:
      return "step_status";
    case PD_PLAN_DIFF_STEP_NOTE:
      return "step_note";
    case PD_PLAN_DIFF_CHECK_ADDED:
      return "check_added";
    case PD_PLAN_DIFF_CHECK_REMOVED:
      return "check_removed";
    case PD_PLAN_DIFF_CHECK_REQUIREMENT:
      return "check_requirement";
    case PD_PLAN_DIFF_CHECK_EVIDENCE:
      return "check_evidence";
    case PD_PLAN_DIFF_REVISION:
      return "revision";
    default:
      return NULL;
    }
}
