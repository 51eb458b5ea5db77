/* pd-shell-tool.h: the shell tool — runs a command with bash -c in the working directory.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-tool.h"

G_BEGIN_DECLS

/* The built-in tool, a row of the table of built-ins (pd-builtin-tools.c). */
#define pd_shell_tool_new() pd_tool_new_builtin ("shell", NULL)

G_END_DECLS
