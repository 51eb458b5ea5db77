/* pd-usage.c: fold events into the usage counters.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-events"

#include "config.h"

#include <glib.h>

#include "pd-json.h"
#include "pd-usage.h"

/* Token counts come from another process's event data, so anything but a
 * non-negative integer (or an integral double) counts as nothing rather than
 * wrapping the counter. */
static guint64
read_count (JsonObject *data,
            const char *key)
{
  JsonNode *node = json_object_get_member (data, key);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return 0;

  switch (json_node_get_value_type (node))
    {
    case G_TYPE_INT64:
      {
        gint64 v = json_node_get_int (node);
        return v > 0 ? (guint64) v : 0;
      }
    case G_TYPE_DOUBLE:
      {
        double v = json_node_get_double (node);
        return (v >= 1 && v < 9.0e18) ? (guint64) v : 0;
      }
    default:
      return 0;
    }
}

/**
 * pd_usage_add_event:
 *
 * Counts one event.  Tokens are taken from run_completed and side_call_usage
 * only: iteration_completed carries per-iteration tokens that run_completed
 * already sums, so counting both would double them.
 */
void
pd_usage_add_event (PdUsage *usage,
                    PdEvent *event)
{
  const char *type;
  JsonObject *data;

  g_return_if_fail (usage != NULL);
  g_return_if_fail (event != NULL);

  type = pd_event_get_event_type (event);
  data = pd_event_get_data (event);

  if (g_str_equal (type, PD_EVENT_RUN_STARTED))
    usage->prompts_started++;
  else if (g_str_equal (type, PD_EVENT_RUN_COMPLETED))
    {
      usage->prompts_completed++;
      usage->input_tokens += read_count (data, "input_tokens");
      usage->output_tokens += read_count (data, "output_tokens");
    }
  else if (g_str_equal (type, PD_EVENT_RUN_FAILED))
    usage->prompts_failed++;
  else if (g_str_equal (type, PD_EVENT_SIDE_CALL_USAGE))
    {
      usage->input_tokens += read_count (data, "input_tokens");
      usage->output_tokens += read_count (data, "output_tokens");
    }
  else if (g_str_equal (type, PD_EVENT_PLAN_CREATED))
    usage->plans_created++;
  else if (g_str_equal (type, PD_EVENT_PLAN_UPDATED))
    usage->plans_updated++;
  else if (g_str_equal (type, PD_EVENT_PLAN_BLOCKED))
    usage->plans_blocked++;
}

/**
 * pd_usage_to_json_object:
 *
 * Keys as odek's /api/usage names them (`tokens_in`, `tokens_out`,
 * `plans_*`), then ours.  `serve` adds the model, cost and connection fields
 * it knows about.
 *
 * Returns: (transfer full): a new object
 */
JsonObject *
pd_usage_to_json_object (const PdUsage *usage)
{
  JsonObject *object;

  g_return_val_if_fail (usage != NULL, NULL);

  object = json_object_new ();
  json_object_set_int_member (object, "prompts_started", (gint64) usage->prompts_started);
  json_object_set_int_member (object, "prompts_completed", (gint64) usage->prompts_completed);
  json_object_set_int_member (object, "prompts_failed", (gint64) usage->prompts_failed);
  json_object_set_int_member (object, "tokens_in", (gint64) usage->input_tokens);
  json_object_set_int_member (object, "tokens_out", (gint64) usage->output_tokens);
  json_object_set_int_member (object, "plans_created", (gint64) usage->plans_created);
  json_object_set_int_member (object, "plans_updated", (gint64) usage->plans_updated);
  json_object_set_int_member (object, "plans_blocked", (gint64) usage->plans_blocked);
  json_object_set_int_member (object, "events_emitted", (gint64) usage->events_emitted);
  json_object_set_int_member (object, "events_dropped", (gint64) usage->events_dropped);
  json_object_set_int_member (object, "events_listener_dropped", (gint64) usage->listener_dropped);
  json_object_set_int_member (object, "events_write_errors", (gint64) usage->jsonl_write_errors);

  return object;
}

/**
 * pd_usage_to_json:
 *
 * Returns: (transfer full): the counters as compact JSON, in the key order of
 *   pd_usage_to_json_object()
 */
char *
pd_usage_to_json (const PdUsage *usage)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  g_return_val_if_fail (usage != NULL, NULL);

  json_node_take_object (node, pd_usage_to_json_object (usage));
  return pd_json_to_string (node, FALSE);
}
