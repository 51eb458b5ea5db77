/* pd-gemini-reader-private.h: between the Gemini CLI reader and what it
 * finds of a JSON lines record, or of the older format's document, while
 * checking it (pd-gemini-spans.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "pd-json-span.h"

#include <json-glib/json-glib.h>

#include "pd-import-private.h"


G_BEGIN_DECLS

/* A record's members, as the reader reads them. */
enum {
  REC_REWIND, REC_SET, REC_ID, REC_SESSION_ID, REC_START, REC_LAST, REC_SUMMARY, REC_TIMESTAMP, REC_TYPE,
  REC_CONTENT, REC_CALLS, N_REC,
};

/* A tool call's row: the call, its name, status, arguments and their list. */
enum { CALL_ELEMENT, CALL_NAME, CALL_STATUS, CALL_ARGS, CALL_TODOS, N_CALL };

/* The older format's document: its header's members (at a record's
 * slots), its messages array and the document itself. */
enum { DOC_MESSAGES = N_REC, DOC_ROOT, N_DOC };

#define GEMINI_MESSAGE_ROW (1 + N_REC)

/* What the one walk that checks a record or a document found of it, valid
 * while its text is.  A record: its members at REC_* and a row for each
 * of its tool calls (CALL_*).  A document: the header's members at REC_*,
 * DOC_MESSAGES and DOC_ROOT, and a row for each message, the message and
 * then its members (indexed as a record's, from 1).  @rows cut: more than
 * the rows keep, walked again by the reader. */
typedef struct
{
  PdJsonSpan      values[N_DOC];
  PdJsonSpanTable rows;
} PdGeminiSpans;

/* content_text() on a span: a message's text, its parts' joined. */
char          *_pd_gemini_span_content_text (PdJsonSpan content);

/* @max_rows: PD_GEMINI_CALL_ROWS for records, PD_GEMINI_MESSAGE_ROWS for
 * a document */
PdGeminiSpans *_pd_gemini_spans_new   (guint          max_rows);
void           _pd_gemini_spans_free  (PdGeminiSpans *spans);
/* FALSE when @line is refused, as pd_json_check_foreign() refuses. */
gboolean       _pd_gemini_spans_check (PdGeminiSpans *spans,
                                       const char    *line,
                                       gsize          length);
/* FALSE when @text is refused as pd_json_elements_new() refuses it for
 * "messages": no JSON, or no object with an array of that name. */
gboolean       _pd_gemini_spans_check_document (PdGeminiSpans *spans,
                                                const char    *text,
                                                gsize          length);

/* A record of more calls than this is read by walking its calls again. */
#define PD_GEMINI_CALL_ROWS 64
/* A document of more messages than this many rows is read by walking its
 * messages again: the rows cost at most a few megabytes whatever the
 * document. */
#define PD_GEMINI_MESSAGE_ROWS 32768

/* One message as the replay needs it, and, read for the pages, what they
 * show of it: its text, thoughts and calls, never its tree (a message's
 * tree took 8 to 27 times its text).  What is kept for the pages is taken
 * from the session's budget (PdImportBudget, in bytes), or the message is
 * said unshown in its place, its calls named. */
typedef struct
{
  char      *id;
  gint64     time;
  GPtrArray *lists;      /* (nullable) PdImportList: its applied write_todos calls */
  guint      refused;    /* its write_todos calls that failed or were of another shape */
  char      *user_text;  /* (nullable) a user message's text, for the title */
  /* For the pages (read with pages only). */
  gboolean    shown;     /* what follows is kept: the budget had room */
  const char *role;      /* "user", "assistant" or "system" */
  char       *text;      /* (nullable) its content's text */
  GPtrArray  *thoughts;  /* (nullable) char *: "subject: description" each */
  GPtrArray  *call_texts; /* (nullable) PdGeminiCallText of each tool call */
  gsize       bytes;     /* taken from *budget */
  PdImportBudget *budget;
  gsize       unshown;   /* > 0: the bytes of the record the budget had no room for */
} PdGeminiMessage;

/* What the pages show of a tool call: the head of its arguments' text (a
 * plan call of a million items is never built), its id and name, and, of
 * a message shown, its time and result. */
typedef struct
{
  char     *arguments;  /* (nullable) */
  gsize     left_out;   /* bytes of the arguments after that head */
  char     *id;         /* (nullable) */
  char     *name;       /* (nullable) */
  gint64    time;
  gboolean  has_result; /* a status or an output: a result to show */
  gboolean  failed;     /* status "error" */
  char     *output;     /* (nullable) the display text, else the response's output */
  gboolean  element;    /* the call is an object (others are not shown) */
  gboolean  packed;     /* its texts are in its own block, after it */
} PdGeminiCallText;

void           _pd_gemini_call_text_free (PdGeminiCallText *text);
/* The text of a message's content: a string, a part ({text}) or parts. */
char          *_pd_gemini_content_text   (JsonNode         *content);
/* What the pages show of the message whose tree (pages picked) is
 * @object and whose record's text is @record (length 0: none), kept in
 * @message, taken from @budget; or, when it has no room, only its calls'
 * names and heads and @message->unshown set. */
void           _pd_gemini_message_keep     (PdGeminiMessage   *message,
                                            JsonObject        *object,
                                            PdJsonSpan         record,
                                            PdImportBudget    *budget);
/* A message kept for the pages, into @pages; what it kept for them is let
 * go (the pages are read once, by a reader made for them). */
void           _pd_gemini_message_to_pages (PdTranscriptPages *pages,
                                            PdGeminiMessage   *message);

/* pd-gemini-index.c: the messages in order, by id; a message whose id
 * alone matters is put as NULL (no structure of its own).  The index owns
 * the messages (@free_message). */
typedef struct _PdGeminiIndex PdGeminiIndex;

PdGeminiIndex   *_pd_gemini_index_new        (GDestroyNotify   free_message);
void             _pd_gemini_index_free       (PdGeminiIndex   *self);
void             _pd_gemini_index_clear      (PdGeminiIndex   *self);
guint            _pd_gemini_index_get_length (PdGeminiIndex   *self);
/* (nullable): NULL for a message whose id alone matters. */
PdGeminiMessage *_pd_gemini_index_get        (PdGeminiIndex   *self,
                                              guint            index);
gboolean         _pd_gemini_index_lookup     (PdGeminiIndex   *self,
                                              const char      *id,
                                              gsize            length,
                                              guint           *index);
/* Puts @message (nullable) as the message of @id (@length bytes), its
 * record the file's line at @line (-1: none): in the
 * place of the one before of that id, else after the last; FALSE when
 * new and @max messages are held already (@message freed). */
gboolean         _pd_gemini_index_put        (PdGeminiIndex   *self,
                                              const char      *id,
                                              gsize            length,
                                              PdGeminiMessage *message,
                                              goffset          line,
                                              guint            max);
/* Where the line of message @index starts (-1: none), once: the pages
 * read it again at the replay. */
goffset          _pd_gemini_index_take_line  (PdGeminiIndex   *self,
                                              guint            index);
const char      *_pd_gemini_index_get_id     (PdGeminiIndex   *self,
                                              guint            index);
/* For tests: the most messages with a structure any index held at once
 * since the last call. */
guint            _pd_gemini_index_reset_peak_held (void);
/* Lets every message from @length on go. */
void             _pd_gemini_index_truncate   (PdGeminiIndex   *self,
                                              guint            length);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdGeminiSpans, _pd_gemini_spans_free)

G_END_DECLS
