/* pd-shell-tool.h: the shell tool — runs a command with bash -c in the working directory.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-tool.h"

G_BEGIN_DECLS

#define PD_TYPE_SHELL_TOOL (pd_shell_tool_get_type ())

G_DECLARE_FINAL_TYPE (PdShellTool, pd_shell_tool, PD, SHELL_TOOL, GObject)

PdTool *pd_shell_tool_new (void);

G_END_DECLS
