/* pd-run-controller-dialogs.c: the questions a run asks a person: approve a tool call, review a plan
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-run-controller"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "pd-approval-preview-private.h"
#include "pd-approver.h"
#include "pd-exit-plan-mode-tool.h"
#include "pd-run-controller-private.h"
#include "pd-safe-text.h"
#include "pd-ui-util-private.h"

Question *
_pd_run_question_ref (Question *question)
{
  g_atomic_ref_count_inc (&question->ref);
  return question;
}

void
_pd_run_question_unref (Question *question)
{
  if (g_atomic_ref_count_dec (&question->ref))
    {
      _pd_run_channel_unref (question->channel);
      g_free (question->tool);
      g_free (question->text);
      g_free (question->preview);
      g_free (question->feedback);
      g_clear_pointer (&question->remote_run, pd_remote_run_free);
      g_mutex_clear (&question->mutex);
      g_cond_clear (&question->cond);
      g_free (question);
    }
}

/* Main thread: hands the answer to the waiting worker, once. */
void
_pd_run_question_answer (Question   *question,
                         int         answer,
                         const char *feedback)
{
  g_mutex_lock (&question->mutex);
  if (!question->answered)
    {
      question->answered = TRUE;
      question->answer = answer;
      question->feedback = g_strdup (feedback);
      g_cond_signal (&question->cond);
    }
  g_mutex_unlock (&question->mutex);
}

int
_pd_run_question_dismissed_answer (Question *question)
{
  return question->kind == QUESTION_APPROVAL ? FALSE : PD_PLAN_REVIEW_DISMISSED;
}

/* Nobody will answer (the run stops, the window goes): answered as
 * dismissed, and marked so, for the record to say so and not that the
 * person declined. */
void
_pd_run_question_dismiss (Question *question)
{
  g_mutex_lock (&question->mutex);
  if (!question->answered)
    question->dismissed = TRUE;
  g_mutex_unlock (&question->mutex);
  _pd_run_question_answer (question, _pd_run_question_dismissed_answer (question), NULL);
}

/* A question answered or gone: the dialogs still open (parallel calls
 * stack theirs in the same place) are the ones under the pointer now,
 * each guarded as if new. */
static void
guard_open_questions (PdRunController *self)
{
  for (guint i = 0; i < self->questions->len; i++)
    {
      Question *question = g_ptr_array_index (self->questions, i);

      if (question->dialog != NULL && gtk_widget_get_mapped (question->dialog))
        _pd_dialog_arm_response_guard (question->dialog);
    }
}

void
_pd_run_controller_close_question (PdRunController *self,
                                   Question        *question)
{
  GtkWidget *dialog = g_steal_pointer (&question->dialog);
  gboolean approval = question->kind == QUESTION_APPROVAL;

  if (dialog != NULL)
    {
      g_signal_handlers_disconnect_by_data (dialog, question);
      gtk_window_destroy (GTK_WINDOW (dialog));
    }
  g_ptr_array_remove (self->questions, question);
  /* Timed out or answered on the server, or the run stopped: whoever
   * showed it (a notification, the Overview's card) lets it go. */
  if (approval && dialog != NULL)
    _pd_run_controller_emit_approval (self, NULL, 0);
  else if (dialog != NULL)
    _pd_run_controller_emit_review (self, FALSE);
  guard_open_questions (self);
}

/* Stop and dispose: nobody will answer the open questions any more. */
void
_pd_run_controller_dismiss_questions (PdRunController *self)
{
  while (self->questions->len > 0)
    {
      Question *question = g_ptr_array_index (self->questions, 0);

      _pd_run_question_dismiss (question);
      _pd_run_controller_close_question (self, question);
    }
}

/* Whether an endpoint masked part of @question's command or showed its
 * control characters as escapes, or a call of this window's own run holds
 * them: the person cannot read it whole, so it offers no "Always for This
 * Session", and a trust given before does not answer it
 * (_pd_run_question_guarded()).  A local question with controls offered
 * Always, and picking it let a later `echo hi \<CR><LF>touch x` run
 * unasked (tried as an attacker would). */
static gboolean
question_masked (Question *question)
{
  return _pd_run_question_guarded (question);
}

static void
on_approval_response (AdwMessageDialog *dialog,
                      const char       *response,
                      Question         *question)
{
  g_autoptr(PdRunController) self = g_weak_ref_get (&question->channel->controller);
  gboolean allow = g_strcmp0 (response, "once") == 0 || g_strcmp0 (response, "always") == 0;

  /* No trust from a question the person could not read whole (its
   * dialog offers none; "always" is one approval then). */
  if (self != NULL && g_strcmp0 (response, "always") == 0 && !question_masked (question))
    g_hash_table_add (self->always, g_strdup (question->tool));

  /* A remote run waits on its server, which is told; a local one on a
   * worker thread of ours. */
  if (self != NULL && question->remote_run != NULL)
    _pd_run_controller_answer_remote (self, question->remote_run, allow);
  _pd_run_question_answer (question, allow, NULL);
  question->dialog = NULL;
  if (self != NULL)
    {
      g_ptr_array_remove (self->questions, question);
      guard_open_questions (self);
      _pd_run_controller_emit_approval (self, NULL, 0);
    }
}

/* What "Always for This Session" would allow from now on: every later call
 * of this tool (any command, any file, not only this one), in this
 * session, while this window runs it; the other tools still ask. */
static char *
always_scope (const char *tool)
{
  g_autofree char *name = NULL;

  if (g_strcmp0 (tool, "shell") == 0)
    return g_strdup (_("“Always for This Session” lets the agent run any later command in this "
                       "session without asking, not only this one, until another session starts "
                       "here or the window closes. File writes and edits still ask."));
  if (g_strcmp0 (tool, "write_file") == 0)
    return g_strdup (_("“Always for This Session” lets the agent create or overwrite any file in "
                       "this session without asking, until another session starts here or the "
                       "window closes. Edits and commands still ask."));
  if (g_strcmp0 (tool, "edit_file") == 0)
    return g_strdup (_("“Always for This Session” lets the agent edit any file in this session "
                       "without asking, until another session starts here or the window closes. "
                       "Whole-file writes and commands still ask."));
  name = _pd_isolated_line (tool);
  /* Translators: %s is the name of a tool */
  return g_strdup_printf (_("“Always for This Session” approves every later call of “%s” in this "
                            "session without asking, until another session starts here or the "
                            "window closes. Other tools still ask."), name);
}

/* Whether the dialog can show what approving @question changes: its
 * preview, or a summary that is the change itself (a command). Our own
 * engine sends a preview with every question; an endpoint may not. */
static gboolean
question_change_sent (Question *question)
{
  return question->remote_run == NULL ||
         (question->preview != NULL && question->preview[0] != '\0') ||
         pd_approver_summary_is_whole (question->tool, question->text);
}

/* (transfer full): why _pd_run_question_guarded(), said under the command. */
static char *
question_warning (Question *question)
{
  if (question->remote_run != NULL)
    return pd_remote_run_approval_warning (question->remote_run);
  return pd_approver_controls_describe (question->tool, question->controls);
}

/* The call, whole (scrolled when long): what it changes, as its tool
 * shows it (an edit's old and new lines, a file's content, a command and
 * its folder), else the one-line summary; then what "Always for This
 * Session" covers. */
static GtkWidget *
approval_details (Question *question)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *always;
  g_autofree char *scope = always_scope (question->tool);
  const char *shown = question->preview != NULL && question->preview[0] != '\0'
                      ? question->preview : question->text;
  /* An endpoint's preview is its own text: every character that could
   * make it read as something else is named here (long padding, look-alike
   * spaces), as the Overview's cards do. */
  g_autofree char *text = pd_safe_text_approval (shown != NULL ? shown : "");

  /* A row to a line, each wrapping in its own (pd-approval-preview.c). */
  gtk_box_append (GTK_BOX (box), _pd_approval_preview_new (text));

  /* An endpoint masked part of the command: what it holds may run, and
   * bash runs a value in more ways than a reader can follow ($N's value
   * through ${!N}).  Or the call holds control characters, shown as
   * escapes: `echo hi \<CR><LF>rm -f victim` runs rm on its own.  Said
   * under the command, as the endpoint says it. */
  if (_pd_run_question_guarded (question))
    {
      g_autofree char *why = question_warning (question);
      GtkWidget *warning = gtk_label_new (why);

      gtk_label_set_use_markup (GTK_LABEL (warning), FALSE);
      gtk_label_set_wrap (GTK_LABEL (warning), TRUE);
      gtk_label_set_xalign (GTK_LABEL (warning), 0);
      gtk_widget_add_css_class (warning, "warning");
      if (question->remote_run != NULL && question->remote_run->approval_masked)
        gtk_widget_add_css_class (warning, "pd-approval-masked");
      if (question->controls != 0 || (question->remote_run != NULL && question->remote_run->approval_controls))
        gtk_widget_add_css_class (warning, "pd-approval-controls");
      gtk_box_append (GTK_BOX (box), warning);
    }

  if (!question_change_sent (question))
    {
      /* Translators: in the approval dialog, under an edit or a write whose
       * change the endpoint did not send */
      GtkWidget *unseen = gtk_label_new (_("The change itself was not sent, so it cannot be "
                                           "approved here. Deny it, or answer it where the run is."));

      gtk_label_set_wrap (GTK_LABEL (unseen), TRUE);
      gtk_label_set_xalign (GTK_LABEL (unseen), 0);
      gtk_widget_add_css_class (unseen, "warning");
      gtk_widget_add_css_class (unseen, "pd-approval-unseen");
      gtk_box_append (GTK_BOX (box), unseen);
      return box;
    }

  if (question_masked (question))
    return box;  /* no Always for This Session to explain */
  always = gtk_label_new (scope);
  gtk_label_set_use_markup (GTK_LABEL (always), FALSE);
  gtk_label_set_wrap (GTK_LABEL (always), TRUE);
  gtk_label_set_xalign (GTK_LABEL (always), 0);
  gtk_widget_add_css_class (always, "dim-label");
  gtk_widget_add_css_class (always, "caption");
  gtk_box_append (GTK_BOX (box), always);

  return box;
}

/* One width for every approval dialog: libadwaita 1.2's widest, 550 px,
 * narrower beside a narrower window (its margins, 30 px each).  It took
 * its content's: a flagged call (a warning that wraps) 550 px with two
 * buttons in a row, a plain one 300 px with its three stacked and the
 * command wrapping mid-quote (tried as a new user would).  The window's
 * default width, not a minimum: libadwaita narrows a dialog whose buttons
 * do not fit in a row to its narrow width whatever its content's natural
 * width, and the dialog still narrows to a phone's 360 px. */
#define APPROVAL_WIDTH     550
#define APPROVAL_MARGIN    30
#define APPROVAL_MIN_WIDTH 300

static void
approval_set_width (GtkWidget *dialog,
                    GtkWindow *parent)
{
  int width = APPROVAL_WIDTH;

  if (parent != NULL && gtk_widget_get_width (GTK_WIDGET (parent)) > 0)
    width = MIN (width, gtk_widget_get_width (GTK_WIDGET (parent)) - 2 * APPROVAL_MARGIN);
  gtk_window_set_default_size (GTK_WINDOW (dialog), MAX (width, APPROVAL_MIN_WIDTH), -1);
}

/* libadwaita 1.2 gives the focus to the first button in its tab order,
 * which in its stacked layout is the last response, Approve Once; its
 * first layout moves the focus there again. Enter activates the focused
 * button whatever the default, so one Enter ran the command (tried as a
 * keyboard user would). Once the dialog is laid out, its default response,
 * Deny, takes the focus. */
static gboolean
focus_default_when_laid_out (GtkWidget     *dialog,
                             GdkFrameClock *clock,
                             gpointer       user_data)
{
  GtkWidget *button = gtk_window_get_default_widget (GTK_WINDOW (dialog));

  /* Held by the guard, it cannot take the focus yet. */
  if (gtk_widget_get_width (dialog) == 0 || button == NULL || gtk_widget_get_width (button) == 0 ||
      !gtk_widget_is_sensitive (button))
    return G_SOURCE_CONTINUE;
  gtk_widget_grab_focus (button);
  /* …and shows it: with Approve Once drawn as the suggested button and no
   * focus ring on Deny, Enter read as approving, and denied three calls in
   * a row (tried as a new user would). */
  gtk_window_set_focus_visible (GTK_WINDOW (dialog), TRUE);
  return G_SOURCE_REMOVE;
}

static void
focus_default_response (GtkWidget *dialog)
{
  gtk_widget_add_tick_callback (dialog, focus_default_when_laid_out, NULL, NULL);
}

void
_pd_run_controller_ask_approval (PdRunController *self,
                                 Question        *question)
{
  GtkWidget *dialog;
  const char *body = _pd_describe_tool (question->tool);
  g_autofree char *generic = NULL;

  if (body == NULL)
    {
      /* The model names the tool: isolated in our sentence. */
      g_autofree char *name = _pd_isolated_line (question->tool);

      /* Translators: %s is the name of a tool, such as shell */
      body = generic = g_strdup_printf (_("The agent wants to use the tool “%s”."), name);
    }

  dialog = adw_message_dialog_new (self->parent, _("Allow This Change?"), body);
  if (question_change_sent (question) && question_masked (question))
    {
      static const char * const responses[] = { "deny", "once", NULL };

      adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                        "deny", _("_Deny"),
                                        "once", _("_Approve Once"),
                                        NULL);
      _pd_dialog_guard_responses (dialog, responses);
    }
  else if (question_change_sent (question))
    {
      static const char * const responses[] = { "deny", "always", "once", NULL };

      adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                        "deny", _("_Deny"),
                                        "always", _("Always for This _Session"),
                                        "once", _("_Approve Once"),
                                        NULL);
      adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "once",
                                                  ADW_RESPONSE_SUGGESTED);
      _pd_dialog_guard_responses (dialog, responses);
    }
  else
    {
      static const char * const responses[] = { "deny", NULL };

      /* An endpoint that names an edit's or a write's file alone (odek's
       * wire) did not send the change: nobody here can see what Approve
       * would allow, so there is none, as on the Overview's card (it
       * approved an edit nobody saw, tried as an attacker would). */
      adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "deny", _("_Deny"), NULL);
      _pd_dialog_guard_responses (dialog, responses);
    }
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "deny",
                                              ADW_RESPONSE_DESTRUCTIVE);
  /* Enter denies: one key press must never run a command (tried as a
   * keyboard user would, Enter on the dialog approved the shell call). */
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "deny");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "deny");
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog),
                                      approval_details (question));
  approval_set_width (dialog, self->parent);
  gtk_widget_add_css_class (dialog, "pd-approval-dialog");

  question->dialog = dialog;
  question->serial = ++self->approval_serial;
  g_signal_connect (dialog, "response", G_CALLBACK (on_approval_response), question);
  g_signal_connect_after (dialog, "map", G_CALLBACK (focus_default_response), NULL);
  /* Each response met once by a reader (libadwaita makes two of each). */
  _pd_message_dialog_responses_once (dialog);
  gtk_window_present (GTK_WINDOW (dialog));
  _pd_run_controller_emit_approval (self, question->tool, question->serial);
}

/* Approval question @serial of @session_id's run, if it is still open. */
static Question *
find_open_approval (PdRunController *self,
                    const char      *session_id,
                    guint            serial)
{
  if (session_id == NULL || g_strcmp0 (session_id, self->session_id) != 0)
    return NULL;
  for (guint i = 0; i < self->questions->len; i++)
    {
      Question *question = g_ptr_array_index (self->questions, i);

      if (question->kind == QUESTION_APPROVAL && question->dialog != NULL && question->serial == serial)
        return question;
    }
  return NULL;
}

/**
 * pd_run_controller_answer_approval:
 * @session_id: the session whose run asks
 * @serial: the question's number, from #PdRunController::approval-asked
 * @allow: approve once, or deny
 *
 * Answers approval question @serial of @session_id's run as its dialog
 * would (a notification's Approve and Deny buttons).  Any other question,
 * a later one of the same run included, is left alone: a stale
 * notification never answers a question it did not show.
 *
 * Returns: whether that question was open
 */
gboolean
pd_run_controller_answer_approval (PdRunController *self,
                                   const char      *session_id,
                                   guint            serial,
                                   gboolean         allow)
{
  Question *question;
  GtkWidget *dialog;

  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), FALSE);

  question = find_open_approval (self, session_id, serial);
  if (question == NULL)
    return FALSE;
  /* Its change was not sent: the dialog has no Approve Once, and nothing
   * approves what nobody saw. */
  if (allow && !question_change_sent (question))
    return FALSE;
  /* Part of it is masked, or it holds control characters: the dialog
   * says so, a notification does not. */
  if (allow && _pd_run_question_guarded (question))
    return FALSE;
  /* The response answers (and may free the question); the dialog,
   * answered elsewhere, goes. */
  dialog = question->dialog;
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (dialog), allow ? "once" : "deny");
  gtk_window_destroy (GTK_WINDOW (dialog));
  return TRUE;
}

/**
 * pd_run_controller_has_approval:
 * @session_id: the session whose run asks
 * @serial: the question's number, from #PdRunController::approval-asked
 *
 * Returns: whether approval question @serial of @session_id's run is open
 */
gboolean
pd_run_controller_has_approval (PdRunController *self,
                                const char      *session_id,
                                guint            serial)
{
  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), FALSE);

  return find_open_approval (self, session_id, serial) != NULL;
}

/**
 * pd_run_controller_get_approval_text:
 * @session_id: the session whose run asks
 * @serial: the question's number, from #PdRunController::approval-asked
 *
 * What approval question @serial asks about, as its dialog shows it: the
 * command, or the file and its change.  The Overview's card and the
 * notification show it beside their own Approve Once.
 *
 * Returns: (transfer none) (nullable): the question's text, %NULL when
 *   that question is not open
 */
const char *
pd_run_controller_get_approval_text (PdRunController *self,
                                     const char      *session_id,
                                     guint            serial)
{
  Question *question;

  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), NULL);

  question = find_open_approval (self, session_id, serial);
  return question != NULL ? question->text : NULL;
}

/**
 * pd_run_controller_get_approval_preview:
 * @session_id: the session whose run asks
 * @serial: the question's number, from #PdRunController::approval-asked
 *
 * What approval question @serial's dialog shows above its summary: the
 * call's preview (the lines an edit takes out and puts in, a write's
 * content, a command and its folder).  The Overview's card shows it beside
 * its own Approve Once (or Review… when it is too long for a card).
 *
 * Returns: (transfer none) (nullable): %NULL when that question is not
 *   open or its call has no preview (an endpoint that sends none)
 */
const char *
pd_run_controller_get_approval_preview (PdRunController *self,
                                        const char      *session_id,
                                        guint            serial)
{
  Question *question;

  g_return_val_if_fail (PD_IS_RUN_CONTROLLER (self), NULL);

  question = find_open_approval (self, session_id, serial);
  if (question == NULL)
    return NULL;
  return question->preview != NULL && question->preview[0] != '\0' ? question->preview : NULL;
}

/* A small markdown rendering with text tags: headings, bullets and code
 * blocks.  The text is inserted as text; nothing is read as markup.  Only
 * the markup itself is left out (a heading's "#"s, a bullet's "- ", a
 * fence's backticks): every other character of the plan is shown, as the
 * plan is what Approve saves.  A fence's info string is shown as its
 * block's label line; a "#" that starts no heading ("#5") and a line of
 * backticks that opens or closes no block (inline code, "```foo" inside a
 * block) are text.  The rest of a fence's line was left out ("```sh — then
 * also delete the backups", approved and saved unseen; tried as an
 * attacker would).  The plan is the model's: every character that could
 * make it read as something else is named first, as the approval dialog
 * and the Overview's cards name them (pd_safe_text_approval(): escapes
 * and other controls as "<U+001B>", bidi controls as "<U+202E>", long
 * padding as "[600 × U+0020]").  A code block's lines read left to right,
 * as a command runs; prose keeps its own direction. */
/* The most of a plan's markdown the review renders, in bytes.  A plan of
 * 10 MB (a model told to write one, or an endpoint's) took 6 s and 340 MB
 * to lay out in the dialog (tried as an attacker would); a plan a person
 * reads is far shorter.  The rest is said, not shown, and the answer is
 * still to the whole plan, which is what Approve saves. */
#define PLAN_REVIEW_SHOWN_BYTES (64 * 1024)

/* The length of @markdown's prefix the review shows: all of it, or up to
 * PLAN_REVIEW_SHOWN_BYTES ending at a line's end where one is near, never
 * inside a character. */
static gsize
plan_shown_length (const char *markdown,
                   gsize       length)
{
  const char *cut;
  const char *newline;

  if (length <= PLAN_REVIEW_SHOWN_BYTES)
    return length;
  cut = g_utf8_find_prev_char (markdown, markdown + PLAN_REVIEW_SHOWN_BYTES + 1);
  newline = g_strrstr_len (markdown, cut - markdown, "\n");
  if (newline != NULL && cut - newline < 4096)
    return newline - markdown;
  return cut - markdown;
}

/* The level of the heading @line starts, as CommonMark has it: one to six
 * "#"s then a space, a tab or the line's end; 0 for none. */
static guint
heading_level (const char *line)
{
  guint level = strspn (line, "#");

  if (level == 0 || level > 6)
    return 0;
  return line[level] == '\0' || line[level] == ' ' || line[level] == '\t' ? level : 0;
}

static void
render_markdown (GtkTextBuffer *buffer,
                 const char    *markdown,
                 gsize          length)
{
  g_autofree char *prefix = g_strndup (markdown, length);
  g_autofree char *safe = pd_safe_text_approval (prefix);
  g_auto(GStrv) lines = g_strsplit (safe, "\n", -1);
  gboolean in_code = FALSE;
  gsize fence = 0;
  GtkTextIter end;

  gtk_text_buffer_create_tag (buffer, "h1", "weight", PANGO_WEIGHT_BOLD, "scale", 1.4,
                              "pixels-below-lines", 6, NULL);
  gtk_text_buffer_create_tag (buffer, "h2", "weight", PANGO_WEIGHT_BOLD, "scale", 1.2,
                              "pixels-above-lines", 6, "pixels-below-lines", 4, NULL);
  gtk_text_buffer_create_tag (buffer, "h3", "weight", PANGO_WEIGHT_BOLD, NULL);
  gtk_text_buffer_create_tag (buffer, "code", "family", "monospace", "left-margin", 12, NULL);
  gtk_text_buffer_create_tag (buffer, "fence", "style", PANGO_STYLE_ITALIC, "left-margin", 12,
                              NULL);
  gtk_text_buffer_create_tag (buffer, "item", "left-margin", 12, "indent", -12, NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      const char *tag = NULL;
      g_autofree char *shown = NULL;
      gsize ticks = strspn (line, "`");
      guint level;

      gtk_text_buffer_get_end_iter (buffer, &end);

      if (!in_code && ticks >= 3 && strchr (line + ticks, '`') == NULL)
        {
          /* An opening fence: what follows its backticks is the label. */
          in_code = TRUE;
          fence = ticks;
          shown = g_strstrip (g_strdup (line + ticks));
          if (shown[0] == '\0')
            continue;
          tag = "fence";
        }
      else if (in_code && ticks >= fence && line[ticks + strspn (line + ticks, " \t")] == '\0')
        {
          in_code = FALSE;
          continue;
        }
      else if (in_code)
        {
          tag = "code";
          shown = _pd_ltr_lines (line);
        }
      else if ((level = heading_level (line)) > 0)
        {
          tag = level == 1 ? "h1" : level == 2 ? "h2" : "h3";
          shown = g_strdup (g_strchug ((char *) line + level));
        }
      else if (g_str_has_prefix (line + strspn (line, " "), "- ") ||
               g_str_has_prefix (line + strspn (line, " "), "* "))
        {
          tag = "item";
          shown = g_strconcat ("\xe2\x80\xa2 ", line + strspn (line, " ") + 2, NULL);
        }
      else
        {
          shown = g_strdup (line);
        }

      if (tag != NULL)
        gtk_text_buffer_insert_with_tags_by_name (buffer, &end, shown, -1, tag, NULL);
      else
        gtk_text_buffer_insert (buffer, &end, shown, -1);

      if (lines[i + 1] != NULL)
        {
          gtk_text_buffer_get_end_iter (buffer, &end);
          gtk_text_buffer_insert (buffer, &end, "\n", -1);
        }
    }
}

/* Enter in the feedback sends it: once there is feedback, Keep Planning is
 * the default response and the field activates it. Without any there is
 * no default: Approve was, and one stray Enter (type-ahead, a double
 * Return on sending /plan) approved a plan nobody read (tried as an
 * attacker would). Approve takes a click or its mnemonic. */
static void
on_review_feedback_changed (GtkEditable      *feedback,
                            AdwMessageDialog *dialog)
{
  adw_message_dialog_set_default_response (dialog, gtk_editable_get_text (feedback)[0] != '\0'
                                                   ? "keep" : NULL);
}

/* libadwaita gives the first focus to a response button (Approve, in its
 * stacked layout), and Enter activates the focused button whatever the
 * default. The proposed plan takes it once laid out: a screen reader says
 * the dialog, then the plan (named and described by its text), and Tab
 * goes on to the feedback, then the buttons. Tab reached Approve before
 * the plan was read (tried with a screen reader's view). */
static gboolean
focus_plan_when_laid_out (GtkWidget     *dialog,
                          GdkFrameClock *clock,
                          gpointer       user_data)
{
  GtkWidget *plan = g_object_get_data (G_OBJECT (dialog), "plan");

  if (gtk_widget_get_width (dialog) == 0 || gtk_widget_get_width (plan) == 0)
    return G_SOURCE_CONTINUE;
  gtk_widget_grab_focus (plan);
  return G_SOURCE_REMOVE;
}

static void
focus_plan (GtkWidget *dialog)
{
  gtk_widget_add_tick_callback (dialog, focus_plan_when_laid_out, NULL, NULL);
}

static void
on_review_response (AdwMessageDialog *dialog,
                    const char       *response,
                    Question         *question)
{
  g_autoptr(PdRunController) self = g_weak_ref_get (&question->channel->controller);
  GtkEditable *feedback = g_object_get_data (G_OBJECT (dialog), "feedback");
  PdPlanReviewAnswer answer = PD_PLAN_REVIEW_DISMISSED;

  if (g_strcmp0 (response, "approve") == 0)
    answer = PD_PLAN_REVIEW_APPROVE;
  else if (g_strcmp0 (response, "keep") == 0)
    answer = PD_PLAN_REVIEW_KEEP_PLANNING;

  _pd_run_question_answer (question, answer,
                   answer == PD_PLAN_REVIEW_KEEP_PLANNING ? gtk_editable_get_text (feedback) : NULL);
  question->dialog = NULL;
  if (self != NULL)
    {
      g_ptr_array_remove (self->questions, question);
      _pd_run_controller_emit_review (self, FALSE);
      guard_open_questions (self);
    }
}

void
_pd_run_controller_ask_review (PdRunController *self,
                               Question        *question)
{
  GtkWidget *dialog;
  GtkWidget *box;
  GtkWidget *scroller;
  GtkWidget *view;
  GtkWidget *entry;
  GtkWidget *hint;
  GtkWidget *cut_note = NULL;
  gsize plan_length;
  gsize shown_length;

  dialog = adw_message_dialog_new (self->parent, _("Review the Plan"),
                                   _("Approve it to leave plan mode and let the agent carry it out, or keep planning and tell the agent what to change."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "keep", _("_Keep Planning"),
                                    "approve", _("_Approve"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "approve",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), NULL);
  /* Closing the dialog answers "dismissed". */
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "dismiss");
  gtk_widget_add_css_class (dialog, "pd-review-dialog");

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);

  view = gtk_text_view_new ();
  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_cursor_visible (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (view), 12);
  gtk_text_view_set_right_margin (GTK_TEXT_VIEW (view), 12);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (view), 12);
  gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (view), 12);
  /* Tab leaves it for the feedback. */
  gtk_text_view_set_accepts_tab (GTK_TEXT_VIEW (view), FALSE);
  plan_length = strlen (question->text);
  shown_length = plan_shown_length (question->text, plan_length);
  render_markdown (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), question->text, shown_length);
  {
    GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
    GtkTextIter start, end;
    g_autofree char *plan_text = NULL;

    gtk_text_buffer_get_bounds (buffer, &start, &end);
    plan_text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
    _pd_accessible_set_text (GTK_WIDGET (view), _("Proposed plan"), plan_text);
  }
  g_object_set_data (G_OBJECT (dialog), "plan", view);
  g_object_set_data_full (G_OBJECT (dialog), "markdown", g_strdup (question->text), g_free);

  scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scroller), 260);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), view);
  gtk_widget_add_css_class (scroller, "card");
  gtk_widget_add_css_class (scroller, "pd-plan-review");
  gtk_box_append (GTK_BOX (box), scroller);

  if (shown_length < plan_length)
    {
      g_autofree char *rest = g_format_size (plan_length - shown_length);
      g_autofree char *text = NULL;

      /* Translators: %s is a size, e.g. "9.9 MB" */
      text = g_strdup_printf (_("The plan is too long to show whole: its last %s are not shown. Approve and Keep Planning answer the whole plan."),
                              rest);
      cut_note = gtk_label_new (text);
      gtk_label_set_wrap (GTK_LABEL (cut_note), TRUE);
      gtk_label_set_xalign (GTK_LABEL (cut_note), 0);
      gtk_widget_add_css_class (cut_note, "warning");
      gtk_box_append (GTK_BOX (box), cut_note);
    }

  /* What the field is for, above it and wrapped: as its hint, at 1.5×
   * text and 360 px it read "What should change (for…" (tried as a new
   * user would, with Large Text). */
  hint = gtk_label_new (_("What should change (for Keep Planning)"));
  gtk_label_set_wrap (GTK_LABEL (hint), TRUE);
  gtk_label_set_xalign (GTK_LABEL (hint), 0);
  gtk_box_append (GTK_BOX (box), hint);
  entry = gtk_entry_new ();
  gtk_accessible_update_relation (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_RELATION_LABELLED_BY,
                                  hint, NULL, -1);
  gtk_entry_set_activates_default (GTK_ENTRY (entry), TRUE);
  g_signal_connect_object (entry, "changed", G_CALLBACK (on_review_feedback_changed), dialog, 0);
  gtk_box_append (GTK_BOX (box), entry);
  g_object_set_data (G_OBJECT (dialog), "feedback", entry);

  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), box);

  {
    static const char * const responses[] = { "keep", "approve", NULL };

    _pd_dialog_guard_responses (dialog, responses);
  }
  question->dialog = dialog;
  g_signal_connect (dialog, "response", G_CALLBACK (on_review_response), question);
  g_signal_connect_after (dialog, "map", G_CALLBACK (focus_plan), NULL);
  /* Each response met once by a reader (libadwaita makes two of each). */
  _pd_message_dialog_responses_once (dialog);
  gtk_window_present (GTK_WINDOW (dialog));
  /* A question like an approval: a notification says it waits. */
  _pd_run_controller_emit_review (self, TRUE);
}
