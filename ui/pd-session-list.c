/* pd-session-list.c: the sidebar's searchable list of sessions
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Asks its PdSource for a listing (with the search query, if any) and
 * merges the reply into a PdSessionListModel shown by a GtkListView.  Each
 * new request cancels the one in flight, and a reply that is not the
 * answer to the newest request is dropped, so typing fast never shows an
 * older query's results.  The row menu renames and pins through the
 * source; the source's ::changed then brings the new listing.  A change
 * while a page is on its way does not cancel it: the page is merged and
 * the top read again once, however many changes came meanwhile.  An
 * endpoint whose database another process wrote every half second had
 * each listing cancelled by the next change: 49 asked in 38 s, none
 * answered, and the list never showed them (tried as an attacker would).
 *
 * A listing arrives in pages, one page a frame: the first frame needs only
 * the rows it can show, and GtkListView (GTK 4.8) builds a row widget for
 * each of the first 200 items it is given at once, whatever its height.  So
 * the first page is small, the pages that fill those 200 rows come one
 * after each frame, and the rest in the store's largest pages.  A refresh
 * (the source's ::changed) reads again from the top and stops at the first
 * page that changes nothing once the counts agree: a change moves its
 * session to the top (the order is pinned, then most recently updated), so
 * a 100,000-session list costs a page or two per change, not the whole
 * listing.  A change that neither moves a session nor changes the count (a
 * rename deep in the list by another process) shows with the next full
 * listing; a rename made here reads that session again at once.
 */
#define G_LOG_DOMAIN "pd-session-list"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-session-list-private.h"
#include "pd-session-row.h"
#include "pd-ui-util-private.h"


G_DEFINE_FINAL_TYPE (PdSessionList, pd_session_list, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_SOURCE,
  PROP_SELECTED_ITEM,
  PROP_LOADED,
  N_PROPS
};

enum {
  SESSION_ACTIVATED,
  LOAD_FAILED,
  SEARCH_COUNTED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

void
_pd_session_list_update_empty (PdSessionList *self)
{
  gboolean empty = g_list_model_get_n_items (G_LIST_MODEL (self->shown)) == 0;

  /* "No Sessions" is what the source answered, never a guess before it
   * did: until then a spinner, stopped when the source cannot answer (the
   * window's page says why). */
  _pd_spinner_set_wanted (self->loading_spinner,
                          !self->loaded && self->source != NULL && !self->load_failed);
  if (!self->loaded && empty)
    {
      gtk_stack_set_visible_child_name (self->list_stack, "loading");
      return;
    }

  /* "No Matching Sessions" said of the source chosen beside matches of
   * another (tried as a new user would): where they are, instead. */
  if (self->query != NULL && self->query[0] != '\0' && self->found_elsewhere != NULL)
    {
      /* Translators: a search found nothing in the source chosen; %s names
       * the other sources it found sessions in ("Build box") */
      g_autofree char *found = g_strdup_printf (_("Found in %s: choose All Sources to see them"),
                                                self->found_elsewhere);
      gtk_label_set_text (self->empty_label, found);
    }
  else if (self->query != NULL && self->query[0] != '\0')
    gtk_label_set_text (self->empty_label, _("No Matching Sessions"));
  else
    gtk_label_set_text (self->empty_label, _("No Sessions"));

  gtk_stack_set_visible_child_name (self->list_stack, empty ? "empty" : "list");
}

/* The count of a search's matches, told to a screen reader ("3 sessions
 * found"), or nothing told once the search is emptied.  GTK 4.8 has no
 * announcement (gtk_accessible_announce() came in 4.14), no live region
 * and no text events for a label; what its AT-SPI backend does send is a
 * change of name or description (object:property-change).  So the count
 * is the search field's description, set on the field and on its text
 * (the widget that holds the focus, which a screen reader follows): the
 * reader hears it as the field's description changes while the person
 * types (a screen reader learned nothing of a search's result before). */
void
_pd_session_list_tell_count (PdSessionList *self,
                             gint           n)
{
  GtkWidget *entry = GTK_WIDGET (self->search_entry);
  GtkEditable *text = gtk_editable_get_delegate (GTK_EDITABLE (entry));
  g_autofree char *told = NULL;

  if (n < 0)
    {
      gtk_accessible_reset_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
      if (text != NULL)
        gtk_accessible_reset_property (GTK_ACCESSIBLE (text), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION);
      return;
    }
  if (n == 0)
    told = g_strdup (_("No sessions found"));
  else
    told = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%d session found", "%d sessions found", n), n);
  _pd_accessible_set_text (entry, NULL, told);
  if (text != NULL)
    _pd_accessible_set_text (GTK_WIDGET (text), NULL, told);
}

/* The first session is picked as the list loads only while one is to be
 * open and shown in the list: never during a search (the first match
 * opened itself, and Escape opened yet another, tried as a new user
 * would), nor while no session is open (the Overview). */
void
_pd_session_list_update_autoselect (PdSessionList *self)
{
  gtk_single_selection_set_autoselect (self->selection,
                                       self->query == NULL && self->kept == NULL && !self->none_open);
}

/* The position of @id in the list as shown (the selection's positions):
 * the model's own unless sessions are hidden. */
gboolean
_pd_session_list_find_shown (PdSessionList *self,
                             const char    *id,
                             guint         *position)
{
  PdSessionItem *item = pd_session_list_model_find (self->model, id, position);
  guint n;

  if (item == NULL || g_hash_table_size (self->hidden) == 0)
    return item != NULL;
  if (g_hash_table_contains (self->hidden, id))
    return FALSE;

  /* Only while a deletion waits for its Undo: a walk is fine. */
  n = g_list_model_get_n_items (G_LIST_MODEL (self->shown));
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PdSessionItem) shown = g_list_model_get_item (G_LIST_MODEL (self->shown), i);

      if (shown == item)
        {
          *position = i;
          return TRUE;
        }
    }
  return FALSE;
}

/* The session whose row has the keyboard focus, or NULL. */
const char *
_pd_session_list_focused_id (PdSessionList *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  GtkWidget *row;

  if (focus == NULL || !gtk_widget_is_ancestor (focus, GTK_WIDGET (self->list_view)))
    return NULL;
  row = gtk_widget_get_first_child (focus);
  if (row == NULL || !PD_IS_SESSION_ROW (row) || pd_session_row_get_item (PD_SESSION_ROW (row)) == NULL)
    return NULL;
  return pd_session_item_get_id (pd_session_row_get_item (PD_SESSION_ROW (row)));
}

/* A merge moved the session @id whose row had the focus: GTK 4.8's list
 * recycled that row's widget and put the focus on its last row, scrolled
 * to the end (a removal's toast gone, ~5 s after Remove From List; tried
 * as a new user would, with a screen reader).  The focus goes back to
 * that session's row, scrolled to. */
void
_pd_session_list_keep_focus (PdSessionList *self,
                             const char    *id)
{
  guint position;

  if (id == NULL || g_strcmp0 (_pd_session_list_focused_id (self), id) == 0)
    return;
  if (!_pd_session_list_find_shown (self, id, &position))
    return;
  gtk_widget_activate_action (GTK_WIDGET (self->list_view), "list.scroll-to-item", "u", position);
  pd_session_list_focus_session (self, id);
}

static void
on_source_changed (PdSessionList *self)
{
  PdSessionItem *selected = gtk_single_selection_get_selected_item (self->selection);

  /* A page on its way is merged first, then the top read again. */
  if (self->cancellable != NULL)
    self->stale = TRUE;
  else
    pd_session_list_refresh (self);
  /* A refresh reads the top page: another agent's session further down
   * whose checklist was ticked on the Now page keeps its place (a tick
   * is no activity), and its row kept the old count until a restart
   * (tried as a new user would, 577 sessions listed).  The row shown is
   * read again where it is. */
  if (selected != NULL && pd_session_item_is_imported (selected))
    _pd_session_list_reread_session (self, pd_session_item_get_id (selected));
}

static gboolean
on_time_tick (gpointer user_data)
{
  PdSessionList *self = PD_SESSION_LIST (user_data);
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();

  pd_session_list_model_update_times (self->model, now);

  return G_SOURCE_CONTINUE;
}

static void
on_selection_changed (PdSessionList *self)
{
  gboolean picked;

  if (self->merging)
    return;

  /* A row picked: that session is the open one (told first, while the
   * list still says it picks none by itself). */
  picked = gtk_single_selection_get_selected_item (self->selection) != NULL &&
           (self->kept != NULL || self->none_open);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_ITEM]);
  if (picked && gtk_single_selection_get_selected_item (self->selection) != NULL)
    {
      g_clear_object (&self->kept);
      self->none_open = FALSE;
      _pd_session_list_update_autoselect (self);
    }
}

static void
on_list_view_activate (PdSessionList *self,
                       guint          position)
{
  g_autoptr(PdSessionItem) item = g_list_model_get_item (G_LIST_MODEL (self->shown), position);

  /* Enter on the row the arrows moved to: that session opens. */
  if (item != NULL)
    {
      gtk_single_selection_set_selected (self->selection, position);
      g_signal_emit (self, signals[SESSION_ACTIVATED], 0, item);
    }
}

static void
on_search_changed (PdSessionList *self)
{
  pd_session_list_set_query (self, gtk_editable_get_text (GTK_EDITABLE (self->search_entry)),
                             gtk_toggle_button_get_active (self->full_text_toggle));
}

/* The search closed with the focus in it: back where it was as the search
 * opened, when that can take it, else by the window (win.search-closed):
 * a hidden page's step, a row of the list (shows another session now).
 * It went on the list's first row (tried with a screen reader and the
 * keyboard: a11y-after search-typed, search-real-keys-360). */
static void
on_search_stopped (PdSessionList *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  /* Or moved out of it: GTK's search bar closes first on Escape, and the
   * focus went to the filtered list's first row (tried as a new user
   * would, nu19 #5; test window-polish). */
  gboolean inside = focus != NULL && (gtk_widget_is_ancestor (focus, GTK_WIDGET (self->search_bar)) ||
                                      (self->search_from != NULL &&
                                       gtk_widget_is_ancestor (focus, GTK_WIDGET (self->list_view))));

  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), "");
  gtk_search_bar_set_search_mode (self->search_bar, FALSE);
  if (inside && (self->search_from == NULL || gtk_widget_get_root (self->search_from) != root ||
                 !gtk_widget_get_mapped (self->search_from) ||
                 gtk_widget_is_ancestor (self->search_from, GTK_WIDGET (self->list_view)) ||
                 !_pd_search_may_return_to (self->search_from) ||
                 !_pd_list_box_refocus (self->search_from)))
    gtk_widget_activate_action (GTK_WIDGET (self), "win.search-closed", NULL);
  g_clear_weak_pointer (&self->search_from);
}

void
_pd_session_list_emit_activated (PdSessionList *self,
                                 PdSessionItem *item)
{
  g_signal_emit (self, signals[SESSION_ACTIVATED], 0, item);
}

void
_pd_session_list_emit_failed (PdSessionList *self,
                              const GError  *error)
{
  g_signal_emit (self, signals[LOAD_FAILED], 0, error);
}

void
_pd_session_list_emit_counted (PdSessionList *self,
                               gint           n)
{
  g_signal_emit (self, signals[SEARCH_COUNTED], 0, n);
}

void
_pd_session_list_notify_loaded (PdSessionList *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADED]);
}

void
_pd_session_list_notify_selected (PdSessionList *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_ITEM]);
}


/* --- GObject ------------------------------------------------------------ */

static void
pd_session_list_dispose (GObject *object)
{
  PdSessionList *self = PD_SESSION_LIST (object);

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  _pd_session_list_cancel_next (self);
  g_clear_weak_pointer (&self->search_from);
  _pd_session_list_dispose_top (self);
  g_clear_handle_id (&self->time_source, g_source_remove);
  if (self->source != NULL)
    g_clear_signal_handler (&self->changed_handler, self->source);
  g_clear_object (&self->source);
  _pd_session_list_dispose_menu (self);

  gtk_widget_dispose_template (GTK_WIDGET (self), PD_TYPE_SESSION_LIST);

  g_clear_object (&self->kept);
  g_clear_object (&self->selection);
  g_clear_object (&self->shown);
  g_clear_object (&self->model);

  G_OBJECT_CLASS (pd_session_list_parent_class)->dispose (object);
}

static void
pd_session_list_finalize (GObject *object)
{
  PdSessionList *self = PD_SESSION_LIST (object);

  g_free (self->query);
  g_free (self->found_elsewhere);
  g_clear_pointer (&self->hidden, g_hash_table_unref);

  G_OBJECT_CLASS (pd_session_list_parent_class)->finalize (object);
}

static void
pd_session_list_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  PdSessionList *self = PD_SESSION_LIST (object);

  switch (prop_id)
    {
    case PROP_SOURCE:
      g_value_set_object (value, self->source);
      break;
    case PROP_SELECTED_ITEM:
      g_value_set_object (value, pd_session_list_get_selected_item (self));
      break;
    case PROP_LOADED:
      g_value_set_boolean (value, self->loaded);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_session_list_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  PdSessionList *self = PD_SESSION_LIST (object);

  switch (prop_id)
    {
    case PROP_SOURCE:
      pd_session_list_set_source (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_session_list_class_init (PdSessionListClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pd_session_list_dispose;
  object_class->finalize = pd_session_list_finalize;
  object_class->get_property = pd_session_list_get_property;
  object_class->set_property = pd_session_list_set_property;

  properties[PROP_SOURCE] =
    g_param_spec_object ("source", NULL, NULL, PD_TYPE_SOURCE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SELECTED_ITEM] =
    g_param_spec_object ("selected-item", NULL, NULL, PD_TYPE_SESSION_ITEM,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * PdSessionList:loaded:
   *
   * Whether a listing has arrived since the source was set.
   */
  properties[PROP_LOADED] =
    g_param_spec_boolean ("loaded", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * PdSessionList::session-activated:
   *
   * A person picked a session (Enter, double click); a folded window
   * shows it.
   */
  signals[SESSION_ACTIVATED] =
    g_signal_new ("session-activated", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, PD_TYPE_SESSION_ITEM);
  /**
   * PdSessionList::load-failed:
   *
   * The source could not list or change sessions.
   */
  signals[LOAD_FAILED] =
    g_signal_new ("load-failed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_ERROR);
  /* A new search's count, once known (the source's own). */
  signals[SEARCH_COUNTED] =
    g_signal_new ("search-counted", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);

  g_type_ensure (PD_TYPE_SESSION_ROW);
  g_type_ensure (PD_TYPE_SESSION_ITEM);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/plandeck/Plandeck/ui/pd-session-list.ui");
  gtk_widget_class_bind_template_child (widget_class, PdSessionList, search_bar);
  gtk_widget_class_bind_template_child (widget_class, PdSessionList, search_entry);
  gtk_widget_class_bind_template_child (widget_class, PdSessionList, note_label);
  gtk_widget_class_bind_template_child (widget_class, PdSessionList, full_text_toggle);
  gtk_widget_class_bind_template_child (widget_class, PdSessionList, list_stack);
  gtk_widget_class_bind_template_child (widget_class, PdSessionList, list_view);
  gtk_widget_class_bind_template_child (widget_class, PdSessionList, empty_label);
  gtk_widget_class_bind_template_child (widget_class, PdSessionList, loading_spinner);
  gtk_widget_class_bind_template_callback (widget_class, on_search_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_search_stopped);
  gtk_widget_class_bind_template_callback (widget_class, on_list_view_activate);
  _pd_session_list_class_init_menu (widget_class);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "session-list");
  /* A group, named "Sessions" (issue 23). */
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
pd_session_list_init (PdSessionList *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  _pd_stack_tab_shown_only (self->list_stack);
  self->resume_offset = PD_SESSION_LIST_NO_OFFSET;
  gtk_orientable_set_orientation (GTK_ORIENTABLE (gtk_widget_get_layout_manager (GTK_WIDGET (self))),
                                  GTK_ORIENTATION_VERTICAL);

  self->model = pd_session_list_model_new ();
  self->hidden = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->shown = gtk_filter_list_model_new (G_LIST_MODEL (g_object_ref (self->model)), NULL);
  self->selection = gtk_single_selection_new (G_LIST_MODEL (g_object_ref (self->shown)));
  _pd_session_list_init_top (self);
  g_signal_connect_swapped (self->selection, "notify::selected-item",
                            G_CALLBACK (on_selection_changed), self);
  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (self->selection));

  _pd_session_list_init_menu (self);

  gtk_search_entry_set_search_delay (self->search_entry, 150);

  /* "5 min ago" must not go stale while the window stays open. */
  self->time_source = g_timeout_add_seconds (30, on_time_tick, self);

  _pd_session_list_update_empty (self);
}

PdSource *
pd_session_list_get_source (PdSessionList *self)
{
  g_return_val_if_fail (PD_IS_SESSION_LIST (self), NULL);

  return self->source;
}

/**
 * pd_session_list_set_source:
 * @source: (nullable): where the sessions come from
 *
 * Lists the sessions of @source now and again on each of its ::changed.
 */
void
pd_session_list_set_source (PdSessionList *self,
                            PdSource      *source)
{
  g_return_if_fail (PD_IS_SESSION_LIST (self));
  g_return_if_fail (source == NULL || PD_IS_SOURCE (source));

  if (self->source == source)
    return;

  if (self->source != NULL)
    g_clear_signal_handler (&self->changed_handler, self->source);
  _pd_session_list_cancel_reread (self);
  g_set_object (&self->source, source);
  if (source != NULL)
    self->changed_handler = g_signal_connect_swapped (source, "changed",
                                                      G_CALLBACK (on_source_changed), self);

  self->loaded = FALSE;
  /* A search goes on in the source chosen: its count is told anew. */
  self->tell = self->query != NULL;
  g_clear_pointer (&self->found_elsewhere, g_free);
  self->load_failed = FALSE;
  /* Another source's listing: its first session is picked (the Overview
   * leaves it unselected again). */
  g_clear_object (&self->kept);
  /* The rows of the source before go, their ids being its own: an
   * endpoint's, kept under All Sources while an endpoint hung, read as
   * this computer's ("session … not found", tried as a new user would). */
  if (g_list_model_get_n_items (G_LIST_MODEL (self->model)) > 0)
    {
      g_autoptr(GPtrArray) none = g_ptr_array_new ();
      g_autoptr(GDateTime) now = g_date_time_new_now_utc ();

      pd_session_list_model_merge (self->model, none, now);
    }
  self->none_open = FALSE;
  _pd_session_list_update_autoselect (self);
  _pd_session_list_restart (self);
  _pd_session_list_update_empty (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SOURCE]);
}

/**
 * pd_session_list_get_model:
 *
 * Returns: (transfer none): the listed sessions
 */
PdSessionListModel *
pd_session_list_get_model (PdSessionList *self)
{
  g_return_val_if_fail (PD_IS_SESSION_LIST (self), NULL);

  return self->model;
}

/**
 * pd_session_list_get_selected_item:
 *
 * Returns: (transfer none) (nullable): the selected session
 */
PdSessionItem *
pd_session_list_get_selected_item (PdSessionList *self)
{
  PdSessionItem *selected;

  g_return_val_if_fail (PD_IS_SESSION_LIST (self), NULL);

  selected = gtk_single_selection_get_selected_item (self->selection);
  return selected != NULL ? selected : self->kept;
}

/**
 * pd_session_list_unselect:
 *
 * No session is open (the window shows its Overview): no row looks
 * selected, and none is picked as the list loads, until one is picked.  A
 * row of the first session looked selected on the Overview (tried as a new
 * user would).
 */
void
pd_session_list_unselect (PdSessionList *self)
{
  g_return_if_fail (PD_IS_SESSION_LIST (self));

  if (self->none_open && pd_session_list_get_selected_item (self) == NULL)
    return;
  self->none_open = TRUE;
  g_clear_object (&self->kept);
  _pd_session_list_update_autoselect (self);
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_ITEM]);
}

/**
 * pd_session_list_get_autoselect:
 *
 * Returns: whether the list picks its first session as it loads (never
 *   while no session is to be open, nor during a search)
 */
gboolean
pd_session_list_get_autoselect (PdSessionList *self)
{
  g_return_val_if_fail (PD_IS_SESSION_LIST (self), FALSE);

  return gtk_single_selection_get_autoselect (self->selection);
}

/**
 * pd_session_list_select:
 *
 * Returns: %TRUE when session @id is listed and now selected
 */
gboolean
pd_session_list_select (PdSessionList *self,
                        const char    *id)
{
  guint position;

  g_return_val_if_fail (PD_IS_SESSION_LIST (self), FALSE);

  if (!_pd_session_list_find_shown (self, id, &position))
    return FALSE;

  gtk_single_selection_set_selected (self->selection, position);
  /* Selected for the user (a new session, one opened from elsewhere): its
   * row is brought into view.  A new session, on top, sat above the part
   * of the list that was scrolled to (tried as a new user would, after a
   * delete further down).  GTK 4.8 has no gtk_list_view_scroll_to(). */
  gtk_widget_activate_action (GTK_WIDGET (self->list_view), "list.scroll-to-item", "u", position);
  return TRUE;
}

/**
 * pd_session_list_set_query:
 * @query: (nullable): words to look for; %NULL or "" lists all
 * @full_text: search the transcripts too, not only titles and tasks
 */
void
pd_session_list_set_query (PdSessionList *self,
                           const char    *query,
                           gboolean       full_text)
{
  g_autofree char *stripped = NULL;

  g_return_if_fail (PD_IS_SESSION_LIST (self));

  stripped = g_strstrip (g_strdup (query != NULL ? query : ""));
  if (stripped[0] == '\0')
    g_clear_pointer (&stripped, g_free);

  if (g_strcmp0 (stripped, self->query) == 0 && (self->full_text == !!full_text || stripped == NULL))
    return;

  g_free (self->query);
  self->query = g_steal_pointer (&stripped);
  self->full_text = !!full_text;
  g_clear_pointer (&self->found_elsewhere, g_free);
  self->tell = self->query != NULL;
  self->search_top = self->query != NULL;
  if (self->query == NULL)
    _pd_session_list_tell_count (self, -1);
  _pd_session_list_update_autoselect (self);
  _pd_session_list_restart (self);
}

/* @names: (nullable): the other sources the search found sessions in
 * ("Build box"), said instead of "No Matching Sessions" until the search
 * or the source changes. */
void
pd_session_list_set_found_elsewhere (PdSessionList *self,
                                     const char    *names)
{
  g_return_if_fail (PD_IS_SESSION_LIST (self));

  g_free (self->found_elsewhere);
  self->found_elsewhere = g_strdup (names);
  _pd_session_list_update_empty (self);
}

const char *
pd_session_list_get_found_elsewhere (PdSessionList *self)
{
  g_return_val_if_fail (PD_IS_SESSION_LIST (self), NULL);
  return self->found_elsewhere;
}

gboolean
pd_session_list_get_full_text (PdSessionList *self)
{
  g_return_val_if_fail (PD_IS_SESSION_LIST (self), FALSE);
  return self->full_text;
}

/**
 * pd_session_list_set_note:
 * @note: (nullable): plain text over the list (what a search left out),
 *   %NULL for none
 */
void
pd_session_list_set_note (PdSessionList *self,
                          const char    *note)
{
  g_return_if_fail (PD_IS_SESSION_LIST (self));

  gtk_label_set_text (self->note_label, note != NULL ? note : "");
  gtk_widget_set_visible (GTK_WIDGET (self->note_label), note != NULL && note[0] != '\0');
}

/**
 * pd_session_list_start_search:
 *
 * Opens the search bar and puts the keyboard focus in its entry.
 */
void
pd_session_list_start_search (PdSessionList *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  g_return_if_fail (PD_IS_SESSION_LIST (self));

  /* Where the focus goes back when the search closes. */
  if (focus != NULL && !gtk_widget_is_ancestor (focus, GTK_WIDGET (self->search_bar)))
    g_set_weak_pointer (&self->search_from, focus);
  gtk_search_bar_set_search_mode (self->search_bar, TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

/**
 * pd_session_list_clear_search:
 *
 * Lists every session again: the search entry emptied, its bar closed.
 */
void
pd_session_list_clear_search (PdSessionList *self)
{
  g_return_if_fail (PD_IS_SESSION_LIST (self));

  on_search_stopped (self);
  pd_session_list_set_query (self, NULL, self->full_text);
}

gboolean
pd_session_list_get_loaded (PdSessionList *self)
{
  g_return_val_if_fail (PD_IS_SESSION_LIST (self), FALSE);

  return self->loaded;
}

/**
 * pd_session_list_get_generation:
 *
 * Returns: how many listings have been merged to their end (or to where
 *   nothing changed); tests wait on it
 */
guint
pd_session_list_get_generation (PdSessionList *self)
{
  g_return_val_if_fail (PD_IS_SESSION_LIST (self), 0);

  return self->replies;
}

/**
 * pd_session_list_get_query:
 *
 * Returns: (nullable): the search words in use, %NULL when listing all
 */
const char *
pd_session_list_get_query (PdSessionList *self)
{
  g_return_val_if_fail (PD_IS_SESSION_LIST (self), NULL);

  return self->query;
}

/**
 * pd_session_list_get_busy:
 *
 * Returns: whether a listing is on its way
 */
gboolean
pd_session_list_get_busy (PdSessionList *self)
{
  g_return_val_if_fail (PD_IS_SESSION_LIST (self), FALSE);

  return self->cancellable != NULL || self->next_tick != 0 || self->next_timeout != 0;
}

static gboolean
is_shown (gpointer item,
          gpointer user_data)
{
  PdSessionList *self = user_data;

  return !g_hash_table_contains (self->hidden, pd_session_item_get_id (item));
}

/**
 * pd_session_list_set_hidden:
 * @id: a session id
 * @hidden: whether the list leaves it out
 *
 * Hides a session the user deleted while the toast offers Undo (the
 * deletion is done when the toast goes), or shows it again.
 */
void
pd_session_list_set_hidden (PdSessionList *self,
                            const char    *id,
                            gboolean       hidden)
{
  g_autoptr(PdSessionItem) selected = NULL;
  guint was_at;
  gboolean changed;

  g_return_if_fail (PD_IS_SESSION_LIST (self));
  g_return_if_fail (id != NULL);

  changed = hidden ? g_hash_table_add (self->hidden, g_strdup (id)) : g_hash_table_remove (self->hidden, id);
  if (!changed)
    return;

  selected = gtk_single_selection_get_selected_item (self->selection);
  if (selected != NULL)
    g_object_ref (selected);
  was_at = gtk_single_selection_get_selected (self->selection);

  if (g_hash_table_size (self->hidden) == 0)
    gtk_filter_list_model_set_filter (self->shown, NULL);
  else
    {
      g_autoptr(GtkFilter) filter = GTK_FILTER (gtk_custom_filter_new (is_shown, self, NULL));

      gtk_filter_list_model_set_filter (self->shown, filter);
    }

  /* The selected session hidden during a search, where the selection
   * does not move by itself: the next match is selected, as it is
   * without a search (the page said "No Matching Sessions" beside 29
   * matches; tried as a new user would). */
  if (selected != NULL && hidden && g_strcmp0 (pd_session_item_get_id (selected), id) == 0
      && gtk_single_selection_get_selected (self->selection) == GTK_INVALID_LIST_POSITION
      && was_at != GTK_INVALID_LIST_POSITION)
    {
      guint n = g_list_model_get_n_items (G_LIST_MODEL (self->shown));

      if (n > 0)
        gtk_single_selection_set_selected (self->selection, MIN (was_at, n - 1));
    }
  /* A session shown again keeps the selection where it was. */
  if (selected != NULL && !hidden)
    {
      guint position;

      if (_pd_session_list_find_shown (self, pd_session_item_get_id (selected), &position))
        gtk_single_selection_set_selected (self->selection, position);
    }
  _pd_session_list_update_empty (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_ITEM]);
}
