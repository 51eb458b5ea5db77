/* test-import-pages-bounded.c: the pages of a transcript of many small plan
 * calls cost what they show, not what the transcript holds.  A Qwen Code
 * session whose todo_write is called thousands of times (as a 210 MB one
 * was, tried as an attacker would): the plan now and how to continue are
 * read as an import reads (a long transcript only at its end), no pages
 * built.  Figures are bench-import-pages' (tests/README.md); nothing here
 * asserts a time.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define _GNU_SOURCE
#define G_LOG_DOMAIN "test-import-pages-bounded"

#include "config.h"

#include <string.h>

#include "pd-event.h"
#include "pd-import-index.h"
#include "pd-import-private.h"
#include "pd-import-test.h"
#include "pd-session-reads.h"
#include "pd-test-long-session.h"
#include "pd-transcript-pages-private.h"

#include "pd-test-valgrind.h"

#define REC(type, rest) "{\"uuid\":\"u\",\"sessionId\":\"s1\",\"timestamp\":\"2026-04-02T08:00:00.000Z\",\"type\":\"" type "\",\"cwd\":\"/w\"" rest "}"
#define USER(text) REC ("user", ",\"message\":{\"role\":\"user\",\"parts\":[{\"text\":\"" text "\"}]}")
#define CALL(id, todos) REC ("assistant", ",\"message\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"id\":\"" id "\",\"name\":\"todo_write\",\"args\":{\"todos\":" todos "}}}]}")
#define RESULT(id) REC ("tool_result", ",\"message\":{\"role\":\"user\",\"parts\":[{\"functionResponse\":{\"id\":\"" id "\",\"name\":\"todo_write\",\"response\":{\"output\":\"ok\"}}}]},\"toolCallResult\":{\"callId\":\"" id "\",\"status\":\"success\"}")
#define TODOS_AB "[{\"id\":\"1\",\"content\":\"A\",\"status\":\"completed\"},{\"id\":\"2\",\"content\":\"B\",\"status\":\"in_progress\"}]"
#define TODOS_ABC "[{\"id\":\"1\",\"content\":\"A\",\"status\":\"completed\"},{\"id\":\"2\",\"content\":\"B\",\"status\":\"completed\"},{\"id\":\"3\",\"content\":\"C\",\"status\":\"pending\"}]"

/* Plan calls in the generated transcript: each changes the list.  More
 * than the history keeps, which is what the bounds are about; under
 * valgrind only a hundred more, since each part the Transcript page reads
 * replays the file from its start (3 000 calls took over four minutes of
 * the CI's valgrind run). */
#define N_CALLS (RUNNING_ON_VALGRIND ? PD_TRANSCRIPT_PAGES_HISTORY_MAX + 100 : 3000)

typedef PdLongSession ManyCalls;

/* A Qwen Code session of N_CALLS todo_write calls (about 2 MB), imported
 * as a long transcript (over a threshold of 64 KiB). */
static void
many_calls_open (ManyCalls *f)
{
  g_autoptr(GString) text = g_string_new (USER ("Go") "\n");

  for (guint i = 0; i < N_CALLS; i++)
    {
      g_autofree char *id = g_strdup_printf ("c%u", i);
      g_autofree char *call = i % 2 == 0 ? g_strdup (CALL ("@", TODOS_AB)) : g_strdup (CALL ("@", TODOS_ABC));
      g_autofree char *result = g_strdup (RESULT ("@"));
      g_auto(GStrv) call_parts = g_strsplit (call, "@", -1);
      g_auto(GStrv) result_parts = g_strsplit (result, "@", -1);

      g_string_append_printf (text, "%s%s%s\n%s%s%s%s%s\n", call_parts[0], id, call_parts[1],
                              result_parts[0], id, result_parts[1], id, result_parts[2]);
    }
  pd_long_session_open (f, "s1.jsonl", text, TRUE);
}

static void
many_calls_close (ManyCalls *f)
{
  pd_long_session_close (f);
}

/* The Now page and `sessions show`: the plan now (the last list, the
 * user's mark on it), the record and how to continue, and no pages built.
 * Before, each built the whole pages: every call of the transcript. */
static void
test_now_reads_no_pages (void)
{
  ManyCalls f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PdPlanState) plan = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(PdImportedSession) session = NULL;
  g_auto(GStrv) argv = NULL;
  g_autofree char *workdir = NULL;
  gboolean counted = TRUE;
  guint built;

  many_calls_open (&f);

  /* The user ticks C: the plan now shows it. */
  session = pd_import_index_load_session (f.store, f.id, &error);
  g_assert_no_error (error);
  pd_checklist_set_checked (pd_imported_session_get_checklist (session), 2, TRUE);
  g_assert_true (pd_import_index_save_annotations (f.store, f.id, pd_imported_session_get_checklist (session), &error));
  g_assert_no_error (error);

  built = _pd_transcript_pages_get_n_built ();
  g_assert_true (pd_session_reads_get_plan (f.store, f.id, &plan, &error));
  g_assert_no_error (error);
  g_assert_nonnull (plan);
  g_assert_cmpuint (plan->steps->len, ==, 3);
  g_assert_cmpint (plan->version, >=, 1);
  g_assert_cmpstr (((PdPlanStep *) g_ptr_array_index (plan->steps, 2))->title, ==, "C");
  g_assert_cmpint (((PdPlanStep *) g_ptr_array_index (plan->steps, 2))->status, ==, PD_PLAN_STEP_DONE);

  info = pd_session_reads_get_counted (f.store, f.id, &counted, &error);
  g_assert_no_error (error);
  g_assert_false (counted);
  g_assert_cmpint (info->plan_version, ==, plan->version);

  g_assert_true (pd_session_reads_get_resume (f.store, f.id, &argv, &workdir, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (argv[0], ==, "qwen");
  g_assert_cmpstr (workdir, ==, "/w");

  g_assert_cmpuint (_pd_transcript_pages_get_n_built (), ==, built);

  /* A transcript under the threshold is read whole: its counts are the
   * pages', the plan's version that of the History's newest. */
  _pd_import_set_tail_limits (0, 0);
  g_clear_pointer (&info, pd_session_info_free);
  g_clear_pointer (&plan, pd_plan_state_free);
  info = pd_session_reads_get_counted (f.store, f.id, &counted, &error);
  g_assert_no_error (error);
  g_assert_true (counted);
  g_assert_cmpuint (info->n_messages, >, N_CALLS);
  g_assert_cmpint (info->plan_version, ==, N_CALLS);
  g_assert_true (pd_session_reads_get_plan (f.store, f.id, &plan, &error));
  g_assert_cmpint (plan->version, ==, N_CALLS);

  many_calls_close (&f);
}

/* The History: the newest PD_TRANSCRIPT_PAGES_HISTORY_MAX versions,
 * numbered among all, and nothing else of the transcript kept (no message,
 * no event).  Before, every version's plan tree and every call. */
static void
test_history_newest_only (void)
{
  ManyCalls f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(GPtrArray) versions = NULL;
  g_autoptr(GPtrArray) all = NULL;
  const PdPlanVersionInfo *first, *last;

  g_assert_cmpuint (N_CALLS, >, PD_TRANSCRIPT_PAGES_HISTORY_MAX);
  many_calls_open (&f);

  versions = pd_session_reads_list_plan_versions (f.store, f.id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (versions->len, ==, PD_TRANSCRIPT_PAGES_HISTORY_MAX);
  first = g_ptr_array_index (versions, 0);
  last = g_ptr_array_index (versions, versions->len - 1);
  g_assert_cmpint (first->version, ==, N_CALLS - PD_TRANSCRIPT_PAGES_HISTORY_MAX + 1);
  g_assert_cmpint (last->version, ==, N_CALLS);
  g_assert_nonnull (strstr (last->state_json, "\"title\":\"C\""));

  pages = pd_import_index_load_history (f.store, f.id, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pd_transcript_pages_get_n_versions (pages), ==, N_CALLS);
  g_assert_cmpuint (pd_transcript_pages_get_n_messages (pages), ==, 0);
  g_assert_cmpuint (pd_transcript_pages_get_n_events (pages), ==, 0);

  /* An export lists them all. */
  all = pd_session_reads_list_all_plan_versions (f.store, f.id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (all->len, ==, N_CALLS);

  many_calls_close (&f);
}

/* The Events (the page, `events --session`) of a transcript under the
 * threshold: the timeline only, no message and no call's text kept, the
 * same events as the whole pages'.  (A long one's is read in parts:
 * test-import-events-parts.c.) */
static void
test_events_timeline_only (void)
{
  ManyCalls f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTranscriptPages) pages = NULL;
  g_autoptr(PdTranscriptPages) whole = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(GPtrArray) expected = NULL;

  many_calls_open (&f);
  _pd_import_set_tail_limits (0, 0);

  pages = pd_import_index_load_events (f.store, f.id, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pd_transcript_pages_get_n_messages (pages), ==, 0);
  g_assert_cmpuint (_pd_transcript_pages_get_size (pages), <, (gsize) N_CALLS * 3 * 200);
  events = pd_session_reads_list_events (f.store, f.id, NULL, 0, 0, &error);
  g_assert_no_error (error);

  whole = pd_import_index_load_pages (f.store, f.id, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (pd_transcript_pages_get_n_messages (whole), >, N_CALLS);
  expected = pd_transcript_pages_dup_events (whole, f.id, 0, 0);
  g_assert_cmpuint (events->len, ==, expected->len);
  g_assert_cmpuint (events->len, ==, 3 * N_CALLS);
  for (guint i = 0; i < events->len; i++)
    g_assert_cmpstr (((PdStoredEvent *) g_ptr_array_index (events, i))->event_json, ==,
                     ((PdStoredEvent *) g_ptr_array_index (expected, i))->event_json);

  many_calls_close (&f);
}

/* @page is the whole timeline's @all from @first on, seq and envelope. */
static void
check_events (GPtrArray *page,
              guint      first,
              gpointer   all)
{
  for (guint i = 0; i < page->len; i++)
    {
      PdStoredEvent *got = g_ptr_array_index (page, i);
      PdStoredEvent *want = g_ptr_array_index ((GPtrArray *) all, first + i);

      g_assert_cmpint (got->seq, ==, want->seq);
      g_assert_cmpstr (got->event_json, ==, want->event_json);
    }
}

/* The Events page of a long session: the newest 200 events, then 200
 * before them with each "Show Earlier Events", each read holding a page;
 * together they are the whole timeline, and a kind asked for alone is the
 * timeline's of that kind. */
static void
test_events_latest_pages (void)
{
  const char * const updates[] = { PD_EVENT_PLAN_UPDATED, NULL };
  ManyCalls f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) all = NULL;
  g_autoptr(GPtrArray) latest_updates = NULL;
  guint n_updates = 0;

  many_calls_open (&f);
  all = pd_session_reads_list_events (f.store, f.id, NULL, 0, 0, &error);
  g_assert_no_error (error);

  pd_long_session_walk_latest (&f, 200, all->len, check_events, all);

  latest_updates = pd_session_reads_list_latest_events (f.store, f.id, -1, updates, 5, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (latest_updates->len, ==, 5);
  for (guint i = all->len; i > 0 && n_updates < 5; i--)
    {
      PdStoredEvent *want = g_ptr_array_index (all, i - 1);

      if (strstr (want->event_json, "\"type\":\"" PD_EVENT_PLAN_UPDATED "\"") == NULL)
        continue;
      n_updates++;
      g_assert_cmpint (((PdStoredEvent *) g_ptr_array_index (latest_updates, 5 - n_updates))->seq, ==, want->seq);
    }
  g_assert_cmpuint (n_updates, ==, 5);

  many_calls_close (&f);
}

/* The compact text of element @i of @array, to compare trees. */
static char *
element_text (JsonArray *array,
              guint      i)
{
  return json_to_string (json_array_get_element (array, i), FALSE);
}

/* The Transcript page of a long session: the newest part, then each part
 * before it ("Show Earlier Messages"), each read holding a part's messages,
 * never the conversation; together they are the whole pages' messages.
 * Before, the page read the whole pages: every message and call. */
static void
test_transcript_parts (void)
{
  ManyCalls f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTranscriptPages) whole = NULL;
  g_autoptr(JsonArray) expected = NULL;
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func ((GDestroyNotify) json_array_unref);
  guint64 first = 0, total = 0;
  gint64 before = -1;
  guint n = 0;

  many_calls_open (&f);

  _pd_transcript_pages_reset_peak_held ();
  do
    {
      JsonArray *part;
      guint64 part_total = 0;

      part = pd_session_reads_load_messages_part (f.store, f.id, before, PD_SESSION_READS_PART_MAX,
                                                  &first, &part_total, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (json_array_get_length (part), >, 0);
      g_assert_cmpuint (json_array_get_length (part), <=, PD_SESSION_READS_PART_MAX);
      if (before < 0)
        total = part_total;
      g_assert_cmpuint (first + json_array_get_length (part), ==, before < 0 ? total : (guint64) before);
      g_ptr_array_insert (parts, 0, part);
      before = (gint64) first;
    }
  while (first > 0);
  /* Each read held a part (and the message growing), never the
   * conversation. */
  g_assert_cmpuint (_pd_transcript_pages_reset_peak_held (), <=, 2 * PD_SESSION_READS_PART_MAX + 1);
  g_assert_cmpuint (parts->len, ==, (total + PD_SESSION_READS_PART_MAX - 1) / PD_SESSION_READS_PART_MAX);

  /* Together, the whole pages' conversation, message for message. */
  whole = pd_import_index_load_pages (f.store, f.id, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (total, ==, pd_transcript_pages_get_n_messages (whole));
  g_assert_cmpuint (total, >, N_CALLS);
  expected = pd_transcript_pages_dup_messages (whole);
  for (guint i = 0; i < parts->len; i++)
    {
      JsonArray *part = g_ptr_array_index (parts, i);

      for (guint j = 0; j < json_array_get_length (part); j++, n++)
        {
          g_autofree char *got = element_text (part, j);
          g_autofree char *want = element_text (expected, n);

          g_assert_cmpstr (got, ==, want);
        }
    }
  g_assert_cmpuint (n, ==, total);

  many_calls_close (&f);
}

static gboolean
collect_event (const PdStoredEvent *event,
               gpointer             user_data)
{
  g_ptr_array_add (user_data, g_strdup (event->event_json));
  return TRUE;
}

/* `sessions export` of a long session: written as it is read, holding a
 * stream's lag of messages at a time; its messages and plan versions are
 * the whole pages' (before, it built them whole: 1.6 GB for 209 MB). */
static void
test_export_streams (void)
{
  ManyCalls f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(PdTranscriptPages) whole = NULL;
  g_autoptr(JsonArray) expected = NULL;
  g_autoptr(GPtrArray) versions = NULL;
  JsonArray *messages, *history;
  guint built;

  many_calls_open (&f);

  _pd_transcript_pages_reset_peak_held ();
  built = _pd_transcript_pages_get_n_built ();
  g_assert_true (pd_session_reads_export_json (f.store, f.id, out, FALSE, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_output_stream_close (out, NULL, &error));
  g_assert_cmpuint (_pd_transcript_pages_reset_peak_held (), <=, 2 * PD_TRANSCRIPT_PAGES_STREAM_LAG + 1);
  /* Two reads (messages, then versions), then the timeline a part at a
   * time as `events --session` reads it; no whole pages. */
  g_assert_cmpuint (_pd_transcript_pages_get_n_built (), >, built + 2);

  root = json_from_string (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)), &error);
  g_assert_no_error (error);
  messages = json_object_get_array_member (json_node_get_object (root), "messages");
  history = json_object_get_array_member (json_node_get_object (root), "plan_versions");

  /* The events are those `events --session` prints, in order (the export
   * left them out, tried as a new user would). */
  {
    JsonArray *events = json_object_get_array_member (json_node_get_object (root), "events");
    g_autoptr(GPtrArray) printed = g_ptr_array_new_with_free_func (g_free);

    g_assert_true (pd_session_reads_foreach_event (f.store, f.id, NULL, 0, collect_event, printed, NULL, &error));
    g_assert_no_error (error);
    g_assert_cmpuint (printed->len, >, N_CALLS);
    g_assert_cmpuint (json_array_get_length (events), ==, printed->len);
    for (guint i = 0; i < printed->len; i += printed->len / 7)
      {
        g_autofree char *got = element_text (events, i);
        g_autoptr(JsonNode) want_node = json_from_string (g_ptr_array_index (printed, i), NULL);
        g_autofree char *want = json_to_string (want_node, FALSE);

        g_assert_cmpstr (got, ==, want);
      }
  }

  whole = pd_import_index_load_pages (f.store, f.id, NULL, &error);
  g_assert_no_error (error);
  expected = pd_transcript_pages_dup_messages (whole);
  g_assert_cmpuint (json_array_get_length (messages), ==, json_array_get_length (expected));
  for (guint i = 0; i < json_array_get_length (expected); i++)
    {
      g_autofree char *got = element_text (messages, i);
      g_autofree char *want = element_text (expected, i);

      g_assert_cmpstr (got, ==, want);
    }
  versions = pd_session_reads_list_all_plan_versions (f.store, f.id, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (history), ==, versions->len);
  g_assert_cmpuint (versions->len, ==, N_CALLS);
  for (guint i = 0; i < versions->len; i++)
    {
      const PdPlanVersionInfo *version = g_ptr_array_index (versions, i);
      JsonObject *entry = json_array_get_object_element (history, i);
      g_autofree char *state = json_to_string (json_object_get_member (entry, "state"), FALSE);
      g_autoptr(JsonNode) want_node = json_from_string (version->state_json, NULL);
      g_autofree char *want = json_to_string (want_node, FALSE);

      g_assert_cmpint (json_object_get_int_member (entry, "version"), ==, version->version);
      g_assert_cmpstr (state, ==, want);
    }

  many_calls_close (&f);
}

/* `serve`'s …/export of a long session (the window's Export of an
 * endpoint's session, odek's page): written as it is read, as `sessions
 * export` is.  Before, the reply was one json-glib tree of the whole pages
 * and every version: 205 MB held for the 35 MB reply of a 99 MB Claude
 * Code transcript (47 MB now). */
static void
test_serve_export_streams (void)
{
  ManyCalls f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autoptr(PdTranscriptPages) whole = NULL;
  g_autoptr(JsonArray) expected = NULL;
  JsonObject *object;
  JsonArray *messages, *history;
  guint status = 0;
  guint peak;

  many_calls_open (&f);

  _pd_transcript_pages_reset_peak_held ();
  bytes = pd_long_session_serve_get (&f, "/export", &status);
  g_assert_cmpuint (status, ==, 200);
  peak = _pd_transcript_pages_reset_peak_held ();
  g_assert_cmpuint (peak, <=, 2 * PD_TRANSCRIPT_PAGES_STREAM_LAG + 1);

  root = json_from_string (g_bytes_get_data (bytes, NULL), &error);
  g_assert_no_error (error);
  object = json_node_get_object (root);
  messages = json_object_get_array_member (object, "messages");
  history = json_object_get_array_member (object, "plan_versions");
  g_assert_cmpstr (json_object_get_string_member (object, "id"), ==, f.id);
  /* The members stay where the tree put them: "plan_versions" last. */
  {
    g_autoptr(GList) names = json_object_get_members (object);

    g_assert_cmpstr (g_list_last (names)->data, ==, "plan_versions");
  }

  whole = pd_import_index_load_pages (f.store, f.id, NULL, &error);
  g_assert_no_error (error);
  expected = pd_transcript_pages_dup_messages (whole);
  g_assert_cmpuint (json_array_get_length (messages), ==, json_array_get_length (expected));
  for (guint i = 0; i < json_array_get_length (expected); i += 97)
    {
      g_autofree char *got = element_text (messages, i);
      g_autofree char *want = element_text (expected, i);

      g_assert_cmpstr (got, ==, want);
    }
  g_assert_cmpuint (json_array_get_length (history), ==, N_CALLS);
  g_assert_cmpint (json_object_get_int_member (json_array_get_object_element (history, N_CALLS - 1), "version"), ==, N_CALLS);

  many_calls_close (&f);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-pages-bounded/now-reads-no-pages", test_now_reads_no_pages);
  g_test_add_func ("/pd/import-pages-bounded/history-newest-only", test_history_newest_only);
  g_test_add_func ("/pd/import-pages-bounded/events-timeline-only", test_events_timeline_only);
  g_test_add_func ("/pd/import-pages-bounded/events-latest-pages", test_events_latest_pages);
  g_test_add_func ("/pd/import-pages-bounded/transcript-parts", test_transcript_parts);
  g_test_add_func ("/pd/import-pages-bounded/export-streams", test_export_streams);
  g_test_add_func ("/pd/import-pages-bounded/serve-export-streams", test_serve_export_streams);

  return g_test_run ();
}
