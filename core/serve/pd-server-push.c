/* pd-server-push.c: what another connection's commit changed, pushed to
 * the event streams that asked for it (GET /api/events/stream?sessions=1,
 * with the instance token as a header; /api/health says sessions_push).
 *
 * A commit of another connection (an agent writing its plan in another
 * process) reaches the bus of no server: the database watcher sees it, and
 * the streams were told ": store_changed", after which every client asked
 * for the session list again, and for the plan of each session whose counts
 * moved.  Fifty endpoints of ten agents each made that a list request per
 * endpoint and second and a plan request per moved step in the window that
 * follows them all (bench-overview, issue 21).  Here the server reads once,
 * for all its streams, which sessions changed, and sends them as one frame:
 *
 *   event: sessions
 *   data: {"sessions":[SESSION…]}
 *
 * each SESSION as GET /api/sessions lists it, with "current_step" (the
 * title of the step in progress, else of the first pending one; absent
 * when none), "unpassed_checks" (of its newest plan) and "failed_check"
 * (the first check of a step not done whose evidence failed: its
 * description; absent when none) where its plan was read (not for an
 * imported session, whose plan is its transcript's).
 *
 * Which sessions changed: those listed (newest first) with an updated_at
 * since a little before the last read, less those already pushed with the
 * same updated_at (a time is taken before its commit, so a commit may land
 * with a time a little older than one already seen).  When that cannot be
 * told (more changed than a list holds), or a session went (the count of
 * sessions is not the last count and the new ones), the streams get
 * ": store_changed" instead, and their clients read the list again.
 * Streams that did not ask get ": store_changed" as before.
 *
 * Reads run in a worker on a reader connection, one at a time; commits that
 * come meanwhile make one more read after it.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-server"

#include "config.h"

#include "pd-server-private.h"
#include "pd-plan.h"
#include "pd-session-reads.h"

/* How far before the last read a session's time may be and still be news:
 * the time of a commit is taken before it lands. */
#define PUSH_SLACK_USEC (2 * G_USEC_PER_SEC)

typedef struct
{
  PdServer   *server;
  gint64      since;        /* unix µs: sessions updated since are looked at */
  gint64      created_mark; /* unix µs: sessions created since are new */
  GHashTable *pushed;       /* id → gint64 updated_at pushed already (a copy) */
  /* The answer. */
  gint64      read_at;      /* unix µs, before the list was read */
  GHashTable *now_pushed;   /* id → gint64, of every session looked at */
  char       *body;         /* (nullable) the frame's data; NULL: nothing new */
  guint       total;
  guint       created;
  gboolean    unsure;       /* more changed than a list holds, or a read failed */
} Push;

static void
push_free (Push *push)
{
  g_object_unref (push->server);
  g_clear_pointer (&push->pushed, g_hash_table_unref);
  g_clear_pointer (&push->now_pushed, g_hash_table_unref);
  g_free (push->body);
  g_free (push);
}

static GHashTable *
times_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

static void
push_read (Push           *push,
           PdSessionStore *store)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) sessions = NULL;
  JsonArray *array;
  JsonObject *object;
  guint n_changed = 0;

  push->read_at = g_get_real_time ();
  push->now_pushed = times_new ();
  sessions = pd_session_store_list (store, NULL, FALSE, 0, PD_SESSION_LIST_MAX_LIMIT, &push->total, &error);
  if (sessions == NULL)
    {
      push->unsure = TRUE;
      return;
    }
  /* The list holds them all, or its oldest is older than what is looked
   * at (pinned ones come first, whatever their time). */
  if (sessions->len == PD_SESSION_LIST_MAX_LIMIT &&
      ((PdSessionInfo *) g_ptr_array_index (sessions, sessions->len - 1))->updated_at >= push->since)
    {
      push->unsure = TRUE;
      return;
    }

  array = json_array_new ();
  for (guint i = 0; i < sessions->len; i++)
    {
      const PdSessionInfo *info = g_ptr_array_index (sessions, i);
      gint64 *pushed;
      JsonObject *session;

      if (info->updated_at < push->since)
        continue;
      if (info->created_at >= push->created_mark && !g_hash_table_contains (push->pushed, info->id))
        push->created++;
      g_hash_table_replace (push->now_pushed, g_strdup (info->id), g_memdup2 (&info->updated_at, sizeof (gint64)));
      pushed = g_hash_table_lookup (push->pushed, info->id);
      if (pushed != NULL && *pushed == info->updated_at)
        continue;

      session = _pd_server_session_json (info);
      if (!pd_session_info_is_imported (info))
        {
          g_autoptr(PdPlanState) plan = NULL;
          g_autoptr(GError) plan_error = NULL;

          if (pd_session_reads_get_plan (store, info->id, &plan, &plan_error))
            {
              const char *step = pd_plan_state_current_step_title (plan);
              const char *failed = pd_plan_state_failed_check_name (plan);

              if (step != NULL)
                {
                  json_object_set_string_member (session, "current_step", step);
                  json_object_set_boolean_member (session, "current_step_started",
                                                  pd_plan_state_current_step_started (plan));
                }
              if (failed != NULL)
                json_object_set_string_member (session, "failed_check", failed);
              json_object_set_int_member (session, "unpassed_checks",
                                          plan != NULL ? pd_plan_state_count_unpassed_checks (plan) : 0);
            }
        }
      json_array_add_object_element (array, session);
      n_changed++;
    }
  if (n_changed == 0)
    {
      json_array_unref (array);
      return;
    }
  object = json_object_new ();
  json_object_set_array_member (object, "sessions", array);
  push->body = _pd_server_json_object_text (object);
  json_object_unref (object);
}

static void
push_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  PdServer *self = source_object;
  PdSessionStore *store = g_async_queue_pop (self->readers);

  push_read (task_data, store);
  g_async_queue_push (self->readers, store);
  g_task_return_boolean (task, TRUE);
}

static void push_start (PdServer *self);

static void
on_push_done (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  PdServer *self = PD_SERVER (object);
  Push *push = g_task_get_task_data (G_TASK (result));
  gboolean went;

  self->pending--;
  self->push_running = FALSE;
  if (self->stopping)
    {
      _pd_server_maybe_quit (self);
      return;
    }

  /* A session went when the count is less than the last and the new ones. */
  went = self->push_total != G_MAXUINT && push->total != self->push_total + push->created;
  if (push->unsure || went)
    {
      /* Everyone reads the list again; the next push starts afresh. */
      _pd_server_streams_push (self, NULL);
      self->push_total = push->unsure ? G_MAXUINT : push->total;
      g_clear_pointer (&self->pushed, g_hash_table_unref);
      self->pushed = times_new ();
    }
  else
    {
      if (push->body != NULL)
        {
          g_autofree char *text = g_strdup_printf ("event: sessions\ndata: %s\n\n", push->body);

          _pd_server_streams_push (self, text);
        }
      else
        _pd_server_streams_push (self, "");
      self->push_total = push->total;
      g_clear_pointer (&self->pushed, g_hash_table_unref);
      self->pushed = g_steal_pointer (&push->now_pushed);
    }
  self->push_mark = push->read_at;

  if (self->push_again)
    {
      self->push_again = FALSE;
      push_start (self);
    }
}

static void
push_start (PdServer *self)
{
  g_autoptr(GTask) task = g_task_new (self, NULL, on_push_done, NULL);
  Push *push = g_new0 (Push, 1);
  GHashTableIter iter;
  gpointer key, value;

  push->server = g_object_ref (self);
  push->since = self->push_mark - PUSH_SLACK_USEC;
  push->created_mark = self->push_mark;
  push->pushed = times_new ();
  g_hash_table_iter_init (&iter, self->pushed);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_hash_table_insert (push->pushed, g_strdup (key), g_memdup2 (value, sizeof (gint64)));
  self->push_running = TRUE;
  self->pending++;
  g_task_set_task_data (task, push, (GDestroyNotify) push_free);
  g_task_run_in_thread (task, push_thread);
}

/* On the server's thread: another connection committed.  Streams that
 * asked for pushes get what changed (after a read), the others
 * ": store_changed" at once. */
void
_pd_server_push_store_changed (PdServer *self)
{
  if (self->push_mark == 0)
    self->push_mark = self->started_at;
  if (self->pushed == NULL)
    {
      self->pushed = times_new ();
      self->push_total = G_MAXUINT;
    }
  if (!_pd_server_streams_want_push (self))
    {
      _pd_server_announce_store_changed (self);
      return;
    }
  if (self->push_running)
    {
      self->push_again = TRUE;
      return;
    }
  push_start (self);
}

void
_pd_server_push_clear (PdServer *self)
{
  g_clear_pointer (&self->pushed, g_hash_table_unref);
}
