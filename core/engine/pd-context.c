/* pd-context.c: keeping a transcript inside the model's context budget.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-engine"

#include "config.h"

#include <string.h>

#include "pd-context.h"

/* Below this a tool output is not worth shortening. */
#define SHORTEN_MIN_BYTES 256

gint64
pd_context_estimate_message (JsonObject *message)
{
  return pd_message_estimate_tokens (message);
}

gint64
pd_context_estimate_tokens (PdTranscript *transcript)
{
  return pd_transcript_get_total_estimate (transcript);
}

static gboolean
has_tool_calls (JsonObject *message)
{
  JsonNode *calls = json_object_get_member (message, "tool_calls");

  return calls != NULL && JSON_NODE_HOLDS_ARRAY (calls) && json_array_get_length (json_node_get_array (calls)) > 0;
}

/* The end (exclusive) of the exchange starting at @start: an assistant
 * message with tool calls owns the tool results that follow it. */
static guint
exchange_end (PdTranscript *transcript,
              guint         start)
{
  guint n = pd_transcript_get_length (transcript);
  JsonObject *first = pd_transcript_get (transcript, start);
  guint end = start + 1;

  if (g_strcmp0 (pd_message_get_role (first), "assistant") == 0 && has_tool_calls (first))
    while (end < n && g_strcmp0 (pd_message_get_role (pd_transcript_get (transcript, end)), "tool") == 0)
      end++;

  return end;
}

/* Start of the newest exchange: it is never dropped, and its tool outputs
 * are the model's working memory for the next step. */
static guint
last_exchange_start (PdTranscript *transcript)
{
  guint n = pd_transcript_get_length (transcript);
  guint start = n;

  for (guint i = pd_transcript_get_head_length (transcript); i < n; )
    {
      if (pd_transcript_is_protected (transcript, i))
        {
          i++;
          continue;
        }
      start = i;
      i = exchange_end (transcript, i);
    }

  return start;
}

static gboolean
shorten_outputs (PdTranscript *transcript,
                 gint64        budget,
                 gint64       *estimate,
                 PdTrimReport *report)
{
  guint stop = last_exchange_start (transcript);
  gboolean changed = FALSE;

  for (guint i = pd_transcript_get_head_length (transcript); i < stop && *estimate > budget; i++)
    {
      JsonObject *message = pd_transcript_get (transcript, i);
      const char *content = pd_message_get_content (message);
      g_autoptr(JsonObject) replacement = NULL;
      g_autofree char *stub = NULL;
      gsize len;

      if (g_strcmp0 (pd_message_get_role (message), "tool") != 0 || content == NULL)
        continue;

      len = strlen (content);
      if (len < SHORTEN_MIN_BYTES)
        continue;

      stub = g_strdup_printf ("[tool output trimmed to save context: %" G_GSIZE_FORMAT " bytes]", len);
      replacement = json_object_new ();
      json_object_set_string_member (replacement, "role", "tool");
      json_object_set_string_member (replacement, "content", stub);
      if (json_object_has_member (message, "tool_call_id"))
        json_object_set_member (replacement, "tool_call_id", json_node_copy (json_object_get_member (message, "tool_call_id")));
      if (json_object_has_member (message, "name"))
        json_object_set_member (replacement, "name", json_node_copy (json_object_get_member (message, "name")));

      *estimate -= pd_context_estimate_message (message);
      *estimate += pd_context_estimate_message (replacement);
      pd_transcript_replace (transcript, i, replacement);
      report->outputs_shortened++;
      changed = TRUE;
    }

  return changed;
}

static gboolean
drop_exchanges (PdTranscript *transcript,
                gint64        budget,
                guint         keep_exchanges,
                gint64       *estimate,
                PdTrimReport *report)
{
  gboolean changed = FALSE;

  for (;;)
    {
      g_autoptr(GArray) starts = g_array_new (FALSE, FALSE, sizeof (guint));
      guint n = pd_transcript_get_length (transcript);
      guint start, end;

      if (budget >= 0 && *estimate <= budget)
        break;

      for (guint i = pd_transcript_get_head_length (transcript); i < n; )
        {
          if (pd_transcript_is_protected (transcript, i))
            {
              i++;
              continue;
            }
          g_array_append_val (starts, i);
          i = exchange_end (transcript, i);
        }

      if (starts->len <= keep_exchanges)
        break;

      start = g_array_index (starts, guint, 0);
      end = exchange_end (transcript, start);
      for (guint i = end; i-- > start; )
        {
          *estimate -= pd_context_estimate_message (pd_transcript_get (transcript, i));
          pd_transcript_remove (transcript, i);
          report->messages_dropped++;
        }
      changed = TRUE;
    }

  return changed;
}

/* Empties the caller's report (or @local when it gave none, so that the
 * trimming can always write one) and counts the transcript's tokens into
 * it, as they are before and, until something changes, after. */
static gint64
report_start (PdTranscript  *transcript,
              PdTrimReport **report,
              PdTrimReport  *local)
{
  gint64 estimate = pd_context_estimate_tokens (transcript);

  if (*report == NULL)
    *report = local;
  memset (*report, 0, sizeof **report);
  (*report)->tokens_before = (*report)->tokens_after = estimate;

  return estimate;
}

/**
 * pd_context_trim:
 * @budget: the token budget to get under
 *
 * Returns: %TRUE when the transcript changed
 */
gboolean
pd_context_trim (PdTranscript *transcript,
                 gint64        budget,
                 PdTrimReport *report)
{
  PdTrimReport local;
  gint64 estimate;
  gboolean changed = FALSE;

  g_return_val_if_fail (PD_IS_TRANSCRIPT (transcript), FALSE);

  estimate = report_start (transcript, &report, &local);
  if (estimate <= budget)
    return FALSE;

  changed |= shorten_outputs (transcript, budget, &estimate, report);
  if (estimate > budget)
    changed |= drop_exchanges (transcript, budget, 1, &estimate, report);

  report->tokens_after = pd_context_estimate_tokens (transcript);
  return changed;
}

/**
 * pd_context_trim_to_survival:
 * @keep_exchanges: how many of the newest exchanges to keep (at least 1)
 *
 * The last resort after a context-overflow error: the protected messages
 * and the newest exchanges only.
 *
 * Returns: %TRUE when the transcript changed
 */
gboolean
pd_context_trim_to_survival (PdTranscript *transcript,
                             guint         keep_exchanges,
                             PdTrimReport *report)
{
  PdTrimReport local;
  gint64 estimate;
  gboolean changed;

  g_return_val_if_fail (PD_IS_TRANSCRIPT (transcript), FALSE);

  estimate = report_start (transcript, &report, &local);
  changed = drop_exchanges (transcript, -1, MAX (keep_exchanges, 1), &estimate, report);
  report->tokens_after = pd_context_estimate_tokens (transcript);

  return changed;
}
