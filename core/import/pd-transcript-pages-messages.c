/* pd-transcript-pages-messages.c: the conversation of an imported
 * session as the Transcript page reads it: whole, a long one's part (the
 * newest messages, or an earlier chunk), or handed on as it is read (an
 * export), so a transcript of 300,000 calls never has its conversation
 * held whole.  Its texts are redacted as a session's own are when stored
 * (pd-redact.h): the transcript stays the agent's, but what Plandeck
 * shows, serves and exports of it masks secrets (tried as an attacker
 * would: a tool's output "aws_secret_access_key = …" was served and
 * exported as written while the session's title was masked).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-event.h"
#include "pd-json.h"
#include "pd-json-span.h"
#include "pd-redact.h"
#include "pd-safe-text.h"
#include "pd-transcript-pages-build-private.h"

static void set_time_member (JsonObject *object,
                             const char *member,
                             gint64      time);

static JsonArray *conversation_to_json (PdTranscriptPages *self,
                                        Conversation      *conversation,
                                        guint              depth);

/* @member of @object set to @text redacted (@json: JSON text, a call's
 * arguments, redacted value by value). */
static void
set_redacted (JsonObject *object,
              const char *member,
              const char *text,
              gboolean    json)
{
  g_autofree char *redacted = json ? pd_redact_json (text, NULL) : pd_redact (text, NULL);

  json_object_set_string_member (object, member, redacted);
}

static JsonObject *
subagent_to_json (PdTranscriptPages *self,
                  Call              *call,
                  Conversation      *conversation,
                  guint              depth)
{
  JsonObject *object = json_object_new ();
  g_autofree char *agent_id = pd_safe_text_line (conversation->key);

  json_object_set_string_member (object, "agent_id", agent_id);
  if (call->agent_type)
    json_object_set_string_member (object, "agent_type", call->agent_type);
  if (call->description)
    set_redacted (object, "description", call->description, FALSE);
  json_object_set_array_member (object, "messages", conversation_to_json (self, conversation, depth + 1));
  return object;
}

/* The list a plan call left: {"items": [{"text", "status"}], "hidden"},
 * its first PD_TRANSCRIPT_PAGES_CARD_ITEMS items.  No version number: a
 * part of a long transcript counts versions from where it began reading. */
static JsonObject *
plan_to_json (const Version *version)
{
  JsonObject *object = json_object_new ();
  JsonArray *items = json_array_new ();
  guint n = MIN (version->items->len, PD_TRANSCRIPT_PAGES_CARD_ITEMS);

  for (guint i = 0; i < n; i++)
    {
      const PdChecklistItem *item = g_ptr_array_index (version->items, i);
      JsonObject *entry = json_object_new ();

      json_object_set_string_member (entry, "text", item->text != NULL ? item->text : "");
      json_object_set_string_member (entry, "status", pd_checklist_status_to_string (item->status));
      json_array_add_object_element (items, entry);
    }
  json_object_set_array_member (object, "items", items);
  if (version->items->len - n + version->left_out > 0)
    json_object_set_int_member (object, "hidden", (gint64) (version->items->len - n) + version->left_out);
  return object;
}

static JsonObject *
call_to_json (PdTranscriptPages *self,
              Call              *call,
              guint              depth)
{
  JsonObject *object = json_object_new ();
  JsonObject *function = json_object_new ();
  Conversation *sub;

  json_object_set_string_member (object, "id", call->id);
  json_object_set_string_member (object, "type", "function");
  json_object_set_string_member (function, "name", call->name);
  set_redacted (function, "arguments", call->arguments, TRUE);
  json_object_set_object_member (object, "function", function);
  if (call->arguments_cut > 0)
    json_object_set_int_member (object, "arguments_cut", (gint64) call->arguments_cut);
  if (call->plan != NULL)
    json_object_set_object_member (object, "plan", plan_to_json (call->plan));
  /* Nested where it started; a loop or a chain too deep stays unnested. */
  if (call->sub_conversation != NULL && depth < SUBAGENT_MAX_DEPTH
      && (sub = g_hash_table_lookup (self->conversations, call->sub_conversation)) != NULL
      && !sub->linked && *sub->key != '\0')
    {
      sub->linked = TRUE;
      json_object_set_object_member (object, "subagent", subagent_to_json (self, call, sub, depth));
    }
  return object;
}

static JsonObject *
message_to_json (PdTranscriptPages *self,
                 Message           *message,
                 guint              depth)
{
  JsonObject *object = json_object_new ();
  gboolean has_calls = message->calls != NULL && message->calls->len > 0;

  json_object_set_string_member (object, "role", message->role);
  if (message->content->len == 0 && has_calls)
    json_object_set_null_member (object, "content");
  else
    set_redacted (object, "content", message->content->str, FALSE);
  if (message->content_cut > 0)
    json_object_set_int_member (object, "content_cut", (gint64) message->content_cut);
  if (message->thinking != NULL)
    {
      set_redacted (object, "reasoning_content", message->thinking->str, FALSE);
      if (message->thinking_cut > 0)
        json_object_set_int_member (object, "reasoning_cut", (gint64) message->thinking_cut);
    }
  if (has_calls)
    {
      JsonArray *calls = json_array_new ();

      for (guint i = 0; i < message->calls->len; i++)
        json_array_add_object_element (calls, call_to_json (self, g_ptr_array_index (message->calls, i), depth));
      json_object_set_array_member (object, "tool_calls", calls);
    }
  if (message->tool_call_id != NULL)
    {
      json_object_set_string_member (object, "tool_call_id", message->tool_call_id);
      if (message->name != NULL)
        json_object_set_string_member (object, "name", message->name);
      if (message->is_error)
        json_object_set_boolean_member (object, "is_error", TRUE);
    }
  /* Plandeck's notice, not the harness's: shown whole as a notice, not
   * folded as a system prompt (tried as a new user would, nu15). */
  if (message->notice)
    json_object_set_boolean_member (object, "record_only", TRUE);  /* PD_MESSAGE_RECORD_ONLY */
  set_time_member (object, "time", message->time);
  return object;
}

static JsonArray *
conversation_to_json (PdTranscriptPages *self,
                      Conversation      *conversation,
                      guint              depth)
{
  JsonArray *array = json_array_new ();

  conversation->linked = TRUE;
  for (guint i = 0; i < conversation->messages->len; i++)
    json_array_add_object_element (array, message_to_json (self, g_ptr_array_index (conversation->messages, i), depth));
  return array;
}

static void
set_time_member (JsonObject *object,
                 const char *member,
                 gint64      time)
{
  if (time > 0)
    {
      g_autofree char *text = pd_event_format_timestamp (time);
      json_object_set_string_member (object, member, text);
    }
}

/* Subagent calls whose conversation is known only by its task: the
 * conversation (not the session's own) whose first prompt is the call's,
 * the earliest call first. */
static void
link_by_prompt (PdTranscriptPages *self)
{
  g_autoptr(GHashTable) taken = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < self->call_list->len; i++)
    {
      Call *call = g_ptr_array_index (self->call_list, i);
      if (call->sub_conversation != NULL)
        g_hash_table_add (taken, call->sub_conversation);
    }
  for (guint i = 0; i < self->call_list->len; i++)
    {
      Call *call = g_ptr_array_index (self->call_list, i);

      if (!call->subagent || call->sub_conversation != NULL || call->sub_prompt == NULL)
        continue;
      for (guint j = 0; j < self->conversation_order->len; j++)
        {
          Conversation *conversation = g_ptr_array_index (self->conversation_order, j);

          if (*conversation->key != '\0' && !g_hash_table_contains (taken, conversation->key)
              && g_strcmp0 (conversation->first_prompt, call->sub_prompt) == 0)
            {
              call->sub_conversation = g_strdup (conversation->key);
              g_hash_table_add (taken, conversation->key);
              break;
            }
        }
    }
}

/* ---------------------------------------------------------------------- */
/* The conversation written as JSON text as it is walked                  */

/* The sealed pages keep the conversation as text: written here message by
 * message, each message's texts let go once written, so no tree of the
 * whole conversation (an object, a node and a hash table a member: many
 * times the text) is ever built.  The same members as message_to_json()'s,
 * which the stream (a sink) still hands on as trees. */

static void
put_text (GString    *out,
          const char *text)
{
  const guchar *p = (const guchar *) text;

  g_string_append_c (out, '"');
  while (*p != '\0')
    {
      const guchar *run = p;

      while (*p >= 0x20 && *p != '"' && *p != '\\')
        p++;
      if (p > run)
        g_string_append_len (out, (const char *) run, p - run);
      if (*p == '\0')
        break;
      switch (*p)
        {
        case '"':  g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        case '\b': g_string_append (out, "\\b"); break;
        case '\f': g_string_append (out, "\\f"); break;
        default:   g_string_append_printf (out, "\\u%04x", (guint) *p); break;
        }
      p++;
    }
  g_string_append_c (out, '"');
}

/* A member's name, after a comma unless it is the first. */
static void
put_name (GString    *out,
          gboolean   *first,
          const char *name)
{
  if (!*first)
    g_string_append_c (out, ',');
  *first = FALSE;
  put_text (out, name);
  g_string_append_c (out, ':');
}

static void
put_string (GString    *out,
            gboolean   *first,
            const char *name,
            const char *value)
{
  put_name (out, first, name);
  if (value != NULL)
    put_text (out, value);
  else
    g_string_append (out, "null");
}

static void
put_int (GString    *out,
         gboolean   *first,
         const char *name,
         gint64      value)
{
  put_name (out, first, name);
  g_string_append_printf (out, "%" G_GINT64_FORMAT, value);
}

/* As set_redacted(). */
static void
put_redacted (GString    *out,
              gboolean   *first,
              const char *name,
              const char *text,
              gboolean    json)
{
  g_autofree char *redacted = json ? pd_redact_json (text, NULL) : pd_redact (text, NULL);

  put_string (out, first, name, redacted);
}

static void
put_time (GString    *out,
          gboolean   *first,
          const char *name,
          gint64      time)
{
  if (time > 0)
    {
      g_autofree char *text = pd_event_format_timestamp (time);

      put_string (out, first, name, text);
    }
}

static void write_conversation (PdTranscriptPages *self,
                                GString           *out,
                                Conversation      *conversation,
                                guint              depth,
                                GArray            *starts);

/* As plan_to_json(). */
static void
write_plan (GString       *out,
            const Version *version)
{
  guint n = MIN (version->items->len, PD_TRANSCRIPT_PAGES_CARD_ITEMS);
  gboolean first = TRUE;

  g_string_append (out, "{\"items\":[");
  for (guint i = 0; i < n; i++)
    {
      const PdChecklistItem *item = g_ptr_array_index (version->items, i);
      gboolean item_first = TRUE;

      if (i > 0)
        g_string_append_c (out, ',');
      g_string_append_c (out, '{');
      put_string (out, &item_first, "text", item->text != NULL ? item->text : "");
      put_string (out, &item_first, "status", pd_checklist_status_to_string (item->status));
      g_string_append_c (out, '}');
    }
  g_string_append_c (out, ']');
  first = FALSE;
  if (version->items->len - n + version->left_out > 0)
    put_int (out, &first, "hidden", (gint64) (version->items->len - n) + version->left_out);
  g_string_append_c (out, '}');
}

/* As call_to_json(). */
static void
write_call (PdTranscriptPages *self,
            GString           *out,
            Call              *call,
            guint              depth)
{
  gboolean first = TRUE, function_first = TRUE;
  Conversation *sub;

  g_string_append_c (out, '{');
  put_string (out, &first, "id", call->id);
  put_string (out, &first, "type", "function");
  put_name (out, &first, "function");
  g_string_append_c (out, '{');
  put_string (out, &function_first, "name", call->name);
  put_redacted (out, &function_first, "arguments", call->arguments, TRUE);
  g_string_append_c (out, '}');
  if (call->arguments_cut > 0)
    put_int (out, &first, "arguments_cut", (gint64) call->arguments_cut);
  if (call->plan != NULL)
    {
      put_name (out, &first, "plan");
      write_plan (out, call->plan);
    }
  /* Nested where it started; a loop or a chain too deep stays unnested. */
  if (call->sub_conversation != NULL && depth < SUBAGENT_MAX_DEPTH
      && (sub = g_hash_table_lookup (self->conversations, call->sub_conversation)) != NULL
      && !sub->linked && *sub->key != '\0')
    {
      g_autofree char *agent_id = pd_safe_text_line (sub->key);
      gboolean sub_first = TRUE;

      sub->linked = TRUE;
      put_name (out, &first, "subagent");
      g_string_append_c (out, '{');
      put_string (out, &sub_first, "agent_id", agent_id);
      if (call->agent_type)
        put_string (out, &sub_first, "agent_type", call->agent_type);
      if (call->description)
        put_redacted (out, &sub_first, "description", call->description, FALSE);
      put_name (out, &sub_first, "messages");
      write_conversation (self, out, sub, depth + 1, NULL);
      g_string_append_c (out, '}');
    }
  g_string_append_c (out, '}');
}

/* As message_to_json(); the message's texts let go once written (each
 * message is written once: a conversation is linked once). */
static void
write_message (PdTranscriptPages *self,
               GString           *out,
               Message           *message,
               guint              depth)
{
  gboolean has_calls = message->calls != NULL && message->calls->len > 0;
  gboolean first = TRUE;

  g_string_append_c (out, '{');
  put_string (out, &first, "role", message->role);
  if (message->content->len == 0 && has_calls)
    put_string (out, &first, "content", NULL);
  else
    put_redacted (out, &first, "content", message->content->str, FALSE);
  if (message->content_cut > 0)
    put_int (out, &first, "content_cut", (gint64) message->content_cut);
  if (message->thinking != NULL)
    {
      put_redacted (out, &first, "reasoning_content", message->thinking->str, FALSE);
      if (message->thinking_cut > 0)
        put_int (out, &first, "reasoning_cut", (gint64) message->thinking_cut);
    }
  if (has_calls)
    {
      put_name (out, &first, "tool_calls");
      g_string_append_c (out, '[');
      for (guint i = 0; i < message->calls->len; i++)
        {
          if (i > 0)
            g_string_append_c (out, ',');
          write_call (self, out, g_ptr_array_index (message->calls, i), depth);
        }
      g_string_append_c (out, ']');
    }
  if (message->tool_call_id != NULL)
    {
      put_string (out, &first, "tool_call_id", message->tool_call_id);
      if (message->name != NULL)
        put_string (out, &first, "name", message->name);
      if (message->is_error)
        {
          put_name (out, &first, "is_error");
          g_string_append (out, "true");
        }
    }
  if (message->notice)
    {
      put_name (out, &first, "record_only");
      g_string_append (out, "true");
    }
  put_time (out, &first, "time", message->time);
  g_string_append_c (out, '}');

  if (self->keep_texts)
    return;
  g_string_free (g_steal_pointer (&message->content), TRUE);
  if (message->thinking != NULL)
    g_string_free (g_steal_pointer (&message->thinking), TRUE);
}

/* @starts (nullable): where each message starts in @out, appended. */
static void
write_conversation (PdTranscriptPages *self,
                    GString           *out,
                    Conversation      *conversation,
                    guint              depth,
                    GArray            *starts)
{
  conversation->linked = TRUE;
  g_string_append_c (out, '[');
  for (guint i = 0; i < conversation->messages->len; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      if (starts != NULL)
        g_array_append_val (starts, out->len);
      write_message (self, out, g_ptr_array_index (conversation->messages, i), depth);
    }
  g_string_append_c (out, ']');
}

/* About the bytes the messages' text takes: the text is made in a buffer
 * of about its size (a GString rounds what it is asked for up to a power
 * of two: up to twice the text). */
static gsize
estimate_size (PdTranscriptPages *self)
{
  gsize size = 64;

  for (guint i = 0; i < self->conversation_order->len; i++)
    {
      Conversation *conversation = g_ptr_array_index (self->conversation_order, i);

      for (guint j = 0; j < conversation->messages->len; j++)
        {
          Message *message = g_ptr_array_index (conversation->messages, j);

          size += 112 + message->content->len + (message->thinking ? 32 + message->thinking->len : 0);
          for (guint k = 0; message->calls && k < message->calls->len; k++)
            {
              Call *call = g_ptr_array_index (message->calls, k);

              size += 96 + call->arguments_len + strlen (call->id) + strlen (call->name);
            }
        }
    }
  return size + size / 16;
}

/* _pd_transcript_pages_build_messages() of pages with no sink: the same
 * messages, written as text. */
static char *
write_messages (PdTranscriptPages *self,
                Conversation      *main_conversation)
{
  GString *out = g_string_new (NULL);
  guint n = main_conversation->messages->len;
  gsize estimate = estimate_size (self);
  gsize length;
  char *text;

  /* Past the estimate, the GString grows as it does. */
  out->str = g_realloc (out->str, estimate);
  out->allocated_len = estimate;
  /* Where each message starts: a followed transcript's reader asks for
   * the newest only (_pd_transcript_pages_dup_messages_from()). */
  g_clear_pointer (&self->message_starts, g_array_unref);
  self->message_starts = g_array_sized_new (FALSE, FALSE, sizeof (gsize), n);
  write_conversation (self, out, main_conversation, 0, self->message_starts);
  /* The conversation's closing bracket is put back after the subagents
   * whose call is unknown (see _pd_transcript_pages_build_messages()). */
  g_string_truncate (out, out->len - 1);
  for (guint i = 0; i < self->conversation_order->len; i++)
    {
      Conversation *conversation = g_ptr_array_index (self->conversation_order, i);
      g_autofree char *agent_id = NULL;
      gboolean first = TRUE, sub_first = TRUE;

      /* A part before the newest shows none of them. */
      if (conversation->linked || (self->windowed && self->window_first >= 0
                                   && (guint64) self->window_first + self->window_max < self->n_main))
        continue;
      agent_id = pd_safe_text_line (conversation->key);
      if (n > 0)
        g_string_append_c (out, ',');
      g_array_append_val (self->message_starts, out->len);
      g_string_append_c (out, '{');
      put_string (out, &first, "role", "assistant");
      put_string (out, &first, "content", "");
      put_name (out, &first, "subagent");
      g_string_append_c (out, '{');
      put_string (out, &sub_first, "agent_id", agent_id);
      put_name (out, &sub_first, "messages");
      write_conversation (self, out, conversation, 1, NULL);
      g_string_append_c (out, '}');
      put_time (out, &first, "time", conversation->first_time);
      g_string_append_c (out, '}');
      n++;
    }
  g_string_append_c (out, ']');
  self->n_messages = n;
  /* Kept while the pages are (cached): no slack. */
  length = out->len;
  text = g_string_free (out, FALSE);
  return g_realloc (text, length + 1);
}

/* @array as JSON text, as json_to_string() writes it, and where each of
 * its messages starts: a followed transcript's reader asks for the newest
 * only (_pd_transcript_pages_dup_messages_from()). */
static char *
array_text (PdTranscriptPages *self,
            JsonArray         *array)
{
  GString *text = g_string_new ("[");
  guint n = json_array_get_length (array);

  g_clear_pointer (&self->message_starts, g_array_unref);
  self->message_starts = g_array_sized_new (FALSE, FALSE, sizeof (gsize), n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *one = json_to_string (json_array_get_element (array, i), FALSE);
      gsize start;

      if (i > 0)
        g_string_append_c (text, ',');
      start = text->len;
      g_array_append_val (self->message_starts, start);
      g_string_append (text, one);
    }
  g_string_append_c (text, ']');
  return g_string_free (text, FALSE);
}

char *
_pd_transcript_pages_build_messages (PdTranscriptPages *self)
{
  Conversation *main_conversation = _pd_transcript_pages_conversation_get (self, NULL);
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);
  JsonArray *array;

  link_by_prompt (self);
  if (self->windowed)
    {
      _pd_transcript_pages_window_trim (self, TRUE);
      self->kept_first = main_conversation->messages->len > 0
        ? ((Message *) g_ptr_array_index (main_conversation->messages, 0))->index : self->n_main;
    }
  if (self->sink == NULL)
    return write_messages (self, main_conversation);
  array = conversation_to_json (self, main_conversation, 0);

  /* A subagent whose call is unknown (cut from the transcript, or another
   * agent's way of linking): shown after the conversation, not lost. */
  for (guint i = 0; i < self->conversation_order->len; i++)
    {
      Conversation *conversation = g_ptr_array_index (self->conversation_order, i);
      JsonObject *object, *subagent;
      g_autofree char *agent_id = NULL;

      /* A part before the newest shows none of them. */
      if (conversation->linked || (self->windowed && self->sink == NULL && self->window_first >= 0
                                   && (guint64) self->window_first + self->window_max < self->n_main))
        continue;
      agent_id = pd_safe_text_line (conversation->key);
      object = json_object_new ();
      subagent = json_object_new ();
      json_object_set_string_member (object, "role", "assistant");
      json_object_set_string_member (object, "content", "");
      json_object_set_string_member (subagent, "agent_id", agent_id);
      json_object_set_array_member (subagent, "messages", conversation_to_json (self, conversation, 1));
      json_object_set_object_member (object, "subagent", subagent);
      set_time_member (object, "time", conversation->first_time);
      if (self->sink != NULL)
        {
          self->sink (object, self->sink_data);
          self->n_sunk++;
        }
      else
        json_array_add_object_element (array, object);
    }

  self->n_messages = json_array_get_length (array);
  json_node_take_array (root, array);
  return array_text (self, array);
}


/* Lets go of messages [@from, @to) of the session's own conversation and
 * of their calls. */
static void
drop_messages (PdTranscriptPages *self,
               GPtrArray         *messages,
               guint              from,
               guint              to)
{
  g_autoptr(GHashTable) dropped = NULL;
  guint kept = 0;

  if (from >= to)
    return;
  for (guint i = from; i < to; i++)
    {
      Message *message = g_ptr_array_index (messages, i);

      for (guint j = 0; message->calls != NULL && j < message->calls->len; j++)
        {
          Call *call = g_ptr_array_index (message->calls, j);

          if (dropped == NULL)
            dropped = g_hash_table_new (NULL, NULL);
          g_hash_table_add (dropped, call);
          if (g_hash_table_lookup (self->calls, call->id) == call)
            g_hash_table_remove (self->calls, call->id);
        }
    }
  for (guint i = from; i < to; i++)
    self->window_cost -= MIN (((Message *) g_ptr_array_index (messages, i))->window_cost, self->window_cost);
  g_ptr_array_remove_range (messages, from, to - from);
  if (dropped == NULL)
    return;
  /* The calls go last: the messages held them. */
  for (guint i = 0; i < self->call_list->len; i++)
    {
      Call *call = g_ptr_array_index (self->call_list, i);

      if (g_hash_table_contains (dropped, call))
        _pd_transcript_pages_call_free (call);
      else
        self->call_list->pdata[kept++] = call;
    }
  self->call_list->len = kept;
}

/* What @message holds, in the budget's units (as the items were taken). */
static gsize
message_cost (Message *message)
{
  gsize cost = MESSAGE_COST + 2 * ((message->content ? message->content->len : 0)
                                   + (message->thinking ? message->thinking->len : 0));

  for (guint i = 0; message->calls != NULL && i < message->calls->len; i++)
    {
      Call *call = g_ptr_array_index (message->calls, i);

      cost += CALL_COST + 2 * (strlen (call->id) + strlen (call->name) + call->arguments_len);
    }
  return cost;
}

void
_pd_transcript_pages_window_trim (PdTranscriptPages *self,
                                  gboolean           final)
{
  Conversation *main_conversation;
  GPtrArray *messages;
  guint64 lo, hi = G_MAXUINT64;
  guint keep_last = final ? 0 : 1;
  guint front = 0, end, back;
  gboolean over;

  if (!self->windowed || !(main_conversation = g_hash_table_lookup (self->conversations, "")))
    return;
  messages = main_conversation->messages;
  if (messages->len <= keep_last)
    return;

  /* A part is bounded in what it holds too, not only in how many: 2,000
   * messages of 1,000 tiny calls each took serve to 1.16 GB on a 40 MB
   * transcript (tried as an attacker would).  A message counts once the
   * next one began (the last at the end); a stream's sink takes them all. */
  for (guint i = messages->len - keep_last; i > 0; i--)
    {
      Message *message = g_ptr_array_index (messages, i - 1);

      if (message->window_cost != 0)
        break;
      message->window_cost = message_cost (message);
      self->window_cost += message->window_cost;
    }
  over = self->sink == NULL && self->window_cost > PD_TRANSCRIPT_PAGES_PART_COST_MAX;

  if (self->sink != NULL && final)
    lo = self->n_main;
  else if (self->sink != NULL || self->window_first < 0)
    {
      /* The newest part and a stream let go in batches: once twice the
       * part is held. */
      if (!final && !over && messages->len < 2 * (guint64) self->window_max + 1)
        return;
      lo = self->n_main > self->window_max ? self->n_main - self->window_max : 0;
    }
  else
    {
      lo = (guint64) self->window_first;
      hi = lo + self->window_max;
    }

  end = messages->len - keep_last;
  while (front < end && ((Message *) g_ptr_array_index (messages, front))->index < lo)
    front++;
  back = end;
  while (back > front && ((Message *) g_ptr_array_index (messages, back - 1))->index >= hi)
    back--;
  /* Past its bound, the oldest of what it keeps go first, down to half of
   * it (so they go in batches), the newest one always kept: a page must
   * move on. */
  if (over && front < back)
    {
      gsize cost = ((Message *) g_ptr_array_index (messages, back - 1))->window_cost;
      guint keep = back - 1;

      while (keep > front && cost + ((Message *) g_ptr_array_index (messages, keep - 1))->window_cost
                             <= PD_TRANSCRIPT_PAGES_PART_COST_MAX / 2)
        cost += ((Message *) g_ptr_array_index (messages, --keep))->window_cost;
      front = keep;
    }

  if (self->sink != NULL && front > 0)
    {
      link_by_prompt (self);
      for (guint i = 0; i < front; i++)
        {
          self->sink (message_to_json (self, g_ptr_array_index (messages, i), 0), self->sink_data);
          self->n_sunk++;
        }
    }
  drop_messages (self, messages, back, end);
  drop_messages (self, messages, 0, front);
}

void
pd_transcript_pages_foreach_message (PdTranscriptPages    *self,
                                     PdTranscriptPagesSink func,
                                     gpointer              user_data)
{
  PdJsonSpan all, element;
  gsize cursor = 0;

  g_return_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && self->sealed);
  g_return_if_fail (func != NULL);

  all.text = self->messages_json;
  all.length = strlen (self->messages_json);
  while (pd_json_span_next_element (all, &cursor, &element))
    {
      g_autoptr(JsonNode) node = pd_json_parse_full (element.text, (gssize) element.length, PD_JSON_PARSE_FOREIGN,
                                                     NULL);

      if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
        func (json_object_ref (json_node_get_object (node)), user_data);
    }
}

guint64
_pd_transcript_pages_get_lineage (PdTranscriptPages *self)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && self->sealed, 0);
  return self->lineage;
}

JsonArray *
_pd_transcript_pages_dup_messages_from (PdTranscriptPages *self,
                                        guint              from)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && self->sealed, NULL);

  if (from == 0)
    return pd_transcript_pages_dup_messages (self);
  return _pd_transcript_pages_dup_messages_range (self, from, G_MAXUINT);
}

JsonArray *
_pd_transcript_pages_dup_messages_range (PdTranscriptPages *self,
                                         guint              from,
                                         guint              max)
{
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;
  gsize start, end;
  guint to;

  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && self->sealed, NULL);

  if (from >= self->n_messages || max == 0)
    return json_array_new ();
  to = self->n_messages - from > max ? from + max : self->n_messages;
  /* Without the messages' places (never the case of sealed pages): the
   * whole array, then cut. */
  if (self->message_starts == NULL || self->message_starts->len != self->n_messages)
    {
      g_autoptr(JsonArray) all = pd_transcript_pages_dup_messages (self);
      JsonArray *part = json_array_sized_new (to - from);

      for (guint i = from; i < to && i < json_array_get_length (all); i++)
        json_array_add_element (part, json_node_copy (json_array_get_element (all, i)));
      return part;
    }
  /* Only those asked for parsed: "[" the messages @from to @to "]".  A
   * transcript of a million tiny messages had all of them built as one
   * tree for the Transcript page (0.9 GB, tried as an attacker would). */
  start = g_array_index (self->message_starts, gsize, from);
  end = to < self->n_messages ? g_array_index (self->message_starts, gsize, to) - 1   /* its ',' */
                              : strlen (self->messages_json) - 1;                    /* the ']' */
  text = g_strdup_printf ("[%.*s]", (int) (end - start), self->messages_json + start);
  root = pd_json_parse_full (text, -1, PD_JSON_PARSE_FOREIGN, NULL);
  if (root == NULL || !JSON_NODE_HOLDS_ARRAY (root))
    return json_array_new ();
  return json_array_ref (json_node_get_array (root));
}
