/* pd-remote-run.h: a run on a `serve` endpoint, as the endpoint tells it.
 *
 * What PdRemoteSource reads from POST /api/prompt (the run started) and
 * GET /api/runs/ID (how it goes), so that the desktop app can follow a run
 * it started there and answer the question it asks.  Every text is the
 * server's (model-derived, untrusted): shown as plain text only.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

#define PD_TYPE_REMOTE_RUN (pd_remote_run_get_type ())

typedef struct
{
  char *run_id;
  char *session_id;        /* (nullable) until the server names it */
  char *status;            /* running, waiting_approval, completed, cancelled, failed */
  char *error;             /* (nullable) why a run failed */
  char *result;            /* (nullable) the answer */
  /* The question the run waits on (status waiting_approval), else NULL. */
  char *approval_id;
  char *approval_tool;
  char *approval_command;
  char *approval_preview;  /* (nullable) what the call changes, several lines */
  /* When the endpoint denies the question by itself, in this process's
   * monotonic µs (from its "expires_in_ms" as read); 0: not told. */
  gint64 approval_expires_at;
  /* The endpoint masked part of the command ("masked": true): what is
   * shown is not all that runs. */
  gboolean approval_masked;
  /* The call holds control characters, shown as escapes ("controls":
   * true): what is shown is not what runs either. */
  gboolean approval_controls;
  /* Which ("controls_kinds", PdApproverControls); 0: not told (an
   * endpoint of an earlier version), said as control characters. */
  guint approval_controls_kinds;
} PdRemoteRun;

GType        pd_remote_run_get_type  (void) G_GNUC_CONST;
/* From {id|run_id, session_id, status, error, result, approval: {id, tool,
 * command, preview, expires_in_ms, masked, controls, controls_kinds}}; NULL when it names
 * no run. */
PdRemoteRun *pd_remote_run_new_from_json (JsonObject        *object);
PdRemoteRun *pd_remote_run_copy      (const PdRemoteRun *self);
void         pd_remote_run_free      (PdRemoteRun       *self);
/* Whether the run has ended (completed, cancelled, failed or anything the
 * app does not know as live). */
gboolean     pd_remote_run_is_over   (const PdRemoteRun *self);
/* Whether the question's text is not all that runs (masked, or with
 * control characters shown as escapes): never approved in one click. */
gboolean     pd_remote_run_approval_is_guarded (const PdRemoteRun *self);
/* (transfer full) (nullable): what its dialog and card say of it, why. */
char        *pd_remote_run_approval_warning    (const PdRemoteRun *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (PdRemoteRun, pd_remote_run_free)

G_END_DECLS
