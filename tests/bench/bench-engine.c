/* bench-engine.c: the engine loop's own overhead per iteration and per
 * tool call.  Run with `meson test -C _build --benchmark -v`.
 *
 * A replay provider plays 200 turns, each a parallel batch of a plan update
 * (which bumps the version, so the plan message is re-rendered every time)
 * and a list_dir of an empty directory, over a 12-step plan.  The provider
 * and every tool are wrapped in timers, so
 *
 *   overhead = run wall time − time inside the provider − time inside tools
 *
 * (measured with max_tool_parallel = 1, so tool times add up to the wall
 * time they took).  A second figure compares against a baseline in the
 * same process that asks the same provider for the same turns and calls
 * the same tools with the same arguments directly, without the engine.
 * Both with the session store on (a real SQLite file, every turn saved)
 * and off.  It prints figures and asserts nothing about time.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "pd-approver.h"
#include "pd-engine.h"
#include "pd-event-bus.h"
#include "pd-json.h"
#include "pd-plan.h"
#include "pd-replay-provider.h"
#include "pd-session-store.h"
#include "pd-tool-registry.h"

#define TURNS 200u
#define STEPS 12u
#define ROUNDS 5u

static gint64 time_in_provider;   /* µs, atomically added */
static gint64 time_in_tools;
static gint64 time_in_plan_tool;

/* --- timed provider -------------------------------------------------- */

#define BENCH_TYPE_PROVIDER (bench_provider_get_type ())
G_DECLARE_FINAL_TYPE (BenchProvider, bench_provider, BENCH, PROVIDER, GObject)

struct _BenchProvider
{
  GObject     parent_instance;
  PdProvider *inner;
};

static void bench_provider_iface_init (PdProviderInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (BenchProvider, bench_provider, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (PD_TYPE_PROVIDER, bench_provider_iface_init))

static const char *
bench_provider_get_name (PdProvider *provider)
{
  return "replay";
}

static PdProviderResponse *
bench_provider_chat (PdProvider               *provider,
                     const PdProviderRequest  *request,
                     PdProviderDeltaFunc       on_delta,
                     gpointer                  delta_data,
                     GCancellable             *cancellable,
                     GError                  **error)
{
  gint64 start = g_get_monotonic_time ();
  PdProviderResponse *response = pd_provider_chat (BENCH_PROVIDER (provider)->inner, request, on_delta, delta_data,
                                                   cancellable, error);

  g_atomic_pointer_add (&time_in_provider, g_get_monotonic_time () - start);
  return response;
}

static void
bench_provider_iface_init (PdProviderInterface *iface)
{
  iface->get_name = bench_provider_get_name;
  iface->chat = bench_provider_chat;
}

static void
bench_provider_finalize (GObject *object)
{
  g_clear_object (&BENCH_PROVIDER (object)->inner);
  G_OBJECT_CLASS (bench_provider_parent_class)->finalize (object);
}

static void
bench_provider_class_init (BenchProviderClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = bench_provider_finalize;
}

static void
bench_provider_init (BenchProvider *self)
{
}

/* --- timed tool ------------------------------------------------------ */

#define BENCH_TYPE_TOOL (bench_tool_get_type ())
G_DECLARE_FINAL_TYPE (BenchTool, bench_tool, BENCH, TOOL, GObject)

struct _BenchTool
{
  GObject  parent_instance;
  PdTool  *inner;
};

static void bench_tool_iface_init (PdToolInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (BenchTool, bench_tool, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (PD_TYPE_TOOL, bench_tool_iface_init))

static const char *
bench_tool_get_name (PdTool *tool)
{
  return pd_tool_get_name (BENCH_TOOL (tool)->inner);
}

static const char *
bench_tool_get_description (PdTool *tool)
{
  return pd_tool_get_description (BENCH_TOOL (tool)->inner);
}

static JsonNode *
bench_tool_get_parameters (PdTool *tool)
{
  return pd_tool_get_parameters (BENCH_TOOL (tool)->inner);
}

static PdToolSafety
bench_tool_get_safety (PdTool *tool)
{
  return pd_tool_get_safety (BENCH_TOOL (tool)->inner);
}

static PdToolEffects
bench_tool_get_effects (PdTool     *tool,
                        JsonObject *args)
{
  return pd_tool_get_effects (BENCH_TOOL (tool)->inner, args);
}

static PdToolResult *
bench_tool_call (PdTool         *tool,
                 PdToolContext  *context,
                 JsonObject     *args,
                 GCancellable   *cancellable,
                 GError        **error)
{
  PdTool *inner = BENCH_TOOL (tool)->inner;
  gint64 start = g_get_monotonic_time ();
  PdToolResult *result = pd_tool_call (inner, context, args, cancellable, error);
  gint64 spent = g_get_monotonic_time () - start;

  g_atomic_pointer_add (&time_in_tools, spent);
  if (strcmp (pd_tool_get_name (inner), "plan") == 0)
    g_atomic_pointer_add (&time_in_plan_tool, spent);
  return result;
}

static void
bench_tool_iface_init (PdToolInterface *iface)
{
  iface->get_name = bench_tool_get_name;
  iface->get_description = bench_tool_get_description;
  iface->get_parameters = bench_tool_get_parameters;
  iface->get_safety = bench_tool_get_safety;
  iface->get_effects = bench_tool_get_effects;
  iface->call = bench_tool_call;
}

static void
bench_tool_finalize (GObject *object)
{
  g_clear_object (&BENCH_TOOL (object)->inner);
  G_OBJECT_CLASS (bench_tool_parent_class)->finalize (object);
}

static void
bench_tool_class_init (BenchToolClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = bench_tool_finalize;
}

static void
bench_tool_init (BenchTool *self)
{
}

/* --- the workload ---------------------------------------------------- */

static char *
recording (void)
{
  GString *out = g_string_new ("{\"turns\":[{\"tool_calls\":[{\"name\":\"plan\",\"arguments\":{\"verb\":\"create\",\"steps\":[");

  for (guint i = 1; i <= STEPS; i++)
    g_string_append_printf (out, "%s{\"id\":\"s%u\",\"title\":\"Step %u of a twelve-step benchmark plan\"}",
                            i > 1 ? "," : "", i, i);
  g_string_append (out, "]}}]}");

  /* Every turn changes the plan (status or note), so every turn bumps the
   * version and re-renders the plan message. */
  for (guint t = 1; t < TURNS; t++)
    g_string_append_printf (out, ",{\"tool_calls\":["
                                 "{\"name\":\"plan\",\"arguments\":{\"verb\":\"update\",\"updates\":"
                                 "[{\"id\":\"s%u\",\"status\":\"%s\",\"note\":\"turn %u\"}]}},"
                                 "{\"name\":\"list_dir\",\"arguments\":{}}]}",
                            t % STEPS + 1, t % 2 ? "in_progress" : "pending", t);

  /* The answer, and the answer after the completion nudge. */
  g_string_append (out, ",{\"content\":\"done\"},{\"content\":\"done\"}]}");
  return g_string_free (out, FALSE);
}

static PdReplayProvider *
new_replay (const char *text)
{
  g_autoptr(JsonNode) root = pd_json_parse (text, -1, NULL);
  g_autoptr(GError) error = NULL;
  PdReplayProvider *replay = pd_replay_provider_new_from_json (root, &error);

  g_assert_no_error (error);
  return replay;
}

static PdToolRegistry *
timed_registry (PdPlanStore *plan_store)
{
  g_autoptr(PdToolRegistry) builtins = pd_tool_registry_new ();
  g_autoptr(GPtrArray) tools = NULL;
  PdToolRegistry *registry = pd_tool_registry_new ();

  pd_tool_registry_add_builtins (builtins, plan_store);
  tools = pd_tool_registry_list (builtins);
  for (guint i = 0; i < tools->len; i++)
    {
      g_autoptr(BenchTool) timed = g_object_new (BENCH_TYPE_TOOL, NULL);

      timed->inner = g_object_ref (g_ptr_array_index (tools, i));
      pd_tool_registry_add (registry, PD_TOOL (timed));
    }
  return registry;
}

typedef struct
{
  double   wall_us;
  double   provider_us;
  double   tools_us;
  double   plan_tool_us;
  guint    iterations;
  guint    tool_calls;
} Figures;

static void
run_engine (const char    *text,
            PdToolContext *context,
            const char    *dir,
            gboolean       with_store,
            guint          parallel,
            Figures       *out)
{
  g_autoptr(PdReplayProvider) replay = new_replay (text);
  g_autoptr(BenchProvider) provider = g_object_new (BENCH_TYPE_PROVIDER, NULL);
  g_autoptr(PdPlanStore) plan_store = pd_plan_store_new (STEPS, 2000);
  g_autoptr(PdToolRegistry) tools = timed_registry (plan_store);
  g_autoptr(PdApprover) approver = pd_approver_new (PD_APPROVAL_POLICY_AUTO);
  g_autoptr(PdEventBus) bus = pd_event_bus_new ();
  g_autoptr(PdDb) db = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdEngine) engine = NULL;
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *db_path = g_build_filename (dir, "bench.db", NULL);
  PdEngineOptions options = { 0 };
  gint64 start;

  if (with_store)
    {
      g_unlink (db_path);
      db = pd_db_open (db_path, PD_DB_CREATE, &error);
      g_assert_no_error (error);
      store = pd_session_store_new (db);
    }

  provider->inner = g_object_ref (PD_PROVIDER (replay));
  options.provider = PD_PROVIDER (provider);
  options.model = "bench";
  options.tools = tools;
  options.plan_store = plan_store;
  options.approver = approver;
  options.store = store;
  options.bus = bus;
  options.tool_context = context;
  options.max_iterations = TURNS + 10;
  options.max_tool_parallel = parallel;
  engine = pd_engine_new (&options);

  time_in_provider = time_in_tools = time_in_plan_tool = 0;
  start = g_get_monotonic_time ();
  result = pd_engine_run (engine, NULL, "Benchmark the loop", NULL, &error);
  out->wall_us = g_get_monotonic_time () - start;
  g_assert_no_error (error);
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);

  out->provider_us = time_in_provider;
  out->tools_us = time_in_tools;
  out->plan_tool_us = time_in_plan_tool;
  out->iterations = result->iterations;
  out->tool_calls = 1 + 2 * (TURNS - 1);

  if (with_store)
    {
      g_clear_object (&store);
      g_clear_object (&db);
      g_unlink (db_path);
    }
}

/* The same provider turns and tool calls, without the engine. */
static double
run_baseline (const char    *text,
              PdToolContext *context)
{
  g_autoptr(PdReplayProvider) replay = new_replay (text);
  g_autoptr(PdPlanStore) plan_store = pd_plan_store_new (STEPS, 2000);
  g_autoptr(PdToolRegistry) tools = pd_tool_registry_new ();
  g_autoptr(JsonArray) messages = json_array_new ();
  PdProviderRequest request = { 0 };
  gint64 start;

  pd_tool_registry_add_builtins (tools, plan_store);
  json_array_add_object_element (messages, json_object_new ());
  request.model = "bench";
  request.messages = messages;
  request.temperature = -1;

  start = g_get_monotonic_time ();
  for (;;)
    {
      g_autoptr(PdProviderResponse) response = pd_provider_chat (PD_PROVIDER (replay), &request, NULL, NULL,
                                                                 NULL, NULL);

      if (response == NULL || json_array_get_length (response->tool_calls) == 0)
        break;
      for (guint i = 0; i < json_array_get_length (response->tool_calls); i++)
        {
          JsonObject *function = json_object_get_object_member (json_array_get_object_element (response->tool_calls, i),
                                                                "function");
          g_autoptr(JsonNode) args = pd_json_parse (json_object_get_string_member (function, "arguments"), -1, NULL);
          PdTool *tool = pd_tool_registry_lookup (tools, json_object_get_string_member (function, "name"));
          g_autoptr(PdToolResult) tool_result = pd_tool_call (tool, context, json_node_get_object (args), NULL, NULL);

          g_assert_true (tool_result->ok);
        }
    }
  return g_get_monotonic_time () - start;
}

static int
compare_double (gconstpointer a,
                gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (double *values)
{
  qsort (values, ROUNDS, sizeof (double), compare_double);
  return values[ROUNDS / 2];
}

static void
report (const char    *label,
        const char    *text,
        PdToolContext *context,
        const char    *dir,
        gboolean       with_store,
        double         baseline_us)
{
  double overhead[ROUNDS], wall[ROUNDS], wall_parallel[ROUNDS], plan_tool[ROUNDS];
  Figures figures = { 0 };
  double per_iteration, per_call, vs_baseline;

  for (guint r = 0; r < ROUNDS; r++)
    {
      run_engine (text, context, dir, with_store, 1, &figures);
      wall[r] = figures.wall_us;
      overhead[r] = figures.wall_us - figures.provider_us - figures.tools_us;
      plan_tool[r] = figures.plan_tool_us;
      run_engine (text, context, dir, with_store, PD_ENGINE_DEFAULT_MAX_TOOL_PARALLEL, &figures);
      wall_parallel[r] = figures.wall_us;
    }

  per_iteration = median (overhead) / figures.iterations;
  per_call = median (overhead) / figures.tool_calls;
  vs_baseline = (median (wall_parallel) - baseline_us) / figures.iterations;

  printf ("%s\n", label);
  printf ("  iterations %u, tool calls %u, median of %u runs\n", figures.iterations, figures.tool_calls, ROUNDS);
  printf ("  wall (parallel 1)                     %10.1f ms\n", median (wall) / 1000);
  printf ("  engine overhead per iteration         %10.1f µs   (goal < 1000 µs: %s)\n",
          per_iteration, per_iteration < 1000 ? "met" : "missed");
  printf ("  engine overhead per tool call         %10.1f µs\n", per_call);
  printf ("  overhead / baseline work              %10.2f x\n", median (overhead) / baseline_us);
  printf ("  inside the plan tool per plan call    %10.1f µs   (counted as tool time)\n",
          median (plan_tool) / TURNS);
  printf ("  wall (parallel %u) − baseline, per iteration %5.1f µs\n",
          (guint) PD_ENGINE_DEFAULT_MAX_TOOL_PARALLEL, vs_baseline);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("pd-bench-engine-XXXXXX", &error);
  g_autofree char *work = NULL;
  g_autofree char *text = recording ();
  g_autoptr(PdToolContext) context = NULL;
  double baseline[ROUNDS];
  double baseline_us;

  g_assert_no_error (error);
  work = g_build_filename (dir, "empty", NULL);
  g_assert_cmpint (g_mkdir (work, 0700), ==, 0);
  context = pd_tool_context_new (work, &error);
  g_assert_no_error (error);

  printf ("Engine loop benchmark: %u turns, a %u-step plan, each turn a plan update and a list_dir\n"
          "(GLib %u.%u.%u, json-glib %s)\n",
          TURNS, STEPS, glib_major_version, glib_minor_version, glib_micro_version, JSON_VERSION_S);

  for (guint r = 0; r < ROUNDS; r++)
    baseline[r] = run_baseline (text, context);
  baseline_us = median (baseline);
  printf ("baseline (provider + tools called directly, no engine): %.1f ms, %.1f µs per turn\n",
          baseline_us / 1000, baseline_us / (TURNS + 1));

  report ("store disabled (no session database)", text, context, dir, FALSE, baseline_us);
  report ("store enabled (SQLite file, every turn saved)", text, context, dir, TRUE, baseline_us);

  g_rmdir (work);
  g_rmdir (dir);
  return 0;
}
