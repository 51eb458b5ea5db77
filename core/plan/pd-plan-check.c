/* pd-plan-check.c: an acceptance check declared on a plan step.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-plan"

#include "config.h"

#include "pd-json.h"
#include "pd-plan-check.h"

G_DEFINE_BOXED_TYPE (PdPlanCheck, pd_plan_check, pd_plan_check_copy, pd_plan_check_free)

PdPlanCheck *
pd_plan_check_new (const char *id,
                   const char *description,
                   const char *tool,
                   const char *arguments)
{
  PdPlanCheck *self = g_new0 (PdPlanCheck, 1);

  self->id = g_strdup (id);
  self->description = g_strdup (description);
  self->tool = g_strdup (tool);
  self->arguments = g_strdup (arguments ? arguments : "{}");
  self->status = PD_PLAN_CHECK_PENDING;

  return self;
}

PdPlanCheck *
pd_plan_check_copy (const PdPlanCheck *self)
{
  PdPlanCheck *copy = pd_plan_check_new (self->id, self->description, self->tool, self->arguments);

  copy->status = self->status;
  copy->call_id = g_strdup (self->call_id);
  copy->declared_batch = self->declared_batch;

  return copy;
}

void
pd_plan_check_free (PdPlanCheck *self)
{
  if (self == NULL)
    return;

  g_free (self->id);
  g_free (self->description);
  g_free (self->tool);
  g_free (self->arguments);
  g_free (self->call_id);
  g_free (self);
}

/* Same identity, tool, arguments and description: the requirement a create
 * may not drop or alter once declared. */
gboolean
pd_plan_check_same_requirement (const PdPlanCheck *a,
                                const PdPlanCheck *b)
{
  return g_strcmp0 (a->id, b->id) == 0 &&
         g_strcmp0 (a->description, b->description) == 0 &&
         g_strcmp0 (a->tool, b->tool) == 0 &&
         g_strcmp0 (a->arguments, b->arguments) == 0;
}

/* Equal as the render sees it (the declaring batch is bookkeeping). */
gboolean
pd_plan_check_equal (const PdPlanCheck *a,
                     const PdPlanCheck *b)
{
  return pd_plan_check_same_requirement (a, b) &&
         a->status == b->status &&
         g_strcmp0 (a->call_id, b->call_id) == 0;
}

void
pd_plan_check_reset_evidence (PdPlanCheck *self)
{
  self->status = PD_PLAN_CHECK_PENDING;
  g_clear_pointer (&self->call_id, g_free);
}

/* The persisted shape, in this key order: id, description, tool, arguments,
 * status, call_id (omitted when empty). */
void
pd_plan_check_append_json (const PdPlanCheck *self,
                           GString           *out)
{
  g_string_append (out, "{\"id\":");
  pd_json_append_string (out, self->id);
  g_string_append (out, ",\"description\":");
  pd_json_append_string (out, self->description);
  g_string_append (out, ",\"tool\":");
  pd_json_append_string (out, self->tool);
  g_string_append (out, ",\"arguments\":");
  g_string_append (out, self->arguments);
  g_string_append (out, ",\"status\":\"");
  g_string_append (out, pd_plan_check_status_to_string (self->status));
  g_string_append_c (out, '"');
  if (self->call_id != NULL && *self->call_id)
    {
      g_string_append (out, ",\"call_id\":");
      pd_json_append_string (out, self->call_id);
    }
  g_string_append_c (out, '}');
}
