/* pd-anthropic-provider.c: Anthropic Messages, streamed.
 *
 * The engine speaks OpenAI shapes; this file converts a request to the
 * Messages API (system prompt apart, tool calls as tool_use blocks, tool
 * results as user tool_result blocks, strictly alternating roles) and folds
 * the typed event stream back into one OpenAI-shaped assistant message.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-provider"

#include "config.h"

#include <string.h>

#include "pd-anthropic-provider.h"
#include "pd-http-provider-private.h"
#include "pd-json-util.h"
#include "pd-json.h"
#include "pd-transcript.h"

#define NAME "anthropic"
/* Each token count is bounded before the three are added: a server that
 * claims more is broken, and the sum must not overflow. */
#define MAX_TOKENS ((gint64) G_MAXINT32)
#define API_VERSION "2023-06-01"
#define DEFAULT_MAX_TOKENS 4096
/* Content blocks of one message; far more than any real answer has. */
#define MAX_BLOCK_INDEX 1023
/* Between two text blocks of one answer. */
#define TEXT_BLOCK_SEPARATOR "\n\n"

struct _PdAnthropicProvider
{
  PdHttpProvider parent_instance;
};

G_DEFINE_FINAL_TYPE (PdAnthropicProvider, pd_anthropic_provider, PD_TYPE_HTTP_PROVIDER)

/* ---- request ------------------------------------------------------------ */

static JsonObject *
text_block (const char *text)
{
  JsonObject *block = json_object_new ();

  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", text);
  return block;
}

/* Appends @blocks to the last message when it has the same role, because
 * the Messages API wants user and assistant turns to alternate. */
static void
append_turn (JsonArray  *out,
             const char *role,
             JsonArray  *blocks)
{
  guint n = json_array_get_length (out);

  if (json_array_get_length (blocks) == 0)
    return;

  if (n > 0)
    {
      JsonObject *last = json_array_get_object_element (out, n - 1);

      if (g_strcmp0 (json_object_get_string_member (last, "role"), role) == 0)
        {
          JsonArray *content = json_object_get_array_member (last, "content");

          for (guint i = 0; i < json_array_get_length (blocks); i++)
            json_array_add_element (content, json_node_copy (json_array_get_element (blocks, i)));
          return;
        }
    }

  {
    JsonObject *message = json_object_new ();

    json_object_set_string_member (message, "role", role);
    json_object_set_array_member (message, "content", json_array_ref (blocks));
    json_array_add_object_element (out, message);
  }
}

static JsonNode *
tool_input (const char *arguments)
{
  JsonNode *node = arguments ? pd_json_parse (arguments, -1, NULL) : NULL;

  /* Calls in the transcript were checked when they arrived; anything else
   * (an empty string, a hand-edited session) is sent as no arguments rather
   * than refused, since the model has already seen the result. */
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      g_clear_pointer (&node, json_node_unref);
      node = json_node_init_object (json_node_alloc (), NULL);
      json_node_take_object (node, json_object_new ());
    }

  return node;
}

/* The Messages API has one system prompt: the session's leading system
 * messages, and the context that holds for all of it (the plan message, a
 * compaction digest) wherever it sits. */
static gboolean
in_system_prompt (JsonObject *message,
                  gboolean    started)
{
  return !started || pd_message_is_plan (message) || pd_message_is_digest (message);
}

static gboolean
is_error (JsonObject *message)
{
  return pd_json_get_boolean (message, PD_MESSAGE_IS_ERROR, FALSE);
}

/* The thinking blocks stored with an assistant message, as they came:
 * a model thinking in a tool loop must be shown its own blocks back, and
 * any change breaks their signatures.  Anything else there is left out. */
static void
add_thinking_blocks (JsonArray  *blocks,
                     JsonObject *message)
{
  JsonArray *stored = _pd_provider_json_array (message, "thinking");

  for (guint i = 0; stored != NULL && i < json_array_get_length (stored); i++)
    {
      JsonObject *block = pd_json_array_get_object (stored, i);
      const char *type = _pd_provider_json_string (block, "type");

      if ((g_strcmp0 (type, "thinking") == 0 && _pd_provider_json_string (block, "thinking") != NULL &&
           _pd_provider_json_string (block, "signature") != NULL) ||
          (g_strcmp0 (type, "redacted_thinking") == 0 && _pd_provider_json_string (block, "data") != NULL))
        json_array_add_object_element (blocks, json_object_ref (block));
    }
}

static JsonArray *
convert_messages (JsonArray  *messages,
                  gboolean    thinking,
                  GString    *system,
                  GError    **error)
{
  g_autoptr(JsonArray) out = json_array_new ();
  gboolean started = FALSE;

  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonNode *node = json_array_get_element (messages, i);
      g_autoptr(JsonArray) blocks = json_array_new ();
      g_autofree char *text = NULL;
      JsonObject *message;
      const char *role;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG,
                       NAME ": message %u of the request is not a JSON object", i + 1);
          return NULL;
        }

      message = json_node_get_object (node);
      role = _pd_provider_json_string (message, "role");
      text = _pd_provider_content_text (json_object_get_member (message, "content"));
      started = started || g_strcmp0 (role, "system") != 0;

      if (g_strcmp0 (role, "system") == 0 && !in_system_prompt (message, started))
        {
          /* Plandeck's word in the middle of the conversation (a retry
           * hint, a nudge) stays where it was said, as the user's turn:
           * the system prompt is for what holds for the whole session. */
          if (*text != '\0')
            json_array_add_object_element (blocks, text_block (text));
          append_turn (out, "user", blocks);
        }
      else if (g_strcmp0 (role, "system") == 0)
        {
          if (*text != '\0')
            {
              if (system->len > 0)
                g_string_append (system, "\n\n");
              g_string_append (system, text);
            }
        }
      else if (g_strcmp0 (role, "user") == 0)
        {
          /* The API refuses empty text blocks. */
          if (*text != '\0')
            json_array_add_object_element (blocks, text_block (text));
          append_turn (out, "user", blocks);
        }
      else if (g_strcmp0 (role, "assistant") == 0)
        {
          JsonArray *calls = _pd_provider_json_array (message, "tool_calls");

          /* Thinking comes first in an answer, and goes back only while the
           * model thinks (a request without thinking must not carry it). */
          if (thinking)
            add_thinking_blocks (blocks, message);
          if (*text != '\0')
            json_array_add_object_element (blocks, text_block (text));

          for (guint j = 0; calls != NULL && j < json_array_get_length (calls); j++)
            {
              JsonObject *call = pd_json_array_get_object (calls, j);
              JsonObject *function = _pd_provider_json_object (call, "function");
              JsonObject *block;

              if (call == NULL || function == NULL)
                continue;

              block = json_object_new ();
              json_object_set_string_member (block, "type", "tool_use");
              json_object_set_string_member (block, "id", _pd_provider_json_string (call, "id") ?: "");
              json_object_set_string_member (block, "name", _pd_provider_json_string (function, "name") ?: "");
              json_object_set_member (block, "input",
                                      tool_input (_pd_provider_json_string (function, "arguments")));
              json_array_add_object_element (blocks, block);
            }
          append_turn (out, "assistant", blocks);
        }
      else if (g_strcmp0 (role, "tool") == 0)
        {
          JsonObject *block = json_object_new ();

          json_object_set_string_member (block, "type", "tool_result");
          json_object_set_string_member (block, "tool_use_id",
                                         _pd_provider_json_string (message, "tool_call_id") ?: "");
          json_object_set_string_member (block, "content", text);
          /* A failed call says so, not only in its words. */
          if (is_error (message))
            json_object_set_boolean_member (block, "is_error", TRUE);
          json_array_add_object_element (blocks, block);
          append_turn (out, "user", blocks);
        }
      else
        {
          g_autofree char *shown = _pd_provider_sanitize (role ? role : "(none)", 40, NULL);

          g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG,
                       NAME ": message %u has the unknown role “%s”", i + 1, shown);
          return NULL;
        }
    }

  return g_steal_pointer (&out);
}

static JsonArray *
convert_tools (JsonArray *tools)
{
  JsonArray *out = json_array_new ();

  for (guint i = 0; tools != NULL && i < json_array_get_length (tools); i++)
    {
      JsonObject *function = _pd_provider_json_object (pd_json_array_get_object (tools, i), "function");
      JsonObject *tool;
      JsonNode *parameters;
      const char *description;

      if (function == NULL || _pd_provider_json_string (function, "name") == NULL)
        continue;

      tool = json_object_new ();
      json_object_set_string_member (tool, "name", _pd_provider_json_string (function, "name"));
      if ((description = _pd_provider_json_string (function, "description")))
        json_object_set_string_member (tool, "description", description);

      parameters = json_object_get_member (function, "parameters");
      if (parameters != NULL && JSON_NODE_HOLDS_OBJECT (parameters))
        json_object_set_member (tool, "input_schema", json_node_copy (parameters));
      else
        {
          /* The API requires a schema even for a tool without parameters. */
          JsonObject *schema = json_object_new ();

          json_object_set_string_member (schema, "type", "object");
          json_object_set_object_member (schema, "properties", json_object_new ());
          json_object_set_object_member (tool, "input_schema", schema);
        }

      json_array_add_object_element (out, tool);
    }

  return out;
}

static JsonObject *
pd_anthropic_provider_build_body (PdHttpProvider           *provider,
                                  const PdProviderRequest  *request,
                                  GError                  **error)
{
  g_autoptr(JsonObject) body = json_object_new ();
  g_autoptr(GString) system = g_string_new (NULL);
  g_autoptr(JsonArray) tools = NULL;
  JsonArray *messages;
  gboolean thinking;

  thinking = request->thinking_budget > 0 || request->thinking_adaptive;
  if (!(messages = convert_messages (request->messages, thinking, system, error)))
    return NULL;

  json_object_set_string_member (body, "model", request->model);
  if (system->len > 0)
    json_object_set_string_member (body, "system", system->str);
  json_object_set_array_member (body, "messages", messages);

  tools = convert_tools (request->tools);
  if (json_array_get_length (tools) > 0)
    json_object_set_array_member (body, "tools", json_array_ref (tools));

  json_object_set_int_member (body, "max_tokens",
                              request->max_tokens > 0 ? request->max_tokens : DEFAULT_MAX_TOKENS);
  if (thinking)
    {
      JsonObject *config = json_object_new ();

      if (request->thinking_adaptive)
        json_object_set_string_member (config, "type", "adaptive");
      else
        {
          json_object_set_string_member (config, "type", "enabled");
          json_object_set_int_member (config, "budget_tokens", request->thinking_budget);
        }
      json_object_set_object_member (body, "thinking", config);
    }
  /* A thinking model takes no temperature of ours. */
  if (request->temperature >= 0 && !thinking)
    json_object_set_double_member (body, "temperature", request->temperature);
  json_object_set_boolean_member (body, "stream", TRUE);

  return g_steal_pointer (&body);
}

/* ---- response ----------------------------------------------------------- */

typedef enum
{
  BLOCK_OTHER,
  BLOCK_TEXT,
  BLOCK_TOOL_USE,
  BLOCK_THINKING,
  BLOCK_REDACTED_THINKING,
} BlockKind;

typedef struct
{
  BlockKind  kind;
  GString   *text;       /* text, thinking, or the partial JSON of a tool_use */
  char      *id;
  char      *name;
  char      *input;      /* the tool_use input of content_block_start, as JSON text */
  char      *signature;  /* thinking: what proves it unchanged when it is sent back */
  char      *data;       /* redacted_thinking: the encrypted thinking, opaque */
} Block;

static void
block_free (gpointer data)
{
  Block *block = data;

  if (block == NULL)
    return;
  g_string_free (block->text, TRUE);
  g_free (block->id);
  g_free (block->name);
  g_free (block->input);
  g_free (block->signature);
  g_free (block->data);
  g_free (block);
}

typedef struct
{
  PdHttpAnswer         answer;   /* first: the base's part of the state */
  GPtrArray           *blocks;   /* Block by index; holes are NULL */
  char                *refusal;           /* stop_details.explanation */
  char                *refusal_category;  /* stop_details.category */
  gboolean             started;
  gboolean             wrote_text;   /* a text block with text came before */
} Stream;

static void
stream_init (gpointer        state,
             PdHttpProvider *provider)
{
  Stream *stream = state;

  stream->blocks = g_ptr_array_new_with_free_func (block_free);
}

static void
stream_clear (gpointer state)
{
  Stream *stream = state;

  g_ptr_array_unref (stream->blocks);
  g_free (stream->refusal);
  g_free (stream->refusal_category);
}

/* stop_details comes with stop_reason (on message_delta, or in a whole
 * message): {type: "refusal", category, explanation}, either of the last
 * two possibly null.  Server text, so flattened before anyone shows it. */
static void
read_stop_details (Stream     *stream,
                   JsonObject *details)
{
  const char *explanation = _pd_provider_json_string (details, "explanation");
  const char *category = _pd_provider_json_string (details, "category");

  if (explanation != NULL && *explanation != '\0')
    {
      g_free (stream->refusal);
      stream->refusal = _pd_provider_sanitize (explanation, 1000, NULL);
    }
  if (category != NULL && *category != '\0')
    {
      g_free (stream->refusal_category);
      stream->refusal_category = _pd_provider_sanitize (category, 80, NULL);
    }
}

static gboolean
append_to_block (Stream      *stream,
                 Block       *block,
                 const char  *text,
                 GError     **error)
{
  gboolean first = block->text->len == 0;

  if (text == NULL || *text == '\0')
    return TRUE;
  if (!_pd_http_answer_append (&stream->answer, block->text, text, error))
    return FALSE;

  /* Text blocks are paragraphs apart: the second one's first words must not
   * run into the first one's last (build_response joins them the same way). */
  if (block->kind == BLOCK_TEXT && first && stream->wrote_text)
    _pd_http_answer_emit (&stream->answer, PD_PROVIDER_DELTA_TEXT, TEXT_BLOCK_SEPARATOR);

  if (block->kind == BLOCK_TEXT)
    {
      _pd_http_answer_emit (&stream->answer, PD_PROVIDER_DELTA_TEXT, text);
      stream->wrote_text = TRUE;
    }
  else if (block->kind == BLOCK_THINKING)
    _pd_http_answer_emit (&stream->answer, PD_PROVIDER_DELTA_REASONING, text);

  return TRUE;
}

/* Opaque pieces of thinking (a signature, redacted data): kept whole, and
 * counted toward the size of the answer like the rest. */
static gboolean
keep_opaque (Stream      *stream,
             char       **slot,
             const char  *value,
             GError     **error)
{
  if (value == NULL)
    return TRUE;
  if (!_pd_http_provider_count_bytes (NAME, &stream->answer.total, strlen (value), error))
    return FALSE;
  g_free (*slot);
  *slot = g_strdup (value);
  return TRUE;
}

static Block *
start_block (Stream      *stream,
             gint64       index,
             JsonObject  *content_block,
             GError     **error)
{
  const char *type = _pd_provider_json_string (content_block, "type");
  Block *block;

  if (index < 0 || index > MAX_BLOCK_INDEX || content_block == NULL)
    {
      g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_MALFORMED_STREAM,
                   NAME ": content_block_start has no usable index or content_block");
      return NULL;
    }

  if ((guint) index >= stream->blocks->len)
    g_ptr_array_set_size (stream->blocks, (guint) index + 1);

  if (g_ptr_array_index (stream->blocks, index) != NULL)
    {
      g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_MALFORMED_STREAM,
                   NAME ": content block %" G_GINT64_FORMAT " started twice", index);
      return NULL;
    }

  block = g_new0 (Block, 1);
  block->text = g_string_new (NULL);
  g_ptr_array_index (stream->blocks, index) = block;

  if (g_strcmp0 (type, "text") == 0)
    {
      block->kind = BLOCK_TEXT;
      if (!append_to_block (stream, block, _pd_provider_json_string (content_block, "text"), error))
        return NULL;
    }
  else if (g_strcmp0 (type, "tool_use") == 0)
    {
      JsonNode *input = json_object_get_member (content_block, "input");

      block->kind = BLOCK_TOOL_USE;
      block->id = g_strdup (_pd_provider_json_string (content_block, "id"));
      block->name = g_strdup (_pd_provider_json_string (content_block, "name"));
      if (input != NULL && JSON_NODE_HOLDS_OBJECT (input))
        block->input = pd_json_to_string (input, FALSE);
      _pd_http_answer_emit (&stream->answer, PD_PROVIDER_DELTA_TOOL_CALL, block->name);
    }
  else if (g_strcmp0 (type, "thinking") == 0)
    {
      block->kind = BLOCK_THINKING;
      if (!append_to_block (stream, block, _pd_provider_json_string (content_block, "thinking"), error) ||
          !keep_opaque (stream, &block->signature, _pd_provider_json_string (content_block, "signature"), error))
        return NULL;
    }
  else if (g_strcmp0 (type, "redacted_thinking") == 0)
    {
      block->kind = BLOCK_REDACTED_THINKING;
      if (!keep_opaque (stream, &block->data, _pd_provider_json_string (content_block, "data"), error))
        return NULL;
    }
  else
    block->kind = BLOCK_OTHER;   /* server tools and kinds newer than us: not ours to keep */

  return block;
}

static PdProviderError
error_code_for_type (const char *type)
{
  if (g_strcmp0 (type, "rate_limit_error") == 0)
    return PD_PROVIDER_ERROR_RATE_LIMITED;
  if (g_strcmp0 (type, "overloaded_error") == 0)
    return PD_PROVIDER_ERROR_OVERLOADED;
  if (g_strcmp0 (type, "authentication_error") == 0 || g_strcmp0 (type, "permission_error") == 0)
    return PD_PROVIDER_ERROR_AUTH;
  if (g_strcmp0 (type, "invalid_request_error") == 0 || g_strcmp0 (type, "not_found_error") == 0 ||
      g_strcmp0 (type, "request_too_large") == 0)
    return PD_PROVIDER_ERROR_HTTP;
  return PD_PROVIDER_ERROR_SERVER;
}

static void
read_usage (Stream     *stream,
            JsonObject *usage)
{
  gint64 input;

  if (usage == NULL)
    return;

  /* input_tokens leaves out cached tokens; the prompt was all of them. */
  input = _pd_provider_json_int (usage, "input_tokens", -1);
  if (input >= 0)
    stream->answer.input_tokens = MIN (input, MAX_TOKENS)
      + CLAMP (_pd_provider_json_int (usage, "cache_creation_input_tokens", 0), 0, MAX_TOKENS)
      + CLAMP (_pd_provider_json_int (usage, "cache_read_input_tokens", 0), 0, MAX_TOKENS);
  stream->answer.output_tokens = _pd_provider_json_int (usage, "output_tokens", stream->answer.output_tokens);
}

static PdSseResult
on_event (const char  *event,
          const char  *data,
          gsize        length,
          gpointer     user_data,
          GError     **error)
{
  Stream *stream = user_data;
  g_autoptr(JsonNode) root = NULL;
  JsonObject *object;
  const char *type;

  if (!(root = _pd_http_provider_parse_object (NAME, "an event of the stream", data, length, error)))
    return PD_SSE_ERROR;

  object = json_node_get_object (root);
  type = _pd_provider_json_string (object, "type");
  if (type == NULL)
    type = event;

  if (g_strcmp0 (type, "error") == 0)
    {
      JsonObject *inner = _pd_provider_json_object (object, "error");
      const char *error_type = _pd_provider_json_string (inner, "type");

      _pd_http_provider_set_server_error (NAME, error_code_for_type (error_type),
                                          "reported an error in the middle of the response",
                                          data, length, error);
      return PD_SSE_ERROR;
    }

  if (g_strcmp0 (type, "ping") == 0)
    return PD_SSE_CONTINUE;

  if (g_strcmp0 (type, "message_start") == 0)
    {
      stream->started = TRUE;
      read_usage (stream, _pd_provider_json_object (_pd_provider_json_object (object, "message"), "usage"));
      return PD_SSE_CONTINUE;
    }

  if (g_strcmp0 (type, "content_block_start") == 0)
    {
      if (!start_block (stream, _pd_provider_json_int (object, "index", -1),
                        _pd_provider_json_object (object, "content_block"), error))
        return PD_SSE_ERROR;
      return PD_SSE_CONTINUE;
    }

  if (g_strcmp0 (type, "content_block_delta") == 0)
    {
      gint64 index = _pd_provider_json_int (object, "index", -1);
      JsonObject *delta = _pd_provider_json_object (object, "delta");
      const char *delta_type = _pd_provider_json_string (delta, "type");
      Block *block = NULL;
      const char *text = NULL;

      if (index >= 0 && index < (gint64) stream->blocks->len)
        block = g_ptr_array_index (stream->blocks, index);
      if (block == NULL)
        {
          g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_MALFORMED_STREAM,
                       NAME ": a delta for content block %" G_GINT64_FORMAT " that was never started", index);
          return PD_SSE_ERROR;
        }

      if (g_strcmp0 (delta_type, "text_delta") == 0 && block->kind == BLOCK_TEXT)
        text = _pd_provider_json_string (delta, "text");
      else if (g_strcmp0 (delta_type, "input_json_delta") == 0 && block->kind == BLOCK_TOOL_USE)
        text = _pd_provider_json_string (delta, "partial_json");
      else if (g_strcmp0 (delta_type, "thinking_delta") == 0 && block->kind == BLOCK_THINKING)
        text = _pd_provider_json_string (delta, "thinking");
      else if (g_strcmp0 (delta_type, "signature_delta") == 0 && block->kind == BLOCK_THINKING)
        {
          /* The signature comes whole, once, just before the block ends. */
          if (!keep_opaque (stream, &block->signature, _pd_provider_json_string (delta, "signature"), error))
            return PD_SSE_ERROR;
          return PD_SSE_CONTINUE;
        }
      /* citations_delta and future kinds carry nothing we keep. */

      if (!append_to_block (stream, block, text, error))
        return PD_SSE_ERROR;
      return PD_SSE_CONTINUE;
    }

  if (g_strcmp0 (type, "message_delta") == 0)
    {
      JsonObject *delta = _pd_provider_json_object (object, "delta");
      const char *stop_reason = _pd_provider_json_string (delta, "stop_reason");

      _pd_http_answer_set_stop (&stream->answer, stop_reason);
      read_stop_details (stream, _pd_provider_json_object (delta, "stop_details"));
      read_usage (stream, _pd_provider_json_object (object, "usage"));
      return PD_SSE_CONTINUE;
    }

  if (g_strcmp0 (type, "message_stop") == 0)
    return PD_SSE_DONE;

  /* content_block_stop needs nothing; unknown types are newer than us. */
  return PD_SSE_CONTINUE;
}

/* A proxy or a compatible server may answer stream:true with one message. */
static gboolean
read_json_body (gpointer     user_data,
                JsonObject  *object,
                const char  *data,
                gsize        size,
                GError     **error)
{
  Stream *stream = user_data;
  JsonArray *content;

  if (g_strcmp0 (_pd_provider_json_string (object, "type"), "error") == 0)
    return on_event ("error", data, size, stream, error) != PD_SSE_ERROR;

  if (!(content = _pd_provider_json_array (object, "content")))
    {
      g_set_error_literal (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_MALFORMED_STREAM,
                           NAME ": the JSON response has no content array");
      return FALSE;
    }

  read_usage (stream, _pd_provider_json_object (object, "usage"));
  for (guint i = 0; i < json_array_get_length (content); i++)
    {
      JsonObject *block = pd_json_array_get_object (content, i);

      if (block == NULL || !start_block (stream, i, block, error))
        {
          if (error != NULL && *error == NULL)
            g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_MALFORMED_STREAM,
                         NAME ": content block %u of the JSON response is not an object", i);
          return FALSE;
        }
    }

  _pd_http_answer_set_stop (&stream->answer, "end_turn");
  _pd_http_answer_set_stop (&stream->answer, _pd_provider_json_string (object, "stop_reason"));
  read_stop_details (stream, _pd_provider_json_object (object, "stop_details"));

  return TRUE;
}

/* The Messages API's stop reasons: end_turn, stop_sequence, tool_use,
 * max_tokens, model_context_window_exceeded, refusal, pause_turn (a server
 * tool paused; Plandeck runs none, so it ends the turn like end_turn). */
static const char *
finish_reason_for (const char *stop_reason)
{
  if (g_strcmp0 (stop_reason, "tool_use") == 0)
    return PD_FINISH_TOOL_CALLS;
  if (g_strcmp0 (stop_reason, "max_tokens") == 0 ||
      g_strcmp0 (stop_reason, "model_context_window_exceeded") == 0)
    return PD_FINISH_LENGTH;
  if (g_strcmp0 (stop_reason, "refusal") == 0)
    return PD_FINISH_REFUSAL;
  return PD_FINISH_STOP;
}

/* A thinking block as the API wants it back: unchanged, signature and all.
 * One without a signature cannot be sent back (the API would refuse it), so
 * only its text is kept, to show. */
static void
keep_thinking (PdProviderResponse *response,
               Block              *block)
{
  JsonObject *kept = NULL;

  if (block->kind == BLOCK_REDACTED_THINKING && block->data != NULL)
    {
      kept = json_object_new ();
      json_object_set_string_member (kept, "type", "redacted_thinking");
      json_object_set_string_member (kept, "data", block->data);
    }
  else if (block->kind == BLOCK_THINKING)
    {
      if (block->text->len > 0)
        {
          g_autofree char *before = response->reasoning;

          response->reasoning = before ? g_strconcat (before, TEXT_BLOCK_SEPARATOR, block->text->str, NULL)
                                       : g_strdup (block->text->str);
        }
      if (block->signature != NULL && *block->signature != '\0')
        {
          kept = json_object_new ();
          json_object_set_string_member (kept, "type", "thinking");
          json_object_set_string_member (kept, "thinking", block->text->str);
          json_object_set_string_member (kept, "signature", block->signature);
        }
    }

  if (kept == NULL)
    return;
  if (response->thinking == NULL)
    response->thinking = json_array_new ();
  json_array_add_object_element (response->thinking, kept);
}

static PdProviderResponse *
build_response (gpointer   user_data,
                GError   **error)
{
  Stream *stream = user_data;
  g_autoptr(PdProviderResponse) response = pd_provider_response_new ();
  g_autoptr(GString) content = g_string_new (NULL);
  const char *finish = finish_reason_for (stream->answer.stop);
  gboolean refused = g_strcmp0 (finish, PD_FINISH_REFUSAL) == 0;

  for (guint i = 0; i < stream->blocks->len; i++)
    {
      Block *block = g_ptr_array_index (stream->blocks, i);

      if (block == NULL)
        continue;

      if (block->kind == BLOCK_TEXT && block->text->len > 0)
        {
          if (content->len > 0)
            g_string_append (content, TEXT_BLOCK_SEPARATOR);
          g_string_append_len (content, block->text->str, (gssize) block->text->len);
        }
      else if (block->kind == BLOCK_THINKING || block->kind == BLOCK_REDACTED_THINKING)
        keep_thinking (response, block);
      else if (block->kind == BLOCK_TOOL_USE && !refused)
        {
          /* Streamed input arrives only as partial_json; the input of
           * content_block_start is the whole of it when nothing streamed.
           * A refused answer's calls are never run, whole or not. */
          const char *arguments = block->text->len > 0 ? block->text->str
                                  : block->input ? block->input : "{}";

          json_array_add_object_element (response->tool_calls,
                                         _pd_provider_new_tool_call (block->id, block->name, arguments));
        }
    }

  g_free (response->content);
  response->content = g_strndup (content->str, content->len);
  g_free (response->finish_reason);
  response->finish_reason = g_strdup (finish);
  response->stop_reason = g_strdup (stream->answer.stop);

  if (refused)
    {
      response->refusal = g_strdup (stream->refusal);
      response->refusal_category = g_strdup (stream->refusal_category);
    }

  return g_steal_pointer (&response);
}

static void
pd_anthropic_provider_add_headers (PdHttpProvider     *provider,
                                   SoupMessageHeaders *headers,
                                   const char         *api_key)
{
  soup_message_headers_replace (headers, "anthropic-version", API_VERSION);
  if (api_key != NULL && *api_key != '\0')
    soup_message_headers_replace (headers, "x-api-key", api_key);
}

static const PdHttpReader reader = {
  sizeof (Stream), stream_init, stream_clear,
  read_json_body, on_event, "no stop_reason and no message_stop", build_response,
};

/* ---- object ------------------------------------------------------------- */

static void
pd_anthropic_provider_class_init (PdAnthropicProviderClass *klass)
{
  PdHttpProviderClass *http_class = PD_HTTP_PROVIDER_CLASS (klass);

  http_class->name = NAME;
  http_class->default_base_url = "https://api.anthropic.com";
  http_class->base_url_variable = "ANTHROPIC_BASE_URL";
  http_class->key_variable = "ANTHROPIC_API_KEY";
  http_class->endpoint = "/v1/messages";
  http_class->official_host = "api.anthropic.com";
  http_class->build_body = pd_anthropic_provider_build_body;
  http_class->add_headers = pd_anthropic_provider_add_headers;
  http_class->reader = &reader;
}

static void
pd_anthropic_provider_init (PdAnthropicProvider *self)
{
}

PdAnthropicProvider *
pd_anthropic_provider_new (const char *base_url,
                           const char *api_key)
{
  return PD_ANTHROPIC_PROVIDER (_pd_http_provider_new (PD_TYPE_ANTHROPIC_PROVIDER, base_url, api_key));
}
