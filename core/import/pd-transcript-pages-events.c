/* pd-transcript-pages-events.c: the Events page of an imported session's
 * pages: its timeline in our own event envelope, a page after a seq, the
 * newest of some types, and what came after a followed read.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-event.h"
#include "pd-json.h"
#include "pd-session-store.h"
#include "pd-transcript-pages.h"
#include "pd-transcript-pages-private.h"
#include "pd-transcript-pages-build-private.h"

guint
pd_transcript_pages_get_n_events (PdTranscriptPages *self)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && self->sealed, 0);
  return self->events->len;
}

/* Event @i of the timeline in our own envelope, numbered from 1. */
static PdStoredEvent *
stored_event_new (PdTranscriptPages *self,
                  const char        *session_id,
                  guint              i)
{
  const Event *event = g_ptr_array_index (self->events, i);
  g_autoptr(JsonNode) data = pd_json_from_string_bounded (event->data, NULL);
  g_autoptr(PdEvent) envelope = NULL;
  PdStoredEvent *stored;

  envelope = pd_event_new_full (event->type, NULL, session_id, 0, event->tool,
                                data ? json_object_ref (json_node_get_object (data)) : NULL);
  if (event->time > 0)
    pd_event_set_timestamp (envelope, event->time);
  stored = g_new0 (PdStoredEvent, 1);
  stored->seq = self->by_offset ? event->seq : i + 1;
  stored->event_json = pd_event_to_json (envelope);
  return stored;
}

GPtrArray *
pd_transcript_pages_dup_events (PdTranscriptPages *self,
                                const char        *session_id,
                                gint64             after_seq,
                                guint              limit)
{
  GPtrArray *out;

  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && self->sealed, NULL);

  out = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_stored_event_free);
  for (guint i = (guint) CLAMP (after_seq, 0, (gint64) self->events->len);
       i < self->events->len && (limit == 0 || out->len < limit); i++)
    g_ptr_array_add (out, stored_event_new (self, session_id, i));
  return out;
}

GPtrArray *
pd_transcript_pages_dup_latest_events (PdTranscriptPages  *self,
                                       const char         *session_id,
                                       gint64              before_seq,
                                       const char * const *types,
                                       guint               limit)
{
  GPtrArray *out;
  guint end;
  guint n = 0;

  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && self->sealed, NULL);

  out = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_stored_event_free);
  end = before_seq > 0 ? (guint) MIN (before_seq - 1, (gint64) self->events->len) : self->events->len;
  /* From the end back: as many as the page, newest last. */
  for (guint i = end; i > 0 && (limit == 0 || n < limit); i--)
    {
      const Event *event = g_ptr_array_index (self->events, i - 1);

      if (types != NULL && !g_strv_contains (types, event->type))
        continue;
      g_ptr_array_add (out, stored_event_new (self, session_id, i - 1));
      n++;
    }
  for (guint i = 0; i < out->len / 2; i++)
    {
      gpointer swap = out->pdata[i];

      out->pdata[i] = out->pdata[out->len - 1 - i];
      out->pdata[out->len - 1 - i] = swap;
    }
  return out;
}

GPtrArray *
_pd_transcript_pages_dup_events_from (PdTranscriptPages  *self,
                                      const char         *session_id,
                                      goffset             floor,
                                      gint64              after_seq,
                                      gint64              before_seq,
                                      const char * const *types)
{
  GPtrArray *out;

  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && self->sealed && self->by_offset, NULL);

  out = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_stored_event_free);
  for (guint i = 0; i < self->events->len; i++)
    {
      const Event *event = g_ptr_array_index (self->events, i);

      if (event->offset < floor || event->seq <= after_seq || (before_seq > 0 && event->seq >= before_seq)
          || (types != NULL && !g_strv_contains (types, event->type)))
        continue;
      g_ptr_array_add (out, stored_event_new (self, session_id, i));
    }
  return out;
}
