/* pd-overview-card-row.c: one card of the Overview page
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A session at a glance: the pie and X/Y, its title, agent and source, what
 * it needs (a question, a blocked step, a failure, a stall), the current
 * step, the time since its last change and, when its run waits on a
 * question, the question with Deny and Approve Once (no default: Enter on
 * the card opens the session, it never answers).  Every text of the card
 * comes from the agent or an endpoint: plain labels, never markup, each on
 * one line with its controls shown (pd_safe_text_line()) and in an isolate
 * of its own, so that a bidi override in a title or a source's name cannot
 * reorder the rest of a line (read another endpoint's name, say).  The
 * title wraps to three lines before it is cut; the time since the last
 * change sits beside it, or under the origin on a narrow card.
 * ::answer says which button was pressed and which question the card showed
 * then; for half a second after its question changes, the buttons take no
 * click (a question replaced just before a click is not answered unseen).
 *
 * The command (or file) a question asks about is shown whole, on as many
 * lines as it takes, with look-alike characters and long padding named
 * (pd_safe_text_approval()): it was cut to two lines, so a command padded
 * with blanks ran its real end unseen on one click of Approve Once (tried
 * as an attacker would).  One too long for a card gets Review… instead,
 * a dialog that shows it whole and answers the question it showed.  A
 * question whose change the card cannot show (an endpoint that names an
 * edit's or a write's file alone, with no preview) says so, and offers
 * Deny and Open, never Approve Once: that approved an edit nobody saw
 * (tried as an attacker would).
 */
#define G_LOG_DOMAIN "pd-overview-card-row"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "pd-overview-card-row.h"
#include "pd-plan-pie.h"
#include "pd-row-name.h"
#include "pd-safe-text.h"
#include "pd-remote-source.h"
#include "pd-session-item.h"
#include "pd-ui-util-private.h"
#include "pd-overview-card-need-private.h"
#include "pd-overview-card-row-private.h"

/* How long the buttons ignore clicks after the question changed. */
#define ANSWER_GUARD_USEC (G_USEC_PER_SEC / 2)
/* An agent's name on a card: the names of known agents are shorter. */
#define AGENT_TEXT_CHARS 24


G_DEFINE_FINAL_TYPE (PdOverviewCardRow, pd_overview_card_row, GTK_TYPE_WIDGET)

enum {
  ANSWER,
  OPEN,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

GtkWidget *
_pd_card_plain_label (const char *css_class,
             gboolean    wrap)
{
  GtkWidget *label = gtk_label_new (NULL);

  /* Shown once it has a text (_pd_card_set_label()). */
  gtk_widget_set_visible (label, FALSE);
  gtk_label_set_use_markup (GTK_LABEL (label), FALSE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  if (wrap)
    {
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
      gtk_label_set_lines (GTK_LABEL (label), 2);
    }
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  if (css_class != NULL)
    gtk_widget_add_css_class (label, css_class);
  return label;
}

/* Sets @label's text when it changed. What a screen reader gets of it is
 * the same text without the isolates and marks it is shown with
 * (_pd_accessible_text()): GTK 4.8 names a label by its text, and a
 * reader said "Now: ⁨Write the tests⁩" with the isolates in it, or tripped
 * on them.  An empty label is hidden: over AT-SPI a reader met it as
 * "GtkLabel" (GTK 4.8 names a nameless label by its class, issue 23). */
gboolean
_pd_card_set_label (GtkWidget  *label,
           const char *text)
{
  g_autofree char *plain = NULL;

  gtk_widget_set_visible (label, text != NULL && text[0] != '\0');
  if (g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)), text) == 0)
    return FALSE;
  gtk_label_set_text (GTK_LABEL (label), text);
  plain = _pd_accessible_text (text);
  if (g_strcmp0 (plain, text) != 0)
    gtk_accessible_update_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_LABEL, plain, -1);
  return TRUE;
}

/* Sets @inscription's text when it changed, as _pd_card_set_label() a
 * label's.  An inscription is drawn again and nothing is measured: a
 * label's new text queued the window's size, which the X11 surface works
 * out outside a frame, the whole window measured (11–16 ms with the
 * Overview's 206 card rows, bench-overview --view); the card's X/Y and
 * current step change as its plan moves on. */
static gboolean
card_set_inscription (GtkWidget  *inscription,
                      const char *text)
{
  g_autofree char *plain = NULL;

  gtk_widget_set_visible (inscription, text != NULL && text[0] != '\0');
  if (g_strcmp0 (gtk_inscription_get_text (GTK_INSCRIPTION (inscription)), text) == 0)
    return FALSE;
  gtk_inscription_set_text (GTK_INSCRIPTION (inscription), text);
  /* Its name for a reader: the text, without isolates and marks. */
  plain = _pd_accessible_text (text);
  gtk_accessible_update_property (GTK_ACCESSIBLE (inscription), GTK_ACCESSIBLE_PROPERTY_LABEL, plain, -1);
  return TRUE;
}

/* A mnemonic button, named once: GTK 4.8 names it by its raw label and
 * again through its mnemonic label ("_Deny Deny"); the label alone names
 * it (as _pd_name_mnemonic_buttons() does for the windows' buttons, which
 * reaches a card's only once it has the focus). */
GtkWidget *
_pd_card_mnemonic_button (const char *label)
{
  GtkWidget *button = gtk_button_new_with_mnemonic (label);

  gtk_accessible_reset_property (GTK_ACCESSIBLE (button), GTK_ACCESSIBLE_PROPERTY_LABEL);
  return button;
}

/* An endpoint's or agent's text for a line of the card: its controls
 * shown, in an isolate of its own, and no longer than a card can show (a
 * 300,000-character title is not laid out whole to be ellipsized). */
char *
_pd_card_text (const char *text)
{
  return _pd_isolated_short (text, CARD_TEXT_CHARS);
}

/* The agent's name as an endpoint gave it: short, its runs of spaces of
 * any kind one space.  An endpoint named its agent "Plandeck · This
 * Computer" and 235 no-break spaces, so that the card read as the local
 * one and the real source was pushed out of sight next to Approve Once
 * (tried as an attacker would); the source now comes first and the
 * agent's name cannot push it away. */
static char *
agent_text (const char *agent)
{
  g_autofree char *safe = pd_safe_text_line (pd_session_source_label (agent));
  g_autoptr(GString) squeezed = g_string_new (NULL);
  gboolean space = FALSE;

  for (const char *p = safe; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_isspace (c) || g_unichar_type (c) == G_UNICODE_SPACE_SEPARATOR)
        {
          space = squeezed->len > 0;
          continue;
        }
      if (space)
        g_string_append_c (squeezed, ' ');
      space = FALSE;
      g_string_append_unichar (squeezed, c);
    }
  return _pd_isolated_short (squeezed->str, AGENT_TEXT_CHARS);
}

/* Why a card's values are its source's last: its state in words. */
static char *
source_state_text (PdOverviewCard *card)
{
  PdSource *source = pd_overview_card_get_source (card);
  const char *error = pd_overview_card_get_source_error (card);
  g_autofree char *safe = _pd_card_text (error);

  if (error == NULL)
    return NULL;
  if (PD_IS_REMOTE_SOURCE (source))
    switch (pd_remote_source_get_state (PD_REMOTE_SOURCE (source)))
      {
      case PD_REMOTE_OFFLINE:
        /* Translators: an endpoint's state, then why, from the endpoint */
        return g_strdup_printf (_("Unreachable — %s"), safe);
      case PD_REMOTE_DENIED:
        if (pd_remote_source_get_host_refused (PD_REMOTE_SOURCE (source)))
          /* Translators: an endpoint's state, then why, from the endpoint */
          return g_strdup_printf (_("Address refused — %s"), safe);
        /* Translators: an endpoint's state, then why, from the endpoint */
        return g_strdup_printf (pd_remote_source_get_token (PD_REMOTE_SOURCE (source)) != NULL
                                ? _("Token refused — %s") : _("Token needed — %s"), safe);
      default:  /* connecting, online */
        break;
      }
  /* Translators: the source's last cards are shown; %s says why they may be old */
  return g_strdup_printf (_("Not answering — %s"), safe);
}

/* What pd_format_relative_time() says of @changed_at at @now, as a number:
 * the same number, the same words; -1 for a date, whose words are not
 * worked out here (a session a week old, or dated ahead of this clock, is
 * not active: rare). */
static gint64
time_bucket (gint64 changed_at,
             gint64 now)
{
  gint64 span = now - changed_at / G_USEC_PER_SEC * G_USEC_PER_SEC;

  if (span < -(gint64) PD_SESSION_FUTURE_MINUTES * G_TIME_SPAN_MINUTE)
    return -1;
  if (span < G_TIME_SPAN_MINUTE)
    return 0;
  if (span < G_TIME_SPAN_HOUR)
    return 100 + span / G_TIME_SPAN_MINUTE;
  if (span < G_TIME_SPAN_DAY)
    return 1000 + span / G_TIME_SPAN_HOUR;
  if (span < 7 * G_TIME_SPAN_DAY)
    return 10000 + span / G_TIME_SPAN_DAY;
  return -1;
}

/* The time since the card's last change, told only on a row that is
 * shown (mapped; one the list keeps aside is told as it is mapped again)
 * and only when its words change: a card changes every second while its
 * agent writes, and each change made a GDateTime and a sentence for a
 * label that read "just now" all along, on rows seen or not. */
static gboolean
row_update_time (PdOverviewCardRow *self)
{
  g_autoptr(GDateTime) now = NULL;
  g_autofree char *when = NULL;
  gint64 bucket;

  if (self->card == NULL || !gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      self->time_bucket = -1;
      return FALSE;
    }
  bucket = time_bucket (pd_overview_card_get_changed_at (self->card), g_get_real_time ());
  if (bucket >= 0 && bucket == self->time_bucket)
    return FALSE;
  now = g_date_time_new_now_local ();
  when = pd_format_relative_time (pd_overview_card_get_changed_at (self->card), now);
  self->time_bucket = bucket;
  return _pd_card_set_label (self->time, when);
}

/* @text, then @part after a comma, when @part says something. */
static void
add_part (GString    *text,
          const char *part)
{
  if (part == NULL || *part == '\0')
    return;
  if (text->len == 0)
    {
      g_string_append (text, part);
      return;
    }
  {
    g_autofree char *head = g_strdup (text->str);

    g_string_truncate (text, 0);
    /* Translators: how a screen reader names a card: its title, then what
     * it needs, the steps done, the current step and when it changed,
     * each after the last */
    g_string_append_printf (text, _("%s, %s"), head, part);
  }
}

/* The card's name and description for a screen reader, told again when a
 * text of it changed: the name says what a sighted person reads on it
 * (its title, what it needs, the steps done, the current step and the
 * time since its last change), the description where it runs. The name
 * said only its title and its need: "2/5", "Now: …" and the time were
 * not read (tried with a screen reader). */
static void
tell_name (PdOverviewCardRow *self)
{
  g_autoptr(GString) name = g_string_new (NULL);
  g_autoptr(GString) description = g_string_new (NULL);
  g_autofree char *steps = NULL;
  guint done = pd_overview_card_get_done (self->card);
  guint total = pd_overview_card_get_total (self->card);

  if (total > 0)
    /* Translators: a session's plan progress, e.g. "3 of 5 steps done" */
    steps = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u of %u step done", "%u of %u steps done", total),
                             done, total);
  add_part (name, gtk_label_get_text (GTK_LABEL (self->title)));
  add_part (name, gtk_label_get_text (GTK_LABEL (self->need)));
  add_part (name, steps);
  add_part (name, gtk_inscription_get_text (GTK_INSCRIPTION (self->step)));
  add_part (name, gtk_label_get_text (GTK_LABEL (self->time)));
  /* A failed run's reason, whole, before where the card is from. */
  add_part (description, self->need_whole);
  add_part (description, gtk_label_get_text (GTK_LABEL (self->origin)));
  add_part (description, gtk_label_get_text (GTK_LABEL (self->source_error)));
  if (g_strcmp0 (name->str, self->name_shown) == 0 && g_strcmp0 (description->str, self->description_shown) == 0)
    return;
  pd_row_name_set_text (PD_ROW_NAME (self->row_name), name->str);
  _pd_accessible_set_text (GTK_WIDGET (self), name->str, description->str);
  /* The steps as a reader says them, not "2/5". */
  if (steps != NULL)
    gtk_accessible_update_property (GTK_ACCESSIBLE (self->progress), GTK_ACCESSIBLE_PROPERTY_LABEL, steps, -1);
  g_free (self->name_shown);
  self->name_shown = g_string_free (g_steal_pointer (&name), FALSE);
  g_free (self->description_shown);
  self->description_shown = g_string_free (g_steal_pointer (&description), FALSE);
}

/* Everything the card shows, told again (the time: when its words change). */
/* A title the card cuts is whole in its tooltip, and only then (a tooltip
 * on every card repeated what it showed).  Plain text: a model's. */
static gboolean
on_title_query_tooltip (GtkLabel   *title,
                        int         x,
                        int         y,
                        gboolean    keyboard,
                        GtkTooltip *tooltip,
                        gpointer    user_data)
{
  if (!pango_layout_is_ellipsized (gtk_label_get_layout (title)))
    return FALSE;
  gtk_tooltip_set_text (tooltip, gtk_label_get_text (title));
  return TRUE;
}

static void
row_update (PdOverviewCardRow *self)
{
  PdOverviewCard *card = self->card;
  g_autofree char *need = NULL;
  g_autofree char *origin = NULL;
  g_autofree char *agent = NULL;
  g_autofree char *where = NULL;
  g_autofree char *title = NULL;
  g_autofree char *progress = NULL;
  g_autofree char *step = NULL;
  g_autofree char *state = NULL;
  g_autofree char *generic = NULL;
  g_autofree char *guarded = NULL;
  const char *tool, *command, *body, *klass;
  g_autofree char *whole = NULL;
  gboolean whole_command, told = FALSE, failed;
  const PdRemoteRun *run;
  guint done, total;

  if (card == NULL)
    return;

  _pd_overview_card_row_remember_question (self);
  done = pd_overview_card_get_done (card);
  total = pd_overview_card_get_total (card);
  g_object_set (self->pie, "done", done, "total", total, "blocked", pd_overview_card_get_blocked (card), NULL);
  /* No success-green pie beside a red failure (tried as a new user
   * would): the X/Y beside it says how far it got. */
  failed = pd_overview_card_get_need (card) == PD_OVERVIEW_NEED_FAILED;
  gtk_widget_set_visible (self->pie, total > 0 && !failed);
  /* A failed card has its icon where the others have their pie: it had
   * none, and its title stood left of the others' (tried as a new user
   * would). */
  gtk_widget_set_visible (self->failed_icon, failed);
  gtk_widget_set_visible (gtk_widget_get_parent (self->pie), failed || total > 0);
  /* Translators: plan progress, steps done of all steps */
  progress = total > 0 ? g_strdup_printf (_("%u/%u"), done, total) : g_strdup ("");
  if (card_set_inscription (self->progress, progress))
    {
      /* As wide as its characters (digits of one width, "numeric"): measured
       * again only when their number changes (9/10 to 10/10). */
      guint chars = (guint) g_utf8_strlen (progress, -1);

      told = TRUE;
      if (gtk_inscription_get_min_chars (GTK_INSCRIPTION (self->progress)) != chars)
        {
          gtk_inscription_set_min_chars (GTK_INSCRIPTION (self->progress), chars);
          gtk_inscription_set_nat_chars (GTK_INSCRIPTION (self->progress), chars);
        }
    }
  gtk_widget_set_visible (self->progress, total > 0);

  /* Every text an endpoint or agent gave, made safe and isolated alone. */
  title = _pd_card_text (*pd_overview_card_get_title (card) ? pd_overview_card_get_title (card)
                                                                 : _("Untitled Session"));
  told |= _pd_card_set_label (self->title, title);
  agent = agent_text (pd_overview_card_get_agent (card));
  where = _pd_card_text (pd_overview_card_get_source_title (card));
  /* Translators: where a session is and its agent, e.g. "build-box · Codex";
   * the source comes first so that an agent's name cannot hide it */
  origin = g_strdup_printf (_("%s · %s"), where, agent);
  told |= _pd_card_set_label (self->origin, origin);
  told |= row_update_time (self);

  need = _pd_overview_card_need_text (card);
  told |= _pd_card_set_label (self->need, need);
  whole = _pd_overview_card_need_whole (card);
  if (g_strcmp0 (whole, self->need_whole) != 0)
    {
      g_autofree char *plain = whole != NULL ? _pd_accessible_text (whole) : NULL;

      gtk_widget_set_tooltip_text (self->need, plain);
      g_free (self->need_whole);
      self->need_whole = g_steal_pointer (&whole);
      told = TRUE;
    }
  /* Changed only when it changes: a class taken off and put back restyled
   * the label on every change of the card. */
  klass = _pd_overview_card_need_class (pd_overview_card_get_need (card));
  if (g_strcmp0 (klass, self->need_class) != 0)
    {
      if (self->need_class != NULL)
        gtk_widget_remove_css_class (self->need, self->need_class);
      gtk_widget_add_css_class (self->need, klass);
      self->need_class = klass;
    }

  if (pd_overview_card_get_current_step (card) != NULL)
    step = _pd_overview_card_step_text (card);
  if (card_set_inscription (self->step, step != NULL ? step : ""))
    {
      told = TRUE;
      _pd_inscription_fit_lines (GTK_INSCRIPTION (self->step));
    }
  gtk_widget_set_visible (self->step, step != NULL);

  state = source_state_text (card);
  told |= _pd_card_set_label (self->source_error, state != NULL ? state : "");
  gtk_widget_set_visible (self->source_error, state != NULL);

  tool = pd_overview_card_get_approval_tool (card);
  command = pd_overview_card_get_approval_command (card);
  body = _pd_describe_tool (tool);
  if (body == NULL && tool != NULL)
    {
      g_autofree char *safe = _pd_card_text (tool);

      /* Translators: %s is the name of a tool, such as shell */
      body = generic = g_strdup_printf (_("The agent wants to use the tool “%s”."), safe);
    }
  gtk_widget_set_visible (self->approval, pd_overview_card_has_approval (card));
  /* A question kept from a source that went away cannot be answered: its
   * buttons only led to an error (tried as a new user would). */
  gtk_widget_set_sensitive (self->deny, state == NULL);
  gtk_widget_set_sensitive (self->approve, state == NULL);
  _pd_card_set_label (self->approval_text, body != NULL ? body : "");
  _pd_overview_card_row_set_command (self, command);
  whole_command = pd_overview_card_get_approval_whole (card);
  run = pd_overview_card_get_remote_run (card);
  guarded = pd_remote_run_approval_warning (run);
  gtk_label_set_text (GTK_LABEL (self->approval_unseen),
                      g_strcmp0 (tool, "exit_plan_mode") == 0
                      ? _("A plan waits for its review. Open the session to approve it or keep planning.")
                      : guarded != NULL
                      ? guarded
                      : _("The change itself was not sent, so it cannot be approved here. Open the session to see it."));
  gtk_widget_set_visible (self->approval_unseen, !whole_command);
  gtk_widget_set_visible (self->approve, whole_command);
  gtk_widget_set_visible (self->open, !whole_command);
  _pd_overview_card_row_update_deadline (self);

  if (told)
    tell_name (self);
}

/* Tells everything the card shows again. */
void
pd_overview_card_row_update (PdOverviewCardRow *self)
{
  g_return_if_fail (PD_IS_OVERVIEW_CARD_ROW (self));
  row_update (self);
}

/* The view's clock: the time since the last change, when its words moved
 * (and the row is shown). */
void
pd_overview_card_row_update_time (PdOverviewCardRow *self)
{
  g_return_if_fail (PD_IS_OVERVIEW_CARD_ROW (self));
  if (row_update_time (self))
    tell_name (self);
}

static void
on_card_changed (PdOverviewCardRow *self)
{
  row_update (self);
}

/**
 * pd_overview_card_row_get_card:
 *
 * Returns: (transfer none) (nullable): the card shown
 */
PdOverviewCard *
pd_overview_card_row_get_card (PdOverviewCardRow *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW_CARD_ROW (self), NULL);
  return self->card;
}

void
pd_overview_card_row_set_card (PdOverviewCardRow *self,
                               PdOverviewCard    *card)
{
  g_return_if_fail (PD_IS_OVERVIEW_CARD_ROW (self));

  if (self->card == card)
    {
      pd_overview_card_row_update (self);
      return;
    }
  if (self->card != NULL)
    g_clear_signal_handler (&self->changed_id, self->card);
  g_set_object (&self->card, card);
  if (card != NULL)
    {
      self->changed_id = g_signal_connect_swapped (card, "changed", G_CALLBACK (on_card_changed), self);
      pd_overview_card_row_update (self);
    }
}

/**
 * pd_overview_card_row_note_moved:
 *
 * The row moved in its list (cards placed again by need, a card added
 * above it): for the guard's time its buttons take no click.  Cards
 * placed again under the pointer had a click on one card's Approve Once
 * approve another's question (tried as a new user would).
 */
void
pd_overview_card_row_note_moved (PdOverviewCardRow *self)
{
  g_return_if_fail (PD_IS_OVERVIEW_CARD_ROW (self));
  self->moved_at = g_get_monotonic_time ();
}

/**
 * pd_overview_card_row_takes_answers:
 *
 * Returns: whether a click on its buttons would be taken now: neither its
 *   question changed nor the row moved within the guard's time
 */
gboolean
pd_overview_card_row_takes_answers (PdOverviewCardRow *self)
{
  gint64 now = g_get_monotonic_time ();

  g_return_val_if_fail (PD_IS_OVERVIEW_CARD_ROW (self), FALSE);
  return now - self->question_at >= self->guard_usec && now - self->moved_at >= self->guard_usec;
}

/* The question shown when the button was pressed is the one answered;
 * none while it was shown, or the row was where it is, for less than the
 * guard. */
void
_pd_overview_card_row_answer (PdOverviewCardRow *self,
        gboolean           approve)
{
  if (self->card == NULL || (self->shown_run == NULL && self->shown_serial == 0))
    return;
  if (!pd_overview_card_row_takes_answers (self))
    {
      g_debug ("A click within %" G_GINT64_FORMAT " ms of a new question or a move, ignored",
               self->guard_usec / 1000);
      return;
    }
  g_signal_emit (self, signals[ANSWER], 0, self->card, approve, self->shown_run, self->shown_serial);
}

void
_pd_overview_card_row_open (PdOverviewCardRow *self)
{
  if (self->card != NULL)
    g_signal_emit (self, signals[OPEN], 0, self->card);
}

/* A row the list kept aside (its card's time not told meanwhile) is
 * told it as it is shown again. */
static void
pd_overview_card_row_map (GtkWidget *widget)
{
  GTK_WIDGET_CLASS (pd_overview_card_row_parent_class)->map (widget);
  if (row_update_time (PD_OVERVIEW_CARD_ROW (widget)))
    tell_name (PD_OVERVIEW_CARD_ROW (widget));
  _pd_overview_card_row_update_deadline (PD_OVERVIEW_CARD_ROW (widget));
}

static GtkSizeRequestMode
pd_overview_card_row_get_request_mode (GtkWidget *widget)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
pd_overview_card_row_measure (GtkWidget *widget, GtkOrientation orientation, int for_size,
                              int *minimum, int *natural, int *minimum_baseline, int *natural_baseline)
{
  gtk_widget_measure (PD_OVERVIEW_CARD_ROW (widget)->box, orientation, for_size, minimum, natural,
                      minimum_baseline, natural_baseline);
}

/* The card, then its countdown given the lines it takes at its width. */
static void
pd_overview_card_row_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  PdOverviewCardRow *self = PD_OVERVIEW_CARD_ROW (widget);

  gtk_widget_allocate (self->box, width, height, baseline, NULL);
  if (gtk_widget_get_visible (self->step))
    _pd_inscription_fit_lines (GTK_INSCRIPTION (self->step));
  if (gtk_widget_get_visible (self->approval_deadline))
    _pd_inscription_fit_lines (GTK_INSCRIPTION (self->approval_deadline));
}

/* Its question's time counts on a row shown alone. */
static void
pd_overview_card_row_unmap (GtkWidget *widget)
{
  g_clear_handle_id (&PD_OVERVIEW_CARD_ROW (widget)->deadline_timer, g_source_remove);
  GTK_WIDGET_CLASS (pd_overview_card_row_parent_class)->unmap (widget);
}

static void
pd_overview_card_row_dispose (GObject *object)
{
  PdOverviewCardRow *self = PD_OVERVIEW_CARD_ROW (object);

  pd_overview_card_row_set_card (self, NULL);
  g_clear_handle_id (&self->deadline_timer, g_source_remove);
  _pd_overview_card_row_close_review (self);
  g_clear_pointer (&self->command_shown, g_free);
  g_clear_pointer (&self->name_shown, g_free);
  g_clear_pointer (&self->description_shown, g_free);
  g_clear_pointer (&self->need_whole, g_free);
  g_clear_pointer (&self->shown_run, pd_remote_run_free);
  g_clear_pointer (&self->box, gtk_widget_unparent);

  G_OBJECT_CLASS (pd_overview_card_row_parent_class)->dispose (object);
}

static void
pd_overview_card_row_class_init (PdOverviewCardRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pd_overview_card_row_dispose;
  widget_class->map = pd_overview_card_row_map;
  widget_class->unmap = pd_overview_card_row_unmap;
  widget_class->get_request_mode = pd_overview_card_row_get_request_mode;
  widget_class->measure = pd_overview_card_row_measure;
  widget_class->size_allocate = pd_overview_card_row_size_allocate;

  /**
   * PdOverviewCardRow::answer:
   * @card: the card whose question is answered
   * @approve: Approve Once, or Deny
   * @run: (nullable): the endpoint's run and question shown when the
   *   button was pressed (the card may hold another by now)
   * @serial: the question of a run in this window shown then, or 0
   */
  signals[ANSWER] = g_signal_new ("answer", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                  0, NULL, NULL, NULL, G_TYPE_NONE, 4, PD_TYPE_OVERVIEW_CARD, G_TYPE_BOOLEAN,
                                  PD_TYPE_REMOTE_RUN | G_SIGNAL_TYPE_STATIC_SCOPE, G_TYPE_UINT);

  /**
   * PdOverviewCardRow::open:
   * @card: the card whose session is to be opened
   *
   * Open was pressed: a question the card cannot show whole is seen and
   * answered in its session.
   */
  signals[OPEN] = g_signal_new ("open", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                0, NULL, NULL, NULL, G_TYPE_NONE, 1, PD_TYPE_OVERVIEW_CARD);

  gtk_widget_class_set_css_name (widget_class, "overview-card");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

/* The card's first line: the pie, the texts (title and origin) and the
 * time since its last change. The time sits beside the title while the
 * texts keep room for TITLE_ROOM_CHARS characters of the title's font,
 * else under the origin: at 1.5× text and 360 px the title had one line
 * beside the time and read "Add an expor…" (tried with large text). */
#define TOP_SPACING 12
#define TIME_GAP 2
#define TITLE_ROOM_CHARS 24

typedef struct
{
  GtkWidget *pie;
  GtkWidget *texts;
  GtkWidget *time;
} TopParts;

static void
top_parts (GtkWidget *top,
           TopParts  *parts)
{
  parts->pie = gtk_widget_get_first_child (top);
  parts->texts = gtk_widget_get_next_sibling (parts->pie);
  parts->time = gtk_widget_get_next_sibling (parts->texts);
}

/* The pie's width and its spacing, none when it is hidden. */
static int
top_lead (TopParts *parts)
{
  int width = 0;

  if (!gtk_widget_get_visible (parts->pie))
    return 0;
  gtk_widget_measure (parts->pie, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &width, NULL, NULL);
  return width + TOP_SPACING;
}

static int
width_of (GtkWidget *widget)
{
  int width = 0;

  gtk_widget_measure (widget, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &width, NULL, NULL);
  return width;
}

static int
height_for (GtkWidget *widget,
            int        width)
{
  int height = 0;

  gtk_widget_measure (widget, GTK_ORIENTATION_VERTICAL, width, NULL, &height, NULL, NULL);
  return height;
}

/* TITLE_ROOM_CHARS characters of @title's font, in pixels: looked up again
 * only when its font changed (a card is measured many times a layout). */
static int
title_room (GtkWidget *title)
{
  PangoContext *context = gtk_widget_get_pango_context (title);
  guint serial = pango_context_get_serial (context);
  PangoFontMetrics *metrics;
  int room;

  if (GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (title), "pd-room-serial")) == serial)
    return GPOINTER_TO_INT (g_object_get_data (G_OBJECT (title), "pd-room"));
  metrics = pango_context_get_metrics (context, NULL, NULL);
  room = TITLE_ROOM_CHARS * pango_font_metrics_get_approximate_char_width (metrics) / PANGO_SCALE;
  pango_font_metrics_unref (metrics);
  g_object_set_data (G_OBJECT (title), "pd-room-serial", GUINT_TO_POINTER (serial));
  g_object_set_data (G_OBJECT (title), "pd-room", GINT_TO_POINTER (room));
  return room;
}

/* Whether the time goes beside the title at @width, and the texts' width. */
static gboolean
top_time_beside (TopParts *parts,
                 int       width,
                 int      *texts_width)
{
  int room = title_room (gtk_widget_get_first_child (parts->texts));
  int texts_min = 0;
  int lead = top_lead (parts);
  int beside = width - lead - TOP_SPACING - width_of (parts->time);

  gtk_widget_measure (parts->texts, GTK_ORIENTATION_HORIZONTAL, -1, &texts_min, NULL, NULL, NULL);
  if (beside >= MAX (room, texts_min))
    {
      *texts_width = beside;
      return TRUE;
    }
  *texts_width = MAX (width - lead, texts_min);
  return FALSE;
}

static GtkSizeRequestMode
top_request_mode (GtkWidget *top)
{
  return GTK_SIZE_REQUEST_HEIGHT_FOR_WIDTH;
}

static void
top_measure (GtkWidget      *top,
             GtkOrientation  orientation,
             int             for_size,
             int            *minimum,
             int            *natural,
             int            *minimum_baseline,
             int            *natural_baseline)
{
  TopParts parts;
  int texts_width, pie_height = 0;

  top_parts (top, &parts);
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      int texts_min = 0, texts_nat = 0, time_width = width_of (parts.time);

      gtk_widget_measure (parts.texts, orientation, -1, &texts_min, &texts_nat, NULL, NULL);
      *minimum = top_lead (&parts) + MAX (texts_min, time_width);
      *natural = top_lead (&parts) + texts_nat + TOP_SPACING + time_width;
      return;
    }
  if (for_size < 0)
    gtk_widget_measure (top, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &for_size, NULL, NULL);
  if (gtk_widget_get_visible (parts.pie))
    pie_height = height_for (parts.pie, -1);
  if (top_time_beside (&parts, for_size, &texts_width))
    *minimum = MAX (height_for (parts.texts, texts_width), height_for (parts.time, -1));
  else
    *minimum = height_for (parts.texts, texts_width) + TIME_GAP + height_for (parts.time, texts_width);
  *minimum = *natural = MAX (*minimum, pie_height);
}

/* @widget at @x in a line @width wide, mirrored right to left. */
static void
top_place (GtkWidget *top,
           GtkWidget *widget,
           int        width,
           int        x,
           int        y,
           int        child_width,
           int        child_height)
{
  if (gtk_widget_get_direction (top) == GTK_TEXT_DIR_RTL)
    x = width - x - child_width;
  gtk_widget_size_allocate (widget, &(GtkAllocation) { x, y, child_width, child_height }, -1);
}

static void
top_allocate (GtkWidget *top,
              int        width,
              int        height,
              int        baseline)
{
  TopParts parts;
  int lead, texts_width, texts_height;

  top_parts (top, &parts);
  lead = top_lead (&parts);
  if (gtk_widget_get_visible (parts.pie))
    {
      int pie_height = MIN (height_for (parts.pie, -1), height);

      top_place (top, parts.pie, width, 0, (height - pie_height) / 2, lead - TOP_SPACING, pie_height);
    }
  if (top_time_beside (&parts, width, &texts_width))
    {
      int time_width = width_of (parts.time);

      top_place (top, parts.texts, width, lead, 0, texts_width, height_for (parts.texts, texts_width));
      top_place (top, parts.time, width, width - time_width, 0, time_width, height_for (parts.time, -1));
      return;
    }
  texts_height = height_for (parts.texts, texts_width);
  top_place (top, parts.texts, width, lead, 0, texts_width, texts_height);
  top_place (top, parts.time, width, lead, texts_height + TIME_GAP, texts_width,
             height_for (parts.time, texts_width));
}

static void
pd_overview_card_row_init (PdOverviewCardRow *self)
{
  GtkWidget *top, *lead, *texts, *status;

  self->guard_usec = ANSWER_GUARD_USEC;
  self->time_bucket = -1;

  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  gtk_widget_add_css_class (self->box, "card");
  gtk_widget_add_css_class (self->box, "pd-overview-card");
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));

  top = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_set_layout_manager (top, gtk_custom_layout_new (top_request_mode, top_measure, top_allocate));
  gtk_box_append (GTK_BOX (self->box), top);
  lead = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  gtk_widget_set_valign (lead, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (top), lead);
  self->pie = pd_plan_pie_new ();
  gtk_widget_set_valign (self->pie, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (lead), self->pie);
  self->failed_icon = gtk_image_new_from_icon_name ("dialog-error-symbolic");
  gtk_widget_add_css_class (self->failed_icon, "pd-card-failed");
  gtk_widget_set_visible (self->failed_icon, FALSE);
  _pd_accessible_set_text (self->failed_icon, _("Failed"), NULL);
  gtk_box_append (GTK_BOX (lead), self->failed_icon);
  texts = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  gtk_widget_set_hexpand (texts, TRUE);
  gtk_box_append (GTK_BOX (top), texts);
  /* Sizes relative to the interface font (style.css): libadwaita's
   * heading and caption are fixed points, which stayed small while the
   * rest of the card grew with a larger font (tried as a new user would). */
  /* The title wraps to three lines before it is cut (at 1.5× text and
   * 360 px one line read "Add an expor…"). */
  self->title = _pd_card_plain_label ("pd-card-title", TRUE);
  gtk_label_set_lines (GTK_LABEL (self->title), 3);
  _pd_label_no_hyphens (self->title);
  gtk_box_append (GTK_BOX (texts), self->title);
  gtk_widget_set_has_tooltip (self->title, TRUE);
  g_signal_connect (self->title, "query-tooltip", G_CALLBACK (on_title_query_tooltip), NULL);
  self->origin = _pd_card_plain_label ("pd-card-caption", TRUE);
  gtk_widget_add_css_class (self->origin, "dim-label");
  gtk_box_append (GTK_BOX (texts), self->origin);
  self->time = _pd_card_plain_label ("pd-card-caption", FALSE);
  gtk_widget_add_css_class (self->time, "dim-label");
  gtk_label_set_ellipsize (GTK_LABEL (self->time), PANGO_ELLIPSIZE_NONE);
  gtk_widget_set_valign (self->time, GTK_ALIGN_START);
  gtk_box_append (GTK_BOX (top), self->time);

  status = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  gtk_box_append (GTK_BOX (self->box), status);
  /* A failed run's reason wraps to three lines (it was one line, cut). */
  self->need = _pd_card_plain_label ("pd-card-status", TRUE);
  gtk_label_set_lines (GTK_LABEL (self->need), 3);
  _pd_label_no_hyphens (self->need);
  gtk_widget_set_hexpand (self->need, TRUE);
  gtk_box_append (GTK_BOX (status), self->need);
  /* The X/Y and the current step change as the plan moves on: inscriptions
   * (card_set_inscription()). */
  self->progress = gtk_inscription_new (NULL);
  gtk_widget_add_css_class (self->progress, "numeric");
  gtk_widget_set_visible (self->progress, FALSE);
  gtk_box_append (GTK_BOX (status), self->progress);

  /* Two lines at most, as the label it was, its lines fitted to its text
   * at its width (_pd_inscription_fit_lines()). */
  self->step = gtk_inscription_new (NULL);
  gtk_inscription_set_wrap_mode (GTK_INSCRIPTION (self->step), PANGO_WRAP_WORD_CHAR);
  gtk_inscription_set_text_overflow (GTK_INSCRIPTION (self->step), GTK_INSCRIPTION_OVERFLOW_ELLIPSIZE_END);
  gtk_inscription_set_yalign (GTK_INSCRIPTION (self->step), 0);
  gtk_inscription_set_min_chars (GTK_INSCRIPTION (self->step), 0);
  _pd_inscription_limit_lines (GTK_INSCRIPTION (self->step), 2);
  gtk_widget_set_visible (self->step, FALSE);
  gtk_box_append (GTK_BOX (self->box), self->step);
  self->source_error = _pd_card_plain_label ("warning", TRUE);
  gtk_box_append (GTK_BOX (self->box), self->source_error);

  _pd_overview_card_row_init_question (self);

  self->row_name = g_object_new (PD_TYPE_ROW_NAME, NULL);
  gtk_box_append (GTK_BOX (self->box), self->row_name);
}

GtkWidget *
pd_overview_card_row_new (void)
{
  return g_object_new (PD_TYPE_OVERVIEW_CARD_ROW, NULL);
}
