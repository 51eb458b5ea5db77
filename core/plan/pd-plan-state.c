/* pd-plan-state.c: the whole plan: version, ordered steps, latest revision. */
#define G_LOG_DOMAIN "pd-plan"

#include "config.h"

#include <string.h>

#include "pd-json.h"
#include "pd-plan-state.h"

G_DEFINE_BOXED_TYPE (PdPlanState, pd_plan_state, pd_plan_state_copy, pd_plan_state_free)

PdPlanState *
pd_plan_state_new (void)
{
  PdPlanState *self = g_new0 (PdPlanState, 1);

  self->steps = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_plan_step_free);

  return self;
}

PdPlanState *
pd_plan_state_copy (const PdPlanState *self)
{
  PdPlanState *copy = pd_plan_state_new ();

  copy->version = self->version;
  for (guint i = 0; i < self->steps->len; i++)
    g_ptr_array_add (copy->steps, pd_plan_step_copy (g_ptr_array_index (self->steps, i)));
  if (self->revision)
    copy->revision = pd_plan_revision_copy (self->revision);

  return copy;
}

void
pd_plan_state_free (PdPlanState *self)
{
  if (self == NULL)
    return;

  g_ptr_array_unref (self->steps);
  g_clear_pointer (&self->revision, pd_plan_revision_free);
  g_free (self);
}

/* Equal steps and revision, whatever the version: a mutation that yields the
 * same content is a no-op. */
gboolean
pd_plan_state_same_content (const PdPlanState *a,
                            const PdPlanState *b)
{
  if (a->steps->len != b->steps->len)
    return FALSE;

  for (guint i = 0; i < a->steps->len; i++)
    if (!pd_plan_step_equal (g_ptr_array_index (a->steps, i), g_ptr_array_index (b->steps, i)))
      return FALSE;

  return pd_plan_revision_equal (a->revision, b->revision);
}

void
pd_plan_state_count (const PdPlanState *self,
                     PdPlanCounts      *counts)
{
  memset (counts, 0, sizeof *counts);
  counts->steps = self->steps->len;

  for (guint i = 0; i < self->steps->len; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (self->steps, i);

      switch (step->status)
        {
        case PD_PLAN_STEP_DONE: counts->done++; break;
        case PD_PLAN_STEP_IN_PROGRESS: counts->in_progress++; break;
        case PD_PLAN_STEP_BLOCKED: counts->blocked++; break;
        case PD_PLAN_STEP_PENDING: counts->pending++; break;
        default: g_assert_not_reached ();
        }

      counts->checks += step->checks->len;
    }
}

gboolean
pd_plan_state_has_checks (const PdPlanState *self)
{
  for (guint i = 0; i < self->steps->len; i++)
    if (pd_plan_step_has_checks (g_ptr_array_index (self->steps, i)))
      return TRUE;
  return FALSE;
}

PdPlanStep *
pd_plan_state_find_step (const PdPlanState *self,
                         const char        *id,
                         guint             *index)
{
  if (id == NULL)
    return NULL;

  for (guint i = 0; i < self->steps->len; i++)
    {
      PdPlanStep *step = g_ptr_array_index (self->steps, i);

      if (g_strcmp0 (step->id, id) == 0)
        {
          if (index)
            *index = i;
          return step;
        }
    }

  return NULL;
}

gboolean
pd_plan_state_is_empty (const PdPlanState *self)
{
  return self->steps->len == 0;
}

/* {"version":V,"steps":[…],"revision":{…}} with the persisted key order. */
char *
pd_plan_state_to_json (const PdPlanState *self)
{
  GString *out = g_string_new (NULL);

  g_string_append_printf (out, "{\"version\":%" G_GINT64_FORMAT ",\"steps\":[", self->version);
  for (guint i = 0; i < self->steps->len; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      pd_plan_step_append_json (g_ptr_array_index (self->steps, i), out);
    }
  g_string_append_c (out, ']');
  if (self->revision)
    {
      g_string_append (out, ",\"revision\":");
      pd_plan_revision_append_json (self->revision, out);
    }
  g_string_append_c (out, '}');

  return g_string_free (out, FALSE);
}
