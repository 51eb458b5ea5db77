/* pd-transcript-pages-private.h: how readers build a PdTranscriptPages.
 *
 * A reader reading with pages calls these as it meets each record, in time
 * order, then pd_transcript_reader_read_pages() finishes the pages.  A
 * conversation is named by a key: NULL for the session's own, anything
 * else (a subagent's id, a file) for a subagent's.  @group (nullable) joins
 * the blocks of one model answer that an agent writes as several records
 * (Claude Code writes one line per content block of a message).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-imported-session.h"
#include "pd-transcript-pages.h"

G_BEGIN_DECLS

PdTranscriptPages *_pd_transcript_pages_new             (void);

/* @role: "user", "assistant" or "system" (context the harness wrote). */
void               _pd_transcript_pages_add_text        (PdTranscriptPages *self,
                                                         const char        *conversation,
                                                         const char        *role,
                                                         const char        *text,
                                                         const char        *group,
                                                         gint64             time);
void               _pd_transcript_pages_add_thinking    (PdTranscriptPages *self,
                                                         const char        *conversation,
                                                         const char        *text,
                                                         const char        *group,
                                                         gint64             time);
/* @arguments: the call's input as JSON text (or the raw text of a
 * free-form tool). */
void               _pd_transcript_pages_add_tool_call   (PdTranscriptPages *self,
                                                         const char        *conversation,
                                                         const char        *call_id,
                                                         const char        *name,
                                                         const char        *arguments,
                                                         const char        *group,
                                                         gint64             time);
void               _pd_transcript_pages_add_tool_result (PdTranscriptPages *self,
                                                         const char        *conversation,
                                                         const char        *call_id,
                                                         const char        *text,
                                                         gboolean           is_error,
                                                         gint64             time);

/* A call that starts a subagent: its conversation is @conversation (when
 * known), else the one whose first prompt is @prompt (when given). */
void               _pd_transcript_pages_set_subagent    (PdTranscriptPages *self,
                                                         const char        *call_id,
                                                         const char        *conversation,
                                                         const char        *prompt,
                                                         const char        *agent_type,
                                                         const char        *description);

/* The checklist after a plan update the replay applied: one version. */
void               _pd_transcript_pages_add_version     (PdTranscriptPages *self,
                                                         PdChecklist       *checklist,
                                                         gint64             time);

/* About how many bytes the sealed pages hold, for caches to budget. */
gsize              _pd_transcript_pages_get_size        (PdTranscriptPages *self);

/* Seals the pages: the plan documents of @session, how to continue it. */
void               _pd_transcript_pages_finish          (PdTranscriptPages *self,
                                                         PdImportedSession *session,
                                                         GStrv              resume_argv,
                                                         const char        *workdir);

G_END_DECLS
