/* pd-write-file-tool.h: the write_file tool — creates or replaces a file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-tool.h"

G_BEGIN_DECLS

#define PD_TYPE_WRITE_FILE_TOOL (pd_write_file_tool_get_type ())

G_DECLARE_FINAL_TYPE (PdWriteFileTool, pd_write_file_tool, PD, WRITE_FILE_TOOL, GObject)

PdTool *pd_write_file_tool_new (void);

G_END_DECLS
