/* pd-plan-store.h: the plan tool's state, behind one mutex.
 *
 * Plan calls arrive inside parallel tool batches, so every operation takes
 * the store's lock.  Each mutation validates on a working copy and either
 * commits whole or leaves the state untouched.  Change notifications fire
 * under the lock, exactly once per version bump, so their order is the
 * version order; the callback must not call back into the store.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib-object.h>
#include <json-glib/json-glib.h>

#include "pd-plan-enums.h"
#include "pd-plan-state.h"

G_BEGIN_DECLS

#define PD_TYPE_PLAN_STORE (pd_plan_store_get_type ())

G_DECLARE_FINAL_TYPE (PdPlanStore, pd_plan_store, PD, PLAN_STORE, GObject)

/* Counts only: events built from it never carry titles or notes. */
typedef struct
{
  gboolean created;        /* a create (plan_created); otherwise plan_updated */
  gboolean revised;        /* revise or check_replace recorded a revision */
  guint    steps;
  guint    done;
  guint    in_progress;
  guint    blocked;
  guint    pending;
  gint64   version;
  guint    blocked_streak; /* consecutive transitions to blocked so far */
  gboolean blocked_fired;  /* this change completed a streak of three */
} PdPlanChange;

typedef void (*PdPlanChangeFunc) (const PdPlanChange *change,
                                  gpointer            user_data);

/* One finished tool call, as the evidence rules see it. */
typedef struct
{
  const char    *tool;
  JsonNode      *arguments;  /* the call's arguments object */
  gboolean       ok;
  const char    *call_id;
  PdToolEffects  effects;
  gboolean       denied;     /* refused by approval or policy: it never ran */
} PdPlanObservation;

PdPlanStore *pd_plan_store_new              (guint              max_steps,
                                             guint              max_render_chars);
guint        pd_plan_store_get_max_steps    (PdPlanStore       *self);
guint        pd_plan_store_get_max_render_chars (PdPlanStore   *self);
void         pd_plan_store_set_change_func  (PdPlanStore       *self,
                                             PdPlanChangeFunc   func,
                                             gpointer           user_data,
                                             GDestroyNotify     destroy);
char        *pd_plan_store_execute          (PdPlanStore       *self,
                                             const char        *args_json,
                                             GError           **error);
char        *pd_plan_store_execute_node     (PdPlanStore       *self,
                                             JsonNode          *args,
                                             gint64            *version,
                                             GError           **error);
gint64       pd_plan_store_get_version      (PdPlanStore       *self);
gboolean     pd_plan_store_has_plan         (PdPlanStore       *self);
PdPlanState *pd_plan_store_snapshot         (PdPlanStore       *self);
void         pd_plan_store_restore          (PdPlanStore       *self,
                                             const PdPlanState *state);
void         pd_plan_store_reset            (PdPlanStore       *self);
char        *pd_plan_store_render           (PdPlanStore       *self,
                                             gint64            *version);
void         pd_plan_store_end_batch        (PdPlanStore       *self);
guint64      pd_plan_store_get_batch        (PdPlanStore       *self);
gboolean     pd_plan_store_matches_check    (PdPlanStore       *self,
                                             const char        *tool,
                                             JsonNode          *arguments);
gboolean     pd_plan_store_record_outcome   (PdPlanStore       *self,
                                             const PdPlanObservation *observation);
gboolean     pd_plan_store_invalidate_checks (PdPlanStore      *self);
GPtrArray   *pd_plan_store_pending_checks   (PdPlanStore       *self);

G_END_DECLS
