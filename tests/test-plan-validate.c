/* test-plan-validate.c: every way a plan call is rejected (seed 000).
 *
 * A rejected call must say what was wrong with the exact `plan: …` wording a
 * model can act on, and it must leave the store exactly as it was: the
 * snapshot is byte-identical and no change notification fired.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-plan-validate"

#include "config.h"

#include <string.h>

#include <glib.h>

#include "pd-plan.h"

typedef struct
{
  PdPlanStore *store;
  guint        notifications;
} Fixture;

static void
count_change (const PdPlanChange *change,
              gpointer            user_data)
{
  Fixture *f = user_data;

  f->notifications++;
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->store = pd_plan_store_new (12, 2000);
  f->notifications = 0;
  pd_plan_store_set_change_func (f->store, count_change, f, NULL);
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  g_clear_object (&f->store);
}

static char *
state_json (PdPlanStore *store)
{
  g_autoptr(PdPlanState) state = pd_plan_store_snapshot (store);

  return pd_plan_state_to_json (state);
}

static void
exec_ok (Fixture    *f,
         const char *json)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *result = pd_plan_store_execute (f->store, json, &error);

  g_assert_no_error (error);
  g_assert_nonnull (result);
}

/* The call fails with @expected in its message, and nothing changed. */
static void
exec_err (Fixture    *f,
          const char *json,
          const char *expected)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *before = state_json (f->store);
  g_autofree char *after = NULL;
  g_autofree char *result = NULL;
  guint notifications = f->notifications;

  result = pd_plan_store_execute (f->store, json, &error);
  g_assert_null (result);
  g_assert_error (error, PD_PLAN_ERROR, error->code);
  g_assert_true (g_str_has_prefix (error->message, "plan: "));
  if (strstr (error->message, expected) == NULL)
    g_error ("call %s\n  failed with: %s\n  expected to contain: %s", json, error->message, expected);

  after = state_json (f->store);
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpuint (f->notifications, ==, notifications);
}

/* A plan with a done step, an in-progress step and a checked step. */
static void
seed_plan (Fixture *f)
{
  exec_ok (f, "{\"verb\":\"create\",\"steps\":["
              "{\"id\":\"a\",\"title\":\"First\"},"
              "{\"id\":\"b\",\"title\":\"Second\",\"note\":\"n\"},"
              "{\"id\":\"t\",\"title\":\"Tests\",\"checks\":[{\"id\":\"go\",\"description\":\"tests pass\","
              "\"tool\":\"shell\",\"arguments\":{\"command\":\"make check\"}}]}]}");
  exec_ok (f, "{\"verb\":\"update\",\"updates\":[{\"id\":\"a\",\"status\":\"done\"},{\"id\":\"b\",\"status\":\"in_progress\"}]}");
  g_assert_cmpuint (f->notifications, ==, 2);
}

static char *
create_with_steps (guint n)
{
  GString *out = g_string_new ("{\"verb\":\"create\",\"steps\":[");

  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "%s\"step %u\"", i ? "," : "", i);
  g_string_append (out, "]}");
  return g_string_free (out, FALSE);
}

static char *
create_with_title (const char *title)
{
  return g_strdup_printf ("{\"verb\":\"create\",\"steps\":[{\"id\":\"x\",\"title\":\"%s\"}]}", title);
}

static char *
create_with_check_json (const char *checks_json)
{
  return g_strdup_printf ("{\"verb\":\"create\",\"steps\":[{\"id\":\"x\",\"title\":\"T\",\"checks\":%s}]}", checks_json);
}

static char *
repeat (const char *unit,
        guint       n)
{
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    g_string_append (out, unit);
  return g_string_free (out, FALSE);
}

#define CHECK(id) "{\"id\":\"" id "\",\"description\":\"d\",\"tool\":\"shell\",\"arguments\":{\"c\":\"" id "\"}}"

/* --- envelope ----------------------------------------------------------- */

static void
test_envelope (Fixture       *f,
               gconstpointer  data)
{
  seed_plan (f);

  exec_err (f, "{\"verb\":\"create\",", "plan: parse args: ");
  exec_err (f, "not json", "plan: parse args: ");
  exec_err (f, "", "plan: parse args: ");
  exec_err (f, "{\"verb\":\"get\"} {}", "plan: parse args: ");
  exec_err (f, "[{\"verb\":\"get\"}]", "plan: parse args: the arguments must be a JSON object");
  exec_err (f, "\"create\"", "plan: parse args: the arguments must be a JSON object");
  exec_err (f, "{\"steps\":[\"a\"]}",
            "plan: missing 'verb' (want create/update/complete/revise/check_replace/get); received keys: [steps]");
  exec_err (f, "{}", "plan: missing 'verb' (want create/update/complete/revise/check_replace/get); received keys: []");
  exec_err (f, "{\"verb\":\"frobnicate\"}",
            "plan: unknown verb \"frobnicate\" (want create/update/complete/revise/check_replace/get)");
  exec_err (f, "{\"verb\":42}", "plan: unknown verb");
  exec_err (f, "{\"verb\":\"Create\",\"steps\":[\"a\"]}", "plan: unknown verb \"Create\"");
}

/* --- create ------------------------------------------------------------- */

static void
test_create_counts (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *twelve = create_with_steps (12);
  g_autofree char *thirteen = create_with_steps (13);

  seed_plan (f);

  exec_err (f, "{\"verb\":\"create\",\"steps\":[]}", "plan: create wants 1..12 steps, got 0");
  exec_err (f, thirteen, "plan: create wants 1..12 steps, got 13");
  exec_ok (f, twelve);
}

static void
test_create_steps (Fixture       *f,
                   gconstpointer  data)
{
  g_autofree char *long_id = repeat ("i", 33);
  g_autofree char *id_json = g_strdup_printf ("{\"verb\":\"create\",\"steps\":[{\"id\":\"%s\",\"title\":\"T\"}]}", long_id);
  g_autofree char *t200 = repeat ("t", 200);
  g_autofree char *t201 = repeat ("t", 201);
  g_autofree char *t201_multibyte = repeat ("\xc3\xa9", 201);
  g_autofree char *ok200 = create_with_title (t200);
  g_autofree char *bad201 = create_with_title (t201);
  g_autofree char *bad201_mb = create_with_title (t201_multibyte);

  seed_plan (f);

  exec_err (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"a\"}]}", "plan: step[0]: title is required");
  exec_err (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"a\",\"title\":\"  \\n \"}]}", "plan: step[0]: title is required");
  exec_err (f, "{\"verb\":\"create\",\"steps\":[\"ok\",{\"id\":\"a\",\"title\":\"\"}]}", "plan: step[1]: title is required");
  exec_err (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"a\",\"title\":7}]}", "plan: step[0]: title is required");
  exec_err (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"a\",\"content\":\"x\"}]}",
            "plan: step[0]: title is required; received keys: [id, content]");
  exec_err (f, id_json, "plan: step[0]: id is too long (33 > 32 chars)");
  exec_err (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"a b\",\"title\":\"T\"}]}",
            "plan: step[0]: id \"a b\" must be a short token without whitespace or brackets");
  exec_err (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"a\\tb\",\"title\":\"T\"}]}",
            "must be a short token without whitespace or brackets");
  exec_err (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"a[1\",\"title\":\"T\"}]}",
            "plan: step[0]: id \"a[1\" must be a short token without whitespace or brackets");
  exec_err (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"a]\",\"title\":\"T\"}]}",
            "plan: step[0]: id \"a]\" must be a short token without whitespace or brackets");
  /* Angle brackets are brackets too: an id that begins a render line would
   * pass for the untrusted-content wrapper's tag (a fuzz finding). */
  exec_err (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"<untrusted_content_s1\",\"title\":\"T\"}]}",
            "plan: step[0]: id \"<untrusted_content_s1\" must be a short token without whitespace or brackets");
  exec_err (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"a>\",\"title\":\"T\"}]}",
            "plan: step[0]: id \"a>\" must be a short token without whitespace or brackets");
  exec_err (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"d\",\"title\":\"T\"},{\"id\":\"d\",\"title\":\"U\"}]}",
            "plan: step[1]: duplicate step id \"d\"");
  exec_err (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"d\",\"title\":\"T\"},{\"id\":\" d \",\"title\":\"U\"}]}",
            "plan: step[1]: duplicate step id \"d\"");
  exec_err (f, bad201, "plan: step[0]: title is too long (201 > 200 chars)");
  exec_err (f, bad201_mb, "plan: step[0]: title is too long (201 > 200 chars)");
  exec_err (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"a\",\"title\":\"T\",\"status\":\"done\"}]}",
            "plan: step[0]: unknown key 'status'");
  exec_err (f, "{\"verb\":\"create\",\"steps\":[42]}", "plan: step[0]: must be an object");
  exec_err (f, "{\"verb\":\"create\",\"steps\":\"a\"}", "plan: create: 'steps' must be an array");
  exec_ok (f, ok200);
}

static void
test_create_reserved (Fixture       *f,
                      gconstpointer  data)
{
  seed_plan (f);

  exec_err (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"a\",\"title\":\"x || checks: y\"}]}",
            "plan: checked plan exceeds max_render_chars (2000) or uses reserved checks delimiter in title/note");
  exec_err (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"a\",\"title\":\"T\",\"note\":\"see || checks:[]\"}]}",
            "plan: checked plan exceeds max_render_chars (2000) or uses reserved checks delimiter in title/note");
  /* A newline in front of the marker is flattened into the same space. */
  exec_err (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"a\",\"title\":\"T\",\"note\":\"x\\n|| checks:\"}]}",
            "uses reserved checks delimiter in title/note");
  exec_err (f, "{\"verb\":\"update\",\"updates\":[{\"id\":\"a\",\"note\":\"a || checks: b\"}]}",
            "uses reserved checks delimiter in title/note");
  /* Found by fuzz-plan-args: text that starts with the marker's tail (after
   * trimming) becomes the marker once rendered behind "— " or "] ", and the
   * render of such a plan could not be parsed back on resume. */
  exec_err (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"a\",\"title\":\"T\",\"note\":\" || checks:_x\"}]}",
            "uses reserved checks delimiter in title/note");
  exec_err (f, "{\"verb\":\"create\",\"steps\":[{\"id\":\"a\",\"title\":\"|| checks:[]\"}]}",
            "uses reserved checks delimiter in title/note");
  exec_err (f, "{\"verb\":\"update\",\"updates\":[{\"id\":\"a\",\"note\":\"\\t|| checks:\"}]}",
            "uses reserved checks delimiter in title/note");
}

static void
test_create_checks (Fixture       *f,
                    gconstpointer  data)
{
  g_autofree char *five = create_with_check_json ("[" CHECK ("c1") "," CHECK ("c2") "," CHECK ("c3") "," CHECK ("c4") "," CHECK ("c5") "]");
  g_autofree char *four = create_with_check_json ("[" CHECK ("c1") "," CHECK ("c2") "," CHECK ("c3") "," CHECK ("c4") "]");
  g_autofree char *dup = create_with_check_json ("[" CHECK ("c1") "," CHECK ("c1") "]");
  g_autofree char *plan_tool = create_with_check_json ("[{\"id\":\"c\",\"description\":\"d\",\"tool\":\"plan\",\"arguments\":{}}]");
  g_autofree char *args_array = create_with_check_json ("[{\"id\":\"c\",\"description\":\"d\",\"tool\":\"shell\",\"arguments\":[1]}]");
  g_autofree char *args_missing = create_with_check_json ("[{\"id\":\"c\",\"description\":\"d\",\"tool\":\"shell\"}]");
  g_autofree char *no_desc = create_with_check_json ("[{\"id\":\"c\",\"tool\":\"shell\",\"arguments\":{}}]");
  g_autofree char *slash_id = create_with_check_json ("[{\"id\":\"a/b\",\"description\":\"d\",\"tool\":\"shell\",\"arguments\":{}}]");
  g_autofree char *blob_4096 = NULL;
  g_autofree char *blob_4097 = NULL;
  g_autofree char *fits = NULL;
  g_autofree char *too_big = NULL;
  g_autofree char *pad = NULL;

  /* {"k":"…"} is 8 bytes of canonical JSON around the value. */
  pad = repeat ("x", 4096 - 8);
  blob_4096 = g_strdup_printf ("[{\"id\":\"c\",\"description\":\"d\",\"tool\":\"shell\",\"arguments\":{\"k\":\"%s\"}}]", pad);
  g_free (pad);
  pad = repeat ("x", 4097 - 8);
  blob_4097 = g_strdup_printf ("[{\"id\":\"c\",\"description\":\"d\",\"tool\":\"shell\",\"arguments\":{\"k\":\"%s\"}}]", pad);
  fits = create_with_check_json (blob_4096);
  too_big = create_with_check_json (blob_4097);

  seed_plan (f);

  exec_err (f, five, "plan: step[0]: at most 4 checks per step (got 5)");
  exec_err (f, dup, "plan: step[0]: checks[1]: duplicate check id \"c1\"");
  exec_err (f, plan_tool, "plan: step[0]: checks[0]: tool cannot be 'plan'");
  exec_err (f, args_array, "plan: step[0]: checks[0]: arguments must be an object");
  exec_err (f, args_missing, "plan: step[0]: checks[0]: arguments must be an object");
  exec_err (f, no_desc, "plan: step[0]: checks[0]: description is required");
  exec_err (f, slash_id, "plan: step[0]: checks[0]: id \"a/b\" must be a short token");
  exec_err (f, too_big, "plan: step[0]: checks[0]: arguments are too large (4097 > 4096 bytes of canonical JSON)");

  /* The boundary itself is accepted (by a store with room to render it). */
  {
    g_autoptr(PdPlanStore) big = pd_plan_store_new (12, 8000);
    g_autoptr(GError) error = NULL;
    g_autofree char *result = pd_plan_store_execute (big, fits, &error);

    g_assert_no_error (error);
    g_assert_nonnull (result);
  }
  exec_ok (f, four);
}

static void
test_create_ambiguous (Fixture       *f,
                       gconstpointer  data)
{
  seed_plan (f);

  exec_err (f, "{\"verb\":\"create\",\"steps\":[\"a\"],\"operations\":[\"b\"]}",
            "plan: create: ambiguous: both 'steps' and 'operations' supply step lists");
  exec_err (f, "{\"verb\":\"create\",\"steps\":[\"a\"],\"create\":{\"steps\":[\"b\"]}}",
            "plan: create: ambiguous: both 'steps' and 'create.steps' supply step lists");
  exec_err (f, "{\"verb\":\"create\",\"items\":[\"a\"],\"operations\":[\"b\"]}",
            "plan: create: ambiguous: both 'items' and 'operations' supply step lists");
  /* The diagnostic of the seed, word for word. */
  exec_err (f, "{\"verb\":\"create\",\"operations\":[{\"title\":\"x\"}]}",
            "plan: create requires 'steps' (array of {id,title,note,checks}); received keys: [operations] "
            "\xe2\x80\x94 'operations' is not recognized; did you mean 'steps'?");
  exec_err (f, "{\"verb\":\"create\",\"title\":\"x\",\"note\":\"y\"}",
            "plan: create requires 'steps' (array of {id,title,note,checks}); received keys: [title, note]");
  exec_err (f, "{\"verb\":\"create\",\"steps\":[\"a\"],\"reason\":\"r\"}", "plan: create: unknown key 'reason'");
}

/* --- update / complete -------------------------------------------------- */

static void
test_update (Fixture       *f,
             gconstpointer  data)
{
  seed_plan (f);

  exec_err (f, "{\"verb\":\"update\",\"updates\":[]}", "plan: update: no updates given");
  exec_err (f, "{\"verb\":\"update\"}", "plan: update requires 'updates' (array of {id,status?,note?}); received keys: []");
  exec_err (f, "{\"verb\":\"update\",\"steps\":[{\"id\":\"a\"}]}",
            "received keys: [steps] \xe2\x80\x94 'steps' is not recognized; did you mean 'updates'?");
  exec_err (f, "{\"verb\":\"update\",\"updates\":[{\"id\":\"zz\",\"status\":\"done\"}]}",
            "plan: update: unknown step id \"zz\"");
  exec_err (f, "{\"verb\":\"update\",\"updates\":[{\"id\":\"b\",\"status\":\"finished\"}]}",
            "plan: update: step[0]: unknown status \"finished\"");
  exec_err (f, "{\"verb\":\"update\",\"updates\":[{\"id\":\"b\",\"status\":\"DONE\"}]}",
            "plan: update: step[0]: unknown status \"DONE\"");
  exec_err (f, "{\"verb\":\"update\",\"updates\":[{\"id\":\"b\",\"title\":\"New\"}]}",
            "plan: update: step[0]: unknown key 'title'");
  exec_err (f, "{\"verb\":\"update\",\"updates\":[{\"status\":\"done\"}]}", "plan: update: step[0]: id is required");
  /* Atomic: the valid first entry is not applied when the second fails. */
  exec_err (f, "{\"verb\":\"update\",\"updates\":[{\"id\":\"b\",\"status\":\"done\",\"note\":\"x\"},{\"id\":\"zz\",\"status\":\"done\"}]}",
            "plan: update: unknown step id \"zz\"");
  exec_err (f, "{\"verb\":\"update\",\"updates\":[{\"id\":\"b\",\"status\":\"blocked\"},{\"id\":\"a\",\"status\":\"nope\"}]}",
            "plan: update: step[1]: unknown status \"nope\"");
  /* A checked step cannot be marked done before its checks pass. */
  exec_err (f, "{\"verb\":\"update\",\"updates\":[{\"id\":\"b\",\"status\":\"done\"},{\"id\":\"t\",\"status\":\"done\"}]}",
            "plan: update: step \"t\" has checks that have not passed");
}

static void
test_complete (Fixture       *f,
               gconstpointer  data)
{
  exec_err (f, "{\"verb\":\"complete\",\"step_id\":\"a\"}", "plan: complete: no active plan");
  seed_plan (f);

  exec_err (f, "{\"verb\":\"complete\",\"step_id\":\"zz\"}", "plan: complete: unknown step id \"zz\"");
  exec_err (f, "{\"verb\":\"complete\"}", "plan: complete requires 'step_id' (string); received keys: []");
  exec_err (f, "{\"verb\":\"complete\",\"step_id\":\"a\",\"id\":\"b\"}", "plan: complete: ambiguous");
  exec_err (f, "{\"verb\":\"complete\",\"step_id\":\"t\"}", "plan: complete: step \"t\" has checks that have not passed");
}

/* --- revise ------------------------------------------------------------- */

#define REVISE(reason, ops) "{\"verb\":\"revise\",\"reason\":" reason ",\"operations\":" ops "}"
#define ADD_OP "{\"kind\":\"add\",\"steps\":[{\"id\":\"n\",\"title\":\"New\"}]}"

static void
test_revise (Fixture       *f,
             gconstpointer  data)
{
  g_autofree char *r240 = repeat ("\xc3\xa9", 240);
  g_autofree char *r241 = repeat ("\xc3\xa9", 241);
  g_autofree char *ok240 = g_strdup_printf ("{\"verb\":\"revise\",\"reason\":\"%s\",\"operations\":[" ADD_OP "]}", r240);
  g_autofree char *bad241 = g_strdup_printf ("{\"verb\":\"revise\",\"reason\":\"%s\",\"operations\":[" ADD_OP "]}", r241);
  g_autofree char *nine_ops = NULL;

  {
    GString *ops = g_string_new ("{\"verb\":\"revise\",\"reason\":\"r\",\"operations\":[");
    for (guint i = 0; i < 9; i++)
      g_string_append_printf (ops, "%s{\"kind\":\"edit\",\"step_id\":\"a\",\"note\":\"n%u\"}", i ? "," : "", i);
    g_string_append (ops, "]}");
    nine_ops = g_string_free (ops, FALSE);
  }

  seed_plan (f);

  exec_err (f, "{\"verb\":\"revise\",\"operations\":[" ADD_OP "]}", "plan: revise: reason is required");
  exec_err (f, REVISE ("\"  \"", "[" ADD_OP "]"), "plan: revise: reason is required");
  exec_err (f, bad241, "plan: revise: reason is too long (241 > 240 chars)");
  exec_err (f, REVISE ("\"r\"", "[]"), "plan: revise wants 1..8 operations, got 0");
  exec_err (f, nine_ops, "plan: revise wants 1..8 operations, got 9");
  exec_err (f, "{\"verb\":\"revise\",\"reason\":\"r\"}", "plan: revise requires 'reason' (string) and 'operations'");
  exec_err (f, REVISE ("\"r\"", "[{\"kind\":\"add\",\"after_id\":\"a\",\"before_id\":\"b\",\"steps\":[\"x\"]}]"),
            "plan: revise: operations[0] (add): give after_id or before_id, not both");
  exec_err (f, REVISE ("\"r\"", "[{\"kind\":\"move\",\"step_id\":\"a\",\"after_id\":\"b\",\"before_id\":\"t\"}]"),
            "plan: revise: operations[0] (move): give after_id or before_id, not both");
  exec_err (f, REVISE ("\"r\"", "[{\"kind\":\"delete\",\"step_id\":\"a\"}]"),
            "plan: revise: operations[0]: unknown kind \"delete\"");
  exec_err (f, REVISE ("\"r\"", "[{\"step_id\":\"a\"}]"), "plan: revise: operations[0]: unknown kind \"\"");
  exec_err (f, REVISE ("\"r\"", "[{\"kind\":\"split\",\"step_id\":\"b\",\"steps\":[\"only\"]}]"),
            "plan: revise: operations[0] (split): split needs 'steps' with at least 2 replacement steps");
  exec_err (f, REVISE ("\"r\"", "[{\"kind\":\"split\",\"step_id\":\"t\",\"steps\":[\"x\",\"y\"]}]"),
            "plan: revise: carry_checks_to required unless replacements declare checks");
  exec_err (f, REVISE ("\"r\"", "[{\"kind\":\"supersede\",\"step_id\":\"t\",\"steps\":[\"x\"]}]"),
            "plan: revise: carry_checks_to required unless replacements declare checks");
  exec_err (f, REVISE ("\"r\"", "[{\"kind\":\"split\",\"step_id\":\"t\",\"carry_checks_to\":\"zz\","
                                "\"steps\":[{\"id\":\"x\",\"title\":\"X\"},{\"id\":\"y\",\"title\":\"Y\"}]}]"),
            "plan: revise: operations[0] (split): carry_checks_to \"zz\" is not one of the replacement steps");
  exec_err (f, REVISE ("\"r\"", "[{\"kind\":\"split\",\"step_id\":\"t\",\"carry_checks_to\":\"a\","
                                "\"steps\":[{\"id\":\"x\",\"title\":\"X\"},{\"id\":\"y\",\"title\":\"Y\"}]}]"),
            "carry_checks_to \"a\" is not one of the replacement steps");
  exec_err (f, REVISE ("\"r\"", "[{\"kind\":\"edit\",\"step_id\":\"zz\",\"title\":\"X\"}]"),
            "plan: revise: operations[0] (edit): unknown step id \"zz\"");
  exec_err (f, REVISE ("\"r\"", "[{\"kind\":\"edit\",\"step_id\":\"a\"}]"),
            "plan: revise: operations[0] (edit): edit needs 'title', 'note' or 'checks'");
  exec_err (f, REVISE ("\"r\"", "[{\"kind\":\"edit\",\"step_id\":\"t\",\"checks\":[" CHECK ("go") "]}]"),
            "plan: revise: operations[0] (edit): duplicate check id \"go\"");
  exec_err (f, REVISE ("\"r\"", "[{\"kind\":\"add\",\"after_id\":\"zz\",\"steps\":[\"x\"]}]"),
            "plan: revise: operations[0] (add): unknown step id \"zz\"");
  exec_err (f, REVISE ("\"r\"", "[{\"kind\":\"add\",\"steps\":[{\"id\":\"a\",\"title\":\"dup\"}]}]"),
            "plan: revise: operations[0] (add): step[0]: duplicate step id \"a\"");
  exec_err (f, REVISE ("\"r\"", "[{\"kind\":\"move\",\"step_id\":\"a\",\"title\":\"x\"}]"),
            "plan: revise: operations[0] (move): unknown key 'title'");
  /* Atomic: a valid first operation is not applied when the second fails. */
  exec_err (f, REVISE ("\"r\"", "[" ADD_OP ",{\"kind\":\"move\",\"step_id\":\"zz\"}]"),
            "plan: revise: operations[1] (move): unknown step id \"zz\"");

  /* Runes, not bytes: 240 two-byte characters are within the cap. */
  exec_ok (f, ok240);
}

/* --- check_replace ------------------------------------------------------ */

static void
test_check_replace (Fixture       *f,
                    gconstpointer  data)
{
  seed_plan (f);

  exec_err (f, "{\"verb\":\"check_replace\",\"step_id\":\"t\",\"check_id\":\"go\",\"evidence_note\":\"ran it\"}",
            "plan: check_replace: justification is required");
  exec_err (f, "{\"verb\":\"check_replace\",\"check_id\":\"go\",\"justification\":\"j\",\"evidence_note\":\"e\"}",
            "plan: check_replace requires 'step_id', 'check_id', 'justification' and either 'replacement'");
  exec_err (f, "{\"verb\":\"check_replace\",\"step_id\":\"t\",\"check_id\":\"go\",\"justification\":\"j\"}",
            "plan: check_replace: give exactly one of 'replacement' or 'evidence_note'");
  exec_err (f, "{\"verb\":\"check_replace\",\"step_id\":\"t\",\"check_id\":\"go\",\"justification\":\"j\","
               "\"evidence_note\":\"e\",\"replacement\":" CHECK ("c2") "}",
            "plan: check_replace: give exactly one of 'replacement' or 'evidence_note'");
  exec_err (f, "{\"verb\":\"check_replace\",\"step_id\":\"zz\",\"check_id\":\"go\",\"justification\":\"j\",\"evidence_note\":\"e\"}",
            "plan: check_replace: unknown step id \"zz\"");
  exec_err (f, "{\"verb\":\"check_replace\",\"step_id\":\"t\",\"check_id\":\"nope\",\"justification\":\"j\",\"evidence_note\":\"e\"}",
            "plan: check_replace: step \"t\" has no check \"nope\"");
  exec_err (f, "{\"verb\":\"check_replace\",\"step_id\":\"a\",\"check_id\":\"go\",\"justification\":\"j\",\"evidence_note\":\"e\"}",
            "plan: check_replace: step \"a\" has no check \"go\"");
  exec_err (f, "{\"verb\":\"check_replace\",\"step_id\":\"t\",\"check_id\":\"go\",\"justification\":\"j\","
               "\"replacement\":{\"id\":\"c2\",\"description\":\"d\",\"tool\":\"plan\",\"arguments\":{}}}",
            "plan: check_replace: replacement: tool cannot be 'plan'");
  exec_err (f, "{\"verb\":\"check_replace\",\"step_id\":\"t\",\"check_id\":\"go\",\"justification\":\"j\","
               "\"replacement\":{\"id\":\"c2\",\"description\":\"d\",\"tool\":\"shell\"}}",
            "plan: check_replace: replacement: arguments must be an object");
  exec_err (f, "{\"verb\":\"check_replace\",\"step_id\":\"t\",\"check_id\":\"go\",\"justification\":\"j\",\"evidence_note\":\"\"}",
            "plan: check_replace: evidence_note is required");
  exec_err (f, "{\"verb\":\"check_replace\",\"step_id\":\"t\",\"check_id\":\"go\",\"justification\":\"j\",\"evidence_note\":\"e\",\"extra\":1}",
            "plan: check_replace: unknown key 'extra'");
}

/* A rejected call on an empty store keeps it empty. */
static void
test_empty_store (Fixture       *f,
                  gconstpointer  data)
{
  exec_err (f, "{\"verb\":\"update\",\"updates\":[{\"id\":\"a\",\"status\":\"done\"}]}", "plan: update: no active plan");
  exec_err (f, REVISE ("\"r\"", "[" ADD_OP "]"), "plan: revise: no active plan");
  exec_err (f, "{\"verb\":\"create\",\"steps\":[]}", "plan: create wants 1..12 steps, got 0");
  g_assert_false (pd_plan_store_has_plan (f->store));
  g_assert_cmpint (pd_plan_store_get_version (f->store), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) g_test_add ("/pd/plan/validate/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)
  ADD ("envelope", test_envelope);
  ADD ("create-counts", test_create_counts);
  ADD ("create-steps", test_create_steps);
  ADD ("create-reserved", test_create_reserved);
  ADD ("create-checks", test_create_checks);
  ADD ("create-ambiguous", test_create_ambiguous);
  ADD ("update", test_update);
  ADD ("complete", test_complete);
  ADD ("revise", test_revise);
  ADD ("check-replace", test_check_replace);
  ADD ("empty-store", test_empty_store);
#undef ADD

  return g_test_run ();
}
