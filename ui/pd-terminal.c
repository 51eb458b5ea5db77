/* pd-terminal.c: running a command in a terminal window of its own
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Used to continue an imported session in its own agent ("Open in
 * Terminal").  The first terminal found on PATH is used, in this order:
 * xdg-terminal-exec (the freedesktop way to ask for the user's terminal),
 * GNOME Console, GNOME Terminal, Konsole, Xfce Terminal, Debian's
 * x-terminal-emulator, xterm.  The command goes to the terminal as separate
 * arguments after its own "run this" option, never through a shell, and
 * the terminal starts in the session's folder.
 */
#define G_LOG_DOMAIN "pd-terminal"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-terminal.h"

typedef struct
{
  const char *program;
  const char *workdir_option;   /* "--working-directory=" style, or NULL: the process's own folder */
  const char *run_option;       /* what comes before the command, or NULL */
} Terminal;

static const Terminal terminals[] = {
  { "xdg-terminal-exec", NULL, NULL },
  { "kgx", "--working-directory=", "--" },
  { "gnome-terminal", "--working-directory=", "--" },
  { "konsole", "--workdir=", "-e" },
  { "xfce4-terminal", "--working-directory=", "-x" },
  { "x-terminal-emulator", NULL, "-e" },
  { "xterm", NULL, "-e" },
};

static const Terminal *
find_terminal (char **path)
{
  for (guint i = 0; i < G_N_ELEMENTS (terminals); i++)
    {
      g_autofree char *found = g_find_program_in_path (terminals[i].program);

      if (found != NULL)
        {
          if (path != NULL)
            *path = g_steal_pointer (&found);
          return &terminals[i];
        }
    }
  return NULL;
}

/**
 * pd_terminal_is_available:
 *
 * Returns: whether a terminal this file knows is installed
 */
gboolean
pd_terminal_is_available (void)
{
  return find_terminal (NULL) != NULL;
}

static void
on_terminal_exited (GPid     pid,
                    int      status,
                    gpointer user_data)
{
  g_spawn_close_pid (pid);
}

/**
 * pd_terminal_launch:
 * @argv: the command, run as is
 * @workdir: (nullable): the folder to run it in
 *
 * Opens a terminal running @argv in @workdir and returns without waiting.
 */
gboolean
pd_terminal_launch (const char * const  *argv,
                    const char          *workdir,
                    GError             **error)
{
  g_autofree char *program = NULL;
  const Terminal *terminal = find_terminal (&program);
  g_autoptr(GStrvBuilder) builder = NULL;
  g_auto(GStrv) full = NULL;
  g_autofree char *workdir_arg = NULL;
  GPid pid;

  g_return_val_if_fail (argv != NULL && argv[0] != NULL, FALSE);

  if (terminal == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                           _("No terminal was found: install one (for example GNOME Console), "
                             "or copy the command and run it yourself"));
      return FALSE;
    }
  if (workdir != NULL && !g_file_test (workdir, G_FILE_TEST_IS_DIR))
    workdir = NULL;

  builder = g_strv_builder_new ();
  g_strv_builder_add (builder, program);
  if (workdir != NULL && terminal->workdir_option != NULL)
    {
      workdir_arg = g_strconcat (terminal->workdir_option, workdir, NULL);
      g_strv_builder_add (builder, workdir_arg);
    }
  if (terminal->run_option != NULL)
    g_strv_builder_add (builder, terminal->run_option);
  g_strv_builder_addv (builder, (const char **) argv);
  full = g_strv_builder_end (builder);

  /* The terminal outlives us; its child is reaped by GLib. */
  if (!g_spawn_async (workdir, full, NULL, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL,
                      NULL, NULL, &pid, error))
    return FALSE;
  g_child_watch_add (pid, on_terminal_exited, NULL);
  return TRUE;
}

/**
 * pd_terminal_paste_refusal:
 * @resume: a command to continue a session
 *
 * Returns: (nullable): why @resume has no line to paste into a terminal
 *   (see pd_resume_command_to_paste()), or %NULL when it has one
 */
const char *
pd_terminal_paste_refusal (const PdResumeCommand *resume)
{
  switch (pd_resume_command_check_paste (resume))
    {
    case PD_RESUME_PASTE_CONTROL:
      return _("Not copied: the command holds control characters");
    case PD_RESUME_PASTE_QUOTE:
      return _("No line to copy: the folder's name holds a quote or a backslash, which shells read differently. "
               "Open it in a terminal, or go to the folder first.");
    case PD_RESUME_PASTE_OK:
    default:
      return NULL;
    }
}
