/* pd-claude-code-reader.c: Claude Code (and Claude desktop) transcripts.
 *
 * Replay rules (seed 001, "What is read"; issue 7, "Readers"):
 *  - a plan tool call changes the checklist only once its result is seen,
 *    bound by tool_use.id ↔ tool_result.tool_use_id, and only when the result
 *    is not an error;
 *  - TodoWrite and update_plan with items are full lists: they replace the
 *    agent's section, switch to their source and clear the known tasks;
 *  - TaskCreate creates by the id its result returns; TaskUpdate applies
 *    only what its result confirms, never for an unknown task; TaskList
 *    results and task reminders are snapshots of the whole task list;
 *  - subagent transcripts share the parent's task list (only their Task*
 *    calls count; their TodoWrite list is their own) and are merged by
 *    timestamp.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pd-claude-code-reader.h"
#include "pd-claude-code-reader-private.h"
#include "pd-import-private.h"
#include "pd-import-skip.h"
#include "pd-jsonl-backward.h"
#include "pd-jsonl-reader.h"

#define TITLE_MAX_USER_LINES 50

const char * const _pd_claude_tool_names[N_TOOLS] = {
  "TodoWrite", "TaskCreate", "TaskUpdate", "TaskList", "ExitPlanMode",
  "mcp__ccd_turn__update_plan", "mcp__ccd_turn__wrap_up",
};

/* What the prefilter looks for in every line, in one pass: words that must
 * occur in a line for it to be worth parsing (the first seven), and the
 * facts that make a line matter otherwise.  Each by a window of three of
 * its bytes that is rare in real transcripts (measured on the shared
 * fixtures: a quote and a lower-case letter are in every "type" and
 * "text"), the rarest sharing buckets. */
static const PdNeedle line_needles[] = {
  { "\"TodoWrite\"", 3, 0 },                    /* doW */
  { "\"TaskCreate\"", 4, 1 },                   /* kCr */
  { "\"TaskUpdate\"", 4, 1 },                   /* kUp */
  { "\"TaskList\"", 4, 1 },                     /* kLi */
  { "\"ExitPlanMode\"", 3, 2 },                 /* itP */
  { "\"mcp__ccd_turn__", 3, 3 },                /* p__ */
  { "\"task_reminder\"", 4, 4 },                /* k_r */
  { "\"tool_result\"", 4, 4 },                  /* l_r */
  /* A member's key or value alone, never "key":"value": JSON allows
   * blanks around the colon and some tools write them ("type": "user"),
   * and such a transcript lost its times and title.  key_then_value() and
   * value_of_key() check the member. */
  { "\"timestamp\"", 8, 5 },                    /* mp" */
  { "\"summary\"", 6, 6 },                      /* ry" */
  { "\"custom-title\"", 6, 6 },                 /* m-t */
  { "\"claude-desktop\"", 6, 6 },               /* e-d */
  { "\"user\"", 3, 7 },                         /* er" */
  { NULL, 0, 0 },
};

enum {
  NEEDLE_TOOL_RESULT = 7,
  NEEDLE_TIMESTAMP,
  NEEDLE_SUMMARY,
  NEEDLE_CUSTOM_TITLE,
  NEEDLE_DESKTOP,
  NEEDLE_USER,
};

#define CALL_MASK ((1u << 7) - 1)
#define BIT(n) (1u << (n))

static const PdNeedles *
get_line_needles (void)
{
  static PdNeedles *needles;

  if (g_once_init_enter (&needles))
    g_once_init_leave (&needles, _pd_needles_new_chosen (line_needles));
  return needles;
}

/* What the replay and the session's facts read of a line (handle_line()
 * with its handlers and _pd_claude_handle_result(), _pd_claude_note_meta()):
 * the rest of a line — the text and thinking blocks, other tools' inputs and
 * results — is skipped unbuilt.  The pages read everything, whole. */
/* An item of a list (todos, a desktop plan's items, tasks): what
 * _pd_import_items_from_array() and the task snapshots read — not, say,
 * a todo's activeForm. */
static const PdJsonPick item_pick[] = {
  { "content", NULL }, { "text", NULL }, { "title", NULL }, { "step", NULL }, { "subject", NULL },
  { "status", NULL }, { "id", NULL }, { NULL, NULL },
};
/* A plan tool's input, as the results' handlers read it. */
const PdJsonPick _pd_claude_input_pick[] = {
  { "todos", item_pick }, { "items", item_pick }, { "subject", NULL }, { "taskId", NULL },
  { "status", NULL }, { "plan", NULL }, { "advance", NULL }, { "done", NULL }, { "start", NULL },
  { NULL, NULL },
};
static const PdJsonPick content_block_pick[] = {
  { "type", NULL }, { "name", NULL }, { "id", NULL }, { "input", _pd_claude_input_pick },
  { "tool_use_id", NULL }, { "is_error", NULL }, { "content", NULL }, { NULL, NULL },
};
static const PdJsonPick message_pick[] = {
  { "content", content_block_pick }, { NULL, NULL },
};
const PdJsonPick _pd_claude_tool_use_result_pick[] = {
  { "success", NULL }, { "newTodos", item_pick }, { "task", NULL }, { "taskId", NULL },
  { "updatedFields", NULL }, { "statusChange", NULL }, { "plan", NULL }, { "tasks", item_pick },
  { NULL, NULL },
};
static const PdJsonPick attachment_pick[] = {
  { "type", NULL }, { "content", item_pick }, { NULL, NULL },
};
const PdJsonPick _pd_claude_line_pick[] = {
  { "type", NULL }, { "isSidechain", NULL }, { "cwd", NULL }, { "sessionId", NULL },
  { "entrypoint", NULL }, { "summary", NULL }, { "customTitle", NULL }, { "title", NULL },
  { "isMeta", NULL }, { "message", message_pick }, { "toolUseResult", _pd_claude_tool_use_result_pick },
  { "attachment", attachment_pick }, { NULL, NULL },
};

/* The calls and records that can be a full list, for the backward scan of
 * long transcripts: whether one is (a full list, or a task snapshot, that
 * its result confirms) the forward replay from it tells. */
static const char * const full_list_needles[] = {
  "\"TodoWrite\"", "\"mcp__ccd_turn__update_plan\"", "\"TaskList\"", "\"task_reminder\"", NULL,
};

static const PdNeedles *
get_full_list_needles (void)
{
  static PdNeedles *needles;

  if (g_once_init_enter (&needles))
    g_once_init_leave (&needles, _pd_needles_new (full_list_needles));
  return needles;
}

typedef struct
{
  char          *path;
  goffset        offset;
  goffset        stop;       /* (0: none) read no line starting after this */
  gboolean       is_main;
  gboolean       meta_only;  /* the head of a tail read: facts, no plan */
  /* During one update: */
  PdJsonlReader *reader;
  JsonNode      *root;       /* the line last parsed */
  gboolean       has_head;   /* the next line to replay: */
  JsonObject    *head;       /* parsed, in root, */
  const char    *head_line;  /* or checked only (head NULL), in the reader's buffer (or NULL:
                              * too many values, or too long, head_length bytes, for the pages), */
  gboolean       head_too_long;
  gsize          head_length;
  PdClaudeSpans *spans;      /* with what the check found of it */
  gint64         head_time;
  gint64         last_time;
} Stream;

static void transcript_reader_iface_init (PdTranscriptReaderInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PdClaudeCodeReader, pd_claude_code_reader, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (PD_TYPE_TRANSCRIPT_READER, transcript_reader_iface_init))

static gboolean claude_update (PdTranscriptReader  *reader,
                               GCancellable        *cancellable,
                               GError             **error);

void
_pd_claude_request_free (Request *request)
{
  g_free (request->id);
  _pd_claude_request_drop_input (request);
  g_free (request->input_text);
  g_free (request);
}

void
_pd_claude_task_free (Task *task)
{
  g_free (task->id);
  g_free (task->subject);
  g_free (task);
}

static void
stream_close (Stream *stream)
{
  g_clear_pointer (&stream->reader, pd_jsonl_reader_free);
  g_clear_pointer (&stream->root, json_node_unref);
  stream->has_head = FALSE;
  stream->head = NULL;
  stream->head_line = NULL;
  g_clear_pointer (&stream->spans, _pd_claude_spans_free);
}

static void
stream_free (Stream *stream)
{
  stream_close (stream);
  g_free (stream->path);
  g_free (stream);
}

static void
pd_claude_code_reader_finalize (GObject *object)
{
  PdClaudeCodeReader *self = PD_CLAUDE_CODE_READER (object);

  g_clear_pointer (&self->requests, _pd_pending_calls_free);
  g_clear_pointer (&self->streams, g_ptr_array_unref);
  g_clear_pointer (&self->tasks, g_ptr_array_unref);
  g_clear_pointer (&self->skipped, g_ptr_array_unref);
  g_clear_object (&self->session);
  g_clear_object (&self->pages);
  g_clear_pointer (&self->sidechains, g_hash_table_unref);
  g_clear_pointer (&self->opened, pd_jsonl_reader_free);
  g_free (self->path);
  g_free (self->subagent_dir);

  G_OBJECT_CLASS (pd_claude_code_reader_parent_class)->finalize (object);
}

static void
pd_claude_code_reader_class_init (PdClaudeCodeReaderClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_claude_code_reader_finalize;
}

static void
pd_claude_code_reader_init (PdClaudeCodeReader *self)
{
  self->max_line = PD_JSONL_DEFAULT_MAX_LINE;
  self->streams = g_ptr_array_new_with_free_func ((GDestroyNotify) stream_free);
  self->requests = _pd_pending_calls_new ((GDestroyNotify) _pd_claude_request_free);
  self->tasks = g_ptr_array_new_with_free_func ((GDestroyNotify) _pd_claude_task_free);
  self->skipped = pd_import_skips_new ();
}

static Stream *
add_stream (PdClaudeCodeReader *self,
            const char         *path,
            gboolean            is_main)
{
  Stream *stream;

  for (guint i = 0; i < self->streams->len; i++)
    {
      stream = g_ptr_array_index (self->streams, i);
      if (strcmp (stream->path, path) == 0)
        return stream;
    }
  stream = g_new0 (Stream, 1);
  stream->path = g_strdup (path);
  stream->is_main = is_main;
  g_ptr_array_add (self->streams, stream);
  return stream;
}

PdClaudeCodeReader *
pd_claude_code_reader_new (const char *path)
{
  PdClaudeCodeReader *self;
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (PD_TYPE_CLAUDE_CODE_READER, NULL);
  self->path = g_strdup (path);
  self->session = pd_imported_session_new (PD_IMPORT_SOURCE_CLAUDE_CODE, path);

  dir = g_path_get_dirname (path);
  base = g_path_get_basename (path);
  if (g_str_has_suffix (base, ".jsonl"))
    base[strlen (base) - strlen (".jsonl")] = '\0';
  pd_imported_session_set_id (self->session, base);
  self->subagent_dir = g_build_filename (dir, base, "subagents", NULL);

  add_stream (self, path, TRUE);
  return self;
}

static void
claude_set_max_line (PdTranscriptReader *reader,
                     gsize               max_line)
{
  PD_CLAUDE_CODE_READER (reader)->max_line = max_line;
}

static void
claude_set_follow (PdTranscriptReader *reader,
                   gboolean            follow)
{
  PD_CLAUDE_CODE_READER (reader)->follow = !!follow;
}

void
pd_claude_code_reader_add_subagent (PdClaudeCodeReader *self,
                                    const char         *path)
{
  g_return_if_fail (PD_IS_CLAUDE_CODE_READER (self));
  g_return_if_fail (path != NULL);
  add_stream (self, path, FALSE);
}

void
pd_claude_code_reader_add_flat_subagents (PdClaudeCodeReader *self,
                                          GPtrArray          *candidates)
{
  g_autoptr(GPtrArray) beside = NULL;
  g_autofree char *name = NULL;

  g_return_if_fail (PD_IS_CLAUDE_CODE_READER (self));

  if (candidates == NULL)
    {
      g_autofree char *dir = g_path_get_dirname (self->path);
      g_autoptr(GDir) handle = g_dir_open (dir, 0, NULL);
      const char *entry;

      beside = g_ptr_array_new_with_free_func (g_free);
      while (handle && (entry = g_dir_read_name (handle)))
        if (g_str_has_prefix (entry, "agent-") && g_str_has_suffix (entry, ".jsonl"))
          g_ptr_array_add (beside, g_build_filename (dir, entry, NULL));
      _pd_import_sort_names (beside);
      candidates = beside;
    }

  name = g_path_get_basename (self->path);
  if (g_str_has_suffix (name, ".jsonl"))
    name[strlen (name) - strlen (".jsonl")] = '\0';
  for (guint i = 0; i < candidates->len; i++)
    {
      const char *path = g_ptr_array_index (candidates, i);
      g_autofree char *parent = NULL;

      if (strcmp (path, self->path) != 0
          && _pd_import_sniff_jsonl (path, &parent, NULL) == PD_IMPORT_FORMAT_CLAUDE
          && g_strcmp0 (parent, name) == 0)
        add_stream (self, path, FALSE);
    }
}

void
_pd_claude_code_reader_take_opened (PdClaudeCodeReader *self,
                                    PdJsonlReader      *opened)
{
  g_clear_pointer (&self->opened, pd_jsonl_reader_free);
  self->opened = opened;
}

static PdImportedSession *
claude_get_session (PdTranscriptReader *reader)
{
  return PD_CLAUDE_CODE_READER (reader)->session;
}

static goffset
claude_get_offset (PdTranscriptReader *reader)
{
  Stream *main_stream = g_ptr_array_index (PD_CLAUDE_CODE_READER (reader)->streams, 0);

  return main_stream->offset;
}

static const char *
claude_get_format (PdTranscriptReader *reader)
{
  return "claude";
}

/* The subagent files the last update could not open (a FIFO, no
 * permission), with the reasons. */
static GPtrArray *
claude_get_skipped (PdTranscriptReader *reader)
{
  return PD_CLAUDE_CODE_READER (reader)->skipped;
}

static void
claude_set_pages (PdTranscriptReader *reader,
                  PdTranscriptPages  *pages)
{
  PdClaudeCodeReader *self = PD_CLAUDE_CODE_READER (reader);

  g_set_object (&self->pages, pages);
  /* The pages need every line: never a long file's end alone. */
  if (pages != NULL)
    self->tail_done = TRUE;
}

static GStrv
claude_dup_resume_argv (PdTranscriptReader *reader)
{
  static const char * const words[] = { "--resume", NULL };

  return _pd_import_resume_argv ("claude", words, pd_imported_session_get_id (PD_CLAUDE_CODE_READER (reader)->session));
}

static void
transcript_reader_iface_init (PdTranscriptReaderInterface *iface)
{
  iface->get_format = claude_get_format;
  iface->set_max_line = claude_set_max_line;
  iface->set_follow = claude_set_follow;
  iface->update = claude_update;
  iface->get_session = claude_get_session;
  iface->get_offset = claude_get_offset;
  iface->get_skipped = claude_get_skipped;
  iface->set_pages = claude_set_pages;
  iface->dup_resume_argv = claude_dup_resume_argv;
}

/* ---------------------------------------------------------------------- */
/* Lines                                                                  */

void
_pd_claude_add_request (PdClaudeCodeReader *self,
                        const char         *id,
                        Tool                tool,
                        JsonNode           *input,
                        const PdJsonSpan   *input_span,
                        gboolean            from_subagent,
                        gint64              time)
{
  Request *request;

  if (_pd_pending_calls_contains (self->requests, id))
    return;

  request = g_new0 (Request, 1);
  request->id = g_strdup (id);
  request->tool = tool;
  request->input_text = input_span ? g_strndup (input_span->text, input_span->length) : NULL;
  _pd_claude_request_keep_input (self, request, input);
  request->from_subagent = from_subagent;
  request->time = time;
  /* At most 100 pending requests: the oldest is given up. */
  _pd_pending_calls_add (self->requests, id, request, _pd_claude_stats (self));

  /* A plan document is shown while it waits for its answer. */
  if (tool == TOOL_EXIT_PLAN_MODE && _pd_claude_request_input (request) != NULL)
    {
      const char *plan = pd_json_get_string (_pd_claude_request_input (request), "plan");
      if (plan != NULL)
        pd_imported_session_add_plan (self->session, id, plan, PD_ARTIFACT_PLAN_PROPOSED, time);
    }
}

Request *
_pd_claude_take_request (PdClaudeCodeReader *self,
                         const char         *id)
{
  gpointer request;

  return _pd_pending_calls_take (self->requests, id, &request) ? request : NULL;
}

static void
handle_assistant (PdClaudeCodeReader *self,
                  JsonObject         *line,
                  gboolean            from_subagent,
                  gint64              time)
{
  JsonArray *content = pd_json_get_array (pd_json_get_object (line, "message"), "content");

  for (guint i = 0; content && i < json_array_get_length (content); i++)
    {
      JsonNode *element = json_array_get_element (content, i);
      JsonObject *block;
      const char *name, *id;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      block = json_node_get_object (element);
      if (g_strcmp0 (pd_json_get_string (block, "type"), "tool_use") != 0)
        continue;
      name = pd_json_get_string (block, "name");
      id = pd_json_get_string (block, "id");
      if (name == NULL || id == NULL)
        continue;

      for (guint t = 0; t < N_TOOLS; t++)
        {
          if (strcmp (name, _pd_claude_tool_names[t]) != 0)
            continue;
          /* A subagent's TodoWrite list, plan and desktop plan are its own;
           * only the task list is shared. */
          if (from_subagent && t != TOOL_TASK_CREATE && t != TOOL_TASK_UPDATE && t != TOOL_TASK_LIST)
            break;
          if (t == TOOL_CCD_UPDATE_PLAN || t == TOOL_CCD_WRAP_UP)
            pd_imported_session_set_source (self->session, PD_IMPORT_SOURCE_CLAUDE_DESKTOP);
          _pd_claude_add_request (self, id, (Tool) t, json_object_get_member (block, "input"), NULL, from_subagent, time);
          break;
        }
    }
}

static void
handle_user (PdClaudeCodeReader *self,
             JsonObject         *line)
{
  JsonArray *content = pd_json_get_array (pd_json_get_object (line, "message"), "content");
  JsonNode *result = json_object_get_member (line, "toolUseResult");
  guint n_results = 0;

  if (content == NULL)
    return;

  for (guint i = 0; i < json_array_get_length (content); i++)
    {
      JsonNode *element = json_array_get_element (content, i);
      if (JSON_NODE_HOLDS_OBJECT (element)
          && g_strcmp0 (pd_json_get_string (json_node_get_object (element), "type"), "tool_result") == 0)
        n_results++;
    }
  /* One toolUseResult for several results cannot be told apart: ambiguous,
   * so only each result's own text and error flag count. */
  if (n_results > 1)
    result = NULL;

  for (guint i = 0; i < json_array_get_length (content); i++)
    {
      JsonNode *element = json_array_get_element (content, i);
      JsonObject *block;
      const char *id;
      Request *request;
      gboolean is_error = FALSE;
      g_autofree char *text = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      block = json_node_get_object (element);
      if (g_strcmp0 (pd_json_get_string (block, "type"), "tool_result") != 0)
        continue;
      if (!(id = pd_json_get_string (block, "tool_use_id")) || !(request = _pd_claude_take_request (self, id)))
        continue;

      is_error = pd_json_get_boolean (block, "is_error", FALSE);
      text = _pd_import_result_text (json_object_get_member (block, "content"));
      _pd_claude_handle_result (self, request, is_error, text, result);
      _pd_claude_request_free (request);
    }
}

static void
handle_line (PdClaudeCodeReader *self,
             Stream             *stream,
             JsonObject         *line,
             gint64              time)
{
  const char *type = pd_json_get_string (line, "type");
  gboolean sidechain = FALSE;

  if (type == NULL)
    return;
  sidechain = pd_json_get_boolean (line, "isSidechain", FALSE);

  if (strcmp (type, "assistant") == 0)
    handle_assistant (self, line, !stream->is_main || sidechain, time);
  else if (strcmp (type, "user") == 0)
    handle_user (self, line);
  else if (strcmp (type, "attachment") == 0)
    {
      JsonObject *attachment = pd_json_get_object (line, "attachment");
      JsonArray *tasks;

      if (g_strcmp0 (pd_json_get_string (attachment, "type"), "task_reminder") != 0
          || !(tasks = pd_json_get_array (attachment, "content")))
        return;
      /* An empty reminder in a session that keeps no tasks says nothing. */
      if (json_array_get_length (tasks) == 0
          && pd_checklist_get_origin (_pd_claude_checklist (self)) != PD_CHECKLIST_ORIGIN_CLAUDE_TASKS)
        return;
      if (!_pd_claude_apply_task_snapshot (self, tasks))
        _pd_claude_stats (self)->ignored_updates++;
    }
}

/* The needles that are a member's key or value: clears each whose member
 * is not in the line after all. */
static guint32
check_members (guint32      found,
               const char **first,
               const char  *line,
               gsize        length)
{
  static const struct { guint needle; const char *key; } members[] = {
    { NEEDLE_SUMMARY, "\"type\"" }, { NEEDLE_CUSTOM_TITLE, "\"type\"" },
    { NEEDLE_DESKTOP, "\"entrypoint\"" }, { NEEDLE_USER, "\"type\"" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (members); i++)
    if ((found & BIT (members[i].needle))
        && !_pd_import_key_then_value (line, first[members[i].needle], line + length, members[i].key,
                                        line_needles[members[i].needle].text))
      found &= ~BIT (members[i].needle);
  return found;
}

/* The "timestamp" value of the line, from @p (where its key first occurs),
 * without parsing the line. */
static gint64
time_at (const char *p,
         const char *end)
{
  char buf[40];
  const char *close;

  p = _pd_import_string_of_key (p, end, line_needles[NEEDLE_TIMESTAMP].text);
  close = p != NULL ? memchr (p, '"', (gsize) (end - p)) : NULL;
  if (close == NULL || close - p >= (gssize) sizeof buf)
    return 0;
  memcpy (buf, p, (gsize) (close - p));
  buf[close - p] = '\0';
  return _pd_import_parse_time (buf);
}

static gboolean
has_pending_result (PdClaudeCodeReader *self,
                    const char         *line,
                    gsize               length)
{
  return _pd_pending_calls_get_size (self->requests) > 0
         && _pd_pending_calls_any_id_in (self->requests, line, length);
}

/* Reads the stream up to its next line that matters for the plan. */
static gboolean
stream_advance (PdClaudeCodeReader  *self,
                Stream              *stream,
                GError             **error)
{
  PdImportStats *st = _pd_claude_stats (self);
  const char *line;
  gsize length;

  stream->has_head = stream->head_too_long = FALSE;
  stream->head = NULL;
  stream->head_line = NULL;
  if (stream->reader == NULL)
    return TRUE;
  pd_jsonl_reader_set_report_too_long (stream->reader, self->pages != NULL && !stream->meta_only);

  for (;;)
    {
      guint64 too_long = pd_jsonl_reader_get_n_too_long (stream->reader);
      const char *first[PD_NEEDLES_MAX];
      gboolean relevant, meta = FALSE;
      JsonObject *object;
      guint32 found;
      gint64 time;

      if ((stream->stop > 0 && pd_jsonl_reader_get_offset (stream->reader) >= stream->stop)
          || !pd_jsonl_reader_next (stream->reader, &line, &length, error))
        {
          st->skipped_lines += pd_jsonl_reader_get_n_too_long (stream->reader) - too_long;
          st->lines += pd_jsonl_reader_get_n_too_long (stream->reader) - too_long;
          stream->offset = pd_jsonl_reader_get_offset (stream->reader);
          stream_close (stream);
          return error == NULL || *error == NULL;
        }
      st->skipped_lines += pd_jsonl_reader_get_n_too_long (stream->reader) - too_long;
      st->lines += 1 + pd_jsonl_reader_get_n_too_long (stream->reader) - too_long;
      /* Too long to read (its text never held): the pages say where. */
      if ((stream->head_length = pd_jsonl_reader_get_too_long (stream->reader)) > 0)
        {
          st->skipped_lines++;
          stream->has_head = stream->head_too_long = TRUE;
          stream->head_time = stream->last_time;
          return TRUE;
        }

      /* Cheap shape check for every line: one JSON object. */
      if (length == 0 || line[0] != '{' || line[length - 1] != '}')
        {
          st->skipped_lines++;
          continue;
        }

      /* One pass over the line finds everything the prefilter asks. */
      found = check_members (_pd_needles_scan (get_line_needles (), line, length, first), first, line, length);
      time = (found & BIT (NEEDLE_TIMESTAMP)) ? time_at (first[NEEDLE_TIMESTAMP], line + length) : 0;
      if (time > 0)
        stream->last_time = time;
      if (stream->is_main)
        pd_imported_session_note_time (self->session, time);

      /* For the pages every line counts: the conversation is in all. */
      relevant = self->pages != NULL
                 || (found & CALL_MASK)
                 || ((found & BIT (NEEDLE_TOOL_RESULT)) && has_pending_result (self, line, length));
      if (stream->is_main)
        meta = (!self->have_meta && memmem (line, length, "\"cwd\"", 5))
               || (found & (BIT (NEEDLE_SUMMARY) | BIT (NEEDLE_CUSTOM_TITLE) | BIT (NEEDLE_DESKTOP)))
               || (!self->have_title && pd_imported_session_get_title (self->session) == NULL
                   && self->user_lines < TITLE_MAX_USER_LINES
                   && (found & BIT (NEEDLE_USER)) && ++self->user_lines);
      if (stream->meta_only)
        relevant = FALSE;
      if (!relevant && !meta)
        continue;
      /* Nothing is built, checked in place or replayed of a line of more
       * values than its size can hold; the pages say where it was. */
      if (_pd_import_too_many_values (line, length))
        {
          st->skipped_lines++;
          if (self->pages == NULL)
            continue;
          stream->has_head = TRUE;
          stream->head_length = length;
          stream->head_time = time > 0 ? time : stream->last_time;
          return TRUE;
        }

      /* A plan line the session's facts do not need: checked now, read in
       * place when it is replayed. */
      if (!meta && self->pages == NULL && _pd_import_get_pick_lines ())
        {
          if (stream->spans == NULL)
            stream->spans = _pd_claude_spans_new ();
          if (!_pd_claude_spans_check (stream->spans, line, length))
            {
              st->skipped_lines++;
              continue;
            }
          stream->has_head = TRUE;
          stream->head_line = line;
          stream->head_length = length;
          stream->head_time = time > 0 ? time : stream->last_time;
          return TRUE;
        }

      /* A line for the session's facts alone: read in place. */
      if (!relevant && self->pages == NULL && _pd_import_get_pick_lines ())
        {
          if (!_pd_claude_note_meta_in_place (self, line, length))
            {
              st->skipped_lines++;
              continue;
            }
          if (stream->meta_only && self->have_meta
              && (self->have_title || pd_imported_session_get_title (self->session) != NULL))
            {
              stream->offset = pd_jsonl_reader_get_offset (stream->reader);
              stream_close (stream);
              return TRUE;
            }
          continue;
        }

      object = self->pages != NULL ? _pd_import_parse_object (&stream->root, line, length)
                                   : _pd_import_parse_picked (&stream->root, line, length, _pd_claude_line_pick);
      if (object == NULL)
        {
          st->skipped_lines++;
          continue;
        }
      if (meta)
        _pd_claude_note_meta (self, object);
      if (stream->meta_only && self->have_meta
          && (self->have_title || pd_imported_session_get_title (self->session) != NULL))
        {
          stream->offset = pd_jsonl_reader_get_offset (stream->reader);
          stream_close (stream);
          return TRUE;
        }
      if (!relevant)
        continue;

      stream->has_head = TRUE;
      stream->head = object;
      stream->head_time = time > 0 ? time : stream->last_time;
      return TRUE;
    }
}

static void
find_subagents (PdClaudeCodeReader *self)
{
  g_autoptr(GDir) dir = g_dir_open (self->subagent_dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)))
    if (g_str_has_suffix (name, ".jsonl"))
      g_ptr_array_add (names, g_strdup (name));
  /* A stable order for equal timestamps. */
  _pd_import_sort_names (names);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (self->subagent_dir, g_ptr_array_index (names, i), NULL);
      add_stream (self, path, FALSE);
    }
}

/* ---------------------------------------------------------------------- */
/* Long transcripts                                                       */

/* The session's facts from the head of a file whose middle is skipped: its
 * folder, first time and title (the first prompt), as a full read would
 * find them.  Plan calls there are before the replay: not applied. */
static gboolean
read_head (PdClaudeCodeReader  *self,
           goffset              until,
           GError             **error)
{
  Stream head = { 0 };
  gboolean ok;

  head.path = self->path;
  head.is_main = TRUE;
  head.meta_only = TRUE;
  head.stop = MIN (until, PD_IMPORT_TAIL_HEAD);
  if (head.stop <= 0)
    return TRUE;
  if (!(head.reader = pd_jsonl_reader_new (self->path, 0, self->max_line, FALSE, error)))
    return FALSE;
  /* Returns at the end of the head, or once the facts are known. */
  ok = stream_advance (self, &head, error);
  _pd_claude_stats (self)->bytes_read += (guint64) head.offset;
  stream_close (&head);
  return ok;
}

/* Takes the state a replay of @other built (same file). */
static void
adopt (PdClaudeCodeReader *self,
       PdClaudeCodeReader *other)
{
  Stream *mine = g_ptr_array_index (self->streams, 0);
  Stream *theirs = g_ptr_array_index (other->streams, 0);

#define SWAP(field) G_STMT_START { __typeof__ (self->field) t = self->field; self->field = other->field; other->field = t; } G_STMT_END
  SWAP (session);
  SWAP (requests);
  SWAP (tasks);
  SWAP (have_meta);
  SWAP (have_title);
  SWAP (user_lines);
  SWAP (full_lists);
#undef SWAP
  mine->offset = theirs->offset;
}

/*
 * The first read of a transcript over the threshold, without subagents:
 * its lines are scanned from the end backwards, at most the bound, and
 * only those naming a full-list tool are looked at.  A full list counts
 * once its result confirms it, which is after it in the file, so each
 * candidate is tried by replaying forward from it (from its line, so that
 * Task* increments after it are applied too); the first whose replay
 * applies a full list (it, or a newer one) gives the state a full read
 * gives from there on.  When none does within the bound, the replay starts
 * at the bound's start: the checklist then holds what can be known, and
 * task updates without their creation invent nothing, as always.
 *
 * What a tail read cannot know: plan documents (ExitPlanMode) and desktop
 * tool use before the start, and requests made before it whose results
 * come after it.  The head is read for the folder, title and first time.
 *
 * Subagent transcripts share the task list and are merged by timestamp:
 * skipping the main file's middle would need them cut at the same moment,
 * so a session with subagents is read whole.
 */
typedef struct
{
  PdClaudeCodeReader *self;
  GCancellable       *cancellable;
} TailSearch;

/* One candidate of read_tail(): a replay from its line. */
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
  PdClaudeCodeReader *self = search->self;
  g_autoptr(PdClaudeCodeReader) trial = NULL;
  Stream *trial_main;

  if (_pd_needles_scan (get_full_list_needles (), line, length, NULL) == 0)
    return TRUE;
  if (g_cancellable_set_error_if_cancelled (search->cancellable, error))
    return FALSE;

  trial = pd_claude_code_reader_new (self->path);
  trial->max_line = self->max_line;
  trial->follow = self->follow;
  trial->tail_done = TRUE;
  trial_main = g_ptr_array_index (trial->streams, 0);
  if (!read_head (trial, offset, error))
    return FALSE;
  trial_main->offset = offset;
  if (!claude_update (PD_TRANSCRIPT_READER (trial), search->cancellable, error))
    return FALSE;
  if (trial->full_lists > 0)
    {
      adopt (self, trial);
      *applied = TRUE;
      return TRUE;
    }
  /* Its newest full list failed (or was no full list): further back. */
  *tried += pd_imported_session_get_stats (trial->session)->bytes_read;
  return TRUE;
}

static gboolean
read_tail (PdClaudeCodeReader  *self,
           goffset              size,
           GCancellable        *cancellable,
           GError             **error)
{
  TailSearch search = { self, cancellable };
  Stream *main_stream = g_ptr_array_index (self->streams, 0);
  gboolean applied;
  goffset start;
  guint64 bytes_read;

  if (!_pd_jsonl_backward_find_start (self->path, size, _pd_import_get_tail_bound (), self->max_line,
                                      try_tail_line, &search, &applied, &start, &bytes_read, error))
    return FALSE;

  if (!applied)
    {
      /* No full list within the bound: replay from the bound's start. */
      if (!read_head (self, start, error))
        return FALSE;
      main_stream->offset = start;
    }
  _pd_claude_stats (self)->bytes_read += bytes_read;
  _pd_claude_stats (self)->tail_read = applied || start > 0;
  return TRUE;
}

/* Reads what was appended to the transcript and its subagent transcripts
 * since the last update (everything, the first time), merged by timestamp.
 * A subagent file that cannot be opened is skipped (and named by
 * pd_transcript_reader_get_skipped()); the main one is an error. */
static gboolean
claude_update (PdTranscriptReader  *reader,
               GCancellable        *cancellable,
               GError             **error)
{
  PdClaudeCodeReader *self = PD_CLAUDE_CODE_READER (reader);
  gboolean ok = TRUE;
  guint n = 0;
  Stream *main_stream;
  goffset main_before;
  goffset tail;

  g_ptr_array_set_size (self->skipped, 0);
  find_subagents (self);

  main_stream = g_ptr_array_index (self->streams, 0);
  /* The size the open that looked at the file saw: no second look. */
  tail = self->opened != NULL
         ? _pd_import_first_tail_size_of (&self->tail_done, main_stream->offset,
                                          pd_jsonl_reader_get_size (self->opened))
         : _pd_import_first_tail_size (&self->tail_done, main_stream->offset, self->path);
  /* With subagent files beside it, a transcript is read whole. */
  if (tail > 0 && self->streams->len == 1 && !read_tail (self, tail, cancellable, error))
    return FALSE;
  main_before = main_stream->offset;

  for (guint i = 0; i < self->streams->len; i++)
    {
      Stream *stream = g_ptr_array_index (self->streams, i);
      g_autoptr(GError) local = NULL;

      if (stream->is_main && stream->offset == 0 && self->opened != NULL)
        {
          /* The file as the look that recognised it left it: at its start. */
          stream->reader = g_steal_pointer (&self->opened);
          pd_jsonl_reader_set_max_line (stream->reader, self->max_line);
          pd_jsonl_reader_set_hold_partial (stream->reader, self->follow);
        }
      else
        stream->reader = pd_jsonl_reader_new (stream->path, stream->offset, self->max_line, self->follow, &local);
      if (stream->reader == NULL)
        {
          if (stream->is_main)
            {
              g_propagate_error (error, g_steal_pointer (&local));
              ok = FALSE;
              break;
            }
          _pd_import_skip_add_error (self->skipped, stream->path, local);
          continue;
        }
      if (!stream_advance (self, stream, error))
        {
          ok = FALSE;
          break;
        }
    }

  /* Merge: the earliest head next; on equal times, the main transcript
   * first, then the subagents in name order.  Within one file the order of
   * the file is kept. */
  while (ok)
    {
      Stream *next = NULL;

      for (guint i = 0; i < self->streams->len; i++)
        {
          Stream *stream = g_ptr_array_index (self->streams, i);
          if (stream->has_head && (next == NULL || stream->head_time < next->head_time))
            next = stream;
        }
      if (next == NULL)
        break;

      self->now = next->head_time;
      if (next->head != NULL)
        {
          if (self->pages != NULL)
            _pd_claude_conversation_line (self, next->is_main, next->path, next->head, next->head_time);
          handle_line (self, next, next->head, next->head_time);
        }
      else if (next->head_line == NULL)
        _pd_claude_conversation_unread (self, next->is_main, next->path, next->head_too_long, next->head_length,
                                        next->head_time);
      else if (!_pd_claude_span_handle_line (self, next->is_main, next->spans, next->head_time))
        {
          JsonObject *object = _pd_import_parse_picked (&next->root, next->head_line, next->head_length,
                                                        _pd_claude_line_pick);

          /* Checked already: it parses. */
          if (object != NULL)
            handle_line (self, next, object, next->head_time);
        }
      if (!stream_advance (self, next, error))
        ok = FALSE;

      if ((++n & 0xff) == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        ok = FALSE;
    }

  for (guint i = 0; i < self->streams->len; i++)
    {
      Stream *stream = g_ptr_array_index (self->streams, i);
      if (stream->reader)
        stream->offset = pd_jsonl_reader_get_offset (stream->reader);
      stream_close (stream);
    }
  g_clear_pointer (&self->opened, pd_jsonl_reader_free);
  _pd_claude_stats (self)->bytes_read += (guint64) MAX (main_stream->offset - main_before, 0);

  return ok;
}

PdImportedSession *
pd_claude_code_read (const char  *path,
                     GError     **error)
{
  g_autoptr(PdClaudeCodeReader) reader = pd_claude_code_reader_new (path);

  if (!claude_update (PD_TRANSCRIPT_READER (reader), NULL, error))
    return NULL;
  return g_object_ref (reader->session);
}
