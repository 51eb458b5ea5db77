/* test-transcript-bounded.c: the Transcript page of a transcript of many
 * tiny messages lists a bounded part of it, lets it go when the session is
 * left, and lists no more when it is opened again.
 *
 * Tried as an attacker would: a Claude Code transcript of 1.15 M lines of
 * one-letter messages (63 MB, under the 64 MB above which only a file's end
 * is read).  Its Transcript page took the window from 115 MB to 928 MB,
 * every message the pages keep (520 000) listed; left, it kept 931 MB, and
 * opened again it reached 1.41 GB.  Now the page lists the newest
 * PD_SESSION_READS_WHOLE_MAX and says how many earlier ones are not shown.
 *
 * PD_TEST_TINY_LINES sets how many tiny lines the transcript has (the
 * figures of tests/README.md: 1179648); the resident memory is logged at
 * each step, and a check that fails does not stop the measurement.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#define G_LOG_DOMAIN "test-transcript-bounded"

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "../pd-import-test.h"
#include "pd-import-index.h"
#include "pd-message-item.h"
#include "pd-session-reads.h"
#include "pd-test-stopped-run.h"
#include "pd-transcript-view.h"

#define SESSION "ffffffff-1111-2222-3333-444444444444"
#define TINY    "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"x\"}}\n"

static guint64
rss_kib (void)
{
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL) || !(line = strstr (status, "VmRSS:")))
    return 0;
  return g_ascii_strtoull (line + strlen ("VmRSS:"), NULL, 10);
}

/* A Claude Code transcript of "go" and @n tiny messages, imported. */
static char *
import_tiny (PdTestDb   *db,
             const char *dir,
             guint       n)
{
  g_autofree char *project = g_build_filename (dir, "projects", "-tmp", NULL);
  g_autofree char *path = g_build_filename (project, SESSION ".jsonl", NULL);
  g_autoptr(PdSessionInfo) info = NULL;
  g_autoptr(GString) lines = g_string_new (NULL);
  PdImportIndexStats stats;
  FILE *file;

  g_assert_cmpint (g_mkdir_with_parents (project, 0700), ==, 0);
  file = g_fopen (path, "w");
  g_assert_nonnull (file);
  fputs ("{\"type\":\"user\",\"cwd\":\"/tmp\",\"sessionId\":\"" SESSION "\",\"message\":{\"role\":\"user\","
         "\"content\":\"go\"},\"uuid\":\"u0\",\"timestamp\":\"2026-12-05T10:00:00Z\"}\n", file);
  for (guint i = 0; i < 4096; i++)
    g_string_append (lines, TINY);
  for (guint i = 0; i < n; i += 4096)
    g_assert_cmpuint (fwrite (lines->str, strlen (TINY), MIN (4096, n - i), file), ==, MIN (4096, n - i));
  fclose (file);
  info = pd_import_test_import_fresh (db->store, dir, &stats);
  return g_strdup (info->id);
}

static gboolean
read_done (gpointer user_data)
{
  PdSessionView *view = user_data;

  return pd_session_view_get_n_reloads (view) >= 1 && !pd_session_view_get_busy (view)
         && g_list_model_get_n_items (pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (view))) > 0;
}

static guint
first_index (GListModel *model)
{
  g_autoptr(PdMessageItem) item = g_list_model_get_item (model, 0);

  return pd_message_item_get_index (item);
}

static void
assert_newest_part (GtkWidget *view,
                    guint      total)
{
  GListModel *model = pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (view));
  guint listed = MIN (total, PD_SESSION_READS_WHOLE_MAX);
  g_autofree char *said = g_strdup_printf ("%u earlier messages not shown", total - listed);

  /* Before: every message the pages keep (5 001 here, 520 224 of the
   * attacker's file). */
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, listed);
  g_assert_cmpuint (first_index (model), ==, total - listed);
  g_assert_nonnull (pd_test_find_label_containing (view, said));
}

static gboolean
item_gone (gpointer user_data)
{
  return *(gpointer *) user_data == NULL;
}

static void
test_transcript_tiny_bounded (void)
{
  g_autoptr(PdTestDb) db = pd_test_db_new ();
  g_autofree char *dir = pd_import_test_tmpdir ();
  const char *lines = g_getenv ("PD_TEST_TINY_LINES");
  guint n = lines != NULL ? (guint) g_ascii_strtoull (lines, NULL, 10) : PD_SESSION_READS_WHOLE_MAX + 3000;
  g_autofree char *id = NULL;
  g_autofree char *other = NULL;
  GtkWidget *view = pd_transcript_view_new ();
  GListModel *model = pd_transcript_view_get_model (PD_TRANSCRIPT_VIEW (view));
  gpointer newest = NULL;
  guint total;
  GtkWindow *window;

  /* A measurement: every step measured, a failed check still failing the
   * test at its end. */
  if (lines != NULL)
    g_test_set_nonfatal_assertions ();
  /* As the window reads: appended transcripts followed. */
  pd_import_index_set_follow_appends (TRUE);
  id = import_tiny (db, dir, n);
  other = pd_test_db_create_session (db, "Another session");
  g_test_message ("VmRSS before: %" G_GUINT64_FORMAT " KiB", rss_kib ());

  window = pd_test_show_session (view, db, id, 800, 600);
  pd_test_wait_until (read_done, view, "the transcript read");
  pd_test_spin (200);
  g_test_message ("VmRSS opened: %" G_GUINT64_FORMAT " KiB, %u rows", rss_kib (),
                  g_list_model_get_n_items (model));
  total = first_index (model) + g_list_model_get_n_items (model);
  if (lines == NULL)
    g_assert_cmpuint (total, ==, n + 1);
  assert_newest_part (view, total);

  /* Left: what it listed is let go. */
  newest = g_list_model_get_item (model, g_list_model_get_n_items (model) - 1);
  g_object_add_weak_pointer (newest, &newest);
  g_object_unref (newest);
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), other);
  pd_test_wait_until (item_gone, &newest, "the rows of the session left let go");
  pd_test_spin (200);
  g_test_message ("VmRSS left: %" G_GUINT64_FORMAT " KiB", rss_kib ());

  /* Opened again: as many rows, not more. */
  pd_session_view_set_session_id (PD_SESSION_VIEW (view), id);
  pd_test_wait_until (read_done, view, "the transcript read again");
  pd_test_spin (200);
  g_test_message ("VmRSS opened again: %" G_GUINT64_FORMAT " KiB, %u rows", rss_kib (),
                  g_list_model_get_n_items (model));
  assert_newest_part (view, total);

  pd_test_destroy_window (window, view);
  pd_import_index_set_follow_appends (FALSE);
  pd_test_remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  pd_test_views_init (&argc, &argv);

  g_test_add_func ("/pd/ui/transcript-bounded/tiny", test_transcript_tiny_bounded);

  return g_test_run ();
}
