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

/* The file is scanned backwards a block at a time for line ends; a line
 * within one block is handed out from it, a line across blocks is read
 * again whole (one pread) once both its ends are known, and a line over
 * the cap is passed over without being read into memory at all.  The scan
 * kept every block of a long line and copied it into a larger buffer at
 * each step: an 81 MB line took 3 s and the whole cap in memory before it
 * was skipped. */
struct _PdJsonlBackward
{
  int       fd;
  goffset   lower;        /* the bound's start */
  goffset   end;
  char     *block;        /* the file from block_start, block_length bytes */
  goffset   block_start;
  gsize     block_length;
  char     *line;         /* (nullable) a line across blocks, read again */
  gsize     line_cap;
  goffset   cur;          /* end of the next line to return: its newline, or end */
  goffset   floor;
  gsize     max_line;
  guint64   bytes_read;
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
  self->end = self->block_start = self->cur = MAX (end, 0);
  self->floor = self->lower;
  self->max_line = max_line ? max_line : G_MAXSIZE / 2;
  self->block = g_malloc (BLOCK);
  return self;
}

void
_pd_jsonl_backward_free (PdJsonlBackward *self)
{
  if (self == NULL)
    return;
  close (self->fd);
  g_free (self->block);
  g_free (self->line);
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

static gboolean
read_at (PdJsonlBackward  *self,
         char             *buf,
         gsize             n,
         goffset           offset,
         GError          **error)
{
  gsize done = 0;

  while (done < n)
    {
      gssize got = pread (self->fd, buf + done, n - done, offset + (goffset) done);

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
  self->bytes_read += n;
  return TRUE;
}

/* The block before the one held. */
static gboolean
read_block (PdJsonlBackward  *self,
            GError          **error)
{
  goffset start = MAX (self->lower, self->block_start - BLOCK);
  gsize n = (gsize) (self->block_start - start);

  self->block_length = 0;
  if (!read_at (self, self->block, n, start, error))
    return FALSE;
  self->block_start = start;
  self->block_length = n;
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
      goffset scan = self->cur;
      goffset newline = -1;
      goffset start, line_end = self->cur;
      gsize n;

      /* The newline before cur: the blocks before it scanned, none kept. */
      for (;;)
        {
          const char *nl = scan > self->block_start
                           ? memrchr (self->block, '\n', (gsize) (scan - self->block_start)) : NULL;

          if (nl != NULL)
            {
              newline = self->block_start + (nl - self->block);
              break;
            }
          scan = self->block_start;
          if (self->block_start <= self->lower)
            break;
          if (!read_block (self, error))
            {
              self->done = TRUE;
              return FALSE;
            }
        }

      if (newline < 0)
        {
          /* The bound's start: the line across it is outside, unless the
           * bound reaches the start of the file. */
          self->done = TRUE;
          if (self->lower > 0)
            {
              self->floor = self->cur == self->end ? self->end : self->cur + 1;
              return FALSE;
            }
          self->floor = 0;
          start = 0;
        }
      else
        {
          start = newline + 1;
          self->cur = newline;
        }

      n = (gsize) (line_end - start);
      if (n > self->max_line)
        {
          /* Over the cap: passed over, never read into memory. */
          if (self->done)
            return FALSE;
          continue;
        }
      if (start >= self->block_start && line_end <= self->block_start + (goffset) self->block_length)
        *line = self->block + (start - self->block_start);
      else
        {
          /* Across blocks: read again whole. */
          if (self->line_cap < n + 1)
            {
              g_free (self->line);
              self->line_cap = MAX (n + 1, 2 * self->line_cap);
              self->line = g_malloc (self->line_cap);
            }
          if (!read_at (self, self->line, n, start, error))
            {
              self->done = TRUE;
              return FALSE;
            }
          self->line[n] = '\0';
          *line = self->line;
        }
      *length = n;
      *offset = start;
      return TRUE;
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
