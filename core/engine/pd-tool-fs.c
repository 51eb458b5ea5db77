/* pd-tool-fs.c: how the file tools open, read and write model-given paths.
 *
 * pd_tool_context_resolve_path() decides whether a path is inside the
 * working directory, but a name checked is not yet a file opened: another
 * process (a build script, a command the agent started) can swap a
 * directory on the path for a symbolic link between the two.  So inside a
 * confined context nothing is opened by its full name.  Opens start from
 * the working directory's descriptor and follow no symbolic link at all:
 * openat2() with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS
 * where the kernel has it (Linux 5.6; glibc 2.36 has no wrapper, hence
 * syscall()), else one openat(O_NOFOLLOW) per component.  The resolved path
 * holds no links (the resolver followed them), so a link met while opening
 * was swapped in meanwhile and the open fails instead of following it.
 * Nor is a mount point crossed (RESOLVE_NO_XDEV; the walk compares mount
 * ids): a folder bound into the working directory leads elsewhere just as
 * a link does.  Writes go to a temporary file in the opened directory and
 * are renamed there, never through a path; a write or an edit the engine
 * let through opens that directory once, and only if it is the folder
 * recorded when the call was decided (pd_tool_context_approve_path()).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-tools"

#define _GNU_SOURCE

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifdef __linux__
#include <linux/openat2.h>
#endif

#include "pd-random.h"
#include "pd-tool-private.h"

/* Cleared once openat2() turns out to be missing (ENOSYS, or refused by a
 * seccomp filter), so later opens go straight to the walk. */
static gint openat2_usable = TRUE;
static gint force_walk = FALSE;

void
_pd_tool_set_force_walk (gboolean force)
{
  g_atomic_int_set (&force_walk, !!force);
}

/* Where opens of a resolved path start.  A path inside the working
 * directory is opened from its descriptor, beneath it and on its mount
 * (@confined); an outside one, which only an allow_outside context lets
 * through, from "/".  Either way no link is followed: a resolved path holds
 * none, so a link met on the way was put there after it was resolved. */
typedef struct
{
  int         base_fd;
  int         owned_fd;   /* base_fd when it is ours to close, else -1 */
  const char *relative;   /* the path below base_fd, "." for base_fd itself */
  gboolean    confined;
} OpenStart;

static void set_open_error (PdToolContext  *context,
                            const char     *resolved,
                            gboolean        confined,
                            int             saved_errno,
                            GError        **error);

/* A path the context does not confine (outside the working directory) is
 * opened only when the context allows it. */
static gboolean
outside_allowed (PdToolContext  *context,
                 const char     *resolved,
                 GError        **error)
{
  g_autofree char *display = NULL;

  if (pd_tool_context_get_allow_outside (context))
    return TRUE;

  display = pd_tool_context_display_path (context, resolved);
  g_set_error (error, PD_TOOL_ERROR, PD_TOOL_ERROR_OUTSIDE,
               "'%s' is outside the working directory", display);
  return FALSE;
}

static gboolean
open_start (PdToolContext  *context,
            const char     *resolved,
            OpenStart      *start,
            GError        **error)
{
  start->owned_fd = -1;
  start->relative = _pd_tool_context_confined_relative (context, resolved);
  start->confined = start->relative != NULL;
  start->base_fd = _pd_tool_context_get_root_fd (context);
  if (start->confined)
    return TRUE;

  if (!outside_allowed (context, resolved, error))
    return FALSE;
  start->owned_fd = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (start->owned_fd < 0)
    {
      set_open_error (context, resolved, FALSE, errno, error);
      return FALSE;
    }
  start->base_fd = start->owned_fd;
  start->relative = resolved[0] == '/' && resolved[1] != '\0' ? resolved + 1 : ".";
  return TRUE;
}

static void
open_start_clear (OpenStart *start)
{
  if (start->owned_fd >= 0)
    close (start->owned_fd);
  start->owned_fd = -1;
}

/* Which mount @fd is on: statx's mount id (Linux 5.8), else its device.
 * A folder of the same file system bound into the working directory has
 * the device of the working directory; only the mount id tells it. */
static guint64
mount_of (int fd)
{
  struct statx stx;
  struct stat st;

  if (statx (fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx) == 0 &&
      (stx.stx_mask & STATX_MNT_ID) != 0)
    return stx.stx_mnt_id;
  if (fstat (fd, &st) == 0)
    return (guint64) st.st_dev | G_GUINT64_CONSTANT (0x8000000000000000);
  return 0;
}

static int
open_with_openat2 (int         base_fd,
                   const char *relative,
                   int         flags,
                   gboolean    confined)
{
#if defined(__linux__) && defined(SYS_openat2) && defined(RESOLVE_BENEATH)
  struct open_how how = { 0 };
  long fd;

  how.flags = (guint64) flags;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  /* NO_XDEV: a mount is not a link, but it leads elsewhere all the same (a
   * folder bound over .plandeck/plans/x let plan mode replace README.md,
   * one bound over docs/m a file outside the folder: tried as an attacker
   * would). */
  if (confined)
    how.resolve |= RESOLVE_BENEATH | RESOLVE_NO_XDEV;

  /* EAGAIN: the kernel saw a rename race during resolution and asks for
   * a retry; it is not an answer about the path. */
  for (guint tries = 0; tries < 8; tries++)
    {
      fd = syscall (SYS_openat2, base_fd, relative, &how, sizeof how);
      if (fd >= 0 || errno != EAGAIN)
        break;
    }

  if (fd < 0 && (errno == ENOSYS || errno == EPERM || errno == E2BIG))
    {
      g_atomic_int_set (&openat2_usable, FALSE);
      errno = ENOSYS;
    }

  return (int) fd;
#else
  g_atomic_int_set (&openat2_usable, FALSE);
  errno = ENOSYS;
  return -1;
#endif
}

static gboolean
use_openat2 (void)
{
  return !g_atomic_int_get (&force_walk) && g_atomic_int_get (&openat2_usable);
}

/* Opens directory @name in @dir_fd for further walking, never through a
 * link; with @create, makes it first when it is missing. */
static int
walk_into (int         dir_fd,
           const char *name,
           gboolean    create)
{
  int fd = openat (dir_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

  if (fd < 0 && errno == ENOENT && create)
    {
      if (mkdirat (dir_fd, name, 0755) != 0 && errno != EEXIST)
        return -1;
      fd = openat (dir_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }

  /* O_PATH | O_NOFOLLOW on a link fails with ENOTDIR: say what it was. */
  if (fd < 0 && errno == ENOTDIR)
    {
      struct stat st;

      if (fstatat (dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK (st.st_mode))
        errno = ELOOP;
      else
        errno = ENOTDIR;
    }

  return fd;
}

/* Whether @dir_fd is the folder @anchor recorded; ESTALE when not. */
static gboolean
anchor_holds (const PdToolAnchor *anchor,
              int                 dir_fd)
{
  struct stat st;

  if (fstat (dir_fd, &st) != 0)
    return FALSE;
  if (st.st_dev != anchor->dev || st.st_ino != anchor->ino)
    {
      errno = ESTALE;
      return FALSE;
    }
  return TRUE;
}

/* The names of a resolved relative path, without "" and ".". */
static GPtrArray *
split_components (const char *relative)
{
  g_auto(GStrv) parts = g_strsplit (relative, "/", -1);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; parts[i] != NULL; i++)
    if (*parts[i] != '\0' && strcmp (parts[i], ".") != 0)
      g_ptr_array_add (names, g_strdup (parts[i]));

  return names;
}

/* One folder at a time from @start's base, through the first @n of
 * @names: never through a link, never onto another mount when confined
 * (EXDEV), making the missing ones with @create.  The folder @anchor names
 * must be the one found at its depth (ESTALE).  Returns an O_PATH
 * descriptor of the folder reached, all @n deep, or -1 with errno set and
 * *@reached (optional) how deep the walk came, with that folder in
 * *@last_fd (optional; else closed). */
static int
walk_dirs (const OpenStart    *start,
           GPtrArray          *names,
           guint               n,
           gboolean            create,
           const PdToolAnchor *anchor,
           guint              *reached,
           int                *last_fd)
{
  guint64 mount = start->confined ? mount_of (start->base_fd) : 0;
  int dir_fd = fcntl (start->base_fd, F_DUPFD_CLOEXEC, 3);
  guint depth = 0;
  int saved_errno = 0;

  if (last_fd != NULL)
    *last_fd = -1;
  if (dir_fd < 0)
    return -1;

  for (;;)
    {
      const char *name;
      int next;

      if (anchor != NULL && depth == anchor->depth && !anchor_holds (anchor, dir_fd))
        {
          saved_errno = errno;
          break;
        }
      if (depth >= n)
        break;

      name = g_ptr_array_index (names, depth);
      if (strcmp (name, "..") == 0)
        {
          /* A resolved path has none; refuse rather than climb. */
          saved_errno = EXDEV;
          break;
        }
      next = walk_into (dir_fd, name, create);
      if (next < 0)
        {
          saved_errno = errno;
          break;
        }
      if (start->confined && mount_of (next) != mount)
        {
          close (next);
          saved_errno = EXDEV;
          break;
        }
      close (dir_fd);
      dir_fd = next;
      depth++;
    }

  if (reached != NULL)
    *reached = depth;
  if (saved_errno == 0)
    return dir_fd;

  if (last_fd != NULL)
    *last_fd = dir_fd;
  else
    close (dir_fd);
  errno = saved_errno;
  return -1;
}

/* Opens @name in @dir_fd with @flags (which hold O_NOFOLLOW), on the
 * folder's mount when @confined (a file can be a mount point too). */
static int
open_child (const OpenStart *start,
            int              dir_fd,
            const char      *name,
            int              flags)
{
  int fd = openat (dir_fd, name, flags | O_NOFOLLOW);

  if (fd >= 0 && start->confined && mount_of (fd) != mount_of (dir_fd))
    {
      close (fd);
      errno = EXDEV;
      return -1;
    }
  return fd;
}

static void
set_open_error (PdToolContext  *context,
                const char     *resolved,
                gboolean        confined,
                int             saved_errno,
                GError        **error)
{
  g_autofree char *display = pd_tool_context_display_path (context, resolved);

  if (saved_errno == ENOENT)
    g_set_error (error, PD_TOOL_ERROR, PD_TOOL_ERROR_INVALID_PATH,
                 "'%s' does not exist", display);
  else if (saved_errno == ELOOP)
    g_set_error (error, PD_TOOL_ERROR, PD_TOOL_ERROR_OUTSIDE,
                 "'%s' changed while it was being opened: a symbolic link appeared on its "
                 "path, and links met while opening are not followed (they could lead "
                 "outside the working directory); nothing was read or written",
                 display);
  else if (confined && saved_errno == EXDEV)
    g_set_error (error, PD_TOOL_ERROR, PD_TOOL_ERROR_OUTSIDE,
                 "'%s' is reached through a mount point inside the working directory, and the "
                 "tools do not cross mount points (what is mounted there can be outside the "
                 "working directory); nothing was read or written",
                 display);
  else if (saved_errno == ESTALE)
    g_set_error (error, PD_TOOL_ERROR, PD_TOOL_ERROR_OUTSIDE,
                 "the folder '%s' is not the one it was when the call was let through (it "
                 "was moved, or another folder put in its place, meanwhile); nothing was written",
                 display);
  else
    g_set_error (error, PD_TOOL_ERROR, PD_TOOL_ERROR_INVALID_PATH,
                 "cannot open '%s': %s", display, g_strerror (saved_errno));
}

/**
 * _pd_tool_open:
 * @resolved: a path from pd_tool_context_resolve_path()
 * @flags: open() flags; no O_CREAT
 *
 * Returns: a descriptor, or -1 with @error set
 */
int
_pd_tool_open (PdToolContext  *context,
               const char     *resolved,
               int             flags,
               GError        **error)
{
  OpenStart start;
  int fd = -1;

  g_return_val_if_fail ((flags & O_CREAT) == 0, -1);

  if (!open_start (context, resolved, &start, error))
    return -1;

  flags |= O_CLOEXEC | O_NOCTTY | O_NOFOLLOW;

  if (use_openat2 ())
    fd = open_with_openat2 (start.base_fd, start.relative, flags, start.confined);

  if (fd < 0 && !use_openat2 ())
    {
      g_autoptr(GPtrArray) names = split_components (start.relative);
      int dir_fd;

      if (names->len == 0)
        fd = open_child (&start, start.base_fd, ".", flags);
      else if ((dir_fd = walk_dirs (&start, names, names->len - 1, FALSE, NULL, NULL, NULL)) >= 0)
        {
          const char *name = g_ptr_array_index (names, names->len - 1);

          if (strcmp (name, "..") == 0)
            errno = EXDEV;
          else
            fd = open_child (&start, dir_fd, name, flags);
          {
            int saved_errno = errno;

            close (dir_fd);
            errno = saved_errno;
          }
        }
    }

  if (fd < 0)
    set_open_error (context, resolved, start.confined, errno, error);
  open_start_clear (&start);

  return fd;
}

/**
 * _pd_tool_open_dir:
 * @resolved: a directory path from pd_tool_context_resolve_path()
 * @create: make the missing directories on the way
 *
 * The folder is checked against the context's approved anchor
 * (pd_tool_context_set_approved_path()) when it has one.
 *
 * Returns: an O_PATH descriptor of the directory, for the *at() calls, or
 *   -1 with @error set
 */
int
_pd_tool_open_dir (PdToolContext  *context,
                   const char     *resolved,
                   gboolean        create,
                   GError        **error)
{
  const PdToolAnchor *anchor = _pd_tool_context_get_anchor (context);
  g_autoptr(GPtrArray) names = NULL;
  OpenStart start;
  int fd = -1;

  if (!open_start (context, resolved, &start, error))
    return -1;
  names = split_components (start.relative);

  /* The approved folder itself, in one openat2(); a write that makes
   * folders walks, each folder made in the one opened before it, never
   * through a name. */
  if (use_openat2 () && (anchor == NULL || anchor->depth == names->len))
    {
      /* No O_NOFOLLOW: with O_PATH it would open a link in the last place
       * itself (then ENOTDIR); RESOLVE_NO_SYMLINKS refuses it (ELOOP). */
      fd = open_with_openat2 (start.base_fd, start.relative, O_PATH | O_DIRECTORY | O_CLOEXEC, start.confined);
      if (fd >= 0 && anchor != NULL && !anchor_holds (anchor, fd))
        {
          int saved_errno = errno;

          close (fd);
          fd = -1;
          errno = saved_errno;
        }
      else if (fd < 0 && ((errno == ENOENT && create) || !use_openat2 ()))
        fd = walk_dirs (&start, names, names->len, create, anchor, NULL, NULL);
    }
  else
    fd = walk_dirs (&start, names, names->len, create, anchor, NULL, NULL);

  if (fd < 0 && errno == ESTALE && anchor != NULL && anchor->depth < names->len)
    {
      /* The folder that changed is the recorded one, which the message
       * names: @resolved less the folders below it, yet to be made. */
      g_autofree char *anchored = g_strdup (resolved);

      for (guint i = anchor->depth; i < names->len; i++)
        {
          char *up = g_path_get_dirname (anchored);

          g_free (anchored);
          anchored = up;
        }
      set_open_error (context, anchored, start.confined, ESTALE, error);
    }
  else if (fd < 0)
    set_open_error (context, resolved, start.confined, errno, error);
  open_start_clear (&start);

  return fd;
}

/**
 * _pd_tool_anchor_record:
 * @resolved: an approved write's file, from pd_tool_context_resolve_path()
 *
 * Records in @anchor the deepest folder on the way to @resolved's folder
 * that is there now, as the opens would reach it (no link, no mount).
 */
void
_pd_tool_anchor_record (PdToolContext *context,
                        const char    *resolved,
                        PdToolAnchor  *anchor)
{
  g_autofree char *parent = g_path_get_dirname (resolved);
  g_autoptr(GPtrArray) names = NULL;
  OpenStart start;
  struct stat st;
  guint depth = 0;
  int fd;
  int last_fd = -1;

  memset (anchor, 0, sizeof *anchor);
  if (!open_start (context, parent, &start, NULL))
    return;
  names = split_components (start.relative);
  fd = walk_dirs (&start, names, names->len, FALSE, NULL, &depth, &last_fd);
  if (fd < 0)
    fd = last_fd;
  if (fd >= 0 && fstat (fd, &st) == 0)
    {
      anchor->set = TRUE;
      anchor->depth = depth;
      anchor->dev = st.st_dev;
      anchor->ino = st.st_ino;
    }
  if (fd >= 0)
    close (fd);
  open_start_clear (&start);
}

/**
 * _pd_tool_openat_child:
 *
 * Opens the entry @name of an already opened directory without following
 * it if it is a link, for walking a tree (grep): a tree walked this way
 * cannot be left, whatever is renamed in it meanwhile.
 */
int
_pd_tool_openat_child (int         dir_fd,
                       const char *name,
                       int         flags)
{
  return openat (dir_fd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

GPtrArray *
_pd_tool_read_dir_names (DIR           *dir,
                         PdToolContext *context,
                         GCancellable  *cancellable,
                         PdToolStop    *stop)
{
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  struct dirent *entry;

  if (stop != NULL)
    *stop = PD_TOOL_GO;

  while ((entry = readdir (dir)) != NULL)
    {
      if (strcmp (entry->d_name, ".") == 0 || strcmp (entry->d_name, "..") == 0)
        continue;
      g_ptr_array_add (names, g_strdup (entry->d_name));

      if (context != NULL && (names->len & 4095) == 0)
        {
          PdToolStop why = _pd_tool_check_stop (context, cancellable);

          if (why != PD_TOOL_GO)
            {
              if (stop != NULL)
                *stop = why;
              return NULL;
            }
        }
    }
  g_ptr_array_sort (names, compare_names);

  return g_steal_pointer (&names);
}

/**
 * _pd_tool_read_fd:
 * @max: the most bytes accepted
 *
 * Reads @fd to its end.  More than @max bytes fails with G_IO_ERROR_NO_SPACE.
 */
gboolean
_pd_tool_read_fd (int      fd,
                  gsize    max,
                  char   **contents,
                  gsize   *length,
                  GError **error)
{
  g_autoptr(GByteArray) data = g_byte_array_new ();
  guint8 buffer[65536];

  for (;;)
    {
      gssize n = read (fd, buffer, sizeof buffer);

      if (n < 0)
        {
          int saved_errno = errno;

          if (saved_errno == EINTR)
            continue;
          g_set_error_literal (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                               g_strerror (saved_errno));
          return FALSE;
        }

      if (n == 0)
        break;

      if (data->len + (gsize) n > max)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                       "it is larger than %" G_GSIZE_FORMAT " bytes", max);
          return FALSE;
        }

      g_byte_array_append (data, buffer, (guint) n);
    }

  *length = data->len;
  g_byte_array_append (data, (const guint8 *) "", 1);
  *contents = (char *) g_byte_array_free (g_steal_pointer (&data), FALSE);

  return TRUE;
}

/**
 * _pd_tool_open_file:
 * @file: from _pd_tool_resolve()
 * @st: (out): what fstat() says of it
 *
 * Opens @file for reading (a file or a directory), without waiting for a
 * writer when it is a FIFO (O_NONBLOCK), as _pd_tool_open() opens it.
 *
 * Returns: the descriptor, which the caller closes, or -1 with the refusal
 *   in @error_result
 */
int
_pd_tool_open_file (PdToolContext     *context,
                    const PdToolFile  *file,
                    struct stat       *st,
                    PdToolResult     **error_result)
{
  g_autoptr(GError) error = NULL;
  int fd = _pd_tool_open (context, file->resolved, O_RDONLY | O_NONBLOCK, &error);

  if (fd < 0)
    {
      *error_result = pd_tool_result_new_printf (FALSE, "%s: %s", file->tool, error->message);
      return -1;
    }

  if (fstat (fd, st) != 0)
    {
      int saved_errno = errno;

      close (fd);
      *error_result = pd_tool_result_new_printf (FALSE, "%s: cannot open '%s': %s",
                                                 file->tool, file->display, g_strerror (saved_errno));
      return -1;
    }

  return fd;
}

/**
 * _pd_tool_open_parent:
 * @file: from _pd_tool_resolve()
 * @create: make the missing folders on the way
 *
 * Opens the folder @file is in, once, for a write or an edit to act in
 * (read, then write a temporary file and rename it there): checked against
 * the folder recorded when the call was let through, if it was.
 *
 * Returns: an O_PATH descriptor of the folder, or -1 with the refusal in
 *   @error_result
 */
int
_pd_tool_open_parent (PdToolContext     *context,
                      const PdToolFile  *file,
                      gboolean           create,
                      PdToolResult     **error_result)
{
  g_autofree char *parent = g_path_get_dirname (file->resolved);
  g_autoptr(GError) error = NULL;
  int dir_fd = _pd_tool_open_dir (context, parent, create, &error);

  if (dir_fd < 0)
    *error_result = create && !g_error_matches (error, PD_TOOL_ERROR, PD_TOOL_ERROR_OUTSIDE)
                    ? pd_tool_result_new_printf (FALSE, "%s: cannot create the directories of '%s': %s",
                                                        file->tool, file->display, error->message)
                           : pd_tool_result_new_printf (FALSE, "%s: %s", file->tool, error->message);
  return dir_fd;
}

/**
 * _pd_tool_read_text_file:
 * @dir_fd: the folder of @file from _pd_tool_open_parent(), or -1 to open
 *   @file by its path
 */
gboolean
_pd_tool_read_text_file (PdToolContext     *context,
                         const PdToolFile  *file,
                         int                dir_fd,
                         char             **contents,
                         gsize             *length,
                         PdToolResult     **error_result)
{
  const char *tool = file->tool;
  const char *display = file->display;
  g_autoptr(GError) error = NULL;
  struct stat st;
  int fd;

  *contents = NULL;

  if (dir_fd >= 0)
    {
      g_autofree char *name = g_path_get_basename (file->resolved);
      OpenStart start = { .base_fd = dir_fd, .owned_fd = -1, .relative = name,
                          .confined = _pd_tool_context_confined_relative (context, file->resolved) != NULL };

      fd = open_child (&start, dir_fd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
      if (fd < 0 || fstat (fd, &st) != 0)
        {
          set_open_error (context, file->resolved, start.confined, errno, &error);
          if (fd >= 0)
            close (fd);
          *error_result = pd_tool_result_new_printf (FALSE, "%s: %s", tool, error->message);
          return FALSE;
        }
    }
  else
    fd = _pd_tool_open_file (context, file, &st, error_result);
  if (fd < 0)
    return FALSE;

  if (S_ISDIR (st.st_mode))
    {
      close (fd);
      *error_result = pd_tool_result_new_printf (FALSE, "%s: '%s' is a directory (use list_dir)",
                                                 tool, display);
      return FALSE;
    }

  if (!S_ISREG (st.st_mode))
    {
      /* A FIFO or a device could block the worker forever. */
      close (fd);
      *error_result = pd_tool_result_new_printf (FALSE, "%s: '%s' is not a regular file",
                                                 tool, display);
      return FALSE;
    }

  if (st.st_size > PD_TOOL_MAX_FILE_SIZE ||
      (!_pd_tool_read_fd (fd, PD_TOOL_MAX_FILE_SIZE, contents, length, &error) &&
       g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE)))
    {
      close (fd);
      g_clear_pointer (contents, g_free);
      *error_result = pd_tool_result_new_printf (FALSE, "%s: '%s' is too large (%" G_GINT64_FORMAT
                                                 " bytes; the limit is %d bytes) — use grep, or "
                                                 "shell with head/tail/sed",
                                                 tool, display, (gint64) MAX (st.st_size, PD_TOOL_MAX_FILE_SIZE + 1),
                                                 PD_TOOL_MAX_FILE_SIZE);
      return FALSE;
    }
  close (fd);

  if (error != NULL)
    {
      *error_result = pd_tool_result_new_printf (FALSE, "%s: cannot read '%s': %s",
                                                 tool, display, error->message);
      return FALSE;
    }

  if (!_pd_tool_is_text (*contents, *length))
    {
      g_clear_pointer (contents, g_free);
      *error_result = pd_tool_result_new_printf (FALSE, "%s: '%s' is not a UTF-8 text file "
                                                 "(it contains binary data or invalid UTF-8)",
                                                 tool, display);
      return FALSE;
    }

  return TRUE;
}

/* The whole of @data, through short writes and EINTR; FALSE with errno set. */
gboolean
_pd_tool_write_all (int         fd,
                    const char *data,
                    gsize       length)
{
  while (length > 0)
    {
      gssize n = write (fd, data, length);

      if (n < 0)
        {
          if (errno == EINTR)
            continue;
          return FALSE;
        }
      data += n;
      length -= (gsize) n;
    }

  return TRUE;
}

/* Atomic replace (a reader never sees half a file), creating the parent
 * directories; an existing file keeps its permission bits.  Everything
 * happens in the opened parent directory: the temporary file is made
 * there and renamed there. */
gboolean
_pd_tool_write_file (PdToolContext     *context,
                     const PdToolFile  *file,
                     int                parent_fd,
                     const char        *contents,
                     gsize              length,
                     PdToolResult     **error_result)
{
  const char *tool = file->tool;
  const char *resolved = file->resolved;
  const char *display = file->display;
  g_autofree char *name = g_path_get_basename (resolved);
  g_autofree char *temp_name = NULL;
  g_autoptr(GError) error = NULL;
  gboolean existed = FALSE;
  int mode = 0644;
  struct stat st;
  int dir_fd;
  int fd = -1;
  int saved_errno;

  if (strcmp (name, "/") == 0 || strcmp (name, ".") == 0 || strcmp (name, "..") == 0)
    {
      *error_result = pd_tool_result_new_printf (FALSE, "%s: '%s' is a directory", tool, display);
      return FALSE;
    }

  if (parent_fd >= 0)
    dir_fd = fcntl (parent_fd, F_DUPFD_CLOEXEC, 3);
  else
    dir_fd = _pd_tool_open_parent (context, file, TRUE, error_result);
  if (dir_fd < 0)
    {
      if (parent_fd >= 0)
        *error_result = pd_tool_result_new_printf (FALSE, "%s: cannot write '%s': %s",
                                                   tool, display, g_strerror (errno));
      return FALSE;
    }

  if (fstatat (dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
    {
      if (S_ISDIR (st.st_mode))
        {
          close (dir_fd);
          *error_result = pd_tool_result_new_printf (FALSE, "%s: '%s' is a directory", tool, display);
          return FALSE;
        }
      if (S_ISLNK (st.st_mode))
        {
          /* The resolver followed every link, so this one is new. */
          close (dir_fd);
          set_open_error (context, resolved, TRUE, ELOOP, &error);
          *error_result = pd_tool_result_new_printf (FALSE, "%s: %s", tool, error->message);
          return FALSE;
        }
      if (!S_ISREG (st.st_mode))
        {
          close (dir_fd);
          *error_result = pd_tool_result_new_printf (FALSE, "%s: '%s' is not a regular file",
                                                     tool, display);
          return FALSE;
        }
      mode = st.st_mode & 07777;
      existed = TRUE;
    }

  for (guint tries = 0; fd < 0 && tries < 100; tries++)
    {
      g_autofree char *suffix = pd_random_hex (6);

      g_free (temp_name);
      temp_name = g_strconcat (".pd-write-", suffix, NULL);
      fd = openat (dir_fd, temp_name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY,
                   existed ? 0600 : mode);
      if (fd < 0 && errno != EEXIST)
        break;
    }

  if (fd < 0)
    {
      saved_errno = errno;
      close (dir_fd);
      *error_result = pd_tool_result_new_printf (FALSE, "%s: cannot write '%s': %s",
                                                 tool, display, g_strerror (saved_errno));
      return FALSE;
    }

  /* Like G_FILE_SET_CONTENTS_CONSISTENT: a replaced file is on disk before
   * the rename makes it the file, so a crash leaves the old or the new. */
  if (!_pd_tool_write_all (fd, contents, length) ||
      (existed && fchmod (fd, mode) != 0) ||
      (existed && fsync (fd) != 0))
    {
      saved_errno = errno;
      close (fd);
      unlinkat (dir_fd, temp_name, 0);
      close (dir_fd);
      *error_result = pd_tool_result_new_printf (FALSE, "%s: cannot write '%s': %s",
                                                 tool, display, g_strerror (saved_errno));
      return FALSE;
    }

  if (close (fd) != 0 || renameat (dir_fd, temp_name, dir_fd, name) != 0)
    {
      saved_errno = errno;
      unlinkat (dir_fd, temp_name, 0);
      close (dir_fd);
      *error_result = pd_tool_result_new_printf (FALSE, "%s: cannot write '%s': %s",
                                                 tool, display, g_strerror (saved_errno));
      return FALSE;
    }

  close (dir_fd);
  return TRUE;
}
