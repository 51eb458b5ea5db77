/* pd-import-watcher.c: follows the transcripts of the import index live.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-import"

#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "pd-import-index-private.h"
#include "pd-import-private.h"
#include "pd-import-watcher-private.h"
#include "pd-import-watcher.h"
#include "pd-task-util.h"

/* Events of one burst of writes are gathered this long before reading. */
#define SETTLE_MS 50
#define MONITOR_RATE_LIMIT_MS 200
/* The agents' root folders are followed this deep (Codex's date folders are
 * three levels down, a Cline task one) and at most this many folders, so a
 * huge tree cannot use up the system's inotify watches. */
#define ROOT_DEPTH 4
#define MAX_FOLDERS 1024

struct _PdImportWatcher
{
  GObject             parent_instance;

  PdImportIndex      *index;
  PdSessionStore     *store;
  GCancellable       *cancellable;
  GHashTable         *monitors;   /* path → GFileMonitor (files and folders) */
  GHashTable         *pending;    /* paths waiting to be read again → their lstat when queued */
  GStrv               roots;      /* the agents' root folders, followed for new folders */
  guint               n_folders;  /* folder monitors made under the roots */
  guint               settle_id;
  gboolean            busy;
  PdImportIndexStats  stats;
};

enum {
  CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (PdImportWatcher, pd_import_watcher, G_TYPE_OBJECT)

static void
pd_import_watcher_dispose (GObject *object)
{
  PdImportWatcher *self = PD_IMPORT_WATCHER (object);

  pd_import_watcher_stop (self);

  G_OBJECT_CLASS (pd_import_watcher_parent_class)->dispose (object);
}

static void
pd_import_watcher_finalize (GObject *object)
{
  PdImportWatcher *self = PD_IMPORT_WATCHER (object);

  g_clear_pointer (&self->monitors, g_hash_table_unref);
  g_clear_pointer (&self->pending, g_hash_table_unref);
  g_clear_pointer (&self->roots, g_strfreev);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->index);
  g_clear_object (&self->store);

  G_OBJECT_CLASS (pd_import_watcher_parent_class)->finalize (object);
}

static void
monitor_free (GFileMonitor *monitor)
{
  g_signal_handlers_disconnect_by_data (monitor, g_object_get_data (G_OBJECT (monitor), "pd-watcher"));
  g_file_monitor_cancel (monitor);
  g_object_unref (monitor);
}

static void
pd_import_watcher_class_init (PdImportWatcherClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = pd_import_watcher_dispose;
  object_class->finalize = pd_import_watcher_finalize;

  /**
   * PdImportWatcher::changed:
   * @session_id: the imported session whose row was updated
   *
   * A watched transcript changed and its session row (counts, times) was
   * rewritten.  Reload its checklist with pd_import_index_load_checklist().
   */
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                   0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
}

static void
pd_import_watcher_init (PdImportWatcher *self)
{
  self->cancellable = g_cancellable_new ();
  self->monitors = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) monitor_free);
  self->pending = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

PdImportWatcher *
pd_import_watcher_new (PdImportIndex  *index,
                       PdSessionStore *store)
{
  PdImportWatcher *self;

  g_return_val_if_fail (PD_IS_IMPORT_INDEX (index), NULL);
  g_return_val_if_fail (PD_IS_SESSION_STORE (store), NULL);

  self = g_object_new (PD_TYPE_IMPORT_WATCHER, NULL);
  self->index = g_object_ref (index);
  self->store = g_object_ref (store);
  return self;
}

void
pd_import_watcher_stop (PdImportWatcher *self)
{
  g_return_if_fail (PD_IS_IMPORT_WATCHER (self));

  /* Removing a monitor can deliver the changes the others still held: the
   * cancellable goes first, so _pd_import_watcher_queue_path() takes none of
   * them, and the settle timeout goes last. */
  g_cancellable_cancel (self->cancellable);
  if (self->monitors)
    g_hash_table_remove_all (self->monitors);
  g_clear_handle_id (&self->settle_id, g_source_remove);
  if (self->pending)
    g_hash_table_remove_all (self->pending);
}

guint
pd_import_watcher_get_n_watched (PdImportWatcher *self)
{
  g_return_val_if_fail (PD_IS_IMPORT_WATCHER (self), 0);
  return g_hash_table_size (self->monitors);
}

void
pd_import_watcher_get_stats (PdImportWatcher    *self,
                             PdImportIndexStats *stats)
{
  g_return_if_fail (PD_IS_IMPORT_WATCHER (self));
  g_return_if_fail (stats != NULL);
  *stats = self->stats;
}

/* ---------------------------------------------------------------------- */
/* Reading what changed                                                   */

typedef struct
{
  GPtrArray          *paths;
  GHashTable         *queued;  /* path → its lstat when queued (struct stat) */
  GPtrArray          *ids;
  PdImportIndexStats  stats;
} Update;

/* For the tests: called on the update thread with each path just before it
 * is read, where a swap of the name would land. */
static PdImportWatcherReadHook read_hook;
static gpointer read_hook_data;

void
_pd_import_watcher_set_read_hook (PdImportWatcherReadHook hook,
                                  gpointer                user_data)
{
  read_hook = hook;
  read_hook_data = user_data;
}

static void
update_free (Update *update)
{
  g_clear_pointer (&update->queued, g_hash_table_unref);
  g_clear_pointer (&update->paths, g_ptr_array_unref);
  g_clear_pointer (&update->ids, g_ptr_array_unref);
  g_free (update);
}

static void
update_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  PdImportWatcher *self = source_object;
  Update *update = task_data;

  for (guint i = 0; i < update->paths->len; i++)
    {
      const char *path = g_ptr_array_index (update->paths, i);
      PdImportIndexStats stats = { 0 };
      g_autoptr(GError) error = NULL;

      if (read_hook != NULL)
        read_hook (path, read_hook_data);
      /* A name made a link since it was queued (a folder swapped for a
       * link within the settle delay; tried as an attacker would) is
       * passed over, as a link made at once is: read only as what was
       * queued, a folder opened by descriptor without following a link
       * and checked against it.  A check of the name here and a read of
       * it later could be raced. */
      if (!_pd_import_index_update_file (self->index, self->store, path, g_hash_table_lookup (update->queued, path),
                                         update->ids, &stats, cancellable, &error))
        {
          if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            break;
          g_debug ("Could not index a changed transcript: %s", error->message);
        }
      update->stats.transcripts += stats.transcripts;
      update->stats.unchanged += stats.unchanged;
      update->stats.sessions_unchanged += stats.sessions_unchanged;
      update->stats.read_full += stats.read_full;
      update->stats.read_appended += stats.read_appended;
      update->stats.failed += stats.failed;
      update->stats.sessions_added += stats.sessions_added;
      update->stats.sessions_updated += stats.sessions_updated;
      update->stats.bytes_read += stats.bytes_read;
      update->stats.lines_read += stats.lines_read;
    }
  g_task_return_boolean (task, TRUE);
}

static void schedule (PdImportWatcher *self);
static void watch_path (PdImportWatcher *self, const char *path, gboolean is_dir);
static void watch_folder (PdImportWatcher *self, const char *path, guint depth_left);

static void
update_done (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  PdImportWatcher *self = PD_IMPORT_WATCHER (object);
  Update *update = g_task_get_task_data (G_TASK (result));
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  self->busy = FALSE;
  if (g_cancellable_is_cancelled (self->cancellable))
    return;

  self->stats.transcripts += update->stats.transcripts;
  self->stats.unchanged += update->stats.unchanged;
  self->stats.sessions_unchanged += update->stats.sessions_unchanged;
  self->stats.read_full += update->stats.read_full;
  self->stats.read_appended += update->stats.read_appended;
  self->stats.failed += update->stats.failed;
  self->stats.sessions_added += update->stats.sessions_added;
  self->stats.sessions_updated += update->stats.sessions_updated;
  self->stats.bytes_read += update->stats.bytes_read;
  self->stats.lines_read += update->stats.lines_read;

  /* A new transcript of a watched folder is followed from now on. */
  for (guint i = 0; i < update->paths->len; i++)
    {
      const char *path = g_ptr_array_index (update->paths, i);
      g_autoptr(GDir) dir = NULL;
      const char *name;

      if (!g_hash_table_contains (self->monitors, path) && g_file_test (path, G_FILE_TEST_IS_REGULAR))
        watch_path (self, path, FALSE);
      /* A new folder read whole: its transcripts are followed too. */
      else if (!g_file_test (path, G_FILE_TEST_IS_SYMLINK) && g_file_test (path, G_FILE_TEST_IS_DIR) &&
               (dir = g_dir_open (path, 0, NULL)))
        while ((name = g_dir_read_name (dir)))
          {
            g_autofree char *child = g_build_filename (path, name, NULL);

            if ((g_str_has_suffix (name, ".jsonl") || _pd_import_is_document_name (path, name))
                && !g_hash_table_contains (self->monitors, child)
                && !g_file_test (child, G_FILE_TEST_IS_SYMLINK)
                && g_file_test (child, G_FILE_TEST_IS_REGULAR))
              watch_path (self, child, FALSE);
          }
    }

  for (guint i = 0; i < update->ids->len; i++)
    {
      const char *id = g_ptr_array_index (update->ids, i);
      if (g_hash_table_add (seen, (gpointer) id))
        g_signal_emit (self, signals[CHANGED], 0, id);
    }

  if (g_hash_table_size (self->pending) > 0)
    schedule (self);
}

static gboolean
settle_cb (gpointer user_data)
{
  PdImportWatcher *self = user_data;
  g_autoptr(GTask) task = NULL;
  Update *update;
  GHashTableIter iter;
  gpointer key;
  gpointer value;

  self->settle_id = 0;
  if (self->busy)
    return G_SOURCE_REMOVE;  /* update_done schedules again */

  update = g_new0 (Update, 1);
  update->paths = g_ptr_array_new_with_free_func (g_free);
  update->ids = g_ptr_array_new_with_free_func (g_free);
  /* The paths' names are the array's; the table only points at them. */
  update->queued = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_hash_table_iter_init (&iter, self->pending);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_ptr_array_add (update->paths, key);
      g_hash_table_insert (update->queued, key, value);
      g_hash_table_iter_steal (&iter);
    }
  _pd_import_sort_names (update->paths);

  self->busy = TRUE;
  task = g_task_new (self, self->cancellable, update_done, NULL);
  g_task_set_source_tag (task, settle_cb);
  g_task_set_task_data (task, update, (GDestroyNotify) update_free);
  g_task_run_in_thread (task, update_thread);
  return G_SOURCE_REMOVE;
}

static void
schedule (PdImportWatcher *self)
{
  if (self->settle_id == 0 && !self->busy)
    self->settle_id = g_timeout_add (SETTLE_MS, settle_cb, self);
}

void
_pd_import_watcher_queue_path (PdImportWatcher *self,
                               const char      *path)
{
  struct stat st;

  g_return_if_fail (PD_IS_IMPORT_WATCHER (self));
  g_return_if_fail (path != NULL);

  if (g_cancellable_is_cancelled (self->cancellable))
    return;
  /* What the name is now, to be read as that alone; a link, or a name
   * gone already, is not read. */
  if (lstat (path, &st) != 0 || S_ISLNK (st.st_mode))
    return;
  g_hash_table_replace (self->pending, g_strdup (path), g_memdup2 (&st, sizeof st));
  schedule (self);
}

static void
file_changed_cb (GFileMonitor      *monitor,
                 GFile             *file,
                 GFile             *other,
                 GFileMonitorEvent  event,
                 gpointer           user_data)
{
  PdImportWatcher *self = user_data;
  g_autofree char *path = g_file_get_path (file);

  if (path == NULL)
    return;
  switch (event)
    {
    case G_FILE_MONITOR_EVENT_CHANGED:
    case G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT:
    case G_FILE_MONITOR_EVENT_CREATED:
      _pd_import_watcher_queue_path (self, path);
      break;
    case G_FILE_MONITOR_EVENT_DELETED:
    case G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED:
    case G_FILE_MONITOR_EVENT_PRE_UNMOUNT:
    case G_FILE_MONITOR_EVENT_UNMOUNTED:
    case G_FILE_MONITOR_EVENT_MOVED:
    case G_FILE_MONITOR_EVENT_RENAMED:
    case G_FILE_MONITOR_EVENT_MOVED_IN:
    case G_FILE_MONITOR_EVENT_MOVED_OUT:
    default:
      break;
    }
}

/* A folder: new transcripts appear in it. */
static void
dir_changed_cb (GFileMonitor      *monitor,
                GFile             *file,
                GFile             *other,
                GFileMonitorEvent  event,
                gpointer           user_data)
{
  PdImportWatcher *self = user_data;
  GFile *target = event == G_FILE_MONITOR_EVENT_RENAMED ? other : file;
  g_autofree char *path = target ? g_file_get_path (target) : NULL;

  if (path == NULL || g_hash_table_contains (self->monitors, path))
    return;
  /* Links are not followed, as the import and the walk at the start pass
   * them over: a link to a watched folder would bring each of its
   * transcripts in a second time, under a second name. */
  if (g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    return;

  /* A new folder under a root (a Cline task, a project's folder, a day of
   * Codex sessions): followed from now on, and read for what was written
   * into it before its monitor was made. */
  if ((event == G_FILE_MONITOR_EVENT_CREATED || event == G_FILE_MONITOR_EVENT_MOVED_IN
       || event == G_FILE_MONITOR_EVENT_RENAMED)
      && g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      guint depth_left = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (monitor), "pd-depth-left"));

      if (depth_left > 0)
        {
          watch_folder (self, path, depth_left - 1);
          _pd_import_watcher_queue_path (self, path);
        }
      return;
    }
  if (!g_str_has_suffix (path, ".jsonl"))
    {
      g_autofree char *dir = g_path_get_dirname (path);
      g_autofree char *name = g_path_get_basename (path);

      /* Whole documents too (Gemini CLI's older sessions). */
      if (!_pd_import_is_document_name (dir, name))
        return;
    }
  if (event == G_FILE_MONITOR_EVENT_CREATED || event == G_FILE_MONITOR_EVENT_MOVED_IN
      || event == G_FILE_MONITOR_EVENT_RENAMED || event == G_FILE_MONITOR_EVENT_CHANGES_DONE_HINT)
    _pd_import_watcher_queue_path (self, path);
}

static void
watch_path (PdImportWatcher *self,
            const char      *path,
            gboolean         is_dir)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  GFileMonitor *monitor;

  if (g_cancellable_is_cancelled (self->cancellable) || g_hash_table_contains (self->monitors, path))
    return;
  monitor = is_dir ? g_file_monitor_directory (file, G_FILE_MONITOR_WATCH_MOVES, NULL, &error)
                   : g_file_monitor_file (file, G_FILE_MONITOR_NONE, NULL, &error);
  if (monitor == NULL)
    {
      g_debug ("Cannot follow %s: %s", path, error->message);
      return;
    }
  g_file_monitor_set_rate_limit (monitor, MONITOR_RATE_LIMIT_MS);
  g_object_set_data (G_OBJECT (monitor), "pd-watcher", self);
  g_signal_connect (monitor, "changed", is_dir ? G_CALLBACK (dir_changed_cb) : G_CALLBACK (file_changed_cb), self);
  g_hash_table_insert (self->monitors, g_strdup (path), monitor);

  /* The folder of a transcript, for new transcripts beside it. */
  if (!is_dir)
    {
      g_autofree char *dir = g_path_get_dirname (path);
      watch_path (self, dir, TRUE);
    }
}

gboolean
pd_import_watcher_watch (PdImportWatcher  *self,
                         const char       *path,
                         GError          **error)
{
  g_autofree char *canonical = NULL;

  g_return_val_if_fail (PD_IS_IMPORT_WATCHER (self), FALSE);
  g_return_val_if_fail (path != NULL, FALSE);

  if (g_cancellable_set_error_if_cancelled (self->cancellable, error))
    return FALSE;
  canonical = g_canonicalize_filename (path, NULL);
  if (!g_file_test (canonical, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s does not exist", canonical);
      return FALSE;
    }
  watch_path (self, canonical, g_file_test (canonical, G_FILE_TEST_IS_DIR));
  return TRUE;
}

/* A folder under a root and its subfolders, @depth_left levels further
 * down, each followed for new transcripts and new folders. */
static void
watch_folder (PdImportWatcher *self,
              const char      *path,
              guint            depth_left)
{
  g_autoptr(GDir) dir = NULL;
  GFileMonitor *monitor;
  const char *name;

  if (self->n_folders >= MAX_FOLDERS || g_hash_table_contains (self->monitors, path))
    return;
  watch_path (self, path, TRUE);
  if (!(monitor = g_hash_table_lookup (self->monitors, path)))
    return;
  self->n_folders++;
  g_object_set_data (G_OBJECT (monitor), "pd-depth-left", GUINT_TO_POINTER (depth_left));
  if (depth_left == 0 || !(dir = g_dir_open (path, 0, NULL)))
    return;
  while ((name = g_dir_read_name (dir)))
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      /* Links are not followed, as the import passes them over. */
      if (!g_file_test (child, G_FILE_TEST_IS_SYMLINK) && g_file_test (child, G_FILE_TEST_IS_DIR))
        watch_folder (self, child, depth_left - 1);
    }
}

void
pd_import_watcher_set_roots (PdImportWatcher    *self,
                             const char * const *roots)
{
  g_return_if_fail (PD_IS_IMPORT_WATCHER (self));

  g_clear_pointer (&self->roots, g_strfreev);
  self->roots = g_strdupv ((char **) roots);
}

/* ---------------------------------------------------------------------- */
/* Starting                                                               */

/* A folder found by the walk at start, in the order the walk met it. */
typedef struct
{
  char  *path;
  guint  depth_left;
  gint   parent;      /* the folder it was found in (an index), or -1 for a root */
} WalkFolder;

/* What the start reads on the worker: the folders under the roots and the
 * index's transcripts still there.  The watches are made from it on the
 * main context (GFileMonitor is made and delivers there); reading the
 * folders there held the first frames (the fixture home: 16 folders
 * opened, 17 ms). */
typedef struct
{
  GArray    *folders;  /* (element-type WalkFolder) */
  GPtrArray *files;    /* (element-type utf8) */
} StartList;

static PdImportWatcherWalkHook walk_hook;
static gpointer walk_hook_data;

void
_pd_import_watcher_set_walk_hook (PdImportWatcherWalkHook hook,
                                  gpointer                user_data)
{
  walk_hook = hook;
  walk_hook_data = user_data;
}

static void
walk_folder_clear (WalkFolder *folder)
{
  g_free (folder->path);
}

static void
start_list_free (StartList *list)
{
  g_clear_pointer (&list->folders, g_array_unref);
  g_clear_pointer (&list->files, g_ptr_array_unref);
  g_free (list);
}

/* As watch_folder() walks, on the worker: each folder once, at most
 * MAX_FOLDERS, links passed over. */
static void
walk_folder (GArray     *folders,
             GHashTable *seen,
             const char *path,
             guint       depth_left,
             gint        parent)
{
  g_autoptr(GDir) dir = NULL;
  WalkFolder folder;
  const char *name;
  gint index;

  if (folders->len >= MAX_FOLDERS || !g_hash_table_add (seen, g_strdup (path)))
    return;
  index = folders->len;
  folder.path = g_strdup (path);
  folder.depth_left = depth_left;
  folder.parent = parent;
  g_array_append_val (folders, folder);
  if (depth_left == 0)
    return;
  if (walk_hook != NULL)
    walk_hook (path, walk_hook_data);
  if (!(dir = g_dir_open (path, 0, NULL)))
    return;
  while ((name = g_dir_read_name (dir)))
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      /* Links are not followed, as the import passes them over. */
      if (!g_file_test (child, G_FILE_TEST_IS_SYMLINK) && g_file_test (child, G_FILE_TEST_IS_DIR))
        walk_folder (folders, seen, child, depth_left - 1, index);
    }
}

static gpointer
list_worker (gpointer       source_object,
             gpointer       task_data,
             GCancellable  *cancellable,
             GError       **error)
{
  const char * const *roots = task_data;
  PdImportWatcher *self = source_object;
  g_autoptr(GPtrArray) paths = NULL;
  g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  StartList *list;

  if (!(paths = _pd_import_index_list_paths (self->store, error)))
    return NULL;
  list = g_new0 (StartList, 1);
  list->folders = g_array_new (FALSE, FALSE, sizeof (WalkFolder));
  g_array_set_clear_func (list->folders, (GDestroyNotify) walk_folder_clear);
  list->files = g_ptr_array_new_with_free_func (g_free);
  /* The roots first: their folders then know how deep new ones are followed. */
  for (guint i = 0; roots && roots[i]; i++)
    if (g_file_test (roots[i], G_FILE_TEST_IS_DIR))
      walk_folder (list->folders, seen, roots[i], ROOT_DEPTH, -1);
  for (guint i = 0; i < paths->len; i++)
    if (g_file_test (g_ptr_array_index (paths, i), G_FILE_TEST_IS_REGULAR))
      g_ptr_array_add (list->files, g_strdup (g_ptr_array_index (paths, i)));
  return list;
}

static void
listed_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  PdImportWatcher *self = PD_IMPORT_WATCHER (object);
  g_autoptr(GTask) outer = user_data;
  StartList *list;
  g_autofree gboolean *made = NULL;
  GError *error = NULL;

  if (!(list = g_task_propagate_pointer (G_TASK (result), &error)))
    {
      g_task_return_error (outer, error);
      return;
    }
  if (g_task_return_error_if_cancelled (outer))
    {
      start_list_free (list);
      return;
    }
  /* The folders as watch_folder() would make them, in the walk's order: a
   * folder whose parent was not followed (no monitor, or followed already)
   * is not either. */
  made = g_new0 (gboolean, list->folders->len);
  for (guint i = 0; i < list->folders->len; i++)
    {
      WalkFolder *folder = &g_array_index (list->folders, WalkFolder, i);
      GFileMonitor *monitor;

      if ((folder->parent >= 0 && !made[folder->parent])
          || self->n_folders >= MAX_FOLDERS || g_hash_table_contains (self->monitors, folder->path))
        continue;
      watch_path (self, folder->path, TRUE);
      if (!(monitor = g_hash_table_lookup (self->monitors, folder->path)))
        continue;
      self->n_folders++;
      g_object_set_data (G_OBJECT (monitor), "pd-depth-left", GUINT_TO_POINTER (folder->depth_left));
      made[i] = TRUE;
    }
  for (guint i = 0; i < list->files->len; i++)
    watch_path (self, g_ptr_array_index (list->files, i), FALSE);
  start_list_free (list);
  g_task_return_boolean (outer, TRUE);
}

void
pd_import_watcher_start_async (PdImportWatcher     *self,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_autoptr(GTask) inner = NULL;
  GTask *outer;

  g_return_if_fail (PD_IS_IMPORT_WATCHER (self));

  outer = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (outer, pd_import_watcher_start_async);
  inner = g_task_new (self, cancellable, listed_cb, outer);
  g_task_set_task_data (inner, g_strdupv (self->roots), (GDestroyNotify) g_strfreev);
  pd_task_run_worker (inner, list_worker, (GDestroyNotify) start_list_free);
}

gboolean
pd_import_watcher_start_finish (PdImportWatcher  *self,
                                GAsyncResult     *result,
                                GError          **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
