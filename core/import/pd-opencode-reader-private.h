/* pd-opencode-reader-private.h: the part replay, without files or SQLite.
 *
 * pd-opencode-parts.c replays the parts; pd-opencode-reader.c reads them
 * from the JSON tree or opencode.db.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include <json-glib/json-glib.h>

#include "pd-imported-session.h"
#include "pd-import-private.h"
#include "pd-transcript-pages.h"

G_BEGIN_DECLS

/* A todowrite part as the replay needs it: its list read when the part
 * was, so no part's tree is kept until the replay (40 parts of 1 MiB of
 * values under state.metadata were 1.35 GB). */
typedef struct
{
  gint64        time;     /* state.time.start, ms */
  char         *id;
  char         *status;   /* (nullable) state.status */
  PdImportList *list;     /* (nullable) a completed call's list; NULL: of another shape */
} PdOpenCodeTodoPart;

/* The type of a part or message the session's budget had no room for
 * (PdImportBudget): what the pages need of it kept ("id", "role", "time",
 * a tool part's "tool", "callID" and state's "status" and "time"), and its
 * "bytes"; a tool part keeps its type and says "plandeck-unshown" (bytes). */
#define PD_OPENCODE_OVER_BUDGET_PART "plandeck-over-budget"
#define PD_OPENCODE_UNSHOWN_MEMBER   "plandeck-unshown"

/* @node (transfer full, nullable), a part or message of @length bytes:
 * itself when @budget has room for its tree (its bytes added to
 * *@bytes, to give back once it is let go), else its stand-in. */
JsonNode           *_pd_opencode_within_budget    (PdImportBudget     *budget,
                                                   JsonNode           *node,
                                                   gsize               length,
                                                   gsize              *bytes);

/* OpenCode times are in ms; ours in µs.  0 (unknown) for what is not a
 * time at all, rather than an overflowing multiplication. */
static inline gint64
_pd_opencode_ms_to_us (gint64 ms)
{
  return ms > 0 && ms <= G_MAXINT64 / 1000 ? ms * 1000 : 0;
}

void                _pd_opencode_todo_part_free   (PdOpenCodeTodoPart *part);
/* A part, if it is a todowrite tool part. */
PdOpenCodeTodoPart *_pd_opencode_todo_part_new    (JsonNode           *node,
                                                   const char         *fallback_id);
PdImportSource      _pd_opencode_source_of        (const char         *path);
void                _pd_opencode_replay_parts     (PdImportedSession  *session,
                                                   GPtrArray          *parts,
                                                   PdTranscriptPages  *pages);
void                _pd_opencode_set_session_info (PdImportedSession  *session,
                                                   JsonObject         *info);

void _pd_opencode_replay_part_data (PdImportedSession  *session,
                                    const char * const *data,
                                    const gsize        *lengths,
                                    guint               n);

GPtrArray *_pd_opencode_read_storage_full (const char    *dir,
                                           GPtrArray     *skipped,
                                           GCancellable  *cancellable,
                                           GError       **error);

/* Tests only: the bounds on rows read per table and on SQLite VM steps. */
void _pd_opencode_set_limits (guint64 max_rows,
                              guint64 max_steps);

G_END_DECLS
