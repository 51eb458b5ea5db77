/* pd-import-index-load.c: imported sessions read back from the index —
 * their checklist with the user's annotations, and their pages (cached).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include "pd-json.h"

#include <string.h>

#include "pd-import-index.h"
#include "pd-import-index-private.h"
#include "pd-import-private.h"
#include "pd-transcript-pages-private.h"
#include "pd-transcript-reader.h"

gboolean
pd_import_index_lookup (PdSessionStore  *store,
                        const char      *session_id,
                        char           **path,
                        char           **format,
                        char           **agent_id,
                        GError         **error)
{
  return pd_session_store_get_import (store, session_id, path, format, agent_id, error);
}

char *
pd_import_index_dup_signature (PdSessionStore  *store,
                               const char      *session_id,
                               GError         **error)
{
  g_autofree char *path = NULL;
  g_autofree char *format = NULL;
  g_autofree char *agent_id = NULL;
  g_autofree char *files = NULL;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  if (!pd_import_index_lookup (store, session_id, &path, &format, &agent_id, error)
      || !(files = _pd_import_index_signature (format, path)))
    return NULL;
  return g_strdup_printf ("%s|%s|%s", path, agent_id ? agent_id : "", files);
}

/* Applies the stored overrides and user items to @checklist. */
gboolean
_pd_import_index_apply_annotations (PdSessionStore  *store,
                                    const char      *session_id,
                                    PdChecklist     *checklist,
                                    GError         **error)
{
  g_autofree char *json = NULL;
  g_autoptr(JsonParser) parser = NULL;
  g_autoptr(GError) local = NULL;

  if (!(json = pd_session_store_get_annotation (store, session_id, PD_IMPORT_ANNOTATION_CHECKLIST, &local)))
    {
      if (local != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      return TRUE;
    }
  parser = json_parser_new ();
  if (pd_json_nesting_exceeds (json, -1, PD_JSON_FOREIGN_MAX_DEPTH) || _pd_import_too_many_values (json, strlen (json))
      || !json_parser_load_from_data (parser, json, -1, NULL)
      || !pd_checklist_load_annotations (checklist, json_parser_get_root (parser), NULL))
    g_debug ("Session %s: ignoring unreadable checklist annotations", session_id);
  return TRUE;
}

/* The transcript of an imported session, or PD_DB_ERROR_NOT_FOUND. */
static gboolean
lookup_imported (PdSessionStore  *store,
                 const char      *session_id,
                 char           **path,
                 char           **format,
                 char           **agent_id,
                 GError         **error)
{
  g_autoptr(GError) local = NULL;

  if (pd_import_index_lookup (store, session_id, path, format, agent_id, &local))
    return TRUE;
  if (local != NULL)
    g_propagate_error (error, g_steal_pointer (&local));
  else
    g_set_error (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND,
                 "Session %s is not a session imported from another agent", session_id);
  return FALSE;
}

PdTranscriptReader *
pd_import_index_load_reader (PdSessionStore  *store,
                             const char      *session_id,
                             GError         **error)
{
  g_autofree char *path = NULL;
  g_autofree char *agent_id = NULL;
  g_autofree char *format = NULL;
  g_autoptr(PdTranscriptReader) reader = NULL;
  PdImportedSession *session;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  if (!lookup_imported (store, session_id, &path, &format, &agent_id, error))
    return NULL;

  if (!(reader = pd_transcript_reader_new_for_format (format, path, agent_id, error))
      || !pd_transcript_reader_update (reader, NULL, error))
    return NULL;
  session = pd_transcript_reader_get_session (reader);

  if (!_pd_import_index_apply_annotations (store, session_id, pd_imported_session_get_checklist (session), error))
    return NULL;
  return g_steal_pointer (&reader);
}

PdImportedSession *
pd_import_index_load_session (PdSessionStore  *store,
                              const char      *session_id,
                              GError         **error)
{
  g_autoptr(PdTranscriptReader) reader = pd_import_index_load_reader (store, session_id, error);

  return reader ? g_object_ref (pd_transcript_reader_get_session (reader)) : NULL;
}

PdChecklist *
pd_import_index_load_annotations (PdSessionStore  *store,
                                  const char      *session_id,
                                  GError         **error)
{
  g_autoptr(PdChecklist) checklist = pd_checklist_new ();

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  if (!_pd_import_index_apply_annotations (store, session_id, checklist, error))
    return NULL;
  return g_steal_pointer (&checklist);
}

/* ---------------------------------------------------------------------- */
/* Pages                                                                  */

/* The pages of a few sessions, within a budget: those of a long session
 * hold a quarter of its transcript or so (its tool outputs cut). */
#define PAGES_CACHE_SIZE  8
#define PAGES_CACHE_BYTES ((gsize) 128 * 1024 * 1024)

typedef struct
{
  char              *session_id;
  char              *signature;
  PdTranscriptPages *pages;
  guint64            used;
} CachedPages;

static GMutex pages_lock;
static CachedPages pages_cache[PAGES_CACHE_SIZE];
static guint64 pages_clock;

static PdTranscriptPages *
cache_lookup (const char *session_id,
              const char *signature)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&pages_lock);

  for (guint i = 0; i < PAGES_CACHE_SIZE; i++)
    if (pages_cache[i].pages != NULL && strcmp (pages_cache[i].session_id, session_id) == 0
        && strcmp (pages_cache[i].signature, signature) == 0)
      {
        pages_cache[i].used = ++pages_clock;
        return g_object_ref (pages_cache[i].pages);
      }
  return NULL;
}

static void
cache_store (const char        *session_id,
             const char        *signature,
             PdTranscriptPages *pages)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&pages_lock);
  CachedPages *slot = &pages_cache[0];

  /* The session's old pages, else the slot used longest ago. */
  for (guint i = 0; i < PAGES_CACHE_SIZE; i++)
    {
      if (pages_cache[i].pages != NULL && strcmp (pages_cache[i].session_id, session_id) == 0)
        {
          slot = &pages_cache[i];
          break;
        }
      if (pages_cache[i].used < slot->used)
        slot = &pages_cache[i];
    }
  g_free (slot->session_id);
  g_free (slot->signature);
  g_clear_object (&slot->pages);
  slot->session_id = g_strdup (session_id);
  slot->signature = g_strdup (signature);
  slot->pages = g_object_ref (pages);
  slot->used = ++pages_clock;

  /* Over the budget: the pages used longest ago go, never the newest. */
  for (;;)
    {
      CachedPages *oldest = NULL;
      gsize total = 0;

      for (guint i = 0; i < PAGES_CACHE_SIZE; i++)
        if (pages_cache[i].pages != NULL)
          {
            total += _pd_transcript_pages_get_size (pages_cache[i].pages);
            if (&pages_cache[i] != slot && (oldest == NULL || pages_cache[i].used < oldest->used))
              oldest = &pages_cache[i];
          }
      if (total <= PAGES_CACHE_BYTES || oldest == NULL)
        break;
      g_clear_pointer (&oldest->session_id, g_free);
      g_clear_pointer (&oldest->signature, g_free);
      g_clear_object (&oldest->pages);
      oldest->used = 0;
    }
}

typedef enum
{
  PAGES_ALL,
  PAGES_HISTORY,
  PAGES_EVENTS,
} PagesPart;

static gint follow_appends;

void
pd_import_index_set_follow_appends (gboolean follow)
{
  g_atomic_int_set (&follow_appends, follow ? 1 : 0);
}

static PdTranscriptPages *
load_pages (PdSessionStore  *store,
            const char      *session_id,
            PagesPart        part,
            GCancellable    *cancellable,
            GError         **error)
{
  g_autofree char *path = NULL;
  g_autofree char *format = NULL;
  g_autofree char *agent_id = NULL;
  g_autofree char *signature = NULL;
  g_autofree char *key = NULL;
  g_autoptr(PdTranscriptReader) reader = NULL;
  PdTranscriptPages *pages;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), NULL);
  g_return_val_if_fail (session_id != NULL, NULL);

  if (!lookup_imported (store, session_id, &path, &format, &agent_id, error))
    return NULL;

  signature = _pd_import_index_signature (format, path);
  if (signature == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   "The transcript of session %s is gone: %s", session_id, path);
      return NULL;
    }
  /* The History's and the Events' pages are cached beside the whole pages. */
  key = g_strconcat (session_id, part == PAGES_HISTORY ? "/history" : part == PAGES_EVENTS ? "/events" : "", NULL);
  if ((pages = cache_lookup (key, signature)))
    return pages;

  /* A transcript only ever appended to is followed: a change reads what
   * was appended, into the pages read before (pd-import-follow.c).  Only
   * where asked: the followed pages keep their building state and texts
   * beside the sealed ones (a Gemini CLI export peaked at 4.5× its file
   * instead of 3.1×). */
  if (g_atomic_int_get (&follow_appends) && _pd_import_follow_can (format))
    {
      PdImportFollow *follow = _pd_import_follow_get (key);

      /* Another thread may have read it while this one waited. */
      if (!(pages = cache_lookup (key, signature))
          && (pages = _pd_import_follow_update (follow, format, path, agent_id,
                                                part == PAGES_HISTORY ? PD_IMPORT_FOLLOW_HISTORY
                                                : part == PAGES_EVENTS ? PD_IMPORT_FOLLOW_EVENTS
                                                : PD_IMPORT_FOLLOW_ALL,
                                                cancellable, error)))
        cache_store (key, signature, pages);
      _pd_import_follow_release (follow);
      return pages;
    }

  if ((reader = pd_transcript_reader_new_for_format (format, path, agent_id, error)))
    _pd_transcript_reader_set_source_bytes (reader, _pd_import_index_source_bytes (format, path));
  if (reader == NULL
      || !(pages = part == PAGES_HISTORY ? pd_transcript_reader_read_history (reader, cancellable, error)
                   : part == PAGES_EVENTS ? pd_transcript_reader_read_events (reader, cancellable, error)
                   : pd_transcript_reader_read_pages (reader, cancellable, error)))
    {
      if (reader != NULL)
        _pd_import_index_add_pages_bytes_read (pd_imported_session_get_stats (
                                                 pd_transcript_reader_get_session (reader))->bytes_read);
      return NULL;
    }
  _pd_import_index_add_pages_bytes_read (pd_imported_session_get_stats (
                                           pd_transcript_reader_get_session (reader))->bytes_read);
  cache_store (key, signature, pages);
  return pages;
}

PdTranscriptPages *
pd_import_index_load_pages (PdSessionStore  *store,
                            const char      *session_id,
                            GCancellable    *cancellable,
                            GError         **error)
{
  return load_pages (store, session_id, PAGES_ALL, cancellable, error);
}

PdTranscriptPages *
pd_import_index_load_history (PdSessionStore  *store,
                              const char      *session_id,
                              GCancellable    *cancellable,
                              GError         **error)
{
  return load_pages (store, session_id, PAGES_HISTORY, cancellable, error);
}

PdTranscriptPages *
pd_import_index_load_events (PdSessionStore  *store,
                             const char      *session_id,
                             GCancellable    *cancellable,
                             GError         **error)
{
  return load_pages (store, session_id, PAGES_EVENTS, cancellable, error);
}

/* The reader of imported session @session_id, not yet updated. */
static PdTranscriptReader *
new_reader (PdSessionStore  *store,
            const char      *session_id,
            GError         **error)
{
  g_autofree char *path = NULL;
  g_autofree char *format = NULL;
  g_autofree char *agent_id = NULL;

  if (!lookup_imported (store, session_id, &path, &format, &agent_id, error))
    return NULL;
  return pd_transcript_reader_new_for_format (format, path, agent_id, error);
}

PdTranscriptPages *
pd_import_index_load_part (PdSessionStore  *store,
                           const char      *session_id,
                           gint64           first,
                           guint            max,
                           GCancellable    *cancellable,
                           GError         **error)
{
  g_autoptr(PdTranscriptReader) reader = NULL;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), NULL);
  g_return_val_if_fail (session_id != NULL && max > 0, NULL);

  /* Not cached: a part is small, and read again costs the reading only. */
  if (!(reader = new_reader (store, session_id, error)))
    return NULL;
  return _pd_transcript_reader_read_into (reader, _pd_transcript_pages_new_part (first, max), cancellable, error);
}

PdTranscriptPages *
pd_import_index_stream_messages (PdSessionStore        *store,
                                 const char            *session_id,
                                 PdTranscriptPagesSink  sink,
                                 gpointer               user_data,
                                 GCancellable          *cancellable,
                                 GError               **error)
{
  g_autoptr(PdTranscriptReader) reader = NULL;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), NULL);
  g_return_val_if_fail (session_id != NULL && sink != NULL, NULL);

  if (!(reader = new_reader (store, session_id, error)))
    return NULL;
  return _pd_transcript_reader_read_into (reader, _pd_transcript_pages_new_stream (sink, user_data),
                                          cancellable, error);
}

PdTranscriptPages *
pd_import_index_stream_versions (PdSessionStore               *store,
                                 const char                   *session_id,
                                 PdTranscriptPagesVersionSink  sink,
                                 gpointer                      user_data,
                                 GCancellable                 *cancellable,
                                 GError                      **error)
{
  g_autoptr(PdTranscriptReader) reader = NULL;
  g_autoptr(PdChecklist) annotations = NULL;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), NULL);
  g_return_val_if_fail (session_id != NULL && sink != NULL, NULL);

  if (!(reader = new_reader (store, session_id, error))
      || !(annotations = pd_import_index_load_annotations (store, session_id, error)))
    return NULL;
  return _pd_transcript_reader_read_into (reader,
                                          _pd_transcript_pages_new_version_stream (annotations, sink, user_data),
                                          cancellable, error);
}

PdChecklist *
pd_import_index_load_checklist (PdSessionStore  *store,
                                const char      *session_id,
                                GError         **error)
{
  return pd_import_index_load_checklist_plans (store, session_id, NULL, NULL, error);
}

gboolean
pd_import_index_read_session (PdSessionStore    *store,
                              const char        *session_id,
                              PdImportReadFunc   func,
                              gpointer           user_data,
                              GCancellable      *cancellable,
                              GError           **error)
{
  g_autofree char *path = NULL;
  g_autofree char *format = NULL;
  g_autofree char *agent_id = NULL;
  g_autofree char *key = NULL;
  g_autoptr(PdTranscriptReader) reader = NULL;
  g_autoptr(PdChecklist) checklist = NULL;
  PdTranscriptReader *followed;
  PdImportedSession *session;
  PdImportFollow *follow;
  gboolean ok = FALSE;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), FALSE);
  g_return_val_if_fail (session_id != NULL && func != NULL, FALSE);

  if (!lookup_imported (store, session_id, &path, &format, &agent_id, error))
    return FALSE;

  if (!g_atomic_int_get (&follow_appends) || !_pd_import_follow_can (format))
    {
      /* Read whole, as an import reads. */
      if (!(reader = pd_transcript_reader_new_for_format (format, path, agent_id, error)))
        return FALSE;
      ok = pd_transcript_reader_update (reader, cancellable, error);
      session = pd_transcript_reader_get_session (reader);
      _pd_import_index_add_reader_bytes_read (pd_imported_session_get_stats (session)->bytes_read);
      if (!ok || !_pd_import_index_apply_annotations (store, session_id, pd_imported_session_get_checklist (session),
                                                      error))
        return FALSE;
      func (reader, pd_imported_session_get_checklist (session), user_data);
      return TRUE;
    }

  /* The kept reader goes on being replayed: the annotations go onto a
   * copy of its checklist, never onto it. */
  key = g_strconcat (session_id, "/reader", NULL);
  follow = _pd_import_follow_get (key);
  if ((followed = _pd_import_follow_update_reader (follow, format, path, agent_id, cancellable, error)))
    {
      checklist = pd_checklist_copy (pd_imported_session_get_checklist (pd_transcript_reader_get_session (followed)));
      if ((ok = _pd_import_index_apply_annotations (store, session_id, checklist, error)))
        func (followed, checklist, user_data);
    }
  _pd_import_follow_release (follow);
  return ok;
}

typedef struct
{
  PdChecklist *checklist;
  GPtrArray   *plans;   /* (nullable) asked for */
} ChecklistPlans;

static void
take_checklist_plans (PdTranscriptReader *reader,
                      PdChecklist        *checklist,
                      gpointer            user_data)
{
  ChecklistPlans *out = user_data;
  GPtrArray *plans = pd_imported_session_get_plans (pd_transcript_reader_get_session (reader));

  out->checklist = g_object_ref (checklist);
  for (guint i = 0; out->plans != NULL && plans != NULL && i < plans->len; i++)
    g_ptr_array_add (out->plans, pd_artifact_plan_copy (g_ptr_array_index (plans, i)));
}

PdChecklist *
pd_import_index_load_checklist_plans (PdSessionStore  *store,
                                      const char      *session_id,
                                      GPtrArray      **plans,
                                      GCancellable    *cancellable,
                                      GError         **error)
{
  ChecklistPlans out = { NULL, NULL };

  if (plans != NULL)
    out.plans = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_artifact_plan_free);
  if (!pd_import_index_read_session (store, session_id, take_checklist_plans, &out, cancellable, error))
    {
      g_clear_pointer (&out.plans, g_ptr_array_unref);
      return NULL;
    }
  if (plans != NULL)
    *plans = out.plans;
  return out.checklist;
}

gboolean
pd_import_index_save_annotations (PdSessionStore  *store,
                                  const char      *session_id,
                                  PdChecklist     *checklist,
                                  GError         **error)
{
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *json = NULL;
  guint done, total;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), FALSE);
  g_return_val_if_fail (PD_IS_CHECKLIST (checklist), FALSE);

  node = pd_checklist_annotations_to_json (checklist);
  json = json_to_string (node, FALSE);
  pd_checklist_count (checklist, &done, &total, NULL);
  return pd_session_store_save_checklist (store, session_id, PD_IMPORT_ANNOTATION_CHECKLIST, json, done, total, error);
}
