/* pd-plan-status.h: the plan as a person reads it in a chat or a terminal.
 *
 *   📋 Plan — v3 · 1/4 done · 1 blocked
 *   ✅ s1 Scaffold command skeleton
 *   🔄 s2 Wire flag parsing — halfway
 *   ⛔ s3 Resolve schema mismatch — provider rejects nested arrays
 *   ⬜ s4 Add tests
 *
 * Bounded: whole step lines are dropped behind "N more step(s) omitted"
 * rather than cutting a line in the middle.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-plan-state.h"

G_BEGIN_DECLS

#define PD_PLAN_STATUS_MAX_CHARS   3800
#define PD_PLAN_STATUS_NOTE_CHARS  80
#define PD_PLAN_STATUS_NO_PLAN     "No active plan in this session."

const char *pd_plan_step_status_glyph (PdPlanStepStatus   status);
char       *pd_plan_format_status     (const PdPlanState *state,
                                       guint              max_chars);
char       *pd_plan_format_status_marked (const PdPlanState *state,
                                          guint              max_chars,
                                          GHashTable        *cancelled,
                                          gboolean           run_stopped);

G_END_DECLS
