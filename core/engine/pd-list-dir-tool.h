/* pd-list-dir-tool.h: the list_dir tool — lists a directory.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-tool.h"

G_BEGIN_DECLS

#define PD_TYPE_LIST_DIR_TOOL (pd_list_dir_tool_get_type ())

G_DECLARE_FINAL_TYPE (PdListDirTool, pd_list_dir_tool, PD, LIST_DIR_TOOL, GObject)

PdTool *pd_list_dir_tool_new (void);

G_END_DECLS
