/* pd-reassessment.h: failure-driven plan reassessment (seed 000).
 *
 * With an active open plan, two signals ask the model to rethink the
 * approach: one acceptance check failing in three separate tool batches
 * (`repeated_check_failure`), or three consecutive observation batches
 * failing with one trusted error class across at least two distinct calls
 * (`varied_tool_failures`).  At most two hints a run, at least three
 * completed batches apart.  It never runs a tool or changes the plan.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define PD_REASSESS_REPEATED_CHECK_FAILURE "repeated_check_failure"
#define PD_REASSESS_VARIED_TOOL_FAILURES   "varied_tool_failures"
#define PD_REASSESS_FAILURE_BATCHES        3

#define PD_TYPE_REASSESSMENT (pd_reassessment_get_type ())

G_DECLARE_FINAL_TYPE (PdReassessment, pd_reassessment, PD, REASSESSMENT, GObject)

PdReassessment *pd_reassessment_new            (void);
void            pd_reassessment_reset          (PdReassessment *self);
void            pd_reassessment_check_outcome  (PdReassessment *self,
                                                const char     *check_key,
                                                gboolean        passed);
void            pd_reassessment_tool_outcome   (PdReassessment *self,
                                                const char     *fingerprint,
                                                gboolean        ok,
                                                const char     *error_class);
const char     *pd_reassessment_end_batch      (PdReassessment *self,
                                                gboolean        plan_open);
char           *pd_reassessment_format_hint    (const char     *reason);

G_END_DECLS
