/* pd-agent-run.c: `plandeck-agent run` and `continue` — the engine, headless.
 *
 *   run      [OPTIONS] TASK
 *   continue [OPTIONS] SESSION_ID [MESSAGE]
 *
 * The assistant's text streams to stdout, tool calls and engine notices go
 * to stderr briefly, and the exit status says how the run ended: 0 done,
 * 1 failed or cancelled, 2 bad usage, 3 a budget ran out.  Every run is a
 * stored session from its first turn.
 */
#define G_LOG_DOMAIN "plandeck-agent"

#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib-unix.h>

#include "pd-agent-commands.h"
#include "pd-agent-common.h"
#include "pd-config.h"
#include "pd-engine.h"
#include "pd-event.h"

typedef struct
{
  GMainLoop    *loop;
  GCancellable *cancellable;
  PdRunResult  *result;
  GError       *error;
  GString      *turn_text;   /* what streamed since the last tool batch */
  gboolean      quiet;
  gboolean      at_line_start;
} RunState;

static void
on_progress (PdEngineProgress  kind,
             const char       *text,
             gpointer          user_data)
{
  RunState *state = user_data;

  switch (kind)
    {
    case PD_ENGINE_PROGRESS_TEXT:
      g_string_append (state->turn_text, text);
      fputs (text, stdout);
      fflush (stdout);
      state->at_line_start = text[0] != '\0' && text[strlen (text) - 1] == '\n';
      break;

    case PD_ENGINE_PROGRESS_REASONING:
      break;

    case PD_ENGINE_PROGRESS_TOOL_START:
      if (!state->at_line_start && state->turn_text->len > 0)
        {
          fputc ('\n', stdout);
          fflush (stdout);
        }
      state->at_line_start = TRUE;
      g_string_truncate (state->turn_text, 0);
      if (!state->quiet)
        fprintf (stderr, "\xe2\x86\x92 %s\n", text);
      break;

    case PD_ENGINE_PROGRESS_TOOL_END:
      if (!state->quiet && g_strcmp0 (text, "ok") != 0)
        fprintf (stderr, "  (%s)\n", text);
      break;

    case PD_ENGINE_PROGRESS_NOTICE:
      /* A notice ends the answer streamed so far. */
      if (!state->at_line_start && state->turn_text->len > 0)
        {
          fputc ('\n', stdout);
          fflush (stdout);
          state->at_line_start = TRUE;
        }
      if (!state->quiet)
        fprintf (stderr, "%s\n", text);
      break;

    case PD_ENGINE_PROGRESS_SESSION:
      if (!state->quiet)
        fprintf (stderr, "session %s\n", text);
      break;

    default:
      break;
    }
}

static void
on_run_done (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  RunState *state = user_data;

  state->result = pd_engine_run_finish (PD_ENGINE (source), result, &state->error);
  g_main_loop_quit (state->loop);
}

static gboolean
on_interrupt (gpointer user_data)
{
  RunState *state = user_data;

  fprintf (stderr, "\nstopping: the run ends after the current step (Ctrl+C again to quit at once)\n");
  if (g_cancellable_is_cancelled (state->cancellable))
    _exit (130);
  g_cancellable_cancel (state->cancellable);
  return G_SOURCE_CONTINUE;
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

static const char *
default_model (const char *provider)
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

static int
run_main (gboolean   is_continue,
          int        argc,
          char     **argv)
{
  const char *command = is_continue ? "continue" : "run";
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *db_path = NULL;
  g_autofree char *provider_name = NULL;
  g_autofree char *base_url = NULL;
  g_autofree char *model = NULL;
  g_autofree char *replay_path = NULL;
  g_autofree char *events_jsonl = NULL;
  g_autofree char *approve = NULL;
  g_autofree char *cwd = NULL;
  gboolean planning_on = FALSE, planning_off = FALSE, allow_outside = FALSE, quiet = FALSE;
  int max_iterations = 0, max_seconds = 0;
  gint64 max_tokens = 0;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, "Session database (default: $XDG_DATA_HOME/plandeck/sessions.db)", "PATH" },
    { "provider", 0, 0, G_OPTION_ARG_STRING, &provider_name, "openai (any OpenAI-compatible server), anthropic or replay", "NAME" },
    { "base-url", 0, 0, G_OPTION_ARG_STRING, &base_url, "The provider's base URL (default: $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL)", "URL" },
    { "model", 0, 0, G_OPTION_ARG_STRING, &model, "Model name (default: config, $PLANDECK_MODEL)", "NAME" },
    { "replay", 0, 0, G_OPTION_ARG_FILENAME, &replay_path, "replay: the recorded turns to play (a demo, not a model)", "FILE" },
    { "events-jsonl", 0, 0, G_OPTION_ARG_FILENAME, &events_jsonl, "Also write every event to this file, one JSON line each (mode 0600)", "PATH" },
    { "planning", 0, 0, G_OPTION_ARG_NONE, &planning_on, "Turn the plan tool on", NULL },
    { "no-planning", 0, 0, G_OPTION_ARG_NONE, &planning_off, "Turn the plan tool and all plan logic off", NULL },
    { "approve", 0, 0, G_OPTION_ARG_STRING, &approve, "Tool calls that change things: ask (default), auto or deny", "POLICY" },
    { "max-iterations", 0, 0, G_OPTION_ARG_INT, &max_iterations, "Stop after N model turns (default 50)", "N" },
    { "max-tokens", 0, 0, G_OPTION_ARG_INT64, &max_tokens, "Stop after N tokens in and out", "N" },
    { "max-seconds", 0, 0, G_OPTION_ARG_INT, &max_seconds, "Stop after N seconds", "N" },
    { "cwd", 'C', 0, G_OPTION_ARG_FILENAME, &cwd, "Working directory of the tools (default: the current one)", "DIR" },
    { "allow-outside", 0, 0, G_OPTION_ARG_NONE, &allow_outside, "Let file tools reach outside the working directory", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "Only the assistant's text", NULL },
    { NULL }
  };
  g_autoptr(PdConfig) config = NULL;
  PdConfigLoadOptions config_options = PD_CONFIG_LOAD_OPTIONS_INIT;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdProvider) provider = NULL;
  g_autoptr(PdPlanStore) plan_store = NULL;
  g_autoptr(PdToolRegistry) tools = NULL;
  g_autoptr(PdApprover) approver = NULL;
  g_autoptr(PdToolContext) tool_context = NULL;
  g_autoptr(PdEventBus) bus = NULL;
  g_autoptr(PdEngine) engine = NULL;
  g_autofree char *here = NULL;
  PdApprovalPolicy policy = PD_APPROVAL_POLICY_ASK;
  PdEngineOptions options = { 0 };
  RunState state = { 0 };
  const char *session_id = NULL;
  const char *message = NULL;
  guint sigint = 0;
  int status;

  context = g_option_context_new (is_continue ? "SESSION_ID [MESSAGE]" : "TASK");
  g_option_context_set_summary (context, is_continue ? "Resume a stored session, optionally with a new message."
                                                     : "Run an agent session on TASK in the working directory.");
  g_option_context_add_main_entries (context, entries, NULL);

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      fprintf (stderr, "plandeck-agent %s: %s\n", command, error->message);
      return 2;
    }

  if (is_continue ? (argc < 2 || argc > 3) : argc < 2)
    {
      g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);
      fprintf (stderr, "%s", help);
      return 2;
    }

  if (planning_on && planning_off)
    {
      fprintf (stderr, "plandeck-agent %s: --planning and --no-planning together\n", command);
      return 2;
    }

  if (approve != NULL && !pd_approval_policy_from_string (approve, &policy))
    {
      fprintf (stderr, "plandeck-agent %s: --approve takes ask, auto or deny\n", command);
      return 2;
    }

  if (is_continue)
    {
      session_id = argv[1];
      message = argc == 3 ? argv[2] : NULL;
      if (!pd_session_id_is_valid (session_id))
        {
          fprintf (stderr, "plandeck-agent continue: '%s' is not a session id (YYYYMMDD- and 32 hex digits)\n", session_id);
          return 2;
        }
    }
  else
    {
      g_autofree char *joined = g_strjoinv (" ", argv + 1);
      message = g_intern_string (joined);
    }

  config_options.cli_planning = planning_on ? 1 : planning_off ? 0 : -1;
  config = pd_config_load (&config_options);
  {
    const char * const *warnings = pd_config_get_warnings (config);
    for (guint i = 0; warnings[i]; i++)
      fprintf (stderr, "plandeck-agent: warning: %s\n", warnings[i]);
  }

  if (!(store = pd_agent_open_store (db_path, TRUE, &error)))
    return pd_agent_fail (command, error);

  /* A continued session keeps its provider and model unless told otherwise. */
  if (is_continue)
    {
      g_autoptr(PdSessionInfo) info = pd_session_store_get (store, session_id, &error);

      if (info == NULL)
        return pd_agent_fail (command, error);
      if (provider_name == NULL && info->provider && *info->provider)
        provider_name = g_strdup (info->provider);
      if (model == NULL && info->model && *info->model)
        model = g_strdup (info->model);
    }

  /* The config's "provider" section: {"name", "base_url", "model"}; flags win. */
  {
    JsonObject *section = pd_config_get_section (config, "provider");

    if (section != NULL)
      {
        if (provider_name == NULL)
          provider_name = section_string (section, "name");
        if (base_url == NULL)
          base_url = section_string (section, "base_url");
        if (model == NULL)
          model = section_string (section, "model");
      }
  }

  if (provider_name == NULL)
    provider_name = g_strdup ("openai");
  if (model == NULL)
    model = g_strdup (default_model (provider_name));

  if (!(provider = pd_provider_new_for_name (provider_name, base_url, NULL, replay_path, &error)))
    return pd_agent_fail (command, error);

  here = cwd ? g_canonicalize_filename (cwd, NULL) : g_get_current_dir ();
  if (!(tool_context = pd_tool_context_new (here, &error)))
    return pd_agent_fail (command, error);
  pd_tool_context_set_allow_outside (tool_context, allow_outside);

  if (pd_config_get_planning_enabled (config))
    plan_store = pd_plan_store_new (pd_config_get_planning_max_steps (config),
                                    pd_config_get_planning_max_render_chars (config));

  tools = pd_tool_registry_new ();
  pd_tool_registry_add_builtins (tools, plan_store);

  approver = pd_approver_new (policy);
  if (policy == PD_APPROVAL_POLICY_ASK)
    pd_approver_set_func (approver, pd_approver_terminal_func, NULL, NULL);

  bus = pd_event_bus_new ();
  pd_engine_store_events (bus, store);
  if (events_jsonl != NULL && !pd_event_bus_open_jsonl (bus, events_jsonl, &error))
    return pd_agent_fail (command, error);

  options.provider = provider;
  options.model = model;
  options.provider_name = provider_name;
  options.tools = tools;
  options.plan_store = plan_store;
  options.approver = approver;
  options.store = store;
  options.bus = bus;
  options.tool_context = tool_context;
  options.max_iterations = max_iterations > 0 ? (guint) max_iterations : 0;
  options.max_tokens = MAX (max_tokens, 0);
  options.max_wall_ms = max_seconds > 0 ? (gint64) max_seconds * 1000 : 0;
  engine = pd_engine_new (&options);

  state.loop = g_main_loop_new (NULL, FALSE);
  state.cancellable = g_cancellable_new ();
  state.turn_text = g_string_new (NULL);
  state.quiet = quiet;
  state.at_line_start = TRUE;
  pd_engine_set_progress_func (engine, on_progress, &state, NULL);

  sigint = g_unix_signal_add (SIGINT, on_interrupt, &state);
  pd_engine_run_async (engine, session_id, message, state.cancellable, on_run_done, &state);
  g_main_loop_run (state.loop);
  g_source_remove (sigint);

  if (state.result == NULL)
    {
      status = pd_agent_fail (command, state.error);
      g_clear_error (&state.error);
    }
  else
    {
      const char *final = state.result->final_text ? state.result->final_text : "";

      /* The answer streamed already; print what the engine added to it. */
      if (g_str_has_prefix (final, state.turn_text->str) && state.turn_text->len > 0)
        printf ("%s\n", final + state.turn_text->len);
      else
        printf ("%s%s\n", state.at_line_start ? "" : "\n", final);

      if (!quiet)
        fprintf (stderr, "session %s: %s after %u iteration%s, %" G_GINT64_FORMAT " tokens in, %" G_GINT64_FORMAT " out\n",
                 state.result->session_id,
                 state.result->status == PD_RUN_COMPLETED ? "done" :
                 state.result->status == PD_RUN_BUDGET_EXCEEDED ? "stopped by its budget" :
                 state.result->status == PD_RUN_CANCELLED ? "cancelled" : "failed",
                 state.result->iterations, state.result->iterations == 1 ? "" : "s",
                 state.result->input_tokens, state.result->output_tokens);

      status = state.result->status == PD_RUN_COMPLETED ? 0 : state.result->status == PD_RUN_BUDGET_EXCEEDED ? 3 : 1;
      pd_run_result_free (state.result);
    }

  pd_event_bus_flush (bus);
  g_main_loop_unref (state.loop);
  g_object_unref (state.cancellable);
  g_string_free (state.turn_text, TRUE);

  return status;
}

int
pd_agent_run_main (int    argc,
                   char **argv)
{
  return run_main (FALSE, argc, argv);
}

int
pd_agent_continue_main (int    argc,
                        char **argv)
{
  return run_main (TRUE, argc, argv);
}
