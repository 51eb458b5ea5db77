/* pd-remote-source-runs.c: the runs of a PdRemoteSource's endpoint:
 * starting one (POST /api/prompt), following it, answering its question,
 * cancelling it and finding the one going on; the object and its requests
 * are in pd-remote-source.c.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-source"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <libsoup/soup.h>

#include "pd-remote-run.h"
#include "pd-remote-source.h"
#include "pd-remote-source-private.h"

/* ---------------------------------------------------------------------- */
/* Runs                                                                    */

/**
 * pd_remote_source_start_run_async:
 * @session_id: (nullable): the session to continue; %NULL starts a new one
 * @message: what the person says
 *
 * Starts a run on the endpoint (POST /api/prompt).  It runs there, with the
 * engine, folder and limits the server was started with; the result is the
 * run as accepted (its id and session), followed with
 * pd_remote_source_get_run_async().  An endpoint that runs nothing fails
 * with %PD_SOURCE_ERROR_UNSUPPORTED.
 */
void
pd_remote_source_start_run_async (PdRemoteSource      *self,
                                  const char          *session_id,
                                  const char          *message,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(JsonObject) body = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  Call *call;

  g_return_if_fail (PD_IS_REMOTE_SOURCE (self));
  g_return_if_fail (message != NULL);

  if (session_id != NULL && !_pd_remote_source_check_id (session_id, callback, user_data, self, pd_remote_source_start_run_async))
    return;
  json_object_set_string_member (body, "message", message);
  if (session_id != NULL)
    json_object_set_string_member (body, "session_id", session_id);
  else
    json_object_set_null_member (body, "session_id");
  json_node_set_object (node, body);
  call = _pd_remote_source_call_new (OP_PROMPT, "POST", session_id, "/api/prompt");
  call->body = json_to_string (node, FALSE);
  _pd_remote_source_start_call (self, call, pd_remote_source_start_run_async, cancellable, callback, user_data);
}

/**
 * pd_remote_source_start_run_finish:
 *
 * Returns: (transfer full): the run as the server accepted it
 */
PdRemoteRun *
pd_remote_source_start_run_finish (PdRemoteSource  *self,
                                   GAsyncResult    *result,
                                   GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * pd_remote_source_get_run_async:
 *
 * How a run goes (GET /api/runs/ID): its status, and the question it waits
 * on.
 */
void
pd_remote_source_get_run_async (PdRemoteSource      *self,
                                const char          *run_id,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autofree char *escaped = NULL;

  g_return_if_fail (PD_IS_REMOTE_SOURCE (self));
  g_return_if_fail (run_id != NULL);

  escaped = g_uri_escape_string (run_id, NULL, TRUE);
  _pd_remote_source_start_call (self, _pd_remote_source_call_new (OP_RUN, "GET", NULL, "/api/runs/%s", escaped),
              pd_remote_source_get_run_async, cancellable, callback, user_data);
}

/**
 * pd_remote_source_get_run_finish:
 *
 * Returns: (transfer full): the run
 */
PdRemoteRun *
pd_remote_source_get_run_finish (PdRemoteSource  *self,
                                 GAsyncResult    *result,
                                 GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * pd_remote_source_answer_approval_async:
 * @run: the run, with the question it asks (@run's approval_id)
 * @approve: %TRUE to let the call run
 *
 * Answers the run's question (POST /api/runs/ID/approval, with the
 * session's token).  A question answered already or timed out fails with
 * %PD_SOURCE_ERROR_NOT_FOUND; an endpoint without the route with
 * %PD_SOURCE_ERROR_UNSUPPORTED.
 */
void
pd_remote_source_answer_approval_async (PdRemoteSource      *self,
                                        const PdRemoteRun   *run,
                                        gboolean             approve,
                                        GCancellable        *cancellable,
                                        GAsyncReadyCallback  callback,
                                        gpointer             user_data)
{
  pd_remote_source_answer_review_async (self, run, approve, NULL, cancellable, callback, user_data);
}

/**
 * pd_remote_source_answer_review_async:
 * @approve: %TRUE to approve the plan (or let the call run)
 * @feedback: (nullable): with a denial of a plan review (exit_plan_mode's
 *   question): what to plan next, the model's to read
 *
 * As pd_remote_source_answer_approval_async(), with the feedback a plan
 * review's Keep Planning brings; finish with
 * pd_remote_source_answer_approval_finish().
 */
void
pd_remote_source_answer_review_async (PdRemoteSource      *self,
                                      const PdRemoteRun   *run,
                                      gboolean             approve,
                                      const char          *feedback,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_autoptr(JsonObject) body = json_object_new ();
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *escaped = NULL;
  Call *call;

  g_return_if_fail (PD_IS_REMOTE_SOURCE (self));
  g_return_if_fail (run != NULL && run->run_id != NULL && run->approval_id != NULL);

  if (!_pd_remote_source_check_id (run->session_id, callback, user_data, self, pd_remote_source_answer_approval_async))
    return;
  json_object_set_string_member (body, "id", run->approval_id);
  json_object_set_string_member (body, "action", approve ? "approve" : "deny");
  if (!approve && feedback != NULL && *feedback != '\0')
    json_object_set_string_member (body, "feedback", feedback);
  json_node_set_object (node, body);
  escaped = g_uri_escape_string (run->run_id, NULL, TRUE);
  call = _pd_remote_source_call_new (OP_ANSWER, "POST", run->session_id, "/api/runs/%s/approval", escaped);
  call->body = json_to_string (node, FALSE);
  _pd_remote_source_start_call (self, call, pd_remote_source_answer_approval_async, cancellable, callback, user_data);
}

gboolean
pd_remote_source_answer_approval_finish (PdRemoteSource  *self,
                                         GAsyncResult    *result,
                                         GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * pd_remote_source_cancel_async:
 *
 * Cancels the run of @session_id on the endpoint (POST
 * /api/cancel?session_id=, with the session's token), whoever started it.
 * The run then ends as cancelled; a session with no run is no error.
 */
void
pd_remote_source_cancel_async (PdRemoteSource      *self,
                               const char          *session_id,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_return_if_fail (PD_IS_REMOTE_SOURCE (self));

  if (_pd_remote_source_check_id (session_id, callback, user_data, self, pd_remote_source_cancel_async))
    _pd_remote_source_start_call (self, _pd_remote_source_call_new (OP_CANCEL, "POST", session_id, "/api/cancel?session_id=%s", session_id),
                pd_remote_source_cancel_async, cancellable, callback, user_data);
}

gboolean
pd_remote_source_cancel_finish (PdRemoteSource  *self,
                                GAsyncResult    *result,
                                GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * pd_remote_source_find_run_async:
 * @session_id: a session of the endpoint
 *
 * The run of @session_id going on now on the endpoint (GET /api/runs),
 * started by whoever: a window that was closed, another client.  %NULL,
 * without an error, when there is none.
 */
void
pd_remote_source_find_run_async (PdRemoteSource      *self,
                                 const char          *session_id,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_return_if_fail (PD_IS_REMOTE_SOURCE (self));

  if (_pd_remote_source_check_id (session_id, callback, user_data, self, pd_remote_source_find_run_async))
    _pd_remote_source_start_call (self, _pd_remote_source_call_new (OP_RUNS, "GET", session_id, "/api/runs"),
                pd_remote_source_find_run_async, cancellable, callback, user_data);
}

/**
 * pd_remote_source_find_run_finish:
 *
 * Returns: (transfer full) (nullable): the live run, or %NULL
 */
PdRemoteRun *
pd_remote_source_find_run_finish (PdRemoteSource  *self,
                                  GAsyncResult    *result,
                                  GError         **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
