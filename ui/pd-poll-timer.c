/* pd-poll-timer.c: the cadence of a live view's polling
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A view that follows a run asks its source again and again.  How often
 * is decided here, away from any widget, so it can be tested on its own:
 * every `running_ms` while the session's run is active, every `idle_ms`
 * while the view is visible and the run idle, and not at all while the
 * view is hidden.  Each period ends with ::tick.
 */
#define G_LOG_DOMAIN "pd-poll-timer"

#include "config.h"

#include "pd-poll-timer.h"

struct _PdPollTimer
{
  GObject           parent_instance;

  guint             running_ms;
  guint             idle_ms;
  gboolean          visible;
  gboolean          running;

  guint             interval;   /* of the scheduled source; 0 when stopped */
  guint             source_id;

  PdPollAddFunc     add;
  PdPollRemoveFunc  remove;
  gpointer          scheduler_data;
};

G_DEFINE_FINAL_TYPE (PdPollTimer, pd_poll_timer, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_VISIBLE,
  PROP_RUNNING,
  PROP_INTERVAL,
  N_PROPS
};

enum {
  TICK,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static guint
default_add (guint       interval_ms,
             GSourceFunc func,
             gpointer    func_data,
             gpointer    user_data)
{
  /* Whole seconds let the main loop group wake-ups with other timers. */
  if (interval_ms >= 2000 && interval_ms % 1000 == 0)
    return g_timeout_add_seconds (interval_ms / 1000, func, func_data);

  return g_timeout_add (interval_ms, func, func_data);
}

static void
default_remove (guint    id,
                gpointer user_data)
{
  g_source_remove (id);
}

static gboolean
on_timeout (gpointer user_data)
{
  PdPollTimer *self = PD_POLL_TIMER (user_data);

  g_signal_emit (self, signals[TICK], 0);

  return G_SOURCE_CONTINUE;
}

static guint
pd_poll_timer_wanted_interval (PdPollTimer *self)
{
  if (!self->visible)
    return 0;

  return self->running ? self->running_ms : self->idle_ms;
}

static void
pd_poll_timer_reschedule (PdPollTimer *self)
{
  guint wanted = pd_poll_timer_wanted_interval (self);

  if (wanted == self->interval)
    return;

  if (self->source_id != 0)
    {
      self->remove (self->source_id, self->scheduler_data);
      self->source_id = 0;
    }

  self->interval = wanted;
  if (wanted > 0)
    self->source_id = self->add (wanted, on_timeout, self, self->scheduler_data);

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INTERVAL]);
}

static void
pd_poll_timer_dispose (GObject *object)
{
  PdPollTimer *self = PD_POLL_TIMER (object);

  if (self->source_id != 0)
    {
      self->remove (self->source_id, self->scheduler_data);
      self->source_id = 0;
    }
  self->interval = 0;

  G_OBJECT_CLASS (pd_poll_timer_parent_class)->dispose (object);
}

static void
pd_poll_timer_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  PdPollTimer *self = PD_POLL_TIMER (object);

  switch (prop_id)
    {
    case PROP_VISIBLE:
      g_value_set_boolean (value, self->visible);
      break;

    case PROP_RUNNING:
      g_value_set_boolean (value, self->running);
      break;

    case PROP_INTERVAL:
      g_value_set_uint (value, self->interval);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_poll_timer_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  PdPollTimer *self = PD_POLL_TIMER (object);

  switch (prop_id)
    {
    case PROP_VISIBLE:
      pd_poll_timer_set_visible (self, g_value_get_boolean (value));
      break;

    case PROP_RUNNING:
      pd_poll_timer_set_running (self, g_value_get_boolean (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_poll_timer_class_init (PdPollTimerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = pd_poll_timer_dispose;
  object_class->get_property = pd_poll_timer_get_property;
  object_class->set_property = pd_poll_timer_set_property;

  properties[PROP_VISIBLE] =
    g_param_spec_boolean ("visible", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_RUNNING] =
    g_param_spec_boolean ("running", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /**
   * PdPollTimer:interval:
   *
   * Milliseconds between ticks, 0 while stopped.
   */
  properties[PROP_INTERVAL] =
    g_param_spec_uint ("interval", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * PdPollTimer::tick:
   *
   * Time to ask the source again.
   */
  signals[TICK] = g_signal_new ("tick", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
pd_poll_timer_init (PdPollTimer *self)
{
  self->add = default_add;
  self->remove = default_remove;
}

/**
 * pd_poll_timer_new:
 * @running_ms: period while the run is active
 * @idle_ms: period while visible and idle
 *
 * Returns: (transfer full): a stopped timer (not visible)
 */
PdPollTimer *
pd_poll_timer_new (guint running_ms,
                   guint idle_ms)
{
  PdPollTimer *self;

  g_return_val_if_fail (running_ms > 0 && idle_ms > 0, NULL);

  self = g_object_new (PD_TYPE_POLL_TIMER, NULL);
  self->running_ms = running_ms;
  self->idle_ms = idle_ms;

  return self;
}

/**
 * pd_poll_timer_set_scheduler:
 * @add: schedules a repeating callback and returns its id
 * @remove: cancels one
 *
 * Replaces the main-loop timeouts; only while the timer is stopped.
 */
void
pd_poll_timer_set_scheduler (PdPollTimer      *self,
                             PdPollAddFunc     add,
                             PdPollRemoveFunc  remove,
                             gpointer          user_data)
{
  g_return_if_fail (PD_IS_POLL_TIMER (self));
  g_return_if_fail (add != NULL && remove != NULL);
  g_return_if_fail (self->source_id == 0);

  self->add = add;
  self->remove = remove;
  self->scheduler_data = user_data;
}

/* Visible and running both choose the interval: a change of either
 * reschedules the ticks. */
static void
pd_poll_timer_set_flag (PdPollTimer *self,
                        gboolean    *flag,
                        gboolean     value,
                        guint        prop_id)
{
  value = !!value;
  if (*flag == value)
    return;

  *flag = value;
  pd_poll_timer_reschedule (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop_id]);
}

void
pd_poll_timer_set_visible (PdPollTimer *self,
                           gboolean     visible)
{
  g_return_if_fail (PD_IS_POLL_TIMER (self));

  pd_poll_timer_set_flag (self, &self->visible, visible, PROP_VISIBLE);
}

gboolean
pd_poll_timer_get_visible (PdPollTimer *self)
{
  g_return_val_if_fail (PD_IS_POLL_TIMER (self), FALSE);

  return self->visible;
}

void
pd_poll_timer_set_running (PdPollTimer *self,
                           gboolean     running)
{
  g_return_if_fail (PD_IS_POLL_TIMER (self));

  pd_poll_timer_set_flag (self, &self->running, running, PROP_RUNNING);
}

gboolean
pd_poll_timer_get_running (PdPollTimer *self)
{
  g_return_val_if_fail (PD_IS_POLL_TIMER (self), FALSE);

  return self->running;
}

/**
 * pd_poll_timer_get_interval:
 *
 * Returns: milliseconds between ticks, 0 while stopped
 */
guint
pd_poll_timer_get_interval (PdPollTimer *self)
{
  g_return_val_if_fail (PD_IS_POLL_TIMER (self), 0);

  return self->interval;
}
