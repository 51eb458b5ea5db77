/* pd-event.h: one runtime event in the odek.event/v1 envelope.
 *
 * Events are written as one JSON object per line (the JSONL sink), kept in
 * the ring that `serve` answers /api/events from, stored per session, and
 * handed to listeners.  The envelope and its field order are a wire format
 * shared with odek, so a line we write reads in odek tooling and the other
 * way round; only the schema name differs, and readers accept both.
 *
 * An event is built by one thread and sealed when it is emitted (or when
 * pd_event_seal() is called).  A sealed event is immutable and may be read
 * from any thread: its JSON text is computed once at sealing, so readers on
 * several threads never touch the (non-atomically refcounted) JsonObject.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "pd-plan-store.h"

G_BEGIN_DECLS

#define PD_EVENT_SCHEMA      "plandeck.event/v1"
#define PD_EVENT_SCHEMA_ODEK "odek.event/v1"

/* Run and loop. */
#define PD_EVENT_RUN_STARTED            "run_started"
#define PD_EVENT_ITERATION_COMPLETED    "iteration_completed"
#define PD_EVENT_TOOL_CALL_STARTED      "tool_call_started"
#define PD_EVENT_TOOL_CALL_COMPLETED    "tool_call_completed"
#define PD_EVENT_TOOL_CALL_FAILED       "tool_call_failed"
#define PD_EVENT_SESSION_SAVED          "session_saved"
#define PD_EVENT_CONTEXT_TRIMMED        "context_trimmed"
#define PD_EVENT_BUDGET_EXCEEDED        "budget_exceeded"
#define PD_EVENT_RUN_COMPLETED          "run_completed"
#define PD_EVENT_RUN_FAILED             "run_failed"
/* Plan (seed 000): counts and version only. */
#define PD_EVENT_PLAN_CREATED           "plan_created"
#define PD_EVENT_PLAN_UPDATED           "plan_updated"
#define PD_EVENT_PLAN_BLOCKED           "plan_blocked"
#define PD_EVENT_PLAN_REASSESSMENT      "plan_reassessment"
#define PD_EVENT_PLAN_VALIDATION_FAILED "plan_validation_failed"
/* Other. */
#define PD_EVENT_SUBAGENT_SPAWNED       "subagent_spawned"
#define PD_EVENT_SUBAGENT_COMPLETED     "subagent_completed"
#define PD_EVENT_SIDE_CALL_USAGE        "side_call_usage"
/* Ours, for plan mode and reviewed plan artifacts (seeds 002, 003). */
#define PD_EVENT_PLAN_MODE              "plan_mode"
#define PD_EVENT_PLAN_ARTIFACT_SAVED    "plan_artifact_saved"
/* Ours, the last of an imported session's timeline cut to its bound (a
 * transcript of many tiny calls): the rest left out ({items, bytes}: the
 * calls and results not shown, their bytes of text). */
#define PD_EVENT_EVENTS_LEFT_OUT        "events_left_out"
/* Ours, for what the model did that a run must show: a model turn that could
 * not be used and is asked again ({reason: max_tokens|bad_arguments, tool,
 * input_tokens, output_tokens, max_tokens, next_max_tokens}), and a request
 * sent again after an overload, a rate limit or a server error ({attempt,
 * delay_ms, reason, status}). */
#define PD_EVENT_TURN_DISCARDED         "turn_discarded"
#define PD_EVENT_PROVIDER_RETRY         "provider_retry"
/* Ours, from `serve`: a run there waits for a person ({approval_id, risk}),
 * and no longer does ({approval_id, risk, outcome: approved, denied,
 * timed_out or cancelled}), whoever answered; both name the tool asked
 * about: never the command.  A client reads the question itself from
 * GET /api/runs. */
#define PD_EVENT_APPROVAL_REQUESTED     "approval_requested"
#define PD_EVENT_APPROVAL_RESOLVED      "approval_resolved"

/* plan_reassessment always reports this many failure batches. */
#define PD_EVENT_REASSESSMENT_FAILURE_BATCHES 3

#define PD_EVENT_ERROR (pd_event_error_quark ())

typedef enum
{
  PD_EVENT_ERROR_PARSE,        /* not a JSON object, or a field of the wrong type */
  PD_EVENT_ERROR_SCHEMA,       /* a schema other than plandeck.event/v1 or odek.event/v1 */
  PD_EVENT_ERROR_TIMESTAMP,    /* not an RFC 3339 date-time */
  PD_EVENT_ERROR_SYMLINK,      /* the JSONL path is a symbolic link */
  PD_EVENT_ERROR_NOT_REGULAR,  /* the JSONL path is not a regular file */
  PD_EVENT_ERROR_IO,           /* open/chmod failed */
} PdEventError;

/* Why the engine asks for a plan reassessment (seed 000).  An enum, not a
 * string, so no free text can reach the event. */
typedef enum
{
  PD_PLAN_REASSESSMENT_REPEATED_CHECK_FAILURE,
  PD_PLAN_REASSESSMENT_VARIED_TOOL_FAILURES,
} PdPlanReassessmentReason;

typedef struct _PdEvent PdEvent;

#define PD_TYPE_EVENT (pd_event_get_type ())

GType        pd_event_get_type         (void) G_GNUC_CONST;
GQuark       pd_event_error_quark      (void);

PdEvent     *pd_event_new              (const char   *type);
PdEvent     *pd_event_new_full         (const char   *type,
                                        const char   *run_id,
                                        const char   *session_id,
                                        guint         iteration,
                                        const char   *tool,
                                        JsonObject   *data);
PdEvent     *pd_event_new_from_json    (const char   *text,
                                        GError      **error);
PdEvent     *pd_event_new_from_json_node (JsonNode   *node,
                                          GError    **error);

PdEvent     *pd_event_ref              (PdEvent      *event);
void         pd_event_unref            (PdEvent      *event);

void         pd_event_seal             (PdEvent      *event);
gboolean     pd_event_is_sealed        (const PdEvent *event);

const char  *pd_event_get_schema       (const PdEvent *event);
const char  *pd_event_get_event_type   (const PdEvent *event);
const char  *pd_event_get_run_id       (const PdEvent *event);
const char  *pd_event_get_session_id   (const PdEvent *event);
guint        pd_event_get_iteration    (const PdEvent *event);
const char  *pd_event_get_tool         (const PdEvent *event);
gint64       pd_event_get_timestamp    (const PdEvent *event);
JsonObject  *pd_event_get_data         (PdEvent      *event);

void         pd_event_set_run_id       (PdEvent      *event,
                                        const char   *run_id);
void         pd_event_set_session_id   (PdEvent      *event,
                                        const char   *session_id);
void         pd_event_set_iteration    (PdEvent      *event,
                                        guint         iteration);
void         pd_event_set_tool         (PdEvent      *event,
                                        const char   *tool);
void         pd_event_set_timestamp    (PdEvent      *event,
                                        gint64        unix_usec);
void         pd_event_take_data        (PdEvent      *event,
                                        JsonObject   *data);

char        *pd_event_to_json          (PdEvent      *event);
JsonNode    *pd_event_to_json_node     (PdEvent      *event);

gboolean     pd_event_type_is_known    (const char   *type);
gboolean     pd_event_type_is_plan     (const char   *type);

char        *pd_event_format_timestamp (gint64        unix_usec);
gboolean     pd_event_parse_timestamp  (const char   *text,
                                        gint64       *unix_usec,
                                        GError      **error);

PdEvent     *pd_event_new_plan_change  (const char          *run_id,
                                        const char          *session_id,
                                        const PdPlanChange  *change);
PdEvent     *pd_event_new_plan_blocked (const char          *run_id,
                                        const char          *session_id,
                                        const PdPlanChange  *change);
PdEvent     *pd_event_new_plan_reassessment (const char               *run_id,
                                             const char               *session_id,
                                             guint                     iteration,
                                             PdPlanReassessmentReason  reason);
PdEvent     *pd_event_new_plan_validation_failed (const char   *run_id,
                                                  const char   *session_id,
                                                  const char   *verb,
                                                  const GError *error);
const char  *pd_plan_reassessment_reason_to_string (PdPlanReassessmentReason reason);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdEvent, pd_event_unref)

G_END_DECLS
