/* pd-plan-state.c: the whole plan: version, ordered steps, latest revision.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-plan"

#include "config.h"

#include <string.h>

#include "pd-json.h"
#include "pd-json-util.h"
#include "pd-plan-error.h"
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
  copy->n_hidden = self->n_hidden;
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
  if (a->steps->len != b->steps->len || a->n_hidden != b->n_hidden)
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

/* How many acceptance checks have not passed: denied, failed or never run
 * (what the engine's "verification incomplete" lists).  A plan all done
 * with any is done but not verified; the Overview's cards and the session
 * rows both decide by this. */
guint
pd_plan_state_count_unpassed_checks (const PdPlanState *self)
{
  guint n = 0;

  for (guint i = 0; i < self->steps->len; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (self->steps, i);

      for (guint j = 0; j < step->checks->len; j++)
        if (((const PdPlanCheck *) g_ptr_array_index (step->checks, j))->status != PD_PLAN_CHECK_PASSED)
          n++;
    }
  return n;
}

/* The first acceptance check whose evidence ran and failed, of a step not
 * done (a step with a failed check cannot be completed), by its
 * description, else its id: what a run that ended with it left failing,
 * named on its Overview card.  NULL when none. */
const char *
pd_plan_state_failed_check_name (const PdPlanState *self)
{
  for (guint i = 0; self != NULL && i < self->steps->len; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (self->steps, i);

      for (guint j = 0; step->status != PD_PLAN_STEP_DONE && j < step->checks->len; j++)
        {
          const PdPlanCheck *check = g_ptr_array_index (step->checks, j);

          if (check->status == PD_PLAN_CHECK_FAILED)
            return check->description != NULL && *check->description != '\0' ? check->description : check->id;
        }
    }
  return NULL;
}

/* The title of the step in progress, else of the first pending one; NULL
 * when none is (the Overview's card says it as "Now: …", on both sides of
 * an endpoint: what serve pushes and what a window reads). */
const char *
pd_plan_state_current_step_title (const PdPlanState *self)
{
  const PdPlanStep *pending = NULL;

  for (guint i = 0; self != NULL && i < self->steps->len; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (self->steps, i);

      if (step->status == PD_PLAN_STEP_IN_PROGRESS)
        return step->title;
      if (step->status == PD_PLAN_STEP_PENDING && pending == NULL)
        pending = step;
    }
  return pending != NULL ? pending->title : NULL;
}

/* Whether the step pd_plan_state_current_step_title() names was started
 * (in progress), not only the next pending one: a stopped run's card said
 * "Stopped at:" a step no run had begun (tried as a new user would). */
gboolean
pd_plan_state_current_step_started (const PdPlanState *self)
{
  for (guint i = 0; self != NULL && i < self->steps->len; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (self->steps, i);

      if (step->status == PD_PLAN_STEP_IN_PROGRESS)
        return TRUE;
    }
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

/* The inverse of pd_plan_state_to_json(), for stored plan versions.  It
 * checks shapes, not the plan rules: the JSON was written by this engine. */
static const char *
member_string (JsonObject *object,
               const char *name,
               gboolean    required,
               gboolean   *ok)
{
  const char *value;

  if (!pd_json_get_optional_string (object, name, &value) || (required && value == NULL))
    *ok = FALSE;
  return value;
}

static JsonArray *
member_array (JsonObject *object,
              const char *name,
              gboolean   *ok)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL)
    return NULL;
  if (!JSON_NODE_HOLDS_ARRAY (node))
    {
      *ok = FALSE;
      return NULL;
    }
  return json_node_get_array (node);
}

static PdPlanCheck *
check_from_json (JsonNode *node,
                 gboolean *ok)
{
  JsonObject *object;
  JsonNode *arguments;
  g_autofree char *canonical = NULL;
  const char *id, *description, *tool, *status, *call_id;
  PdPlanCheck *check;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return (*ok = FALSE, NULL);
  object = json_node_get_object (node);
  id = member_string (object, "id", TRUE, ok);
  description = member_string (object, "description", TRUE, ok);
  tool = member_string (object, "tool", TRUE, ok);
  status = member_string (object, "status", TRUE, ok);
  call_id = member_string (object, "call_id", FALSE, ok);
  arguments = json_object_get_member (object, "arguments");
  if (!*ok || arguments == NULL || !(canonical = pd_json_canonicalize_object (arguments, NULL)))
    return (*ok = FALSE, NULL);

  check = pd_plan_check_new (id, description, tool, canonical);
  if (!pd_plan_check_status_from_string (status, &check->status))
    *ok = FALSE;
  check->call_id = g_strdup (call_id);
  return check;
}

static PdPlanStep *
step_from_json (JsonNode *node,
                gboolean *ok)
{
  g_autoptr(PdPlanStep) step = NULL;
  JsonObject *object;
  JsonArray *checks;
  const char *id, *title, *status, *note;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    return (*ok = FALSE, NULL);
  object = json_node_get_object (node);
  id = member_string (object, "id", TRUE, ok);
  title = member_string (object, "title", TRUE, ok);
  status = member_string (object, "status", TRUE, ok);
  note = member_string (object, "note", FALSE, ok);
  checks = member_array (object, "checks", ok);
  if (!*ok)
    return NULL;

  step = pd_plan_step_new (id, title);
  if (!pd_plan_step_status_from_string (status, &step->status))
    return (*ok = FALSE, NULL);
  if (note)
    pd_plan_step_set_note (step, note);
  for (guint i = 0; checks && i < json_array_get_length (checks); i++)
    {
      PdPlanCheck *check = check_from_json (json_array_get_element (checks, i), ok);

      if (!*ok)
        {
          pd_plan_check_free (check);
          return NULL;
        }
      g_ptr_array_add (step->checks, check);
    }
  return g_steal_pointer (&step);
}

PdPlanState *
pd_plan_state_new_from_json (const char  *json,
                             GError     **error)
{
  g_autoptr(PdPlanState) state = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) local = NULL;
  JsonObject *object;
  JsonNode *version;
  JsonNode *revision;
  JsonArray *steps;
  gboolean ok = TRUE;

  g_return_val_if_fail (json != NULL, NULL);

  if (!(root = pd_json_from_string_bounded (json, &local)) || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, PD_PLAN_ERROR, PD_PLAN_ERROR_PARSE,
                   "plan: stored plan state is not a JSON object%s%s",
                   local ? ": " : "", local ? local->message : "");
      return NULL;
    }
  object = json_node_get_object (root);
  state = pd_plan_state_new ();

  version = json_object_get_member (object, "version");
  if (version && JSON_NODE_HOLDS_VALUE (version) && json_node_get_value_type (version) == G_TYPE_INT64)
    state->version = json_node_get_int (version);
  else
    ok = FALSE;

  steps = member_array (object, "steps", &ok);
  for (guint i = 0; ok && steps && i < json_array_get_length (steps); i++)
    {
      PdPlanStep *step = step_from_json (json_array_get_element (steps, i), &ok);

      if (step)
        g_ptr_array_add (state->steps, step);
    }

  revision = json_object_get_member (object, "revision");
  if (ok && revision && JSON_NODE_HOLDS_OBJECT (revision))
    {
      JsonObject *r = json_node_get_object (revision);
      const char *reason = member_string (r, "reason", TRUE, &ok);
      JsonArray *summary = member_array (r, "summary", &ok);

      if (ok)
        {
          state->revision = pd_plan_revision_new (reason);
          for (guint i = 0; summary && i < json_array_get_length (summary); i++)
            {
              const char *item = pd_json_node_get_string (json_array_get_element (summary, i));

              if (item != NULL)
                pd_plan_revision_add (state->revision, item);
              else
                ok = FALSE;
            }
        }
    }
  else if (revision && !JSON_NODE_HOLDS_NULL (revision))
    ok = FALSE;

  if (!ok)
    {
      g_set_error (error, PD_PLAN_ERROR, PD_PLAN_ERROR_PARSE,
                   "plan: stored plan state does not have the shape of a plan "
                   "(version, steps with id/title/status, checks, revision)");
      return NULL;
    }

  return g_steal_pointer (&state);
}
