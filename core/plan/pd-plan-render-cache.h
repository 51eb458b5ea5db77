/* pd-plan-render-cache.h: the wrapped plan message, keyed by version.
 *
 * The protected plan message is refreshed after every tool batch.  A fresh
 * nonce on every render would change the message each time and defeat both
 * the content-equality no-op and the provider's prompt cache, so the wrapped
 * content is reused until the plan's version changes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include "pd-types.h"

G_BEGIN_DECLS

#define PD_TYPE_PLAN_RENDER_CACHE (pd_plan_render_cache_get_type ())

G_DECLARE_FINAL_TYPE (PdPlanRenderCache, pd_plan_render_cache, PD, PLAN_RENDER_CACHE, GObject)

PdPlanRenderCache *pd_plan_render_cache_new      (void);
char              *pd_plan_render_cache_get      (PdPlanRenderCache *self,
                                                  PdPlanStore       *store,
                                                  gboolean          *fresh);
void               pd_plan_render_cache_seed     (PdPlanRenderCache *self,
                                                  gint64             version,
                                                  const char        *content);
void               pd_plan_render_cache_clear    (PdPlanRenderCache *self);

G_END_DECLS
