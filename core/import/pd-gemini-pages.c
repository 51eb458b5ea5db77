/* pd-gemini-pages.c: what the pages show of a Gemini CLI message.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-gemini-reader-private.h"
#include "pd-import-private.h"
#include "pd-json.h"

void
_pd_gemini_call_text_free (PdGeminiCallText *text)
{
  g_free (text->arguments);
  g_free (text->display);
  g_free (text->id);
  g_free (text->name);
  g_free (text);
}

/* The text of a message's content: a string, a part ({text}) or parts. */
char *
_pd_gemini_content_text (JsonNode *content)
{
  GString *out;
  JsonArray *array;

  if (content == NULL)
    return NULL;
  if (pd_json_node_get_string (content) != NULL)
    return g_strdup (pd_json_node_get_string (content));
  if (JSON_NODE_HOLDS_OBJECT (content))
    return g_strdup (pd_json_get_string (json_node_get_object (content), "text"));
  if (!JSON_NODE_HOLDS_ARRAY (content))
    return NULL;
  array = json_node_get_array (content);
  out = g_string_new (NULL);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);
      const char *text = NULL;

      if (JSON_NODE_HOLDS_OBJECT (element))
        text = pd_json_get_string (json_node_get_object (element), "text");
      else
        text = pd_json_node_get_string (element);
      if (text == NULL)
        continue;
      if (out->len > 0)
        g_string_append (out, "\n\n");
      g_string_append (out, text);
    }
  if (out->len == 0)
    {
      g_string_free (out, TRUE);
      return NULL;
    }
  return g_string_free (out, FALSE);
}

void
_pd_gemini_message_to_pages (PdTranscriptPages *pages,
                             PdGeminiMessage   *message)
{
  JsonObject *object;
  JsonArray *calls, *thoughts;
  const char *type;
  g_autofree char *text = NULL;

  if (message->node == NULL && message->unshown > 0)
    {
      /* Said in its place, and its calls named with the head of their
       * arguments: a call never goes unsaid. */
      _pd_import_add_unshown (pages, NULL, PD_IMPORT_UNSHOWN_OVER_BUDGET, message->unshown, message->time);
      for (guint i = 0; message->call_texts && i < message->call_texts->len; i++)
        {
          PdGeminiCallText *texts = g_ptr_array_index (message->call_texts, i);

          _pd_transcript_pages_add_tool_call_head (pages, NULL, texts->id, texts->name, texts->arguments,
                                                   texts->left_out, message->id, message->time);
        }
    }
  if (message->node == NULL)
    return;
  object = json_node_get_object (message->node);
  type = pd_json_get_string (object, "type");
  text = _pd_gemini_content_text (json_object_get_member (object, "content"));

  thoughts = pd_json_get_array (object, "thoughts");
  for (guint i = 0; thoughts && i < json_array_get_length (thoughts); i++)
    {
      JsonNode *element = json_array_get_element (thoughts, i);
      JsonObject *thought;
      g_autofree char *joined = NULL;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      thought = json_node_get_object (element);
      joined = g_strjoin (": ", pd_json_get_string (thought, "subject") ? pd_json_get_string (thought, "subject") : "",
                          pd_json_get_string (thought, "description") ? pd_json_get_string (thought, "description") : "",
                          NULL);
      _pd_transcript_pages_add_thinking (pages, NULL, joined, message->id, message->time);
    }

  if (text != NULL && *text)
    {
      const char *role = g_strcmp0 (type, "user") == 0 ? "user" : g_strcmp0 (type, "gemini") == 0 ? "assistant" : "system";

      _pd_transcript_pages_add_text (pages, NULL, role, text, message->id, message->time);
    }

  calls = pd_json_get_array (object, "toolCalls");
  for (guint i = 0; calls && i < json_array_get_length (calls); i++)
    {
      JsonNode *element = json_array_get_element (calls, i);
      PdGeminiCallText *texts = message->call_texts && i < message->call_texts->len
                        ? g_ptr_array_index (message->call_texts, i) : NULL;
      JsonObject *call;
      g_autofree char *output = NULL;
      gint64 time;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      call = json_node_get_object (element);
      time = _pd_import_parse_time (pd_json_get_string (call, "timestamp"));
      if (time == 0)
        time = message->time;
      /* Its arguments up to their bound, from the record's text. */
      _pd_transcript_pages_add_tool_call_head (pages, NULL, pd_json_get_string (call, "id"),
                                               pd_json_get_string (call, "name"), texts ? texts->arguments : NULL,
                                               texts ? texts->left_out : 0, message->id, time);

      /* What a person saw: the display text, else the response's output. */
      if (texts != NULL && texts->display != NULL)
        output = g_strdup (texts->display);
      else
        {
          JsonArray *result = pd_json_get_array (call, "result");

          for (guint j = 0; output == NULL && result && j < json_array_get_length (result); j++)
            {
              JsonNode *part = json_array_get_element (result, j);
              JsonObject *response;

              if (JSON_NODE_HOLDS_OBJECT (part)
                  && (response = pd_json_get_object (pd_json_get_object (json_node_get_object (part), "functionResponse"),
                                                     "response")))
                output = g_strdup (pd_json_get_string (response, "output") ? pd_json_get_string (response, "output")
                                                                           : pd_json_get_string (response, "error"));
            }
        }
      if (json_object_has_member (call, "status") || output != NULL)
        _pd_transcript_pages_add_tool_result (pages, NULL, pd_json_get_string (call, "id"), output,
                                              g_strcmp0 (pd_json_get_string (call, "status"), "error") == 0, time);
    }
}

