/* pd-plan-store.c: the plan tool's state, behind one mutex.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-plan"

#include "config.h"

#include <string.h>

#include "pd-json.h"
#include "pd-json-util.h"
#include "pd-plan-edit-private.h"
#include "pd-plan-error.h"
#include "pd-plan-limits.h"
#include "pd-plan-render.h"
#include "pd-plan-store.h"
#include "pd-plan-text.h"

struct _PdPlanStore
{
  GObject           parent_instance;

  GMutex            mutex;
  PdPlanState      *state;           /* never NULL; no steps = no plan */
  guint             max_steps;
  guint             max_render_chars;
  guint64           batch;           /* current tool batch, from 1 */

  guint             blocked_streak;

  PdPlanChangeFunc  change_func;
  gpointer          change_data;
  GDestroyNotify    change_destroy;
};

G_DEFINE_FINAL_TYPE (PdPlanStore, pd_plan_store, G_TYPE_OBJECT)

static void
pd_plan_store_finalize (GObject *object)
{
  PdPlanStore *self = (PdPlanStore *) object;

  if (self->change_destroy)
    self->change_destroy (self->change_data);

  g_clear_pointer (&self->state, pd_plan_state_free);
  g_mutex_clear (&self->mutex);

  G_OBJECT_CLASS (pd_plan_store_parent_class)->finalize (object);
}

static void
pd_plan_store_class_init (PdPlanStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_plan_store_finalize;
}

static void
pd_plan_store_init (PdPlanStore *self)
{
  g_mutex_init (&self->mutex);
  self->state = pd_plan_state_new ();
  self->batch = 1;
  self->max_steps = PD_PLAN_DEFAULT_MAX_STEPS;
  self->max_render_chars = PD_PLAN_DEFAULT_MAX_RENDER_CHARS;
}

/**
 * pd_plan_store_new:
 * @max_steps: resolved config value (clamped to 1..50)
 * @max_render_chars: resolved config value (clamped to 200..8000)
 */
PdPlanStore *
pd_plan_store_new (guint max_steps,
                   guint max_render_chars)
{
  PdPlanStore *self = g_object_new (PD_TYPE_PLAN_STORE, NULL);

  self->max_steps = CLAMP (max_steps, PD_PLAN_MIN_MAX_STEPS, PD_PLAN_STEP_CEILING);
  self->max_render_chars = CLAMP (max_render_chars, PD_PLAN_MIN_RENDER_CHARS, PD_PLAN_MAX_RENDER_CHARS_CEILING);

  return self;
}

guint
pd_plan_store_get_max_steps (PdPlanStore *self)
{
  g_return_val_if_fail (PD_IS_PLAN_STORE (self), 0);
  return self->max_steps;
}

guint
pd_plan_store_get_max_render_chars (PdPlanStore *self)
{
  g_return_val_if_fail (PD_IS_PLAN_STORE (self), 0);
  return self->max_render_chars;
}

void
pd_plan_store_set_change_func (PdPlanStore      *self,
                               PdPlanChangeFunc  func,
                               gpointer          user_data,
                               GDestroyNotify    destroy)
{
  g_return_if_fail (PD_IS_PLAN_STORE (self));

  g_mutex_lock (&self->mutex);
  if (self->change_destroy)
    self->change_destroy (self->change_data);
  self->change_func = func;
  self->change_data = user_data;
  self->change_destroy = destroy;
  g_mutex_unlock (&self->mutex);
}

/* Called with the lock held, once per version bump. */
static void
notify_locked (PdPlanStore *self,
               gboolean     created,
               gboolean     revised,
               gboolean     blocked_fired)
{
  PdPlanChange change = { 0 };
  PdPlanCounts counts;

  if (self->change_func == NULL)
    return;

  pd_plan_state_count (self->state, &counts);
  change.created = created;
  change.revised = revised;
  change.steps = counts.steps;
  change.done = counts.done;
  change.in_progress = counts.in_progress;
  change.blocked = counts.blocked;
  change.pending = counts.pending;
  change.version = self->state->version;
  change.blocked_streak = self->blocked_streak;
  change.blocked_fired = blocked_fired;

  self->change_func (&change, self->change_data);
}

/* Commits @work as the next version.  Lock held. */
static void
commit_locked (PdPlanStore *self,
               PdPlanState *work,
               gboolean     created,
               gboolean     revised,
               GArray      *transitions)
{
  gboolean blocked_fired = FALSE;

  work->version = self->state->version + 1;
  pd_plan_state_free (self->state);
  self->state = work;

  /* Three consecutive transitions to blocked complete a streak; a create or
   * a step moving to done or in_progress breaks it. */
  if (created)
    self->blocked_streak = 0;

  for (guint i = 0; transitions && i < transitions->len; i++)
    {
      PdPlanStepStatus status = g_array_index (transitions, PdPlanStepStatus, i);

      if (status == PD_PLAN_STEP_BLOCKED)
        {
          if (++self->blocked_streak >= 3)
            {
              blocked_fired = TRUE;
              self->blocked_streak = 0;
            }
        }
      else if (status == PD_PLAN_STEP_DONE || status == PD_PLAN_STEP_IN_PROGRESS)
        self->blocked_streak = 0;
    }

  if (blocked_fired)
    {
      /* Report the completed streak, then start over. */
      self->blocked_streak = 3;
      notify_locked (self, created, revised, TRUE);
      self->blocked_streak = 0;
      return;
    }

  notify_locked (self, created, revised, FALSE);
}

static char *
render_locked (PdPlanStore *self)
{
  char *render = pd_plan_render (self->state, self->max_render_chars);

  return render ? render : g_strdup (PD_PLAN_NO_PLAN_TEXT);
}

static const struct {
  const char     *name;
  PdPlanVerbFunc  func;
} verbs[] = {
  { "create", _pd_plan_verb_create },
  { "update", _pd_plan_verb_update },
  { "complete", _pd_plan_verb_complete },
  { "revise", _pd_plan_verb_revise },
  { "check_replace", _pd_plan_verb_check_replace },
};

#define VERB_LIST "create/update/complete/revise/check_replace/get"

/**
 * pd_plan_store_execute_node:
 * @args: the plan tool's arguments object
 * @version: (out) (optional): the version after the call, success or not
 *
 * Runs one plan tool call.  On success the result is the current render
 * (plus notes about inferred shapes); on failure nothing changed.
 *
 * Returns: (transfer full) (nullable): the result text
 */
char *
pd_plan_store_execute_node (PdPlanStore  *self,
                            JsonNode     *args,
                            gint64       *version,
                            GError      **error)
{
  g_autoptr(GMutexLocker) locker = NULL;
  g_autoptr(GString) notes = NULL;
  g_autoptr(PdPlanState) work = NULL;
  g_autoptr(GArray) transitions = NULL;
  JsonObject *object;
  JsonNode *verb_node;
  const char *verb;
  PdPlanVerbFunc func = NULL;
  PdPlanEdit edit = { 0 };
  char *result;

  g_return_val_if_fail (PD_IS_PLAN_STORE (self), NULL);

  locker = g_mutex_locker_new (&self->mutex);

  if (version)
    *version = self->state->version;

  if (args == NULL || !JSON_NODE_HOLDS_OBJECT (args))
    {
      g_set_error_literal (error, PD_PLAN_ERROR, PD_PLAN_ERROR_INVALID_ARGS,
                           "plan: parse args: the arguments must be a JSON object");
      return NULL;
    }

  object = json_node_get_object (args);
  verb_node = json_object_get_member (object, "verb");

  if (verb_node == NULL || JSON_NODE_HOLDS_NULL (verb_node))
    {
      g_autofree char *keys = _pd_plan_received_keys (object);

      g_set_error (error, PD_PLAN_ERROR, PD_PLAN_ERROR_INVALID_ARGS,
                   "plan: missing 'verb' (want " VERB_LIST "); received keys: %s%s", keys,
                   json_object_has_member (object, "steps") ? " \xe2\x80\x94 a 'steps' list goes with verb 'create'" : "");
      return NULL;
    }

  verb = pd_json_node_get_string (verb_node);

  if (verb == NULL)
    {
      g_set_error_literal (error, PD_PLAN_ERROR, PD_PLAN_ERROR_INVALID_ARGS,
                           "plan: unknown verb (want " VERB_LIST "): 'verb' must be a string");
      return NULL;
    }

  if (strcmp (verb, "get") == 0)
    return render_locked (self);

  for (guint i = 0; i < G_N_ELEMENTS (verbs); i++)
    if (strcmp (verb, verbs[i].name) == 0)
      func = verbs[i].func;

  if (func == NULL)
    {
      g_autofree char *shown = g_utf8_make_valid (verb, MIN (strlen (verb), 64));

      g_set_error (error, PD_PLAN_ERROR, PD_PLAN_ERROR_INVALID_ARGS,
                   "plan: unknown verb \"%s\" (want " VERB_LIST ")", shown);
      return NULL;
    }

  notes = g_string_new (NULL);
  work = pd_plan_state_copy (self->state);
  transitions = g_array_new (FALSE, FALSE, sizeof (PdPlanStepStatus));

  edit.current = self->state;
  edit.work = work;
  edit.max_steps = self->max_steps;
  edit.max_render_chars = self->max_render_chars;
  edit.batch = self->batch;
  edit.notes = notes;
  edit.transitions = transitions;

  if (!func (&edit, object, error))
    return NULL;

  /* The verb may have replaced the working state's members but not the
   * struct itself. */
  g_assert (edit.work == work);

  if (!pd_plan_state_same_content (work, self->state))
    commit_locked (self, g_steal_pointer (&work), edit.created, edit.revised, transitions);

  if (version)
    *version = self->state->version;

  result = render_locked (self);
  if (notes->len > 0)
    {
      char *with_notes = g_strconcat (result, notes->str, NULL);
      g_free (result);
      result = with_notes;
    }

  return result;
}

/**
 * pd_plan_store_execute:
 * @args_json: the plan tool's arguments as JSON text
 *
 * Returns: (transfer full) (nullable): the result text, or %NULL with a
 *   `plan: …` error that leaves the state untouched
 */
char *
pd_plan_store_execute (PdPlanStore  *self,
                       const char   *args_json,
                       GError      **error)
{
  g_autoptr(GError) parse_error = NULL;
  g_autoptr(JsonNode) node = NULL;

  g_return_val_if_fail (PD_IS_PLAN_STORE (self), NULL);

  node = pd_json_parse (args_json ? args_json : "", -1, &parse_error);
  if (node == NULL)
    {
      g_set_error (error, PD_PLAN_ERROR, PD_PLAN_ERROR_INVALID_ARGS,
                   "plan: parse args: %s", parse_error->message);
      return NULL;
    }

  return pd_plan_store_execute_node (self, node, NULL, error);
}

gint64
pd_plan_store_get_version (PdPlanStore *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (PD_IS_PLAN_STORE (self), 0);

  locker = g_mutex_locker_new (&self->mutex);
  return self->state->version;
}

gboolean
pd_plan_store_has_plan (PdPlanStore *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (PD_IS_PLAN_STORE (self), FALSE);

  locker = g_mutex_locker_new (&self->mutex);
  return !pd_plan_state_is_empty (self->state);
}

/**
 * pd_plan_store_snapshot:
 *
 * Returns: (transfer full): a deep copy of the state (version 0 and no
 *   steps before the first create)
 */
PdPlanState *
pd_plan_store_snapshot (PdPlanStore *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (PD_IS_PLAN_STORE (self), NULL);

  locker = g_mutex_locker_new (&self->mutex);
  return pd_plan_state_copy (self->state);
}

/**
 * pd_plan_store_restore:
 * @state: a state parsed from a persisted plan message
 *
 * What a resume does: the plan comes back, but evidence does not survive a
 * restart — every check returns to pending and checked done steps reopen
 * until their checks are rerun.  The version bumps only when that changed
 * something.  Never notifies.
 */
void
pd_plan_store_restore (PdPlanStore       *self,
                       const PdPlanState *state)
{
  g_autoptr(GMutexLocker) locker = NULL;
  PdPlanState *copy;
  gboolean changed = FALSE;

  g_return_if_fail (PD_IS_PLAN_STORE (self));
  g_return_if_fail (state != NULL);

  copy = pd_plan_state_copy (state);

  for (guint i = 0; i < copy->steps->len; i++)
    {
      PdPlanStep *step = g_ptr_array_index (copy->steps, i);

      for (guint j = 0; j < step->checks->len; j++)
        {
          PdPlanCheck *check = g_ptr_array_index (step->checks, j);

          if (check->status != PD_PLAN_CHECK_PENDING || check->call_id != NULL)
            changed = TRUE;
          pd_plan_check_reset_evidence (check);
          check->declared_batch = 0;
        }

      if (step->checks->len > 0 && step->status == PD_PLAN_STEP_DONE)
        {
          step->status = PD_PLAN_STEP_IN_PROGRESS;
          changed = TRUE;
        }
    }

  if (changed && copy->version < PD_PLAN_MAX_VERSION)
    copy->version++;

  locker = g_mutex_locker_new (&self->mutex);
  pd_plan_state_free (self->state);
  self->state = copy;
  self->blocked_streak = 0;
}

/* Drops the plan, as at the start of a run before the transcript is read.
 * Never notifies. */
void
pd_plan_store_reset (PdPlanStore *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_if_fail (PD_IS_PLAN_STORE (self));

  locker = g_mutex_locker_new (&self->mutex);
  pd_plan_state_free (self->state);
  self->state = pd_plan_state_new ();
  self->blocked_streak = 0;
}

/**
 * pd_plan_store_render:
 * @version: (out) (optional): the version rendered
 *
 * Returns: (transfer full) (nullable): the plain render, %NULL without a plan
 */
char *
pd_plan_store_render (PdPlanStore *self,
                      gint64      *version)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (PD_IS_PLAN_STORE (self), NULL);

  locker = g_mutex_locker_new (&self->mutex);
  if (version)
    *version = self->state->version;
  return pd_plan_render (self->state, self->max_render_chars);
}

/* Checks declared so far become satisfiable by the calls of the next batch. */
void
pd_plan_store_end_batch (PdPlanStore *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_if_fail (PD_IS_PLAN_STORE (self));

  locker = g_mutex_locker_new (&self->mutex);
  self->batch++;
}

guint64
pd_plan_store_get_batch (PdPlanStore *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (PD_IS_PLAN_STORE (self), 0);

  locker = g_mutex_locker_new (&self->mutex);
  return self->batch;
}

/* Exact tool name and canonical arguments; only checks declared in an
 * earlier batch count. */
static GPtrArray *
matching_checks_locked (PdPlanStore *self,
                        PdPlanState *state,
                        const char  *tool,
                        const char  *canonical)
{
  GPtrArray *matches = g_ptr_array_new ();

  if (tool == NULL || canonical == NULL)
    return matches;

  for (guint i = 0; i < state->steps->len; i++)
    {
      PdPlanStep *step = g_ptr_array_index (state->steps, i);

      for (guint j = 0; j < step->checks->len; j++)
        {
          PdPlanCheck *check = g_ptr_array_index (step->checks, j);

          if (check->declared_batch < self->batch &&
              strcmp (check->tool, tool) == 0 &&
              strcmp (check->arguments, canonical) == 0)
            g_ptr_array_add (matches, check);
        }
    }

  return matches;
}

gboolean
pd_plan_store_matches_check (PdPlanStore *self,
                             const char  *tool,
                             JsonNode    *arguments)
{
  g_autoptr(GMutexLocker) locker = NULL;
  g_autofree char *canonical = NULL;
  g_autoptr(GPtrArray) matches = NULL;

  g_return_val_if_fail (PD_IS_PLAN_STORE (self), FALSE);

  canonical = pd_json_canonicalize_object (arguments, NULL);

  locker = g_mutex_locker_new (&self->mutex);
  matches = matching_checks_locked (self, self->state, tool, canonical);
  return matches->len > 0;
}

static void
invalidate_all (PdPlanState *state)
{
  for (guint i = 0; i < state->steps->len; i++)
    {
      PdPlanStep *step = g_ptr_array_index (state->steps, i);

      for (guint j = 0; j < step->checks->len; j++)
        pd_plan_check_reset_evidence (g_ptr_array_index (step->checks, j));
      _pd_plan_reopen_step (step);
    }
}

/* Keeps call ids short and printable: anything else is hashed. */
static char *
bounded_call_id (const char *call_id)
{
  gboolean plain = call_id != NULL && *call_id != '\0' && strlen (call_id) <= PD_PLAN_MAX_CALL_ID_CHARS;

  if (call_id == NULL || *call_id == '\0')
    return NULL;

  for (const char *p = call_id; plain && *p; p++)
    plain = g_ascii_isalnum (*p) || strchr ("-_.:", *p) != NULL;

  if (plain)
    return g_strdup (call_id);

  {
    g_autofree char *digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, call_id, -1);
    return g_strconcat ("sha256:", digest, NULL);
  }
}

static gboolean
commit_if_changed_locked (PdPlanStore *self,
                          PdPlanState *work)
{
  g_autoptr(GArray) transitions = g_array_new (FALSE, FALSE, sizeof (PdPlanStepStatus));

  if (pd_plan_state_same_content (work, self->state))
    {
      pd_plan_state_free (work);
      return FALSE;
    }

  commit_locked (self, work, FALSE, FALSE, transitions);
  return TRUE;
}

/**
 * pd_plan_store_record_outcome:
 *
 * Records one finished tool call as evidence.  A matching call sets its
 * checks passed or failed (a failure first invalidates all other evidence);
 * a denied matching call marks them blocked; a call that matches no check
 * and may have written something invalidates all evidence, reopening
 * checked done steps.  Plan tool calls are ignored.
 *
 * Returns: %TRUE when the plan changed (and the version bumped)
 */
gboolean
pd_plan_store_record_outcome (PdPlanStore             *self,
                              const PdPlanObservation *observation)
{
  g_autoptr(GMutexLocker) locker = NULL;
  g_autofree char *canonical = NULL;
  g_autofree char *call_id = NULL;
  g_autoptr(GPtrArray) matches = NULL;
  PdPlanState *work;

  g_return_val_if_fail (PD_IS_PLAN_STORE (self), FALSE);
  g_return_val_if_fail (observation != NULL, FALSE);

  if (observation->tool == NULL || strcmp (observation->tool, "plan") == 0)
    return FALSE;

  canonical = pd_json_canonicalize_object (observation->arguments, NULL);
  call_id = bounded_call_id (observation->call_id);

  locker = g_mutex_locker_new (&self->mutex);

  if (pd_plan_state_is_empty (self->state) || !pd_plan_state_has_checks (self->state))
    return FALSE;

  work = pd_plan_state_copy (self->state);
  matches = matching_checks_locked (self, work, observation->tool, canonical);

  if (observation->denied)
    {
      /* It never ran: no evidence either way, but the check cannot be met
       * here, and saying so lets the model report it. */
      for (guint i = 0; i < matches->len; i++)
        {
          PdPlanCheck *check = g_ptr_array_index (matches, i);

          check->status = PD_PLAN_CHECK_BLOCKED;
          g_free (check->call_id);
          check->call_id = g_strdup (call_id);
        }
    }
  else if (matches->len > 0)
    {
      if (!observation->ok)
        invalidate_all (work);

      for (guint i = 0; i < matches->len; i++)
        {
          PdPlanCheck *check = g_ptr_array_index (matches, i);

          check->status = observation->ok ? PD_PLAN_CHECK_PASSED : PD_PLAN_CHECK_FAILED;
          g_free (check->call_id);
          check->call_id = g_strdup (call_id);
        }
    }
  else if (observation->effects != PD_TOOL_EFFECTS_READ)
    invalidate_all (work);

  return commit_if_changed_locked (self, work);
}

/**
 * pd_plan_store_invalidate_checks:
 *
 * Returns every check to pending and reopens checked done steps.
 *
 * Returns: %TRUE when something changed
 */
gboolean
pd_plan_store_invalidate_checks (PdPlanStore *self)
{
  g_autoptr(GMutexLocker) locker = NULL;
  PdPlanState *work;

  g_return_val_if_fail (PD_IS_PLAN_STORE (self), FALSE);

  locker = g_mutex_locker_new (&self->mutex);
  work = pd_plan_state_copy (self->state);
  invalidate_all (work);
  return commit_if_changed_locked (self, work);
}

/**
 * pd_plan_store_pending_checks:
 *
 * Returns: (transfer full) (element-type utf8): "step/check" for every
 *   declared check without current passing evidence (blocked ones aside)
 */
GPtrArray *
pd_plan_store_pending_checks (PdPlanStore *self)
{
  g_autoptr(GMutexLocker) locker = NULL;
  GPtrArray *pending = g_ptr_array_new_with_free_func (g_free);

  g_return_val_if_fail (PD_IS_PLAN_STORE (self), pending);

  locker = g_mutex_locker_new (&self->mutex);
  for (guint i = 0; i < self->state->steps->len; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (self->state->steps, i);

      for (guint j = 0; j < step->checks->len; j++)
        {
          const PdPlanCheck *check = g_ptr_array_index (step->checks, j);

          if (check->status == PD_PLAN_CHECK_PENDING || check->status == PD_PLAN_CHECK_FAILED)
            g_ptr_array_add (pending, g_strdup_printf ("%s/%s", step->id, check->id));
        }
    }

  return pending;
}
