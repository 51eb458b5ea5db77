/* pd-multi-source.c: one PdSource over all the sources of a window.
 *
 * A listing is read in rounds.  Each round asks every source for the next
 * N sessions after what it has given so far (N at most the store's page
 * limit), and merges the heads: the best head (pinned, then newest; on a
 * tie the earlier source) is taken until N are taken or a source that has
 * more runs out of what it sent.  Each source's list is in that order, so
 * the merge is too.  Where a listing stopped (how far into each source) is
 * kept for the next page of the same query, so paging through a list is
 * one round a page; a page asked for elsewhere (after a change) is reached
 * in rounds from the top.  A change of any source forgets those places.
 *
 * A source that fails or does not answer in time is listed from what it
 * gave last (the whole list, no search; a search leaves it out): its
 * sessions stay in the list, stale, until it answers again.  This
 * computer's database is waited for: no endpoint can hold it up.
 *
 * Every other call finds the source from the session's id and hands the
 * call over; its GAsyncResult is finished by that source.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-source"

#include "config.h"

#include <string.h>

#include "pd-multi-source.h"
#include "pd-multi-source-private.h"

#define ROUND_MAX   PD_SESSION_LIST_MAX_LIMIT
#define MAX_CURSORS 8
/* A source that has not answered a round by then is listed from what it
 * gave last, or left out (an endpoint that hangs holds up no other
 * source's sessions); its late answer brings it back. */
#define LATE_MS     3000u
/* In a search, once a source has answered, the others have this long
 * more: a hung endpoint held a search's first match back 3 s a round, the
 * list showing what it showed before.  Left out, the search says so; its
 * late answer brings it in. */
#define SEARCH_GRACE_MS 500u

typedef struct
{
  char      *query;
  gboolean   full_text;
  guint      offset;     /* the merged position reached */
  GPtrArray *sources;    /* (element-type PdSource) as they were */
  guint     *consumed;   /* how far into each */
} Cursor;

struct _PdMultiSource
{
  GObject       parent_instance;

  PdSourceList *sources;
  GPtrArray    *cursors;   /* (element-type Cursor), newest last */
  GPtrArray    *watched;   /* (element-type PdSource) whose ::changed we follow */
  GHashTable   *late;      /* sources left out until they answer again */
  GHashTable   *probing;   /* late sources asked whether they answer now */
  GHashTable   *kept;      /* PdSource → GPtrArray of its last listing's PdSessionInfo */
  GHashTable   *stale;     /* sources listed from what they gave last */
  GPtrArray    *not_searched; /* (element-type PdSource) the last search left out */
};

enum {
  LISTED,
  SEARCHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void pd_multi_source_iface_init (PdSourceInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PdMultiSource, pd_multi_source, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (PD_TYPE_SOURCE, pd_multi_source_iface_init))

static void
cursor_free (Cursor *cursor)
{
  g_free (cursor->query);
  g_ptr_array_unref (cursor->sources);
  g_free (cursor->consumed);
  g_free (cursor);
}

/* --- ids ----------------------------------------------------------------- */

/**
 * pd_multi_source_resolve:
 * @id: a listed session's id
 * @source_id: (out) (optional): the session's id in its source
 *
 * Returns: (transfer none) (nullable): the source the session came from,
 *   %NULL when that source is not in the list any more
 */
PdSource *
pd_multi_source_resolve (PdMultiSource  *self,
                         const char     *id,
                         char          **source_id)
{
  const char *slash;
  PdSource *source;

  g_return_val_if_fail (PD_IS_MULTI_SOURCE (self), NULL);

  if (source_id != NULL)
    *source_id = NULL;
  if (id == NULL)
    return NULL;

  slash = strchr (id, '/');
  if (slash == NULL)
    {
      g_autoptr(PdSource) first = g_list_model_get_item (G_LIST_MODEL (self->sources), 0);

      source = first;
      if (source != NULL && source_id != NULL)
        *source_id = g_strdup (id);
      return source;
    }

  {
    g_autofree char *prefix = g_strndup (id, slash - id);
    guint position = 0;

    source = pd_source_list_lookup (self->sources, prefix, &position);
    /* The first source's sessions have no prefix: one with it is not one. */
    if (source == NULL || position == 0 || slash[1] == '\0')
      return NULL;
    if (source_id != NULL)
      *source_id = g_strdup (slash + 1);
    return source;
  }
}

/**
 * pd_multi_source_make_id:
 *
 * Returns: (transfer full) (nullable): how the session @source_id of
 *   @source is listed here; %NULL when @source is not in the list
 */
char *
pd_multi_source_make_id (PdMultiSource *self,
                         PdSource      *source,
                         const char    *source_id)
{
  guint position;

  g_return_val_if_fail (PD_IS_MULTI_SOURCE (self), NULL);
  g_return_val_if_fail (source_id != NULL, NULL);

  if (!pd_source_list_find (self->sources, source, &position))
    return NULL;
  if (position == 0)
    return g_strdup (source_id);
  return g_strdup_printf ("%s/%s", pd_source_list_get_id (self->sources, source), source_id);
}

/* @info of @source as this source lists it: its id with the source's. */
PdSessionInfo *
_pd_multi_source_list_info (PdMultiSource       *self,
                            PdSource            *source,
                            const PdSessionInfo *info)
{
  PdSessionInfo *copy = pd_session_info_copy (info);
  char *id = pd_multi_source_make_id (self, source, info->id);

  if (id != NULL)
    {
      g_free (copy->id);
      copy->id = id;
    }
  return copy;
}

/* --- the merged listing ------------------------------------------------- */

typedef struct
{
  char       *query;
  gboolean    full_text;
  guint       offset;
  guint       limit;
  GPtrArray  *sources;     /* (element-type PdSource) */
  guint      *consumed;    /* how far into each source the merge is */
  guint       position;    /* the merged position the merge is at */
  gboolean   *failed;      /* a source whose listing failed: left out */
  gboolean   *from_kept;   /* a source listed from what it gave last */
  GError     *first_error; /* of the first source that failed */
  guint      *totals;
  gboolean    total_known;
  GPtrArray  *pages;       /* this round's, (element-type PdSessionPage) or NULL */
  guint       round_size;
  guint       round;       /* serial of the round asked */
  guint       late_id;     /* its deadline */
  guint       late_ms;     /* … this long after the round was asked, or a search's grace */
  guint       pending;
  GPtrArray  *out;         /* (element-type PdSessionInfo) */
} ListData;

static void
list_data_free (ListData *data)
{
  g_free (data->query);
  g_ptr_array_unref (data->sources);
  g_free (data->consumed);
  g_free (data->failed);
  g_free (data->from_kept);
  g_clear_error (&data->first_error);
  g_free (data->totals);
  g_clear_pointer (&data->pages, g_ptr_array_unref);
  g_ptr_array_unref (data->out);
  g_free (data);
}

typedef struct
{
  GTask *task;
  guint  index;
  guint  round;
} SourceCall;

static void pd_multi_source_list_round (GTask *task);
static void on_member_changed          (PdMultiSource *self);

static gboolean
cursor_matches (Cursor     *cursor,
                ListData   *data)
{
  if (g_strcmp0 (cursor->query, data->query) != 0 || cursor->full_text != data->full_text ||
      cursor->offset > data->offset || cursor->sources->len != data->sources->len)
    return FALSE;
  for (guint i = 0; i < data->sources->len; i++)
    if (g_ptr_array_index (cursor->sources, i) != g_ptr_array_index (data->sources, i))
      return FALSE;
  return TRUE;
}

/* Starts from the furthest place kept at or before the asked offset. */
static void
pd_multi_source_start_from_cursor (PdMultiSource *self,
                                   ListData      *data)
{
  Cursor *best = NULL;

  for (guint i = 0; i < self->cursors->len; i++)
    {
      Cursor *cursor = g_ptr_array_index (self->cursors, i);

      if (cursor_matches (cursor, data) && (best == NULL || cursor->offset > best->offset))
        best = cursor;
    }
  if (best == NULL)
    return;
  data->position = best->offset;
  memcpy (data->consumed, best->consumed, sizeof (guint) * data->sources->len);
}

static void
pd_multi_source_keep_cursor (PdMultiSource *self,
                             ListData      *data)
{
  Cursor *cursor;

  if (data->position == 0)
    return;
  for (guint i = 0; i < self->cursors->len; i++)
    {
      Cursor *kept = g_ptr_array_index (self->cursors, i);

      if (cursor_matches (kept, data) && kept->offset == data->position)
        return;
    }

  cursor = g_new0 (Cursor, 1);
  cursor->query = g_strdup (data->query);
  cursor->full_text = data->full_text;
  cursor->offset = data->position;
  cursor->sources = g_ptr_array_ref (data->sources);
  cursor->consumed = g_memdup2 (data->consumed, sizeof (guint) * data->sources->len);
  if (self->cursors->len >= MAX_CURSORS)
    g_ptr_array_remove_index (self->cursors, 0);
  g_ptr_array_add (self->cursors, cursor);
}

/* Whether @a comes before @b in the list: pinned first, then newest. */
static gboolean
info_before (const PdSessionInfo *a,
             const PdSessionInfo *b)
{
  if (a->pinned != b->pinned)
    return a->pinned;
  return a->updated_at > b->updated_at;
}

static void
pd_multi_source_list_done (GTask *task)
{
  PdMultiSource *self = g_task_get_source_object (task);
  ListData *data = g_task_get_task_data (task);
  guint total = 0;
  gboolean all_failed = TRUE;

  for (guint i = 0; i < data->sources->len; i++)
    {
      if (!data->failed[i])
        all_failed = FALSE;
      total += data->totals[i];
    }

  if (all_failed && data->sources->len > 0)
    {
      g_ptr_array_set_size (self->not_searched, 0);
      g_signal_emit (self, signals[SEARCHED], 0);
      g_task_return_error (task, g_steal_pointer (&data->first_error));
      return;
    }

  g_ptr_array_set_size (self->not_searched, 0);
  for (guint i = 0; i < data->sources->len && (data->query != NULL || data->full_text); i++)
    if (data->failed[i])
      g_ptr_array_add (self->not_searched, g_object_ref (g_ptr_array_index (data->sources, i)));
  g_signal_emit (self, signals[SEARCHED], 0);

  pd_multi_source_keep_cursor (self, data);
  g_task_return_pointer (task,
                         pd_session_page_new (g_ptr_array_ref (data->out), data->total_known ? total : 0),
                         (GDestroyNotify) pd_session_page_free);
}

/* One round's pages are in: merge them. */
static void
pd_multi_source_merge_round (GTask *task)
{
  PdMultiSource *self = g_task_get_source_object (task);
  ListData *data = g_task_get_task_data (task);
  guint n = data->sources->len;
  g_autofree guint *heads = g_new0 (guint, n);
  guint taken = 0;
  gboolean more = FALSE;

  while (taken < data->round_size && data->out->len < data->limit)
    {
      int best = -1;
      PdSessionInfo *best_info = NULL;
      gboolean stuck = FALSE;

      for (guint i = 0; i < n; i++)
        {
          PdSessionPage *page = g_ptr_array_index (data->pages, i);
          PdSessionInfo *info;

          if (page == NULL)
            continue;
          if (heads[i] >= page->sessions->len)
            {
              /* It has more than it sent: nothing after its next may be taken. */
              if (page->sessions->len > 0 && data->totals[i] > data->consumed[i] + heads[i])
                stuck = TRUE;
              continue;
            }
          info = g_ptr_array_index (page->sessions, heads[i]);
          if (best_info == NULL || info_before (info, best_info))
            {
              best = i;
              best_info = info;
            }
        }
      if (best < 0 || stuck)
        break;

      heads[best]++;
      taken++;
      if (data->position >= data->offset)
        g_ptr_array_add (data->out, _pd_multi_source_list_info (self, g_ptr_array_index (data->sources, best),
                                                                best_info));
      data->position++;
    }

  for (guint i = 0; i < n; i++)
    {
      PdSessionPage *page = g_ptr_array_index (data->pages, i);

      data->consumed[i] += heads[i];
      if (page != NULL && data->consumed[i] < data->totals[i] && page->sessions->len > 0)
        more = TRUE;
      /* A source that gives no count: more while its pages come full. */
      if (page != NULL && page->total == 0 && page->sessions->len == data->round_size)
        more = TRUE;
    }

  if (data->out->len < data->limit && more && taken > 0)
    {
      pd_multi_source_list_round (task);
      return;
    }
  pd_multi_source_list_done (task);
}

/**
 * pd_multi_source_is_stale:
 * @source: one of the sources
 *
 * Returns: whether the last listing showed what @source gave before (it
 *   failed or did not answer in time)
 */
gboolean
pd_multi_source_is_stale (PdMultiSource *self,
                          PdSource      *source)
{
  g_return_val_if_fail (PD_IS_MULTI_SOURCE (self), FALSE);

  return g_hash_table_contains (self->stale, source);
}

/**
 * pd_multi_source_get_not_searched:
 *
 * Returns: (transfer none) (element-type PdSource): the sources the last
 *   listing, a search, could not ask (down, hung, refusing): empty after
 *   a listing of all sessions
 */
GPtrArray *
pd_multi_source_get_not_searched (PdMultiSource *self)
{
  g_return_val_if_fail (PD_IS_MULTI_SOURCE (self), NULL);

  return self->not_searched;
}

/* What a source answered to the whole list (no search) is kept, from its
 * top on, to be listed for it when it fails. */
static void
pd_multi_source_keep (PdMultiSource       *self,
                      ListData            *data,
                      guint                index,
                      const PdSessionPage *page)
{
  PdSource *source = g_ptr_array_index (data->sources, index);
  GPtrArray *kept = g_hash_table_lookup (self->kept, source);

  if (data->query != NULL || data->full_text)
    return;
  if (data->consumed[index] == 0 || kept == NULL)
    {
      if (data->consumed[index] != 0)
        return;
      kept = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_session_info_free);
      g_hash_table_replace (self->kept, g_object_ref (source), kept);
    }
  else if (data->consumed[index] != kept->len)
    return;
  for (guint i = 0; i < page->sessions->len; i++)
    g_ptr_array_add (kept, pd_session_info_copy (g_ptr_array_index (page->sessions, i)));
  if (page->total > 0 && kept->len > page->total)
    g_ptr_array_set_size (kept, page->total);
}

/* Lists @index from what it gave last, when it gave anything and the
 * listing is the whole list.  Returns: whether it was. */
static gboolean
pd_multi_source_use_kept (PdMultiSource *self,
                          ListData      *data,
                          guint          index)
{
  PdSource *source = g_ptr_array_index (data->sources, index);
  GPtrArray *kept = g_hash_table_lookup (self->kept, source);
  GPtrArray *sessions;

  if (data->query != NULL || data->full_text || kept == NULL || kept->len == 0)
    return FALSE;
  sessions = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_session_info_free);
  for (guint i = data->consumed[index]; i < kept->len && sessions->len < data->round_size; i++)
    g_ptr_array_add (sessions, pd_session_info_copy (g_ptr_array_index (kept, i)));
  if (data->pages != NULL)
    {
      g_clear_pointer (&g_ptr_array_index (data->pages, index), pd_session_page_free);
      g_ptr_array_index (data->pages, index) = pd_session_page_new (sessions, kept->len);
    }
  else
    g_ptr_array_unref (sessions);
  data->totals[index] = kept->len;
  data->from_kept[index] = TRUE;
  data->failed[index] = FALSE;
  g_hash_table_add (self->stale, g_object_ref (source));
  return TRUE;
}

static gboolean on_round_late (gpointer user_data);

static void
on_source_listed (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  SourceCall *call = user_data;
  g_autoptr(GTask) task = call->task;
  PdMultiSource *self = g_task_get_source_object (task);
  ListData *data = g_task_get_task_data (task);
  guint index = call->index;
  g_autoptr(GError) error = NULL;
  PdSessionPage *page;

  page = pd_source_list_sessions_finish (PD_SOURCE (object), result, &error);

  /* Past its round's deadline: left out of this listing.  Answering, it
   * is listed again from the next one. */
  if (call->round != data->round || data->failed[index] || data->from_kept[index])
    {
      if (call->round == G_MAXUINT)
        g_hash_table_remove (self->probing, object);
      if (page != NULL && g_hash_table_remove (self->late, object))
        on_member_changed (self);
      g_clear_pointer (&page, pd_session_page_free);
      g_free (call);
      return;
    }
  g_free (call);

  if (page == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || !pd_multi_source_use_kept (self, data, index))
        {
          data->failed[index] = TRUE;
          data->totals[index] = 0;
          if (data->first_error == NULL)
            data->first_error = g_error_copy (error);
        }
    }
  else
    {
      g_hash_table_remove (self->stale, object);
      pd_multi_source_keep (self, data, index, page);
      if (page->total > 0)
        data->totals[index] = page->total;
      else
        {
          data->total_known = data->total_known && page->sessions->len < data->round_size;
          data->totals[index] = data->consumed[index] + page->sessions->len;
        }
      g_ptr_array_index (data->pages, index) = page;
    }
  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_signal_emit (self, signals[LISTED], 0, object, error);

  if (--data->pending == 0)
    {
      g_clear_handle_id (&data->late_id, g_source_remove);
      pd_multi_source_merge_round (task);
    }
  else if ((data->query != NULL || data->full_text) && data->late_ms != SEARCH_GRACE_MS && data->late_id != 0 &&
           (g_ptr_array_index (data->pages, 0) != NULL || data->failed[0] || data->from_kept[0]))
    {
      /* A search, this computer's answer in (a full-text search of a large
       * database takes its time): what came is shown soon, whichever
       * endpoint still has not answered. */
      g_source_remove (data->late_id);
      data->late_ms = SEARCH_GRACE_MS;
      data->late_id = g_timeout_add_full (G_PRIORITY_DEFAULT, SEARCH_GRACE_MS, on_round_late, g_object_ref (task),
                                          g_object_unref);
    }
}

/* Whether @source is a database on this machine: what no endpoint can
 * hold up, so never listed from what it gave last for being late.  Given
 * up on after 3 s, this computer's rows turned "Cannot be read" (stale,
 * the run started meanwhile missing) each time its answer came a moment
 * after the deadline, the main loop or the workers busy beside a hung
 * endpoint (tried as a new user would); its answer is waited for. */
static gboolean
source_is_local (PdSource *source)
{
  return g_strcmp0 (pd_source_get_kind (source), "local") == 0;
}

static gboolean
on_round_late (gpointer user_data)
{
  GTask *task = user_data;
  PdMultiSource *self = g_task_get_source_object (task);
  ListData *data = g_task_get_task_data (task);
  guint awaited = 0;

  data->late_id = 0;
  for (guint i = 0; i < data->sources->len; i++)
    {
      PdSource *source = g_ptr_array_index (data->sources, i);
      g_autoptr(GError) error = NULL;

      if (data->failed[i] || data->from_kept[i] || g_ptr_array_index (data->pages, i) != NULL)
        continue;
      if (source_is_local (source))
        {
          awaited++;
          continue;
        }
      g_hash_table_add (self->late, g_object_ref (source));
      error = g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE,
                           "%s did not answer within %.1f s", pd_source_get_title (source), data->late_ms / 1000.0);
      if (!pd_multi_source_use_kept (self, data, i))
        {
          data->failed[i] = TRUE;
          data->totals[i] = 0;
          if (data->first_error == NULL)
            data->first_error = g_error_copy (error);
        }
      g_signal_emit (self, signals[LISTED], 0, source, error);
    }
  /* The round merges once this computer's answer is in. */
  data->pending = awaited;
  if (awaited == 0)
    pd_multi_source_merge_round (task);
  return G_SOURCE_REMOVE;
}

static void
pd_multi_source_list_round (GTask *task)
{
  ListData *data = g_task_get_task_data (task);
  guint want = data->offset > data->position ? data->offset - data->position : 0;

  want += data->limit - data->out->len;
  data->round_size = MAX (1, MIN (want, ROUND_MAX));
  g_clear_pointer (&data->pages, g_ptr_array_unref);
  data->pages = g_ptr_array_new_full (data->sources->len, (GDestroyNotify) pd_session_page_free);
  g_ptr_array_set_size (data->pages, data->sources->len);
  data->round++;

  /* One more than the calls, so no reply merges before all are asked. */
  data->pending = 1;
  for (guint i = 0; i < data->sources->len; i++)
    {
      SourceCall *call;

      if (data->failed[i])
        continue;
      if (data->from_kept[i])
        {
          pd_multi_source_use_kept (g_task_get_source_object (task), data, i);
          continue;
        }
      call = g_new0 (SourceCall, 1);
      call->task = g_object_ref (task);
      call->index = i;
      call->round = data->round;
      data->pending++;
      pd_source_list_sessions_async (g_ptr_array_index (data->sources, i), data->query, data->full_text,
                                     data->consumed[i], data->round_size, g_task_get_cancellable (task),
                                     on_source_listed, call);
    }
  if (--data->pending == 0)
    {
      pd_multi_source_merge_round (task);
      return;
    }
  data->late_ms = LATE_MS;
  data->late_id = g_timeout_add_full (G_PRIORITY_DEFAULT, LATE_MS, on_round_late, g_object_ref (task),
                                      g_object_unref);
}

static void
multi_list_sessions_async (PdSource *source_self, const char *query, gboolean full_text,
                           guint offset, guint limit, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data)
{
  PdMultiSource *self = PD_MULTI_SOURCE (source_self);
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  ListData *data = g_new0 (ListData, 1);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->sources));

  g_task_set_source_tag (task, multi_list_sessions_async);
  data->query = g_strdup (query);
  data->full_text = full_text;
  data->offset = offset;
  data->limit = MAX (1, MIN (limit, ROUND_MAX));
  data->sources = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (data->sources, g_list_model_get_item (G_LIST_MODEL (self->sources), i));
  data->consumed = g_new0 (guint, MAX (n, 1));
  data->failed = g_new0 (gboolean, MAX (n, 1));
  data->from_kept = g_new0 (gboolean, MAX (n, 1));
  data->totals = g_new0 (guint, MAX (n, 1));
  data->total_known = TRUE;
  for (guint i = 0; i < n; i++)
    if (g_hash_table_contains (self->late, g_ptr_array_index (data->sources, i)))
      {
        /* Left out of this one, or listed from what it gave last; asked
         * (once at a time) whether it answers. */
        SourceCall *call;

        data->from_kept[i] = data->query == NULL && !data->full_text &&
                             g_hash_table_contains (self->kept, g_ptr_array_index (data->sources, i));
        data->failed[i] = !data->from_kept[i];
        /* Every source late: the listing's error says so (it had none). */
        if (data->failed[i] && data->first_error == NULL)
          data->first_error = g_error_new (PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE,
                                           "%s did not answer within %u seconds",
                                           pd_source_get_title (g_ptr_array_index (data->sources, i)),
                                           LATE_MS / 1000);
        if (g_hash_table_contains (self->probing, g_ptr_array_index (data->sources, i)))
          continue;
        g_hash_table_add (self->probing, g_object_ref (g_ptr_array_index (data->sources, i)));
        call = g_new0 (SourceCall, 1);
        call->task = g_object_ref (task);
        call->index = i;
        call->round = G_MAXUINT;
        pd_source_list_sessions_async (g_ptr_array_index (data->sources, i), query, full_text, 0, 1,
                                       NULL, on_source_listed, call);
      }
  data->out = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_session_info_free);
  g_task_set_task_data (task, data, (GDestroyNotify) list_data_free);

  pd_multi_source_start_from_cursor (self, data);
  pd_multi_source_list_round (task);
}

static PdSessionPage *
multi_list_sessions_finish (PdSource *source_self, GAsyncResult *result, GError **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static const char *
multi_get_title (PdSource *source_self)
{
  return "All Sources";
}

static const char *
multi_get_kind (PdSource *source_self)
{
  return "multi";
}

/* --- following the sources ---------------------------------------------- */

static void
on_member_changed (PdMultiSource *self)
{
  /* Changed (an endpoint back, or away for good): asked again. */
  /* Positions move with a change: the places kept are no good now. */
  g_ptr_array_set_size (self->cursors, 0);
  pd_source_emit_changed (PD_SOURCE (self));
}

static void
pd_multi_source_unwatch (PdMultiSource *self)
{
  for (guint i = 0; i < self->watched->len; i++)
    g_signal_handlers_disconnect_by_func (g_ptr_array_index (self->watched, i), on_member_changed, self);
  g_ptr_array_set_size (self->watched, 0);
}

static void
on_sources_changed (PdMultiSource *self)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (self->sources));

  pd_multi_source_unwatch (self);
  {
    GHashTableIter iter;
    gpointer source;

    GHashTable *tables[] = { self->late, self->kept, self->stale };

    /* A source no longer listed is no longer waited for, nor kept. */
    for (guint t = 0; t < G_N_ELEMENTS (tables); t++)
      {
        g_hash_table_iter_init (&iter, tables[t]);
        while (g_hash_table_iter_next (&iter, &source, NULL))
          if (!pd_source_list_find (self->sources, source, NULL))
            g_hash_table_iter_remove (&iter);
      }
  }
  for (guint i = 0; i < n; i++)
    {
      PdSource *source = g_list_model_get_item (G_LIST_MODEL (self->sources), i);

      g_signal_connect_swapped (source, "changed", G_CALLBACK (on_member_changed), self);
      /* An endpoint that goes away or comes back (PdRemoteSource:state)
       * changes what it lists: its sessions leave and come back. */
      if (g_object_class_find_property (G_OBJECT_GET_CLASS (source), "state") != NULL)
        g_signal_connect_swapped (source, "notify::state", G_CALLBACK (on_member_changed), self);
      g_ptr_array_add (self->watched, source);
    }
  on_member_changed (self);
}

static void
pd_multi_source_dispose (GObject *object)
{
  PdMultiSource *self = PD_MULTI_SOURCE (object);

  if (self->sources != NULL)
    g_signal_handlers_disconnect_by_func (self->sources, on_sources_changed, self);
  if (self->watched != NULL)
    pd_multi_source_unwatch (self);
  g_clear_object (&self->sources);
  if (self->cursors != NULL)
    g_ptr_array_set_size (self->cursors, 0);

  G_OBJECT_CLASS (pd_multi_source_parent_class)->dispose (object);
}

static void
pd_multi_source_finalize (GObject *object)
{
  PdMultiSource *self = PD_MULTI_SOURCE (object);

  g_clear_pointer (&self->cursors, g_ptr_array_unref);
  g_clear_pointer (&self->watched, g_ptr_array_unref);
  g_clear_pointer (&self->late, g_hash_table_unref);
  g_clear_pointer (&self->probing, g_hash_table_unref);
  g_clear_pointer (&self->kept, g_hash_table_unref);
  g_clear_pointer (&self->stale, g_hash_table_unref);
  g_clear_pointer (&self->not_searched, g_ptr_array_unref);

  G_OBJECT_CLASS (pd_multi_source_parent_class)->finalize (object);
}

static void
pd_multi_source_class_init (PdMultiSourceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = pd_multi_source_dispose;
  object_class->finalize = pd_multi_source_finalize;

  /**
   * PdMultiSource::listed:
   * @source: the source that answered
   * @error: (nullable): why its listing failed, or %NULL
   *
   * One source answered its part of a listing; a failed part is left out.
   */
  signals[LISTED] = g_signal_new ("listed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                  0, NULL, NULL, NULL, G_TYPE_NONE, 2, PD_TYPE_SOURCE, G_TYPE_ERROR);
  /* A listing is done: pd_multi_source_get_not_searched() says what it left out. */
  signals[SEARCHED] = g_signal_new ("searched", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                    0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
pd_multi_source_init (PdMultiSource *self)
{
  self->cursors = g_ptr_array_new_with_free_func ((GDestroyNotify) cursor_free);
  self->watched = g_ptr_array_new_with_free_func (g_object_unref);
  self->late = g_hash_table_new_full (g_direct_hash, g_direct_equal, g_object_unref, NULL);
  self->probing = g_hash_table_new_full (g_direct_hash, g_direct_equal, g_object_unref, NULL);
  self->kept = g_hash_table_new_full (g_direct_hash, g_direct_equal, g_object_unref,
                                      (GDestroyNotify) g_ptr_array_unref);
  self->stale = g_hash_table_new_full (g_direct_hash, g_direct_equal, g_object_unref, NULL);
  self->not_searched = g_ptr_array_new_with_free_func (g_object_unref);
}

static void
pd_multi_source_iface_init (PdSourceInterface *iface)
{
  iface->get_title = multi_get_title;
  iface->get_kind = multi_get_kind;
  iface->list_sessions_async = multi_list_sessions_async;
  iface->list_sessions_finish = multi_list_sessions_finish;
  _pd_multi_source_calls_iface_init (iface);
}

/**
 * pd_multi_source_new:
 * @sources: the sources, followed as they change
 */
PdMultiSource *
pd_multi_source_new (PdSourceList *sources)
{
  PdMultiSource *self;

  g_return_val_if_fail (PD_IS_SOURCE_LIST (sources), NULL);

  self = g_object_new (PD_TYPE_MULTI_SOURCE, NULL);
  self->sources = g_object_ref (sources);
  g_signal_connect_swapped (sources, "items-changed", G_CALLBACK (on_sources_changed), self);
  on_sources_changed (self);
  return self;
}

PdSourceList *
pd_multi_source_get_sources (PdMultiSource *self)
{
  g_return_val_if_fail (PD_IS_MULTI_SOURCE (self), NULL);

  return self->sources;
}
