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
  if (text->packed)
    {
      g_free (text);
      return;
    }
  g_free (text->arguments);
  g_free (text->id);
  g_free (text->name);
  g_free (text->output);
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

/* What a person saw of a call's result: the display text (from the
 * record's text, @span), else the response's output. */
static char *
call_output (JsonObject *call,
             PdJsonSpan  span)
{
  PdJsonSpan value = { NULL, 0 };
  JsonArray *result;

  if (span.length > 0 && pd_json_span_get_member (span, "resultDisplay", &value) && pd_json_span_is_string (value))
    return pd_json_span_dup_string (value);
  result = pd_json_get_array (call, "result");
  for (guint j = 0; result && j < json_array_get_length (result); j++)
    {
      JsonNode *part = json_array_get_element (result, j);
      JsonObject *response;

      if (JSON_NODE_HOLDS_OBJECT (part)
          && (response = pd_json_get_object (pd_json_get_object (json_node_get_object (part), "functionResponse"),
                                             "response")))
        return g_strdup (pd_json_get_string (response, "output") ? pd_json_get_string (response, "output")
                                                                 : pd_json_get_string (response, "error"));
    }
  return NULL;
}

static gsize
message_bytes (PdGeminiMessage *message)
{
  /* The message itself too: its structure, id and place in the lists (a
   * file of tiny messages held 5 times its size in them). */
  gsize bytes = 2 * PD_IMPORT_VALUE_BYTES + _pd_import_text_bytes (message->text);

  for (guint i = 0; message->thoughts && i < message->thoughts->len; i++)
    bytes += _pd_import_text_bytes (g_ptr_array_index (message->thoughts, i));
  for (guint i = 0; message->call_texts && i < message->call_texts->len; i++)
    {
      PdGeminiCallText *text = g_ptr_array_index (message->call_texts, i);

      bytes += PD_IMPORT_VALUE_BYTES + _pd_import_text_bytes (text->arguments) + _pd_import_text_bytes (text->id)
               + _pd_import_text_bytes (text->name) + _pd_import_text_bytes (text->output);
    }
  return bytes;
}

/* Texts packed into one block after @text's structure: a call of
 * Gemini CLI's kept its structure and four texts in five blocks until
 * the replay, each block's overhead more than its tiny text (a 10 MB
 * transcript of tiny calls peaked at 7.6 times its size, tried as an
 * attacker would). */
static PdGeminiCallText *
call_text_pack (PdGeminiCallText *text)
{
  char **fields[] = { &text->arguments, &text->id, &text->name, &text->output };
  gsize lengths[G_N_ELEMENTS (fields)];
  gsize size = sizeof (PdGeminiCallText);
  PdGeminiCallText *packed;
  char *at;

  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      lengths[i] = *fields[i] != NULL ? strlen (*fields[i]) + 1 : 0;
      size += lengths[i];
    }
  packed = g_malloc (size);
  *packed = *text;
  packed->packed = TRUE;
  at = (char *) (packed + 1);
  {
    char **to[] = { &packed->arguments, &packed->id, &packed->name, &packed->output };

    for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
      {
        if (*fields[i] == NULL)
          continue;
        memcpy (at, *fields[i], lengths[i]);
        *to[i] = at;
        at += lengths[i];
      }
  }
  _pd_gemini_call_text_free (text);
  return packed;
}

static void
message_pack_calls (PdGeminiMessage *message)
{
  for (guint i = 0; message->call_texts && i < message->call_texts->len; i++)
    {
      PdGeminiCallText *text = g_ptr_array_index (message->call_texts, i);

      if (!text->packed)
        message->call_texts->pdata[i] = call_text_pack (text);
    }
}

void
_pd_gemini_message_keep (PdGeminiMessage *message,
                         JsonObject      *object,
                         PdJsonSpan       record,
                         PdImportBudget  *budget)
{
  const char *type = pd_json_get_string (object, "type");
  JsonArray *thoughts = pd_json_get_array (object, "thoughts");
  JsonArray *calls = pd_json_get_array (object, "toolCalls");
  PdJsonSpan spans = { NULL, 0 };
  gsize cursor = 0;
  gsize bytes;

  message->role = g_strcmp0 (type, "user") == 0 ? "user" : g_strcmp0 (type, "gemini") == 0 ? "assistant" : "system";
  message->text = _pd_gemini_content_text (json_object_get_member (object, "content"));
  for (guint i = 0; thoughts && i < json_array_get_length (thoughts); i++)
    {
      JsonNode *element = json_array_get_element (thoughts, i);
      const char *subject, *description;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      subject = pd_json_get_string (json_node_get_object (element), "subject");
      description = pd_json_get_string (json_node_get_object (element), "description");
      if (message->thoughts == NULL)
        message->thoughts = g_ptr_array_new_with_free_func (g_free);
      g_ptr_array_add (message->thoughts, g_strjoin (": ", subject ? subject : "", description ? description : "", NULL));
    }
  if (record.length > 0)
    pd_json_span_get_member (record, "toolCalls", &spans);
  for (guint i = 0; calls && i < json_array_get_length (calls); i++)
    {
      JsonNode *element = json_array_get_element (calls, i);
      PdGeminiCallText *text = g_new0 (PdGeminiCallText, 1);
      PdJsonSpan span = { NULL, 0 }, value = { NULL, 0 };

      /* The record's call beside the tree's (one walk of its calls). */
      if (spans.length > 0 && !pd_json_span_next_element (spans, &cursor, &span))
        spans.length = span.length = 0;

      if (message->call_texts == NULL)
        message->call_texts = g_ptr_array_new_with_free_func ((GDestroyNotify) _pd_gemini_call_text_free);
      g_ptr_array_add (message->call_texts, text);
      /* Its arguments up to their bound, from the record's text. */
      if (span.length > 0 && pd_json_span_get_member (span, "args", &value))
        text->arguments = _pd_transcript_pages_head_of_span (value.text, value.length,
                                                             PD_TRANSCRIPT_PAGES_TOOL_TEXT_MAX + 8, &text->left_out);
      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      {
        JsonObject *call = json_node_get_object (element);

        text->element = TRUE;
        text->id = g_strdup (pd_json_get_string (call, "id"));
        text->name = g_strdup (pd_json_get_string (call, "name"));
        text->time = _pd_import_parse_time (pd_json_get_string (call, "timestamp"));
        if (text->time == 0)
          text->time = message->time;
        text->output = call_output (call, span);
        text->has_result = json_object_has_member (call, "status") || text->output != NULL;
        text->failed = g_strcmp0 (pd_json_get_string (call, "status"), "error") == 0;
      }
    }

  /* Kept until the replay, with every other message's: taken from the
   * session's budget, or said unshown in its place (its calls named with
   * the head of their arguments). */
  bytes = message_bytes (message);
  if (_pd_import_budget_take (budget, bytes))
    {
      message->shown = TRUE;
      message->bytes = bytes;
      message->budget = budget;
      message_pack_calls (message);
      return;
    }
  message->unshown = MAX (record.length, 1);
  g_clear_pointer (&message->text, g_free);
  g_clear_pointer (&message->thoughts, g_ptr_array_unref);
  for (guint i = 0; message->call_texts && i < message->call_texts->len; i++)
    g_clear_pointer (&((PdGeminiCallText *) g_ptr_array_index (message->call_texts, i))->output, g_free);
  message_pack_calls (message);
}

void
_pd_gemini_message_to_pages (PdTranscriptPages *pages,
                             PdGeminiMessage   *message)
{
  if (!message->shown && message->unshown > 0)
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
  if (!message->shown)
    {
      g_clear_pointer (&message->call_texts, g_ptr_array_unref);
      message->unshown = 0;
      return;
    }

  for (guint i = 0; message->thoughts && i < message->thoughts->len; i++)
    _pd_transcript_pages_add_thinking (pages, NULL, g_ptr_array_index (message->thoughts, i), message->id,
                                       message->time);
  if (message->text != NULL && *message->text)
    _pd_transcript_pages_add_text (pages, NULL, message->role, message->text, message->id, message->time);
  for (guint i = 0; message->call_texts && i < message->call_texts->len; i++)
    {
      PdGeminiCallText *texts = g_ptr_array_index (message->call_texts, i);

      if (!texts->element)
        continue;
      _pd_transcript_pages_add_tool_call_head (pages, NULL, texts->id, texts->name, texts->arguments,
                                               texts->left_out, message->id, texts->time);
      if (texts->has_result)
        _pd_transcript_pages_add_tool_result (pages, NULL, texts->id, texts->output, texts->failed, texts->time);
    }

  /* Handed over: let go (a reader's pages are read once, by a reader made
   * for them), so the pages reuse what the message held. */
  g_clear_pointer (&message->text, g_free);
  g_clear_pointer (&message->thoughts, g_ptr_array_unref);
  g_clear_pointer (&message->call_texts, g_ptr_array_unref);
  if (message->budget != NULL)
    _pd_import_budget_give (message->budget, message->bytes);
  message->budget = NULL;
  message->bytes = 0;
  message->shown = FALSE;
}
