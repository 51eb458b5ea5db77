/* pd-session-reads-events.c: the timeline of a long imported transcript,
 * read a part at a time.
 *
 * The Events page of a 203 MB Qwen Code transcript showed its newest 200
 * events, but the whole timeline (600,000 events, every call of the
 * transcript) was built for them: 471 MB; `events --session` built it
 * before printing a line (402 MB).  Here a long transcript's timeline is
 * read in byte ranges of its lines: the newest events from its end
 * backwards, the next ones forward from the line of the last one given,
 * each part's reading holding that part alone.  An event is numbered by
 * the line it was read from (PD_TRANSCRIPT_PAGES_SEQ_SHIFT), so a part
 * read later numbers it the same and "after" or "before" an event is a
 * place in the file.
 *
 * A call's result is read in the part of its line; so that its call is
 * known, each part is read from a little before it
 * (PD_SESSION_READS_CALL_REACH), the events of those lines left to the
 * part before.  A plan version's number is not known in a part: its
 * events are updates with their counts.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-session-reads"

#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "pd-import-index.h"
#include "pd-import-private.h"
#include "pd-jsonl-reader.h"
#include "pd-session-reads-private.h"
#include "pd-transcript-pages-private.h"
#include "pd-transcript-reader.h"

struct _PdTimelineParts
{
  char    *id;
  char    *path;
  char    *format;
  char    *agent_id;
  int      fd;
  goffset  size;       /* when opened: lines appended later wait for the next read */
  guint64  bytes_read;
};

void
_pd_timeline_parts_free (PdTimelineParts *self)
{
  if (self == NULL)
    return;
  if (self->fd >= 0)
    close (self->fd);
  g_free (self->id);
  g_free (self->path);
  g_free (self->format);
  g_free (self->agent_id);
  g_free (self);
}

PdTimelineParts *
_pd_timeline_parts_open (PdSessionStore  *store,
                         const char      *id,
                         GError         **error)
{
  g_autoptr(PdTimelineParts) self = g_new0 (PdTimelineParts, 1);
  g_autoptr(PdTranscriptReader) probe = NULL;
  GStatBuf st;

  g_return_val_if_fail (PD_IS_SESSION_STORE (store), NULL);
  g_return_val_if_fail (id != NULL, NULL);

  self->fd = -1;
  if (!pd_import_index_lookup (store, id, &self->path, &self->format, &self->agent_id, error))
    return NULL;
  /* A short transcript is read whole, its events numbered from 1 and its
   * versions counted; a reader that cannot read a range too. */
  if (g_stat (self->path, &st) != 0 || (goffset) st.st_size <= _pd_import_get_tail_threshold ()
      || !(probe = pd_transcript_reader_new_for_format (self->format, self->path, self->agent_id, NULL))
      || !_pd_transcript_reader_can_read_range (probe))
    return NULL;
  if ((self->fd = _pd_jsonl_open (self->path, error)) < 0)
    return NULL;
  self->id = g_strdup (id);
  self->size = (goffset) st.st_size;
  return g_steal_pointer (&self);
}

guint64
_pd_timeline_parts_get_bytes_read (PdTimelineParts *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->bytes_read;
}

/* The start of the first line that starts at or after @pos (the size when
 * none does). */
static gboolean
line_start (PdTimelineParts  *self,
            goffset           pos,
            goffset          *start,
            GError          **error)
{
  char buffer[16 * 1024];
  goffset at = pos - 1;

  if (pos <= 0)
    {
      *start = 0;
      return TRUE;
    }
  while (at < self->size)
    {
      gssize n = pread (self->fd, buffer, (gsize) MIN ((goffset) sizeof buffer, self->size - at), at);
      const char *newline;

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "Could not read %s: %s", self->path, g_strerror (saved));
          return FALSE;
        }
      if (n == 0)
        break;
      if ((newline = memchr (buffer, '\n', (gsize) n)))
        {
          *start = at + (newline - buffer) + 1;
          return TRUE;
        }
      at += n;
    }
  *start = self->size;
  return TRUE;
}

/* The events read from the lines @floor.. before @stop, numbered after
 * @after_seq and before @before_seq, of @types; the lines from a little
 * before @floor are read too, for their calls. */
static GPtrArray *
read_part (PdTimelineParts     *self,
           goffset              floor,
           goffset              stop,
           gint64               after_seq,
           gint64               before_seq,
           const char * const  *types,
           GCancellable        *cancellable,
           GError             **error)
{
  g_autoptr(PdTranscriptReader) reader = NULL;
  g_autoptr(PdTranscriptPages) pages = NULL;
  goffset from;

  if (!line_start (self, floor - PD_SESSION_READS_CALL_REACH, &from, error)
      || !(reader = pd_transcript_reader_new_for_format (self->format, self->path, self->agent_id, error)))
    return NULL;
  _pd_transcript_reader_set_range (reader, MIN (from, floor), stop);
  if (!(pages = _pd_transcript_reader_read_into (reader, _pd_transcript_pages_new_events_by_offset (),
                                                 cancellable, error)))
    return NULL;
  self->bytes_read += (guint64) (stop - MIN (from, floor));
  return _pd_transcript_pages_dup_events_from (pages, self->id, floor, after_seq, before_seq, types);
}

/* The line an event was read from. */
static goffset
line_of (gint64 seq)
{
  return (goffset) ((seq - 1) >> PD_TRANSCRIPT_PAGES_SEQ_SHIFT);
}

/* Forward from the line of @after_seq, a part at a time: each event to
 * @func (FALSE: enough), or into @out up to @limit. */
static gboolean
read_forward (PdTimelineParts     *self,
              gint64               after_seq,
              const char * const  *types,
              guint                limit,
              GPtrArray           *out,
              PdTimelineEventFunc  func,
              gpointer             user_data,
              GCancellable        *cancellable,
              GError             **error)
{
  goffset start = after_seq > 0 ? MIN (line_of (after_seq), self->size) : 0;
  goffset part = PD_SESSION_READS_PART_BYTES;
  gboolean more = TRUE;

  while (more && start < self->size && (out == NULL || limit == 0 || out->len < limit))
    {
      g_autoptr(GPtrArray) events = NULL;
      goffset stop = self->size;

      if (self->size - start > part && !line_start (self, start + part, &stop, error))
        return FALSE;
      if (!(events = read_part (self, start, stop, after_seq, 0, types, cancellable, error)))
        return FALSE;
      for (guint i = 0; more && i < events->len && (out == NULL || limit == 0 || out->len < limit); i++)
        if (out != NULL)
          g_ptr_array_add (out, g_steal_pointer (&events->pdata[i]));
        else
          more = func (g_ptr_array_index (events, i), user_data);
      start = stop;
      part = MIN (part * 2, PD_SESSION_READS_PART_BYTES_MAX);
    }
  return TRUE;
}

GPtrArray *
_pd_timeline_parts_after (PdTimelineParts     *self,
                          gint64               after_seq,
                          const char * const  *types,
                          guint                limit,
                          GCancellable        *cancellable,
                          GError             **error)
{
  g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_stored_event_free);

  g_return_val_if_fail (self != NULL, NULL);

  if (!read_forward (self, after_seq, types, limit, out, NULL, NULL, cancellable, error))
    return NULL;
  return g_steal_pointer (&out);
}

gboolean
_pd_timeline_parts_foreach (PdTimelineParts     *self,
                            gint64               after_seq,
                            const char * const  *types,
                            PdTimelineEventFunc  func,
                            gpointer             user_data,
                            GCancellable        *cancellable,
                            GError             **error)
{
  g_return_val_if_fail (self != NULL && func != NULL, FALSE);

  return read_forward (self, after_seq, types, 0, NULL, func, user_data, cancellable, error);
}

GPtrArray *
_pd_timeline_parts_before (PdTimelineParts     *self,
                           gint64               before_seq,
                           const char * const  *types,
                           guint                limit,
                           GCancellable        *cancellable,
                           GError             **error)
{
  /* Parts newest first, each oldest first, each cut to what is wanted. */
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  GPtrArray *out;
  goffset end = self->size;
  goffset part = PD_SESSION_READS_PART_BYTES;
  guint n = 0;

  g_return_val_if_fail (self != NULL, NULL);

  /* The line of @before_seq is read too, for its events before it. */
  if (before_seq > 0)
    end = MIN (line_of (before_seq) + 1, self->size);
  while (end > 0 && (limit == 0 || n < limit))
    {
      g_autoptr(GPtrArray) events = NULL;
      goffset start = 0;

      /* A part starts at a line; one line longer than the part makes it
       * longer. */
      while (end > part)
        {
          if (!line_start (self, end - part, &start, error))
            return NULL;
          if (start < end)
            break;
          start = 0;
          part *= 2;
        }
      if (!(events = read_part (self, start, end, 0, before_seq, types, cancellable, error)))
        return NULL;
      if (limit > 0 && events->len > limit - n)
        g_ptr_array_remove_range (events, 0, events->len - (limit - n));
      n += events->len;
      g_ptr_array_add (parts, g_steal_pointer (&events));
      end = start;
      part = MIN (part * 2, PD_SESSION_READS_PART_BYTES_MAX);
    }

  out = g_ptr_array_new_full (n, (GDestroyNotify) pd_stored_event_free);
  for (guint i = parts->len; i > 0; i--)
    {
      GPtrArray *events = g_ptr_array_index (parts, i - 1);

      for (guint j = 0; j < events->len; j++)
        g_ptr_array_add (out, g_steal_pointer (&events->pdata[j]));
    }
  return out;
}
