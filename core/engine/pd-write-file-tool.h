/* pd-write-file-tool.h: the write_file tool — creates or replaces a file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-tool.h"

G_BEGIN_DECLS

/* The built-in tool, a row of the table of built-ins (pd-builtin-tools.c). */
#define pd_write_file_tool_new() pd_tool_new_builtin ("write_file", NULL)

G_END_DECLS
