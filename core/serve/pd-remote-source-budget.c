/* pd-remote-source-budget.c: the session lookups of a PdRemoteSource kept
 * within the server's limit (LOOKUP_BURST, pd-remote-source-private.h), and
 * those waiting for it in one queue: each token goes to the first of them,
 * and the session the person looks at (pd_remote_source_set_shown_session())
 * goes before all others; sent, its requests go first on the connection
 * too.  Each waiting lookup had a timer of its own, all due when the next
 * token was: any of them took it, and the Now page's plan of an endpoint
 * with 400 sessions waited behind the Overview's reads of all the others
 * (about 8 minutes at 50 a minute).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-source"

#include "config.h"

#include <string.h>

#include "pd-remote-source-private.h"

/* A session lookup: what a server rate-limits (GET /api/sessions/ID, its
 * /plan, /plan/detail and /export), and the budget counts unless the
 * server said it has no limit. */
static gboolean
call_is_lookup (PdRemoteSource *self,
                const Call     *call)
{
  return self->lookup_limit != 0 &&
         g_strcmp0 (call->method, "GET") == 0 && g_str_has_prefix (call->path, "/api/sessions/");
}

/* Refills the budget as of @now; returns how many ms until a token is
 * there, 0 when one is.  The budget keeps a margin below the server's
 * limit: of 60, a burst of 8 and 50 a minute. */
static guint
refill_lookup_tokens (PdRemoteSource *self,
                      gint64          now)
{
  gint64 limit = self->lookup_limit > 0 ? MIN (self->lookup_limit, G_MAXINT) : LOOKUP_LIMIT_ASSUMED;
  double burst = MIN (LOOKUP_BURST, MAX (1, limit / 4));
  double per_us = MAX (1.0, limit - burst - 2) / (60.0 * G_USEC_PER_SEC);

  self->lookup_tokens = MIN (burst, self->lookup_tokens + (now - self->lookup_refilled) * per_us);
  self->lookup_refilled = now;
  if (self->lookup_tokens >= 1.0)
    return 0;
  return (guint) ((1.0 - self->lookup_tokens) / per_us / 1000) + 1;
}

static gboolean
take_lookup_token (PdRemoteSource *self,
                   gint64          now)
{
  if (refill_lookup_tokens (self, now) > 0)
    return FALSE;
  self->lookup_tokens -= 1.0;
  return TRUE;
}

/* The key of a lookup among those waiting: its kind and path. */
static char *
lookup_key (const Call *call)
{
  return g_strdup_printf ("%d %s", (int) call->kind, call->path);
}

/* The waiting lookup of @path, to merge a new one into; NULL when none.
 * A table, not a list: an endpoint listing 3,000 running sessions had each
 * of its plan lookups walk all the waiting ones, several times per send,
 * and the window froze for minutes (tried as an attacker would). */
static GTask *
find_waiting_lookup (PdRemoteSource *self,
                     const Call     *call)
{
  g_autofree char *key = lookup_key (call);

  return g_hash_table_lookup (self->lookups_waiting, key);
}

void
_pd_remote_source_forget_waiting_lookup (PdRemoteSource *self,
                                         GTask          *task)
{
  Call *call = g_task_get_task_data (task);
  g_autofree char *key = NULL;

  if (call->path == NULL)
    return;
  key = lookup_key (call);
  if (g_hash_table_lookup (self->lookups_waiting, key) == task)
    g_hash_table_remove (self->lookups_waiting, key);
}

/* Whether @call is for the session the person looks at. */
gboolean
_pd_remote_source_call_is_shown (PdRemoteSource *self,
                                 const Call     *call)
{
  return self->shown_id != NULL && call->id != NULL && strcmp (call->id, self->shown_id) == 0;
}

static gboolean
task_is_shown (PdRemoteSource *self,
               GTask          *task)
{
  return _pd_remote_source_call_is_shown (self, g_task_get_task_data (task));
}

/* In the queue: the shown session's lookups after its own waiting ones,
 * before all others; the rest last. */
static void
lookup_enqueue (PdRemoteSource *self,
                GTask          *task)
{
  GList *link = self->lookup_queue.head;

  if (!task_is_shown (self, task))
    {
      g_queue_push_tail (&self->lookup_queue, task);
      return;
    }
  while (link != NULL && task_is_shown (self, link->data))
    link = link->next;
  if (link != NULL)
    g_queue_insert_before (&self->lookup_queue, link, task);
  else
    g_queue_push_tail (&self->lookup_queue, task);
}

static void lookup_schedule (PdRemoteSource *self);

/* A token is due: the first waiting goes, and more while tokens last. */
static gboolean
on_lookup_timer (gpointer data)
{
  PdRemoteSource *self = data;

  g_clear_pointer (&self->lookup_timer, g_source_unref);
  while (!g_queue_is_empty (&self->lookup_queue))
    {
      GTask *task = g_queue_peek_head (&self->lookup_queue);
      gint64 now = g_get_monotonic_time ();

      /* A cancelled one spends no token: it ends as it is sent. */
      if (!g_cancellable_is_cancelled (g_task_get_cancellable (task)))
        {
          if (self->backoff_until > now || !take_lookup_token (self, now))
            break;
          ((Call *) g_task_get_task_data (task))->budgeted = TRUE;
        }
      g_queue_pop_head (&self->lookup_queue);
      _pd_remote_source_send_call (task);
    }
  lookup_schedule (self);
  return G_SOURCE_REMOVE;
}

/* The timer for the first waiting, when there is one. */
static void
lookup_schedule (PdRemoteSource *self)
{
  gint64 now = g_get_monotonic_time ();
  guint wait_ms;

  if (self->lookup_timer != NULL || g_queue_is_empty (&self->lookup_queue))
    return;
  if (self->backoff_until > now)
    wait_ms = (guint) ((self->backoff_until - now) / 1000 + 1);
  else
    wait_ms = refill_lookup_tokens (self, now);
  self->lookup_timer = g_timeout_source_new (wait_ms);
  g_source_set_callback (self->lookup_timer, on_lookup_timer, g_object_ref (self), g_object_unref);
  g_source_attach (self->lookup_timer, self->context);
}

/* Whether @task (its reference) goes now.  Else it waits in the queue, or
 * was merged into the waiting lookup of its path, which answers it. */
gboolean
_pd_remote_source_admit_lookup (PdRemoteSource *self,
                                GTask          *task)
{
  Call *call = g_task_get_task_data (task);
  GTask *waiting;

  if (!call_is_lookup (self, call))
    return TRUE;
  if (call->budgeted)
    {
      call->budgeted = FALSE;
      return TRUE;
    }
  waiting = find_waiting_lookup (self, call);
  if (waiting != NULL && waiting != task)
    {
      Call *leader = g_task_get_task_data (waiting);

      /* Not sent yet, the waiting one answers as of now: it is the
       * export request later asks share. */
      if (call->shares_export)
        {
          _pd_remote_source_export_answered (self, task, NULL, NULL);
          leader->shares_export = TRUE;
          leader->changes = call->changes;
          g_hash_table_replace (self->exports_asked, g_strdup (leader->id), waiting);
        }
      if (leader->followers == NULL)
        leader->followers = g_ptr_array_new_with_free_func (g_object_unref);
      g_ptr_array_add (leader->followers, task);
      if (call->followers != NULL)
        g_ptr_array_extend_and_steal (leader->followers, g_steal_pointer (&call->followers));
      return FALSE;
    }
  /* Those waiting have the next tokens. */
  if (self->backoff_until <= g_get_monotonic_time () && g_queue_is_empty (&self->lookup_queue) &&
      take_lookup_token (self, g_get_monotonic_time ()))
    return TRUE;
  g_hash_table_replace (self->lookups_waiting, lookup_key (call), task);
  lookup_enqueue (self, task);
  lookup_schedule (self);
  return FALSE;
}

/**
 * pd_remote_source_set_shown_session:
 * @session_id: (nullable): the session the person looks at, of this
 *   endpoint; %NULL for none
 *
 * Its reads go before all others: first of those waiting for the lookup
 * budget, and first on the connection.
 */
void
pd_remote_source_set_shown_session (PdRemoteSource *self,
                                    const char     *session_id)
{
  g_autoptr(GPtrArray) shown = g_ptr_array_new ();

  g_return_if_fail (PD_IS_REMOTE_SOURCE (self));

  if (g_strcmp0 (self->shown_id, session_id) == 0)
    return;
  g_free (self->shown_id);
  self->shown_id = g_strdup (session_id);
  /* Those already waiting move up, in their order. */
  for (GList *link = self->lookup_queue.head; link != NULL; link = link->next)
    if (task_is_shown (self, link->data))
      g_ptr_array_add (shown, link->data);
  for (guint i = 0; i < shown->len; i++)
    {
      g_queue_remove (&self->lookup_queue, g_ptr_array_index (shown, i));
      lookup_enqueue (self, g_ptr_array_index (shown, i));
    }
}

/* The source goes: its timer with it (the waiting lookups hold the source,
 * so none is left then). */
void
_pd_remote_source_budget_clear (PdRemoteSource *self)
{
  if (self->lookup_timer != NULL)
    {
      g_source_destroy (self->lookup_timer);
      g_clear_pointer (&self->lookup_timer, g_source_unref);
    }
  g_clear_pointer (&self->shown_id, g_free);
}
