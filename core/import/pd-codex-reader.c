/* pd-codex-reader.c: Codex CLI rollouts.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-codex-reader.h"
#include "pd-codex-reader-private.h"
#include "pd-import-private.h"
#include "pd-jsonl-backward.h"
#include "pd-jsonl-reader.h"
#include "pd-jsonl-replay.h"
#include "pd-json.h"
#include "pd-pending-calls.h"


/* Words that make a line worth parsing (the first eight), and the end of a
 * call output's type, worth it while calls wait: all found in one pass. */
static const char * const needles[] = {
  "update_plan", "\"plan_update\"", "proposed_plan", "\"Plan\"", "\"session_meta\"",
  "\"task_started\"", "\"turn_context\"", "\"user_message\"", "_output\"", NULL,
};

#define NEEDLE_SESSION_META 4
#define NEEDLE_USER_MESSAGE 7
#define NEEDLE_OUTPUT 8
#define WORDS_MASK ((1u << NEEDLE_OUTPUT) - 1)
/* The lines that hold the session's facts (the head of a tail read). */
#define META_MASK ((1u << NEEDLE_SESSION_META) | (1u << NEEDLE_USER_MESSAGE))

static const PdNeedles *
get_needles (void)
{
  static PdNeedles *compiled;

  if (g_once_init_enter (&compiled))
    g_once_init_leave (&compiled, _pd_needles_new (needles));
  return compiled;
}

/* What handle_line() and its handlers read of a line: the rest (the
 * instructions of session_meta and turn_context lines, reasoning, other
 * tools' calls) is skipped unbuilt.  The pages read everything, whole. */
static const PdJsonPick text_pick[] = {
  { "text", NULL }, { NULL, NULL },
};
static const PdJsonPick item_pick[] = {
  { "type", NULL }, { "text", NULL }, { NULL, NULL },
};
static const PdJsonPick payload_pick[] = {
  { "type", NULL }, { "id", NULL }, { "cwd", NULL }, { "timestamp", NULL }, { "message", NULL },
  { "turn_id", NULL }, { "call_id", NULL }, { "name", NULL }, { "arguments", NULL }, { "input", NULL },
  { "output", NULL }, { "role", NULL }, { "content", text_pick }, { "item", item_pick }, { "plan", NULL },
  { NULL, NULL },
};
const PdJsonPick _pd_codex_line_pick[] = {
  { "type", NULL }, { "timestamp", NULL }, { "payload", payload_pick }, { NULL, NULL },
};

/* The lines that can be a full list, for the backward scan of long
 * rollouts: update_plan calls (function calls, and code-mode scripts whose
 * input names it) and plan_update events.  Proposed plans are not: they are
 * plan documents, never the checklist. */
static const char * const full_list_needles[] = {
  "update_plan", "\"plan_update\"", NULL,
};

static const PdNeedles *
get_full_list_needles (void)
{
  static PdNeedles *compiled;

  if (g_once_init_enter (&compiled))
    g_once_init_leave (&compiled, _pd_needles_new (full_list_needles));
  return compiled;
}

/* The turn markers, for the turn a tail read starts in. */
static const char * const turn_needles[] = {
  "\"task_started\"", "\"turn_context\"", NULL,
};

static const PdNeedles *
get_turn_needles (void)
{
  static PdNeedles *compiled;

  if (g_once_init_enter (&compiled))
    g_once_init_leave (&compiled, _pd_needles_new (turn_needles));
  return compiled;
}

static void transcript_reader_iface_init (PdTranscriptReaderInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PdCodexReader, pd_codex_reader, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (PD_TYPE_TRANSCRIPT_READER, transcript_reader_iface_init))

static gboolean codex_update (PdTranscriptReader  *reader,
                              GCancellable        *cancellable,
                              GError             **error);

static void
pd_codex_reader_finalize (GObject *object)
{
  PdCodexReader *self = PD_CODEX_READER (object);

  g_clear_pointer (&self->calls, _pd_pending_calls_free);
  g_clear_object (&self->session);
  g_clear_object (&self->pages);
  g_clear_pointer (&self->opened, pd_jsonl_reader_free);
  g_free (self->path);
  g_free (self->turn_id);

  G_OBJECT_CLASS (pd_codex_reader_parent_class)->finalize (object);
}

static void
pd_codex_reader_class_init (PdCodexReaderClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_codex_reader_finalize;
}

static void
pd_codex_reader_init (PdCodexReader *self)
{
  self->max_line = PD_JSONL_DEFAULT_MAX_LINE;
  self->calls = _pd_pending_calls_new ((GDestroyNotify) _pd_import_list_free);
}

PdCodexReader *
pd_codex_reader_new (const char *path)
{
  PdCodexReader *self;

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (PD_TYPE_CODEX_READER, NULL);
  self->path = g_strdup (path);
  self->session = pd_imported_session_new (PD_IMPORT_SOURCE_CODEX, path);
  return self;
}

static void
codex_set_max_line (PdTranscriptReader *reader,
                    gsize               max_line)
{
  PD_CODEX_READER (reader)->max_line = max_line;
}

static void
codex_set_follow (PdTranscriptReader *reader,
                  gboolean            follow)
{
  PD_CODEX_READER (reader)->follow = !!follow;
}

static PdImportedSession *
codex_get_session (PdTranscriptReader *reader)
{
  return PD_CODEX_READER (reader)->session;
}

static goffset
codex_get_offset (PdTranscriptReader *reader)
{
  return PD_CODEX_READER (reader)->offset;
}

static const char *
codex_get_format (PdTranscriptReader *reader)
{
  return "codex";
}

static void
codex_set_pages (PdTranscriptReader *reader,
                 PdTranscriptPages  *pages)
{
  PdCodexReader *self = PD_CODEX_READER (reader);

  g_set_object (&self->pages, pages);
  /* The pages need every line: never a long rollout's end alone. */
  if (pages != NULL)
    self->tail_done = TRUE;
}

static GStrv
codex_dup_resume_argv (PdTranscriptReader *reader)
{
  static const char * const words[] = { "resume", NULL };

  return _pd_import_resume_argv ("codex", words, pd_imported_session_get_id (PD_CODEX_READER (reader)->session));
}

static void
transcript_reader_iface_init (PdTranscriptReaderInterface *iface)
{
  iface->get_format = codex_get_format;
  iface->set_max_line = codex_set_max_line;
  iface->set_follow = codex_set_follow;
  iface->update = codex_update;
  iface->get_session = codex_get_session;
  iface->get_offset = codex_get_offset;
  iface->set_pages = codex_set_pages;
  iface->dup_resume_argv = codex_dup_resume_argv;
}

/* ---------------------------------------------------------------------- */
/* Replay                                                                 */

static const char * const step_members[] = { "step", NULL };

/* The plan's first PD_IMPORT_MAX_ITEMS steps, the rest counted. */
static PdImportList *
items_from_args (JsonNode *args)
{
  GPtrArray *items;
  guint hidden = 0;

  if (args == NULL || !JSON_NODE_HOLDS_OBJECT (args))
    return NULL;
  items = _pd_import_items_from_array_cut (pd_json_get_array (json_node_get_object (args), "plan"), step_members,
                                           NULL, &hidden);
  return items ? _pd_import_list_new (items, hidden) : NULL;
}

/* A call id seen again: the first call is the one kept. */
static void
add_call (PdCodexReader *self,
          const char    *call_id,
          PdImportList  *items)
{
  if (_pd_pending_calls_contains (self->calls, call_id))
    {
      g_clear_pointer (&items, _pd_import_list_free);
      return;
    }
  _pd_pending_calls_add (self->calls, call_id, items, pd_imported_session_get_stats (self->session));
}

char *
_pd_codex_output_text (JsonNode *output,
                       gboolean *failed)
{
  *failed = FALSE;
  if (output == NULL)
    return NULL;
  if (JSON_NODE_HOLDS_OBJECT (output))
    {
      JsonObject *object = json_node_get_object (output);

      *failed = !pd_json_get_boolean (object, "success", TRUE);
      return _pd_import_result_text (json_object_get_member (object, "content"));
    }
  return _pd_import_result_text (output);
}

static gboolean
text_is_error (const char *text)
{
  if (text == NULL)
    return TRUE;
  while (g_ascii_isspace (*text))
    text++;
  return g_ascii_strncasecmp (text, "failed", 6) == 0
         || g_ascii_strncasecmp (text, "error", 5) == 0
         || strstr (text, "not allowed") != NULL
         || strstr (text, "Script failed") != NULL;
}

static void
handle_output (PdCodexReader *self,
               JsonObject    *payload,
               gint64         time)
{
  const char *call_id = pd_json_get_string (payload, "call_id");
  PdImportStats *stats = pd_imported_session_get_stats (self->session);
  g_autoptr(PdImportList) items = NULL;
  g_autofree char *text = NULL;
  gboolean failed;

  if (!_pd_pending_calls_take (self->calls, call_id, (gpointer *) &items))
    return;

  text = _pd_codex_output_text (json_object_get_member (payload, "output"), &failed);
  if (failed || text_is_error (text) || items == NULL)
    stats->ignored_updates++;
  else
    {
      _pd_import_list_apply (items, pd_imported_session_get_checklist (self->session),
                             PD_CHECKLIST_ORIGIN_CODEX_PLAN, TRUE);
      _pd_import_applied_update (self->session, self->pages, time);
      self->full_lists++;
    }
}

/* The body of a <proposed_plan> block whose tags stand on their own lines;
 * the last block of the message wins. */
static char *
find_proposed_plan (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr(GString) body = NULL;
  char *found = NULL;
  gboolean inside = FALSE;

  for (guint i = 0; lines[i]; i++)
    {
      g_autofree char *trimmed = g_strstrip (g_strdup (lines[i]));

      if (!inside && strcmp (trimmed, "<proposed_plan>") == 0)
        {
          inside = TRUE;
          body = g_string_new (NULL);
        }
      else if (inside && strcmp (trimmed, "</proposed_plan>") == 0)
        {
          inside = FALSE;
          g_free (found);
          found = g_string_free (g_steal_pointer (&body), FALSE);
        }
      else if (inside)
        {
          g_string_append (body, lines[i]);
          g_string_append_c (body, '\n');
        }
    }
  return found;
}

static void
add_proposed_plan (PdCodexReader *self,
                   const char    *turn_id,
                   const char    *markdown,
                   gint64         time)
{
  g_autofree char *id = g_strdup_printf ("turn:%s", turn_id ? turn_id : "");

  /* Before any turn marker: a tail read that starts mid-turn looks further
   * back for the turn (see read_tail()). */
  if (turn_id == NULL)
    self->turnless_plan = TRUE;
  pd_imported_session_add_plan (self->session, id, markdown, PD_ARTIFACT_PLAN_PROPOSED, time);
}

static void
handle_message (PdCodexReader *self,
                JsonObject    *payload,
                gint64         time)
{
  JsonArray *content = pd_json_get_array (payload, "content");
  const char *role = pd_json_get_string (payload, "role");

  if (g_strcmp0 (role, "assistant") != 0 || content == NULL)
    return;
  for (guint i = 0; i < json_array_get_length (content); i++)
    {
      JsonNode *element = json_array_get_element (content, i);
      const char *text;
      g_autofree char *plan = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      text = pd_json_get_string (json_node_get_object (element), "text");
      if (text && strstr (text, "<proposed_plan>") && (plan = find_proposed_plan (text)))
        add_proposed_plan (self, self->turn_id, plan, time);
    }
}

/* The turn a turn_context line or a task_started event begins; NULL for
 * any other line. */
static const char *
turn_of_line (const char *type,
              const char *kind,
              JsonObject *payload)
{
  if (strcmp (type, "turn_context") == 0
      || (strcmp (type, "event_msg") == 0 && g_strcmp0 (kind, "task_started") == 0))
    return pd_json_get_string (payload, "turn_id");
  return NULL;
}

/* Session facts: never plan state.  TRUE when the line was one. */
static gboolean
handle_meta (PdCodexReader *self,
             const char    *type,
             const char    *kind,
             JsonObject    *payload)
{
  const char *value;

  if (strcmp (type, "session_meta") == 0)
    {
      /* The first is the session's own: a resumed or forked rollout
       * repeats others after it (another session's, or trimmed), and the
       * last made a real rollout read as "[trimmed for fixture]". */
      if (self->have_meta)
        return TRUE;
      if ((value = pd_json_get_string (payload, "id")))
        pd_imported_session_set_id (self->session, value);
      if ((value = pd_json_get_string (payload, "cwd")))
        pd_imported_session_set_cwd (self->session, value);
      pd_imported_session_note_time (self->session, _pd_import_parse_time (pd_json_get_string (payload, "timestamp")));
      self->have_meta = TRUE;
      return TRUE;
    }
  if (strcmp (type, "event_msg") == 0 && g_strcmp0 (kind, "user_message") == 0)
    {
      if (pd_imported_session_get_title (self->session) == NULL
          && (value = pd_json_get_string (payload, "message")) && *value && *value != '<')
        {
          g_autofree char *title = _pd_import_title_from_text (value);

          pd_imported_session_set_title (self->session, title);
        }
      return TRUE;
    }
  return FALSE;
}

static void
handle_line (PdCodexReader *self,
             JsonObject    *line,
             gint64         time)
{
  const char *type = pd_json_get_string (line, "type");
  JsonObject *payload = pd_json_get_object (line, "payload");
  PdImportStats *stats = pd_imported_session_get_stats (self->session);
  const char *kind = pd_json_get_string (payload, "type");
  const char *value;

  if (type == NULL || payload == NULL)
    return;

  if (self->pages != NULL)
    _pd_codex_conversation_line (self, type, kind, payload, time);
  if (handle_meta (self, type, kind, payload) || self->meta_only)
    return;

  if ((value = turn_of_line (type, kind, payload)))
    {
      g_free (self->turn_id);
      self->turn_id = g_strdup (value);
    }
  else if (strcmp (type, "event_msg") == 0 && kind != NULL)
    {
      if (strcmp (kind, "plan_update") == 0)
        {
          /* Not persisted by upstream, written by some tools: a full list. */
          g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), payload);
          g_autoptr(PdImportList) items = items_from_args (node);

          if (items == NULL)
            stats->ignored_updates++;
          else
            {
              _pd_import_list_apply (items, pd_imported_session_get_checklist (self->session),
                                     PD_CHECKLIST_ORIGIN_CODEX_PLAN, TRUE);
              _pd_import_applied_update (self->session, self->pages, time);
              self->full_lists++;
            }
        }
      else if (strcmp (kind, "item_completed") == 0)
        {
          JsonObject *item = pd_json_get_object (payload, "item");
          const char *text = pd_json_get_string (item, "text");

          if (g_strcmp0 (pd_json_get_string (item, "type"), "Plan") == 0 && text != NULL)
            {
              value = pd_json_get_string (payload, "turn_id");
              add_proposed_plan (self, value ? value : self->turn_id, text, time);
            }
        }
    }
  else if (strcmp (type, "response_item") == 0 && kind != NULL)
    {
      const char *call_id = pd_json_get_string (payload, "call_id");
      const char *name = pd_json_get_string (payload, "name");

      if (strcmp (kind, "function_call") == 0 && g_strcmp0 (name, "update_plan") == 0 && call_id)
        {
          const char *arguments = pd_json_get_string (payload, "arguments");
          g_autoptr(JsonNode) args = _pd_import_parse_json (arguments, -1);

          add_call (self, call_id, items_from_args (args));
        }
      else if (strcmp (kind, "custom_tool_call") == 0 && g_strcmp0 (name, "exec") == 0 && call_id)
        {
          g_autoptr(JsonNode) args = pd_codex_extract_exec_plan (pd_json_get_string (payload, "input"));

          /* Scripts without a plan call are none of ours. */
          if (args != NULL)
            add_call (self, call_id, items_from_args (args));
          else if (strstr (pd_json_get_string (payload, "input") ? pd_json_get_string (payload, "input") : "",
                           "update_plan"))
            stats->ignored_updates++;
        }
      else if (strcmp (kind, "function_call_output") == 0 || strcmp (kind, "custom_tool_call_output") == 0)
        handle_output (self, payload, time);
      else if (strcmp (kind, "message") == 0)
        handle_message (self, payload, time);
    }
}

/* What a line is worth: for the pages every line counts (the conversation
 * is in all), parsed whole; otherwise the lines the needles find, parsed
 * keeping what the handlers read. */
static PdJsonlLineUse
look_at_line (gpointer    user_data,
              const char *line,
              gsize       length)
{
  PdCodexReader *self = user_data;
  guint32 found;

  /* Codex lines start with their timestamp: cheap to keep for times.  Not
   * by its compact bytes alone: a line rewritten with blanks around the
   * colon ({"timestamp": "…", as Python writes JSON) gave no time, and the
   * session ended at its last line parsed. */
  if (length > 1 && line[0] == '{')
    {
      const char *end = line + length;
      const char *key = line + 1;
      const char *value, *close;
      char buf[40];

      while (key < end && (*key == ' ' || *key == '\t'))
        key++;
      value = (gsize) (end - key) > 11 && memcmp (key, "\"timestamp\"", 11) == 0
              ? _pd_import_string_of_key (key, end, "\"timestamp\"") : NULL;
      close = value != NULL ? memchr (value, '"', MIN ((gsize) (end - value), sizeof buf - 1)) : NULL;
      if (close != NULL)
        {
          memcpy (buf, value, (gsize) (close - value));
          buf[close - value] = '\0';
          pd_imported_session_note_time (self->session, _pd_import_parse_time (buf));
        }
    }
  if (self->pages != NULL)
    return PD_JSONL_LINE_PARSE;
  found = _pd_needles_scan (get_needles (), line, length, NULL);
  if (self->meta_only ? !(found & META_MASK)
                      : !(found & WORDS_MASK) && !(_pd_pending_calls_get_size (self->calls) > 0 && (found & (1u << NEEDLE_OUTPUT))))
    return PD_JSONL_LINE_SKIP;
  return PD_JSONL_LINE_SPAN;
}

/* With meta_only, only the session's facts are taken, and the read stops
 * once they are known. */
static gboolean
replay_line (gpointer    user_data,
             JsonObject *object)
{
  PdCodexReader *self = user_data;

  handle_line (self, object, _pd_import_parse_time (pd_json_get_string (object, "timestamp")));
  return !(self->meta_only && self->have_meta && pd_imported_session_get_title (self->session) != NULL);
}

/* ---------------------------------------------------------------------- */
/* Lines read in place                                                    */

/* What the walk that checks a candidate line notes of it (pd_json_check_spans()):
 * the line's type and time, and the payload's members that the lines most
 * of a rollout's candidates are — turn markers, the session's facts, the
 * first prompt, update_plan calls and their outputs, completed plan items —
 * are read with.  Any other candidate (a plan_update event, a code-mode
 * script, a message: rare) is declined before anything is changed and read
 * as its picked tree, as before. */

static const PdJsonSpanPick payload_span_pick[] = {
  { "type", SPAN_KIND }, { "id", SPAN_ID }, { "cwd", SPAN_CWD }, { "timestamp", SPAN_META_TIME },
  { "message", SPAN_MESSAGE }, { "turn_id", SPAN_TURN_ID }, { "call_id", SPAN_CALL_ID }, { "name", SPAN_NAME },
  { "arguments", SPAN_ARGUMENTS }, { "output", SPAN_OUTPUT }, { "item", SPAN_ITEM }, { NULL },
};
static const PdJsonSpanPick line_span_pick[] = {
  { "type", SPAN_TYPE }, { "timestamp", SPAN_TIMESTAMP }, { "payload", SPAN_PAYLOAD, payload_span_pick }, { NULL },
};

static gboolean
check_span (gpointer    user_data,
            const char *line,
            gsize       length)
{
  PdCodexReader *self = user_data;

  return pd_json_check_spans (line, length, line_span_pick, self->spans, NULL, NULL);
}

/* Whether handle_line() does with the line what span_handle_line() does in
 * place: FALSE for the candidates read as trees. */
static gboolean
span_is_read_in_place (const PdJsonSpan *spans)
{
  PdJsonSpan type = spans[SPAN_TYPE], kind = spans[SPAN_KIND];

  if (pd_json_span_string_equal (type, "event_msg"))
    return !pd_json_span_string_equal (kind, "plan_update");
  if (pd_json_span_string_equal (type, "response_item"))
    return !pd_json_span_string_equal (kind, "custom_tool_call") && !pd_json_span_string_equal (kind, "message");
  return TRUE;
}

/* handle_line() on the spans of a line it would read the same. */
static void
span_handle_line (PdCodexReader    *self,
                  const PdJsonSpan *spans,
                  gint64            time)
{
  PdJsonSpan type = spans[SPAN_TYPE], kind = spans[SPAN_KIND];
  PdImportStats *stats = pd_imported_session_get_stats (self->session);
  g_autofree char *value = NULL;

  /* handle_meta() */
  if (pd_json_span_string_equal (type, "session_meta"))
    {
      g_autofree char *cwd = NULL, *meta_time = NULL;

      if (self->have_meta)
        return;
      if ((value = pd_json_span_dup_string (spans[SPAN_ID])))
        pd_imported_session_set_id (self->session, value);
      if ((cwd = pd_json_span_dup_string (spans[SPAN_CWD])))
        pd_imported_session_set_cwd (self->session, cwd);
      meta_time = pd_json_span_dup_string (spans[SPAN_META_TIME]);
      pd_imported_session_note_time (self->session, _pd_import_parse_time (meta_time));
      self->have_meta = TRUE;
      return;
    }
  if (pd_json_span_string_equal (type, "event_msg") && pd_json_span_string_equal (kind, "user_message"))
    {
      if (pd_imported_session_get_title (self->session) == NULL
          && (value = pd_json_span_dup_string (spans[SPAN_MESSAGE])) && *value && *value != '<')
        {
          g_autofree char *title = _pd_import_title_from_text (value);

          pd_imported_session_set_title (self->session, title);
        }
      return;
    }
  if (self->meta_only)
    return;

  /* turn_of_line() */
  if (pd_json_span_string_equal (type, "turn_context")
      || (pd_json_span_string_equal (type, "event_msg") && pd_json_span_string_equal (kind, "task_started")))
    {
      if ((value = pd_json_span_dup_string (spans[SPAN_TURN_ID])))
        {
          g_free (self->turn_id);
          self->turn_id = g_steal_pointer (&value);
        }
      return;
    }
  if (pd_json_span_string_equal (type, "event_msg") && pd_json_span_string_equal (kind, "item_completed"))
    {
      static const char * const item_names[] = { "type", "text", NULL };
      PdJsonSpan item[2] = { { NULL, 0 }, { NULL, 0 } };
      g_autofree char *turn = NULL;

      if (pd_json_span_is_object (spans[SPAN_ITEM]))
        pd_json_span_get_members (spans[SPAN_ITEM], item_names, item);
      if (pd_json_span_string_equal (item[0], "Plan") && (value = pd_json_span_dup_string (item[1])))
        {
          turn = pd_json_span_dup_string (spans[SPAN_TURN_ID]);
          add_proposed_plan (self, turn ? turn : self->turn_id, value, time);
        }
      return;
    }
  if (!pd_json_span_string_equal (type, "response_item"))
    return;

  if (pd_json_span_string_equal (kind, "function_call") && pd_json_span_string_equal (spans[SPAN_NAME], "update_plan")
      && (value = pd_json_span_dup_string (spans[SPAN_CALL_ID])))
    {
      g_autofree char *arguments = pd_json_span_dup_string (spans[SPAN_ARGUMENTS]);
      g_autoptr(JsonNode) args = _pd_import_parse_json (arguments, -1);

      add_call (self, value, args != NULL ? items_from_args (args) : NULL);
    }
  else if (pd_json_span_string_equal (kind, "function_call_output")
           || pd_json_span_string_equal (kind, "custom_tool_call_output"))
    {
      /* handle_output(): an output that is no string (a list of parts,
       * or {content, success}: rare) read from its own tree. */
      g_autoptr(PdImportList) items = NULL;
      g_autoptr(JsonNode) output = NULL;
      g_autofree char *text = NULL;
      gboolean failed = FALSE;

      value = pd_json_span_dup_string (spans[SPAN_CALL_ID]);
      if (!_pd_pending_calls_take (self->calls, value, (gpointer *) &items))
        return;
      if (pd_json_span_is_string (spans[SPAN_OUTPUT]))
        text = pd_json_span_dup_string (spans[SPAN_OUTPUT]);
      else if ((output = pd_json_span_to_node (spans[SPAN_OUTPUT], NULL)))
        text = _pd_codex_output_text (output, &failed);
      if (failed || text_is_error (text) || items == NULL)
        stats->ignored_updates++;
      else
        {
          _pd_import_list_apply (items, pd_imported_session_get_checklist (self->session),
                                 PD_CHECKLIST_ORIGIN_CODEX_PLAN, TRUE);
          _pd_import_applied_update (self->session, self->pages, time);
          self->full_lists++;
        }
    }
}

/* A line pd_json_check_spans() accepted: read in place, or declined and
 * read as its picked tree (the line is accepted by both alike). */
static gboolean
handle_span (gpointer    user_data,
             const char *line,
             gsize       length)
{
  PdCodexReader *self = user_data;
  const PdJsonSpan *spans = self->spans;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *timestamp = NULL;
  JsonObject *object;

  if (!span_is_read_in_place (spans))
    {
      if (!(object = _pd_import_parse_picked (&root, line, length, _pd_codex_line_pick)))
        {
          pd_imported_session_get_stats (self->session)->skipped_lines++;
          return TRUE;
        }
      return replay_line (self, object);
    }
  /* handle_line()'s own test: a type and a payload object, or nothing. */
  if (pd_json_span_is_string (spans[SPAN_TYPE]) && pd_json_span_is_object (spans[SPAN_PAYLOAD]))
    {
      timestamp = pd_json_span_dup_string (spans[SPAN_TIMESTAMP]);
      span_handle_line (self, spans, _pd_import_parse_time (timestamp));
    }
  return !(self->meta_only && self->have_meta && pd_imported_session_get_title (self->session) != NULL);
}

static const PdJsonlReplayFuncs replay_funcs = {
  .look = look_at_line, .handle = replay_line, .pick = _pd_codex_line_pick,
  .handle_span = handle_span, .check_span = check_span,
};

/* Reads the lines from @from on, up to the first that starts at or after
 * @stop (0: to the end), and says in *@end where it stopped. */
static gboolean
read_lines (PdCodexReader  *self,
            goffset         from,
            goffset         stop,
            goffset        *end,
            GCancellable   *cancellable,
            GError        **error)
{
  /* The head of a tail read gives facts only: no placeholder either. */
  PdTranscriptPages *pages = self->meta_only ? NULL : self->pages;

  if (self->opened != NULL && from == 0)
    {
      /* The file as the look that recognised it left it: at its start. */
      PdJsonlReader *reader = g_steal_pointer (&self->opened);

      pd_jsonl_reader_set_max_line (reader, self->max_line);
      pd_jsonl_reader_set_hold_partial (reader, self->follow);
      return _pd_jsonl_replay_reader (reader, from, stop, &replay_funcs, self, pages,
                                      pd_imported_session_get_stats (self->session), end, cancellable, error);
    }
  g_clear_pointer (&self->opened, pd_jsonl_reader_free);
  return _pd_jsonl_replay (self->path, from, stop, self->max_line, self->follow, &replay_funcs, self, pages,
                           pd_imported_session_get_stats (self->session), end, cancellable, error);
}

void
_pd_codex_reader_take_opened (PdCodexReader *self,
                              PdJsonlReader *opened)
{
  g_clear_pointer (&self->opened, pd_jsonl_reader_free);
  self->opened = opened;
}

/* ---------------------------------------------------------------------- */
/* Long rollouts                                                          */

/* The session's facts from the head of a rollout whose middle is skipped:
 * its id, folder and first time (the session_meta line, the first) and its
 * title (the first prompt), as a full read finds them.  Plan lines there
 * are before the replay: not applied. */
static gboolean
read_head (PdCodexReader  *self,
           goffset         until,
           GError        **error)
{
  goffset end;
  gboolean ok;

  until = MIN (until, PD_IMPORT_TAIL_HEAD);
  if (until <= 0)
    return TRUE;
  self->meta_only = TRUE;
  ok = read_lines (self, 0, until, &end, NULL, error);
  self->meta_only = FALSE;
  return ok;
}

/* Whether a line is a full list that can apply: an update_plan call (or
 * code-mode script) whose arguments are a valid plan, or a valid
 * plan_update event, as handle_line() reads them.  Lines that only name
 * the tool (instructions, messages, malformed calls) are not tried. */
static gboolean
is_full_list (const char *line,
              gsize       length)
{
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(PdImportList) items = NULL;
  JsonObject *object, *payload;
  const char *type, *kind, *name;

  if (length == 0 || line[0] != '{' || line[length - 1] != '}'
      || !(object = _pd_import_parse_object (&root, line, length))
      || !(type = pd_json_get_string (object, "type"))
      || !(payload = pd_json_get_object (object, "payload"))
      || !(kind = pd_json_get_string (payload, "type")))
    return FALSE;

  name = pd_json_get_string (payload, "name");
  if (strcmp (type, "event_msg") == 0 && strcmp (kind, "plan_update") == 0)
    {
      g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), payload);
      items = items_from_args (node);
    }
  else if (strcmp (type, "response_item") != 0 || pd_json_get_string (payload, "call_id") == NULL)
    return FALSE;
  else if (strcmp (kind, "function_call") == 0 && g_strcmp0 (name, "update_plan") == 0)
    {
      g_autoptr(JsonNode) args = _pd_import_parse_json (pd_json_get_string (payload, "arguments"), -1);
      items = items_from_args (args);
    }
  else if (strcmp (kind, "custom_tool_call") == 0 && g_strcmp0 (name, "exec") == 0)
    {
      g_autoptr(JsonNode) args = pd_codex_extract_exec_plan (pd_json_get_string (payload, "input"));
      items = items_from_args (args);
    }
  return items != NULL;
}

/* The turn the line at @offset is in: the newest turn marker before it,
 * looked for back to the bound's start @lower; *@turn is NULL when there is
 * none there. */
static gboolean
turn_before (PdCodexReader  *self,
             goffset         offset,
             goffset         lower,
             char          **turn,
             guint64        *bytes_read,
             GError        **error)
{
  g_autoptr(PdJsonlBackward) back = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) local = NULL;
  const char *line;
  gsize length;
  goffset start;

  *turn = NULL;
  if (!(back = _pd_jsonl_backward_new (self->path, offset, offset - lower, self->max_line, error)))
    return FALSE;
  while (*turn == NULL && _pd_jsonl_backward_prev (back, &line, &length, &start, &local))
    {
      JsonObject *object, *payload;
      const char *type, *value;

      if (length == 0 || _pd_needles_scan (get_turn_needles (), line, length, NULL) == 0
          || !(object = _pd_import_parse_object (&root, line, length))
          || !(type = pd_json_get_string (object, "type"))
          || !(payload = pd_json_get_object (object, "payload")))
        continue;
      if ((value = turn_of_line (type, pd_json_get_string (payload, "type"), payload)))
        *turn = g_strdup (value);
    }
  *bytes_read += _pd_jsonl_backward_get_bytes_read (back);
  if (local != NULL)
    {
      g_clear_pointer (turn, g_free);
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }
  return TRUE;
}

/* A replay of the rollout from the line at @offset, with the head read for
 * the session's facts and the turn (nullable) it starts in. */
static PdCodexReader *
replay_from (PdCodexReader  *self,
             goffset         offset,
             const char     *turn_id,
             GCancellable   *cancellable,
             GError        **error)
{
  g_autoptr(PdCodexReader) trial = pd_codex_reader_new (self->path);

  trial->max_line = self->max_line;
  trial->follow = self->follow;
  trial->tail_done = TRUE;
  trial->turn_id = g_strdup (turn_id);
  if (!read_head (trial, offset, error))
    return NULL;
  trial->offset = offset;
  if (!codex_update (PD_TRANSCRIPT_READER (trial), cancellable, error))
    return NULL;
  return g_steal_pointer (&trial);
}

/* Takes the state a replay of @other built (same file). */
static void
adopt (PdCodexReader *self,
       PdCodexReader *other)
{
#define SWAP(field) G_STMT_START { __typeof__ (self->field) t = self->field; self->field = other->field; other->field = t; } G_STMT_END
  SWAP (session);
  SWAP (calls);
  SWAP (turn_id);
  SWAP (offset);
  SWAP (have_meta);
  SWAP (full_lists);
  SWAP (turnless_plan);
#undef SWAP
}

/*
 * The first read of a rollout over the threshold: its lines are scanned
 * from the end backwards, at most the bound, and only those that are a
 * full list (update_plan calls, their code-mode form, plan_update events)
 * are looked at.  A call counts once its output says it did not fail, and
 * the output comes after it, so each candidate is tried by replaying
 * forward from its line; the first whose replay applies a full list gives
 * the state a full read gives from there on.  When none does within the
 * bound, the replay starts at the bound's start: the checklist then holds
 * what can be known there (nothing, unless a full list follows).
 *
 * What a tail read cannot know: proposed plans (<proposed_plan> blocks,
 * completed Plan items) before the replay's start, which are plan
 * documents and no part of the checklist, though plan mode usually comes
 * before the update_plan calls that carry it out; and calls made before
 * the start whose output comes after it (parallel calls answered out of
 * order).  The head is read for the id, folder, title and first time.  A
 * proposed plan in the replay before its first turn marker is keyed by the
 * turn found further back, within the bound, as a full read keys it.
 */
typedef struct
{
  PdCodexReader *self;
  goffset        lower;   /* the bound's start */
  GCancellable  *cancellable;
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
  PdCodexReader *self = search->self;
  g_autoptr(PdCodexReader) trial = NULL;

  if (_pd_needles_scan (get_full_list_needles (), line, length, NULL) == 0 || !is_full_list (line, length))
    return TRUE;
  if (g_cancellable_set_error_if_cancelled (search->cancellable, error))
    return FALSE;

  if (!(trial = replay_from (self, offset, NULL, search->cancellable, error)))
    return FALSE;
  if (trial->full_lists == 0)
    {
      /* Its output was an error (or never came): further back. */
      *tried += pd_imported_session_get_stats (trial->session)->bytes_read;
      return TRUE;
    }

  if (trial->turnless_plan)
    {
      g_autofree char *turn = NULL;

      if (!turn_before (self, offset, search->lower, &turn, tried, error))
        return FALSE;
      if (turn != NULL)
        {
          /* Once more, knowing the turn. */
          *tried += pd_imported_session_get_stats (trial->session)->bytes_read;
          g_clear_object (&trial);
          if (!(trial = replay_from (self, offset, turn, search->cancellable, error)))
            return FALSE;
        }
    }
  adopt (self, trial);
  *applied = TRUE;
  return TRUE;
}

static gboolean
read_tail (PdCodexReader  *self,
           goffset         size,
           GCancellable   *cancellable,
           GError        **error)
{
  TailSearch search = { self, MAX (size - _pd_import_get_tail_bound (), 0), cancellable };
  PdImportStats *stats;
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
      self->offset = start;
    }
  stats = pd_imported_session_get_stats (self->session);
  stats->bytes_read += bytes_read;
  stats->tail_read = applied || start > 0;
  return TRUE;
}

/* Reads what was appended to the rollout since the last update
 * (everything, the first time; for a rollout over the threshold, from the
 * newest full list that applies: see read_tail()). */
static gboolean
codex_update (PdTranscriptReader  *reader,
              GCancellable        *cancellable,
              GError             **error)
{
  PdCodexReader *self = PD_CODEX_READER (reader);
  /* The size the open that looked at the file saw: no second look. */
  goffset tail = self->opened != NULL
                 ? _pd_import_first_tail_size_of (&self->tail_done, self->offset,
                                                  pd_jsonl_reader_get_size (self->opened))
                 : _pd_import_first_tail_size (&self->tail_done, self->offset, self->path);

  if (tail > 0 && !read_tail (self, tail, cancellable, error))
    return FALSE;
  return read_lines (self, self->offset, 0, &self->offset, cancellable, error);
}

PdImportedSession *
pd_codex_read (const char  *path,
               GError     **error)
{
  g_autoptr(PdCodexReader) reader = pd_codex_reader_new (path);

  if (!codex_update (PD_TRANSCRIPT_READER (reader), NULL, error))
    return NULL;
  return g_object_ref (reader->session);
}
