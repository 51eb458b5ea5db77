/* pd-session-deleter.c: Delete with Undo for a window's sessions
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A deleted session leaves the list at once and a toast offers Undo; the
 * source deletes it only when the toast goes (its time is up, or it is
 * closed), so Undo has nothing to restore and a crash in between loses
 * nothing.  A window that closes first deletes what it still holds
 * (pd_session_deleter_flush()): the user asked for it.  A session imported
 * from another agent is only hidden from the list by the store; the
 * agent's transcript is never touched, and the toast says so.  An export
 * of the session going on is let finish first: the source deletes the
 * session once it has ended (deleted under it, an export failed or came
 * out short, tried as a new user would).
 */
#define G_LOG_DOMAIN "pd-session-deleter"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-session-deleter.h"
#include "pd-multi-source.h"
#include "pd-overview-view.h"
#include "pd-session-export.h"
#include "pd-ui-util-private.h"

typedef struct
{
  PdSessionDeleter *deleter;   /* (nullable) (unowned) cleared when it goes */
  PdSource         *source;
  char             *id;
  char             *title;
  AdwToast         *toast;
  gboolean          selected;  /* it was the list's selection: Undo selects it again */
  gboolean          settled;   /* undone, or handed to the source */
} Pending;

struct _PdSessionDeleter
{
  GObject          parent_instance;

  GWeakRef         toasts;
  GWeakRef         list;
  GPtrArray       *pending;    /* (element-type Pending) */
};

G_DEFINE_FINAL_TYPE (PdSessionDeleter, pd_session_deleter, G_TYPE_OBJECT)

static void
pending_free (Pending *pending)
{
  if (pending->toast != NULL)
    g_signal_handlers_disconnect_by_data (pending->toast, pending);
  g_clear_object (&pending->toast);
  g_clear_object (&pending->source);
  g_free (pending->id);
  g_free (pending->title);
  g_free (pending);
}

static GtkWidget *
find_overview_view (GtkWidget *widget)
{
  if (PD_IS_OVERVIEW_VIEW (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_overview_view (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The session leaves (or comes back to) the list and its window's
 * Overview at once. */
static void
pd_session_deleter_show (PdSessionDeleter *self,
                         PdSource         *source,
                         const char       *id,
                         gboolean          shown)
{
  g_autoptr(PdSessionList) list = g_weak_ref_get (&self->list);
  GtkRoot *root = list != NULL ? gtk_widget_get_root (GTK_WIDGET (list)) : NULL;
  GtkWidget *overview = root != NULL ? find_overview_view (GTK_WIDGET (root)) : NULL;

  g_autofree char *card_id = NULL;
  PdSource *card_source = source;

  if (list != NULL)
    pd_session_list_set_hidden (list, id, !shown);
  /* A card is known by its own source and that source's id: the default
   * window lists through its sources, under merged ids, and the card of a
   * session removed from its list stayed until the toast had gone (tried as
   * a new user would). */
  if (PD_IS_MULTI_SOURCE (source))
    card_source = pd_multi_source_resolve (PD_MULTI_SOURCE (source), id, &card_id);
  if (overview != NULL && card_source != NULL)
    pd_overview_view_set_hidden (PD_OVERVIEW_VIEW (overview), card_source, card_id != NULL ? card_id : id, !shown);
}

static void
on_deleted (GObject      *object,
            GAsyncResult *result,
            gpointer      user_data)
{
  Pending *pending = user_data;
  g_autoptr(GError) error = NULL;

  if (!pd_source_delete_session_finish (PD_SOURCE (object), result, &error) && pending->deleter != NULL)
    {
      g_autoptr(AdwToastOverlay) toasts = g_weak_ref_get (&pending->deleter->toasts);
      /* Translators: %s is a session's title, then why it could not be deleted */
      g_autofree char *text = g_strdup_printf (_("Could not delete “%s”: %s"), pending->title, error->message);

      pd_session_deleter_show (pending->deleter, pending->source, pending->id, TRUE);
      if (toasts != NULL)
        _pd_toast_add_text (GTK_WIDGET (toasts), text);
    }
  if (pending->deleter != NULL)
    g_ptr_array_remove (pending->deleter->pending, pending);
  else
    pending_free (pending);
}

static gboolean
on_export_ended (gpointer data)
{
  Pending *pending = data;

  /* Another export may have begun meanwhile: it is let finish too. */
  if (!pd_session_export_when_done (pending->source, pending->id, on_export_ended, pending))
    pd_source_delete_session_async (pending->source, pending->id, NULL, on_deleted, pending);
  return G_SOURCE_REMOVE;
}

static void
pending_delete (Pending *pending)
{
  if (pending->settled)
    return;
  pending->settled = TRUE;
  on_export_ended (pending);
}

static void
on_toast_dismissed (AdwToast *toast,
                    Pending  *pending)
{
  if (pending->settled)
    return;
  pending_delete (pending);
}

/* Whether the window's focus is in a toast (its Undo), or nowhere. */
static gboolean
focus_in_toast (PdSessionDeleter *self)
{
  g_autoptr(PdSessionList) list = g_weak_ref_get (&self->list);
  GtkRoot *root = list != NULL ? gtk_widget_get_root (GTK_WIDGET (list)) : NULL;
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  if (root == NULL)
    return FALSE;
  for (GtkWidget *w = focus; w != NULL; w = gtk_widget_get_parent (w))
    if (g_str_equal (G_OBJECT_TYPE_NAME (w), "AdwToastWidget"))
      return TRUE;
  return focus == NULL;
}

static void
on_undo (AdwToast *toast,
         Pending  *pending)
{
  PdSessionDeleter *self = pending->deleter;

  if (pending->settled || self == NULL)
    return;
  pending->settled = TRUE;
  pd_session_deleter_show (self, pending->source, pending->id, TRUE);
  /* Undo from the keyboard: the focus on the row come back, not left to
   * go where GTK puts it when the toast goes. */
  if (focus_in_toast (self))
    {
      g_autoptr(PdSessionList) list = g_weak_ref_get (&self->list);

      if (list != NULL)
        pd_session_list_focus_session (list, pending->id);
    }
  /* Undo puts things back as they were: a session that was shown is
   * shown again, not left behind the one the selection moved to. */
  if (pending->selected)
    {
      g_autoptr(PdSessionList) list = g_weak_ref_get (&self->list);

      if (list != NULL)
        pd_session_list_select (list, pending->id);
    }
  g_ptr_array_remove (self->pending, pending);
}

/**
 * pd_session_deleter_delete:
 * @source: the source @item lives in
 * @item: the session to delete
 */
void
pd_session_deleter_delete (PdSessionDeleter *self,
                           PdSource         *source,
                           PdSessionItem    *item)
{
  g_autoptr(AdwToastOverlay) toasts = g_weak_ref_get (&self->toasts);
  g_autoptr(PdSessionList) list = g_weak_ref_get (&self->list);
  Pending *pending;
  g_autofree char *escaped = NULL;
  g_autofree char *text = NULL;

  g_return_if_fail (PD_IS_SESSION_DELETER (self));
  g_return_if_fail (PD_IS_SOURCE (source));

  pending = g_new0 (Pending, 1);
  pending->deleter = self;
  pending->source = g_object_ref (source);
  pending->id = g_strdup (pd_session_item_get_id (item));
  /* A bidi override in a title would reverse the rest of the toast: made
   * visible, and the title isolated (see _pd_isolated_line()).  The toast
   * wraps: the title is whole, up to PD_TOAST_QUOTE_CHARS. */
  pending->title = _pd_toast_quote (pd_session_item_get_title (item));
  if (list != NULL)
    {
      PdSessionItem *selected = pd_session_list_get_selected_item (list);

      pending->selected = selected != NULL &&
                          g_strcmp0 (pd_session_item_get_id (selected), pending->id) == 0;
    }
  g_ptr_array_add (self->pending, pending);

  pd_session_deleter_show (self, pending->source, pending->id, FALSE);

  /* Toast titles are Pango markup; a title is anyone's text. */
  escaped = g_markup_escape_text (pending->title, -1);
  if (pd_session_item_is_imported (item))
    /* Translators: %s is a session's title */
    text = g_strdup_printf (_("“%s” removed from the list; the agent’s own transcript is kept"), escaped);
  else
    /* Translators: %s is a session's title */
    text = g_strdup_printf (_("“%s” deleted"), escaped);

  /* Normal priority: a second deletion's toast waits for the first one's. */
  pending->toast = adw_toast_new (text);
  adw_toast_set_button_label (pending->toast, _("_Undo"));
  if (toasts == NULL)
    {
      pending_delete (pending);
      return;
    }
  /* The overlay's own handlers first: ours may end the toast's life. */
  _pd_toast_add (GTK_WIDGET (toasts), g_object_ref (pending->toast));
  g_signal_connect (pending->toast, "button-clicked", G_CALLBACK (on_undo), pending);
  g_signal_connect (pending->toast, "dismissed", G_CALLBACK (on_toast_dismissed), pending);
}

/**
 * pd_session_deleter_flush:
 *
 * Deletes at once what waits for its toast to go: the window closes.
 */
void
pd_session_deleter_flush (PdSessionDeleter *self)
{
  g_return_if_fail (PD_IS_SESSION_DELETER (self));

  for (guint i = 0; i < self->pending->len; i++)
    pending_delete (g_ptr_array_index (self->pending, i));
}

static void
pd_session_deleter_dispose (GObject *object)
{
  PdSessionDeleter *self = PD_SESSION_DELETER (object);

  if (self->pending != NULL)
    {
      pd_session_deleter_flush (self);
      /* Deletions on their way finish without us. */
      for (guint i = 0; i < self->pending->len; i++)
        ((Pending *) g_ptr_array_index (self->pending, i))->deleter = NULL;
      g_ptr_array_set_free_func (self->pending, NULL);
      g_clear_pointer (&self->pending, g_ptr_array_unref);
    }

  G_OBJECT_CLASS (pd_session_deleter_parent_class)->dispose (object);
}

static void
pd_session_deleter_finalize (GObject *object)
{
  PdSessionDeleter *self = PD_SESSION_DELETER (object);

  g_weak_ref_clear (&self->toasts);
  g_weak_ref_clear (&self->list);

  G_OBJECT_CLASS (pd_session_deleter_parent_class)->finalize (object);
}

static void
pd_session_deleter_class_init (PdSessionDeleterClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = pd_session_deleter_dispose;
  object_class->finalize = pd_session_deleter_finalize;
}

static void
pd_session_deleter_init (PdSessionDeleter *self)
{
  self->pending = g_ptr_array_new_with_free_func ((GDestroyNotify) pending_free);
}

/**
 * pd_session_deleter_new:
 * @toasts: where Undo is offered
 * @list: the list deleted sessions leave
 *
 * Returns: (transfer full): a deleter
 */
PdSessionDeleter *
pd_session_deleter_new (AdwToastOverlay *toasts,
                        PdSessionList   *list)
{
  PdSessionDeleter *self = g_object_new (PD_TYPE_SESSION_DELETER, NULL);

  g_weak_ref_set (&self->toasts, toasts);
  g_weak_ref_set (&self->list, list);

  return self;
}
