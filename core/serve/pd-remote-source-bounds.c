/* pd-remote-source-bounds.c: how large and how fast the endpoint's reply
 * to each kind of request must be (pd-bounded-reply.h), for
 * pd-remote-source.c's requests.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-source"

#include "config.h"

#include "pd-bounded-reply.h"
#include "pd-remote-source-private.h"

/* The most a reply of @kind may be.  Only a session's export (its
 * history and messages) is large; the rest are a session's record, a
 * plan, a page of events, a count: an endpoint sending 16 MB in place of a
 * plan held the window 6.4 s and 1.6 GB (tried as an attacker would).
 * What is over is refused unread, with an error that says so. */
gsize
_pd_remote_source_reply_bound (OpKind kind)
{
  switch (kind)
    {
    case OP_HISTORY:
    case OP_MESSAGES:
    case OP_PAGE:   /* odek's whole record, or one long message */
      return PD_BOUNDED_REPLY_MAX_BYTES;
    case OP_LIST:
      return PD_LIST_REPLY_MIN_BYTES;
    case OP_GET:
    case OP_PROMPT:
    case OP_RUN:
      return PD_SESSION_REPLY_MAX_BYTES;
    case OP_PLAN:
      return PD_PLAN_REPLY_MAX_BYTES;
    case OP_EVENTS:
    case OP_RUNS:
      return PD_EVENTS_REPLY_MAX_BYTES;
    case OP_USAGE:
    case OP_UPDATE:
    case OP_DELETE:
    case OP_ANSWER:
    case OP_CANCEL:
    default:
      return PD_SMALL_REPLY_MAX_BYTES;
    }
}

/* How fast a reply of @kind must come (PdReplyPace): a session's export
 * and list begin later (the server reads much first); the rest are small. */
PdReplyPace
_pd_remote_source_reply_pace (PdRemoteSource *self,
                              OpKind          kind)
{
  PdReplyPace pace = { PD_REPLY_SMALL_FIRST_MS, PD_REPLY_MIN_RATE, PD_BOUNDED_REPLY_MAX_SECONDS };

  if (kind == OP_HISTORY || kind == OP_MESSAGES || kind == OP_PAGE || kind == OP_LIST)
    pace.first_ms = PD_REPLY_LARGE_FIRST_MS;
  /* A test's, to keep its run short (its hostile server trickles lists). */
  if (kind == OP_LIST && self->list_pace_ms > 0)
    {
      pace.first_ms = self->list_pace_ms;
      pace.min_rate = self->list_pace_rate;
    }
  return pace;
}
