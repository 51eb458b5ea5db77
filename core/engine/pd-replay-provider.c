/* pd-replay-provider.c: recorded assistant turns, played back.
 *
 * The whole file is checked when it is loaded, so a demo fails at start with
 * the line that is wrong, not halfway through a run.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-provider"

#include "config.h"

#include <string.h>

#include "pd-json.h"
#include "pd-provider-private.h"
#include "pd-replay-provider.h"

#define NAME "replay"
#define MAX_FILE_BYTES (16 * 1024 * 1024)
#define MAX_DELAY_MS 10000
/* Small enough that a demo visibly streams. */
#define CHUNK_CHARS 12

typedef struct
{
  char      *content;
  char      *reasoning;
  JsonArray *tool_calls;   /* [{name, arguments (JSON text)}] as given */
  char      *finish_reason;
  char      *refusal;        /* the turn is a refusal with this explanation */
  guint      delay_ms;
  gint64     input_tokens;
  gint64     output_tokens;
} Turn;

struct _PdReplayProvider
{
  GObject    parent_instance;

  char      *label;
  GPtrArray *turns;
  GMutex     lock;
  guint      position;
};

static void provider_iface_init (PdProviderInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PdReplayProvider, pd_replay_provider, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (PD_TYPE_PROVIDER, provider_iface_init))

static void
turn_free (gpointer data)
{
  Turn *turn = data;

  g_free (turn->content);
  g_free (turn->reasoning);
  g_clear_pointer (&turn->tool_calls, json_array_unref);
  g_free (turn->finish_reason);
  g_free (turn->refusal);
  g_free (turn);
}

static gboolean
invalid (GError     **error,
         guint        turn,
         const char  *what)
{
  g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG,
               NAME ": turn %u of the recording is invalid: %s", turn, what);
  return FALSE;
}

static gboolean
optional_string (JsonObject  *object,
                 const char  *member,
                 char       **out,
                 guint        turn,
                 GError     **error)
{
  const char *value;

  if (!pd_json_get_optional_string (object, member, &value))
    {
      g_autofree char *what = g_strdup_printf ("“%s” must be a string", member);
      return invalid (error, turn, what);
    }

  if (value != NULL)
    *out = g_strdup (value);
  return TRUE;
}

static gboolean
optional_int (JsonObject  *object,
              const char  *member,
              gint64       max,
              gint64      *out,
              guint        turn,
              GError     **error)
{
  JsonNode *node = json_object_get_member (object, member);

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_INT64 ||
      json_node_get_int (node) < 0 || json_node_get_int (node) > max)
    {
      g_autofree char *what = g_strdup_printf ("“%s” must be a whole number from 0 to %" G_GINT64_FORMAT,
                                               member, max);
      return invalid (error, turn, what);
    }

  *out = json_node_get_int (node);
  return TRUE;
}

static Turn *
parse_turn (JsonNode  *node,
            guint      number,
            GError   **error)
{
  g_autoptr(GPtrArray) holder = g_ptr_array_new_with_free_func (turn_free);
  JsonObject *object;
  JsonNode *calls;
  Turn *turn;
  gint64 delay = 0;

  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      invalid (error, number, "a turn must be a JSON object");
      return NULL;
    }
  object = json_node_get_object (node);

  turn = g_new0 (Turn, 1);
  turn->input_tokens = -1;
  turn->output_tokens = -1;
  turn->tool_calls = json_array_new ();
  g_ptr_array_add (holder, turn);

  if (!optional_string (object, "content", &turn->content, number, error) ||
      !optional_string (object, "reasoning", &turn->reasoning, number, error) ||
      !optional_string (object, "finish_reason", &turn->finish_reason, number, error) ||
      !optional_string (object, "refusal", &turn->refusal, number, error) ||
      !optional_int (object, "delay_ms", MAX_DELAY_MS, &delay, number, error) ||
      !optional_int (object, "input_tokens", G_MAXINT32, &turn->input_tokens, number, error) ||
      !optional_int (object, "output_tokens", G_MAXINT32, &turn->output_tokens, number, error))
    return NULL;
  turn->delay_ms = (guint) delay;

  calls = json_object_get_member (object, "tool_calls");
  if (calls != NULL && !JSON_NODE_HOLDS_NULL (calls))
    {
      JsonArray *array;

      if (!JSON_NODE_HOLDS_ARRAY (calls))
        {
          invalid (error, number, "“tool_calls” must be an array");
          return NULL;
        }

      array = json_node_get_array (calls);
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonObject *call = pd_json_array_get_object (array, i);
          const char *name = _pd_provider_json_string (call, "name");
          JsonNode *arguments = call ? json_object_get_member (call, "arguments") : NULL;
          JsonObject *kept;
          g_autofree char *text = NULL;

          if (name == NULL || *name == '\0')
            {
              invalid (error, number, "every tool call needs a “name” string");
              return NULL;
            }

          if (arguments == NULL || JSON_NODE_HOLDS_NULL (arguments))
            text = g_strdup ("{}");
          else if (JSON_NODE_HOLDS_OBJECT (arguments))
            text = pd_json_to_string (arguments, FALSE);
          else if (pd_json_node_get_string (arguments) != NULL)
            text = g_strdup (pd_json_node_get_string (arguments));
          else
            {
              invalid (error, number, "tool call “arguments” must be an object or a string of JSON text");
              return NULL;
            }

          kept = json_object_new ();
          json_object_set_string_member (kept, "name", name);
          json_object_set_string_member (kept, "arguments", text);
          json_array_add_object_element (turn->tool_calls, kept);
        }
    }

  return g_ptr_array_steal_index (holder, 0);
}

PdReplayProvider *
pd_replay_provider_new_from_json (JsonNode  *root,
                                  GError   **error)
{
  g_autoptr(PdReplayProvider) self = NULL;
  JsonObject *object;
  JsonArray *turns;
  const char *label;

  g_return_val_if_fail (root != NULL, NULL);

  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG,
                           NAME ": a recording must be a JSON object with a “turns” array");
      return NULL;
    }

  object = json_node_get_object (root);
  if (!(turns = _pd_provider_json_array (object, "turns")))
    {
      g_set_error_literal (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG,
                           NAME ": the recording has no “turns” array");
      return NULL;
    }

  self = g_object_new (PD_TYPE_REPLAY_PROVIDER, NULL);

  label = _pd_provider_json_string (object, "label");
  if (label != NULL && *label != '\0')
    self->label = _pd_provider_sanitize (label, 200, NULL);
  else
    self->label = g_strdup ("recorded turns (replay, no model)");

  for (guint i = 0; i < json_array_get_length (turns); i++)
    {
      Turn *turn = parse_turn (json_array_get_element (turns, i), i + 1, error);

      if (turn == NULL)
        return NULL;
      g_ptr_array_add (self->turns, turn);
    }

  return g_steal_pointer (&self);
}

PdReplayProvider *
pd_replay_provider_new_from_file (const char  *path,
                                  GError     **error)
{
  g_autoptr(GMappedFile) file = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *display = NULL;
  PdReplayProvider *self;

  g_return_val_if_fail (path != NULL, NULL);

  display = g_filename_display_name (path);

  if (!(file = g_mapped_file_new (path, FALSE, &local_error)))
    {
      g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG,
                   NAME ": cannot read the recording %s: %s", display, local_error->message);
      return NULL;
    }

  if (g_mapped_file_get_length (file) > MAX_FILE_BYTES)
    {
      g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG,
                   NAME ": the recording %s is larger than %d bytes", display, MAX_FILE_BYTES);
      return NULL;
    }

  root = pd_json_parse (g_mapped_file_get_contents (file) ? g_mapped_file_get_contents (file) : "",
                        (gssize) g_mapped_file_get_length (file), &local_error);
  if (root == NULL)
    {
      g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG,
                   NAME ": the recording %s is not valid JSON: %s", display, local_error->message);
      return NULL;
    }

  if (!(self = pd_replay_provider_new_from_json (root, &local_error)))
    {
      /* Name the file: the message alone does not say which recording. */
      g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_INVALID_CONFIG,
                   "%s (in %s)", local_error->message, display);
      return NULL;
    }

  return self;
}

const char *
pd_replay_provider_get_label (PdReplayProvider *self)
{
  g_return_val_if_fail (PD_IS_REPLAY_PROVIDER (self), NULL);

  return self->label;
}

guint
pd_replay_provider_get_n_turns (PdReplayProvider *self)
{
  g_return_val_if_fail (PD_IS_REPLAY_PROVIDER (self), 0);

  return self->turns->len;
}

guint
pd_replay_provider_get_position (PdReplayProvider *self)
{
  guint position;

  g_return_val_if_fail (PD_IS_REPLAY_PROVIDER (self), 0);

  g_mutex_lock (&self->lock);
  position = self->position;
  g_mutex_unlock (&self->lock);

  return position;
}

static void
stream_text (const char          *text,
             PdProviderDeltaKind  kind,
             PdProviderDeltaFunc  on_delta,
             gpointer             delta_data)
{
  const char *p = text;

  if (on_delta == NULL || text == NULL)
    return;

  /* Cut on character boundaries so every piece is valid UTF-8. */
  while (*p != '\0')
    {
      const char *end = p;
      g_autofree char *piece = NULL;

      for (guint n = 0; n < CHUNK_CHARS && *end != '\0'; n++)
        end = g_utf8_next_char (end);

      piece = g_strndup (p, (gsize) (end - p));
      on_delta (kind, piece, delta_data);
      p = end;
    }
}

static PdProviderResponse *
pd_replay_provider_chat (PdProvider               *provider,
                         const PdProviderRequest  *request,
                         PdProviderDeltaFunc       on_delta,
                         gpointer                  delta_data,
                         GCancellable             *cancellable,
                         GError                  **error)
{
  PdReplayProvider *self = PD_REPLAY_PROVIDER (provider);
  g_autoptr(PdProviderResponse) response = NULL;
  Turn *turn;
  guint number;

  /* Take the turn under the lock, but hand it out only when it is played
   * whole: a cancelled turn is played again by the next call. */
  g_mutex_lock (&self->lock);
  number = self->position;
  turn = number < self->turns->len ? g_ptr_array_index (self->turns, number) : NULL;
  g_mutex_unlock (&self->lock);

  if (turn == NULL)
    {
      g_set_error (error, PD_PROVIDER_ERROR, PD_PROVIDER_ERROR_REPLAY_EXHAUSTED,
                   NAME ": all %u recorded turns of “%s” have been played",
                   self->turns->len, self->label);
      return NULL;
    }

  if (turn->delay_ms > 0 && !_pd_provider_wait (turn->delay_ms, NAME, cancellable, error))
    return NULL;

  response = pd_provider_response_new ();
  g_free (response->content);
  response->content = g_strdup (turn->content ? turn->content : "");
  response->input_tokens = turn->input_tokens;
  response->output_tokens = turn->output_tokens;

  for (guint i = 0; i < json_array_get_length (turn->tool_calls); i++)
    {
      JsonObject *call = json_array_get_object_element (turn->tool_calls, i);
      g_autofree char *id = g_strdup_printf ("replay_%u_%u", number + 1, i + 1);

      json_array_add_object_element (response->tool_calls,
                                     _pd_provider_new_tool_call (id,
                                                                 json_object_get_string_member (call, "name"),
                                                                 json_object_get_string_member (call, "arguments")));
    }

  g_free (response->finish_reason);
  response->finish_reason = g_strdup (turn->refusal ? PD_FINISH_REFUSAL
                                      : turn->finish_reason ? turn->finish_reason
                                      : json_array_get_length (response->tool_calls) > 0 ? PD_FINISH_TOOL_CALLS
                                      : PD_FINISH_STOP);
  response->refusal = g_strdup (turn->refusal);
  response->reasoning = g_strdup (turn->reasoning);
  response->stop_reason = g_strdup (turn->finish_reason);

  stream_text (turn->reasoning, PD_PROVIDER_DELTA_REASONING, on_delta, delta_data);
  stream_text (turn->content, PD_PROVIDER_DELTA_TEXT, on_delta, delta_data);
  for (guint i = 0; on_delta != NULL && i < json_array_get_length (turn->tool_calls); i++)
    on_delta (PD_PROVIDER_DELTA_TOOL_CALL,
              json_object_get_string_member (json_array_get_object_element (turn->tool_calls, i), "name"),
              delta_data);

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  g_mutex_lock (&self->lock);
  /* Two callers racing for one turn: the first to finish takes it. */
  if (self->position == number)
    self->position++;
  g_mutex_unlock (&self->lock);

  /* The turn is used even when its arguments are broken: the recording
   * meant the model to fail here, and the next call gets the next turn. */
  if (!_pd_provider_settle_tool_calls (NAME, response, error))
    return NULL;

  return g_steal_pointer (&response);
}

static const char *
pd_replay_provider_get_name (PdProvider *provider)
{
  return NAME;
}

static void
provider_iface_init (PdProviderInterface *iface)
{
  iface->get_name = pd_replay_provider_get_name;
  iface->chat = pd_replay_provider_chat;
}

static void
pd_replay_provider_finalize (GObject *object)
{
  PdReplayProvider *self = (PdReplayProvider *) object;

  g_clear_pointer (&self->label, g_free);
  g_clear_pointer (&self->turns, g_ptr_array_unref);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (pd_replay_provider_parent_class)->finalize (object);
}

static void
pd_replay_provider_class_init (PdReplayProviderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = pd_replay_provider_finalize;
}

static void
pd_replay_provider_init (PdReplayProvider *self)
{
  self->turns = g_ptr_array_new_with_free_func (turn_free);
  g_mutex_init (&self->lock);
}
