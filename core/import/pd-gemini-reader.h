/* pd-gemini-reader.h: Gemini CLI sessions.
 *
 * Gemini CLI keeps a project's sessions in ~/.gemini/tmp/<project>/chats/,
 * the project's folder named in <project>/.project_root.  Two formats:
 *
 *  - JSON lines (v0.39 and later), session-<time>-<hex>.jsonl: a header line
 *    {sessionId, projectHash, startTime, lastUpdated, kind}, then messages
 *    {id, timestamp, type, content, toolCalls}, replayed by three rules: a
 *    message written again with the same id replaces the earlier one,
 *    {"$set": {...}} updates the metadata (summary: the title), and
 *    {"$rewindTo": id} drops every message after that one.  Appended lines
 *    are read alone; the replay is recomputed from the messages kept.  A new
 *    process reads on from where the last import ended (the transcript
 *    reader's resume_at).
 *  - One JSON document per session (before v0.39), session-*.json, with the
 *    same messages in "messages", rewritten whole: each update reads it
 *    whole again (a document caught half-written keeps what was read).
 *
 * The plan tool, write_todos (write_todos_list up to v0.8), sends the full
 * list as {todos: [{description, status}]}, without ids: items are matched
 * by their text (the checklist's keys are).  A call counts unless its status
 * says it failed or was cancelled.  No tail read: a rewind or a replaced
 * message can reach any line before the end, so a long session is read
 * whole.  Resume: gemini --resume ID, in the project's folder.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "pd-imported-session.h"
#include "pd-transcript-reader.h"

G_BEGIN_DECLS

#define PD_TYPE_GEMINI_READER (pd_gemini_reader_get_type ())
G_DECLARE_FINAL_TYPE (PdGeminiReader, pd_gemini_reader, PD, GEMINI_READER, GObject)

/* @document: the older one-JSON-file format, else JSON lines. */
PdGeminiReader    *pd_gemini_reader_new  (const char  *path,
                                          gboolean     document);

/* Reads one session file once (the format from its name: .json or not). */
PdImportedSession *pd_gemini_read        (const char  *path,
                                          GError     **error);

G_END_DECLS
