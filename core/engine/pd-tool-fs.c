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
 * Writes go to a temporary file in the opened directory and are renamed
 * there, never through a path.
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

static int
open_with_openat2 (int         root_fd,
                   const char *relative,
                   int         flags)
{
#if defined(__linux__) && defined(SYS_openat2) && defined(RESOLVE_BENEATH)
  struct open_how how = { 0 };
  long fd;

  how.flags = (guint64) flags;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;

  /* EAGAIN: the kernel saw a rename race during resolution and asks for
   * a retry; it is not an answer about the path. */
  for (guint tries = 0; tries < 8; tries++)
    {
      fd = syscall (SYS_openat2, root_fd, relative, &how, sizeof how);
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

/* One component at a time from @root_fd.  The last component is opened
 * with @flags (which hold O_NOFOLLOW), or, with @flags -1, the directory
 * reached is returned as an O_PATH descriptor. */
static int
open_by_walking (int         root_fd,
                 const char *relative,
                 int         flags,
                 gboolean    create_dirs)
{
  g_auto(GStrv) components = g_strsplit (relative, "/", -1);
  int dir_fd = fcntl (root_fd, F_DUPFD_CLOEXEC, 3);
  guint n = g_strv_length (components);
  int fd;

  if (dir_fd < 0)
    return -1;

  /* The last non-empty component is the one opened with @flags. */
  while (n > 0 && (*components[n - 1] == '\0' || strcmp (components[n - 1], ".") == 0))
    n--;

  for (guint i = 0; i + (flags == -1 ? 0 : 1) < n; i++)
    {
      const char *c = components[i];
      int next;

      if (*c == '\0' || strcmp (c, ".") == 0)
        continue;
      if (strcmp (c, "..") == 0)
        {
          /* A resolved path has none; refuse rather than climb. */
          close (dir_fd);
          errno = EXDEV;
          return -1;
        }

      next = walk_into (dir_fd, c, create_dirs);
      close (dir_fd);
      if (next < 0)
        return -1;
      dir_fd = next;
    }

  if (flags == -1)
    return dir_fd;

  if (n == 0)
    fd = openat (dir_fd, ".", flags);
  else if (strcmp (components[n - 1], "..") == 0)
    {
      errno = EXDEV;
      fd = -1;
    }
  else
    fd = openat (dir_fd, components[n - 1], flags);

  {
    int saved_errno = errno;

    close (dir_fd);
    errno = saved_errno;
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
  else if (confined && (saved_errno == ELOOP || saved_errno == EXDEV))
    g_set_error (error, PD_TOOL_ERROR, PD_TOOL_ERROR_OUTSIDE,
                 "'%s' changed while it was being opened: a symbolic link appeared on its "
                 "path, and links met while opening are not followed (they could lead "
                 "outside the working directory); nothing was read or written",
                 display);
  else
    g_set_error (error, PD_TOOL_ERROR, PD_TOOL_ERROR_INVALID_PATH,
                 "cannot open '%s': %s", display, g_strerror (saved_errno));
}

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
  const char *relative = _pd_tool_context_confined_relative (context, resolved);
  int fd = -1;

  g_return_val_if_fail ((flags & O_CREAT) == 0, -1);

  flags |= O_CLOEXEC | O_NOCTTY;

  if (relative == NULL)
    {
      if (!outside_allowed (context, resolved, error))
        return -1;

      /* Confinement is off: the path is opened as the user would. */
      fd = open (resolved, flags);
    }
  else
    {
      flags |= O_NOFOLLOW;

      if (!g_atomic_int_get (&force_walk) && g_atomic_int_get (&openat2_usable))
        fd = open_with_openat2 (_pd_tool_context_get_root_fd (context), relative, flags);

      if (fd < 0 && (g_atomic_int_get (&force_walk) || !g_atomic_int_get (&openat2_usable)))
        fd = open_by_walking (_pd_tool_context_get_root_fd (context), relative, flags, FALSE);
    }

  if (fd < 0)
    set_open_error (context, resolved, relative != NULL, errno, error);

  return fd;
}

/**
 * _pd_tool_open_dir:
 * @resolved: a directory path from pd_tool_context_resolve_path()
 * @create: make the missing directories on the way
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
  const char *relative = _pd_tool_context_confined_relative (context, resolved);
  int fd;

  if (relative == NULL)
    {
      if (!outside_allowed (context, resolved, error))
        return -1;

      if (create && g_mkdir_with_parents (resolved, 0755) != 0)
        fd = -1;
      else
        fd = open (resolved, O_PATH | O_DIRECTORY | O_CLOEXEC);
    }
  else
    {
      /* The walk also serves creating: each directory is made in the one
       * opened before it, never through a name. */
      fd = open_by_walking (_pd_tool_context_get_root_fd (context), relative, -1, create);
    }

  if (fd < 0)
    set_open_error (context, resolved, relative != NULL, errno, error);

  return fd;
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

gboolean
_pd_tool_read_text_file (PdToolContext     *context,
                         const PdToolFile  *file,
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
                     const char        *contents,
                     gsize              length,
                     PdToolResult     **error_result)
{
  const char *tool = file->tool;
  const char *resolved = file->resolved;
  const char *display = file->display;
  g_autofree char *parent = g_path_get_dirname (resolved);
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

  dir_fd = _pd_tool_open_dir (context, parent, TRUE, &error);
  if (dir_fd < 0)
    {
      *error_result = pd_tool_result_new_printf (FALSE, "%s: cannot create the directories of '%s': %s",
                                                 tool, display, error->message);
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
