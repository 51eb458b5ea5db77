/* pd-tool-registry.h: the tools of one engine, by name, in order.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-tool.h"
#include "pd-types.h"

G_BEGIN_DECLS

#define PD_TYPE_TOOL_REGISTRY (pd_tool_registry_get_type ())

G_DECLARE_FINAL_TYPE (PdToolRegistry, pd_tool_registry, PD, TOOL_REGISTRY, GObject)

PdToolRegistry *pd_tool_registry_new           (void);
gboolean        pd_tool_registry_add           (PdToolRegistry *self,
                                                PdTool         *tool);
void            pd_tool_registry_add_builtins  (PdToolRegistry *self,
                                                PdPlanStore    *plan_store);
PdTool         *pd_tool_registry_lookup        (PdToolRegistry *self,
                                                const char     *name);
GPtrArray      *pd_tool_registry_list          (PdToolRegistry *self);
guint           pd_tool_registry_get_n_tools   (PdToolRegistry *self);
JsonArray      *pd_tool_registry_to_openai_json (PdToolRegistry *self);

G_END_DECLS
