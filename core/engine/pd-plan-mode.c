/* pd-plan-mode.c: plan mode, the planning collaboration phase.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-engine"

#include "config.h"

#include <json-glib/json-glib.h>

#include "pd-callback-slot.h"
#include "pd-json.h"
#include "pd-json-util.h"
#include "pd-plan-mode.h"

typedef enum
{
  PENDING_NONE = -1,
  PENDING_OFF = 0,
  PENDING_ON = 1,
} Pending;

struct _PdPlanMode
{
  GObject               parent_instance;

  GMutex                mutex;
  gboolean              logged;       /* the fold of the log */
  Pending               pending;
  gboolean              narrate;      /* tell the model when it lands */
  gboolean              model_saw;    /* the state the last request described */
  gboolean              turn_open;
  gboolean              advisory;
  char                 *section;

  PdCallbackSlot        append;       /* PdPlanModeAppendFunc */
};

G_DEFINE_FINAL_TYPE (PdPlanMode, pd_plan_mode, G_TYPE_OBJECT)

static void
pd_plan_mode_finalize (GObject *object)
{
  PdPlanMode *self = (PdPlanMode *) object;

  pd_callback_slot_clear (&self->append);
  g_free (self->section);
  g_mutex_clear (&self->mutex);

  G_OBJECT_CLASS (pd_plan_mode_parent_class)->finalize (object);
}

static void
pd_plan_mode_class_init (PdPlanModeClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_plan_mode_finalize;
}

static void
pd_plan_mode_init (PdPlanMode *self)
{
  g_mutex_init (&self->mutex);
  self->pending = PENDING_NONE;
  self->section = g_strdup (PD_PLAN_MODE_DEFAULT_SECTION);
}

/**
 * pd_plan_mode_fold:
 * @event_jsons: (element-type utf8): stored events as JSON text, oldest first
 *
 * The state in force: the `active` of the last well-formed plan_mode event,
 * inactive when there is none.  Events of other types are skipped, and so is
 * a plan_mode event whose `active` is not a boolean.
 */
gboolean
pd_plan_mode_fold (GPtrArray *event_jsons)
{
  gboolean active = FALSE;

  for (guint i = 0; event_jsons != NULL && i < event_jsons->len; i++)
    {
      g_autoptr(JsonNode) node = pd_json_parse (g_ptr_array_index (event_jsons, i), -1, NULL);
      JsonObject *event;

      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        continue;
      event = json_node_get_object (node);
      /* An event of another type, or without a true or false, changes
       * nothing. */
      if (g_strcmp0 (pd_json_get_string (event, "type"), PD_PLAN_MODE_EVENT) == 0)
        active = pd_json_get_boolean (pd_json_get_object (event, "data"), "active", active);
    }

  return active;
}

const char *
pd_plan_mode_set_result_to_string (PdPlanModeSetResult result)
{
  switch (result)
    {
    case PD_PLAN_MODE_COMMITTED: return "committed";
    case PD_PLAN_MODE_QUEUED: return "queued";
    case PD_PLAN_MODE_CANCELLED: return "cancelled";
    case PD_PLAN_MODE_NOOP:
    default: return "noop";
    }
}

/**
 * pd_plan_mode_new:
 * @logged_active: the fold of the session's log
 */
PdPlanMode *
pd_plan_mode_new (gboolean logged_active)
{
  PdPlanMode *self = g_object_new (PD_TYPE_PLAN_MODE, NULL);

  self->logged = logged_active;
  self->model_saw = logged_active;
  return self;
}

void
pd_plan_mode_set_append_func (PdPlanMode           *self,
                              PdPlanModeAppendFunc  func,
                              gpointer              user_data,
                              GDestroyNotify        destroy)
{
  g_return_if_fail (PD_IS_PLAN_MODE (self));

  pd_callback_slot_set (&self->append, &self->mutex, G_CALLBACK (func), user_data, destroy);
}

/* The logged state: what shapes the current step. */
gboolean
pd_plan_mode_get_active (PdPlanMode *self)
{
  g_return_val_if_fail (PD_IS_PLAN_MODE (self), FALSE);

  return pd_plan_mode_get (self, NULL);
}

/**
 * pd_plan_mode_get:
 * @pending: (out) (optional): whether a selection awaits a step boundary
 *
 * Returns: the logged state
 */
gboolean
pd_plan_mode_get (PdPlanMode *self,
                  gboolean   *pending)
{
  gboolean active;

  g_return_val_if_fail (PD_IS_PLAN_MODE (self), FALSE);

  g_mutex_lock (&self->mutex);
  active = self->logged;
  if (pending)
    *pending = self->pending != PENDING_NONE && (gboolean) self->pending != self->logged;
  g_mutex_unlock (&self->mutex);
  return active;
}

/* An open turn is the engine running a step loop; between turns a
 * selection has no boundary to wait for. */
void
pd_plan_mode_set_turn_open (PdPlanMode *self,
                            gboolean    open)
{
  g_return_if_fail (PD_IS_PLAN_MODE (self));

  g_mutex_lock (&self->mutex);
  self->turn_open = open;
  g_mutex_unlock (&self->mutex);
}

static gboolean
append_locked (PdPlanMode *self,
               gboolean    active)
{
  g_autoptr(GError) error = NULL;

  if (self->append.func == NULL)
    return TRUE;   /* no log: the state lives in this object */

  if (!((PdPlanModeAppendFunc) self->append.func) (active, self->append.data, &error))
    {
      g_message ("plan mode change not logged (it stays pending): %s", error ? error->message : "unknown error");
      return FALSE;
    }

  return TRUE;
}

/**
 * pd_plan_mode_set:
 *
 * Selects plan mode on or off.
 *
 * Returns: %PD_PLAN_MODE_NOOP when that is already the logged-or-pending
 *   state; %PD_PLAN_MODE_CANCELLED when an opposite pending selection was
 *   dropped and the logged state already matches; %PD_PLAN_MODE_QUEUED when
 *   a turn is open (it lands at the next step boundary, or the append
 *   failed and will be retried there); %PD_PLAN_MODE_COMMITTED when it was
 *   logged at once
 */
PdPlanModeSetResult
pd_plan_mode_set (PdPlanMode *self,
                  gboolean    active)
{
  g_autoptr(GMutexLocker) locker = NULL;
  gboolean target_now;

  g_return_val_if_fail (PD_IS_PLAN_MODE (self), PD_PLAN_MODE_NOOP);

  locker = g_mutex_locker_new (&self->mutex);
  active = !!active;
  target_now = self->pending != PENDING_NONE ? (gboolean) self->pending : self->logged;

  if (active == target_now)
    return PD_PLAN_MODE_NOOP;

  if (self->turn_open)
    {
      if (self->logged == active)
        {
          self->pending = PENDING_NONE;
          return PD_PLAN_MODE_CANCELLED;
        }
      self->pending = active ? PENDING_ON : PENDING_OFF;
      self->narrate = TRUE;
      return PD_PLAN_MODE_QUEUED;
    }

  /* Idle: log now.  The intent is dropped only after the append worked. */
  self->pending = active ? PENDING_ON : PENDING_OFF;
  self->narrate = TRUE;
  if (!append_locked (self, active))
    return PD_PLAN_MODE_QUEUED;

  self->logged = active;
  self->pending = PENDING_NONE;
  return PD_PLAN_MODE_COMMITTED;
}

/* An approved exit_plan_mode: inactive from the next boundary, silently —
 * the tool result itself tells the model. */
void
pd_plan_mode_request_exit (PdPlanMode *self)
{
  g_return_if_fail (PD_IS_PLAN_MODE (self));

  g_mutex_lock (&self->mutex);
  if (self->logged || self->pending == PENDING_ON)
    {
      self->pending = PENDING_OFF;
      self->narrate = FALSE;
    }
  g_mutex_unlock (&self->mutex);
}

/**
 * pd_plan_mode_flush:
 *
 * The step boundary: lands a pending selection (before the next model
 * request) and records that the request describes the logged state.
 *
 * Returns: (transfer full) (nullable): a notice for the model when the
 *   selection changed the state it last saw, or %NULL
 */
char *
pd_plan_mode_flush (PdPlanMode *self)
{
  g_autoptr(GMutexLocker) locker = NULL;
  gboolean narrate = FALSE;

  g_return_val_if_fail (PD_IS_PLAN_MODE (self), NULL);

  locker = g_mutex_locker_new (&self->mutex);

  if (self->pending != PENDING_NONE)
    {
      gboolean target = (gboolean) self->pending;

      if (target != self->logged)
        {
          if (!append_locked (self, target))
            return NULL;   /* stays pending; the turn goes on */
          self->logged = target;
        }
      narrate = self->narrate;
      self->pending = PENDING_NONE;
    }

  if (self->logged == self->model_saw)
    return NULL;

  self->model_saw = self->logged;
  if (!narrate)
    return NULL;

  return g_strdup (self->logged
                   ? "[plandeck: plan mode is now active. Explore and plan; do not change anything until your plan "
                     "is approved through exit_plan_mode.]"
                   : "[plandeck: plan mode is now off. You may carry out the work.]");
}

const char *
pd_plan_mode_get_section (PdPlanMode *self)
{
  g_return_val_if_fail (PD_IS_PLAN_MODE (self), NULL);
  return self->section;
}

void
pd_plan_mode_set_section (PdPlanMode *self,
                          const char *section)
{
  g_return_if_fail (PD_IS_PLAN_MODE (self));

  g_mutex_lock (&self->mutex);
  g_free (self->section);
  self->section = g_strdup (section && *section ? section : PD_PLAN_MODE_DEFAULT_SECTION);
  g_mutex_unlock (&self->mutex);
}

/* Advisory: the guidance stays, the read-only guard is off. */
gboolean
pd_plan_mode_get_advisory (PdPlanMode *self)
{
  g_return_val_if_fail (PD_IS_PLAN_MODE (self), FALSE);
  return self->advisory;
}

void
pd_plan_mode_set_advisory (PdPlanMode *self,
                           gboolean    advisory)
{
  g_return_if_fail (PD_IS_PLAN_MODE (self));
  self->advisory = advisory;
}
