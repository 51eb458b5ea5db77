/* pd-import-follow.c: the pages of a transcript the window follows, read
 * by what the agent appended only.
 *
 * A session open in the window has its pages read again whenever its
 * transcript grows.  Read whole each time, a 30 MB Claude Code session
 * grown by 200 lines every 0.5 s (tried as an attacker would) cost the
 * window 30 MB of reading per change and ~14 MB more memory a round.  For
 * the formats only ever appended to (JSON lines: Claude Code, Codex, Qwen
 * Code, Gemini CLI's .jsonl) the reader that read the pages is kept, with
 * the pages it builds (never sealed); a change is read by that reader from
 * where it stopped, into the same pages, and sealed pages of what they hold
 * now are handed out (_pd_transcript_pages_snapshot()).  A file that is
 * not the one read any more — smaller, another inode, or its first line
 * changed (rewritten) — is read whole again, as before.  Formats rewritten
 * whole (OpenCode, Gemini CLI's .json, Cline's task files) are read whole.
 *
 * The Now page's checklist, plan, session facts and resume command are
 * followed the same way, by a reader of their own that builds no pages
 * (_pd_import_follow_update_reader()): the checklist replay replaces the
 * agent's list at each TodoWrite or update_plan, so the appended lines
 * replayed onto the state read before give what a whole read gives.  Read
 * whole at each change, each of them read the 30 MB session again.
 *
 * A few transcripts are followed at a time (FOLLOWS_MAX keys: whole pages,
 * the History's, the Events', the reader of the open session); each is
 * used by one thread at a time (its lock).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "pd-import-index-private.h"
#include "pd-transcript-pages-private.h"
#include "pd-transcript-reader.h"

/* The keys followed at once: the open session's four reads, and one more. */
#define FOLLOWS_MAX 5
/* What is compared of the first line to tell a rewritten file. */
#define HEAD_MAX    4096

struct _PdImportFollow
{
  GMutex              lock;
  char               *key;
  PdTranscriptReader *reader;     /* (nullable) kept between reads */
  PdTranscriptPages  *building;   /* (nullable) its pages, never sealed (none for the checklist) */
  PdImportFollowPart  part;
  dev_t               dev;
  ino_t               ino;
  goffset             size;       /* the file's size at the last read */
  char               *head;       /* its first line (HEAD_MAX bytes at most) */
  gsize               head_len;
  guint64             used;
};

static GMutex follows_lock;
static GHashTable *follows;   /* key → PdImportFollow (a reference) */
static guint64 follows_clock;
static guint64 pages_bytes_read;
static guint64 reader_bytes_read;

static GMutex bytes_lock;

guint64
_pd_import_index_get_pages_bytes_read (void)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&bytes_lock);

  return pages_bytes_read;
}

void
_pd_import_index_add_pages_bytes_read (guint64 bytes)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&bytes_lock);

  pages_bytes_read += bytes;
}

guint64
_pd_import_index_get_reader_bytes_read (void)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&bytes_lock);

  return reader_bytes_read;
}

void
_pd_import_index_add_reader_bytes_read (guint64 bytes)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&bytes_lock);

  reader_bytes_read += bytes;
}

static void
count_read (PdImportFollowPart part,
            guint64            bytes)
{
  if (part == PD_IMPORT_FOLLOW_READER)
    _pd_import_index_add_reader_bytes_read (bytes);
  else
    _pd_import_index_add_pages_bytes_read (bytes);
}

static void
follow_reset (PdImportFollow *self)
{
  g_clear_object (&self->reader);
  g_clear_object (&self->building);
  g_clear_pointer (&self->head, g_free);
  self->head_len = 0;
  self->size = 0;
}

static void
follow_clear (PdImportFollow *self)
{
  follow_reset (self);
  g_free (self->key);
  g_mutex_clear (&self->lock);
}

static void
follow_unref (PdImportFollow *self)
{
  g_atomic_rc_box_release_full (self, (GDestroyNotify) follow_clear);
}

gboolean
_pd_import_follow_can (const char *format)
{
  /* The formats whose readers read on from an offset (set_follow, get_offset). */
  static const char * const appended[] = { "claude", "codex", "qwen", "gemini" };

  for (guint i = 0; i < G_N_ELEMENTS (appended); i++)
    if (g_strcmp0 (format, appended[i]) == 0)
      return TRUE;
  return FALSE;
}

PdImportFollow *
_pd_import_follow_get (const char *key)
{
  PdImportFollow *self;

  g_mutex_lock (&follows_lock);
  if (follows == NULL)
    follows = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) follow_unref);
  if (!(self = g_hash_table_lookup (follows, key)))
    {
      /* Full: the one used longest ago goes (freed once its reader is done). */
      if (g_hash_table_size (follows) >= FOLLOWS_MAX)
        {
          GHashTableIter iter;
          PdImportFollow *oldest = NULL, *each;

          g_hash_table_iter_init (&iter, follows);
          while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &each))
            if (oldest == NULL || each->used < oldest->used)
              oldest = each;
          g_hash_table_remove (follows, oldest->key);
        }
      self = g_atomic_rc_box_new0 (PdImportFollow);
      g_mutex_init (&self->lock);
      self->key = g_strdup (key);
      g_hash_table_insert (follows, self->key, self);
    }
  self->used = ++follows_clock;
  g_atomic_rc_box_acquire (self);
  g_mutex_unlock (&follows_lock);

  g_mutex_lock (&self->lock);
  return self;
}

void
_pd_import_follow_release (PdImportFollow *self)
{
  g_mutex_unlock (&self->lock);
  follow_unref (self);
}

void
_pd_import_follow_forget_all (void)
{
  g_mutex_lock (&follows_lock);
  g_clear_pointer (&follows, g_hash_table_unref);
  g_mutex_unlock (&follows_lock);
}

/* The file's identity and first line (*@head, up to HEAD_MAX bytes, its
 * newline included); FALSE when it cannot be read. */
static gboolean
read_head (const char         *path,
           PdImportFollowPart  part,
           struct stat        *st,
           char       **head,
           gsize       *head_len)
{
  g_autofree char *buffer = g_malloc (HEAD_MAX);
  gssize n;
  int fd;
  char *newline;

  if ((fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0)) < 0)
    return FALSE;
  if (fstat (fd, st) != 0)
    {
      close (fd);
      return FALSE;
    }
  do
    n = read (fd, buffer, HEAD_MAX);
  while (n < 0 && errno == EINTR);
  close (fd);
  if (n < 0)
    return FALSE;
  count_read (part, (guint64) n);
  if ((newline = memchr (buffer, '\n', (gsize) n)) != NULL)
    n = newline + 1 - buffer;
  *head_len = (gsize) n;
  *head = g_steal_pointer (&buffer);
  return TRUE;
}

static PdTranscriptPages *
building_new (PdImportFollowPart part)
{
  return part == PD_IMPORT_FOLLOW_HISTORY ? _pd_transcript_pages_new_history ()
         : part == PD_IMPORT_FOLLOW_EVENTS ? _pd_transcript_pages_new_events ()
         : _pd_transcript_pages_new ();
}

/* Reads what @path gained into the kept reader (and its pages, if any). */
static gboolean
follow_read (PdImportFollow      *self,
             const char          *format,
             const char          *path,
             const char          *agent_id,
             PdImportFollowPart   part,
             GCancellable        *cancellable,
             GError             **error)
{
  PdTranscriptReaderInterface *iface;
  g_autofree char *head = NULL;
  PdImportedSession *session;
  struct stat st;
  gsize head_len = 0;
  guint64 before;
  gboolean ok;

  g_return_val_if_fail (_pd_import_follow_can (format), FALSE);

  if (!read_head (path, part, &st, &head, &head_len))
    {
      int saved = errno;

      follow_reset (self);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "The transcript %s cannot be read: %s", path,
                   g_strerror (saved));
      return FALSE;
    }
  /* Not the file read last (rewritten, cut, replaced): read whole again. */
  if (self->reader != NULL
      && (self->part != part || st.st_dev != self->dev || st.st_ino != self->ino || (goffset) st.st_size < self->size
          || pd_transcript_reader_get_offset (self->reader) > (goffset) st.st_size
          || head_len < self->head_len || memcmp (head, self->head, self->head_len) != 0))
    {
      g_debug ("%s: rewritten, read whole again", path);
      follow_reset (self);
    }
  if (self->reader == NULL)
    {
      if (!(self->reader = pd_transcript_reader_new_for_format (format, path, agent_id, error)))
        return FALSE;
      /* A last line still being written is left for the next read. */
      pd_transcript_reader_set_follow (self->reader, TRUE);
      if (part != PD_IMPORT_FOLLOW_READER)
        self->building = building_new (part);
      self->part = part;
    }

  iface = PD_TRANSCRIPT_READER_GET_IFACE (self->reader);
  session = pd_transcript_reader_get_session (self->reader);
  before = pd_imported_session_get_stats (session)->bytes_read;
  /* The same budget as a whole read of the file (pd-import-index-load.c):
   * without it followed pages kept up to PD_IMPORT_SESSION_BYTES_MAX, and
   * the window's Events page of a 37 MB transcript of tiny calls was cut
   * at 09:34:29 (198 060 left out) where `events --session` and serve cut
   * it at 09:08:40 (507 920) (tried as a new user would, nu15).  Pages
   * over their budget stay cut where they were: a later read of the whole
   * file, with the budget of its new size, may cut it later. */
  if (self->building != NULL)
    {
      _pd_transcript_pages_set_source_bytes (self->building, _pd_import_index_source_bytes (format, path));
      iface->set_pages (self->reader, self->building);
    }
  ok = pd_transcript_reader_update (self->reader, cancellable, error);
  if (self->building != NULL)
    iface->set_pages (self->reader, NULL);
  session = pd_transcript_reader_get_session (self->reader);
  count_read (part, pd_imported_session_get_stats (session)->bytes_read - before);
  if (!ok)
    {
      /* Half read: what the pages hold is not known to be whole. */
      follow_reset (self);
      return FALSE;
    }

  self->dev = st.st_dev;
  self->ino = st.st_ino;
  self->size = (goffset) st.st_size;
  /* The first line as first seen whole (a file begun may have none yet). */
  if (self->head == NULL || self->head_len == 0
      || (self->head_len < head_len && self->head[self->head_len - 1] != '\n'))
    {
      g_free (self->head);
      self->head = g_steal_pointer (&head);
      self->head_len = head_len;
    }
  return TRUE;
}

PdTranscriptPages *
_pd_import_follow_update (PdImportFollow      *self,
                          const char          *format,
                          const char          *path,
                          const char          *agent_id,
                          PdImportFollowPart   part,
                          GCancellable        *cancellable,
                          GError             **error)
{
  g_auto(GStrv) argv = NULL;
  g_autofree char *workdir = NULL;
  PdTranscriptPages *pages;

  g_return_val_if_fail (part != PD_IMPORT_FOLLOW_READER, NULL);

  if (!follow_read (self, format, path, agent_id, part, cancellable, error))
    return NULL;
  argv = pd_transcript_reader_dup_resume_argv (self->reader, &workdir);
  pages = _pd_transcript_pages_snapshot (self->building, pd_transcript_reader_get_session (self->reader), argv,
                                         workdir);
  /* Pages cut at their budget are not kept to read on: their building
   * state is as large as what they show (a transcript of 1.15 M one-letter
   * messages kept 520 000 messages twice, for each of FOLLOWS_MAX sessions
   * and after the session was left, tried as an attacker would); a change
   * reads such a transcript whole again. */
  if (_pd_transcript_pages_get_cut (self->building, NULL, NULL))
    {
      follow_reset (self);
#ifdef __GLIBC__
      /* Hundreds of thousands of small blocks just freed in this worker's
       * arena: given back to the system, not kept for the window's life
       * (256 MB of the 1.15 M-message transcript's read, over the 90 MB
       * the window had before). */
      malloc_trim (0);
#endif
    }
  return pages;
}

PdTranscriptReader *
_pd_import_follow_update_reader (PdImportFollow  *self,
                                 const char      *format,
                                 const char      *path,
                                 const char      *agent_id,
                                 GCancellable    *cancellable,
                                 GError         **error)
{
  if (!follow_read (self, format, path, agent_id, PD_IMPORT_FOLLOW_READER, cancellable, error))
    return NULL;
  return self->reader;
}
