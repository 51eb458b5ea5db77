/* pd-checklist-view.c: the checklist of a session imported from another
 * agent (Claude Code, Codex, OpenCode, Qwen Code, Gemini CLI, Cline, Roo, Kilo)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Two sections (seed 001): the agent's items first, as its transcript has
 * them, then the user's own items.  Ticking or unticking an agent item is
 * an override that changes Plandeck's view only; choosing the agent's own
 * status again removes it.  After each change the overrides and the user's
 * items (never the agent's text) are saved through the source, one save at
 * a time; a reload waits until the last save is written.
 *
 * Each override shows a toast with Undo, which puts the item back as it
 * was.  Below, the agent's own command that continues the session (claude
 * --resume ID, codex resume ID, opencode --session ID) with Copy and, when a
 * terminal is installed, Open in Terminal in the session's folder.
 *
 * Every text of the agent is plain: labels never parse markup.
 */
#define G_LOG_DOMAIN "pd-checklist-view"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>
#include <adwaita.h>

#include "pd-checklist-view.h"
#include "pd-checklist-view-private.h"
#include "pd-markdown.h"
#include "pd-remote-source.h"
#include "pd-safe-text.h"
#include "pd-session-item.h"
#include "pd-terminal.h"
#include "pd-ui-util-private.h"

#define SETTINGS_SCHEMA "io.github.plandeck.Plandeck"
#define READ_AGENT_PLANS_KEY "read-agent-plans"
/* An endpoint serves an imported checklist for reading: no tick nor item of the person's it could not keep. */
#define ANNOTATIONS_KEPT(self) (!PD_IS_REMOTE_SOURCE (pd_session_view_get_source (PD_SESSION_VIEW (self))))

struct _PdChecklistView
{
  PdSessionView  parent_instance;

  GSettings     *settings;

  PdChecklist   *checklist;     /* what is shown, NULL before the first load */
  GPtrArray     *plans;         /* (element-type PdArtifactPlan) */
  GCancellable  *cancellable;   /* saves for this source and session */
  gboolean       loading;
  gboolean       load_again;
  guint          load_changes;  /* self->changes when the load in flight began */
  gboolean       saving;
  gboolean       save_again;
  guint          changes;       /* local changes, to drop replies that predate one */
  gboolean       updating;      /* setting check buttons from the model */
  double         kept_scroll;   /* the scroll of a list rebuilt, put back once laid out */
  guint          kept_scroll_id;  /* the tick callback that puts it back */
  guint          kept_scroll_frames;

  /* Template widgets */
  GtkLabel      *error_label;
  GtkLabel      *title_label;
  GtkStack      *stack;
  AdwStatusPage *empty_page;
  GtkLabel      *source_label;
  GtkLabel      *summary_label;
  GtkLabel      *agent_heading;
  GtkListBox    *agent_list;
  GtkLabel      *hidden_label;
  GtkListBox    *user_list;
  GtkEntry      *add_entry;
  GtkButton     *add_button;
  GtkLabel      *plans_heading;
  GtkBox        *plans_box;
  GtkWidget     *resume_bar;
  GtkLabel      *resume_title;
  GtkLabel      *resume_label;
  GtkLabel      *resume_note;   /* what the command needs that the session does not say */
  GtkWidget     *copy_button;
  GtkWidget     *terminal_button;

  PdResumeCommand *resume;      /* (nullable) how to continue the session in its agent */
  AdwToast        *toast;       /* (nullable) (weak) the last toast this view showed */
};

G_DEFINE_FINAL_TYPE (PdChecklistView, pd_checklist_view, PD_TYPE_SESSION_VIEW)

typedef struct
{
  PdChecklistView *self;         /* valid while cancellable is not cancelled */
  GCancellable    *cancellable;
  char            *session_id;
  guint            changes;
} Request;

static void
request_free (Request *request)
{
  g_object_unref (request->cancellable);
  g_free (request->session_id);
  g_free (request);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Request, request_free)

static Request *
request_new (PdChecklistView *self)
{
  Request *request = g_new0 (Request, 1);

  if (self->cancellable == NULL)
    self->cancellable = g_cancellable_new ();
  request->self = self;
  request->cancellable = g_object_ref (self->cancellable);
  request->session_id = g_strdup (pd_session_view_get_session_id (PD_SESSION_VIEW (self)));
  request->changes = self->changes;
  return request;
}

static void pd_checklist_view_rebuild (PdChecklistView *self);

static gboolean
reading_allowed (PdChecklistView *self)
{
  return self->settings == NULL || g_settings_get_boolean (self->settings, READ_AGENT_PLANS_KEY);
}

/* Shows @text (or hides the error when %NULL); takes it. */
static void
show_error (PdChecklistView *self,
            char            *text)
{
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), text != NULL);
  if (text != NULL)
    gtk_label_set_text (self->error_label, text);
  g_free (text);
}

/* --- the header ----------------------------------------------------------- */

static void
update_summary (PdChecklistView *self)
{
  guint done = 0, total = 0, in_progress = 0;
  g_autofree char *counts = NULL;
  g_autofree char *text = NULL;

  pd_checklist_count (self->checklist, &done, &total, &in_progress);
  /* No agent's list to name when it wrote none: "Another agent" and "0/0
   * done" said nothing of a session with no list (a Codex session with only
   * a plan document, or whose one item of the user's was removed; tried as
   * a new user would). */
  gtk_widget_set_visible (GTK_WIDGET (self->source_label),
                          pd_checklist_get_n_agent_items (self->checklist) > 0 ||
                          pd_checklist_get_origin (self->checklist) != PD_CHECKLIST_ORIGIN_NONE);
  if (pd_checklist_get_n_agent_items (self->checklist) == 0 && pd_checklist_get_n_user_items (self->checklist) == 0)
    {
      gtk_label_set_text (self->summary_label, _("No checklist"));
      return;
    }
  /* Translators: items done out of all items, e.g. "3/5 done" */
  counts = g_strdup_printf (_("%u/%u done"), done, total);
  if (in_progress > 0)
    {
      g_autofree char *steps = g_strdup_printf (ngettext ("%u step in progress",
                                                          "%u steps in progress", in_progress),
                                                in_progress);
      text = g_strdup_printf ("%s · %s", counts, steps);
    }
  else
    text = g_steal_pointer (&counts);
  gtk_label_set_text (self->summary_label, text);
}

/* --- agent items ---------------------------------------------------------- */

typedef struct
{
  GtkCheckButton *check;
  GtkImage       *progress_icon;
  GtkLabel       *text_label;
  GtkLabel       *override_label;
} AgentRow;

static void
update_agent_row (PdChecklistView *self,
                  GtkWidget       *row,
                  guint            position)
{
  AgentRow *widgets = g_object_get_data (G_OBJECT (row), "pd-agent-row");
  const PdChecklistItem *item = pd_checklist_get_agent_item (self->checklist, position);
  PdChecklistStatus status = pd_checklist_get_effective_status (self->checklist, position);
  gboolean checked = FALSE;
  gboolean overridden = pd_checklist_get_override (self->checklist, position, &checked);
  const char *description = "";

  self->updating = TRUE;
  gtk_check_button_set_active (widgets->check, status == PD_CHECKLIST_STATUS_COMPLETED);
  self->updating = FALSE;

  gtk_widget_set_visible (GTK_WIDGET (widgets->progress_icon), status == PD_CHECKLIST_STATUS_IN_PROGRESS);
  if (status == PD_CHECKLIST_STATUS_CANCELLED)
    gtk_widget_add_css_class (GTK_WIDGET (widgets->text_label), "pd-cancelled");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (widgets->text_label), "pd-cancelled");

  /* A cancelled item says so in words, not by its strike-through alone. */
  gtk_widget_set_visible (GTK_WIDGET (widgets->override_label), overridden || status == PD_CHECKLIST_STATUS_CANCELLED);
  if (overridden)
    gtk_label_set_text (widgets->override_label, checked ? _("ticked by you") : _("unticked by you"));
  else if (status == PD_CHECKLIST_STATUS_CANCELLED)
    gtk_label_set_text (widgets->override_label, C_("checklist item", "cancelled"));

  /* Its state in words for a reader too (a done item said nothing). */
  if (overridden)
    description = checked ? _("Ticked by you") : _("Unticked by you");
  else if (status == PD_CHECKLIST_STATUS_IN_PROGRESS)
    description = _("In progress");
  else if (status == PD_CHECKLIST_STATUS_CANCELLED)
    description = _("Cancelled");
  else if (status == PD_CHECKLIST_STATUS_COMPLETED)
    description = _("Done");
  _pd_accessible_set_text (GTK_WIDGET (widgets->check), item->text, description);
  /* The row is the item's one Tab stop: named, described and ticked as
   * its check button is. */
  _pd_accessible_set_text (row, item->text, description);
  gtk_accessible_update_state (GTK_ACCESSIBLE (row), GTK_ACCESSIBLE_STATE_CHECKED,
                               status == PD_CHECKLIST_STATUS_COMPLETED ? GTK_ACCESSIBLE_TRISTATE_TRUE
                                                                       : GTK_ACCESSIBLE_TRISTATE_FALSE,
                               -1);
}

static void pd_checklist_view_save (PdChecklistView *self);

/* A new toast of this view replaces its last one, rather than waiting
 * behind it: at once, or once the last one has appeared (_pd_toast_add()).
 * (Not by ADW_TOAST_PRIORITY_HIGH: libadwaita 1.2 re-queues the replaced
 * toast and asserts when it comes back while it is still hiding.) */
static void
show_toast (PdChecklistView *self,
            GtkWidget       *overlay,
            AdwToast        *toast)
{
  if (self->toast != NULL)
    {
      /* Dismissing may drop the overlay's last reference. */
      g_autoptr(AdwToast) old = g_object_ref (self->toast);

      g_object_remove_weak_pointer (G_OBJECT (old), (gpointer *) &self->toast);
      self->toast = NULL;
      adw_toast_dismiss (old);
    }
  self->toast = toast;
  g_object_add_weak_pointer (G_OBJECT (toast), (gpointer *) &self->toast);
  _pd_toast_add (overlay, toast);
}

/* What Undo needs: the item, and the state the user's click replaced.  The
 * view is held weakly: a toast may outlive it. */
typedef struct
{
  GWeakRef     view;
  char        *session_id;
  char        *text;         /* the item's text, to know it is still the same item */
  guint        position;
  gboolean     checked;      /* what the user set */
} UndoData;

static void
undo_data_free (gpointer data)
{
  UndoData *undo = data;

  g_weak_ref_clear (&undo->view);
  g_free (undo->session_id);
  g_free (undo->text);
  g_free (undo);
}

static void
undo_data_closure_free (gpointer  data,
                        GClosure *closure)
{
  undo_data_free (data);
}

static void
on_undo_clicked (AdwToast *toast,
                 UndoData *undo)
{
  g_autoptr(PdChecklistView) self = g_weak_ref_get (&undo->view);
  GtkListBoxRow *row;

  /* Another session is shown, or the agent's list changed under the item
   * (a newer read of the same session is fine): nothing of this to undo. */
  if (self == NULL || self->checklist == NULL ||
      g_strcmp0 (pd_session_view_get_session_id (PD_SESSION_VIEW (self)), undo->session_id) != 0 ||
      undo->position >= pd_checklist_get_n_agent_items (self->checklist) ||
      g_strcmp0 (pd_checklist_get_agent_item (self->checklist, undo->position)->text, undo->text) != 0)
    return;

  pd_checklist_set_checked (self->checklist, undo->position, !undo->checked);
  self->changes++;
  row = gtk_list_box_get_row_at_index (self->agent_list, (int) undo->position);
  if (row != NULL)
    {
      self->updating = TRUE;
      update_agent_row (self, GTK_WIDGET (row), undo->position);
      self->updating = FALSE;
    }
  update_summary (self);
  pd_checklist_view_save (self);
}

/* "You ticked “Write the tests”" with Undo, in the window's toast overlay. */
static void
show_undo_toast (PdChecklistView *self,
                 guint            position,
                 gboolean         checked)
{
  GtkWidget *overlay = gtk_widget_get_ancestor (GTK_WIDGET (self), ADW_TYPE_TOAST_OVERLAY);
  const PdChecklistItem *item = pd_checklist_get_agent_item (self->checklist, position);
  g_autofree char *isolated = NULL;
  g_autofree char *title = NULL;
  g_autofree char *escaped = NULL;
  AdwToast *toast;
  UndoData *undo;

  if (overlay == NULL)
    return;

  /* A long item is cut (the toast wraps, but is no page), isolated (a
   * right-to-left item cannot reorder the words around it), as the other
   * toasts quote a title. */
  isolated = _pd_toast_quote (item->text);
  title = checked ? g_strdup_printf (_("Ticked “%s”"), isolated)
                  : g_strdup_printf (_("Unticked “%s”"), isolated);
  /* AdwToast titles are Pango markup: the agent's text is escaped. */
  escaped = g_markup_escape_text (title, -1);
  toast = adw_toast_new (escaped);
  adw_toast_set_button_label (toast, _("_Undo"));

  undo = g_new0 (UndoData, 1);
  g_weak_ref_init (&undo->view, self);
  undo->session_id = g_strdup (pd_session_view_get_session_id (PD_SESSION_VIEW (self)));
  undo->text = g_strdup (item->text);
  undo->position = position;
  undo->checked = checked;
  g_signal_connect_data (toast, "button-clicked", G_CALLBACK (on_undo_clicked), undo,
                         undo_data_closure_free, 0);
  show_toast (self, overlay, toast);
}

static void
on_agent_toggled (GtkCheckButton  *check,
                  PdChecklistView *self)
{
  GtkWidget *row;
  guint position;

  if (self->updating || self->checklist == NULL)
    return;

  row = gtk_widget_get_ancestor (GTK_WIDGET (check), GTK_TYPE_LIST_BOX_ROW);
  position = (guint) gtk_list_box_row_get_index (GTK_LIST_BOX_ROW (row));
  pd_checklist_set_checked (self->checklist, position, gtk_check_button_get_active (check));
  self->changes++;
  update_agent_row (self, row, position);
  update_summary (self);
  pd_checklist_view_save (self);
  show_undo_toast (self, position, gtk_check_button_get_active (check));
}

/* Space or Enter on an item's row ticks or unticks it, as its check
 * button does. */
static void
on_agent_row_activated (GtkListBox      *list,
                        GtkListBoxRow   *row,
                        PdChecklistView *self)
{
  AgentRow *widgets = g_object_get_data (G_OBJECT (row), "pd-agent-row");

  if (widgets != NULL)
    gtk_check_button_set_active (widgets->check, !gtk_check_button_get_active (widgets->check));
}

GtkWidget *
_pd_checklist_text_label (const char *text)
{
  GtkWidget *label = _pd_plain_label (text, NULL);

  gtk_widget_set_hexpand (label, TRUE);
  return label;
}

static GtkWidget *
new_agent_row (PdChecklistView *self,
               guint            position)
{
  const PdChecklistItem *item = pd_checklist_get_agent_item (self->checklist, position);
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = _pd_row_box_new ();
  GtkWidget *text_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  AgentRow *widgets = g_new0 (AgentRow, 1);

  /* One Tab stop for the list, the row (Up and Down between the items,
   * Space or Enter ticks): the row and then its check button were two
   * stops for each item (tried as a new user would). */
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), ANNOTATIONS_KEPT (self));
  gtk_list_box_row_set_selectable (GTK_LIST_BOX_ROW (row), FALSE);
  gtk_widget_add_css_class (row, "pd-checklist-item");

  widgets->check = GTK_CHECK_BUTTON (gtk_check_button_new ());
  /* Not set_focusable(): GTK 4.8's check button says it took the focus
   * it cannot take, and Shift+Tab from below stayed where it was. */
  gtk_widget_set_can_focus (GTK_WIDGET (widgets->check), FALSE);
  gtk_widget_set_valign (GTK_WIDGET (widgets->check), GTK_ALIGN_START);
  gtk_widget_set_sensitive (GTK_WIDGET (widgets->check), ANNOTATIONS_KEPT (self));
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (widgets->check));

  widgets->text_label = GTK_LABEL (_pd_checklist_item_text_label (item->text));
  gtk_box_append (GTK_BOX (text_box), GTK_WIDGET (widgets->text_label));
  widgets->override_label = GTK_LABEL (_pd_checklist_text_label (NULL));
  gtk_widget_add_css_class (GTK_WIDGET (widgets->override_label), "caption");
  gtk_widget_add_css_class (GTK_WIDGET (widgets->override_label), "dim-label");
  gtk_widget_add_css_class (GTK_WIDGET (widgets->override_label), "pd-override");
  gtk_box_append (GTK_BOX (text_box), GTK_WIDGET (widgets->override_label));
  gtk_widget_set_valign (text_box, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (box), text_box);

  /* A step's glyph on every page (it was a triangle here only). */
  widgets->progress_icon = GTK_IMAGE (gtk_image_new_from_icon_name (_pd_step_status_icon_name (PD_PLAN_STEP_IN_PROGRESS,
                                                                                                FALSE)));
  gtk_widget_set_valign (GTK_WIDGET (widgets->progress_icon), GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (GTK_WIDGET (widgets->progress_icon), "pd-step-in_progress");
  gtk_widget_set_tooltip_text (GTK_WIDGET (widgets->progress_icon), _("In progress"));
  _pd_accessible_set_text (GTK_WIDGET (widgets->progress_icon), _("In progress"), NULL);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (widgets->progress_icon));

  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  g_object_set_data_full (G_OBJECT (row), "pd-agent-row", widgets, g_free);

  update_agent_row (self, row, position);
  g_signal_connect (widgets->check, "toggled", G_CALLBACK (on_agent_toggled), self);
  return row;
}

/* --- the user's items ----------------------------------------------------- */

static guint
user_position (GtkWidget *child)
{
  GtkWidget *row = gtk_widget_get_ancestor (child, GTK_TYPE_LIST_BOX_ROW);

  return (guint) gtk_list_box_row_get_index (GTK_LIST_BOX_ROW (row));
}

static void
on_user_toggled (GtkCheckButton  *check,
                 PdChecklistView *self)
{
  if (self->updating || self->checklist == NULL)
    return;

  pd_checklist_set_user_item_done (self->checklist, user_position (GTK_WIDGET (check)),
                                   gtk_check_button_get_active (check));
  self->changes++;
  update_summary (self);
  pd_checklist_view_save (self);
}

static void rebuild_user_items (PdChecklistView *self);

static void
on_user_remove (GtkButton       *button,
                PdChecklistView *self)
{
  if (self->checklist == NULL)
    return;

  pd_checklist_remove_user_item (self->checklist, user_position (GTK_WIDGET (button)));
  self->changes++;
  rebuild_user_items (self);
  update_summary (self);
  pd_checklist_view_save (self);
}

static GtkWidget *
new_user_row (PdChecklistView *self,
              guint            position)
{
  const PdChecklistItem *item = pd_checklist_get_user_item (self->checklist, position);
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = _pd_row_box_new ();
  GtkWidget *check = gtk_check_button_new ();
  GtkWidget *label = _pd_checklist_text_label (item->text);
  GtkWidget *remove = gtk_button_new_from_icon_name ("user-trash-symbolic");
  g_autofree char *isolated = _pd_isolated_line (item->text);
  /* The item's text in an isolate: a right-to-left item cannot reorder
   * the label a screen reader speaks. */
  g_autofree char *remove_label = g_strdup_printf (_("Remove “%s”"), isolated);

  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);
  gtk_list_box_row_set_selectable (GTK_LIST_BOX_ROW (row), FALSE);
  /* Its check button and its Remove button are its stops; the row, an
   * unnamed stop before them, is not. */
  gtk_widget_set_focusable (row, FALSE);
  gtk_widget_add_css_class (row, "pd-checklist-user-item");

  self->updating = TRUE;
  gtk_check_button_set_active (GTK_CHECK_BUTTON (check), item->status == PD_CHECKLIST_STATUS_COMPLETED);
  self->updating = FALSE;
  gtk_widget_set_valign (check, GTK_ALIGN_START);
  _pd_accessible_set_text (GTK_WIDGET (check), item->text, NULL);
  g_signal_connect (check, "toggled", G_CALLBACK (on_user_toggled), self);

  gtk_widget_set_valign (remove, GTK_ALIGN_CENTER);
  gtk_widget_add_css_class (remove, "flat");
  gtk_widget_set_tooltip_text (remove, _("Remove"));
  _pd_accessible_set_text (GTK_WIDGET (remove), remove_label, NULL);
  g_signal_connect (remove, "clicked", G_CALLBACK (on_user_remove), self);

  gtk_box_append (GTK_BOX (box), check);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), remove);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  return row;
}

static void
clear_box (GtkWidget *box)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (box)) != NULL)
    {
      if (GTK_IS_LIST_BOX (box))
        gtk_list_box_remove (GTK_LIST_BOX (box), child);
      else
        gtk_box_remove (GTK_BOX (box), child);
    }
}

static void
rebuild_user_items (PdChecklistView *self)
{
  guint n = pd_checklist_get_n_user_items (self->checklist);
  gboolean on_remove = FALSE;
  int focused = _pd_list_box_focused_row (self->user_list, &on_remove);

  clear_box (GTK_WIDGET (self->user_list));
  for (guint i = 0; i < n; i++)
    gtk_list_box_append (self->user_list, new_user_row (self, i));
  gtk_widget_set_visible (GTK_WIDGET (self->user_list), n > 0);
  /* The focus stays where it was, or goes to the field for a new item
   * once the last is removed. */
  if (focused >= 0 && n == 0)
    gtk_widget_grab_focus (GTK_WIDGET (self->add_entry));
  _pd_list_box_refocus_row (self->user_list, focused, on_remove);
}

static void
on_add (PdChecklistView *self)
{
  g_autofree char *text = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->add_entry))));

  if (self->checklist == NULL || text[0] == '\0')
    return;

  pd_checklist_add_user_item (self->checklist, text);
  gtk_editable_set_text (GTK_EDITABLE (self->add_entry), "");
  self->changes++;
  rebuild_user_items (self);
  update_summary (self);
  pd_checklist_view_save (self);
}

static void
on_entry_changed (PdChecklistView *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->add_entry));
  g_autofree char *stripped = g_strstrip (g_strdup (text));

  gtk_widget_set_sensitive (GTK_WIDGET (self->add_button), stripped[0] != '\0');
}

/* --- the whole view ------------------------------------------------------- */

static void
pd_checklist_view_rebuild (PdChecklistView *self)
{
  guint n_agent, n_user, n_plans;
  /* A list read again (after the user's own change is saved) keeps the
   * keyboard's place in it. */
  gboolean on_remove = FALSE;
  int agent_focused = _pd_list_box_focused_row (self->agent_list, NULL);
  int user_focused = _pd_list_box_focused_row (self->user_list, &on_remove);

  clear_box (GTK_WIDGET (self->agent_list));
  clear_box (GTK_WIDGET (self->user_list));
  clear_box (GTK_WIDGET (self->plans_box));

  if (!reading_allowed (self))
    {
      gtk_stack_set_visible_child_name (self->stack, "off");
      return;
    }
  if (self->checklist == NULL)
    {
      gtk_stack_set_visible_child_name (self->stack, self->loading ? "loading" : "empty");
      return;
    }

  n_agent = pd_checklist_get_n_agent_items (self->checklist);
  n_user = pd_checklist_get_n_user_items (self->checklist);
  n_plans = self->plans ? self->plans->len : 0;

  if (n_agent == 0 && n_user == 0 && n_plans == 0)
    {
      gtk_stack_set_visible_child_name (self->stack, "empty");
      return;
    }

  gtk_label_set_text (self->source_label, _pd_checklist_origin_label (pd_checklist_get_origin (self->checklist)));
  update_summary (self);

  for (guint i = 0; i < n_agent; i++)
    gtk_list_box_append (self->agent_list, new_agent_row (self, i));
  gtk_widget_set_visible (GTK_WIDGET (self->agent_list), n_agent > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->agent_heading), n_agent > 0);
  /* A list longer than a checklist keeps (its first 500 items): the rest
   * is said, not silently missing. */
  {
    guint hidden = pd_checklist_get_n_hidden_agent_items (self->checklist);
    g_autofree char *text = NULL;

    if (n_agent > 0 && hidden > 0)
      text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u more item of the agent’s list not shown",
                                           "%u more items of the agent’s list not shown", hidden), hidden);
    gtk_label_set_text (self->hidden_label, text ? text : "");
    gtk_widget_set_visible (GTK_WIDGET (self->hidden_label), text != NULL);
  }

  rebuild_user_items (self);
  gtk_widget_set_visible (gtk_widget_get_prev_sibling (GTK_WIDGET (self->user_list)), ANNOTATIONS_KEPT (self));
  gtk_widget_set_visible (gtk_widget_get_parent (GTK_WIDGET (self->add_entry)), ANNOTATIONS_KEPT (self));

  for (guint i = 0; i < n_plans; i++)
    {
      GtkWidget *expander = _pd_checklist_plan_expander (g_ptr_array_index (self->plans, i), i + 1);

      /* The latest plan is the one that matters now. */
      gtk_expander_set_expanded (GTK_EXPANDER (expander), i + 1 == n_plans);
      gtk_box_append (self->plans_box, expander);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->plans_heading), n_plans > 0);
  gtk_widget_set_visible (GTK_WIDGET (self->plans_box), n_plans > 0);

  gtk_stack_set_visible_child_name (self->stack, "checklist");
  _pd_list_box_refocus_row (self->agent_list, agent_focused, FALSE);
  _pd_list_box_refocus_row (self->user_list, user_focused, on_remove);
}

static GtkAdjustment *
list_adjustment (PdChecklistView *self)
{
  return gtk_list_box_get_adjustment (self->agent_list);
}

/* Once the rebuilt list has been laid out (a frame later), the scroll it
 * had: GtkListBox scrolls to a refocused row before it is measured. */
static gboolean
on_rebuilt_laid_out (GtkWidget     *list,
                     GdkFrameClock *clock,
                     gpointer       user_data)
{
  PdChecklistView *self = user_data;
  GtkAdjustment *adjustment = list_adjustment (self);

  if (gtk_adjustment_get_upper (adjustment) - gtk_adjustment_get_page_size (adjustment) < self->kept_scroll
      && ++self->kept_scroll_frames < 3)
    return G_SOURCE_CONTINUE;
  self->kept_scroll_id = 0;
  gtk_adjustment_set_value (adjustment, self->kept_scroll);
  return G_SOURCE_REMOVE;
}

static void
on_checklist_loaded (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(PdSessionViewRequest) request = user_data;
  g_autoptr(PdChecklist) checklist = NULL;
  g_autoptr(GPtrArray) plans = NULL;
  g_autoptr(GError) error = NULL;
  PdChecklistView *self;

  checklist = pd_source_get_checklist_finish (PD_SOURCE (object), result, &plans, &error);

  /* Another source or session is shown now, or the view is gone. */
  if (!pd_session_view_request_is_current (request))
    return;

  self = PD_CHECKLIST_VIEW (request->view);
  self->loading = FALSE;

  /* The user changed something since this was read: read again once the
   * change is saved. */
  if (self->load_changes != self->changes || self->load_again)
    {
      self->load_again = FALSE;
      pd_session_view_reload_done (request, NULL);
      pd_session_view_reload (PD_SESSION_VIEW (self));
      return;
    }

  if (checklist == NULL)
    {
      g_clear_object (&self->checklist);
      g_clear_pointer (&self->plans, g_ptr_array_unref);
      /* A session of Plandeck's own has no agent checklist: nothing to show. */
      if (g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND))
        g_clear_error (&error);
    }
  else if (_pd_checklist_same_reading (self->checklist, self->plans, checklist, plans))
    {
      /* Nothing changed: the page keeps its scroll and its focused row. */
      g_set_object (&self->checklist, checklist);
      pd_session_view_reload_done (request, NULL);
      return;
    }
  else
    {
      /* Read again with a change: the rebuilt list keeps its scroll. */
      if (self->checklist != NULL && self->kept_scroll_id == 0)
        {
          self->kept_scroll = gtk_adjustment_get_value (list_adjustment (self));
          self->kept_scroll_frames = 0;
          self->kept_scroll_id = gtk_widget_add_tick_callback (GTK_WIDGET (self->agent_list),
                                                               on_rebuilt_laid_out, self, NULL);
        }
      g_set_object (&self->checklist, checklist);
      g_clear_pointer (&self->plans, g_ptr_array_unref);
      self->plans = g_steal_pointer (&plans);
    }

  pd_checklist_view_rebuild (self);
  pd_session_view_reload_done (request, error);
}

/* --- continuing the session in its own agent ------------------------------ */

static void
pd_checklist_view_update_resume (PdChecklistView *self)
{
  g_autofree char *line = NULL;
  g_autofree char *safe_line = NULL;
  g_autofree char *title = NULL;
  const char *name;

  gtk_widget_set_visible (self->resume_bar, self->resume != NULL);
  gtk_button_set_icon_name (GTK_BUTTON (self->copy_button), "edit-copy-symbolic");
  gtk_widget_set_tooltip_text (self->copy_button, _("Copy the Command"));
  gtk_widget_set_visible (GTK_WIDGET (self->resume_note), FALSE);
  if (self->resume == NULL)
    return;

  /* An editor extension's task: no command, but where to go on. */
  if (self->resume->argv == NULL)
    {
      name = pd_session_source_label (self->resume->source);
      /* Translators: %s is an agent, e.g. "Cline" */
      title = g_strdup_printf (_("Continue in %s"), name);
      gtk_label_set_text (self->resume_title, title);
      /* Translators: %s is an editor extension, e.g. "Cline" */
      line = g_strdup_printf (_("%s has no command to continue a task: in VS Code (or the editor it runs in), "
                                "open %s and pick this task from its task history."), name, name);
      gtk_label_set_text (self->resume_label, line);
      /* Words, not a command: wrapped between them ("continu" "e a task"
       * at 360 px). */
      gtk_label_set_wrap_mode (self->resume_label, PANGO_WRAP_WORD_CHAR);
      gtk_widget_remove_css_class (GTK_WIDGET (self->resume_label), "monospace");
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->resume_label), NULL);
      gtk_widget_set_visible (self->copy_button, FALSE);
      gtk_widget_set_visible (self->terminal_button, FALSE);
      return;
    }

  name = pd_resume_command_get_source (self->resume);
  if (name != NULL && (name = pd_session_source_label (name)) != NULL)
    /* Translators: %s is an agent, e.g. "Claude Code" */
    title = g_strdup_printf (_("Continue in %s"), name);
  else
    title = g_strdup (_("Continue in Its Agent"));
  gtk_label_set_text (self->resume_title, title);

  line = pd_resume_command_to_string (self->resume);
  safe_line = pd_safe_text_line (line);
  gtk_label_set_text (self->resume_label, safe_line);
  gtk_label_set_wrap_mode (self->resume_label, PANGO_WRAP_CHAR);
  gtk_widget_add_css_class (GTK_WIDGET (self->resume_label), "monospace");
  gtk_widget_set_visible (self->copy_button, TRUE);
  if (self->resume->workdir != NULL)
    {
      g_autofree char *safe_dir = pd_safe_text_line (self->resume->workdir);
      /* Translators: %s is a folder */
      g_autofree char *where = g_strdup_printf (_("Runs in %s"), safe_dir);
      const char *why = pd_terminal_paste_refusal (self->resume);

      /* Said on the page, not only in a tooltip: the agents keep their
       * sessions per folder, and the command run elsewhere finds none
       * (tried as a new user would). Copy goes there first. */
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->resume_label), NULL);
      if (why != NULL)
        {
          /* No line to paste: said where it would be, and no Copy. */
          char *both = g_strdup_printf ("%s\n%s", where, why);

          g_free (where);
          where = both;
          gtk_widget_set_visible (self->copy_button, FALSE);
        }
      gtk_label_set_text (self->resume_note, where);
      gtk_widget_set_visible (GTK_WIDGET (self->resume_note), TRUE);
    }
  else
    {
      /* The agent did not record the folder (an older Gemini CLI session
       * in a hashed folder): the command only works in the right one. */
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->resume_label), NULL);
      gtk_label_set_text (self->resume_note,
                          _("The session does not say which folder it ran in: run this command in the project's "
                            "folder, as the agent keeps its sessions per folder."));
      gtk_widget_set_visible (GTK_WIDGET (self->resume_note), TRUE);
    }
  gtk_widget_set_visible (self->terminal_button, pd_terminal_is_available ());
}

static void
on_resume_loaded (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(PdSessionViewRequest) request = user_data;
  g_autoptr(PdResumeCommand) resume = NULL;
  PdChecklistView *self;

  /* None for our own sessions, and none from a source that does not say. */
  resume = pd_source_get_resume_command_finish (PD_SOURCE (object), result, NULL);

  if (!pd_session_view_request_is_current (request))
    return;
  self = PD_CHECKLIST_VIEW (request->view);

  g_clear_pointer (&self->resume, pd_resume_command_free);
  self->resume = g_steal_pointer (&resume);
  pd_checklist_view_update_resume (self);
}

static void
on_copy_clicked (PdChecklistView *self)
{
  g_autofree char *line = NULL;

  if (self->resume == NULL)
    return;
  /* A command that would run something else when pasted is not copied. */
  if ((line = pd_resume_command_to_paste (self->resume)) == NULL)
    {
      gtk_widget_set_tooltip_text (self->copy_button, pd_terminal_paste_refusal (self->resume));
      return;
    }
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), line);

  /* Said by the button itself: a toast here would queue the Undo of an
   * override behind it. */
  gtk_button_set_icon_name (GTK_BUTTON (self->copy_button), "object-select-symbolic");
  gtk_widget_set_tooltip_text (self->copy_button, _("Command copied"));
}

static void
on_terminal_clicked (PdChecklistView *self)
{
  g_autoptr(GError) error = NULL;

  if (self->resume == NULL)
    return;
  if (!pd_terminal_launch ((const char * const *) self->resume->argv, self->resume->workdir, &error))
    show_error (self, error->message);
}

static void
pd_checklist_view_reload (PdSessionView        *view,
                          PdSessionViewRequest *request)
{
  PdChecklistView *self = PD_CHECKLIST_VIEW (view);

  /* None while reading is off, and none while a save is being written:
   * the save's end asks again. */
  if (!reading_allowed (self) || self->saving)
    {
      self->load_again = self->saving;
      pd_session_view_reload_done (request, NULL);
      pd_session_view_request_free (request);
      return;
    }

  self->loading = TRUE;
  self->load_changes = self->changes;
  if (self->resume == NULL)
    pd_source_get_resume_command_async (request->source, request->session_id, request->cancellable,
                                        on_resume_loaded, pd_session_view_request_copy (request));
  pd_source_get_checklist_async (request->source, request->session_id, request->cancellable,
                                 on_checklist_loaded, request);
}

static void
on_checklist_saved (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(Request) request = user_data;
  g_autoptr(GError) error = NULL;
  PdChecklistView *self;

  pd_source_save_checklist_finish (PD_SOURCE (object), result, &error);

  if (g_cancellable_is_cancelled (request->cancellable))
    return;

  self = request->self;
  self->saving = FALSE;

  if (g_strcmp0 (request->session_id, pd_session_view_get_session_id (PD_SESSION_VIEW (self))) != 0)
    return;

  if (error != NULL)
    show_error (self, g_strdup_printf (_("Could not save your changes: %s"), error->message));

  if (self->save_again)
    {
      self->save_again = FALSE;
      pd_checklist_view_save (self);
    }
  else if (self->load_again)
    {
      self->load_again = FALSE;
      pd_session_view_reload (PD_SESSION_VIEW (self));
    }
}

static void
pd_checklist_view_save (PdChecklistView *self)
{
  Request *request;

  PdSource *source = pd_session_view_get_source (PD_SESSION_VIEW (self));
  const char *session_id = pd_session_view_get_session_id (PD_SESSION_VIEW (self));

  if (source == NULL || session_id == NULL || self->checklist == NULL)
    return;

  if (self->saving)
    {
      self->save_again = TRUE;
      return;
    }

  request = request_new (self);
  self->saving = TRUE;
  pd_source_save_checklist_async (source, session_id, self->checklist, request->cancellable,
                                  on_checklist_saved, request);
}

/* Forget what is shown and what is in flight: a new source or session. */
static void
pd_checklist_view_clear (PdSessionView *view)
{
  PdChecklistView *self = PD_CHECKLIST_VIEW (view);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->loading = FALSE;
  self->load_again = FALSE;
  self->saving = FALSE;
  self->save_again = FALSE;
  g_clear_object (&self->checklist);
  g_clear_pointer (&self->plans, g_ptr_array_unref);
  g_clear_pointer (&self->resume, pd_resume_command_free);
  pd_checklist_view_update_resume (self);
  show_error (self, NULL);
  pd_checklist_view_rebuild (self);
}

static void
on_read_agent_plans_changed (PdChecklistView *self)
{
  pd_checklist_view_clear (PD_SESSION_VIEW (self));
  pd_session_view_reload (PD_SESSION_VIEW (self));
  pd_checklist_view_rebuild (self);
}

static void
pd_checklist_view_dispose (GObject *object)
{
  PdChecklistView *self = PD_CHECKLIST_VIEW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->settings);
  if (self->agent_list != NULL && self->kept_scroll_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self->agent_list), self->kept_scroll_id);
  self->kept_scroll_id = 0;

  gtk_widget_dispose_template (GTK_WIDGET (self), PD_TYPE_CHECKLIST_VIEW);
  {
    GtkWidget *child = gtk_widget_get_last_child (GTK_WIDGET (self));

    if (GTK_IS_BOX (child))
      gtk_widget_unparent (child);
  }
  g_clear_object (&self->checklist);
  g_clear_pointer (&self->plans, g_ptr_array_unref);
  g_clear_pointer (&self->resume, pd_resume_command_free);
  if (self->toast != NULL)
    {
      g_object_remove_weak_pointer (G_OBJECT (self->toast), (gpointer *) &self->toast);
      self->toast = NULL;
    }

  G_OBJECT_CLASS (pd_checklist_view_parent_class)->dispose (object);
}

static void
pd_checklist_view_class_init (PdChecklistViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pd_checklist_view_dispose;

  PD_SESSION_VIEW_CLASS (klass)->reload = pd_checklist_view_reload;
  PD_SESSION_VIEW_CLASS (klass)->clear = pd_checklist_view_clear;

  gtk_widget_class_set_css_name (widget_class, "checklist-view");
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/plandeck/Plandeck/ui/pd-checklist-view.ui");
  gtk_widget_class_bind_template_child (widget_class, PdChecklistView, error_label);
  gtk_widget_class_bind_template_child (widget_class, PdChecklistView, stack);
  gtk_widget_class_bind_template_child (widget_class, PdChecklistView, empty_page);
  gtk_widget_class_bind_template_child (widget_class, PdChecklistView, title_label);
  gtk_widget_class_bind_template_child (widget_class, PdChecklistView, source_label);
  gtk_widget_class_bind_template_child (widget_class, PdChecklistView, summary_label);
  gtk_widget_class_bind_template_child (widget_class, PdChecklistView, agent_heading);
  gtk_widget_class_bind_template_child (widget_class, PdChecklistView, agent_list);
  gtk_widget_class_bind_template_child (widget_class, PdChecklistView, hidden_label);
  gtk_widget_class_bind_template_child (widget_class, PdChecklistView, user_list);
  gtk_widget_class_bind_template_child (widget_class, PdChecklistView, add_entry);
  gtk_widget_class_bind_template_child (widget_class, PdChecklistView, add_button);
  gtk_widget_class_bind_template_child (widget_class, PdChecklistView, plans_heading);
  gtk_widget_class_bind_template_child (widget_class, PdChecklistView, plans_box);
  gtk_widget_class_bind_template_child (widget_class, PdChecklistView, resume_bar);
  gtk_widget_class_bind_template_child (widget_class, PdChecklistView, resume_title);
  gtk_widget_class_bind_template_child (widget_class, PdChecklistView, resume_label);
  gtk_widget_class_bind_template_child (widget_class, PdChecklistView, resume_note);
  gtk_widget_class_bind_template_child (widget_class, PdChecklistView, copy_button);
  gtk_widget_class_bind_template_child (widget_class, PdChecklistView, terminal_button);
}

static void
pd_checklist_view_init (PdChecklistView *self)
{
  GSettingsSchemaSource *schemas = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  gtk_widget_init_template (GTK_WIDGET (self));
  /* Plan text: wrapped with no hyphen it does not have. */
  _pd_label_no_hyphens (GTK_WIDGET (self->title_label));
  _pd_label_no_hyphens (GTK_WIDGET (self->resume_label));
  _pd_stack_tab_shown_only (self->stack);

  /* Without the schema (a test binary, a bare build) reading stays on. */
  if (schemas != NULL && (schema = g_settings_schema_source_lookup (schemas, SETTINGS_SCHEMA, TRUE)) != NULL
      && g_settings_schema_has_key (schema, READ_AGENT_PLANS_KEY))
    {
      self->settings = g_settings_new (SETTINGS_SCHEMA);
      g_signal_connect_object (self->settings, "changed::" READ_AGENT_PLANS_KEY,
                               G_CALLBACK (on_read_agent_plans_changed), self, G_CONNECT_SWAPPED);
    }

  /* Page Down and Page Up move a page of the scroller, not its default of
   * one or two rows (tried as a new user would). */
  {
    GtkWidget *scroller = gtk_widget_get_ancestor (GTK_WIDGET (self->agent_list), GTK_TYPE_SCROLLED_WINDOW);
    GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (scroller));

    gtk_list_box_set_adjustment (self->agent_list, adjustment);
    gtk_list_box_set_adjustment (self->user_list, adjustment);
  }
  g_signal_connect_object (self->agent_list, "row-activated", G_CALLBACK (on_agent_row_activated), self, 0);
  _pd_list_one_tab_stop (GTK_WIDGET (self->agent_list));
  g_signal_connect_object (self->add_entry, "activate", G_CALLBACK (on_add), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->add_button, "clicked", G_CALLBACK (on_add), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->add_entry, "changed", G_CALLBACK (on_entry_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->copy_button, "clicked", G_CALLBACK (on_copy_clicked), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->terminal_button, "clicked", G_CALLBACK (on_terminal_clicked), self,
                           G_CONNECT_SWAPPED);

  pd_checklist_view_rebuild (self);
}

GtkWidget *
pd_checklist_view_new (void)
{
  return g_object_new (PD_TYPE_CHECKLIST_VIEW, NULL);
}

/**
 * pd_checklist_view_refresh:
 *
 * Reads the checklist again (the transcript may have grown).  A refresh
 * asked for while a read or a save is in flight runs once it is done.
 */
void
pd_checklist_view_refresh (PdChecklistView *self)
{
  g_return_if_fail (PD_IS_CHECKLIST_VIEW (self));

  pd_session_view_reload (PD_SESSION_VIEW (self));
}

/**
 * pd_checklist_view_get_checklist:
 *
 * Returns: (transfer none) (nullable): the checklist shown
 */
PdChecklist *
pd_checklist_view_get_checklist (PdChecklistView *self)
{
  g_return_val_if_fail (PD_IS_CHECKLIST_VIEW (self), NULL);
  return self->checklist;
}

/**
 * pd_checklist_view_set_title:
 * @title: (nullable): the session's title, anyone's text (the agent's)
 *
 * Heads the page with the session's title, as plain text.
 */
void
pd_checklist_view_set_title (PdChecklistView *self,
                             const char      *title)
{
  g_autofree char *safe = NULL;

  g_return_if_fail (PD_IS_CHECKLIST_VIEW (self));

  safe = title != NULL && title[0] != '\0' ? _pd_isolated_short (title, 240) : NULL;
  gtk_label_set_text (self->title_label, safe != NULL ? safe : "");
  /* Whole and wrapped in the page, and in the tooltip too. */
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->title_label), safe);
  gtk_widget_set_visible (GTK_WIDGET (self->title_label), safe != NULL);
}

/**
 * pd_checklist_view_is_busy:
 *
 * Returns: whether a read or a save is in flight (for tests and the
 *   integrator's spinners)
 */
gboolean
pd_checklist_view_is_busy (PdChecklistView *self)
{
  g_return_val_if_fail (PD_IS_CHECKLIST_VIEW (self), FALSE);
  return pd_session_view_get_busy (PD_SESSION_VIEW (self)) || self->saving || self->load_again || self->save_again;
}
