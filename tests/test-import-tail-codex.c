/* test-import-tail-codex.c: long Codex rollouts read from the end (seed
 * 001, "Long transcripts"), with the threshold and the bound lowered so
 * that files of a few hundred KB stand for ones of many MB.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "pd-codex-reader.h"
#include "pd-import-private.h"
#include "pd-import-test.h"

#define FILLER_BYTES 1000

typedef PdTailFixture Fixture;

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  pd_tail_fixture_init (f, "rollout-2026-01-01T00-00-00-019e9625-802f-7e91-840a-cfe88d14117a.jsonl");
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  pd_tail_fixture_clear (f);
}

static void
append_line (Fixture    *f,
             const char *type,
             const char *format,
             ...) G_GNUC_PRINTF (3, 4);

/* A rollout line: its timestamp and type, then the payload's members. */
static void
append_line (Fixture    *f,
             const char *type,
             const char *format,
             ...)
{
  va_list args;
  guint t = f->clock++;

  g_string_append_printf (f->text, "{\"timestamp\":\"2026-01-01T%02u:%02u:%02u.000Z\",\"type\":\"%s\",\"payload\":{",
                          t / 3600, (t / 60) % 60, t % 60, type);
  va_start (args, format);
  g_string_append_vprintf (f->text, format, args);
  va_end (args);
  g_string_append (f->text, "}}\n");
}

/* @text as a JSON string, quotes included. */
static char *
quote (const char *text)
{
  g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), text);
  return json_to_string (node, FALSE);
}

static void
meta (Fixture *f)
{
  append_line (f, "session_meta", "\"id\":\"019e9625-802f-7e91-840a-cfe88d14117a\",\"timestamp\":\"2026-01-01T00:00:00.000Z\","
                                  "\"cwd\":\"/w\",\"originator\":\"codex_cli_rs\",\"cli_version\":\"0.135.0\","
                                  "\"base_instructions\":{\"text\":\"Keep a plan with update_plan.\"}");
}

static void
turn (Fixture    *f,
      const char *id)
{
  append_line (f, "event_msg", "\"type\":\"task_started\",\"turn_id\":\"%s\",\"collaboration_mode_kind\":\"default\"", id);
  append_line (f, "turn_context", "\"turn_id\":\"%s\",\"cwd\":\"/w\",\"model\":\"gpt-5.5\"", id);
}

static void
prompt (Fixture    *f,
        const char *text)
{
  g_autofree char *quoted = quote (text);

  append_line (f, "response_item", "\"type\":\"message\",\"role\":\"user\",\"content\":[{\"type\":\"input_text\",\"text\":%s}]", quoted);
  append_line (f, "event_msg", "\"type\":\"user_message\",\"message\":%s", quoted);
}

static void
say (Fixture    *f,
     const char *text)
{
  g_autofree char *quoted = quote (text);

  append_line (f, "response_item", "\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":%s}]",
               quoted);
}

/* Shell calls and their outputs, and messages: what fills a long rollout. */
static void
filler (Fixture *f,
        guint    n)
{
  g_autofree char *words = g_strnfill (FILLER_BYTES, 'w');

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *id = g_strdup_printf ("sh%u", f->clock);

      switch (i % 3)
        {
        case 0:
          append_line (f, "response_item", "\"type\":\"function_call\",\"name\":\"exec_command\","
                                           "\"arguments\":\"{\\\"cmd\\\":\\\"ls\\\"}\",\"call_id\":\"%s\"", id);
          break;
        case 1:
          append_line (f, "response_item", "\"type\":\"function_call_output\",\"call_id\":\"sh%u\",\"output\":\"%s\"",
                       f->clock - 1, words);
          break;
        default:
          say (f, words);
          break;
        }
    }
}

static void
output (Fixture    *f,
        const char *call_id,
        const char *text)
{
  g_autofree char *quoted = quote (text);

  append_line (f, "response_item", "\"type\":\"function_call_output\",\"call_id\":\"%s\",\"output\":%s", call_id, quoted);
}

/* An update_plan call with @plan (the arguments' JSON), and its output
 * when @text is not NULL. */
static void
update_plan (Fixture    *f,
             const char *call_id,
             const char *plan,
             const char *text)
{
  g_autofree char *arguments = g_strdup_printf ("{\"explanation\":\"next\",\"plan\":%s}", plan);
  g_autofree char *quoted = quote (arguments);

  append_line (f, "response_item", "\"type\":\"function_call\",\"name\":\"update_plan\",\"arguments\":%s,\"call_id\":\"%s\"",
               quoted, call_id);
  if (text != NULL)
    output (f, call_id, text);
}

/* The code-mode form: an exec script calling tools.update_plan. */
static void
exec_plan (Fixture    *f,
           const char *call_id,
           const char *literal,
           const char *text)
{
  g_autofree char *script = g_strdup_printf ("const r = await tools.update_plan(%s); text(r);", literal);
  g_autofree char *quoted_script = quote (script);
  g_autofree char *quoted_text = quote (text);

  append_line (f, "response_item", "\"type\":\"custom_tool_call\",\"status\":\"completed\",\"call_id\":\"%s\",\"name\":\"exec\","
                                   "\"input\":%s", call_id, quoted_script);
  append_line (f, "response_item", "\"type\":\"custom_tool_call_output\",\"call_id\":\"%s\","
                                   "\"output\":[{\"type\":\"input_text\",\"text\":%s}]", call_id, quoted_text);
}

static void
plan_item (Fixture    *f,
           const char *turn_id,
           const char *markdown)
{
  g_autofree char *quoted = quote (markdown);

  append_line (f, "event_msg", "\"type\":\"item_completed\",\"turn_id\":\"%s\",\"item\":{\"type\":\"Plan\",\"id\":\"%s-plan\",\"text\":%s}",
               turn_id, turn_id, quoted);
}

static void
save (Fixture *f)
{
  pd_tail_fixture_save (f);
}

static PdImportedSession *
read_full (Fixture *f)
{
  return pd_tail_fixture_read_full (f, pd_codex_read);
}

static PdImportedSession *
read_tail (Fixture *f,
           goffset  bound)
{
  return pd_tail_fixture_read_tail (f, pd_codex_read, bound);
}

static void
assert_same_facts (PdImportedSession *full,
                   PdImportedSession *tail)
{
  g_assert_cmpstr (pd_imported_session_get_id (tail), ==, pd_imported_session_get_id (full));
  g_assert_cmpstr (pd_imported_session_get_id (tail), ==, "019e9625-802f-7e91-840a-cfe88d14117a");
  g_assert_cmpstr (pd_imported_session_get_cwd (tail), ==, pd_imported_session_get_cwd (full));
  g_assert_cmpstr (pd_imported_session_get_title (tail), ==, pd_imported_session_get_title (full));
  g_assert_cmpint (pd_imported_session_get_created_at (tail), ==, pd_imported_session_get_created_at (full));
  g_assert_cmpint (pd_imported_session_get_updated_at (tail), ==, pd_imported_session_get_updated_at (full));
}

/* The same checklist and facts as a full read, from a fraction of the
 * bytes. */
static void
test_same_as_full (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(PdImportedSession) full = NULL;
  g_autoptr(PdImportedSession) tail = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *got = NULL;

  meta (f);
  turn (f, "t1");
  prompt (f, "<environment_context>not a title</environment_context>");
  prompt (f, "Refactor the parser");
  update_plan (f, "c1", "[{\"step\":\"Old\",\"status\":\"pending\"}]", "Plan updated");
  filler (f, 1000);
  turn (f, "t2");
  prompt (f, "A later prompt, not the title");
  update_plan (f, "c2", "[{\"step\":\"A\",\"status\":\"pending\"},{\"step\":\"B\",\"status\":\"pending\"}]", "Plan updated");
  filler (f, 200);
  update_plan (f, "c3", "[{\"step\":\"A\",\"status\":\"completed\"},{\"status\":\"in_progress\",\"step\":\"B\"},"
                        "{\"step\":\"C\",\"status\":\"pending\"}]", "Plan updated");
  filler (f, 50);
  save (f);

  full = read_full (f);
  tail = read_tail (f, 64 * 1024 * 1024);
  expected = pd_import_test_describe (full);
  got = pd_import_test_describe (tail);
  g_assert_cmpstr (expected, ==, "A:completed|B:in_progress|C:pending");
  g_assert_cmpstr (got, ==, expected);
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (tail)), ==, PD_CHECKLIST_ORIGIN_CODEX_PLAN);

  /* The session's facts come from the head, as with a full read. */
  assert_same_facts (full, tail);
  g_assert_cmpstr (pd_imported_session_get_title (tail), ==, "Refactor the parser");
  g_assert_cmpstr (pd_imported_session_get_cwd (tail), ==, "/w");

  /* Fewer bytes: the head's first lines, the last lines backwards, and
   * them again forwards. */
  g_assert_true (pd_imported_session_get_stats (tail)->tail_read);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->bytes_read, <, f->text->len / 4);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->lines, <, pd_imported_session_get_stats (full)->lines / 4);
}

/* The newest calls failed or were never answered: the scan goes on to the
 * one before, which a full read ends with too. */
static void
test_failed_newest (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(PdImportedSession) full = NULL;
  g_autoptr(PdImportedSession) tail = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *got = NULL;

  meta (f);
  prompt (f, "Go");
  filler (f, 1000);
  update_plan (f, "c1", "[{\"step\":\"Old\",\"status\":\"pending\"}]", "Plan updated");
  filler (f, 20);
  update_plan (f, "c2", "[{\"step\":\"Kept\",\"status\":\"in_progress\"}]", "Plan updated");
  filler (f, 20);
  update_plan (f, "c3", "[{\"step\":\"Refused\",\"status\":\"pending\"}]", "failed to parse function arguments: unknown variant");
  filler (f, 20);
  update_plan (f, "c4", "[{\"step\":\"Unanswered\",\"status\":\"pending\"}]", NULL);
  save (f);

  full = read_full (f);
  tail = read_tail (f, 64 * 1024 * 1024);
  expected = pd_import_test_describe (full);
  got = pd_import_test_describe (tail);
  g_assert_cmpstr (expected, ==, "Kept:in_progress");
  g_assert_cmpstr (got, ==, expected);
  assert_same_facts (full, tail);
  /* The failed call was replayed and counted as a full read counts it. */
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->applied_updates, ==, 1);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->ignored_updates, ==, 1);
  g_assert_true (pd_imported_session_get_stats (tail)->tail_read);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->bytes_read, <, f->text->len / 2);
}

/* No full list within the bound: the replay starts at the bound's start,
 * and an output whose call is before it applies nothing. */
static void
test_no_full_list_in_bound (Fixture       *f,
                            gconstpointer  data)
{
  g_autoptr(PdImportedSession) full = NULL;
  g_autoptr(PdImportedSession) tail = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *got = NULL;
  GPtrArray *plans;
  const goffset bound = 100 * 1024;

  meta (f);
  turn (f, "t1");
  prompt (f, "Go");
  update_plan (f, "c1", "[{\"step\":\"Outside\",\"status\":\"pending\"}]", "Plan updated");
  update_plan (f, "c2", "[{\"step\":\"Answered inside\",\"status\":\"pending\"}]", NULL);
  filler (f, 1000);
  output (f, "c2", "Plan updated");
  update_plan (f, "c3", "[{\"step\":\"Refused\",\"status\":\"pending\"}]", "failed to parse function arguments: missing field");
  turn (f, "t2");
  plan_item (f, "t2", "# Inside\n");
  filler (f, 20);
  save (f);

  full = read_full (f);
  tail = read_tail (f, bound);
  expected = pd_import_test_describe (full);
  got = pd_import_test_describe (tail);
  g_assert_cmpstr (expected, ==, "Answered inside:pending");
  g_assert_cmpstr (got, ==, "");
  g_assert_cmpint (pd_checklist_get_origin (pd_imported_session_get_checklist (tail)), ==, PD_CHECKLIST_ORIGIN_NONE);
  /* What lies within the bound is still read. */
  plans = pd_imported_session_get_plans (tail);
  g_assert_cmpuint (plans->len, ==, 1);
  g_assert_cmpstr (((PdArtifactPlan *) plans->pdata[0])->id, ==, "turn:t2");
  assert_same_facts (full, tail);
  /* Read: the head, the bound backwards, and the bound forwards (with the
   * failed call's replay, within it). */
  g_assert_true (pd_imported_session_get_stats (tail)->tail_read);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->bytes_read, <=, PD_IMPORT_TAIL_HEAD + 3 * bound);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->bytes_read, <, f->text->len);
}

/* Torn, invalid and blank lines in the scanned region, some naming
 * update_plan: skipped and counted as a full read counts them, never taken
 * for a full list. */
static void
test_bad_lines_in_tail (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(PdImportedSession) full = NULL;
  g_autoptr(PdImportedSession) tail = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *got = NULL;

  meta (f);
  prompt (f, "Go");
  filler (f, 1000);
  update_plan (f, "c1", "[{\"step\":\"Good\",\"status\":\"in_progress\"}]", "Plan updated");
  filler (f, 5);
  /* Invalid UTF-8 in a call, answered. */
  g_string_append (f->text, "{\"timestamp\":\"2026-01-01T05:00:00.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\","
                            "\"name\":\"update_plan\",\"arguments\":\"{\\\"plan\\\":[{\\\"step\\\":\\\"\xff\xfe\\\",\\\"status\\\":\\\"pending\\\"}]}\","
                            "\"call_id\":\"bad1\"}}\n");
  output (f, "bad1", "Plan updated");
  /* A call whose plan is not one (a number for a step), answered. */
  update_plan (f, "bad2", "[{\"step\":1,\"status\":\"pending\"}]", "Plan updated");
  /* A line torn in the middle, and blank lines. */
  g_string_append (f->text, "{\"timestamp\":\"2026-01-01T05:00:01.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\","
                            "\"name\":\"update_plan\",\"argu\n");
  output (f, "bad3", "Plan updated");
  g_string_append (f->text, "\n\n");
  filler (f, 5);
  /* A torn last line naming a full list. */
  g_string_append (f->text, "{\"timestamp\":\"2026-01-01T05:00:02.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\","
                            "\"name\":\"update_plan\",\"arguments\":\"{\\\"pl");
  save (f);

  full = read_full (f);
  tail = read_tail (f, 64 * 1024 * 1024);
  expected = pd_import_test_describe (full);
  got = pd_import_test_describe (tail);
  g_assert_cmpstr (expected, ==, "Good:in_progress");
  g_assert_cmpstr (got, ==, expected);
  /* Every bad line is in the replayed region: counted alike. */
  g_assert_cmpuint (pd_imported_session_get_stats (full)->skipped_lines, ==, 5);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->skipped_lines, ==, 5);
  g_assert_cmpuint (pd_imported_session_get_stats (full)->ignored_updates, ==, 1);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->ignored_updates, ==, 1);
  g_assert_true (pd_imported_session_get_stats (tail)->tail_read);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->bytes_read, <, f->text->len / 2);
}

/* Code mode: the exec form is a full list for the scan too, and a failed
 * script is passed over like a failed call. */
static void
test_exec_form (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(PdImportedSession) full = NULL;
  g_autoptr(PdImportedSession) tail = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *got = NULL;

  meta (f);
  prompt (f, "Go");
  update_plan (f, "c1", "[{\"step\":\"Old\",\"status\":\"pending\"}]", "Plan updated");
  filler (f, 1000);
  exec_plan (f, "e1", "{explanation:'go',plan:[{step:'A',status:'completed'},{step:\"B\",status:'in_progress'},]}",
             "Script completed\nPlan updated");
  filler (f, 20);
  exec_plan (f, "e2", "{plan:[{step:'X',status:'pending'}]}", "Script failed\nError: boom");
  /* Not a literal: never a full list. */
  exec_plan (f, "e3", "{plan:steps}", "Script completed");
  filler (f, 10);
  save (f);

  full = read_full (f);
  tail = read_tail (f, 64 * 1024 * 1024);
  expected = pd_import_test_describe (full);
  got = pd_import_test_describe (tail);
  g_assert_cmpstr (expected, ==, "A:completed|B:in_progress");
  g_assert_cmpstr (got, ==, expected);
  assert_same_facts (full, tail);
  g_assert_true (pd_imported_session_get_stats (tail)->tail_read);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->bytes_read, <, f->text->len / 4);
}

/* Proposed plans are plan documents: those after the replay's start are
 * read, keyed by their turn even when the replay starts mid-turn; those
 * before it cannot be seen. */
static void
test_proposed_plans (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(PdImportedSession) full = NULL;
  g_autoptr(PdImportedSession) tail = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *got = NULL;
  GPtrArray *plans;

  meta (f);
  turn (f, "t1");
  prompt (f, "Plan it");
  say (f, "<proposed_plan>\n# Early\n</proposed_plan>");
  plan_item (f, "t1", "# Early\n");
  filler (f, 1000);
  turn (f, "t2");
  update_plan (f, "c1", "[{\"step\":\"A\",\"status\":\"in_progress\"}]", "Plan updated");
  filler (f, 5);
  /* In the turn the replay starts in, before its next turn marker. */
  say (f, "Draft\n<proposed_plan>\n# Mid\n</proposed_plan>");
  filler (f, 5);
  turn (f, "t3");
  plan_item (f, "t3", "# Late\n");
  save (f);

  full = read_full (f);
  tail = read_tail (f, 64 * 1024 * 1024);
  expected = pd_import_test_describe (full);
  got = pd_import_test_describe (tail);
  g_assert_cmpstr (got, ==, expected);
  g_assert_cmpstr (got, ==, "A:in_progress");

  plans = pd_imported_session_get_plans (full);
  g_assert_cmpuint (plans->len, ==, 3);
  plans = pd_imported_session_get_plans (tail);
  g_assert_cmpuint (plans->len, ==, 2);
  g_assert_cmpstr (((PdArtifactPlan *) plans->pdata[0])->id, ==, "turn:t2");
  g_assert_cmpstr (((PdArtifactPlan *) plans->pdata[0])->markdown, ==, "# Mid\n");
  g_assert_cmpstr (((PdArtifactPlan *) plans->pdata[1])->id, ==, "turn:t3");
  g_assert_cmpstr (((PdArtifactPlan *) plans->pdata[1])->markdown, ==, "# Late\n");
  g_assert_true (pd_imported_session_get_stats (tail)->tail_read);
  g_assert_cmpuint (pd_imported_session_get_stats (tail)->bytes_read, <, f->text->len / 4);
}

/* A followed rollout: after the tail read, the next update reads only
 * what was appended. */
static void
test_follow_appends (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(PdCodexReader) reader = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *got = NULL;
  PdImportedSession *session;
  guint64 before;
  gsize size;

  meta (f);
  prompt (f, "Go");
  filler (f, 1000);
  update_plan (f, "c1", "[{\"step\":\"A\",\"status\":\"in_progress\"}]", "Plan updated");
  filler (f, 10);
  /* Being written: held back, not skipped. */
  update_plan (f, "c2", "[{\"step\":\"A\",\"status\":\"completed\"},{\"step\":\"B\",\"status\":\"in_progress\"}]", NULL);
  size = f->text->len;
  g_string_append (f->text, "{\"timestamp\":\"2026-01-01T05:00:00.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\"");
  save (f);

  _pd_import_set_tail_limits (64 * 1024, 64 * 1024 * 1024);
  reader = pd_codex_reader_new (f->path);
  pd_transcript_reader_set_follow (PD_TRANSCRIPT_READER (reader), TRUE);
  g_assert_true (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error));
  g_assert_no_error (error);
  session = pd_transcript_reader_get_session (PD_TRANSCRIPT_READER (reader));
  got = pd_import_test_describe (session);
  g_assert_cmpstr (got, ==, "A:in_progress");
  g_assert_true (pd_imported_session_get_stats (session)->tail_read);
  g_assert_cmpint (pd_transcript_reader_get_offset (PD_TRANSCRIPT_READER (reader)), ==, (goffset) size);

  /* The torn line's rest: c2's output. */
  g_string_append (f->text, ",\"call_id\":\"c2\",\"output\":\"Plan updated\"}}\n");
  save (f);
  before = pd_imported_session_get_stats (session)->bytes_read;
  g_assert_true (pd_transcript_reader_update (PD_TRANSCRIPT_READER (reader), NULL, &error));
  g_assert_no_error (error);
  g_clear_pointer (&got, g_free);
  got = pd_import_test_describe (session);
  g_assert_cmpstr (got, ==, "A:completed|B:in_progress");
  g_assert_cmpuint (pd_imported_session_get_stats (session)->bytes_read - before, ==, f->text->len - size);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define FIXTURE_TEST(path, func) \
  g_test_add (path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  FIXTURE_TEST ("/pd/import-tail-codex/same-as-full", test_same_as_full);
  FIXTURE_TEST ("/pd/import-tail-codex/failed-newest", test_failed_newest);
  FIXTURE_TEST ("/pd/import-tail-codex/no-full-list-in-bound", test_no_full_list_in_bound);
  FIXTURE_TEST ("/pd/import-tail-codex/bad-lines", test_bad_lines_in_tail);
  FIXTURE_TEST ("/pd/import-tail-codex/exec-form", test_exec_form);
  FIXTURE_TEST ("/pd/import-tail-codex/proposed-plans", test_proposed_plans);
  FIXTURE_TEST ("/pd/import-tail-codex/follow-appends", test_follow_appends);

  return g_test_run ();
}
