/* pd-events-view.c: a session's event stream, tailed live
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A GtkColumnView over GListStore → GtkFilterListModel (type filter) →
 * GtkSingleSelection.  The store only ever grows at its end: each request
 * asks for the events after the last sequence number seen, so the rows
 * already listed, the selection and the scroll position stay as they are.
 * While live and mapped it polls every PD_EVENTS_VIEW_POLL_MS; unmapped it
 * does not poll at all.
 *
 * It reads only when shown, and from the end: the newest
 * PD_EVENTS_VIEW_LATEST_MAX events first, "Show Earlier Events" the ones
 * before them, then whatever comes after the newest.  A stream of 600,000
 * events (an imported transcript of 300,000 plan calls) listed whole, read
 * while hidden for the Now page's notices, took the window past 1.7 GB
 * with nobody looking; the Now page reads its notices itself
 * (PdEventNotices).
 *
 * And it keeps a bounded window: following, the newest
 * PD_EVENTS_VIEW_KEEP_MAX events, the older let go of and read back with
 * "Show Earlier Events"; scrolled up, the list does not grow past that
 * bound under the person reading it, and reads on when they follow again.  Following a run of hours kept every event
 * (its JSON, its texts): the window's heap grew without bound.
 */
#define G_LOG_DOMAIN "pd-events-view"

#include "config.h"

#include <glib/gi18n.h>
#include <adwaita.h>

#include "pd-choice-factory.h"
#include "pd-event-item.h"
#include "pd-events-view.h"
#include "pd-events-view-private.h"
#include "pd-json-util.h"
#include "pd-row-name.h"
#include "pd-ui-util-private.h"

struct _PdEventsView
{
  PdSessionView       parent_instance;

  GListStore         *events;
  GtkFilterListModel *filtered;
  GtkCustomFilter    *filter;
  GtkSingleSelection *selection;
  GtkStringList      *types;
  GHashTable         *seen_types;
  gint64              last_seq;
  gint64              first_seq;     /* the oldest listed, 0 when none */
  gboolean            more_earlier;  /* the last read from the end was full */
  GCancellable       *earlier;       /* "Show Earlier Events" in flight */
  guint               keep;          /* listed at most: KEEP_MAX and those read back */
  gboolean            held;          /* scrolled up and full: newer left unread */

  /* Tailing: follow the newest while the person is at the bottom. */
  gboolean            following;
  double              last_upper;
  double              last_page_size;
  gboolean            reconfigured;  /* "changed" came; its value-changed is no scroll */
  gboolean            trimmed;       /* rows let go of: no scroll until the idle */
  guint               follow_idle;   /* a pending move to the newest */
  guint               jump_idle;     /* the jump arrow shown or hidden */
  gboolean            in_layout;     /* in the adjustment's value-changed */
  /* Rows not yet shown at their newest: the list is drawn once it is
   * there, so that it opens at the newest instead of at the oldest and
   * then jumping (tried as a new user would). */
  gboolean            settling;
  gboolean            loaded;        /* the reload has read every page */
  gboolean            grew_hidden;   /* rows came while unmapped */
  gboolean            laid_out;      /* the list laid itself out since settling began */
  guint               settle_tick;   /* counts the frames drawn hidden */
  guint               settle_frames;

  /* Template widgets */
  GtkLabel           *session_title;
  GtkDropDown        *type_dropdown;
  GtkLabel           *count_label;
  GtkStack           *stack;
  GtkScrolledWindow  *scroller;
  GtkColumnView      *column_view;
  GtkColumnViewColumn *time_column;
  GtkColumnViewColumn *type_column;
  GtkColumnViewColumn *iteration_column;
  GtkColumnViewColumn *tool_column;
  GtkColumnViewColumn *summary_column;
  GtkColumnViewColumn *compact_column;
  GtkStack           *details_stack;
  GtkTextView        *details_view;
  GtkButton          *jump_button;
  GtkWidget          *earlier_bar;
  GtkLabel           *earlier_label;
  GtkButton          *earlier_button;
  GtkLabel           *left_out_label;

  /* Narrow (a phone, a split screen): one compact row per event. */
  gboolean            compact;
  gboolean            want_compact;
  guint               compact_idle;
};

/* Below this width, in average characters of the view's font, the five
 * columns do not fit their text: each event is one compact cell instead
 * (time and type above, the summary, which names the tool, below).
 * Counted in characters, not pixels: at 1.5× text the columns cut
 * "Tool call st…" at 640 px. */
#define COMPACT_BELOW_CHARS 78

G_DEFINE_FINAL_TYPE (PdEventsView, pd_events_view, PD_TYPE_SESSION_VIEW)

enum {
  PROP_0,
  PROP_LIVE,
  PROP_FOLLOWING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void pd_events_view_fetch (PdEventsView         *self,
                                  PdSessionViewRequest *request);
static void pd_events_view_set_following (PdEventsView *self,
                                          gboolean      following);
static void pd_events_view_check_settled (PdEventsView *self);

static void
pd_events_view_update_state (PdEventsView *self)
{
  g_autofree char *count = NULL;
  guint total;
  guint shown;

  /* Not built yet (the template sets up the drop-down), or disposed. */
  if (self->events == NULL || self->filtered == NULL)
    return;

  total = g_list_model_get_n_items (G_LIST_MODEL (self->events));
  shown = g_list_model_get_n_items (G_LIST_MODEL (self->filtered));

  if (total == 0)
    count = g_strdup ("");
  else if (shown == total)
    count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u event", "%u events", total), total);
  else
    /* Translators: events shown by the type filter, of all events */
    count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u of %u event", "%u of %u events", total),
                             shown, total);
  gtk_label_set_text (self->count_label, count);

  /* "No Events Yet" once the read said so, not while it goes on. */
  gtk_stack_set_visible_child_name (self->stack, total == 0 && self->loaded ? "empty" : "events");
  gtk_widget_set_visible (GTK_WIDGET (self->jump_button), !self->following && shown > 0);
  _pd_events_view_update_left_out (self->left_out_label, G_LIST_MODEL (self->events));
}

/* --- fetching ------------------------------------------------------------ */

static PdEventItem *
pd_events_view_item_new (PdEventsView  *self,
                         PdStoredEvent *event)
{
  PdEventItem *item = pd_event_item_new (event->seq, event->event_json);
  const char *type = pd_event_item_get_event_type (item);

  if (pd_event_item_get_event (item) != NULL && !g_hash_table_contains (self->seen_types, type))
    {
      g_hash_table_add (self->seen_types, g_strdup (type));
      gtk_string_list_append (self->types, type);
    }
  return item;
}

static void pd_events_view_update_earlier (PdEventsView *self);
static void pd_events_view_queue_follow (PdEventsView *self);

/* Following, the newest PD_EVENTS_VIEW_KEEP_MAX stay listed (and those the
 * person read back): the older are let go of, read back with "Show Earlier
 * Events". */
static void
pd_events_view_trim (PdEventsView *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->events));
  g_autoptr(PdEventItem) first = NULL;

  if (!self->following || n <= self->keep)
    return;
  /* The list moves its value before its bounds: not the person. */
  self->trimmed = TRUE;
  pd_events_view_queue_follow (self);
  g_list_store_splice (self->events, 0, n - self->keep, NULL, 0);
  first = g_list_model_get_item (G_LIST_MODEL (self->events), 0);
  self->first_seq = pd_event_item_get_seq (first);
  self->more_earlier = TRUE;
  pd_events_view_update_earlier (self);
}

static void
pd_events_view_append (PdEventsView *self,
                       GPtrArray    *stored)
{
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  guint n_listed = g_list_model_get_n_items (G_LIST_MODEL (self->events));

  for (guint i = 0; i < stored->len; i++)
    {
      PdStoredEvent *event = g_ptr_array_index (stored, i);

      /* Only ever forward: an event already listed is never listed twice. */
      if (event->seq <= self->last_seq)
        continue;
      /* Scrolled up, the list does not grow past its bound under the
       * person reading it: the newer are read once they follow again. */
      if (!self->following && n_listed + items->len >= self->keep)
        {
          self->held = TRUE;
          break;
        }
      self->last_seq = event->seq;
      if (self->first_seq == 0)
        self->first_seq = event->seq;
      g_ptr_array_add (items, pd_events_view_item_new (self, event));
    }

  if (items->len > 0)
    g_list_store_splice (self->events, g_list_model_get_n_items (G_LIST_MODEL (self->events)), 0,
                         items->pdata, items->len);
  pd_events_view_trim (self);
}

/* What is listed goes: the next read starts from the newest. */
static void
pd_events_view_forget (PdEventsView *self)
{
  self->last_seq = 0;
  self->first_seq = 0;
  self->more_earlier = FALSE;
  self->held = FALSE;
  self->keep = PD_EVENTS_VIEW_KEEP_MAX;
  self->trimmed = TRUE;
  pd_events_view_queue_follow (self);
  g_list_store_remove_all (self->events);
}

/* Earlier events not listed: said, with the button that reads them. */
static void
pd_events_view_update_earlier (PdEventsView *self)
{
  gtk_widget_set_visible (self->earlier_bar, self->more_earlier && self->first_seq > 0);
  if (self->earlier == NULL)
    gtk_label_set_text (self->earlier_label, _("Earlier events are not shown"));
}

/* A read that failed ends the reload with its error; what is listed stays. */
static void
load_failed (PdEventsView         *self,
             PdSessionViewRequest *request,
             const GError         *error)
{
  self->loaded = TRUE;
  pd_events_view_update_state (self);
  pd_events_view_check_settled (self);
  pd_session_view_reload_done (request, error);
}

/* The view a page read for @request goes to; NULL when the request is no
 * longer current, or when the read failed (the reload then ends with
 * @error). */
static PdEventsView *
page_view (PdSessionViewRequest *request,
           GPtrArray            *stored,
           const GError         *error)
{
  PdEventsView *self;

  if (!pd_session_view_request_is_current (request))
    return NULL;
  self = PD_EVENTS_VIEW (request->view);

  if (stored == NULL)
    {
      load_failed (self, request, error);
      return NULL;
    }
  return self;
}

/* A page at a time after the last event listed: a full page means there
 * may be more, so the reload goes on reading until a page is not full. */
static void
on_events_loaded (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(PdSessionViewRequest) request = user_data;
  g_autoptr(GPtrArray) stored = NULL;
  g_autoptr(GError) error = NULL;
  PdEventsView *self;

  stored = pd_source_get_events_finish (PD_SOURCE (object), result, &error);
  if (!(self = page_view (request, stored, error)))
    return;

  pd_events_view_append (self, stored);
  pd_events_view_update_state (self);

  /* Far behind (shown after hours hidden), every page is read, each
   * listed and let go of: an endpoint reads its newest only by reading
   * the whole stream forward (pd_source_get_latest_events_async()). */
  if (stored->len >= PD_EVENTS_VIEW_PAGE_SIZE && !self->held)
    {
      pd_events_view_fetch (self, g_steal_pointer (&request));
      return;
    }

  self->loaded = TRUE;
  pd_events_view_update_state (self);
  pd_events_view_check_settled (self);
  pd_session_view_reload_done (request, NULL);
}

static void
pd_events_view_fetch (PdEventsView         *self,
                      PdSessionViewRequest *request)
{
  pd_source_get_events_async (request->source, request->session_id, self->last_seq,
                              PD_EVENTS_VIEW_PAGE_SIZE, request->cancellable,
                              on_events_loaded, request);
}

/* The first read of a session: its newest events, then on forward. */
static void
on_latest_loaded (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(PdSessionViewRequest) request = user_data;
  g_autoptr(GPtrArray) stored = NULL;
  g_autoptr(GError) error = NULL;
  PdEventsView *self;

  stored = pd_source_get_latest_events_finish (PD_SOURCE (object), result, &error);
  if (!(self = page_view (request, stored, error)))
    return;

  self->more_earlier = stored->len >= PD_EVENTS_VIEW_LATEST_MAX;
  pd_events_view_append (self, stored);
  pd_events_view_update_earlier (self);
  pd_events_view_update_state (self);
  /* Anything that came meanwhile. */
  pd_events_view_fetch (self, g_steal_pointer (&request));
}

static void
pd_events_view_reload (PdSessionView        *view,
                       PdSessionViewRequest *request)
{
  PdEventsView *self = PD_EVENTS_VIEW (view);

  /* Held for the person scrolled up: nothing to read until they follow. */
  if (self->held)
    {
      self->loaded = TRUE;
      pd_session_view_reload_done (request, NULL);
      pd_session_view_request_free (request);
      return;
    }
  if (self->last_seq == 0)
    pd_source_get_latest_events_async (request->source, request->session_id, -1, NULL,
                                       PD_EVENTS_VIEW_LATEST_MAX, request->cancellable,
                                       on_latest_loaded, request);
  else
    pd_events_view_fetch (self, request);
}

static void
on_earlier_loaded (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(PdEventsView) self = user_data;
  g_autoptr(GPtrArray) stored = NULL;
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GError) error = NULL;

  stored = pd_source_get_latest_events_finish (PD_SOURCE (object), result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&self->earlier);
  gtk_widget_set_sensitive (GTK_WIDGET (self->earlier_button), TRUE);
  if (stored == NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Earlier events could not be read: %s"), error->message);

      gtk_label_set_text (self->earlier_label, text);
      return;
    }
  for (guint i = 0; i < stored->len; i++)
    {
      PdStoredEvent *event = g_ptr_array_index (stored, i);

      /* Only before the oldest listed: a stream rewritten meanwhile lists
       * nothing twice. */
      if (event->seq < self->first_seq)
        g_ptr_array_add (items, pd_events_view_item_new (self, event));
    }
  if (items->len > 0)
    {
      self->first_seq = pd_event_item_get_seq (g_ptr_array_index (items, 0));
      /* Asked for: kept while following, until the list starts again. */
      self->keep += items->len;
      /* Reading earlier rows is no scroll: the person stays where they are. */
      g_list_store_splice (self->events, 0, 0, items->pdata, items->len);
    }
  self->more_earlier = stored->len >= PD_EVENTS_VIEW_LATEST_MAX && items->len > 0;
  pd_events_view_update_earlier (self);
  pd_events_view_update_state (self);
}

static void
on_earlier_clicked_cb (PdEventsView *self)
{
  PdSessionView *view = PD_SESSION_VIEW (self);

  if (self->earlier != NULL || self->first_seq == 0 || pd_session_view_get_source (view) == NULL)
    return;
  self->earlier = g_cancellable_new ();
  gtk_widget_set_sensitive (GTK_WIDGET (self->earlier_button), FALSE);
  pd_source_get_latest_events_async (pd_session_view_get_source (view), pd_session_view_get_session_id (view),
                                     self->first_seq, NULL, PD_EVENTS_VIEW_LATEST_MAX, self->earlier,
                                     on_earlier_loaded, g_object_ref (self));
}

/* A new source or session: what is listed belongs to the old one. */
static void
pd_events_view_clear (PdSessionView *view)
{
  PdEventsView *self = PD_EVENTS_VIEW (view);

  pd_events_view_forget (self);
  self->loaded = FALSE;
  g_cancellable_cancel (self->earlier);
  g_clear_object (&self->earlier);
  gtk_widget_set_sensitive (GTK_WIDGET (self->earlier_button), TRUE);
  pd_events_view_update_earlier (self);

  gtk_drop_down_set_selected (self->type_dropdown, 0);
  gtk_string_list_splice (self->types, 1,
                          g_list_model_get_n_items (G_LIST_MODEL (self->types)) - 1, NULL);
  g_hash_table_remove_all (self->seen_types);
  /* Another session's stream: it is tailed from its newest. */
  pd_events_view_set_following (self, TRUE);
  pd_events_view_update_state (self);
}

/* --- tailing ----------------------------------------------------------------- */

static gboolean
at_bottom (GtkAdjustment *adjustment)
{
  return gtk_adjustment_get_value (adjustment) + gtk_adjustment_get_page_size (adjustment) >=
         gtk_adjustment_get_upper (adjustment) - 2;
}

/* Hides the rows until they show the newest (or the person scrolled).
 * A bound of frames, not of time (a loaded machine draws fewer frames in
 * a second, not fewer layouts before the newest is in view): a list that
 * could not move is shown anyway. */
#define SETTLE_MAX_FRAMES 60

static void
pd_events_view_set_settling (PdEventsView *self,
                             gboolean      settling)
{
  if (self->settle_tick != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->settle_tick);
  self->settle_tick = 0;
  self->settle_frames = 0;
  self->settling = settling;
  self->laid_out = FALSE;
  gtk_widget_set_opacity (GTK_WIDGET (self->scroller), settling ? 0 : 1);
  /* The count tells of rows one sees: not while they settle see-through
   * ("200 events" over a table that drew nothing, as the read went on or
   * after a filter; tried with the keyboard alone).  Its opacity, not its
   * text: this may run in the list's layout. */
  gtk_widget_set_opacity (GTK_WIDGET (self->count_label), settling ? 0 : 1);
}

static gboolean
on_settle_tick (GtkWidget     *widget,
                GdkFrameClock *clock,
                gpointer       data)
{
  PdEventsView *self = PD_EVENTS_VIEW (widget);

  if (gtk_widget_get_mapped (GTK_WIDGET (self->scroller)) && ++self->settle_frames >= SETTLE_MAX_FRAMES)
    {
      self->settle_tick = 0;
      pd_events_view_set_settling (self, FALSE);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static void
pd_events_view_settle (PdEventsView *self)
{
  if (self->settling)
    return;
  pd_events_view_set_settling (self, TRUE);
  self->settle_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self), on_settle_tick, NULL, NULL);
}

/* Shown once laid out at the newest, or when not following. */
static void
pd_events_view_check_settled (PdEventsView *self)
{
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (self->scroller);

  if (!self->settling)
    return;
  /* The adjustment is the list's word once it laid out these rows: before,
   * it may still be that of the rows it had. */
  if (!self->following ||
      (self->loaded && self->laid_out && gtk_widget_get_mapped (GTK_WIDGET (self->scroller)) &&
       gtk_adjustment_get_page_size (adjustment) > 0 && at_bottom (adjustment)))
    pd_events_view_set_settling (self, FALSE);
}

/* The rows' list inside the column view (a GtkListView of its own). */
static GtkWidget *
rows_list (PdEventsView *self)
{
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->column_view));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_VIEW (child))
      return child;

  return NULL;
}

/* The list is asked to show its last row, not the adjustment to move.
 *
 * GTK 4.8's GtkListBase turns an adjustment value into rows only from its
 * value-changed handler, which it blocks while it reconfigures the
 * adjustment during layout: a value set then moved the scrollbar but the
 * first rows stayed drawn.  Set any other time, the handler looks the value
 * up among the rows it last laid out and warns ("failed to scroll to given
 * position", fatal in the tests) when no row is there: the list not yet
 * allocated, emptied (a session switch, a filter) or grown since.
 * "list.scroll-to-item" instead anchors the list on the item; the list lays
 * itself out around it and sets the adjustment to match, and an item it does
 * not know is ignored.  It never warns. */
static void
pd_events_view_scroll_to_newest (PdEventsView *self)
{
  GtkWidget *list = rows_list (self);
  guint n_items = g_list_model_get_n_items (G_LIST_MODEL (self->selection));

  if (list == NULL || n_items == 0)
    return;

  gtk_widget_activate_action (list, "list.scroll-to-item", "u", n_items - 1);
}

/* In an idle, once what changed the rows or the adjustment is over.  A
 * row the list has measured is put at the bottom of the view; a row it has
 * not measured yet (added since its last layout) lands just below it, and
 * the layout that measures it reconfigures the adjustment, which queues
 * this once more: the newest is in view one frame later. */
static void
pd_events_view_follow_idle (gpointer user_data)
{
  PdEventsView *self = user_data;

  self->follow_idle = 0;
  self->reconfigured = FALSE;
  self->trimmed = FALSE;
  /* Following again after the list was held: it reads on from its
   * newest, keeping what it did before the person read back. */
  if (self->following && self->held)
    {
      self->held = FALSE;
      self->keep = PD_EVENTS_VIEW_KEEP_MAX;
      pd_session_view_queue_reload (PD_SESSION_VIEW (self));
    }
  if (self->following && !at_bottom (gtk_scrolled_window_get_vadjustment (self->scroller)))
    pd_events_view_scroll_to_newest (self);
  pd_events_view_check_settled (self);
}

static void
pd_events_view_queue_follow (PdEventsView *self)
{
  /* Also when not following: the idle ends the reconfigured window. */
  if (self->follow_idle == 0)
    self->follow_idle = g_idle_add_once (pd_events_view_follow_idle, self);
}

static void
pd_events_view_jump_idle (gpointer user_data)
{
  PdEventsView *self = user_data;

  self->jump_idle = 0;
  gtk_widget_set_visible (GTK_WIDGET (self->jump_button),
                          !self->following && g_list_model_get_n_items (G_LIST_MODEL (self->filtered)) > 0);
}

static void
pd_events_view_set_following (PdEventsView *self,
                              gboolean      following)
{
  following = !!following;
  /* The arrow is in the top bar, laid out before the list: shown or hidden
   * from the list's layout (the adjustment moves there), the bar was drawn
   * unallocated ("Trying to snapshot GtkBox without a current allocation")
   * or not at all.  From there, after the frame, in an idle. */
  if (self->in_layout)
    {
      if (self->jump_idle == 0)
        self->jump_idle = g_idle_add_once (pd_events_view_jump_idle, self);
    }
  else
    {
      g_clear_handle_id (&self->jump_idle, g_source_remove);
      gtk_widget_set_visible (GTK_WIDGET (self->jump_button),
                              !following && g_list_model_get_n_items (G_LIST_MODEL (self->filtered)) > 0);
    }
  if (self->following == following)
    return;
  self->following = following;
  if (following && self->held)
    pd_events_view_queue_follow (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FOLLOWING]);
}

/* The adjustment moved.  When its size is what it was, the person scrolled:
 * at the bottom they follow again, anywhere else they stop following.  When
 * the content grew (or the view was resized), following goes on. */
static void
on_adjustment_value_changed (PdEventsView  *self,
                             GtkAdjustment *adjustment)
{
  double upper = gtk_adjustment_get_upper (adjustment);
  double page_size = gtk_adjustment_get_page_size (adjustment);
  gboolean resized = upper != self->last_upper || page_size != self->last_page_size ||
                     self->reconfigured || self->trimmed;

  self->last_upper = upper;
  self->last_page_size = page_size;
  self->reconfigured = FALSE;

  self->in_layout = TRUE;
  if (at_bottom (adjustment))
    pd_events_view_set_following (self, TRUE);
  else if (!resized)
    pd_events_view_set_following (self, FALSE);
  else if (self->following)
    pd_events_view_queue_follow (self);
  self->in_layout = FALSE;
  pd_events_view_check_settled (self);
}

static void
on_adjustment_changed (PdEventsView  *self,
                       GtkAdjustment *adjustment)
{
  self->last_upper = gtk_adjustment_get_upper (adjustment);
  self->last_page_size = gtk_adjustment_get_page_size (adjustment);
  /* The list reconfigures the adjustment during layout (rows added, shown
   * again, resized) and emits value-changed right after: not the person. */
  self->reconfigured = TRUE;
  if (gtk_widget_get_mapped (GTK_WIDGET (self->scroller)))
    self->laid_out = TRUE;

  pd_events_view_queue_follow (self);
}

/* Rows added while following: the newest is the one to show. */
static void
on_rows_changed (PdEventsView *self,
                 guint         position,
                 guint         removed,
                 guint         added)
{
  guint n_items = g_list_model_get_n_items (G_LIST_MODEL (self->selection));

  /* The first rows of a stream: drawn once at the newest. */
  if (self->following && added > 0 && n_items == added)
    pd_events_view_settle (self);
  if (added > 0 && !gtk_widget_get_mapped (GTK_WIDGET (self->scroller)))
    self->grew_hidden = TRUE;
  if (self->following && added > 0)
    pd_events_view_queue_follow (self);
}

/* Shown again after rows came: drawn once at the newest, not first where
 * it was and then moved. */
static void
on_scroller_map (PdEventsView *self)
{
  if (self->following && self->grew_hidden)
    pd_events_view_settle (self);
  self->grew_hidden = FALSE;
  pd_events_view_queue_follow (self);
}

static void
on_jump_clicked_cb (PdEventsView *self)
{
  pd_events_view_set_following (self, TRUE);
  pd_events_view_scroll_to_newest (self);
  pd_events_view_queue_follow (self);
}

/* --- filter and details -------------------------------------------------- */

static gboolean
filter_by_type (gpointer item,
                gpointer user_data)
{
  PdEventsView *self = PD_EVENTS_VIEW (user_data);
  const char *type = pd_events_view_get_type_filter (self);

  return type == NULL || g_strcmp0 (pd_event_item_get_event_type (PD_EVENT_ITEM (item)), type) == 0;
}

static void
on_type_dropdown_selected_cb (PdEventsView *self)
{
  g_assert (PD_IS_EVENTS_VIEW (self));

  if (self->filter != NULL)
    gtk_filter_changed (GTK_FILTER (self->filter), GTK_FILTER_CHANGE_DIFFERENT);
  pd_events_view_update_state (self);
}

static void
on_selected_item_changed (PdEventsView *self)
{
  PdEventItem *item = gtk_single_selection_get_selected_item (self->selection);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->details_view);

  if (item == NULL)
    {
      gtk_text_buffer_set_text (buffer, "", -1);
      gtk_stack_set_visible_child_name (self->details_stack, "none");
      return;
    }

  /* gtk_text_buffer_set_text never reads markup: JSON stays as it is. */
  gtk_text_buffer_set_text (buffer, pd_event_item_get_details (item), -1);
  gtk_stack_set_visible_child_name (self->details_stack, "details");
}

/* --- GObject ------------------------------------------------------------- */

static void
pd_events_view_dispose (GObject *object)
{
  PdEventsView *self = PD_EVENTS_VIEW (object);

  g_cancellable_cancel (self->earlier);
  g_clear_object (&self->earlier);
  g_clear_handle_id (&self->compact_idle, g_source_remove);
  g_clear_handle_id (&self->follow_idle, g_source_remove);
  g_clear_handle_id (&self->jump_idle, g_source_remove);
  if (self->settle_tick != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->settle_tick);
  self->settle_tick = 0;

  if (self->scroller != NULL)
    g_signal_handlers_disconnect_by_data (gtk_scrolled_window_get_vadjustment (self->scroller), self);
  if (self->selection != NULL)
    g_signal_handlers_disconnect_by_data (self->selection, self);
  gtk_widget_dispose_template (GTK_WIDGET (self), PD_TYPE_EVENTS_VIEW);
  /* The root box of the template is not bound to a field, so unparent it. */
  {
    GtkWidget *child = gtk_widget_get_last_child (GTK_WIDGET (self));

    if (GTK_IS_BOX (child))
      gtk_widget_unparent (child);
  }
  g_clear_object (&self->selection);
  g_clear_object (&self->filtered);
  g_clear_object (&self->filter);
  g_clear_object (&self->events);
  g_clear_object (&self->types);

  G_OBJECT_CLASS (pd_events_view_parent_class)->dispose (object);
}

static void
pd_events_view_finalize (GObject *object)
{
  PdEventsView *self = PD_EVENTS_VIEW (object);

  g_clear_pointer (&self->seen_types, g_hash_table_unref);

  G_OBJECT_CLASS (pd_events_view_parent_class)->finalize (object);
}

static void
pd_events_view_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  PdEventsView *self = PD_EVENTS_VIEW (object);

  switch (prop_id)
    {
    case PROP_LIVE:
      g_value_set_boolean (value, pd_events_view_get_live (self));
      break;
    case PROP_FOLLOWING:
      g_value_set_boolean (value, self->following);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_events_view_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  PdEventsView *self = PD_EVENTS_VIEW (object);

  switch (prop_id)
    {
    case PROP_LIVE:
      pd_events_view_set_live (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_events_view_apply_compact (gpointer data)
{
  PdEventsView *self = data;
  gboolean compact = self->want_compact;

  self->compact_idle = 0;
  if (compact == self->compact)
    return;
  self->compact = compact;
  gtk_column_view_column_set_visible (self->time_column, !compact);
  gtk_column_view_column_set_visible (self->type_column, !compact);
  gtk_column_view_column_set_visible (self->iteration_column, !compact);
  gtk_column_view_column_set_visible (self->tool_column, !compact);
  gtk_column_view_column_set_visible (self->summary_column, !compact);
  gtk_column_view_column_set_visible (self->compact_column, compact);
  /* One cell per row: no header to read. */
  gtk_widget_set_visible (gtk_widget_get_first_child (GTK_WIDGET (self->column_view)), !compact);
}

/* The scroller's width (its page) decides: a widget with a layout
 * manager gets no size_allocate call of its own to decide in.  Columns
 * change after this allocation, never during it. */
static void
on_page_size (PdEventsView *self)
{
  double width = gtk_adjustment_get_page_size (gtk_scrolled_window_get_hadjustment (self->scroller));

  if (width <= 0)
    return;
  self->want_compact = width < _pd_text_width (GTK_WIDGET (self), COMPACT_BELOW_CHARS);
  if (self->want_compact != self->compact && self->compact_idle == 0)
    self->compact_idle = g_idle_add_once (pd_events_view_apply_compact, self);
}

/**
 * pd_events_view_get_compact:
 *
 * Returns: whether the view is narrow enough to show one compact row per
 *   event instead of columns
 */
gboolean
pd_events_view_get_compact (PdEventsView *self)
{
  g_return_val_if_fail (PD_IS_EVENTS_VIEW (self), FALSE);

  return self->compact;
}

static void
pd_events_view_class_init (PdEventsViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = pd_events_view_dispose;
  object_class->finalize = pd_events_view_finalize;
  object_class->get_property = pd_events_view_get_property;
  object_class->set_property = pd_events_view_set_property;

  PD_SESSION_VIEW_CLASS (klass)->reload = pd_events_view_reload;
  PD_SESSION_VIEW_CLASS (klass)->clear = pd_events_view_clear;
  /* Reading after the last event is cheap: polling backs the push up. */
  pd_session_view_class_set_polls (PD_SESSION_VIEW_CLASS (klass), TRUE);
  /* Read when shown only: the Now page reads its notices itself. */

  /**
   * PdEventsView:live:
   *
   * Whether a run of the session is going on: the fallback polling is
   * faster then (PdSessionView:running).
   */
  properties[PROP_LIVE] =
    g_param_spec_boolean ("live", NULL, NULL,
                          FALSE,
                          (G_PARAM_READWRITE |
                           G_PARAM_EXPLICIT_NOTIFY |
                           G_PARAM_STATIC_STRINGS));
  /**
   * PdEventsView:following:
   *
   * Whether the list follows the newest event (the person is at its end);
   * scrolling up stops it, the jump button or scrolling down starts it.
   */
  properties[PROP_FOLLOWING] =
    g_param_spec_boolean ("following", NULL, NULL,
                          TRUE,
                          (G_PARAM_READABLE |
                           G_PARAM_EXPLICIT_NOTIFY |
                           G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);


  g_type_ensure (PD_TYPE_EVENT_ITEM);
  g_type_ensure (PD_TYPE_ROW_NAME);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/plandeck/Plandeck/ui/pd-events-view.ui");
  gtk_widget_class_bind_template_child (widget_class, PdEventsView, session_title);
  gtk_widget_class_bind_template_child (widget_class, PdEventsView, type_dropdown);
  gtk_widget_class_bind_template_child (widget_class, PdEventsView, count_label);
  gtk_widget_class_bind_template_child (widget_class, PdEventsView, jump_button);
  gtk_widget_class_bind_template_child (widget_class, PdEventsView, earlier_bar);
  gtk_widget_class_bind_template_child (widget_class, PdEventsView, earlier_label);
  gtk_widget_class_bind_template_child (widget_class, PdEventsView, earlier_button);
  gtk_widget_class_bind_template_child (widget_class, PdEventsView, left_out_label);
  gtk_widget_class_bind_template_child (widget_class, PdEventsView, stack);
  gtk_widget_class_bind_template_child (widget_class, PdEventsView, scroller);
  gtk_widget_class_bind_template_child (widget_class, PdEventsView, column_view);
  gtk_widget_class_bind_template_child (widget_class, PdEventsView, time_column);
  gtk_widget_class_bind_template_child (widget_class, PdEventsView, type_column);
  gtk_widget_class_bind_template_child (widget_class, PdEventsView, iteration_column);
  gtk_widget_class_bind_template_child (widget_class, PdEventsView, tool_column);
  gtk_widget_class_bind_template_child (widget_class, PdEventsView, summary_column);
  gtk_widget_class_bind_template_child (widget_class, PdEventsView, compact_column);
  gtk_widget_class_bind_template_child (widget_class, PdEventsView, details_stack);
  gtk_widget_class_bind_template_child (widget_class, PdEventsView, details_view);
  gtk_widget_class_bind_template_callback (widget_class, on_type_dropdown_selected_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_jump_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, on_earlier_clicked_cb);
}

static void
pd_events_view_init (PdEventsView *self)
{
  const char * const all[] = { _("All Types"), NULL };

  self->seen_types = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->keep = PD_EVENTS_VIEW_KEEP_MAX;
  self->types = gtk_string_list_new (all);

  gtk_widget_init_template (GTK_WIDGET (self));
  _pd_stack_tab_shown_only (self->stack);
  _pd_stack_tab_shown_only (self->details_stack);
  g_signal_connect_object (gtk_scrolled_window_get_hadjustment (self->scroller), "notify::page-size",
                           G_CALLBACK (on_page_size), self, G_CONNECT_SWAPPED);

  gtk_drop_down_set_model (self->type_dropdown, G_LIST_MODEL (self->types));
  {
    g_autoptr(GtkListItemFactory) factory = _pd_events_view_type_factory ();

    gtk_drop_down_set_factory (self->type_dropdown, factory);
  }
  /* In the open list a name is shown whole: "Tool call …" three times could
   * not be told apart (tried as a new user would).  The list grows to it;
   * each item is named by its text. */
  _pd_drop_down_name_choices (self->type_dropdown, _pd_event_type_label);
  gtk_drop_down_set_selected (self->type_dropdown, 0);
  _pd_name_drop_down (self->type_dropdown, _("Event type"));
  _pd_list_one_tab_stop (GTK_WIDGET (self->column_view));
  /* Its rows' list, inside the column view, was "GtkColumnListView". */
  _pd_list_views_name (GTK_WIDGET (self->column_view), _("Events"));
  {
    GtkColumnViewColumn *columns[] = { self->time_column, self->type_column, self->iteration_column,
                                       self->tool_column, self->summary_column };

    _pd_events_view_name_header (self->column_view, columns, G_N_ELEMENTS (columns));
  }

  self->events = g_list_store_new (PD_TYPE_EVENT_ITEM);
  self->filter = gtk_custom_filter_new (filter_by_type, self, NULL);
  self->filtered = gtk_filter_list_model_new (G_LIST_MODEL (g_object_ref (self->events)),
                                              GTK_FILTER (g_object_ref (self->filter)));
  self->selection = gtk_single_selection_new (G_LIST_MODEL (g_object_ref (self->filtered)));
  gtk_single_selection_set_autoselect (self->selection, FALSE);
  gtk_single_selection_set_can_unselect (self->selection, TRUE);
  gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
  g_signal_connect_swapped (self->selection, "notify::selected-item",
                            G_CALLBACK (on_selected_item_changed), self);
  g_signal_connect_swapped (self->filtered, "items-changed",
                            G_CALLBACK (pd_events_view_update_state), self);
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));

  self->following = TRUE;
  g_signal_connect_object (gtk_scrolled_window_get_vadjustment (self->scroller), "value-changed",
                           G_CALLBACK (on_adjustment_value_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (gtk_scrolled_window_get_vadjustment (self->scroller), "changed",
                           G_CALLBACK (on_adjustment_changed), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->selection, "items-changed",
                           G_CALLBACK (on_rows_changed), self, G_CONNECT_SWAPPED | G_CONNECT_AFTER);
  /* Rows that arrived while hidden: shown again, the newest is in view. */
  g_signal_connect_object (self->scroller, "map",
                           G_CALLBACK (on_scroller_map), self, G_CONNECT_SWAPPED);
  pd_events_view_update_state (self);
}

GtkWidget *
pd_events_view_new (void)
{
  return g_object_new (PD_TYPE_EVENTS_VIEW, NULL);
}

/**
 * pd_events_view_refresh:
 *
 * Reads the events after the last one listed and appends them; hidden,
 * the view reads nothing until it is shown, and then once.
 */
void
pd_events_view_refresh (PdEventsView *self)
{
  g_return_if_fail (PD_IS_EVENTS_VIEW (self));

  pd_session_view_queue_reload (PD_SESSION_VIEW (self));
}

gboolean
pd_events_view_get_live (PdEventsView *self)
{
  g_return_val_if_fail (PD_IS_EVENTS_VIEW (self), FALSE);
  return pd_session_view_get_running (PD_SESSION_VIEW (self));
}

/**
 * pd_events_view_set_live:
 * @live: whether a run is going on
 *
 * New events arrive through the source's ::changed; while live and
 * visible the view also polls every %PD_EVENTS_VIEW_POLL_MS as a fallback.
 * A hidden view reads nothing: it catches up once when shown.
 */
void
pd_events_view_set_live (PdEventsView *self,
                         gboolean      live)
{
  g_return_if_fail (PD_IS_EVENTS_VIEW (self));

  live = !!live;
  if (pd_events_view_get_live (self) == live)
    return;

  pd_session_view_set_running (PD_SESSION_VIEW (self), live);
  /* Not while hidden: a read started then (the window marks the shown
   * session live while the Now page is up) raced the one the page starts
   * when it is shown. */
  if (live)
    pd_session_view_queue_reload (PD_SESSION_VIEW (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LIVE]);
}

/**
 * pd_events_view_get_following:
 *
 * Returns: whether the list follows the newest event
 */
gboolean
pd_events_view_get_following (PdEventsView *self)
{
  g_return_val_if_fail (PD_IS_EVENTS_VIEW (self), FALSE);
  return self->following;
}

/**
 * pd_events_view_jump_to_newest:
 *
 * Shows the newest event and follows again (the jump button).
 */
void
pd_events_view_jump_to_newest (PdEventsView *self)
{
  g_return_if_fail (PD_IS_EVENTS_VIEW (self));
  on_jump_clicked_cb (self);
}

/**
 * pd_events_view_get_type_filter:
 *
 * Returns: (nullable): the event type shown, or %NULL for all
 */
const char *
pd_events_view_get_type_filter (PdEventsView *self)
{
  guint selected;

  g_return_val_if_fail (PD_IS_EVENTS_VIEW (self), NULL);

  selected = gtk_drop_down_get_selected (self->type_dropdown);
  if (selected == 0 || selected == GTK_INVALID_LIST_POSITION)
    return NULL;

  return gtk_string_list_get_string (self->types, selected);
}

/**
 * pd_events_view_set_type_filter:
 * @type: (nullable): an event type present in the list, or %NULL for all
 */
void
pd_events_view_set_type_filter (PdEventsView *self,
                                const char   *type)
{
  guint n;

  g_return_if_fail (PD_IS_EVENTS_VIEW (self));

  n = g_list_model_get_n_items (G_LIST_MODEL (self->types));
  for (guint i = 1; type != NULL && i < n; i++)
    {
      if (g_strcmp0 (gtk_string_list_get_string (self->types, i), type) == 0)
        {
          gtk_drop_down_set_selected (self->type_dropdown, i);
          return;
        }
    }

  gtk_drop_down_set_selected (self->type_dropdown, 0);
}

/**
 * pd_events_view_get_model:
 *
 * Returns: (transfer none): every event listed, unfiltered, as #PdEventItem
 */
GListModel *
pd_events_view_get_model (PdEventsView *self)
{
  g_return_val_if_fail (PD_IS_EVENTS_VIEW (self), NULL);
  return G_LIST_MODEL (self->events);
}

gint64
pd_events_view_get_last_seq (PdEventsView *self)
{
  g_return_val_if_fail (PD_IS_EVENTS_VIEW (self), 0);
  return self->last_seq;
}

/**
 * pd_events_view_set_title:
 * @title: (nullable): the session's title, anyone's text (the agent's)
 *
 * Heads the events with the session's title, above the table.
 */
void
pd_events_view_set_title (PdEventsView *self,
                          const char   *title)
{
  g_return_if_fail (PD_IS_EVENTS_VIEW (self));
  _pd_session_heading_set (self->session_title, title);
}
