/* pd-plan-render-cache.c: the wrapped plan message, keyed by version.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "pd-plan"

#include "config.h"

#include "pd-plan-render.h"
#include "pd-plan-render-cache.h"
#include "pd-plan-store.h"

struct _PdPlanRenderCache
{
  GObject  parent_instance;

  GMutex   mutex;
  gint64   version;   /* -1: nothing cached */
  char    *content;   /* wrapped render, or NULL when there was no plan */
};

G_DEFINE_FINAL_TYPE (PdPlanRenderCache, pd_plan_render_cache, G_TYPE_OBJECT)

static void
pd_plan_render_cache_finalize (GObject *object)
{
  PdPlanRenderCache *self = (PdPlanRenderCache *) object;

  g_clear_pointer (&self->content, g_free);
  g_mutex_clear (&self->mutex);

  G_OBJECT_CLASS (pd_plan_render_cache_parent_class)->finalize (object);
}

static void
pd_plan_render_cache_class_init (PdPlanRenderCacheClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = pd_plan_render_cache_finalize;
}

static void
pd_plan_render_cache_init (PdPlanRenderCache *self)
{
  g_mutex_init (&self->mutex);
  self->version = -1;
}

PdPlanRenderCache *
pd_plan_render_cache_new (void)
{
  return g_object_new (PD_TYPE_PLAN_RENDER_CACHE, NULL);
}

/**
 * pd_plan_render_cache_get:
 * @fresh: (out) (optional): %TRUE when this call rendered anew (a new
 *   version, so a new nonce) — the moment to record the injection
 *
 * Returns: (transfer full) (nullable): the wrapped plan message content for
 *   the store's current version, or %NULL when there is no plan
 */
char *
pd_plan_render_cache_get (PdPlanRenderCache *self,
                          PdPlanStore       *store,
                          gboolean          *fresh)
{
  g_autoptr(GMutexLocker) locker = NULL;
  g_autofree char *render = NULL;
  gint64 version = 0;

  g_return_val_if_fail (PD_IS_PLAN_RENDER_CACHE (self), NULL);
  g_return_val_if_fail (PD_IS_PLAN_STORE (store), NULL);

  /* The common case is an unchanged version: no render at all. */
  version = pd_plan_store_get_version (store);

  locker = g_mutex_locker_new (&self->mutex);

  if (fresh)
    *fresh = FALSE;

  if (version == self->version)
    return g_strdup (self->content);

  render = pd_plan_store_render (store, &version);

  g_clear_pointer (&self->content, g_free);
  if (render != NULL)
    {
      g_autofree char *nonce = pd_plan_new_nonce ();
      self->content = pd_plan_wrap (render, nonce);
    }
  self->version = version;

  if (fresh)
    *fresh = TRUE;

  return g_strdup (self->content);
}

/* After a resume: the persisted message already is the content of that
 * version, so the next refresh is a no-op until the plan changes. */
void
pd_plan_render_cache_seed (PdPlanRenderCache *self,
                           gint64             version,
                           const char        *content)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_if_fail (PD_IS_PLAN_RENDER_CACHE (self));

  locker = g_mutex_locker_new (&self->mutex);
  g_free (self->content);
  self->content = g_strdup (content);
  self->version = version;
}

void
pd_plan_render_cache_clear (PdPlanRenderCache *self)
{
  g_autoptr(GMutexLocker) locker = NULL;

  g_return_if_fail (PD_IS_PLAN_RENDER_CACHE (self));

  locker = g_mutex_locker_new (&self->mutex);
  g_clear_pointer (&self->content, g_free);
  self->version = -1;
}
