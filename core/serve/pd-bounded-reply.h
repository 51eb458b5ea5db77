/* pd-bounded-reply.h: sends a request and reads its reply up to a size and
 * within a time, so that a server cannot make the client hold an endless
 * body in memory or wait on it for ever.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <libsoup/soup.h>

G_BEGIN_DECLS

/* The most a remote source reads of one reply, and how long it waits for
 * the whole of it.  A session's export is the largest reply a serve
 * endpoint sends; 64 MiB holds one of several hundred thousand messages. */
#define PD_BOUNDED_REPLY_MAX_BYTES    (64 * 1024 * 1024)
/* A session list's reply: this much a row asked for, and at least the
 * second (a row is a session's metadata: title, status, counts, times). */
#define PD_LIST_REPLY_ROW_BYTES       (32 * 1024)
#define PD_LIST_REPLY_MIN_BYTES       (2 * 1024 * 1024)
#define PD_BOUNDED_REPLY_MAX_SECONDS  120
/* The other replies are small, each bounded to fit it (a hostile endpoint
 * sent 16 MB in place of a plan, tried as an attacker would):
 * - a session's record, a run's (with its approval's preview, at most
 *   256 KB): PD_SESSION_REPLY_MAX_BYTES;
 * - a plan: PD_PLAN_REPLY_MAX_BYTES, above the checklist's 4.3 MB bound
 *   (500 items of 2 000 characters of four bytes) and a plan of
 *   PD_REMOTE_MAX_STEPS steps of a few hundred bytes;
 * - a page of events (at most 500), the run list: PD_EVENTS_REPLY_MAX_BYTES;
 * - usage, health, the answer to a change: PD_SMALL_REPLY_MAX_BYTES. */
#define PD_SESSION_REPLY_MAX_BYTES    (2 * 1024 * 1024)
#define PD_PLAN_REPLY_MAX_BYTES       (6 * 1024 * 1024)
#define PD_EVENTS_REPLY_MAX_BYTES     (4 * 1024 * 1024)
#define PD_SMALL_REPLY_MAX_BYTES      (1024 * 1024)
/* A reply longer than this is parsed on a worker thread. */
#define PD_REMOTE_REPLY_INLINE_BYTES  (64 * 1024)

/* How fast a reply must come once its request has a connection (libsoup
 * queues a request while the connections to its host are busy: that wait
 * is not the server's).  A hostile endpoint that sent a reply a byte a
 * second held the request, and the one connection every other request of
 * the window waited for, until PD_BOUNDED_REPLY_MAX_SECONDS (tried as an
 * attacker would).  A reply must come whole within @first_ms of its
 * start; past that it may go on while it comes at @min_rate bytes a
 * second at least (over the whole reply: its first part's bytes count),
 * and never past @max_seconds from the call. */
typedef struct
{
  guint first_ms;
  guint min_rate;     /* 0: none, the whole within first_ms */
  guint max_seconds;
} PdReplyPace;

/* A small reply (health, a record, a plan, a page of events, a change's
 * answer): seconds, not minutes; a large plan (up to 6 MiB) on a slow link
 * goes on through the least rate.  A session's export or list: longer to
 * begin (the server reads much first), then the same rate.  Any reply
 * still ends at PD_BOUNDED_REPLY_MAX_SECONDS. */
#define PD_REPLY_SMALL_FIRST_MS       15000
#define PD_REPLY_LARGE_FIRST_MS       30000
#define PD_REPLY_MIN_RATE             (64 * 1024)

void    pd_bounded_reply_send_async  (SoupSession         *session,
                                      SoupMessage         *msg,
                                      gsize                max_bytes,
                                      const PdReplyPace   *pace,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data);
GBytes *pd_bounded_reply_send_finish (SoupMessage         *msg,
                                      GAsyncResult        *result,
                                      GError             **error);

G_END_DECLS
