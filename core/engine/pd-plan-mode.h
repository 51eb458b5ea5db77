/* pd-plan-mode.h: plan mode, the planning collaboration phase (seed 002).
 *
 * The state in force is a pure fold of the session's `plan_mode {active}`
 * events — log-only events, durable and replayable, never in the model's
 * transcript — so a resume recovers it with no live mirror.  A selection
 * made while a turn is open is held as a pending intent and lands at the
 * next step boundary (pd_plan_mode_flush, before the next model request);
 * between turns it commits at once.  A failed append never blocks a turn:
 * the intent stays pending for the next boundary.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define PD_PLAN_MODE_EVENT "plan_mode"

#define PD_PLAN_MODE_DEFAULT_SECTION \
  "Plan mode is active. Explore and read to understand the task, but do not change files or run " \
  "commands that change anything. When you know what to do, present the complete plan as markdown " \
  "starting with a # heading by calling exit_plan_mode, and wait for the review."

typedef enum
{
  PD_PLAN_MODE_NOOP,
  PD_PLAN_MODE_COMMITTED,
  PD_PLAN_MODE_QUEUED,
  PD_PLAN_MODE_CANCELLED,
} PdPlanModeSetResult;

/* Appends one plan_mode event to the session log; FALSE when it failed. */
typedef gboolean (*PdPlanModeAppendFunc) (gboolean   active,
                                          gpointer   user_data,
                                          GError   **error);

#define PD_TYPE_PLAN_MODE (pd_plan_mode_get_type ())

G_DECLARE_FINAL_TYPE (PdPlanMode, pd_plan_mode, PD, PLAN_MODE, GObject)

gboolean             pd_plan_mode_fold           (GPtrArray            *event_jsons);
const char          *pd_plan_mode_set_result_to_string (PdPlanModeSetResult result);

PdPlanMode          *pd_plan_mode_new            (gboolean              logged_active);
void                 pd_plan_mode_set_append_func (PdPlanMode          *self,
                                                  PdPlanModeAppendFunc  func,
                                                  gpointer              user_data,
                                                  GDestroyNotify        destroy);
gboolean             pd_plan_mode_get_active     (PdPlanMode           *self);
gboolean             pd_plan_mode_get            (PdPlanMode           *self,
                                                  gboolean             *pending);
void                 pd_plan_mode_set_turn_open  (PdPlanMode           *self,
                                                  gboolean              open);
PdPlanModeSetResult  pd_plan_mode_set            (PdPlanMode           *self,
                                                  gboolean              active);
void                 pd_plan_mode_request_exit   (PdPlanMode           *self);
char                *pd_plan_mode_flush          (PdPlanMode           *self);
const char          *pd_plan_mode_get_section    (PdPlanMode           *self);
void                 pd_plan_mode_set_section    (PdPlanMode           *self,
                                                  const char           *section);
gboolean             pd_plan_mode_get_advisory   (PdPlanMode           *self);
void                 pd_plan_mode_set_advisory   (PdPlanMode           *self,
                                                  gboolean              advisory);

G_END_DECLS
