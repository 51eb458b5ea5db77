/* pd-database-watcher.c: notices commits to a session database, pushed.
 *
 * Why a file monitor and data_version together: the monitor tells at once
 * that the file or its WAL was written, but a write is not a commit (a
 * checkpoint writes the file, a writer writes frames before its commit
 * frame); data_version tells exactly whether another connection committed,
 * but only when asked.  So each monitor event asks, in a worker, and only
 * a new data_version makes ::changed.  The monitor's rate limit is low:
 * GLib sends the first change of a burst at once and the rest of the burst
 * within the limit, so the commit frame written just after the first frame
 * is never noticed late.
 *
 * The connection is this watcher's own, read-only: it sees the commits of
 * every other connection, the source's own included.
 *
 * One watcher serves every reader that must hear of other processes'
 * commits: the local source (the window's views) and serve (its plan cache
 * and its event streams).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include "pd-database-watcher.h"
#include "pd-db.h"

#define MONITOR_RATE_LIMIT_MS 20

/* What a read in a worker uses: its own reference, never the watcher's.
 * A task holding the watcher could drop the last reference to it on the
 * worker, after the main context let go (the window closed, a test ended):
 * the watcher was then disposed there, its monitors and poll source torn
 * down off the thread that dispatches them. */
typedef struct
{
  gatomicrefcount  ref_count;
  char            *path;
  PdDb            *db;   /* opened by the first read; used by one read at a time */
} Reader;

static Reader *
reader_ref (Reader *reader)
{
  g_atomic_ref_count_inc (&reader->ref_count);
  return reader;
}

static void
reader_unref (Reader *reader)
{
  if (!g_atomic_ref_count_dec (&reader->ref_count))
    return;
  g_clear_object (&reader->db);
  g_free (reader->path);
  g_free (reader);
}

struct _PdDatabaseWatcher
{
  GObject       parent_instance;

  char         *path;
  GMainContext *context;
  GFileMonitor *monitors[2];    /* the file and its WAL */
  GCancellable *cancellable;

  guint         poll_interval;
  GSource      *poll;

  gboolean      reading;        /* a read in flight */
  gboolean      again;          /* asked while reading */
  gboolean      failed;         /* the last read could not open or read */
  gboolean      baseline_changes; /* the first reading counts as a change */
  gint64        last_version;   /* -1 until the first read */
  guint64       n_reads;
  Reader       *reader;
};

G_DEFINE_FINAL_TYPE (PdDatabaseWatcher, pd_database_watcher, G_TYPE_OBJECT)

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
read_version_thread (GTask        *task,
                     gpointer      source_object,
                     gpointer      task_data,
                     GCancellable *cancellable)
{
  Reader *self = task_data;
  GError *error = NULL;
  gint64 version = -1;

  if (self->db == NULL && g_file_test (self->path, G_FILE_TEST_EXISTS))
    self->db = pd_db_open (self->path, PD_DB_READ_ONLY, &error);
  if (self->db == NULL)
    {
      if (error == NULL)
        error = g_error_new (G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s does not exist yet", self->path);
      g_task_return_error (task, error);
      return;
    }

  {
    g_autoptr(PdDbLocker) locker = pd_db_locker_new (self->db);
    PdDbStmt *stmt = pd_db_prepare (self->db, "PRAGMA data_version", &error);

    if (stmt != NULL)
      {
        if (pd_db_step (self->db, stmt, &error) == PD_DB_ROW)
          version = pd_db_stmt_column_int64 (stmt, 0);
        pd_db_stmt_release (stmt);
      }
  }

  if (version < 0)
    {
      if (error == NULL)
        error = g_error_new (G_IO_ERROR, G_IO_ERROR_FAILED, "no data_version for %s", self->path);
      g_task_return_error (task, error);
      return;
    }
  g_task_return_int (task, version);
}

static void
free_weak_ref (GWeakRef *weak)
{
  g_weak_ref_clear (weak);
  g_free (weak);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (GWeakRef, free_weak_ref)

static void
on_version_read (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  g_autoptr(GWeakRef) weak = user_data;
  g_autoptr(PdDatabaseWatcher) self = g_weak_ref_get (weak);
  g_autoptr(GError) error = NULL;
  gint64 version = g_task_propagate_int (G_TASK (result), &error);
  gboolean changed = FALSE;

  /* Gone: nothing to tell. */
  if (self == NULL)
    return;
  self->reading = FALSE;
  if (g_cancellable_is_cancelled (self->cancellable))
    return;

  self->n_reads++;
  if (error != NULL)
    {
      g_debug ("Cannot read the data version of %s: %s", self->path, error->message);
      self->failed = TRUE;
    }
  else
    {
      /* A database that could not be read before and can now (the demo's,
       * made by its run) has changed as well. */
      changed = (self->last_version >= 0 && version != self->last_version) ||
                (self->last_version < 0 && (self->failed || self->baseline_changes));
      self->last_version = version;
      self->failed = FALSE;
    }

  if (changed)
    g_signal_emit (self, signals[CHANGED], 0);

  if (self->again)
    {
      self->again = FALSE;
      pd_database_watcher_check (self);
    }
}

/**
 * pd_database_watcher_check:
 *
 * Reads the data version now (in a worker); emits ::changed when another
 * connection committed since the last read.  Merged with a read in flight.
 */
void
pd_database_watcher_check (PdDatabaseWatcher *self)
{
  g_autoptr(GTask) task = NULL;
  GWeakRef *weak;

  g_return_if_fail (PD_IS_DATABASE_WATCHER (self));

  if (self->reading)
    {
      self->again = TRUE;
      return;
    }

  self->reading = TRUE;
  /* The task holds the reader alone; the watcher only weakly (see Reader). */
  weak = g_new0 (GWeakRef, 1);
  g_weak_ref_init (weak, self);
  task = g_task_new (NULL, NULL, on_version_read, weak);
  g_task_set_task_data (task, reader_ref (self->reader), (GDestroyNotify) reader_unref);
  g_task_set_source_tag (task, pd_database_watcher_check);
  g_task_set_name (task, "[pd] data_version");
  g_task_run_in_thread (task, read_version_thread);
}

static void
on_file_changed (GFileMonitor      *monitor,
                 GFile             *file,
                 GFile             *other,
                 GFileMonitorEvent  event,
                 gpointer           user_data)
{
  PdDatabaseWatcher *self = user_data;

  switch (event)
    {
    case G_FILE_MONITOR_EVENT_CHANGED:
    case G_FILE_MONITOR_EVENT_CREATED:
    case G_FILE_MONITOR_EVENT_DELETED:
    case G_FILE_MONITOR_EVENT_MOVED_IN:
    case G_FILE_MONITOR_EVENT_RENAMED:
      pd_database_watcher_check (self);
      break;
    default:
      break;
    }
}

static gboolean
on_poll (gpointer user_data)
{
  pd_database_watcher_check (user_data);
  return G_SOURCE_CONTINUE;
}

static void
pd_database_watcher_dispose (GObject *object)
{
  PdDatabaseWatcher *self = (PdDatabaseWatcher *) object;

  g_cancellable_cancel (self->cancellable);
  for (guint i = 0; i < G_N_ELEMENTS (self->monitors); i++)
    {
      if (self->monitors[i] == NULL)
        continue;
      g_signal_handlers_disconnect_by_data (self->monitors[i], self);
      g_file_monitor_cancel (self->monitors[i]);
      g_clear_object (&self->monitors[i]);
    }
  if (self->poll != NULL)
    g_source_destroy (self->poll);
  g_clear_pointer (&self->poll, g_source_unref);

  G_OBJECT_CLASS (pd_database_watcher_parent_class)->dispose (object);
}

static void
pd_database_watcher_finalize (GObject *object)
{
  PdDatabaseWatcher *self = (PdDatabaseWatcher *) object;

  /* A read in flight keeps the reader (and its connection) until it ends. */
  g_clear_pointer (&self->reader, reader_unref);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_free (self->path);

  G_OBJECT_CLASS (pd_database_watcher_parent_class)->finalize (object);
}

static void
pd_database_watcher_class_init (PdDatabaseWatcherClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = pd_database_watcher_dispose;
  object_class->finalize = pd_database_watcher_finalize;

  /**
   * PdDatabaseWatcher::changed:
   *
   * A transaction was committed to the database by a connection other than
   * the watcher's (of this process or another).
   */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
pd_database_watcher_init (PdDatabaseWatcher *self)
{
  self->last_version = -1;
  self->cancellable = g_cancellable_new ();
  self->context = g_main_context_ref_thread_default ();
}

/**
 * pd_database_watcher_new:
 * @path: the database file (it may not exist yet)
 *
 * Starts watching at once, with no fallback poll until one is set.
 */
PdDatabaseWatcher *
pd_database_watcher_new (const char *path)
{
  PdDatabaseWatcher *self;
  g_autofree char *wal = NULL;
  const char *paths[2];

  g_return_val_if_fail (path != NULL, NULL);

  self = g_object_new (PD_TYPE_DATABASE_WATCHER, NULL);
  self->path = g_strdup (path);
  self->reader = g_new0 (Reader, 1);
  g_atomic_ref_count_init (&self->reader->ref_count);
  self->reader->path = g_strdup (path);
  wal = g_strconcat (path, "-wal", NULL);
  paths[0] = path;
  paths[1] = wal;

  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr(GFile) file = g_file_new_for_path (paths[i]);
      g_autoptr(GError) error = NULL;

      /* A missing file is watched too: GLib watches its folder. */
      self->monitors[i] = g_file_monitor_file (file, G_FILE_MONITOR_NONE, NULL, &error);
      if (self->monitors[i] == NULL)
        {
          g_debug ("No change notification for %s (%s): polling only", paths[i], error->message);
          continue;
        }
      g_file_monitor_set_rate_limit (self->monitors[i], MONITOR_RATE_LIMIT_MS);
      g_signal_connect (self->monitors[i], "changed", G_CALLBACK (on_file_changed), self);
    }

  /* The baseline. */
  pd_database_watcher_check (self);
  return self;
}

const char *
pd_database_watcher_get_path (PdDatabaseWatcher *self)
{
  g_return_val_if_fail (PD_IS_DATABASE_WATCHER (self), NULL);
  return self->path;
}

/**
 * pd_database_watcher_set_poll_interval:
 * @interval_ms: how often to read the data version besides the pushes; 0
 *   for never
 */
void
pd_database_watcher_set_poll_interval (PdDatabaseWatcher *self,
                                       guint              interval_ms)
{
  g_return_if_fail (PD_IS_DATABASE_WATCHER (self));

  if (self->poll_interval == interval_ms)
    return;

  self->poll_interval = interval_ms;
  if (self->poll != NULL)
    g_source_destroy (self->poll);
  g_clear_pointer (&self->poll, g_source_unref);

  if (interval_ms == 0)
    return;

  /* Whole seconds let the main loop group wake-ups with other timers. */
  if (interval_ms >= 2000 && interval_ms % 1000 == 0)
    self->poll = g_timeout_source_new_seconds (interval_ms / 1000);
  else
    self->poll = g_timeout_source_new (interval_ms);
  g_source_set_name (self->poll, "[pd] data_version poll");
  g_source_set_callback (self->poll, on_poll, self, NULL);
  g_source_attach (self->poll, self->context);
}

/**
 * pd_database_watcher_set_baseline_changes:
 * @baseline_changes: whether the first reading emits ::changed
 *
 * For a reader that may have read the database before the watcher's first
 * look (serve answers at once): a commit made between its read and that
 * first look would otherwise never be told.  Set it right after
 * pd_database_watcher_new(), on the same thread.
 */
void
pd_database_watcher_set_baseline_changes (PdDatabaseWatcher *self,
                                          gboolean           baseline_changes)
{
  g_return_if_fail (PD_IS_DATABASE_WATCHER (self));
  self->baseline_changes = !!baseline_changes;
}

guint
pd_database_watcher_get_poll_interval (PdDatabaseWatcher *self)
{
  g_return_val_if_fail (PD_IS_DATABASE_WATCHER (self), 0);
  return self->poll_interval;
}

/**
 * pd_database_watcher_get_pushed:
 *
 * Returns: whether changes of the file are pushed (a monitor is in place);
 *   otherwise only the poll notices them
 */
gboolean
pd_database_watcher_get_pushed (PdDatabaseWatcher *self)
{
  g_return_val_if_fail (PD_IS_DATABASE_WATCHER (self), FALSE);
  return self->monitors[0] != NULL && self->monitors[1] != NULL;
}

/**
 * pd_database_watcher_get_n_reads:
 *
 * Returns: how many times the data version was read (for tests and the
 *   idle benchmark)
 */
guint64
pd_database_watcher_get_n_reads (PdDatabaseWatcher *self)
{
  g_return_val_if_fail (PD_IS_DATABASE_WATCHER (self), 0);
  return self->n_reads;
}
