/* pd-remote-records-private.h: a serve endpoint's records, read into
 * Plandeck's types.
 *
 * What PdRemoteSource's requests answer: session records and listings,
 * plans, plan versions and events, in Plandeck's schema or odek's (see
 * shared/reference/).  A record of another shape gives NULL (the caller
 * says which endpoint sent it); what the records hold is another program's
 * text, kept as text.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <json-glib/json-glib.h>

#include "pd-event.h"
#include "pd-json.h"
#include "pd-plan.h"
#include "pd-session-store.h"
#include "pd-source.h"

G_BEGIN_DECLS

/* The most plan steps a listing's counts may say (a plan of ours is far
 * below it); more is taken as this many. */
#define PD_REMOTE_MAX_STEPS 10000

/* What is kept of an endpoint's plan: as many steps as an imported
 * checklist keeps (the rest counted in PdPlanState.n_hidden, never built),
 * the checks per step the plan engine allows, and each text at most the
 * longest the plan engine writes, cut with "…".  A plan of 20 000 steps
 * froze the window for minutes while every row was built and measured
 * (tried as an attacker would). */
#define PD_REMOTE_PLAN_MAX_STEPS 500
#define PD_REMOTE_PLAN_MAX_CHECKS PD_PLAN_MAX_CHECKS

/* A copy of @json's @length bytes with each \u0000 escape written as
 * \u2400 ("␀"); NULL when there is none.  json-glib keeps a string as a C string: the
 * NUL ended it and the rest was silently lost ("before\u0000after" showed
 * "before"; tried as an attacker would); the mark keeps the rest and shows
 * where the NUL was. */
char          *_pd_remote_mark_nul               (const char  *json,
                                                  gsize        length);

/* Our session record or odek's (a Session or an IndexEntry); NULL without
 * a valid id.  Its plan counts are clamped as read: none negative, total
 * at most PD_REMOTE_MAX_STEPS, done at most total, blocked at most the
 * steps not done. */
PdSessionInfo *_pd_remote_session_from_json      (JsonObject  *object);
/* What a pushed frame ({"sessions":[…]}, pd-server-push.c) is parsed
 * with: the members a session record is read by, and a push's own. */
extern const PdJsonPick _pd_remote_pushed_pick[];
/* A listing: an array of records, or {sessions, total}. */
PdSessionPage *_pd_remote_session_page_from_json (JsonNode    *root);
/* {session_id, version, steps, found} with, from /plan/detail, checks and
 * a revision, cut to the bounds above.  NULL when found is false, or with
 * @error set for a step without an id or title. */
PdPlanState   *_pd_remote_plan_from_json         (JsonObject  *object,
                                                  GError     **error);
/* …/export's plan_versions: PdPlanVersionInfo, never NULL. */
GPtrArray     *_pd_remote_plan_history_from_json (JsonObject  *object);
/* /api/events's {events, seq}: PdStoredEvent after @after_seq. */
GPtrArray     *_pd_remote_events_from_json       (JsonObject  *object,
                                                  gint64       after_seq);

G_END_DECLS
