/* pd-edit-file-tool.h: the edit_file tool — replaces an exact string in a file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-tool.h"

G_BEGIN_DECLS

#define PD_TYPE_EDIT_FILE_TOOL (pd_edit_file_tool_get_type ())

G_DECLARE_FINAL_TYPE (PdEditFileTool, pd_edit_file_tool, PD, EDIT_FILE_TOOL, GObject)

PdTool *pd_edit_file_tool_new (void);

G_END_DECLS
