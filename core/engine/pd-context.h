/* pd-context.h: keeping a transcript inside the model's context budget.
 *
 * Graduated trimming first shortens the oldest tool outputs, then drops the
 * oldest whole exchanges (an assistant turn with its tool results, so the
 * transcript stays well-formed).  Survival trimming keeps only the protected
 * messages and the latest exchanges.  Neither ever removes the system
 * prompt, the original task, a compaction digest or the plan message.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-transcript.h"

G_BEGIN_DECLS

typedef struct
{
  guint  outputs_shortened;
  guint  messages_dropped;
  gint64 tokens_before;
  gint64 tokens_after;
} PdTrimReport;

gint64   pd_context_estimate_message   (JsonObject   *message);
gint64   pd_context_estimate_tokens    (PdTranscript *transcript);
gboolean pd_context_trim               (PdTranscript *transcript,
                                        gint64        budget,
                                        PdTrimReport *report);
gboolean pd_context_trim_to_survival   (PdTranscript *transcript,
                                        guint         keep_exchanges,
                                        PdTrimReport *report);

G_END_DECLS
