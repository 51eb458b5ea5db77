/* pd-openai-provider.c: OpenAI-compatible Chat Completions, streamed.
 *
 * One request per chat() call; the answer is read as server-sent events and
 * folded into one OpenAI-shaped assistant message.  Servers differ in small
 * ways (reasoning fields, missing tool-call ids or indices, a plain JSON
 * answer despite stream:true), and each of those is accepted here rather
 * than in the engine.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-provider"

#include "config.h"

#include <string.h>

#include "pd-http-provider-private.h"
#include "pd-json.h"
#include "pd-openai-provider.h"
#include "pd-secret-text.h"

#define NAME "openai"
/* Parallel tool calls are counted in units, not hundreds; a larger index is
 * a broken stream, not a reason to allocate. */
#define MAX_TOOL_CALL_INDEX 255

struct _PdOpenAIProvider
{
  PdHttpProvider parent_instance;

  int            next_call_id;   /* ids for servers that send none, unique per provider */
};

G_DEFINE_FINAL_TYPE (PdOpenAIProvider, pd_openai_provider, PD_TYPE_HTTP_PROVIDER)

typedef struct
{
  char    *id;
  char    *name;
  GString *arguments;
} ToolCall;

static void
tool_call_free (gpointer data)
{
  ToolCall *call = data;

  if (call == NULL)
    return;
  g_free (call->id);
  g_free (call->name);
  g_string_free (call->arguments, TRUE);
  g_free (call);
}

typedef struct
{
  PdHttpAnswer         answer;     /* first: the base's part of the state */
  PdOpenAIProvider    *self;
  GString             *content;
  GString             *refusal;    /* delta.refusal / message.refusal: the model declining */
  GString             *reasoning;  /* reasoning_content or reasoning: the model thinking */
  gboolean             reasoning_content; /* the server sent reasoning_content, even empty */
  GPtrArray           *calls;      /* ToolCall by stream index; holes are NULL */
} Stream;

static void
stream_init (gpointer        state,
             PdHttpProvider *provider)
{
  Stream *stream = state;

  stream->self = PD_OPENAI_PROVIDER (provider);
  stream->content = g_string_new (NULL);
  stream->refusal = g_string_new (NULL);
  stream->reasoning = g_string_new (NULL);
  stream->calls = g_ptr_array_new_with_free_func (tool_call_free);
}

static void
stream_clear (gpointer state)
{
  Stream *stream = state;

  g_string_free (stream->content, TRUE);
  g_string_free (stream->refusal, TRUE);
  g_string_free (stream->reasoning, TRUE);
  g_ptr_array_unref (stream->calls);
}

static ToolCall *
tool_call_slot (Stream     *stream,
                JsonObject *delta,
                GError    **error)
{
  gint64 index = _pd_provider_json_int (delta, "index", -1);
  const char *id = _pd_provider_json_string (delta, "id");
  ToolCall *call;

  if (index < 0)
    {
      /* Some servers leave out the index: a new id starts a new call, no id
       * continues the last one. */
      index = -1;
      for (guint i = 0; i < stream->calls->len; i++)
        {
          ToolCall *other = g_ptr_array_index (stream->calls, i);

          if (other != NULL && id != NULL && g_strcmp0 (other->id, id) == 0)
            index = i;
        }
      if (index < 0)
        index = (id != NULL || stream->calls->len == 0) ? (gint64) stream->calls->len
                                                        : (gint64) stream->calls->len - 1;
    }

  if (index > MAX_TOOL_CALL_INDEX)
    {
      g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_MALFORMED_STREAM,
                   NAME ": the stream has a tool call with index %" G_GINT64_FORMAT
                   ", more than %d", index, MAX_TOOL_CALL_INDEX);
      return NULL;
    }

  if ((guint) index >= stream->calls->len)
    g_ptr_array_set_size (stream->calls, (guint) index + 1);

  if (!(call = g_ptr_array_index (stream->calls, index)))
    {
      call = g_new0 (ToolCall, 1);
      call->arguments = g_string_new (NULL);
      g_ptr_array_index (stream->calls, index) = call;
    }

  return call;
}

static gboolean
add_tool_call_delta (Stream     *stream,
                     JsonNode   *node,
                     GError    **error)
{
  JsonObject *delta;
  JsonObject *function;
  ToolCall *call;
  const char *id;
  const char *name;
  JsonNode *arguments;
  const char *text;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error_literal (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_MALFORMED_STREAM,
                           NAME ": a tool call in the stream is not a JSON object");
      return FALSE;
    }

  delta = json_node_get_object (node);
  if (!(call = tool_call_slot (stream, delta, error)))
    return FALSE;

  function = _pd_provider_json_object (delta, "function");
  id = _pd_provider_json_string (delta, "id");
  name = _pd_provider_json_string (function, "name");

  /* The id and name come once; servers that repeat them repeat the same. */
  if (call->id == NULL && id != NULL && *id != '\0')
    call->id = g_strdup (id);

  if (call->name == NULL && name != NULL && *name != '\0')
    {
      call->name = g_strdup (name);
      _pd_http_answer_emit (&stream->answer, PD_PROVIDER_DELTA_TOOL_CALL, call->name);
    }

  arguments = function ? json_object_get_member (function, "arguments") : NULL;
  if ((text = pd_json_node_get_string (arguments)) != NULL)
    {
      if (!_pd_http_answer_append (&stream->answer, call->arguments, text, error))
        return FALSE;
    }
  else if (arguments != NULL && JSON_NODE_HOLDS_OBJECT (arguments))
    {
      /* A few servers send the arguments as an object in one piece. */
      g_autofree char *whole = pd_json_to_string (arguments, FALSE);

      g_string_assign (call->arguments, whole);
    }

  return TRUE;
}

/* Content or reasoning: kept, and streamed. */
static gboolean
add_text (Stream              *stream,
          PdProviderDeltaKind  kind,
          const char          *text,
          GError             **error)
{
  if (!_pd_http_answer_append (&stream->answer, kind == PD_PROVIDER_DELTA_TEXT ? stream->content : stream->reasoning,
                               text, error))
    return FALSE;
  _pd_http_answer_emit (&stream->answer, kind, text);
  return TRUE;
}

/* A refusal is the model's text too, but not an answer: kept apart, and not
 * streamed as content. */
static gboolean
add_refusal (Stream      *stream,
             const char  *text,
             GError     **error)
{
  return _pd_http_answer_append (&stream->answer, stream->refusal, text, error);
}

/* Reasoning, as servers that send it name it: reasoning_content (DeepSeek,
 * vLLM, llama.cpp), or reasoning (others).  Which one came is remembered:
 * a server that sends reasoning_content wants it back with tool calls. */
static const char *
reasoning_of (Stream     *stream,
              JsonObject *delta)
{
  const char *reasoning = _pd_provider_json_string (delta, "reasoning_content");

  if (reasoning != NULL)
    {
      stream->reasoning_content = TRUE;
      return reasoning;
    }
  return _pd_provider_json_string (delta, "reasoning");
}

static void
read_usage (Stream     *stream,
            JsonObject *object)
{
  JsonObject *usage = _pd_provider_json_object (object, "usage");

  if (usage == NULL)
    return;

  stream->answer.input_tokens = _pd_provider_json_int (usage, "prompt_tokens", stream->answer.input_tokens);
  stream->answer.output_tokens = _pd_provider_json_int (usage, "completion_tokens", stream->answer.output_tokens);
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
  JsonArray *choices;

  if (g_strcmp0 (event, "error") != 0)
    {
      if (length == 6 && memcmp (data, "[DONE]", 6) == 0)
        return PD_SSE_DONE;
      if (!(root = _pd_http_provider_parse_object (NAME, "an event of the stream", data, length, error)))
        return PD_SSE_ERROR;
    }

  /* llama.cpp's "error:" lines, and {"error": …} events. */
  if (root == NULL || json_object_has_member (json_node_get_object (root), "error"))
    {
      _pd_http_provider_set_server_error (NAME, PD_PROVIDER_ERROR_SERVER,
                                          "reported an error in the middle of the response",
                                          data, length, error);
      return PD_SSE_ERROR;
    }

  object = json_node_get_object (root);

  read_usage (stream, object);

  choices = _pd_provider_json_array (object, "choices");
  for (guint i = 0; choices != NULL && i < json_array_get_length (choices); i++)
    {
      JsonObject *choice = pd_json_array_get_object (choices, i);
      JsonObject *delta;
      JsonArray *tool_calls;
      const char *finish_reason;
      const char *reasoning;

      /* We ask for one choice; a server that sends more is answered by the first. */
      if (choice == NULL || _pd_provider_json_int (choice, "index", 0) != 0)
        continue;

      delta = _pd_provider_json_object (choice, "delta");

      reasoning = reasoning_of (stream, delta);
      if (!add_text (stream, PD_PROVIDER_DELTA_REASONING, reasoning, error))
        return PD_SSE_ERROR;

      if (!add_text (stream, PD_PROVIDER_DELTA_TEXT, _pd_provider_json_string (delta, "content"), error) ||
          !add_refusal (stream, _pd_provider_json_string (delta, "refusal"), error))
        return PD_SSE_ERROR;

      tool_calls = _pd_provider_json_array (delta, "tool_calls");
      for (guint j = 0; tool_calls != NULL && j < json_array_get_length (tool_calls); j++)
        if (!add_tool_call_delta (stream, json_array_get_element (tool_calls, j), error))
          return PD_SSE_ERROR;

      if ((finish_reason = _pd_provider_json_string (choice, "finish_reason")) && *finish_reason)
        _pd_http_answer_set_stop (&stream->answer, finish_reason);
    }

  return PD_SSE_CONTINUE;
}

/* Some servers ignore stream:true and answer with one chat.completion. */
static gboolean
read_json_body (gpointer     user_data,
                JsonObject  *object,
                const char  *data,
                gsize        size,
                GError     **error)
{
  Stream *stream = user_data;
  JsonObject *choice;
  JsonObject *message;
  JsonArray *tool_calls;
  const char *finish_reason;
  const char *reasoning;
  JsonNode *content;

  if (json_object_has_member (object, "error"))
    {
      _pd_http_provider_set_server_error (NAME, PD_PROVIDER_ERROR_SERVER, "answered with an error", data, size, error);
      return FALSE;
    }

  read_usage (stream, object);

  choice = pd_json_array_get_object (_pd_provider_json_array (object, "choices"), 0);
  if (choice == NULL || !(message = _pd_provider_json_object (choice, "message")))
    {
      g_set_error_literal (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_MALFORMED_STREAM,
                           NAME ": the JSON response has no choices[0].message");
      return FALSE;
    }

  reasoning = reasoning_of (stream, message);
  if (!add_text (stream, PD_PROVIDER_DELTA_REASONING, reasoning, error))
    return FALSE;

  content = json_object_get_member (message, "content");
  if (content != NULL)
    {
      g_autofree char *text = _pd_provider_content_text (content);

      if (!add_text (stream, PD_PROVIDER_DELTA_TEXT, text, error))
        return FALSE;
    }

  if (!add_refusal (stream, _pd_provider_json_string (message, "refusal"), error))
    return FALSE;

  tool_calls = _pd_provider_json_array (message, "tool_calls");
  for (guint i = 0; tool_calls != NULL && i < json_array_get_length (tool_calls); i++)
    {
      JsonNode *call = json_array_get_element (tool_calls, i);

      /* A whole call is the same as a stream delta carrying everything, at
       * its own position. */
      if (JSON_NODE_HOLDS_OBJECT (call) && !json_object_has_member (json_node_get_object (call), "index"))
        json_object_set_int_member (json_node_get_object (call), "index", i);
      if (!add_tool_call_delta (stream, call, error))
        return FALSE;
    }

  finish_reason = _pd_provider_json_string (choice, "finish_reason");
  _pd_http_answer_set_stop (&stream->answer, finish_reason && *finish_reason ? finish_reason : "stop");

  return TRUE;
}

/* finish_reason in OpenAI's words (stop, length, tool_calls,
 * content_filter, function_call) and in those of compatible servers, which
 * sometimes say "stop" when the turn ends in tool calls, or a word of their
 * own ("eos"): the engine goes by finish_reason, so say what the message
 * holds. */
static const char *
finish_reason_for (Stream   *stream,
                   gboolean  has_calls)
{
  const char *word = stream->answer.stop;

  if (stream->refusal->len > 0 || g_strcmp0 (word, "content_filter") == 0)
    return PD_FINISH_REFUSAL;
  if (g_strcmp0 (word, "length") == 0)
    return PD_FINISH_LENGTH;
  if (has_calls)
    return PD_FINISH_TOOL_CALLS;
  return PD_FINISH_STOP;
}

static PdProviderResponse *
build_response (gpointer   user_data,
                GError   **error)
{
  Stream *stream = user_data;
  g_autoptr(PdProviderResponse) response = pd_provider_response_new ();
  const char *finish = finish_reason_for (stream, stream->calls->len > 0);
  gboolean refused = g_strcmp0 (finish, PD_FINISH_REFUSAL) == 0;

  g_free (response->content);
  response->content = g_strndup (stream->content->str, stream->content->len);
  if (stream->reasoning->len > 0)
    response->reasoning = g_strndup (stream->reasoning->str, stream->reasoning->len);
  if (stream->reasoning_content)
    response->reasoning_field = g_strdup ("reasoning_content");

  /* A refused answer's calls are never run, whole or not. */
  for (guint i = 0; !refused && i < stream->calls->len; i++)
    {
      ToolCall *call = g_ptr_array_index (stream->calls, i);
      g_autofree char *id = NULL;

      if (call == NULL)
        continue;

      id = call->id ? g_strdup (call->id)
                    : g_strdup_printf ("call_%d", g_atomic_int_add (&stream->self->next_call_id, 1) + 1);
      json_array_add_object_element (response->tool_calls,
                                     _pd_provider_new_tool_call (id, call->name, call->arguments->str));
    }

  g_free (response->finish_reason);
  response->finish_reason = g_strdup (finish);
  response->stop_reason = g_strdup (stream->answer.stop ? stream->answer.stop : "stop");

  if (refused)
    {
      /* The model's own refusal text is the explanation; a filter that cut
       * the answer gives none, so say what happened. */
      response->refusal = stream->refusal->len > 0
        ? _pd_provider_sanitize (stream->refusal->str, 1000, NULL)
        : g_strdup ("the server's content filter stopped the answer (finish_reason content_filter)");
      if (g_strcmp0 (stream->answer.stop, "content_filter") == 0)
        response->refusal_category = g_strdup ("content_filter");
    }

  return g_steal_pointer (&response);
}

static void
pd_openai_provider_add_headers (PdHttpProvider     *provider,
                                SoupMessageHeaders *headers,
                                const char         *api_key)
{
  if (api_key != NULL && *api_key != '\0')
    {
      char *value = g_strconcat ("Bearer ", api_key, NULL);

      soup_message_headers_replace (headers, "Authorization", value);
      pd_secret_text_free (value);
    }
}

/* The messages as the Chat Completions API takes them: only its own
 * members.  What Plandeck stores beside them (a refusal's explanation,
 * notes' flags, thinking) is not the server's to read, and strict servers
 * refuse members they do not know. */
static JsonArray *
wire_messages (JsonArray *messages)
{
  static const char * const members[] = { "role", "content", "name", "tool_call_id", "tool_calls" };
  JsonArray *out = json_array_sized_new (json_array_get_length (messages));

  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = pd_json_array_get_object (messages, i);
      JsonObject *copy;

      if (message == NULL)
        continue;
      copy = json_object_new ();
      for (guint j = 0; j < G_N_ELEMENTS (members); j++)
        {
          JsonNode *member = json_object_get_member (message, members[j]);

          if (member != NULL)
            json_object_set_member (copy, members[j], json_node_copy (member));
        }

      /* Reasoning goes back only where the server asked for it: with the
       * tool calls of an answer whose server sent reasoning_content (the
       * DeepSeek thinking mode refuses a tool turn without it; servers
       * that never sent it are never sent it). */
      if (json_object_has_member (message, "tool_calls") &&
          _pd_provider_json_string (message, "reasoning_content") != NULL)
        json_object_set_member (copy, "reasoning_content",
                                json_node_copy (json_object_get_member (message, "reasoning_content")));

      json_array_add_object_element (out, copy);
    }

  return out;
}

static gboolean
takes_max_completion_tokens (const char *model)
{
  const char *slash = model ? strrchr (model, '/') : NULL;
  const char *name = slash ? slash + 1 : model ? model : "";

  return (name[0] == 'o' && g_ascii_isdigit (name[1])) || g_str_has_prefix (name, "gpt-5");
}

static JsonObject *
pd_openai_provider_build_body (PdHttpProvider           *provider,
                               const PdProviderRequest  *request,
                               GError                  **error)
{
  JsonObject *body = json_object_new ();
  JsonObject *stream_options = json_object_new ();

  json_object_set_string_member (body, "model", request->model);
  json_object_set_array_member (body, "messages", wire_messages (request->messages));
  if (request->tools != NULL && json_array_get_length (request->tools) > 0)
    {
      json_object_set_array_member (body, "tools", json_array_ref (request->tools));
      json_object_set_string_member (body, "tool_choice", "auto");
    }
  /* OpenAI's reasoning models refuse max_tokens and take
   * max_completion_tokens; every other server knows max_tokens. */
  if (request->max_tokens > 0)
    json_object_set_int_member (body, takes_max_completion_tokens (request->model) ? "max_completion_tokens"
                                                                                     : "max_tokens",
                                request->max_tokens);
  if (request->temperature >= 0)
    json_object_set_double_member (body, "temperature", request->temperature);
  json_object_set_boolean_member (body, "stream", TRUE);
  json_object_set_boolean_member (stream_options, "include_usage", TRUE);
  json_object_set_object_member (body, "stream_options", stream_options);

  return body;
}

static const PdHttpReader reader = {
  sizeof (Stream), stream_init, stream_clear,
  read_json_body, on_event, "no finish_reason and no [DONE]", build_response,
};

static void
pd_openai_provider_class_init (PdOpenAIProviderClass *klass)
{
  PdHttpProviderClass *http_class = PD_HTTP_PROVIDER_CLASS (klass);

  http_class->name = NAME;
  http_class->default_base_url = "https://api.openai.com/v1";
  http_class->base_url_variable = "OPENAI_BASE_URL";
  http_class->key_variable = "OPENAI_API_KEY";
  http_class->endpoint = "/chat/completions";
  http_class->official_host = "api.openai.com";
  http_class->build_body = pd_openai_provider_build_body;
  http_class->add_headers = pd_openai_provider_add_headers;
  http_class->reader = &reader;
}

static void
pd_openai_provider_init (PdOpenAIProvider *self)
{
}

PdOpenAIProvider *
pd_openai_provider_new (const char *base_url,
                        const char *api_key)
{
  return PD_OPENAI_PROVIDER (_pd_http_provider_new (PD_TYPE_OPENAI_PROVIDER, base_url, api_key));
}
