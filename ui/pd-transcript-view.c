/* pd-transcript-view.c: a session's messages, by role
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The messages live in a GListStore of PdMessageItem shown by a GtkListView.
 * A refresh merges by index: rows whose message is unchanged keep their
 * item, a changed message (the plan message is rewritten in place every
 * turn) replaces its one item, new messages are appended, and a transcript
 * that got shorter loses its tail.  So a session that grows while a run goes
 * on neither flickers nor loses its scroll position.
 *
 * An imported transcript the window follows is read on from where it was
 * (pd-import-follow.c): a reload asks for the newest messages only, those
 * that may still change (PD_TRANSCRIPT_VIEW_FOLLOW_TAIL) and what came
 * after, so the rows shown are compared there only and the new ones
 * appended (a 30 MB Claude Code session grown by 200 lines every 0.5 s,
 * tried as an attacker would, had every row rebuilt and compared on the
 * main thread for each change).
 *
 * Of another agent's long transcript (300,000 plan calls in 209 MB, tried
 * as an attacker would: the window held every message, 1.7–3.8 GB) only
 * the newest part is read (PD_SESSION_READS_PART_MAX messages, in a worker
 * that stops when the session is left); "Show Earlier Messages" above the
 * list reads the part before the first one shown, and so on.  Of one read
 * whole the newest PD_SESSION_READS_WHOLE_MAX are listed, and a followed
 * one keeps to that as it grows (1.15 M one-letter messages in 63 MB were
 * all listed: 0.9 GB, tried as an attacker would).
 *
 * It opens at the newest message, as a chat does, and follows new ones
 * while the person is there; scrolled up, it stays.  Each session keeps
 * where it was read: the message at the top, or the newest.  A long
 * session opened at its oldest, and the page went back to its top on each
 * switch to the Now page and back (tried as a new user would).  The list
 * is moved with "list.scroll-to-item", in an idle: GTK 4.8's list view
 * ignores an adjustment value set during its layout (see
 * pd-events-view.c).
 */
#define G_LOG_DOMAIN "pd-transcript-view"

#include "config.h"

#include <glib/gi18n.h>
#include <adwaita.h>

#include "pd-message-item.h"
#include "pd-message-row.h"
#include "pd-session-reads.h"
#include "pd-transcript-view.h"
#include "pd-transcript-view-private.h"
#include "pd-ui-util-private.h"

struct _PdTranscriptView
{
  PdSessionView      parent_instance;

  GListStore        *messages;
  guint64            first;          /* the first message shown's index */
  guint64            lineage;        /* of the last read (0: none followed) */
  guint              n_built;        /* rows built to merge a read, for the tests */
  guint              n_merged;       /* reads merged, for the tests */
  GCancellable      *earlier;        /* "Show Earlier Messages" in flight */
  guint              rows_max;       /* what a followed transcript keeps listed */
  gboolean           run_stopped;    /* see pd_transcript_view_set_run_stopped() */

  /* Where each session was read: session id → Place. */
  GHashTable        *places;
  gboolean           following;      /* the newest message kept in view */
  guint64            anchor;         /* a message to bring to the top, or NO_ANCHOR */
  gboolean           anchor_near;    /* the list is at its end: the anchor goes to the top */
  gboolean           reconfigured;   /* the list changed the adjustment: no scroll of the person's */
  double             reconfigured_value; /* the value it set then */
  double             last_upper;
  double             last_page_size;
  guint              place_idle;
  gboolean           top_pending;    /* the top message to be taken once laid out */
  GdkFrameClock     *clock;          /* while the list is mapped */
  gulong             after_paint;

  /* Template widgets */
  GtkLabel          *session_title;
  GtkWidget         *earlier_bar;
  GtkLabel          *earlier_label;
  GtkButton         *earlier_button;
  GtkStack          *stack;
  AdwStatusPage     *empty_page;
  GtkScrolledWindow *scroller;
  GtkListView       *list_view;
};

G_DEFINE_FINAL_TYPE (PdTranscriptView, pd_transcript_view, PD_TYPE_SESSION_VIEW)

#define NO_ANCHOR G_MAXUINT64

typedef struct
{
  gboolean following;
  guint64  top;        /* the message at the top of the view */
} Place;

/* --- where it is read ----------------------------------------------------- */

static gboolean
at_bottom (GtkAdjustment *adjustment)
{
  return gtk_adjustment_get_value (adjustment) + gtk_adjustment_get_page_size (adjustment) >=
         gtk_adjustment_get_upper (adjustment) - 2;
}

/* The index of the message whose row is at the top of the view: the
 * first of the rows the list shows (mapped) that reaches below its top.
 * A pick at the top found the rows GTK 4.8 no longer shows, mapped no
 * more but where they were last laid out, over the ones shown; and at the
 * very top, the row's margin, no message. */
static gboolean
top_message (PdTranscriptView *self,
             guint64          *index)
{
  GtkWidget *list = GTK_WIDGET (self->list_view);
  PdMessageItem *top = NULL;
  float top_y = G_MAXFLOAT;

  for (GtkWidget *child = gtk_widget_get_first_child (list); child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *row = gtk_widget_get_first_child (child);
      graphene_rect_t bounds;

      if (!gtk_widget_get_mapped (child) || row == NULL || !PD_IS_MESSAGE_ROW (row) ||
          pd_message_row_get_item (PD_MESSAGE_ROW (row)) == NULL ||
          !gtk_widget_compute_bounds (child, list, &bounds) ||
          bounds.origin.y + bounds.size.height <= 0 || bounds.origin.y >= top_y)
        continue;
      top = pd_message_row_get_item (PD_MESSAGE_ROW (row));
      top_y = bounds.origin.y;
    }
  if (top == NULL)
    return FALSE;
  *index = pd_message_item_get_index (top);
  return TRUE;
}

static void
scroll_to_position (PdTranscriptView *self,
                    guint             position)
{
  gtk_widget_activate_action (GTK_WIDGET (self->list_view), "list.scroll-to-item", "u", position);
}

/* In an idle, once the rows or the adjustment changed: the newest brought
 * into view while following; a place kept brought back, in two steps (the
 * list at its end first, so that the message scrolled to goes to the top:
 * GTK 4.8 scrolls an item below the view to the bottom of it). */
static void
place_idle (gpointer user_data)
{
  PdTranscriptView *self = user_data;
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (self->scroller);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->messages));

  self->place_idle = 0;
  self->reconfigured = FALSE;
  if (n == 0 || !gtk_widget_get_mapped (GTK_WIDGET (self->list_view)))
    return;
  if (self->anchor != NO_ANCHOR)
    {
      if (!self->anchor_near)
        {
          self->anchor_near = TRUE;
          scroll_to_position (self, n - 1);
          self->place_idle = g_idle_add_once (place_idle, self);
          return;
        }
      if (self->anchor >= self->first && self->anchor - self->first < n)
        scroll_to_position (self, (guint) (self->anchor - self->first));
      self->anchor = NO_ANCHOR;
      return;
    }
  if (self->following && !at_bottom (adjustment))
    scroll_to_position (self, n - 1);
}

static void
queue_place (PdTranscriptView *self)
{
  if (self->place_idle == 0)
    self->place_idle = g_idle_add_once (place_idle, self);
}

/* The adjustment moved.  Its size as it was, the person scrolled: at the
 * bottom they follow, anywhere else they read there, which is kept for the
 * session.  The list grew or was laid out again: following goes on. */
static void
on_value_changed (PdTranscriptView *self,
                  GtkAdjustment    *adjustment)
{
  double upper = gtk_adjustment_get_upper (adjustment);
  double page_size = gtk_adjustment_get_page_size (adjustment);
  /* The list's own change comes at the value it configured (GtkAdjustment
   * emits "changed" with the new value in place, then "value-changed"); a
   * scroll of the person's after a change that moved nothing is at another
   * value.  The flag alone stayed set until an idle on a loaded machine,
   * and Ctrl+Home was taken for the list's: the view kept following and
   * went back to the newest message. */
  gboolean resized = upper != self->last_upper || page_size != self->last_page_size ||
                     (self->reconfigured && gtk_adjustment_get_value (adjustment) == self->reconfigured_value);
  const char *id = pd_session_view_get_session_id (PD_SESSION_VIEW (self));
  Place *place;

  self->last_upper = upper;
  self->last_page_size = page_size;
  self->reconfigured = FALSE;
  if (id == NULL || g_list_model_get_n_items (G_LIST_MODEL (self->messages)) == 0 ||
      !gtk_widget_get_mapped (GTK_WIDGET (self->list_view)) || self->anchor != NO_ANCHOR)
    return;
  if (at_bottom (adjustment))
    self->following = TRUE;
  else if (!resized)
    self->following = FALSE;
  else if (self->following)
    queue_place (self);

  place = g_hash_table_lookup (self->places, id);
  if (place == NULL)
    {
      place = g_new0 (Place, 1);
      place->top = self->first;
      g_hash_table_insert (self->places, g_strdup (id), place);
    }
  place->following = self->following;
  /* The message at the top is taken once the list is laid out at this
   * value (after the frame's paint), not now: its rows are still where the
   * last frame put them.  A scroll's last step on a loaded machine jumps
   * far (Ctrl+Home: 273 px to 0), and the message at the top before it,
   * not the first, was brought back after the Now page. */
  self->top_pending = TRUE;
  gtk_widget_queue_draw (GTK_WIDGET (self->list_view));
}

/* A frame laid out and painted: the message at the top of the view, if
 * the person scrolled since the last one. */
static void
on_after_paint (PdTranscriptView *self,
                GdkFrameClock    *clock)
{
  const char *id = pd_session_view_get_session_id (PD_SESSION_VIEW (self));
  Place *place = id != NULL ? g_hash_table_lookup (self->places, id) : NULL;
  GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (self->scroller);

  if (!self->top_pending)
    return;
  self->top_pending = FALSE;
  if (place == NULL || self->anchor != NO_ANCHOR || !gtk_widget_get_mapped (GTK_WIDGET (self->list_view)))
    return;
  /* At the top: the first message, not a pick (its rows may still be
   * where an animated Ctrl+Home left them: Message 16 was kept, and the
   * first message was never in view after the Now page).  Elsewhere the
   * message at the top; no row shown, the place before stands. */
  if (gtk_adjustment_get_value (adjustment) <= gtk_adjustment_get_lower (adjustment))
    place->top = self->first;
  else
    top_message (self, &place->top);
}

static void
stop_frames (PdTranscriptView *self)
{
  if (self->clock != NULL)
    g_clear_signal_handler (&self->after_paint, self->clock);
  g_clear_object (&self->clock);
}

static void
on_adjustment_changed (PdTranscriptView *self,
                       GtkAdjustment    *adjustment)
{
  self->last_upper = gtk_adjustment_get_upper (adjustment);
  self->last_page_size = gtk_adjustment_get_page_size (adjustment);
  self->reconfigured = TRUE;
  self->reconfigured_value = gtk_adjustment_get_value (adjustment);
  queue_place (self);
}

/* Shown again: the list may have forgotten where it was (GTK 4.8 laid a
 * list shown again out from its top). */
static void
on_list_map (PdTranscriptView *self)
{
  const char *id = pd_session_view_get_session_id (PD_SESSION_VIEW (self));
  Place *place = id != NULL ? g_hash_table_lookup (self->places, id) : NULL;

  stop_frames (self);
  self->top_pending = FALSE;
  self->clock = gtk_widget_get_frame_clock (GTK_WIDGET (self->list_view));
  if (self->clock != NULL)
    {
      g_object_ref (self->clock);
      self->after_paint = g_signal_connect_swapped (self->clock, "after-paint", G_CALLBACK (on_after_paint), self);
    }

  if (!self->following && place != NULL && !place->following && self->anchor == NO_ANCHOR)
    {
      self->anchor = place->top;
      self->anchor_near = FALSE;
    }
  queue_place (self);
}

static void
on_messages_changed (PdTranscriptView *self,
                     guint             position,
                     guint             removed,
                     guint             added)
{
  if (added > 0)
    queue_place (self);
}

static void
pd_transcript_view_update_state (PdTranscriptView *self)
{
  gboolean empty = g_list_model_get_n_items (G_LIST_MODEL (self->messages)) == 0;

  if (pd_session_view_get_session_id (PD_SESSION_VIEW (self)) == NULL)
    {
      adw_status_page_set_title (self->empty_page, _("No Session Selected"));
      adw_status_page_set_description (self->empty_page,
                                       _("Choose a session to read its transcript"));
    }
  else
    {
      adw_status_page_set_title (self->empty_page, _("No Messages Yet"));
      adw_status_page_set_description (self->empty_page,
                                       _("The messages of this session will appear here"));
    }

  gtk_stack_set_visible_child_name (self->stack, empty ? "empty" : "messages");

  /* Earlier messages not read: said, with the button that reads them. */
  gtk_widget_set_visible (self->earlier_bar, !empty && self->first > 0);
  if (!empty && self->first > 0)
    {
      g_autofree char *text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                            "%llu earlier message not shown",
                                                            "%llu earlier messages not shown",
                                                            (gulong) MIN (self->first, G_MAXULONG)),
                                               (unsigned long long) self->first);

      gtk_label_set_text (self->earlier_label, text);
    }
}

static PdMessageItem *
item_new (guint64   index,
          JsonNode *node)
{
  g_autoptr(JsonObject) empty = NULL;

  if (JSON_NODE_HOLDS_OBJECT (node))
    return pd_message_item_new_from_json ((guint) MIN (index, G_MAXUINT), json_node_get_object (node));
  empty = json_object_new ();
  return pd_message_item_new_from_json ((guint) MIN (index, G_MAXUINT), empty);
}

/* A followed transcript grown past what the page lists (the newest
 * PD_SESSION_READS_WHOLE_MAX, and the earlier parts read since): its
 * oldest rows go, as the newest part's read leaves them out. */
static void
pd_transcript_view_trim (PdTranscriptView *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->messages));

  if (self->lineage == 0 || n <= self->rows_max)
    return;
  g_list_store_splice (self->messages, 0, n - self->rows_max, NULL, 0);
  self->first += n - self->rows_max;
}

/* Merge @array, the messages from @first on, into the store by index; see
 * the comment at the top.  Earlier parts read with "Show Earlier Messages"
 * stay above it. */
static void
pd_transcript_view_merge (PdTranscriptView *self,
                          JsonArray        *array,
                          guint64           first)
{
  guint n_new = json_array_get_length (array);
  guint n_old;
  g_autoptr(GPtrArray) appended = g_ptr_array_new_with_free_func (g_object_unref);

  self->n_merged++;

  /* A part that begins before what is shown (or a shorter transcript):
   * shown from its start. */
  if (first < self->first || first - self->first > g_list_model_get_n_items (G_LIST_MODEL (self->messages)))
    {
      g_list_store_remove_all (self->messages);
      self->first = first;
    }
  else if (first > self->first)
    {
      /* The newest part moved on: what lies between stays as read. */
      guint kept = (guint) (first - self->first);

      n_old = g_list_model_get_n_items (G_LIST_MODEL (self->messages));
      for (guint i = 0; i < n_new; i++)
        {
          g_autoptr(PdMessageItem) item = item_new (first + i, json_array_get_element (array, i));

          self->n_built++;
          if (kept + i < n_old)
            {
              g_autoptr(PdMessageItem) old = g_list_model_get_item (G_LIST_MODEL (self->messages), kept + i);

              if (!pd_message_item_equal (old, item))
                g_list_store_splice (self->messages, kept + i, 1, (gpointer *) &item, 1);
            }
          else
            g_ptr_array_add (appended, g_steal_pointer (&item));
        }
      if (kept + n_new < n_old)
        g_list_store_splice (self->messages, kept + n_new, n_old - kept - n_new, NULL, 0);
      else if (appended->len > 0)
        g_list_store_splice (self->messages, n_old, 0, appended->pdata, appended->len);
      return;
    }
  n_old = g_list_model_get_n_items (G_LIST_MODEL (self->messages));

  for (guint i = 0; i < n_new; i++)
    {
      g_autoptr(PdMessageItem) item = item_new (first + i, json_array_get_element (array, i));

      self->n_built++;
      if (i < n_old)
        {
          g_autoptr(PdMessageItem) old = g_list_model_get_item (G_LIST_MODEL (self->messages), i);

          if (!pd_message_item_equal (old, item))
            g_list_store_splice (self->messages, i, 1, (gpointer *) &item, 1);
        }
      else
        g_ptr_array_add (appended, g_steal_pointer (&item));
    }

  if (n_new < n_old)
    g_list_store_splice (self->messages, n_new, n_old - n_new, NULL, 0);
  else if (appended->len > 0)
    g_list_store_splice (self->messages, n_old, 0, appended->pdata, appended->len);
}

/* The last plan card of a run that stopped short shows its step in
 * progress as the Now page does; the cards before it were plans the run
 * went on from.  Items do not change: a copy takes the place of one. */
static void
pd_transcript_view_sync_run_stopped (PdTranscriptView *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->messages));
  gboolean last_plan = TRUE;

  for (guint i = n; i-- > 0;)
    {
      g_autoptr(PdMessageItem) item = g_list_model_get_item (G_LIST_MODEL (self->messages), i);
      gboolean stopped;

      if (!pd_message_item_get_is_plan (item))
        continue;
      stopped = self->run_stopped && last_plan;
      last_plan = FALSE;
      if (pd_message_item_get_run_stopped (item) != stopped)
        {
          g_autoptr(PdMessageItem) copy = pd_message_item_copy_run_stopped (item, stopped);

          g_list_store_splice (self->messages, i, 1, (gpointer *) &copy, 1);
        }
    }
}

static void
on_messages_loaded (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(PdSessionViewRequest) request = user_data;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GError) error = NULL;
  PdTranscriptView *self;

  guint64 first = 0, total = 0, lineage = 0;

  messages = pd_source_get_messages_since_finish (PD_SOURCE (object), result, &first, &total, &lineage, &error);

  /* Another source or session is shown now, or the view is gone. */
  if (!pd_session_view_request_is_current (request))
    return;
  self = PD_TRANSCRIPT_VIEW (request->view);
  if (messages != NULL)
    self->lineage = lineage;

  /* A session with no stored transcript yet is empty, not broken. */
  if (g_error_matches (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND))
    g_clear_error (&error);
  else if (messages != NULL)
    {
      pd_transcript_view_merge (self, messages, first);
      pd_transcript_view_trim (self);
    }
  pd_transcript_view_sync_run_stopped (self);

  pd_transcript_view_update_state (self);
  pd_session_view_reload_done (request, error);
}

static void
pd_transcript_view_reload (PdSessionView        *view,
                           PdSessionViewRequest *request)
{
  PdTranscriptView *self = PD_TRANSCRIPT_VIEW (view);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->messages));
  guint64 from = 0;

  /* A followed transcript shown whole: what may have changed and what
   * came after.  Else the newest part: the whole of any transcript but a
   * long one. */
  if (self->lineage != 0 && n > PD_TRANSCRIPT_VIEW_FOLLOW_TAIL)
    from = self->first + n - PD_TRANSCRIPT_VIEW_FOLLOW_TAIL;
  pd_source_get_messages_since_async (request->source, request->session_id, from, self->lineage,
                                      request->cancellable, on_messages_loaded, request);
}

static void
on_earlier_loaded (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(PdTranscriptView) self = user_data;
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  guint64 first = 0, total = 0;
  guint n;

  messages = pd_source_get_messages_part_finish (PD_SOURCE (object), result, &first, &total, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  g_clear_object (&self->earlier);
  gtk_widget_set_sensitive (GTK_WIDGET (self->earlier_button), TRUE);
  if (messages == NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Earlier messages could not be read: %s"), error->message);

      gtk_label_set_text (self->earlier_label, text);
      return;
    }
  /* The part ends where what is shown begins; anything else (the
   * transcript was rewritten) is read again from its newest part. */
  n = json_array_get_length (messages);
  if (first + n != self->first)
    {
      pd_session_view_reload (PD_SESSION_VIEW (self));
      return;
    }
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (items, item_new (first + i, json_array_get_element (messages, i)));
  g_list_store_splice (self->messages, 0, 0, items->pdata, items->len);
  self->first = first;
  self->rows_max = MAX (self->rows_max, g_list_model_get_n_items (G_LIST_MODEL (self->messages)));
  pd_transcript_view_update_state (self);
}

static void
on_earlier_clicked (PdTranscriptView *self)
{
  PdSessionView *view = PD_SESSION_VIEW (self);

  if (self->earlier != NULL || self->first == 0 || pd_session_view_get_source (view) == NULL)
    return;
  self->earlier = g_cancellable_new ();
  gtk_widget_set_sensitive (GTK_WIDGET (self->earlier_button), FALSE);
  pd_source_get_messages_part_async (pd_session_view_get_source (view), pd_session_view_get_session_id (view),
                                     (gint64) MIN (self->first, (guint64) G_MAXINT64), self->earlier,
                                     on_earlier_loaded, g_object_ref (self));
}

/* Forget what is shown: a new source or session. */
static void
pd_transcript_view_clear (PdSessionView *view)
{
  PdTranscriptView *self = PD_TRANSCRIPT_VIEW (view);

  g_cancellable_cancel (self->earlier);
  g_clear_object (&self->earlier);
  gtk_widget_set_sensitive (GTK_WIDGET (self->earlier_button), TRUE);
  g_list_store_remove_all (self->messages);
  self->first = 0;
  self->lineage = 0;
  self->rows_max = PD_SESSION_READS_WHOLE_MAX;
  /* Another session: where it was read, else at its newest. */
  {
    const char *id = pd_session_view_get_session_id (view);
    Place *place = id != NULL ? g_hash_table_lookup (self->places, id) : NULL;

    self->following = place == NULL || place->following;
    self->anchor = self->following ? NO_ANCHOR : place->top;
    self->anchor_near = FALSE;
  }
  self->top_pending = FALSE;
  pd_transcript_view_update_state (self);
}

static void
pd_transcript_view_dispose (GObject *object)
{
  PdTranscriptView *self = PD_TRANSCRIPT_VIEW (object);

  g_cancellable_cancel (self->earlier);
  g_clear_object (&self->earlier);
  g_clear_handle_id (&self->place_idle, g_source_remove);
  stop_frames (self);
  g_clear_pointer (&self->places, g_hash_table_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), PD_TYPE_TRANSCRIPT_VIEW);
  /* The root box of the template is not bound to a field, so unparent it. */
  {
    GtkWidget *child = gtk_widget_get_last_child (GTK_WIDGET (self));

    if (GTK_IS_BOX (child))
      gtk_widget_unparent (child);
  }
  g_clear_object (&self->messages);

  G_OBJECT_CLASS (pd_transcript_view_parent_class)->dispose (object);
}

static void
pd_transcript_view_class_init (PdTranscriptViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  PdSessionViewClass *view_class = PD_SESSION_VIEW_CLASS (klass);

  object_class->dispose = pd_transcript_view_dispose;
  view_class->reload = pd_transcript_view_reload;
  view_class->clear = pd_transcript_view_clear;

  g_type_ensure (PD_TYPE_MESSAGE_ROW);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/plandeck/Plandeck/ui/pd-transcript-view.ui");
  gtk_widget_class_bind_template_child (widget_class, PdTranscriptView, session_title);
  gtk_widget_class_bind_template_child (widget_class, PdTranscriptView, earlier_bar);
  gtk_widget_class_bind_template_child (widget_class, PdTranscriptView, earlier_label);
  gtk_widget_class_bind_template_child (widget_class, PdTranscriptView, earlier_button);
  gtk_widget_class_bind_template_child (widget_class, PdTranscriptView, stack);
  gtk_widget_class_bind_template_callback (widget_class, on_earlier_clicked);
  gtk_widget_class_bind_template_child (widget_class, PdTranscriptView, empty_page);
  gtk_widget_class_bind_template_child (widget_class, PdTranscriptView, scroller);
  gtk_widget_class_bind_template_child (widget_class, PdTranscriptView, list_view);
}

static void
pd_transcript_view_init (PdTranscriptView *self)
{
  g_autoptr(GtkNoSelection) selection = NULL;

  gtk_widget_init_template (GTK_WIDGET (self));
  _pd_stack_tab_shown_only (self->stack);

  self->messages = g_list_store_new (PD_TYPE_MESSAGE_ITEM);
  selection = gtk_no_selection_new (G_LIST_MODEL (g_object_ref (self->messages)));
  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (selection));
  self->places = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->following = TRUE;
  self->anchor = NO_ANCHOR;
  self->rows_max = PD_SESSION_READS_WHOLE_MAX;
  {
    GtkAdjustment *adjustment = gtk_scrolled_window_get_vadjustment (self->scroller);

    g_signal_connect_object (adjustment, "value-changed", G_CALLBACK (on_value_changed), self, G_CONNECT_SWAPPED);
    g_signal_connect_object (adjustment, "changed", G_CALLBACK (on_adjustment_changed), self, G_CONNECT_SWAPPED);
  }
  g_signal_connect_object (self->messages, "items-changed", G_CALLBACK (on_messages_changed), self,
                           G_CONNECT_SWAPPED);
  /* Shown again (the Now page and back): where it was. */
  g_signal_connect_object (self->list_view, "map", G_CALLBACK (on_list_map), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->list_view, "unmap", G_CALLBACK (stop_frames), self, G_CONNECT_SWAPPED);

  pd_transcript_view_update_state (self);
}

GtkWidget *
pd_transcript_view_new (void)
{
  return g_object_new (PD_TYPE_TRANSCRIPT_VIEW, NULL);
}

/**
 * pd_transcript_view_refresh:
 *
 * Reads the transcript again and merges it into what is shown.  A refresh
 * asked for while one is in flight runs once that one is done.
 */
void
pd_transcript_view_refresh (PdTranscriptView *self)
{
  g_return_if_fail (PD_IS_TRANSCRIPT_VIEW (self));

  pd_session_view_reload (PD_SESSION_VIEW (self));
}

/**
 * pd_transcript_view_get_model:
 *
 * Returns: (transfer none): the messages shown, as #PdMessageItem
 */
GListModel *
pd_transcript_view_get_model (PdTranscriptView *self)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_VIEW (self), NULL);
  return G_LIST_MODEL (self->messages);
}

/**
 * pd_transcript_view_set_run_stopped:
 * @run_stopped: the session's last run ended short and none goes on
 *
 * The last plan card then shows a step in progress as the Now page does:
 * "In progress when the run stopped", its square.
 */
void
pd_transcript_view_set_run_stopped (PdTranscriptView *self,
                                    gboolean          run_stopped)
{
  g_return_if_fail (PD_IS_TRANSCRIPT_VIEW (self));

  if (self->run_stopped == !!run_stopped)
    return;
  self->run_stopped = !!run_stopped;
  pd_transcript_view_sync_run_stopped (self);
}

guint
_pd_transcript_view_get_n_built (PdTranscriptView *self,
                                 guint            *n_merged)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_VIEW (self), 0);
  if (n_merged != NULL)
    *n_merged = self->n_merged;
  return self->n_built;
}

/**
 * pd_transcript_view_set_title:
 * @title: (nullable): the session's title, anyone's text (the agent's)
 *
 * Heads the messages with the session's title, as the Now page heads its
 * plan, above the list: it does not scroll away.
 */
void
pd_transcript_view_set_title (PdTranscriptView *self,
                              const char       *title)
{
  g_return_if_fail (PD_IS_TRANSCRIPT_VIEW (self));
  _pd_session_heading_set (self->session_title, title);
}
