/* pd-qwen-reader-private.h: what the files of the Qwen Code reader share
 * (the reader, pd-qwen-side.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-pending-calls.h"
#include "pd-qwen-reader.h"
#include "pd-transcript-pages.h"

G_BEGIN_DECLS

struct _PdQwenReader
{
  GObject            parent_instance;

  char              *path;
  char              *todos_dir;    /* (nullable) where the side files are */
  gsize              max_line;
  gboolean           follow;
  goffset            offset;
  goffset            stop;         /* a range read: no line from here on (0: none) */
  PdImportedSession *session;
  PdPendingCalls    *calls;        /* todo_write calls: PdImportList (NULL: not a valid list) */
  gboolean           have_meta;    /* id and folder known */
  gboolean           titled;       /* a custom title was set (it wins over the prompt) */
  gboolean           meta_only;    /* the head of a tail read: facts, no plan */
  gboolean           tail_done;
  guint              full_lists;
  PdQwenSideCheck    side_check;
  PdTranscriptPages *pages;
  /* The line being handled, as it was read: a call's list is read from its
   * text, never built whole (see items_of_call()). */
  const char        *line;
  gsize              line_length;
  /* What the check of a line read in place found of it (check_span()). */
  struct _QwenSpans *spans;
  /* The parts of lines walked in their text, for the tests: once a part. */
  guint64            parts_walked;
};

/* pd-qwen-side.c: compares the side file of the session with the checklist
 * the replay ended on (self->side_check). */
void _pd_qwen_check_side_file (PdQwenReader *self);

G_END_DECLS
