/* pd-claude-code-spans.c: the Claude Code reader's plan lines read in
 * place.
 *
 * The lines that are most of a real transcript's plan — TodoWrite calls and
 * their results — are checked and read in one walk (pd_json_check_spans()):
 * the check notes where the members a checklist needs lie (the line's type,
 * its message's content blocks, the result's new list and its items) and
 * skips everything else without building it.  The replay then reads those
 * spans: what handle_line() does with a picked tree, the same, without one.
 * Any other plan tool in a line, or a result of one, and the line is
 * declined before anything is changed: it is then built and read as a
 * tree.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-claude-code-reader-private.h"

/* What the walk finds of a line: slots of the line's values, and a row of
 * each content block and of each item of the result's new list. */
enum { LINE_TYPE, LINE_SIDECHAIN, LINE_MESSAGE, LINE_CONTENT, LINE_RESULT, LINE_SUCCESS, LINE_TODOS, N_LINE_SLOTS };
enum { BLOCK_ELEMENT, BLOCK_TYPE, BLOCK_NAME, BLOCK_ID, BLOCK_INPUT, BLOCK_TOOL_USE_ID, BLOCK_IS_ERROR, BLOCK_CONTENT,
       N_BLOCK_SLOTS };
enum { TABLE_BLOCKS, TABLE_TODOS, N_TABLES };

/* A line of more blocks, or a list of more items, than a table keeps is
 * read by walking its span again (rare: lines hold one block, lists tens of
 * items), so that a line of a million of them costs no memory for them. */
#define MAX_BLOCK_ROWS 64
#define MAX_TODO_ROWS  PD_IMPORT_MAX_ITEMS

/* The blocks' members, in the order of their slots (from 1). */
static const char * const span_block_names[] = {
  "type", "name", "id", "input", "tool_use_id", "is_error", "content", NULL,
};

static const PdJsonSpanPick block_pick[] = {
  { "type", BLOCK_TYPE }, { "name", BLOCK_NAME }, { "id", BLOCK_ID }, { "input", BLOCK_INPUT },
  { "tool_use_id", BLOCK_TOOL_USE_ID }, { "is_error", BLOCK_IS_ERROR }, { "content", BLOCK_CONTENT }, { NULL },
};
static const PdJsonSpanPick todo_pick[] = {
  { "content", CLAUDE_TODO_CONTENT }, { "text", CLAUDE_TODO_TEXT }, { "status", CLAUDE_TODO_STATUS },
  { "id", CLAUDE_TODO_ID }, { NULL },
};
static const PdJsonSpanPick message_pick[] = {
  { "content", LINE_CONTENT, NULL, block_pick, TABLE_BLOCKS, N_BLOCK_SLOTS }, { NULL },
};
static const PdJsonSpanPick result_pick[] = {
  { "success", LINE_SUCCESS }, { "newTodos", LINE_TODOS, NULL, todo_pick, TABLE_TODOS, N_CLAUDE_TODO_SLOTS }, { NULL },
};
static const PdJsonSpanPick line_pick[] = {
  { "type", LINE_TYPE }, { "isSidechain", LINE_SIDECHAIN }, { "message", LINE_MESSAGE, message_pick },
  { "toolUseResult", LINE_RESULT, result_pick }, { NULL },
};

struct _PdClaudeSpans
{
  PdJsonSpan      values[N_LINE_SLOTS];
  PdJsonSpanTable tables[N_TABLES];
};

PdClaudeSpans *
_pd_claude_spans_new (void)
{
  PdClaudeSpans *spans = g_new0 (PdClaudeSpans, 1);

  pd_json_span_table_init (&spans->tables[TABLE_BLOCKS], MAX_BLOCK_ROWS);
  pd_json_span_table_init (&spans->tables[TABLE_TODOS], MAX_TODO_ROWS);
  return spans;
}

void
_pd_claude_spans_free (PdClaudeSpans *spans)
{
  if (spans == NULL)
    return;
  for (guint i = 0; i < N_TABLES; i++)
    pd_json_span_table_clear (&spans->tables[i]);
  g_free (spans);
}

gboolean
_pd_claude_spans_check (PdClaudeSpans *spans,
                        const char    *line,
                        gsize          length)
{
  return pd_json_check_spans (line, length, line_pick, spans->values, spans->tables, NULL);
}

static gboolean
span_is_true (PdJsonSpan value)
{
  return pd_json_span_is_boolean (value) && value.text[0] == 't';
}

/* The content blocks one at a time: the rows the walk found, or when
 * there were more than it kept, the content's span walked again. */
typedef struct
{
  const PdClaudeSpans *spans;
  guint                index;
  gsize                cursor;
  PdJsonSpan           row[N_BLOCK_SLOTS];
} Blocks;

static void
blocks_init (Blocks              *blocks,
             const PdClaudeSpans *spans)
{
  blocks->spans = spans;
  blocks->index = 0;
  blocks->cursor = 0;
}

static const PdJsonSpan *
blocks_next (Blocks *blocks)
{
  const PdJsonSpanTable *table = &blocks->spans->tables[TABLE_BLOCKS];

  if (table->cut)
    {
      if (!pd_json_span_next_members (blocks->spans->values[LINE_CONTENT], &blocks->cursor, span_block_names,
                                      blocks->row + 1, &blocks->row[BLOCK_ELEMENT]))
        return NULL;
      return blocks->row;
    }
  if ((gsize) (blocks->index + 1) * N_BLOCK_SLOTS > table->rows->len)
    return NULL;
  return &g_array_index (table->rows, PdJsonSpan, (gsize) blocks->index++ * N_BLOCK_SLOTS);
}

/* The plan tool a content block calls (N_TOOLS: none). */
static Tool
span_block_tool (const PdJsonSpan *block)
{
  if (!pd_json_span_string_equal (block[BLOCK_TYPE], "tool_use")
      || !pd_json_span_is_string (block[BLOCK_NAME]) || !pd_json_span_is_string (block[BLOCK_ID]))
    return N_TOOLS;
  for (guint t = 0; t < N_TOOLS; t++)
    if (pd_json_span_string_equal (block[BLOCK_NAME], _pd_claude_tool_names[t]))
      return (Tool) t;
  return N_TOOLS;
}

/* handle_assistant(): a call's input is kept as its text, built only when
 * its result needs it. */
static void
span_handle_assistant (PdClaudeCodeReader  *self,
                       const PdClaudeSpans *spans,
                       gboolean             from_subagent,
                       gint64               time)
{
  const PdJsonSpan *block;
  Blocks blocks;

  /* The message's content blocks, when it is an object with an array. */
  if (!pd_json_span_is_array (spans->values[LINE_CONTENT]))
    return;

  blocks_init (&blocks, spans);
  while ((block = blocks_next (&blocks)))
    {
      g_autofree char *id = NULL;
      Tool t;

      if ((t = span_block_tool (block)) == N_TOOLS)
        continue;
      /* A subagent's TodoWrite list, plan and desktop plan are its own;
       * only the task list is shared. */
      if (from_subagent && t != TOOL_TASK_CREATE && t != TOOL_TASK_UPDATE && t != TOOL_TASK_LIST)
        continue;
      if (t == TOOL_CCD_UPDATE_PLAN || t == TOOL_CCD_WRAP_UP)
        pd_imported_session_set_source (self->session, PD_IMPORT_SOURCE_CLAUDE_DESKTOP);
      id = pd_json_span_dup_string (block[BLOCK_ID]);
      _pd_claude_add_request (self, id, t, NULL, block[BLOCK_INPUT].length > 0 ? &block[BLOCK_INPUT] : NULL,
                              from_subagent, time);
    }
}

/* handle_user(): a TodoWrite's result read in place; another tool's gets
 * the trees handle_user() gives it (its result text, the toolUseResult),
 * built from their spans alone. */
static void
span_handle_user (PdClaudeCodeReader  *self,
                  const PdClaudeSpans *spans)
{
  const PdJsonSpan *values = spans->values;
  const PdJsonSpan *block;
  const PdJsonSpan *result;
  guint n_results = 0;
  Blocks blocks;

  /* The message's content blocks, when it is an object with an array. */
  if (!pd_json_span_is_array (values[LINE_CONTENT]))
    return;

  blocks_init (&blocks, spans);
  while ((block = blocks_next (&blocks)))
    if (pd_json_span_string_equal (block[BLOCK_TYPE], "tool_result"))
      n_results++;

  /* One toolUseResult for several results cannot be told apart. */
  result = n_results == 1 && values[LINE_RESULT].length > 0 ? &values[LINE_RESULT] : NULL;

  blocks_init (&blocks, spans);
  while ((block = blocks_next (&blocks)))
    {
      g_autofree char *id = NULL;
      Request *request;

      if (!pd_json_span_string_equal (block[BLOCK_TYPE], "tool_result")
          || !(id = pd_json_span_dup_string (block[BLOCK_TOOL_USE_ID]))
          || !(request = _pd_claude_take_request (self, id)))
        continue;

      if (request->tool == TOOL_TODO_WRITE)
        {
          /* The result's members, none without one. */
          PdJsonSpan none = { NULL, 0 };
          const PdJsonSpanTable *todos = &spans->tables[TABLE_TODOS];

          _pd_claude_handle_todo_write_span (self, request, span_is_true (block[BLOCK_IS_ERROR]), result,
                                             result ? values[LINE_SUCCESS] : none,
                                             result ? values[LINE_TODOS] : none,
                                             result && !todos->cut ? todos->rows : NULL);
        }
      else
        {
          g_autoptr(JsonNode) content_node = pd_json_span_to_node (block[BLOCK_CONTENT], NULL);
          g_autoptr(JsonNode) result_node = result ? pd_json_span_to_node (*result, _pd_claude_tool_use_result_pick) : NULL;
          g_autofree char *text = _pd_import_result_text (content_node);

          _pd_claude_handle_result (self, request, span_is_true (block[BLOCK_IS_ERROR]), text, result_node);
        }
      _pd_claude_request_free (request);
    }
}

/* handle_line() on a line _pd_claude_spans_check() took, from what it
 * found; FALSE when declined (nothing changed). */
gboolean
_pd_claude_span_handle_line (PdClaudeCodeReader  *self,
                             gboolean             is_main,
                             const PdClaudeSpans *spans,
                             gint64               time)
{
  const PdJsonSpan *values = spans->values;

  if (!pd_json_span_is_string (values[LINE_TYPE]))
    return TRUE;
  if (pd_json_span_string_equal (values[LINE_TYPE], "assistant"))
    span_handle_assistant (self, spans, !is_main || span_is_true (values[LINE_SIDECHAIN]), time);
  else if (pd_json_span_string_equal (values[LINE_TYPE], "user"))
    span_handle_user (self, spans);
  else if (pd_json_span_string_equal (values[LINE_TYPE], "attachment"))
    return FALSE;  /* task reminders: as a tree */
  return TRUE;
}
