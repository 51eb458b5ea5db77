/* pd-plan-tool.c: the plan tool — the model's checklist (seed 000).
 *
 * A thin adapter: the verbs, validation and evidence rules live in
 * PdPlanStore.  The tool is Safe (seed 000, classifyToolCall): it changes
 * engine-held state only, so it never prompts, and its effects are READ —
 * the evidence recorder skips plan calls anyway.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-tools"

#include "config.h"

#include "pd-plan-store.h"
#include "pd-plan-tool.h"
#include "pd-tool-private.h"

/* The checks a step declares (create, and revise's add, edit, split and
 * supersede): one schema for the three places that take them. */
#define CHECKS_SCHEMA \
  "{\n" \
  "  \"description\": \"Optional checks with exact tool arguments. In revise edit, append only; IDs must not duplicate existing checks. Invoke tools separately through normal approval; only actual outcomes can pass checks.\",\n" \
  "  \"items\": {\n" \
  "    \"properties\": {\n" \
  "      \"arguments\": {\n" \
  "        \"type\": \"object\"\n" \
  "      },\n" \
  "      \"description\": {\n" \
  "        \"type\": \"string\"\n" \
  "      },\n" \
  "      \"id\": {\n" \
  "        \"type\": \"string\"\n" \
  "      },\n" \
  "      \"tool\": {\n" \
  "        \"type\": \"string\"\n" \
  "      }\n" \
  "    },\n" \
  "    \"required\": [\n" \
  "      \"id\",\n" \
  "      \"description\",\n" \
  "      \"tool\",\n" \
  "      \"arguments\"\n" \
  "    ],\n" \
  "    \"type\": \"object\"\n" \
  "  },\n" \
  "  \"maxItems\": 4,\n" \
  "  \"type\": \"array\"\n" \
  "}"

/* A step as create and revise's add, split and supersede take it. */
#define STEP_SCHEMA \
  "{\n" \
  "  \"properties\": {\n" \
  "    \"checks\": " CHECKS_SCHEMA ",\n" \
  "    \"id\": {\n" \
  "      \"type\": \"string\"\n" \
  "    },\n" \
  "    \"note\": {\n" \
  "      \"type\": \"string\"\n" \
  "    },\n" \
  "    \"title\": {\n" \
  "      \"type\": \"string\"\n" \
  "    }\n" \
  "  },\n" \
  "  \"required\": [\n" \
  "    \"id\",\n" \
  "    \"title\"\n" \
  "  ],\n" \
  "  \"type\": \"object\"\n" \
  "}"

/* The plan tool's definition exactly as seed 000 gives it: the name, the
 * description and the parameters schema the model sees (the step and its
 * checks above, spliced in where the schema takes them). */
static const char definition[] =
  "{\n"
  "  \"description\": \"Maintain your task plan. Create steps before starting multi-step work; update statuses as you go (in_progress when you start a step, done only after verifying it); mark blocked with a note explaining why. The plan is shown to you on every iteration and survives context trimming — trust it over your memory of earlier turns. Use revise when the approach changes so acceptance checks stay attached. For verifiable work, declare optional checks with exact tool arguments before running them in a later batch. Complete checked steps only after their tools succeed; do not self-certify. Plans without checks remain advisory.\",\n"
  "  \"name\": \"plan\",\n"
  "  \"parameters\": {\n"
  "    \"properties\": {\n"
  "      \"operations\": {\n"
  "        \"description\": \"revise only: ordered atomic operations. Existing checks cannot be removed or changed. New checks require a later tool batch.\",\n"
  "        \"items\": {\n"
  "          \"properties\": {\n"
  "            \"after_id\": {\n"
  "              \"description\": \"For add/move: place after this existing step. Use only one anchor; omit both to append.\",\n"
  "              \"type\": \"string\"\n"
  "            },\n"
  "            \"before_id\": {\n"
  "              \"description\": \"For add/move: place before this existing step. Mutually exclusive with after_id.\",\n"
  "              \"type\": \"string\"\n"
  "            },\n"
  "            \"carry_checks_to\": {\n"
  "              \"description\": \"Optional. When a split/supersede replaces a checked step: either set to a replacement ID to give it the original checks (pending fresh verification), or omit and declare fresh checks on the replacements. Rejected when omitted and no replacement declares checks, so a checked requirement is never silently dropped.\",\n"
  "              \"type\": \"string\"\n"
  "            },\n"
  "            \"checks\": " CHECKS_SCHEMA ",\n"
  "            \"kind\": {\n"
  "              \"enum\": [\n"
  "                \"add\",\n"
  "                \"edit\",\n"
  "                \"move\",\n"
  "                \"split\",\n"
  "                \"supersede\"\n"
  "              ]\n"
  "            },\n"
  "            \"note\": {\n"
  "              \"description\": \"edit only: replace note, including an empty string to clear it.\",\n"
  "              \"type\": \"string\"\n"
  "            },\n"
  "            \"step_id\": {\n"
  "              \"description\": \"Existing step for edit/move/split/supersede.\",\n"
  "              \"type\": \"string\"\n"
  "            },\n"
  "            \"steps\": {\n"
  "              \"description\": \"New steps for add/split/supersede. Split requires at least two. Replacement IDs must be unique; carried checks are added to the target's declared checks.\",\n"
  "              \"items\": " STEP_SCHEMA ",\n"
  "              \"minItems\": 1,\n"
  "              \"type\": \"array\"\n"
  "            },\n"
  "            \"title\": {\n"
  "              \"description\": \"edit only: replace title; changed work loses its prior check evidence and reopens if completed.\",\n"
  "              \"type\": \"string\"\n"
  "            }\n"
  "          },\n"
  "          \"required\": [\n"
  "            \"kind\"\n"
  "          ],\n"
  "          \"type\": \"object\"\n"
  "        },\n"
  "        \"maxItems\": 8,\n"
  "        \"minItems\": 1,\n"
  "        \"type\": \"array\"\n"
  "      },\n"
  "      \"reason\": {\n"
  "        \"description\": \"revise only: bounded reason for the change.\",\n"
  "        \"maxLength\": 240,\n"
  "        \"type\": \"string\"\n"
  "      },\n"
  "      \"step_id\": {\n"
  "        \"description\": \"complete only\",\n"
  "        \"type\": \"string\"\n"
  "      },\n"
  "      \"steps\": {\n"
  "        \"description\": \"create only: full ordered step list (1..max_steps). New steps start pending. Existing checked requirements must remain identical; unchanged checked steps retain progress. Prefer revise for incremental changes.\",\n"
  "        \"items\": " STEP_SCHEMA ",\n"
  "        \"type\": \"array\"\n"
  "      },\n"
  "      \"updates\": {\n"
  "        \"description\": \"update only: applied in array order; unknown id or unknown status fails the whole call (atomic).\",\n"
  "        \"items\": {\n"
  "          \"properties\": {\n"
  "            \"id\": {\n"
  "              \"type\": \"string\"\n"
  "            },\n"
  "            \"note\": {\n"
  "              \"type\": \"string\"\n"
  "            },\n"
  "            \"status\": {\n"
  "              \"enum\": [\n"
  "                \"pending\",\n"
  "                \"in_progress\",\n"
  "                \"done\",\n"
  "                \"blocked\"\n"
  "              ]\n"
  "            }\n"
  "          },\n"
  "          \"required\": [\n"
  "            \"id\"\n"
  "          ],\n"
  "          \"type\": \"object\"\n"
  "        },\n"
  "        \"type\": \"array\"\n"
  "      },\n"
  "      \"verb\": {\n"
  "        \"description\": \"create: replace the whole plan. update: batch status/note changes. complete: shorthand to mark one step done. revise: atomically add/edit/move/split/supersede steps while preserving checked requirements. get: return current plan.\",\n"
  "        \"enum\": [\n"
  "          \"create\",\n"
  "          \"update\",\n"
  "          \"complete\",\n"
  "          \"revise\",\n"
  "          \"get\"\n"
  "        ]\n"
  "      }\n"
  "    },\n"
  "    \"required\": [\n"
  "      \"verb\"\n"
  "    ],\n"
  "    \"type\": \"object\"\n"
  "  }\n"
  "}\n";

static JsonObject *
get_definition (void)
{
  static JsonNode *node;

  /* Parsed once and sealed: the description string handed out by
   * get_description() lives as long as the process. */
  if (g_once_init_enter (&node))
    {
      JsonNode *parsed = _pd_tool_parse_schema (definition);

      json_node_seal (parsed);
      g_once_init_leave (&node, parsed);
    }

  return json_node_get_object (node);
}

const char *
_pd_plan_get_description (void)
{
  return json_object_get_string_member (get_definition (), "description");
}

JsonNode *
_pd_plan_get_parameters (void)
{
  g_autoptr(JsonGenerator) generator = json_generator_new ();
  g_autofree char *text = NULL;

  /* A deep copy: the caller owns it and may change it. */
  json_generator_set_root (generator, json_object_get_member (get_definition (), "parameters"));
  text = json_generator_to_data (generator, NULL);

  return _pd_tool_parse_schema (text);
}

PdToolResult *
_pd_plan_run (const PdToolCall *call)
{
  PdPlanStore *store = _pd_builtin_tool_get_state (call->tool);
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), call->args);
  g_autoptr(GError) local_error = NULL;
  char *text;

  text = pd_plan_store_execute_node (store, node, NULL, &local_error);

  /* A rejected call is an ordinary tool error: the message ("plan: …")
   * tells the model what to fix, and nothing changed. */
  if (text == NULL)
    return pd_tool_result_new (FALSE, local_error->message);

  return pd_tool_result_new_take (TRUE, text);
}

PdTool *
pd_plan_tool_new (PdPlanStore *store)
{
  g_return_val_if_fail (PD_IS_PLAN_STORE (store), NULL);

  return pd_tool_new_builtin ("plan", store);
}

/**
 * pd_plan_tool_get_store:
 *
 * Returns: (transfer none): the store the calls go to
 */
PdPlanStore *
pd_plan_tool_get_store (PdPlanTool *self)
{
  g_return_val_if_fail (PD_IS_PLAN_TOOL (self), NULL);

  return _pd_builtin_tool_get_state (self);
}
