/* pd-transcript-pages-state.c: an imported agent's list in the state JSON
 * of our own plan history, for the History and the Now page.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-json.h"
#include "pd-json-util.h"
#include "pd-transcript-pages.h"
#include "pd-transcript-pages-private.h"

/* The agent's statuses in the plan's words: a cancelled item is neither
 * work done nor work left, which is what blocked says of a step. */
static const char *
plan_status (PdChecklistStatus status)
{
  switch (status)
    {
    case PD_CHECKLIST_STATUS_COMPLETED:   return "done";
    case PD_CHECKLIST_STATUS_IN_PROGRESS: return "in_progress";
    case PD_CHECKLIST_STATUS_CANCELLED:   return "blocked";
    case PD_CHECKLIST_STATUS_PENDING:
    default:                              return "pending";
    }
}

/* A step's id: the agent's own when it has one that no other item of the
 * list shares, else the start of the item's key (a hash of its text and
 * occurrence: short enough to read in a terminal, the whole key in the
 * unlikely case two items share the start), so that a step keeps its
 * identity from version to version, as the diff needs.  Written to @buffer
 * (of STEP_ID_SIZE) when it is a part of the key. */
#define SHORT_KEY 8
#define STEP_ID_SIZE 80

static const char *
step_id (PdChecklist           *list,
         const PdChecklistItem *item,
         char                  *buffer)
{
  guint same_id = 0, same_start = 0;

  for (guint i = 0; i < pd_checklist_get_n_agent_items (list); i++)
    {
      const PdChecklistItem *other = pd_checklist_get_agent_item (list, i);

      same_id += item->source_id != NULL && g_strcmp0 (other->source_id, item->source_id) == 0;
      same_start += strncmp (other->key, item->key, SHORT_KEY) == 0;
    }
  if (item->source_id != NULL && *item->source_id != '\0' && same_id == 1)
    return item->source_id;
  if (same_start > 1)
    return item->key;
  g_strlcpy (buffer, item->key, MIN (STEP_ID_SIZE, SHORT_KEY + 1));
  return buffer;
}

/* The state JSON of our plan history (pd_plan_state_to_json()'s shape) for
 * @list, with the agent's own statuses and the user's marks beside.  With
 * @as_shown the statuses are those the checklist shows (overrides applied)
 * and the user's own items follow. */
char *
_pd_transcript_pages_state_json (PdChecklist *list,
                                 gint64       version,
                                 gboolean     as_shown)
{
  GString *out = g_string_new (NULL);
  guint n = pd_checklist_get_n_agent_items (list);
  gboolean first = TRUE;

  g_string_append_printf (out, "{\"version\":%" G_GINT64_FORMAT ",\"origin\":\"%s\",\"steps\":[", version,
                          pd_checklist_origin_to_string (pd_checklist_get_origin (list)));
  for (guint i = 0; i < n; i++)
    {
      const PdChecklistItem *item = pd_checklist_get_agent_item (list, i);
      PdChecklistStatus status = as_shown ? pd_checklist_get_effective_status (list, i) : item->status;
      char id[STEP_ID_SIZE];
      gboolean checked;

      if (!first)
        g_string_append_c (out, ',');
      first = FALSE;
      g_string_append (out, "{\"id\":");
      pd_json_append_string (out, step_id (list, item, id));
      g_string_append (out, ",\"title\":");
      pd_json_append_string (out, item->text);
      g_string_append_printf (out, ",\"status\":\"%s\",\"agent_status\":\"%s\"", plan_status (status),
                              pd_checklist_status_to_string (item->status));
      if (pd_checklist_get_override (list, i, &checked))
        g_string_append_printf (out, ",\"user_checked\":%s", checked ? "true" : "false");
      g_string_append_c (out, '}');
    }
  for (guint i = 0; as_shown && i < pd_checklist_get_n_user_items (list); i++)
    {
      const PdChecklistItem *item = pd_checklist_get_user_item (list, i);
      g_autofree char *id = g_strdup_printf ("user-%u", i + 1);

      if (!first)
        g_string_append_c (out, ',');
      first = FALSE;
      g_string_append (out, "{\"id\":");
      pd_json_append_string (out, id);
      g_string_append (out, ",\"title\":");
      pd_json_append_string (out, item->text);
      g_string_append_printf (out, ",\"status\":\"%s\",\"origin\":\"user\"}", plan_status (item->status));
    }
  g_string_append (out, "]}");
  return g_string_free (out, FALSE);
}

PdPlanState *
pd_transcript_pages_plan_for_checklist (PdChecklist *list,
                                        gint64       version)
{
  g_autofree char *json = NULL;

  g_return_val_if_fail (PD_IS_CHECKLIST (list), NULL);

  if (pd_checklist_get_n_agent_items (list) == 0 && pd_checklist_get_n_user_items (list) == 0 && version <= 0)
    return NULL;
  json = _pd_transcript_pages_state_json (list, version, TRUE);
  return pd_plan_state_new_from_json (json, NULL);
}

char *
pd_transcript_pages_checklist_json (PdChecklist *list,
                                    gint64       version)
{
  g_autofree char *json = NULL;
  g_autoptr(JsonNode) state = NULL;
  JsonArray *steps;

  g_return_val_if_fail (PD_IS_CHECKLIST (list), NULL);

  if (pd_checklist_get_n_agent_items (list) == 0 && pd_checklist_get_n_user_items (list) == 0 && version <= 0)
    return NULL;
  json = _pd_transcript_pages_state_json (list, version, TRUE);
  if (!(state = pd_json_from_string_bounded (json, NULL)) || !JSON_NODE_HOLDS_OBJECT (state))
    return NULL;
  pd_transcript_pages_state_show_cancelled (state);
  steps = pd_json_get_array (json_node_get_object (state), "steps");
  for (guint i = 0; steps != NULL && i < json_array_get_length (steps); i++)
    {
      JsonNode *node = json_array_get_element (steps, i);

      if (JSON_NODE_HOLDS_OBJECT (node) && !json_object_has_member (json_node_get_object (node), "origin"))
        json_object_set_string_member (json_node_get_object (node), "origin", "agent");
    }
  return json_to_string (state, FALSE);
}

GHashTable *
pd_transcript_pages_cancelled_steps (PdChecklist *list)
{
  GHashTable *cancelled = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  g_return_val_if_fail (PD_IS_CHECKLIST (list), cancelled);

  for (guint i = 0; i < pd_checklist_get_n_agent_items (list); i++)
    {
      char id[STEP_ID_SIZE];

      /* As the state JSON says it: shown cancelled (an override shows it
       * ticked or unticked). */
      if (pd_checklist_get_effective_status (list, i) == PD_CHECKLIST_STATUS_CANCELLED)
        g_hash_table_add (cancelled, g_strdup (step_id (list, pd_checklist_get_agent_item (list, i), id)));
    }
  return cancelled;
}

guint
pd_transcript_pages_state_show_cancelled (JsonNode *state)
{
  JsonNode *steps;
  guint n = 0;

  if (state == NULL || !JSON_NODE_HOLDS_OBJECT (state)
      || !(steps = json_object_get_member (json_node_get_object (state), "steps")) || !JSON_NODE_HOLDS_ARRAY (steps))
    return 0;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (steps)); i++)
    {
      JsonNode *node = json_array_get_element (json_node_get_array (steps), i);
      JsonObject *step = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;

      if (step != NULL && !json_object_has_member (step, "user_checked")
          && g_strcmp0 (pd_json_get_string (step, "agent_status"), "cancelled") == 0
          && g_strcmp0 (pd_json_get_string (step, "status"), "blocked") == 0)
        {
          json_object_set_string_member (step, "status", "cancelled");
          n++;
        }
    }
  return n;
}
