/* pd-agent-engine.c: building an engine from command line settings.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "plandeck-agent"

#include "config.h"

#include <glib/gi18n.h>

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
    { "provider", 0, 0, G_OPTION_ARG_STRING, &args->provider_name, N_("openai (any OpenAI-compatible server), anthropic or replay"), N_("NAME") },
    { "base-url", 0, 0, G_OPTION_ARG_STRING, &args->base_url, N_("The provider's base URL (default: $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL)"), N_("URL") },
    { "model", 0, 0, G_OPTION_ARG_STRING, &args->model, N_("Model name (default: config, $PLANDECK_MODEL)"), N_("NAME") },
    { "replay", 0, 0, G_OPTION_ARG_FILENAME, &args->replay_path, N_("replay: the recorded turns to play (a demo, not a model)"), N_("FILE") },
    { "planning", 0, 0, G_OPTION_ARG_NONE, &args->planning_on, N_("Turn the plan tool on"), NULL },
    { "no-planning", 0, 0, G_OPTION_ARG_NONE, &args->planning_off, N_("Turn the plan tool and all plan logic off"), NULL },
    { "approve", 0, 0, G_OPTION_ARG_STRING, &args->approve, N_("Tool calls that change things: ask, auto or deny"), N_("POLICY") },
    { "max-iterations", 0, 0, G_OPTION_ARG_INT, &args->max_iterations, N_("Stop after N model turns (default 50)"), N_("N") },
    { "max-tokens", 0, 0, G_OPTION_ARG_INT64, &args->max_tokens, N_("Stop after N tokens in and out"), N_("N") },
    { "max-seconds", 0, 0, G_OPTION_ARG_INT, &args->max_seconds, N_("Stop after N seconds"), N_("N") },
    { "cwd", 'C', 0, G_OPTION_ARG_FILENAME, &args->cwd, N_("Working directory of the tools (default: the current one)"), N_("DIR") },
    { "allow-outside", 0, 0, G_OPTION_ARG_NONE, &args->allow_outside, N_("Let file tools reach outside the working directory"), NULL },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
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
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _("--planning and --no-planning together"));
      return FALSE;
    }
  /* A misspelt --provider is bad usage (status 2), like a bad --approve. */
  if (args->provider_name != NULL && g_strcmp0 (args->provider_name, "openai") != 0 &&
      g_strcmp0 (args->provider_name, "anthropic") != 0 && g_strcmp0 (args->provider_name, "replay") != 0)
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           _("--provider takes openai, anthropic or replay"));
      return FALSE;
    }
  if (args->approve != NULL && !pd_approval_policy_from_string (args->approve, policy))
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _("--approve takes ask, auto or deny"));
      return FALSE;
    }
  /* A budget below zero is a mistake, not "no budget": say so rather than
   * run with the default. */
  if (args->max_iterations < 0 || args->max_tokens < 0 || args->max_seconds < 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _("%s takes a whole number from 1 up"),
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

/**
 * pd_agent_engine_builder_new:
 * @terminal: a person is at the terminal to approve changes and review plans
 *
 * The core engine builder for @config, with what the command line adds: the
 * replay recording, the tools' folder, and the terminal as the one who
 * answers (or nobody, for serve: then asking means no).
 */
PdEngineBuilder *
pd_agent_engine_builder_new (const PdAgentEngineArgs *args,
                             PdConfig                *config,
                             PdApprovalPolicy         policy,
                             gboolean                 terminal)
{
  PdEngineBuilder *builder = pd_engine_builder_new (config);

  pd_engine_builder_set_replay_path (builder, args->replay_path);
  pd_engine_builder_set_working_directory (builder, args->cwd);
  pd_engine_builder_set_approval (builder, policy,
                                  terminal && policy == PD_APPROVAL_POLICY_ASK ? pd_approver_terminal_func : NULL,
                                  NULL, NULL);
  /* With no one there (serve) exit_plan_mode fails and the model stays in
   * plan mode. */
  if (terminal)
    pd_engine_builder_set_review_func (builder, pd_exit_plan_mode_terminal_review, NULL, NULL);

  return builder;
}
