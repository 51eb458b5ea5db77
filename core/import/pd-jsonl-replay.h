/* pd-jsonl-replay.h: the forward read of a JSON lines transcript.
 *
 * The Codex, Qwen and Gemini readers replay their files the same way: line
 * by line from an offset, each line that is not one JSON object counted as
 * skipped, a cheap look at the raw line deciding whether it is worth
 * parsing, the line parsed (whole, or only the members a pick names) and
 * handed to the reader.  What each line means is the reader's; the loop,
 * its counts and its cancellation are here.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "pd-imported-session.h"
#include "pd-json.h"
#include "pd-transcript-pages.h"

G_BEGIN_DECLS

typedef enum
{
  PD_JSONL_LINE_SKIP,    /* not parsed: of no use, or taken as it is */
  PD_JSONL_LINE_PARSE,   /* parsed whole */
  PD_JSONL_LINE_PICK,    /* parsed keeping the members of the replay's pick */
  PD_JSONL_LINE_SPAN,    /* checked whole and read in place (handle_span), nothing
                          * built; picked as a tree when lines are not picked */
} PdJsonlLineUse;

typedef struct
{
  /* (nullable: every line parsed whole) What to do with a line that has
   * the shape of one JSON object (not NUL-terminated at @length). */
  PdJsonlLineUse (*look)   (gpointer     user_data,
                            const char  *line,
                            gsize        length);
  /* A parsed line's object, valid until the next line.  FALSE ends the
   * replay there (not an error: the reader has what it wanted). */
  gboolean       (*handle) (gpointer     user_data,
                            JsonObject  *object);
  /* (nullable) What PD_JSONL_LINE_PICK keeps of a line. */
  const PdJsonPick *pick;
  /* (nullable: PD_JSONL_LINE_SPAN is picked) A line pd_json_check_foreign()
   * accepted, to be read with #PdJsonSpan: what handle() does with its
   * picked tree, the same.  FALSE ends the replay as handle()'s does. */
  gboolean       (*handle_span) (gpointer     user_data,
                                 const char  *line,
                                 gsize        length);
  /* (nullable: pd_json_check_foreign()) The check of a line read in place,
   * made by the reader so that it notes what handle_span() reads in the
   * same walk (pd_json_check_spans()): FALSE when the line is refused, as
   * pd_json_check_foreign() refuses. */
  gboolean       (*check_span)  (gpointer     user_data,
                                 const char  *line,
                                 gsize        length);
  /* (nullable) Where the line about to be looked at starts in the file:
   * what the Events' pages of a long transcript number their events by
   * (read a part at a time, they cannot count from the start). */
  void           (*at_line) (gpointer     user_data,
                             goffset      offset);
} PdJsonlReplayFuncs;

/* Reads @path's lines from @from on, up to the first that starts at or
 * after @stop (0: to the end), and says in *@end where it stopped (where
 * the next read starts).  Lines, skipped lines and bytes read are added to
 * @stats.  Lines longer than @max_line are skipped (shown on @pages where
 * they were: _pd_import_add_unshown()); with @follow an unterminated
 * last line waits for the next read.  A line of more values
 * than its size can hold is skipped unbuilt, and shown on @pages
 * (nullable) where it was (_pd_import_add_unshown()).  FALSE on an error
 * reading the file or when @cancellable is cancelled (checked every few
 * thousand lines); what was read until then has been handled. */
gboolean _pd_jsonl_replay (const char                *path,
                           goffset                    from,
                           goffset                    stop,
                           gsize                      max_line,
                           gboolean                   follow,
                           const PdJsonlReplayFuncs  *funcs,
                           gpointer                   user_data,
                           PdTranscriptPages         *pages,
                           PdImportStats             *stats,
                           goffset                   *end,
                           GCancellable              *cancellable,
                           GError                   **error);
/* The same from @reader (taken), the file opened at @from. */
gboolean _pd_jsonl_replay_reader (PdJsonlReader             *reader,
                                  goffset                    from,
                                  goffset                    stop,
                                  const PdJsonlReplayFuncs  *funcs,
                                  gpointer                   user_data,
                                  PdTranscriptPages         *pages,
                                  PdImportStats             *stats,
                                  goffset                   *end,
                                  GCancellable              *cancellable,
                                  GError                   **error);

G_END_DECLS
