/* pd-gemini-reader-private.h: between the Gemini CLI reader and what it
 * finds of a JSON lines record while checking it (pd-gemini-spans.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "pd-json-span.h"

G_BEGIN_DECLS

/* A record's members, as the reader reads them. */
enum {
  REC_REWIND, REC_SET, REC_ID, REC_SESSION_ID, REC_START, REC_LAST, REC_SUMMARY, REC_TIMESTAMP, REC_TYPE,
  REC_CONTENT, REC_CALLS, N_REC,
};

/* A tool call's row: the call, its name, status, arguments and their list. */
enum { CALL_ELEMENT, CALL_NAME, CALL_STATUS, CALL_ARGS, CALL_TODOS, N_CALL };

/* What the one walk that checks a record found of it: its members and a
 * row for each of its tool calls (@calls cut: more than the rows keep,
 * walked again by the reader), valid while the record's text is. */
typedef struct
{
  PdJsonSpan      record[N_REC];
  PdJsonSpanTable calls;
} PdGeminiSpans;

PdGeminiSpans *_pd_gemini_spans_new   (void);
void           _pd_gemini_spans_free  (PdGeminiSpans *spans);
/* FALSE when @line is refused, as pd_json_check_foreign() refuses. */
gboolean       _pd_gemini_spans_check (PdGeminiSpans *spans,
                                       const char    *line,
                                       gsize          length);

G_END_DECLS
