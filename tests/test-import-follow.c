/* test-import-follow.c: the pages of a transcript the window follows are
 * read by what the agent appended, not whole again at each change; a file
 * rewritten (shorter, or its first line changed) is read whole again.
 *
 * A 30 MB Claude Code session grown by 200 lines every 0.5 s (tried as an
 * attacker would): each change read the 30 MB again for the pages, and the
 * window grew ~14 MB a round.  Bytes are counted here, never timed.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-import-follow"

#include "config.h"

#include <utime.h>

#include "pd-db.h"
#include "pd-import-index-private.h"
#include "pd-import-test.h"
#include "pd-session-reads.h"
#include "pd-session-store.h"
#include "pd-transcript-pages-private.h"

#define ROUNDS 10

/* One exchange of the session, @n its number: a prompt, an answer, a
 * plan call and its result (a version of the plan each). */
static char *
exchange (guint n)
{
  return g_strdup_printf (
    "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:%02u:%02u.000Z\",\"sessionId\":\"f1\",\"cwd\":\"/work\","
    "\"message\":{\"role\":\"user\",\"content\":\"Step %u, please: go on with the work of the day.\"}}\n"
    "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:%02u:%02u.100Z\",\"message\":{\"id\":\"a%u\",\"role\":"
    "\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Working on step %u now; reading the files first.\"}]}}\n"
    "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:%02u:%02u.200Z\",\"message\":{\"id\":\"a%u\",\"role\":"
    "\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t%u\",\"name\":\"TodoWrite\",\"input\":{\"todos\":["
    "{\"content\":\"Step %u\",\"status\":\"in_progress\"},{\"content\":\"Step %u\",\"status\":\"pending\"}]}}]}}\n"
    "{\"type\":\"user\",\"timestamp\":\"2026-01-01T00:%02u:%02u.300Z\",\"message\":{\"role\":\"user\",\"content\":["
    "{\"type\":\"tool_result\",\"tool_use_id\":\"t%u\",\"content\":\"ok\"}]}}\n",
    (n / 60) % 60, n % 60, n,
    (n / 60) % 60, n % 60, n, n,
    (n / 60) % 60, n % 60, n, n, n, n + 1,
    (n / 60) % 60, n % 60, n);
}

static char *
exchanges (guint from,
           guint to)
{
  GString *text = g_string_new (NULL);

  for (guint n = from; n < to; n++)
    {
      g_autofree char *one = exchange (n);

      g_string_append (text, one);
    }
  return g_string_free (text, FALSE);
}

typedef struct
{
  char           *dir;
  char           *db_dir;
  char           *path;
  PdSessionStore *store;
  char           *id;
} Followed;

static void
followed_open_text (Followed   *f,
                    const char *text)
{
  g_autofree char *project = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  PdImportIndexStats stats;

  _pd_import_follow_forget_all ();
  pd_import_index_set_follow_appends (TRUE);
  f->dir = pd_import_test_tmpdir ();
  project = g_build_filename (f->dir, "projects", "-work", NULL);
  g_assert_cmpint (g_mkdir_with_parents (project, 0700), ==, 0);
  f->path = g_build_filename (project, "f1.jsonl", NULL);
  g_assert_true (g_file_set_contents (f->path, text, -1, NULL));
  f->store = pd_import_test_new_store (&f->db_dir);
  info = pd_import_test_import_fresh (f->store, f->dir, &stats);
  f->id = g_strdup (info->id);
}

static void
followed_open (Followed *f,
               guint     n_exchanges)
{
  g_autofree char *text = exchanges (0, n_exchanges);

  followed_open_text (f, text);
}

static void
followed_close (Followed *f)
{
  _pd_import_follow_forget_all ();
  g_clear_object (&f->store);
  pd_test_remove_tree (f->dir);
  pd_test_remove_tree (f->db_dir);
  g_free (f->dir);
  g_free (f->db_dir);
  g_free (f->path);
  g_free (f->id);
}

/* The pages (@history: the History's) as a reader of its own reads them
 * whole now. */
static PdTranscriptPages *
fresh_pages (Followed *f,
             gboolean  history)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTranscriptReader) reader = pd_transcript_reader_new_for_format ("claude", f->path, NULL, &error);
  PdTranscriptPages *pages;

  g_assert_no_error (error);
  pages = history ? pd_transcript_reader_read_history (reader, NULL, &error)
                  : pd_transcript_reader_read_pages (reader, NULL, &error);
  g_assert_no_error (error);
  return pages;
}

/* Long texts compared without printing them whole. */
static void
assert_same_text (const char *have,
                  const char *want,
                  const char *what)
{
  if (g_strcmp0 (have, want) != 0)
    g_error ("%s differ: %zu bytes followed, %zu read whole", what, strlen (have), strlen (want));
}

static char *
messages_text (PdTranscriptPages *pages)
{
  g_autoptr(JsonArray) messages = pd_transcript_pages_dup_messages (pages);
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_ARRAY);

  json_node_set_array (node, messages);
  return json_to_string (node, FALSE);
}

static char *
versions_text (PdTranscriptPages *pages)
{
  g_autoptr(GPtrArray) versions = pd_transcript_pages_dup_plan_versions (pages, NULL);
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < versions->len; i++)
    {
      PdPlanVersionInfo *version = g_ptr_array_index (versions, i);

      g_string_append_printf (text, "%" G_GINT64_FORMAT ":%s\n", version->version, version->state_json);
    }
  return g_string_free (text, FALSE);
}

/* The Now page's checklist and plans (read through the index, followed)
 * are what a whole read of the session gives, the annotations applied once. */
static void
assert_checklist_as_fresh (Followed *f)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) plans = NULL;
  g_autoptr(PdChecklist) checklist = pd_import_index_load_checklist_plans (f->store, f->id, &plans, NULL, &error);
  g_autoptr(PdImportedSession) fresh = NULL;
  g_autoptr(JsonNode) have = NULL, want = NULL;
  g_autofree char *have_text = NULL, *want_text = NULL;
  GPtrArray *fresh_plans;

  g_assert_no_error (error);
  fresh = pd_import_index_load_session (f->store, f->id, &error);
  g_assert_no_error (error);
  have = pd_checklist_to_json (checklist);
  want = pd_checklist_to_json (pd_imported_session_get_checklist (fresh));
  have_text = json_to_string (have, FALSE);
  want_text = json_to_string (want, FALSE);
  g_assert_cmpstr (have_text, ==, want_text);
  g_assert_cmpuint (pd_checklist_get_n_agent_items (checklist), >, 0);
  fresh_plans = pd_imported_session_get_plans (fresh);
  g_assert_cmpuint (plans->len, ==, fresh_plans->len);
  for (guint i = 0; i < plans->len; i++)
    {
      const PdArtifactPlan *a = g_ptr_array_index (plans, i);
      const PdArtifactPlan *b = g_ptr_array_index (fresh_plans, i);

      g_assert_cmpint (a->status, ==, b->status);
      g_assert_cmpstr (a->markdown, ==, b->markdown);
    }

  /* The Now page's plan, read through the same followed reader. */
  {
    g_autoptr(PdPlanState) plan = NULL;
    g_autoptr(PdPlanState) fresh_plan = NULL;
    g_autofree char *plan_text = NULL, *fresh_text = NULL;

    g_assert_true (pd_session_reads_get_plan (f->store, f->id, &plan, &error));
    g_assert_no_error (error);
    fresh_plan = pd_transcript_pages_plan_for_checklist (pd_imported_session_get_checklist (fresh),
                                                         pd_imported_session_get_stats (fresh)->applied_updates);
    plan_text = pd_plan_state_to_json (plan);
    fresh_text = pd_plan_state_to_json (fresh_plan);
    g_assert_cmpstr (plan_text, ==, fresh_text);
  }
}

/* What @pages (read through the index) show is what a whole read shows. */
static void
assert_as_fresh (Followed *f)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(PdTranscriptPages) pages = pd_import_index_load_pages (f->store, f->id, NULL, &error);
  g_autoptr(PdTranscriptPages) history = NULL;
  g_autoptr(PdTranscriptPages) events = NULL;
  g_autoptr(PdTranscriptPages) fresh = NULL;
  g_autoptr(PdTranscriptPages) fresh_history = NULL;
  g_autoptr(GPtrArray) followed_events = NULL;
  g_autoptr(GPtrArray) fresh_events = NULL;
  g_autofree char *have = NULL, *want = NULL, *have_versions = NULL, *want_versions = NULL;

  g_assert_no_error (error);
  history = pd_import_index_load_history (f->store, f->id, NULL, &error);
  g_assert_no_error (error);
  events = pd_import_index_load_events (f->store, f->id, NULL, &error);
  g_assert_no_error (error);
  fresh = fresh_pages (f, FALSE);
  fresh_history = fresh_pages (f, TRUE);

  g_assert_cmpuint (pd_transcript_pages_get_n_messages (pages), ==, pd_transcript_pages_get_n_messages (fresh));
  have = messages_text (pages);
  want = messages_text (fresh);
  assert_same_text (have, want, "the messages");
  g_assert_cmpuint (pd_transcript_pages_get_n_versions (history), ==, pd_transcript_pages_get_n_versions (fresh));
  have_versions = versions_text (history);
  want_versions = versions_text (fresh_history);
  assert_same_text (have_versions, want_versions, "the History's versions");
  followed_events = pd_transcript_pages_dup_events (events, f->id, 0, 0);
  fresh_events = pd_transcript_pages_dup_events (fresh, f->id, 0, 0);
  g_assert_cmpuint (followed_events->len, ==, fresh_events->len);
  for (guint i = 0; i < fresh_events->len; i++)
    {
      PdStoredEvent *a = g_ptr_array_index (followed_events, i);
      PdStoredEvent *b = g_ptr_array_index (fresh_events, i);

      g_assert_cmpint (a->seq, ==, b->seq);
      g_assert_cmpstr (a->event_json, ==, b->event_json);
    }
  assert_checklist_as_fresh (f);
}

/* A transcript of ~N KB read for its pages (whole, History, Events), then
 * grown ten times and read again each time: what is read after the first
 * read is about what was appended (the first line looked at each time to
 * tell a rewritten file), not ten times the transcript. */
static void
test_follow_reads_appended (void)
{
  Followed f = { 0 };
  guint64 before, before_checklist, read, appended = 0;
  goffset size;
  guint n = 1000;

  followed_open (&f, n);
  assert_as_fresh (&f);
  g_assert_true (g_file_test (f.path, G_FILE_TEST_EXISTS));
  {
    GStatBuf st;

    g_assert_cmpint (g_stat (f.path, &st), ==, 0);
    size = st.st_size;
  }
  g_assert_cmpint (size, >, 600 * 1024);

  before = _pd_import_index_get_pages_bytes_read ();
  before_checklist = _pd_import_index_get_reader_bytes_read ();
  for (guint round = 0; round < ROUNDS; round++)
    {
      g_autofree char *more = exchanges (n, n + 10);

      n += 10;
      pd_import_test_append (f.path, more);
      appended += strlen (more);
      assert_as_fresh (&f);
    }
  /* Each round: three reads (whole pages, History, Events) of what was
   * appended, a first line each; the fresh reads to compare are a reader's
   * own, not counted. */
  read = _pd_import_index_get_pages_bytes_read () - before;
  g_test_message ("transcript %" G_GINT64_FORMAT " bytes, appended %" G_GUINT64_FORMAT ", read %" G_GUINT64_FORMAT,
                  (gint64) size, appended, read);
  g_assert_cmpuint (read, >=, 3 * appended);
  g_assert_cmpuint (read, <=, 3 * appended + (guint64) ROUNDS * 3 * 4096);
  g_assert_cmpuint (read, <, (guint64) size);

  /* The Now page's checklist and plan: one read of what was appended a
   * round (the second finds nothing new), a first line each, not the
   * transcript whole each time (before: 2 × 10 × the file). */
  read = _pd_import_index_get_reader_bytes_read () - before_checklist;
  g_test_message ("checklist and plan read %" G_GUINT64_FORMAT, read);
  g_assert_cmpuint (read, >=, appended);
  g_assert_cmpuint (read, <=, appended + (guint64) ROUNDS * 2 * 4096);

  followed_close (&f);
}

/* Rewritten shorter in place (same file), or rewritten with another first
 * line and longer: read whole again, and shown as it is now. */
static void
test_follow_rewritten (void)
{
  Followed f = { 0 };
  g_autofree char *shorter = exchanges (0, 20);
  g_autofree char *other = exchanges (500, 900);
  guint64 before;
  FILE *file;

  followed_open (&f, 200);
  assert_as_fresh (&f);

  /* Cut: the same file, shorter. */
  file = fopen (f.path, "w");
  g_assert_nonnull (file);
  fputs (shorter, file);
  fclose (file);
  before = _pd_import_index_get_pages_bytes_read ();
  assert_as_fresh (&f);
  g_assert_cmpuint (_pd_import_index_get_pages_bytes_read () - before, >=, 3 * strlen (shorter));
  {
    g_autoptr(PdTranscriptPages) pages = pd_import_index_load_pages (f.store, f.id, NULL, NULL);

    g_assert_cmpuint (pd_transcript_pages_get_n_messages (pages), <, 100);
  }

  /* Another first line, longer than before: not read on from the old end. */
  file = fopen (f.path, "w");
  g_assert_nonnull (file);
  fputs (other, file);
  fclose (file);
  assert_as_fresh (&f);

  followed_close (&f);
}

/* The user's own item and a tick, stored: applied to each reading once,
 * never onto the followed checklist itself (or they would pile up). */
static void
test_follow_checklist_annotations (void)
{
  Followed f = { 0 };
  g_autoptr(GError) error = NULL;
  g_autoptr(PdChecklist) checklist = NULL;
  guint n = 50;

  followed_open (&f, n);
  checklist = pd_import_index_load_checklist_plans (f.store, f.id, NULL, NULL, &error);
  g_assert_no_error (error);
  pd_checklist_add_user_item (checklist, "Mine");
  pd_checklist_set_checked (checklist, 0, TRUE);
  g_assert_true (pd_import_index_save_annotations (f.store, f.id, checklist, &error));
  g_assert_no_error (error);
  for (guint round = 0; round < 3; round++)
    {
      g_autofree char *more = exchanges (n, n + 2);
      g_autoptr(PdChecklist) read = NULL;
      gboolean checked = FALSE;

      n += 2;
      pd_import_test_append (f.path, more);
      assert_checklist_as_fresh (&f);
      read = pd_import_index_load_checklist_plans (f.store, f.id, NULL, NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpuint (pd_checklist_get_n_user_items (read), ==, 1);
      /* The first item is a new step each round: its tick stays with the old text. */
      g_assert_false (pd_checklist_get_override (read, 0, &checked));
    }
  followed_close (&f);
}

/* The transcript's times moved on: the pages cached of it are not used. */
static void
touch_later (const char *path,
             gint64      seconds)
{
  GStatBuf st;
  struct utimbuf times;

  g_assert_cmpint (g_stat (path, &st), ==, 0);
  times.actime = st.st_atime;
  times.modtime = st.st_mtime + seconds;
  g_assert_cmpint (g_utime (path, &times), ==, 0);
}

static gboolean
keep_last (const PdStoredEvent *event,
           gpointer             user_data)
{
  PdStoredEvent **last = user_data;

  g_clear_pointer (last, pd_stored_event_free);
  *last = pd_stored_event_copy (event);
  return TRUE;
}

static PdStoredEvent *
last_of (GPtrArray *events)
{
  g_assert_cmpuint (events->len, >, 0);
  return g_ptr_array_index (events, events->len - 1);
}

/* One budget, one cut: the window's Events page (followed pages, read
 * from the end), `events --session` (each event as read) and serve (a
 * page of events) end a transcript past its budget on the same event.
 * The followed pages had no share of the file's size (128 MiB): the
 * window showed 309 860 more items of a 37 MB transcript of tiny calls
 * than the CLI (tried as a new user would, nu15).  Before, the window's
 * last event was a tool_call_started, not events_left_out. */
static void
test_follow_budget_same_cut (void)
{
  Followed f = { 0 };
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) window = NULL;
  g_autoptr(GPtrArray) served = NULL;
  PdStoredEvent *cli = NULL;
  PdStoredEvent *window_last, *served_last;

  /* 400 answers of 50 tiny calls: 1.1 MB, 20 000 calls; with a floor of
   * 64 KiB the Events' share is 0.9 MB: 1 879 of them kept. */
  for (guint i = 0; i < 400; i++)
    {
      g_string_append_printf (text, "{\"type\":\"assistant\",\"timestamp\":\"2026-01-01T00:%02u:%02u.000Z\","
                                    "\"sessionId\":\"f1\",\"cwd\":\"/work\",\"message\":{\"role\":\"assistant\","
                                    "\"content\":[", (i / 60) % 60, i % 60);
      for (guint j = 0; j < 50; j++)
        g_string_append_printf (text, "%s{\"type\":\"tool_use\",\"id\":\"t%u_%u\",\"name\":\"B\",\"input\":{}}",
                                j > 0 ? "," : "", i, j);
      g_string_append (text, "]}}\n");
    }
  _pd_transcript_pages_set_cost_floor (64 * 1024);
  followed_open_text (&f, text->str);

  /* The window: followed, the newest event. */
  window = pd_session_reads_list_latest_events (f.store, f.id, 0, NULL, 1, &error);
  g_assert_no_error (error);
  window_last = last_of (window);

  /* The CLI and serve: read whole. */
  pd_import_index_set_follow_appends (FALSE);
  _pd_import_follow_forget_all ();
  touch_later (f.path, 10);
  g_assert_true (pd_session_reads_foreach_event (f.store, f.id, NULL, 0, keep_last, &cli, NULL, &error));
  g_assert_no_error (error);
  g_assert_nonnull (cli);
  touch_later (f.path, 10);
  served = pd_session_reads_list_events (f.store, f.id, NULL, 0, 0, &error);
  g_assert_no_error (error);
  served_last = last_of (served);

  g_test_message ("window: %s", window_last->event_json);
  g_assert_nonnull (strstr (cli->event_json, "\"events_left_out\""));
  g_assert_cmpint (window_last->seq, ==, cli->seq);
  g_assert_cmpstr (window_last->event_json, ==, cli->event_json);
  g_assert_cmpint (served_last->seq, ==, cli->seq);
  g_assert_cmpstr (served_last->event_json, ==, cli->event_json);

  pd_stored_event_free (cli);
  _pd_transcript_pages_set_cost_floor (0);
  followed_close (&f);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/pd/import-follow/reads-appended", test_follow_reads_appended);
  g_test_add_func ("/pd/import-follow/rewritten", test_follow_rewritten);
  g_test_add_func ("/pd/import-follow/checklist-annotations", test_follow_checklist_annotations);
  g_test_add_func ("/pd/import-follow/budget-same-cut", test_follow_budget_same_cut);

  return g_test_run ();
}
