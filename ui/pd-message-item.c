/* pd-message-item.c: one transcript message, as the transcript view lists it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Immutable once made: a refresh that finds a message changed puts a new
 * item in its place, so rows of unchanged messages keep their objects.
 */
#define G_LOG_DOMAIN "pd-message-item"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-json-util.h"
#include "pd-message-item.h"
#include "pd-safe-text.h"
#include "pd-plan.h"
#include "pd-run-note.h"
#include "pd-transcript.h"

struct _PdMessageItem
{
  GObject    parent_instance;

  guint      index;
  char      *role;
  char      *content;          /* "" when the message has none */
  char      *name;
  char      *tool_call_id;
  JsonArray *tool_calls;       /* (nullable) */
  char      *tool_calls_text;  /* compact JSON, for comparison; "" when none */
  gboolean   is_plan;
  char      *refusal;          /* the model declined: the explanation */
  char      *incomplete;       /* cut off: the stop reason that said so */
  char      *thinking;         /* the model's thinking or reasoning, to show folded */
  gboolean   run_stopped;      /* the last plan card of a run that stopped short */
  gboolean   is_note;          /* Plandeck's record of how the run ended (a stop, a failure) */
};

G_DEFINE_FINAL_TYPE (PdMessageItem, pd_message_item, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_INDEX,
  PROP_ROLE,
  PROP_CONTENT,
  PROP_IS_PLAN,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
pd_message_item_finalize (GObject *object)
{
  PdMessageItem *self = PD_MESSAGE_ITEM (object);

  g_free (self->role);
  g_free (self->content);
  g_free (self->name);
  g_free (self->tool_call_id);
  g_clear_pointer (&self->tool_calls, json_array_unref);
  g_free (self->tool_calls_text);
  g_free (self->refusal);
  g_free (self->incomplete);
  g_free (self->thinking);

  G_OBJECT_CLASS (pd_message_item_parent_class)->finalize (object);
}

static void
pd_message_item_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  PdMessageItem *self = PD_MESSAGE_ITEM (object);

  switch (prop_id)
    {
    case PROP_INDEX:
      g_value_set_uint (value, self->index);
      break;
    case PROP_ROLE:
      g_value_set_string (value, self->role);
      break;
    case PROP_CONTENT:
      g_value_set_string (value, self->content);
      break;
    case PROP_IS_PLAN:
      g_value_set_boolean (value, self->is_plan);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_message_item_class_init (PdMessageItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = pd_message_item_finalize;
  object_class->get_property = pd_message_item_get_property;

  properties[PROP_INDEX] =
    g_param_spec_uint ("index", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_ROLE] =
    g_param_spec_string ("role", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_CONTENT] =
    g_param_spec_string ("content", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_IS_PLAN] =
    g_param_spec_boolean ("is-plan", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
pd_message_item_init (PdMessageItem *self)
{
}

/* Transcript text comes from models and from other agents' files: as
 * pd_safe_text_block() shows it — every invisible format character (a bidi
 * override that would show the text in another order, a zero-width or tag
 * character) as "<U+202E>", control characters as spaces, line breaks kept.
 * Takes @text. */
static char *
show_invisible (char *text)
{
  g_autofree char *owned = text;

  if (text == NULL)
    return NULL;
  return pd_safe_text_block (owned);
}

/* Content is a string in OpenAI-shaped messages; a list of parts is shown
 * by its text parts, anything else as JSON. */
static char *
content_text (JsonObject *message)
{
  JsonNode *node = json_object_get_member (message, "content");
  char *text = pd_json_content_text (node, "\n");

  return text != NULL ? text : json_to_string (node, TRUE);
}

/* What an assistant message kept of the model's thinking: Anthropic
 * thinking blocks (redacted ones are only named), and the reasoning text
 * OpenAI-compatible servers send. */
static char *
thinking_text (JsonObject *message)
{
  JsonNode *node = json_object_get_member (message, "thinking");
  g_autoptr(GString) out = g_string_new (NULL);
  const char *reasoning[] = { pd_json_get_string (message, "reasoning_content"), pd_json_get_string (message, "reasoning") };

  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *blocks = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (blocks); i++)
        {
          JsonNode *block_node = json_array_get_element (blocks, i);
          JsonObject *block;
          const char *text;

          if (!JSON_NODE_HOLDS_OBJECT (block_node))
            continue;
          block = json_node_get_object (block_node);
          if (g_strcmp0 (pd_json_get_string (block, "type"), "redacted_thinking") == 0)
            text = _("(redacted thinking)");
          else if ((text = pd_json_get_string (block, "thinking")) == NULL || *text == '\0')
            continue;
          if (out->len > 0)
            g_string_append (out, "\n\n");
          g_string_append (out, text);
        }
    }

  for (guint i = 0; i < G_N_ELEMENTS (reasoning); i++)
    if (reasoning[i] != NULL && *reasoning[i] != '\0')
      {
        if (out->len > 0)
          g_string_append (out, "\n\n");
        g_string_append (out, reasoning[i]);
      }

  return out->len > 0 ? g_string_free (g_steal_pointer (&out), FALSE) : NULL;
}

/**
 * pd_message_item_new_from_json:
 * @index: position of the message in the transcript
 * @message: an OpenAI-shaped message object
 *
 * Returns: (transfer full): a new item
 */
PdMessageItem *
pd_message_item_new_from_json (guint       index,
                               JsonObject *message)
{
  PdMessageItem *self;
  JsonNode *calls;
  const char *role;

  g_return_val_if_fail (message != NULL, NULL);

  self = g_object_new (PD_TYPE_MESSAGE_ITEM, NULL);
  role = pd_json_get_string (message, "role");
  self->index = index;
  self->role = g_strdup (role ? role : "");
  self->content = content_text (message);
  self->name = g_strdup (pd_json_get_string (message, "name"));
  self->tool_call_id = g_strdup (pd_json_get_string (message, "tool_call_id"));

  calls = json_object_get_member (message, "tool_calls");
  if (calls != NULL && JSON_NODE_HOLDS_ARRAY (calls) &&
      json_array_get_length (json_node_get_array (calls)) > 0)
    {
      g_autofree char *json = json_to_string (calls, FALSE);

      self->tool_calls = json_array_ref (json_node_get_array (calls));
      self->tool_calls_text = pd_safe_text_escape_json (json);
    }
  else
    self->tool_calls_text = g_strdup ("");

  /* Only the protected system message is the plan: a tool result quoting
   * "[Current plan:" is not. */
  self->is_plan = pd_plan_is_plan_message (self->role, self->content);
  /* Plandeck's own note of how the run ended, kept for the record (never
   * sent to a model): it read as a folded "System prompt (4 lines)". */
  self->is_note = g_strcmp0 (self->role, "system") == 0 && !self->is_plan && pd_message_is_record_only (message);
  if (self->is_note)
    {
      g_autofree char *note = self->content;

      /* As a person reads it: without the lines that wrap, for a model,
       * what came from the plan (<untrusted_content_…>), in the words
       * `plandeck-agent run` says it: "its iteration budget ran out", not
       * the engine's "its iterations budget is exhausted", "s2 in
       * progress", not "in_progress" (tried as a new user would). */
      self->content = pd_run_note_to_text (note);
    }
  self->content = show_invisible (self->content);

  if (g_strcmp0 (self->role, "assistant") == 0)
    {
      self->refusal = g_strdup (pd_json_get_string (message, "refusal"));
      self->incomplete = g_strdup (pd_json_get_string (message, "incomplete"));
      self->thinking = show_invisible (thinking_text (message));
      self->refusal = show_invisible (self->refusal);
      self->incomplete = show_invisible (self->incomplete);
    }

  return self;
}

guint
pd_message_item_get_index (PdMessageItem *self)
{
  g_return_val_if_fail (PD_IS_MESSAGE_ITEM (self), 0);
  return self->index;
}

const char *
pd_message_item_get_role (PdMessageItem *self)
{
  g_return_val_if_fail (PD_IS_MESSAGE_ITEM (self), NULL);
  return self->role;
}

const char *
pd_message_item_get_content (PdMessageItem *self)
{
  g_return_val_if_fail (PD_IS_MESSAGE_ITEM (self), NULL);
  return self->content;
}

const char *
pd_message_item_get_name (PdMessageItem *self)
{
  g_return_val_if_fail (PD_IS_MESSAGE_ITEM (self), NULL);
  return self->name;
}

const char *
pd_message_item_get_tool_call_id (PdMessageItem *self)
{
  g_return_val_if_fail (PD_IS_MESSAGE_ITEM (self), NULL);
  return self->tool_call_id;
}

/**
 * pd_message_item_get_tool_calls:
 *
 * Returns: (nullable) (transfer none): the assistant's tool calls
 */
JsonArray *
pd_message_item_get_tool_calls (PdMessageItem *self)
{
  g_return_val_if_fail (PD_IS_MESSAGE_ITEM (self), NULL);
  return self->tool_calls;
}

gboolean
pd_message_item_get_is_plan (PdMessageItem *self)
{
  g_return_val_if_fail (PD_IS_MESSAGE_ITEM (self), FALSE);
  return self->is_plan;
}

/* Whether it is Plandeck's note of how a run ended (a stop, a failure),
 * shown as a notice of its own, not as a system prompt. */
gboolean
pd_message_item_get_is_note (PdMessageItem *self)
{
  g_return_val_if_fail (PD_IS_MESSAGE_ITEM (self), FALSE);
  return self->is_note;
}

/* (nullable): the explanation of a refused assistant turn */
const char *
pd_message_item_get_refusal (PdMessageItem *self)
{
  g_return_val_if_fail (PD_IS_MESSAGE_ITEM (self), NULL);
  return self->refusal;
}

/* (nullable): the stop reason of an answer cut off by its output limit */
const char *
pd_message_item_get_incomplete (PdMessageItem *self)
{
  g_return_val_if_fail (PD_IS_MESSAGE_ITEM (self), NULL);
  return self->incomplete;
}

/* (nullable): the model's thinking of this turn, as text */
const char *
pd_message_item_get_thinking (PdMessageItem *self)
{
  g_return_val_if_fail (PD_IS_MESSAGE_ITEM (self), NULL);
  return self->thinking;
}

/* Whether this is the last plan of a session whose run stopped short: its
 * step in progress is shown as the Now page shows it then. */
gboolean
pd_message_item_get_run_stopped (PdMessageItem *self)
{
  g_return_val_if_fail (PD_IS_MESSAGE_ITEM (self), FALSE);
  return self->run_stopped;
}

/**
 * pd_message_item_copy_run_stopped:
 *
 * Items do not change once made: the same message with @run_stopped, to
 * put in its place.
 *
 * Returns: (transfer full): a new item
 */
PdMessageItem *
pd_message_item_copy_run_stopped (PdMessageItem *self,
                                  gboolean       run_stopped)
{
  PdMessageItem *copy;

  g_return_val_if_fail (PD_IS_MESSAGE_ITEM (self), NULL);

  copy = g_object_new (PD_TYPE_MESSAGE_ITEM, NULL);
  copy->index = self->index;
  copy->role = g_strdup (self->role);
  copy->content = g_strdup (self->content);
  copy->name = g_strdup (self->name);
  copy->tool_call_id = g_strdup (self->tool_call_id);
  copy->tool_calls = self->tool_calls ? json_array_ref (self->tool_calls) : NULL;
  copy->tool_calls_text = g_strdup (self->tool_calls_text);
  copy->is_plan = self->is_plan;
  copy->is_note = self->is_note;
  copy->refusal = g_strdup (self->refusal);
  copy->incomplete = g_strdup (self->incomplete);
  copy->thinking = g_strdup (self->thinking);
  copy->run_stopped = !!run_stopped;
  return copy;
}

/* Same message at the same place: the row need not change.  Whether its
 * run stopped is not the message's: the transcript view sets that after. */
gboolean
pd_message_item_equal (PdMessageItem *a,
                       PdMessageItem *b)
{
  g_return_val_if_fail (PD_IS_MESSAGE_ITEM (a), FALSE);
  g_return_val_if_fail (PD_IS_MESSAGE_ITEM (b), FALSE);

  return a->index == b->index &&
         g_strcmp0 (a->role, b->role) == 0 &&
         g_strcmp0 (a->content, b->content) == 0 &&
         a->is_note == b->is_note &&
         g_strcmp0 (a->name, b->name) == 0 &&
         g_strcmp0 (a->tool_call_id, b->tool_call_id) == 0 &&
         g_strcmp0 (a->tool_calls_text, b->tool_calls_text) == 0 &&
         g_strcmp0 (a->refusal, b->refusal) == 0 &&
         g_strcmp0 (a->incomplete, b->incomplete) == 0 &&
         g_strcmp0 (a->thinking, b->thinking) == 0;
}

/* What the copy button puts on the clipboard: the text, then the calls. */
char *
pd_message_item_dup_copy_text (PdMessageItem *self)
{
  g_autoptr(GString) out = NULL;

  g_return_val_if_fail (PD_IS_MESSAGE_ITEM (self), NULL);

  out = g_string_new (self->content);
  if (self->tool_calls != NULL)
    {
      g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);
      g_autofree char *pretty = NULL;

      json_node_set_array (node, self->tool_calls);
      pretty = json_to_string (node, TRUE);
      if (out->len > 0)
        g_string_append (out, "\n\n");
      g_string_append (out, pretty);
    }

  return g_string_free (g_steal_pointer (&out), FALSE);
}
