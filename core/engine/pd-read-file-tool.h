/* pd-read-file-tool.h: the read_file tool — reads a UTF-8 text file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-tool.h"

G_BEGIN_DECLS

/* The built-in tool, a row of the table of built-ins (pd-builtin-tools.c). */
#define pd_read_file_tool_new() pd_tool_new_builtin ("read_file", NULL)

G_END_DECLS
