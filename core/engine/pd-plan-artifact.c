/* pd-plan-artifact.c: the durable markdown plan a person approved.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-engine"

#define _GNU_SOURCE

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "pd-plan-artifact.h"
#include "pd-tool-private.h"

/* A plan is markdown whose first non-blank line is a "# " heading. */
gboolean
pd_plan_artifact_is_plan (const char *markdown)
{
  const char *p = markdown;

  if (markdown == NULL)
    return FALSE;

  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;

  if (p[0] != '#' || (p[1] != ' ' && p[1] != '\t'))
    return FALSE;

  for (p += 2; *p && *p != '\n'; p++)
    if (!g_ascii_isspace (*p))
      return TRUE;

  return FALSE;
}

/* The first heading's text, or "Plan". */
char *
pd_plan_artifact_title (const char *markdown)
{
  g_auto(GStrv) lines = g_strsplit (markdown ? markdown : "", "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];

      if (line[0] == '#')
        {
          while (*line == '#')
            line++;
          if (*line == ' ' || *line == '\t')
            {
              g_autofree char *title = g_strstrip (g_strdup (line));
              if (*title)
                return g_steal_pointer (&title);
            }
        }
    }

  return g_strdup ("Plan");
}

/* Lower-case ASCII letters and digits joined by single hyphens, at most 48
 * characters: a file name on every file system. */
char *
pd_plan_artifact_slug (const char *title)
{
  g_autofree char *ascii = g_str_to_ascii (title ? title : "", "C");
  GString *out = g_string_new (NULL);
  gboolean hyphen = FALSE;

  for (const char *p = ascii; *p && out->len < 48; p++)
    {
      if (g_ascii_isalnum (*p))
        {
          if (hyphen && out->len > 0)
            g_string_append_c (out, '-');
          g_string_append_c (out, g_ascii_tolower (*p));
          hyphen = FALSE;
        }
      else
        hyphen = TRUE;
    }

  while (out->len > 0 && out->str[out->len - 1] == '-')
    g_string_truncate (out, out->len - 1);

  if (out->len == 0)
    g_string_append (out, "plan");

  return g_string_free (out, FALSE);
}

/* Where plans go: the worktree's .plandeck/plans, or, without a worktree,
 * plandeck/plans in the user's data folder.  @base is opened by its name
 * (the person chose it); @relative is walked below it. */
static void
plans_location (const char  *worktree,
                char       **base,
                const char **relative)
{
  if (worktree != NULL && *worktree && g_file_test (worktree, G_FILE_TEST_IS_DIR))
    {
      *base = g_strdup (worktree);
      *relative = PD_PLAN_ARTIFACT_DIR;
    }
  else
    {
      *base = g_strdup (g_get_user_data_dir ());
      *relative = "plandeck/plans";
    }
}

/* "cannot create PATH: No space left on device" */
static void
set_errno_error (GError     **error,
                 int          saved_errno,
                 const char  *what,
                 const char  *path)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved_errno), "%s %s: %s",
               what, path, g_strerror (saved_errno));
}

/* Opens (making it when missing) each folder of @relative below @base_fd,
 * one at a time and never through a symbolic link: a repository can carry
 * .plandeck as a link to any folder of the person's, and the plan it
 * approved would be written there.  Returns an O_PATH descriptor, or -1
 * with @error set. */
static int
open_plans_dir (int          base_fd,
                const char  *base,
                const char  *relative,
                GError     **error)
{
  g_auto(GStrv) parts = g_strsplit (relative, "/", -1);
  g_autofree char *walked = g_strdup (base);
  int dir_fd = fcntl (base_fd, F_DUPFD_CLOEXEC, 3);

  if (dir_fd < 0)
    {
      set_errno_error (error, errno, "cannot open", base);
      return -1;
    }

  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *next_walked = g_build_filename (walked, parts[i], NULL);
      int next;
      struct stat st;

      g_free (walked);
      walked = next_walked;
      if (mkdirat (dir_fd, parts[i], 0755) != 0 && errno != EEXIST)
        {
          set_errno_error (error, errno, "cannot create", walked);
          close (dir_fd);
          return -1;
        }
      next = openat (dir_fd, parts[i], O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (next < 0)
        {
          int saved_errno = errno;

          if (fstatat (dir_fd, parts[i], &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK (st.st_mode))
            g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_LOOP,
                         "%s is a symbolic link: a plan is written only inside its folder, never where a link "
                         "points; remove the link to save plans there", walked);
          else
            set_errno_error (error, saved_errno, "cannot open", walked);
          close (dir_fd);
          return -1;
        }
      close (dir_fd);
      dir_fd = next;
    }

  return dir_fd;
}

/* Writes @content as @name in @dir_fd: a temporary file made there (no
 * link followed), synced, and renamed there. */
static gboolean
write_in_dir (int          dir_fd,
              const char  *dir,
              const char  *name,
              GString     *content,
              GError     **error)
{
  g_autofree char *temp_name = g_strdup_printf (".%s.tmp", name);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  int fd;

  unlinkat (dir_fd, temp_name, 0);
  fd = openat (dir_fd, temp_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0644);
  if (fd < 0)
    {
      set_errno_error (error, errno, "cannot write", path);
      return FALSE;
    }
  if (!_pd_tool_write_all (fd, content->str, content->len) || fsync (fd) != 0)
    {
      set_errno_error (error, errno, "cannot write", path);
      close (fd);
      unlinkat (dir_fd, temp_name, 0);
      return FALSE;
    }
  if (close (fd) != 0 || renameat (dir_fd, temp_name, dir_fd, name) != 0)
    {
      set_errno_error (error, errno, "cannot write", path);
      unlinkat (dir_fd, temp_name, 0);
      return FALSE;
    }
  return TRUE;
}

/**
 * pd_plan_artifact_save:
 * @worktree: (nullable): the session's working directory
 * @when: (nullable): the approval time, now when %NULL
 *
 * Writes the plan below @worktree, never through a symbolic link.
 *
 * Returns: (transfer full): the path written, or %NULL with @error set
 */
char *
pd_plan_artifact_save (const char  *worktree,
                       const char  *session_id,
                       const char  *markdown,
                       GDateTime   *when,
                       GError     **error)
{
  g_autoptr(GDateTime) now = when ? g_date_time_ref (when) : g_date_time_new_now_utc ();
  g_autoptr(GDateTime) utc = g_date_time_to_utc (now);
  g_autofree char *base = NULL;
  const char *relative = NULL;
  g_autofree char *title = pd_plan_artifact_title (markdown);
  g_autofree char *slug = pd_plan_artifact_slug (title);
  g_autofree char *stamp = g_date_time_format (utc, "%Y%m%dT%H%M%SZ");
  g_autofree char *iso = g_date_time_format (utc, "%Y-%m-%dT%H:%M:%SZ");
  g_autofree char *dir = NULL;
  g_autofree char *name = NULL;
  g_autoptr(GString) content = NULL;
  gboolean written;
  int base_fd;
  int dir_fd;
  struct stat st;

  if (!pd_plan_artifact_is_plan (markdown))
    {
      g_set_error_literal (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
                           "a plan artifact must be markdown starting with a # heading");
      return NULL;
    }

  plans_location (worktree, &base, &relative);
  if (g_mkdir_with_parents (base, 0755) != 0)
    {
      set_errno_error (error, errno, "cannot create", base);
      return NULL;
    }
  base_fd = open (base, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (base_fd < 0)
    {
      set_errno_error (error, errno, "cannot open", base);
      return NULL;
    }
  dir_fd = open_plans_dir (base_fd, base, relative, error);
  close (base_fd);
  if (dir_fd < 0)
    return NULL;
  dir = g_build_filename (base, relative, NULL);

  /* Two approvals in one second get distinct names. */
  name = g_strdup_printf ("%s-%s.md", stamp, slug);
  for (guint n = 2; fstatat (dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && n < 1000; n++)
    {
      g_free (name);
      name = g_strdup_printf ("%s-%s-%u.md", stamp, slug, n);
    }

  content = g_string_new (NULL);
  g_string_append_printf (content, "<!-- plandeck plan artifact: session %s, approved %s -->\n\n",
                          session_id ? session_id : "-", iso);
  g_string_append (content, markdown);
  if (content->len == 0 || content->str[content->len - 1] != '\n')
    g_string_append_c (content, '\n');

  written = write_in_dir (dir_fd, dir, name, content, error);
  close (dir_fd);
  if (!written)
    return NULL;

  return g_build_filename (dir, name, NULL);
}

/* Whether @path (resolved, absolute) is inside the worktree's plan folder:
 * the one place plan mode lets a file be written. */
gboolean
pd_plan_artifact_path_is_artifact (const char *worktree,
                                   const char *path)
{
  g_autofree char *dir = NULL;
  g_autofree char *canonical = NULL;
  gsize len;

  if (worktree == NULL || path == NULL)
    return FALSE;

  dir = g_build_filename (worktree, PD_PLAN_ARTIFACT_DIR, NULL);
  canonical = g_canonicalize_filename (path, worktree);
  len = strlen (dir);

  return strncmp (canonical, dir, len) == 0 && canonical[len] == '/' && g_str_has_suffix (canonical, ".md");
}
