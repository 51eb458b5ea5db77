/* pd-remote-source-backoff.c: a read the endpoint answered with a failure
 * waits before it is sent again.
 *
 * The Now and Events pages poll every 3 s and read again on each change:
 * an endpoint answering a plan or events with a 500 or a malformed reply
 * was asked again each time, a refused plan 11 times in 30 s (tried as an
 * attacker would).  Such a failure is kept per read (its path; a plan by
 * its session, as its path follows the endpoint's routes), and the same
 * read asked before its wait is over gets the same error at once, without
 * a request: the page says it as it did.  The wait starts at the pages'
 * idle poll and doubles with each failure, to a minute at most.  An answer
 * that is no failure forgets it, as do a person's Retry
 * (pd_remote_source_forget_failures()), a reconnection and a new token.
 * A change the endpoint pushes of that session ends the wait once: the
 * read is sent at the next ask, and if it fails again its wait goes on
 * doubling, whatever the endpoint pushes (an endpoint pushing 10 to 200
 * events a second had the failing page asked twice a second; tried as an
 * attacker would).
 *
 * Not kept: the watch's own reads (their failures put the endpoint
 * offline, reconnected after a growing wait of their own), what is not a
 * GET (a person's rename or answer is always sent), a failure that is no
 * answer (refused, cut, too slow: the endpoint is offline) and a 429 (the
 * whole endpoint waits for it already).  A read that never failed costs
 * one look in an empty table.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-source"

#include "config.h"

#include <string.h>

#include "pd-remote-source-private.h"

/* The first wait: the pages' idle poll (poll-idle-ms); then twice the last. */
#define FAILED_FIRST_MS 3000
#define FAILED_MAX_MS   60000
/* Reads kept at most: each of a session that never answers again (a
 * deleted one's 404) stays until a reset, so past these the ones whose
 * wait is over go, and if none has, all. */
#define FAILED_MAX_KEPT 256

typedef struct
{
  char   *id;       /* (nullable) the session the read is of */
  GError *error;    /* how the endpoint answered it last */
  guint   wait_ms;  /* the last wait */
  gint64  until;    /* monotonic µs: not sent before */
  gboolean opened;  /* a pushed change ended a wait of it early */
} FailedRead;

static void
failed_read_free (FailedRead *failed)
{
  g_free (failed->id);
  g_clear_error (&failed->error);
  g_free (failed);
}

GHashTable *
_pd_remote_source_failed_reads_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) failed_read_free);
}

/* What @task's read is kept by, or NULL when it is not kept at all. */
static char *
failed_key (PdRemoteSource *self,
            GTask          *task)
{
  Call *call = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);

  if (g_strcmp0 (call->method, "GET") != 0 || (cancellable != NULL && cancellable == self->watch_cancellable))
    return NULL;
  if (call->kind == OP_PLAN && call->id != NULL)
    return g_strconcat ("plan ", call->id, NULL);
  return g_strdup (call->path);
}

/**
 * _pd_remote_source_replay_failure:
 * @task: (transfer full): a call about to be sent
 *
 * Returns: %TRUE when @task's read failed and its wait is not over: it
 *   (and the lookups merged into it) got that failure again, unsent
 */
gboolean
_pd_remote_source_replay_failure (PdRemoteSource *self,
                                  GTask          *task)
{
  Call *call = g_task_get_task_data (task);
  g_autoptr(GPtrArray) followers = NULL;
  FailedRead *failed;

  /* Decided as it is first sent: the watch's cancellable is replaced as
   * it reconnects. */
  if (!call->keyed)
    {
      call->keyed = TRUE;
      call->failed_key = failed_key (self, task);
    }
  if (call->failed_key == NULL || g_hash_table_size (self->failed_reads) == 0)
    return FALSE;
  failed = g_hash_table_lookup (self->failed_reads, call->failed_key);
  if (failed == NULL || g_get_monotonic_time () >= failed->until)
    return FALSE;

  followers = g_steal_pointer (&call->followers);
  if (call->shares_export)
    _pd_remote_source_export_answered (self, task, NULL, NULL);
  g_task_return_error (task, g_error_copy (failed->error));
  g_object_unref (task);
  for (guint i = 0; followers != NULL && i < followers->len; i++)
    g_task_return_error (g_ptr_array_index (followers, i), g_error_copy (failed->error));
  return TRUE;
}

/* Room for one more: the reads whose wait is over go first. */
static void
failed_reads_make_room (PdRemoteSource *self,
                        gint64          now)
{
  GHashTableIter iter;
  FailedRead *failed;

  if (g_hash_table_size (self->failed_reads) < FAILED_MAX_KEPT)
    return;
  g_hash_table_iter_init (&iter, self->failed_reads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &failed))
    if (failed->until <= now)
      g_hash_table_iter_remove (&iter);
  if (g_hash_table_size (self->failed_reads) >= FAILED_MAX_KEPT)
    g_hash_table_remove_all (self->failed_reads);
}

/**
 * _pd_remote_source_note_read:
 * @task: a call whose reply was handled
 * @msg: (nullable): its message, when the endpoint answered
 *
 * Keeps the failure the endpoint answered @task with (its wait doubled
 * when it failed before), or forgets the read's failure on a success.
 */
void
_pd_remote_source_note_read (PdRemoteSource *self,
                             GTask          *task,
                             SoupMessage    *msg)
{
  Call *call = g_task_get_task_data (task);
  gint64 now = g_get_monotonic_time ();
  guint first = self->failed_first_ms > 0 ? self->failed_first_ms : FAILED_FIRST_MS;
  FailedRead *failed;

  if (call->failed_key == NULL)
    return;
  if (call->failure == NULL)
    {
      if (msg != NULL && SOUP_STATUS_IS_SUCCESSFUL (soup_message_get_status (msg)))
        g_hash_table_remove (self->failed_reads, call->failed_key);
      return;
    }

  failed = g_hash_table_lookup (self->failed_reads, call->failed_key);
  /* Another of the same read, sent before this one failed: one wait. */
  if (failed != NULL && failed->until > now)
    return;
  if (failed == NULL)
    {
      failed_reads_make_room (self, now);
      failed = g_new0 (FailedRead, 1);
      failed->id = g_strdup (call->id);
      g_hash_table_insert (self->failed_reads, g_strdup (call->failed_key), failed);
      failed->wait_ms = first;
    }
  else
    failed->wait_ms = MIN (failed->wait_ms * 2, FAILED_MAX_MS);
  g_clear_error (&failed->error);
  failed->error = g_error_copy (call->failure);
  failed->until = now + (gint64) failed->wait_ms * 1000;
  g_debug ("%s: %s failed (%s); not asked again for %u ms", self->base, call->failed_key,
           failed->error->message, failed->wait_ms);
}

/* Answers @task with @error (taken): the endpoint answered, with a
 * failure, which its call keeps for _pd_remote_source_note_read(). */
void
_pd_remote_source_fail (GTask  *task,
                        GError *error)
{
  Call *call = g_task_get_task_data (task);

  if (call->failure == NULL)
    call->failure = g_error_copy (error);
  g_task_return_error (task, error);
}

/* The reads of @session_id are sent again when next asked, once: the
 * endpoint pushed a change of it.  With @pushed %FALSE (a person's Retry)
 * they are forgotten.  Nothing when @session_id is NULL. */
static void
forget_session_failures (PdRemoteSource *self,
                         const char     *session_id,
                         gboolean        pushed)
{
  GHashTableIter iter;
  FailedRead *failed;

  if (session_id == NULL || g_hash_table_size (self->failed_reads) == 0)
    return;
  g_hash_table_iter_init (&iter, self->failed_reads);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &failed))
    {
      if (g_strcmp0 (failed->id, session_id) != 0)
        continue;
      if (!pushed)
        g_hash_table_iter_remove (&iter);
      else if (!failed->opened)
        {
          failed->opened = TRUE;
          failed->until = 0;
        }
    }
}

void
_pd_remote_source_forget_session_failures (PdRemoteSource *self,
                                           const char     *session_id)
{
  forget_session_failures (self, session_id, TRUE);
}

/**
 * pd_remote_source_forget_failures:
 * @session_id: (nullable): the session whose reads to forget, or %NULL for
 *   every read
 *
 * Reads the endpoint answered with a failure are sent again when next
 * asked, not after their wait (a person pressed Retry).
 */
void
pd_remote_source_forget_failures (PdRemoteSource *self,
                                  const char     *session_id)
{
  g_return_if_fail (PD_IS_REMOTE_SOURCE (self));

  if (session_id == NULL)
    g_hash_table_remove_all (self->failed_reads);
  else
    forget_session_failures (self, session_id, FALSE);
}
