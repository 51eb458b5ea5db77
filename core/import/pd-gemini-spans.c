/* pd-gemini-spans.c: a Gemini CLI JSON lines record checked and its
 * members found in one walk (pd_json_check_spans()), for the reader to
 * replay in place: the record's members, and a row for each tool call
 * with its name, status, arguments and their list.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

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

/* A record of more calls than this is read by walking its calls again. */
#define MAX_CALL_ROWS 64

PdGeminiSpans *
_pd_gemini_spans_new (void)
{
  PdGeminiSpans *spans = g_new0 (PdGeminiSpans, 1);

  spans->calls.rows = g_array_new (FALSE, FALSE, sizeof (PdJsonSpan));
  spans->calls.max_rows = MAX_CALL_ROWS;
  return spans;
}

void
_pd_gemini_spans_free (PdGeminiSpans *spans)
{
  if (spans == NULL)
    return;
  g_array_unref (spans->calls.rows);
  g_free (spans);
}

gboolean
_pd_gemini_spans_check (PdGeminiSpans *spans,
                        const char    *line,
                        gsize          length)
{
  return pd_json_check_spans (line, length, record_span_pick, spans->record, &spans->calls, NULL);
}
