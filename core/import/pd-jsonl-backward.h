/* pd-jsonl-backward.h: the lines of a JSON lines file, newest first.
 *
 * For long transcripts read from the end: the file is read backwards in
 * blocks, from @end down to at most @bound bytes before it, and its lines
 * are returned last first with where each starts.  A line that crosses the
 * bound's start is outside it and never returned; lines longer than the cap
 * are skipped.  The file is only read.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _PdJsonlBackward PdJsonlBackward;

PdJsonlBackward *_pd_jsonl_backward_new        (const char        *path,
                                                goffset            end,
                                                goffset            bound,
                                                gsize              max_line,
                                                GError           **error);
void             _pd_jsonl_backward_free       (PdJsonlBackward   *self);
/* The previous line (without its newline, not NUL-terminated), valid until
 * the next call, and the file offset it starts at.  FALSE when the bound's
 * start is reached or on an error (then @error is set). */
gboolean         _pd_jsonl_backward_prev       (PdJsonlBackward   *self,
                                                const char       **line,
                                                gsize             *length,
                                                goffset           *offset,
                                                GError           **error);
/* Where the lines within the bound begin: the start of the first whole line
 * after the bound's start (0 when the bound covers the whole file). */
goffset          _pd_jsonl_backward_get_floor  (PdJsonlBackward   *self);
guint64          _pd_jsonl_backward_get_bytes_read (PdJsonlBackward *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdJsonlBackward, _pd_jsonl_backward_free)

/* Tries @line (at @offset) as the start of a tail read.  Sets *@applied
 * when its replay applied a full list (the reader then holds that state);
 * adds what the trial read to *@tried.  FALSE on an error. */
typedef gboolean (*PdJsonlTryLineFunc) (gpointer      user_data,
                                        const char   *line,
                                        gsize         length,
                                        goffset       offset,
                                        gboolean     *applied,
                                        guint64      *tried,
                                        GError      **error);

gboolean         _pd_jsonl_backward_find_start (const char          *path,
                                                goffset              end,
                                                goffset              bound,
                                                gsize                max_line,
                                                PdJsonlTryLineFunc   try_line,
                                                gpointer             user_data,
                                                gboolean            *applied,
                                                goffset             *start,
                                                guint64             *bytes_read,
                                                GError             **error);

G_END_DECLS
