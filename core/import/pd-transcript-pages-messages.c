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

void
_pd_transcript_pages_window_trim (PdTranscriptPages *self,
                                  gboolean           final)
{
  Conversation *main_conversation;
  GPtrArray *messages;
  guint64 lo, hi = G_MAXUINT64;
  guint keep_last = final ? 0 : 1;
  guint front = 0, end, back;

  if (!self->windowed || !(main_conversation = g_hash_table_lookup (self->conversations, "")))
    return;
  messages = main_conversation->messages;
  if (messages->len <= keep_last)
    return;

  if (self->sink != NULL && final)
    lo = self->n_main;
  else if (self->sink != NULL || self->window_first < 0)
    {
      /* The newest part and a stream let go in batches: once twice the
       * part is held. */
      if (!final && messages->len < 2 * (guint64) self->window_max + 1)
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
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;
  gsize start, end;

  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && self->sealed, NULL);

  if (from == 0 || self->message_starts == NULL || self->message_starts->len != self->n_messages)
    return pd_transcript_pages_dup_messages (self);
  if (from >= self->n_messages)
    return json_array_new ();
  /* Only the newest parsed: "[" the messages from @from on "]". */
  start = g_array_index (self->message_starts, gsize, from);
  end = strlen (self->messages_json) - 1;
  text = g_strdup_printf ("[%.*s]", (int) (end - start), self->messages_json + start);
  root = pd_json_parse_full (text, -1, PD_JSON_PARSE_FOREIGN, NULL);
  if (root == NULL || !JSON_NODE_HOLDS_ARRAY (root))
    return json_array_new ();
  return json_array_ref (json_node_get_array (root));
}
