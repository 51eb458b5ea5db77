/* pd-transcript-reader.h: PdTranscriptReader, what every reader of another
 * agent's transcripts is.
 *
 * One implementation per agent format, each a file pair of its own:
 * PdClaudeCodeReader (Claude Code and the Claude desktop app), PdCodexReader
 * (Codex CLI rollouts), PdOpenCodeReader (one OpenCode session, from its
 * storage tree or opencode.db).  A reader is made for one session and keeps
 * what it read, so pd_transcript_reader_update() again reads only what the
 * agent appended since (where the format allows it).  Readers never write
 * what they read.
 *
 * pd_transcript_reader_read_pages() reads a session whole, for its pages:
 * the conversation, every version of the plan, the plan documents and the
 * events (pd-transcript-pages.h).  pd_transcript_reader_dup_resume_argv()
 * says how to continue the session in its own agent.
 *
 * pd_transcript_reader_new_for_format() makes the reader for a format name
 * as the import index stores it ("claude", "codex", "opencode-db",
 * "opencode-storage", "qwen", "gemini", "gemini-json", "cline"): a new agent is a
 * new reader file pair and one row in its table.
 *
 * Every call blocks: run readers in a worker thread.  A reader is used by
 * one thread at a time.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "pd-imported-session.h"
#include "pd-transcript-pages.h"

G_BEGIN_DECLS

#define PD_TYPE_TRANSCRIPT_READER (pd_transcript_reader_get_type ())

G_DECLARE_INTERFACE (PdTranscriptReader, pd_transcript_reader, PD, TRANSCRIPT_READER, GObject)

/* What an import stored of a session it read up to @offset, for a reader
 * in a later process to read on from there (pd_transcript_reader_resume_at()):
 * the facts and counts are taken as read. */
typedef struct
{
  goffset        offset;
  const char    *title;
  const char    *cwd;
  gint64         created_at;
  gint64         updated_at;
  PdImportStats  counts;    /* lines, skipped_lines, applied_updates, ignored_updates */
} PdImportResume;

struct _PdTranscriptReaderInterface
{
  GTypeInterface parent_iface;

  /* The format's name, as pd_transcript_reader_new_for_format() takes it. */
  const char        *(*get_format)   (PdTranscriptReader  *self);
  /* Optional: readers of JSON lines cap the length of a line. */
  void               (*set_max_line) (PdTranscriptReader  *self,
                                      gsize                max_line);
  /* Optional: follow mode leaves an unterminated last line for later. */
  void               (*set_follow)   (PdTranscriptReader  *self,
                                      gboolean             follow);
  gboolean           (*update)       (PdTranscriptReader  *self,
                                      GCancellable        *cancellable,
                                      GError             **error);
  PdImportedSession *(*get_session)  (PdTranscriptReader  *self);
  /* Optional: where the next update starts (0 for formats read whole). */
  goffset            (*get_offset)   (PdTranscriptReader  *self);
  /* Optional: the files beside the transcript the last update passed over
   * (subagent files it could not open), element-type PdImportSkip. */
  GPtrArray         *(*get_skipped)  (PdTranscriptReader  *self);
  /* Pages to fill while the next update reads (NULL: none).  With pages a
   * reader reads every record, from the start, never only a file's end. */
  void               (*set_pages)    (PdTranscriptReader  *self,
                                      PdTranscriptPages   *pages);
  /* The agent's own command that continues the session, once read; NULL
   * when there is none. */
  GStrv              (*dup_resume_argv) (PdTranscriptReader *self);
  /* Optional, for formats only ever appended to: before the first update,
   * read on from what an earlier import stored. */
  void               (*resume_at)    (PdTranscriptReader   *self,
                                      const PdImportResume *resume);
  /* Optional: where a later import may read on from (get_offset when
   * unset). */
  goffset            (*get_resume_offset) (PdTranscriptReader *self);
  /* Optional: whether the last update of a resumed reader had to read the
   * whole file again (FALSE when unset). */
  gboolean           (*get_resumed_whole) (PdTranscriptReader *self);
  /* Optional, for formats whose lines stand on their own: before the first
   * update, read only the lines from @from (a line's start) up to the
   * first that starts at or after @stop, nothing before them (no head, no
   * tail search): a part of a long transcript's timeline. */
  void               (*set_range)    (PdTranscriptReader  *self,
                                      goffset              from,
                                      goffset              stop);
};

const char        *pd_transcript_reader_get_format   (PdTranscriptReader  *self);
void               pd_transcript_reader_set_max_line (PdTranscriptReader  *self,
                                                      gsize                max_line);
void               pd_transcript_reader_set_follow   (PdTranscriptReader  *self,
                                                      gboolean             follow);
/* Reads what was appended since the last update (everything, the first
 * time) and replays it into the session's checklist and plan documents. */
gboolean           pd_transcript_reader_update       (PdTranscriptReader  *self,
                                                      GCancellable        *cancellable,
                                                      GError             **error);
PdImportedSession *pd_transcript_reader_get_session  (PdTranscriptReader  *self);
goffset            pd_transcript_reader_get_offset   (PdTranscriptReader  *self);
/* (transfer none) (nullable): NULL when the format has nothing beside the
 * transcript to pass over. */
GPtrArray         *pd_transcript_reader_get_skipped  (PdTranscriptReader  *self);

/* Whether the readers of @format read on from an earlier import's offset
 * (pd_transcript_reader_resume_at()): formats only ever appended to. */
gboolean           pd_transcript_reader_format_resumes  (const char           *format);
/* Before the first update, on a reader of a format that resumes: reads on
 * from @resume->offset with the facts stored then, not the whole file. */
void               pd_transcript_reader_resume_at       (PdTranscriptReader   *self,
                                                         const PdImportResume *resume);
/* After an update: where a later import may read on from (0: from the
 * start), which may lie before the offset read to (a call whose result
 * is still to come). */
goffset            pd_transcript_reader_get_resume_offset (PdTranscriptReader *self);
/* After an update of a resumed reader: whether it read the whole file
 * again (what followed the offset reached back before it); its counts are
 * then its own. */
gboolean           pd_transcript_reader_get_resumed_whole (PdTranscriptReader *self);

/* Reads the session whole for its pages.  On a reader not yet updated (it
 * reads from the start): its session is then the replay of the whole
 * transcript, and the pages' versions are that replay's updates. */
PdTranscriptPages *pd_transcript_reader_read_pages   (PdTranscriptReader  *self,
                                                      GCancellable        *cancellable,
                                                      GError             **error);
/* The same for the History: the plan versions only, the newest kept
 * (PD_TRANSCRIPT_PAGES_HISTORY_MAX); nothing else of the transcript held. */
PdTranscriptPages *pd_transcript_reader_read_history (PdTranscriptReader  *self,
                                                      GCancellable        *cancellable,
                                                      GError             **error);
/* The same for the Events: the timeline only, no message or call's text. */
PdTranscriptPages *pd_transcript_reader_read_events  (PdTranscriptReader  *self,
                                                      GCancellable        *cancellable,
                                                      GError             **error);
/* The same into @pages (transfer full), made by one of the private
 * constructors (pd-transcript-pages-private.h): a part, a stream. */
PdTranscriptPages *_pd_transcript_reader_read_into   (PdTranscriptReader  *self,
                                                      PdTranscriptPages   *pages,
                                                      GCancellable        *cancellable,
                                                      GError             **error);
/* Whether @self reads a byte range of its file (set_range): FALSE for
 * formats read whole or whose lines reach back. */
/* The bytes a whole read reads (0: not known): the pages it builds keep
 * what their items cost within a share of them (pd-transcript-pages-budget.c). */
void               _pd_transcript_reader_set_source_bytes (PdTranscriptReader *self,
                                                           guint64             bytes);
gboolean           _pd_transcript_reader_can_read_range (PdTranscriptReader *self);
/* Before the first update: only the lines from @from up to @stop. */
void               _pd_transcript_reader_set_range   (PdTranscriptReader  *self,
                                                      goffset              from,
                                                      goffset              stop);
/* After an update: the command line that continues the session in its own
 * agent (claude --resume ID, codex resume ID, opencode --session ID), to
 * run in *@workdir (the session's folder, NULL when unknown).  NULL when
 * the session's id is unknown or not a plain id (never anything a shell or
 * the agent could take for an option or a second word). */
GStrv              pd_transcript_reader_dup_resume_argv (PdTranscriptReader  *self,
                                                         char               **workdir);

/* The reader for @format at @path; @agent_id names the session in stores
 * that hold many (OpenCode), and is ignored otherwise.  NULL, with an
 * error, for a format no reader knows. */
PdTranscriptReader *pd_transcript_reader_new_for_format (const char  *format,
                                                         const char  *path,
                                                         const char  *agent_id,
                                                         GError     **error);

G_END_DECLS
