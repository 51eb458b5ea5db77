/* pd-event-item.c: one stored event, as the events view lists it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Immutable: the columns (local time, type, iteration, tool, a short
 * summary derived from the data) and the pretty-printed JSON are computed
 * once.  A line that does not parse as an event is still listed, with its
 * raw text as details, so nothing the store holds is hidden.
 */
#define G_LOG_DOMAIN "pd-event-item"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-event-item.h"
#include "pd-json-util.h"
#include "pd-ui-util-private.h"

struct _PdEventItem
{
  GObject   parent_instance;

  gint64    seq;
  PdEvent  *event;           /* (nullable) when the text did not parse */
  char     *event_type;
  char     *time_text;
  char     *iteration_text;
  char     *tool;
  char     *summary;
  char     *details;
};

G_DEFINE_FINAL_TYPE (PdEventItem, pd_event_item, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_SEQ,
  PROP_EVENT_TYPE,
  PROP_TYPE_LABEL,
  PROP_TIME_TEXT,
  PROP_ITERATION_TEXT,
  PROP_TOOL,
  PROP_SUMMARY,
  PROP_ROW_NAME,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
pd_event_item_finalize (GObject *object)
{
  PdEventItem *self = PD_EVENT_ITEM (object);

  g_clear_pointer (&self->event, pd_event_unref);
  g_free (self->event_type);
  g_free (self->time_text);
  g_free (self->iteration_text);
  g_free (self->tool);
  g_free (self->summary);
  g_free (self->details);

  G_OBJECT_CLASS (pd_event_item_parent_class)->finalize (object);
}

/* Its type as a person reads it.  A run that ended short of its answer
 * (its budget ran out, its answer cut off) ends with run_completed, which
 * read "Run completed" where the Now page said it stopped (tried as a new
 * user would). */
static const char *
type_label (PdEventItem *self)
{
  JsonObject *data = self->event != NULL ? pd_event_get_data (self->event) : NULL;

  if (g_strcmp0 (self->event_type, PD_EVENT_RUN_COMPLETED) == 0 &&
      (pd_json_get_string (data, "budget_exceeded") != NULL || pd_json_get_boolean (data, "incomplete", FALSE)))
    return _("Run stopped");
  return _pd_event_type_label (self->event_type);
}

static void
pd_event_item_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  PdEventItem *self = PD_EVENT_ITEM (object);

  switch (prop_id)
    {
    case PROP_SEQ:
      g_value_set_int64 (value, self->seq);
      break;
    case PROP_EVENT_TYPE:
      g_value_set_string (value, self->event_type);
      break;
    case PROP_TYPE_LABEL:
      g_value_set_string (value, type_label (self));
      break;
    case PROP_TIME_TEXT:
      g_value_set_string (value, self->time_text);
      break;
    case PROP_ITERATION_TEXT:
      g_value_set_string (value, self->iteration_text);
      break;
    case PROP_TOOL:
      g_value_set_string (value, self->tool);
      break;
    case PROP_SUMMARY:
      g_value_set_string (value, self->summary);
      break;
    case PROP_ROW_NAME:
      g_value_take_string (value, pd_event_item_dup_row_name (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_event_item_class_init (PdEventItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = pd_event_item_finalize;
  object_class->get_property = pd_event_item_get_property;

  properties[PROP_SEQ] =
    g_param_spec_int64 ("seq", NULL, NULL, 0, G_MAXINT64, 0,
                        G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_EVENT_TYPE] =
    g_param_spec_string ("event-type", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /* The type as a person reads it ("Tool call started"). */
  properties[PROP_TYPE_LABEL] =
    g_param_spec_string ("type-label", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_TIME_TEXT] =
    g_param_spec_string ("time-text", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_ITERATION_TEXT] =
    g_param_spec_string ("iteration-text", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_TOOL] =
    g_param_spec_string ("tool", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_SUMMARY] =
    g_param_spec_string ("summary", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  /* What a screen reader says for its row: "time, type: summary". */
  properties[PROP_ROW_NAME] =
    g_param_spec_string ("row-name", NULL, NULL, NULL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
pd_event_item_init (PdEventItem *self)
{
}

/* A member of the event's data as printf's %lld takes it; @fallback when it
 * is missing or no number. */
static long long
data_int (JsonObject *data,
          const char *name,
          long long   fallback)
{
  return pd_json_get_int (data, name, fallback);
}

static char *
format_duration (long long ms)
{
  if (ms < 1000)
    /* Translators: a duration in milliseconds */
    return g_strdup_printf (_("%lld ms"), ms);
  /* Translators: a duration in seconds */
  return g_strdup_printf (_("%.1f s"), ms / 1000.0);
}

/* A `serve` run's question asked or answered, as a person reads it: what
 * was asked (the tool and what it does, never the command, which the
 * event does not hold) and the answer.  An answer's row was empty. */
static char *
summarize_approval (gboolean    answered,
                    const char *tool,
                    JsonObject *data)
{
  const char *risk = pd_json_get_string (data, "risk");
  const char *outcome = pd_json_get_string (data, "outcome");
  const char *id = pd_json_get_string (data, "approval_id");
  g_autofree char *asked = NULL;

  if (g_strcmp0 (risk, "code_execution") == 0)
    risk = _("runs code");
  else if (g_strcmp0 (risk, "local_write") == 0)
    risk = _("writes files");
  else if (g_strcmp0 (risk, "plan_review") == 0)
    risk = _("plan review");
  if (g_strcmp0 (outcome, "approved") == 0)
    outcome = _("approved");
  else if (g_strcmp0 (outcome, "denied") == 0)
    outcome = _("denied");
  else if (g_strcmp0 (outcome, "timed_out") == 0)
    outcome = _("no answer in time");
  else if (g_strcmp0 (outcome, "cancelled") == 0)
    outcome = _("cancelled");

  if (tool != NULL && risk != NULL)
    /* Translators: what a run asked a person: its tool and what it does, "write_file (writes files)" */
    asked = g_strdup_printf (_("%s (%s)"), tool, risk);
  else if (tool != NULL || risk != NULL)
    asked = g_strdup (tool != NULL ? tool : risk);
  else
    /* Translators: an approval of which only the id is known */
    asked = g_strdup_printf (_("approval %s"), id != NULL ? id : "?");
  if (!answered)
    /* Translators: a run waits for a person: what it asked */
    return g_strdup_printf (_("asked: %s"), asked);
  /* Translators: a person's answer: what was asked, then the answer, "asked: write_file (writes files) · approved" */
  return g_strdup_printf (_("asked: %s · %s"), asked, outcome != NULL ? outcome : "?");
}

/* A short line derived from the event's data: counts and names only. */
static char *
summarize (PdEvent *event)
{
  const char *type = pd_event_get_event_type (event);
  const char *tool = pd_event_get_tool (event);
  JsonObject *data = pd_event_get_data (event);

  if (g_strcmp0 (type, PD_EVENT_PLAN_CREATED) == 0)
    return g_strdup_printf (_("plan v%lld · %lld steps"),
                            data_int (data, "version", 0), data_int (data, "steps", 0));

  if (g_strcmp0 (type, PD_EVENT_PLAN_UPDATED) == 0)
    {
      long long blocked = data_int (data, "blocked", 0);
      /* A long imported transcript read from its end knows no version's
       * number (pd-session-reads-events.c): none is made up. */
      g_autofree char *line = data != NULL && json_object_has_member (data, "version")
        ? g_strdup_printf (_("plan v%lld · %lld/%lld done"), data_int (data, "version", 0),
                           data_int (data, "done", 0), data_int (data, "steps", 0))
        : g_strdup_printf (_("plan · %lld/%lld done"), data_int (data, "done", 0), data_int (data, "steps", 0));

      if (blocked > 0)
        return g_strdup_printf (_("%s · %lld blocked"), line, blocked);
      return g_steal_pointer (&line);
    }

  if (g_strcmp0 (type, PD_EVENT_PLAN_BLOCKED) == 0)
    return g_strdup_printf (_("blocked streak · %lld/%lld blocked · plan v%lld"),
                            data_int (data, "blocked", 0), data_int (data, "steps", 0),
                            data_int (data, "version", 0));

  if (g_strcmp0 (type, PD_EVENT_PLAN_REASSESSMENT) == 0)
    return g_strdup_printf (_("reassessment: %s"),
                            pd_json_get_string (data, "reason") ? pd_json_get_string (data, "reason") : "?");

  if (g_strcmp0 (type, PD_EVENT_PLAN_VALIDATION_FAILED) == 0)
    return g_strdup_printf (_("%s rejected: %s"),
                            pd_json_get_string (data, "verb") ? pd_json_get_string (data, "verb") : "?",
                            pd_json_get_string (data, "error_class") ? pd_json_get_string (data, "error_class") : "?");

  /* An imported session's timeline cut to its bound: the rest left out
   * was not said, and its last event read as the session's last. */
  if (g_strcmp0 (type, PD_EVENT_EVENTS_LEFT_OUT) == 0)
    {
      long long items = data_int (data, "items", 0);

      return g_strdup_printf (ngettext ("Later events were left out: the transcript is too large "
                                        "(%lld more tool call or result)",
                                        "Later events were left out: the transcript is too large "
                                        "(%lld more tool calls and results)",
                                        (unsigned long) CLAMP (items, 0, G_MAXLONG)),
                              items);
    }

  if (g_strcmp0 (type, PD_EVENT_TOOL_CALL_STARTED) == 0)
    return g_strdup_printf ("%s · %s", tool ? tool : "?",
                            pd_json_get_string (data, "call_id") ? pd_json_get_string (data, "call_id") : "");

  if (g_strcmp0 (type, PD_EVENT_TOOL_CALL_COMPLETED) == 0)
    {
      g_autofree char *duration = format_duration (data_int (data, "duration_ms", 0));

      return g_strdup_printf ("%s · %s", tool ? tool : "?", duration);
    }

  if (g_strcmp0 (type, PD_EVENT_TOOL_CALL_FAILED) == 0)
    {
      g_autofree char *duration = format_duration (data_int (data, "duration_ms", 0));

      return g_strdup_printf (_("%s · failed: %s · %s"), tool ? tool : "?",
                              pd_json_get_string (data, "error_class") ? pd_json_get_string (data, "error_class") : "?",
                              duration);
    }

  if (g_strcmp0 (type, PD_EVENT_RUN_STARTED) == 0)
    return g_strdup_printf ("%s · %s",
                            pd_json_get_string (data, "provider") ? pd_json_get_string (data, "provider") : "?",
                            pd_json_get_string (data, "model") ? pd_json_get_string (data, "model") : "?");

  if (g_strcmp0 (type, PD_EVENT_RUN_COMPLETED) == 0 || g_strcmp0 (type, PD_EVENT_RUN_FAILED) == 0)
    {
      g_autofree char *duration = format_duration (data_int (data, "duration_ms", 0));
      const char *error_class = pd_json_get_string (data, "error_class");

      if (error_class != NULL)
        return g_strdup_printf (_("%s after %s"), error_class, duration);
      if (pd_json_get_string (data, "budget_exceeded") != NULL)
        {
          /* "time", not "wall_time" (tried as a new user would). */
          g_autofree char *budget = _pd_budget_name (pd_json_get_string (data, "budget_exceeded"), 80);

          /* Translators: %s names the budget (iteration, token, time), then the run's duration */
          return g_strdup_printf (_("stopped: its %s budget ran out · %s · %lld in / %lld out tokens"),
                                  budget, duration,
                                  data_int (data, "input_tokens", 0), data_int (data, "output_tokens", 0));
        }
      if (pd_json_get_boolean (data, "incomplete", FALSE))
        return g_strdup_printf (_("incomplete: cut off by the output limit · %s · %lld in / %lld out tokens"),
                                duration, data_int (data, "input_tokens", 0),
                                data_int (data, "output_tokens", 0));
      return g_strdup_printf (_("%s · %lld in / %lld out tokens"),
                              duration, data_int (data, "input_tokens", 0),
                              data_int (data, "output_tokens", 0));
    }

  if (g_strcmp0 (type, PD_EVENT_ITERATION_COMPLETED) == 0)
    {
      long long calls = data_int (data, "tools_called", 0);

      return g_strdup_printf (ngettext ("%lld tool call · %lld in / %lld out tokens",
                                        "%lld tool calls · %lld in / %lld out tokens",
                                        (unsigned long) CLAMP (calls, 0, G_MAXLONG)),
                              calls, data_int (data, "input_tokens", 0),
                              data_int (data, "output_tokens", 0));
    }

  if (g_strcmp0 (type, PD_EVENT_SESSION_SAVED) == 0)
    {
      long long version = data_int (data, "plan_version", -1);

      long long messages = data_int (data, "messages", 0);
      unsigned long n = (unsigned long) CLAMP (messages, 0, G_MAXLONG);

      if (version >= 0)
        return g_strdup_printf (ngettext ("%lld message · plan v%lld", "%lld messages · plan v%lld", n),
                                messages, version);
      return g_strdup_printf (ngettext ("%lld message", "%lld messages", n), messages);
    }

  if (g_strcmp0 (type, PD_EVENT_CONTEXT_TRIMMED) == 0)
    return g_strdup_printf (_("%lld → %lld tokens"),
                            data_int (data, "tokens_before", 0),
                            data_int (data, "tokens_after", 0));

  /* The budget by name, the time one in seconds: it read "wall_time ·
   * 2021/2000" (tried as a new user would). */
  if (g_strcmp0 (type, PD_EVENT_BUDGET_EXCEEDED) == 0)
    {
      const char *limit_name = pd_json_get_string (data, "limit_name");
      g_autofree char *limit = _pd_budget_name (limit_name != NULL ? limit_name : "?", 80);
      g_autofree char *amount = _pd_budget_amount (limit_name, data_int (data, "observed", 0),
                                                   data_int (data, "limit", 0));

      /* Translators: %s names the budget ("iterations", "tokens", "time"), then how much of
       * it the run used ("3 of 3", "2.0 s of 2 s") */
      return g_strdup_printf (_("%s budget · %s"), limit, amount);
    }

  if (g_strcmp0 (type, PD_EVENT_PROVIDER_RETRY) == 0)
    {
      g_autofree char *wait = format_duration (data_int (data, "delay_ms", 0));
      long long status = data_int (data, "status", -1);

      /* Translators: the model's server is asked again; attempt N of M, after a wait, and why. */
      if (status >= 0)
        return g_strdup_printf (_("attempt %lld of %lld in %s · HTTP %lld"),
                                data_int (data, "attempt", 0), data_int (data, "max_attempts", 0),
                                wait, status);
      return g_strdup_printf (_("attempt %lld of %lld in %s · broken off mid-answer"),
                              data_int (data, "attempt", 0), data_int (data, "max_attempts", 0), wait);
    }

  if (g_strcmp0 (type, PD_EVENT_TURN_DISCARDED) == 0)
    {
      long long raised = data_int (data, "next_max_tokens", -1);
      const char *reason = pd_json_get_string (data, "reason");

      if (g_strcmp0 (reason, "max_tokens") == 0 && raised >= 0)
        /* Translators: an answer cut by its output limit is asked again with a higher one. */
        return g_strdup_printf (_("cut off at %lld tokens in %s · asked again with %lld"),
                                data_int (data, "max_tokens", 0),
                                pd_json_get_string (data, "tool") ? pd_json_get_string (data, "tool") : "?", raised);
      if (g_strcmp0 (reason, "max_tokens") == 0)
        return g_strdup_printf (_("cut off in %s · asked again in smaller parts"),
                                pd_json_get_string (data, "tool") ? pd_json_get_string (data, "tool") : "?");
      return g_strdup_printf (_("answer not usable (%s) · asked again"), reason ? reason : "?");
    }

  if (g_strcmp0 (type, PD_EVENT_APPROVAL_REQUESTED) == 0 || g_strcmp0 (type, PD_EVENT_APPROVAL_RESOLVED) == 0)
    return summarize_approval (g_strcmp0 (type, PD_EVENT_APPROVAL_RESOLVED) == 0, tool, data);

  return g_strdup ("");
}

/**
 * pd_event_item_new:
 * @seq: the store's sequence number
 * @event_json: the event as stored
 *
 * Returns: (transfer full): a new item
 */
PdEventItem *
pd_event_item_new (gint64      seq,
                   const char *event_json)
{
  PdEventItem *self = g_object_new (PD_TYPE_EVENT_ITEM, NULL);
  g_autoptr(GError) error = NULL;

  self->seq = seq;
  self->event = pd_event_new_from_json (event_json ? event_json : "", &error);

  if (self->event == NULL)
    {
      self->event_type = g_strdup (_("unreadable"));
      self->time_text = g_strdup ("");
      self->iteration_text = g_strdup ("");
      self->tool = g_strdup ("");
      self->summary = g_strdup (error->message);
      self->details = g_strdup (event_json ? event_json : "");
      return self;
    }

  {
    g_autoptr(JsonNode) node = pd_event_to_json_node (self->event);
    guint iteration = pd_event_get_iteration (self->event);

    self->event_type = g_strdup (pd_event_get_event_type (self->event));
    self->time_text = _pd_format_local_time (pd_event_get_timestamp (self->event));
    self->iteration_text = iteration > 0 ? g_strdup_printf ("%u", iteration) : g_strdup ("");
    self->tool = g_strdup (pd_event_get_tool (self->event) ? pd_event_get_tool (self->event) : "");
    self->summary = summarize (self->event);
    self->details = json_to_string (node, TRUE);
  }

  return self;
}

gint64
pd_event_item_get_seq (PdEventItem *self)
{
  g_return_val_if_fail (PD_IS_EVENT_ITEM (self), 0);
  return self->seq;
}

/**
 * pd_event_item_get_event:
 *
 * Returns: (transfer none) (nullable): the event, or %NULL when the stored
 *   text did not parse
 */
PdEvent *
pd_event_item_get_event (PdEventItem *self)
{
  g_return_val_if_fail (PD_IS_EVENT_ITEM (self), NULL);
  return self->event;
}

const char *
pd_event_item_get_event_type (PdEventItem *self)
{
  g_return_val_if_fail (PD_IS_EVENT_ITEM (self), NULL);
  return self->event_type;
}

const char *
pd_event_item_get_time_text (PdEventItem *self)
{
  g_return_val_if_fail (PD_IS_EVENT_ITEM (self), NULL);
  return self->time_text;
}

const char *
pd_event_item_get_iteration_text (PdEventItem *self)
{
  g_return_val_if_fail (PD_IS_EVENT_ITEM (self), NULL);
  return self->iteration_text;
}

const char *
pd_event_item_get_tool (PdEventItem *self)
{
  g_return_val_if_fail (PD_IS_EVENT_ITEM (self), NULL);
  return self->tool;
}

const char *
pd_event_item_get_summary (PdEventItem *self)
{
  g_return_val_if_fail (PD_IS_EVENT_ITEM (self), NULL);
  return self->summary;
}

/* The event's JSON, pretty-printed, for the details pane. */
const char *
pd_event_item_get_details (PdEventItem *self)
{
  g_return_val_if_fail (PD_IS_EVENT_ITEM (self), NULL);
  return self->details;
}

/**
 * pd_event_item_dup_row_name:
 *
 * Returns: (transfer full): the event in one line for a screen reader,
 *   "12:04:31, Tool call started: list_dir ." — its time, its type as a
 *   person reads it and its summary (the type alone when it has none)
 */
char *
pd_event_item_dup_row_name (PdEventItem *self)
{
  const char *type;

  g_return_val_if_fail (PD_IS_EVENT_ITEM (self), NULL);

  type = type_label (self);
  if (self->summary == NULL || *self->summary == '\0')
    /* TRANSLATORS: an event row as a screen reader says it: its time, its type */
    return g_strdup_printf (_("%s, %s"), self->time_text, type);
  /* TRANSLATORS: an event row as a screen reader says it: time, type: summary */
  return g_strdup_printf (_("%s, %s: %s"), self->time_text, type, self->summary);
}
