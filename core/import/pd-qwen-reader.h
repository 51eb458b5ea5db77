/* pd-qwen-reader.h: Qwen Code sessions.
 *
 * Qwen Code records a session as append-only JSON lines in
 * ~/.qwen/projects/<folder as a slug>/chats/<session id>.jsonl: one record
 * a line ({uuid, parentUuid, sessionId, timestamp, type, cwd, message:
 * {role, parts}}), the model's calls as Gemini-style functionCall parts and
 * their answers as tool_result records.  The plan tool, todo_write, always
 * sends the full list ({todos: [{id, content, status}]}); a call counts once
 * its tool_result says it did not fail, as Codex's update_plan does.
 *
 * Qwen also keeps the latest list of a session in ~/.qwen/todos/<id>.json.
 * The reader never takes the plan from there (it has no history and no
 * times), but compares it with what the replay ended on: a check that
 * pd_qwen_reader_get_side_check() reports.
 *
 * A PdTranscriptReader: updates read only what was appended, follow mode
 * leaves a torn last line for later, and a first read of a file over the
 * tail threshold starts from the newest confirmed list (seed 001, "Long
 * transcripts").  Resume: qwen --resume ID.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "pd-imported-session.h"
#include "pd-transcript-reader.h"

G_BEGIN_DECLS

typedef enum
{
  PD_QWEN_SIDE_CHECK_NONE,     /* no side file (or not readable as a list) */
  PD_QWEN_SIDE_CHECK_AGREES,   /* the side file holds the replay's last list */
  PD_QWEN_SIDE_CHECK_DIFFERS,  /* it holds another: the replay missed an update */
} PdQwenSideCheck;

#define PD_TYPE_QWEN_READER (pd_qwen_reader_get_type ())
G_DECLARE_FINAL_TYPE (PdQwenReader, pd_qwen_reader, PD, QWEN_READER, GObject)

PdQwenReader      *pd_qwen_reader_new            (const char    *path);
/* Where the side files are (NULL: <the .qwen folder of the path>/todos). */
void               pd_qwen_reader_set_todos_dir  (PdQwenReader  *self,
                                                  const char    *dir);
/* After an update: how the side file compares with the replay. */
PdQwenSideCheck    pd_qwen_reader_get_side_check (PdQwenReader  *self);

/* Reads one session file once. */
PdImportedSession *pd_qwen_read                  (const char    *path,
                                                  GError       **error);

G_END_DECLS
