/* pd-plan-step.c: one ordered step of a plan.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-plan"

#include "config.h"

#include "pd-json.h"
#include "pd-plan-step.h"

G_DEFINE_BOXED_TYPE (PdPlanStep, pd_plan_step, pd_plan_step_copy, pd_plan_step_free)

PdPlanStep *
pd_plan_step_new (const char *id,
                  const char *title)
{
  PdPlanStep *self = g_new0 (PdPlanStep, 1);

  self->id = g_strdup (id);
  self->title = g_strdup (title);
  self->status = PD_PLAN_STEP_PENDING;
  self->note = g_strdup ("");
  self->checks = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_plan_check_free);

  return self;
}

PdPlanStep *
pd_plan_step_copy (const PdPlanStep *self)
{
  PdPlanStep *copy = pd_plan_step_new (self->id, self->title);

  copy->status = self->status;
  pd_plan_step_set_note (copy, self->note);
  for (guint i = 0; i < self->checks->len; i++)
    g_ptr_array_add (copy->checks, pd_plan_check_copy (g_ptr_array_index (self->checks, i)));

  return copy;
}

void
pd_plan_step_free (PdPlanStep *self)
{
  if (self == NULL)
    return;

  g_free (self->id);
  g_free (self->title);
  g_free (self->note);
  g_ptr_array_unref (self->checks);
  g_free (self);
}

gboolean
pd_plan_step_equal (const PdPlanStep *a,
                    const PdPlanStep *b)
{
  if (g_strcmp0 (a->id, b->id) != 0 ||
      g_strcmp0 (a->title, b->title) != 0 ||
      a->status != b->status ||
      g_strcmp0 (a->note, b->note) != 0 ||
      a->checks->len != b->checks->len)
    return FALSE;

  for (guint i = 0; i < a->checks->len; i++)
    if (!pd_plan_check_equal (g_ptr_array_index (a->checks, i), g_ptr_array_index (b->checks, i)))
      return FALSE;

  return TRUE;
}

gboolean
pd_plan_step_has_checks (const PdPlanStep *self)
{
  return self->checks->len > 0;
}

/* A step may be done when none of its checks is pending or failed.  A
 * blocked check (the environment refused the call) does not gate: the model
 * reports it instead of spinning. */
gboolean
pd_plan_step_checks_allow_done (const PdPlanStep *self)
{
  for (guint i = 0; i < self->checks->len; i++)
    {
      const PdPlanCheck *check = g_ptr_array_index (self->checks, i);

      if (check->status == PD_PLAN_CHECK_PENDING || check->status == PD_PLAN_CHECK_FAILED)
        return FALSE;
    }

  return TRUE;
}

PdPlanCheck *
pd_plan_step_find_check (const PdPlanStep *self,
                         const char       *check_id)
{
  for (guint i = 0; i < self->checks->len; i++)
    {
      PdPlanCheck *check = g_ptr_array_index (self->checks, i);

      if (g_strcmp0 (check->id, check_id) == 0)
        return check;
    }

  return NULL;
}

void
pd_plan_step_set_note (PdPlanStep *self,
                       const char *note)
{
  char *copy = g_strdup (note ? note : "");

  g_free (self->note);
  self->note = copy;
}

void
pd_plan_step_append_json (const PdPlanStep *self,
                          GString          *out)
{
  g_string_append (out, "{\"id\":");
  pd_json_append_string (out, self->id);
  g_string_append (out, ",\"title\":");
  pd_json_append_string (out, self->title);
  g_string_append (out, ",\"status\":\"");
  g_string_append (out, pd_plan_step_status_to_string (self->status));
  g_string_append_c (out, '"');
  if (*self->note)
    {
      g_string_append (out, ",\"note\":");
      pd_json_append_string (out, self->note);
    }
  if (self->checks->len > 0)
    {
      g_string_append (out, ",\"checks\":[");
      for (guint i = 0; i < self->checks->len; i++)
        {
          if (i > 0)
            g_string_append_c (out, ',');
          pd_plan_check_append_json (g_ptr_array_index (self->checks, i), out);
        }
      g_string_append_c (out, ']');
    }
  g_string_append_c (out, '}');
}
