/* pd-claude-code-spans.c: the Claude Code reader's plan lines read in
 * place.
 *
 * The lines that are most of a real transcript's plan — TodoWrite calls and
 * their results — are checked whole (pd_json_check_foreign()) and then read
 * where they lie with #PdJsonSpan: what handle_line() does with a picked
 * tree, the same, without one.  Any other plan tool in a line, or a result
 * of one, and the line is declined before anything is changed: it is then
 * built and read as a tree.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-claude-code-reader-private.h"

/* What is read of a line and of a content block, each in one pass. */
static const char * const span_line_names[] = { "type", "isSidechain", "message", "toolUseResult", NULL };
enum { LINE_TYPE, LINE_SIDECHAIN, LINE_MESSAGE, LINE_RESULT, N_LINE_NAMES };
static const char * const span_block_names[] = {
  "type", "name", "id", "input", "tool_use_id", "is_error", "content", NULL,
};
enum { BLOCK_TYPE, BLOCK_NAME, BLOCK_ID, BLOCK_INPUT, BLOCK_TOOL_USE_ID, BLOCK_IS_ERROR, BLOCK_CONTENT, N_BLOCK_NAMES };

static const char * const span_message_names[] = { "content", NULL };
enum { MESSAGE_CONTENT, N_MESSAGE_NAMES };

/* What is read of a line: its members, and its message's content. */
typedef struct
{
  PdJsonSpan members[N_LINE_NAMES];
  PdJsonSpan message[N_MESSAGE_NAMES];
} SpanLine;

static gboolean
span_is_true (PdJsonSpan value)
{
  return pd_json_span_is_boolean (value) && value.text[0] == 't';
}

/* The plan tool a content block calls (N_TOOLS: none). */
static Tool
span_block_tool (const PdJsonSpan *members)
{
  if (!pd_json_span_string_equal (members[BLOCK_TYPE], "tool_use")
      || !pd_json_span_is_string (members[BLOCK_NAME]) || !pd_json_span_is_string (members[BLOCK_ID]))
    return N_TOOLS;
  for (guint t = 0; t < N_TOOLS; t++)
    if (pd_json_span_string_equal (members[BLOCK_NAME], _pd_claude_tool_names[t]))
      return (Tool) t;
  return N_TOOLS;
}

/* handle_assistant(): a call's input is kept as its text, built only when
 * its result needs it. */
static void
span_handle_assistant (PdClaudeCodeReader *self,
                       const SpanLine     *line,
                       gboolean            from_subagent,
                       gint64              time)
{
  PdJsonSpan members[N_BLOCK_NAMES];
  PdJsonSpan content, block;
  gsize cursor = 0;

  /* The message's content blocks, when it is an object with an array. */
  if (!pd_json_span_is_array (content = line->message[MESSAGE_CONTENT]))
    return;

  while (pd_json_span_next_members (content, &cursor, span_block_names, members, &block))
    {
      g_autofree char *id = NULL;
      Tool t;

      if ((t = span_block_tool (members)) == N_TOOLS)
        continue;
      /* A subagent's TodoWrite list, plan and desktop plan are its own;
       * only the task list is shared. */
      if (from_subagent && t != TOOL_TASK_CREATE && t != TOOL_TASK_UPDATE && t != TOOL_TASK_LIST)
        continue;
      if (t == TOOL_CCD_UPDATE_PLAN || t == TOOL_CCD_WRAP_UP)
        pd_imported_session_set_source (self->session, PD_IMPORT_SOURCE_CLAUDE_DESKTOP);
      id = pd_json_span_dup_string (members[BLOCK_ID]);
      _pd_claude_add_request (self, id, t, NULL, members[BLOCK_INPUT].length > 0 ? &members[BLOCK_INPUT] : NULL,
                   from_subagent, time);
    }
}

/* handle_user(): a TodoWrite's result read in place; another tool's gets
 * the trees handle_user() gives it (its result text, the toolUseResult),
 * built from their spans alone. */
static void
span_handle_user (PdClaudeCodeReader *self,
                  const SpanLine     *line)
{
  static const char * const type_name[] = { "type", NULL };
  PdJsonSpan members[N_BLOCK_NAMES];
  PdJsonSpan content, block;
  guint n_results = 0;
  gsize cursor = 0;

  /* The message's content blocks, when it is an object with an array. */
  if (!pd_json_span_is_array (content = line->message[MESSAGE_CONTENT]))
    return;

  while (pd_json_span_next_members (content, &cursor, type_name, members, &block))
    if (pd_json_span_string_equal (members[0], "tool_result"))
      n_results++;

  cursor = 0;
  while (pd_json_span_next_members (content, &cursor, span_block_names, members, &block))
    {
      /* One toolUseResult for several results cannot be told apart. */
      const PdJsonSpan *result = n_results == 1 && line->members[LINE_RESULT].length > 0
                                 ? &line->members[LINE_RESULT] : NULL;
      g_autofree char *id = NULL;
      Request *request;

      if (!pd_json_span_string_equal (members[BLOCK_TYPE], "tool_result")
          || !(id = pd_json_span_dup_string (members[BLOCK_TOOL_USE_ID]))
          || !(request = _pd_claude_take_request (self, id)))
        continue;

      if (request->tool == TOOL_TODO_WRITE)
        _pd_claude_handle_todo_write_span (self, request, span_is_true (members[BLOCK_IS_ERROR]), result);
      else
        {
          g_autoptr(JsonNode) content_node = pd_json_span_to_node (members[BLOCK_CONTENT], NULL);
          g_autoptr(JsonNode) result_node = result ? pd_json_span_to_node (*result, _pd_claude_tool_use_result_pick) : NULL;
          g_autofree char *text = _pd_import_result_text (content_node);

          _pd_claude_handle_result (self, request, span_is_true (members[BLOCK_IS_ERROR]), text, result_node);
        }
      _pd_claude_request_free (request);
    }
}

/* handle_line() on a checked line, in place; FALSE when declined (nothing
 * changed). */
gboolean
_pd_claude_span_handle_line (PdClaudeCodeReader *self,
                             gboolean            is_main,
                             const char         *text,
                             gsize               length,
                             gint64              time)
{
  PdJsonSpan span = { text, length };
  SpanLine line;
  const PdJsonSpan *members = line.members;

  pd_json_span_get_members_within (span, span_line_names, line.members, LINE_MESSAGE,
                                   span_message_names, line.message);
  if (!pd_json_span_is_string (members[LINE_TYPE]))
    return TRUE;
  if (pd_json_span_string_equal (members[LINE_TYPE], "assistant"))
    span_handle_assistant (self, &line, !is_main || span_is_true (members[LINE_SIDECHAIN]), time);
  else if (pd_json_span_string_equal (members[LINE_TYPE], "user"))
    span_handle_user (self, &line);
  else if (pd_json_span_string_equal (members[LINE_TYPE], "attachment"))
    return FALSE;  /* task reminders: as a tree */
  return TRUE;
}

