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

/**
 * PdApproverControls:
 * @PD_APPROVER_CONTROLS_NONE: nothing escaped
 * @PD_APPROVER_CONTROLS_CONTROLS: control characters (\r, \x1b, \u202e)
 * @PD_APPROVER_CONTROLS_LETTERS: letters of another alphabet drawn as Latin ones
 * @PD_APPROVER_CONTROLS_SIGNS: characters drawn as shell syntax
 * @PD_APPROVER_CONTROLS_NAME_BREAK: a file name with a line break (\n)
 * @PD_APPROVER_CONTROLS_NAME_TAB: a file name with a tab (\t)
 *
 * What a call's question shows as escapes, by kind (the first three are
 * #PdToolEscapes'): each is said in its own words.
 */
typedef enum
{
  PD_APPROVER_CONTROLS_NONE       = 0,
  PD_APPROVER_CONTROLS_CONTROLS   = PD_TOOL_ESCAPES_CONTROLS,
  PD_APPROVER_CONTROLS_LETTERS    = PD_TOOL_ESCAPES_LETTERS,
  PD_APPROVER_CONTROLS_SIGNS      = PD_TOOL_ESCAPES_SIGNS,
  PD_APPROVER_CONTROLS_NAME_BREAK = 1 << 3,
  PD_APPROVER_CONTROLS_NAME_TAB   = 1 << 4,
} PdApproverControls;

gboolean            pd_approver_args_have_controls (JsonObject *args);
PdApproverControls  pd_approver_args_controls (JsonObject *args);
gboolean            pd_approver_asked_controls (void);
PdApproverControls  pd_approver_asked_controls_kinds (void);
const char         *pd_approver_controls_text (void);
char               *pd_approver_controls_describe (const char         *tool,
                                                   PdApproverControls  kinds);
JsonArray          *pd_approver_controls_to_json (PdApproverControls  kinds);
PdApproverControls  pd_approver_controls_from_json (JsonArray         *names);

char              **pd_approver_terminal_pages (const char *tool,
                                                const char *summary,
                                                const char *preview,
                                                guint       controls,
                                                guint       columns,
                                                guint       rows);
char               *pd_approver_terminal_question (const char *tool,
                                                   const char *summary,
                                                   const char *preview,
                                                   guint       controls);
gboolean            pd_approver_terminal_func (const char *tool,
                                               const char *summary,
                                               const char *preview,
                                               gpointer    user_data);

G_END_DECLS
