/* pd-plan-row-item.c: one step of the shown plan, as a GObject for binding
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Now workspace keeps one PdPlanRowItem per step id.  A new plan
 * version is merged into the list: an unchanged step keeps its item and
 * nothing is notified, a changed step's item takes the new step and
 * notifies ::step, steps that are gone are removed and new ones inserted
 * where the plan puts them.
 */
#define G_LOG_DOMAIN "pd-plan-row-item"

#include "config.h"

#include <glib/gi18n.h>

#include "pd-plan-row-item.h"
#include "pd-ui-util-private.h"

struct _PdPlanRowItem
{
  GObject     parent_instance;

  PdPlanStep *step;
  gboolean    halted;   /* the run working on it stopped short */
};

G_DEFINE_FINAL_TYPE (PdPlanRowItem, pd_plan_row_item, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_STEP,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

const char *
pd_plan_step_status_icon_name (PdPlanStepStatus status)
{
  static const char * const icons[] = {
    /* Solid dots, as a pending check: radio-symbolic's hairline ring
     * measured under the 3:1 an icon needs (1.4:1 at half opacity). */
    [PD_PLAN_STEP_PENDING] = "content-loading-symbolic",
    [PD_PLAN_STEP_IN_PROGRESS] = "emblem-synchronizing-symbolic",
    [PD_PLAN_STEP_DONE] = "emblem-ok-symbolic",
    [PD_PLAN_STEP_BLOCKED] = "action-unavailable-symbolic",
  };

  /* Past the table: pending, as the switch's default was. */
  return icons[(guint) status < G_N_ELEMENTS (icons) ? status : PD_PLAN_STEP_PENDING];
}

const char *
pd_plan_step_status_label (PdPlanStepStatus status)
{
  static const char * const labels[] = {
    [PD_PLAN_STEP_PENDING] = NC_("step status", "Pending"),
    [PD_PLAN_STEP_IN_PROGRESS] = NC_("step status", "In progress"),
    [PD_PLAN_STEP_DONE] = NC_("step status", "Done"),
    [PD_PLAN_STEP_BLOCKED] = NC_("step status", "Blocked"),
  };

  return _pd_enum_label (labels, G_N_ELEMENTS (labels), "step status", status);
}

const char *
pd_plan_check_status_icon_name (PdPlanCheckStatus status)
{
  static const char * const icons[] = {
    [PD_PLAN_CHECK_PENDING] = "content-loading-symbolic",
    [PD_PLAN_CHECK_PASSED] = "emblem-ok-symbolic",
    [PD_PLAN_CHECK_FAILED] = "process-stop-symbolic",
    [PD_PLAN_CHECK_BLOCKED] = "action-unavailable-symbolic",
  };

  return icons[(guint) status < G_N_ELEMENTS (icons) ? status : PD_PLAN_CHECK_PENDING];
}

const char *
pd_plan_check_status_label (PdPlanCheckStatus status)
{
  static const char * const labels[] = {
    [PD_PLAN_CHECK_PENDING] = NC_("check status", "Pending"),
    [PD_PLAN_CHECK_PASSED] = NC_("check status", "Passed"),
    [PD_PLAN_CHECK_FAILED] = NC_("check status", "Failed"),
    [PD_PLAN_CHECK_BLOCKED] = NC_("check status", "Blocked"),
  };

  return _pd_enum_label (labels, G_N_ELEMENTS (labels), "check status", status);
}

static void
pd_plan_row_item_finalize (GObject *object)
{
  PdPlanRowItem *self = PD_PLAN_ROW_ITEM (object);

  g_clear_pointer (&self->step, pd_plan_step_free);

  G_OBJECT_CLASS (pd_plan_row_item_parent_class)->finalize (object);
}

static void
pd_plan_row_item_get_property (GObject    *object,
                               guint       prop_id,
                               GValue     *value,
                               GParamSpec *pspec)
{
  PdPlanRowItem *self = PD_PLAN_ROW_ITEM (object);

  switch (prop_id)
    {
    case PROP_STEP:
      g_value_set_boxed (value, self->step);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
pd_plan_row_item_class_init (PdPlanRowItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = pd_plan_row_item_finalize;
  object_class->get_property = pd_plan_row_item_get_property;

  properties[PROP_STEP] =
    g_param_spec_boxed ("step", NULL, NULL, PD_TYPE_PLAN_STEP,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
pd_plan_row_item_init (PdPlanRowItem *self)
{
}

PdPlanRowItem *
pd_plan_row_item_new (const PdPlanStep *step)
{
  PdPlanRowItem *self;

  g_return_val_if_fail (step != NULL, NULL);

  self = g_object_new (PD_TYPE_PLAN_ROW_ITEM, NULL);
  self->step = pd_plan_step_copy (step);

  return self;
}

const PdPlanStep *
pd_plan_row_item_get_step (PdPlanRowItem *self)
{
  g_return_val_if_fail (PD_IS_PLAN_ROW_ITEM (self), NULL);

  return self->step;
}

const char *
pd_plan_row_item_get_id (PdPlanRowItem *self)
{
  g_return_val_if_fail (PD_IS_PLAN_ROW_ITEM (self), NULL);

  return self->step->id;
}

/**
 * pd_plan_row_item_set_step:
 * @step: the same step (by id) in a newer plan
 *
 * Returns: %TRUE when the step differs and ::step was notified
 */
gboolean
pd_plan_row_item_set_step (PdPlanRowItem    *self,
                           const PdPlanStep *step)
{
  g_return_val_if_fail (PD_IS_PLAN_ROW_ITEM (self), FALSE);
  g_return_val_if_fail (step != NULL, FALSE);

  if (pd_plan_step_equal (self->step, step))
    return FALSE;

  g_clear_pointer (&self->step, pd_plan_step_free);
  self->step = pd_plan_step_copy (step);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STEP]);

  return TRUE;
}

gboolean
pd_plan_row_item_get_halted (PdPlanRowItem *self)
{
  g_return_val_if_fail (PD_IS_PLAN_ROW_ITEM (self), FALSE);

  return self->halted;
}

/**
 * pd_plan_rows_set_halted:
 * @halted: whether the session's run stopped short (its budget, a cancel,
 *   a failure) and nothing runs now
 *
 * A step in progress is then shown as stopped, not as worked on: it kept
 * its working glyph after a run ran out of its budget (tried as a new user
 * would).  Its rows follow through ::step.
 */
void
pd_plan_rows_set_halted (GListStore *rows,
                         gboolean    halted)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (rows));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(PdPlanRowItem) item = g_list_model_get_item (G_LIST_MODEL (rows), i);

      if (item->halted == !!halted)
        continue;
      item->halted = !!halted;
      if (item->step->status == PD_PLAN_STEP_IN_PROGRESS)
        g_object_notify_by_pspec (G_OBJECT (item), properties[PROP_STEP]);
    }
}

GListStore *
pd_plan_rows_new (void)
{
  return g_list_store_new (PD_TYPE_PLAN_ROW_ITEM);
}

static gboolean
find_row (GListStore *rows,
          const char *id,
          guint       from,
          guint      *position)
{
  guint n = g_list_model_get_n_items (G_LIST_MODEL (rows));

  for (guint i = from; i < n; i++)
    {
      g_autoptr(PdPlanRowItem) item = g_list_model_get_item (G_LIST_MODEL (rows), i);

      if (g_strcmp0 (pd_plan_row_item_get_id (item), id) == 0)
        {
          *position = i;
          return TRUE;
        }
    }

  return FALSE;
}

/**
 * pd_plan_rows_merge:
 * @rows: a store made by pd_plan_rows_new()
 * @plan: (nullable): the plan to show; %NULL empties @rows
 */
void
pd_plan_rows_merge (GListStore        *rows,
                    const PdPlanState *plan)
{
  g_autoptr(GHashTable) wanted = g_hash_table_new (g_str_hash, g_str_equal);
  guint n_steps = plan != NULL ? plan->steps->len : 0;

  g_return_if_fail (G_IS_LIST_STORE (rows));

  for (guint i = 0; i < n_steps; i++)
    g_hash_table_add (wanted, ((PdPlanStep *) g_ptr_array_index (plan->steps, i))->id);

  for (guint i = g_list_model_get_n_items (G_LIST_MODEL (rows)); i > 0; i--)
    {
      g_autoptr(PdPlanRowItem) item = g_list_model_get_item (G_LIST_MODEL (rows), i - 1);

      if (!g_hash_table_contains (wanted, pd_plan_row_item_get_id (item)))
        g_list_store_remove (rows, i - 1);
    }

  for (guint i = 0; i < n_steps; i++)
    {
      const PdPlanStep *step = g_ptr_array_index (plan->steps, i);
      g_autoptr(PdPlanRowItem) item = NULL;
      guint position;

      if (find_row (rows, step->id, i, &position))
        {
          item = g_list_model_get_item (G_LIST_MODEL (rows), position);
          if (position != i)
            {
              /* Reordered: the same item moves. */
              g_list_store_remove (rows, position);
              g_list_store_insert (rows, i, item);
            }
          pd_plan_row_item_set_step (item, step);
        }
      else
        {
          item = pd_plan_row_item_new (step);
          g_list_store_insert (rows, i, item);
        }
    }
}
