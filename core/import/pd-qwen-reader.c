/* pd-qwen-reader.c: Qwen Code sessions.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-import-private.h"
#include "pd-jsonl-backward.h"
#include "pd-jsonl-reader.h"
#include "pd-jsonl-replay.h"
#include "pd-json.h"
#include "pd-pending-calls.h"
#include "pd-qwen-reader.h"
#include "pd-qwen-reader-private.h"

/* A call without an id waits under this key (one at a time). */
#define ANONYMOUS_CALL ""

/* Words that make a line worth parsing when it is not read for the pages:
 * the plan tool's calls and the results that confirm them, the title. */
static const char * const needles[] = {
  "todo_write", "\"tool_result\"", "custom_title", "\"user\"", NULL,
};

#define NEEDLE_TODO_WRITE 0
#define NEEDLE_RESULT 1
#define NEEDLE_TITLE 2
#define NEEDLE_USER 3

static const PdNeedles *
get_needles (void)
{
  static PdNeedles *compiled;

  if (g_once_init_enter (&compiled))
    g_once_init_leave (&compiled, _pd_needles_new (needles));
  return compiled;
}

static void transcript_reader_iface_init (PdTranscriptReaderInterface *iface);
static void qwen_spans_free (struct _QwenSpans *spans);

G_DEFINE_FINAL_TYPE_WITH_CODE (PdQwenReader, pd_qwen_reader, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (PD_TYPE_TRANSCRIPT_READER, transcript_reader_iface_init))

static gboolean qwen_update (PdTranscriptReader  *reader,
                             GCancellable        *cancellable,
                             GError             **error);

static void
items_free (gpointer data)
{
  _pd_import_list_free (data);
}

static void
pd_qwen_reader_finalize (GObject *object)
{
  PdQwenReader *self = PD_QWEN_READER (object);

  g_clear_pointer (&self->calls, _pd_pending_calls_free);
  if (self->spans != NULL)
    qwen_spans_free (self->spans);
  g_clear_object (&self->session);
  g_clear_object (&self->pages);
  g_free (self->path);
  g_free (self->todos_dir);

  G_OBJECT_CLASS (pd_qwen_reader_parent_class)->finalize (object);
}

static void
pd_qwen_reader_class_init (PdQwenReaderClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_qwen_reader_finalize;
}

static void
pd_qwen_reader_init (PdQwenReader *self)
{
  self->max_line = PD_JSONL_DEFAULT_MAX_LINE;
  self->calls = _pd_pending_calls_new (items_free);
}

PdQwenReader *
pd_qwen_reader_new (const char *path)
{
  PdQwenReader *self;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (PD_TYPE_QWEN_READER, NULL);
  self->path = g_strdup (path);
  self->session = pd_imported_session_new (PD_IMPORT_SOURCE_QWEN, path);
  return self;
}

void
pd_qwen_reader_set_todos_dir (PdQwenReader *self,
                              const char   *dir)
{
  g_return_if_fail (PD_IS_QWEN_READER (self));

  g_free (self->todos_dir);
  self->todos_dir = g_strdup (dir);
}

/* Reads on from the offset of a session an earlier import (in another
 * process) read up to there, with the facts it kept: the title, folder,
 * times and counts are taken as read; the list is not (the index keeps no
 * plan text), so until a new list is read the checklist is empty and the
 * index keeps the counts it stored. */
static void
qwen_resume_at (PdTranscriptReader   *reader,
                const PdImportResume *resume)
{
  PdQwenReader *self = PD_QWEN_READER (reader);
  PdImportStats *stats = pd_imported_session_get_stats (self->session);

  self->offset = resume->offset;
  /* Not a first read: no tail search. */
  self->tail_done = TRUE;
  if (resume->title != NULL && *resume->title != '\0')
    pd_imported_session_set_title (self->session, resume->title);
  if (resume->cwd != NULL && *resume->cwd != '\0')
    pd_imported_session_set_cwd (self->session, resume->cwd);
  pd_imported_session_note_time (self->session, resume->created_at);
  pd_imported_session_note_time (self->session, resume->updated_at);
  stats->lines = resume->counts.lines;
  stats->skipped_lines = resume->counts.skipped_lines;
  stats->applied_updates = resume->counts.applied_updates;
  stats->ignored_updates = resume->counts.ignored_updates;
}

/* A part of a long transcript's timeline: its lines alone.  Qwen Code's
 * records stand on their own but for a call's result, which follows its
 * call closely (the caller reads from a little before the part). */
static void
qwen_set_range (PdTranscriptReader *reader,
                goffset             from,
                goffset             stop)
{
  PdQwenReader *self = PD_QWEN_READER (reader);

  self->offset = from;
  self->stop = stop;
  self->tail_done = TRUE;
}

/* The offset read to, or 0 while a todo_write call waits for its result
 * (whose call a read from the offset would not know). */
static goffset
qwen_get_resume_offset (PdTranscriptReader *reader)
{
  PdQwenReader *self = PD_QWEN_READER (reader);

  return _pd_pending_calls_get_size (self->calls) > 0 ? 0 : self->offset;
}

PdQwenSideCheck
pd_qwen_reader_get_side_check (PdQwenReader *self)
{
  g_return_val_if_fail (PD_IS_QWEN_READER (self), PD_QWEN_SIDE_CHECK_NONE);

  return self->side_check;
}

static void
qwen_set_max_line (PdTranscriptReader *reader,
                   gsize               max_line)
{
  PD_QWEN_READER (reader)->max_line = max_line;
}

static void
qwen_set_follow (PdTranscriptReader *reader,
                 gboolean            follow)
{
  PD_QWEN_READER (reader)->follow = !!follow;
}

static PdImportedSession *
qwen_get_session (PdTranscriptReader *reader)
{
  return PD_QWEN_READER (reader)->session;
}

static goffset
qwen_get_offset (PdTranscriptReader *reader)
{
  return PD_QWEN_READER (reader)->offset;
}

static const char *
qwen_get_format (PdTranscriptReader *reader)
{
  return "qwen";
}

static void
qwen_set_pages (PdTranscriptReader *reader,
                PdTranscriptPages  *pages)
{
  PdQwenReader *self = PD_QWEN_READER (reader);

  g_set_object (&self->pages, pages);
  if (pages != NULL)
    self->tail_done = TRUE;
}

/* qwen --resume ID, in the session's folder (Qwen keeps sessions per
 * folder, as the path's slug says). */
static GStrv
qwen_dup_resume_argv (PdTranscriptReader *reader)
{
  static const char * const words[] = { "--resume", NULL };

  return _pd_import_resume_argv ("qwen", words, pd_imported_session_get_id (PD_QWEN_READER (reader)->session));
}

static void
transcript_reader_iface_init (PdTranscriptReaderInterface *iface)
{
  iface->get_format = qwen_get_format;
  iface->set_max_line = qwen_set_max_line;
  iface->set_follow = qwen_set_follow;
  iface->update = qwen_update;
  iface->get_session = qwen_get_session;
  iface->get_offset = qwen_get_offset;
  iface->set_pages = qwen_set_pages;
  iface->dup_resume_argv = qwen_dup_resume_argv;
  iface->resume_at = qwen_resume_at;
  iface->get_resume_offset = qwen_get_resume_offset;
  iface->set_range = qwen_set_range;
}

/* ---------------------------------------------------------------------- */
/* Replay                                                                 */

static const char * const content_members[] = { "content", NULL };

/* todo_write's items (the rest counted in *@hidden); NULL: no list. */
static GPtrArray *
items_from_args (JsonObject *args,
                 guint      *hidden)
{
  return _pd_import_items_from_array_cut (pd_json_get_array (args, "todos"), content_members, "id", hidden);
}

/* The span of a checked line's message's parts (length 0: none). */
static PdJsonSpan
parts_span (PdJsonSpan record)
{
  PdJsonSpan message = { NULL, 0 }, parts = { NULL, 0 };

  if (!pd_json_span_get_member (record, "message", &message) || !pd_json_span_get_member (message, "parts", &parts))
    return (PdJsonSpan) { NULL, 0 };
  return parts;
}

/* The span of the part after @cursor in @parts, @cursor moved past it
 * (length 0: none).  The parts are walked once a line: looked up from the
 * first each (the @index-th part walked the index before it), a line of
 * 1 365 tiny calls walked 930 000 parts, and a 10 MB transcript of them
 * took 45 s to serve (tried as an attacker would). */
static PdJsonSpan
next_part_span (PdQwenReader *self,
                PdJsonSpan    parts,
                gsize        *cursor)
{
  PdJsonSpan part = { NULL, 0 };

  if (parts.length == 0 || !pd_json_span_next_element (parts, cursor, &part))
    return (PdJsonSpan) { NULL, 0 };
  if (self != NULL)
    self->parts_walked++;
  return part;
}

/* The todos of a todo_write call in a part's span; NULL when they are no
 * list.  Read in place: the items past PD_IMPORT_MAX_ITEMS are counted,
 * never built (a call of a million items built whole took 16 times its
 * line). */
static PdImportList *
items_of_part_span (PdJsonSpan part)
{
  PdJsonSpan call = { NULL, 0 }, args = { NULL, 0 }, todos = { NULL, 0 };
  GPtrArray *items;
  guint hidden = 0;

  if (!pd_json_span_get_member (part, "functionCall", &call) || !pd_json_span_is_object (call)
      || !pd_json_span_get_member (call, "args", &args) || !pd_json_span_is_object (args)
      || !pd_json_span_get_member (args, "todos", &todos)
      || !(items = _pd_import_items_from_span_cut (todos, content_members, "id", &hidden)))
    return NULL;
  return _pd_import_list_new (items, hidden);
}

/* The list of the todo_write call in the line's part @part, from the
 * line's text when the replay kept it, else from the tree. */
static PdImportList *
items_of_call (PdQwenReader *self,
               JsonObject   *call,
               PdJsonSpan    part)
{
  JsonObject *args;
  GPtrArray *items;
  guint hidden = 0;

  if (self->line != NULL)
    return items_of_part_span (part);
  if (!(args = pd_json_get_object (call, "args")) || !(items = items_from_args (args, &hidden)))
    return NULL;
  return _pd_import_list_new (items, hidden);
}

/* A tool_result's verdict: whether the call failed. */
static gboolean
result_failed (JsonObject *record,
               JsonObject *response)
{
  JsonObject *result = pd_json_get_object (record, "toolCallResult");
  const char *status = pd_json_get_string (result, "status");
  JsonNode *error;

  if (status != NULL && strcmp (status, "success") != 0)
    return TRUE;
  if (result != NULL && (error = json_object_get_member (result, "error")) && !JSON_NODE_HOLDS_NULL (error))
    return TRUE;
  if (response != NULL && (error = json_object_get_member (response, "error")) && !JSON_NODE_HOLDS_NULL (error))
    return TRUE;
  return FALSE;
}

static void apply_response (PdQwenReader *self,
                            gpointer      value,
                            gboolean      failed,
                            gint64        time);

static void
handle_response (PdQwenReader *self,
                 JsonObject   *record,
                 JsonObject   *call,
                 gint64        time)
{
  const char *call_id = pd_json_get_string (call, "id");
  gpointer value;

  if (!_pd_pending_calls_take (self->calls, call_id ? call_id : ANONYMOUS_CALL, &value))
    return;
  apply_response (self, value, result_failed (record, pd_json_get_object (call, "response")), time);
}

/* A waiting call's list (taken), applied unless it is no list or its
 * result says the call failed. */
static void
apply_response (PdQwenReader *self,
                gpointer      value,
                gboolean      failed,
                gint64        time)
{
  PdImportStats *stats = pd_imported_session_get_stats (self->session);

  if (value == NULL || failed)
    {
      stats->ignored_updates++;
      _pd_import_list_free (value);
    }
  else
    {
      _pd_import_list_apply (value, pd_imported_session_get_checklist (self->session),
                             PD_CHECKLIST_ORIGIN_QWEN_TODOS, TRUE);
      _pd_import_list_free (value);
      _pd_import_applied_update (self->session, self->pages, time);
      self->full_lists++;
    }
}

/* ---------------------------------------------------------------------- */
/* The conversation, for the pages                                        */

static void
add_part_to_pages (PdQwenReader *self,
                   JsonObject   *record,
                   const char   *type,
                   const char   *group,
                   JsonObject   *part,
                   PdJsonSpan    part_text,
                   gint64        time)
{
  JsonObject *call, *response;
  const char *text = pd_json_get_string (part, "text");

  if (text != NULL)
    {
      if (pd_json_get_boolean (part, "thought", FALSE))
        _pd_transcript_pages_add_thinking (self->pages, NULL, text, group, time);
      else
        _pd_transcript_pages_add_text (self->pages, NULL, strcmp (type, "assistant") == 0 ? "assistant" : "user",
                                       text, group, time);
    }
  else if ((call = pd_json_get_object (part, "functionCall")))
    {
      PdJsonSpan call_span = { NULL, 0 }, args = { NULL, 0 };
      g_autofree char *arguments = NULL;
      gsize left_out = 0;

      /* Its arguments' text as the line has it, up to what a page keeps:
       * never built (pages_pick leaves them out of the tree). */
      if (pd_json_span_get_member (part_text, "functionCall", &call_span)
          && pd_json_span_get_member (call_span, "args", &args))
        arguments = _pd_transcript_pages_head_of_span (args.text, args.length, PD_TRANSCRIPT_PAGES_TOOL_TEXT_MAX + 8,
                                                       &left_out);
      _pd_transcript_pages_add_tool_call_head (self->pages, NULL, pd_json_get_string (call, "id"),
                                               pd_json_get_string (call, "name"), arguments, left_out, group, time);
    }
  else if ((response = pd_json_get_object (part, "functionResponse")))
    {
      JsonObject *body = pd_json_get_object (response, "response");
      const char *output = pd_json_get_string (body, "output");
      g_autofree char *whole = NULL;

      if (output == NULL && (output = pd_json_get_string (body, "error")) == NULL && body != NULL)
        {
          g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), body);
          output = whole = json_to_string (node, FALSE);
        }
      _pd_transcript_pages_add_tool_result (self->pages, NULL, pd_json_get_string (response, "id"), output,
                                            result_failed (record, body), time);
    }
}

/* ---------------------------------------------------------------------- */
/* Records                                                                */

static void
set_title (PdQwenReader *self,
           const char   *text)
{
  g_autofree char *title = NULL;

  if (text == NULL || *text == '\0')
    return;
  title = _pd_import_title_from_text (text);
  pd_imported_session_set_title (self->session, title);
}

/* The session's facts, on every record: never plan state. */
static void
handle_meta (PdQwenReader *self,
             JsonObject   *record,
             const char   *type,
             JsonArray    *parts)
{
  const char *value;

  if (!self->have_meta)
    {
      if ((value = pd_json_get_string (record, "sessionId")))
        pd_imported_session_set_id (self->session, value);
      if ((value = pd_json_get_string (record, "cwd")))
        pd_imported_session_set_cwd (self->session, value);
      self->have_meta = pd_imported_session_get_id (self->session) != NULL;
    }

  if (strcmp (type, "system") == 0 && g_strcmp0 (pd_json_get_string (record, "subtype"), "custom_title") == 0)
    {
      JsonObject *payload = pd_json_get_object (record, "systemPayload");

      value = pd_json_get_string (payload, "title");
      if (value == NULL)
        value = pd_json_get_string (payload, "customTitle");
      if (value != NULL && *value)
        {
          set_title (self, value);
          self->titled = TRUE;
        }
    }
  else if (strcmp (type, "user") == 0 && pd_imported_session_get_title (self->session) == NULL && parts != NULL)
    {
      for (guint i = 0; i < json_array_get_length (parts); i++)
        {
          JsonNode *element = json_array_get_element (parts, i);

          if (JSON_NODE_HOLDS_OBJECT (element)
              && (value = pd_json_get_string (json_node_get_object (element), "text")) && *value)
            {
              set_title (self, value);
              break;
            }
        }
    }
}

static void
handle_record (PdQwenReader *self,
               JsonObject   *record,
               gint64        time)
{
  const char *type = pd_json_get_string (record, "type");
  JsonArray *parts = pd_json_get_array (pd_json_get_object (record, "message"), "parts");
  PdJsonSpan parts_text = { NULL, 0 };
  gsize cursor = 0;

  if (type == NULL)
    return;
  pd_imported_session_note_time (self->session, time);
  handle_meta (self, record, type, parts);
  if (self->meta_only || parts == NULL)
    return;

  /* The parts' text, walked beside the tree's elements. */
  if (self->line != NULL)
    parts_text = parts_span ((PdJsonSpan) { self->line, self->line_length });
  for (guint i = 0; i < json_array_get_length (parts); i++)
    {
      JsonNode *element = json_array_get_element (parts, i);
      PdJsonSpan part_text = next_part_span (self, parts_text, &cursor);
      JsonObject *part, *call;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      part = json_node_get_object (element);
      if (self->pages != NULL)
        add_part_to_pages (self, record, type, pd_json_get_string (record, "uuid"), part, part_text, time);

      if (strcmp (type, "assistant") == 0 && (call = pd_json_get_object (part, "functionCall"))
          && g_strcmp0 (pd_json_get_string (call, "name"), "todo_write") == 0)
        {
          const char *call_id = pd_json_get_string (call, "id");
          PdImportList *items = items_of_call (self, call, part_text);

          /* A call id seen again (a torn write repeated): the newer call
           * is the one its result answers. */
          _pd_pending_calls_add (self->calls, call_id ? call_id : ANONYMOUS_CALL, items,
                                 pd_imported_session_get_stats (self->session));
        }
      else if (strcmp (type, "tool_result") == 0 && (call = pd_json_get_object (part, "functionResponse"))
               && _pd_pending_calls_get_size (self->calls) > 0)
        handle_response (self, record, call, time);
    }
}

/* ---------------------------------------------------------------------- */
/* Records read in place                                                  */

/* What handle_record() reads of a record, of its message and of a part,
 * found by the walk that checks the line (the replay's pick, as spans): a
 * record's members, and a row for each part of its message with the
 * members of its call (the list's span within it) and of its response. */
enum { REC_TYPE, REC_SESSION_ID, REC_CWD, REC_SUBTYPE, REC_PAYLOAD, REC_TIMESTAMP, REC_MESSAGE, REC_RESULT, REC_PARTS,
       N_REC };
enum { PART_ELEMENT, PART_TEXT, PART_CALL, PART_RESPONSE, PART_CALL_ID, PART_CALL_NAME, PART_ARGS, PART_TODOS,
       PART_RESPONSE_ID, N_PART };
static const char * const span_part_names[] = { "text", "functionCall", "functionResponse", NULL };

static const PdJsonSpanPick args_span_pick[] = { { "todos", PART_TODOS }, { NULL } };
static const PdJsonSpanPick call_span_pick[] = {
  { "id", PART_CALL_ID }, { "name", PART_CALL_NAME }, { "args", PART_ARGS, args_span_pick }, { NULL },
};
static const PdJsonSpanPick response_span_pick[] = { { "id", PART_RESPONSE_ID }, { NULL } };
static const PdJsonSpanPick part_span_pick[] = {
  { "text", PART_TEXT }, { "functionCall", PART_CALL, call_span_pick },
  { "functionResponse", PART_RESPONSE, response_span_pick }, { NULL },
};
static const PdJsonSpanPick message_span_pick[] = { { "parts", REC_PARTS, NULL, part_span_pick, 0, N_PART }, { NULL } };
static const PdJsonSpanPick record_span_pick[] = {
  { "type", REC_TYPE }, { "sessionId", REC_SESSION_ID }, { "cwd", REC_CWD }, { "subtype", REC_SUBTYPE },
  { "systemPayload", REC_PAYLOAD }, { "timestamp", REC_TIMESTAMP }, { "message", REC_MESSAGE, message_span_pick },
  { "toolCallResult", REC_RESULT }, { NULL },
};

/* A line of more parts than this is read by walking its parts again. */
#define MAX_PART_ROWS 64

typedef struct _QwenSpans
{
  PdJsonSpan      record[N_REC];
  PdJsonSpanTable parts;
  PdJsonSpan      row[N_PART];   /* a part walked again */
} QwenSpans;

static void
qwen_spans_free (QwenSpans *spans)
{
  pd_json_span_table_clear (&spans->parts);
  g_free (spans);
}

static gboolean
check_span (gpointer    user_data,
            const char *line,
            gsize       length)
{
  PdQwenReader *self = user_data;

  if (self->spans == NULL)
    {
      self->spans = g_new0 (QwenSpans, 1);
      pd_json_span_table_init (&self->spans->parts, MAX_PART_ROWS);
    }
  return pd_json_check_spans (line, length, record_span_pick, self->spans->record, &self->spans->parts, NULL);
}

/* The row of the part @index of the checked line: the walk's, or when it
 * kept fewer than the line has, the parts walked again into the same
 * members.  NULL after the last. */
static const PdJsonSpan *
part_row (QwenSpans *spans,
          guint      index,
          gsize     *cursor)
{
  static const char * const call_names[] = { "id", "name", "args", NULL };
  PdJsonSpan *row = spans->row;

  if (!spans->parts.cut)
    {
      if ((gsize) (index + 1) * N_PART > spans->parts.rows->len)
        return NULL;
      return &g_array_index (spans->parts.rows, PdJsonSpan, (gsize) index * N_PART);
    }
  memset (row, 0, sizeof spans->row);
  if (!pd_json_span_next_members (spans->record[REC_PARTS], cursor, span_part_names, row + PART_TEXT,
                                  &row[PART_ELEMENT]))
    return NULL;
  if (pd_json_span_is_object (row[PART_CALL]))
    pd_json_span_get_members (row[PART_CALL], call_names, row + PART_CALL_ID);
  if (pd_json_span_is_object (row[PART_ARGS]))
    pd_json_span_get_member (row[PART_ARGS], "todos", &row[PART_TODOS]);
  if (pd_json_span_is_object (row[PART_RESPONSE]))
    pd_json_span_get_member (row[PART_RESPONSE], "id", &row[PART_RESPONSE_ID]);
  return row;
}

/* A member holding something other than null (the tree's "error" test). */
static gboolean
span_is_set (PdJsonSpan value)
{
  return value.length > 0 && value.text[0] != 'n';
}

/* result_failed() on spans: @result the record's toolCallResult, @call
 * the part's functionResponse. */
static gboolean
span_result_failed (PdJsonSpan result,
                    PdJsonSpan call)
{
  static const char * const result_names[] = { "status", "error", NULL };
  PdJsonSpan members[2] = { { NULL, 0 }, { NULL, 0 } };
  PdJsonSpan response = { NULL, 0 }, error = { NULL, 0 };

  if (pd_json_span_is_object (result))
    {
      pd_json_span_get_members (result, result_names, members);
      if (pd_json_span_is_string (members[0]) && !pd_json_span_string_equal (members[0], "success"))
        return TRUE;
      if (span_is_set (members[1]))
        return TRUE;
    }
  return pd_json_span_get_member (call, "response", &response) && pd_json_span_is_object (response)
         && pd_json_span_get_member (response, "error", &error) && span_is_set (error);
}

/* handle_meta() on spans. */
static void
span_handle_meta (PdQwenReader     *self,
                  const PdJsonSpan *record,
                  PdJsonSpan        parts)
{
  if (!self->have_meta)
    {
      g_autofree char *id = pd_json_span_dup_string (record[REC_SESSION_ID]);
      g_autofree char *cwd = pd_json_span_dup_string (record[REC_CWD]);

      if (id != NULL)
        pd_imported_session_set_id (self->session, id);
      if (cwd != NULL)
        pd_imported_session_set_cwd (self->session, cwd);
      self->have_meta = pd_imported_session_get_id (self->session) != NULL;
    }

  if (pd_json_span_string_equal (record[REC_TYPE], "system")
      && pd_json_span_string_equal (record[REC_SUBTYPE], "custom_title"))
    {
      static const char * const title_names[] = { "title", "customTitle", NULL };
      PdJsonSpan titles[2] = { { NULL, 0 }, { NULL, 0 } };
      g_autofree char *value = NULL;

      if (pd_json_span_is_object (record[REC_PAYLOAD]))
        pd_json_span_get_members (record[REC_PAYLOAD], title_names, titles);
      if (!(value = pd_json_span_dup_string (titles[0])))
        value = pd_json_span_dup_string (titles[1]);
      if (value != NULL && *value)
        {
          set_title (self, value);
          self->titled = TRUE;
        }
    }
  else if (pd_json_span_string_equal (record[REC_TYPE], "user") && pd_imported_session_get_title (self->session) == NULL
           && pd_json_span_is_array (parts))
    {
      static const char * const text_name[] = { "text", NULL };
      PdJsonSpan text, part;
      gsize cursor = 0;

      while (pd_json_span_next_members (parts, &cursor, text_name, &text, &part))
        {
          g_autofree char *value = pd_json_span_is_object (part) ? pd_json_span_dup_string (text) : NULL;

          if (value != NULL && *value)
            {
              set_title (self, value);
              break;
            }
        }
    }
}

/* handle_line() on a checked line, in place, from what its check found: a
 * call's list read from its span, a result's verdict from its members,
 * nothing built. */
static gboolean
handle_span (gpointer    user_data,
             const char *line,
             gsize       length)
{
  PdQwenReader *self = user_data;
  QwenSpans *spans = self->spans;
  const PdJsonSpan *record = spans->record;
  const PdJsonSpan *row;
  gboolean assistant, result;
  gsize cursor = 0;
  gint64 time;

  if (pd_json_span_is_string (record[REC_TYPE]))
    {
      g_autofree char *timestamp = pd_json_span_dup_string (record[REC_TIMESTAMP]);

      time = _pd_import_parse_time (timestamp);
      pd_imported_session_note_time (self->session, time);
      span_handle_meta (self, record, record[REC_PARTS]);
      assistant = pd_json_span_string_equal (record[REC_TYPE], "assistant");
      result = pd_json_span_string_equal (record[REC_TYPE], "tool_result");
      for (guint i = 0; !self->meta_only && (assistant || result) && (row = part_row (spans, i, &cursor)); i++)
        {
          if (!pd_json_span_is_object (row[PART_ELEMENT]))
            continue;
          if (assistant && pd_json_span_is_object (row[PART_CALL]))
            {
              g_autofree char *call_id = NULL;
              PdImportList *items = NULL;
              GPtrArray *list;
              guint hidden = 0;

              if (!pd_json_span_string_equal (row[PART_CALL_NAME], "todo_write"))
                continue;
              call_id = pd_json_span_dup_string (row[PART_CALL_ID]);
              /* items_of_part_span(), its list's span found already. */
              if (pd_json_span_is_object (row[PART_ARGS]) && row[PART_TODOS].length > 0
                  && (list = _pd_import_items_from_span_cut (row[PART_TODOS], content_members, "id", &hidden)))
                items = _pd_import_list_new (list, hidden);
              _pd_pending_calls_add (self->calls, call_id ? call_id : ANONYMOUS_CALL, items,
                                     pd_imported_session_get_stats (self->session));
            }
          else if (result && pd_json_span_is_object (row[PART_RESPONSE])
                   && _pd_pending_calls_get_size (self->calls) > 0)
            {
              g_autofree char *call_id = NULL;
              gpointer value;

              call_id = pd_json_span_dup_string (row[PART_RESPONSE_ID]);
              if (!_pd_pending_calls_take (self->calls, call_id ? call_id : ANONYMOUS_CALL, &value))
                continue;
              apply_response (self, value, span_result_failed (record[REC_RESULT], row[PART_RESPONSE]), time);
            }
        }
    }
  /* As handle_line(): the head is read on until a custom title is found. */
  return !(self->meta_only && self->have_meta && self->titled);
}

/* Parsed: every line for the pages; otherwise the first (the session's
 * facts), plan calls, results while calls wait, and the lines that can
 * give the title. */
static PdJsonlLineUse
look_at_line (gpointer    user_data,
              const char *line,
              gsize       length)
{
  PdQwenReader *self = user_data;
  guint32 found;

  self->line = line;
  self->line_length = length;
  /* The pages show each record, but a call's arguments only up to their
   * bound, read from the line (pages_pick). */
  if (self->pages != NULL)
    return PD_JSONL_LINE_PICK;
  if (!self->have_meta)
    return PD_JSONL_LINE_SPAN;
  found = _pd_needles_scan (get_needles (), line, length, NULL);
  if ((found & (1u << NEEDLE_TODO_WRITE) && !self->meta_only)
      || ((found & (1u << NEEDLE_RESULT)) && _pd_pending_calls_get_size (self->calls) > 0)
      || (found & (1u << NEEDLE_TITLE))
      || ((found & (1u << NEEDLE_USER)) && pd_imported_session_get_title (self->session) == NULL))
    return PD_JSONL_LINE_SPAN;
  return PD_JSONL_LINE_SKIP;
}

static gboolean
handle_line (gpointer    user_data,
             JsonObject *object)
{
  PdQwenReader *self = user_data;

  handle_record (self, object, _pd_import_parse_time (pd_json_get_string (object, "timestamp")));
  /* A custom title wins over the first prompt: the head is read on until
   * one is found (or its end). */
  return !(self->meta_only && self->have_meta && self->titled);
}

/* What the replay reads of a record when no page is kept — read in place
 * (handle_span()); as a tree only when lines are not picked (the tests and
 * fuzz targets that compare the two): a plan call's arguments are read from
 * the line's text (items_of_call()), a result's output is not read at all. */
static const PdJsonPick title_pick[] = { { "title", NULL }, { "customTitle", NULL }, { NULL, NULL } };
static const PdJsonPick call_pick[] = { { "id", NULL }, { "name", NULL }, { NULL, NULL } };
static const PdJsonPick response_pick[] = { { "error", NULL }, { NULL, NULL } };
static const PdJsonPick function_response_pick[] = { { "id", NULL }, { "response", response_pick }, { NULL, NULL } };
static const PdJsonPick part_pick[] = {
  { "text", NULL }, { "functionCall", call_pick }, { "functionResponse", function_response_pick }, { NULL, NULL },
};
static const PdJsonPick message_pick[] = { { "parts", part_pick }, { NULL, NULL } };
static const PdJsonPick result_pick[] = { { "status", NULL }, { "error", NULL }, { NULL, NULL } };
static const PdJsonPick record_pick[] = {
  { "type", NULL }, { "sessionId", NULL }, { "cwd", NULL }, { "subtype", NULL }, { "systemPayload", title_pick },
  { "timestamp", NULL }, { "message", message_pick }, { "toolCallResult", result_pick }, { NULL, NULL },
};

static const PdJsonlReplayFuncs replay_funcs = { look_at_line, handle_line, record_pick, handle_span, check_span };

/* For the pages: every member they show, a call's arguments read from the
 * line instead (a call of a million items was built whole, then its
 * text). */
static const PdJsonPick pages_part_pick[] = {
  { "text", NULL }, { "thought", NULL }, { "functionCall", call_pick }, { "functionResponse", NULL }, { NULL, NULL },
};
static const PdJsonPick pages_message_pick[] = { { "parts", pages_part_pick }, { NULL, NULL } };
static const PdJsonPick pages_record_pick[] = {
  { "type", NULL }, { "uuid", NULL }, { "sessionId", NULL }, { "cwd", NULL }, { "subtype", NULL }, { "systemPayload", title_pick },
  { "timestamp", NULL }, { "message", pages_message_pick }, { "toolCallResult", result_pick }, { NULL, NULL },
};

/* The pages number a long timeline's events by their lines. */
static void
at_line (gpointer user_data,
         goffset  offset)
{
  PdQwenReader *self = user_data;

  _pd_transcript_pages_set_line (self->pages, offset);
}

static const PdJsonlReplayFuncs pages_funcs = { look_at_line, handle_line, pages_record_pick, NULL, NULL, at_line };

static gboolean
read_lines (PdQwenReader  *self,
            goffset        from,
            goffset        stop,
            goffset       *end,
            GCancellable  *cancellable,
            GError       **error)
{
  gboolean ok = _pd_jsonl_replay (self->path, from, stop, self->max_line, self->follow,
                                  self->pages != NULL ? &pages_funcs : &replay_funcs, self,
                                  self->meta_only ? NULL : self->pages, pd_imported_session_get_stats (self->session),
                                  end, cancellable, error);

  self->line = NULL;
  self->line_length = 0;
  return ok;
}

/* ---------------------------------------------------------------------- */
/* Long sessions                                                          */

static gboolean
read_head (PdQwenReader  *self,
           goffset        until,
           GError       **error)
{
  goffset end;
  gsize max_line = self->max_line;
  gboolean ok;

  until = MIN (until, PD_IMPORT_TAIL_HEAD);
  if (until <= 0)
    return TRUE;
  /* Only lines within the head: a longer one (a first line of 81 MB) is
   * not read to its end, nor told on the pages (facts only: read_lines()). */
  self->max_line = MIN (max_line, (gsize) until);
  self->meta_only = TRUE;
  ok = read_lines (self, 0, until, &end, NULL, error);
  self->meta_only = FALSE;
  self->max_line = max_line;
  return ok;
}

/* Whether a line is a todo_write call whose arguments are a list: read in
 * place, as the replay reads calls. */
static gboolean
is_full_list (const char *line,
              gsize       length)
{
  PdJsonSpan record = { line, length };
  PdJsonSpan type = { NULL, 0 };
  PdJsonSpan parts, part;
  gsize cursor = 0;

  if (length == 0 || line[0] != '{' || line[length - 1] != '}'
      || !pd_json_check_foreign (line, length, NULL)
      || !pd_json_span_get_member (record, "type", &type) || !pd_json_span_string_equal (type, "assistant"))
    return FALSE;
  parts = parts_span (record);
  while ((part = next_part_span (NULL, parts, &cursor)).length > 0)
    {
      PdJsonSpan call = { NULL, 0 }, name = { NULL, 0 };
      g_autoptr(PdImportList) items = NULL;

      if (pd_json_span_is_object (part) && pd_json_span_get_member (part, "functionCall", &call)
          && pd_json_span_get_member (call, "name", &name) && pd_json_span_string_equal (name, "todo_write")
          && (items = items_of_part_span (part)))
        return TRUE;
    }
  return FALSE;
}

typedef struct
{
  PdQwenReader *self;
  GCancellable *cancellable;
  PdQwenReader *head;   /* (nullable) the whole head's facts, read once */
} TailSearch;

/* The facts read_head() gives, taken from @head (read once for every
 * candidate past the head, instead of once each). */
static void
copy_head (PdQwenReader *trial,
           PdQwenReader *head)
{
  PdImportedSession *from = head->session;
  PdImportStats *mine = pd_imported_session_get_stats (trial->session);
  const PdImportStats *theirs = pd_imported_session_get_stats (from);

  if (pd_imported_session_get_id (from) != NULL)
    pd_imported_session_set_id (trial->session, pd_imported_session_get_id (from));
  if (pd_imported_session_get_cwd (from) != NULL)
    pd_imported_session_set_cwd (trial->session, pd_imported_session_get_cwd (from));
  if (pd_imported_session_get_title (from) != NULL)
    pd_imported_session_set_title (trial->session, pd_imported_session_get_title (from));
  pd_imported_session_note_time (trial->session, pd_imported_session_get_created_at (from));
  pd_imported_session_note_time (trial->session, pd_imported_session_get_updated_at (from));
  trial->have_meta = head->have_meta;
  trial->titled = head->titled;
  mine->lines += theirs->lines;
  mine->skipped_lines += theirs->skipped_lines;
  mine->bytes_read += theirs->bytes_read;
}

static PdQwenReader *
replay_from (PdQwenReader  *self,
             goffset        offset,
             TailSearch    *search,
             GError       **error)
{
  g_autoptr(PdQwenReader) trial = pd_qwen_reader_new (self->path);
  GCancellable *cancellable = search ? search->cancellable : NULL;

  trial->max_line = self->max_line;
  trial->follow = self->follow;
  trial->tail_done = TRUE;
  trial->todos_dir = g_strdup (self->todos_dir);
  if (search != NULL && offset >= PD_IMPORT_TAIL_HEAD)
    {
      if (search->head == NULL)
        {
          search->head = pd_qwen_reader_new (self->path);
          search->head->max_line = self->max_line;
          if (!read_head (search->head, offset, error))
            return NULL;
        }
      copy_head (trial, search->head);
    }
  else if (!read_head (trial, offset, error))
    return NULL;
  trial->offset = offset;
  if (!read_lines (trial, offset, 0, &trial->offset, cancellable, error))
    return NULL;
  return g_steal_pointer (&trial);
}

static void
adopt (PdQwenReader *self,
       PdQwenReader *other)
{
#define SWAP(field) G_STMT_START { __typeof__ (self->field) t = self->field; self->field = other->field; other->field = t; } G_STMT_END
  SWAP (session);
  SWAP (calls);
  SWAP (offset);
  SWAP (have_meta);
  SWAP (titled);
  SWAP (full_lists);
#undef SWAP
}

/* A candidate of the backward scan: a todo_write call, tried by replaying
 * forward from it (its result comes after it). */
static gboolean
try_tail_line (gpointer     user_data,
               const char  *line,
               gsize        length,
               goffset      offset,
               gboolean    *applied,
               guint64     *tried,
               GError     **error)
{
  TailSearch *search = user_data;
  g_autoptr(PdQwenReader) trial = NULL;

  if (!(_pd_needles_scan (get_needles (), line, length, NULL) & (1u << NEEDLE_TODO_WRITE))
      || !is_full_list (line, length))
    return TRUE;
  if (g_cancellable_set_error_if_cancelled (search->cancellable, error))
    return FALSE;
  if (!(trial = replay_from (search->self, offset, search, error)))
    return FALSE;
  if (trial->full_lists == 0)
    {
      /* What it read itself: a head it copied was read once. */
      *tried += pd_imported_session_get_stats (trial->session)->bytes_read
                - (search->head && offset >= PD_IMPORT_TAIL_HEAD
                   ? pd_imported_session_get_stats (search->head->session)->bytes_read : 0);
      return TRUE;
    }
  adopt (search->self, trial);
  *applied = TRUE;
  return TRUE;
}

/* The first read of a session over the threshold: from the newest
 * todo_write call within the bound whose result confirms it, as Codex's
 * rollouts are read (pd-codex-reader.c); the head (its first MB, up to
 * where the replay starts) gives the facts.  A custom title set between
 * the head and the replay's start is not known. */
static gboolean
read_tail (PdQwenReader  *self,
           goffset        size,
           GCancellable  *cancellable,
           GError       **error)
{
  TailSearch search = { self, cancellable, NULL };
  gboolean applied;
  goffset start;
  guint64 bytes_read;
  PdImportStats *stats;
  gboolean ok;

  ok = _pd_jsonl_backward_find_start (self->path, size, _pd_import_get_tail_bound (), self->max_line,
                                      try_tail_line, &search, &applied, &start, &bytes_read, error);
  /* The head, read once for all the candidates: counted in the stats of
   * the trial that applied (it copied them), else here. */
  if (search.head != NULL)
    {
      if (ok && !applied)
        bytes_read += pd_imported_session_get_stats (search.head->session)->bytes_read;
      g_clear_object (&search.head);
    }
  if (!ok)
    return FALSE;
  if (!applied)
    {
      if (!read_head (self, start, error))
        return FALSE;
      self->offset = start;
    }
  stats = pd_imported_session_get_stats (self->session);
  stats->bytes_read += bytes_read;
  stats->tail_read = applied || start > 0;
  return TRUE;
}

static gboolean
qwen_update (PdTranscriptReader  *reader,
             GCancellable        *cancellable,
             GError             **error)
{
  PdQwenReader *self = PD_QWEN_READER (reader);
  goffset tail = _pd_import_first_tail_size (&self->tail_done, self->offset, self->path);

  if (tail > 0 && !read_tail (self, tail, cancellable, error))
    return FALSE;
  if (!read_lines (self, self->offset, self->stop, &self->offset, cancellable, error))
    return FALSE;
  if (self->stop > 0)
    return TRUE;
  _pd_qwen_check_side_file (self);
  return TRUE;
}

PdImportedSession *
pd_qwen_read (const char  *path,
              GError     **error)
{
  g_autoptr(PdQwenReader) reader = pd_qwen_reader_new (path);

  if (!qwen_update (PD_TRANSCRIPT_READER (reader), NULL, error))
    return NULL;
  return g_object_ref (reader->session);
}
