/* pd-gemini-spans.c: a Gemini CLI JSON lines record checked and its
 * members found in one walk (pd_json_check_spans()), for the reader to
 * replay in place: the record's members, and a row for each tool call
 * with its name, status, arguments and their list.  And the older
 * one-document format likewise (pd_json_check_spans_value()): the
 * header's members and a row for each message with its members.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-gemini-reader-private.h"

static const PdJsonSpanPick args_span_pick[] = { { "todos", CALL_TODOS }, { NULL } };
static const PdJsonSpanPick call_span_pick[] = {
  { "name", CALL_NAME }, { "status", CALL_STATUS }, { "args", CALL_ARGS, args_span_pick }, { NULL },
};
static const PdJsonSpanPick record_span_pick[] = {
  { "$rewindTo", REC_REWIND }, { "$set", REC_SET }, { "id", REC_ID }, { "sessionId", REC_SESSION_ID },
  { "startTime", REC_START }, { "lastUpdated", REC_LAST }, { "summary", REC_SUMMARY },
  { "timestamp", REC_TIMESTAMP }, { "type", REC_TYPE }, { "content", REC_CONTENT },
  { "toolCalls", REC_CALLS, NULL, call_span_pick, 0, N_CALL }, { NULL },
};

/* The reader's content_text() on a span: a message's text, or its parts' joined. */
char *
_pd_gemini_span_content_text (PdJsonSpan content)
{
  static const char * const text_name[] = { "text", NULL };
  PdJsonSpan text, element;
  GString *out;
  gsize cursor = 0;

  if (pd_json_span_is_string (content))
    return pd_json_span_dup_string (content);
  if (pd_json_span_is_object (content))
    return pd_json_span_get_member (content, "text", &text) ? pd_json_span_dup_string (text) : NULL;
  if (!pd_json_span_is_array (content))
    return NULL;
  out = g_string_new (NULL);
  while (pd_json_span_next_members (content, &cursor, text_name, &text, &element))
    {
      g_autofree char *value = pd_json_span_dup_string (pd_json_span_is_object (element) ? text : element);

      if (value == NULL)
        continue;
      if (out->len > 0)
        g_string_append (out, "\n\n");
      g_string_append (out, value);
    }
  if (out->len == 0)
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  return g_string_free (out, FALSE);
}

/**
 * _pd_gemini_spans_new:
 * @max_rows: how many rows the walk keeps: a record's tool calls
 *   (PD_GEMINI_CALL_ROWS) or a document's messages (PD_GEMINI_MESSAGE_ROWS)
 */
PdGeminiSpans *
_pd_gemini_spans_new (guint max_rows)
{
  PdGeminiSpans *spans = g_new0 (PdGeminiSpans, 1);

  pd_json_span_table_init (&spans->rows, max_rows);
  return spans;
}

void
_pd_gemini_spans_free (PdGeminiSpans *spans)
{
  if (spans == NULL)
    return;
  pd_json_span_table_clear (&spans->rows);
  g_free (spans);
}

gboolean
_pd_gemini_spans_check (PdGeminiSpans *spans,
                        const char    *line,
                        gsize          length)
{
  return pd_json_check_spans (line, length, record_span_pick, spans->values, &spans->rows, NULL);
}

/* A message of the older format: a record's members, from the row's
 * slot 1 (its tool calls walked by the reader: an element's pick names no
 * elements of its own). */
static const PdJsonSpanPick message_span_pick[] = {
  { "$rewindTo", 1 + REC_REWIND }, { "$set", 1 + REC_SET }, { "id", 1 + REC_ID },
  { "sessionId", 1 + REC_SESSION_ID }, { "startTime", 1 + REC_START }, { "lastUpdated", 1 + REC_LAST },
  { "summary", 1 + REC_SUMMARY }, { "timestamp", 1 + REC_TIMESTAMP }, { "type", 1 + REC_TYPE },
  { "content", 1 + REC_CONTENT }, { "toolCalls", 1 + REC_CALLS }, { NULL },
};
/* The document: the header's members the reader reads (header_pick), and
 * its messages, a row each. */
static const PdJsonSpanPick document_members_pick[] = {
  { "sessionId", REC_SESSION_ID }, { "startTime", REC_START }, { "lastUpdated", REC_LAST },
  { "summary", REC_SUMMARY }, { "messages", DOC_MESSAGES, NULL, message_span_pick, 0, GEMINI_MESSAGE_ROW },
  { NULL },
};
static const PdJsonSpanPick document_span_pick = { "", DOC_ROOT, document_members_pick };

gboolean
_pd_gemini_spans_check_document (PdGeminiSpans *spans,
                                 const char    *text,
                                 gsize          length)
{
  /* Each slot of the root's members emptied first: a root that is no
   * object leaves them so. */
  memset (spans->values, 0, sizeof spans->values);
  pd_json_span_table_reset (&spans->rows);
  /* The array is the last "messages" member's value, as the whole tree
   * keeps it; none, or one of another kind, is refused. */
  return pd_json_check_spans_value (text, length, &document_span_pick, spans->values, &spans->rows, NULL)
         && pd_json_span_is_object (spans->values[DOC_ROOT])
         && pd_json_span_is_array (spans->values[DOC_MESSAGES]);
}
