/* pd-session-reads.c: a session's pages, as every front end asks for them.
 *
 * It lives in core/ rather than core/store/ because imported sessions are
 * answered through core/import, which builds on the store.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-source"

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "pd-event.h"
#include "pd-import-index.h"
#include "pd-import-private.h"
#include "pd-session-reads.h"
#include "pd-session-reads-private.h"
#include "pd-transcript-pages-private.h"

/* Whether @id is a session imported from another agent (*@imported), or
 * FALSE with @error set when the index could not be asked. */
static gboolean
which (PdSessionStore  *store,
       const char      *id,
       gboolean        *imported,
       GError         **error)
{
  g_autoptr(GError) local = NULL;

  *imported = pd_import_index_lookup (store, id, NULL, NULL, NULL, &local);
  if (local == NULL)
    return TRUE;
  g_propagate_error (error, g_steal_pointer (&local));
  return FALSE;
}

/* The pages of an imported session and the user's marks on its checklist. */
static PdTranscriptPages *
load_pages (PdSessionStore  *store,
            const char      *id,
            PdChecklist    **annotations,
            GError         **error)
{
  g_autoptr(PdTranscriptPages) pages = pd_import_index_load_pages (store, id, NULL, error);

  if (pages == NULL)
    return NULL;
  if (annotations != NULL && !(*annotations = pd_import_index_load_annotations (store, id, error)))
    return NULL;
  return g_steal_pointer (&pages);
}

/* Whether the transcript of imported session @id is long: read only at its
 * end for the Now page and `sessions show`, never whole for a count (its
 * pages would hold every one of its calls). */
static gboolean
is_long (PdSessionStore *store,
         const char     *id)
{
  g_autofree char *path = NULL;
  GStatBuf st;

  return pd_import_index_lookup (store, id, &path, NULL, NULL, NULL)
         && g_stat (path, &st) == 0 && (goffset) st.st_size > _pd_import_get_tail_threshold ();
}

/* What pd_import_index_read_session() gives the reads below. */
typedef struct
{
  guint64      applied_updates;
  PdPlanState *state;
  GHashTable  *cancelled;   /* (nullable) asked for */
  gboolean     want_cancelled;
  char        *checklist_json;
  GStrv        argv;
  char        *workdir;
} SessionRead;

static void
read_applied (PdTranscriptReader *reader,
              PdChecklist        *checklist,
              gpointer            user_data)
{
  SessionRead *out = user_data;

  out->applied_updates = pd_imported_session_get_stats (pd_transcript_reader_get_session (reader))->applied_updates;
}

static void
read_plan (PdTranscriptReader *reader,
           PdChecklist        *checklist,
           gpointer            user_data)
{
  SessionRead *out = user_data;
  guint64 applied = pd_imported_session_get_stats (pd_transcript_reader_get_session (reader))->applied_updates;

  out->state = pd_transcript_pages_plan_for_checklist (checklist, applied);
  if (out->want_cancelled)
    out->cancelled = pd_transcript_pages_cancelled_steps (checklist);
}

static void
read_checklist_json (PdTranscriptReader *reader,
                     PdChecklist        *checklist,
                     gpointer            user_data)
{
  SessionRead *out = user_data;
  guint64 applied = pd_imported_session_get_stats (pd_transcript_reader_get_session (reader))->applied_updates;

  out->checklist_json = pd_transcript_pages_checklist_json (checklist, applied);
}

static void
read_resume (PdTranscriptReader *reader,
             PdChecklist        *checklist,
             gpointer            user_data)
{
  SessionRead *out = user_data;

  out->argv = pd_transcript_reader_dup_resume_argv (reader, &out->workdir);
}

PdSessionInfo *
pd_session_reads_get_counted (PdSessionStore  *store,
                              const char      *id,
                              gboolean        *counted,
                              GError         **error)
{
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(GError) unread = NULL;
  SessionRead read = { 0 };

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), NULL);
  g_return_val_if_fail (id != NULL, NULL);

  if (counted != NULL)
    *counted = TRUE;
  if (!(info = pd_session_store_get (store, id, error)))
    return NULL;
  if (!pd_session_info_is_imported (info))
    return g_steal_pointer (&info);

  /* The record stands without its transcript: a file gone or unreadable
   * only leaves the count unknown.  A long transcript is read as an import
   * reads it: the plan's version is then the updates read (all of them
   * but where only its end was read), its messages not counted. */
  if (is_long (store, id))
    {
      if (counted != NULL)
        *counted = FALSE;
      if (pd_import_index_read_session (store, id, read_applied, &read, NULL, &unread))
        info->plan_version = read.applied_updates;
    }
  else if ((pages = pd_import_index_load_pages (store, id, NULL, &unread)))
    {
      info->n_messages = pd_transcript_pages_get_n_messages (pages);
      info->plan_version = pd_transcript_pages_get_n_versions (pages);
    }
  if (unread != NULL)
    g_debug ("Session %s: transcript not read: %s", id, unread->message);
  return g_steal_pointer (&info);
}

PdSessionInfo *
pd_session_reads_get (PdSessionStore  *store,
                      const char      *id,
                      GError         **error)
{
  return pd_session_reads_get_counted (store, id, NULL, error);
}

gboolean
pd_session_reads_get_plan (PdSessionStore  *store,
                           const char      *id,
                           PdPlanState    **state,
                           GError         **error)
{
  return pd_session_reads_get_plan_marked (store, id, state, NULL, error);
}

gboolean
pd_session_reads_get_plan_marked (PdSessionStore  *store,
                                  const char      *id,
                                  PdPlanState    **state,
                                  GHashTable     **cancelled,
                                  GError         **error)
{
  SessionRead read = { 0 };
  gboolean imported;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), FALSE);
  g_return_val_if_fail (id != NULL && state != NULL, FALSE);

  *state = NULL;
  if (cancelled != NULL)
    *cancelled = NULL;
  if (!which (store, id, &imported, error))
    return FALSE;
  if (!imported)
    {
      if (cancelled != NULL)
        *cancelled = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      return pd_session_store_get_plan (store, id, state, error);
    }
  /* The last list only: read as an import reads, never the pages (a
   * transcript of 300,000 plan calls held every call). */
  read.want_cancelled = cancelled != NULL;
  if (!pd_import_index_read_session (store, id, read_plan, &read, NULL, error))
    return FALSE;
  *state = read.state;
  if (cancelled != NULL)
    *cancelled = read.cancelled;
  return TRUE;
}

gboolean
pd_session_reads_get_checklist_json (PdSessionStore  *store,
                                     const char      *id,
                                     char           **json,
                                     GError         **error)
{
  SessionRead read = { 0 };
  gboolean imported;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), FALSE);
  g_return_val_if_fail (id != NULL && json != NULL, FALSE);

  *json = NULL;
  if (!which (store, id, &imported, error))
    return FALSE;
  if (!imported)
    return TRUE;
  /* Nothing of the user's (no tick, no own item): the agent's versions say
   * it all, and the transcript is not read a second time (a 13 MB one's
   * export peaked at 3.07× its size with it: import-memory). */
  {
    g_autoptr(GError) local_error = NULL;
    g_autofree char *mine = pd_session_store_get_annotation (store, id, PD_IMPORT_ANNOTATION_CHECKLIST,
                                                             &local_error);

    if (mine == NULL)
      return TRUE;
  }
  /* Read as the Now page and `sessions show` read it. */
  if (!pd_import_index_read_session (store, id, read_checklist_json, &read, NULL, error))
    return FALSE;
  *json = read.checklist_json;
  return TRUE;
}

/* The plan versions of @id; of an imported session the newest only
 * (History's read, never the whole pages) unless @all is set. */
static GPtrArray *
list_plan_versions (PdSessionStore  *store,
                    const char      *id,
                    gboolean         all,
                    GError         **error)
{
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(PdChecklist) annotations = NULL;
  gboolean imported;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), NULL);
  g_return_val_if_fail (id != NULL, NULL);

  if (!which (store, id, &imported, error))
    return NULL;
  if (!imported)
    return pd_session_store_list_plan_versions (store, id, error);
  if (all)
    pages = load_pages (store, id, &annotations, error);
  else if ((pages = pd_import_index_load_history (store, id, NULL, error))
           && !(annotations = pd_import_index_load_annotations (store, id, error)))
    g_clear_object (&pages);
  if (pages == NULL)
    return NULL;
  return pd_transcript_pages_dup_plan_versions (pages, annotations);
}

GPtrArray *
pd_session_reads_list_plan_versions (PdSessionStore  *store,
                                     const char      *id,
                                     GError         **error)
{
  return list_plan_versions (store, id, FALSE, error);
}

GPtrArray *
pd_session_reads_list_all_plan_versions (PdSessionStore  *store,
                                         const char      *id,
                                         GError         **error)
{
  return list_plan_versions (store, id, TRUE, error);
}

JsonArray *
pd_session_reads_load_messages (PdSessionStore  *store,
                                const char      *id,
                                GError         **error)
{
  g_autoptr(PdTranscriptPages) pages = NULL;
  gboolean imported;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), NULL);
  g_return_val_if_fail (id != NULL, NULL);

  if (!which (store, id, &imported, error))
    return NULL;
  if (!imported)
    return pd_session_store_load_messages (store, id, error);
  if (!(pages = load_pages (store, id, NULL, error)))
    return NULL;
  return pd_transcript_pages_dup_messages (pages);
}

/* Of pages read whole, what the Transcript page asks for: the newest
 * PD_SESSION_READS_WHOLE_MAX messages (@before -1), else the @max before
 * message @before.  A transcript of 1.15 M one-letter messages (63 MB, under
 * the tail threshold) had all 520 000 it keeps built as one tree, then as
 * as many rows: the window went from 115 MB to 928 MB, and 1.41 GB when
 * opened again (tried as an attacker would). */
static JsonArray *
whole_part (PdTranscriptPages *pages,
            gint64             before,
            guint              max,
            guint64           *first,
            guint64           *total)
{
  guint64 n = pd_transcript_pages_get_n_messages (pages);
  guint64 end = before >= 0 ? MIN ((guint64) before, n) : n;
  guint64 count = before >= 0 ? MIN (end, (guint64) max) : MIN (end, (guint64) PD_SESSION_READS_WHOLE_MAX);

  *total = n;
  *first = end - count;
  return _pd_transcript_pages_dup_messages_range (pages, (guint) *first, (guint) count);
}

JsonArray *
pd_session_reads_load_messages_part (PdSessionStore  *store,
                                     const char      *id,
                                     gint64           before,
                                     guint            max,
                                     guint64         *first,
                                     guint64         *total,
                                     GCancellable    *cancellable,
                                     GError         **error)
{
  g_autoptr(PdTranscriptPages) pages = NULL;
  JsonArray *messages;
  gint64 from = -1;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), NULL);
  g_return_val_if_fail (id != NULL && max > 0, NULL);

  *first = *total = 0;
  if (!is_long (store, id))
    {
      gboolean imported;

      if (!which (store, id, &imported, error))
        return NULL;
      /* Another agent's transcript read whole: a part of its pages. */
      if (imported)
        {
          if (!(pages = pd_import_index_load_pages (store, id, cancellable, error)))
            return NULL;
          if (!_pd_transcript_pages_get_cut (pages, NULL, NULL))
            return whole_part (pages, before, max, first, total);
          /* Cut at their budget, they end where they stopped keeping
           * messages, far before the transcript's end: the part is read
           * again as a long session's is, its newest the true newest. */
          g_clear_object (&pages);
        }
      else
        {
          /* Our own, whole, exactly as before. */
          if ((messages = pd_session_reads_load_messages (store, id, error)))
            *total = json_array_get_length (messages);
          return messages;
        }
    }
  if (before >= 0)
    {
      from = MAX (before - (gint64) max, 0);
      max = (guint) MAX (before - from, 1);
    }
  if (!(pages = pd_import_index_load_part (store, id, from, max, cancellable, error)))
    return NULL;
  pd_transcript_pages_get_part (pages, first, total);
  return pd_transcript_pages_dup_messages (pages);
}

JsonArray *
pd_session_reads_load_messages_since (PdSessionStore  *store,
                                      const char      *id,
                                      guint64          from,
                                      guint64          lineage,
                                      guint            max,
                                      guint64         *first,
                                      guint64         *total,
                                      guint64         *lineage_out,
                                      GCancellable    *cancellable,
                                      GError         **error)
{
  g_autoptr(PdTranscriptPages) pages = NULL;
  gboolean imported;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), NULL);
  g_return_val_if_fail (id != NULL && max > 0, NULL);

  *first = *total = *lineage_out = 0;
  if (!which (store, id, &imported, error))
    return NULL;
  if (!imported || is_long (store, id))
    return pd_session_reads_load_messages_part (store, id, -1, max, first, total, cancellable, error);
  if (!(pages = pd_import_index_load_pages (store, id, cancellable, error)))
    return NULL;
  *lineage_out = _pd_transcript_pages_get_lineage (pages);
  /* Cut at their budget: their newest are not the transcript's
   * (pd_session_reads_load_messages_part()); never read on either. */
  if (_pd_transcript_pages_get_cut (pages, NULL, NULL))
    {
      g_clear_object (&pages);
      return pd_session_reads_load_messages_part (store, id, -1, max, first, total, cancellable, error);
    }
  *total = pd_transcript_pages_get_n_messages (pages);
  /* The same pages read on: only what the caller does not hold yet, and
   * of that the newest PD_SESSION_READS_WHOLE_MAX. */
  if (lineage != 0 && lineage == *lineage_out && from <= *total)
    {
      *first = MAX (from, *total > PD_SESSION_READS_WHOLE_MAX ? *total - PD_SESSION_READS_WHOLE_MAX : 0);
      return _pd_transcript_pages_dup_messages_range (pages, (guint) *first, PD_SESSION_READS_WHOLE_MAX);
    }
  return whole_part (pages, -1, max, first, total);
}

gboolean
_pd_session_reads_is_long (PdSessionStore *store,
                           const char     *id)
{
  return is_long (store, id);
}

GPtrArray *
pd_session_reads_list_events (PdSessionStore  *store,
                              const char      *id,
                              const char      *type,
                              gint64           after_seq,
                              guint            limit,
                              GError         **error)
{
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(PdTimelineParts) parts = NULL;
  g_autoptr(GError) local = NULL;
  gboolean imported = FALSE;
  GPtrArray *events;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), NULL);

  /* Events of every session at once are the store's alone. */
  if (id != NULL && !which (store, id, &imported, error))
    return NULL;
  if (!imported)
    return pd_session_store_list_events (store, id, type, after_seq, limit, error);
  /* A long transcript a part at a time, from the line of the last event
   * given (pd-session-reads-events.c). */
  if (!(parts = _pd_timeline_parts_open (store, id, &local)) && local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  if (parts != NULL)
    {
      const char *types[] = { type, NULL };

      return _pd_timeline_parts_after (parts, after_seq, type ? types : NULL, limit, NULL, error);
    }
  /* The timeline only: never the messages and the calls' text. */
  if (!(pages = pd_import_index_load_events (store, id, NULL, error)))
    return NULL;
  events = pd_transcript_pages_dup_events (pages, id, after_seq, type ? 0 : limit);
  if (type != NULL)
    {
      /* The type is the envelope's; reading it back is cheaper than a
       * second timeline. */
      for (guint i = events->len; i > 0; i--)
        {
          PdStoredEvent *stored = g_ptr_array_index (events, i - 1);
          g_autoptr(PdEvent) event = pd_event_new_from_json (stored->event_json, NULL);

          if (event == NULL || g_strcmp0 (pd_event_get_event_type (event), type) != 0)
            g_ptr_array_remove_index (events, i - 1);
        }
      if (limit > 0 && events->len > limit)
        g_ptr_array_set_size (events, limit);
    }
  return events;
}

/* Pages a foreach reads of what is not read in parts. */
#define FOREACH_PAGE 500

gboolean
pd_session_reads_foreach_event (PdSessionStore          *store,
                                const char              *id,
                                const char              *type,
                                gint64                   after_seq,
                                PdSessionReadsEventFunc  func,
                                gpointer                 user_data,
                                GCancellable            *cancellable,
                                GError                 **error)
{
  g_autoptr(PdTimelineParts) parts = NULL;
  g_autoptr(GError) local = NULL;
  gboolean imported = FALSE;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), FALSE);
  g_return_val_if_fail (func != NULL, FALSE);

  if (id != NULL && !which (store, id, &imported, error))
    return FALSE;
  if (imported && !(parts = _pd_timeline_parts_open (store, id, &local)) && local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  if (parts != NULL)
    {
      const char *types[] = { type, NULL };

      return _pd_timeline_parts_foreach (parts, after_seq, type ? types : NULL, func, user_data, cancellable, error);
    }
  for (;;)
    {
      g_autoptr(GPtrArray) events = pd_session_reads_list_events (store, id, type, after_seq, FOREACH_PAGE, error);

      if (events == NULL)
        return FALSE;
      for (guint i = 0; i < events->len; i++)
        {
          const PdStoredEvent *event = g_ptr_array_index (events, i);

          after_seq = event->seq;
          if (!func (event, user_data))
            return TRUE;
        }
      if (events->len < FOREACH_PAGE)
        return TRUE;
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return FALSE;
    }
}

GPtrArray *
pd_session_reads_list_latest_events (PdSessionStore     *store,
                                     const char         *id,
                                     gint64              before_seq,
                                     const char * const *types,
                                     guint               limit,
                                     GError            **error)
{
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(PdTimelineParts) parts = NULL;
  g_autoptr(GError) local = NULL;
  gboolean imported;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), NULL);
  g_return_val_if_fail (id != NULL, NULL);

  if (!which (store, id, &imported, error))
    return NULL;
  if (!imported)
    return pd_session_store_list_latest_events (store, id, before_seq, types, limit, error);
  /* A long transcript from its end, a part at a time. */
  if (!(parts = _pd_timeline_parts_open (store, id, &local)) && local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  if (parts != NULL)
    return _pd_timeline_parts_before (parts, before_seq, types, limit, NULL, error);
  /* The timeline only, as the Events' pages hold it. */
  if (!(pages = pd_import_index_load_events (store, id, NULL, error)))
    return NULL;
  return pd_transcript_pages_dup_latest_events (pages, id, before_seq, types, limit);
}

GPtrArray *
pd_session_reads_list_plan_documents (PdSessionStore  *store,
                                      const char      *id,
                                      GError         **error)
{
  g_autoptr(PdTranscriptPages) pages = NULL;
  gboolean imported;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), NULL);
  g_return_val_if_fail (id != NULL, NULL);

  if (!which (store, id, &imported, error))
    return NULL;
  if (!imported)
    return g_ptr_array_new_with_free_func ((GDestroyNotify) pd_artifact_plan_free);
  if (!(pages = load_pages (store, id, NULL, error)))
    return NULL;
  return pd_transcript_pages_dup_plan_documents (pages);
}

gboolean
pd_session_reads_get_resume (PdSessionStore  *store,
                             const char      *id,
                             GStrv           *argv,
                             char           **workdir,
                             GError         **error)
{
  g_auto(GStrv) words = NULL;
  g_autofree char *folder = NULL;
  SessionRead read = { 0 };
  gboolean imported;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), FALSE);
  g_return_val_if_fail (id != NULL && argv != NULL, FALSE);

  *argv = NULL;
  if (workdir != NULL)
    *workdir = NULL;
  if (!which (store, id, &imported, error) || !imported)
    return FALSE;
  /* The session's facts only: read as an import reads, not for pages. */
  if (!pd_import_index_read_session (store, id, read_resume, &read, NULL, error))
    return FALSE;
  words = read.argv;
  folder = read.workdir;
  if (words == NULL)
    return FALSE;
  *argv = g_steal_pointer (&words);
  if (workdir != NULL)
    *workdir = g_steal_pointer (&folder);
  return TRUE;
}
