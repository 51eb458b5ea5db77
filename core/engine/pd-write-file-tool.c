/* pd-write-file-tool.c: the write_file tool — creates or replaces a file.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-tools"

#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include <glib/gi18n-lib.h>

#include "pd-json-util.h"
#include "pd-tool-private.h"
#include "pd-write-file-tool.h"

PdToolResult *
_pd_write_file_run (const PdToolCall *call)
{
  g_auto(PdToolFile) file = { 0 };
  PdToolResult *err_result = NULL;
  const char *path = call->arg[0].string;
  const char *content = call->arg[1].string;
  gboolean existed;
  gsize length;

  if ((err_result = _pd_tool_resolve (call->context, "write_file", path, &file)))
    return err_result;

  existed = g_file_test (file.resolved, G_FILE_TEST_EXISTS);
  length = strlen (content);

  if (!_pd_tool_write_file (call->context, &file, -1, content, length, &err_result))
    return err_result;

  return pd_tool_result_new_printf (TRUE, "%s %s (%" G_GSIZE_FORMAT " bytes)",
                                    existed ? "replaced" : "created", file.display, length);
}

/* The file, whether it is there already, and its new content, "+ " before
 * each line, the first lines of a long one. */
char *
_pd_write_file_preview (PdToolContext *context,
                        JsonObject    *args)
{
  GString *out = _pd_tool_preview_new_file (context, args, FALSE);
  g_autofree char *resolved = NULL;
  const char *path = pd_json_get_string (args, "path");
  const char *content = pd_json_get_string (args, "content");

  /* The call's one resolution when it has one: what the tool writes. */
  if (context != NULL && pd_tool_context_get_approved_path (context) != NULL)
    resolved = g_strdup (pd_tool_context_get_approved_path (context));
  else if (context != NULL && path != NULL)
    resolved = pd_tool_context_resolve_path (context, path, NULL);
  if (resolved != NULL && *resolved != '\0')
    {
      /* Translators: under the file name in the preview of a write */
      g_string_append (out, g_file_test (resolved, G_FILE_TEST_EXISTS) ? _("(replaces the whole file)")
                                                                       : _("(a new file)"));
      g_string_append_c (out, '\n');
    }
  _pd_tool_preview_append_lines (out, "+ ", "+ ", content, PD_TOOL_PREVIEW_MAX_LINES);

  return g_string_free (out, FALSE);
}
