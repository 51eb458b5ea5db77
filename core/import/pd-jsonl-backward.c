/* pd-jsonl-backward.c: the lines of a JSON lines file, newest first.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>

#include "pd-jsonl-backward.h"
#include "pd-jsonl-reader.h"

#define BLOCK (64 * 1024)

struct _PdJsonlBackward
{
  int       fd;
  goffset   lower;       /* the bound's start */
  char     *buf;
  gsize     cap;
  goffset   buf_start;   /* file offset of buf[0] */
  goffset   end;
  goffset   cur;         /* end of the next line to return (in the buffer) */
  goffset   line_end;    /* where the next line really ends: its newline, or end */
  goffset   floor;
  gsize     max_line;
  guint64   bytes_read;
  gboolean  discarding;  /* the line ending at cur is over the cap */
  gboolean  done;
};

PdJsonlBackward *
_pd_jsonl_backward_new (const char  *path,
                        goffset      end,
                        goffset      bound,
                        gsize        max_line,
                        GError     **error)
{
  PdJsonlBackward *self;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);

  if ((fd = _pd_jsonl_open (path, error)) < 0)
    return NULL;

  self = g_new0 (PdJsonlBackward, 1);
  self->fd = fd;
  self->lower = MAX (end - MAX (bound, 0), 0);
  self->end = self->buf_start = self->cur = self->line_end = MAX (end, 0);
  self->floor = self->lower;
  self->max_line = max_line ? max_line : G_MAXSIZE / 2;
  return self;
}

void
_pd_jsonl_backward_free (PdJsonlBackward *self)
{
  if (self == NULL)
    return;
  close (self->fd);
  g_free (self->buf);
  g_free (self);
}

goffset
_pd_jsonl_backward_get_floor (PdJsonlBackward *self)
{
  return self->floor;
}

guint64
_pd_jsonl_backward_get_bytes_read (PdJsonlBackward *self)
{
  return self->bytes_read;
}

/* Reads the block before the buffer, keeping the part of a line already
 * read (unless it is over the cap: then it is dropped as it goes). */
static gboolean
read_block (PdJsonlBackward  *self,
            GError          **error)
{
  gsize keep = (gsize) (self->cur - self->buf_start);
  goffset start = MAX (self->lower, self->buf_start - BLOCK);
  gsize n = (gsize) (self->buf_start - start);
  gsize done = 0;

  if (self->discarding || keep > self->max_line + 2)
    {
      self->discarding = TRUE;
      keep = 0;
      self->cur = self->buf_start;
    }
  if (self->cap < n + keep)
    {
      char *bigger = g_malloc (n + keep);

      if (keep > 0)
        memcpy (bigger + n, self->buf, keep);
      g_free (self->buf);
      self->buf = bigger;
      self->cap = n + keep;
    }
  else if (keep > 0)
    memmove (self->buf + n, self->buf, keep);

  while (done < n)
    {
      gssize got = pread (self->fd, self->buf + done, n - done, start + (goffset) done);

      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0)
        {
          int saved = got < 0 ? errno : EIO;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "Could not read a transcript: %s", got < 0 ? g_strerror (saved) : "it got shorter");
          return FALSE;
        }
      done += (gsize) got;
    }
  self->buf_start = start;
  self->bytes_read += n;
  return TRUE;
}

gboolean
_pd_jsonl_backward_prev (PdJsonlBackward  *self,
                         const char      **line,
                         gsize            *length,
                         goffset          *offset,
                         GError          **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  while (!self->done)
    {
      gsize upto = (gsize) (self->cur - self->buf_start);
      const char *nl = upto > 0 ? memrchr (self->buf, '\n', upto) : NULL;

      if (nl != NULL)
        {
          goffset start = self->buf_start + (nl - self->buf) + 1;
          gboolean skip = self->discarding;

          *line = nl + 1;
          *length = (gsize) (self->cur - start);
          *offset = start;
          self->cur = self->line_end = start - 1;
          self->discarding = FALSE;
          if (skip)
            continue;
          return TRUE;
        }

      if (self->buf_start <= self->lower)
        {
          /* The bound's start: the line across it is outside, unless the
           * bound reaches the start of the file. */
          self->done = TRUE;
          if (self->lower > 0)
            {
              self->floor = self->line_end == self->end ? self->end : self->line_end + 1;
              return FALSE;
            }
          self->floor = 0;
          if (self->discarding)
            return FALSE;
          *line = self->buf;
          *length = upto;
          *offset = 0;
          return TRUE;
        }

      if (!read_block (self, error))
        {
          self->done = TRUE;
          return FALSE;
        }
    }
  return FALSE;
}

/**
 * _pd_jsonl_backward_find_start:
 * @try_line: tries one line: replays forward from it and says whether a
 *   full list applied (then the reader has taken that replay's state)
 *
 * The search both readers make for a tail read: from @end back to at most
 * @bound bytes before it, each line @try_line wants to try is tried, newest
 * first, until one applies.  *@start is where the reader goes on from when
 * none did: the first whole line within the bound.  *@bytes_read is what
 * the scan and the trials read.
 *
 * Returns: %FALSE on an error
 */
gboolean
_pd_jsonl_backward_find_start (const char          *path,
                               goffset              end,
                               goffset              bound,
                               gsize                max_line,
                               PdJsonlTryLineFunc   try_line,
                               gpointer             user_data,
                               gboolean            *applied,
                               goffset             *start,
                               guint64             *bytes_read,
                               GError             **error)
{
  g_autoptr(PdJsonlBackward) back = NULL;
  g_autoptr(GError) local = NULL;
  guint64 tried = 0;
  const char *line;
  gsize length;
  goffset offset;

  *applied = FALSE;
  *start = 0;
  *bytes_read = 0;

  if (!(back = _pd_jsonl_backward_new (path, end, bound, max_line, error)))
    return FALSE;

  while (_pd_jsonl_backward_prev (back, &line, &length, &offset, &local))
    {
      if (length == 0)
        continue;
      if (!try_line (user_data, line, length, offset, applied, &tried, error))
        return FALSE;
      if (*applied)
        {
          *start = offset;
          *bytes_read = _pd_jsonl_backward_get_bytes_read (back) + tried;
          return TRUE;
        }
    }
  if (local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }

  *start = _pd_jsonl_backward_get_floor (back);
  *bytes_read = _pd_jsonl_backward_get_bytes_read (back) + tried;
  return TRUE;
}
