/* pd-claude-code-pages.c: the Claude Code reader's conversation, for the
 * pages (the Transcript and the events of an imported session): every line
 * read whole, its text, thinking, tool calls and results in the
 * conversation it belongs to.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-claude-code-reader-private.h"
#include "pd-transcript-pages-private.h"

/* The conversation a line belongs to: NULL for the session's own; a
 * subagent's id for its transcript file (Claude Code 2.x; the id of its
 * lines, or its file's name); the first line's uuid for a subagent written
 * inline as sidechain lines (1.0.x), whose lines chain by parentUuid. */
static char *
conversation_of (PdClaudeCodeReader *self,
                 gboolean            is_main,
                 const char         *path,
                 JsonObject         *line)
{
  const char *uuid = pd_json_get_string (line, "uuid");
  const char *parent = pd_json_get_string (line, "parentUuid");
  const char *root;

  if (!is_main)
    {
      const char *agent = pd_json_get_string (line, "agentId");
      g_autofree char *base = NULL;

      if (agent != NULL && *agent != '\0')
        return g_strdup (agent);
      base = g_path_get_basename (path);
      if (g_str_has_suffix (base, ".jsonl"))
        base[strlen (base) - strlen (".jsonl")] = '\0';
      return g_strdup (g_str_has_prefix (base, "agent-") ? base + strlen ("agent-") : base);
    }
  if (!pd_json_get_boolean (line, "isSidechain", FALSE))
    return NULL;

  if (self->sidechains == NULL)
    self->sidechains = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  root = parent ? g_hash_table_lookup (self->sidechains, parent) : NULL;
  if (root == NULL)
    root = uuid ? uuid : "sidechain";
  if (uuid != NULL && !g_hash_table_contains (self->sidechains, uuid))
    g_hash_table_insert (self->sidechains, g_strdup (uuid), g_strdup (root));
  return g_strdup (root);
}

/* The text between <@tag> and </@tag> in @text, stripped; NULL when
 * @text has no such pair. */
static char *
tag_text (const char *text,
          const char *tag)
{
  g_autofree char *open = g_strdup_printf ("<%s>", tag);
  g_autofree char *close = g_strdup_printf ("</%s>", tag);
  const char *start = strstr (text, open);
  const char *end;

  if (start == NULL)
    return NULL;
  start += strlen (open);
  end = strstr (start, close);
  if (end == NULL)
    return NULL;
  return g_strstrip (g_strndup (start, end - start));
}

/* Claude Code writes a slash command the person typed in the terminal as
 * a user line of tags, "<command-name>/compact</command-name>
 * <command-message>compact</command-message> <command-args>…</command-args>",
 * and what a local command printed as "<local-command-stdout>…": the
 * Transcript showed the tags raw (tried as a new user would).  Returns the
 * text to show instead, the command as typed ("/compact args") or what it
 * printed (@output set), or NULL for a line that is not such a record. */
static char *
command_record_text (const char *text,
                     gboolean   *output)
{
  *output = FALSE;
  while (g_ascii_isspace (*text))
    text++;
  if (g_str_has_prefix (text, "<command-"))
    {
      g_autofree char *name = tag_text (text, "command-name");
      g_autofree char *args = tag_text (text, "command-args");

      if (name == NULL || name[0] == '\0')
        return NULL;
      return g_strconcat (name[0] == '/' ? "" : "/", name,
                          args != NULL && args[0] != '\0' ? " " : "", args != NULL ? args : "", NULL);
    }
  *output = TRUE;
  if (g_str_has_prefix (text, "<local-command-stdout>"))
    return tag_text (text, "local-command-stdout");
  if (g_str_has_prefix (text, "<local-command-stderr>"))
    return tag_text (text, "local-command-stderr");
  *output = FALSE;
  return NULL;
}

/* A person's text, a slash command as typed; what a command printed is
 * the harness's (an empty output is left out). */
static void
add_user_text (PdClaudeCodeReader *self,
               const char         *key,
               const char         *role,
               const char         *text,
               gint64              time)
{
  gboolean output = FALSE;
  g_autofree char *command = text != NULL ? command_record_text (text, &output) : NULL;

  _pd_transcript_pages_add_text (self->pages, key, output ? "system" : role,
                                 command != NULL ? command : text, NULL, time);
}

/* A user line: the person's prompt (or context the harness wrote, marked
 * isMeta, or a compaction summary), and the results of tool calls. */
static void
conversation_user (PdClaudeCodeReader *self,
                   const char         *key,
                   JsonObject         *line,
                   gint64              time)
{
  JsonNode *content = pd_json_get_member (pd_json_get_object (line, "message"), "content");
  JsonObject *result = pd_json_get_object (line, "toolUseResult");
  const char *role = pd_json_get_boolean (line, "isMeta", FALSE) || pd_json_get_boolean (line, "isCompactSummary", FALSE)
                     ? "system" : "user";
  const char *answered = NULL;
  guint n_results = 0;
  JsonArray *blocks;

  if (pd_json_node_get_string (content) != NULL)
    {
      add_user_text (self, key, role, pd_json_node_get_string (content), time);
      return;
    }
  if (content == NULL || !JSON_NODE_HOLDS_ARRAY (content))
    return;

  blocks = json_node_get_array (content);
  for (guint i = 0; i < json_array_get_length (blocks); i++)
    {
      JsonNode *element = json_array_get_element (blocks, i);
      JsonObject *block;
      const char *type;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      block = json_node_get_object (element);
      type = pd_json_get_string (block, "type");
      if (g_strcmp0 (type, "text") == 0)
        add_user_text (self, key, role, pd_json_get_string (block, "text"), time);
      else if (g_strcmp0 (type, "tool_result") == 0)
        {
          g_autofree char *text = _pd_import_result_text (json_object_get_member (block, "content"));

          answered = pd_json_get_string (block, "tool_use_id");
          n_results++;
          _pd_transcript_pages_add_tool_result (self->pages, key, answered, text,
                                                pd_json_get_boolean (block, "is_error", FALSE), time);
        }
    }

  /* A subagent's result names the transcript it wrote (Claude Code 2.1):
   * its conversation goes under the call that started it. */
  if (n_results == 1 && pd_json_get_string (result, "agentId") != NULL)
    _pd_transcript_pages_set_subagent (self->pages, answered, pd_json_get_string (result, "agentId"),
                                       NULL, pd_json_get_string (result, "agentType"), NULL);
}

/* An assistant line: one content block (or several) of one answer. */
static void
conversation_assistant (PdClaudeCodeReader *self,
                        const char         *key,
                        JsonObject         *line,
                        gint64              time)
{
  JsonObject *message = pd_json_get_object (line, "message");
  JsonArray *blocks = pd_json_get_array (message, "content");
  const char *group = pd_json_get_string (message, "id");

  if (pd_json_get_string (message, "content") != NULL)
    _pd_transcript_pages_add_text (self->pages, key, "assistant", pd_json_get_string (message, "content"), group, time);
  for (guint i = 0; blocks && i < json_array_get_length (blocks); i++)
    {
      JsonNode *element = json_array_get_element (blocks, i);
      JsonObject *block;
      const char *type;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      block = json_node_get_object (element);
      type = pd_json_get_string (block, "type");
      if (g_strcmp0 (type, "text") == 0)
        _pd_transcript_pages_add_text (self->pages, key, "assistant", pd_json_get_string (block, "text"), group, time);
      else if (g_strcmp0 (type, "thinking") == 0)
        _pd_transcript_pages_add_thinking (self->pages, key, pd_json_get_string (block, "thinking"), group, time);
      else if (g_strcmp0 (type, "tool_use") == 0)
        {
          const char *id = pd_json_get_string (block, "id");
          const char *name = pd_json_get_string (block, "name");
          JsonNode *input = json_object_get_member (block, "input");
          g_autofree char *arguments = input ? json_to_string (input, FALSE) : NULL;
          JsonObject *args = pd_json_get_object (block, "input");

          _pd_transcript_pages_add_tool_call (self->pages, key, id, name, arguments, group, time);
          /* Task (Agent since 2.1) starts a subagent with a prompt: the
           * conversation whose first prompt it is, when nothing else links
           * them (2.0's flat files, 1.0's sidechains). */
          if (g_strcmp0 (name, "Task") == 0 || g_strcmp0 (name, "Agent") == 0)
            _pd_transcript_pages_set_subagent (self->pages, id, NULL, pd_json_get_string (args, "prompt"),
                                               pd_json_get_string (args, "subagent_type"),
                                               pd_json_get_string (args, "description"));
        }
    }
}

void
_pd_claude_conversation_line (PdClaudeCodeReader *self,
                              gboolean            is_main,
                              const char         *path,
                              JsonObject         *line,
                              gint64              time)
{
  const char *type = pd_json_get_string (line, "type");
  g_autofree char *key = NULL;

  if (type == NULL)
    return;
  key = conversation_of (self, is_main, path, line);
  if (strcmp (type, "user") == 0)
    conversation_user (self, key, line, time);
  else if (strcmp (type, "assistant") == 0)
    conversation_assistant (self, key, line, time);
  else if (strcmp (type, "system") == 0
           && (g_strcmp0 (pd_json_get_string (line, "subtype"), "compact_boundary") == 0
               || g_strcmp0 (pd_json_get_string (line, "subtype"), "api_error") == 0))
    _pd_transcript_pages_add_text (self->pages, key, "system", pd_json_get_string (line, "content"), NULL, time);
}

void
_pd_claude_conversation_unread (PdClaudeCodeReader *self,
                                gboolean            is_main,
                                const char         *path,
                                gboolean            too_long,
                                gsize               length,
                                gint64              time)
{
  /* Its own conversation, or its subagent file's: an inline sidechain's
   * line is not known as one unread. */
  g_autofree char *key = conversation_of (self, is_main, path, NULL);

  if (too_long)
    _pd_import_add_unshown (self->pages, key, PD_IMPORT_UNSHOWN_TOO_LONG, length, time);
  else
    _pd_import_add_unshown (self->pages, key, PD_IMPORT_UNSHOWN_TOO_MANY_VALUES, length, time);
}
