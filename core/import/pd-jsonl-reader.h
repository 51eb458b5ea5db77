/* pd-jsonl-reader.h: JSON lines, read line by line with a capped line size.
 *
 * The file is opened read-only and only read.  Lines longer than the cap are
 * skipped without being held in memory, and counted.  Reading may start at an
 * offset, so a file that grows can be followed by reading only what was
 * appended: with hold_partial an unterminated last line (one the agent is
 * still writing) is left for the next read instead of being returned.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define PD_JSONL_DEFAULT_MAX_LINE (16 * 1024 * 1024)

typedef struct _PdJsonlReader PdJsonlReader;

PdJsonlReader *pd_jsonl_reader_new          (const char     *path,
                                             goffset         offset,
                                             gsize           max_line,
                                             gboolean        hold_partial,
                                             GError        **error);
void           pd_jsonl_reader_free         (PdJsonlReader  *self);
/* One read of up to @size bytes from the start of the file into @buf,
 * through the descriptor the reader holds and without moving it (a
 * document's first bytes, without opening it again); -1 on an error. */
gssize         pd_jsonl_reader_read_head    (PdJsonlReader  *self,
                                             char           *buf,
                                             gsize           size);
/* For a look at the first lines alone (recognising a format): the first
 * read is about @bytes, not the usual 32 KiB, so a file that is then read whole
 * is not read twice over; the buffer grows as lines need.  Before the
 * first line is read. */
/* Nothing at or after @limit (a file offset) is read: the line it cuts is
 * not returned, as if the file ended before it. */
void           pd_jsonl_reader_set_limit      (PdJsonlReader *self,
                                               goffset        limit);
void           pd_jsonl_reader_set_first_read (PdJsonlReader *self,
                                             gsize           bytes);
/* For a look at the first lines: a NUL byte in a line not yet ended ends
 * the reading there, as the limit does (a line read whole that holds one
 * is the caller's to refuse). */
void           pd_jsonl_reader_set_stop_at_nul (PdJsonlReader *self,
                                                gboolean       stop);

/* Back to where the reading started, for a reader that looked at the
 * first lines (recognising a format) to read the file from its start:
 * the bytes still held are not read again (the file is opened once). */
gboolean       pd_jsonl_reader_rewind       (PdJsonlReader  *self,
                                             GError        **error);
/* A reader opened for a look taken over by the transcript's reader. */
gsize          pd_jsonl_reader_get_max_line (PdJsonlReader  *self);
void           pd_jsonl_reader_set_max_line (PdJsonlReader  *self,
                                             gsize           max_line);
void           pd_jsonl_reader_set_hold_partial (PdJsonlReader *self,
                                             gboolean        hold_partial);
/* The file's size when it was opened (its fstat: no second look). */
goffset        pd_jsonl_reader_get_size     (PdJsonlReader  *self);

/* The file descriptor of @path opened read-only, or -1 with @error set:
 * only a regular file, never through a symbolic link, never waiting (a
 * FIFO); G_IO_ERROR_NOT_REGULAR_FILE for what is not one.  The messages
 * start with "PATH: ".  The backward reader and the readers of small files
 * open files alike. */
int            _pd_jsonl_open               (const char     *path,
                                             GError        **error);
/* "a FIFO", "a folder", … for a stat mode. */
const char    *_pd_file_kind                (guint           mode);

/* The next line, without its newline (or "\r\n"), NUL-terminated, valid
 * until the next call.  FALSE at the end of the file or on an error (then
 * @error is set).  Blank lines are returned too (length 0), for the caller
 * to count as skipped. */
gboolean       pd_jsonl_reader_next         (PdJsonlReader  *self,
                                             const char    **line,
                                             gsize          *length,
                                             GError        **error);
/* With @report, a line longer than the cap is returned in its place as a
 * blank one ("", length 0) for which pd_jsonl_reader_get_too_long() says
 * its length, so that a reader can say where a line was left unread; it
 * is then one of n_lines, not of n_too_long.  An unterminated last line
 * is reported too, unless held for the next read (hold_partial), or cut
 * by the limit: its length is not known. */
void           pd_jsonl_reader_set_report_too_long (PdJsonlReader *self,
                                                    gboolean       report);
/* The length of the line last returned when it was one longer than the
 * cap (and its text was never held), else 0. */
gsize          pd_jsonl_reader_get_too_long (PdJsonlReader  *self);
/* Where the next read starts: after the last line returned or skipped. */
goffset        pd_jsonl_reader_get_offset   (PdJsonlReader  *self);
guint64        pd_jsonl_reader_get_n_lines  (PdJsonlReader  *self);
guint64        pd_jsonl_reader_get_n_too_long (PdJsonlReader *self);
/* Whether the line last returned had no newline after it (a torn tail). */
gboolean       pd_jsonl_reader_last_was_unterminated (PdJsonlReader *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdJsonlReader, pd_jsonl_reader_free)

G_END_DECLS
