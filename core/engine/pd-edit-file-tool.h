/* pd-edit-file-tool.h: the edit_file tool — replaces an exact string in a file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-tool.h"

G_BEGIN_DECLS

/* The built-in tool, a row of the table of built-ins (pd-builtin-tools.c). */
#define pd_edit_file_tool_new() pd_tool_new_builtin ("edit_file", NULL)

G_END_DECLS
