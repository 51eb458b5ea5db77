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
 * pd_transcript_reader_new_for_format() makes the reader for a format name
 * as the import index stores it ("claude", "codex", "opencode-db",
 * "opencode-storage"): a new agent is a new reader file pair and one row in
 * its table.
 *
 * Every call blocks: run readers in a worker thread.  A reader is used by
 * one thread at a time.
 */
#pragma once

#include <gio/gio.h>

#include "pd-imported-session.h"

G_BEGIN_DECLS

#define PD_TYPE_TRANSCRIPT_READER (pd_transcript_reader_get_type ())

G_DECLARE_INTERFACE (PdTranscriptReader, pd_transcript_reader, PD, TRANSCRIPT_READER, GObject)

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

/* The reader for @format at @path; @agent_id names the session in stores
 * that hold many (OpenCode), and is ignored otherwise.  NULL, with an
 * error, for a format no reader knows. */
PdTranscriptReader *pd_transcript_reader_new_for_format (const char  *format,
                                                         const char  *path,
                                                         const char  *agent_id,
                                                         GError     **error);

G_END_DECLS
