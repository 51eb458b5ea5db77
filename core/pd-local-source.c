/* pd-local-source.c: a PdSource over a session database file.
 *
 * It lives in core/ rather than core/store/ because it also serves the
 * checklists of imported sessions, through core/import (which builds on
 * the store).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-source"

#include "config.h"

#include "pd-database-watcher.h"
#include "pd-event-bus.h"
#include "pd-import-index.h"
#include "pd-import-scanner.h"
#include "pd-import-watcher.h"
#include "pd-local-source.h"
#include "pd-plan.h"
#include "pd-session-reads.h"
#include "pd-task-util.h"

struct _PdLocalSource
{
  GObject         parent_instance;

  char           *path;
  char           *title;
  gboolean        create;

  GMutex          mutex;
  PdSessionStore *store;          /* opened on first use, in a worker */

  /* Commits of other connections (a CLI run, the demo, a run of the
   * window, serve): pushed by a file monitor, polled as a fallback. */
  PdDatabaseWatcher *watcher;

  /* Following the imported transcripts as their agents append to them. */
  PdImportWatcher *transcripts;
  GCancellable    *follow_cancellable;

  /* The event buses of this process's writers (the demo, a run of the
   * window): their events say at once that a session changed, file
   * monitor or not.  Each a FollowedBus. */
  GPtrArray       *buses;
  GSource         *bus_idle;      /* one ::changed for a burst of events */
};

typedef struct
{
  PdEventBus *bus;
  guint       listener;
} FollowedBus;

static void
followed_bus_free (FollowedBus *followed)
{
  pd_event_bus_remove_listener (followed->bus, followed->listener);
  g_object_unref (followed->bus);
  g_free (followed);
}

static void source_iface_init (PdSourceInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (PdLocalSource, pd_local_source, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (PD_TYPE_SOURCE, source_iface_init))

typedef enum
{
  OP_LIST,
  OP_GET,
  OP_PLAN,
  OP_HISTORY,
  OP_MESSAGES,
  OP_MESSAGES_PART,
  OP_MESSAGES_SINCE,
  OP_EVENTS,
  OP_LATEST_EVENTS,
  OP_USAGE,
  OP_UPDATE,
  OP_DELETE,
  OP_CHECKLIST,
  OP_SAVE_CHECKLIST,
  OP_RESUME,
  OP_IMPORT,
} OpKind;

typedef struct
{
  OpKind    kind;
  char     *id;
  char     *query;
  char     *name;
  gboolean  full_text;
  guint     offset;
  guint     limit;
  gint64    after_seq;
  guint64   since;     /* OP_MESSAGES_SINCE: the first message asked for */
  GStrv     types;
  int       pinned;
  PdChecklist *checklist;  /* OP_SAVE_CHECKLIST: a snapshot owned by the worker */
  /* The source, held until the task ends and let go of on the context the
   * op was started from (see start_op()). */
  PdLocalSource *owner;
  GMainContext  *context;
  GThread       *thread;
} Op;

/* What OP_CHECKLIST returns. */
typedef struct
{
  PdChecklist *checklist;
  GPtrArray   *plans;      /* (element-type PdArtifactPlan) */
} ChecklistResult;

static void
checklist_result_free (ChecklistResult *result)
{
  g_clear_object (&result->checklist);
  g_clear_pointer (&result->plans, g_ptr_array_unref);
  g_free (result);
}

/* What OP_MESSAGES_PART and OP_MESSAGES_SINCE return. */
typedef struct
{
  JsonArray *messages;
  guint64    first;
  guint64    total;
  guint64    lineage;
} PartResult;

static void
part_result_free (PartResult *result)
{
  g_clear_pointer (&result->messages, json_array_unref);
  g_free (result);
}

typedef PartResult PdLocalSourcePart;
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdLocalSourcePart, part_result_free)

static gboolean
unref_owner (gpointer owner)
{
  g_object_unref (owner);
  return G_SOURCE_REMOVE;
}

static void
op_free (Op *op)
{
  g_free (op->id);
  g_free (op->query);
  g_free (op->name);
  g_strfreev (op->types);
  g_clear_object (&op->checklist);
  /* Freed with its task, maybe on the worker: the source's reference goes
   * back to its own thread, so it is never disposed here. */
  if (op->owner != NULL && g_thread_self () == op->thread)
    g_object_unref (op->owner);
  else if (op->owner != NULL)
    {
      /* Not g_main_context_invoke(): a worker may acquire the context
       * between two of its iterations and call the function itself. */
      GSource *idle = g_idle_source_new ();

      g_source_set_callback (idle, unref_owner, op->owner, NULL);
      g_source_set_name (idle, "[pd] local source: let go");
      g_source_attach (idle, op->context);
      g_source_unref (idle);
    }
  g_clear_pointer (&op->context, g_main_context_unref);
  g_free (op);
}

static void
pd_local_source_dispose (GObject *object)
{
  PdLocalSource *self = (PdLocalSource *) object;

  pd_local_source_watch (self, 0);
  pd_local_source_follow_transcripts (self, FALSE);
  /* No listener is called after it is removed, so no idle comes after. */
  g_ptr_array_set_size (self->buses, 0);
  if (self->bus_idle != NULL)
    g_source_destroy (self->bus_idle);
  g_clear_pointer (&self->bus_idle, g_source_unref);

  G_OBJECT_CLASS (pd_local_source_parent_class)->dispose (object);
}

static void
pd_local_source_finalize (GObject *object)
{
  PdLocalSource *self = (PdLocalSource *) object;

  g_clear_object (&self->store);
  g_ptr_array_unref (self->buses);
  g_free (self->path);
  g_free (self->title);
  g_mutex_clear (&self->mutex);

  G_OBJECT_CLASS (pd_local_source_parent_class)->finalize (object);
}

static void
pd_local_source_class_init (PdLocalSourceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = pd_local_source_dispose;
  object_class->finalize = pd_local_source_finalize;
}

static void
pd_local_source_init (PdLocalSource *self)
{
  g_mutex_init (&self->mutex);
  self->buses = g_ptr_array_new_with_free_func ((GDestroyNotify) followed_bus_free);
}

/**
 * pd_local_source_new:
 * @path: the database file
 * @create: create it when missing (the default database is)
 */
PdLocalSource *
pd_local_source_new (const char *path,
                     gboolean    create)
{
  PdLocalSource *self = g_object_new (PD_TYPE_LOCAL_SOURCE, NULL);

  self->path = g_strdup (path);
  self->title = g_filename_display_name (path);
  self->create = create;

  return self;
}

const char *
pd_local_source_get_path (PdLocalSource *self)
{
  g_return_val_if_fail (PD_IS_LOCAL_SOURCE (self), NULL);
  return self->path;
}

/**
 * pd_local_source_open_store:
 *
 * Opens the database once (blocking: call it from a worker thread) and
 * returns the shared session store.
 *
 * Returns: (transfer full): the store, or %NULL with @error set
 */
PdSessionStore *
pd_local_source_open_store (PdLocalSource  *self,
                            GError        **error)
{
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new (&self->mutex);

  if (self->store == NULL)
    {
      g_autoptr(PdDb) db = NULL;

      if (self->create)
        {
          g_autofree char *dir = g_path_get_dirname (self->path);
          g_mkdir_with_parents (dir, 0700);
        }

      db = pd_db_open (self->path, self->create ? PD_DB_CREATE : PD_DB_NONE, error);
      if (db == NULL)
        return NULL;
      self->store = pd_session_store_new (db);
    }

  return g_object_ref (self->store);
}

static void
set_source_error (GTask  *task,
                  GError *error)
{
  if (g_error_matches (error, PD_DB_ERROR, PD_DB_ERROR_NOT_FOUND))
    g_task_return_new_error (task, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND, "%s", error->message);
  else
    g_task_return_new_error (task, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE, "%s", error->message);
  g_error_free (error);
}

static void
run_op (GTask        *task,
        gpointer      source_object,
        gpointer      task_data,
        GCancellable *cancellable)
{
  PdLocalSource *self = source_object;
  Op *op = task_data;
  GError *error = NULL;
  g_autoptr(PdSessionStore) store = pd_local_source_open_store (self, &error);

  if (store == NULL)
    {
      /* Whatever the reason, the source as a whole is not there. */
      g_task_return_new_error (task, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE, "%s", error->message);
      g_error_free (error);
      return;
    }

  switch (op->kind)
    {
    case OP_LIST:
      {
        guint total = 0;
        GPtrArray *sessions = pd_session_store_list (store, op->query, op->full_text, op->offset, op->limit, &total, &error);

        if (sessions == NULL)
          set_source_error (task, error);
        else
          g_task_return_pointer (task, pd_session_page_new (sessions, total), (GDestroyNotify) pd_session_page_free);
      }
      break;

    case OP_GET:
      {
        PdSessionInfo *info = pd_session_reads_get (store, op->id, &error);

        if (info == NULL)
          set_source_error (task, error);
        else
          g_task_return_pointer (task, info, (GDestroyNotify) pd_session_info_free);
      }
      break;

    case OP_PLAN:
      {
        PdPlanState *state = NULL;

        if (!pd_session_reads_get_plan (store, op->id, &state, &error))
          set_source_error (task, error);
        else if (state == NULL)
          g_task_return_pointer (task, NULL, NULL);
        else
          g_task_return_pointer (task, state, (GDestroyNotify) pd_plan_state_free);
      }
      break;

    case OP_HISTORY:
      {
        GPtrArray *versions = pd_session_reads_list_plan_versions (store, op->id, &error);

        if (versions == NULL)
          set_source_error (task, error);
        else
          g_task_return_pointer (task, versions, (GDestroyNotify) g_ptr_array_unref);
      }
      break;

    case OP_MESSAGES:
      {
        JsonArray *messages = pd_session_reads_load_messages (store, op->id, &error);

        if (messages == NULL)
          set_source_error (task, error);
        else
          g_task_return_pointer (task, messages, (GDestroyNotify) json_array_unref);
      }
      break;

    case OP_MESSAGES_PART:
    case OP_MESSAGES_SINCE:
      {
        PartResult *part = g_new0 (PartResult, 1);

        /* op->after_seq: the message before which the part ends; since,
         * op->since the first message asked for and op->after_seq the
         * lineage of the last reply. */
        part->messages = op->kind == OP_MESSAGES_SINCE
          ? pd_session_reads_load_messages_since (store, op->id, op->since, (guint64) op->after_seq,
                                                  PD_SESSION_READS_PART_MAX, &part->first, &part->total,
                                                  &part->lineage, cancellable, &error)
          : pd_session_reads_load_messages_part (store, op->id, op->after_seq, PD_SESSION_READS_PART_MAX,
                                                 &part->first, &part->total, cancellable, &error);
        if (part->messages == NULL)
          {
            part_result_free (part);
            if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
              g_task_return_error (task, error);
            else
              set_source_error (task, error);
          }
        else
          g_task_return_pointer (task, part, (GDestroyNotify) part_result_free);
      }
      break;

    case OP_EVENTS:
      {
        GPtrArray *events = pd_session_reads_list_events (store, op->id, NULL, op->after_seq, op->limit, &error);

        if (events == NULL)
          set_source_error (task, error);
        else
          g_task_return_pointer (task, events, (GDestroyNotify) g_ptr_array_unref);
      }
      break;

    case OP_LATEST_EVENTS:
      {
        /* op->after_seq: the event before which the page ends. */
        GPtrArray *events = pd_session_reads_list_latest_events (store, op->id, op->after_seq,
                                                                 (const char * const *) op->types, op->limit,
                                                                 &error);

        if (events == NULL)
          set_source_error (task, error);
        else
          g_task_return_pointer (task, events, (GDestroyNotify) g_ptr_array_unref);
      }
      break;

    case OP_USAGE:
      {
        /* A database keeps no live counters; report what it holds. */
        guint total = 0;
        g_autoptr(GPtrArray) sessions = pd_session_store_list (store, NULL, FALSE, 0, 1, &total, &error);
        JsonObject *usage;

        if (sessions == NULL)
          {
            set_source_error (task, error);
            break;
          }
        usage = json_object_new ();
        json_object_set_int_member (usage, "sessions", total);
        g_task_return_pointer (task, usage, (GDestroyNotify) json_object_unref);
      }
      break;

    case OP_UPDATE:
      if ((op->name != NULL && !pd_session_store_rename (store, op->id, op->name, &error)) ||
          (op->pinned >= 0 && !pd_session_store_set_pinned (store, op->id, op->pinned != 0, &error)))
        set_source_error (task, error);
      else
        g_task_return_boolean (task, TRUE);
      break;

    case OP_DELETE:
      if (!pd_session_store_delete (store, op->id, &error))
        set_source_error (task, error);
      else
        g_task_return_boolean (task, TRUE);
      break;

    case OP_CHECKLIST:
      {
        ChecklistResult *result = g_new0 (ChecklistResult, 1);

        /* Where the window follows appended transcripts: what was appended. */
        if (!(result->checklist = pd_import_index_load_checklist_plans (store, op->id, &result->plans, NULL,
                                                                         &error)))
          {
            checklist_result_free (result);
            set_source_error (task, error);
            break;
          }
        g_task_return_pointer (task, result, (GDestroyNotify) checklist_result_free);
      }
      break;

    case OP_SAVE_CHECKLIST:
      if (!pd_import_index_save_annotations (store, op->id, op->checklist, &error))
        set_source_error (task, error);
      else
        g_task_return_boolean (task, TRUE);
      break;

    case OP_RESUME:
      {
        g_auto(GStrv) argv = NULL;
        g_autofree char *workdir = NULL;

        g_autoptr(PdSessionInfo) info = NULL;

        if (pd_session_reads_get_resume (store, op->id, &argv, &workdir, &error))
          g_task_return_pointer (task, pd_resume_command_new (g_steal_pointer (&argv), workdir),
                                 (GDestroyNotify) pd_resume_command_free);
        else if (error != NULL)
          set_source_error (task, error);
        /* An editor extension's task has no command: how to continue it
         * is said all the same (tried as a new user would, the page gave
         * no hint at all). */
        else if ((info = pd_session_reads_get (store, op->id, NULL)) != NULL && pd_session_info_is_imported (info)
                 && (g_strcmp0 (info->source, "cline") == 0 || g_strcmp0 (info->source, "roo") == 0
                     || g_strcmp0 (info->source, "kilo") == 0))
          g_task_return_pointer (task, pd_resume_command_new_in_editor (info->source, info->cwd),
                                 (GDestroyNotify) pd_resume_command_free);
        else
          g_task_return_pointer (task, NULL, NULL);
      }
      break;

    case OP_IMPORT:
      {
        g_autoptr(PdImportIndex) index = pd_import_index_new ();
        PdImportIndexStats stats = { 0 };

        if (pd_import_index_run (index, store, NULL, &stats, &error))
          {
            PdImportCounts *counts = g_new0 (PdImportCounts, 1);

            counts->transcripts = stats.transcripts;
            counts->sessions_added = stats.sessions_added;
            counts->sessions_updated = stats.sessions_updated;
            counts->unchanged = stats.unchanged;
            counts->sessions_unchanged = stats.sessions_unchanged;
            counts->failed = stats.failed;
            counts->skipped = stats.skipped;
            g_task_return_pointer (task, counts, g_free);
          }
        else
          g_task_return_error (task, error);
      }
      break;

    default:
      g_assert_not_reached ();
    }
}

static void
start_op (PdLocalSource       *self,
          Op                  *op,
          gpointer             source_tag,
          GCancellable        *cancellable,
          GAsyncReadyCallback  callback,
          gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

  /* The task's own reference to the source may be the last, and the task
   * may end on the worker once the result is taken: the window closed, or
   * a test's tear-down, while a read was running.  The source was then
   * disposed on the worker (its watchers' monitors and sources, its buses)
   * while the main loop dispatched them (a SIGSEGV seen once in the
   * Overview's core test).  The op holds one more, let go of here. */
  op->owner = g_object_ref (self);
  op->context = g_main_context_ref_thread_default ();
  op->thread = g_thread_self ();
  g_task_set_source_tag (task, source_tag);
  g_task_set_task_data (task, op, (GDestroyNotify) op_free);
  g_task_run_in_thread (task, run_op);
}

static Op *
op_new (OpKind      kind,
        const char *id)
{
  Op *op = g_new0 (Op, 1);

  op->kind = kind;
  op->id = g_strdup (id);
  op->pinned = -1;
  return op;
}

static const char *
local_get_title (PdSource *source)
{
  return PD_LOCAL_SOURCE (source)->title;
}

static const char *
local_get_kind (PdSource *source)
{
  return "local";
}

static void
local_list_sessions_async (PdSource *source, const char *query, gboolean full_text, guint offset, guint limit,
                           GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  Op *op = op_new (OP_LIST, NULL);

  op->query = g_strdup (query);
  op->full_text = full_text;
  op->offset = offset;
  op->limit = limit;
  start_op (PD_LOCAL_SOURCE (source), op, local_list_sessions_async, cancellable, callback, user_data);
}

static void
local_get_session_async (PdSource *source, const char *id, GCancellable *cancellable,
                         GAsyncReadyCallback callback, gpointer user_data)
{
  start_op (PD_LOCAL_SOURCE (source), op_new (OP_GET, id), local_get_session_async, cancellable, callback, user_data);
}

static void
local_get_plan_async (PdSource *source, const char *id, GCancellable *cancellable,
                      GAsyncReadyCallback callback, gpointer user_data)
{
  start_op (PD_LOCAL_SOURCE (source), op_new (OP_PLAN, id), local_get_plan_async, cancellable, callback, user_data);
}

static void
local_get_plan_history_async (PdSource *source, const char *id, GCancellable *cancellable,
                              GAsyncReadyCallback callback, gpointer user_data)
{
  start_op (PD_LOCAL_SOURCE (source), op_new (OP_HISTORY, id), local_get_plan_history_async, cancellable, callback, user_data);
}

static void
local_get_messages_async (PdSource *source, const char *id, GCancellable *cancellable,
                          GAsyncReadyCallback callback, gpointer user_data)
{
  start_op (PD_LOCAL_SOURCE (source), op_new (OP_MESSAGES, id), local_get_messages_async, cancellable, callback, user_data);
}

static void
local_get_messages_part_async (PdSource *source, const char *id, gint64 before, GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data)
{
  Op *op = op_new (OP_MESSAGES_PART, id);

  op->after_seq = before;
  start_op (PD_LOCAL_SOURCE (source), op, local_get_messages_part_async, cancellable, callback, user_data);
}

static JsonArray *local_get_messages_since_finish (PdSource *source, GAsyncResult *result, guint64 *first,
                                                   guint64 *total, guint64 *lineage, GError **error);

static JsonArray *
local_get_messages_part_finish (PdSource *source, GAsyncResult *result, guint64 *first, guint64 *total,
                                GError **error)
{
  guint64 lineage;

  return local_get_messages_since_finish (source, result, first, total, &lineage, error);
}

static void
local_get_messages_since_async (PdSource *source, const char *id, guint64 from, guint64 lineage,
                                GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  Op *op = op_new (OP_MESSAGES_SINCE, id);

  op->since = from;
  op->after_seq = (gint64) lineage;
  start_op (PD_LOCAL_SOURCE (source), op, local_get_messages_since_async, cancellable, callback, user_data);
}

static JsonArray *
local_get_messages_since_finish (PdSource *source, GAsyncResult *result, guint64 *first, guint64 *total,
                                 guint64 *lineage, GError **error)
{
  g_autoptr(PdLocalSourcePart) part = g_task_propagate_pointer (G_TASK (result), error);

  if (part == NULL)
    return NULL;
  *first = part->first;
  *total = part->total;
  *lineage = part->lineage;
  return g_steal_pointer (&part->messages);
}

static void
local_get_events_async (PdSource *source, const char *session_id, gint64 after_seq, guint limit,
                        GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  Op *op = op_new (OP_EVENTS, session_id);

  op->after_seq = after_seq;
  op->limit = limit;
  start_op (PD_LOCAL_SOURCE (source), op, local_get_events_async, cancellable, callback, user_data);
}

static void
local_get_latest_events_async (PdSource *source, const char *session_id, gint64 before_seq,
                               const char * const *types, guint limit, GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data)
{
  Op *op = op_new (OP_LATEST_EVENTS, session_id);

  op->after_seq = before_seq;
  op->types = g_strdupv ((char **) types);
  op->limit = limit;
  start_op (PD_LOCAL_SOURCE (source), op, local_get_latest_events_async, cancellable, callback, user_data);
}

static void
local_get_usage_async (PdSource *source, GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  start_op (PD_LOCAL_SOURCE (source), op_new (OP_USAGE, NULL), local_get_usage_async, cancellable, callback, user_data);
}

static void
local_update_session_async (PdSource *source, const char *id, const char *name, int pinned,
                            GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  Op *op = op_new (OP_UPDATE, id);

  op->name = g_strdup (name);
  op->pinned = pinned;
  start_op (PD_LOCAL_SOURCE (source), op, local_update_session_async, cancellable, callback, user_data);
}

static void
local_delete_session_async (PdSource *source, const char *id, GCancellable *cancellable,
                            GAsyncReadyCallback callback, gpointer user_data)
{
  start_op (PD_LOCAL_SOURCE (source), op_new (OP_DELETE, id), local_delete_session_async, cancellable, callback, user_data);
}

static void
local_get_checklist_async (PdSource *source, const char *session_id, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data)
{
  start_op (PD_LOCAL_SOURCE (source), op_new (OP_CHECKLIST, session_id), local_get_checklist_async,
            cancellable, callback, user_data);
}

static PdChecklist *
local_get_checklist_finish (PdSource *source, GAsyncResult *result, GPtrArray **plans, GError **error)
{
  ChecklistResult *value = g_task_propagate_pointer (G_TASK (result), error);
  PdChecklist *checklist;

  if (value == NULL)
    {
      if (plans)
        *plans = NULL;
      return NULL;
    }
  checklist = g_steal_pointer (&value->checklist);
  if (plans)
    *plans = g_steal_pointer (&value->plans);
  checklist_result_free (value);
  return checklist;
}

/* A copy for the worker, so the caller may go on changing its checklist:
 * the agent's items (in memory only) and the annotations. */
static PdChecklist *
snapshot_checklist (PdChecklist *checklist)
{
  PdChecklist *copy = pd_checklist_new ();
  GPtrArray *items = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_checklist_item_free);
  g_autoptr(JsonNode) annotations = pd_checklist_annotations_to_json (checklist);
  guint n = pd_checklist_get_n_agent_items (checklist);

  for (guint i = 0; i < n; i++)
    g_ptr_array_add (items, pd_checklist_item_copy (pd_checklist_get_agent_item (checklist, i)));
  if (n > 0)
    pd_checklist_replace_agent_items_cut (copy, pd_checklist_get_origin (checklist), items,
                                          pd_checklist_get_n_hidden_agent_items (checklist));
  else
    g_ptr_array_unref (items);
  pd_checklist_load_annotations (copy, annotations, NULL);
  return copy;
}

static void
local_save_checklist_async (PdSource *source, const char *session_id, PdChecklist *checklist,
                            GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  Op *op = op_new (OP_SAVE_CHECKLIST, session_id);

  op->checklist = snapshot_checklist (checklist);
  start_op (PD_LOCAL_SOURCE (source), op, local_save_checklist_async, cancellable, callback, user_data);
}

static gboolean
local_save_checklist_finish (PdSource *source, GAsyncResult *result, GError **error)
{
  /* No ::changed: the pill counts changed, but listeners of a checklist
   * already know; the session list notices through the data version. */
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
local_get_resume_command_async (PdSource *source, const char *session_id, GCancellable *cancellable,
                                GAsyncReadyCallback callback, gpointer user_data)
{
  start_op (PD_LOCAL_SOURCE (source), op_new (OP_RESUME, session_id), local_get_resume_command_async,
            cancellable, callback, user_data);
}

static void
local_import_transcripts_async (PdSource *source, GCancellable *cancellable,
                                GAsyncReadyCallback callback, gpointer user_data)
{
  start_op (PD_LOCAL_SOURCE (source), op_new (OP_IMPORT, NULL), local_import_transcripts_async,
            cancellable, callback, user_data);
}

static gboolean
local_import_transcripts_finish (PdSource *source, GAsyncResult *result, PdImportCounts *counts,
                                 GError **error)
{
  g_autofree PdImportCounts *value = g_task_propagate_pointer (G_TASK (result), error);

  if (value == NULL)
    return FALSE;
  if (counts != NULL)
    *counts = *value;
  /* The index wrote through this source's own connection, which the
   * data_version watch does not see: the views hear of it here. */
  pd_source_emit_changed (source);
  return TRUE;
}

static void
source_iface_init (PdSourceInterface *iface)
{
  iface->get_title = local_get_title;
  iface->get_kind = local_get_kind;
  iface->list_sessions_async = local_list_sessions_async;
  iface->get_session_async = local_get_session_async;
  iface->get_plan_async = local_get_plan_async;
  iface->get_plan_history_async = local_get_plan_history_async;
  iface->get_messages_async = local_get_messages_async;
  iface->get_messages_part_async = local_get_messages_part_async;
  iface->get_messages_part_finish = local_get_messages_part_finish;
  iface->get_messages_since_async = local_get_messages_since_async;
  iface->get_messages_since_finish = local_get_messages_since_finish;
  iface->get_latest_events_async = local_get_latest_events_async;
  iface->get_events_async = local_get_events_async;
  iface->get_usage_async = local_get_usage_async;
  iface->update_session_async = local_update_session_async;
  iface->delete_session_async = local_delete_session_async;
  iface->get_checklist_async = local_get_checklist_async;
  iface->get_checklist_finish = local_get_checklist_finish;
  iface->save_checklist_async = local_save_checklist_async;
  iface->save_checklist_finish = local_save_checklist_finish;
  iface->get_resume_command_async = local_get_resume_command_async;
  iface->import_transcripts_async = local_import_transcripts_async;
  iface->import_transcripts_finish = local_import_transcripts_finish;
}

/* --- following imported transcripts ------------------------------------- */

static void
on_transcript_changed (PdLocalSource *self,
                       const char    *session_id)
{
  /* The watcher wrote through this source's own connection, which the
   * data_version watch does not see: tell the views here. */
  pd_source_emit_changed (PD_SOURCE (self));
}

static void
on_follow_started (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!pd_import_watcher_start_finish (PD_IMPORT_WATCHER (object), result, &error) &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    g_debug ("Cannot follow the imported transcripts: %s", error->message);
}

static gpointer
open_store_worker (gpointer       source_object,
                   gpointer       task_data,
                   GCancellable  *cancellable,
                   GError       **error)
{
  return pd_local_source_open_store (PD_LOCAL_SOURCE (source_object), error);
}

static void
on_follow_store (GObject      *object,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  PdLocalSource *self = PD_LOCAL_SOURCE (object);
  g_autoptr(GError) error = NULL;
  g_autoptr(PdSessionStore) store = g_task_propagate_pointer (G_TASK (result), &error);
  g_autoptr(PdImportIndex) index = NULL;
  g_autoptr(PdImportScanner) scanner = NULL;
  g_auto(GStrv) roots = NULL;
  GCancellable *cancellable = g_task_get_cancellable (G_TASK (result));

  if (store == NULL || g_cancellable_is_cancelled (cancellable))
    return;

  /* Monitors belong to the main context: made here, not in the worker. */
  index = pd_import_index_new ();
  self->transcripts = pd_import_watcher_new (index, store);
  /* The agents' default folders, as the app's import reads them: a new
   * task or session there appears by itself. */
  scanner = pd_import_scanner_new ();
  roots = pd_import_scanner_dup_roots (scanner);
  pd_import_watcher_set_roots (self->transcripts, (const char * const *) roots);
  g_signal_connect_object (self->transcripts, "changed", G_CALLBACK (on_transcript_changed),
                           self, G_CONNECT_SWAPPED);
  pd_import_watcher_start_async (self->transcripts, cancellable, on_follow_started, NULL);
}

/**
 * pd_local_source_follow_transcripts:
 * @follow: %TRUE to follow, %FALSE to stop
 *
 * Follows the transcripts of the database's imported sessions (Claude
 * Code, Codex): when an agent appends to one, only the new bytes are read,
 * the session's counts are updated and ::changed is emitted, so a running
 * agent's checklist is live.  Calling it again with %TRUE starts over, so
 * the sessions of an import just made are followed too.
 */
void
pd_local_source_follow_transcripts (PdLocalSource *self,
                                    gboolean       follow)
{
  g_autoptr(GTask) task = NULL;

  g_return_if_fail (PD_IS_LOCAL_SOURCE (self));

  if (self->follow_cancellable != NULL)
    g_cancellable_cancel (self->follow_cancellable);
  g_clear_object (&self->follow_cancellable);
  if (self->transcripts != NULL)
    {
      /* A read still running holds the watcher: stop it, not only drop it. */
      g_signal_handlers_disconnect_by_data (self->transcripts, self);
      pd_import_watcher_stop (self->transcripts);
    }
  g_clear_object (&self->transcripts);

  if (!follow)
    return;

  self->follow_cancellable = g_cancellable_new ();
  task = g_task_new (self, self->follow_cancellable, on_follow_store, NULL);
  g_task_set_source_tag (task, pd_local_source_follow_transcripts);
  pd_task_run_worker (task, open_store_worker, g_object_unref);
}

/**
 * pd_local_source_get_n_followed:
 *
 * How many files and folders are followed for imported sessions (0 until
 * following has started).
 */
guint
pd_local_source_get_n_followed (PdLocalSource *self)
{
  g_return_val_if_fail (PD_IS_LOCAL_SOURCE (self), 0);

  return self->transcripts != NULL ? pd_import_watcher_get_n_watched (self->transcripts) : 0;
}

/**
 * pd_local_source_watch:
 * @interval_ms: how often to look besides the pushes (the fallback poll);
 *   0 stops watching
 *
 * Emits ::changed when another connection commits to the database — a
 * CLI run, serve, the demo or a run of the window: a file monitor on the
 * database and its WAL notices at once, and a read of its data version
 * every @interval_ms backs it up.
 */
void
pd_local_source_watch (PdLocalSource *self,
                       guint          interval_ms)
{
  g_return_if_fail (PD_IS_LOCAL_SOURCE (self));

  if (interval_ms == 0)
    {
      if (self->watcher != NULL)
        g_signal_handlers_disconnect_by_data (self->watcher, self);
      g_clear_object (&self->watcher);
      return;
    }

  if (self->watcher == NULL)
    {
      self->watcher = pd_database_watcher_new (self->path);
      /* The views may have read before its first look: a commit made in
       * between would be told only by the next (a session written just
       * before the Overview started watching stayed unseen). */
      pd_database_watcher_set_baseline_changes (self->watcher, TRUE);
      g_signal_connect_swapped (self->watcher, "changed", G_CALLBACK (pd_source_emit_changed), self);
    }
  pd_database_watcher_set_poll_interval (self->watcher, interval_ms);
}

/**
 * pd_local_source_get_watcher:
 *
 * Returns: (transfer none) (nullable): what notices other writers, while
 *   watching
 */
PdDatabaseWatcher *
pd_local_source_get_watcher (PdLocalSource *self)
{
  g_return_val_if_fail (PD_IS_LOCAL_SOURCE (self), NULL);
  return self->watcher;
}

/* --- this process's writers ------------------------------------------------ */

static gboolean
bus_changed_idle (gpointer user_data)
{
  PdLocalSource *self = user_data;

  g_clear_pointer (&self->bus_idle, g_source_unref);
  pd_source_emit_changed (PD_SOURCE (self));
  return G_SOURCE_REMOVE;
}

/* On the main context of pd_local_source_follow_bus(), after the event's
 * sinks: an event of a session is stored, and a session_saved event comes
 * after the commit it reports. */
static void
on_bus_event (PdEvent  *event,
              gpointer  user_data)
{
  PdLocalSource *self = user_data;

  if (pd_event_get_session_id (event) == NULL || self->bus_idle != NULL)
    return;
  /* Where this listener runs: the context it was added from. */
  self->bus_idle = g_idle_source_new ();
  g_source_set_priority (self->bus_idle, G_PRIORITY_DEFAULT);
  g_source_set_static_name (self->bus_idle, "[pd] local source: a writer's events");
  g_source_set_callback (self->bus_idle, bus_changed_idle, self, NULL);
  g_source_attach (self->bus_idle, g_main_context_get_thread_default ());
}

static guint
find_bus (PdLocalSource *self,
          PdEventBus    *bus)
{
  for (guint i = 0; i < self->buses->len; i++)
    if (((FollowedBus *) g_ptr_array_index (self->buses, i))->bus == bus)
      return i;
  return G_MAXUINT;
}

/**
 * pd_local_source_follow_bus:
 * @bus: the event bus of an engine of this process that writes to the
 *   source's database (the demo's, a run of the window)
 *
 * Emits ::changed when an event of a session goes through @bus, one for a
 * burst.  The file monitor of pd_local_source_watch() hears of the same
 * commits too, but not where a file system has no change notification,
 * and only after the file is written; the bus is the writer itself
 * telling.  Following a bus twice follows it once.
 */
void
pd_local_source_follow_bus (PdLocalSource *self,
                            PdEventBus    *bus)
{
  FollowedBus *followed;

  g_return_if_fail (PD_IS_LOCAL_SOURCE (self));
  g_return_if_fail (PD_IS_EVENT_BUS (bus));

  if (find_bus (self, bus) != G_MAXUINT)
    return;
  followed = g_new0 (FollowedBus, 1);
  followed->bus = g_object_ref (bus);
  followed->listener = pd_event_bus_add_listener (bus, on_bus_event, self, NULL);
  g_ptr_array_add (self->buses, followed);
}

/**
 * pd_local_source_unfollow_bus:
 *
 * Stops following @bus (an engine replaced or gone); no ::changed comes
 * from it after this returns.
 */
void
pd_local_source_unfollow_bus (PdLocalSource *self,
                              PdEventBus    *bus)
{
  guint i;

  g_return_if_fail (PD_IS_LOCAL_SOURCE (self));

  if ((i = find_bus (self, bus)) != G_MAXUINT)
    g_ptr_array_remove_index_fast (self->buses, i);
}

/**
 * pd_local_source_get_n_buses:
 *
 * How many event buses are followed.
 */
guint
pd_local_source_get_n_buses (PdLocalSource *self)
{
  g_return_val_if_fail (PD_IS_LOCAL_SOURCE (self), 0);
  return self->buses->len;
}

gboolean
pd_local_source_export_json (PdLocalSource  *self,
                             const char     *session_id,
                             GOutputStream  *out,
                             GCancellable   *cancellable,
                             GError        **error)
{
  g_autoptr(PdSessionStore) store = NULL;

  g_return_val_if_fail (PD_IS_LOCAL_SOURCE (self), FALSE);

  if (!(store = pd_local_source_open_store (self, error)))
    return FALSE;
  return pd_session_reads_export_json (store, session_id, out, FALSE, cancellable, error);
}

gboolean
pd_local_source_get_checklist_json (PdLocalSource  *self,
                                    const char     *session_id,
                                    char          **json,
                                    GError        **error)
{
  g_autoptr(PdSessionStore) store = NULL;

  g_return_val_if_fail (PD_IS_LOCAL_SOURCE (self), FALSE);

  *json = NULL;
  if (!(store = pd_local_source_open_store (self, error)))
    return FALSE;
  return pd_session_reads_get_checklist_json (store, session_id, json, error);
}

gboolean
pd_local_source_foreach_message (PdLocalSource            *self,
                                 const char               *session_id,
                                 PdLocalSourceMessageFunc  func,
                                 gpointer                  user_data,
                                 GCancellable             *cancellable,
                                 GError                  **error)
{
  g_autoptr(PdSessionStore) store = NULL;

  g_return_val_if_fail (PD_IS_LOCAL_SOURCE (self), FALSE);

  if (!(store = pd_local_source_open_store (self, error)))
    return FALSE;
  return pd_session_reads_foreach_message (store, session_id, func, user_data, cancellable, error);
}

gboolean
pd_local_source_foreach_event (PdLocalSource            *self,
                               const char               *session_id,
                               PdSessionReadsEventFunc   func,
                               gpointer                  user_data,
                               GCancellable             *cancellable,
                               GError                  **error)
{
  g_autoptr(PdSessionStore) store = NULL;

  g_return_val_if_fail (PD_IS_LOCAL_SOURCE (self), FALSE);

  if (!(store = pd_local_source_open_store (self, error)))
    return FALSE;
  return pd_session_reads_foreach_event (store, session_id, NULL, 0, func, user_data, cancellable, error);
}

GPtrArray *
pd_local_source_list_removed (PdLocalSource  *self,
                              GError        **error)
{
  g_autoptr(PdSessionStore) store = NULL;

  g_return_val_if_fail (PD_IS_LOCAL_SOURCE (self), NULL);

  if (!(store = pd_local_source_open_store (self, error)))
    return NULL;
  return pd_session_store_list_removed (store, error);
}

gboolean
pd_local_source_restore (PdLocalSource  *self,
                         const char     *session_id,
                         GError        **error)
{
  g_autoptr(PdSessionStore) store = NULL;

  g_return_val_if_fail (PD_IS_LOCAL_SOURCE (self), FALSE);

  if (!(store = pd_local_source_open_store (self, error)))
    return FALSE;
  return pd_session_store_restore (store, session_id, error);
}
