/* pd-exit-plan-mode-tool.h: `exit_plan_mode {plan}`, the reviewed way out of
 * plan mode.
 *
 * Always registered, so the tool list never changes between modes.  Outside
 * plan mode it fails; inside, the plan must be markdown starting with a #
 * heading, and a person reviews it through the session's interaction channel
 * (the app's review dialog, the terminal).  Approve returns {approved:true},
 * leaves plan mode after the batch and saves the plan artifact; Keep planning
 * fails the call with the feedback; without a channel, or with nobody
 * answering it, the call fails.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-plan-mode.h"
#include "pd-tool.h"

G_BEGIN_DECLS

typedef enum
{
  PD_PLAN_REVIEW_APPROVE,
  PD_PLAN_REVIEW_KEEP_PLANNING,
  PD_PLAN_REVIEW_DISMISSED,
  PD_PLAN_REVIEW_UNANSWERED,   /* nobody answered (time, a lost channel,
                                * a policy): the call fails, plan mode stays */
} PdPlanReviewAnswer;

/* Asks a person; may block (it runs on a tool worker thread).  @feedback
 * receives their words for Keep planning, or why a review went
 * unanswered. */
typedef PdPlanReviewAnswer (*PdPlanReviewFunc) (const char  *markdown,
                                                char       **feedback,
                                                gpointer     user_data);

/* Told where an approved plan was saved (on the tool's thread). */
typedef void (*PdPlanSavedFunc) (const char *path,
                                 const char *title,
                                 gpointer    user_data);

/* The tool is a built-in (pd-builtin-tools.c) that holds its review and
 * the run it is bound to. */
typedef PdTool PdExitPlanModeTool;

#define PD_EXIT_PLAN_MODE_TOOL(obj)    ((PdExitPlanModeTool *) (obj))
#define PD_IS_EXIT_PLAN_MODE_TOOL(obj) (pd_tool_is_builtin ((obj), "exit_plan_mode"))
#define pd_exit_plan_mode_tool_new()   pd_tool_new_builtin ("exit_plan_mode", NULL)

void    pd_exit_plan_mode_tool_set_review_func (PdExitPlanModeTool *self,
                                                PdPlanReviewFunc    func,
                                                gpointer            user_data,
                                                GDestroyNotify      destroy);
void    pd_exit_plan_mode_tool_bind            (PdExitPlanModeTool *self,
                                                PdPlanMode         *mode,
                                                const char         *session_id,
                                                PdPlanSavedFunc     saved,
                                                gpointer            saved_data);
PdPlanReviewAnswer pd_exit_plan_mode_terminal_review (const char  *markdown,
                                                      char       **feedback,
                                                      gpointer     user_data);

G_END_DECLS
