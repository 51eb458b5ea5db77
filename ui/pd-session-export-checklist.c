/* pd-session-export-checklist.c: another agent's checklist in the
 * Markdown export, as the user sees it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The export wrote the agent's newest version: its statuses only, so an
 * item the user ticked read as the agent left it and the user's own items
 * were missing, while the count ("4 of 5") had them (tried as a new user
 * would).  Here the list is the one the Now page shows, and what is the
 * user's says so: an item the user ticked or unticked, beside the agent's
 * own word, and the user's own items.
 */
#define G_LOG_DOMAIN "pd-session-export"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-json.h"
#include "pd-json-util.h"
#include "pd-plan-row-item.h"
#include "pd-session-export-private.h"

/* A step's status word ("done", "cancelled", or an agent's "completed")
 * in the app's words. */
static const char *
status_label (const char *status)
{
  PdPlanStepStatus step;

  if (g_strcmp0 (status, "cancelled") == 0)
    return _("Cancelled");
  if (g_strcmp0 (status, "completed") == 0)
    return pd_plan_step_status_label (PD_PLAN_STEP_DONE);
  if (status != NULL && pd_plan_step_status_from_string (status, &step))
    return pd_plan_step_status_label (step);
  return pd_plan_step_status_label (PD_PLAN_STEP_PENDING);
}

void
_pd_session_export_markdown_checklist (GString    *out,
                                       const char *checklist_json,
                                       gint64      version)
{
  g_autoptr(JsonNode) root = pd_json_from_string_bounded (checklist_json, NULL);
  JsonObject *state = root != NULL && JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  JsonArray *steps = state != NULL ? pd_json_get_array (state, "steps") : NULL;

  if (steps == NULL)
    return;
  /* Numbered as the versions are (a long transcript's list is read only
   * at its end, which counts the updates read). */
  g_string_append_printf (out, "## %s %" G_GINT64_FORMAT "\n\n", _("Plan, version"),
                          version > 0 ? version : json_object_get_int_member_with_default (state, "version", 0));
  for (guint i = 0; i < json_array_get_length (steps); i++)
    {
      JsonNode *node = json_array_get_element (steps, i);
      JsonObject *step = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *status = pd_json_get_string (step, "status");
      g_autofree char *title = NULL;
      g_autofree char *shown = NULL;

      if (step == NULL)
        continue;
      title = _pd_session_export_inline_text (pd_json_get_string (step, "title") ? pd_json_get_string (step, "title") : "");
      shown = _pd_session_export_inline_text (status_label (status));
      g_string_append_printf (out, "- %s %s (%s", g_strcmp0 (status, "done") == 0 ? "[x]" : "[ ]", title, shown);
      if (g_strcmp0 (pd_json_get_string (step, "origin"), "user") == 0)
        /* Translators: in the Markdown export, after an item's status:
         * an item the user added to another agent's checklist */
        g_string_append_printf (out, ", %s", _("yours"));
      else if (json_object_has_member (step, "user_checked"))
        {
          g_autofree char *agent = _pd_session_export_inline_text (status_label (pd_json_get_string (step, "agent_status")));

          /* Translators: in the Markdown export, after an agent's item's
           * status: the user ticked it, then what the agent says of it
           * ("Done, ticked by you; the agent: Pending") */
          g_string_append_printf (out, json_object_get_boolean_member_with_default (step, "user_checked", FALSE)
                                       ? _(", ticked by you; the agent: %s") : _(", unticked by you; the agent: %s"),
                                  agent);
        }
      g_string_append (out, ")\n");
    }
  g_string_append_c (out, '\n');
}
