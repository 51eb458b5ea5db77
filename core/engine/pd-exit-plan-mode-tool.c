/* pd-exit-plan-mode-tool.c: the reviewed way out of plan mode.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-tools"

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>

#include "pd-callback-slot.h"
#include "pd-exit-plan-mode-tool.h"
#include "pd-json-util.h"
#include "pd-plan-artifact.h"
#include "pd-safe-text.h"
#include "pd-tool-private.h"

/* What one exit_plan_mode tool holds. */
typedef struct
{
  GMutex            mutex;
  PdCallbackSlot    review;      /* PdPlanReviewFunc */

  PdPlanMode       *mode;        /* bound per run */
  char             *session_id;
  PdPlanSavedFunc   saved;
  gpointer          saved_data;
} ExitState;

gpointer
_pd_exit_plan_mode_state_new (gpointer data)
{
  ExitState *self = g_new0 (ExitState, 1);

  g_mutex_init (&self->mutex);

  return self;
}

void
_pd_exit_plan_mode_state_free (gpointer state)
{
  ExitState *self = state;

  pd_callback_slot_clear (&self->review);
  g_clear_object (&self->mode);
  g_free (self->session_id);
  g_mutex_clear (&self->mutex);
  g_free (self);
}

void
pd_exit_plan_mode_tool_set_review_func (PdExitPlanModeTool *tool,
                                        PdPlanReviewFunc    func,
                                        gpointer            user_data,
                                        GDestroyNotify      destroy)
{
  ExitState *self;

  g_return_if_fail (PD_IS_EXIT_PLAN_MODE_TOOL (tool));

  self = _pd_builtin_tool_get_state (tool);

  pd_callback_slot_set (&self->review, &self->mutex, G_CALLBACK (func), user_data, destroy);
}

/**
 * pd_exit_plan_mode_tool_bind:
 * @mode: (nullable): the run's plan mode; %NULL unbinds
 *
 * The engine binds the tool to the session of each run.
 */
void
pd_exit_plan_mode_tool_bind (PdExitPlanModeTool *tool,
                             PdPlanMode         *mode,
                             const char         *session_id,
                             PdPlanSavedFunc     saved,
                             gpointer            saved_data)
{
  ExitState *self;

  g_return_if_fail (PD_IS_EXIT_PLAN_MODE_TOOL (tool));

  self = _pd_builtin_tool_get_state (tool);

  g_mutex_lock (&self->mutex);
  g_set_object (&self->mode, mode);
  g_free (self->session_id);
  self->session_id = g_strdup (session_id);
  self->saved = saved;
  self->saved_data = saved_data;
  g_mutex_unlock (&self->mutex);
}

/* What a call works with: the run the tool is bound to and its review,
 * copied under the lock, so that a rebinding mid-call changes nothing. */
typedef struct
{
  PdPlanMode       *mode;
  char             *session_id;
  PdPlanReviewFunc  review;
  gpointer          review_data;
  PdPlanSavedFunc   saved;
  gpointer          saved_data;
} Binding;

static void
binding_clear (Binding *binding)
{
  g_clear_object (&binding->mode);
  g_clear_pointer (&binding->session_id, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Binding, binding_clear)

static void
binding_copy (ExitState *self,
              Binding   *binding)
{
  g_mutex_lock (&self->mutex);
  binding->mode = self->mode ? g_object_ref (self->mode) : NULL;
  binding->session_id = g_strdup (self->session_id);
  binding->review = (PdPlanReviewFunc) self->review.func;
  binding->review_data = self->review.data;
  binding->saved = self->saved;
  binding->saved_data = self->saved_data;
  g_mutex_unlock (&self->mutex);
}

PdToolResult *
_pd_exit_plan_mode_run (const PdToolCall *call)
{
  g_auto(Binding) bound = { 0 };
  g_autofree char *feedback = NULL;
  g_autofree char *path = NULL;
  g_autofree char *title = NULL;
  g_autoptr(GError) save_error = NULL;
  const char *plan;
  PdPlanReviewAnswer answer;

  binding_copy (_pd_builtin_tool_get_state (call->tool), &bound);

  if (bound.mode == NULL || !pd_plan_mode_get_active (bound.mode))
    return pd_tool_result_new (FALSE, "exit_plan_mode is only available in plan mode");

  plan = pd_json_get_string (call->args, "plan");
  if (!pd_plan_artifact_is_plan (plan))
    return pd_tool_result_new (FALSE, "exit_plan_mode requires a non-empty markdown plan starting with a # heading");

  if (bound.review == NULL)
    return pd_tool_result_new (FALSE, "no review channel is available to review the plan; ask the user to switch "
                                      "the session mode instead");

  answer = bound.review (plan, &feedback, bound.review_data);

  if (g_cancellable_is_cancelled (call->cancellable))
    return pd_tool_result_new (FALSE, "the review was cancelled; stay in plan mode");

  switch (answer)
    {
    case PD_PLAN_REVIEW_DISMISSED:
      return pd_tool_result_new (FALSE, "The user dismissed the plan review to speak instead; stay in plan mode, "
                                        "stop here, and wait for their message.");

    case PD_PLAN_REVIEW_UNANSWERED:
      return pd_tool_result_new_printf (FALSE, "The plan was not reviewed (%s); stay in plan mode. Ask the user to "
                                               "review it or to switch the session mode.",
                                        feedback != NULL && *feedback ? feedback : "no answer");

    case PD_PLAN_REVIEW_KEEP_PLANNING:
      if (feedback != NULL && *feedback)
        return pd_tool_result_new_printf (FALSE, "The user chose to keep planning; revise the plan and present it "
                                                 "again; their feedback: %s", feedback);
      return pd_tool_result_new (FALSE, "The user chose to keep planning; revise the plan and present it again.");

    case PD_PLAN_REVIEW_APPROVE:
    default:
      break;
    }

  /* Plan guidance holds for the rest of this batch; the exit lands at the
   * next step boundary, silently: this result tells the model. */
  pd_plan_mode_request_exit (bound.mode);

  title = pd_plan_artifact_title (plan);
  path = pd_plan_artifact_save (call->context ? pd_tool_context_get_working_dir (call->context) : NULL,
                                bound.session_id, plan, NULL, &save_error);
  if (path != NULL && bound.saved != NULL)
    bound.saved (path, title, bound.saved_data);

  if (path == NULL)
    return pd_tool_result_new_printf (TRUE, "{\"approved\":true}\nPlan approved \xe2\x80\x94 plan mode exits after "
                                            "this step; carry out the plan starting with your next step. (The plan "
                                            "could not be saved: %s)", save_error->message);

  return pd_tool_result_new_printf (TRUE, "{\"approved\":true}\nPlan approved \xe2\x80\x94 plan mode exits after this "
                                          "step; carry out the plan starting with your next step. Saved to %s",
                                    path);
}

/* The CLI's review: the plan on the terminal, then a y/N question; any
 * other answer is feedback.  No terminal: no channel. */
PdPlanReviewAnswer
pd_exit_plan_mode_terminal_review (const char  *markdown,
                                   char       **feedback,
                                   gpointer     user_data)
{
  FILE *tty = fopen ("/dev/tty", "r+");
  /* The plan is model text: an escape sequence in it could hide a step
   * from the person approving it (ESC[8m conceals, ESC[2K erases a line),
   * a bidi override could reorder one.  They are shown, never obeyed. */
  g_autofree char *shown = pd_safe_text_block (markdown);
  char line[4096];

  if (tty == NULL)
    {
      *feedback = g_strdup ("no terminal to review the plan on");
      return PD_PLAN_REVIEW_DISMISSED;
    }

  fprintf (tty, "\n%s\n\n%s ", shown, _("Approve this plan and leave plan mode? [y = approve, or type feedback to keep planning]"));
  fflush (tty);

  if (fgets (line, sizeof line, tty) == NULL)
    {
      fclose (tty);
      return PD_PLAN_REVIEW_DISMISSED;
    }
  fclose (tty);

  g_strstrip (line);
  if (g_ascii_strcasecmp (line, "y") == 0 || g_ascii_strcasecmp (line, "yes") == 0)
    return PD_PLAN_REVIEW_APPROVE;

  *feedback = g_strdup (line);
  return PD_PLAN_REVIEW_KEEP_PLANNING;
}
