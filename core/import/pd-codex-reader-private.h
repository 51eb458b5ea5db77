/* pd-codex-reader-private.h: what the scanner and the index hand the Codex
 * reader beside its public API, and what its files share (the reader,
 * pd-codex-pages.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-codex-reader.h"
#include "pd-json-span.h"
#include "pd-jsonl-reader.h"
#include "pd-pending-calls.h"
#include "pd-transcript-pages.h"

G_BEGIN_DECLS

/* @opened (taken): the rollout, open at its start, as the look that
 * recognised it left it (_pd_import_sniff_jsonl_open()); the first update
 * reads it instead of opening the file again. */
void _pd_codex_reader_take_opened (PdCodexReader *self,
                                   PdJsonlReader *opened);

/* The slots of a line read in place (see check_span()). */
enum { SPAN_TYPE, SPAN_TIMESTAMP, SPAN_PAYLOAD, SPAN_KIND, SPAN_ID, SPAN_CWD, SPAN_META_TIME, SPAN_MESSAGE,
       SPAN_TURN_ID, SPAN_CALL_ID, SPAN_NAME, SPAN_ARGUMENTS, SPAN_OUTPUT, SPAN_ITEM, N_SPANS };

struct _PdCodexReader
{
  GObject            parent_instance;

  char              *path;
  gsize              max_line;
  gboolean           follow;
  goffset            offset;
  PdImportedSession *session;
  PdPendingCalls    *calls;       /* plan calls: PdImportList (NULL: arguments not a valid plan) */
  char              *turn_id;
  guint64            n_lines;
  gboolean           have_meta;      /* the session_meta line was read */
  gboolean           meta_only;      /* the head of a tail read: facts, no plan */
  gboolean           tail_done;      /* past the first read: no tail read again */
  guint              full_lists;     /* full lists applied */
  gboolean           turnless_plan;  /* a proposed plan was keyed without its turn */
  PdTranscriptPages *pages;          /* reading for the pages: every line */
  PdJsonlReader     *opened;         /* (nullable) the file, opened by the look that knew it */
  PdJsonSpan         spans[N_SPANS]; /* what check_span() found of the line */
};

/* An output's text (*@failed: its "success" false). */
char *_pd_codex_output_text        (JsonNode      *output,
                                    gboolean      *failed);
/* pd-codex-pages.c: a line of the rollout into the pages. */
void  _pd_codex_conversation_line  (PdCodexReader *self,
                                    const char    *type,
                                    const char    *kind,
                                    JsonObject    *payload,
                                    gint64         time);

G_END_DECLS
