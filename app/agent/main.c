/* main.c: plandeck-agent, the command line face of the Plandeck engine.
 *
 * Only dispatch lives here; every subcommand has its own file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "plandeck-agent"

#include "config.h"

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include <glib.h>
#include <glib/gi18n.h>

#include "pd-agent-commands.h"
#include "pd-argv-secrets.h"
#include "pd-tool.h"

typedef struct
{
  const char *name;
  int (*main_func) (int argc, char **argv);
  const char *summary;
} PdAgentCommand;

static const PdAgentCommand commands[] = {
  { "run",      pd_agent_run_main,      N_("Run an agent session on a task in the working directory") },
  { "continue", pd_agent_continue_main, N_("Resume a stored session, optionally with a new message") },
  { "serve",    pd_agent_serve_main,    N_("Serve the sessions over odek's REST API (loopback)") },
  { "plan",   pd_agent_plan_main,   N_("Drive the plan engine: apply JSON lines, parse a rendered plan") },
  { "config", pd_agent_config_main, N_("Print the resolved configuration and its warnings") },
  { "sessions", pd_agent_sessions_main, N_("List, show, export and remove stored sessions") },
  { "events", pd_agent_events_main, N_("Print the stored event stream as JSON lines") },
  { "import", pd_agent_import_main, N_("Read the plans of Claude Code, Codex, OpenCode, Qwen Code, Gemini CLI, Cline, Roo Code and Kilo Code from their transcripts") },
};

static void
print_usage (FILE *stream)
{
  fprintf (stream, "%s\n\n%s\n", _("Usage: plandeck-agent COMMAND [OPTIONS…]"), _("Commands:"));
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (stream, "  %-10s %s\n", commands[i].name, _(commands[i].summary));
  fprintf (stream, "\n%s\n", _("Run “plandeck-agent COMMAND --help” for the options of a command."));
}

int
main (int   argc,
      char *argv[])
{
  g_auto(GStrv) args = NULL;
  g_autofree char **view = NULL;

  /* Before any thread: keys out of what /proc/PID/environ shows commands. */
  pd_tool_scrub_startup_environ ();
  /* And out of their reach altogether: a command the model runs is this
   * user's process, which may read a dumpable process's /proc/PID/environ
   * and /proc/PID/mem (where the key is, to be sent).  Not dumpable, those
   * are the kernel's to refuse (children get their own flag back at exec).
   * No core dumps then; a debugger as root still attaches.  Not in the
   * window's process: xdg-desktop-portal refuses every call of a process
   * whose /proc/PID/root it cannot open (the file chooser, settings). */
  if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
    g_warning ("could not make the process undumpable: %s", g_strerror (errno));
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  /* Every command parses a copy: a password or token in a URL (--base-url
   * http://user:PASSWORD@host/, ?token=) is hidden from ps and
   * /proc/PID/cmdline in the process's own memory, as plandeck hides
   * --remote's. */
  args = g_strdupv (argv);
  pd_argv_hide_tokens (argc, argv);
  /* GOption takes parsed options out of the array it is given: it gets
   * an array of its own, and args keeps every string to free. */
  view = g_memdup2 (args, sizeof (char *) * (argc + 1));
  argv = view;

  if (argc < 2)
    {
      print_usage (stderr);
      return 2;
    }

  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 || strcmp (argv[1], "help") == 0)
    {
      print_usage (stdout);
      return 0;
    }

  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("plandeck-agent %s\n", PACKAGE_VERSION);
      return 0;
    }

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      if (strcmp (argv[1], commands[i].name) == 0)
        {
          g_autofree char *prgname = g_strconcat ("plandeck-agent ", commands[i].name, NULL);

          /* Makes each command's --help read "Usage: plandeck-agent run [OPTION…] TASK",
           * not "run [OPTION…]": GOption names the program by argv[0]. */
          g_set_prgname (prgname);
          return commands[i].main_func (argc - 1, argv + 1);
        }
    }

  fprintf (stderr, _("plandeck-agent: unknown command “%s”\n\n"), argv[1]);
  print_usage (stderr);
  return 2;
}
