/* pd-gemini-reader.c: Gemini CLI sessions, JSON lines and the older
 * one-document format.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "pd-gemini-reader.h"
#include "pd-gemini-reader-private.h"
#include "pd-import-private.h"
#include "pd-jsonl-reader.h"
#include "pd-jsonl-replay.h"
#include "pd-json.h"

/* The older format is one document, read whole: a bound on its size. */
#define DOCUMENT_MAX ((gsize) 256 * 1024 * 1024)
#define PROJECT_ROOT_MAX 4096
/* Messages kept for the replay (ids, times, lists): a defensive bound. */
#define MAX_MESSAGES 1000000

/* Lines worth parsing when not read for the pages; any other line is a
 * message whose id alone matters (it may replace one with a list). */
static const char * const needles[] = {
  "write_todos", "$rewindTo", "$set", "\"user\"", "\"projectHash\"", NULL,
};

static const PdNeedles *
get_needles (void)
{
  static PdNeedles *compiled;

  if (g_once_init_enter (&compiled))
    g_once_init_leave (&compiled, _pd_needles_new (needles));
  return compiled;
}

struct _PdGeminiReader
{
  GObject            parent_instance;

  char              *path;
  gboolean           document;
  gsize              max_line;
  gboolean           follow;
  goffset            offset;
  PdImportedSession *session;
  PdGeminiIndex     *index;      /* the messages, in order, by id */
  guint              titles;     /* of them, those holding the user's words (user_text) */
  char              *summary;    /* $set summary: the title */
  gboolean           read_once;  /* a document was read whole at least once */
  PdTranscriptPages *pages;
  /* The record being handled, as it was read: a call's list is read from
   * its text, never built whole (see list_of_call()). */
  const char        *record;
  gsize              record_length;
  /* Where that record's line starts, read with pages (-1: not known): a
   * message's line is read again for the pages at the replay, never kept
   * (see replay_to_pages()). */
  goffset            record_line;
  /* Read on from where another process ended: the messages before
   * resumed_at are not known; the facts and counts stored are. */
  goffset            resumed_at;
  gboolean           reaches_back;    /* a line read may change what lies before resumed_at */
  gboolean           resumed_whole;   /* so the file was read whole again */
  char              *stored_title;
  PdImportStats      stored;
  /* What the check of a line read in place found of it (check_span()). */
  PdGeminiSpans     *spans;
  /* What the messages kept for the pages hold (PD_IMPORT_SESSION_BYTES_MAX). */
  PdImportBudget     budget;
};

static void transcript_reader_iface_init (PdTranscriptReaderInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PdGeminiReader, pd_gemini_reader, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (PD_TYPE_TRANSCRIPT_READER, transcript_reader_iface_init))

static void
message_free (PdGeminiMessage *message)
{
  if (message->budget != NULL)
    _pd_import_budget_give (message->budget, message->bytes);
  g_free (message->id);
  g_clear_pointer (&message->lists, g_ptr_array_unref);
  g_free (message->user_text);
  g_free (message->text);
  g_clear_pointer (&message->thoughts, g_ptr_array_unref);
  g_clear_pointer (&message->call_texts, g_ptr_array_unref);
  g_free (message);
}

static void
pd_gemini_reader_finalize (GObject *object)
{
  PdGeminiReader *self = PD_GEMINI_READER (object);

  g_clear_pointer (&self->index, _pd_gemini_index_free);
  g_clear_object (&self->session);
  g_clear_object (&self->pages);
  g_free (self->path);
  g_free (self->summary);
  g_free (self->stored_title);
  g_clear_pointer (&self->spans, _pd_gemini_spans_free);

  G_OBJECT_CLASS (pd_gemini_reader_parent_class)->finalize (object);
}

static void
pd_gemini_reader_class_init (PdGeminiReaderClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_gemini_reader_finalize;
}

static void
pd_gemini_reader_init (PdGeminiReader *self)
{
  self->max_line = PD_JSONL_DEFAULT_MAX_LINE;
  self->index = _pd_gemini_index_new ((GDestroyNotify) message_free);
  self->record_line = -1;
  _pd_import_budget_init (&self->budget);
}

PdGeminiReader *
pd_gemini_reader_new (const char *path,
                      gboolean    document)
{
  PdGeminiReader *self;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (PD_TYPE_GEMINI_READER, NULL);
  self->path = g_strdup (path);
  self->document = !!document;
  self->session = pd_imported_session_new (PD_IMPORT_SOURCE_GEMINI, path);
  return self;
}

/* A JSON lines session an earlier process read up to the offset, whose
 * stored facts and counts are given: the reader reads on from there.  The
 * lines after it stand on their own unless they may reach back before it
 * (a write_todos call, which may be a message written again with its id,
 * or a rewind to a message before it): then the whole file is read again
 * (get_resumed_whole says it was).  A message written again without its
 * plan call, dropping a list read before the offset, is not seen (Gemini
 * CLI keeps a message's tool calls when it writes it again). */
static void
gemini_resume_at (PdTranscriptReader   *reader,
                  const PdImportResume *resume)
{
  PdGeminiReader *self = PD_GEMINI_READER (reader);
  PdImportStats *stats = pd_imported_session_get_stats (self->session);

  g_return_if_fail (!self->document);

  self->offset = resume->offset;
  self->resumed_at = resume->offset;
  g_free (self->stored_title);
  self->stored_title = resume->title != NULL && *resume->title != '\0' ? g_strdup (resume->title) : NULL;
  if (resume->cwd != NULL && *resume->cwd != '\0')
    pd_imported_session_set_cwd (self->session, resume->cwd);
  pd_imported_session_note_time (self->session, resume->created_at);
  pd_imported_session_note_time (self->session, resume->updated_at);
  stats->lines = resume->counts.lines;
  stats->skipped_lines = resume->counts.skipped_lines;
  self->stored.applied_updates = resume->counts.applied_updates;
  self->stored.ignored_updates = resume->counts.ignored_updates;
}

static gboolean
gemini_get_resumed_whole (PdTranscriptReader *reader)
{
  return PD_GEMINI_READER (reader)->resumed_whole;
}

static void
gemini_set_max_line (PdTranscriptReader *reader,
                     gsize               max_line)
{
  PD_GEMINI_READER (reader)->max_line = max_line;
}

static void
gemini_set_follow (PdTranscriptReader *reader,
                   gboolean            follow)
{
  PD_GEMINI_READER (reader)->follow = !!follow;
}

static PdImportedSession *
gemini_get_session (PdTranscriptReader *reader)
{
  return PD_GEMINI_READER (reader)->session;
}

/* A document is read whole each time: 0, so the index never takes a
 * rewritten document for one that only grew. */
static goffset
gemini_get_offset (PdTranscriptReader *reader)
{
  PdGeminiReader *self = PD_GEMINI_READER (reader);

  return self->document ? 0 : self->offset;
}

static const char *
gemini_get_format (PdTranscriptReader *reader)
{
  return PD_GEMINI_READER (reader)->document ? "gemini-json" : "gemini";
}

static void
gemini_set_pages (PdTranscriptReader *reader,
                  PdTranscriptPages  *pages)
{
  PdGeminiReader *self = PD_GEMINI_READER (reader);

  g_set_object (&self->pages, pages);
  /* The messages kept for the pages are held to the pages' share of the
   * transcript's bytes too (a file of tiny messages). */
  if (pages != NULL && self->budget.held == 0)
    self->budget.max = MIN (self->budget.max, _pd_transcript_pages_get_budget_max (pages));
}

static GStrv
gemini_dup_resume_argv (PdTranscriptReader *reader)
{
  static const char * const words[] = { "--resume", NULL };

  return _pd_import_resume_argv ("gemini", words, pd_imported_session_get_id (PD_GEMINI_READER (reader)->session));
}

static gboolean gemini_update (PdTranscriptReader  *reader,
                               GCancellable        *cancellable,
                               GError             **error);

static void
transcript_reader_iface_init (PdTranscriptReaderInterface *iface)
{
  iface->get_format = gemini_get_format;
  iface->set_max_line = gemini_set_max_line;
  iface->set_follow = gemini_set_follow;
  iface->update = gemini_update;
  iface->get_session = gemini_get_session;
  iface->get_offset = gemini_get_offset;
  iface->set_pages = gemini_set_pages;
  iface->dup_resume_argv = gemini_dup_resume_argv;
  iface->resume_at = gemini_resume_at;
  iface->get_resumed_whole = gemini_get_resumed_whole;
}

/* ---------------------------------------------------------------------- */
/* Messages                                                               */

static const char * const description_members[] = { "description", NULL };

static gboolean
is_plan_tool (const char *name)
{
  return g_strcmp0 (name, "write_todos") == 0 || g_strcmp0 (name, "write_todos_list") == 0;
}

/* A call failed, was cancelled, or never ran: its list does not count. */
static gboolean
call_refused (JsonObject *call)
{
  const char *status = pd_json_get_string (call, "status");

  if (json_object_has_member (call, "status") && status == NULL)
    return TRUE;
  return status != NULL && (strcmp (status, "error") == 0 || strcmp (status, "cancelled") == 0
                            || strcmp (status, "canceled") == 0);
}

/* The list of the @index-th tool call of a checked record's text; NULL
 * when its args hold no list.  Read in place: the items past
 * PD_IMPORT_MAX_ITEMS are counted, never built (a call of a million items
 * built whole took 16 times its line). */
static PdImportList *
list_of_call_span (PdJsonSpan record,
                   guint      index)
{
  PdJsonSpan calls = { NULL, 0 }, call = { NULL, 0 }, args = { NULL, 0 }, todos = { NULL, 0 };
  GPtrArray *items;
  gsize cursor = 0;
  guint hidden = 0;

  if (!pd_json_span_get_member (record, "toolCalls", &calls))
    return NULL;
  for (guint i = 0; i <= index; i++)
    if (!pd_json_span_next_element (calls, &cursor, &call))
      return NULL;
  if (!pd_json_span_get_member (call, "args", &args) || !pd_json_span_is_object (args)
      || !pd_json_span_get_member (args, "todos", &todos)
      || !(items = _pd_import_items_from_span_cut (todos, description_members, NULL, &hidden)))
    return NULL;
  return _pd_import_list_new (items, hidden);
}

/* The list of a tool call: from the record's text when the reading kept
 * it (@record of length 0: from the tree). */
static PdImportList *
list_of_call (JsonObject *call,
              PdJsonSpan  record,
              guint       index)
{
  GPtrArray *items;
  guint hidden = 0;

  if (record.length > 0)
    return list_of_call_span (record, index);
  items = _pd_import_items_from_array_cut (pd_json_get_array (pd_json_get_object (call, "args"), "todos"),
                                           description_members, NULL, &hidden);
  return items ? _pd_import_list_new (items, hidden) : NULL;
}

static PdGeminiMessage *
message_new (JsonObject     *object,
             PdJsonSpan      record,
             const char     *id,
             PdImportBudget *budget)   /* (nullable): what the pages show is kept */
{
  PdGeminiMessage *message = g_new0 (PdGeminiMessage, 1);
  JsonArray *calls = pd_json_get_array (object, "toolCalls");

  message->id = g_strdup (id);
  message->time = _pd_import_parse_time (pd_json_get_string (object, "timestamp"));
  if (g_strcmp0 (pd_json_get_string (object, "type"), "user") == 0)
    {
      g_autofree char *text = _pd_gemini_content_text (json_object_get_member (object, "content"));

      if (text != NULL && *text)
        {
          message->user_text = _pd_import_title_from_text (text);
        }
    }
  for (guint i = 0; calls && i < json_array_get_length (calls); i++)
    {
      JsonNode *element = json_array_get_element (calls, i);
      JsonObject *call;
      PdImportList *list;

      if (!JSON_NODE_HOLDS_OBJECT (element)
          || !is_plan_tool (pd_json_get_string (call = json_node_get_object (element), "name")))
        continue;
      list = call_refused (call) ? NULL : list_of_call (call, record, i);
      if (list == NULL)
        {
          message->refused++;
          continue;
        }
      if (message->lists == NULL)
        message->lists = g_ptr_array_new_with_free_func ((GDestroyNotify) _pd_import_list_free);
      g_ptr_array_add (message->lists, list);
    }
  if (budget != NULL)
    _pd_gemini_message_keep (message, object, record, budget);
  return message;
}

/* The user's words kept for the title: of the first messages that have
 * them, a few (the title is the first one's; the next take its place when
 * it is written again without).  Each message's took a structure of its
 * own, 1.18 M of them in a 63 MB file of one-letter messages. */
#define TITLE_CANDIDATES 16

/* Nothing but its id matters: no structure kept for it. */
static gboolean
message_is_plain (PdGeminiMessage *message)
{
  return message->lists == NULL && message->refused == 0 && message->user_text == NULL && message->budget == NULL
         && message->unshown == 0 && message->text == NULL && message->thoughts == NULL
         && message->call_texts == NULL;
}

static gboolean
holds_title (PdGeminiMessage *message)
{
  return message != NULL && message->user_text != NULL;
}

/* A message (NULL: one whose id alone matters), or the one with its id
 * replaced in place. */
static void
put_message (PdGeminiReader  *self,
             const char      *id,
             gsize            length,
             PdGeminiMessage *message)
{
  PdGeminiMessage *plain = NULL;
  guint at;

  if (_pd_gemini_index_lookup (self->index, id, length, &at) && holds_title (_pd_gemini_index_get (self->index, at)))
    self->titles--;
  if (holds_title (message))
    {
      if (self->titles < TITLE_CANDIDATES)
        self->titles++;
      else
        g_clear_pointer (&message->user_text, g_free);
    }
  /* Let go after the put: @id may be its. */
  if (message != NULL && message_is_plain (message))
    plain = g_steal_pointer (&message);
  if (!_pd_gemini_index_put (self->index, id, length, message, self->pages != NULL ? self->record_line : -1,
                             MAX_MESSAGES))
    {
      if (holds_title (message))
        self->titles--;
      pd_imported_session_get_stats (self->session)->skipped_lines++;
    }
  g_clear_pointer (&plain, message_free);
}

/* $rewindTo: every message after @id goes; an unknown id changes nothing. */
static void
rewind_to (PdGeminiReader *self,
           const char     *id)
{
  guint at;

  if (!_pd_gemini_index_lookup (self->index, id, strlen (id), &at))
    return;
  for (guint i = at + 1; i < _pd_gemini_index_get_length (self->index); i++)
    if (holds_title (_pd_gemini_index_get (self->index, i)))
      self->titles--;
  _pd_gemini_index_truncate (self->index, at + 1);
}

static void
forget_messages (PdGeminiReader *self)
{
  _pd_gemini_index_clear (self->index);
  self->titles = 0;
}

static void
handle_header (PdGeminiReader *self,
               JsonObject     *object)
{
  const char *value;

  if ((value = pd_json_get_string (object, "sessionId")) && pd_imported_session_get_id (self->session) == NULL)
    pd_imported_session_set_id (self->session, value);
  pd_imported_session_note_time (self->session, _pd_import_parse_time (pd_json_get_string (object, "startTime")));
  pd_imported_session_note_time (self->session, _pd_import_parse_time (pd_json_get_string (object, "lastUpdated")));
  if ((value = pd_json_get_string (object, "summary")))
    {
      g_free (self->summary);
      self->summary = g_strdup (value);
    }
}

/* A record with an id: a message, put in its place. */
static void
add_message (PdGeminiReader *self,
             PdGeminiMessage        *message)
{
  /* A plan call may be a message before a resumed read's start written
   * again: whether it replaces one is not known from here. */
  if (self->resumed_at > 0 && (message->lists != NULL || message->refused > 0)
      && !_pd_gemini_index_lookup (self->index, message->id, strlen (message->id), NULL))
    self->reaches_back = TRUE;
  pd_imported_session_note_time (self->session, message->time);
  put_message (self, message->id, strlen (message->id), message);
}

static void
handle_object (PdGeminiReader *self,
               JsonObject     *object)
{
  JsonObject *set;
  const char *id;

  if ((id = pd_json_get_string (object, "$rewindTo")))
    {
      /* To a message before where a resumed read started. */
      if (self->resumed_at > 0 && !_pd_gemini_index_lookup (self->index, id, strlen (id), NULL))
        self->reaches_back = TRUE;
      rewind_to (self, id);
    }
  else if ((set = pd_json_get_object (object, "$set")))
    handle_header (self, set);
  /* Any record with an id is a message (its type is only shown): so the
   * quick path of read_lines(), which looks at the id alone, agrees. */
  else if ((id = pd_json_get_string (object, "id")))
    add_message (self, message_new (object, (PdJsonSpan) { self->record, self->record_length }, id,
                                    self->pages != NULL && self->record_line < 0 ? &self->budget : NULL));
  else if (json_object_has_member (object, "sessionId"))
    handle_header (self, object);
}

/* ---------------------------------------------------------------------- */
/* Records read in place                                                  */

/* What handle_object() reads of a record (message_pick), in one pass. */
static const char * const span_record_names[] = {
  "$rewindTo", "$set", "id", "sessionId", "startTime", "lastUpdated", "summary", "timestamp", "type", "content",
  "toolCalls", NULL,
};

/* The time of a string span (0 for none). */
static gint64
span_time (PdJsonSpan value)
{
  g_autofree char *text = pd_json_span_dup_string (value);

  return _pd_import_parse_time (text);
}

/* handle_header() on the spans of the header's members (@values indexed
 * as span_record_names). */
static void
span_handle_header (PdGeminiReader   *self,
                    const PdJsonSpan *values)
{
  g_autofree char *id = pd_json_span_dup_string (values[REC_SESSION_ID]);
  char *summary;

  if (id != NULL && pd_imported_session_get_id (self->session) == NULL)
    pd_imported_session_set_id (self->session, id);
  pd_imported_session_note_time (self->session, span_time (values[REC_START]));
  pd_imported_session_note_time (self->session, span_time (values[REC_LAST]));
  if ((summary = pd_json_span_dup_string (values[REC_SUMMARY])))
    {
      g_free (self->summary);
      self->summary = summary;
    }
}

/* message_new() on spans (never for the pages). */
static PdGeminiMessage *
span_message_new (const PdJsonSpan      *values,
                  const PdJsonSpanTable *calls,   /* (nullable: walk them) their rows */
                  char                  *id)      /* (transfer full) */
{
  static const char * const call_names[] = { "name", "status", "args", NULL };
  PdGeminiMessage *message = g_new0 (PdGeminiMessage, 1);
  PdJsonSpan walked[N_CALL];
  const PdJsonSpan *row;
  gsize cursor = 0;

  message->id = id;
  message->time = span_time (values[REC_TIMESTAMP]);
  if (pd_json_span_string_equal (values[REC_TYPE], "user"))
    {
      g_autofree char *text = _pd_gemini_span_content_text (values[REC_CONTENT]);

      if (text != NULL && *text)
        {
          message->user_text = _pd_import_title_from_text (text);
        }
    }
  for (guint i = 0;; i++)
    {
      const PdJsonSpan *call;
      PdImportList *list = NULL;
      GPtrArray *items;
      guint hidden = 0;

      /* The rows the check found, or the calls walked (the older format,
       * or more calls than the rows keep). */
      if (calls != NULL && !calls->cut)
        {
          if ((gsize) (i + 1) * N_CALL > calls->rows->len)
            break;
          row = &g_array_index (calls->rows, PdJsonSpan, (gsize) i * N_CALL);
        }
      else
        {
          memset (walked, 0, sizeof walked);
          if (!pd_json_span_next_members (values[REC_CALLS], &cursor, call_names, walked + CALL_NAME,
                                          &walked[CALL_ELEMENT]))
            break;
          if (pd_json_span_is_object (walked[CALL_ARGS]))
            pd_json_span_get_member (walked[CALL_ARGS], "todos", &walked[CALL_TODOS]);
          row = walked;
        }
      call = row + CALL_NAME;

      if (!pd_json_span_is_object (row[CALL_ELEMENT])
          || !(pd_json_span_string_equal (call[0], "write_todos") || pd_json_span_string_equal (call[0], "write_todos_list")))
        continue;
      /* call_refused(): a status that is no string, or says it did not run. */
      if (!(call[1].length > 0 && (!pd_json_span_is_string (call[1]) || pd_json_span_string_equal (call[1], "error")
                                   || pd_json_span_string_equal (call[1], "cancelled")
                                   || pd_json_span_string_equal (call[1], "canceled")))
          && pd_json_span_is_object (row[CALL_ARGS]) && row[CALL_TODOS].length > 0
          && (items = _pd_import_items_from_span_cut (row[CALL_TODOS], description_members, NULL, &hidden)))
        list = _pd_import_list_new (items, hidden);
      if (list == NULL)
        {
          message->refused++;
          continue;
        }
      if (message->lists == NULL)
        message->lists = g_ptr_array_new_with_free_func ((GDestroyNotify) _pd_import_list_free);
      g_ptr_array_add (message->lists, list);
    }
  return message;
}

/* handle_object() on a checked record's members (indexed as
 * span_record_names), in place. */
static void
span_handle_values (PdGeminiReader        *self,
                    const PdJsonSpan      *values,
                    const PdJsonSpanTable *calls)   /* (nullable) */
{
  char *id;

  if ((id = pd_json_span_dup_string (values[REC_REWIND])))
    {
      if (self->resumed_at > 0 && !_pd_gemini_index_lookup (self->index, id, strlen (id), NULL))
        self->reaches_back = TRUE;
      rewind_to (self, id);
      g_free (id);
    }
  else if (pd_json_span_is_object (values[REC_SET]))
    {
      PdJsonSpan header[N_REC];

      pd_json_span_get_members (values[REC_SET], span_record_names, header);
      span_handle_header (self, header);
    }
  else if ((id = pd_json_span_dup_string (values[REC_ID])))
    add_message (self, span_message_new (values, calls, id));
  else if (values[REC_SESSION_ID].length > 0)
    span_handle_header (self, values);
}

static gboolean
check_span (gpointer    user_data,
            const char *line,
            gsize       length)
{
  PdGeminiReader *self = user_data;

  if (self->spans == NULL)
    self->spans = _pd_gemini_spans_new (PD_GEMINI_CALL_ROWS);
  return _pd_gemini_spans_check (self->spans, line, length);
}

/* A line check_span() took, from what it found. */
static gboolean
replay_span (gpointer    user_data,
             const char *line,
             gsize       length)
{
  PdGeminiReader *self = user_data;

  span_handle_values (self, self->spans->values, &self->spans->rows);
  return TRUE;
}

/* A message line without a plan call, a rewind, metadata or the user's
 * words: only its id matters, taken without parsing when the line starts
 * with it as Gemini writes them ({"id":"…", with no escapes). */
static gboolean
put_plain_line (PdGeminiReader *self,
                const char     *line,
                gsize           length)
{
  static const char prefix[] = "{\"id\":\"";
  const char *start, *end;
  if (length <= sizeof prefix || memcmp (line, prefix, sizeof prefix - 1) != 0)
    return FALSE;
  start = line + sizeof prefix - 1;
  end = memchr (start, '"', length - (sizeof prefix - 1));
  if (end == NULL || end == start || memchr (start, '\\', (gsize) (end - start)) != NULL
      || !g_utf8_validate (start, end - start, NULL))
    return FALSE;
  put_message (self, start, (gsize) (end - start), NULL);
  return TRUE;
}

/* ---------------------------------------------------------------------- */
/* The replay                                                             */

/* For the pages: what they show, but a call's arguments and its display
 * (which echoes a plan call's list) are read from the record's text up to
 * their bound (see message_new()). */
static const PdJsonPick pages_call_pick[] = {
  { "id", NULL }, { "name", NULL }, { "status", NULL }, { "timestamp", NULL }, { "result", NULL }, { NULL, NULL },
};
static const PdJsonPick pages_message_pick[] = {
  { "$rewindTo", NULL }, { "$set", NULL }, { "id", NULL }, { "sessionId", NULL }, { "startTime", NULL },
  { "lastUpdated", NULL }, { "summary", NULL }, { "timestamp", NULL }, { "type", NULL }, { "content", NULL },
  { "thoughts", NULL }, { "toolCalls", pages_call_pick }, { NULL, NULL },
};

/* Message @index's line read again from @file (opened on first use) and
 * handed to the pages, nothing of it kept.  Kept from the read until the
 * replay, every message's texts, calls and structure held the whole
 * conversation twice (a 63 MB file of one-letter messages peaked at
 * 480 MB, Claude Code's reader at 159 MB, tried as an attacker would).  A
 * line that is not the message's any more (the file rewritten) is left
 * out. */
static void
replay_to_pages (PdGeminiReader  *self,
                 FILE           **file,
                 goffset         *file_at,
                 guint            index)
{
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *defused = NULL;
  g_autofree char *line = NULL;
  PdGeminiMessage *message;
  JsonObject *object;
  gsize size = 0, length;
  goffset at = _pd_gemini_index_take_line (self->index, index);
  gssize got;

  /* The lines follow one another, mostly: a seek only where they do not
   * (one for each line emptied the file's buffer, a read each). */
  if (at < 0 || (*file == NULL && !(*file = fopen (self->path, "rb")))
      || (at != *file_at && fseeko (*file, at, SEEK_SET) != 0))
    return;
  *file_at = -1;
  if ((got = getline (&line, &size, *file)) <= 0 || (gsize) got > self->max_line + 2)
    return;
  *file_at = at + got;
  length = (gsize) got;
  while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r'))
    length--;
  if (length == 0 || line[0] != '{' || line[length - 1] != '}')
    return;
  if (length > 2 * PD_JSON_FOREIGN_MAX_DEPTH && pd_json_nesting_exceeds (line, (gssize) length, PD_JSON_FOREIGN_MAX_DEPTH)
      && (defused = _pd_import_defuse_nesting (line, length, &length)))
    {
      g_free (line);
      line = g_steal_pointer (&defused);
    }
  if (!(object = _pd_import_parse_picked (&root, line, length, pages_message_pick))
      || g_strcmp0 (pd_json_get_string (object, "id"), _pd_gemini_index_get_id (self->index, index)) != 0)
    return;
  message = message_new (object, (PdJsonSpan) { line, length }, _pd_gemini_index_get_id (self->index, index),
                         &self->budget);
  /* What it took stays taken: the budget counts what the pages were given,
   * as it counted what was kept for them, so the same messages are shown
   * and the rest said unshown in their place.  A part lets its messages
   * go, and is given back what they took: else its newest would be said
   * unshown past the budget, a whole read's cut. */
  if (!_pd_transcript_pages_lets_go (self->pages))
    message->budget = NULL;
  _pd_gemini_message_to_pages (self->pages, message);
  message_free (message);
}

/* The checklist from the messages kept, in order: each applied list is an
 * update, the last one is the plan.  Recomputed after every read, since a
 * replaced message or a rewind can undo any list. */
static void
replay (PdGeminiReader *self)
{
  PdImportStats *stats = pd_imported_session_get_stats (self->session);
  PdChecklist *checklist = pd_imported_session_get_checklist (self->session);
  const char *title = self->summary;
  FILE *file = NULL;
  goffset file_at = -1;

  /* Read on from another process's end: its counts, and its title unless
   * a $set gives another (a user's message read now is not the first). */
  stats->applied_updates = self->stored.applied_updates;
  stats->ignored_updates = self->stored.ignored_updates;
  if (title == NULL && self->resumed_at > 0)
    title = self->stored_title;
  pd_checklist_clear_agent_items (checklist);
  for (guint i = 0; i < _pd_gemini_index_get_length (self->index); i++)
    {
      PdGeminiMessage *message = _pd_gemini_index_get (self->index, i);

      if (self->pages != NULL)
        replay_to_pages (self, &file, &file_at, i);
      if (message == NULL)
        continue;
      if (self->pages != NULL)
        _pd_gemini_message_to_pages (self->pages, message);
      if (title == NULL && message->user_text != NULL && self->resumed_at == 0)
        title = message->user_text;
      stats->ignored_updates += message->refused;
      for (guint j = 0; message->lists && j < message->lists->len; j++)
        {
          _pd_import_list_apply (g_ptr_array_index (message->lists, j), checklist, PD_CHECKLIST_ORIGIN_GEMINI_TODOS, FALSE);
          _pd_import_applied_update (self->session, self->pages, message->time);
        }
    }
  if (file != NULL)
    fclose (file);
  if (title != NULL)
    {
      g_autofree char *cut = _pd_import_title_from_text (title);

      pd_imported_session_set_title (self->session, cut);
    }
}

/* ---------------------------------------------------------------------- */
/* Reading                                                                */

/* The project's folder: <project>/.project_root, the project being the
 * folder above chats/ (subagent sessions are one level further down). */
static void
read_project_root (PdGeminiReader *self)
{
  g_autofree char *dir = g_path_get_dirname (self->path);

  for (guint depth = 0; depth < 3; depth++)
    {
      g_autofree char *base = g_path_get_basename (dir);
      char *up = g_path_get_dirname (dir);

      g_free (dir);
      dir = up;
      if (strcmp (base, "chats") == 0)
        {
          g_autofree char *file = g_build_filename (dir, ".project_root", NULL);
          g_autofree char *contents = NULL;
          gsize length;

          if (g_file_test (file, G_FILE_TEST_EXISTS)
              && _pd_import_read_file (file, PROJECT_ROOT_MAX, &contents, &length, NULL)
              && g_utf8_validate (contents, (gssize) length, NULL) && memchr (contents, '\0', length) == NULL)
            {
              g_strstrip (contents);
              if (g_path_is_absolute (contents) && strchr (contents, '\n') == NULL)
                pd_imported_session_set_cwd (self->session, contents);
            }
          return;
        }
    }
}

/* Not read for the pages, a line the needles do not find is a message
 * whose id alone matters: taken without parsing when it can be. */
static PdJsonlLineUse
look_at_line (gpointer    user_data,
              const char *line,
              gsize       length)
{
  PdGeminiReader *self = user_data;

  self->record = line;
  self->record_length = length;
  if (self->pages != NULL)
    return PD_JSONL_LINE_PICK;
  if (_pd_needles_scan (get_needles (), line, length, NULL) == 0 && put_plain_line (self, line, length))
    return PD_JSONL_LINE_SKIP;
  return PD_JSONL_LINE_SPAN;
}

static gboolean
replay_line (gpointer    user_data,
             JsonObject *object)
{
  handle_object (user_data, object);
  return TRUE;
}

/* What a record is read for, when no page is kept — read in place
 * (replay_span()); as a tree only when lines are not picked (the tests and
 * fuzz target that compare the two): the header's members, and of each
 * message what handle_object() reads (a call's list is read from the
 * record's text). */
static const PdJsonPick header_pick[] = {
  { "sessionId", NULL }, { "startTime", NULL }, { "lastUpdated", NULL }, { "summary", NULL }, { NULL, NULL },
};
static const PdJsonPick call_pick[] = { { "name", NULL }, { "status", NULL }, { NULL, NULL } };
static const PdJsonPick message_pick[] = {
  { "$rewindTo", NULL }, { "$set", NULL }, { "id", NULL }, { "sessionId", NULL }, { "startTime", NULL },
  { "lastUpdated", NULL }, { "summary", NULL }, { "timestamp", NULL }, { "type", NULL }, { "content", NULL },
  { "toolCalls", call_pick }, { NULL, NULL },
};

static const PdJsonlReplayFuncs replay_funcs = { look_at_line, replay_line, message_pick, replay_span, check_span };

/* With pages, a line's start: its message is read again from there. */
static void
at_line (gpointer user_data,
         goffset  offset)
{
  PD_GEMINI_READER (user_data)->record_line = offset;
}

static const PdJsonlReplayFuncs pages_funcs = { look_at_line, replay_line, pages_message_pick, NULL, NULL, at_line };

static gboolean
read_lines (PdGeminiReader  *self,
            GCancellable    *cancellable,
            GError         **error)
{
  gboolean ok = _pd_jsonl_replay (self->path, self->offset, 0, self->max_line, self->follow,
                                  self->pages != NULL ? &pages_funcs : &replay_funcs, self, self->pages,
                                  pd_imported_session_get_stats (self->session), &self->offset, cancellable, error);

  self->record = NULL;
  self->record_length = 0;
  self->record_line = -1;
  return ok;
}

/* A message of a document read in place (@span, its members @values
 * indexed as a record's). */
static void
span_read_message (PdGeminiReader   *self,
                   PdJsonSpan        span,
                   const PdJsonSpan *values)
{
  PdImportStats *stats = pd_imported_session_get_stats (self->session);
  g_autofree char *id = NULL;

  stats->lines++;
  if (!pd_json_span_is_object (span))
    {
      stats->skipped_lines++;
      return;
    }
  /* As in read_document(): a message the needles do not find gives its
   * id and time alone. */
  if (_pd_needles_scan (get_needles (), span.text, span.length, NULL) == 0
      && (id = pd_json_span_dup_string (values[REC_ID])))
    {
      pd_imported_session_note_time (self->session, span_time (values[REC_TIMESTAMP]));
      put_message (self, id, strlen (id), NULL);
      return;
    }
  span_handle_values (self, values, NULL);
}

/* The messages of a document checked in place: the rows its walk found,
 * or when there were more than it kept, the messages walked again. */
static void
read_document_rows (PdGeminiReader      *self,
                    const PdGeminiSpans *document)
{
  const PdJsonSpanTable *rows = &document->rows;
  PdJsonSpan values[N_REC];
  PdJsonSpan span;
  gsize cursor = 0;

  span_handle_header (self, document->values);
  if (!rows->cut)
    for (gsize at = 0; at + GEMINI_MESSAGE_ROW <= rows->rows->len; at += GEMINI_MESSAGE_ROW)
      span_read_message (self, g_array_index (rows->rows, PdJsonSpan, at),
                         &g_array_index (rows->rows, PdJsonSpan, at + 1));
  else
    while (pd_json_span_next_members (document->values[DOC_MESSAGES], &cursor, span_record_names, values, &span))
      span_read_message (self, span, values);
}

/* A call's arguments nested too deep are a placeholder, the session read
 * (it was "not a Gemini CLI session"): TRUE when *@contents was so
 * replaced. */
static gboolean
defuse_document (char  **contents,
                 gsize  *length)
{
  gsize defused_length = 0;
  char *defused;

  if (!pd_json_nesting_exceeds (*contents, (gssize) *length, PD_JSON_FOREIGN_MAX_DEPTH)
      || !(defused = _pd_import_defuse_nesting (*contents, *length, &defused_length)))
    return FALSE;
  g_free (*contents);
  *contents = defused;
  *length = defused_length;
  return TRUE;
}

/* The older format: the whole document again.  One caught half-written
 * (the agent rewrites it whole) keeps what the last read gave.  The text
 * is checked whole, then built a message at a time: the whole tree took
 * many times the file's size. */
static gboolean
read_document (PdGeminiReader  *self,
               GError         **error)
{
  g_autofree char *contents = NULL;
  g_autoptr(PdJsonElements) elements = NULL;
  g_autoptr(PdGeminiSpans) document = NULL;
  PdImportStats *stats = pd_imported_session_get_stats (self->session);
  const char *element;
  gsize element_length;
  gsize length;

  if (!_pd_import_read_file (self->path, DOCUMENT_MAX, &contents, &length, error))
    return FALSE;
  stats->bytes_read += length;
  /* Not for the pages: checked whole and each message's members found in
   * the same walk, then read in place (a walk to check and another to
   * read were twice the one).  The check refuses nesting deeper than
   * PD_JSON_FOREIGN_MAX_DEPTH, so a document it takes nests no deeper:
   * only one it refused is looked at for that (the look was a fifth of a
   * Gemini CLI import, the pretty-printed documents' indentation a byte at
   * a time). */
  if (self->pages == NULL && _pd_import_get_pick_lines ())
    {
      document = _pd_gemini_spans_new (PD_GEMINI_MESSAGE_ROWS);
      if (!_pd_gemini_spans_check_document (document, contents, length)
          && !(defuse_document (&contents, &length)
               && _pd_gemini_spans_check_document (document, contents, length)))
        g_clear_pointer (&document, _pd_gemini_spans_free);
    }
  else
    {
      defuse_document (&contents, &length);
      elements = pd_json_elements_new (contents, length, "messages", header_pick, NULL);
    }
  if (elements == NULL && document == NULL)
    {
      if (self->read_once)
        {
          stats->skipped_lines++;
          return TRUE;
        }
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "%s: not a Gemini CLI session (one JSON object with its messages)", self->path);
      return FALSE;
    }

  forget_messages (self);
  g_clear_pointer (&self->summary, g_free);
  /* Lines (messages) read in all passes, as bytes are: the index counts
   * what each pass read from the difference. */
  stats->skipped_lines = 0;
  if (document != NULL)
    read_document_rows (self, document);
  else
    handle_header (self, json_node_get_object (pd_json_elements_get_header (elements)));
  /* As trees (the pages, and the tests that compare the two). */
  while (elements != NULL && pd_json_elements_next_text (elements, &element, &element_length))
    {
      g_autoptr(JsonNode) owned = NULL;
      JsonObject *object;

      stats->lines++;
      /* A message the needles do not find (no plan call, rewind, metadata
       * or user's words), when no page is kept: its id and time are all
       * the replay takes of it, read in place (building the rest was most
       * of a document's reading). */
      if (self->pages == NULL && _pd_needles_scan (get_needles (), element, element_length, NULL) == 0)
        {
          PdJsonSpan record = { element, element_length };
          PdJsonSpan values[3] = { { NULL, 0 } };
          static const char * const names[] = { "id", "timestamp", NULL };

          pd_json_span_get_members (record, names, values);
          if (pd_json_span_is_object (record) && pd_json_span_is_string (values[0]))
            {
              g_autofree char *id = pd_json_span_dup_string (values[0]);
              g_autofree char *timestamp = pd_json_span_dup_string (values[1]);
              pd_imported_session_note_time (self->session, _pd_import_parse_time (timestamp));
              put_message (self, id, strlen (id), NULL);
              continue;
            }
        }
      object = _pd_import_parse_picked (&owned, element, element_length,
                                        self->pages != NULL ? pages_message_pick : message_pick);
      if (object == NULL)
        {
          stats->skipped_lines++;
          continue;
        }
      self->record = element;
      self->record_length = element_length;
      handle_object (self, object);
    }
  self->record = NULL;
  self->record_length = 0;
  self->read_once = TRUE;
  return TRUE;
}

static gboolean
gemini_update (PdTranscriptReader  *reader,
               GCancellable        *cancellable,
               GError             **error)
{
  PdGeminiReader *self = PD_GEMINI_READER (reader);
  gboolean ok;

  self->resumed_whole = FALSE;
  if (pd_imported_session_get_cwd (self->session) == NULL)
    read_project_root (self);
  ok = self->document ? read_document (self, error) : read_lines (self, cancellable, error);
  if (!ok)
    return FALSE;
  if (self->reaches_back)
    {
      PdImportStats *stats = pd_imported_session_get_stats (self->session);

      /* What was read on from a resumed start may change what lies before
       * it: the whole file again, as a first read. */
      forget_messages (self);
      g_clear_pointer (&self->summary, g_free);
      g_clear_pointer (&self->stored_title, g_free);
      memset (&self->stored, 0, sizeof self->stored);
      self->resumed_at = 0;
      self->reaches_back = FALSE;
      self->resumed_whole = TRUE;
      self->offset = 0;
      stats->lines = 0;
      stats->skipped_lines = 0;
      if (!read_lines (self, cancellable, error))
        return FALSE;
    }
  replay (self);
  return TRUE;
}

PdImportedSession *
pd_gemini_read (const char  *path,
                GError     **error)
{
  g_autoptr(PdGeminiReader) reader = pd_gemini_reader_new (path, g_str_has_suffix (path, ".json"));

  if (!gemini_update (PD_TRANSCRIPT_READER (reader), NULL, error))
    return NULL;
  return g_object_ref (reader->session);
}
