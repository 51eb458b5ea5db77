/* pd-overview-fetch.c: PdOverview's refetch of one source: its list, the
 * plans and runs read for it, and the merge of it all into the cards.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-overview"

#include "config.h"

#include "pd-overview-entry-private.h"
#include "pd-plan.h"

/* A card's current step (its plan) is read at once when its counts (X/Y,
 * blocked, which come with every listing) move, else at most this often
 * (a version with the same counts seldom moves the current step: a step
 * put back to pending, a title edited).  With 500 sessions writing a plan
 * version every second, reading every version's plan was most of the work
 * (bench-overview: 13 % of a core at 5 s). */
#define STEP_INTERVAL_USEC (60 * G_USEC_PER_SEC)
/* A running session's run (its question: GET /api/runs) is read as it
 * starts, when the stream tells of its question asked or answered, while
 * no stream tells (odek; one opened since: what it missed), else at most
 * this often.  Read with every listing, it was asked 1.4 times a second. */
#define RUN_FALLBACK_USEC (5 * G_USEC_PER_SEC)

/* The most sessions merged in one dispatch, and about the most time. */
#define MERGE_BATCH 32
#define MERGE_BUDGET_USEC 3000
/* The merge's priority: GDK_PRIORITY_REDRAW's (the frame clock's paint),
 * without GDK in the core.  GLib dispatches every ready source of the
 * highest priority ready in one turn of the loop: a part then comes with
 * each frame, between frames when they are not due, and never waits for
 * them.  At G_PRIORITY_DEFAULT_IDLE, below the frames, frames each longer
 * than their interval (a software renderer on a loaded machine, the
 * Overview's own spinner turning) are always due above it, and the merge
 * waited for minutes behind them, the spinner shown all along (tried as a
 * new user would: 79 s, 4 min); a timeout every 100 ms took a part then. */
#define MERGE_PRIORITY (G_PRIORITY_HIGH_IDLE + 20)

/* One refetch of one source, and the reads it waits on. */
enum { STEP_READ = 1, STEP_STARTED = 2 };

typedef struct
{
  Entry     *entry;           /* a ref */
  guint      generation;
  guint      push_serial;     /* the entry's when the list was asked */
  guint      merged;          /* infos merged so far */
  GPtrArray *infos;           /* (element-type PdSessionInfo) the active sessions */
  GPtrArray *steps;           /* per info: char * of the current step, or NULL */
  GArray    *step_read;       /* per info: guint, STEP_READ when the plan was read, | STEP_STARTED */
  GArray    *unpassed;        /* per info: guint, its checks not passed */
  GPtrArray *failed;          /* per info: char * of a failed check, or NULL */
  GPtrArray *runs;            /* per info: PdRemoteRun *, or NULL */
  GArray    *run_read;        /* per info: gboolean, the runs were asked */
  guint      outstanding;
} Fetch;

typedef struct
{
  Fetch *fetch;
  guint  index;
} FetchPart;

/* --- the refetch --------------------------------------------------------- */

static void
fetch_free (Fetch *fetch)
{
  g_clear_pointer (&fetch->entry, entry_unref);
  g_clear_pointer (&fetch->infos, g_ptr_array_unref);
  g_clear_pointer (&fetch->steps, g_ptr_array_unref);
  g_clear_pointer (&fetch->step_read, g_array_unref);
  g_clear_pointer (&fetch->unpassed, g_array_unref);
  g_clear_pointer (&fetch->failed, g_ptr_array_unref);
  g_clear_pointer (&fetch->runs, g_ptr_array_unref);
  g_clear_pointer (&fetch->run_read, g_array_unref);
  g_free (fetch);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Fetch, fetch_free)

static gboolean
fetch_is_current (Fetch *fetch)
{
  return fetch->entry->overview != NULL && fetch->generation == fetch->entry->generation;
}

/* One session as listed (or @pushed) into its card, made when new. */
void
_pd_overview_entry_merge (Entry               *entry,
                          const PdSessionInfo *info,
                          gboolean             pushed,
                          gboolean             step_read,
                          const char          *step,
                          gboolean             started,
                          guint                unpassed,
                          const char          *failed_check,
                          gboolean             run_read,
                          const PdRemoteRun   *run,
                          gint64               now)
{
  PdOverview *self = entry->overview;
  PdOverviewCard *card = g_hash_table_lookup (entry->cards, info->id);
  gboolean is_new = card == NULL;
  gboolean changed = FALSE, need_moved;

  if (is_new)
    {
      card = _pd_overview_card_new (entry->source, info->id);
      _pd_overview_card_set_source_name (card, entry->name);
      g_hash_table_insert (entry->cards, g_strdup (info->id), card);
    }
  if (pushed)
    _pd_overview_card_set_pushed_serial (card, entry->push_serial);
  /* A listing's reads were asked before it, a push's with it. */
  if (step_read && (is_new || pushed))
    _pd_overview_card_mark_step_asked (card, g_get_monotonic_time ());
  changed |= _pd_overview_card_set_info (card, info);
  if (step_read)
    changed |= _pd_overview_card_set_current_step (card, info->plan_version, step, started, unpassed, failed_check);
  if (run_read)
    changed |= _pd_overview_card_set_remote_run (card, run);
  if (run_read && is_new)
    _pd_overview_card_mark_run_asked (card, g_get_monotonic_time ());
  changed |= _pd_overview_card_set_source_error (card, NULL);
  changed |= _pd_overview_entry_apply_approval (entry, card);
  need_moved = _pd_overview_card_update_need (card, now, stalled_usec (self));
  if (is_new)
    _pd_overview_insert_card (self, card);
  else if (changed || need_moved)
    _pd_overview_card_changed (self, card, need_moved);
}

/* Whether @card was pushed a newer record than @info since @fetch's list
 * was asked: a list answered after a push (a slow endpoint) would put the
 * card back a version until the next push.  Only then: a record's time is
 * the endpoint's, and a card dated ahead (a clock set back, a transcript
 * of 2099) must still follow its lists. */
static gboolean
fetch_is_older (Fetch               *fetch,
                PdOverviewCard      *card,
                const PdSessionInfo *info)
{
  return card != NULL && _pd_overview_card_get_pushed_serial (card) > fetch->push_serial &&
         _pd_overview_card_is_newer (card, info);
}

/* The merge: the one part of a refetch done on the main context, in
 * parts of at most MERGE_BATCH sessions (and about MERGE_BUDGET_USEC) a
 * dispatch, at MERGE_PRIORITY, a part beside each frame: a source's list
 * of 200 sessions, or fifty sources' lists come back together, no longer
 * hold a frame.  The fetches wait in the order their answers came; the source's
 * refetch is in flight until its merge ends (no other list overlaps it). */
static gboolean
fetch_merge_part (Fetch  *fetch,
                  guint  *budget,
                  gint64  deadline)
{
  Entry *entry = fetch->entry;
  g_autoptr(GHashTable) seen = NULL;
  g_autoptr(GPtrArray) gone = NULL;
  gint64 now = g_get_real_time ();
  GHashTableIter iter;
  gpointer value;

  for (; fetch->merged < fetch->infos->len; fetch->merged++)
    {
      guint i = fetch->merged;

      const PdSessionInfo *info = g_ptr_array_index (fetch->infos, i);

      if (*budget == 0 || g_get_monotonic_time () > deadline)
        return FALSE;
      (*budget)--;
      if (fetch_is_older (fetch, g_hash_table_lookup (entry->cards, info->id), info))
        continue;
      _pd_overview_entry_merge (entry, info, FALSE,
                                g_array_index (fetch->step_read, guint, i) & STEP_READ,
                                g_ptr_array_index (fetch->steps, i), g_array_index (fetch->step_read, guint, i) & STEP_STARTED,
                                g_array_index (fetch->unpassed, guint, i), g_ptr_array_index (fetch->failed, i),
                                g_array_index (fetch->run_read, gboolean, i), g_ptr_array_index (fetch->runs, i), now);
    }

  /* A card pushed since the list was asked may be of a session the list
   * did not know yet: it stays (a session deleted goes at the next list). */
  seen = g_hash_table_new (g_str_hash, g_str_equal);
  gone = g_ptr_array_new ();
  for (guint i = 0; i < fetch->infos->len; i++)
    g_hash_table_add (seen, ((PdSessionInfo *) g_ptr_array_index (fetch->infos, i))->id);
  g_hash_table_iter_init (&iter, entry->cards);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (!g_hash_table_contains (seen, pd_overview_card_get_session_id (value)) &&
        _pd_overview_card_get_pushed_serial (value) <= fetch->push_serial)
      g_ptr_array_add (gone, value);
  for (guint i = 0; i < gone->len; i++)
    _pd_overview_entry_remove_card (entry, g_ptr_array_index (gone, i));

  g_clear_pointer (&entry->error, g_free);
  return TRUE;
}

/* One part of the merges waiting; whether any still wait. */
static gboolean
merge_part (PdOverview *self)
{
  guint budget = MERGE_BATCH;
  gint64 deadline = g_get_monotonic_time () + MERGE_BUDGET_USEC;
  Fetch *fetch;

  while (budget > 0 && (fetch = g_queue_peek_head (&self->merges)) != NULL)
    {
      if (fetch_is_current (fetch))
        {
          if (!fetch_merge_part (fetch, &budget, deadline))
            break;
          _pd_overview_entry_finish_fetch (fetch->entry);
        }
      fetch_free (g_queue_pop_head (&self->merges));
    }
  return !g_queue_is_empty (&self->merges);
}

static gboolean
on_merge_idle (gpointer data)
{
  PdOverview *self = data;

  if (merge_part (self))
    return G_SOURCE_CONTINUE;
  self->merge_idle = 0;
  return G_SOURCE_REMOVE;
}

void
_pd_overview_merges_clear (PdOverview *self)
{
  g_clear_handle_id (&self->merge_idle, g_source_remove);
  g_queue_clear_full (&self->merges, (GDestroyNotify) fetch_free);
}

static void
fetch_part_done (Fetch *fetch)
{
  PdOverview *self = fetch->entry->overview;

  g_assert (fetch->outstanding > 0);
  if (--fetch->outstanding > 0)
    return;
  if (!fetch_is_current (fetch))
    {
      fetch_free (fetch);
      return;
    }
  g_queue_push_tail (&self->merges, fetch);
  if (self->merge_idle == 0)
    self->merge_idle = g_idle_add_full (MERGE_PRIORITY, on_merge_idle, self, NULL);
}

static void
on_plan_read (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  FetchPart *part = user_data;
  Fetch *fetch = part->fetch;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(GError) error = NULL;

  /* A plan that cannot be read leaves the step unknown, not the card. */
  if (pd_source_get_plan_finish (PD_SOURCE (object), result, &plan, &error))
    {
      g_ptr_array_index (fetch->steps, part->index) = g_strdup (pd_plan_state_current_step_title (plan));
      g_ptr_array_index (fetch->failed, part->index) = g_strdup (pd_plan_state_failed_check_name (plan));
      g_array_index (fetch->unpassed, guint, part->index) = plan != NULL ? pd_plan_state_count_unpassed_checks (plan) : 0;
      g_array_index (fetch->step_read, guint, part->index) =
        STEP_READ | (pd_plan_state_current_step_started (plan) ? STEP_STARTED : 0);
    }
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_debug ("The plan of %s: %s", ((PdSessionInfo *) g_ptr_array_index (fetch->infos, part->index))->id,
             error->message);
  g_free (part);
  fetch_part_done (fetch);
}

static void
on_run_found (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  FetchPart *part = user_data;
  Fetch *fetch = part->fetch;
  g_autoptr(GError) error = NULL;
  PdRemoteRun *run = pd_remote_source_find_run_finish (PD_REMOTE_SOURCE (object), result, &error);

  if (error == NULL)
    {
      g_ptr_array_index (fetch->runs, part->index) = run;
      g_array_index (fetch->run_read, gboolean, part->index) = TRUE;
    }
  g_free (part);
  fetch_part_done (fetch);
}

static void
fetch_read (Fetch    *fetch,
            guint     index,
            gboolean  run)
{
  FetchPart *part = g_new0 (FetchPart, 1);
  Entry *entry = fetch->entry;
  const PdSessionInfo *info = g_ptr_array_index (fetch->infos, index);

  part->fetch = fetch;
  part->index = index;
  fetch->outstanding++;
  if (run)
    pd_remote_source_find_run_async (PD_REMOTE_SOURCE (entry->source), info->id, entry->cancellable,
                                     on_run_found, part);
  else
    pd_source_get_plan_async (entry->source, info->id, entry->cancellable, on_plan_read, part);
}

static void
on_sessions_listed (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(Fetch) fetch = user_data;
  Entry *entry = fetch->entry;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionPage) page = pd_source_list_sessions_finish (PD_SOURCE (object), result, &error);
  gint64 now, monotonic, stream_since = 0;

  if (!fetch_is_current (fetch))
    return;
  if (page == NULL)
    {
      /* Its cards stay as they were, with the source's error. */
      _pd_overview_entry_set_error (entry, error->message);
      _pd_overview_entry_finish_fetch (entry);
      return;
    }

  now = g_get_real_time ();
  fetch->infos = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_session_info_free);
  for (guint i = 0; i < page->sessions->len; i++)
    {
      PdSessionInfo *info = g_ptr_array_index (page->sessions, i);

      if (_pd_overview_is_active (entry->overview, entry, info, now))
        g_ptr_array_add (fetch->infos, pd_session_info_copy (info));
    }
  fetch->steps = g_ptr_array_new_full (fetch->infos->len, g_free);
  g_ptr_array_set_size (fetch->steps, fetch->infos->len);
  fetch->failed = g_ptr_array_new_full (fetch->infos->len, g_free);
  g_ptr_array_set_size (fetch->failed, fetch->infos->len);
  fetch->runs = g_ptr_array_new_full (fetch->infos->len, (GDestroyNotify) pd_remote_run_free);
  g_ptr_array_set_size (fetch->runs, fetch->infos->len);
  fetch->step_read = g_array_sized_new (FALSE, TRUE, sizeof (guint), fetch->infos->len);
  g_array_set_size (fetch->step_read, fetch->infos->len);
  fetch->unpassed = g_array_sized_new (FALSE, TRUE, sizeof (guint), fetch->infos->len);
  g_array_set_size (fetch->unpassed, fetch->infos->len);
  fetch->run_read = g_array_sized_new (FALSE, TRUE, sizeof (gboolean), fetch->infos->len);
  g_array_set_size (fetch->run_read, fetch->infos->len);

  /* The list itself counts as one part, so that the merge waits for the
   * reads started here and runs once. */
  fetch->outstanding = 1;
  monotonic = g_get_monotonic_time ();
  if (PD_IS_REMOTE_SOURCE (entry->source))
    stream_since = pd_remote_source_get_streaming_since (PD_REMOTE_SOURCE (entry->source));
  for (guint i = 0; i < fetch->infos->len; i++)
    {
      const PdSessionInfo *info = g_ptr_array_index (fetch->infos, i);
      PdOverviewCard *card = g_hash_table_lookup (entry->cards, info->id);

      /* An older record than a push gave since the list was asked is not
       * merged: nothing to read for it. */
      if (fetch_is_older (fetch, card, info))
        continue;
      /* A plan all done is read once per version too: its checks. */
      if (card == NULL ? info->plan_total > 0 : _pd_overview_card_needs_plan (card, info))
        {
          gint64 due = card != NULL ? _pd_overview_card_get_step_due (card, info, STEP_INTERVAL_USEC) : 0;

          if (due <= monotonic)
            {
              if (card != NULL)
                _pd_overview_card_mark_step_asked (card, monotonic);
              fetch_read (fetch, i, FALSE);
            }
          else if (entry->step_due == 0 || due < entry->step_due)
            entry->step_due = due;
        }
      if (PD_IS_REMOTE_SOURCE (entry->source) && info->status == PD_SESSION_STATUS_RUNNING &&
          (card == NULL || stream_since == 0 || stream_since != entry->stream_seen ||
           _pd_overview_card_run_due (card, monotonic, RUN_FALLBACK_USEC)))
        {
          if (card != NULL)
            _pd_overview_card_mark_run_asked (card, monotonic);
          fetch_read (fetch, i, TRUE);
        }
    }
  entry->stream_seen = stream_since;
  fetch_part_done (g_steal_pointer (&fetch));
}

void
_pd_overview_entry_start_fetch (Entry *entry)
{
  Fetch *fetch = g_new0 (Fetch, 1);

  entry->in_flight = TRUE;
  entry->last_start = g_get_monotonic_time ();
  entry->overview->refetches++;
  fetch->entry = entry_ref (entry);
  fetch->generation = entry->generation;
  fetch->push_serial = entry->push_serial;
  pd_source_list_sessions_async (entry->source, NULL, FALSE, 0, PD_SESSION_LIST_MAX_LIMIT,
                                 entry->cancellable, on_sessions_listed, fetch);
}

