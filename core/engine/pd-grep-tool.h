/* pd-grep-tool.h: the grep tool — searches files with a regular expression.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-tool.h"

G_BEGIN_DECLS

#define PD_TYPE_GREP_TOOL (pd_grep_tool_get_type ())

G_DECLARE_FINAL_TYPE (PdGrepTool, pd_grep_tool, PD, GREP_TOOL, GObject)

PdTool *pd_grep_tool_new (void);

G_END_DECLS
