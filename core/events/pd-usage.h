/* pd-usage.h: lifetime usage counters rolled up from the event stream.
 *
 * The counts are what `serve` answers GET /api/usage with (reference §5.7):
 * prompts and tokens as odek has them, plus the plan counts seed 000 adds,
 * plus the bus's own health (emitted, dropped, failed writes).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "pd-event.h"

G_BEGIN_DECLS

typedef struct
{
  guint64 prompts_started;     /* run_started */
  guint64 prompts_completed;   /* run_completed */
  guint64 prompts_failed;      /* run_failed */
  guint64 input_tokens;        /* run_completed + side_call_usage data.input_tokens */
  guint64 output_tokens;       /* run_completed + side_call_usage data.output_tokens */
  guint64 plans_created;       /* plan_created */
  guint64 plans_updated;       /* plan_updated */
  guint64 plans_blocked;       /* plan_blocked */
  guint64 events_emitted;      /* accepted into the bus queue */
  guint64 events_dropped;      /* refused because the queue was full */
  guint64 listener_dropped;    /* not delivered to a listener whose context lagged */
  guint64 jsonl_write_errors;  /* lines the JSONL sink failed to write */
} PdUsage;

void        pd_usage_add_event      (PdUsage       *usage,
                                     PdEvent       *event);
JsonObject *pd_usage_to_json_object (const PdUsage *usage);
char       *pd_usage_to_json        (const PdUsage *usage);

G_END_DECLS
