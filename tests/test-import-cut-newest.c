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
#include "pd-test-tiny-transcripts.h"

#define N_TINY 6000u
#define BUDGET ((gsize) 256 * 1024)

#define CLAUDE_SESSION "eeeeeeee-1111-2222-3333-444444444444"
#define GEMINI_SESSION "3fa9c0d1-5e27-4b8a-9c61-0d2e4f6a8888"

static void
write_claude (const char *dir)
{
  pd_test_write_tiny_claude (dir, CLAUDE_SESSION, N_TINY);
}

static void
write_gemini (const char *dir)
{
  pd_test_write_tiny_gemini (dir, GEMINI_SESSION, N_TINY);
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
  {
    g_autofree char *expected = first2 == 0 ? g_strdup ("go") : g_strdup_printf ("x%" G_GUINT64_FORMAT, (guint64) first2);

    /* Each message known by its place: the one the page says comes first. */
    g_assert_cmpstr (content (earlier, 0), ==, expected);
  }

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
