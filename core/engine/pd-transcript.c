/* pd-transcript.c: the messages of one session, as the engine keeps them.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-engine"

#include "config.h"

#include <string.h>

#include "pd-json-util.h"
#include "pd-plan.h"
#include "pd-transcript.h"

struct _PdTranscript
{
  GObject    parent_instance;

  GPtrArray  *messages;    /* (element-type JsonObject) */
  GArray     *estimates;   /* gint64 token estimate of each message */
  gint64      total;       /* their sum: the context size, without a scan */
  guint       dirty_from;  /* first index changed since the last save */
  GHashTable *replaced;    /* indices below dirty_from replaced in place */
};

G_DEFINE_FINAL_TYPE (PdTranscript, pd_transcript, G_TYPE_OBJECT)

static void
pd_transcript_finalize (GObject *object)
{
  PdTranscript *self = (PdTranscript *) object;

  g_clear_pointer (&self->messages, g_ptr_array_unref);
  g_clear_pointer (&self->estimates, g_array_unref);
  g_clear_pointer (&self->replaced, g_hash_table_unref);

  G_OBJECT_CLASS (pd_transcript_parent_class)->finalize (object);
}

static void
pd_transcript_class_init (PdTranscriptClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_transcript_finalize;
}

static void
pd_transcript_init (PdTranscript *self)
{
  self->messages = g_ptr_array_new_with_free_func ((GDestroyNotify) json_object_unref);
  self->estimates = g_array_new (FALSE, FALSE, sizeof (gint64));
  self->replaced = g_hash_table_new (NULL, NULL);
}

PdTranscript *
pd_transcript_new (void)
{
  return g_object_new (PD_TYPE_TRANSCRIPT, NULL);
}

/* A transcript loaded from storage is clean: nothing to rewrite yet.
 * Elements that are not objects are skipped. */
PdTranscript *
pd_transcript_new_from_json (JsonArray *messages)
{
  PdTranscript *self = pd_transcript_new ();
  guint n = messages ? json_array_get_length (messages) : 0;

  for (guint i = 0; i < n; i++)
    {
      JsonNode *node = json_array_get_element (messages, i);

      if (JSON_NODE_HOLDS_OBJECT (node))
        {
          JsonObject *message = json_node_get_object (node);
          gint64 estimate = pd_message_estimate_tokens (message);

          g_ptr_array_add (self->messages, json_object_ref (message));
          g_array_append_val (self->estimates, estimate);
          self->total += estimate;
        }
    }

  self->dirty_from = self->messages->len;
  return self;
}

guint
pd_transcript_get_length (PdTranscript *self)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT (self), 0);
  return self->messages->len;
}

JsonObject *
pd_transcript_get (PdTranscript *self,
                   guint         index)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT (self), NULL);
  g_return_val_if_fail (index < self->messages->len, NULL);
  return g_ptr_array_index (self->messages, index);
}

static void
touch (PdTranscript *self,
       guint         index)
{
  self->dirty_from = MIN (self->dirty_from, index);
}

void
pd_transcript_append (PdTranscript *self,
                      JsonObject   *message)
{
  gint64 estimate;

  g_return_if_fail (PD_IS_TRANSCRIPT (self));
  estimate = pd_message_estimate_tokens (message);
  touch (self, self->messages->len);
  g_ptr_array_add (self->messages, json_object_ref (message));
  g_array_append_val (self->estimates, estimate);
  self->total += estimate;
}

void
pd_transcript_insert (PdTranscript *self,
                      guint         index,
                      JsonObject   *message)
{
  gint64 estimate;

  g_return_if_fail (PD_IS_TRANSCRIPT (self));
  g_return_if_fail (index <= self->messages->len);
  estimate = pd_message_estimate_tokens (message);
  touch (self, index);
  g_ptr_array_insert (self->messages, index, json_object_ref (message));
  g_array_insert_val (self->estimates, index, estimate);
  self->total += estimate;
}

void
pd_transcript_replace (PdTranscript *self,
                       guint         index,
                       JsonObject   *message)
{
  JsonObject *old;

  g_return_if_fail (PD_IS_TRANSCRIPT (self));
  g_return_if_fail (index < self->messages->len);
  /* A replacement keeps every position: only that one row is rewritten. */
  if (index < self->dirty_from)
    g_hash_table_add (self->replaced, GUINT_TO_POINTER (index));
  old = g_ptr_array_index (self->messages, index);
  g_ptr_array_index (self->messages, index) = json_object_ref (message);
  json_object_unref (old);
  self->total -= g_array_index (self->estimates, gint64, index);
  g_array_index (self->estimates, gint64, index) = pd_message_estimate_tokens (message);
  self->total += g_array_index (self->estimates, gint64, index);
}

void
pd_transcript_remove (PdTranscript *self,
                      guint         index)
{
  g_return_if_fail (PD_IS_TRANSCRIPT (self));
  g_return_if_fail (index < self->messages->len);
  touch (self, index);
  g_ptr_array_remove_index (self->messages, index);
  self->total -= g_array_index (self->estimates, gint64, index);
  g_array_remove_index (self->estimates, index);
}

JsonArray *
pd_transcript_to_json (PdTranscript *self)
{
  JsonArray *array;

  g_return_val_if_fail (PD_IS_TRANSCRIPT (self), NULL);

  array = json_array_sized_new (self->messages->len);
  for (guint i = 0; i < self->messages->len; i++)
    json_array_add_object_element (array, json_object_ref (g_ptr_array_index (self->messages, i)));

  return array;
}

/**
 * pd_transcript_to_request:
 *
 * The messages a model is shown, which is not all that is stored:
 *  - notes for the record (pd_message_new_note()) are left out;
 *  - a refused turn is left out whole, from the user message that asked to
 *    the refusal, because a model asked again with the refused request in
 *    its context refuses again (the API's guidance is to reset the refused
 *    turn).  The plan message and a compaction digest stay where they are.
 *
 * Returns: (transfer full): a new array holding the same message objects
 */
JsonArray *
pd_transcript_to_request (PdTranscript *self)
{
  g_autoptr(GPtrArray) kept = NULL;
  JsonArray *array;

  g_return_val_if_fail (PD_IS_TRANSCRIPT (self), NULL);

  kept = g_ptr_array_sized_new (self->messages->len);

  for (guint i = 0; i < self->messages->len; i++)
    {
      JsonObject *message = g_ptr_array_index (self->messages, i);
      guint asked = kept->len;

      if (pd_message_is_record_only (message))
        continue;

      if (!pd_message_is_refused (message))
        {
          g_ptr_array_add (kept, message);
          continue;
        }

      /* Back to the user message that opened the refused turn. */
      while (asked > 0 &&
             g_strcmp0 (pd_message_get_role (g_ptr_array_index (kept, asked - 1)), "user") != 0)
        asked--;
      if (asked == 0)
        continue;   /* no user message before it: only the refusal goes */

      for (guint j = kept->len; j-- > asked - 1; )
        {
          JsonObject *earlier = g_ptr_array_index (kept, j);

          if (!pd_message_is_plan (earlier) && !pd_message_is_digest (earlier))
            g_ptr_array_remove_index (kept, j);
        }
    }

  array = json_array_sized_new (kept->len);
  for (guint i = 0; i < kept->len; i++)
    json_array_add_object_element (array, json_object_ref (g_ptr_array_index (kept, i)));

  return array;
}

/* Whether the last message that is not a note is a refusal: such a session
 * can only go on with a new message. */
gboolean
pd_transcript_ends_refused (PdTranscript *self)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT (self), FALSE);

  for (guint i = self->messages->len; i-- > 0; )
    {
      JsonObject *message = g_ptr_array_index (self->messages, i);

      if (pd_message_is_record_only (message))
        continue;
      return pd_message_is_refused (message);
    }

  return FALSE;
}

guint
pd_transcript_get_dirty_from (PdTranscript *self)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT (self), 0);
  return MIN (self->dirty_from, self->messages->len);
}

void
pd_transcript_mark_saved (PdTranscript *self)
{
  g_return_if_fail (PD_IS_TRANSCRIPT (self));
  self->dirty_from = self->messages->len;
  g_hash_table_remove_all (self->replaced);
}

static int
compare_uint (gconstpointer a,
              gconstpointer b)
{
  guint x = *(const guint *) a, y = *(const guint *) b;
  return x < y ? -1 : x > y;
}

/**
 * pd_transcript_get_replaced:
 *
 * Returns: (transfer full) (element-type guint): the ascending indices of
 *   messages replaced in place below the dirty tail since the last save
 */
GArray *
pd_transcript_get_replaced (PdTranscript *self)
{
  GArray *indices = g_array_new (FALSE, FALSE, sizeof (guint));
  GHashTableIter iter;
  gpointer key;
  guint dirty;

  g_return_val_if_fail (PD_IS_TRANSCRIPT (self), indices);

  dirty = pd_transcript_get_dirty_from (self);
  g_hash_table_iter_init (&iter, self->replaced);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    {
      guint index = GPOINTER_TO_UINT (key);

      /* A structural change since then rewrites it with the tail anyway. */
      if (index < dirty)
        g_array_append_val (indices, index);
    }
  g_array_sort (indices, compare_uint);

  return indices;
}

/* About four bytes of English or code per token, plus the per-message
 * overhead of the chat formats: an estimate is all the budget needs, and
 * it is kept per message so the total never needs a scan. */
gint64
pd_message_estimate_tokens (JsonObject *message)
{
  gint64 bytes = 0;
  const char *content = pd_json_get_string (message, "content");
  JsonNode *tool_calls = json_object_get_member (message, "tool_calls");

  if (content != NULL)
    bytes += strlen (content);

  if (tool_calls != NULL && JSON_NODE_HOLDS_ARRAY (tool_calls))
    {
      JsonArray *calls = json_node_get_array (tool_calls);

      for (guint i = 0; i < json_array_get_length (calls); i++)
        {
          JsonNode *call = json_array_get_element (calls, i);
          JsonObject *function;

          if (!JSON_NODE_HOLDS_OBJECT (call))
            continue;
          /* A stored session's calls are read back as written: a name or
           * arguments of another type count as nothing (json-glib's own
           * getter gave NULL for a number, and strlen() crashed). */
          function = pd_json_get_object (json_node_get_object (call), "function");
          if (function == NULL)
            continue;
          bytes += strlen (pd_json_get_string (function, "name") ?: "");
          bytes += strlen (pd_json_get_string (function, "arguments") ?: "");
          bytes += 16;
        }
    }

  return (bytes + 3) / 4 + 4;
}

gint64
pd_transcript_get_estimate (PdTranscript *self,
                            guint         index)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT (self), 0);
  g_return_val_if_fail (index < self->estimates->len, 0);
  return g_array_index (self->estimates, gint64, index);
}

gint64
pd_transcript_get_total_estimate (PdTranscript *self)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT (self), 0);
  return self->total;
}

JsonObject *
pd_message_new (const char *role,
                const char *content)
{
  JsonObject *message = json_object_new ();

  json_object_set_string_member (message, "role", role);
  if (content != NULL)
    json_object_set_string_member (message, "content", content);
  else
    json_object_set_null_member (message, "content");

  return message;
}

const char *
pd_message_get_role (JsonObject *message)
{
  return pd_json_get_string (message, "role");
}

const char *
pd_message_get_content (JsonObject *message)
{
  return pd_json_get_string (message, "content");
}

/* A system message that records what Plandeck did (a failure, a stop) for
 * the person reading the session; models are never shown it. */
JsonObject *
pd_message_new_note (const char *content)
{
  JsonObject *message = pd_message_new ("system", content);

  json_object_set_boolean_member (message, PD_MESSAGE_RECORD_ONLY, TRUE);
  return message;
}

gboolean
pd_message_is_record_only (JsonObject *message)
{
  return pd_json_get_boolean (message, PD_MESSAGE_RECORD_ONLY, FALSE);
}

/* An assistant message the model declined: it carries the explanation. */
gboolean
pd_message_is_refused (JsonObject *message)
{
  return g_strcmp0 (pd_message_get_role (message), "assistant") == 0 &&
         pd_json_get_string (message, PD_MESSAGE_REFUSAL) != NULL;
}

gboolean
pd_message_is_digest (JsonObject *message)
{
  const char *content = pd_message_get_content (message);

  return g_strcmp0 (pd_message_get_role (message), "system") == 0 &&
         content != NULL && g_str_has_prefix (content, PD_DIGEST_PREFIX);
}

/* Role and prefix, both: a tool result quoting a plan is not the plan. */
gboolean
pd_message_is_plan (JsonObject *message)
{
  return pd_plan_is_plan_message (pd_message_get_role (message), pd_message_get_content (message));
}

int
pd_transcript_find_plan_message (PdTranscript *self)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT (self), -1);

  for (guint i = self->messages->len; i-- > 0; )
    if (pd_message_is_plan (g_ptr_array_index (self->messages, i)))
      return (int) i;

  return -1;
}

/**
 * pd_transcript_get_head_length:
 *
 * The protected head: leading system messages (the system prompt), the
 * first user message (the original task), and a compaction digest that sits
 * right after them.  The plan message is not part of the head; it is
 * inserted at the end of it and protected on its own.
 */
guint
pd_transcript_get_head_length (PdTranscript *self)
{
  guint i = 0;
  guint n;

  g_return_val_if_fail (PD_IS_TRANSCRIPT (self), 0);

  n = self->messages->len;

  while (i < n)
    {
      JsonObject *message = g_ptr_array_index (self->messages, i);

      if (g_strcmp0 (pd_message_get_role (message), "system") != 0 ||
          pd_message_is_plan (message) || pd_message_is_digest (message))
        break;
      i++;
    }

  if (i < n && g_strcmp0 (pd_message_get_role (g_ptr_array_index (self->messages, i)), "user") == 0)
    i++;

  while (i < n && pd_message_is_digest (g_ptr_array_index (self->messages, i)))
    i++;

  return i;
}

gboolean
pd_transcript_is_protected (PdTranscript *self,
                            guint         index)
{
  JsonObject *message;

  g_return_val_if_fail (PD_IS_TRANSCRIPT (self), TRUE);
  g_return_val_if_fail (index < self->messages->len, TRUE);

  if (index < pd_transcript_get_head_length (self))
    return TRUE;

  message = g_ptr_array_index (self->messages, index);
  return pd_message_is_plan (message) || pd_message_is_digest (message);
}

/**
 * pd_transcript_refresh_plan:
 * @content: the wrapped plan message content, or %NULL for no plan
 *
 * Upserts the plan message: updated in place when present (its position is
 * then fixed for the life of the session, which keeps the provider's prompt
 * cache warm up to it), otherwise inserted right after the protected head.
 * Equal content is a no-op.
 *
 * Returns: %TRUE when the transcript changed
 */
gboolean
pd_transcript_refresh_plan (PdTranscript *self,
                            const char   *content)
{
  int index;

  g_return_val_if_fail (PD_IS_TRANSCRIPT (self), FALSE);

  if (content == NULL)
    return FALSE;

  g_return_val_if_fail (g_str_has_prefix (content, PD_PLAN_MESSAGE_PREFIX), FALSE);

  index = pd_transcript_find_plan_message (self);
  if (index >= 0)
    {
      g_autoptr(JsonObject) message = NULL;

      if (g_strcmp0 (pd_message_get_content (g_ptr_array_index (self->messages, index)), content) == 0)
        return FALSE;

      message = pd_message_new ("system", content);
      pd_transcript_replace (self, (guint) index, message);
      return TRUE;
    }

  {
    g_autoptr(JsonObject) message = pd_message_new ("system", content);
    pd_transcript_insert (self, pd_transcript_get_head_length (self), message);
  }

  return TRUE;
}
