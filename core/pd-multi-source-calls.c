/* pd-multi-source-calls.c: PdMultiSource's calls of one session, each
 * handed over to the source the session came from (its id says which);
 * the usage and other agents' transcripts go to the first source, this
 * computer's.  The merged listing is pd-multi-source.c's.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-source"

#include "config.h"

#include "pd-multi-source.h"
#include "pd-multi-source-private.h"

/* --- handing a call over ------------------------------------------------- */

/* A task of this source whose result is the routed source's own
 * GAsyncResult, finished by that source. */
static void
on_routed_done (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;

  g_task_return_pointer (task, g_object_ref (result), g_object_unref);
}

static GTask *
pd_multi_source_route (PdMultiSource        *self,
                       const char           *id,
                       gpointer              tag,
                       GCancellable         *cancellable,
                       GAsyncReadyCallback   callback,
                       gpointer              user_data,
                       PdSource            **source,
                       char                **source_id)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, tag);
  *source = pd_multi_source_resolve (self, id, source_id);
  if (*source == NULL)
    {
      g_task_return_new_error (task, PD_SOURCE_ERROR, PD_SOURCE_ERROR_NOT_FOUND,
                               "No source of this window has the session %s", id ? id : "");
      g_object_unref (task);
      return NULL;
    }
  /* The task holds the source until the call is finished. */
  g_task_set_task_data (task, g_object_ref (*source), g_object_unref);
  return task;
}

static GAsyncResult *
pd_multi_source_routed_result (GAsyncResult  *result,
                               PdSource     **source,
                               GError       **error)
{
  GTask *task = G_TASK (result);

  *source = g_task_get_task_data (task);
  return g_task_propagate_pointer (task, error);
}

#define ROUTE(tag) \
  PdMultiSource *self = PD_MULTI_SOURCE (source_self); \
  PdSource *source = NULL; \
  g_autofree char *source_id = NULL; \
  GTask *task = pd_multi_source_route (self, id, tag, cancellable, callback, user_data, \
                                       &source, &source_id); \
  if (task == NULL) \
    return

#define FINISH(fail) \
  PdSource *source = NULL; \
  g_autoptr(GAsyncResult) inner = pd_multi_source_routed_result (result, &source, error); \
  if (inner == NULL) \
    return fail

static void
multi_get_session_async (PdSource *source_self, const char *id, GCancellable *cancellable,
                         GAsyncReadyCallback callback, gpointer user_data)
{
  ROUTE (multi_get_session_async);
  pd_source_get_session_async (source, source_id, cancellable, on_routed_done, task);
}

static PdSessionInfo *
multi_get_session_finish (PdSource *source_self, GAsyncResult *result, GError **error)
{
  PdMultiSource *self = PD_MULTI_SOURCE (source_self);
  g_autoptr(PdSessionInfo) info = NULL;
  FINISH (NULL);

  info = pd_source_get_session_finish (source, inner, error);
  if (info == NULL)
    return NULL;
  return _pd_multi_source_list_info (self, source, info);
}

static void
multi_get_plan_async (PdSource *source_self, const char *id, GCancellable *cancellable,
                      GAsyncReadyCallback callback, gpointer user_data)
{
  ROUTE (multi_get_plan_async);
  pd_source_get_plan_async (source, source_id, cancellable, on_routed_done, task);
}

static gboolean
multi_get_plan_finish (PdSource *source_self, GAsyncResult *result, PdPlanState **plan, GError **error)
{
  FINISH (FALSE);
  return pd_source_get_plan_finish (source, inner, plan, error);
}

static void
multi_get_plan_history_async (PdSource *source_self, const char *id, GCancellable *cancellable,
                              GAsyncReadyCallback callback, gpointer user_data)
{
  ROUTE (multi_get_plan_history_async);
  pd_source_get_plan_history_async (source, source_id, cancellable, on_routed_done, task);
}

static GPtrArray *
multi_get_plan_history_finish (PdSource *source_self, GAsyncResult *result, GError **error)
{
  FINISH (NULL);
  return pd_source_get_plan_history_finish (source, inner, error);
}

static void
multi_get_messages_part_async (PdSource *source_self, const char *id, gint64 before, GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data)
{
  ROUTE (multi_get_messages_part_async);
  pd_source_get_messages_part_async (source, source_id, before, cancellable, on_routed_done, task);
}

static JsonArray *
multi_get_messages_part_finish (PdSource *source_self, GAsyncResult *result, guint64 *first, guint64 *total,
                                GError **error)
{
  FINISH (NULL);
  return pd_source_get_messages_part_finish (source, inner, first, total, error);
}

static void
multi_get_messages_since_async (PdSource *source_self, const char *id, guint64 from, guint64 lineage,
                                GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  ROUTE (multi_get_messages_since_async);
  pd_source_get_messages_since_async (source, source_id, from, lineage, cancellable, on_routed_done, task);
}

static JsonArray *
multi_get_messages_since_finish (PdSource *source_self, GAsyncResult *result, guint64 *first, guint64 *total,
                                 guint64 *lineage, GError **error)
{
  FINISH (NULL);
  return pd_source_get_messages_since_finish (source, inner, first, total, lineage, error);
}

static void
multi_get_messages_async (PdSource *source_self, const char *id, GCancellable *cancellable,
                          GAsyncReadyCallback callback, gpointer user_data)
{
  ROUTE (multi_get_messages_async);
  pd_source_get_messages_async (source, source_id, cancellable, on_routed_done, task);
}

static JsonArray *
multi_get_messages_finish (PdSource *source_self, GAsyncResult *result, GError **error)
{
  FINISH (NULL);
  return pd_source_get_messages_finish (source, inner, error);
}

static void
multi_get_events_async (PdSource *source_self, const char *id, gint64 after_seq, guint limit,
                        GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  ROUTE (multi_get_events_async);
  pd_source_get_events_async (source, source_id, after_seq, limit, cancellable, on_routed_done, task);
}

static GPtrArray *
multi_get_events_finish (PdSource *source_self, GAsyncResult *result, GError **error)
{
  FINISH (NULL);
  return pd_source_get_events_finish (source, inner, error);
}

static void
multi_get_latest_events_async (PdSource *source_self, const char *id, gint64 before_seq, const char * const *types,
                               guint limit, GCancellable *cancellable, GAsyncReadyCallback callback,
                               gpointer user_data)
{
  ROUTE (multi_get_latest_events_async);
  pd_source_get_latest_events_async (source, source_id, before_seq, types, limit, cancellable, on_routed_done, task);
}

static GPtrArray *
multi_get_latest_events_finish (PdSource *source_self, GAsyncResult *result, GError **error)
{
  FINISH (NULL);
  return pd_source_get_latest_events_finish (source, inner, error);
}

static void
multi_update_session_async (PdSource *source_self, const char *id, const char *name, int pinned,
                            GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  ROUTE (multi_update_session_async);
  pd_source_update_session_async (source, source_id, name, pinned, cancellable, on_routed_done, task);
}

static gboolean
multi_update_session_finish (PdSource *source_self, GAsyncResult *result, GError **error)
{
  FINISH (FALSE);
  return pd_source_update_session_finish (source, inner, error);
}

static void
multi_delete_session_async (PdSource *source_self, const char *id, GCancellable *cancellable,
                            GAsyncReadyCallback callback, gpointer user_data)
{
  ROUTE (multi_delete_session_async);
  pd_source_delete_session_async (source, source_id, cancellable, on_routed_done, task);
}

static gboolean
multi_delete_session_finish (PdSource *source_self, GAsyncResult *result, GError **error)
{
  FINISH (FALSE);
  return pd_source_delete_session_finish (source, inner, error);
}

static void
multi_get_checklist_async (PdSource *source_self, const char *id, GCancellable *cancellable,
                           GAsyncReadyCallback callback, gpointer user_data)
{
  ROUTE (multi_get_checklist_async);
  pd_source_get_checklist_async (source, source_id, cancellable, on_routed_done, task);
}

static PdChecklist *
multi_get_checklist_finish (PdSource *source_self, GAsyncResult *result, GPtrArray **plans, GError **error)
{
  FINISH (NULL);
  return pd_source_get_checklist_finish (source, inner, plans, error);
}

static void
multi_save_checklist_async (PdSource *source_self, const char *id, PdChecklist *checklist,
                            GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  ROUTE (multi_save_checklist_async);
  pd_source_save_checklist_async (source, source_id, checklist, cancellable, on_routed_done, task);
}

static gboolean
multi_save_checklist_finish (PdSource *source_self, GAsyncResult *result, GError **error)
{
  FINISH (FALSE);
  return pd_source_save_checklist_finish (source, inner, error);
}

static void
multi_get_resume_command_async (PdSource *source_self, const char *id, GCancellable *cancellable,
                                GAsyncReadyCallback callback, gpointer user_data)
{
  ROUTE (multi_get_resume_command_async);
  pd_source_get_resume_command_async (source, source_id, cancellable, on_routed_done, task);
}

static PdResumeCommand *
multi_get_resume_command_finish (PdSource *source_self, GAsyncResult *result, GError **error)
{
  FINISH (NULL);
  return pd_source_get_resume_command_finish (source, inner, error);
}

/* The usage and the other agents' transcripts are this computer's: the
 * first source's. */
static PdSource *
pd_multi_source_first (PdMultiSource *self)
{
  g_autoptr(PdSource) first = g_list_model_get_item (G_LIST_MODEL (pd_multi_source_get_sources (self)), 0);

  return first;
}

static GTask *
pd_multi_source_route_first (PdMultiSource       *self,
                             gpointer             tag,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data,
                             PdSource           **source)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, tag);
  *source = pd_multi_source_first (self);
  if (*source == NULL)
    {
      g_task_return_new_error (task, PD_SOURCE_ERROR, PD_SOURCE_ERROR_UNAVAILABLE,
                               "This window has no sources");
      g_object_unref (task);
      return NULL;
    }
  g_task_set_task_data (task, g_object_ref (*source), g_object_unref);
  return task;
}

static void
multi_get_usage_async (PdSource *source_self, GCancellable *cancellable,
                       GAsyncReadyCallback callback, gpointer user_data)
{
  PdSource *source = NULL;
  GTask *task = pd_multi_source_route_first (PD_MULTI_SOURCE (source_self), multi_get_usage_async,
                                             cancellable, callback, user_data, &source);

  if (task != NULL)
    pd_source_get_usage_async (source, cancellable, on_routed_done, task);
}

static JsonObject *
multi_get_usage_finish (PdSource *source_self, GAsyncResult *result, GError **error)
{
  FINISH (NULL);
  return pd_source_get_usage_finish (source, inner, error);
}

static void
multi_import_transcripts_async (PdSource *source_self, GCancellable *cancellable,
                                GAsyncReadyCallback callback, gpointer user_data)
{
  PdSource *source = NULL;
  GTask *task = pd_multi_source_route_first (PD_MULTI_SOURCE (source_self), multi_import_transcripts_async,
                                             cancellable, callback, user_data, &source);

  if (task != NULL)
    pd_source_import_transcripts_async (source, cancellable, on_routed_done, task);
}

static gboolean
multi_import_transcripts_finish (PdSource *source_self, GAsyncResult *result, PdImportCounts *counts,
                                 GError **error)
{
  FINISH (FALSE);
  return pd_source_import_transcripts_finish (source, inner, counts, error);
}

void
_pd_multi_source_calls_iface_init (PdSourceInterface *iface)
{
  iface->get_session_async = multi_get_session_async;
  iface->get_session_finish = multi_get_session_finish;
  iface->get_plan_async = multi_get_plan_async;
  iface->get_plan_finish = multi_get_plan_finish;
  iface->get_plan_history_async = multi_get_plan_history_async;
  iface->get_plan_history_finish = multi_get_plan_history_finish;
  iface->get_messages_async = multi_get_messages_async;
  iface->get_messages_finish = multi_get_messages_finish;
  iface->get_messages_part_async = multi_get_messages_part_async;
  iface->get_messages_part_finish = multi_get_messages_part_finish;
  iface->get_messages_since_async = multi_get_messages_since_async;
  iface->get_messages_since_finish = multi_get_messages_since_finish;
  iface->get_latest_events_async = multi_get_latest_events_async;
  iface->get_latest_events_finish = multi_get_latest_events_finish;
  iface->get_events_async = multi_get_events_async;
  iface->get_events_finish = multi_get_events_finish;
  iface->get_usage_async = multi_get_usage_async;
  iface->get_usage_finish = multi_get_usage_finish;
  iface->update_session_async = multi_update_session_async;
  iface->update_session_finish = multi_update_session_finish;
  iface->delete_session_async = multi_delete_session_async;
  iface->delete_session_finish = multi_delete_session_finish;
  iface->get_checklist_async = multi_get_checklist_async;
  iface->get_checklist_finish = multi_get_checklist_finish;
  iface->save_checklist_async = multi_save_checklist_async;
  iface->save_checklist_finish = multi_save_checklist_finish;
  iface->get_resume_command_async = multi_get_resume_command_async;
  iface->get_resume_command_finish = multi_get_resume_command_finish;
  iface->import_transcripts_async = multi_import_transcripts_async;
  iface->import_transcripts_finish = multi_import_transcripts_finish;
}
