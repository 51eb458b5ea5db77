/* test-import-cut-newest.c: the Transcript page of a transcript whose
 * whole pages were cut at their budget shows the transcript's newest
 * messages, and counts the earlier ones right.
 *
 * Found on a 63 MiB Claude Code transcript of 1 179 646 tiny messages
 * (tried as an attacker would): its whole pages kept 520 224 of them
 * (Gemini CLI: 442 819 of 1 000 000) and stopped, so the "newest" page
 * (the window's and `serve`'s) was messages 518 224–520 224 and its last
 * the notice of the cut; the real last 659 000 were never shown, and
 * "N earlier messages not shown" counted from the cut.  Pages cut at their
 * budget are now read again as a long session's part is (a window of the
 * newest, bounded): the page ends with the transcript's last message and
 * first + shown == total.  Here a budget of 256 KiB cuts a file of
 * 6 000 tiny messages the same way.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-import-cut-newest"

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "pd-import-index.h"
#include "pd-import-index-private.h"
#include "pd-import-private.h"
#include "pd-import-test.h"
#include "pd-session-reads.h"
#include "pd-transcript-pages-private.h"

#define N_TINY 6000u
#define BUDGET ((gsize) 256 * 1024)

#define CLAUDE_SESSION "eeeeeeee-1111-2222-3333-444444444444"
#define GEMINI_HEADER  "{\"sessionId\":\"3fa9c0d1-5e27-4b8a-9c61-0d2e4f6a8888\",\"projectHash\":\"9f2c\"," \
                       "\"startTime\":\"2026-04-05T10:12:00.000Z\",\"lastUpdated\":\"2026-04-05T10:12:00.000Z\"}\n"

/* "go", N_TINY of "x", then "the end": N_TINY + 2 messages. */
static void
write_claude (const char *dir)
{
  g_autofree char *project = g_build_filename (dir, "projects", "-tmp", NULL);
  g_autofree char *path = g_build_filename (project, CLAUDE_SESSION ".jsonl", NULL);
  g_autoptr(GString) text = g_string_new (NULL);

  g_string_append (text, "{\"type\":\"user\",\"cwd\":\"/tmp\",\"sessionId\":\"" CLAUDE_SESSION "\",\"message\":"
                         "{\"role\":\"user\",\"content\":\"go\"},\"uuid\":\"u0\","
                         "\"timestamp\":\"2026-12-05T10:00:00Z\"}\n");
  for (guint i = 0; i < N_TINY; i++)
    g_string_append (text, "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"x\"}}\n");
  g_string_append (text, "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"the end\"}}\n");
  g_assert_cmpint (g_mkdir_with_parents (project, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
}

static void
write_gemini (const char *dir)
{
  g_autofree char *chats = g_build_filename (dir, "tiny", "chats", NULL);
  g_autofree char *path = g_build_filename (chats, "session-2026-04-05T10-12-3fa9c0d1.jsonl", NULL);
  g_autoptr(GString) text = g_string_new (GEMINI_HEADER);

  g_string_append (text, "{\"id\":\"g0\",\"timestamp\":\"2026-04-05T10:12:09.000Z\",\"type\":\"user\","
                         "\"content\":[{\"text\":\"go\"}]}\n");
  for (guint i = 1; i <= N_TINY; i++)
    g_string_append_printf (text, "{\"id\":\"g%u\",\"type\":\"user\",\"content\":[{\"text\":\"x\"}]}\n", i);
  g_string_append_printf (text, "{\"id\":\"g%u\",\"type\":\"user\",\"content\":[{\"text\":\"the end\"}]}\n",
                          N_TINY + 1);
  g_assert_cmpint (g_mkdir_with_parents (chats, 0700), ==, 0);
  g_assert_true (g_file_set_contents (path, text->str, (gssize) text->len, NULL));
}

static const char *
content (JsonArray *messages,
         guint      i)
{
  return json_object_get_string_member_with_default (json_array_get_object_element (messages, i), "content", "");
}

static void
check_newest (gconstpointer data)
{
  gboolean gemini = GPOINTER_TO_INT (data);
  g_autofree char *dir = pd_import_test_tmpdir ();
  g_autofree char *db_dir = NULL;
  g_autoptr(PdSessionStore) store = NULL;
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) newest = NULL;
  g_autoptr(JsonArray) earlier = NULL;
  g_autoptr(JsonArray) since = NULL;
  g_autoptr(PdTranscriptPages) whole = NULL;
  PdImportIndexStats stats;
  guint64 first = 0, total = 0, first2 = 0, total2 = 0, lineage = 0;
  const guint64 all = N_TINY + 2;
  guint n;

  if (gemini)
    write_gemini (dir);
  else
    write_claude (dir);
  store = pd_import_test_new_store (&db_dir);
  info = pd_import_test_import_fresh (store, dir, &stats);
  g_assert_false (_pd_session_reads_is_long (store, info->id));
  _pd_transcript_pages_set_budget_bytes (BUDGET);
  _pd_transcript_pages_set_cost_floor (BUDGET);

  /* The whole pages are cut, as the 63 MiB file's were. */
  whole = pd_import_index_load_pages (store, info->id, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (_pd_transcript_pages_get_cut (whole, NULL, NULL));
  g_test_message ("%s: whole pages keep %u of %" G_GUINT64_FORMAT " messages", gemini ? "gemini" : "claude",
                  pd_transcript_pages_get_n_messages (whole), all);
  g_clear_object (&whole);

  newest = pd_session_reads_load_messages_part (store, info->id, -1, PD_SESSION_READS_PART_MAX, &first, &total,
                                                NULL, &error);
  g_assert_no_error (error);
  n = json_array_get_length (newest);
  g_test_message ("newest page: %u from %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT, n, first, total);
  g_assert_cmpuint (n, >, 0);
  /* Before: the cut's notice last, total the ~1 500 kept, not N_TINY + 2. */
  g_assert_cmpstr (content (newest, n - 1), ==, "the end");
  g_assert_cmpuint (total, ==, all);
  g_assert_cmpuint (first + n, ==, total);

  /* "Show Earlier Messages": the ones just before, up to the first. */
  earlier = pd_session_reads_load_messages_part (store, info->id, (gint64) first, PD_SESSION_READS_PART_MAX,
                                                 &first2, &total2, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (earlier), ==, MIN (first, PD_SESSION_READS_PART_MAX));
  g_assert_cmpuint (first2 + json_array_get_length (earlier), ==, first);
  g_assert_cmpstr (content (earlier, 0), ==, first2 == 0 ? "go" : "x");

  /* As the window reads it (followed or not): the same newest. */
  since = pd_session_reads_load_messages_since (store, info->id, 0, 0, PD_SESSION_READS_PART_MAX, &first2, &total2,
                                                &lineage, NULL, &error);
  g_assert_no_error (error);
  n = json_array_get_length (since);
  g_assert_cmpuint (n, >, 0);
  g_assert_cmpstr (content (since, n - 1), ==, "the end");
  g_assert_cmpuint (total2, ==, all);
  g_assert_cmpuint (first2 + n, ==, total2);

  _pd_transcript_pages_set_budget_bytes (0);
  _pd_transcript_pages_set_cost_floor (0);
  g_clear_object (&store);
  pd_test_remove_tree (dir);
  pd_test_remove_tree (db_dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_data_func ("/pd/import-cut-newest/claude", GINT_TO_POINTER (FALSE), check_newest);
  g_test_add_data_func ("/pd/import-cut-newest/gemini", GINT_TO_POINTER (TRUE), check_newest);

  return g_test_run ();
}
