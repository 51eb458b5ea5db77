/* pd-transcript.h: the messages of one session, as the engine keeps them.
 *
 * OpenAI-shaped message objects ({role, content, name?, tool_call_id?,
 * tool_calls?}) in order.  The transcript remembers the first position that
 * changed since it was last saved, so a turn's save rewrites only the tail.
 *
 * Its structure has fixed places: the protected head (the system prompt, the
 * original task, a compaction digest right after them), then the plan
 * message.  Trimming never removes any of those.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define PD_DIGEST_PREFIX "[Compacted earlier context:"

/* Members a stored message may carry besides the OpenAI shape; providers
 * send none of them as they are (see pd_transcript_to_request()).
 *   record_only       true: Plandeck's own note for the record (a failure,
 *                     a cancellation, a budget stop), never sent to a model
 *   refusal           on an assistant message: the model declined; the
 *                     explanation a person reads
 *   refusal_category  the policy category the server named, if any
 *   incomplete        on an assistant message: cut off by the output limit;
 *                     the stop reason that said so ("max_tokens", "length")
 *   is_error          on a tool message: true when the call failed or was
 *                     refused (the Messages API's tool_result says so too)
 *   thinking          on an assistant message: the model's Anthropic thinking
 *                     blocks, unchanged; reasoning_content / reasoning: the
 *                     reasoning text an OpenAI-compatible server sent */
#define PD_MESSAGE_RECORD_ONLY      "record_only"
#define PD_MESSAGE_REFUSAL          "refusal"
#define PD_MESSAGE_REFUSAL_CATEGORY "refusal_category"
#define PD_MESSAGE_INCOMPLETE       "incomplete"
#define PD_MESSAGE_IS_ERROR         "is_error"

#define PD_TYPE_TRANSCRIPT (pd_transcript_get_type ())

G_DECLARE_FINAL_TYPE (PdTranscript, pd_transcript, PD, TRANSCRIPT, GObject)

PdTranscript *pd_transcript_new            (void);
PdTranscript *pd_transcript_new_from_json  (JsonArray    *messages);
guint         pd_transcript_get_length     (PdTranscript *self);
JsonObject   *pd_transcript_get            (PdTranscript *self,
                                            guint         index);
void          pd_transcript_append         (PdTranscript *self,
                                            JsonObject   *message);
void          pd_transcript_insert         (PdTranscript *self,
                                            guint         index,
                                            JsonObject   *message);
void          pd_transcript_replace        (PdTranscript *self,
                                            guint         index,
                                            JsonObject   *message);
void          pd_transcript_remove         (PdTranscript *self,
                                            guint         index);
JsonArray    *pd_transcript_to_json        (PdTranscript *self);
JsonArray    *pd_transcript_to_request     (PdTranscript *self);
gboolean      pd_transcript_ends_refused   (PdTranscript *self);
guint         pd_transcript_get_dirty_from (PdTranscript *self);
GArray       *pd_transcript_get_replaced   (PdTranscript *self);
void          pd_transcript_mark_saved     (PdTranscript *self);

int           pd_transcript_find_plan_message (PdTranscript *self);
guint         pd_transcript_get_head_length   (PdTranscript *self);
gboolean      pd_transcript_is_protected      (PdTranscript *self,
                                               guint         index);
gboolean      pd_transcript_refresh_plan      (PdTranscript *self,
                                               const char   *content);

gint64        pd_transcript_get_estimate      (PdTranscript *self,
                                               guint         index);
gint64        pd_transcript_get_total_estimate (PdTranscript *self);

gint64        pd_message_estimate_tokens   (JsonObject   *message);
JsonObject   *pd_message_new               (const char   *role,
                                            const char   *content);
const char   *pd_message_get_role          (JsonObject   *message);
const char   *pd_message_get_content       (JsonObject   *message);
gboolean      pd_message_is_digest         (JsonObject   *message);
gboolean      pd_message_is_plan           (JsonObject   *message);
gboolean      pd_message_is_record_only    (JsonObject   *message);
gboolean      pd_message_is_refused        (JsonObject   *message);
JsonObject   *pd_message_new_note          (const char   *content);

G_END_DECLS
