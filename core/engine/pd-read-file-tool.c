/* pd-read-file-tool.c: the read_file tool — reads a UTF-8 text file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-tools"

#include "config.h"

#include <string.h>

#include "pd-read-file-tool.h"
#include "pd-tool-private.h"

static guint64
count_lines (const char *text,
             gsize       len)
{
  guint64 n = 0;

  for (const char *p = text; (p = memchr (p, '\n', len - (p - text))) != NULL; p++)
    n++;

  if (len > 0 && text[len - 1] != '\n')
    n++;

  return n;
}

/* Start of line @line (1-based), or NULL past the end. */
static const char *
find_line (const char *text,
           gsize       len,
           guint64     line)
{
  const char *p = text;
  const char *end = text + len;

  for (guint64 i = 1; i < line; i++)
    {
      p = memchr (p, '\n', end - p);
      if (p == NULL || p + 1 >= end)
        return NULL;
      p++;
    }

  return p < end ? p : NULL;
}

PdToolResult *
_pd_read_file_run (const PdToolCall *call)
{
  g_auto(PdToolFile) file = { 0 };
  g_autofree char *contents = NULL;
  g_autoptr(GString) out = NULL;
  PdToolResult *err_result = NULL;
  PdToolResult *result;
  const char *path = call->arg[0].string;
  const char *start;
  const char *end;
  const char *cut;
  gint64 offset = call->arg[1].integer;
  gint64 limit = call->arg[2].integer;
  gsize length = 0;
  gsize cap = pd_tool_context_get_output_cap (call->context);
  guint64 total_lines;
  guint64 shown_last;
  gboolean truncated = FALSE;

  if ((err_result = _pd_tool_resolve (call->context, "read_file", path, &file)) ||
      !_pd_tool_read_text_file (call->context, &file, -1, &contents, &length, &err_result))
    return err_result;

  if (length == 0)
    return pd_tool_result_new (TRUE, "[empty file]");

  total_lines = count_lines (contents, length);
  start = find_line (contents, length, (guint64) offset);
  if (start == NULL)
    return pd_tool_result_new_printf (FALSE, "read_file: offset %" G_GINT64_FORMAT " is past the end "
                                      "of '%s', which has %" G_GUINT64_FORMAT " line(s)",
                                      offset, file.display, total_lines);

  /* The end of the requested range of lines. */
  end = start;
  shown_last = (guint64) offset - 1;
  while (end < contents + length && (guint64) (shown_last - offset + 1) < (guint64) limit)
    {
      const char *nl = memchr (end, '\n', contents + length - end);

      end = nl ? nl + 1 : contents + length;
      shown_last++;
    }

  /* Within the output cap, keep whole lines; a single line longer than the
   * cap is cut at a character boundary. */
  if ((gsize) (end - start) > cap)
    {
      const char *limit_p = start + cap;
      const char *p = start;

      cut = NULL;
      shown_last = (guint64) offset - 1;
      while (p < limit_p)
        {
          const char *nl = memchr (p, '\n', limit_p - p);

          if (nl == NULL)
            break;
          p = nl + 1;
          cut = p;
          shown_last++;
        }

      if (cut == NULL)
        {
          cut = g_utf8_find_prev_char (start, limit_p + 1);
          if (cut == NULL || cut <= start)
            cut = limit_p;
        }

      end = cut;
      truncated = TRUE;
    }

  out = g_string_new_len (start, end - start);

  if (truncated || end < contents + length)
    {
      if (out->len > 0 && out->str[out->len - 1] != '\n')
        g_string_append_c (out, '\n');

      if (shown_last < (guint64) offset)
        g_string_append_printf (out, "[truncated: line %" G_GINT64_FORMAT " is longer than the %"
                                G_GSIZE_FORMAT "-byte output limit; use grep or shell to read it]",
                                offset, cap);
      else
        g_string_append_printf (out, "[%sshowed lines %" G_GINT64_FORMAT "-%" G_GUINT64_FORMAT
                                " of %" G_GUINT64_FORMAT "; continue with offset=%" G_GUINT64_FORMAT "]",
                                truncated ? "truncated at the output limit: " : "",
                                offset, shown_last, total_lines, shown_last + 1);
    }

  result = pd_tool_result_new_take (TRUE, g_string_free (g_steal_pointer (&out), FALSE));
  result->truncated = truncated;

  return result;
}
