/* test-plan-concurrency.c: one store mutated from many threads.
 *
 * Plan calls ride parallel tool batches, so the store serializes every
 * mutation and notifies under its lock: the notifications must arrive in
 * version order, one per version, with no gap and no repeat.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-plan-concurrency"

#include "config.h"

#include <string.h>

#include <glib.h>

#include "pd-plan.h"

#define N_THREADS 8
#define N_OPS     200

typedef struct
{
  PdPlanStore *store;
  /* Written only by the change callback, which runs under the store lock. */
  gint64       last_version;
  guint        notifications;
  guint        out_of_order;
} Shared;

typedef struct
{
  Shared *shared;
  guint   index;
} Worker;

static void
record_change (const PdPlanChange *change,
               gpointer            user_data)
{
  Shared *shared = user_data;

  if (change->version != shared->last_version + 1)
    shared->out_of_order++;
  shared->last_version = change->version;
  shared->notifications++;
}

static void
call (PdPlanStore *store,
      const char  *json)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *result = pd_plan_store_execute (store, json, &error);

  /* Only the expected gate error may happen: completing the checked step
   * while another thread just invalidated its evidence. */
  if (error != NULL)
    g_assert_error (error, PD_PLAN_ERROR, PD_PLAN_ERROR_CHECKS_PENDING);
}

static gpointer
worker_run (gpointer data)
{
  Worker *w = data;
  PdPlanStore *store = w->shared->store;
  g_autoptr(JsonNode) match = pd_json_parse ("{\"n\":1}", -1, NULL);
  g_autoptr(JsonNode) other = pd_json_parse ("{\"path\":\"x\"}", -1, NULL);

  for (guint i = 0; i < N_OPS; i++)
    {
      g_autofree char *json = NULL;

      switch (i % 6)
        {
        case 0:
          json = g_strdup_printf ("{\"verb\":\"update\",\"updates\":[{\"id\":\"w%u\",\"status\":\"in_progress\","
                                  "\"note\":\"round %u\"}]}", w->index, i);
          call (store, json);
          break;
        case 1:
          json = g_strdup_printf ("{\"verb\":\"complete\",\"step_id\":\"w%u\"}", w->index);
          call (store, json);
          break;
        case 2:
          {
            PdPlanObservation obs = { "shell", match, (i / 6) % 2 == 0, "call-1", PD_TOOL_EFFECTS_WRITE, FALSE };
            pd_plan_store_record_outcome (store, &obs);
          }
          break;
        case 3:
          {
            g_autoptr(PdPlanState) state = pd_plan_store_snapshot (store);
            g_assert_cmpuint (state->steps->len, ==, N_THREADS + 1);
          }
          break;
        case 4:
          {
            g_autofree char *text = pd_plan_store_render (store, NULL);
            g_assert_true (g_str_has_prefix (text, "[Current plan: v"));
            call (store, "{\"verb\":\"complete\",\"step_id\":\"t\"}");
          }
          break;
        case 5:
          {
            PdPlanObservation obs = { "write_file", other, TRUE, "call-2", PD_TOOL_EFFECTS_WRITE, FALSE };
            pd_plan_store_record_outcome (store, &obs);
          }
          break;
        default:
          g_assert_not_reached ();
        }
    }

  return NULL;
}

static void
test_threads (void)
{
  Shared shared = { 0 };
  Worker workers[N_THREADS];
  GThread *threads[N_THREADS];
  g_autoptr(GString) create = g_string_new ("{\"verb\":\"create\",\"steps\":[{\"id\":\"t\",\"title\":\"Tests\",\"checks\":"
                                            "[{\"id\":\"c\",\"description\":\"d\",\"tool\":\"shell\",\"arguments\":{\"n\":1}}]}");
  g_autoptr(PdPlanState) final = NULL;
  g_autoptr(PdPlanState) parsed = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *full = NULL;
  g_autofree char *final_json = NULL;
  g_autofree char *parsed_json = NULL;

  shared.store = pd_plan_store_new (12, 8000);
  pd_plan_store_set_change_func (shared.store, record_change, &shared, NULL);

  for (guint i = 0; i < N_THREADS; i++)
    g_string_append_printf (create, ",\"Worker %u\"", i);
  g_string_append (create, "]}");
  /* Ids w0..w7 for the workers' steps. */
  for (guint i = 0; i < N_THREADS; i++)
    {
      g_autofree char *from = g_strdup_printf ("\"Worker %u\"", i);
      g_autofree char *to = g_strdup_printf ("{\"id\":\"w%u\",\"title\":\"Worker %u\"}", i, i);
      g_string_replace (create, from, to, 1);
    }
  call (shared.store, create->str);
  pd_plan_store_end_batch (shared.store);
  g_assert_cmpuint (shared.notifications, ==, 1);

  for (guint i = 0; i < N_THREADS; i++)
    {
      workers[i].shared = &shared;
      workers[i].index = i;
      threads[i] = g_thread_new ("plan-worker", worker_run, &workers[i]);
    }
  for (guint i = 0; i < N_THREADS; i++)
    g_thread_join (threads[i]);

  g_assert_cmpuint (shared.out_of_order, ==, 0);
  g_assert_cmpint (pd_plan_store_get_version (shared.store), ==, shared.notifications);
  g_assert_cmpint (shared.last_version, ==, shared.notifications);
  /* Every worker changed its own step at least twice per round of six. */
  g_assert_cmpuint (shared.notifications, >=, N_THREADS * (N_OPS / 6) * 2);

  final = pd_plan_store_snapshot (shared.store);
  full = pd_plan_render_full (final);
  parsed = pd_plan_parse (full, 12, &error);
  g_assert_no_error (error);
  final_json = pd_plan_state_to_json (final);
  parsed_json = pd_plan_state_to_json (parsed);
  g_assert_cmpstr (parsed_json, ==, final_json);

  g_object_unref (shared.store);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/plan/concurrency/threads", test_threads);

  return g_test_run ();
}
