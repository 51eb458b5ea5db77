/* pd-session-list-pages.c: the listing read in pages (part of PdSessionList)
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A pass reads the source's listing from the top, a page a frame while
 * the rows with widgets fill, then in the store's largest pages, and
 * merges each page into the model; see pd-session-list.c for why.
 */
#define G_LOG_DOMAIN "pd-session-list"

#include "config.h"

#include "pd-session-list-private.h"

/* The rows the first frame shows: a tall sidebar holds about 25. */
#define FIRST_PAGE  25u
/* GtkListView keeps row widgets for up to 200 items around its anchor;
 * while those are built, a page a frame is kept to what one frame builds
 * without a stutter. */
#define ROW_WIDGETS 200u
#define WIDGET_PAGE 25u
#define LIST_LIMIT  PD_SESSION_LIST_MAX_LIMIT
/* A list that is not shown draws no frames to wait for. */
#define HIDDEN_PAGE_DELAY_MS 250u

typedef struct
{
  PdSessionList *self;
  guint          generation;
  guint          offset;
  guint          limit;
} ListRequest;

static void
list_request_free (ListRequest *request)
{
  g_object_unref (request->self);
  g_free (request);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (ListRequest, list_request_free)

static void pd_session_list_request_page (PdSessionList *self);
static void pd_session_list_start_pass   (PdSessionList *self,
                                          gboolean       full);

void
_pd_session_list_cancel_next (PdSessionList *self)
{
  if (self->next_tick != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->next_tick);
  self->next_tick = 0;
  g_clear_handle_id (&self->next_timeout, g_source_remove);
  g_clear_signal_handler (&self->map_handler, self);
}

static gboolean
on_next_page_tick (GtkWidget     *widget,
                   GdkFrameClock *clock,
                   gpointer       user_data)
{
  PdSessionList *self = PD_SESSION_LIST (widget);

  /* The frame that draws the last page is under way: ask for the next. */
  self->next_tick = 0;
  _pd_session_list_cancel_next (self);
  pd_session_list_request_page (self);

  return G_SOURCE_REMOVE;
}

static void
on_mapped_for_next_page (PdSessionList *self)
{
  _pd_session_list_cancel_next (self);
  self->next_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self), on_next_page_tick, NULL, NULL);
}

static gboolean
on_next_page_timeout (gpointer user_data)
{
  PdSessionList *self = PD_SESSION_LIST (user_data);

  self->next_timeout = 0;
  _pd_session_list_cancel_next (self);
  pd_session_list_request_page (self);

  return G_SOURCE_REMOVE;
}

/* The next page is asked for once the frame that shows this one has
 * started, so no two pages are merged before one frame. */
static void
pd_session_list_schedule_page (PdSessionList *self)
{
  _pd_session_list_cancel_next (self);

  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      on_mapped_for_next_page (self);
      return;
    }

  self->map_handler = g_signal_connect (self, "map", G_CALLBACK (on_mapped_for_next_page), NULL);
  self->next_timeout = g_timeout_add (HIDDEN_PAGE_DELAY_MS, on_next_page_timeout, self);
}

/* The pass is over: the listing is merged as far as it needs to be. */
static void
pd_session_list_end_pass (PdSessionList *self)
{
  _pd_session_list_cancel_next (self);
  self->replies++;
}

/* A change came while the page just merged was on its way: the top is
 * read again now (a full pass goes on after it, where it was). */
static void
pd_session_list_read_stale (PdSessionList *self)
{
  if (self->stale)
    pd_session_list_start_pass (self, FALSE);
}

static void
on_list_ready (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  PdSource *source = PD_SOURCE (object);
  g_autoptr(ListRequest) request = user_data;
  PdSessionList *self = request->self;
  guint generation = request->generation;
  g_autoptr(PdSessionPage) page = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDateTime) now = NULL;
  g_autofree char *selected_id = NULL;
  g_autofree char *focused_id = NULL;
  g_autoptr(PdSessionItem) selected = NULL;
  guint position;
  guint n_listed;
  gboolean last;
  gboolean changed;
  gboolean was_loaded;

  page = pd_source_list_sessions_finish (source, result, &error);

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;

  /* A late reply: a newer request (another query, or another source) is
   * on its way, and only its answer is shown. */
  if (source != self->source || generation != self->generation)
    return;

  g_clear_object (&self->cancellable);

  if (page == NULL)
    {
      /* Another source's sessions are not this one's (a chosen endpoint
       * that refuses its token showed the others'). */
      if (!self->loaded)
        {
          g_autoptr(GPtrArray) none = g_ptr_array_new ();
          g_autoptr(GDateTime) at = g_date_time_new_now_utc ();

          pd_session_list_model_merge (self->model, none, at);
        }
      self->load_failed = !self->loaded;
      _pd_session_list_update_empty (self);
      _pd_session_list_emit_failed (self, error);
      pd_session_list_read_stale (self);
      return;
    }

  /* The listing ends here when the count says so; a source that gives no
   * count (total 0) ends it with a short page. */
  n_listed = page->sessions->len;
  last = n_listed == 0 ||
         (page->total > 0 ? request->offset + n_listed >= page->total : n_listed < request->limit);

  selected = pd_session_list_get_selected_item (self);
  if (selected != NULL)
    g_object_ref (selected);
  if (selected != NULL)
    selected_id = g_strdup (pd_session_item_get_id (selected));

  /* The row with the focus may be moved (removed and inserted again). */
  focused_id = g_strdup (_pd_session_list_focused_id (self));
  now = g_date_time_new_now_utc ();
  self->merging = TRUE;
  changed = pd_session_list_model_merge_range (self->model, request->offset, page->sessions, last, now);

  /* A session hidden for its deletion and no longer listed was deleted
   * (or removed from the list): should it be listed again (restored,
   * `sessions restore`), it shows.  A search lists a part only. */
  if (last && self->query == NULL && g_hash_table_size (self->hidden) > 0)
    {
      GHashTableIter iter;
      const char *id;

      g_hash_table_iter_init (&iter, self->hidden);
      while (g_hash_table_iter_next (&iter, (gpointer *) &id, NULL))
        if (pd_session_list_model_find (self->model, id, NULL) == NULL)
          g_hash_table_iter_remove (&iter);
      if (g_hash_table_size (self->hidden) == 0)
        gtk_filter_list_model_set_filter (self->shown, NULL);
    }

  /* A moved item was removed and re-inserted: keep it selected.  One a
   * search leaves out stays open, no row selected, until it is listed
   * again (or another is picked). */
  if (selected_id != NULL && _pd_session_list_find_shown (self, selected_id, &position))
    {
      g_clear_object (&self->kept);
      _pd_session_list_update_autoselect (self);
      gtk_single_selection_set_selected (self->selection, position);
    }
  else if (selected != NULL && (self->query != NULL || self->kept != NULL))
    {
      if (self->kept != selected)
        g_set_object (&self->kept, selected);
      _pd_session_list_update_autoselect (self);
      gtk_single_selection_set_selected (self->selection, GTK_INVALID_LIST_POSITION);
    }
  self->merging = FALSE;
  _pd_session_list_keep_focus (self, focused_id);

  was_loaded = self->loaded;
  self->loaded = TRUE;
  _pd_session_list_update_empty (self);

  /* A new search shows its results from the top, each page of them: the
   * merge moved the matches up above the rows in sight, and GTK 4.8's list
   * kept its place on the rows left below them, out of the way, until the
   * last page removed those and the list stood at its end (6 of 7
   * searches, tried as a new user would). */
  if (self->search_top)
    {
      _pd_session_list_show_top (self);
      if (last)
        self->search_top = FALSE;
    }

  /* A new search's count, once known: its total, or what is listed at its
   * end (once: not again at each refresh while it stays). */
  if (self->query != NULL && self->tell && (page->total > 0 || last))
    {
      gint n = page->total > 0 ? (gint) MIN (page->total, (guint) G_MAXINT)
                               : (gint) g_list_model_get_n_items (G_LIST_MODEL (self->shown));

      self->tell = FALSE;
      _pd_session_list_tell_count (self, n);
      _pd_session_list_emit_counted (self, n);
    }

  if (!was_loaded)
    _pd_session_list_notify_loaded (self);

  if (pd_session_list_get_selected_item (self) != selected)
    _pd_session_list_notify_selected (self);

  if (last)
    {
      /* Read from the top to the end: the model lists everything. */
      self->complete = TRUE;
      self->resume_offset = PD_SESSION_LIST_NO_OFFSET;
      pd_session_list_end_pass (self);
      pd_session_list_read_stale (self);
      return;
    }

  /* A refresh stops where the listing and the model agree again. */
  if (!self->pass_full && !changed &&
      (self->resume_offset != PD_SESSION_LIST_NO_OFFSET ||
       page->total == g_list_model_get_n_items (G_LIST_MODEL (self->model))))
    {
      if (self->resume_offset == PD_SESSION_LIST_NO_OFFSET)
        {
          pd_session_list_end_pass (self);
          pd_session_list_read_stale (self);
          return;
        }

      /* The top is current: the full listing the refresh cut short goes on. */
      self->pass_offset = self->resume_offset;
      self->resume_offset = PD_SESSION_LIST_NO_OFFSET;
      self->pass_full = TRUE;
      pd_session_list_schedule_page (self);
      pd_session_list_read_stale (self);
      return;
    }

  self->pass_offset = request->offset + n_listed;
  /* Past the rows with widgets a page merges in a millisecond or two:
   * the next is asked for at once, and frames go on between replies (but
   * not before the top a change made stale). */
  if (self->pass_offset >= ROW_WIDGETS && !self->stale)
    pd_session_list_request_page (self);
  else
    pd_session_list_schedule_page (self);
  pd_session_list_read_stale (self);
}

static void
pd_session_list_request_page (PdSessionList *self)
{
  ListRequest *request;

  if (self->source == NULL)
    return;

  self->cancellable = g_cancellable_new ();
  request = g_new0 (ListRequest, 1);
  request->self = g_object_ref (self);
  request->generation = self->generation;
  request->offset = self->pass_offset;
  if (self->pass_offset == 0)
    request->limit = FIRST_PAGE;
  else if (self->pass_offset < ROW_WIDGETS)
    request->limit = WIDGET_PAGE;
  else
    request->limit = LIST_LIMIT;
  pd_source_list_sessions_async (self->source, self->query, self->full_text,
                                 request->offset, request->limit,
                                 self->cancellable, on_list_ready, request);
}

/* Starts reading the listing from the top; what is in flight is cancelled.
 * A full pass reads to the end; another stops where nothing changed. */
static void
pd_session_list_start_pass (PdSessionList *self,
                            gboolean       full)
{
  gboolean in_pass = self->cancellable != NULL || self->next_tick != 0 || self->next_timeout != 0;

  /* A refresh during a full pass: the top first, then the pass goes on. */
  if (in_pass && self->pass_full && !full && self->resume_offset == PD_SESSION_LIST_NO_OFFSET)
    self->resume_offset = self->pass_offset;

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  _pd_session_list_cancel_next (self);

  self->generation++;
  self->stale = FALSE;
  self->pass_offset = 0;
  /* Asked again (a retry, a change): loading until this answer. */
  if (self->load_failed)
    {
      self->load_failed = FALSE;
      _pd_session_list_update_empty (self);
    }
  self->pass_full = full || (!self->complete && self->resume_offset == PD_SESSION_LIST_NO_OFFSET);
  pd_session_list_request_page (self);
}

/* Another query or source: the listing is read whole again. */
void
_pd_session_list_restart (PdSessionList *self)
{
  self->complete = FALSE;
  self->resume_offset = PD_SESSION_LIST_NO_OFFSET;
  pd_session_list_start_pass (self, TRUE);
}

/**
 * pd_session_list_refresh:
 *
 * Reads the listing again from the top; a request in flight is cancelled.
 */
void
pd_session_list_refresh (PdSessionList *self)
{
  g_return_if_fail (PD_IS_SESSION_LIST (self));

  pd_session_list_start_pass (self, FALSE);
}

