/* test-import-pages.c: imported sessions fill every page.
 *
 * For each agent, on the project's own fixtures (tests/fixtures/README.md
 * gives each one's replay) and on the shared recordings when they are
 * there: the Transcript (the conversation, subagents nested under the call
 * that started them), the History (one version per update the replay
 * applied, diffed by the code of our own plan history), the Events (tool
 * calls and plan updates) and how to continue the session in its agent.
 * The same through the API every front end uses is in
 * test-import-pages-reads.c; both use pd-test-import-pages.h.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#define G_LOG_DOMAIN "test-import-pages"

#include "config.h"

#include "pd-test-import-pages.h"

/* ---------------------------------------------------------------------- */
/* Claude Code                                                            */

/* Tasks: TaskCreate ×4, TaskUpdate, a subagent (current layout) that takes
 * task 3, TaskList, a reminder: 12 applied updates. */
static void
test_claude_tasks (void)
{
  g_autofree char *path = fixture_path (HARBOR);
  g_autoptr(PdImportedSession) plain = NULL;
  g_autoptr(PdTranscriptPages) pages = read_pages ("claude", path, NULL, &plain);
  g_autoptr(GPtrArray) versions = check_history (pages, plain);
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(PdPlanState) v4 = NULL, v5 = NULL, v8 = NULL, v9 = NULL;
  g_autoptr(PdPlanDiff) started = NULL, deleted = NULL;
  g_autofree char *last = NULL;
  const char * const resume[] = { "claude", "--resume", "5b2e9f07-c3d1-4a6b-8e20-f14d9a6c0b72", NULL };
  JsonObject *agent, *subagent;
  EventCounts events;
  Walk walk;

  g_assert_cmpuint (versions->len, ==, 12);
  {
    g_autoptr(PdPlanState) newest = version_state (versions, 12);
    last = describe_state (newest);
  }
  g_assert_cmpstr (last, ==, "1:done|2:in_progress|3:done");

  /* What changed, by the diff of our own plan history. */
  v4 = version_state (versions, 4);
  v5 = version_state (versions, 5);
  started = pd_plan_diff_new (v4, v5);
  g_assert_cmpuint (started->entries->len, ==, 1);
  g_assert_nonnull (pd_plan_diff_find (started, PD_PLAN_DIFF_STEP_STATUS, "1", NULL));
  g_assert_cmpstr (pd_plan_diff_find (started, PD_PLAN_DIFF_STEP_STATUS, "1", NULL)->new_value, ==, "in_progress");
  v8 = version_state (versions, 8);
  v9 = version_state (versions, 9);
  deleted = pd_plan_diff_new (v8, v9);
  g_assert_nonnull (pd_plan_diff_find (deleted, PD_PLAN_DIFF_STEP_REMOVED, "4", NULL));

  /* The conversation: the subagent under the Agent call that started it,
   * with its own task updates. */
  messages = check_messages (pages, &walk);
  g_assert_cmpuint (pd_transcript_pages_get_n_messages (pages), ==, 30);
  g_assert_cmpuint (role_count (&walk, "user"), ==, 2);
  g_assert_cmpuint (walk.nested, ==, 1);
  g_assert_cmpuint (walk.unlinked, ==, 0);
  agent = find_call (messages, "Agent");
  g_assert_nonnull (agent);
  subagent = pd_json_get_object (agent, "subagent");
  g_assert_cmpstr (pd_json_get_string (subagent, "agent_id"), ==, "aac8eaeccca28f5c8");
  g_assert_cmpstr (pd_json_get_string (subagent, "agent_type"), ==, "general-purpose");
  g_assert_cmpuint (json_array_get_length (pd_json_get_array (subagent, "messages")), ==, 12);
  {
    /* Its first message is the task the call gave it. */
    g_autoptr(JsonNode) arguments = json_from_string (pd_json_get_string (pd_json_get_object (agent, "function"), "arguments"), NULL);
    JsonObject *first = json_array_get_object_element (pd_json_get_array (subagent, "messages"), 0);

    g_assert_cmpstr (pd_json_get_string (first, "role"), ==, "user");
    g_assert_cmpstr (pd_json_get_string (first, "content"), ==, pd_json_get_string (json_node_get_object (arguments), "prompt"));
  }
  /* Every call answered in the conversation (14 + the subagent's 5). */
  g_assert_cmpuint (walk.calls, ==, 19);
  g_assert_cmpuint (walk.results, ==, 19);

  count_events (pages, "20260312-00000000000000000000000000000000", &events);
  g_assert_cmpuint (events.started, ==, 19);
  g_assert_cmpuint (events.completed + events.failed, ==, 19);
  /* The TaskUpdate of an unknown task failed. */
  g_assert_cmpuint (events.failed, ==, 1);
  g_assert_cmpuint (events.plan_created, ==, 1);
  g_assert_cmpuint (events.plan_updated, ==, 11);
  g_assert_cmpuint (events.spawned, ==, 1);
  g_assert_cmpuint (events.finished_subagents, ==, 1);

  check_resume (pages, resume, "/home/dev/src/harbor");
  g_hash_table_unref (walk.roles);
}

/* 1.0.x: a subagent written inline as sidechain lines, with a TodoWrite
 * list of its own (not the session's); a TodoWrite the user rejected. */
static void
test_claude_sidechain (void)
{
  g_autofree char *path = fixture_path (LEGACY);
  g_autoptr(PdImportedSession) plain = NULL;
  g_autoptr(PdTranscriptPages) pages = read_pages ("claude", path, NULL, &plain);
  g_autoptr(GPtrArray) versions = check_history (pages, plain);
  g_autoptr(JsonArray) messages = NULL;
  JsonObject *task, *subagent;
  gboolean rejected = FALSE;
  EventCounts events;
  Walk walk;

  g_assert_cmpuint (versions->len, ==, 4);
  messages = check_messages (pages, &walk);
  task = find_call (messages, "Task");
  g_assert_nonnull (task);
  subagent = pd_json_get_object (task, "subagent");
  g_assert_nonnull (subagent);
  /* The subagent's own list is in its conversation, not in the history. */
  g_assert_nonnull (find_call (pd_json_get_array (subagent, "messages"), "TodoWrite"));
  g_assert_cmpuint (json_array_get_length (pd_json_get_array (subagent, "messages")), ==, 6);
  g_assert_cmpuint (walk.unlinked, ==, 0);

  /* The rejected call's result says so. */
  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);
      rejected |= pd_json_get_boolean (message, "is_error", FALSE)
                  && g_strcmp0 (pd_json_get_string (message, "name"), "TodoWrite") == 0;
    }
  g_assert_true (rejected);

  count_events (pages, "s", &events);
  g_assert_cmpuint (events.plan_created + events.plan_updated, ==, 4);
  g_assert_cmpuint (events.failed, ==, 1);
  g_hash_table_unref (walk.roles);
}

/* 2.0.x: plan mode (rejected, then approved), a flat agent-*.jsonl
 * subagent beside the session, a compaction, a torn line. */
static void
test_claude_plan_mode (void)
{
  g_autofree char *path = fixture_path (PLANNED);
  g_autoptr(PdImportedSession) plain = NULL;
  g_autoptr(PdTranscriptPages) pages = read_pages ("claude", path, NULL, &plain);
  g_autoptr(GPtrArray) versions = check_history (pages, plain);
  g_autoptr(GPtrArray) documents = pd_transcript_pages_dup_plan_documents (pages);
  g_autoptr(JsonArray) messages = NULL;
  JsonObject *subagent;
  gboolean compacted = FALSE;
  Walk walk;

  g_assert_cmpuint (versions->len, ==, 6);
  g_assert_cmpuint (documents->len, ==, 2);
  g_assert_cmpint (((PdArtifactPlan *) g_ptr_array_index (documents, 0))->status, ==, PD_ARTIFACT_PLAN_REJECTED);
  g_assert_cmpint (((PdArtifactPlan *) g_ptr_array_index (documents, 1))->status, ==, PD_ARTIFACT_PLAN_APPROVED);
  g_assert_true (g_str_has_prefix (((PdArtifactPlan *) g_ptr_array_index (documents, 1))->markdown, "#"));

  messages = check_messages (pages, &walk);
  subagent = pd_json_get_object (find_call (messages, "Task"), "subagent");
  g_assert_nonnull (subagent);
  g_assert_cmpstr (pd_json_get_string (subagent, "agent_id"), ==, "3cff2801");
  g_assert_cmpstr (pd_json_get_string (subagent, "description"), ==, "Find INI writers");
  g_assert_cmpuint (json_array_get_length (pd_json_get_array (subagent, "messages")), ==, 6);
  /* The compaction and the summary that continued the session are context. */
  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);
      compacted |= g_strcmp0 (pd_json_get_string (message, "role"), "system") == 0;
    }
  g_assert_true (compacted);
  g_assert_cmpuint (role_count (&walk, "system"), ==, 2);
  g_hash_table_unref (walk.roles);
}

/* ---------------------------------------------------------------------- */
/* Codex                                                                  */

static void
test_codex (void)
{
  g_autofree char *path = fixture_path (SINCE);
  g_autoptr(PdImportedSession) plain = NULL;
  g_autoptr(PdTranscriptPages) pages = read_pages ("codex", path, NULL, &plain);
  g_autoptr(GPtrArray) versions = check_history (pages, plain);
  g_autoptr(GPtrArray) documents = pd_transcript_pages_dup_plan_documents (pages);
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(PdPlanState) v4 = NULL, v5 = NULL;
  g_autoptr(PdPlanDiff) diff = NULL;
  const char * const resume[] = { "codex", "resume", "019ceb9e-8409-72b7-bb14-1b6f441e1673", NULL };
  gboolean reasoning = FALSE, shell_output = FALSE;
  EventCounts events;
  Walk walk;

  g_assert_cmpuint (versions->len, ==, 6);
  /* The plan of the next morning is a new list: three steps out, three in. */
  v4 = version_state (versions, 4);
  v5 = version_state (versions, 5);
  diff = pd_plan_diff_new (v4, v5);
  g_assert_cmpuint (pd_plan_diff_count (diff, PD_PLAN_DIFF_STEP_REMOVED), ==, 3);
  g_assert_cmpuint (pd_plan_diff_count (diff, PD_PLAN_DIFF_STEP_ADDED), ==, 3);

  g_assert_cmpuint (documents->len, ==, 1);
  g_assert_cmpint (((PdArtifactPlan *) g_ptr_array_index (documents, 0))->status, ==, PD_ARTIFACT_PLAN_PROPOSED);

  messages = check_messages (pages, &walk);
  /* The person's prompts, and what the harness put in their name (the
   * sandbox, the folder) as context. */
  g_assert_cmpuint (role_count (&walk, "user"), ==, 3);
  g_assert_cmpuint (role_count (&walk, "system"), ==, 2);
  g_assert_cmpuint (walk.calls, ==, 16);
  g_assert_cmpuint (walk.results, ==, 16);
  g_assert_nonnull (find_call (messages, "exec"));
  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);
      const char *content = pd_json_get_string (message, "content");

      reasoning |= pd_json_get_string (message, "reasoning_content") != NULL;
      /* Shell output as the person reads it, not its JSON wrapping. */
      shell_output |= content != NULL && g_str_has_prefix (content, "logtail/cli.py:88:");
    }
  g_assert_true (reasoning);
  g_assert_true (shell_output);

  count_events (pages, "c", &events);
  g_assert_cmpuint (events.started, ==, 16);
  g_assert_cmpuint (events.plan_created + events.plan_updated, ==, 6);
  check_resume (pages, resume, "/home/dev/src/logtail");
  g_hash_table_unref (walk.roles);

  /* A rollout without a plan: a conversation, no history, no plan. */
  {
    g_autofree char *other = fixture_path (NOPLAN);
    g_autoptr(PdImportedSession) none = NULL;
    g_autoptr(PdTranscriptPages) quiet = read_pages ("codex", other, NULL, &none);
    g_autoptr(GPtrArray) no_versions = check_history (quiet, none);

    g_assert_cmpuint (no_versions->len, ==, 0);
    g_assert_null (pd_transcript_pages_dup_plan (quiet, NULL));
    g_assert_cmpuint (pd_transcript_pages_get_n_messages (quiet), >, 0);
  }
}

/* ---------------------------------------------------------------------- */
/* OpenCode                                                               */

static void
test_opencode_storage (void)
{
  g_autofree char *storage = fixture_path ("opencode/storage");
  g_autoptr(PdImportedSession) plain = NULL;
  g_autoptr(PdTranscriptPages) pages = read_pages ("opencode-storage", storage, WEBHOOK, &plain);
  g_autoptr(GPtrArray) versions = check_history (pages, plain);
  g_autoptr(JsonArray) messages = NULL;
  g_autoptr(PdPlanState) newest = NULL;
  const char * const resume[] = { "opencode", "--session", WEBHOOK, NULL };
  JsonObject *subagent = NULL;
  EventCounts events;
  Walk walk;

  g_assert_cmpuint (versions->len, ==, 3);
  newest = version_state (versions, 3);
  {
    const PdPlanStep *cancelled = g_ptr_array_index (newest->steps, 3);
    g_autofree char *shape = describe_state (newest);

    g_assert_cmpstr (shape, ==, "1:done|2:done|3:in_progress|4:blocked");
    g_assert_cmpstr (cancelled->title, ==, "Show attempts on the admin page");
  }
  /* The agent's own word beside ours. */
  g_assert_nonnull (strstr (((PdPlanVersionInfo *) g_ptr_array_index (versions, 2))->state_json,
                            "\"agent_status\":\"cancelled\""));

  messages = check_messages (pages, &walk);
  /* 19, and the subagent after them. */
  g_assert_cmpuint (pd_transcript_pages_get_n_messages (pages), ==, 20);
  /* The subagent's session (it names this one its parent): no task call
   * links it in this store, so it follows the conversation. */
  g_assert_cmpuint (walk.unlinked, ==, 1);
  for (guint i = 0; i < json_array_get_length (messages); i++)
    if (pd_json_get_object (json_array_get_object_element (messages, i), "subagent"))
      subagent = pd_json_get_object (json_array_get_object_element (messages, i), "subagent");
  g_assert_cmpstr (pd_json_get_string (subagent, "agent_id"), ==, "ses_3a9f0d71effeJm2Vq8ZcHyWp6T");

  count_events (pages, "o", &events);
  g_assert_cmpuint (events.plan_created + events.plan_updated, ==, 3);
  g_assert_cmpuint (events.started, ==, walk.calls);
  /* The last plan event counts as the checklist does (the Now page): the
   * cancelled item in neither done nor the total nor blocked (it said 2/4
   * and "1 blocked" beside the Now page's 2/3), with the members of our own
   * plan_updated only. */
  {
    g_autoptr(GPtrArray) all = pd_transcript_pages_dup_events (pages, "o", 0, 0);
    guint done = 0, total = 0;
    JsonObject *data = NULL;

    pd_checklist_count (pd_imported_session_get_checklist (plain), &done, &total, NULL);
    g_assert_cmpuint (total, ==, 3);
    for (guint i = all->len; i > 0 && data == NULL; i--)
      {
        g_autoptr(PdEvent) event = pd_event_new_from_json (((PdStoredEvent *) g_ptr_array_index (all, i - 1))->event_json,
                                                           NULL);

        if (g_strcmp0 (pd_event_get_event_type (event), PD_EVENT_PLAN_UPDATED) == 0)
          data = json_object_ref (pd_event_get_data (event));
      }
    g_assert_nonnull (data);
    g_assert_cmpint (json_object_get_int_member (data, "steps"), ==, total);
    g_assert_cmpint (json_object_get_int_member (data, "done"), ==, done);
    g_assert_cmpint (json_object_get_int_member (data, "blocked"), ==, 0);
    json_object_unref (data);
  }
  check_resume (pages, resume, "/home/dev/src/hookshot");
  g_hash_table_unref (walk.roles);
}

static void
exec_sql (sqlite3    *db,
          const char *sql)
{
  char *message = NULL;

  if (sqlite3_exec (db, sql, NULL, NULL, &message) != SQLITE_OK)
    g_error ("%s: %s", sql, message);
}

/* opencode.db: messages and parts from their tables, and a task call's
 * subagent session nested under it. */
static void
test_opencode_database (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *path = g_build_filename (dir, "opencode.db", NULL);
  g_autoptr(PdImportedSession) plain = NULL;
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(GPtrArray) versions = NULL;
  g_autoptr(JsonArray) messages = NULL;
  JsonObject *task, *subagent;
  sqlite3 *db;
  Walk walk;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  exec_sql (db,
            "CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT, title TEXT,"
            " time_created INTEGER, time_updated INTEGER);"
            "CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, data TEXT);"
            "CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, time_created INTEGER, data TEXT);"
            "INSERT INTO session VALUES ('ses_p', NULL, '/work/p', 'Parent', 1767225600000, 1767225660000);"
            "INSERT INTO session VALUES ('ses_c', 'ses_p', '/work/p', 'Child', 1767225610000, 1767225620000);"
            "INSERT INTO message VALUES ('msg_1', 'ses_p', 1767225600000,"
            " '{\"id\":\"msg_1\",\"role\":\"user\",\"time\":{\"created\":1767225600000}}');"
            "INSERT INTO message VALUES ('msg_2', 'ses_p', 1767225601000,"
            " '{\"id\":\"msg_2\",\"role\":\"assistant\",\"time\":{\"created\":1767225601000}}');"
            "INSERT INTO message VALUES ('msg_3', 'ses_c', 1767225610000,"
            " '{\"id\":\"msg_3\",\"role\":\"user\",\"time\":{\"created\":1767225610000}}');"
            "INSERT INTO part VALUES ('prt_1', 'msg_1', 'ses_p', 0, '{\"type\":\"text\",\"text\":\"Plan and look\"}');"
            "INSERT INTO part VALUES ('prt_2', 'msg_2', 'ses_p', 0, '{\"type\":\"tool\",\"tool\":\"todowrite\",\"callID\":\"c1\","
            "\"state\":{\"status\":\"completed\",\"input\":{\"todos\":[{\"content\":\"Look\",\"status\":\"in_progress\","
            "\"priority\":\"high\"}]},\"output\":\"[]\",\"time\":{\"start\":1767225602000,\"end\":1767225602100}}}');"
            "INSERT INTO part VALUES ('prt_3', 'msg_2', 'ses_p', 0, '{\"type\":\"tool\",\"tool\":\"task\",\"callID\":\"c2\","
            "\"state\":{\"status\":\"completed\",\"input\":{\"prompt\":\"Look around\",\"description\":\"Look\","
            "\"subagent_type\":\"general\"},\"output\":\"Found it\",\"metadata\":{\"sessionId\":\"ses_c\"},"
            "\"time\":{\"start\":1767225603000,\"end\":1767225630000}}}');"
            "INSERT INTO part VALUES ('prt_4', 'msg_3', 'ses_c', 0, '{\"type\":\"text\",\"text\":\"Look around\"}');");
  sqlite3_close (db);

  pages = read_pages ("opencode-db", path, "ses_p", &plain);
  versions = check_history (pages, plain);
  g_assert_cmpuint (versions->len, ==, 1);
  messages = check_messages (pages, &walk);
  task = find_call (messages, "task");
  g_assert_nonnull (task);
  subagent = pd_json_get_object (task, "subagent");
  g_assert_nonnull (subagent);
  g_assert_cmpstr (pd_json_get_string (subagent, "agent_id"), ==, "ses_c");
  g_assert_cmpstr (pd_json_get_string (subagent, "agent_type"), ==, "general");
  g_assert_cmpuint (json_array_get_length (pd_json_get_array (subagent, "messages")), ==, 1);
  g_assert_cmpuint (walk.unlinked, ==, 0);
  g_assert_cmpuint (walk.results, ==, 2);
  g_hash_table_unref (walk.roles);
  pd_test_remove_tree (dir);
}

/* ---------------------------------------------------------------------- */
/* The shared recordings                                                  */

static guint
count_in_file (const char *path,
               const char *needle)
{
  g_autofree char *contents = NULL;
  guint n = 0;

  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  for (const char *p = strstr (contents, needle); p; p = strstr (p + 1, needle))
    n++;
  return n;
}

static void
test_shared (void)
{
  g_autofree char *root = pd_import_test_shared_fixtures ("");
  const char *claude[] = {
    "claude-code/-Users-dain-workspace-claude-code-log-sample/326189cf-5676-4237-8cde-1ce80aae4a9f.jsonl",
    "claude-code/-Users-dain-workspace-danieldemmel-me-next/b25638d7-b104-4f06-a797-70ac33d069ed.jsonl",
    "claude-code/-Users-dain-workspace-danieldemmel-me-next/f852ad25-1024-47da-964e-5eaae5bd6e6a.jsonl",
  };
  const guint applied[] = { 4, 4, 12 };
  const guint documents[] = { 0, 1, 4 };

  if (root == NULL)
    return;

  for (guint i = 0; i < G_N_ELEMENTS (claude); i++)
    {
      g_autofree char *path = g_build_filename (root, claude[i], NULL);
      g_autoptr(PdImportedSession) plain = NULL;
      g_autoptr(PdTranscriptPages) pages = read_pages ("claude", path, NULL, &plain);
      g_autoptr(GPtrArray) versions = check_history (pages, plain);
      g_autoptr(GPtrArray) plans = pd_transcript_pages_dup_plan_documents (pages);
      g_autoptr(JsonArray) messages = NULL;
      EventCounts events;
      Walk walk;

      g_assert_cmpuint (versions->len, ==, applied[i]);
      g_assert_cmpuint (plans->len, ==, documents[i]);
      messages = check_messages (pages, &walk);
      /* Every tool call of the recording is in the conversation. */
      g_assert_cmpuint (walk.calls, ==, count_in_file (path, "\"type\":\"tool_use\""));
      count_events (pages, "shared", &events);
      g_assert_cmpuint (events.started, ==, walk.calls);
      g_assert_cmpuint (events.plan_created + events.plan_updated, ==, applied[i]);
      g_hash_table_unref (walk.roles);
    }

  {
    g_autofree char *path = g_build_filename (root, "codex", "SYNTHETIC_update_plan_variants.jsonl", NULL);
    g_autoptr(PdImportedSession) plain = NULL;
    g_autoptr(PdTranscriptPages) pages = read_pages ("codex", path, NULL, &plain);
    g_autoptr(GPtrArray) versions = check_history (pages, plain);
    g_autoptr(GPtrArray) plans = pd_transcript_pages_dup_plan_documents (pages);

    g_assert_cmpuint (versions->len, >, 0);
    g_assert_cmpuint (plans->len, ==, 1);
    g_assert_cmpstr (((PdArtifactPlan *) g_ptr_array_index (plans, 0))->markdown, ==,
                     "# YAML output\n\n1. Add serde_yaml\n2. Add --yaml flag\n3. Tests\n");
  }
  {
    g_autofree char *path = g_build_filename (root, "codex", "agent-sessions_codex_small_0.146.jsonl", NULL);
    g_autoptr(PdImportedSession) plain = NULL;
    g_autoptr(PdTranscriptPages) pages = read_pages ("codex", path, NULL, &plain);
    g_autoptr(GPtrArray) versions = check_history (pages, plain);
    g_autoptr(JsonArray) messages = NULL;
    Walk walk;

    g_assert_cmpuint (versions->len, ==, 0);
    messages = check_messages (pages, &walk);
    g_assert_cmpuint (walk.messages, >, 0);
    g_hash_table_unref (walk.roles);
  }
  {
    g_autofree char *storage = g_build_filename (root, "opencode", "SYNTHETIC_legacy_storage", "storage", NULL);
    g_autoptr(PdImportedSession) plain = NULL;
    g_autoptr(PdTranscriptPages) pages = read_pages ("opencode-storage", storage, "ses_0000000000000000000000000001", &plain);
    g_autoptr(GPtrArray) versions = check_history (pages, plain);

    g_assert_cmpuint (versions->len, ==, 1);
  }
}

/* ---------------------------------------------------------------------- */
/* Bounds                                                                 */

/* A tool's output of 200 KB is kept to its bound (4 KiB), cut between characters,
 * and the cut is said; so are a call's arguments. */
static void
test_bounds (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autoptr(GString) big = g_string_new (NULL);
  g_autofree char *first = NULL, *call = NULL, *result = NULL;
  g_autofree char *path = NULL;
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(JsonArray) messages = NULL;
  const char *lines[4];
  JsonObject *answer, *asked, *arguments_call;
  const char *content, *arguments;

  /* "é" is two bytes: an odd bound would split one. */
  for (guint i = 0; i < 100000; i++)
    g_string_append (big, "\xc3\xa9");
  first = g_strdup ("{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"sessionId\":\"b1\",\"cwd\":\"/w\","
                    "\"message\":{\"role\":\"user\",\"content\":\"Go\"}}");
  call = g_strdup_printf ("{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:01Z\",\"message\":{\"id\":\"m1\","
                          "\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Write\","
                          "\"input\":{\"content\":\"%s\"}}]}}", big->str);
  result = g_strdup_printf ("{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:02Z\",\"message\":{\"role\":\"user\","
                            "\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"x%s\"}]}}",
                            big->str);
  lines[0] = first;
  lines[1] = call;
  lines[2] = result;
  lines[3] = NULL;
  path = pd_import_test_write (dir, "b1.jsonl", lines);

  pages = read_pages ("claude", path, NULL, NULL);
  messages = pd_transcript_pages_dup_messages (pages);
  g_assert_cmpuint (json_array_get_length (messages), ==, 3);

  answer = json_array_get_object_element (messages, 2);
  content = pd_json_get_string (answer, "content");
  g_assert_true (g_utf8_validate (content, -1, NULL));
  g_assert_cmpuint (strlen (content), <=, 4 * 1024);
  g_assert_cmpuint (strlen (content), >, 4 * 1024 - 4);
  g_assert_cmpint (pd_json_get_int (answer, "content_cut", 0), ==, (gint64) (1 + big->len - strlen (content)));

  asked = json_array_get_object_element (messages, 1);
  arguments_call = json_array_get_object_element (pd_json_get_array (asked, "tool_calls"), 0);
  arguments = pd_json_get_string (pd_json_get_object (arguments_call, "function"), "arguments");
  g_assert_true (g_utf8_validate (arguments, -1, NULL));
  g_assert_cmpuint (strlen (arguments), <=, 4 * 1024);
  g_assert_cmpint (pd_json_get_int (arguments_call, "arguments_cut", 0), >, 0);

  pd_test_remove_tree (dir);
}

/* Lines of the right type with members of the wrong shape (a message that
 * is a string, a number or missing; content of no known kind) are skipped
 * without a warning, and the lines around them still read. */
static void
test_claude_odd_shapes (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  const char *lines[] = {
    "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"sessionId\":\"o1\",\"cwd\":\"/w\","
    "\"message\":{\"role\":\"user\",\"content\":\"Go\"}}",
    "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:01Z\",\"message\":\"a string\"}",
    "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:02Z\",\"message\":7}",
    "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:03Z\"}",
    "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:04Z\",\"message\":{\"content\":{\"a\":1}}}",
    "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:05Z\",\"message\":\"a string\"}",
    "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:06Z\",\"message\":{\"id\":\"m1\",\"role\":\"assistant\","
    "\"content\":[{\"type\":\"text\",\"text\":\"Done\"}]}}",
    NULL,
  };
  g_autofree char *path = pd_import_test_write (dir, "o1.jsonl", lines);
  g_autoptr(PdTranscriptPages) pages = read_pages ("claude", path, NULL, NULL);
  g_autoptr(JsonArray) messages = pd_transcript_pages_dup_messages (pages);

  g_assert_cmpuint (json_array_get_length (messages), ==, 2);
  g_assert_cmpstr (pd_json_get_string (json_array_get_object_element (messages, 0), "content"), ==, "Go");
  g_assert_cmpstr (pd_json_get_string (json_array_get_object_element (messages, 1), "content"), ==, "Done");
  pd_test_remove_tree (dir);
}

/* Claude Code's records of a slash command typed in its terminal and of
 * what a local command printed: the Transcript showed their tags raw
 * (tried as a new user would).  The command shows as typed, its output as
 * the harness's, an empty output not at all; a prompt that only starts
 * with a tag is kept as written. */
static void
test_claude_commands (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  const char *lines[] = {
    "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"sessionId\":\"c1\",\"cwd\":\"/w\","
    "\"message\":{\"role\":\"user\",\"content\":\"<command-name>/clear</command-name>\\n"
    "            <command-message>clear</command-message>\\n            <command-args></command-args>\"}}",
    "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:01Z\","
    "\"message\":{\"role\":\"user\",\"content\":\"<local-command-stdout></local-command-stdout>\"}}",
    "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:02Z\",\"message\":{\"role\":\"user\",\"content\":"
    "[{\"type\":\"text\",\"text\":\"<command-message>compact is running\u2026</command-message>\\n"
    "<command-name>compact</command-name>\\n<command-args> keep the plan </command-args>\"}]}}",
    "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:03Z\","
    "\"message\":{\"role\":\"user\",\"content\":\"<local-command-stdout>Total cost: $0.12</local-command-stdout>\"}}",
    "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:04Z\","
    "\"message\":{\"role\":\"user\",\"content\":\"<b>bold</b> is markup\"}}",
    NULL,
  };
  g_autofree char *path = pd_import_test_write (dir, "c1.jsonl", lines);
  g_autoptr(PdTranscriptPages) pages = read_pages ("claude", path, NULL, NULL);
  g_autoptr(JsonArray) messages = pd_transcript_pages_dup_messages (pages);
  const char *expected[][2] = {
    { "user", "/clear" },
    { "user", "/compact keep the plan" },
    { "system", "Total cost: $0.12" },
    { "user", "<b>bold</b> is markup" },
  };

  g_assert_cmpuint (json_array_get_length (messages), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);

      g_assert_cmpstr (pd_json_get_string (message, "role"), ==, expected[i][0]);
      g_assert_cmpstr (pd_json_get_string (message, "content"), ==, expected[i][1]);
    }
  pd_test_remove_tree (dir);
}

/* Text written as an attacker would: a bidi override that reverses what
 * follows, a terminal escape, a zero-width space; the pages keep the text,
 * with line breaks, and show each such character instead of obeying it. */
static void
test_hostile_text (void)
{
  g_autofree char *dir = pd_import_test_tmpdir ();
  const char *lines[] = {
    "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"sessionId\":\"h1\",\"cwd\":\"/w\","
    "\"message\":{\"role\":\"user\",\"content\":\"Deploy \u202Etxt.exe now\\nand \\u001b[31mred\u200b\"}}",
    "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:00:01Z\",\"message\":{\"id\":\"m1\",\"role\":\"assistant\","
    "\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Bash\u202E\",\"input\":{\"command\":\"ls \u2066x\u2069\"}}]}}",
    "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:02Z\",\"message\":{\"role\":\"user\",\"content\":["
    "{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"a\u202Eb\"}]}}",
    NULL,
  };
  g_autofree char *path = pd_import_test_write (dir, "h1.jsonl", lines);
  g_autoptr(PdTranscriptPages) pages = read_pages ("claude", path, NULL, NULL);
  g_autoptr(JsonArray) messages = pd_transcript_pages_dup_messages (pages);
  g_autoptr(JsonNode) root = json_node_init_array (json_node_alloc (), messages);
  g_autofree char *text = json_to_string (root, FALSE);
  JsonObject *call;

  g_assert_null (strstr (text, "\xe2\x80\xae"));   /* U+202E */
  g_assert_null (strstr (text, "\xe2\x81\xa6"));   /* U+2066 */
  g_assert_null (strstr (text, "\xe2\x80\x8b"));   /* U+200B */
  g_assert_null (strstr (text, "\\u001b"));
  g_assert_cmpstr (pd_json_get_string (json_array_get_object_element (messages, 0), "content"), ==,
                   "Deploy <U+202E>txt.exe now\nand  [31mred<U+200B>");
  call = json_array_get_object_element (pd_json_get_array (json_array_get_object_element (messages, 1), "tool_calls"), 0);
  g_assert_cmpstr (pd_json_get_string (pd_json_get_object (call, "function"), "name"), ==, "Bash<U+202E>");
  g_assert_cmpstr (pd_json_get_string (json_array_get_object_element (messages, 2), "content"), ==, "a<U+202E>b");
  pd_test_remove_tree (dir);
}

/* An agent's session id goes into a command line: only a plain id does,
 * never an option or a second word. */
static void
test_resume_ids (void)
{
  const char *ids[] = { "--dangerously-skip-permissions", "-r", "a b", "a;rm -rf ~", "$(id)", "`id`", "a\nb", "", NULL };
  g_autofree char *dir = pd_import_test_tmpdir ();

  for (guint i = 0; ids[i]; i++)
    {
      g_autoptr(JsonNode) id = json_node_init_string (json_node_alloc (), ids[i]);
      g_autofree char *quoted = json_to_string (id, FALSE);
      g_autofree char *line = g_strdup_printf ("{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:00:00Z\",\"sessionId\":%s,"
                                               "\"cwd\":\"/w\",\"message\":{\"role\":\"user\",\"content\":\"Go\"}}", quoted);
      g_autofree char *name = g_strdup_printf ("hostile-%u.jsonl", i);
      const char *lines[] = { line, NULL };
      g_autofree char *path = pd_import_test_write (dir, name, lines);
      g_autoptr(PdTranscriptPages) pages = read_pages ("claude", path, NULL, NULL);
      g_auto(GStrv) argv = pd_transcript_pages_dup_resume_argv (pages);

      g_assert_null (argv);
    }
  {
    g_autoptr(PdTranscriptReader) reader = pd_transcript_reader_new_for_format ("opencode-db", "/nowhere", "-x", NULL);
    g_autofree char *workdir = NULL;
    g_auto(GStrv) argv = pd_transcript_reader_dup_resume_argv (reader, &workdir);

    g_assert_null (argv);
    g_assert_null (workdir);
  }
  pd_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-pages/claude/tasks", test_claude_tasks);
  g_test_add_func ("/pd/import-pages/claude/sidechain", test_claude_sidechain);
  g_test_add_func ("/pd/import-pages/claude/plan-mode", test_claude_plan_mode);
  g_test_add_func ("/pd/import-pages/codex", test_codex);
  g_test_add_func ("/pd/import-pages/opencode/storage", test_opencode_storage);
  g_test_add_func ("/pd/import-pages/opencode/database", test_opencode_database);
  g_test_add_func ("/pd/import-pages/shared", test_shared);
  g_test_add_func ("/pd/import-pages/bounds", test_bounds);
  g_test_add_func ("/pd/import-pages/claude/odd-shapes", test_claude_odd_shapes);
  g_test_add_func ("/pd/import-pages/claude/commands", test_claude_commands);
  g_test_add_func ("/pd/import-pages/hostile-text", test_hostile_text);
  g_test_add_func ("/pd/import-pages/resume-ids", test_resume_ids);

  return g_test_run ();
}
