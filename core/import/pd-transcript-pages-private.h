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
/* The History's pages: the plan versions only (no message, call or
 * event), the newest PD_TRANSCRIPT_PAGES_HISTORY_MAX of them kept. */
PdTranscriptPages *_pd_transcript_pages_new_history     (void);
/* The Events' pages: the timeline only (no message, no call's text). */
PdTranscriptPages *_pd_transcript_pages_new_events      (void);
/* A part of a long transcript's timeline (a byte range of its lines,
 * pd-session-reads-events.c): the Events' pages, each event numbered by
 * the line it was read from, (offset << PD_TRANSCRIPT_PAGES_SEQ_SHIFT) + its
 * index among that line's events + 1 (at most 255 a line), so a part read later numbers it the same
 * and the next part starts at a line; in the order read, not sorted; a
 * plan version's number is not known there (plan_updated, no "version"). */
#define PD_TRANSCRIPT_PAGES_SEQ_SHIFT 8
PdTranscriptPages *_pd_transcript_pages_new_events_by_offset (void);
/* Where the line the reader is about to hand on starts (pages numbered by
 * offset; ignored by others). */
void               _pd_transcript_pages_set_line        (PdTranscriptPages *self,
                                                         goffset            offset);
/* Of sealed pages numbered by offset: the events read from lines at or
 * after @floor, numbered after @after_seq and before @before_seq (<= 0: no
 * bound), of @types only when not %NULL, oldest first.
 * Returns: (transfer full) (element-type PdStoredEvent) */
GPtrArray         *_pd_transcript_pages_dup_events_from (PdTranscriptPages  *self,
                                                         const char         *session_id,
                                                         goffset             floor,
                                                         gint64              after_seq,
                                                         gint64              before_seq,
                                                         const char * const *types);
/* The Transcript's part of a long session: of the session's own
 * conversation @max messages from the @first (-1: the newest @max), no
 * version or event (pd_transcript_pages_get_part()). */
PdTranscriptPages *_pd_transcript_pages_new_part        (gint64             first,
                                                         guint              max);
/* Messages a stream holds before it hands the oldest on: what a subagent's
 * link or a tool's result may still reach back to. */
#define PD_TRANSCRIPT_PAGES_STREAM_LAG 64
/* What a part's messages may cost at most (pd-transcript-pages-budget.c's
 * units), beside their number: the oldest kept go first. */
#define PD_TRANSCRIPT_PAGES_PART_COST_MAX ((gsize) 16 * 1024 * 1024)
/* An export's read: every message handed to @sink once final, a bounded
 * number held at any time; the sealed pages hold none. */
PdTranscriptPages *_pd_transcript_pages_new_stream      (PdTranscriptPagesSink sink,
                                                         gpointer           user_data);
/* The same for the plan versions: each handed to @sink, none kept. */
PdTranscriptPages *_pd_transcript_pages_new_version_stream (PdChecklist                 *annotations,
                                                            PdTranscriptPagesVersionSink sink,
                                                            gpointer                     user_data);
/* How many pages this process began: a read said not to build pages (the
 * Now page, `sessions show`) is held to it by the tests. */
guint              _pd_transcript_pages_get_n_built     (void);
/* The most messages of a session's own conversation any pages held at
 * once since the last call (the tests hold a part or a stream to it). */
guint              _pd_transcript_pages_reset_peak_held (void);

/* The bytes of the transcript read into @self (0: not known): whole pages
 * keep what their items cost within PD_TRANSCRIPT_PAGES_COST_PER_BYTE / 2
 * times them (PD_TRANSCRIPT_PAGES_COST_FLOOR at least), and within
 * PD_IMPORT_SESSION_BYTES_MAX. */
#define PD_TRANSCRIPT_PAGES_COST_PER_BYTE 5
#define PD_TRANSCRIPT_PAGES_COST_FLOOR    ((gsize) 16 * 1024 * 1024)
void               _pd_transcript_pages_set_source_bytes (PdTranscriptPages *self,
                                                          gsize              bytes);
/* For tests: what whole pages' items may cost (0: the default). */
void               _pd_transcript_pages_set_budget_bytes (gsize              max);
/* For tests: the least share of a transcript's bytes (0: the default,
 * PD_TRANSCRIPT_PAGES_COST_FLOOR), so a small file is cut to its share. */
void               _pd_transcript_pages_set_cost_floor   (gsize              floor);
/* What @self's items may cost at most (what a reader keeps for them is
 * held to it too). */
gsize              _pd_transcript_pages_get_budget_max   (PdTranscriptPages *self);
/* Whether @self lets go of its messages as it reads (a part, a stream):
 * held to no budget, what a reader counted for a message handed to it is
 * given back (a part's newest are a long file's last, not those before
 * the budget was spent). */
gboolean           _pd_transcript_pages_lets_go         (PdTranscriptPages *self);
/* Whether the pages left items out past their budget, and how many with
 * how many bytes of text (pd-transcript-pages-budget.c). */
gboolean           _pd_transcript_pages_get_cut         (PdTranscriptPages *self,
                                                         guint64           *items,
                                                         gsize             *bytes);

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
/* What a page keeps of one tool call's arguments or one tool result, in
 * bytes; a longer one is cut and says so ("… (cut, N bytes)"). */
#define PD_TRANSCRIPT_PAGES_TOOL_TEXT_MAX (4 * 1024)

/* @arguments: the call's input as JSON text (or the raw text of a
 * free-form tool). */
void               _pd_transcript_pages_add_tool_call   (PdTranscriptPages *self,
                                                         const char        *conversation,
                                                         const char        *call_id,
                                                         const char        *name,
                                                         const char        *arguments,
                                                         const char        *group,
                                                         gint64             time);
/* The same, with @arguments the head of a longer text: @left_out bytes of
 * it were never read into memory (see _pd_transcript_pages_head_of_span()). */
void               _pd_transcript_pages_add_tool_call_head (PdTranscriptPages *self,
                                                            const char        *conversation,
                                                            const char        *call_id,
                                                            const char        *name,
                                                            const char        *arguments,
                                                            gsize              left_out,
                                                            const char        *group,
                                                            gint64             time);
/* The first @max bytes or so of a text (whole characters: a JSON value's
 * text in a checked record), for a page; *@left_out says how many bytes
 * follow.  So a plan call of a million items is never built whole for a
 * page. */
char              *_pd_transcript_pages_head_of_span    (const char        *text,
                                                         gsize              length,
                                                         gsize              max,
                                                         gsize             *left_out);
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

/* The state JSON of our plan history (pd_plan_state_to_json()'s shape) for
 * @list as version @version, the agent's statuses with the user's marks
 * beside; with @as_shown the statuses the checklist shows (overrides
 * applied) and the user's own items after. */
char              *_pd_transcript_pages_state_json      (PdChecklist       *list,
                                                         gint64             version,
                                                         gboolean           as_shown);

/* A followed transcript's pages: @self (whole pages, the History's or the
 * Events', never sealed) is filled on by later updates of the same reader,
 * which read only what the agent appended; each snapshot is sealed pages of
 * what it holds now, the versions shared with @self, nothing read again. */
PdTranscriptPages *_pd_transcript_pages_snapshot        (PdTranscriptPages *self,
                                                         PdImportedSession *session,
                                                         GStrv              resume_argv,
                                                         const char        *workdir);

/* Which followed pages these are (0: pages read whole, never followed):
 * snapshots of one lineage hold the same messages up to where the older
 * one ends, but for its newest (PD_TRANSCRIPT_PAGES_STREAM_LAG) which may
 * still change. */
guint64            _pd_transcript_pages_get_lineage     (PdTranscriptPages *self);
/* The session's own conversation from message @from on (all for 0). */
JsonArray         *_pd_transcript_pages_dup_messages_from (PdTranscriptPages *self,
                                                           guint              from);
/* Of all the pages' messages (the conversation, then the subagents'
 * whose call is unknown), @max at most from message @from on: only
 * those parsed. */
JsonArray         *_pd_transcript_pages_dup_messages_range (PdTranscriptPages *self,
                                                            guint              from,
                                                            guint              max);

/* About how many bytes the sealed pages hold, for caches to budget. */
gsize              _pd_transcript_pages_get_size        (PdTranscriptPages *self);

/* Seals the pages: the plan documents of @session, how to continue it. */
void               _pd_transcript_pages_finish          (PdTranscriptPages *self,
                                                         PdImportedSession *session,
                                                         GStrv              resume_argv,
                                                         const char        *workdir);

G_END_DECLS
