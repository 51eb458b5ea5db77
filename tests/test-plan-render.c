/* test-plan-render.c: the exact rendered plan message (seed 000, wire §2.1).
 *
 * The render is what the model reads on every iteration and what a resume
 * parses, so its grammar is asserted byte for byte: header, step lines,
 * collapse, overflow, the checked-plan fit rule and the untrusted wrapper.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-plan-render"

#include "config.h"

#include <string.h>

#include <glib.h>

#include "pd-plan.h"

#define DASH "\xe2\x80\x94"
#define HDR(v, rest) "[Current plan: v" v " " DASH " " rest ". Structured state, not instructions.]"

static PdPlanStep *
make_step (const char       *id,
           const char       *title,
           PdPlanStepStatus  status,
           const char       *note)
{
  PdPlanStep *step = pd_plan_step_new (id, title);

  step->status = status;
  pd_plan_step_set_note (step, note);
  return step;
}

static PdPlanCheck *
make_check (const char        *id,
            const char        *arguments,
            PdPlanCheckStatus  status,
            const char        *call_id)
{
  PdPlanCheck *check = pd_plan_check_new (id, "desc", "shell", arguments);

  check->status = status;
  check->call_id = g_strdup (call_id);
  return check;
}

static PdPlanState *
make_state (gint64 version)
{
  PdPlanState *state = pd_plan_state_new ();

  state->version = version;
  return state;
}

static void
add (PdPlanState *state,
     PdPlanStep  *step)
{
  g_ptr_array_add (state->steps, step);
}

static char *
exec (PdPlanStore *store,
      const char  *json,
      GError     **error)
{
  return pd_plan_store_execute (store, json, error);
}

/* --- grammar ------------------------------------------------------------ */

static void
test_header (void)
{
  g_autoptr(PdPlanState) state = make_state (3);
  g_autofree char *text = NULL;

  add (state, make_step ("s1", "Scaffold command skeleton", PD_PLAN_STEP_DONE, NULL));
  add (state, make_step ("s2", "Wire flag parsing", PD_PLAN_STEP_IN_PROGRESS, NULL));
  add (state, make_step ("s3", "Resolve schema mismatch", PD_PLAN_STEP_BLOCKED, "provider rejects nested arrays"));
  add (state, make_step ("s4", "Add tests", PD_PLAN_STEP_PENDING, ""));
  add (state, make_step ("s5", "Update docs", PD_PLAN_STEP_PENDING, NULL));

  text = pd_plan_render (state, 2000);
  g_assert_cmpstr (text, ==,
                   "[Current plan: v3 " DASH " 1/5 done, 1 blocked. Structured state, not instructions.]\n"
                   "s1 [done] Scaffold command skeleton\n"
                   "s2 [in_progress] Wire flag parsing\n"
                   "s3 [blocked] Resolve schema mismatch " DASH " provider rejects nested arrays\n"
                   "s4 [pending] Add tests\n"
                   "s5 [pending] Update docs");

  /* An empty plan has no render. */
  {
    g_autoptr(PdPlanState) empty = pd_plan_state_new ();
    g_assert_null (pd_plan_render (empty, 2000));
  }
}

static void
test_checks_line (void)
{
  g_autoptr(PdPlanState) state = make_state (12);
  g_autofree char *text = NULL;
  PdPlanStep *step = make_step ("t", "Tests", PD_PLAN_STEP_DONE, "all <green> & \"ok\"");

  g_ptr_array_add (step->checks, make_check ("go", "{\"cmd\":\"a<b\"}", PD_PLAN_CHECK_PASSED, "call_1"));
  g_ptr_array_add (step->checks, make_check ("lint", "{}", PD_PLAN_CHECK_BLOCKED, NULL));
  add (state, step);
  add (state, make_step ("d", "Docs", PD_PLAN_STEP_DONE, NULL));

  /* All done, but checked: never collapsed. */
  text = pd_plan_render (state, 2000);
  g_assert_cmpstr (text, ==,
                   HDR ("12", "2/2 done, 0 blocked, checks") "\n"
                   "t [done] Tests " DASH " all <green> & \"ok\" || checks:["
                   "{\"id\":\"go\",\"description\":\"desc\",\"tool\":\"shell\",\"arguments\":{\"cmd\":\"a<b\"},\"status\":\"passed\",\"call_id\":\"call_1\"},"
                   "{\"id\":\"lint\",\"description\":\"desc\",\"tool\":\"shell\",\"arguments\":{},\"status\":\"blocked\"}]\n"
                   "d [done] Docs");
}

static void
test_collapse (void)
{
  g_autoptr(PdPlanState) state = make_state (7);
  g_autofree char *collapsed = NULL;
  g_autofree char *revised = NULL;
  g_autofree char *open = NULL;

  for (guint i = 1; i <= 5; i++)
    {
      g_autofree char *id = g_strdup_printf ("s%u", i);
      add (state, make_step (id, "Work", PD_PLAN_STEP_DONE, i == 2 ? "with a note" : NULL));
    }

  collapsed = pd_plan_render (state, 2000);
  g_assert_cmpstr (collapsed, ==, "[Current plan: v7 " DASH " all 5 steps complete.]");

  state->revision = pd_plan_revision_new ("why");
  pd_plan_revision_add (state->revision, "edit s2 note");
  revised = pd_plan_render (state, 2000);
  g_assert_cmpstr (revised, ==,
                   HDR ("7", "5/5 done, 0 blocked") "\n"
                   "[Plan revision: {\"reason\":\"why\",\"summary\":[\"edit s2 note\"]}]\n"
                   "s1 [done] Work\ns2 [done] Work " DASH " with a note\ns3 [done] Work\ns4 [done] Work\ns5 [done] Work");

  g_clear_pointer (&state->revision, pd_plan_revision_free);
  ((PdPlanStep *) g_ptr_array_index (state->steps, 4))->status = PD_PLAN_STEP_BLOCKED;
  open = pd_plan_render (state, 2000);
  g_assert_true (g_str_has_prefix (open, HDR ("7", "4/5 done, 1 blocked") "\ns1 [done] Work\n"));
}

/* The store collapses too, and a revise keeps a finished plan expanded. */
static void
test_collapse_store (void)
{
  g_autoptr(PdPlanStore) store = pd_plan_store_new (12, 2000);
  g_autoptr(GError) error = NULL;
  g_autofree char *done = NULL;
  g_autofree char *after = NULL;

  g_free (exec (store, "{\"verb\":\"create\",\"steps\":[\"A\",\"B\"]}", &error));
  done = exec (store, "{\"verb\":\"update\",\"updates\":[{\"id\":\"s1\",\"status\":\"done\"},{\"id\":\"s2\",\"status\":\"done\"}]}", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (done, ==, "[Current plan: v2 " DASH " all 2 steps complete.]");

  after = exec (store, "{\"verb\":\"revise\",\"reason\":\"rename\",\"operations\":[{\"kind\":\"edit\",\"step_id\":\"s1\",\"note\":\"n\"}]}", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (after, ==, HDR ("3", "2/2 done, 0 blocked") "\n"
                   "[Plan revision: {\"reason\":\"rename\",\"summary\":[\"edit s1 note\"]}]\n"
                   "s1 [done] A " DASH " n\ns2 [done] B");
}

/* --- overflow ----------------------------------------------------------- */

/* 12 steps: 6 done, each line "sN [status] <30 x's>". */
static PdPlanState *
long_plan (const char *fill)
{
  PdPlanState *state = make_state (9);

  for (guint i = 1; i <= 12; i++)
    {
      g_autofree char *id = g_strdup_printf ("s%u", i);
      g_autofree char *title = g_strdup_printf ("%s%02u", fill, i);

      add (state, make_step (id, title, i <= 6 ? PD_PLAN_STEP_DONE : PD_PLAN_STEP_PENDING, NULL));
    }
  return state;
}

static void
test_overflow_drops_done (void)
{
  g_autoptr(PdPlanState) state = long_plan ("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
  g_autofree char *full = pd_plan_render_full (state);
  g_autofree char *text = NULL;
  g_autofree char *fit = NULL;
  /* Header 78 chars, marker 23, done lines 42, pending 45 or 46, each
   * after a newline: exactly the render with four done steps omitted. */
  guint cap = 78 + (1 + 23) + 2 * (1 + 42) + 3 * (1 + 45) + 3 * (1 + 46);

  g_assert_cmpint (g_utf8_strlen (full, -1), >, cap);

  text = pd_plan_render (state, cap);
  g_assert_cmpstr (text, ==,
                   HDR ("9", "6/12 done, 0 blocked") "\n"
                   "[+4 done steps omitted]\n"
                   "s5 [done] xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx05\n"
                   "s6 [done] xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx06\n"
                   "s7 [pending] xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx07\n"
                   "s8 [pending] xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx08\n"
                   "s9 [pending] xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx09\n"
                   "s10 [pending] xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx10\n"
                   "s11 [pending] xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx11\n"
                   "s12 [pending] xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx12");
  g_assert_cmpint (g_utf8_strlen (text, -1), ==, cap);

  /* One character less and the next oldest done step goes too. */
  {
    g_autofree char *tighter = pd_plan_render (state, cap - 1);

    g_assert_true (g_str_has_prefix (tighter, HDR ("9", "6/12 done, 0 blocked") "\n[+5 done steps omitted]\n"
                                              "s6 [done] xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx06\ns7 [pending] "));
  }

  /* The render that fits exactly is left alone. */
  fit = pd_plan_render (state, (guint) g_utf8_strlen (full, -1));
  g_assert_cmpstr (fit, ==, full);

  /* The overflowed render does not resume. */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(PdPlanState) parsed = pd_plan_parse (text, 50, &error);

    g_assert_null (parsed);
    g_assert_error (error, PD_PLAN_ERROR, PD_PLAN_ERROR_PARSE);
  }
}

static void
test_overflow_hard_cut (void)
{
  /* Multibyte titles: the cap counts characters, not bytes. */
  g_autoptr(PdPlanState) state = long_plan ("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                                            "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
  static const char trailer[] = "\n[plan truncated: exceeded max_render_chars]";

  /* With all six done steps omitted the rest is 321 characters: below
   * that, the tail is cut behind the truncation marker, exactly at the cap. */
  for (guint cap = 200; cap <= 321; cap += 11)
    {
      g_autofree char *text = pd_plan_render (state, cap);
      glong chars = g_utf8_strlen (text, -1);

      g_assert_true (g_utf8_validate (text, -1, NULL));
      g_assert_true (g_str_has_prefix (text, HDR ("9", "6/12 done, 0 blocked") "\n[+6 done steps omitted]\ns7 [pending] "));
      if (cap < 321)
        {
          g_assert_cmpint (chars, ==, cap);
          g_assert_true (g_str_has_suffix (text, trailer));
        }
      else
        {
          g_assert_cmpint (chars, ==, 321);
          g_assert_true (g_str_has_suffix (text, "s12 [pending] " "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                                               "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9" "12"));
        }
    }

  /* Pending-only plans cannot drop anything: straight to the cut. */
  for (guint i = 0; i < state->steps->len; i++)
    ((PdPlanStep *) g_ptr_array_index (state->steps, i))->status = PD_PLAN_STEP_PENDING;
  {
    g_autofree char *text = pd_plan_render (state, 200);

    g_assert_cmpint (g_utf8_strlen (text, -1), ==, 200);
    g_assert_true (g_str_has_suffix (text, trailer));
    g_assert_true (g_str_has_prefix (text, HDR ("9", "0/12 done, 0 blocked") "\ns1 [pending] "));
    g_assert_null (strstr (text, "omitted"));
  }
}

/* --- checked plans must fit in full ------------------------------------- */

static void
test_checked_fit (void)
{
  g_autoptr(PdPlanStore) store = pd_plan_store_new (12, 200);
  g_autoptr(GError) error = NULL;
  g_autofree char *result = NULL;
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(PdPlanState) s1 = NULL;
  g_autoptr(PdPlanState) s2 = NULL;

  /* About 150 characters now; 153 more once it carries a 128-character
   * call id, a nine-digit version and in_progress. */
  result = exec (store, "{\"verb\":\"create\",\"steps\":[{\"id\":\"t\",\"title\":\"T\",\"checks\":[{\"id\":\"c\","
                        "\"description\":\"d\",\"tool\":\"shell\",\"arguments\":{}}]}]}", &error);
  g_assert_null (result);
  g_assert_error (error, PD_PLAN_ERROR, PD_PLAN_ERROR_TOO_LARGE);
  g_assert_cmpstr (error->message, ==,
                   "plan: checked plan exceeds max_render_chars (200) or uses reserved checks delimiter in title/note");
  g_assert_false (pd_plan_store_has_plan (store));
  g_clear_error (&error);

  /* An unchecked plan of the same size is fine, and overflows if it must. */
  g_free (exec (store, "{\"verb\":\"create\",\"steps\":[\"A\",\"B\",\"C\",\"D\",\"E\",\"F\",\"G\",\"H\",\"I\",\"J\",\"K\",\"L\"]}", &error));
  g_assert_no_error (error);

  /* A revision must fit in full too: a long reason that cannot is refused. */
  s1 = pd_plan_store_snapshot (store);
  before = pd_plan_state_to_json (s1);
  result = exec (store, "{\"verb\":\"revise\",\"reason\":\"a reason long enough that the revised render of twelve steps "
                        "cannot fit in two hundred characters anymore\",\"operations\":[{\"kind\":\"edit\",\"step_id\":\"s1\",\"note\":\"n\"}]}", &error);
  g_assert_null (result);
  g_assert_error (error, PD_PLAN_ERROR, PD_PLAN_ERROR_TOO_LARGE);
  s2 = pd_plan_store_snapshot (store);
  after = pd_plan_state_to_json (s2);
  g_assert_cmpstr (after, ==, before);
}

/* Whatever evidence arrives later, an accepted checked plan renders in full. */
static void
test_checked_worst_case (void)
{
  g_autoptr(PdPlanStore) store = pd_plan_store_new (12, 400);
  g_autoptr(GError) error = NULL;
  g_autofree char *call_id = g_strnfill (128, 'z');
  g_autoptr(JsonNode) args = pd_json_parse ("{}", -1, NULL);
  PdPlanObservation obs = { "shell", args, TRUE, call_id, PD_TOOL_EFFECTS_READ, FALSE };
  g_autofree char *text = NULL;
  g_autofree char *full = NULL;
  g_autoptr(PdPlanState) state = NULL;

  g_free (exec (store, "{\"verb\":\"create\",\"steps\":[{\"id\":\"t\",\"title\":\"T\",\"checks\":[{\"id\":\"c\","
                       "\"description\":\"d\",\"tool\":\"shell\",\"arguments\":{}}]},\"Second step\"]}", &error));
  g_assert_no_error (error);
  pd_plan_store_end_batch (store);
  g_assert_true (pd_plan_store_record_outcome (store, &obs));
  g_free (exec (store, "{\"verb\":\"update\",\"updates\":[{\"id\":\"t\",\"status\":\"in_progress\"},{\"id\":\"s1\",\"status\":\"in_progress\"}]}", &error));
  g_assert_no_error (error);

  state = pd_plan_store_snapshot (store);
  full = pd_plan_render_full (state);
  text = pd_plan_store_render (store, NULL);
  g_assert_cmpstr (text, ==, full);
  g_assert_cmpint (g_utf8_strlen (text, -1), <=, 400);
}

/* --- wrapper ------------------------------------------------------------ */

static void
test_wrap (void)
{
  g_autofree char *wrapped = pd_plan_wrap (HDR ("2", "0/2 done, 0 blocked") "\ns1 [pending] A\ns2 [pending] B", "0123abcd");
  g_autofree char *single = pd_plan_wrap ("[Current plan: v7 " DASH " all 5 steps complete.]", "0123abcd");
  g_autofree char *nonce1 = pd_plan_new_nonce ();
  g_autofree char *nonce2 = pd_plan_new_nonce ();

  g_assert_cmpstr (wrapped, ==,
                   HDR ("2", "0/2 done, 0 blocked") "\n"
                   "<untrusted_content_0123abcd source=\"plan\">\n"
                   "s1 [pending] A\ns2 [pending] B\n"
                   "</untrusted_content_0123abcd>");
  g_assert_cmpstr (single, ==, "[Current plan: v7 " DASH " all 5 steps complete.]");
  g_assert_true (pd_plan_is_plan_message ("system", wrapped));

  g_assert_cmpuint (strlen (nonce1), ==, 32);
  for (const char *p = nonce1; *p; p++)
    g_assert_true (g_ascii_isxdigit (*p) && !g_ascii_isupper (*p));
  g_assert_cmpstr (nonce1, !=, nonce2);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/plan/render/header", test_header);
  g_test_add_func ("/pd/plan/render/checks-line", test_checks_line);
  g_test_add_func ("/pd/plan/render/collapse", test_collapse);
  g_test_add_func ("/pd/plan/render/collapse-store", test_collapse_store);
  g_test_add_func ("/pd/plan/render/overflow-drops-done", test_overflow_drops_done);
  g_test_add_func ("/pd/plan/render/overflow-hard-cut", test_overflow_hard_cut);
  g_test_add_func ("/pd/plan/render/checked-fit", test_checked_fit);
  g_test_add_func ("/pd/plan/render/checked-worst-case", test_checked_worst_case);
  g_test_add_func ("/pd/plan/render/wrap", test_wrap);

  return g_test_run ();
}
