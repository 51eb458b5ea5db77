/* main.c: entry point of the Plandeck desktop application
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "plandeck"

#include "config.h"

#include <locale.h>

#include <glib/gi18n.h>

#include "pd-application.h"
#include "pd-argv-secrets.h"
#include "pd-tool.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(PdApplication) app = NULL;
  g_auto(GStrv) args = NULL;

  /* Before any thread: keys out of what /proc/PID/environ shows commands. */
  pd_tool_scrub_startup_environ ();
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  /* The options are parsed from a copy: the token in a --remote URL is
   * hidden from ps and /proc/PID/cmdline in the process's own memory. */
  args = g_strdupv (argv);
  pd_argv_hide_tokens (argc, argv);

  pd_application_set_process_name ();
  app = pd_application_new ();

  return g_application_run (G_APPLICATION (app), argc, args);
}
