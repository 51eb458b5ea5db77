/* pd-session-item.c: one session of a listing, as a GObject for binding
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Wraps a PdSessionInfo and exposes what a row shows as properties.  A
 * refresh updates the item in place and notifies only what changed, so a
 * row bound to it redraws that and nothing else.
 */
#define G_LOG_DOMAIN "pd-session-item"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-session-item.h"
#include "pd-ui-util-private.h"

struct _PdSessionItem
{
  GObject        parent_instance;

  PdSessionInfo *info;
  char          *title;
  char          *relative_time;
  char          *plan_label;
  char          *plan_tooltip;
  char          *origin;         /* (nullable) the source's name, in a list of several */
  gboolean       stale;          /* listed from what its source gave last */
  gboolean       working;        /* pd_session_info_is_working(), no run of ours on */
  gboolean       stalled;        /* pd_session_info_is_stalled() */

  /* The plan of the Now page while this session is shown there: the row
   * draws that snapshot, so the two never disagree.  -1 when not shown. */
  gint64         shown_version;
  guint          shown_done;
  guint          shown_total;
  guint          shown_blocked;
};

G_DEFINE_FINAL_TYPE (PdSessionItem, pd_session_item, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_ID,
  PROP_TITLE,
  PROP_SOURCE_LABEL,
  PROP_STATUS_ICON,
  PROP_STATUS_LABEL,
  PROP_RELATIVE_TIME,
  PROP_UPDATED_AT,
  PROP_PINNED,
  PROP_RUNNING,
  PROP_HAS_PLAN,
  PROP_PLAN_DONE,
  PROP_PLAN_TOTAL,
  PROP_PLAN_BLOCKED,
  PROP_PLAN_LABEL,
  PROP_PLAN_TOOLTIP,
  PROP_ORIGIN,
  PROP_STALE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  LISTED_AHEAD,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static gboolean pd_session_item_apply (PdSessionItem       *self,
                                       const PdSessionInfo *info,
                                       GDateTime           *now);

/**
 * pd_session_source_label:
 * @source: the store's source token ("plandeck", "claude-code", …)
 *
 * Returns: the name a person knows the agent by
 */
const char *
pd_session_source_label (const char *source)
{
  if (source == NULL || g_str_equal (source, "plandeck"))
    return _("Plandeck");
  if (g_str_equal (source, "odek"))
    return "odek";
  if (g_str_equal (source, "claude-code"))
    return "Claude Code";
  if (g_str_equal (source, "claude-desktop"))
    return _("Claude desktop app");
  if (g_str_equal (source, "codex"))
    return "Codex";
  if (g_str_equal (source, "opencode"))
    return "OpenCode";
  if (g_str_equal (source, "qwen"))
    return "Qwen Code";
  if (g_str_equal (source, "gemini"))
    return "Gemini CLI";
  if (g_str_equal (source, "cline"))
    return "Cline";
  if (g_str_equal (source, "roo"))
    return "Roo Code";
  if (g_str_equal (source, "kilo"))
    return "Kilo Code";
  if (g_str_equal (source, "kilo-cli"))
    return "Kilo CLI";
  if (g_str_equal (source, "demo"))
    return _("Demo");
  return source;
}

/**
 * pd_format_relative_time:
 * @unix_usec: a moment, in microseconds since the epoch
 * @now: the present
 *
 * Returns: (transfer full): "just now", "5 min ago", "3 h ago", "yesterday",
 *   "4 days ago", or a date; a date too for a moment more than
 *   %PD_SESSION_FUTURE_MINUTES ahead of @now (a transcript dated 2099 read
 *   "just now" for ever)
 */
char *
pd_format_relative_time (gint64     unix_usec,
                         GDateTime *now)
{
  g_autoptr(GDateTime) then = NULL;
  g_autoptr(GDateTime) local = NULL;
  GTimeSpan span;
  gint64 minutes;
  gint64 hours;
  gint64 days;

  g_return_val_if_fail (now != NULL, NULL);

  then = g_date_time_new_from_unix_utc (unix_usec / G_USEC_PER_SEC);
  if (then == NULL)
    return g_strdup ("");

  span = g_date_time_difference (now, then);
  if (span < -(GTimeSpan) PD_SESSION_FUTURE_MINUTES * G_TIME_SPAN_MINUTE)
    {
      local = g_date_time_to_local (then);
      /* Translators: a date in a session list; see g_date_time_format(),
       * "%-d" a day without padding */
      return g_date_time_format (local, _("%-d %b %Y"));
    }
  if (span < G_TIME_SPAN_MINUTE)
    return g_strdup (_("just now"));

  minutes = span / G_TIME_SPAN_MINUTE;
  if (minutes < 60)
    /* Translators: a short relative time */
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%d min ago", "%d min ago", minutes),
                            (int) minutes);

  hours = span / G_TIME_SPAN_HOUR;
  if (hours < 24)
    /* Translators: a short relative time, in hours */
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%d h ago", "%d h ago", hours),
                            (int) hours);

  days = span / G_TIME_SPAN_DAY;
  if (days < 2)
    return g_strdup (_("yesterday"));
  if (days < 7)
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%d day ago", "%d days ago", days),
                            (int) days);

  local = g_date_time_to_local (then);
  /* Translators: a date in a session list; see g_date_time_format(),
   * "%-d" a day without padding: "%e" pads a day of one digit with a
   * space, which read as a double space after "Gemini CLI," (tried as a
   * new user would, nu19 #10) */
  return g_date_time_format (local, _("%-d %b %Y"));
}

/* One line: a task can hold line breaks, a title cannot. */
static char *
single_line (const char *text)
{
  char *line = g_strdup (text != NULL ? text : "");

  g_strstrip (line);
  for (char *p = line; *p != '\0'; p++)
    if (*p == '\n' || *p == '\r' || *p == '\t')
      *p = ' ';

  return line;
}

static char *
title_for (const PdSessionInfo *info)
{
  if (info->name != NULL && info->name[0] != '\0')
    return single_line (info->name);
  if (info->task != NULL && info->task[0] != '\0')
    return single_line (info->task);
  return g_strdup (_("Untitled session"));
}

static char *
plan_label_for (const PdSessionInfo *info)
{
  if (info->plan_total == 0)
    return g_strdup ("");
  return g_strdup_printf ("%u/%u", info->plan_done, info->plan_total);
}

static char *
plan_tooltip_for (const PdSessionInfo *info)
{
  g_autofree char *done = NULL;

  if (info->plan_total == 0)
    return g_strdup ("");

  /* Translators: a session's plan progress, e.g. "3 of 5 steps done" */
  done = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u of %u step done",
                                       "%u of %u steps done", info->plan_total),
                          info->plan_done, info->plan_total);
  if (info->plan_blocked == 0)
    return g_steal_pointer (&done);

  /* Translators: appended to "3 of 5 steps done" */
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s, %u blocked", "%s, %u blocked",
                                       info->plan_blocked),
                          done, info->plan_blocked);
}

static void
replace_string (char       **field,
                char        *value,
                GObject     *object,
                GParamSpec  *pspec)
{
  if (g_strcmp0 (*field, value) == 0)
    {
      g_free (value);
      return;
    }

  g_free (*field);
  *field = value;
  if (object != NULL)
    g_object_notify_by_pspec (object, pspec);
}

static void
pd_session_item_finalize (GObject *object)
{
  PdSessionItem *self = PD_SESSION_ITEM (object);

  g_clear_pointer (&self->info, pd_session_info_free);
  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->relative_time, g_free);
  g_clear_pointer (&self->plan_label, g_free);
  g_clear_pointer (&self->plan_tooltip, g_free);
  g_clear_pointer (&self->origin, g_free);

  G_OBJECT_CLASS (pd_session_item_parent_class)->finalize (object);
}

static void
pd_session_item_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  PdSessionItem *self = PD_SESSION_ITEM (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->info->id);
      break;
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    case PROP_ORIGIN:
      g_value_set_string (value, self->origin);
      break;
    case PROP_STALE:
      g_value_set_boolean (value, self->stale);
      break;
    case PROP_SOURCE_LABEL:
      g_value_set_string (value, pd_session_item_get_source_label (self));
      break;
    case PROP_STATUS_ICON:
      g_value_set_string (value, pd_session_item_get_status_icon (self));
      break;
    case PROP_STATUS_LABEL:
      g_value_set_string (value, pd_session_item_get_status_label (self));
      break;
    case PROP_RELATIVE_TIME:
      g_value_set_string (value, self->relative_time);
      break;
    case PROP_UPDATED_AT:
      g_value_set_int64 (value, self->info->updated_at);
      break;
    case PROP_PINNED:
      g_value_set_boolean (value, self->info->pinned);
      break;
    case PROP_RUNNING:
      g_value_set_boolean (value, self->info->status == PD_SESSION_STATUS_RUNNING);
      break;
    case PROP_HAS_PLAN:
      g_value_set_boolean (value, self->info->plan_total > 0);
      break;
    case PROP_PLAN_DONE:
      g_value_set_uint (value, self->info->plan_done);
      break;
    case PROP_PLAN_TOTAL:
      g_value_set_uint (value, self->info->plan_total);
      break;
    case PROP_PLAN_BLOCKED:
      g_value_set_uint (value, self->info->plan_blocked);
      break;
    case PROP_PLAN_LABEL:
      g_value_set_string (value, self->plan_label);
      break;
    case PROP_PLAN_TOOLTIP:
      g_value_set_string (value, self->plan_tooltip);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_session_item_class_init (PdSessionItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->finalize = pd_session_item_finalize;
  object_class->get_property = pd_session_item_get_property;

  properties[PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL, flags);
  properties[PROP_TITLE] = g_param_spec_string ("title", NULL, NULL, NULL, flags);
  properties[PROP_SOURCE_LABEL] = g_param_spec_string ("source-label", NULL, NULL, NULL, flags);
  properties[PROP_STATUS_ICON] = g_param_spec_string ("status-icon", NULL, NULL, NULL, flags);
  properties[PROP_STATUS_LABEL] = g_param_spec_string ("status-label", NULL, NULL, NULL, flags);
  properties[PROP_RELATIVE_TIME] = g_param_spec_string ("relative-time", NULL, NULL, NULL, flags);
  properties[PROP_UPDATED_AT] = g_param_spec_int64 ("updated-at", NULL, NULL,
                                                    G_MININT64, G_MAXINT64, 0, flags);
  properties[PROP_PINNED] = g_param_spec_boolean ("pinned", NULL, NULL, FALSE, flags);
  properties[PROP_RUNNING] = g_param_spec_boolean ("running", NULL, NULL, FALSE, flags);
  properties[PROP_HAS_PLAN] = g_param_spec_boolean ("has-plan", NULL, NULL, FALSE, flags);
  properties[PROP_PLAN_DONE] = g_param_spec_uint ("plan-done", NULL, NULL, 0, G_MAXUINT, 0, flags);
  properties[PROP_PLAN_TOTAL] = g_param_spec_uint ("plan-total", NULL, NULL, 0, G_MAXUINT, 0, flags);
  properties[PROP_PLAN_BLOCKED] = g_param_spec_uint ("plan-blocked", NULL, NULL,
                                                     0, G_MAXUINT, 0, flags);
  properties[PROP_PLAN_LABEL] = g_param_spec_string ("plan-label", NULL, NULL, NULL, flags);
  properties[PROP_PLAN_TOOLTIP] = g_param_spec_string ("plan-tooltip", NULL, NULL, NULL, flags);
  /* The source's name when the list shows several sources, else NULL. */
  properties[PROP_ORIGIN] = g_param_spec_string ("origin", NULL, NULL, NULL, flags);
  /* Listed from what its source gave last (an endpoint gone away). */
  properties[PROP_STALE] = g_param_spec_boolean ("stale", NULL, NULL, FALSE, flags);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * PdSessionItem::listed-ahead:
   *
   * A listing has a newer plan than the one shown on the Now page (which
   * the row keeps drawing): the Now page should read it.
   */
  signals[LISTED_AHEAD] = g_signal_new ("listed-ahead", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                        0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
pd_session_item_init (PdSessionItem *self)
{
  self->shown_version = -1;
}

/**
 * pd_session_item_new:
 * @info: the session
 * @now: the present, for the relative time
 *
 * Returns: (transfer full): an item holding a copy of @info
 */
/* Working as `sessions list` and the Overview card say it: another
 * agent's session written lately with steps left.  Its row's icon said
 * "Idle" beside the card's "Working" (tried as a new user would). */
static gboolean
working_at (const PdSessionInfo *info,
            GDateTime           *now)
{
  return info->status != PD_SESSION_STATUS_RUNNING &&
         pd_session_info_is_working (info, g_date_time_to_unix (now) * G_USEC_PER_SEC);
}

/* Stalled as `sessions list` and the Overview card say it: "Idle" in its
 * row and in an export (tried as a new user would, nu15). */
static gboolean
stalled_at (const PdSessionInfo *info,
            GDateTime           *now)
{
  return pd_session_info_is_stalled (info, g_date_time_to_unix (now) * G_USEC_PER_SEC);
}

PdSessionItem *
pd_session_item_new (const PdSessionInfo *info,
                     GDateTime           *now)
{
  PdSessionItem *self;

  g_return_val_if_fail (info != NULL && info->id != NULL, NULL);
  g_return_val_if_fail (now != NULL, NULL);

  self = g_object_new (PD_TYPE_SESSION_ITEM, NULL);
  self->info = pd_session_info_copy (info);
  self->title = title_for (info);
  self->relative_time = pd_format_relative_time (info->updated_at, now);
  self->working = working_at (info, now);
  self->stalled = stalled_at (info, now);
  self->plan_label = plan_label_for (info);
  self->plan_tooltip = plan_tooltip_for (info);

  return self;
}

const PdSessionInfo *
pd_session_item_get_info (PdSessionItem *self)
{
  g_return_val_if_fail (PD_IS_SESSION_ITEM (self), NULL);
  return self->info;
}

const char *
pd_session_item_get_id (PdSessionItem *self)
{
  g_return_val_if_fail (PD_IS_SESSION_ITEM (self), NULL);
  return self->info->id;
}

const char *
pd_session_item_get_title (PdSessionItem *self)
{
  g_return_val_if_fail (PD_IS_SESSION_ITEM (self), NULL);
  return self->title;
}

/* A session another agent recorded (read from its transcript): its Now
 * workspace is a checklist, not a plan of ours. */
gboolean
pd_session_item_is_imported (PdSessionItem *self)
{
  g_return_val_if_fail (PD_IS_SESSION_ITEM (self), FALSE);

  return pd_session_info_is_imported (self->info);
}

const char *
pd_session_item_get_source_label (PdSessionItem *self)
{
  g_return_val_if_fail (PD_IS_SESSION_ITEM (self), NULL);
  return pd_session_source_label (self->info->source);
}

/* Idle after a run that ended short of its answer ("budget", "cancelled",
 * …): a failed one says so by its status. */
static gboolean
pd_session_item_stopped_short (PdSessionItem *self)
{
  return pd_session_info_stopped_short (self->info);
}

const char *
pd_session_item_get_status_icon (PdSessionItem *self)
{
  g_return_val_if_fail (PD_IS_SESSION_ITEM (self), NULL);

  switch (self->info->status)
    {
    case PD_SESSION_STATUS_RUNNING:
      return "media-playback-start-symbolic";
    case PD_SESSION_STATUS_FAILED:
      return "dialog-error-symbolic";
    /* Interrupted (its process killed) is no failure: neutral, as a run
     * its endpoint stopped (a warning sign beside it, tried as a new user
     * would), but not the dot of a session at rest: it read as idle, where
     * the card says "Interrupted" (tried as a new user would). */
    case PD_SESSION_STATUS_INTERRUPTED:
      return "media-playback-stop-symbolic";
    case PD_SESSION_STATUS_IDLE:
    default:
      /* Nothing runs: a finished plan says so with a tick, anything else
       * with a plain dot.  Not a pause sign (finished runs looked paused,
       * tried as a new user would), and not radio-symbolic, whose own
       * 35 % fill left the icon at 1.3:1 against the list. */
      if (self->info->plan_total > 0 && self->info->plan_done == self->info->plan_total)
        return "object-select-symbolic";
      if (self->working)
        return "media-playback-start-symbolic";
      /* Its run ended short (a budget, a cancel): the plain dot of a
       * session at rest said nothing of it (tried as a new user would). */
      if (pd_session_item_stopped_short (self))
        return "media-playback-stop-symbolic";
      /* Steps left unchanged for a while: a clock, not the dot of a
       * session at rest (both were the same grey dot, tried as a new user
       * would; only a reader heard "Stalled"). */
      if (self->stalled)
        return "preferences-system-time-symbolic";
      return "media-record-symbolic";
    }
}

const char *
pd_session_item_get_status_label (PdSessionItem *self)
{
  g_return_val_if_fail (PD_IS_SESSION_ITEM (self), NULL);

  if (pd_session_item_stopped_short (self))
    return C_("session status", "Stopped");
  if (self->working)
    /* TRANSLATORS: another agent's session written lately with steps left, as its Overview card says */
    return C_("session status", "Working");
  if (self->stalled)
    /* TRANSLATORS: unfinished steps unchanged for a while, as its Overview card says */
    return C_("session status", "Stalled");
  if (self->info->status == PD_SESSION_STATUS_IDLE && self->info->plan_total > 0 &&
      self->info->plan_done == self->info->plan_total)
    /* TRANSLATORS: at rest with every step of its plan done, as its Overview card says */
    return C_("session status", "Done");
  return _pd_session_status_label (self->info->status);
}

/**
 * pd_session_item_get_working:
 *
 * Returns: whether it is worked on (a run of ours, or another agent's
 *   session written lately with steps left), as its Overview card says
 */
gboolean
pd_session_item_get_working (PdSessionItem *self)
{
  g_return_val_if_fail (PD_IS_SESSION_ITEM (self), FALSE);
  return self->working || self->info->status == PD_SESSION_STATUS_RUNNING;
}

const char *
pd_session_item_get_relative_time (PdSessionItem *self)
{
  g_return_val_if_fail (PD_IS_SESSION_ITEM (self), NULL);
  return self->relative_time;
}

gboolean
pd_session_item_get_pinned (PdSessionItem *self)
{
  g_return_val_if_fail (PD_IS_SESSION_ITEM (self), FALSE);
  return self->info->pinned;
}

gboolean
pd_session_item_get_running (PdSessionItem *self)
{
  g_return_val_if_fail (PD_IS_SESSION_ITEM (self), FALSE);
  return self->info->status == PD_SESSION_STATUS_RUNNING;
}

/**
 * pd_session_item_update_time:
 *
 * Recomputes the relative time against @now; notifies when its text changed.
 */
void
pd_session_item_update_time (PdSessionItem *self,
                             GDateTime     *now)
{
  g_return_if_fail (PD_IS_SESSION_ITEM (self));

  replace_string (&self->relative_time, pd_format_relative_time (self->info->updated_at, now),
                  G_OBJECT (self), properties[PROP_RELATIVE_TIME]);
  if (working_at (self->info, now) != self->working)
    {
      self->working = !self->working;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATUS_ICON]);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATUS_LABEL]);
    }
  if (stalled_at (self->info, now) != self->stalled)
    {
      self->stalled = !self->stalled;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATUS_ICON]);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATUS_LABEL]);
    }
}

/**
 * pd_session_item_update:
 * @info: a newer listing of the same session
 *
 * Takes @info and notifies the properties whose values changed.  While the
 * session is shown on the Now page (pd_session_item_show_plan()) its plan
 * summary stays the one shown there; a listing with a newer plan version
 * emits ::listed-ahead instead, for the Now page to catch up.
 *
 * Returns: %TRUE when anything changed
 */
gboolean
pd_session_item_update (PdSessionItem       *self,
                        const PdSessionInfo *info,
                        GDateTime           *now)
{
  g_autoptr(PdSessionInfo) effective = NULL;
  gboolean ahead;
  gboolean changed;

  g_return_val_if_fail (PD_IS_SESSION_ITEM (self), FALSE);
  g_return_val_if_fail (info != NULL && g_strcmp0 (info->id, self->info->id) == 0, FALSE);

  if (self->shown_version < 0)
    return pd_session_item_apply (self, info, now);

  ahead = info->plan_version > self->shown_version;
  effective = pd_session_info_copy (info);
  effective->plan_version = self->shown_version;
  effective->plan_done = self->shown_done;
  effective->plan_total = self->shown_total;
  effective->plan_blocked = self->shown_blocked;
  changed = pd_session_item_apply (self, effective, now);
  if (ahead)
    g_signal_emit (self, signals[LISTED_AHEAD], 0);
  return changed;
}

/**
 * pd_session_item_show_plan:
 * @plan: (nullable): the plan the Now page shows for this session, or
 *   %NULL when it no longer shows it
 *
 * Makes the row draw @plan's summary, the same snapshot as the Now page.
 */
void
pd_session_item_show_plan (PdSessionItem     *self,
                           const PdPlanState *plan)
{
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(GDateTime) now = NULL;
  PdPlanCounts counts = { 0 };

  g_return_if_fail (PD_IS_SESSION_ITEM (self));

  if (plan == NULL)
    {
      self->shown_version = -1;
      return;
    }

  pd_plan_state_count (plan, &counts);
  self->shown_version = plan->version;
  self->shown_done = counts.done;
  self->shown_total = counts.steps;
  self->shown_blocked = counts.blocked;

  info = pd_session_info_copy (self->info);
  info->plan_version = plan->version;
  info->plan_done = counts.done;
  info->plan_total = counts.steps;
  info->plan_blocked = counts.blocked;
  now = g_date_time_new_now_utc ();
  pd_session_item_apply (self, info, now);
}

/**
 * pd_session_item_get_plan_version:
 *
 * Returns: the version of the plan the row summarises, 0 for none
 */
gint64
pd_session_item_get_plan_version (PdSessionItem *self)
{
  g_return_val_if_fail (PD_IS_SESSION_ITEM (self), 0);
  return self->info->plan_version;
}

static gboolean
pd_session_item_apply (PdSessionItem       *self,
                       const PdSessionInfo *info,
                       GDateTime           *now)
{
  g_autoptr(PdSessionInfo) old = NULL;
  GObject *object = G_OBJECT (self);
  gboolean changed;

  old = g_steal_pointer (&self->info);
  self->info = pd_session_info_copy (info);

  changed = (g_strcmp0 (old->name, info->name) != 0 ||
             g_strcmp0 (old->task, info->task) != 0 ||
             g_strcmp0 (old->source, info->source) != 0 ||
             old->status != info->status ||
             old->updated_at != info->updated_at ||
             old->pinned != info->pinned ||
             old->plan_version != info->plan_version ||
             old->plan_done != info->plan_done ||
             old->plan_total != info->plan_total ||
             old->plan_blocked != info->plan_blocked);
  if (!changed)
    {
      pd_session_item_update_time (self, now);
      return FALSE;
    }

  g_object_freeze_notify (object);
  if (working_at (info, now) != self->working)
    {
      self->working = !self->working;
      g_object_notify_by_pspec (object, properties[PROP_STATUS_ICON]);
      g_object_notify_by_pspec (object, properties[PROP_STATUS_LABEL]);
    }
  if (stalled_at (info, now) != self->stalled)
    {
      self->stalled = !self->stalled;
      g_object_notify_by_pspec (object, properties[PROP_STATUS_ICON]);
      g_object_notify_by_pspec (object, properties[PROP_STATUS_LABEL]);
    }

  replace_string (&self->title, title_for (info), object, properties[PROP_TITLE]);
  if (g_strcmp0 (old->source, info->source) != 0)
    g_object_notify_by_pspec (object, properties[PROP_SOURCE_LABEL]);
  if (old->status != info->status ||
      (old->plan_total > 0 && old->plan_done == old->plan_total) != (info->plan_total > 0 && info->plan_done == info->plan_total))
    {
      g_object_notify_by_pspec (object, properties[PROP_STATUS_ICON]);
      g_object_notify_by_pspec (object, properties[PROP_STATUS_LABEL]);
    }
  if (old->status != info->status)
    {
      g_object_notify_by_pspec (object, properties[PROP_STATUS_LABEL]);
      g_object_notify_by_pspec (object, properties[PROP_RUNNING]);
    }
  if (old->updated_at != info->updated_at)
    g_object_notify_by_pspec (object, properties[PROP_UPDATED_AT]);
  pd_session_item_update_time (self, now);
  if (old->pinned != info->pinned)
    g_object_notify_by_pspec (object, properties[PROP_PINNED]);
  if ((old->plan_total > 0) != (info->plan_total > 0))
    g_object_notify_by_pspec (object, properties[PROP_HAS_PLAN]);
  if (old->plan_done != info->plan_done)
    g_object_notify_by_pspec (object, properties[PROP_PLAN_DONE]);
  if (old->plan_total != info->plan_total)
    g_object_notify_by_pspec (object, properties[PROP_PLAN_TOTAL]);
  if (old->plan_blocked != info->plan_blocked)
    g_object_notify_by_pspec (object, properties[PROP_PLAN_BLOCKED]);
  replace_string (&self->plan_label, plan_label_for (info), object, properties[PROP_PLAN_LABEL]);
  replace_string (&self->plan_tooltip, plan_tooltip_for (info), object,
                  properties[PROP_PLAN_TOOLTIP]);

  g_object_thaw_notify (object);

  return TRUE;
}

/* Returns: (nullable): the name of the source the session came from, set
 * when the list shows several sources */
const char *
pd_session_item_get_origin (PdSessionItem *self)
{
  g_return_val_if_fail (PD_IS_SESSION_ITEM (self), NULL);

  return self->origin;
}

void
pd_session_item_set_origin (PdSessionItem *self,
                            const char    *origin)
{
  g_return_if_fail (PD_IS_SESSION_ITEM (self));

  if (g_strcmp0 (self->origin, origin) == 0)
    return;
  g_free (self->origin);
  self->origin = g_strdup (origin);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ORIGIN]);
}

gboolean
pd_session_item_get_stale (PdSessionItem *self)
{
  g_return_val_if_fail (PD_IS_SESSION_ITEM (self), FALSE);

  return self->stale;
}

void
pd_session_item_set_stale (PdSessionItem *self,
                           gboolean       stale)
{
  g_return_if_fail (PD_IS_SESSION_ITEM (self));

  if (self->stale == !!stale)
    return;
  self->stale = !!stale;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STALE]);
}
