/* pd-window-actions.c: the window's actions (win.*) and its menu of recent sources
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-window"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "pd-new-session-dialog.h"
#include "pd-preferences-window.h"
#include "pd-removed-sessions.h"
#include "pd-secrets.h"
#include "pd-session-export.h"
#include "pd-ui-util-private.h"
#include "pd-window-private.h"

#define MAX_RECENT_SHOWN 6

/* --- actions ------------------------------------------------------------ */

static GtkWidget *main_list      (GtkWidget *root);
static void       focus_open_row (PdWindow  *self);

static void
show_sessions_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);

  adw_leaflet_set_visible_child_name (self->leaflet, "sidebar");
  focus_open_row (self);
}

static void
search_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);
  GtkWidget *sidebar = adw_leaflet_get_child_by_name (self->leaflet, "sidebar");
  g_autoptr(GtkWidget) from = NULL;

  /* Search closes back where it was opened from: showing the sidebar put
   * the focus on the open row, and Escape left it in the list. */
  g_set_object (&from, gtk_root_get_focus (GTK_ROOT (self)));
  if (from != NULL && !gtk_widget_is_ancestor (from, GTK_WIDGET (self->session_list)) &&
      _pd_search_may_return_to (from))
    g_set_weak_pointer (&self->search_from, from);
  else if (from != NULL)
    g_clear_weak_pointer (&self->search_from);
  adw_leaflet_set_visible_child_name (self->leaflet, "sidebar");
  if (from != NULL && from != gtk_root_get_focus (GTK_ROOT (self)) && gtk_widget_get_mapped (from) &&
      (!adw_leaflet_get_folded (self->leaflet) || gtk_widget_is_ancestor (from, sidebar)))
    gtk_widget_grab_focus (from);
  pd_session_list_start_search (self->session_list);
}

static void
show_now_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);

  adw_view_stack_set_visible_child_name (self->view_stack, "now");
  if (g_strcmp0 (gtk_stack_get_visible_child_name (self->content_stack), "session") == 0)
    adw_leaflet_set_visible_child_name (self->leaflet, "content");
}

/* The pages of a shown session, in the switcher's order (Alt+1…4). */
static const char * const session_pages[] = { "now", "transcript", "events", "history" };

static gboolean
session_shown (PdWindow *self)
{
  return g_strcmp0 (gtk_stack_get_visible_child_name (self->content_stack), "session") == 0;
}

static void
show_page (PdWindow   *self,
           const char *name)
{
  g_autoptr(GtkWidget) focus = NULL;
  GtkWidget *content;

  /* On the Overview: a card's session, on that page, the focus in it. */
  if (!session_shown (self))
    {
      g_autofree char *before = g_strdup (adw_view_stack_get_visible_child_name (self->view_stack));

      adw_view_stack_set_visible_child_name (self->view_stack, name);
      if (_pd_window_overview_open_for_keys (self))
        {
          /* The Overview hidden with the focus in it, GTK may put the focus
           * in the message entry below the page: not the person's move,
           * the page gets it once it has read (a11y-states page-keys
           * failed 2 runs of 6 on it). */
          _pd_window_focus_opened (self);
          self->open_focus_in_page = self->open_focus_tick != 0;
        }
      else if (before != NULL)
        adw_view_stack_set_visible_child_name (self->view_stack, before);
      return;
    }
  focus = gtk_root_get_focus (GTK_ROOT (self));
  if (focus != NULL)
    g_object_ref (focus);
  adw_view_stack_set_visible_child_name (self->view_stack, name);
  adw_leaflet_set_visible_child_name (self->leaflet, "content");
  /* The focus goes into the page shown, to its main list, as F6 does.
   * Hiding the page it was in, or the leaflet's move, had put it on the
   * first button of a header ("New Session"; folded, the back button:
   * tried with the keyboard alone).  A focus in the bar below the pages
   * (the message entry) stays; one on a page tab (folded, the switcher
   * bar below the pages) goes into the page, as wide, where the tabs are
   * the header's: it had stayed on the tab left (tried with a screen
   * reader at 360 px). */
  content = gtk_widget_get_parent (GTK_WIDGET (self->content_stack));
  if (focus != NULL && gtk_widget_get_mapped (focus) && gtk_widget_is_ancestor (focus, content) &&
      !gtk_widget_is_ancestor (focus, GTK_WIDGET (self->view_stack)) &&
      gtk_widget_get_ancestor (focus, ADW_TYPE_HEADER_BAR) == NULL &&
      gtk_widget_get_ancestor (focus, ADW_TYPE_VIEW_SWITCHER_BAR) == NULL)
    {
      gtk_widget_grab_focus (focus);
      return;
    }
  _pd_window_focus_opened (self);
}

static void
show_page_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  const char *name = g_variant_get_string (parameter, NULL);

  if (g_strv_contains (session_pages, name))
    show_page (PD_WINDOW (widget), name);
}

/* Ctrl+Page Down and Up: the next or previous page, round. */
static void
cycle_page_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);
  const char *current = adw_view_stack_get_visible_child_name (self->view_stack);
  guint n = G_N_ELEMENTS (session_pages);
  guint index = 0;

  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (session_pages[i], current) == 0)
      index = i;
  index = g_str_equal (action_name, "win.next-page") ? (index + 1) % n : (index + n - 1) % n;
  show_page (self, session_pages[index]);
}

/* F6 and Shift+F6: between the session list and the session, as in a file
 * manager, landing where the person is: on the selected session's row, and
 * on the page's main list at its shown item (the History's shown version).
 * Focus went to the History's first version (v1 while v14 was shown), then
 * to the "Revision reason" text as if it were a field, then to a list row
 * that was not the open session (tried as a new user would). */

/* The first list of @root (depth first): a list view, a column view or a
 * list box, shown. */
static GtkWidget *
main_list (GtkWidget *root)
{
  if (!gtk_widget_get_mapped (root))
    return NULL;
  if (GTK_IS_LIST_VIEW (root) || GTK_IS_COLUMN_VIEW (root) || GTK_IS_LIST_BOX (root))
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *list = main_list (child);

      if (list != NULL)
        return list;
    }
  return NULL;
}

/* The session list's rows (a list view), shown or not. */
static GtkWidget *
session_rows (GtkWidget *root)
{
  if (GTK_IS_LIST_VIEW (root))
    return root;
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *rows = gtk_widget_get_visible (child) ? session_rows (child) : NULL;

      if (rows != NULL)
        return rows;
    }
  return NULL;
}

/* Whether @widget, a row's content or inside it, stands for @item: it
 * holds it as its "item", or shows its "label". */
static gboolean
shows_item (GtkWidget *widget,
            GObject   *item)
{
  GParamSpec *spec = g_object_class_find_property (G_OBJECT_GET_CLASS (widget), "item");

  if (spec != NULL && spec->value_type != G_TYPE_NONE && g_type_is_a (spec->value_type, G_TYPE_OBJECT))
    {
      g_autoptr(GObject) held = NULL;

      g_object_get (widget, "item", &held, NULL);
      if (held == item)
        return TRUE;
    }
  if (GTK_IS_LABEL (widget) && g_object_class_find_property (G_OBJECT_GET_CLASS (item), "label") != NULL)
    {
      g_autofree char *label = NULL;

      g_object_get (item, "label", &label, NULL);
      if (label != NULL && g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), label) == 0)
        return TRUE;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (shows_item (child, item))
      return TRUE;
  return FALSE;
}

/* Whether @widget is drawn see-through: the Events rows while they
 * settle at the newest. */
static gboolean
see_through (GtkWidget *widget)
{
  for (GtkWidget *w = widget; w != NULL; w = gtk_widget_get_parent (w))
    if (gtk_widget_get_opacity (w) == 0)
      return TRUE;
  return FALSE;
}

/* The row of @rows (a list view) that looks selected, else the topmost row
 * whose top is in sight, else the first partly in sight. */
static GtkWidget *
row_in_sight (GtkWidget *rows)
{
  int height = gtk_widget_get_height (rows);
  GtkWidget *best = NULL;
  float best_y = G_MAXFLOAT;

  for (GtkWidget *row = gtk_widget_get_first_child (rows); row != NULL; row = gtk_widget_get_next_sibling (row))
    {
      graphene_rect_t bounds;
      float y;

      if (!gtk_widget_get_child_visible (row) || !gtk_widget_get_mapped (row) ||
          !gtk_widget_compute_bounds (row, rows, &bounds))
        continue;
      if (bounds.origin.y + bounds.size.height <= 0 || bounds.origin.y >= height)
        continue;
      if (gtk_widget_get_state_flags (row) & GTK_STATE_FLAG_SELECTED)
        return row;
      /* Partly above the top: after every row whose top shows. */
      y = bounds.origin.y >= 0 ? bounds.origin.y : height - bounds.origin.y;
      if (y < best_y)
        {
          best = row;
          best_y = y;
        }
    }
  return best;
}

/* A column view: its selected row, else the row in sight. GTK 4.8's
 * column view given the focus takes it on its first row, far above the
 * newest events in sight, and none while that row is not laid out: F6
 * left the focus where it was, or on a row drawn see-through while the
 * rows settled (tried with the keyboard alone). */
static gboolean
focus_column_view_row (GtkWidget *list)
{
  GtkSelectionModel *model = gtk_column_view_get_model (GTK_COLUMN_VIEW (list));
  GtkWidget *rows = NULL;
  GtkWidget *row;
  guint position;

  for (GtkWidget *child = gtk_widget_get_first_child (list); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_VIEW (child))
      rows = child;
  if (rows == NULL || see_through (rows))
    return FALSE;
  if (GTK_IS_SINGLE_SELECTION (model) &&
      (position = gtk_single_selection_get_selected (GTK_SINGLE_SELECTION (model))) != GTK_INVALID_LIST_POSITION)
    gtk_widget_activate_action (rows, "list.scroll-to-item", "u", position);
  row = row_in_sight (rows);
  return row != NULL && gtk_widget_grab_focus (row);
}

/* Focuses @list's row of its selected item (GTK 4.8 has no call for it: a
 * list view given the focus takes it on its first row).  FALSE when the
 * row is not laid out yet. */
static gboolean
focus_selected_row (GtkWidget *list)
{
  GtkSelectionModel *model = NULL;
  g_autoptr(GObject) item = NULL;
  guint position;

  if (GTK_IS_COLUMN_VIEW (list))
    return focus_column_view_row (list);
  if (GTK_IS_LIST_BOX (list))
    {
      GtkListBoxRow *row = gtk_list_box_get_selected_row (GTK_LIST_BOX (list));

      return row != NULL ? gtk_widget_grab_focus (GTK_WIDGET (row)) : gtk_widget_child_focus (list, GTK_DIR_TAB_FORWARD);
    }
  model = gtk_list_view_get_model (GTK_LIST_VIEW (list));
  if (!GTK_IS_SINGLE_SELECTION (model) ||
      (position = gtk_single_selection_get_selected (GTK_SINGLE_SELECTION (model))) == GTK_INVALID_LIST_POSITION)
    return gtk_widget_child_focus (list, GTK_DIR_TAB_FORWARD);

  item = g_list_model_get_item (G_LIST_MODEL (model), position);
  gtk_widget_activate_action (list, "list.scroll-to-item", "u", position);
  for (GtkWidget *row = gtk_widget_get_first_child (list); row != NULL; row = gtk_widget_get_next_sibling (row))
    if (gtk_widget_get_child_visible (row) && gtk_widget_get_mapped (row) && shows_item (row, item))
      return gtk_widget_grab_focus (row);
  return FALSE;
}

/* Frames, not time: the Events rows settle within 60. */
#define FOCUS_ROW_MAX_FRAMES 120

/* The row was not laid out at the press (far down the list, or the rows
 * still settling): once the list has scrolled to it.  Then at the last
 * the list's first stop, else the page's first control. */
static gboolean
focus_selected_row_tick (GtkWidget     *list,
                         GdkFrameClock *clock,
                         gpointer       data)
{
  guint *tries = data;

  if (focus_selected_row (list))
    return G_SOURCE_REMOVE;
  if (++*tries < FOCUS_ROW_MAX_FRAMES)
    return G_SOURCE_CONTINUE;
  if (!gtk_widget_child_focus (list, GTK_DIR_TAB_FORWARD))
    {
      GtkWidget *view = gtk_widget_get_ancestor (list, PD_TYPE_SESSION_VIEW);

      if (view != NULL)
        gtk_widget_child_focus (view, GTK_DIR_TAB_FORWARD);
    }
  return G_SOURCE_REMOVE;
}

static void
focus_list (GtkWidget *list)
{
  if (!focus_selected_row (list))
    gtk_widget_add_tick_callback (list, focus_selected_row_tick, g_new0 (guint, 1), g_free);
}

/* The page's main list at its shown item, else its first control, else
 * the bars below it (the message entry, the page tabs).  A page with
 * nothing to activate (a status page: no plan, no events) leaves the
 * focus in the list beside it; folded, the list is hidden, and the
 * focus goes to the content's first control. */
static void
focus_page (PdWindow *self)
{
  GtkWidget *content = gtk_widget_get_parent (GTK_WIDGET (self->content_stack));
  GtkWidget *page = adw_view_stack_get_visible_child (self->view_stack);
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));

  /* Back where F6 left it: each round trip had landed one step further
   * (s1, s2, s3), the list box moving on from the step it remembered
   * (tried with the keyboard alone). */
  if (page != NULL && self->page_focus != NULL && gtk_widget_is_ancestor (self->page_focus, page) &&
      gtk_widget_get_mapped (self->page_focus) && _pd_list_box_refocus (self->page_focus))
    return;
  g_clear_weak_pointer (&self->page_focus);
  if (page != NULL && main_list (page) != NULL)
    focus_list (main_list (page));
  else if (!gtk_widget_child_focus (gtk_widget_get_parent (GTK_WIDGET (self->view_stack)), GTK_DIR_TAB_FORWARD) &&
           (adw_leaflet_get_folded (self->leaflet) || focus == NULL || !gtk_widget_get_mapped (focus) ||
            gtk_widget_is_ancestor (focus, content)))
    gtk_widget_child_focus (content, GTK_DIR_TAB_FORWARD);
}

/* The session view on @root's shown part (the Now page's plan or
 * checklist), or %NULL. */
static PdSessionView *
shown_session_view (GtkWidget *root)
{
  if (!gtk_widget_get_mapped (root))
    return NULL;
  if (PD_IS_SESSION_VIEW (root))
    return PD_SESSION_VIEW (root);
  for (GtkWidget *child = gtk_widget_get_first_child (root); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      PdSessionView *view = shown_session_view (child);

      if (view != NULL)
        return view;
    }
  return NULL;
}

/* Frames, not time, bound the wait for the page's read (a loaded machine
 * draws fewer frames in a second, not fewer before the read ends). */
#define OPEN_FOCUS_MAX_FRAMES 600

/* Whether the shown page is still reading the open session. */
static gboolean
page_reading (PdWindow *self)
{
  GtkWidget *page = adw_view_stack_get_visible_child (self->view_stack);
  PdSessionView *view = page != NULL ? shown_session_view (page) : NULL;

  return view == NULL || pd_session_view_get_busy (view) ||
         g_strcmp0 (pd_session_view_get_session_id (view), self->session_id) != 0;
}

static gboolean
open_focus_tick (GtkWidget     *widget,
                 GdkFrameClock *clock,
                 gpointer       data)
{
  PdWindow *self = PD_WINDOW (widget);
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  GtkWidget *content = gtk_widget_get_parent (GTK_WIDGET (self->content_stack));
  GtkWidget *sidebar = gtk_widget_get_parent (GTK_WIDGET (self->session_list));

  /* The focus is in the page or the bar below it already, or the person
   * moved it in the list meanwhile: it stays.  The leaflet's own moves
   * (to a header's first button, at once or when its slide ends) are
   * not the person's. */
  if (focus != NULL && focus != self->open_focus_from &&
      (self->open_focus_in_page
       ? gtk_widget_is_ancestor (focus, GTK_WIDGET (self->view_stack))
       : ((gtk_widget_is_ancestor (focus, content) && gtk_widget_get_ancestor (focus, ADW_TYPE_HEADER_BAR) == NULL) ||
          (gtk_widget_is_ancestor (focus, sidebar) && gtk_widget_get_ancestor (focus, ADW_TYPE_HEADER_BAR) == NULL))))
    {
      self->open_focus_tick = 0;
      return G_SOURCE_REMOVE;
    }
  if (page_reading (self) && ++self->open_focus_frames < OPEN_FOCUS_MAX_FRAMES)
    return G_SOURCE_CONTINUE;
  self->open_focus_tick = 0;
  focus_page (self);
  return G_SOURCE_REMOVE;
}

/*
 * _pd_window_focus_opened:
 *
 * A session opened from the list (Enter, Space, a click): once its page
 * has read, the focus goes into it, to the page's main list (the first
 * plan step).  Showing the content had put it on the content header's
 * first button, the main menu (tried with the keyboard alone).
 */
static void
focus_opened (PdWindow *self,
              gboolean  in_page)
{
  _pd_window_stop_focus_opened (self);
  if (!page_reading (self))
    {
      focus_page (self);
      return;
    }
  self->open_focus_in_page = in_page;
  self->open_focus_from = gtk_root_get_focus (GTK_ROOT (self));
  self->open_focus_frames = 0;
  self->open_focus_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self), open_focus_tick, NULL, NULL);
}

void
_pd_window_focus_opened (PdWindow *self)
{
  g_clear_weak_pointer (&self->page_focus);
  focus_opened (self, FALSE);
}

void
_pd_window_stop_focus_opened (PdWindow *self)
{
  if (self->open_focus_tick != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->open_focus_tick);
  self->open_focus_tick = 0;
  self->open_focus_from = NULL;
  self->open_focus_in_page = FALSE;
}

/* Back to the list (Alt+Left, which the leaflet takes first; the back
 * button): the focus goes to the open session's row, where the person
 * left, unless it is in the sidebar's lists already.  The leaflet put it
 * on the first button of the sidebar's header (tried with the keyboard
 * alone). */
static void
focus_open_row (PdWindow *self)
{
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  GtkWidget *rows = main_list (GTK_WIDGET (self->session_list));

  _pd_window_stop_focus_opened (self);
  if (rows == NULL ||
      (focus != NULL && (gtk_widget_is_ancestor (focus, GTK_WIDGET (self->session_list)) ||
                         gtk_widget_is_ancestor (focus, GTK_WIDGET (self->source_sidebar)))))
    return;
  focus_list (rows);
}

/* Frames a search's listing of every session is waited for, at most. */
#define SEARCH_LISTED_MAX_FRAMES 600

typedef struct
{
  PdSessionList *list;     /* (unowned) the rows' own list */
  guint          frames;
} ListedWait;

/* The listing of every session, once the search closed, is on its way:
 * the open session's row comes with it.  Focused at once, the focus went
 * to the first match's row (the list still filtered), scrolled far from
 * the open session's (tried as a new user would, nu19 #5). */
static gboolean
focus_list_when_listed (GtkWidget     *rows,
                        GdkFrameClock *clock,
                        gpointer       data)
{
  ListedWait *wait = data;
  GtkSelectionModel *model = gtk_list_view_get_model (GTK_LIST_VIEW (rows));
  PdSessionItem *open = pd_session_list_get_selected_item (wait->list);
  gboolean listed = !pd_session_list_get_busy (wait->list) &&
                    (open == NULL || (GTK_IS_SINGLE_SELECTION (model) &&
                                      gtk_single_selection_get_selected_item (GTK_SINGLE_SELECTION (model)) == (gpointer) open));

  if (!listed && ++wait->frames < SEARCH_LISTED_MAX_FRAMES)
    return G_SOURCE_CONTINUE;
  focus_list (rows);
  return G_SOURCE_REMOVE;
}

/* The session search closed (Escape) with the focus in it: back where
 * it was as the search opened, as F6 and menus return it.  A step of the
 * page is its list's stop again (the list made it none as the focus
 * left), and folded the page is shown again; from the list, its open
 * session's row (the row widget there shows another session once the
 * list was filtered).  The focus had stayed on the first row that
 * matched (tried with a screen reader and the keyboard, issue 23). */
static void
search_closed_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);
  g_autoptr(GtkWidget) from = self->search_from != NULL ? g_object_ref (self->search_from) : NULL;
  GtkWidget *content = gtk_widget_get_parent (GTK_WIDGET (self->content_stack));
  GtkWidget *rows = session_rows (GTK_WIDGET (self->session_list));

  g_clear_weak_pointer (&self->search_from);
  if (from != NULL && gtk_widget_get_root (from) == GTK_ROOT (self) && gtk_widget_is_ancestor (from, content))
    {
      adw_leaflet_set_visible_child_name (self->leaflet, "content");
      if (gtk_widget_is_ancestor (from, GTK_WIDGET (self->view_stack)))
        {
          g_set_weak_pointer (&self->page_focus, from);
          focus_opened (self, TRUE);
          return;
        }
    }
  if (from != NULL && gtk_widget_get_root (from) == GTK_ROOT (self) && gtk_widget_get_mapped (from) &&
      _pd_list_box_refocus (from))
    return;
  if (rows != NULL)
    {
      ListedWait *wait = g_new0 (ListedWait, 1);

      wait->list = self->session_list;
      gtk_widget_add_tick_callback (rows, focus_list_when_listed, wait, g_free);
    }
}

static void
on_leaflet_child (PdWindow *self)
{
  if (g_strcmp0 (adw_leaflet_get_visible_child_name (self->leaflet), "sidebar") == 0)
    focus_open_row (self);
}

static void
focus_other_pane_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);
  GtkWidget *list = GTK_WIDGET (self->session_list);
  GtkWidget *focus = gtk_root_get_focus (GTK_ROOT (self));
  gboolean in_list = focus != NULL && (focus == list || gtk_widget_is_ancestor (focus, list));

  if (in_list && session_shown (self))
    {
      adw_leaflet_set_visible_child_name (self->leaflet, "content");
      /* A page still reading (the Events page's rows), or folded not yet
       * shown: once it has read and shows.  Only a focus in the page is
       * the person's: folded, the leaflet put it on the page tabs below,
       * and it stayed there (tried with the keyboard alone). */
      focus_opened (self, TRUE);
    }
  else if (in_list && g_strcmp0 (gtk_stack_get_visible_child_name (self->content_stack), "overview") == 0)
    /* The Overview's first card: F6 stayed in the list (tried with the keyboard alone). */
    _pd_window_focus_overview (self);
  else
    {
      GtkWidget *rows;

      if (focus != NULL && gtk_widget_is_ancestor (focus, GTK_WIDGET (self->view_stack)))
        g_set_weak_pointer (&self->page_focus, focus);
      adw_leaflet_set_visible_child_name (self->leaflet, "sidebar");
      /* Folded, the list is not shown yet: its rows all the same, the open
       * session's once laid out.  Its first stop had gone to the row below
       * the open session, one further at each F6, the list view moving on
       * from the row it remembered (tried with the keyboard alone). */
      rows = session_rows (list);
      if (rows != NULL)
        focus_list (rows);
      else
        gtk_widget_child_focus (list, GTK_DIR_TAB_FORWARD);
    }
}

static void
on_database_chosen (GtkNativeDialog *dialog,
                    int              response,
                    PdWindow        *self)
{
  g_autofree char *path = _pd_file_chooser_take_path (dialog, response);

  if (path != NULL)
    gtk_widget_activate_action (GTK_WIDGET (self), "app.open-database", "s", path);
}

static void
open_database_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);
  GtkFileChooserNative *chooser;
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) all = gtk_file_filter_new ();

  chooser = gtk_file_chooser_native_new (_("Open Database"), GTK_WINDOW (self),
                                         GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (chooser), TRUE);

  gtk_file_filter_set_name (filter, _("Session Databases"));
  gtk_file_filter_add_pattern (filter, "*.db");
  gtk_file_filter_add_pattern (filter, "*.sqlite");
  gtk_file_filter_add_pattern (filter, "*.sqlite3");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), filter);
  gtk_file_filter_set_name (all, _("All Files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (chooser), all);

  g_signal_connect (chooser, "response", G_CALLBACK (on_database_chosen), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
on_new_session_start (PdWindow      *self,
                      PdRunSettings *settings,
                      const char    *message)
{
  g_autoptr(GError) error = NULL;

  if (!(self->focus_run_page = pd_run_controller_start (self->runs, settings, message, &error)))
    pd_window_show_message (self, error->message);
}

static void
new_session_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);
  PdNewSessionDialog *dialog;

  if (self->runs == NULL)
    return;

  dialog = pd_new_session_dialog_new (GTK_WINDOW (self));
  if (pd_run_controller_is_remote (self->runs))
    pd_new_session_dialog_set_endpoint (dialog, self->remote_url);
  g_signal_connect_object (dialog, "start", G_CALLBACK (on_new_session_start), self,
                           G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
preferences_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  gtk_window_present (GTK_WINDOW (pd_preferences_window_new (GTK_WINDOW (widget))));
}

/* Main Menu → Removed Sessions: other agents' sessions removed from the
 * list, each with Restore; a restored one is listed and shown again. */
static void
on_session_restored (PdWindow   *self,
                     const char *id)
{
  /* This computer's sessions keep their ids among all sources. */
  g_free (self->pending_select);
  self->pending_select = g_strdup (id);
  /* Hidden from the list when it was removed. */
  pd_session_list_set_hidden (self->session_list, id, FALSE);
  pd_session_list_refresh (self->session_list);
  _pd_window_try_select_pending (self);
}

static void
show_removed_sessions_action (GtkWidget  *widget,
                              const char *action_name,
                              GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);
  PdRemovedSessions *removed;

  if (_pd_window_get_local_source (self) == NULL)
    {
      pd_window_show_message (self, _("Sessions are removed from a local database’s list only"));
      return;
    }
  removed = pd_removed_sessions_new (GTK_WINDOW (self), _pd_window_get_local_source (self));
  g_signal_connect_object (removed, "restored", G_CALLBACK (on_session_restored), self, G_CONNECT_SWAPPED);
  gtk_window_present (GTK_WINDOW (removed));
}

/* --- importing other agents' sessions ------------------------------------ */

/* Other agents keep their transcripts on this machine:
 * index them into this database (counts and metadata only — their plan
 * text stays in their files). */
static void
import_transcripts_action (GtkWidget  *widget,
                           const char *action_name,
                           GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);

  if (_pd_window_get_local_source (self) == NULL)
    {
      pd_window_show_message (self, _("Other agents' sessions can be read into a local database only"));
      return;
    }

  if (!g_settings_get_boolean (self->settings, "read-agent-plans"))
    {
      pd_window_show_message (self, _("Reading other agents' plans is turned off in Preferences"));
      return;
    }

  _pd_window_import_transcripts (self);
}

/* --- other agents' sessions at start ------------------------------------ */

/**
 * pd_window_get_reading_agent_sessions:
 *
 * Returns: whether the window's read of other agents' sessions at start
 *   waits for its first frame or runs
 */
gboolean
pd_window_get_reading_agent_sessions (PdWindow *self)
{
  g_return_val_if_fail (PD_IS_WINDOW (self), FALSE);

  return self->reading_at_start;
}

static void
on_read_at_start_done (GObject      *object,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_autoptr(PdWindow) self = user_data;
  g_autoptr(GError) error = NULL;

  /* Said on stderr only: the window opens on its own sessions, and a
   * folder it could not read is said by the menu item's rescan. */
  if (!pd_source_import_transcripts_finish (PD_SOURCE (object), result, NULL, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_message ("Other agents' sessions were not read: %s", error->message);
  self->reading_at_start = FALSE;
  if (g_cancellable_is_cancelled (self->cancellable))
    return;

  /* Follow the sessions just found as well. */
  _pd_window_follow_transcripts (self);
}

static gboolean
read_at_start_wanted (PdWindow *self)
{
  return self->with_endpoints && _pd_window_get_local_source (self) != NULL &&
         g_settings_get_boolean (self->settings, "read-agent-plans") &&
         g_settings_get_boolean (self->settings, "read-agent-sessions-at-start");
}

/* After a paint: once the list's first page has been drawn, the agents'
 * folders are read, so the first frame never waits for them. */
static void
on_read_at_start_paint (GdkFrameClock *clock,
                        PdWindow      *self)
{
  if (!pd_session_list_get_loaded (self->session_list))
    return;
  g_clear_signal_handler (&self->read_at_start_handler, clock);
  if (!read_at_start_wanted (self))
    {
      self->reading_at_start = FALSE;
      return;
    }

  /* The same read as the menu item's, in the source's worker thread; it
   * says ::changed, and nothing at all when no agent's folder exists. */
  pd_source_import_transcripts_async (PD_SOURCE (_pd_window_get_local_source (self)), self->cancellable,
                                      on_read_at_start_done, g_object_ref (self));
}

static void
on_read_at_start_map (PdWindow *self)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));

  g_signal_handlers_disconnect_by_func (self, on_read_at_start_map, self);
  if (clock != NULL && self->read_at_start_handler == 0)
    self->read_at_start_handler = g_signal_connect_object (clock, "after-paint",
                                                           G_CALLBACK (on_read_at_start_paint), self, 0);
}

/**
 * _pd_window_read_agent_sessions:
 *
 * The default window reads the sessions other agents left in their default
 * folders (Claude Code, Codex, OpenCode, Qwen Code, Gemini CLI, Cline, Roo
 * Code, Kilo Code) by itself, once its first frame shows the list, unless
 * Preferences turn it off; Main Menu → Read Other Agents' Sessions reads
 * them again.
 */
void
_pd_window_read_agent_sessions (PdWindow *self)
{
  if (!read_at_start_wanted (self) || self->reading_at_start)
    return;

  self->reading_at_start = TRUE;
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    on_read_at_start_map (self);
  else
    g_signal_connect_object (self, "map", G_CALLBACK (on_read_at_start_map), self,
                             G_CONNECT_SWAPPED | G_CONNECT_AFTER);
}

static void
open_demo_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *parameter)
{
  gtk_widget_activate_action (widget, "app.open-demo", NULL);
}

static void
stop_run_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);

  if (self->runs != NULL)
    pd_run_controller_stop (self->runs);
}

static void
send_message_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);
  const char *shown = _pd_window_shown_session_id (self);
  g_autofree char *message = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->message_entry))));
  g_autoptr(GError) error = NULL;

  if (self->runs == NULL || shown == NULL || message[0] == '\0')
    return;

  if (!pd_run_controller_continue (self->runs, shown, message, &error))
    {
      pd_window_show_message (self, error->message);
      return;
    }
  gtk_editable_set_text (GTK_EDITABLE (self->message_entry), "");
}

static void
on_token_activate (PdWindow *self)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "win.use-token", NULL);
}

/* Retry on an error page or the offline banner: open or ask again now. */
static void
retry_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);

  if (self->source == NULL)
    {
      self->failed = FALSE;
      _pd_window_open_source (self);
      return;
    }

  if (PD_IS_REMOTE_SOURCE (self->source))
    {
      /* Said until the listing asked now answers or fails. */
      _pd_window_start_retry (self);
      pd_remote_source_reconnect (PD_REMOTE_SOURCE (self->source));
    }
  else
    {
      guint n = g_list_model_get_n_items (G_LIST_MODEL (self->sources));

      /* Every endpoint beside the database is asked again at once. */
      for (guint i = 0; i < n; i++)
        {
          g_autoptr(PdSource) source = g_list_model_get_item (G_LIST_MODEL (self->sources), i);

          if (PD_IS_REMOTE_SOURCE (source))
            pd_remote_source_reconnect (PD_REMOTE_SOURCE (source));
        }
      pd_source_emit_changed (self->source);
    }
  pd_session_list_refresh (self->session_list);
}

/* The primary menu's recent sources, from GSettings, newest first. */
void
_pd_window_update_recent (PdWindow *self)
{
  g_auto(GStrv) recent = g_settings_get_strv (self->settings, "recent-sources");
  guint shown = 0;

  g_menu_remove_all (self->recent_section);
  for (guint i = 0; recent[i] != NULL && shown < MAX_RECENT_SHOWN; i++)
    {
      g_autoptr(GMenuItem) item = NULL;
      g_autofree char *label = NULL;
      gboolean is_url = g_str_has_prefix (recent[i], "http://") || g_str_has_prefix (recent[i], "https://");

      if (g_strcmp0 (recent[i], _pd_window_source_label (self)) == 0)
        continue;

      label = is_url ? g_strdup (recent[i]) : g_path_get_basename (recent[i]);
      item = g_menu_item_new (label, NULL);
      g_menu_item_set_action_and_target_value (item, is_url ? "app.open-remote" : "app.open-database",
                                               g_variant_new_string (recent[i]));
      g_menu_append_item (self->recent_section, item);
      shown++;
    }
}

/* "Create a New Database Here": the file --db named, in a folder that exists. */
static void
create_database_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);

  if (self->source != NULL || self->database_path == NULL)
    return;
  self->create_database = TRUE;
  self->failed = FALSE;
  gtk_widget_set_visible (GTK_WIDGET (self->create_button), FALSE);
  gtk_widget_add_css_class (GTK_WIDGET (self->error_retry), "suggested-action");
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.new-session", TRUE);
  _pd_window_open_source (self);
}

/* The session a session action is for: its target, or the shown one for
 * the empty target of the main menu's Session section. */
static PdSessionItem *
pd_window_item_for (PdWindow *self,
                    GVariant *parameter)
{
  const char *id = parameter != NULL ? g_variant_get_string (parameter, NULL) : "";

  if (*id == '\0')
    return self->shown_item;
  return pd_session_list_model_find (pd_session_list_get_model (self->session_list), id, NULL);
}

static void
delete_session_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);
  PdSessionItem *item = pd_window_item_for (self, parameter);

  if (item == NULL || self->source == NULL)
    return;
  /* Its run would go on unrecorded; the store refuses it too, but only
   * once the Undo toast has gone, so it is said now. */
  if (pd_session_item_get_running (item))
    {
      _pd_window_refuse_running_delete (self, pd_session_item_get_title (item));
      return;
    }
  pd_session_deleter_delete (self->deleter, pd_session_list_get_source (self->session_list), item);
}

static void
export_session_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  PdWindow *self = PD_WINDOW (widget);
  PdSessionItem *item = pd_window_item_for (self, parameter);

  if (item == NULL || self->source == NULL)
    return;
  pd_session_export_choose (GTK_WINDOW (self), self->toast_overlay, pd_session_list_get_source (self->session_list),
                            pd_session_item_get_id (item), pd_session_item_get_title (item),
                            g_str_has_suffix (action_name, "export-json")
                            ? PD_SESSION_EXPORT_JSON : PD_SESSION_EXPORT_MARKDOWN);
}

/* Ctrl+Page Down/Up switch pages wherever the focus is.  As the class's
 * bindings they came after the focused widget's own keys, and a list
 * scrolled ten rows down instead (tried as a new user would, focus in the
 * session list); taken in the capture phase, the window sees them first. */
void
_pd_window_actions_init (PdWindow *self)
{
  GtkEventController *controller = gtk_shortcut_controller_new ();

  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Page_Down, GDK_CONTROL_MASK),
                                                          gtk_named_action_new ("win.next-page")));
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_Page_Up, GDK_CONTROL_MASK),
                                                          gtk_named_action_new ("win.previous-page")));
  /* F6 too: the Events and History pages' GtkPaned takes F6 (and Shift+F6)
   * to move between its panes, so F6 never left those pages (tried with
   * the keyboard alone). */
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_F6, 0),
                                                          gtk_named_action_new ("win.focus-other-pane")));
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_F6, GDK_SHIFT_MASK),
                                                          gtk_named_action_new ("win.focus-other-pane")));
  gtk_widget_add_controller (GTK_WIDGET (self), controller);
  _pd_name_menus (GTK_WIDGET (self), _("Main Menu"));
  _pd_labels_speak_plain (GTK_WIDGET (self));
  g_signal_connect_object (self->leaflet, "notify::visible-child", G_CALLBACK (on_leaflet_child),
                           self, G_CONNECT_SWAPPED);
}

/* The window's actions, as GActionEntry lists an application's: a name,
 * the parameter's type, what it does. */
static const struct
{
  const char                 *name;
  const char                 *parameter_type;
  GtkWidgetActionActivateFunc activate;
} window_actions[] = {
  { "win.show-sessions", NULL, show_sessions_action },
  { "win.delete-session", "s", delete_session_action },
  { "win.export-markdown", "s", export_session_action },
  { "win.export-json", "s", export_session_action },
  /* A row's menu names its session: it works with no session shown (the
   * Overview), where the three above are off to leave the main menu's
   * Session section out (tried as a new user would: they were greyed). */
  { "win.row-delete-session", "s", delete_session_action },
  { "win.row-export-markdown", "s", export_session_action },
  { "win.row-export-json", "s", export_session_action },
  { "win.create-database", NULL, create_database_action },
  { "win.search", NULL, search_action },
  { "win.search-closed", NULL, search_closed_action },
  { "win.show-now", NULL, show_now_action },
  { "win.open-database", NULL, open_database_action },
  { "win.connect-endpoint", NULL, _pd_window_connect_endpoint_action },
  { "win.open-demo", NULL, open_demo_action },
  { "win.import-transcripts", NULL, import_transcripts_action },
  { "win.show-removed-sessions", NULL, show_removed_sessions_action },
  { "win.new-session", NULL, new_session_action },
  { "win.preferences", NULL, preferences_action },
  { "win.stop-run", NULL, stop_run_action },
  { "win.send-message", NULL, send_message_action },
  { "win.retry", NULL, retry_action },
  { "win.use-token", NULL, _pd_window_use_token_action },
  /* Pages and panes from the keyboard (listed in the shortcuts window). */
  { "win.show-page", "s", show_page_action },
  { "win.next-page", NULL, cycle_page_action },
  { "win.previous-page", NULL, cycle_page_action },
  { "win.focus-other-pane", NULL, focus_other_pane_action },
};

void
_pd_window_class_actions_init (GtkWidgetClass *widget_class)
{
  gtk_widget_class_bind_template_callback (widget_class, on_token_activate);

  for (guint i = 0; i < G_N_ELEMENTS (window_actions); i++)
    gtk_widget_class_install_action (widget_class, window_actions[i].name, window_actions[i].parameter_type,
                                     window_actions[i].activate);
  for (guint i = 0; i < G_N_ELEMENTS (session_pages); i++)
    gtk_widget_class_add_binding_action (widget_class, GDK_KEY_1 + i, GDK_ALT_MASK,
                                         "win.show-page", "s", session_pages[i]);
  /* Ctrl+Page Down/Up: _pd_window_actions_init(), before the lists. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F6, 0, "win.focus-other-pane", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F6, GDK_SHIFT_MASK, "win.focus-other-pane", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK,
                                       "win.show-sessions", NULL);
}
