/* pd-agent-engine.c: building an engine from command line settings. */
#define G_LOG_DOMAIN "plandeck-agent"

#include "config.h"

#include "pd-agent-engine.h"

void
pd_agent_engine_args_clear (PdAgentEngineArgs *args)
{
  g_clear_pointer (&args->provider_name, g_free);
  g_clear_pointer (&args->base_url, g_free);
  g_clear_pointer (&args->model, g_free);
  g_clear_pointer (&args->replay_path, g_free);
  g_clear_pointer (&args->approve, g_free);
  g_clear_pointer (&args->cwd, g_free);
}

void
pd_agent_engine_add_options (GOptionContext    *context,
                             PdAgentEngineArgs *args)
{
  GOptionEntry entries[] = {
    { "provider", 0, 0, G_OPTION_ARG_STRING, &args->provider_name, "openai (any OpenAI-compatible server), anthropic or replay", "NAME" },
    { "base-url", 0, 0, G_OPTION_ARG_STRING, &args->base_url, "The provider's base URL (default: $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL)", "URL" },
    { "model", 0, 0, G_OPTION_ARG_STRING, &args->model, "Model name (default: config, $PLANDECK_MODEL)", "NAME" },
    { "replay", 0, 0, G_OPTION_ARG_FILENAME, &args->replay_path, "replay: the recorded turns to play (a demo, not a model)", "FILE" },
    { "planning", 0, 0, G_OPTION_ARG_NONE, &args->planning_on, "Turn the plan tool on", NULL },
    { "no-planning", 0, 0, G_OPTION_ARG_NONE, &args->planning_off, "Turn the plan tool and all plan logic off", NULL },
    { "approve", 0, 0, G_OPTION_ARG_STRING, &args->approve, "Tool calls that change things: ask, auto or deny", "POLICY" },
    { "max-iterations", 0, 0, G_OPTION_ARG_INT, &args->max_iterations, "Stop after N model turns (default 50)", "N" },
    { "max-tokens", 0, 0, G_OPTION_ARG_INT64, &args->max_tokens, "Stop after N tokens in and out", "N" },
    { "max-seconds", 0, 0, G_OPTION_ARG_INT, &args->max_seconds, "Stop after N seconds", "N" },
    { "cwd", 'C', 0, G_OPTION_ARG_FILENAME, &args->cwd, "Working directory of the tools (default: the current one)", "DIR" },
    { "allow-outside", 0, 0, G_OPTION_ARG_NONE, &args->allow_outside, "Let file tools reach outside the working directory", NULL },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, NULL);
}

gboolean
pd_agent_engine_args_check (PdAgentEngineArgs  *args,
                            PdApprovalPolicy    default_policy,
                            PdApprovalPolicy   *policy,
                            GError            **error)
{
  *policy = default_policy;

  if (args->planning_on && args->planning_off)
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--planning and --no-planning together");
      return FALSE;
    }
  if (args->approve != NULL && !pd_approval_policy_from_string (args->approve, policy))
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--approve takes ask, auto or deny");
      return FALSE;
    }
  /* A budget below zero is a mistake, not "no budget": say so rather than
   * run with the default. */
  if (args->max_iterations < 0 || args->max_tokens < 0 || args->max_seconds < 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s takes a whole number from 1 up",
                   args->max_iterations < 0 ? "--max-iterations" :
                   args->max_tokens < 0 ? "--max-tokens" : "--max-seconds");
      return FALSE;
    }
  return TRUE;
}

/* A string member of a config section, or NULL (wrong types are ignored). */
static char *
section_string (JsonObject *section,
                const char *key)
{
  JsonNode *node = json_object_get_member (section, key);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return g_strdup (json_node_get_string (node));
}

/**
 * pd_agent_engine_args_apply_config:
 *
 * Fills what the command line left open from the config's "provider"
 * section: {"name", "base_url", "model"}.  Flags always win.
 */
void
pd_agent_engine_args_apply_config (PdAgentEngineArgs *args,
                                   PdConfig          *config)
{
  JsonObject *section = pd_config_get_section (config, "provider");

  if (section == NULL)
    return;
  if (args->provider_name == NULL)
    args->provider_name = section_string (section, "name");
  if (args->base_url == NULL)
    args->base_url = section_string (section, "base_url");
  if (args->model == NULL)
    args->model = section_string (section, "model");
}

const char *
pd_agent_engine_default_model (const char *provider)
{
  const char *env = g_getenv ("PLANDECK_MODEL");

  if (env != NULL && *env)
    return env;
  if (g_strcmp0 (provider, "anthropic") == 0)
    return "claude-sonnet-4-5";
  if (g_strcmp0 (provider, "replay") == 0)
    return "replay";
  return "gpt-4o-mini";
}

/**
 * pd_agent_engine_new:
 *
 * A provider, a tool registry with the builtins (and the plan tool when the
 * configuration plans), an approver and the limits, wired into a new engine
 * that saves to @spec->store and emits on @spec->bus.
 */
PdEngine *
pd_agent_engine_new (const PdAgentEngineSpec  *spec,
                     GError                  **error)
{
  const PdAgentEngineArgs *args = spec->args;
  g_autoptr(PdProvider) provider = NULL;
  g_autoptr(PdPlanStore) plan_store = NULL;
  g_autoptr(PdToolRegistry) tools = NULL;
  g_autoptr(PdApprover) approver = NULL;
  g_autoptr(PdToolContext) tool_context = NULL;
  g_autofree char *here = NULL;
  PdEngineOptions options = { 0 };

  if (!(provider = pd_provider_new_for_name (spec->provider_name, args->base_url, NULL, args->replay_path, error)))
    return NULL;

  here = args->cwd ? g_canonicalize_filename (args->cwd, NULL) : g_get_current_dir ();
  if (!(tool_context = pd_tool_context_new (here, error)))
    return NULL;
  pd_tool_context_set_allow_outside (tool_context, args->allow_outside);

  if (pd_config_get_planning_enabled (spec->config))
    plan_store = pd_plan_store_new (pd_config_get_planning_max_steps (spec->config),
                                    pd_config_get_planning_max_render_chars (spec->config));

  tools = pd_tool_registry_new ();
  pd_tool_registry_add_builtins (tools, plan_store);

  approver = pd_approver_new (spec->policy);
  if (spec->policy == PD_APPROVAL_POLICY_ASK && spec->terminal_approval)
    pd_approver_set_func (approver, pd_approver_terminal_func, NULL, NULL);

  /* A plan presented with exit_plan_mode is reviewed on the terminal; with
   * no one there (serve) the call fails and the model stays in plan mode. */
  if (spec->terminal_approval)
    {
      PdTool *exit_tool = pd_tool_registry_lookup (tools, "exit_plan_mode");

      if (exit_tool != NULL && PD_IS_EXIT_PLAN_MODE_TOOL (exit_tool))
        pd_exit_plan_mode_tool_set_review_func (PD_EXIT_PLAN_MODE_TOOL (exit_tool),
                                                pd_exit_plan_mode_terminal_review, NULL, NULL);
    }

  /* The config's "plan_mode" section: {"section": guidance, "advisory": bool}. */
  {
    JsonObject *plan_mode = pd_config_get_section (spec->config, "plan_mode");

    if (plan_mode != NULL)
      {
        JsonNode *section = json_object_get_member (plan_mode, "section");
        JsonNode *advisory = json_object_get_member (plan_mode, "advisory");

        if (section != NULL && JSON_NODE_HOLDS_VALUE (section) && json_node_get_value_type (section) == G_TYPE_STRING)
          options.plan_mode_section = json_node_get_string (section);
        if (advisory != NULL && JSON_NODE_HOLDS_VALUE (advisory) && json_node_get_value_type (advisory) == G_TYPE_BOOLEAN)
          options.plan_mode_advisory = json_node_get_boolean (advisory);
      }
  }

  options.provider = provider;
  options.model = spec->model;
  options.provider_name = spec->provider_name;
  options.tools = tools;
  options.plan_store = plan_store;
  options.approver = approver;
  options.store = spec->store;
  options.bus = spec->bus;
  options.tool_context = tool_context;
  options.run_id = spec->run_id;
  options.max_iterations = args->max_iterations > 0 ? (guint) args->max_iterations : 0;
  options.max_tokens = MAX (args->max_tokens, 0);
  options.max_wall_ms = args->max_seconds > 0 ? (gint64) args->max_seconds * 1000 : 0;

  return pd_engine_new (&options);
}
