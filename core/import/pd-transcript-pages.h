/* pd-transcript-pages.h: what the pages of an imported session show.
 *
 * A session of another agent (Claude Code, Codex, OpenCode, Qwen Code, …) fills every
 * page Plandeck has for its own, read from the agent's transcript, which is
 * never changed:
 *
 *  - Transcript: the conversation as OpenAI-shaped messages, the shape of
 *    our own transcripts ({role, content, tool_calls, tool_call_id, name}),
 *    with "time" (RFC 3339) on each; a tool call that started a subagent
 *    (Claude's Task) carries that subagent's conversation under
 *    "subagent": {agent_id, agent_type, description, messages}; text cut to
 *    its bound says how much in "content_cut" / "arguments_cut" (bytes).
 *  - History: every update of the agent's list that the replay applied is a
 *    version, in the state JSON of our own plan history (version, steps with
 *    id, title, status), so the same diff code (pd_plan_diff_new()) shows
 *    what changed.  Steps also carry "agent_status" (the agent's own word:
 *    pending, in_progress, completed, cancelled) and "user_checked" where the
 *    user's override applies; the plan documents (ExitPlanMode, Codex's
 *    proposed plans) come with them.
 *  - Events: the agent's tool calls and plan updates as a timeline, in our
 *    event envelope (tool_call_started / _completed / _failed,
 *    subagent_spawned / _completed, plan_created / plan_updated with counts
 *    and version only).
 *  - How to continue the session in its own agent (argv and folder).
 *
 * Built in one pass by pd_transcript_reader_read_pages(), then immutable:
 * one object may serve many threads, and every getter returns a copy of its
 * own.  Held in memory only: plan text of imported sessions is never
 * written to the database (seed 001).  Long texts are cut (a tool's output
 * to 4 KiB, a message to 64 KiB), so a transcript of many MB costs little
 * memory once read.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "pd-checklist.h"
#include "pd-plan-state.h"
#include "pd-session-info.h"

G_BEGIN_DECLS

#define PD_TYPE_TRANSCRIPT_PAGES (pd_transcript_pages_get_type ())
G_DECLARE_FINAL_TYPE (PdTranscriptPages, pd_transcript_pages, PD, TRANSCRIPT_PAGES, GObject)

/* Transcript: the top-level messages (subagents' are nested in them; one
 * whose call is unknown comes after the conversation, as a message of its
 * own holding only "subagent"). */
guint        pd_transcript_pages_get_n_messages     (PdTranscriptPages *self);
JsonArray   *pd_transcript_pages_dup_messages       (PdTranscriptPages *self);
/* Of a part (pd_import_index_load_part()): the conversation's index of
 * its first message (*@first, 0 for whole pages) and how many the whole
 * conversation has (*@total: pd_transcript_pages_get_n_messages() of whole
 * pages). */
void         pd_transcript_pages_get_part           (PdTranscriptPages *self,
                                                     guint64           *first,
                                                     guint64           *total);

/* A message of the session's own conversation, final (its subagents
 * nested), handed over in order; @message is the sink's to keep. */
typedef void (*PdTranscriptPagesSink) (JsonObject *message,
                                       gpointer    user_data);
/* The conversation's messages handed to @func one at a time, in order,
 * each a tree of its own (the sink's): a whole conversation is never built
 * as one tree (pd_transcript_pages_dup_messages() builds it). */
void         pd_transcript_pages_foreach_message    (PdTranscriptPages    *self,
                                                     PdTranscriptPagesSink func,
                                                     gpointer              user_data);
/* A plan version, in order, with the annotations applied as
 * pd_transcript_pages_dup_plan_versions() applies them; the sink's. */
typedef void (*PdTranscriptPagesVersionSink) (PdPlanVersionInfo *version,
                                              gpointer           user_data);
/* History.  @annotations (nullable): the user's overrides and own items
 * (pd_import_index_load_checklist() applies them), to mark.  The History's
 * pages (pd_import_index_load_history()) keep the newest
 * PD_TRANSCRIPT_PAGES_HISTORY_MAX versions, numbered among all: a
 * transcript of 300,000 plan calls holds the plan trees of a thousand. */
#define PD_TRANSCRIPT_PAGES_HISTORY_MAX 1000
/* Every version read, kept or not. */
guint        pd_transcript_pages_get_n_versions     (PdTranscriptPages *self);
/* Returns: (transfer full) (element-type PdPlanVersionInfo) */
GPtrArray   *pd_transcript_pages_dup_plan_versions  (PdTranscriptPages *self,
                                                     PdChecklist       *annotations);
/* The plan now, as the checklist shows it: the newest version with the
 * user's overrides applied to the statuses, then the user's own items.
 * NULL when there is neither. */
PdPlanState *pd_transcript_pages_dup_plan           (PdTranscriptPages *self,
                                                     PdChecklist       *annotations);
/* The same for a checklist read without pages (a reader's, its annotations
 * applied), as version @version: the plan now of a long transcript read
 * only at its end.  NULL when it has no item and @version is 0. */
PdPlanState *pd_transcript_pages_plan_for_checklist (PdChecklist       *list,
                                                     gint64             version);
/* That plan as the checklist shows it, for an export: the state JSON with
 * each step's "origin" ("agent" or "user"), the agent's own status
 * ("agent_status") and the user's tick or untick ("user_checked") beside
 * an agent's item, an agent's cancelled item saying "cancelled".  NULL
 * when pd_transcript_pages_plan_for_checklist() gives none. */
char        *pd_transcript_pages_checklist_json     (PdChecklist       *list,
                                                     gint64             version);
/* The ids of the steps of that plan the agent cancelled (shown cancelled,
 * not overridden): the plan's words say "blocked" of them, a person reads
 * them as cancelled, out of the steps.  (transfer full) (element-type utf8) */
GHashTable  *pd_transcript_pages_cancelled_steps    (PdChecklist       *list);
/* In a version's state JSON (as stored), each step the agent cancelled and
 * the user did not tick or untick says "cancelled" as its status, as the
 * window shows it.  Returns how many. */
guint        pd_transcript_pages_state_show_cancelled (JsonNode        *state);
/* Returns: (transfer full) (element-type PdArtifactPlan) */
GPtrArray   *pd_transcript_pages_dup_plan_documents (PdTranscriptPages *self);

/* Events, numbered from 1 in time order; those after @after_seq, at most
 * @limit (0: all).  @session_id is the session's id in Plandeck.
 * Returns: (transfer full) (element-type PdStoredEvent) */
guint        pd_transcript_pages_get_n_events       (PdTranscriptPages *self);
GPtrArray   *pd_transcript_pages_dup_events         (PdTranscriptPages *self,
                                                     const char        *session_id,
                                                     gint64             after_seq,
                                                     guint              limit);
/* The newest @limit events (0: all) before number @before_seq (<= 0: the
 * newest), of @types only when not %NULL, oldest first. */
GPtrArray   *pd_transcript_pages_dup_latest_events  (PdTranscriptPages  *self,
                                                     const char         *session_id,
                                                     gint64              before_seq,
                                                     const char * const *types,
                                                     guint               limit);

/* The agent's own command that continues the session (e.g. claude --resume
 * ID), to run in pd_transcript_pages_get_workdir(); NULL when the session
 * cannot be continued (its id is unknown or not a plain id). */
GStrv        pd_transcript_pages_dup_resume_argv    (PdTranscriptPages *self);
const char  *pd_transcript_pages_get_workdir        (PdTranscriptPages *self);

G_END_DECLS
