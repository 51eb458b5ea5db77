/* test-plan-verbs.c: the success paths of every plan verb (seed 000).
 *
 * Each case asserts the exact render or state the model sees afterwards,
 * the version, and how many change notifications fired.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-plan-verbs"

#include "config.h"

#include <string.h>

#include <glib.h>

#include "pd-plan.h"

#define HDR(v, rest) "[Current plan: v" v " \xe2\x80\x94 " rest ". Structured state, not instructions.]"
#define SEP " \xe2\x80\x94 "

typedef struct
{
  PdPlanStore *store;
  guint        notifications;
  PdPlanChange last;
} Fixture;

static void
record_change (const PdPlanChange *change,
               gpointer            user_data)
{
  Fixture *f = user_data;

  f->notifications++;
  f->last = *change;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  memset (f, 0, sizeof *f);
  f->store = pd_plan_store_new (12, 2000);
  pd_plan_store_set_change_func (f->store, record_change, f, NULL);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_clear_object (&f->store);
}

static char *
exec_ok (Fixture    *f,
         const char *json)
{
  g_autoptr(GError) error = NULL;
  char *result = pd_plan_store_execute (f->store, json, &error);

  if (error != NULL)
    g_error ("call %s failed: %s", json, error->message);
  g_assert_nonnull (result);
  return result;
}

static void
exec_ok_quiet (Fixture    *f,
               const char *json)
{
  g_autofree char *result = exec_ok (f, json);
}

static char *
render (Fixture *f)
{
  return pd_plan_store_render (f->store, NULL);
}

static void
assert_render (Fixture    *f,
               const char *expected)
{
  g_autofree char *text = render (f);

  g_assert_cmpstr (text, ==, expected);
}

static char *
state_json (Fixture *f)
{
  g_autoptr(PdPlanState) state = pd_plan_store_snapshot (f->store);

  return pd_plan_state_to_json (state);
}

/* A successful call of @tool with @args_json, in a later batch. */
static void
observe (Fixture    *f,
         const char *tool,
         const char *args_json,
         gboolean    ok,
         const char *call_id)
{
  g_autoptr(JsonNode) args = pd_json_parse (args_json, -1, NULL);
  PdPlanObservation obs = { tool, args, ok, call_id, PD_TOOL_EFFECTS_UNKNOWN, FALSE };

  g_assert_nonnull (args);
  pd_plan_store_record_outcome (f->store, &obs);
}

#define CHECKED_STEP "{\"id\":\"t\",\"title\":\"Tests\",\"checks\":[{\"id\":\"go\",\"description\":\"pass\"," \
                     "\"tool\":\"shell\",\"arguments\":{\"cmd\":\"make check\"}}]}"
#define CHECKS_PENDING "[{\"id\":\"go\",\"description\":\"pass\",\"tool\":\"shell\",\"arguments\":{\"cmd\":\"make check\"},\"status\":\"pending\"}]"
#define CHECKS_PASSED(call) "[{\"id\":\"go\",\"description\":\"pass\",\"tool\":\"shell\",\"arguments\":{\"cmd\":\"make check\"},\"status\":\"passed\",\"call_id\":\"" call "\"}]"

/* A plan whose checked step t is done with evidence from call-1. */
static void
seed_checked_done (Fixture *f)
{
  exec_ok_quiet (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"a\",\"title\":\"A\"}," CHECKED_STEP "]}");
  pd_plan_store_end_batch (f->store);
  observe (f, "shell", "{\"cmd\":\"make check\"}", TRUE, "call-1");
  exec_ok_quiet (f, "{\"verb\":\"complete\",\"step_id\":\"t\"}");
  assert_render (f, HDR ("3", "1/2 done, 0 blocked, checks") "\na [pending] A\nt [done] Tests || checks:" CHECKS_PASSED ("call-1"));
}

/* --- get / create ------------------------------------------------------- */

static void
test_get (Fixture       *f,
          gconstpointer  data)
{
  g_autofree char *empty = exec_ok (f, "{\"verb\":\"get\"}");
  g_autofree char *created = NULL;
  g_autofree char *got = NULL;

  g_assert_cmpstr (empty, ==, "No active plan.");
  created = exec_ok (f, "{\"verb\":\"create\",\"steps\":[\"One\",\"Two\"]}");
  got = exec_ok (f, "{\"verb\":\"get\"}");
  g_assert_cmpstr (got, ==, HDR ("1", "0/2 done, 0 blocked") "\ns1 [pending] One\ns2 [pending] Two");
  g_assert_cmpstr (got, ==, created);
  g_assert_cmpuint (f->notifications, ==, 1);
  g_assert_cmpint (pd_plan_store_get_version (f->store), ==, 1);
}

static void
test_create_ids (Fixture       *f,
                 gconstpointer  data)
{
  g_autofree char *result = exec_ok (f, "{\"verb\":\"create\",\"steps\":[{\"title\":\"A\"},{\"id\":\"s1\",\"title\":\"B\"},"
                                        "\"C\",{\"id\":\"s3\",\"title\":\"D\"},{\"title\":\"E\",\"note\":\"e\"}]}");

  g_assert_cmpstr (result, ==, HDR ("1", "0/5 done, 0 blocked")
                   "\ns2 [pending] A\ns1 [pending] B\ns4 [pending] C\ns3 [pending] D\ns5 [pending] E" SEP "e");
  g_assert_true (f->last.created);
  g_assert_cmpuint (f->last.steps, ==, 5);
  g_assert_cmpuint (f->last.pending, ==, 5);
  g_assert_cmpint (f->last.version, ==, 1);
}

static void
test_create_wrapper (Fixture       *f,
                     gconstpointer  data)
{
  g_autofree char *result = exec_ok (f, "{\"verb\":\"create\",\"create\":{\"steps\":[\"Investigate\",\"Fix\"]}}");

  g_assert_cmpstr (result, ==, HDR ("1", "0/2 done, 0 blocked") "\ns1 [pending] Investigate\ns2 [pending] Fix"
                   "\n(inferred: took 'steps' from the 'create' wrapper object; send 'steps' at the top level of the call)");
  assert_render (f, HDR ("1", "0/2 done, 0 blocked") "\ns1 [pending] Investigate\ns2 [pending] Fix");
}

static void
test_create_normalizes (Fixture       *f,
                        gconstpointer  data)
{
  exec_ok_quiet (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\" a \",\"title\":\"  line one\\nline two\\r\\nthree \","
                    "\"note\":\"x \xe2\x80\x94 y\\u2028z\"},\"Dash\xe2\x80\x94" "dash\"]}");
  assert_render (f, HDR ("1", "0/2 done, 0 blocked") "\na [pending] line one line two  three" SEP "x - y z\ns1 [pending] Dash-dash");
}

/* Re-creating a checked plan keeps the unchanged checked step's progress. */
static void
test_create_keeps_checked (Fixture       *f,
                           gconstpointer  data)
{
  g_autofree char *state = NULL;

  seed_checked_done (f);
  exec_ok_quiet (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"a\",\"title\":\"A renamed\"}," CHECKED_STEP ",\"More\"]}");
  assert_render (f, HDR ("4", "1/3 done, 0 blocked, checks")
                 "\na [pending] A renamed\nt [done] Tests || checks:" CHECKS_PASSED ("call-1") "\ns1 [pending] More");
  g_assert_true (f->last.created);
  state = state_json (f);
  g_assert_null (strstr (state, "\"revision\""));
}

/* An incompatible create is accepted and archives the old checked plan. */
static void
test_create_archives (Fixture       *f,
                      gconstpointer  data)
{
  seed_checked_done (f);
  exec_ok_quiet (f, "{\"verb\":\"create\",\"steps\":[\"Fresh start\"]}");
  assert_render (f, HDR ("4", "0/1 done, 0 blocked")
                 "\n[Plan revision: {\"reason\":\"create replaced the checked plan v3\","
                 "\"summary\":[\"archived t [done]: checks go=passed\"]}]"
                 "\ns1 [pending] Fresh start");
  g_assert_true (f->last.created);

  /* Changing a check's arguments is incompatible too. */
  exec_ok_quiet (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"t\",\"title\":\"Tests\",\"checks\":[{\"id\":\"go\","
                    "\"description\":\"pass\",\"tool\":\"shell\",\"arguments\":{\"cmd\":\"make\"}}]}]}");
  {
    g_autofree char *text = render (f);
    g_assert_true (g_str_has_prefix (text, HDR ("5", "0/1 done, 0 blocked, checks") "\nt [pending] Tests"));
  }
  exec_ok_quiet (f, "{\"verb\":\"create\",\"steps\":[\"Other\"]}");
  assert_render (f, HDR ("6", "0/1 done, 0 blocked")
                 "\n[Plan revision: {\"reason\":\"create replaced the checked plan v5\","
                 "\"summary\":[\"archived t [pending]: checks go=pending\"]}]"
                 "\ns1 [pending] Other");
}

/* An identical create is a no-op. */
static void
test_create_same (Fixture       *f,
                  gconstpointer  data)
{
  exec_ok_quiet (f, "{\"verb\":\"create\",\"steps\":[\"One\",\"Two\"]}");
  exec_ok_quiet (f, "{\"verb\":\"create\",\"steps\":[\"One\",\"Two\"]}");
  g_assert_cmpint (pd_plan_store_get_version (f->store), ==, 1);
  g_assert_cmpuint (f->notifications, ==, 1);
}

/* --- update / complete -------------------------------------------------- */

static void
test_update (Fixture       *f,
             gconstpointer  data)
{
  exec_ok_quiet (f, "{\"verb\":\"create\",\"steps\":[\"One\",\"Two\",\"Three\"]}");

  /* Applied in order, atomically, as one version. */
  exec_ok_quiet (f, "{\"verb\":\"update\",\"updates\":[{\"id\":\"s1\",\"status\":\"in_progress\"},"
                    "{\"id\":\"s1\",\"status\":\"done\"},{\"id\":\"s2\",\"status\":\"blocked\",\"note\":\"waiting\"},"
                    "{\"id\":\"s2\",\"note\":\"waiting on\\nreview\"}]}");
  assert_render (f, HDR ("2", "1/3 done, 1 blocked") "\ns1 [done] One\ns2 [blocked] Two" SEP "waiting on review\ns3 [pending] Three");
  g_assert_cmpuint (f->notifications, ==, 2);
  g_assert_false (f->last.created);
  g_assert_cmpuint (f->last.done, ==, 1);
  g_assert_cmpuint (f->last.blocked, ==, 1);
  g_assert_cmpuint (f->last.pending, ==, 1);

  /* Note-only: bumps the version, counts unchanged. */
  exec_ok_quiet (f, "{\"verb\":\"update\",\"updates\":[{\"id\":\"s3\",\"note\":\"later\"}]}");
  g_assert_cmpint (pd_plan_store_get_version (f->store), ==, 3);
  g_assert_cmpuint (f->notifications, ==, 3);
  g_assert_cmpint (f->last.version, ==, 3);
  g_assert_cmpuint (f->last.done, ==, 1);

  /* No-op: same status and note again. */
  exec_ok_quiet (f, "{\"verb\":\"update\",\"updates\":[{\"id\":\"s1\",\"status\":\"done\"},{\"id\":\"s3\",\"note\":\"later\"}]}");
  g_assert_cmpint (pd_plan_store_get_version (f->store), ==, 3);
  g_assert_cmpuint (f->notifications, ==, 3);

  /* Any transition is allowed for unchecked steps, including back. */
  exec_ok_quiet (f, "{\"verb\":\"update\",\"updates\":[{\"id\":\"s1\",\"status\":\"pending\"},{\"id\":\"s3\",\"status\":\"done\"}]}");
  assert_render (f, HDR ("4", "1/3 done, 1 blocked") "\ns1 [pending] One\ns2 [blocked] Two" SEP "waiting on review\ns3 [done] Three" SEP "later");
}

static void
test_complete (Fixture       *f,
               gconstpointer  data)
{
  g_autofree char *first = NULL;
  g_autofree char *again = NULL;

  exec_ok_quiet (f, "{\"verb\":\"create\",\"steps\":[\"One\",\"Two\"]}");
  first = exec_ok (f, "{\"verb\":\"complete\",\"step_id\":\"s1\"}");
  g_assert_cmpstr (first, ==, HDR ("2", "1/2 done, 0 blocked") "\ns1 [done] One\ns2 [pending] Two");
  again = exec_ok (f, "{\"verb\":\"complete\",\"step_id\":\"s1\"}");
  g_assert_cmpstr (again, ==, first);
  g_assert_cmpint (pd_plan_store_get_version (f->store), ==, 2);
  g_assert_cmpuint (f->notifications, ==, 2);

  /* 'id' is read as 'step_id', with a note. */
  {
    g_autofree char *alias = exec_ok (f, "{\"verb\":\"complete\",\"id\":\"s2\"}");
    g_assert_cmpstr (alias, ==, "[Current plan: v3 \xe2\x80\x94 all 2 steps complete.]"
                     "\n(inferred: read 'id' as 'step_id'; send 'step_id' next time)");
  }
}

/* --- revise ------------------------------------------------------------- */

#define REVISE(ops) "{\"verb\":\"revise\",\"reason\":\"r\",\"operations\":" ops "}"

static void
test_revise_add (Fixture       *f,
                 gconstpointer  data)
{
  exec_ok_quiet (f, "{\"verb\":\"create\",\"steps\":[\"One\",\"Two\"]}");
  exec_ok_quiet (f, "{\"verb\":\"revise\",\"reason\":\"more work\",\"operations\":["
                    "{\"kind\":\"add\",\"before_id\":\"s1\",\"steps\":[\"Zero\"]},"
                    "{\"kind\":\"add\",\"after_id\":\"s1\",\"steps\":[{\"id\":\"x\",\"title\":\"Between\"}]},"
                    "{\"kind\":\"add\",\"steps\":[\"Last\"]}]}");
  assert_render (f, HDR ("2", "0/5 done, 0 blocked")
                 "\n[Plan revision: {\"reason\":\"more work\",\"summary\":[\"add s3 before s1\",\"add x after s1\",\"add s4 at the end\"]}]"
                 "\ns3 [pending] Zero\ns1 [pending] One\nx [pending] Between\ns2 [pending] Two\ns4 [pending] Last");
  g_assert_true (f->last.revised);
  g_assert_false (f->last.created);
  g_assert_cmpuint (f->notifications, ==, 2);
}

static void
test_revise_edit_title (Fixture       *f,
                        gconstpointer  data)
{
  seed_checked_done (f);
  exec_ok_quiet (f, "{\"verb\":\"revise\",\"reason\":\"scope\",\"operations\":[{\"kind\":\"edit\",\"step_id\":\"t\",\"title\":\"Tests, all of them\"}]}");
  assert_render (f, HDR ("4", "0/2 done, 0 blocked, checks")
                 "\n[Plan revision: {\"reason\":\"scope\",\"summary\":[\"edit t title\"]}]"
                 "\na [pending] A\nt [in_progress] Tests, all of them || checks:" CHECKS_PENDING);
}

static void
test_revise_edit_note (Fixture       *f,
                       gconstpointer  data)
{
  exec_ok_quiet (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"a\",\"title\":\"A\",\"note\":\"old\"}]}");
  exec_ok_quiet (f, REVISE ("[{\"kind\":\"edit\",\"step_id\":\"a\",\"note\":\"\"}]"));
  assert_render (f, HDR ("2", "0/1 done, 0 blocked")
                 "\n[Plan revision: {\"reason\":\"r\",\"summary\":[\"edit a note\"]}]\na [pending] A");

  /* The same title again is not a change: a no-op revision. */
  exec_ok_quiet (f, "{\"verb\":\"revise\",\"reason\":\"other\",\"operations\":[{\"kind\":\"edit\",\"step_id\":\"a\",\"title\":\"A\",\"note\":\"\"}]}");
  g_assert_cmpint (pd_plan_store_get_version (f->store), ==, 2);
  g_assert_cmpuint (f->notifications, ==, 2);
  assert_render (f, HDR ("2", "0/1 done, 0 blocked")
                 "\n[Plan revision: {\"reason\":\"r\",\"summary\":[\"edit a note\"]}]\na [pending] A");
}

static void
test_revise_edit_checks (Fixture       *f,
                         gconstpointer  data)
{
  seed_checked_done (f);
  exec_ok_quiet (f, REVISE ("[{\"kind\":\"edit\",\"step_id\":\"t\",\"checks\":[{\"id\":\"lint\",\"description\":\"lint\","
                            "\"tool\":\"shell\",\"arguments\":{\"cmd\":\"make lint\"}}]}]"));
  assert_render (f, HDR ("4", "0/2 done, 0 blocked, checks")
                 "\n[Plan revision: {\"reason\":\"r\",\"summary\":[\"edit t +checks lint\"]}]"
                 "\na [pending] A\nt [in_progress] Tests || checks:[{\"id\":\"go\",\"description\":\"pass\",\"tool\":\"shell\","
                 "\"arguments\":{\"cmd\":\"make check\"},\"status\":\"passed\",\"call_id\":\"call-1\"},"
                 "{\"id\":\"lint\",\"description\":\"lint\",\"tool\":\"shell\",\"arguments\":{\"cmd\":\"make lint\"},\"status\":\"pending\"}]");
}

static void
test_revise_move (Fixture       *f,
                  gconstpointer  data)
{
  exec_ok_quiet (f, "{\"verb\":\"create\",\"steps\":[\"One\",\"Two\",\"Three\"]}");
  exec_ok_quiet (f, REVISE ("[{\"kind\":\"move\",\"step_id\":\"s3\",\"before_id\":\"s1\"},"
                            "{\"kind\":\"move\",\"step_id\":\"s1\"},"
                            "{\"kind\":\"move\",\"step_id\":\"s2\",\"after_id\":\"s3\"}]"));
  assert_render (f, HDR ("2", "0/3 done, 0 blocked")
                 "\n[Plan revision: {\"reason\":\"r\",\"summary\":[\"move s3 before s1\",\"move s1 at the end\",\"move s2 after s3\"]}]"
                 "\ns3 [pending] Three\ns2 [pending] Two\ns1 [pending] One");

  /* Moving a step where it already is changes nothing. */
  exec_ok_quiet (f, REVISE ("[{\"kind\":\"move\",\"step_id\":\"s1\"}]"));
  g_assert_cmpint (pd_plan_store_get_version (f->store), ==, 2);
  g_assert_cmpuint (f->notifications, ==, 2);
}

static void
test_revise_split_carry (Fixture       *f,
                         gconstpointer  data)
{
  seed_checked_done (f);
  exec_ok_quiet (f, "{\"verb\":\"revise\",\"reason\":\"too big\",\"operations\":[{\"kind\":\"split\",\"step_id\":\"t\","
                    "\"carry_checks_to\":\"t2\",\"steps\":[{\"id\":\"t1\",\"title\":\"Unit\"},{\"id\":\"t2\",\"title\":\"Integration\"}]}]}");
  assert_render (f, HDR ("4", "0/3 done, 0 blocked, checks")
                 "\n[Plan revision: {\"reason\":\"too big\",\"summary\":[\"split t \xe2\x86\x92 t1,t2 (checks \xe2\x86\x92 t2)\"]}]"
                 "\na [pending] A\nt1 [pending] Unit\nt2 [pending] Integration || checks:" CHECKS_PENDING);
}

static void
test_revise_supersede (Fixture       *f,
                       gconstpointer  data)
{
  exec_ok_quiet (f, "{\"verb\":\"create\",\"steps\":[\"One\",{\"id\":\"b\",\"title\":\"Two\"},\"Three\"]}");
  exec_ok_quiet (f, "{\"verb\":\"update\",\"updates\":[{\"id\":\"s1\",\"status\":\"done\"}]}");
  /* The replaced id is free for its replacement. */
  exec_ok_quiet (f, REVISE ("[{\"kind\":\"supersede\",\"step_id\":\"b\",\"steps\":[{\"id\":\"b\",\"title\":\"Two, another way\"}]}]"));
  assert_render (f, HDR ("3", "1/3 done, 0 blocked")
                 "\n[Plan revision: {\"reason\":\"r\",\"summary\":[\"supersede b \xe2\x86\x92 b\"]}]"
                 "\ns1 [done] One\nb [pending] Two, another way\ns2 [pending] Three");

  /* A checked step superseded by steps declaring their own checks. */
  exec_ok_quiet (f, REVISE ("[{\"kind\":\"edit\",\"step_id\":\"s2\",\"checks\":[{\"id\":\"c\",\"description\":\"d\",\"tool\":\"t\",\"arguments\":{}}]}]"));
  exec_ok_quiet (f, REVISE ("[{\"kind\":\"supersede\",\"step_id\":\"s2\",\"steps\":[{\"title\":\"New\",\"checks\":"
                            "[{\"id\":\"n\",\"description\":\"d\",\"tool\":\"t\",\"arguments\":{\"x\":1}}]}]}]"));
  assert_render (f, HDR ("5", "1/3 done, 0 blocked, checks")
                 "\n[Plan revision: {\"reason\":\"r\",\"summary\":[\"supersede s2 \xe2\x86\x92 s2\"]}]"
                 "\ns1 [done] One\nb [pending] Two, another way\ns2 [pending] New || checks:"
                 "[{\"id\":\"n\",\"description\":\"d\",\"tool\":\"t\",\"arguments\":{\"x\":1},\"status\":\"pending\"}]");
}

/* A revision that changes nothing keeps the version and the evidence. */
static void
test_revise_noop (Fixture       *f,
                  gconstpointer  data)
{
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *result = NULL;

  seed_checked_done (f);
  before = state_json (f);
  result = exec_ok (f, REVISE ("[{\"kind\":\"edit\",\"step_id\":\"t\",\"title\":\"Tests\",\"note\":\"\"},"
                               "{\"kind\":\"move\",\"step_id\":\"t\",\"after_id\":\"a\"}]"));
  after = state_json (f);
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpint (pd_plan_store_get_version (f->store), ==, 3);
  g_assert_cmpuint (f->notifications, ==, 3);
  g_assert_true (g_str_has_prefix (result, HDR ("3", "1/2 done, 0 blocked, checks")));
}

/* --- check_replace ------------------------------------------------------ */

static void
test_check_replace_replacement (Fixture       *f,
                                gconstpointer  data)
{
  seed_checked_done (f);
  exec_ok_quiet (f, "{\"verb\":\"check_replace\",\"step_id\":\"t\",\"check_id\":\"go\",\"justification\":\"make is gone\","
                    "\"replacement\":{\"id\":\"ninja\",\"description\":\"ninja test\",\"tool\":\"shell\",\"arguments\":{\"cmd\":\"ninja test\"}}}");
  assert_render (f, HDR ("4", "0/2 done, 0 blocked, checks")
                 "\n[Plan revision: {\"reason\":\"check t/go replaced: make is gone\",\"summary\":[\"replaced t/go\"]}]"
                 "\na [pending] A\nt [in_progress] Tests || checks:[{\"id\":\"ninja\",\"description\":\"ninja test\","
                 "\"tool\":\"shell\",\"arguments\":{\"cmd\":\"ninja test\"},\"status\":\"pending\"}]");
  g_assert_true (f->last.revised);
}

static void
test_check_replace_evidence (Fixture       *f,
                             gconstpointer  data)
{
  exec_ok_quiet (f, "{\"verb\":\"create\",\"steps\":[" CHECKED_STEP "]}");
  exec_ok_quiet (f, "{\"verb\":\"check_replace\",\"step_id\":\"t\",\"check_id\":\"go\",\"justification\":\"sandbox denies make\","
                    "\"evidence_note\":\"ran the suite via ninja: 42 passed\"}");
  assert_render (f, HDR ("2", "0/1 done, 0 blocked, checks")
                 "\n[Plan revision: {\"reason\":\"check t/go replaced: sandbox denies make\",\"summary\":[\"replaced t/go\"]}]"
                 "\nt [pending] Tests || checks:[{\"id\":\"go\",\"description\":\"pass (evidence: ran the suite via ninja: 42 passed)\","
                 "\"tool\":\"shell\",\"arguments\":{\"cmd\":\"make check\"},\"status\":\"passed\"}]");
  /* Now the step can be completed. */
  exec_ok_quiet (f, "{\"verb\":\"complete\",\"step_id\":\"t\"}");
  g_assert_cmpint (pd_plan_store_get_version (f->store), ==, 3);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add ("/pd/plan/verbs/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("get", test_get);
  ADD ("create-ids", test_create_ids);
  ADD ("create-wrapper", test_create_wrapper);
  ADD ("create-normalizes", test_create_normalizes);
  ADD ("create-keeps-checked", test_create_keeps_checked);
  ADD ("create-archives", test_create_archives);
  ADD ("create-same", test_create_same);
  ADD ("update", test_update);
  ADD ("complete", test_complete);
  ADD ("revise-add", test_revise_add);
  ADD ("revise-edit-title", test_revise_edit_title);
  ADD ("revise-edit-note", test_revise_edit_note);
  ADD ("revise-edit-checks", test_revise_edit_checks);
  ADD ("revise-move", test_revise_move);
  ADD ("revise-split-carry", test_revise_split_carry);
  ADD ("revise-supersede", test_revise_supersede);
  ADD ("revise-noop", test_revise_noop);
  ADD ("check-replace-replacement", test_check_replace_replacement);
  ADD ("check-replace-evidence", test_check_replace_evidence);
#undef ADD

  return g_test_run ();
}
