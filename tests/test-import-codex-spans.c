/* test-import-codex-spans.c: Codex rollout lines read in place.
 *
 * The lines most of a rollout's candidates are (turn markers, the
 * session's facts, the first prompt, update_plan calls, their outputs,
 * completed plan items) are checked and read in one walk, nothing built
 * (pd_json_check_spans()); the rest as picked trees.  Whatever the lines
 * hold, a rollout reads to the same sessions both ways.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>

#include "pd-import-private.h"
#include "pd-import-scanner.h"
#include "pd-import-test.h"

#define SESSION_ID "019f0000-0000-7000-8000-000000000060"

/* A rollout of what the reading in place must read as the trees are read:
 * escaped keys and names, members met twice, values of the wrong kind,
 * outputs of each shape, broken lines. */
static const char * const hostile_codex[] = {
  /* The session's facts: an escaped key, escapes in the folder */
  "{\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"type\":\"session_meta\",\"payload\":{\"\\u0069d\":\"019f0000-0000-7000-8000-000000000060\",\"cwd\":\"/tmp/sp\\u00e4ns \\\"q\\\"\",\"timestamp\":\"2026-01-01T00:00:00.500Z\",\"base_instructions\":{\"text\":\"update_plan and \\\"Plan\\\"\"}}}",
  /* Another session's facts after it: ignored */
  "{\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"type\":\"session_meta\",\"payload\":{\"id\":\"other\",\"cwd\":\"/elsewhere\"}}",
  /* A prompt of the harness, then a payload met twice (the last, with no type, counts) */
  "{\"timestamp\":\"2026-01-01T00:00:02.000Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"user_message\",\"message\":\"<environment_context>\"}}",
  "{\"timestamp\":\"2026-01-01T00:00:02.000Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"user_message\",\"message\":\"shadowed title\"},\"payload\":{\"message\":\"no type\"}}",
  /* The first prompt: escapes, cut at a NUL */
  "{\"timestamp\":\"2026-01-01T00:00:03.000Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"user_message\",\"\\u006dessage\":\"Make \\\"a\\\" plan\\u0000 cut\"}}",
  /* A turn id that is no string, then one that is, then a turn_context's */
  "{\"timestamp\":\"2026-01-01T00:00:04.000Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"task_started\",\"turn_id\":7}}",
  "{\"timestamp\":\"2026-01-01T00:00:04.000Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"task_started\",\"turn_id\":\"turn-\\u0031\"}}",
  /* A plan call (its name escaped) and its output */
  "{\"timestamp\":\"2026-01-01T00:00:05.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"update_plan\",\"arguments\":\"{\\\"plan\\\": [{\\\"step\\\": \\\"first step\\\", \\\"status\\\": \\\"completed\\\"}, {\\\"step\\\": \\\"second \\\\\\\"step\\\\\\\"\\\", \\\"status\\\": \\\"in_progress\\\"}]}\",\"call_id\":\"c\\u0031\"}}",
  "{\"timestamp\":\"2026-01-01T00:00:06.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"c1\",\"output\":\"Plan updated\"}}",
  /* A call whose name is escaped (the tool named elsewhere in the line) */
  "{\"timestamp\":\"2026-01-01T00:00:06.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"update\\u005fplan\",\"note\":\"update_plan\",\"arguments\":\"{\\\"plan\\\": [{\\\"step\\\": \\\"escaped name\\\", \\\"status\\\": \\\"pending\\\"}]}\",\"call_id\":\"c11\"}}",
  "{\"timestamp\":\"2026-01-01T00:00:06.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"c11\",\"output\":\"Plan updated\"}}",
  /* A call whose output is an object that failed */
  "{\"timestamp\":\"2026-01-01T00:00:07.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"update_plan\",\"arguments\":\"{\\\"plan\\\": [{\\\"step\\\": \\\"never one\\\", \\\"status\\\": \\\"pending\\\"}]}\",\"call_id\":\"c2\"}}",
  "{\"timestamp\":\"2026-01-01T00:00:08.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"c2\",\"output\":{\"content\":\"Plan updated\",\"success\":false}}}",
  /* A call answered by a list of parts */
  "{\"timestamp\":\"2026-01-01T00:00:09.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"update_plan\",\"arguments\":\"{\\\"plan\\\": [{\\\"step\\\": \\\"from parts\\\", \\\"status\\\": \\\"pending\\\"}]}\",\"call_id\":\"c3\"}}",
  "{\"timestamp\":\"2026-01-01T00:00:10.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"custom_tool_call_output\",\"call_id\":\"c3\",\"output\":[{\"type\":\"input_text\",\"text\":\"Plan updated\"},{\"text\":7},\"x\"]}}",
  /* An error text, a missing output, a call id that is no string, arguments that are no string */
  "{\"timestamp\":\"2026-01-01T00:00:11.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"update_plan\",\"arguments\":\"{\\\"plan\\\": [{\\\"step\\\": \\\"errs\\\", \\\"status\\\": \\\"pending\\\"}]}\",\"call_id\":\"c4\"}}",
  "{\"timestamp\":\"2026-01-01T00:00:12.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"c4\",\"output\":\"  error: not allowed\"}}",
  "{\"timestamp\":\"2026-01-01T00:00:13.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"update_plan\",\"arguments\":\"{\\\"plan\\\": [{\\\"step\\\": \\\"no output\\\", \\\"status\\\": \\\"pending\\\"}]}\",\"call_id\":\"c5\"}}",
  "{\"timestamp\":\"2026-01-01T00:00:14.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"c5\"}}",
  "{\"timestamp\":\"2026-01-01T00:00:15.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"update_plan\",\"arguments\":\"{\\\"plan\\\": [{\\\"step\\\": \\\"numbered\\\", \\\"status\\\": \\\"pending\\\"}]}\",\"call_id\":6}}",
  "{\"timestamp\":\"2026-01-01T00:00:16.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"update_plan\",\"arguments\":{\"plan\":[]},\"call_id\":\"c7\"}}",
  "{\"timestamp\":\"2026-01-01T00:00:17.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"c7\",\"output\":\"Plan updated\"}}",
  /* A completed Plan item (its item met twice), one that is no object, then one of the line's turn */
  "{\"timestamp\":\"2026-01-01T00:00:18.000Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"item_completed\",\"item\":{\"type\":\"Plan\",\"text\":\"shadowed plan\"},\"item\":{\"type\":\"Plan\",\"text\":\"# Plan one\\n\\n1. step\"}}}",
  "{\"timestamp\":\"2026-01-01T00:00:19.000Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"item_completed\",\"item\":\"# not a plan\",\"turn_id\":\"t9\"}}",
  "{\"timestamp\":\"2026-01-01T00:00:20.000Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"item_completed\",\"turn_id\":\"turn-2\",\"item\":{\"text\":\"# Plan two\",\"type\":\"Plan\"}}}",
  /* A type met twice (the last counts), a time that is no string, a payload that is no object */
  "{\"type\":\"event_msg\",\"timestamp\":21,\"payload\":{\"type\":\"function_call\",\"name\":\"update_plan\",\"arguments\":\"{\\\"plan\\\": [{\\\"step\\\": \\\"wrong type\\\", \\\"status\\\": \\\"pending\\\"}]}\",\"call_id\":\"c8\"},\"type\":\"response_item\"}",
  "{\"timestamp\":\"2026-01-01T00:00:22.000Z\",\"type\":\"response_item\",\"payload\":\"update_plan\"}",
  /* A plan_update event and a message with a proposed plan: read as trees */
  "{\"timestamp\":\"2026-01-01T00:00:23.000Z\",\"type\":\"event_msg\",\"payload\":{\"type\":\"plan_update\",\"plan\":[{\"step\":\"from the event\",\"status\":\"in_progress\"}]}}",
  "{\"timestamp\":\"2026-01-01T00:00:24.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"output_text\",\"text\":\"<proposed_plan>\\n# Proposed\\n</proposed_plan>\"}]}}",
  /* A broken line naming the tool: skipped */
  "{\"timestamp\":\"2026-01-01T00:00:25.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"update_plan\",\"arguments\":\"{}\",\"call_id\":\"c9\"}",
  "{\"timestamp\":\"2026-01-01T00:00:26.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"update_plan\",\"arguments\":\"\\ud800\",\"call_id\":\"c9\"}}",
  /* The last list: answered, after the wrongly typed call's output */
  "{\"timestamp\":\"2026-01-01T00:00:27.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"c8\",\"output\":\"Plan updated\"}}",
  "{\"timestamp\":\"2026-01-01T00:00:28.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call\",\"name\":\"update_plan\",\"arguments\":\"{\\\"plan\\\": [{\\\"step\\\": \\\"final \\\\\\\\\\\\\\\\ step\\\", \\\"status\\\": \\\"in_progress\\\"}, {\\\"step\\\": \\\"\\\\u00e9t\\\\u00e9\\\", \\\"status\\\": \\\"pending\\\"}]}\",\"call_id\":\"c10\"}}",
  "{\"timestamp\":\"2026-01-01T00:00:29.000Z\",\"type\":\"response_item\",\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"c10\",\"output\":\"Plan updated\"}}",
};

/* The sessions the scanner reads from @dir, as `import --json` prints
 * them, with the lines read in place (@pick) or as whole trees. */
static char *
read_sessions (const char *dir,
               gboolean    pick)
{
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(JsonArray) array = json_array_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(GError) error = NULL;

  _pd_import_set_pick_lines (pick);
  sessions = pd_import_read_path (dir, NULL, &error);
  _pd_import_set_pick_lines (TRUE);
  g_assert_no_error (error);
  for (guint i = 0; i < sessions->len; i++)
    json_array_add_element (array, pd_imported_session_to_json (g_ptr_array_index (sessions, i), TRUE));
  root = json_node_init_array (json_node_alloc (), array);
  return json_to_string (root, TRUE);
}

/* The rollout cut after each line, one session each (so that each step's
 * checklist is compared, not only the last), read both ways. */
static void
test_hostile (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("pd-test-codex-spans-XXXXXX", NULL);
  g_autofree char *folder = g_build_filename (tmp, "sessions", "2026", "01", "01", NULL);
  g_autofree char *in_place = NULL;
  g_autofree char *whole = NULL;
  g_autofree char *last = NULL;
  g_autofree char *last_id = NULL;

  g_assert_cmpint (g_mkdir_with_parents (folder, 0700), ==, 0);
  for (guint n = 1; n <= G_N_ELEMENTS (hostile_codex); n++)
    {
      g_autofree char *id = g_strdup_printf ("019f0000-0000-7000-8000-%012u", n);
      g_autofree char *name = g_strdup_printf ("rollout-2026-01-01T00-00-00-%s.jsonl", id);
      g_autofree char *path = g_build_filename (folder, name, NULL);
      g_autoptr(GString) text = g_string_new (NULL);

      for (guint i = 0; i < n; i++)
        g_string_append_printf (text, "%s\n", hostile_codex[i]);
      g_string_replace (text, SESSION_ID, id, 0);
      g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
      if (n == G_N_ELEMENTS (hostile_codex))
        last_id = g_steal_pointer (&id);
    }

  in_place = read_sessions (tmp, TRUE);
  whole = read_sessions (tmp, FALSE);
  g_assert_cmpstr (in_place, ==, whole);

  /* What the lines hold did reach the sessions. */
  g_assert_nonnull (strstr (in_place, last_id));
  g_assert_nonnull (strstr (in_place, "first step"));
  g_assert_nonnull (strstr (in_place, "escaped name"));
  g_assert_nonnull (strstr (in_place, "from parts"));
  g_assert_nonnull (strstr (in_place, "from the event"));
  g_assert_nonnull (strstr (in_place, "final \\\\\\\\ step"));
  g_assert_nonnull (strstr (in_place, "# Plan one"));
  g_assert_nonnull (strstr (in_place, "# Plan two"));
  g_assert_nonnull (strstr (in_place, "# Proposed"));
  g_assert_nonnull (strstr (in_place, "Make \\\"a\\\" plan"));
  g_assert_null (strstr (in_place, "shadowed"));
  g_assert_null (strstr (in_place, "never one"));
  g_assert_null (strstr (in_place, "/elsewhere"));
  g_assert_null (strstr (in_place, " cut"));
  pd_test_remove_tree (tmp);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/pd/import-codex-spans/hostile", test_hostile);
  return g_test_run ();
}
