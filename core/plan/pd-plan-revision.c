/* pd-plan-revision.c: why the plan last changed shape.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-plan"

#include "config.h"

#include "pd-json.h"
#include "pd-plan-limits.h"
#include "pd-plan-revision.h"

G_DEFINE_BOXED_TYPE (PdPlanRevision, pd_plan_revision, pd_plan_revision_copy, pd_plan_revision_free)

PdPlanRevision *
pd_plan_revision_new (const char *reason)
{
  PdPlanRevision *self = g_new0 (PdPlanRevision, 1);

  self->reason = g_strdup (reason ? reason : "");
  self->summary = g_ptr_array_new_with_free_func (g_free);

  return self;
}

PdPlanRevision *
pd_plan_revision_copy (const PdPlanRevision *self)
{
  PdPlanRevision *copy = pd_plan_revision_new (self->reason);

  for (guint i = 0; i < self->summary->len; i++)
    g_ptr_array_add (copy->summary, g_strdup (g_ptr_array_index (self->summary, i)));

  return copy;
}

void
pd_plan_revision_free (PdPlanRevision *self)
{
  if (self == NULL)
    return;

  g_free (self->reason);
  g_ptr_array_unref (self->summary);
  g_free (self);
}

/* Summary items past the cap are folded into the last one, so the record
 * stays bounded without silently losing that more happened. */
void
pd_plan_revision_add (PdPlanRevision *self,
                      const char     *item)
{
  g_autofree char *bounded = NULL;

  if (g_utf8_strlen (item, -1) > PD_PLAN_MAX_REVISION_SUMMARY_ITEM)
    bounded = g_utf8_substring (item, 0, PD_PLAN_MAX_REVISION_SUMMARY_ITEM);
  else
    bounded = g_strdup (item);

  if (self->summary->len < PD_PLAN_MAX_REVISION_SUMMARY)
    g_ptr_array_add (self->summary, g_steal_pointer (&bounded));
}

gboolean
pd_plan_revision_equal (const PdPlanRevision *a,
                        const PdPlanRevision *b)
{
  if (a == NULL || b == NULL)
    return a == b;

  if (g_strcmp0 (a->reason, b->reason) != 0 || a->summary->len != b->summary->len)
    return FALSE;

  for (guint i = 0; i < a->summary->len; i++)
    if (g_strcmp0 (g_ptr_array_index (a->summary, i), g_ptr_array_index (b->summary, i)) != 0)
      return FALSE;

  return TRUE;
}

void
pd_plan_revision_append_json (const PdPlanRevision *self,
                              GString              *out)
{
  g_string_append (out, "{\"reason\":");
  pd_json_append_string (out, self->reason);
  g_string_append (out, ",\"summary\":[");
  for (guint i = 0; i < self->summary->len; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      pd_json_append_string (out, g_ptr_array_index (self->summary, i));
    }
  g_string_append (out, "]}");
}
