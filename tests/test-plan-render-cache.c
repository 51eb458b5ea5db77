/* test-plan-render-cache.c: the wrapped plan message keeps its nonce until
 * the plan's version changes.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "pd-plan.h"

static void
exec_ok (PdPlanStore *store,
         const char  *json)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *result = pd_plan_store_execute (store, json, &error);

  g_assert_no_error (error);
  g_assert_nonnull (result);
}

static void
test_nonce_stable_per_version (void)
{
  g_autoptr(PdPlanStore) store = pd_plan_store_new (12, 2000);
  g_autoptr(PdPlanRenderCache) cache = pd_plan_render_cache_new ();
  g_autofree char *none = NULL;
  g_autofree char *first = NULL;
  g_autofree char *again = NULL;
  g_autofree char *after_noop = NULL;
  g_autofree char *next = NULL;
  gboolean fresh = TRUE;

  none = pd_plan_render_cache_get (cache, store, &fresh);
  g_assert_null (none);
  g_assert_true (fresh);

  exec_ok (store, "{\"verb\":\"create\",\"steps\":[\"One\",\"Two\"]}");
  first = pd_plan_render_cache_get (cache, store, &fresh);
  g_assert_true (fresh);
  g_assert_true (g_str_has_prefix (first, "[Current plan: v1 \xe2\x80\x94 0/2 done, 0 blocked."));
  g_assert_nonnull (strstr (first, "\n<untrusted_content_"));

  again = pd_plan_render_cache_get (cache, store, &fresh);
  g_assert_false (fresh);
  g_assert_cmpstr (first, ==, again);

  /* A no-op call keeps the version, so the content stays byte-identical. */
  exec_ok (store, "{\"verb\":\"update\",\"updates\":[{\"id\":\"s1\",\"status\":\"pending\"}]}");
  after_noop = pd_plan_render_cache_get (cache, store, &fresh);
  g_assert_false (fresh);
  g_assert_cmpstr (first, ==, after_noop);

  exec_ok (store, "{\"verb\":\"complete\",\"step_id\":\"s1\"}");
  next = pd_plan_render_cache_get (cache, store, &fresh);
  g_assert_true (fresh);
  g_assert_true (g_str_has_prefix (next, "[Current plan: v2 \xe2\x80\x94 1/2 done"));
  g_assert_cmpstr (next, !=, first);
}

static void
test_fresh_nonces_differ (void)
{
  g_autoptr(PdPlanStore) store = pd_plan_store_new (12, 2000);
  g_autoptr(PdPlanRenderCache) a = pd_plan_render_cache_new ();
  g_autoptr(PdPlanRenderCache) b = pd_plan_render_cache_new ();
  g_autofree char *ca = NULL;
  g_autofree char *cb = NULL;

  exec_ok (store, "{\"verb\":\"create\",\"steps\":[\"One\",\"Two\"]}");
  ca = pd_plan_render_cache_get (a, store, NULL);
  cb = pd_plan_render_cache_get (b, store, NULL);
  /* Same plan, independent renders: the nonces must not repeat. */
  g_assert_cmpstr (ca, !=, cb);
}

static void
test_seed_after_resume (void)
{
  g_autoptr(PdPlanStore) store = pd_plan_store_new (12, 2000);
  g_autoptr(PdPlanStore) resumed = pd_plan_store_new (12, 2000);
  g_autoptr(PdPlanRenderCache) cache = pd_plan_render_cache_new ();
  g_autoptr(PdPlanRenderCache) resumed_cache = pd_plan_render_cache_new ();
  g_autoptr(PdPlanState) state = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *persisted = NULL;
  g_autofree char *refreshed = NULL;
  gboolean fresh = TRUE;

  exec_ok (store, "{\"verb\":\"create\",\"steps\":[\"One\",\"Two\"]}");
  persisted = pd_plan_render_cache_get (cache, store, NULL);

  state = pd_plan_parse (persisted, 12, &error);
  g_assert_no_error (error);
  pd_plan_store_restore (resumed, state);
  pd_plan_render_cache_seed (resumed_cache, pd_plan_store_get_version (resumed), persisted);

  refreshed = pd_plan_render_cache_get (resumed_cache, resumed, &fresh);
  g_assert_false (fresh);
  g_assert_cmpstr (refreshed, ==, persisted);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/plan/render-cache/nonce-stable-per-version", test_nonce_stable_per_version);
  g_test_add_func ("/pd/plan/render-cache/fresh-nonces-differ", test_fresh_nonces_differ);
  g_test_add_func ("/pd/plan/render-cache/seed-after-resume", test_seed_after_resume);

  return g_test_run ();
}
