/* pd-event-notices.c: the notices of a session's event stream for the Now page
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The latest plan reassessment, the latest blocked streak and the latest
 * session-level problem (a failed run, an exhausted budget), each since the
 * latest run_started.  The Now page keeps them as it reads the stream
 * forward, a page at a time, holding no event it read: a stream of 600,000
 * events costs its pages' time, not their memory (the Events page held them
 * all, hidden, for these three lines).
 */
#define G_LOG_DOMAIN "pd-event-notices"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-event-notices.h"
#include "pd-json-util.h"
#include "pd-ui-util-private.h"

typedef enum
{
  NOTICE_REASSESSMENT,
  NOTICE_BLOCKED,
  NOTICE_SESSION,
  N_NOTICES
} NoticeKind;

struct _PdEventNotices
{
  char *notices[N_NOTICES];
};

PdEventNotices *
pd_event_notices_new (void)
{
  return g_new0 (PdEventNotices, 1);
}

void
pd_event_notices_free (PdEventNotices *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < N_NOTICES; i++)
    g_free (self->notices[i]);
  g_free (self);
}

static int
data_int (JsonObject *data,
          const char *name)
{
  JsonNode *node = data ? json_object_get_member (data, name) : NULL;

  if (node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64)
    return (int) CLAMP (json_node_get_int (node), G_MININT, G_MAXINT);
  return 0;
}

static const char *
reassessment_reason_text (const char *reason)
{
  if (g_strcmp0 (reason, "repeated_check_failure") == 0)
    return _("an acceptance check kept failing");
  if (g_strcmp0 (reason, "varied_tool_failures") == 0)
    return _("tool calls kept failing in different ways");
  return reason ? reason : "?";
}

/* Returns whether a notice changed. */
static gboolean
set_notice (PdEventNotices *self,
            NoticeKind      kind,
            char           *text)
{
  if (g_strcmp0 (self->notices[kind], text) == 0)
    {
      g_free (text);
      return FALSE;
    }

  g_free (self->notices[kind]);
  self->notices[kind] = text;
  return TRUE;
}

/**
 * pd_event_notices_observe:
 * @event: the next event of the stream
 *
 * Returns: whether a notice changed
 */
gboolean
pd_event_notices_observe (PdEventNotices *self,
                          PdEvent        *event)
{
  const char *type = pd_event_get_event_type (event);
  JsonObject *data = pd_event_get_data (event);
  gboolean changed = FALSE;

  if (g_strcmp0 (type, PD_EVENT_RUN_STARTED) == 0)
    changed = pd_event_notices_clear (self);
  else if (g_strcmp0 (type, PD_EVENT_PLAN_REASSESSMENT) == 0)
    {
      const char *reason = pd_json_get_string (data, "reason");
      const char *text = reassessment_reason_text (reason);
      g_autofree char *isolated = NULL;

      /* A reason we do not know is the event's own text: isolated. */
      if (text == reason)
        text = isolated = _pd_isolated_line (reason);
      changed = set_notice (self, NOTICE_REASSESSMENT,
                            /* Translators: %s says why, e.g. "an acceptance check kept failing" */
                            g_strdup_printf (_("Plan reassessment requested: %s"), text));
    }
  else if (g_strcmp0 (type, PD_EVENT_PLAN_BLOCKED) == 0)
    {
      int blocked = data_int (data, "blocked");
      int steps = data_int (data, "steps");

      changed = set_notice (self, NOTICE_BLOCKED,
                            /* Translators: steps of the plan blocked in a row; "%d of %d" */
                            g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                                          "Steps keep getting blocked: %d of %d step is blocked",
                                                          "Steps keep getting blocked: %d of %d steps are blocked",
                                                          steps),
                                             blocked, steps));
    }
  else if (g_strcmp0 (type, PD_EVENT_RUN_FAILED) == 0)
    {
      const char *error_class = pd_json_get_string (data, "error_class");
      const char *why = pd_json_get_string (data, "error");

      if (g_strcmp0 (error_class, "cancelled") == 0 && why != NULL && why[0] != '\0')
        {
          /* No person's stop: what interrupted it (the endpoint stopping,
           * its client going away). */
          g_autofree char *isolated = _pd_isolated_line (why);

          /* Translators: %s says what interrupted the run ("the endpoint (serve) stopped") */
          changed = set_notice (self, NOTICE_SESSION, g_strdup_printf (_("The run was interrupted: %s"), isolated));
        }
      else if (g_strcmp0 (error_class, "cancelled") == 0)
        changed = set_notice (self, NOTICE_SESSION, g_strdup (_("The run was stopped")));
      else if (why != NULL && why[0] != '\0')
        {
          /* A provider's words (anyone's text): isolated. */
          g_autofree char *isolated = _pd_isolated_line (why);

          /* Translators: %s says why, as the engine or the provider put it (plain text) */
          changed = set_notice (self, NOTICE_SESSION, g_strdup_printf (_("The run failed: %s"), isolated));
        }
      else
        changed = set_notice (self, NOTICE_SESSION, g_strdup (_("The run failed")));
    }
  else if (g_strcmp0 (type, PD_EVENT_BUDGET_EXCEEDED) == 0)
    {
      const char *limit_name = pd_json_get_string (data, "limit_name");
      /* "time", in seconds: it read "its wall_time budget is exhausted
       * (2001 of 2000)" (tried as a new user would). */
      g_autofree char *limit = _pd_budget_name (limit_name != NULL ? limit_name : "?", 80);
      g_autofree char *amount = _pd_budget_amount (limit_name, data_int (data, "observed"), data_int (data, "limit"));

      changed = set_notice (self, NOTICE_SESSION,
                            /* Translators: %s names the budget ("iteration", "token", "time"), then how
                             * much of it the run used ("3 of 3", "2.0 s of 2 s") */
                            g_strdup_printf (_("The run stopped: its %s budget ran out (%s)"), limit, amount));
    }

  return changed;
}

/**
 * pd_event_notices_clear:
 *
 * Returns: whether there was a notice
 */
gboolean
pd_event_notices_clear (PdEventNotices *self)
{
  gboolean changed = FALSE;

  for (guint i = 0; i < N_NOTICES; i++)
    changed |= set_notice (self, i, NULL);

  return changed;
}

/* Whether the stream said how a run ended short (failed, stopped). */
gboolean
pd_event_notices_has_run_end (PdEventNotices *self)
{
  return self->notices[NOTICE_SESSION] != NULL;
}

/**
 * pd_event_notices_dup_all:
 *
 * The notices, plain text, in this order when present: the latest plan
 * reassessment, the latest blocked streak, the latest session-level problem.
 *
 * Returns: (transfer full) (array zero-terminated=1): the notices, maybe none
 */
char **
pd_event_notices_dup_all (PdEventNotices *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; i < N_NOTICES; i++)
    if (self->notices[i] != NULL)
      g_strv_builder_add (builder, self->notices[i]);

  return g_strv_builder_end (builder);
}
