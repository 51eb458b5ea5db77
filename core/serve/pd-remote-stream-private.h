/* pd-remote-stream-private.h: the event streams of every PdRemoteSource,
 * read on one thread of their own (pd-remote-stream.c).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <gio/gio.h>

#include "pd-remote-source.h"

G_BEGIN_DECLS

/* What a stream said since the last hand-over, handed to the thread of
 * the source that opened it at most every PD_REMOTE_STREAM_BATCH_MS (an
 * answer to the open, the stream's end, a run's question, and anything
 * after a quiet while, at once). */
typedef struct
{
  gboolean    opened;         /* the open was answered: */
  guint       status;         /*   its HTTP status, 0 when it failed */
  GError     *open_error;     /*   (nullable) why it failed */
  GPtrArray  *events;         /* (element-type PdEvent) in the order read */
  GPtrArray  *pushed;         /* (element-type PdRemotePushedSession) the latest push of each session */
  GHashTable *pushed_at;      /* the streams' thread's: session id → its index in pushed, plus one */
  gboolean    pushes_changed; /* a push came: PdSource::changed after ::sessions-pushed */
  gboolean    changed;        /* a store_changed, or an event that changes sessions, or
                               * events or pushes dropped past the bounds: list again */
  guint       dropped;        /* events and pushed sessions dropped past the bounds */
  gboolean    ended;          /* the stream ended or broke, or a line passed the bound */
  gboolean    spoke;          /* a line was read */
} PdRemoteStreamBatch;

#define PD_REMOTE_STREAM_BATCH_MS 500
/* The streams' thread's rest after each turn of its loop (see
 * streams_thread()): what the streams say is read up to this much later. */
#define PD_REMOTE_STREAM_REST_MS 50
/* The events a batch keeps, at most; what comes past it is dropped and
 * the sessions listed again.  A stream flooding valid events filled one
 * batch without end (1.2 GB in 40 s). */
#define PD_REMOTE_STREAM_BATCH_EVENTS_MAX 1000
/* The sessions pushed a batch keeps, at most (a list is of 200); a push of
 * a session past them is dropped and the sessions listed again. */
#define PD_REMOTE_STREAM_BATCH_PUSHED_MAX 200

typedef struct _PdRemoteStream PdRemoteStream;

/* Opens GET @url (the event stream) on the streams' thread; what it says
 * is handed to @source in the thread-default context of the caller
 * (_pd_remote_source_stream_batch).  Drop it with _pd_remote_stream_stop. */
PdRemoteStream *_pd_remote_stream_open   (PdRemoteSource *source,
                                          const char     *url,
                                          const char     *token,
                                          gboolean        pushes);
/* Closes the stream; nothing more of it is handed over.  Unrefs @stream. */
void            _pd_remote_stream_stop   (PdRemoteStream *stream);
/* For tests: what the stream's operations run with; cancelled on the
 * streams' thread by _pd_remote_stream_stop(). */
GCancellable   *_pd_remote_stream_get_cancellable (PdRemoteStream *stream);
/* The monotonic µs at which a line of it was last read; 0 none yet. */
gint64          _pd_remote_stream_heard  (PdRemoteStream *stream);
/* A pushed frame's data (after "data: "): its sessions
 * (PdRemotePushedSession), none when it is not of the shape. */
GPtrArray      *_pd_remote_stream_parse_pushed (const char *data,
                                                gsize       len);
/* How many times the streams' thread woke (for tests). */
guint           _pd_remote_stream_get_wakes (void);

/* In pd-remote-source-live.c: a batch of @stream handed to its source. */
void  _pd_remote_source_stream_batch (PdRemoteSource      *self,
                                      PdRemoteStream      *stream,
                                      PdRemoteStreamBatch *batch);

G_END_DECLS
