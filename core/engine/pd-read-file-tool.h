/* pd-read-file-tool.h: the read_file tool — reads a UTF-8 text file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-tool.h"

G_BEGIN_DECLS

#define PD_TYPE_READ_FILE_TOOL (pd_read_file_tool_get_type ())

G_DECLARE_FINAL_TYPE (PdReadFileTool, pd_read_file_tool, PD, READ_FILE_TOOL, GObject)

PdTool *pd_read_file_tool_new (void);

G_END_DECLS
