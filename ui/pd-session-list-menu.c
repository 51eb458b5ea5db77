/* pd-session-list-menu.c: the session list's row menu and clicks on rows
 *
 * A right click, a long press or the Menu key opens a row's menu: Rename
 * and Pin change the session through the source, Export and Delete are the
 * window's actions.  A primary click picks a session; from the keyboard
 * the list is one Tab stop, the arrows move the focus alone, Enter and
 * Space open.  Part of
 * PdSessionList (pd-session-list-private.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-session-list"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-session-list-private.h"
#include "pd-session-row.h"
#include "pd-ui-util-private.h"

static PdSessionRow *
row_at (PdSessionList *self,
        double         x,
        double         y)
{
  GtkWidget *picked = gtk_widget_pick (GTK_WIDGET (self->list_view), x, y, GTK_PICK_DEFAULT);

  for (GtkWidget *w = picked; w != NULL && w != GTK_WIDGET (self->list_view);
       w = gtk_widget_get_parent (w))
    {
      if (PD_IS_SESSION_ROW (w))
        return PD_SESSION_ROW (w);
      /* The row lives inside a GtkListItemWidget; look down from it too. */
      for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL; c = gtk_widget_get_next_sibling (c))
        if (PD_IS_SESSION_ROW (c))
          return PD_SESSION_ROW (c);
    }

  return NULL;
}

static PdSessionRow *
row_for_item (PdSessionList *self,
              PdSessionItem *item)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->list_view));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *row = gtk_widget_get_first_child (child);

      if (row != NULL && PD_IS_SESSION_ROW (row) &&
          pd_session_row_get_item (PD_SESSION_ROW (row)) == item)
        return PD_SESSION_ROW (row);
    }

  return NULL;
}

/* --- the focus on a row come back ------------------------------------------ */

typedef struct
{
  char  *id;
  guint  frames;
} FocusWait;

static void
focus_wait_free (gpointer data)
{
  FocusWait *wait = data;

  g_free (wait->id);
  g_free (wait);
}

/* The shown row of the session @id, if the list made one. */
static PdSessionRow *
row_for_id (PdSessionList *self,
            const char    *id)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->list_view));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *row = gtk_widget_get_first_child (child);

      if (row != NULL && PD_IS_SESSION_ROW (row) && gtk_widget_get_mapped (row) &&
          pd_session_row_get_item (PD_SESSION_ROW (row)) != NULL &&
          g_strcmp0 (pd_session_item_get_id (pd_session_row_get_item (PD_SESSION_ROW (row))), id) == 0)
        return PD_SESSION_ROW (row);
    }
  return NULL;
}

static gboolean
focus_row_when_shown (GtkWidget     *list_view,
                      GdkFrameClock *clock,
                      gpointer       data)
{
  GtkWidget *list = gtk_widget_get_ancestor (list_view, PD_TYPE_SESSION_LIST);
  FocusWait *wait = data;
  PdSessionRow *row = list != NULL ? row_for_id (PD_SESSION_LIST (list), wait->id) : NULL;

  if (row != NULL)
    {
      gtk_widget_grab_focus (gtk_widget_get_parent (GTK_WIDGET (row)));
      return G_SOURCE_REMOVE;
    }
  /* Not shown within a second (the list folded away): left where it is. */
  return ++wait->frames < 60 ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

/**
 * pd_session_list_focus_session:
 * @id: a session id
 *
 * Puts the keyboard focus on the row of the session @id once the list
 * shows it (a row come back on Undo is laid out at the next frame).  The
 * toast's Undo had the focus, and when the toast went GTK gave it to the
 * header's first button, "New Session" (tried with a screen reader).
 */
void
pd_session_list_focus_session (PdSessionList *self,
                               const char    *id)
{
  FocusWait *wait;

  g_return_if_fail (PD_IS_SESSION_LIST (self));
  g_return_if_fail (id != NULL);

  wait = g_new0 (FocusWait, 1);
  wait->id = g_strdup (id);
  gtk_widget_add_tick_callback (GTK_WIDGET (self->list_view), focus_row_when_shown, wait, focus_wait_free);
}

/* The keyboard focus goes back to the menu's row (else the selected one)
 * after its menu or the rename dialog (a keyboard user was left with the
 * focus nowhere). */
static void
pd_session_list_restore_focus (PdSessionList *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  PdSessionItem *item = self->menu_item != NULL && row_for_item (self, self->menu_item) != NULL
                        ? self->menu_item : gtk_single_selection_get_selected_item (self->selection);
  PdSessionRow *row = item != NULL ? row_for_item (self, item) : NULL;

  if (root == NULL || !gtk_widget_get_mapped (GTK_WIDGET (self)))
    return;
  if (focus != NULL && gtk_widget_get_mapped (focus) &&
      (self->menu == NULL || !gtk_widget_is_ancestor (focus, self->menu)))
    return;
  if (row == NULL || !gtk_widget_grab_focus (gtk_widget_get_parent (GTK_WIDGET (row))))
    gtk_widget_grab_focus (GTK_WIDGET (self->list_view));
}

/* The menu closed: its row is drawn as before.  The row's press began on
 * the click that opened the menu and the menu took its release, so the
 * row stayed shaded as if still pressed (tried as a new user would). */
static void
on_menu_closed (PdSessionList *self)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->list_view));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *row = gtk_widget_get_first_child (child);

      gtk_widget_unset_state_flags (child, GTK_STATE_FLAG_ACTIVE);
      if (row != NULL)
        gtk_widget_unset_state_flags (row, GTK_STATE_FLAG_ACTIVE);
    }
  pd_session_list_restore_focus (self);
}

static void
pd_session_list_popup_menu (PdSessionList *self,
                            PdSessionItem *item,
                            GtkWidget     *anchor,
                            double         x,
                            double         y)
{
  g_autoptr(GMenu) menu = g_menu_new ();
  GdkRectangle rect;
  graphene_point_t point;

  g_set_object (&self->menu_item, item);

  g_menu_append (menu, _("_Rename…"), "session.rename");
  g_menu_append (menu, pd_session_item_get_pinned (item) ? _("Un_pin") : _("_Pin"),
                 "session.toggle-pin");
  /* Export and Delete are the window's row actions (enabled whatever the
   * window shows; its session menu has them too, for the shown session). */
  {
    g_autoptr(GMenu) section = g_menu_new ();
    g_autoptr(GMenuItem) markdown = g_menu_item_new (_("Export as _Markdown…"), NULL);
    g_autoptr(GMenuItem) json = g_menu_item_new (_("Export as _JSON…"), NULL);
    g_autoptr(GMenuItem) delete = g_menu_item_new (_pd_session_delete_label (pd_session_item_is_imported (item)),
                                                   NULL);
    const char *id = pd_session_item_get_id (item);

    g_menu_item_set_action_and_target (markdown, "win.row-export-markdown", "s", id);
    g_menu_item_set_action_and_target (json, "win.row-export-json", "s", id);
    g_menu_item_set_action_and_target (delete, "win.row-delete-session", "s", id);
    g_menu_append_item (section, markdown);
    g_menu_append_item (section, json);
    g_menu_append_item (section, delete);
    g_menu_append_section (menu, NULL, G_MENU_MODEL (section));
  }

  if (self->menu == NULL)
    {
      self->menu = gtk_popover_menu_new_from_model (NULL);
      gtk_widget_set_parent (self->menu, GTK_WIDGET (self));
      /* Named, not "GtkPopoverMenu" (tried with a screen reader). */
      _pd_menu_set_name (self->menu, _("Session Menu"));
      gtk_popover_set_has_arrow (GTK_POPOVER (self->menu), FALSE);
      g_signal_connect_object (self->menu, "closed", G_CALLBACK (on_menu_closed),
                               self, G_CONNECT_SWAPPED | G_CONNECT_AFTER);
    }
  gtk_popover_menu_set_menu_model (GTK_POPOVER_MENU (self->menu), G_MENU_MODEL (menu));

  if (anchor == NULL || !gtk_widget_compute_point (anchor, GTK_WIDGET (self),
                                                   &GRAPHENE_POINT_INIT (x, y), &point))
    point = GRAPHENE_POINT_INIT (x, y);

  /* Opened at a click near the right edge (the list is the whole window
   * at 360 px), it went on past the window and "Remove From List" was
   * cut (tried as a new user would): there it opens leftwards. */
  {
    /* A popover measures as 0 before it shows: the menu is about as wide
     * as its longest item, "Export as Markdown…", and its padding. */
    int wide = _pd_text_width (GTK_WIDGET (self), 26);

    gtk_widget_set_halign (self->menu, point.x + wide > gtk_widget_get_width (GTK_WIDGET (self))
                                       ? GTK_ALIGN_END : GTK_ALIGN_START);
  }
  rect = (GdkRectangle) { (int) point.x, (int) point.y, 1, 1 };
  gtk_popover_set_pointing_to (GTK_POPOVER (self->menu), &rect);
  gtk_popover_popup (GTK_POPOVER (self->menu));
}

static void
popup_at (PdSessionList *self,
          double         x,
          double         y)
{
  PdSessionRow *row = row_at (self, x, y);
  PdSessionItem *item;

  /* The menu is about this row; the session open stays open (the one
   * clicked opened behind its menu, tried as a new user would). */
  if (row == NULL || (item = pd_session_row_get_item (row)) == NULL)
    return;

  pd_session_list_popup_menu (self, item, GTK_WIDGET (self->list_view), x, y);
}

/* A right click at (@x, @y) of the list, for the tests. */
void
_pd_session_list_popup_at (PdSessionList *self,
                           double         x,
                           double         y)
{
  popup_at (self, x, y);
}

static void
on_right_click (GtkGestureClick *gesture,
                int              n_press,
                double           x,
                double           y,
                PdSessionList   *self)
{
  popup_at (self, x, y);
  gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
}

/* A click picks a session; a folded window then shows it. */
static void
on_primary_released (GtkGestureClick *gesture,
                     int              n_press,
                     double           x,
                     double           y,
                     PdSessionList   *self)
{
  PdSessionRow *row = row_at (self, x, y);

  if (row != NULL && pd_session_row_get_item (row) != NULL)
    _pd_session_list_emit_activated (self, pd_session_row_get_item (row));
}

static void
on_long_press (GtkGestureLongPress *gesture,
               double               x,
               double               y,
               PdSessionList       *self)
{
  popup_at (self, x, y);
}

/**
 * pd_session_list_show_menu:
 * @item: a listed session
 *
 * Opens the row menu (Rename, Pin) of @item at its row, as the Menu key does.
 */
void
pd_session_list_show_menu (PdSessionList *self,
                           PdSessionItem *item)
{
  PdSessionRow *row;

  g_return_if_fail (PD_IS_SESSION_LIST (self));
  g_return_if_fail (PD_IS_SESSION_ITEM (item));

  row = row_for_item (self, item);
  if (row != NULL)
    pd_session_list_popup_menu (self, item, GTK_WIDGET (row), 24,
                                gtk_widget_get_height (GTK_WIDGET (row)) / 2.0);
  else
    pd_session_list_popup_menu (self, item, NULL, 24, 24);
}

/* The row the keyboard focus is on (Ctrl+arrows move it without
 * selecting), else the selected one. */
static PdSessionItem *
keyboard_item (PdSessionList *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  for (GtkWidget *w = focus; w != NULL && w != GTK_WIDGET (self->list_view);
       w = gtk_widget_get_parent (w))
    if (gtk_widget_get_parent (w) == GTK_WIDGET (self->list_view))
      {
        GtkWidget *row = gtk_widget_get_first_child (w);

        if (row != NULL && PD_IS_SESSION_ROW (row) && pd_session_row_get_item (PD_SESSION_ROW (row)) != NULL)
          return pd_session_row_get_item (PD_SESSION_ROW (row));
      }
  return gtk_single_selection_get_selected_item (self->selection);
}

static gboolean
on_menu_key (GtkWidget *widget,
             GVariant  *args,
             gpointer   user_data)
{
  PdSessionList *self = PD_SESSION_LIST (widget);
  PdSessionItem *item = keyboard_item (self);

  if (item == NULL)
    return FALSE;

  pd_session_list_show_menu (self, item);

  return TRUE;
}

/* Space opens the focused session as Enter does. GTK 4.8's list rows take
 * Space to select only, which shows nothing new in a folded window. */
static gboolean
on_space_key (GtkWidget *list_view,
              GVariant  *args,
              gpointer   user_data)
{
  PdSessionList *self = PD_SESSION_LIST (user_data);
  PdSessionItem *item = keyboard_item (self);
  guint position;

  if (item == NULL || !_pd_session_list_find_shown (self, pd_session_item_get_id (item), &position))
    return FALSE;
  gtk_single_selection_set_selected (self->selection, position);
  _pd_session_list_emit_activated (self, item);
  return TRUE;
}

/* The arrows, Home, End and the page keys move the focus alone, as GTK
 * 4.8's list does with Ctrl held: they opened each session they passed
 * (with an endpoint's, a fetch at each press), and the open session is
 * the selected one (tried as a new user would).  Enter and Space open the
 * session the focus is on. */
static gboolean
on_move_key (GtkWidget *list_view,
             GVariant  *args,
             gpointer   user_data)
{
  guint keyval = g_variant_get_uint32 (args);
  g_autoptr(GtkShortcutTrigger) wanted = gtk_keyval_trigger_new (keyval, GDK_CONTROL_MASK);
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (list_view);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          GtkShortcutTrigger *trigger = gtk_shortcut_get_trigger (shortcut);

          if (trigger != NULL && gtk_shortcut_trigger_equal (trigger, wanted) &&
              gtk_shortcut_get_action (shortcut) != NULL)
            return gtk_shortcut_action_activate (gtk_shortcut_get_action (shortcut), 0, list_view,
                                                 gtk_shortcut_get_arguments (shortcut));
        }
    }
  return FALSE;
}

/* A change made from the row menu, to the session @id. */
typedef struct
{
  PdSessionList *self;
  char          *id;
} UpdateCall;

static void
update_call_free (UpdateCall *call)
{
  g_object_unref (call->self);
  g_free (call->id);
  g_free (call);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (UpdateCall, update_call_free)

static UpdateCall *
update_call_new (PdSessionList *self,
                 const char    *id)
{
  UpdateCall *call = g_new0 (UpdateCall, 1);

  call->self = g_object_ref (self);
  call->id = g_strdup (id);
  return call;
}

typedef struct
{
  PdSessionList *self;
  GCancellable  *cancellable;
} Reread;

static void
reread_free (Reread *reread)
{
  g_object_unref (reread->self);
  g_object_unref (reread->cancellable);
  g_free (reread);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Reread, reread_free)

static void
on_changed_session_read (GObject      *object,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  g_autoptr(Reread) reread = user_data;
  PdSessionList *self = reread->self;
  g_autoptr(PdSessionInfo) info = pd_source_get_session_finish (PD_SOURCE (object), result, NULL);
  g_autoptr(GDateTime) now = NULL;
  PdSessionItem *item;

  self->rereads_out--;
  /* A read let go of (another source, or the list is gone). */
  if (reread->cancellable != self->reread)
    return;
  g_clear_object (&self->reread);
  /* Changes came while it was on its way: the row is read once more. */
  if (self->reread_next != NULL)
    {
      g_autofree char *next = g_steal_pointer (&self->reread_next);

      _pd_session_list_reread_session (self, next);
    }
  if (info == NULL || PD_SOURCE (object) != self->source)
    return;

  item = pd_session_list_model_find (self->model, info->id, NULL);
  if (item == NULL)
    return;

  now = g_date_time_new_now_utc ();
  pd_session_item_update (item, info, now);
}

/* One read of the row at a time: a transcript that grows says ::changed
 * for every write read, and each such read is the whole transcript's on a
 * worker (a 30 MB one grown by 200 lines every 0.5 s, tried as an
 * attacker would: the reads piled up, 4.7 GB).  Asked for while one is on
 * its way, the row is read once more after it. */
void
_pd_session_list_reread_session (PdSessionList *self,
                                 const char    *id)
{
  Reread *reread;

  if (self->source == NULL || id == NULL)
    return;
  if (self->reread != NULL)
    {
      g_free (self->reread_next);
      self->reread_next = g_strdup (id);
      return;
    }
  self->reread = g_cancellable_new ();
  self->n_rereads++;
  self->rereads_out++;
  reread = g_new0 (Reread, 1);
  reread->self = g_object_ref (self);
  reread->cancellable = g_object_ref (self->reread);
  pd_source_get_session_async (self->source, id, self->reread, on_changed_session_read, reread);
}

void
_pd_session_list_cancel_reread (PdSessionList *self)
{
  g_cancellable_cancel (self->reread);
  g_clear_object (&self->reread);
  g_clear_pointer (&self->reread_next, g_free);
}

guint
_pd_session_list_get_n_rereads (PdSessionList *self,
                                guint         *out)
{
  if (out != NULL)
    *out = self->rereads_out;
  return self->n_rereads;
}

static void
on_update_ready (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(UpdateCall) call = user_data;
  PdSessionList *self = call->self;
  g_autoptr(GError) error = NULL;

  if (!pd_source_update_session_finish (PD_SOURCE (object), result, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _pd_session_list_emit_failed (self, error);
      return;
    }

  /* A local source announces the change itself; a refresh is cheap anyway.
   * A rename does not move its session, and a refresh stops at the pages
   * that did not change: the session itself is read again too. */
  pd_session_list_refresh (self);
  pd_session_list_restore_focus (self);
  if (self->source == PD_SOURCE (object))
    _pd_session_list_reread_session (self, call->id);
}

static void
toggle_pin_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  PdSessionList *self = PD_SESSION_LIST (widget);

  if (self->menu_item == NULL || self->source == NULL)
    return;

  pd_source_update_session_async (self->source, pd_session_item_get_id (self->menu_item), NULL,
                                  pd_session_item_get_pinned (self->menu_item) ? 0 : 1,
                                  NULL, on_update_ready,
                                  update_call_new (self, pd_session_item_get_id (self->menu_item)));
}

typedef struct
{
  PdSessionList *self;
  char          *id;
  GtkEditable   *entry;
} RenameData;

static void
rename_data_free (RenameData *data)
{
  g_object_unref (data->self);
  g_free (data->id);
  g_free (data);
}

static void
on_rename_response (AdwMessageDialog *dialog,
                    const char       *response,
                    RenameData       *data)
{
  if (g_strcmp0 (response, "rename") == 0 && data->self->source != NULL)
    pd_source_update_session_async (data->self->source, data->id,
                                    gtk_editable_get_text (data->entry), -1,
                                    NULL, on_update_ready, update_call_new (data->self, data->id));
}

static void
on_rename_entry_activate (AdwMessageDialog *dialog)
{
  adw_message_dialog_response (dialog, "rename");
  gtk_window_close (GTK_WINDOW (dialog));
}

static void
rename_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  PdSessionList *self = PD_SESSION_LIST (widget);
  const PdSessionInfo *info;
  GtkWidget *dialog;
  GtkWidget *entry;
  RenameData *data;

  if (self->menu_item == NULL)
    return;

  info = pd_session_item_get_info (self->menu_item);
  dialog = adw_message_dialog_new (GTK_WINDOW (gtk_widget_get_root (widget)),
                                   _("Rename Session"), NULL);
  adw_message_dialog_set_body (ADW_MESSAGE_DIALOG (dialog),
                               _("An empty name shows the session's task again."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog),
                                    "cancel", _("_Cancel"),
                                    "rename", _("_Rename"),
                                    NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "rename",
                                              ADW_RESPONSE_SUGGESTED);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "rename");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");

  entry = gtk_entry_new ();
  gtk_editable_set_text (GTK_EDITABLE (entry),
                         info->name != NULL ? info->name : pd_session_item_get_title (self->menu_item));
  /* Described by the dialog's help, which a reader did not hear with it
   * (tried with a screen reader). */
  _pd_accessible_set_text (GTK_WIDGET (entry), _("Session name"), _("An empty name shows the session's task again."));
  g_signal_connect_swapped (entry, "activate", G_CALLBACK (on_rename_entry_activate), dialog);
  adw_message_dialog_set_extra_child (ADW_MESSAGE_DIALOG (dialog), entry);

  data = g_new0 (RenameData, 1);
  data->self = g_object_ref (self);
  data->id = g_strdup (info->id);
  data->entry = GTK_EDITABLE (entry);
  g_signal_connect_data (dialog, "response", G_CALLBACK (on_rename_response), data,
                         (GClosureNotify) rename_data_free, 0);

  /* Each response met once by a reader (libadwaita makes two of each). */
  _pd_message_dialog_responses_once (dialog);
  gtk_window_present (GTK_WINDOW (dialog));
}

void
_pd_session_list_class_init_menu (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "session.rename", NULL, rename_action);
  gtk_widget_class_install_action (widget_class, "session.toggle-pin", NULL, toggle_pin_action);

  gtk_widget_class_add_binding (widget_class, GDK_KEY_Menu, 0, on_menu_key, NULL);
  gtk_widget_class_add_binding (widget_class, GDK_KEY_F10, GDK_SHIFT_MASK, on_menu_key, NULL);
}

void
_pd_session_list_init_menu (PdSessionList *self)
{
  GtkGesture *click;
  GtkGesture *long_press;
  GtkEventController *keys;

  click = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_SECONDARY);
  g_signal_connect (click, "pressed", G_CALLBACK (on_right_click), self);
  gtk_widget_add_controller (GTK_WIDGET (self->list_view), GTK_EVENT_CONTROLLER (click));

  click = gtk_gesture_click_new ();
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (click), GDK_BUTTON_PRIMARY);
  g_signal_connect (click, "released", G_CALLBACK (on_primary_released), self);
  gtk_widget_add_controller (GTK_WIDGET (self->list_view), GTK_EVENT_CONTROLLER (click));

  /* One Tab stop: the arrows move between rows, Tab leaves the list. */
  _pd_list_one_tab_stop (GTK_WIDGET (self->list_view));
  keys = gtk_shortcut_controller_new ();
  /* Before the row's own Space (select). */
  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_space, 0),
                                                          gtk_callback_action_new (on_space_key, self, NULL)));
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_KP_Space, 0),
                                                          gtk_callback_action_new (on_space_key, self, NULL)));
  {
    const guint moves[] = { GDK_KEY_Up, GDK_KEY_KP_Up, GDK_KEY_Down, GDK_KEY_KP_Down, GDK_KEY_Home,
                            GDK_KEY_KP_Home, GDK_KEY_End, GDK_KEY_KP_End, GDK_KEY_Page_Up,
                            GDK_KEY_KP_Page_Up, GDK_KEY_Page_Down, GDK_KEY_KP_Page_Down };

    for (guint i = 0; i < G_N_ELEMENTS (moves); i++)
      {
        GtkShortcut *shortcut = gtk_shortcut_new (gtk_keyval_trigger_new (moves[i], 0),
                                                  gtk_callback_action_new (on_move_key, NULL, NULL));

        gtk_shortcut_set_arguments (shortcut, g_variant_new_uint32 (moves[i]));
        gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (keys), shortcut);
      }
  }
  gtk_widget_add_controller (GTK_WIDGET (self->list_view), keys);

  long_press = gtk_gesture_long_press_new ();
  gtk_gesture_single_set_touch_only (GTK_GESTURE_SINGLE (long_press), TRUE);
  g_signal_connect (long_press, "pressed", G_CALLBACK (on_long_press), self);
  gtk_widget_add_controller (GTK_WIDGET (self->list_view), GTK_EVENT_CONTROLLER (long_press));
}

void
_pd_session_list_dispose_menu (PdSessionList *self)
{
  g_clear_pointer (&self->menu, gtk_widget_unparent);
  g_clear_object (&self->menu_item);
  _pd_session_list_cancel_reread (self);
}
