/* pd-claude-code-reader.h: Claude Code (and Claude desktop) transcripts.
 *
 * Reads ~/.claude/projects/<slug>/<session>.jsonl together with the
 * subagent transcripts beside it (the .jsonl files in <session>/subagents/, found by
 * itself; flat agent-*.jsonl of older versions, added by the caller), merged
 * by timestamp, and replays the plan tools into a PdImportedSession:
 * TodoWrite, TaskCreate/TaskUpdate/TaskList and task reminders, ExitPlanMode,
 * and the desktop app's mcp__ccd_turn__update_plan and wrap_up.
 *
 * A PdTranscriptReader: it keeps its state, so pd_transcript_reader_update()
 * again reads only what was appended since (and new subagent files), and a
 * running session can be followed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "pd-imported-session.h"
#include "pd-transcript-reader.h"

G_BEGIN_DECLS

#define PD_TYPE_CLAUDE_CODE_READER (pd_claude_code_reader_get_type ())
G_DECLARE_FINAL_TYPE (PdClaudeCodeReader, pd_claude_code_reader, PD, CLAUDE_CODE_READER, GObject)

PdClaudeCodeReader *pd_claude_code_reader_new          (const char          *path);
/* A subagent transcript sharing this session's task list (v2.0 flat
 * agent-*.jsonl files; <session>/subagents/ is found without this). */
void                pd_claude_code_reader_add_subagent (PdClaudeCodeReader  *self,
                                                        const char          *path);
/* Adds those of @candidates (paths; NULL: the agent-*.jsonl files beside
 * the transcript) that are Claude transcripts naming this session as
 * theirs: v2.0's flat subagent files. */
void                pd_claude_code_reader_add_flat_subagents (PdClaudeCodeReader *self,
                                                              GPtrArray          *candidates);

/* Reads one transcript (and its subagents) once. */
PdImportedSession  *pd_claude_code_read                (const char          *path,
                                                        GError             **error);

G_END_DECLS
