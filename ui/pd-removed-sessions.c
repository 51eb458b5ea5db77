/* pd-removed-sessions.c: Main Menu → Removed Sessions
 *
 * Remove From List only hides another agent's session (its transcript is
 * the agent's); once the toast's Undo was gone there was no way back, and
 * reading the agents' folders again kept it hidden (tried as a new user
 * would).  This window lists the sessions removed from this computer's
 * list, the latest first, each with Restore; a restored one is listed
 * again at once (::restored).  The database is read and written in a
 * worker thread.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-removed-sessions"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-removed-sessions.h"
#include "pd-safe-text.h"
#include "pd-session-item.h"
#include "pd-task-util.h"
#include "pd-ui-util-private.h"

struct _PdRemovedSessions
{
  AdwWindow        parent_instance;

  PdLocalSource   *source;
  GCancellable    *cancellable;
  AdwToastOverlay *toasts;
  GtkStack        *stack;
  GtkListBox      *list;
  gboolean         loaded;
};

G_DEFINE_FINAL_TYPE (PdRemovedSessions, pd_removed_sessions, ADW_TYPE_WINDOW)

enum {
  RESTORED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static char *
session_title (const PdSessionInfo *info)
{
  return pd_safe_text_line (info->name != NULL && info->name[0] != '\0' ? info->name
                            : info->task != NULL ? info->task : info->id);
}

/* --- the worker thread ---------------------------------------------------- */

static gpointer
list_worker (gpointer       object,
             gpointer       task_data,
             GCancellable  *cancellable,
             GError       **error)
{
  return pd_local_source_list_removed (task_data, error);
}

static void
restore_in_thread (GTask        *task,
                   gpointer      object,
                   gpointer      task_data,
                   GCancellable *cancellable)
{
  PdRemovedSessions *self = object;
  const char *id = task_data;
  g_autoptr(GError) error = NULL;

  if (!pd_local_source_restore (self->source, id, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

/* --- the window ----------------------------------------------------------- */

static void
show_toast (PdRemovedSessions *self,
            const char        *text)
{
  _pd_toast_add_text (GTK_WIDGET (self->toasts), text);
}

static void
sync_empty (PdRemovedSessions *self)
{
  gtk_stack_set_visible_child_name (self->stack,
                                    gtk_widget_get_first_child (GTK_WIDGET (self->list)) != NULL ? "list" : "empty");
}

static void
on_restored (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(GtkWidget) row = user_data;
  PdRemovedSessions *self = PD_REMOVED_SESSIONS (object);
  g_autoptr(GError) error = NULL;
  const char *title = g_object_get_data (G_OBJECT (row), "pd-title");
  const char *id = g_object_get_data (G_OBJECT (row), "pd-id");

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      /* Translators: %s is a session's title, then why it could not be restored */
      g_autofree char *text = g_strdup_printf (_("Could not restore “%s”: %s"), title, error->message);

      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        show_toast (self, text);
      gtk_widget_set_sensitive (row, TRUE);
      return;
    }

  {
    /* Bounded, as the deleter's (_pd_toast_quote()). */
    g_autofree char *quoted = _pd_toast_quote (title);
    /* Translators: %s is a session's title */
    g_autofree char *text = g_strdup_printf (_("“%s” is back in the list"), quoted);

    show_toast (self, text);
  }
  if (gtk_widget_get_parent (row) == GTK_WIDGET (self->list))
    gtk_list_box_remove (self->list, row);
  sync_empty (self);
  g_signal_emit (self, signals[RESTORED], 0, id);
}

static void
on_restore_clicked (GtkButton *button,
                    GtkWidget *row)
{
  PdRemovedSessions *self = PD_REMOVED_SESSIONS (gtk_widget_get_root (row));
  g_autoptr(GTask) task = g_task_new (self, self->cancellable, on_restored, g_object_ref (row));

  gtk_widget_set_sensitive (row, FALSE);
  g_task_set_source_tag (task, on_restore_clicked);
  g_task_set_task_data (task, g_strdup (g_object_get_data (G_OBJECT (row), "pd-id")), g_free);
  g_task_run_in_thread (task, restore_in_thread);
}

/* "A · B": the parts of a row's subtitle. */
static char *
joined (char       *first,
        const char *second)
{
  g_autofree char *owned = first;

  /* Translators: an agent's name and a session's folder, e.g. "Claude Code · ~/src/app" */
  return g_strdup_printf (_("%s · %s"), owned, second);
}

/* A row says the session's agent, when it last changed, its folder and,
 * when another removed session has the same title, the start of its id:
 * two sessions of one title were two rows alike (tried as a new user
 * would). */
static char *
row_subtitle (const PdSessionInfo *info,
              GDateTime           *now,
              gboolean             same_title)
{
  g_autofree char *folder = info->cwd != NULL && info->cwd[0] != '\0' ? pd_safe_text_line (info->cwd) : NULL;
  g_autofree char *when = info->updated_at > 0 ? pd_format_relative_time (info->updated_at, now) : NULL;
  char *subtitle = pd_safe_text_line (pd_session_source_label (info->source));

  if (when != NULL && when[0] != '\0')
    subtitle = joined (subtitle, when);
  if (same_title && info->id != NULL)
    {
      /* YYYYMMDD- and 8 of its 32 hex digits */
      g_autofree char *short_id = pd_safe_text_line (info->id);

      if (g_utf8_strlen (short_id, -1) > 17)
        *g_utf8_offset_to_pointer (short_id, 17) = '\0';
      subtitle = joined (subtitle, short_id);
    }
  /* Last: the longest, wrapped rather than cut. */
  if (folder != NULL)
    subtitle = joined (subtitle, folder);
  return subtitle;
}

static GtkWidget *
make_row (const PdSessionInfo *info,
          GDateTime           *now,
          gboolean             same_title)
{
  GtkWidget *row = gtk_list_box_row_new ();
  GtkWidget *box = _pd_row_box_new ();
  GtkWidget *text = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  g_autofree char *title = session_title (info);
  g_autofree char *subtitle = row_subtitle (info, now, same_title);
  GtkWidget *title_label = gtk_label_new (title);
  GtkWidget *subtitle_label = gtk_label_new (subtitle);
  GtkWidget *restore = gtk_button_new_with_mnemonic (_("_Restore"));
  /* Translators: %s is a session's title; said of its Restore button */
  g_autofree char *restore_name = g_strdup_printf (_("Restore “%s”"), title);

  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), FALSE);

  /* Plain text: titles and folders are anyone's. */
  gtk_label_set_use_markup (GTK_LABEL (title_label), FALSE);
  gtk_label_set_use_markup (GTK_LABEL (subtitle_label), FALSE);
  gtk_label_set_xalign (GTK_LABEL (title_label), 0);
  gtk_label_set_xalign (GTK_LABEL (subtitle_label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (title_label), PANGO_ELLIPSIZE_END);
  /* Wrapped: cut in its middle, the date and the id were lost at 360 px. */
  gtk_label_set_wrap (GTK_LABEL (subtitle_label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (subtitle_label), PANGO_WRAP_WORD_CHAR);
  gtk_widget_add_css_class (subtitle_label, "dim-label");
  gtk_widget_add_css_class (subtitle_label, "caption");
  gtk_widget_set_hexpand (text, TRUE);
  gtk_widget_set_valign (text, GTK_ALIGN_CENTER);
  gtk_box_append (GTK_BOX (text), title_label);
  gtk_box_append (GTK_BOX (text), subtitle_label);

  gtk_widget_set_valign (restore, GTK_ALIGN_CENTER);
  _pd_accessible_set_text (GTK_WIDGET (restore), restore_name, NULL);
  gtk_box_append (GTK_BOX (box), text);
  gtk_box_append (GTK_BOX (box), restore);
  gtk_list_box_row_set_child (GTK_LIST_BOX_ROW (row), box);
  _pd_accessible_set_text (GTK_WIDGET (row), title, subtitle);

  g_object_set_data_full (G_OBJECT (row), "pd-id", g_strdup (info->id), g_free);
  g_object_set_data_full (G_OBJECT (row), "pd-title", g_steal_pointer (&title), g_free);
  g_signal_connect (restore, "clicked", G_CALLBACK (on_restore_clicked), row);
  return row;
}

static void
on_listed (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  PdRemovedSessions *self = PD_REMOVED_SESSIONS (object);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) sessions = g_task_propagate_pointer (G_TASK (result), &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self->loaded = TRUE;
  if (sessions == NULL)
    {
      /* Translators: %s says why the database could not be read */
      g_autofree char *text = g_strdup_printf (_("Could not read the removed sessions: %s"), error->message);

      show_toast (self, text);
      sync_empty (self);
      return;
    }
  {
    g_autoptr(GDateTime) now = g_date_time_new_now_local ();
    g_autoptr(GHashTable) titles = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

    for (guint i = 0; i < sessions->len; i++)
      {
        g_autofree char *title = session_title (g_ptr_array_index (sessions, i));
        guint seen = GPOINTER_TO_UINT (g_hash_table_lookup (titles, title));

        g_hash_table_insert (titles, g_steal_pointer (&title), GUINT_TO_POINTER (seen + 1));
      }
    for (guint i = 0; i < sessions->len; i++)
      {
        const PdSessionInfo *info = g_ptr_array_index (sessions, i);
        g_autofree char *title = session_title (info);

        gtk_list_box_append (self->list,
                             make_row (info, now, GPOINTER_TO_UINT (g_hash_table_lookup (titles, title)) > 1));
      }
  }
  sync_empty (self);
}

static void
pd_removed_sessions_dispose (GObject *object)
{
  PdRemovedSessions *self = PD_REMOVED_SESSIONS (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->source);

  G_OBJECT_CLASS (pd_removed_sessions_parent_class)->dispose (object);
}

static void
pd_removed_sessions_class_init (PdRemovedSessionsClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pd_removed_sessions_dispose;

  /**
   * PdRemovedSessions::restored:
   * @id: the session listed again
   */
  signals[RESTORED] = g_signal_new ("restored", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                    NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
pd_removed_sessions_init (PdRemovedSessions *self)
{
  GtkWidget *content = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *clamp = adw_clamp_new ();
  GtkWidget *inner = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *explanation = gtk_label_new (_("Sessions of other agents removed from the list. Their transcripts "
                                            "stay the agents’ own; Restore lists one here again."));
  GtkWidget *empty = adw_status_page_new ();

  _pd_window_keep_role (GTK_WINDOW (self));
  self->cancellable = g_cancellable_new ();
  gtk_window_set_title (GTK_WINDOW (self), _("Removed Sessions"));
  gtk_window_set_default_size (GTK_WINDOW (self), 560, 480);
  gtk_window_set_modal (GTK_WINDOW (self), TRUE);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (self), TRUE);

  gtk_label_set_wrap (GTK_LABEL (explanation), TRUE);
  gtk_label_set_xalign (GTK_LABEL (explanation), 0);
  gtk_widget_add_css_class (explanation, "dim-label");

  self->list = GTK_LIST_BOX (gtk_list_box_new ());
  gtk_list_box_set_selection_mode (self->list, GTK_SELECTION_NONE);
  gtk_widget_add_css_class (GTK_WIDGET (self->list), "boxed-list");
  _pd_accessible_set_text (GTK_WIDGET (self->list), _("Removed sessions"), NULL);

  gtk_widget_set_margin_top (inner, 18);
  gtk_widget_set_margin_bottom (inner, 18);
  gtk_widget_set_margin_start (inner, 12);
  gtk_widget_set_margin_end (inner, 12);
  gtk_box_append (GTK_BOX (inner), explanation);
  gtk_box_append (GTK_BOX (inner), GTK_WIDGET (self->list));
  adw_clamp_set_child (ADW_CLAMP (clamp), inner);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scroller), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), clamp);
  gtk_widget_set_vexpand (scroller, TRUE);

  adw_status_page_set_icon_name (ADW_STATUS_PAGE (empty), "user-trash-symbolic");
  adw_status_page_set_title (ADW_STATUS_PAGE (empty), _("No Removed Sessions"));
  adw_status_page_set_description (ADW_STATUS_PAGE (empty),
                                   _("Another agent’s session removed from the list shows here, to be restored."));
  /* Nothing removed, nothing to do: no Tab stop on the page's scroller. */
  _pd_status_pages_tab_to_controls (empty);

  self->stack = GTK_STACK (gtk_stack_new ());
  /* Titled: a screen reader names a page by its title (GTK 4.8 said
   * "GtkStackPage"). */
  gtk_stack_add_titled (self->stack, gtk_label_new (NULL), "loading", _("Loading Sessions"));
  gtk_stack_add_titled (self->stack, scroller, "list", _("Removed Sessions"));
  gtk_stack_add_titled (self->stack, empty, "empty", _("No Removed Sessions"));
  gtk_widget_set_vexpand (GTK_WIDGET (self->stack), TRUE);

  self->toasts = ADW_TOAST_OVERLAY (adw_toast_overlay_new ());
  adw_toast_overlay_set_child (self->toasts, GTK_WIDGET (self->stack));
  gtk_box_append (GTK_BOX (content), header);
  gtk_box_append (GTK_BOX (content), GTK_WIDGET (self->toasts));
  adw_window_set_content (ADW_WINDOW (self), content);
  _pd_name_tooltip_buttons (GTK_WIDGET (self));
}

/**
 * pd_removed_sessions_new:
 * @parent: the window whose list the sessions come back to
 * @source: this computer's database
 *
 * Returns: (transfer full): the window, reading the removed sessions
 */
PdRemovedSessions *
pd_removed_sessions_new (GtkWindow     *parent,
                         PdLocalSource *source)
{
  PdRemovedSessions *self = g_object_new (PD_TYPE_REMOVED_SESSIONS, "transient-for", parent, NULL);
  g_autoptr(GTask) task = NULL;

  g_return_val_if_fail (PD_IS_LOCAL_SOURCE (source), NULL);

  self->source = g_object_ref (source);
  task = g_task_new (self, self->cancellable, on_listed, NULL);
  g_task_set_source_tag (task, pd_removed_sessions_new);
  g_task_set_task_data (task, g_object_ref (source), g_object_unref);
  pd_task_run_worker (task, list_worker, (GDestroyNotify) g_ptr_array_unref);
  return self;
}

/* Whether the removed sessions were read (the list or the empty page shows). */
gboolean
pd_removed_sessions_get_loaded (PdRemovedSessions *self)
{
  g_return_val_if_fail (PD_IS_REMOVED_SESSIONS (self), FALSE);

  return self->loaded;
}
