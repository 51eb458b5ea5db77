/* pd-remote-run.c: a run on a `serve` endpoint (see the header).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "pd-approver.h"
#include "pd-json-util.h"
#include "pd-remote-run.h"
#include "pd-server-private.h"
#include "pd-tool.h"

G_DEFINE_BOXED_TYPE (PdRemoteRun, pd_remote_run, pd_remote_run_copy, pd_remote_run_free)

static char *
nonempty (JsonObject *object,
          const char *member)
{
  const char *text = pd_json_get_string (object, member);

  return text != NULL && *text != '\0' ? g_strdup (text) : NULL;
}

PdRemoteRun *
pd_remote_run_new_from_json (JsonObject *object)
{
  PdRemoteRun *self;
  JsonObject *approval;
  gint64 expires_in;
  char *run_id;

  if (object == NULL)
    return NULL;
  /* GET /api/runs/ID says "id", the 202 of POST /api/prompt "run_id". */
  run_id = nonempty (object, "run_id");
  if (run_id == NULL)
    run_id = nonempty (object, "id");
  if (run_id == NULL)
    return NULL;

  self = g_new0 (PdRemoteRun, 1);
  self->run_id = run_id;
  self->session_id = nonempty (object, "session_id");
  self->status = nonempty (object, "status");
  if (self->status == NULL)
    self->status = g_strdup ("running");
  self->error = nonempty (object, "error");
  self->result = nonempty (object, "result");
  approval = pd_json_get_object (object, "approval");
  if (approval != NULL && (self->approval_id = nonempty (approval, "id")) != NULL)
    {
      self->approval_tool = nonempty (approval, "tool");
      self->approval_command = nonempty (approval, "command");
      self->approval_preview = nonempty (approval, "preview");
      self->approval_masked = pd_json_get_boolean (approval, "masked", FALSE);
      /* An endpoint of an earlier version sent a NBSP or a variation
       * selector as it is, without "controls": what its question holds
       * that ours escapes is guarded as its "controls" are. */
      self->approval_controls_kinds = pd_approver_controls_from_json (pd_json_get_array (approval, "controls_kinds"));
      self->approval_controls = pd_json_get_boolean (approval, "controls", FALSE) ||
                                pd_tool_text_has_control (self->approval_command) ||
                                pd_tool_text_has_control (self->approval_preview);
      expires_in = pd_json_get_int (approval, "expires_in_ms", -1);
      /* An endpoint's number: a day at most. */
      if (expires_in >= 0)
        self->approval_expires_at = g_get_monotonic_time () + MIN (expires_in, (gint64) 24 * 3600 * 1000) * 1000;
      if (self->approval_tool == NULL)
        self->approval_tool = g_strdup ("");
      if (self->approval_command == NULL)
        self->approval_command = g_strdup ("");
    }
  return self;
}

PdRemoteRun *
pd_remote_run_copy (const PdRemoteRun *self)
{
  PdRemoteRun *copy = g_new0 (PdRemoteRun, 1);

  copy->run_id = g_strdup (self->run_id);
  copy->session_id = g_strdup (self->session_id);
  copy->status = g_strdup (self->status);
  copy->error = g_strdup (self->error);
  copy->result = g_strdup (self->result);
  copy->approval_id = g_strdup (self->approval_id);
  copy->approval_tool = g_strdup (self->approval_tool);
  copy->approval_command = g_strdup (self->approval_command);
  copy->approval_preview = g_strdup (self->approval_preview);
  copy->approval_expires_at = self->approval_expires_at;
  copy->approval_masked = self->approval_masked;
  copy->approval_controls = self->approval_controls;
  copy->approval_controls_kinds = self->approval_controls_kinds;
  return copy;
}

void
pd_remote_run_free (PdRemoteRun *self)
{
  if (self == NULL)
    return;
  g_free (self->run_id);
  g_free (self->session_id);
  g_free (self->status);
  g_free (self->error);
  g_free (self->result);
  g_free (self->approval_id);
  g_free (self->approval_tool);
  g_free (self->approval_command);
  g_free (self->approval_preview);
  g_free (self);
}

gboolean
pd_remote_run_is_over (const PdRemoteRun *self)
{
  return g_strcmp0 (self->status, "running") != 0 && g_strcmp0 (self->status, "waiting_approval") != 0;
}

/**
 * pd_remote_run_approval_is_guarded:
 *
 * Whether what the endpoint shows of its question is not all that runs:
 * part of the command is masked ("masked"), or the call holds control
 * characters shown as escapes ("controls": bash reads
 * `echo hi \<CR><LF>rm -f victim` as two commands).  Its dialog says why
 * (pd_remote_run_approval_warning()); a card or a notification, with no
 * room to, never approves it.
 *
 * Returns: whether the question is never approved in one click
 */
gboolean
pd_remote_run_approval_is_guarded (const PdRemoteRun *self)
{
  return self != NULL && (self->approval_masked || self->approval_controls);
}

/**
 * pd_remote_run_approval_warning:
 *
 * Returns: (transfer full) (nullable): why the question is guarded
 *   (pd_remote_run_approval_is_guarded()), one translated sentence a
 *   reason, or %NULL when it is not
 */
char *
pd_remote_run_approval_warning (const PdRemoteRun *self)
{
  g_autofree char *said = NULL;

  if (!pd_remote_run_approval_is_guarded (self))
    return NULL;
  if (self->approval_controls)
    said = self->approval_controls_kinds != 0
           ? pd_approver_controls_describe (self->approval_tool, self->approval_controls_kinds)
           : g_strdup (pd_approver_controls_text ());
  if (self->approval_masked && said != NULL)
    return g_strconcat (_pd_server_approval_masked_text (), " ", said, NULL);
  return self->approval_masked ? g_strdup (_pd_server_approval_masked_text ()) : g_steal_pointer (&said);
}
