/* pd-codex-pages.c: the Codex reader's conversation, for the
 * pages (the Transcript and the events of an imported session): messages,
 * reasoning summaries, tool calls and their outputs.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-codex-reader-private.h"
#include "pd-import-private.h"
#include "pd-json.h"
#include "pd-transcript-pages-private.h"

/* What the harness puts into the conversation as the user's: the folder,
 * the sandbox, AGENTS.md; shown as context, not as the person's words. */
static gboolean
is_harness_text (const char *text)
{
  static const char * const prefixes[] = {
    "<environment_context>", "<user_instructions>", "<permissions instructions>", "<user_shell_command>",
    "# AGENTS.md instructions", NULL,
  };

  while (g_ascii_isspace (*text))
    text++;
  for (guint i = 0; prefixes[i]; i++)
    if (g_str_has_prefix (text, prefixes[i]))
      return TRUE;
  return FALSE;
}

/* The text parts of a message's content ({type: input_text|output_text,
 * text}), or of a reasoning summary ({type: summary_text, text}), joined. */
static char *
parts_text (JsonArray *parts)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; parts && i < json_array_get_length (parts); i++)
    {
      JsonNode *element = json_array_get_element (parts, i);
      const char *text;

      if (!JSON_NODE_HOLDS_OBJECT (element) || !(text = pd_json_get_string (json_node_get_object (element), "text")))
        continue;
      if (out->len > 0)
        g_string_append (out, "\n\n");
      g_string_append (out, text);
    }
  return g_string_free (out, FALSE);
}

void
_pd_codex_conversation_line (PdCodexReader *self,
                             const char    *type,
                             const char    *kind,
                             JsonObject    *payload,
                             gint64         time)
{
  const char *call_id = pd_json_get_string (payload, "call_id");

  if (strcmp (type, "compacted") == 0)
    {
      _pd_transcript_pages_add_text (self->pages, NULL, "system", pd_json_get_string (payload, "message"), NULL, time);
      return;
    }
  if (strcmp (type, "response_item") != 0 || kind == NULL)
    return;

  if (strcmp (kind, "message") == 0)
    {
      const char *role = pd_json_get_string (payload, "role");
      g_autofree char *text = parts_text (pd_json_get_array (payload, "content"));

      if (g_strcmp0 (role, "assistant") == 0)
        _pd_transcript_pages_add_text (self->pages, NULL, "assistant", text, NULL, time);
      else if (g_strcmp0 (role, "user") == 0)
        _pd_transcript_pages_add_text (self->pages, NULL, is_harness_text (text) ? "system" : "user", text, NULL, time);
      else
        _pd_transcript_pages_add_text (self->pages, NULL, "system", text, NULL, time);
    }
  else if (strcmp (kind, "reasoning") == 0)
    {
      g_autofree char *text = parts_text (pd_json_get_array (payload, "summary"));

      _pd_transcript_pages_add_thinking (self->pages, NULL, text, NULL, time);
    }
  else if (strcmp (kind, "function_call") == 0)
    _pd_transcript_pages_add_tool_call (self->pages, NULL, call_id, pd_json_get_string (payload, "name"),
                                        pd_json_get_string (payload, "arguments"), NULL, time);
  else if (strcmp (kind, "custom_tool_call") == 0)
    _pd_transcript_pages_add_tool_call (self->pages, NULL, call_id, pd_json_get_string (payload, "name"),
                                        pd_json_get_string (payload, "input"), NULL, time);
  else if (strcmp (kind, "local_shell_call") == 0)
    {
      JsonNode *action = json_object_get_member (payload, "action");
      g_autofree char *arguments = action ? json_to_string (action, FALSE) : NULL;

      _pd_transcript_pages_add_tool_call (self->pages, NULL, call_id, "local_shell", arguments, NULL, time);
    }
  else if (strcmp (kind, "function_call_output") == 0 || strcmp (kind, "custom_tool_call_output") == 0)
    {
      gboolean failed;
      g_autofree char *text = _pd_codex_output_text (json_object_get_member (payload, "output"), &failed);
      g_autoptr(JsonNode) wrapped = NULL;
      const char *inner = NULL;

      /* Shell and patch outputs are JSON text themselves ({"output": …,
       * "metadata": {exit_code, …}}): the output is what a person reads. */
      if (text != NULL && text[0] == '{' && (wrapped = _pd_import_parse_json (text, -1)) != NULL
          && JSON_NODE_HOLDS_OBJECT (wrapped))
        inner = pd_json_get_string (json_node_get_object (wrapped), "output");
      _pd_transcript_pages_add_tool_result (self->pages, NULL, call_id, inner ? inner : text, failed, time);
    }
}
