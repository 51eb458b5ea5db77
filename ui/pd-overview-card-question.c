/* pd-overview-card-question.c: the question an Overview card shows
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The part of a card (pd-overview-card-row.c) that asks: the tool's
 * words, the command whole or its start and Review…, the time the
 * endpoint leaves before it denies by itself, and Deny, Approve Once and
 * Open, held back for a moment after the question changed.
 */
#define G_LOG_DOMAIN "pd-overview-card-row"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "pd-approval-preview-private.h"
#include "pd-overview-card-row-private.h"
#include "pd-safe-text.h"
#include "pd-ui-util-private.h"

/* The most of a question's command a card shows, in characters and in
 * lines; a longer one is answered through the Review dialog. */
#define CARD_COMMAND_CHARS 480
#define CARD_COMMAND_LINES 6

/* The question's command: whole on the card, or its start and Review…. */
void
_pd_overview_card_row_set_command (PdOverviewCardRow *self,
             const char        *command)
{
  g_autofree char *shown = NULL;
  g_autofree char *card = NULL;
  const char *p = NULL;
  guint lines = 1;

  g_clear_pointer (&self->command_shown, g_free);
  self->command_cut = FALSE;
  if (command != NULL && *command != '\0')
    {
      shown = pd_safe_text_approval (command);
      for (p = shown; *p != '\0' && lines <= CARD_COMMAND_LINES; p++)
        if (*p == '\n')
          lines++;
      if (lines > CARD_COMMAND_LINES)
        card = g_strndup (shown, p - 1 - shown);
      if (g_utf8_strlen (card != NULL ? card : shown, -1) > CARD_COMMAND_CHARS)
        {
          g_autofree char *head = g_utf8_substring (card != NULL ? card : shown, 0, CARD_COMMAND_CHARS);

          g_free (card);
          card = g_steal_pointer (&head);
        }
      self->command_cut = card != NULL;
      if (self->command_cut)
        {
          g_autofree char *head = g_steal_pointer (&card);

          card = g_strconcat (head, "…", NULL);
        }
      self->command_shown = g_strdup (shown);
    }
  if (card == NULL && shown != NULL)
    card = g_strdup (shown);
  if (card != NULL)
    {
      g_autofree char *ltr = _pd_ltr_lines (card);
      g_autofree char *plain = _pd_accessible_text (card);
      g_autofree char *name = NULL;

      _pd_card_set_label (self->approval_command, ltr);
      /* A Tab stop of its own, named as what it is: a screen reader could
       * not reach the command it was asked to approve (tried with one).
       * Translators: a screen reader's name of the command a card asks
       * about; %s is the command */
      name = g_strdup_printf (_("Command: %s"), plain);
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->approval_command),
                                      GTK_ACCESSIBLE_PROPERTY_LABEL, name, -1);
    }
  else
    {
      _pd_card_set_label (self->approval_command, "");
      gtk_accessible_reset_property (GTK_ACCESSIBLE (self->approval_command), GTK_ACCESSIBLE_PROPERTY_LABEL);
    }
  gtk_widget_set_visible (self->approval_command_scroller, card != NULL);
  /* Translators: the card's button when its command is too long to show there */
  gtk_button_set_label (GTK_BUTTON (self->approve), self->command_cut ? _("_Review…") : _("_Approve Once"));
  gtk_accessible_reset_property (GTK_ACCESSIBLE (self->approve), GTK_ACCESSIBLE_PROPERTY_LABEL);
}

/* The command's scrollbar is drawn when a line goes past the card, and
 * only then. */
static void
show_bar_when_needed (GtkAdjustment *adjustment,
                      GtkWidget     *bar)
{
  gtk_widget_set_visible (bar, gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_lower (adjustment) >
                               gtk_adjustment_get_page_size (adjustment) + 0.5);
}

/* The question shown changed: remembered, and the buttons held back. */
void
_pd_overview_card_row_remember_question (PdOverviewCardRow *self)
{
  const PdRemoteRun *run = self->card != NULL ? pd_overview_card_get_remote_run (self->card) : NULL;
  guint serial = self->card != NULL ? pd_overview_card_get_approval_serial (self->card) : 0;
  gboolean same = serial == self->shown_serial &&
                  (run == NULL) == (self->shown_run == NULL) &&
                  (run == NULL || (g_strcmp0 (run->run_id, self->shown_run->run_id) == 0 &&
                                   g_strcmp0 (run->approval_id, self->shown_run->approval_id) == 0));

  if (same)
    return;
  /* A Review dialog shows the question it was opened on, and no other. */
  _pd_overview_card_row_close_review (self);
  g_clear_pointer (&self->shown_run, pd_remote_run_free);
  self->shown_run = run != NULL ? pd_remote_run_copy (run) : NULL;
  self->shown_serial = serial;
  self->question_at = g_get_monotonic_time ();
  /* A new question takes the focus off the answers (Space twice approved it). */
  if ((run != NULL ? run->approval_id != NULL : serial != 0) &&
      (gtk_widget_has_focus (self->approve) || gtk_widget_has_focus (self->deny)))
    gtk_widget_grab_focus (GTK_WIDGET (self));
}

/* How long until the endpoint denies the question by itself. */
static char *
deadline_text (gint64 left_usec)
{
  guint seconds = (guint) MIN ((left_usec + G_USEC_PER_SEC - 1) / G_USEC_PER_SEC, G_MAXUINT / 2);

  if (seconds == 0)
    /* Translators: on an Overview card's question: no one answered in time */
    return g_strdup (_("The endpoint denies it by itself now"));
  if (seconds < 120)
    /* Translators: on an Overview card's question: unanswered, the endpoint denies it after %u seconds */
    return g_strdup_printf (ngettext ("The endpoint denies it by itself in %u second",
                                      "The endpoint denies it by itself in %u seconds", seconds), seconds);
  /* Translators: on an Overview card's question: unanswered, the endpoint denies it after %u minutes */
  return g_strdup_printf (ngettext ("The endpoint denies it by itself in %u minute",
                                    "The endpoint denies it by itself in %u minutes", (seconds + 59) / 60),
                          (seconds + 59) / 60);
}

static gboolean on_deadline_timer (gpointer data);

/* The time an endpoint's question has left, on a row shown, told again at
 * each second it counts: the endpoint denies a question no one answers in
 * its time (60 s), and the card said nothing of it (tried as a new user
 * would).  A question of this window's own run waits: none shown. */
void
_pd_overview_card_row_update_deadline (PdOverviewCardRow *self)
{
  gint64 deadline = 0, left;
  g_autofree char *text = NULL;

  g_clear_handle_id (&self->deadline_timer, g_source_remove);
  if (self->card != NULL && pd_overview_card_has_approval (self->card))
    deadline = pd_overview_card_get_approval_deadline (self->card);
  gtk_widget_set_visible (self->approval_deadline, deadline != 0);
  if (deadline == 0 || !gtk_widget_get_mapped (GTK_WIDGET (self)))
    return;
  left = MAX (deadline - g_get_monotonic_time (), 0);
  text = deadline_text (left);
  /* An inscription: a new text is drawn, and nothing is measured again (a
   * label's every second queued the window's size, the whole list
   * measured, 11–24 ms with 500 cards in bench-overview --view). */
  if (g_strcmp0 (gtk_inscription_get_text (GTK_INSCRIPTION (self->approval_deadline)), text) != 0)
    gtk_inscription_set_text (GTK_INSCRIPTION (self->approval_deadline), text);
  _pd_inscription_fit_lines (GTK_INSCRIPTION (self->approval_deadline));
  /* A reader is told it every ten seconds, not at each second. */
  if ((left + 9 * G_USEC_PER_SEC) / (10 * G_USEC_PER_SEC) != self->deadline_told)
    {
      self->deadline_told = (left + 9 * G_USEC_PER_SEC) / (10 * G_USEC_PER_SEC);
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->approval_deadline), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      text, -1);
    }
  if (left > 0)
    self->deadline_timer = g_timeout_add ((guint) ((left - 1) % G_USEC_PER_SEC / 1000) + 1, on_deadline_timer, self);
}

static gboolean
on_deadline_timer (gpointer data)
{
  PdOverviewCardRow *self = data;

  self->deadline_timer = 0;
  _pd_overview_card_row_update_deadline (self);
  return G_SOURCE_REMOVE;
}

static void
on_deny (PdOverviewCardRow *self)
{
  _pd_overview_card_row_answer (self, FALSE);
}

static void
on_review_response (AdwMessageDialog  *dialog,
                    const char        *response,
                    PdOverviewCardRow *self)
{
  /* The dialog goes when the question changes: while it is open, the
   * question it shows is the card's. */
  if (g_str_equal (response, "once"))
    _pd_overview_card_row_answer (self, TRUE);
  else if (g_str_equal (response, "deny"))
    _pd_overview_card_row_answer (self, FALSE);
}

static void
on_review_destroy (GtkWidget         *dialog,
                   PdOverviewCardRow *self)
{
  if (self->review == dialog)
    self->review = NULL;
}

/* The whole command, a row to a line as the approval dialog shows it
 * (pd-approval-preview.c: numbered, marked, each wrapping in its own
 * column), with Deny and Approve Once (Cancel, the default, answers
 * nothing).  One label scrolled sideways showed about 30 columns of a
 * long line in a narrow dialog, its tail out of sight (tried as an
 * attacker would). */
static void
open_review (PdOverviewCardRow *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *dialog;

  if (self->review != NULL || self->command_shown == NULL)
    return;
  dialog = adw_message_dialog_new (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL,
                                   _("Review the Request"),
                                   gtk_label_get_text (GTK_LABEL (self->approval_text)));
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), _pd_approval_preview_new (self->command_shown));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "deny", _("_Deny"),
                                    "once", _("_Approve Once"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "deny", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "once", ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  gtk_widget_add_css_class (dialog, "pd-approval-dialog");
  /* Its Approve Once may open under the pointer that clicked Review…: the
   * card's own guard counts from the question's arrival, not from this
   * dialog (tried as an attacker would: approved 120 ms after it opened). */
  _pd_dialog_guard_responses (dialog, (const char * const[]) { "once", NULL });
  g_signal_connect_object (dialog, "response", G_CALLBACK (on_review_response), self, 0);
  g_signal_connect_object (dialog, "destroy", G_CALLBACK (on_review_destroy), self, 0);
  self->review = dialog;
  /* Each response met once by a reader (libadwaita makes two of each). */
  _pd_message_dialog_responses_once (dialog);
  gtk_window_present (GTK_WINDOW (dialog));
}

void
_pd_overview_card_row_close_review (PdOverviewCardRow *self)
{
  if (self->review != NULL)
    gtk_window_destroy (GTK_WINDOW (g_steal_pointer (&self->review)));
}

static void
on_approve (PdOverviewCardRow *self)
{
  if (self->command_cut)
    open_review (self);
  else
    _pd_overview_card_row_answer (self, TRUE);
}

/**
 * pd_overview_card_row_get_review:
 *
 * Returns: (transfer none) (nullable): the open Review dialog
 */
GtkWidget *
pd_overview_card_row_get_review (PdOverviewCardRow *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD_ROW (self), NULL);
  return self->review;
}

/* How long the buttons take no click after the question changes (for
 * tests; half a second by default). */
void
pd_overview_card_row_set_answer_guard (PdOverviewCardRow *self,
                                       guint              ms)
{
  g_return_if_fail (PD_IS_OVERVIEW_CARD_ROW (self));
  self->guard_usec = (gint64) ms * 1000;
}

/* The question's part of the card, under its status lines. */
void
_pd_overview_card_row_init_question (PdOverviewCardRow *self)
{
  GtkWidget *buttons, *scroller, *bar;
  GtkAdjustment *hadjustment;

  self->approval = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_box_append (GTK_BOX (self->box), self->approval);
  self->approval_text = _pd_card_plain_label (NULL, TRUE);
  gtk_box_append (GTK_BOX (self->approval), self->approval_text);
  self->approval_command = _pd_card_plain_label ("pd-approval-command", TRUE);
  /* All its lines, never ellipsized: what is cut is said, and reviewed. */
  gtk_label_set_lines (GTK_LABEL (self->approval_command), -1);
  gtk_label_set_ellipsize (GTK_LABEL (self->approval_command), PANGO_ELLIPSIZE_NONE);
  _pd_label_no_hyphens (self->approval_command);
  gtk_widget_add_css_class (self->approval_command, "monospace");
  /* Selectable, so a Tab stop a screen reader reads and a person copies
   * from (Tab from the card leads to it, then to Deny). */
  gtk_label_set_selectable (GTK_LABEL (self->approval_command), TRUE);
  _pd_label_unselect_on_leave (self->approval_command);
  /* Not wrapped: an unmarked wrapped tail read as a line of its own (an
   * added "… - delete_backups()" as a removed line). It scrolls sideways;
   * the card's line and character limits keep it short. Its scrollbar is
   * a widget of its own under it: the scrolled window's own one took its
   * height from the line it scrolls, which was then not drawn. */
  self->approval_command_scroller = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  scroller = _pd_unwrapped_scroller (self->approval_command);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_EXTERNAL, GTK_POLICY_NEVER);
  hadjustment = gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (scroller));
  bar = gtk_scrollbar_new (GTK_ORIENTATION_HORIZONTAL, hadjustment);
  g_signal_connect_object (hadjustment, "changed", G_CALLBACK (show_bar_when_needed), bar, 0);
  gtk_widget_set_visible (bar, FALSE);
  gtk_box_append (GTK_BOX (self->approval_command_scroller), scroller);
  gtk_box_append (GTK_BOX (self->approval_command_scroller), bar);
  gtk_box_append (GTK_BOX (self->approval), self->approval_command_scroller);
  /* Translators: on an Overview card, under a question about an edit or a
   * write whose change the endpoint did not send */
  self->approval_unseen = _pd_card_plain_label ("warning", TRUE);
  gtk_label_set_text (GTK_LABEL (self->approval_unseen),
                      _("The change itself was not sent, so it cannot be approved here. Open the session to see it."));
  gtk_label_set_lines (GTK_LABEL (self->approval_unseen), -1);
  gtk_label_set_ellipsize (GTK_LABEL (self->approval_unseen), PANGO_ELLIPSIZE_NONE);
  gtk_widget_set_visible (self->approval_unseen, FALSE);
  gtk_box_append (GTK_BOX (self->approval), self->approval_unseen);
  self->approval_deadline = gtk_inscription_new (NULL);
  gtk_widget_add_css_class (self->approval_deadline, "pd-card-deadline");
  gtk_inscription_set_xalign (GTK_INSCRIPTION (self->approval_deadline), 0);
  gtk_inscription_set_wrap_mode (GTK_INSCRIPTION (self->approval_deadline), PANGO_WRAP_WORD_CHAR);
  gtk_inscription_set_min_lines (GTK_INSCRIPTION (self->approval_deadline), 1);
  gtk_inscription_set_nat_lines (GTK_INSCRIPTION (self->approval_deadline), 2);
  gtk_inscription_set_min_chars (GTK_INSCRIPTION (self->approval_deadline), 0);
  gtk_inscription_set_nat_chars (GTK_INSCRIPTION (self->approval_deadline), 0);
  gtk_inscription_set_text_overflow (GTK_INSCRIPTION (self->approval_deadline),
                                     GTK_INSCRIPTION_OVERFLOW_ELLIPSIZE_END);
  self->deadline_told = -1;
  gtk_widget_set_visible (self->approval_deadline, FALSE);
  gtk_box_append (GTK_BOX (self->approval), self->approval_deadline);
  buttons = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  gtk_widget_set_halign (buttons, GTK_ALIGN_END);
  gtk_box_append (GTK_BOX (self->approval), buttons);
  self->deny = _pd_card_mnemonic_button (_("_Deny"));
  gtk_widget_add_css_class (self->deny, "destructive-action");
  g_signal_connect_swapped (self->deny, "clicked", G_CALLBACK (on_deny), self);
  gtk_box_append (GTK_BOX (buttons), self->deny);
  self->approve = _pd_card_mnemonic_button (_("_Approve Once"));
  gtk_widget_add_css_class (self->approve, "suggested-action");
  g_signal_connect_swapped (self->approve, "clicked", G_CALLBACK (on_approve), self);
  gtk_box_append (GTK_BOX (buttons), self->approve);
  /* Translators: on an Overview card, opens the session of its question */
  self->open = _pd_card_mnemonic_button (_("_Open"));
  g_signal_connect_swapped (self->open, "clicked", G_CALLBACK (_pd_overview_card_row_open), self);
  gtk_widget_set_visible (self->open, FALSE);
  gtk_box_append (GTK_BOX (buttons), self->open);
}
