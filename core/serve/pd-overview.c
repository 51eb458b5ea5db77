/* pd-overview.c: every active session of many sources, as cards (see the
 * header).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-overview"

#include "config.h"

#include "pd-event.h"
#include "pd-overview-entry-private.h"
#include "pd-remote-source.h"
#include "pd-source-list.h"

/* How often cards are looked at again for what time alone changes: a
 * card that stalls, a session no longer active. */
#define TICK_SECONDS 30
/* An endpoint that pushes what changed (PdRemoteSource::sessions-pushed)
 * is listed again at most this often on its pushes alone, plus a spread
 * drawn for each source at each listing: sources added together (every
 * endpoint at start-up) were listed again in the same instant, minute after
 * minute, their 50 answers in one turn of the main loop before a frame
 * (bench-overview: a gap of 16–23 ms between frames, dispatches of 16–19
 * ms under load). */
#define PUSHED_RELIST_USEC (60 * G_USEC_PER_SEC)
#define PUSHED_RELIST_SPREAD_USEC (30 * G_USEC_PER_SEC)

G_DEFINE_FINAL_TYPE_WITH_CODE (PdOverview, pd_overview, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, _pd_overview_cards_model_init))

enum {
  PROP_0,
  PROP_SOURCES,
  PROP_ACTIVE_MINUTES,
  PROP_STALLED_MINUTES,
  PROP_MIN_INTERVAL_MS,
  PROP_LOADED,
  PROP_N_WAITING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* --- entries -------------------------------------------------------------- */

static void
local_approval_free (gpointer data)
{
  LocalApproval *approval = data;

  g_free (approval->tool);
  g_free (approval->command);
  g_free (approval->preview);
  g_free (approval);
}

void
_pd_overview_entry_clear (gpointer data)
{
  Entry *entry = data;

  g_clear_object (&entry->source);
  g_clear_pointer (&entry->name, g_free);
  g_clear_object (&entry->cancellable);
  g_clear_pointer (&entry->cards, g_hash_table_unref);
  g_clear_pointer (&entry->approvals, g_hash_table_unref);
  g_clear_pointer (&entry->error, g_free);
}

/* --- the sorted list (pd-overview-cards.c) ------------------------------ */

void
_pd_overview_insert_card (PdOverview     *self,
                          PdOverviewCard *card)
{
  _pd_overview_cards_insert (G_LIST_MODEL (self), self->cards, card);
}

static void
remove_card (PdOverview     *self,
             PdOverviewCard *card)
{
  _pd_overview_cards_remove (G_LIST_MODEL (self), self->cards, card);
}

/* Placed again when its need moved; a change that leaves its need leaves
 * its place (_pd_overview_card_compare()). */
void
_pd_overview_card_changed (PdOverview     *self,
                           PdOverviewCard *card,
                           gboolean        need_moved)
{
  if (need_moved)
    _pd_overview_cards_place (G_LIST_MODEL (self), self->cards, card);
  _pd_overview_card_emit_changed (card);
}

gboolean
_pd_overview_entry_apply_approval (Entry          *entry,
                                   PdOverviewCard *card)
{
  LocalApproval *approval = g_hash_table_lookup (entry->approvals,
                                                 pd_overview_card_get_session_id (card));

  if (approval == NULL)
    return _pd_overview_card_set_local_approval (card, NULL, NULL, NULL, 0);
  return _pd_overview_card_set_local_approval (card, approval->tool, approval->command, approval->preview,
                                               approval->serial);
}

void
_pd_overview_entry_set_error (Entry      *entry,
                              const char *message)
{
  GHashTableIter iter;
  gpointer value;

  if (g_strcmp0 (entry->error, message) == 0)
    return;
  g_free (entry->error);
  entry->error = g_strdup (message);
  g_hash_table_iter_init (&iter, entry->cards);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (_pd_overview_card_set_source_error (value, message))
      _pd_overview_card_emit_changed (value);
}

void
_pd_overview_entry_remove_card (Entry          *entry,
                                PdOverviewCard *card)
{
  remove_card (entry->overview, card);
  g_hash_table_remove (entry->cards, pd_overview_card_get_session_id (card));
}

gboolean
_pd_overview_is_active (PdOverview          *self,
                        Entry               *entry,
                        const PdSessionInfo *info,
                        gint64               now)
{
  gint64 window = (gint64) self->active_minutes * 60 * G_USEC_PER_SEC;

  /* A change dated far ahead of the clock (a transcript of 2099: its
   * lines' times are anyone's) is no sign of work, as for "Working": its
   * card stayed for ever, "Stalled" (tried as an attacker would). */
  return info->status == PD_SESSION_STATUS_RUNNING ||
         pd_session_changed_lately (info->updated_at, now, window) ||
         g_hash_table_contains (entry->approvals, info->id);
}

static gboolean
on_step_timer (gpointer data)
{
  Entry *entry = data;

  entry->step_timer = 0;
  _pd_overview_entry_schedule (entry);
  return G_SOURCE_REMOVE;
}

/* Counts the sources not answered yet: "loaded" once none is.  Counted
 * again as sources come and go: a source removed before its first answer
 * (an endpoint taken out while it hung) left "loaded" unset for good, the
 * spinner with it. */
static void
update_waiting (PdOverview *self)
{
  guint waiting = 0;

  for (guint i = 0; i < self->entries->len; i++)
    if (!((Entry *) g_ptr_array_index (self->entries, i))->answered)
      waiting++;
  if (self->n_waiting != waiting)
    {
      self->n_waiting = waiting;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_WAITING]);
    }
  if (self->loaded != (waiting == 0))
    {
      self->loaded = waiting == 0;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADED]);
    }
}

void
_pd_overview_entry_finish_fetch (Entry *entry)
{
  PdOverview *self = entry->overview;

  entry->in_flight = FALSE;
  /* Steps held back are read once they are due, changes or not: at the
   * default priority, not behind frames that are always due. */
  if (entry->step_due != 0 && entry->step_timer == 0)
    {
      gint64 wait = entry->step_due - g_get_monotonic_time ();

      entry->step_timer = g_timeout_add_full (G_PRIORITY_DEFAULT, wait > 0 ? (guint) (wait / 1000) + 1 : 0,
                                              on_step_timer, entry_ref (entry), (GDestroyNotify) entry_unref);
    }
  entry->step_due = 0;
  if (!entry->answered)
    {
      entry->answered = TRUE;
      update_waiting (self);
    }
  if (entry->pending)
    {
      entry->pending = FALSE;
      _pd_overview_entry_schedule (entry);
    }
}

static gboolean
on_entry_timer (gpointer data)
{
  Entry *entry = data;

  entry->timer = 0;
  if (entry->overview != NULL)
    _pd_overview_entry_start_fetch (entry);
  return G_SOURCE_REMOVE;
}

/* A refetch as soon as the last one has ended and the interval passed. */
void
_pd_overview_entry_schedule (Entry *entry)
{
  gint64 wait;

  if (entry->overview == NULL)
    return;
  if (entry->in_flight)
    {
      entry->pending = TRUE;
      return;
    }
  if (entry->timer != 0)
    return;
  wait = entry->last_start + (gint64) entry->overview->min_interval_ms * 1000 - g_get_monotonic_time ();
  entry->timer = g_timeout_add_full (G_PRIORITY_DEFAULT, wait > 0 ? (guint) (wait / 1000) + 1 : 0,
                                     on_entry_timer, entry_ref (entry), (GDestroyNotify) entry_unref);
}

static void
on_source_changed (PdSource *source,
                   Entry    *entry)
{
  /* A push merged already: no list, unless one is long due.  A list on
   * its way (or its merge waiting) answers for it too: a list again after
   * it for each push that came meanwhile made a chain of lists, one more
   * each time the merge waited on the frames. */
  if (entry->push_merged)
    {
      entry->push_merged = FALSE;
      if (entry->answered &&
          (entry->in_flight ||
           g_get_monotonic_time () - entry->last_start < PUSHED_RELIST_USEC + entry->relist_spread))
        return;
      entry->relist_spread = g_random_int_range (0, PUSHED_RELIST_SPREAD_USEC);
    }
  _pd_overview_entry_schedule (entry);
}

/* What another connection changed, as the endpoint pushed it: merged at
 * once, with no request; else (a run, a step not read) the list after all. */
static void
on_sessions_pushed (PdRemoteSource *source,
                    GPtrArray      *sessions,
                    Entry          *entry)
{
  PdOverview *self = entry->overview;
  gint64 now = g_get_real_time ();
  gboolean complete = TRUE;

  if (self == NULL || !entry->answered)
    return;
  entry->push_serial++;
  for (guint i = 0; i < sessions->len; i++)
    {
      const PdRemotePushedSession *pushed = g_ptr_array_index (sessions, i);
      const PdSessionInfo *info = pushed->info;
      PdOverviewCard *card = g_hash_table_lookup (entry->cards, info->id);

      /* A run's question (or its end) is read with the list. */
      if (info->status == PD_SESSION_STATUS_RUNNING || g_hash_table_contains (entry->approvals, info->id) ||
          (!pushed->has_step && info->plan_total > 0) ||
          (card != NULL && (pd_overview_card_get_status (card) == PD_SESSION_STATUS_RUNNING ||
                            pd_overview_card_has_approval (card))))
        complete = FALSE;
      else if (_pd_overview_is_active (self, entry, info, now))   /* else it goes at the tick */
        _pd_overview_entry_merge (entry, info, TRUE, pushed->has_step, pushed->current_step, pushed->step_started,
                                  pushed->unpassed_checks, pushed->failed_check, FALSE, NULL, now);
    }
  entry->push_merged = complete;
}

/* A run's question asked or gone, whoever answered it (odek's page,
 * another window, the endpoint's time limit).  Neither changes a session
 * record, so no ::changed tells of it: the card learned of the next
 * question only when something else made it list again (a plan's step read
 * held back a minute), most of the 60 s the endpoint waits for an answer. */
static void
on_remote_event (PdRemoteSource *source,
                 PdEvent        *event,
                 Entry          *entry)
{
  const char *type = pd_event_get_event_type (event);
  const char *id = pd_event_get_session_id (event);
  PdOverviewCard *card = id != NULL ? g_hash_table_lookup (entry->cards, id) : NULL;

  if (g_strcmp0 (type, PD_EVENT_APPROVAL_REQUESTED) == 0 || g_strcmp0 (type, PD_EVENT_APPROVAL_RESOLVED) == 0)
    {
      if (card != NULL)
        _pd_overview_card_mark_run_stale (card);
      _pd_overview_entry_schedule (entry);
    }
}

static void
on_remote_state (PdRemoteSource *source,
                 GParamSpec     *pspec,
                 Entry          *entry)
{
  switch (pd_remote_source_get_state (source))
    {
    case PD_REMOTE_OFFLINE:
    case PD_REMOTE_DENIED:
      _pd_overview_entry_set_error (entry, pd_remote_source_get_state_message (source));
      /* Given up on (the sidebar says "Unreachable" or why not): that is
       * its answer, not "Still reading…" while its first list hangs on
       * (seen 10 s and more after the sidebar said so, tried as a new user
       * would). */
      if (!entry->answered && entry->overview != NULL)
        {
          entry->answered = TRUE;
          update_waiting (entry->overview);
        }
      break;
    case PD_REMOTE_ONLINE:
      _pd_overview_entry_schedule (entry);
      break;
    case PD_REMOTE_CONNECTING:
    default:
      break;
    }
}

static Entry *
entry_new (PdOverview *self,
           PdSource   *source)
{
  Entry *entry = g_rc_box_new0 (Entry);

  entry->overview = self;
  entry->source = g_object_ref (source);
  entry->cancellable = g_cancellable_new ();
  entry->cards = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  entry->approvals = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, local_approval_free);
  entry->last_start = G_MININT64 / 2;
  entry->relist_spread = g_random_int_range (0, PUSHED_RELIST_SPREAD_USEC);
  entry->changed_id = g_signal_connect (source, "changed", G_CALLBACK (on_source_changed), entry);
  if (PD_IS_REMOTE_SOURCE (source))
    {
      entry->state_id = g_signal_connect (source, "notify::state", G_CALLBACK (on_remote_state), entry);
      entry->pushed_id = g_signal_connect (source, "sessions-pushed", G_CALLBACK (on_sessions_pushed), entry);
      entry->event_id = g_signal_connect (source, "event", G_CALLBACK (on_remote_event), entry);
    }
  return entry;
}

/* The source is gone: its reads are cancelled, its cards leave. */
static void
entry_drop (gpointer data)
{
  Entry *entry = data;
  PdOverview *self = entry->overview;
  GHashTableIter iter;
  gpointer value;

  if (self != NULL)
    {
      g_hash_table_iter_init (&iter, entry->cards);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        remove_card (self, value);
    }
  g_hash_table_remove_all (entry->cards);
  g_cancellable_cancel (entry->cancellable);
  g_clear_signal_handler (&entry->changed_id, entry->source);
  g_clear_signal_handler (&entry->state_id, entry->source);
  g_clear_signal_handler (&entry->pushed_id, entry->source);
  g_clear_signal_handler (&entry->event_id, entry->source);
  g_clear_handle_id (&entry->timer, g_source_remove);
  g_clear_handle_id (&entry->step_timer, g_source_remove);
  entry->generation++;
  entry->overview = NULL;
  entry_unref (entry);
}

static Entry *
find_entry (PdOverview *self,
            PdSource   *source)
{
  for (guint i = 0; i < self->entries->len; i++)
    {
      Entry *entry = g_ptr_array_index (self->entries, i);

      if (entry->source == source)
        return entry;
    }
  return NULL;
}

/* The source's name where the sources are a PdSourceList ("This
 * Computer", an endpoint's name), told to its cards. */
static void
entry_set_name (Entry *entry)
{
  PdOverview *self = entry->overview;
  const char *name = PD_IS_SOURCE_LIST (self->sources)
                     ? pd_source_list_get_name (PD_SOURCE_LIST (self->sources), entry->source) : NULL;
  GHashTableIter iter;
  gpointer value;

  if (g_strcmp0 (entry->name, name) == 0)
    return;
  g_free (entry->name);
  entry->name = g_strdup (name);
  g_hash_table_iter_init (&iter, entry->cards);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (_pd_overview_card_set_source_name (value, entry->name))
      _pd_overview_card_emit_changed (value);
}

static void
on_sources_changed (GListModel *sources,
                    guint       position,
                    guint       removed,
                    guint       added,
                    PdOverview *self)
{
  g_autoptr(GPtrArray) kept = g_ptr_array_new_with_free_func (entry_drop);

  /* A source removed and added again at once (a PdSourceList's rename)
   * keeps its entry, its cards and its reads. */
  for (guint i = 0; i < removed; i++)
    g_ptr_array_add (kept, g_ptr_array_steal_index (self->entries, position));
  for (guint i = 0; i < added; i++)
    {
      g_autoptr(PdSource) source = g_list_model_get_item (sources, position + i);
      Entry *entry = NULL;

      for (guint j = 0; j < kept->len && entry == NULL; j++)
        if (((Entry *) g_ptr_array_index (kept, j))->source == source)
          entry = g_ptr_array_steal_index (kept, j);
      if (entry == NULL)
        entry = entry_new (self, source);
      g_ptr_array_insert (self->entries, position + i, entry);
      entry_set_name (entry);
      if (!entry->answered)
        _pd_overview_entry_schedule (entry);
    }
  g_clear_pointer (&kept, g_ptr_array_unref);
  update_waiting (self);
}

/* What time alone changes: cards that stall, sessions no longer active. */
static void
recheck_cards (PdOverview *self)
{
  gint64 now = g_get_real_time ();

  for (guint i = 0; i < self->entries->len; i++)
    {
      Entry *entry = g_ptr_array_index (self->entries, i);
      g_autoptr(GPtrArray) cards = g_ptr_array_new ();
      GHashTableIter iter;
      gpointer value;

      g_hash_table_iter_init (&iter, entry->cards);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        g_ptr_array_add (cards, value);

      for (guint j = 0; j < cards->len; j++)
        {
          PdOverviewCard *card = g_ptr_array_index (cards, j);
          gint64 window = (gint64) self->active_minutes * 60 * G_USEC_PER_SEC;

          if (pd_overview_card_get_status (card) != PD_SESSION_STATUS_RUNNING &&
              !pd_overview_card_has_approval (card) &&
              !pd_session_changed_lately (pd_overview_card_get_changed_at (card), now, window))
            _pd_overview_entry_remove_card (entry, card);
          else if (_pd_overview_card_update_need (card, now, stalled_usec (self)))
            _pd_overview_card_changed (self, card, TRUE);
        }
    }
}

static gboolean
on_tick (gpointer data)
{
  recheck_cards (data);
  return G_SOURCE_CONTINUE;
}

/* The cards in their order: its GListModel (pd-overview-cards.c). */
GPtrArray *
_pd_overview_get_cards (PdOverview *self)
{
  return self->cards;
}

/* --- GObject -------------------------------------------------------------- */

static void
pd_overview_constructed (GObject *object)
{
  PdOverview *self = PD_OVERVIEW (object);

  G_OBJECT_CLASS (pd_overview_parent_class)->constructed (object);

  if (self->sources == NULL)
    self->sources = G_LIST_MODEL (g_list_store_new (PD_TYPE_SOURCE));
  g_signal_connect_object (self->sources, "items-changed", G_CALLBACK (on_sources_changed), self, 0);
  on_sources_changed (self->sources, 0, 0, g_list_model_get_n_items (self->sources), self);
  self->tick = g_timeout_add_seconds (TICK_SECONDS, on_tick, self);
}

static void
pd_overview_dispose (GObject *object)
{
  PdOverview *self = PD_OVERVIEW (object);

  g_clear_handle_id (&self->tick, g_source_remove);
  _pd_overview_merges_clear (self);
  if (self->sources != NULL)
    g_signal_handlers_disconnect_by_data (self->sources, self);
  if (self->entries != NULL)
    g_ptr_array_set_size (self->entries, 0);
  g_clear_object (&self->sources);

  G_OBJECT_CLASS (pd_overview_parent_class)->dispose (object);
}

static void
pd_overview_finalize (GObject *object)
{
  PdOverview *self = PD_OVERVIEW (object);

  g_clear_pointer (&self->entries, g_ptr_array_unref);
  g_clear_pointer (&self->cards, g_ptr_array_unref);

  G_OBJECT_CLASS (pd_overview_parent_class)->finalize (object);
}

static void
pd_overview_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  PdOverview *self = PD_OVERVIEW (object);

  switch (prop_id)
    {
    case PROP_SOURCES:
      g_value_set_object (value, self->sources);
      break;
    case PROP_ACTIVE_MINUTES:
      g_value_set_uint (value, self->active_minutes);
      break;
    case PROP_STALLED_MINUTES:
      g_value_set_uint (value, self->stalled_minutes);
      break;
    case PROP_MIN_INTERVAL_MS:
      g_value_set_uint (value, self->min_interval_ms);
      break;
    case PROP_LOADED:
      g_value_set_boolean (value, self->loaded);
      break;
    case PROP_N_WAITING:
      g_value_set_uint (value, self->n_waiting);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_overview_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  PdOverview *self = PD_OVERVIEW (object);

  switch (prop_id)
    {
    case PROP_SOURCES:
      self->sources = g_value_dup_object (value);
      break;
    case PROP_ACTIVE_MINUTES:
      pd_overview_set_active_minutes (self, g_value_get_uint (value));
      break;
    case PROP_STALLED_MINUTES:
      pd_overview_set_stalled_minutes (self, g_value_get_uint (value));
      break;
    case PROP_MIN_INTERVAL_MS:
      pd_overview_set_min_interval_ms (self, g_value_get_uint (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_overview_class_init (PdOverviewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = pd_overview_constructed;
  object_class->dispose = pd_overview_dispose;
  object_class->finalize = pd_overview_finalize;
  object_class->get_property = pd_overview_get_property;
  object_class->set_property = pd_overview_set_property;

  properties[PROP_SOURCES] =
    g_param_spec_object ("sources", NULL, NULL, G_TYPE_LIST_MODEL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_ACTIVE_MINUTES] =
    g_param_spec_uint ("active-minutes", NULL, NULL, 1, 24 * 60, PD_OVERVIEW_ACTIVE_MINUTES,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STALLED_MINUTES] =
    g_param_spec_uint ("stalled-minutes", NULL, NULL, 1, 24 * 60, PD_OVERVIEW_STALLED_MINUTES,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_MIN_INTERVAL_MS] =
    g_param_spec_uint ("min-interval-ms", NULL, NULL, 0, 60000, PD_OVERVIEW_MIN_INTERVAL_MS,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_LOADED] =
    g_param_spec_boolean ("loaded", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* The sources that have not answered their first list yet. */
  properties[PROP_N_WAITING] =
    g_param_spec_uint ("n-waiting", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
pd_overview_init (PdOverview *self)
{
  self->entries = g_ptr_array_new_with_free_func (entry_drop);
  self->cards = g_ptr_array_new_with_free_func (g_object_unref);
  self->active_minutes = PD_OVERVIEW_ACTIVE_MINUTES;
  self->stalled_minutes = PD_OVERVIEW_STALLED_MINUTES;
  self->min_interval_ms = PD_OVERVIEW_MIN_INTERVAL_MS;
}

/* --- public --------------------------------------------------------------- */

/**
 * pd_overview_new:
 * @sources: (nullable): a #GListModel of #PdSource, followed as it changes
 */
PdOverview *
pd_overview_new (GListModel *sources)
{
  g_return_val_if_fail (sources == NULL || G_IS_LIST_MODEL (sources), NULL);

  return g_object_new (PD_TYPE_OVERVIEW, "sources", sources, NULL);
}

/**
 * pd_overview_get_sources:
 *
 * Returns: (transfer none): the sources followed
 */
GListModel *
pd_overview_get_sources (PdOverview *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW (self), NULL);
  return self->sources;
}

guint
pd_overview_get_active_minutes (PdOverview *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW (self), 0);
  return self->active_minutes;
}

/* Sessions changed in the last @minutes are active; a shorter window lets
 * cards go at once, a longer one reads every source again. */
void
pd_overview_set_active_minutes (PdOverview *self,
                                guint       minutes)
{
  g_return_if_fail (PD_IS_OVERVIEW (self));

  minutes = CLAMP (minutes, 1, 24 * 60);
  if (self->active_minutes == minutes)
    return;
  self->active_minutes = minutes;
  recheck_cards (self);
  pd_overview_refresh (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ACTIVE_MINUTES]);
}

guint
pd_overview_get_stalled_minutes (PdOverview *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW (self), 0);
  return self->stalled_minutes;
}

void
pd_overview_set_stalled_minutes (PdOverview *self,
                                 guint       minutes)
{
  g_return_if_fail (PD_IS_OVERVIEW (self));

  minutes = CLAMP (minutes, 1, 24 * 60);
  if (self->stalled_minutes == minutes)
    return;
  self->stalled_minutes = minutes;
  recheck_cards (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STALLED_MINUTES]);
}

guint
pd_overview_get_min_interval_ms (PdOverview *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW (self), 0);
  return self->min_interval_ms;
}

void
pd_overview_set_min_interval_ms (PdOverview *self,
                                 guint       ms)
{
  g_return_if_fail (PD_IS_OVERVIEW (self));

  if (self->min_interval_ms == ms)
    return;
  self->min_interval_ms = ms;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MIN_INTERVAL_MS]);
}

/* Whether every source has answered (or failed) once: before that, no
 * card is no answer. */
gboolean
pd_overview_get_loaded (PdOverview *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW (self), FALSE);
  return self->loaded;
}

/* Whether @source has answered its first list (or failed it); with
 * @source %NULL, whether any source has, or there is none.  A source that
 * never answers holds back its own cards alone: the others show. */
gboolean
pd_overview_get_answered (PdOverview *self,
                          PdSource   *source)
{
  Entry *entry;

  g_return_val_if_fail (PD_IS_OVERVIEW (self), FALSE);

  if (source != NULL)
    return (entry = find_entry (self, source)) == NULL || entry->answered;
  return self->n_waiting < self->entries->len || self->entries->len == 0;
}

/**
 * pd_overview_dup_waiting_names:
 * @source: (nullable): that source alone, or %NULL for every one
 *
 * Returns: (transfer full) (nullable): the names of the sources that have
 *   not answered their first list yet, joined by ", "; %NULL when none
 */
char *
pd_overview_dup_waiting_names (PdOverview *self,
                               PdSource   *source)
{
  g_autoptr(GString) names = NULL;

  g_return_val_if_fail (PD_IS_OVERVIEW (self), NULL);

  for (guint i = 0; i < self->entries->len; i++)
    {
      Entry *entry = g_ptr_array_index (self->entries, i);

      if (entry->answered || (source != NULL && entry->source != source))
        continue;
      if (names == NULL)
        names = g_string_new (NULL);
      else
        g_string_append (names, ", ");
      g_string_append (names, entry->name != NULL ? entry->name : pd_source_get_title (entry->source));
    }
  return names != NULL ? g_string_free (g_steal_pointer (&names), FALSE) : NULL;
}

guint
pd_overview_get_n_waiting (PdOverview *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW (self), 0);
  return self->n_waiting;
}

void
pd_overview_refresh (PdOverview *self)
{
  g_return_if_fail (PD_IS_OVERVIEW (self));

  for (guint i = 0; i < self->entries->len; i++)
    _pd_overview_entry_schedule (g_ptr_array_index (self->entries, i));
}

void
pd_overview_refresh_source (PdOverview *self,
                            PdSource   *source)
{
  Entry *entry;

  g_return_if_fail (PD_IS_OVERVIEW (self));

  if ((entry = find_entry (self, source)) != NULL)
    _pd_overview_entry_schedule (entry);
}

/**
 * pd_overview_find:
 *
 * Returns: (transfer none) (nullable): the card of @session_id of @source
 */
PdOverviewCard *
pd_overview_find (PdOverview *self,
                  PdSource   *source,
                  const char *session_id)
{
  Entry *entry;

  g_return_val_if_fail (PD_IS_OVERVIEW (self), NULL);

  if ((entry = find_entry (self, source)) == NULL || session_id == NULL)
    return NULL;
  return g_hash_table_lookup (entry->cards, session_id);
}

/**
 * pd_overview_set_local_approval:
 * @tool: (nullable): the tool the run wants to use; %NULL when the
 *   question was answered
 * @command: (nullable): the call's one-line summary
 *   (pd_approver_summarize())
 * @preview: (nullable): what its dialog shows of it (pd_tool_preview()):
 *   the lines an edit takes out and puts in, a write's content, a command
 *   and its folder
 * @serial: the question's number in the window's run controller
 *
 * A run of this window (its own engine: no source tells of its questions)
 * waits on a question, or no longer does.
 */
void
pd_overview_set_local_approval (PdOverview *self,
                                PdSource   *source,
                                const char *session_id,
                                const char *tool,
                                const char *command,
                                const char *preview,
                                guint       serial)
{
  Entry *entry;
  PdOverviewCard *card;

  g_return_if_fail (PD_IS_OVERVIEW (self));
  g_return_if_fail (session_id != NULL);

  if ((entry = find_entry (self, source)) == NULL)
    return;
  if (tool != NULL)
    {
      LocalApproval *approval = g_new0 (LocalApproval, 1);

      approval->tool = g_strdup (tool);
      approval->command = g_strdup (command);
      approval->preview = g_strdup (preview);
      approval->serial = serial;
      g_hash_table_replace (entry->approvals, g_strdup (session_id), approval);
    }
  else
    g_hash_table_remove (entry->approvals, session_id);

  card = g_hash_table_lookup (entry->cards, session_id);
  if (card != NULL && _pd_overview_entry_apply_approval (entry, card))
    {
      _pd_overview_card_update_need (card, g_get_real_time (), stalled_usec (self));
      _pd_overview_card_changed (self, card, TRUE);
    }
  else if (card == NULL)
    _pd_overview_entry_schedule (entry);
}

/* How many refetches were started, of all sources: what coalescing saves. */
guint
pd_overview_get_n_refetches (PdOverview *self)
{
  g_return_val_if_fail (PD_IS_OVERVIEW (self), 0);
  return self->refetches;
}
