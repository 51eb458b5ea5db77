/* pd-jsonl-reader.c: JSON lines, read line by line with a capped line size.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "pd-jsonl-reader.h"

#define CHUNK (256 * 1024)
/* From this size on a buffer grows with realloc() (see fill()). */
#define LARGE_BUFFER (1024 * 1024)
/* The first read: enough for the first lines, which is all some readers
 * want (recognising a format); the buffer grows as lines need. */
#define FIRST_CHUNK (32 * 1024)

struct _PdJsonlReader
{
  int       fd;
  char     *buf;
  gsize     cap;
  gsize     start;       /* first unconsumed byte in buf */
  gsize     end;         /* end of valid data in buf */
  gsize     scanned;     /* bytes after start known to hold no newline */
  gsize     max_line;
  goffset   offset;      /* file offset of buf[start] */
  goffset   limit;       /* (0: none) nothing from here on is read */
  goffset   origin;      /* where the reading started */
  goffset   base;        /* file offset of buf[0] */
  goffset   size;        /* the file's size when it was opened */
  gssize    restore_at;  /* where the last line's NUL went, or -1 */
  char      restore;     /* the byte it replaced */
  guint64   n_lines;
  guint64   n_too_long;
  gsize     discarded;   /* bytes dropped so far of the line being discarded */
  gsize     too_long;    /* the length of the too-long line last returned, or 0 */
  gboolean  report_too_long;
  gboolean  hold_partial;
  gboolean  stop_at_nul;
  gboolean  discarding;  /* inside a line longer than max_line */
  gboolean  eof;
  gboolean  at_limit;
  gboolean  unterminated;
};

const char *
_pd_file_kind (guint mode)
{
  if (S_ISDIR (mode))  return "a folder";
  if (S_ISFIFO (mode)) return "a FIFO";
  if (S_ISSOCK (mode)) return "a socket";
  if (S_ISCHR (mode))  return "a character device";
  if (S_ISBLK (mode))  return "a block device";
  if (S_ISLNK (mode))  return "a symbolic link";
  return "not a regular file";
}

/* Transcripts sit in folders other programs write, so only a regular file
 * is read.  The open never blocks (O_NONBLOCK: a FIFO named like a
 * transcript would wait for a writer for ever) and follows no symbolic
 * link in the last component (the folder walks do not follow them, and a
 * file swapped for one after the walk looked must not be either); then
 * what was opened is looked at (fstat), so no swap between a check and
 * the open gets anything but a regular file read. */
static int
open_regular (const char  *path,
              goffset     *size,
              GError     **error)
{
  g_autofree char *folder = g_path_get_dirname (path);
  g_autofree char *name = g_path_get_basename (path);
  int dir_fd;
  int fd;
  struct stat st;

  /* The file's own folder is not followed either: a stored session's
   * transcript was read again through a project folder swapped for a link
   * to elsewhere holding a file of the same name (tried as an attacker
   * would, att15).  A folder an agent writes its files in is below the
   * folder a walk starts at, which does not follow links in it either. */
  dir_fd = g_open (folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW, 0);
  if (dir_fd < 0)
    {
      int saved = errno;

      if (saved == ELOOP || (lstat (folder, &st) == 0 && S_ISLNK (st.st_mode)))
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                     "%s: a symbolic link (not followed)", folder);
      else
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                     "%s: cannot be opened: %s", path, g_strerror (saved));
      return -1;
    }
  fd = openat (dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
  {
    int saved = errno;

    close (dir_fd);
    errno = saved;
  }

  if (fd < 0)
    {
      int saved = errno;

      if (saved == ELOOP)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                     "%s: a symbolic link (not followed)", path);
      else
        g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                     "%s: cannot be opened: %s", path, g_strerror (saved));
      return -1;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   "%s: not a regular file (%s)", path, _pd_file_kind (st.st_mode));
      close (fd);
      return -1;
    }
  /* Reads of a regular file never wait; the flag goes so that nothing
   * below ever meets EAGAIN.  F_SETFL sets only the status flags (append,
   * async, direct, noatime, nonblock), none of which is wanted: one call. */
  fcntl (fd, F_SETFL, 0);
  if (size != NULL)
    *size = (goffset) st.st_size;
  return fd;
}

int
_pd_jsonl_open (const char  *path,
                GError     **error)
{
  return open_regular (path, NULL, error);
}

PdJsonlReader *
pd_jsonl_reader_new (const char  *path,
                     goffset      offset,
                     gsize        max_line,
                     gboolean     hold_partial,
                     GError     **error)
{
  PdJsonlReader *self;
  goffset size = 0;
  int fd;

  g_return_val_if_fail (path != NULL, NULL);

  if ((fd = open_regular (path, &size, error)) < 0)
    return NULL;
  if (offset > 0 && lseek (fd, offset, SEEK_SET) != offset)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Could not seek in %s: %s", path, g_strerror (saved));
      close (fd);
      return NULL;
    }

  self = g_new0 (PdJsonlReader, 1);
  self->fd = fd;
  self->max_line = max_line ? max_line : PD_JSONL_DEFAULT_MAX_LINE;
  self->cap = MIN ((gsize) FIRST_CHUNK, self->max_line + 2) + 1;
  self->buf = g_malloc (self->cap);
  self->offset = MAX (offset, 0);
  self->origin = self->base = self->offset;
  self->size = size;
  self->restore_at = -1;
  self->hold_partial = hold_partial;
  return self;
}

gssize
pd_jsonl_reader_read_head (PdJsonlReader *self,
                           char          *buf,
                           gsize          size)
{
  gssize got;

  do
    got = pread (self->fd, buf, size, 0);
  while (got < 0 && errno == EINTR);
  return got;
}

goffset
pd_jsonl_reader_get_size (PdJsonlReader *self)
{
  return self->size;
}

gsize
pd_jsonl_reader_get_max_line (PdJsonlReader *self)
{
  return self->max_line;
}

void
pd_jsonl_reader_set_max_line (PdJsonlReader *self,
                              gsize          max_line)
{
  self->max_line = max_line ? max_line : PD_JSONL_DEFAULT_MAX_LINE;
}

void
pd_jsonl_reader_set_hold_partial (PdJsonlReader *self,
                                  gboolean       hold_partial)
{
  self->hold_partial = hold_partial;
}

/* The byte the last line's NUL replaced, put back. */
static void
restore_last (PdJsonlReader *self)
{
  if (self->restore_at >= 0)
    self->buf[self->restore_at] = self->restore;
  self->restore_at = -1;
}

gboolean
pd_jsonl_reader_rewind (PdJsonlReader  *self,
                        GError        **error)
{
  restore_last (self);
  if (self->base != self->origin)
    {
      /* What was read first is no longer held: read it again. */
      if (lseek (self->fd, self->origin, SEEK_SET) != self->origin)
        {
          int saved = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       "Could not seek in a transcript: %s", g_strerror (saved));
          return FALSE;
        }
      self->end = 0;
      self->eof = self->at_limit = FALSE;
      self->base = self->origin;
    }
  else if (self->at_limit)
    /* The limit is looked at again by the next read. */
    self->eof = self->at_limit = FALSE;
  self->start = self->scanned = 0;
  self->offset = self->origin;
  self->n_lines = self->n_too_long = 0;
  self->discarded = self->too_long = 0;
  self->discarding = self->unterminated = FALSE;
  /* A look at the first lines read little; a whole read reads in chunks. */
  if (self->cap < FIRST_CHUNK + 1 && self->cap < self->max_line + 3)
    {
      self->cap = MIN ((gsize) FIRST_CHUNK, self->max_line + 2) + 1;
      self->buf = g_realloc (self->buf, self->cap);
    }
  return TRUE;
}

void
pd_jsonl_reader_set_limit (PdJsonlReader *self,
                           goffset        limit)
{
  self->limit = limit;
}

void
pd_jsonl_reader_set_stop_at_nul (PdJsonlReader *self,
                                 gboolean       stop)
{
  self->stop_at_nul = stop;
}

void
pd_jsonl_reader_set_first_read (PdJsonlReader *self,
                                gsize          bytes)
{
  g_return_if_fail (self->end == 0);

  /* Room for @bytes and the NUL a line gets. */
  self->cap = MIN (MAX (bytes, 64), self->max_line + 2) + 1;
  self->buf = g_realloc (self->buf, self->cap);
}

void
pd_jsonl_reader_free (PdJsonlReader *self)
{
  if (self == NULL)
    return;
  if (self->fd >= 0)
    close (self->fd);
  g_free (self->buf);
  g_free (self);
}

goffset
pd_jsonl_reader_get_offset (PdJsonlReader *self)
{
  return self->offset;
}

guint64
pd_jsonl_reader_get_n_lines (PdJsonlReader *self)
{
  return self->n_lines;
}

guint64
pd_jsonl_reader_get_n_too_long (PdJsonlReader *self)
{
  return self->n_too_long;
}

gboolean
pd_jsonl_reader_last_was_unterminated (PdJsonlReader *self)
{
  return self->unterminated;
}

void
pd_jsonl_reader_set_report_too_long (PdJsonlReader *self,
                                     gboolean       report)
{
  self->report_too_long = report;
}

gsize
pd_jsonl_reader_get_too_long (PdJsonlReader *self)
{
  return self->too_long;
}

/* The line of @length bytes, over the cap, returned as a blank one; one
 * being discarded was counted too long when it was found to be. */
static gboolean
return_too_long (PdJsonlReader  *self,
                 gsize           length,
                 gboolean        unterminated,
                 const char    **line,
                 gsize          *line_length)
{
  if (self->discarding)
    self->n_too_long--;
  else
    self->n_lines++;
  self->discarding = FALSE;
  self->too_long = length;
  self->unterminated = unterminated;
  *line = "";
  *line_length = 0;
  return TRUE;
}

/* Drops what is buffered of an over-long line. */
static void
discard_buffered (PdJsonlReader *self)
{
  self->discarded += self->end - self->start;
  self->offset += (goffset) (self->end - self->start);
  self->start = self->end = self->scanned = 0;
  self->base = self->offset;
}

static gboolean
fill (PdJsonlReader  *self,
      GError        **error)
{
  gssize n;
  gsize want;

  /* Move the unconsumed bytes to the front. */
  if (self->start > 0)
    {
      memmove (self->buf, self->buf + self->start, self->end - self->start);
      self->end -= self->start;
      self->base += (goffset) self->start;
      self->start = 0;
    }
  /* Room for a line of max_line bytes, its "\r\n" and a NUL. */
  if (self->cap - self->end < CHUNK / 4 && self->cap < self->max_line + 3)
    {
      /* Only the unconsumed bytes move: a realloc() copied the whole old
       * buffer, three times for each file of a few hundred KB (7 % of the
       * instructions of a Qwen Code import). */
      gsize old_cap = self->cap;

      self->cap = MIN (self->cap * 2, self->max_line + 3);
      if (old_cap >= LARGE_BUFFER)
        {
          /* A buffer this large is a mapping of its own (glibc's
           * mmap threshold): realloc() moves its pages (mremap) rather
           * than holding the old and the new one at once.  A 13 MB line
           * held 8 + 16 MB at that moment, the peak of a whole export
           * (import-memory: 3.00× the file, on the edge of its 3×). */
          self->buf = g_realloc (self->buf, self->cap);
        }
      else
        {
          char *grown = g_malloc (self->cap);

          memcpy (grown, self->buf, self->end);
          g_free (self->buf);
          self->buf = grown;
        }
    }

  want = self->cap - self->end - 1;
  if (self->limit > 0)
    {
      goffset here = self->offset + (goffset) (self->end - self->start);

      if (here >= self->limit)
        {
          self->eof = self->at_limit = TRUE;
          return TRUE;
        }
      want = (gsize) MIN ((goffset) want, self->limit - here);
    }
  do
    n = read (self->fd, self->buf + self->end, want);
  while (n < 0 && errno == EINTR);

  if (n < 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "Could not read a transcript: %s", g_strerror (saved));
      return FALSE;
    }
  if (n == 0)
    self->eof = TRUE;
  self->end += (gsize) n;
  return TRUE;
}

gboolean
pd_jsonl_reader_next (PdJsonlReader  *self,
                      const char    **line,
                      gsize          *length,
                      GError        **error)
{
  g_return_val_if_fail (self != NULL, FALSE);

  restore_last (self);
  self->too_long = 0;
  for (;;)
    {
      char *begin = self->buf + self->start;
      char *nl = memchr (begin + self->scanned, '\n', self->end - self->start - self->scanned);

      if (nl != NULL)
        {
          gsize len = (gsize) (nl - begin);

          self->start += len + 1;
          self->scanned = 0;
          self->offset += (goffset) (len + 1);
          if (self->discarding)
            {
              /* Its length: what was dropped, and this last piece. */
              len += self->discarded - (nl > begin && nl[-1] == '\r');
              if (self->report_too_long)
                return return_too_long (self, len, FALSE, line, length);
              self->discarding = FALSE;
              continue;
            }
          if (len > 0 && begin[len - 1] == '\r')
            len--;
          if (len > self->max_line)
            {
              if (self->report_too_long)
                return return_too_long (self, len, FALSE, line, length);
              self->n_too_long++;
              self->n_lines++;
              continue;
            }
          self->restore_at = (gssize) (begin + len - self->buf);
          self->restore = begin[len];
          begin[len] = '\0';
          self->n_lines++;
          self->unterminated = FALSE;
          *line = begin;
          *length = len;
          return TRUE;
        }

      /* A NUL in a line that has no end yet ends the file here: no JSON
       * text holds one, and a sparse file's hole is read as them. */
      if (self->stop_at_nul && memchr (begin + self->scanned, '\0', self->end - self->start - self->scanned) != NULL)
        self->eof = self->at_limit = TRUE;
      self->scanned = self->end - self->start;
      if (!self->discarding && self->scanned > self->max_line + 1)
        {
          /* Too long: count it once and drop it as it streams past (or
           * return it in its place once its length is known). */
          self->discarding = TRUE;
          self->discarded = 0;
          self->n_too_long++;
          self->n_lines++;
        }
      if (self->discarding)
        discard_buffered (self);

      if (self->eof)
        {
          gsize len = self->end - self->start;

          if (self->discarding && self->report_too_long && !self->hold_partial && !self->at_limit)
            return return_too_long (self, self->discarded + len, TRUE, line, length);
          if (self->discarding || len == 0 || self->hold_partial || self->at_limit)
            return FALSE;
          /* A last line without a newline: returned (it may be whole),
           * flagged so the caller counts it as torn if it does not parse. */
          begin = self->buf + self->start;
          self->restore_at = (gssize) (begin + len - self->buf);
          self->restore = begin[len];
          begin[len] = '\0';
          self->start = self->end;
          self->scanned = 0;
          self->offset += (goffset) len;
          self->n_lines++;
          self->unterminated = TRUE;
          *line = begin;
          *length = len;
          return TRUE;
        }

      if (!fill (self, error))
        return FALSE;
    }
}
