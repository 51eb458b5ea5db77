/* pd-tool-registry.c: the tools of one engine, by name, in order.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-tools"

#include "config.h"

#include "pd-plan-store.h"
#include "pd-tool-private.h"
#include "pd-tool-registry.h"

struct _PdToolRegistry
{
  GObject     parent_instance;

  /* Filled before a run and read from tool workers: the lock keeps a late
   * registration from racing a lookup. */
  GMutex      mutex;
  GPtrArray  *tools;   /* PdTool, registration order */
  GHashTable *by_name; /* name → PdTool (borrowed from tools) */
};

G_DEFINE_FINAL_TYPE (PdToolRegistry, pd_tool_registry, G_TYPE_OBJECT)

static void
pd_tool_registry_finalize (GObject *object)
{
  PdToolRegistry *self = (PdToolRegistry *) object;

  g_clear_pointer (&self->by_name, g_hash_table_unref);
  g_clear_pointer (&self->tools, g_ptr_array_unref);
  g_mutex_clear (&self->mutex);

  G_OBJECT_CLASS (pd_tool_registry_parent_class)->finalize (object);
}

static void
pd_tool_registry_class_init (PdToolRegistryClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_tool_registry_finalize;
}

static void
pd_tool_registry_init (PdToolRegistry *self)
{
  g_mutex_init (&self->mutex);
  self->tools = g_ptr_array_new_with_free_func (g_object_unref);
  self->by_name = g_hash_table_new (g_str_hash, g_str_equal);
}

PdToolRegistry *
pd_tool_registry_new (void)
{
  return g_object_new (PD_TYPE_TOOL_REGISTRY, NULL);
}

/**
 * pd_tool_registry_add:
 *
 * Returns: %FALSE when a tool of that name is already registered (the
 *   first one stays: a model must never see two tools with one name)
 */
gboolean
pd_tool_registry_add (PdToolRegistry *self,
                      PdTool         *tool)
{
  g_autoptr(GMutexLocker) locker = NULL;
  const char *name;

  g_return_val_if_fail (PD_IS_TOOL_REGISTRY (self), FALSE);
  g_return_val_if_fail (PD_IS_TOOL (tool), FALSE);

  name = pd_tool_get_name (tool);
  g_return_val_if_fail (name != NULL && *name != '\0', FALSE);

  locker = g_mutex_locker_new (&self->mutex);

  if (g_hash_table_contains (self->by_name, name))
    return FALSE;

  g_ptr_array_add (self->tools, g_object_ref (tool));
  g_hash_table_insert (self->by_name, (gpointer) name, tool);

  return TRUE;
}

/**
 * pd_tool_registry_add_builtins:
 * @plan_store: (nullable): the run's plan; %NULL when planning is off
 *
 * Registers the built-in tools: read_file, list_dir, grep, write_file,
 * edit_file, shell, exit_plan_mode (always: the tool list never changes
 * with plan mode), and plan when @plan_store is given.
 */
void
pd_tool_registry_add_builtins (PdToolRegistry *self,
                               PdPlanStore    *plan_store)
{
  g_return_if_fail (PD_IS_TOOL_REGISTRY (self));
  g_return_if_fail (plan_store == NULL || PD_IS_PLAN_STORE (plan_store));

  for (const PdToolInfo *info = _pd_builtin_tools; info->name != NULL; info++)
    {
      g_autoptr(PdTool) tool = NULL;

      if (info->needs_plan_store && plan_store == NULL)
        continue;

      tool = _pd_builtin_tool_new (info, info->needs_plan_store ? plan_store : NULL);
      pd_tool_registry_add (self, tool);
    }
}

/**
 * pd_tool_registry_lookup:
 *
 * Returns: (transfer none) (nullable): the tool called @name
 */
PdTool *
pd_tool_registry_lookup (PdToolRegistry *self,
                         const char     *name)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (PD_IS_TOOL_REGISTRY (self), NULL);

  if (name == NULL)
    return NULL;

  locker = g_mutex_locker_new (&self->mutex);
  return g_hash_table_lookup (self->by_name, name);
}

/**
 * pd_tool_registry_list:
 *
 * Returns: (transfer full) (element-type PdTool): the tools in
 *   registration order
 */
GPtrArray *
pd_tool_registry_list (PdToolRegistry *self)
{
  g_autoptr(GMutexLocker) locker = NULL;
  GPtrArray *copy;

  g_return_val_if_fail (PD_IS_TOOL_REGISTRY (self), NULL);

  locker = g_mutex_locker_new (&self->mutex);
  copy = g_ptr_array_new_full (self->tools->len, g_object_unref);
  for (guint i = 0; i < self->tools->len; i++)
    g_ptr_array_add (copy, g_object_ref (g_ptr_array_index (self->tools, i)));

  return copy;
}

guint
pd_tool_registry_get_n_tools (PdToolRegistry *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_val_if_fail (PD_IS_TOOL_REGISTRY (self), 0);

  locker = g_mutex_locker_new (&self->mutex);
  return self->tools->len;
}

/**
 * pd_tool_registry_to_openai_json:
 *
 * Returns: (transfer full): the `tools` array of a Chat Completions request
 */
JsonArray *
pd_tool_registry_to_openai_json (PdToolRegistry *self)
{
  g_autoptr(GPtrArray) tools = NULL;
  JsonArray *array;

  g_return_val_if_fail (PD_IS_TOOL_REGISTRY (self), NULL);

  tools = pd_tool_registry_list (self);
  array = json_array_sized_new (tools->len);

  for (guint i = 0; i < tools->len; i++)
    json_array_add_element (array, pd_tool_to_openai_json (g_ptr_array_index (tools, i)));

  return array;
}
