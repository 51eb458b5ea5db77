/* pd-grep-tool.h: the grep tool — searches files with a regular expression.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-tool.h"

G_BEGIN_DECLS

/* The built-in tool, a row of the table of built-ins (pd-builtin-tools.c). */
#define pd_grep_tool_new() pd_tool_new_builtin ("grep", NULL)

G_END_DECLS
