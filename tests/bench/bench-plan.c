/* bench-plan.c: figures for the plan engine, each beside a baseline run in
 * the same process.  Run with `meson test -C _build --benchmark -v`.
 *
 * It prints operations per second; it asserts nothing about speed (a busy
 * machine must not fail a build), only that every operation succeeded.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#include "pd-plan.h"

#define MIN_SECONDS 0.4

typedef void (*BenchFunc) (gpointer data);

static double
measure (const char *name,
         BenchFunc   func,
         gpointer    data)
{
  g_autoptr(GTimer) timer = g_timer_new ();
  guint64 iterations = 0;
  double elapsed, rate;

  /* Warm up caches and allocators. */
  for (guint i = 0; i < 50; i++)
    func (data);

  g_timer_start (timer);
  do
    {
      for (guint i = 0; i < 100; i++)
        func (data);
      iterations += 100;
      elapsed = g_timer_elapsed (timer, NULL);
    }
  while (elapsed < MIN_SECONDS);

  rate = iterations / elapsed;
  printf ("  %-52s %12.0f ops/s  (%6.2f µs/op)\n", name, rate, 1e6 / rate);
  return rate;
}

static char *
plan_call (guint    n_steps,
           gboolean checks,
           const char *suffix)
{
  GString *out = g_string_new ("{\"verb\":\"create\",\"steps\":[");

  for (guint i = 0; i < n_steps; i++)
    {
      if (i > 0)
        g_string_append_c (out, ',');
      g_string_append_printf (out, "{\"id\":\"s%u\",\"title\":\"Step %u of the work %s\",\"note\":\"a short note for %u\"",
                              i + 1, i + 1, suffix, i + 1);
      if (checks)
        g_string_append_printf (out, ",\"checks\":[{\"id\":\"c%u\",\"description\":\"tests pass for part %u\","
                                     "\"tool\":\"shell\",\"arguments\":{\"command\":\"make check PART=%u\",\"timeout\":60}}]",
                                i + 1, i + 1, i + 1);
      g_string_append_c (out, '}');
    }
  g_string_append (out, "]}");

  return g_string_free (out, FALSE);
}

typedef struct
{
  PdPlanStore *store;
  char        *calls[2];
  guint        flip;
} ExecBench;

static void
run_exec_flip (gpointer data)
{
  ExecBench *b = data;
  g_autoptr(GError) error = NULL;
  g_autofree char *result = pd_plan_store_execute (b->store, b->calls[b->flip++ & 1], &error);

  g_assert_no_error (error);
  g_assert_nonnull (result);
}

typedef struct
{
  PdPlanStore *store;
  guint        next;
  char        *create;
} CompleteBench;

static void
run_complete (gpointer data)
{
  CompleteBench *b = data;
  g_autoptr(GError) error = NULL;
  g_autofree char *call = NULL;
  g_autofree char *result = NULL;

  /* Twelve completes, then the plan starts over. */
  if (b->next % 12 == 0)
    {
      g_autofree char *reset = pd_plan_store_execute (b->store, b->create, &error);
      g_assert_no_error (error);
    }

  call = g_strdup_printf ("{\"verb\":\"complete\",\"step_id\":\"s%u\"}", b->next % 12 + 1);
  result = pd_plan_store_execute (b->store, call, &error);
  g_assert_no_error (error);
  b->next++;
}

typedef struct
{
  PdPlanState *state;
  char        *render;
  char        *json;
} ParseBench;

static void
run_render (gpointer data)
{
  ParseBench *b = data;
  g_autofree char *render = pd_plan_render_full (b->state);

  g_assert_nonnull (render);
}

static void
run_parse (gpointer data)
{
  ParseBench *b = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(PdPlanState) state = pd_plan_parse (b->render, PD_PLAN_STEP_CEILING, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (state->steps->len, ==, 50);
}

static void
run_json_glib (gpointer data)
{
  ParseBench *b = data;
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(GError) error = NULL;

  json_parser_load_from_data (parser, b->json, -1, &error);
  g_assert_no_error (error);
}

static void
run_state_to_json (gpointer data)
{
  ParseBench *b = data;
  g_autofree char *json = pd_plan_state_to_json (b->state);

  g_assert_nonnull (json);
}

int
main (int   argc,
      char *argv[])
{
  ExecBench create = { 0 };
  ExecBench update = { 0 };
  CompleteBench complete = { 0 };
  ParseBench parse = { 0 };
  double render_rate, parse_rate, json_rate, to_json_rate;

  printf ("Plan engine benchmark (GLib %u.%u.%u, json-glib %s)\n",
          glib_major_version, glib_minor_version, glib_micro_version, JSON_VERSION_S);

  /* create: two different 12-step plans in turn, so every call is a real
   * replacement rather than a no-op. */
  create.store = pd_plan_store_new (12, 8000);
  create.calls[0] = plan_call (12, FALSE, "alpha");
  create.calls[1] = plan_call (12, FALSE, "beta");
  measure ("execute create (12 steps)", run_exec_flip, &create);

  update.store = pd_plan_store_new (12, 8000);
  {
    g_autofree char *seed = pd_plan_store_execute (update.store, create.calls[0], NULL);
  }
  update.calls[0] = g_strdup ("{\"verb\":\"update\",\"updates\":[{\"id\":\"s3\",\"status\":\"in_progress\",\"note\":\"working\"}]}");
  update.calls[1] = g_strdup ("{\"verb\":\"update\",\"updates\":[{\"id\":\"s3\",\"status\":\"pending\",\"note\":\"paused\"}]}");
  measure ("execute update (1 step, status + note)", run_exec_flip, &update);

  complete.store = pd_plan_store_new (12, 8000);
  complete.create = create.calls[0];
  measure ("execute complete (amortized with 1/12 create)", run_complete, &complete);

  /* A 50-step plan with a check on every step. */
  {
    g_autoptr(PdPlanStore) store = pd_plan_store_new (50, 8000);
    g_autofree char *call = plan_call (50, TRUE, "gamma");
    g_autoptr(PdPlanState) state = NULL;

    /* Too big for any render cap: build the state through the engine's
     * parser of its own full render instead of the capped verbs. */
    state = pd_plan_state_new ();
    state->version = 42;
    for (guint i = 0; i < 50; i++)
      {
        PdPlanStep *step;
        PdPlanCheck *check;
        g_autofree char *id = g_strdup_printf ("s%u", i + 1);
        g_autofree char *title = g_strdup_printf ("Step %u of the work: wire [flags] and tests", i + 1);
        g_autofree char *cid = g_strdup_printf ("c%u", i + 1);
        g_autofree char *args = g_strdup_printf ("{\"command\":\"make check PART=%u\",\"timeout\":60}", i + 1);

        step = pd_plan_step_new (id, title);
        step->status = i < 20 ? PD_PLAN_STEP_DONE : i == 20 ? PD_PLAN_STEP_IN_PROGRESS : PD_PLAN_STEP_PENDING;
        pd_plan_step_set_note (step, i % 3 == 0 ? "keeps the old behaviour; see notes" : "");
        check = pd_plan_check_new (cid, "tests pass for this part", "shell", args);
        check->status = i < 20 ? PD_PLAN_CHECK_PASSED : PD_PLAN_CHECK_PENDING;
        check->call_id = i < 20 ? g_strdup_printf ("call_%u", i) : NULL;
        g_ptr_array_add (step->checks, check);
        g_ptr_array_add (state->steps, step);
      }
    (void) store;
    (void) call;

    parse.state = g_steal_pointer (&state);
    parse.render = pd_plan_render_full (parse.state);
    parse.json = pd_plan_state_to_json (parse.state);
  }

  printf ("  (50-step plan with checks: render %ld chars, state JSON %zu bytes)\n",
          g_utf8_strlen (parse.render, -1), strlen (parse.json));
  render_rate = measure ("render 50 steps with checks", run_render, &parse);
  to_json_rate = measure ("baseline: state → JSON text (same state)", run_state_to_json, &parse);
  parse_rate = measure ("strict parse of that render", run_parse, &parse);
  json_rate = measure ("baseline: json-glib JsonParser on the state JSON", run_json_glib, &parse);

  printf ("\n  ratio parse / json-glib:  %.2fx  (goal: >= 1.00, no slower than json-glib)\n", parse_rate / json_rate);
  printf ("  ratio render / to-JSON:   %.2fx\n", render_rate / to_json_rate);

  g_object_unref (create.store);
  g_object_unref (update.store);
  g_object_unref (complete.store);
  g_free (create.calls[0]);
  g_free (create.calls[1]);
  g_free (update.calls[0]);
  g_free (update.calls[1]);
  pd_plan_state_free (parse.state);
  g_free (parse.render);
  g_free (parse.json);

  return 0;
}
