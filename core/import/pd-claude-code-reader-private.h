/* pd-claude-code-reader-private.h: between the Claude Code reader's parts:
 * the reader (lines, long transcripts), its plan lines read in place
 * (pd-claude-code-spans.c), its conversation for the pages
 * (pd-claude-code-pages.c) and its plan (pd-claude-code-plan.c: what the
 * plan tools' results do to the checklist).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-claude-code-reader.h"
#include "pd-import-private.h"
#include "pd-jsonl-reader.h"
#include "pd-pending-calls.h"

G_BEGIN_DECLS

typedef enum
{
  TOOL_TODO_WRITE,
  TOOL_TASK_CREATE,
  TOOL_TASK_UPDATE,
  TOOL_TASK_LIST,
  TOOL_EXIT_PLAN_MODE,
  TOOL_CCD_UPDATE_PLAN,
  TOOL_CCD_WRAP_UP,
  N_TOOLS
} Tool;

typedef struct
{
  char     *id;
  Tool      tool;
  JsonNode *input;
  char     *input_text;  /* a TodoWrite call read in place: its input's text, built only if needed */
  gboolean  from_subagent;
  gint64    time;
  gsize     bytes;       /* of input, taken from *budget (nullable) */
  PdImportBudget *budget;
} Request;

typedef struct
{
  char              *id;
  char              *subject;
  PdChecklistStatus  status;
} Task;

struct _PdClaudeCodeReader
{
  GObject            parent_instance;

  char              *path;
  char              *subagent_dir;
  gsize              max_line;
  gboolean           follow;
  PdImportedSession *session;
  GPtrArray         *streams;      /* Stream */
  PdPendingCalls    *requests;     /* Request, by id */
  GPtrArray         *tasks;        /* Task, creation order */
  guint              tasks_hidden; /* tasks past PD_IMPORT_MAX_TASKS: counted, not kept */
  gboolean           have_meta;
  gboolean           have_title;
  guint              user_lines;
  gboolean           cancelled;
  guint              full_lists;   /* full lists and task snapshots applied */
  gboolean           tail_done;    /* past the first read: no tail read again */
  GPtrArray         *skipped;      /* PdImportSkip: subagent files the last update could not open */
  gint64             now;          /* the time of the line being replayed */
  /* Reading for the pages: every line, and the conversations. */
  PdTranscriptPages *pages;
  GHashTable        *sidechains;   /* uuid → the root uuid of its inline subagent */
  PdJsonlReader     *opened;       /* (nullable) the main file, opened by the look that knew it */
  /* What the pending requests' inputs hold (up to PD_IMPORT_MAX_PENDING
   * of them): set up by the first request kept. */
  PdImportBudget     budget;
};

/* @opened (taken): the main file, open at its start, as the look that
 * recognised it left it (_pd_import_sniff_jsonl_open()); the first update
 * reads it instead of opening the file again. */
void           _pd_claude_code_reader_take_opened (PdClaudeCodeReader *self,
                                                   PdJsonlReader      *opened);

/* The plan tools' names, by Tool. */
extern const char * const _pd_claude_tool_names[N_TOOLS];

/* A plan tool's call waiting for its result, by its id: with its input as
 * a tree, or (@input_span) as its text. */
void           _pd_claude_add_request         (PdClaudeCodeReader *self,
                                               const char         *id,
                                               Tool                tool,
                                               JsonNode           *input,
                                               const PdJsonSpan   *input_span,
                                               gboolean            from_subagent,
                                               gint64              time);
Request       *_pd_claude_take_request        (PdClaudeCodeReader *self,
                                               const char         *id);
void           _pd_claude_request_free        (Request            *request);

/* A plan line checked and its members found in one walk
 * (pd-claude-code-spans.c), valid while the line's text is. */
typedef struct _PdClaudeSpans PdClaudeSpans;

/* The row of a TodoWrite result's item: the element, its text members
 * ("content", "text"), its status and its id. */
enum { CLAUDE_TODO_ELEMENT, CLAUDE_TODO_CONTENT, CLAUDE_TODO_TEXT, CLAUDE_TODO_STATUS, CLAUDE_TODO_ID,
       N_CLAUDE_TODO_SLOTS };

PdClaudeSpans *_pd_claude_spans_new           (void);
void           _pd_claude_spans_free          (PdClaudeSpans      *spans);
/* FALSE when @line is refused (as pd_json_check_foreign() refuses). */
gboolean       _pd_claude_spans_check         (PdClaudeSpans      *spans,
                                               const char         *line,
                                               gsize               length);
/* A checked plan line of a transcript (the main one: @is_main) read in
 * place from its spans; FALSE when it is declined, nothing changed, to be
 * read as a tree. */
gboolean       _pd_claude_span_handle_line    (PdClaudeCodeReader  *self,
                                               gboolean             is_main,
                                               const PdClaudeSpans *spans,
                                               gint64               time);
/* A line of the transcript at @path, whole, into the pages'
 * conversations (pd-claude-code-pages.c). */
void           _pd_claude_conversation_line   (PdClaudeCodeReader *self,
                                               gboolean            is_main,
                                               const char         *path,
                                               JsonObject         *line,
                                               gint64              time);
/* Where a line of @length bytes of it was left unread: @too_long, longer
 * than the reader takes; otherwise refused for too many values. */
void           _pd_claude_conversation_unread (PdClaudeCodeReader *self,
                                               gboolean            is_main,
                                               const char         *path,
                                               gboolean            too_long,
                                               gsize               length,
                                               gint64              time);

void           _pd_claude_task_free           (Task               *task);
PdImportStats *_pd_claude_stats               (PdClaudeCodeReader *self);
PdChecklist   *_pd_claude_checklist           (PdClaudeCodeReader *self);
/* One update of the plan applied, as of the line being replayed. */
void           _pd_claude_applied             (PdClaudeCodeReader *self);
gboolean       _pd_claude_apply_task_snapshot (PdClaudeCodeReader *self,
                                               JsonArray          *array);
void           _pd_claude_handle_result       (PdClaudeCodeReader *self,
                                               Request            *request,
                                               gboolean            is_error,
                                               const char         *text,
                                               JsonNode           *result);
/* _pd_claude_handle_result() for a TodoWrite result read in place:
 * @result the line's toolUseResult, NULL when there is none (or it is
 * ambiguous), @success and @todos its members (length 0: none), and
 * @todo_rows (nullable: walk @todos) the rows of its items. */
void           _pd_claude_handle_todo_write_span (PdClaudeCodeReader *self,
                                                  Request            *request,
                                                  gboolean            is_error,
                                                  const PdJsonSpan   *result,
                                                  PdJsonSpan          success,
                                                  PdJsonSpan          todos,
                                                  GArray             *todo_rows);

/* What the replay reads of a plan tool's input and of a toolUseResult. */
extern const PdJsonPick _pd_claude_input_pick[];
extern const PdJsonPick _pd_claude_tool_use_result_pick[];

/* The call's input object (NULL: none, or not an object); built from its
 * text the first time when the call was read in place. */
JsonObject    *_pd_claude_request_input       (Request            *request);
/* A pending request's @input (nullable), kept as a tree when the reader's
 * budget has room for it, else as its text (parsed, picked, when its
 * result comes); and let go. */
void           _pd_claude_request_keep_input  (PdClaudeCodeReader *self,
                                               Request            *request,
                                               JsonNode           *input);
void           _pd_claude_request_drop_input  (Request            *request);

/* pd-claude-code-meta.c: the session's facts (folder, id, source, title)
 * from a line's tree, or from a line read in place (FALSE: the check
 * refuses it, as the picked parse would). */
void           _pd_claude_note_meta           (PdClaudeCodeReader *self,
                                               JsonObject         *line);
gboolean       _pd_claude_note_meta_in_place  (PdClaudeCodeReader *self,
                                               const char         *line,
                                               gsize               length);

G_END_DECLS
