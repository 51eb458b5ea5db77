/* pd-plan-parse.h: the strict, total parser of rendered plan messages.
 *
 * It inverts pd_plan_render_full() and rejects every deviation: a plan is
 * restored exactly or not at all, so a resume never trusts approximated
 * state.  Overflowed and truncated renders are rejected on purpose.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "pd-plan-state.h"

G_BEGIN_DECLS

PdPlanState *pd_plan_parse           (const char *text,
                                      guint       max_steps,
                                      GError    **error);
gboolean     pd_plan_is_plan_message (const char *role,
                                      const char *content);
PdPlanState *pd_plan_extract         (JsonArray  *messages,
                                      guint      *index);

G_END_DECLS
