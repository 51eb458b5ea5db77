/* pd-remote-records.c: a serve endpoint's records, read into Plandeck's
 * types (see pd-remote-records-private.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-source"

#include "config.h"

#include <string.h>

#include <glib/gi18n-lib.h>

#include "pd-json.h"
#include "pd-json-util.h"
#include "pd-remote-records-private.h"

/* See pd-remote-records-private.h. */
char *
_pd_remote_mark_nul (const char *json,
                     gsize       length)
{
  char *marked = NULL;

  for (gsize i = 0; i + 6 <= length; i++)
    {
      gsize backslashes = 0;

      if (json[i] != '\\' || memcmp (json + i, "\\u0000", 6) != 0)
        continue;
      /* An escape only after an even run of backslashes before it
       * ("\\u0000" in JSON is a backslash, then the text u0000). */
      while (backslashes < i && json[i - 1 - backslashes] == '\\')
        backslashes++;
      if (backslashes % 2 != 0)
        continue;
      if (marked == NULL)
        marked = g_memdup2 (json, length);
      memcpy (marked + i, "\\u2400", 6);
      i += 5;
    }
  return marked;
}

static gint64
get_time (JsonObject *object,
          const char *name)
{
  const char *text = pd_json_get_string (object, name);
  g_autoptr(GDateTime) dt = NULL;

  if (text == NULL || !(dt = g_date_time_new_from_iso8601 (text, NULL)))
    return 0;
  return g_date_time_to_unix (dt) * G_USEC_PER_SEC + g_date_time_get_microsecond (dt);
}

/* An endpoint's count, as it is shown and sorted by: never negative, never
 * over @max (a cast of 4294967295 or -5 would show "4294967295/3" and
 * "4294967291 Steps Blocked", and sort first; tried as an attacker would). */
static guint
clamp_count (gint64 value,
             guint  max)
{
  return value <= 0 ? 0 : value >= (gint64) max ? max : (guint) value;
}

/* The members _pd_remote_session_from_json() reads, and those a push
 * adds (pd-server-push.c: the current step, its checks): all a pushed
 * frame's parse builds (pd_json_parse_picked()), the rest of each record
 * skipped unbuilt.  A member read there and not named here is never seen
 * on a push: the two are kept side by side. */
static const PdJsonPick plan_members[] = {
  { "version", NULL }, { "total", NULL }, { "done", NULL }, { "blocked", NULL }, { "hidden", NULL }, { NULL, NULL }
};
static const PdJsonPick stopped_members[] = { { "class", NULL }, { "budget", NULL }, { "error", NULL }, { NULL, NULL } };
/* A record's messages are counted, not read: each element kept empty. */
static const PdJsonPick no_members[] = { { NULL, NULL } };
static const PdJsonPick pushed_members[] = {
  { "id", NULL }, { "task", NULL }, { "title", NULL }, { "name", NULL }, { "model", NULL }, { "provider", NULL },
  { "source", NULL }, { "cwd", NULL }, { "status", NULL }, { "created_at", NULL }, { "updated_at", NULL },
  { "turns", NULL }, { "input_tokens", NULL }, { "output_tokens", NULL }, { "pinned", NULL },
  { "plan", plan_members }, { "stopped", stopped_members }, { "run_ended", NULL }, { "messages", no_members },
  { "unpassed_checks", NULL }, { "current_step", NULL }, { "current_step_started", NULL }, { "failed_check", NULL },
  { NULL, NULL }
};
const PdJsonPick _pd_remote_pushed_pick[] = { { "sessions", pushed_members }, { NULL, NULL } };

PdSessionInfo *
_pd_remote_session_from_json (JsonObject *object)
{
  PdSessionInfo *info;
  JsonObject *plan;
  JsonObject *stopped;
  JsonNode *messages;
  const char *id = pd_json_get_string (object, "id");
  const char *task = pd_json_get_string (object, "task");
  const char *status = pd_json_get_string (object, "status");

  if (id == NULL || !pd_session_id_is_valid (id))
    return NULL;

  info = g_new0 (PdSessionInfo, 1);
  info->id = g_strdup (id);
  info->task = g_strdup (task && *task ? task : pd_json_get_string (object, "title") ? pd_json_get_string (object, "title") : "");
  info->name = g_strdup (pd_json_get_string (object, "name"));
  info->model = g_strdup (pd_json_get_string (object, "model") ? pd_json_get_string (object, "model") : "");
  info->provider = g_strdup (pd_json_get_string (object, "provider") ? pd_json_get_string (object, "provider") : "");
  info->source = g_strdup (pd_json_get_string (object, "source") ? pd_json_get_string (object, "source") : "odek");
  info->cwd = g_strdup (pd_json_get_string (object, "cwd") ? pd_json_get_string (object, "cwd") : "");
  if (status == NULL || !pd_session_status_from_string (status, &info->status))
    info->status = PD_SESSION_STATUS_IDLE;
  info->created_at = get_time (object, "created_at");
  info->updated_at = get_time (object, "updated_at");
  info->turns = pd_json_get_int (object, "turns", 0);
  info->input_tokens = pd_json_get_int (object, "input_tokens", 0);
  info->output_tokens = pd_json_get_int (object, "output_tokens", 0);
  info->pinned = pd_json_get_boolean (object, "pinned", FALSE);
  if ((plan = pd_json_get_object (object, "plan")))
    {
      info->plan_version = pd_json_get_int (plan, "version", 0);
      info->plan_total = clamp_count (pd_json_get_int (plan, "total", 0), PD_REMOTE_MAX_STEPS);
      info->plan_done = clamp_count (pd_json_get_int (plan, "done", 0), info->plan_total);
      info->plan_blocked = clamp_count (pd_json_get_int (plan, "blocked", 0), info->plan_total - info->plan_done);
      /* An imported agent's items past those its endpoint keeps: counted only. */
      info->plan_hidden = clamp_count (pd_json_get_int (plan, "hidden", 0), G_MAXINT);
    }
  if ((stopped = pd_json_get_object (object, "stopped")) && pd_json_get_string (stopped, "class") != NULL &&
      *pd_json_get_string (stopped, "class") != '\0')
    {
      info->stopped = g_strdup (pd_json_get_string (stopped, "class"));
      info->stopped_error = g_strdup (pd_json_get_string (stopped, g_strcmp0 (info->stopped, "budget") == 0 ? "budget"
                                                                                                      : "error"));
    }
  info->run_ended = pd_json_get_boolean (object, "run_ended", FALSE);
  messages = json_object_get_member (object, "messages");
  /* A record with a page of its messages (serve) says how many in all. */
  if (json_object_has_member (object, "messages_total"))
    info->n_messages = clamp_count (pd_json_get_int (object, "messages_total", 0), G_MAXINT);
  else if (messages && JSON_NODE_HOLDS_ARRAY (messages))
    info->n_messages = json_array_get_length (json_node_get_array (messages));
  else
    info->n_messages = clamp_count (pd_json_get_int (object, "messages", 0), G_MAXINT);
  return info;
}

/* @text cut to @max characters, "…" ending what was cut; NULL for NULL. */
static char *
bounded_text (const char *text,
              guint       max)
{
  const char *end;

  if (text == NULL)
    return NULL;
  if (g_utf8_strlen (text, -1) <= (glong) max)
    return g_strdup (text);
  end = g_utf8_offset_to_pointer (text, max - 1);
  return g_strdup_printf ("%.*s…", (int) (end - text), text);
}

PdPlanState *
_pd_remote_plan_from_json (JsonObject  *object,
                           GError     **error)
{
  g_autoptr(PdPlanState) state = NULL;
  JsonArray *steps = pd_json_get_array (object, "steps");
  JsonObject *revision = pd_json_get_object (object, "revision");

  if (!pd_json_get_boolean (object, "found", FALSE))
    return NULL;

  state = pd_plan_state_new ();
  state->version = pd_json_get_int (object, "version", 0);
  for (guint i = 0; steps && i < json_array_get_length (steps); i++)
    {
      JsonObject *row = pd_json_array_get_object (steps, i);
      JsonArray *checks = pd_json_get_array (row, "checks");
      const char *id = pd_json_get_string (row, "id"), *title = pd_json_get_string (row, "title");
      g_autofree char *kept_id = NULL, *kept_title = NULL, *kept_note = NULL;
      PdPlanStep *step;

      if (row == NULL || id == NULL || title == NULL)
        {
          g_set_error (error, PD_SOURCE_ERROR, PD_SOURCE_ERROR_INVALID, _("The server sent a plan step without an id or title"));
          return NULL;
        }
      /* Counted past the bound, never built. */
      if (state->steps->len >= PD_REMOTE_PLAN_MAX_STEPS)
        {
          state->n_hidden++;
          continue;
        }
      /* An id is cut longer than the plan engine's: two long ids that
       * differ late must stay two rows. */
      kept_id = bounded_text (id, PD_PLAN_MAX_TITLE_CHARS);
      kept_title = bounded_text (title, PD_PLAN_MAX_TITLE_CHARS);
      step = pd_plan_step_new (kept_id, kept_title);
      /* serve's word for an imported agent's cancelled item, which a plan
       * holds as blocked (not pending: it will not be done). */
      if (g_strcmp0 (pd_json_get_string (row, "status"), "cancelled") == 0)
        step->status = PD_PLAN_STEP_BLOCKED;
      else if (!pd_plan_step_status_from_string (pd_json_get_string (row, "status"), &step->status))
        step->status = PD_PLAN_STEP_PENDING;
      if ((kept_note = bounded_text (pd_json_get_string (row, "note"), PD_PLAN_MAX_NOTE_CHARS)))
        pd_plan_step_set_note (step, kept_note);
      for (guint j = 0; checks && j < json_array_get_length (checks) && step->checks->len < PD_REMOTE_PLAN_MAX_CHECKS; j++)
        {
          JsonObject *c = pd_json_array_get_object (checks, j);
          g_autofree char *check_id = NULL, *description = NULL, *tool = NULL, *canonical = NULL;
          JsonNode *arguments;
          PdPlanCheck *check;

          if (c == NULL || pd_json_get_string (c, "id") == NULL)
            continue;
          check_id = bounded_text (pd_json_get_string (c, "id"), PD_PLAN_MAX_TITLE_CHARS);
          description = bounded_text (pd_json_get_string (c, "description") ? pd_json_get_string (c, "description") : "",
                                      PD_PLAN_MAX_PERSISTED_DESC_CHARS);
          tool = bounded_text (pd_json_get_string (c, "tool") ? pd_json_get_string (c, "tool") : "", PD_PLAN_MAX_CHECK_TOOL_CHARS);
          arguments = json_object_get_member (c, "arguments");
          if (arguments != NULL && JSON_NODE_HOLDS_OBJECT (arguments))
            canonical = pd_json_canonicalize_object (arguments, NULL);
          /* An endpoint's text, bounded as a check's own arguments are. */
          if (canonical != NULL && strlen (canonical) > PD_PLAN_MAX_CHECK_ARGS_BYTES)
            g_clear_pointer (&canonical, g_free);
          check = pd_plan_check_new (check_id, description, tool, canonical != NULL ? canonical : "{}");
          if (!pd_plan_check_status_from_string (pd_json_get_string (c, "status"), &check->status))
            check->status = PD_PLAN_CHECK_PENDING;
          check->call_id = bounded_text (pd_json_get_string (c, "call_id"), PD_PLAN_MAX_CALL_ID_CHARS);
          g_ptr_array_add (step->checks, check);
        }
      g_ptr_array_add (state->steps, step);
    }

  if (revision != NULL && pd_json_get_string (revision, "reason"))
    {
      JsonArray *summary = pd_json_get_array (revision, "summary");
      g_autofree char *reason = bounded_text (pd_json_get_string (revision, "reason"), PD_PLAN_MAX_REVISION_REASON);

      state->revision = pd_plan_revision_new (reason);
      for (guint i = 0; summary && i < json_array_get_length (summary) && i < PD_PLAN_MAX_REVISION_SUMMARY; i++)
        {
          g_autofree char *item = bounded_text (pd_json_node_get_string (json_array_get_element (summary, i)),
                                                PD_PLAN_MAX_REVISION_SUMMARY_ITEM);

          if (item != NULL)
            pd_plan_revision_add (state->revision, item);
        }
    }

  return g_steal_pointer (&state);
}

PdSessionPage *
_pd_remote_session_page_from_json (JsonNode *root)
{
  JsonObject *object = root && JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root) : NULL;
  JsonArray *array = root && JSON_NODE_HOLDS_ARRAY (root) ? json_node_get_array (root) : pd_json_get_array (object, "sessions");
  GPtrArray *sessions;
  guint total;

  if (array == NULL)
    return NULL;
  sessions = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_session_info_free);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *row = pd_json_array_get_object (array, i);
      PdSessionInfo *info = row ? _pd_remote_session_from_json (row) : NULL;

      if (info != NULL)
        g_ptr_array_add (sessions, info);
    }
  total = object && json_object_has_member (object, "total") ? clamp_count (pd_json_get_int (object, "total", 0), G_MAXINT) : sessions->len;
  return pd_session_page_new (sessions, total);
}

GPtrArray *
_pd_remote_plan_history_from_json (JsonObject *object)
{
  JsonArray *versions = pd_json_get_array (object, "plan_versions");
  GPtrArray *history = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_plan_version_info_free);

  for (guint i = 0; versions && i < json_array_get_length (versions); i++)
    {
      JsonObject *entry = pd_json_array_get_object (versions, i);
      JsonNode *state = entry ? json_object_get_member (entry, "state") : NULL;
      PdPlanVersionInfo *version;

      if (state == NULL || !JSON_NODE_HOLDS_OBJECT (state))
        continue;
      version = g_new0 (PdPlanVersionInfo, 1);
      version->version = pd_json_get_int (entry, "version", 0);
      version->created_at = get_time (entry, "created_at");
      version->state_json = json_to_string (state, FALSE);
      g_ptr_array_add (history, version);
    }
  return history;
}

GPtrArray *
_pd_remote_events_from_json (JsonObject *object,
                             gint64      after_seq)
{
  JsonArray *events = pd_json_get_array (object, "events");
  JsonArray *seqs = pd_json_get_array (object, "seq");
  GPtrArray *out;

  if (events == NULL)
    return NULL;
  out = g_ptr_array_new_with_free_func ((GDestroyNotify) pd_stored_event_free);
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonNode *node = json_array_get_element (events, i);
      g_autoptr(PdEvent) event = pd_event_new_from_json_node (node, NULL);
      /* odek's ring has no sequence numbers: positions stand in. */
      gint64 seq = pd_json_array_get_int (seqs, i, (gint64) i + 1);
      PdStoredEvent *stored;

      if (event == NULL || seq <= after_seq)
        continue;
      stored = g_new0 (PdStoredEvent, 1);
      stored->seq = seq;
      stored->event_json = pd_event_to_json (event);
      g_ptr_array_add (out, stored);
    }
  return out;
}
