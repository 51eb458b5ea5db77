/* pd-window-runs.c: the window's runs: the run bar, the message entry and plan mode
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-window"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-window-private.h"

/* --- runs ---------------------------------------------------------------- */

const char *
_pd_window_shown_session_id (PdWindow *self)
{
  if (self->shown_item == NULL)
    return NULL;
  /* An endpoint's session beside the database is run there, not here. */
  if (self->source != NULL && PD_IS_MULTI_SOURCE (self->source) &&
      self->shown_source != PD_SOURCE (_pd_window_get_local_source (self)))
    return NULL;
  return self->session_id;
}

/* The run's page to take the focus: the run bar's Stop while the run goes
 * on, else the message entry below the page; FALSE when neither is shown
 * yet (the page comes a moment after the session is picked). */
static gboolean
focus_run_page (PdWindow *self)
{
  if (gtk_revealer_get_reveal_child (self->run_bar) && gtk_widget_is_visible (GTK_WIDGET (self->run_bar)) &&
      gtk_widget_child_focus (GTK_WIDGET (self->run_bar), GTK_DIR_TAB_FORWARD))
    return TRUE;
  if (gtk_revealer_get_reveal_child (self->message_bar) && gtk_widget_is_visible (GTK_WIDGET (self->message_entry)))
    return gtk_widget_grab_focus (GTK_WIDGET (self->message_entry));
  return FALSE;
}

/* A run started from New Session, once its session is shown: the person
 * is in its page now, and the focus goes to the run's bar (Stop) while
 * it runs, else to the message entry below its page; an approval gives
 * it back there.  It was left on the header's first button (Main Menu),
 * and came back there once the approval closed (tried with a screen
 * reader).  The page is shown a moment after its session: until its bar
 * can take the focus, the window waits for it (the bar's map), or the
 * focus stayed on what opened the run (the Plan button), where each
 * approval gave it back (a11y-after approvals).
 */
static void
focus_run (PdWindow *self)
{
  const char *run_session = self->runs != NULL ? pd_run_controller_get_session_id (self->runs) : NULL;

  if (!self->focus_run_page || run_session == NULL || g_strcmp0 (run_session, self->session_id) != 0)
    return;
  adw_leaflet_set_visible_child_name (self->leaflet, "content");
  if (focus_run_page (self))
    self->focus_run_page = FALSE;
}

/* Where the focus goes back once the run's questions (an approval, a plan
 * review) are closed. */
typedef struct
{
  GWeakRef before;   /* what had the focus as the first of them was asked */
  gboolean open;
} QuestionFocus;

static void
question_focus_free (gpointer data)
{
  QuestionFocus *question_focus = data;

  g_weak_ref_clear (&question_focus->before);
  g_free (question_focus);
}

static QuestionFocus *
question_focus (PdWindow *self)
{
  QuestionFocus *question_focus = g_object_get_data (G_OBJECT (self), "pd-question-focus");

  if (question_focus == NULL)
    {
      question_focus = g_new0 (QuestionFocus, 1);
      g_weak_ref_init (&question_focus->before, NULL);
      g_object_set_data_full (G_OBJECT (self), "pd-question-focus", question_focus, question_focus_free);
    }
  return question_focus;
}

/* A question asked: what has the focus now takes it back, unless the
 * run's page has not had it yet (then it is what opened the run, the
 * Plan button or New Session's, and the page takes it). */
static void
on_question_asked (PdWindow *self)
{
  QuestionFocus *asked = question_focus (self);

  if (asked->open)
    return;
  asked->open = TRUE;
  g_weak_ref_set (&asked->before, self->focus_run_page ? NULL : gtk_root_get_focus (GTK_ROOT (self)));
}

/* @widget can have the window's focus: in it, shown and sensitive. */
static gboolean
can_have_focus (PdWindow  *self,
                GtkWidget *widget)
{
  return widget != NULL && gtk_widget_get_root (widget) == GTK_ROOT (self) && gtk_widget_is_visible (widget) &&
         gtk_widget_get_mapped (widget) && gtk_widget_is_sensitive (widget);
}

/* The questions closed: the focus stays where the window's focus went
 * while they were open (the run's session, listed as a question shows,
 * moves it once; a page shown takes it), else goes back to what had it
 * before them, when that is still there and shown, else to the run's
 * page (Stop, or the message entry).  It stayed on what opened the run,
 * or on nothing once a hidden button had it (tried with a screen reader). */
static void
on_question_closed (PdWindow *self)
{
  QuestionFocus *closed = question_focus (self);
  g_autoptr(GtkWidget) before = g_weak_ref_get (&closed->before);
  GtkWidget *now = gtk_root_get_focus (GTK_ROOT (self));

  closed->open = FALSE;
  g_weak_ref_set (&closed->before, NULL);
  if (!self->focus_run_page && can_have_focus (self, now))
    return;
  if (can_have_focus (self, before) && gtk_widget_grab_focus (before))
    return;
  if (!self->focus_run_page)
    focus_run_page (self);
}

/* The run bar shows while this window's run goes on (for its session, or
 * before the session exists); the message entry when the shown session of a
 * local database is idle and ours: another agent's imported transcript is
 * continued in that agent, not here. */
void
_pd_window_update_run_ui (PdWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  gboolean in_run_bar = focus != NULL && gtk_widget_is_ancestor (focus, GTK_WIDGET (self->run_bar));
  gboolean running = self->runs != NULL && pd_run_controller_get_running (self->runs);
  const char *run_session = self->runs ? pd_run_controller_get_session_id (self->runs) : NULL;
  const char *shown = _pd_window_shown_session_id (self);
  gboolean ours = running && (run_session == NULL || g_strcmp0 (run_session, shown) == 0);
  gboolean continuable = self->runs != NULL && shown != NULL && !pd_session_item_is_imported (self->shown_item);

  gtk_revealer_set_reveal_child (self->run_bar, ours);
  gtk_revealer_set_reveal_child (self->message_bar, continuable && !running);
  /* Plan mode is the engine's: an endpoint's sessions have it there.  It
   * shows where it acts: on the page of one of this computer's sessions,
   * not on the Overview nor on an endpoint's session of a window over
   * several sources (it crowded the header at 360 px). */
  gtk_widget_set_visible (GTK_WIDGET (self->plan_mode_button),
                          continuable && !pd_run_controller_is_remote (self->runs) &&
                          self->shown_source != NULL && PD_IS_LOCAL_SOURCE (self->shown_source) &&
                          g_strcmp0 (gtk_stack_get_visible_child_name (self->content_stack), "session") == 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.stop-run", running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.send-message", continuable && !running);
  /* The run ended with the focus on its bar (Stop): it goes to the
   * message entry that takes the bar's place, not lost with the bar. */
  if (in_run_bar && !ours && continuable && !running)
    gtk_widget_grab_focus (GTK_WIDGET (self->message_entry));
  focus_run (self);
}

static void
on_run_text (PdWindow *self)
{
  const char *text = pd_run_controller_get_status_text (self->runs);
  const char *activity = pd_run_controller_get_activity (self->runs);

  /* Model-derived text: plain labels.  With no text of the run's, what it
   * does is said alone: "Working…" stood under "Waiting for approval: shell"
   * (tried as a new user would). */
  if ((text == NULL || *text == '\0') && activity != NULL)
    {
      text = activity;
      activity = NULL;
    }
  gtk_label_set_text (self->run_text_label, text != NULL && *text ? text : _("Working…"));
  gtk_label_set_text (self->run_activity_label, activity ? activity : "");
  gtk_widget_set_visible (GTK_WIDGET (self->run_activity_label), activity != NULL);
}

/* Plan mode shown on while the run goes on: it is read again at each of
 * the run's steps and when a review ends, so an approved plan shows the
 * toggle off as the run goes on out of plan mode (it stayed pressed until
 * the run ended; tried as a new user would).  The engine leaves plan mode
 * on its thread after the answer, so the review's end alone could read it
 * too early. */
static void
on_run_step_plan_mode (PdWindow *self)
{
  if (gtk_widget_get_visible (GTK_WIDGET (self->plan_mode_button)) &&
      gtk_toggle_button_get_active (self->plan_mode_button))
    _pd_window_refresh_plan_mode (self);
}

/* The run's notice, as long as the run controller keeps it. */
static void
on_run_notice (PdWindow *self)
{
  const char *notice = pd_run_controller_get_notice (self->runs);

  gtk_label_set_text (self->run_notice_label, notice ? notice : "");
  gtk_widget_set_visible (self->run_notice_box, notice != NULL);
}

static void
on_dismiss_notice (PdWindow *self)
{
  if (self->runs != NULL)
    pd_run_controller_dismiss_notice (self->runs);
}

/* Above the activity line, in words that wrap: a notice read in passing
 * (what a continued session goes on with) must not be cut nor replaced by
 * the next line. */
static void
pd_window_add_run_notice (PdWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *icon = gtk_image_new_from_icon_name ("dialog-information-symbolic");
  GtkWidget *label = gtk_label_new (NULL);
  GtkWidget *dismiss = gtk_button_new_from_icon_name ("window-close-symbolic");

  gtk_widget_add_css_class (box, "pd-run-notice");
  gtk_widget_set_valign (icon, GTK_ALIGN_START);
  gtk_accessible_update_property (GTK_ACCESSIBLE (icon), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Notice"), -1);
  gtk_box_append (GTK_BOX (box), icon);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_box_append (GTK_BOX (box), label);
  gtk_widget_add_css_class (dismiss, "flat");
  gtk_widget_add_css_class (dismiss, "circular");
  gtk_widget_set_valign (dismiss, GTK_ALIGN_START);
  gtk_widget_set_tooltip_text (dismiss, _("Dismiss"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (dismiss), GTK_ACCESSIBLE_PROPERTY_LABEL, _("Dismiss the Notice"), -1);
  g_signal_connect_object (dismiss, "clicked", G_CALLBACK (on_dismiss_notice), self, G_CONNECT_SWAPPED);
  gtk_box_append (GTK_BOX (box), dismiss);
  gtk_widget_set_visible (box, FALSE);

  gtk_box_prepend (GTK_BOX (gtk_widget_get_parent (GTK_WIDGET (self->run_activity_label))), box);
  self->run_notice_box = box;
  self->run_notice_label = GTK_LABEL (label);
}

static void
on_run_session_started (PdWindow   *self,
                        const char *session_id)
{
  g_free (self->pending_select);
  self->pending_select = g_strdup (session_id);
  /* A search the run's session is not among would hide it for the whole
   * run: every session is listed again. */
  if (pd_session_list_get_query (self->session_list) != NULL &&
      pd_session_list_model_find (pd_session_list_get_model (self->session_list), session_id, NULL) == NULL)
    pd_session_list_clear_search (self->session_list);
  pd_session_list_refresh (self->session_list);
  _pd_window_try_select_pending (self);
  _pd_window_update_run_ui (self);
}

static void
on_run_running (PdWindow *self)
{
  gboolean running = pd_run_controller_get_running (self->runs);

  if (_pd_window_get_local_source (self) != NULL)
    pd_local_source_watch (_pd_window_get_local_source (self), _pd_window_poll_ms (self, running));
  _pd_window_update_run_ui (self);
}

static void
on_run_finished (PdWindow   *self,
                 int         status,
                 const char *message)
{
  if (message != NULL)
    pd_window_show_message (self, message);
  pd_session_list_refresh (self->session_list);
  pd_now_view_refresh (self->now_view);
  _pd_window_update_run_ui (self);
  _pd_window_refresh_plan_mode (self);
}

static void
on_message_activate (PdWindow *self)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "win.send-message", NULL);
}

/* The plan mode toggle follows the engine's folded state of the session. */
typedef struct
{
  PdWindow *window;
  guint     serial;
  gboolean  active;
  char     *session_id;
} PlanModeCall;

static PlanModeCall *
plan_mode_call_new (PdWindow   *window,
                    const char *session_id)
{
  PlanModeCall *call = g_new0 (PlanModeCall, 1);

  call->window = g_object_ref (window);
  call->serial = window->plan_mode_serial;
  call->session_id = g_strdup (session_id);
  return call;
}

static void
plan_mode_call_free (PlanModeCall *call)
{
  g_object_unref (call->window);
  g_free (call->session_id);
  g_free (call);
}

static void
pd_window_show_plan_mode (PdWindow *self,
                          gboolean  active,
                          gboolean  pending)
{
  g_signal_handlers_block_matched (self->plan_mode_button, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);
  gtk_toggle_button_set_active (self->plan_mode_button, active);
  g_signal_handlers_unblock_matched (self->plan_mode_button, G_SIGNAL_MATCH_DATA, 0, 0, NULL, NULL, self);

  if (pending)
    gtk_widget_add_css_class (GTK_WIDGET (self->plan_mode_button), "pd-pending");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->plan_mode_button), "pd-pending");
}

static void
on_plan_mode_read (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  PlanModeCall *call = user_data;
  PdWindow *self = call->window;
  g_autoptr(GError) error = NULL;
  gboolean pending = FALSE;
  gboolean active = pd_run_controller_get_plan_mode_finish (PD_RUN_CONTROLLER (object), result,
                                                            &pending, &error);

  /* A late reply for a session no longer shown is dropped. */
  if (call->serial == self->plan_mode_serial && error == NULL &&
      g_strcmp0 (call->session_id, _pd_window_shown_session_id (self)) == 0)
    pd_window_show_plan_mode (self, active, pending);

  plan_mode_call_free (call);
}

/* Narrow, the plan mode toggle is an icon: with its word, at 1.5× text
 * and with Minimize and Maximize shown, the header needed 383 px. Its name
 * is "Plan Mode" either way. */
void
_pd_window_fold_plan_toggle (PdWindow *self,
                             gboolean  narrow)
{
  if (narrow)
    gtk_button_set_icon_name (GTK_BUTTON (self->plan_mode_button), "view-list-bullet-symbolic");
  else
    gtk_button_set_label (GTK_BUTTON (self->plan_mode_button), _("Plan"));
}

void
_pd_window_refresh_plan_mode (PdWindow *self)
{
  const char *shown = _pd_window_shown_session_id (self);
  PlanModeCall *call;

  self->plan_mode_serial++;
  if (self->runs == NULL || shown == NULL || pd_run_controller_is_remote (self->runs))
    return;

  call = plan_mode_call_new (self, shown);
  pd_run_controller_get_plan_mode_async (self->runs, shown, self->cancellable,
                                         on_plan_mode_read, call);
}

static void
on_plan_mode_set (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  PlanModeCall *call = user_data;
  PdWindow *self = call->window;
  g_autoptr(GError) error = NULL;
  PdPlanModeSetResult outcome = pd_run_controller_set_plan_mode_finish (PD_RUN_CONTROLLER (object),
                                                                        result, &error);
  gboolean active = call->active;

  if (error != NULL)
    pd_window_show_message (self, error->message);
  else if (outcome == PD_PLAN_MODE_COMMITTED)
    pd_window_show_message (self, active ? _("Plan mode is on") : _("Plan mode is off"));
  else if (outcome == PD_PLAN_MODE_QUEUED)
    pd_window_show_message (self, active ? _("Plan mode turns on at the next step")
                                         : _("Plan mode turns off at the next step"));
  else if (outcome == PD_PLAN_MODE_CANCELLED)
    pd_window_show_message (self, _("The pending plan mode change was taken back"));

  if (!g_cancellable_is_cancelled (self->cancellable))
    _pd_window_refresh_plan_mode (self);
  plan_mode_call_free (call);
}

static void
on_plan_mode_toggled (PdWindow *self)
{
  const char *shown = _pd_window_shown_session_id (self);
  PlanModeCall *call;

  if (self->runs == NULL || shown == NULL)
    return;

  call = plan_mode_call_new (self, shown);
  call->active = gtk_toggle_button_get_active (self->plan_mode_button);
  pd_run_controller_set_plan_mode_async (self->runs, shown,
                                         gtk_toggle_button_get_active (self->plan_mode_button),
                                         self->cancellable, on_plan_mode_set, call);
}

/* Takes @runs: the window's runs, on its database or its endpoint. */
/* A message the endpoint did not take is back in the message bar, for
 * the same session, unless something new was typed there meanwhile. */
static void
on_run_unsent (PdWindow   *self,
               const char *session_id,
               const char *message)
{
  GtkEditable *entry = GTK_EDITABLE (self->message_entry);

  if (g_strcmp0 (session_id, _pd_window_shown_session_id (self)) != 0 ||
      *gtk_editable_get_text (entry) != '\0')
    return;
  gtk_editable_set_text (entry, message);
  gtk_editable_set_position (entry, -1);
}

void
_pd_window_set_runs (PdWindow        *self,
                     PdRunController *runs)
{
  if (self->runs != NULL)
    g_object_run_dispose (G_OBJECT (self->runs));
  g_clear_object (&self->runs);
  self->runs = runs;
  pd_notifier_set_runs (self->notifier, runs);
  _pd_window_overview_set_runs (self, runs);
  g_signal_connect_object (self->runs, "session-started", G_CALLBACK (on_run_session_started),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "finished", G_CALLBACK (on_run_finished),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "unsent", G_CALLBACK (on_run_unsent),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "notify::running", G_CALLBACK (on_run_running),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "notify::status-text", G_CALLBACK (on_run_text),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "notify::activity", G_CALLBACK (on_run_text),
                           self, G_CONNECT_SWAPPED);
  if (self->run_notice_box == NULL)
    pd_window_add_run_notice (self);
  g_signal_connect_object (self->runs, "notify::notice", G_CALLBACK (on_run_notice),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "notify::activity", G_CALLBACK (on_run_step_plan_mode),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "review-ended", G_CALLBACK (on_run_step_plan_mode),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "approval-asked", G_CALLBACK (on_question_asked),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "review-asked", G_CALLBACK (on_question_asked),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "approval-answered", G_CALLBACK (on_question_closed),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "review-ended", G_CALLBACK (on_question_closed),
                           self, G_CONNECT_SWAPPED);
  on_run_notice (self);
  if (g_object_get_data (G_OBJECT (self), "pd-runs-follow-page") == NULL)
    {
      /* The run's page shown at last: it takes the focus it waited for. */
      g_signal_connect_object (gtk_revealer_get_child (self->run_bar), "map", G_CALLBACK (focus_run),
                               self, G_CONNECT_SWAPPED);
      g_signal_connect_object (self->message_entry, "map", G_CALLBACK (focus_run),
                               self, G_CONNECT_SWAPPED);
      g_signal_connect_object (self->content_stack, "notify::visible-child-name",
                               G_CALLBACK (_pd_window_update_run_ui), self, G_CONNECT_SWAPPED);
      g_object_set_data (G_OBJECT (self), "pd-runs-follow-page", GINT_TO_POINTER (TRUE));
    }
  _pd_window_update_run_ui (self);
  _pd_window_refresh_plan_mode (self);
}

void
_pd_window_class_runs_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_callback (widget_class, on_plan_mode_toggled);
  gtk_widget_class_bind_template_callback (widget_class, on_message_activate);
}

/**
 * pd_window_get_notifier:
 *
 * Returns: (transfer none): the window's notifier
 */
PdNotifier *
pd_window_get_notifier (PdWindow *self)
{
  g_return_val_if_fail (PD_IS_WINDOW (self), NULL);

  return self->notifier;
}

/**
 * pd_window_open_session:
 * @session_id: a session of this window's source
 *
 * Shows @session_id, as a click on a notification about it asks.
 *
 * Returns: whether this window lists (or runs) @session_id
 */
gboolean
pd_window_open_session (PdWindow   *self,
                        const char *session_id)
{
  PdSessionListModel *model;

  g_return_val_if_fail (PD_IS_WINDOW (self), FALSE);

  model = pd_session_list_get_model (self->session_list);
  if (session_id == NULL ||
      (pd_session_list_model_find (model, session_id, NULL) == NULL &&
       (self->runs == NULL || g_strcmp0 (pd_run_controller_get_session_id (self->runs), session_id) != 0)))
    return FALSE;

  g_free (self->pending_select);
  self->pending_select = g_strdup (session_id);
  _pd_window_try_select_pending (self);
  adw_leaflet_set_visible_child_name (self->leaflet, "content");
  gtk_window_present (GTK_WINDOW (self));

  return TRUE;
}

/**
 * pd_window_answer_approval:
 * @question: the target of an approval notification's button
 * @allow: approve once, or deny
 *
 * Returns: whether the question is one this window's notifier showed
 */
gboolean
pd_window_answer_approval (PdWindow   *self,
                           const char *question,
                           gboolean    allow)
{
  g_return_val_if_fail (PD_IS_WINDOW (self), FALSE);

  return self->notifier != NULL && pd_notifier_answer_approval (self->notifier, question, allow);
}
