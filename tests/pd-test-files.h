/* pd-test-files.h: removing what a test made on disk.  Shared by every
 * test that works in a temporary folder, the core tests (header-only
 * because the test list builds one source file per test), the ui tests
 * and the benchmarks.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <errno.h>
#include <sys/stat.h>

#include <glib.h>
#include <glib/gstdio.h>

/* Removes @path and all under it.  A link is removed, never followed; a
 * folder a test left unreadable or unwritable is opened up first.
 * Returns whether nothing is left at @path. */
static inline gboolean
pd_test_remove_tree (const char *path)
{
  struct stat st;

  if (lstat (path, &st) != 0)
    return errno == ENOENT;

  if (S_ISDIR (st.st_mode))
    {
      GDir *dir;
      const char *name;

      g_chmod (path, 0700);
      dir = g_dir_open (path, 0, NULL);
      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          char *child = g_build_filename (path, name, NULL);

          pd_test_remove_tree (child);
          g_free (child);
        }
      if (dir != NULL)
        g_dir_close (dir);
      g_rmdir (path);
    }
  else
    {
      g_unlink (path);
    }

  return lstat (path, &st) != 0 && errno == ENOENT;
}
