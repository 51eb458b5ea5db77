/* pd-server-plans.c: a session's plan as `serve` writes it (…/plan,
 * …/plan/detail and its history), odek's shapes.  Any thread.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-server"

#include "config.h"

#include "pd-server-private.h"
#include "pd-plan.h"
#include "pd-session-reads.h"

/* @cancelled: the ids of an imported agent's cancelled items (or NULL),
 * which the plan's words call blocked.  They go out as "cancelled", as
 * `sessions show` and the export write them: odek's StepStatus has no such
 * word, and its page draws a status it does not know with its pending
 * glyph and the status as the glyph's title, which says more than its
 * blocked glyph would; our own client reads it back as blocked. */
JsonObject *
_pd_server_plan_object (const char        *session_id,
                        const PdPlanState *state,
                        GHashTable        *cancelled,
                        gboolean           detail)
{
  JsonObject *object = json_object_new ();
  JsonArray *steps = json_array_new ();
  PdPlanCounts counts = { 0 };
  gboolean collapsed = FALSE;

  if (state != NULL)
    {
      pd_plan_state_count (state, &counts);
      /* What the rendered message shows: an all-done plan without checks or
       * revision collapses to its header, and odek answers from that. */
      collapsed = counts.steps > 0 && counts.done == counts.steps && counts.checks == 0 && state->revision == NULL;
    }

  json_object_set_string_member (object, "session_id", session_id);
  json_object_set_int_member (object, "version", state ? state->version : 0);

  for (guint i = 0; state != NULL && (!collapsed || detail) && i < state->steps->len; i++)
    {
      PdPlanStep *step = g_ptr_array_index (state->steps, i);
      JsonObject *row = json_object_new ();

      json_object_set_string_member (row, "id", step->id);
      json_object_set_string_member (row, "title", step->title);
      if (step->status == PD_PLAN_STEP_BLOCKED && cancelled != NULL && g_hash_table_contains (cancelled, step->id))
        json_object_set_string_member (row, "status", "cancelled");
      else
        json_object_set_string_member (row, "status", pd_plan_step_status_to_string (step->status));
      if (step->note && *step->note)
        json_object_set_string_member (row, "note", step->note);
      if (detail)
        {
          JsonArray *checks = json_array_new ();

          for (guint j = 0; j < step->checks->len; j++)
            {
              PdPlanCheck *check = g_ptr_array_index (step->checks, j);
              JsonObject *c = json_object_new ();

              json_object_set_string_member (c, "id", check->id);
              json_object_set_string_member (c, "description", check->description ? check->description : "");
              json_object_set_string_member (c, "tool", check->tool ? check->tool : "");
              json_object_set_string_member (c, "status", pd_plan_check_status_to_string (check->status));
              /* odek's PlanCheck carries them: a remote window said a check
               * had no arguments and no evidence (tried as a new user would). */
              if (check->arguments != NULL)
                {
                  JsonNode *arguments = json_from_string (check->arguments, NULL);

                  if (arguments != NULL && JSON_NODE_HOLDS_OBJECT (arguments))
                    json_object_set_member (c, "arguments", arguments);
                  else if (arguments != NULL)
                    json_node_unref (arguments);
                }
              if (check->call_id != NULL)
                json_object_set_string_member (c, "call_id", check->call_id);
              json_array_add_object_element (checks, c);
            }
          json_object_set_array_member (row, "checks", checks);
        }
      json_array_add_object_element (steps, row);
    }

  json_object_set_array_member (object, "steps", steps);
  json_object_set_boolean_member (object, "found", state != NULL);

  if (detail)
    {
      json_object_set_boolean_member (object, "collapsed", collapsed);
      if (state != NULL && state->revision != NULL)
        {
          JsonObject *revision = json_object_new ();
          JsonArray *summary = json_array_new ();

          json_object_set_string_member (revision, "reason", state->revision->reason ? state->revision->reason : "");
          for (guint i = 0; i < state->revision->summary->len; i++)
            json_array_add_string_element (summary, g_ptr_array_index (state->revision->summary, i));
          json_object_set_array_member (revision, "summary", summary);
          json_object_set_object_member (object, "revision", revision);
        }
      else
        json_object_set_null_member (object, "revision");
    }

  return object;
}

JsonArray *
_pd_server_history_array (GPtrArray *versions)
{
  JsonArray *history = json_array_new ();

  for (guint i = 0; i < versions->len; i++)
    {
      PdPlanVersionInfo *version = g_ptr_array_index (versions, i);
      g_autoptr(PdPlanState) state = pd_plan_state_new_from_json (version->state_json, NULL);
      g_autofree char *stamp = pd_session_time_to_string (version->created_at);
      JsonObject *entry = json_object_new ();
      PdPlanCounts counts = { 0 };

      if (state != NULL)
        pd_plan_state_count (state, &counts);
      json_object_set_int_member (entry, "version", version->version);
      json_object_set_string_member (entry, "created_at", stamp ? stamp : "");
      json_object_set_int_member (entry, "steps", counts.steps);
      json_object_set_int_member (entry, "done", counts.done);
      json_object_set_int_member (entry, "in_progress", counts.in_progress);
      json_object_set_int_member (entry, "blocked", counts.blocked);
      json_object_set_int_member (entry, "pending", counts.pending);
      json_array_add_object_element (history, entry);
    }
  return history;
}
