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

/**
 * pd_agent_engine_load_config:
 *
 * The resolved configuration for a run with @args: the global config, the
 * project config of the folder the tools work in (-C DIR, or the current
 * one), the environment, and these command line options on top.
 */
PdConfig *
pd_agent_engine_load_config (const PdAgentEngineArgs *args)
{
  PdConfigLoadOptions options = PD_CONFIG_LOAD_OPTIONS_INIT;
  g_autofree char *project = NULL;

  if (args->cwd != NULL)
    project = g_build_filename (args->cwd, "plandeck.json", NULL);
  options.project_path = project;
  options.cli_planning = args->planning_on ? 1 : args->planning_off ? 0 : -1;
  options.cli_provider = args->provider_name;
  options.cli_base_url = args->base_url;
  options.cli_model = args->model;
  options.cli_max_iterations = MAX (args->max_iterations, 0);
  options.cli_max_tokens = MAX (args->max_tokens, 0);
  options.cli_max_seconds = MAX (args->max_seconds, 0);
  options.cli_allow_outside = args->allow_outside;

  return pd_config_load (&options);
}

const char *
pd_agent_engine_default_model (const char *provider)
{
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
 * that saves to @spec->store and emits on @spec->bus.  Everything but the
 * approval comes from @spec->config: its typed values, never a section read
 * here, so what a project file may not set cannot reach the engine.
 */
PdEngine *
pd_agent_engine_new (const PdAgentEngineSpec  *spec,
                     GError                  **error)
{
  const PdAgentEngineArgs *args = spec->args;
  PdConfig *config = spec->config;
  g_autoptr(PdProvider) provider = NULL;
  g_autoptr(PdPlanStore) plan_store = NULL;
  g_autoptr(PdToolRegistry) tools = NULL;
  g_autoptr(PdApprover) approver = NULL;
  g_autoptr(PdToolContext) tool_context = NULL;
  g_autofree char *here = NULL;
  const char *provider_name = pd_config_get_provider_name (config);
  const char *base_url = NULL;
  const char *api_key = NULL;
  const char *model = NULL;
  guint max_output_tokens = 0;
  guint thinking_budget = 0;
  PdEngineOptions options = { 0 };

  /* A continued session keeps its provider and model unless the command
   * line names others; the config's endpoint and key go with the config's
   * provider only. */
  if (spec->provider_name != NULL)
    provider_name = spec->provider_name;
  if (g_strcmp0 (provider_name, pd_config_get_provider_name (config)) == 0)
    {
      const char *key_env = pd_config_get_provider_api_key_env (config);

      base_url = pd_config_get_provider_base_url (config);
      model = pd_config_get_provider_model (config);
      api_key = key_env != NULL ? g_getenv (key_env) : NULL;
      max_output_tokens = pd_config_get_max_output_tokens (config);
      thinking_budget = pd_config_get_thinking_budget (config);
    }
  if (spec->model != NULL)
    model = spec->model;
  if (model == NULL)
    model = pd_agent_engine_default_model (provider_name);

  if (!(provider = pd_provider_new_for_name (provider_name, base_url, api_key, args->replay_path, error)))
    return NULL;

  here = args->cwd ? g_canonicalize_filename (args->cwd, NULL) : g_get_current_dir ();
  if (!(tool_context = pd_tool_context_new (here, error)))
    return NULL;
  pd_tool_context_set_allow_outside (tool_context, pd_config_get_allow_outside (config));

  if (pd_config_get_planning_enabled (config))
    plan_store = pd_plan_store_new (pd_config_get_planning_max_steps (config),
                                    pd_config_get_planning_max_render_chars (config));

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

  options.provider = provider;
  options.model = model;
  options.provider_name = provider_name;
  options.tools = tools;
  options.plan_store = plan_store;
  options.approver = approver;
  options.store = spec->store;
  options.bus = spec->bus;
  options.tool_context = tool_context;
  options.run_id = spec->run_id;
  options.max_iterations = pd_config_get_max_iterations (config);
  options.max_tokens = pd_config_get_max_tokens (config);
  options.max_wall_ms = (gint64) pd_config_get_max_seconds (config) * 1000;
  options.max_output_tokens = max_output_tokens;
  options.thinking_budget = thinking_budget;
  options.plan_mode_section = pd_config_get_plan_mode_section (config);
  options.plan_mode_advisory = pd_config_get_plan_mode_advisory (config);

  return pd_engine_new (&options);
}
