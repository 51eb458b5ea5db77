/* pd-list-dir-tool.c: the list_dir tool — lists a directory.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-tools"

#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pd-list-dir-tool.h"
#include "pd-tool-private.h"

#define LINK_OUT_NOTE "[a link out of the working directory, or to nothing]"

/* Where the link @name in the directory @dir (resolved) leads, as the
 * model is told: the target relative to the working directory when it is
 * inside it; only that it leads out of it or nowhere, otherwise — one
 * answer for both.  Its text (readlink) is never shown: a link out of the
 * folder would name files outside it, which no refusal does; and two
 * answers told a missing name outside from an existing one (tried as an
 * attacker would, both times). */
static char *
describe_link (PdToolContext *context,
               const char    *dir,
               const char    *name)
{
  g_autofree char *link = g_build_filename (dir, name, NULL);
  g_autofree char *display = NULL;
  char *target = realpath (link, NULL);

  if (target == NULL || !_pd_tool_context_is_inside (context, target))
    {
      free (target);
      return g_strdup (LINK_OUT_NOTE);
    }
  display = pd_tool_context_display_path (context, target);
  free (target);
  return g_filename_display_name (display);
}

/* A name as one line of the listing: a control character in it written as
 * an escape (\n, \t, \xNN), so "a\nb.txt" is one entry, not two; and a
 * name holding " -> " said to be a name, since a file named
 * "x -> " LINK_OUT_NOTE looked like the tool's own note on a link (tried
 * as an attacker would, att15). */
static GString *
name_line (const char *name)
{
  g_autofree char *display = g_filename_display_name (name);
  GString *line = g_string_new (NULL);

  for (const guchar *c = (const guchar *) display; *c != '\0'; c++)
    {
      if (*c == '\n')
        g_string_append (line, "\\n");
      else if (*c == '\t')
        g_string_append (line, "\\t");
      else if (*c == '\r')
        g_string_append (line, "\\r");
      else if (*c < 0x20 || *c == 0x7f)
        g_string_append_printf (line, "\\x%02x", (guint) *c);
      /* C1 (U+0080..U+009F) as UTF-8: a terminal's controls too. */
      else if (c[0] == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f)
        g_string_append_printf (line, "\\u%04x", (guint) *++c);
      else
        g_string_append_c (line, (char) *c);
    }
  return line;
}

PdToolResult *
_pd_list_dir_run (const PdToolCall *call)
{
  g_auto(PdToolFile) file = { 0 };
  g_autoptr(GPtrArray) names = NULL;
  g_autoptr(GString) out = NULL;
  PdToolResult *err_result = NULL;
  PdToolResult *result;
  const char *path = call->arg[0].string;
  gsize cap = pd_tool_context_get_output_cap (call->context);
  struct stat st;
  PdToolStop stop;
  guint shown = 0;
  DIR *dir;
  int fd;

  if (path == NULL || *path == '\0')
    path = ".";

  /* Opened once, without following links on the way; the entries are
   * then looked at relative to this descriptor, never by name. */
  if ((err_result = _pd_tool_resolve (call->context, "list_dir", path, &file)) ||
      (fd = _pd_tool_open_file (call->context, &file, &st, &err_result)) < 0)
    return err_result;

  if (!S_ISDIR (st.st_mode))
    {
      close (fd);
      return pd_tool_result_new_printf (FALSE, "list_dir: '%s' is not a directory (use read_file)",
                                        file.display);
    }

  dir = fdopendir (fd);
  if (dir == NULL)
    {
      int saved_errno = errno;

      close (fd);
      return pd_tool_result_new_printf (FALSE, "list_dir: cannot open '%s': %s",
                                        file.display, g_strerror (saved_errno));
    }

  if (!(names = _pd_tool_read_dir_names (dir, call->context, call->cancellable, &stop)))
    {
      closedir (dir);
      if (stop == PD_TOOL_STOP_DEADLINE)
        return pd_tool_result_new_printf (FALSE, "list_dir: stopped: the run's time budget ran out "
                                          "while reading '%s'", file.display);
      g_cancellable_set_error_if_cancelled (call->cancellable, call->error);
      return NULL;
    }

  if (names->len == 0)
    {
      closedir (dir);
      return pd_tool_result_new (TRUE, "[empty directory]");
    }

  out = g_string_new (NULL);
  for (shown = 0; shown < names->len; shown++)
    {
      const char *name = g_ptr_array_index (names, shown);
      g_autoptr(GString) line = name_line (name);

      if (fstatat (dirfd (dir), name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        {
          if (S_ISDIR (st.st_mode))
            g_string_append_c (line, '/');
          else if (S_ISLNK (st.st_mode))
            {
              g_autofree char *target = describe_link (call->context, file.resolved, name);

              g_string_append_printf (line, " -> %s", target);
            }
        }
      if (strstr (name, " -> ") != NULL)
        g_string_append (line, "  [\" -> \" is part of this name]");
      g_string_append_c (line, '\n');

      if (out->len + line->len > cap)
        break;
      g_string_append_len (out, line->str, line->len);
    }
  closedir (dir);

  if (shown < names->len)
    g_string_append_printf (out, "[truncated: %u more entries not shown]\n", names->len - shown);

  result = pd_tool_result_new_take (TRUE, g_string_free (g_steal_pointer (&out), FALSE));
  result->truncated = shown < names->len;

  return result;
}
