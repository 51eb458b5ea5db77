/* test-engine-limits.c: the agent loop's limits, driven by recorded model
 * turns: trimming and compaction, the iteration, token and time budgets,
 * stalls, blocked streaks and reassessment, what it saves per turn and
 * says in events, a provider that gives out, bad arguments, cancelling.
 * Everything but the model is real, as in test-engine.c
 * (pd-test-engine.h).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-engine"

#include "config.h"

#include "pd-json-util.h"
#include "pd-run-note.h"
#include "pd-test-engine.h"

typedef EngineFixture Fixture;

/* Turns built in code: @n copies of @turn between @head and @tail. */
static char *
repeat_turns (const char *head,
              const char *turn,
              guint       n,
              const char *tail)
{
  GString *out = g_string_new ("{'turns':[");

  g_string_append (out, head);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (out, "%s%s", out->str[out->len - 1] == '[' ? "" : ",", turn);
  g_string_append_printf (out, "%s%s]}", out->str[out->len - 1] == '[' ? "" : ",", tail);
  return g_string_free (out, FALSE);
}

static guint
first_request_with (Fixture    *f,
                    const char *needle)
{
  for (guint i = 0; i < pd_recorder_n_requests (f->recorder); i++)
    {
      g_autoptr(JsonArray) request = pd_recorder_request (f->recorder, i);

      if (count_messages (request, "system", needle) > 0)
        return i;
    }
  return G_MAXUINT;
}

/* Context trimming: the plan message (and the digest in front of it)
 * survive; the event reports it. */
static void
test_trimming_protects_plan (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(JsonArray) last = NULL;
  g_autoptr(GString) big = g_string_new (NULL);
  PdEngineOptions options = { .context_budget = 3000 };
  guint n;

  /* About 1200 tokens each: the budget holds two and a half. */
  for (guint i = 0; i < 100; i++)
    g_string_append_printf (big, "line %03u of a large file that fills up the context\n", i);
  for (guint i = 1; i <= 4; i++)
    {
      g_autofree char *name = g_strdup_printf ("%u.txt", i);
      write_file (f, name, big->str);
    }

  engine_fixture_replay (f,
    "{'turns':["
    " {'tool_calls':[{'name':'plan','arguments':{'verb':'create','steps':['Read a','Read b','Read c']}}]},"
    " {'tool_calls':[{'name':'read_file','arguments':{'path':'1.txt'}}]},"
    " {'tool_calls':[{'name':'read_file','arguments':{'path':'2.txt'}}]},"
    " {'tool_calls':[{'name':'read_file','arguments':{'path':'3.txt'}}]},"
    " {'tool_calls':[{'name':'read_file','arguments':{'path':'4.txt'}}]},"
    " {'tool_calls':[{'name':'plan','arguments':{'verb':'update','updates':["
    "   {'id':'s1','status':'done'},{'id':'s2','status':'done'},{'id':'s3','status':'done'}]}}]},"
    " {'content':'Read them all.'}]}", &options);
  f->recorder->digest = g_strdup ("The agent read 1.txt and 2.txt.");

  result = engine_fixture_run (f, NULL, "Read three files");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);

  g_assert_cmpuint (count_events (f, PD_EVENT_CONTEXT_TRIMMED), >=, 1);
  g_assert_cmpint (event_int (f, PD_EVENT_CONTEXT_TRIMMED, 0, "tokens_after"), <,
                   event_int (f, PD_EVENT_CONTEXT_TRIMMED, 0, "tokens_before"));
  g_assert_cmpuint (f->recorder->side_calls, >=, 1);
  g_assert_true (json_object_get_boolean_member (pd_event_get_data (nth_event (f, PD_EVENT_CONTEXT_TRIMMED, 0)),
                                                 "compacted"));

  /* Every request after trimming still carries system, task, the digest
   * and the plan message, in that order at the front. */
  n = pd_recorder_n_requests (f->recorder);
  g_assert_cmpuint (n, ==, 7);
  last = pd_recorder_request (f->recorder, n - 1);
  g_assert_cmpstr (msg_role (last, 0), ==, "system");
  g_assert_cmpstr (msg_content (last, 1), ==, "Read three files");
  g_assert_true (g_str_has_prefix (msg_content (last, 2), PD_DIGEST_PREFIX));
  g_assert_nonnull (strstr (msg_content (last, 2), "The agent read 1.txt and 2.txt."));
  g_assert_true (g_str_has_prefix (msg_content (last, 2), PD_DIGEST_PREFIX));
  g_assert_nonnull (strstr (msg_content (last, 2), "Remaining plan steps: s1 [pending] Read a"));
  g_assert_cmpint (plan_message_index (last), ==, 3);
  /* (The last request follows the update that finished every step.) */
  g_assert_cmpstr (msg_content (last, 3), ==, "[Current plan: v2 \xe2\x80\x94 all 3 steps complete.]");
  for (guint i = 1; i < n; i++)
    {
      g_autoptr(JsonArray) request = pd_recorder_request (f->recorder, i);
      g_assert_cmpint (plan_message_index (request), >=, 2);
    }
}

/* Every tool result answers a call of the assistant message its exchange
 * starts with: what OpenAI-compatible servers insist on. */
static void
assert_well_formed (JsonArray *messages)
{
  JsonObject *assistant = NULL;

  for (guint i = 0; i < json_array_get_length (messages); i++)
    {
      JsonObject *message = json_array_get_object_element (messages, i);
      const char *role = pd_message_get_role (message);

      if (g_strcmp0 (role, "assistant") == 0)
        assistant = message;
      else if (g_strcmp0 (role, "tool") == 0)
        {
          const char *id = json_object_get_string_member (message, "tool_call_id");
          gboolean found = FALSE;

          if (assistant == NULL || !json_object_has_member (assistant, "tool_calls"))
            g_error ("message %u: a tool result with no assistant tool calls before it", i);
          for (guint j = 0; j < json_array_get_length (json_object_get_array_member (assistant, "tool_calls")); j++)
            found |= g_strcmp0 (json_object_get_string_member (
                                  json_array_get_object_element (json_object_get_array_member (assistant, "tool_calls"), j),
                                  "id"), id) == 0;
          if (!found)
            g_error ("message %u: a tool result for %s, which the assistant before it did not call", i, id);
        }
      else
        assistant = NULL;
    }
}

/* Compaction never separates tool results from the call they answer, even
 * when the newest batch is the big one. */
static void
test_compaction_keeps_exchanges_whole (Fixture       *f,
                                       gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(GString) big = g_string_new (NULL);
  PdEngineOptions options = { .context_budget = 3000 };

  for (guint i = 0; i < 100; i++)
    g_string_append_printf (big, "line %03u of a large file that fills up the context\n", i);
  for (guint i = 1; i <= 4; i++)
    {
      g_autofree char *name = g_strdup_printf ("%u.txt", i);
      write_file (f, name, big->str);
    }

  engine_fixture_replay (f,
    "{'turns':["
    " {'tool_calls':[{'name':'plan','arguments':{'verb':'create','steps':['Read']}}]},"
    " {'tool_calls':[{'name':'list_dir','arguments':{}}]},"
    " {'tool_calls':[{'name':'read_file','arguments':{'path':'1.txt'}},{'name':'read_file','arguments':{'path':'2.txt'}},"
    "                {'name':'read_file','arguments':{'path':'3.txt'}},{'name':'read_file','arguments':{'path':'4.txt'}}]},"
    " {'tool_calls':[" COMPLETE ("s1") "]},"
    " {'content':'Read.'}]}", &options);
  f->recorder->digest = g_strdup ("Digest.");

  result = engine_fixture_run (f, NULL, "Read four files");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
  g_assert_cmpuint (count_events (f, PD_EVENT_CONTEXT_TRIMMED), >=, 1);
  g_assert_cmpuint (f->recorder->side_calls, >=, 1);
  for (guint i = 1; i < pd_recorder_n_requests (f->recorder); i++)
    {
      g_autoptr(JsonArray) request = pd_recorder_request (f->recorder, i);
      g_assert_cmpint (plan_message_index (request), >=, 2);
      assert_well_formed (request);
    }
}

/* Compaction drops old exchanges from the stored transcript; what a call
 * asked stays in its stored tool_call_started event, redacted: an approved
 * `touch` vanished from the session after eight reads (tried as an attacker
 * would). */
static void
test_compaction_keeps_record (Fixture       *f,
                              gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(JsonArray) stored = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GString) big = g_string_new (NULL);
  g_autoptr(GString) summaries = g_string_new (NULL);
  g_autofree char *messages = NULL;
  g_autofree char *evidence = NULL;
  PdEngineOptions options = { .context_budget = 3000 };

  for (guint i = 0; i < 100; i++)
    g_string_append_printf (big, "line %03u of a large file that fills up the context\n", i);
  for (guint i = 1; i <= 4; i++)
    {
      g_autofree char *name = g_strdup_printf ("%u.txt", i);
      write_file (f, name, big->str);
    }

  engine_fixture_replay (f,
    "{'turns':["
    " {'tool_calls':[{'name':'shell','arguments':{'command':'touch EVIDENCE-FILE'}}]},"
    " {'tool_calls':[{'name':'shell','arguments':{'command':'PGPASSWORD=Zq9Secr3tXy true'}}]},"
    " {'tool_calls':[{'name':'read_file','arguments':{'path':'1.txt'}}]},"
    " {'tool_calls':[{'name':'read_file','arguments':{'path':'2.txt'}}]},"
    " {'tool_calls':[{'name':'read_file','arguments':{'path':'3.txt'}}]},"
    " {'tool_calls':[{'name':'read_file','arguments':{'path':'4.txt'}}]},"
    " {'content':'Done.'}]}", &options);
  f->recorder->digest = g_strdup ("Digest.");
  /* Events stored with the session, as the CLI and serve store them. */
  pd_engine_store_events (f->bus, f->store);

  result = engine_fixture_run (f, NULL, "Touch and read");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
  evidence = g_build_filename (f->workdir, "EVIDENCE-FILE", NULL);
  g_assert_true (g_file_test (evidence, G_FILE_TEST_EXISTS));

  /* The exchange is gone from the stored messages… */
  g_assert_cmpuint (count_events (f, PD_EVENT_CONTEXT_TRIMMED), >=, 1);
  stored = stored_messages (f, result->session_id);
  {
    g_autoptr(JsonNode) array = json_node_init_array (json_node_alloc (), stored);

    messages = pd_json_to_string (array, FALSE);
  }
  g_assert_null (strstr (messages, "EVIDENCE-FILE"));

  /* …and in the stored events, the secret masked there and live alike. */
  events = pd_session_store_list_events (f->store, result->session_id, PD_EVENT_TOOL_CALL_STARTED, 0, 100, NULL);
  g_assert_nonnull (events);
  for (guint i = 0; i < events->len; i++)
    {
      PdStoredEvent *stored_event = g_ptr_array_index (events, i);
      g_autoptr(JsonNode) node = json_from_string (stored_event->event_json, NULL);
      JsonObject *event_data = node != NULL ? pd_json_get_object (json_node_get_object (node), "data") : NULL;

      if (event_data != NULL && json_object_has_member (event_data, "args_summary"))
        g_string_append_printf (summaries, "%s\n", json_object_get_string_member (event_data, "args_summary"));
    }
  g_assert_nonnull (strstr (summaries->str, "shell: touch EVIDENCE-FILE\n"));
  g_assert_nonnull (strstr (summaries->str, "shell: PGPASSWORD=[REDACTED] true\n"));
  g_assert_nonnull (strstr (summaries->str, "read_file: 4.txt\n"));
  g_mutex_lock (&f->events_lock);
  for (guint i = 0; i < f->events->len; i++)
    {
      g_autofree char *text = pd_event_to_json (g_ptr_array_index (f->events, i));

      g_assert_null (strstr (text, "Zq9Secr3tXy"));
    }
  g_mutex_unlock (&f->events_lock);
}

/* Budgets end the run cleanly: remaining plan steps appended, a
 * budget_exceeded event, the session saved and idle. */
static void
test_budget_iterations (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(JsonArray) stored = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  const char *note;
  PdEngineOptions options = { .max_iterations = 2 };

  engine_fixture_replay (f,
    "{'turns':["
    " {'tool_calls':[{'name':'plan','arguments':{'verb':'create','steps':['Alpha','Beta','Gamma']}}]},"
    " {'tool_calls':[" COMPLETE ("s1") ",{'name':'plan','arguments':{'verb':'update','updates':[{'id':'s3','status':'blocked'}]}}]},"
    " {'content':'not reached'}]}", &options);
  /* Events stored with the session, as the CLI and serve store them. */
  pd_engine_store_events (f->bus, f->store);

  result = engine_fixture_run (f, NULL, "Three things");
  g_assert_cmpint (result->status, ==, PD_RUN_BUDGET_EXCEEDED);
  g_assert_cmpstr (result->budget_name, ==, "iterations");
  g_assert_cmpuint (result->iterations, ==, 2);
  g_assert_cmpuint (pd_recorder_n_requests (f->recorder), ==, 2);
  g_assert_nonnull (strstr (result->final_text, "iterations budget is exhausted (2 of 2)"));
  g_assert_nonnull (strstr (result->final_text, "[plan remaining: s2 pending, s3 blocked]"));
  /* Ids and statuses only. */
  g_assert_null (strstr (result->final_text, "Beta"));

  g_assert_cmpuint (count_events (f, PD_EVENT_BUDGET_EXCEEDED), ==, 1);
  g_assert_cmpstr (event_string (f, PD_EVENT_BUDGET_EXCEEDED, 0, "limit_name"), ==, "iterations");
  g_assert_cmpint (event_int (f, PD_EVENT_BUDGET_EXCEEDED, 0, "limit"), ==, 2);
  /* Of the last turn that ran, the second: it said the third, which never
   * began, while the run said "after 2 iterations" (tried as a new user
   * would, on the Events page). */
  g_assert_cmpuint (pd_event_get_iteration (nth_event (f, PD_EVENT_BUDGET_EXCEEDED, 0)), ==, 2);
  g_assert_cmpuint (count_events (f, PD_EVENT_RUN_COMPLETED), ==, 1);
  g_assert_cmpuint (count_events (f, PD_EVENT_RUN_FAILED), ==, 0);

  /* The note for the model wraps what came from the plan; what a person
   * is told (run's stderr, serve's result) is that, plain. */
  g_assert_null (strstr (result->final_text, "untrusted_content"));
  stored = stored_messages (f, result->session_id);
  note = msg_content (stored, json_array_get_length (stored) - 1);
  g_assert_true (g_str_has_prefix (note, "[plandeck: the run stopped because its iterations budget is exhausted"));
  g_assert_nonnull (strstr (note, "source=\"plan_remaining\">\n[plan remaining: s2 pending, s3 blocked]\n</untrusted_content_"));
  /* In a person's words, the same for the Transcript's Notice and run's
   * stderr: the Transcript showed the engine's (tried as a new user would). */
  {
    g_autofree char *said = pd_run_note_to_text (note);

    g_assert_cmpstr (said, ==, "The run stopped: its iteration budget ran out (2 of 2)\n"
                               "Steps left: s2 pending, s3 blocked");
  }
  {
    g_autofree char *said = pd_run_note_to_text ("[plandeck: the run stopped because its time budget is exhausted "
                                                 "(2.0 s of 2 s).]\n[plan remaining: s1 in_progress, s2 pending]");

    g_assert_cmpstr (said, ==, "The run stopped: its time budget ran out (2.0 s of 2 s)\n"
                               "Steps left: s1 in progress, s2 pending");
  }
  info = pd_session_store_get (f->store, result->session_id, NULL);
  g_assert_cmpint (info->status, ==, PD_SESSION_STATUS_IDLE);
  /* Idle, but stopped short: its run_completed says which budget, and the
   * session's listing says it stopped (the Overview's card), and which
   * budget (the Now page names it). */
  g_assert_cmpstr (event_string (f, PD_EVENT_RUN_COMPLETED, 0, "budget_exceeded"), ==, "iterations");
  g_assert_cmpstr (info->stopped, ==, "budget");
  g_assert_cmpstr (info->stopped_error, ==, "iterations");
}

static void
test_budget_tokens (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  PdEngineOptions options = { .max_tokens = 100 };

  engine_fixture_replay (f,
    "{'turns':["
    " {'tool_calls':[{'name':'plan','arguments':{'verb':'create','steps':['Alpha']}}],"
    "  'input_tokens':80,'output_tokens':30},"
    " {'content':'not reached'}]}", &options);

  result = engine_fixture_run (f, NULL, "One thing");
  g_assert_cmpint (result->status, ==, PD_RUN_BUDGET_EXCEEDED);
  g_assert_cmpstr (result->budget_name, ==, "tokens");
  g_assert_cmpuint (pd_recorder_n_requests (f->recorder), ==, 1);
  g_assert_nonnull (strstr (result->final_text, "(110 of 100)"));
  g_assert_nonnull (strstr (result->final_text, "[plan remaining: s1 pending]"));
  g_assert_cmpint (event_int (f, PD_EVENT_BUDGET_EXCEEDED, 0, "observed"), ==, 110);
}

static void
test_budget_wall_time (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  /* Wide margins: under valgrind, setting up takes a while.  The second
   * answer would come after the budget: the call is cut there (a model
   * call no longer runs past the budget, nor does a wait to retry one). */
  PdEngineOptions options = { .max_wall_ms = 3000 };

  engine_fixture_replay (f,
    "{'turns':["
    " {'tool_calls':[{'name':'plan','arguments':{'verb':'create','steps':['Alpha']}}]},"
    " {'content':'not reached','delay_ms':10000}]}", &options);

  result = engine_fixture_run (f, NULL, "One slow thing");
  g_assert_cmpint (result->status, ==, PD_RUN_BUDGET_EXCEEDED);
  g_assert_cmpstr (result->budget_name, ==, "wall_time");
  g_assert_cmpuint (pd_recorder_n_requests (f->recorder), ==, 2);
  g_assert_nonnull (strstr (result->final_text, "[plan remaining: s1 pending]"));
  g_assert_cmpstr (event_string (f, PD_EVENT_BUDGET_EXCEEDED, 0, "limit_name"), ==, "wall_time");
  g_assert_cmpint (event_int (f, PD_EVENT_BUDGET_EXCEEDED, 0, "observed"), >=, 3000);
  /* Told a person by name and in seconds: it read "its wall_time budget
   * is exhausted (3001 of 3000)" (tried as a new user would). */
  g_assert_nonnull (strstr (result->final_text, "[plandeck: the run stopped because its time budget is exhausted ("));
  g_assert_nonnull (strstr (result->final_text, " s of 3 s).]"));
  g_assert_null (strstr (result->final_text, "wall_time"));
}

/* Stall: 3 identical calls, then 6 more, then 12 more; plan pointers. */
static void
test_stall_intervals (Fixture       *f,
                      gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(JsonArray) stored = NULL;
  g_autofree char *recording = repeat_turns (
    "{'tool_calls':[{'name':'plan','arguments':{'verb':'create','steps':['Look','Write']}}]},"
    "{'tool_calls':[{'name':'plan','arguments':{'verb':'update','updates':[{'id':'s1','status':'in_progress'}]}}]}",
    "{'tool_calls':[{'name':'list_dir','arguments':{}}]}", 21,
    "{'tool_calls':[" COMPLETE ("s1") "," COMPLETE ("s2") "]},{'content':'Looked.'}");

  engine_fixture_replay (f, recording, NULL);
  result = engine_fixture_run (f, NULL, "Look around");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);

  stored = stored_messages (f, result->session_id);
  g_assert_cmpuint (count_messages (stored, "system", "[plandeck stall:"), ==, 3);
  /* Request 0, 1 are before the list_dir calls; call k is in turn k+2 and
   * its hint reaches request k+2. */
  g_assert_cmpuint (first_request_with (f, "[plandeck stall: repeated identical call (3xlist_dir)] "
                                           "The same call keeps producing the same result. Change the approach "
                                           "instead of repeating it. Plan: in_progress=s1 next_pending=s2."), ==, 5);
  g_assert_cmpuint (first_request_with (f, "(9xlist_dir, again)"), ==, 11);
  g_assert_cmpuint (first_request_with (f, "(21xlist_dir, again)"), ==, 23);
}

/* Writes that stall escalate: stop retrying that class; next_non_mutating.
 * (The first write creates the file, the next three replace it: those are
 * the identical calls.) */
static void
test_stall_write_escalation (Fixture       *f,
                             gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  g_autofree char *recording = repeat_turns (
    "{'tool_calls':[{'name':'plan','arguments':{'verb':'create','steps':['Write','Test']}}]}",
    "{'tool_calls':[{'name':'write_file','arguments':{'path':'x.txt','content':'same'}}]}", 4,
    "{'content':'Stuck.'},{'content':'Stuck.'}");

  engine_fixture_replay (f, recording, NULL);
  result = engine_fixture_run (f, NULL, "Write x");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
  g_assert_cmpuint (first_request_with (f, "[plandeck stall: repeated identical call (3xwrite_file)] The same call "
                                           "keeps producing the same outcome. Stop retrying this class of action"), ==, 5);
  g_assert_cmpuint (first_request_with (f, "next_non_mutating=s1"), ==, 5);
}

/* Three consecutive transitions to blocked: a hint and plan_blocked, once. */
static void
test_blocked_streak (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(JsonArray) stored = NULL;

#define BLOCK(id) "{'tool_calls':[{'name':'plan','arguments':{'verb':'update','updates':[{'id':'" id "','status':'blocked','note':'no access'}]}}]}"
  engine_fixture_replay (f,
    "{'turns':["
    " {'tool_calls':[{'name':'plan','arguments':{'verb':'create','steps':['Secret title one','B','C','D','E']}}]},"
    BLOCK ("s1") "," BLOCK ("s2") "," BLOCK ("s3") "," BLOCK ("s4") ","
    " {'content':'Blocked.'},{'content':'Blocked.'}]}", NULL);
#undef BLOCK
  result = engine_fixture_run (f, NULL, "Blocked work");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);

  g_assert_cmpuint (count_events (f, PD_EVENT_PLAN_BLOCKED), ==, 1);
  g_assert_cmpint (event_int (f, PD_EVENT_PLAN_BLOCKED, 0, "steps"), ==, 5);
  g_assert_cmpint (event_int (f, PD_EVENT_PLAN_BLOCKED, 0, "blocked"), ==, 3);
  g_assert_cmpint (event_int (f, PD_EVENT_PLAN_BLOCKED, 0, "version"), ==, 4);
  g_assert_cmpuint (first_request_with (f, "three steps in a row were marked blocked"), ==, 4);
  stored = stored_messages (f, result->session_id);
  g_assert_cmpuint (count_messages (stored, "system", "three steps in a row were marked blocked"), ==, 1);
}

/* The same check failing in three batches asks for a reassessment. */
static void
test_reassessment_repeated_check (Fixture       *f,
                                  gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  PdEvent *event;

#define FAIL_CHECK "{'tool_calls':[{'name':'shell','arguments':{'command':'cat missing.txt'}}]}"
  engine_fixture_replay (f,
    "{'turns':["
    " {'tool_calls':[{'name':'plan','arguments':{'verb':'create','steps':[{'id':'t','title':'Tests pass',"
    "   'checks':[{'id':'c','description':'it','tool':'shell','arguments':{'command':'cat missing.txt'}}]}]}}]},"
    FAIL_CHECK "," FAIL_CHECK "," FAIL_CHECK ","
    " {'content':'Giving up.'},{'content':'Giving up.'}]}", NULL);
#undef FAIL_CHECK
  result = engine_fixture_run (f, NULL, "Make tests pass");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);

  g_assert_cmpuint (count_events (f, PD_EVENT_PLAN_REASSESSMENT), ==, 1);
  event = nth_event (f, PD_EVENT_PLAN_REASSESSMENT, 0);
  g_assert_cmpuint (pd_event_get_iteration (event), ==, 4);
  g_assert_cmpstr (event_string (f, PD_EVENT_PLAN_REASSESSMENT, 0, "reason"), ==, "repeated_check_failure");
  g_assert_cmpint (event_int (f, PD_EVENT_PLAN_REASSESSMENT, 0, "failure_batches"), ==, 3);
  g_assert_cmpuint (first_request_with (f, "[plandeck plan reassessment: repeated_check_failure]"), ==, 4);
  /* The answer is unverified. */
  g_assert_nonnull (strstr (result->final_text, "verification incomplete"));
}

/* Varied failures of one class: plan-only batches do not reset the streak;
 * at most two hints a run, three batches apart. */
static void
test_reassessment_varied_failures (Fixture       *f,
                                   gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(GString) recording = g_string_new ("{'turns':["
    "{'tool_calls':[{'name':'plan','arguments':{'verb':'create','steps':['Find the file','Fix it']}}]},"
    "{'tool_calls':[{'name':'read_file','arguments':{'path':'missing-0.txt'}}]},"
    "{'tool_calls':[{'name':'plan','arguments':{'verb':'update','updates':[{'id':'s1','status':'in_progress'}]}}]}");
  guint first, second;

  for (guint i = 1; i <= 14; i++)
    g_string_append_printf (recording, ",{'tool_calls':[{'name':'read_file','arguments':{'path':'missing-%u.txt'}}]}", i);
  g_string_append (recording, ",{'content':'Nothing found.'},{'content':'Nothing found.'}]}");

  engine_fixture_replay (f, recording->str, NULL);
  result = engine_fixture_run (f, NULL, "Find it");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);

  g_assert_cmpuint (count_events (f, PD_EVENT_PLAN_REASSESSMENT), ==, 2);
  g_assert_cmpstr (event_string (f, PD_EVENT_PLAN_REASSESSMENT, 0, "reason"), ==, "varied_tool_failures");
  g_assert_cmpstr (event_string (f, PD_EVENT_PLAN_REASSESSMENT, 1, "reason"), ==, "varied_tool_failures");
  first = pd_event_get_iteration (nth_event (f, PD_EVENT_PLAN_REASSESSMENT, 0));
  second = pd_event_get_iteration (nth_event (f, PD_EVENT_PLAN_REASSESSMENT, 1));
  /* Failing batches 2, 4, 5 (3 is plan-only). */
  g_assert_cmpuint (first, ==, 5);
  g_assert_cmpuint (second, >=, first + 3);
  g_assert_cmpuint (first_request_with (f, "[plandeck plan reassessment: varied_tool_failures]"), ==, 5);
}

/* A denied check never ran: the answer must not look verified. */
static void
test_denied_check (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(PdPlanState) state = NULL;

  pd_approver_set_policy (f->approver, PD_APPROVAL_POLICY_DENY);
  engine_fixture_replay (f,
    "{'turns':["
    " {'tool_calls':[" CREATE_CHECKED "]},"
    " {'tool_calls':[" RUN_CHECK "]},"
    " {'tool_calls':[" COMPLETE ("build") "," COMPLETE ("docs") "]},"
    " {'content':'Done.'}]}", NULL);
  result = engine_fixture_run (f, NULL, "Check hello.txt");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);

  g_assert_cmpstr (event_string (f, PD_EVENT_TOOL_CALL_FAILED, 0, "error_class"), ==, "denied");
  state = pd_plan_store_snapshot (f->plan_store);
  g_assert_cmpint (step_check (state, "build", 0)->status, ==, PD_PLAN_CHECK_BLOCKED);
  /* A blocked check does not gate completion (seed 000)... */
  g_assert_cmpint (plan_step (state, "build")->status, ==, PD_PLAN_STEP_DONE);
  /* ...but the answer it rests on is not verified. */
  g_assert_true (g_str_has_prefix (result->final_text, "Done.\n\n[plandeck verification incomplete: 1 "));
  g_assert_nonnull (strstr (result->final_text, "\"build/cat\" (denied)"));
}

/* Plan events carry counts and versions only, never titles or notes; no
 * event carries tool arguments or output. */
static void
test_event_minimality (Fixture       *f,
                       gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;

  write_file (f, "secret.txt", "OUTPUT-SECRET");
  engine_fixture_replay (f,
    "{'turns':["
    " {'tool_calls':[{'name':'plan','arguments':{'verb':'create','steps':["
    "   {'id':'s1','title':'TITLE-SECRET','note':'NOTE-SECRET'}]}}]},"
    " {'tool_calls':[{'name':'plan','arguments':{'verb':'update','updates':[{'id':'s1','note':'NOTE2-SECRET'}]}},"
    "                {'name':'read_file','arguments':{'path':'secret.txt'}}]},"
    " {'tool_calls':[{'name':'plan','arguments':{'verb':'bogus','x':'ARG-SECRET'}}]},"
    " {'tool_calls':[" COMPLETE ("s1") "]},"
    " {'content':'ok'}]}", NULL);
  result = engine_fixture_run (f, NULL, "Secrets");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);

  /* A note-only update bumps the version: plan_updated with counts. */
  g_assert_cmpuint (count_events (f, PD_EVENT_PLAN_UPDATED), ==, 2);
  {
    JsonObject *data0 = pd_event_get_data (nth_event (f, PD_EVENT_PLAN_UPDATED, 0));
    const char *allowed[] = { "steps", "done", "in_progress", "blocked", "pending", "version" };
    g_autoptr(GList) members = json_object_get_members (data0);

    g_assert_cmpuint (g_list_length (members), ==, G_N_ELEMENTS (allowed));
    for (guint i = 0; i < G_N_ELEMENTS (allowed); i++)
      g_assert_true (json_object_has_member (data0, allowed[i]));
    g_assert_cmpint (json_object_get_int_member (data0, "pending"), ==, 1);
    g_assert_cmpint (json_object_get_int_member (data0, "version"), ==, 2);
  }

  g_mutex_lock (&f->events_lock);
  for (guint i = 0; i < f->events->len; i++)
    {
      g_autofree char *text = pd_event_to_json (g_ptr_array_index (f->events, i));

      g_assert_null (strstr (text, "SECRET"));
    }
  g_mutex_unlock (&f->events_lock);
}

/* Every turn is saved before the next model request; the session exists
 * from the first one. */
static void
check_saved_before_request (PdRecorder *recorder,
                            guint       index,
                            gpointer    user_data)
{
  Fixture *f = user_data;
  g_autoptr(GPtrArray) sessions = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) request = pd_recorder_request (recorder, index);
  g_autoptr(JsonArray) stored = NULL;
  PdSessionInfo *info;
  guint total = 0;

  sessions = pd_session_store_list (f->store, NULL, FALSE, 0, 10, &total, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (total, ==, 1);
  info = g_ptr_array_index (sessions, 0);
  g_assert_cmpint (info->status, ==, PD_SESSION_STATUS_RUNNING);
  stored = stored_messages (f, info->id);
  /* Stored: everything the request shows (hints are added just before a
   * request and saved with the next turn). */
  g_assert_cmpuint (json_array_get_length (stored), >=, 2);
  for (guint i = 0; i < json_array_get_length (stored); i++)
    {
      JsonNode *a = json_array_get_element (stored, i);
      JsonNode *b = json_array_get_element (request, i);

      if (!json_node_equal (a, b))
        {
          g_autofree char *ta = object_text (json_node_get_object (a));
          g_autofree char *tb = object_text (json_node_get_object (b));
          g_assert_cmpstr (ta, ==, tb);
        }
    }
  g_assert_cmpuint (json_array_get_length (request) - json_array_get_length (stored), <=, 1);
}

static void
test_per_turn_save (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(PdSessionInfo) info = NULL;

  engine_fixture_replay (f,
    "{'turns':["
    " {'tool_calls':[{'name':'plan','arguments':{'verb':'create','steps':['A']}}],'input_tokens':5,'output_tokens':1},"
    " {'tool_calls':[{'name':'list_dir','arguments':{}}],'input_tokens':5,'output_tokens':1},"
    " {'content':'Early answer.','input_tokens':5,'output_tokens':1},"
    " {'tool_calls':[" COMPLETE ("s1") "],'input_tokens':5,'output_tokens':1},"
    " {'content':'ok','input_tokens':5,'output_tokens':1}]}", NULL);
  f->recorder->hook = check_saved_before_request;
  f->recorder->hook_data = f;
  result = engine_fixture_run (f, NULL, "Save me");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
  g_assert_cmpuint (pd_recorder_n_requests (f->recorder), ==, 5);

  info = pd_session_store_get (f->store, result->session_id, NULL);
  g_assert_cmpint (info->status, ==, PD_SESSION_STATUS_IDLE);
  g_assert_cmpint (info->input_tokens, ==, 25);
  g_assert_cmpint (info->turns, ==, 1);
  {
    g_autoptr(JsonArray) stored = stored_messages (f, result->session_id);
    g_assert_cmpuint (info->n_messages, ==, json_array_get_length (stored));
  }
}

/* Provider failures end the run with a recorded outcome. */
static void
test_provider_exhausted (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(JsonArray) stored = NULL;
  g_autoptr(PdSessionInfo) info = NULL;

  engine_fixture_replay (f, "{'turns':[{'tool_calls':[{'name':'list_dir','arguments':{}}]}]}", NULL);
  result = engine_fixture_run (f, NULL, "Fail later");
  g_assert_cmpint (result->status, ==, PD_RUN_FAILED);
  g_assert_nonnull (strstr (result->error_message, "recorded turns"));
  g_assert_true (g_str_has_prefix (result->final_text, "[plandeck: the model provider failed: replay: "));
  g_assert_cmpuint (count_events (f, PD_EVENT_RUN_FAILED), ==, 1);
  g_assert_cmpuint (count_events (f, PD_EVENT_RUN_COMPLETED), ==, 0);
  g_assert_cmpstr (event_string (f, PD_EVENT_RUN_FAILED, 0, "error_class"), ==, "failed");

  info = pd_session_store_get (f->store, result->session_id, NULL);
  g_assert_cmpint (info->status, ==, PD_SESSION_STATUS_FAILED);
  stored = stored_messages (f, result->session_id);
  g_assert_cmpuint (json_array_get_length (stored), ==, 5);
  g_assert_cmpstr (msg_content (stored, 4), ==, result->final_text);
}

static void
test_bad_tool_arguments (Fixture       *f,
                         gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(PdRunResult) failed = NULL;
  g_autoptr(JsonArray) second = NULL;

  engine_fixture_replay (f,
    "{'turns':["
    " {'tool_calls':[{'name':'write_file','arguments':'{path: oops'}]},"
    " {'content':'Recovered.'}]}", NULL);
  result = engine_fixture_run (f, NULL, "Write something");
  g_assert_cmpint (result->status, ==, PD_RUN_COMPLETED);
  g_assert_cmpstr (result->final_text, ==, "Recovered.");
  second = pd_recorder_request (f->recorder, 1);
  g_assert_cmpuint (count_messages (second, "system", "could not be used"), ==, 1);

  /* Three in a row: a failed run, saved. */
  g_ptr_array_set_size (f->events, 0);
  engine_fixture_replay (f,
    "{'turns':["
    " {'tool_calls':[{'name':'write_file','arguments':'[1]'}]},"
    " {'tool_calls':[{'name':'write_file','arguments':'nope'}]},"
    " {'tool_calls':[{'name':'write_file','arguments':'{'}]},"
    " {'content':'never'}]}", NULL);
  failed = engine_fixture_run (f, NULL, "Write something else");
  g_assert_cmpint (failed->status, ==, PD_RUN_FAILED);
  g_assert_nonnull (failed->error_message);
  g_assert_cmpuint (pd_recorder_n_requests (f->recorder), ==, 3);
  g_assert_cmpuint (count_events (f, PD_EVENT_RUN_FAILED), ==, 1);
  {
    g_autoptr(JsonArray) stored = stored_messages (f, failed->session_id);
    g_assert_cmpuint (count_messages (stored, "system", "the run failed"), ==, 1);
  }
}

/* Cancelling ends the run as cancelled, saved. */
static void
test_cancelled (Fixture       *f,
                gconstpointer  data)
{
  g_autoptr(PdRunResult) result = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;

  engine_fixture_replay (f, "{'turns':[{'content':'slow','delay_ms':5000}]}", NULL);
  pd_engine_store_events (f->bus, f->store);
  g_cancellable_cancel (cancellable);
  result = pd_engine_run (f->engine, NULL, "Stop", cancellable, &error);
  g_assert_no_error (error);
  g_assert_cmpint (result->status, ==, PD_RUN_CANCELLED);
  pd_event_bus_flush (f->bus);
  g_assert_cmpstr (event_string (f, PD_EVENT_RUN_FAILED, 0, "error_class"), ==, "cancelled");
  {
    g_autoptr(JsonArray) stored = stored_messages (f, result->session_id);
    g_assert_cmpuint (count_messages (stored, "system", "the run was cancelled"), ==, 1);
  }
  /* Idle, and its listing says the run was cancelled (the Overview's card). */
  {
    g_autoptr(PdSessionInfo) info = pd_session_store_get (f->store, result->session_id, NULL);

    g_assert_cmpint (info->status, ==, PD_SESSION_STATUS_IDLE);
    g_assert_cmpstr (info->stopped, ==, "cancelled");
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/pd/engine/" path, EngineFixture, NULL, engine_fixture_test_setup, func, engine_fixture_test_teardown)
#define ADD_NO_PLAN(path, func) \
  g_test_add ("/pd/engine/" path, EngineFixture, GINT_TO_POINTER (1), engine_fixture_test_setup, func, \
              engine_fixture_test_teardown)

  ADD ("trimming-protects-plan", test_trimming_protects_plan);
  ADD ("compaction-keeps-exchanges-whole", test_compaction_keeps_exchanges_whole);
  ADD ("compaction-keeps-record", test_compaction_keeps_record);
  ADD ("budget/iterations", test_budget_iterations);
  ADD ("budget/tokens", test_budget_tokens);
  ADD ("budget/wall-time", test_budget_wall_time);
  ADD ("stall/intervals", test_stall_intervals);
  ADD ("stall/write-escalation", test_stall_write_escalation);
  ADD ("blocked-streak", test_blocked_streak);
  ADD ("reassessment/repeated-check", test_reassessment_repeated_check);
  ADD ("reassessment/varied-failures", test_reassessment_varied_failures);
  ADD ("denied-check", test_denied_check);
  ADD ("event-minimality", test_event_minimality);
  ADD ("per-turn-save", test_per_turn_save);
  ADD ("provider/exhausted", test_provider_exhausted);
  ADD ("provider/bad-arguments", test_bad_tool_arguments);
  ADD ("cancelled", test_cancelled);

  return g_test_run ();
}
