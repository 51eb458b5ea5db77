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

/* content_text() on a span: a message's text, its parts' joined. */
char          *_pd_gemini_span_content_text (PdJsonSpan content);

PdGeminiSpans *_pd_gemini_spans_new   (void);
void           _pd_gemini_spans_free  (PdGeminiSpans *spans);
/* FALSE when @line is refused, as pd_json_check_foreign() refuses. */
gboolean       _pd_gemini_spans_check (PdGeminiSpans *spans,
                                       const char    *line,
                                       gsize          length);

/* The older format's document: its header's members (at a record's
 * slots), its messages array and the document itself. */
enum { DOC_MESSAGES = N_REC, DOC_ROOT, N_DOC };

/* What the one walk that checks a document found of it: the header's
 * members and a row for each message, the message and then its members
 * (indexed as a record's, from 1); @messages cut: more messages than the
 * rows keep, walked again by the reader.  Valid while the text is. */
typedef struct
{
  PdJsonSpan      values[N_DOC];
  PdJsonSpanTable messages;
} PdGeminiDocument;

#define GEMINI_MESSAGE_ROW (1 + N_REC)

PdGeminiDocument *_pd_gemini_document_new   (void);
void              _pd_gemini_document_free  (PdGeminiDocument *document);
/* FALSE when @text is refused as pd_json_elements_new() refuses it for
 * "messages": no JSON, or no object with an array of that name. */
gboolean          _pd_gemini_document_check (PdGeminiDocument *document,
                                             const char       *text,
                                             gsize             length);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdGeminiDocument, _pd_gemini_document_free)

G_END_DECLS
