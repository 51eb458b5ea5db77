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

struct _PdExitPlanModeTool
{
  GObject           parent_instance;

  GMutex            mutex;
  PdCallbackSlot    review;      /* PdPlanReviewFunc */

  PdPlanMode       *mode;        /* bound per run */
  char             *session_id;
  PdPlanSavedFunc   saved;
  gpointer          saved_data;
};

static void pd_exit_plan_mode_tool_iface_init (PdToolInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PdExitPlanModeTool, pd_exit_plan_mode_tool, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (PD_TYPE_TOOL, pd_exit_plan_mode_tool_iface_init))

static void
pd_exit_plan_mode_tool_finalize (GObject *object)
{
  PdExitPlanModeTool *self = (PdExitPlanModeTool *) object;

  pd_callback_slot_clear (&self->review);
  g_clear_object (&self->mode);
  g_free (self->session_id);
  g_mutex_clear (&self->mutex);

  G_OBJECT_CLASS (pd_exit_plan_mode_tool_parent_class)->finalize (object);
}

static void
pd_exit_plan_mode_tool_class_init (PdExitPlanModeToolClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_exit_plan_mode_tool_finalize;
}

static void
pd_exit_plan_mode_tool_init (PdExitPlanModeTool *self)
{
  g_mutex_init (&self->mutex);
}

PdTool *
pd_exit_plan_mode_tool_new (void)
{
  return g_object_new (PD_TYPE_EXIT_PLAN_MODE_TOOL, NULL);
}

void
pd_exit_plan_mode_tool_set_review_func (PdExitPlanModeTool *self,
                                        PdPlanReviewFunc    func,
                                        gpointer            user_data,
                                        GDestroyNotify      destroy)
{
  g_return_if_fail (PD_IS_EXIT_PLAN_MODE_TOOL (self));

  pd_callback_slot_set (&self->review, &self->mutex, G_CALLBACK (func), user_data, destroy);
}

/**
 * pd_exit_plan_mode_tool_bind:
 * @mode: (nullable): the run's plan mode; %NULL unbinds
 *
 * The engine binds the tool to the session of each run.
 */
void
pd_exit_plan_mode_tool_bind (PdExitPlanModeTool *self,
                             PdPlanMode         *mode,
                             const char         *session_id,
                             PdPlanSavedFunc     saved,
                             gpointer            saved_data)
{
  g_return_if_fail (PD_IS_EXIT_PLAN_MODE_TOOL (self));

  g_mutex_lock (&self->mutex);
  g_set_object (&self->mode, mode);
  g_free (self->session_id);
  self->session_id = g_strdup (session_id);
  self->saved = saved;
  self->saved_data = saved_data;
  g_mutex_unlock (&self->mutex);
}

/* A question to a person: never an approval prompt of its own. */
static const PdToolInfo info = {
  .name = "exit_plan_mode",
  .description = "Leave plan mode by presenting your plan for review. Send the COMPLETE plan as markdown starting "
                 "with a # heading: goal, the changes you will make, how you will verify them. A person approves "
                 "it (plan mode ends after this step; carry out the plan) or asks you to keep planning with "
                 "feedback. Only available in plan mode.",
  .schema = "{\"type\":\"object\",\"properties\":{\"plan\":{\"type\":\"string\","
            "\"description\":\"The complete plan in markdown, starting with a # heading.\"}},"
            "\"required\":[\"plan\"]}",
  .safety = PD_TOOL_SAFE,
  .effects = PD_TOOL_EFFECTS_READ,
};

static PdToolResult *
tool_call (PdTool         *tool,
           PdToolContext  *context,
           JsonObject     *args,
           GCancellable   *cancellable,
           GError        **error)
{
  PdExitPlanModeTool *self = PD_EXIT_PLAN_MODE_TOOL (tool);
  g_autoptr(PdPlanMode) mode = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *feedback = NULL;
  g_autofree char *path = NULL;
  g_autofree char *title = NULL;
  g_autoptr(GError) save_error = NULL;
  PdPlanReviewFunc review;
  gpointer review_data;
  PdPlanSavedFunc saved;
  gpointer saved_data;
  const char *plan;
  PdPlanReviewAnswer answer;

  g_mutex_lock (&self->mutex);
  mode = self->mode ? g_object_ref (self->mode) : NULL;
  session_id = g_strdup (self->session_id);
  review = (PdPlanReviewFunc) self->review.func;
  review_data = self->review.data;
  saved = self->saved;
  saved_data = self->saved_data;
  g_mutex_unlock (&self->mutex);

  if (mode == NULL || !pd_plan_mode_get_active (mode))
    return pd_tool_result_new (FALSE, "exit_plan_mode is only available in plan mode");

  plan = pd_json_get_string (args, "plan");
  if (!pd_plan_artifact_is_plan (plan))
    return pd_tool_result_new (FALSE, "exit_plan_mode requires a non-empty markdown plan starting with a # heading");

  if (review == NULL)
    return pd_tool_result_new (FALSE, "no review channel is available to review the plan; ask the user to switch "
                                      "the session mode instead");

  answer = review (plan, &feedback, review_data);

  if (g_cancellable_is_cancelled (cancellable))
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
  pd_plan_mode_request_exit (mode);

  title = pd_plan_artifact_title (plan);
  path = pd_plan_artifact_save (context ? pd_tool_context_get_working_dir (context) : NULL,
                                session_id, plan, NULL, &save_error);
  if (path != NULL && saved != NULL)
    saved (path, title, saved_data);

  if (path == NULL)
    return pd_tool_result_new_printf (TRUE, "{\"approved\":true}\nPlan approved \xe2\x80\x94 plan mode exits after "
                                            "this step; carry out the plan starting with your next step. (The plan "
                                            "could not be saved: %s)", save_error->message);

  return pd_tool_result_new_printf (TRUE, "{\"approved\":true}\nPlan approved \xe2\x80\x94 plan mode exits after this "
                                          "step; carry out the plan starting with your next step. Saved to %s",
                                    path);
}

static void
pd_exit_plan_mode_tool_iface_init (PdToolInterface *iface)
{
  _pd_tool_implement (iface, &info);
  iface->call = tool_call;
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
