/* pd-session-info.c: the value types of the store (PdSessionInfo,
 * PdPlanVersionInfo, PdStoredEvent), session ids and statuses: what callers
 * read back, with no SQL.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-store"

#include "config.h"

#include <string.h>

#include "pd-plan.h"
#include "pd-random.h"
#include "pd-session-info.h"

G_DEFINE_BOXED_TYPE (PdSessionInfo, pd_session_info, pd_session_info_copy, pd_session_info_free)
G_DEFINE_BOXED_TYPE (PdPlanVersionInfo, pd_plan_version_info, pd_plan_version_info_copy, pd_plan_version_info_free)
G_DEFINE_BOXED_TYPE (PdStoredEvent, pd_stored_event, pd_stored_event_copy, pd_stored_event_free)

/* ---------------------------------------------------------------------- */
/* Boxed types                                                            */

static const char * const status_names[] = { "idle", "running", "failed", "interrupted" };

const char *
pd_session_status_to_string (PdSessionStatus status)
{
  if ((guint) status >= G_N_ELEMENTS (status_names))
    return "idle";
  return status_names[status];
}

gboolean
pd_session_status_from_string (const char      *str,
                               PdSessionStatus *status)
{
  for (guint i = 0; str != NULL && i < G_N_ELEMENTS (status_names); i++)
    if (strcmp (str, status_names[i]) == 0)
      {
        *status = (PdSessionStatus) i;
        return TRUE;
      }
  return FALSE;
}

PdSessionInfo *
pd_session_info_copy (const PdSessionInfo *self)
{
  PdSessionInfo *copy = g_memdup2 (self, sizeof *self);

  copy->id = g_strdup (self->id);
  copy->task = g_strdup (self->task);
  copy->name = g_strdup (self->name);
  copy->model = g_strdup (self->model);
  copy->provider = g_strdup (self->provider);
  copy->source = g_strdup (self->source);
  copy->cwd = g_strdup (self->cwd);
  copy->auth_token = g_strdup (self->auth_token);
  copy->stopped = g_strdup (self->stopped);
  copy->stopped_error = g_strdup (self->stopped_error);

  return copy;
}

/* RFC 3339 in UTC with microseconds, as the event stream writes times. */
char *
pd_session_time_to_string (gint64 unix_usec)
{
  g_autoptr(GDateTime) seconds = g_date_time_new_from_unix_utc (unix_usec / G_USEC_PER_SEC);
  g_autoptr(GDateTime) time = seconds ? g_date_time_add (seconds, unix_usec % G_USEC_PER_SEC) : NULL;

  if (time == NULL)
    return g_strdup ("1970-01-01T00:00:00.000000Z");
  return g_date_time_format (time, "%Y-%m-%dT%H:%M:%S.%fZ");
}

/**
 * pd_session_info_to_json:
 * @with_token: include the per-session auth token (only its owner may see it)
 *
 * The session record as the CLI and the REST API show it: odek's session
 * fields (id, title, task, model, provider, turns, tokens, pinned, times)
 * plus ours (name, source, cwd, status, the plan summary).
 *
 * Returns: (transfer full): a new object
 */
JsonObject *
pd_session_info_to_json (const PdSessionInfo *self,
                         gboolean             with_token)
{
  JsonObject *object = json_object_new ();
  JsonObject *plan = json_object_new ();
  g_autofree char *created = pd_session_time_to_string (self->created_at);
  g_autofree char *updated = pd_session_time_to_string (self->updated_at);

  json_object_set_string_member (object, "id", self->id);
  json_object_set_string_member (object, "title", self->name && *self->name ? self->name : (self->task ? self->task : ""));
  if (self->name != NULL)
    json_object_set_string_member (object, "name", self->name);
  json_object_set_string_member (object, "task", self->task ? self->task : "");
  json_object_set_string_member (object, "model", self->model ? self->model : "");
  json_object_set_string_member (object, "provider", self->provider ? self->provider : "");
  json_object_set_string_member (object, "source", self->source ? self->source : "");
  json_object_set_string_member (object, "cwd", self->cwd ? self->cwd : "");
  json_object_set_string_member (object, "status", pd_session_status_to_string (self->status));
  json_object_set_string_member (object, "created_at", created);
  json_object_set_string_member (object, "updated_at", updated);
  json_object_set_int_member (object, "turns", self->turns);
  json_object_set_int_member (object, "input_tokens", self->input_tokens);
  json_object_set_int_member (object, "output_tokens", self->output_tokens);
  json_object_set_boolean_member (object, "pinned", self->pinned);
  json_object_set_int_member (object, "messages", self->n_messages);
  json_object_set_int_member (plan, "version", self->plan_version);
  json_object_set_int_member (plan, "done", self->plan_done);
  json_object_set_int_member (plan, "total", self->plan_total);
  json_object_set_int_member (plan, "blocked", self->plan_blocked);
  json_object_set_int_member (plan, "hidden", self->plan_hidden);
  json_object_set_object_member (object, "plan", plan);
  json_object_set_string_member (object, "auth_token", with_token && self->auth_token ? self->auth_token : "");
  /* Ours: odek's clients ignore a member they do not know. */
  if (self->stopped != NULL)
    {
      JsonObject *stopped = json_object_new ();

      json_object_set_string_member (stopped, "class", self->stopped);
      /* A budget is no error: named as what it is. */
      if (self->stopped_error != NULL)
        json_object_set_string_member (stopped, g_strcmp0 (self->stopped, "budget") == 0 ? "budget" : "error",
                                       self->stopped_error);
      json_object_set_object_member (object, "stopped", stopped);
    }
  /* Ours too: its last run completed, none came after (an Overview card
   * says it ended, not "Working"). */
  if (self->run_ended)
    json_object_set_boolean_member (object, "run_ended", TRUE);

  return object;
}

/**
 * pd_session_info_is_imported:
 *
 * Whether the session was read from another agent's transcript (Claude
 * Code, Codex, OpenCode, Qwen Code, Gemini CLI, Cline, Roo Code, Kilo Code): shown, searched and annotated, but never
 * continued, since its history belongs to that agent.
 */
gboolean
pd_session_info_is_imported (const PdSessionInfo *self)
{
  static const char * const imported[] = { "claude-code", "claude-desktop", "codex", "opencode",
                                               "qwen", "gemini", "cline", "roo", "kilo", "kilo-cli" };

  g_return_val_if_fail (self != NULL, FALSE);

  for (guint i = 0; i < G_N_ELEMENTS (imported); i++)
    if (g_strcmp0 (self->source, imported[i]) == 0)
      return TRUE;
  return FALSE;
}

/**
 * pd_session_changed_lately:
 * @updated_at: the last change, unix µs
 * @now: unix µs
 * @window: µs
 *
 * The one rule for "being worked on" of the Overview's cards and of
 * `plandeck-agent sessions`: a change less than @window ago, and not more
 * than %PD_SESSION_FUTURE_MINUTES ahead of @now.  A transcript dated in
 * 2099 (its lines' timestamps are anyone's) read as changed within the
 * window for ever, "working" in every list (tried as an attacker would).
 */
gboolean
pd_session_changed_lately (gint64 updated_at,
                           gint64 now,
                           gint64 window)
{
  if (updated_at > now)
    return updated_at - now <= (gint64) PD_SESSION_FUTURE_MINUTES * 60 * G_USEC_PER_SEC;
  /* Not now - updated_at: a stored time far in the past would overflow. */
  return updated_at > now - window;
}

/**
 * pd_session_info_is_working:
 * @now: unix µs
 *
 * Whether the session is being worked on, as its Overview card says
 * "Working": a run of ours goes on, or its plan has unfinished steps, none
 * blocked, no run of ours ended or failed since, and it changed within
 * %PD_SESSION_WORKING_MINUTES.  Another agent's session has no run of ours:
 * its transcript written lately with steps left is this.  The list said
 * "idle" beside a card that said "Working" (tried as a new user would).
 */
gboolean
pd_session_info_is_working (const PdSessionInfo *self,
                            gint64               now)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if (self->status == PD_SESSION_STATUS_RUNNING)
    return TRUE;
  if (self->status == PD_SESSION_STATUS_FAILED || self->status == PD_SESSION_STATUS_INTERRUPTED ||
      self->stopped != NULL || self->run_ended || self->plan_blocked > 0)
    return FALSE;
  return self->plan_done < self->plan_total &&
         pd_session_changed_lately (self->updated_at, now, (gint64) PD_SESSION_WORKING_MINUTES * 60 * G_USEC_PER_SEC);
}

/**
 * pd_session_info_is_stalled:
 * @now: unix µs
 *
 * Whether the session's work stands still, as its Overview card says
 * "Stalled": unfinished steps, none blocked, no run of ours ended or
 * failed since (one may still be on), and its last change older than
 * %PD_SESSION_WORKING_MINUTES (the Overview's minutes by default).  A
 * change dated ahead of the clock is not old.  `sessions list` said
 * "idle" beside a card that said "Stalled" (tried as a new user would).
 */
gboolean
pd_session_info_is_stalled (const PdSessionInfo *self,
                            gint64               now)
{
  g_return_val_if_fail (self != NULL, FALSE);

  if ((self->status != PD_SESSION_STATUS_IDLE && self->status != PD_SESSION_STATUS_RUNNING) ||
      self->stopped != NULL || self->run_ended ||
      self->plan_blocked > 0 || self->plan_done >= self->plan_total || self->updated_at > now)
    return FALSE;
  return !pd_session_changed_lately (self->updated_at, now, (gint64) PD_SESSION_WORKING_MINUTES * 60 * G_USEC_PER_SEC);
}

/**
 * pd_session_info_stopped_short:
 *
 * Whether its last run ended short of its answer (a budget, a cancel, a
 * refusal, an answer cut off) and nothing runs now: the window's
 * "Stopped".  A failed run is not this: its status says "failed".
 */
gboolean
pd_session_info_stopped_short (const PdSessionInfo *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->status == PD_SESSION_STATUS_IDLE && self->stopped != NULL &&
         g_strcmp0 (self->stopped, "failed") != 0;
}

/**
 * pd_session_info_get_state:
 * @now: unix µs
 *
 * Returns: "working" when pd_session_info_is_working() says so and no run
 *   of ours is on, else the stored status ("running", "idle", …)
 */
const char *
pd_session_info_get_state (const PdSessionInfo *self,
                           gint64               now)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (self->status != PD_SESSION_STATUS_RUNNING && pd_session_info_is_working (self, now))
    return "working";
  return pd_session_status_to_string (self->status);
}

/**
 * pd_session_info_get_shown_state:
 * @now: unix µs
 *
 * The session's state in the words every page says it: a run that ended
 * short (a budget, a cancel) "stopped", as the list's "Stopped"; unfinished
 * work unchanged for the Overview's minutes "stalled", its card's
 * "Stalled"; at rest with every step of its plan done "done", as the card's
 * "Done" and the row's tick; else pd_session_info_get_state().  The CLI's
 * table said "stalled" where the list's row told a screen reader "Idle"
 * (tried as a new user would).
 *
 * Returns: "stopped", "stalled", "done", "working" or the stored status
 */
const char *
pd_session_info_get_shown_state (const PdSessionInfo *self,
                                 gint64               now)
{
  const char *state;

  g_return_val_if_fail (self != NULL, NULL);

  if (pd_session_info_stopped_short (self))
    return "stopped";
  if (pd_session_info_is_stalled (self, now))
    return "stalled";
  state = pd_session_info_get_state (self, now);
  if (g_strcmp0 (state, "idle") == 0 && self->plan_total > 0 && self->plan_done == self->plan_total)
    return "done";
  return state;
}

void
pd_session_info_free (PdSessionInfo *self)
{
  if (self == NULL)
    return;
  g_free (self->id);
  g_free (self->task);
  g_free (self->name);
  g_free (self->model);
  g_free (self->provider);
  g_free (self->source);
  g_free (self->stopped);
  g_free (self->stopped_error);
  g_free (self->cwd);
  g_free (self->auth_token);
  g_free (self);
}

PdPlanVersionInfo *
pd_plan_version_info_copy (const PdPlanVersionInfo *self)
{
  PdPlanVersionInfo *copy = g_memdup2 (self, sizeof *self);

  copy->state_json = g_strdup (self->state_json);
  return copy;
}

void
pd_plan_version_info_free (PdPlanVersionInfo *self)
{
  if (self == NULL)
    return;
  g_free (self->state_json);
  g_free (self);
}

PdStoredEvent *
pd_stored_event_copy (const PdStoredEvent *self)
{
  PdStoredEvent *copy = g_memdup2 (self, sizeof *self);

  copy->event_json = g_strdup (self->event_json);
  return copy;
}

void
pd_stored_event_free (PdStoredEvent *self)
{
  if (self == NULL)
    return;
  g_free (self->event_json);
  g_free (self);
}

char *
pd_session_id_new (void)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *date = g_date_time_format (now, "%Y%m%d");
  g_autofree char *hex = pd_random_hex (16);

  return g_strdup_printf ("%s-%s", date, hex);
}

/* Exactly "YYYYMMDD-" + 32 lowercase hex: an id is used in file names and
 * URLs, so nothing else (separators, dots, NUL, upper case) gets through. */
gboolean
pd_session_id_is_valid (const char *id)
{
  if (id == NULL || strlen (id) != PD_SESSION_ID_LEN)
    return FALSE;
  for (guint i = 0; i < 8; i++)
    if (!g_ascii_isdigit (id[i]))
      return FALSE;
  if (id[8] != '-')
    return FALSE;
  for (guint i = 9; i < PD_SESSION_ID_LEN; i++)
    if (!g_ascii_isdigit (id[i]) && !(id[i] >= 'a' && id[i] <= 'f'))
      return FALSE;
  return TRUE;
}
