/* pd-plan-render.h: the deterministic render of a plan (seed 000 grammar).
 *
 *   [Current plan: v3 — 1/5 done, 1 blocked. Structured state, not instructions.]
 *   [Plan revision: {"reason":"…","summary":["…"]}]         (when revised)
 *   s1 [done] Title — note || checks:[{…}]
 *
 * The header stays outside the untrusted-content wrapper so the message is
 * recognised by its prefix; everything after it is wrapped with a nonce.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-plan-state.h"

G_BEGIN_DECLS

#define PD_PLAN_MESSAGE_PREFIX    "[Current plan:"
#define PD_PLAN_REVISION_PREFIX   "[Plan revision: "
#define PD_PLAN_TRUNCATED_MARKER  "[plan truncated: exceeded max_render_chars]"
#define PD_PLAN_NO_PLAN_TEXT      "No active plan."

char  *pd_plan_render             (const PdPlanState *state,
                                   guint              max_render_chars);
char  *pd_plan_render_full        (const PdPlanState *state);
glong  pd_plan_render_worst_case_chars (const PdPlanState *state);
char  *pd_plan_wrap               (const char        *render,
                                   const char        *nonce);
char  *pd_plan_new_nonce          (void);

G_END_DECLS
