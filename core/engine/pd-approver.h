/* pd-approver.h: the approval policy for tool calls.
 *
 * Safe tools (plan) never prompt; read-only tools run under every policy;
 * mutating tools (write_file, edit_file, shell) run, are refused, or are
 * put to a person, depending on the policy.  pd_approver_decide() is called
 * from tool workers; prompts are serialized so two questions never
 * interleave.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-tool.h"

G_BEGIN_DECLS

typedef enum
{
  PD_APPROVAL_POLICY_ASK,
  PD_APPROVAL_POLICY_AUTO,
  PD_APPROVAL_POLICY_DENY,
} PdApprovalPolicy;

typedef enum
{
  PD_APPROVAL_DENY,
  PD_APPROVAL_ALLOW,
} PdApprovalDecision;

#define PD_TYPE_APPROVAL_POLICY (pd_approval_policy_get_type ())
GType       pd_approval_policy_get_type    (void) G_GNUC_CONST;
const char *pd_approval_policy_to_string   (PdApprovalPolicy  policy);
gboolean    pd_approval_policy_from_string (const char       *str,
                                            PdApprovalPolicy *policy);

/* Asks a person about one call.  Runs on the run's worker thread, one call
 * at a time in the order the model gave them; a GUI marshals the question
 * to its main thread and waits.  Returns TRUE to allow.  @summary is one line and never carries file contents;
 * @preview (nullable) is pd_tool_preview(): several lines showing what
 * the call changes (an edit's old and new text, a file's content, a
 * command and its folder), escaped, for a dialog to show as plain text. */
typedef gboolean (*PdApprovalFunc) (const char *tool,
                                    const char *summary,
                                    const char *preview,
                                    gpointer    user_data);

#define PD_TYPE_APPROVER (pd_approver_get_type ())

G_DECLARE_FINAL_TYPE (PdApprover, pd_approver, PD, APPROVER, GObject)

PdApprover         *pd_approver_new        (PdApprovalPolicy  policy);
PdApprovalPolicy    pd_approver_get_policy (PdApprover       *self);
void                pd_approver_set_policy (PdApprover       *self,
                                            PdApprovalPolicy  policy);
void                pd_approver_set_func   (PdApprover       *self,
                                            PdApprovalFunc    func,
                                            gpointer          user_data,
                                            GDestroyNotify    destroy);
void                pd_approver_set_denial_reason (const char *reason);
PdApprovalDecision  pd_approver_decide     (PdApprover       *self,
                                            PdTool           *tool,
                                            PdToolContext    *context,
                                            JsonObject       *args,
                                            char            **reason);
char               *pd_approver_summarize  (PdTool           *tool,
                                            JsonObject       *args);
gboolean            pd_approver_summary_is_whole (const char *tool,
                                                  const char *summary);

gboolean            pd_approver_args_have_controls (JsonObject *args);
gboolean            pd_approver_asked_controls (void);
const char         *pd_approver_controls_text (void);

char              **pd_approver_terminal_pages (const char *tool,
                                                const char *summary,
                                                const char *preview,
                                                gboolean    controls,
                                                guint       columns,
                                                guint       rows);
char               *pd_approver_terminal_question (const char *tool,
                                                   const char *summary,
                                                   const char *preview,
                                                   gboolean    controls);
gboolean            pd_approver_terminal_func (const char *tool,
                                               const char *summary,
                                               const char *preview,
                                               gpointer    user_data);

G_END_DECLS
