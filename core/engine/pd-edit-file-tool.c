/* pd-edit-file-tool.c: the edit_file tool — exact string replacement.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-tools"

#define _GNU_SOURCE

#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gi18n-lib.h>

#include "pd-edit-file-tool.h"
#include "pd-json-util.h"
#include "pd-tool-private.h"

/* The first occurrence of @needle in [@p, @end), or NULL.  memmem() over a
 * window that doubles while nothing is found, so that each call looks at
 * about as much text as lies before the occurrence: the whole rest at every
 * call is what AddressSanitizer checks on each memmem(), which made a
 * replacement of every "a" in a big file quadratic there (and the window
 * costs nothing elsewhere: the search stays linear). */
static const char *
find_next (const char *p,
           const char *end,
           const char *needle,
           gsize       needle_len)
{
  gsize window = MAX (4 * needle_len, 1024);

  while ((gsize) (end - p) >= needle_len)
    {
      gsize span = MIN (window, (gsize) (end - p));
      const char *hit = memmem (p, span, needle, needle_len);

      if (hit != NULL)
        return hit;
      if (span == (gsize) (end - p))
        return NULL;
      /* The next window starts where an occurrence that straddles this
       * one's end would begin. */
      p += span - needle_len + 1;
      if (window < G_MAXSIZE / 2)
        window *= 2;
    }

  return NULL;
}

/* Non-overlapping occurrences, the ones a replacement would touch. */
static guint
count_occurrences (const char *haystack,
                   gsize       length,
                   const char *needle)
{
  gsize needle_len = strlen (needle);
  const char *end = haystack + length;
  guint n = 0;

  for (const char *p = haystack; (p = find_next (p, end, needle, needle_len)) != NULL; p += needle_len)
    n++;

  return n;
}

/* The text with @old_string replaced (every occurrence, or the first) in
 * one pass.  Not g_string_replace(): in GLib 2.74 it moves the rest of the
 * string for each occurrence, so replacing all of a short string in a big
 * file (each "a" of 32 MiB) took hours. */
static GString *
replace_text (const char *text,
              gsize       length,
              const char *old_string,
              const char *new_string,
              gboolean    all)
{
  GString *out = g_string_sized_new (length);
  gsize old_len = strlen (old_string);
  const char *end = text + length;
  const char *p = text;
  const char *hit;

  while ((hit = find_next (p, end, old_string, old_len)) != NULL)
    {
      g_string_append_len (out, p, hit - p);
      g_string_append (out, new_string);
      p = hit + old_len;
      if (!all)
        break;
    }
  g_string_append_len (out, p, end - p);

  return out;
}

PdToolResult *
_pd_edit_file_run (const PdToolCall *call)
{
  g_auto(PdToolFile) file = { 0 };
  g_autofree char *contents = NULL;
  g_autoptr(GString) edited = NULL;
  PdToolResult *err_result = NULL;
  const char *path = call->arg[0].string;
  const char *old_string = call->arg[1].string;
  const char *new_string = call->arg[2].string;
  gboolean replace_all = call->arg[3].boolean;
  gsize length = 0;
  int dir_fd;
  guint n;

  if (*old_string == '\0')
    return pd_tool_result_new (FALSE, "edit_file: 'old_string' is empty; to create a file or "
                               "replace all of it, use write_file");

  if (strcmp (old_string, new_string) == 0)
    return pd_tool_result_new (FALSE, "edit_file: 'old_string' and 'new_string' are identical; "
                               "nothing would change");

  if ((err_result = _pd_tool_resolve (call->context, "edit_file", path, &file)))
    return err_result;

  /* The file is read and written in one folder, opened once: opened by its
   * path twice, the read and the write could each reach another folder of
   * that name (tried as an attacker would). */
  if ((dir_fd = _pd_tool_open_parent (call->context, &file, FALSE, &err_result)) < 0)
    return err_result;
  if (!_pd_tool_read_text_file (call->context, &file, dir_fd, &contents, &length, &err_result))
    {
      close (dir_fd);
      return err_result;
    }

  n = count_occurrences (contents, length, old_string);

  if (n == 0)
    err_result = pd_tool_result_new_printf (FALSE, "edit_file: 'old_string' was not found in '%s'; "
                                            "read the file and copy the text exactly, including "
                                            "whitespace", file.display);
  else if (n > 1 && !replace_all)
    err_result = pd_tool_result_new_printf (FALSE, "edit_file: 'old_string' occurs %u times in '%s'; "
                                            "include more surrounding text to make it unique, or set "
                                            "replace_all to true", n, file.display);
  else
    {
      edited = replace_text (contents, length, old_string, new_string, replace_all);
      _pd_tool_write_file (call->context, &file, dir_fd, edited->str, edited->len, &err_result);
    }
  close (dir_fd);
  if (err_result != NULL)
    return err_result;

  return pd_tool_result_new_printf (TRUE, "edited %s: replaced %u occurrence%s", file.display, n,
                                    n == 1 ? "" : "s");
}

/* The file, then the text taken out and the text put in, as a diff reads:
 * "- " before each old line, "+ " before each new one. */
char *
_pd_edit_file_preview (PdToolContext *context,
                       JsonObject    *args)
{
  GString *out = _pd_tool_preview_new_file (context, args, TRUE);
  const char *old_string = pd_json_get_string (args, "old_string");
  const char *new_string = pd_json_get_string (args, "new_string");

  if (pd_json_get_boolean (args, "replace_all", FALSE))
    {
      /* Translators: under the file name in the preview of an edit */
      g_string_append (out, _("(every occurrence)"));
      g_string_append_c (out, '\n');
    }
  _pd_tool_preview_append_lines (out, "- ", "- ", old_string, PD_TOOL_PREVIEW_MAX_LINES);
  _pd_tool_preview_append_lines (out, "+ ", "+ ", new_string, PD_TOOL_PREVIEW_MAX_LINES);

  return g_string_free (out, FALSE);
}
