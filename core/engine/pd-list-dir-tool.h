/* pd-list-dir-tool.h: the list_dir tool — lists a directory.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-tool.h"

G_BEGIN_DECLS

/* The built-in tool, a row of the table of built-ins (pd-builtin-tools.c). */
#define pd_list_dir_tool_new() pd_tool_new_builtin ("list_dir", NULL)

G_END_DECLS
