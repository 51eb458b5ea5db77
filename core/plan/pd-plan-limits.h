/* pd-plan-limits.h: caps of the plan engine (seed 000).
 *
 * Configurable caps (max_steps, max_render_chars) come from the resolved
 * config; these are the fixed ones and the defaults.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#define PD_PLAN_DEFAULT_MAX_STEPS         12
#define PD_PLAN_DEFAULT_MAX_RENDER_CHARS  2000
#define PD_PLAN_MIN_MAX_STEPS             1
#define PD_PLAN_STEP_CEILING              50   /* config clamp and read-only extraction cap */
#define PD_PLAN_MIN_RENDER_CHARS          200
#define PD_PLAN_MAX_RENDER_CHARS_CEILING  8000

#define PD_PLAN_MAX_ID_CHARS              32
#define PD_PLAN_MAX_TITLE_CHARS           200
#define PD_PLAN_MAX_NOTE_CHARS            1000

#define PD_PLAN_MAX_CHECKS                4
#define PD_PLAN_MAX_CHECK_ID_CHARS        32
#define PD_PLAN_MAX_CHECK_DESC_CHARS      200
#define PD_PLAN_MAX_EVIDENCE_NOTE_CHARS   200
/* A description may grow by " (evidence: <note>)" through check_replace. */
#define PD_PLAN_MAX_PERSISTED_DESC_CHARS  (PD_PLAN_MAX_CHECK_DESC_CHARS + 13 + PD_PLAN_MAX_EVIDENCE_NOTE_CHARS)
#define PD_PLAN_MAX_CHECK_TOOL_CHARS      128
#define PD_PLAN_MAX_CHECK_ARGS_BYTES      4096
#define PD_PLAN_MAX_CALL_ID_CHARS         128

#define PD_PLAN_MAX_REVISION_REASON       240
#define PD_PLAN_MAX_REVISION_OPS          8
#define PD_PLAN_MAX_REVISION_SUMMARY      8
#define PD_PLAN_MAX_REVISION_SUMMARY_ITEM 2048

#define PD_PLAN_MAX_VERSION               999999999
