/* pd-server-messages.c: the messages of GET /api/sessions/ID, a page at a
 * time.
 *
 * odek's record carries the whole transcript as "messages", and its
 * browser UI shows what it gets there.  Sent whole, a 63 MB transcript of
 * tiny records answered 520,224 messages (34.9 MB in 12.6 s, serve at
 * 542 MB), the remote window could not open the 1.18 M of the Claude Code
 * one at all (over its 2 MiB bound of a record), and the record's JSON had
 * "messages" twice, the list's count and then the array (tried as an
 * attacker would).  So a record answers a page of the conversation: the
 * newest PD_SESSION_READS_WHOLE_MAX messages (PD_SESSION_READS_PART_MAX of
 * a long transcript, as many as the local window's Transcript page lists
 * first), at most PD_SERVER_PAGE_BYTES of them, newest first kept, and
 * says where it starts:
 *
 *   "messages":       the page, oldest first (the one key: odek's UI reads
 *                     `messages || []` and needs no more)
 *   "messages_first": the index of its first message in the conversation,
 *                     which is how many earlier ones it left out
 *   "messages_total": how many the conversation has
 *
 * ?before=N asks for the page that ends just before message N
 * (PD_SESSION_READS_PART_MAX of them, as "Show Earlier Messages" reads),
 * ?limit=M for at most M (0: the record and the counts alone).
 *
 * An imported session's page is read by the part reader alone
 * (pd_import_index_load_part()): one pass over the transcript that keeps
 * a window of the newest messages and counts the rest, never the whole
 * transcript's pages.  Read whole first, the 40 MB transcript of tiny
 * calls of tiny-values-memory took serve to 390.8 MB (the pages read whole
 * for the record's counts, then the page), and whole pages stop keeping
 * messages at their budget: their "newest" were messages 518,224 to
 * 520,224 of 1,179,646.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-server"

#include "config.h"

#include <string.h>

#include "pd-import-index.h"
#include "pd-server-private.h"
#include "pd-session-reads.h"

#define PAGE_MAX PD_SESSION_READS_WHOLE_MAX

/* How many messages the page of session @id holds at most: what was
 * asked, else what the local window lists first (the newest
 * PD_SESSION_READS_WHOLE_MAX, of a long transcript
 * PD_SESSION_READS_PART_MAX), or reads before what it shows. */
static guint
page_max (PdSessionStore *store,
          const char     *id,
          gint64          before,
          gint64          limit)
{
  if (limit >= 0)
    return (guint) MIN (limit, PAGE_MAX);
  if (before >= 0 || _pd_session_reads_is_long (store, id))
    return PD_SESSION_READS_PART_MAX;
  return PAGE_MAX;
}

/* The messages of imported session @info from the part reader alone: the
 * @max before message @before (-1: the newest); *@first is the first
 * one's index, *@total how many the conversation has, and the record's
 * count of plan versions is set from the same read. */
static JsonArray *
imported_part (PdSessionStore *store,
               PdSessionInfo  *info,
               gint64          before,
               guint           max,
               guint64        *first,
               guint64        *total,
               GError        **error)
{
  g_autoptr(PdTranscriptPages) part = NULL;
  gint64 from = -1;

  if (before >= 0)
    {
      from = MAX (before - (gint64) max, 0);
      max = (guint) MAX (before - from, 1);
    }
  if (!(part = pd_import_index_load_part (store, info->id, from, MAX (max, 1), NULL, error)))
    return NULL;
  pd_transcript_pages_get_part (part, first, total);
  info->plan_version = pd_transcript_pages_get_n_versions (part);
  info->n_messages = *total;
  return pd_transcript_pages_dup_messages (part);
}

gboolean
_pd_server_append_session_page (PdSessionStore *store,
                                PdSessionInfo  *info,
                                gint64          before,
                                gint64          limit,
                                GString        *out,
                                GError        **error)
{
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *head = NULL;
  JsonObject *object;
  guint64 first = 0, total = 0, end, start;
  guint max = page_max (store, info->id, before, limit), n;
  gsize bytes = 0, head_len;

  if (pd_session_info_is_imported (info))
    messages = imported_part (store, info, before, max, &first, &total, error);
  /* Our own sessions come whole (first 0): the page is cut here. */
  else if ((messages = pd_session_reads_load_messages (store, info->id, error)))
    total = json_array_get_length (messages);
  if (messages == NULL)
    return FALSE;
  n = json_array_get_length (messages);
  end = first + n;
  if (before >= 0 && (guint64) before < end)
    end = MAX ((guint64) before, first);
  start = end - MIN (end - first, (guint64) max);

  /* From the newest back, while the page has room for it (the newest
   * always: a page must move on, whatever one message's length). */
  for (guint64 i = end; i > start; i--)
    {
      char *text = _pd_server_json_text (json_array_get_element (messages, (guint) (i - 1 - first)));
      gsize len = strlen (text);

      if (texts->len > 0 && bytes + len + 1 > PD_SERVER_PAGE_BYTES)
        {
          g_free (text);
          break;
        }
      bytes += len + 1;
      g_ptr_array_add (texts, text);
    }
  start = end - texts->len;
  g_clear_pointer (&messages, json_array_unref);

  /* The record as the list gives it, its count of messages said as
   * "messages_total" (the array takes the name). */
  object = _pd_server_session_json (info);
  json_object_remove_member (object, "messages");
  json_object_set_int_member (object, "messages_first", (gint64) start);
  json_object_set_int_member (object, "messages_total", (gint64) MAX (total, end));
  head = _pd_server_json_object_text (object);
  json_object_unref (object);
  head_len = strlen (head);
  g_assert (head_len >= 2 && head[head_len - 1] == '}');

  g_string_set_size (out, 0);
  g_string_append_len (out, head, (gssize) head_len - 1);
  g_string_append (out, head_len > 2 ? ",\"messages\":[" : "\"messages\":[");
  for (guint i = texts->len; i > 0; i--)
    {
      g_string_append (out, g_ptr_array_index (texts, i - 1));
      if (i > 1)
        g_string_append_c (out, ',');
    }
  g_string_append (out, "]}");
  return TRUE;
}
