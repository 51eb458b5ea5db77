/* pd-agent-run.c: `plandeck-agent run` and `continue` — the engine, headless.
 *
 *   run      [OPTIONS] TASK
 *   continue [OPTIONS] SESSION_ID [MESSAGE]
 *
 * The assistant's text streams to stdout and nothing else does; tool calls,
 * engine notices, failures and refusals go to stderr, and the exit status
 * says how the run ended: 0 done, 1 failed, cancelled or refused, 2 bad
 * usage, 3 a budget ran out (the run's, or the answer's output limit).  Every run is a stored session from its first
 * turn.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "plandeck-agent"

#include "config.h"

#include <glib/gi18n.h>

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib-unix.h>

#include "pd-agent-commands.h"
#include "pd-agent-common.h"
#include "pd-agent-engine.h"
#include "pd-config.h"
#include "pd-engine.h"
#include "pd-event.h"
#include "pd-event-bus.h"
#include "pd-run-note.h"
#include "pd-safe-text.h"
#include "pd-secret-text.h"

typedef struct
{
  GMainLoop    *loop;
  GCancellable *cancellable;
  PdRunResult  *result;
  GError       *error;
  GString      *turn_text;   /* what streamed since the last tool batch */
  gboolean      quiet;
  gboolean      at_line_start;
  gboolean      stdout_tty;  /* model text is made safe for the terminal */
  gboolean      new_answer;  /* text after a notice is a new answer */
  char         *held_notice; /* the last notice, printed with what comes next */
} RunState;

/* A notice held back is printed (the budget's is told by the run's end). */
static void
print_held_notice (RunState *state)
{
  g_autofree char *held = g_steal_pointer (&state->held_notice);
  g_autofree char *block = NULL;

  if (held != NULL && !state->quiet)
    fprintf (stderr, "%s\n", (block = pd_safe_text_block (held + strspn (held, "\n"))));
}

static void
on_progress (PdEngineProgress  kind,
             const char       *text,
             gpointer          user_data)
{
  RunState *state = user_data;
  /* A key or URL password the model or server echoes is never printed
   * (within what one piece of the stream carries). */
  g_autofree char *masked = pd_secret_text_mask (text, NULL);
  /* Model text on a terminal: escapes and bidi controls are shown, never
   * obeyed (a piped answer stays exactly as the model wrote it). */
  g_autofree char *line = NULL;
  g_autofree char *block = NULL;

  text = masked != NULL ? masked : text;
  line = pd_safe_text_line (text);
  /* What comes after a notice shows it was not the run's last word. */
  print_held_notice (state);

  switch (kind)
    {
    case PD_ENGINE_PROGRESS_TEXT:
      /* After a notice (the engine sending the model back to its open plan
       * steps, say) the model answers anew: that answer goes on a line of
       * its own, and only it is compared with the final text. */
      if (state->new_answer)
        {
          if (!state->at_line_start)
            fputc ('\n', stdout);
          g_string_truncate (state->turn_text, 0);
          state->new_answer = FALSE;
        }
      g_string_append (state->turn_text, text);
      if (state->stdout_tty)
        fputs ((block = pd_safe_text_block (text)), stdout);
      else
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
      /* The call's summary, with padding said as the prompt says it: the
       * line just above a question printed 1,900 spaces raw (tried as an
       * attacker would).  One line: a tool's name may hold a line break. */
      if (!state->quiet)
        {
          g_autofree char *said = pd_safe_text_approval (text);

          fprintf (stderr, "\xe2\x86\x92 %s\n", (block = pd_safe_text_line (said)));
        }
      break;

    case PD_ENGINE_PROGRESS_TOOL_END:
      if (!state->quiet && g_strcmp0 (text, "ok") != 0)
        fprintf (stderr, "  (%s)\n", line);
      break;

    case PD_ENGINE_PROGRESS_NOTICE:
      state->new_answer = TRUE;
      /* A notice the engine also appends to the answer (the verification
       * note) starts with the blank line that parts it from the answer
       * there; on stderr it is a line of its own.  Held until what comes
       * next: the note of a budget that ran out is the run's last word,
       * told in the window's words once the run has ended. */
      state->held_notice = g_strdup (text);
      break;

    case PD_ENGINE_PROGRESS_RETRY:
    case PD_ENGINE_PROGRESS_DISCARDED:
      /* The text of that answer was printed already; what comes next is a
       * new answer, on a line of its own.  Retries are told even with
       * --quiet: a run that waits must say why. */
      if (!state->at_line_start)
        {
          fputc ('\n', stdout);
          fflush (stdout);
        }
      state->at_line_start = TRUE;
      g_string_truncate (state->turn_text, 0);
      if (!state->quiet || kind == PD_ENGINE_PROGRESS_RETRY)
        fprintf (stderr, "%s\n", line);
      break;

    case PD_ENGINE_PROGRESS_SESSION:
      if (!state->quiet)
        fprintf (stderr, _("session %s\n"), text);
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

  fprintf (stderr, "\n%s\n", _("stopping: the run ends after the current step (Ctrl+C again to quit at once)"));
  if (g_cancellable_is_cancelled (state->cancellable))
    _exit (130);
  g_cancellable_cancel (state->cancellable);
  return G_SOURCE_CONTINUE;
}

/* SIGTERM (kill, a service manager) or SIGHUP (the terminal closed) ended
 * the process at once, and a shell call's command ran on with no one
 * watching (tried as an attacker would: 13 s after the agent had gone).
 * Ended as Ctrl+C ends a run, its tool calls stopped with it; then no
 * next turn. A second one quits at once, as a second Ctrl+C does. */
static gboolean
on_terminate (gpointer user_data)
{
  RunState *state = user_data;

  if (g_cancellable_is_cancelled (state->cancellable))
    _exit (143);
  fprintf (stderr, "\n%s\n", _("stopping: the run ends after the current step, its commands stopped"));
  g_cancellable_cancel (state->cancellable);
  return G_SOURCE_CONTINUE;
}


/* Approvals and plan reviews are asked on the controlling terminal, not on
 * stdin (which may carry the task or, with --interactive, the messages). */
static gboolean
have_terminal (void)
{
  int fd = open ("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);

  if (fd < 0)
    return FALSE;
  close (fd);
  return TRUE;
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
  g_autofree char *events_jsonl = NULL;
  g_auto(PdAgentEngineArgs) args = { 0 };
  gboolean quiet = FALSE;
  gboolean plan_mode = FALSE;
  gboolean interactive = FALSE;
  GOptionEntry entries[] = {
    { "db", 0, 0, G_OPTION_ARG_FILENAME, &db_path, N_("Session database (default: $XDG_DATA_HOME/plandeck/sessions.db)"), N_("PATH") },
    { "events-jsonl", 0, 0, G_OPTION_ARG_FILENAME, &events_jsonl, N_("Also write every event to this file, one JSON line each (mode 0600)"), N_("PATH") },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, N_("Only the assistant's text"), NULL },
    { "interactive", 'i', 0, G_OPTION_ARG_NONE, &interactive, N_("After each answer, read the next message from stdin (/plan, /plan off, /plan TEXT work too)"), NULL },
    { "plan-mode", 0, 0, G_OPTION_ARG_NONE, &plan_mode, N_("Start in plan mode: explore and propose, change nothing until the plan is approved"), NULL },
    { NULL }
  };
  g_autoptr(PdConfig) config = NULL;
  g_autofree char *stored_provider = NULL;
  g_autofree char *stored_model = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdEventBus) bus = NULL;
  g_autoptr(PdEngine) engine = NULL;
  PdApprovalPolicy policy = PD_APPROVAL_POLICY_ASK;
  g_autoptr(PdEngineBuilder) builder = NULL;
  RunState state = { 0 };
  const char *session_id = NULL;
  const char *message = NULL;
  guint sigint = 0;
  guint sigterm = 0;
  guint sighup = 0;
  gboolean terminal;
  int status;

  /* Translators: the words of the usage line that stand for what to give. */
  context = g_option_context_new (is_continue ? _("SESSION_ID [MESSAGE]") : _("TASK"));
  g_option_context_set_summary (context, is_continue ? _("Resume a stored session, optionally with a new message.")
                                                     : _("Run an agent session on TASK in the working directory."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  pd_agent_engine_add_options (context, &args);

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

  if (!pd_agent_engine_args_check (&args, PD_APPROVAL_POLICY_ASK, &policy, &error))
    {
      fprintf (stderr, "plandeck-agent %s: %s\n", command, error->message);
      return 2;
    }

  if (is_continue)
    {
      session_id = argv[1];
      message = argc == 3 ? argv[2] : NULL;
      if (plan_mode)
        {
          g_autofree char *planned = g_strconcat ("/plan", message ? " " : "", message ? message : "", NULL);
          message = g_intern_string (planned);
        }
      if (!pd_session_id_is_valid (session_id))
        {
          {
            /* Shown as one safe line: an argument is not always typed by hand. */
            g_autofree char *shown_id = pd_safe_text_line (session_id);

            fprintf (stderr, _("plandeck-agent continue: “%s” is not a session id (YYYYMMDD- and 32 hex digits)\n"), shown_id);
          }
          return 2;
        }
    }
  else
    {
      g_autofree char *joined = g_strjoinv (" ", argv + 1);
      g_autofree char *planned = plan_mode ? g_strconcat ("/plan ", joined, NULL) : NULL;

      message = g_intern_string (planned ? planned : joined);
    }

  config = pd_agent_engine_load_config (&args);
  {
    const char * const *warnings = pd_config_get_warnings (config);
    for (guint i = 0; warnings[i]; i++)
      fprintf (stderr, _("plandeck-agent: warning: %s\n"), warnings[i]);
  }

  if (!(store = pd_agent_open_store (db_path, TRUE, &error)))
    return pd_agent_fail (command, error);

  /* A continued session keeps its provider and model unless told otherwise. */
  if (is_continue)
    {
      g_autoptr(PdSessionInfo) info = pd_session_store_get (store, session_id, &error);

      if (info == NULL)
        return pd_agent_fail (command, error);
      if (args.provider_name == NULL && info->provider && *info->provider)
        stored_provider = g_strdup (info->provider);
      if (args.model == NULL && info->model && *info->model)
        stored_model = g_strdup (info->model);
    }

  bus = pd_event_bus_new ();
  pd_engine_store_events (bus, store);
  if (events_jsonl != NULL && !pd_event_bus_open_jsonl (bus, events_jsonl, &error))
    return pd_agent_fail (command, error);

  terminal = have_terminal ();
  builder = pd_agent_engine_builder_new (&args, config, policy, terminal);
  pd_engine_builder_set_provider_name (builder, stored_provider);
  pd_engine_builder_set_model (builder, stored_model);
  pd_engine_builder_set_store (builder, store);
  pd_engine_builder_set_bus (builder, bus);

  /* replay plays a recording: without one there is nothing to run (a
   * session that ran with it is continued with it unless --provider says). */
  if (g_strcmp0 (pd_engine_builder_get_provider_name (builder), "replay") == 0 && args.replay_path == NULL)
    {
      if (stored_provider != NULL)
        fprintf (stderr, _("plandeck-agent %s: the replay provider plays recorded turns: pass --replay FILE "
                           "(this session ran with replay; --provider picks another)\n"), command);
      else
        fprintf (stderr, _("plandeck-agent %s: the replay provider plays recorded turns: pass --replay FILE\n"), command);
      return 2;
    }

  if (!(engine = pd_engine_builder_build (builder, &error)))
    return pd_agent_fail (command, error);

  /* Without a terminal (a script, cron, CI) no one can answer: say so once
   * instead of leaving each refused call to explain itself. */
  if (!terminal && policy == PD_APPROVAL_POLICY_ASK)
    fprintf (stderr, _("plandeck-agent %s: no terminal to ask on: tool calls that change files or run commands "
                       "will be refused, and a plan-mode plan cannot be approved; pass --approve auto to allow "
                       "them, or --approve deny to refuse them without this note\n"), command);
  else if (!terminal && plan_mode)
    fprintf (stderr, _("plandeck-agent %s: no terminal to review the plan on: the session stays in plan mode; "
                       "run it from a terminal, or continue it with \"/plan off\"\n"), command);

  state.loop = g_main_loop_new (NULL, FALSE);
  state.cancellable = g_cancellable_new ();
  state.turn_text = g_string_new (NULL);
  state.quiet = quiet;
  state.stdout_tty = isatty (STDOUT_FILENO);
  state.at_line_start = TRUE;
  pd_engine_set_progress_func (engine, on_progress, &state, NULL);

  sigint = g_unix_signal_add (SIGINT, on_interrupt, &state);
  sigterm = g_unix_signal_add (SIGTERM, on_terminate, &state);
  sighup = g_unix_signal_add (SIGHUP, on_terminate, &state);

  /* One run, or with --interactive a conversation: after each answer the
   * next line on stdin continues the session ("/plan", "/plan off" and
   * "/plan TEXT" select plan mode; an empty line or end of input ends). */
  for (;;)
    {
      g_autofree char *next_session = NULL;
      char line[16384];

      state.result = NULL;
      g_string_truncate (state.turn_text, 0);
      pd_engine_run_async (engine, session_id, message, state.cancellable, on_run_done, &state);
      g_main_loop_run (state.loop);

      if (state.result == NULL)
        {
          print_held_notice (&state);
          status = pd_agent_fail (command, state.error);
          g_clear_error (&state.error);
          break;
        }
      else
        {
          g_autofree char *final_masked = pd_secret_text_mask (state.result->final_text, NULL);
          const char *final = final_masked ? final_masked : "";
          PdRunStatus run_status = state.result->status;
          /* A budget's stop in the window's words, as its Transcript's
           * Notice: "its iteration budget ran out (3 of 3)", not the
           * engine's "its iterations budget is exhausted". */
          g_autofree char *budget = run_status == PD_RUN_BUDGET_EXCEEDED ? pd_run_note_to_text (final) : NULL;

          if (budget != NULL && g_strcmp0 (state.held_notice, final) == 0)
            {
              g_clear_pointer (&state.held_notice, g_free);
              if (!quiet)
                {
                  g_autofree char *block = pd_safe_text_block (budget);

                  fprintf (stderr, "%s\n", block);
                }
            }
          print_held_notice (&state);

          /* stdout is the answer and nothing else: failures, refusals and
           * stops are told on stderr (as notices while the run goes, and
           * once more here when --quiet kept those quiet). */
          if (run_status == PD_RUN_COMPLETED || run_status == PD_RUN_INCOMPLETE)
            {
              /* The answer streamed already; print what the engine added to it. */
              const char *rest = final;
              g_autofree char *shown = NULL;

              if (g_str_has_prefix (final, state.turn_text->str) && state.turn_text->len > 0)
                rest = final + state.turn_text->len;
              else if (!state.at_line_start)
                printf ("\n");
              if (state.stdout_tty)
                rest = shown = pd_safe_text_block (rest);
              printf ("%s\n", rest);
            }
          else
            {
              if (!state.at_line_start)
                printf ("\n");
              if (quiet)
                {
                  g_autofree char *shown = pd_safe_text_block (state.result->error_message ? state.result->error_message
                                                               : budget != NULL ? budget : final);

                  fprintf (stderr, "plandeck-agent %s: %s\n", command, shown);
                }
            }
          if (run_status == PD_RUN_INCOMPLETE)
            {
              g_autofree char *shown = pd_safe_text_block (state.result->error_message);

              fprintf (stderr, "plandeck-agent %s: %s\n", command, shown);
            }
          fflush (stdout);

          if (!quiet)
            /* Translators: session ID: how the run ended (done, cancelled…) after N iterations,
             * N tokens in, N out. */
            fprintf (stderr, ngettext ("session %s: %s after %u iteration, %lld tokens in, %lld out\n",
                                       "session %s: %s after %u iterations, %lld tokens in, %lld out\n",
                                       state.result->iterations),
                     state.result->session_id,
                     run_status == PD_RUN_COMPLETED ? _("done") :
                     run_status == PD_RUN_BUDGET_EXCEEDED ? _("stopped by its budget") :
                     run_status == PD_RUN_REFUSED ? _("refused by the model") :
                     run_status == PD_RUN_INCOMPLETE ? _("cut off by the output limit") :
                     run_status == PD_RUN_CANCELLED ? _("cancelled") : _("failed"),
                     state.result->iterations,
                     (long long) state.result->input_tokens, (long long) state.result->output_tokens);

          /* A cut answer ran out of a budget too: the answer's own. */
          status = run_status == PD_RUN_COMPLETED ? 0 :
                   run_status == PD_RUN_BUDGET_EXCEEDED || run_status == PD_RUN_INCOMPLETE ? 3 : 1;
          next_session = g_strdup (state.result->session_id);
          pd_run_result_free (state.result);
          state.result = NULL;
        }

      if (!interactive || g_cancellable_is_cancelled (state.cancellable))
        break;

      fprintf (stderr, "> ");
      fflush (stderr);
      if (fgets (line, sizeof line, stdin) == NULL)
        break;
      g_strstrip (line);
      if (line[0] == '\0')
        break;

      session_id = g_intern_string (next_session);
      message = g_intern_string (line);
      state.at_line_start = TRUE;
    }
  g_source_remove (sigint);
  g_source_remove (sigterm);
  g_source_remove (sighup);

  pd_event_bus_flush (bus);
  g_main_loop_unref (state.loop);
  g_object_unref (state.cancellable);
  g_string_free (state.turn_text, TRUE);
  g_free (state.held_notice);

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
