/* pd-tool-preview.c: what a call of a built-in tool would do, as text for a
 * person asked to approve it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The text is the model's: every line made valid UTF-8, with controls,
 * direction overrides and invisible characters shown as \uXXXX (the set
 * the approval summary escapes), long lines and long texts cut with a note
 * of how much was left out.  It is plain text; a GUI shows it as text.
 */
#define G_LOG_DOMAIN "pd-tools"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "pd-json-util.h"
#include "pd-safe-text.h"
#include "pd-tool-private.h"

/* A person reads this much of one line (a command line whole, as the
 * summary has it); the rest is counted. */
#define PREVIEW_LINE_MAX_CHARS 2000

static gboolean
needs_escape (gunichar c)
{
  return (c < 0x20 && c != '\t') || c == 0x7f || (c >= 0x80 && c < 0xa0) ||
         c == 0x2028 || c == 0x2029 || pd_safe_text_is_invisible (c);
}

/* Appends [@text, @end) as one line: escaped, at most
 * PREVIEW_LINE_MAX_CHARS characters. */
static void
append_line (GString    *out,
             const char *text,
             const char *end)
{
  g_autofree char *valid = g_utf8_make_valid (text, end - text);
  guint n = 0;
  const char *p;

  for (p = valid; *p != '\0' && n < PREVIEW_LINE_MAX_CHARS; p = g_utf8_next_char (p), n++)
    {
      gunichar c = g_utf8_get_char (p);

      if (needs_escape (c))
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_unichar (out, c);
    }
  if (*p != '\0')
    {
      glong rest = g_utf8_strlen (p, -1);

      g_string_append (out, " ");
      /* Translators: the end of a line too long to show whole */
      g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE, "… (%ld more character)",
                                                "… (%ld more characters)", rest), rest);
    }
}

/**
 * _pd_tool_preview_append_text:
 * @text: (nullable): the model's text, one line (a path)
 *
 * Appends @text escaped, its line breaks as \u000a, then a line break.
 */
void
_pd_tool_preview_append_text (GString    *out,
                              const char *text)
{
  if (text != NULL)
    append_line (out, text, text + strlen (text));
  g_string_append_c (out, '\n');
}

/**
 * _pd_tool_preview_new_file:
 * @args: the call's arguments
 *
 * Returns: (transfer full): a preview whose first line is the call's
 *   "path" as the model wrote it, escaped (an empty line when there is none)
 */
GString *
_pd_tool_preview_new_file (JsonObject *args)
{
  GString *out = g_string_new (NULL);

  _pd_tool_preview_append_text (out, pd_json_get_string (args, "path"));

  return out;
}

/**
 * _pd_tool_preview_append_lines:
 * @prefix: put before the first line ("- ", "+ ", "$ ")
 * @next_prefix: put before each later line
 * @text: (nullable): the model's text, any number of lines
 * @max_lines: how many lines are shown; the rest are counted
 *
 * Appends each line of @text ("\n" or "\r\n" ends one) with @prefix; an
 * empty @text as one empty line.
 */
void
_pd_tool_preview_append_lines (GString    *out,
                               const char *prefix,
                               const char *next_prefix,
                               const char *text,
                               guint       max_lines)
{
  const char *p = text != NULL ? text : "";
  const char *end = p + strlen (p);
  guint shown = 0;
  guint rest = 0;

  /* A final line break ends the last line; it starts no empty one. */
  if (end > p && end[-1] == '\n')
    end--;

  for (;;)
    {
      const char *eol = memchr (p, '\n', end - p);
      const char *line_end = eol != NULL ? eol : end;

      if (shown < max_lines)
        {
          g_string_append (out, shown == 0 ? prefix : next_prefix);
          append_line (out, p, line_end > p && line_end[-1] == '\r' ? line_end - 1 : line_end);
          g_string_append_c (out, '\n');
          shown++;
        }
      else
        rest++;
      if (eol == NULL)
        break;
      p = eol + 1;
    }

  if (rest > 0)
    {
      /* Translators: after the first lines of a file or of a text to replace */
      g_string_append_printf (out, g_dngettext (GETTEXT_PACKAGE, "… %u more line",
                                                "… %u more lines", rest), rest);
      g_string_append_c (out, '\n');
    }
}
