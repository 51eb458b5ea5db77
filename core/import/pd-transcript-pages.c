/* pd-transcript-pages.c: what the pages of an imported session show.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>

#include "pd-event.h"
#include "pd-import-private.h"
#include "pd-json.h"
#include "pd-redact.h"
#include "pd-safe-text.h"
#include "pd-session-store.h"
#include "pd-transcript-pages.h"
#include "pd-transcript-pages-private.h"

#include "pd-transcript-pages-build-private.h"

static PdPlanVersionInfo *version_info (const Version *version,
                                        JsonNode      *marks);

G_DEFINE_FINAL_TYPE (PdTranscriptPages, pd_transcript_pages, G_TYPE_OBJECT)

/* Pages begun, in this process: what the tests hold a bounded read to. */
static gint n_built;
/* The most messages of a session's own conversation any pages held at
 * once, since the last reset: what the tests hold a part or a stream to. */
static gint peak_held;

static void
message_free (Message *message)
{
  if (message->content)
    g_string_free (message->content, TRUE);
  if (message->thinking)
    g_string_free (message->thinking, TRUE);
  g_clear_pointer (&message->calls, g_ptr_array_unref);
  g_free (message->tool_call_id);
  g_free (message->name);
  g_free (message->group);
  g_free (message);
}

static void version_free (Version *version);
static void seal_documents (PdTranscriptPages *self,
                            PdImportedSession *session,
                            GStrv              resume_argv,
                            const char        *workdir);

void
_pd_transcript_pages_call_free (Call *call)
{
  g_free (call->id);
  g_free (call->name);
  g_free (call->arguments);
  g_free (call->sub_conversation);
  g_free (call->sub_prompt);
  g_free (call->agent_type);
  g_free (call->description);
  if (call->plan_owned)
    version_free (call->plan);
  g_free (call);
}

static void
conversation_free (Conversation *conversation)
{
  g_free (conversation->key);
  g_ptr_array_unref (conversation->messages);
  g_free (conversation->first_prompt);
  g_free (conversation);
}

/* Versions are shared, never changed once added: a followed transcript's
 * pages (_pd_transcript_pages_snapshot()) hold the building pages' own. */
static void
version_clear (Version *version)
{
  g_ptr_array_unref (version->items);
}

static void
version_free (Version *version)
{
  g_atomic_rc_box_release_full (version, (GDestroyNotify) version_clear);
}

static void
event_free (Event *event)
{
  g_free (event->tool);
  g_free (event->data);
  g_free (event);
}

/* What is only needed while building. */
static void
drop_building_state (PdTranscriptPages *self)
{
  g_clear_pointer (&self->conversations, g_hash_table_unref);
  g_clear_pointer (&self->conversation_order, g_ptr_array_unref);
  g_clear_pointer (&self->calls, g_hash_table_unref);
  g_clear_pointer (&self->log, g_array_unref);
  g_clear_pointer (&self->call_list, g_ptr_array_unref);
}

static void
pd_transcript_pages_finalize (GObject *object)
{
  PdTranscriptPages *self = PD_TRANSCRIPT_PAGES (object);

  drop_building_state (self);
  g_clear_pointer (&self->version_marks, json_node_unref);
  g_free (self->messages_json);
  g_clear_pointer (&self->message_starts, g_array_unref);
  g_clear_pointer (&self->versions, g_ptr_array_unref);
  g_clear_pointer (&self->plans, g_ptr_array_unref);
  g_clear_pointer (&self->events, g_ptr_array_unref);
  g_strfreev (self->resume_argv);
  g_free (self->workdir);

  G_OBJECT_CLASS (pd_transcript_pages_parent_class)->finalize (object);
}

static void
pd_transcript_pages_class_init (PdTranscriptPagesClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_transcript_pages_finalize;
}

static void
pd_transcript_pages_init (PdTranscriptPages *self)
{
  self->conversations = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) conversation_free);
  self->conversation_order = g_ptr_array_new ();
  self->calls = g_hash_table_new (g_str_hash, g_str_equal);
  self->call_list = g_ptr_array_new_with_free_func ((GDestroyNotify) _pd_transcript_pages_call_free);
  self->log = g_array_new (FALSE, FALSE, sizeof (Entry));
  self->versions = g_ptr_array_new_with_free_func ((GDestroyNotify) version_free);
  self->plans = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_artifact_plan_free);
  self->events = g_ptr_array_new_with_free_func ((GDestroyNotify) event_free);
  _pd_transcript_pages_budget_init (self);
}

guint
_pd_transcript_pages_get_n_built (void)
{
  return (guint) g_atomic_int_get (&n_built);
}

guint
_pd_transcript_pages_reset_peak_held (void)
{
  gint peak;

  do
    peak = g_atomic_int_get (&peak_held);
  while (!g_atomic_int_compare_and_exchange (&peak_held, peak, 0));
  return (guint) peak;
}

PdTranscriptPages *
_pd_transcript_pages_new (void)
{
  g_atomic_int_inc (&n_built);
  return g_object_new (PD_TYPE_TRANSCRIPT_PAGES, NULL);
}

PdTranscriptPages *
_pd_transcript_pages_new_history (void)
{
  PdTranscriptPages *self = _pd_transcript_pages_new ();

  self->history_only = TRUE;
  return self;
}

PdTranscriptPages *
_pd_transcript_pages_new_events (void)
{
  PdTranscriptPages *self = _pd_transcript_pages_new ();

  self->events_only = TRUE;
  return self;
}

PdTranscriptPages *
_pd_transcript_pages_new_events_by_offset (void)
{
  PdTranscriptPages *self = _pd_transcript_pages_new_events ();

  self->by_offset = TRUE;
  return self;
}

void
_pd_transcript_pages_set_line (PdTranscriptPages *self,
                               goffset            offset)
{
  g_return_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && !self->sealed);
  self->line_offset = offset;
}

PdTranscriptPages *
_pd_transcript_pages_new_part (gint64 first,
                               guint  max)
{
  PdTranscriptPages *self = _pd_transcript_pages_new ();

  g_return_val_if_fail (max > 0, self);
  self->windowed = TRUE;
  self->window_first = first < 0 ? -1 : first;
  self->window_max = max;
  return self;
}

PdTranscriptPages *
_pd_transcript_pages_new_stream (PdTranscriptPagesSink sink,
                                 gpointer              user_data)
{
  PdTranscriptPages *self = _pd_transcript_pages_new_part (-1, PD_TRANSCRIPT_PAGES_STREAM_LAG);

  self->sink = sink;
  self->sink_data = user_data;
  return self;
}

PdTranscriptPages *
_pd_transcript_pages_new_version_stream (PdChecklist                 *annotations,
                                         PdTranscriptPagesVersionSink sink,
                                         gpointer                     user_data)
{
  PdTranscriptPages *self = _pd_transcript_pages_new_history ();

  self->version_sink = sink;
  self->version_sink_data = user_data;
  self->version_marks = annotations ? pd_checklist_annotations_to_json (annotations) : NULL;
  return self;
}

/* ---------------------------------------------------------------------- */
/* Building                                                               */

/* Appends @text to @out, keeping at most @max bytes in @out (cut at a
 * character boundary); what did not fit is added to *@cut.  The text is
 * another program's or a model's: it is kept as text a person can read
 * safely, its control characters harmless and its invisible format
 * characters (bidi overrides) shown as <U+202E> (pd-safe-text.h). */
static void
append_bounded (GString    *out,
                const char *raw,
                gsize       max,
                gsize      *cut)
{
  gsize room = out->len < max ? max - out->len : 0;
  gsize left_out;
  g_autofree char *text = _pd_import_safe_head (raw, room + 8, &left_out);
  gsize length = strlen (text);
  gsize keep = room;

  *cut += left_out;
  if (length <= room)
    {
      g_string_append_len (out, text, (gssize) length);
      return;
    }
  /* Cut before the character that would not fit whole (the text is valid
   * UTF-8: step back over continuation bytes to its first byte). */
  while (keep > 0 && ((guchar) text[keep] & 0xC0) == 0x80)
    keep--;
  g_string_append_len (out, text, (gssize) keep);
  *cut += length - keep;
}

Conversation *
_pd_transcript_pages_conversation_get (PdTranscriptPages *self,
                                       const char        *key)
{
  Conversation *conversation;

  if (key == NULL)
    key = "";
  if ((conversation = g_hash_table_lookup (self->conversations, key)))
    return conversation;
  conversation = g_new0 (Conversation, 1);
  conversation->key = g_strdup (key);
  conversation->messages = g_ptr_array_new_with_free_func ((GDestroyNotify) message_free);
  g_hash_table_insert (self->conversations, conversation->key, conversation);
  g_ptr_array_add (self->conversation_order, conversation);
  return conversation;
}

/* A text no longer appended to, held in no more than it takes (a GString
 * rounds its buffer up to a power of two, 128 bytes at least). */
static void
string_fit (GString *text)
{
  if (text != NULL && text->allocated_len > text->len + 1)
    {
      text->str = g_realloc (text->str, text->len + 1);
      text->allocated_len = text->len + 1;
    }
}

Message *
_pd_transcript_pages_message_add (PdTranscriptPages *self,
                                  Conversation      *conversation,
                                  const char        *role,
                                  const char        *group,
                                  gint64             time)
{
  Message *message = g_new0 (Message, 1);
  Message *last = conversation->messages->len > 0
                  ? g_ptr_array_index (conversation->messages, conversation->messages->len - 1) : NULL;

  /* Only a conversation's last message grows: the one before is final. */
  if (last != NULL)
    {
      string_fit (last->content);
      string_fit (last->thinking);
    }
  message->role = g_intern_string (role);
  message->content = g_string_new (NULL);
  message->group = g_strdup (group);
  message->time = time;
  g_ptr_array_add (conversation->messages, message);
  if (conversation->first_time == 0)
    conversation->first_time = time;
  /* A long session's part keeps what it shows (never this one, the last). */
  if (*conversation->key == '\0')
    {
      gint held;

      message->index = self->n_main++;
      if (self->windowed)
        _pd_transcript_pages_window_trim (self, FALSE);
      held = (gint) MIN (conversation->messages->len, (guint) G_MAXINT);
      for (gint peak = g_atomic_int_get (&peak_held);
           held > peak && !g_atomic_int_compare_and_exchange (&peak_held, peak, held);
           peak = g_atomic_int_get (&peak_held))
        ;
    }
  return message;
}

static Message *
last_message (Conversation *conversation)
{
  return conversation->messages->len > 0
         ? g_ptr_array_index (conversation->messages, conversation->messages->len - 1) : NULL;
}

/* The assistant message a block of @group joins: the last message when it
 * is the model's and of the same answer (or, without groups, any answer
 * not yet followed by a tool result or a prompt). */
static Message *
assistant_for (PdTranscriptPages *self,
               Conversation      *conversation,
               const char        *group,
               gint64             time)
{
  Message *last = last_message (conversation);

  if (last != NULL && strcmp (last->role, "assistant") == 0
      && (group == NULL || g_strcmp0 (last->group, group) == 0))
    return last;
  return _pd_transcript_pages_message_add (self, conversation, "assistant", group, time);
}

void
_pd_transcript_pages_add_text (PdTranscriptPages *self,
                               const char        *conversation_key,
                               const char        *role,
                               const char        *text,
                               const char        *group,
                               gint64             time)
{
  Conversation *conversation;
  Message *message;

  g_return_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && !self->sealed);
  if (self->history_only || self->events_only)
    return;
  g_return_if_fail (role != NULL);

  if (text == NULL || *text == '\0' || !g_utf8_validate (text, -1, NULL))
    return;
  if (!_pd_transcript_pages_take (self, MESSAGE_COST + 2 * MIN (strlen (text), MESSAGE_TEXT_MAX), strlen (text)))
    return;
  conversation = _pd_transcript_pages_conversation_get (self, conversation_key);
  message = last_message (conversation);
  if (strcmp (role, "assistant") == 0 && group != NULL)
    {
      message = assistant_for (self, conversation, group, time);
      if (message->calls != NULL && message->calls->len > 0)
        message = _pd_transcript_pages_message_add (self, conversation, "assistant", group, time);
    }
  else if (strcmp (role, "assistant") == 0 && message != NULL && strcmp (message->role, "assistant") == 0
           && message->content->len == 0 && message->calls == NULL)
    {
      /* The answer to the thinking just before it. */
    }
  else
    message = _pd_transcript_pages_message_add (self, conversation, role, group, time);
  if (message->content->len > 0)
    append_bounded (message->content, "\n\n", MESSAGE_TEXT_MAX, &message->content_cut);
  append_bounded (message->content, text, MESSAGE_TEXT_MAX, &message->content_cut);

  if (strcmp (role, "user") == 0 && conversation->first_prompt == NULL)
    conversation->first_prompt = g_strdup (text);
}

void
_pd_transcript_pages_add_thinking (PdTranscriptPages *self,
                                   const char        *conversation_key,
                                   const char        *text,
                                   const char        *group,
                                   gint64             time)
{
  Message *message;

  g_return_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && !self->sealed);
  if (self->history_only || self->events_only)
    return;

  if (text == NULL || *text == '\0' || !g_utf8_validate (text, -1, NULL))
    return;
  if (!_pd_transcript_pages_take (self, MESSAGE_COST + 2 * MIN (strlen (text), THINKING_TEXT_MAX), strlen (text)))
    return;
  message = assistant_for (self, _pd_transcript_pages_conversation_get (self, conversation_key), group, time);
  if (message->thinking == NULL)
    message->thinking = g_string_new (NULL);
  else
    append_bounded (message->thinking, "\n\n", THINKING_TEXT_MAX, &message->thinking_cut);
  append_bounded (message->thinking, text, THINKING_TEXT_MAX, &message->thinking_cut);
}

static void
log_entry (PdTranscriptPages *self,
           EntryKind          kind,
           gpointer           ref)
{
  Entry entry = { kind, ref, self->line_offset };

  /* A part or a stream has no timeline (its calls are let go). */
  if (!self->windowed)
    g_array_append_val (self->log, entry);
}

void
_pd_transcript_pages_add_tool_call (PdTranscriptPages *self,
                                    const char        *conversation_key,
                                    const char        *call_id,
                                    const char        *name,
                                    const char        *arguments,
                                    const char        *group,
                                    gint64             time)
{
  _pd_transcript_pages_add_tool_call_head (self, conversation_key, call_id, name, arguments, 0, group, time);
}

void
_pd_transcript_pages_add_tool_call_head (PdTranscriptPages *self,
                                         const char        *conversation_key,
                                         const char        *call_id,
                                         const char        *name,
                                         const char        *arguments,
                                         gsize              left_out,
                                         const char        *group,
                                         gint64             time)
{
  Message *message;
  g_autoptr(GString) bounded = g_string_new (NULL);
  Call *call;

  g_return_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && !self->sealed);
  if (self->history_only)
    return;

  if (call_id == NULL || name == NULL || !g_utf8_validate (call_id, -1, NULL) || !g_utf8_validate (name, -1, NULL))
    return;
  {
    gsize length = arguments != NULL ? strlen (arguments) : 0;

    if (!_pd_transcript_pages_take (self, CALL_COST + 2 * (strlen (call_id) + strlen (name)
                                                          + (self->events_only ? 0 : MIN (length, TOOL_TEXT_MAX))),
                                    length + left_out))
      return;
  }

  call = g_new0 (Call, 1);
  /* Masked as the store masks an id, so the result's matches it. */
  call->id = pd_redact_id (call_id, NULL);
  call->name = pd_safe_text_line (name);
  if (arguments != NULL && g_utf8_validate (arguments, -1, NULL))
    append_bounded (bounded, arguments, TOOL_TEXT_MAX, &call->arguments_cut);
  call->arguments_cut += left_out;
  /* A cut call says so in its text, within the bound. */
  if (call->arguments_cut > 0)
    {
      gsize keep = MIN (bounded->len, TOOL_TEXT_MAX - CUT_NOTE_ROOM);

      while (keep > 0 && keep < bounded->len && ((guchar) bounded->str[keep] & 0xC0) == 0x80)
        keep--;
      call->arguments_cut += bounded->len - keep;
      g_string_truncate (bounded, keep);
      g_string_append_printf (bounded, "… (cut, %" G_GSIZE_FORMAT " bytes)", call->arguments_cut);
    }
  /* The Events' pages keep a call's size, not its text. */
  call->arguments_len = bounded->len;
  call->arguments = self->events_only ? NULL : g_strdup (bounded->str);
  call->time = time;
  g_ptr_array_add (self->call_list, call);
  /* A call id seen twice keeps its first call for the result. */
  if (!g_hash_table_contains (self->calls, call->id))
    g_hash_table_insert (self->calls, call->id, call);

  if (!self->events_only)
    {
      Conversation *conversation = _pd_transcript_pages_conversation_get (self, conversation_key);

      message = assistant_for (self, conversation, group, time);
      /* A message's calls are handed on as one tree (an export, `serve`):
       * an answer of more calls goes on in a message of its own (62 000
       * tiny calls in one answer made a tree of 60 MB). */
      if (message->calls != NULL && message->calls->len >= MESSAGE_CALLS_MAX)
        message = _pd_transcript_pages_message_add (self, conversation, "assistant", group, time);
      if (message->calls == NULL)
        message->calls = g_ptr_array_new ();
      g_ptr_array_add (message->calls, call);
    }
  log_entry (self, ENTRY_CALL, call);
}

void
_pd_transcript_pages_add_tool_result (PdTranscriptPages *self,
                                      const char        *conversation_key,
                                      const char        *call_id,
                                      const char        *text,
                                      gboolean           is_error,
                                      gint64             time)
{
  Message *message = NULL;
  Call *call;
  g_autofree char *stored_id = NULL;

  g_return_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && !self->sealed);
  if (self->history_only)
    return;

  if (call_id == NULL || !g_utf8_validate (call_id, -1, NULL))
    return;
  /* As the call's id was (_pd_transcript_pages_add_tool_call_head()). */
  stored_id = pd_redact_id (call_id, NULL);
  call_id = stored_id;
  {
    gsize length = text != NULL ? strlen (text) : 0;

    /* The Events' pages keep its event only. */
    if (!_pd_transcript_pages_take (self, self->events_only ? EVENT_COST + 2 * strlen (call_id)
                                          : MESSAGE_COST + 2 * (strlen (call_id) + MIN (length, TOOL_TEXT_MAX)),
                                    length))
      return;
  }
  if (!self->events_only)
    {
      message = _pd_transcript_pages_message_add (self, _pd_transcript_pages_conversation_get (self, conversation_key), "tool", NULL, time);
      message->tool_call_id = g_strdup (call_id);
      message->is_error = is_error;
      if (text != NULL && g_utf8_validate (text, -1, NULL))
        append_bounded (message->content, text, TOOL_TEXT_MAX, &message->content_cut);
    }

  call = g_hash_table_lookup (self->calls, call_id);
  if (call != NULL && !call->answered)
    {
      if (message != NULL)
        message->name = g_strdup (call->name);
      call->answered = TRUE;
      call->failed = is_error;
      call->result_time = time;
      call->result_bytes = text ? strlen (text) : 0;
      log_entry (self, ENTRY_RESULT, call);
    }
}

void
_pd_transcript_pages_set_subagent (PdTranscriptPages *self,
                                   const char        *call_id,
                                   const char        *conversation_key,
                                   const char        *prompt,
                                   const char        *agent_type,
                                   const char        *description)
{
  Call *call;
  g_autofree char *stored_id = NULL;

  g_return_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && !self->sealed);
  if (self->history_only)
    return;

  if (call_id == NULL)
    return;
  stored_id = pd_redact_id (call_id, NULL);
  if (!(call = g_hash_table_lookup (self->calls, stored_id)))
    return;
  call->subagent = TRUE;
  if (conversation_key != NULL && g_utf8_validate (conversation_key, -1, NULL))
    {
      g_free (call->sub_conversation);
      call->sub_conversation = g_strdup (conversation_key);
    }
  if (prompt != NULL && call->sub_prompt == NULL && g_utf8_validate (prompt, -1, NULL))
    call->sub_prompt = g_strdup (prompt);
  if (agent_type != NULL && call->agent_type == NULL && g_utf8_validate (agent_type, -1, NULL))
    call->agent_type = pd_safe_text_line (agent_type);
  if (description != NULL && call->description == NULL && g_utf8_validate (description, -1, NULL))
    call->description = pd_safe_text_line (description);
}

void
_pd_transcript_pages_add_version (PdTranscriptPages *self,
                                  PdChecklist       *checklist,
                                  gint64             time)
{
  guint n_items = pd_checklist_get_n_agent_items (checklist);
  guint n_copied = self->windowed ? MIN (n_items, PD_TRANSCRIPT_PAGES_CARD_ITEMS) : n_items;
  Version *version;
  Call *last;

  g_return_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && !self->sealed);
  g_return_if_fail (PD_IS_CHECKLIST (checklist));

  version = g_atomic_rc_box_new0 (Version);
  version->origin = pd_checklist_get_origin (checklist);
  version->items = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_checklist_item_free);
  for (guint i = 0; i < n_copied; i++)
    g_ptr_array_add (version->items, pd_checklist_item_copy (pd_checklist_get_agent_item (checklist, i)));
  version->left_out = n_items - n_copied;
  version->time = time;
  version->number = ++self->n_versions;
  /* The Transcript shows the list where the call that made it is: the
   * call the reader saw last (a TodoWrite, update_plan or write_todos, or
   * Codex's exec script that called update_plan).  The app's own sessions
   * show their plan's card where the plan tool was called; an imported
   * one showed none (tried as a new user would). */
  last = !self->history_only && !self->events_only && self->version_sink == NULL && self->call_list->len > 0
         ? g_ptr_array_index (self->call_list, self->call_list->len - 1) : NULL;
  /* A part of the conversation keeps no versions: its calls keep theirs,
   * let go with them. */
  if (self->windowed)
    {
      if (last != NULL)
        {
          if (last->plan_owned)
            version_free (last->plan);
          last->plan = version;
          last->plan_owned = TRUE;
        }
      else
        version_free (version);
      return;
    }
  if (last != NULL && !last->plan_owned)
    last->plan = version;
  if (self->version_sink != NULL)
    {
      self->version_sink (version_info (version, self->version_marks), self->version_sink_data);
      version_free (version);
      return;
    }
  g_ptr_array_add (self->versions, version);
  if (!self->history_only)
    log_entry (self, ENTRY_VERSION, version);
  /* The History's newest only, older ones let go in batches. */
  else if (self->versions->len >= 2 * PD_TRANSCRIPT_PAGES_HISTORY_MAX)
    g_ptr_array_remove_range (self->versions, 0, self->versions->len - PD_TRANSCRIPT_PAGES_HISTORY_MAX);
}

/* ---------------------------------------------------------------------- */
/* Sealing                                                                */

/* As pd_checklist_count() counts: a cancelled item is out of the steps (as
 * blocked, Events said 3/5 where Now said 3/4, tried as a new user would). */
static void
count_items (GPtrArray *items,
             guint     *done,
             guint     *in_progress,
             guint     *cancelled,
             guint     *pending)
{
  *done = *in_progress = *cancelled = *pending = 0;
  for (guint i = 0; i < items->len; i++)
    {
      const PdChecklistItem *item = g_ptr_array_index (items, i);

      switch (item->status)
        {
        case PD_CHECKLIST_STATUS_COMPLETED:   (*done)++; break;
        case PD_CHECKLIST_STATUS_IN_PROGRESS: (*in_progress)++; break;
        case PD_CHECKLIST_STATUS_CANCELLED:   (*cancelled)++; break;
        case PD_CHECKLIST_STATUS_PENDING:
        default:                              (*pending)++; break;
        }
    }
}

/* Of pages numbered by offset: the next number of the line at @offset
 * (-1 past the most one line may hold). */
static gint64
next_seq (goffset  offset,
          goffset *line,
          guint   *index)
{
  if (offset != *line)
    {
      *line = offset;
      *index = 0;
    }
  if (*index >= (1u << PD_TRANSCRIPT_PAGES_SEQ_SHIFT))
    return -1;
  /* From 1: 0 is "none" to those who ask for events after one. */
  return ((gint64) offset << PD_TRANSCRIPT_PAGES_SEQ_SHIFT) + (*index)++ + 1;
}

static void
add_event (PdTranscriptPages *self,
           const char        *type,
           const char        *tool,
           gint64             time,
           JsonObject        *data)   /* (transfer full) */
{
  Event *event;
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  gint64 seq = 0;

  json_node_take_object (node, data);
  if (self->by_offset && (seq = next_seq (self->line_offset, &self->seq_line, &self->seq_index)) < 0)
    return;
  event = g_new0 (Event, 1);
  event->seq = seq;
  event->offset = self->line_offset;
  event->type = type;
  event->tool = g_strdup (tool);
  event->time = time;
  event->data = json_to_string (node, FALSE);
  g_ptr_array_add (self->events, event);
}

static int
compare_event_times (gconstpointer a,
                     gconstpointer b)
{
  const Event *ea = *(Event * const *) a;
  const Event *eb = *(Event * const *) b;

  return ea->time < eb->time ? -1 : ea->time > eb->time;
}

/* The timeline, in the shapes of our own events: tool calls as the engine
 * reports them, plan updates with counts and version only. */
static void
build_events (PdTranscriptPages *self)
{
  for (guint i = 0; i < self->log->len; i++)
    {
      Entry *entry = &g_array_index (self->log, Entry, i);
      JsonObject *data = json_object_new ();

      /* Events take their numbers from their lines (pages numbered by
       * offset). */
      self->line_offset = entry->offset;
      if (entry->kind == ENTRY_VERSION)
        {
          Version *version = entry->ref;
          guint done, in_progress, cancelled, pending;

          count_items (version->items, &done, &in_progress, &cancelled, &pending);
          json_object_set_int_member (data, "steps", version->items->len - cancelled);
          /* A part of a long timeline knows no version's number: each is
           * an update, its counts given, its number left out. */
          if (self->by_offset)
            {
              json_object_set_int_member (data, "done", done);
              json_object_set_int_member (data, "in_progress", in_progress);
              json_object_set_int_member (data, "blocked", 0);
              json_object_set_int_member (data, "pending", pending);
              add_event (self, PD_EVENT_PLAN_UPDATED, NULL, version->time, data);
              continue;
            }
          if (version->number > 1)
            {
              json_object_set_int_member (data, "done", done);
              json_object_set_int_member (data, "in_progress", in_progress);
              /* Our own plan_updated's members: a cancelled item is in none. */
              json_object_set_int_member (data, "blocked", 0);
              json_object_set_int_member (data, "pending", pending);
            }
          json_object_set_int_member (data, "version", version->number);
          add_event (self, version->number > 1 ? PD_EVENT_PLAN_UPDATED : PD_EVENT_PLAN_CREATED, NULL,
                     version->time, data);
        }
      else if (entry->kind == ENTRY_CALL)
        {
          Call *call = entry->ref;

          json_object_set_string_member (data, "call_id", call->id);
          json_object_set_int_member (data, "args_bytes", (gint64) (call->arguments_len + call->arguments_cut));
          add_event (self, PD_EVENT_TOOL_CALL_STARTED, call->name, call->time, data);
          if (call->subagent)
            {
              JsonObject *spawned = json_object_new ();

              json_object_set_string_member (spawned, "call_id", call->id);
              if (call->agent_type)
                json_object_set_string_member (spawned, "agent_type", call->agent_type);
              add_event (self, PD_EVENT_SUBAGENT_SPAWNED, call->name, call->time, spawned);
            }
        }
      else
        {
          Call *call = entry->ref;

          json_object_set_string_member (data, "call_id", call->id);
          if (call->time > 0 && call->result_time >= call->time)
            json_object_set_int_member (data, "duration_ms", (call->result_time - call->time) / 1000);
          if (call->failed)
            json_object_set_string_member (data, "error_class", "error");
          else
            json_object_set_int_member (data, "result_bytes", (gint64) call->result_bytes);
          if (call->subagent)
            {
              JsonObject *completed = json_object_new ();

              json_object_set_string_member (completed, "call_id", call->id);
              json_object_set_boolean_member (completed, "ok", !call->failed);
              add_event (self, PD_EVENT_SUBAGENT_COMPLETED, call->name, call->result_time, completed);
            }
          add_event (self, call->failed ? PD_EVENT_TOOL_CALL_FAILED : PD_EVENT_TOOL_CALL_COMPLETED, call->name,
                     call->result_time, data);
        }
    }

  /* Numbered by their lines, in the order read (a Qwen Code transcript's
   * lines are in time order). */
  if (self->by_offset)
    return;
  /* Readers meet most records in time order, but not all (OpenCode's plan
   * replay and its messages are two passes): in time order, what has no
   * time staying after what came before it (a stable sort). */
  for (guint i = 1; i < self->events->len; i++)
    {
      Event *event = g_ptr_array_index (self->events, i);
      const Event *previous = g_ptr_array_index (self->events, i - 1);

      if (event->time <= 0)
        event->time = previous->time;
    }
  g_ptr_array_sort (self->events, compare_event_times);
  /* The Events' pages cut to their share of the budget say so, last: the
   * rest of the timeline left out went unsaid (the Transcript's pages
   * said it in a message). */
  if (self->events_only && self->over_budget)
    {
      JsonObject *data = json_object_new ();
      const Event *last = self->events->len > 0 ? g_ptr_array_index (self->events, self->events->len - 1) : NULL;

      json_object_set_int_member (data, "items", (gint64) self->left_out_items);
      json_object_set_int_member (data, "bytes", (gint64) self->left_out_bytes);
      add_event (self, PD_EVENT_EVENTS_LEFT_OUT, NULL, last != NULL ? last->time : 0, data);
    }
}

void
_pd_transcript_pages_finish (PdTranscriptPages *self,
                             PdImportedSession *session,
                             GStrv              resume_argv,
                             const char        *workdir)
{
  g_return_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && !self->sealed);
  g_return_if_fail (PD_IS_IMPORTED_SESSION (session));

  if (self->history_only && self->versions->len > PD_TRANSCRIPT_PAGES_HISTORY_MAX)
    g_ptr_array_remove_range (self->versions, 0, self->versions->len - PD_TRANSCRIPT_PAGES_HISTORY_MAX);
  _pd_transcript_pages_budget_seal (self);
  self->messages_json = _pd_transcript_pages_build_messages (self);
  build_events (self);
  seal_documents (self, session, resume_argv, workdir);
  drop_building_state (self);
  self->sealed = TRUE;
}

/* The plan documents of @session and how to continue it, for sealing. */
static void
seal_documents (PdTranscriptPages *self,
                PdImportedSession *session,
                GStrv              resume_argv,
                const char        *workdir)
{
  GPtrArray *plans;

  plans = pd_imported_session_get_plans (session);
  for (guint i = 0; i < plans->len; i++)
    {
      PdArtifactPlan *plan = pd_artifact_plan_copy (g_ptr_array_index (plans, i));
      char *markdown = pd_safe_text_block (plan->markdown);

      g_free (plan->markdown);
      plan->markdown = markdown;
      g_ptr_array_add (self->plans, plan);
    }
  self->resume_argv = g_strdupv (resume_argv);
  self->workdir = g_strdup (workdir);
}

PdTranscriptPages *
_pd_transcript_pages_snapshot (PdTranscriptPages *self,
                               PdImportedSession *session,
                               GStrv              resume_argv,
                               const char        *workdir)
{
  PdTranscriptPages *sealed;
  GHashTableIter iter;
  gpointer value;
  guint from;

  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && !self->sealed, NULL);
  g_return_val_if_fail (!self->windowed && !self->by_offset && self->version_sink == NULL, NULL);
  g_return_val_if_fail (PD_IS_IMPORTED_SESSION (session), NULL);

  sealed = g_object_new (PD_TYPE_TRANSCRIPT_PAGES, NULL);
  sealed->history_only = self->history_only;
  sealed->events_only = self->events_only;
  sealed->n_versions = self->n_versions;

  /* Every subagent nested again where it belongs. */
  g_hash_table_iter_init (&iter, self->conversations);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    ((Conversation *) value)->linked = FALSE;
  /* Built again once more is read: its texts are kept. */
  self->keep_texts = TRUE;
  _pd_transcript_pages_budget_seal (self);
  sealed->over_budget = self->over_budget;
  sealed->left_out_items = self->left_out_items;
  sealed->left_out_bytes = self->left_out_bytes;
  sealed->messages_json = _pd_transcript_pages_build_messages (self);
  sealed->message_starts = g_steal_pointer (&self->message_starts);
  sealed->n_messages = self->n_messages;
  if (self->lineage == 0)
    {
      static guint64 lineages;
      static GMutex lineage_lock;

      g_mutex_lock (&lineage_lock);
      self->lineage = ++lineages;
      g_mutex_unlock (&lineage_lock);
    }
  sealed->lineage = self->lineage;

  /* The timeline built into the building pages' (empty) list, then taken. */
  g_ptr_array_set_size (self->events, 0);
  build_events (self);
  g_ptr_array_extend_and_steal (sealed->events, g_steal_pointer (&self->events));
  self->events = g_ptr_array_new_with_free_func ((GDestroyNotify) event_free);

  /* The versions shared, not copied: a version never changes once added. */
  from = self->history_only && self->versions->len > PD_TRANSCRIPT_PAGES_HISTORY_MAX
         ? self->versions->len - PD_TRANSCRIPT_PAGES_HISTORY_MAX : 0;
  for (guint i = from; i < self->versions->len; i++)
    g_ptr_array_add (sealed->versions, g_atomic_rc_box_acquire (g_ptr_array_index (self->versions, i)));

  seal_documents (sealed, session, resume_argv, workdir);
  drop_building_state (sealed);
  sealed->sealed = TRUE;
  return sealed;
}

/* ---------------------------------------------------------------------- */
/* Reading                                                                */

gsize
_pd_transcript_pages_get_size (PdTranscriptPages *self)
{
  gsize size = 0;

  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && self->sealed, 0);

  size += strlen (self->messages_json);
  if (self->message_starts != NULL)
    size += self->message_starts->len * sizeof (gsize);
  for (guint i = 0; i < self->events->len; i++)
    size += 64 + strlen (((Event *) g_ptr_array_index (self->events, i))->data);
  for (guint i = 0; i < self->versions->len; i++)
    {
      const Version *version = g_ptr_array_index (self->versions, i);

      for (guint j = 0; j < version->items->len; j++)
        size += 96 + strlen (((PdChecklistItem *) g_ptr_array_index (version->items, j))->text);
    }
  for (guint i = 0; i < self->plans->len; i++)
    size += strlen (((PdArtifactPlan *) g_ptr_array_index (self->plans, i))->markdown);
  return size;
}

guint
pd_transcript_pages_get_n_messages (PdTranscriptPages *self)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && self->sealed, 0);
  return self->n_messages;
}

/**
 * pd_transcript_pages_dup_messages:
 *
 * Returns: (transfer full): the conversation, a tree of the caller's own
 */
JsonArray *
pd_transcript_pages_dup_messages (PdTranscriptPages *self)
{
  g_autoptr(JsonNode) root = NULL;

  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && self->sealed, NULL);

  /* Parsed again for each caller: json-glib counts references without
   * atomics, so a tree is never shared between threads. */
  root = pd_json_parse_full (self->messages_json, -1, PD_JSON_PARSE_FOREIGN, NULL);
  if (root == NULL || !JSON_NODE_HOLDS_ARRAY (root))
    return json_array_new ();
  return json_array_ref (json_node_get_array (root));
}

void
pd_transcript_pages_get_part (PdTranscriptPages *self,
                              guint64           *first,
                              guint64           *total)
{
  g_return_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && self->sealed);

  if (first != NULL)
    *first = self->windowed ? self->kept_first : 0;
  /* Beyond the conversation, the newest part shows the subagents whose
   * call is unknown: as many more. */
  if (total != NULL)
    *total = !self->windowed ? self->n_messages
             : self->kept_first + self->n_messages > self->n_main ? self->kept_first + self->n_messages
             : self->n_main;
}

guint
pd_transcript_pages_get_n_versions (PdTranscriptPages *self)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && self->sealed, 0);
  return self->n_versions;
}

/* @version's items as a checklist, with the user's annotations. */
static PdChecklist *
version_checklist (const Version *version,
                   JsonNode      *annotations)
{
  PdChecklist *list = pd_checklist_new ();
  GPtrArray *items = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_checklist_item_free);

  for (guint i = 0; i < version->items->len; i++)
    g_ptr_array_add (items, pd_checklist_item_copy (g_ptr_array_index (version->items, i)));
  pd_checklist_replace_agent_items (list, version->origin, items);
  if (annotations != NULL)
    pd_checklist_load_annotations (list, annotations, NULL);
  return list;
}

static PdPlanVersionInfo *
version_info (const Version *version,
              JsonNode      *marks)
{
  g_autoptr(PdChecklist) list = version_checklist (version, marks);
  PdPlanVersionInfo *info = g_new0 (PdPlanVersionInfo, 1);

  info->version = version->number;
  info->created_at = version->time;
  /* The agent's statuses: what changed between versions is the agent's
   * doing; the user's overrides are marked beside. */
  info->state_json = _pd_transcript_pages_state_json (list, version->number, FALSE);
  return info;
}

GPtrArray *
pd_transcript_pages_dup_plan_versions (PdTranscriptPages *self,
                                       PdChecklist       *annotations)
{
  g_autoptr(JsonNode) marks = NULL;
  GPtrArray *out;

  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && self->sealed, NULL);
  g_return_val_if_fail (annotations == NULL || PD_IS_CHECKLIST (annotations), NULL);

  marks = annotations ? pd_checklist_annotations_to_json (annotations) : NULL;
  out = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_plan_version_info_free);
  for (guint i = 0; i < self->versions->len; i++)
    g_ptr_array_add (out, version_info (g_ptr_array_index (self->versions, i), marks));
  return out;
}

PdPlanState *
pd_transcript_pages_dup_plan (PdTranscriptPages *self,
                              PdChecklist       *annotations)
{
  g_autoptr(JsonNode) marks = NULL;
  g_autoptr(PdChecklist) list = NULL;
  gint64 number = 0;

  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && self->sealed, NULL);
  g_return_val_if_fail (annotations == NULL || PD_IS_CHECKLIST (annotations), NULL);

  marks = annotations ? pd_checklist_annotations_to_json (annotations) : NULL;
  if (self->versions->len > 0)
    {
      const Version *newest = g_ptr_array_index (self->versions, self->versions->len - 1);

      list = version_checklist (newest, marks);
      number = newest->number;
    }
  else
    {
      list = pd_checklist_new ();
      if (marks != NULL)
        pd_checklist_load_annotations (list, marks, NULL);
    }
  return pd_transcript_pages_plan_for_checklist (list, number);
}

GPtrArray *
pd_transcript_pages_dup_plan_documents (PdTranscriptPages *self)
{
  GPtrArray *out;

  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && self->sealed, NULL);

  out = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_artifact_plan_free);
  for (guint i = 0; i < self->plans->len; i++)
    g_ptr_array_add (out, pd_artifact_plan_copy (g_ptr_array_index (self->plans, i)));
  return out;
}

GStrv
pd_transcript_pages_dup_resume_argv (PdTranscriptPages *self)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && self->sealed, NULL);
  return g_strdupv (self->resume_argv);
}

const char *
pd_transcript_pages_get_workdir (PdTranscriptPages *self)
{
  g_return_val_if_fail (PD_IS_TRANSCRIPT_PAGES (self) && self->sealed, NULL);
  return self->workdir;
}
