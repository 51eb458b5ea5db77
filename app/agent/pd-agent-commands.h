/* pd-agent-commands.h: the subcommands of plandeck-agent, one file each.
 *
 * Each entry point receives the arguments after the subcommand name
 * (argv[0] is the subcommand itself) and returns the process exit status.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

int pd_agent_plan_main   (int    argc,
                          char **argv);
int pd_agent_config_main (int    argc,
                          char **argv);
int pd_agent_sessions_main (int    argc,
                            char **argv);
int pd_agent_events_main (int    argc,
                          char **argv);
int pd_agent_run_main (int    argc,
                       char **argv);
int pd_agent_continue_main (int    argc,
                            char **argv);
int pd_agent_import_main (int    argc,
                          char **argv);
int pd_agent_serve_main (int    argc,
                         char **argv);

G_END_DECLS
